/*
 * jail_seccomp.c -- the seccomp layer, loaded last, just before fn runs.
 *
 * The evaluator is our own C code running in-process, so the filter is a
 * deny-list over a default of ALLOW: it names what an evaluator never
 * needs and what has let processes out of jails before.  Each row is a
 * table entry (house rule 3); there is no code path per syscall.
 *
 *   TRAP    the kernel stops the call and sends SIGSYS; our handler
 *           reports the syscall number to the warden on report_fd and
 *           ends the process with JAIL_EXIT_SECCOMP, so the outcome can
 *           say "execve denied by seccomp".  If fn blocks or replaces the
 *           handler, the kernel still kills the process (SIGSYS).
 *   ENOSYS  clone3 (glibc falls back to clone, which is trapped) and
 *           every syscall number newer than this filter was written for
 *           (so a new kernel feature is off until someone reviews it).
 *
 * libseccomp lays the rules out as a binary tree (SCMP_FLTATR_CTL_OPTIMIZE
 * 2): the kernel runs the filter for every syscall number when it loads
 * it, to cache the always-allowed ones, so a linear list of ~130 tests
 * took 150 us to load and the tree 60 us (measured here, kernel 6.18).
 *
 * The program is compiled once per calling process by libseccomp
 * (jail_seccomp_compile, from jail_run before it forks; compiling costs
 * about as much as the rest of the set-up) and loaded by the eval
 * process with prctl(PR_SET_SECCOMP).  libseccomp adds the architecture check (a foreign-ABI call kills the
 * process) and rejects x32 numbers on x86-64.  Socket calls are trapped
 * for every family but AF_UNIX; ioctl only for TIOCSTI and TIOCLINUX
 * (terminal injection), although fn holds no terminal anyway.
 *
 * A jail world (world/jailkind.c) compiles the same table with another
 * action (jail_seccomp_compile_notify): SECCOMP_RET_USER_NOTIF, so that
 * its supervisor answers each call with an errno and CPython goes on;
 * there, fork, vfork and clone are allowed (CPython's posix_spawn) but
 * for clone with a namespace flag.
 */
#include "config.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jail_int.h"
#include "base/xalloc.h"

#ifndef TIOCLINUX
#define TIOCLINUX	0x541C
#endif

/* Calls trapped whatever their arguments. */
static const char *const trapped[] = {
	/* running programs and making processes */
	"execve", "execveat", "fork", "vfork", "clone",
	/* reaching other processes */
	"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd",
	"pidfd_open", "process_madvise", "kcmp",
	/* io_uring's operations bypass this filter */
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	/* changing the filesystem view or the namespaces */
	"mount", "umount2", "pivot_root", "chroot", "fsopen", "fsmount",
	"fsconfig", "fspick", "move_mount", "open_tree", "mount_setattr",
	"unshare", "setns", "name_to_handle_at", "open_by_handle_at",
	/* kernel attack surface an evaluator never needs */
	"bpf", "keyctl", "add_key", "request_key", "userfaultfd",
	"perf_event_open", "kexec_load", "kexec_file_load", "init_module",
	"finit_module", "delete_module", "reboot", "swapon", "swapoff",
	"acct", "quotactl", "syslog", "uselib", "vhangup", "iopl", "ioperm",
	"lookup_dcookie", "personality", "modify_ldt",
	/* memory pinned outside the address space: System V shared memory,
	 * message queues and semaphores live in the kernel, not under
	 * RLIMIT_AS (a segment's pages stay after shmdt, 1 GiB was pinned
	 * this way past a 256 MiB cap, and a message queue is never
	 * mapped at all); POSIX queues are capped by RLIMIT_MSGQUEUE 0
	 * already, and denied all the same.  "ipc" is the 32-bit
	 * multiplexer (no such call on x86-64). */
	"shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv",
	"msgctl", "semget", "semop", "semtimedop", "semctl", "ipc",
	"mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive",
	"mq_notify", "mq_getsetattr",
};

/* First syscall number this table was not written for (x86-64: 451 is
 * cachestat, after set_mempolicy_home_node). Numbers from here to the
 * x32 range return ENOSYS. */
#if defined(__x86_64__)
#define FIRST_UNREVIEWED	451
#define LAST_UNREVIEWED		511
#endif

static int sigsys_report_fd = -1;

static void
on_sigsys(int sig, siginfo_t *si, void *uctx)
{
	int32_t nr = si->si_syscall;

	(void)sig;
	(void)uctx;
	if (sigsys_report_fd >= 0)
		(void)jail_wire_send(sigsys_report_fd, WW_SECCOMP, &nr,
		    sizeof nr, NULL, 0);
	_exit(JAIL_EXIT_SECCOMP);
}

static int
add(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned nargs,
    const struct scmp_arg_cmp *args)
{
	int rc;

	if (nr == __NR_SCMP_ERROR)
		return 0;
	if (nr < 0)
		return 0;	/* not a syscall on this architecture */
	rc = seccomp_rule_add_array(ctx, action, nr, nargs, args);
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	return 0;
}

/* Process creation: trapped in the jail, where the evaluator never
 * makes one; allowed to a jail world's CPython (posix_spawn needs clone
 * for os.system to fail the way it fails, with an exit status) under
 * RLIMIT_NPROC, except clone with a namespace flag. */
static bool
is_process_call(const char *name)
{
	return strcmp(name, "fork") == 0 || strcmp(name, "vfork") == 0 ||
	    strcmp(name, "clone") == 0;
}

/*
 * action: SCMP_ACT_TRAP for the jail (the SIGSYS reporter kills), or
 * SCMP_ACT_NOTIFY for a jail world (its supervisor answers each call with
 * an errno and writes it down, jailkind.c).
 */
static int
build(scmp_filter_ctx ctx, uint32_t action)
{
	static const unsigned long ns_flags[] = {
		CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET,
		CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWCGROUP,
	};
	struct scmp_arg_cmp not_unix = SCMP_A0(SCMP_CMP_NE, AF_UNIX);
	struct scmp_arg_cmp tiocsti = SCMP_A1(SCMP_CMP_MASKED_EQ,
	    0xffffffffu, TIOCSTI);
	struct scmp_arg_cmp tioclinux = SCMP_A1(SCMP_CMP_MASKED_EQ,
	    0xffffffffu, TIOCLINUX);
	size_t i;

	for (i = 0; i < sizeof trapped / sizeof trapped[0]; i++) {
		if (action != SCMP_ACT_TRAP && is_process_call(trapped[i]))
			continue;
		if (add(ctx, action,
		    seccomp_syscall_resolve_name(trapped[i]), 0, NULL) == -1)
			return -1;
	}
	for (i = 0; action != SCMP_ACT_TRAP && i < sizeof ns_flags /
	    sizeof ns_flags[0]; i++) {
		struct scmp_arg_cmp ns = SCMP_A0(SCMP_CMP_MASKED_EQ,
		    ns_flags[i], ns_flags[i]);
		if (add(ctx, action, seccomp_syscall_resolve_name("clone"), 1,
		    &ns) == -1)
			return -1;
	}
	if (add(ctx, action, seccomp_syscall_resolve_name("socket"),
	    1, &not_unix) == -1 ||
	    add(ctx, action, seccomp_syscall_resolve_name("socketpair"),
	    1, &not_unix) == -1 ||
	    add(ctx, action, seccomp_syscall_resolve_name("ioctl"),
	    1, &tiocsti) == -1 ||
	    add(ctx, action, seccomp_syscall_resolve_name("ioctl"),
	    1, &tioclinux) == -1 ||
	    add(ctx, SCMP_ACT_ERRNO(ENOSYS),
	    seccomp_syscall_resolve_name("clone3"), 0, NULL) == -1)
		return -1;
#ifdef FIRST_UNREVIEWED
	for (i = FIRST_UNREVIEWED; i <= LAST_UNREVIEWED; i++)
		if (add(ctx, SCMP_ACT_ERRNO(ENOSYS), (int)i, 0, NULL) == -1)
			return -1;
#endif
	return 0;
}

/* Export the compiled program through a memfd into a heap copy. */
static int
export(scmp_filter_ctx ctx, struct jail_bpf *out)
{
	struct stat sb;
	ssize_t got;
	int fd, rc, saved;

	fd = memfd_create("jail-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	rc = seccomp_export_bpf(ctx, fd);
	if (rc < 0) {
		close(fd);
		errno = -rc;
		return -1;
	}
	if (fstat(fd, &sb) == -1)
		goto fail;
	if (sb.st_size <= 0 || sb.st_size % sizeof(struct sock_filter) != 0 ||
	    sb.st_size / sizeof(struct sock_filter) > BPF_MAXINSNS) {
		errno = E2BIG;
		goto fail;
	}
	out->insns = xmalloc((size_t)sb.st_size);
	got = pread(fd, out->insns, (size_t)sb.st_size, 0);
	if (got != sb.st_size) {
		free(out->insns);
		out->insns = NULL;
		errno = EIO;
		goto fail;
	}
	out->len = (unsigned short)(sb.st_size / sizeof(struct sock_filter));
	close(fd);
	return 0;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

/* A filter over the default action def, optimised as a tree; NULL with
 * errno. */
static scmp_filter_ctx
new_filter_over(struct jail_bpf *out, uint32_t def)
{
	scmp_filter_ctx ctx;
	int rc;

	out->insns = NULL;
	out->len = 0;
	ctx = seccomp_init(def);
	if (ctx == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (rc < 0) {
		seccomp_release(ctx);
		errno = -rc;
		return NULL;
	}
	return ctx;
}

static scmp_filter_ctx
new_filter(struct jail_bpf *out)
{
	return new_filter_over(out, SCMP_ACT_ALLOW);
}

/* Export ctx's program into out when rc is 0; release ctx either way. */
static int
finish_filter(scmp_filter_ctx ctx, int rc, struct jail_bpf *out)
{
	int saved;

	if (rc == 0)
		rc = export(ctx, out);
	saved = errno;
	seccomp_release(ctx);
	errno = saved;
	return rc;
}

static int
compile(struct jail_bpf *out, uint32_t action)
{
	scmp_filter_ctx ctx = new_filter(out);

	if (ctx == NULL)
		return -1;
	return finish_filter(ctx, build(ctx, action), out);
}

/*
 * For another confined process's filter (world/fakenet.c's dnsmasq): a
 * filter over a default of ALLOW with this file's table in it, every
 * call but those named in except given action, then what more() adds,
 * compiled and exported as the jail's is.
 */
int
jail_seccomp_compile_table(struct jail_bpf *out, uint32_t action,
    const char *const *except, int (*more)(void *ctx, void *arg), void *arg)
{
	scmp_filter_ctx ctx = new_filter(out);
	size_t i, j;
	int rc = 0;

	if (ctx == NULL)
		return -1;
	for (i = 0; rc == 0 && i < sizeof trapped / sizeof trapped[0]; i++) {
		for (j = 0; except != NULL && except[j] != NULL; j++)
			if (strcmp(except[j], trapped[i]) == 0)
				break;
		if (except != NULL && except[j] != NULL)
			continue;
		rc = add(ctx, action, seccomp_syscall_resolve_name(trapped[i]),
		    0, NULL);
	}
	if (rc == 0 && more != NULL)
		rc = more(ctx, arg);
	return finish_filter(ctx, rc, out);
}

int
jail_seccomp_compile_over(struct jail_bpf *out, uint32_t def,
    int (*rules)(void *ctx, void *arg), void *arg)
{
	scmp_filter_ctx ctx = new_filter_over(out, def);

	if (ctx == NULL)
		return -1;
	return finish_filter(ctx, rules(ctx, arg), out);
}

int
jail_seccomp_compile_rules(struct jail_bpf *out,
    int (*rules)(void *ctx, void *arg), void *arg)
{
	return jail_seccomp_compile_over(out, SCMP_ACT_ALLOW, rules, arg);
}

int
jail_seccomp_compile(struct jail_bpf *out)
{
	return compile(out, SCMP_ACT_TRAP);
}

int
jail_seccomp_compile_notify(struct jail_bpf *out)
{
	return compile(out, SCMP_ACT_NOTIFY);
}

int
jail_seccomp_load(const struct jail_bpf *prog)
{
	struct sock_fprog fprog;

	if (prog == NULL || prog->insns == NULL || prog->len == 0) {
		errno = EINVAL;
		return -1;
	}
	fprog.len = prog->len;
	fprog.filter = prog->insns;
	/* no_new_privs is already set (a step before). */
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0);
}

int
jail_seccomp_enforce(const struct jail_bpf *prog, int report_fd)
{
	struct sigaction sa;

	if (prog == NULL || prog->insns == NULL || prog->len == 0) {
		errno = EINVAL;
		return -1;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO;
	sigfillset(&sa.sa_mask);
	sigsys_report_fd = report_fd;
	if (sigaction(SIGSYS, &sa, NULL) == -1)
		return -1;
	return jail_seccomp_load(prog);
}
