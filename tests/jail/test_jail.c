/*
 * test_jail.c -- the kernel jail, probed from inside.
 *
 * Every probe below is a jail_fn: it runs inside the jail and tries to
 * do one thing a hostile evaluation would.  Each must fail (and say so
 * in its result) or be stopped by the kernel (and the outcome must name
 * the layer that stopped it).  The host side checks what the probe
 * could have damaged: a canary directory, a TCP listener.
 *
 * Fail-closed checks: every set-up step is made to fail through
 * cfg.fail_at and must be refused by name with fn never run, and, as
 * root, user namespaces are switched off for one run
 * (max_user_namespaces = 0), which must be refused as well.
 *
 * Skips (exit 77) only when the kernel has no user namespaces.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jail/jail.h"
#include "jail/jail_ids.h"
#include "jail/jail_int.h"

/* Under AddressSanitizer, let malloc fail under RLIMIT_AS the way it
 * does without it, so the memory bomb sees NULL instead of an abort. */
const char *__asan_default_options(void);
const char *
__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

/* The absolute path of a canary directory on the host (set in main). */
static char canary_dir[PATH_MAX];
/* A file fn would create on the host if it ever ran outside the jail. */
static char ran_marker[PATH_MAX + 32];
/*
 * A MAP_SHARED page the jailed process inherits through every fork: fn
 * sets it whenever it runs, jailed or not, so a refusal test can prove
 * fn never ran at all.  (It also shows why the caller of jail_run must
 * not hold shared writable mappings the jail should not touch.)
 */
static volatile int *fn_ran;

/* ---------------------------------------------------------------- */
/* helpers for probes (they run in the jailed process)               */
/* ---------------------------------------------------------------- */

static void
say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n > 0)
		(void)jail_write_result(buf, (size_t)n < sizeof buf ?
		    (size_t)n : sizeof buf - 1);
}

/* Loops that must be stopped from outside test this. */
static volatile int forever = 1;

/* ---------------------------------------------------------------- */
/* probes                                                            */
/* ---------------------------------------------------------------- */

/* The legitimate evaluation: compute, read a seeded file, write one. */
static int
probe_legit(void *arg)
{
	char buf[64];
	long sum = 0;
	ssize_t n;
	int fd, i;

	(void)arg;
	for (i = 1; i <= 1000; i++)
		sum += i;
	fd = open("input.txt", O_RDONLY);
	if (fd < 0)
		return 3;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n < 0)
		return 4;
	buf[n] = '\0';
	fd = open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "written inside", 14) != 14)
		return 5;
	close(fd);
	say("sum=%ld input=%s", sum, buf);
	return 0;
}

static int
probe_trivial(void *arg)
{
	(void)arg;
	say("1");
	return 0;
}

/* Read and delete the host canary; every attempt must fail. */
static int
probe_canary(void *arg)
{
	char path[PATH_MAX + 32];
	int fd, e1, e2, e3;

	(void)arg;
	snprintf(path, sizeof path, "%s/secret.txt", canary_dir);
	fd = open(path, O_RDONLY);
	e1 = fd < 0 ? errno : 0;
	e2 = unlink(path) == -1 ? errno : 0;
	e3 = rmdir(canary_dir) == -1 ? errno : 0;
	say("open=%s unlink=%s rmdir=%s", strerrorname_np(e1),
	    strerrorname_np(e2), strerrorname_np(e3));
	return 0;
}

static int
probe_execve(void *arg)
{
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)"echo escaped",
	    NULL };
	char *envp[] = { NULL };

	(void)arg;
	execve("/bin/sh", argv, envp);
	say("execve returned: %s", strerrorname_np(errno));
	return 0;
}

static int
probe_fork(void *arg)
{
	pid_t pid;

	(void)arg;
	pid = fork();
	if (pid == 0)
		_exit(0);
	say("fork returned %d: %s", (int)pid, strerrorname_np(errno));
	return 0;
}

static int
probe_fork_bomb(void *arg)
{
	(void)arg;
	while (forever)
		(void)fork();
	return 0;
}

static int
probe_connect(void *arg)
{
	struct sockaddr_in sin;
	int port = *(int *)arg, s, rc;

	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0) {
		say("socket: %s", strerrorname_np(errno));
		return 0;
	}
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rc = connect(s, (struct sockaddr *)&sin, sizeof sin);
	say("connect=%d %s", rc, rc == 0 ? "" : strerrorname_np(errno));
	return 0;
}

/* Read host files through every path a jail has been known to leak. */
static int
probe_host_paths(void *arg)
{
	char buf[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int fd;
	ssize_t n;

	(void)arg;
	fd = open("/etc/passwd", O_RDONLY);
	say("passwd=%s;", fd < 0 ? strerrorname_np(errno) : "OPENED");
	n = readlink("/proc/self/exe", buf, sizeof buf);
	say("exe=%s;", n < 0 ? strerrorname_np(errno) : "READ");
	fd = open("/proc/self/exe", O_RDONLY);
	say("exe-open=%s;", fd < 0 ? strerrorname_np(errno) : "OPENED");
	fd = open("../../../etc/passwd", O_RDONLY);
	say("dotdot=%s;", fd < 0 ? strerrorname_np(errno) : "OPENED");
	say("root=");
	d = opendir("/");
	if (d == NULL) {
		say("%s", strerrorname_np(errno));
		return 0;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			say("%s,", de->d_name);
	closedir(d);
	return 0;
}

static int
probe_ptrace(void *arg)
{
	long rc;

	(void)arg;
	rc = ptrace(PTRACE_ATTACH, getppid(), NULL, NULL);
	say("ptrace=%ld %s", rc, strerrorname_np(errno));
	return 0;
}

static int
probe_tiocsti(void *arg)
{
	char c = 'x';
	int rc;

	(void)arg;
	rc = ioctl(0, TIOCSTI, &c);
	say("ioctl=%d %s", rc, strerrorname_np(errno));
	return 0;
}

static int
probe_cpu_spin(void *arg)
{
	volatile unsigned long n = 0;

	(void)arg;
	while (forever)
		n++;
	return 0;
}

static int
probe_memory_bomb(void *arg)
{
	size_t total = 0;

	(void)arg;
	for (;;) {
		char *p = malloc(1 << 20);
		if (p == NULL)
			return JAIL_EXIT_NOMEM;
		memset(p, 0xA5, 1 << 20);
		total += 1 << 20;
		if (total > ((size_t)8 << 30))
			return 0;	/* no cap at all */
	}
}

static int
probe_sleep(void *arg)
{
	(void)arg;
	while (forever)
		pause();
	return 0;
}

static int
probe_big_result(void *arg)
{
	static char block[4096];
	size_t i;

	(void)arg;
	for (i = 0; i < 64; i++)
		if (jail_write_result(block, sizeof block) == -1)
			return 1;
	return 0;
}

/* What Landlock must refuse inside the workspace itself. */
static int
probe_landlock(void *arg)
{
	(void)arg;
	say("mkfifo=%s;", mkfifo("f", 0600) == -1 ?
	    strerrorname_np(errno) : "MADE");
	say("symlink=%s;", symlink("/etc/passwd", "l") == -1 ?
	    strerrorname_np(errno) : "MADE");
	say("mknod=%s;", mknod("n", S_IFCHR | 0600, makedev(1, 3)) == -1 ?
	    strerrorname_np(errno) : "MADE");
	return 0;
}

/* After "ready", a forged refusal on the status pipe must be ignored. */
static int
probe_forge(void *arg)
{
	char frame[5 + 8];
	uint32_t len = 8, step = JAIL_STEP_UNSHARE;
	int32_t err = EPERM;

	(void)arg;
	frame[0] = 'R';
	memcpy(frame + 1, &len, 4);
	memcpy(frame + 5, &step, 4);
	memcpy(frame + 9, &err, 4);
	/* fd 4 is the status pipe to the warden (see jail_child.c). */
	(void)!write(4, frame, sizeof frame);
	say("forged");
	return 0;
}

/* What the process holds: ids, capabilities, no_new_privs, descriptors. */
static int
probe_privileges(void *arg)
{
	struct __user_cap_header_struct head = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	char c;
	int fd, open_fds = 0;

	(void)arg;
	memset(data, 0, sizeof data);
	syscall(SYS_capget, &head, data);
	say("uid=%d euid=%d gid=%d caps=%x/%x/%x/%x nnp=%d;", (int)getuid(),
	    (int)geteuid(), (int)getgid(), data[0].effective,
	    data[0].permitted, data[1].effective, data[1].permitted,
	    prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	for (fd = 0; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) != -1)
			open_fds++;
	say("fds=%d stdin=%zd tty=%d sid=%d;", open_fds, read(0, &c, 1),
	    isatty(0), getsid(0) == getpid());
	say("setuid0=%s;", setuid(0) == -1 ? strerrorname_np(errno) : "OK");
	/* -1: every process it may signal.  It is PID 1 with no children,
	 * and the warden and the host are outside its pid namespace. */
	say("kill-all=%s;", kill(-1, SIGKILL) == -1 ?
	    strerrorname_np(errno) : "SENT");
	say("pid=%d ppid=%d env=%s", (int)getpid(), (int)getppid(),
	    getenv("JAIL_TEST_SECRET") == NULL ? "clean" : "LEAKED");
	return 0;
}

/* Writes past RLIMIT_FSIZE. */
static int
probe_big_file(void *arg)
{
	static char block[4096];
	int fd, i;

	(void)arg;
	fd = open("big", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	for (i = 0; i < 64; i++)
		if (write(fd, block, sizeof block) < 0)
			return 1;
	return 0;
}

/* Creates more files than the host reads back. */
static int
probe_many_files(void *arg)
{
	char name[16];
	int i, fd;

	(void)arg;
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof name, "f%02d", i);
		fd = open(name, O_WRONLY | O_CREAT, 0644);
		if (fd < 0 || write(fd, name, 3) != 3)
			return 1;
		close(fd);
	}
	return 0;
}

/* Would leave a mark on the host if it ever ran unjailed. */
static int
probe_mark_host(void *arg)
{
	int fd;

	(void)arg;
	*fn_ran = 1;
	fd = open(ran_marker, O_WRONLY | O_CREAT, 0644);
	if (fd >= 0)
		close(fd);
	say("ran");
	return 0;
}

/*
 * Pin memory the address-space cap does not see: System V segments,
 * each attached, filled and detached again, 320 MiB in all against the
 * default 256 MiB cap.
 */
static int
probe_sysv_pin(void *arg)
{
	size_t seg = (size_t)64 << 20;
	int i, id;

	(void)arg;
	for (i = 0; i < 5; i++) {
		char *p;

		id = shmget(IPC_PRIVATE, seg, IPC_CREAT | 0600);
		if (id == -1)
			break;
		p = shmat(id, NULL, 0);
		if (p == (void *)-1)
			break;
		memset(p, 0x5A, seg);
		shmdt(p);
	}
	say("pinned %d MiB: %s", i * 64, strerrorname_np(errno));
	return 0;
}

/* Call one syscall number with zero arguments. */
static int
probe_syscall(void *arg)
{
	long nr = *(long *)arg, rc;

	rc = syscall(nr, 0, 0, 0, 0, 0, 0);
	say("syscall %ld = %ld %s", nr, rc, strerrorname_np(errno));
	return 0;
}

static int
write_text(const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, text, len) == (ssize_t)len;
	close(fd);
	return ok ? 0 : -1;
}

/* ---------------------------------------------------------------- */
/* tests                                                             */
/* ---------------------------------------------------------------- */

static void
run(const struct jail_config *cfg, jail_fn fn, void *arg,
    struct jail_outcome *out)
{
	(void)jail_run(cfg, fn, arg, out);
	print_message("    [%s] %s%s%s (%.2f ms)\n", jail_status_name(out->status),
	    out->layer ? out->layer : "", out->layer ? ": " : "",
	    out->reason, out->elapsed_ms);
}

static void
test_legit(void **state)
{
	static const struct jail_file seed[] = {
		{ (char *)"input.txt", (char *)"hello", 5 },
	};
	struct jail_config cfg = { 0 };
	struct jail_outcome out;

	(void)state;
	cfg.files = seed;
	cfg.nfiles = 1;
	run(&cfg, probe_legit, NULL, &out);
	assert_int_equal(out.status, JAIL_OK);
	assert_int_equal(out.exit_code, 0);
	assert_string_equal(out.result, "sum=500500 input=hello");
	assert_int_equal(out.nfiles, 2);
	assert_string_equal(out.files[0].name, "input.txt");
	assert_memory_equal(out.files[0].data, "hello", 5);
	assert_string_equal(out.files[1].name, "out.txt");
	assert_int_equal(out.files[1].len, 14);
	assert_memory_equal(out.files[1].data, "written inside", 14);
	assert_false(out.files_truncated);
	jail_outcome_free(&out);
}

/* An expected outcome: status, layer (or NULL), a reason or result
 * fragment. */
struct escape_case {
	const char	*what;
	jail_fn		 fn;
	enum jail_status status;
	const char	*layer;
	const char	*reason;	/* substring of reason, or NULL */
	const char	*result;	/* exact result, or NULL */
};

static int listen_port;

static const struct escape_case escapes[] = {
	{ "read/delete host canary", probe_canary, JAIL_OK, NULL, NULL,
	  "open=ENOENT unlink=ENOENT rmdir=ENOENT" },
	{ "execve /bin/sh", probe_execve, JAIL_CONTAINED, "seccomp",
	  "execve denied by seccomp", NULL },
	{ "fork", probe_fork, JAIL_CONTAINED, "seccomp",
	  "clone denied by seccomp", NULL },
	{ "fork bomb", probe_fork_bomb, JAIL_CONTAINED, "seccomp",
	  "clone denied by seccomp", NULL },
	{ "connect to host 127.0.0.1", probe_connect, JAIL_CONTAINED,
	  "seccomp", "socket denied by seccomp", NULL },
	{ "host /etc/passwd, /proc/self/exe, list /", probe_host_paths,
	  JAIL_OK, NULL, NULL,
	  "passwd=ENOENT;exe=ENOENT;exe-open=ENOENT;dotdot=ENOENT;root=" },
	{ "ptrace the parent", probe_ptrace, JAIL_CONTAINED, "seccomp",
	  "ptrace denied by seccomp", NULL },
	{ "ioctl(TIOCSTI)", probe_tiocsti, JAIL_CONTAINED, "seccomp",
	  "ioctl denied by seccomp", NULL },
	{ "pin 320 MiB in System V segments", probe_sysv_pin, JAIL_CONTAINED,
	  "seccomp", "shmget denied by seccomp", NULL },
	{ "mkfifo, symlink, mknod in the workspace", probe_landlock, JAIL_OK,
	  NULL, NULL, "mkfifo=EACCES;symlink=EACCES;mknod=EACCES;" },
	{ "forged refusal after ready", probe_forge, JAIL_OK, NULL, NULL,
	  "forged" },
	/* setuid(0) is EINVAL: uid 0 is not even mapped inside.  kill(-1)
	 * finds no process to signal (ESRCH), and the parent PID 1 sees is
	 * 0: its warden lives outside the pid namespace. */
	{ "ids, capabilities, descriptors, setuid(0), kill everyone",
	  probe_privileges, JAIL_OK, NULL, NULL,
	  "uid=1000 euid=1000 gid=1000 caps=0/0/0/0 nnp=1;"
	  "fds=5 stdin=0 tty=0 sid=1;setuid0=EINVAL;kill-all=ESRCH;"
	  "pid=1 ppid=0 env=clean" },
};

static void
test_escapes(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof escapes / sizeof escapes[0]; i++) {
		const struct escape_case *c = &escapes[i];
		struct jail_config cfg = { 0 };
		struct jail_outcome out;

		print_message("  %s\n", c->what);
		run(&cfg, c->fn, &listen_port, &out);
		assert_int_equal(out.status, c->status);
		if (c->layer == NULL)
			assert_null(out.layer);
		else
			assert_string_equal(out.layer, c->layer);
		if (c->reason != NULL)
			assert_non_null(strstr(out.reason, c->reason));
		if (c->result != NULL) {
			assert_non_null(out.result);
			assert_string_equal(out.result, c->result);
		}
		jail_outcome_free(&out);
	}
}

/* Syscalls the filter must trap, by number, with no arguments. */
static const struct {
	long		 nr;
	const char	*reason;
} trapped_syscalls[] = {
	{ SYS_io_uring_setup, "io_uring_setup denied by seccomp" },
	{ SYS_unshare, "unshare denied by seccomp" },
	{ SYS_setns, "setns denied by seccomp" },
	{ SYS_mount, "mount denied by seccomp" },
	{ SYS_bpf, "bpf denied by seccomp" },
	{ SYS_keyctl, "keyctl denied by seccomp" },
	{ SYS_userfaultfd, "userfaultfd denied by seccomp" },
	{ SYS_perf_event_open, "perf_event_open denied by seccomp" },
	{ SYS_process_vm_readv, "process_vm_readv denied by seccomp" },
	{ SYS_execveat, "execveat denied by seccomp" },
	{ SYS_pivot_root, "pivot_root denied by seccomp" },
	{ SYS_open_tree, "open_tree denied by seccomp" },
	/* memory held outside the address space, and the LDT */
	{ SYS_shmget, "shmget denied by seccomp" },
	{ SYS_shmat, "shmat denied by seccomp" },
	{ SYS_shmctl, "shmctl denied by seccomp" },
	{ SYS_msgget, "msgget denied by seccomp" },
	{ SYS_msgsnd, "msgsnd denied by seccomp" },
	{ SYS_msgctl, "msgctl denied by seccomp" },
	{ SYS_semget, "semget denied by seccomp" },
	{ SYS_semop, "semop denied by seccomp" },
	{ SYS_mq_open, "mq_open denied by seccomp" },
	{ SYS_modify_ldt, "modify_ldt denied by seccomp" },
};

static void
test_trapped_syscalls(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof trapped_syscalls / sizeof trapped_syscalls[0];
	    i++) {
		struct jail_config cfg = { 0 };
		struct jail_outcome out;
		long nr = trapped_syscalls[i].nr;

		run(&cfg, probe_syscall, &nr, &out);
		assert_int_equal(out.status, JAIL_CONTAINED);
		assert_string_equal(out.layer, "seccomp");
		assert_string_equal(out.reason, trapped_syscalls[i].reason);
		assert_int_equal(out.seccomp_syscall, (int)nr);
		jail_outcome_free(&out);
	}
}

/* clone3 and syscalls newer than the filter answer ENOSYS. */
static void
test_enosys_syscalls(void **state)
{
	static const long nrs[] = { SYS_clone3, 451, 462, 500 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof nrs / sizeof nrs[0]; i++) {
		struct jail_config cfg = { 0 };
		struct jail_outcome out;
		char want[64];
		long nr = nrs[i];

		run(&cfg, probe_syscall, &nr, &out);
		assert_int_equal(out.status, JAIL_OK);
		snprintf(want, sizeof want, "syscall %ld = -1 ENOSYS", nr);
		assert_string_equal(out.result, want);
		jail_outcome_free(&out);
	}
}

/* The canary must still be there, byte for byte, after the probe. */
static void
test_canary_intact(void **state)
{
	char path[PATH_MAX + 32], buf[64];
	struct jail_config cfg = { 0 };
	struct jail_outcome out;
	ssize_t n;
	int fd;

	(void)state;
	run(&cfg, probe_canary, NULL, &out);
	jail_outcome_free(&out);
	snprintf(path, sizeof path, "%s/secret.txt", canary_dir);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof buf);
	close(fd);
	assert_int_equal(n, 11);
	assert_memory_equal(buf, "canary data", 11);
}

/* The listener must have accepted nothing. */
static void
test_listener_untouched(void **state)
{
	int *listener = *state;
	struct jail_config cfg = { 0 };
	struct jail_outcome out;
	int c;

	run(&cfg, probe_connect, &listen_port, &out);
	assert_int_equal(out.status, JAIL_CONTAINED);
	jail_outcome_free(&out);
	c = accept(*listener, NULL, NULL);	/* the listener is non-blocking */
	assert_int_equal(c, -1);
	assert_int_equal(errno, EAGAIN);
}

static void
test_cpu_spin(void **state)
{
	struct jail_config cfg = { 0 };
	struct jail_outcome out;

	(void)state;
	cfg.cpu_seconds = 1;
	cfg.wall_ms = 20000;	/* a busy machine must not turn this into a timeout */
	run(&cfg, probe_cpu_spin, NULL, &out);
	assert_int_equal(out.status, JAIL_CONTAINED);
	assert_string_equal(out.layer, "rlimit");
	assert_non_null(strstr(out.reason, "killed after 1 s of CPU"));
	assert_int_equal(out.term_signal, SIGXCPU);
	/* It spun until the limit; rusage's tick-sampled time reads under
	 * the limit itself (0.898 to 0.996 s measured for a 1 s limit). */
	assert_true(out.cpu_us >= 500000);
	assert_true(out.elapsed_ms < 15000);
	jail_outcome_free(&out);
}

static void
test_memory_bomb(void **state)
{
	struct jail_config cfg = { 0 };
	struct jail_outcome out;

	(void)state;
	cfg.as_bytes = 64u << 20;
	cfg.wall_ms = 20000;
	run(&cfg, probe_memory_bomb, NULL, &out);
	assert_int_equal(out.status, JAIL_CONTAINED);
	assert_string_equal(out.layer, "rlimit");
	assert_int_equal(out.exit_code, JAIL_EXIT_NOMEM);
	assert_true(out.elapsed_ms < 15000);
	jail_outcome_free(&out);
}

static void
test_wall_clock(void **state)
{
	struct jail_config cfg = { 0 };
	struct jail_outcome out;

	(void)state;
	cfg.wall_ms = 300;
	run(&cfg, probe_sleep, NULL, &out);
	assert_int_equal(out.status, JAIL_CONTAINED);
	assert_string_equal(out.layer, "timeout");
	assert_string_equal(out.reason, "killed after 300 ms of wall-clock time");
	assert_int_equal(out.term_signal, SIGKILL);
	assert_true(out.elapsed_ms >= 300 && out.elapsed_ms < 2000);
	jail_outcome_free(&out);
}

static void
test_file_size_cap(void **state)
{
	struct jail_config cfg = { 0 };
	struct jail_outcome out;

	(void)state;
	cfg.fsize_bytes = 65536;	/* the probe writes 262144 bytes */
	run(&cfg, probe_big_file, NULL, &out);
	assert_int_equal(out.status, JAIL_CONTAINED);
	assert_string_equal(out.layer, "rlimit");
	assert_string_equal(out.reason,
	    "a file grew past 65536 bytes (SIGXFSZ)");
	assert_int_equal(out.term_signal, SIGXFSZ);
	/* The file comes back at its cap. */
	assert_int_equal(out.nfiles, 1);
	assert_string_equal(out.files[0].name, "big");
	assert_int_equal(out.files[0].len, 65536);
	jail_outcome_free(&out);
}

static void
test_read_back_caps(void **state)
{
	struct jail_config cfg = { 0 };
	struct jail_outcome out;
	size_t i;

	(void)state;
	cfg.max_files = 4;	/* the probe makes ten */
	run(&cfg, probe_many_files, NULL, &out);
	assert_int_equal(out.status, JAIL_OK);
	assert_int_equal(out.nfiles, 4);
	assert_true(out.files_truncated);
	for (i = 0; i < 4; i++) {
		char want[8];

		snprintf(want, sizeof want, "f%02zu", i);
		assert_string_equal(out.files[i].name, want);
		assert_string_equal(out.files[i].data, want);
	}
	jail_outcome_free(&out);
}

static void
test_too_many_seeds(void **state)
{
	struct jail_file seed[8];
	char names[8][8];
	struct jail_config cfg = { 0 };
	struct jail_outcome out;
	size_t i;

	(void)state;
	*fn_ran = 0;
	for (i = 0; i < 8; i++) {
		snprintf(names[i], sizeof names[i], "s%zu", i);
		seed[i].name = names[i];
		seed[i].data = names[i];
		seed[i].len = strlen(names[i]);
	}
	cfg.files = seed;
	cfg.nfiles = 8;
	cfg.tmpfs_inodes = 4;	/* the root directory takes one */
	run(&cfg, probe_mark_host, NULL, &out);
	assert_int_equal(out.status, JAIL_REFUSED);
	assert_int_equal(out.step, JAIL_STEP_WORKSPACE);
	assert_int_equal(out.err, ENOSPC);
	assert_null(out.result);
	assert_int_equal(*fn_ran, 0);
	jail_outcome_free(&out);
}

static void
test_result_cap(void **state)
{
	struct jail_config cfg = { 0 };
	struct jail_outcome out;

	(void)state;
	cfg.max_result = 100000;	/* the probe writes 262144 bytes */
	run(&cfg, probe_big_result, NULL, &out);
	assert_int_equal(out.status, JAIL_ERROR);
	assert_string_equal(out.reason, "the result exceeds 100000 bytes");
	assert_null(out.result);
	jail_outcome_free(&out);
}

static void
test_bad_seed_name(void **state)
{
	static const struct jail_file seed[] = {
		{ (char *)"../escape", (char *)"x", 1 },
	};
	struct jail_config cfg = { 0 };
	struct jail_outcome out;

	(void)state;
	*fn_ran = 0;
	cfg.files = seed;
	cfg.nfiles = 1;
	run(&cfg, probe_mark_host, NULL, &out);
	assert_int_equal(out.status, JAIL_REFUSED);
	assert_int_equal(out.step, JAIL_STEP_WORKSPACE);
	assert_int_equal(out.err, EINVAL);
	assert_null(out.result);
	assert_int_equal(*fn_ran, 0);
	jail_outcome_free(&out);
}

/* Every set-up step, made to fail, is refused by name; fn never runs. */
static void
test_fail_at_every_step(void **state)
{
	int s;

	(void)state;
	*fn_ran = 0;
	for (s = JAIL_STEP_NONE + 1; s < JAIL_STEP_COUNT; s++) {
		struct jail_config cfg = { 0 };
		struct jail_outcome out;
		char want[128];

		if (jail_step_word(s, JAIL_SETUP_JAIL) == NULL)
			continue;	/* a world's alone */
		cfg.fail_at = s;
		run(&cfg, probe_mark_host, NULL, &out);
		assert_int_equal(out.status, JAIL_REFUSED);
		assert_int_equal(out.step, s);
		assert_int_equal(out.err, ECANCELED);
		assert_string_equal(out.layer, jail_step_layer((enum jail_step)s));
		snprintf(want, sizeof want, "%s failed: ",
		    jail_step_name((enum jail_step)s));
		assert_memory_equal(out.reason, want, strlen(want));
		assert_null(out.result);
		assert_int_equal(access(ran_marker, F_OK), -1);
		assert_int_equal(*fn_ran, 0);
		jail_outcome_free(&out);
	}
}

/*
 * The one step table says each set-up's own words, in the table's
 * order: the jail's and a world's as their records have always
 * said them (a world's "memory-cgroup" and "dumpable" are the jail's
 * "cgroup" and "undumpable"), and no word for a step a set-up lacks.
 */
static void
test_step_words(void **state)
{
	static const char *const jail[] = { "ids", "pipe", "fork",
	    "warden-fds", "cgroup", "drop-uid", "pdeathsig", "unshare",
	    "id-maps", "undumpable", "pid1-fork", "mount-private",
	    "workspace", "pivot-root", "rlimits", "fds", "capabilities",
	    "no-new-privs", "landlock", "seccomp" };
	static const char *const world[] = { "ids", "memory-cgroup",
	    "pdeathsig", "unshare", "id-maps", "dumpable", "pid1-fork",
	    "mount-private", "network", "rootfs", "workspace", "pivot-root",
	    "rlimits", "fds", "capabilities", "no-new-privs", "landlock",
	    "seccomp", "python" };
	size_t nj = 0, nw = 0;
	int s;

	(void)state;
	for (s = JAIL_STEP_NONE + 1; s < JAIL_STEP_COUNT; s++) {
		const char *j = jail_step_word(s, JAIL_SETUP_JAIL);
		const char *w = jail_step_word(s, JAIL_SETUP_WORLD);

		assert_true(j != NULL || w != NULL);
		if (j != NULL) {
			assert_true(nj < sizeof jail / sizeof jail[0]);
			assert_string_equal(j, jail[nj++]);
			assert_string_equal(jail_step_name(s), j);
			assert_non_null(jail_step_layer(s));
		} else {
			assert_string_equal(jail_step_name(s), "unknown");
		}
		if (w != NULL) {
			assert_true(nw < sizeof world / sizeof world[0]);
			assert_string_equal(w, world[nw++]);
		}
	}
	assert_int_equal(nj, sizeof jail / sizeof jail[0]);
	assert_int_equal(nw, sizeof world / sizeof world[0]);
	assert_null(jail_step_word(JAIL_STEP_COUNT, JAIL_SETUP_JAIL));
	assert_string_equal(jail_step_name(JAIL_STEP_COUNT), "unknown");
}

/*
 * The one set-up list, walked for a container's description: PID 1's
 * steps in the list's order, the rlimits where the description puts
 * them, the list's own calls (capabilities, no_new_privs) between the
 * set-up's, and a set-up that gives a call for a slot the list takes
 * itself is refused before anything runs.  Each walk in a child of its
 * own (the list's calls really drop its capabilities); the set-up's
 * calls write their step to a pipe.
 */
static int contain_log = -1;

/* One call per slot, each writing its slot's letter ('A' + slot). */
#define X(e, step, stage, common)					\
static int								\
contain_note_##e(void *ctx, char *detail, size_t n)			\
{									\
	char c = (char)('A' + JAIL_SLOT_##e);				\
									\
	return write(contain_log, &c, 1) == 1 ? 0 : -1;			\
}
JAIL_CONTAIN_SLOTS(X)
#undef X
static const jail_step_fn contain_notes[] = {
#define X(e, step, stage, common) [JAIL_SLOT_##e] = contain_note_##e,
	JAIL_CONTAIN_SLOTS(X)
#undef X
};

/* Walk c's PID 1 rows with a call in every slot ops names; what the
 * calls wrote, and how the child ended. */
static void
contain_walk(enum jail_container_id id, const enum jail_slot *slots,
    size_t nslots, char *got, size_t n, int *wstatus)
{
	struct jail_contain_ops ops;
	int p[2], rep[2];
	ssize_t r;
	size_t i;
	pid_t pid;

	memset(&ops, 0, sizeof ops);
	for (i = 0; i < nslots; i++)
		ops.run[slots[i]] = contain_notes[slots[i]];
	assert_int_equal(pipe(p), 0);
	assert_int_equal(pipe(rep), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char detail[64];
		const struct jail_walk w = { 0, &rep[1], detail,
		    sizeof detail };

		contain_log = p[1];
		jail_contain(jail_container(id), &ops, JAIL_STAGE_PID1, &w,
		    NULL);
		_exit(0);
	}
	close(p[1]);
	close(rep[1]);
	for (i = 0; i < n - 1 && (r = read(p[0], got + i, n - 1 - i)) > 0; )
		i += (size_t)r;
	got[i] = '\0';
	close(p[0]);
	close(rep[0]);
	assert_int_equal(waitpid(pid, wstatus, 0), pid);
}

/* The letters contain_notes write for slots, in their order. */
static const char *
contain_letters(const enum jail_slot *slots, size_t n, char *buf)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = (char)('A' + slots[i]);
	buf[n] = '\0';
	return buf;
}

static void
test_contain_walk(void **state)
{
	static const enum jail_slot jail_slots[] = { JAIL_SLOT_MOUNT_PRIVATE,
	    JAIL_SLOT_WORKSPACE, JAIL_SLOT_PIVOT_ROOT, JAIL_SLOT_RLIMITS,
	    JAIL_SLOT_FDS, JAIL_SLOT_LANDLOCK, JAIL_SLOT_SECCOMP };
	static const enum jail_slot world_slots[] = {
	    JAIL_SLOT_MOUNT_PRIVATE, JAIL_SLOT_RLIMITS, JAIL_SLOT_ROOTFS,
	    JAIL_SLOT_WORKSPACE, JAIL_SLOT_PIVOT_ROOT, JAIL_SLOT_NETWORK,
	    JAIL_SLOT_HOSTNAME, JAIL_SLOT_NETWORK_WAIT, JAIL_SLOT_FDS,
	    JAIL_SLOT_LANDLOCK, JAIL_SLOT_SECCOMP };
	static const enum jail_slot clash[] = { JAIL_SLOT_CAPS };
	const struct jail_container *c;
	char got[64], want[64];
	int ws, id;

	(void)state;
	/* every description: a name, its words, namespaces where it
	 * unshares itself */
	for (id = 0; id < JAIL_CONTAINER_COUNT; id++) {
		c = jail_container((enum jail_container_id)id);
		assert_non_null(c);
		assert_non_null(c->name);
		/* (runsc makes gVisor's; a microVM's guest has its own
		 * kernel) */
		assert_true(c->namespaces != 0 || c->root == JAIL_ROOT_RUNSC ||
		    c->root == JAIL_ROOT_GUEST);
	}
	assert_null(jail_container(JAIL_CONTAINER_COUNT));
	c = jail_container(JAIL_CONTAINER_MODEL);
	assert_int_equal(c->words, JAIL_SETUP_JAIL);
	assert_false(c->limits_first);
	assert_int_equal(jail_container(JAIL_CONTAINER_REPLICA)->net,
	    JAIL_NET_FAKE);

	/* the jail's rows, in the order listed: its rlimits after the
	 * pivot */
	contain_walk(JAIL_CONTAINER_MODEL, jail_slots, sizeof jail_slots /
	    sizeof jail_slots[0], got, sizeof got, &ws);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	assert_string_equal(got, contain_letters(jail_slots,
	    sizeof jail_slots / sizeof jail_slots[0], want));
	/* a world's: its rlimits first, before its root is built */
	contain_walk(JAIL_CONTAINER_REPLICA, world_slots, sizeof world_slots /
	    sizeof world_slots[0], got, sizeof got, &ws);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	assert_string_equal(got, contain_letters(world_slots,
	    sizeof world_slots / sizeof world_slots[0], want));
	/* a call of its own where the list has one: refused, nothing ran */
	contain_walk(JAIL_CONTAINER_MODEL, clash, 1, got, sizeof got, &ws);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == JAIL_EXIT_SETUP);
	assert_string_equal(got, "");
}

/* The positive control for the refusal tests: fn_ran does work. */
static void
test_fn_ran_control(void **state)
{
	struct jail_config cfg = { 0 };
	struct jail_outcome out;

	(void)state;
	*fn_ran = 0;
	run(&cfg, probe_mark_host, NULL, &out);
	assert_int_equal(out.status, JAIL_OK);
	assert_string_equal(out.result, "ran");
	assert_int_equal(*fn_ran, 1);
	/* ... and inside the jail the host path does not exist. */
	assert_int_equal(access(ran_marker, F_OK), -1);
	*fn_ran = 0;
	jail_outcome_free(&out);
}

#define MAX_USERNS "/proc/sys/user/max_user_namespaces"

/* What test_no_user_namespaces checks, copied out of a jail_outcome. */
struct refusal_summary {
	enum jail_status status;
	enum jail_step	 step;
	int		 err;
	char		 layer[16];
	char		 reason[256];
	bool		 has_result;
};

static void
summarise(const struct jail_outcome *out, struct refusal_summary *sum)
{
	memset(sum, 0, sizeof *sum);
	sum->status = out->status;
	sum->step = out->step;
	sum->err = out->err;
	snprintf(sum->layer, sizeof sum->layer, "%s",
	    out->layer != NULL ? out->layer : "-");
	snprintf(sum->reason, sizeof sum->reason, "%s", out->reason);
	sum->has_result = out->result != NULL;
}

/* Switch user namespaces off host-wide, run, and restore at once.
 * Returns -1 with errno when the sysctl cannot be written. */
static int
run_without_userns_host(struct refusal_summary *sum)
{
	struct jail_config cfg = { 0 };
	struct jail_outcome out;
	char saved[32];
	ssize_t n;
	int fd, restored;

	fd = open(MAX_USERNS, O_RDWR);
	if (fd < 0)
		return -1;
	n = read(fd, saved, sizeof saved - 1);
	if (n <= 0 || pwrite(fd, "0\n", 2, 0) != 2) {
		close(fd);
		errno = EACCES;
		return -1;
	}
	(void)jail_run(&cfg, probe_mark_host, NULL, &out);
	/* Restore before any assertion can leave the test. */
	restored = pwrite(fd, saved, (size_t)n, 0) == n;
	close(fd);
	summarise(&out, sum);
	jail_outcome_free(&out);
	if (!restored) {
		fprintf(stderr, "test_jail: could not restore %s to %s",
		    MAX_USERNS, saved);
		abort();
	}
	return 0;
}

/*
 * Root without CAP_SYS_RESOURCE (a container) cannot write the host's
 * sysctl.  The limit is per user namespace, though: a child process
 * enters a new user namespace whose ids the test maps in full (so the
 * jail can still drop to nobody), sets that namespace's
 * max_user_namespaces to 0 and runs the jail there.  Nothing to restore:
 * the namespace dies with the child.
 */
static int
run_without_userns_nested(struct refusal_summary *sum)
{
	int go[2], back[2];
	char path[64], c = 0;
	pid_t pid;
	int st;

	if (pipe(go) == -1 || pipe(back) == -1)
		return -1;
	pid = fork();
	if (pid == -1)
		return -1;
	if (pid == 0) {
		struct jail_config cfg = { 0 };
		struct jail_outcome out;
		struct refusal_summary s;
		int fd;

		close(go[0]);
		close(back[1]);
		if (unshare(CLONE_NEWUSER) == -1 || write(go[1], &c, 1) != 1 ||
		    read(back[0], &c, 1) != 1 || c != 'm')
			_exit(2);
		fd = open(MAX_USERNS, O_WRONLY);
		if (fd < 0 || write(fd, "0\n", 2) != 2)
			_exit(3);
		close(fd);
		(void)jail_run(&cfg, probe_mark_host, NULL, &out);
		summarise(&out, &s);
		if (write(go[1], &s, sizeof s) != (ssize_t)sizeof s)
			_exit(4);
		_exit(0);
	}
	close(go[1]);
	close(back[0]);
	if (read(go[0], &c, 1) != 1)
		goto fail;
	snprintf(path, sizeof path, "/proc/%d/uid_map", (int)pid);
	if (write_text(path, "0 0 4294967295") == -1)
		goto fail;
	snprintf(path, sizeof path, "/proc/%d/gid_map", (int)pid);
	if (write_text(path, "0 0 4294967295") == -1)
		goto fail;
	c = 'm';
	if (write(back[1], &c, 1) != 1 ||
	    read(go[0], sum, sizeof *sum) != (ssize_t)sizeof *sum)
		goto fail;
	close(go[0]);
	close(back[1]);
	waitpid(pid, &st, 0);
	return 0;
fail:
	kill(pid, SIGKILL);
	close(go[0]);
	close(back[1]);
	waitpid(pid, &st, 0);
	return -1;
}

/* With user namespaces switched off, the jail refuses; fn never runs. */
static void
test_no_user_namespaces(void **state)
{
	struct refusal_summary sum;

	(void)state;
	*fn_ran = 0;
	if (geteuid() != 0) {
		print_message("  not root: cannot switch user namespaces off\n");
		skip();
	}
	if (run_without_userns_host(&sum) == 0) {
		print_message("  host %s was 0 for this run\n", MAX_USERNS);
	} else {
		print_message("  %s not writable (%s); setting it to 0 in a "
		    "child user namespace instead\n", MAX_USERNS,
		    strerror(errno));
		assert_int_equal(run_without_userns_nested(&sum), 0);
	}
	print_message("    [%s] %s: %s\n", jail_status_name(sum.status),
	    sum.layer, sum.reason);
	assert_int_equal(sum.status, JAIL_REFUSED);
	assert_string_equal(sum.layer, "namespace");
	assert_int_equal(sum.step, JAIL_STEP_UNSHARE);
	assert_int_equal(sum.err, ENOSPC);
	assert_false(sum.has_result);
	assert_int_equal(access(ran_marker, F_OK), -1);
	assert_int_equal(*fn_ran, 0);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* ---------------------------------------------------------------- */
/* the jail seen from the host                                       */
/* ---------------------------------------------------------------- */

/* Shared by the test, the caller it forks and fn inside the jail. */
struct rendezvous {
	volatile int	jail_running;	/* fn sets it, then holds still */
	volatile int	host_done;	/* the test has looked */
};
static struct rendezvous *rv;

/* fn: hold still while the host looks at the jail's processes (15 s at
 * most), then say what PID 1 sees of itself. */
static int
probe_held(void *arg)
{
	struct timespec ms = { 0, 1000000 };
	int fd, ttys = 0, i;

	(void)arg;
	rv->jail_running = 1;
	for (i = 0; i < 15000 && !rv->host_done; i++)
		nanosleep(&ms, NULL);
	for (fd = 0; fd < 1024; fd++)
		if (isatty(fd))
			ttys++;
	say("dumpable=%d ttys=%d", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), ttys);
	return 0;
}

/* What /proc says about one process. */
struct proc_facts {
	unsigned	uid[4], gid[4];	/* real, effective, saved, fs */
	int		ppid, sid, tty_nr;
};

static bool
proc_facts(int pid, struct proc_facts *pf)
{
	char path[64], buf[8192];
	const char *p;
	ssize_t n;
	int fd;

	memset(pf, 0, sizeof *pf);
	snprintf(path, sizeof path, "/proc/%d/status", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strstr(buf, "\nPPid:");
	if (p == NULL || sscanf(p + 6, "%d", &pf->ppid) != 1)
		return false;
	p = strstr(buf, "\nUid:");
	if (p == NULL || sscanf(p + 5, "%u %u %u %u", &pf->uid[0],
	    &pf->uid[1], &pf->uid[2], &pf->uid[3]) != 4)
		return false;
	p = strstr(buf, "\nGid:");
	if (p == NULL || sscanf(p + 5, "%u %u %u %u", &pf->gid[0],
	    &pf->gid[1], &pf->gid[2], &pf->gid[3]) != 4)
		return false;
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* pid (comm) state ppid pgrp session tty_nr */
	p = strrchr(buf, ')');
	return p != NULL && sscanf(p + 1, " %*c %*d %*d %d %d", &pf->sid,
	    &pf->tty_nr) == 2;
}

/* The first process whose parent is ppid, or -1. */
static int
child_of(int ppid)
{
	struct dirent *de;
	int found = -1;
	DIR *d = opendir("/proc");

	while (d != NULL && found < 0 && (de = readdir(d)) != NULL) {
		struct proc_facts pf;
		int pid = atoi(de->d_name);

		if (pid > 0 && proc_facts(pid, &pf) && pf.ppid == ppid)
			found = pid;
	}
	if (d != NULL)
		closedir(d);
	return found;
}

/* Does any process but skip1 and skip2 have id among its uids or gids? */
static bool
id_used_elsewhere(unsigned id, int skip1, int skip2)
{
	struct dirent *de;
	bool used = false;
	DIR *d = opendir("/proc");
	int i;

	while (d != NULL && !used && (de = readdir(d)) != NULL) {
		struct proc_facts pf;
		int pid = atoi(de->d_name);

		if (pid <= 0 || pid == skip1 || pid == skip2 ||
		    !proc_facts(pid, &pf))
			continue;
		for (i = 0; i < 4; i++)
			if (pf.uid[i] == id || pf.gid[i] == id)
				used = true;
	}
	if (d != NULL)
		closedir(d);
	return used;
}

/* Is id in one of the ':'-separated numeric fields of a database? */
static bool
id_in_db(const char *path, unsigned id, int field1, int field2)
{
	char line[1024];
	bool found = false;
	FILE *f = fopen(path, "r");

	while (f != NULL && !found && fgets(line, sizeof line, f) != NULL) {
		char *fields[8], *save = NULL, *tok;
		int nf = 0;

		for (tok = strtok_r(line, ":", &save); tok != NULL && nf < 8;
		    tok = strtok_r(NULL, ":", &save))
			fields[nf++] = tok;
		if ((field1 < nf && strtoul(fields[field1], NULL, 10) == id) ||
		    (field2 >= 0 && field2 < nf &&
		    strtoul(fields[field2], NULL, 10) == id))
			found = true;
	}
	if (f != NULL)
		fclose(f);
	return found;
}

/* Descriptors of pid that are not /dev/null, a pipe or a pidfd (each
 * printed), and of those how many are a terminal (tty_rdev or any
 * /dev/pts, /dev/tty). */
static void
foreign_fds(int pid, dev_t tty_rdev, int *foreign, int *ttys)
{
	char dir[64];
	struct dirent *de;
	DIR *d;

	*foreign = *ttys = 0;
	snprintf(dir, sizeof dir, "/proc/%d/fd", pid);
	d = opendir(dir);
	if (d == NULL) {
		*foreign = *ttys = -1;
		return;
	}
	while ((de = readdir(d)) != NULL) {
		char path[64 + 256], target[256];
		struct stat sb;
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		n = readlink(path, target, sizeof target - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		/* /dev/null by its device: opened before pivot_root, PID 1's
		 * reads "/null" from here. */
		if ((stat(path, &sb) == 0 && S_ISCHR(sb.st_mode) &&
		    sb.st_rdev == makedev(1, 3)) ||
		    strncmp(target, "pipe:", 5) == 0 ||
		    strcmp(target, "anon_inode:[pidfd]") == 0)
			continue;
		(*foreign)++;
		print_message("    fd %s -> %s\n", path, target);
		if (strncmp(target, "/dev/pts", 8) == 0 ||
		    strncmp(target, "/dev/tty", 8) == 0 ||
		    (stat(path, &sb) == 0 && S_ISCHR(sb.st_mode) &&
		    sb.st_rdev == tty_rdev))
			(*ttys)++;
	}
	closedir(d);
}

/*
 * From a forked process with the jail's own host ids -- no host process
 * has them, so this is the most an unprivileged attacker could be --
 * ptrace target and read its environment.  "attach=E environ=E".
 */
static void
attack_as(unsigned uid, unsigned gid, int target, char *buf, size_t n)
{
	int p[2], st;
	ssize_t got;
	pid_t a;

	snprintf(buf, n, "no attacker");
	if (pipe(p) == -1)
		return;
	a = fork();
	if (a == 0) {
		char msg[128], path[64];
		int e1 = 0, e2 = 0, fd;

		close(p[0]);
		if (setgroups(0, NULL) == -1 || setresgid(gid, gid, gid) == -1 ||
		    setresuid(uid, uid, uid) == -1)
			_exit(2);
		if (ptrace(PTRACE_ATTACH, target, NULL, NULL) == -1) {
			e1 = errno;
		} else {
			/* Let go again, so a failing run does not leave the
			 * jail stopped. */
			waitpid(target, &st, __WALL);
			ptrace(PTRACE_DETACH, target, NULL, NULL);
		}
		snprintf(path, sizeof path, "/proc/%d/environ", target);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			e2 = errno;
		snprintf(msg, sizeof msg, "attach=%s environ=%s",
		    e1 ? strerrorname_np(e1) : "OK",
		    e2 ? strerrorname_np(e2) : "OK");
		(void)!write(p[1], msg, strlen(msg));
		_exit(0);
	}
	close(p[1]);
	got = a > 0 ? read(p[0], buf, n - 1) : -1;
	if (got > 0)
		buf[got] = '\0';
	close(p[0]);
	if (a > 0)
		waitpid(a, &st, 0);
}

/* The "0::/path" line of /proc/pid/cgroup, or "". */
static void
cgroup_line_of(int pid, const char *key, char *out, size_t n);

/* pid's cgroup v2 path ("0::/a/b" in /proc/PID/cgroup), or "". */
static void
v2_cgroup_of(int pid, char *out, size_t n)
{
	cgroup_line_of(pid, "0::/", out, n);
}

/* pid's memory cgroup: its v1 memory hierarchy's path where the machine
 * keeps the controller there (a hybrid), else its v2 path. */
static void
memory_cgroup_of(int pid, char *out, size_t n)
{
	cgroup_line_of(pid, ":memory:/", out, n);
	if (out[0] == '\0')
		v2_cgroup_of(pid, out, n);
}

/* The path after key on pid's line that holds it, or "". */
static void
cgroup_line_of(int pid, const char *key, char *out, size_t n)
{
	char path[64], buf[4096], *p, *end;
	ssize_t got;
	int fd;

	out[0] = '\0';
	snprintf(path, sizeof path, "/proc/%d/cgroup", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	got = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (got <= 0)
		return;
	buf[got] = '\0';
	p = strstr(buf, key);
	if (p == NULL || (key[0] != ':' && p != buf && p[-1] != '\n'))
		return;
	end = strchr(p, '\n');
	if (end != NULL)
		*end = '\0';
	snprintf(out, n, "%s", p + strlen(key) - 1);
}

/*
 * Could this process have given a jail a memory cgroup?  Root, a cgroup
 * v2 hierarchy, the memory controller offered to its own cgroup, and no
 * other process in that cgroup.  Read here independently of the jail.
 */
static bool
memory_cgroup_offered(void)
{
	static const char *const mounts[] = {
		"/sys/fs/cgroup", "/sys/fs/cgroup/unified",
	};
	char own[256], path[600], buf[4096];
	const char *mnt = NULL;
	struct statfs fs;
	ssize_t got;
	size_t i;
	int fd;

	for (i = 0; i < 2 && mnt == NULL; i++)
		if (statfs(mounts[i], &fs) == 0 &&
		    fs.f_type == CGROUP2_SUPER_MAGIC)
			mnt = mounts[i];
	v2_cgroup_of(getpid(), own, sizeof own);
	if (geteuid() != 0 || mnt == NULL || own[0] == '\0')
		return false;
	snprintf(path, sizeof path, "%s%s/cgroup.controllers", mnt, own);
	fd = open(path, O_RDONLY);
	got = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (got <= 0)
		return false;
	buf[got] = '\0';
	if (strstr(buf, "memory") == NULL)
		return false;
	snprintf(path, sizeof path, "%s%s/cgroup.procs", mnt, own);
	fd = open(path, O_RDONLY);
	got = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (got < 0)
		return false;
	buf[got] = '\0';
	/* Only this process in it (as jail_cgroup.c requires). */
	return atoi(buf) == getpid() && strchr(buf, '\n') == buf + got - 1;
}

/* What the test saw of one jail, gathered before any assertion. */
struct jail_view {
	int		caller, warden, pid1;
	char		w_cgroup[256], p_cgroup[256];	/* "0::" lines */
	bool		memory_cgroup;	/* the caller's outcome said so */
	struct proc_facts w, p;
	int		w_foreign, w_ttys, p_foreign, p_ttys;
	bool		uid_elsewhere, gid_elsewhere;
	char		attack_w[128], attack_p[128];
	char		result[512];	/* "<status> <result or reason>" */
};

/*
 * Run probe_held through jail_run from a forked caller that, like root
 * at a terminal, leads a session whose controlling terminal is a pty on
 * its stdin; look at the warden and PID 1 from here while fn holds
 * still.  Then let fn finish and collect the caller's outcome.
 */
static void
view_jail(struct jail_view *v)
{
	struct timespec ms = { 0, 1000000 };
	struct stat slave_sb;
	char slave[64];
	int master, res[2], st, i;
	ssize_t got;

	memset(v, 0, sizeof *v);
	v->warden = v->pid1 = -1;
	rv->jail_running = rv->host_done = 0;
	master = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(master >= 0);
	assert_int_equal(grantpt(master), 0);
	assert_int_equal(unlockpt(master), 0);
	assert_int_equal(ptsname_r(master, slave, sizeof slave), 0);
	assert_int_equal(stat(slave, &slave_sb), 0);
	assert_int_equal(pipe(res), 0);
	v->caller = fork();
	assert_true(v->caller >= 0);
	if (v->caller == 0) {
		struct jail_config cfg = { 0 };
		struct jail_outcome out;
		char msg[512];
		int tty;

		close(res[0]);
		close(master);
		if (setsid() == -1)
			_exit(2);
		tty = open(slave, O_RDWR);	/* becomes the ctty */
		if (tty < 0 || dup2(tty, 0) == -1 || tcgetsid(0) != getpid())
			_exit(3);
		cfg.wall_ms = 20000;
		(void)jail_run(&cfg, probe_held, NULL, &out);
		snprintf(msg, sizeof msg, "%d%s %s", out.memory_cgroup,
		    jail_status_name(out.status),
		    out.status == JAIL_OK ? out.result : out.reason);
		(void)!write(res[1], msg, strlen(msg));
		_exit(0);
	}
	close(res[1]);
	for (i = 0; i < 15000 && !rv->jail_running; i++)
		nanosleep(&ms, NULL);
	if (rv->jail_running) {
		v->warden = child_of(v->caller);
		v->pid1 = v->warden > 0 ? child_of(v->warden) : -1;
	}
	if (v->pid1 > 0 && proc_facts(v->warden, &v->w) &&
	    proc_facts(v->pid1, &v->p)) {
		foreign_fds(v->warden, slave_sb.st_rdev, &v->w_foreign,
		    &v->w_ttys);
		foreign_fds(v->pid1, slave_sb.st_rdev, &v->p_foreign,
		    &v->p_ttys);
		v->uid_elsewhere = id_used_elsewhere(v->w.uid[0], v->warden,
		    v->pid1);
		v->gid_elsewhere = id_used_elsewhere(v->w.gid[0], v->warden,
		    v->pid1);
		attack_as(v->w.uid[0], v->w.gid[0], v->warden, v->attack_w,
		    sizeof v->attack_w);
		attack_as(v->w.uid[0], v->w.gid[0], v->pid1, v->attack_p,
		    sizeof v->attack_p);
	}
	if (v->pid1 > 0) {
		memory_cgroup_of(v->warden, v->w_cgroup, sizeof v->w_cgroup);
		memory_cgroup_of(v->pid1, v->p_cgroup, sizeof v->p_cgroup);
	}
	rv->host_done = 1;
	got = read(res[0], v->result, sizeof v->result - 1);
	if (got > 0) {
		v->result[got] = '\0';
		v->memory_cgroup = v->result[0] == '1';
		memmove(v->result, v->result + 1, (size_t)got);
	}
	close(res[0]);
	close(master);
	waitpid(v->caller, &st, 0);
}

/*
 * Run as root, the jail's processes have a uid and gid of their own: not
 * root, not nobody, in no account or group, held by no other process;
 * neither can be ptraced or have its environment read by an attacker
 * with those very ids; both hold nothing of the caller (no terminal, no
 * descriptor but /dev/null, pipes and a pidfd) and have no controlling
 * terminal, although the caller runs at one.
 */
static void
test_jail_from_host(void **state)
{
	struct jail_view v;
	int i;

	(void)state;
	if (geteuid() != 0) {
		print_message("  not root: the jail runs as the caller\n");
		skip();
	}
	view_jail(&v);
	print_message("  caller %d, warden %d, PID 1 %d: uid %u gid %u, "
	    "tty_nr %d/%d, foreign fds %d/%d; %s / %s; %s\n", v.caller,
	    v.warden, v.pid1, v.w.uid[0], v.w.gid[0], v.w.tty_nr, v.p.tty_nr,
	    v.w_foreign, v.p_foreign, v.attack_w, v.attack_p, v.result);
	assert_true(v.warden > 0);
	assert_true(v.pid1 > 0);
	assert_string_equal(v.result, "ok dumpable=0 ttys=0");
	for (i = 0; i < 4; i++) {
		assert_int_equal(v.w.uid[i], v.w.uid[0]);
		assert_int_equal(v.w.gid[i], v.w.gid[0]);
		assert_int_equal(v.p.uid[i], v.w.uid[0]);
		assert_int_equal(v.p.gid[i], v.w.gid[0]);
	}
	assert_int_not_equal(v.w.uid[0], 0);
	assert_int_not_equal(v.w.gid[0], 0);
	assert_int_not_equal(v.w.uid[0], 65534);
	assert_int_not_equal(v.w.gid[0], 65534);
	assert_false(id_in_db("/etc/passwd", v.w.uid[0], 2, 3));
	assert_false(id_in_db("/etc/passwd", v.w.gid[0], 2, 3));
	assert_false(id_in_db("/etc/group", v.w.uid[0], 2, -1));
	assert_false(id_in_db("/etc/group", v.w.gid[0], 2, -1));
	assert_false(v.uid_elsewhere);
	assert_false(v.gid_elsewhere);
	assert_string_equal(v.attack_w, "attach=EPERM environ=EACCES");
	assert_string_equal(v.attack_p, "attach=EPERM environ=EACCES");
	assert_int_equal(v.w.tty_nr, 0);
	assert_int_equal(v.p.tty_nr, 0);
	assert_int_not_equal(v.w.sid, v.caller);
	assert_int_not_equal(v.p.sid, v.caller);
	assert_int_equal(v.w_ttys, 0);
	assert_int_equal(v.p_ttys, 0);
	assert_int_equal(v.w_foreign, 0);
	assert_int_equal(v.p_foreign, 0);

	/* The memory cgroup: where the machine offers one, both are in
	 * their own; where it does not, the outcome does not claim one. */
	print_message("  memory cgroup: %s (warden in %s)\n",
	    v.memory_cgroup ? "yes" : "no, RLIMIT_AS alone", v.w_cgroup);
	if (v.memory_cgroup) {
		char want[64];

		snprintf(want, sizeof want, "/sandboxrepl-jails/jail-%u",
		    v.w.uid[0]);
		assert_non_null(strstr(v.w_cgroup, want));
		assert_string_equal(v.p_cgroup, v.w_cgroup);
	} else {
		assert_false(memory_cgroup_offered());
	}
}

/* Two jails alive at once never share an id: two holders in this
 * process, a third in another; an ordinary user gets its own ids. */
static void
test_ids_distinct(void **state)
{
	struct jail_ids a, b, zero;
	char why[256];
	unsigned other[2] = { 0, 0 };
	int p[2], st, before, after;
	pid_t pid;

	(void)state;
	if (geteuid() != 0) {
		print_message("  not root: the jail runs as the caller\n");
		skip();
	}
	assert_int_equal(jail_ids_acquire(&a, why, sizeof why), 0);
	assert_int_equal(jail_ids_acquire(&b, why, sizeof why), 0);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		struct jail_ids c;
		unsigned msg[2] = { 0, 0 };

		if (jail_ids_acquire(&c, why, sizeof why) == 0) {
			msg[0] = c.uid;
			msg[1] = c.gid;
		}
		(void)!write(p[1], msg, sizeof msg);
		_exit(0);
	}
	assert_int_equal(read(p[0], other, sizeof other), sizeof other);
	waitpid(pid, &st, 0);
	close(p[0]);
	close(p[1]);
	print_message("  ids %u/%u, %u/%u, other process %u/%u\n", a.uid, a.gid,
	    b.uid, b.gid, other[0], other[1]);
	assert_int_not_equal(a.uid, b.uid);
	assert_int_not_equal(a.gid, b.gid);
	assert_int_not_equal(other[0], 0);
	assert_int_not_equal(other[0], a.uid);
	assert_int_not_equal(other[0], b.uid);
	assert_int_not_equal(other[1], a.gid);
	assert_int_not_equal(other[1], b.gid);
	assert_false(id_in_db("/etc/passwd", a.uid, 2, 3));
	assert_false(id_in_db("/etc/group", a.gid, 2, -1));
	assert_true(a.lock_fd > 2);
	jail_ids_release(&a);
	jail_ids_release(&b);
	assert_int_equal(a.lock_fd, -1);
	jail_ids_release(&a);	/* twice is harmless */
	/* A zeroed struct must not close descriptor 0. */
	before = fcntl(0, F_GETFD);
	memset(&zero, 0, sizeof zero);
	jail_ids_release(&zero);
	after = fcntl(0, F_GETFD);
	assert_int_equal(before, after);

	/* An ordinary user: its own ids, no lock. */
	assert_int_equal(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		struct jail_ids c;
		int msg[3] = { -1, -1, -2 };

		if (setgroups(0, NULL) == 0 && setresgid(4242, 4242, 4242) == 0 &&
		    setresuid(4243, 4243, 4243) == 0 &&
		    jail_ids_acquire(&c, why, sizeof why) == 0) {
			msg[0] = (int)c.uid;
			msg[1] = (int)c.gid;
			msg[2] = c.lock_fd;
		}
		(void)!write(p[1], msg, sizeof msg);
		_exit(0);
	}
	{
		int msg[3];

		assert_int_equal(read(p[0], msg, sizeof msg), sizeof msg);
		assert_int_equal(msg[0], 4243);
		assert_int_equal(msg[1], 4242);
		assert_int_equal(msg[2], -1);
	}
	waitpid(pid, &st, 0);
	close(p[0]);
	close(p[1]);
}

/* What test_ids_lock_dir saw in its private mount namespace. */
struct lock_dir_cases {
	int	open_ids_err;	/* ids dir writable by all */
	int	foreign_err;	/* ids dir owned by another user */
	int	parent_err;	/* /run/sandboxrepl writable by all */
	int	symlink_err;	/* /run/sandboxrepl a symlink */
	int	fresh_rc;	/* a clean /run */
	unsigned fresh_mode, lock_mode;
	int	jail_status, jail_step, fn_ran;
};

static int
acquire_err(void)
{
	struct jail_ids ids;
	char why[256];

	if (jail_ids_acquire(&ids, why, sizeof why) == 0) {
		jail_ids_release(&ids);
		return 0;
	}
	return errno;
}

static void
fresh_run(void)
{
	(void)!system("rm -rf /run/sandboxrepl /run/elsewhere");
}

/*
 * The lock directory is trusted only when root owns it and no one else
 * may write it (nor, for ids/, enter it); a planted symlink is not
 * followed; and a jail whose ids cannot be had refuses and runs nothing.
 * In a child with its own mount namespace and a tmpfs on /run, so the
 * host's /run/sandboxrepl is never touched.
 */
static void
test_ids_lock_dir(void **state)
{
	struct lock_dir_cases c;
	int p[2], st;
	pid_t pid;

	(void)state;
	if (geteuid() != 0) {
		print_message("  not root: no lock directory\n");
		skip();
	}
	*fn_ran = 0;
	memset(&c, 0, sizeof c);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		struct jail_config cfg = { 0 };
		struct jail_outcome out;
		struct jail_ids ids;
		char why[256], path[128];
		struct stat sb;

		if (unshare(CLONE_NEWNS) == -1 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1 ||
		    mount("tmpfs", "/run", "tmpfs", 0, "mode=0755") == -1)
			_exit(2);
		mkdir("/run/sandboxrepl", 0755);
		mkdir("/run/sandboxrepl/ids", 0700);
		chmod("/run/sandboxrepl/ids", 0777);
		c.open_ids_err = acquire_err();
		chmod("/run/sandboxrepl/ids", 0700);
		(void)!chown("/run/sandboxrepl/ids", 4242, 4242);
		c.foreign_err = acquire_err();
		fresh_run();
		mkdir("/run/sandboxrepl", 0755);
		chmod("/run/sandboxrepl", 0777);
		c.parent_err = acquire_err();
		fresh_run();
		mkdir("/run/elsewhere", 0700);
		(void)!symlink("/run/elsewhere", "/run/sandboxrepl");
		c.symlink_err = acquire_err();
		/* The jail refuses at "ids" while the directory is wrong. */
		(void)jail_run(&cfg, probe_mark_host, NULL, &out);
		c.jail_status = out.status;
		c.jail_step = out.step;
		c.fn_ran = *fn_ran;
		jail_outcome_free(&out);
		fresh_run();
		c.fresh_rc = jail_ids_acquire(&ids, why, sizeof why);
		if (stat("/run/sandboxrepl/ids", &sb) == 0)
			c.fresh_mode = sb.st_mode & 07777;
		snprintf(path, sizeof path, "/run/sandboxrepl/ids/%u",
		    (unsigned)ids.uid);
		if (c.fresh_rc == 0 && stat(path, &sb) == 0)
			c.lock_mode = sb.st_mode & 07777;
		(void)!write(p[1], &c, sizeof c);
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, sizeof c), sizeof c);
	close(p[0]);
	waitpid(pid, &st, 0);
	print_message("  0777 ids: %s; foreign ids: %s; 0777 parent: %s; "
	    "symlink: %s; jail: %s at %s\n", strerrorname_np(c.open_ids_err),
	    strerrorname_np(c.foreign_err), strerrorname_np(c.parent_err),
	    strerrorname_np(c.symlink_err), jail_status_name(c.jail_status),
	    jail_step_name(c.jail_step));
	assert_int_equal(c.open_ids_err, EPERM);
	assert_int_equal(c.foreign_err, EPERM);
	assert_int_equal(c.parent_err, EPERM);
	assert_int_not_equal(c.symlink_err, 0);
	assert_int_equal(c.jail_status, JAIL_REFUSED);
	assert_int_equal(c.jail_step, JAIL_STEP_IDS);
	assert_int_equal(c.fn_ran, 0);
	assert_int_equal(c.fresh_rc, 0);
	assert_int_equal(c.fresh_mode, 0700);
	assert_int_equal(c.lock_mode, 0600);
}

/* ---------------------------------------------------------------- */
/* the host's parser, fed hostile replies                            */
/* ---------------------------------------------------------------- */

struct wirebuf {
	char	data[4096];
	size_t	len;
};

static void
frame(struct wirebuf *w, char type, const void *a, size_t alen,
    const void *b, size_t blen)
{
	uint32_t len = (uint32_t)(alen + blen);

	w->data[w->len] = type;
	memcpy(w->data + w->len + 1, &len, 4);
	if (alen > 0)
		memcpy(w->data + w->len + 5, a, alen);
	if (blen > 0)
		memcpy(w->data + w->len + 5 + alen, b, blen);
	w->len += 5 + alen + blen;
}

static void
frame_wait(struct wirebuf *w, int wstatus)
{
	struct wire_wait ww;

	memset(&ww, 0, sizeof ww);
	ww.wstatus = wstatus;
	ww.seccomp_nr = -1;
	frame(w, WW_WAIT, &ww, sizeof ww, NULL, 0);
}

static void
frame_file(struct wirebuf *w, const char *name, size_t namelen,
    const char *data)
{
	char head[4 + 64];
	uint32_t n = (uint32_t)namelen;

	memcpy(head, &n, 4);
	memcpy(head + 4, name, namelen);
	frame(w, WW_FLAT_FILE, head, 4 + namelen, data, strlen(data));
}

static void
frame_refuse(struct wirebuf *w, uint32_t step, int32_t err)
{
	char head[8];

	memcpy(head, &step, 4);
	memcpy(head + 4, &err, 4);
	frame(w, WW_REFUSE, head, 8, "detail", 6);
}

/* A well-formed run that exited 0 with result "r" and file "a". */
static void
good_prefix(struct wirebuf *w)
{
	frame_wait(w, 0);
	frame(w, WW_OUTPUT, "r", 1, NULL, 0);
}

static void w_ok(struct wirebuf *w) { good_prefix(w);
	frame_file(w, "b", 1, "2"); frame_file(w, "a", 1, "1");
	frame(w, WW_END, NULL, 0, NULL, 0); }
static void w_refusal(struct wirebuf *w) {
	frame_refuse(w, JAIL_STEP_LANDLOCK, EOPNOTSUPP); }
static void w_empty(struct wirebuf *w) { (void)w; }
static void w_short_header(struct wirebuf *w) { good_prefix(w);
	memcpy(w->data + w->len, "E\0\0", 3); w->len += 3; }
static void w_length_past_end(struct wirebuf *w) { good_prefix(w);
	frame(w, WW_END, NULL, 0, NULL, 0); w->data[w->len - 4] = 9; }
static void w_unknown_type(struct wirebuf *w) { good_prefix(w);
	frame(w, 'Z', NULL, 0, NULL, 0); frame(w, WW_END, NULL, 0, NULL, 0); }
static void w_no_end(struct wirebuf *w) { good_prefix(w); }
static void w_after_end(struct wirebuf *w) { w_ok(w);
	frame(w, WW_END, NULL, 0, NULL, 0); }
static void w_result_first(struct wirebuf *w) {
	frame(w, WW_OUTPUT, "r", 1, NULL, 0); frame_wait(w, 0);
	frame(w, WW_END, NULL, 0, NULL, 0); }
static void w_two_waits(struct wirebuf *w) { frame_wait(w, 0);
	good_prefix(w); frame(w, WW_END, NULL, 0, NULL, 0); }
static void w_result_over_cap(struct wirebuf *w) { frame_wait(w, 0);
	frame(w, WW_OUTPUT, "0123456789abcdefX", 17, NULL, 0);
	frame(w, WW_END, NULL, 0, NULL, 0); }
static void w_name_slash(struct wirebuf *w) { good_prefix(w);
	frame_file(w, "../etc", 6, "x"); frame(w, WW_END, NULL, 0, NULL, 0); }
static void w_name_dotdot(struct wirebuf *w) { good_prefix(w);
	frame_file(w, "..", 2, "x"); frame(w, WW_END, NULL, 0, NULL, 0); }
static void w_name_dot(struct wirebuf *w) { good_prefix(w);
	frame_file(w, ".", 1, "x"); frame(w, WW_END, NULL, 0, NULL, 0); }
static void w_name_empty(struct wirebuf *w) { good_prefix(w);
	frame_file(w, "", 0, "x"); frame(w, WW_END, NULL, 0, NULL, 0); }
static void w_name_nul(struct wirebuf *w) { good_prefix(w);
	frame_file(w, "a\0b", 3, "x"); frame(w, WW_END, NULL, 0, NULL, 0); }
static void w_name_len_lies(struct wirebuf *w) { uint32_t big = 1000;
	good_prefix(w); frame(w, WW_FLAT_FILE, &big, 4, "ab", 2);
	frame(w, WW_END, NULL, 0, NULL, 0); }
static void w_duplicate(struct wirebuf *w) { good_prefix(w);
	frame_file(w, "a", 1, "1"); frame_file(w, "a", 1, "2");
	frame(w, WW_END, NULL, 0, NULL, 0); }
static void w_too_many_files(struct wirebuf *w) { good_prefix(w);
	frame_file(w, "a", 1, "1"); frame_file(w, "b", 1, "2");
	frame_file(w, "c", 1, "3"); frame_file(w, "d", 1, "4");
	frame(w, WW_END, NULL, 0, NULL, 0); }
static void w_too_many_bytes(struct wirebuf *w) { good_prefix(w);
	frame_file(w, "a", 1, "0123456789abcdefghij0123456789abc");
	frame(w, WW_END, NULL, 0, NULL, 0); }
static void w_step_zero(struct wirebuf *w) { frame_refuse(w, 0, EPERM); }
static void w_step_range(struct wirebuf *w) {
	frame_refuse(w, JAIL_STEP_COUNT, EPERM); }
static void w_step_worlds(struct wirebuf *w) {
	frame_refuse(w, JAIL_STEP_PYTHON, EPERM); }
static void w_errno_zero(struct wirebuf *w) {
	frame_refuse(w, JAIL_STEP_UNSHARE, 0); }
static void w_refusal_after_wait(struct wirebuf *w) { frame_wait(w, 0);
	frame_refuse(w, JAIL_STEP_UNSHARE, EPERM); }
static void w_wait_short(struct wirebuf *w) {
	frame(w, WW_WAIT, "abc", 3, NULL, 0); }

static const struct {
	const char	*what;
	void		(*build)(struct wirebuf *);
	enum jail_status status;
	const char	*reason;
} wire_cases[] = {
	{ "well formed", w_ok, JAIL_OK, "exited with status 0" },
	{ "refusal", w_refusal, JAIL_REFUSED,
	  "landlock failed: detail: Operation not supported" },
	{ "empty", w_empty, JAIL_ERROR, "malformed reply from the jail" },
	{ "short header", w_short_header, JAIL_ERROR, NULL },
	{ "length past the end", w_length_past_end, JAIL_ERROR, NULL },
	{ "unknown frame type", w_unknown_type, JAIL_ERROR, NULL },
	{ "no END", w_no_end, JAIL_ERROR, NULL },
	{ "bytes after END", w_after_end, JAIL_ERROR, NULL },
	{ "result before wait", w_result_first, JAIL_ERROR, NULL },
	{ "two waits", w_two_waits, JAIL_ERROR, NULL },
	{ "result over cap", w_result_over_cap, JAIL_ERROR, NULL },
	{ "name with /", w_name_slash, JAIL_ERROR, NULL },
	{ "name ..", w_name_dotdot, JAIL_ERROR, NULL },
	{ "name .", w_name_dot, JAIL_ERROR, NULL },
	{ "empty name", w_name_empty, JAIL_ERROR, NULL },
	{ "name with NUL", w_name_nul, JAIL_ERROR, NULL },
	{ "name length past payload", w_name_len_lies, JAIL_ERROR, NULL },
	{ "duplicate names", w_duplicate, JAIL_ERROR, NULL },
	{ "more files than max_files", w_too_many_files, JAIL_ERROR, NULL },
	{ "more bytes than max_read_bytes", w_too_many_bytes, JAIL_ERROR,
	  NULL },
	{ "step 0", w_step_zero, JAIL_ERROR, NULL },
	{ "step out of range", w_step_range, JAIL_ERROR, NULL },
	{ "a world's step, no jail's", w_step_worlds, JAIL_ERROR, NULL },
	{ "errno 0", w_errno_zero, JAIL_ERROR, NULL },
	{ "refusal after wait", w_refusal_after_wait, JAIL_ERROR, NULL },
	{ "short wait", w_wait_short, JAIL_ERROR, NULL },
};

static void
test_wire_parse(void **state)
{
	struct jail_plan plan;
	size_t i;

	(void)state;
	memset(&plan, 0, sizeof plan);
	plan.max_result = 16;
	plan.max_files = 3;
	plan.max_read_bytes = 32;
	plan.cpu_seconds = 1;
	plan.wall_ms = 100;
	for (i = 0; i < sizeof wire_cases / sizeof wire_cases[0]; i++) {
		struct wirebuf w;
		struct jail_outcome out;
		bool ok;

		memset(&w, 0, sizeof w);
		memset(&out, 0, sizeof out);
		out.exit_code = -1;
		out.seccomp_syscall = -1;
		wire_cases[i].build(&w);
		ok = jail_wire_parse(&plan, w.data, w.len, &out);
		print_message("  %-32s -> [%s] %s\n", wire_cases[i].what,
		    jail_status_name(out.status), out.reason);
		assert_int_equal(out.status, wire_cases[i].status);
		assert_int_equal(ok, wire_cases[i].status != JAIL_ERROR);
		if (wire_cases[i].reason != NULL)
			assert_string_equal(out.reason, wire_cases[i].reason);
		if (out.status == JAIL_ERROR) {
			assert_null(out.result);
			assert_null(out.files);
			assert_int_equal(out.nfiles, 0);
		}
		if (out.status == JAIL_OK) {
			/* sorted by name, NUL-terminated copies */
			assert_int_equal(out.nfiles, 2);
			assert_string_equal(out.files[0].name, "a");
			assert_string_equal(out.files[0].data, "1");
			assert_string_equal(out.files[1].name, "b");
			assert_string_equal(out.result, "r");
		}
		jail_outcome_free(&out);
	}
}

/* Bare fork, _exit and reap: the floor under any per-run cost. */
static double
bare_fork_ms(void)
{
	struct timespec a, b;
	pid_t pid;
	int st;

	clock_gettime(CLOCK_MONOTONIC, &a);
	pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, &st, 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a.tv_sec) * 1e3 +
	    (double)(b.tv_nsec - a.tv_nsec) / 1e6;
}

#if defined(__SANITIZE_ADDRESS__)
#define TIMING_BOUND_MS	250.0	/* a sanitizer build forks a huge process */
#else
#define TIMING_BOUND_MS	50.0
#endif

/*
 * Cost per evaluation: median of 50 runs, fork to reaped, beside the
 * median of 50 bare forks measured in the same moment (the machine may
 * be busy).  The bound only catches a pathological regression.
 */
static void
test_timing(void **state)
{
	double ms[50], fork_ms[50];
	size_t i;

	(void)state;
	for (i = 0; i < 50; i++) {
		struct jail_config cfg = { 0 };
		struct jail_outcome out;

		fork_ms[i] = bare_fork_ms();
		(void)jail_run(&cfg, probe_trivial, NULL, &out);
		assert_int_equal(out.status, JAIL_OK);
		ms[i] = out.elapsed_ms;
		jail_outcome_free(&out);
	}
	qsort(ms, 50, sizeof ms[0], cmp_double);
	qsort(fork_ms, 50, sizeof fork_ms[0], cmp_double);
	print_message("  jail_run fork-to-result: median %.2f ms, "
	    "min %.2f ms, p90 %.2f ms (50 runs); bare fork+reap: median "
	    "%.2f ms, min %.2f ms\n", ms[25], ms[0], ms[45], fork_ms[25],
	    fork_ms[0]);
	assert_true(ms[25] < TIMING_BOUND_MS);
}

static int
setup_listener(void **state)
{
	static int listener;
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;

	listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (listener < 0)
		return -1;
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(listener, (struct sockaddr *)&sin, sizeof sin) == -1 ||
	    listen(listener, 8) == -1 ||
	    getsockname(listener, (struct sockaddr *)&sin, &len) == -1)
		return -1;
	listen_port = ntohs(sin.sin_port);
	*state = &listener;
	return 0;
}

static int
teardown_listener(void **state)
{
	close(*(int *)*state);
	return 0;
}

static void
remove_canary(void)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof path, "%s/secret.txt", canary_dir);
	unlink(path);
	unlink(ran_marker);
	rmdir(canary_dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_legit),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_trapped_syscalls),
		cmocka_unit_test(test_enosys_syscalls),
		cmocka_unit_test(test_canary_intact),
		cmocka_unit_test_setup_teardown(test_listener_untouched,
		    setup_listener, teardown_listener),
		cmocka_unit_test(test_cpu_spin),
		cmocka_unit_test(test_memory_bomb),
		cmocka_unit_test(test_wall_clock),
		cmocka_unit_test(test_result_cap),
		cmocka_unit_test(test_file_size_cap),
		cmocka_unit_test(test_read_back_caps),
		cmocka_unit_test(test_too_many_seeds),
		cmocka_unit_test(test_bad_seed_name),
		cmocka_unit_test(test_fn_ran_control),
		cmocka_unit_test(test_step_words),
		cmocka_unit_test(test_contain_walk),
		cmocka_unit_test(test_fail_at_every_step),
		cmocka_unit_test(test_no_user_namespaces),
		cmocka_unit_test(test_jail_from_host),
		cmocka_unit_test(test_ids_distinct),
		cmocka_unit_test(test_ids_lock_dir),
		cmocka_unit_test(test_wire_parse),
		cmocka_unit_test(test_timing),
	};
	char tmpl[] = "jail-canary.XXXXXX", path[PATH_MAX + 32];
	int fd, rc;

	if (access("/proc/self/ns/user", F_OK) == -1) {
		fprintf(stderr, "test_jail: this kernel has no user namespaces; "
		    "skipping\n");
		return 77;
	}
	fn_ran = mmap(NULL, sizeof *fn_ran, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	rv = mmap(NULL, sizeof *rv, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fn_ran == MAP_FAILED || rv == MAP_FAILED) {
		perror("test_jail: mmap");
		return 1;
	}
	if (mkdtemp(tmpl) == NULL || realpath(tmpl, canary_dir) == NULL) {
		perror("test_jail: canary directory");
		return 1;
	}
	snprintf(path, sizeof path, "%s/secret.txt", canary_dir);
	snprintf(ran_marker, sizeof ran_marker, "%s/fn-ran", canary_dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0 || write(fd, "canary data", 11) != 11) {
		perror("test_jail: canary file");
		return 1;
	}
	close(fd);
	/* The jail drops to an unprivileged id: let it try the canary, so
	 * only the jail, not file modes, stands in its way. */
	chmod(canary_dir, 0777);
	chmod(path, 0666);
	/* The jail must not pass the caller's environment or its ignored
	 * signals on. */
	setenv("JAIL_TEST_SECRET", "hunter2", 1);
	signal(SIGXFSZ, SIG_IGN);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	remove_canary();
	return rc;
}
