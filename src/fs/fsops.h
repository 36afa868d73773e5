/*
 * fsops.h -- the file operations, on the workspace an input acts on.
 *
 * Each takes a struct workspace (workspace.h), not the evaluator, and
 * acts through the workspace's ops: the path's mock filesystem
 * (workspace_mock, workspace_host), or the real workspace inside a jail
 * (workspace_real), where these make real system calls (open, read,
 * write, unlink, getdents, execve, socket), relative to the jail's root,
 * and what the kernel refuses is written down as a denied effect.
 * Callers never touch mfs_* directly for an evaluation's file access, so
 * the same builtin or command code serves every path.
 *
 * All return false with a Python exception set in ws->rt
 * (FileNotFoundError, ...) when the operation failed; data returned lives
 * in ws->rt's arena.
 */
#ifndef SANDBOXREPL_FSOPS_H
#define SANDBOXREPL_FSOPS_H

#include <stdbool.h>
#include <stddef.h>

#include "value/value.h"

struct workspace;

bool fsops_read(struct workspace *ws, const char *path, const char **data,
    size_t *len);
/* Create or replace (or append); *existed says whether it was there. */
bool fsops_write(struct workspace *ws, const char *path, const char *data,
    size_t len, bool append, bool *existed);
bool fsops_delete(struct workspace *ws, const char *path);
bool fsops_exists(struct workspace *ws, const char *path);
/* The sorted file names, as a list of str. */
bool fsops_list(struct workspace *ws, value *out);
/* The sorted names in dir ("." is the workspace), or the OSError
 * os.listdir(dir) raises. */
bool fsops_listdir(struct workspace *ws, const char *dir, value *out);

/*
 * The real workspace only (a mock one raises RuntimeError): really try to
 * run a command line (execve of /bin/sh) and to reach a host (socket +
 * connect).  Inside the jail the kernel stops both; these return false
 * with an exception when it merely refused, and do not return at all when
 * it killed the process.
 */
bool fsops_exec(struct workspace *ws, const char *cmdline);
bool fsops_connect(struct workspace *ws, const char *url);

#endif
