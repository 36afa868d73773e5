/*
 * export.c -- the lesson's log, and the handout written from it.
 *
 * The log copies from each record what a reader of the lesson needs
 * later: the verdict, the deciding layer, what happened
 * (record_happened) and the output, capped.  Text is kept as
 * textesc.h makes it printable (newlines and tabs of inputs and output
 * kept as they are), so every consumer gets valid UTF-8 with no
 * character a terminal or a browser would act on; the page escapes
 * HTML's five on top.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "export.h"
#include "record/paths.h"
#include "base/sbuf.h"
#include "base/textesc.h"
#include "base/xalloc.h"

/* A row keeps this much of what the code wrote. */
#define OUTPUT_MAX_LINES 40
#define OUTPUT_MAX_BYTES 4096
/* An input, a caption, what happened: at most this much. */
#define TEXT_MAX 4000

const enum verdict export_verdict_order[VERDICT__COUNT] = {
	VERDICT_LANDED, VERDICT_BYPASSED, VERDICT_BLOCKED,
	VERDICT_CONTAINED, VERDICT_INSIDE, VERDICT_OK, VERDICT_ERROR,
};

/* What each word means, for the page's key. */
static const char *
meaning(enum verdict v)
{
	switch (v) {
	case VERDICT_OK:
		return "it ran and answered: honest work, or a read the "
		    "path allowed";
	case VERDICT_BLOCKED:
		return "an in-process check refused it before it could act";
	case VERDICT_ERROR:
		return "the code's own error: a typo, a missing file";
	case VERDICT_LANDED:
		return "the attack did its damage (in a throwaway copy, "
		    "this time)";
	case VERDICT_CONTAINED:
		return "the kernel refused what it tried";
	case VERDICT_BYPASSED:
		return "a weak filter let it through, whatever happened next";
	case VERDICT_INSIDE:
		return "it did damage inside the jail's own copy; the host "
		    "was untouched";
	case VERDICT__COUNT:
		break;
	}
	return "";
}

/*
 * s[0, len) made printable (textesc.h), newlines and tabs kept when
 * keep_lines, at most max bytes of it (then "..."), as a heap string.
 */
static char *
printable(const char *s, size_t len, bool keep_lines, size_t max)
{
	struct sbuf b = SBUF_INIT;
	size_t k = 0;

	while (k < len && b.len < max) {
		size_t m = 0;

		if (keep_lines && (s[k] == '\n' || s[k] == '\t')) {
			sbuf_addc(&b, s[k++]);
			continue;
		}
		while (k + m < len && m < 256 && !(keep_lines &&
		    (s[k + m] == '\n' || s[k + m] == '\t')))
			m++;
		/* (a UTF-8 sequence cut at 256 is escaped as its bytes:
		 * harmless, and rare) */
		textesc_add(&b, s + k, m, 0);
		k += m;
	}
	if (k < len)
		sbuf_adds(&b, " ...");
	return sbuf_take(&b);
}

/* What a record's code wrote, printable, capped; NULL when nothing. */
static char *
output_of(const struct record *r)
{
	struct sbuf raw = SBUF_INIT;
	size_t i, lines = 0, k, more = 0;
	char *s;

	for (i = 0; i < r->noutput; i++)
		sbuf_add(&raw, r->output[i].text, r->output[i].len);
	if (raw.len > 0 && raw.data[raw.len - 1] == '\n')
		raw.len--;
	if (raw.len == 0) {
		sbuf_free(&raw);
		return NULL;
	}
	for (k = 0; k < raw.len; k++)
		if (raw.data[k] == '\n' && ++lines == OUTPUT_MAX_LINES)
			break;
	if (k < raw.len) {
		size_t j;

		for (j = k; j < raw.len; j++)
			more += raw.data[j] == '\n';
		raw.len = k;
	}
	s = printable(raw.data, raw.len, true, OUTPUT_MAX_BYTES);
	if (more > 0) {
		char *t = xasprintf("%s\n... %zu more line%s", s, more,
		    more == 1 ? "" : "s");
		free(s);
		s = t;
	}
	sbuf_free(&raw);
	return s;
}

/* The sandbox's policy a scenario's label names ("escape 10 [dunder]"),
 * or NULL. */
static char *
policy_of(const struct record *r)
{
	const char *l = r->label, *open;
	size_t n;

	if (path_guard(r->path) != GUARD_POLICY || l == NULL)
		return NULL;
	n = strlen(l);
	if (n < 3 || l[n - 1] != ']' || (open = strrchr(l, '[')) == NULL ||
	    open == l || open[-1] != ' ')
		return NULL;
	return printable(open + 1, (size_t)(l + n - 1 - (open + 1)), false,
	    100);
}

static char *
dup_printable(const char *s, bool keep_lines)
{
	return s != NULL ? printable(s, strlen(s), keep_lines, TEXT_MAX) :
	    NULL;
}

static void
free_step(struct export_step *st)
{
	size_t i;

	for (i = 0; i < st->nrows; i++) {
		free(st->rows[i].policy);
		free(st->rows[i].happened);
		free(st->rows[i].output);
	}
	free(st->rows);
	free(st->caption);
	free(st->title);
	free(st->scenario);
	free(st->input);
	free(st->note);
}

void
export_init(struct export_log *l)
{
	memset(l, 0, sizeof *l);
}

void
export_clear(struct export_log *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free_step(&l->steps[i]);
	free(l->steps);
	memset(l, 0, sizeof *l);
}

void
export_free(struct export_log *l)
{
	export_clear(l);
}

static struct export_step *
new_step(struct export_log *l, const char *caption, const char *scenario)
{
	struct export_step *st;

	if (l->n >= EXPORT_MAX_STEPS) {
		free_step(&l->steps[0]);
		memmove(l->steps, l->steps + 1, (l->n - 1) * sizeof *l->steps);
		l->n--;
		l->dropped++;
	}
	l->steps = xreallocarray(l->steps, l->n + 1, sizeof *l->steps);
	st = &l->steps[l->n++];
	memset(st, 0, sizeof *st);
	st->caption = dup_printable(caption, false);
	st->scenario = dup_printable(scenario, false);
	return st;
}

void
export_add(struct export_log *l, const char *caption, const char *title,
    const char *scenario, const char *input, size_t len,
    const struct record *r, size_t n)
{
	struct export_step *st;
	struct arena *a;
	size_t i, k = 0;
	enum path_id p;

	if (n == 0)
		return;
	a = arena_new();
	st = new_step(l, caption, scenario);
	st->title = dup_printable(title, false);
	st->input = printable(input, len, true, TEXT_MAX);
	st->rows = xcalloc(n, sizeof *st->rows);
	/* the rows in the order the paths are listed, each path's records
	 * (the sandbox's policies) in the order they ran */
	for (p = 0; p < PATH__COUNT; p++)
		for (i = 0; i < n; i++) {
			struct export_row *row;

			if (r[i].path != p)
				continue;
			row = &st->rows[k++];
			row->path = p;
			row->policy = policy_of(&r[i]);
			row->verdict = r[i].verdict;
			row->layer = r[i].layer;
			row->happened = dup_printable(record_happened(a, &r[i]),
			    false);
			row->output = output_of(&r[i]);
		}
	st->nrows = k;
	arena_free(a);
}

void
export_note(struct export_log *l, const char *caption, const char *scenario,
    const char *text)
{
	struct export_step *st = new_step(l, caption, scenario);

	st->note = dup_printable(text != NULL ? text : "", true);
}

void
export_row_name(const struct export_row *row, struct sbuf *out)
{
	sbuf_adds(out, record_path_name(row->path));
	if (row->policy != NULL)
		sbuf_addf(out, " [%s]", row->policy);
}

size_t
export_counts(const struct export_log *l, struct export_count **out)
{
	struct export_count *c = NULL;
	struct sbuf name = SBUF_INIT;
	size_t n = 0, i, j, k;

	for (i = 0; i < l->n; i++)
		for (j = 0; j < l->steps[i].nrows; j++) {
			const struct export_row *row = &l->steps[i].rows[j];

			sbuf_truncate(&name, 0);
			export_row_name(row, &name);
			for (k = 0; k < n; k++)
				if (strcmp(c[k].name, sbuf_cstr(&name)) == 0)
					break;
			if (k == n) {
				/* a new name goes after the last of its
				 * path (and before the next path's) */
				size_t at = n;

				while (at > 0 && c[at - 1].path > row->path)
					at--;
				c = xreallocarray(c, n + 1, sizeof *c);
				memmove(c + at + 1, c + at, (n - at) *
				    sizeof *c);
				memset(&c[at], 0, sizeof c[at]);
				c[at].name = xstrdup(sbuf_cstr(&name));
				c[at].path = row->path;
				n++;
				k = at;
			}
			c[k].n[row->verdict]++;
		}
	sbuf_free(&name);
	*out = c;
	return n;
}

void
export_counts_free(struct export_count *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(c[i].name);
	free(c);
}

/* ---- the page ---- */

/* Printable text (the log's) with HTML's special characters escaped. */
static void
html(struct sbuf *out, const char *s)
{
	for (; s != NULL && *s != '\0'; s++)
		switch (*s) {
		case '&': sbuf_adds(out, "&amp;"); break;
		case '<': sbuf_adds(out, "&lt;"); break;
		case '>': sbuf_adds(out, "&gt;"); break;
		case '"': sbuf_adds(out, "&quot;"); break;
		case '\'': sbuf_adds(out, "&#39;"); break;
		default: sbuf_addc(out, *s); break;
		}
}

/* Any text (a title from the command line), made printable first. */
static void
html_any(struct sbuf *out, const char *s)
{
	char *p = dup_printable(s, false);

	html(out, p);
	free(p);
}

/* Words carry the meaning; colour and borders only repeat it, and print
 * drops the colour. */
static const char css[] =
"body{font:16px/1.45 Georgia,'DejaVu Serif',serif;color:#111;"
"background:#fff;max-width:62em;margin:1.5em auto;padding:0 1em}"
"h1{font-size:1.6em;margin:.2em 0}"
"h2{font-size:1.2em;margin:.2em 0}"
"pre{font:14px/1.35 'DejaVu Sans Mono',monospace;white-space:pre-wrap;"
"overflow-wrap:anywhere;margin:.3em 0}"
"pre.input{border:1px solid #444;padding:.35em .6em;background:#f3f3f3}"
"pre.output{border-left:3px solid #999;padding-left:.6em;color:#333}"
".step{border-top:2px solid #000;margin-top:1.4em;padding-top:.5em}"
".caption{font-style:italic;margin:.3em 0}"
".from{font-size:.85em;color:#444}"
"table{border-collapse:collapse;width:100%;margin:.4em 0}"
"th,td{border:1px solid #666;padding:.25em .5em;text-align:left;"
"vertical-align:top}"
"thead th{background:#e8e8e8}"
"table.paths{table-layout:fixed}"
"table.paths thead th:nth-child(1){width:22%}"
"table.paths thead th:nth-child(2){width:22%}"
"td.num{text-align:right;font-family:monospace}"
".word{font:bold 14px 'DejaVu Sans Mono',monospace;white-space:nowrap}"
".layer{font-size:.85em;color:#444}"
".v-landed .word,.v-bypassed .word{color:#a00}"
".v-blocked .word{color:#950}"
".v-contained .word{color:#05a}"
".v-inside .word{color:#606}"
".v-error .word{color:#555}"
".v-landed,.v-bypassed{border-left:5px double #000}"
".key dt{font:bold 14px 'DejaVu Sans Mono',monospace;float:left;"
"width:9em;clear:left}"
".key dd{margin:0 0 .2em 9.5em}"
"@media print{body{font-size:11pt;margin:0;max-width:none}"
"*{color:#000!important;background:#fff!important}"
".step{break-inside:avoid}thead{display:table-header-group}"
"pre.input{border:1px solid #000}}";

static void
html_row(struct sbuf *out, const struct export_row *row)
{
	struct sbuf name = SBUF_INIT;

	export_row_name(row, &name);
	sbuf_addf(out, "<tr class=\"v-%s\"><th scope=\"row\">",
	    record_verdict_name(row->verdict));
	html(out, sbuf_cstr(&name));
	sbuf_adds(out, "</th><td><span class=\"word\">");
	html(out, record_verdict_word(row->verdict));
	sbuf_adds(out, "</span> <span class=\"layer\">");
	html(out, record_layer_name(row->layer));
	sbuf_adds(out, "</span></td><td>");
	html(out, row->happened);
	if (row->output != NULL) {
		sbuf_adds(out, "<pre class=\"output\">");
		html(out, row->output);
		sbuf_adds(out, "</pre>");
	}
	sbuf_adds(out, "</td></tr>\n");
	sbuf_free(&name);
}

static void
html_step(struct sbuf *out, const struct export_step *st, size_t num)
{
	size_t i;

	sbuf_addf(out, "<section class=\"step\" id=\"step-%zu\">\n<h2>", num);
	sbuf_addf(out, "Step %zu", num);
	if (st->title != NULL) {
		sbuf_adds(out, ": ");
		html(out, st->title);
	}
	sbuf_adds(out, "</h2>\n");
	if (st->scenario != NULL) {
		sbuf_adds(out, "<p class=\"from\">from ");
		html(out, st->scenario);
		sbuf_adds(out, "</p>\n");
	}
	if (st->caption != NULL) {
		sbuf_adds(out, "<p class=\"caption\">");
		html(out, st->caption);
		sbuf_adds(out, "</p>\n");
	}
	if (st->note != NULL) {
		sbuf_adds(out, "<pre class=\"note\">");
		html(out, st->note);
		sbuf_adds(out, "</pre>\n</section>\n");
		return;
	}
	sbuf_adds(out, "<pre class=\"input\">");
	html(out, st->input);
	sbuf_adds(out, "</pre>\n<table class=\"paths\"><thead><tr>"
	    "<th scope=\"col\">path</th><th scope=\"col\">outcome</th>"
	    "<th scope=\"col\">what happened</th></tr></thead><tbody>\n");
	for (i = 0; i < st->nrows; i++)
		html_row(out, &st->rows[i]);
	sbuf_adds(out, "</tbody></table>\n</section>\n");
}

static void
html_summary(struct sbuf *out, const struct export_log *l)
{
	struct export_count *c;
	size_t n = export_counts(l, &c), i, v;

	sbuf_adds(out, "<section class=\"summary\" id=\"summary\">\n"
	    "<h2>Summary: what each path did</h2>\n");
	if (n == 0) {
		sbuf_adds(out, "<p>Nothing ran.</p>\n</section>\n");
		return;
	}
	sbuf_adds(out, "<table class=\"counts\"><thead><tr>"
	    "<th scope=\"col\">path</th>");
	for (v = 0; v < VERDICT__COUNT; v++) {
		sbuf_adds(out, "<th scope=\"col\">");
		html(out, record_verdict_word(export_verdict_order[v]));
		sbuf_adds(out, "</th>");
	}
	sbuf_adds(out, "</tr></thead><tbody>\n");
	for (i = 0; i < n; i++) {
		sbuf_adds(out, "<tr><th scope=\"row\">");
		html(out, c[i].name);
		sbuf_adds(out, "</th>");
		for (v = 0; v < VERDICT__COUNT; v++)
			sbuf_addf(out, "<td class=\"num\">%zu</td>",
			    c[i].n[export_verdict_order[v]]);
		sbuf_adds(out, "</tr>\n");
	}
	sbuf_adds(out, "</tbody></table>\n<dl class=\"key\">\n");
	for (v = 0; v < VERDICT__COUNT; v++) {
		sbuf_adds(out, "<dt>");
		html(out, record_verdict_word(export_verdict_order[v]));
		sbuf_adds(out, "</dt><dd>");
		html(out, meaning(export_verdict_order[v]));
		sbuf_adds(out, "</dd>\n");
	}
	sbuf_adds(out, "</dl>\n</section>\n");
	export_counts_free(c, n);
}

/* The page, whole, into out.  title may be NULL. */
static void
export_html(const struct export_log *l, const char *title, struct sbuf *out)
{
	size_t i;

	if (title == NULL)
		title = "sandboxrepl: a session";
	sbuf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width\">\n"
	    "<meta name=\"generator\" content=\"sandboxrepl " PACKAGE_VERSION
	    "\">\n<title>");
	html_any(out, title);
	sbuf_addf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>",
	    css);
	html_any(out, title);
	sbuf_adds(out, "</h1>\n<p>Each input ran on the paths side by side: "
	    "<b>unsafe</b> with no boundary (real code in a throwaway copy "
	    "of the files), <b>sandbox</b> behind an in-process filter, and "
	    "<b>jail</b> behind the Linux kernel.  Each row says the outcome "
	    "in one word, the layer that decided, and what happened.</p>\n");
	if (l->dropped > 0)
		sbuf_addf(out, "<p>(The first %zu steps are not here: a log "
		    "keeps the last %u.)</p>\n", l->dropped,
		    (unsigned)EXPORT_MAX_STEPS);
	if (l->n == 0)
		sbuf_adds(out, "<p>Nothing ran.</p>\n");
	for (i = 0; i < l->n; i++)
		html_step(out, &l->steps[i], l->dropped + i + 1);
	html_summary(out, l);
	sbuf_adds(out, "</body>\n</html>\n");
}

bool
export_write(const struct export_log *l, const char *title, const char *file,
    char **err)
{
	struct sbuf b = SBUF_INIT;
	char *tmp;
	const char *slash = strrchr(file, '/');
	FILE *f;
	mode_t mask;
	int fd, e;

	if (*file == '\0') {
		*err = xstrdup("no file name given");
		return false;
	}
	/* the temporary file next to the page, so the rename is atomic */
	tmp = xasprintf("%.*s.sandboxrepl-export-XXXXXX",
	    slash ? (int)(slash - file + 1) : 0, file);
	if ((fd = mkstemp(tmp)) == -1) {
		e = errno;
		*err = xasprintf("%s: %s", file, strerror(e));
		free(tmp);
		return false;
	}
	/* readable as a file the umask allows, not mkstemp's 0600 */
	mask = umask(022);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0 || (f = fdopen(fd, "w")) == NULL) {
		e = errno;
		close(fd);
		goto fail;
	}
	export_html(l, title, &b);
	if (fwrite(b.data, 1, b.len, f) != b.len || fflush(f) != 0) {
		e = errno ? errno : EIO;
		fclose(f);
		goto fail;
	}
	if (fclose(f) != 0) {
		e = errno;
		goto fail;
	}
	if (rename(tmp, file) != 0) {
		e = errno;
		goto fail;
	}
	sbuf_free(&b);
	free(tmp);
	return true;
fail:
	unlink(tmp);
	*err = xasprintf("%s: %s", file, strerror(e));
	sbuf_free(&b);
	free(tmp);
	return false;
}
