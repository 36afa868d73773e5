/*
 * The sandbox's layers, in the order an input meets them, as one table
 * (layers.c): the essay's boundary is this list.  Each layer is a function
 * that looks at the input (struct layer_call) and either lets it pass or
 * decides its record (struct layer_decision); session.c walks the table
 * and applies the first decision.  Where each layer's rule lives:
 *
 *   commands     policy.c (the command allowlist) and cmd.c (the call's shape)
 *   allowlist    allowlist.c (the AST walk, the blocklist, the name rule)
 *   budget       budget.c
 *   surface      surface.c
 *   network      network.c
 *   idempotency  idempotency.c (and its ledger, ledger.c)
 *
 * A command meets the command allowlist before its arguments' code is
 * checked, so "commands" comes first in the table; code has no command
 * and skips it.  The first three decide before anything is evaluated;
 * the last three look at a command's evaluated arguments.
 */
#ifndef SANDBOXREPL_LAYERS_H
#define SANDBOXREPL_LAYERS_H

#include <stdbool.h>

#include "record/paths.h"
#include "record/record.h"

struct arena;
struct cmd_entry;
struct cmd_run;
struct ledger;
struct node;
struct policy;

/* What the layers look at, for one input on one path.  Borrowed. */
struct layer_call {
	const struct policy	*policy;
	struct arena		*a;	/* the records' arena: what a decision
					   says is allocated here */
	const char		*input;	/* the input's source */
	const struct node	*root;	/* code: its tree; a command: NULL */
	const struct cmd_entry	*e;	/* a command, or NULL */
	const struct node	*call;	/* its call */
	bool			 names;	/* apply the name rule (check_names) */
	/* the budget: inputs used, of limit (budget.c counts one) */
	unsigned		*used;
	unsigned		 limit;
	/* a command's evaluated arguments, for the ARGS stage */
	const struct cmd_run	*run;
	const struct node	*arg;	/* the node its refusal marks */
	struct ledger		*ledger;
	/* set by the idempotency layer for a write that may run: what the
	 * ledger enters once it ran (both NULL for any other command) */
	const char		*key;
	const char		*args_canon;
};

/* A layer's decision: the record's verdict, layer, rule and reason. */
struct layer_decision {
	enum verdict		 verdict;
	enum layer		 layer;
	const char		*rule;
	const char		*reason;
	const char		*essay;	/* the rule in the essay's words, or
					   NULL (allowlist.h) */
	const char		*outcome; /* an ok decision's outcome, or NULL */
	const struct node	*node;	/* the node the record marks, or NULL */
	/* the effect the refusal stopped, recorded as refused (op NULL:
	 * none) */
	const char		*effect_op;
	const char		*effect_target;
};

/* True: the input passes this layer.  False: d is its decision. */
typedef bool layer_fn(struct layer_call *c, struct layer_decision *d);

enum layer_stage {
	LAYER_STAGE_CHECK,	/* before anything is evaluated */
	LAYER_STAGE_ARGS	/* a command's evaluated arguments */
};

/* A layer's name is record_layer_name(layer), from record.h's LAYERS. */
struct layer_entry {
	enum layer		 layer;
	enum layer_stage	 stage;
	bool			 commands_only;	/* code does not meet it: it
						   looks at a command or its
						   arguments */
	layer_fn		*decide;
};

/* The sandbox's layers in order, ended by an entry whose decide is NULL. */
extern const struct layer_entry sandbox_layers[];

/* The most layers layers_path() gives. */
#define LAYERS_PATH_MAX 10

/*
 * The layers an input of kind k meets behind boundary b (paths.h: the
 * kind in force on a path, session_boundary()), in order, from parsing to
 * its evaluation (LAYER_EVAL, a command's effect): behind the policy, the
 * table's that see its kind; behind any other kind, its row's (the
 * kernel jail's namespaces, Landlock, seccomp, rlimits; gVisor's; none
 * between on the unsafe path).  Returns how many are in out.  (The UI's
 * layer strip draws these.)
 */
size_t layers_path(enum boundary b, enum input_kind k,
    enum layer out[LAYERS_PATH_MAX]);

/*
 * Walk the layers of one stage in order, up to and including the layer
 * last (LAYER__COUNT: all of them): true when the input passed them all,
 * else false with the first decision in d.
 */
bool layers_walk(enum layer_stage stage, enum layer last,
    struct layer_call *c, struct layer_decision *d);

/* The decision of the policy's checker when it said no (allowlist.c). */
struct check_result;
void layers_blocked(const struct check_result *cr, struct layer_decision *d);

/* One layer each (their files name them). */
layer_fn commands_decide;	/* layers.c: policy.c's list, cmd.c's shape */
layer_fn command_shape_decide;	/* layers.c: cmd.c's shape alone, which the
				   paths without the sandbox's layers ask */
layer_fn allowlist_decide;	/* allowlist.c */
layer_fn budget_decide;		/* budget.c */
layer_fn surface_decide;	/* surface.c */
layer_fn network_decide;	/* network.c */
layer_fn idempotency_decide;	/* idempotency.c */

#endif
