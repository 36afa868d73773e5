/*
 * workspace.h -- the world a file operation acts on, and how it acts.
 *
 * A command or a file operation (fsops.h) needs less than the evaluator
 * that calls it: the input's arena and the exception a failed operation
 * raises, the path's files, and where its effects are written.  That is
 * all it gets, so nothing below the interpreter reaches into it.  The
 * evaluator holds one (ev->ws), which the session and the jail path hand
 * to the commands they run.
 *
 * How the operations act is the workspace's ops table, as SQLite's VFS
 * hides the operating system behind sqlite3_io_methods: whoever builds
 * the workspace chooses the implementation, and the code above it never
 * asks which path it is on.  There are three:
 *
 *   workspace_mock   the path's mock filesystem (ws_mock.c);
 *   workspace_host   the same, on a pretend host whose files outside the
 *                    workspace (/etc/passwd, ~/.ssh/id_rsa) an escape can
 *                    read (ws_mock.c): the unsafe path's;
 *   workspace_real   the real workspace of the process it runs in, by
 *                    system calls (ws_real.c): only inside a jail, which
 *                    refuses what the input may not do.
 */
#ifndef SANDBOXREPL_WORKSPACE_H
#define SANDBOXREPL_WORKSPACE_H

#include <stdbool.h>
#include <stddef.h>

#include "value/value.h"

struct effect_log;
struct mfs;
struct rt;
struct workspace;

/*
 * The operations, each as fsops.h describes its wrapper: false with a
 * Python exception set in ws->rt when it failed, data in ws->rt's arena.
 */
struct workspace_ops {
	bool	(*read)(struct workspace *ws, const char *path,
		    const char **data, size_t *len);
	bool	(*write)(struct workspace *ws, const char *path,
		    const char *data, size_t len, bool append, bool *existed);
	bool	(*remove)(struct workspace *ws, const char *path);
	bool	(*exists)(struct workspace *ws, const char *path);
	bool	(*listdir)(struct workspace *ws, const char *dir, value *out);
	/* Really run a command line, really reach a host. */
	bool	(*exec)(struct workspace *ws, const char *cmdline);
	bool	(*connect)(struct workspace *ws, const char *url);
};

extern const struct workspace_ops workspace_mock;
extern const struct workspace_ops workspace_host;
extern const struct workspace_ops workspace_real;

struct workspace {
	const struct workspace_ops *ops;	/* how operations act */
	struct rt		*rt;		/* arena, the exception raised */
	struct mfs		*fs;		/* the path's mock files (the mock
						   implementations'); NULL for
						   workspace_real */
	/* The input runs as a jail's process: its working directory is
	 * the jail's root, its pid and environment are the jail's, and
	 * what it does is real, not simulated. */
	bool			 jailed;
	struct effect_log	*effects;	/* what the operations did */
	/* workspace_real: the last operation the kernel refused. */
	const char		*denied_layer;	/* "landlock", "namespace" */
	const char		*denied_reason;
};

/* For the implementations: raise CPython's OSError subclass and message
 * for errno err on path (FileNotFoundError, "[Errno 2] ...: 'x'"). */
bool fsops_raise_os(struct workspace *ws, int err, const char *path);

#endif
