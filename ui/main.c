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
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "app/agent.h"
#include "base/arena.h"
#include "app/doctor.h"
#include "app/export.h"
#include "app/mcp.h"
#include "sandbox/policy.h"
#include "record/paths.h"
#include "record/record.h"
#include "base/sbuf.h"
#include "app/scenario.h"
#include "app/serve.h"
#include "session/session.h"
#include "ui.h"
#include "world/world.h"
#include "base/xalloc.h"

#ifdef __SANITIZE_ADDRESS__
/* Built with --enable-asan: let malloc fail under the jail's RLIMIT_AS the
 * way it does without ASan, so a memory bomb is reported as contained
 * instead of ending in ASan's own abort. */
const char *__asan_default_options(void);
const char *
__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}
#endif

/* Long options without a short form. */
enum { OPT_AGENT = 256, OPT_AGENT_TIMEOUT, OPT_AGENT_TURNS, OPT_TIMEOUT, OPT_SERVE, OPT_MEMORY, OPT_ENGINE,
	OPT_FRESH_WORLD, OPT_MCP, OPT_JAIL, OPT_DOCTOR, OPT_THEME, OPT_PLAY,
	OPT_EXPORT };

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
	enum ui_theme	 theme;		/* --theme */
	unsigned	 paths;
	const struct policy *policy;
	unsigned	 budget;
	char		**exprs;
	size_t		 nexprs;
	bool		 serve;		/* --serve: JSON Lines on stdin/stdout */
	bool		 mcp;		/* --mcp: an MCP server on stdin/stdout */
	struct agent_opts agent;	/* --agent: '?' inputs are tasks */
	const char	*play;		/* --play: the UI starts presenting it */
	const char	*export_file;	/* --export: the handout's file */
	struct export_log *log;		/* what it will hold, or NULL */
	struct sbuf	*export_title;	/* the scenarios' names */
	struct policy	*owned_policy;	/* one -P read from a file */
	const char	*state_dir;	/* --state */
	bool		 engine_set;	/* --engine given */
	bool		 doctor;	/* --doctor */
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

/* --help, in three parts: the paths --path takes and the kinds --jail
 * takes are the tables' (print_help). */
static const char help_head[] =
"Usage: sandboxrepl [OPTION]...\n"
"       sandboxrepl --batch [OPTION]... [FILE]...\n"
"       sandboxrepl -e INPUT [-e INPUT]... [OPTION]...\n"
"Watch an agent's code tool run with no boundary (unsafe), behind the\n"
"essay's in-process allowlist (sandbox), and inside a Linux kernel jail.\n"
"\n"
"  -b, --batch          run scenario FILEs, or one input per stdin line,\n"
"                       without the UI\n"
"  -e, --eval=INPUT     run INPUT (repeatable) without the UI\n";
static const char help_mid[] =
"  -j, --json           print one JSON record per line instead of trace lines\n"
"  -P, --policy=NAME    sandbox policy: essay (default), dunder, blocklist,\n"
"                       or a policy FILE\n"
"  -B, --budget=N       inputs the sandbox path may run (default 1000)\n"
"  -F, --jail-filter    on the jail path, apply the sandbox policy first\n";
static const char help_tail[] =
"  -S, --state=DIR      keep files, names, budgets and ledgers in DIR across\n"
"                       runs (saved atomically after every input)\n"
"      --timeout=SECONDS\n"
"                       wall-clock time one input may run on every path\n"
"                       before its world is killed (default 5, up to 3600)\n"
"      --memory=INPUT[,SESSION]\n"
"                       memory one input may hold on the unsafe and sandbox\n"
"                       paths (default 256M), and the session with the names\n"
"                       and files it keeps (default twice INPUT); a size is\n"
"                       bytes or a number with K, M or G; a CPython world's\n"
"                       budget is three times INPUT (768M at the default)\n"
"      --play=FILE      start the UI presenting scenario FILE, one step\n"
"                       at a time (Enter or Right next, Left back, Esc\n"
"                       the columns)\n"
"      --export=FILE    with --batch or -e, also write what ran as one\n"
"                       self-contained HTML page (a handout): each step's\n"
"                       caption, input, outcomes and output, and a summary\n"
"      --no-history     do not read or write the UI's input history\n"
"      --theme=THEME    the UI's colours for a dark (the default) or light\n"
"                       background; also SANDBOXREPL_THEME=light; NO_COLOR\n"
"                       set turns colour off\n"
"      --agent=CMD      an input '? TASK' is a task for an agent: run CMD\n"
"                       through /bin/sh -c, write the task and a context\n"
"                       block to its stdin, run the lines it answers with\n"
"      --agent-timeout=SECONDS\n"
"                       kill the agent after SECONDS in each turn\n"
"                       (default 60)\n"
"      --agent-turns=N  ask the agent up to N times for one task (default\n"
"                       1, up to 20): each turn gets the records of the\n"
"                       turns before it as JSON lines; DONE ends the loop\n"
"      --engine=ENGINE  what runs the unsafe and jail paths' code, and the\n"
"                       sandbox path's under a policy wider than the essay's\n"
"                       subset: cpython (disposable Linux worlds; the\n"
"                       default where worlds can be built) or model\n"
"                       (sandboxrepl's own model; on the jail path, in its\n"
"                       own kernel jail)\n"
"      --fresh-world    a new world for every input (names are forgotten;\n"
"                       the path's files are kept)\n"
"      --serve          JSON Lines tool mode: one request per stdin line,\n"
"                       {\"id\":..,\"input\":\"..\",\"paths\":[..]}, one reply\n"
"                       per stdout line, {\"id\":..,\"records\":[..]}\n"
"      --mcp            a Model Context Protocol server on stdin/stdout:\n"
"                       the tool run_code on the paths --path lists\n"
"                       (default all three), and the commands that the\n"
"                       sandbox (else jail, else unsafe) lets through\n"
"      --doctor         check what this machine allows (user namespaces,\n"
"                       Landlock, seccomp, cgroups, CPython, runsc, KVM) and\n"
"                       which engine each path runs; exit 1 when a path\n"
"                       cannot run as asked; with --json, one JSON object\n"
"  -h, --help           print this help and exit\n"
"  -V, --version        print the version and exit\n"
"\n"
"Trace lines read 'LABEL: INPUT -> OUTCOME'.  Only the jail path is a\n"
"security boundary: the sandbox path's allowlist is the essay's teaching\n"
"model, and in-process filtering is a speed bump, not a boundary.\n"
"\n"
"Exit status: 0 when every input was processed (whatever the verdicts),\n"
"1 on a runtime error, 2 on a usage error.\n";

/* Memory sizes: from 1 MiB to 1 TiB. */
#define MEMORY_MIN ((uint64_t)1 << 20)
#define MEMORY_MAX ((uint64_t)1 << 40)

/* "256M", "1G", "65536": a size in bytes, with a binary K/M/G suffix;
 * *end receives what follows it. */
static int
parse_size(const char *s, const char **end, uint64_t *out)
{
	char *e;
	unsigned long long n;
	unsigned shift = 0;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoull(s, &e, 10);
	if (errno != 0)
		return -1;
	switch (*e) {
	case 'k': case 'K': shift = 10; e++; break;
	case 'm': case 'M': shift = 20; e++; break;
	case 'g': case 'G': shift = 30; e++; break;
	default: break;
	}
	if (n > MEMORY_MAX >> shift)
		return -1;
	*out = (uint64_t)n << shift;
	*end = e;
	return 0;
}

/* --memory=INPUT[,SESSION] */
static int
parse_memory(const char *s, struct session_opts *so)
{
	const char *end;
	uint64_t in, sess;

	if (parse_size(s, &end, &in) != 0)
		return -1;
	sess = 2 * in;
	if (*end == ',' && parse_size(end + 1, &end, &sess) != 0)
		return -1;
	if (*end != '\0' || in < MEMORY_MIN || in > MEMORY_MAX ||
	    sess < in || sess > MEMORY_MAX)
		return -1;
	so->memory_input = (size_t)in;
	so->memory_session = (size_t)sess;
	return 0;
}

/*
 * May this run build a world?  The terminal UI may (its paths change at a
 * key), and so may any run with the unsafe path, a jail or a policy whose
 * code runs in CPython; the sandbox path alone under the essay's policy
 * never does, and then CPython is not even loaded (pymod.c).
 */
static bool
may_build_worlds(const struct options *o)
{
	unsigned others = ~paths_guarded(GUARD_POLICY);

	if (!o->batch && o->nexprs == 0 && !o->serve && !o->mcp)
		return true;
	if (o->paths == 0 || (o->paths & others) != 0)
		return true;
	return o->policy != NULL && policy_runs_in_world(o->policy);
}

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

/*
 * --batch's trace lines from stdin gather here and go to stdout a block
 * at a time (stdio's fwrite took a hundred instructions a line): before
 * a read of stdin that would wait (lines_next), before anything else is
 * printed (an agent's task), when full, and at the end.  Only when stdout
 * is not a terminal, which stdio would flush line by line.
 */
static struct {
	char	*buf;
	size_t	 len, cap;
	bool	 on;
} outq;

static void
outq_flush(void)
{
	if (outq.len > 0)
		fwrite(outq.buf, 1, outq.len, stdout);
	outq.len = 0;
}

static bool
print_records(const struct options *o, const struct record *r, size_t n)
{
	size_t i;
	bool ok = true;

	/* One record at a time, straight to stdout: a big result is not
	 * copied into one more buffer first.  A line goes out by its
	 * length, known, under one lock for the input's records (fputs
	 * took its strlen and the lock again: a --batch line's cost). */
	if (outq.on && !o->json && !o->flush) {
		for (i = 0; i < n; i++) {
			size_t len = r[i].line_len;
			if (outq.cap - outq.len < len + 1) {
				outq_flush();
				if (outq.cap < len + 1) {
					fwrite(r[i].line, 1, len, stdout);
					putc('\n', stdout);
					continue;
				}
			}
			memcpy(outq.buf + outq.len, r[i].line, len);
			outq.buf[outq.len + len] = '\n';
			outq.len += len + 1;
		}
		return !ferror(stdout);
	}
	flockfile(stdout);
	for (i = 0; i < n && ok; i++) {
		if (o->json)
			ok = record_json_write(&r[i], stdout) != -1;
		else
			fwrite_unlocked(r[i].line, 1, r[i].line_len, stdout);
		if (ok)
			putc_unlocked('\n', stdout);
	}
	if (ok && o->flush)
		fflush_unlocked(stdout);
	ok = ok && !ferror_unlocked(stdout);
	funlockfile(stdout);
	return ok;
}

static void
print_text(const struct options *o, const char *kind, const char *text)
{
	if (o->json) {
		/* Scenario text lines, as JSON objects of their own, written
		 * by jansson; text that is not UTF-8 (a scenario file may
		 * hold anything) has its non-ASCII bytes replaced. */
		json_t *j = json_pack("{s:s}", kind, text);
		char *dump;
		if (j == NULL) {
			struct sbuf b = SBUF_INIT;
			const char *p;
			for (p = text; *p; p++)
				if ((unsigned char)*p < 0x80)
					sbuf_addc(&b, *p);
				else
					sbuf_adds(&b, "\xEF\xBF\xBD");
			j = json_pack("{s:s}", kind, sbuf_cstr(&b));
			sbuf_free(&b);
		}
		dump = json_dumps(j, JSON_COMPACT | JSON_ENSURE_ASCII);
		if (dump != NULL)
			printf("%s\n", dump);
		free(dump);
		json_decref(j);
	} else
		printf("%s\n", text);
}

/* What an agent task's turns print with (agent_loop_run). */
struct task_print {
	const struct options	*o;
	int			 status;
};

/* A turn's proposal, as a line before its lines run. */
static void
task_proposed(void *arg, const struct agent_proposal *p)
{
	struct task_print *tp = arg;
	struct sbuf b = SBUF_INIT;

	agent_proposal_show(p, tp->o->json, &b);
	printf("%s\n", sbuf_cstr(&b));
	sbuf_free(&b);
}

/* A proposed line has run: logged and printed as typed input's. */
static void
task_ran(void *arg, const char *line, const struct record *r, size_t n)
{
	struct task_print *tp = arg;

	if (tp->o->log != NULL)
		export_add(tp->o->log, NULL, NULL, NULL, line, strlen(line), r,
		    n);
	if (!print_records(tp->o, r, n))
		tp->status = 1;
}

/* An agent task: each turn, show the proposal, then run each line as
 * typed input; the turns' records go back to the agent (agent_loop). */
static int
run_agent_task(struct session *s, const struct options *o, const char *task,
    size_t len)
{
	struct task_print tp = { o, 0 };
	struct agent_turn_ops ops = { task_proposed, task_ran, NULL, &tp };
	struct agent_loop l;
	struct agent_run run;
	struct sbuf b = SBUF_INIT;

	agent_loop_init(&l, &o->agent, s, task, len);
	agent_loop_run(&l, &ops, &run);
	if (run.err != NULL) {
		if (l.turns > 1)	/* after the turns that ran */
			fflush(stdout);
		fprintf(stderr, "sandboxrepl: agent: %s\n", run.err);
		free(run.err);
		tp.status = 1;
	}
	agent_loop_show_end(&l, o->json, &b);
	if (b.len > 0)
		printf("%s\n", sbuf_cstr(&b));
	sbuf_free(&b);
	agent_loop_free(&l);
	return tp.status;
}

/* sp: the input parsed already (batch mode), run or dropped here; or
 * NULL. */
static int
run_input(struct session *s, const struct options *o, const char *input,
    size_t len, struct session_parsed *sp)
{
	const char *task;
	size_t tasklen;
	struct arena *a;
	struct record *r;
	size_t n;
	bool ok;

	if (o->agent.command != NULL &&
	    agent_is_task(input, len, &task, &tasklen)) {
		int status;
		bool on = outq.on;
		if (sp != NULL)
			session_parsed_drop(sp);
		/* (the task prints its own way: the lines before it first) */
		outq_flush();
		outq.on = false;
		status = run_agent_task(s, o, task, tasklen);
		outq.on = on;
		return status;
	}
	a = arena_new();
	n = sp != NULL ? session_run_parsed(s, sp, NULL, 0, a, &r) :
	    session_run(s, input, len, NULL, 0, a, &r);
	if (o->log != NULL)
		export_add(o->log, NULL, NULL, NULL, input, len, r, n);
	ok = print_records(o, r, n);
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
	const char *caption = NULL;	/* for the handout's next step */
	const char *base = strrchr(path, '/');

	if (!scenario_load(path, &sc, &err)) {
		fprintf(stderr, "sandboxrepl: %s\n", err);
		free(err);
		return 1;
	}
	if (o->log != NULL)
		sbuf_addf(o->export_title, "%s%s", o->export_title->len ?
		    ", " : "", sc.title ? sc.title : base ? base + 1 : path);
	for (i = 0; i < sc.n; i++) {
		struct arena *a = arena_new();
		struct scn_output out;
		const struct scn_step *st = &sc.steps[i];

		scenario_exec(s, st, a, &out);
		/* the handout: a visible step with the caption above it (or
		 * above the set-up steps before it) */
		if (st->caption != NULL)
			caption = st->caption;
		if (o->log != NULL && !out.failed && out.nrecords > 0)
			export_add(o->log, caption, st->label,
			    base ? base + 1 : path, st->arg, st->arglen,
			    out.records, out.nrecords);
		else if (o->log != NULL && !out.failed && out.text != NULL &&
		    (st->kind == SCN_ECHO || st->kind == SCN_LS))
			export_note(o->log, caption, base ? base + 1 : path,
			    out.text);
		if (st->kind == SCN_RUN || st->kind == SCN_ECHO ||
		    st->kind == SCN_LS)
			caption = NULL;
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

/*
 * stdin's lines for batch mode, read(2) a block at a time and cut at each
 * newline where they lie: getline()'s 140 instructions a line were a
 * --batch input's largest cost outside the session.  A line is what
 * getline() gives (its newline included; the last one may lack it, and
 * NULs are kept), in the buffer, with a byte after it to write.  read(2)
 * returns what the pipe holds, so a line is run as soon as it has come,
 * as before.  A read error ends the lines, as getline()'s did, and is
 * told after them (err).
 */
struct lines_in {
	char	*buf;
	size_t	 cap, start, end;	/* buf[start, end) not yet given */
	bool	 eof;
	int	 err;			/* errno of a failed read, or 0 */
};

static ssize_t
lines_next(struct lines_in *li, char **line)
{
	for (;;) {
		char *nl = li->start < li->end ? memchr(li->buf + li->start,
		    '\n', li->end - li->start) : NULL;
		size_t n;
		ssize_t r;
		if (nl != NULL || (li->eof && li->start < li->end)) {
			n = nl != NULL ? (size_t)(nl - (li->buf + li->start)) +
			    1 : li->end - li->start;
			*line = li->buf + li->start;
			li->start += n;
			return (ssize_t)n;
		}
		if (li->eof)
			return -1;
		outq_flush();	/* (what ran is out before a wait) */
		/* (the part line to the front; room for a block and a byte) */
		if (li->start > 0) {
			memmove(li->buf, li->buf + li->start,
			    li->end - li->start);
			li->end -= li->start;
			li->start = 0;
		}
		if (li->cap - li->end < 4096 + 1) {
			li->cap = li->cap ? li->cap * 2 : 65536;
			li->buf = xrealloc(li->buf, li->cap);
		}
		r = read(STDIN_FILENO, li->buf + li->end, li->cap - li->end - 1);
		if (r > 0)
			li->end += (size_t)r;
		else {
			if (r < 0)
				li->err = errno;
			li->eof = true;
		}
	}
}

static int
run_stdin(struct session *s, const struct options *o)
{
	struct sbuf acc = SBUF_INIT;
	struct lines_in li = { NULL, 0, 0, 0, false, 0 };
	char *line;
	ssize_t n;
	int status = 0;
	unsigned lines = 0;
	struct session_parsed sp;
	bool parsed;
	const char *in;
	size_t inlen;

	if (!o->json && !isatty(STDOUT_FILENO)) {
		outq.cap = 16384;
		outq.buf = xmalloc(outq.cap);
		outq.on = true;
	}
	while ((n = lines_next(&li, &line)) >= 0) {
		size_t len = (size_t)n;
		if (len > 0 && line[len - 1] == '\n')
			len--;
		if (len > 0 && line[len - 1] == '\r')
			len--;
		line[len] = '\0';
		/* (an input's first line is read where getline left it, and
		 * copied only when more lines follow) */
		if (acc.len > 0) {
			sbuf_addc(&acc, '\n');
			sbuf_add(&acc, line, len);
			in = acc.data;
			inlen = acc.len;
		} else {
			in = line;
			inlen = len;
		}
		if (inlen == 0)
			continue;
		/* The session's parse first: an input that parses is
		 * complete (session_parse), and runs with that parse; the
		 * rest is asked as before. */
		parsed = false;
		if (inlen < MAX_INPUT_BYTES && ++lines < MAX_INPUT_LINES &&
		    !(parsed = session_parse(&sp, in, inlen))) {
			session_parsed_drop(&sp);
			if (session_input_incomplete(in, inlen)) {
				if (acc.len == 0)
					sbuf_add(&acc, line, len);
				continue;
			}
		}
		lines = 0;
		{
			const char *p = in;
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p != '\0' && *p != '#')
				status |= run_input(s, o, in, inlen,
				    parsed ? &sp : NULL);
			else if (parsed)
				session_parsed_drop(&sp);
		}
		sbuf_truncate(&acc, 0);
	}
	if (acc.len > 0)
		status |= run_input(s, o, acc.data, acc.len, NULL);
	outq_flush();
	outq.on = false;
	free(outq.buf);
	outq.buf = NULL;
	outq.cap = 0;
	if (li.err != 0) {
		fprintf(stderr, "sandboxrepl: stdin: %s\n", strerror(li.err));
		status = 1;
	}
	free(li.buf);
	sbuf_free(&acc);
	return status;
}

static void
ignore_signal(int sig)
{
	(void)sig;
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

/* The long options; those without a short form are numbered from 256. */
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
	{ "agent", required_argument, NULL, OPT_AGENT },
	{ "agent-timeout", required_argument, NULL, OPT_AGENT_TIMEOUT },
	{ "agent-turns", required_argument, NULL, OPT_AGENT_TURNS },
	{ "serve", no_argument, NULL, OPT_SERVE },
	{ "mcp", no_argument, NULL, OPT_MCP },
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "fresh-world", no_argument, NULL, OPT_FRESH_WORLD },
	{ "jail", required_argument, NULL, OPT_JAIL },
	{ "memory", required_argument, NULL, OPT_MEMORY },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "doctor", no_argument, NULL, OPT_DOCTOR },
	{ "theme", required_argument, NULL, OPT_THEME },
	{ "play", required_argument, NULL, OPT_PLAY },
	{ "export", required_argument, NULL, OPT_EXPORT },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* Keep going: what option(), check_options() and the like return when
 * the program goes on (else the exit status). */
#define GO_ON (-1)

/* Seconds from lo to hi, as milliseconds; false if s is not one. */
static bool
parse_seconds(const char *s, double lo, double hi, unsigned *ms)
{
	char *end;
	double secs;

	errno = 0;
	secs = strtod(s, &end);
	if (errno != 0 || *end != '\0' || end == s || !(secs >= lo &&
	    secs <= hi))
		return false;
	*ms = (unsigned)(secs * 1000 + 0.5);
	return true;
}

/* A whole number from lo to hi; false if s is not one. */
static bool
parse_count(const char *s, long lo, long hi, unsigned *n)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || end == s || v < lo || v > hi)
		return false;
	*n = (unsigned)v;
	return true;
}

/* -P, --policy: a preset's name or a policy file. */
static int
option_policy(struct options *o, const char *arg)
{
	char *err;
	bool named;

	o->policy = policy_resolve(arg, &session_policy_names, &err);
	if (o->policy != NULL) {
		if (policy_preset(o->policy->name) != o->policy)
			o->owned_policy = (struct policy *)o->policy;
		return GO_ON;
	}
	/* an unknown name is a usage error; a file that cannot be read or
	 * parsed, a runtime one */
	named = strncmp(err, "unknown policy", 14) == 0;
	fprintf(stderr, "sandboxrepl: %s\n", err);
	free(err);
	if (!named)
		return 1;
	usage_hint();
	return 2;
}

/* -B, --budget */
static int
option_budget(struct options *o, struct session_opts *so, const char *arg)
{
	if (!parse_count(arg, 0, 1000000, &o->budget))
		return usage_error("invalid budget '%s' (expected 0 to "
		    "1000000)", arg);
	so->budget_set = true;
	return GO_ON;
}

/* --agent-turns */
static int
option_agent_turns(struct options *o, const char *arg)
{
	if (!parse_count(arg, 1, AGENT_MAX_TURNS, &o->agent.turns))
		return usage_error("invalid agent turns '%s' (expected 1 to "
		    "%u)", arg, AGENT_MAX_TURNS);
	return GO_ON;
}

/* --help's columns: an option's text starts at HELP_COL, and a line
 * ends by HELP_WIDTH. */
#define HELP_COL	23
#define HELP_WIDTH	78

/* An option's line in --help, its text wrapped at spaces. */
static void
print_option(const char *opt, const char *text)
{
	int col = printf("%-*s", HELP_COL, opt);

	while (*text != '\0') {
		size_t word = strcspn(text, " ");

		if (col > HELP_COL && col + 1 + (int)word > HELP_WIDTH)
			col = printf("\n%*s", HELP_COL, "") - 1;
		else if (col > HELP_COL)
			col += printf(" ");
		col += printf("%.*s", (int)word, text);
		text += word;
		text += strspn(text, " ");
	}
	putchar('\n');
}

/* --jail's line: each kind --jail takes, what its row says of it, and
 * which is the default. */
static void
print_jail_help(void)
{
	struct sbuf b = SBUF_INIT;
	enum boundary dflt = boundary_jail_default();
	int k, n = 0, i = 0;

	for (k = 0; k < BOUNDARY__COUNT; k++)
		n += boundary_row((enum boundary)k)->jail_option;
	sbuf_adds(&b, "the jail path's boundary:");
	for (k = 0; k < BOUNDARY__COUNT; k++) {
		const struct boundary_row *r = boundary_row((enum boundary)k);

		if (!r->jail_option)
			continue;
		sbuf_addf(&b, "%s %s", i == 0 ? "" : i == n - 1 ? " or" : ",",
		    r->name);
		if (r->about != NULL || r->id == dflt)
			sbuf_addf(&b, " (%s%s%s)", r->about != NULL ?
			    r->about : "", r->about != NULL && r->id == dflt ?
			    "; " : "", r->id == dflt ? "the default" : "");
		i++;
	}
	print_option("      --jail=BOUNDARY", sbuf_cstr(&b));
	sbuf_free(&b);
}

/* -h, --help: the text, and which engine this machine gives. */
static int
print_help(void)
{
	const char *why = NULL;
	char list[256];

	fputs(help_head, stdout);
	printf("  -p, --path=LIST      paths to run: %s\n", path_list(list,
	    sizeof list, ~0u, ","));
	printf("%*s(default %s)\n", HELP_COL, "", path_list(list,
	    sizeof list, PATHS_DEFAULT, ","));
	fputs(help_mid, stdout);
	print_jail_help();
	fputs(help_tail, stdout);
	if (world_best_engine(&why) == WORLD_ENGINE_CPYTHON)
		printf("\nEngine: the unsafe and jail paths run CPython in "
		    "disposable Linux worlds here.\n");
	else
		printf("\nEngine: the unsafe path runs sandboxrepl's model "
		    "here, and the jail path the model in its kernel jail: "
		    "%s.\n'sandboxrepl --doctor' says what is missing and "
		    "how to fix it.\n", why);
	return close_stdout(0);
}

/* The options that set a session's world: engine, jail, limits. */
static int
option_world(int c, const char *arg, struct options *o,
    struct session_opts *so)
{
	switch (c) {
	case OPT_TIMEOUT:
		if (!parse_seconds(arg, 0.1, 3600, &so->world_wall_ms))
			return usage_error("invalid timeout '%s' (expected "
			    "seconds, from 0.1 to 3600)", arg);
		break;
	case OPT_MEMORY:
		if (parse_memory(arg, so) != 0)
			return usage_error("invalid memory size '%s' "
			    "(expected INPUT[,SESSION], e.g. 256M or "
			    "256M,1G: from 1M to 1024G, the session's no "
			    "less than the input's)", arg);
		break;
	case OPT_ENGINE: {
		enum world_engine e;
		if (!world_engine_parse(arg, &e))
			return usage_error("invalid engine '%s' (expected "
			    "cpython or model)", arg);
		so->engine = (int)e;
		o->engine_set = true;
		break;
	}
	case OPT_FRESH_WORLD:
		so->fresh_world = true;
		break;
	case OPT_JAIL: {
		enum boundary b;
		char list[128];

		if (!boundary_parse(arg, &b))
			return usage_error("invalid jail '%s' (expected %s)",
			    arg, boundary_list(list, sizeof list, " or "));
		so->jail = (int)b;
		so->jail_set = true;
		break;
	}
	case 'F':
		so->jail_filter = true;
		break;
	}
	return GO_ON;
}

/* One option from getopt_long (c, with its argument arg). */
static int
option(int c, char *arg, struct options *o, struct session_opts *so)
{
	switch (c) {
	case 'b':
		o->batch = true;
		break;
	case 'e':
		o->exprs = xreallocarray(o->exprs, o->nexprs + 1,
		    sizeof *o->exprs);
		o->exprs[o->nexprs++] = arg;
		break;
	case 'p': {
		char list[256];

		if (parse_path_list(arg, &o->paths) != 0)
			return usage_error("invalid path list '%s' (expected "
			    "%s)", arg, path_list(list, sizeof list, ~0u, ","));
		break;
	}
	case 'j':
		o->json = true;
		break;
	case 'P':
		return option_policy(o, arg);
	case 'B':
		return option_budget(o, so, arg);
	case 'S':
		o->state_dir = arg;
		o->flush = true;	/* acknowledged = printed */
		break;
	case 'N':
		o->no_history = true;
		break;
	case OPT_AGENT:
		if (*arg == '\0')
			return usage_error("empty agent command");
		o->agent.command = arg;
		break;
	case OPT_AGENT_TIMEOUT:
		if (!parse_seconds(arg, 0.001, 3600, &o->agent.timeout_ms))
			return usage_error("invalid agent timeout '%s' "
			    "(expected seconds, up to 3600)", arg);
		break;
	case OPT_AGENT_TURNS:
		return option_agent_turns(o, arg);
	case OPT_SERVE:
		o->serve = true;
		break;
	case OPT_MCP:
		o->mcp = true;
		break;
	case OPT_DOCTOR:
		o->doctor = true;
		break;
	case OPT_THEME:
		if (!ui_theme_parse(arg, &o->theme))
			return usage_error("invalid theme '%s' (expected dark "
			    "or light)", arg);
		break;
	case OPT_PLAY:
		o->play = arg;
		break;
	case OPT_EXPORT:
		if (*arg == '\0')
			return usage_error("empty file name for --export");
		o->export_file = arg;
		break;
	case OPT_TIMEOUT: case OPT_MEMORY: case OPT_ENGINE:
	case OPT_FRESH_WORLD: case OPT_JAIL: case 'F':
		return option_world(c, arg, o, so);
	case 'h':
		return print_help();
	case 'V':
		printf("sandboxrepl %s\n", PACKAGE_VERSION);
		return close_stdout(0);
	default:
		usage_hint();
		return 2;
	}
	return GO_ON;
}

/* Free what the options hold; returns status. */
static int
options_free(struct options *o, int status)
{
	free(o->exprs);
	o->exprs = NULL;
	policy_free(o->owned_policy);
	o->owned_policy = NULL;
	return status;
}

/* --doctor: what this machine can build, and the run ends there. */
static int
run_doctor(struct options *o, struct session_opts *so, int nargs)
{
	struct doctor_opts d = { .engine = o->engine_set ?
	    (enum world_engine)so->engine : WORLD_ENGINE_CPYTHON,
	    .paths = o->paths };
	struct doctor_report r;
	int werr, status;

	options_free(o, 0);
	if (o->batch || o->nexprs > 0 || nargs > 0 || o->serve || o->mcp)
		return usage_error("--doctor takes no inputs, files, "
		    "--serve or --mcp");
	world_zygote_start();
	if (so->memory_input != 0)	/* the bounds it says */
		world_set_memory(so->memory_input);
	doctor_run(&d, &r);
	werr = o->json ? doctor_print_json(&r, stdout) :
	    doctor_print(&r, stdout);
	status = werr != 0 ? 1 : r.ok ? 0 : 1;
	doctor_free(&r);
	return close_stdout(status);
}

/* The options that cannot go together, and --play's scenario read
 * before the screen is taken over; nargs: the file arguments left. */
static int
check_options(struct options *o, int nargs, const char *first)
{
	if (o->play != NULL && (o->batch || o->nexprs > 0 || nargs > 0 ||
	    o->serve || o->mcp || o->doctor))
		return options_free(o, usage_error("--play starts the UI in "
		    "a scenario; it takes no --batch, -e, files, --serve, "
		    "--mcp or --doctor"));
	if (o->play != NULL) {
		struct scenario sc;
		char *err;
		if (!scenario_load(o->play, &sc, &err)) {
			fprintf(stderr, "sandboxrepl: %s\n", err);
			free(err);
			return options_free(o, 1);
		}
		scenario_free(&sc);
	}
	if (o->export_file != NULL && ((!o->batch && o->nexprs == 0) ||
	    o->serve || o->mcp || o->play != NULL))
		return options_free(o, usage_error("--export writes the "
		    "handout of a --batch or -e run (in the UI, :export "
		    "FILE)"));
	if (!o->batch && o->nexprs == 0 && nargs > 0)
		return usage_error("unexpected argument '%s' (scenario files "
		    "go with --batch)", first);
	if (o->nexprs > 0 && nargs > 0)
		return usage_error("unexpected argument '%s' (scenario files "
		    "go with --batch)", first);
	if (o->serve && (o->batch || o->nexprs > 0 || nargs > 0))
		return options_free(o, usage_error("--serve reads requests "
		    "from stdin; it takes no -e, --batch or files"));
	if (o->serve && o->agent.turns > 1)
		return options_free(o, usage_error("--serve answers one agent "
		    "turn per request (its caller is the loop); it takes no "
		    "--agent-turns above 1"));
	if (o->mcp && (o->serve || o->batch || o->nexprs > 0 || nargs > 0 ||
	    o->agent.command != NULL))
		return options_free(o, usage_error("--mcp reads MCP messages "
		    "from stdin; it takes no --serve, --agent, -e, --batch or "
		    "files"));
	return GO_ON;
}

/* What runs before the session is built: the zygote, and --mcp's
 * SIGPIPE and paths. */
static void
prepare(struct options *o, struct session_opts *so)
{
	if (!o->engine_set)
		so->engine = WORLD_ENGINE_CPYTHON;	/* the model where it
							   cannot be built */
	/* Worlds are forked from a small process started before the heap
	 * grows (the session, curses, readline, history): see
	 * src/world/zygote.c.  CPython initialises there meanwhile.  Not
	 * where no world will be built: the sandbox path alone under a
	 * policy its evaluator answers (a run that switches paths later
	 * starts it then). */
	if (so->engine == WORLD_ENGINE_CPYTHON && may_build_worlds(o))
		world_zygote_start();
	if (o->mcp) {
		/* A client that hangs up makes the next write fail (EPIPE,
		 * exit status 1) instead of killing the server.  A handler,
		 * not SIG_IGN: a program a world or jail execs gets the
		 * default back. */
		struct sigaction sa = { .sa_handler = ignore_signal };
		sigemptyset(&sa.sa_mask);
		sigaction(SIGPIPE, &sa, NULL);
		if (o->paths == 0)	/* the tools may use every path */
			o->paths = paths_offered();
	}
	so->paths = o->paths;
	so->policy = o->policy;
	so->budget = o->budget;
}

/* No -e, files, --serve or --mcp: the terminal UI where there is one,
 * else --play's scenario or stdin in batch mode. */
static int
run_terminal(struct session *s, const struct options *o,
    const struct session_opts *so)
{
	int ui_status = -1;

	if (!o->batch) {
		const char *why = "stdin and stdout are not a terminal";
		if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) &&
		    ui_usable(&why)) {
			struct ui_opts uo = { .no_history = o->no_history,
			    .agent = o->agent.command ? &o->agent : NULL,
			    .theme = o->theme, .play = o->play };
			const char *missing = NULL;

			if (so->engine == WORLD_ENGINE_CPYTHON &&
			    world_best_engine(&missing) !=
			    WORLD_ENGINE_CPYTHON)
				uo.missing = missing;
			why = "the terminal could not be set up";
			ui_status = ui_run(s, &uo);
		}
		if (ui_status < 0 && o->play != NULL)
			fprintf(stderr, "sandboxrepl: %s; running %s in batch "
			    "mode\n", why, o->play);
		else if (ui_status < 0)
			fprintf(stderr, "sandboxrepl: %s; reading inputs from "
			    "stdin (batch mode)\n", why);
	}
	return ui_status >= 0 ? ui_status : o->play != NULL ?
	    run_scenario(s, o, o->play) : run_stdin(s, o);
}

/* The run the options ask for: MCP, serve, -e, scenario files or the
 * terminal; args are the file arguments. */
static int
run(struct session *s, struct options *o, const struct session_opts *so,
    char **args, int nargs)
{
	int status = 0, i;
	size_t k;

	if (o->mcp) {
		struct mcp_opts mo = { .paths = o->paths,
		    .one_worker = o->state_dir != NULL,
		    .policy_set = o->policy != NULL,
		    .jail_filter = so->jail_filter };
		return mcp_loop(s, &mo, stdin, stdout);
	}
	if (o->serve) {
		struct serve_opts sv = { .agent = o->agent.command ?
		    &o->agent : NULL, .paths = o->paths };
		return serve_loop(s, &sv, stdin, stdout);
	}
	if (o->nexprs > 0) {
		for (k = 0; k < o->nexprs; k++)
			status |= run_input(s, o, o->exprs[k],
			    strlen(o->exprs[k]), NULL);
		return status;
	}
	if (o->batch && nargs > 0) {
		for (i = 0; i < nargs; i++)
			status |= run_scenario(s, o, args[i]);
		return status;
	}
	return run_terminal(s, o, so);
}

/* --export: the handout, written whole once everything ran. */
static int
write_handout(const struct options *o, int status)
{
	char *err, *title = xasprintf("sandboxrepl: %s",
	    o->export_title->len ? sbuf_cstr(o->export_title) : "a session");

	if (!export_write(o->log, title, o->export_file, &err)) {
		fprintf(stderr, "sandboxrepl: cannot write the handout: %s\n",
		    err);
		free(err);
		status = 1;
	}
	free(title);
	export_free(o->log);
	sbuf_free(o->export_title);
	return status;
}

int
main(int argc, char **argv)
{
	struct options o = { 0 };
	struct session_opts so = { 0 };
	struct session *s;
	struct export_log log;
	struct sbuf export_title = SBUF_INIT;
	int c, status;

	/* Inside gVisor's sandbox, this program is a world's worker
	 * (src/world/gvisor.c): that, and nothing else. */
	world_worker_main(argc, argv);
	/* getopt's own messages name the program as the others do */
	argv[0] = (char *)"sandboxrepl";
	while ((c = getopt_long(argc, argv, "be:p:jP:B:FS:hV", longopts,
	    NULL)) != -1)
		if ((status = option(c, optarg, &o, &so)) != GO_ON)
			return status;
	if (o.doctor)
		return run_doctor(&o, &so, argc - optind);
	if ((status = check_options(&o, argc - optind, argv[optind])) !=
	    GO_ON)
		return status;
	prepare(&o, &so);
	s = session_new(&so);
	if (o.state_dir != NULL) {
		char *err;
		if (!session_use_state(s, o.state_dir, &err)) {
			fprintf(stderr, "sandboxrepl: %s\n", err);
			free(err);
			session_free(s);
			return options_free(&o, 1);
		}
	}
	if (o.export_file != NULL) {
		export_init(&log);
		o.log = &log;
		o.export_title = &export_title;
	}
	status = run(s, &o, &so, argv + optind, argc - optind);
	if (o.log != NULL)
		status = write_handout(&o, status);
	if (session_engine_note(s) != NULL)
		fprintf(stderr, "sandboxrepl: %s\n", session_engine_note(s));
	session_free(s);
	return close_stdout(options_free(&o, status));
}
