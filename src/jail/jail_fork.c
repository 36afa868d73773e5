/*
 * jail_fork.c -- the one way the jail and the worlds make a child.
 *
 * Every child that crosses into a jail or a world, or stands beside one
 * (a warden, a PID 1, a supervisor, runsc and its kill, the janitor, the
 * zygote, the fake internet's sink and dnsmasq), and every child the
 * program runs (the agent, the doctor's probes), is forked here and
 * given, before its own code runs and in this order, what its spec asks
 * for: its descriptors (exactly the ones listed, at 0, 1, 2...; every
 * other one closed), a step of the caller's while it still has the
 * parent's ids (a cgroup to enter as root), its ids, its death signal
 * (after the ids: a change of credentials clears it), its signals'
 * dispositions the defaults, its signals unblocked, and a session of its
 * own.  Each step is checked; a child whose step failed learns which
 * (and errno) and must end without running anything else (jail_fork's
 * callers refuse then).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "jail_int.h"
#include "jail_sys.h"

/* (AddressSanitizer: jail_spawn's child runs on a stack in our frame) */
#if defined(__SANITIZE_ADDRESS__)
#define JAIL_ASAN	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define JAIL_ASAN	1
#endif
#endif
#ifdef JAIL_ASAN
#include <sanitizer/asan_interface.h>
#endif

int
jail_fds_keep(const int *fds, unsigned n, unsigned cloexec_from)
{
	int tmp[JAIL_FORK_MAX_FDS], null = -1;
	unsigned i;

	if (n > JAIL_FORK_MAX_FDS) {
		errno = EINVAL;
		return -1;
	}
	/* A descriptor to keep that stands in the range about to be
	 * filled is moved above it first, so that none is overwritten
	 * before it is in place (the others are used where they are). */
	for (i = 0; i < n; i++) {
		tmp[i] = fds[i];
		if (tmp[i] < 0) {
			if (null < 0 && (null = open("/dev/null",
			    O_RDWR | O_CLOEXEC)) < 0)
				return -1;
			tmp[i] = null;
		}
		if (tmp[i] < (int)n &&
		    (tmp[i] = fcntl(tmp[i], F_DUPFD_CLOEXEC, (int)n)) < 0)
			return -1;
	}
	for (i = 0; i < n; i++)
		if (dup3(tmp[i], (int)i, i >= cloexec_from ? O_CLOEXEC : 0)
		    == -1)
			return -1;
	return (int)syscall(__NR_close_range, n, ~0U, 0U) == -1 ? -1 : 0;
}

/* The child's steps; NULL, or the one that failed (errno set). */
static const char *
child_steps(const struct jail_child_spec *s, pid_t parent)
{
	sigset_t none;
	int sig;

	if (s->nfds > 0 && jail_fds_keep(s->fds, s->nfds, s->nfds) == -1)
		return "descriptors";
	if (s->prepare != NULL && s->prepare(s->ctx) == -1)
		return "prepare";
	if (s->flags & JAIL_FORK_IDS) {
		if (setgroups(0, NULL) == -1 ||
		    setresgid(s->gid, s->gid, s->gid) == -1 ||
		    setresuid(s->uid, s->uid, s->uid) == -1)
			return "ids";
		if (geteuid() != s->uid || getegid() != s->gid) {
			errno = EPERM;
			return "ids";
		}
	}
	if (s->flags & (JAIL_FORK_DEATHSIG | JAIL_FORK_PID1)) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1)
			return "pdeathsig";
		/* A PID 1's parent is outside its pid namespace: getppid()
		 * says 0 there, and the parent's pipes tell its death. */
		if ((s->flags & JAIL_FORK_PID1) && getpid() != 1) {
			errno = EPERM;
			return "not PID 1";
		}
		if (!(s->flags & JAIL_FORK_PID1) && getppid() != parent) {
			errno = ESRCH;	/* it died before the prctl */
			return "pdeathsig";
		}
	}
	if (s->flags & JAIL_FORK_SIGDFL) {
		/* (glibc keeps two real-time signals for itself and says
		 * EINVAL for them) */
		for (sig = 1; sig < NSIG; sig++)
			if (sig != SIGKILL && sig != SIGSTOP &&
			    signal(sig, SIG_DFL) == SIG_ERR && errno != EINVAL)
				return "signals";
	}
	if (s->flags & JAIL_FORK_SIGNALS) {
		sigemptyset(&none);
		if (sigprocmask(SIG_SETMASK, &none, NULL) == -1)
			return "signals";
	}
	if ((s->flags & JAIL_FORK_SESSION) && setsid() == -1)
		return "setsid";
	return NULL;
}

pid_t
jail_fork(const struct jail_child_spec *spec, const char **failed)
{
	pid_t parent = getpid(), pid;

	*failed = NULL;
	if (spec != NULL && (spec->flags & JAIL_FORK_FLUSH))
		fflush(NULL);	/* (nothing buffered is written twice) */
	pid = fork();
	if (pid == 0 && spec != NULL)
		*failed = child_steps(spec, parent);
	return pid;
}

/* jail_spawn's child: on the caller's stack frame below its own, every
 * signal blocked (jail_spawn), sharing the caller's memory. */
struct spawn {
	const struct jail_child_spec	*spec;
	pid_t				 parent;
	sigset_t			 mask;	/* the caller's */
	void				(*fn)(void *, const char *);
	void				*arg;
};

static int
spawn_child(void *p)
{
	const struct spawn *s = p;
	const char *failed = child_steps(s->spec, s->parent);

	/* (the dispositions are the defaults now: SIGDFL) */
	if (failed == NULL && !(s->spec->flags & JAIL_FORK_SIGNALS) &&
	    sigprocmask(SIG_SETMASK, &s->mask, NULL) == -1)
		failed = "signals";
	s->fn(s->arg, failed);
	_exit(127);
}

/* The child's stack, in the caller's frame (the caller waits until the
 * child has exec'd or ended): enough for its steps and an exec's
 * arguments and messages. */
#define SPAWN_STACK	(64 * 1024)

pid_t
jail_spawn(const struct jail_child_spec *spec,
    void (*fn)(void *arg, const char *failed), void *arg)
{
	_Alignas(16) char stack[SPAWN_STACK];
	struct spawn s = { spec, getpid(), { { 0 } }, fn, arg };
	sigset_t all;
	pid_t pid;
	int saved;

	if (spec == NULL || !(spec->flags & JAIL_FORK_SIGDFL)) {
		errno = EINVAL;
		return -1;
	}
	if (spec->flags & JAIL_FORK_FLUSH)
		fflush(NULL);
	sigfillset(&all);
	if (sigprocmask(SIG_SETMASK, &all, &s.mask) == -1)
		return -1;
	pid = clone(spawn_child, stack + sizeof stack, CLONE_VM | CLONE_VFORK |
	    SIGCHLD, &s);
	saved = errno;
#ifdef JAIL_ASAN
	/* (the child's frames poisoned their redzones in stack's shadow,
	 * which is this frame's and, once it returns, its callees': the
	 * child has exec'd or ended, so none of it is a redzone now) */
	__asan_unpoison_memory_region(stack, sizeof stack);
#endif
	(void)sigprocmask(SIG_SETMASK, &s.mask, NULL);
	errno = saved;
	return pid;
}
