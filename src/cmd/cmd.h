/*
 * cmd.h -- computer-use commands: read_file, write_file, delete_file,
 * list_files, http_get, and the agent's shell, run_shell (a typed !ls).
 *
 * A command is a call of a registered name, its argument written as the
 * essay writes it, one dict, read_file({'path': 'report.txt'}), or as a
 * student guesses it, by position or by keyword: read_file('report.txt'),
 * read_file(path='report.txt'), write_file('out.txt', 'hi').  All three
 * make the same dict (cmd_make_args), as the worlds' CPython commands
 * do (cmd_world.c), so every path gives the same record.  Each command
 * is one file exporting one const struct cmd_entry: its checks, the
 * model's run(), its MCP tool's words and its worlds' Python.  COMMANDS
 * below is the table.  A name that is not in the table is not a command
 * and has no code path here.
 *
 * The entry says which argument keys exist, which are required, which one
 * is a path (checked by the surface layer), which one is a URL (checked by
 * the network layer), and whether the command writes (so the idempotency
 * layer applies).  run() performs the command on the path's workspace
 * (workspace.h: its files, and where its effects are written; never the
 * evaluator) once every layer has let it through.
 */
#ifndef SANDBOXREPL_CMD_H
#define SANDBOXREPL_CMD_H

#include <stdbool.h>
#include <stddef.h>

#include "value/value.h"

struct eval;
struct node;
struct rt;
struct workspace;

struct cmd_run {
	struct workspace *ws;		/* filesystem, effects, arena */
	value		 args;		/* the evaluated dict */
	bool		 unsafe;	/* no boundary: harm is "simulated" */
	const char	*message;	/* what the trace shows after "->" */
	value		 result;	/* the value the command returns */
};

struct cmd_entry {
	const char		*name;
	const char		*op;		/* its effect's op: "read" "write"
					   "delete" "list" "send" "exec" */
	const char		*example;	/* a call that works, for hints:
					   "read_file('report.txt')" */
	const char *const	*keys;		/* allowed keys, NULL-terminated;
					   but for "idempotency_key", also
					   the order of positional ones */
	const char *const	*required;	/* required keys */
	const char		*path_key;	/* surface-checked, or NULL */
	const char		*url_key;	/* network-checked, or NULL */
	bool			 writes;	/* idempotent writes apply */
	/* false with ws->rt->exc set on a Python-level error */
	bool			(*run)(struct cmd_run *r);

	/* For an agent's tool list (app/mcp.c): */
	const char		*title;		/* "Read a file" */
	const char		*description;	/* "Read a file from the
					   workspace." */
	const char *const	*docs;		/* what each key means, in
					   keys' order, NULL-terminated
					   (past it: "A string.") */
	struct cmd_hints {		/* MCP's tool annotations */
		bool	 read_only, destructive, idempotent, open_world;
	}			 hints;
	/*
	 * In a CPython world (cmd_world.c, world/pyrun.c): the body of the
	 * command's Python function, unindented, lines ending in "\n".  It
	 * runs with d, the checked argument dict, and sets said[0] to its
	 * message; what it returns is the call's value.
	 */
	const char		*world;
};

/* What the keys most commands share mean (docs). */
#define CMD_DOC_PATH "A name relative to the workspace, e.g. report.txt " \
	"(list_files: '.')."
#define CMD_DOC_IDEMPOTENCY_KEY "Optional. A retry with the same key and " \
	"arguments is answered from the ledger without acting again; the " \
	"same key with other arguments is refused. Without it, the command " \
	"and its arguments are the key."

/*
 * The command table: X(name) for each command, whose entry is
 * cmd_<name>_entry in src/cmd/cmd_<name>.c.  A new command is that file
 * and one X here (README: "How to add a command").  The order is the
 * worlds' (their functions are defined in it); lists for people are
 * sorted.  A test build adds its own with -D'CMD_EXTRA_COMMANDS(X)=...'.
 */
#ifndef CMD_EXTRA_COMMANDS
#define CMD_EXTRA_COMMANDS(X)
#endif
#define COMMANDS(X)				\
	X(read_file)				\
	X(write_file)				\
	X(delete_file)				\
	X(list_files)				\
	X(http_get)				\
	X(run_shell)				\
	CMD_EXTRA_COMMANDS(X)

#define X_CMD_DECL(n) extern const struct cmd_entry cmd_##n##_entry;
COMMANDS(X_CMD_DECL)
#undef X_CMD_DECL

/* The entry for name, or NULL when name is not a command. */
const struct cmd_entry *cmd_find(const char *name);
/* The command names, NULL-terminated, for completion and help. */
extern const char *const cmd_names[];
/* The i-th command of the table, or NULL past its end. */
const struct cmd_entry *cmd_at(size_t i);

/*
 * If the tree is a single command call, return its entry and the call node.
 * A command name used any other way is not a command call.
 */
const struct cmd_entry *cmd_match(const struct node *root,
    const struct node **call);

/* A string argument, or NULL when absent (cmd_args.c). */
const char *cmd_arg(const struct cmd_run *r, const char *key);

/*
 * The call's argument as one dict, from its evaluated positional values
 * and keywords, as the worlds' commands take it: one dict alone is the
 * argument; otherwise the values fill the entry's keys in order (at most
 * as many as it has, the idempotency key only by keyword) and the
 * keywords are added.  False with a TypeError naming a call that works
 * in rt->exc.  The dict is in rt's arena.
 */
bool cmd_make_args(struct rt *rt, const struct cmd_entry *e,
    const value *pos, size_t npos, const char *const *kwnames,
    const value *kwvals, size_t nkw, value *out);
/* How many positional arguments the entry takes (its keys less the
 * idempotency key). */
size_t cmd_positional(const struct cmd_entry *e);
/* Is the call's shape one a command takes (no *args, no **kwargs, no
 * more positional arguments than it has keys)?  If not, the TypeError's
 * message, with a call that works (arena). */
const char *cmd_shape_error(struct arena *a, const struct cmd_entry *e,
    const struct node *call);
/* Evaluate the call's arguments (eval_expr) into one dict: the above in
 * one step, for the model's paths.  False with the exception in ev. */
bool cmd_eval_args(struct eval *ev, const struct cmd_entry *e,
    const struct node *call, value *out);

/*
 * Check an evaluated argument: a dict with str keys from the entry's keys,
 * every required key present, every value a str.  On failure returns false
 * with a TypeError in rt->exc, which shows a call that works.
 */
bool cmd_check_args(struct rt *rt, const struct cmd_entry *e, value args);

/*
 * The surface layer: a path must be relative and stay inside the
 * workspace.  Returns NULL when allowed, else the reason (arena).
 */
const char *cmd_surface_check(struct arena *a, const char *path);
/* The host part of a URL (arena), or NULL when it has none. */
const char *cmd_url_host(struct arena *a, const char *url);

#endif
