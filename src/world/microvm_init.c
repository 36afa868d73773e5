/*
 * microvm_init.c -- PID 1 of the microVM world's guest (--jail=microvm).
 *
 * The kernel unpacks the initramfs the build makes (Makefile.am:
 * microvm/initramfs.img) and runs this as /init.  It is linked -static
 * against glibc's libc.a and nothing else: the initramfs holds no
 * libraries.  What it does, in order, is a contract with the runtime in
 * src/world/microvm.c, which starts QEMU with two virtio-9p shares, "usr"
 * (the host's /usr, read-only) and "worker" (a directory holding the
 * program the guest runs):
 *
 *   a. mount devtmpfs, proc and sysfs, which the steps below need;
 *   b. load the modules listed in /modules/order (9p, virtio_mmio, ...:
 *      Debian's generic kernel builds them as modules), in that order;
 *   c. mount a tmpfs at /sysroot, the shares at /sysroot/usr and
 *      /sysroot/worker, read-only, no device files, no set-uid;
 *   d. make /sysroot a usr-merged root (bin -> usr/bin, ...) and move
 *      /dev, /proc and /sys into it;
 *   e. switch the root to /sysroot (the initramfs stays underneath,
 *      unreachable: a tmpfs root cannot be unmounted, only moved over);
 *   f. exec /worker/sandboxrepl with the arguments the kernel passes init
 *      (what follows "--" on its command line).
 *
 * Every call is checked.  On any failure it writes one line
 * "sandboxrepl-init: <step>: <strerror>" to /dev/console -- the runtime
 * reads the console log's last line to say why a boot failed -- and
 * powers the machine off.  It never goes on with a step missing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SHARE_OPTIONS "trans=virtio,version=9p2000.L,cache=loose,msize=512000"
#define SHARE_FLAGS (MS_RDONLY | MS_NOSUID | MS_NODEV)
#define SHARE_WAIT_MS 3000	/* how long a share's device may take to appear */

/* Say which step failed, with errno's words, and power off.  Called with
 * errno still set by the failing call. */
__attribute__((noreturn)) static void die(const char *step)
{
	const char *why = strerror(errno);
	int fd = open("/dev/console", O_WRONLY | O_NOCTTY | O_CLOEXEC);

	/* the kernel's own /dev/console until /dev is mounted; stderr is
	 * the console too, should it be missing */
	dprintf(fd >= 0 ? fd : 2, "sandboxrepl-init: %s: %s\n", step, why);
	sync();
	reboot(RB_POWER_OFF);
	_exit(1);	/* PID 1 exiting panics the kernel, which panic=-1 ends */
}

static void check(int rc, const char *step)
{
	if (rc != 0)
		die(step);
}

/* mkdir that accepts a directory the initramfs already holds. */
static void make_dir(const char *path, const char *step)
{
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		die(step);
}

/* b. Each line of /modules/order is a module's path; the build lists them
 * in dependency order (modprobe --show-depends), so finit_module needs no
 * resolver here.  EEXIST: the kernel already has it. */
static void load_modules(void)
{
	char line[512];
	FILE *order = fopen("/modules/order", "re");

	if (order == NULL)
		die("open /modules/order");
	while (fgets(line, sizeof line, order) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '\0')
			continue;
		int fd = open(line, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die(line);
		if (syscall(SYS_finit_module, fd, "", 0) != 0 && errno != EEXIST)
			die(line);
		close(fd);
	}
	if (ferror(order))
		die("read /modules/order");
	fclose(order);
}

/* c. A 9p share by its tag.  The virtio-mmio device may probe after the
 * module loads: while the kernel says there is no such tag (ENOENT) or no
 * transport yet (ENODEV), retry for up to SHARE_WAIT_MS. */
static void mount_share(const char *tag, const char *target, const char *step)
{
	const struct timespec pause = { 0, 10 * 1000 * 1000 };

	for (int waited = 0;; waited += 10) {
		if (mount(tag, target, "9p", SHARE_FLAGS, SHARE_OPTIONS) == 0)
			return;
		if ((errno != ENOENT && errno != ENODEV) || waited >= SHARE_WAIT_MS)
			die(step);
		nanosleep(&pause, NULL);
	}
}

int main(int argc, char **argv)
{
	/* a. the kernel's file systems, for the console, modules and 9p */
	make_dir("/dev", "mkdir /dev");
	make_dir("/proc", "mkdir /proc");
	make_dir("/sys", "mkdir /sys");
	check(mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755"),
	    "mount /dev");
	check(mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    NULL), "mount /proc");
	check(mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    NULL), "mount /sys");

	/* b. virtio transport, console and 9p */
	load_modules();

	/* c. the new root: a tmpfs with the two shares in it */
	make_dir("/sysroot", "mkdir /sysroot");
	check(mount("sysroot", "/sysroot", "tmpfs", MS_NOSUID | MS_NODEV,
	    "mode=0755,size=64m"), "mount /sysroot");
	make_dir("/sysroot/usr", "mkdir /sysroot/usr");
	make_dir("/sysroot/worker", "mkdir /sysroot/worker");
	mount_share("usr", "/sysroot/usr", "mount usr");
	mount_share("worker", "/sysroot/worker", "mount worker");

	/* d. a usr-merged root, as Debian's, and the kernel's file systems */
	check(symlink("usr/bin", "/sysroot/bin"), "symlink bin");
	check(symlink("usr/lib", "/sysroot/lib"), "symlink lib");
	check(symlink("usr/lib64", "/sysroot/lib64"), "symlink lib64");
	check(symlink("usr/sbin", "/sysroot/sbin"), "symlink sbin");
	make_dir("/sysroot/dev", "mkdir /sysroot/dev");
	make_dir("/sysroot/proc", "mkdir /sysroot/proc");
	make_dir("/sysroot/sys", "mkdir /sysroot/sys");
	check(mount("/dev", "/sysroot/dev", NULL, MS_MOVE, NULL), "move /dev");
	check(mount("/proc", "/sysroot/proc", NULL, MS_MOVE, NULL), "move /proc");
	check(mount("/sys", "/sysroot/sys", NULL, MS_MOVE, NULL), "move /sys");

	/* e. switch root: move the tmpfs over / and enter it */
	check(chdir("/sysroot"), "chdir /sysroot");
	check(mount(".", "/", NULL, MS_MOVE, NULL), "move /sysroot");
	check(chroot("."), "chroot");
	check(chdir("/"), "chdir /");

	/* f. the worker, with init's own arguments after its name */
	argv[0] = "/worker/sandboxrepl";
	execv(argv[0], argv);
	die("exec /worker/sandboxrepl");
}
