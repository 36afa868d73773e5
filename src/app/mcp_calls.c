/*
 * mcp_calls.c -- the MCP server's calls in parallel: one worker process
 * per path, cancellation, progress, batches.
 *
 * The session is not thread-safe, and each path's state (files, names,
 * budget, ledger, world) is its own.  So at start, before any world
 * exists, the main process forks one worker per path the server offers,
 * each with its copy of the session restricted to that path, and talks
 * to it over a socketpair, one JSON line per job and one per reply.  The
 * main process reads stdin and writes stdout, answers initialize, ping
 * and tools/list itself, and routes each tools/call (mcp_route, with the
 * same check of the arguments the worker's tools_call() makes, so the
 * two cannot disagree on the path) to its path's worker: a FIFO per
 * worker with one job in flight, so calls on one path keep their order
 * and a quick call on another path is not queued behind a slow one.  At
 * most MAX_CALLS calls wait or run at once; one more is a JSON-RPC error
 * (RPC_SERVER_BUSY) at once, so memory stays bounded whatever the client
 * sends.
 *
 * notifications/cancelled: a queued call is dropped; the call in flight
 * is interrupted as Ctrl-C interrupts it (session_interrupt(), from the
 * worker's SIGINT handler: KeyboardInterrupt in its world), and its
 * reply, when it comes, is dropped.  The signal carries the job's number
 * (sigqueue), and the worker interrupts only that job: a cancel that
 * crosses its reply never reaches the next call.  session_run() clears
 * the interrupt as it starts, so the worker raises it again as the path
 * starts (its progress hook) when the job was cancelled before.
 *
 * Progress: a call whose params._meta.progressToken is a string or a
 * number gets notifications/progress every PROGRESS_MS from its arrival
 * until its reply, progress counting the seconds.
 *
 * Batches (2025-03-26 only: mcp_batch_refused): each element is routed
 * as a message of its own; the replies are gathered and written as one
 * array once the last call of the batch has ended (nothing when none is
 * left: notifications, or every call cancelled).
 *
 * A worker that dies gives its calls an error (RPC_INTERNAL_ERROR) and
 * the next call on its path forks a new one from the main process's
 * session, which never ran anything: the path starts again from the
 * session's first state.  Workers die with the main process
 * (PR_SET_PDEATHSIG) and are ended and reaped when it returns.
 *
 * With --state (one_worker) a single worker runs every path's calls in
 * order: the state directory has one writer, and workers saving their
 * own copies of the session would overwrite each other's paths.  Such a
 * worker is not replaced when it dies (its index of the directory died
 * with it); its calls are refused until the server is started again.
 *
 * The zygote the main process started (world.h) is handed to one worker
 * (the unsafe path's, where worlds are built most); the others start
 * their own on their first world (world_zygote_forget): two processes
 * must not share its control socket.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "base/linesplit.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "jail/jail_int.h"	/* jail_write_all */
#include "mcp_int.h"
#include "record/paths.h"
#include "serve.h"
#include "session/session.h"
#include "world/world.h"

#define MAX_CALLS	16	/* waiting or running, on every path */
#define PROGRESS_MS	1000
#define CHUNK		65536
#define REAP_MS		3000	/* a worker's own end, before SIGKILL */

#define DUMP_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII)

struct batch {
	json_t		*replies;	/* gathered so far */
	size_t		 waiting;	/* calls not yet ended */
	bool		 sealed;	/* every element was routed */
};

struct call {
	struct call	*next;		/* in its worker's queue */
	json_t		*id;
	json_t		*token;		/* NULL: no progress */
	json_t		*job;
	struct batch	*batch;		/* NULL: a request of its own */
	int		 path;		/* enum path_id: where it runs */
	bool		 cancelled;	/* in flight, its reply to drop */
	double		 next_progress;	/* when, monotonic seconds */
	unsigned	 progress;	/* notifications sent */
};

struct worker {
	pid_t		 pid;		/* -1: none now */
	int		 fd;		/* the main process's end, or -1 */
	struct call	*head, *tail;	/* head is in flight when busy */
	bool		 busy;
	int		 seq;		/* the job in flight */
	struct sbuf	 in;		/* its reply, as read so far */
};

struct loop {
	struct mcp	*m;
	struct session	*s;
	FILE		*out;
	struct worker	 w[PATH__COUNT];
	size_t		 calls;		/* waiting or running */
	int		 seq;
	pid_t		 main_pid;
	bool		 failed;	/* writing out failed */
	struct linesplit lines;		/* stdin's, cut at mcp_max() */
	bool		 one_worker;	/* every path in w[0] (--state) */
	pid_t		 zygote;	/* the one given to a worker, or -1 */
};

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- writing ---- */

static void
emit(struct loop *l, json_t *msg)
{
	if (!l->failed && (json_dumpf(msg, l->out, DUMP_FLAGS) == -1 ||
	    putc('\n', l->out) == EOF || fflush(l->out) == EOF))
		l->failed = true;
	json_decref(msg);
}

/* A worker's reply line, already compact ASCII JSON, as it is. */
static void
emit_raw(struct loop *l, const char *s, size_t n)
{
	if (!l->failed && (fwrite(s, 1, n, l->out) != n ||
	    putc('\n', l->out) == EOF || fflush(l->out) == EOF))
		l->failed = true;
}

static void
batch_finish(struct loop *l, struct batch *b)
{
	if (!b->sealed || b->waiting > 0)
		return;
	if (json_array_size(b->replies) > 0)
		emit(l, b->replies);
	else
		json_decref(b->replies);
	free(b);
}

/* A reply (new; NULL: none) to a request of its own or of batch b. */
static void
reply(struct loop *l, struct batch *b, json_t *r)
{
	if (r == NULL)
		return;
	if (b != NULL)
		json_array_append_new(b->replies, r);
	else
		emit(l, r);
}

/* ---- calls ---- */

static void
call_free(struct call *c)
{
	json_decref(c->id);
	json_decref(c->token);
	json_decref(c->job);
	free(c);
}

/*
 * Call c ended: with r (new; NULL with raw: a worker's line), or with
 * nothing when it was cancelled.  It is out of its queue already.
 */
static void
call_end(struct loop *l, struct call *c, json_t *r, const char *raw,
    size_t rawlen)
{
	struct batch *b = c->batch;

	if (c->cancelled)
		json_decref(r);
	else if (r == NULL && raw != NULL && b == NULL)
		emit_raw(l, raw, rawlen);
	else {
		if (r == NULL && raw != NULL) {
			r = json_loadb(raw, rawlen, JSON_ALLOW_NUL, NULL);
			if (r == NULL)	/* never: the worker wrote it */
				r = mcp_error(c->id, RPC_INTERNAL_ERROR,
				    "Internal error: an unreadable reply");
		}
		reply(l, b, r);
	}
	l->calls--;
	call_free(c);
	if (b != NULL) {
		b->waiting--;
		batch_finish(l, b);
	}
}

static struct call *
pop(struct worker *w)
{
	struct call *c = w->head;

	w->head = c->next;
	if (w->head == NULL)
		w->tail = NULL;
	w->busy = false;
	return c;
}

/* ---- a worker ---- */

static volatile sig_atomic_t job_seq;		/* the job running, or 0 */
static volatile sig_atomic_t job_cancelled;
/* The last job the main process cancelled: it may not have been read yet
 * (a large job is many reads), and is interrupted as it starts. */
static volatile sig_atomic_t cancel_seq;

/* SIGINT from the main process, naming the job to interrupt. */
static void
on_cancel(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code != SI_QUEUE || si->si_pid != getppid() ||
	    si->si_value.sival_int == 0)
		return;
	cancel_seq = si->si_value.sival_int;
	if (si->si_value.sival_int == job_seq) {
		job_cancelled = 1;
		session_interrupt();
	}
}

/* As each path of the job starts: session_run() cleared the interrupt as
 * it began; a job cancelled before then is interrupted again. */
static void
on_path(void *ctx, enum path_id p, bool done)
{
	(void)ctx;
	(void)p;
	if (!done && job_cancelled)
		session_interrupt();
}

/* json_dump_callback()'s sink: the bytes appended to the sbuf data. */
static int
add_chunk(const char *buf, size_t size, void *data)
{
	sbuf_add(data, buf, size);
	return 0;
}

static void worker_main(struct loop *l, int p, int fd, bool keep_zygote)
    __attribute__((noreturn));

static void
worker_main(struct loop *l, int p, int fd, bool keep_zygote)
{
	struct sigaction sa;
	struct sbuf in = SBUF_INIT, out = SBUF_INIT;
	char buf[CHUNK];
	size_t scanned = 0;
	int devnull, i;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 ||
	    getppid() != l->main_pid)
		_exit(1);
	/* nothing of the client's: stdin and stdout are the main
	 * process's alone */
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull < 0 || dup2(devnull, STDIN_FILENO) == -1 ||
	    dup2(devnull, STDOUT_FILENO) == -1)
		_exit(1);
	close(devnull);
	for (i = 0; i < PATH__COUNT; i++)
		if (l->w[i].fd >= 0)
			close(l->w[i].fd);
	if (!keep_zygote)
		world_zygote_forget();
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_cancel;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) == -1)
		_exit(1);
	if (!l->one_worker)
		session_set_paths(l->s, PATH_BIT(p));
	session_set_progress(l->s, on_path, NULL);
	/* a world that takes seconds to start (a microVM) boots now, as
	 * the UI's does, not at the first call */
	session_prestart(l->s);
	for (;;) {
		char *nl;
		ssize_t k;

		/* (a job's bytes are searched once: scanned is how far) */
		while ((nl = in.len > scanned ? memchr(in.data + scanned, '\n',
		    in.len - scanned) : NULL) != NULL) {
			size_t n = (size_t)(nl - in.data);
			json_t *job = json_loadb(in.data, n, JSON_ALLOW_NUL,
			    NULL), *r;
			int seq = (int)json_integer_value(json_object_get(job,
			    "seq"));

			/* (a SIGINT for seq from here on sets job_cancelled;
			 * one that came before, cancel_seq) */
			job_cancelled = 0;
			job_seq = seq;
			if (seq != 0 && cancel_seq == seq)
				job_cancelled = 1;
			r = job ? mcp_job(l->m, job) : mcp_error(NULL,
			    RPC_INTERNAL_ERROR, "Internal error: an unreadable "
			    "job");
			job_seq = 0;
			json_decref(job);
			sbuf_truncate(&out, 0);
			if (json_dump_callback(r, add_chunk, &out,
			    DUMP_FLAGS) == -1)
				_exit(1);
			json_decref(r);
			sbuf_add(&out, "\n", 1);
			if (jail_write_all(fd, out.data, out.len) == -1)
				_exit(1);
			memmove(in.data, nl + 1, in.len - n - 1);
			sbuf_truncate(&in, in.len - n - 1);
			scanned = 0;
		}
		scanned = in.len;
		k = read(fd, buf, sizeof buf);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;		/* the main process is done */
		sbuf_add(&in, buf, (size_t)k);
	}
	session_free(l->s);
	_exit(0);
}

static bool
worker_start(struct loop *l, int p, bool keep_zygote)
{
	struct worker *w = &l->w[p];
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
		return false;
	fflush(l->out);
	fflush(stderr);
	pid = fork();
	if (pid == -1) {
		close(sv[0]);
		close(sv[1]);
		return false;
	}
	if (pid == 0) {
		close(sv[0]);
		worker_main(l, p, sv[1], keep_zygote);
	}
	close(sv[1]);
	w->fd = sv[0];
	w->pid = pid;
	w->busy = false;
	sbuf_truncate(&w->in, 0);
	return true;
}

/* End worker w's process (SIGKILL when it does not end by itself within
 * ms) and reap it; its status. */
static int
worker_reap(struct worker *w, int ms)
{
	int st = 0;
	pid_t r;

	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	if (w->pid < 0)
		return 0;
	while ((r = waitpid(w->pid, &st, WNOHANG)) == 0 && ms > 0) {
		struct timespec ts = { 0, 10 * 1000000 };
		nanosleep(&ts, NULL);
		ms -= 10;
	}
	if (r == 0) {
		kill(w->pid, SIGKILL);
		while ((r = waitpid(w->pid, &st, 0)) == -1 && errno == EINTR)
			;
	}
	w->pid = -1;
	return st;
}

/* Every call of path p's worker ends with an error saying why. */
static void
fail_calls(struct loop *l, int p, const char *why)
{
	struct worker *w = &l->w[p];

	while (w->head != NULL) {
		struct call *c = pop(w);
		call_end(l, c, mcp_error(c->id, RPC_INTERNAL_ERROR,
		    "Internal error: the %s path %s",
		    record_path_name((enum path_id)c->path), why), NULL, 0);
	}
}

/* Path p's worker is gone (its socket closed or failed). */
static void
worker_died(struct loop *l, int p)
{
	int st = worker_reap(&l->w[p], 0);
	char *why = WIFSIGNALED(st) ? xasprintf("worker was killed by "
	    "signal %d", WTERMSIG(st)) : xasprintf("worker exited with "
	    "status %d", WEXITSTATUS(st));
	char *msg = xasprintf("ended (its %s): its files and names are "
	    "lost, and %s", why, l->one_worker ? "the server must be started "
	    "again (its --state directory keeps what was saved)" : "the "
	    "next call on it starts from the session's first state");

	fail_calls(l, p, msg);
	free(msg);
	free(why);
}

/* Send path p's next job when its worker is idle (starting a worker
 * when it has none). */
static void
kick(struct loop *l, int p)
{
	struct worker *w = &l->w[p];
	struct sbuf b = SBUF_INIT;
	struct call *c = w->head;
	bool sent, again = false;

	if (w->busy || c == NULL)
		return;
retry:
	if (w->pid < 0 && l->one_worker) {
		/* its state directory's index is the worker's: a worker
		 * forked from the session's first state would write on it */
		fail_calls(l, p, "cannot run: the worker that kept the "
		    "--state directory ended; start the server again");
		return;
	}
	if (w->pid < 0 && !worker_start(l, p, false)) {
		char *why = xasprintf("cannot run: its worker could not be "
		    "started (%s)", strerror(errno));
		fail_calls(l, p, why);
		free(why);
		return;
	}
	if (++l->seq <= 0)
		l->seq = 1;
	w->seq = l->seq;
	json_object_set_new(c->job, "seq", json_integer(w->seq));
	if (json_dump_callback(c->job, add_chunk, &b, JSON_COMPACT) == -1)
		sbuf_truncate(&b, 0);
	sbuf_add(&b, "\n", 1);
	sent = b.len > 1 && jail_write_all(w->fd, b.data, b.len) == 0;
	sbuf_free(&b);
	if (!sent && !again && w->fd >= 0) {
		/* A worker that ended while idle, before the loop saw it:
		 * the job never reached it, so a new one takes it. */
		(void)worker_reap(w, 0);
		again = true;
		goto retry;
	}
	w->busy = true;
	if (!sent)
		worker_died(l, p);
}

/* ---- the main process ---- */

static void
enqueue(struct loop *l, struct mcp_msg *r, struct batch *b)
{
	int slot = l->one_worker ? 0 : r->path;
	struct worker *w = &l->w[slot];
	struct call *c;

	if (l->calls >= MAX_CALLS) {
		reply(l, b, mcp_error(r->id, RPC_SERVER_BUSY, "Server busy: "
		    "%d calls are waiting or running, the most this server "
		    "takes at once; send this one again once a reply came",
		    MAX_CALLS));
		json_decref(r->id);
		json_decref(r->token);
		json_decref(r->job);
		return;
	}
	c = xcalloc(1, sizeof *c);
	c->id = r->id;
	c->token = r->token;
	c->job = r->job;
	c->batch = b;
	c->path = r->path;
	c->next_progress = now() + PROGRESS_MS / 1000.0;
	if (b != NULL)
		b->waiting++;
	l->calls++;
	if (w->tail != NULL)
		w->tail->next = c;
	else
		w->head = c;
	w->tail = c;
	kick(l, slot);
}

/* notifications/cancelled of id: a waiting call is dropped, the running
 * one interrupted and its reply dropped; an id no call has, ignored (the
 * spec: it may have ended already). */
static void
cancel(struct loop *l, json_t *id)
{
	int p;

	for (p = 0; p < PATH__COUNT; p++) {
		struct worker *w = &l->w[p];
		struct call *prev = NULL, *c;

		for (c = w->head; c != NULL; prev = c, c = c->next) {
			if (c->cancelled || !json_equal(c->id, id))
				continue;
			c->cancelled = true;
			if (c == w->head && w->busy) {
				union sigval v = { .sival_int = w->seq };
				(void)sigqueue(w->pid, SIGINT, v);
				return;
			}
			if (prev != NULL)
				prev->next = c->next;
			else
				w->head = c->next;
			if (w->tail == c)
				w->tail = prev;
			call_end(l, c, NULL, NULL, 0);
			return;
		}
	}
}

static void
route(struct loop *l, json_t *msg, struct batch *b)
{
	struct mcp_msg r;

	mcp_route(l->m, msg, &r);
	switch (r.verb) {
	case MCP_REPLY:
		reply(l, b, r.reply);
		break;
	case MCP_CANCEL:
		cancel(l, r.id);
		json_decref(r.id);
		break;
	case MCP_CALL:
		enqueue(l, &r, b);
		break;
	}
}

/* One of stdin's lines, cut at the cap (a blank one skipped, as
 * serve_lines() does).  Always 0: a failed write ends the loop once the
 * bytes read are taken in. */
static int
line(void *arg, const char *s, size_t len, bool too_long)
{
	struct loop *l = arg;
	json_t *msg, *r, *e;
	struct batch *b;
	size_t i;

	if (too_long) {
		emit(l, mcp_cut(l->m, s, len));
		return 0;
	}
	if (serve_is_blank(s, len))
		return 0;
	if ((msg = mcp_parse(s, len, &r)) == NULL) {
		emit(l, r);
		return 0;
	}
	if (json_is_object(msg))
		route(l, msg, NULL);
	else if (!json_is_array(msg))
		emit(l, mcp_error(NULL, RPC_INVALID_REQUEST, "Invalid "
		    "Request: a message is a JSON object"));
	else if ((r = mcp_batch_refused(l->m, msg)) != NULL)
		emit(l, r);
	else {
		b = xcalloc(1, sizeof *b);
		b->replies = json_array();
		json_array_foreach(msg, i, e) {
			if (json_is_object(e))
				route(l, e, b);
			else
				reply(l, b, mcp_batch_element());
		}
		b->sealed = true;
		batch_finish(l, b);
	}
	json_decref(msg);
	return 0;
}

/* Path p's worker wrote: the reply to the call in flight, once whole. */
static void
from_worker(struct loop *l, int p)
{
	struct worker *w = &l->w[p];
	char buf[CHUNK];
	/* (never blocking: the loop serves stdin and every path while a
	 * call runs, and a poll entry may name a replaced worker's fd) */
	ssize_t k = recv(w->fd, buf, sizeof buf, MSG_DONTWAIT);
	char *nl;

	if (k < 0 && (errno == EINTR || errno == EAGAIN ||
	    errno == EWOULDBLOCK))
		return;
	if (k <= 0) {
		worker_died(l, p);
		return;
	}
	sbuf_add(&w->in, buf, (size_t)k);
	/* (only the new bytes are searched: a reply may be many chunks) */
	nl = memchr(w->in.data + w->in.len - (size_t)k, '\n', (size_t)k);
	if (nl == NULL)
		return;
	if (!w->busy || (size_t)(nl - w->in.data) + 1 != w->in.len) {
		/* never: one reply per job */
		worker_died(l, p);
		return;
	}
	call_end(l, pop(w), NULL, w->in.data, (size_t)(nl - w->in.data));
	sbuf_truncate(&w->in, 0);
	kick(l, p);
}

/* notifications/progress for every call that is due; the time to the
 * next one, ms, or -1. */
static int
progress(struct loop *l)
{
	double t = now(), next = -1;
	int p;

	for (p = 0; p < PATH__COUNT; p++) {
		struct worker *w = &l->w[p];
		struct call *c;
		size_t before = 0;

		for (c = w->head; c != NULL; c = c->next, before++) {
			if (c->token == NULL || c->cancelled)
				continue;
			if (c->next_progress <= t) {
				char *msg = c == w->head && w->busy ?
				    xasprintf("running on the %s path for %u s",
				    record_path_name((enum path_id)c->path),
				    c->progress + 1) :
				    xasprintf("waiting for the %s path (%zu "
				    "call%s before it)",
				    record_path_name((enum path_id)c->path), before,
				    before == 1 ? "" : "s");
				c->progress++;
				emit(l, json_pack("{s:s,s:s,s:{s:O,s:I,s:s}}",
				    "jsonrpc", "2.0", "method",
				    "notifications/progress", "params",
				    "progressToken", c->token, "progress",
				    (json_int_t)c->progress, "message", msg));
				free(msg);
				c->next_progress += PROGRESS_MS / 1000.0;
				if (c->next_progress <= t)
					c->next_progress = t +
					    PROGRESS_MS / 1000.0;
			}
			if (next < 0 || c->next_progress < next)
				next = c->next_progress;
		}
	}
	return next < 0 ? -1 : (int)((next - t) * 1000) + 1;
}

static void
shut_down(struct loop *l, int ms)
{
	int p;

	for (p = 0; p < PATH__COUNT; p++) {
		struct worker *w = &l->w[p];
		while (w->head != NULL) {
			struct call *c = pop(w);
			c->cancelled = true;	/* (nobody to tell) */
			call_end(l, c, NULL, NULL, 0);
		}
		(void)worker_reap(w, w->busy ? 0 : ms);
		sbuf_free(&w->in);
	}
	/* the zygote a worker had, if it outlived it (still our child,
	 * unreaped: its pid is its own) */
	if (l->zygote > 0) {
		kill(l->zygote, SIGKILL);
		while (waitpid(l->zygote, NULL, 0) == -1 && errno == EINTR)
			;
		l->zygote = -1;
	}
	linesplit_free(&l->lines);
}

int
mcp_calls(struct mcp *m, struct session *s, int in, FILE *out,
    bool one_worker)
{
	struct loop l = { .m = m, .s = s, .out = out,
	    .one_worker = one_worker, .zygote = -1 };
	unsigned paths = one_worker ? PATH_BIT(0) : mcp_paths(m);
	bool eof = false, gave = false;
	char buf[CHUNK];
	int p, zygote_path = -1;

	l.main_pid = getpid();
	linesplit_init(&l.lines, mcp_max(m));
	for (p = 0; p < PATH__COUNT; p++) {
		l.w[p].pid = -1;
		l.w[p].fd = -1;
	}
	/* the zygote goes to the unsafe path's worker, else the first */
	for (p = 0; p < PATH__COUNT; p++)
		if ((paths & PATH_BIT(p)) && (zygote_path < 0 ||
		    p == PATH_UNSAFE))
			zygote_path = p;
	for (p = 0; p < PATH__COUNT; p++) {
		if (!(paths & PATH_BIT(p)))
			continue;
		if (!worker_start(&l, p, p == zygote_path)) {
			fprintf(stderr, "sandboxrepl: --mcp: cannot start the "
			    "worker of %s%s: %s\n", one_worker ? "every path" :
			    "the path ", one_worker ? "" :
			    record_path_name((enum path_id)p), strerror(errno));
			shut_down(&l, 0);
			return 1;
		}
		gave |= p == zygote_path;
	}
	if (gave)	/* the main process builds no world */
		l.zygote = world_zygote_forget();
	while (!l.failed && !(eof && l.calls == 0)) {
		struct pollfd pfd[PATH__COUNT + 1];
		pid_t whose[PATH__COUNT + 1];
		int who[PATH__COUNT + 1], n = 0, i, timeout;

		/* (it ends when the worker it was given does; a child of
		 * this process, it is reaped here) */
		if (l.zygote > 0 && waitpid(l.zygote, NULL, WNOHANG) != 0)
			l.zygote = -1;
		timeout = progress(&l);
		if (l.failed)
			break;
		if (!eof) {
			pfd[n].fd = in;
			pfd[n].events = POLLIN;
			who[n++] = -1;
		}
		for (p = 0; p < PATH__COUNT; p++)
			if (l.w[p].fd >= 0) {	/* (an idle one: its end) */
				pfd[n].fd = l.w[p].fd;
				pfd[n].events = POLLIN;
				whose[n] = l.w[p].pid;
				who[n++] = p;
			}
		if (poll(pfd, (nfds_t)n, timeout) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < n && !l.failed; i++) {
			ssize_t k;

			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (who[i] >= 0) {
				/* (not a worker replaced since the poll: a
				 * new socket may have the old one's number) */
				if (l.w[who[i]].fd == pfd[i].fd &&
				    l.w[who[i]].pid == whose[i])
					from_worker(&l, who[i]);
				continue;
			}
			k = read(in, buf, sizeof buf);
			if (k < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (k < 0) {
				l.failed = true;
				break;
			}
			if (k > 0) {
				(void)linesplit_feed(&l.lines, buf, (size_t)k,
				    line, &l);
				continue;
			}
			eof = true;
			/* a last line without its newline */
			(void)linesplit_end(&l.lines, line, &l);
		}
	}
	shut_down(&l, l.failed ? 0 : REAP_MS);
	return l.failed ? 1 : 0;
}
