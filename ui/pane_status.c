/*
 * pane_status.c -- the status line: policy (a scenario's step run under
 * several, all of them), budget, paths, presenter progress and the
 * keys.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "sandbox/policy.h"
#include "session/session.h"
#include "uipriv.h"

static void
draw(struct ui *u, struct rect r, enum path_id unused)
{
	const struct policy *pol = session_policy(u->s);
	char buf[320], paths[64] = "", step[48] = "", how[96];
	unsigned mask = session_paths(u->s);
	/* the path without a boundary: the engine it runs ("unsafe:
	 * cpython") */
	enum path_id bare = path_first(~0u, GUARD_NONE);
	size_t len = 0, cur, total;
	int p, x, k;

	for (p = 0; p < PATH__COUNT; p++)
		if (mask & PATH_BIT(p)) {
			int n = snprintf(paths + len, sizeof paths - len,
			    "%s%s", len ? "," : "",
			    record_path_name((enum path_id)p));
			if (n > 0 && (size_t)n < sizeof paths - len)
				len += (size_t)n;
		}
	/* a scenario playing: where it is, first, so that it is never cut */
	if (play_progress(u, &cur, &total))
		snprintf(step, sizeof step, " step %zu of %zu |", cur, total);
	/* A boundary whose run varies says how it runs here ("jail:microvm:
	 * tcg, emulated: slow") */
	for (p = 0, how[0] = '\0'; p < PATH__COUNT; p++) {
		const char *w = session_boundary_words(u->s, (enum path_id)p),
		    *open = strchr(w, '(');
		size_t hl = strlen(how);

		if ((mask & PATH_BIT(p)) && open != NULL)
			snprintf(how + hl, sizeof how - hl, " | %s: %.*s",
			    record_path_name((enum path_id)p),
			    (int)strcspn(open + 1, ")"), open + 1);
	}
	/* The budget counts inputs (see the gauge); the word goes when
	 * the line would not fit, then the paths' list (their columns name
	 * them). */
	for (k = 0; k < 3; k++) {
		snprintf(buf, sizeof buf, "%s%s %s %s | budget %u/%u%s%s%s | "
		    "%s: %s%s", r.w >= 100 ? " sandboxrepl |" : "",
		    step, play_policies(u) ? "policies" : "policy",
		    play_policies(u) ? play_policies(u) : pol ? pol->name :
		    "?", session_budget_used(u->s, path_policy()),
		    session_budget_limit(u->s, path_policy()),
		    k == 0 ? " inputs" : "", k < 2 ? " | paths " : "",
		    k < 2 ? paths : "", record_path_name(bare),
		    session_engine(u->s, bare), how);
		if ((int)strlen(buf) <= r.w)
			break;
	}
	draw_fill(r, 0, draw_attr(u, UC_TITLE));
	x = draw_text(r, 0, 0, draw_attr(u, UC_TITLE), buf);
	{
		const char *keys = input_status_keys();
		int kw = (int)strlen(keys);
		if (r.w - kw > x + 1)
			draw_text(r, 0, r.w - kw, draw_attr(u, UC_TITLE), keys);
	}
	(void)unused;
}

const struct pane_ops pane_status = { "status", draw, NULL };
