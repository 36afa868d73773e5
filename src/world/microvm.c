/*
 * microvm.c -- worlds of the microVM kind: the jail path's CPython in a
 * virtual machine of its own, QEMU's "microvm" machine (Firecracker's
 * minimal device model: no PCI, no firmware, virtio-mmio), so that no
 * kernel is shared between the code and the host.
 *
 * The session's side (microvm_spawn) boots a guest for each world:
 *
 *     qemu-system-x86_64 -M microvm -accel kvm|tcg -nodefaults -nic none
 *         -kernel vmlinuz -initrd initramfs.img
 *         -append "console=ttyS0 quiet panic=-1 -- --microvm-worker F M"
 *         -fsdev local,path=/usr,readonly=on ... mount_tag=usr
 *         -fsdev local,path=BUNDLE/worker,readonly=on ... mount_tag=worker
 *         -device virtio-serial-device
 *         -chardev stdio ... -device virtserialport,name=sandboxrepl
 *         -chardev socket,fd=3 ... -device virtserialport,name=interrupt
 *         -sandbox on,obsolete=deny,elevateprivileges=deny,spawn=deny,...
 *
 * Debian's kernel boots directly (no firmware, no bootloader) into an
 * initramfs the build made (microvm_init.c: the few modules 9p and the
 * serial ports need, then the host's /usr and this program shared
 * read-only over virtio-9p).  There is no network device at all.  The
 * world's wire (wire.h) is QEMU's stdin and stdout, a socket of the
 * session's, carried into the guest by a virtio serial port; a second
 * port carries Ctrl-C.  The guest's console (its kernel's messages, and
 * what the init says when it cannot start) goes to console.log in the
 * bundle, with what QEMU itself says.
 *
 * QEMU itself is confined as serious deployments confine it: as root,
 * under an id of its own (jail_ids.h) in the world's memory cgroup; its
 * own user, network, ipc, uts and mount namespaces (no host network, not
 * even loopback); no_new_privs; Landlock granting it only /usr (to run
 * and to share), the images and the bundle read-only and /dev/kvm where
 * it uses KVM; and its own seccomp filter (-sandbox on).  It dies with
 * the session (a death signal) and the janitor removes the bundle
 * however the session ends.
 *
 * KVM when it works, TCG (QEMU's emulation: slow) when it does not,
 * chosen once per process (microvm_accel): a CPU that shows no
 * virtualisation, or a /dev/kvm that cannot run a one-instruction guest
 * within a second, is TCG, and every place that names the boundary says
 * which.
 *
 * Inside, microvm_worker() is the guest's PID 1 once the init has
 * switched to its root, and does what a gVisor worker does, plus what
 * runsc did for that one: the replica's /etc and mount points, tmpfs
 * for the workspace, HOME and /tmp, the root made read-only, the wire's
 * serial port as descriptor 3, CPython initialised, the worlds' rlimits;
 * the interpreter forked as its child, which becomes the agent user (no
 * capabilities, no_new_privs) and serves the wire protocol; and PID 1 the
 * worlds' small init (world_init_main).  The guest's own seccomp and
 * Landlock are not the boundary here: the VM is.
 *
 * Never a weaker fallback: no QEMU, no kernel image, or a guest that does
 * not boot refuses the path with the reason and the fix.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <linux/kvm.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jail/jail_ids.h"
#include "jail/jail_int.h"
#include "wire.h"
#include "world.h"
#include "world_int.h"
#include "base/xalloc.h"
#include "jail/jail_sys.h"

#ifndef MICROVM_DIR
#define MICROVM_DIR	"/usr/lib/sandboxrepl/microvm"
#endif

#define KERNEL_NAME	"vmlinuz"
#define INITRD_NAME	"initramfs.img"
#define MODULE_NAME	"sandboxrepl-python.so"
#define WORKER_DIR	"/worker"		/* inside: this program's share */
#define MODULE_COPY	"/run/" MODULE_NAME	/* inside: root's copy */
#define WIRE_PORT	"sandboxrepl"		/* the serial ports' names */
#define INTERRUPT_PORT	"interrupt"

/*
 * The guest's memory: what the code may hold, as in every world
 * (world_memory()), and the guest kernel, its page cache of /usr and the
 * interpreter beside it.
 */
#define MICROVM_MEM_BYTES	(world_memory() + (256ull << 20))

/* ---------------------------------------------------------------- */
/* KVM or TCG                                                        */
/* ---------------------------------------------------------------- */

/* Does the CPU say it can virtualise (vmx, svm)? */
static bool
cpu_virtualises(void)
{
	char line[4096];
	bool yes = false;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (f == NULL)
		return false;
	while (!yes && fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, "flags", 5) == 0)
			yes = strstr(line, " vmx") != NULL ||
			    strstr(line, " svm") != NULL;
	fclose(f);
	return yes;
}

/*
 * In a child: run a guest of one instruction (hlt) on /dev/kvm.  Exit 0
 * when it halted, 1 otherwise.  A /dev/kvm that opens and makes VMs but
 * cannot run one (a nested host without nested virtualisation) hangs
 * here, and the parent's deadline says so.
 */
static void __attribute__((noreturn))
kvm_hlt_child(void)
{
	struct kvm_userspace_memory_region region;
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	struct kvm_run *run;
	unsigned char *mem;
	int kvm, vm, vcpu, size;

	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0 || ioctl(kvm, KVM_GET_API_VERSION, 0) != KVM_API_VERSION)
		_exit(1);
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	mem = mmap(NULL, 0x1000, PROT_READ | PROT_WRITE, MAP_SHARED |
	    MAP_ANONYMOUS, -1, 0);
	if (vm < 0 || mem == MAP_FAILED)
		_exit(1);
	mem[0] = 0xf4;				/* hlt */
	memset(&region, 0, sizeof region);
	region.guest_phys_addr = 0x1000;
	region.memory_size = 0x1000;
	region.userspace_addr = (uintptr_t)mem;
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region) == -1 ||
	    (vcpu = ioctl(vm, KVM_CREATE_VCPU, 0)) < 0 ||
	    (size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0)) <= 0)
		_exit(1);
	run = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED,
	    vcpu, 0);
	if (run == MAP_FAILED || ioctl(vcpu, KVM_GET_SREGS, &sregs) == -1)
		_exit(1);
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	memset(&regs, 0, sizeof regs);
	regs.rip = 0x1000;
	regs.rflags = 0x2;
	if (ioctl(vcpu, KVM_SET_SREGS, &sregs) == -1 ||
	    ioctl(vcpu, KVM_SET_REGS, &regs) == -1 ||
	    ioctl(vcpu, KVM_RUN, 0) == -1)
		_exit(1);
	_exit(run->exit_reason == KVM_EXIT_HLT ? 0 : 1);
}

/* Run kvm_hlt_child with a deadline: true when the guest halted. */
static bool
kvm_runs(const char **why)
{
	static const int fds[3] = { -1, -1, -1 };
	const struct jail_child_spec spec = {
		.flags = JAIL_FORK_DEATHSIG, .fds = fds, .nfds = 3,
	};
	const char *failed;
	int ws = 0, i;
	pid_t pid, got = 0;

	pid = jail_fork(&spec, &failed);
	if (pid == 0) {
		if (failed != NULL)
			_exit(1);
		kvm_hlt_child();
	}
	if (pid < 0) {
		*why = "cannot fork to try /dev/kvm";
		return false;
	}
	for (i = 0; i < 100 && got == 0; i++) {	/* a second */
		got = waitpid(pid, &ws, WNOHANG);
		if (got == 0)
			usleep(10000);
	}
	if (got == 0) {
		kill(pid, SIGKILL);
		(void)waitpid(pid, &ws, 0);
		*why = "/dev/kvm did not run a guest within a second (a "
		    "nested machine without nested virtualisation)";
		return false;
	}
	if (got < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
		*why = "/dev/kvm could not run a guest";
		return false;
	}
	return true;
}

enum microvm_accel
microvm_accel(const char **why)
{
	static int chosen = -1;
	static const char *reason = "";

	if (chosen < 0) {
		const char *env = getenv("SANDBOXREPL_MICROVM_ACCEL");

		if (env != NULL && strcmp(env, "tcg") == 0) {
			chosen = MICROVM_TCG;
			reason = "SANDBOXREPL_MICROVM_ACCEL=tcg";
		} else if (access("/dev/kvm", R_OK | W_OK) == -1) {
			chosen = MICROVM_TCG;
			reason = errno == ENOENT ? "this machine has no /dev/kvm"
			    : "/dev/kvm is not open to this user (the kvm "
			    "group)";
		} else if (!cpu_virtualises()) {
			chosen = MICROVM_TCG;
			reason = "the CPU shows no virtualisation (vmx, svm): "
			    "a nested machine without nested virtualisation";
		} else if (!kvm_runs(&reason))
			chosen = MICROVM_TCG;
		else {
			chosen = MICROVM_KVM;
			reason = "/dev/kvm runs a guest";
		}
	}
	if (why != NULL)
		*why = reason;
	return (enum microvm_accel)chosen;
}

const char *
microvm_accel_words(void)
{
	return microvm_accel(NULL) == MICROVM_KVM ? "kvm" :
	    "tcg, emulated: slow";
}

/* ---------------------------------------------------------------- */
/* the session's side                                                 */
/* ---------------------------------------------------------------- */

static void microvm_reap(struct microvm_proc *m);

/* QEMU: SANDBOXREPL_QEMU when set, else on PATH. */
static bool
find_qemu(char *out, size_t n, char *why, size_t wn)
{
	return bundle_find("SANDBOXREPL_QEMU", "qemu-system-x86_64", "QEMU",
	    "qemu-system-x86", out, n, why, wn);
}

/*
 * The guest's kernel and initramfs: in SANDBOXREPL_MICROVM_DIR when set,
 * else beside this program (the build tree's microvm/), else where make
 * install put them.  false with why (naming the fix) when none has both.
 */
static bool
find_images(char *dir, size_t n, char *why, size_t wn)
{
	const char *env = getenv("SANDBOXREPL_MICROVM_DIR");
	char exe[PATH_MAX], path[PATH_MAX], *slash;
	const char *tried[3];
	size_t k = 0, i;
	ssize_t len;

	if (env != NULL && env[0] != '\0')
		tried[k++] = env;
	else {
		len = readlink("/proc/self/exe", exe, sizeof exe - 16);
		if (len > 0) {
			exe[len] = '\0';
			if ((slash = strrchr(exe, '/')) != NULL) {
				strcpy(slash + 1, "microvm");
				tried[k++] = exe;
			}
		}
		tried[k++] = MICROVM_DIR;
	}
	for (i = 0; i < k; i++) {
		if (bundle_join(path, sizeof path, tried[i], KERNEL_NAME) &&
		    access(path, R_OK) == 0 &&
		    bundle_join(path, sizeof path, tried[i], INITRD_NAME) &&
		    access(path, R_OK) == 0) {
			snprintf(dir, n, "%s", tried[i]);
			return true;
		}
	}
	snprintf(why, wn, "no guest kernel image (%s and %s) in %.200s: "
	    "build them (make microvm-guest in the build tree) or install the "
	    ".deb", KERNEL_NAME, INITRD_NAME, tried[k - 1]);
	return false;
}

bool
microvm_found(char *buf, size_t n)
{
	char qemu[PATH_MAX], images[PATH_MAX];

	if (!find_qemu(qemu, sizeof qemu, buf, n) ||
	    !find_images(images, sizeof images, buf, n))
		return false;
	snprintf(buf, n, "%s, its guest kernel and initramfs in %s", qemu,
	    images);
	return true;
}

const char *
microvm_memory_bound(void)
{
	static char text[256];

	snprintf(text, sizeof text, "the guest's memory, %llu MiB, by QEMU "
	    "(-m); inside, every world's rlimits and the wall clock per "
	    "input%s", (unsigned long long)(MICROVM_MEM_BYTES >> 20),
	    geteuid() == 0 ? "; as root, QEMU under an id of its own in a "
	    "memory cgroup where the machine gives one" : "");
	return text;
}

/* What the child that becomes QEMU is given (qemu_confine). */
struct qemu_child {
	uid_t		 id;		/* as root: the world's own id, or 0 */
	const char	*images;	/* the kernel's directory */
	const char	*bundle;
	bool		 kvm;
};

/*
 * In the child, before it becomes QEMU (jail_fork's prepare, while its
 * ids are still the parent's): as root, the world's memory cgroup.
 */
static int
qemu_cgroup(void *ctx)
{
	const struct qemu_child *q = ctx;
	char dir[PATH_MAX], why[256] = "";

	if (q->id == 0)
		return 0;
	if (jail_cgroup_prepare(dir, sizeof dir, why, sizeof why) == -1) {
		dprintf(2, "memory cgroup: %s\n", why);
		return -1;
	}
	if (dir[0] != '\0' && jail_cgroup_enter(dir, (unsigned)q->id,
	    MICROVM_MEM_BYTES + (64ull << 20), why, sizeof why) == -1) {
		dprintf(2, "memory cgroup: %s: %s\n", why, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * In the child, as its own ids: namespaces of its own (no host network:
 * an empty network namespace), no_new_privs, and Landlock granting only
 * what QEMU needs.  0, or -1 with what failed on descriptor 2.
 */
static int
qemu_confine(const struct qemu_child *q)
{
	const struct jail_ll_rule rules[] = {
		{ "/usr", JAIL_LL_EXEC },	/* to run, and to share */
		{ q->images, JAIL_LL_READ },
		{ q->bundle, JAIL_LL_READ },
		{ "/dev/null", JAIL_LL_FILE_RW },
		{ "/dev/urandom", JAIL_LL_READ },
		{ "/dev/kvm", JAIL_LL_DEVICE },
	};
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char detail[128] = "";
	const char *failed = NULL;
	int abi;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET |
	    CLONE_NEWIPC | CLONE_NEWUTS) == -1) {
		dprintf(2, "QEMU's namespaces: unshare: %s\n",
		    strerror(errno));
		return -1;
	}
	/* (a uid change cleared dumpable, and the maps need it; then
	 * nothing of the id's may ptrace QEMU or read its /proc files) */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) == -1 ||
	    jail_id_maps((int)uid, uid, gid, detail, sizeof detail) == -1 ||
	    jail_undumpable() == -1) {
		dprintf(2, "QEMU's namespaces: id maps: %s: %s\n", detail,
		    strerror(errno));
		return -1;
	}
	if (jail_no_new_privs() == -1) {
		dprintf(2, "no_new_privs: %s\n", strerror(errno));
		return -1;
	}
	if (jail_landlock_enforce_rules(rules, sizeof rules / sizeof
	    rules[0] - (q->kvm ? 0 : 1), &abi, &failed) == -1) {
		dprintf(2, "Landlock for QEMU: %s: %s\n", failed ? failed :
		    "", strerror(errno));
		return -1;
	}
	return 0;
}

/* The child: confined (qemu_confine), then QEMU, with the wire as its
 * stdin and stdout, the interrupt port's socket as 3 and console.log as
 * its stderr and 4 (the guest's console: QEMU takes no standard stream
 * for it), dying with the session, in a session of its own. */
static pid_t
fork_qemu(int sock, int irq, int errfd, struct qemu_child *q,
    char *const *argv)
{
	const int fds[5] = { sock, sock, errfd, irq, errfd };
	struct jail_child_spec spec = {
		.flags = JAIL_FORK_DEATHSIG | JAIL_FORK_SIGNALS |
		    JAIL_FORK_SESSION | JAIL_FORK_FLUSH | JAIL_FORK_SIGDFL,
		.fds = fds,
		.nfds = 5,
		.prepare = qemu_cgroup,
		.ctx = q,
	};
	const char *failed;
	pid_t pid;

	if (q->id != 0) {
		struct stat sb;

		spec.flags |= JAIL_FORK_IDS;
		spec.uid = q->id;
		/* (with KVM, the group that may open /dev/kvm) */
		spec.gid = q->kvm && stat("/dev/kvm", &sb) == 0 ? sb.st_gid :
		    q->id;
	}
	pid = jail_fork(&spec, &failed);
	if (pid != 0)
		return pid;
	if (failed != NULL) {
		dprintf(2, "QEMU's child: %s: %s\n", failed, strerror(errno));
		_exit(127);
	}
	if (qemu_confine(q) == -1)
		_exit(127);
	{
		/* (nothing of the session's environment: QEMU needs none) */
		char *const env[] = { (char *)"PATH=/usr/bin:/bin",
		    (char *)"LANG=C.UTF-8", NULL };

		execve(argv[0], argv, env);
	}
	dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* The bundle's files: this program and its CPython module, shared with
 * the guest read-only as "worker", and console.log. */
static int
make_bundle(const char *dir, char *why, size_t n)
{
	char exe[PATH_MAX], module[PATH_MAX], worker[PATH_MAX];
	ssize_t len;

	len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (len <= 0 || (size_t)len >= sizeof exe - 1) {
		snprintf(why, n, "cannot find this program for the worker");
		return -1;
	}
	exe[len] = '\0';
	if (!bundle_join(worker, sizeof worker, dir, "worker") ||
	    mkdir(worker, 0755) == -1 ||
	    bundle_copy(exe, worker, "sandboxrepl") == -1) {
		snprintf(why, n, "bundle: the worker: %s", strerror(errno));
		return -1;
	}
	pyrun_module_path(module, sizeof module);
	if (module[0] != '\0' && bundle_copy(module, worker, MODULE_NAME) == -1) {
		snprintf(why, n, "bundle: %s: %s", MODULE_NAME,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* QEMU's command line, in the arena a (argv[], NULL-terminated). */
struct qemu_argv {
	char	*v[64];
	char	 buf[4096];
	size_t	 n, used;
};

static void
arg(struct qemu_argv *q, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
arg(struct qemu_argv *q, const char *fmt, ...)
{
	va_list ap;
	int len;

	if (q->n + 1 >= sizeof q->v / sizeof q->v[0])
		return;
	va_start(ap, fmt);
	len = vsnprintf(q->buf + q->used, sizeof q->buf - q->used, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof q->buf - q->used)
		return;
	q->v[q->n++] = q->buf + q->used;
	q->v[q->n] = NULL;
	q->used += (size_t)len + 1;
}

/* The host's CPU clock in kHz (its TSC's rate, near enough), from
 * /proc/cpuinfo; 2 GHz where it says nothing. */
static unsigned
host_khz(void)
{
	char line[256];
	double mhz = 0;
	FILE *f = fopen("/proc/cpuinfo", "re");

	while (f != NULL && mhz <= 0 && fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, "cpu MHz", 7) == 0 && strchr(line, ':'))
			mhz = strtod(strchr(line, ':') + 1, NULL);
	if (f != NULL)
		fclose(f);
	return mhz >= 100 && mhz < 100000 ? (unsigned)(mhz * 1000) : 2000000;
}

static void
qemu_args(struct qemu_argv *q, const char *qemu, const char *images,
    const char *bundle, bool kvm, int fail_at, uint64_t mem)
{
	q->n = q->used = 0;
	arg(q, "%s", qemu);
	arg(q, "-name");
	arg(q, "sandboxrepl-world");
	arg(q, "-M");
	arg(q, "microvm,x-option-roms=off");	/* (its RTC: the guest's clock
						   is the host's time) */
	arg(q, "-accel");
	arg(q, "%s", kvm ? "kvm" : "tcg");
	arg(q, "-cpu");
	arg(q, "%s", kvm ? "host" : "max");
	arg(q, "-smp");
	arg(q, "1");
	arg(q, "-m");
	arg(q, "%lluM", (unsigned long long)(MICROVM_MEM_BYTES >> 20));
	arg(q, "-nodefaults");
	arg(q, "-no-user-config");
	arg(q, "-display");
	arg(q, "none");
	arg(q, "-no-reboot");
	arg(q, "-nic");
	arg(q, "none");
	arg(q, "-kernel");
	arg(q, "%s/%s", images, KERNEL_NAME);
	arg(q, "-initrd");
	arg(q, "%s/%s", images, INITRD_NAME);
	arg(q, "-append");
	/* A panic reboots at once (panic=-1) by a triple fault (reboot=t),
	 * which -no-reboot makes QEMU's exit: the default way, ACPI's reset,
	 * left one guest in three hung after its panic here.
	 * Under TCG the guest's kernel cannot calibrate its TSC against a
	 * PIT that a loaded host emulates late, and hangs early in boot:
	 * it is told the TSC's rate, which under TCG is the host's. */
	if (kvm)
		arg(q, "console=ttyS0 quiet panic=-1 reboot=t -- %s %d %llu",
		    MICROVM_WORKER_FLAG, fail_at, (unsigned long long)mem);
	else
		arg(q, "console=ttyS0 quiet panic=-1 reboot=t "
		    "tsc_early_khz=%u tsc=reliable no_timer_check -- %s %d "
		    "%llu", host_khz(),
		    MICROVM_WORKER_FLAG, fail_at, (unsigned long long)mem);
	/* the console: console.log, descriptor 4 (opened by no path:
	 * Landlock grants QEMU none to write) */
	arg(q, "-add-fd");
	arg(q, "fd=4,set=2");
	arg(q, "-chardev");
	arg(q, "file,id=console,path=/dev/fdset/2,append=on");
	arg(q, "-serial");
	arg(q, "chardev:console");
	arg(q, "-fsdev");
	arg(q, "local,id=usr,path=/usr,security_model=none,readonly=on");
	arg(q, "-device");
	arg(q, "virtio-9p-device,fsdev=usr,mount_tag=usr");
	arg(q, "-fsdev");
	arg(q, "local,id=worker,path=%s/worker,security_model=none,"
	    "readonly=on", bundle);
	arg(q, "-device");
	arg(q, "virtio-9p-device,fsdev=worker,mount_tag=worker");
	arg(q, "-device");
	arg(q, "virtio-serial-device");
	arg(q, "-chardev");
	arg(q, "stdio,id=wire,signal=off");
	arg(q, "-device");
	arg(q, "virtserialport,chardev=wire,name=" WIRE_PORT);
	arg(q, "-chardev");
	arg(q, "socket,id=interrupt,fd=3");
	arg(q, "-device");
	arg(q, "virtserialport,chardev=interrupt,name=" INTERRUPT_PORT);
	arg(q, "-sandbox");
	arg(q, "on,obsolete=deny,elevateprivileges=deny,spawn=deny,"
	    "resourcecontrol=deny");
}

static int
microvm_spawn(int sock, int fail_at, uint64_t mem, struct microvm_proc *m,
    int *pidfd, char *why, size_t n)
{
	char qemu[PATH_MAX], images[PATH_MAX], path[PATH_MAX];
	const char *accel_why;
	struct jail_ids ids = { .uid = 0, .gid = 0, .lock_fd = -1 };
	struct qemu_child child;
	struct qemu_argv *argv;
	int errfd, irq[2];
	pid_t pid;

	memset(m, 0, sizeof *m);
	m->id_lock = m->irq = -1;
	*pidfd = -1;
	if (!find_qemu(qemu, sizeof qemu, why, n) ||
	    !find_images(images, sizeof images, why, n))
		return -1;
	m->kvm = microvm_accel(&accel_why) == MICROVM_KVM;
	if (geteuid() == 0) {
		char idwhy[200] = "";

		if (jail_ids_acquire(&ids, idwhy, sizeof idwhy) == -1) {
			snprintf(why, n, "the world's own id: %s%s%s", idwhy,
			    idwhy[0] ? ": " : "", strerror(errno));
			return -1;
		}
		m->id_lock = ids.lock_fd;
	}
	if ((m->dir = bundle_make(bundle_tmpdir(), "microvm", why, n)) == NULL ||
	    make_bundle(m->dir, why, n) == -1)
		goto fail;
	if (ids.uid != 0 && bundle_chown(m->dir, ids.uid) == -1) {
		snprintf(why, n, "bundle: chown to the world's id: %s",
		    strerror(errno));
		goto fail;
	}
	if (!bundle_join(path, sizeof path, m->dir, "console.log") ||
	    (errfd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) < 0) {
		snprintf(why, n, "bundle: console.log: %s", strerror(errno));
		goto fail;
	}
	if (ids.uid != 0 && fchown(errfd, ids.uid, ids.uid) == -1) {
		snprintf(why, n, "bundle: console.log: chown to the world's "
		    "id: %s", strerror(errno));
		close(errfd);
		goto fail;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, irq) == -1) {
		snprintf(why, n, "socketpair: %s", strerror(errno));
		close(errfd);
		goto fail;
	}
	argv = xcalloc(1, sizeof *argv);
	qemu_args(argv, qemu, images, m->dir, m->kvm, fail_at, mem);
	child = (struct qemu_child){ ids.uid, images, m->dir, m->kvm };
	m->uid = ids.uid;
	pid = fork_qemu(sock, irq[1], errfd, &child, argv->v);
	free(argv);
	close(errfd);
	close(irq[1]);
	m->irq = irq[0];
	if (pid < 0) {
		snprintf(why, n, "fork: %s", strerror(errno));
		goto fail;
	}
	m->pid = pid;
	*pidfd = (int)syscall(__NR_pidfd_open, pid, 0);
	if (*pidfd < 0) {
		snprintf(why, n, "pidfd_open: %s", strerror(errno));
		kill(pid, SIGKILL);
		microvm_reap(m);
		return -1;
	}
	return 0;
fail:
	microvm_reap(m);
	return -1;
}

static void
microvm_failure(const struct microvm_proc *m, char *why, size_t n)
{
	char buf[4096], *line, *end;
	char *said = NULL, *panic = NULL, *last = NULL;

	why[0] = '\0';
	if (bundle_tail(m->dir, "console.log", buf, sizeof buf) == 0)
		return;
	/* what the init or QEMU said; else the kernel's panic and the line
	 * before it, its cause (under quiet, the console has only warnings
	 * and errors); else the console's last line */
	for (line = buf; line != NULL && *line != '\0';) {
		end = strchr(line, '\n');
		if (end != NULL)
			*end = '\0';
		for (char *c = line; *c; c++)
			if ((unsigned char)*c < ' ')
				*c = ' ';
		for (char *c = line + strlen(line); c > line && c[-1] == ' ';)
			*--c = '\0';
		if (strncmp(line, "sandboxrepl-init: ", 18) == 0 ||
		    strncmp(line, "qemu-system-x86_64: ", 20) == 0)
			said = line;
		else if (strstr(line, "Kernel panic") != NULL) {
			if (panic == NULL)
				panic = line;
		} else if (strspn(line, " ") < strlen(line) && panic == NULL)
			last = line;
		line = end ? end + 1 : NULL;
	}
	if (said != NULL)
		snprintf(why, n, "%s", said);
	else if (panic != NULL && last != NULL)
		snprintf(why, n, "%s; %s", last, panic);
	else if (panic != NULL || last != NULL)
		snprintf(why, n, "%s", panic != NULL ? panic : last);
}

static void
microvm_interrupt(struct microvm_proc *m)
{
	/* (one byte on the interrupt port: the guest's relay signals its
	 * PID 1, which passes SIGINT on as in every world) */
	if (m->irq >= 0)
		(void)send(m->irq, "!", 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

static void
microvm_reap(struct microvm_proc *m)
{
	if (m->irq >= 0)
		close(m->irq);
	m->irq = -1;
	if (m->pid > 0)
		while (waitpid(m->pid, NULL, 0) == -1 && errno == EINTR)
			;
	m->pid = 0;
	bundle_remove(&m->dir);
	if (m->id_lock > 2)
		close(m->id_lock);
	m->id_lock = -1;
}

/* The launcher's calls (world_int.h) on a microvm_proc of the heap. */
static void *
launch_spawn(int sock, int fail_at, uint64_t mem, int *pidfd, char *why,
    size_t n)
{
	struct microvm_proc *m = xcalloc(1, sizeof *m);

	if (microvm_spawn(sock, fail_at, mem, m, pidfd, why, n) == -1) {
		free(m);
		return NULL;
	}
	return m;
}

static void
launch_failure(void *st, char *why, size_t n)
{
	microvm_failure(st, why, n);
}

static void
launch_interrupt(void *st)
{
	microvm_interrupt(st);
}

static void
launch_reap(void *st)
{
	microvm_reap(st);
	free(st);
}

/* A boot under TCG takes 10 s here, several times that on a loaded
 * machine; under KVM, well under one. */
static unsigned
launch_build_ms(void)
{
	return microvm_accel(NULL) == MICROVM_KVM ? 20000 : 120000;
}

const struct world_launcher world_microvm_launcher = {
	.name = "the microVM", .sandbox = "the microVM", .says = "its console",
	.layer = "microvm", .no_network = "the microVM has no network device",
	.inside = "inside the microVM", .build_ms = launch_build_ms,
	.detail = microvm_accel_words,
	.spawn = launch_spawn, .failure = launch_failure,
	.interrupt = launch_interrupt, .reap = launch_reap,
};

/* ---------------------------------------------------------------- */
/* the worker, PID 1 inside the guest                                 */
/* ---------------------------------------------------------------- */

/* The one refusal of a set-up (jail_int.h). */
#define refuse(sock, step, err, detail) \
	jail_refuse((sock), (step), (err), (detail))

/* The guest's serial port called name, opened: a descriptor, or -1. */
static int
open_port(const char *name)
{
	char want[64], got[64], dev[PATH_MAX];
	glob_t g;
	size_t i;
	int fd = -1;

	snprintf(want, sizeof want, "%s\n", name);
	if (glob("/sys/class/virtio-ports/*/name", 0, NULL, &g) != 0)
		return -1;
	for (i = 0; i < g.gl_pathc && fd < 0; i++) {
		int nf = open(g.gl_pathv[i], O_RDONLY | O_CLOEXEC);
		ssize_t len = nf >= 0 ? read(nf, got, sizeof got - 1) : -1;
		char *port;

		if (nf >= 0)
			close(nf);
		if (len <= 0)
			continue;
		got[len] = '\0';
		if (strcmp(got, want) != 0)
			continue;
		/* .../virtio-ports/vportNpM/name: /dev/vportNpM */
		*strrchr(g.gl_pathv[i], '/') = '\0';
		port = strrchr(g.gl_pathv[i], '/') + 1;
		snprintf(dev, sizeof dev, "/dev/%s", port);
		fd = open(dev, O_RDWR | O_CLOEXEC);
	}
	globfree(&g);
	return fd;
}

/* The worker's set-up as steps (jail_walk): its stage. */
struct worker {
	int		 sock;		/* the wire's port, then 3 */
	int		 irq;		/* the interrupt port */
	uint64_t	 mem;
};

static int
step_network(void *ctx, char *detail, size_t n)
{
	struct worker *wk = ctx;

	/* the wire first: every later refusal is said on it */
	wk->sock = open_port(WIRE_PORT);
	wk->irq = open_port(INTERRUPT_PORT);
	snprintf(detail, n, "the serial ports");
	return wk->sock < 0 || wk->irq < 0 ? -1 : 0;
}

/* The replica's /etc and mount points on the guest's root (a tmpfs the
 * init made), and root's copy of the CPython module (step_python). */
static int
step_rootfs(void *ctx, char *detail, size_t n)
{
	static const char *const dirs[] = {
		"/etc", "/etc/ssl", "/etc/ssl/certs", "/home", WORLD_HOME,
		"/root", "/var", "/var/tmp", "/run", "/tmp", WORLD_WORKSPACE,
	};
	size_t i;

	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
		if (mkdir(dirs[i], 0755) == -1 && errno != EEXIST) {
			snprintf(detail, n, "mkdir %s", dirs[i]);
			return -1;
		}
	for (i = 0; world_etc_files[i].path != NULL; i++)
		if (jail_write_text(world_etc_files[i].path,
		    world_etc_files[i].text, O_CREAT | O_EXCL) == -1) {
			snprintf(detail, n, "%s", world_etc_files[i].path);
			return -1;
		}
	if (access(WORKER_DIR "/" MODULE_NAME, F_OK) == 0 &&
	    bundle_copy(WORKER_DIR "/" MODULE_NAME, "/run", MODULE_NAME) == -1) {
		snprintf(detail, n, "%s", MODULE_COPY);
		return -1;
	}
	/* no network: an empty trust store, as in a jail world */
	if (jail_write_text("/etc/ssl/certs/ca-certificates.crt", "",
	    O_CREAT | O_EXCL) == -1 || symlink("/proc/self/fd", "/dev/fd")
	    == -1 || sethostname("world", 5) == -1) {
		snprintf(detail, n, "/etc, /dev/fd, hostname");
		return -1;
	}
	return 0;
}

static int
step_workspace(void *ctx, char *detail, size_t n)
{
	char ws[96], home[96], tmp[64];
	const unsigned long fl = MS_NOSUID | MS_NODEV;

	snprintf(ws, sizeof ws, "size=%u,uid=%d,gid=%d,mode=0755",
	    WORLD_WS_BYTES, WORLD_INNER_ID, WORLD_INNER_ID);
	snprintf(home, sizeof home, "size=1048576,uid=%d,gid=%d,mode=0755",
	    WORLD_INNER_ID, WORLD_INNER_ID);
	snprintf(tmp, sizeof tmp, "size=%u,mode=1777", WORLD_TMP_BYTES);
	if (mount("tmpfs", WORLD_WORKSPACE, "tmpfs", fl, ws) == -1 ||
	    mount("tmpfs", WORLD_HOME, "tmpfs", fl, home) == -1 ||
	    mount("tmpfs", "/tmp", "tmpfs", fl, tmp) == -1 ||
	    mount("tmpfs", "/var/tmp", "tmpfs", fl, tmp) == -1) {
		snprintf(detail, n, "tmpfs");
		return -1;
	}
	/* the root read-only: the agent writes only its tmpfs */
	if (mount(NULL, "/", NULL, MS_REMOUNT | MS_RDONLY | fl, NULL) == -1) {
		snprintf(detail, n, "the root read-only");
		return -1;
	}
	return 0;
}

/*
 * 0 /dev/null, 1 and 2 the output file, 3 the wire, 4 the output, 5 the
 * workspace, 6 the interrupt port; nothing else.
 */
static int
step_fds(void *ctx, char *detail, size_t n)
{
	struct worker *wk = ctx;
	int devnull, capfd, wsdir;

	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	capfd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	wsdir = open(WORLD_WORKSPACE, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (devnull < 0 || capfd < 0 || wsdir < 0 ||
	    fcntl(capfd, F_SETFL, O_APPEND) == -1 ||
	    chdir(WORLD_WORKSPACE) == -1)
		return -1;
	{
		const int keep[] = { devnull, capfd, capfd, wk->sock, capfd,
		    wsdir, wk->irq };

		if (jail_fds_keep(keep, sizeof keep / sizeof keep[0], 3) == -1)
			return -1;
	}
	wk->sock = 3;
	wk->irq = 6;
	(void)setsid();
	return 0;
}

/* CPython, with this program's module as the root file system's copy
 * (step_rootfs): pymod.c loads only a file of root's or its own, and the
 * share shows the host's owner. */
static int
step_python(void *ctx, char *detail, size_t n)
{
	int rc;

	if (access(MODULE_COPY, F_OK) == 0)
		(void)setenv("SANDBOXREPL_PYTHON_MODULE", MODULE_COPY, 1);
	rc = pyrun_init(detail, n);
	(void)unsetenv("SANDBOXREPL_PYTHON_MODULE");
	return rc;
}

static int
step_rlimits(void *ctx, char *detail, size_t n)
{
	return world_set_rlimits(jail_container(JAIL_CONTAINER_MICROVM),
	    ((struct worker *)ctx)->mem, jail_mapped_bytes());
}

/* The worker's set-up, walked once: the VM made the boundary, the init
 * the root; what is left is the world's own files, descriptors, CPython
 * and limits. */
static const struct jail_stepdef worker_steps[] = {
	{ JAIL_STEP_NETWORK,	step_network,	NULL },
	{ JAIL_STEP_ROOTFS,	step_rootfs,	NULL },
	{ JAIL_STEP_WORKSPACE,	step_workspace,	NULL },
	{ JAIL_STEP_FDS,	step_fds,	"the worker's descriptors" },
	{ JAIL_STEP_PYTHON,	step_python,	NULL },
	{ JAIL_STEP_RLIMITS,	step_rlimits,	NULL },
};

/* The interrupt port's relay: each byte the session sends is Ctrl-C,
 * passed to PID 1 as in every world. */
static void
start_relay(int irq)
{
	const char *failed;
	pid_t pid = jail_fork(NULL, &failed);
	char c[16];
	ssize_t got;

	if (pid != 0)
		return;
	for (;;) {
		got = read(irq, c, sizeof c);
		if (got > 0)
			(void)kill(1, WORLD_INTERRUPT_SIGNAL);
		else if (got == 0 || errno != EINTR)
			usleep(100000);
	}
}

/* The guest's environment: the worlds' own, nothing of the kernel's. */
static void
clean_env(void)
{
	(void)clearenv();
	(void)setenv("PATH", "/usr/bin:/bin", 1);
	(void)setenv("HOME", WORLD_HOME, 1);
	(void)setenv("LANG", "C.UTF-8", 1);
}

static void microvm_worker(int fail_at, uint64_t mem)
    __attribute__((noreturn));

static void
microvm_worker(int fail_at, uint64_t mem)
{
	char why[WW_MAX_DETAIL] = "";
	struct worker wk = { -1, -1, mem };
	const struct jail_walk walk = { fail_at, &wk.sock, why, sizeof why };
	const char *failed;
	pid_t interp;

	clean_env();
	jail_walk(&walk, worker_steps, sizeof worker_steps /
	    sizeof worker_steps[0], &wk);
	start_relay(wk.irq);
	if ((interp = jail_fork(NULL, &failed)) == -1)
		refuse(wk.sock, JAIL_STEP_PYTHON, errno, "fork");
	if (interp == 0) {
		world_interp_group();
		close(wk.irq);
		/* the agent user: no capabilities left, none to gain */
		if (jail_become(WORLD_INNER_ID, WORLD_INNER_ID) == -1)
			refuse(wk.sock, JAIL_STEP_CAPS, errno, "the agent");
		if (jail_no_new_privs() == -1)
			refuse(wk.sock, JAIL_STEP_NO_NEW_PRIVS, errno, NULL);
		pyrun_after_fork();
		if (jail_wire_send(wk.sock, WW_READY, NULL, 0, NULL, 0) == -1)
			_exit(0);
		pyrun_serve(wk.sock, 4, 5);
	}
	world_init_main(wk.sock, 4, 5, interp);
}

void
microvm_worker_main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], MICROVM_WORKER_FLAG) == 0 &&
	    getpid() == 1) {
		uint64_t mem = strtoull(argv[3], NULL, 10);
		microvm_worker(atoi(argv[2]), mem >= WORLD_MEM_MIN ? mem :
		    WORLD_MEM_BYTES);
	}
}
