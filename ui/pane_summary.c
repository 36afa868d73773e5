/*
 * pane_summary.c -- the :summary overlay: the boundaries compared over the
 * transcript, a row per path and a column per outcome (an attack that
 * landed, was blocked, was contained; work that passed; an error), the
 * end of a lesson in one table.  Counts come from the transcript's
 * verdicts, so the table says what the records said.  Any key closes it,
 * as the help.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "session.h"
#include "uipriv.h"

/* The columns, in the order a class reads them, and the verdict and
 * colour each one counts. */
static const struct {
	const char	*head;
	enum verdict	 verdict;
	enum ui_color	 color;
} cols[] = {
	{ "landed",    VERDICT_LANDED,    UC_DAMAGE },
	{ "blocked",   VERDICT_BLOCKED,   UC_BLOCKED },
	{ "contained", VERDICT_CONTAINED, UC_CONTAINED },
	{ "inside",    VERDICT_INSIDE,    UC_INSIDE },
	{ "passed",    VERDICT_OK,        UC_OK },
	{ "error",     VERDICT_ERROR,     UC_ERROR },
};
#define NCOLS	(sizeof cols / sizeof cols[0])

static const char *const legend[] = {
	"landed     it did damage: LANDED ..., or BYPASSED a filter",
	"blocked    an in-process layer refused it (BLOCKED by ...)",
	"contained  the kernel refused a call (CONTAINED by ...)",
	"inside     harm inside the jail's own copy; the host untouched",
	"passed     it ran and answered: work, or a read the path allowed",
	"error      the code's own error: a typo, a missing file",
};
#define NLEGEND	(sizeof legend / sizeof legend[0])

/* Inputs the transcript holds on path p, by verdict; false if none. */
bool
summary_count(const struct ui *u, enum path_id p, size_t count[VERDICT__COUNT])
{
	const struct model_path *mp = &u->m.paths[p];
	size_t i, any = 0;

	memset(count, 0, VERDICT__COUNT * sizeof count[0]);
	for (i = 0; i < mp->n; i++)
		if (!mp->entries[i].is_note) {
			count[mp->entries[i].verdict]++;
			any++;
		}
	return any > 0;
}

static void
draw(struct ui *u, struct rect r, enum path_id unused)
{
	size_t count[PATH__COUNT][VERDICT__COUNT];
	bool ran[PATH__COUNT];
	int nrows = 0, w = 0, i, row;
	size_t p, c;
	struct rect b, in;
	char buf[96];
	int x;

	for (p = 0; p < PATH__COUNT; p++)
		if ((ran[p] = summary_count(u, (enum path_id)p, count[p])))
			nrows++;
	for (i = 0; i < (int)NLEGEND; i++)
		if ((int)strlen(legend[i]) > w)
			w = (int)strlen(legend[i]);
	if (w < 12 + 10 * (int)NCOLS)	/* (the table's own width) */
		w = 12 + 10 * (int)NCOLS;
	/* the header, a row per path (or one saying none ran), a blank, the
	 * legend */
	b.h = 1 + (nrows ? nrows : 1) + 1 + (int)NLEGEND + 2;
	if (b.h > r.h)
		b.h = r.h;
	b.w = w + 4 < r.w ? w + 4 : r.w;
	b.y = r.y + (r.h - b.h) / 2;
	b.x = r.x + (r.w - b.w) / 2;
	for (i = 0; i < b.h; i++)
		draw_fill(b, i, A_NORMAL);
	draw_box(b, draw_attr(u, UC_TITLE),
	    " what each path did (any key closes) ");
	in = (struct rect){ b.y + 1, b.x + 2, b.h - 2, b.w - 4 };
	x = draw_text(in, 0, 0, A_BOLD, "path        ");
	for (c = 0; c < NCOLS; c++) {
		snprintf(buf, sizeof buf, "%10s", cols[c].head);
		x += draw_text(in, 0, x, A_BOLD, buf);
	}
	row = 1;
	if (nrows == 0)
		draw_text(in, row++, 0, A_NORMAL, "nothing has run yet");
	for (p = 0; p < PATH__COUNT; p++) {
		if (!ran[p])
			continue;
		snprintf(buf, sizeof buf, "%-12s", p == PATH_JAIL &&
		    session_jail(u->s) == JAIL_BOUNDARY_GVISOR ?
		    "jail gVisor" : record_path_name((enum path_id)p));
		x = draw_text(in, row, 0, A_BOLD, buf);
		for (c = 0; c < NCOLS; c++) {
			size_t n = count[p][cols[c].verdict];

			snprintf(buf, sizeof buf, "%10zu", n);
			x += draw_text(in, row, x, n ? draw_attr(u,
			    cols[c].color) : (int)A_NORMAL, buf);
		}
		row++;
	}
	row++;
	for (i = 0; i < (int)NLEGEND; i++)
		draw_text(in, row++, 0, A_NORMAL, legend[i]);
	(void)unused;
}

const struct pane_ops pane_summary = { "summary", draw };
