/*
 * policy.c -- the preset policies.
 *
 * "essay" is the essay's boundary, exactly: arithmetic on constants, names,
 * lists and tuples; the six calls sum len min max round abs; the commands
 * read_file and write_file; no reachable host.
 */
#include "config.h"

#include <string.h>

#include "policy.h"

#define BIT(x) (UINT64_C(1) << (x))

static const char *const essay_calls[] = {
	"sum", "len", "min", "max", "round", "abs", NULL
};
static const char *const essay_commands[] = {
	"read_file", "write_file", NULL
};
static const char *const no_hosts[] = { NULL };

/* Caps shared by the presets: generous for real work, far below harm. */
#define DEFAULT_LIMITS {					\
	.max_steps = 1000000,					\
	.max_int_bits = UINT64_C(1) << 22,			\
	.max_seq_len = 1000000,					\
	.max_str_bytes = 16u << 20,				\
	.max_depth = 500,					\
}

static const struct policy essay = {
	.name = "essay",
	.summary = "AST allowlist + 6 calls, read_file/write_file, "
	    "budget, no network, idempotent writes",
	.nodes = BIT(NODE_EXPRESSION) | BIT(NODE_CONSTANT) | BIT(NODE_NAME) |
	    BIT(NODE_BINOP) | BIT(NODE_UNARYOP) | BIT(NODE_LIST) |
	    BIT(NODE_TUPLE) | BIT(NODE_CALL) | BIT(NODE_KEYWORD),
	.binops = BIT(BINOP_ADD) | BIT(BINOP_SUB) | BIT(BINOP_MULT) |
	    BIT(BINOP_DIV) | BIT(BINOP_FLOORDIV) | BIT(BINOP_MOD) |
	    BIT(BINOP_POW),
	.unaryops = BIT(UNARYOP_UADD) | BIT(UNARYOP_USUB),
	.cmpops = 0,
	.boolops = 0,
	.calls = essay_calls,
	.commands = essay_commands,
	.hosts = no_hosts,
	.budget = POLICY_DEFAULT_BUDGET,
	.limits = DEFAULT_LIMITS,
};

static const struct policy *const presets[] = { &essay };

const char *const policy_preset_names[] = { "essay", NULL };

const struct policy *
policy_preset(const char *name)
{
	size_t i;
	for (i = 0; i < sizeof presets / sizeof presets[0]; i++)
		if (strcmp(presets[i]->name, name) == 0)
			return presets[i];
	return NULL;
}

static bool
listed(const char *const *list, const char *name)
{
	for (; list != NULL && *list != NULL; list++)
		if (strcmp(*list, name) == 0)
			return true;
	return false;
}

bool
policy_allows_call(const struct policy *p, const char *name)
{
	return listed(p->calls, name);
}

bool
policy_allows_command(const struct policy *p, const char *name)
{
	return listed(p->commands, name);
}

bool
policy_allows_host(const struct policy *p, const char *host)
{
	return listed(p->hosts, host);
}
