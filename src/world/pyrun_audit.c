/*
 * pyrun_audit.c -- what a world's code did, as CPython's audit hook saw
 * it (pyrun.c's header tells the whole): the events of one input with
 * their arguments as text, the processes a spawn event did not make, the
 * copies forks.c ended, and the calls a jail world's kernel refused.
 */
#include "config.h"

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jail/jail_int.h"
#include "pyrun_int.h"
#include "wire.h"
#include "world_int.h"

static bool recording;		/* an input is running */
static bool in_hook;		/* no recursion through our own calls */
static char events[WW_MAX_EVENTS][WW_MAX_EVENT];
static uint32_t event_len[WW_MAX_EVENTS];
static uint32_t nevents, dropped;
static uint64_t events_cut;	/* events whose text met the cap */

struct text {
	char	*p;
	size_t	 len, cap;
};

static void
add(struct text *t, const char *s, size_t n)
{
	if (n > t->cap - t->len)
		n = t->cap - t->len;
	memcpy(t->p + t->len, s, n);
	t->len += n;
}

static void
adds(struct text *t, const char *s)
{
	add(t, s, strlen(s));
}

/* An argument as text, without running the code's own methods. */
static void
render(struct text *t, PyObject *o, int depth)
{
	if (o == Py_None)
		adds(t, "None");
	else if (PyUnicode_CheckExact(o)) {
		Py_ssize_t n;
		const char *s = PyUnicode_AsUTF8AndSize(o, &n);
		if (s == NULL) {
			PyErr_Clear();
			adds(t, "'?'");
			return;
		}
		add(t, "'", 1);
		add(t, s, (size_t)n);
		add(t, "'", 1);
	} else if (PyBytes_CheckExact(o) || PyByteArray_CheckExact(o) ||
	    PyLong_CheckExact(o) || PyBool_Check(o) || PyFloat_CheckExact(o)) {
		PyObject *r = PyObject_Repr(o);	/* built-in reprs only */
		const char *s = r ? PyUnicode_AsUTF8(r) : NULL;
		if (s != NULL)
			adds(t, s);
		else
			PyErr_Clear();
		Py_XDECREF(r);
	} else if ((PyTuple_CheckExact(o) || PyList_CheckExact(o)) &&
	    depth < 2) {
		Py_ssize_t i, n = PySequence_Fast_GET_SIZE(o);
		add(t, PyTuple_CheckExact(o) ? "(" : "[", 1);
		for (i = 0; i < n && t->len < t->cap; i++) {
			if (i)
				adds(t, ", ");
			render(t, PySequence_Fast_GET_ITEM(o, i), depth + 1);
		}
		add(t, PyTuple_CheckExact(o) ? ")" : "]", 1);
	} else {
		adds(t, "<");
		adds(t, Py_TYPE(o)->tp_name);
		adds(t, ">");
	}
}

/*
 * The arguments, each as a u16 length and its text: a str's or bytes'
 * own content, anything else rendered.  What does not fit is cut.
 */
static void
add_args(struct text *t, PyObject *args)
{
	Py_ssize_t i;

	for (i = 0; i < PyTuple_GET_SIZE(args) && t->cap - t->len > 2; i++) {
		PyObject *o = PyTuple_GET_ITEM(args, i);
		size_t at = t->len;
		uint16_t n;

		t->len += 2;
		if (PyUnicode_CheckExact(o)) {
			Py_ssize_t len;
			const char *s = PyUnicode_AsUTF8AndSize(o, &len);
			if (s != NULL)
				add(t, s, (size_t)len);
			PyErr_Clear();
		} else if (PyBytes_CheckExact(o))
			add(t, PyBytes_AS_STRING(o), (size_t)PyBytes_GET_SIZE(o));
		else if (PyByteArray_CheckExact(o))
			add(t, PyByteArray_AS_STRING(o),
			    (size_t)PyByteArray_GET_SIZE(o));
		else
			render(t, o, 0);
		n = (uint16_t)(t->len - at - 2);
		memcpy(t->p + at, &n, 2);
	}
}

/*
 * Events that tell how code looks at itself or is loaded rather than
 * what it does to the world: importing urllib.request alone raises a
 * hundred of them.  They are recorded only when the code that raised
 * them is the input's own (or a module from the workspace), not the
 * standard library's.  Every other event is always recorded.
 */
static const char *const introspective[] = {
	"import", "exec", "compile", "sys._getframe", "marshal.loads",
	"marshal.load", "os.listdir", "os.scandir", "object.__getattr__",
	"object.__setattr__", "object.__delattr__", "open",
	"sys._current_frames", "code.__new__", "function.__new__",
	"os.chdir", "glob.glob", "os.mkdir", NULL,
};

static bool
is_stdlib_path(const char *s)
{
	return strncmp(s, "/usr/lib/python3", 16) == 0 ||
	    strncmp(s, "/usr/local/lib/python3", 22) == 0 ||
	    strncmp(s, "<frozen ", 8) == 0;
}

/* The innermost Python frame belongs to the standard library. */
static bool
in_stdlib(void)
{
	PyFrameObject *f = PyEval_GetFrame();
	PyCodeObject *code;
	const char *s;
	bool std = false;

	if (f == NULL)
		return false;
	code = PyFrame_GetCode(f);
	if (code != NULL && PyUnicode_Check(code->co_filename)) {
		s = PyUnicode_AsUTF8(code->co_filename);
		std = s != NULL && is_stdlib_path(s);
	}
	Py_XDECREF(code);
	PyErr_Clear();
	return std;
}

static bool
is_write_open(PyObject *args)
{
	PyObject *mode;
	const char *s;

	if (PyTuple_GET_SIZE(args) < 2)
		return false;
	mode = PyTuple_GET_ITEM(args, 1);
	if (PyUnicode_CheckExact(mode)) {
		s = PyUnicode_AsUTF8(mode);
		return s != NULL && strpbrk(s, "wax+") != NULL;
	}
	return PyLong_Check(mode);	/* os.open flags */
}

static bool
is_noise(const char *event, PyObject *args)
{
	size_t i;

	if (!PyTuple_Check(args))
		return true;
	/* the kernel's refusals are sent as "seccomp" events (jailkind.c):
	 * the code's own sys.audit('seccomp', ...) is not one */
	if (strcmp(event, "seccomp") == 0 || strcmp(event, FORKS_EVENT) == 0 ||
	    strcmp(event, NOSPAWN_EVENT) == 0)
		return true;
	if (strcmp(event, "open") == 0 && is_write_open(args))
		return false;
	for (i = 0; introspective[i] != NULL; i++)
		if (strcmp(event, introspective[i]) == 0)
			return in_stdlib();
	return false;
}

/*
 * While CPython starts in the zygote, site opens the .pth start-up hooks
 * of the installed packages: setuptools' distutils hack, whatever this
 * machine added.  They are not CPython and differ from machine to
 * machine, and they change what code sees (object.__subclasses__(),
 * sys.modules, sys.meta_path), so a world hides them as a fresh Debian's
 * python3 has none: refusing the open makes site skip the file, as it
 * skips one it cannot read.  Only .pth files, only during start-up.
 */
static bool starting;

static bool
is_site_hook(PyObject *args)
{
	PyObject *path;
	const char *s;
	size_t n;

	if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) < 1)
		return false;
	path = PyTuple_GET_ITEM(args, 0);
	if (!PyUnicode_CheckExact(path) || (s = PyUnicode_AsUTF8(path)) == NULL) {
		PyErr_Clear();
		return false;
	}
	n = strlen(s);
	return n > 4 && strcmp(s + n - 4, ".pth") == 0 &&
	    (strstr(s, "/dist-packages/") != NULL ||
	    strstr(s, "/site-packages/") != NULL);
}

/*
 * Was a process created for a program the code asked for?  os.system
 * returns -1 and subprocess raises when fork fails (the world's process
 * limit full, typically), and the event alone would say a program ran.
 * The world's pid namespace's last pid (ns_last_pid, held open by PID 1
 * before the jail's Landlock: world_lastpid_fd) is read at the event and
 * again at the next event or the statement's end: unchanged, no process
 * was made, and NOSPAWN_EVENT says so -- "full" when a fork made now (a
 * raw clone: no atfork handler, so forks.c never sees it) fails with
 * EAGAIN.  Where the file cannot be read (a gVisor world), nothing is
 * said.
 */
static int world_lastpid_fd = -1;
static long spawn_lastpid = -1;	/* at a pending event, or -1 */

static long
read_lastpid(void)
{
	char buf[32];
	ssize_t n;

	if (world_lastpid_fd < 0)
		return -1;
	n = pread(world_lastpid_fd, buf, sizeof buf - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

static bool
is_spawn_event(const char *event)
{
	return strcmp(event, "os.system") == 0 ||
	    strcmp(event, "subprocess.Popen") == 0 ||
	    strcmp(event, "os.posix_spawn") == 0;
}

void
pyrun_spawn_check(void)
{
	char num[24];
	const char *why;
	struct rlimit rl;
	struct text t;
	uint16_t len;
	long pid;
	int saved = errno;

	if (spawn_lastpid < 0)
		return;
	pid = read_lastpid();
	if (pid < 0 || pid != spawn_lastpid || nevents == WW_MAX_EVENTS) {
		spawn_lastpid = -1;
		return;
	}
	spawn_lastpid = -1;
	pid = syscall(SYS_clone, (unsigned long)SIGCHLD, 0UL, 0UL, 0UL, 0UL);
	if (pid == 0)
		syscall(SYS_exit_group, 0);
	why = pid == -1 && errno == EAGAIN ? "full" : "failed";
	if (pid > 0)
		(void)waitpid((pid_t)pid, NULL, 0);
	if (getrlimit(RLIMIT_NPROC, &rl) == -1 || rl.rlim_cur == RLIM_INFINITY)
		rl.rlim_cur = 0;
	t.p = events[nevents];
	t.len = 0;
	t.cap = WW_MAX_EVENT;
	adds(&t, NOSPAWN_EVENT);
	add(&t, "", 1);
	len = (uint16_t)strlen(why);
	add(&t, (const char *)&len, 2);
	add(&t, why, len);
	len = (uint16_t)snprintf(num, sizeof num, "%llu",
	    (unsigned long long)rl.rlim_cur);
	add(&t, (const char *)&len, 2);
	add(&t, num, len);
	event_len[nevents++] = (uint32_t)t.len;
	errno = saved;
}

static int
audit_hook(const char *event, PyObject *args, void *data)
{
	struct text t;
	PyObject *type, *value, *tb;

	(void)data;
	if (starting && strcmp(event, "open") == 0 && is_site_hook(args)) {
		PyErr_SetString(PyExc_OSError, "a world has no .pth hooks");
		return -1;
	}
	if (!recording || in_hook)
		return 0;
	in_hook = true;
	PyErr_Fetch(&type, &value, &tb);
	pyrun_spawn_check();
	if (!is_noise(event, args)) {
		if (nevents == WW_MAX_EVENTS)
			dropped++;
		else {
			t.p = events[nevents];
			t.len = 0;
			t.cap = WW_MAX_EVENT;
			adds(&t, event);
			add(&t, "", 1);
			if (PyTuple_Check(args))
				add_args(&t, args);
			if (t.len == t.cap)
				events_cut++;
			event_len[nevents++] = (uint32_t)t.len;
			if (is_spawn_event(event))
				spawn_lastpid = read_lastpid();
		}
	}
	PyErr_Restore(type, value, tb);
	in_hook = false;
	return 0;
}

int
pyrun_audit_install(void)
{
	return PySys_AddAuditHook(audit_hook, NULL);
}

void
pyrun_audit_starting(bool on)
{
	starting = on;
}

void
pyrun_audit_recording(bool on)
{
	recording = on;
}

void
pyrun_audit_after_fork(void)
{
	/* (a /proc file: regular, of size 0; the jail's seccomp refuses
	 * fstatfs) */
	struct stat sb;

	world_lastpid_fd = fstat(WORLD_LASTPID_FD, &sb) == 0 &&
	    S_ISREG(sb.st_mode) && sb.st_size == 0 ? WORLD_LASTPID_FD : -1;
	if (read_lastpid() <= 0)
		world_lastpid_fd = -1;
}

void
pyrun_audit_start(void)
{
	nevents = dropped = 0;
	events_cut = 0;
	spawn_lastpid = -1;
}

/* What forks_end() ended, as an event of ours (the code's own
 * sys.audit of that name is dropped as noise). */
void
pyrun_forks_ended(unsigned n)
{
	char num[16];
	struct text t;
	uint16_t len;

	if (n == 0 || nevents == WW_MAX_EVENTS)
		return;
	len = (uint16_t)snprintf(num, sizeof num, "%u", n);
	t.p = events[nevents];
	t.len = 0;
	t.cap = WW_MAX_EVENT;
	adds(&t, FORKS_EVENT);
	add(&t, "", 1);
	add(&t, (const char *)&len, 2);
	add(&t, num, len);
	event_len[nevents++] = (uint32_t)t.len;
}

/* The calls a jail world's kernel refused during the input (none in a
 * replica), as "seccomp" events: the syscall's name, the errno's. */
static size_t
send_refusals(void)
{
	struct jailkind_refusal v[JAILKIND_MAX_REFUSALS];
	unsigned dropped_now;
	size_t i, n = jailkind_take(v, JAILKIND_MAX_REFUSALS, &dropped_now);

	for (i = 0; i < n; i++) {
		char buf[128];
		char *name = seccomp_syscall_resolve_num_arch(
		    SCMP_ARCH_NATIVE, v[i].nr);
		const char *en = strerrorname_np(v[i].err);
		uint16_t l1 = (uint16_t)strnlen(name ? name : "?", 48);
		uint16_t l2 = (uint16_t)strnlen(en ? en : "?", 32);
		size_t off = 0;

		memcpy(buf, "seccomp", 8);
		off = 8;
		memcpy(buf + off, &l1, 2);
		memcpy(buf + off + 2, name ? name : "?", l1);
		off += 2 + l1;
		memcpy(buf + off, &l2, 2);
		memcpy(buf + off + 2, en ? en : "?", l2);
		off += 2 + l2;
		free(name);
		pyrun_send_frame(WW_EVENT, buf, off, NULL, 0);
	}
	dropped += dropped_now;
	return n;
}

void
pyrun_send_events(void)
{
	uint32_t i, room;

	/* the kernel's refusals first: they share the cap */
	room = WW_MAX_EVENTS - (uint32_t)send_refusals();
	for (i = 0; i < nevents && i < room; i++)
		pyrun_send_frame(WW_EVENT, events[i], event_len[i], NULL, 0);
	if (nevents > room)
		dropped += nevents - room;
	if (dropped > 0)
		pyrun_send_frame(WW_DROPPED, &dropped, 4, NULL, 0);
	if (events_cut > 0)
		pyrun_send_cut(WW_CUT_EVENTS, events_cut);
}
