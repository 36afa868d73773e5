/*
 * workspace.h -- the world a file operation acts on.
 *
 * A command or a file operation (fsops.h) needs less than the evaluator
 * that calls it: the input's arena and the exception a failed operation
 * raises, the path's files, and where its effects are written.  That is
 * all it gets, so nothing below the interpreter reaches into it.  The
 * evaluator holds one (ev->ws), which the session and the jail path hand
 * to the commands they run.
 */
#ifndef SANDBOXREPL_WORKSPACE_H
#define SANDBOXREPL_WORKSPACE_H

#include "record.h"

struct effect_log;
struct mfs;
struct rt;

struct workspace {
	struct rt		*rt;		/* arena, the exception raised */
	struct mfs		*fs;		/* the path's mock files; NULL on
						   the jail path: the real
						   workspace this process is in */
	enum path_id		 path;
	struct effect_log	*effects;	/* what the operations did */
	/* Jail path: the last real operation the kernel refused. */
	const char		*denied_layer;	/* "landlock", "namespace" */
	const char		*denied_reason;
};

#endif
