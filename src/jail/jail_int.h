/*
 * jail_int.h -- what the jail's files share and nobody else needs.
 *
 * The wire: every message between the jail's processes is a frame of the
 * one wire (jail_wire.h), which the worlds speak too.  The reader of a
 * frame validates the type and the length before it uses a byte of it.
 *
 * The plan: the resolved configuration, copied into each forked process
 * by fork() itself, so no process of the jail reads the caller's memory
 * after the fork.
 */
#ifndef SANDBOXREPL_JAIL_INT_H
#define SANDBOXREPL_JAIL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sock_filter;

#include "jail.h"
#include "jail_wire.h"

#define WIRE_DETAIL_MAX	200	/* bytes of detail text in a refusal */
#define WIRE_NAME_MAX	255	/* bytes in a workspace file name */

/* How the evaluating process ended, as its warden saw it. */
struct wire_wait {
	int32_t		wstatus;	/* from wait4() */
	int32_t		seccomp_nr;	/* syscall the SIGSYS handler reported, or -1 */
	uint32_t	timed_out;	/* the warden killed it at the wall clock */
	uint32_t	result_over;	/* it wrote more than max_result */
	uint64_t	cpu_us;		/* user + system time */
};

struct jail_plan {
	const struct jail_file *files;	/* the caller's, read before pivot */
	size_t		 nfiles;
	uint64_t	 tmpfs_bytes, tmpfs_inodes;
	uint64_t	 cpu_seconds, as_bytes, nproc, fsize_bytes, nofile;
	uint64_t	 wall_ms, max_result, max_files, max_read_bytes;
	int		 fail_at;
	const char	*cgroup_dir;	/* the jails' cgroup, or NULL: none */
	uid_t		 uid;		/* the host ids the warden runs as */
	gid_t		 gid;		/*   (jail_ids.h) */
	const struct jail_bpf *seccomp;	/* the compiled filter */
	jail_fn		 fn;
	void		*arg;
	int		 host_fd;	/* write end of the pipe to jail_run */
	pid_t		 host_pid;	/* the caller of jail_run */
};

/* Write text to path in one write(2), opened O_WRONLY|O_CLOEXEC|flags
 * (mode 0644 when flags create it): /proc and cgroup files, small
 * files of a world's /etc.  0, or -1 with errno (EIO for a short write). */
int jail_write_text(const char *path, const char *text, int flags);
/* The bytes this process maps now, from /proc/self/statm (0 when it
 * cannot be read): the base a child's RLIMIT_AS adds to.  (jail_contain.c;
 * the worlds' set-up uses it too.) */
uint64_t jail_mapped_bytes(void);
/* Write all n bytes, retrying on EINTR and short writes.  0, or -1. */
int jail_write_all(int fd, const void *p, size_t n);
/* A workspace file name: 1..WIRE_NAME_MAX bytes, no '/' or NUL, not "."
 * or "..". */
bool jail_is_flat_name(const char *name, size_t len);

/*
 * Write one whole frame; a and b are concatenated into the payload.
 * Async-signal-safe (the SIGSYS handler uses it).  0, or -1 with errno.
 */
int jail_wire_send(int fd, enum ww_type type, const void *a, size_t alen,
    const void *b, size_t blen);
/* Send a refusal frame for step (enum jail_step, the jail's and the
 * worlds' one table) with err (EIO when it is not an errno) and a short
 * detail (may be NULL). */
int jail_wire_refuse(int fd, int step, int err, const char *detail);

/*
 * Parse a whole reply (buf, buflen) from the jail into *out, which must
 * start zeroed with exit_code and seccomp_syscall at -1: frames in order
 * (a refusal; or WAIT, OUTPUT, FLAT_FILE..., FLAT_CUT?, END), every length,
 * step, errno and file name checked against p's caps.  Returns false and
 * leaves an ERROR outcome (nothing allocated) on any malformed byte.
 */
bool jail_wire_parse(const struct jail_plan *p, const char *buf,
    size_t buflen, struct jail_outcome *out);

/*
 * The container set-up (jail_contain.c), one of each step for the jail
 * (jail_child.c) and the worlds (world/replica.c, world/gvisor.c).
 *
 * Every step is written "if (jail_injected(fail_at, STEP) || step() ==
 * -1) jail_refuse(fd, STEP, errno, detail)": jail_injected is the
 * fail_at test hook (true, errno ECANCELED, when fail_at names step);
 * jail_refuse sends a refusal frame naming the step on fd and exits
 * with JAIL_EXIT_SETUP.  Nothing runs in a jail or world whose set-up
 * did not finish.
 */
bool jail_injected(int fail_at, int step);
void jail_refuse(int fd, int step, int err, const char *detail)
    __attribute__((noreturn));
/*
 * A set-up is a list of steps walked once (as bubblewrap's setup ops
 * and nsjail's containProc): each entry its step (enum jail_step), the
 * call that takes it (0, or -1 with errno and what failed written to
 * detail) and what a refusal of it says unless the call says more (may
 * be NULL).  jail_walk runs them
 * in order, each through the test hook, and refuses the first that
 * fails on *report_fd (a step may move the descriptor) with its detail.
 */
struct jail_stepdef {
	int		 step;
	int		(*run)(void *ctx, char *detail, size_t n);
	const char	*detail;
};
struct jail_walk {
	int		 fail_at;
	const int	*report_fd;
	char		*detail;	/* the entry's, before each step */
	size_t		 n;
};
void jail_walk(const struct jail_walk *w, const struct jail_stepdef *steps,
    size_t n, void *ctx);
/* Steps every set-up's list has (ctx unused but by unshare: a struct
 * jail_warden): the mount tree made private; unshare(namespaces);
 * jail_undumpable; jail_drop_caps; jail_no_new_privs. */
int jail_step_private(void *ctx, char *detail, size_t n);
int jail_step_unshare(void *ctx, char *detail, size_t n);
int jail_step_undumpable(void *ctx, char *detail, size_t n);
int jail_step_caps(void *ctx, char *detail, size_t n);
int jail_step_no_new_privs(void *ctx, char *detail, size_t n);
/* What a warden's steps share: the first member of its stage, so that
 * the stage is the ctx of these.  The death signal when parent dies
 * (jail_pdeathsig); the namespaces unshared (the description's, set by
 * jail_contain); the maps of inner to the host ids uid and gid
 * (jail_id_maps). */
struct jail_warden {
	pid_t	 parent;
	uid_t	 uid;
	gid_t	 gid;
	int	 inner;
	int	 namespaces;
};
int jail_step_pdeathsig(void *ctx, char *detail, size_t n);
int jail_step_id_maps(void *ctx, char *detail, size_t n);

/*
 * The container set-up, one list of steps walked once (jail_contain), in
 * this order, for the model-engine jail and every CPython world: each
 * row its slot, the step a refusal of it names (enum jail_step: a slot
 * may share its step with another, as a world's hostname does with its
 * rlimits), the process that takes it, and the call every set-up makes
 * there ("-": the set-up's own, from its ops; a slot neither gives is
 * not walked).  The warden ends with the user namespace (unshare of the
 * description's namespaces, the id maps, undumpable again -- the maps
 * needed it dumpable); PID 1 with the lockdown (its descriptors, every
 * capability dropped, no_new_privs, Landlock, seccomp last: nothing
 * after it may need a call it refuses).  The rlimits stand in one of
 * two slots, the description's limits_first saying which; a warden that
 * takes its own ids (ids WARDEN) asks for its death signal before them
 * too.
 * X(SLOT, STEP, stage, common call or 0).
 */
#define JAIL_CONTAIN_SLOTS(X)						\
	X(EARLY_DEATHSIG, PDEATHSIG, WARDEN, jail_step_pdeathsig)	\
	X(WARDEN_FDS, WARDEN_FDS, WARDEN, 0)				\
	X(IDS, IDS, WARDEN, 0)						\
	X(CGROUP, CGROUP, WARDEN, 0)					\
	X(DROP_UID, DROP_UID, WARDEN, 0)				\
	X(DEATHSIG, PDEATHSIG, WARDEN, jail_step_pdeathsig)		\
	X(UNSHARE, UNSHARE, WARDEN, jail_step_unshare)			\
	X(ID_MAPS, ID_MAPS, WARDEN, jail_step_id_maps)			\
	X(UNDUMPABLE, UNDUMPABLE, WARDEN, jail_step_undumpable)		\
	X(MOUNT_PRIVATE, MOUNT_PRIVATE, PID1, 0)			\
	X(LIMITS_FIRST, RLIMITS, PID1, 0)				\
	X(ROOTFS, ROOTFS, PID1, 0)					\
	X(WORKSPACE, WORKSPACE, PID1, 0)				\
	X(PIVOT_ROOT, PIVOT_ROOT, PID1, 0)				\
	X(RLIMITS, RLIMITS, PID1, 0)					\
	X(NETWORK, NETWORK, PID1, 0)					\
	X(HOSTNAME, RLIMITS, PID1, 0)					\
	X(NETWORK_WAIT, NETWORK, PID1, 0)				\
	X(FDS, FDS, PID1, 0)						\
	X(CAPS, CAPS, PID1, jail_step_caps)				\
	X(NO_NEW_PRIVS, NO_NEW_PRIVS, PID1, jail_step_no_new_privs)	\
	X(LANDLOCK, LANDLOCK, PID1, 0)					\
	X(SECCOMP, SECCOMP, PID1, 0)

enum jail_slot {
#define X(e, step, stage, common) JAIL_SLOT_##e,
	JAIL_CONTAIN_SLOTS(X)
#undef X
	JAIL_SLOT_COUNT
};
enum jail_stage { JAIL_STAGE_WARDEN, JAIL_STAGE_PID1 };
typedef int (*jail_step_fn)(void *ctx, char *detail, size_t n);
/* A set-up's own calls, by slot (the rlimits' under JAIL_SLOT_RLIMITS,
 * whichever slot the description puts them in). */
struct jail_contain_ops {
	jail_step_fn	 run[JAIL_SLOT_COUNT];
};
/*
 * Walk stage's rows of the list for container c with ops' calls, given
 * ctx (the warden's stage must begin with its struct jail_warden),
 * through the test hook, refusing the first that fails (jail_walk).  A
 * row whose slot has both a common call and one of ops', or a
 * description with no namespaces to unshare, is refused: the set-up
 * never runs a list it was not given.
 */
void jail_contain(const struct jail_container *c,
    const struct jail_contain_ops *ops, enum jail_stage stage,
    const struct jail_walk *w, void *ctx);
/* The rlimits of a jail's or world's processes: RLIMIT_AS as_bytes over
 * the base (jail_mapped_bytes), RLIMIT_CPU cpu_seconds (soft; the hard
 * limit's SIGKILL a second later), NPROC, FSIZE and NOFILE, no core
 * file, no locked memory and no POSIX message queue.  within (gVisor's
 * worker): each no higher than the hard limit the sandbox already set,
 * soft and hard alike, and RLIMIT_MSGQUEUE left (gVisor refuses it).
 * 0, or -1 with errno (ENODATA when as_base is 0). */
struct jail_limits {
	uint64_t	 as_bytes, cpu_seconds, nproc, fsize_bytes, nofile;
	bool		 within;
};
int jail_set_rlimits(const struct jail_limits *l, uint64_t as_base);
/* As root: no supplementary groups, then uid and gid as every id
 * (checked: not root, the ids asked).  Then dumpable again (a uid
 * change clears it; writing the id maps needs it).  0, or -1 with
 * errno. */
int jail_become(uid_t uid, gid_t gid);
/* Clear dumpable (checked): once the maps are written, nothing of the
 * caller's uid may ptrace the warden or read its /proc files. */
int jail_undumpable(void);
/* chdir to newroot, pivot_root(".", "."), detach the old root, chdir
 * "/".  0, or -1 with errno and what failed in detail. */
int jail_pivot_root(const char *newroot, char *detail, size_t n);
/* A PID 1's fresh process state: exactly *at[0..n) as 0..n-1, those
 * from cloexec_from on close-on-exec (jail_fds_keep), every signal
 * unblocked, a session of its own (no controlling terminal); then each
 * *at[i] says its new number (one named twice: its last).  n at most
 * JAIL_FORK_MAX_FDS.  0, or -1 with errno. */
int jail_fresh(int *const at[], unsigned n, unsigned cloexec_from);
/* 0 when the working directory is want, else -1 with EPERM (the runc
 * lesson: prove the cwd is inside the new root). */
int jail_cwd_is(const char *want);

/*
 * Steps the jail's PID 1 and a world's share (jail_contain.c).  Drop every
 * capability (bounding set, ambient, capset to zero, then checked), and
 * set no_new_privs (checked).  0, or -1 with errno.
 */
int jail_drop_caps(void);
int jail_no_new_privs(void);
/* Keep only the capabilities in mask (bits below 32): drop the rest from
 * the bounding set, clear the ambient set, capset mask as effective,
 * permitted and inheritable (checked with capget), then raise mask's as
 * ambient ones so they survive execve.  jail_drop_caps() is mask 0.
 * 0, or -1 with errno. */
int jail_caps_keep(uint32_t mask);
/* Ask for SIGKILL when the parent dies; ESRCH when parent (its pid) has
 * died already.  0, or -1 with errno. */
int jail_pdeathsig(pid_t parent);
/* In a new user namespace: setgroups "deny", then map inner to uid and
 * gid.  0, or -1 with errno and what failed written to detail (n bytes). */
int jail_id_maps(int inner, uid_t uid, gid_t gid, char *detail, size_t n);

/* Keep exactly fds[0..n) as descriptors 0..n-1 (-1: /dev/null, where
 * there is one), those from cloexec_from on close-on-exec, and close
 * every other one.  0, or -1 with errno. */
int jail_fds_keep(const int *fds, unsigned n, unsigned cloexec_from);

/* The jailed side: runs the first child and never returns. */
void jail_child_main(const struct jail_plan *plan)
    __attribute__((noreturn));

/*
 * Enforce the Landlock ruleset on the calling process: the workspace
 * ("/") may be read and written, nothing may be executed, no device,
 * socket, fifo or symlink made, no TCP bind or connect (ABI >= 4), no
 * abstract unix sockets or signals out of the domain (ABI >= 6).
 * 0 and *abi set, or -1 with errno (EOPNOTSUPP below ABI 1).
 */
int jail_landlock_enforce(int *abi);

/* A Landlock rule: a path (opened now: after pivot_root, it is the new
 * root's) and what it grants beneath it. */
enum jail_ll_grant {
	JAIL_LL_READ,		/* read files, list directories */
	JAIL_LL_FILE_RW,	/* read and write files (devices) */
	JAIL_LL_WORK,		/* the workspace's plain file work */
	JAIL_LL_EXEC,		/* read, list and execute (a program's
				   /usr) */
	JAIL_LL_DEVICE,		/* read, write and ioctl (/dev/kvm) */
};
struct jail_ll_rule {
	const char		*path;
	enum jail_ll_grant	 grant;
};
/* The same ruleset, granting rules[] instead of the workspace "/" (a jail
 * world, world/jailkind.c).  0, or -1 with errno and *failed (may be
 * NULL) the path or call that failed. */
int jail_landlock_enforce_rules(const struct jail_ll_rule *rules, size_t n,
    int *abi, const char **failed);

/*
 * The memory cgroup (jail_cgroup.c).  prepare, in the caller once per
 * process: 1 and the jails' parent cgroup in dir when jails get a memory
 * cgroup, 0 and the reason in why when this machine or caller has none
 * to give, -1 with errno when it has one but setting it up failed (then
 * every jail must refuse).  enter, in the warden while still root: make
 * dir/jail-<id> with memory.max = bytes and no swap, and move the
 * calling process into it; 0, or -1 with errno and the file in detail.
 * remove, in the caller once the warden is reaped: rmdir, errors ignored.
 */
int jail_cgroup_prepare(char *dir, size_t dirlen, char *why, size_t n);
int jail_cgroup_enter(const char *dir, unsigned id, uint64_t bytes,
    char *detail, size_t n);
void jail_cgroup_remove(const char *dir, unsigned id);
/* What cgroup v1's jail-<id> under dir holds charged
 * (memory.usage_in_bytes), bytes; UINT64_MAX when it cannot say (no
 * such file: cgroup v2, or no cgroup). */
uint64_t jail_cgroup_charged(const char *dir, unsigned id);
/*
 * The CPU bound that comes with it (see jail_cgroup.c): one core's worth
 * per jail or world, JAIL_CPU_QUOTA_US of every JAIL_CPU_PERIOD_US.
 * jail_cgroup_enter sets it too; cpu_enter alone, for a caller with a cpu
 * controller but no memory cgroup (dir ""), moves the calling process
 * into the v1 cpu cgroup jail-<id>: 0 (also where there is none), or -1
 * with errno and the file in detail.
 */
#define JAIL_CPU_PERIOD_US	100000u
#define JAIL_CPU_QUOTA_US	100000u
int jail_cgroup_cpu_enter(unsigned id, char *detail, size_t n);

/* A compiled seccomp program (classic BPF), owned by whoever compiled it. */
struct jail_bpf {
	struct sock_filter *insns;
	unsigned short	 len;
};

/* Compile the jail's seccomp filter.  0, or -1 with errno. */
int jail_seccomp_compile(struct jail_bpf *out);
/* The same table for a jail world (world/jailkind.c): every refused call
 * goes to a supervisor (SECCOMP_RET_USER_NOTIF) instead of SIGSYS, and
 * processes may be made (fork, vfork, clone without namespace flags). */
int jail_seccomp_compile_notify(struct jail_bpf *out);
/*
 * Another filter with the same table (world/fakenet.c's dnsmasq): default
 * ALLOW, every call of the table but those named in except (a NULL-ended
 * list, or NULL) given action, then more(ctx, arg) adds rules to the
 * libseccomp context (0, or -1 with errno).  0, or -1 with errno.
 */
int jail_seccomp_compile_table(struct jail_bpf *out, uint32_t action,
    const char *const *except, int (*more)(void *ctx, void *arg), void *arg);
/* The one compiler of every other filter (a replica world's denylist,
 * world/replica.c): a filter over a default of ALLOW, optimised as a
 * tree, with what rules(ctx, arg) adds to the libseccomp context (0, or
 * -1 with errno), exported into out.  0, or -1 with errno. */
int jail_seccomp_compile_rules(struct jail_bpf *out,
    int (*rules)(void *ctx, void *arg), void *arg);
/* The same over another default action def (world/fakenet_sink.c's
 * allowlist).  0, or -1 with errno. */
int jail_seccomp_compile_over(struct jail_bpf *out, uint32_t def,
    int (*rules)(void *ctx, void *arg), void *arg);
/* Load prog (no_new_privs must be set).  0, or -1 with errno. */
int jail_seccomp_load(const struct jail_bpf *prog);
/*
 * Install the SIGSYS reporter on report_fd and load prog (no_new_privs
 * must be set).  0, or -1 with errno.
 */
int jail_seccomp_enforce(const struct jail_bpf *prog, int report_fd);

#endif
