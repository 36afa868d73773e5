/*
 * jail.c -- jail_run(): the caller's side of the kernel jail.
 *
 * The caller forks the child (jail_child.c does everything on the other
 * side) and then only reads: one pipe, polled against a backstop
 * deadline (the warden's wall clock plus a margin), into a buffer capped
 * at what the caps allow plus framing.  Everything read is hostile until
 * checked: each frame's type and length, every step number, every file
 * name (flat: no '/', not "." or ".."), every size against the caps.
 * Then the outcome is classified from facts the warden observed:
 *
 *   a refusal frame           REFUSED, the step's layer, its errno
 *   the wall clock            CONTAINED, "timeout"
 *   a trapped syscall/SIGSYS  CONTAINED, "seccomp"
 *   SIGXCPU / CPU exhausted   CONTAINED, "rlimit"
 *   SIGXFSZ, JAIL_EXIT_NOMEM  CONTAINED, "rlimit"
 *   any other signal          CONTAINED, no layer
 *   a normal exit             OK with the exit code and result
 *   anything malformed        ERROR
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "jail_ids.h"
#include "jail_int.h"
#include "base/xalloc.h"

/* How long jail_run waits past the warden's own wall clock. */
#define BACKSTOP_MS	2000

static const struct {
	const char	*word[2];	/* enum jail_setup's */
	const char	*layer;
} steps[] = {
#define X(e, jail, world, layer) { { jail, world }, layer },
	JAIL_STEPS(X)
#undef X
};

static const char *const status_names[] = {
#define X(e, name) name,
	JAIL_STATUSES(X)
#undef X
};

const char *
jail_syscall_purpose(const char *call)
{
	static const char *const purposes[][2] = {
		{ "execve", "starting a program" },
		{ "execveat", "starting a program" },
		{ "socket", "opening a network socket" },
		{ "socketpair", "opening a network socket" },
		{ "clone", "making a new namespace" },
		{ "ptrace", "tracing a process" },
		{ "mount", "mounting a filesystem" },
		{ "io_uring_setup", "using io_uring" },
		{ "bpf", "loading a BPF program" },
		{ "unshare", "making a new namespace" },
	};
	size_t i;

	for (i = 0; i < sizeof purposes / sizeof purposes[0]; i++)
		if (strcmp(call, purposes[i][0]) == 0)
			return purposes[i][1];
	return NULL;
}

const char *
jail_step_word(enum jail_step s, enum jail_setup who)
{
	return (unsigned)s < JAIL_STEP_COUNT && (unsigned)who < 2 ?
	    steps[s].word[who] : NULL;
}

const char *
jail_step_name(enum jail_step s)
{
	const char *w = jail_step_word(s, JAIL_SETUP_JAIL);

	return w != NULL ? w : "unknown";
}

const char *
jail_step_layer(enum jail_step s)
{
	return jail_step_word(s, JAIL_SETUP_JAIL) != NULL ? steps[s].layer :
	    NULL;
}

const char *
jail_status_name(enum jail_status s)
{
	return (unsigned)s <= JAIL_ERROR ? status_names[s] : "unknown";
}

/*
 * The one piece of state in the calling process: the compiled seccomp
 * program, built on first use and never changed after, so every session
 * and thread shares it safely.
 */
static pthread_once_t seccomp_once = PTHREAD_ONCE_INIT;
static struct jail_bpf seccomp_prog;
static int seccomp_err;

static void
compile_seccomp(void)
{
	if (jail_seccomp_compile(&seccomp_prog) == -1)
		seccomp_err = errno;
}

/*
 * The other piece: the jail ids this process acquired for callers that
 * hold none (cfg->ids == NULL), free ones on a stack.  jail_run() takes
 * one for the run and puts it back, so runs at the same time (threads)
 * never share an id, and the scan of /proc is paid once per id, not per
 * run.  A forked child must not reuse its parent's ids (the flock is
 * shared with the parent across fork): it closes its copies and starts
 * afresh.
 */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct jail_ids *pool;
static size_t pool_len, pool_cap;
static pid_t pool_pid;

/* Under pool_lock: forget the pool inherited from a parent process. */
static void
pool_check_owner(void)
{
	size_t i;

	if (pool_pid == getpid())
		return;
	for (i = 0; i < pool_len; i++)
		jail_ids_release(&pool[i]);
	pool_len = 0;
	pool_pid = getpid();
}

static int
ids_take(struct jail_ids *out, char *why, size_t n)
{
	pthread_mutex_lock(&pool_lock);
	pool_check_owner();
	if (pool_len > 0) {
		*out = pool[--pool_len];
		pthread_mutex_unlock(&pool_lock);
		return 0;
	}
	pthread_mutex_unlock(&pool_lock);
	return jail_ids_acquire(out, why, n);
}

static void
ids_give_back(struct jail_ids *ids)
{
	if (ids->lock_fd < 0)
		return;		/* not root: nothing is held */
	pthread_mutex_lock(&pool_lock);
	pool_check_owner();
	if (pool_len == pool_cap) {
		pool_cap = pool_cap ? pool_cap * 2 : 4;
		pool = xreallocarray(pool, pool_cap, sizeof *pool);
	}
	pool[pool_len++] = *ids;
	pthread_mutex_unlock(&pool_lock);
	ids->lock_fd = -1;
}

/*
 * And the memory cgroup the jails go under, found (or found missing)
 * once per process: see jail_cgroup.c.
 */
static pthread_once_t cgroup_once = PTHREAD_ONCE_INIT;
static char cgroup_dir[PATH_MAX];
static char cgroup_why[160];
static int cgroup_state, cgroup_err;

static void
prepare_cgroup(void)
{
	cgroup_state = jail_cgroup_prepare(cgroup_dir, sizeof cgroup_dir,
	    cgroup_why, sizeof cgroup_why);
	if (cgroup_state == -1)
		cgroup_err = errno != 0 ? errno : EIO;
}

int
jail_memory_cgroup(const char **why)
{
	pthread_once(&cgroup_once, prepare_cgroup);
	*why = cgroup_why;
	return cgroup_state;
}

static void
set_reason(struct jail_outcome *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
set_reason(struct jail_outcome *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out->reason, sizeof out->reason, fmt, ap);
	va_end(ap);
}

static void
refused(struct jail_outcome *out, enum jail_step step, int err,
    const char *detail, size_t dlen)
{
	out->status = JAIL_REFUSED;
	out->step = step;
	out->err = err;
	out->layer = jail_step_layer(step);
	if (dlen > 0)
		set_reason(out, "%s failed: %.*s: %s", jail_step_name(step),
		    (int)dlen, detail, strerror(err));
	else
		set_reason(out, "%s failed: %s", jail_step_name(step),
		    strerror(err));
}

static void
set_error(struct jail_outcome *out, const char *what)
{
	out->status = JAIL_ERROR;
	out->layer = NULL;
	set_reason(out, "%s", what);
}

static uint64_t
or_default(uint64_t v, uint64_t dflt)
{
	return v != 0 ? v : dflt;
}

static void
make_plan(const struct jail_config *cfg, jail_fn fn, void *arg,
    struct jail_plan *p)
{
	memset(p, 0, sizeof *p);
	p->files = cfg->files;
	p->nfiles = cfg->nfiles;
	p->tmpfs_bytes = or_default(cfg->tmpfs_bytes, JAIL_DEFAULT_TMPFS_BYTES);
	p->tmpfs_inodes = or_default(cfg->tmpfs_inodes,
	    JAIL_DEFAULT_TMPFS_INODES);
	p->cpu_seconds = or_default(cfg->cpu_seconds, JAIL_DEFAULT_CPU_SECONDS);
	p->as_bytes = or_default(cfg->as_bytes, JAIL_DEFAULT_AS_BYTES);
	p->nproc = or_default(cfg->nproc, JAIL_DEFAULT_NPROC);
	p->fsize_bytes = or_default(cfg->fsize_bytes, JAIL_DEFAULT_FSIZE_BYTES);
	p->nofile = or_default(cfg->nofile, JAIL_DEFAULT_NOFILE);
	p->wall_ms = or_default(cfg->wall_ms, JAIL_DEFAULT_WALL_MS);
	p->max_result = or_default(cfg->max_result, JAIL_DEFAULT_MAX_RESULT);
	p->max_files = or_default(cfg->max_files, JAIL_DEFAULT_MAX_FILES);
	p->max_read_bytes = or_default(cfg->max_read_bytes,
	    JAIL_DEFAULT_MAX_READ_BYTES);
	p->fail_at = cfg->fail_at;
	p->fn = fn;
	p->arg = arg;
	p->host_pid = getpid();
}

/* ---------------------------------------------------------------- */
/* Reading the reply                                                 */
/* ---------------------------------------------------------------- */

struct reply {
	char	*buf;
	size_t	 len, cap;
	bool	 overflow;	/* more than cap bytes were offered */
	bool	 timed_out;	/* the backstop fired */
};

/* Read until EOF, the cap or the deadline; kill the child on the last two. */
static void
read_reply(int fd, pid_t child, double deadline, struct reply *r)
{
	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		double left = deadline - clock_ms();
		ssize_t n;
		int rc;

		if (left <= 0) {
			r->timed_out = true;
			kill(child, SIGKILL);
			return;
		}
		rc = poll(&pfd, 1, (int)left + 1);
		if (rc == -1 && errno == EINTR)
			continue;
		if (rc <= 0)
			continue;	/* the deadline check above decides */
		if (r->len == r->cap) {
			char c;

			/* One byte more than the cap means a lie or a bug. */
			n = read(fd, &c, 1);
			if (n == 0)
				return;
			if (n < 0 && errno == EINTR)
				continue;
			r->overflow = true;
			kill(child, SIGKILL);
			return;
		}
		n = read(fd, r->buf + r->len, r->cap - r->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		r->len += (size_t)n;
	}
}

static int
cmp_files(const void *a, const void *b)
{
	const struct jail_file *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static const char *
signal_name(int sig)
{
	const char *abbrev = sigabbrev_np(sig);
	static const char unknown[] = "an unknown signal";

	return abbrev != NULL ? abbrev : unknown;
}

/* Classify a wait status the warden reported. */
static void
classify(const struct jail_plan *p, const struct wire_wait *ww,
    struct jail_outcome *out)
{
	int st = ww->wstatus;

	out->cpu_us = ww->cpu_us;
	out->seccomp_syscall = ww->seccomp_nr;
	if (WIFEXITED(st))
		out->exit_code = WEXITSTATUS(st);
	else if (WIFSIGNALED(st))
		out->term_signal = WTERMSIG(st);

	if (ww->result_over) {
		free(out->result);
		out->result = NULL;
		out->result_len = 0;
		set_error(out, "");
		set_reason(out, "the result exceeds %llu bytes",
		    (unsigned long long)p->max_result);
		return;
	}
	out->status = JAIL_CONTAINED;
	if (ww->timed_out) {
		out->layer = "timeout";
		set_reason(out, "killed after %llu ms of wall-clock time",
		    (unsigned long long)p->wall_ms);
	} else if (ww->seccomp_nr >= 0 ||
	    (WIFEXITED(st) && WEXITSTATUS(st) == JAIL_EXIT_SECCOMP) ||
	    (WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS)) {
		char *name = ww->seccomp_nr >= 0 ?
		    seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE,
		    ww->seccomp_nr) : NULL;

		out->layer = "seccomp";
		if (name != NULL)
			set_reason(out, "%s denied by seccomp", name);
		else if (ww->seccomp_nr >= 0)
			set_reason(out, "syscall %d denied by seccomp",
			    (int)ww->seccomp_nr);
		else
			set_reason(out, "killed by seccomp (SIGSYS)");
		free(name);
	} else if (WIFSIGNALED(st) && (WTERMSIG(st) == SIGXCPU ||
	    (WTERMSIG(st) == SIGKILL &&
	    ww->cpu_us >= p->cpu_seconds * 1000000))) {
		out->layer = "rlimit";
		set_reason(out, "killed after %llu s of CPU (%s)",
		    (unsigned long long)p->cpu_seconds,
		    WTERMSIG(st) == SIGXCPU ? "SIGXCPU" : "SIGKILL");
	} else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGXFSZ) {
		out->layer = "rlimit";
		set_reason(out, "a file grew past %llu bytes (SIGXFSZ)",
		    (unsigned long long)p->fsize_bytes);
	} else if (WIFEXITED(st) && WEXITSTATUS(st) == JAIL_EXIT_NOMEM) {
		out->layer = "rlimit";
		set_reason(out, "out of memory: address space capped at "
		    "%llu MiB more (RLIMIT_AS)",
		    (unsigned long long)(p->as_bytes >> 20));
	} else if (WIFSIGNALED(st)) {
		out->layer = NULL;
		set_reason(out, "killed by SIG%s", signal_name(WTERMSIG(st)));
	} else {
		out->status = JAIL_OK;
		out->layer = NULL;
		set_reason(out, "exited with status %d", out->exit_code);
	}
}

/* What jail_run() accepts from the warden (jail_child.c), capped by p. */
static struct wire_len
jail_reply_rule(enum ww_type type, const void *ctx)
{
	const struct jail_plan *p = ctx;

	switch (type) {
	case WW_REFUSE:
		return (struct wire_len){ 8, 8 + WIRE_DETAIL_MAX };
	case WW_WAIT:
		return (struct wire_len){ sizeof(struct wire_wait),
		    sizeof(struct wire_wait) };
	case WW_OUTPUT:
		return (struct wire_len){ 0, p->max_result };
	case WW_FLAT_FILE:
		return (struct wire_len){ 4, UINT32_MAX };
	case WW_FLAT_CUT: case WW_END:
		return (struct wire_len){ 0, 0 };
	default:
		return WIRE_REJECT;
	}
}

bool
jail_wire_parse(const struct jail_plan *p, const char *buf, size_t buflen,
    struct jail_outcome *out)
{
	struct wire_wait ww;
	struct wire_frame f;
	size_t off = 0, maxfiles = (size_t)p->max_files;
	uint64_t file_bytes = 0;
	bool has_wait = false, has_result = false, has_end = false;

	while (off < buflen && !has_end) {
		const char *pay;
		uint32_t len;

		if (wire_next(buf, buflen, &off, jail_reply_rule, p, &f) != 1)
			goto bad;
		pay = f.pay;
		len = f.len;
		switch (f.type) {
		case WW_REFUSE: {
			uint32_t step;
			int32_t err;

			if (has_wait)
				goto bad;
			memcpy(&step, pay, 4);
			memcpy(&err, pay + 4, 4);
			if (step == JAIL_STEP_NONE ||
			    jail_step_word(step, JAIL_SETUP_JAIL) == NULL ||
			    err <= 0 || err > 4095 ||
			    memchr(pay + 8, '\0', len - 8) != NULL)
				goto bad;
			refused(out, step, err, pay + 8,
			    len - 8);
			return true;
		}
		case WW_WAIT:
			if (has_wait)
				goto bad;
			memcpy(&ww, pay, sizeof ww);
			if (ww.seccomp_nr < -1)
				goto bad;
			has_wait = true;
			break;
		case WW_OUTPUT:
			if (!has_wait || has_result)
				goto bad;
			out->result = xmalloc((size_t)len + 1);
			memcpy(out->result, pay, len);
			out->result[len] = '\0';
			out->result_len = len;
			has_result = true;
			break;
		case WW_FLAT_FILE: {
			uint32_t namelen;
			struct jail_file *jf;

			if (!has_result)
				goto bad;
			memcpy(&namelen, pay, 4);
			if (namelen > len - 4 ||
			    !jail_is_flat_name(pay + 4, namelen) ||
			    out->nfiles == maxfiles ||
			    len - 4 - namelen > p->max_read_bytes - file_bytes)
				goto bad;
			out->files = xreallocarray(out->files, out->nfiles + 1,
			    sizeof *out->files);
			jf = &out->files[out->nfiles++];
			jf->name = xstrndup(pay + 4, namelen);
			jf->len = len - 4 - namelen;
			jf->data = xmalloc(jf->len + 1);
			memcpy(jf->data, pay + 4 + namelen, jf->len);
			jf->data[jf->len] = '\0';
			file_bytes += jf->len;
			break;
		}
		case WW_FLAT_CUT:
			if (!has_result)
				goto bad;
			out->files_truncated = true;
			break;
		case WW_END:
			if (!has_result)
				goto bad;
			has_end = true;
			break;
		default:
			goto bad;
		}
	}
	if (!has_end || off != buflen)
		goto bad;
	if (out->nfiles > 1)
		qsort(out->files, out->nfiles, sizeof *out->files, cmp_files);
	for (size_t i = 1; i < out->nfiles; i++)
		if (strcmp(out->files[i - 1].name, out->files[i].name) == 0)
			goto bad;
	classify(p, &ww, out);
	return true;
bad:
	jail_outcome_free(out);
	out->exit_code = -1;
	out->seccomp_syscall = -1;
	set_error(out, "malformed reply from the jail");
	return false;
}

/* ---------------------------------------------------------------- */
/* jail_run                                                           */
/* ---------------------------------------------------------------- */

static int run_with(const struct jail_config *cfg,
    const struct jail_ids *ids, jail_fn fn, void *arg,
    struct jail_outcome *out);

int
jail_run(const struct jail_config *cfg, jail_fn fn, void *arg,
    struct jail_outcome *out)
{
	struct jail_ids own = { 0, 0, -1 };
	int rc;

	memset(out, 0, sizeof *out);
	out->exit_code = -1;
	out->seccomp_syscall = -1;
	out->step = JAIL_STEP_NONE;
	if (cfg->fail_at == JAIL_STEP_IDS) {
		refused(out, JAIL_STEP_IDS, ECANCELED, NULL, 0);
		return -1;
	}
	if (cfg->ids == NULL) {
		char why[WIRE_DETAIL_MAX];

		why[0] = '\0';
		if (ids_take(&own, why, sizeof why) == -1) {
			refused(out, JAIL_STEP_IDS, errno, why, strlen(why));
			return -1;
		}
	}
	rc = run_with(cfg, cfg->ids != NULL ? cfg->ids : &own, fn, arg, out);
	if (cfg->ids == NULL)
		ids_give_back(&own);
	return rc;
}

/* jail_run() once the ids are settled. */
static int
run_with(const struct jail_config *cfg, const struct jail_ids *ids,
    jail_fn fn, void *arg, struct jail_outcome *out)
{
	struct jail_plan plan;
	struct reply r;
	double start;
	const char *failed;
	int fds[2], wstatus;
	pid_t pid;

	make_plan(cfg, fn, arg, &plan);
	plan.uid = ids->uid;
	plan.gid = ids->gid;
	start = clock_ms();

	/* The filter is the same for every run: compile it once. */
	pthread_once(&seccomp_once, compile_seccomp);
	if (seccomp_prog.insns == NULL) {
		refused(out, JAIL_STEP_SECCOMP, seccomp_err, "compile", 7);
		return -1;
	}
	plan.seccomp = &seccomp_prog;

	pthread_once(&cgroup_once, prepare_cgroup);
	if (cgroup_state == -1) {
		refused(out, JAIL_STEP_CGROUP, cgroup_err, cgroup_why,
		    strlen(cgroup_why));
		return -1;
	}
	plan.cgroup_dir = cgroup_state == 1 ? cgroup_dir : NULL;

	if (plan.fail_at == JAIL_STEP_PIPE) {
		refused(out, JAIL_STEP_PIPE, ECANCELED, NULL, 0);
		return -1;
	}
	if (pipe2(fds, O_CLOEXEC) == -1) {
		refused(out, JAIL_STEP_PIPE, errno, NULL, 0);
		return -1;
	}
	plan.host_fd = fds[1];
	/* (the warden's own steps are jail_child_main's, each refused by
	 * its name) */
	pid = plan.fail_at == JAIL_STEP_FORK ? -1 : jail_fork(NULL, &failed);
	if (pid == -1) {
		int err = plan.fail_at == JAIL_STEP_FORK ? ECANCELED : errno;

		close(fds[0]);
		close(fds[1]);
		refused(out, JAIL_STEP_FORK, err, NULL, 0);
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		jail_child_main(&plan);
	}
	close(fds[1]);

	/* Room for a full result, every file at its cap, and framing. */
	memset(&r, 0, sizeof r);
	r.cap = (size_t)(plan.max_result + plan.max_read_bytes +
	    plan.max_files * (WIRE_HEADER + 4 + WIRE_NAME_MAX) + 4096);
	r.buf = xmalloc(r.cap);
	read_reply(fds[0], pid, start + (double)plan.wall_ms + BACKSTOP_MS,
	    &r);
	close(fds[0]);
	while (waitpid(pid, &wstatus, 0) == -1 && errno == EINTR)
		;
	out->elapsed_ms = clock_ms() - start;
	if (plan.cgroup_dir != NULL)
		jail_cgroup_remove(plan.cgroup_dir, (unsigned)plan.uid);

	if (r.timed_out) {
		out->status = JAIL_CONTAINED;
		out->layer = "timeout";
		set_reason(out, "the jail did not answer within %llu ms; "
		    "killed", (unsigned long long)(plan.wall_ms + BACKSTOP_MS));
	} else if (r.overflow) {
		set_error(out, "the jail sent more than its caps allow");
	} else if (r.len == 0) {
		set_error(out, "the jail ended without a reply");
	} else {
		double elapsed = out->elapsed_ms;

		jail_wire_parse(&plan, r.buf, r.len, out);
		out->elapsed_ms = elapsed;
	}
	free(r.buf);
	out->memory_cgroup = plan.cgroup_dir != NULL &&
	    out->status != JAIL_REFUSED;
	return out->status == JAIL_OK ? 0 : -1;
}

void
jail_outcome_free(struct jail_outcome *out)
{
	size_t i;

	free(out->result);
	for (i = 0; i < out->nfiles; i++) {
		free(out->files[i].name);
		free(out->files[i].data);
	}
	free(out->files);
	memset(out, 0, sizeof *out);
}
