/*
 * jailpath.c -- the jail path.
 *
 * The input has been parsed in the parent.  jail_run() forks and isolates a
 * process (namespaces, tmpfs workspace seeded with the path's files, rlimits,
 * no capabilities, no_new_privs, Landlock, seccomp -- see jail.h), and only
 * then does child_main() evaluate the input with the unsafe object model in
 * its "real" mode: file builtins and commands make real system calls in the
 * workspace (fsops.c), os.system really calls execve, http_get really opens
 * a socket.  No in-process cap applies: what stops a bomb here is the
 * kernel's rlimits and the wall clock.
 *
 * The child reports over the jail's result pipe, one JSON object per line:
 *   {"e": {"op":..,"target":..,"text":..,"category":..,"denied":..}}
 *       for every effect, written the moment it happens, so that what was
 *       done before the kernel killed the process is still known;
 *   {"unsent": N}
 *       how many more names it bound than MAX_BINDINGS let it send;
 *   {"ls": [name, ...]}
 *       the workspace's names once the input is done, so that the parent
 *       knows which files the warden's read-back (capped at 64 files and
 *       8 MiB, jail.h) left out;
 *   {"v": "ok"|"error", "result":.., "message":.., "reason":..,
 *    "layer":.., "denied":.., "node": {"type","start","end"}}
 *       once, at the end, if the process lives that long.
 * Nothing is dropped without a word: past the caps (files read back,
 * effects kept) the record's "truncated" says what is missing, and a file
 * of this path that exists in the jail but was not read back keeps its
 * old contents rather than vanishing.
 * The parent reads these as hostile input: every line is parsed by
 * jansson, every field type-checked, counts and lengths bounded; anything
 * else is ignored.
 */
#include "config.h"

#include <dirent.h>
#include <gmp.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/arena.h"
#include "lang/ast.h"
#include "cmd/cmd.h"
#include "interp/eval.h"
#include "jail.h"
#include "jailpath.h"
#include "lang/lex.h"
#include "model/mock.h"
#include "fs/mockfs.h"
#include "interp/ns.h"
#include "lang/parse.h"
#include "base/sbuf.h"
#include "base/xalloc.h"

#define MAX_EFFECTS	256
#define MAX_FIELD	4096		/* bytes of an effect's field */
#define MAX_LISTED	1024		/* workspace names listed back */
#define MAX_BINDINGS	64		/* names one input may bring back */
#define MAX_BIND_REPR	(1u << 20)	/* and the repr of each */

/* ---- in the jailed process ---- */

static void
emit(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(o);
	if (s == NULL)
		return;
	(void)jail_write_result(s, strlen(s));
	(void)jail_write_result("\n", 1);
	free(s);
}

static json_t *
jstr_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static void
sink(const struct effect *e)
{
	json_t *o = json_pack("{s:{s:o,s:o,s:o,s:o,s:b}}", "e",
	    "op", jstr_or_null(e->op), "target", jstr_or_null(e->target),
	    "text", jstr_or_null(e->text),
	    "category", jstr_or_null(e->category), "denied", e->denied);
	if (o != NULL)
		emit(o);
}

static void *
gmp_alloc(size_t n)
{
	void *p = malloc(n);
	if (p == NULL)
		xalloc_die(n);
	return p;
}

static void *
gmp_realloc(void *old, size_t oldn, size_t n)
{
	void *p = realloc(old, n);
	(void)oldn;
	if (p == NULL)
		xalloc_die(n);
	return p;
}

static void
gmp_free(void *p, size_t n)
{
	(void)n;
	free(p);
}

/*
 * The names this input bound, so that the parent's jail path keeps them
 * for the next input (each input runs in a fresh jail):
 *   {"bind": {"name": N, "repr": R}}    a value whose repr is a literal
 *   {"bind": {"name": N, "module": M}}  an imported module
 *   {"bind": {"name": N}}               anything else: it stays behind
 */
static void
emit_bindings(struct eval *ev, struct ns *ns)
{
	size_t i, sent = 0, unsent = 0;
	for (i = 0; i < ns_count(ns); i++) {
		struct sbuf b = SBUF_INIT;
		const char *name;
		json_t *bind;
		value v;
		/* a name bound now, or any name after a change in place
		 * (c.append(1) changes what c holds) */
		if (!ns_is_pending(ns, i) && !ev->mutated)
			continue;
		if (sent == MAX_BINDINGS) {
			unsent++;
			continue;
		}
		name = ns_name(ns, i, &v);
		bind = json_pack("{s:s}", "name", name);
		if (bind == NULL)
			continue;
		if (v.type == VT_OBJECT && v.as.obj->kind == MK_MODULE)
			json_object_set_new(bind, "module",
			    json_string(v.as.obj->name));
		else if (v.type != VT_OBJECT && v.type != VT_FUNCTION &&
		    v.type != VT_NATIVE && value_repr(&ev->rt, v, &b) &&
		    b.len <= MAX_BIND_REPR)
			json_object_set_new(bind, "repr",
			    json_stringn(sbuf_cstr(&b), b.len));
		rt_clear(&ev->rt);
		sbuf_free(&b);
		emit(json_pack("{s:o}", "bind", bind));
		sent++;
	}
	if (unsent > 0)		/* {"unsent": N}: names past the cap */
		emit(json_pack("{s:I}", "unsent", (json_int_t)unsent));
}

/* The workspace's names (the cwd is its root): {"ls": [...]}. */
static void
emit_listing(void)
{
	DIR *d = opendir(".");
	struct dirent *de;
	json_t *names = json_array();
	size_t n = 0;

	if (d == NULL) {
		json_decref(names);
		return;
	}
	while ((de = readdir(d)) != NULL && n < MAX_LISTED) {
		json_t *j;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if ((j = json_string(de->d_name)) != NULL) {
			json_array_append_new(names, j);
			n++;
		}
	}
	closedir(d);
	emit(json_pack("{s:o}", "ls", names));
}

static int
child_main(void *arg)
{
	const struct jailpath_job *job = arg;
	struct arena *a;
	struct eval ev;
	struct sbuf b = SBUF_INIT;
	json_t *fin;
	value v;
	bool ok, has_value = false;
	const char *message = NULL;

	/* Out of memory here is the kernel's RLIMIT_AS speaking. */
	xalloc_set_oom_exit(JAIL_EXIT_NOMEM);
	mp_set_memory_functions(gmp_alloc, gmp_realloc, gmp_free);
	a = arena_new();
	eval_init(&ev, a, &mock_model, &workspace_real, true);
	ev.full_model = true;
	ev.ws.fs = NULL;		/* the real workspace */
	ev.ns = job->ns;
	ev.effects.sink = sink;
	memset(&ev.rt.limits, 0, sizeof ev.rt.limits);
	ev.rt.limits.max_depth = 500;	/* the C stack is not a kernel limit */

	if (job->cmd != NULL) {
		struct cmd_run run = { .ws = &ev.ws, .unsafe = true };
		value args;
		ok = cmd_eval_args(&ev, job->cmd, job->call, &args) &&
		    cmd_check_args(&ev.rt, job->cmd, args);
		if (ok) {
			run.args = args;
			ok = job->cmd->run(&run);
			message = run.message;
			v = run.result;
			has_value = ok;
		}
	} else
		ok = eval_root(&ev, job->root, &v, &has_value);

	if (ok && has_value && !value_repr(&ev.rt, v, &b))
		ok = false;
	fin = json_object();
	json_object_set_new(fin, "v", json_string(ok ? "ok" : "error"));
	json_object_set_new(fin, "result", ok && has_value ?
	    json_stringn(sbuf_cstr(&b), b.len) : json_null());
	json_object_set_new(fin, "message", jstr_or_null(message));
	if (!ok) {
		char *why = xasprintf("%s: %s", pyexc_name(ev.rt.exc.cls), ev.rt.exc.msg);
		json_object_set_new(fin, "reason", json_string(why));
		free(why);
		if (ev.exc_node != NULL)
			json_object_set_new(fin, "node", json_pack(
			    "{s:s,s:I,s:I}", "type",
			    ast_kind_name(ev.exc_node->kind),
			    "start", (json_int_t)ev.exc_node->start,
			    "end", (json_int_t)ev.exc_node->end));
	}
	if (ok)
		emit_bindings(&ev, job->ns);
	emit_listing();
	if (ev.ws.denied_layer != NULL) {
		json_object_set_new(fin, "layer",
		    json_string(ev.ws.denied_layer));
		json_object_set_new(fin, "denied",
		    jstr_or_null(ev.ws.denied_reason));
	}
	sbuf_free(&b);
	emit(fin);
	return 0;
}

/* ---- in the parent: the reply, read as hostile input ---- */

/* A string field, cut at max bytes; NULL when absent or not a string,
 * or when it holds a NUL (which a cut C string would hide). */
static const char *
field_max(struct arena *a, json_t *o, const char *key, size_t max)
{
	json_t *j = json_object_get(o, key);
	size_t n;
	if (!json_is_string(j))
		return NULL;
	n = json_string_length(j);
	if (memchr(json_string_value(j), '\0', n) != NULL)
		return NULL;
	if (n > max)
		n = max;
	return arena_strndup(a, json_string_value(j), n);
}

static const char *
field(struct arena *a, json_t *o, const char *key)
{
	return field_max(a, o, key, MAX_FIELD);
}

/* What the reply said in full (result, message, reason): the whole reply
 * is already within the jail's result cap, so nothing is cut. */
static const char *
whole_field(struct arena *a, json_t *o, const char *key)
{
	return field_max(a, o, key, JAIL_DEFAULT_MAX_RESULT);
}

/* Is the string field longer than MAX_FIELD (and so cut by field())? */
static bool
is_long(json_t *o, const char *key)
{
	json_t *j = json_object_get(o, key);
	return json_is_string(j) && json_string_length(j) > MAX_FIELD;
}

/* The names the record uses for layers come from a fixed set. */
static bool
layer_of(const char *name, enum layer *out)
{
	static const struct { const char *name; enum layer l; } t[] = {
		{ "namespace", LAYER_NAMESPACE }, { "landlock", LAYER_LANDLOCK },
		{ "seccomp", LAYER_SECCOMP }, { "rlimit", LAYER_RLIMIT },
		{ "timeout", LAYER_TIMEOUT },
	};
	size_t i;
	for (i = 0; name != NULL && i < sizeof t / sizeof t[0]; i++)
		if (strcmp(t[i].name, name) == 0) {
			*out = t[i].l;
			return true;
		}
	return false;
}

/* What came back besides the effects: the final object, the bindings, the
 * listing, and the counts of what was past the caps. */
struct reply {
	json_t	*final;
	json_t	*binds;
	json_t	*listing;	/* the "ls" array, or NULL */
	size_t	 dropped;	/* effects past MAX_EFFECTS */
	size_t	 cut;		/* effects whose text was cut */
	size_t	 unsent;	/* names bound past MAX_BINDINGS */
};

static void
decode(const char *buf, size_t len, struct arena *a, struct record *r,
    struct reply *rp)
{
	size_t pos = 0, cap = 0;
	json_t **final = &rp->final, *binds = rp->binds;

	*final = NULL;
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		json_t *o = json_loadb(buf + pos, n, JSON_REJECT_DUPLICATES,
		    NULL);
		json_t *e;
		pos += n + 1;
		if (!json_is_object(o)) {
			json_decref(o);
			continue;
		}
		if ((e = json_object_get(o, "e")) != NULL && json_is_object(e) &&
		    r->neffects >= MAX_EFFECTS)
			rp->dropped++;
		else if (e != NULL && json_is_object(e)) {
			struct effect *ef;
			if (r->neffects == cap) {
				cap = cap ? cap * 2 : 8;
				r->effects = arena_grow(a, r->effects,
				    r->neffects, cap, sizeof *r->effects);
			}
			ef = &r->effects[r->neffects++];
			ef->op = field(a, e, "op");
			ef->target = field(a, e, "target");
			ef->text = field(a, e, "text");
			ef->category = field(a, e, "category");
			if (is_long(e, "target") || is_long(e, "text"))
				rp->cut++;
			ef->denied = json_is_true(json_object_get(e, "denied"));
			ef->simulated = false;
			if (ef->op == NULL)
				ef->op = "?";
			if (ef->target == NULL)
				ef->target = "";
		} else if (json_object_get(o, "v") != NULL && *final == NULL) {
			*final = o;
			continue;
		} else if ((e = json_object_get(o, "bind")) != NULL &&
		    json_is_object(e) && *final == NULL &&
		    json_array_size(binds) < MAX_BINDINGS)
			json_array_append(binds, e);
		else if ((e = json_object_get(o, "unsent")) != NULL &&
		    json_is_integer(e) && *final == NULL &&
		    json_integer_value(e) > 0)
			rp->unsent = (size_t)json_integer_value(e);
		else if ((e = json_object_get(o, "ls")) != NULL &&
		    json_is_array(e) && *final == NULL &&
		    rp->listing == NULL && json_array_size(e) <= MAX_LISTED)
			rp->listing = json_incref(e);
		json_decref(o);
	}
}

/* Is n a literal: constants, and lists, tuples, sets, dicts, set() and
 * frozenset() of literals, and the signs and sums that spell -1 and
 * (1+2j)?  Nothing else is evaluated from the jail's reply. */
static bool
literal(const struct node *n, unsigned depth)
{
	size_t i;
	if (n == NULL || depth > PARSE_MAX_DEPTH)
		return false;
	switch (n->kind) {
	case NODE_EXPRESSION:
		return literal(n->u.expression.body, depth + 1);
	case NODE_CONSTANT:
		/* "..." is how a repr shows a list that holds itself; the
		 * Ellipsis object itself would have come as "Ellipsis" */
		return n->u.constant.value.type != VT_ELLIPSIS;
	case NODE_LIST: case NODE_TUPLE: case NODE_SET:
		for (i = 0; i < n->u.seq.elts.len; i++)
			if (!literal(n->u.seq.elts.items[i], depth + 1))
				return false;
		return true;
	case NODE_DICT:
		for (i = 0; i < n->u.dict.keys.len; i++)
			if (!literal(n->u.dict.keys.items[i], depth + 1) ||
			    !literal(n->u.dict.values.items[i], depth + 1))
				return false;
		return true;
	case NODE_UNARYOP:
		return (n->u.unaryop.op == UNARYOP_USUB ||
		    n->u.unaryop.op == UNARYOP_UADD) &&
		    literal(n->u.unaryop.operand, depth + 1);
	case NODE_BINOP:
		return (n->u.binop.op == BINOP_ADD ||
		    n->u.binop.op == BINOP_SUB) &&
		    literal(n->u.binop.left, depth + 1) &&
		    literal(n->u.binop.right, depth + 1);
	case NODE_CALL:
		if (n->u.call.func->kind != NODE_NAME ||
		    n->u.call.keywords.len != 0 || n->u.call.args.len > 1 ||
		    (strcmp(n->u.call.func->u.name.id, "set") != 0 &&
		    strcmp(n->u.call.func->u.name.id, "frozenset") != 0))
			return false;
		return n->u.call.args.len == 0 ||
		    literal(n->u.call.args.items[0], depth + 1);
	default:
		return false;
	}
}

/*
 * Keep the names the input bound in the jail, read from its reply as
 * hostile input: a literal is parsed and checked to be nothing but a
 * literal before it is evaluated; a module is imported by name from the
 * object model.  Returns the names that could not come back, or NULL.
 */
static const char *
keep_bindings(const struct jailpath_job *job, json_t *binds,
    struct arena *out)
{
	struct arena *a = arena_new();
	struct sbuf lost = SBUF_INIT;
	const char *ret = NULL;
	size_t i;

	for (i = 0; i < json_array_size(binds); i++) {
		json_t *b = json_array_get(binds, i);
		const char *name = field(a, b, "name");
		const char *rep = field_max(a, b, "repr", MAX_BIND_REPR);
		const char *mod = field(a, b, "module");
		struct eval ev;
		bool kept = false, has;
		value v;

		if (name == NULL || strlen(name) > 256 || !lex_is_name(name))
			continue;
		eval_init(&ev, a, &mock_model, &workspace_real, true);
		if (rep != NULL) {
			struct parse_result pr;
			parse_input(a, rep, strlen(rep), &pr);
			kept = pr.status == PARSE_OK && literal(pr.root, 0) &&
			    eval_root(&ev, pr.root, &v, &has) && has;
		} else if (mod != NULL && strlen(mod) < 64) {
			ev.full_model = true;
			kept = mock_import(&ev, mod, &v) && v.type == VT_OBJECT;
		}
		if (kept)
			ns_set(job->ns, name, v);
		else {
			/* not an old value in its place: that would be stale */
			ns_delete(job->ns, name);
			sbuf_addf(&lost, "%s%s", lost.len ? ", " : "", name);
		}
	}
	if (lost.len > 0)
		ret = arena_strdup(out, sbuf_cstr(&lost));
	sbuf_free(&lost);
	arena_free(a);
	return ret;
}

static bool
listed(json_t *listing, const char *name)
{
	size_t i;
	for (i = 0; i < json_array_size(listing); i++) {
		json_t *j = json_array_get(listing, i);
		if (json_is_string(j) && strcmp(json_string_value(j), name) == 0)
			return true;
	}
	return false;
}

/*
 * The path's files become the workspace as the jail left it.  When the
 * warden's read-back stopped at its caps, a file of the path that is still
 * in the jail (by its listing; without one, any) keeps its old contents,
 * and the returned note (in a) says what was left out; else NULL.
 */
static const char *
load_files(struct mfs *fs, const struct jail_outcome *o, json_t *listing,
    struct arena *a)
{
	struct mfs *old = mfs_new();
	struct sbuf kept = SBUF_INIT;
	const char *note = NULL;
	size_t i, nkept = 0, lost = 0;

	while (mfs_count(fs) > 0) {
		const char *name = mfs_name(fs, 0);
		size_t len;
		const char *data = mfs_get(fs, name, &len);
		if (o->files_truncated)
			mfs_put(old, name, data, len);
		mfs_delete(fs, name);
	}
	for (i = 0; i < o->nfiles; i++)
		mfs_put(fs, o->files[i].name, o->files[i].data,
		    o->files[i].len);
	if (!o->files_truncated) {
		mfs_free(old);
		return NULL;
	}
	for (i = 0; i < mfs_count(old); i++) {
		const char *name = mfs_name(old, i);
		size_t len;
		const char *data;
		if (mfs_get(fs, name, &len) != NULL ||
		    (listing != NULL && !listed(listing, name)))
			continue;
		data = mfs_get(old, name, &len);
		mfs_put(fs, name, data, len);
		if (nkept++ < 8)
			sbuf_addf(&kept, "%s%s", nkept > 1 ? ", " : "", name);
	}
	for (i = 0; i < json_array_size(listing); i++) {
		json_t *j = json_array_get(listing, i);
		size_t len;
		if (json_is_string(j) &&
		    mfs_get(fs, json_string_value(j), &len) == NULL)
			lost++;
	}
	note = arena_printf(a, "the jail's workspace was read back in part "
	    "(at most %u files and %u MiB)", JAIL_DEFAULT_MAX_FILES,
	    JAIL_DEFAULT_MAX_READ_BYTES >> 20);
	if (nkept > 0)
		note = arena_printf(a, "%s; %zu file%s not read back kept as "
		    "before this step: %s%s", note, nkept, nkept == 1 ? "" : "s",
		    sbuf_cstr(&kept), nkept > 8 ? ", ..." : "");
	if (lost > 0)
		note = arena_printf(a, "%s; %zu file%s left in the jail", note,
		    lost, lost == 1 ? "" : "s");
	else if (listing == NULL)
		note = arena_printf(a, "%s; files it made may be left in the "
		    "jail", note);
	sbuf_free(&kept);
	mfs_free(old);
	return note;
}

/* One more thing the record leaves out, in r->truncated. */
static void
add_truncated(struct record *r, struct arena *a, const char *what)
{
	if (what == NULL)
		return;
	r->truncated = r->truncated == NULL ? what :
	    arena_printf(a, "%s; %s", r->truncated, what);
}

/* The jail's reason as the sentence after "CONTAINED by seccomp: ":
 * "execve denied by seccomp" is "starting a program (execve) is
 * forbidden". */
static const char *
contained_reason(struct arena *a, enum layer l, const char *reason)
{
	static const char tail[] = " denied by seccomp";
	size_t n = strlen(reason), t = sizeof tail - 1;
	const char *call, *purpose;

	if (l != LAYER_SECCOMP || n <= t || strcmp(reason + n - t, tail) != 0)
		return arena_strdup(a, reason);
	call = arena_strndup(a, reason, n - t);
	purpose = jail_syscall_purpose(call);
	return purpose != NULL ? arena_printf(a, "%s (%s) is forbidden",
	    purpose, call) : arena_printf(a, "the system call %s is "
	    "forbidden in the jail", call);
}

void
jailpath_run(const struct jailpath_job *job, struct arena *a,
    struct record *r)
{
	struct jail_config cfg;
	struct jail_outcome o;
	struct jail_file *files;
	size_t i, n = mfs_count(job->fs);
	struct reply rp = { 0 };
	json_t *fin;

	memset(&cfg, 0, sizeof cfg);
	files = arena_array(a, n + 1, sizeof *files);
	for (i = 0; i < n; i++) {
		size_t len;
		files[i].name = (char *)mfs_name(job->fs, i);
		files[i].data = (char *)mfs_get(job->fs, files[i].name, &len);
		files[i].len = len;
	}
	cfg.files = files;
	cfg.nfiles = n;
	cfg.fail_at = job->fail_at;
	if (job->wall_ms != 0)
		cfg.wall_ms = job->wall_ms;

	jail_run(&cfg, child_main, (void *)job, &o);
	rp.binds = json_array();
	decode(o.result ? o.result : "", o.result_len, a, r, &rp);
	fin = rp.final;
	if (rp.dropped > 0)
		add_truncated(r, a, arena_printf(a, "%zu effect%s past the "
		    "first %u not kept", rp.dropped, rp.dropped == 1 ? "" : "s",
		    MAX_EFFECTS));
	if (rp.cut > 0)
		add_truncated(r, a, arena_printf(a, "the text of %zu effect%s "
		    "cut at %u bytes", rp.cut, rp.cut == 1 ? "" : "s",
		    MAX_FIELD));

	switch (o.status) {
	case JAIL_REFUSED:
		/* Nothing ran; the files are as they were. */
		r->verdict = VERDICT_ERROR;
		if (!layer_of(o.layer, &r->layer))
			r->layer = LAYER_NAMESPACE;
		r->rule = "jail";
		r->reason = arena_printf(a, "jail refused, nothing ran: %s",
		    o.reason);
		break;
	case JAIL_ERROR:
		r->verdict = VERDICT_ERROR;
		r->layer = LAYER_NAMESPACE;
		r->rule = "jail";
		r->reason = arena_printf(a, "jail error: %s", o.reason);
		add_truncated(r, a, "nothing was read back from the jail's "
		    "workspace: this path's files are as before this step");
		r->fs_partial = true;
		break;
	case JAIL_CONTAINED:
		r->verdict = VERDICT_CONTAINED;
		if (!layer_of(o.layer, &r->layer))
			r->layer = LAYER_NAMESPACE;
		r->rule = "kernel";
		r->reason = contained_reason(a, r->layer, o.reason);
		if (r->layer == LAYER_SECCOMP && r->neffects > 0)
			r->effects[r->neffects - 1].denied = true;
		add_truncated(r, a, load_files(job->fs, &o, rp.listing, a));
		r->fs_partial = o.files_truncated;
		break;
	case JAIL_OK: {
		const char *v = fin ? field(a, fin, "v") : NULL;
		enum layer l;
		add_truncated(r, a, load_files(job->fs, &o, rp.listing, a));
		r->fs_partial = o.files_truncated;
		if (v == NULL) {
			r->verdict = VERDICT_ERROR;
			r->layer = LAYER_NAMESPACE;
			r->reason = "jail error: the evaluation sent no result";
			break;
		}
		if (layer_of(field(a, fin, "layer"), &l) &&
		    field(a, fin, "denied") != NULL) {
			/* The kernel refused a real operation (an open of a
			 * host path, a write Landlock forbids). */
			r->verdict = VERDICT_CONTAINED;
			r->layer = l;
			r->rule = "kernel";
			r->reason = whole_field(a, fin, "denied");
			break;
		}
		if (strcmp(v, "ok") == 0) {
			const char *lost;
			r->verdict = VERDICT_OK;
			r->layer = LAYER_EVAL;
			r->result = whole_field(a, fin, "result");
			r->outcome = whole_field(a, fin, "message");
			lost = keep_bindings(job, rp.binds, a);
			if (rp.unsent > 0)
				add_truncated(r, a, arena_printf(a, "%zu name%s "
				    "past the first %u stayed in the jail",
				    rp.unsent, rp.unsent == 1 ? "" : "s",
				    MAX_BINDINGS));
			if (lost != NULL && r->outcome == NULL)
				r->outcome = arena_printf(a, "%s (%s stayed in the "
				    "jail: only literals and modules come back)",
				    r->result ? r->result : "ok", lost);
		} else {
			json_t *nd = json_object_get(fin, "node");
			r->verdict = VERDICT_ERROR;
			r->layer = LAYER_EVAL;
			r->reason = whole_field(a, fin, "reason");
			if (r->reason == NULL)
				r->reason = "error";
			if (json_is_object(nd) && field(a, nd, "type") != NULL &&
			    json_is_integer(json_object_get(nd, "start")) &&
			    json_is_integer(json_object_get(nd, "end"))) {
				json_int_t s0 = json_integer_value(
				    json_object_get(nd, "start"));
				json_int_t e0 = json_integer_value(
				    json_object_get(nd, "end"));
				if (s0 >= 0 && e0 >= s0 &&
				    e0 <= (json_int_t)strlen(r->input)) {
					r->has_node = true;
					r->node_type = field(a, nd, "type");
					r->node_start = (uint32_t)s0;
					r->node_end = (uint32_t)e0;
				}
			}
		}
		break;
	}
	}
	json_decref(fin);
	json_decref(rp.binds);
	json_decref(rp.listing);
	jail_outcome_free(&o);
}
