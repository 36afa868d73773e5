/*
 * forks.c -- copies of the interpreter the code forked, ended with the
 * input that made them.
 *
 * At Python's prompt, os.fork() makes a copy of the interpreter that
 * runs the rest of the input and then has nowhere to go: it cannot be
 * reached from the prompt, and in a world it would hold a place of the
 * world's process limit (and, exited and never waited for, a zombie's
 * place) for the rest of the session.  After a fork bomb the next input
 * then could not start a program at all, and said so as if it had.  So
 * a copy that has not become a program ends when its input ends; a
 * program the input started (os.system, subprocess, a fork that called
 * exec) keeps running, as in a real session, within the world's limits.
 *
 * How a copy is told from a program, without /proc (the jail's Landlock
 * hides it): the interpreter holds a handler for ENDING_SIGNAL that
 * ignores it in the interpreter and, in any other process, writes the
 * pid to the "ended" pipe and exits; a fork keeps the handler, so a copy
 * has it from its first instruction, and exec resets it to the signal's
 * default, which is to ignore it: a program never hears it, nor do the
 * world's PID 1 and helpers, which never had it.  Every fork of the
 * interpreter (and of its copies) also runs forks_child()
 * (pthread_atfork), which writes its pid to the "born" pipe.  At the end
 * of an input that forked, forks_end() sends the signal to every process
 * of the world (kill -1) in rounds until none is born or ends for a
 * while, reaps the interpreter's own children that ended (a zombie
 * holds a place of the limit too; one that ends later is reaped at a
 * later input's end) and says how many ended.  The pipes are
 * close-on-exec and non-blocking: a program does not inherit them, and
 * a full pipe loses a pid, never blocks a fork.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "world_int.h"

#define ENDING_SIGNAL	SIGURG	/* ignored by default: exec forgets it */
#define MAX_BORN	1024	/* pids kept per input; more are ended by
				   the world's limits, not told */
#define QUIET_MS	150	/* no pid ended for this long: done */
#define MOST_MS		1000
#define EXEC_GRACE_MS	250	/* for a fork to reach its exec */

static int born[2] = { -1, -1 }, ended[2] = { -1, -1 };
static pid_t interp;		/* the interpreter's own pid */
static pid_t waiting[MAX_BORN];	/* born, not reaped yet */
/* Shared with every copy (MAP_SHARED): set while the input's copies are
 * being ended, so that a copy that forks then -- a freed place of the
 * process limit lets a fork bomb go on -- makes one that ends at birth,
 * and the bomb runs down instead of refilling. */
static volatile int *over;
static bool forked;		/* the interpreter forked this input */

static void
forks_parent(void)
{
	forked = true;
}
static size_t nwaiting;

static void
on_ending(int sig)
{
	pid_t self = getpid();

	(void)sig;
	if (self == interp)
		return;		/* (the interpreter's own: its copies') */
	/* (a copy not told as ended is not counted: its status says so) */
	_exit(write(ended[1], &self, sizeof self) == (ssize_t)sizeof self ?
	    0 : 1);
}

static void
forks_child(void)
{
	sigset_t set;
	pid_t self = getpid();

	if (born[1] < 0)
		return;
	if (over != NULL && *over) {
		/* its input has ended before it ran (a busy machine runs a
		 * child late), or a copy forked it since: it ends now, told
		 * as ended, so that it is counted and reaped */
		_exit(write(ended[1], &self, sizeof self) ==
		    (ssize_t)sizeof self ? 0 : 1);
	}
	/* (the handler came with the fork; the mask too, and a copy must
	 * hear the signal) */
	sigemptyset(&set);
	sigaddset(&set, ENDING_SIGNAL);
	(void)pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	/* a copy the interpreter was not told of could outlive its input:
	 * it does not run */
	if (write(born[1], &self, sizeof self) != (ssize_t)sizeof self)
		_exit(1);
}

int
forks_watch(void)
{
	struct sigaction sa;
	void *m = mmap(NULL, sizeof *over, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return -1;
	over = m;
	interp = getpid();
	if (pipe2(born, O_CLOEXEC | O_NONBLOCK) == -1 ||
	    pipe2(ended, O_CLOEXEC | O_NONBLOCK) == -1)
		return -1;
	/* The interpreter holds the handler itself (it ignores the signal
	 * there), so that a copy has it from the moment it is forked, even
	 * one the machine has not run yet when its input ends. */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_ending;
	sigemptyset(&sa.sa_mask);
	if (sigaction(ENDING_SIGNAL, &sa, NULL) == -1)
		return -1;
	return pthread_atfork(NULL, forks_parent, forks_child) == 0 ? 0 :
	    -1;
}

/* Up to max pids from fd (non-blocking) into v; how many. */
static size_t
read_pids(int fd, pid_t *v, size_t max)
{
	size_t n = 0;

	while (n < max) {
		ssize_t r = read(fd, &v[n], sizeof *v);
		if (r == -1 && errno == EINTR)
			continue;
		if (r != (ssize_t)sizeof *v)
			break;
		if (v[n] > 1 && v[n] != interp)
			n++;
	}
	return n;
}

/* Reap what of waiting has ended; keep what is alive (a program, or a
 * copy not ended yet); drop what is not the interpreter's child. */
static void
reap_waiting(void)
{
	size_t i;

	for (i = 0; i < nwaiting;)
		if (waitpid(waiting[i], NULL, WNOHANG) == 0)
			i++;
		else
			waiting[i] = waiting[--nwaiting];
}

unsigned
forks_end(void)
{
	static pid_t pids[MAX_BORN], gone[MAX_BORN];
	size_t n = 0, k = 0, i;
	double start, last;

	if (born[0] < 0 || getpid() != interp)
		return 0;
	reap_waiting();		/* (what ended since) */
	/* A fork about to exec a program (pid == 0 and os.execv(...)), and
	 * one a busy machine has not run yet, gets a moment to do so before
	 * anything is told; from then on a copy born ends at birth. */
	if (forked)
		(void)poll(NULL, 0, EXEC_GRACE_MS);
	*over = 1;	/* (until forks_begin: the next input's) */
	/* rounds until no copy is born or ends for a while: a copy still
	 * forking when it is told makes more */
	start = last = clock_ms();
	for (;;) {
		struct pollfd p[2] = { { born[0], POLLIN, 0 },
		    { ended[0], POLLIN, 0 } };
		size_t got = read_pids(born[0], pids + n, MAX_BORN - n);

		/* Every process of the world the interpreter may signal,
		 * every round: a copy not run yet has not told its pid, and
		 * one told while it was being born may not have heard.
		 * Programs, the world's helpers and PID 1 ignore the signal
		 * (exec set it back to its default; they never had ours). */
		n += got;
		if (n == 0 && !forked)
			return 0;	/* (nothing forked this input) */
		(void)kill(-1, ENDING_SIGNAL);
		i = read_pids(ended[0], gone + k, MAX_BORN - k);
		k += i;
		if (got > 0 || i > 0)
			last = clock_ms();
		if ((n > 0 && k >= n) || clock_ms() - last >= QUIET_MS ||
		    clock_ms() - start >= MOST_MS || n == MAX_BORN)
			break;
		(void)poll(p, 2, QUIET_MS);
	}
	/* the interpreter's own children that ended, now or since an
	 * earlier input (a copy that ran to the end of the input exits by
	 * itself, maybe later): no zombie keeps a place of the limit.
	 * (The others' parents were copies too, and PID 1 reaps what they
	 * leave.) */
	for (i = 0; i < n && nwaiting < MAX_BORN; i++)
		waiting[nwaiting++] = pids[i];
	k += read_pids(ended[0], gone + k, MAX_BORN - k);
	for (i = 0; i < k && nwaiting < MAX_BORN; i++)
		waiting[nwaiting++] = gone[i];	/* (one not told yet) */
	reap_waiting();
	return (unsigned)k;
}

void
forks_begin(void)
{
	if (over != NULL && getpid() == interp)
		*over = 0;
	forked = false;
}
