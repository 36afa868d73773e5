/*
 * output.c -- what the interpreter and its programs write, in the order
 * they wrote it, each piece with its stream.
 *
 * At Python's prompt stdout and stderr are the terminal: print's line,
 * a program's listing and a traceback appear in the order written.  A
 * world has no terminal, so fds 1 and 2 of the interpreter (and of every
 * program it starts, which inherit them) are two pipes, and a reader
 * thread of the interpreter takes from both as data arrives and appends
 * it to the output file (capfd, the world's O_TMPFILE that the reply
 * sends and PID 1 sends when the interpreter dies) as frames:
 *
 *     one byte 'o' (stdout) or 'e' (stderr), a u32 length, the bytes
 *
 * and, while an input runs, sends each piece to the session at once as a
 * live frame (W), so a screen can show it as it comes; the file stays
 * what the record is made from.  The session gets {stream, text} chunks
 * in the order of arrival
 * (cpython.c parses them, and trusts nothing: the code can write to the
 * file too).  sys.stdout is line-buffered, as on a terminal, so that a
 * print before os.system('ls') comes before the listing.
 *
 * At the end of an input, output_sync() waits until both pipes are empty
 * and the thread has written what it read (a program that keeps writing
 * in the background is not waited for past OUTPUT_SYNC_MS); what comes
 * after belongs to the next input's output.  At most OUTPUT_CAP bytes of
 * text an input go to the file; the rest is counted (output_cut()) and
 * the reply says so.  The thread touches no Python object, and a copy of
 * the interpreter the code forks does not have it (fork keeps only the
 * calling thread): its writes still reach the pipes, which the
 * interpreter's thread reads.
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
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "jail/jail_int.h"
#include "wire.h"
#include "base/clock.h"
#include "world_int.h"

#define OUTPUT_CAP	WW_MAX_OUTPUT	/* text bytes an input keeps */
#define OUTPUT_SYNC_MS	200

static int rd[2] = { -1, -1 };	/* the read ends: stdout, stderr */
static int file = -1;
static int sock = -1;		/* the session's: live frames */
static bool streaming;		/* an input runs: send live frames too */
/* Every frame the interpreter sends goes through output_send(), one at
 * a time: the thread's live frames and the main thread's reply. */
static pthread_mutex_t send_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* The thread wrote what it read (output_sync waits for it). */
static pthread_cond_t wrote = PTHREAD_COND_INITIALIZER;
static bool busy;		/* the thread holds bytes not yet written */
static uint64_t written, kept, cut;	/* bytes this input: kept (heads
				   included), and text cut */

static void
write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* One chunk into the file, within the cap (lock held). */
static void
keep(char stream, const char *p, size_t n)
{
	char head[5];
	uint32_t len;

	/* (the cap counts the frames' heads too: the file is what the
	 * reply sends, and WW_MAX_OUTPUT is its most) */
	if (written + sizeof head + n > OUTPUT_CAP) {
		size_t room = written + sizeof head < OUTPUT_CAP ?
		    (size_t)(OUTPUT_CAP - written - sizeof head) : 0;
		cut += n - room;
		n = room;
	}
	if (n == 0)
		return;
	len = (uint32_t)n;
	head[0] = stream;
	memcpy(head + 1, &len, 4);
	write_all(file, head, sizeof head);
	write_all(file, p, n);
	written += sizeof head + n;
	kept += n;
	if (streaming && sock >= 0)
		(void)output_send(sock, WW_LIVE, &stream, 1, p, n);
}

int
output_send(int fd, enum ww_type type, const void *a, size_t alen,
    const void *b, size_t blen)
{
	int rc;

	pthread_mutex_lock(&send_lock);
	rc = jail_wire_send(fd, type, a, alen, b, blen);
	pthread_mutex_unlock(&send_lock);
	return rc;
}

static void *
reader(void *arg)
{
	static char buf[WW_MAX_LIVE];	/* (a read is one live frame) */
	struct pollfd p[2];
	int open = 2, i;

	(void)arg;
	p[0] = (struct pollfd){ rd[0], POLLIN, 0 };
	p[1] = (struct pollfd){ rd[1], POLLIN, 0 };
	while (open > 0) {
		if (poll(p, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			return NULL;
		}
		/* stdout first when both have data: within one poll the
		 * order between them is not known, and a program's
		 * listing usually precedes its complaint */
		for (i = 0; i < 2; i++) {
			ssize_t n;

			if (p[i].fd < 0 || p[i].revents == 0)
				continue;
			pthread_mutex_lock(&lock);
			busy = true;
			n = read(p[i].fd, buf, sizeof buf);
			if (n > 0)
				keep(i == 0 ? 'o' : 'e', buf, (size_t)n);
			busy = false;
			pthread_cond_broadcast(&wrote);
			pthread_mutex_unlock(&lock);
			if (n == 0 || (n < 0 && errno != EINTR &&
			    errno != EAGAIN)) {
				p[i].fd = -1;	/* every writer closed it */
				open--;
			}
		}
	}
	return NULL;
}

int
output_start(int capfd, int session)
{
	int out[2], err[2];
	pthread_attr_t attr;
	pthread_t t;
	sigset_t all, old;
	int rc;

	file = capfd;
	sock = session;
	if (pipe2(out, O_CLOEXEC) == -1)
		return -1;
	if (pipe2(err, O_CLOEXEC) == -1) {
		close(out[0]);
		close(out[1]);
		return -1;
	}
	/* (dup2 clears close-on-exec: programs inherit 1 and 2) */
	if (dup2(out[1], 1) == -1 || dup2(err[1], 2) == -1)
		return -1;
	close(out[1]);
	close(err[1]);
	rd[0] = out[0];
	rd[1] = err[0];
	(void)fcntl(rd[0], F_SETFL, O_NONBLOCK);
	(void)fcntl(rd[1], F_SETFL, O_NONBLOCK);
	/* every signal stays the interpreter's main thread's (Ctrl-C's
	 * KeyboardInterrupt, forks.c's) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	/* a small stack: its address space counts against the world's
	 * RLIMIT_AS, and the reader needs little (its buffer is static) */
	pthread_attr_init(&attr);
	(void)pthread_attr_setstacksize(&attr, 64u << 10);
	rc = pthread_create(&t, &attr, reader, NULL);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	pthread_detach(t);
	return 0;
}

static bool
drained(void)
{
	int i, n;

	for (i = 0; i < 2; i++)
		if (rd[i] >= 0 && ioctl(rd[i], FIONREAD, &n) == 0 && n > 0)
			return false;
	return !busy;
}

void
output_sync(void)
{
	double end = clock_ms() + OUTPUT_SYNC_MS;

	if (rd[0] < 0)
		return;
	pthread_mutex_lock(&lock);
	for (;;) {
		struct timespec ts;
		bool done = drained();

		if (done || clock_ms() > end) {
			streaming = false;	/* (the reply follows) */
			break;
		}
		/* until the thread has written what it read, 1 ms at most
		 * (a pipe it has not been woken for yet): a sleep of 1 ms
		 * was most of a first input's time in a world that had
		 * been idle, its thread not yet run when first asked */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		/* (the monotonic clock: a step of the wall clock must not
		 * stretch the wait) */
		(void)pthread_cond_clockwait(&wrote, &lock, CLOCK_MONOTONIC,
		    &ts);
	}
	pthread_mutex_unlock(&lock);
}

void
output_begin(void)
{
	pthread_mutex_lock(&lock);
	/* (a file not emptied would answer with the last input's output:
	 * the world ends instead, as on a broken frame) */
	if (file >= 0 && ftruncate(file, 0) == -1)
		_exit(1);
	written = kept = cut = 0;
	streaming = true;
	pthread_mutex_unlock(&lock);
}

uint64_t
output_cut(void)
{
	uint64_t n;

	pthread_mutex_lock(&lock);
	n = cut;
	pthread_mutex_unlock(&lock);
	return n;
}

uint64_t
output_total(void)
{
	uint64_t n;

	pthread_mutex_lock(&lock);
	n = kept + cut;
	pthread_mutex_unlock(&lock);
	return n;
}
