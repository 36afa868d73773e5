/*
 * mock.c -- builtins, modules, files and the shell of the unsafe model.
 *
 * Each module is a row: its functions (natives), the attributes that are
 * classes (types of mockobj.c), its submodules, and a function for its
 * constants.  A function that would do harm does it to the path's mock
 * filesystem through fsops (or, on the jail path, for real inside the
 * jail) and writes down an effect: "damage" when something is destroyed or
 * overwritten, "exfiltration" when data leaves, "process" when a program
 * would run.  The trace line of the step is made from those effects.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "ast.h"
#include "builtins.h"
#include "effect.h"
#include "eval.h"
#include "fsops.h"
#include "mock.h"
#include "ns.h"
#include "parse.h"
#include "sbuf.h"
#include "strlist.h"

#define NATIVE(fn) static bool fn(struct rt *rt, value self, \
    const value *args, size_t nargs, const char *const *kw, size_t nkw, \
    value *out)

bool
mock_want_args(struct rt *rt, const char *fname, size_t nargs, size_t nkw,
    size_t min, size_t max)
{
	if (nkw != 0)
		return rt_raise(rt, PYEXC_TypeError, "%s() takes no keyword "
		    "arguments", fname);
	if (nargs < min || nargs > max) {
		if (min == max)
			return rt_raise(rt, PYEXC_TypeError,
			    "%s() takes exactly %zu argument%s (%zu given)",
			    fname, min,
			    min == 1 ? "" : "s", nargs);
		return rt_raise(rt, PYEXC_TypeError,
		    "%s() takes from %zu to %zu positional arguments but %zu "
		    "were given", fname, min,
		    max, nargs);
	}
	return true;
}

static bool
want_str(struct rt *rt, const char *what, value v)
{
	if (v.type != VT_STR)
		return rt_raise(rt, PYEXC_TypeError,
		    "%s must be str, not %s", what,
		    value_type_name(v));
	return true;
}

/* The value of keyword name, or of positional index pos, or NULL. */
static const value *
arg_or_kw(const value *args, size_t nargs, const char *const *kw, size_t nkw,
    size_t pos, const char *name)
{
	size_t i;
	if (pos < nargs)
		return &args[pos];
	for (i = 0; i < nkw; i++)
		if (strcmp(kw[i], name) == 0)
			return &args[nargs + i];
	return NULL;
}

static value
sv(struct rt *rt, const char *s)
{
	return value_cstr(rt->arena, s);
}

/* A command given as a string or as a list of words. */
static const char *
command_line(struct rt *rt, value v)
{
	struct sbuf b = SBUF_INIT;
	const char *s;
	size_t i, n;
	const value *items;

	if (v.type == VT_STR)
		return v.as.s->data;
	if (v.type == VT_BYTES)
		return arena_strndup(rt->arena, v.as.s->data, v.as.s->len);
	if (v.type != VT_LIST && v.type != VT_TUPLE)
		return NULL;
	n = v.type == VT_LIST ? v.as.list->len : v.as.tuple->len;
	items = v.type == VT_LIST ? v.as.list->items : v.as.tuple->items;
	for (i = 0; i < n; i++) {
		if (items[i].type != VT_STR) {
			sbuf_free(&b);
			return NULL;
		}
		if (i)
			sbuf_addc(&b, ' ');
		if (strpbrk(items[i].as.s->data, " \t'\"") != NULL)
			sbuf_addf(&b, "'%s'", items[i].as.s->data);
		else
			sbuf_adds(&b, items[i].as.s->data);
	}
	s = arena_strdup(rt->arena, sbuf_cstr(&b));
	sbuf_free(&b);
	return s;
}

/* Run a command line: for real (and to its death) in the jail, else on
 * the mock shell.  *status and the output (may be NULL) come back. */
static bool
run_process(struct eval *ev, const char *cmdline, struct sbuf *output,
    int *status)
{
	if (ev->ws.jailed)
		return fsops_exec(&ev->ws, cmdline);
	*status = mock_shell(ev, cmdline, output);
	return true;
}

/* Data leaving for a host: a real connection attempt in the jail, else the
 * essay's simulated exfiltration. */
static bool
send_to(struct eval *ev, const char *where, const char *data, size_t len)
{
	if (ev->ws.jailed)
		return fsops_connect(&ev->ws, where);
	if (data != NULL)
		effect_add(&ev->effects, "send", where, EFFECT_EXFILTRATION,
		    arena_printf(ev->rt.arena, "sent '%.*s' to %s",
		    (int)(len > 200 ? 200 : len), data, where), false);
	else
		effect_add(&ev->effects, "send", where, EFFECT_EXFILTRATION,
		    arena_printf(ev->rt.arena, "connected to %s", where), false);
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

/* ================================================================ os */

NATIVE(os_system)
{
	int status = 0;
	if (!mock_want_args(rt, "system", nargs, nkw, 1, 1) ||
	    !want_str(rt, "system() argument 1", args[0]))
		return false;
	if (!run_process(rt->ev, args[0].as.s->data, NULL, &status))
		return false;
	*out = value_int((int64_t)status << 8);
	return true;
}

NATIVE(os_popen)
{
	struct sbuf b = SBUF_INIT;
	int status = 0;
	if (!mock_want_args(rt, "popen", nargs, 0, 1, 3) ||
	    !want_str(rt, "popen() argument 'cmd'", args[0]))
		return false;
	if (!run_process(rt->ev, args[0].as.s->data, &b, &status)) {
		sbuf_free(&b);
		return false;
	}
	*out = mock_new(rt->ev, MK_PIPE, "popen");
	out->as.obj->data = value_str(rt->arena, sbuf_cstr(&b), b.len);
	sbuf_free(&b);
	return true;
}

NATIVE(os_remove)
{
	struct eval *ev = rt->ev;
	if (!mock_want_args(rt, "remove", nargs, nkw, 1, 1) ||
	    !want_str(rt, "remove: path", args[0]))
		return false;
	if (!fsops_delete(&ev->ws, args[0].as.s->data))
		return false;
	effect_add(&ev->effects, "delete", args[0].as.s->data, EFFECT_DAMAGE,
	    arena_printf(rt->arena, "deleted %s", args[0].as.s->data), false);
	*out = value_none();
	return true;
}

NATIVE(os_rename)
{
	struct eval *ev = rt->ev;
	const char *d;
	size_t len;
	bool existed;
	if (!mock_want_args(rt, "rename", nargs, nkw, 2, 2) ||
	    !want_str(rt, "rename: src", args[0]) ||
	    !want_str(rt, "rename: dst", args[1]))
		return false;
	if (!fsops_read(&ev->ws, args[0].as.s->data, &d, &len) ||
	    !fsops_write(&ev->ws, args[1].as.s->data, d, len, false,
	    &existed) ||
	    !fsops_delete(&ev->ws, args[0].as.s->data))
		return false;
	effect_add(&ev->effects, "rename", args[0].as.s->data, EFFECT_DAMAGE,
	    arena_printf(rt->arena, "renamed %s to %s", args[0].as.s->data,
	    args[1].as.s->data), false);
	*out = value_none();
	return true;
}

NATIVE(os_listdir)
{
	if (!mock_want_args(rt, "listdir", nargs, nkw, 0, 1))
		return false;
	return fsops_list(&rt->ev->ws, out);
}

NATIVE(os_getcwd)
{
	if (!mock_want_args(rt, "getcwd", nargs, nkw, 0, 0))
		return false;
	*out = sv(rt, rt->ev->ws.jailed ? "/" : "/workspace");
	return true;
}

/* The environment an agent's process would see: with a live key in it,
 * which is exactly why reading it is a leak. */
static value
environ_dict(struct rt *rt)
{
	value d = value_dict(rt->arena);
	static const char *const env[][2] = {
		{ "HOME", "/home/agent" }, { "PATH", "/usr/bin:/bin" },
		{ "USER", "agent" }, { "API_KEY", "sk-live-9f3a2b" },
	};
	size_t i;
	if (rt->ev->ws.jailed)
		return d;		/* the jail clears it */
	for (i = 0; i < sizeof env / sizeof env[0]; i++)
		value_dict_set(rt, d, sv(rt, env[i][0]), sv(rt, env[i][1]));
	return d;
}

NATIVE(os_getenv)
{
	value d;
	bool found;
	if (!mock_want_args(rt, "getenv", nargs, nkw, 1, 2) ||
	    !want_str(rt, "str expected, not", args[0]))
		return false;
	d = environ_dict(rt);
	if (!value_dict_get(rt, d, args[0], out, &found))
		return false;
	if (!found)
		*out = nargs > 1 ? args[1] : value_none();
	return true;
}

NATIVE(os_fork)
{
	struct eval *ev = rt->ev;
	if (!mock_want_args(rt, "fork", nargs, nkw, 0, 0))
		return false;
	if (ev->ws.jailed)
		return fsops_exec(&ev->ws, "fork");
	effect_add(&ev->effects, "fork", "python", EFFECT_PROCESS,
	    "forked a second interpreter", false);
	*out = value_int(4242);
	return true;
}

NATIVE(os_exec)
{
	const char *cmd;
	int status = 0;
	if (nargs < 1)
		return rt_raise(rt, PYEXC_TypeError, "exec*() missing required "
		    "argument 'path'");
	cmd = args[0].type == VT_STR ? args[0].as.s->data : "?";
	if (nargs > 1 && command_line(rt, args[1]) != NULL)
		cmd = command_line(rt, args[1]);
	if (!run_process(rt->ev, cmd, NULL, &status))
		return false;
	effect_add(&rt->ev->effects, "exit", "python", EFFECT_PROCESS,
	    "the interpreter was replaced by the program", false);
	*out = value_none();
	return true;
}

NATIVE(os_kill)
{
	if (!mock_want_args(rt, "kill", nargs, nkw, 2, 2))
		return false;
	effect_add(&rt->ev->effects, "kill", "a process", EFFECT_PROCESS,
	    "sent a signal to another process", false);
	*out = value_none();
	return true;
}

NATIVE(os_getpid)
{
	/* In the jail, the real answer: PID 1 of its own pid namespace. */
	*out = value_int(rt->ev->ws.jailed ? (int64_t)getpid() : 4242);
	return true;
}

NATIVE(os_getuid)
{
	*out = value_int(1000);
	return true;
}

NATIVE(os_chmod)
{
	if (!mock_want_args(rt, "chmod", nargs, nkw, 2, 2) ||
	    !want_str(rt, "chmod: path", args[0]))
		return false;
	effect_add(&rt->ev->effects, "chmod", args[0].as.s->data, EFFECT_DAMAGE,
	    arena_printf(rt->arena, "changed the mode of %s",
	    args[0].as.s->data), false);
	*out = value_none();
	return true;
}

static const struct mattr os_funcs[] = {
	{ "chmod", os_chmod }, { "execl", os_exec }, { "execlp", os_exec },
	{ "execv", os_exec }, { "execve", os_exec }, { "execvp", os_exec },
	{ "fork", os_fork }, { "getcwd", os_getcwd }, { "getenv", os_getenv },
	{ "getpid", os_getpid }, { "getuid", os_getuid },
	{ "kill", os_kill }, { "listdir", os_listdir }, { "popen", os_popen },
	{ "remove", os_remove }, { "rename", os_rename },
	{ "system", os_system }, { "unlink", os_remove },
	{ NULL, NULL },
};

static bool
os_consts(struct rt *rt, const char *name, value *out)
{
	if (strcmp(name, "environ") == 0)
		*out = environ_dict(rt);
	else if (strcmp(name, "name") == 0)
		*out = sv(rt, "posix");
	else if (strcmp(name, "sep") == 0)
		*out = sv(rt, "/");
	else if (strcmp(name, "curdir") == 0)
		*out = sv(rt, ".");
	else if (strcmp(name, "devnull") == 0)
		*out = sv(rt, "/dev/null");
	else if (strcmp(name, "linesep") == 0)
		*out = sv(rt, "\n");
	else
		return false;
	return true;
}

/* ---- os.path ---- */

NATIVE(path_exists)
{
	if (!mock_want_args(rt, "exists", nargs, nkw, 1, 1))
		return false;
	*out = value_bool(args[0].type == VT_STR &&
	    fsops_exists(&rt->ev->ws, args[0].as.s->data));
	return true;
}

NATIVE(path_join)
{
	struct sbuf b = SBUF_INIT;
	size_t i;
	for (i = 0; i < nargs; i++) {
		if (!want_str(rt, "join() argument", args[i])) {
			sbuf_free(&b);
			return false;
		}
		if (args[i].as.s->data[0] == '/')
			sbuf_truncate(&b, 0);
		else if (b.len && b.data[b.len - 1] != '/')
			sbuf_addc(&b, '/');
		sbuf_adds(&b, args[i].as.s->data);
	}
	*out = value_str(rt->arena, sbuf_cstr(&b), b.len);
	sbuf_free(&b);
	return true;
}

NATIVE(path_basename)
{
	const char *s, *slash;
	if (!mock_want_args(rt, "basename", nargs, nkw, 1, 1) ||
	    !want_str(rt, "basename() argument", args[0]))
		return false;
	s = args[0].as.s->data;
	slash = strrchr(s, '/');
	*out = sv(rt, slash ? slash + 1 : s);
	return true;
}

static const struct mattr path_funcs[] = {
	{ "basename", path_basename }, { "exists", path_exists },
	{ "isfile", path_exists }, { "join", path_join },
	{ NULL, NULL },
};

/* ================================================================ sys */

NATIVE(sys_exit)
{
	effect_add(&rt->ev->effects, "exit", "python", EFFECT_PROCESS,
	    "the interpreter would exit (SystemExit)", false);
	*out = value_none();
	return true;
}

static bool
sys_consts(struct rt *rt, const char *name, value *out)
{
	if (strcmp(name, "modules") == 0) {
		static const char *const loaded[] = { "builtins", "sys", "os",
		    "posix", "subprocess", "warnings", "importlib", "socket",
		    "shutil", "urllib", "urllib.request", NULL };
		const char *const *m;
		value v;
		*out = value_dict(rt->arena);
		for (m = loaded; *m != NULL; m++)
			if (mock_import(rt->ev, *m, &v))
				value_dict_set(rt, *out, sv(rt, *m), v);
		return true;
	}
	if (strcmp(name, "version") == 0)
		*out = sv(rt, "3.11.7 (main) [GCC 12.2.0]");
	else if (strcmp(name, "platform") == 0)
		*out = sv(rt, "linux");
	else if (strcmp(name, "executable") == 0)
		*out = sv(rt, "/usr/bin/python3");
	else if (strcmp(name, "argv") == 0) {
		*out = value_list(rt->arena, 1);
		value_list_append(rt->arena, *out, sv(rt, ""));
	} else if (strcmp(name, "path") == 0) {
		*out = value_list(rt->arena, 1);
		value_list_append(rt->arena, *out, sv(rt, "/usr/lib/python3.11"));
	} else
		return false;
	return true;
}

/* sys._getframe(): the module's frame, whose f_globals hold everything */
NATIVE(sys_getframe)
{
	*out = mock_new(rt->ev, MK_FRAME, "<module>");
	out->as.obj->data = mock_main_globals(rt->ev);
	return true;
}

static const struct mattr sys_funcs[] = {
	{ "_getframe", sys_getframe }, { "exit", sys_exit },
	{ NULL, NULL },
};

/* ========================================================= subprocess */

/* What subprocess.* would run: args (a string with shell=True, or a list). */
static bool
spawn(struct rt *rt, const value *args, size_t nargs, const char *const *kw,
    size_t nkw, const char *fname, struct sbuf *output, int *status)
{
	const value *a = arg_or_kw(args, nargs, kw, nkw, 0, "args");
	const char *cmd;
	if (a == NULL)
		return rt_raise(rt, PYEXC_TypeError, "%s() missing 1 required "
		    "positional argument: 'args'", fname);
	cmd = command_line(rt, *a);
	if (cmd == NULL)
		return rt_raise(rt, PYEXC_TypeError, "expected str, bytes or "
		    "os.PathLike object, not %s", value_type_name(*a));
	return run_process(rt->ev, cmd, output, status);
}

static bool
completed(struct rt *rt, const value *args, size_t nargs, const char *out_text,
    size_t out_len, int status, value *out)
{
	struct eval *ev = rt->ev;
	value d;
	if (!mock_type_named(ev, "subprocess", "CompletedProcess", out))
		return false;
	*out = mock_new(ev, MK_INSTANCE, "CompletedProcess");
	mock_type_named(ev, "subprocess", "CompletedProcess", &d);
	out->as.obj->type = d.as.obj->type;
	out->as.obj->data = value_dict(rt->arena);
	value_dict_set(rt, out->as.obj->data, sv(rt, "args"),
	    nargs ? args[0] : value_none());
	value_dict_set(rt, out->as.obj->data, sv(rt, "returncode"),
	    value_int(status));
	value_dict_set(rt, out->as.obj->data, sv(rt, "stdout"),
	    value_str(rt->arena, out_text, out_len));
	value_dict_set(rt, out->as.obj->data, sv(rt, "stderr"), value_none());
	return true;
}

NATIVE(sp_run)
{
	struct sbuf b = SBUF_INIT;
	int status = 0;
	bool ok = spawn(rt, args, nargs, kw, nkw, "run", &b, &status) &&
	    completed(rt, args, nargs, sbuf_cstr(&b), b.len, status, out);
	sbuf_free(&b);
	return ok;
}

NATIVE(sp_call)
{
	int status = 0;
	if (!spawn(rt, args, nargs, kw, nkw, "call", NULL, &status))
		return false;
	*out = value_int(status);
	return true;
}

NATIVE(sp_check_output)
{
	struct sbuf b = SBUF_INIT;
	int status = 0;
	if (!spawn(rt, args, nargs, kw, nkw, "check_output", &b, &status)) {
		sbuf_free(&b);
		return false;
	}
	*out = value_bytes(rt->arena, sbuf_cstr(&b), b.len);
	sbuf_free(&b);
	return true;
}

NATIVE(sp_getoutput)
{
	struct sbuf b = SBUF_INIT;
	int status = 0;
	if (!spawn(rt, args, nargs, kw, nkw, "getoutput", &b, &status)) {
		sbuf_free(&b);
		return false;
	}
	if (b.len && b.data[b.len - 1] == '\n')
		b.len--;
	*out = value_str(rt->arena, sbuf_cstr(&b), b.len);
	sbuf_free(&b);
	return true;
}

/* subprocess.Popen(...): runs at once; communicate() gives the output. */
NATIVE(sp_popen)
{
	struct sbuf b = SBUF_INIT;
	int status = 0;
	bool ok = spawn(rt, args, nargs, kw, nkw, "Popen", &b, &status) &&
	    completed(rt, args, nargs, sbuf_cstr(&b), b.len, status, out);
	sbuf_free(&b);
	if (ok) {
		value t;
		mock_type_named(rt->ev, "subprocess", "Popen", &t);
		out->as.obj->type = t.as.obj->type;
		out->as.obj->name = "Popen";
		value_dict_set(rt, out->as.obj->data, sv(rt, "pid"),
		    value_int(4242));
	}
	return ok;
}

static const struct mattr subprocess_funcs[] = {
	{ "Popen", sp_popen }, { "call", sp_call }, { "check_call", sp_call },
	{ "check_output", sp_check_output }, { "getoutput", sp_getoutput },
	{ "run", sp_run },
	{ NULL, NULL },
};

static bool
subprocess_consts(struct rt *rt, const char *name, value *out)
{
	if (strcmp(name, "PIPE") == 0)
		*out = value_int(-1);
	else if (strcmp(name, "STDOUT") == 0)
		*out = value_int(-2);
	else if (strcmp(name, "DEVNULL") == 0)
		*out = value_int(-3);
	else
		return false;
	return true;
}

/* ============================================================ shutil */

NATIVE(sh_rmtree)
{
	struct eval *ev = rt->ev;
	value names;
	size_t i;
	if (!mock_want_args(rt, "rmtree", nargs, 0, 1, 3) ||
	    !want_str(rt, "rmtree: path", args[0]))
		return false;
	if (!fsops_list(&ev->ws, &names))
		return false;
	for (i = 0; i < names.as.list->len; i++) {
		const char *n = names.as.list->items[i].as.s->data;
		if (!fsops_delete(&ev->ws, n))
			return false;
		effect_add(&ev->effects, "delete", n, EFFECT_DAMAGE,
		    arena_printf(rt->arena, "%s deleted", n), false);
	}
	*out = value_none();
	return true;
}

NATIVE(sh_copy)
{
	struct eval *ev = rt->ev;
	const char *d;
	size_t len;
	bool existed;
	if (!mock_want_args(rt, "copy", nargs, 0, 2, 2) ||
	    !want_str(rt, "copy: src", args[0]) ||
	    !want_str(rt, "copy: dst", args[1]))
		return false;
	if (!fsops_read(&ev->ws, args[0].as.s->data, &d, &len) ||
	    !fsops_write(&ev->ws, args[1].as.s->data, d, len, false, &existed))
		return false;
	effect_add(&ev->effects, "write", args[1].as.s->data,
	    existed ? EFFECT_DAMAGE : EFFECT_HARMLESS, arena_printf(rt->arena,
	    "copied %s to %s", args[0].as.s->data, args[1].as.s->data),
	    false);
	*out = args[1];
	return true;
}

static const struct mattr shutil_funcs[] = {
	{ "copy", sh_copy }, { "copyfile", sh_copy }, { "move", os_rename },
	{ "rmtree", sh_rmtree },
	{ NULL, NULL },
};

/* ============================================================ socket */

static const char *
address(struct rt *rt, value a)
{
	if (a.type == VT_TUPLE && a.as.tuple->len == 2 &&
	    a.as.tuple->items[0].type == VT_STR &&
	    a.as.tuple->items[1].type == VT_INT)
		return arena_printf(rt->arena, "%s:%lld",
		    a.as.tuple->items[0].as.s->data,
		    (long long)a.as.tuple->items[1].as.i);
	return NULL;
}

NATIVE(so_socket)
{
	struct eval *ev = rt->ev;
	if (ev->ws.jailed)
		return fsops_connect(&ev->ws, "socket()");
	*out = mock_new(ev, MK_SOCKET, NULL);
	return true;
}

NATIVE(so_create_connection)
{
	struct eval *ev = rt->ev;
	const char *where;
	if (nargs < 1 || (where = address(rt, args[0])) == NULL)
		return rt_raise(rt, PYEXC_TypeError,
		    "create_connection() wants an address tuple (host, port)");
	if (!send_to(ev, where, NULL, 0))
		return false;
	*out = mock_new(ev, MK_SOCKET, where);
	return true;
}

NATIVE(so_gethostname)
{
	*out = sv(rt, "workshop");
	return true;
}

static const struct mattr socket_funcs[] = {
	{ "create_connection", so_create_connection },
	{ "gethostname", so_gethostname }, { "socket", so_socket },
	{ NULL, NULL },
};

static bool
socket_consts(struct rt *rt, const char *name, value *out)
{
	if (strcmp(name, "AF_INET") == 0)
		*out = value_int(2);
	else if (strcmp(name, "SOCK_STREAM") == 0)
		*out = value_int(1);
	else if (strcmp(name, "AF_UNIX") == 0)
		*out = value_int(1);
	else
		return false;
	return true;
}

/* socket objects */
NATIVE(sock_connect)
{
	const char *where;
	if (!mock_want_args(rt, "connect", nargs, nkw, 1, 1) ||
	    (where = address(rt, args[0])) == NULL)
		return rt_raise(rt, PYEXC_TypeError,
		    "connect() wants an address tuple (host, port)");
	if (!send_to(rt->ev, where, NULL, 0))
		return false;
	self.as.obj->name = where;
	*out = value_none();
	return true;
}

NATIVE(sock_send)
{
	const char *where = self.as.obj->name;
	if (!mock_want_args(rt, "send", nargs, nkw, 1, 2))
		return false;
	if (args[0].type != VT_BYTES && args[0].type != VT_STR)
		return rt_raise(rt, PYEXC_TypeError, "a bytes-like object is "
		    "required, not '%s'", value_type_name(args[0]));
	if (where == NULL)
		return rt_raise(rt, PYEXC_OSError, "[Errno 32] Broken pipe");
	if (!send_to(rt->ev, where, args[0].as.s->data, args[0].as.s->len))
		return false;
	*out = value_int((int64_t)args[0].as.s->len);
	return true;
}

NATIVE(sock_recv)
{
	*out = value_bytes(rt->arena, "", 0);
	return true;
}

/* ========================================================= urllib */

NATIVE(url_urlopen)
{
	const value *u = arg_or_kw(args, nargs, kw, nkw, 0, "url");
	const value *d = arg_or_kw(args, nargs, kw, nkw, 1, "data");
	if (u == NULL || u->type != VT_STR)
		return rt_raise(rt, PYEXC_TypeError,
		    "urlopen() wants a URL string");
	if (!send_to(rt->ev, u->as.s->data,
	    d && d->type != VT_NONE && (d->type == VT_BYTES || d->type == VT_STR)
	    ? d->as.s->data : NULL, d && (d->type == VT_BYTES ||
	    d->type == VT_STR) ? d->as.s->len : 0))
		return false;
	if (d == NULL || d->type == VT_NONE)
		/* a plain GET still tells the host that it ran */
		(void)0;
	*out = mock_new(rt->ev, MK_RESPONSE, u->as.s->data);
	return true;
}

static const struct mattr urllib_request_funcs[] = {
	{ "urlopen", url_urlopen }, { "urlretrieve", url_urlopen },
	{ NULL, NULL },
};

/* ======================================================= importlib */

NATIVE(il_import_module)
{
	if (!mock_want_args(rt, "import_module", nargs, nkw, 1, 2) ||
	    !want_str(rt, "import_module() argument 'name'", args[0]))
		return false;
	return mock_import(rt->ev, args[0].as.s->data, out);
}

static const struct mattr importlib_funcs[] = {
	{ "import_module", il_import_module },
	{ NULL, NULL },
};

NATIVE(warn_warn)
{
	*out = value_none();
	return true;
}

static const struct mattr warnings_funcs[] = {
	{ "warn", warn_warn },
	{ NULL, NULL },
};

NATIVE(pty_spawn)
{
	int status = 0;
	const char *cmd;
	if (nargs < 1 || (cmd = command_line(rt, args[0])) == NULL)
		return rt_raise(rt, PYEXC_TypeError, "spawn() wants a command");
	if (!run_process(rt->ev, cmd, NULL, &status))
		return false;
	*out = value_int(status);
	return true;
}

static const struct mattr pty_funcs[] = {
	{ "spawn", pty_spawn },
	{ NULL, NULL },
};

/* ========================================================== modules */

static const char *const os_classes[] = { "_wrap_close", NULL };
static const char *const sp_classes[] = { "CompletedProcess", NULL };
static const char *const warnings_classes[] = { "catch_warnings", NULL };
static const char *const os_subs[] = { "path", NULL };
static const char *const urllib_subs[] = { "request", NULL };

struct mmodule {
	const char		*name;
	const struct mattr	*funcs;
	const char *const	*classes;	/* attributes that are types */
	const char *const	*subs;		/* attributes that are modules */
	bool			(*consts)(struct rt *rt, const char *name,
				    value *out);
	struct vobject		 obj;		/* the canonical module object */
};

/* A module's canonical object: the model's slots (value.h), the rest
 * filled in by mock_import(). */
#define MODULE_OBJECT { .head = { &mock_object_slots }, .kind = MK_MODULE }

static struct mmodule modules[] = {
	{ "builtins", NULL, NULL, NULL, NULL, MODULE_OBJECT },
	{ "importlib", importlib_funcs, NULL, NULL, NULL, MODULE_OBJECT },
	{ "os", os_funcs, os_classes, os_subs, os_consts, MODULE_OBJECT },
	{ "os.path", path_funcs, NULL, NULL, NULL, MODULE_OBJECT },
	{ "posix", os_funcs, NULL, NULL, os_consts, MODULE_OBJECT },
	{ "pty", pty_funcs, NULL, NULL, NULL, MODULE_OBJECT },
	{ "shutil", shutil_funcs, NULL, NULL, NULL, MODULE_OBJECT },
	{ "socket", socket_funcs, NULL, NULL, socket_consts, MODULE_OBJECT },
	{ "subprocess", subprocess_funcs, sp_classes, NULL, subprocess_consts,
	  MODULE_OBJECT },
	{ "sys", sys_funcs, NULL, NULL, sys_consts, MODULE_OBJECT },
	{ "urllib", NULL, NULL, urllib_subs, NULL, MODULE_OBJECT },
	{ "urllib.request", urllib_request_funcs, NULL, NULL, NULL,
	  MODULE_OBJECT },
	{ "warnings", warnings_funcs, warnings_classes, NULL, NULL,
	  MODULE_OBJECT },
};
#define NMODULES (sizeof modules / sizeof modules[0])

static struct mmodule *
find_module(const char *name)
{
	size_t i;
	for (i = 0; i < NMODULES; i++)
		if (strcmp(modules[i].name, name) == 0)
			return &modules[i];
	return NULL;
}

bool
mock_module_is_static(const struct vobject *o)
{
	size_t i;
	for (i = 0; i < NMODULES; i++)
		if (o == &modules[i].obj)
			return true;
	return false;
}

bool
mock_is_module(const char *name)
{
	return find_module(name) != NULL;
}

bool
mock_import(struct eval *ev, const char *name, value *out)
{
	struct mmodule *m = find_module(name);
	if (m == NULL)
		return rt_raise(&ev->rt, PYEXC_ModuleNotFoundError, "No module "
		    "named '%s'", name);
	m->obj.kind = MK_MODULE;
	m->obj.name = m->name;
	m->obj.data = value_none();
	out->type = VT_OBJECT;
	out->as.obj = &m->obj;
	return true;
}

bool
mock_module_attr(struct eval *ev, const char *module, const char *name,
    value *out)
{
	struct mmodule *m = find_module(module);
	const struct mattr *f;
	char sub[128];

	if (m == NULL)
		return false;
	if (strcmp(module, "builtins") == 0) {
		/* The module has every builtin, whatever a policy lets a
		 * user name directly: that gap is what escapes use. */
		const struct builtin *b;
		if (mock_builtin(ev, name, out))
			return true;
		if ((b = builtin_find(name)) != NULL) {
			*out = value_native(ev->rt.arena, b->name, b->fn,
			    value_none(), NULL);
			return true;
		}
		return strcmp(name, "__builtins__") != 0 &&
		    mock_type_named(ev, "builtins", name, out);
	}
	for (f = m->funcs; f != NULL && f->name != NULL; f++)
		if (strcmp(f->name, name) == 0) {
			*out = value_native(ev->rt.arena, f->name, f->fn,
			    value_none(), NULL);
			return true;
		}
	if (strlist_has(m->classes, name))
		return mock_type_named(ev, module, name, out);
	if (strlist_has(m->subs, name)) {
		snprintf(sub, sizeof sub, "%s.%s", module, name);
		return mock_import(ev, sub, out);
	}
	if (m->consts != NULL && m->consts(&ev->rt, name, out))
		return true;
	return false;
}

const char *const *
mock_module_names(const char *module)
{
	/* Built once per module from its rows; a static table after that. */
	static const char **names[NMODULES];
	struct mmodule *m = find_module(module);
	size_t i, n = 0, k;
	const struct mattr *f;
	const char **list;

	if (m == NULL)
		return NULL;
	k = (size_t)(m - modules);
	if (names[k] != NULL)
		return names[k];
	list = calloc(64, sizeof *list);
	if (list == NULL)
		return NULL;
	for (f = m->funcs; f != NULL && f->name != NULL && n < 60; f++)
		list[n++] = f->name;
	for (i = 0; m->classes != NULL && m->classes[i] != NULL && n < 62; i++)
		list[n++] = m->classes[i];
	for (i = 0; m->subs != NULL && m->subs[i] != NULL && n < 63; i++)
		list[n++] = m->subs[i];
	names[k] = list;
	return list;
}

/* ============================================ files, pipes, sockets */

NATIVE(file_read)
{
	struct eval *ev = rt->ev;
	struct vobject *f = self.as.obj;
	const char *d;
	size_t len;
	if (!mock_want_args(rt, "read", nargs, nkw, 0, 1))
		return false;
	if (f->kind == MK_PIPE) {
		*out = f->data.type == VT_STR ? f->data : sv(rt, "");
		return true;
	}
	if (f->kind == MK_RESPONSE) {
		*out = value_bytes(rt->arena, "", 0);
		return true;
	}
	if (f->kind == MK_SOCKET) {
		*out = value_bytes(rt->arena, "", 0);
		return true;
	}
	if (f->closed)
		return rt_raise(rt, PYEXC_ValueError, "I/O operation on closed "
		    "file.");
	if (f->writable)
		return rt_raise(rt, PYEXC_UnsupportedOperation, "not readable");
	if (!fsops_read(&ev->ws, f->name, &d, &len))
		return false;
	effect_add(&ev->effects, "read", f->name, EFFECT_HARMLESS,
	    arena_printf(rt->arena, "read %s", f->name), false);
	*out = value_str(rt->arena, d, len);
	return true;
}

NATIVE(file_write)
{
	struct eval *ev = rt->ev;
	struct vobject *f = self.as.obj;
	bool existed;
	if (!mock_want_args(rt, "write", nargs, nkw, 1, 1))
		return false;
	if (f->kind != MK_FILE)
		return rt_raise(rt, PYEXC_UnsupportedOperation, "not writable");
	if (f->closed)
		return rt_raise(rt, PYEXC_ValueError, "I/O operation on closed "
		    "file.");
	if (!f->writable)
		return rt_raise(rt, PYEXC_UnsupportedOperation, "not writable");
	if (args[0].type != VT_STR)
		return rt_raise(rt, PYEXC_TypeError, "write() argument must be "
		    "str, not %s", value_type_name(args[0]));
	if (!fsops_write(&ev->ws, f->name, args[0].as.s->data,
	    args[0].as.s->len, true, &existed))
		return false;
	*out = value_int((int64_t)args[0].as.s->nchars);
	return true;
}

NATIVE(file_close)
{
	if (!mock_want_args(rt, "close", nargs, nkw, 0, 0))
		return false;
	self.as.obj->closed = true;
	*out = value_none();
	return true;
}

NATIVE(file_enter)
{
	*out = self;
	return true;
}

NATIVE(resp_status)
{
	*out = value_int(200);
	return true;
}

/* readlines(): read() split after each newline */
NATIVE(file_readlines)
{
	value text;
	const char *p, *e, *nl;
	if (!file_read(rt, self, args, 0, kw, 0, &text))
		return false;
	*out = value_list(rt->arena, 4);
	for (p = text.as.s->data, e = p + text.as.s->len; p < e; p = nl) {
		nl = memchr(p, '\n', (size_t)(e - p));
		nl = nl ? nl + 1 : e;
		value_list_append(rt->arena, *out,
		    value_str(rt->arena, p, (size_t)(nl - p)));
	}
	return true;
}

static const struct mattr file_rows[] = {
	{ "__enter__", file_enter }, { "close", file_close },
	{ "read", file_read }, { "readlines", file_readlines },
	{ "write", file_write },
	{ NULL, NULL },
};

static const struct mattr socket_rows[] = {
	{ "close", file_close }, { "connect", sock_connect },
	{ "recv", sock_recv }, { "send", sock_send },
	{ "sendall", sock_send },
	{ NULL, NULL },
};

static const struct mattr response_rows[] = {
	{ "close", file_close }, { "getcode", resp_status },
	{ "read", file_read },
	{ NULL, NULL },
};

bool
mock_object_attr(struct eval *ev, value obj, const char *name, value *out)
{
	const struct mattr *rows = NULL, *r;
	const struct vobject *o = obj.as.obj;

	switch (o->kind) {
	case MK_FILE: case MK_PIPE:
		if (strcmp(name, "name") == 0 && o->kind == MK_FILE) {
			*out = sv(&ev->rt, o->name);
			return true;
		}
		if (strcmp(name, "closed") == 0) {
			*out = value_bool(o->closed);
			return true;
		}
		rows = file_rows;
		break;
	case MK_SOCKET: rows = socket_rows; break;
	case MK_RESPONSE:
		if (strcmp(name, "status") == 0) {
			*out = value_int(200);
			return true;
		}
		rows = response_rows;
		break;
	default: return false;
	}
	for (r = rows; r->name != NULL; r++)
		if (strcmp(r->name, name) == 0) {
			*out = value_native(ev->rt.arena, r->name, r->fn, obj,
			    NULL);
			return true;
		}
	return false;
}

NATIVE(builtin_open)
{
	struct eval *ev = rt->ev;
	const value *file = arg_or_kw(args, nargs, kw, nkw, 0, "file");
	const value *modev = arg_or_kw(args, nargs, kw, nkw, 1, "mode");
	const char *mode = "r";
	value o;
	bool existed;

	if (file == NULL)
		return rt_raise(rt, PYEXC_TypeError, "open() missing required "
		    "argument 'file' (pos 1)");
	if (!want_str(rt, "open() argument 'file'", *file))
		return false;
	if (modev != NULL) {
		if (!want_str(rt, "open() argument 'mode'", *modev))
			return false;
		mode = modev->as.s->data;
	}
	o = mock_new(ev, MK_FILE, arena_strdup(rt->arena, file->as.s->data));
	o.as.obj->writable = strpbrk(mode, "wax+") != NULL;
	existed = fsops_exists(&ev->ws, o.as.obj->name);
	if (!o.as.obj->writable) {
		const char *d;
		size_t len;
		if (!fsops_read(&ev->ws, o.as.obj->name, &d, &len))
			return false;
	}
	if (strchr(mode, 'w') != NULL) {
		bool was;
		if (!fsops_write(&ev->ws, o.as.obj->name, "", 0, false, &was))
			return false;
		effect_add(&ev->effects, "write", o.as.obj->name,
		    existed ? EFFECT_DAMAGE : EFFECT_HARMLESS,
		    arena_printf(rt->arena, existed ? "%s truncated" :
		    "created %s", o.as.obj->name), false);
	}
	*out = o;
	return true;
}

/* ================================================ unsafe-only builtins */

NATIVE(builtin_import)
{
	const value *n = arg_or_kw(args, nargs, kw, nkw, 0, "name");
	value top;
	char *dot;
	if (n == NULL)
		return rt_raise(rt, PYEXC_TypeError,
		    "__import__() missing required argument 'name' (pos 1)");
	if (!want_str(rt, "__import__() argument 1", *n))
		return false;
	if (!mock_import(rt->ev, n->as.s->data, out))
		return false;
	/* __import__('a.b') returns a, as CPython's does */
	dot = strchr(n->as.s->data, '.');
	if (dot != NULL && mock_import(rt->ev, arena_strndup(rt->arena,
	    n->as.s->data, (size_t)(dot - n->as.s->data)), &top))
		*out = top;
	return true;
}

/* eval/exec of a string: the same evaluator, the same model, one level
 * deeper (the depth cap bounds eval('eval(...)') chains). */
static bool
eval_source(struct rt *rt, value src, bool is_exec, value *out)
{
	struct eval *ev = rt->ev;
	struct parse_result pr;
	const char *s;
	size_t len;
	bool has_value;

	if (src.type == VT_OBJECT && src.as.obj->kind == MK_CODE &&
	    src.as.obj->data.type == VT_STR) {
		/* a code object compiled in 'exec' mode runs statements even
		 * under eval(), which then returns None */
		if (src.as.obj->pos == 1)
			is_exec = true;
		src = src.as.obj->data;
	}
	if (src.type != VT_STR && src.type != VT_BYTES)
		return rt_raise(rt, PYEXC_TypeError,
		    "%s() arg 1 must be a string, bytes or code object",
		    is_exec ? "exec" : "eval");
	s = src.as.s->data;
	len = src.as.s->len;
	parse_input(rt->arena, s, len, &pr);
	if (pr.status != PARSE_OK)
		return rt_raise(rt, PYEXC_SyntaxError, "%s", pr.error.msg ?
		    pr.error.msg : "invalid syntax");
	if (!is_exec && pr.root->kind != NODE_EXPRESSION)
		return rt_raise(rt, PYEXC_SyntaxError, "invalid syntax");
	if (rt->depth + 8 >= rt->limits.max_depth && rt->limits.max_depth)
		return rt_raise(rt, PYEXC_RecursionError,
		    "maximum recursion depth exceeded");
	rt->depth += 8;
	if (!eval_root(ev, pr.root, out, &has_value)) {
		rt->depth -= 8;
		ev->exc_node = NULL;	/* the span is in the other source */
		return false;
	}
	rt->depth -= 8;
	if (is_exec)
		*out = value_none();
	return true;
}

NATIVE(builtin_eval)
{
	if (nargs < 1)
		return rt_raise(rt, PYEXC_TypeError, "eval expected at least 1 "
		    "argument, got 0");
	return eval_source(rt, args[0], false, out);
}

NATIVE(builtin_exec)
{
	if (nargs < 1)
		return rt_raise(rt, PYEXC_TypeError, "exec expected at least 1 "
		    "argument, got 0");
	return eval_source(rt, args[0], true, out);
}

NATIVE(builtin_compile)
{
	if (nargs < 3)
		return rt_raise(rt, PYEXC_TypeError,
		    "compile() missing required argument 'mode' (pos 3)");
	if (args[0].type != VT_STR)
		return rt_raise(rt, PYEXC_TypeError,
		    "compile() arg 1 must be a string, bytes or AST object");
	*out = mock_new(rt->ev, MK_CODE, "<module>");
	out->as.obj->data = args[0];
	out->as.obj->pos = args[2].type == VT_STR &&
	    strcmp(args[2].as.s->data, "exec") == 0;
	return true;
}

/* help(): pydoc's pager runs a program ($PAGER, less), and a pager takes
 * "!command" -- the known escape from help() in a restricted shell. */
NATIVE(builtin_help)
{
	struct eval *ev = rt->ev;
	if (ev->ws.jailed)
		return fsops_exec(&ev->ws, "less");
	effect_add(&ev->effects, "exec", "pager", EFFECT_PROCESS,
	    "help() would start a pager, which runs '!command'", false);
	*out = value_none();
	return true;
}

/* license(), credits(), copyright(): print text, harmless */
NATIVE(builtin_site_text)
{
	effect_add(&rt->ev->effects, "print", "stdout", EFFECT_HARMLESS,
	    "(the interpreter's license text)", false);
	*out = value_none();
	return true;
}

NATIVE(builtin_getattr)
{
	if (nargs < 2 || nargs > 3)
		return rt_raise(rt, PYEXC_TypeError, "getattr expected %s 3 "
		    "arguments, got %zu", nargs < 2 ? "at least 2" : "at most",
		    nargs);
	if (args[1].type != VT_STR)
		return rt_raise(rt, PYEXC_TypeError,
		    "attribute name must be string, not '%s'",
		    value_type_name(args[1]));
	if (mock_getattr(rt->ev, args[0], args[1].as.s->data, out))
		return true;
	if (nargs == 3 && rt->exc.kind == EXC_PYTHON &&
	    pyexc_is(rt->exc.cls, PYEXC_AttributeError)) {
		rt_clear(rt);
		*out = args[2];
		return true;
	}
	return false;
}

NATIVE(builtin_hasattr)
{
	if (!mock_want_args(rt, "hasattr", nargs, nkw, 2, 2))
		return false;
	if (args[1].type != VT_STR)
		return rt_raise(rt, PYEXC_TypeError,
		    "attribute name must be string, not '%s'",
		    value_type_name(args[1]));
	*out = value_bool(mock_getattr(rt->ev, args[0], args[1].as.s->data,
	    out));
	rt_clear(rt);
	return true;
}

NATIVE(builtin_setattr)
{
	if (!mock_want_args(rt, "setattr", nargs, nkw, 3, 3))
		return false;
	if (args[0].type == VT_OBJECT && args[0].as.obj->kind == MK_INSTANCE &&
	    args[1].type == VT_STR) {
		*out = value_none();
		return value_dict_set(rt, args[0].as.obj->data, args[1],
		    args[2]);
	}
	return rt_raise(rt, PYEXC_TypeError, "cannot set '%s' attribute of "
	    "immutable type '%s'", args[1].type == VT_STR ?
	    args[1].as.s->data : "?", value_type_name(args[0]));
}

NATIVE(builtin_vars)
{
	if (nargs == 0) {
		*out = mock_main_globals(rt->ev);
		return true;
	}
	return mock_getattr(rt->ev, args[0], "__dict__", out);
}

NATIVE(builtin_globals)
{
	if (!mock_want_args(rt, "globals", nargs, nkw, 0, 0))
		return false;
	*out = mock_main_globals(rt->ev);
	return true;
}

NATIVE(builtin_type)
{
	if (nargs == 1 && nkw == 0) {
		*out = mock_type_of(rt->ev, args[0]);
		return true;
	}
	return rt_raise(rt, PYEXC_TypeError, "type() takes 1 or 3 arguments");
}

NATIVE(builtin_dir)
{
	struct eval *ev = rt->ev;
	static const char *const common[] = { "__class__", "__doc__",
	    "__getattribute__", "__init__", NULL };
	const char *const *n;
	*out = value_list(rt->arena, 8);
	if (nargs == 0) {
		size_t i;
		for (i = 0; ev->ns != NULL && i < ns_count(ev->ns); i++)
			value_list_append(rt->arena, *out,
			    sv(rt, ns_name(ev->ns, i, NULL)));
		return true;
	}
	if (args[0].type == VT_OBJECT && args[0].as.obj->kind == MK_MODULE &&
	    (n = mock_module_names(args[0].as.obj->name)) != NULL)
		for (; *n != NULL; n++)
			value_list_append(rt->arena, *out, sv(rt, *n));
	for (n = common; *n != NULL; n++)
		value_list_append(rt->arena, *out, sv(rt, *n));
	return true;
}

NATIVE(builtin_print)
{
	struct eval *ev = rt->ev;
	struct sbuf b = SBUF_INIT;
	size_t i;
	for (i = 0; i < nargs; i++) {
		if (i)
			sbuf_addc(&b, ' ');
		if (!value_str_of(rt, args[i], &b)) {
			sbuf_free(&b);
			return false;
		}
	}
	if (!rt_check_bytes(rt, effect_text_held(sbuf_cstr(&b),
	    b.len))) {
		sbuf_free(&b);
		return false;
	}
	effect_add(&ev->effects, "print", "stdout", EFFECT_HARMLESS,
	    sbuf_cstr(&b), false);
	sbuf_free(&b);
	*out = value_none();
	return true;
}

NATIVE(builtin_input)
{
	return rt_raise(rt, PYEXC_EOFError, "EOF when reading a line");
}

NATIVE(builtin_breakpoint)
{
	struct eval *ev = rt->ev;
	if (ev->ws.jailed)
		return fsops_exec(&ev->ws, "pdb");
	effect_add(&ev->effects, "debugger", "pdb", EFFECT_PROCESS,
	    "a debugger prompt would take any command", false);
	*out = value_none();
	return true;
}

NATIVE(builtin_id)
{
	if (!mock_want_args(rt, "id", nargs, nkw, 1, 1))
		return false;
	*out = value_int(args[0].type == VT_INT ? 9788 + args[0].as.i * 32 :
	    (int64_t)((uintptr_t)args[0].as.obj & 0xffffffffffff));
	return true;
}

NATIVE(builtin_callable)
{
	if (!mock_want_args(rt, "callable", nargs, nkw, 1, 1))
		return false;
	*out = value_bool(args[0].type == VT_NATIVE ||
	    args[0].type == VT_FUNCTION || (args[0].type == VT_OBJECT &&
	    (args[0].as.obj->kind == MK_TYPE ||
	    args[0].as.obj->kind == MK_PYFUNC)));
	return true;
}

NATIVE(builtin_next)
{
	if (nargs < 1)
		return rt_raise(rt, PYEXC_TypeError, "next expected at least 1 "
		    "argument, got 0");
	if (args[0].type == VT_OBJECT && (args[0].as.obj->kind == MK_GENERATOR ||
	    args[0].as.obj->kind == MK_ITER)) {
		struct vobject *g = args[0].as.obj;
		if (g->data.type == VT_LIST && g->pos < g->data.as.list->len) {
			*out = g->data.as.list->items[g->pos++];
			return true;
		}
		if (nargs > 1) {
			*out = args[1];
			return true;
		}
		return rt_raise(rt, PYEXC_StopIteration, "%s", "");
	}
	return rt_raise(rt, PYEXC_TypeError, "'%s' object is not an iterator",
	    value_type_name(args[0]));
}

/* Is v's type t or below it?  t a type, or a tuple of them (nested too,
 * as CPython allows). */
static bool
instance_of(struct rt *rt, value v, value t, unsigned depth, bool *res)
{
	value cur;
	size_t i;
	if (t.type == VT_TUPLE) {
		if (depth > 64)
			return rt_raise(rt, PYEXC_RecursionError,
			    "maximum recursion depth exceeded in "
			    "__instancecheck__");
		for (i = 0, *res = false; i < t.as.tuple->len && !*res; i++)
			if (!instance_of(rt, v, t.as.tuple->items[i], depth + 1,
			    res))
				return false;
		return true;
	}
	if (t.type != VT_OBJECT || t.as.obj->kind != MK_TYPE)
		return rt_raise(rt, PYEXC_TypeError,
		    "isinstance() arg 2 must be a type, a tuple of types, or a "
		    "union");
	cur = mock_type_of(rt->ev, v);
	for (int guard = 0; guard < 16 && cur.type == VT_OBJECT; guard++) {
		if (cur.as.obj == t.as.obj) {
			*res = true;
			return true;
		}
		if (!mock_getattr(rt->ev, cur, "__base__", &cur))
			return false;
	}
	*res = false;
	return true;
}

NATIVE(builtin_isinstance)
{
	bool res;
	if (!mock_want_args(rt, "isinstance", nargs, nkw, 2, 2) ||
	    !instance_of(rt, args[0], args[1], 0, &res))
		return false;
	*out = value_bool(res);
	return true;
}

NATIVE(builtin_exit)
{
	return sys_exit(rt, self, args, nargs, kw, nkw, out);
}

static const struct mattr unsafe_builtins[] = {
	{ "__import__", builtin_import }, { "breakpoint", builtin_breakpoint },
	{ "callable", builtin_callable }, { "compile", builtin_compile },
	{ "dir", builtin_dir }, { "eval", builtin_eval },
	{ "exec", builtin_exec }, { "exit", builtin_exit },
	{ "copyright", builtin_site_text }, { "credits", builtin_site_text },
	{ "getattr", builtin_getattr }, { "globals", builtin_globals },
	{ "help", builtin_help }, { "license", builtin_site_text },
	{ "hasattr", builtin_hasattr }, { "id", builtin_id },
	{ "input", builtin_input }, { "isinstance", builtin_isinstance },
	{ "locals", builtin_globals }, { "next", builtin_next },
	{ "open", builtin_open }, { "print", builtin_print },
	{ "quit", builtin_exit }, { "setattr", builtin_setattr },
	{ "type", builtin_type }, { "vars", builtin_vars },
	/* (type and object are answered as the type objects they are) */
	{ NULL, NULL },
};

const char *const *
mock_builtin_names(void)
{
	static const char *names[sizeof unsafe_builtins /
	    sizeof unsafe_builtins[0] + 1];
	size_t i;
	if (names[0] == NULL)
		for (i = 0; unsafe_builtins[i].name != NULL; i++)
			names[i] = unsafe_builtins[i].name;
	return names;
}

bool
mock_builtin(struct eval *ev, const char *name, value *out)
{
	const struct mattr *m;
	if (strcmp(name, "__builtins__") == 0)
		return mock_import(ev, "builtins", out);
	if (strcmp(name, "object") == 0 || strcmp(name, "type") == 0)
		return mock_type_named(ev, "builtins", name, out);
	for (m = unsafe_builtins; m->name != NULL; m++)
		if (strcmp(m->name, name) == 0) {
			*out = value_native(ev->rt.arena, m->name, m->fn,
			    value_none(), NULL);
			return true;
		}
	return false;
}
