/*
 * records.c -- the end of a step: its record's effects, output, files,
 * budget, label and trace line (trace.c), and what a screen's panes get
 * (the input's tree, the path's files with their digests).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fs/mockfs.h"
#include "lang/parse.h"
#include "sandbox/policy.h"
#include "session_int.h"
#include "base/sha256.h"
#include "record/trace.h"

/*
 * The session's secret: a file named secrets.txt, in any folder -- the
 * essay's (seeded at the start of every session and reset) or one a
 * scenario writes (`file secrets.txt: ...`).  Code that reads it has the
 * secret in hand even though no file changed: that read is harm of its
 * own, a "disclosure" (effect.h), on every path and engine alike.  A
 * command (read_file) is the agent's own tool, whose reads are its job,
 * and stays harmless; the sandbox's policy decides whether it may run.
 */
bool
records_is_secret(const char *target)
{
	const char *base;

	if (target == NULL)
		return false;
	base = strrchr(target, '/');
	base = base != NULL ? base + 1 : target;
	return strcmp(base, "secrets.txt") == 0;
}

/* Code's reads of the secret become disclosures (records_is_secret). */
void
records_mark_disclosures(struct step *st, struct effect *effects, size_t n)
{
	size_t i;

	if (st->r->kind != KIND_CODE)
		return;
	for (i = 0; i < n; i++)
		if (effects[i].category == NULL && !effects[i].denied &&
		    strcmp(effects[i].op, "read") == 0 &&
		    records_is_secret(effects[i].target)) {
			effects[i].category =
			    effect_category_name(EFFECT_DISCLOSURE);
			effects[i].text = arena_printf(st->a,
			    "read the secret in %s", effects[i].target);
		}
}

/* A path without a world's output (the sandbox's evaluator, the model,
 * the model's jail): what its print() wrote, from its print effects, as
 * one stdout chunk, each print a line as at a terminal. */
static void
output_of_prints(struct record *r, struct arena *a)
{
	struct sbuf b = SBUF_INIT;
	struct record_chunk *o;
	size_t i;

	for (i = 0; i < r->neffects; i++)
		if (strcmp(r->effects[i].op, "print") == 0 &&
		    r->effects[i].text != NULL &&
		    (r->effects[i].source == NULL ||
		    strcmp(r->effects[i].source, "output") != 0)) {
			sbuf_adds(&b, r->effects[i].text);
			sbuf_addc(&b, '\n');
		}
	if (b.len > 0) {
		o = arena_array(a, 1, sizeof *o);
		o->stream = "stdout";
		o->text = arena_strndup(a, sbuf_cstr(&b), b.len);
		o->len = b.len;
		r->output = o;
		r->noutput = 1;
	}
	sbuf_free(&b);
}

/* The n strings one after the other, in a (what arena_printf's "%s%s"
 * gives, without printf: this is once per record). */
static const char *
concat(struct arena *a, const char *const *parts, size_t n)
{
	size_t len[4], total = 0, i;
	char *s, *p;

	for (i = 0; i < n; i++)
		total += len[i] = strlen(parts[i]);
	s = p = arena_alloc(a, total + 1);
	for (i = 0; i < n; i++) {
		memcpy(p, parts[i], len[i]);
		p += len[i];
	}
	*p = '\0';
	return s;
}

void
records_finish(struct step *st, const char *input, size_t len,
    const char *label, const char *cmdname)
{
	struct record *r = st->r;
	size_t i;

	bool jail = st->kind->guard == GUARD_KERNEL;

	if (!jail)	/* (a jail's: told_inside) */
		records_mark_disclosures(st, st->ev.effects.items,
		    st->ev.effects.n);
	if (!jail || st->ev.effects.n > 0) {
		/* (the jail path's effects came back from the jail, unless
		 * its filter refused the input in here) */
		r->effects = arena_array(st->a, st->ev.effects.n + 1,
		    sizeof *r->effects);
		r->neffects = st->ev.effects.n;
		for (i = 0; i < r->neffects; i++) {
			const struct effect *e = &st->ev.effects.items[i];
			struct effect *c = &r->effects[i];
			*c = *e;
			c->op = arena_strdup(st->a, e->op);
			c->target = arena_strdup(st->a, e->target);
			c->category = e->category ?
			    arena_strdup(st->a, e->category) : NULL;
			c->text = e->text ? arena_strdup(st->a, e->text) : NULL;
		}
	}
	if (r->noutput == 0)
		output_of_prints(r, st->a);
	{
		struct record_file *fs;
		r->nfs = session_files(st->s, st->path, st->a, &fs);
		r->fs = fs;
	}
	r->budget_used = st->ps->used;
	r->budget_limit = session_budget_limit(st->s, st->path);
	/* (the code filter's name, where the policy's filter ran: a weak
	 * one's row names it, "dunder filter" -- not "allowlist") */
	if (st->kind->guard == GUARD_POLICY || (jail && st->s->jail_filter)) {
		const char *f = policy_filter_name(st->s->policy);
		/* (not libc's strncmp: 30 instructions of a --batch
		 * input for four bytes) */
		if (f[0] == 't' && f[1] == 'h' && f[2] == 'e' && f[3] == ' ')
			f += 4;
		r->filter = strcmp(f, "allowlist") == 0 ? NULL :
		    arena_strdup(st->a, f);
	}
	r->boundary = session_boundary_words(st->s, st->path);
	/* (a scenario's label too says gVisor's jail: the kind's tag) */
	if (label != NULL) {
		const char *parts[] = { label, st->kind->tag };
		r->label = concat(st->a, parts, 2);
	} else if (cmdname == NULL && st->kind->tag[0] == '\0') {
		r->label = path_row(st->path)->code_label;
	} else {
		const char *parts[] = { path_row(st->path)->adjective, " ",
		    cmdname ? cmdname : "code", st->kind->tag };
		r->label = concat(st->a, parts, 4);
	}
	{
		const struct trace_step ts = { .r = r, .a = st->a,
		    .path = st->path, .input = input, .len = len,
		    .is_command = cmdname != NULL,
		    .effects = st->ev.effects.items,
		    .neffects = st->ev.effects.n,
		    .filter = policy_filter_name(st->s->policy),
		    .kind = st->kind,
		    .world = st->world != NULL,
		    .restarted = st->restarted, .resumed = st->resumed,
		    .raised_after = st->raised_after, .essay = st->essay };
		/* harm done on the unsafe path lands: decided here, said
		 * by trace_render */
		if (trace_lands(&ts))
			r->verdict = VERDICT_LANDED;
		trace_render(&ts);
	}
}

size_t
session_files(struct session *s, enum path_id p, struct arena *a,
    struct record_file **out)
{
	struct mfs *fs = s->paths[p].fs;
	size_t n = mfs_count(fs), i;
	struct record_file *f = arena_array(a, n + 1, sizeof *f);

	for (i = 0; i < n; i++) {
		f[i].size = mfs_size(fs, i);
		f[i].name = arena_strdup(a, mfs_name(fs, i));
		f[i].mode = mfs_mode(fs, i);
		f[i].unreadable = mfs_unreadable(fs, i);
		if (s->panes) {
			unsigned char *d = arena_alloc(a, SHA256_BYTES);
			memcpy(d, mfs_digest(fs, i), SHA256_BYTES);
			f[i].digest = d;
		}
	}
	*out = f;
	return n;
}

/*
 * The input's tree as the AST pane draws it, one line per node with its
 * span and kind, or why it did not parse; in a.  (Made after the paths
 * ran, so that it does not count against their memory.)
 */
const struct record_tree *
records_tree(struct arena *a, const struct parse_result *pr)
{
	struct record_tree *t = arena_alloc(a, sizeof *t);
	struct record_treeline *l;
	struct ast_line *at;
	struct sbuf b = SBUF_INIT;
	size_t nat, k = 0, n = 0, i;
	const char *p, *end;

	if (pr->status != PARSE_OK) {
		t->error_class = pyexc_name(pr->error.cls);
		t->error_message = arena_strdup(a, pr->error.msg != NULL ?
		    pr->error.msg : "invalid syntax");
		t->error_start = pr->error.start;
		t->error_end = pr->error.end;
		return t;
	}
	ast_dump_tree_at(pr->root, &b, &at, &nat);
	for (i = 0; i < b.len; i++)
		n += b.data[i] == '\n';
	if (b.len > 0 && b.data[b.len - 1] != '\n')
		n++;
	t->rows = l = arena_array(a, n + 1, sizeof *l);
	t->nrows = n;
	for (i = 0, p = sbuf_cstr(&b), end = p + b.len; p < end; i++) {
		size_t len = strcspn(p, "\n"), off = (size_t)(p - b.data);
		l[i].text = arena_strndup(a, p, len);
		/* the dump's entries are in the order of the lines */
		while (k < nat && at[k].off < off)
			k++;
		if (k < nat && at[k].off == off && at[k].node != NULL) {
			l[i].kind = ast_kind_name(at[k].node->kind);
			l[i].start = at[k].node->start;
			l[i].end = at[k].node->end;
		}
		p += len + (p + len < end);
	}
	free(at);
	sbuf_free(&b);
	return t;
}
