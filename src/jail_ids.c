/*
 * jail_ids.c -- the host ids a jail or a world runs as (stand-in).
 *
 * This stand-in gives root's jails nobody (65534), as the jail always
 * did, and anyone else their own ids; it holds no lock.  The hardening
 * branch replaces it with a locked id from a range no account uses.
 */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "jail_ids.h"

#define NOBODY_ID	65534

int
jail_ids_acquire(struct jail_ids *out, char *why, size_t n)
{
	if (geteuid() == 0) {
		out->uid = NOBODY_ID;
		out->gid = NOBODY_ID;
	} else {
		out->uid = geteuid();
		out->gid = getegid();
	}
	out->lock_fd = -1;
	if (n > 0)
		why[0] = '\0';
	return 0;
}

void
jail_ids_release(struct jail_ids *ids)
{
	if (ids->lock_fd >= 0)
		close(ids->lock_fd);
	ids->lock_fd = -1;
}
