/*
 * jailpath.h -- the jail path: one input evaluated for real inside the
 * kernel jail (jail.h), and what the kernel did turned into a record.
 */
#ifndef SANDBOXREPL_JAILPATH_H
#define SANDBOXREPL_JAILPATH_H

#include <stdbool.h>

#include "record/record.h"

struct arena;
struct cmd_entry;
struct mfs;
struct node;
struct ns;

struct jailpath_job {
	const struct node	*root;		/* the parsed input */
	const struct cmd_entry	*cmd;		/* when it is a command */
	const struct node	*call;		/*   and its call node */
	struct mfs		*fs;		/* the jail path's files, in/out */
	struct ns		*ns;		/* the jail path's names */
	int			 fail_at;	/* test hook: a jail set-up step */
	unsigned		 wall_ms;	/* 0: JAIL_DEFAULT_WALL_MS */
};

/*
 * Run the job in a fresh jail and fill the verdict, layer, reason, node,
 * result, outcome and effects of r (strings in a).  On success the jail
 * path's filesystem becomes the workspace as the jail left it.  If the
 * jail cannot be set up, nothing runs: the record says why.
 */
void jailpath_run(const struct jailpath_job *job, struct arena *a,
    struct record *r);

#endif
