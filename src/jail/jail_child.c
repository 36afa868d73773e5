/*
 * jail_child.c -- the jailed side: two processes, each a stage of
 * set-up, neither of which ever returns to the caller's code.
 *
 *   warden  forked by jail_run().  First lets go of everything the
 *           caller held: 0-2 on /dev/null, every other descriptor but its
 *           report pipe closed (the caller's terminal, which TIOCSTI
 *           would turn into keystrokes for root's shell, and the caller's
 *           jail id lock), and a session of its own, so neither it nor
 *           the jail has a controlling terminal.  Where the machine
 *           gives the jail a memory cgroup, moves into it (jail_cgroup.c)
 *           while still root.  Leaves uid 0 (when
 *           root: the jail must not hold host root even for a moment
 *           after unshare) for the jail's own host id (jail_ids.h), which
 *           no account and no other process has, asks to be killed with
 *           its parent, unshares the user, mount, network, pid, ipc and
 *           uts namespaces in one call, maps its own id (setgroups "deny"
 *           first) and makes itself undumpable again: the uid change
 *           needed dumpable set to write its maps, and a dumpable process
 *           can be ptraced and its /proc files read by its uid.  Undumpable,
 *           it and PID 1 (which inherits the flag through fork and never
 *           execs) can be ptraced only with CAP_SYS_PTRACE in the host's
 *           user namespace, by root.  Then it forks PID 1.
 *           It stays outside the new pid namespace, where nothing fn
 *           runs can see or signal it, and is never under Landlock or
 *           seccomp.  It enforces the wall clock, bounds what fn writes,
 *           and sends the result, how PID 1 ended and the workspace files
 *           to jail_run(); its death kills PID 1 (PDEATHSIG), whose death
 *           kills everything in the pid namespace.
 *   pid1    PID 1 of the new pid namespace, with every capability of
 *           the new user namespace until it drops them.  Makes the mount
 *           tree private, mounts a capped tmpfs, seeds it, pivot_roots
 *           into it and detaches the old root (which carries the warden's
 *           root along: see jail_child_main), sets rlimits, keeps only
 *           its two pipes (stdin, stdout and stderr on /dev/null), resets
 *           every signal, clears the environment, starts a session, drops
 *           every capability, sets no_new_privs, enforces Landlock and
 *           then seccomp, says "ready" and calls fn.  One process fewer
 *           than a PID 1 that forks the evaluator saves a fork, about a
 *           fifth of a run; the price is PID 1's signal rule, met in
 *           step_fds.
 *
 * Each stage's set-up is its rows of the one list of set-up steps every
 * container walks (jail_contain, jail_int.h; the worlds' too), for the
 * jail's description (jail.h's JAIL_CONTAINERS, MODEL), with the jail's
 * own calls (jail_ops): each step goes through the fail_at test hook,
 * and the first that fails is refused -- a refusal frame naming the step, then exit
 * at once -- from the warden straight to jail_run(), from PID 1 to the
 * warden, which forwards it.  fn runs only after the last step
 * succeeded.
 *
 * What the jail still shares with the caller: a copy-on-write image of
 * its memory (fn is in-process code, so this is the design) and any
 * MAP_SHARED mapping the caller holds.  The caller must not hold secrets
 * it would not show fn; a re-exec'd helper would be the next step.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <dirent.h>
#include <linux/magic.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "jail_int.h"
#include "jail_sys.h"

/* The id the jail sees itself as: not 0, so nothing mistakes it for root. */
#define JAIL_INNER_ID		1000
/* Any directory that exists on every Linux system: the tmpfs is mounted
 * over it in the private mount namespace, then becomes "/". */
#define WORKSPACE_MOUNTPOINT	"/tmp"

/* Where PID 1 writes fn's result (set only in that process). */
static int result_fd = -1;

/*
 * The per-process set-up context: the plan, where refusals go, and the
 * descriptors handed from stage to stage.
 */
struct stage {
	struct jail_warden w;	/* (first: jail_step_id_maps' ctx) */
	const struct jail_plan *plan;
	int	host_fd;	/* warden: the pipe to jail_run */
	int	report_fd;	/* refusals go here */
	int	devnull;	/* /dev/null, opened before pivot_root */
	int	result_wr;	/* pid1: fn's result pipe */
	int	status_wr;	/* pid1: status pipe to the warden */
	uint64_t as_base;	/* bytes mapped before fn runs */
};

/* A refusal goes where this stage's refusals go (jail_refuse). */
#define refuse(st, step, err, detail) \
	jail_refuse((st)->report_fd, (step), (err), (detail))
#define injected(st, step) jail_injected((st)->plan->fail_at, (step))

/* ---------------------------------------------------------------- */
/* pid1: the workspace                                               */
/* ---------------------------------------------------------------- */

static int
seed(int dir, const struct jail_file *f)
{
	int fd, saved;

	if (f->name == NULL ||
	    !jail_is_flat_name(f->name, strnlen(f->name, WIRE_NAME_MAX + 1)) ||
	    (f->data == NULL && f->len > 0)) {
		errno = EINVAL;
		return -1;
	}
	fd = openat(dir, f->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (jail_write_all(fd, f->data, f->len) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return close(fd);
}

static int
step_workspace(void *ctx, char *detail, size_t n)
{
	struct stage *st = ctx;
	const struct jail_plan *p = st->plan;
	char opts[96];
	size_t i;
	int dir, saved;

	st->devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (st->devnull < 0) {
		snprintf(detail, n, "open /dev/null");
		return -1;
	}
	snprintf(opts, sizeof opts, "size=%llu,nr_inodes=%llu,mode=0700",
	    (unsigned long long)p->tmpfs_bytes,
	    (unsigned long long)p->tmpfs_inodes);
	if (mount("tmpfs", WORKSPACE_MOUNTPOINT, "tmpfs",
	    MS_NOSUID | MS_NODEV | MS_NOEXEC, opts) == -1) {
		snprintf(detail, n, "mount tmpfs");
		return -1;
	}
	dir = open(WORKSPACE_MOUNTPOINT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -1;
	for (i = 0; i < p->nfiles; i++) {
		if (seed(dir, &p->files[i]) == -1) {
			saved = errno;
			snprintf(detail, n, "seed file %zu", i);
			close(dir);
			errno = saved;
			return -1;
		}
	}
	return close(dir);
}

static int
step_pivot_root(void *ctx, char *detail, size_t n)
{
	if (jail_pivot_root(WORKSPACE_MOUNTPOINT, detail, n) == -1)
		return -1;
	if (jail_cwd_is("/") == -1) {
		snprintf(detail, n, "cwd outside the workspace");
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- */
/* pid1: limits and layers, then fn                                  */
/* ---------------------------------------------------------------- */

static int
step_rlimits(void *ctx, char *detail, size_t n)
{
	struct stage *st = ctx;
	const struct jail_plan *p = st->plan;
	const struct jail_limits lim = {
		.as_bytes = p->as_bytes, .cpu_seconds = p->cpu_seconds,
		.nproc = p->nproc, .fsize_bytes = p->fsize_bytes,
		.nofile = p->nofile,
	};

	return jail_set_rlimits(&lim, st->as_base);
}

/* The rlimit signals, for PID 1: see step_fds. */
static void
on_rlimit_signal(int sig)
{
	_exit(sig == SIGXCPU ? JAIL_EXIT_SIGXCPU : JAIL_EXIT_SIGXFSZ);
}

/*
 * A fresh process state.  Descriptors: keep exactly 0-2 on /dev/null,
 * 3 the result pipe, 4 the status pipe.  A new session, so no
 * controlling terminal.  Every signal back to its default and unblocked
 * (a caller that ignores SIGXFSZ or blocks SIGXCPU must not weaken the
 * rlimits).  An empty environment: the caller's may hold secrets.
 */
static int
step_fds(void *ctx, char *detail, size_t n)
{
	struct stage *st = ctx;
	int *const keep[] = { &st->devnull, &st->devnull, &st->devnull,
	    &st->result_wr, &st->status_wr };
	struct sigaction sa;
	int i;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	for (i = 1; i < NSIG; i++)
		if (i != SIGKILL && i != SIGSTOP)
			(void)sigaction(i, &sa, NULL);	/* EINVAL for a few */
	/* PID 1 of a pid namespace ignores a signal it has no handler for
	 * unless the kernel forces it, and the rlimits' SIGXCPU and SIGXFSZ
	 * are not forced: without these two handlers a CPU bomb would run on
	 * to the hard limit's SIGKILL and an oversized write would only fail
	 * with EFBIG.  Each handler ends the process at once. */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_rlimit_signal;
	sigfillset(&sa.sa_mask);
	if (sigaction(SIGXCPU, &sa, NULL) == -1 ||
	    sigaction(SIGXFSZ, &sa, NULL) == -1)
		return -1;
	if (clearenv() != 0)
		return -1;
	if (jail_fresh(keep, 5, 5) == -1)
		return -1;
	st->report_fd = st->status_wr;
	return 0;
}

static int
step_landlock(void *ctx, char *detail, size_t n)
{
	int abi = 0, saved;

	if (jail_landlock_enforce(&abi) == -1) {
		saved = errno;
		if (abi > 0)
			snprintf(detail, n, "Landlock ABI %d", abi);
		errno = saved;
		return -1;
	}
	return 0;
}

static int
step_seccomp(void *ctx, char *detail, size_t n)
{
	struct stage *st = ctx;

	return jail_seccomp_enforce(st->plan->seccomp, st->status_wr);
}

/* The jail's calls in the one set-up list (below). */
static const struct jail_contain_ops jail_ops;

static void __attribute__((noreturn))
pid1_main(struct stage *st)
{
	char detail[WIRE_DETAIL_MAX];
	const struct jail_walk walk = { st->plan->fail_at, &st->report_fd,
	    detail, sizeof detail };
	int rc;

	st->as_base = jail_mapped_bytes();
	jail_contain(jail_container(JAIL_CONTAINER_MODEL), &jail_ops,
	    JAIL_STAGE_PID1, &walk, st);
	if (jail_wire_send(st->status_wr, WW_READY, NULL, 0, NULL, 0) == -1)
		_exit(JAIL_EXIT_SETUP);

	result_fd = st->result_wr;
	rc = st->plan->fn(st->plan->arg);
	_exit(rc & 0xff);
}

int
jail_write_result(const void *data, size_t len)
{
	if (result_fd < 0) {
		errno = EBADF;
		return -1;
	}
	return jail_write_all(result_fd, data, len);
}

/* ---------------------------------------------------------------- */
/* warden: outside the pid namespace, the parent of PID 1            */
/* ---------------------------------------------------------------- */

static void
send_or_die(int fd, enum ww_type type, const void *a, size_t alen,
    const void *b, size_t blen)
{
	if (jail_wire_send(fd, type, a, alen, b, blen) == -1)
		_exit(JAIL_EXIT_SETUP);
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Send the workspace's regular files, in name order, within the caps. */
static void
send_workspace(const struct jail_plan *p, const struct stat *host_root,
    int fd)
{
	char *names[256];
	size_t nnames = 0, i;
	uint64_t budget = p->max_read_bytes, sent = 0;
	bool truncated = false;
	struct dirent *de;
	struct statfs fs;
	struct stat root, cwd;
	DIR *d;

	/* The warden's root and cwd must be the workspace PID 1 pivoted
	 * into (see jail_child_main), never the host's.  Otherwise end
	 * without the END frame: jail_run() reports a malformed reply. */
	if (statfs(".", &fs) == -1 || fs.f_type != TMPFS_MAGIC ||
	    stat("/", &root) == -1 || stat(".", &cwd) == -1 ||
	    root.st_dev != cwd.st_dev || root.st_ino != cwd.st_ino ||
	    root.st_dev == host_root->st_dev)
		_exit(JAIL_EXIT_SETUP);
	d = opendir(".");
	if (d == NULL) {
		send_or_die(fd, WW_FLAT_CUT, NULL, 0, NULL, 0);
		return;
	}
	/* The first names the directory gives, at most as many as names[]
	 * holds (a name more: truncated), then in name order. */
	for (de = readdir(d); de != NULL && !truncated; de = readdir(d)) {
		const char *nm = de->d_name;

		if (nm[0] == '.' && (nm[1] == '\0' ||
		    (nm[1] == '.' && nm[2] == '\0')))
			continue;
		truncated = nnames == sizeof names / sizeof names[0];
		if (!truncated && (names[nnames] = strdup(nm)) != NULL)
			nnames++;
	}
	closedir(d);
	qsort(names, nnames, sizeof names[0], cmp_names);

	for (i = 0; i < nnames; i++) {
		struct stat sb;
		uint32_t namelen = (uint32_t)strlen(names[i]);
		char *data;
		ssize_t got;
		int f;

		/* O_NOFOLLOW and the S_ISREG check: fn cannot make the warden
		 * read a fifo, a device or anything through a link. */
		f = open(names[i], O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC);
		if (f < 0 || fstat(f, &sb) == -1 || !S_ISREG(sb.st_mode) ||
		    namelen > WIRE_NAME_MAX) {
			if (f >= 0)
				close(f);
			truncated = true;
			continue;
		}
		if (sent == p->max_files || (uint64_t)sb.st_size > budget) {
			close(f);
			truncated = true;
			continue;
		}
		data = malloc((size_t)sb.st_size + 1);
		got = data != NULL ? read(f, data, (size_t)sb.st_size + 1) : -1;
		close(f);
		if (got < 0 || got != sb.st_size) {
			free(data);
			truncated = true;
			continue;
		}
		{
			char head[4 + WIRE_NAME_MAX];

			memcpy(head, &namelen, 4);
			memcpy(head + 4, names[i], namelen);
			send_or_die(fd, WW_FLAT_FILE, head, 4 + namelen, data,
			    (size_t)got);
		}
		free(data);
		budget -= (uint64_t)got;
		sent++;
	}
	if (truncated)
		send_or_die(fd, WW_FLAT_CUT, NULL, 0, NULL, 0);
}

/* What the warden gathered from PID 1's status pipe. */
struct status_log {
	char		buf[512];	/* one refusal frame at most matters */
	size_t		len;
	bool		ready;
	int32_t		seccomp_nr;
	bool		has_refusal;
	size_t		refusal_off, refusal_len;
};

/* Parse whole frames out of the status log; later bytes are ignored once
 * fn runs, except the SIGSYS report. */
static void
scan_status(struct status_log *sl)
{
	struct wire_frame f;
	size_t off = 0;

	while (wire_next(sl->buf, sl->len, &off, wire_any, NULL, &f) == 1) {
		if (f.type == WW_READY && !sl->has_refusal)
			sl->ready = true;
		else if (f.type == WW_REFUSE && !sl->ready &&
		    !sl->has_refusal) {
			sl->has_refusal = true;
			sl->refusal_off = (size_t)(f.pay - sl->buf);
			sl->refusal_len = f.len;
		} else if (f.type == WW_SECCOMP && sl->ready && f.len == 4)
			memcpy(&sl->seccomp_nr, f.pay, 4);
	}
	/* Keep a refusal in place; otherwise drop what was parsed. */
	if (!sl->has_refusal && off > 0) {
		memmove(sl->buf, sl->buf + off, sl->len - off);
		sl->len -= off;
	}
}

/*
 * Run PID 1 to its end: read its result (bounded) and status, kill it at
 * the wall clock or when it writes too much, reap it, and report.
 */
static void warden_supervise(struct stage *st, const struct stat *host_root,
    pid_t pid, int pidfd, int result_rd, int status_rd)
    __attribute__((noreturn));

static void
warden_supervise(struct stage *st, const struct stat *host_root, pid_t pid,
    int pidfd, int result_rd, int status_rd)
{
	const struct jail_plan *p = st->plan;
	struct status_log sl;
	struct wire_wait ww;
	struct rusage ru;
	uint64_t deadline = clock_ms_whole() + p->wall_ms;
	size_t rlen = 0;
	char *result = malloc((size_t)p->max_result + 1);
	bool exited = false;
	int wstatus = 0;

	memset(&sl, 0, sizeof sl);
	memset(&ww, 0, sizeof ww);
	sl.seccomp_nr = -1;
	if (result == NULL)
		_exit(JAIL_EXIT_SETUP);

	while (!exited || result_rd >= 0 || status_rd >= 0) {
		struct pollfd pfd[3];
		uint64_t now = clock_ms_whole();
		int timeout;

		if (!exited && now >= deadline) {
			kill(pid, SIGKILL);
			ww.timed_out = 1;
		}
		pfd[0].fd = result_rd;
		pfd[1].fd = status_rd;
		pfd[2].fd = exited ? -1 : pidfd;
		pfd[0].events = pfd[1].events = pfd[2].events = POLLIN;
		timeout = exited || ww.timed_out ? -1 : (int)(deadline - now);
		if (poll(pfd, 3, timeout) == -1 && errno != EINTR)
			_exit(JAIL_EXIT_SETUP);

		if (result_rd >= 0 && pfd[0].revents != 0) {
			ssize_t r = read(result_rd, result + rlen,
			    (size_t)p->max_result + 1 - rlen);
			if (r > 0)
				rlen += (size_t)r;
			if (rlen > p->max_result) {
				/* Over the cap: stop it now. */
				ww.result_over = 1;
				rlen = (size_t)p->max_result;
				kill(pid, SIGKILL);
			}
			if (r == 0 || ww.result_over) {
				close(result_rd);
				result_rd = -1;
			}
		}
		if (status_rd >= 0 && pfd[1].revents != 0) {
			ssize_t r = 0;

			if (sl.len < sizeof sl.buf)
				r = read(status_rd, sl.buf + sl.len,
				    sizeof sl.buf - sl.len);
			if (r > 0) {
				sl.len += (size_t)r;
				scan_status(&sl);
			}
			if (r <= 0) {
				close(status_rd);
				status_rd = -1;
			}
		}
		if (!exited && (pfd[2].revents != 0 || ww.timed_out)) {
			if (wait4(pid, &wstatus, 0, &ru) == pid)
				exited = true;
		}
	}

	if (sl.has_refusal) {
		/* PID 1 refused a step: forward its frame unchanged. */
		send_or_die(st->report_fd, WW_REFUSE,
		    sl.buf + sl.refusal_off, sl.refusal_len, NULL, 0);
		_exit(0);
	}
	if (!sl.ready) {
		char detail[64];

		snprintf(detail, sizeof detail,
		    "evaluator ended during set-up (status %#x)", wstatus);
		(void)jail_wire_refuse(st->report_fd, JAIL_STEP_PID1,
		    ECHILD, detail);
		_exit(0);
	}
	/* The rlimit handlers' exits (see step_fds) are the signals. */
	if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == JAIL_EXIT_SIGXCPU)
		wstatus = SIGXCPU;	/* the wait status of "killed by" */
	else if (WIFEXITED(wstatus) &&
	    WEXITSTATUS(wstatus) == JAIL_EXIT_SIGXFSZ)
		wstatus = SIGXFSZ;
	ww.wstatus = wstatus;
	ww.seccomp_nr = sl.seccomp_nr;
	ww.cpu_us = (uint64_t)ru.ru_utime.tv_sec * 1000000 +
	    (uint64_t)ru.ru_utime.tv_usec +
	    (uint64_t)ru.ru_stime.tv_sec * 1000000 +
	    (uint64_t)ru.ru_stime.tv_usec;
	send_or_die(st->report_fd, WW_WAIT, &ww, sizeof ww, NULL, 0);
	send_or_die(st->report_fd, WW_OUTPUT, result, rlen, NULL, 0);
	free(result);
	send_workspace(p, host_root, st->report_fd);
	send_or_die(st->report_fd, WW_END, NULL, 0, NULL, 0);
	_exit(0);
}

/* ---------------------------------------------------------------- */
/* warden: namespaces, then PID 1                                    */
/* ---------------------------------------------------------------- */

/*
 * Before anything else: keep only the report pipe (moved to 3), put 0-2
 * on /dev/null and leave the caller's session and its controlling
 * terminal.  The caller may hold anything, a terminal above all.
 */
static int
step_warden_fds(void *ctx, char *detail, size_t n)
{
	struct stage *st = ctx;
	int null, i;

	if (st->host_fd < 3) {
		st->host_fd = fcntl(st->host_fd, F_DUPFD_CLOEXEC, 3);
		if (st->host_fd < 0)
			return -1;
		st->report_fd = st->host_fd;
	}
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0)
		return -1;
	for (i = 0; i < 3; i++)
		if (dup2(null, i) == -1)
			return -1;
	if (st->host_fd != 3) {
		if (dup3(st->host_fd, 3, O_CLOEXEC) == -1)
			return -1;
		st->host_fd = st->report_fd = 3;
	}
	if (syscall(__NR_close_range, 4U, ~0U, 0U) == -1)
		return -1;
	return setsid() == -1 ? -1 : 0;
}

/* Kernel memory the jail may hold beyond what RLIMIT_AS lets it map:
 * page tables, pipe and socket buffers, the warden's own. */
#define CGROUP_SLACK	((uint64_t)64 << 20)

/*
 * While still root, move into the jail's own memory cgroup (when the
 * machine gives one: jail_cgroup.c).  Its memory.max is everything the
 * jail may legitimately hold -- what RLIMIT_AS will allow, the tmpfs --
 * plus slack; what it bounds is what RLIMIT_AS does not see.
 */
static int
step_cgroup(void *ctx, char *detail, size_t n)
{
	const struct jail_plan *p = ((struct stage *)ctx)->plan;

	if (p->cgroup_dir == NULL)
		return 0;
	return jail_cgroup_enter(p->cgroup_dir, (unsigned)p->uid,
	    jail_mapped_bytes() + p->as_bytes + p->tmpfs_bytes + CGROUP_SLACK,
	    detail, n);
}

/* Leave uid 0 for the jail's own host id; then read the host ids the
 * maps name (after unshare, and until the maps are written, geteuid()
 * answers the overflow id 65534). */
static int
step_drop_uid(void *ctx, char *detail, size_t n)
{
	struct stage *st = ctx;

	if (jail_become(st->plan->uid, st->plan->gid) == -1)
		return -1;
	st->w.uid = geteuid();
	st->w.gid = getegid();
	return 0;
}

/*
 * The jail's own calls in the one set-up list (jail_int.h), which the
 * jail's description (jail.h's JAIL_CONTAINERS, MODEL) walks: the
 * warden's descriptors, its cgroup, its uid dropped, then (the list's)
 * its death signal and user namespace; PID 1's private mounts, its
 * workspace made "/", its rlimits, then (the list's) its lockdown with
 * its descriptors, Landlock and seccomp.  "ready", then fn.
 */
static const struct jail_contain_ops jail_ops = { .run = {
	[JAIL_SLOT_WARDEN_FDS] = step_warden_fds,
	[JAIL_SLOT_CGROUP] = step_cgroup, [JAIL_SLOT_DROP_UID] = step_drop_uid,
	[JAIL_SLOT_MOUNT_PRIVATE] = jail_step_private,
	[JAIL_SLOT_WORKSPACE] = step_workspace,
	[JAIL_SLOT_PIVOT_ROOT] = step_pivot_root,
	[JAIL_SLOT_RLIMITS] = step_rlimits, [JAIL_SLOT_FDS] = step_fds,
	[JAIL_SLOT_LANDLOCK] = step_landlock,
	[JAIL_SLOT_SECCOMP] = step_seccomp,
} };

void
jail_child_main(const struct jail_plan *plan)
{
	struct stage st;
	static const struct jail_child_spec pid1 = {
		/* PID 1 dies with the warden.  Its parent is outside the new
		 * pid namespace, so getppid() says 0 and cannot show a warden
		 * that died before the prctl; but then the status pipe has no
		 * reader, the "ready" frame fails with EPIPE, and PID 1 exits
		 * before fn runs. */
		.flags = JAIL_FORK_PID1,
	};
	struct stat host_root;
	char detail[WIRE_DETAIL_MAX];
	const struct jail_walk walk = { plan->fail_at, &st.report_fd, detail,
	    sizeof detail };
	const char *failed;
	int result_pipe[2], status_pipe[2], pidfd, err;
	pid_t pid;

	memset(&st, 0, sizeof st);
	st.w.parent = plan->host_pid;
	st.w.inner = JAIL_INNER_ID;
	st.plan = plan;
	st.host_fd = st.report_fd = plan->host_fd;
	st.devnull = st.result_wr = st.status_wr = -1;

	jail_contain(jail_container(JAIL_CONTAINER_MODEL), &jail_ops,
	    JAIL_STAGE_WARDEN, &walk, &st);

	/* The warden shares PID 1's mount namespace.  Standing at its root
	 * now, it is carried into the workspace by PID 1's pivot_root, which
	 * moves every process whose root and cwd are the old root; that is
	 * where it reads the files back from.  host_root tells the two
	 * apart afterwards. */
	if (injected(&st, JAIL_STEP_PID1) || chdir("/") == -1 ||
	    stat("/", &host_root) == -1 ||
	    pipe2(result_pipe, O_CLOEXEC) == -1)
		refuse(&st, JAIL_STEP_PID1, errno, NULL);
	if (pipe2(status_pipe, O_CLOEXEC) == -1)
		refuse(&st, JAIL_STEP_PID1, errno, NULL);
	pid = jail_fork(&pid1, &failed);
	if (pid == -1)
		refuse(&st, JAIL_STEP_PID1, errno, NULL);
	if (pid == 0) {
		err = errno;
		close(st.host_fd);	/* fn never holds the host pipe */
		close(result_pipe[0]);
		close(status_pipe[0]);
		st.result_wr = result_pipe[1];
		st.status_wr = status_pipe[1];
		st.report_fd = status_pipe[1];
		if (failed != NULL)
			refuse(&st, JAIL_STEP_PID1, err, failed);
		pid1_main(&st);
	}
	close(result_pipe[1]);
	close(status_pipe[1]);
	pidfd = (int)syscall(__NR_pidfd_open, pid, 0);
	if (pidfd < 0) {
		kill(pid, SIGKILL);
		refuse(&st, JAIL_STEP_PID1, errno, "pidfd_open");
	}
	warden_supervise(&st, &host_root, pid, pidfd, result_pipe[0],
	    status_pipe[0]);
}
