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
 * path, when the session has it (pymod.c), and in a sanitizer's build
 * that sanitizer's options.  Nothing of the session's memory survives
 * the exec; nothing else is sent later but kinds and test hooks.
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
 * mounts and dnsmasq's start; a session with --fresh-world asks for one
 * per input.  So, for every kind a session has asked for, the zygote
 * keeps one spare world built ahead, while the session types: forked
 * with its own socket and pipes and built all the way (its "ready" waits
 * in the socket), with no files, environment or names of any session --
 * those come with the request's set-up, as for any world.  A request
 * takes the spare of its kind and the zygote builds the next one; a
 * request with a fail_at, or one that finds no spare, gets a world
 * forked for it.  A spare that failed a step says so in its socket, and
 * the session that takes it refuses as it would for its own world.
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
#define ZYGOTE_ENV_MAX	(sizeof zygote_env / sizeof zygote_env[0])

struct zreq {
	uint32_t	fail_at;
	uint32_t	kind;	/* enum world_kind */
	uint64_t	mem;	/* the world's memory budget (world_memory) */
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
static struct made spares[KINDS];
static bool wanted[KINDS];	/* a session asked for this kind */
/* the budget the last request of a kind asked for, its spare's */
static uint64_t spare_mem[KINDS];

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

/* Fork a warden for a world of kind, with a fresh socket and pipes. */
static int
make_world(int ctl, int kind, int fail_at, uint64_t mem, struct made *m)
{
	int sv[2], cap[2] = { -1, -1 }, sync[2] = { -1, -1 }, saved;
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
		for (k = 0; k < KINDS; k++)
			made_close(&spares[k]);
		close(sv[0]);
		close(cap[0]);
		close(sync[1]);
		replica_main(sv[1], cap[1], sync[0], fail_at, kind, mem);
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

/* A spare for every kind asked for that has none. */
static void
spares_make(int ctl)
{
	size_t k;

	for (k = 0; k < KINDS; k++)
		if (wanted[k] && spares[k].pid == 0)
			(void)make_world(ctl, (int)k, 0, spare_mem[k] ?
			    spare_mem[k] : WORLD_MEM_BYTES, &spares[k]);
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
	for (i = 0; i < KINDS; i++)
		made_close(&spares[i]);
	wanted[WORLD_KIND_REPLICA] = true;	/* the first world's */
	spares_make(ctl);
	for (;;) {
		struct zreq req;
		struct made m;
		int none[1];
		ssize_t n;

		while (waitpid(-1, NULL, WNOHANG) > 0)
			;	/* wardens that ended */
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
		if (spares[req.kind].pid > 0 && (spare_mem[req.kind] ?
		    spare_mem[req.kind] : WORLD_MEM_BYTES) != req.mem) {
			/* built for another budget (--memory) */
			kill(spares[req.kind].pid, SIGKILL);
			made_close(&spares[req.kind]);
		}
		spare_mem[req.kind] = req.mem;
		if (req.fail_at == 0 && spares[req.kind].pid > 0) {
			m = spares[req.kind];	/* built while the session
						   typed */
			memset(&spares[req.kind], 0, sizeof m);
		} else if (make_world(ctl, (int)req.kind, (int)req.fail_at,
		    req.mem, &m) == -1) {
			rep.pid = -1;
			rep.err = errno;
		}
		if (rep.err == 0)
			rep.pid = m.pid;
		if (send_fds(ctl, &rep, sizeof rep, m.fds, rep.err == 0 ? 4 :
		    0) < 0)
			_exit(0);
		if (rep.err == 0)
			made_close(&m);
		wanted[req.kind] = true;
		spares_make(ctl);	/* the next world, while it waits */
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
	zygote_main(ZYGOTE_CTL_FD);
}

/* ---------------------------------------------------------------- */
/* the session's side                                                 */
/* ---------------------------------------------------------------- */

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

void
zygote_forget(void)
{
	if (ctl_fd >= 0)
		close(ctl_fd);
	ctl_fd = -1;
	zygote_pid = -1;
	zygote_up = false;
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
zygote_spawn(int fail_at, int kind, uint64_t mem, int *sock, int *cap_rd,
    int *ctl_wr, int *pidfd, pid_t *pid)
{
	struct zreq req = { (uint32_t)fail_at, (uint32_t)kind, mem };
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
