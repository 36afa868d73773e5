/*
 * jail_ids.c -- choosing and holding the host ids a root caller's jails
 * run as (see jail_ids.h for the contract and the range).
 *
 * acquire() builds one bitmap over the range, a bit per id, set for
 * every id something already uses: an id not mapped in the caller's own
 * user namespace (setresuid would fail), a uid or gid in /etc/passwd or
 * /etc/group, a subordinate range in /etc/subuid or /etc/subgid, and
 * every uid, gid and supplementary group of every process in /proc.
 * Then it walks the clear bits in order and takes the first id whose
 * lock file it can flock exclusively without waiting and that the name
 * service (NSS: LDAP, nss-systemd, ...) does not know either.  The lock
 * is what two sandboxrepl processes agree on; the scan is what keeps
 * the id away from everything else.  Both together cost about a
 * millisecond on a machine with a hundred processes, which is why
 * callers keep their ids rather than acquire them per jail.
 *
 * Nothing here prints or exits.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jail_ids.h"

#define RANGE_LEN	((size_t)JAIL_IDS_LAST - JAIL_IDS_FIRST + 1)
/* Bytes of /proc/N/status read: the Uid, Gid and Groups lines come
 * early, and 65536 groups of 10 digits still fit. */
#define STATUS_MAX	(1u << 20)

struct used {
	unsigned char	bits[RANGE_LEN / 8];
};

static void
why_set(char *why, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
why_set(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	if (n == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
}

/* Mark [lo, lo + count) as used, clipped to the range. */
static void
mark(struct used *u, unsigned long long lo, unsigned long long count)
{
	unsigned long long hi = lo + count, i;

	if (count == 0 || hi <= JAIL_IDS_FIRST || lo > JAIL_IDS_LAST)
		return;
	if (lo < JAIL_IDS_FIRST)
		lo = JAIL_IDS_FIRST;
	if (hi > (unsigned long long)JAIL_IDS_LAST + 1)
		hi = (unsigned long long)JAIL_IDS_LAST + 1;
	for (i = lo - JAIL_IDS_FIRST; i < hi - JAIL_IDS_FIRST; i++)
		u->bits[i / 8] |= (unsigned char)(1u << (i % 8));
}

static bool
is_used(const struct used *u, size_t i)
{
	return (u->bits[i / 8] >> (i % 8)) & 1;
}

/* Parse a decimal id field ending at ':' or the end; false when bad. */
static bool
parse_id(const char *s, unsigned long long *out)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno == 0 && (*end == ':' || *end == '\0' || *end == '\n' ||
	    *end == ' ' || *end == '\t');
}

/* The n-th ':'-separated field of line (0-based), or NULL. */
static const char *
field(const char *line, int n)
{
	while (n-- > 0) {
		line = strchr(line, ':');
		if (line == NULL)
			return NULL;
		line++;
	}
	return line;
}

/*
 * Mark ids named in a colon-separated database.  id_fields lists the
 * fields holding single ids; with range set, fields 1 and 2 are a start
 * and a count (subuid/subgid).  A missing file marks nothing.
 */
static void
mark_db(struct used *u, const char *path, const int *id_fields,
    size_t nfields, bool range)
{
	char *line = NULL;
	size_t cap = 0, i;
	FILE *f = fopen(path, "re");

	if (f == NULL)
		return;
	while (getline(&line, &cap, f) != -1) {
		unsigned long long a, b;
		const char *s, *t;

		if (range) {
			s = field(line, 1);
			t = field(line, 2);
			if (s != NULL && t != NULL && parse_id(s, &a) &&
			    parse_id(t, &b))
				mark(u, a, b);
			continue;
		}
		for (i = 0; i < nfields; i++) {
			s = field(line, id_fields[i]);
			if (s != NULL && parse_id(s, &a))
				mark(u, a, 1);
		}
	}
	free(line);
	fclose(f);
}

/*
 * Mark every id that is not mapped into the caller's user namespace
 * (the "inside" column of uid_map/gid_map): the jail could not switch to
 * it.  In the initial namespace the map is the identity over all ids.
 */
static int
mark_unmapped(struct used *u, const char *path)
{
	struct used mapped;
	char line[128];
	size_t i;
	FILE *f = fopen(path, "re");

	if (f == NULL)
		return -1;
	memset(&mapped, 0, sizeof mapped);
	while (fgets(line, sizeof line, f) != NULL) {
		unsigned long long inside, outside, count;

		if (sscanf(line, "%llu %llu %llu", &inside, &outside,
		    &count) == 3)
			mark(&mapped, inside, count);
	}
	fclose(f);
	for (i = 0; i < sizeof u->bits; i++)
		u->bits[i] |= (unsigned char)~mapped.bits[i];
	return 0;
}

/* Mark the numbers on one "Key:\tn n n n" line of a status file. */
static void
mark_status_line(struct used *u, const char *p)
{
	for (;;) {
		unsigned long long id;
		char *end;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!isdigit((unsigned char)*p))
			return;
		errno = 0;
		id = strtoull(p, &end, 10);
		if (errno != 0)
			return;
		mark(u, id, 1);
		p = end;
	}
}

/* Every uid, gid and supplementary group of every process. */
static int
mark_processes(struct used *u)
{
	static const char *const keys[] = { "\nUid:", "\nGid:", "\nGroups:" };
	struct dirent *de;
	char *buf;
	DIR *proc;

	proc = opendir("/proc");
	if (proc == NULL)
		return -1;
	buf = malloc(STATUS_MAX + 1);
	if (buf == NULL) {
		closedir(proc);
		errno = ENOMEM;
		return -1;
	}
	while ((de = readdir(proc)) != NULL) {
		char path[300];
		size_t len = 0, k;
		ssize_t r;
		int fd;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof path, "%s/status", de->d_name);
		fd = openat(dirfd(proc), path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;	/* it exited meanwhile */
		while (len < STATUS_MAX &&
		    (r = read(fd, buf + len, STATUS_MAX - len)) > 0)
			len += (size_t)r;
		close(fd);
		buf[len] = '\0';
		for (k = 0; k < sizeof keys / sizeof keys[0]; k++) {
			const char *p = strstr(buf, keys[k]);

			if (p != NULL)
				mark_status_line(u, p + strlen(keys[k]));
		}
	}
	free(buf);
	closedir(proc);
	return 0;
}

/*
 * Open (creating it, mode 0700) a directory root owns and in which none
 * of the mode bits in deny is set.
 */
static int
root_dir(int at, const char *name, mode_t deny)
{
	struct stat sb;
	int fd;

	if (mkdirat(at, name, 0700) == -1 && errno != EEXIST)
		return -1;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) == -1 || sb.st_uid != 0 ||
	    (sb.st_mode & deny) != 0) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

static int
lock_dir(char *why, size_t n)
{
	/* /run is the system's; /run/sandboxrepl may hold other things of
	 * sandboxrepl's and need only be closed to writers; the locks'
	 * own directory is closed to everyone but root. */
	static const struct {
		const char	*name;
		mode_t		 deny;
	} parts[] = { { "run", 0 }, { "sandboxrepl", 022 }, { "ids", 077 } };
	size_t i;
	int at, fd, saved;

	at = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (at < 0)
		goto fail;
	for (i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		fd = i == 0 ? openat(at, parts[i].name, O_RDONLY |
		    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) :
		    root_dir(at, parts[i].name, parts[i].deny);
		saved = errno;
		close(at);
		if (fd < 0) {
			errno = saved;
			goto fail;
		}
		at = fd;
	}
	return at;
fail:
	why_set(why, n, "%s%s", JAIL_IDS_LOCK_DIR, errno == EPERM ?
	    " must be a directory owned by root, mode 0700, in one no one"
	    " else may write" : "");
	return -1;
}

/* Does the name service know this number as a user or a group? */
static bool
nss_knows(unsigned id)
{
	struct passwd pw, *pwp = NULL;
	struct group gr, *grp = NULL;
	char buf[4096];

	if (getpwuid_r((uid_t)id, &pw, buf, sizeof buf, &pwp) == 0 &&
	    pwp != NULL)
		return true;
	if (getgrgid_r((gid_t)id, &gr, buf, sizeof buf, &grp) == 0 &&
	    grp != NULL)
		return true;
	return false;
}

/*
 * Take the first free id's lock.  Returns the lock descriptor (>= 3) and
 * the id, or -1 with errno EAGAIN when every id is taken.
 */
static int
take_first_free(int dir, const struct used *u, unsigned *id)
{
	size_t i;

	for (i = 0; i < RANGE_LEN; i++) {
		char name[16];
		int fd, high;

		if (is_used(u, i))
			continue;
		snprintf(name, sizeof name, "%u", (unsigned)(JAIL_IDS_FIRST + i));
		fd = openat(dir, name, O_RDWR | O_CREAT | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
		if (fd < 0)
			return -1;
		if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
			int saved = errno;

			close(fd);
			if (saved == EWOULDBLOCK)
				continue;	/* another jail holds it */
			errno = saved;
			return -1;
		}
		if (nss_knows((unsigned)(JAIL_IDS_FIRST + i))) {
			close(fd);
			continue;
		}
		/* Never 0-2: a zeroed struct jail_ids must be safe to release. */
		if (fd < 3) {
			high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
			close(fd);
			if (high < 0)
				return -1;
			fd = high;
		}
		*id = (unsigned)(JAIL_IDS_FIRST + i);
		return fd;
	}
	errno = EAGAIN;
	return -1;
}

int
jail_ids_acquire(struct jail_ids *out, char *why, size_t n)
{
	static const int passwd_ids[] = { 2, 3 }, group_ids[] = { 2 };
	struct used *u;
	unsigned id = 0;
	int dir, fd, saved;

	out->lock_fd = -1;
	if (geteuid() != 0) {
		out->uid = geteuid();
		out->gid = getegid();
		return 0;
	}
	u = calloc(1, sizeof *u);
	if (u == NULL) {
		why_set(why, n, "out of memory");
		errno = ENOMEM;
		return -1;
	}
	if (mark_unmapped(u, "/proc/self/uid_map") == -1 ||
	    mark_unmapped(u, "/proc/self/gid_map") == -1 ||
	    mark_processes(u) == -1) {
		saved = errno;
		why_set(why, n, "cannot read /proc");
		free(u);
		errno = saved;
		return -1;
	}
	mark_db(u, "/etc/passwd", passwd_ids, 2, false);
	mark_db(u, "/etc/group", group_ids, 1, false);
	mark_db(u, "/etc/subuid", NULL, 0, true);
	mark_db(u, "/etc/subgid", NULL, 0, true);

	dir = lock_dir(why, n);
	if (dir < 0) {
		saved = errno;
		free(u);
		errno = saved;
		return -1;
	}
	fd = take_first_free(dir, u, &id);
	saved = errno;
	close(dir);
	free(u);
	if (fd < 0) {
		if (saved == EAGAIN)
			why_set(why, n, "no free id in %u..%u (all used on "
			    "this host, locked in %s, or not mapped here)",
			    JAIL_IDS_FIRST, JAIL_IDS_LAST, JAIL_IDS_LOCK_DIR);
		else
			why_set(why, n, "lock in %s", JAIL_IDS_LOCK_DIR);
		errno = saved;
		return -1;
	}
	out->uid = (uid_t)id;
	out->gid = (gid_t)id;
	out->lock_fd = fd;
	return 0;
}

void
jail_ids_release(struct jail_ids *ids)
{
	if (ids->lock_fd > 2)
		close(ids->lock_fd);
	ids->lock_fd = -1;
}
