/*
 * linesplit.c -- bytes in, lines of at most a cap out (see linesplit.h).
 */
#include "config.h"

#include <string.h>

#include "linesplit.h"

void
linesplit_init(struct linesplit *ls, size_t max)
{
	struct sbuf empty = SBUF_INIT;

	ls->line = empty;
	ls->max = max;
	ls->too_long = ls->any = false;
}

/* Hand the line so far to fn and start the next. */
static int
emit(struct linesplit *ls, linesplit_fn *fn, void *arg)
{
	int rc = fn(arg, sbuf_cstr(&ls->line), ls->line.len, ls->too_long);

	sbuf_truncate(&ls->line, 0);
	ls->too_long = ls->any = false;
	return rc;
}

int
linesplit_feed(struct linesplit *ls, const char *s, size_t n,
    linesplit_fn *fn, void *arg)
{
	while (n > 0) {
		const char *nl = memchr(s, '\n', n);
		size_t k = nl ? (size_t)(nl - s) : n, keep = k;
		int rc;

		if (ls->line.len + keep > ls->max) {
			keep = ls->max - ls->line.len;
			ls->too_long = true;
		}
		sbuf_add(&ls->line, s, keep);
		ls->any = true;
		if (nl == NULL)
			return 0;
		if ((rc = emit(ls, fn, arg)) != 0)
			return rc;
		s += k + 1;
		n -= k + 1;
	}
	return 0;
}

int
linesplit_end(struct linesplit *ls, linesplit_fn *fn, void *arg)
{
	return ls->any ? emit(ls, fn, arg) : 0;
}

void
linesplit_free(struct linesplit *ls)
{
	sbuf_free(&ls->line);
	ls->too_long = ls->any = false;
}
