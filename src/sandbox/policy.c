/*
 * policy.c -- the preset policies and policy files.
 *
 * A policy file is line-oriented, "key: value", '#' comments:
 *
 *   extends: essay                 start from a preset (default: essay)
 *   name: classroom
 *   nodes: Expression Constant Name BinOp UnaryOp List Tuple Call keyword
 *   operators: + - * / // % ** -u +u       (binary, then unary as -u +u ~ not)
 *   compare: == != < <= > >= in not-in is is-not
 *   boolops: and or
 *   calls: sum len min max round abs
 *   call-rule: named | any
 *   names: calls | all
 *   attributes: all | public
 *   object-model: yes | no
 *   blocked-words: import eval exec open os system
 *   commands: read_file write_file
 *   hosts: example.org
 *   budget: 20
 *   jail: ns | gvisor              the jail path's boundary (--jail: a
 *                                  kind whose row says jail_option, paths.h)
 *   max-steps / max-int-bits / max-seq-len / max-str-bytes / max-depth: N
 *
 * A list value replaces the preset's list; an unknown key, node name,
 * operator or command is an error naming the file and line.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/arena.h"
#include "record/paths.h"
#include "policy.h"
#include "base/sbuf.h"
#include "base/xalloc.h"
#include "base/strlist.h"

#define BIT(x) (UINT64_C(1) << (x))
#define MAX_POLICY_BYTES (1u << 20)

static const char *const essay_calls[] = {
	"sum", "len", "min", "max", "round", "abs", NULL
};
static const char *const dunder_calls[] = {
	"abs", "all", "any", "bin", "bool", "chr", "dict", "divmod",
	"enumerate", "filter", "float", "format", "hex", "int", "isinstance",
	"len", "list", "map", "max", "min", "oct", "ord", "pow", "range",
	"repr", "reversed", "round", "set", "sorted", "str", "sum", "tuple",
	"zip", NULL
};
static const char *const blocked_words[] = {
	"import", "eval", "exec", "open", "os", "system", "subprocess", NULL
};
static const char *const essay_commands[] = {
	"read_file", "write_file", NULL
};
static const char *const no_list[] = { NULL };

/* Caps shared by the presets: generous for real work, far below harm. */
#define DEFAULT_LIMITS {					\
	.max_steps = 4000000,					\
	.max_int_bits = UINT64_C(1) << 22,			\
	.max_seq_len = 1000000,					\
	.max_str_bytes = 16u << 20,				\
	.max_depth = 500,					\
}

#define ALL_BINOPS	((UINT32_C(1) << BINOP__COUNT) - 1)
#define ALL_UNARYOPS	((UINT32_C(1) << UNARYOP__COUNT) - 1)
#define ALL_CMPOPS	((UINT32_C(1) << CMPOP__COUNT) - 1)
#define ALL_BOOLOPS	((UINT32_C(1) << BOOLOP__COUNT) - 1)
#define ALL_NODES	((UINT64_C(1) << NODE__COUNT) - 1)

/* ---- presets ---- */

static const struct policy essay = {
	.name = "essay",
	.summary = "AST allowlist + 6 calls, read_file/write_file, "
	    "budget, no network, idempotent writes",
	.filter = "the allowlist",
	.nodes = BIT(NODE_EXPRESSION) | BIT(NODE_CONSTANT) | BIT(NODE_NAME) |
	    BIT(NODE_BINOP) | BIT(NODE_UNARYOP) | BIT(NODE_LIST) |
	    BIT(NODE_TUPLE) | BIT(NODE_CALL) | BIT(NODE_KEYWORD),
	.binops = BIT(BINOP_ADD) | BIT(BINOP_SUB) | BIT(BINOP_MULT) |
	    BIT(BINOP_DIV) | BIT(BINOP_FLOORDIV) | BIT(BINOP_MOD) |
	    BIT(BINOP_POW),
	.unaryops = BIT(UNARYOP_UADD) | BIT(UNARYOP_USUB),
	.call_rule = CALLS_NAMED,
	.name_rule = NAMES_CALLS,
	.attr_rule = ATTRS_ALL,
	.calls = essay_calls,
	.blocked_words = no_list,
	.commands = essay_commands,
	.hosts = no_list,
	.budget = POLICY_DEFAULT_BUDGET,
	.limits = DEFAULT_LIMITS,
};

static const struct policy dunder = {
	.name = "dunder",
	.summary = "no names starting with '_', broad safe builtins "
	    "(the rule expression libraries adopted)",
	.filter = "the dunder filter",
	.nodes = ALL_NODES & ~(BIT(NODE_MODULE) | BIT(NODE_ASSIGN) |
	    BIT(NODE_AUGASSIGN) | BIT(NODE_IMPORT) | BIT(NODE_IMPORTFROM) |
	    BIT(NODE_ALIAS)),
	.binops = ALL_BINOPS,
	.unaryops = ALL_UNARYOPS,
	.cmpops = ALL_CMPOPS,
	.boolops = ALL_BOOLOPS,
	.call_rule = CALLS_ANY,
	.name_rule = NAMES_CALLS,
	.attr_rule = ATTRS_PUBLIC,
	.object_model = true,
	.calls = dunder_calls,
	.blocked_words = no_list,
	.commands = essay_commands,
	.hosts = no_list,
	.budget = POLICY_DEFAULT_BUDGET,
	.limits = DEFAULT_LIMITS,
};

static const struct policy blocklist = {
	.name = "blocklist",
	.summary = "everything unless the code says import, eval, exec, "
	    "open, os, system ... (the filter agents shipped)",
	.filter = "the blocklist",
	.nodes = ALL_NODES,
	.binops = ALL_BINOPS,
	.unaryops = ALL_UNARYOPS,
	.cmpops = ALL_CMPOPS,
	.boolops = ALL_BOOLOPS,
	.call_rule = CALLS_ANY,
	.name_rule = NAMES_ALL,
	.attr_rule = ATTRS_ALL,
	.object_model = true,
	.calls = essay_calls,
	.blocked_words = blocked_words,
	.commands = essay_commands,
	.hosts = no_list,
	.budget = POLICY_DEFAULT_BUDGET,
	.limits = DEFAULT_LIMITS,
};

static const struct policy *const presets[] = { &essay, &dunder, &blocklist };

const char *const policy_preset_names[] = { "essay", "dunder", "blocklist",
    NULL };

const struct policy *
policy_preset(const char *name)
{
	size_t i;
	for (i = 0; i < sizeof presets / sizeof presets[0]; i++)
		if (strcmp(presets[i]->name, name) == 0)
			return presets[i];
	return NULL;
}

bool
policy_allows_command(const struct policy *p, const char *name)
{
	return strlist_has(p->commands, name);
}

bool
policy_allows_host(const struct policy *p, const char *host)
{
	return strlist_has(p->hosts, host);
}

const char *
policy_list_words(struct arena *a, const char *const *list, size_t max)
{
	struct sbuf b = SBUF_INIT;
	const char *s;
	size_t n = 0, i;

	while (list != NULL && list[n] != NULL)
		n++;
	for (i = 0; i < n && i < max; i++)
		sbuf_addf(&b, "%s%s", i == 0 ? "" : ", ", list[i]);
	if (n > max)
		sbuf_addf(&b, " and %zu more", n - max);
	s = arena_strdup(a, sbuf_cstr(&b));
	sbuf_free(&b);
	return s;
}

const char *
policy_filter_name(const struct policy *p)
{
	return p != NULL && p->filter != NULL ? p->filter : "the allowlist";
}

/* ---- policy files ---- */

/* A loaded policy owns its strings: one block of names per list. */
struct owned_policy {
	struct policy	 p;
	char		**strings;	/* heap blocks to free (heap) */
	int		 nstrings, capstrings;
};

/* Split value into a NULL-terminated list of words (heap). */
static const char *const *
words(struct owned_policy *op, const char *text)
{
	size_t n = 0, i = 0, len = strlen(text);
	char *copy = xstrdup(text), **list, *p;

	for (p = copy; *p; p++)
		if (*p == ',' || *p == '\t')
			*p = ' ';
	for (p = copy; *p; ) {
		while (*p == ' ')
			p++;
		if (*p)
			n++;
		while (*p && *p != ' ')
			p++;
	}
	list = xcalloc(n + 1, sizeof *list);
	for (p = copy; *p && i < n; ) {
		while (*p == ' ')
			*p++ = '\0';
		if (*p)
			list[i++] = p;
		while (*p && *p != ' ')
			p++;
	}
	(void)len;
	/* every block is kept, however many list lines the file has */
	if (op->nstrings + 2 > op->capstrings) {
		op->capstrings = op->capstrings ? op->capstrings * 2 : 16;
		op->strings = xreallocarray(op->strings,
		    (size_t)op->capstrings, sizeof *op->strings);
	}
	op->strings[op->nstrings++] = copy;
	op->strings[op->nstrings++] = (char *)list;
	return (const char *const *)list;
}

static bool
fail(char **err, const char *name, unsigned line, const char *what,
    const char *arg)
{
	*err = xasprintf("%s:%u: %s%s%s%s", name, line, what,
	    arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
	return false;
}

static bool
parse_number(const char *v, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long n;
	errno = 0;
	n = strtoull(v, &end, 10);
	while (*end == ' ')
		end++;
	if (errno != 0 || end == v || *end != '\0' || n > max)
		return false;
	*out = n;
	return true;
}

/* One "key = value" line of a policy file, where it is and what it goes
 * into: what every key's setter below is given. */
struct setting {
	struct owned_policy		*op;
	struct policy			*p;
	const struct policy_names	*names;	/* NULL: names not checked */
	const char			*file;
	unsigned			 line;
	char				**err;
};

static bool
bad(const struct setting *s, const char *what, const char *arg)
{
	return fail(s->err, s->file, s->line, what, arg);
}

static bool
key_name(const struct setting *s, const char *key, const char *val)
{
	struct policy *p = s->p;

	(void)key;
	p->name = words(s->op, val)[0];
	if (p->name == NULL)
		return bad(s, "name wants a word", NULL);
	return true;
}

static bool
key_nodes(const struct setting *s, const char *key, const char *val)
{
	struct policy *p = s->p;
	const char *const *w;
	size_t i;

	(void)key;
	p->nodes = 0;
	for (w = words(s->op, val); *w; w++) {
		for (i = 0; i < NODE__COUNT; i++)
			if (strcmp(ast_kind_name((enum node_kind)i),
			    *w) == 0)
				break;
		if (i == NODE__COUNT)
			return bad(s, "unknown node type", *w);
		p->nodes |= BIT(i);
	}
	/* comparison and boolean operators listed earlier keep their
	 * nodes */
	if (p->cmpops != 0)
		p->nodes |= BIT(NODE_COMPARE);
	if (p->boolops != 0)
		p->nodes |= BIT(NODE_BOOLOP);
	return true;
}

static bool
key_operators(const struct setting *s, const char *key, const char *val)
{
	struct policy *p = s->p;
	const char *const *w;
	size_t i;

	(void)key;
	p->binops = p->unaryops = 0;
	for (w = words(s->op, val); *w; w++) {
		bool found = false;
		for (i = 0; i < BINOP__COUNT && !found; i++)
			if (strcmp(ast_binop_symbol(i), *w) == 0) {
				p->binops |= (uint32_t)BIT(i);
				found = true;
			}
		for (i = 0; i < UNARYOP__COUNT && !found; i++) {
			const char *sym = ast_unaryop_symbol(i);
			char u[8];
			snprintf(u, sizeof u, "%su", sym);
			if (strcmp(u, *w) == 0 || (strcmp(sym, "not") == 0 &&
			    strcmp(*w, "not") == 0) ||
			    (strcmp(sym, "~") == 0 && strcmp(*w, "~") == 0)) {
				p->unaryops |= (uint32_t)BIT(i);
				found = true;
			}
		}
		if (!found)
			return bad(s, "unknown operator", *w);
	}
	return true;
}

static bool
key_compare(const struct setting *s, const char *key, const char *val)
{
	struct policy *p = s->p;
	const char *const *w;
	size_t i;

	(void)key;
	p->cmpops = 0;
	for (w = words(s->op, val); *w; w++) {
		for (i = 0; i < CMPOP__COUNT; i++) {
			char sym[16];
			size_t k;
			snprintf(sym, sizeof sym, "%s", ast_cmpop_symbol(i));
			for (k = 0; sym[k]; k++)
				if (sym[k] == ' ')
					sym[k] = '-';
			if (strcmp(sym, *w) == 0)
				break;
		}
		if (i == CMPOP__COUNT)
			return bad(s, "unknown comparison", *w);
		p->cmpops |= (uint32_t)BIT(i);
	}
	if (p->cmpops != 0)	/* the operators imply the node */
		p->nodes |= BIT(NODE_COMPARE);
	return true;
}

static bool
key_boolops(const struct setting *s, const char *key, const char *val)
{
	struct policy *p = s->p;
	const char *const *w;

	(void)key;
	p->boolops = 0;
	for (w = words(s->op, val); *w; w++) {
		if (strcmp(*w, "and") == 0)
			p->boolops |= BIT(BOOLOP_AND);
		else if (strcmp(*w, "or") == 0)
			p->boolops |= BIT(BOOLOP_OR);
		else
			return bad(s, "unknown boolean operator", *w);
	}
	if (p->boolops != 0)
		p->nodes |= BIT(NODE_BOOLOP);
	return true;
}

/* Every word is one known gets (none is checked without names). */
static bool
all_known(const struct setting *s, const char *const *w,
    bool (*known)(const char *name), const char *unknown)
{
	for (; known != NULL && *w; w++)
		if (!known(*w))
			return bad(s, unknown, *w);
	return true;
}

static bool
key_calls(const struct setting *s, const char *key, const char *val)
{
	(void)key;
	s->p->calls = words(s->op, val);
	/* only names a builtin answers to: a typo is caught here, not
	 * as a NameError in front of the class */
	return all_known(s, s->p->calls,
	    s->names ? s->names->is_builtin : NULL, "unknown builtin");
}

static bool
key_commands(const struct setting *s, const char *key, const char *val)
{
	(void)key;
	s->p->commands = words(s->op, val);
	return all_known(s, s->p->commands,
	    s->names ? s->names->is_command : NULL, "unknown command");
}

/* blocked-words, hosts: words, unchecked. */
static bool
key_words(const struct setting *s, const char *key, const char *val)
{
	if (strcmp(key, "hosts") == 0)
		s->p->hosts = words(s->op, val);
	else
		s->p->blocked_words = words(s->op, val);
	return true;
}

/* call-rule, names, attributes, object-model: one word of a few. */
static bool
key_rule(const struct setting *s, const char *key, const char *val)
{
	struct policy *p = s->p;
	const char *v = words(s->op, val)[0];

	if (v == NULL)
		return bad(s, "missing value for", key);
	if (strcmp(key, "call-rule") == 0 && strcmp(v, "named") == 0)
		p->call_rule = CALLS_NAMED;
	else if (strcmp(key, "call-rule") == 0 && strcmp(v, "any") == 0)
		p->call_rule = CALLS_ANY;
	else if (strcmp(key, "names") == 0 && strcmp(v, "calls") == 0)
		p->name_rule = NAMES_CALLS;
	else if (strcmp(key, "names") == 0 && strcmp(v, "all") == 0)
		p->name_rule = NAMES_ALL;
	else if (strcmp(key, "attributes") == 0 &&
	    strcmp(v, "all") == 0)
		p->attr_rule = ATTRS_ALL;
	else if (strcmp(key, "attributes") == 0 &&
	    strcmp(v, "public") == 0)
		p->attr_rule = ATTRS_PUBLIC;
	else if (strcmp(key, "object-model") == 0 &&
	    (strcmp(v, "yes") == 0 || strcmp(v, "no") == 0))
		p->object_model = strcmp(v, "yes") == 0;
	else
		return bad(s, "bad value", v);
	return true;
}

/* max-steps, max-int-bits, max-seq-len, max-str-bytes: a positive cap. */
static bool
key_cap(const struct setting *s, const char *key, const char *val)
{
	static const struct { const char *key; size_t off; uint64_t max; }
	    caps[] = {
		{ "max-steps", offsetof(struct limits, max_steps),
		  UINT64_C(1) << 40 },
		{ "max-int-bits", offsetof(struct limits, max_int_bits),
		  UINT64_C(1) << 32 },
		{ "max-seq-len", offsetof(struct limits, max_seq_len),
		  UINT64_C(1) << 32 },
		{ "max-str-bytes", offsetof(struct limits, max_str_bytes),
		  UINT64_C(1) << 32 },
	};
	uint64_t n;
	size_t i;

	for (i = 0; i < sizeof caps / sizeof caps[0]; i++)
		if (strcmp(key, caps[i].key) == 0) {
			if (!parse_number(val, caps[i].max, &n) || n == 0)
				return bad(s, "wants a positive number:", key);
			*(uint64_t *)((char *)&s->p->limits + caps[i].off) = n;
			return true;
		}
	return bad(s, "unknown key", key);	/* not reached: see keys[] */
}

static bool
key_max_depth(const struct setting *s, const char *key, const char *val)
{
	uint64_t n;

	(void)key;
	if (!parse_number(val, 5000, &n) || n == 0)
		return bad(s, "max-depth wants 1 to 5000", NULL);
	s->p->limits.max_depth = (unsigned)n;
	return true;
}

static bool
key_jail(const struct setting *s, const char *key, const char *val)
{
	const char *const *w = words(s->op, val);
	enum boundary b;
	char list[128], what[160];

	(void)key;
	/* (a kind --jail takes: paths.h) */
	if (w[0] == NULL || w[1] != NULL || !boundary_parse(w[0], &b)) {
		snprintf(what, sizeof what, "jail wants %s",
		    boundary_list(list, sizeof list, " or "));
		return bad(s, what, NULL);
	}
	s->p->jail = w[0];
	return true;
}

static bool
key_budget(const struct setting *s, const char *key, const char *val)
{
	uint64_t n;

	(void)key;
	if (!parse_number(val, 1000000, &n))
		return bad(s, "budget wants 0 to 1000000", NULL);
	s->p->budget = (unsigned)n;
	return true;
}

/* Every key a policy file may set, and its setter: a key not here is
 * "unknown key". */
static const struct {
	const char	*key;
	bool		(*set)(const struct setting *, const char *key,
			    const char *val);
} policy_keys[] = {
	{ "name", key_name },
	{ "nodes", key_nodes },
	{ "operators", key_operators },
	{ "compare", key_compare },
	{ "boolops", key_boolops },
	{ "calls", key_calls },
	{ "blocked-words", key_words },
	{ "commands", key_commands },
	{ "hosts", key_words },
	{ "call-rule", key_rule },
	{ "names", key_rule },
	{ "attributes", key_rule },
	{ "object-model", key_rule },
	{ "max-steps", key_cap },
	{ "max-int-bits", key_cap },
	{ "max-seq-len", key_cap },
	{ "max-str-bytes", key_cap },
	{ "max-depth", key_max_depth },
	{ "jail", key_jail },
	{ "budget", key_budget },
};

static bool
set_key(struct owned_policy *op, const struct policy_names *names,
    const char *name, unsigned line, const char *key, const char *val,
    char **err)
{
	const struct setting s = { op, &op->p, names, name, line, err };
	size_t i;

	for (i = 0; i < sizeof policy_keys / sizeof policy_keys[0]; i++)
		if (strcmp(key, policy_keys[i].key) == 0)
			return policy_keys[i].set(&s, key, val);
	return fail(err, name, line, "unknown key", key);
}

struct policy *
policy_parse(const char *name, const char *text, size_t len,
    const struct policy_names *names, char **err)
{
	struct owned_policy *op = xcalloc(1, sizeof *op);
	size_t pos = 0;
	unsigned line = 0;
	bool named = false;

	*err = NULL;
	op->p = essay;
	if (memchr(text, '\0', len) != NULL) {
		fail(err, name, 1, "contains a NUL byte", NULL);
		policy_free(&op->p);
		return NULL;
	}
	while (pos < len) {
		size_t n = 0;
		char *l, *colon, *key, *val, *e;
		while (pos + n < len && text[pos + n] != '\n')
			n++;
		line++;
		l = xstrndup(text + pos, n);
		pos += n + 1;
		if ((e = strchr(l, '#')) != NULL)
			*e = '\0';
		for (key = l; *key == ' ' || *key == '\t'; key++)
			;
		for (e = key + strlen(key); e > key && (e[-1] == ' ' ||
		    e[-1] == '\t' || e[-1] == '\r'); e--)
			e[-1] = '\0';
		if (*key == '\0') {
			free(l);
			continue;
		}
		colon = strchr(key, ':');
		if (colon == NULL) {
			fail(err, name, line, "expected 'key: value'", NULL);
			free(l);
			policy_free(&op->p);
			return NULL;
		}
		*colon = '\0';
		for (e = colon; e > key && e[-1] == ' '; e--)
			e[-1] = '\0';
		for (val = colon + 1; *val == ' ' || *val == '\t'; val++)
			;
		if (strcmp(key, "extends") == 0) {
			const struct policy *base = policy_preset(val);
			if (base == NULL || op->nstrings > 0) {
				fail(err, name, line, base ? "extends must come "
				    "first" : "unknown preset", base ? NULL : val);
				free(l);
				policy_free(&op->p);
				return NULL;
			}
			op->p = *base;
		} else if (!set_key(op, names, name, line, key, val, err)) {
			free(l);
			policy_free(&op->p);
			return NULL;
		}
		named |= strcmp(key, "name") == 0;
		free(l);
	}
	if (!named)
		op->p.name = "custom";
	op->p.summary = "a policy file";
	return &op->p;
}

struct policy *
policy_load(const char *path, const struct policy_names *names, char **err)
{
	FILE *f = fopen(path, "rb");
	struct sbuf b = SBUF_INIT;
	char buf[4096];
	size_t n;
	struct policy *p;

	if (f == NULL) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
		sbuf_add(&b, buf, n);
		if (b.len > MAX_POLICY_BYTES) {
			*err = xasprintf("%s: larger than %u bytes", path,
			    MAX_POLICY_BYTES);
			fclose(f);
			sbuf_free(&b);
			return NULL;
		}
	}
	if (ferror(f)) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		fclose(f);
		sbuf_free(&b);
		return NULL;
	}
	fclose(f);
	p = policy_parse(path, sbuf_cstr(&b), b.len, names, err);
	sbuf_free(&b);
	return p;
}

void
policy_free(struct policy *p)
{
	struct owned_policy *op = (struct owned_policy *)p;
	int i;
	if (p == NULL)
		return;
	for (i = 0; i < op->nstrings; i++)
		free(op->strings[i]);
	free(op->strings);
	free(op);
}

/*
 * The shipped policy files (scenarios/NAME.policy) are installed beside
 * the scenarios (Makefile.am), where src/app/scenario.c finds a scenario
 * by its bare name; a policy is looked for there too, then in the
 * scenarios/ beside the program (a build tree).
 */
#ifndef SCENARIO_DIR
#define SCENARIO_DIR "/usr/share/sandboxrepl/scenarios"
#endif
#define POLICY_SUFFIX	".policy"

/* The i-th directory of shipped policies in dir; false past the last. */
static bool
shipped_dir(int i, char *dir, size_t n)
{
	char exe[PATH_MAX];
	ssize_t len;
	char *slash;

	if (i == 0) {
		snprintf(dir, n, "%s", SCENARIO_DIR);
		return true;
	}
	if (i > 1)
		return false;
	dir[0] = '\0';
	len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (len > 0) {
		exe[len] = '\0';
		if ((slash = strrchr(exe, '/')) != NULL) {
			*slash = '\0';
			if ((size_t)snprintf(dir, n, "%s/scenarios", exe) >= n)
				dir[0] = '\0';
		}
	}
	return true;
}

/* A bare name (no '/', no leading '.') of a shipped policy: its file in
 * path, or false. */
static bool
shipped_find(const char *name, char *path, size_t n)
{
	char dir[PATH_MAX];
	struct stat st;
	int i;

	if (name[0] == '\0' || name[0] == '.' || strchr(name, '/') != NULL ||
	    strlen(name) > 64)
		return false;
	for (i = 0; shipped_dir(i, dir, sizeof dir); i++)
		if (dir[0] != '\0' && (size_t)snprintf(path, n, "%s/%s%s", dir,
		    name, POLICY_SUFFIX) < n && stat(path, &st) == 0 &&
		    S_ISREG(st.st_mode))
			return true;
	return false;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The shipped policies' names, ", " between them, "" for none (heap). */
static char *
shipped_names(void)
{
	struct sbuf b = SBUF_INIT;
	char dir[PATH_MAX], **found = NULL;
	size_t nfound = 0, k;
	struct dirent *e;
	DIR *d;
	int i;

	for (i = 0; shipped_dir(i, dir, sizeof dir); i++) {
		if (dir[0] == '\0' || (d = opendir(dir)) == NULL)
			continue;
		while ((e = readdir(d)) != NULL) {
			size_t len = strlen(e->d_name);

			if (e->d_name[0] == '.' || len <= strlen(POLICY_SUFFIX)
			    || strcmp(e->d_name + len - strlen(POLICY_SUFFIX),
			    POLICY_SUFFIX) != 0)
				continue;
			found = xrealloc(found, (nfound + 1) * sizeof *found);
			found[nfound++] = xstrndup(e->d_name,
			    len - strlen(POLICY_SUFFIX));
		}
		closedir(d);
	}
	if (nfound > 0)
		qsort(found, nfound, sizeof *found, by_name);
	for (k = 0; k < nfound; k++) {
		if (k == 0 || strcmp(found[k], found[k - 1]) != 0)
			sbuf_addf(&b, "%s%s", b.len > 0 ? ", " : "",
			    found[k]);
		free(found[k]);
	}
	free(found);
	return sbuf_take(&b);
}

const struct policy *
policy_resolve(const char *name_or_file, const struct policy_names *names,
    char **err)
{
	const struct policy *p = policy_preset(name_or_file);
	char path[PATH_MAX], *shipped;
	struct stat st;
	size_t n = strlen(name_or_file);

	*err = NULL;
	if (p != NULL)
		return p;
	if (strchr(name_or_file, '/') != NULL ||
	    (n > 7 && strcmp(name_or_file + n - 7, POLICY_SUFFIX) == 0) ||
	    stat(name_or_file, &st) == 0)
		return policy_load(name_or_file, names, err);
	if (shipped_find(name_or_file, path, sizeof path))
		return policy_load(path, names, err);
	shipped = shipped_names();
	*err = xasprintf("unknown policy '%s' (expected a preset: essay, "
	    "dunder, blocklist; %s%s%sor a policy file)", name_or_file,
	    shipped[0] ? "a shipped policy: " : "", shipped,
	    shipped[0] ? "; " : "");
	free(shipped);
	return NULL;
}
