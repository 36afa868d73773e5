/*
 * world_int.h -- what the world's files share and nobody else needs: the
 * zygote (zygote.c), the CPython world's set-up (replica.c) and the
 * interpreter's side (pyrun.c), and the model's worlds (model.c,
 * modeljail.c).
 */
#ifndef SANDBOXREPL_WORLD_INT_H
#define SANDBOXREPL_WORLD_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "jail/jail.h"
#include "jail/jail_wire.h"

struct mfs;
struct world;
struct world_seed;

/* The set-up steps of a world are the jail's (jail.h's JAIL_STEPS: one
 * table; a world's refusals say its column's words).  world_step_name:
 * a world's word for step s, "unknown" where a world has none. */
const char *world_step_name(enum jail_step s);

/* The limits of a replica world. */
#define WORLD_ROOT_BYTES	(4u << 20)
#define WORLD_WS_BYTES		(16u << 20)	/* the workspace tmpfs */
#define WORLD_WS_INODES		1024
#define WORLD_TMP_BYTES		(32u << 20)	/* /tmp, and the output */
/*
 * A world's budget at the default --memory (replica.c,
 * world_set_rlimits): WORLD_NPROC tasks of at most CPython's base (about
 * 24 MiB) plus WORLD_AS_BYTES each, so 12 x 64 MiB = WORLD_MEM_BYTES in
 * all without a cgroup; where a memory
 * cgroup can be had (jail_cgroup.c) it caps the same figure with the
 * tmpfs pages counted.  64 MiB keeps CPython with ssl and urllib, a shell,
 * curl and a few threads workable; 12 tasks are the world's own (the
 * warden, PID 1, and dnsmasq and the sink or the supervisor) and the
 * interpreter's, a pipeline and a small thread pool.  CPU: WORLD_CPU_SECONDS
 * per task over its life, so 12 x 60 s at most in all, and one core at a
 * time where a cpu cgroup can be had.
 */
#define WORLD_AS_BYTES		(40ull << 20)	/* per process, over base */
#define WORLD_NPROC		12
#define WORLD_MEM_BYTES		(768ull << 20)
/*
 * --memory moves the budget: a world's is three times what one input may
 * hold (world_set_memory; the default 256M gives WORLD_MEM_BYTES), never
 * less than WORLD_MEM_MIN, and a process's address space over the base
 * is its share, WORLD_NPROC of them, less CPython's base
 * (WORLD_BASE_BYTES): 40 MiB at the default, WORLD_AS_MIN at least.
 */
#define WORLD_BASE_BYTES	(24ull << 20)
#define WORLD_AS_MIN		(16ull << 20)
#define WORLD_MEM_MIN		(WORLD_NPROC * (WORLD_BASE_BYTES + WORLD_AS_MIN))

static inline uint64_t
world_as_over(uint64_t mem)
{
	uint64_t share = mem / WORLD_NPROC;

	return share >= WORLD_BASE_BYTES + WORLD_AS_MIN ?
	    share - WORLD_BASE_BYTES : WORLD_AS_MIN;
}
#define WORLD_FSIZE_BYTES	(16u << 20)
#define WORLD_NOFILE		256
#define WORLD_CPU_SECONDS	60		/* per process, over its life */
/* PID 1 leaves the world's /proc/sys/kernel/ns_last_pid open here,
 * close-on-exec, before the jail's Landlock (pyrun.c, spawn_check). */
#define WORLD_LASTPID_FD	6
#define WORLD_HOME		"/home/agent"	/* HOME: a small tmpfs */
#define WORLD_WORKSPACE		"/workspace"	/* the cwd: the path's files */
#define WORLD_INNER_ID		1000		/* the agent user inside */

/* model.c: what a world with nothing to build or read back does (the
 * model's worlds: the path's files are their workspace). */
bool model_build(struct world *w, const struct world_seed *seed, char **err);
void model_read_back(struct world *w, struct mfs *fs);
/* modeljail.c: a model-jail world's own state (world_new_kind), and
 * its ops. */
void *modeljail_new(unsigned wall_ms, int fail_at);
extern const struct world_ops world_modeljail_ops;

/* zygote.c, in the session's process: start it (idempotent), and ask it
 * for a world of a kind.  On success *sock is the session's end of the
 * world's socket, *cap_rd and *ctl_wr its ends of the fake internet's
 * pipes (fakenet.h), and *pidfd the world's warden (kill it to end the
 * world).  The world may have been built before the request (a spare:
 * see zygote.c); its first message then waits in *sock.  0, or -1 with
 * errno. */
int zygote_start(void);
/* In a forked child: close the inherited control socket, forget the
 * zygote (world.h's world_zygote_forget); its pid, or -1. */
pid_t zygote_forget(void);
int zygote_ensure(void);
/* done: the warden of a world the session is done with (world_renew),
 * which the zygote kills a moment later (zygote.c: "Done worlds"), or 0. */
int zygote_spawn(int fail_at, int kind, uint64_t mem, pid_t done, int *sock,
    int *cap_rd, int *ctl_wr, int *pidfd, pid_t *pid);
/* Why CPython could not start in the zygote, or "". */
const char *zygote_failure(void);

struct jail_ids;
/* replica.c, in the zygote's child: build the world and run it; never
 * returns.  fail_at is a test hook (enum jail_step, 0 = none); ids, when
 * not NULL, the host ids the zygote holds for it (else it acquires its
 * own). */
void replica_main(int sock, int cap_wr, int ctl_rd, int fail_at, int kind,
    uint64_t mem, const struct jail_ids *ids) __attribute__((noreturn));
/* replica.c, in the zygote: whether it may hold the worlds' host ids and
 * hand them on (root, with the worlds' memory cgroup), and whether the
 * id uid, whose last world's warden has ended, has no process left (its
 * cgroup empty or never made). */
bool replica_ids_poolable(void);
bool replica_id_reusable(unsigned uid);
/* replica.c, in the zygote: remove the cgroup of an id it gives back. */
void replica_id_forget(unsigned uid);
/* replica.c, in the zygote: compile the worlds' seccomp filter and make
 * the fake internet's CA, once.
 * 0, or -1 with why. */
int replica_compile(char *why, size_t n);
/* In the zygote, once, still root: find the worlds' memory cgroup (see
 * jail_cgroup_prepare).  0 (with or without one), or -1: the machine has
 * one and it could not be set up, and every world refuses. */
int replica_cgroup_prepare(char *why, size_t n);

/* replica.c, shared with the gVisor worker (gvisor.c):
 * the replica's minimal /etc, {NULL, NULL}-terminated; */
struct world_etc_file {
	const char *path, *text;
};
extern const struct world_etc_file world_etc_files[];
/* a world's rlimits for a budget of mem bytes (--memory's) over
 * jail_mapped_bytes() (the base its RLIMIT_AS adds to), as its
 * container c says (within: none above what runsc set): 0, or -1 with
 * errno; */
int world_set_rlimits(const struct jail_container *c, uint64_t mem,
    uint64_t as_base);
/* the interpreter's child of PID 1, first thing: a process group of
 * its own, which Ctrl-C reaches (world.h's world_interrupt); */
void world_interp_group(void);
/* and PID 1 once the interpreter (interp) runs: reap orphans, pass
 * Ctrl-C on to the interpreter's group, and when the interpreter ends
 * send what it left (pyrun_ended) and exit. */
void world_init_main(int sock, int capfd, int wsdir, pid_t interp)
    __attribute__((noreturn));

/*
 * A world of an outside kind: run not by the zygote but by another
 * program (world.h's WORLD_KINDS, its launcher column): gVisor's runsc
 * (gvisor.c) or QEMU (microvm.c).  spawn starts one whose end of the
 * wire is sock: its state (heap), and *pidfd the program's to kill the
 * world; or NULL with why (nothing left running).  failure puts in why
 * what the program or the guest last said ("" for nothing; when it
 * ended, cpython.c waited for it on *pidfd first); interrupt passes
 * Ctrl-C on (world.h's world_interrupt) without waiting; reap, once the world was killed,
 * waits for the program, removes what it left and frees the state.  Its
 * words: name ("gVisor": "<name> could not start: ..."), sandbox
 * ("gVisor's sandbox": "<sandbox> ended during set-up"), says (whose
 * last words a failure gives), layer (the records' layer of what it
 * stopped), no_network (why a connection reached nothing), inside (where
 * a program the code ran ran).
 */
struct world_launcher {
	const char	*name, *sandbox, *says, *layer, *no_network, *inside;
	/* How long its set-up may take, ms (0: a zygote world's): a
	 * boot under emulation takes seconds. */
	unsigned	(*build_ms)(void);
	/* How it runs here, in words (world.h's world_kind_detail), or
	 * NULL. */
	const char	*(*detail)(void);
	void	*(*spawn)(int sock, int fail_at, uint64_t mem, int *pidfd,
		    char *why, size_t n);
	void	 (*failure)(void *st, char *why, size_t n);
	void	 (*interrupt)(void *st);
	void	 (*reap)(void *st);
};
/*
 * bundle.c, what the launchers share.  join: dir/rel in path, false
 * (ENAMETOOLONG) when it does not fit.  find: the program name on PATH,
 * or env_name's value when set; false with why (who is not there, the
 * Debian package that has it).  tmpdir: TMPDIR, or /tmp where it is
 * unset or odd.  make: a directory of the world's own,
 * tmpdir/sandboxrepl-what.XXXXXX, the janitor told of it (heap), or
 * NULL with why.  copy: src as dir/rel, read-only (0, or -1 with errno).
 * chown: the tree to id (0, or -1 with errno).  remove: the tree gone,
 * the janitor told, *dir freed and NULL.  tail: the last n - 1 bytes of
 * dir/rel in buf, NUL-terminated; how many.
 */
bool bundle_join(char *path, size_t n, const char *dir, const char *rel);
bool bundle_find(const char *env_name, const char *name, const char *who,
    const char *package, char *out, size_t n, char *why, size_t wn);
const char *bundle_tmpdir(void);
char *bundle_make(const char *tmpdir, const char *what, char *why,
    size_t n);
int bundle_copy(const char *src, const char *dir, const char *rel);
int bundle_chown(const char *dir, uid_t id);
void bundle_remove(char **dir);
size_t bundle_tail(const char *dir, const char *rel, char *buf, size_t n);
extern const struct world_launcher world_gvisor_launcher;
extern const struct world_launcher world_microvm_launcher;
/* A kind's launcher, or NULL: the zygote forks its worlds. */
const struct world_launcher *world_kind_launcher(int kind);
/*
 * gvisor.c: runsc running this program's worker mode in an OCI bundle
 * made for the world (the bundle, the world's own id as root, runsc's
 * state and the container's id).
 */
struct gvisor_proc {
	pid_t	 pid;		/* runsc, or 0 */
	char	*dir;		/* the bundle (heap), or NULL */
	int	 id_lock;	/* as root: the lock on the world's own id
				   (jail_ids.h), held until it is reaped;
				   else <= 2 */
	uid_t	 uid;		/* the id runsc runs as (0: the caller) */
	char	*runsc;		/* its path, */
	char	*state;		/* its --root=, */
	char	*id;		/* and the container's id (heap) */
	pid_t	 killer;	/* a runsc kill under way, or 0 */
};
/*
 * microvm.c: QEMU booting the guest (its bundle: this program shared
 * with the guest, console.log; as root the world's own id; the
 * interrupt port's socket).
 */
struct microvm_proc {
	pid_t	 pid;		/* QEMU, or 0 */
	char	*dir;		/* the bundle (heap), or NULL */
	int	 id_lock;	/* as gvisor_proc's */
	uid_t	 uid;		/* the id QEMU runs as (0: the caller) */
	int	 irq;		/* the interrupt port's socket, or -1 */
	bool	 kvm;		/* KVM, else TCG */
};
/*
 * janitor.c, in the session: start the process that removes what the
 * session's worlds leave on disk once the session is gone, however it
 * ends (idempotent; 0, or -1 with errno: then nothing is removed after a
 * kill); tell it of a gVisor bundle made, and of one removed; and that a
 * world was killed (its cgroup goes once its processes have).
 */
int janitor_start(void);
void janitor_bundle(const char *dir);
void janitor_bundle_gone(const char *dir);
void janitor_world_ended(void);
/* gvisor.c and microvm.c, first thing in main (world_worker_main):
 * argv[1] is the flag and the process is PID 1 of a sandbox or a guest:
 * be the worker, never return.  Otherwise return. */
#define GVISOR_WORKER_FLAG	"--gvisor-worker"
#define MICROVM_WORKER_FLAG	"--microvm-worker"
void gvisor_worker_main(int argc, char **argv);
void microvm_worker_main(int argc, char **argv);

/* pyrun.c, in the zygote: install the audit hook and initialise CPython
 * once.  0, or -1 with why. */
int pyrun_init(char *why, size_t n);
/* The CPython module the program loaded, for a gVisor worker to see
 * (pymod.c): its path in buf, or "" where pyrun.c is linked in. */
void pyrun_module_path(char *buf, size_t n);
/* For a worker that trusts no path's owner (gvisor.c): in the session, a
 * copy of the module it checked and loaded, in a memfd sealed against
 * any change, in *fd (0), or -1 with why; *fd is -1 where pyrun.c is
 * linked in.  In the worker, before pyrun_init: load the module from
 * what fd holds (copied into a sealed memfd of its own), not from a
 * path; 0, or -1 with why. */
int pyrun_module_sealed(int *fd, char *why, size_t n);
int pyrun_module_take(int fd, char *why, size_t n);
/* The embedded CPython's version, "3.11.2", in buf; NULL when CPython
 * cannot be loaded here. */
const char *pyrun_version(char *buf, size_t n);
/* pyrun.c, in the interpreter (PID 1's child) right after its fork. */
void pyrun_after_fork(void);
/* forks.c, in the interpreter: forks_watch() once (0, or -1 with
 * errno), forks_begin() as each input starts and forks_end() at its end: the copies of the
 * interpreter its code forked that are still running and never ran a
 * program end; how many. */
int forks_watch(void);
void forks_begin(void);
unsigned forks_end(void);
/* output.c, in the interpreter: output_start() once, making fds 1 and 2
 * pipes that a thread copies into capfd as {stream, text} frames (0, or
 * -1 with errno: then they stay the file); output_begin() as an input
 * starts (the file emptied), output_sync() before its reply (the pipes
 * drained), output_cut() the text bytes past the cap and output_total()
 * all the text written. */
int output_start(int capfd, int sock);
/* Send one frame on the session's socket (jail_wire_send), never
 * interleaved with another thread's: 0, or -1. */
int output_send(int fd, enum ww_type type, const void *a, size_t alen,
    const void *b, size_t blen);
void output_begin(void);
void output_sync(void);
uint64_t output_cut(void);
uint64_t output_total(void);
/* pyrun.c, in the interpreter once set-up is done: answer requests on
 * sock until it closes.  capfd is where fds 1 and 2 write (captured
 * output), wsdir the workspace.  Never returns. */
void pyrun_serve(int sock, int capfd, int wsdir) __attribute__((noreturn));
/* pyrun.c, in PID 1 when the interpreter ended with wait status ws: send
 * its output, the workspace and ws (wire.h's K).  Runs no Python. */
void pyrun_ended(int sock, int capfd, int wsdir, int ws);

/* cpython.c: the engine state of a new cpython world. */
void *world_cpython_new(unsigned wall_ms, int fail_at, int kind);

/*
 * jailkind.c: what a world of the jail kind adds (see world.h).
 * compile, in the zygote once: the jail's seccomp program (the jail's
 * table, jail_seccomp.c, with every refusal sent to a supervisor).
 * landlock and seccomp, in PID 1 after no_new_privs (0, or -1 with errno
 * and detail): landlock forks the supervisor (outside the code's domain)
 * before it restricts PID 1; seccomp loads the program with a listener
 * and hands it to the supervisor, which answers each refused call with
 * its errno and writes down which call it was, in a page PID 1 shares.
 * take, in PID 1 after an input: the refusals since the last take (at
 * most max into out, the rest counted in *dropped), how many; 0 in a
 * replica world.
 */
int jailkind_compile(char *why, size_t n);
int jailkind_landlock(char *detail, size_t n);
int jailkind_seccomp(char *detail, size_t n);
#define JAILKIND_MAX_REFUSALS	32
struct jailkind_refusal {
	int	nr;		/* the syscall */
	int	err;		/* the errno it got */
};
size_t jailkind_take(struct jailkind_refusal *out, size_t max,
    unsigned *dropped);

#endif
