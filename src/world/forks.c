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
 * hides it): every fork of the interpreter (and of its copies) runs
 * forks_child() (pthread_atfork), which writes its pid to the "born"
 * pipe and installs a handler for ENDING_SIGNAL that writes the pid to
 * the "ended" pipe and exits.  exec resets the handler to the signal's
 * default, which is to ignore it: a program never hears it.  At the end
 * of an input, forks_end() signals every pid born, gathers the pids that
 * ended (a short wait: a copy busy in C takes the signal at once),
 * reaps those that were the interpreter's own children (a zombie holds
 * a place of the limit too) and says how many ended.  The pipes are
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

#include "world_int.h"

#define ENDING_SIGNAL	SIGURG	/* ignored by default: exec forgets it */
#define MAX_BORN	1024	/* pids kept per input; more are ended by
				   the world's limits, not told */
#define QUIET_MS	50	/* no pid ended for this long: done */
#define MOST_MS		1000

static int born[2] = { -1, -1 }, ended[2] = { -1, -1 };
static pid_t interp;		/* the interpreter's own pid */
static pid_t waiting[MAX_BORN];	/* born, not reaped yet */
/* Shared with every copy (MAP_SHARED): set while the input's copies are
 * being ended, so that a copy that forks then -- a freed place of the
 * process limit lets a fork bomb go on -- makes one that ends at birth,
 * and the bomb runs down instead of refilling. */
static volatile int *over;
static size_t nwaiting;

static void
on_ending(int sig)
{
	pid_t self = getpid();

	(void)sig;
	(void)write(ended[1], &self, sizeof self);
	_exit(0);
}

static void
forks_child(void)
{
	struct sigaction sa;
	sigset_t set;
	pid_t self = getpid();

	if (born[1] < 0)
		return;
	if (over != NULL && *over)
		_exit(0);	/* the input has ended: born too late */
	/* the handler before the pid is told: told, it may be signalled */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_ending;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(ENDING_SIGNAL, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, ENDING_SIGNAL);
	(void)pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	(void)write(born[1], &self, sizeof self);
}

int
forks_watch(void)
{
	void *m = mmap(NULL, sizeof *over, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return -1;
	over = m;
	interp = getpid();
	if (pipe2(born, O_CLOEXEC | O_NONBLOCK) == -1 ||
	    pipe2(ended, O_CLOEXEC | O_NONBLOCK) == -1)
		return -1;
	return pthread_atfork(NULL, NULL, forks_child) == 0 ? 0 : -1;
}

static double
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
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

unsigned
forks_end(void)
{
	static pid_t pids[MAX_BORN], gone[MAX_BORN];
	size_t n = 0, k = 0, i;
	double start, last;

	if (born[0] < 0 || getpid() != interp)
		return 0;
	*over = 1;	/* (until forks_begin: the next input's) */
	for (i = 0; i < nwaiting;)	/* (what ended since) */
		if (waitpid(waiting[i], NULL, WNOHANG) != 0)
			waiting[i] = waiting[--nwaiting];
		else
			i++;
	/* rounds until no copy is born or ends for a while: a copy still
	 * forking when it is told makes more */
	start = last = now_ms();
	for (;;) {
		struct pollfd p[2] = { { born[0], POLLIN, 0 },
		    { ended[0], POLLIN, 0 } };
		size_t got = read_pids(born[0], pids + n, MAX_BORN - n);

		/* (every round tells them all again: a copy told while it
		 * was being born may not have heard) */
		n += got;
		for (i = 0; i < n; i++)
			(void)kill(pids[i], ENDING_SIGNAL);
		if (n == 0)
			return 0;	/* (nothing forked this input) */
		i = read_pids(ended[0], gone + k, MAX_BORN - k);
		k += i;
		if (got > 0 || i > 0)
			last = now_ms();
		if (k >= n || now_ms() - last >= QUIET_MS ||
		    now_ms() - start >= MOST_MS || n == MAX_BORN)
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
	for (i = 0; i < nwaiting;) {
		pid_t r = waitpid(waiting[i], NULL, WNOHANG);
		if (r == 0)
			i++;	/* alive: a program, or not ended yet */
		else
			waiting[i] = waiting[--nwaiting];
	}
	return (unsigned)k;
}

void
forks_begin(void)
{
	if (over != NULL && getpid() == interp)
		*over = 0;
}
