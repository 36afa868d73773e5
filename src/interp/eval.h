/*
 * eval.h -- the tree-walking evaluator shared by every path.
 *
 * One evaluator serves the unsafe and the sandbox path; what differs is
 * what the names resolve to.  On the sandbox path only the policy's calls
 * exist (a reduced namespace, as the essay's interpreter has); on the
 * unsafe path the fallback object model (src/model/, reached through
 * ev->model: object.h) stands in for CPython's builtins and modules, and whatever dangerous thing the input does is
 * played out on the path's mock filesystem and written down as an effect.
 * Nothing on either path touches the host.
 *
 * An evaluation allocates in ev->rt.arena (the input line's arena) and
 * reports a Python exception or a cap refusal in ev->rt.exc, with the node
 * that raised it in ev->exc_node.  What it does to the world goes through
 * ev->ws (workspace.h), which is all a file operation or a command gets,
 * and is written down in ev->effects (effect.h).
 */
#ifndef SANDBOXREPL_EVAL_H
#define SANDBOXREPL_EVAL_H

#include <stdbool.h>
#include <stddef.h>

#include "record/effect.h"
#include "object.h"
#include "value/rt.h"
#include "value/value.h"
#include "fs/workspace.h"

struct builtin;
struct eval_calls;
struct eval_model;
struct node;
struct ns;

struct eval {
	struct rt		 rt;		/* arena, exception, caps */
	const struct eval_model	*model;		/* the object model (object.h) */
	bool			 full_model;	/* unsafe: all of the object model's
						   builtins and modules */
	const struct eval_calls	*calls;		/* sandbox: which calls exist,
						   or NULL: all */
	/* What the input acts on (ws.ops and ws.fs: the path's mock
	 * filesystem, or the real one inside a jail; ws.jailed: it runs as
	 * a jail's process) and what it did: eval_init() points ws.rt at
	 * rt and ws.effects at effects; the jail path sets effects.sink. */
	struct workspace	 ws;
	struct effect_log	 effects;	/* in the arena */
	struct ns		*ns;		/* the path's names */
	const char		*src;		/* the input, for messages */
	const struct node	*exc_node;	/* where the exception arose */
	struct scope		*scope;		/* innermost local scope */
	bool			 made_function;	/* a lambda was created */
	bool			 mutated;	/* a method changed a value in
						   place (list.append, ...): the
						   namespace must copy again */
	/* The name the policy's name rule withheld when the last NameError
	 * was raised (a builtin it does not give, as in eval("open")), or
	 * NULL: the sandbox tells that as its filter's refusal. */
	const char		*withheld;
};

/*
 * A lambda.  Its tree and closure live in the arena of the input that
 * made it; a session keeps that arena alive while the function may be
 * reachable (see ev->made_function).
 */
struct vfunction {
	struct vhead		 head;		/* mock_function_slots */
	const struct node	*lambda;	/* a NODE_LAMBDA */
	struct scope		*closure;	/* scopes it was made in */
	value			*defaults;	/* arguments.defaults, evaluated */
	value			*kw_defaults;	/* per kwonly arg; VT__COUNT: none */
	const char		*name;		/* "<lambda>" */
};

/*
 * What a sandbox's policy lets an evaluation reach, as data: the
 * evaluator knows no policy (policy.h is a layer above it).  Whoever
 * holds a policy makes one from it and gives it to every evaluation under
 * that policy (the session makes one per policy it takes); ev->calls
 * NULL is every builtin and no note.
 *  - calls_only: the only builtins are those list names (the essay's
 *    reduced namespace, a policy's "names: calls"); another is withheld
 *    (ev->withheld).  builtins[i] is builtin_find() of list[i], or NULL,
 *    so a call name's builtin is found by the one search that admits it.
 *  - notes_private: the policy forbids names that start with '_' (its
 *    "attributes: public"), which it checks on the syntax tree; reaching
 *    one the tree never shows (a format field's '{0.__class__}') is
 *    written down as an effect.
 * list is kept, not copied: it must outlive the result.
 */
struct eval_calls {
	const char *const	 *list;
	bool			  calls_only;
	bool			  notes_private;
	const struct builtin	**builtins;
	value			 *values;	/* builtin_value() of each, made
						   once: the lookup's answer */
};
struct eval_calls *eval_calls_new(const char *const *list, bool calls_only,
    bool notes_private);
void eval_calls_free(struct eval_calls *c);

/* Set up ev for one input, ev->ws and ev->effects with it (but for
 * ws.fs): its objects behave as model says (object.h), its workspace
 * acts through ops (workspace.h), and jailed says the input runs as a
 * jail's process (its effects are then real, not simulated).  The
 * caller fills the other fields. */
void eval_init(struct eval *ev, struct arena *a,
    const struct eval_model *model, const struct workspace_ops *ops,
    bool jailed);

/* A new object of the evaluation's model (ev->model->object) in rt's
 * arena: a range, an iterator, a dict view.  (Inline: the builtins that
 * make these need the model, not the evaluator.) */
static inline value
eval_object(struct rt *rt, enum mkind kind, const char *name)
{
	return rt->ev->model->object(rt->arena, kind, name);
}

/*
 * Evaluate a whole tree (EXPRESSION or MODULE).  *has_value is false when
 * the input was statements with no value to show (assignment, import).
 * Assignments go to ev->ns.
 */
bool eval_root(struct eval *ev, const struct node *root, value *out,
    bool *has_value);

/* Evaluate one expression node. */
bool eval_expr(struct eval *ev, const struct node *n, value *out);

/* Call a callable value (the rt->call hook uses this). */
bool eval_call_value(struct eval *ev, value fn, const value *args,
    size_t nargs, const char *const *kwnames, size_t nkw, value *out);

/* Look a name up as the path resolves it: names, then builtins. */
bool eval_lookup(struct eval *ev, const char *name, value *out);

#endif
