/*
 * policy.h -- what the sandbox path allows, as data.
 *
 * A policy is a table of what exists: node kinds, operators, call names,
 * commands and hosts that are allowed, how attribute access and names are
 * treated, a textual blocklist, the budget and the caps.  The checker
 * (allowlist.c), the evaluator's name resolution (eval.c) and the sandbox's
 * layers (layers.c) read it; nothing else decides.
 *
 * Presets:
 *   essay      the essay's boundary: arithmetic on constants, names, lists
 *              and tuples; the six calls; read_file and write_file; no host.
 *   dunder     the rule several expression libraries adopted: most syntax,
 *              attribute access except names that start with '_', a broad
 *              set of harmless builtins.  Beaten by walking the object graph
 *              through public names (gi_frame.f_globals ...).
 *   blocklist  the filter agent frameworks shipped: everything, unless the
 *              source text contains a dangerous word.  Beaten by spelling
 *              the word differently ('op'+'en', fullwidth letters).
 * A policy file (policy_load) fills the same struct; see README.
 */
#ifndef SANDBOXREPL_POLICY_H
#define SANDBOXREPL_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "lang/ast.h"
#include "value/rt.h"
#include "base/strlist.h"

enum call_rule {
	CALLS_NAMED,	/* the callee must be a Name on the calls list */
	CALLS_ANY,	/* any callee; what names exist limits the calls */
};

enum name_rule {
	NAMES_CALLS,	/* the only builtins are those on the calls list */
	NAMES_ALL,	/* every builtin of the object model */
};

enum attr_rule {
	ATTRS_ALL,	/* any attribute (when the Attribute node is allowed) */
	ATTRS_PUBLIC,	/* not names that start with '_' */
};

struct policy {
	const char		*name;
	const char		*summary;	/* one line, for headers */
	const char		*filter;	/* what its code checks are
					   called in a verdict: "the
					   allowlist", "the dunder filter",
					   "the blocklist" */
	uint64_t		 nodes;		/* bit (1 << NODE_x) allowed */
	uint32_t		 binops;	/* bit (1 << BINOP_x) */
	uint32_t		 unaryops;
	uint32_t		 cmpops;
	uint32_t		 boolops;
	enum call_rule		 call_rule;
	enum name_rule		 name_rule;
	enum attr_rule		 attr_rule;
	bool			 object_model;	/* values have their attributes
						   (the unsafe path's model) */
	const char *const	*calls;		/* NULL-terminated */
	const char *const	*blocked_words;	/* in the source text */
	const char *const	*commands;	/* NULL-terminated */
	const char *const	*hosts;		/* NULL-terminated; empty: none */
	unsigned		 budget;	/* operations per session */
	const char		*jail;		/* the jail path's boundary,
					   "ns" or "gvisor" (session.h's
					   --jail), or NULL: the session's */
	struct limits		 limits;
};

/* The default number of operations the sandbox path may run. */
#define POLICY_DEFAULT_BUDGET 1000

/*
 * The names a policy file may list, as the program it guards answers
 * them: the policy only holds names, and asks through these (the
 * session's are session_policy_names), so that it needs neither the
 * object model nor the commands.  NULL in policy_parse: names are not
 * checked.
 */
struct policy_names {
	/* a builtin the evaluator or the object model answers to */
	bool (*is_builtin)(const char *name);
	/* a command (cmd.h) */
	bool (*is_command)(const char *name);
};

/* Find a preset by name; NULL when there is none. */
const struct policy *policy_preset(const char *name);
/* Names of the presets, NULL-terminated. */
extern const char *const policy_preset_names[];

/*
 * Load a policy file.  The result and its strings are heap-owned (free with
 * policy_free).  On error returns NULL and *err (heap) reads
 * "FILE:LINE: what is wrong".
 */
struct policy *policy_load(const char *path,
    const struct policy_names *names, char **err);
/* Parse policy text (the same format; name is for messages). */
struct policy *policy_parse(const char *name, const char *text, size_t len,
    const struct policy_names *names, char **err);
void policy_free(struct policy *p);
/* A preset name or a file: presets first, then a file when name has a '/'
 * or ends in ".policy" or names an existing file. */
const struct policy *policy_resolve(const char *name_or_file,
    const struct policy_names *names, char **err);

/*
 * Is name on the policy's calls list, and on which row?  (Inline: the
 * checker asks for every call and the evaluator for every builtin name,
 * and the evaluator needs no policy code to ask.  A plain search: a
 * first-byte index of the list made the essay expression 0.4% faster in
 * make bench, and the sandbox keeps a fast path only where it is worth
 * more than 10%.)
 */
static inline long
policy_call_row(const struct policy *p, const char *name)
{
	return strlist_index(p->calls, name);
}

static inline bool
policy_allows_call(const struct policy *p, const char *name)
{
	return policy_call_row(p, name) >= 0;
}
bool policy_allows_command(const struct policy *p, const char *name);

/*
 * Does the policy admit more than the essay's subset, so that the sandbox
 * path runs what it admits in CPython, in a world of its own (world.h,
 * kind offline), where worlds can be built?  The criterion is the object
 * model: a policy whose values have no attributes (object-model: no --
 * the essay, and files that extend it without saying otherwise) reaches
 * only the C evaluator's own builtins on plain values, where it agrees
 * with CPython and answers in microseconds; a policy whose values have
 * them (the dunder and blocklist presets, files that extend those or say
 * object-model: yes) lets code walk the object graph, and only CPython
 * answers that as CPython would -- including the escapes a weak filter
 * lets through.
 */
static inline bool
policy_runs_in_world(const struct policy *p)
{
	return p->object_model;
}
bool policy_allows_host(const struct policy *p, const char *host);

/*
 * A policy's list as a verdict reads it aloud: "sum, len, min, max, round,
 * abs"; past max names, "abs, all, any and 30 more"; "" when empty.  In a.
 */
struct arena;
const char *policy_list_words(struct arena *a, const char *const *list,
    size_t max);
/* What the policy's code checks are called in a verdict ("the allowlist",
 * "the dunder filter", "the blocklist"). */
const char *policy_filter_name(const struct policy *p);

#endif
