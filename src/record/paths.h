/*
 * paths.h -- the paths and their boundaries, as two tables (paths.c).
 *
 * A path is a row: its name in records, its aliases, its words, whether
 * it is on by default, and the boundary it runs behind.  A boundary is a
 * kind: no boundary at all (the unsafe path), the essay's policy (the
 * sandbox's in-process layers), the host kernel's namespaces, gVisor.  A
 * kind's row says what its code runs in (the world kind, the model
 * engine's stand-in), the layers an input meets, how it refuses, and its
 * words on screen.  Code asks the rows (path_row(), boundary_row(), and
 * the session's session_boundary() for the kind in force) instead of
 * naming a path: "the path with a policy", "a path behind a kernel".
 *
 * A new boundary (a microVM) is one BOUNDARIES line and one row in
 * paths.c (and its world kind, world.h); a path that always runs behind
 * it is one PATHS line (record.h: the enum and the records' name) and
 * one row.  The "jail" path's kind is chosen by
 * --jail among the kinds whose row says jail_option.
 */
#ifndef SANDBOXREPL_PATHS_H
#define SANDBOXREPL_PATHS_H

#include <stdbool.h>
#include <stddef.h>

#include "record.h"	/* PATHS, enum path_id, enum layer */

#define PATH_BIT(p) (1u << (p))

/*
 * The boundary kinds: X(enum suffix, name, world kind).  The name is what
 * --jail, :jail and a policy's jail key take (for a kind whose row says
 * jail_option); the world kind (world.h's WORLD_KIND_ suffix) is the
 * CPython world its code runs in, and is expanded only where worlds are
 * made (session.c, and doctor.c, which builds one to diagnose a kind).
 *   none    no boundary: a replica world, or the model, in a throwaway copy
 *   policy  the essay's policy: the sandbox's layers, in-process; a policy
 *           wider than the essay's subset runs in an offline world
 *   ns      the host kernel's namespaces, Landlock and seccomp (jail.h,
 *           world.h's jail kind)
 *   gvisor  gVisor's runsc: a user-space kernel between the code and the
 *           host's (world.h's gvisor kind)
 */
#define BOUNDARIES(X)				\
	X(NONE,   "none",   REPLICA)		\
	X(POLICY, "policy", OFFLINE)		\
	X(NS,     "ns",     JAIL)		\
	X(GVISOR, "gvisor", GVISOR)		\
	X(MICROVM, "microvm", MICROVM)

#define X_ENUM(e, name, world) BOUNDARY_##e,
enum boundary { BOUNDARIES(X_ENUM) BOUNDARY__COUNT };
#undef X_ENUM

/* What stands between a path's code and the host: X(enum suffix, name). */
#define GUARDS(X)				\
	X(NONE,   "none")	/* nothing: harm lands, in a copy */	\
	X(POLICY, "policy")	/* a policy's checks, in-process */	\
	X(KERNEL, "kernel")	/* a kernel: contains, never falls back */

#define X_ENUM(e, name) GUARD_##e,
enum guard { GUARDS(X_ENUM) GUARD__COUNT };
#undef X_ENUM

/* What runs a kind's code under the model engine (--engine=model), and
 * where a CPython world cannot be built. */
enum boundary_model {
	MODEL_IN_WORLD,		/* the model world (world.h), in a copy */
	MODEL_IN_PROCESS,	/* the session's own evaluator, behind the
				   policy's layers */
	MODEL_IN_JAIL,		/* the model in its own kernel jail, per
				   input (world.h's model-jail kind) */
	MODEL_NEVER		/* CPython only: without it the path
				   refuses, never runs weaker */
};

struct boundary_row {
	enum boundary	 id;
	const char	*name;		/* "ns", "gvisor" */
	enum guard	 guard;
	bool		 jail_option;	/* --jail may choose it */
	enum boundary_model model;
	/* the layers an input meets, from parsing to its evaluation
	 * (layers_path): NULL for the sandbox's table (layers.c) */
	const enum layer *layers;
	size_t		 nlayers;
	/* a kernel kind's words: the layer a record names when it cannot be
	 * built ("jail refused, nothing ran"), the rule of what it contains
	 * ("kernel", "gvisor"), who contained it when no layer says
	 * ("gVisor"; NULL: the layer), and a label's tag (" (gVisor)", "") */
	enum layer	 refuses_at;
	const char	*rule;
	const char	*contained_by;
	const char	*tag;
	/* where harm done inside it was done, and what the host saw: "the
	 * jail's copy", "the host is untouched" (INSIDE's reason) */
	const char	*inside_where;
	const char	*inside_host;
	/* what a screen calls it beside a path's name ("jail gVisor") */
	const char	*title;
	/* a kernel kind's: can a command that sends a request (a command
	 * whose op is "send") or starts a program ("exec") ever succeed
	 * inside it (an MCP server lists only the tools that can) */
	bool		 can_send;
	bool		 can_exec;
	/* why it runs nothing without libpython (MODEL_NEVER), or NULL */
	const char	*needs_cpython;
	/* Its words on screen: the path's heading, longest first, ended by
	 * NULL (a policy's heading is made from the policy: NULL here), and
	 * what it is, in a phrase after the path's title; each with a
	 * variant for when its code runs in a CPython world (NULL: the
	 * same). */
	const char *const *headings;
	const char *const *headings_world;
	const char	*what;
	const char	*what_world;
	/* What --help says of a kind --jail takes, after its name ("the
	 * host kernel's namespaces, Landlock and seccomp"), or NULL: its
	 * name alone. */
	const char	*about;
};

struct path_row {
	enum path_id	 id;
	const char	*name;		/* in records: "jail:gvisor" */
	const char	*alias;		/* another name it answers to, or
					   NULL ("jail:ns") */
	enum boundary	 kind;		/* its boundary; with kind_by_jail,
					   the one before --jail chooses */
	bool		 kind_by_jail;	/* --jail and :jail choose its kind */
	bool		 on_by_default;	/* (PATHS_DEFAULT) */
	bool		 named_only;	/* runs only when asked for by name:
					   not among the paths a tool server
					   or the doctor takes by default */
	const char	*adjective;	/* the essay's labels: "jailed code" */
	const char	*code_label;	/* adjective + " code", that label
					   whole (a record's, once per input) */
	size_t		 code_label_len; /* its strlen; plain ASCII, which a
					   trace line shows as it is */
	const char	*title;		/* a phrase's subject: "Jail" */
	const char	*heading;	/* a column's first word: "JAIL" */
};

/* (inline: a --batch input asks the rows a dozen times) */
extern const struct path_row *const path_rows;		/* PATH__COUNT */
extern const struct boundary_row *const boundary_rows;	/* BOUNDARY__COUNT */
enum boundary boundary_jail_default(void);

static inline const struct path_row *
path_row(enum path_id p)
{
	return &path_rows[(unsigned)p < PATH__COUNT ? p : 0];
}

/* (a kind out of range is a bug; it gets the jail's kind, never none) */
static inline const struct boundary_row *
boundary_row(enum boundary b)
{
	return &boundary_rows[(unsigned)b < BOUNDARY__COUNT ? b :
	    boundary_jail_default()];
}

/* The paths on by default, all but the named-only ones, and those whose
 * own kind (before --jail) has guard g: masks of PATH_BIT()s. */
unsigned paths_default(void);
unsigned paths_offered(void);
unsigned paths_guarded(enum guard g);
#define PATHS_DEFAULT (paths_default())
/* Path p's own kind's guard (the jail path's is the kernel's, whatever
 * --jail chose). */
enum guard path_guard(enum path_id p);
/* The first path in mask whose own kind has guard g, or PATH__COUNT. */
enum path_id path_first(unsigned mask, enum guard g);
/* The path a reader looks at first among mask: the policy's, else the
 * first behind a kernel, else one without a boundary; PATH__COUNT when
 * mask holds none. */
enum path_id path_foremost(unsigned mask);
/* The path with the essay's policy (its budget, the sandbox's column). */
enum path_id path_policy(void);
/* Where a tool server runs the commands among the paths in mask: the
 * policy's path, else a kernel's, else one without a boundary (not a
 * named-only path); the policy's path when mask holds none of them. */
enum path_id path_home(unsigned mask);

/* Parse a name --jail takes ("ns", "gvisor"): false when unknown or not
 * a jail_option. */
bool boundary_parse(const char *name, enum boundary *out);
const char *boundary_name(enum boundary b);
/* The names --jail takes, in the table's order, joined by sep into buf
 * (n bytes, cut short where they do not fit): "ns|gvisor", "ns or
 * gvisor".  Texts that list the kinds ask this, never name them.  buf. */
const char *boundary_list(char *buf, size_t n, const char *sep);
/* The names in records of the paths in mask, joined by sep into buf as
 * boundary_list() does: "unsafe,sandbox,jail,jail:gvisor".  buf. */
const char *path_list(char *buf, size_t n, unsigned mask, const char *sep);
/* The kind before --jail chooses: the own kind of the first path whose
 * kind it chooses (declared above). */

#endif
