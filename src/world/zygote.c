/*
 * zygote.c -- the process CPython worlds are forked from.
 *
 * Forking a world from the session's own process would copy its heap
 * (the UI's, readline's, every arena) and pay for it on every fork; and
 * CPython must be initialised once, not per input.  So a small process is
 * forked early (ui/main.c calls world_zygote_start() first thing; any
 * other caller gets one on its first world), keeps nothing but its
 * control socket, initialises CPython (pyrun_init) and then only forks.
 * It is single-threaded, which unshare(CLONE_NEWUSER) requires.
 *
 * The control socket is a SOCK_SEQPACKET pair: the session sends one
 * message, a u32 fail_at with the world's end of a fresh socketpair
 * attached (SCM_RIGHTS); the zygote hands them to its spare warden (see
 * spare_make) or forks a warden for them (replica_main), and answers with
 * the warden's pid and errno, and a pidfd for it attached, so the session
 * can kill that world and no other, even after the pid is reused.  The
 * world then speaks to the session directly.  The zygote dies with the session (PDEATHSIG) and
 * when the control socket closes, reaps the wardens, and never reads
 * anything from a world.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "world_int.h"

#ifndef __NR_pidfd_open
#define __NR_pidfd_open		434
#endif
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal	424
#endif
#ifndef __NR_close_range
#define __NR_close_range	436
#endif

#define ZYGOTE_TIMEOUT_MS	10000	/* start-up (valgrind is slow) */

struct zreq {
	uint32_t	fail_at;
	uint32_t	kind;	/* enum world_kind */
};

struct zrep {
	int32_t		pid;
	int32_t		err;	/* 0, or why the zygote could not fork */
	char		why[120];
};

static int ctl_fd = -1;		/* the session's end */
/* The zygote's spare warden (replica_spare_main), or -1. */
static pid_t spare = -1;
static int spare_ctl = -1, spare_pidfd = -1;
static pid_t zygote_pid = -1;
static int zygote_err;		/* why it could not start, once failed */
static char zygote_why[120];

/* Send or receive one message with up to MAX_FDS descriptors attached
 * (nfd of them; -1s are not sent). */
#define MAX_FDS	3

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

/*
 * The spare warden: forked while the zygote waits, it takes a world's
 * first steps (its host ids: a read of every /proc/N/status; its memory
 * cgroup: on cgroup v1 moving a process there waits for an RCU grace
 * period; milliseconds each) in a process of its own, before any
 * request, and the next request gets it (unless its fail_at is one of
 * those steps: replica_spare_serves).  It has run nothing of any input
 * and holds nothing of any session: it is as new as a warden forked for
 * the request.
 */
static void
spare_drop(void)
{
	/* (by its pidfd: the wardens' reaping may have freed its pid) */
	if (spare_pidfd >= 0)
		(void)syscall(__NR_pidfd_send_signal, spare_pidfd, SIGKILL,
		    NULL, 0);
	if (spare_ctl >= 0)
		close(spare_ctl);
	if (spare_pidfd >= 0)
		close(spare_pidfd);
	spare = -1;
	spare_ctl = spare_pidfd = -1;
}

static void
spare_make(int ctl)
{
	int sv[2];
	pid_t pid;

	if (spare > 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		return;
	pid = fork();
	if (pid == 0) {
		close(ctl);
		close(sv[0]);
		replica_spare_main(sv[1]);
	}
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return;
	}
	spare = pid;
	spare_ctl = sv[0];
	spare_pidfd = (int)syscall(__NR_pidfd_open, pid, 0);
	if (spare_pidfd < 0)
		spare_drop();
}

int
zygote_spare_wait(int zctl, int fds[3], int *fail_at, int *kind)
{
	struct zreq req;
	ssize_t n;
	size_t k;

	do
		n = recv_fds(zctl, &req, sizeof req, fds, 3);
	while (n < 0 && errno == EINTR);
	close(zctl);
	if (n != (ssize_t)sizeof req || fds[0] < 0 || fds[1] < 0 ||
	    fds[2] < 0) {
		for (k = 0; k < 3; k++)
			if (fds[k] >= 0)
				close(fds[k]);
		return -1;
	}
	*fail_at = (int)req.fail_at;
	*kind = (int)req.kind;
	return 0;
}

static void zygote_main(int ctl, pid_t parent) __attribute__((noreturn));

static void
zygote_main(int ctl, pid_t parent)
{
	struct sigaction sa;
	struct zrep rep;
	int devnull, i;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1 ||
	    getppid() != parent)
		_exit(0);
	/* Nothing of the session's but the control socket. */
	devnull = open("/dev/null", O_RDWR);
	if (devnull < 0 || dup2(devnull, 0) == -1 || dup2(devnull, 1) == -1 ||
	    dup2(devnull, 2) == -1 || dup2(ctl, 3) == -1)
		_exit(0);
	ctl = 3;
	if (syscall(__NR_close_range, 4U, ~0U, 0U) == -1)
		_exit(0);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	for (i = 1; i < NSIG; i++)
		if (i != SIGKILL && i != SIGSTOP)
			(void)sigaction(i, &sa, NULL);
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
	spare_make(ctl);	/* the first world's warden */
	for (;;) {
		struct zreq req;
		int fds[3], pidfd = -1;
		ssize_t n;
		pid_t pid;
		size_t k;

		while (waitpid(-1, NULL, WNOHANG) > 0)
			;	/* wardens that ended */
		/* the world's socket, its capture pipe's write end and its
		 * sync pipe's read end (the fake internet's, fakenet.h) */
		n = recv_fds(ctl, &req, sizeof req, fds, 3);
		if (n == 0)
			_exit(0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof req || fds[0] < 0) {
			if (n < 0 && errno != EMSGSIZE)
				_exit(0);
			for (k = 0; k < 3; k++)
				if (fds[k] >= 0)
					close(fds[k]);
			continue;
		}
		memset(&rep, 0, sizeof rep);
		if (spare > 0 && replica_spare_serves((int)req.fail_at)) {
			if (send_fds(spare_ctl, &req, sizeof req, fds, 3) ==
			    (ssize_t)sizeof req) {
				/* it goes on as this request's warden */
				rep.pid = spare;
				pidfd = spare_pidfd;
				close(spare_ctl);
				spare = -1;
				spare_ctl = spare_pidfd = -1;
				for (k = 0; k < 3; k++)
					close(fds[k]);
				goto reply;
			}
			spare_drop();	/* it died */
		}
		pid = fork();
		if (pid == 0) {
			close(ctl);
			if (spare_ctl >= 0)
				close(spare_ctl);
			if (spare_pidfd >= 0)
				close(spare_pidfd);
			replica_main(fds[0], fds[1], fds[2], (int)req.fail_at,
			    (int)req.kind);
		}
		for (k = 0; k < 3; k++)
			close(fds[k]);
		if (pid < 0) {
			rep.pid = -1;
			rep.err = errno;
		} else {
			rep.pid = pid;
			pidfd = (int)syscall(__NR_pidfd_open, pid, 0);
			if (pidfd < 0) {
				rep.err = errno;
				kill(pid, SIGKILL);
			}
		}
reply:
		if (send_fd(ctl, &rep, sizeof rep, pidfd) < 0)
			_exit(0);
		if (pidfd >= 0)
			close(pidfd);
		spare_make(ctl);	/* the next world's, while it waits */
	}
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

/* Fork the zygote; its first message is awaited by zygote_ensure(), so
 * CPython initialises while the caller goes on. */
int
zygote_start(void)
{
	int sv[2];
	pid_t pid, self = getpid();

	if (ctl_fd >= 0)
		return 0;
	if (zygote_err != 0) {
		errno = zygote_err;
		return -1;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		return -1;
	fflush(NULL);	/* nothing buffered is written twice */
	pid = fork();
	if (pid == -1) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		close(sv[0]);
		zygote_main(sv[1], self);
	}
	close(sv[1]);
	ctl_fd = sv[0];
	zygote_pid = pid;
	zygote_up = false;
	return 0;
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
zygote_spawn(int sock, int cap_wr, int ctl_rd, int fail_at, int kind,
    int *pidfd, pid_t *pid)
{
	struct zreq req = { (uint32_t)fail_at, (uint32_t)kind };
	struct zrep rep;
	int fd, fds[3] = { sock, cap_wr, ctl_rd };

	*pidfd = -1;
	if (zygote_ensure() == -1)
		return -1;
	if (send_fds(ctl_fd, &req, sizeof req, fds, 3) != (ssize_t)sizeof req ||
	    !wait_readable(ctl_fd, ZYGOTE_TIMEOUT_MS) ||
	    recv_fd(ctl_fd, &rep, sizeof rep, &fd) != (ssize_t)sizeof rep) {
		/* The zygote is gone or stuck: start another next time. */
		close(ctl_fd);
		ctl_fd = -1;
		kill(zygote_pid, SIGKILL);
		waitpid(zygote_pid, NULL, 0);
		errno = ECHILD;
		return -1;
	}
	if (rep.err != 0 || fd < 0) {
		if (fd >= 0)
			close(fd);
		errno = rep.err != 0 ? rep.err : EBADF;
		return -1;
	}
	*pidfd = fd;
	*pid = rep.pid;
	return 0;
}

const char *
zygote_failure(void)
{
	return zygote_why;
}
