/*
 * paths.c -- the path table and the boundary kinds (paths.h).
 *
 * Every question about a path or a boundary is answered from these two
 * tables; the words a screen shows of a boundary are here too, so that a
 * new one is a row, not a branch in each file that draws or runs it.
 */
#include "config.h"

#include <string.h>

#include "paths.h"

/* The layers an input meets behind each kernel kind, in the order its
 * child sets them up (the jail's) or as gVisor stands (gVisor's); the
 * unsafe path's has none between parsing and evaluation. */
static const enum layer none_layers[] = { LAYER_PARSE, LAYER_EVAL };
static const enum layer ns_layers[] = { LAYER_PARSE, LAYER_NAMESPACE,
    LAYER_LANDLOCK, LAYER_SECCOMP, LAYER_RLIMIT, LAYER_EVAL };
static const enum layer gvisor_layers[] = { LAYER_PARSE, LAYER_GVISOR,
    LAYER_RLIMIT, LAYER_EVAL };
static const enum layer microvm_layers[] = { LAYER_PARSE, LAYER_MICROVM,
    LAYER_RLIMIT, LAYER_EVAL };

#define SEQ(a) a, sizeof a / sizeof a[0]

static const char *const none_headings[] = {
	"UNSAFE  no boundary; harm lands in a throwaway mock",
	"UNSAFE  no boundary (throwaway mock)", "UNSAFE", NULL };
static const char *const none_headings_world[] = {
	"UNSAFE  no boundary; real CPython in a throwaway world",
	"UNSAFE  no boundary (throwaway world)", "UNSAFE", NULL };
static const char *const ns_headings[] = {
	"JAIL  kernel: namespaces, Landlock, seccomp, rlimits",
	"JAIL  kernel: namespaces, Landlock, seccomp",
	"JAIL  kernel-enforced", "JAIL", NULL };
static const char *const gvisor_headings[] = {
	"JAIL (gVisor)  a user-space kernel: runsc, no network",
	"JAIL (gVisor)  user-space kernel", "JAIL (gVisor)", "JAIL", NULL };
static const char *const microvm_headings[] = {
	"JAIL (microVM)  a kernel of its own: QEMU, no network device",
	"JAIL (microVM)  a kernel of its own", "JAIL (microVM)", "JAIL",
	NULL };

/*
 * The rows.  Each kind's and each path's columns past its id and name
 * (which come from the X-macros) are the macro BOUNDARY_ROW_<suffix> or
 * PATH_ROW_<suffix>: a kind or path without one does not compile.
 */
#define BOUNDARY_ROW_NONE \
	.guard = GUARD_NONE, .model = MODEL_IN_WORLD,			\
	.layers = SEQ(none_layers), .refuses_at = LAYER_EVAL,		\
	.tag = "",							\
	.headings = none_headings, .headings_world = none_headings_world, \
	.what = "no boundary (a throwaway mock).",			\
	.what_world = "no boundary (a throwaway world).",		\
	.title = "no boundary"
#define BOUNDARY_ROW_POLICY \
	.guard = GUARD_POLICY, .model = MODEL_IN_PROCESS,		\
	.refuses_at = LAYER_EVAL, .tag = "",				\
	.what = "the essay's toy boundary.", .title = "the policy"
#define BOUNDARY_ROW_NS \
	.guard = GUARD_KERNEL, .jail_option = true,			\
	.model = MODEL_IN_JAIL, .layers = SEQ(ns_layers),		\
	.refuses_at = LAYER_NAMESPACE, .rule = "kernel", .tag = "",	\
	/* (its seccomp forbids socket() and execve: neither) */	\
	.inside_where = "the jail's copy",				\
	.inside_host = "the host is untouched",			\
	.headings = ns_headings, .what = "kernel-enforced.",		\
	.title = "the jail",						\
	.about = "the host kernel's namespaces, Landlock and seccomp"
#define BOUNDARY_ROW_GVISOR \
	.guard = GUARD_KERNEL, .jail_option = true,			\
	.model = MODEL_NEVER, .layers = SEQ(gvisor_layers),		\
	.refuses_at = LAYER_GVISOR, .rule = "gvisor",			\
	.contained_by = "gVisor", .tag = " (gVisor)",			\
	.can_exec = true,	/* (runsc runs with --network=none) */	\
	.inside_where = "gVisor's sandbox",				\
	.inside_host = "the host kernel never saw the call",		\
	.needs_cpython = "gVisor runs CPython worlds, and this "	\
	    "sandboxrepl was built without libpython",			\
	.headings = gvisor_headings, .what = "gVisor's user-space kernel.", \
	.title = "gVisor", .about = "gVisor's runsc, a user-space kernel"
#define BOUNDARY_ROW_MICROVM \
	.guard = GUARD_KERNEL, .jail_option = true,			\
	.model = MODEL_NEVER, .layers = SEQ(microvm_layers),		\
	.refuses_at = LAYER_MICROVM, .rule = "microvm",		\
	.contained_by = "the microVM", .tag = " (microVM)",		\
	.can_exec = true,	/* (it has no network device) */	\
	.inside_where = "the microVM",					\
	.inside_host = "the host kernel never saw the call",		\
	.needs_cpython = "the microVM runs CPython worlds, and this "	\
	    "sandboxrepl was built without libpython",			\
	.headings = microvm_headings,					\
	.what = "a virtual machine with a kernel of its own.",		\
	.title = "the microVM",						\
	.about = "a QEMU microvm guest: a kernel of its own, KVM or "	\
	    "emulated"

static const struct boundary_row boundaries[BOUNDARY__COUNT] = {
#define X(e, n, world) [BOUNDARY_##e] = { .id = BOUNDARY_##e, .name = n, \
	BOUNDARY_ROW_##e },
	BOUNDARIES(X)
#undef X
};

/* (the label of code, from the one literal) */
#define ADJECTIVE(a)	.adjective = a, .code_label = a " code",	\
	.code_label_len = sizeof(a " code") - 1

#define PATH_ROW_UNSAFE							\
	.kind = BOUNDARY_NONE, .on_by_default = true,			\
	ADJECTIVE("unsafe"),						\
	.title = "Unsafe", .heading = "UNSAFE"
#define PATH_ROW_SANDBOX						\
	.kind = BOUNDARY_POLICY, .on_by_default = true,			\
	ADJECTIVE("sandboxed"),						\
	.title = "Sandbox", .heading = "SANDBOX"
#define PATH_ROW_JAIL							\
	.alias = "jail:ns", .kind = BOUNDARY_NS, .kind_by_jail = true,	\
	ADJECTIVE("jailed"),						\
	.title = "Jail", .heading = "JAIL"
#define PATH_ROW_GVISOR							\
	.kind = BOUNDARY_GVISOR, .named_only = true,			\
	ADJECTIVE("jailed"),						\
	.title = "jail:gvisor", .heading = "JAIL"
#define PATH_ROW_MICROVM						\
	.kind = BOUNDARY_MICROVM, .named_only = true,			\
	ADJECTIVE("jailed"),						\
	.title = "jail:microvm", .heading = "JAIL"

static const struct path_row paths[PATH__COUNT] = {
#define X(e, n) [PATH_##e] = { .id = PATH_##e, .name = n, PATH_ROW_##e },
	PATHS(X)
#undef X
};

/* (the rows path_row() and boundary_row() read, inline: paths.h) */
const struct path_row *const path_rows = paths;
const struct boundary_row *const boundary_rows = boundaries;

const char *
record_path_name(enum path_id p)
{
	return path_row(p)->name;
}

static bool
named(const char *want, const char *name, size_t len)
{
	return want != NULL && strlen(want) == len &&
	    memcmp(want, name, len) == 0;
}

bool
record_path_parse(const char *name, size_t len, enum path_id *out)
{
	int p;

	for (p = 0; p < PATH__COUNT; p++)
		if (named(paths[p].name, name, len) ||
		    named(paths[p].alias, name, len)) {
			*out = (enum path_id)p;
			return true;
		}
	return false;
}

bool
record_path_is_jail(enum path_id p)
{
	return path_guard(p) == GUARD_KERNEL;
}

unsigned
paths_default(void)
{
	unsigned mask = 0;
	int p;

	for (p = 0; p < PATH__COUNT; p++)
		if (paths[p].on_by_default)
			mask |= PATH_BIT(p);
	return mask;
}

unsigned
paths_offered(void)
{
	unsigned mask = 0;
	int p;

	for (p = 0; p < PATH__COUNT; p++)
		if (!paths[p].named_only)
			mask |= PATH_BIT(p);
	return mask;
}

unsigned
paths_guarded(enum guard g)
{
	unsigned mask = 0;
	int p;

	for (p = 0; p < PATH__COUNT; p++)
		if (path_guard((enum path_id)p) == g)
			mask |= PATH_BIT(p);
	return mask;
}

enum guard
path_guard(enum path_id p)
{
	return boundary_row(path_row(p)->kind)->guard;
}

enum path_id
path_first(unsigned mask, enum guard g)
{
	int p;

	for (p = 0; p < PATH__COUNT; p++)
		if ((mask & PATH_BIT(p)) && path_guard((enum path_id)p) == g)
			return (enum path_id)p;
	return PATH__COUNT;
}

enum path_id
path_foremost(unsigned mask)
{
	static const enum guard order[] = { GUARD_POLICY, GUARD_KERNEL,
	    GUARD_NONE };
	size_t i;

	for (i = 0; i < sizeof order / sizeof order[0]; i++)
		if (path_first(mask, order[i]) != PATH__COUNT)
			return path_first(mask, order[i]);
	return PATH__COUNT;
}

enum path_id
path_policy(void)
{
	return path_first(~0u, GUARD_POLICY);
}

enum path_id
path_home(unsigned mask)
{
	enum path_id p = path_foremost(mask & paths_offered());

	return p != PATH__COUNT ? p : path_policy();
}

bool
boundary_parse(const char *name, enum boundary *out)
{
	int b;

	for (b = 0; b < BOUNDARY__COUNT; b++)
		if (boundaries[b].jail_option &&
		    strcmp(name, boundaries[b].name) == 0) {
			*out = (enum boundary)b;
			return true;
		}
	return false;
}

const char *
boundary_name(enum boundary b)
{
	return (unsigned)b < BOUNDARY__COUNT ? boundaries[b].name : "unknown";
}

enum boundary
boundary_jail_default(void)
{
	int p;

	for (p = 0; p < PATH__COUNT; p++)
		if (paths[p].kind_by_jail)
			return paths[p].kind;
	for (p = 0; p < BOUNDARY__COUNT; p++)
		if (boundaries[p].jail_option)
			break;
	return (enum boundary)p;
}

/* Add s to buf (n > 0 bytes, *len of them taken), as much as fits. */
static void
list_add(char *buf, size_t n, size_t *len, const char *s)
{
	size_t k = strlen(s);

	if (k > n - 1 - *len)
		k = n - 1 - *len;
	memcpy(buf + *len, s, k);
	*len += k;
	buf[*len] = '\0';
}

/* The names name(i, mask) gives for i < count (NULL: not listed),
 * joined by sep into buf (n bytes, cut short where they do not fit). */
static const char *
list(char *buf, size_t n, const char *sep, int count,
    const char *(*name)(int, unsigned), unsigned mask)
{
	size_t len = 0;
	int i;

	if (n == 0)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < count; i++)
		if (name(i, mask) != NULL) {
			if (len > 0)
				list_add(buf, n, &len, sep);
			list_add(buf, n, &len, name(i, mask));
		}
	return buf;
}

static const char *
jail_option_name(int b, unsigned unused)
{
	(void)unused;
	return boundaries[b].jail_option ? boundaries[b].name : NULL;
}

static const char *
path_name_in(int p, unsigned mask)
{
	return mask & PATH_BIT(p) ? paths[p].name : NULL;
}

const char *
boundary_list(char *buf, size_t n, const char *sep)
{
	return list(buf, n, sep, BOUNDARY__COUNT, jail_option_name, 0);
}

const char *
path_list(char *buf, size_t n, unsigned mask, const char *sep)
{
	return list(buf, n, sep, PATH__COUNT, path_name_in, mask);
}
