/*
 * jail.h -- run a function inside a real Linux kernel jail.
 *
 * jail_run() forks a warden.  The warden first drops every descriptor
 * but its report pipe (0-2 go to /dev/null) and starts a session of its
 * own, so no terminal of the caller reaches the jail; enters its cgroup
 * v2 memory cap where the machine gives one (else RLIMIT_AS is the
 * memory cap: see jail_cgroup.c); leaves uid 0 (when root) for a host
 * id nothing else uses (jail_ids.h); unshares the user, mount, network,
 * pid, ipc and uts namespaces, maps its id, makes itself undumpable
 * again (no host process but root may ptrace it or read its /proc
 * files), and
 * forks PID 1 of the new pid namespace, the process that evaluates: it
 * builds a private tmpfs workspace, seeds it with cfg->files and
 * pivot_roots into it, sets rlimits, closes every descriptor it does not
 * need, resets signals, clears the environment, starts a session, drops
 * all capabilities, sets no_new_privs, enforces Landlock and finally a
 * seccomp filter, and only then calls fn(arg).  The warden, outside the
 * pid namespace and never under Landlock or seccomp, enforces the wall
 * clock, then sends what fn wrote and the workspace files back to
 * jail_run() over a pipe, length-prefixed.  jail_run() treats every byte
 * it reads as hostile.
 *
 * Nothing here fails open: when any set-up step fails, fn is never
 * called and the outcome is JAIL_REFUSED naming the step and errno.
 *
 * Nothing here prints or exits the caller.  The calling process keeps
 * three pieces of state: the compiled seccomp program, built on the
 * first jail_run() and immutable after; where the jails' memory cgroup
 * is (found once; as root this may move the caller into a leaf cgroup
 * of its own: see jail_cgroup.c); and, when run as root with no
 * cfg->ids, a pool of the jail ids it acquired (each held by one
 * jail_run at a time, kept until the process exits: acquiring one costs
 * about as much as a whole jail).  The jailed process keeps the
 * descriptor jail_write_result() writes to.
 */
#ifndef SANDBOXREPL_JAIL_H
#define SANDBOXREPL_JAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct jail_ids;

/*
 * The set-up steps of the jail and of every world, one table.  A step's
 * row gives the word each set-up says when it refuses there (the
 * model-engine jail's, jail_child.c; a CPython world's, world/replica.c,
 * world/gvisor.c), NULL where that set-up has no such step, and the
 * record layer a refusal of the jail's is reported under.  In the order
 * the jail takes them (a world's own rows where a world takes them),
 * with the process that takes each ("host" = the caller of jail_run,
 * "warden" = the process that unshares, "pid1" = PID 1 of the new pid
 * namespace, from MOUNT_PRIVATE on; a world's warden is the zygote's
 * child and takes IDS too; the worlds' order is their tables',
 * replica.c).  The two words differ where each set-up's refusals always
 * said its own.
 * X(NAME, "jail's word", "world's word", "layer").
 */
#define JAIL_STEPS(X)							\
	X(NONE, "none", "none", NULL)					\
	X(IDS, "ids", "ids", "namespace") /* host */			\
	X(PIPE, "pipe", NULL, "namespace") /* host */			\
	X(FORK, "fork", NULL, "namespace") /* host */			\
	X(WARDEN_FDS, "warden-fds", NULL, "namespace") /* warden */	\
	X(CGROUP, "cgroup", "memory-cgroup", "rlimit") /* warden */	\
	X(DROP_UID, "drop-uid", NULL, "namespace") /* warden */		\
	X(PDEATHSIG, "pdeathsig", "pdeathsig", "namespace") /* warden */ \
	X(UNSHARE, "unshare", "unshare", "namespace") /* warden */	\
	X(ID_MAPS, "id-maps", "id-maps", "namespace") /* warden */	\
	X(UNDUMPABLE, "undumpable", "dumpable", "namespace") /* warden */ \
	X(PID1, "pid1-fork", "pid1-fork", "namespace") /* warden */	\
	X(MOUNT_PRIVATE, "mount-private", "mount-private", "namespace")	\
	X(NETWORK, NULL, "network", NULL) /* pid1 */			\
	X(ROOTFS, NULL, "rootfs", NULL) /* pid1 */			\
	X(WORKSPACE, "workspace", "workspace", "namespace") /* pid1 */	\
	X(PIVOT_ROOT, "pivot-root", "pivot-root", "namespace") /* pid1 */ \
	X(RLIMITS, "rlimits", "rlimits", "rlimit") /* pid1 */		\
	X(FDS, "fds", "fds", "namespace") /* pid1 */			\
	X(CAPS, "capabilities", "capabilities", "namespace") /* pid1 */	\
	X(NO_NEW_PRIVS, "no-new-privs", "no-new-privs", "seccomp") /* pid1 */ \
	X(LANDLOCK, "landlock", "landlock", "landlock") /* pid1 */	\
	X(SECCOMP, "seccomp", "seccomp", "seccomp") /* pid1 */		\
	X(PYTHON, NULL, "python", NULL) /* pid1 */

enum jail_step {
#define X(e, jail, world, layer) JAIL_STEP_##e,
	JAIL_STEPS(X)
#undef X
	JAIL_STEP_COUNT
};

#define JAIL_STATUSES(X)						\
	X(OK,		"ok")		/* fn ran and returned */	\
	X(REFUSED,	"refused")	/* a set-up step failed: fn never ran */ \
	X(CONTAINED,	"contained")	/* the kernel stopped fn */	\
	X(ERROR,	"error")	/* bad or oversized reply, lost child */

enum jail_status {
#define X(e, name) JAIL_##e,
	JAIL_STATUSES(X)
#undef X
};

/*
 * Exit codes with a meaning.  fn (or the code it runs) exits with
 * JAIL_EXIT_NOMEM when an allocation failed under RLIMIT_AS, so the
 * outcome can name the rlimit layer.  JAIL_EXIT_SECCOMP is used by the
 * jail's own SIGSYS handler, JAIL_EXIT_SIGXCPU and JAIL_EXIT_SIGXFSZ by
 * its rlimit signal handlers (the jailed process is PID 1 of its pid
 * namespace, which no unforced signal kills); the outcome reports those
 * two as the signal.  All are claims of the jailed process: they change
 * what is reported, never what is enforced.
 */
#define JAIL_EXIT_SIGXCPU	122
#define JAIL_EXIT_SIGXFSZ	123
#define JAIL_EXIT_NOMEM		124
#define JAIL_EXIT_SECCOMP	125
#define JAIL_EXIT_SETUP		126

/* One workspace file: a flat name (no '/', not "." or "..") and bytes. */
struct jail_file {
	char	*name;
	char	*data;
	size_t	 len;
};

/*
 * Every cap falls back to the JAIL_DEFAULT_* value when it is 0.
 * jail_run() only reads the config; it keeps no pointer into it.
 */
struct jail_config {
	const struct jail_file *files;	/* seeded into the workspace */
	size_t		 nfiles;
	uint64_t	 tmpfs_bytes;	/* tmpfs size= */
	uint64_t	 tmpfs_inodes;	/* tmpfs nr_inodes= */
	uint64_t	 cpu_seconds;	/* RLIMIT_CPU soft (hard = soft + 1) */
	uint64_t	 as_bytes;	/* address space fn may add (RLIMIT_AS is
					 * set to what is mapped + this) */
	uint64_t	 nproc;		/* RLIMIT_NPROC */
	uint64_t	 fsize_bytes;	/* RLIMIT_FSIZE */
	uint64_t	 nofile;	/* RLIMIT_NOFILE */
	uint64_t	 wall_ms;	/* wall clock before SIGKILL */
	uint64_t	 max_result;	/* bytes fn may write as its result */
	uint64_t	 max_files;	/* workspace files read back */
	uint64_t	 max_read_bytes; /* workspace bytes read back, in all */
	const struct jail_ids *ids;	/* the host uid/gid to run as, held by
					 * the caller (jail_ids_acquire) for
					 * one jail at a time, or NULL:
					 * jail_run takes them from its pool
					 * (see above) */
	int		 fail_at;	/* test hook: enum jail_step to fail with
					 * ECANCELED (0 = none) */
};

#define JAIL_DEFAULT_TMPFS_BYTES	(8u << 20)
#define JAIL_DEFAULT_TMPFS_INODES	128
#define JAIL_DEFAULT_CPU_SECONDS	2
#define JAIL_DEFAULT_AS_BYTES		(256u << 20)
#define JAIL_DEFAULT_NPROC		16
#define JAIL_DEFAULT_FSIZE_BYTES	(4u << 20)
#define JAIL_DEFAULT_NOFILE		32
#define JAIL_DEFAULT_WALL_MS		5000
#define JAIL_DEFAULT_MAX_RESULT		(1u << 20)
#define JAIL_DEFAULT_MAX_FILES		64
#define JAIL_DEFAULT_MAX_READ_BYTES	(8u << 20)

/*
 * Runs in the jailed process after every set-up step.  It may write its
 * result with jail_write_result() and returns an exit code (0..255).
 */
typedef int (*jail_fn)(void *arg);

struct jail_outcome {
	enum jail_status status;
	const char	*layer;		/* "namespace", "landlock", "seccomp",
					 * "rlimit", "timeout", or NULL (static) */
	enum jail_step	 step;		/* REFUSED: the step that failed */
	int		 err;		/* REFUSED: its errno */
	char		 reason[256];	/* one line for a human */
	int		 exit_code;	/* fn's exit code when it exited, else -1 */
	int		 term_signal;	/* the signal that ended fn, else 0 */
	int		 seccomp_syscall; /* the syscall seccomp trapped, else -1 */
	uint64_t	 cpu_us;	/* CPU time fn used (user + system) */
	char		*result;	/* what fn wrote (heap, NUL-terminated) */
	size_t		 result_len;
	struct jail_file *files;	/* the workspace after the run, sorted
					 * by name (heap) */
	size_t		 nfiles;
	bool		 files_truncated; /* some files or bytes were left out */
	bool		 memory_cgroup;	/* fn ran under a cgroup v2 memory.max
					 * (see jail_cgroup.c); false: its
					 * memory cap was RLIMIT_AS alone */
	double		 elapsed_ms;	/* fork to reaped, as jail_run saw it */
};

/*
 * Run fn(arg) in a fresh jail.  Always fills *out (free it with
 * jail_outcome_free) and returns 0 when fn ran to completion
 * (JAIL_OK), -1 otherwise; out->status says why.
 */
int jail_run(const struct jail_config *cfg, jail_fn fn, void *arg,
    struct jail_outcome *out);

/*
 * The memory cgroup jails get in this process, found once as jail_run()
 * finds it (see jail_cgroup.c; as root this may move the caller into a
 * leaf cgroup of its own): 1 when they get one; 0 when their memory cap
 * is RLIMIT_AS alone, *why saying why; -1 when setting it up failed, so
 * every jail refuses, *why naming the cgroup.  *why: static storage.
 */
int jail_memory_cgroup(const char **why);
/* After jail_memory_cgroup: what bounds a jail's or world's memory and
 * CPU beyond its rlimits, "cgroup v2" or "cgroup v1", or NULL for none
 * (the rlimits alone).  Static strings. */
void jail_cgroup_kinds(const char **memory, const char **cpu);

/* Free what jail_run allocated in *out and zero it. */
void jail_outcome_free(struct jail_outcome *out);

/*
 * In the jailed process only: append len bytes to the result.  Returns 0,
 * or -1 with errno set (EBADF outside a jail).  Writing past max_result
 * gets the process killed and the outcome is JAIL_ERROR.
 */
int jail_write_result(const void *data, size_t len);

/*
 * The one fork (jail_fork.c).  spec says what the child is given before
 * its own code runs, in this order, each step checked: its descriptors
 * (fds[i] becomes i, -1 /dev/null; every other one closed), prepare(ctx)
 * while its ids are still the parent's, its ids (JAIL_FORK_IDS: no
 * supplementary groups, then uid and gid), its death signal, its signals'
 * dispositions the defaults (JAIL_FORK_SIGDFL: an ignored one would stay
 * ignored across an exec), its signals unblocked, a session of its own.
 * NULL: a plain fork.  In the parent: the child's pid, or -1 with errno.
 * In the child: 0, with *failed NULL when every step succeeded, or
 * naming the step that failed (errno set): the child must then end
 * without running anything else.
 */
struct jail_child_spec {
	unsigned	 flags;		/* JAIL_FORK_* */
	const int	*fds;
	unsigned	 nfds;		/* 0: the descriptors are left */
	int		(*prepare)(void *ctx);	/* 0, or -1 with errno */
	void		*ctx;
	uid_t		 uid;		/* with JAIL_FORK_IDS */
	gid_t		 gid;
};
#define JAIL_FORK_DEATHSIG	0x01u	/* SIGKILL when the parent dies */
#define JAIL_FORK_PID1		0x02u	/* that, and getpid() must be 1 */
#define JAIL_FORK_IDS		0x04u
#define JAIL_FORK_SIGNALS	0x08u	/* every signal unblocked */
#define JAIL_FORK_SESSION	0x10u	/* setsid() */
#define JAIL_FORK_FLUSH		0x20u	/* the parent's stdio flushed first */
#define JAIL_FORK_SIGDFL	0x40u	/* every signal's disposition the
					 * default (before they are unblocked) */
#define JAIL_FORK_MAX_FDS	8	/* in fds */
pid_t jail_fork(const struct jail_child_spec *spec, const char **failed);
/*
 * The same for a child that only execs (jail_fork.c): it shares the
 * caller's memory until its exec or _exit (clone's CLONE_VM and
 * CLONE_VFORK, as posix_spawn does), so the caller's page tables are
 * neither copied nor torn down again; the caller waits meanwhile.  The
 * spec must ask for JAIL_FORK_SIGDFL (no handler of the caller's may run
 * in the child); every signal stays blocked in the child until its
 * dispositions are the defaults.  After the spec's steps the child runs
 * fn(arg, failed) (failed: NULL, or the step that failed, errno set),
 * which must exec or _exit, and write nothing but its own stack.  The
 * child's pid, or -1 with errno.
 */
pid_t jail_spawn(const struct jail_child_spec *spec,
    void (*fn)(void *arg, const char *failed), void *arg);

/* Which set-up's word for a step: the jail's or a world's. */
enum jail_setup {
	JAIL_SETUP_JAIL,
	JAIL_SETUP_WORLD,
};
/*
 * What a container is, kind by kind: one description each, one table
 * (JAIL_CONTAINERS), read by the one set-up walk (jail_contain,
 * jail_int.h) and the steps it runs.  A row says
 *   words     whose refusal words (JAIL_STEPS' column) its set-up says
 *   ids       who takes its host ids: the caller of jail_run, the warden
 *             leaving uid 0 for them (HOST), or the warden itself, which
 *             asks for its death signal before and after (WARDEN)
 *   root      a capped tmpfs holding the seeded files made "/"
 *             (WORKSPACE), or a replica of a machine's: the host's /usr
 *             read-only, a replica /etc, /dev, /proc, tmpfs /tmp, home
 *             and workspace, the root remounted read-only (REPLICA),
 *             runsc's (RUNSC), or a guest's own, built by its init and
 *             worker inside the VM (GUEST, world/microvm.c)
 *   net       an empty network namespace, not even loopback (EMPTY), the
 *             fake internet in it (FAKE, world/fakenet.h), gVisor's none
 *             (RUNSC), or no network device at all (NONE: a microVM)
 *   seccomp   the jail's table, each call a SIGSYS reported (KILL); the
 *             same table to a supervisor (NOTIFY, world/jailkind.c); the
 *             replicas' EPERM denylist (DENYLIST); gVisor's (RUNSC); none
 *             inside a guest, whose boundary is the VM (NONE)
 *   landlock  the workspace "/" alone (WORKSPACE), a jail world's rules
 *             (JAIL_WORLD), none (NONE)
 *   limits    jail_config's caps (JAIL), a world's budget (WORLD), a
 *             world's budget within what runsc set (WITHIN); with
 *             first, set before the root is built (every process the
 *             set-up forks counts within them)
 *   cgroup    a memory (and CPU) cgroup where the machine gives one
 * and the namespaces it unshares in one call (0: runsc made them).
 * X(NAME, "name", words, ids, root, net, seccomp, landlock, limits,
 *   first, cgroup, namespaces).
 */
#define JAIL_CONTAINERS(X)						\
	X(MODEL, "model-jail", JAIL, HOST, WORKSPACE, EMPTY, KILL,	\
	    WORKSPACE, JAIL, false, true, JAIL_NAMESPACES)		\
	X(REPLICA, "replica", WORLD, WARDEN, REPLICA, FAKE, DENYLIST,	\
	    NONE, WORLD, true, true, JAIL_NAMESPACES)			\
	X(JAIL_WORLD, "jail", WORLD, WARDEN, REPLICA, EMPTY, NOTIFY,	\
	    JAIL_WORLD, WORLD, true, true, JAIL_NAMESPACES)		\
	X(OFFLINE, "offline", WORLD, WARDEN, REPLICA, EMPTY, DENYLIST,	\
	    NONE, WORLD, true, true, JAIL_NAMESPACES)			\
	X(GVISOR, "gvisor", WORLD, HOST, RUNSC, RUNSC, RUNSC, NONE,	\
	    WITHIN, false, false, 0)					\
	X(MICROVM, "microvm", WORLD, HOST, GUEST, NONE, NONE, NONE,	\
	    WORLD, false, false, 0)

enum jail_container_id {
#define X(e, ...) JAIL_CONTAINER_##e,
	JAIL_CONTAINERS(X)
#undef X
	JAIL_CONTAINER_COUNT
};

/* The namespaces a jail or world unshares, in one call. */
#define JAIL_NAMESPACES	(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | \
	CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS)

struct jail_container {
	const char	*name;
	enum jail_setup	 words;
	enum { JAIL_IDS_HOST, JAIL_IDS_WARDEN } ids;
	enum {
		JAIL_ROOT_WORKSPACE, JAIL_ROOT_REPLICA, JAIL_ROOT_RUNSC,
		JAIL_ROOT_GUEST,
	} root;
	enum { JAIL_NET_EMPTY, JAIL_NET_FAKE, JAIL_NET_RUNSC, JAIL_NET_NONE } net;
	enum {
		JAIL_FILTER_KILL, JAIL_FILTER_NOTIFY, JAIL_FILTER_DENYLIST,
		JAIL_FILTER_RUNSC, JAIL_FILTER_NONE,
	} seccomp;
	enum {
		JAIL_RULES_WORKSPACE, JAIL_RULES_JAIL_WORLD, JAIL_RULES_NONE,
	} landlock;
	enum { JAIL_LIMITS_JAIL, JAIL_LIMITS_WORLD, JAIL_LIMITS_WITHIN } limits;
	bool		 limits_first;
	bool		 cgroup;
	int		 namespaces;
};
/* Container id's description, or NULL out of range. */
const struct jail_container *jail_container(enum jail_container_id id);

/* The word set-up who says for step s, or NULL when it has no such step
 * (or s is out of range). */
const char *jail_step_word(enum jail_step s, enum jail_setup who);
/* The jail's word for step s, "unknown" where it has none. */
const char *jail_step_name(enum jail_step s);
/* What a system call the jail refuses is for, as a user would say it
 * ("starting a program" for execve), or NULL when it has no such name. */
const char *jail_syscall_purpose(const char *call);
/* The record layer a failure of step s is reported under. */
const char *jail_step_layer(enum jail_step s);
const char *jail_status_name(enum jail_status s);

#endif
