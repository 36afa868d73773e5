/*
 * cpython_reply.c -- the session's end of a CPython world's wire
 * (wire.h): the request frames written, and the reply read one frame at
 * a time, every type and length checked against the caps of wire.h
 * (reply_rule, through jail_wire.h's wire_head) before its payload is
 * read.  While one world's reply is read the other started worlds' live
 * output is taken as it comes (the pump).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/clock.h"
#include "cpython_int.h"
#include "fakenet.h"
#include "jail/jail.h"
#include "jail/jail_int.h"
#include "fs/mockfs.h"
#include "base/sbuf.h"
#include "wire.h"
#include "world.h"
#include "world_int.h"
#include "base/xalloc.h"
#include "jail/jail_sys.h"


/*
 * Ctrl-C.  The UI's SIGINT handler calls world_interrupt() (world.c: it
 * only sets a flag, so a signal handler may call it); a read of an input's reply
 * that sees it tells its world once -- WORLD_INTERRUPT_SIGNAL to the
 * world's warden, which PID 1 turns into SIGINT for every process of the
 * world, as a terminal's Ctrl-C reaches its foreground programs -- and
 * then waits INTERRUPT_GRACE_MS more at most: code that does not end by
 * then (a long computation in C, a handler that swallows
 * KeyboardInterrupt forever) loses its world, as at the wall clock.
 * Several worlds running one input side by side are each told.
 */
/* Tell the world of c's running input that Ctrl-C was pressed, once;
 * the deadline becomes the grace period's end when that is sooner. */
void
cpy_interrupt_world(struct cpy *c, double *deadline)
{
	double end;

	if (!c->running || c->interrupted || !world_interrupt_pending())
		return;
	c->interrupted = true;
	if (c->outside != NULL)
		c->launch->interrupt(c->outside);	/* (no signal reaches
							   it from here) */
	else if (c->pidfd >= 0)
		(void)syscall(__NR_pidfd_send_signal, c->pidfd,
		    WORLD_INTERRUPT_SIGNAL, NULL, 0);
	end = clock_ms() + INTERRUPT_GRACE_MS;
	if (end < *deadline)
		*deadline = end;
}

/*
 * Every column live.  The paths' worlds run side by side but their
 * replies are read in the paths' order; while one is read, the others'
 * live frames are taken as they arrive (pump_one, never blocking) and
 * told at once, so their columns fill too.  A world's reply is not read
 * here: the first header that is not a live frame is held in its pump
 * for its own read_reply, which also finishes a live frame begun.
 */
#define MAX_PUMPED	8
static struct cpy *pumped[MAX_PUMPED];	/* started, not read yet */

void
cpy_pump_add(struct cpy *c)
{
	size_t i;

	memset(&c->pump, 0, offsetof(struct pump, buf));
	for (i = 0; i < MAX_PUMPED; i++)
		if (pumped[i] == NULL) {
			pumped[i] = c;
			return;
		}
}

void
cpy_pump_drop(struct cpy *c)
{
	size_t i;

	for (i = 0; i < MAX_PUMPED; i++)
		if (pumped[i] == c)
			pumped[i] = NULL;
}

static void
live_tell(struct cpy *c, const char *pay, size_t len)
{
	if (len < 1 || (pay[0] != 'o' && pay[0] != 'e'))
		return;		/* (its own read would call it broken) */
	if (c->live != NULL && c->live_bytes < WW_MAX_OUTPUT) {
		c->live_bytes += len - 1;
		c->live(c->live_ctx, pay[0] == 'e' ? "stderr" : "stdout",
		    pay + 1, len - 1);
	}
}

static bool live_head(const char *head, uint32_t *len);

/* Take what c's socket holds of live frames now, without waiting. */
static void
pump_one(struct cpy *c)
{
	struct pump *pu = &c->pump;
	ssize_t r;

	while (!pu->held && c->sock >= 0) {
		if (pu->nhead < WIRE_HEADER) {
			r = recv(c->sock, pu->head + pu->nhead, WIRE_HEADER -
			    pu->nhead, MSG_DONTWAIT);
			if (r <= 0)
				return;	/* (nothing now, or its read says) */
			pu->nhead += (size_t)r;
			if (pu->nhead < WIRE_HEADER)
				return;
			if (!live_head(pu->head, &pu->len)) {
				pu->held = true;	/* the reply's */
				return;
			}
			pu->got = 0;
		}
		r = recv(c->sock, pu->buf + pu->got, pu->len - pu->got,
		    MSG_DONTWAIT);
		if (r <= 0)
			return;
		pu->got += (size_t)r;
		if (pu->got < pu->len)
			return;
		live_tell(c, pu->buf, pu->len);
		pu->nhead = 0;
	}
}

static enum read_end read_n(struct cpy *c, char *p, size_t n,
    double *deadline);

/* Before c's own reply is read: a live frame the pump began is read to
 * its end and told. */
enum read_end
cpy_pump_finish(struct cpy *c, double *deadline)
{
	struct pump *pu = &c->pump;
	struct pump saved;
	enum read_end end;

	cpy_pump_drop(c);
	if (pu->held || pu->nhead == 0)
		return READ_OK;
	saved = *pu;
	pu->nhead = 0;		/* (read_n reads the socket itself now) */
	if (saved.nhead < WIRE_HEADER) {
		if ((end = read_n(c, saved.head + saved.nhead, WIRE_HEADER -
		    saved.nhead, deadline)) != READ_OK)
			return end;
		if (!live_head(saved.head, &saved.len)) {
			memcpy(pu->head, saved.head, WIRE_HEADER);
			pu->nhead = WIRE_HEADER;
			pu->hoff = 0;
			pu->held = true;
			return READ_OK;
		}
		saved.got = 0;
	}
	if ((end = read_n(c, pu->buf, saved.len - saved.got, deadline)) !=
	    READ_OK)
		return end;
	memmove(pu->buf + saved.got, pu->buf, saved.len - saved.got);
	memcpy(pu->buf, saved.buf, saved.got);
	live_tell(c, pu->buf, saved.len);
	return READ_OK;
}

/* Read exactly n bytes before the deadline (what is there already is
 * read even after it: a world that answered in time while the session
 * read another path's reply is not late).  A header the pump held comes
 * first; meanwhile the other started worlds' live frames are taken. */
static enum read_end
read_n(struct cpy *c, char *p, size_t n, double *deadline)
{
	struct pump *pu = &c->pump;

	if (pu->held && n > 0) {
		size_t k = pu->nhead - pu->hoff < n ? pu->nhead - pu->hoff : n;
		memcpy(p, pu->head + pu->hoff, k);
		pu->hoff += k;
		p += k;
		n -= k;
		if (pu->hoff == pu->nhead)
			pu->held = false, pu->nhead = pu->hoff = 0;
	}
	while (n > 0) {
		struct pollfd pfd[1 + MAX_PUMPED] = { { c->sock, POLLIN, 0 } };
		struct cpy *who[1 + MAX_PUMPED] = { c };
		double left;
		ssize_t r;
		int rc, np = 1, i;

		for (i = 0; i < MAX_PUMPED; i++)
			if (pumped[i] != NULL && pumped[i] != c &&
			    pumped[i]->sock >= 0 && !pumped[i]->pump.held) {
				who[np] = pumped[i];
				pfd[np++] = (struct pollfd){ pumped[i]->sock,
				    POLLIN, 0 };
			}
		cpy_interrupt_world(c, deadline);
		left = *deadline - clock_ms();
		/* (a wake every 100 ms sees a Ctrl-C whose signal came
		 * between the check and the poll) */
		rc = poll(pfd, (nfds_t)np, left <= 0 ? 0 : left > 100 ? 100 :
		    (int)left + 1);
		if (rc == -1 && errno == EINTR)
			continue;
		for (i = 1; rc > 0 && i < np; i++)
			if (pfd[i].revents != 0)
				pump_one(who[i]);
		if (rc <= 0 || pfd[0].revents == 0) {
			if (rc <= 0 && left <= 0)
				return READ_TIMEOUT;
			continue;
		}
		r = read(c->sock, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return READ_LOST;
		p += r;
		n -= (size_t)r;
	}
	return READ_OK;
}

/* What a reply's frame may carry (jail_wire.h's wire_head checks it
 * before its payload is read). */
static struct wire_len
reply_rule(enum ww_type type, const void *ctx)
{
	(void)ctx;
	switch (type) {
	case WW_READY: case WW_END:
		return (struct wire_len){ 0, 0 };
	case WW_TRUNCATED:
		return (struct wire_len){ 0, 4 + WW_MAX_UNSENT };
	case WW_REFUSE:
		return (struct wire_len){ 0, 8 + WW_MAX_DETAIL };
	case WW_STATUS:		return (struct wire_len){ 12, 12 };
	case WW_DROPPED:	return (struct wire_len){ 4, 4 };
	case WW_TAIL:		return (struct wire_len){ 8, 8 };
	case WW_ENDED:		return (struct wire_len){ 4, 4 };
	case WW_RESULT:		return (struct wire_len){ 0, WW_MAX_RESULT };
	case WW_MESSAGE:	return (struct wire_len){ 0, WW_MAX_RESULT };
	case WW_ERROR:		return (struct wire_len){ 0, WW_MAX_ERROR };
	case WW_OUTPUT:		return (struct wire_len){ 0, WW_MAX_OUTPUT };
	case WW_LIVE:		return (struct wire_len){ 1, WW_MAX_LIVE + 1 };
	case WW_EVENT:		return (struct wire_len){ 0, WW_MAX_EVENT };
	case WW_NAMES:		return (struct wire_len){ 0, WW_MAX_NAMES };
	case WW_LITERALS_F:	return (struct wire_len){ 0, WW_MAX_LITERALS };
	case WW_FILE:
		return (struct wire_len){ 0, 8 + WW_MAX_PATH +
		    WW_MAX_FILE_BYTES };
	case WW_CUT:		return (struct wire_len){ 12, 12 };
	default:		return WIRE_REJECT;
	}
}

/* A live frame's header (pump_one, pump_finish): true when head is one,
 * with its length in *len. */
static bool
live_head(const char *head, uint32_t *len)
{
	struct wire_frame f;

	if (!wire_head(head, reply_rule, NULL, &f) || f.type != WW_LIVE)
		return false;
	*len = f.len;
	return true;
}

static bool
parse_event(struct arena *a, const char *p, size_t len, struct raw_event *e)
{
	const char *nul = memchr(p, '\0', len);
	size_t off;

	if (nul == NULL || nul == p)
		return false;
	e->name = arena_strndup(a, p, (size_t)(nul - p));
	off = (size_t)(nul - p) + 1;
	e->nargs = 0;
	while (off < len) {
		uint16_t n;
		if (len - off < 2)
			return false;
		memcpy(&n, p + off, 2);
		off += 2;
		if (n > len - off)
			return false;
		if (e->nargs < sizeof e->args / sizeof e->args[0]) {
			e->args[e->nargs] = arena_strndup(a, p + off, n);
			e->arglen[e->nargs++] = n;
		}
		off += n;
	}
	return true;
}

/*
 * One workspace entry (wire.h's F frame) into r->files, as the mfs names
 * it ("dir/" for a directory); NULL when it breaks a rule: a path that
 * is not a relative path of flat names within the depth, a kind with
 * data it may not have, an entry twice, a nested entry whose directory
 * was not sent before it, past the count or the bytes.  *dl receives
 * its data's length.
 */
static const char *
file_frame(struct arena *a, struct raw *r, const char *pay, uint32_t len,
    size_t nfiles, uint64_t file_bytes, uint64_t *dl)
{
	uint32_t plen, mode;
	const char *path, *slash;
	char *name;
	size_t i;

	if (len < 8)
		return NULL;
	memcpy(&plen, pay, 4);
	memcpy(&mode, pay + 4, 4);
	path = pay + 8;
	if (plen > len - 8 || !ww_path_ok(path, plen) ||
	    nfiles == WW_MAX_FILES)
		return NULL;
	*dl = len - 8 - plen;
	if (*dl > WW_MAX_FILE_BYTES - file_bytes ||
	    (*dl > 0 && (!(S_ISREG(mode) || S_ISLNK(mode)) ||
	    (mode & WW_UNREADABLE))) ||
	    (mode & ~(WW_UNREADABLE | S_IFMT | 07777)) != 0 ||
	    !(S_ISREG(mode) || S_ISDIR(mode) || S_ISLNK(mode) ||
	    S_ISFIFO(mode) || S_ISSOCK(mode) || S_ISCHR(mode) ||
	    S_ISBLK(mode)))
		return NULL;
	name = arena_printf(a, "%.*s%s", (int)plen, path,
	    S_ISDIR(mode) ? "/" : "");
	for (i = plen, slash = NULL; i > 0 && slash == NULL; i--)
		if (path[i - 1] == '/')
			slash = path + i - 1;
	if (mfs_exists(r->files, name) || (S_ISDIR(mode) ?
	    mfs_exists(r->files, arena_strndup(a, path, plen)) :
	    mfs_exists(r->files, arena_printf(a, "%s/", name))))
		return NULL;	/* twice, or as a file and a directory */
	if (slash != NULL && !mfs_exists(r->files, arena_strndup(a, path,
	    (size_t)(slash - path) + 1)))
		return NULL;	/* its directory was not sent first */
	mfs_put(r->files, name, path + plen, (size_t)*dl);
	mfs_set_mode(r->files, name, mode & ~WW_UNREADABLE,
	    (mode & WW_UNREADABLE) != 0);
	return name;
}

/* The workspace entries of a reply so far (file_frame's caps). */
struct reply_count {
	size_t		 files;
	uint64_t	 bytes;
};

/*
 * One frame f of a reply, its payload pay (len bytes, NUL after), into
 * r: 1 when more follow, 0 when the reply ends with it, -1 when it
 * breaks a rule (a forged or stale status, a workspace entry before the
 * status or past the caps, an unknown cut...).
 */
static int
reply_frame(struct cpy *c, struct arena *a, struct raw *r,
    const struct wire_frame *f, char *pay, struct reply_count *n)
{
	uint32_t len = f->len;

	switch (f->type) {
	case WW_READY:
		r->ready = true;
		return 0;
	case WW_REFUSE: {
		uint32_t step;
		int32_t err;
		if (len < 8)
			return -1;
		memcpy(&step, pay, 4);
		memcpy(&err, pay + 4, 4);
		if (step == JAIL_STEP_NONE ||
		    jail_step_word(step, JAIL_SETUP_WORLD) == NULL ||
		    err <= 0 || err > 4095 || memchr(pay + 8, '\0', len - 8))
			return -1;
		r->refused_step = step;
		r->refused_err = err;
		r->refused_detail = pay + 8;
		return 0;
	}
	case WW_STATUS: {
		uint64_t nonce;
		memcpy(&r->status, pay, 4);
		memcpy(&nonce, pay + 4, 8);
		if (r->status > WW_NOMEM || r->has_status ||
		    nonce != c->nonce)
			return -1;	/* forged, or stale */
		r->has_status = true;
		break;
	}
	case WW_RESULT:
		r->result = pay;
		break;
	case WW_MESSAGE:
		r->message = pay;
		break;
	case WW_ERROR:
		r->error = pay;
		break;
	case WW_OUTPUT:
		r->output = pay;
		r->output_len = len;
		break;
	case WW_TAIL:
		/* (after the output it points into) */
		memcpy(&r->tail_kind, pay, 4);
		memcpy(&r->tail, pay + 4, 4);
		/* (text bytes: checked against the text, once
		 * parsed) */
		if (!r->has_status || r->tail_kind >= WW_TAIL__COUNT)
			return -1;
		break;
	case WW_EVENT:
		if (r->nevents == WW_MAX_EVENTS ||
		    !parse_event(a, pay, len, &r->events[r->nevents]))
			return -1;
		r->nevents++;
		break;
	case WW_NAMES:
		if (len > 0 && pay[len - 1] != '\0')
			return -1;
		r->names = pay;
		r->names_len = len;
		r->has_names = true;
		break;
	case WW_LITERALS_F: {
		size_t off = 0, k = 0;
		/* pairs of NUL-terminated strings, after the status */
		if (!r->has_status || (len > 0 && pay[len - 1] != '\0'))
			return -1;
		while (off < len) {
			off += strlen(pay + off) + 1;
			k++;
		}
		if (k % 2 != 0)
			return -1;
		r->lits = pay;
		r->lits_len = len;
		r->has_lits = true;
		break;
	}
	case WW_DROPPED:
		memcpy(&r->dropped, pay, 4);
		break;
	case WW_FILE: {
		uint64_t dl;
		const char *name;
		/* (the workspace follows the status, whose nonce the
		 * code cannot know: an entry before it is forged) */
		if (!r->has_status || (name = file_frame(a, r, pay, len,
		    n->files, n->bytes, &dl)) == NULL)
			return -1;
		n->bytes += dl;
		n->files++;
		break;
	}
	case WW_TRUNCATED:
		if (len < 4 || r->truncated || !r->has_status ||
		    (len > 4 && pay[len - 1] != '\0'))
			return -1;
		memcpy(&r->left, pay, 4);
		r->truncated = true;
		r->unsent = pay + 4;
		r->unsent_len = len - 4;
		break;
	case WW_CUT: {
		uint32_t what;
		uint64_t held;
		memcpy(&what, pay, 4);
		memcpy(&held, pay + 4, 8);
		if (what >= WW_CUT__COUNT)
			return -1;
		r->cut[what] = held;
		break;
	}
	case WW_END:
		if (!r->has_status)
			return -1;
		r->has_end = true;
		return 0;
	case WW_ENDED: {
		/* PID 1's: the interpreter is gone, and what it left
		 * follows (the status of this reply) */
		int32_t ws;
		if (r->has_status || r->ended)
			return -1;
		memcpy(&ws, pay, 4);
		r->ended = true;
		r->wstatus = ws;
		r->has_status = true;
		r->status = RAW_ENDED;
		break;
	}
	default:	/* (reply_rule let no other type through) */
		return -1;
	}
	return 1;
}

/*
 * Read frames until the reply ends (E, or Y/R after a build).  Every
 * type and length is checked before the payload is read.
 */
enum read_end
cpy_read_reply(struct cpy *c, double deadline, struct arena *a,
    struct raw *r)
{
	struct reply_count n = { 0, 0 };

	memset(r, 0, sizeof *r);
	r->files = mfs_new();
	for (;;) {
		char head[WIRE_HEADER], *pay;
		struct wire_frame f;
		uint32_t len;
		enum read_end end;

		end = read_n(c, head, sizeof head, &deadline);
		if (end != READ_OK)
			return end;
		if (!wire_head(head, reply_rule, NULL, &f))
			return READ_BAD;
		len = f.len;
		if (f.type == WW_LIVE) {
			/* Output as it is written, for a screen to show now
			 * (world_input.live); the reply's O frame is what the
			 * record keeps.  Not in the arena: a loop printing
			 * until the wall clock sends many. */
			static char live[WW_MAX_LIVE + 1];
			if ((end = read_n(c, live, len, &deadline)) != READ_OK)
				return end;
			if (live[0] != 'o' && live[0] != 'e')
				return READ_BAD;
			live_tell(c, live, len);
			continue;
		}
		pay = arena_alloc(a, (size_t)len + 1);
		if ((end = read_n(c, pay, len, &deadline)) != READ_OK)
			return end;
		pay[len] = '\0';
		switch (reply_frame(c, a, r, &f, pay, &n)) {
		case 0:
			return READ_OK;
		case -1:
			return READ_BAD;
		}
	}
}

void
cpy_raw_free(struct raw *r)
{
	mfs_free(r->files);
	r->files = NULL;
}

/* The jail's framing, sent without SIGPIPE: a world that died must not
 * take the session with it. */
static bool
send_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/* Keep n more bytes in c's gathering; false when they cannot be. */
static bool
out_add(struct cpy *c, const void *p, size_t n)
{
	if (n > c->out.cap - c->out.len) {
		size_t cap = c->out.cap ? c->out.cap : 4096;
		char *q;

		while (cap - c->out.len < n)
			cap *= 2;
		if ((q = realloc(c->out.p, cap)) == NULL)
			return false;
		c->out.p = q;
		c->out.cap = cap;
	}
	memcpy(c->out.p + c->out.len, p, n);
	c->out.len += n;
	return true;
}

/* What is gathered, in one write; a large buffer (a big file's set-up)
 * is not kept for the inputs after. */
static bool
out_flush(struct cpy *c)
{
	bool ok = c->out.len == 0 || send_all(c->sock, c->out.p, c->out.len);

	c->out.len = 0;
	if (c->out.cap > 65536)
		cpy_free_out(c);
	return ok;
}

void
cpy_free_out(struct cpy *c)
{
	free(c->out.p);
	c->out.p = NULL;
	c->out.len = c->out.cap = 0;
}

void
cpy_cork(struct cpy *c)
{
	c->out.corked = true;
}

bool
cpy_uncork(struct cpy *c)
{
	c->out.corked = false;
	return out_flush(c);
}

bool
cpy_send_frame(struct cpy *c, enum ww_type type, const void *a,
    size_t alen, const void *b, size_t blen)
{
	char head[WIRE_HEADER];
	uint32_t len = (uint32_t)(alen + blen);

	if (alen + blen > UINT32_MAX)
		return false;
	head[0] = (char)type;
	memcpy(head + 1, &len, 4);
	/* (one write a frame at least: the world reads its header and
	 * payload without waiting for the rest) */
	if (!out_add(c, head, sizeof head) ||
	    (alen > 0 && !out_add(c, a, alen)) ||
	    (blen > 0 && !out_add(c, b, blen))) {
		c->out.len = 0;
		return false;
	}
	return c->out.corked || out_flush(c);
}

/* An input frame: flags, a fresh nonce its reply must carry, source. */
bool
cpy_send_input(struct cpy *c, char flags, const char *src, size_t len)
{
	char head[9];

	if (getrandom(&c->nonce, sizeof c->nonce, 0) != sizeof c->nonce)
		c->nonce = (uint64_t)clock_ms() * 2654435761u ^ c->nonce;
	head[0] = flags;
	memcpy(head + 1, &c->nonce, 8);
	return cpy_send_frame(c, WW_INPUT, head, sizeof head, src, len);
}
