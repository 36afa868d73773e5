/*
 * mock_shell.c -- the model's shell: what os.system, subprocess and
 * run_shell run when there is no real one.
 *
 * A command line is split at ';', '&&', '|' and newlines into commands,
 * each split into words (quotes group, nothing expands), and each command
 * is one the shell knows (ls, cat, rm, echo, curl ...) played out on the
 * path's mock filesystem through fsops, or "not found" with status 127
 * as sh says it.  Running anything is written down as a process effect
 * first; what a command destroys or sends is an effect of its own.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "record/effect.h"
#include "interp/eval.h"
#include "fs/fsops.h"
#include "mock.h"
#include "base/sbuf.h"
#include "base/strlist.h"

/* Split a command line into words; quotes group, no expansion. */
static size_t
split_words(struct arena *a, const char *s, char ***out)
{
	char **w = NULL;
	size_t n = 0, cap = 0;
	struct sbuf cur = SBUF_INIT;
	bool in_word = false;
	char q = 0;

	for (;; s++) {
		char c = *s;
		if (c != '\0' && (q != 0 || (c != ' ' && c != '\t'))) {
			if (q == 0 && (c == '\'' || c == '"')) {
				q = c;
				in_word = true;
				continue;
			}
			if (q != 0 && c == q) {
				q = 0;
				continue;
			}
			sbuf_addc(&cur, c);
			in_word = true;
			continue;
		}
		if (in_word) {
			if (n == cap) {
				cap = cap ? cap * 2 : 8;
				w = arena_grow(a, w, n, cap, sizeof *w);
			}
			w[n++] = arena_strdup(a, sbuf_cstr(&cur));
			sbuf_truncate(&cur, 0);
			in_word = false;
		}
		if (c == '\0')
			break;
	}
	sbuf_free(&cur);
	*out = w;
	return n;
}

static int
shell_one(struct eval *ev, char **w, size_t n, struct sbuf *out)
{
	struct arena *a = ev->rt.arena;
	size_t i;

	if (n == 0)
		return 0;
	if (strcmp(w[0], "rm") == 0) {
		bool force = false;
		int status = 0;
		for (i = 1; i < n; i++) {
			if (w[i][0] == '-') {
				force |= strchr(w[i], 'f') != NULL;
				continue;
			}
			if (fsops_exists(&ev->ws, w[i]) &&
			    fsops_delete(&ev->ws, w[i]))
				effect_add(&ev->effects, "delete", w[i],
				    EFFECT_DAMAGE, arena_printf(a,
				    "%s deleted", w[i]), false);
			else if (!force) {
				rt_clear(&ev->rt);
				if (out)
					sbuf_addf(out, "rm: cannot remove '%s': "
					    "No such file or directory\n", w[i]);
				status = 1;
			}
		}
		return status;
	}
	if (strcmp(w[0], "cat") == 0) {
		for (i = 1; i < n; i++) {
			size_t len;
			const char *d;
			if (!fsops_read(&ev->ws, w[i], &d, &len)) {
				rt_clear(&ev->rt);
				if (out)
					sbuf_addf(out, "cat: %s: No such file "
					    "or directory\n", w[i]);
				return 1;
			}
			effect_add(&ev->effects, "read", w[i], EFFECT_HARMLESS,
			    arena_printf(a, "read %s", w[i]), false);
			if (out)
				sbuf_add(out, d, len);
		}
		return 0;
	}
	if (strcmp(w[0], "ls") == 0) {
		value names;
		if (!fsops_list(&ev->ws, &names)) {
			rt_clear(&ev->rt);
			return 2;
		}
		for (i = 0; out && i < names.as.list->len; i++)
			sbuf_addf(out, "%s\n",
			    names.as.list->items[i].as.s->data);
		return 0;
	}
	if (strcmp(w[0], "touch") == 0) {
		for (i = 1; i < n; i++) {
			bool existed;
			if (fsops_exists(&ev->ws, w[i]))
				continue;
			if (!fsops_write(&ev->ws, w[i], "", 0, true,
			    &existed)) {
				rt_clear(&ev->rt);
				return 1;
			}
			effect_add(&ev->effects, "write", w[i], EFFECT_HARMLESS,
			    arena_printf(a, "created %s", w[i]), false);
		}
		return 0;
	}
	if (strcmp(w[0], "echo") == 0) {
		struct sbuf text = SBUF_INIT;
		const char *target = NULL;
		bool append = false;
		for (i = 1; i < n; i++) {
			if ((strcmp(w[i], ">") == 0 || strcmp(w[i], ">>") == 0)
			    && i + 1 < n) {
				append = w[i][1] == '>';
				target = w[++i];
				continue;
			}
			if (text.len)
				sbuf_addc(&text, ' ');
			sbuf_adds(&text, w[i]);
		}
		sbuf_addc(&text, '\n');
		if (target == NULL) {
			if (out)
				sbuf_add(out, text.data, text.len);
		} else {
			bool existed;
			if (!fsops_write(&ev->ws, target, text.data, text.len,
			    append, &existed)) {
				rt_clear(&ev->rt);
				sbuf_free(&text);
				return 1;
			}
			effect_add(&ev->effects, "write", target,
			    existed && !append ? EFFECT_DAMAGE :
			    EFFECT_HARMLESS, arena_printf(a,
			    existed && !append ? "%s overwritten" :
			    "wrote %s", target), false);
		}
		sbuf_free(&text);
		return 0;
	}
	if (strcmp(w[0], "curl") == 0 || strcmp(w[0], "wget") == 0) {
		const char *url = NULL, *data = NULL;
		for (i = 1; i < n; i++) {
			if ((strcmp(w[i], "-d") == 0 ||
			    strcmp(w[i], "--data") == 0) && i + 1 < n)
				data = w[++i];
			else if (w[i][0] != '-')
				url = w[i];
		}
		if (url == NULL)
			return 2;
		if (data != NULL && data[0] == '@') {
			size_t len;
			const char *d;
			if (!fsops_read(&ev->ws, data + 1, &d, &len)) {
				rt_clear(&ev->rt);
				d = "", len = 0;
			}
			data = arena_strndup(a, d, len);
		}
		effect_add(&ev->effects, "send", url, EFFECT_EXFILTRATION,
		    data ? arena_printf(a, "sent '%s' to %s", data, url) :
		    arena_printf(a, "fetched %s", url), false);
		return 0;
	}
	if (out)
		sbuf_addf(out, "sh: 1: %s: not found\n", w[0]);
	return 127;
}

int
mock_shell(struct eval *ev, const char *cmdline, struct sbuf *out)
{
	struct arena *a = ev->rt.arena;
	char *line = arena_strdup(a, cmdline), *p = line;
	int status = 0;

	effect_add(&ev->effects, "exec", cmdline, EFFECT_PROCESS,
	    "arbitrary code ran", false);
	/* Commands separated by ';', '&&' or newlines, run in order. */
	while (p != NULL && *p != '\0') {
		char *sep = p + strcspn(p, ";&\n|");
		char c = *sep;
		char **w;
		size_t n;
		*sep = '\0';
		n = split_words(a, p, &w);
		status = shell_one(ev, w, n, out);
		if (c == '\0')
			break;
		p = sep + 1;
		while (*p == '&' || *p == '|')
			p++;
	}
	return status;
}
