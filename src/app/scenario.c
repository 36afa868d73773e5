/*
 * scenario.c -- reading and running scenario files.
 *
 * Parsing is line by line and strict: an unknown directive or a path name
 * that does not exist is an error naming the file and line, so a typo in a
 * workshop script shows up before the class sees it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "fs/mockfs.h"
#include "lang/lex.h"
#include "sandbox/policy.h"
#include "record/record.h"
#include "base/sbuf.h"
#include "scenario.h"
#include "session/session.h"
#include "base/textesc.h"
#include "base/xalloc.h"

#define MAX_SCENARIO_BYTES (16u << 20)

static bool
parse_paths(const char *s, size_t len, unsigned *out)
{
	size_t i = 0;
	*out = 0;
	if (len == 3 && memcmp(s, "all", 3) == 0)
		return true;
	while (i < len) {
		size_t n = 0;
		enum path_id p;
		while (i + n < len && s[i + n] != ',')
			n++;
		if (!record_path_parse(s + i, n, &p))
			return false;
		*out |= PATH_BIT(p);
		i += n + 1;
	}
	return *out != 0;
}

/* Unescape \n \t \\ in place; returns the new length. */
static size_t
unescape(char *s)
{
	char *r = s, *w = s;
	while (*r != '\0') {
		if (r[0] == '\\' && r[1] != '\0') {
			switch (r[1]) {
			case 'n': *w++ = '\n'; r += 2; continue;
			case 't': *w++ = '\t'; r += 2; continue;
			case '\\': *w++ = '\\'; r += 2; continue;
			default: break;
			}
		}
		*w++ = *r++;
	}
	*w = '\0';
	return (size_t)(w - s);
}

static char *
trimmed(const char *s, size_t len)
{
	while (len > 0 && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' ||
	    s[len - 1] == '\r'))
		len--;
	return xstrndup(s, len);
}

static bool
fail(char **err, const char *name, unsigned lineno, const char *what)
{
	*err = xasprintf("%s:%u: %s", name, lineno, what);
	return false;
}


/*
 * The directives, one row each: the word that starts the line (not
 * followed by ':', which makes the line a step on paths) and what reads
 * the rest of it into a step.  Each returns NULL, or what is wrong.
 */

/* file NAME: TEXT */
static const char *
parse_file(char *rest, struct scn_step *st)
{
	char *colon = strstr(rest, ": ");

	if (colon == NULL && (colon = strchr(rest, ':')) == NULL)
		return "file wants 'file NAME: TEXT'";
	st->kind = SCN_FILE;
	st->name = trimmed(rest, (size_t)(colon - rest));
	st->arg = xstrdup(colon[1] == ' ' ? colon + 2 : colon + 1);
	st->arglen = unescape(st->arg);
	if (st->name[0] == '\0')
		return "file wants a name";
	/* a name every path can hold: the jail's workspace is flat */
	if (strchr(st->name, '/') != NULL || strcmp(st->name, ".") == 0 ||
	    strcmp(st->name, "..") == 0 || strlen(st->name) > 255)
		return "file wants a plain name: no '/', not '.' or '..', at "
		    "most 255 bytes";
	return NULL;
}

/* let NAME = EXPR */
static const char *
parse_let(char *rest, struct scn_step *st)
{
	char *eq = strchr(rest, '=');

	if (eq == NULL)
		return "let wants 'let NAME = EXPR'";
	st->kind = SCN_LET;
	st->name = trimmed(rest, (size_t)(eq - rest));
	st->arg = trimmed(eq + 1, strlen(eq + 1));
	st->arglen = strlen(st->arg);
	if (!lex_is_name(st->name))
		return "let wants a Python name: 'let NAME = EXPR'";
	return NULL;
}

/* reset [essay] */
static const char *
parse_reset(char *rest, struct scn_step *st)
{
	st->kind = SCN_RESET;
	st->arg = trimmed(rest, strlen(rest));
	if (st->arg[0] != '\0' && strcmp(st->arg, "essay") != 0)
		return "reset takes nothing or 'essay'";
	return NULL;
}

/* policies PRESET... */
static const char *
parse_policies(char *rest, struct scn_step *st)
{
	char *copy = trimmed(rest, strlen(rest)), *w, *save = NULL;
	char *check = xstrdup(copy);
	const char *why = NULL;

	st->kind = SCN_POLICIES;
	st->arg = copy;
	for (w = strtok_r(check, " \t", &save); w != NULL && why == NULL;
	    w = strtok_r(NULL, " \t", &save))
		if (policy_preset(w) == NULL)
			why = "policies takes preset names";
	free(check);
	return why;
}

/* wording essay|full */
static const char *
parse_wording(char *rest, struct scn_step *st)
{
	st->kind = SCN_WORDING;
	st->arg = trimmed(rest, strlen(rest));
	if (strcmp(st->arg, "essay") != 0 && strcmp(st->arg, "full") != 0)
		return "wording takes 'essay' or 'full'";
	return NULL;
}

/* policy PRESET */
static const char *
parse_policy(char *rest, struct scn_step *st)
{
	st->kind = SCN_POLICY;
	st->arg = trimmed(rest, strlen(rest));
	if (policy_preset(st->arg) == NULL)
		return "unknown policy";
	return NULL;
}

/* budget N */
static const char *
parse_budget(char *rest, struct scn_step *st)
{
	char *end;
	long n;

	st->kind = SCN_BUDGET;
	errno = 0;
	n = strtol(rest, &end, 10);
	if (errno != 0 || end == rest || n < 0 || n > 1000000)
		return "budget wants a number from 0 to 1000000";
	st->arg = trimmed(rest, strlen(rest));
	return NULL;
}

/* echo TEXT */
static const char *
parse_echo(char *rest, struct scn_step *st)
{
	st->kind = SCN_ECHO;
	st->arg = xstrdup(rest);
	st->arglen = strlen(st->arg);
	return NULL;
}

/* ls PATH [LABEL] [| NOTE] */
static const char *
parse_ls(char *rest, struct scn_step *st)
{
	size_t plen = strcspn(rest, " \t");
	char *bar;

	st->kind = SCN_LS;
	if (plen == 0 || !parse_paths(rest, plen, &st->paths) ||
	    (st->paths & (st->paths - 1)) != 0)
		return "ls wants one path: unsafe, sandbox or jail";
	rest += plen;
	bar = strstr(rest, " | ");
	if (bar != NULL) {
		st->note = trimmed(bar + 3, strlen(bar + 3));
		*bar = '\0';
	}
	st->label = trimmed(rest, strlen(rest));
	return NULL;
}

static const struct {
	const char	*word;
	const char	*(*parse)(char *rest, struct scn_step *st);
} directives[] = {
	{ "file", parse_file },
	{ "let", parse_let },
	{ "reset", parse_reset },
	{ "policies", parse_policies },
	{ "wording", parse_wording },
	{ "policy", parse_policy },
	{ "budget", parse_budget },
	{ "echo", parse_echo },
	{ "ls", parse_ls },
};

/* PATHS LABEL: INPUT, or PATHS: INPUT; a path may hold a colon itself
 * (jail:gvisor), so the longest word that names paths wins.  wlen: the
 * first word's length. */

/* The directives and the paths, the paths from their table (paths.h). */
static const char *
unknown_directive(void)
{
	static char msg[320];
	char paths[160];

	snprintf(msg, sizeof msg, "unknown directive or path (expected "
	    "title, question, file, let, reset, policy, wording, budget, "
	    "echo, ls, or a path: %s, all)", path_list(paths, sizeof paths,
	    (1u << PATH__COUNT) - 1, ", "));
	return msg;
}

static const char *
parse_run(char *line, size_t wlen, struct scn_step *st)
{
	char *rest = line + wlen + strspn(line + wlen, " \t"), *colon;
	size_t ext = strcspn(line, " \t");
	unsigned paths;

	st->kind = SCN_RUN;
	if (ext > wlen && line[ext - 1] == ':')
		ext--;
	if (ext > wlen && parse_paths(line, ext, &paths)) {
		wlen = ext;
		rest = line + wlen;
		rest += strspn(rest, " \t");
	}
	if (!parse_paths(line, wlen, &st->paths))
		return unknown_directive();
	if (line[wlen] == ':') {
		st->arg = trimmed(line + wlen + 1, strlen(line + wlen + 1));
	} else {
		colon = strstr(rest, ": ");
		if (colon == NULL)
			return "a step wants 'PATH LABEL: INPUT'";
		st->label = trimmed(rest, (size_t)(colon - rest));
		st->arg = trimmed(colon + 2, strlen(colon + 2));
	}
	st->arglen = strlen(st->arg);
	if (st->arglen == 0)
		return "a step wants an input";
	return NULL;
}

static bool
parse_line(const char *name, unsigned lineno, char *line,
    struct scn_step *st, char **err)
{
	size_t wlen = strcspn(line, " \t:"), i;
	char *rest = line + wlen;
	const char *why = NULL;
	bool found = false;

	memset(st, 0, sizeof *st);
	st->lineno = lineno;
	rest += strspn(rest, " \t");
	for (i = 0; i < sizeof directives / sizeof directives[0]; i++)
		if (wlen == strlen(directives[i].word) &&
		    memcmp(line, directives[i].word, wlen) == 0 &&
		    line[wlen] != ':') {
			why = directives[i].parse(rest, st);
			found = true;
			break;
		}
	if (!found)
		why = parse_run(line, wlen, st);
	return why == NULL ? true : fail(err, name, lineno, why);
}

/*
 * "title TEXT" and "question TEXT": the scenario's opening (the
 * presenter's step 0), not steps.  True when line was one; a second
 * title replaces the first, question lines are joined by spaces.
 */
static bool
opening(struct scenario *sc, const char *line)
{
	size_t wlen = strcspn(line, " \t:");
	const char *rest = line + wlen;
	char *text, *joined;

	if (line[wlen] != ' ' && line[wlen] != '\t')
		return false;
	rest += strspn(rest, " \t");
	if (wlen == 5 && memcmp(line, "title", 5) == 0) {
		free(sc->title);
		sc->title = trimmed(rest, strlen(rest));
		return true;
	}
	if (wlen == 8 && memcmp(line, "question", 8) == 0) {
		text = trimmed(rest, strlen(rest));
		if (sc->question == NULL) {
			sc->question = text;
			return true;
		}
		joined = xasprintf("%s %s", sc->question, text);
		free(sc->question);
		free(text);
		sc->question = joined;
		return true;
	}
	return false;
}

bool
scenario_parse(const char *name, const char *text, size_t len,
    struct scenario *out, char **err)
{
	size_t pos = 0, cap = 0;
	unsigned lineno = 0;
	char *policies = NULL;
	struct sbuf caption = SBUF_INIT;	/* the comment block above */
	bool essay_wording = false;

	memset(out, 0, sizeof *out);
	out->name = xstrdup(name);
	*err = NULL;
	if (memchr(text, '\0', len) != NULL) {
		*err = xasprintf("%s: contains a NUL byte", name);
		scenario_free(out);
		return false;
	}
	while (pos < len) {
		size_t n = 0;
		char *line;
		const char *p;
		while (pos + n < len && text[pos + n] != '\n')
			n++;
		lineno++;
		line = xstrndup(text + pos, n);
		pos += n + 1;
		if (n > 0 && line[n - 1] == '\r')
			line[--n] = '\0';
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		if (*p == '#') {
			/* "#   text": the text, joined to the lines above */
			const char *c = p + 1 + strspn(p + 1, " \t");
			if (*c != '\0' && caption.len < SCN_MAX_CAPTION) {
				if (caption.len > 0)
					sbuf_addc(&caption, ' ');
				sbuf_add(&caption, c, strlen(c) <
				    SCN_MAX_CAPTION - caption.len ? strlen(c) :
				    SCN_MAX_CAPTION - caption.len);
			}
			free(line);
			continue;
		}
		if (*p == '\0') {	/* a blank line ends a caption */
			sbuf_truncate(&caption, 0);
			free(line);
			continue;
		}
		if (out->n == cap) {
			cap = cap ? cap * 2 : 16;
			out->steps = xreallocarray(out->steps, cap,
			    sizeof *out->steps);
		}
		if (opening(out, p)) {	/* title, question: no step */
			sbuf_truncate(&caption, 0);
			free(line);
			continue;
		}
		if (!parse_line(name, lineno, (char *)p, &out->steps[out->n],
		    err)) {
			out->n++;
			free(line);
			free(policies);
			sbuf_free(&caption);
			scenario_free(out);
			return false;
		}
		if (caption.len > 0) {
			out->steps[out->n].caption =
			    xstrdup(sbuf_cstr(&caption));
			sbuf_truncate(&caption, 0);
		}
		if (out->steps[out->n].kind == SCN_POLICIES) {
			free(policies);
			policies = out->steps[out->n].arg[0] ?
			    xstrdup(out->steps[out->n].arg) : NULL;
		} else if (out->steps[out->n].kind == SCN_WORDING)
			essay_wording = strcmp(out->steps[out->n].arg,
			    "essay") == 0;
		else if (out->steps[out->n].kind == SCN_RUN) {
			if (policies)
				out->steps[out->n].policies = xstrdup(policies);
			out->steps[out->n].essay_wording = essay_wording;
		}
		out->n++;
		free(line);
	}
	free(policies);
	sbuf_free(&caption);
	return true;
}

/* Where `make install` and the .deb put the scenarios (Makefile.am). */
#ifndef SCENARIO_DIR
#define SCENARIO_DIR "/usr/share/sandboxrepl/scenarios"
#endif

/*
 * Open path; a bare name (no '/') that is no file here is looked for
 * among the installed scenarios, as SCENARIO_DIR/NAME.scn, then
 * SCENARIO_DIR/NAME, so that ":play essay" works from any directory.
 * NULL with errno of path as given.
 */
static FILE *
open_scenario(const char *path)
{
	static const char *const suffixes[] = { ".scn", "" };
	FILE *f = fopen(path, "rb");
	int saved = errno;
	char where[sizeof SCENARIO_DIR + 256];
	size_t i;

	if (f != NULL || saved != ENOENT || strchr(path, '/') != NULL ||
	    strlen(path) > 200 || path[0] == '.' || path[0] == '\0')
		return f;
	for (i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
		snprintf(where, sizeof where, "%s/%s%s", SCENARIO_DIR, path,
		    suffixes[i]);
		if ((f = fopen(where, "rb")) != NULL)
			return f;
	}
	errno = saved;
	return NULL;
}

bool
scenario_load(const char *path, struct scenario *out, char **err)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : open_scenario(path);
	struct sbuf b = SBUF_INIT;
	char buf[8192];
	size_t n;
	bool ok;

	if (f == NULL) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		return false;
	}
	while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
		sbuf_add(&b, buf, n);
		if (b.len > MAX_SCENARIO_BYTES) {
			*err = xasprintf("%s: larger than %u bytes", path,
			    MAX_SCENARIO_BYTES);
			if (f != stdin)
				fclose(f);
			sbuf_free(&b);
			return false;
		}
	}
	if (ferror(f)) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		if (f != stdin)
			fclose(f);
		sbuf_free(&b);
		return false;
	}
	if (f != stdin)
		fclose(f);
	ok = scenario_parse(path, sbuf_cstr(&b), b.len, out, err);
	sbuf_free(&b);
	return ok;
}

void
scenario_free(struct scenario *sc)
{
	size_t i;
	for (i = 0; i < sc->n; i++) {
		free(sc->steps[i].label);
		free(sc->steps[i].arg);
		free(sc->steps[i].name);
		free(sc->steps[i].note);
		free(sc->steps[i].policies);
		free(sc->steps[i].caption);
	}
	free(sc->steps);
	free(sc->name);
	free(sc->title);
	free(sc->question);
	memset(sc, 0, sizeof *sc);
}

void
scenario_exec(struct session *s, const struct scn_step *st, struct arena *a,
    struct scn_output *out)
{
	memset(out, 0, sizeof *out);
	switch (st->kind) {
	case SCN_FILE:
		session_seed_file(s, st->name, st->arg, st->arglen);
		break;
	case SCN_LET: {
		char *err;
		if (!session_seed_name(s, st->name, st->arg, &err)) {
			out->failed = true;
			out->text = arena_printf(a, "line %u: let %s: %s",
			    st->lineno, st->name, err);
			free(err);
		}
		break;
	}
	case SCN_RESET:
		session_reset(s, st->arg != NULL && st->arg[0] != '\0');
		break;
	case SCN_POLICIES:
	case SCN_WORDING:
		break;		/* applied to the steps when parsing */
	case SCN_POLICY:
		session_set_policy(s, policy_preset(st->arg));
		break;
	case SCN_BUDGET:
		session_set_budget(s, (unsigned)strtoul(st->arg, NULL, 10));
		break;
	case SCN_ECHO:
		out->text = textesc_text(a, arena_strdup(a, st->arg));
		break;
	case SCN_LS: {
		enum path_id p = (enum path_id)0;	/* its one path */
		const struct mfs *fs;
		struct sbuf b = SBUF_INIT;
		size_t i;
		while (!(st->paths & PATH_BIT(p)))
			p++;
		fs = session_fs(s, p);
		out->nfs = mfs_count(fs);
		out->fs = arena_array(a, out->nfs + 1, sizeof *out->fs);
		sbuf_addf(&b, "%s: [", st->label);
		for (i = 0; i < out->nfs; i++) {
			value v = value_cstr(a, mfs_name(fs, i));
			out->fs[i] = v.as.s->data;
			if (i)
				sbuf_adds(&b, ", ");
			value_str_repr(v.as.s, false, &b);
		}
		sbuf_addc(&b, ']');
		if (st->note != NULL)
			sbuf_addf(&b, "  %s", st->note);
		out->text = textesc_text(a, arena_strdup(a, sbuf_cstr(&b)));
		sbuf_free(&b);
		break;
	}
	case SCN_RUN: {
		unsigned paths = st->paths ? st->paths : session_paths(s);
		/* the path a step's "policies" run on, once each */
		unsigned pol = PATH_BIT(path_policy());
		size_t i;
		if (st->policies == NULL || !(paths & pol)) {
			out->nrecords = session_run(s, st->arg, st->arglen,
			    st->label, st->paths, a, &out->records);
			/* one label over several paths: say which is which
			 * (the session's label: gVisor's jail says so) */
			if (st->label != NULL && out->nrecords > 1)
				for (i = 0; i < out->nrecords; i++) {
					struct record *r = &out->records[i];
					r->label = arena_printf(a, "%s %s",
					    session_path_adjective(r->path),
					    r->label);
					record_set_line(r, a);
				}
		} else {
			/* the other paths once, then the sandbox per policy,
			 * each from the same files and names: a row's files
			 * are its own policy's doing */
			const struct policy *saved = session_policy(s);
			struct session_snap *start = NULL;
			char *list = arena_strdup(a, st->policies), *w, *save;
			struct record *r;
			size_t n, cap = 16;
			out->records = arena_array(a, cap, sizeof *out->records);
			if (paths & ~pol) {
				n = session_run(s, st->arg, st->arglen,
				    st->label, paths & ~pol, a, &r);
				memcpy(out->records, r, n * sizeof *r);
				out->nrecords = n;
				/* (two of them: which is which, as above) */
				for (i = 0; st->label != NULL && n > 1 &&
				    i < n; i++) {
					struct record *c = &out->records[i];
					c->label = arena_printf(a, "%s %s",
					    session_path_adjective(c->path),
					    c->label);
					record_set_line(c, a);
				}
			}
			for (w = strtok_r(list, " \t", &save); w != NULL &&
			    out->nrecords < cap; w = strtok_r(NULL, " \t",
			    &save)) {
				const struct policy *p = policy_preset(w);
				const char *label = arena_printf(a, "%s [%s]",
				    st->label ? st->label : "sandboxed code", w);
				if (start == NULL)
					start = session_snap_take(s);
				else
					session_snap_restore_path(s, start,
					    path_policy());
				session_set_policy(s, p);
				n = session_run(s, st->arg, st->arglen, label,
				    pol, a, &r);
				memcpy(out->records + out->nrecords, r,
				    n * sizeof *r);
				out->nrecords += n;
			}
			session_set_policy(s, saved);
			if (start != NULL)
				session_snap_free(s, start);
		}
		for (i = 0; i < out->nrecords; i++) {
			struct record *r = &out->records[i];
			r->source = "scenario";
			/* the essay's words on the line; reason keeps the
			 * full sentence */
			if (st->essay_wording && r->essay_outcome != NULL) {
				r->outcome = r->essay_outcome;
				record_set_line(r, a);
			}
		}
		break;
	}
	case SCN__COUNT:
		break;
	}
}
