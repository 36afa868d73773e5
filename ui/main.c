/*
 * main.c -- the command line of sandboxrepl.
 *
 * Reads options (GNU style), builds a session, and either runs inputs and
 * scenarios without a UI (batch, -e) or starts the terminal UI.  Every
 * input ends in a record; records are printed as the essay's trace lines or
 * as JSON lines.  Exit status: 0 when every input was processed (whatever
 * the verdicts), 1 on a runtime error (unreadable file, bad scenario, write
 * error), 2 on a usage error.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "parse.h"
#include "policy.h"
#include "record.h"
#include "sbuf.h"
#include "scenario.h"
#include "session.h"
#include "ui.h"
#include "xalloc.h"

/*
 * How far batch mode follows continuation lines.  Each new line re-parses
 * the whole input to ask whether it is still incomplete, so the work grows
 * with the square of the input: an unterminated triple-quoted string
 * followed by 100,000 lines took minutes.  Past either cap the input runs
 * as it is (and is reported incomplete).
 */
#define MAX_INPUT_BYTES (1u << 20)
#define MAX_INPUT_LINES 1000

struct options {
	bool		 batch;
	bool		 json;
	bool		 flush;		/* each record out at once (--state) */
	bool		 no_history;
	unsigned	 paths;
	const struct policy *policy;
	unsigned	 budget;
	char		**exprs;
	size_t		 nexprs;
};

static void
usage_hint(void)
{
	fprintf(stderr, "Try 'sandboxrepl --help' for more information.\n");
}

static int usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static int
usage_error(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "sandboxrepl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	usage_hint();
	return 2;
}

static const char help_text[] =
"Usage: sandboxrepl [OPTION]...\n"
"       sandboxrepl --batch [OPTION]... [FILE]...\n"
"       sandboxrepl -e INPUT [-e INPUT]... [OPTION]...\n"
"Watch an agent's code tool run with no boundary (unsafe), behind the\n"
"essay's in-process allowlist (sandbox), and inside a Linux kernel jail.\n"
"\n"
"  -b, --batch          run scenario FILEs, or one input per stdin line,\n"
"                       without the UI\n"
"  -e, --eval=INPUT     run INPUT (repeatable) without the UI\n"
"  -p, --path=LIST      paths to run: unsafe,sandbox,jail\n"
"                       (default unsafe,sandbox)\n"
"  -j, --json           print one JSON record per line instead of trace lines\n"
"  -P, --policy=NAME    sandbox policy: essay (default), dunder, blocklist,\n"
"                       or a policy FILE\n"
"  -B, --budget=N       operations the sandbox path may run (default 1000)\n"
"  -F, --jail-filter    on the jail path, apply the sandbox policy first\n"
"  -S, --state=DIR      keep files, names, budgets and ledgers in DIR across\n"
"                       runs (saved atomically after every input)\n"
"      --no-history     do not read or write the UI's input history\n"
"  -h, --help           print this help and exit\n"
"  -V, --version        print the version and exit\n"
"\n"
"Trace lines read 'LABEL: INPUT -> OUTCOME'.  Only the jail path is a\n"
"security boundary: the sandbox path's allowlist is the essay's teaching\n"
"model, and in-process filtering is a speed bump, not a boundary.\n"
"\n"
"Exit status: 0 when every input was processed (whatever the verdicts),\n"
"1 on a runtime error, 2 on a usage error.\n";

static int
parse_path_list(const char *s, unsigned *out)
{
	*out = 0;
	while (*s != '\0') {
		size_t n = strcspn(s, ",");
		enum path_id p;
		if (!record_path_parse(s, n, &p))
			return -1;
		*out |= PATH_BIT(p);
		s += n + (s[n] == ',');
	}
	return *out ? 0 : -1;
}

static bool
print_records(const struct options *o, const struct record *r, size_t n)
{
	struct sbuf b = SBUF_INIT;
	size_t i;
	for (i = 0; i < n; i++) {
		if (o->json)
			record_json(&r[i], &b);
		else
			sbuf_adds(&b, r[i].line);
		sbuf_addc(&b, '\n');
	}
	fwrite(b.data ? b.data : "", 1, b.len, stdout);
	sbuf_free(&b);
	if (o->flush)
		fflush(stdout);
	return !ferror(stdout);
}

static void
print_text(const struct options *o, const char *kind, const char *text)
{
	if (o->json) {
		/* Scenario text lines, as JSON objects of their own. */
		struct sbuf b = SBUF_INIT;
		const unsigned char *p;
		sbuf_addf(&b, "{\"%s\":\"", kind);
		for (p = (const unsigned char *)text; *p; p++) {
			if (*p == '"' || *p == '\\')
				sbuf_addf(&b, "\\%c", *p);
			else if (*p < 0x20)
				sbuf_addf(&b, "\\u%04x", *p);
			else
				sbuf_addc(&b, (char)*p);
		}
		sbuf_adds(&b, "\"}\n");
		fputs(sbuf_cstr(&b), stdout);
		sbuf_free(&b);
	} else
		printf("%s\n", text);
}

static int
run_input(struct session *s, const struct options *o, const char *input,
    size_t len)
{
	struct arena *a = arena_new();
	struct record *r;
	size_t n = session_run(s, input, len, NULL, 0, a, &r);
	bool ok = print_records(o, r, n);
	arena_free(a);
	return ok ? 0 : 1;
}

static int
run_scenario(struct session *s, const struct options *o, const char *path)
{
	struct scenario sc;
	char *err;
	size_t i;
	int status = 0;

	if (!scenario_load(path, &sc, &err)) {
		fprintf(stderr, "sandboxrepl: %s\n", err);
		free(err);
		return 1;
	}
	for (i = 0; i < sc.n; i++) {
		struct arena *a = arena_new();
		struct scn_output out;
		scenario_exec(s, &sc.steps[i], a, &out);
		if (out.failed) {
			fprintf(stderr, "sandboxrepl: %s: %s\n", path, out.text);
			status = 1;
		} else if (out.nrecords > 0)
			print_records(o, out.records, out.nrecords);
		else if (out.text != NULL)
			print_text(o, sc.steps[i].kind == SCN_LS ? "listing" :
			    "echo", out.text);
		arena_free(a);
	}
	scenario_free(&sc);
	return status;
}

/* Is the accumulated input waiting for more lines? */
static bool
is_incomplete(const char *s, size_t len)
{
	struct arena *a = arena_new();
	struct parse_result pr;
	bool inc;
	parse_input(a, s, len, &pr);
	inc = pr.status == PARSE_INCOMPLETE;
	arena_free(a);
	return inc;
}

static int
run_stdin(struct session *s, const struct options *o)
{
	struct sbuf acc = SBUF_INIT;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int status = 0;
	unsigned lines = 0;

	while ((n = getline(&line, &cap, stdin)) >= 0) {
		size_t len = (size_t)n;
		if (len > 0 && line[len - 1] == '\n')
			len--;
		if (len > 0 && line[len - 1] == '\r')
			len--;
		if (acc.len > 0)
			sbuf_addc(&acc, '\n');
		sbuf_add(&acc, line, len);
		if (acc.len == 0)
			continue;
		if (acc.len < MAX_INPUT_BYTES && ++lines < MAX_INPUT_LINES &&
		    is_incomplete(acc.data, acc.len))
			continue;
		lines = 0;
		{
			const char *p = acc.data;
			p += strspn(p, " \t");
			if (*p != '\0' && *p != '#')
				status |= run_input(s, o, acc.data, acc.len);
		}
		sbuf_truncate(&acc, 0);
	}
	if (acc.len > 0)
		status |= run_input(s, o, acc.data, acc.len);
	if (ferror(stdin)) {
		fprintf(stderr, "sandboxrepl: stdin: %s\n", strerror(errno));
		status = 1;
	}
	free(line);
	sbuf_free(&acc);
	return status;
}

static int
close_stdout(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
		fprintf(stderr, "sandboxrepl: write error: %s\n",
		    strerror(errno));
		return 1;
	}
	return status;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "batch", no_argument, NULL, 'b' },
		{ "eval", required_argument, NULL, 'e' },
		{ "path", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "policy", required_argument, NULL, 'P' },
		{ "budget", required_argument, NULL, 'B' },
		{ "jail-filter", no_argument, NULL, 'F' },
		{ "state", required_argument, NULL, 'S' },
		{ "no-history", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { 0 };
	struct session_opts so = { 0 };
	struct session *s;
	struct policy *owned_policy = NULL;
	const char *state_dir = NULL;
	int c, status = 0, i;

	while ((c = getopt_long(argc, argv, "be:p:jP:B:FS:hV", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'b':
			o.batch = true;
			break;
		case 'e':
			o.exprs = xreallocarray(o.exprs, o.nexprs + 1,
			    sizeof *o.exprs);
			o.exprs[o.nexprs++] = optarg;
			break;
		case 'p':
			if (parse_path_list(optarg, &o.paths) != 0)
				return usage_error("invalid path list '%s' "
				    "(expected unsafe,sandbox,jail)", optarg);
			break;
		case 'j':
			o.json = true;
			break;
		case 'P': {
			char *err;
			o.policy = policy_resolve(optarg, &err);
			if (o.policy == NULL) {
				fprintf(stderr, "sandboxrepl: %s\n", err);
				free(err);
				usage_hint();
				return 2;
			}
			if (policy_preset(o.policy->name) != o.policy)
				owned_policy = (struct policy *)o.policy;
			break;
		}
		case 'B': {
			char *end;
			long n;
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || end == optarg ||
			    n < 0 || n > 1000000)
				return usage_error("invalid budget '%s' "
				    "(expected 0 to 1000000)", optarg);
			o.budget = (unsigned)n;
			so.budget_set = true;
			break;
		}
		case 'F':
			so.jail_filter = true;
			break;
		case 'S':
			state_dir = optarg;
			o.flush = true;	/* acknowledged = printed */
			break;
		case 'N':
			o.no_history = true;
			break;
		case 'h':
			fputs(help_text, stdout);
			return close_stdout(0);
		case 'V':
			printf("sandboxrepl %s\n", PACKAGE_VERSION);
			return close_stdout(0);
		default:
			usage_hint();
			return 2;
		}
	}
	if (!o.batch && o.nexprs == 0 && optind < argc)
		return usage_error("unexpected argument '%s' (scenario files "
		    "go with --batch)", argv[optind]);
	if (o.nexprs > 0 && optind < argc)
		return usage_error("unexpected argument '%s' (scenario files "
		    "go with --batch)", argv[optind]);

	so.paths = o.paths;
	so.policy = o.policy;
	so.budget = o.budget;
	s = session_new(&so);
	if (state_dir != NULL) {
		char *err;
		if (!session_use_state(s, state_dir, &err)) {
			fprintf(stderr, "sandboxrepl: %s\n", err);
			free(err);
			session_free(s);
			policy_free(owned_policy);
			free(o.exprs);
			return 1;
		}
	}
	if (o.nexprs > 0) {
		size_t k;
		for (k = 0; k < o.nexprs; k++)
			status |= run_input(s, &o, o.exprs[k],
			    strlen(o.exprs[k]));
	} else if (o.batch && optind < argc) {
		for (i = optind; i < argc; i++)
			status |= run_scenario(s, &o, argv[i]);
	} else {
		int ui_status = -1;
		if (!o.batch) {
			const char *why = "stdin and stdout are not a terminal";
			if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) &&
			    ui_usable(&why)) {
				struct ui_opts uo = { .no_history =
				    o.no_history };
				why = "the terminal could not be set up";
				ui_status = ui_run(s, &uo);
			}
			if (ui_status < 0)
				fprintf(stderr, "sandboxrepl: %s; reading "
				    "inputs from stdin (batch mode)\n", why);
		}
		status = ui_status >= 0 ? ui_status : run_stdin(s, &o);
	}
	session_free(s);
	policy_free(owned_policy);
	free(o.exprs);
	return close_stdout(status);
}
