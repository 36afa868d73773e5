/*
 * mcp.c -- the MCP server loop: JSON-RPC messages in, replies out, tools
 * run on one session.
 *
 * The loop is serve.c's: each line is read with a byte cap (serve.h), parsed
 * by jansson, checked member by member, answered with one reply line,
 * flushed.  What differs is the envelope and the contract: JSON-RPC 2.0
 * errors with their codes instead of an "error" string, the lifecycle of
 * each protocol revision (mcp.h), and tools instead of free input.  A tool
 * call becomes exactly one input on one path: run_code's code as it is, a
 * command as the call an agent would type, its arguments written as Python
 * string literals by textesc_repr() (so no argument can end the literal or
 * add code).  The session decides everything else; the record it returns
 * is the result.
 *
 * Nothing from the client is trusted: sizes are capped (the line, and so
 * every string in it), types are checked before use, strings are compared
 * with their lengths (a name may hold NUL), and text quoted back is cut at
 * a character boundary and escaped.
 */
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/arena.h"
#include "cmd/cmd.h"
#include "mcp.h"
#include "mcp_int.h"
#include "record/record.h"
#include "sandbox/policy.h"
#include "base/sbuf.h"
#include "serve.h"
#include "session/session.h"
#include "base/textesc.h"
#include "base/xalloc.h"

/* X(enum suffix, revision), newest first: REV_A <= REV_B means A is at
 * least as new as B.  The first is the stateless revision; the others are
 * negotiated by initialize. */
#define REVISIONS(X)				\
	X(2026_07_28, "2026-07-28")		\
	X(2025_11_25, "2025-11-25")		\
	X(2025_06_18, "2025-06-18")		\
	X(2025_03_26, "2025-03-26")		\
	X(2024_11_05, "2024-11-05")

#define X_ENUM(e, name) REV_##e,
enum rev { REVISIONS(X_ENUM) REV__COUNT };
#undef X_ENUM
#define X_NAME(e, name) name,
const char *const mcp_versions[] = { REVISIONS(X_NAME) NULL };
#undef X_NAME

#define REV_MODERN	REV_2026_07_28	/* per-request _meta, no handshake */
#define REV_LEGACY	REV_2025_11_25	/* the newest with initialize */
#define SINCE(r, v)	((r) <= REV_##v)

#define META_VERSION	"io.modelcontextprotocol/protocolVersion"
#define META_CAPS	"io.modelcontextprotocol/clientCapabilities"
#define META_SERVER	"io.modelcontextprotocol/serverInfo"

/* How much of a client's string an error message quotes. */
#define QUOTE_MAX 64

struct mcp {
	struct session	*s;
	unsigned	 paths;		/* what run_code may ask for */
	enum path_id	 home;		/* where the commands run */
	bool		 jail_filter;	/* the jails check the policy first */
	size_t		 max;		/* a message's bytes, at most */
	bool		 initialized;	/* initialize was answered */
	enum rev	 legacy;	/* the revision it negotiated */
};

/* One request being answered. */
struct req {
	struct mcp	*m;
	json_t		*id;		/* borrowed */
	json_t		*params;	/* borrowed; an object or NULL */
	enum rev	 rev;
};

static const char instructions[] =
    "sandboxrepl runs code and computer-use commands behind a boundary. "
    "Paths: sandbox (an AST allowlist, a command allowlist, an operation "
    "budget, no network, idempotent writes: a teaching model, not a "
    "security boundary), jail (a Linux kernel jail: the security "
    "boundary), unsafe (no boundary at all). A step the boundary refuses "
    "comes back with isError and the layer's reason: change the approach "
    "instead of repeating the call. Files, names, budget and the "
    "idempotency ledger persist from call to call while this server runs.";

/* ---- small helpers ---- */

/* Is j the string s, byte for byte (a JSON string may hold NUL)? */
static bool
jeq(const json_t *j, const char *s)
{
	return json_is_string(j) && json_string_length(j) == strlen(s) &&
	    memcmp(json_string_value(j), s, json_string_length(j)) == 0;
}

/* A client's string, cut to QUOTE_MAX bytes at a character boundary and
 * escaped (textesc.h), for an error message; heap. */
static char *
quote(const json_t *j)
{
	struct sbuf b = SBUF_INIT;
	const char *s = json_string_value(j);
	size_t n = json_string_length(j);
	char *r;

	if (n > QUOTE_MAX) {
		n = QUOTE_MAX;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	textesc_add(&b, s, n, 0);
	if (n < json_string_length(j))
		sbuf_adds(&b, "...");
	r = xstrdup(sbuf_cstr(&b));
	sbuf_free(&b);
	return r;
}

static json_t *
server_info(enum rev r)
{
	json_t *i = json_pack("{s:s,s:s}", "name", "sandboxrepl", "version",
	    PACKAGE_VERSION);
	if (SINCE(r, 2025_06_18))
		json_object_set_new(i, "title", json_string("sandboxrepl"));
	return i;
}

/* {"jsonrpc":"2.0","id":id,"error":{code,message,data}}; id borrowed (NULL:
 * null), data stolen (may be NULL). */
static json_t *rpc_error(json_t *id, int code, json_t *data,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static json_t *
rpc_error(json_t *id, int code, json_t *data, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	struct sbuf b = SBUF_INIT;
	json_t *e;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	/* jansson's parse errors quote the input, which may not be UTF-8:
	 * escaped, the message is always a valid JSON string. */
	textesc_add(&b, msg, strlen(msg), 0);
	free(msg);
	e = json_pack("{s:i,s:s}", "code", code, "message", sbuf_cstr(&b));
	sbuf_free(&b);
	if (data != NULL)
		json_object_set_new(e, "data", data);
	return json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id",
	    id ? id : json_null(), "error", e);
}

/* The reply to a request with result (stolen).  Under the stateless
 * revision every result says it is complete and who answered. */
static json_t *
rpc_result(const struct req *q, json_t *result)
{
	if (q->rev == REV_MODERN) {
		json_object_set_new(result, "resultType",
		    json_string("complete"));
		json_object_set_new(result, "_meta", json_pack("{s:o}",
		    META_SERVER, server_info(q->rev)));
	}
	return json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id", q->id,
	    "result", result);
}

/* ---- the tools ---- */

/* A tool: run_code, or a command of the table (cmd.h), whose entry has
 * its words, its keys and what they mean, and its hints. */
struct tool {
	const char		*name;
	const char		*title;
	const char		*description;
	struct cmd_hints	 hints;
	const struct cmd_entry	*cmd;		/* NULL: run_code */
};

static const struct tool run_code = {
	"run_code", "Run code",
	"Run Python code behind one of sandboxrepl's boundaries (the "
	"boundary argument), exactly as if typed: "
	"an expression or simple statements joined by ';' (e.g. "
	"round(sum(orders) / len(orders), 2)), or a command call such as "
	"read_file({'path': 'report.txt'}). The result is the trace line "
	"and the step's record; a step the path's boundary blocked, or "
	"that raised, is an error result whose text says why.",
	{ .destructive = true, .open_world = true }, NULL
};

static struct tool
command_tool(const struct cmd_entry *e)
{
	struct tool t = { e->name, e->title, e->description, e->hints, e };
	return t;
}

/* The command after prev in name order (the first when prev is NULL), or
 * NULL: tools/list gives run_code first, then the commands by name, the
 * same on every call, whatever the table's order. */
static const struct cmd_entry *
next_command(const struct cmd_entry *prev)
{
	const struct cmd_entry *e, *best = NULL;
	size_t i;

	for (i = 0; (e = cmd_at(i)) != NULL; i++)
		if ((prev == NULL || strcmp(e->name, prev->name) > 0) &&
		    (best == NULL || strcmp(e->name, best->name) < 0))
			best = e;
	return best;
}

/* What the command's key'th key means. */
static const char *
key_doc(const struct tool *t, size_t key)
{
	const char *const *d = t->cmd->docs;
	size_t i;

	for (i = 0; d != NULL && d[i] != NULL; i++)
		if (i == key)
			return d[i];
	return "A string.";
}

static bool
find_tool(const json_t *name, struct tool *t)
{
	const struct cmd_entry *e;
	size_t i;

	if (jeq(name, run_code.name)) {
		*t = run_code;
		return true;
	}
	for (i = 0; (e = cmd_at(i)) != NULL; i++)
		if (jeq(name, e->name)) {
			*t = command_tool(e);
			return true;
		}
	return false;
}

static bool
is_member(const char *const *list, const char *s)
{
	for (; list != NULL && *list != NULL; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

/* The paths in mask, in path order, as a JSON array of names. */
static json_t *
path_names(unsigned mask)
{
	json_t *a = json_array();
	int p;
	for (p = 0; p < PATH__COUNT; p++)
		if (mask & PATH_BIT(p))
			json_array_append_new(a,
			    json_string(record_path_name((enum path_id)p)));
	return a;
}

/* run_code's keys: the code, the boundary it runs behind, and path, the
 * boundary's old name, accepted for one more release (README) so that
 * "path" is a file's name in every other tool. */
static const char *const run_code_keys[] = { "code", "boundary", "path",
    NULL };
static const char *const run_code_required[] = { "code", NULL };

static bool
policy_lets(const struct policy *pol, const struct cmd_entry *e)
{
	return policy_allows_command(pol, e->name) &&
	    (e->url_key == NULL || (pol->hosts != NULL &&
	    pol->hosts[0] != NULL));
}

/*
 * Can a command ever succeed behind path p's boundary, or is every call
 * refused (and so the tool left out of the list)?  No boundary: every
 * command lands.  The sandbox's policy: the commands its allowlist names,
 * and one that sends a request only when the policy lists a host (the
 * no-network layer refuses every other).  A kernel: what its boundary
 * row says can succeed inside it (can_send, can_exec: none of them has a
 * network, and the namespaces' seccomp forbids execve, so the shell's
 * programs never start there), and under --jail-filter the policy's
 * allowlist first.
 */
static bool
command_works(const struct mcp *m, const struct cmd_entry *e,
    enum path_id p)
{
	const struct policy *pol = session_policy(m->s);
	const struct boundary_row *k;

	switch (path_guard(p)) {
	case GUARD_NONE:
		return true;
	case GUARD_POLICY:
		return policy_lets(pol, e);
	case GUARD_KERNEL:
	default:
		k = session_boundary(m->s, p);
		if (m->jail_filter && !policy_lets(pol, e))
			return false;
		if (strcmp(e->op, "send") == 0)
			return k->can_send;
		if (strcmp(e->op, "exec") == 0)
			return k->can_exec;
		return true;
	}
}

/* Is the tool in this server's list: run_code always (what its code may
 * do is the boundary's to judge, call by call), a command when it can
 * succeed where the commands run. */
static bool
tool_listed(const struct mcp *m, const struct tool *t)
{
	return t->cmd == NULL || command_works(m, t->cmd, m->home);
}

/* Where a server restricted to paths runs the commands: path_home()'s
 * choice when it is one of them, else the foremost of them (a server
 * offering only jail:gvisor runs them there, never on a path it was told
 * not to use). */
static enum path_id
server_home(unsigned paths)
{
	enum path_id p = path_home(paths);

	if (paths & PATH_BIT(p))
		return p;
	p = path_foremost(paths);
	return p != PATH__COUNT ? p : path_home(paths);
}

/* The keys a tool takes and those it needs. */
static void
tool_keys(const struct tool *t, const char *const **keys,
    const char *const **required)
{
	if (t->cmd == NULL) {
		*keys = run_code_keys;
		*required = run_code_required;
	} else {
		*keys = t->cmd->keys;
		*required = t->cmd->required;
	}
}

static json_t *
input_schema(const struct mcp *m, const struct tool *t)
{
	const char *const *keys, *const *required, *const *k;
	json_t *props = json_object(), *req = json_array();

	tool_keys(t, &keys, &required);
	for (k = keys; *k != NULL; k++) {
		json_t *p;
		if (strcmp(t->name, "run_code") == 0 &&
		    strcmp(*k, "code") == 0)
			p = json_pack("{s:s,s:s}", "type", "string",
			    "description", "The code, as it would be typed.");
		else if (strcmp(t->name, "run_code") == 0 &&
		    strcmp(*k, "boundary") == 0)
			p = json_pack("{s:s,s:o,s:s,s:s}", "type", "string",
			    "enum", path_names(m->paths), "default",
			    record_path_name(m->home), "description",
			    "The boundary to run behind: sandbox (the essay's "
			    "allowlist, budget, no network), jail (a Linux "
			    "kernel jail) or unsafe (no boundary).");
		else if (strcmp(t->name, "run_code") == 0)
			p = json_pack("{s:s,s:o,s:b,s:s}", "type", "string",
			    "enum", path_names(m->paths), "deprecated", 1,
			    "description", "Deprecated: the old name of "
			    "boundary, accepted until the next release.");
		else
			p = json_pack("{s:s,s:s}", "type", "string",
			    "description", key_doc(t, (size_t)(k - keys)));
		json_object_set_new(props, *k, p);
	}
	for (k = required; k != NULL && *k != NULL; k++)
		json_array_append_new(req, json_string(*k));
	return json_pack("{s:s,s:o,s:o,s:b}", "type", "object", "properties",
	    props, "required", req, "additionalProperties", 0);
}

/* An enum of the names an X-macro table gives. */
static json_t *
name_enum(const char *(*name)(int), int n)
{
	json_t *a = json_array();
	int i;
	for (i = 0; i < n; i++)
		json_array_append_new(a, json_string(name(i)));
	return json_pack("{s:o}", "enum", a);
}

static const char *path_name(int i) { return record_path_name((enum path_id)i); }
static const char *kind_name(int i) { return record_kind_name((enum input_kind)i); }
static const char *verdict_name(int i) { return record_verdict_name((enum verdict)i); }
static const char *layer_name(int i) { return record_layer_name((enum layer)i); }

/*
 * What the code and its programs wrote, as a terminal shows it, as a
 * text content of its own after the trace line: an agent reads the
 * listing of os.system('ls') or a traceback without parsing the record.
 * (From the record's JSON: its strings are valid UTF-8 already.)
 */
static void
add_output(json_t *content, json_t *rec)
{
	json_t *out = json_object_get(rec, "output"), *c;
	struct sbuf b = SBUF_INIT;
	size_t i;

	json_array_foreach(out, i, c) {
		json_t *t = json_object_get(c, "text");
		if (json_is_string(t))
			sbuf_add(&b, json_string_value(t),
			    json_string_length(t));
	}
	if (b.len > 0)
		json_array_insert_new(content, 1, json_pack("{s:s,s:s%}",
		    "type", "text", "text", sbuf_cstr(&b), b.len));
	sbuf_free(&b);
}

/* The record's shape (record_to_json) less its trace line, which is the
 * result's first text, as the tools' outputSchema. */
static json_t *
output_schema(void)
{
	static const char *const nullable[] = { "rule", "reason", "result",
	    "truncated", "label", "source", "engine", "boundary", NULL };
	json_t *props = json_object(), *req = json_array(), *v;
	const char *const *k;
	const char *key;

#define NSTR() json_pack("{s:[s,s]}", "type", "string", "null")
	json_object_set_new(props, "step", json_pack("{s:s}", "type",
	    "integer"));
	json_object_set_new(props, "path", name_enum(path_name, PATH__COUNT));
	json_object_set_new(props, "input", json_pack("{s:s,s:s}", "type",
	    "string", "description", "the input, its first 1024 bytes "
	    "(truncated says when it was longer)"));
	json_object_set_new(props, "kind", name_enum(kind_name, KIND__COUNT));
	v = name_enum(verdict_name, VERDICT__COUNT);
	json_object_set_new(v, "description", json_string("ok; blocked (a "
	    "layer refused it); error (it raised); landed (no boundary: the "
	    "harm happened, in a throwaway copy); contained (the jail "
	    "stopped it); bypassed (a weak filter let the code through); "
	    "inside (harm done inside the jail's own copy; the host "
	    "untouched)"));
	json_object_set_new(props, "verdict", v);
	v = name_enum(layer_name, LAYER__COUNT);
	json_object_set_new(v, "description",
	    json_string("the layer that decided"));
	json_object_set_new(props, "layer", v);
	for (k = nullable; *k != NULL; k++)
		json_object_set_new(props, *k, NSTR());
	json_object_set_new(props, "node", json_pack(
	    "{s:[s,s],s:{s:{s:s},s:{s:s},s:{s:s}}}", "type", "object", "null",
	    "properties", "type", "type", "string", "start", "type", "integer",
	    "end", "type", "integer"));
	json_object_set_new(props, "effects", json_pack("{s:s,s:{s:s,s:{"
	    "s:o,s:o,s:{s:s},s:{s:s},s:{s:s},s:{s:s},s:{s:s}},s:[s,s,s,s]}}",
	    "type", "array", "items", "type", "object", "properties",
	    "op", NSTR(), "target", NSTR(), "simulated", "type", "boolean",
	    "denied", "type", "boolean", "category", "type", "string",
	    "text", "type", "string", "source", "type", "string",
	    "required", "op", "target", "simulated", "denied"));
	json_object_set_new(props, "output", json_pack("{s:s,s:s,s:{s:s,"
	    "s:{s:{s:s,s:[s,s]},s:{s:s}},s:[s,s]}}", "type", "array",
	    "description", "what the code and its programs wrote, in the "
	    "order written, as a terminal shows it", "items", "type",
	    "object", "properties", "stream", "type", "string", "enum",
	    "stdout", "stderr", "text", "type", "string", "required",
	    "stream", "text"));
	json_object_set_new(props, "fs", json_pack("{s:s,s:{s:s}}", "type",
	    "array", "items", "type", "string"));
	json_object_set_new(props, "budget", json_pack("{s:s,s:{s:{s:s},s:{"
	    "s:s}},s:[s,s]}", "type", "object", "properties", "used", "type",
	    "integer", "limit", "type", "integer", "required", "used",
	    "limit"));
#undef NSTR
	json_object_foreach(props, key, v)
		json_array_append_new(req, json_string(key));
	return json_pack("{s:s,s:o,s:o}", "type", "object", "properties",
	    props, "required", req);
}

static json_t *
tool_json(const struct mcp *m, const struct tool *t, enum rev r)
{
	struct sbuf d = SBUF_INIT;
	json_t *j;

	sbuf_adds(&d, t->description);
	if (strcmp(t->name, "run_code") != 0)
		sbuf_addf(&d, " Runs on the %s path, as the command call "
		    "%s({...}) typed there; a step its boundary blocks is an "
		    "error result that says why.", record_path_name(m->home),
		    t->name);
	j = json_pack("{s:s,s:s,s:o}", "name", t->name, "description",
	    sbuf_cstr(&d), "inputSchema", input_schema(m, t));
	sbuf_free(&d);
	if (SINCE(r, 2025_06_18)) {
		json_object_set_new(j, "title", json_string(t->title));
		json_object_set_new(j, "outputSchema", output_schema());
	}
	if (SINCE(r, 2025_03_26))
		json_object_set_new(j, "annotations", json_pack(
		    "{s:s,s:b,s:b,s:b,s:b}", "title", t->title,
		    "readOnlyHint", t->hints.read_only, "destructiveHint",
		    t->hints.destructive, "idempotentHint", t->hints.idempotent,
		    "openWorldHint", t->hints.open_world));
	return j;
}

/* ---- tools/call ---- */

/* A tool execution error: the result the model reads, isError set. */
static json_t *
tool_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static json_t *
tool_error(const char *fmt, ...)
{
	va_list ap;
	char *msg;
	json_t *r;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	r = json_pack("{s:[{s:s,s:s}],s:b}", "content", "type", "text",
	    "text", msg, "isError", 1);
	free(msg);
	return r;
}

/* The names in a NULL-terminated list, joined by ", ". */
static void
add_names(struct sbuf *b, const char *const *list)
{
	const char *const *k;
	for (k = list; *k != NULL; k++)
		sbuf_addf(b, "%s%s", k == list ? "" : ", ", *k);
}

static const char *
json_type_name(const json_t *v)
{
	return json_is_null(v) ? "null" : json_is_object(v) ? "an object" :
	    json_is_array(v) ? "an array" : json_is_boolean(v) ? "a boolean" :
	    json_is_number(v) ? "a number" : "a string";
}

/*
 * The arguments against the tool's keys: strings only, no unknown key,
 * every required key.  NULL when fine, else why (heap).
 */
static char *
check_keys(const struct tool *t, json_t *args)
{
	const char *const *keys, *const *required, *const *k;
	const char *key;
	struct sbuf b = SBUF_INIT;
	json_t *v;
	char *why;

	tool_keys(t, &keys, &required);
	json_object_foreach(args, key, v) {
		if (!is_member(keys, key)) {
			textesc_add(&b, key, strnlen(key, QUOTE_MAX), 0);
			sbuf_adds(&b, "' (it takes ");
			if (keys[0] == NULL)
				sbuf_adds(&b, "no arguments");
			else
				add_names(&b, keys);
			why = xasprintf("%s: unknown argument '%s)", t->name,
			    sbuf_cstr(&b));
			sbuf_free(&b);
			return why;
		}
		if (!json_is_string(v))
			return xasprintf("%s: argument '%s' must be a string, "
			    "not %s", t->name, key, json_type_name(v));
	}
	for (k = required; k != NULL && *k != NULL; k++)
		if (json_object_get(args, *k) == NULL)
			return xasprintf("%s: missing argument '%s' (a string)",
			    t->name, *k);
	return NULL;
}

/*
 * The path a call runs on, its keys checked (check_keys): run_code's
 * boundary (or path, its deprecated alias: both given must agree) when it
 * names one this server offers, else the server's home, where the
 * commands run.  Every answer to "where does this call run" is this one.
 * NULL when fine (*path), else why (heap).
 */
static char *
tool_path(const struct mcp *m, const struct tool *t, json_t *args,
    enum path_id *path)
{
	json_t *v, *alias, *names, *n;
	struct sbuf b = SBUF_INIT;
	char *q, *why;
	size_t i;

	*path = m->home;
	if (t->cmd != NULL)
		return NULL;
	v = json_object_get(args, "boundary");
	alias = json_object_get(args, "path");
	if (v != NULL && alias != NULL && !json_equal(v, alias)) {
		char *qa = quote(alias);
		q = quote(v);
		why = xasprintf("run_code: boundary '%s' and path '%s' "
		    "disagree (path is the old name of boundary: give "
		    "boundary alone)", q, qa);
		free(q);
		free(qa);
		return why;
	}
	if (v == NULL)
		v = alias;
	if (v == NULL || (record_path_parse(json_string_value(v),
	    json_string_length(v), path) && (m->paths & PATH_BIT(*path))))
		return NULL;
	q = quote(v);
	names = path_names(m->paths);
	json_array_foreach(names, i, n)
		sbuf_addf(&b, "%s%s", i ? ", " : "", json_string_value(n));
	json_decref(names);
	why = xasprintf("run_code: %s '%s' is not one this server offers "
	    "(%s)", v == alias ? "path" : "boundary", q, sbuf_cstr(&b));
	sbuf_free(&b);
	free(q);
	return why;
}

/*
 * Check the arguments (check_keys) and find where the call runs
 * (tool_path).  NULL when fine (*path is where to run), else why (heap).
 */
static char *
check_args(const struct mcp *m, const struct tool *t, json_t *args,
    enum path_id *path)
{
	char *why = check_keys(t, args);

	return why != NULL ? why : tool_path(m, t, args, path);
}

/* The input a tool call stands for: run_code's code, or the command call
 * with each argument as a Python string literal, in the command's key
 * order.  Appended to in. */
static void
tool_input(const struct tool *t, json_t *args, struct sbuf *in)
{
	const char *const *keys, *const *required, *const *k;
	bool first = true;

	if (strcmp(t->name, "run_code") == 0) {
		json_t *c = json_object_get(args, "code");
		sbuf_add(in, json_string_value(c), json_string_length(c));
		return;
	}
	tool_keys(t, &keys, &required);
	sbuf_addf(in, "%s({", t->name);
	for (k = keys; *k != NULL; k++) {
		json_t *v = json_object_get(args, *k);
		if (v == NULL)
			continue;
		if (!first)
			sbuf_adds(in, ", ");
		first = false;
		textesc_repr(in, *k, strlen(*k));
		sbuf_adds(in, ": ");
		textesc_repr(in, json_string_value(v), json_string_length(v));
	}
	sbuf_adds(in, "})");
}

/* How much of the input a reply echoes, in bytes: the client sent all of
 * it, so a reply's size follows what the call did (its value, its
 * output), not how long its argument was. */
#define ECHO_MAX 1024

/* How many of s's n bytes are kept when cut to max: all, or fewer, so
 * that the cut falls between characters. */
static size_t
cut_at_char(const char *s, size_t n, size_t max)
{
	if (n <= max)
		return n;
	for (n = max; n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80; n--)
		;
	return n;
}

/* The record's trace line, its echo of the input (the part between the
 * label and "->") cut past ECHO_MAX bytes with the length it had; heap. */
static char *
reply_line(const struct record *r)
{
	size_t n, k;

	if (r->label == NULL || r->shown == NULL || r->outcome == NULL)
		return xstrdup(r->line);
	n = strlen(r->shown);
	k = cut_at_char(r->shown, n, ECHO_MAX);
	if (k == n)
		return xstrdup(r->line);
	return xasprintf("%s: %.*s... (%zu bytes) -> %s", r->label, (int)k,
	    r->shown, n, r->outcome);
}

/* The record's input cut as the line's is: its first ECHO_MAX bytes, and
 * truncated saying how long it was. */
static void
cut_input(json_t *rec)
{
	json_t *in = json_object_get(rec, "input"), *tr, *cut;
	const char *s = json_string_value(in);
	size_t n = json_string_length(in), k;
	char *note;

	if (s == NULL || (k = cut_at_char(s, n, ECHO_MAX)) == n)
		return;
	tr = json_object_get(rec, "truncated");
	note = xasprintf("%s%sinput: its first %zu of %zu bytes",
	    json_is_string(tr) ? json_string_value(tr) : "",
	    json_is_string(tr) ? "; " : "", k, n);
	cut = json_stringn(s, k);
	json_object_set_new(rec, "input", cut);
	json_object_set_new(rec, "truncated", json_string(note));
	free(note);
}

static bool
is_failure(enum verdict v)
{
	return v == VERDICT_BLOCKED || v == VERDICT_ERROR ||
	    v == VERDICT_CONTAINED;
}

static json_t *
tools_call(struct req *q)
{
	struct mcp *m = q->m;
	json_t *name, *args, *result, *rec, *empty = NULL;
	struct tool tool, *t = &tool;
	enum path_id path;
	struct sbuf in = SBUF_INIT;
	struct arena *a;
	struct record *r;
	char *why, *text, *line;
	size_t n;

	if (q->params == NULL)
		return rpc_error(q->id, RPC_INVALID_PARAMS, NULL,
		    "tools/call needs params {\"name\": ..., "
		    "\"arguments\": {...}}");
	name = json_object_get(q->params, "name");
	if (!json_is_string(name))
		return rpc_error(q->id, RPC_INVALID_PARAMS, NULL,
		    "tools/call: \"name\" must be a string");
	args = json_object_get(q->params, "arguments");
	if (args != NULL && !json_is_object(args))
		return rpc_error(q->id, RPC_INVALID_PARAMS, NULL,
		    "tools/call: \"arguments\" must be an object");
	if (!find_tool(name, t)) {
		char *qn = quote(name);
		json_t *e = rpc_error(q->id, RPC_INVALID_PARAMS, NULL,
		    "Unknown tool: %s", qn);
		free(qn);
		return e;
	}
	if (args == NULL)
		args = empty = json_object();
	why = check_args(m, t, args, &path);
	if (why != NULL) {
		/* Since 2025-11-25 a model fixes its own arguments: an
		 * execution error it reads.  Before, invalid params. */
		json_t *e = SINCE(q->rev, 2025_11_25) ?
		    rpc_result(q, tool_error("%s", why)) :
		    rpc_error(q->id, RPC_INVALID_PARAMS, NULL, "%s", why);
		free(why);
		json_decref(empty);
		return e;
	}
	tool_input(t, args, &in);
	json_decref(empty);

	a = arena_new();
	n = session_run(m->s, in.data ? in.data : "", in.len, NULL,
	    PATH_BIT(path), a, &r);
	sbuf_free(&in);
	if (n != 1) {	/* never: one path, one record */
		arena_free(a);
		return rpc_result(q, tool_error("no record"));
	}
	/* The trace line is the first text; the record is the structured
	 * content (before 2025-06-18, which has none, a text of its own
	 * after the output): each said once. */
	rec = record_to_json(r);
	json_object_del(rec, "line");
	cut_input(rec);
	line = reply_line(r);
	result = json_pack("{s:[{s:s,s:s}],s:b}", "content", "type", "text",
	    "text", line, "isError", is_failure(r->verdict));
	free(line);
	arena_free(a);
	if (result == NULL) {	/* never: the line is valid UTF-8 */
		json_decref(rec);
		return rpc_result(q, tool_error("the record could not be "
		    "written"));
	}
	add_output(json_object_get(result, "content"), rec);
	if (SINCE(q->rev, 2025_06_18)) {
		json_object_set_new(result, "structuredContent", rec);
		return rpc_result(q, result);
	}
	text = json_dumps(rec, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(rec);
	if (text != NULL)
		json_array_append_new(json_object_get(result, "content"),
		    json_pack("{s:s,s:s}", "type", "text", "text", text));
	free(text);
	return rpc_result(q, result);
}

/*
 * The MCP default policy, the sandbox's when --policy does not name one:
 * the essay's boundary, and list_files, which only reads the names the
 * workspace holds, as read_file reads a file.  delete_file, http_get and
 * run_shell stay off its allowlist, as the essay keeps them (README,
 * "Which tools a host gets").  A policy file's text, read by the same
 * parser.
 */
static const char default_policy[] =
	"extends: essay\n"
	"name: mcp\n"
	"commands: read_file write_file list_files\n";

/* The session's policy becomes the MCP default; false (said on stderr:
 * the server refuses to start) when it cannot be made. */
static bool
use_default_policy(struct session *s)
{
	static struct policy *p;
	char *err = NULL;

	if (p == NULL)
		p = policy_parse("the MCP default policy", default_policy,
		    sizeof default_policy - 1, &session_policy_names, &err);
	if (p == NULL) {
		fprintf(stderr, "sandboxrepl: --mcp: %s\n", err ? err :
		    "the default policy could not be made");
		free(err);
		return false;
	}
	session_set_policy(s, p);
	return true;
}

/* ---- the other methods ---- */

static json_t *
tools_list(struct req *q)
{
	json_t *list, *result, *cursor;
	const struct cmd_entry *e;
	struct tool t;

	cursor = q->params ? json_object_get(q->params, "cursor") : NULL;
	if (cursor != NULL)
		return rpc_error(q->id, RPC_INVALID_PARAMS, NULL,
		    "tools/list: unknown cursor (the list is one page)");
	list = json_array();
	json_array_append_new(list, tool_json(q->m, &run_code, q->rev));
	for (e = next_command(NULL); e != NULL; e = next_command(e)) {
		t = command_tool(e);
		if (tool_listed(q->m, &t))
			json_array_append_new(list, tool_json(q->m, &t,
			    q->rev));
	}
	result = json_pack("{s:o}", "tools", list);
	if (q->rev == REV_MODERN) {
		/* the list never changes while the server runs */
		json_object_set_new(result, "ttlMs", json_integer(3600000));
		json_object_set_new(result, "cacheScope",
		    json_string("private"));
	}
	return rpc_result(q, result);
}

static json_t *
capabilities(void)
{
	return json_pack("{s:{s:b}}", "tools", "listChanged", 0);
}

static json_t *
server_discover(struct req *q)
{
	size_t i;
	json_t *v = json_array();
	for (i = 0; i < REV__COUNT; i++)
		json_array_append_new(v, json_string(mcp_versions[i]));
	return rpc_result(q, json_pack("{s:o,s:o,s:o,s:s,s:i,s:s}",
	    "supportedVersions", v, "capabilities", capabilities(),
	    "serverInfo", server_info(q->rev), "instructions", instructions,
	    "ttlMs", 3600000, "cacheScope", "private"));
}

static json_t *
initialize(struct req *q)
{
	struct mcp *m = q->m;
	json_t *pv = q->params ? json_object_get(q->params,
	    "protocolVersion") : NULL;
	json_t *caps = q->params ? json_object_get(q->params,
	    "capabilities") : NULL;
	enum rev r = REV_LEGACY, i;

	if (m->initialized)
		return rpc_error(q->id, RPC_INVALID_REQUEST, NULL,
		    "initialize was already answered on this connection");
	if (!json_is_string(pv) || !json_is_object(caps))
		return rpc_error(q->id, RPC_INVALID_PARAMS, NULL,
		    "initialize needs params {\"protocolVersion\": "
		    "\"2025-11-25\", \"capabilities\": {}, \"clientInfo\": "
		    "{...}}");
	/* The client's revision when it is one with a handshake, else the
	 * newest of those. */
	for (i = REV_LEGACY; i < REV__COUNT; i++)
		if (jeq(pv, mcp_versions[i]))
			r = i;
	m->initialized = true;
	m->legacy = r;
	q->rev = r;
	return rpc_result(q, json_pack("{s:s,s:o,s:o,s:s}", "protocolVersion",
	    mcp_versions[r], "capabilities", capabilities(), "serverInfo",
	    server_info(r), "instructions", instructions));
}

static json_t *
ping(struct req *q)
{
	return rpc_result(q, json_object());
}

/* era: which revisions have the method. */
enum { ERA_MODERN = 1, ERA_LEGACY = 2, ERA_BOTH = 3 };

static const struct method {
	const char	*name;
	int		 era;
	json_t		*(*run)(struct req *q);
} methods[] = {
	{ "initialize", ERA_LEGACY, initialize },
	{ "ping", ERA_LEGACY, ping },
	{ "server/discover", ERA_MODERN, server_discover },
	{ "tools/call", ERA_BOTH, tools_call },
	{ "tools/list", ERA_BOTH, tools_list },
};

/*
 * The revision a request speaks: the one in its _meta (the stateless
 * revision), or the one initialize negotiated.  NULL when it is known,
 * else the error reply.
 */
static json_t *
request_revision(struct req *q, const struct method *me)
{
	json_t *meta = q->params ? json_object_get(q->params, "_meta") : NULL;
	json_t *pv = json_is_object(meta) ? json_object_get(meta,
	    META_VERSION) : NULL;
	size_t i;

	if (pv != NULL) {
		json_t *supported;
		if (!json_is_string(pv))
			return rpc_error(q->id, RPC_INVALID_PARAMS, NULL,
			    "_meta: \"" META_VERSION "\" must be a string");
		if (jeq(pv, mcp_versions[REV_MODERN])) {
			q->rev = REV_MODERN;
			if (!json_is_object(json_object_get(meta, META_CAPS)))
				return rpc_error(q->id, RPC_INVALID_PARAMS,
				    NULL, "_meta: \"" META_CAPS "\" must be "
				    "an object");
			return NULL;
		}
		supported = json_array();
		for (i = 0; i < REV__COUNT; i++)
			json_array_append_new(supported,
			    json_string(mcp_versions[i]));
		return rpc_error(q->id, RPC_UNSUPPORTED_VERSION, json_pack(
		    "{s:o,s:O}", "supported", supported, "requested", pv),
		    "Unsupported protocol version");
	}
	if (me->run == initialize) {
		q->rev = REV_LEGACY;	/* until negotiated */
		return NULL;
	}
	if (q->m->initialized) {
		q->rev = q->m->legacy;
		return NULL;
	}
	if (me->run == ping) {
		q->rev = REV_LEGACY;
		return NULL;
	}
	return rpc_error(q->id, RPC_INVALID_PARAMS, NULL, "no protocol "
	    "version: send initialize first (2025-11-25 and before), or put "
	    "\"" META_VERSION "\": \"2026-07-28\" and \"" META_CAPS "\" in "
	    "params._meta");
}

static bool
is_valid_id(const json_t *id)
{
	return json_is_string(id) || json_is_number(id);
}

/* What a tools/call's params._meta.progressToken is (new), or NULL:
 * none, or not a string or a number. */
static json_t *
progress_token(const json_t *params)
{
	json_t *meta = params ? json_object_get(params, "_meta") : NULL;
	json_t *t = json_is_object(meta) ? json_object_get(meta,
	    "progressToken") : NULL;

	return json_is_string(t) || json_is_number(t) ? json_incref(t) : NULL;
}

/*
 * The path a tools/call runs on, as tools_call() would find it (the same
 * find_tool() and check_args()), or false when its arguments are wrong:
 * then tools_call() answers it without running anything.
 */
static bool
call_path(struct req *q, enum path_id *path)
{
	json_t *name, *args, *empty = NULL;
	struct tool t;
	char *why;

	if (q->params == NULL)
		return false;
	name = json_object_get(q->params, "name");
	args = json_object_get(q->params, "arguments");
	if (!json_is_string(name) || (args != NULL && !json_is_object(args)) ||
	    !find_tool(name, &t))
		return false;
	if (args == NULL)
		args = empty = json_object();
	why = check_args(q->m, &t, args, path);
	json_decref(empty);
	free(why);
	return why == NULL;
}

/*
 * One message object (borrowed) to what it is: its reply (new, or NULL
 * for none) in out->reply.  With route (the loop of mcp_calls.c), a
 * valid tools/call is not run here but made a job for its path's worker,
 * and a notifications/cancelled says which request; without (one
 * process), every call is run here and a cancel comes too late to do
 * anything: each request was answered before the next was read.
 */
static void
handle_object(struct mcp *m, json_t *msg, bool route, struct mcp_msg *out)
{
	json_t *id, *method, *reply, *version;
	struct req q = { .m = m };
	const struct method *me = NULL;
	enum path_id path;
	size_t i;

	memset(out, 0, sizeof *out);
	out->verb = MCP_REPLY;
	id = json_object_get(msg, "id");
	method = json_object_get(msg, "method");
	version = json_object_get(msg, "jsonrpc");
	if (id != NULL && !is_valid_id(id))
		id = NULL;	/* answered with a null id */
	if (method == NULL && id != NULL &&
	    (json_object_get(msg, "result") || json_object_get(msg, "error"))
	    && jeq(version, "2.0"))
		return;	/* a response: this server sends no requests */
	if (!jeq(version, "2.0") || !json_is_string(method) ||
	    (json_object_get(msg, "id") != NULL && id == NULL)) {
		out->reply = rpc_error(id, RPC_INVALID_REQUEST, NULL, "%s",
		    !jeq(version, "2.0") ? "Invalid Request: \"jsonrpc\" "
		    "must be \"2.0\"" : !json_is_string(method) ?
		    "Invalid Request: \"method\" must be a string" :
		    "Invalid Request: \"id\" must be a string or a number");
		return;
	}
	q.id = id;
	q.params = json_object_get(msg, "params");
	if (id == NULL) {
		/* A notification: never answered.  Of those, only
		 * notifications/cancelled asks for anything, and only of a
		 * loop with calls still running. */
		json_t *rid = json_is_object(q.params) ?
		    json_object_get(q.params, "requestId") : NULL;
		if (route && jeq(method, "notifications/cancelled") &&
		    is_valid_id(rid)) {
			out->verb = MCP_CANCEL;
			out->id = json_incref(rid);
		}
		return;
	}
	if (q.params != NULL && !json_is_object(q.params)) {
		out->reply = rpc_error(id, RPC_INVALID_PARAMS, NULL,
		    "Invalid params: \"params\" must be an object");
		return;
	}
	for (i = 0; i < sizeof methods / sizeof methods[0]; i++)
		if (jeq(method, methods[i].name))
			me = &methods[i];
	reply = me == NULL ? NULL : request_revision(&q, me);
	if (reply == NULL) {
		int era = q.rev == REV_MODERN ? ERA_MODERN : ERA_LEGACY;
		if (me != NULL && (me->era & era)) {
			if (route && me->run == tools_call &&
			    call_path(&q, &path)) {
				out->verb = MCP_CALL;
				out->id = json_incref(id);
				out->token = progress_token(q.params);
				out->path = (int)path;
				out->job = json_pack("{s:i,s:O}", "rev",
				    (int)q.rev, "msg", msg);
				return;
			}
			reply = me->run(&q);
		} else {
			char *qm = quote(method);
			reply = rpc_error(id, RPC_METHOD_NOT_FOUND, NULL,
			    "Method not found: %s", qm);
			free(qm);
		}
	}
	out->reply = reply;
}

void
mcp_route(struct mcp *m, json_t *msg, struct mcp_msg *out)
{
	handle_object(m, msg, true, out);
}

json_t *
mcp_job(struct mcp *m, json_t *job)
{
	json_t *msg = json_object_get(job, "msg");
	json_int_t rev = json_integer_value(json_object_get(job, "rev"));
	json_t *params = json_object_get(msg, "params");
	struct req q = { .m = m, .id = json_object_get(msg, "id"),
	    .params = json_is_object(params) ? params : NULL };

	if (!json_is_object(msg) || !is_valid_id(q.id) || rev < 0 ||
	    rev >= REV__COUNT)	/* never: the main process made it */
		return rpc_error(q.id, RPC_INTERNAL_ERROR, NULL,
		    "Internal error: a job the worker cannot read");
	q.rev = (enum rev)rev;
	return tools_call(&q);
}

json_t *
mcp_parse(const char *line, size_t len, json_t **reply)
{
	json_error_t je;
	json_t *msg = json_loadb(line, len, JSON_REJECT_DUPLICATES |
	    JSON_ALLOW_NUL | JSON_DECODE_ANY, &je);

	*reply = NULL;
	if (msg == NULL)
		*reply = rpc_error(NULL, RPC_PARSE_ERROR, NULL,
		    "Parse error: %s (column %d)", je.text, je.column);
	return msg;
}

/* Batches are JSON-RPC's, and of the revisions offered only 2025-03-26
 * has them: 2024-11-05 had not yet, 2025-06-18 took them out. */
json_t *
mcp_batch_refused(const struct mcp *m, const json_t *batch)
{
	if (!m->initialized || m->legacy != REV_2025_03_26)
		return rpc_error(NULL, RPC_INVALID_REQUEST, NULL,
		    "Invalid Request: batches are only in protocol revision "
		    "2025-03-26%s%s (send one message per line)",
		    m->initialized ? "; this connection speaks " : "",
		    m->initialized ? mcp_versions[m->legacy] : "");
	if (json_array_size(batch) == 0)
		return rpc_error(NULL, RPC_INVALID_REQUEST, NULL,
		    "Invalid Request: an empty batch");
	/* (each element's reply is held until the batch's last call ends:
	 * bounded, as the calls in flight are) */
	if (json_array_size(batch) > MCP_BATCH_MAX)
		return rpc_error(NULL, RPC_INVALID_REQUEST, NULL,
		    "Invalid Request: a batch of %zu messages; at most %d "
		    "(send the rest in another)", json_array_size(batch),
		    MCP_BATCH_MAX);
	return NULL;
}

json_t *
mcp_batch_element(void)
{
	return rpc_error(NULL, RPC_INVALID_REQUEST, NULL,
	    "Invalid Request: a batch's element is a JSON object");
}

json_t *
mcp_error(json_t *id, int code, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	json_t *e;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	e = rpc_error(id, code, NULL, "%s", msg);
	free(msg);
	return e;
}

unsigned
mcp_paths(const struct mcp *m)
{
	return m->paths;
}

size_t
mcp_max(const struct mcp *m)
{
	return m->max;
}

/* One message (borrowed) to its reply (new), or NULL for none, in one
 * process: a batch's elements one after another, answered as one array. */
static json_t *
handle_value(struct mcp *m, json_t *msg)
{
	struct mcp_msg r;
	json_t *replies, *e;
	size_t i;

	if (json_is_object(msg)) {
		handle_object(m, msg, false, &r);
		return r.reply;
	}
	if (!json_is_array(msg))
		return rpc_error(NULL, RPC_INVALID_REQUEST, NULL,
		    "Invalid Request: a message is a JSON object");
	if ((e = mcp_batch_refused(m, msg)) != NULL)
		return e;
	replies = json_array();
	json_array_foreach(msg, i, e) {
		if (!json_is_object(e))
			json_array_append_new(replies, mcp_batch_element());
		else {
			handle_object(m, e, false, &r);
			if (r.reply != NULL)
				json_array_append_new(replies, r.reply);
		}
	}
	if (json_array_size(replies) == 0) {	/* notifications only */
		json_decref(replies);
		return NULL;
	}
	return replies;
}

/* One line to its reply (new reference), or NULL for none. */
static json_t *
handle(struct mcp *m, const char *line, size_t len)
{
	json_t *msg, *reply;

	msg = mcp_parse(line, len, &reply);
	if (msg == NULL)
		return reply;
	reply = handle_value(m, msg);
	json_decref(msg);
	return reply;
}

/* ---- a message too long to keep ---- */

/* Where the scan of a cut message ran past the cut. */
#define CUT ((size_t)-1)

static bool
is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static size_t
skip_space(const char *s, size_t len, size_t i)
{
	while (i < len && is_ws(s[i]))
		i++;
	return i;
}

/* Past the JSON string that starts at s[i] ('"'), or CUT. */
static size_t
skip_string(const char *s, size_t len, size_t i)
{
	for (i++; i < len; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '"')
			return i + 1;
	}
	return CUT;
}

/* Past the JSON value that starts at s[i], or CUT.  Not a parser: the
 * value is only skipped (json_loadb judges the one that is kept). */
static size_t
skip_value(const char *s, size_t len, size_t i)
{
	size_t depth = 0;

	while (i < len) {
		char c = s[i];
		if (c == '"') {
			i = skip_string(s, len, i);
			if (i == CUT || depth == 0)
				return i;
			continue;
		}
		if (c == '{' || c == '[')
			depth++;
		else if (c == '}' || c == ']') {
			if (depth == 0)
				return i;
			if (--depth == 0)
				return i + 1;
		} else if (depth == 0 && (c == ',' || is_ws(c)))
			return i;
		i++;
	}
	return CUT;
}

/*
 * The id of a message of which only the first len bytes were kept: its
 * top-level "id" member, when that comes before the cut (clients write it
 * near the start).  New reference, or NULL.
 */
static json_t *
peek_id(const char *s, size_t len)
{
	size_t i = skip_space(s, len, 0);

	if (i >= len || s[i] != '{')
		return NULL;
	for (i++;;) {
		size_t k, v;
		bool is_id;

		i = skip_space(s, len, i);
		if (i >= len || s[i] != '"')
			return NULL;
		k = i;
		i = skip_string(s, len, i);
		if (i == CUT)
			return NULL;
		is_id = i - k == 4 && memcmp(s + k, "\"id\"", 4) == 0;
		i = skip_space(s, len, i);
		if (i >= len || s[i] != ':')
			return NULL;
		v = i = skip_space(s, len, i + 1);
		i = skip_value(s, len, i);
		if (i == CUT || i >= len)
			return NULL;	/* a number may go on past the cut */
		if (is_id) {
			json_t *id = json_loadb(s + v, i - v, JSON_DECODE_ANY,
			    NULL);
			if (id != NULL && !is_valid_id(id)) {
				json_decref(id);
				id = NULL;
			}
			return id;
		}
		i = skip_space(s, len, i);
		if (i >= len || s[i] != ',')
			return NULL;
		i++;
	}
}

/* ---- the loop ---- */

json_t *
mcp_cut(const struct mcp *m, const char *line, size_t len)
{
	json_t *id = peek_id(line, len), *reply;

	reply = rpc_error(id, RPC_INVALID_REQUEST, NULL, "Invalid Request: "
	    "message longer than %zu bytes", m->max);
	json_decref(id);
	return reply;
}

/* What serve_lines() calls with each line: a cut one is an invalid
 * request on the id its prefix shows. */
static json_t *
answer(void *arg, const char *line, size_t len, bool too_long)
{
	struct mcp *m = arg;

	return too_long ? mcp_cut(m, line, len) : handle(m, line, len);
}

int
mcp_loop(struct session *s, const struct mcp_opts *o, FILE *in, FILE *out)
{
	struct mcp m = { .s = s };

	m.max = o->max_line ? o->max_line : MCP_MAX_LINE;
	m.paths = o->paths ? o->paths : paths_offered();
	/* The commands' path: the essay's sandbox when it is offered, else
	 * the jail, else the unsafe path. */
	m.home = server_home(m.paths);
	m.jail_filter = o->jail_filter;
	if (!o->policy_set && !use_default_policy(s))
		return 1;
	/* Streams with descriptors (stdin, stdout): calls in parallel, one
	 * worker per path, forked with the policy in place.  Memory streams
	 * (the fuzzer, the unit tests): one message after another here. */
	if (fileno(in) >= 0 && fileno(out) >= 0)
		return mcp_calls(&m, s, fileno(in), out, o->one_worker);
	return serve_lines(in, out, m.max, answer, &m);
}
