/*
 * world.h -- a world: where a path's code runs and its files live.
 *
 * One interface, two engines (STYLE.md rule 13: a step asks the world it
 * was given, never which path it is on):
 *
 *   model    sandboxrepl's own object model, in-process (src/mock*.c);
 *            its workspace is the path's mock filesystem itself, and its
 *            run is the session's evaluator, passed in with the input.
 *   cpython  Debian's CPython, embedded, in a disposable Linux world
 *            forked from a zygote (cpython.c, zygote.c, pyrun.c): user,
 *            mount, pid, net, ipc and uts namespaces, a tmpfs workspace
 *            seeded from the path's files, the host's /usr read-only, a
 *            replica /etc, rlimits, no capabilities, no_new_privs and a
 *            seccomp denylist.  Effects are real, to the replica; they
 *            come back as audit events, a workspace difference and the
 *            output the code wrote, every byte treated as hostile.
 *
 * The life of a world: world_build() (lazily, by the session, from the
 * path's files, an environment and set-up source), world_run() per input,
 * world_read_back() to copy the workspace into the path's files, and
 * world_free().  A world that died is rebuilt on the next world_run(),
 * and that reply says so (restarted).
 *
 * Errors are values: build fails with a reason (heap, caller frees); a
 * run always fills its reply.  Nothing here prints or exits the caller.
 */
#ifndef SANDBOXREPL_WORLD_H
#define SANDBOXREPL_WORLD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;
struct cmd_entry;
struct mfs;
struct node;
struct ns;
struct record;
struct world;

/* X(enum suffix, name in records) */
#define WORLD_ENGINES(X)			\
	X(MODEL,   "model")			\
	X(CPYTHON, "cpython")

#define X_ENUM(e, name) WORLD_ENGINE_##e,
enum world_engine { WORLD_ENGINES(X_ENUM) WORLD_ENGINE__COUNT };
#undef X_ENUM

/*
 * The kinds of world: CPython's (replica.c builds them all; jailkind.c
 * adds the jail's layers) and the model's own jail.  X(enum suffix,
 * name, its container: jail.h's JAIL_CONTAINERS row).
 *   replica  the unsafe path: no boundary for the code, the host's kept;
 *            its network namespace is the fake internet (fakenet.h)
 *   jail     the jail path: no network at all, Landlock, a seccomp filter
 *            that refuses programs, sockets and the kernel surface, and
 *            says which call it refused (a kill by a limit is the jail
 *            containing the code, not a bomb going off)
 *   offline  the sandbox path under a policy that admits more than the
 *            essay's subset (policy_runs_in_world): a replica whose
 *            network namespace stays empty, not even loopback, so what a
 *            weak filter let through really happens to the sandbox's own
 *            files and every connection fails as it fails with no network
 *   gvisor   the jail path under --jail=gvisor: the same CPython and
 *            wire protocol, inside gVisor's runsc (gvisor.c) instead of
 *            the host kernel's namespaces: programs run and files change
 *            inside its sandbox, the host kernel never sees the code's
 *            calls, and there is no network
 *   microvm  the jail path under --jail=microvm: the same CPython and
 *            wire protocol in a QEMU microvm guest (microvm.c) with a
 *            kernel of its own, KVM or emulated (TCG), no network device
 *   model-jail  the jail path under the model engine: the model
 *            evaluates each input in a fresh kernel jail of its own
 *            (modeljail.c, jailpath.h), its workspace a tmpfs holding the
 *            path's files
 * (A container row says its namespaces, root, network, filters and
 * limits.  The last column: the launcher of a kind whose world another
 * program runs, world_int.h, or NULL: the zygote forks it.)
 */
#define WORLD_KINDS(X)						\
	X(REPLICA, "replica", REPLICA, NULL)				\
	X(JAIL,    "jail",    JAIL_WORLD, NULL)				\
	X(OFFLINE, "offline", OFFLINE, NULL)				\
	X(GVISOR,  "gvisor",  GVISOR, &world_gvisor_launcher)		\
	X(MICROVM, "microvm", MICROVM, &world_microvm_launcher)	\
	X(MODEL_JAIL, "model-jail", MODEL, NULL)

#define X_ENUM(e, name, container, launcher) WORLD_KIND_##e,
enum world_kind { WORLD_KINDS(X_ENUM) WORLD_KIND__COUNT };
#undef X_ENUM

/* How a run ended. */
#define WORLD_STATUSES(X)					\
	X(OK,      "ok")	/* ran; result may be NULL (None) */	\
	X(RAISED,  "raised")	/* the code raised: error */		\
	X(KILLED,  "killed")	/* a limit stopped it; layer says which */ \
	X(LOST,    "lost")	/* the world broke or could not be built */

#define X_ENUM(e, name) WORLD_##e,
enum world_status { WORLD_STATUSES(X_ENUM) WORLD__COUNT };
#undef X_ENUM

/* What a world starts with.  Only read during world_build(). */
struct world_seed {
	const struct mfs	*fs;	/* the path's files */
	const char *const	*env;	/* "KEY=VALUE", NULL-terminated */
	const char		*setup;	/* source run before any input and
					   not reported (the teacher's
					   names), or NULL */
};

/* One effect, as the record tells it (record.h's struct effect). */
struct world_effect {
	const char	*op;
	const char	*target;
	const char	*category;	/* NULL: harmless, listed only */
	const char	*text;
	const char	*source;	/* "audit", "workspace", "output",
					   "world" (static) */
};

/* A piece of what the code and its programs wrote, in the order written:
 * neighbours of one stream are one chunk. */
struct world_chunk {
	const char	*stream;	/* "stdout" or "stderr" (static) */
	const char	*text;		/* len bytes, NUL-terminated */
	size_t		 len;
};

struct world_input {
	const char	*src;		/* the input as typed */
	size_t		 len;
	const char	*command;	/* a command's name, or NULL: code */
	bool		 setup;		/* run unreported (seeding names) */
	bool		 literals;	/* report the names bound to plain
					   data with their reprs (--state) */
	struct arena	*a;		/* the reply is allocated here */
	/* What the code writes, as it writes it, while it runs (or NULL):
	 * for a screen to show now; the reply's output is the record's.
	 * Called on the caller's thread during world_run(). */
	void		(*live)(void *ctx, const char *stream,
			    const char *text, size_t len);
	void		*live_ctx;
	/* Bytes of the workspace's contents the session may keep after
	 * this input (what its memory cap leaves for this path's files);
	 * a world's read-back keeps no more, nor more than the workspace
	 * can hold.  0: the workspace's size alone. */
	size_t		 files_cap;
	/* The model engine's run: the session's evaluator. */
	void		(*model_run)(void *ctx);
	void		*model_ctx;
	/* The input parsed, for the model in its own kernel jail (the
	 * model-jail kind), or NULL. */
	const struct world_parsed *parsed;
};

/* What the model-jail kind (modeljail.c) runs and where it writes: the
 * input's tree, a command's entry and its call node, the path's files
 * and names (the jail's workspace once it ran), and the record, which
 * it decides itself (world_reply.decided). */
struct world_parsed {
	const struct node	*root;
	const struct cmd_entry	*cmd;
	const struct node	*call;
	struct mfs		*fs;
	struct ns		*ns;
	struct record		*record;
};

struct world_reply {
	enum world_status status;
	bool		 decided;	/* model: the evaluator wrote the
					   record itself; nothing below */
	bool		 restarted;	/* the world had died and was rebuilt */
	const char	*result;	/* repr of the value, or NULL */
	const char	*message;	/* a command's own message, or NULL */
	const char	*error;		/* RAISED: "Cls: message"; KILLED and
					   LOST: why */
	const char	*layer;		/* KILLED: "timeout", "rlimit";
					   with refused: "seccomp" */
	const char	*refused;	/* a jail's kernel refused a call the
					   code made (it went on, or raised):
					   what, as the record says it */
	const char	*exited;	/* the interpreter ended (exit(),
					   quit(), SystemExit): how, as the
					   outcome says it, or NULL */
	const char	*output;	/* what the code printed, or NULL */
	const struct world_chunk *chunks;	/* the same, by stream */
	size_t		 nchunks;
	const char	*truncated;	/* what the caps left out of this
					   reply (the record's "truncated"),
					   or NULL */
	bool		 fs_partial;	/* the workspace was read back in
					   part */
	struct world_effect *effects;
	size_t		 neffects;
};

struct world_ops {
	enum world_engine engine;
	bool	 compiles;	/* it compiles the input itself: the
				   session's parser does not judge it */
	bool	(*build)(struct world *w, const struct world_seed *seed,
		    char **err);
	/* Send the input now and return (optional): the run_input that
	 * follows with the same input reads its reply, its wall clock
	 * counting from here.  So the session starts one input on every
	 * path's world before it reads any, and they run side by side. */
	void	(*start_input)(struct world *w, const struct world_input *in);
	void	(*run_input)(struct world *w, const struct world_input *in,
		    struct world_reply *out);
	/* An input started and never run (optional): end what it does. */
	void	(*settle)(struct world *w);
	/* Make fs the world's workspace as it is now. */
	void	(*read_back)(struct world *w, struct mfs *fs);
	void	(*destroy)(struct world *w);
	/* world_renew (optional): w, built, is about to be freed and next,
	 * of w's engine and kind, just made, replaces it: next may start
	 * its set-up now with w's seed as the session now has it. */
	void	(*renew)(struct world *w, struct world *next);
	/* The names its code binds now, sorted (owned by the world, valid
	 * until its next run), or NULL: the path's namespace (ns.h) has
	 * them. */
	const char *const *(*names)(const struct world *w, size_t *n);
	/* Of those, the ones bound to plain data after the last input run
	 * with literals, as 2 * *n strings: name, its repr, ...  (owned
	 * by the world, valid until its next run), or NULL. */
	const char *const *(*literals)(const struct world *w, size_t *n);
	/* Start its set-up now and return (optional): see world_prestart. */
	void	(*prestart)(struct world *w);
	/* See world_booting (optional). */
	bool	(*booting)(const struct world *w, double *secs, bool *ready);
};

struct world {
	const struct world_ops	*ops;
	enum world_kind		 kind;	/* of a CPython world; a model
					   world is a replica, or the
					   model's own jail (model-jail) */
	void			*impl;	/* the engine's own state */
	bool			 built;
};

/* Options every world of a session shares. */
struct world_opts {
	enum world_engine	 engine;
	bool			 fresh;		/* a new world per input */
	unsigned		 wall_ms;	/* per input; 0: the default */
};

#define WORLD_DEFAULT_WALL_MS	5000

const char *world_engine_name(enum world_engine e);
/* Parse "model" or "cpython"; false when unknown. */
bool world_engine_parse(const char *name, enum world_engine *out);

/*
 * The best engine this process can use: cpython when it was built with
 * libpython and a world can be built here (user namespaces), else model
 * with *why (static) saying what is missing.  Probes once (it builds and
 * destroys one world) and remembers the answer.
 */
enum world_engine world_best_engine(const char **why);

/* A world of engine e, not built yet.  wall_ms: per input (0: the
 * default); fail_at: a test hook, the set-up step to fail (0: none). */
struct world *world_new(enum world_engine e, unsigned wall_ms, int fail_at);
/* The same, of kind k (world_new: a replica).  The model engine's
 * worlds are a replica (the session's evaluator in-process) or, of kind
 * WORLD_KIND_MODEL_JAIL whatever e is, the model in its own kernel jail
 * per input (modeljail.c: the jail path's, jailpath.h; fail_at is the
 * jail's test hook then). */
struct world *world_new_kind(enum world_engine e, enum world_kind k,
    unsigned wall_ms, int fail_at);
/* The CPython worlds' memory budget follows --memory: input is what one
 * input may hold (session_opts.memory_input), a world's budget three
 * times that (world_int.h).  Worlds made after the call take it.
 * world_memory: the budget in force, bytes. */
void world_set_memory(uint64_t input);
uint64_t world_memory(void);
/* A process's address space over CPython's base in a world of budget
 * mem (world_memory()), bytes. */
uint64_t world_process_memory(uint64_t mem);
/* The CPython worlds run, "3.11.2" in buf, or NULL when this program has
 * none (built without libpython, or its module does not load). */
const char *world_python_version(char *buf, size_t n);
/* Does a world of kind k have the fake internet (fakenet.h)?  Without it
 * its network namespace is empty: no interface, no route, no name. */
bool world_kind_has_fakenet(enum world_kind k);
/* What a world of kind k's container is (jail.h), or NULL out of range. */
struct jail_container;
const struct jail_container *world_kind_container(enum world_kind k);
/* A kind whose world is a boundary (jail, gvisor, microvm): what the kernel under
 * it stops is contained, what happens inside is the sandbox's copy,
 * nothing is simulated. */
bool world_kind_contains(enum world_kind k);

/*
 * First thing in main: when this process is a world's worker inside a
 * sandbox (gvisor.c starts this program so), be that and never return;
 * otherwise return at once.  A program that builds gVisor worlds must
 * call it (sandboxrepl and the bench do): gvisor.c runs the program
 * itself, /proc/self/exe, as the worker, and one that does not call it
 * never says ready, so its world refuses after the build's timeout.
 */
void world_worker_main(int argc, char **argv);
void world_free(struct world *w);
/*
 * The world that replaces w after an input (--fresh-world: the session's
 * renew): a new world of w's engine and kind (wall_ms, fail_at as
 * world_new_kind's), then w freed.  When w was built, the new one is
 * told first that it replaces w, so that it may start its set-up with
 * w's seed -- w's files as its last reply left them, its environment,
 * its set-up -- while the user reads the answer (cpython.c: seeded
 * ahead); its world_build still decides (another seed starts over).
 * The new world, not built.
 */
struct world *world_renew(struct world *w, unsigned wall_ms, int fail_at);

bool world_build(struct world *w, const struct world_seed *seed, char **err);
/*
 * Start w's set-up now and return, for a world that takes seconds to
 * start (a microVM boots): the world_build() that follows waits only for
 * what is left, its time limit counted from here, and says why when the
 * start failed.  A no-op for a world built already or whose kind starts
 * at once.  world_booting: true while w was started ahead and is not
 * built, with *secs since it began and *ready once it is up (or has
 * failed: the build says how).
 */
void world_prestart(struct world *w);
bool world_booting(const struct world *w, double *secs, bool *ready);
/* How a world of kind k runs here where that varies, in words (static:
 * "tcg, emulated: slow"), or NULL: a microVM under KVM or TCG. */
const char *world_kind_detail(enum world_kind k);
void world_run(struct world *w, const struct world_input *in,
    struct world_reply *out);
/* Start in on w (a built world whose ops can: true) for the
 * world_run() with the same input that must follow; see
 * world_ops.start_input.  world_settle() ends one never run. */
bool world_start(struct world *w, const struct world_input *in);
void world_settle(struct world *w);
void world_read_back(struct world *w, struct mfs *fs);

/*
 * Ctrl-C (async-signal-safe: a SIGINT handler calls it): every input
 * running in a world now gets KeyboardInterrupt, as at Python's prompt --
 * WORLD_INTERRUPT_SIGNAL to its warden, which PID 1 passes on as SIGINT
 * to every process of the world -- and its world is killed if the code
 * has not ended a second later.  The flag stays until cleared (the
 * session clears it as each input starts).
 */
#define WORLD_INTERRUPT_SIGNAL	SIGUSR1
void world_interrupt(void);
void world_interrupt_clear(void);
bool world_interrupt_pending(void);
/* See world_ops.names; NULL when the world keeps no names of its own. */
const char *const *world_names(const struct world *w, size_t *n);
/* See world_ops.literals. */
const char *const *world_literals(const struct world *w, size_t *n);

/*
 * Start the zygote now, before the caller's heap grows (ui/main.c calls
 * it first thing).  Without it, the first cpython world starts it.  A
 * no-op without libpython.
 *
 * The zygote is this program again, exec'd with an argv and environment
 * of its own (zygote.c), so no world holds the session's environment or
 * command line.  A program needs nothing in its main() for that: a
 * constructor in zygote.c, linked into every program that builds
 * CPython worlds, makes the exec'd program the zygote before main().
 */
void world_zygote_start(void);
/*
 * In a process forked from the session's after its zygote started (the
 * MCP server's per-path workers, mcp_calls.c): let go of the parent's
 * zygote -- this process's copy of its control socket closed, nothing
 * sent, the zygote left to its parent -- so that this process starts a
 * zygote of its own (world_zygote_start, or its first world).  Two
 * processes never share one control socket: their requests and replies
 * would cross.  The zygote's pid, or -1 (none): a process that forgets
 * the zygote it started itself still has a child to reap.
 */
pid_t world_zygote_forget(void);

/*
 * What bounds a gVisor world's memory and CPU here, in words (static),
 * for --doctor: every world's rlimits, which gVisor enforces, and as
 * root a memory cgroup for the whole sandbox where the machine gives
 * one; or NULL without libpython.
 */
const char *gvisor_memory_bound(void);

/*
 * How a microVM world runs here, chosen once per process: KVM where
 * /dev/kvm runs a guest, else TCG, QEMU's emulation (slow), *why (static)
 * saying why.  microvm_accel_words: "kvm" or "tcg, emulated: slow", as
 * every place that names the boundary says it.  Without libpython: TCG,
 * "built without libpython".
 */
enum microvm_accel { MICROVM_TCG, MICROVM_KVM };
enum microvm_accel microvm_accel(const char **why);
const char *microvm_accel_words(void);
/* Are QEMU and the guest's images here?  true with where they are in
 * buf, or false with why not and the fix (for --doctor). */
bool microvm_found(char *buf, size_t n);
/* What bounds a microVM world's memory and CPU, in words (static). */
const char *microvm_memory_bound(void);

extern const struct world_ops world_model_ops;

#ifdef HAVE_PYTHON
extern const struct world_ops world_cpython_ops;
#endif

#endif
