/*
 * lesson.c -- the session's log of what the class ran (lesson.h).
 */
#include "config.h"

#include <string.h>

#include "lesson.h"
#include "base/sbuf.h"
#include "base/xalloc.h"

static struct export_log lesson;
static bool ready;

static struct export_log *
get(void)
{
	if (!ready) {
		export_init(&lesson);
		ready = true;
	}
	return &lesson;
}

void
lesson_typed(const char *input, size_t len, const struct record *r, size_t n)
{
	export_add(get(), NULL, NULL, NULL, input, len, r, n);
}

void
lesson_played(const char *scenario, const char *caption, const char *title,
    const char *input, size_t len, const struct record *r, size_t n,
    const char *text)
{
	const char *base = scenario != NULL ? strrchr(scenario, '/') : NULL;

	if (base != NULL)
		scenario = base + 1;
	if (n > 0)
		export_add(get(), caption, title, scenario, input, len, r, n);
	else if (text != NULL)
		export_note(get(), caption, scenario, text);
}

const struct export_log *
lesson_log(void)
{
	return get();
}

size_t
lesson_inputs(void)
{
	const struct export_log *l = get();
	size_t i, k = 0;

	for (i = 0; i < l->n; i++)
		k += l->steps[i].nrows > 0;
	return k;
}

void
lesson_clear(void)
{
	export_clear(get());
}

char *
lesson_title(void)
{
	const struct export_log *l = get();
	struct sbuf b = SBUF_INIT;
	size_t i, j;

	for (i = 0; i < l->n; i++) {
		const char *sc = l->steps[i].scenario;

		if (sc == NULL)
			continue;
		for (j = 0; j < i; j++)
			if (l->steps[j].scenario != NULL &&
			    strcmp(l->steps[j].scenario, sc) == 0)
				break;
		if (j == i)
			sbuf_addf(&b, "%s%s", b.len ? ", " : "", sc);
	}
	if (b.len == 0)
		sbuf_adds(&b, "a session");
	{
		char *t = xasprintf("sandboxrepl: %s", sbuf_cstr(&b));
		sbuf_free(&b);
		return t;
	}
}
