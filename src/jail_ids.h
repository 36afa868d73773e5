/*
 * jail_ids.h -- the host ids a jail or a world runs as.
 *
 * (A minimal stand-in for the hardening branch's version, with exactly
 * its API: the coordinator takes that one at merge.)
 *
 * As root, a jail must not run as uid 0 nor share an id with an account
 * or another jail: jail_ids_acquire() picks one and holds a lock on it
 * for as long as lock_fd stays open.  As anyone else, the caller's own
 * ids (an unprivileged user can map no other).
 */
#ifndef SANDBOXREPL_JAIL_IDS_H
#define SANDBOXREPL_JAIL_IDS_H

#include <stddef.h>
#include <sys/types.h>

struct jail_ids {
	uid_t	uid;
	gid_t	gid;
	int	lock_fd;	/* -1 when nothing is held */
};

/* 0 and *out filled, or -1 with errno and why (n bytes) saying what. */
int jail_ids_acquire(struct jail_ids *out, char *why, size_t n);
/* Let the ids go (closes lock_fd).  Safe on a zeroed or released one. */
void jail_ids_release(struct jail_ids *ids);

#endif
