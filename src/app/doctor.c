/*
 * doctor.c -- `sandboxrepl --doctor`: what this machine allows, and what
 * each path will run (see doctor.h).
 *
 * Each check asks the kernel the way the program itself will, and keeps
 * one line of what it found, a short reason a path's line can quote, and
 * a fix.  The ones the paths depend on go furthest: a child really
 * unshares a user and a mount namespace and makes "/" private (AppArmor's
 * restriction lets the unshare succeed and takes the capabilities away,
 * so the unshare alone proves nothing); the memory cgroup is the one
 * jail.c finds (jail_memory_cgroup); a world of each kind is built and a
 * kernel jail runs a function that does nothing.  Only then are the
 * sysctls read to say why something failed: they explain, the probes
 * decide.
 *
 * The machine's state is read as the running user sees it: inside a user
 * namespace, /proc/sys/user/max_user_namespaces is that namespace's own.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/seccomp.h>
#include <jansson.h>

#include "doctor.h"
#include "jail/jail.h"
#include "jail/jail_sys.h"
#include "fs/mockfs.h"
#include "session/session.h"
#include "world/world.h"
#include "world/world_int.h"	/* a world's budget: WORLD_NPROC, ... */
#include "base/xalloc.h"

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION	(1U << 0)
#endif
#ifndef SECCOMP_GET_ACTION_AVAIL
#define SECCOMP_GET_ACTION_AVAIL	2
#endif
#ifndef SECCOMP_RET_USER_NOTIF
#define SECCOMP_RET_USER_NOTIF		0x7fc00000U
#endif

#define RUNSC_WAIT_MS	5000	/* `runsc --version` gets this long */

static const char *const check_names[] = {
#define X(e, name) name,
	DOCTOR_CHECKS(X)
#undef X
};

static const char *const state_words[] = {
#define X(e, word) word,
	DOCTOR_STATES(X)
#undef X
};

static void
set(struct doctor_check *c, enum doctor_state st, char *text, char *reason,
    char *fix)
{
	c->state = st;
	c->text = text;
	c->reason = reason;
	c->fix = fix;
}

/* A number from a /proc/sys file, or -1 when it is absent. */
static long
sysctl_num(const char *path)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

/* ---- user namespaces ---- */

/*
 * In a child: unshare a user and a mount namespace and make "/" private,
 * the first things a jail does.  0, or the errno of the step that failed
 * and *step naming it.
 */
static int
probe_userns(const char **step)
{
	int fds[2], err = 0;
	unsigned char what = 0;
	const char *failed;
	pid_t pid;
	int status;

	*step = "fork";
	if (pipe2(fds, O_CLOEXEC) == -1)
		return errno;
	pid = jail_fork(NULL, &failed);
	if (pid == -1) {
		err = errno;
		close(fds[0]);
		close(fds[1]);
		return err;
	}
	if (pid == 0) {
		int e[2] = { 0, 0 };

		close(fds[0]);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) == -1)
			e[0] = 1, e[1] = errno;
		else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ==
		    -1)
			e[0] = 2, e[1] = errno;
		if (write(fds[1], e, sizeof e) != (ssize_t)sizeof e)
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	{
		int e[2] = { 0, 0 };
		ssize_t n;

		while ((n = read(fds[0], e, sizeof e)) == -1 && errno == EINTR)
			;
		if (n != (ssize_t)sizeof e)
			e[0] = 3, e[1] = EIO;
		what = (unsigned char)e[0];
		err = e[1];
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	*step = what == 1 ? "unshare" : what == 2 ? "mount" : "the probe";
	return what == 0 ? 0 : err != 0 ? err : EIO;
}

static void
check_userns(struct doctor_check *c)
{
	const char *step;
	int err = probe_userns(&step);
	long max = sysctl_num("/proc/sys/user/max_user_namespaces");
	long clone = sysctl_num("/proc/sys/kernel/unprivileged_userns_clone");
	long aa = sysctl_num(
	    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns");

	if (err == 0) {
		set(c, DOCTOR_STATE_OK, xasprintf("a test unshare works "
		    "(user.max_user_namespaces = %ld%s)", max,
		    aa == 1 ? "; AppArmor's restriction lets this program "
		    "through" : ""), NULL, NULL);
		return;
	}
	if (max == 0)
		set(c, DOCTOR_STATE_MISSING, xasprintf("off: "
		    "user.max_user_namespaces is 0 (%s: %s)", step,
		    strerror(err)), xstrdup("user namespaces are off"),
		    xstrdup("as root, sysctl -w user.max_user_namespaces="
		    "65536 (a file in /etc/sysctl.d/ keeps it)"));
	else if (clone == 0 && geteuid() != 0)
		set(c, DOCTOR_STATE_MISSING, xasprintf("off for users: "
		    "kernel.unprivileged_userns_clone is 0 (%s: %s)", step,
		    strerror(err)), xstrdup("user namespaces are off for "
		    "users"), xstrdup("as root, sysctl -w "
		    "kernel.unprivileged_userns_clone=1 (a file in "
		    "/etc/sysctl.d/ keeps it)"));
	else if (aa == 1)
		set(c, DOCTOR_STATE_MISSING, xasprintf("restricted by "
		    "AppArmor: kernel.apparmor_restrict_unprivileged_userns "
		    "is 1 (%s: %s)", step, strerror(err)),
		    xstrdup("user namespaces are restricted by AppArmor: "
		    "install the profile, see below"),
		    xstrdup("install the AppArmor profile (the .deb and make "
		    "install put it in /etc/apparmor.d/sandboxrepl), then as "
		    "root: apparmor_parser -r /etc/apparmor.d/sandboxrepl"));
	else
		set(c, DOCTOR_STATE_MISSING, xasprintf("a test unshare "
		    "failed (%s: %s)", step, strerror(err)),
		    xstrdup("user namespaces cannot be made here"),
		    xstrdup("in a container, run it with user namespaces "
		    "allowed (its seccomp profile may refuse unshare); "
		    "see TROUBLESHOOTING in sandboxrepl(1)"));
}

/* ---- Landlock, seccomp ---- */

static void
check_landlock(struct doctor_check *c)
{
	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	int err = errno;

	if (abi >= 1)
		set(c, DOCTOR_STATE_OK, xasprintf("ABI %ld", abi), NULL, NULL);
	else if (abi == -1 && err == EOPNOTSUPP)
		set(c, DOCTOR_STATE_MISSING, xstrdup("off: the kernel has it "
		    "but it was not enabled at boot"),
		    xstrdup("Landlock is off"), xstrdup("add landlock to the "
		    "kernel's lsm= boot parameter (see "
		    "/sys/kernel/security/lsm for the list now)"));
	else
		set(c, DOCTOR_STATE_MISSING, xasprintf("not in this kernel "
		    "(%s)", strerror(abi == -1 ? err : EOPNOTSUPP)),
		    xstrdup("the kernel has no Landlock"), xstrdup("a kernel "
		    "5.13 or later built with CONFIG_SECURITY_LANDLOCK"));
}

static bool
seccomp_action(unsigned action)
{
	return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) ==
	    0;
}

static void
check_seccomp(struct doctor_check *c)
{
	int mode = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);

	if (mode == -1 && errno == EINVAL)
		set(c, DOCTOR_STATE_MISSING, xstrdup("not in this kernel"),
		    xstrdup("the kernel has no seccomp"), xstrdup("a kernel "
		    "built with CONFIG_SECCOMP_FILTER"));
	else if (!seccomp_action(SECCOMP_RET_KILL_PROCESS))
		set(c, DOCTOR_STATE_MISSING, xasprintf("filters cannot kill "
		    "a process (%s)", strerror(errno)),
		    xstrdup("seccomp filters are not usable"),
		    xstrdup("a kernel 4.14 or later with "
		    "CONFIG_SECCOMP_FILTER"));
	else if (!seccomp_action(SECCOMP_RET_USER_NOTIF))
		set(c, DOCTOR_STATE_MISSING, xstrdup("filters, but no user "
		    "notification (jail worlds need it)"),
		    xstrdup("seccomp has no user notification"),
		    xstrdup("a kernel 5.0 or later"));
	else
		set(c, DOCTOR_STATE_OK, xasprintf("filters and user "
		    "notification%s", mode == 2 ? "; this process is "
		    "already filtered (a container?)" : ""), NULL, NULL);
}

/* ---- the memory cgroup ---- */

static void
check_cgroup(struct doctor_check *c)
{
	const char *why;
	int st = jail_memory_cgroup(&why);

	const char *mem, *cpu;

	jail_cgroup_kinds(&mem, &cpu);
	if (st == 1)
		set(c, DOCTOR_STATE_OK, xasprintf("jails and worlds get a "
		    "memory cgroup of their own (%s)%s%s%s", mem,
		    cpu != NULL ? " and a cpu cgroup (" : "; no cpu cgroup",
		    cpu != NULL ? cpu : "", cpu != NULL ? ")" : ""), NULL,
		    NULL);
	else if (st == 0)
		set(c, DOCTOR_STATE_NOTE, xasprintf("none: %s; the memory cap "
		    "is RLIMIT_AS alone", why), NULL, xstrdup("run as root "
		    "from a cgroup of its own (systemd-run --scope -p "
		    "Delegate=yes sandboxrepl) for a cgroup memory cap"));
	else
		set(c, DOCTOR_STATE_MISSING, xasprintf("setting up %s failed: "
		    "every jail refuses", why),
		    xstrdup("the memory cgroup cannot be set up"),
		    xstrdup("run it from a cgroup it may write, or as a "
		    "user (then RLIMIT_AS is the memory cap)"));
}

/* ---- CPython and its worlds ---- */

/* Can a CPython world of kind k be built?  NULL, or why not (heap). */
static char *
world_builds(enum world_kind k)
{
	struct world *w = world_new_kind(WORLD_ENGINE_CPYTHON, k, 0, 0);
	struct mfs *fs = mfs_new();
	struct world_seed seed = { .fs = fs };
	char *err = NULL;

	if (w->ops->engine != WORLD_ENGINE_CPYTHON)
		err = xstrdup("built without libpython");
	else if (world_build(w, &seed, &err))
		err = NULL;
	else if (err == NULL)
		err = xstrdup("the world could not be built");
	mfs_free(fs);
	world_free(w);
	return err;
}

/* The embedded CPython's version, or NULL (world.h). */
static const char *
cpython_version(char *buf, size_t n)
{
	return world_python_version(buf, n);
}

static void
check_cpython(struct doctor_check *c, char **replica, char **jail)
{
	char vbuf[64];
	const char *v = cpython_version(vbuf, sizeof vbuf);

	*replica = world_builds(WORLD_KIND_REPLICA);
	*jail = world_builds(WORLD_KIND_JAIL);
#ifdef HAVE_PYTHON
	if (v == NULL)		/* built in, but its module does not load */
		set(c, DOCTOR_STATE_MISSING, xasprintf("CPython does not "
		    "load: %s", *replica != NULL ? *replica : "?"),
		    xstrdup("CPython worlds cannot be built here"),
		    xstrdup("install sandboxrepl-python.so with the program "
		    "(make install)"));
#else
	if (v == NULL)
		set(c, DOCTOR_STATE_MISSING, xstrdup("not built in "
		    "(configure found no libpython)"),
		    xstrdup("built without libpython"),
		    xstrdup("install libpython3-dev and build again"));
#endif
	else if (*replica == NULL && *jail == NULL)
		set(c, DOCTOR_STATE_OK, xasprintf("CPython %s; replica and "
		    "jail worlds build", v), NULL, NULL);
	else
		set(c, DOCTOR_STATE_MISSING, xasprintf("CPython %s; %s%s%s", v,
		    *replica != NULL ? "a replica world does not build: " :
		    "a jail world does not build: ",
		    *replica != NULL ? *replica : *jail,
		    *replica != NULL && *jail == NULL ? " (jail worlds do)" :
		    ""), xstrdup("CPython worlds cannot be built here"),
		    NULL);
}

/* ---- gVisor ---- */

/* runsc's path on $PATH into buf, or false. */
static bool
find_runsc(char *buf, size_t n)
{
	const char *path = getenv("PATH"), *p;

	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p != '\0'; p += *p == ':') {
		size_t len = strcspn(p, ":");

		if (len > 0 && (size_t)snprintf(buf, n, "%.*s/runsc",
		    (int)len, p) < n && access(buf, X_OK) == 0)
			return true;
		p += len;
	}
	return false;
}

/*
 * `runsc --version`: its first line into out, or false and why.  A child
 * with stdin from /dev/null, killed after RUNSC_WAIT_MS.
 */
static bool
runsc_version(const char *runsc, char *out, size_t n)
{
	int fds[2], status = 0;
	size_t got = 0;
	const char *failed;
	pid_t pid;
	struct timespec start, now;

	if (pipe2(fds, O_CLOEXEC) == -1)
		return snprintf(out, n, "pipe: %s", strerror(errno)), false;
	/* stdin /dev/null, stdout and stderr the pipe, nothing else */
	pid = jail_fork(&(const struct jail_child_spec){ .fds = (const int[]){
	    -1, fds[1], fds[1] }, .nfds = 3 }, &failed);
	if (pid == -1) {
		snprintf(out, n, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return false;
	}
	if (pid == 0) {
		if (failed == NULL)
			execl(runsc, "runsc", "--version", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		ssize_t r = got + 1 < n ? read(fds[0], out + got,
		    n - 1 - got) : 0;
		long ms;

		if (r > 0) {
			got += (size_t)r;
			continue;
		}
		if (r == 0 && got + 1 < n)
			break;			/* end of output */
		if (got + 1 >= n) {
			char sink[256];
			if (read(fds[0], sink, sizeof sink) == 0)
				break;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		ms = (now.tv_sec - start.tv_sec) * 1000 +
		    (now.tv_nsec - start.tv_nsec) / 1000000;
		if (ms > RUNSC_WAIT_MS) {
			kill(pid, SIGKILL);
			break;
		}
		usleep(10000);
	}
	close(fds[0]);
	out[got] = '\0';
	out[strcspn(out, "\n")] = '\0';
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && got > 0)
		return true;
	if (WIFSIGNALED(status))
		snprintf(out, n, "killed by signal %d (no answer within "
		    "%d ms?)", WTERMSIG(status), RUNSC_WAIT_MS);
	else if (WEXITSTATUS(status) == 127)
		snprintf(out, n, "it could not be run");
	else if (got == 0)
		snprintf(out, n, "exit status %d", WEXITSTATUS(status));
	return false;
}

/*
 * What to do where runsc starts but a gVisor world does not build, from
 * the world's own error (heap): where the worker inside refused a step
 * of its set-up (cpython.c: "world set-up failed at STEP"), runsc and
 * what it needs (user namespaces, ptrace) worked, and the step is the
 * cause; otherwise runsc could not make its sandbox.
 */
#define SETUP_FAILED	"world set-up failed at "

static char *
gvisor_fix(const char *err)
{
	const char *step = strncmp(err, SETUP_FAILED, strlen(SETUP_FAILED))
	    == 0 ? err + strlen(SETUP_FAILED) : NULL;

	if (step == NULL)
		return xstrdup("runsc could not make its sandbox: see what "
		    "runsc needs in sandboxrepl(1), --jail");
	if (strncmp(step, "python", 6) == 0)
		return xstrdup("runsc made its sandbox, but the worker inside "
		    "could not load CPython (the gvisor line says why): "
		    "reinstall sandboxrepl with its sandboxrepl-python.so");
	return xasprintf("runsc made its sandbox, but the worker inside "
	    "stopped at %.*s (the gvisor line says why)",
	    (int)strcspn(step, ":"), step);
}

/*
 * runsc, for the gVisor jail (--jail=gvisor, the jail:gvisor path): a
 * NOTE when missing, since only a session that asks for gVisor needs it;
 * when it starts, a gVisor world is built as check_cpython() builds the
 * others, and *gworld says why it could not be (heap), or NULL.
 */
static void
check_gvisor(struct doctor_check *c, char **gworld)
{
	char runsc[PATH_MAX], version[256];

	*gworld = xstrdup("runsc does not start");
	if (!find_runsc(runsc, sizeof runsc))
		set(c, DOCTOR_STATE_NOTE, xstrdup("runsc is not on PATH"),
		    xstrdup("no runsc"), xstrdup("for a gVisor jail, install "
		    "runsc (gvisor.dev/docs/user_guide/install)"));
	else if (runsc_version(runsc, version, sizeof version)) {
		free(*gworld);
		*gworld = world_builds(WORLD_KIND_GVISOR);
		if (*gworld == NULL)
			set(c, DOCTOR_STATE_OK, xasprintf("%s starts: %s; a "
			    "gVisor world builds", runsc, version), NULL, NULL);
		else
			set(c, DOCTOR_STATE_NOTE, xasprintf("%s starts (%s), "
			    "but a gVisor world does not build: %s", runsc,
			    version, *gworld), xstrdup("no gVisor world"),
			    gvisor_fix(*gworld));
	} else
		set(c, DOCTOR_STATE_NOTE, xasprintf("%s --version fails: %s",
		    runsc, version), xstrdup("runsc does not start"),
		    xstrdup("reinstall runsc, and check `runsc --version`"));
}

/* ---- KVM ---- */

static void
check_kvm(struct doctor_check *c)
{
	const char *why;

	if (microvm_accel(&why) == MICROVM_KVM)
		set(c, DOCTOR_STATE_OK, xasprintf("%s: a microVM runs on KVM",
		    why), NULL, NULL);
	else
		set(c, DOCTOR_STATE_NOTE, xasprintf("%s: a microVM runs under "
		    "TCG, QEMU's emulation (slow: seconds to boot)", why),
		    xstrdup("no usable KVM"), xstrdup("a machine with "
		    "virtualisation enabled (nested, in a VM), the kvm module "
		    "loaded and the user in the kvm group"));
}

/*
 * QEMU and the guest's images, for the microVM jail (--jail=microvm,
 * the jail:microvm path): a NOTE when missing, since only a session
 * that asks for a microVM needs them.  A guest is booted only for a
 * path that asks for one (diagnose_microvm): it takes seconds.
 */
static void
check_qemu(struct doctor_check *c, char **missing)
{
	char where[512];

	*missing = NULL;
	if (microvm_found(where, sizeof where))
		set(c, DOCTOR_STATE_OK, xstrdup(where), NULL, NULL);
	else {
		*missing = xstrdup(where);
		set(c, DOCTOR_STATE_NOTE, xstrdup(where), xstrdup("no microVM"),
		    xstrdup("for a microVM jail, install qemu-system-x86 and "
		    "the guest's images (make microvm-guest in the build tree; or "
		    "the .deb)"));
	}
}

/* ---- the model's kernel jail ---- */

static int
jail_nothing(void *arg)
{
	(void)arg;
	return 0;
}

/* Does a kernel jail run?  NULL, or why not (heap). */
static char *
jail_runs(void)
{
	struct jail_config cfg = { .wall_ms = 5000 };
	struct jail_outcome out;
	char *why = NULL;

	if (jail_run(&cfg, jail_nothing, NULL, &out) != 0)
		why = xasprintf("the jail refuses: %s", out.reason);
	jail_outcome_free(&out);
	return why;
}

/* ---- what bounds each path's memory and CPU ---- */

/*
 * A CPython world of the replica or jail kind (replica.c): its cgroup,
 * where this process found one (check_cgroup ran jail_memory_cgroup, and
 * the zygote finds the same), else the rlimits alone, sized so that
 * WORLD_NPROC processes stay within one budget.
 */
static char *
world_bounds(void)
{
	const char *mem, *cpu;
	char *m, *u, *out;

	jail_cgroup_kinds(&mem, &cpu);
	if (mem != NULL)
		m = xasprintf("memory by %s (%llu MiB a world) and rlimits",
		    mem, (unsigned long long)(world_memory() >> 20));
	else
		m = xasprintf("memory by rlimits only (%d processes x %llu "
		    "MiB over CPython's base: about %llu MiB a world)",
		    WORLD_NPROC,
		    (unsigned long long)(world_process_memory(world_memory())
		    >> 20), (unsigned long long)(world_memory() >> 20));
	if (cpu != NULL)
		u = xasprintf("CPU by %s (one core a world) and RLIMIT_CPU "
		    "(%d processes x %d s)", cpu, WORLD_NPROC,
		    WORLD_CPU_SECONDS);
	else
		u = xasprintf("CPU by rlimits only (%d processes x %d s a "
		    "world)", WORLD_NPROC, WORLD_CPU_SECONDS);
	out = xasprintf("%s; %s", m, u);
	free(m);
	free(u);
	return out;
}

/* The model's kernel jail (jail.c): one process tree per input. */
static char *
kjail_bounds(void)
{
	const char *mem, *cpu;

	jail_cgroup_kinds(&mem, &cpu);
	return xasprintf("memory by %s%s; CPU by %s%sRLIMIT_CPU and the wall "
	    "clock; every process ends with its input",
	    mem != NULL ? mem : "RLIMIT_AS only",
	    mem != NULL ? " and RLIMIT_AS" : "",
	    mem != NULL && cpu != NULL ? cpu : "",
	    mem != NULL && cpu != NULL ? " (one core), " : "");
}

/* ---- the report ---- */

/* The first failed check a path depends on, as its reason. */
static const char *
first_reason(const struct doctor_report *r, const enum doctor_check_id *ids,
    size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (r->checks[ids[i]].state == DOCTOR_STATE_MISSING &&
		    r->checks[ids[i]].reason != NULL)
			return r->checks[ids[i]].reason;
	return NULL;
}

static void
set_path(struct doctor_path *p, bool runs, bool as_asked,
    enum world_engine e, char *text)
{
	p->runs = runs;
	p->as_asked = runs && as_asked;
	p->engine = e;
	p->text = text;
}

/* What bounds what the path runs (NULL when it cannot run). */
#define MODEL_BOUNDS	"in-process: the session's memory caps (--memory) " \
	"and the model's limits (max-steps)"
#define GVISOR_BOUNDS	"memory and CPU by gVisor's spec and the " \
	"worker's rlimits inside the sandbox"

/* Their reasons, the cause before its consequence. */
static const enum doctor_check_id world_needs[] = {
	DOCTOR_USERNS, DOCTOR_SECCOMP, DOCTOR_CGROUP, DOCTOR_CPYTHON,
};
static const enum doctor_check_id jail_needs[] = {
	DOCTOR_USERNS, DOCTOR_LANDLOCK, DOCTOR_SECCOMP, DOCTOR_CGROUP,
};
/* (QEMU is confined in a user namespace and by Landlock; its guest runs
 * this program's CPython) */
static const enum doctor_check_id microvm_needs[] = {
	DOCTOR_USERNS, DOCTOR_LANDLOCK, DOCTOR_CPYTHON,
};

/* What the checks found, for the paths' diagnoses: why each kind of
 * world (or the model's kernel jail) cannot be built here, or NULL. */
struct found {
	bool	 cpy;		/* CPython was asked for */
	char	*replica, *jailworld, *kjail, *gworld, *noqemu;
};

/* No boundary (unsafe): a replica world, or the model in-process. */
static void
diagnose_none(const struct doctor_report *r, const struct found *f,
    struct doctor_path *p)
{
	const char *why = first_reason(r, world_needs, 4);

	if (f->cpy && f->replica == NULL)
		set_path(p, true, true, WORLD_ENGINE_CPYTHON,
		    xstrdup("cpython in a replica world"));
	else if (f->cpy)
		set_path(p, true, false, WORLD_ENGINE_MODEL,
		    xasprintf("model (%s)", why != NULL ? why : f->replica));
	else
		set_path(p, true, true, WORLD_ENGINE_MODEL,
		    xstrdup("model, as asked"));
}

/* The policy (sandbox): the model, behind the essay's allowlist; a wider
 * policy runs in an offline world where worlds build. */
static void
diagnose_policy(const struct doctor_report *r, const struct found *f,
    struct doctor_path *p)
{
	(void)r;
	set_path(p, true, true, WORLD_ENGINE_MODEL,
	    xasprintf("model behind the essay's allowlist, in-process%s",
	    f->cpy && f->replica == NULL ? " (a policy wider than the "
	    "essay's: cpython in an offline world)" : ""));
}

/* The kernel's namespaces (jail): a jail world, or the model in a
 * kernel jail, or nothing. */
static void
diagnose_ns(const struct doctor_report *r, const struct found *f,
    struct doctor_path *p)
{
	const char *why = first_reason(r, jail_needs, 4);

	if (f->cpy && f->jailworld == NULL)
		set_path(p, true, true, WORLD_ENGINE_CPYTHON,
		    xstrdup("cpython in a jail world"));
	else if (f->kjail == NULL)
		set_path(p, true, !f->cpy, WORLD_ENGINE_MODEL,
		    f->cpy ? xasprintf("model in a kernel jail (%s)",
		    first_reason(r, world_needs, 4) != NULL ?
		    first_reason(r, world_needs, 4) : f->jailworld) :
		    xstrdup("model in a kernel jail, as asked"));
	else
		set_path(p, false, false, WORLD_ENGINE_MODEL,
		    xasprintf("cannot run (%s)", why != NULL ? why :
		    f->kjail));
}

/* gVisor (jail:gvisor): a gVisor world, or nothing (never weaker). */
static void
diagnose_gvisor(const struct doctor_report *r, const struct found *f,
    struct doctor_path *p)
{
	(void)r;
	if (f->gworld == NULL)
		set_path(p, true, true, WORLD_ENGINE_CPYTHON,
		    xstrdup("cpython in a gVisor world"));
	else
		set_path(p, false, false, WORLD_ENGINE_CPYTHON,
		    xasprintf("cannot run (%s)", f->gworld));
}

/* The microVM (jail:microvm): a guest booted and answering, or nothing
 * (never weaker).  Booted only when the path is asked for: a boot takes
 * seconds, under TCG tens of them. */
static void
diagnose_microvm(const struct doctor_report *r, const struct found *f,
    struct doctor_path *p)
{
	const char *why = first_reason(r, microvm_needs, 3);
	char *err;

	if (why == NULL)
		why = f->noqemu;
	if (why != NULL) {
		set_path(p, false, false, WORLD_ENGINE_CPYTHON,
		    xasprintf("cannot run (%s)", why));
		return;
	}
	if (!p->asked) {
		set_path(p, true, true, WORLD_ENGINE_CPYTHON, xasprintf(
		    "cpython in a microVM (%s); not booted: --doctor "
		    "--path=%s boots one", microvm_accel_words(),
		    record_path_name((enum path_id)(p - r->paths))));
		return;
	}
	err = world_builds(WORLD_KIND_MICROVM);
	if (err == NULL)
		set_path(p, true, true, WORLD_ENGINE_CPYTHON, xasprintf(
		    "cpython in a microVM (%s): a guest booted and answered",
		    microvm_accel_words()));
	else
		set_path(p, false, false, WORLD_ENGINE_CPYTHON,
		    xasprintf("cannot run (%s)", err));
	free(err);
}

static char *
bounds_microvm(const struct doctor_path *p, const struct found *f)
{
	(void)p;
	(void)f;
	return xstrdup(microvm_memory_bound());
}

/* What bounds what a path runs, by its boundary kind: a CPython world's
 * cgroup and rlimits, else the kind's own. */
static char *
bounds_model(const struct doctor_path *p, const struct found *f)
{
	(void)f;
	return p->engine == WORLD_ENGINE_CPYTHON ? world_bounds() :
	    xstrdup(MODEL_BOUNDS);
}

static char *
bounds_policy(const struct doctor_path *p, const struct found *f)
{
	char *w, *out;

	if (p->engine == WORLD_ENGINE_CPYTHON || !f->cpy ||
	    f->replica != NULL)
		return bounds_model(p, f);
	w = world_bounds();
	out = xasprintf("%s; a wider policy's offline world: %s",
	    MODEL_BOUNDS, w);
	free(w);
	return out;
}

static char *
bounds_ns(const struct doctor_path *p, const struct found *f)
{
	(void)f;
	return p->engine == WORLD_ENGINE_CPYTHON ? world_bounds() :
	    kjail_bounds();
}

static char *
bounds_gvisor(const struct doctor_path *p, const struct found *f)
{
	(void)p;
	(void)f;
	return xstrdup(gvisor_memory_bound() != NULL ?
	    gvisor_memory_bound() : GVISOR_BOUNDS);
}

/*
 * A kind with no diagnosis of its own (below), from its row: what its
 * code runs in, named with the kind and its guard.  A CPython world of
 * the kind's world kind (BOUNDARIES) where one builds and CPython is
 * asked for, or where the row says nothing stands in for it; else the
 * model where the row puts it (in a kernel jail, a throwaway world,
 * in-process); else nothing.
 */
static const enum world_kind kind_world[BOUNDARY__COUNT] = {
#define X(e, name, world) [BOUNDARY_##e] = WORLD_KIND_##world,
	BOUNDARIES(X)
#undef X
};

static const char *const guard_names[GUARD__COUNT] = {
#define X(e, name) [GUARD_##e] = name,
	GUARDS(X)
#undef X
};

static void
diagnose_row(const struct doctor_report *r, const struct found *f,
    enum boundary b, struct doctor_path *p)
{
	const struct boundary_row *row = boundary_row(b);
	bool world = f->cpy || row->model == MODEL_NEVER;
	char *err = world ? world_builds(kind_world[b]) : NULL;
	const char *why = first_reason(r, world_needs, 4);
	char *kind = xasprintf("kind %s, guard %s", row->name,
	    guard_names[row->guard]);

	if (why == NULL)
		why = err;
	if (world && err == NULL)
		set_path(p, true, true, WORLD_ENGINE_CPYTHON, xasprintf(
		    "cpython in a %s world (%s)", row->name, kind));
	else if (row->model == MODEL_NEVER)	/* (its world's own error) */
		set_path(p, false, false, WORLD_ENGINE_CPYTHON, xasprintf(
		    "cannot run (%s: %s)", kind, err));
	else if (row->model == MODEL_IN_JAIL && f->kjail != NULL)
		set_path(p, false, false, WORLD_ENGINE_MODEL, xasprintf(
		    "cannot run (%s: %s)", kind, first_reason(r, jail_needs,
		    4) != NULL ? first_reason(r, jail_needs, 4) : f->kjail));
	else
		set_path(p, true, !f->cpy, WORLD_ENGINE_MODEL, xasprintf(
		    "model %s%s (%s%s%s)", row->model == MODEL_IN_JAIL ?
		    "in a kernel jail" : row->model == MODEL_IN_WORLD ?
		    "in a throwaway world" : "in-process", f->cpy ? "" :
		    ", as asked", kind, f->cpy ? ": " : "", f->cpy ? why :
		    ""));
	free(kind);
	free(err);
}

/* Its bounds: its world kind's (gVisor's, or a CPython world's cgroup
 * and rlimits), else the model's where it runs. */
static char *
bounds_row(const struct doctor_path *p, const struct found *f,
    enum boundary b)
{
	if (p->engine == WORLD_ENGINE_CPYTHON)
		return kind_world[b] == WORLD_KIND_GVISOR ?
		    bounds_gvisor(p, f) : world_bounds();
	return boundary_row(b)->model == MODEL_IN_JAIL ? kjail_bounds() :
	    xstrdup(MODEL_BOUNDS);
}

/* Each boundary kind's diagnosis of a path behind it, and its bounds
 * once it runs (the path's own kind: the doctor reports the jail path's
 * ns jail and gVisor's path apart).  A kind without a row here is
 * diagnosed from its row in paths.c (diagnose_row). */
static const struct {
	void	(*diagnose)(const struct doctor_report *,
		    const struct found *, struct doctor_path *);
	char	*(*bounds)(const struct doctor_path *, const struct found *);
} kinds[BOUNDARY__COUNT] = {
	[BOUNDARY_NONE] = { diagnose_none, bounds_model },
	[BOUNDARY_POLICY] = { diagnose_policy, bounds_policy },
	[BOUNDARY_NS] = { diagnose_ns, bounds_ns },
	[BOUNDARY_GVISOR] = { diagnose_gvisor, bounds_gvisor },
	[BOUNDARY_MICROVM] = { diagnose_microvm, bounds_microvm },
};

void
doctor_run(const struct doctor_opts *o, struct doctor_report *r)
{
	struct found f = { .cpy = o->engine == WORLD_ENGINE_CPYTHON };
	size_t i;

	memset(r, 0, sizeof *r);
	check_userns(&r->checks[DOCTOR_USERNS]);
	check_landlock(&r->checks[DOCTOR_LANDLOCK]);
	check_seccomp(&r->checks[DOCTOR_SECCOMP]);
	check_cgroup(&r->checks[DOCTOR_CGROUP]);
	check_cpython(&r->checks[DOCTOR_CPYTHON], &f.replica, &f.jailworld);
	check_gvisor(&r->checks[DOCTOR_GVISOR], &f.gworld);
	check_qemu(&r->checks[DOCTOR_QEMU], &f.noqemu);
	check_kvm(&r->checks[DOCTOR_KVM]);
	f.kjail = jail_runs();
	/* (which paths were asked for first: a microVM boots only then) */
	for (i = 0; i < PATH__COUNT; i++)
		r->paths[i].asked = (o->paths == 0 &&
		    !path_row((enum path_id)i)->named_only) ||
		    (o->paths & PATH_BIT(i)) != 0;

	for (i = 0; i < PATH__COUNT; i++) {
		enum boundary k = path_row((enum path_id)i)->kind;

		if (kinds[k].diagnose != NULL)
			kinds[k].diagnose(r, &f, &r->paths[i]);
		else
			diagnose_row(r, &f, k, &r->paths[i]);
		if (r->paths[i].runs)
			r->paths[i].bounds = kinds[k].bounds != NULL ?
			    kinds[k].bounds(&r->paths[i], &f) :
			    bounds_row(&r->paths[i], &f, k);
	}
	free(f.replica);
	free(f.jailworld);
	free(f.kjail);
	free(f.gworld);
	free(f.noqemu);

	r->ok = true;
	for (i = 0; i < PATH__COUNT; i++)
		if (r->paths[i].asked && !r->paths[i].as_asked)
			r->ok = false;
}

void
doctor_free(struct doctor_report *r)
{
	size_t i;

	for (i = 0; i < DOCTOR__COUNT; i++) {
		free(r->checks[i].text);
		free(r->checks[i].reason);
		free(r->checks[i].fix);
	}
	for (i = 0; i < PATH__COUNT; i++) {
		free(r->paths[i].text);
		free(r->paths[i].bounds);
	}
	memset(r, 0, sizeof *r);
}

int
doctor_print(const struct doctor_report *r, FILE *f)
{
	size_t i;
	bool fixes = false;

	for (i = 0; i < DOCTOR__COUNT; i++)
		fprintf(f, "%-16s %-7s %s\n", check_names[i],
		    state_words[r->checks[i].state], r->checks[i].text);
	fputc('\n', f);
	for (i = 0; i < PATH__COUNT; i++) {
		fprintf(f, "%s: %s%s\n", record_path_name((enum path_id)i),
		    r->paths[i].text, r->paths[i].asked ? "" :
		    " [not asked]");
		if (r->paths[i].bounds != NULL)
			fprintf(f, "  bounds: %s\n", r->paths[i].bounds);
	}
	fputc('\n', f);
	for (i = 0; i < DOCTOR__COUNT; i++) {
		if (r->checks[i].state == DOCTOR_STATE_OK ||
		    r->checks[i].fix == NULL)
			continue;
		if (!fixes)
			fprintf(f, "To fix:\n");
		fixes = true;
		fprintf(f, "  %s: %s\n", check_names[i], r->checks[i].fix);
	}
	if (fixes)
		fputc('\n', f);
	fprintf(f, "%s\n", r->ok ? "Every path runs as asked." :
	    "Not every path runs as asked: see above, and TROUBLESHOOTING "
	    "in sandboxrepl(1).");
	return ferror(f) ? -1 : 0;
}

int
doctor_print_json(const struct doctor_report *r, FILE *f)
{
	json_t *root = json_object(), *checks = json_array(),
	    *paths = json_array();
	size_t i;
	int ret;

	for (i = 0; i < DOCTOR__COUNT; i++) {
		const struct doctor_check *c = &r->checks[i];

		json_array_append_new(checks, json_pack("{s:s,s:s,s:s,s:s?,"
		    "s:s?}", "name", check_names[i], "state",
		    state_words[c->state], "text", c->text, "reason",
		    c->reason, "fix", c->fix));
	}
	for (i = 0; i < PATH__COUNT; i++) {
		const struct doctor_path *p = &r->paths[i];

		json_array_append_new(paths, json_pack("{s:s,s:b,s:b,s:b,s:s,"
		    "s:s,s:s?}", "path", record_path_name((enum path_id)i),
		    "asked", p->asked, "runs", p->runs, "as_asked",
		    p->as_asked, "engine", world_engine_name(p->engine),
		    "text", p->text, "bounds", p->bounds));
	}
	json_object_set_new(root, "checks", checks);
	json_object_set_new(root, "paths", paths);
	json_object_set_new(root, "ok", json_boolean(r->ok));
	ret = json_dumpf(root, f, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(root);
	fputc('\n', f);
	return ret == 0 && !ferror(f) ? 0 : -1;
}
