/*
 * allowlist.h -- the AST allowlist: does a policy allow this tree?
 */
#ifndef SANDBOXREPL_ALLOWLIST_H
#define SANDBOXREPL_ALLOWLIST_H

#include <stdbool.h>

struct arena;
struct node;
struct policy;

/*
 * A refusal says why twice: reason is the sentence a student reads aloud,
 * naming what was refused and what the policy allows instead ("__import__
 * is not one of sum, len, min, max, round, abs"); essay is the rule's
 * short phrase, the essay's own words where the essay has them
 * ("disallowed function call"), which a scenario's trace lines use under
 * "wording essay" (scenario.h).
 */
struct check_result {
	const struct node *node;	/* the offending node, or NULL */
	const char	  *rule;	/* "nodes" "operators" "calls" */
	const char	  *reason;	/* the full sentence */
	const char	  *essay;	/* "disallowed function call" */
};

/*
 * Walk the tree in pre-order (a node before its children, children left to
 * right) and stop at the first node the policy does not allow.  Pre-order
 * is what makes the essay's answer come out: in
 * __import__('os').system('rm report.txt') the first thing the walk meets
 * is the outermost Call, whose callee is not one of the allowed names, so
 * the whole input is the essay's "disallowed function call".  (Its full
 * sentence names the call a student would point at: when the callee is
 * not a plain name, the first named call in it that the policy refuses,
 * here __import__.)  Returns true when everything is allowed.
 * Strings in *out live in the arena.  The walk uses an explicit stack, so a
 * deep tree cannot overflow the C stack.
 */
bool check_tree(const struct policy *p, const struct node *root,
    struct arena *a, struct check_result *out);
/* Test hook: check_tree() by the pre-order walk alone, without its fast
 * yes-or-no walk first (tests/test_check.c compares the two). */
bool check_tree_general(const struct policy *p, const struct node *root,
    struct arena *a, struct check_result *out);

/*
 * The policy's textual blocklist over the source (what naive filters do):
 * false when a blocked word occurs in src; the result names the word and
 * the smallest node whose span covers it.
 */
bool check_source(const struct policy *p, const struct node *root,
    const char *src, size_t len, struct arena *a, struct check_result *out);

/*
 * The policy's name rule for code that CPython runs (the sandbox path's
 * world, world.h), checked before it runs because CPython looks names up
 * itself: under "names: calls" a Name that would find one of CPython's
 * builtins or a dunder of __main__ must be on the policy's calls list,
 * as the evaluator's lookup has it (eval_lookup); and under any policy
 * no Name may be one of the five commands, which inside a world are its
 * interpreter's names: code reaches a command only as a command, through
 * the command layers.  Stricter than the evaluator's lookup in one way: a
 * local that shadows such a name is refused too.  Every Name is visited,
 * a named callee included; the first offender decides, as in
 * check_tree().
 */
bool check_names(const struct policy *p, const struct node *root,
    struct arena *a, struct check_result *out);
/* The name rule for one name id at node n (NULL when the name came from
 * a string the code ran): false with the refusal in *out. */
bool check_name(const struct policy *p, const char *id,
    const struct node *n, struct arena *a, struct check_result *out);

#endif
