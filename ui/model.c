/*
 * model.c -- the UI's copy of what happened, in a shape panes can draw.
 *
 * model_apply() is called once per input with that input's records.  It
 * appends one transcript entry per record, keeps the last verdict and
 * deciding layer per path for the strip, takes the input's tree from the
 * records (record.h: one line per node with its span and kind, or the
 * parse error), so that the line whose span and kind match the offending
 * node can be highlighted, and keeps each path's files as its last record
 * left them.  Those are compared with a baseline taken at start, :reset
 * and after set-up steps, by size and digest, so a deleted file stays on
 * screen, marked, as the essay's "report.txt and secrets.txt are gone".
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "sandbox/layers.h"
#include "model.h"
#include "base/sbuf.h"
#include "session/session.h"
#include "base/textesc.h"
#include "base/xalloc.h"

/* Transcripts keep this many entries per path; older ones scroll away. */
#define MAX_ENTRIES 1000
/* The log for :save keeps this many lines. */
#define MAX_LOG 100000

static void
free_entry(struct model_entry *e)
{
	free(e->label);
	free(e->shown);
	free(e->outcome);
	free(e->output);
}

/* A heap copy of s, one line a terminal shows as it is. */
static char *
escaped(const char *s)
{
	struct sbuf b = SBUF_INIT;
	char *c;

	textesc_add(&b, s, strlen(s), 0);
	c = xstrdup(sbuf_cstr(&b));
	sbuf_free(&b);
	return c;
}

/* Lines an entry shows of its output; the rest are counted. */
#define MAX_OUTPUT_LINES 200

/*
 * A record's output as the terminal would show it: the chunks in order,
 * one line per line written (a tab to the next multiple of 8, anything a
 * terminal would act on escaped), the last newline dropped; NULL when it
 * wrote nothing.
 */
static char *
output_lines(const struct record *r, size_t *dropped)
{
	struct sbuf b = SBUF_INIT;
	size_t i, k, col = 0, lines = 0, more = 0;
	char *s;

	for (i = 0; i < r->noutput; i++) {
		const char *t = r->output[i].text;
		size_t n = r->output[i].len;

		for (k = 0; k < n; k++) {
			if (t[k] == '\n') {
				if (lines >= MAX_OUTPUT_LINES)
					more++;
				else
					sbuf_addc(&b, '\n');
				lines++;
				col = 0;
			} else if (lines >= MAX_OUTPUT_LINES)
				continue;
			else if (t[k] == '\t') {
				do
					sbuf_addc(&b, ' ');
				while (++col % 8 != 0);
			} else {
				size_t m = 1;
				while (k + m < n && t[k + m] != '\n' &&
				    t[k + m] != '\t')
					m++;
				textesc_add(&b, t + k, m, 0);
				col += m;
				k += m - 1;
			}
		}
	}
	if (b.len > 0 && b.data[b.len - 1] == '\n')
		b.data[--b.len] = '\0';
	*dropped = 0;
	if (more > 1) {
		sbuf_addf(&b, "\n... %zu more lines", more - 1);
		*dropped = more - 1;
	}
	if (b.len == 0) {
		sbuf_free(&b);
		return NULL;
	}
	s = xstrdup(sbuf_cstr(&b));
	sbuf_free(&b);
	return s;
}

static void
free_files(struct model_file **f, size_t *n)
{
	size_t i;
	for (i = 0; i < *n; i++)
		free((*f)[i].name);
	free(*f);
	*f = NULL;
	*n = 0;
}

/* A heap copy of n files (a record's, or a copy's). */
static struct model_file *
copy_files(const struct model_file *from, size_t n)
{
	struct model_file *f = xcalloc(n + 1, sizeof *f);
	size_t i;

	for (i = 0; i < n; i++) {
		f[i] = from[i];
		f[i].name = xstrdup(from[i].name);
	}
	return f;
}

/* Path p's files become those a record (or session_files) gives. */
static void
take_files(struct model_path *mp, const struct record_file *fs, size_t n)
{
	size_t i;

	free_files(&mp->now, &mp->nnow);
	mp->now = xcalloc(n + 1, sizeof *mp->now);
	for (i = 0; i < n; i++) {
		struct model_file *f = &mp->now[i];
		f->name = xstrdup(fs[i].name);
		f->mode = fs[i].mode;
		f->unreadable = fs[i].unreadable;
		f->size = fs[i].size;
		if (fs[i].digest != NULL)
			memcpy(f->digest, fs[i].digest, sizeof f->digest);
	}
	mp->nnow = n;
}

static void
free_last_input(struct model *m)
{
	size_t i;
	for (i = 0; i < m->nast; i++)
		free(m->ast[i].text);
	free(m->ast);
	m->ast = NULL;
	m->nast = 0;
	m->ast_hl = -1;
	free(m->input);
	m->input = NULL;
	free(m->span_note);
	m->span_note = NULL;
	free(m->parse_error);
	m->parse_error = NULL;
	m->has_span = false;
}

void
model_init(struct model *m, struct session *s)
{
	memset(m, 0, sizeof *m);
	m->s = s;
	m->ast_hl = -1;
	model_rebase(m);
}

void
model_free(struct model *m)
{
	size_t p, i;
	for (p = 0; p < PATH__COUNT; p++) {
		struct model_path *mp = &m->paths[p];
		for (i = 0; i < mp->n; i++)
			free_entry(&mp->entries[i]);
		free(mp->entries);
		free_files(&mp->base, &mp->nbase);
		free_files(&mp->now, &mp->nnow);
		free(mp->rows);
	}
	for (i = 0; i < m->nlog; i++)
		free(m->log[i]);
	free(m->log);
	free_last_input(m);
}

void
model_clear(struct model *m)
{
	size_t p, i;
	for (p = 0; p < PATH__COUNT; p++) {
		struct model_path *mp = &m->paths[p];
		for (i = 0; i < mp->n; i++)
			free_entry(&mp->entries[i]);
		mp->n = 0;
		mp->last.valid = false;
	}
	for (i = 0; i < m->nlog; i++)
		free(m->log[i]);
	m->nlog = 0;
	m->unsaved = 0;
	free_last_input(m);
	model_rebase(m);
}

void
model_rebase(struct model *m)
{
	size_t p;
	for (p = 0; p < PATH__COUNT; p++) {
		struct model_path *mp = &m->paths[p];
		struct arena *a = arena_new();
		struct record_file *fs;
		size_t n = session_files(m->s, (enum path_id)p, a, &fs);
		take_files(mp, fs, n);
		free_files(&mp->base, &mp->nbase);
		mp->base = copy_files(mp->now, mp->nnow);
		mp->nbase = mp->nnow;
		arena_free(a);
	}
}

static void
log_line(struct model *m, const char *line)
{
	if (m->nlog >= MAX_LOG)
		return;
	m->log = xreallocarray(m->log, m->nlog + 1, sizeof *m->log);
	m->log[m->nlog++] = xstrdup(line);
}

static struct model_entry *
new_entry(struct model_path *mp)
{
	if (mp->n >= MAX_ENTRIES) {
		free_entry(&mp->entries[0]);
		memmove(mp->entries, mp->entries + 1,
		    (mp->n - 1) * sizeof *mp->entries);
		mp->n--;
	}
	mp->entries = xreallocarray(mp->entries, mp->n + 1,
	    sizeof *mp->entries);
	memset(&mp->entries[mp->n], 0, sizeof *mp->entries);
	return &mp->entries[mp->n++];
}

void
model_note(struct model *m, unsigned mask, const char *text)
{
	struct sbuf b = SBUF_INIT;
	size_t p;
	if (mask == 0)
		mask = session_paths(m->s);
	/* one line of text, like a trace line, whatever the note quotes */
	textesc_add(&b, text, strlen(text), 0);
	m->seq++;
	for (p = 0; p < PATH__COUNT; p++) {
		struct model_entry *e;
		if (!(mask & PATH_BIT(p)))
			continue;
		e = new_entry(&m->paths[p]);
		e->is_note = true;
		e->outcome = xstrdup(sbuf_cstr(&b));
		e->seq = m->seq;
	}
	log_line(m, sbuf_cstr(&b));
	sbuf_free(&b);
}

/* The input's tree (or parse error) from its records. */
static void
take_tree(struct model *m, const struct record_tree *t)
{
	size_t i;

	if (t->error_class != NULL) {
		m->parse_error = xasprintf("%s: %s", t->error_class,
		    t->error_message);
		/* A caret even at the end of the input ("1 +"). */
		m->has_span = true;
		m->span_start = t->error_start;
		m->span_end = t->error_end > t->error_start ? t->error_end :
		    t->error_start + 1;
		return;
	}
	m->ast = xcalloc(t->nrows + 1, sizeof *m->ast);
	for (i = 0; i < t->nrows; i++) {
		m->ast[i].text = xstrdup(t->rows[i].text);
		m->ast[i].start = t->rows[i].start;
		m->ast[i].end = t->rows[i].end;
	}
	m->nast = t->nrows;
}

/* An ok value a CPython world computed, which its trace line marks
 * "= " (trace.c)? */
static bool
is_world_value(const struct record *r)
{
	return r->verdict == VERDICT_OK && r->kind == KIND_CODE &&
	    r->engine != NULL && strcmp(r->engine, "cpython") == 0 &&
	    r->outcome != NULL && strncmp(r->outcome, "= ", 2) == 0;
}

void
model_apply(struct model *m, const char *input, size_t len,
    const struct record *r, size_t n)
{
	const struct record *hl = NULL;
	const struct record_tree *tree = NULL;
	size_t i;
	unsigned noded = 0;	/* the paths whose records name a node */
	enum path_id first;

	m->seq++;
	for (i = 0; i < n; i++) {
		struct model_path *mp = &m->paths[r[i].path];
		struct model_entry *e = new_entry(mp);
		e->step = r[i].step;
		e->seq = m->seq;
		e->verdict = r[i].verdict;
		e->label = xstrdup(r[i].label ? r[i].label : "");
		/* The input as typed (the trace's repr quotes code); a
		 * scenario's steps keep their label, as the essay reads. */
		if (r[i].source != NULL && strcmp(r[i].source, "scenario") == 0)
			e->shown = xasprintf("%s: %s", e->label,
			    r[i].input ? r[i].input : "");
		else
			e->shown = xstrdup(r[i].input ? r[i].input : "");
		e->output = output_lines(&r[i], &e->output_dropped);
		/* What it wrote is on the rows above: an ok row says the
		 * value, as the prompt echoes it, not "printed '...'"
		 * again (nor "ok" for a statement that has none).  (A
		 * CPython world's value comes marked "= " (trace.c): the
		 * pane marks every outcome itself, "= ok 2".) */
		if (r[i].verdict == VERDICT_OK && r[i].kind == KIND_CODE &&
		    (e->output != NULL || r[i].result == NULL))
			e->outcome = escaped(r[i].result != NULL &&
			    strcmp(r[i].result, "None") != 0 ? r[i].result :
			    "");
		else
			e->outcome = xstrdup(r[i].outcome == NULL ? "" :
			    is_world_value(&r[i]) ? r[i].outcome + 2 :
			    r[i].outcome);
		/* (the session's verdict: harm inside a jail's copy) */
		e->inside = r[i].verdict == VERDICT_INSIDE;
		mp->last.valid = true;
		mp->last.bypassed = r[i].verdict == VERDICT_BYPASSED;
		mp->last.verdict = r[i].verdict;
		mp->last.layer = r[i].layer;
		mp->last.kind = r[i].kind;
		mp->last.fs_partial = r[i].fs_partial;
		take_files(mp, r[i].fs, r[i].nfs);
		if (tree == NULL)
			tree = r[i].tree;
		log_line(m, r[i].line ? r[i].line : "");
	}
	if (n > 0)
		m->unsaved++;
	/* the span shown: the node the foremost path's record names (the
	 * policy's, else a kernel's, else the unsafe path's) */
	for (i = 0; i < n; i++)
		if (r[i].has_node)
			noded |= PATH_BIT(r[i].path);
	first = path_foremost(noded);
	for (i = 0; hl == NULL && i < n; i++)
		if (r[i].path == first && r[i].has_node)
			hl = &r[i];

	free_last_input(m);
	m->input = xstrndup(input, len);
	if (tree != NULL)
		take_tree(m, tree);
	if (hl != NULL) {
		m->has_span = true;
		m->span_start = hl->node_start;
		m->span_end = hl->node_end;
		m->span_path = hl->path;
		m->span_note = xasprintf("%s: %s", hl->node_type ?
		    hl->node_type : "node", hl->reason ? hl->reason :
		    record_verdict_name(hl->verdict));
		/* (the model's tree lines are the record's, in order) */
		for (i = 0; i < m->nast; i++)
			if (tree->rows[i].kind != NULL &&
			    tree->rows[i].start == hl->node_start &&
			    tree->rows[i].end == hl->node_end &&
			    (hl->node_type == NULL ||
			    strcmp(tree->rows[i].kind, hl->node_type) == 0)) {
				m->ast_hl = (long)i;
				break;
			}
	}
}

static int
cmp_rows(const void *x, const void *y)
{
	const struct model_fsrow *a = x, *b = y;
	return strcmp(a->name, b->name);
}

/* A CPython world's entry that is not a plain file (mockfs.h): its
 * kind, or its mode when not the usual one, and whether it could be
 * read. */
static void
fs_note(const struct model_file *f, char *buf, size_t n)
{
	unsigned mode = f->mode;
	const char *kind = S_ISLNK(mode) ? "link" : S_ISFIFO(mode) ? "fifo" :
	    S_ISSOCK(mode) ? "socket" : S_ISCHR(mode) || S_ISBLK(mode) ?
	    "device" : NULL;
	bool usual = (mode & 07777) == (S_ISDIR(mode) ? 0755u : 0644u);

	if (kind != NULL)
		snprintf(buf, n, "%s", kind);
	else if (f->unreadable)
		snprintf(buf, n, "mode %03o, unreadable", mode & 07777);
	else if (!usual)
		snprintf(buf, n, "mode %03o", mode & 07777);
	else
		buf[0] = '\0';
}

/* The baseline's file of that name, or NULL. */
static const struct model_file *
find_file(const struct model_file *f, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(f[i].name, name) == 0)
			return &f[i];
	return NULL;
}

size_t
model_fs_rows(struct model *m, enum path_id p, const struct model_fsrow **rows)
{
	struct model_path *mp = &m->paths[p];
	size_t i, k = 0;

	mp->rows = xreallocarray(mp->rows, mp->nnow + mp->nbase + 1,
	    sizeof *mp->rows);
	for (i = 0; i < mp->nnow; i++) {
		const struct model_file *f = &mp->now[i];
		const struct model_file *b = find_file(mp->base, mp->nbase,
		    f->name);
		mp->rows[k].name = f->name;
		fs_note(f, mp->rows[k].note, sizeof mp->rows[k].note);
		mp->rows[k++].mark = b == NULL ? FS_CREATED :
		    b->size == f->size && memcmp(b->digest, f->digest,
		    sizeof f->digest) == 0 ? FS_SAME : FS_CHANGED;
	}
	for (i = 0; i < mp->nbase; i++)
		if (find_file(mp->now, mp->nnow, mp->base[i].name) == NULL) {
			mp->rows[k].name = mp->base[i].name;
			mp->rows[k].note[0] = '\0';
			mp->rows[k++].mark = FS_DELETED;
		}
	qsort(mp->rows, k, sizeof *mp->rows, cmp_rows);
	mp->nrows = k;
	*rows = mp->rows;
	return k;
}

/* A layer that stops code while it runs (the sandbox's caps, a world's
 * rlimits and wall clock): where a path's strip has no place of its own
 * for it, it names the evaluation's place. */
static bool
stops_evaluation(enum layer l)
{
	return l == LAYER_LIMITS || l == LAYER_TIMEOUT || l == LAYER_RLIMIT;
}

/*
 * The strip: the layers an input meets on the path, in order, as the
 * sandbox's table has them (layers.h), and where the path's last record
 * stopped.
 */
size_t
model_strip(const struct model *m, enum path_id p,
    struct strip_item out[STRIP_MAX])
{
	const struct model_last *last = &m->paths[p].last;
	enum layer seq[STRIP_MAX];
	size_t n, i, stop, bypass_at;
	bool is_cmd = last->valid && last->kind == KIND_COMMAND;
	bool found = false;

	/* (the jail path under --jail=gvisor has gVisor's layers) */
	n = layers_path(session_boundary(m->s, p)->id,
	    is_cmd ? KIND_COMMAND : KIND_CODE, seq);
	/* The deciding layer's place; a limit or a timeout stops the
	 * evaluation, and names its place in the strip (the record's
	 * layer, not "eval"). */
	stop = n - 1;
	for (i = 0; last->valid && i < n; i++)
		if (seq[i] == last->layer) {
			stop = i;
			found = true;
			break;
		}
	/* A layer this path does not usually have (the sandbox's checks
	 * run in front of the jail with --jail-filter): show it after
	 * parsing, where it ran. */
	if (last->valid && !found && !stops_evaluation(last->layer) &&
	    last->layer != LAYER_EVAL && n < STRIP_MAX) {
		memmove(seq + 2, seq + 1, (n - 1) * sizeof *seq);
		seq[1] = last->layer;
		n++;
		stop = 1;
	}
	/* A bypass: the filter that decided let the input through, and it
	 * went on to run; the evaluation is where it ended. */
	bypass_at = last->valid && last->bypassed ? stop : n;
	if (bypass_at < n)
		stop = n - 1;
	for (i = 0; i < n; i++) {
		out[i].name = seq[i] == LAYER_EVAL ? (last->valid && !found &&
		    stops_evaluation(last->layer) ?
		    record_layer_name(last->layer) : is_cmd ? "effect" :
		    "eval") : record_layer_name(seq[i]);
		if (!last->valid)
			out[i].mark = STRIP_UNREACHED;
		else if (i == bypass_at)
			out[i].mark = STRIP_BYPASSED;
		else if (i < stop)
			out[i].mark = STRIP_PASSED;
		else if (i > stop)
			out[i].mark = STRIP_UNREACHED;
		else
			out[i].mark = last->verdict == VERDICT_OK ||
			    last->verdict == VERDICT_LANDED ||
			    last->verdict == VERDICT_INSIDE ||
			    last->verdict == VERDICT_BYPASSED ? STRIP_DONE :
			    STRIP_STOPPED;
	}
	return n;
}

bool
model_save(struct model *m, const char *path)
{
	FILE *f = fopen(path, "w");
	size_t i;
	int saved;
	if (f == NULL)
		return false;
	for (i = 0; i < m->nlog; i++)
		fprintf(f, "%s\n", m->log[i]);
	if (ferror(f)) {
		saved = errno;
		fclose(f);
		errno = saved;
		return false;
	}
	if (fclose(f) != 0)
		return false;
	m->unsaved = 0;
	return true;
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

void
model_copy(struct model *dst, const struct model *src)
{
	size_t p, i;

	*dst = *src;
	for (p = 0; p < PATH__COUNT; p++) {
		const struct model_path *sp = &src->paths[p];
		struct model_path *dp = &dst->paths[p];

		dp->entries = xcalloc(sp->n + 1, sizeof *dp->entries);
		for (i = 0; i < sp->n; i++) {
			dp->entries[i] = sp->entries[i];
			dp->entries[i].label = dup_or_null(sp->entries[i].label);
			dp->entries[i].shown = dup_or_null(sp->entries[i].shown);
			dp->entries[i].outcome =
			    dup_or_null(sp->entries[i].outcome);
			dp->entries[i].output =
			    dup_or_null(sp->entries[i].output);
		}
		dp->base = copy_files(sp->base, sp->nbase);
		dp->now = copy_files(sp->now, sp->nnow);
		dp->rows = NULL;
		dp->nrows = 0;
	}
	dst->log = xcalloc(src->nlog + 1, sizeof *dst->log);
	for (i = 0; i < src->nlog; i++)
		dst->log[i] = xstrdup(src->log[i]);
	dst->input = dup_or_null(src->input);
	dst->ast = xcalloc(src->nast + 1, sizeof *dst->ast);
	for (i = 0; i < src->nast; i++) {
		dst->ast[i] = src->ast[i];
		dst->ast[i].text = xstrdup(src->ast[i].text);
	}
	dst->span_note = dup_or_null(src->span_note);
	dst->parse_error = dup_or_null(src->parse_error);
}

static size_t
len0(const char *s)
{
	return s != NULL ? strlen(s) + 1 : 0;
}

size_t
model_bytes(const struct model *m)
{
	size_t n = sizeof *m, p, i;

	for (p = 0; p < PATH__COUNT; p++) {
		const struct model_path *mp = &m->paths[p];
		for (i = 0; i < mp->n; i++)
			n += sizeof mp->entries[i] +
			    len0(mp->entries[i].label) +
			    len0(mp->entries[i].shown) +
			    len0(mp->entries[i].outcome) +
			    len0(mp->entries[i].output);
		for (i = 0; i < mp->nbase; i++)
			n += sizeof mp->base[i] + strlen(mp->base[i].name) + 1;
		for (i = 0; i < mp->nnow; i++)
			n += sizeof mp->now[i] + strlen(mp->now[i].name) + 1;
	}
	for (i = 0; i < m->nlog; i++)
		n += sizeof *m->log + strlen(m->log[i]) + 1;
	for (i = 0; i < m->nast; i++)
		n += sizeof *m->ast + strlen(m->ast[i].text) + 1;
	return n + len0(m->input) + len0(m->span_note) +
	    len0(m->parse_error);
}
