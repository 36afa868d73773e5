/*
 * progress.c -- elapsed seconds in a path's strip while it runs.
 *
 * An input runs on the paths one after another inside session_run(),
 * which returns when all have finished; a world or the jail can take
 * seconds, and the screen stood still.  The session tells us (its
 * progress hook, on the main thread) as each path starts and ends; the
 * first start of an input starts a ticker thread, which every quarter
 * second writes "running Ns" at the right end of the running path's
 * strip row (and "done in Ns" on one that has finished while the others
 * run), once a path has taken a second.  The results replace it all at
 * the next full redraw.
 *
 * Curses is not thread-safe, so it is used by one thread at a time: the
 * main thread draws nothing while an input runs (it is inside
 * session_run), and every way back to curses -- ui_redraw(),
 * input_redisplay(), the key reader -- first calls progress_end(), which
 * stops and joins the ticker.  The ticker blocks every signal, so that a
 * signal the session waits for (a child's) still reaches the main
 * thread, and no signal handler draws.
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/sbuf.h"
#include "session/session.h"
#include "base/textesc.h"
#include "uipriv.h"

/* Nothing is shown for a path that finishes within this time. */
#define SHOW_AFTER_MS 1000
#define TICK_MS 250

/* Live output kept per path while an input runs: its last bytes. */
#define LIVE_MAX 8192

static struct {
	pthread_mutex_t	 lock;
	char		 live[PATH__COUNT][LIVE_MAX];
	size_t		 nlive[PATH__COUNT];
	pthread_cond_t	 wake;
	pthread_t	 thread;
	bool		 running;	/* the ticker exists */
	bool		 stop;
	struct ui	*u;
	bool		 started[PATH__COUNT], done[PATH__COUNT];
	struct timespec	 start[PATH__COUNT], end[PATH__COUNT];
} P = { .lock = PTHREAD_MUTEX_INITIALIZER };

static long
ms_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000 +
	    (b->tv_nsec - a->tv_nsec) / 1000000;
}

/* The last line the path's code wrote so far, escaped, or "". */
static void
last_line(enum path_id p, struct sbuf *b)
{
	const char *s = P.live[p], *end = s + P.nlive[p], *q;

	while (end > s && end[-1] == '\n')
		end--;
	for (q = end; q > s && q[-1] != '\n'; q--)
		;
	textesc_add(b, q, (size_t)(end - q), 0);
}

/*
 * The presenter has no columns: one row, where the message goes, says
 * which paths still run and for how long, and the last line each one's
 * code wrote ("running  unsafe 3s: tick 5 | jail 3s: tick 5").
 */
static void
draw_presenter(void)
{
	struct ui *u = P.u;
	struct timespec now;
	struct sbuf b = SBUF_INIT;
	struct rect row = { LINES - 2 - u->input_h, 0, 1, COLS };
	int p, cy, cx;
	bool any = false;

	clock_gettime(CLOCK_MONOTONIC, &now);
	sbuf_adds(&b, " running ");
	for (p = 0; p < PATH__COUNT; p++) {
		long ms;
		if (!P.started[p])
			continue;
		ms = ms_between(&P.start[p], P.done[p] ? &P.end[p] : &now);
		if (ms < SHOW_AFTER_MS && P.nlive[p] == 0)
			continue;
		sbuf_addf(&b, "%s %s %lds", any ? " |" : "",
		    record_path_name((enum path_id)p), ms / 1000);
		if (P.done[p])
			sbuf_adds(&b, " (done)");
		else if (P.nlive[p] > 0) {
			sbuf_adds(&b, ": ");
			last_line((enum path_id)p, &b);
		}
		any = true;
	}
	if (any && row.y > 0) {
		getyx(stdscr, cy, cx);
		draw_fill(row, 0, draw_attr(u, UC_HL));
		draw_textn(row, 0, 0, draw_attr(u, UC_HL), sbuf_cstr(&b),
		    b.len);
		move(cy, cx);
		refresh();
	}
	sbuf_free(&b);
}

/* Each started path's time at the end of its strip row (P.lock held). */
static void
draw_times(void)
{
	struct ui *u = P.u;
	struct timespec now;
	int p, cy, cx;
	bool drawn = false;

	if (play_view_shown(u)) {
		draw_presenter();
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	getyx(stdscr, cy, cx);
	for (p = 0; p < PATH__COUNT; p++) {
		struct rect r = u->col[p], at;
		char buf[32];
		long ms;
		int n;

		if (!P.started[p] || !(u->col_shown & PATH_BIT(p)) ||
		    r.h < 2)
			continue;
		ms = ms_between(&P.start[p], P.done[p] ? &P.end[p] : &now);
		if (ms < SHOW_AFTER_MS)
			continue;
		n = snprintf(buf, sizeof buf, P.done[p] ? " done in %lds " :
		    " running %lds ", ms / 1000);
		if (n <= 0 || n > r.w)
			continue;
		at = (struct rect){ r.y + 1, r.x + r.w - n, 1, n };
		draw_text(at, 0, 0, draw_attr(u, UC_HL), buf);
		drawn = true;
	}
	if (drawn) {
		move(cy, cx);
		refresh();
	}
}

static void *
ticker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&P.lock);
	while (!P.stop) {
		struct timespec t;
		draw_times();
		clock_gettime(CLOCK_MONOTONIC, &t);
		t.tv_nsec += TICK_MS * 1000000L;
		if (t.tv_nsec >= 1000000000L) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&P.wake, &P.lock, &t);
	}
	pthread_mutex_unlock(&P.lock);
	return NULL;
}

static void
on_progress(void *ctx, enum path_id p, bool done)
{
	sigset_t all, old;

	(void)ctx;
	pthread_mutex_lock(&P.lock);
	if (!done) {
		/* a path starting again: the next input (an agent's
		 * lines, a scenario's steps) */
		if (P.started[p]) {
			memset(P.started, 0, sizeof P.started);
			memset(P.done, 0, sizeof P.done);
			memset(P.nlive, 0, sizeof P.nlive);
		}
		P.nlive[p] = 0;
		P.started[p] = true;
		P.done[p] = false;
		clock_gettime(CLOCK_MONOTONIC, &P.start[p]);
		if (!P.running) {
			P.stop = false;
			sigfillset(&all);
			pthread_sigmask(SIG_SETMASK, &all, &old);
			P.running = pthread_create(&P.thread, NULL, ticker,
			    NULL) == 0;
			pthread_sigmask(SIG_SETMASK, &old, NULL);
		}
	} else {
		P.done[p] = true;
		clock_gettime(CLOCK_MONOTONIC, &P.end[p]);
	}
	pthread_cond_signal(&P.wake);
	pthread_mutex_unlock(&P.lock);
}

/*
 * What a path's code writes, while its input runs: the last lines that
 * fit, at the bottom of its transcript's rows, under a dim "output so
 * far" row, as a terminal scrolls; the full redraw after the input puts
 * the record's rows there.  Called on the main thread inside
 * session_run(), while the ticker may draw: both under P.lock.
 */
static void
draw_live(enum path_id p)
{
	struct ui *u = P.u;
	struct rect t = u->trans[p];
	const char *s = P.live[p], *end = s + P.nlive[p], *q;
	int rows = t.h - 1, k, cy, cx, lines, at;
	size_t n = P.nlive[p];

	if (rows < 1 || t.w < 8 || !(u->col_shown & PATH_BIT(p)))
		return;
	if (n > 0 && s[n - 1] == '\n')
		end--;			/* (the last line's newline) */
	/* the start of the last rows lines */
	for (q = end, k = 0; q > s; q--)
		if (q[-1] == '\n' && ++k == rows)
			break;
	for (lines = 1, at = 0; s + at < end; at++)	/* (those shown) */
		lines += q <= s + at && s[at] == '\n';
	if (lines > rows)
		lines = rows;
	/* under the transcript's rows, or as many of them as it must
	 * cover at the bottom */
	at = u->trans_used[p] < t.h - lines - 1 ? u->trans_used[p] :
	    t.h - lines - 1;
	getyx(stdscr, cy, cx);
	draw_fill(t, at, A_NORMAL);
	draw_text(t, at, 0, draw_attr(u, UC_DIM), "  ... output so far");
	for (k = 0; k < lines; k++) {
		struct sbuf b = SBUF_INIT;
		const char *nl = q < end ? memchr(q, '\n', (size_t)(end - q)) :
		    NULL;
		size_t len = nl != NULL ? (size_t)(nl - q) : q < end ?
		    (size_t)(end - q) : 0;

		sbuf_adds(&b, "  ");
		textesc_add(&b, q, len, 0);
		draw_fill(t, at + 1 + k, A_NORMAL);
		draw_textn(t, at + 1 + k, 0, A_NORMAL, sbuf_cstr(&b), b.len);
		sbuf_free(&b);
		q += len + (nl != NULL);
	}
	move(cy, cx);
	refresh();
}

static void
on_output(void *ctx, enum path_id p, const char *stream, const char *text,
    size_t len)
{
	char *buf = P.live[p];

	(void)ctx;
	(void)stream;	/* (a terminal shows both streams as one) */
	pthread_mutex_lock(&P.lock);
	if (len > LIVE_MAX / 2) {	/* only its end can show */
		text += len - LIVE_MAX / 2;
		len = LIVE_MAX / 2;
	}
	if (P.nlive[p] + len > LIVE_MAX) {	/* the oldest half goes */
		size_t drop = P.nlive[p] - LIVE_MAX / 2;
		memmove(buf, buf + drop, P.nlive[p] - drop);
		P.nlive[p] -= drop;
	}
	memcpy(buf + P.nlive[p], text, len);
	P.nlive[p] += len;
	if (play_view_shown(P.u))
		draw_presenter();
	else
		draw_live(p);
	pthread_mutex_unlock(&P.lock);
}

void
progress_init(struct ui *u)
{
	pthread_condattr_t ca;

	P.u = u;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&P.wake, &ca);
	pthread_condattr_destroy(&ca);
	session_set_progress(u->s, on_progress, u);
	session_set_output(u->s, on_output, u);
}

void
progress_end(void)
{
	pthread_mutex_lock(&P.lock);
	if (!P.running) {
		pthread_mutex_unlock(&P.lock);
		return;
	}
	P.stop = true;
	pthread_cond_signal(&P.wake);
	pthread_mutex_unlock(&P.lock);
	pthread_join(P.thread, NULL);
	pthread_mutex_lock(&P.lock);
	P.running = false;
	memset(P.started, 0, sizeof P.started);
	memset(P.done, 0, sizeof P.done);
	pthread_mutex_unlock(&P.lock);
}

void
progress_fini(struct ui *u)
{
	progress_end();
	session_set_progress(u->s, NULL, NULL);
	session_set_output(u->s, NULL, NULL);
	pthread_cond_destroy(&P.wake);
}
