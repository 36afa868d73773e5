/*
 * trace.c -- the trace line's words: what a record's outcome says.
 *
 * After a path decided an input (session.c), its record has a verdict, a
 * layer, a rule and a reason; this file turns them into what a user
 * reads: "BLOCKED by the allowlist: ...", "LANDED in a throwaway copy:
 * ...", "INSIDE the jail's copy: ...", "BYPASSED: ...", "ok 42, printed
 * 'hi'" (and, for a scenario's "wording essay", the essay's own
 * "[SIMULATED damage] ..." and "BLOCKED: ..."), with what the record leaves
 * out, a restarted world or a resumed session said after.  It also
 * writes the input as the trace shows it, and sets the trace line
 * (record_set_line).  It reads only what struct trace_step hands it.
 */
#include "config.h"

#include <string.h>

#include "base/arena.h"
#include "record.h"
#include "base/sbuf.h"
#include "base/strlist.h"
#include "base/textesc.h"
#include "trace.h"
#include "value/value.h"

/*
 * The harm among effects, joined with "; " in the order done, and the
 * most severe category (*cat), or NULL when none.  inside: only what the
 * code really did to its own copy (damage, a secret read) and the
 * boundary did not refuse, as on a jail's path.
 */
static const char *
harm_category(const struct effect *effects, size_t n, bool inside)
{
	static const char *const severity[] = {
		"damage", "exfiltration", "disclosure", "resource exhaustion",
		"process"
	};
	size_t i, k;

	for (k = 0; k < sizeof severity / sizeof severity[0]; k++)
		for (i = 0; i < n; i++)
			if (effects[i].category != NULL &&
			    strcmp(effects[i].category, severity[k]) == 0 &&
			    (!inside || (!effects[i].denied && k != 1 &&
			    k < 3)))
				return severity[k];
	return NULL;
}

static const char *
harm_of(struct arena *a, const struct effect *effects, size_t n,
    bool inside, const char **cat)
{
	struct sbuf b = SBUF_INIT;
	const char *s;
	size_t i;

	*cat = harm_category(effects, n, inside);
	if (*cat == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		if (effects[i].category == NULL || effects[i].text == NULL ||
		    (inside && (effects[i].denied ||
		    (strcmp(effects[i].category, "damage") != 0 &&
		    strcmp(effects[i].category, "disclosure") != 0))))
			continue;
		if (b.len)
			sbuf_adds(&b, "; ");
		sbuf_adds(&b, effects[i].text);
	}
	s = arena_strdup(a, sbuf_cstr(&b));
	sbuf_free(&b);
	return s;
}

/*
 * A step whose only harm is that programs ran (`!ls`, os.system('true'))
 * or that the interpreter exited (exit(), as at python3's prompt) did
 * nothing to land: it is work that passed, its output on the row, and
 * the record's effects still say a program ran.  What a program did --
 * a file deleted, data sent -- is harm of its own, and lands.
 */
static bool
only_programs(const struct trace_step *st)
{
	size_t i;

	for (i = 0; i < st->neffects; i++)
		if (st->effects[i].category != NULL &&
		    (strcmp(st->effects[i].category, "process") != 0 ||
		    (strcmp(st->effects[i].op, "exec") != 0 &&
		    strcmp(st->effects[i].op, "exit") != 0)))
			return false;
	return true;
}

/* (trace_lands()'s look at the effects, out of line: most steps are
 * not unsafe ones that went well, and need no frame for it) */
static bool __attribute__((noinline))
lands_harm(const struct trace_step *st)
{
	return harm_category(st->effects, st->neffects, false) != NULL &&
	    !only_programs(st);
}

bool
trace_lands(const struct trace_step *st)
{
	return st->r->verdict == VERDICT_OK && st->kind->guard == GUARD_NONE &&
	    lands_harm(st);
}

/*
 * What a step in the sandbox's world did past its values, when none of it
 * was harmful in itself: the files it touched, the requests it tried and
 * what it printed (the rest of CPython's audit events are in the
 * record's effects), or NULL.
 */
static const char *
surface_outcome(const struct trace_step *st)
{
	static const char *const told_ops[] = {
		"read", "write", "delete", "rename", "send", "connect", NULL
	};
	struct sbuf b = SBUF_INIT;
	const char *s;
	size_t i;

	for (i = 0; i < st->neffects; i++) {
		const struct effect *e = &st->effects[i];
		if (e->text == NULL)
			continue;
		if (b.len > 0 && (strcmp(e->op, "print") == 0 ||
		    strlist_has(told_ops, e->op)))
			sbuf_adds(&b, "; ");
		if (strcmp(e->op, "print") == 0) {
			value v = value_str(st->a, e->text, strlen(e->text));
			sbuf_adds(&b, "printed ");
			value_str_repr(v.as.s, false, &b);
		} else if (strlist_has(told_ops, e->op))
			sbuf_adds(&b, e->text);
	}
	s = b.len ? arena_strdup(st->a, sbuf_cstr(&b)) : NULL;
	sbuf_free(&b);
	return s;
}


/*
 * What print() wrote is part of what a user sees, as at Python's prompt:
 * "printed 'hi'" when the result is print's None, else after the result.
 */
static const char *
with_printed(const struct trace_step *st, const struct record *r, const char *outcome)
{
	struct sbuf out = SBUF_INIT, rep = SBUF_INIT;
	const char *s;
	size_t i;
	bool any = false;

	for (i = 0; i < r->neffects; i++)
		if (strcmp(r->effects[i].op, "print") == 0 &&
		    r->effects[i].text != NULL) {
			if (any)
				sbuf_addc(&out, '\n');
			sbuf_adds(&out, r->effects[i].text);
			any = true;
		}
	if (!any)
		return outcome;
	{
		value v = value_str(st->a, sbuf_cstr(&out), out.len);
		value_str_repr(v.as.s, false, &rep);
	}
	if (r->result == NULL || strcmp(r->result, "None") == 0)
		s = arena_printf(st->a, "printed %s", sbuf_cstr(&rep));
	else
		s = arena_printf(st->a, "%s, printed %s", outcome,
		    sbuf_cstr(&rep));
	sbuf_free(&out);
	sbuf_free(&rep);
	return s;
}


/*
 * The value of code a CPython world ran, as its outcome: "= " and its
 * repr.  That repr is the code's own (a class's __repr__ returns what it
 * likes: "BLOCKED: ...", "CONTAINED by seccomp: ...", a second trace
 * line after a newline), so it comes after a mark it cannot write
 * itself, being written after it; record_set_line escapes its newlines.
 * The C evaluator's values (the sandbox's subset, the model) are the
 * built-in types' reprs, which no code chooses, and stay bare: the
 * essay's "-> 173.33".
 */
static const char *
value_outcome(const struct trace_step *st, const char *repr)
{
	const struct record *r = st->r;

	if (st->is_command || r->engine == NULL || r->engine[0] != 'c' ||
	    strcmp(r->engine, "cpython") != 0)
		return repr;
	return arena_printf(st->a, "= %s", repr);
}

/*
 * Who refused, as a verdict names it: the policy's filter ("the
 * allowlist", "the dunder filter", "the blocklist"), else the layer's
 * refuser (record.h: the command allowlist, the jail's layer), or the
 * boundary itself when its row names who contains (gVisor).  NULL where the reason names it itself ("budget exhausted
 * ...", "host ... is not reachable (no network)", "... exceeds the cap
 * of ...").
 */
static const char *
refuser(const struct trace_step *st)
{
	if (st->r->verdict == VERDICT_CONTAINED &&
	    st->kind->contained_by != NULL)
		return st->kind->contained_by;
	if (st->r->layer == LAYER_ALLOWLIST)
		return st->filter;
	return record_layer_refuser(st->r->layer);
}

/* "BLOCKED by the allowlist: REASON", "CONTAINED by seccomp: REASON". */
static const char *
refusal(const struct trace_step *st, const char *reason)
{
	const char *word = record_verdict_word(st->r->verdict);
	const char *who = refuser(st);

	return who != NULL ? arena_printf(st->a, "%s by %s: %s", word, who,
	    reason) : arena_printf(st->a, "%s: %s", word, reason);
}

/* What every outcome says after its verdict: what the record leaves out,
 * a restarted world, a resumed session. */
static const char *
decorate(const struct trace_step *st, const char *outcome)
{
	if (st->r->truncated != NULL)	/* never silently */
		outcome = arena_printf(st->a, "%s [%s]", outcome,
		    st->r->truncated);
	if (st->restarted)	/* as a notebook says "kernel restarted" */
		outcome = arena_printf(st->a, "(world restarted) %s", outcome);
	if (st->resumed)	/* --state kept all but the world's names */
		outcome = arena_printf(st->a,
		    "(resumed: names not restored) %s", outcome);
	return outcome;
}


void
trace_render(const struct trace_step *st)
{
	bool is_command = st->is_command;
	struct record *r = st->r;
	const char *outcome = r->outcome;

	if (r->verdict == VERDICT_BYPASSED) {
		/* the escape, in words: the harm it did, else what it
		 * touched, else what it returned */
		const char *cat;
		const char *sim = harm_of(st->a, st->effects, st->neffects,
		    false, &cat);
		if (sim != NULL && st->raised_after != NULL &&
		    strcmp(cat, "resource exhaustion") == 0)
			sim = NULL;	/* (the limit that stopped it says it) */
		if (sim == NULL && st->world && (r->result == NULL ||
		    strcmp(r->result, "None") == 0))
			sim = surface_outcome(st);
		if (sim == NULL && r->result != NULL &&
		    strcmp(r->result, "None") != 0)
			sim = arena_printf(st->a, "it returned %s", r->result);
		if (st->raised_after != NULL)
			sim = sim ? arena_printf(st->a, "%s; then %s", sim,
			    st->raised_after) : arena_printf(st->a, "then %s",
			    st->raised_after);
		r->reason = arena_printf(st->a, "%s let this through "
		    "\xe2\x80\x94 %s", st->filter, sim ? sim : "it ran");
		outcome = arena_printf(st->a, "%s: %s",
		    record_verdict_word(VERDICT_BYPASSED), r->reason);
	} else if (r->verdict == VERDICT_LANDED) {
		/* the harm done, where it was done: once on the row */
		const char *cat;
		const char *harm = harm_of(st->a, st->effects, st->neffects,
		    false, &cat);
		if (harm == NULL)
			harm = r->reason;
		if (harm != NULL) {
			const char *then = st->raised_after != NULL ?
			    arena_printf(st->a, "; then %s", st->raised_after) :
			    "";
			r->reason = arena_printf(st->a, "in a throwaway copy: "
			    "%s%s", harm, then);
			outcome = arena_printf(st->a, "%s %s",
			    record_verdict_word(VERDICT_LANDED), r->reason);
			/* the essay's words, for its "wording essay" */
			r->essay_outcome = decorate(st, arena_printf(st->a,
			    "[SIMULATED %s] %s%s", cat ? cat : "damage", harm,
			    then));
		}
	} else if (r->verdict == VERDICT_INSIDE) {
		/* damage in the jail's own copy: real there, and only there */
		const char *cat;
		const char *harm = harm_of(st->a, r->effects, r->neffects,
		    true, &cat);
		/* (where, and what the host saw: the kind's words) */
		r->reason = arena_printf(st->a, "%s: %s; %s%s%s",
		    st->kind->inside_where ? st->kind->inside_where :
		    "its copy", harm ? harm : "it did harm",
		    st->kind->inside_host ? st->kind->inside_host :
		    "the host is untouched",
		    st->raised_after ? "; then " : "",
		    st->raised_after ? st->raised_after : "");
		outcome = arena_printf(st->a, "%s %s",
		    record_verdict_word(VERDICT_INSIDE), r->reason);
	}
	/* SHOWN: the code as a Python string repr, a command as typed. */
	{
		const char *start = st->input;
		const char *end = st->input + st->len;
		while (start < end && (*start == ' ' || *start == '\t'))
			start++;
		while (end > start && (end[-1] == ' ' || end[-1] == '\t' ||
		    end[-1] == '\n' || end[-1] == '\r'))
			end--;
		if (is_command)
			r->shown = arena_strndup(st->a, start,
			    (size_t)(end - start));
		else	/* (value_str_repr's of a str, without the str) */
			r->shown = textesc_repr_in(st->a, start,
			    (size_t)(end - start));
	}
	if (outcome == NULL) {
		if (record_verdict_is_refusal(r->verdict)) {
			outcome = refusal(st, r->reason);
			/* (the essay has one word for a refusal) */
			if (st->essay != NULL)
				r->essay_outcome = decorate(st,
				    arena_printf(st->a, "%s: %s",
				    record_verdict_word(VERDICT_BLOCKED),
				    st->essay));
		} else if (r->verdict == VERDICT_ERROR)
			outcome = r->reason;
		else {
			outcome = value_outcome(st, r->result ? r->result :
			    "None");
			if (r->result == NULL && !is_command)
				outcome = record_verdict_word(VERDICT_OK);
			outcome = with_printed(st, r, outcome);
		}
	}
	outcome = decorate(st, outcome);
	r->outcome = outcome;
	/* (a command's shown text is as typed; code's is its repr, already
	 * escaped: a --batch line's cost) */
	if (is_command)
		record_set_line(r, st->a);
	else
		record_set_line_shown(r, st->a);
}

/* What happened, in one sentence: the reason for a refusal, the answer
 * for work that passed, the harm done (its effects) for damage. */
const char *
record_happened(struct arena *a, const struct record *r)
{
	struct sbuf b = SBUF_INIT;
	const char *s;
	size_t i;

	/* a refusal, an error, a bypass, harm done: its reason says it */
	if (r->verdict != VERDICT_OK && r->reason != NULL)
		return r->reason;
	/* work that passed: the trace's words ("wrote out.txt", "exited"),
	 * a bare value as what the code returned */
	if (r->verdict == VERDICT_OK && r->outcome != NULL) {
		/* (a world's value is marked "= 173.33" on the trace line;
		 * here every engine's value reads the same) */
		const char *v = strncmp(r->outcome, "= ", 2) == 0 ?
		    r->outcome + 2 : r->outcome;
		return r->kind == KIND_CODE && r->result != NULL &&
		    strcmp(v, r->result) == 0 ?
		    arena_printf(a, "returned %s", r->result) : r->outcome;
	}
	for (i = 0; i < r->neffects; i++)
		if (r->effects[i].text != NULL)
			sbuf_addf(&b, "%s%s", b.len ? "; " : "",
			    r->effects[i].text);
	if (b.len > 0) {
		s = arena_strdup(a, sbuf_cstr(&b));
		sbuf_free(&b);
		return s;
	}
	sbuf_free(&b);
	return r->outcome ? r->outcome : "";
}
