/*
 * pane_path.c -- one path's column: a header naming its controls, the
 * layer strip of the last input, the budget gauge (sandbox), the
 * transcript coloured by verdict, and the filesystem box on the right.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "session.h"
#include "uipriv.h"
#include "xalloc.h"

/* A wrapped transcript row. */
struct row {
	const char	*s;
	size_t		 len;
	int		 attr;
	int		 indent;
	const char	*prefix;
	int		 prefix_attr;
};

/* The header naming the path's controls: the longest wording that fits
 * in width columns. */
static const char *
controls(const struct ui *u, enum path_id p, int width, char *buf,
    size_t size)
{
	static const char *const unsafe[] = {
		"UNSAFE  no boundary; effects simulated on a mock fs",
		"UNSAFE  no boundary (simulated)", "UNSAFE", NULL };
	static const char *const unsafe_world[] = {
		"UNSAFE  no boundary; real CPython in a throwaway world",
		"UNSAFE  no boundary (throwaway world)", "UNSAFE", NULL };
	const char *engine = session_engine(u->s, PATH_UNSAFE);
	static const char *const jail[] = {
		"JAIL  kernel: namespaces, Landlock, seccomp, rlimits",
		"JAIL  kernel: namespaces, Landlock, seccomp",
		"JAIL  kernel-enforced", "JAIL", NULL };
	static const char *const gvisor[] = {
		"JAIL (gVisor)  a user-space kernel: runsc, no network",
		"JAIL (gVisor)  user-space kernel", "JAIL (gVisor)",
		"JAIL", NULL };
	const struct policy *pol = session_policy(u->s);
	const char *name = pol ? pol->name : "?";
	const char *const *alt;
	size_t i;

	switch (p) {
	case PATH_UNSAFE:
		alt = engine != NULL && strcmp(engine, "cpython") == 0 ?
		    unsafe_world : unsafe;
		break;
	case PATH_JAIL:
		alt = session_jail(u->s) == JAIL_BOUNDARY_GVISOR ? gvisor :
		    jail;
		break;
	case PATH_GVISOR:
		alt = gvisor;
		break;
	default:
		/* a scenario's step run once per policy: all of them */
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
			snprintf(buf, size, "SANDBOX  policies %s: a row each",
			    list);
			if ((int)strlen(buf) > width)
				snprintf(buf, size, "SANDBOX  policies %s", list);
			if ((int)strlen(buf) > width)
				snprintf(buf, size, "SANDBOX  %s", list);
			if ((int)strlen(buf) > width)
				snprintf(buf, size, "SANDBOX  %zu policies", k);
			return buf;
		}
		/* (a policy wider than the essay's subset runs in CPython) */
		if (strcmp(session_engine(u->s, PATH_SANDBOX), "cpython") == 0) {
			snprintf(buf, size, "SANDBOX  policy %s, run in an "
			    "offline CPython world: %s", name,
			    pol && pol->summary ? pol->summary : "");
			if ((int)strlen(buf) > width)
				snprintf(buf, size, "SANDBOX  policy %s, "
				    "offline CPython world", name);
			if ((int)strlen(buf) > width)
				snprintf(buf, size, "SANDBOX  %s in CPython",
				    name);
			if ((int)strlen(buf) <= width)
				return buf;
		}
		snprintf(buf, size, "SANDBOX  policy %s: %s", name,
		    pol && pol->summary ? pol->summary : "");
		if ((int)strlen(buf) > width)
			snprintf(buf, size, "SANDBOX  policy %s: allowlist, "
			    "budget, no network, idempotent writes", name);
		if ((int)strlen(buf) > width)
			snprintf(buf, size, "SANDBOX  %s: allowlist, budget, "
			    "no net, idempotent", name);
		if ((int)strlen(buf) > width)
			snprintf(buf, size, "SANDBOX  policy %s", name);
		if ((int)strlen(buf) > width)
			snprintf(buf, size, "SANDBOX %s", name);
		return buf;
	}
	for (i = 0; alt[i + 1] != NULL; i++)
		if ((int)strlen(alt[i]) <= width)
			break;
	return alt[i];
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

/* Shorter names for the strip in a narrow column; the help pane's legend
 * spells them out.  A layer not listed keeps its first letters. */
static const struct {
	const char	*name, *abbr3, *abbr1;
} short_names[] = {
	{ "parse", "prs", "p" }, { "commands", "cmd", "c" },
	{ "allowlist", "alw", "a" }, { "budget", "bud", "b" },
	{ "surface", "srf", "s" }, { "network", "net", "n" },
	{ "idempotency", "idm", "i" }, { "eval", "evl", "e" },
	{ "effect", "eff", "e" }, { "namespace", "nsp", "N" },
	{ "landlock", "lck", "L" }, { "seccomp", "sec", "S" },
	{ "rlimit", "rlm", "R" },
};

/* The name of a strip item at a level of shortening (0: full). */
static void
strip_name(const char *name, int level, char *buf, size_t size)
{
	size_t i;

	for (i = 0; level > 0 && i < sizeof short_names /
	    sizeof short_names[0]; i++)
		if (strcmp(short_names[i].name, name) == 0) {
			name = level == 1 ? short_names[i].abbr3 :
			    short_names[i].abbr1;
			level = 0;
		}
	snprintf(buf, size, "%.*s", level == 0 ? 32 : level == 1 ? 3 : 1,
	    name);
}

/* The strip on one row: "layers:" and the full names when they fit, else
 * the names alone, else three-letter names, spaced then not (the marks
 * still part them), else one-letter names; while it fits, the deciding
 * layer keeps its full name. */
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
	    { 2, 1, false, true }, { 2, 1, false, false } };
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

static void
add_rows(struct row **rows, size_t *n, size_t *cap, const char *s, size_t len,
    int attr, int width, const char *prefix, int prefix_attr)
{
	int pw = prefix ? (int)strlen(prefix) : 0;
	bool first = true;
	do {
		size_t take = draw_wrap(s, len, width - pw);
		struct row *rw;
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 64;
			*rows = xreallocarray(*rows, *cap, sizeof **rows);
		}
		rw = &(*rows)[(*n)++];
		rw->s = s;
		rw->len = take;
		rw->attr = attr;
		rw->indent = pw;
		rw->prefix = first ? prefix : NULL;
		rw->prefix_attr = prefix_attr;
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

static void
draw_transcript(struct ui *u, struct rect r, enum path_id p)
{
	const struct model_path *mp = &u->m.paths[p];
	struct row *rows = NULL;
	size_t n = 0, cap = 0, i;
	const char *line;
	bool first;
	int top, k, shown, first_row, *sc;
	char more[64];

	if (r.h <= 0 || r.w <= 4)
		return;
	for (i = 0; i < mp->n; i++) {
		const struct model_entry *e = &mp->entries[i];
		if (e->is_note) {
			add_rows(&rows, &n, &cap, e->outcome,
			    strlen(e->outcome), draw_attr(u, UC_DIM), r.w, "  ",
			    A_NORMAL);
			continue;
		}
		/* An input of several lines shows them as typed. */
		for (line = e->shown, first = true; first || *line != '\0';
		    first = false) {
			size_t len = strcspn(line, "\n");
			add_rows(&rows, &n, &cap, line, len, A_NORMAL, r.w,
			    first ? "> " : ". ", draw_attr(u, UC_DIM));
			line += len + (line[len] == '\n');
		}
		/* What it wrote, as the terminal shows it, above its
		 * verdict (as python3 prints above the echoed value). */
		for (line = e->output; line != NULL && *line != '\0';) {
			size_t len = strcspn(line, "\n");
			add_rows(&rows, &n, &cap, line, len, A_NORMAL, r.w,
			    "  ", A_NORMAL);
			line += len + (line[len] == '\n');
		}
		/* (harm done inside a jail's throwaway copy is the jail
		 * holding, told in its colour: not a plain green ok) */
		add_rows(&rows, &n, &cap, e->outcome, strlen(e->outcome),
		    draw_verdict_attr(u, e->inside ? VERDICT_CONTAINED :
		    e->verdict), r.w, e->inside ? "  = " :
		    e->verdict == VERDICT_OK ? "  = ok " :
		    e->verdict == VERDICT_ERROR ? "  = error " : "  = ",
		    draw_verdict_attr(u, e->inside ? VERDICT_CONTAINED :
		    e->verdict));
	}
	/* The newest rows at the bottom, scrolled back by this column's
	 * scroll.  What is out of view is counted on a row of its own at
	 * the top or bottom, so no transcript text is covered. */
	sc = &u->scroll[p];
	if ((int)n <= r.h || r.h < 3) {
		if (*sc > (int)n - r.h)
			*sc = (int)n - r.h > 0 ? (int)n - r.h : 0;
		top = (int)n - r.h - *sc;
		if (top < 0)
			top = 0;
		first_row = 0;
		shown = r.h;
	} else {
		/* Scrolled to the top: the rows from 0, a marker below. */
		if (*sc > (int)n - r.h + 1)
			*sc = (int)n - r.h + 1;
		shown = r.h - (*sc > 0);
		top = (int)n - *sc - shown;
		first_row = 0;
		if (top > 0) {
			top++;
			shown--;
			first_row = 1;
			snprintf(more, sizeof more, "  ... %d more above%s",
			    top, p == focus_column(u) ? " (PgUp)" : "");
			draw_text(r, 0, 0, draw_attr(u, UC_HL), more);
		}
		if (*sc > 0) {
			snprintf(more, sizeof more, "  ... %d more below%s",
			    *sc, p == focus_column(u) ? " (PgDn)" : "");
			draw_text(r, r.h - 1, 0, draw_attr(u, UC_HL), more);
		}
	}
	u->page[p] = shown;
	for (k = 0; k < shown && top + k < (int)n; k++) {
		const struct row *rw = &rows[top + k];
		if (rw->prefix)
			draw_text(r, first_row + k, 0, rw->prefix_attr,
			    rw->prefix);
		draw_textn(r, first_row + k, rw->indent, rw->attr, rw->s,
		    rw->len);
	}
	u->trans_used[p] = first_row + k;	/* (live output goes after) */
	free(rows);
}

static void
draw(struct ui *u, struct rect r, enum path_id p)
{
	char buf[256];
	int row = 0, fsw;
	struct rect t, fs;

	if (r.h <= 0)
		return;
	draw_fill(r, row, draw_attr(u, UC_TITLE));
	{
		/* The budget gauge sits at the right end of the header; a
		 * narrow column leaves it to the status line. */
		int gw = p != PATH_SANDBOX || r.w < 44 ? 0 : r.w >= 60 ? 30 :
		    r.w / 2;
		struct rect h = { r.y, r.x, 1, r.w - gw };
		struct rect g = { r.y, r.x + r.w - gw + 1, 1, gw - 1 };
		draw_text(h, 0, 1, draw_attr(u, UC_TITLE),
		    controls(u, p, h.w - 2, buf, sizeof buf));
		/* Once a scroll key was used, mark the column it moves. */
		if (u->focus_shown && p == focus_column(u) &&
		    session_paths(u->s) != PATH_BIT(p))
			draw_text(h, 0, 0, draw_attr(u, UC_TITLE), ">");
		if (gw > 0) {
			draw_fill(g, 0, A_NORMAL);
			draw_gauge(u, g, 0, p);
		}
		row++;
	}
	if (row < r.h)
		draw_strip(u, r, row++, p);
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
		t = (struct rect){ r.y + row, r.x, r.h - row - fsh, r.w };
		fs = (struct rect){ r.y + r.h - fsh, r.x, fsh, r.w };
	} else {
		fsw = r.w * 2 / 5;
		if (fsw > 28)
			fsw = 28;
		if (fsw < 16)
			fsw = 16;
		t = (struct rect){ r.y + row, r.x, r.h - row, r.w - fsw - 1 };
		fs = (struct rect){ r.y + row, r.x + r.w - fsw, r.h - row,
		    fsw };
	}
	u->trans[p] = t;	/* (progress.c shows live output there) */
	draw_transcript(u, t, p);
	pane_fs.draw(u, fs, p);
}

const struct pane_ops pane_path = { "path", draw };
