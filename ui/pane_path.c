/*
 * pane_path.c -- one path's column: a header naming its controls, the
 * layer strip of the last input, the budget gauge (sandbox), the
 * transcript coloured by verdict, and the filesystem box on the right.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/policy.h"
#include "session/session.h"
#include "uipriv.h"
#include "base/xalloc.h"

/* A wrapped transcript row. */
enum row_kind { RK_INPUT, RK_OUTPUT, RK_VERDICT, RK_FOLD };
struct row {
	const char	*s;
	size_t		 len;
	int		 attr;
	int		 indent;
	const char	*prefix;
	int		 prefix_attr;
	enum row_kind	 kind;
	size_t		 more;		/* RK_FOLD: the lines folded */
	bool		 by_rows;	/* or the rows */
};

bool
pane_path_in_world(const struct ui *u, enum path_id p)
{
	const char *engine = session_engine(u->s, p);

	return engine != NULL && strcmp(engine, "cpython") == 0;
}

/* A policy's header: its name and what it checks, or a scenario's step
 * run once per policy (all of them), the longest that fits. */
static const char *
policy_controls(const struct ui *u, enum path_id p, int width, char *buf,
    size_t size)
{
	const struct policy *pol = session_policy(u->s);
	const char *name = pol ? pol->name : "?", *head = path_row(p)->heading;

	if (play_policies(u) != NULL) {
		const char *l = play_policies(u);
		char list[128];
		size_t n = 0, k = 1;
		for (; *l != '\0' && n + 1 < sizeof list; l++)
			if (*l != ' ' && *l != '\t')
				list[n++] = *l;
			else if (n > 0 && list[n - 1] != ',') {
				list[n++] = ',';
				k++;
			}
		list[n] = '\0';
		snprintf(buf, size, "%s  policies %s: a row each", head, list);
		if ((int)strlen(buf) > width)
			snprintf(buf, size, "%s  policies %s", head, list);
		if ((int)strlen(buf) > width)
			snprintf(buf, size, "%s  %s", head, list);
		if ((int)strlen(buf) > width)
			snprintf(buf, size, "%s  %zu policies", head, k);
		return buf;
	}
	/* (a policy wider than the essay's subset runs in CPython) */
	if (strcmp(session_engine(u->s, p), "cpython") == 0) {
		snprintf(buf, size, "%s  policy %s, run in an offline CPython "
		    "world: %s", head, name, pol && pol->summary ?
		    pol->summary : "");
		if ((int)strlen(buf) > width)
			snprintf(buf, size, "%s  policy %s, offline CPython "
			    "world", head, name);
		if ((int)strlen(buf) > width)
			snprintf(buf, size, "%s  %s in CPython", head, name);
		if ((int)strlen(buf) <= width)
			return buf;
	}
	snprintf(buf, size, "%s  policy %s: %s", head, name,
	    pol && pol->summary ? pol->summary : "");
	if ((int)strlen(buf) > width)
		snprintf(buf, size, "%s  policy %s: allowlist, budget, no "
		    "network, idempotent writes", head, name);
	if ((int)strlen(buf) > width)
		snprintf(buf, size, "%s  %s: allowlist, budget, no net, "
		    "idempotent", head, name);
	if ((int)strlen(buf) > width)
		snprintf(buf, size, "%s  policy %s", head, name);
	if ((int)strlen(buf) > width)
		snprintf(buf, size, "%s %s", head, name);
	return buf;
}

/* The header naming the path's controls: the longest wording that fits
 * in width columns, from its boundary's row (the one in force: :jail
 * turns the jail path's). */
static const char *
controls(const struct ui *u, enum path_id p, int width, char *buf,
    size_t size)
{
	const struct boundary_row *b = session_boundary(u->s, p);
	const char *const *alt = b->headings;
	size_t i;

	if (alt == NULL)
		return policy_controls(u, p, width, buf, size);
	if (b->headings_world != NULL && pane_path_in_world(u, p))
		alt = b->headings_world;
	for (i = 0; alt[i + 1] != NULL; i++)
		if ((int)strlen(alt[i]) <= width)
			break;
	return alt[i];
}

/*
 * A world booting ahead (a microVM, while the welcome is read): "booting
 * 6s (tcg, emulated: slow)", then "up in 11s" until its first input.
 * Its width, or 0 for nothing.
 */
static int
boot_state(const struct ui *u, enum path_id p, char *buf, size_t size)
{
	const char *words = session_boundary_words(u->s, p);
	const char *how = strchr(words, '(');
	double secs;
	bool ready;
	int n;

	if (!session_booting(u->s, p, &secs, &ready))
		return 0;
	n = ready ? snprintf(buf, size, "up in %.0fs", secs) :
	    snprintf(buf, size, "booting %.0fs%s%s", secs, how ? " " : "",
	    how ? how : "");
	return n > 0 && (size_t)n < size ? n : 0;
}

static int
strip_attr(const struct ui *u, enum strip_mark m)
{
	switch (m) {
	case STRIP_PASSED:
		return draw_attr(u, UC_OK);
	case STRIP_DONE:
		return draw_attr(u, UC_OK) | A_BOLD;
	case STRIP_STOPPED:
		return draw_attr(u, UC_BLOCKED) | A_BOLD | A_REVERSE;
	case STRIP_BYPASSED:
		return draw_attr(u, UC_DAMAGE) | A_BOLD | A_REVERSE;
	default:
		return draw_attr(u, UC_DIM);
	}
}

/* Shorter names for the strip in a narrow column, three letters then
 * two, no two alike at either length (eval and effect: evl ev, eff ef);
 * the help pane's legend spells them out.  A layer not listed (gvisor,
 * and limits or timeout, which only show where they decide) keeps its
 * name. */
static const struct {
	const char	*name, *abbr3, *abbr2;
} short_names[] = {
	{ "parse", "prs", "pa" }, { "commands", "cmd", "cm" },
	{ "allowlist", "alw", "al" }, { "budget", "bud", "bu" },
	{ "surface", "srf", "su" }, { "network", "net", "ne" },
	{ "idempotency", "idm", "id" }, { "eval", "evl", "ev" },
	{ "effect", "eff", "ef" }, { "namespace", "nsp", "ns" },
	{ "landlock", "lck", "ll" }, { "seccomp", "sec", "sc" },
	{ "rlimit", "rlm", "rl" },
};

/* The name of a strip item at a level of shortening (0: full, 1: three
 * letters, 2: two). */
static void
strip_name(const char *name, int level, char *buf, size_t size)
{
	size_t i;

	for (i = 0; level > 0 && i < sizeof short_names /
	    sizeof short_names[0]; i++)
		if (strcmp(short_names[i].name, name) == 0) {
			name = level == 1 ? short_names[i].abbr3 :
			    short_names[i].abbr2;
			level = 0;
		}
	snprintf(buf, size, "%s", name);
}

/* The strip on one row: "layers:" and the full names when they fit, else
 * the names alone, else three-letter names, spaced then not (the marks
 * still part them), else two-letter names; while it fits, the deciding
 * layer keeps its full name.  (Two letters fit the sandbox's eight
 * command layers in a 26-cell column.) */
static void
draw_strip(struct ui *u, struct rect r, int row, enum path_id p)
{
	static const char marks[] = "+!*.?";
	static const struct {
		int	 abbr, gap;
		bool	 label, keep;
	} levels[] = { { 0, 1, true, true }, { 0, 1, false, true },
	    { 1, 1, false, true }, { 1, 1, false, false },
	    { 1, 0, false, true }, { 1, 0, false, false },
	    { 2, 1, false, true }, { 2, 1, false, false },
	    { 2, 0, false, true }, { 2, 0, false, false } };
	struct strip_item it[STRIP_MAX];
	size_t n = model_strip(&u->m, p, it), i, lv;
	int x = 0, want;
	char buf[40];

	for (lv = 0; lv < sizeof levels / sizeof levels[0] - 1; lv++) {
		want = levels[lv].label ? 7 + levels[lv].gap : 0;
		for (i = 0; i < n; i++) {
			strip_name(it[i].name, levels[lv].keep &&
			    it[i].mark != STRIP_PASSED && it[i].mark !=
			    STRIP_UNREACHED ? 0 : levels[lv].abbr, buf,
			    sizeof buf);
			want += 1 + (int)strlen(buf) +
			    (i + 1 < n ? levels[lv].gap : 0);
		}
		if (want <= r.w)
			break;
	}
	if (levels[lv].label)
		x = draw_text(r, row, 0, draw_attr(u, UC_DIM), "layers:") + 1;
	for (i = 0; i < n; i++) {
		char item[48];
		strip_name(it[i].name, levels[lv].keep && it[i].mark !=
		    STRIP_PASSED && it[i].mark != STRIP_UNREACHED ? 0 :
		    levels[lv].abbr, buf, sizeof buf);
		snprintf(item, sizeof item, "%c%s", marks[it[i].mark], buf);
		x += draw_text(r, row, x, strip_attr(u, it[i].mark), item) +
		    levels[lv].gap;
	}
}

static void
draw_gauge(struct ui *u, struct rect r, int row, enum path_id p)
{
	unsigned used = session_budget_used(u->s, p);
	unsigned limit = session_budget_limit(u->s, p);
	char buf[64];
	int x, bar, fill, i;

	/* One unit per input that passes the allowlist (budget.c): the
	 * gauge counts inputs. */
	snprintf(buf, sizeof buf, "budget %u/%u inputs ", used, limit);
	x = draw_text(r, row, 0, draw_attr(u, UC_DIM), buf);
	bar = r.w - x - 2;
	if (bar > 12)
		bar = 12;
	if (bar < 4)
		return;
	fill = limit ? (int)((unsigned long long)used * (unsigned)bar /
	    limit) : bar;
	if (used > 0 && fill == 0)
		fill = 1;
	draw_text(r, row, x++, A_NORMAL, "[");
	for (i = 0; i < bar; i++)
		draw_text(r, row, x++, i < fill ? draw_attr(u, used >= limit ?
		    UC_BLOCKED : UC_OK) : draw_attr(u, UC_DIM),
		    i < fill ? "#" : ".");
	draw_text(r, row, x, A_NORMAL, "]");
}

/*
 * The transcripts share one grid: each input (or note) is a block that
 * starts on the same row in every column, the shorter cells padded with
 * blank rows, so the same input reads across.  Live, a block's long
 * parts are folded: a part longer than half the rows keeps its first rows
 * and a "... N more lines" marker, and the output gives way (then the
 * input, down to its first row) until the verdict starts within the
 * rows; the view shows the newest block from its first row, and as many
 * rows before it as fit.  Open (PgUp/PgDn), every row is there.
 */

/* One column's rows, and where each block's start. */
struct gcol {
	struct row	*rows;
	size_t		 n, cap;
	size_t		*first;		/* per block its first row;
					   first[nb] is n */
};

struct grid {
	bool		 built;
	size_t		 nb;		/* blocks */
	unsigned	*seq;		/* each block's seq, ascending */
	int		*start;		/* its grid row; start[nb]: all rows */
	struct gcol	 col[PATH__COUNT];
};

/* Between grid_begin and _end: the shown columns' transcript
 * rectangles and the grid in each shape, built when first drawn. */
static struct {
	bool		 on;
	struct rect	 t[PATH__COUNT];
	int		 h;		/* the lowest transcript's rows */
	struct grid	 g[2];		/* [0] live (folded), [1] open */
} G;

static struct row *
new_row(struct gcol *c)
{
	struct row *rw;

	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->rows = xreallocarray(c->rows, c->cap, sizeof *c->rows);
	}
	rw = &c->rows[c->n++];
	memset(rw, 0, sizeof *rw);
	return rw;
}

static void
add_rows(struct gcol *c, const char *s, size_t len, int attr, int width,
    const char *prefix, int prefix_attr, enum row_kind kind)
{
	int pw = prefix ? (int)strlen(prefix) : 0;
	bool first = true;
	do {
		size_t take = draw_wrap(s, len, width - pw);
		struct row *rw = new_row(c);
		rw->s = s;
		rw->len = take;
		rw->attr = attr;
		rw->indent = pw;
		rw->prefix = first ? prefix : NULL;
		rw->prefix_attr = prefix_attr;
		rw->kind = kind;
		s += take;
		len -= take;
		/* A row does not start with the space it broke at. */
		while (len > 0 && *s == ' ' && take > 0) {
			s++;
			len--;
		}
		first = false;
	} while (len > 0);
}

/* The lines rows [from, to) show some of (a row with a prefix starts
 * one). */
static size_t
count_lines(const struct row *r, size_t from, size_t to)
{
	size_t n = from < to && r[from].prefix == NULL;

	for (; from < to; from++)
		n += r[from].prefix != NULL;
	return n;
}

/* Rows a part of k rows wants at most: all of them, or cap when a fold
 * would hide two rows at least. */
static size_t
soft_cap(size_t k, size_t cap)
{
	return k <= cap + 1 ? k : cap;
}

/* Take up to *over rows from *want, down to least. */
static void
give_way(size_t *want, size_t least, size_t *over)
{
	size_t take = *want > least ? *want - least : 0;

	if (take > *over)
		take = *over;
	*want -= take;
	*over -= take;
}

/* Copy rows [from, from + k) of r to w as want rows: all of them, or
 * want - 1 and a marker counting the rest. */
static size_t
put_part(struct row *r, size_t w, size_t from, size_t k, size_t want,
    int mark_attr, size_t dropped)
{
	size_t shown = want >= k ? k : want > 0 ? want - 1 : 0;
	struct row mark;

	memset(&mark, 0, sizeof mark);
	if (shown < k) {
		size_t lines = count_lines(r, from + shown, from + k);
		mark.kind = RK_FOLD;
		mark.attr = mark_attr;
		/* a line's end or one long line (a value) counts in rows */
		mark.by_rows = r[from + shown].prefix == NULL &&
		    (lines == 1 || k - shown > 2 * lines);
		mark.more = mark.by_rows ? k - shown : lines + dropped -
		    (dropped > 0);
	}
	memmove(r + w, r + from, shown * sizeof *r);
	w += shown;
	if (shown < k)
		r[w++] = mark;
	return w;
}

/* Fold an entry's rows [at, end) (its input, output, verdict) to h rows
 * at most.  The output and the verdict keep half of half_h at most;
 * then, while the entry is higher than h, the output gives way (down to
 * a marker), then the input (down to its first row), then the verdict
 * (down to its first row, the word and the layer).  A marker counts the
 * lines it folds, and the output's lines dropped before (its last line
 * counts them). */
static void
fold_entry(struct gcol *c, size_t at, size_t end, int h, int half_h,
    int mark_attr, size_t dropped)
{
	struct row *r = c->rows + at;
	size_t n = end - at, a = 0, b = 0, v, half, wa, wb, wv, over, w;

	while (a < n && r[a].kind == RK_INPUT)
		a++;
	while (a + b < n && r[a + b].kind == RK_OUTPUT)
		b++;
	v = n - a - b;
	half = half_h / 2 > 2 ? (size_t)half_h / 2 : 2;
	wa = a;
	wb = soft_cap(b, half);
	wv = soft_cap(v, half);
	over = h > 0 && wa + wb + wv > (size_t)h ? wa + wb + wv - (size_t)h :
	    0;
	give_way(&wb, b < 1 ? b : 1, &over);
	give_way(&wa, a < 2 ? a : 2, &over);
	give_way(&wv, v < 2 ? v : 2, &over);
	if (wa == a && wb == b && wv == v)
		return;
	w = put_part(r, 0, 0, a, wa, mark_attr, 0);
	w = put_part(r, w, a, b, wb, mark_attr, dropped);
	w = put_part(r, w, a + b, v, wv, mark_attr, 0);
	/* (the rows after the entry move up) */
	memmove(r + w, c->rows + end, (c->n - end) * sizeof *r);
	c->n -= n - w;
}

/* One entry's rows: the input as typed, what it wrote, its verdict. */
static void
entry_rows(struct ui *u, struct gcol *c, const struct model_entry *e,
    int width, bool repeat)
{
	size_t at = c->n;
	const char *line;
	bool first;

	if (e->is_note)
		add_rows(c, e->outcome, strlen(e->outcome),
		    draw_attr(u, UC_DIM), width, "  ", A_NORMAL, RK_OUTPUT);
	else {
		/* An input of several lines shows them as typed. */
		for (line = e->shown, first = true; first || *line != '\0';
		    first = false) {
			size_t len = strcspn(line, "\n");
			add_rows(c, line, len, A_NORMAL, width,
			    first ? "> " : ". ", draw_attr(u, UC_DIM),
			    RK_INPUT);
			line += len + (line[len] == '\n');
		}
		/* The same input as the entry above (another policy's run):
		 * its first row, with its label, is enough. */
		if (repeat)
			c->n = at + 1;
		/* What it wrote, as the terminal shows it, above its
		 * verdict (as python3 prints above the echoed value). */
		for (line = e->output; line != NULL && *line != '\0';) {
			size_t len = strcspn(line, "\n");
			add_rows(c, line, len, A_NORMAL, width, "  ",
			    A_NORMAL, RK_OUTPUT);
			line += len + (line[len] == '\n');
		}
		/* (harm done inside a jail's copy is INSIDE, in its own
		 * colour: not a plain green ok, nor CONTAINED) */
		add_rows(c, e->outcome, strlen(e->outcome),
		    draw_verdict_attr(u, e->verdict), width,
		    e->verdict == VERDICT_OK ? "  = ok " :
		    e->verdict == VERDICT_ERROR ? "  = error " : "  = ",
		    draw_verdict_attr(u, e->verdict), RK_VERDICT);
	}
}

static size_t
dropped_of(const struct model_entry *e)
{
	return e->is_note ? 0 : e->output_dropped;
}

/* The input as typed, without a scenario's label. */
static const char *
bare_input(const struct model_entry *e)
{
	size_t n = e->label != NULL ? strlen(e->label) : 0;

	if (n > 0 && strncmp(e->shown, e->label, n) == 0 &&
	    strncmp(e->shown + n, ": ", 2) == 0)
		return e->shown + n + 2;
	return e->shown;
}

static bool
same_input(const struct model_entry *a, const struct model_entry *b)
{
	return !a->is_note && !b->is_note && a->shown != NULL &&
	    b->shown != NULL && strcmp(bare_input(a), bare_input(b)) == 0;
}

static int
cmp_seq(const void *x, const void *y)
{
	unsigned a = *(const unsigned *)x, b = *(const unsigned *)y;

	return a < b ? -1 : a > b;
}

static bool
grid_shows(const struct ui *u, int p)
{
	return G.on && (u->col_shown & PATH_BIT(p)) != 0;
}

/* The grid in one shape, built on first use. */
static struct grid *
grid_get(struct ui *u, bool open)
{
	struct grid *g = &G.g[open];
	size_t total = 0, k = 0, i, b, nb;
	/* (past the first block, a row goes to "... N more above") */
	int p, h = G.h > 3 ? G.h - 1 : G.h;

	if (g->built)
		return g;
	g->built = true;
	for (p = 0; p < PATH__COUNT; p++)
		if (grid_shows(u, p))
			total += u->m.paths[p].n;
	g->seq = xcalloc(total + 1, sizeof *g->seq);
	for (p = 0; p < PATH__COUNT; p++)
		for (i = 0; grid_shows(u, p) && i < u->m.paths[p].n; i++)
			g->seq[k++] = u->m.paths[p].entries[i].seq;
	qsort(g->seq, k, sizeof *g->seq, cmp_seq);
	for (i = nb = 0; i < k; i++)
		if (nb == 0 || g->seq[nb - 1] != g->seq[i])
			g->seq[nb++] = g->seq[i];
	g->nb = nb;
	g->start = xcalloc(nb + 1, sizeof *g->start);
	for (p = 0; p < PATH__COUNT; p++) {
		const struct model_path *mp = &u->m.paths[p];
		struct gcol *c = &g->col[p];
		if (!grid_shows(u, p))
			continue;
		c->first = xcalloc(nb + 1, sizeof *c->first);
		for (b = i = 0; b < nb; b++) {
			size_t i0, m, at, end;
			int hb = b == 0 ? G.h : h, hr;
			c->first[b] = c->n;
			for (; i < mp->n && mp->entries[i].seq < g->seq[b];
			    i++)
				;
			for (i0 = i; i < mp->n && mp->entries[i].seq ==
			    g->seq[b]; i++)
				;
			if (G.t[p].w <= 4 || (m = i - i0) == 0)
				continue;
			/* Several entries (one per policy): each later one
			 * a share of the rows, the first what they leave. */
			hr = hb / (int)m > 4 ? hb / (int)m : 4;
			at = c->n;
			entry_rows(u, c, &mp->entries[i0], G.t[p].w, false);
			end = c->n;
			for (k = i0 + 1; k < i; k++) {
				size_t from = c->n;
				bool rep = same_input(&mp->entries[k - 1],
				    &mp->entries[k]);
				entry_rows(u, c, &mp->entries[k], G.t[p].w,
				    rep && !open);
				if (!open)
					fold_entry(c, from, c->n, hr, G.h,
					    draw_attr(u, UC_HL), dropped_of(
					    &mp->entries[k]));
			}
			if (!open)
				fold_entry(c, at, end, hb - (int)(c->n - end) >
				    4 ? hb - (int)(c->n - end) : 4, G.h,
				    draw_attr(u, UC_HL),
				    dropped_of(&mp->entries[i0]));
		}
		c->first[nb] = c->n;
	}
	/* each block as high as its highest cell */
	for (b = 0; b < nb; b++) {
		size_t hb = 0;
		for (p = 0; p < PATH__COUNT; p++)
			if (grid_shows(u, p) && g->col[p].first[b + 1] -
			    g->col[p].first[b] > hb)
				hb = g->col[p].first[b + 1] -
				    g->col[p].first[b];
		g->start[b + 1] = g->start[b] + (int)hb;
	}
	return g;
}

static void
grid_free(struct grid *g)
{
	int p;

	for (p = 0; p < PATH__COUNT; p++) {
		free(g->col[p].rows);
		free(g->col[p].first);
	}
	free(g->seq);
	free(g->start);
	memset(g, 0, sizeof *g);
}

/* The block that holds grid row row (the last before it). */
static size_t
block_at(const struct grid *g, int row)
{
	size_t lo = 0, hi = g->nb;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->start[mid] <= row)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static void
draw_row(struct ui *u, struct rect r, int y, const struct row *rw,
    bool hint)
{
	char buf[80];

	if (rw->kind == RK_FOLD) {
		int n = snprintf(buf, sizeof buf, "  ... %zu more %s%s",
		    rw->more, rw->by_rows ? "row" : "line",
		    rw->more == 1 ? "" : "s");
		if (hint && n + 7 <= r.w)
			snprintf(buf + n, sizeof buf - (size_t)n, " (PgDn)");
		draw_text(r, y, 0, rw->attr, buf);
		return;
	}
	if (rw->prefix)
		draw_text(r, y, 0, rw->prefix_attr, rw->prefix);
	draw_textn(r, y, rw->indent, rw->attr, rw->s, rw->len);
}

/* "  ... N more above (PgUp)", the key left out when it does not fit
 * in w columns. */
static const char *
marker(char *buf, size_t size, int n, const char *where, const char *key,
    int w)
{
	int len = snprintf(buf, size, "  ... %d more %s", n, where);

	if (len > 0 && (size_t)len < size && len + (int)strlen(key) <= w)
		snprintf(buf + len, size - (size_t)len, "%s", key);
	return buf;
}

static void
draw_transcript(struct ui *u, struct rect r, enum path_id p)
{
	struct tscroll *sc = focus_scroll(u, p);
	const struct grid *g;
	const struct gcol *c;
	bool marks = r.h >= 3, hint;
	int total, top, avail, k, first_row = 0, below = 0, max_top;
	size_t b;
	char more[80];

	u->trans_used[p] = 0;
	if (r.h <= 0 || r.w <= 4 || !grid_shows(u, p))
		return;
	g = grid_get(u, sc->open);
	c = &g->col[p];
	total = g->start[g->nb];
	max_top = total > r.h ? total - (r.h - marks) : 0;
	if (!sc->open) {
		/* The newest block from its first row, and the rows
		 * before it that fit. */
		top = max_top;
		if (g->nb > 0 && top > g->start[g->nb - 1])
			top = g->start[g->nb - 1];
		b = block_at(g, top);
		sc->anchor_seq = g->nb > 0 ? g->seq[b] : 0;
		sc->anchor_off = g->nb > 0 ? top - g->start[b] : 0;
		sc->max_top = -1;
	} else {
		if (sc->top < 0) {
			/* Opened: from where the live view's top was. */
			for (b = 0; b + 1 < g->nb && g->seq[b] <
			    sc->anchor_seq; b++)
				;
			top = g->nb > 0 ? g->start[b] : 0;
			if (g->nb > 0 && sc->anchor_off <
			    g->start[b + 1] - g->start[b])
				top += sc->anchor_off;
			top += sc->delta;
			sc->top = top < 0 ? 0 : top > max_top ? max_top : top;
		}
		top = sc->top < 0 ? 0 : sc->top > max_top ? max_top : sc->top;
		sc->max_top = max_top;
	}
	sc->page = r.h > 3 ? r.h - 2 : 1;
	/* What is out of view is counted on a row of its own at the top or
	 * bottom, so no transcript text is covered. */
	hint = !u->scroll_each || p == focus_column(u);
	avail = r.h;
	if (marks && top > 0) {
		first_row = 1;
		avail--;
	}
	if (marks && top + avail < total) {
		avail--;
		below = total - top - avail;
	}
	if (first_row)
		draw_text(r, 0, 0, draw_attr(u, UC_HL), marker(more,
		    sizeof more, top, "above", hint ? " (PgUp)" : "", r.w));
	if (below > 0)
		draw_text(r, r.h - 1, 0, draw_attr(u, UC_HL), marker(more,
		    sizeof more, below, "below", hint ? " (PgDn)" : "", r.w));
	b = block_at(g, top);
	for (k = 0; k < avail && top + k < total; k++) {
		int row = top + k;
		size_t local;
		while (b + 1 < g->nb && g->start[b + 1] <= row)
			b++;
		local = (size_t)(row - g->start[b]);
		if (c->first[b] + local < c->first[b + 1])
			draw_row(u, r, first_row + k,
			    &c->rows[c->first[b] + local], hint);
	}
	u->trans_used[p] = first_row + k;	/* (live output goes after) */
}

/* Where a column r's transcript and files go, under its header and
 * strip. */
static void
path_rects(struct ui *u, struct rect r, struct rect *t, struct rect *fs)
{
	int row = r.h < 2 ? r.h : 2, fsw;

	if (r.h - row >= 14 || r.w < 60) {
		/* Tall or narrow: the files under the transcript, which keeps
		 * the column's full width; every column's box as high as the
		 * tallest wants, so the boxes line up. */
		const struct model_fsrow *rows;
		int want = 0, q, fsh, room, h;
		for (q = 0; q < PATH__COUNT; q++) {
			if (!(session_paths(u->s) & PATH_BIT(q)))
				continue;
			h = (int)model_fs_rows(&u->m, (enum path_id)q,
			    &rows) + 3;
			want = h > want ? h : want;
		}
		/* Before the first input the files have the room. */
		room = u->m.input == NULL ? r.h - row : (r.h - row) / 2;
		fsh = want < room ? want : room;
		*t = (struct rect){ r.y + row, r.x, r.h - row - fsh, r.w };
		*fs = (struct rect){ r.y + r.h - fsh, r.x, fsh, r.w };
	} else {
		fsw = r.w * 2 / 5;
		if (fsw > 28)
			fsw = 28;
		if (fsw < 16)
			fsw = 16;
		*t = (struct rect){ r.y + row, r.x, r.h - row, r.w - fsw - 1 };
		*fs = (struct rect){ r.y + row, r.x + r.w - fsw, r.h - row,
		    fsw };
	}
}

int
pane_path_transcript_rows(struct ui *u, struct rect r)
{
	struct rect t, fs;

	path_rects(u, r, &t, &fs);
	return t.h;
}

static void grid_end(void);

static void
grid_begin(struct ui *u)
{
	struct rect fs;
	int p;

	grid_end();
	G.on = true;
	G.h = 0;
	for (p = 0; p < PATH__COUNT; p++) {
		if (!(u->col_shown & PATH_BIT(p)))
			continue;
		path_rects(u, u->col[p], &G.t[p], &fs);
		if (G.h == 0 || G.t[p].h < G.h)
			G.h = G.t[p].h;
	}
}

static void
grid_end(void)
{
	grid_free(&G.g[0]);
	grid_free(&G.g[1]);
	G.on = false;
}

static void
draw(struct ui *u, struct rect r, enum path_id p)
{
	char buf[256];
	struct rect t, fs;

	if (r.h <= 0)
		return;
	draw_fill(r, 0, draw_attr(u, UC_TITLE));
	{
		/* The budget gauge sits at the right end of the header; a
		 * narrow column leaves it to the status line. */
		int gw = path_guard(p) != GUARD_POLICY || r.w < 44 ? 0 :
		    r.w >= 60 ? 30 : r.w / 2;
		struct rect h = { r.y, r.x, 1, r.w - gw };
		struct rect g = { r.y, r.x + r.w - gw + 1, 1, gw - 1 };
		char boot[64];
		int bw = boot_state(u, p, boot, sizeof boot);

		draw_text(h, 0, 1, draw_attr(u, UC_TITLE),
		    controls(u, p, h.w - 2 - (bw > 0 ? bw + 1 : 0), buf,
		    sizeof buf));
		if (bw > 0 && bw + 2 < h.w)
			draw_text(h, 0, h.w - bw - 1, draw_attr(u, UC_TITLE) |
			    A_BOLD, boot);
		/* A column scrolled on its own (F3) is marked. */
		if (u->scroll_each && p == focus_column(u) &&
		    session_paths(u->s) != PATH_BIT(p))
			draw_text(h, 0, 0, draw_attr(u, UC_TITLE), ">");
		if (gw > 0) {
			draw_fill(g, 0, A_NORMAL);
			draw_gauge(u, g, 0, p);
		}
	}
	if (r.h > 1)
		draw_strip(u, r, 1, p);
	path_rects(u, r, &t, &fs);
	u->trans[p] = t;	/* (progress.c shows live output there) */
	draw_transcript(u, t, p);
	pane_fs.draw(u, fs, p);
}

const struct pane_ops pane_path = { "path", draw, NULL };

/* Every column layout_draw placed (u->col, u->col_shown), their
 * transcripts on one grid: each input on the same row in every column. */
static void
draw_columns(struct ui *u, struct rect r, enum path_id unused)
{
	int p;

	(void)r;
	(void)unused;
	grid_begin(u);
	for (p = 0; p < PATH__COUNT; p++)
		if (u->col_shown & PATH_BIT(p))
			draw(u, u->col[p], (enum path_id)p);
	grid_end();
}

const struct pane_ops pane_columns = { "columns", draw_columns, NULL };
