/*
 * jail_ids.h -- the host uid and gid a jail runs as.
 *
 * Run by root, a jail must not run as any principal of the host: not
 * root, not the shared "nobody" (65534) whose other processes could
 * ptrace or signal it, not any account.  jail_ids_acquire() picks one
 * number from JAIL_IDS_FIRST..JAIL_IDS_LAST, used as both uid and gid,
 * that no /etc/passwd or /etc/group entry, no name service lookup, no
 * /etc/subuid or /etc/subgid delegation and no running process (any of
 * the four uids, four gids or the supplementary groups in
 * /proc/N/status) uses, and holds it: an exclusive flock(2) on
 * JAIL_IDS_LOCK_DIR/<id>, a root-owned 0700 directory (its parent
 * root-owned and writable by no one else), for as long as
 * the lock descriptor is open.  Two jails alive at once -- two
 * sessions, two paths of one session, two processes -- never share an
 * id, since each holds a different lock.
 *
 * The range: systemd's dynamic users take 61184..65519, its containers
 * 524288..1879048191 (0x00080000..0x6FFFFFFF), its "foreign" ids
 * 0x7FFE0000..0x7FFEFFFF, and useradd's subordinate ids stop at
 * 600100000 by default; accounts live below 60000.  0x7FF00000..
 * 0x7FF0FFFF lies in the block systemd leaves unused between its
 * containers and its foreign ids, below 2^31 (ids with the top bit set
 * trip signed-uid bugs).  65536 ids: more jails than one machine runs.
 *
 * As an ordinary user there is nothing to choose: the jail runs as the
 * caller's own uid and gid (mapped into its user namespace) and holds
 * no lock.
 *
 * Ownership: the caller owns the struct and must call jail_ids_release()
 * once it no longer runs jails with it.  The lock descriptor is
 * O_CLOEXEC; a jail's warden closes it before anything else, so it never
 * reaches the jail.  Keep the ids for as long as jails are run: acquiring
 * reads /proc/N/status of every process.
 */
#ifndef SANDBOXREPL_JAIL_IDS_H
#define SANDBOXREPL_JAIL_IDS_H

#include <stddef.h>
#include <sys/types.h>

#define JAIL_IDS_FIRST		0x7FF00000u	/* 2146435072 */
#define JAIL_IDS_LAST		0x7FF0FFFFu	/* 2146500607 */
#define JAIL_IDS_LOCK_DIR	"/run/sandboxrepl/ids"

struct jail_ids {
	uid_t	uid;
	gid_t	gid;
	int	lock_fd;	/* the flock on the id, or -1 (not root) */
};

/*
 * As root: a uid and gid from JAIL_IDS_FIRST..JAIL_IDS_LAST that nothing
 * on the host uses, held exclusively (see above).  As an ordinary user:
 * the caller's own effective uid and gid, lock_fd = -1.  Returns 0, or
 * -1 with errno set and in why (n bytes; may be 0) a one-line reason
 * without strerror(errno), e.g. "no free id in 2146435072..2146500607".
 * lock_fd is never 0, 1 or 2.
 */
int jail_ids_acquire(struct jail_ids *out, char *why, size_t n);

/* Close the lock (the id is free again).  Safe on a zeroed or an already
 * released struct; leaves lock_fd at -1. */
void jail_ids_release(struct jail_ids *ids);

#endif
