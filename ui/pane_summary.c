/*
 * pane_summary.c -- the :summary overlay, the lesson's last slide: a row
 * per step the class ran this session (lesson.h: typed inputs and played
 * steps, through every :reset), its input, then each path's outcome word
 * and what happened; underneath, pinned, the counts per path in the same
 * words.  The words are the records' (record_verdict_word), the
 * sentences record_happened's, so the slide says what the screen said.
 * PgUp/PgDn, the arrows, Home and End scroll the steps; any other key
 * closes it, as the help.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson.h"
#include "base/sbuf.h"
#include "session/session.h"
#include "uipriv.h"
#include "base/xalloc.h"

/* The first line of the steps shown; the lines they had last draw. */
static int top;
static int page = 1;
static int nlines;

/* Inputs the log holds on path p, by verdict; false if none. */
bool
summary_count(const struct ui *u, enum path_id p, size_t count[VERDICT__COUNT])
{
	const struct export_log *l = lesson_log();
	size_t i, j, any = 0;

	(void)u;
	memset(count, 0, VERDICT__COUNT * sizeof count[0]);
	for (i = 0; i < l->n; i++)
		for (j = 0; j < l->steps[i].nrows; j++)
			if (l->steps[i].rows[j].path == p) {
				count[l->steps[i].rows[j].verdict]++;
				any++;
			}
	return any > 0;
}

void
summary_open(struct ui *u)
{
	top = 0;
	u->overlay = &pane_summary;
}

/* The overlay's keys: lines, pages and ends of the steps' part. */
static bool
key(struct ui *u, enum ui_key k)
{
	(void)u;
	switch (k) {
	case UK_UP: top--; break;
	case UK_DOWN: top++; break;
	case UK_PGUP: top -= page > 1 ? page - 1 : 1; break;
	case UK_PGDN: top += page > 1 ? page - 1 : 1; break;
	case UK_HOME: top = 0; break;
	case UK_END: top = nlines; break;
	default: return false;
	}
	/* (draw() keeps it in range) */
	if (top < 0)
		top = 0;
	return true;
}

/* A count's row name: its path's, with the boundary :jail chose when
 * that is not the path's own ("jail gVisor"). */
static const char *
count_name(const struct ui *u, const struct export_count *c, char *buf,
    size_t size)
{
	const struct path_row *row = path_row(c->path);
	const struct boundary_row *b = session_boundary(u->s, c->path);

	if (!row->kind_by_jail || strcmp(c->name, row->name) != 0 ||
	    b->id == row->kind)
		return c->name;
	snprintf(buf, size, "%s %s", row->name, b->title);
	return buf;
}

/* One line of the steps' part: a step's input or note, or a row. */
struct line {
	const struct export_step *st;
	const struct export_row	*row;	/* NULL: the step's own line */
	size_t			 num;
};

static void
draw_step_line(struct ui *u, struct rect in, int y, const struct line *ln,
    int namew)
{
	struct sbuf b = SBUF_INIT;
	int x;

	if (ln->row == NULL) {
		sbuf_addf(&b, "%zu ", ln->num);
		x = draw_text(in, y, 0, A_BOLD, sbuf_cstr(&b));
		sbuf_truncate(&b, 0);
		if (ln->st->note != NULL) {
			draw_text(in, y, x, draw_attr(u, UC_DIM), ln->st->note);
		} else {
			if (ln->st->title != NULL)
				sbuf_addf(&b, "%s: ", ln->st->title);
			sbuf_adds(&b, ln->st->input);
			draw_text(in, y, x, A_BOLD, sbuf_cstr(&b));
		}
	} else {
		int wordw = 0;
		size_t v;

		for (v = 0; v < VERDICT__COUNT; v++)
			if ((int)strlen(record_verdict_word((enum verdict)v)) >
			    wordw)
				wordw = (int)strlen(record_verdict_word(
				    (enum verdict)v));
		sbuf_adds(&b, "  ");
		export_row_name(ln->row, &b);
		x = draw_text(in, y, 0, A_NORMAL, sbuf_cstr(&b));
		x = 2 + namew + 1 > x ? 2 + namew + 1 : x + 1;
		draw_text(in, y, x, draw_verdict_attr(u, ln->row->verdict),
		    record_verdict_word(ln->row->verdict));
		x += wordw + 1;
		draw_text(in, y, x, A_NORMAL, ln->row->happened);
	}
	sbuf_free(&b);
}

static void
draw(struct ui *u, struct rect r, enum path_id unused)
{
	const struct export_log *l = lesson_log();
	struct export_count *c;
	size_t nc = export_counts(l, &c), i, j, v;
	struct line *lines = NULL;
	int n = 0, namew = 4, colw[VERDICT__COUNT], countw, steps_h, k, x;
	int want_h, below;
	struct rect b, in;
	char buf[64], title[128], name[64];

	/* the lines of the steps' part */
	lines = xreallocarray(NULL, 1, sizeof *lines);
	for (i = 0; i < l->n; i++) {
		const struct export_step *st = &l->steps[i];

		lines = xreallocarray(lines, (size_t)n + st->nrows + 1,
		    sizeof *lines);
		lines[n++] = (struct line){ st, NULL, l->dropped + i + 1 };
		for (j = 0; j < st->nrows; j++)
			lines[n++] = (struct line){ st, &st->rows[j], 0 };
	}
	for (i = 0; i < nc; i++)
		if ((int)strlen(c[i].name) > namew)
			namew = (int)strlen(c[i].name);
	if (namew > 20)
		namew = 20;
	/* the counts: a column per word, as wide as the word */
	countw = namew + 2;
	for (v = 0; v < VERDICT__COUNT; v++) {
		colw[v] = (int)strlen(record_verdict_word(
		    export_verdict_order[v])) + 1;
		if (colw[v] < 4)
			colw[v] = 4;
		countw += colw[v];
	}

	/* the box: every line if they fit, else the whole screen */
	/* (the message line -- two rows when long, as layout.c gives it --
	 * and the input stay in sight, below it) */
	below = (u->input_h > 0 ? u->input_h : 1) + 1 +
	    (u->message != NULL && r.h >= 20 && draw_width(u->message,
	    strlen(u->message)) > r.w);
	want_h = 2 + (n > 0 ? n : 1) + 1 + 1 + (nc > 0 ? (int)nc : 1);
	b.h = want_h < r.h - below ? want_h : r.h - below;
	if (b.h < 3)
		b.h = r.h;
	b.w = r.w > 100 ? 100 : r.w;
	if (b.w < countw + 4 && countw + 4 <= r.w)
		b.w = countw + 4;
	b.y = r.y + (r.h - below - b.h > 0 ? (r.h - below - b.h) / 2 : 0);
	b.x = r.x + (r.w - b.w) / 2;
	for (k = 0; k < b.h; k++)
		draw_fill(b, k, A_NORMAL);
	in = (struct rect){ b.y + 1, b.x + 2, b.h - 2, b.w - 4 };
	/* the counts keep their rows at the bottom; the steps scroll */
	steps_h = in.h - 2 - (nc > 0 ? (int)nc : 1);
	if (steps_h < 1)
		steps_h = 1;
	page = steps_h;
	nlines = n;
	if (top > n - steps_h)
		top = n - steps_h;
	if (top < 0)
		top = 0;
	if (n > steps_h)
		snprintf(title, sizeof title, " what the class ran: lines "
		    "%d-%d of %d (PgUp/PgDn; any other key closes) ", top + 1,
		    top + steps_h < n ? top + steps_h : n, n);
	else
		snprintf(title, sizeof title, " what the class ran (any key "
		    "closes) ");
	draw_box(b, draw_attr(u, UC_TITLE), title);

	if (n == 0)
		draw_text(in, 0, 0, A_NORMAL, "nothing has run yet");
	for (k = 0; k < steps_h && top + k < n; k++)
		draw_step_line(u, in, k, &lines[top + k], namew);

	/* the counts, pinned under the steps */
	k = in.h - 1 - (nc > 0 ? (int)nc : 1);
	if (k < 0)
		k = 0;
	snprintf(buf, sizeof buf, "%-*s", namew + 2, "path");
	x = draw_text(in, k, 0, A_BOLD, buf);
	for (v = 0; v < VERDICT__COUNT; v++) {
		snprintf(buf, sizeof buf, "%*s", colw[v], record_verdict_word(
		    export_verdict_order[v]));
		x += draw_text(in, k, x, A_BOLD, buf);
	}
	k++;
	if (nc == 0)
		draw_text(in, k, 0, A_NORMAL, "nothing has run yet");
	for (i = 0; i < nc; i++, k++) {
		snprintf(buf, sizeof buf, "%-*.*s", namew + 2, namew,
		    count_name(u, &c[i], name, sizeof name));
		x = draw_text(in, k, 0, A_BOLD, buf);
		for (v = 0; v < VERDICT__COUNT; v++) {
			size_t cnt = c[i].n[export_verdict_order[v]];

			snprintf(buf, sizeof buf, "%*zu", colw[v], cnt);
			x += draw_text(in, k, x, cnt ? draw_verdict_attr(u,
			    export_verdict_order[v]) : (int)A_NORMAL, buf);
		}
	}
	export_counts_free(c, nc);
	free(lines);
	(void)unused;
}

const struct pane_ops pane_summary = { "summary", draw, key };
