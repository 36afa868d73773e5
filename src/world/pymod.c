/*
 * pymod.c -- CPython and OpenSSL only in the processes that build worlds.
 *
 * The program links neither libpython nor libssl: mapping them costs every
 * process about 4 MiB and most of its start-up (54,000 relocations against
 * 9,000), and a one-shot `-e` on the sandbox path, a --batch run or a jail
 * needs neither.  The code that does -- pyrun.c (CPython inside a world)
 * and fakenet.c (the fake internet, its TLS) -- is built into a module,
 * sandboxrepl-python.so, which the first caller loads with dlopen(): the
 * zygote, a gVisor worker, a session reading a world's captures.
 *
 * This file stands in for those two files in the program: each function
 * here has the signature pyrun.c's or fakenet.c's has (world_int.h,
 * fakenet.h) and calls the module's.  The test programs and the fuzz
 * targets link pyrun.c and fakenet.c themselves and never see this file.
 *
 * Where the module comes from: SANDBOXREPL_PYTHON_MODULE when set (the
 * build tree's tests and bench), else sandboxrepl-python.so beside the
 * program (a build tree), else the one `make install` put in PYMOD_DIR.
 * A module is loaded only if it is a regular file owned by root or by us
 * and writable by nobody else.  When none loads, each call fails with the
 * reason (a world then refuses, saying it), never with a crash.
 *
 * A worker in a sandbox or a guest (gvisor.c, microvm.c) trusts no path's
 * owner: under runsc --rootless the ids it sees are remapped, and the
 * bundle's files are the host user's.  The session hands it the module it
 * checked and loaded as a descriptor instead (pyrun_module_sealed: a
 * memfd copy sealed against any change), and the worker loads what that
 * descriptor holds (pyrun_module_take: copied into a sealed memfd of its
 * own, loaded only with every seal on), never a file found by a path.
 *
 * The module binds its own calls to itself (-Bsymbolic); what it needs of
 * the program (xmalloc, the jail's wire, ...) the program exports
 * (Makefile.am, PYMOD_EXPORTS).
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakenet.h"
#include "jail/jail_int.h"
#include "world_int.h"

#define PYMOD_NAME	"sandboxrepl-python.so"

static void *handle;
static char load_why[512];
static char loaded[PATH_MAX + sizeof PYMOD_NAME];	/* its path */
static int tried;
static int given = -1;		/* pyrun_module_take's sealed copy */

/* What a sealed copy holds fixed: no write, no size change, no unseal. */
#define ALL_SEALS	(F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | \
	F_SEAL_SEAL)

/* A module we may load: a regular file, owned by root or by us, written
 * by nobody else. */
static int
trusted(int fd, const char *path, char *why, size_t n)
{
	struct stat sb;

	if (fstat(fd, &sb) == -1) {
		snprintf(why, n, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(sb.st_mode) || (sb.st_uid != 0 && sb.st_uid != geteuid())
	    || (sb.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		snprintf(why, n, "%s: not ours to load (only a file of root "
		    "or ours that no one else may write)", path);
		return -1;
	}
	return 0;
}

/* A sealed memfd copy of what src holds (read from its start), or -1
 * with why. */
static int
sealed_copy(int src, const char *what, char *why, size_t n)
{
	char buf[65536];
	off_t at = 0;
	ssize_t got;
	int fd;

	fd = memfd_create(PYMOD_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd == -1) {
		snprintf(why, n, "%s: memfd_create: %s", what, strerror(errno));
		return -1;
	}
	while ((got = pread(src, buf, sizeof buf, at)) > 0 ||
	    (got == -1 && errno == EINTR))
		if (got > 0) {
			if (jail_write_all(fd, buf, (size_t)got) == -1)
				break;
			at += got;
		}
	if (got == 0 && at == 0)
		errno = ENODATA;	/* (nothing was handed over) */
	if (got != 0 || at == 0 || fcntl(fd, F_ADD_SEALS, ALL_SEALS) == -1) {
		snprintf(why, n, "%s: a sealed copy: %s", what, at == 0 ?
		    "empty" : strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* The file checked is the file loaded: dlopen() is given the checked
 * descriptor, so it cannot be swapped between the check and the load. */
static void
load_fd(int fd, const char *path)
{
	char byfd[32];

	snprintf(byfd, sizeof byfd, "/proc/self/fd/%d", fd);
	/* GLOBAL: CPython's own extension modules (_socket, _ssl) find
	 * libpython's symbols in the global scope. */
	handle = dlopen(byfd, RTLD_NOW | RTLD_GLOBAL);
	if (handle == NULL)
		snprintf(load_why, sizeof load_why, "%s", dlerror());
	else
		snprintf(loaded, sizeof loaded, "%s", path);
}

/* A copy given by descriptor (pyrun_module_take): loaded only with every
 * seal on, so what was copied is what runs; no path, no owner. */
static void
load_given(void)
{
	struct stat sb;
	int seals = fcntl(given, F_GET_SEALS);

	if (seals == -1 || (seals & ALL_SEALS) != ALL_SEALS ||
	    fstat(given, &sb) == -1 || !S_ISREG(sb.st_mode))
		snprintf(load_why, sizeof load_why, "the module's copy is not "
		    "a sealed file (seals %#x)", seals == -1 ? 0 :
		    (unsigned)seals);
	else
		load_fd(given, "(the session's sealed copy)");
	/* (mapped, or refused: not left open to the world's code) */
	close(given);
	given = -1;
}

/* The module's path, where no copy was given. */
static void
module_path(char *path, size_t n)
{
	const char *env = getenv("SANDBOXREPL_PYTHON_MODULE");
	char exe[PATH_MAX];
	ssize_t len;
	char *slash;

	if (env != NULL && env[0] != '\0') {
		snprintf(path, n, "%s", env);
		return;
	}
	path[0] = '\0';
	len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (len > 0) {
		exe[len] = '\0';
		slash = strrchr(exe, '/');
		if (slash != NULL) {
			slash[1] = '\0';
			snprintf(path, n, "%s%s", exe, PYMOD_NAME);
		}
	}
	if (path[0] == '\0' || access(path, F_OK) == -1)
		snprintf(path, n, "%s/%s", PYMOD_DIR, PYMOD_NAME);
}

/* The module at path opened and checked (trusted), or -1 with why. */
static int
open_trusted(const char *path, char *why, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd == -1) {
		snprintf(why, n, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (trusted(fd, path, why, n) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

static void
load(void)
{
	char path[PATH_MAX + sizeof PYMOD_NAME];
	int fd;

	tried = 1;
	if (given != -1) {
		load_given();
		return;
	}
	module_path(path, sizeof path);
	if ((fd = open_trusted(path, load_why, sizeof load_why)) == -1)
		return;
	load_fd(fd, path);
	close(fd);
}

/* The module's function name, or NULL with why. */
static void *
sym(const char *name, char *why, size_t n)
{
	void *f;

	if (!tried)
		load();
	if (handle == NULL) {
		if (why != NULL)
			snprintf(why, n, "the CPython module did not load: %s",
			    load_why);
		return NULL;
	}
	f = dlsym(handle, name);
	if (f == NULL && why != NULL)
		snprintf(why, n, "the CPython module has no %s", name);
	return f;
}

int
pyrun_init(char *why, size_t n)
{
	int (*f)(char *, size_t);

	*(void **)&f = sym("pyrun_init", why, n);
	return f != NULL ? f(why, n) : -1;
}

void
pyrun_after_fork(void)
{
	void (*f)(void);

	*(void **)&f = sym("pyrun_after_fork", NULL, 0);
	if (f != NULL)
		f();
}

void
pyrun_serve(int sock, int capfd, int wsdir)
{
	void (*f)(int, int, int);

	*(void **)&f = sym("pyrun_serve", NULL, 0);
	if (f != NULL)
		f(sock, capfd, wsdir);
	_exit(127);	/* (only after pyrun_init, which loaded it) */
}

void
pyrun_ended(int sock, int capfd, int wsdir, int ws)
{
	void (*f)(int, int, int, int);

	*(void **)&f = sym("pyrun_ended", NULL, 0);
	if (f != NULL)
		f(sock, capfd, wsdir, ws);
}

void
pyrun_module_path(char *buf, size_t n)
{
	(void)sym("pyrun_init", NULL, 0);
	snprintf(buf, n, "%s", handle != NULL ? loaded : "");
}

int
pyrun_module_sealed(int *fd, char *why, size_t n)
{
	int src;

	*fd = -1;
	if (sym("pyrun_init", why, n) == NULL)
		return -1;
	/* the file loaded, opened and checked again: a copy of what the
	 * check passed, never of what the path names later */
	if ((src = open_trusted(loaded, why, n)) == -1)
		return -1;
	*fd = sealed_copy(src, loaded, why, n);
	close(src);
	return *fd == -1 ? -1 : 0;
}

int
pyrun_module_take(int fd, char *why, size_t n)
{
	int copy;

	if (tried) {
		snprintf(why, n, "the CPython module was looked for already");
		return -1;
	}
	if ((copy = sealed_copy(fd, "the session's CPython module", why, n))
	    == -1)
		return -1;
	given = copy;
	return 0;
}

const char *
pyrun_version(char *buf, size_t n)
{
	const char *(*f)(char *, size_t);

	*(void **)&f = sym("pyrun_version", NULL, 0);
	return f != NULL ? f(buf, n) : NULL;
}

struct fakenet_ca *
fakenet_ca_new(char *why, size_t n)
{
	struct fakenet_ca *(*f)(char *, size_t);

	*(void **)&f = sym("fakenet_ca_new", why, n);
	return f != NULL ? f(why, n) : NULL;
}

const char *
fakenet_ca_pem(const struct fakenet_ca *ca)
{
	const char *(*f)(const struct fakenet_ca *);

	*(void **)&f = sym("fakenet_ca_pem", NULL, 0);
	return f != NULL ? f(ca) : NULL;
}

int
fakenet_prepare(char *why, size_t n)
{
	int (*f)(char *, size_t);

	*(void **)&f = sym("fakenet_prepare", why, n);
	return f != NULL ? f(why, n) : -1;
}

int
fakenet_up(const struct fakenet_config *cfg, struct fakenet *out,
    char *why, size_t n)
{
	int (*f)(const struct fakenet_config *, struct fakenet *, char *,
	    size_t);

	*(void **)&f = sym("fakenet_up", why, n);
	return f != NULL ? f(cfg, out, why, n) : -1;
}

int
fakenet_start(const struct fakenet_config *cfg, struct fakenet *out,
    char *why, size_t n)
{
	int (*f)(const struct fakenet_config *, struct fakenet *, char *,
	    size_t);

	*(void **)&f = sym("fakenet_start", why, n);
	return f != NULL ? f(cfg, out, why, n) : -1;
}

int
fakenet_wait(struct fakenet *fn, char *why, size_t n)
{
	int (*f)(struct fakenet *, char *, size_t);

	*(void **)&f = sym("fakenet_wait", why, n);
	return f != NULL ? f(fn, why, n) : -1;
}

void
fakenet_attach(struct fakenet *fn, int fd, int ctl)
{
	void (*f)(struct fakenet *, int, int);

	*(void **)&f = sym("fakenet_attach", NULL, 0);
	if (f != NULL) {
		f(fn, fd, ctl);
		return;
	}
	/* no module: the descriptors it would own are closed, and the
	 * captures read as none */
	memset(fn, 0, sizeof *fn);
	close(fd);
	close(ctl);
}

int
fakenet_read_captures(struct fakenet *fn, int timeout_ms, fakenet_cb cb,
    void *ctx, char *why, size_t n)
{
	int (*f)(struct fakenet *, int, fakenet_cb, void *, char *, size_t);

	*(void **)&f = sym("fakenet_read_captures", why, n);
	return f != NULL ? f(fn, timeout_ms, cb, ctx, why, n) : -1;
}

void
fakenet_down(struct fakenet *fn)
{
	void (*f)(struct fakenet *);

	if (handle == NULL)	/* nothing of the module's was started */
		return;
	*(void **)&f = sym("fakenet_down", NULL, 0);
	if (f != NULL)
		f(fn);
}

size_t
fakenet_url(const struct fakenet_capture *c, char *buf, size_t n)
{
	size_t (*f)(const struct fakenet_capture *, char *, size_t);

	*(void **)&f = sym("fakenet_url", NULL, 0);
	if (f != NULL)
		return f(c, buf, n);
	if (n > 0)
		buf[0] = '\0';
	return 0;
}
