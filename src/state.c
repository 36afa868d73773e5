/*
 * state.c -- saving and loading a session (see state.h).
 *
 * The file is JSON written with jansson.  File names and contents, strings
 * and bytes are stored as hex, so any byte survives (a str may hold lone
 * surrogates, a file any bytes).  Values are typed:
 *   {"t":"int","v":"123"} {"t":"float","v":"0.1"} {"t":"str","v":HEX}
 *   {"t":"list","v":[...]} {"t":"dict","v":[[k,v],...]} ...
 * Loading rebuilds them with the value constructors; nothing is evaluated.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "arena.h"
#include "ledger.h"
#include "mockfs.h"
#include "ns.h"
#include "record.h"
#include "sbuf.h"
#include "session.h"
#include "state.h"
#include "value.h"
#include "xalloc.h"

#define STATE_VERSION	1
#define MAX_STATE_BYTES	(256u << 20)
#define MAX_DEPTH	200

/* ---- hex ---- */

static json_t *
hex(const char *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char *s = xmalloc(2 * n + 1);
	json_t *j;
	size_t i;
	for (i = 0; i < n; i++) {
		s[2 * i] = digits[(unsigned char)p[i] >> 4];
		s[2 * i + 1] = digits[(unsigned char)p[i] & 15];
	}
	s[2 * n] = '\0';
	j = json_stringn(s, 2 * n);
	free(s);
	return j;
}

static int
nibble(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	return -1;
}

/* Decode a hex string into heap bytes (NUL-terminated); NULL when bad. */
static char *
unhex(json_t *j, size_t *len)
{
	const char *s = json_string_value(j);
	size_t n, i;
	char *out;
	if (s == NULL || (n = json_string_length(j)) % 2 != 0)
		return NULL;
	out = xmalloc(n / 2 + 1);
	for (i = 0; i < n / 2; i++) {
		int hi = nibble(s[2 * i]), lo = nibble(s[2 * i + 1]);
		if (hi < 0 || lo < 0) {
			free(out);
			return NULL;
		}
		out[i] = (char)(hi << 4 | lo);
	}
	out[n / 2] = '\0';
	*len = n / 2;
	return out;
}

/* ---- values ---- */

static json_t *
typed(const char *t, json_t *v)
{
	return json_pack("{s:s,s:o}", "t", t, "v", v);
}

/* NULL when v is not plain data (or too deep): the name is skipped. */
static json_t *
value_json(struct rt *rt, value v, int depth)
{
	json_t *a;
	struct sbuf b = SBUF_INIT;
	size_t i;

	if (depth > MAX_DEPTH)
		return NULL;
	switch (v.type) {
	case VT_NONE: return typed("none", json_null());
	case VT_BOOL: return typed("bool", json_boolean(v.as.b));
	case VT_INT: case VT_BIGINT: case VT_FLOAT: case VT_COMPLEX: {
		/* repr of a number reads back exactly (floats round-trip) */
		json_t *j;
		if (v.type == VT_COMPLEX) {
			char re[40], im[40];
			snprintf(re, sizeof re, "%.17g", v.as.c->re);
			snprintf(im, sizeof im, "%.17g", v.as.c->im);
			return typed("complex", json_pack("[s,s]", re, im));
		}
		if (v.type == VT_BIGINT) {
			char *d = mpz_get_str(NULL, 10, v.as.big->z);
			j = typed("int", json_string(d));
			free(d);
			return j;
		}
		if (v.type == VT_INT)
			sbuf_addf(&b, "%lld", (long long)v.as.i);
		else
			sbuf_addf(&b, "%.17g", v.as.f);
		j = typed(v.type == VT_INT ? "int" : "float",
		    json_string(sbuf_cstr(&b)));
		sbuf_free(&b);
		return j;
	}
	case VT_STR: return typed("str", hex(v.as.s->data, v.as.s->len));
	case VT_BYTES: return typed("bytes", hex(v.as.s->data, v.as.s->len));
	case VT_LIST: case VT_TUPLE: {
		size_t n = v.type == VT_LIST ? v.as.list->len : v.as.tuple->len;
		const value *items = v.type == VT_LIST ? v.as.list->items :
		    v.as.tuple->items;
		a = json_array();
		for (i = 0; i < n; i++) {
			json_t *e = value_json(rt, items[i], depth + 1);
			if (e == NULL) {
				json_decref(a);
				return NULL;
			}
			json_array_append_new(a, e);
		}
		return typed(v.type == VT_LIST ? "list" : "tuple", a);
	}
	case VT_DICT: case VT_SET: case VT_FROZENSET:
		a = json_array();
		for (i = 0; i < v.as.dict->used; i++) {
			const struct ventry *e = &v.as.dict->entries[i];
			json_t *k, *val;
			if (!e->live)
				continue;
			k = value_json(rt, e->key, depth + 1);
			val = v.type == VT_DICT ? value_json(rt, e->val,
			    depth + 1) : json_null();
			if (k == NULL || val == NULL) {
				json_decref(k);
				json_decref(val);
				json_decref(a);
				return NULL;
			}
			json_array_append_new(a, v.type == VT_DICT ?
			    json_pack("[o,o]", k, val) : k);
			if (v.type != VT_DICT)
				json_decref(val);
		}
		return typed(v.type == VT_DICT ? "dict" : v.type == VT_SET ?
		    "set" : "frozenset", a);
	default:
		return NULL;
	}
}

static bool
json_value(struct rt *rt, json_t *j, int depth, value *out)
{
	const char *t = json_string_value(json_object_get(j, "t"));
	json_t *v = json_object_get(j, "v");
	size_t i, len;
	char *bytes;

	if (t == NULL || v == NULL || depth > MAX_DEPTH)
		return false;
	if (strcmp(t, "none") == 0) {
		*out = value_none();
		return true;
	}
	if (strcmp(t, "bool") == 0 && json_is_boolean(v)) {
		*out = value_bool(json_is_true(v));
		return true;
	}
	if (strcmp(t, "int") == 0 && json_is_string(v)) {
		mpz_t z;
		const char *s = json_string_value(v);
		if (mpz_init_set_str(z, s, 10) != 0) {
			mpz_clear(z);
			return false;
		}
		*out = value_int_mpz(rt->arena, z);
		mpz_clear(z);
		return true;
	}
	if (strcmp(t, "float") == 0 && json_is_string(v)) {
		*out = value_float(strtod(json_string_value(v), NULL));
		return true;
	}
	if (strcmp(t, "complex") == 0 && json_is_array(v) &&
	    json_array_size(v) == 2) {
		*out = value_complex(rt->arena,
		    strtod(json_string_value(json_array_get(v, 0)) ?: "0", NULL),
		    strtod(json_string_value(json_array_get(v, 1)) ?: "0", NULL));
		return true;
	}
	if (strcmp(t, "str") == 0 || strcmp(t, "bytes") == 0) {
		if ((bytes = unhex(v, &len)) == NULL)
			return false;
		*out = t[0] == 's' ? value_str(rt->arena, bytes, len) :
		    value_bytes(rt->arena, bytes, len);
		free(bytes);
		return true;
	}
	if (!json_is_array(v))
		return false;
	if (strcmp(t, "list") == 0 || strcmp(t, "tuple") == 0) {
		size_t n = json_array_size(v);
		*out = t[0] == 'l' ? value_list(rt->arena, n) :
		    value_tuple(rt->arena, n);
		for (i = 0; i < n; i++) {
			value e;
			if (!json_value(rt, json_array_get(v, i), depth + 1, &e))
				return false;
			if (t[0] == 'l')
				value_list_append(rt->arena, *out, e);
			else
				out->as.tuple->items[i] = e;
		}
		return true;
	}
	if (strcmp(t, "dict") == 0 || strcmp(t, "set") == 0 ||
	    strcmp(t, "frozenset") == 0) {
		*out = t[0] == 'd' ? value_dict(rt->arena) :
		    value_set(rt->arena);
		if (t[0] == 'f')
			out->type = VT_FROZENSET;
		for (i = 0; i < json_array_size(v); i++) {
			json_t *e = json_array_get(v, i);
			value k, val;
			if (t[0] == 'd') {
				if (!json_is_array(e) || json_array_size(e) != 2 ||
				    !json_value(rt, json_array_get(e, 0),
				    depth + 1, &k) ||
				    !json_value(rt, json_array_get(e, 1),
				    depth + 1, &val) ||
				    !value_dict_set(rt, *out, k, val))
					return false;
			} else if (!json_value(rt, e, depth + 1, &k) ||
			    !value_set_add(rt, *out, k))
				return false;
		}
		return true;
	}
	return false;
}

/* ---- the whole state ---- */

static json_t *
dump(struct session *s)
{
	json_t *root = json_object(), *paths = json_object();
	struct arena *a = arena_new();
	struct rt rt = { .arena = a };
	int p;

	json_object_set_new(root, "version", json_integer(STATE_VERSION));
	json_object_set_new(root, "steps", json_integer(session_steps(s)));
	for (p = 0; p < PATH__COUNT; p++) {
		json_t *path = json_object(), *files = json_array(),
		    *names = json_object(), *ledger = json_array();
		const struct mfs *fs = session_fs(s, (enum path_id)p);
		struct ns *ns = session_ns(s, (enum path_id)p);
		struct ledger *l = session_ledger(s, (enum path_id)p);
		const char *key, *args, *msg;
		size_t i;

		for (i = 0; i < mfs_count(fs); i++) {
			size_t len;
			const char *name = mfs_name(fs, i);
			const char *data = mfs_get(fs, name, &len);
			json_array_append_new(files, json_pack("[o,o]",
			    hex(name, strlen(name)), hex(data, len)));
		}
		for (i = 0; i < ns_count(ns); i++) {
			value v;
			const char *name = ns_name(ns, i, &v);
			json_t *j = value_json(&rt, v, 0);
			if (j != NULL)
				json_object_set_new(names, name, j);
		}
		for (i = 0; ledger_at(l, i, &key, &args, &msg); i++)
			json_array_append_new(ledger, json_pack("[s,s,s]", key,
			    args, msg));
		json_object_set_new(path, "files", files);
		json_object_set_new(path, "names", names);
		json_object_set_new(path, "ledger", ledger);
		json_object_set_new(path, "budget_used", json_integer(
		    session_budget_used(s, (enum path_id)p)));
		json_object_set_new(paths, record_path_name((enum path_id)p),
		    path);
	}
	json_object_set_new(root, "paths", paths);
	arena_free(a);
	return root;
}

static bool
fail_errno(char **err, const char *what, const char *path)
{
	*err = xasprintf("%s %s: %s", what, path, strerror(errno));
	return false;
}

/* Write whole buffer to fd, fsync it. */
static bool
write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		p += w;
		n -= (size_t)w;
	}
	return fsync(fd) == 0;
}

static bool
fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool ok;
	if (fd < 0)
		return false;
	ok = fsync(fd) == 0;
	close(fd);
	return ok;
}

bool
state_save(struct session *s, const char *dir, const struct record *r,
    size_t n, char **err)
{
	json_t *root = dump(s), *line;
	char *text = json_dumps(root, JSON_COMPACT | JSON_ENSURE_ASCII);
	char *tmp = xasprintf("%s/state.json.tmp", dir);
	char *final = xasprintf("%s/state.json", dir);
	char *journal = xasprintf("%s/journal.jsonl", dir);
	bool ok = false;
	int fd = -1;
	size_t i;

	json_decref(root);
	if (text == NULL) {
		*err = xstrdup("cannot encode the state");
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || !write_all(fd, text, strlen(text))) {
		fail_errno(err, "writing", tmp);
		goto out;
	}
	close(fd);
	fd = -1;
	if (rename(tmp, final) != 0) {
		fail_errno(err, "renaming", tmp);
		goto out;
	}
	if (!fsync_dir(dir)) {
		fail_errno(err, "syncing", dir);
		goto out;
	}
	/* the journal: what was acknowledged, in order */
	free(text);
	line = json_pack("{s:i,s:[]}", "step", session_steps(s), "verdicts");
	for (i = 0; i < n; i++)
		json_array_append_new(json_object_get(line, "verdicts"),
		    json_pack("{s:s,s:s}", "path", record_path_name(r[i].path),
		    "verdict", record_verdict_name(r[i].verdict)));
	text = json_dumps(line, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(line);
	fd = open(journal, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0 || text == NULL || !write_all(fd, text, strlen(text)) ||
	    !write_all(fd, "\n", 1)) {
		fail_errno(err, "appending to", journal);
		goto out;
	}
	ok = true;
out:
	if (fd >= 0)
		close(fd);
	free(text);
	free(tmp);
	free(final);
	free(journal);
	return ok;
}

static bool
corrupt(char **err, const char *path, const char *what)
{
	*err = xasprintf("%s: not a sandboxrepl state (%s)", path, what);
	return false;
}

bool
state_load(struct session *s, const char *dir, char **err)
{
	char *path = xasprintf("%s/state.json", dir);
	json_error_t je;
	json_t *root, *paths;
	struct arena *a;
	struct rt rt;
	bool ok = false;
	int p;

	*err = NULL;
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		fail_errno(err, "creating", dir);
		free(path);
		return false;
	}
	if (access(path, F_OK) != 0) {
		free(path);
		if (errno != ENOENT) {
			*err = xasprintf("%s/state.json: %s", dir,
			    strerror(errno));
			return false;
		}
		return true;		/* a fresh start */
	}
	root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (root == NULL) {
		*err = xasprintf("%s: %s", path, je.text);
		free(path);
		return false;
	}
	a = arena_new();
	memset(&rt, 0, sizeof rt);
	rt.arena = a;
	if (json_integer_value(json_object_get(root, "version")) !=
	    STATE_VERSION || !json_is_object(paths = json_object_get(root,
	    "paths"))) {
		corrupt(err, path, "version or paths");
		goto out;
	}
	/* Start from nothing: the saved state is the whole truth. */
	session_reset(s, false);
	session_set_steps(s, (unsigned)json_integer_value(
	    json_object_get(root, "steps")));
	for (p = 0; p < PATH__COUNT; p++) {
		json_t *path_j = json_object_get(paths,
		    record_path_name((enum path_id)p)), *e, *v;
		const char *name;
		size_t i;
		if (!json_is_object(path_j))
			continue;
		json_array_foreach(json_object_get(path_j, "files"), i, e) {
			size_t nl, dl;
			char *n = unhex(json_array_get(e, 0), &nl);
			char *d = unhex(json_array_get(e, 1), &dl);
			if (n == NULL || d == NULL || strlen(n) != nl) {
				free(n);
				free(d);
				corrupt(err, path, "a file entry");
				goto out;
			}
			mfs_put(session_fs_mut(s, (enum path_id)p), n, d, dl);
			free(n);
			free(d);
		}
		json_object_foreach(json_object_get(path_j, "names"), name, v) {
			value val;
			if (!json_value(&rt, v, 0, &val)) {
				corrupt(err, path, "a name");
				goto out;
			}
			ns_set(session_ns(s, (enum path_id)p), name, val);
		}
		json_array_foreach(json_object_get(path_j, "ledger"), i, e) {
			const char *k = json_string_value(json_array_get(e, 0));
			const char *ar = json_string_value(json_array_get(e, 1));
			const char *m = json_string_value(json_array_get(e, 2));
			if (k == NULL || ar == NULL || m == NULL) {
				corrupt(err, path, "a ledger entry");
				goto out;
			}
			ledger_add(session_ledger(s, (enum path_id)p), k, ar, m);
		}
		session_set_budget_used(s, (enum path_id)p, (unsigned)
		    json_integer_value(json_object_get(path_j, "budget_used")));
	}
	ok = true;
out:
	json_decref(root);
	arena_free(a);
	free(path);
	return ok;
}
