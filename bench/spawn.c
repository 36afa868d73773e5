/*
 * spawn.c -- whole processes, timed from spawn to reaped.
 *
 * posix_spawn() then wait4(), so that the child's own peak RSS comes back
 * in its rusage; stdin, stdout and stderr go to files (or /dev/null), never
 * to a pipe this process would have to drain while it times.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/xalloc.h"

#include "bench.h"

extern char **environ;

double
bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void
samples_add(struct samples *s, double x)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->v = xreallocarray(s->v, s->cap, sizeof *s->v);
	}
	s->v[s->n++] = x;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double
samples_median(struct samples *s)
{
	if (s->n == 0)
		return 0.0 / 0.0;
	qsort(s->v, s->n, sizeof *s->v, cmp_double);
	if (s->n % 2)
		return s->v[s->n / 2];
	return (s->v[s->n / 2 - 1] + s->v[s->n / 2]) / 2;
}

double
samples_min(const struct samples *s)
{
	double m = 0.0 / 0.0;
	size_t i;
	for (i = 0; i < s->n; i++)
		if (i == 0 || s->v[i] < m)
			m = s->v[i];
	return m;
}

void
samples_free(struct samples *s)
{
	free(s->v);
	memset(s, 0, sizeof *s);
}

static bool
redirect(posix_spawn_file_actions_t *fa, int fd, const char *path, int flags)
{
	return posix_spawn_file_actions_addopen(fa, fd,
	    path ? path : "/dev/null", flags, 0600) == 0;
}

bool
spawn_run(char *const argv[], const char *in_path, const char *out_path,
    const char *err_path, struct run *r)
{
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	pid_t pid;
	double t0;
	int rc;

	memset(r, 0, sizeof *r);
	posix_spawn_file_actions_init(&fa);
	if (!redirect(&fa, 0, in_path, O_RDONLY) ||
	    !redirect(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC) ||
	    !redirect(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC)) {
		posix_spawn_file_actions_destroy(&fa);
		return false;
	}
	t0 = bench_now();
	rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return false;
	while (wait4(pid, &r->status, 0, &ru) < 0)
		if (errno != EINTR)
			return false;
	r->wall = bench_now() - t0;
	r->cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
	    ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e-6;
	r->maxrss_kb = ru.ru_maxrss;
	r->ok = WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
	return true;
}

bool
path_executable(const char *path)
{
	return access(path, X_OK) == 0;
}

char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, got;

	if (f == NULL)
		return NULL;
	do {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = xrealloc(buf, cap);
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
	} while (got > 0);
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

char *
temp_file(const char *tag)
{
	const char *dir = getenv("TMPDIR");
	char *name;
	int fd;

	if (dir == NULL || *dir == '\0')
		dir = "/tmp";
	name = xasprintf("%s/sandboxrepl-bench-%s-XXXXXX", dir, tag);
	fd = mkstemp(name);
	if (fd < 0) {
		free(name);
		return NULL;
	}
	close(fd);
	return name;
}

/* A "VmXXX:" line of /proc/PID/status, in KiB; -1 when unknown. */
static long
status_kb(const char *pid, const char *key)
{
	char path[64], line[256];
	size_t n = strlen(key);
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%s/status", pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, key, n) == 0 && line[n] == ':') {
			kb = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return kb;
}

static long
vm_hwm_kb(pid_t pid)
{
	char p[32];
	snprintf(p, sizeof p, "%d", (int)pid);
	return status_kb(p, "VmHWM");
}

long
self_rss_kb(void)
{
	return status_kb("self", "VmRSS");
}

static void
child_redirect(int fd, const char *path, int flags)
{
	int t = open(path ? path : "/dev/null", flags, 0600);
	if (t < 0 || dup2(t, fd) < 0)
		_exit(127);
	if (t != fd)
		close(t);
}

/*
 * The peak RSS of the program itself.  A child's ru_maxrss cannot read
 * below the RSS of the process that forked it (the kernel folds the old
 * address space's high-water mark in at execve), so the child is traced
 * instead: stopped as it exits, its address space is still there and
 * /proc/PID/status says how high it went since execve.
 */
long
spawn_peak_rss(char *const argv[], const char *in_path)
{
	pid_t pid;
	int status;
	long kb = -1;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		child_redirect(0, in_path, O_RDONLY);
		child_redirect(1, NULL, O_WRONLY);
		child_redirect(2, NULL, O_WRONLY);
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	/* The stop at execve. */
	if (waitpid(pid, &status, 0) < 0 || !WIFSTOPPED(status))
		goto reap;
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL,
	    (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL)) < 0) {
		kill(pid, SIGKILL);
		goto reap;
	}
	(void)ptrace(PTRACE_CONT, pid, NULL, NULL);
	for (;;) {
		if (waitpid(pid, &status, 0) < 0)
			return kb;
		if (WIFEXITED(status) || WIFSIGNALED(status))
			return kb;
		if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
			kb = vm_hwm_kb(pid);
			(void)ptrace(PTRACE_CONT, pid, NULL, NULL);
			continue;
		}
		/* Any other stop: pass the signal on. */
		(void)ptrace(PTRACE_CONT, pid, NULL,
		    (void *)(long)(WIFSTOPPED(status) ? WSTOPSIG(status) : 0));
	}
reap:
	while (waitpid(pid, &status, 0) > 0 && !WIFEXITED(status) &&
	    !WIFSIGNALED(status))
		;
	return kb;
}
