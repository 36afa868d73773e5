/*
 * jailkind.c -- what a CPython world of the jail kind adds to a replica's
 * set-up (replica.c): the jail path's layers, with CPython inside.
 *
 *   network   nothing: the network namespace stays empty, loopback
 *             down, no fake internet (replica.c skips its step).
 *   Landlock  (after pivot_root and no_new_privs) the jail's ruleset
 *             (jail_landlock.c: every right the kernel knows is handled,
 *             TCP bind and connect denied, abstract sockets and signals
 *             scoped) granting only: /usr read (CPython reads
 *             its .py files and maps its extension modules, which needs
 *             READ_FILE, not EXECUTE: Landlock's EXECUTE is execve's),
 *             the workspace, HOME and /tmp plain file work, the few devices
 *             read and write.  Nothing else: not /etc, not /proc, not /.
 *             Nothing in the world's own file modes refuses a read (its
 *             files are the agent's or the host's world-readable /usr),
 *             so an open that fails with EACCES outside these grants is
 *             Landlock's refusal, and cpython.c says so.
 *   seccomp   the jail's own table (jail_seccomp.c) with one change of
 *             action: instead of SIGSYS and a kill, every refused call
 *             goes to a supervisor (SECCOMP_RET_USER_NOTIF), which
 *             answers it with an errno -- EACCES for a socket of any
 *             family but AF_UNIX, EPERM for the rest (execve, ptrace,
 *             mount, io_uring, bpf, System V IPC, clone with a namespace
 *             flag...) -- so the code gets an OSError and the session
 *             goes on: os.system() returns the shell's failure,
 *             subprocess raises PermissionError, socket() raises.  A
 *             process may be made (posix_spawn needs clone) under
 *             RLIMIT_NPROC.  A foreign architecture's call still kills.
 *
 * How the record knows the kernel refused: the supervisor writes each
 * refused call (its number and the errno it answered) into a page it
 * shares with PID 1 *before* it answers, so by the time the call returns
 * in the world the refusal is written down; PID 1 sends them after the
 * input as "seccomp" events (pyrun.c; the audit hook drops any "seccomp"
 * event the code raises itself).  Only the kernel's notification puts a
 * call there: a FileNotFoundError, a PermissionError from a mode bit, an
 * EPERM the code raises itself are not refusals.
 *
 * The supervisor is PID 1's child, forked just before Landlock: outside
 * the code's Landlock domain and seccomp filter, so with Landlock ABI >= 6
 * (signals scoped) the code cannot kill it, and ptrace is refused; it
 * gets the listener over a socket pair once the filter is loaded (PID 1
 * keeps no copy: nobody else can answer), holds nothing else, and reads
 * nothing but the kernel's notifications.  The page is in the world's
 * memory, so code that can write memory (ctypes) can add or wipe entries
 * for its own input: it can lie about itself, not about the host.  On a
 * kernel below Landlock ABI 6, code that kills the supervisor makes its
 * later refused calls fail with ENOSYS, unrecorded.
 */
#include "config.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jail/jail_int.h"
#include "wire.h"
#include "world.h"
#include "world_int.h"
#include "jail/jail_sys.h"

/* The page PID 1 and the supervisor share. */
struct shared {
	atomic_uint		n;	/* refusals written since the last take */
	atomic_uint		dropped;
	struct jailkind_refusal	v[JAILKIND_MAX_REFUSALS];
};

static struct jail_bpf prog;		/* compiled once, in the zygote */
static struct shared *shared;		/* PID 1's; NULL in a replica */

int
jailkind_compile(char *why, size_t n)
{
	if (jail_seccomp_compile_notify(&prog) == -1) {
		snprintf(why, n, "the jail world's seccomp filter: %s",
		    strerror(errno));
		return -1;
	}
	return 0;
}

static int to_supervisor = -1;		/* PID 1's end, until seccomp */

static void supervise(int listener) __attribute__((noreturn));

/* Receive the listener PID 1 sends (SCM_RIGHTS), or -1. */
static int
recv_listener(int sock)
{
	char ctl[CMSG_SPACE(sizeof(int))], byte;
	struct iovec iov = { &byte, 1 };
	struct msghdr mh;
	struct cmsghdr *c;
	int fd = -1;

	memset(&mh, 0, sizeof mh);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctl;
	mh.msg_controllen = sizeof ctl;
	if (recvmsg(sock, &mh, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&mh);
	if (c != NULL && c->cmsg_level == SOL_SOCKET &&
	    c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(c), sizeof fd);
	return fd;
}

/*
 * Fork the supervisor before Landlock, so that it is outside the code's
 * Landlock domain (and, with ABI >= 6, out of reach of its signals) and
 * outside its seccomp filter; it waits for the listener.
 */
static int
start_supervisor(char *detail, size_t n)
{
	int sv[2], listener;
	struct jail_child_spec spec = { .fds = &sv[1], .nfds = 1 };
	const char *failed;
	pid_t pid;

	shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED) {
		shared = NULL;
		snprintf(detail, n, "shared page");
		return -1;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1) {
		snprintf(detail, n, "supervisor socket");
		return -1;
	}
	/* nothing but its end of the socket (at 0), then the listener */
	pid = jail_fork(&spec, &failed);
	if (pid == -1) {
		snprintf(detail, n, "fork the supervisor");
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		if (failed != NULL)
			_exit(0);
		listener = recv_listener(0);
		close(0);
		if (listener < 0)
			_exit(0);	/* PID 1 refused at seccomp */
		supervise(listener);
	}
	close(sv[1]);
	to_supervisor = sv[0];
	return 0;
}

int
jailkind_landlock(char *detail, size_t n)
{
	static const struct jail_ll_rule rules[] = {
		{ "/usr", JAIL_LL_READ },
		{ WORLD_WORKSPACE, JAIL_LL_WORK },
		{ WORLD_HOME, JAIL_LL_WORK },
		{ "/tmp", JAIL_LL_WORK },
		{ "/dev/null", JAIL_LL_FILE_RW },
		{ "/dev/zero", JAIL_LL_FILE_RW },
		{ "/dev/full", JAIL_LL_FILE_RW },
		{ "/dev/random", JAIL_LL_FILE_RW },
		{ "/dev/urandom", JAIL_LL_FILE_RW },
	};
	const char *failed = NULL;
	int abi;

	if (start_supervisor(detail, n) == -1)
		return -1;
	if (jail_landlock_enforce_rules(rules, sizeof rules / sizeof rules[0],
	    &abi, &failed) == -1) {
		snprintf(detail, n, "%s", failed ? failed : "ruleset");
		return -1;
	}
	return 0;
}

/* The errno a refused call gets. */
static int
answer_for(int nr)
{
	static int sock = -2, pair = -2;

	if (sock == -2) {
		sock = seccomp_syscall_resolve_name("socket");
		pair = seccomp_syscall_resolve_name("socketpair");
	}
	return nr == sock || nr == pair ? EACCES : EPERM;
}

/*
 * Answer every notification until no process has the filter any more.
 * A receive that finds no notification says ENOENT at once -- when the
 * caller died meanwhile, and for as long as the world is dying (its
 * processes gone, the supervisor not yet killed): looping on it burned
 * 1,500 calls a world, 6% of a back-to-back burst's CPU.  So it waits in
 * poll(), which says POLLHUP once the filter has no process left: no
 * call can come then, and it ends.
 */
static void
supervise(int listener)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	struct pollfd p = { listener, POLLIN, 0 };

	(void)answer_for(0);	/* resolve the names once, now */
	for (;;) {
		unsigned i;
		int err;

		if (poll(&p, 1, -1) == -1) {
			if (errno == EINTR)
				continue;
			_exit(0);
		}
		if (!(p.revents & POLLIN))
			_exit(0);	/* POLLHUP: the world is gone */
		memset(&req, 0, sizeof req);
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) == -1) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			_exit(0);
		}
		err = answer_for(req.data.nr);
		/* written down before the call returns in the world */
		i = atomic_fetch_add(&shared->n, 1);
		if (i < JAILKIND_MAX_REFUSALS) {
			shared->v[i].nr = req.data.nr;
			shared->v[i].err = err;
		} else
			atomic_fetch_add(&shared->dropped, 1);
		memset(&resp, 0, sizeof resp);
		resp.id = req.id;
		resp.error = -err;
		/* ENOENT: the caller died meanwhile; nothing to answer */
		(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
}

int
jailkind_seccomp(char *detail, size_t n)
{
	char ctl[CMSG_SPACE(sizeof(int))], byte = 'L';
	struct iovec iov = { &byte, 1 };
	struct msghdr mh;
	struct cmsghdr *c;
	struct sock_fprog fprog;
	int listener;
	ssize_t sent;

	if (prog.insns == NULL || prog.len == 0 || to_supervisor < 0) {
		errno = EINVAL;
		return -1;
	}
	fprog.len = prog.len;
	fprog.filter = prog.insns;
	/* no_new_privs is already set (an earlier step) */
	listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER, &fprog);
	if (listener < 0) {
		snprintf(detail, n, "load with a listener");
		return -1;
	}
	memset(&mh, 0, sizeof mh);
	memset(ctl, 0, sizeof ctl);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctl;
	mh.msg_controllen = sizeof ctl;
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &listener, sizeof listener);
	sent = sendmsg(to_supervisor, &mh, MSG_NOSIGNAL);
	/* PID 1 keeps neither: only the supervisor answers */
	close(listener);
	close(to_supervisor);
	to_supervisor = -1;
	if (sent != 1) {
		snprintf(detail, n, "hand the listener to the supervisor");
		return -1;
	}
	return 0;
}

size_t
jailkind_take(struct jailkind_refusal *out, size_t max, unsigned *dropped)
{
	unsigned n, i;

	*dropped = 0;
	if (shared == NULL)
		return 0;
	n = atomic_exchange(&shared->n, 0);
	*dropped = atomic_exchange(&shared->dropped, 0);
	if (n > JAILKIND_MAX_REFUSALS)	/* (the supervisor counted those) */
		n = JAILKIND_MAX_REFUSALS;
	for (i = 0; i < n && i < max; i++)
		out[i] = shared->v[i];
	return i;
}
