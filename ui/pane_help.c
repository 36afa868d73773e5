/*
 * pane_help.c -- the F1 overlay: keys, meta commands, and the essay's
 * caveat.  Any key closes it.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "record/paths.h"
#include "uipriv.h"

/* The line that lists the paths and the kinds: written from their tables
 * (paths.h), so that a new one shows here. */
#define PATHS_LINE "@paths"

static const char *const lines[] = {
	"Type a Python expression or a command; it runs on every path.",
	"  read_file('report.txt')  write_file('out.txt', 'hi')  list_files()",
	"  delete_file('x')  http_get('https://...', 'body'), or the essay's dicts",
	"",
	"Meta commands",
	"  :help  this help  :reset  the starting files and names, the budget unspent",
	"  :policy NAME|FILE  sandbox policy   :budget N  sandbox budget",
	PATHS_LINE,	/* ":paths LIST ... :jail ns|gvisor", from the tables */
	"  :play FILE  presenter view  :goto N  step N  :stop  :summary  the lesson",
	"  :save FILE  trace lines  :export FILE.html  a handout  :quit  leave",
	"",
	"Keys  F1 help  F2 AST pane  Ctrl-L redraw  F10 quit (twice if not saved)",
	"  PgUp/PgDn scroll, opening '... N more'  F3/Shift-Tab: one column alone",
	"  Up/Down history  Ctrl-C cancel  Tab: files after :play :save :policy",
	"  :play: Enter/PgDn/Space next  PgUp/Left back  Home start  Esc columns",
	"",
	"Marks: '+' passed '!' stopped '*' done '?' let through '.' not reached;",
	"files: '+' new '~' changed '-' deleted.  Strips shorten: prs pa parse,",
	"cmd cm commands, alw al allowlist, bud bu budget, srf su surface,",
	"net ne network, idm id idempotency, evl ev eval, eff ef effect,",
	"nsp ns namespace, lck ll landlock, sec sc seccomp, rlm rl rlimit.",
	"",
	"The sandbox path is the essay's teaching model, not a security boundary:",
	"in-process filtering is a speed bump.  Only the kernel jail is one.",
	"Words: LANDED harm done in a throwaway copy; BYPASSED a weak filter let",
	"it through; INSIDE harm inside the jail's copy, the host untouched.",
	NULL
};

static void
draw(struct ui *u, struct rect r, enum path_id unused)
{
	const char *shown[64];
	char paths[128], kinds[64], pline[256];
	int n = 0, w = 0, i, k;
	struct rect b, in;

	snprintf(pline, sizeof pline, "  :paths LIST  %-23s:jail %s  its boundary",
	    path_list(paths, sizeof paths, paths_offered(), ","),
	    boundary_list(kinds, sizeof kinds, "|"));
	for (n = 0; lines[n] != NULL; n++) {
		const char *l = strcmp(lines[n], PATHS_LINE) == 0 ? pline :
		    lines[n];
		if ((int)strlen(l) > w)
			w = (int)strlen(l);
	}
	/* A short screen drops the blank lines before cutting any text. */
	for (i = k = 0; lines[i] != NULL && k < 64; i++)
		if (lines[i][0] != '\0' || n + 2 <= r.h)
			shown[k++] = strcmp(lines[i], PATHS_LINE) == 0 ? pline :
			    lines[i];
	n = k;
	b.h = n + 2 < r.h ? n + 2 : r.h;
	b.w = w + 4 < r.w ? w + 4 : r.w;
	b.y = r.y + (r.h - b.h) / 2;
	b.x = r.x + (r.w - b.w) / 2;
	for (i = 0; i < b.h; i++)
		draw_fill(b, i, A_NORMAL);
	draw_box(b, draw_attr(u, UC_TITLE), " help (any key closes) ");
	in = (struct rect){ b.y + 1, b.x + 2, b.h - 2, b.w - 4 };
	for (i = 0; i < n && i < in.h; i++)
		draw_text(in, i, 0, shown[i][0] != ' ' && shown[i][0] ?
		    A_BOLD : A_NORMAL, shown[i]);
	(void)unused;
}

const struct pane_ops pane_help = { "help", draw, NULL };
