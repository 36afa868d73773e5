/*
 * cmd.c -- the command table and what the session does with commands:
 * matching a call, checking its argument, the surface rule for paths, URL
 * hosts.  What the commands themselves read (cmd_arg) is in cmd_args.c.
 */
#include "config.h"

#include <string.h>

#include "base/arena.h"
#include "lang/ast.h"
#include "cmd.h"
#include "interp/eval.h"
#include "base/sbuf.h"
#include "base/strlist.h"

#define X_ENTRY(n) &cmd_##n##_entry,
static const struct cmd_entry *const table[] = { COMMANDS(X_ENTRY) };
#undef X_ENTRY

#define X_NAME(n) #n,
const char *const cmd_names[] = { COMMANDS(X_NAME) NULL };
#undef X_NAME

const struct cmd_entry *
cmd_at(size_t i)
{
	return i < sizeof table / sizeof table[0] ? table[i] : NULL;
}

const struct cmd_entry *
cmd_find(const char *name)
{
	size_t i;
	/* (every name the allowlist checks comes here: the first byte
	 * rules out most commands without a call) */
	for (i = 0; i < sizeof table / sizeof table[0]; i++)
		if (table[i]->name[0] == name[0] &&
		    strcmp(table[i]->name, name) == 0)
			return table[i];
	return NULL;
}

const struct cmd_entry *
cmd_match(const struct node *root, const struct node **call)
{
	const struct node *n;

	if (root == NULL || root->kind != NODE_EXPRESSION)
		return NULL;
	n = root->u.expression.body;
	if (n->kind != NODE_CALL || n->u.call.func->kind != NODE_NAME)
		return NULL;
	*call = n;
	return cmd_find(n->u.call.func->u.name.id);
}

size_t
cmd_positional(const struct cmd_entry *e)
{
	size_t i, n = 0;

	for (i = 0; e->keys[i] != NULL; i++)
		if (strcmp(e->keys[i], "idempotency_key") != 0)
			n++;
	return n;
}

/* "takes no arguments" / "takes one argument (path)" / "takes up to 2
 * arguments (path, text)" */
static const char *
takes(struct arena *a, const struct cmd_entry *e)
{
	struct sbuf b = SBUF_INIT;
	const char *s;
	size_t i, n = cmd_positional(e);

	if (n == 0)
		return "takes no arguments";
	for (i = 0; e->keys[i] != NULL; i++)
		if (strcmp(e->keys[i], "idempotency_key") != 0)
			sbuf_addf(&b, "%s%s", b.len ? ", " : "", e->keys[i]);
	if (n == 1)
		s = arena_printf(a, "takes one argument (%s) or its dict",
		    sbuf_cstr(&b));
	else
		s = arena_printf(a, "takes up to %zu arguments (%s) or their "
		    "dict", n, sbuf_cstr(&b));
	sbuf_free(&b);
	return s;
}

const char *
cmd_shape_error(struct arena *a, const struct cmd_entry *e,
    const struct node *call)
{
	size_t i, n = call->u.call.args.len;

	for (i = 0; i < n; i++)
		if (call->u.call.args.items[i]->kind == NODE_STARRED)
			return arena_printf(a, "TypeError: %s() takes its "
			    "arguments written out, not *unpacked: e.g. %s",
			    e->name, e->example);
	for (i = 0; i < call->u.call.keywords.len; i++)
		if (call->u.call.keywords.items[i]->u.keyword.arg == NULL)
			return arena_printf(a, "TypeError: %s() takes its "
			    "arguments written out, not **unpacked: e.g. %s",
			    e->name, e->example);
	if (n > 1 && n > cmd_positional(e))
		return arena_printf(a, "TypeError: %s() %s, e.g. %s", e->name,
		    takes(a, e), e->example);
	return NULL;
}

bool
cmd_make_args(struct rt *rt, const struct cmd_entry *e, const value *pos,
    size_t npos, const char *const *kwnames, const value *kwvals, size_t nkw,
    value *out)
{
	size_t i, k;

	if (npos == 1 && nkw == 0 && pos[0].type == VT_DICT) {
		*out = pos[0];
		return true;
	}
	if (npos > cmd_positional(e))
		return rt_raise(rt, PYEXC_TypeError,
		    "%s() %s, e.g. %s", e->name,
		    takes(rt->arena, e), e->example);
	*out = value_dict(rt->arena);
	for (i = 0, k = 0; i < npos; i++, k++) {
		if (strcmp(e->keys[k], "idempotency_key") == 0)
			k++;
		if (!value_dict_set(rt, *out, value_cstr(rt->arena,
		    e->keys[k]), pos[i]))
			return false;
	}
	for (i = 0; i < nkw; i++)
		if (!value_dict_set(rt, *out, value_cstr(rt->arena,
		    kwnames[i]), kwvals[i]))
			return false;
	return true;
}

bool
cmd_eval_args(struct eval *ev, const struct cmd_entry *e,
    const struct node *call, value *out)
{
	size_t npos = call->u.call.args.len, nkw = call->u.call.keywords.len;
	value *pos = arena_array(ev->rt.arena, npos + 1, sizeof *pos);
	value *kwv = arena_array(ev->rt.arena, nkw + 1, sizeof *kwv);
	const char **kwn = arena_array(ev->rt.arena, nkw + 1, sizeof *kwn);
	size_t i;

	for (i = 0; i < npos; i++)
		if (!eval_expr(ev, call->u.call.args.items[i], &pos[i]))
			return false;
	for (i = 0; i < nkw; i++) {
		const struct node *kw = call->u.call.keywords.items[i];
		kwn[i] = kw->u.keyword.arg;
		if (!eval_expr(ev, kw->u.keyword.value, &kwv[i]))
			return false;
	}
	return cmd_make_args(&ev->rt, e, pos, npos, kwn, kwv, nkw, out);
}

bool
cmd_check_args(struct rt *rt, const struct cmd_entry *e, value args)
{
	const char *const *req;
	size_t i;

	if (args.type != VT_DICT)
		return rt_raise(rt, PYEXC_TypeError, "%s() %s, not %s, e.g. %s",
		    e->name, takes(rt->arena, e), value_type_name(args),
		    e->example);
	for (i = 0; i < args.as.dict->used; i++) {
		const struct ventry *en = &args.as.dict->entries[i];
		if (!en->live)
			continue;
		if (en->key.type != VT_STR)
			return rt_raise(rt, PYEXC_TypeError,
			    "%s() argument keys must be str, not %s, e.g. %s",
			    e->name,
			    value_type_name(en->key), e->example);
		if (!strlist_has(e->keys, en->key.as.s->data))
			return rt_raise(rt, PYEXC_TypeError, "%s() got an "
			    "unexpected key '%s', e.g. %s", e->name,
			    en->key.as.s->data, e->example);
		if (en->val.type != VT_STR)
			return rt_raise(rt, PYEXC_TypeError,
			    "%s(): '%s' must be a str, not %s, e.g. %s",
			    e->name,
			    en->key.as.s->data, value_type_name(en->val),
			    e->example);
	}
	for (req = e->required; req != NULL && *req != NULL; req++) {
		bool found = false;
		for (i = 0; i < args.as.dict->used && !found; i++) {
			const struct ventry *en = &args.as.dict->entries[i];
			found = en->live &&
			    strcmp(en->key.as.s->data, *req) == 0;
		}
		if (!found)
			return rt_raise(rt, PYEXC_TypeError,
			    "%s() missing required key '%s', e.g. %s",
			    e->name, *req, e->example);
	}
	return true;
}

const char *
cmd_surface_check(struct arena *a, const char *path)
{
	const char *p;
	size_t n;

	if (path[0] == '\0')
		return "empty path";
	if (strlen(path) > 255)
		return "path longer than 255 bytes";
	for (p = path; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return "path contains a control character";
	if (path[0] == '/' || path[0] == '~')
		return arena_printf(a, "path '%s' is absolute: outside the "
		    "workspace", path);
	for (p = path; *p != '\0'; p += n + (p[n] == '/')) {
		n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return arena_printf(a, "path '%s' leaves the workspace",
			    path);
		if (p[n] == '\0')
			break;
	}
	return NULL;
}

const char *
cmd_url_host(struct arena *a, const char *url)
{
	const char *p = strstr(url, "://"), *end, *at, *h;
	size_t n;

	if (p == NULL)
		return NULL;
	p += 3;
	end = p + strcspn(p, "/?#");		/* the authority */
	for (at = p, h = p; at < end; at++)	/* drop user:password@ */
		if (*at == '@')
			h = at + 1;
	if (*h == '[') {			/* [v6 literal] */
		const char *close = memchr(h, ']', (size_t)(end - h));
		if (close == NULL)
			return NULL;
		return close == h + 1 ? NULL :
		    arena_strndup(a, h + 1, (size_t)(close - h - 1));
	}
	n = strcspn(h, ":/?#");			/* drop :port */
	if (h + n > end)
		n = (size_t)(end - h);
	if (n == 0)
		return NULL;
	return arena_strndup(a, h, n);
}
