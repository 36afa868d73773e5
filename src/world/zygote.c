/*
 * zygote.c -- the process CPython worlds are forked from.
 *
 * Forking a world from the session's own process would copy its heap
 * (the UI's, readline's, every arena) and pay for it on every fork; and
 * CPython must be initialised once, not per input.  So a small process is
 * started early (ui/main.c calls world_zygote_start() first thing; any
 * other caller gets one on its first world), keeps nothing but its
 * control socket, initialises CPython (pyrun_init) and then only forks.
 * It is single-threaded, which unshare(CLONE_NEWUSER) requires.
 *
 * Started by exec, not only by fork.  Every world is a fork of the
 * zygote, so whatever the zygote's memory holds, the code in every world
 * can read (ctypes, between program_invocation_name and AT_EXECFN): a
 * zygote forked from the session would hold the session's original
 * environment and argv on its inherited stack -- the teacher's API key,
 * an MCP host's secrets, an --agent command line -- even with environ
 * replaced.  So zygote_start() forks a child that only arranges its
 * descriptors and execs this very program (readlink of /proc/self/exe,
 * which valgrind answers with the program it runs) with an argv of its
 * own, { "sandboxrepl", ZYGOTE_FLAG }, and an environment of nothing but
 * what the zygote needs: SANDBOXREPL_PYTHON_MODULE, the CPython module's
 * path, when the session has it (pymod.c), in a sanitizer's build
 * that sanitizer's options, and LD_BIND_NOW (below).  Nothing of the
 * session's memory survives the exec; nothing else is sent later but
 * kinds and test hooks.
 *
 * LD_BIND_NOW: the dynamic linker binds every symbol of the program, of
 * its libraries and of all it loads later (the module, libpython, the
 * extension modules) once, in the zygote, instead of on each first call
 * in every process forked from it -- where each binding wrote to a
 * shared page (a copy-on-write fault) after a symbol lookup: about 70 of
 * a fresh world's page faults.  The linker reads it at start; the
 * zygote removes it from its environment before anything else runs, so
 * no world's environment has it.
 *
 * How any program becomes the zygote: the exec'd program finds itself in
 * zygote_entry(), a constructor of this file (glibc passes argc and argv
 * to the main program's constructors), before its main() runs: with
 * argv[1] ZYGOTE_FLAG and the control socket at ZYGOTE_CTL_FD it is the
 * zygote and never returns; otherwise the constructor returns at once.
 * Every program that builds CPython worlds links this file, so each of
 * them -- sandboxrepl, the bench, the test programs -- can be its own
 * zygote without a line in its main().  (gVisor's worker is the other
 * exec of the program, and its main() asks: world_worker_main.)
 *
 * The control socket is a SOCK_SEQPACKET pair: the session sends one
 * message, the world's kind and a fail_at (a test hook); the zygote
 * answers with the warden's pid and errno and, attached (SCM_RIGHTS), a
 * pidfd for the warden, so the session can kill that world and no other
 * even after the pid is reused, and the session's ends of the world's
 * socket and of the fake internet's two pipes.  The world then speaks to
 * the session directly.  The zygote dies with the session (PDEATHSIG)
 * and when the control socket closes, reaps the wardens, and never reads
 * anything from a world.  Its first message says whether CPython came
 * up; when the exec itself fails, the child sends that message instead.
 *
 * Spares.  Building a world takes milliseconds of forks, namespaces,
 * mounts, a cgroup move (under cgroup v1 it waits for an RCU grace
 * period) and dnsmasq's start; a session with --fresh-world asks for one
 * per input.  So, for every kind a session has asked for, the zygote
 * keeps spare worlds built ahead, while the session types: each forked
 * with its own socket and pipes and built all the way (its "ready" waits
 * in the socket), with no files, environment or names of any session --
 * those come with the request's set-up, as for any world.  A request
 * takes the oldest spare of its kind; a request with a fail_at, or one
 * that finds none, gets a world forked for it.  How many are kept is the
 * demand seen (struct pool): one at a user's pace, rebuilt a moment
 * after a request took the last one (so that the build does not compete
 * with that input for the CPU); up to POOL_MAX when requests come back
 * to back, built at once; none after a minute without a request.  A
 * spare that failed a step says so in its socket, and the session that
 * takes it refuses as it would for its own world.
 *
 * Ids.  As root, each world runs as a host id of its own, in a cgroup
 * named by it; finding a free id scans every process on the host.  The
 * zygote acquires ids once and hands each to one world at a time (struct
 * held): a world gets an id only once the last world that had it is
 * gone, warden reaped and cgroup empty, so no two live worlds share an
 * id or a cgroup, and each world's cgroup holds none of another's
 * processes.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jail/jail_ids.h"
#include "jail/jail_int.h"
#include "world.h"
#include "world_int.h"
#include "base/xalloc.h"
#include "jail/jail_sys.h"

#define ZYGOTE_TIMEOUT_MS	10000	/* start-up (valgrind is slow) */
#define ZYGOTE_FLAG		"--world-zygote"	/* argv[1] */
#define ZYGOTE_CTL_FD		3	/* the control socket, after exec */

/* The session's environment variables the zygote is given, when set:
 * where the CPython module is, and the options of a sanitizer this build
 * has (ASAN_OPTIONS=allocator_may_return_null=1 makes a world's huge
 * allocation fail as it does without ASan).  Nothing else. */
#if defined(__SANITIZE_ADDRESS__)		/* gcc */
#define SANITIZED	1
#elif defined(__has_feature)			/* clang */
#if __has_feature(address_sanitizer)
#define SANITIZED	1
#endif
#endif
#ifdef SANITIZED
#define SANITIZER_ENV	"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS",
#else
#define SANITIZER_ENV
#endif
static const char *const zygote_env[] = {
	"SANDBOXREPL_PYTHON_MODULE", SANITIZER_ENV NULL
};
#define ZYGOTE_ENV_MAX	(sizeof zygote_env / sizeof zygote_env[0] + 1)
#define ZYGOTE_BIND_NOW	"LD_BIND_NOW=1"

struct zreq {
	uint32_t	fail_at;
	uint32_t	kind;	/* enum world_kind */
	uint64_t	mem;	/* the world's memory budget (world_memory) */
	int32_t		done;	/* the warden of a world this session is
				   done with, to kill a moment later, or 0
				   (see "Done worlds" below) */
	uint32_t	pad;
};

struct zrep {
	int32_t		pid;
	int32_t		err;	/* 0, or why the zygote could not fork */
	char		why[120];
};

static int ctl_fd = -1;		/* the session's end */
static pid_t zygote_pid = -1;
static int zygote_err;		/* why it could not start, once failed */
static char zygote_why[120];

/* Send or receive one message with up to MAX_FDS descriptors attached
 * (nfd of them; -1s are not sent). */
#define MAX_FDS	4

static ssize_t
send_fds(int sock, const void *p, size_t n, const int *fds, size_t nfd)
{
	char ctl[CMSG_SPACE(MAX_FDS * sizeof(int))];
	struct iovec iov = { (void *)p, n };
	struct msghdr mh;

	memset(&mh, 0, sizeof mh);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (nfd > 0 && fds[0] >= 0) {
		struct cmsghdr *c;

		memset(ctl, 0, sizeof ctl);
		mh.msg_control = ctl;
		mh.msg_controllen = CMSG_SPACE(nfd * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfd * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfd * sizeof(int));
	}
	return sendmsg(sock, &mh, MSG_NOSIGNAL);
}

static ssize_t
send_fd(int sock, const void *p, size_t n, int fd)
{
	return send_fds(sock, p, n, &fd, 1);
}

/* Exactly want descriptors into fds, or none (all -1). */
static ssize_t
recv_fds(int sock, void *p, size_t n, int *fds, size_t want)
{
	char ctl[CMSG_SPACE(MAX_FDS * sizeof(int))];
	struct iovec iov = { p, n };
	struct msghdr mh;
	struct cmsghdr *c;
	size_t i, got = 0;
	ssize_t r;

	for (i = 0; i < want; i++)
		fds[i] = -1;
	memset(&mh, 0, sizeof mh);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctl;
	mh.msg_controllen = sizeof ctl;
	r = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	if (r < 0)
		return r;
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len >= CMSG_LEN(0)) {
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			int tmp[MAX_FDS];
			memcpy(tmp, CMSG_DATA(c), (k > MAX_FDS ? MAX_FDS : k) *
			    sizeof(int));
			for (i = 0; i < k && i < MAX_FDS; i++) {
				if (got < want)
					fds[got++] = tmp[i];
				else
					close(tmp[i]);
			}
		}
	if ((mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || (got != 0 &&
	    got != want)) {
		for (i = 0; i < want; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		for (i = 0; i < want; i++)
			fds[i] = -1;
		errno = EMSGSIZE;
		return -1;
	}
	return r;
}

static ssize_t
recv_fd(int sock, void *p, size_t n, int *fd)
{
	return recv_fds(sock, p, n, fd, 1);
}

/* ---------------------------------------------------------------- */
/* the zygote                                                         */
/* ---------------------------------------------------------------- */

/* A world as the zygote holds it until it answers: its warden and the
 * session's ends (the world holds the others). */
struct made {
	pid_t	pid;		/* 0: none */
	int	fds[4];		/* pidfd, socket, capture read, sync write */
};

#define KINDS	8		/* more than enum world_kind has */

/*
 * The pool of spares, per kind, sized to the demand seen (see the top of
 * the file): POOL_MIN while requests come at a user's pace; doubled, up
 * to POOL_MAX, by every request that comes within POOL_BURST_MS of the
 * one before (back to back, no single spare has the time to be built),
 * halved by every one that comes later than that (a user's pace again:
 * requests that keep coming, slower, would otherwise keep a burst's
 * pool, each spare rebuilt at once beside the input), and back to
 * POOL_MIN after POOL_CALM_MS without one; none at all after
 * POOL_IDLE_MS without a request, until the next one.  At POOL_MIN the
 * next spare is built POOL_DEFER_MS after a request took one, once that
 * request's input has had the machine to itself (a build's forks and
 * execs would otherwise compete with it for the CPU); when the pool is
 * larger, at once.
 */
#define POOL_MIN	1
#define POOL_MAX	4
#define POOL_BURST_MS	50
#define POOL_CALM_MS	1000
#define POOL_IDLE_MS	60000
#define POOL_DEFER_MS	15

struct pool {
	struct made	spare[POOL_MAX];	/* built first, first */
	size_t		n;
	size_t		target;		/* 0 until a session asks */
	uint64_t	mem;		/* the budget of the last request of
					   this kind, its spares' */
	int64_t		last_ms;	/* the last request of this kind */
	int64_t		refill_at;	/* build up to target from then (0:
					   nothing to build) */
};
static struct pool pools[KINDS];

/*
 * The host ids the zygote holds (as root, with the worlds' memory
 * cgroup: replica_ids_poolable): acquired once each (jail_ids_acquire's
 * scan of every process is a world's costliest step on a busy host) and
 * handed to one world at a time, its lock held here meanwhile, so that
 * neither another session nor the janitor takes the id or removes its
 * cgroup.  An id goes to the next world only once its last warden has
 * been reaped and its cgroup holds no process (replica_id_reusable):
 * never two live worlds on one id, and each a cgroup no process is in.
 */
#define IDS_MAX		32
struct held {
	struct jail_ids	ids;
	pid_t		warden;		/* its world's, or 0: free */
};
static struct held held[IDS_MAX];
static size_t nheld;

/*
 * Done worlds.  A session that replaces a world after every input
 * (--fresh-world: world_renew) names, in its request for the next one,
 * the warden of the world it is done with; the zygote kills that warden
 * DONE_DEFER_MS later, once the input's answer is out, with the next
 * spare's build (back to back, when the spares are built at once, at
 * once too).  The SIGKILL and the exit of a world's processes it wakes
 * would otherwise compete with the session for the CPU just as it
 * returns the answer.  Only a warden the zygote handed out and has not
 * reaped is killed, by its pid: the zygote reaps its children itself, so
 * such a pid is not another process's.  The session keeps its pidfd and
 * kills it too, later or at its end (cpython.c: the grave), so a world
 * the zygote did not know still dies.
 */
#define HANDED_MAX	64
#define DONE_DEFER_MS	POOL_DEFER_MS
static pid_t handed[HANDED_MAX];	/* wardens given out, not reaped */
static struct doomed {
	pid_t	pid;
	int64_t	at;			/* when to kill it */
} doomed[HANDED_MAX];
static size_t ndoomed;

/* A warden given to a session: kept until it is reaped (or forgotten,
 * the oldest first, when more than HANDED_MAX are out: the session
 * kills those itself). */
static void
handed_add(pid_t pid)
{
	size_t i;

	for (i = 0; i < HANDED_MAX; i++)
		if (handed[i] == 0) {
			handed[i] = pid;
			return;
		}
	memmove(&handed[0], &handed[1], (HANDED_MAX - 1) * sizeof *handed);
	handed[HANDED_MAX - 1] = pid;
}

/* The session is done with the world of warden pid: killed at. */
static void
doomed_add(pid_t pid, int64_t at)
{
	size_t i;

	for (i = 0; i < HANDED_MAX; i++)
		if (pid > 0 && handed[i] == pid)
			break;
	if (i == HANDED_MAX || ndoomed == HANDED_MAX)
		return;		/* (not ours, or reaped: the session's) */
	doomed[ndoomed].pid = pid;
	doomed[ndoomed].at = at;
	ndoomed++;
}

/* Kill every done world that is due (now): its warden not yet reaped,
 * as an entry goes when its warden is (ids_ended); the time until the
 * next is (-1: none). */
static int
doomed_tend(int64_t now)
{
	size_t i, k = 0;
	int next = -1;

	for (i = 0; i < ndoomed; i++) {
		if (doomed[i].at > now) {
			int left = (int)(doomed[i].at - now);
			if (next == -1 || left < next)
				next = left;
			doomed[k++] = doomed[i];
			continue;
		}
		(void)kill(doomed[i].pid, SIGKILL);
	}
	ndoomed = k;
	return next;
}

/* A warden reaped: its id may go to another world once it is empty,
 * and its pid is no longer one the zygote may kill. */
static void
ids_ended(pid_t warden)
{
	size_t i, k;

	for (i = 0; i < nheld; i++)
		if (held[i].warden == warden)
			held[i].warden = 0;
	for (i = 0; i < HANDED_MAX; i++)
		if (handed[i] == warden)
			handed[i] = 0;
	/* nor one to kill when due: its pid may be a new warden's by then,
	 * handed out again */
	for (i = k = 0; i < ndoomed; i++)
		if (doomed[i].pid != warden)
			doomed[k++] = doomed[i];
	ndoomed = k;
}

/* Every child that ended reaped: a warden's id may go to another
 * world once its cgroup is empty. */
static void
reap_ended(void)
{
	pid_t ended;

	while ((ended = waitpid(-1, NULL, WNOHANG)) > 0)
		ids_ended(ended);
}

/* Idle: every id no world holds given back, its cgroup removed (the
 * janitor's sweep would, once the lock is free; an id still busy stays
 * held until the session ends). */
static void
ids_forget(void)
{
	size_t i, k = 0;

	for (i = 0; i < nheld; i++) {
		if (held[i].warden == 0 &&
		    replica_id_reusable((unsigned)held[i].ids.uid)) {
			replica_id_forget((unsigned)held[i].ids.uid);
			jail_ids_release(&held[i].ids);
		} else
			held[k++] = held[i];
	}
	nheld = k;
}

/* A free id for the next world, or NULL (it acquires its own, as every
 * world does where the zygote cannot hold them). */
static struct held *
ids_take(void)
{
	char why[160];
	size_t i;

	if (!replica_ids_poolable())
		return NULL;
	reap_ended();	/* wardens that ended meanwhile */
	for (i = 0; i < nheld; i++)
		if (held[i].warden == 0 &&
		    replica_id_reusable((unsigned)held[i].ids.uid))
			return &held[i];
	if (nheld == IDS_MAX || jail_ids_acquire(&held[nheld].ids, why,
	    sizeof why) == -1)
		return NULL;
	held[nheld].warden = 0;
	return &held[nheld++];
}


static void
made_close(struct made *m)
{
	size_t k;

	for (k = 0; k < 4; k++)
		if (m->fds[k] >= 0)
			close(m->fds[k]);
	memset(m, 0, sizeof *m);
	for (k = 0; k < 4; k++)
		m->fds[k] = -1;
}

/* Whether fd is readable within ms (-1: no limit). */
static bool
wait_readable(int fd, int ms)
{
	struct pollfd p = { fd, POLLIN, 0 };
	int rc;

	do
		rc = poll(&p, 1, ms);
	while (rc == -1 && errno == EINTR);
	return rc == 1;
}

/* Kill and close p's spares after the first keep (the newest go first),
 * their wardens reaped (their ids free once their cgroups are empty). */
static void
pool_trim(struct pool *p, size_t keep)
{
	while (p->n > keep) {
		struct made *m = &p->spare[--p->n];
		struct pollfd gone = { m->fds[0], POLLIN, 0 };
		pid_t pid = m->pid, reaped;

		/* (by its pidfd: a spare that failed a step may have been
		 * reaped already, and its pid be another process's now) */
		(void)syscall(__NR_pidfd_send_signal, m->fds[0], SIGKILL, NULL,
		    0);
		(void)poll(&gone, 1, 100);	/* (readable once it ended) */
		made_close(m);
		if ((reaped = waitpid(pid, NULL, WNOHANG)) > 0)
			ids_ended(reaped);	/* (else the loop reaps it) */
	}
}

static void
pool_drop(struct pool *p)
{
	pool_trim(p, 0);
}

/* In a world just forked: the zygote's ends of every spare closed. */
static void
pools_close(void)
{
	size_t k, i;

	for (k = 0; k < KINDS; k++)
		for (i = 0; i < pools[k].n; i++)
			made_close(&pools[k].spare[i]);
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Fork a warden for a world of kind, with a fresh socket and pipes. */
static int
make_world(int ctl, int kind, int fail_at, uint64_t mem, struct made *m)
{
	int sv[2], cap[2] = { -1, -1 }, sync[2] = { -1, -1 }, saved;
	struct held *id = ids_take();
	const char *failed;
	pid_t pid;
	size_t k;

	for (k = 0; k < 4; k++)
		m->fds[k] = -1;
	m->pid = 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
		return -1;
	if (pipe2(cap, O_CLOEXEC) == -1 || pipe2(sync, O_CLOEXEC) == -1) {
		saved = errno;
		close(sv[0]);
		close(sv[1]);
		if (cap[0] >= 0) {
			close(cap[0]);
			close(cap[1]);
		}
		errno = saved;
		return -1;
	}
	/* (the warden's steps, its death signal first, are replica.c's,
	 * each refused by its name) */
	pid = jail_fork(NULL, &failed);
	if (pid == 0) {
		close(ctl);
		pools_close();
		for (k = 0; k < nheld; k++)	/* (the others' locks) */
			if (&held[k] != id)
				jail_ids_release(&held[k].ids);
		close(sv[0]);
		close(cap[0]);
		close(sync[1]);
		replica_main(sv[1], cap[1], sync[0], fail_at, kind, mem,
		    id != NULL ? &id->ids : NULL);
	}
	saved = errno;
	close(sv[1]);
	close(cap[1]);
	close(sync[0]);
	m->fds[1] = sv[0];
	m->fds[2] = cap[0];
	m->fds[3] = sync[1];
	if (pid < 0) {
		made_close(m);
		errno = saved;
		return -1;
	}
	m->pid = pid;
	if (id != NULL)
		id->warden = pid;
	m->fds[0] = (int)syscall(__NR_pidfd_open, pid, 0);
	if (m->fds[0] < 0) {
		saved = errno;
		kill(pid, SIGKILL);
		made_close(m);
		errno = saved;
		return -1;
	}
	return 0;
}

/* A spare for every kind asked for that has fewer than its pool's size,
 * once its refill is due (now: the monotonic clock, ms); the time until
 * the next thing the pool has to do (-1: none). */
static int
pools_tend(int ctl, int64_t now)
{
	bool busy = false;
	int next = -1;
	size_t k;

	for (k = 0; k < KINDS; k++) {
		struct pool *p = &pools[k];
		int64_t due;

		if (p->target == 0)
			continue;
		if (now - p->last_ms >= POOL_IDLE_MS) {
			/* idle: no world held ready for no one */
			pool_drop(p);
			p->target = 0;
			continue;
		}
		if (p->target > POOL_MIN && now - p->last_ms >= POOL_CALM_MS) {
			p->target = POOL_MIN;	/* the burst is over */
			pool_trim(p, p->target);
		}
		if (p->n < p->target && p->refill_at > 0 && now >= p->refill_at) {
			while (p->n < p->target && make_world(ctl, (int)k, 0,
			    p->mem, &p->spare[p->n]) == 0)
				p->n++;
			p->refill_at = 0;
		}
		due = p->n < p->target && p->refill_at > 0 ? p->refill_at :
		    p->last_ms + (p->target > POOL_MIN ? POOL_CALM_MS :
		    POOL_IDLE_MS);
		if (next == -1 || due - now < next)
			next = due - now < 0 ? 0 : (int)(due - now);
		busy = true;
	}
	if (!busy)
		ids_forget();	/* (every kind idle) */
	return next;
}

/* A request of kind with budget mem came at now: the pool's size from
 * the demand seen, its spares rebuilt where they were for another
 * budget (--memory), and when the next ones are built. */
static void
pool_request(struct pool *p, uint64_t mem, int64_t now)
{
	if (p->n > 0 && p->mem != mem)
		pool_drop(p);
	p->mem = mem;
	if (p->target == 0)
		p->target = POOL_MIN;
	else if (now - p->last_ms < POOL_BURST_MS)
		p->target = p->target * 2 > POOL_MAX ? POOL_MAX :
		    p->target * 2;
	else if (p->target > POOL_MIN)
		p->target /= 2;	/* a user's pace again: halved, so that
				   the next spare waits for the input */
	p->last_ms = now;
}

/* Take the oldest spare of p (the likeliest built): 0, or -1 if none. */
static int
pool_take(struct pool *p, struct made *m)
{
	if (p->n == 0)
		return -1;
	*m = p->spare[0];
	memmove(&p->spare[0], &p->spare[1], (p->n - 1) * sizeof *m);
	p->n--;
	return 0;
}

static void zygote_main(int ctl) __attribute__((noreturn));

/* The zygote, in the program zygote_start() exec'd: fds 0 to 2 are
 * /dev/null, ctl the control socket, no other is open (zygote_exec). */
static void
zygote_main(int ctl)
{
	struct sigaction sa;
	struct zrep rep;
	sigset_t unblocked;
	int i;

	/* A session of its own: the terminal's Ctrl-C and hang-up reach
	 * the session, which passes Ctrl-C on to the running input alone
	 * (world.h), never to the zygote and every world at once. */
	(void)setsid();
	/* (kept across the exec, set again in case it was not) */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1)
		_exit(0);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	for (i = 1; i < NSIG; i++)
		if (i != SIGKILL && i != SIGSTOP)
			(void)sigaction(i, &sa, NULL);
	sigemptyset(&unblocked);
	(void)sigprocmask(SIG_SETMASK, &unblocked, NULL);
	memset(&rep, 0, sizeof rep);
	/* (a cgroup that could not be set up makes every world refuse,
	 * at its memory-cgroup step: see replica.c) */
	(void)replica_cgroup_prepare(rep.why, sizeof rep.why);
	rep.why[0] = '\0';
	if (replica_compile(rep.why, sizeof rep.why) == -1 ||
	    jailkind_compile(rep.why, sizeof rep.why) == -1 ||
	    pyrun_init(rep.why, sizeof rep.why) == -1) {
		rep.pid = -1;
		rep.err = ENOEXEC;
	}
	/* The first message says whether CPython came up. */
	if (send_fd(ctl, &rep, sizeof rep, -1) < 0 || rep.err != 0)
		_exit(0);
	memset(pools, 0, sizeof pools);
	/* the first world's kind, built while the session starts */
	pool_request(&pools[WORLD_KIND_REPLICA], WORLD_MEM_BYTES, now_ms());
	pools[WORLD_KIND_REPLICA].refill_at = now_ms();
	for (;;) {
		struct zreq req;
		struct made m;
		struct pool *p;
		int none[1], wait_ms;
		ssize_t n;

		int doom_ms;

		reap_ended();
		doom_ms = doomed_tend(now_ms());
		wait_ms = pools_tend(ctl, now_ms());
		if (doom_ms >= 0 && (wait_ms == -1 || doom_ms < wait_ms))
			wait_ms = doom_ms;
		if (wait_ms != 0 && !wait_readable(ctl, wait_ms))
			continue;	/* (a refill or the pool's calm due) */
		if (wait_ms == 0)
			continue;
		n = recv_fds(ctl, &req, sizeof req, none, 0);
		if (n == 0)
			_exit(0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EMSGSIZE)
			_exit(0);
		if (n != (ssize_t)sizeof req || req.kind >= KINDS)
			continue;
		memset(&rep, 0, sizeof rep);
		if (req.mem == 0)
			req.mem = WORLD_MEM_BYTES;
		p = &pools[req.kind];
		pool_request(p, req.mem, now_ms());
		/* (back to back, as the spares: at once, with this one's
		 * reply sent) */
		if (req.done > 0)
			doomed_add((pid_t)req.done, now_ms() + (p->target >
			    POOL_MIN ? 0 : DONE_DEFER_MS));
		if (req.fail_at == 0 && pool_take(p, &m) == 0)
			;	/* built while the session typed */
		else if (make_world(ctl, (int)req.kind, (int)req.fail_at,
		    req.mem, &m) == -1) {
			rep.pid = -1;
			rep.err = errno;
		}
		if (rep.err == 0) {
			rep.pid = m.pid;
			handed_add(m.pid);
		}
		if (send_fds(ctl, &rep, sizeof rep, m.fds, rep.err == 0 ? 4 :
		    0) < 0)
			_exit(0);
		if (rep.err == 0)
			made_close(&m);
		/* the next worlds: at once when the pool is short of a
		 * burst's, else once this input has had the machine */
		if (p->refill_at == 0)
			p->refill_at = now_ms() + (p->target > POOL_MIN ? 0 :
			    POOL_DEFER_MS);
		else if (p->target > POOL_MIN)
			p->refill_at = now_ms();
	}
}

/*
 * Before main(), in every program that links this file: be the zygote
 * when zygote_start() exec'd this program as one, else return at once.
 * glibc calls the main program's constructors with main()'s arguments.
 */
static void zygote_entry(int argc, char **argv, char **envp)
    __attribute__((constructor));

static void
zygote_entry(int argc, char **argv, char **envp)
{
	socklen_t len = sizeof(int);
	int type = 0;

	(void)envp;
	if (argc != 2 || argv == NULL || argv[1] == NULL ||
	    strcmp(argv[1], ZYGOTE_FLAG) != 0)
		return;
	/* (not a user who typed the flag: the socket is there) */
	if (getsockopt(ZYGOTE_CTL_FD, SOL_SOCKET, SO_TYPE, &type, &len) == -1
	    || type != SOCK_SEQPACKET)
		return;
	/* (bound already; nothing run from here on may find it) */
	if (unsetenv("LD_BIND_NOW") == -1)
		_exit(0);
	zygote_main(ZYGOTE_CTL_FD);
}

/* ---------------------------------------------------------------- */
/* the session's side                                                 */
/* ---------------------------------------------------------------- */

static bool zygote_up;		/* its first message came */

/* The child of zygote_start(), with the session's memory until the exec:
 * only async-signal-safe calls (the session may have threads), and the
 * failure's message was written before the fork. */
static void zygote_exec(const char *exe, char *const *argv,
    char *const *envp, struct zrep *failed) __attribute__((noreturn));

static void
zygote_exec(const char *exe, char *const *argv, char *const *envp,
    struct zrep *failed)
{
	execve(exe, argv, envp);
	failed->err = errno;
	(void)send(ZYGOTE_CTL_FD, failed, sizeof *failed, MSG_NOSIGNAL);
	_exit(0);
}

/* Start the zygote: a fork that execs this program as one (see the top of
 * the file).  Its first message is awaited by zygote_ensure(), so CPython
 * initialises while the caller goes on. */
int
zygote_start(void)
{
	char exe[PATH_MAX], *envp[ZYGOTE_ENV_MAX];
	char *argv[] = { (char *)"sandboxrepl", (char *)ZYGOTE_FLAG, NULL };
	int fds[ZYGOTE_CTL_FD + 1] = { -1, -1, -1, -1 };
	const struct jail_child_spec spec = {
		.flags = JAIL_FORK_DEATHSIG | JAIL_FORK_SIGNALS,
		.fds = fds,
		.nfds = ZYGOTE_CTL_FD + 1,
	};
	struct zrep failed;
	const char *why;
	size_t i, k = 0;
	ssize_t len;
	int sv[2], saved;
	pid_t pid;

	if (ctl_fd >= 0)
		return 0;
	if (zygote_err != 0) {
		errno = zygote_err;
		return -1;
	}
	len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (len <= 0 || (size_t)len >= sizeof exe - 1) {
		zygote_err = len < 0 ? errno : ENAMETOOLONG;
		snprintf(zygote_why, sizeof zygote_why, "cannot find this "
		    "program to run as the zygote");
		errno = zygote_err;
		return -1;
	}
	exe[len] = '\0';
	memset(&failed, 0, sizeof failed);
	failed.pid = -1;
	snprintf(failed.why, sizeof failed.why, "cannot exec %.90s as the "
	    "zygote", exe);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		return -1;
	for (i = 0; zygote_env[i] != NULL; i++) {
		const char *v = getenv(zygote_env[i]);
		if (v != NULL)
			envp[k++] = xasprintf("%s=%s", zygote_env[i], v);
	}
	envp[k++] = xstrdup(ZYGOTE_BIND_NOW);
	envp[k] = NULL;
	/* Nothing of the session's but the control socket, at
	 * ZYGOTE_CTL_FD (0 to 2 on /dev/null); dying with it; every signal
	 * unblocked. */
	fds[ZYGOTE_CTL_FD] = sv[1];
	pid = jail_fork(&spec, &why);
	saved = errno;
	if (pid == 0) {
		if (why != NULL)
			_exit(0);
		zygote_exec(exe, argv, envp, &failed);
	}
	for (i = 0; i < k; i++)
		free(envp[i]);
	close(sv[1]);
	if (pid == -1) {
		close(sv[0]);
		errno = saved;
		return -1;
	}
	ctl_fd = sv[0];
	zygote_pid = pid;
	zygote_up = false;
	return 0;
}

pid_t
zygote_forget(void)
{
	pid_t pid = zygote_pid;

	if (ctl_fd >= 0)
		close(ctl_fd);
	ctl_fd = -1;
	zygote_pid = -1;
	zygote_up = false;
	return pid;
}

int
zygote_ensure(void)
{
	struct zrep rep;
	int fd;

	if (zygote_start() == -1)
		return -1;
	if (zygote_up)
		return 0;
	memset(&rep, 0, sizeof rep);
	if (!wait_readable(ctl_fd, ZYGOTE_TIMEOUT_MS) ||
	    recv_fd(ctl_fd, &rep, sizeof rep, &fd) != (ssize_t)sizeof rep ||
	    rep.err != 0) {
		zygote_err = rep.err != 0 ? rep.err : ECHILD;
		snprintf(zygote_why, sizeof zygote_why, "%.*s",
		    (int)sizeof rep.why, rep.why);
		close(ctl_fd);
		ctl_fd = -1;
		kill(zygote_pid, SIGKILL);
		waitpid(zygote_pid, NULL, 0);
		errno = zygote_err;
		return -1;
	}
	zygote_up = true;
	return 0;
}

int
zygote_spawn(int fail_at, int kind, uint64_t mem, pid_t done, int *sock,
    int *cap_rd, int *ctl_wr, int *pidfd, pid_t *pid)
{
	struct zreq req = { (uint32_t)fail_at, (uint32_t)kind, mem,
	    (int32_t)done, 0 };
	struct zrep rep;
	int fds[4];

	*pidfd = *sock = *cap_rd = *ctl_wr = -1;
	if (zygote_ensure() == -1)
		return -1;
	if (send_fds(ctl_fd, &req, sizeof req, NULL, 0) != (ssize_t)sizeof req ||
	    !wait_readable(ctl_fd, ZYGOTE_TIMEOUT_MS) ||
	    recv_fds(ctl_fd, &rep, sizeof rep, fds, 4) != (ssize_t)sizeof rep) {
		/* The zygote is gone or stuck: start another next time. */
		close(ctl_fd);
		ctl_fd = -1;
		kill(zygote_pid, SIGKILL);
		waitpid(zygote_pid, NULL, 0);
		errno = ECHILD;
		return -1;
	}
	if (rep.err != 0 || fds[0] < 0) {
		size_t k;
		for (k = 0; k < 4; k++)
			if (fds[k] >= 0)
				close(fds[k]);
		errno = rep.err != 0 ? rep.err : EBADF;
		return -1;
	}
	*pidfd = fds[0];
	*sock = fds[1];
	*cap_rd = fds[2];
	*ctl_wr = fds[3];
	*pid = rep.pid;
	return 0;
}

const char *
zygote_failure(void)
{
	return zygote_why;
}
