/*
 * serve.c -- the JSON Lines loop: a request line in, a reply line out.
 *
 * Each line is read with a byte cap (a longer line is skipped to its end,
 * never held whole: base/linesplit.h), parsed by jansson, checked key by
 * key, and run on the one session the loop was given.  Whatever is wrong
 * with a request becomes an error reply and the loop goes on; only EOF or
 * a failed read or write ends it.  Replies are built as jansson values
 * (records through record_to_json()) and written one per line, flushed,
 * so a framework on the other end of a pipe gets each answer as soon as
 * it exists.
 */
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "agent.h"
#include "base/arena.h"
#include "base/linesplit.h"
#include "record/record.h"
#include "serve.h"
#include "session/session.h"
#include "base/xalloc.h"

/* A reply to a request that failed: {"id": id, "error": why}.  id is
 * borrowed (NULL: null).  A malformed request is answered with a null id,
 * as the contract says, even when an id could be read from it; a valid
 * request whose agent failed keeps its id. */
static json_t *error_reply(json_t *id, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static json_t *
error_reply(json_t *id, const char *fmt, ...)
{
	va_list ap;
	char *why;
	json_t *r = json_object();
	va_start(ap, fmt);
	why = xvasprintf(fmt, ap);
	va_end(ap);
	json_object_set(r, "id", id ? id : json_null());
	/* why may quote a hostile request: never let it break the reply. */
	if (json_object_set_new(r, "error", json_string(why)) != 0)
		json_object_set_new(r, "error",
		    json_string("malformed request"));
	free(why);
	return r;
}

static bool
is_valid_id(const json_t *id)
{
	return json_is_string(id) || json_is_number(id) || json_is_null(id);
}

/* "paths": a non-empty list of path names, as a mask.  NULL when it is
 * absent or fine, else why not (heap). */
static char *
read_paths(const json_t *paths, unsigned *mask)
{
	static const char expected[] = "(expected unsafe, sandbox, jail)";
	size_t i;
	json_t *p;

	*mask = 0;
	if (paths == NULL || json_is_null(paths))
		return NULL;
	if (!json_is_array(paths))
		return xasprintf("\"paths\" must be a list of path names %s",
		    expected);
	if (json_array_size(paths) == 0)
		return xstrdup("\"paths\" is empty (leave it out for the "
		    "session's paths)");
	json_array_foreach(paths, i, p) {
		enum path_id id;
		if (!json_is_string(p))
			return xasprintf("\"paths\" must be a list of path "
			    "names %s", expected);
		if (!record_path_parse(json_string_value(p),
		    json_string_length(p), &id))
			return xasprintf("unknown path '%.32s' in \"paths\" "
			    "%s", json_string_value(p), expected);
		*mask |= PATH_BIT(id);
	}
	return NULL;
}

/* Append the records to the array. */
static void
add_records(json_t *array, const struct record *r, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		json_array_append_new(array, record_to_json(&r[i]));
}

/* An agent task: ask, then run each proposed line. */
static json_t *
run_task(struct session *s, const struct serve_opts *o, json_t *id,
    const char *task, size_t tasklen, unsigned mask)
{
	struct agent_proposal prop;
	char *t = xstrndup(task, tasklen), *err;
	json_t *reply, *lines, *records;
	size_t i;

	if (!agent_propose(o->agent, s, t, &prop, &err)) {
		reply = error_reply(id, "agent: %s", err);
		free(err);
		free(t);
		return reply;
	}
	free(t);
	lines = json_array();
	records = json_array();
	for (i = 0; i < prop.nlines; i++) {
		struct arena *a = arena_new();
		struct record *r;
		size_t n = agent_run_line(s, prop.lines[i], mask, a, &r);
		json_array_append_new(lines, json_string(prop.lines[i]));
		add_records(records, r, n);
		arena_free(a);
	}
	reply = json_pack("{s:O,s:s,s:o,s:o}", "id", id ? id : json_null(),
	    "task", prop.task, "proposal", lines, "records", records);
	agent_proposal_free(&prop);
	return reply;
}

/* One request line to one reply (new reference). */
static json_t *
handle(struct session *s, const struct serve_opts *o, const char *line,
    size_t len)
{
	json_error_t je;
	json_t *req, *id, *input, *val, *reply;
	const char *key, *task;
	char *why;
	size_t tasklen;
	unsigned mask = 0;

	req = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL |
	    JSON_DECODE_ANY,
	    &je);
	if (req == NULL)
		return error_reply(NULL, "not JSON: %s (column %d)", je.text,
		    je.column);
	if (!json_is_object(req)) {
		json_decref(req);
		return error_reply(NULL, "a request is a JSON object: "
		    "{\"id\": ..., \"input\": \"...\", \"paths\": [...]}");
	}
	id = json_object_get(req, "id");
	if (id != NULL && !is_valid_id(id)) {
		json_decref(req);
		return error_reply(NULL, "\"id\" must be a string, a number "
		    "or null");
	}
	json_object_foreach(req, key, val) {
		if (strcmp(key, "id") != 0 && strcmp(key, "input") != 0 &&
		    strcmp(key, "paths") != 0) {
			reply = error_reply(NULL, "unknown key '%.64s' "
			    "(expected id, input, paths)", key);
			json_decref(req);
			return reply;
		}
	}
	input = json_object_get(req, "input");
	why = input == NULL ? xstrdup("missing \"input\" (a string)") :
	    !json_is_string(input) ? xstrdup("\"input\" must be a string") :
	    read_paths(json_object_get(req, "paths"), &mask);
	if (why != NULL) {
		reply = error_reply(NULL, "%s", why);
		free(why);
		json_decref(req);
		return reply;
	}
	if (o->paths != 0 && (mask & ~o->paths) != 0) {
		/* a well-formed request for a path the server does not run:
		 * refused, its id kept */
		char names[256], asked[256];

		reply = error_reply(id, "\"paths\" names %s, which this "
		    "server does not run (--path allows %s)",
		    path_list(asked, sizeof asked, mask & ~o->paths, ", "),
		    path_list(names, sizeof names, o->paths, ", "));
		json_decref(req);
		return reply;
	}
	if (o->agent != NULL && agent_is_task(json_string_value(input),
	    json_string_length(input), &task, &tasklen))
		reply = run_task(s, o, id, task, tasklen, mask);
	else {
		struct arena *a = arena_new();
		struct record *r;
		size_t n = session_run(s, json_string_value(input),
		    json_string_length(input), NULL, mask, a, &r);
		json_t *records = json_array();
		add_records(records, r, n);
		reply = json_pack("{s:O,s:o}", "id", id ? id : json_null(),
		    "records", records);
		arena_free(a);
	}
	json_decref(req);
	return reply;
}

bool
serve_is_blank(const char *s, size_t len)
{
	size_t i;
	for (i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

/* Write reply as one line of compact JSON (streamed, never held whole:
 * see record_json_write), flush, and drop the reference.  0, or -1 when
 * out failed. */
static int
write_reply(FILE *out, json_t *reply)
{
	int rc = json_dumpf(reply, out, JSON_COMPACT | JSON_PRESERVE_ORDER |
	    JSON_ENSURE_ASCII);

	json_decref(reply);
	if (rc == -1 || putc('\n', out) == EOF || fflush(out) == EOF)
		return -1;
	return 0;
}

/* What serve_lines hands each line to. */
struct lines {
	FILE		*out;
	serve_answer_fn	*answer;
	void		*arg;
};

/* A line: answered unless blank; -1 when the reply could not be
 * written. */
static int
serve_line(void *arg, const char *line, size_t len, bool too_long)
{
	struct lines *ln = arg;
	json_t *reply;

	if (!too_long && serve_is_blank(line, len))
		return 0;
	reply = ln->answer(ln->arg, line, len, too_long);
	if (reply == NULL)
		return 0;
	return write_reply(ln->out, reply);
}

int
serve_lines(FILE *in, FILE *out, size_t max, serve_answer_fn *answer,
    void *arg)
{
	struct lines ln = { out, answer, arg };
	struct linesplit ls;
	char buf[4096];
	int c = 0, rc = 0;

	linesplit_init(&ls, max);
	/* (bytes up to a newline at most: a request is answered as soon as
	 * its line is whole, never after the next one's bytes arrive) */
	while (rc == 0 && c != EOF) {
		size_t k = 0;

		while (k < sizeof buf && (c = getc(in)) != EOF) {
			buf[k++] = (char)c;
			if (c == '\n')
				break;
		}
		rc = linesplit_feed(&ls, buf, k, serve_line, &ln);
	}
	/* a failed read ends the loop, its partial line unanswered */
	if (rc == 0 && ferror(in))
		rc = -1;
	if (rc == 0)
		rc = linesplit_end(&ls, serve_line, &ln);
	linesplit_free(&ls);
	return rc == 0 ? 0 : 1;
}

/* What serve_loop answers with: its session, options and cap. */
struct server {
	struct session		*s;
	const struct serve_opts	*o;
	size_t			 max;
};

static json_t *
answer(void *arg, const char *line, size_t len, bool too_long)
{
	struct server *sv = arg;

	if (too_long)
		return error_reply(NULL, "request line longer than %zu bytes",
		    sv->max);
	return handle(sv->s, sv->o, line, len);
}

int
serve_loop(struct session *s, const struct serve_opts *o, FILE *in,
    FILE *out)
{
	struct server sv = { s, o, o->max_line ? o->max_line :
	    SERVE_MAX_LINE };

	/* a world that takes seconds to start (a microVM) boots now, as
	 * the UI's does, not at the first request */
	session_prestart(s);
	return serve_lines(in, out, sv.max, answer, &sv);
}
