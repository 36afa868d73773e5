/*
 * cmd_world.c -- the worlds' commands, written from the command table.
 *
 * A CPython world runs a command as a Python function of the same name
 * (world/pyrun.c compiles them once in the zygote and binds them as
 * builtins).  Each takes the essay's dict form, read_file({'path': 'x'}),
 * and the plain ones, read_file('x') or read_file(path='x'), as
 * cmd_make_args does, with the same errors (each shows a call that
 * works): args_of below, given the entry's keys, required keys and
 * example.  What it does is the entry's world text.  Its message (what
 * the trace shows after "->") is left in said[0].
 *
 * The source is written as it was when it was kept by hand in pyrun.c,
 * line for line, so a traceback through a command names the same lines.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_world.h"
#include "base/sbuf.h"
#include "base/textesc.h"
#include "base/xalloc.h"

static const char head[] =
"def _sandboxrepl_commands():\n"
"    said = [None]\n"
"    def args_of(name, keys, required, example, args, kwargs):\n"
"        if len(args) == 1 and not kwargs and type(args[0]) is dict:\n"
"            d = dict(args[0])\n"
"        elif len(args) <= len(keys):\n"
"            d = dict(zip(keys, args)); d.update(kwargs)\n"
"        else:\n"
"            takes = ('takes no arguments' if not keys else\n"
"                     f'takes one argument ({keys[0]}) or its dict'\n"
"                     if len(keys) == 1 else\n"
"                     f'takes up to {len(keys)} arguments '\n"
"                     f'({\", \".join(keys)}) or their dict')\n"
"            raise TypeError(f'{name}() {takes}, e.g. {example}')\n"
"        for k, v in d.items():\n"
"            if k not in keys and k != 'idempotency_key':\n"
"                raise TypeError(f'{name}() got an unexpected key {k!r}, '\n"
"                                f'e.g. {example}')\n"
"            if type(v) is not str:\n"
"                raise TypeError(f'{name}(): {k!r} must be a str, not '\n"
"                                f'{type(v).__name__}, e.g. {example}')\n"
"        for k in required:\n"
"            if k not in d:\n"
"                raise TypeError(f'{name}() missing required key {k!r}, '\n"
"                                f'e.g. {example}')\n"
"        return d\n";

/* A tuple of the keys in list, less the idempotency key (which the
 * functions take by keyword only). */
static void
add_tuple(struct sbuf *b, const char *const *list)
{
	size_t n = 0;

	sbuf_adds(b, "(");
	for (; list != NULL && *list != NULL; list++) {
		if (strcmp(*list, "idempotency_key") == 0)
			continue;
		if (n++ > 0)
			sbuf_adds(b, ", ");
		textesc_repr(b, *list, strlen(*list));
	}
	sbuf_adds(b, n == 1 ? ",)" : ")");
}

/* The width of a line as its C string literal was: its quotes and
 * backslashes escaped, between a quote and "\n" and a quote. */
static size_t
c_width(const char *s, size_t len)
{
	size_t i, w = len + 4;

	for (i = 0; i < len; i++)
		if (s[i] == '"' || s[i] == '\\')
			w++;
	return w;
}

/* Words after lead, filled into lines of at most 80 columns as C, the
 * lines after the first indented by indent. */
static void
add_filled(struct sbuf *b, const char *lead, struct sbuf *const words,
    size_t nwords, size_t indent)
{
	struct sbuf line = SBUF_INIT;
	size_t i;

	sbuf_adds(&line, lead);
	for (i = 0; i < nwords; i++) {
		const char *w = sbuf_cstr(&words[i]);
		size_t was = line.len;
		bool first = i == 0;
		if (!first)
			sbuf_adds(&line, " ");
		sbuf_adds(&line, w);
		if (!first && c_width(line.data, line.len) > 80) {
			line.len = was;
			sbuf_add(b, line.data, line.len);
			sbuf_adds(b, "\n");
			line.len = 0;
			sbuf_addf(&line, "%*s%s", (int)indent, "", w);
		}
	}
	sbuf_add(b, line.data, line.len);
	sbuf_adds(b, "\n");
	sbuf_free(&line);
}

/* def NAME(*args, **kwargs): its argument checked, then its body. */
static void
add_function(struct sbuf *b, const struct cmd_entry *e)
{
	struct sbuf w[6] = { SBUF_INIT, SBUF_INIT, SBUF_INIT, SBUF_INIT,
	    SBUF_INIT, SBUF_INIT };
	const char *p, *nl;
	size_t i;

	sbuf_addf(b, "    def %s(*args, **kwargs):\n", e->name);
	textesc_repr(&w[0], e->name, strlen(e->name));
	add_tuple(&w[1], e->keys);
	add_tuple(&w[2], e->required);
	textesc_repr(&w[3], e->example, strlen(e->example));
	for (i = 0; i < 4; i++)
		sbuf_adds(&w[i], ",");
	sbuf_adds(&w[4], "args,");
	sbuf_adds(&w[5], "kwargs)");
	add_filled(b, "        d = args_of(", w, 6, 20);
	for (i = 0; i < 6; i++)
		sbuf_free(&w[i]);
	for (p = e->world; p != NULL && *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		sbuf_addf(b, "        %.*s\n", (int)(nl - p), p);
		if (*nl == '\0')
			break;
	}
}

char *
cmd_world_source(void)
{
	struct sbuf b = SBUF_INIT, *names;
	const struct cmd_entry *e;
	size_t i, n;

	sbuf_adds(&b, head);
	for (n = 0; (e = cmd_at(n)) != NULL; n++)
		add_function(&b, e);
	names = xcalloc(n, sizeof *names);
	for (i = 0; i < n; i++)
		sbuf_addf(&names[i], "%s%s", cmd_at(i)->name, i + 1 < n ? "," :
		    n == 1 ? ",)" : ")");
	add_filled(&b, "    made = (", names, n, 12);
	for (i = 0; i < n; i++)
		sbuf_free(&names[i]);
	free(names);
	sbuf_adds(&b,
	    "    for f in made:\n"
	    "        f.__qualname__ = f.__name__\n"
	    "    return (said,) + made\n");
	return sbuf_take(&b);
}
