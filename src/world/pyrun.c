/*
 * pyrun.c -- the interpreter's side of a CPython world.
 *
 * In the zygote, pyrun_init() installs the audit hook (before
 * initialisation, so nothing runs unseen) and initialises CPython once so
 * that a world looks like Debian's python3 at its >>> prompt to its code:
 * the same modules imported (site, and what site's interactive hook
 * imports: readline, rlcompleter and through it inspect, ast, warnings),
 * the same __main__, the same object.__subclasses__() in the same order
 * (compared with /usr/bin/python3 -i, its stdin a pipe, under
 * LANG=C.UTF-8 with no third-party .pth start-up hooks: identical lists),
 * sys.argv [''], sys.ps1 and sys.ps2, '' first on sys.path.  What
 * differs: sys.flags.isolated is 1 (no PYTHON* variables, no user site),
 * and no history file is read.  The commands (their Python written from
 * the command table: src/cmd/cmd_world.c) are compiled here once, as
 * closures made in __main__ (so their __globals__ is __main__'s, as for
 * functions a user defines, and their __qualname__ their name) by a
 * factory that is then removed from it, and bound as builtins:
 * reachable by name, not in dir().
 *
 * In the world's interpreter (PID 1's child: replica.c), pyrun_serve()
 * reads requests and answers them:
 * set-up (files, environment, the teacher's names, unreported) or one
 * input.  An input runs as the prompt runs a pasted block (prompt_src):
 * parsed whole, each top-level statement compiled in 'single' mode and
 * run in turn, every expression statement's value echoed by the display
 * hook (echo: CPython's own logic, '_' bound) into the output, an
 * exception printed through sys.excepthook; names persist in __main__.
 * While it runs, the audit hook records events with
 * their arguments as text -- only str, bytes, int and None, and lists or
 * tuples of those, are rendered, so recording never calls the code's own
 * methods.  Afterwards the reply carries the status, the repr of the last
 * value echoed or the exception's last traceback line, the captured
 * output (fds 1 and 2, shared with child processes, are a file in /tmp:
 * what a terminal would have shown, the prompt's echoes and traceback
 * included, and which of its tail the prompt wrote last), the events,
 * and the workspace's tree, all capped (wire.h); what a cap cut is said
 * (K and T frames), never dropped without a word.
 *
 * The audit hook and its events are in pyrun_audit.c, the reply's frames
 * and the workspace's tree in pyrun_reply.c (pyrun_int.h between them).
 */
#include "config.h"

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd_world.h"
#include "jail/jail_int.h"
#include "pyrun_int.h"
#include "wire.h"
#include "world_int.h"

/* ---------------------------------------------------------------- */
/* The commands, compiled once in the zygote                          */
/* ---------------------------------------------------------------- */

/*
 * The commands' Python is written from the command table (cmd_world.c:
 * each command's checks and its world text), by the program, which
 * exports cmd_world_source() to this module; what each does is in its
 * own file (src/cmd/cmd_<name>.c, its world text).  Their messages (what
 * the trace shows after "->") are left in the list said_list holds.
 */

static PyObject *commands;	/* name -> the command's function */
static PyObject *said_list;	/* [message] of the last command */

void
pyrun_module_path(char *buf, size_t n)
{
	if (n > 0)
		buf[0] = '\0';
}

/* (linked in: there is no module to hand over or to take) */
int
pyrun_module_sealed(int *fd, char *why, size_t n)
{
	(void)why;
	(void)n;
	*fd = -1;
	return 0;
}

int
pyrun_module_take(int fd, char *why, size_t n)
{
	(void)fd;
	(void)why;
	(void)n;
	return 0;
}

const char *
pyrun_version(char *buf, size_t n)
{
	const char *v = Py_GetVersion();	/* "3.11.2 (main, ...) ..." */

	snprintf(buf, n, "%.*s", (int)strcspn(v, " "), v);
	return buf;
}

/*
 * How the prompt reads an input, with CPython's own parser and compiler:
 * the input is parsed whole (a syntax error anywhere runs none of it, as
 * a pasted block), then each top-level statement -- a decorated def or
 * class, a compound statement, a line of simple statements -- is
 * compiled in 'single' mode, as the interactive loop compiles what it
 * read, so every expression statement in it goes to sys.displayhook, and
 * the __future__ features a statement turns on stay on for the next
 * ones, as codeop's Compile keeps them.  (An input too deep for the
 * parser's tree is compiled whole, as the prompt compiles a line, and
 * fails as it fails there.)  compile, Interactive and the
 * flags are bound when the zygote starts: code that replaces
 * builtins.compile or patches the ast module changes its own calls, not
 * how its prompt reads.
 */
static const char prompt_src[] =
"def _sandboxrepl_prompt(Interactive, only_ast, mask, compile=compile):\n"
"    def units(source, flags):\n"
"        try:\n"
"            tree = compile(source, '<stdin>', 'exec', only_ast | flags,\n"
"                           True)\n"
"        except (RecursionError, MemoryError):\n"
"            return [source]\n"
"        return [Interactive(body=[s]) for s in tree.body]\n"
"    def compile_unit(unit, flags):\n"
"        code = compile(unit, '<stdin>', 'single', flags, True)\n"
"        return code, flags | (code.co_flags & mask)\n"
"    return units, compile_unit\n";

static PyObject *split_units;	/* units(source, flags) -> [Interactive] */
static PyObject *compile_unit;	/* compile_unit(unit, flags) -> (code, flags) */
static PyObject *real_hook;	/* CPython's own sys.displayhook */
static void pyrun_warm(void);

/*
 * The zygote's objects, every one that start-up made, moved out of the
 * collector's reach (gc.freeze(), once, before any world is forked):
 * in a forked world the cyclic collector would otherwise walk them all
 * on its every full collection, writing to each object's header, and so
 * copy the zygote's pages into the world one collection at a time -- a
 * world's inputs took 1 to 8 ms, not 0.3, until their collections had
 * copied the heap (measured with the essay expression).  What an input
 * makes is collected as before; start-up's objects are alive for the
 * interpreter's life anyway.  gc.get_freeze_count() says how many.
 */
static int
freeze_startup(char *why, size_t n)
{
	PyObject *mods = PyImport_GetModuleDict(), *gc, *r;
	int had = mods != NULL && PyDict_Check(mods) ?
	    PyDict_GetItemString(mods, "gc") != NULL : 1;

	gc = PyImport_ImportModule("gc");
	r = gc != NULL ? PyObject_CallMethod(gc, "collect", NULL) : NULL;
	Py_XDECREF(r);
	r = r != NULL ? PyObject_CallMethod(gc, "freeze", NULL) : NULL;
	Py_XDECREF(gc);
	/* (python3 -i has not imported gc: out of sys.modules again, so
	 * that the modules an input finds are python3's) */
	if (r == NULL || (!had && PyDict_DelItemString(mods, "gc") != 0)) {
		Py_XDECREF(r);
		PyErr_Clear();
		snprintf(why, n, "gc.freeze");
		return -1;
	}
	Py_DECREF(r);
	return 0;
}

/*
 * What python3 at its prompt has that `python3 -c` has not: site's
 * interactive hook imports readline and rlcompleter (rlcompleter brings
 * inspect, ast, dis, tokenize...), sys.ps1 and sys.ps2 are set.  The
 * hook's history file is not read: it is the host's user's, not the
 * world's.  The commands are builtins, as the prompt's own exit()
 * and help() are: reachable by name, not in dir().  Then the prompt's
 * reader (prompt_src), compiled where the code cannot see it.
 */
static int
at_the_prompt(char *why, size_t n)
{
	static const char *const imports[] = { "readline", "rlcompleter",
	    "ast", NULL };
	PyObject *builtins = PyEval_GetBuiltins(), *ast = NULL;
	PyObject *globals, *code, *r, *made = NULL, *ps, *name, *f;
	Py_ssize_t pos;
	size_t i;

	for (i = 0; imports[i] != NULL; i++) {
		PyObject *m = PyImport_ImportModule(imports[i]);
		if (m == NULL && strcmp(imports[i], "readline") == 0) {
			PyErr_Clear();	/* (a Python built without it) */
			continue;
		}
		if (m == NULL) {
			PyErr_Clear();
			snprintf(why, n, "import %s", imports[i]);
			return -1;
		}
		if (strcmp(imports[i], "ast") == 0)
			ast = m;
		else
			Py_DECREF(m);
	}
	ps = PyUnicode_FromString(">>> ");
	if (ps == NULL || PySys_SetObject("ps1", ps) != 0) {
		snprintf(why, n, "sys.ps1");
		return -1;
	}
	Py_DECREF(ps);
	ps = PyUnicode_FromString("... ");
	if (ps == NULL || PySys_SetObject("ps2", ps) != 0) {
		snprintf(why, n, "sys.ps2");
		return -1;
	}
	Py_DECREF(ps);
	pos = 0;
	while (builtins == NULL || PyDict_Next(commands, &pos, &name, &f))
		if (builtins == NULL || PyDict_SetItem(builtins, name, f) != 0) {
			PyErr_Clear();
			snprintf(why, n, "bind the commands");
			return -1;
		}
	real_hook = PySys_GetObject("displayhook");
	Py_XINCREF(real_hook);
	globals = PyDict_New();
	if (globals != NULL)
		(void)PyDict_SetItemString(globals, "__builtins__", builtins);
	code = Py_CompileString(prompt_src, "<sandboxrepl>", Py_file_input);
	r = code && globals ? PyEval_EvalCode(code, globals, globals) : NULL;
	Py_XDECREF(code);
	Py_XDECREF(r);
	{
		PyObject *fn = globals ? PyDict_GetItemString(globals,
		    "_sandboxrepl_prompt") : NULL;
		PyObject *cls = ast ? PyObject_GetAttrString(ast,
		    "Interactive") : NULL;
		if (fn != NULL && cls != NULL)
			made = PyObject_CallFunction(fn, "Oii", cls,
			    PyCF_ONLY_AST, PyCF_MASK);
		Py_XDECREF(cls);
	}
	Py_XDECREF(globals);
	Py_XDECREF(ast);
	if (real_hook == NULL || made == NULL || !PyTuple_Check(made) ||
	    PyTuple_GET_SIZE(made) != 2) {
		PyErr_Clear();
		Py_XDECREF(made);
		snprintf(why, n, "compile the prompt's reader");
		return -1;
	}
	split_units = Py_NewRef(PyTuple_GET_ITEM(made, 0));
	compile_unit = Py_NewRef(PyTuple_GET_ITEM(made, 1));
	Py_DECREF(made);
	return 0;
}

int
pyrun_init(char *why, size_t n)
{
	PyPreConfig pre;
	PyConfig cfg;
	PyStatus st;
	PyObject *sys_path, *empty, *code, *r;
	bool home_was_set;

	if (pyrun_audit_install() != 0) {
		snprintf(why, n, "PySys_AddAuditHook");
		return -1;
	}
	/* As python3 under LANG=C.UTF-8 (the world's locale). */
	PyPreConfig_InitIsolatedConfig(&pre);
	pre.configure_locale = 1;
	pre.coerce_c_locale = 1;
	st = Py_PreInitialize(&pre);
	if (PyStatus_Exception(st)) {
		snprintf(why, n, "pre-initialise: %s", st.err_msg ?
		    st.err_msg : "failed");
		return -1;
	}
	PyConfig_InitIsolatedConfig(&cfg);
	cfg.site_import = 1;		/* python3 imports site */
	cfg.install_signal_handlers = 1; /* and has its SIGINT handler */
	cfg.safe_path = 0;
	cfg.parse_argv = 0;
	cfg.inspect = 1;		/* sys.flags as at the prompt */
	cfg.interactive = 1;
	/* Explicit, or the path search follows the first python3 on PATH. */
	st = PyConfig_SetString(&cfg, &cfg.home, L"/usr");
	if (!PyStatus_Exception(st))
		st = PyConfig_SetString(&cfg, &cfg.program_name,
		    L"/usr/bin/python3");
	if (!PyStatus_Exception(st)) {
		/* sys.argv as python3 at its prompt has it */
		wchar_t *argv[] = { (wchar_t *)L"" };
		st = PyConfig_SetArgv(&cfg, 1, argv);
	}
	/* A user's python3 starts with HOME set; without it, site's start-up
	 * imports pwd to find the home directory, a module the prompt does
	 * not have.  The zygote's environment is empty (zygote.c): HOME is
	 * the world's own while CPython starts, and the world's set-up
	 * replaces os.environ as a whole. */
	home_was_set = getenv("HOME") != NULL;
	if (!home_was_set)
		(void)setenv("HOME", "/home/agent", 0);
	pyrun_audit_starting(true);
	if (!PyStatus_Exception(st))
		st = Py_InitializeFromConfig(&cfg);
	pyrun_audit_starting(false);
	if (!home_was_set)
		(void)unsetenv("HOME");
	PyConfig_Clear(&cfg);
	if (PyStatus_Exception(st)) {
		snprintf(why, n, "initialise: %s", st.err_msg ?
		    st.err_msg : "failed");
		return -1;
	}
	/* python3 at its prompt puts '' (the working directory) first. */
	sys_path = PySys_GetObject("path");
	empty = PyUnicode_FromString("");
	if (sys_path == NULL || empty == NULL ||
	    PyList_Insert(sys_path, 0, empty) != 0) {
		snprintf(why, n, "sys.path");
		return -1;
	}
	Py_DECREF(empty);

	{
		PyObject *main_mod = PyImport_AddModule("__main__");
		PyObject *md = main_mod ? PyModule_GetDict(main_mod) : NULL;
		PyObject *factory, *made = NULL;
		char *src = cmd_world_source();
		Py_ssize_t i;

		commands = PyDict_New();
		code = Py_CompileString(src, "<sandboxrepl>", Py_file_input);
		free(src);
		r = code && md ? PyEval_EvalCode(code, md, md) : NULL;
		Py_XDECREF(code);
		Py_XDECREF(r);
		factory = md ? PyDict_GetItemString(md, "_sandboxrepl_commands") :
		    NULL;
		if (factory != NULL)
			made = PyObject_CallNoArgs(factory);
		if (md != NULL)
			(void)PyDict_DelItemString(md, "_sandboxrepl_commands");
		if (commands == NULL || made == NULL || !PyTuple_Check(made) ||
		    /* (said, then each command) */
		    PyTuple_GET_SIZE(made) < 2) {
			PyErr_Clear();
			Py_XDECREF(made);
			snprintf(why, n, "compile the commands");
			return -1;
		}
		said_list = Py_NewRef(PyTuple_GET_ITEM(made, 0));
		for (i = 1; i < PyTuple_GET_SIZE(made); i++) {
			PyObject *f = PyTuple_GET_ITEM(made, i);
			PyObject *name = PyObject_GetAttrString(f, "__name__");
			int rc = name == NULL ? -1 :
			    PyDict_SetItem(commands, name, f);
			Py_XDECREF(name);
			if (rc != 0) {
				PyErr_Clear();
				Py_DECREF(made);
				snprintf(why, n, "bind the commands");
				return -1;
			}
		}
		Py_DECREF(made);
	}
	if (at_the_prompt(why, n) == -1)
		return -1;
	pyrun_warm();	/* (once, for every world forked after) */
	return freeze_startup(why, n);
}

void
pyrun_after_fork(void)
{
	PyObject *sig, *r = NULL;

	PyOS_AfterFork_Child();
	pyrun_audit_after_fork();
	(void)forks_watch();	/* (without it, copies end as before) */
	/* Ctrl-C is KeyboardInterrupt, as at Python's prompt (the zygote
	 * initialised CPython without its signal handlers: the session,
	 * not the zygote, is the one a terminal interrupts).  _signal is
	 * imported already, so sys.modules does not change. */
	sig = PyImport_ImportModule("_signal");
	if (sig != NULL) {
		PyObject *h = PyObject_GetAttrString(sig, "default_int_handler");
		if (h != NULL)
			r = PyObject_CallMethod(sig, "signal", "iO", SIGINT, h);
		Py_XDECREF(h);
	}
	Py_XDECREF(r);
	Py_XDECREF(sig);
	PyErr_Clear();
	pyrun_warm();	/* (this world's pages, while it waits) */
}

/* ---------------------------------------------------------------- */
/* Running one input                                                  */
/* ---------------------------------------------------------------- */

static PyObject *reader(PyObject *f, PyObject *arg, int flags);

/*
 * A statement and an expression like a set-up's and a first input's,
 * read, compiled and evaluated the way an input is (run_units), in a
 * namespace of their own that is dropped after: what the first input of
 * a world would otherwise pay for on the critical path -- the reader's
 * and the compiler's code and data paged in, in a forked world the
 * interpreter's pages it touches copied from the zygote's -- paid while
 * the world waits to be taken (a spare) or, in the zygote, once for
 * every world.  Nothing of it is left where an input can see it: not in
 * __main__, not in the __future__ flags (those it compiles under are
 * the world's, and the ones it returns are dropped), not as '_' (no
 * display hook runs), not as sys.last_value (any exception is cleared).
 */
static const char warm_src[] =
"_sandboxrepl_warm = [250.0, 180.0, 90.0]\n"
"round(sum(_sandboxrepl_warm) / len(_sandboxrepl_warm), 2)\n";

static PyObject *
warm_hook(PyObject *self, PyObject *v)
{
	(void)self;
	(void)v;
	Py_RETURN_NONE;
}

static PyMethodDef warm_hook_def = { "displayhook", warm_hook, METH_O,
    NULL };

static void
pyrun_warm(void)
{
	PyObject *ns = PyDict_New(), *source, *units = NULL;
	PyObject *quiet = PyCFunction_New(&warm_hook_def, NULL);
	PyObject *was = Py_XNewRef(PySys_GetObject("displayhook"));
	Py_ssize_t i;

	/* (an expression statement in 'single' mode calls the display
	 * hook: a quiet one meanwhile, so that '_' is not bound and
	 * nothing is written) */
	if (ns == NULL || quiet == NULL || was == NULL ||
	    PyDict_SetItemString(ns, "__builtins__", PyEval_GetBuiltins()) != 0
	    || PySys_SetObject("displayhook", quiet) != 0)
		goto out;
	source = PyBytes_FromStringAndSize(warm_src, sizeof warm_src - 1);
	units = source ? reader(split_units, source, 0) : NULL;
	Py_XDECREF(source);
	for (i = 0; units != NULL && PyList_Check(units) &&
	    i < PyList_GET_SIZE(units); i++) {
		PyObject *made = reader(compile_unit, PyList_GET_ITEM(units, i),
		    0), *v = NULL, *r = NULL;

		if (made != NULL && PyTuple_Check(made) &&
		    PyTuple_GET_SIZE(made) == 2)
			v = PyEval_EvalCode(PyTuple_GET_ITEM(made, 0), ns, ns);
		if (v != NULL && v != Py_None)
			r = PyObject_Repr(v);
		Py_XDECREF(r);
		Py_XDECREF(v);
		Py_XDECREF(made);
	}
out:
	if (was != NULL)
		(void)PySys_SetObject("displayhook", was);
	Py_XDECREF(was);
	Py_XDECREF(quiet);
	Py_XDECREF(units);
	if (ns != NULL)
		PyDict_Clear(ns);
	Py_XDECREF(ns);
	PyErr_Clear();
}

static uint64_t nonce;		/* of the input being answered */
static pid_t self_pid;		/* the interpreter's */
static int echo_capfd = -1;	/* the capture (fds 1 and 2) */
static off_t tb_start, tb_end;	/* where it held the traceback printed */

static void flush_std(void);

/* The capture's size: where the next write to fd 1 or 2 lands. */
static off_t
capture_size(void)
{
	struct stat sb;

	return fstat(echo_capfd, &sb) == 0 ? sb.st_size : -1;
}

static void
send_text(enum ww_type type, const char *s, size_t len, size_t cap)
{
	pyrun_send_frame(type, s, len > cap ? cap : len, NULL, 0);
	if (len > cap && (type == WW_RESULT || type == WW_MESSAGE))
		pyrun_send_cut(type == WW_RESULT ? WW_CUT_RESULT : WW_CUT_MESSAGE,
		    len);
}

static int exit_code;		/* of the SystemExit the input raised */

/* What CPython does with an unhandled SystemExit: its code is the exit
 * status (None is 0), anything else is printed to stderr and is 1. */
static void
exit_as(PyObject *value)
{
	PyObject *code = value ? PyObject_GetAttrString(value, "code") : NULL;

	PyErr_Clear();
	if (code == NULL || code == Py_None)
		exit_code = 0;
	else if (PyLong_Check(code)) {
		exit_code = (int)PyLong_AsLong(code);
		PyErr_Clear();
	} else {
		PyObject *f = PySys_GetObject("stderr");
		if (f != NULL && PyFile_WriteObject(code, f, Py_PRINT_RAW) == 0)
			(void)PyFile_WriteString("\n", f);
		PyErr_Clear();
		exit_code = 1;
	}
	Py_XDECREF(code);
}

/* The last line of the traceback Python would print, then the whole of
 * it printed to stderr. */
static void
send_exception(enum ww_status *status)
{
	PyObject *type, *value, *tb, *name, *mod, *str = NULL;
	const char *cname, *cmod, *s = NULL;
	char line[WW_MAX_ERROR];

	PyErr_Fetch(&type, &value, &tb);
	PyErr_NormalizeException(&type, &value, &tb);
	if (type == NULL) {
		send_text(WW_ERROR, "SystemError: no exception", 25,
		    WW_MAX_ERROR);
		return;
	}
	if (PyErr_GivenExceptionMatches(type, PyExc_SystemExit)) {
		*status = WW_EXITED;
		exit_as(value);
	}
	else if (PyErr_GivenExceptionMatches(type, PyExc_MemoryError))
		*status = WW_NOMEM;
	name = PyObject_GetAttrString(type, "__qualname__");
	mod = PyObject_GetAttrString(type, "__module__");
	PyErr_Clear();
	cname = name && PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
	cmod = mod && PyUnicode_Check(mod) ? PyUnicode_AsUTF8(mod) : NULL;
	PyErr_Clear();
	if (cname == NULL)
		cname = ((PyTypeObject *)type)->tp_name;
	if (value != NULL) {
		/* A SyntaxError's last line is its msg alone. */
		if (PyErr_GivenExceptionMatches(type, PyExc_SyntaxError)) {
			str = PyObject_GetAttrString(value, "msg");
			if (str != NULL && !PyUnicode_Check(str))
				Py_CLEAR(str);
		}
		if (str != NULL) {
			/* with its column, as the session's own parser says */
			PyObject *off = PyObject_GetAttrString(value, "offset");
			long col = off && PyLong_Check(off) ?
			    PyLong_AsLong(off) : 0;
			PyObject *with = col > 0 ? PyUnicode_FromFormat(
			    "%U (column %ld)", str, col) : NULL;
			Py_XDECREF(off);
			PyErr_Clear();
			if (with != NULL) {
				Py_DECREF(str);
				str = with;
			}
		}
		if (str == NULL)
			str = PyObject_Str(value);
		s = str ? PyUnicode_AsUTF8(str) : "<exception str() failed>";
		if (s == NULL)
			s = "<exception str() failed>";
		PyErr_Clear();
	}
	if (cmod != NULL && strcmp(cmod, "builtins") != 0 &&
	    strcmp(cmod, "__main__") != 0)
		snprintf(line, sizeof line, "%s.%s%s%s", cmod, cname,
		    s && *s ? ": " : "", s ? s : "");
	else
		snprintf(line, sizeof line, "%s%s%s", cname,
		    s && *s ? ": " : "", s ? s : "");
	send_text(WW_ERROR, line, strlen(line), WW_MAX_ERROR);
	Py_XDECREF(str);
	Py_XDECREF(name);
	Py_XDECREF(mod);
	if (*status == WW_EXITED) {
		Py_XDECREF(type);
		Py_XDECREF(value);
		Py_XDECREF(tb);
		return;
	}
	/* Then printed as the prompt prints it, through sys.excepthook:
	 * the traceback, "Did you mean", a syntax error's caret line; and
	 * kept in sys.last_value. */
	flush_std();
	output_sync();
	tb_start = capture_size();
	PyErr_Restore(type, value, tb);
	PyErr_PrintEx(1);
	PyErr_Clear();
	flush_std();
	output_sync();
	tb_end = capture_size();
}

static void
flush_std(void)
{
	static const char *const names[] = { "stdout", "stderr" };
	size_t i;

	for (i = 0; i < 2; i++) {
		PyObject *f = PySys_GetObject(names[i]);
		PyObject *r = f ? PyObject_CallMethod(f, "flush", NULL) : NULL;
		Py_XDECREF(r);
		PyErr_Clear();
	}
}

/* sys.stdout line-buffered, as python3's at a terminal: a print comes
 * before the listing of the os.system('ls') after it. */
static void
line_buffered_stdout(void)
{
	PyObject *out = PySys_GetObject("stdout");	/* borrowed */
	PyObject *kw = NULL, *m = NULL, *r = NULL;

	if (out != NULL && out != Py_None &&
	    (kw = Py_BuildValue("{s:O}", "line_buffering", Py_True)) != NULL &&
	    (m = PyObject_GetAttrString(out, "reconfigure")) != NULL) {
		PyObject *none = PyTuple_New(0);
		if (none != NULL)
			r = PyObject_Call(m, none, kw);
		Py_XDECREF(none);
	}
	Py_XDECREF(r);
	Py_XDECREF(m);
	Py_XDECREF(kw);
	PyErr_Clear();
}

static void
send_output(int capfd)
{
	static char buf[WW_MAX_OUTPUT];
	ssize_t n = pread(capfd, buf, sizeof buf, 0);
	struct stat sb;

	uint64_t cut = output_cut();

	/* {stream, text} frames (output.c); when the interpreter died, PID 1
	 * sends what its thread had kept */
	if (n > 0)
		pyrun_send_frame(WW_OUTPUT, buf, (size_t)n, NULL, 0);
	if (cut > 0 || (fstat(capfd, &sb) == 0 && sb.st_size >
	    (off_t)sizeof buf))
		pyrun_send_cut(WW_CUT_OUTPUT, cut > 0 ? output_total() :
		    (uint64_t)sb.st_size);
}

void
pyrun_ended(int sock, int capfd, int wsdir, int ws)
{
	int32_t w = ws;

	pyrun_reply_to(sock);
	pyrun_send_frame(WW_ENDED, &w, 4, NULL, 0);
	send_output(capfd);
	pyrun_send_workspace(wsdir);
	pyrun_send_frame(WW_END, NULL, 0, NULL, 0);
}

/* The names __main__ binds, as a user would list them: no dunders, not
 * the commands; NUL-separated, cut at the cap. */
static void
send_names(PyObject *main_dict)
{
	static char buf[WW_MAX_NAMES];
	PyObject *key, *val;
	Py_ssize_t pos = 0;
	size_t len = 0;
	uint64_t unlisted = 0;

	while (PyDict_Next(main_dict, &pos, &key, &val)) {
		const char *s;
		size_t n;
		bool command;

		if (!PyUnicode_CheckExact(key) ||
		    (s = PyUnicode_AsUTF8(key)) == NULL) {
			PyErr_Clear();
			continue;
		}
		if (strncmp(s, "__", 2) == 0)
			continue;
		command = PyDict_GetItemString(commands, s) == val;
		n = strlen(s) + 1;
		if (command)
			continue;
		if (n > sizeof buf - len) {
			unlisted++;
			continue;
		}
		memcpy(buf + len, s, n);
		len += n;
	}
	pyrun_send_frame(WW_NAMES, buf, len, NULL, 0);
	if (unlisted > 0)
		pyrun_send_cut(WW_CUT_NAMES, unlisted);
}

/*
 * Plain data (wire.h's L frame): exact built-in types only, so that its
 * repr runs none of the code's own methods, within a count of items and
 * a depth (a list that holds itself is not plain: its repr would say
 * "[...]").
 */
static bool
is_plain(PyObject *o, int depth, long *items)
{
	Py_ssize_t i, n;

	if (--*items < 0 || depth > 20)
		return false;
	if (o == Py_None || PyBool_Check(o) || PyLong_CheckExact(o) ||
	    PyUnicode_CheckExact(o) || PyBytes_CheckExact(o))
		return true;
	if (PyFloat_CheckExact(o))
		return isfinite(PyFloat_AS_DOUBLE(o));
	if (PyList_CheckExact(o) || PyTuple_CheckExact(o)) {
		n = PySequence_Fast_GET_SIZE(o);
		for (i = 0; i < n; i++)
			if (!is_plain(PySequence_Fast_GET_ITEM(o, i), depth + 1,
			    items))
				return false;
		return true;
	}
	if (PyDict_CheckExact(o)) {
		PyObject *k, *v;
		Py_ssize_t pos = 0;
		while (PyDict_Next(o, &pos, &k, &v))
			if (!is_plain(k, depth + 1, items) ||
			    !is_plain(v, depth + 1, items))
				return false;
		return true;
	}
	if (PySet_CheckExact(o) && PySet_GET_SIZE(o) > 0) {
		PyObject *k;
		Py_ssize_t pos = 0;
		Py_hash_t h;
		while (_PySet_NextEntry(o, &pos, &k, &h))
			if (!is_plain(k, depth + 1, items))
				return false;
		return true;
	}
	return false;
}

/* The names bound to plain data, with their reprs (wire.h's L frame),
 * within its caps; a name past them is left out (and said by the
 * session, which finds it missing). */
static void
send_literals(PyObject *main_dict)
{
	static char buf[WW_MAX_LITERALS];
	PyObject *key, *val;
	Py_ssize_t pos = 0;
	size_t len = 0;

	while (PyDict_Next(main_dict, &pos, &key, &val)) {
		const char *s, *r;
		PyObject *rep;
		Py_ssize_t rn;
		size_t n;
		long items = 10000;
		bool command;

		if (!PyUnicode_CheckExact(key) ||
		    (s = PyUnicode_AsUTF8(key)) == NULL) {
			PyErr_Clear();
			continue;
		}
		command = PyDict_GetItemString(commands, s) == val;
		if (command || strncmp(s, "__", 2) == 0 ||
		    !is_plain(val, 0, &items))
			continue;
		rep = PyObject_Repr(val);
		r = rep ? PyUnicode_AsUTF8AndSize(rep, &rn) : NULL;
		n = strlen(s);
		if (r != NULL && (size_t)rn <= WW_MAX_LITERAL &&
		    strlen(r) == (size_t)rn &&
		    n + 1 + (size_t)rn + 1 <= sizeof buf - len) {
			memcpy(buf + len, s, n + 1);
			memcpy(buf + len + n + 1, r, (size_t)rn + 1);
			len += n + 1 + (size_t)rn + 1;
		}
		PyErr_Clear();
		Py_XDECREF(rep);
	}
	pyrun_send_frame(WW_LITERALS_F, buf, len, NULL, 0);
}

/* Set the environment, through os.environ so the two agree. */
static void
set_env(const char *kv, size_t len)
{
	PyObject *os = PyImport_ImportModule("os");
	PyObject *env = os ? PyObject_GetAttrString(os, "environ") : NULL;
	const char *eq = memchr(kv, '=', len);

	if (env != NULL && eq != NULL && eq > kv) {
		PyObject *k = PyUnicode_DecodeUTF8(kv, eq - kv, "replace");
		PyObject *v = PyUnicode_DecodeUTF8(eq + 1, len -
		    (size_t)(eq + 1 - kv), "replace");
		if (k != NULL && v != NULL)
			PyObject_SetItem(env, k, v);
		Py_XDECREF(k);
		Py_XDECREF(v);
	}
	PyErr_Clear();
	Py_XDECREF(env);
	Py_XDECREF(os);
}

static void
clear_env(void)
{
	PyObject *os = PyImport_ImportModule("os");
	PyObject *env = os ? PyObject_GetAttrString(os, "environ") : NULL;
	PyObject *r = env ? PyObject_CallMethod(env, "clear", NULL) : NULL;

	Py_XDECREF(r);
	Py_XDECREF(env);
	Py_XDECREF(os);
	PyErr_Clear();
}

/* Directories seeded with their own mode, applied once every entry is
 * in (a directory 0555 must still take its files first). */
static char *dir_modes[WW_MAX_FILES];
static uint32_t dir_mode[WW_MAX_FILES];
static size_t ndir_modes;

/*
 * Seed one workspace entry (wire.h's P frame): its parents made as
 * needed, a file written and given its mode, a directory made, a link,
 * a fifo or a socket's node made; a device is not seeded.  (Inside the
 * world: a seed that points through a link of its own reaches only the
 * world's files.)
 */
static void
put_file(int wsdir, const char *p, size_t len)
{
	uint32_t plen, mode;
	char path[WW_MAX_PATH + 1];
	const char *data;
	size_t dlen, i;
	int fd;

	if (len < 8)
		return;
	memcpy(&plen, p, 4);
	memcpy(&mode, p + 4, 4);
	mode &= ~WW_UNREADABLE;
	if (plen > len - 8 || !ww_path_ok(p + 8, plen))
		return;
	memcpy(path, p + 8, plen);
	path[plen] = '\0';
	data = p + 8 + plen;
	dlen = len - 8 - plen;
	for (i = 1; i < plen; i++)
		if (path[i] == '/') {
			path[i] = '\0';
			(void)mkdirat(wsdir, path, 0755);
			path[i] = '/';
		}
	if (S_ISDIR(mode)) {
		(void)mkdirat(wsdir, path, 0755);
		if ((mode & 07777) != 0755 && ndir_modes < WW_MAX_FILES &&
		    (dir_modes[ndir_modes] = strdup(path)) != NULL)
			dir_mode[ndir_modes++] = mode & 07777;
		return;
	}
	if (S_ISLNK(mode)) {
		char target[WW_MAX_PATH + 1];
		if (dlen == 0 || dlen > WW_MAX_PATH)
			return;
		memcpy(target, data, dlen);
		target[dlen] = '\0';
		/* (the world is not the one asked for: it ends, as on a
		 * broken frame) */
		if (symlinkat(target, wsdir, path) == -1)
			_exit(0);
		return;
	}
	if (S_ISFIFO(mode) || S_ISSOCK(mode)) {
		/* (a socket's node, without a listener, as one left behind) */
		(void)mknodat(wsdir, path, (mode & (S_IFMT | 0777)), 0);
		return;
	}
	if (!S_ISREG(mode))
		return;		/* (a device cannot be made in a world) */
	fd = openat(wsdir, path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
	    O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	(void)jail_write_all(fd, data, dlen);
	if ((mode & 07777) != 0644)
		(void)fchmod(fd, mode & 07777);
	close(fd);
}

/* The seeded directories' modes, innermost first. */
static void
apply_dir_modes(int wsdir)
{
	while (ndir_modes > 0) {
		ndir_modes--;
		if (fchmodat(wsdir, dir_modes[ndir_modes],
		    dir_mode[ndir_modes], 0) == -1)
			_exit(0);	/* (as put_file's symlink) */
		free(dir_modes[ndir_modes]);
	}
}

/* The commands are builtins: a set-up's name that would shadow one
 * is dropped, as a runner that defined the commands after it had them. */
static void
unshadow_commands(PyObject *main_dict)
{
	PyObject *name, *f;
	Py_ssize_t pos = 0;

	while (PyDict_Next(commands, &pos, &name, &f))
		if (PyDict_GetItem(main_dict, name) != NULL)
			(void)PyDict_DelItem(main_dict, name);
	PyErr_Clear();
}

/*
 * sys.displayhook while an input runs: CPython's own (sysmodule.c's
 * sys_displayhook) -- '_' set to None, the repr written to sys.stdout
 * and a newline, '_' bound to the value -- written here so that the
 * repr it echoed is also the record's result without calling the code's
 * __repr__ a second time.  Whether the echo was the last thing written
 * is read from the output file when the input ends (tail_text), so an
 * echo costs what the prompt's does, in a loop too.  A displayhook the code installed is called instead, as
 * the prompt would.
 */
static PyObject *hook;		/* echo, as a function */
static PyObject *user_hook;	/* sys.displayhook as the code left it */
static PyObject *shown_value;	/* the last value the hook was given */
static PyObject *shown_repr;	/* its repr as echoed, or NULL */

/* sysmodule.c's sys_displayhook_unencodable: the repr with what the
 * stream cannot encode backslash-escaped. */
static int
write_unencodable(PyObject *outf, PyObject *repr)
{
	PyObject *enc = PyObject_GetAttrString(outf, "encoding");
	const char *e = enc && PyUnicode_Check(enc) ? PyUnicode_AsUTF8(enc) :
	    NULL;
	PyObject *bytes = e ? PyUnicode_AsEncodedString(repr, e,
	    "backslashreplace") : NULL;
	PyObject *buffer = NULL, *r = NULL;
	int rc = -1;

	if (bytes != NULL) {
		buffer = PyObject_GetAttrString(outf, "buffer");
		if (buffer == NULL)
			PyErr_Clear();
	}
	if (bytes != NULL && buffer != NULL) {
		r = PyObject_CallMethod(buffer, "write", "O", bytes);
		rc = r != NULL ? 0 : -1;
	} else if (bytes != NULL) {
		PyObject *text = PyUnicode_FromEncodedObject(bytes, e,
		    "strict");
		rc = text ? PyFile_WriteObject(text, outf, Py_PRINT_RAW) : -1;
		Py_XDECREF(text);
	}
	Py_XDECREF(r);
	Py_XDECREF(buffer);
	Py_XDECREF(bytes);
	Py_XDECREF(enc);
	return rc;
}

/*
 * Before the echo goes to stdout, what is still waiting in stderr's pipe
 * (a program's complaint, written before it ended) is read first, or
 * output.c's thread, which reads stdout first when both have data, would
 * put the echo before it.  Bounded: a program in the background that
 * keeps writing is not waited for.
 */
static void
stderr_drained(void)
{
	int n, i;

	for (i = 0; i < 200 && ioctl(2, FIONREAD, &n) == 0 && n > 0; i++)
		(void)poll(NULL, 0, 1);
}

static PyObject *
echo(PyObject *self, PyObject *o)
{
	static PyObject *builtins_name;
	PyObject *builtins, *outf, *repr;

	(void)self;
	Py_CLEAR(shown_repr);
	Py_XSETREF(shown_value, Py_NewRef(o));
	if (user_hook != NULL && user_hook != real_hook)
		return PyObject_CallOneArg(user_hook, o);
	if (builtins_name == NULL &&
	    (builtins_name = PyUnicode_InternFromString("builtins")) == NULL)
		return NULL;
	builtins = PyImport_GetModule(builtins_name);
	if (builtins == NULL) {
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_RuntimeError,
			    "lost builtins module");
		return NULL;
	}
	Py_DECREF(builtins);	/* (sys.modules holds it) */
	/* None is not echoed: the record's result is still 'None', for an
	 * expression whose value it is, and null for a statement. */
	if (o == Py_None)
		Py_RETURN_NONE;
	if (PyObject_SetAttrString(builtins, "_", Py_None) != 0)
		return NULL;
	outf = PySys_GetObject("stdout");
	if (outf == NULL || outf == Py_None) {
		PyErr_SetString(PyExc_RuntimeError, "lost sys.stdout");
		return NULL;
	}
	Py_INCREF(outf);
	repr = PyObject_Repr(o);
	if (repr == NULL) {
		Py_DECREF(outf);
		return NULL;
	}
	stderr_drained();
	if (PyFile_WriteObject(repr, outf, Py_PRINT_RAW) != 0 &&
	    (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError) ||
	    (PyErr_Clear(), write_unencodable(outf, repr)) != 0)) {
		Py_DECREF(repr);
		Py_DECREF(outf);
		return NULL;
	}
	if (PyFile_WriteString("\n", outf) != 0) {
		Py_DECREF(repr);
		Py_DECREF(outf);
		return NULL;
	}
	Py_DECREF(outf);
	shown_repr = repr;
	if (PyObject_SetAttrString(builtins, "_", o) != 0)
		return NULL;
	Py_RETURN_NONE;
}

static PyMethodDef echo_def = {
	"displayhook", echo, METH_O, NULL
};


/*
 * The output file (output.c): frames of a stream byte, a u32 length and
 * text; or, when its pipes could not be made, the text alone, as stdout.
 * Its first size bytes are read into buf; false when they are not frames
 * to the end.
 */
static char file_buf[WW_MAX_OUTPUT];

static bool
read_frames(int capfd, off_t size, size_t *len)
{
	ssize_t n = size > 0 ? pread(capfd, file_buf, (size_t)size, 0) : 0;
	size_t off = 0;

	*len = n > 0 ? (size_t)n : 0;
	while (off + 5 <= *len && (file_buf[off] == 'o' ||
	    file_buf[off] == 'e')) {
		uint32_t l;
		memcpy(&l, file_buf + off + 1, 4);
		if (l > *len - off - 5)
			break;
		off += 5 + l;
	}
	return off == *len;
}

/* Did the output end with want and a newline, on stdout (the echo the
 * prompt wrote last)? */
static bool
tail_text(int capfd, off_t size, const char *want, size_t wlen)
{
	static char text[WW_MAX_OUTPUT];
	size_t len, off = 0, tlen = 0;

	if (!read_frames(capfd, size, &len)) {
		memcpy(text, file_buf, len);	/* (unframed: one text) */
		tlen = len;
	} else
		while (off < len) {
			uint32_t l;
			memcpy(&l, file_buf + off + 1, 4);
			if (file_buf[off] != 'o')
				tlen = 0;	/* stdout's last run only */
			else {
				memcpy(text + tlen, file_buf + off + 5, l);
				tlen += l;
			}
			off += 5 + l;
		}
	return tlen >= wlen + 1 && text[tlen - 1] == '\n' &&
	    memcmp(text + tlen - 1 - wlen, want, wlen) == 0;
}

/* The bytes of text the output file holds from offset from to to (whole
 * frames, as output_sync() left them on both sides). */
static uint32_t
text_bytes(int capfd, off_t from, off_t to)
{
	size_t len, off = 0;
	uint32_t n = 0;

	if (!read_frames(capfd, to, &len))
		return (uint32_t)(to - from);
	while (off < len) {
		uint32_t l;
		memcpy(&l, file_buf + off + 1, 4);
		if ((off_t)off >= from)
			n += l;
		off += 5 + l;
	}
	return n;
}

/* Call the prompt's reader (prompt_src) with its flags, unrecorded; an
 * exception it raises has no traceback of the reader's frames. */
static PyObject *
reader(PyObject *f, PyObject *arg, int flags)
{
	PyObject *r = PyObject_CallFunction(f, "Oi", arg, flags);

	if (r == NULL) {
		PyObject *type, *value, *tb;
		PyErr_Fetch(&type, &value, &tb);
		PyErr_NormalizeException(&type, &value, &tb);
		Py_XDECREF(tb);
		PyErr_Restore(type, value, NULL);
	}
	return r;
}

static int future_flags;	/* the __future__ features turned on */

/*
 * Run the input as the prompt would run it pasted: each statement in
 * turn (prompt_src), up to the first that raises.  True when it ran;
 * false with the exception set, *read_error when the reader raised it
 * (a syntax error: nothing ran of that statement).
 */
static bool
run_units(PyObject *main_dict, const char *src, size_t len, bool setup,
    bool *read_error)
{
	PyObject *source, *units;
	Py_ssize_t i;
	bool ok = true;

	*read_error = true;
	if (memchr(src, '\0', len) != NULL) {
		PyErr_SetString(PyExc_SyntaxError,
		    "source code string cannot contain null bytes");
		return false;
	}
	source = PyBytes_FromStringAndSize(src, (Py_ssize_t)len);
	units = source ? reader(split_units, source, future_flags) : NULL;
	Py_XDECREF(source);
	if (units == NULL || !PyList_Check(units)) {
		Py_XDECREF(units);
		return false;
	}
	for (i = 0; ok && i < PyList_GET_SIZE(units); i++) {
		PyObject *made = reader(compile_unit, PyList_GET_ITEM(units, i),
		    future_flags);
		PyObject *v;

		if (made == NULL || !PyTuple_Check(made) ||
		    PyTuple_GET_SIZE(made) != 2) {
			Py_XDECREF(made);
			ok = false;
			break;
		}
		future_flags = (int)PyLong_AsLong(PyTuple_GET_ITEM(made, 1));
		PyErr_Clear();
		*read_error = false;
		pyrun_audit_recording(!setup);
		v = PyEval_EvalCode(PyTuple_GET_ITEM(made, 0), main_dict,
		    main_dict);
		pyrun_spawn_check();
		pyrun_audit_recording(false);
		Py_DECREF(made);
		if (v == NULL)
			ok = false;
		Py_XDECREF(v);
		if (ok) {
			/* as the prompt flushes after each statement */
			flush_std();
			*read_error = true;
		}
	}
	if (getpid() != self_pid) {
		/* A copy the code forked ran the rest of the input, as a
		 * pasted block runs on in a forked python3 (pid == 0 and
		 * os.execv(...) in the statement after the fork); it must
		 * not answer for the interpreter: it says what it raised,
		 * as a copy at a terminal would, and ends. */
		if (!ok && PyErr_Occurred())
			PyErr_Print();
		flush_std();
		_exit(0);
	}
	if (ok)
		*read_error = false;
	Py_DECREF(units);
	return ok;
}

static void
run_input(PyObject *main_dict, const char *src, size_t len, bool setup,
    bool literals, bool command, int capfd, int wsdir)
{
	enum ww_status status = WW_OK;
	PyObject *said, *cur;
	bool ran, read_error;
	off_t end;
	uint32_t st, tail[2] = { 0, 0 };	/* enum ww_tail, bytes */

	pyrun_audit_start();
	{
		/* refusals before this input are not its own */
		struct jailkind_refusal old[JAILKIND_MAX_REFUSALS];
		unsigned d;
		(void)jailkind_take(old, JAILKIND_MAX_REFUSALS, &d);
	}
	if (!setup) {
		output_begin();		/* (capfd: output.c's file) */
		forks_begin();
		said = said_list;
		if (said != NULL && PyList_Check(said) &&
		    PyList_GET_SIZE(said) == 1)
			PyList_SetItem(said, 0, Py_NewRef(Py_None));
	}
	echo_capfd = capfd;
	tb_start = tb_end = -1;
	Py_CLEAR(shown_value);
	Py_CLEAR(shown_repr);
	/* the code's own displayhook, if an earlier input installed one */
	cur = PySys_GetObject("displayhook");
	if (cur != NULL && cur != hook)
		Py_XSETREF(user_hook, Py_NewRef(cur));
	if (PySys_SetObject("displayhook", hook) == 0)
		ran = run_units(main_dict, src, len, setup, &read_error);
	else
		ran = false, read_error = true;
	pyrun_audit_recording(false);
	if (PySys_GetObject("displayhook") == hook)
		(void)PySys_SetObject("displayhook", user_hook);
	if (!ran) {
		status = WW_RAISED;
		send_exception(&status);	/* sends WW_ERROR first, then
						   prints it as the prompt */
		if (read_error && status == WW_NOMEM)
			status = WW_RAISED;	/* the parser's own limit */
	} else if (shown_value != NULL && shown_repr != NULL) {
		Py_ssize_t n;
		const char *s = PyUnicode_AsUTF8AndSize(shown_repr, &n);
		if (s != NULL)
			send_text(WW_RESULT, s, (size_t)n, WW_MAX_RESULT);
		PyErr_Clear();
	} else if (shown_value == Py_None)
		send_text(WW_RESULT, "None", 4, WW_MAX_RESULT);
	flush_std();
	if (!setup) {
		output_sync();
		pyrun_forks_ended(forks_end());
	}
	/* What the prompt wrote last for the outcome -- the result's echo
	 * (the session says it once, as the result) or the traceback -- as
	 * the output file's last bytes: whole frames, as each was synced. */
	end = capture_size();
	if (output_cut() > 0 || end > (off_t)WW_MAX_OUTPUT)
		;	/* (the cap cut the end: no tail to tell) */
	else if (ran && shown_repr != NULL) {
		Py_ssize_t rn;
		const char *r = PyUnicode_AsUTF8AndSize(shown_repr, &rn);
		if (r != NULL && rn < (Py_ssize_t)WW_MAX_OUTPUT &&
		    tail_text(capfd, end, r, (size_t)rn)) {
			tail[0] = WW_TAIL_ECHO;
			tail[1] = (uint32_t)rn + 1;
		}
		PyErr_Clear();
	} else if (!ran && tb_start >= 0 && tb_end > tb_start &&
	    end == tb_end) {
		tail[0] = WW_TAIL_TRACEBACK;
		tail[1] = text_bytes(capfd, tb_start, tb_end);
	}
	Py_CLEAR(shown_value);
	Py_CLEAR(shown_repr);
	if (command && (said = said_list) != NULL &&
	    PyList_Check(said) && PyList_GET_SIZE(said) == 1 &&
	    PyUnicode_CheckExact(PyList_GET_ITEM(said, 0))) {
		Py_ssize_t n;
		const char *s = PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(said,
		    0), &n);
		if (s != NULL)
			send_text(WW_MESSAGE, s, (size_t)n, WW_MAX_RESULT);
		PyErr_Clear();
	}
	if (setup)
		unshadow_commands(main_dict);
	st = status;
	pyrun_send_frame(WW_STATUS, &st, 4, &nonce, 8);
	if (!setup) {
		send_output(capfd);
		if (tail[1] > 0)
			pyrun_send_frame(WW_TAIL, tail, 8, NULL, 0);
		pyrun_send_events();
	}
	send_names(main_dict);
	if (literals)
		send_literals(main_dict);
	pyrun_send_workspace(wsdir);
	pyrun_send_frame(WW_END, NULL, 0, NULL, 0);
	if (status == WW_EXITED)
		_exit(exit_code & 0xff);  /* as the interpreter would; PID 1
					     tells the session how (Z) */
}

/* Read exactly n bytes; false at EOF or on error. */
static bool
read_all(int fd, void *p, size_t n)
{
	char *c = p;

	while (n > 0) {
		ssize_t r = read(fd, c, n);
		struct pollfd pfd = { fd, POLLIN, 0 };

		if (r < 0 && errno == EINTR)
			continue;
		/* (gVisor may hand its world a host socket that is
		 * non-blocking underneath: wait, as a blocking read would) */
		if (r < 0 && errno == EAGAIN && poll(&pfd, 1, -1) >= 0)
			continue;
		if (r <= 0)
			return false;
		c += r;
		n -= (size_t)r;
	}
	return true;
}

void
pyrun_serve(int sock, int capfd, int wsdir)
{
	PyObject *main_mod = PyImport_AddModule("__main__");
	PyObject *main_dict = main_mod ? PyModule_GetDict(main_mod) : NULL;
	bool command = false, first = true;
	char *buf = NULL;

	pyrun_reply_to(sock);
	self_pid = getpid();
	/* fds 1 and 2 become pipes read in order (output.c); without them
	 * the output file takes both streams as one, as before */
	(void)output_start(capfd, sock);
	line_buffered_stdout();
	hook = PyCFunction_New(&echo_def, NULL);
	user_hook = Py_XNewRef(real_hook);
	if (main_dict == NULL || hook == NULL || user_hook == NULL)
		_exit(0);
	unshadow_commands(main_dict);
	for (;;) {
		char head[WIRE_HEADER];
		uint32_t len;

		if (!read_all(sock, head, sizeof head))
			_exit(0);
		/* The first frames are the seed.  A session renewing its
		 * world (cpython.c: seeded ahead) writes it and goes on with
		 * its answer; this world, woken on the session's CPU with a
		 * sleeper's credit, would take that CPU for its whole set-up
		 * (0.7 to 0.9 ms of the session's write, one renew in four,
		 * timed).  So it lets the session run first, once; a build
		 * that waits for the seed's answer loses nothing by it. */
		if (first) {
			first = false;
			(void)sched_yield();
		}
		memcpy(&len, head + 1, 4);
		if (len > (head[0] == WW_PUT ? WW_MAX_FILE_BYTES + 8 +
		    WW_MAX_PATH : WW_MAX_SOURCE + 1))
			_exit(0);
		free(buf);
		buf = malloc(len + 1);
		if (buf == NULL || !read_all(sock, buf, len))
			_exit(0);
		switch (head[0]) {
		case WW_PUT:
			put_file(wsdir, buf, len);
			break;
		case WW_ENV:
			if (len == 0)
				clear_env();
			else
				set_env(buf, len);
			break;
		case WW_COMMAND:
			command = true;
			break;
		case WW_INPUT:
			if (len < 9)
				_exit(0);
			memcpy(&nonce, buf + 1, 8);
			/* a Ctrl-C that came after the last input ended is
			 * not this one's */
			if (PyErr_CheckSignals() == -1)
				PyErr_Clear();
			apply_dir_modes(wsdir);
			run_input(main_dict, buf + 9, len - 9,
			    (buf[0] & WW_SETUP) != 0,
			    (buf[0] & WW_LITERALS) != 0, command, capfd, wsdir);
			command = false;
			break;
		default:
			_exit(0);
		}
	}
}
