/*
 * jail_contain.c -- the container set-up, one of each step, for the
 * model-engine jail (jail_child.c) and every CPython world (world/
 * replica.c, world/jailkind.c, world/gvisor.c's worker): the table of
 * what each kind's container is (JAIL_CONTAINERS), the one list of
 * steps walked once for any of them (jail_contain, JAIL_CONTAIN_SLOTS),
 * the kernel primitives the steps call, and the one way a step is
 * refused or made to fail for a test.
 *
 * Each primitive checks what it did where the kernel lets it be read
 * back (the capabilities, no_new_privs, dumpable, the ids, the cwd after
 * pivot_root): a set-up trusts no call's return alone.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <unistd.h>

#include "jail_int.h"
#include "jail_sys.h"

bool
jail_injected(int fail_at, int step)
{
	if (fail_at == step) {
		errno = ECANCELED;
		return true;
	}
	return false;
}

void
jail_refuse(int fd, int step, int err, const char *detail)
{
	(void)jail_wire_refuse(fd, step, err, detail);
	_exit(JAIL_EXIT_SETUP);
}

void
jail_walk(const struct jail_walk *w, const struct jail_stepdef *steps,
    size_t n, void *ctx)
{
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(w->detail, w->n, "%s", steps[i].detail != NULL ?
		    steps[i].detail : "");
		if (jail_injected(w->fail_at, steps[i].step) ||
		    steps[i].run(ctx, w->detail, w->n) == -1)
			jail_refuse(*w->report_fd, steps[i].step, errno,
			    w->detail);
	}
}

static const struct jail_container containers[] = {
#define X(e, name, words, ids, root, net, seccomp, landlock, limits,	\
    first, cgroup, ns)							\
	[JAIL_CONTAINER_##e] = { name, JAIL_SETUP_##words, JAIL_IDS_##ids, \
	    JAIL_ROOT_##root, JAIL_NET_##net, JAIL_FILTER_##seccomp,	\
	    JAIL_RULES_##landlock, JAIL_LIMITS_##limits, first, cgroup, ns },
	JAIL_CONTAINERS(X)
#undef X
};

const struct jail_container *
jail_container(enum jail_container_id id)
{
	return (unsigned)id < JAIL_CONTAINER_COUNT ? &containers[id] : NULL;
}

/* The one list of set-up steps: see jail_int.h. */
static const struct {
	enum jail_step	 step;
	enum jail_stage	 stage;
	jail_step_fn	 common;
} contain_slots[] = {
#define X(e, step, stage, common) [JAIL_SLOT_##e] =			\
	{ JAIL_STEP_##step, JAIL_STAGE_##stage, common },
	JAIL_CONTAIN_SLOTS(X)
#undef X
};

/* Slot i's call for container c: the common one, the set-up's own (the
 * rlimits' in the slot c puts them in), or NULL (not walked). */
static jail_step_fn
slot_call(const struct jail_container *c, const struct jail_contain_ops *ops,
    enum jail_slot i, bool *clash)
{
	jail_step_fn own = ops->run[i];

	if (i == JAIL_SLOT_LIMITS_FIRST || i == JAIL_SLOT_RLIMITS)
		own = (i == JAIL_SLOT_LIMITS_FIRST) == c->limits_first ?
		    ops->run[JAIL_SLOT_RLIMITS] : NULL;
	else if (i == JAIL_SLOT_EARLY_DEATHSIG && c->ids != JAIL_IDS_WARDEN)
		return NULL;
	if (contain_slots[i].common != NULL && own != NULL)
		*clash = true;
	return contain_slots[i].common != NULL ? contain_slots[i].common :
	    own;
}

void
jail_contain(const struct jail_container *c,
    const struct jail_contain_ops *ops, enum jail_stage stage,
    const struct jail_walk *w, void *ctx)
{
	struct jail_stepdef steps[JAIL_SLOT_COUNT];
	size_t i, n = 0;
	bool clash = false;

	for (i = 0; i < JAIL_SLOT_COUNT; i++) {
		jail_step_fn run;

		if (contain_slots[i].stage != stage)
			continue;
		run = slot_call(c, ops, (enum jail_slot)i, &clash);
		if (run != NULL)
			steps[n++] = (struct jail_stepdef){
			    contain_slots[i].step, run,
			    i == JAIL_SLOT_UNSHARE ? "namespaces unavailable" :
			    NULL };
	}
	if (clash || (stage == JAIL_STAGE_WARDEN && c->namespaces == 0)) {
		snprintf(w->detail, w->n, "set-up of %s", c->name);
		jail_refuse(*w->report_fd, n > 0 ? steps[0].step :
		    JAIL_STEP_NONE, EINVAL, w->detail);
	}
	if (stage == JAIL_STAGE_WARDEN)
		((struct jail_warden *)ctx)->namespaces = c->namespaces;
	jail_walk(w, steps, n, ctx);
}

/* The steps every set-up takes alike (jail_int.h's list). */
int
jail_step_private(void *ctx, char *detail, size_t n)
{
	/* nothing mounted from here on reaches the host's tree */
	return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

int
jail_step_unshare(void *ctx, char *detail, size_t n)
{
	int ns = ((const struct jail_warden *)ctx)->namespaces;

	if (ns == 0) {		/* never a warden left in the host's */
		errno = EINVAL;
		return -1;
	}
	return unshare(ns);
}

int
jail_step_undumpable(void *ctx, char *detail, size_t n)
{
	return jail_undumpable();
}

int
jail_step_caps(void *ctx, char *detail, size_t n)
{
	return jail_drop_caps();
}

int
jail_step_no_new_privs(void *ctx, char *detail, size_t n)
{
	return jail_no_new_privs();
}

int
jail_step_pdeathsig(void *ctx, char *detail, size_t n)
{
	return jail_pdeathsig(((const struct jail_warden *)ctx)->parent);
}

int
jail_step_id_maps(void *ctx, char *detail, size_t n)
{
	const struct jail_warden *w = ctx;

	return jail_id_maps(w->inner, w->uid, w->gid, detail, n);
}

/* Bytes mapped now, before anything is mounted or limited.  PID 1 is
 * undumpable by now, so its /proc/self files belong to host root; statm
 * is mode 0444 and asks for no ptrace access, so it still reads. */
uint64_t
jail_mapped_bytes(void)
{
	char buf[128];
	unsigned long long pages;
	ssize_t n;
	int fd;

	fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%llu", &pages) != 1)
		return 0;
	return (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

int
jail_caps_keep(uint32_t mask)
{
	struct __user_cap_header_struct head;
	struct __user_cap_data_struct data[2];
	unsigned long cap;

	/* The bounding set: drop until the kernel says there is no such cap. */
	for (cap = 0; cap < 64; cap++) {
		if (cap < 32 && (mask & (1u << cap)))
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == -1) {
			if (errno == EINVAL)
				break;
			return -1;
		}
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1)
		return -1;
	memset(&head, 0, sizeof head);
	memset(data, 0, sizeof data);
	head.version = _LINUX_CAPABILITY_VERSION_3;
	data[0].effective = data[0].permitted = data[0].inheritable = mask;
	if (syscall(SYS_capset, &head, data) == -1)
		return -1;
	/* Check rather than trust. */
	memset(data, 0, sizeof data);
	if (syscall(SYS_capget, &head, data) == -1)
		return -1;
	if (data[0].effective != mask || data[0].permitted != mask ||
	    data[0].inheritable != mask ||
	    (data[1].effective | data[1].permitted | data[1].inheritable)) {
		errno = EPERM;
		return -1;
	}
	for (cap = 0; cap < 32; cap++)
		if ((mask & (1u << cap)) &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) == -1)
			return -1;
	return 0;
}

int
jail_drop_caps(void)
{
	return jail_caps_keep(0);
}

int
jail_no_new_privs(void)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		return -1;
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

int
jail_pdeathsig(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1)
		return -1;
	if (getppid() != parent) {	/* the parent died before the prctl */
		errno = ESRCH;
		return -1;
	}
	return 0;
}

int
jail_id_maps(int inner, uid_t uid, gid_t gid, char *detail, size_t n)
{
	char map[64];

	if (jail_write_text("/proc/self/setgroups", "deny", 0) == -1) {
		snprintf(detail, n, "setgroups deny");
		return -1;
	}
	snprintf(map, sizeof map, "%d %u 1", inner, (unsigned)uid);
	if (jail_write_text("/proc/self/uid_map", map, 0) == -1) {
		snprintf(detail, n, "uid_map");
		return -1;
	}
	snprintf(map, sizeof map, "%d %u 1", inner, (unsigned)gid);
	if (jail_write_text("/proc/self/gid_map", map, 0) == -1) {
		snprintf(detail, n, "gid_map");
		return -1;
	}
	return 0;
}

int
jail_set_rlimits(const struct jail_limits *l, uint64_t as_base)
{
	const struct { int res; uint64_t soft, hard; } lim[] = {
		{ RLIMIT_AS, as_base + l->as_bytes, as_base + l->as_bytes },
		{ RLIMIT_CPU, l->cpu_seconds, l->cpu_seconds +
		    (l->within ? 0 : 1) },
		{ RLIMIT_NPROC, l->nproc, l->nproc },
		{ RLIMIT_FSIZE, l->fsize_bytes, l->fsize_bytes },
		{ RLIMIT_NOFILE, l->nofile, l->nofile },
		{ RLIMIT_CORE, 0, 0 },
		{ RLIMIT_MEMLOCK, 0, 0 },
		{ RLIMIT_MSGQUEUE, 0, 0 },
	};
	struct rlimit rl;
	size_t i, n = sizeof lim / sizeof lim[0];

	if (as_base == 0) {
		errno = ENODATA;	/* /proc/self/statm could not be read */
		return -1;
	}
	/* (gVisor refuses to set RLIMIT_MSGQUEUE: its message queues are
	 * the Sentry's memory) */
	if (l->within)
		n--;
	for (i = 0; i < n; i++) {
		rl.rlim_cur = (rlim_t)lim[i].soft;
		rl.rlim_max = (rlim_t)lim[i].hard;
		if (l->within) {
			struct rlimit now;

			if (getrlimit(lim[i].res, &now) == -1)
				return -1;
			if (now.rlim_max != RLIM_INFINITY &&
			    now.rlim_max < rl.rlim_max)
				rl.rlim_cur = rl.rlim_max = now.rlim_max;
		}
		if (setrlimit(lim[i].res, &rl) == -1)
			return -1;
	}
	return 0;
}

int
jail_become(uid_t uid, gid_t gid)
{
	if (geteuid() == 0) {
		if (setgroups(0, NULL) == -1 ||
		    setresgid(gid, gid, gid) == -1 ||
		    setresuid(uid, uid, uid) == -1)
			return -1;
		if (geteuid() == 0 || getegid() == 0 || geteuid() != uid ||
		    getegid() != gid) {
			errno = EPERM;
			return -1;
		}
	}
	/* A uid change clears dumpable; /proc/self/setgroups needs it.
	 * jail_undumpable clears it again once the maps are written. */
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

int
jail_undumpable(void)
{
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1)
		return -1;
	if (prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

int
jail_pivot_root(const char *newroot, char *detail, size_t n)
{
	/* pivot_root(".", ".") stacks the old root under the new one; the
	 * detach then drops it, so no directory of the host stays reachable. */
	if (chdir(newroot) == -1)
		return -1;
	if (syscall(SYS_pivot_root, ".", ".") == -1) {
		snprintf(detail, n, "pivot_root");
		return -1;
	}
	if (umount2(".", MNT_DETACH) == -1) {
		snprintf(detail, n, "detach old root");
		return -1;
	}
	return chdir("/");
}

int
jail_cwd_is(const char *want)
{
	char cwd[256];

	/* The runc lesson (CVE-2024-21626): prove the cwd is inside. */
	if (getcwd(cwd, sizeof cwd) == NULL || strcmp(cwd, want) != 0) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

int
jail_fresh(int *const at[], unsigned n, unsigned cloexec_from)
{
	int fds[JAIL_FORK_MAX_FDS];
	sigset_t none;
	unsigned i;

	if (n > JAIL_FORK_MAX_FDS) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < n; i++)
		fds[i] = *at[i];
	if (jail_fds_keep(fds, n, cloexec_from) == -1)
		return -1;
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) == -1)
		return -1;
	if (setsid() == -1)
		return -1;
	for (i = 0; i < n; i++)
		*at[i] = (int)i;
	return 0;
}
