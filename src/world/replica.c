/*
 * replica.c -- building a replica world: the jail's discipline, with the
 * code's boundary left out and the host's kept.
 *
 *   warden  the zygote's child.  Takes its host ids (jail_ids: as root a
 *           uid no account uses, else the caller's own), leaves uid 0,
 *           asks to die with the zygote, unshares the user, mount, pid,
 *           network, ipc and uts namespaces in one call, maps the agent
 *           user (1000 inside) to its host id, clears dumpable, and forks
 *           PID 1.  It stays outside the pid namespace, waits for PID 1
 *           and ends with it; the session ends a world by killing it
 *           (PID 1 dies with it, and everything in the pid namespace with
 *           PID 1).
 *   pid1    the interpreter.  Its rlimits first (the world's budget:
 *           every process forked after inherits them); private mounts; a
 *           new root on
 *           a small tmpfs: the host's /usr read-only (nosuid, nodev; /bin,
 *           /lib, /lib64 and /sbin as usrmerge's links), a replica /etc
 *           (an agent user, hosts, resolv.conf naming 127.0.0.1,
 *           nsswitch.conf, the fake internet's CA; the host's
 *           alternatives, openssl.cnf and python3.11 read-only), /dev with null, zero, full, random and
 *           urandom bound from the host, /proc of the new pid namespace,
 *           /tmp, HOME (/home/agent) and the workspace (/workspace, where
 *           the model's os.getcwd() says it is) as capped tmpfs; then
 *           pivot_root, the root remounted read-only, the workspace as
 *           working directory; inside it, the network namespace's fake
 *           internet where the kind has one (its description, jail.h;
 *           the others leave the namespace empty) (fakenet.h: every address and name
 *           answered, a sink capturing what was sent, HTTPS decrypted
 *           with the zygote's CA, which is the replica's whole trust
 *           store; its helpers with / as working directory, a session
 *           of their own and seccomp filters); descriptors 0
 *           on /dev/null, 1 and 2 on the output file, 3 the session's socket, nothing else; a
 *           new session; every capability dropped; no_new_privs; the
 *           seccomp denylist (below).  Then it says "ready" and serves.
 *
 * Each process's set-up is its rows of the one list of set-up steps
 * every container walks (jail_contain, jail_int.h; the model-engine
 * jail's too), for its kind's description (jail.h's JAIL_CONTAINERS),
 * with the worlds' own calls (world_ops), the description deciding
 * inside a step; the first that fails, or that the fail_at hook names, is refused: the step, errno and
 * detail go to the session on the world's socket and the process exits.
 * No code runs in a world whose set-up did not finish.
 *
 * The seccomp filter allows by default (this is the unsafe path: execve,
 * sockets and every coreutil work) and refuses, with EPERM so the code
 * gets an OSError and the world lives on, the kernel surface nothing in
 * a replica needs: io_uring, bpf, userfaultfd, perf_event_open, keys,
 * mounts, new namespaces (unshare, setns, clone with CLONE_NEW*),
 * ptrace, process_vm_*, kexec, modules, TIOCSTI; clone3 answers ENOSYS
 * so glibc falls back to clone, whose flags the filter can see.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
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
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "fakenet.h"
#include "jail/jail_ids.h"
#include "world.h"
#include "jail/jail_int.h"
#include "wire.h"
#include "world_int.h"
#include "jail/jail_sys.h"

/* The new root is built here, in the private mount namespace. */
#define NEWROOT		"/tmp"

const char *
world_step_name(enum jail_step s)
{
	const char *w = jail_step_word(s, JAIL_SETUP_WORLD);

	return w != NULL ? w : "unknown";
}

struct stage {
	struct jail_warden w;	/* (first: jail_step_id_maps' ctx) */
	struct jail_ids ids;	/* the warden's host ids (jail_ids.h) */
	int	sock;		/* the session's socket */
	int	cap_wr, ctl_rd;	/* the fake internet's pipes (fakenet.h) */
	struct fakenet fn;
	int	fail_at;
	bool	given;		/* ids held by the zygote, not acquired */
	const struct jail_container *c;	/* its kind's (world_kind_container) */
	int	devnull;
	int	capfd;		/* fds 1 and 2: the output file */
	int	wsdir;		/* the workspace */
	uint64_t as_base;
	char	detail[WW_MAX_DETAIL];
};

/* The one refusal and test hook of a set-up (jail_int.h): the step,
 * errno and st's detail to the session on the world's socket. */
#define refuse(st, step, err) \
	jail_refuse((st)->sock, (step), (err), (st)->detail)
#define injected(st, step) jail_injected((st)->fail_at, (step))

/* ---------------------------------------------------------------- */
/* warden                                                            */
/* ---------------------------------------------------------------- */

/* The worlds' memory cgroup (jail_cgroup.c), found once in the zygote:
 * "" when this machine or caller has none; cgroup_broken when it has one
 * that could not be set up (every world refuses then). */
static char cgroup_dir[PATH_MAX];
static bool cgroup_broken;

int
replica_cgroup_prepare(char *why, size_t n)
{
	int rc = jail_cgroup_prepare(cgroup_dir, sizeof cgroup_dir, why, n);

	cgroup_broken = rc == -1;
	return rc == -1 ? -1 : 0;
}

bool
replica_ids_poolable(void)
{
	return geteuid() == 0 && !cgroup_broken && cgroup_dir[0] != '\0';
}

/*
 * What an emptied world's cgroup may keep charged for the next world:
 * after the essay's input, 56 KiB -- kernel objects freed lazily and
 * page cache of the host's files the world read first (its own tmpfs
 * pages went with its mounts), shared with the host and read-only in
 * every world; the kernel reclaims both before it refuses the next
 * world memory.  Reclaiming them at once (memory.force_empty: it drains
 * every CPU's page lists and retries the reclaim until nothing is left,
 * which the kernel objects never are) cost 7% of a back-to-back burst's
 * CPU, in the zygote, on the way to the next world's fork, and evicted
 * from the page cache the files the next world reads again.  More than
 * this is cleaned, as before.
 */
#define REUSE_LEFT_BYTES	(8ull << 20)

/*
 * Every process of a world is in its memory cgroup, jail-<uid> (the
 * warden enters it before it forks anything, step_memcg, and nothing in
 * a world may move itself); so once its warden has ended, an empty
 * cgroup.procs there (or no cgroup: the warden ended before it made one,
 * and had forked nothing) says no process of that world is left, and
 * the id is as unused as the scan of jail_ids_acquire would find it.
 */
bool
replica_id_reusable(unsigned uid)
{
	char path[PATH_MAX + 64], c;
	ssize_t r;
	int fd;

	if (!replica_ids_poolable())
		return false;
	snprintf(path, sizeof path, "%s/jail-%u/cgroup.procs", cgroup_dir,
	    uid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	r = read(fd, &c, 1);
	close(fd);
	if (r != 0)
		return false;
	/* cleaned, when its last world left much charged (cgroup v1 keeps
	 * the page cache and kernel memory of an emptied cgroup), so the
	 * next world has its whole budget; v2 has no such files */
	if (jail_cgroup_charged(cgroup_dir, uid) <= REUSE_LEFT_BYTES)
		return true;
	snprintf(path, sizeof path, "%s/jail-%u/memory.force_empty",
	    cgroup_dir, uid);
	return jail_write_text(path, "0", O_NOFOLLOW) == 0 || errno == ENOENT;
}

void
replica_id_forget(unsigned uid)
{
	if (replica_ids_poolable())
		jail_cgroup_remove(cgroup_dir, uid);
}

/* This world's memory budget (--memory: zygote.c's request), bytes. */
static uint64_t world_mem = WORLD_MEM_BYTES;

/*
 * Still root: put the warden, and so every process of the world, in a
 * memory cgroup of its own named by its unique id (reused by the next
 * world with that id), capped at its budget (world_mem), and bounded to one
 * core's worth of CPU (jail_cgroup.c).  The cgroup lives as long as the
 * world, so what the processes an input leaves behind hold and burn
 * between inputs is counted too.  Nothing to do where the machine has no
 * cgroup to give (the rlimits bound the world: world_set_rlimits); a
 * failure where it has one refuses.
 */
static int
step_memcg(struct stage *st, const struct jail_ids *ids)
{
	if (cgroup_broken) {
		snprintf(st->detail, sizeof st->detail, "memory cgroup set-up");
		errno = EIO;
		return -1;
	}
	if (geteuid() != 0)
		return 0;
	if (cgroup_dir[0] == '\0')
		return jail_cgroup_cpu_enter((unsigned)ids->uid, st->detail,
		    sizeof st->detail);
	return jail_cgroup_enter(cgroup_dir, (unsigned)ids->uid,
	    world_mem, st->detail, sizeof st->detail);
}

static int
step_ids(void *ctx, char *detail, size_t n)
{
	struct stage *st = ctx;

	if (!st->given && jail_ids_acquire(&st->ids, st->detail,
	    sizeof st->detail) == -1)
		return -1;
	if (injected(st, JAIL_STEP_CGROUP) || step_memcg(st, &st->ids) == -1) {
		int saved = errno;

		refuse(st, JAIL_STEP_CGROUP, saved);
	}
	st->w.uid = st->ids.uid;
	st->w.gid = st->ids.gid;
	return jail_become(st->ids.uid, st->ids.gid);
}

/* ---------------------------------------------------------------- */
/* pid1: the network                                                  */
/* ---------------------------------------------------------------- */

/* The fake internet's CA: made once in the zygote (replica_compile). */
static struct fakenet_ca *fake_ca;

/*
 * The fake internet (fakenet.h): loopback, every address routed to it,
 * dnsmasq answering every name, the sink capturing what was sent, HTTPS
 * decrypted with the zygote's CA.  The capture pipes' other ends are the
 * session's: fakenet_start() hands ours to the sink and closes them here,
 * so the code can neither read nor forge captures.  It is started once
 * the new root is in place (its helpers' working directory, root and
 * descriptors are the world's, fakenet.h) and waited for after the
 * limits are set (step_network_wait).
 */
/* A fake internet's call's rc as a step's: -1 always with an errno
 * (EIO where the call set none). */
static int
fakenet_step(int rc)
{
	if (rc == -1 && errno == 0)
		errno = EIO;
	return rc == -1 ? -1 : 0;
}

static int
step_network(void *ctx, char *detail, size_t n)
{
	struct stage *st = ctx;
	struct fakenet_config cfg;

	if (st->c->net != JAIL_NET_FAKE)
		return 0;	/* (its network namespace stays empty) */
	memset(&cfg, 0, sizeof cfg);
	cfg.ca = fake_ca;
	cfg.outside = 1;
	cfg.capture_wr = st->cap_wr;
	cfg.ctl_rd = st->ctl_rd;
	st->cap_wr = st->ctl_rd = -1;	/* consumed, whatever happens */
	return fakenet_step(fakenet_start(&cfg, &st->fn, st->detail,
	    sizeof st->detail));
}

/* Both answer (a kind with no fake internet: nothing to wait for). */
static int
step_network_wait(void *ctx, char *detail, size_t n)
{
	struct stage *st = ctx;

	if (st->c->net != JAIL_NET_FAKE)
		return 0;
	return fakenet_step(fakenet_wait(&st->fn, st->detail,
	    sizeof st->detail));
}

/* ---------------------------------------------------------------- */
/* pid1: the root                                                     */
/* ---------------------------------------------------------------- */

/* The flags a read-only bind remount must keep (locked in a user ns). */
static unsigned long
locked_flags(const char *path)
{
	struct statvfs sv;
	unsigned long f = 0;

	if (statvfs(path, &sv) == -1)
		return 0;
	if (sv.f_flag & ST_NOSUID)
		f |= MS_NOSUID;
	if (sv.f_flag & ST_NODEV)
		f |= MS_NODEV;
	if (sv.f_flag & ST_NOEXEC)
		f |= MS_NOEXEC;
	if (sv.f_flag & ST_NOATIME)
		f |= MS_NOATIME;
	if (sv.f_flag & ST_NODIRATIME)
		f |= MS_NODIRATIME;
	if (sv.f_flag & ST_RELATIME)
		f |= MS_RELATIME;
	return f;
}

/* Bind host path src read-only (nosuid, nodev) at dst inside the root. */
static int
bind_ro(struct stage *st, const char *src, const char *dst, bool is_dir,
    bool optional)
{
	char path[256];
	struct stat sb;

	snprintf(path, sizeof path, NEWROOT "%s", dst);
	if (stat(src, &sb) == -1) {
		if (optional)
			return 0;
		snprintf(st->detail, sizeof st->detail, "%s", src);
		return -1;
	}
	if (is_dir ? mkdir(path, 0755) == -1 && errno != EEXIST :
	    jail_write_text(path, "", O_CREAT | O_EXCL) == -1) {
		snprintf(st->detail, sizeof st->detail, "make %s", dst);
		return -1;
	}
	if (mount(src, path, NULL, MS_BIND | MS_REC, NULL) == -1 ||
	    mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY |
	    MS_NOSUID | MS_NODEV | locked_flags(path), NULL) == -1) {
		snprintf(st->detail, sizeof st->detail, "bind %s", src);
		return -1;
	}
	return 0;
}

/* A device node bound from the host (mknod is not allowed here). */
static int
bind_dev(struct stage *st, const char *name)
{
	char src[64], dst[96];

	snprintf(src, sizeof src, "/dev/%s", name);
	snprintf(dst, sizeof dst, NEWROOT "/dev/%s", name);
	if (jail_write_text(dst, "", O_CREAT | O_EXCL) == -1 ||
	    mount(src, dst, NULL, MS_BIND, NULL) == -1) {
		snprintf(st->detail, sizeof st->detail, "bind %s", src);
		return -1;
	}
	return 0;
}

static int
mount_tmpfs(struct stage *st, const char *dst, const char *opts,
    unsigned long flags)
{
	char path[128];

	snprintf(path, sizeof path, NEWROOT "%s", dst);
	if ((mkdir(path, 0755) == -1 && errno != EEXIST) ||
	    mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | flags,
	    opts) == -1) {
		snprintf(st->detail, sizeof st->detail, "tmpfs %s", dst);
		return -1;
	}
	return 0;
}

const struct world_etc_file world_etc_files[] = {
	{ "/etc/passwd",
	  "root:x:0:0:root:/root:/bin/sh\n"
	  "agent:x:1000:1000:agent:/home/agent:/bin/sh\n"
	  "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n" },
	{ "/etc/group", "root:x:0:\nagent:x:1000:\nnogroup:x:65534:\n" },
	{ "/etc/hosts", "127.0.0.1\tlocalhost\n127.0.1.1\treplica\n"
	  "::1\tlocalhost ip6-localhost ip6-loopback\n" },
	{ "/etc/hostname", "world\n" },
	{ "/etc/resolv.conf", "nameserver 127.0.0.1\n"
	  "options attempts:1 timeout:1\n" },
	{ "/etc/nsswitch.conf", "passwd: files\ngroup: files\n"
	  "hosts: files dns\nnetworks: files\nprotocols: files\n"
	  "services: files\n" },
	{ NULL, NULL },
};

static int
step_rootfs(void *ctx, char *detail, size_t n)
{
	struct stage *st = ctx;
	static const char *const links[][2] = {
		{ "usr/bin", "/bin" }, { "usr/lib", "/lib" },
		{ "usr/lib64", "/lib64" }, { "usr/sbin", "/sbin" },
		{ "/proc/self/fd", "/dev/fd" },
		{ "/proc/self/fd/0", "/dev/stdin" },
		{ "/proc/self/fd/1", "/dev/stdout" },
		{ "/proc/self/fd/2", "/dev/stderr" },
	};
	static const char *const devs[] = {
		"null", "zero", "full", "random", "urandom",
	};
	static const char *const dirs[] = {
		"/etc", "/etc/ssl", "/home", "/root", "/dev", "/proc", "/var",
		"/var/tmp", "/run",
	};
	const char *pem;
	char opts[96], path[128];
	size_t i;

	snprintf(opts, sizeof opts, "size=%u,nr_inodes=512,mode=0755",
	    WORLD_ROOT_BYTES);
	if (mount("tmpfs", NEWROOT, "tmpfs", MS_NOSUID | MS_NODEV,
	    opts) == -1) {
		snprintf(st->detail, sizeof st->detail, "root tmpfs");
		return -1;
	}
	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		snprintf(path, sizeof path, NEWROOT "%s", dirs[i]);
		if (mkdir(path, 0755) == -1) {
			snprintf(st->detail, sizeof st->detail, "mkdir %s",
			    dirs[i]);
			return -1;
		}
	}
	if (bind_ro(st, "/usr", "/usr", true, false) == -1)
		return -1;
	for (i = 0; i < sizeof links / sizeof links[0]; i++) {
		snprintf(path, sizeof path, NEWROOT "%s", links[i][1]);
		if (symlink(links[i][0], path) == -1) {
			snprintf(st->detail, sizeof st->detail, "link %s",
			    links[i][1]);
			return -1;
		}
	}
	for (i = 0; world_etc_files[i].path != NULL; i++) {
		snprintf(path, sizeof path, NEWROOT "%s",
		    world_etc_files[i].path);
		if (jail_write_text(path, world_etc_files[i].text,
		    O_CREAT | O_EXCL) == -1) {
			snprintf(st->detail, sizeof st->detail, "%s",
			    world_etc_files[i].path);
			return -1;
		}
	}
	/* The trust store holds the fake internet's CA, and only it:
	 * nothing real is reachable (fakenet.h). */
	pem = st->c->net == JAIL_NET_FAKE && fake_ca != NULL ?
	    fakenet_ca_pem(fake_ca) : NULL;
	if (mkdir(NEWROOT "/etc/ssl/certs", 0755) == -1 ||
	    jail_write_text(NEWROOT "/etc/ssl/certs/ca-certificates.crt",
	    pem != NULL ? pem : "", O_CREAT | O_EXCL)
	    == -1) {
		snprintf(st->detail, sizeof st->detail, "the trust store");
		return -1;
	}
	if (bind_ro(st, "/etc/ssl/openssl.cnf", "/etc/ssl/openssl.cnf", false,
	    true) == -1 ||
	    bind_ro(st, "/etc/alternatives", "/etc/alternatives", true,
	    true) == -1 ||
	    bind_ro(st, "/etc/python3.11", "/etc/python3.11", true, true) == -1)
		return -1;
	for (i = 0; i < sizeof devs / sizeof devs[0]; i++)
		if (bind_dev(st, devs[i]) == -1)
			return -1;
	if (mount_tmpfs(st, "/dev/shm", "size=1m,mode=1777", MS_NOEXEC) == -1)
		return -1;
	snprintf(opts, sizeof opts, "size=%u,nr_inodes=4096,mode=1777",
	    WORLD_TMP_BYTES);
	if (mount_tmpfs(st, "/tmp", opts, 0) == -1)
		return -1;
	if (mount("proc", NEWROOT "/proc", "proc", MS_NOSUID | MS_NODEV |
	    MS_NOEXEC, NULL) == -1) {
		snprintf(st->detail, sizeof st->detail, "proc");
		return -1;
	}
	return 0;
}

static int
step_workspace(void *ctx, char *detail, size_t n)
{
	struct stage *st = ctx;
	char opts[96];

	snprintf(opts, sizeof opts, "size=%u,nr_inodes=%u,mode=0755",
	    WORLD_WS_BYTES, WORLD_WS_INODES);
	if (mkdir(NEWROOT WORLD_HOME, 0755) == -1 ||
	    mount_tmpfs(st, WORLD_HOME, "size=1m,nr_inodes=64,mode=0755", 0)
	    == -1)
		return -1;
	return mount_tmpfs(st, WORLD_WORKSPACE, opts, 0);
}

static int
step_pivot_root(void *ctx, char *detail, size_t n)
{
	struct stage *st = ctx;

	if (jail_pivot_root(NEWROOT, st->detail, sizeof st->detail) == -1)
		return -1;
	if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY |
	    MS_NOSUID | MS_NODEV, NULL) == -1) {
		snprintf(st->detail, sizeof st->detail, "read-only root");
		return -1;
	}
	if (chdir(WORLD_WORKSPACE) == -1)
		return -1;
	if (jail_cwd_is(WORLD_WORKSPACE) == -1) {
		snprintf(st->detail, sizeof st->detail, "cwd outside");
		return -1;
	}
	st->wsdir = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return st->wsdir < 0 ? -1 : 0;
}

/* ---------------------------------------------------------------- */
/* pid1: limits and layers                                            */
/* ---------------------------------------------------------------- */

/*
 * One budget per world that holds without a cgroup too: at most
 * WORLD_NPROC tasks (RLIMIT_NPROC counts per user and user namespace, and
 * every world has a user namespace of its own, and as root an id of its
 * own too: jail_ids.h), each of at most the base plus world_as_over()
 * of its budget (world_mem) of address space, each of at most
 * WORLD_CPU_SECONDS of CPU over its life.  So a world holds at most
 * WORLD_NPROC x (base + world_as_over(world_mem)) -- 12 x 64 MiB,
 * WORLD_MEM_BYTES at the default --memory, with CPython's base of
 * about 24 MiB --
 * and burns at most WORLD_NPROC x WORLD_CPU_SECONDS, whatever it leaves
 * running between inputs.  A cgroup, where there is one, bounds the sum
 * at any moment as well: step_memcg.
 */
int
world_set_rlimits(const struct jail_container *c, uint64_t mem,
    uint64_t as_base)
{
	const struct jail_limits lim = {
		.as_bytes = world_as_over(mem),
		.cpu_seconds = WORLD_CPU_SECONDS, .nproc = WORLD_NPROC,
		.fsize_bytes = WORLD_FSIZE_BYTES, .nofile = WORLD_NOFILE,
		.within = c->limits == JAIL_LIMITS_WITHIN,
	};

	if (c->limits == JAIL_LIMITS_JAIL) {	/* (not a world's budget) */
		errno = EINVAL;
		return -1;
	}
	return jail_set_rlimits(&lim, as_base);
}

/* 0 /dev/null, 1 and 2 the output file, 3 the socket, nothing else. */
static int
step_fds(void *ctx, char *detail, size_t n)
{
	struct stage *st = ctx;
	int *const keep[] = { &st->devnull, &st->capfd, &st->capfd,
	    &st->sock, &st->capfd, &st->wsdir };

	st->capfd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (st->capfd < 0 || fcntl(st->capfd, F_SETFL, O_APPEND) == -1)
		return -1;
	/* (3, 4 and 5 close-on-exec: the programs the code runs get 0-2) */
	if (jail_fresh(keep, 6, 3) == -1)
		return -1;
	{
		/* (where it cannot be had, the interpreter tells nothing of
		 * the processes it could not start) */
		int lp = open("/proc/sys/kernel/ns_last_pid",
		    O_RDONLY | O_CLOEXEC);
		if (lp >= 0 && lp != WORLD_LASTPID_FD) {
			(void)dup3(lp, WORLD_LASTPID_FD, O_CLOEXEC);
			close(lp);
		}
	}
	return 0;
}

static const char *const denied_calls[] = {
	"io_uring_setup", "io_uring_enter", "io_uring_register", "bpf",
	"userfaultfd", "perf_event_open", "keyctl", "add_key", "request_key",
	"mount", "umount2", "pivot_root", "move_mount", "open_tree",
	"fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
	"unshare", "setns", "ptrace", "process_vm_readv",
	"process_vm_writev", "pidfd_getfd", "kexec_load", "kexec_file_load",
	"init_module", "finit_module", "delete_module", "acct", "swapon",
	"swapoff", "reboot", "syslog", "quotactl", "name_to_handle_at",
	"open_by_handle_at", "lookup_dcookie", "iopl", "ioperm",
	/* memory pinned outside the address space the rlimit caps, and
	 * the LDT: as in the jail (jail_seccomp.c, issue 14 finding 7) */
	"shmget", "shmat", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl",
	"semget", "semop", "semtimedop", "semctl", "mq_open",
	"mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
	"modify_ldt",
};

/*
 * The filter is the same for every world: compiled once, in the zygote
 * (replica_compile, by the jail's one compiler), and only loaded by each
 * PID 1.
 */
static struct jail_bpf world_filter;

/* The denylist's rules (jail_seccomp_compile_rules); what failed in
 * why[] (struct filter_why). */
struct filter_why {
	char	*why;
	size_t	 n;
};

static int
build_filter(void *ctx, void *arg)
{
	static const unsigned long ns_flags[] = {
		CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET,
		CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWCGROUP,
	};
	struct filter_why *fw = arg;
	size_t i;
	int rc = 0, nr;

	for (i = 0; rc == 0 && i < sizeof denied_calls / sizeof
	    denied_calls[0]; i++) {
		nr = seccomp_syscall_resolve_name(denied_calls[i]);
		if (nr == __NR_SCMP_ERROR)
			continue;	/* not on this architecture */
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
		if (rc != 0)
			snprintf(fw->why, fw->n, "seccomp rule for %s",
			    denied_calls[i]);
	}
	for (i = 0; rc == 0 && i < sizeof ns_flags / sizeof ns_flags[0]; i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ,
		    ns_flags[i], ns_flags[i]));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
		    SCMP_SYS(clone3), 0);
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_EQ, TIOCSTI));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_EQ, TIOCLINUX));
	if (rc != 0) {
		errno = -rc;
		return -1;
	}
	return 0;
}

int
replica_compile(char *why, size_t n)
{
	struct filter_why fw = { why, n };

	/* OpenSSL's start-up costs milliseconds: once, not per world */
	fake_ca = fakenet_ca_new(why, n);
	if (fake_ca == NULL || fakenet_prepare(why, n) == -1)
		return -1;
	if (jail_seccomp_compile_rules(&world_filter, build_filter, &fw)
	    == -1) {
		if (why[0] == '\0')
			snprintf(why, n, "seccomp filter: %s",
			    strerror(errno));
		return -1;
	}
	return 0;
}

/* The kind's filter (its description's): a jail world's supervised one
 * (jailkind.c), or the replicas' denylist.  (no_new_privs is already
 * set: the step before) */
static int
step_seccomp(void *ctx, char *detail, size_t n)
{
	struct stage *st = ctx;

	switch (st->c->seccomp) {
	case JAIL_FILTER_NOTIFY:
		return jailkind_seccomp(detail, n);
	case JAIL_FILTER_DENYLIST:
		return jail_seccomp_load(&world_filter);
	default:		/* a world without a filter: never */
		errno = EINVAL;
		return -1;
	}
}

/* The kind's Landlock rules: a jail world's (jailkind.c), or none. */
static int
step_landlock(void *ctx, char *detail, size_t n)
{
	struct stage *st = ctx;

	if (st->c->landlock == JAIL_RULES_JAIL_WORLD)
		return jailkind_landlock(detail, n);
	if (st->c->landlock != JAIL_RULES_NONE)
		errno = EINVAL;	/* (no rules of a world's are the jail's) */
	return st->c->landlock == JAIL_RULES_NONE ? 0 : -1;
}

/* ---------------------------------------------------------------- */
/* the two processes                                                  */
/* ---------------------------------------------------------------- */

/*
 * PID 1 once the interpreter runs: what init is in any pid namespace --
 * the reaper of every orphan (a shell's background job, the code's own
 * forks), immune to the signals its namespace sends it -- and the one
 * that tells how the interpreter ended.  The interpreter is not PID 1
 * because PID 1 cannot be killed from inside: os.kill(os.getpid(), 9)
 * must kill it, as at a student's prompt (bwrap's python3 is PID 2 too).
 * When it ends, by SystemExit, a signal or os._exit, PID 1 sends what it
 * left in the workspace and its output (pyrun_ended: plain C, no Python)
 * and its wait status, and exits once the session has read the fake
 * internet's captures: the namespace and everything in it go.
 */
/*
 * Ctrl-C (world.h's world_interrupt): the session signals the warden
 * (WORLD_INTERRUPT_SIGNAL through its pidfd), the warden passes the
 * signal on to PID 1 (a signal from outside its namespace reaches an
 * init only when it has a handler), and PID 1 sends SIGINT to the
 * interpreter's process group: the interpreter (KeyboardInterrupt) and
 * the programs it runs in the foreground, as a terminal's Ctrl-C does.
 * The helpers of the world (the fake internet) are not in that group.
 * Each handler only calls kill(), which is async-signal-safe.
 */
static volatile pid_t pass_to;		/* the warden's PID 1 */
static volatile pid_t interp_group;	/* PID 1's interpreter */

static void
warden_on_interrupt(int sig)
{
	int saved = errno;

	(void)sig;
	if (pass_to > 0)
		(void)kill(pass_to, WORLD_INTERRUPT_SIGNAL);
	errno = saved;
}

static void
pid1_on_interrupt(int sig)
{
	int saved = errno;

	(void)sig;
	if (interp_group > 1)
		(void)kill(-interp_group, SIGINT);
	errno = saved;
}

static void
on_interrupt(void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(WORLD_INTERRUPT_SIGNAL, &sa, NULL);
}

void
world_interp_group(void)
{
	(void)setpgid(0, 0);
	on_interrupt(SIG_DFL);
}

void
world_init_main(int sock, int capfd, int wsdir, pid_t interp)
{
	int ws;
	pid_t p;

	(void)setpgid(interp, interp);	/* (the child does it too) */
	interp_group = interp;
	on_interrupt(pid1_on_interrupt);
	for (;;) {
		p = waitpid(-1, &ws, __WALL);
		if (p == -1 && errno == EINTR)
			continue;
		if (p == -1)
			_exit(0);
		if (p == interp) {
			char c;
			pyrun_ended(sock, capfd, wsdir, ws);
			/* The fake internet lives until the session has read
			 * what reached it and closes or kills the world. */
			while (read(sock, &c, 1) == -1 && errno == EINTR)
				;
			_exit(0);
		}
	}
}

/* /dev/null, opened while the host's /dev is there; then the mount
 * tree made private. */
static int
step_private(void *ctx, char *detail, size_t n)
{
	struct stage *st = ctx;

	st->devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (st->devnull < 0)
		return -1;
	return jail_step_private(ctx, detail, n);
}

static int
step_rlimits(void *ctx, char *detail, size_t n)
{
	struct stage *st = ctx;

	return world_set_rlimits(st->c, world_mem, st->as_base);
}

static int
step_hostname(void *ctx, char *detail, size_t n)
{
	return sethostname("world", 5);
}

/*
 * A world's own calls in the one set-up list (jail_int.h), walked for
 * its kind's description (jail.h's JAIL_CONTAINERS; world.h's kinds),
 * the description deciding inside a step (its network, Landlock,
 * seccomp).  The warden: its death signal (the list's), its host ids
 * (and, as root, its memory cgroup: step_ids) -- a uid change clears
 * the death signal, so the list asks it again -- then the list's user
 * namespace (the namespaces, the id maps -- inside the new namespace,
 * geteuid() says the overflow id -- and undumpable).  PID 1: the
 * rlimits come before any process of the world is forked (the fake
 * internet's helpers too: limits_first), so that every one of them
 * counts within the world's budget (world_set_rlimits).  The fake
 * internet's helpers start inside the new root (read-only by now),
 * never before it: forked earlier, they kept a directory of the host
 * as their working directory through pivot_root.  dnsmasq started
 * while the limits were set is waited for before step_fds, which
 * closes the descriptors the wait reads.  Then the list's lockdown
 * (step_fds, the capabilities, no_new_privs, step_landlock,
 * step_seccomp).
 */
static const struct jail_contain_ops world_ops = { .run = {
	[JAIL_SLOT_IDS] = step_ids, [JAIL_SLOT_MOUNT_PRIVATE] = step_private,
	[JAIL_SLOT_RLIMITS] = step_rlimits, [JAIL_SLOT_ROOTFS] = step_rootfs,
	[JAIL_SLOT_WORKSPACE] = step_workspace,
	[JAIL_SLOT_PIVOT_ROOT] = step_pivot_root,
	[JAIL_SLOT_NETWORK] = step_network,
	[JAIL_SLOT_HOSTNAME] = step_hostname,
	[JAIL_SLOT_NETWORK_WAIT] = step_network_wait,
	[JAIL_SLOT_FDS] = step_fds, [JAIL_SLOT_LANDLOCK] = step_landlock,
	[JAIL_SLOT_SECCOMP] = step_seccomp,
} };

static void __attribute__((noreturn))
pid1_main(struct stage *st)
{
	const struct jail_walk walk = { st->fail_at, &st->sock, st->detail,
	    sizeof st->detail };
	const char *failed;
	pid_t interp;

	st->as_base = jail_mapped_bytes();
	jail_contain(st->c, &world_ops, JAIL_STAGE_PID1, &walk, st);
	if (injected(st, JAIL_STEP_PYTHON) ||
	    (interp = jail_fork(NULL, &failed)) == -1)
		refuse(st, JAIL_STEP_PYTHON, errno);
	if (interp == 0) {
		world_interp_group();
		pyrun_after_fork();
		if (jail_wire_send(st->sock, WW_READY, NULL, 0,
		    NULL, 0) == -1)
			_exit(0);
		pyrun_serve(st->sock, st->capfd, st->wsdir);
	}
	world_init_main(st->sock, st->capfd, st->wsdir, interp);
}

static void warden(struct stage *st) __attribute__((noreturn));

void
replica_main(int sock, int cap_wr, int ctl_rd, int fail_at, int kind,
    uint64_t mem, const struct jail_ids *ids)
{
	if (mem != 0)
		world_mem = mem;
	struct stage st;

	memset(&st, 0, sizeof st);
	st.sock = sock;
	st.cap_wr = cap_wr;
	st.ctl_rd = ctl_rd;
	st.fail_at = fail_at;
	st.c = world_kind_container((enum world_kind)kind);
	st.devnull = st.capfd = st.wsdir = -1;
	st.ids = (struct jail_ids){ 0, 0, -1 };
	if (ids != NULL) {
		st.ids = *ids;
		st.given = true;
	}
	warden(&st);
}

static void
warden(struct stage *stp)
{
	struct stage st = *stp;
	static const struct jail_child_spec pid1 = {
		.flags = JAIL_FORK_PID1,	/* dies with the warden */
	};
	const struct jail_walk walk = { st.fail_at, &st.sock, st.detail,
	    sizeof st.detail };
	const char *failed;
	int wstatus;
	pid_t pid;

	st.w.parent = getppid();	/* the zygote */
	st.w.inner = WORLD_INNER_ID;
	if (st.c == NULL || st.c->words != JAIL_SETUP_WORLD) {
		snprintf(st.detail, sizeof st.detail, "no such world kind");
		refuse(&st, JAIL_STEP_UNSHARE, EINVAL);
	}
	jail_contain(st.c, &world_ops, JAIL_STAGE_WARDEN, &walk, &st);
	on_interrupt(warden_on_interrupt);
	if (injected(&st, JAIL_STEP_PID1) ||
	    (pid = jail_fork(&pid1, &failed)) == -1)
		refuse(&st, JAIL_STEP_PID1, errno);
	if (pid == 0) {
		if (failed != NULL) {
			int err = errno;

			snprintf(st.detail, sizeof st.detail, "%s", failed);
			refuse(&st, JAIL_STEP_PID1, err);
		}
		pid1_main(&st);
	}
	pass_to = pid;
	close(st.sock);
	close(st.cap_wr);	/* only PID 1's sink may hold them */
	close(st.ctl_rd);
	while (waitpid(pid, &wstatus, 0) == -1 && errno == EINTR)
		;
	jail_ids_release(&st.ids);
	_exit(0);
}
