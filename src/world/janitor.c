/*
 * janitor.c -- what a session's worlds leave on the host is removed
 * however the session ends: :quit, end of input, SIGTERM, SIGHUP of a
 * closed terminal, SIGINT, or SIGKILL, which no handler sees.
 *
 * The worlds' processes need no help: the zygote, every warden and every
 * runsc die with the session (PDEATHSIG chains, zygote.c, gvisor.c).
 * What outlives them is on disk: a gVisor world's OCI bundle in TMPDIR
 * (gvisor.c), and the memory cgroup jail-<id> a world's or a jail's
 * warden made under P/sandboxrepl-jails (jail_cgroup.c), which only an
 * empty cgroup's rmdir removes.
 *
 * So the first world a session builds starts a janitor: a process
 * forked from it, in a session of its own (no terminal, so no SIGHUP or
 * ^C of it), its working directory /, its descriptors /dev/null, one
 * socket from the session and a pidfd of the session.  The session
 * tells it every bundle it makes and removes ("+DIR" and "-DIR", a
 * SOCK_SEQPACKET message each, sent without SIGPIPE).  When the
 * session is gone -- its pidfd readable, whatever killed it -- the
 * janitor waits for the worlds' processes to end and removes what is
 * left:
 *
 *   - every bundle the session made and did not remove itself;
 *   - every cgroup jail-<id> under P/sandboxrepl-jails, in each
 *     hierarchy the session was in, whose id's lock (jail_ids.h) it can
 *     take: a lock no one holds is an id no world or jail uses, and
 *     holding it while removing the cgroup keeps a new world from taking
 *     the id meanwhile.  A cgroup still busy is tried again until
 *     JANITOR_WAIT_MS.  (P/sandboxrepl-jails itself stays: another
 *     session in P may be using it.)
 *
 * Then it exits.  A session that ends normally has removed its bundles
 * already (gvisor_reap).  The cgroups are the janitor's in every case:
 * while the session runs, it sweeps them too whenever the session says
 * a world ended ("S": killed at the wall clock, :reset, the session's
 * end), so a world's cgroup does not outlive it.
 * The janitor prints nothing and never touches a path it was not told
 * of or a cgroup whose id is held.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "jail/jail_ids.h"
#include "jail/jail_int.h"
#include "world_int.h"
#include "jail/jail_sys.h"

/* How long the janitor waits for the worlds' processes to end. */
#define JANITOR_WAIT_MS		10000
/* ... and at least this long, however soon all looks clean. */
#define JANITOR_LINGER_MS	1000
#define MAX_BUNDLES		256
#define JAILS_DIR		"sandboxrepl-jails"

static int janitor_fd = -1;	/* the session's end of the socket */
static pid_t janitor_owner;	/* the process that started it */

/* ---------------------------------------------------------------- */
/* the janitor                                                        */
/* ---------------------------------------------------------------- */

static int
rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (flag == FTW_DP || flag == FTW_D || flag == FTW_DNR)
		(void)rmdir(path);
	else
		(void)unlink(path);
	return 0;
}

/* Remove dir and what is under it, never following a link; true when it
 * is gone. */
static bool
remove_tree(const char *dir)
{
	struct stat sb;

	(void)nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	return lstat(dir, &sb) == -1 && errno == ENOENT;
}

/* Is name "jail-" and an id of the range?  The id in *id. */
static bool
jail_cgroup_name(const char *name, unsigned *id)
{
	unsigned long v;
	char *end;

	if (strncmp(name, "jail-", 5) != 0 || !isdigit((unsigned char)name[5]))
		return false;
	errno = 0;
	v = strtoul(name + 5, &end, 10);
	if (errno != 0 || *end != '\0' || v < JAIL_IDS_FIRST ||
	    v > JAIL_IDS_LAST)
		return false;
	*id = (unsigned)v;
	return true;
}

/*
 * Remove the cgroups jail-<id> of one parent whose id no one holds.
 * Returns how many are left busy: their processes are still ending.
 * (One whose id is held is in use: another session's world may have
 * taken the id since.)
 */
static int
sweep_dir(const char *parent, int locks)
{
	DIR *d = opendir(parent);
	struct dirent *de;
	int busy = 0;

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		char lock[16];
		unsigned id;
		int fd;

		if (!jail_cgroup_name(de->d_name, &id))
			continue;
		snprintf(lock, sizeof lock, "%u", id);
		fd = openat(locks, lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;	/* never an id of ours */
		if (flock(fd, LOCK_EX | LOCK_NB) == 0 &&
		    unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) == -1 &&
		    errno == EBUSY)
			busy++;		/* its processes are still ending */
		close(fd);
	}
	closedir(d);
	return busy;
}

/*
 * Every hierarchy this process is in ("N:controllers:/path" in
 * /proc/self/cgroup): its P/sandboxrepl-jails, swept.  Returns the
 * number of busy cgroups left.
 */
static int
sweep_cgroups(void)
{
	char buf[4096], *line, *next;
	ssize_t got;
	int fd, locks, busy = 0;

	if (geteuid() != 0)
		return 0;	/* (only root's jails have cgroups) */
	locks = open(JAIL_IDS_LOCK_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (locks < 0)
		return 0;
	fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
	got = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
	if (fd >= 0)
		close(fd);
	if (got <= 0) {
		close(locks);
		return 0;
	}
	buf[got] = '\0';
	for (line = buf; line != NULL && *line != '\0'; line = next) {
		char dir[PATH_MAX], *ctl, *path;

		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		ctl = strchr(line, ':');
		path = ctl ? strchr(ctl + 1, ':') : NULL;
		if (path == NULL || path[1] != '/' || strstr(path, "/..")
		    != NULL)
			continue;
		*path++ = '\0';
		ctl++;
		if (strcmp(path, "/") == 0)
			path = (char *)"";
		if (*ctl == '\0') {	/* v2: where its mount is */
			snprintf(dir, sizeof dir, "/sys/fs/cgroup%s/%s", path,
			    JAILS_DIR);
			busy += sweep_dir(dir, locks);
			snprintf(dir, sizeof dir,
			    "/sys/fs/cgroup/unified%s/%s", path, JAILS_DIR);
		} else {		/* v1: the hierarchy's usual mount */
			if (strncmp(ctl, "name=", 5) == 0)
				ctl += 5;
			snprintf(dir, sizeof dir, "/sys/fs/cgroup/%s%s/%s", ctl,
			    path, JAILS_DIR);
		}
		busy += sweep_dir(dir, locks);
	}
	close(locks);
	return busy;
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* The session's bundles, as it told them. */
struct bundles {
	char	*dir[MAX_BUNDLES];
	size_t	 n;
};

static void
told(struct bundles *b, char *line)
{
	size_t i;

	if (line[0] == '+' && line[1] == '/') {
		if (b->n < MAX_BUNDLES)
			b->dir[b->n++] = strdup(line + 1);
	} else if (line[0] == '-') {
		for (i = 0; i < b->n; i++)
			if (b->dir[i] != NULL && strcmp(b->dir[i], line + 1)
			    == 0) {
				free(b->dir[i]);
				b->dir[i] = b->dir[--b->n];
				break;
			}
	}
}

static void janitor_main(int rd, int owner) __attribute__((noreturn));

static void
janitor_main(int rd, int owner)
{
	struct bundles b = { .n = 0 };
	char msg[PATH_MAX + 2];
	size_t i;
	double start, until, sweep_until = 0;

	for (;;) {
		struct pollfd p[2] = { { rd, POLLIN, 0 },
		    { owner, POLLIN, 0 } };
		ssize_t got;
		int rc;

		/* a world ended: its cgroup goes once its processes have */
		if (sweep_until > 0 && (sweep_cgroups() == 0 ||
		    clock_ms() > sweep_until))
			sweep_until = 0;
		rc = poll(p, 2, sweep_until > 0 ? 100 : -1);
		if (rc == -1 && errno == EINTR)
			continue;
		if (rc == -1)
			break;
		if (p[0].revents != 0) {
			got = recv(rd, msg, sizeof msg - 1, 0);
			if (got <= 0 && !(got == -1 && errno == EINTR))
				break;	/* (every sender closed) */
			if (got > 0) {
				msg[got] = '\0';
				if (msg[0] == 'S')
					sweep_until = clock_ms() +
					    JANITOR_WAIT_MS;
				else
					told(&b, msg);
				continue;	/* (all it said, first) */
			}
		}
		/* the session ended (its pidfd), whatever ended it */
		if (p[1].revents != 0)
			break;
	}
	/* Its worlds die with it; remove what they leave, until nothing
	 * is left -- and a warden that was making its cgroup as the
	 * session died, holding its id, has had the time to die too -- or
	 * the wait is over. */
	start = clock_ms();
	until = start + JANITOR_WAIT_MS;
	for (;;) {
		bool left = false;

		for (i = 0; i < b.n; i++)
			if (b.dir[i] != NULL && remove_tree(b.dir[i])) {
				free(b.dir[i]);
				b.dir[i] = NULL;
			} else if (b.dir[i] != NULL)
				left = true;
		if (sweep_cgroups() > 0)
			left = true;
		if ((!left && clock_ms() > start + JANITOR_LINGER_MS) ||
		    clock_ms() > until)
			break;
		sleep_ms(100);
	}
	_exit(0);
}

/* ---------------------------------------------------------------- */
/* the session's side                                                 */
/* ---------------------------------------------------------------- */

int
janitor_start(void)
{
	pid_t self = getpid(), pid;
	int p[2], owner, fds[5] = { -1, -1, -1, -1, -1 };
	/* 0-2 on /dev/null, 3 its socket, 4 the session's pidfd, nothing
	 * else; a session of its own (it outlives the session: no death
	 * signal) */
	const struct jail_child_spec spec = {
		.flags = JAIL_FORK_SESSION | JAIL_FORK_FLUSH,
		.fds = fds,
		.nfds = 5,
	};
	const char *failed;

	if (janitor_fd >= 0 && janitor_owner == self)
		return 0;
	if (janitor_fd >= 0)	/* (a fork of the session: not ours) */
		close(janitor_fd);
	janitor_fd = -1;
	owner = (int)syscall(__NR_pidfd_open, self, 0);
	if (owner < 0)
		return -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p) == -1) {
		close(owner);
		return -1;
	}
	fds[3] = p[0];
	fds[4] = owner;
	pid = jail_fork(&spec, &failed);
	if (pid == 0) {
		sigset_t none;
		int sig;

		if (failed != NULL)
			_exit(127);
		if (chdir("/") == -1)
			_exit(127);
		for (sig = 1; sig < NSIG; sig++)
			if (sig != SIGKILL && sig != SIGSTOP)
				(void)signal(sig, sig == SIGHUP ||
				    sig == SIGINT ? SIG_IGN : SIG_DFL);
		sigemptyset(&none);
		(void)sigprocmask(SIG_SETMASK, &none, NULL);
		/* Background work: told a world ended, it sweeps once the
		 * session has the answer out, not in its place (a batch
		 * task does not preempt the one that woke it; it still has
		 * its fair share of the CPU).  Best effort. */
		{
			struct sched_param sp = { .sched_priority = 0 };
			(void)sched_setscheduler(0, SCHED_BATCH, &sp);
		}
		janitor_main(3, 4);
	}
	close(p[0]);
	close(owner);
	if (pid < 0) {
		close(p[1]);
		return -1;
	}
	janitor_fd = p[1];
	janitor_owner = self;
	return 0;
}

/* One message to the janitor, without SIGPIPE if it is gone. */
static void
tell(char what, const char *dir)
{
	char msg[PATH_MAX + 2];
	int len;

	if (janitor_fd < 0 || janitor_owner != getpid())
		return;
	len = snprintf(msg, sizeof msg, "%c%s", what, dir);
	if (len <= 0 || (size_t)len >= sizeof msg)
		return;
	(void)send(janitor_fd, msg, (size_t)len, MSG_NOSIGNAL);
}

void
janitor_bundle(const char *dir)
{
	tell('+', dir);
}

void
janitor_bundle_gone(const char *dir)
{
	tell('-', dir);
}

void
janitor_world_ended(void)
{
	tell('S', "");
}
