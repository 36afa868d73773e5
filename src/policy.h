/*
 * policy.h -- what the sandbox path allows, as data.
 *
 * A policy is a table of what exists: node kinds, operators, call names,
 * commands and hosts that are allowed, plus the budget and the caps.  The
 * checker (check.c) and the command layers read it; nothing else decides.
 * Presets are static tables; a policy file (a later issue) fills the same
 * struct.
 */
#ifndef SANDBOXREPL_POLICY_H
#define SANDBOXREPL_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "ast.h"
#include "rt.h"

struct policy {
	const char		*name;
	const char		*summary;	/* one line, for headers */
	uint64_t		 nodes;		/* bit (1 << NODE_x) allowed */
	uint32_t		 binops;	/* bit (1 << BINOP_x) */
	uint32_t		 unaryops;
	uint32_t		 cmpops;
	uint32_t		 boolops;
	const char *const	*calls;		/* NULL-terminated */
	const char *const	*commands;	/* NULL-terminated */
	const char *const	*hosts;		/* NULL-terminated; empty: none */
	unsigned		 budget;	/* operations per session */
	struct limits		 limits;
};

/* The default number of operations the sandbox path may run. */
#define POLICY_DEFAULT_BUDGET 1000

/* Find a preset by name; NULL when there is none. */
const struct policy *policy_preset(const char *name);
/* Names of the presets, NULL-terminated. */
extern const char *const policy_preset_names[];
bool policy_allows_call(const struct policy *p, const char *name);
bool policy_allows_command(const struct policy *p, const char *name);
bool policy_allows_host(const struct policy *p, const char *host);

#endif
