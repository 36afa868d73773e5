/*
 * mock.c -- builtins, modules and files of the unsafe path.
 *
 * The model is deliberately shallow for now: enough of os, open() and
 * __import__ to play the essay's attacks out.  Each module is a table of
 * attributes; each attribute is a native function that acts on the path's
 * mock filesystem and records what it did.
 */
#include "config.h"

#include <string.h>

#include "arena.h"
#include "eval.h"
#include "mock.h"
#include "fsops.h"
#include "methods.h"
#include "mockfs.h"
#include "sbuf.h"

#define EV(rt) ((struct eval *)(rt)->owner)

static bool
want_args(struct rt *rt, const char *fname, size_t nargs, size_t nkw,
    size_t min, size_t max)
{
	if (nkw != 0)
		return rt_raise(rt, "TypeError", "%s() takes no keyword "
		    "arguments", fname);
	if (nargs < min || nargs > max) {
		if (min == max)
			return rt_raise(rt, "TypeError", "%s() takes exactly "
			    "%zu argument%s (%zu given)", fname, min,
			    min == 1 ? "" : "s", nargs);
		return rt_raise(rt, "TypeError", "%s() takes from %zu to %zu "
		    "positional arguments but %zu were given", fname, min,
		    max, nargs);
	}
	return true;
}

static bool
want_str(struct rt *rt, const char *what, value v)
{
	if (v.type != VT_STR)
		return rt_raise(rt, "TypeError", "%s must be str, not %s", what,
		    value_type_name(v));
	return true;
}

/* ---- the mock shell ---- */

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
			if (fsops_exists(ev, w[i]) && fsops_delete(ev, w[i]))
				eval_effect(ev, "delete", w[i], "damage",
				    arena_printf(a, "%s deleted", w[i]), false);
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
			if (!fsops_read(ev, w[i], &d, &len)) {
				rt_clear(&ev->rt);
				if (out)
					sbuf_addf(out, "cat: %s: No such file "
					    "or directory\n", w[i]);
				return 1;
			}
			eval_effect(ev, "read", w[i], NULL,
			    arena_printf(a, "read %s", w[i]), false);
			if (out)
				sbuf_add(out, d, len);
		}
		return 0;
	}
	if (strcmp(w[0], "ls") == 0) {
		value names;
		if (!fsops_list(ev, &names)) {
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
			if (fsops_exists(ev, w[i]))
				continue;
			if (!fsops_write(ev, w[i], "", 0, true, &existed)) {
				rt_clear(&ev->rt);
				return 1;
			}
			eval_effect(ev, "write", w[i], NULL,
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
			if (!fsops_write(ev, target, text.data, text.len,
			    append, &existed)) {
				rt_clear(&ev->rt);
				sbuf_free(&text);
				return 1;
			}
			eval_effect(ev, "write", target,
			    existed && !append ? "damage" : NULL,
			    arena_printf(a, existed && !append ?
			    "%s overwritten" : "wrote %s", target), false);
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
			if (!fsops_read(ev, data + 1, &d, &len)) {
				rt_clear(&ev->rt);
				d = "", len = 0;
			}
			data = arena_strndup(a, d, len);
		}
		eval_effect(ev, "send", url, "exfiltration", data ?
		    arena_printf(a, "sent '%s' to %s", data, url) :
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

	eval_effect(ev, "exec", cmdline, "process", "arbitrary code ran",
	    false);
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

/* ---- os ---- */

static bool
os_system(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kw, size_t nkw, value *out)
{
	if (!want_args(rt, "system", nargs, nkw, 1, 1) ||
	    !want_str(rt, "system() argument 1", args[0]))
		return false;
	if (EV(rt)->path == PATH_JAIL)
		return fsops_exec(EV(rt), args[0].as.s->data);
	*out = value_int(mock_shell(EV(rt), args[0].as.s->data, NULL) << 8);
	if (out->as.i == 0)
		*out = value_int(0);
	return true;
}

static bool
os_popen(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kw, size_t nkw, value *out)
{
	struct sbuf b = SBUF_INIT;
	if (!want_args(rt, "popen", nargs, nkw, 1, 2) ||
	    !want_str(rt, "popen() argument 1", args[0]))
		return false;
	if (EV(rt)->path == PATH_JAIL)
		return fsops_exec(EV(rt), args[0].as.s->data);
	mock_shell(EV(rt), args[0].as.s->data, &b);
	/* A file-like result: reading it gives the output.  Model it as the
	 * string itself wrapped in a read()-able object is more than the
	 * essay needs; return the text. */
	*out = value_str(rt->arena, b.data ? b.data : "", b.len);
	sbuf_free(&b);
	return true;
}

static bool
os_remove(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kw, size_t nkw, value *out)
{
	struct eval *ev = EV(rt);
	if (!want_args(rt, "remove", nargs, nkw, 1, 1) ||
	    !want_str(rt, "remove: path", args[0]))
		return false;
	if (!fsops_delete(ev, args[0].as.s->data))
		return false;
	eval_effect(ev, "delete", args[0].as.s->data, "damage",
	    arena_printf(rt->arena, "deleted %s", args[0].as.s->data), false);
	*out = value_none();
	return true;
}

static bool
os_listdir(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kw, size_t nkw, value *out)
{
	if (!want_args(rt, "listdir", nargs, nkw, 0, 1))
		return false;
	return fsops_list(EV(rt), out);
}

static bool
os_getcwd(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kw, size_t nkw, value *out)
{
	if (!want_args(rt, "getcwd", nargs, nkw, 0, 0))
		return false;
	*out = value_cstr(rt->arena, "/workspace");
	return true;
}

static const struct mattr os_attrs[] = {
	{ "getcwd", os_getcwd },
	{ "listdir", os_listdir },
	{ "popen", os_popen },
	{ "remove", os_remove },
	{ "system", os_system },
	{ "unlink", os_remove },
	{ NULL, NULL },
};

struct module_entry {
	const char		*name;
	const struct mattr	*attrs;
};

static const struct module_entry modules[] = {
	{ "os", os_attrs },
};

static const struct mclass module_class = { "module", NULL };

bool
mock_import(struct eval *ev, const char *name, value *out)
{
	size_t i;
	for (i = 0; i < sizeof modules / sizeof modules[0]; i++)
		if (strcmp(modules[i].name, name) == 0) {
			struct vobject *o = arena_alloc(ev->rt.arena, sizeof *o);
			o->cls = &module_class;
			o->name = modules[i].name;
			o->attrs = modules[i].attrs;
			out->type = VT_OBJECT;
			out->as.obj = o;
			return true;
		}
	return rt_raise(&ev->rt, "ModuleNotFoundError", "No module named "
	    "'%s'", name);
}

/* ---- files ---- */

static bool
file_read(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kw, size_t nkw, value *out)
{
	struct eval *ev = EV(rt);
	struct vobject *f = self.as.obj;
	const char *d;
	size_t len;
	if (!want_args(rt, "read", nargs, nkw, 0, 1))
		return false;
	if (f->closed)
		return rt_raise(rt, "ValueError", "I/O operation on closed "
		    "file.");
	if (f->writable)
		return rt_raise(rt, "io.UnsupportedOperation", "not readable");
	if (!fsops_read(ev, f->name, &d, &len))
		return false;
	eval_effect(ev, "read", f->name, NULL,
	    arena_printf(rt->arena, "read %s", f->name), false);
	*out = value_str(rt->arena, d, len);
	return true;
}

static bool
file_write(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kw, size_t nkw, value *out)
{
	struct eval *ev = EV(rt);
	struct vobject *f = self.as.obj;
	if (!want_args(rt, "write", nargs, nkw, 1, 1))
		return false;
	if (f->closed)
		return rt_raise(rt, "ValueError", "I/O operation on closed "
		    "file.");
	if (!f->writable)
		return rt_raise(rt, "io.UnsupportedOperation", "not writable");
	if (args[0].type != VT_STR)
		return rt_raise(rt, "TypeError", "write() argument must be "
		    "str, not %s", value_type_name(args[0]));
	{
		bool existed;
		if (!fsops_write(ev, f->name, args[0].as.s->data,
		    args[0].as.s->len, true, &existed))
			return false;
	}
	*out = value_int((int64_t)args[0].as.s->nchars);
	return true;
}

static bool
file_close(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kw, size_t nkw, value *out)
{
	if (!want_args(rt, "close", nargs, nkw, 0, 0))
		return false;
	self.as.obj->closed = true;
	*out = value_none();
	return true;
}

static const struct mattr file_attrs[] = {
	{ "close", file_close },
	{ "read", file_read },
	{ "write", file_write },
	{ NULL, NULL },
};

static const struct mclass file_class = { "_io.TextIOWrapper", file_attrs };

static bool
builtin_open(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kw, size_t nkw, value *out)
{
	struct eval *ev = EV(rt);
	struct vobject *o;
	const char *mode = "r";
	bool existed;

	if (!want_args(rt, "open", nargs, nkw, 1, 2) ||
	    !want_str(rt, "open() argument 'file'", args[0]))
		return false;
	if (nargs == 2) {
		if (!want_str(rt, "open() argument 'mode'", args[1]))
			return false;
		mode = args[1].as.s->data;
	}
	existed = fsops_exists(ev, args[0].as.s->data);
	o = arena_alloc(rt->arena, sizeof *o);
	o->cls = &file_class;
	o->name = arena_strdup(rt->arena, args[0].as.s->data);
	o->writable = strpbrk(mode, "wax") != NULL;
	if (!o->writable) {
		const char *d;
		size_t len;
		if (!fsops_read(ev, o->name, &d, &len))
			return false;
	}
	if (strchr(mode, 'w') != NULL) {
		bool was;
		if (!fsops_write(ev, o->name, "", 0, false, &was))
			return false;
		eval_effect(ev, "write", o->name, existed ? "damage" : NULL,
		    arena_printf(rt->arena, existed ? "%s truncated" :
		    "created %s", o->name), false);
	}
	out->type = VT_OBJECT;
	out->as.obj = o;
	return true;
}

static bool
builtin_import(struct rt *rt, value self, const value *args, size_t nargs,
    const char *const *kw, size_t nkw, value *out)
{
	if (nargs < 1)
		return rt_raise(rt, "TypeError", "__import__() missing required "
		    "argument 'name' (pos 1)");
	if (!want_str(rt, "__import__() argument 1", args[0]))
		return false;
	return mock_import(EV(rt), args[0].as.s->data, out);
}

static const struct mattr unsafe_builtins[] = {
	{ "__import__", builtin_import },
	{ "open", builtin_open },
	{ NULL, NULL },
};

bool
mock_builtin(struct eval *ev, const char *name, value *out)
{
	const struct mattr *m;
	for (m = unsafe_builtins; m->name != NULL; m++)
		if (strcmp(m->name, name) == 0) {
			*out = value_native(ev->rt.arena, m->name, m->fn,
			    value_none(), NULL);
			return true;
		}
	return false;
}

bool
mock_getattr(struct eval *ev, value obj, const char *name, value *out)
{
	const struct mattr *m = NULL;
	if (obj.type != VT_OBJECT) {
		/* the built-in types' methods (str.upper, list.append, ...) */
		bool found;
		if (!methods_getattr(ev, obj, name, out, &found))
			return false;
		if (found)
			return true;
	}
	if (obj.type == VT_OBJECT)
		m = obj.as.obj->attrs ? obj.as.obj->attrs :
		    obj.as.obj->cls->attrs;
	for (; m != NULL && m->name != NULL; m++)
		if (strcmp(m->name, name) == 0) {
			*out = value_native(ev->rt.arena, m->name, m->fn, obj,
			    NULL);
			return true;
		}
	if (obj.type == VT_OBJECT && obj.as.obj->cls == &module_class)
		return rt_raise(&ev->rt, "AttributeError", "module '%s' has no "
		    "attribute '%s'", obj.as.obj->name, name);
	return rt_raise(&ev->rt, "AttributeError", "'%s' object has no "
	    "attribute '%s'", obj.type == VT_OBJECT ?
	    obj.as.obj->cls->name : value_type_name(obj), name);
}

bool
mock_getitem(struct eval *ev, value obj, value idx, value *out)
{
	return rt_raise(&ev->rt, "TypeError", "'%s' object is not "
	    "subscriptable", obj.type == VT_OBJECT ? obj.as.obj->cls->name :
	    value_type_name(obj));
}

void
mock_repr(value v, struct sbuf *out)
{
	const struct vobject *o = v.as.obj;
	if (o->cls == &module_class)
		sbuf_addf(out, "<module '%s' (built-in)>", o->name);
	else if (o->cls == &file_class)
		sbuf_addf(out, "<_io.TextIOWrapper name='%s' mode='%s' "
		    "encoding='UTF-8'>", o->name, o->writable ? "w" : "r");
	else
		sbuf_addf(out, "<%s object>", o->cls->name);
}

bool
mock_call(struct eval *ev, value fn, const value *args, size_t nargs,
    const char *const *kwnames, size_t nkw, value *out)
{
	return rt_raise(&ev->rt, "TypeError", "'%s' object is not callable",
	    fn.as.obj->cls->name);
}

bool
mock_generator(struct eval *ev, value items, value *out)
{
	/* For now a generator expression yields its items as a list; the
	 * generator object (gi_frame and friends) comes with the object
	 * model. */
	(void)ev;
	*out = items;
	return true;
}
