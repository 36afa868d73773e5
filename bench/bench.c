/*
 * bench.c -- `make bench`: sandboxrepl against its anchors, as Markdown.
 *
 * Everything compared is measured in the same run, and what the targets
 * speak of are ratios of medians, not absolute times: the machine has two
 * cores and other work may be running.  The run goes:
 *
 *   1. whole processes, while this one is still small (spawn.c):
 *      sandboxrepl -e next to /bin/true, the anchors' one-shot CLIs,
 *      --batch throughput and the 1 MiB inputs through --batch;
 *   2. the jail: jail_run() with a trivial function next to a bwrap
 *      launch, and a whole jail-path evaluation when the build has one;
 *   3. per evaluation, in process, on the sandbox path: the corpus split
 *      into parse, check and evaluate (inproc.c);
 *   4. the same corpus through the Python anchors (anchors.py under
 *      /usr/bin/python3), then the essay expression once more in C, so
 *      that the C samples of the headline ratio straddle the Python run;
 *   5. jail_run() once more, from this process holding 64 MiB more heap;
 *   6. callgrind's instruction count for one essay evaluation.
 *
 * A row whose tool is missing is printed as skipped, with the reason.
 */
#include "config.h"

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jail/jail.h"
#include "base/sbuf.h"
#include "world/world.h"
#include "base/xalloc.h"

#include "bench.h"
#include "batch.h"

#define ESSAY "round(sum(orders) / len(orders), 2)"
#define ESCAPE "__import__('os').system('rm report.txt')"
#define ONE_MB (1u << 20)
#define BATCH_LINES 10000
/* sandboxrepl --batch stays at 56 MiB resident after one 1 MiB input:
 * the freed arena blocks stay in the process. */
#define HEAVY_MIB 64
#define STATE_WRITES 6		/* issue 14: six 16 MB writes with --state */
#define STATE_WRITE_BYTES 16000000

struct options {
	const char	*sandboxrepl;
	const char	*anchors;
	const char	*python;
	const char	*valgrind;
	const char	*bwrap;
	const char	*runsc;
	int		 reps;		/* samples per in-process row */
	int		 big_reps;	/* for the 1 MB rows */
	int		 proc_reps;	/* runs per short process row */
	int		 slow_reps;	/* runs per long process row */
	int		 essay_rounds;	/* extra Python/C rounds of the essay */
	bool		 once_essay;	/* internal: the callgrind target */
	bool		 once_step;	/* internal: likewise, a session step */
	bool		 worlds_only;	/* --worlds: the worlds' tables only */
	bool		 batch_only;	/* --batch: the end-to-end batch rows */
};

/* ---- the corpus ---- */

#define NITEMS 10
/* The pause between the jail rows and the in-process rows. */
#define SETTLE_SECONDS 2
/* The pause before each block of jail or bwrap runs. */
#define BLOCK_SETTLE_US 300000

/* "1+2+...+terms" */
static char *
chain(unsigned terms)
{
	struct sbuf b = SBUF_INIT;
	unsigned i;
	for (i = 1; i <= terms; i++)
		sbuf_addf(&b, i > 1 ? "+%u" : "%u", i);
	return sbuf_take(&b);
}

/* "1+1+...+1" or "[1,1,...,1]" of exactly `bytes` bytes (bytes odd). */
static char *
filler(size_t bytes, bool list)
{
	char *s = xmalloc(bytes + 1);
	size_t i;
	for (i = 0; i < bytes; i++)
		s[i] = i % 2 ? (list ? '1' : '+') : (list ? ',' : '1');
	if (list) {
		s[0] = '[';
		s[bytes - 1] = ']';
	}
	s[bytes] = '\0';
	return s;
}

static void
make_corpus(struct item *it)
{
	struct sbuf b = SBUF_INIT;
	unsigned i;
	size_t k;

	it[0] = (struct item){ "essay", "essay `" ESSAY "`",
	    xstrdup(ESSAY), 0, true, false };
	it[1] = (struct item){ "chain10", "`1+2+...+10`", chain(10),
	    0, true, false };
	it[2] = (struct item){ "chain100", "`1+2+...+100`",
	    chain(100), 0, true, false };
	it[3] = (struct item){ "chain1000", "`1+2+...+1000`",
	    chain(1000), 0, true, false };
	sbuf_adds(&b, "sum([");
	for (i = 1; i <= 1000; i++)
		sbuf_addf(&b, i > 1 ? ", %u" : "%u", i);
	sbuf_adds(&b, "])");
	it[4] = (struct item){ "sum1000", "`sum([1, ..., 1000])`",
	    sbuf_take(&b), 0, true, false };
	it[5] = (struct item){ "escape", "escape `" ESCAPE "`",
	    xstrdup(ESCAPE), 0, true, false };
	it[6] = (struct item){ "chain1mb", "`1+1+...+1`, 1 MiB",
	    filler(ONE_MB - 1, false), 0, false, true };
	it[7] = (struct item){ "list1mb", "`[1,1,...,1]`, 1 MiB",
	    filler(ONE_MB - 1, true), 0, false, true };
	/* The 1 MiB inputs' own shapes at 4 KiB: what "linear" compares
	 * them with (a 1000-term chain has half their tokens per byte). */
	it[8] = (struct item){ "chain4k", "`1+1+...+1`, 4 KiB",
	    filler(4095, false), 0, false, false };
	it[9] = (struct item){ "list4k", "`[1,1,...,1]`, 4 KiB",
	    filler(4095, true), 0, false, false };
	for (k = 0; k < NITEMS; k++)
		it[k].len = strlen(it[k].src);
}

/* ---- formatting ---- */

/* A time in seconds, in the unit that suits it. */
static const char *
fmt_time(char *buf, size_t n, double s)
{
	if (isnan(s))
		snprintf(buf, n, "—");
	else if (s < 0) {
		char pos[32];
		snprintf(buf, n, "−%s", fmt_time(pos, sizeof pos, -s));
	} else if (s < 10e-6)
		snprintf(buf, n, "%.2f µs", s * 1e6);
	else if (s < 1e-3)
		snprintf(buf, n, "%.1f µs", s * 1e6);
	else if (s < 1.0)
		snprintf(buf, n, "%.2f ms", s * 1e3);
	else
		snprintf(buf, n, "%.2f s", s);
	return buf;
}

static const char *
fmt_ratio(char *buf, size_t n, double r)
{
	if (isnan(r) || isinf(r))
		snprintf(buf, n, "—");
	else if (r >= 10)
		snprintf(buf, n, "%.0fx", r);
	else
		snprintf(buf, n, "%.2fx", r);
	return buf;
}

/* ---- the Python anchors ---- */

#define NANCHORS 3
static const char *const anchor_names[NANCHORS] = {
	"essay", "simpleeval", "asteval"
};
static const char *const anchor_labels[NANCHORS] = {
	"essay's `ast` walk + `eval`", "simpleeval", "asteval"
};

struct anchor_cell {
	bool	 have;
	char	 status[48];	/* "ok" or the exception class */
	double	 median;	/* seconds */
};

struct anchors {
	bool		 ran;
	char		 why[256];	/* when not ran */
	char		 missing[NANCHORS][160];	/* per anchor, when missing */
	struct anchor_cell cell[NANCHORS][NITEMS];
	double		 wall;	/* how long the Python run took */
};

static int
anchor_index(const char *name)
{
	int i;
	for (i = 0; i < NANCHORS; i++)
		if (strcmp(anchor_names[i], name) == 0)
			return i;
	return -1;
}

static void
run_anchors(const struct options *o, const struct item *items, size_t nitems,
    struct anchors *an)
{
	char *in = NULL, *out = NULL, *err = NULL, *text = NULL, *line, *save;
	char reps[16];
	FILE *f;
	struct run r;
	size_t k;

	memset(an, 0, sizeof *an);
	if (!path_executable(o->python)) {
		snprintf(an->why, sizeof an->why, "%s not installed",
		    o->python);
		return;
	}
	if (access(o->anchors, R_OK) != 0) {
		snprintf(an->why, sizeof an->why, "%s not found", o->anchors);
		return;
	}
	in = temp_file("corpus");
	out = temp_file("anchors");
	err = temp_file("anchors-err");
	if (in == NULL || out == NULL || err == NULL ||
	    (f = fopen(in, "w")) == NULL) {
		snprintf(an->why, sizeof an->why, "cannot make temporary files");
		goto done;
	}
	for (k = 0; k < nitems; k++)
		if (items[k].to_python)
			fprintf(f, "%s\t%s\n", items[k].name, items[k].src);
	fclose(f);
	snprintf(reps, sizeof reps, "%d", o->reps);
	{
		char *argv[] = { (char *)o->python, (char *)o->anchors,
		    "--bench", "--reps", reps, NULL };
		if (!spawn_run(argv, in, out, err, &r) || !r.ok) {
			char *e = slurp(err, NULL);
			snprintf(an->why, sizeof an->why, "anchors.py failed: %.200s",
			    e ? e : "cannot run");
			free(e);
			goto done;
		}
		an->wall = r.wall;
	}
	an->ran = true;
	text = slurp(out, NULL);
	for (line = strtok_r(text ? text : "", "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char *f1 = line, *f2, *f3, *f4;
		int ai;
		if ((f2 = strchr(f1, '\t')) == NULL)
			continue;
		*f2++ = '\0';
		if ((f3 = strchr(f2, '\t')) == NULL)
			continue;
		*f3++ = '\0';
		if ((f4 = strchr(f3, '\t')) == NULL)
			continue;
		*f4++ = '\0';
		if ((ai = anchor_index(f1)) < 0)
			continue;
		if (strcmp(f3, "missing") == 0) {
			snprintf(an->missing[ai], sizeof an->missing[ai],
			    "python3-%s not installed (%s)", f1, f4);
			continue;
		}
		for (k = 0; k < NITEMS; k++)
			if (strcmp(items[k].name, f2) == 0) {
				struct anchor_cell *c = &an->cell[ai][k];
				c->have = true;
				snprintf(c->status, sizeof c->status, "%s", f3);
				c->median = strtod(f4, NULL) * 1e-6;
			}
	}
done:
	if (in)
		unlink(in);
	if (out)
		unlink(out);
	if (err)
		unlink(err);
	free(in);
	free(out);
	free(err);
	free(text);
}

/* ---- whole processes ---- */

struct procstat {
	bool		 ran;
	char		 why[256];
	struct samples	 wall;
	struct samples	 cpu;		/* the child's user + system */
	long		 maxrss_kb;	/* the largest ru_maxrss seen */
	long		 peak_kb;	/* traced VmHWM; -1 unknown */
	char		 outcome[96];	/* the tail of the last record */
	size_t		 records;	/* lines of output */
};

static void
proc_note(struct procstat *p, const struct run *r)
{
	samples_add(&p->wall, r->wall);
	samples_add(&p->cpu, r->cpu);
	if (r->maxrss_kb > p->maxrss_kb)
		p->maxrss_kb = r->maxrss_kb;
}

/* The outcome of the last trace line in a file: what follows " -> ". */
static void
last_outcome(const char *path, struct procstat *p)
{
	size_t len, i;
	char *text = slurp(path, &len);
	const char *last, *arrow;

	p->records = 0;
	p->outcome[0] = '\0';
	if (text == NULL)
		return;
	for (i = 0; i < len; i++)
		if (text[i] == '\n')
			p->records++;
	while (len > 0 && text[len - 1] == '\n')
		text[--len] = '\0';
	last = strrchr(text, '\n');
	last = last ? last + 1 : text;
	arrow = strstr(last, "' -> ");
	if (arrow == NULL)
		arrow = strstr(last, " -> ");
	else
		arrow++;
	last = arrow ? arrow + 4 : last;
	snprintf(p->outcome, sizeof p->outcome, "%.60s%s", last,
	    strlen(last) > 60 ? "..." : "");
	free(text);
}

/*
 * Run argv reps more times, stdin from in; the first call on *p runs it
 * once more first, unrecorded, to warm the caches, and ends by tracing
 * one more run for its peak RSS.  A failed run marks *p as not run.
 */
static void
proc_measure(char *const argv[], const char *in, int reps, struct procstat *p)
{
	char *out = temp_file("out");
	bool first = p->wall.n == 0 && p->why[0] == '\0';
	struct run r;
	int i;

	if (out == NULL) {
		snprintf(p->why, sizeof p->why, "cannot make a temporary file");
		p->ran = false;
		return;
	}
	for (i = first ? -1 : 0; i < reps; i++) {
		if (!spawn_run(argv, in, out, NULL, &r) || !r.ok) {
			snprintf(p->why, sizeof p->why, "%s failed (status %d)",
			    argv[0], r.status);
			p->ran = false;
			break;
		}
		p->ran = true;
		if (i >= 0)
			proc_note(p, &r);
	}
	if (p->ran && first) {
		last_outcome(out, p);
		p->peak_kb = spawn_peak_rss(argv, in);
	}
	unlink(out);
	free(out);
}

/* Peak RSS in MiB: traced when that worked, else ru_maxrss (which
 * cannot read below the spawner's own). */
static double
peak_mib(const struct procstat *p)
{
	return (p->peak_kb > 0 ? p->peak_kb : p->maxrss_kb) / 1024.0;
}

/* Write n copies of line (plus '\n') to a new temporary file. */
static char *
lines_file(const char *tag, const char *line, size_t n)
{
	char *path = temp_file(tag);
	FILE *f;
	size_t i;

	if (path == NULL || (f = fopen(path, "w")) == NULL) {
		free(path);
		return NULL;
	}
	for (i = 0; i < n; i++)
		fprintf(f, "%s\n", line);
	fclose(f);
	return path;
}

/* ---- --state: six 16 MB writes ---- */

struct statecost {
	bool		 ran;
	char		 why[128];
	struct samples	 wall;
	long		 maxrss_kb;
	double		 disk_mib;	/* DIR after a run */
	size_t		 written;	/* "wrote" records of the last run */
};

static double du_bytes;

static int
du_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)path; (void)type; (void)ftw;
	du_bytes += (double)sb->st_blocks * 512;
	return 0;
}

static int
rm_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb; (void)type; (void)ftw;
	return remove(path);
}

/*
 * Six writes of 16 MB, each with other contents, through one --batch
 * --path=sandbox --state=DIR process, into a fresh DIR each run: the
 * wall time, the child's peak RSS and what DIR holds on disk after.
 */
static void
state_measure(const char *sandboxrepl, int reps, struct statecost *c)
{
	char *in = temp_file("state-in"), *out = temp_file("state-out");
	FILE *f = in ? fopen(in, "w") : NULL;
	int i;

	if (f == NULL || out == NULL) {
		snprintf(c->why, sizeof c->why, "cannot make a temporary file");
		goto out;
	}
	for (i = 0; i < STATE_WRITES; i++)
		fprintf(f, "write_file({'path': 'big%d.txt', 'text': '%c'*%d})\n",
		    i, 'a' + i, STATE_WRITE_BYTES);
	fclose(f);
	for (i = 0; i < reps; i++) {
		const char *tmp = getenv("TMPDIR");
		char *dir = xasprintf("%s/sandboxrepl-bench-state-XXXXXX",
		    tmp != NULL && *tmp != '\0' ? tmp : "/tmp"), *arg;
		struct run r;
		size_t len, k;
		char *text;
		if (mkdtemp(dir) == NULL) {
			snprintf(c->why, sizeof c->why, "cannot make a directory");
			free(dir);
			goto out;
		}
		arg = xasprintf("--state=%s/s", dir);
		{
			char *argv[] = { (char *)sandboxrepl, "--batch",
			    "--path=sandbox", arg, NULL };
			c->ran = spawn_run(argv, in, out, NULL, &r) && r.ok;
		}
		free(arg);
		du_bytes = 0;
		(void)nftw(dir, du_one, 16, FTW_PHYS);
		(void)nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
		free(dir);
		if (!c->ran) {
			snprintf(c->why, sizeof c->why, "%s failed (status %d)",
			    sandboxrepl, r.status);
			goto out;
		}
		samples_add(&c->wall, r.wall);
		if (r.maxrss_kb > c->maxrss_kb)
			c->maxrss_kb = r.maxrss_kb;
		c->disk_mib = du_bytes / (1 << 20);
		text = slurp(out, &len);
		c->written = 0;
		for (k = 0; text != NULL && k + 8 < len; k++)
			if (memcmp(text + k, "-> wrote", 8) == 0)
				c->written++;
		free(text);
	}
out:
	if (in)
		unlink(in);
	if (out)
		unlink(out);
	free(in);
	free(out);
}

/* ---- callgrind ---- */

static long long
callgrind_count(const struct options *o, bool step, char *why,
    size_t whylen)
{
	char self[4096], *err, *text, *p;
	ssize_t n;
	struct run r;
	long long count = -1;

	if (!path_executable(o->valgrind)) {
		snprintf(why, whylen, "valgrind not installed");
		return -1;
	}
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n < 0) {
		snprintf(why, whylen, "cannot find this program");
		return -1;
	}
	self[n] = '\0';
	err = temp_file("callgrind");
	{
		char *argv[] = { (char *)o->valgrind, "--tool=callgrind",
		    "--callgrind-out-file=/dev/null",
		    step ? "--toggle-collect=bench_step_once" :
		    "--toggle-collect=bench_essay_once", self,
		    step ? "--once-step" : "--once-essay", NULL };
		if (err == NULL || !spawn_run(argv, NULL, NULL, err, &r) ||
		    !r.ok) {
			snprintf(why, whylen, "valgrind failed");
			goto out;
		}
	}
	text = slurp(err, NULL);
	if (text && (p = strstr(text, "Collected :")) != NULL)
		count = strtoll(p + strlen("Collected :"), NULL, 10);
	else
		snprintf(why, whylen, "no count in callgrind's summary");
	free(text);
out:
	if (err)
		unlink(err);
	free(err);
	return count;
}

/* ---- the run ---- */

static void
usage(FILE *f)
{
	fprintf(f,
"usage: bench [--quick] [--sandboxrepl=PATH] [--anchors=PATH] [--python=PATH]\n"
"             [--valgrind=PATH] [--bwrap=PATH] [--runsc=PATH] [--worlds]\n"
"             [--batch]\n"
"Prints a Markdown table of sandboxrepl's costs next to its anchors.\n"
"--worlds: the CPython worlds' tables only.\n"
"--batch: `--batch --path=sandbox` end to end only, next to the essay's\n"
"         Python printing the same lines, and its instructions per input.\n");
}

static bool
opt_value(const char *arg, const char *name, const char **out)
{
	size_t n = strlen(name);
	if (strncmp(arg, name, n) != 0 || arg[n] != '=')
		return false;
	*out = arg + n + 1;
	return true;
}

/* name found in $PATH (heap, leaked: lives as long as the run), or
 * fallback. */
static const char *
in_path(const char *name, const char *fallback)
{
	const char *path = getenv("PATH");
	char *dirs, *dir, *save;

	if (path == NULL)
		return fallback;
	dirs = xstrdup(path);
	for (dir = strtok_r(dirs, ":", &save); dir != NULL;
	    dir = strtok_r(NULL, ":", &save)) {
		char *full = xasprintf("%s/%s", *dir ? dir : ".", name);
		if (path_executable(full)) {
			free(dirs);
			return full;
		}
		free(full);
	}
	free(dirs);
	return fallback;
}

static bool
parse_options(int argc, char **argv, struct options *o)
{
	int i;

	o->sandboxrepl = "./sandboxrepl";
	o->anchors = "bench/anchors.py";
	o->python = "/usr/bin/python3";
	o->valgrind = in_path("valgrind", "/usr/bin/valgrind");
	o->bwrap = in_path("bwrap", "/usr/bin/bwrap");
	o->runsc = in_path("runsc", "/usr/bin/runsc");
	o->reps = 31;
	o->big_reps = 9;
	o->proc_reps = 40;
	o->slow_reps = 5;
	o->essay_rounds = 4;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--quick") == 0) {
			o->reps = 7;
			o->big_reps = 3;
			o->proc_reps = 10;
			o->slow_reps = 3;
			o->essay_rounds = 1;
		} else if (strcmp(a, "--once-essay") == 0)
			o->once_essay = true;
		else if (strcmp(a, "--once-step") == 0)
			o->once_step = true;
		else if (strcmp(a, "--worlds") == 0)
			o->worlds_only = true;
		else if (strcmp(a, "--batch") == 0)
			o->batch_only = true;
		else if (strcmp(a, "--help") == 0) {
			usage(stdout);
			exit(0);
		} else if (!opt_value(a, "--sandboxrepl", &o->sandboxrepl) &&
		    !opt_value(a, "--anchors", &o->anchors) &&
		    !opt_value(a, "--python", &o->python) &&
		    !opt_value(a, "--valgrind", &o->valgrind) &&
		    !opt_value(a, "--bwrap", &o->bwrap) &&
		    !opt_value(a, "--runsc", &o->runsc)) {
			usage(stderr);
			return false;
		}
	}
	return true;
}

/* A target's verdict. */
static const char *
met(bool ok)
{
	return ok ? "**met**" : "**missed**";
}

/* --batch: the end-to-end batch rows alone (what batch.c measures). */
static int
batch_only(const struct options *o)
{
	struct batchstep b;
	char b1[32], b2[32], b3[32], why[128] = "";
	const char *slash = strrchr(o->anchors, '/');
	char *script = slash ? xasprintf("%.*s/essay_trace.py",
	    (int)(slash - o->anchors), o->anchors) : xstrdup("essay_trace.py");
	long long cg;

	batch_step_measure(o->sandboxrepl, o->python, script, o->valgrind,
	    BATCH_LINES, o->slow_reps, &b);
	free(script);
	cg = callgrind_count(o, false, why, sizeof why);
	printf("| measurement | sandboxrepl | compared with | ratio |\n"
	    "|---|---:|---|---:|\n");
	if (!b.ran) {
		printf("| `--batch --path=sandbox` end to end | skipped: %s | | "
		    "|\n", b.why);
		batch_step_free(&b);
		return 1;
	}
	printf("| `--batch --path=sandbox` end to end, per input (%zu essay "
	    "lines less one line, %zu runs each in turn) | %s | the essay's "
	    "Python printing the same line %s; the same bytes out: %s | %s "
	    "faster |\n", b.lines, b.c_long.n, fmt_time(b1, sizeof b1,
	    b.c_per), fmt_time(b2, sizeof b2, b.py_per), b.same ? "yes" :
	    "**no**", fmt_ratio(b3, sizeof b3, b.py_per / b.c_per));
	printf("| the same, whole runs of %zu lines (start-up included) | %s "
	    "| %s | %s |\n", b.lines, fmt_time(b1, sizeof b1,
	    samples_median(&b.c_long)), fmt_time(b2, sizeof b2,
	    samples_median(&b.py_long)), fmt_ratio(b3, sizeof b3,
	    samples_median(&b.py_long) / samples_median(&b.c_long)));
	if (b.ir_per >= 0)
		printf("| callgrind, instructions per input of `--batch "
		    "--path=sandbox` | %lld Ir | essay parse + check + "
		    "evaluate %lld Ir | %s |\n", b.ir_per, cg, cg > 0 ?
		    fmt_ratio(b1, sizeof b1, (double)b.ir_per / (double)cg) :
		    "—");
	else
		printf("| callgrind per input of `--batch` | skipped: %s | | "
		    "|\n", b.ir_why);
	printf("\n| target | measured | verdict |\n|---|---|---|\n"
	    "| ≥ 30x the essay's Python printing the same trace line | %s "
	    "| %s |\n", fmt_ratio(b1, sizeof b1, b.py_per / b.c_per),
	    met(b.same && b.py_per / b.c_per >= 30));
	batch_step_free(&b);
	return 0;
}

int
main(int argc, char **argv)
{
	struct options o;
	struct item items[NITEMS];
	struct evalcost cost[NITEMS];
	struct anchors an;
	struct inproc *ip;
	struct procstat one_e = { 0 }, one_true = { 0 }, one_py[NANCHORS];
	struct procstat one_world = { 0 };
	struct procstat batch = { 0 }, big[2];
	struct batchstep bstep;
	struct statecost state = { 0 };
	struct procstat jail_e = { 0 }, sandbox_e1 = { 0 }, bwrap = { 0 };
	struct samples jail = { 0 }, jail_big = { 0 };
	struct samples fn_netns = { 0 }, fn_up = { 0 }, fn_down = { 0 };
	char fakenet_why[300] = "";
	bool fakenet_ok;
	int essay_python_runs = 1;
	double jail_steps[JAIL_STEP_COUNT];
	char jail_why[300] = "", cg_why[128] = "";
	char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
	bool jail_ok;
	long long cg, cg_step;
	double c_essay, fastest = NAN, t;
	int fastest_i = -1, i;
	size_t k;
	char *batch_in, *big_in[2];

	/* Inside gVisor's sandbox this program is a world's worker (the
	 * gvisor rows below start it there): that, and nothing else. */
	world_worker_main(argc, argv);
	if (!parse_options(argc, argv, &o))
		return 2;
	if (o.once_essay || o.once_step) {
		ip = inproc_new();
		inproc_essay_warm(ip);
		if (o.once_essay)
			bench_essay_once(ip);
		else
			bench_step_once(ip);
		inproc_free(ip);
		return 0;
	}
	if (o.worlds_only) {
		bench_worlds(o.bwrap, o.runsc, o.proc_reps, o.slow_reps);
		return 0;
	}
	if (o.batch_only)
		return batch_only(&o);
	memset(cost, 0, sizeof cost);
	memset(one_py, 0, sizeof one_py);
	memset(big, 0, sizeof big);
	make_corpus(items);
	if (!path_executable(o.sandboxrepl)) {
		fprintf(stderr, "bench: %s: not built\n", o.sandboxrepl);
		return 1;
	}

	/*
	 * Whole processes first, while this process is small: fork() (and
	 * so jail_run()) costs more the bigger the caller is.
	 */
	fprintf(stderr, "bench: one-shot processes...\n");
	for (i = 0; i < o.proc_reps; i++) {
		/* Interleaved, so that both see the same machine. */
		/* The C program's own start-up: the unsafe path on the
		 * model.  With a CPython world it is another row: the
		 * zygote's CPython start and a world's build. */
		char *a_e[] = { (char *)o.sandboxrepl, "--engine=model",
		    "-e", ESSAY, NULL };
		char *a_w[] = { (char *)o.sandboxrepl, "-e", ESSAY, NULL };
		char *a_t[] = { "/bin/true", NULL };
		proc_measure(a_e, NULL, 1, &one_e);
		proc_measure(a_w, NULL, 1, &one_world);
		proc_measure(a_t, NULL, 1, &one_true);
	}
	for (i = 0; i < NANCHORS; i++) {
		char *a_p[] = { (char *)o.python, (char *)o.anchors,
		    "--once", (char *)anchor_names[i], ESSAY, NULL };
		if (!path_executable(o.python)) {
			snprintf(one_py[i].why, sizeof one_py[i].why,
			    "%s not installed", o.python);
			continue;
		}
		proc_measure(a_p, NULL, o.proc_reps / 4 + 1, &one_py[i]);
		if (!one_py[i].ran && i > 0)
			snprintf(one_py[i].why, sizeof one_py[i].why,
			    "python3-%s not installed", anchor_names[i]);
	}

	fprintf(stderr, "bench: batch and the 1 MiB inputs...\n");
	batch_in = lines_file("batch", ESSAY, BATCH_LINES);
	{
		char *a_b[] = { (char *)o.sandboxrepl, "--batch",
		    "--path=sandbox", "--budget=1000000", NULL };
		if (batch_in)
			proc_measure(a_b, batch_in, o.slow_reps, &batch);
		for (k = 0; k < 2; k++) {
			big_in[k] = lines_file(k ? "list" : "chain",
			    items[6 + k].src, 1);
			if (big_in[k])
				proc_measure(a_b, big_in[k], o.slow_reps,
				    &big[k]);
			if (big_in[k])
				unlink(big_in[k]);
			free(big_in[k]);
		}
	}
	if (batch_in)
		unlink(batch_in);
	free(batch_in);
	fprintf(stderr, "bench: --batch end to end, next to the essay's "
	    "Python printing the same lines...\n");
	{
		/* bench/essay_trace.py, beside anchors.py */
		const char *slash = strrchr(o.anchors, '/');
		char *script = slash ? xasprintf("%.*s/essay_trace.py",
		    (int)(slash - o.anchors), o.anchors) :
		    xstrdup("essay_trace.py");
		batch_step_measure(o.sandboxrepl, o.python, script, o.valgrind,
		    BATCH_LINES, o.slow_reps, &bstep);
		free(script);
	}
	fprintf(stderr, "bench: six 16 MB writes with --state...\n");
	state_measure(o.sandboxrepl, o.slow_reps, &state);

	fprintf(stderr, "bench: the jail...\n");
	{
		/*
		 * jail_run() and bwrap in alternating blocks, not run by
		 * run: each leaves a network namespace for the kernel to
		 * tear down in the background, and jail_run() right after a
		 * bwrap launch measured 2.5x slower than in a row of its own.
		 */
		struct samples warm = { 0 };
		char *a_w[] = { (char *)o.bwrap, "--unshare-all",
		    "--die-with-parent", "--ro-bind", "/", "/", "/bin/true",
		    NULL };
		bool have_bwrap = path_executable(o.bwrap);
		int block, half = o.proc_reps / 2 > 0 ? o.proc_reps / 2 : 1;
		jail_ok = inproc_jail(1, &warm, jail_why, sizeof jail_why);
		samples_free(&warm);
		for (block = 0; block < 2; block++) {
			/* Each block starts on a settled machine: the one
			 * before it leaves its namespaces to a kernel worker
			 * that shares these two cores for a while. */
			usleep(BLOCK_SETTLE_US);
			if (jail_ok)
				jail_ok = inproc_jail(half, &jail, jail_why,
				    sizeof jail_why);
			usleep(BLOCK_SETTLE_US);
			if (have_bwrap)
				proc_measure(a_w, NULL, half, &bwrap);
		}
		/* The breakdown last: its hundreds of refused runs leave
		 * that many namespaces to tear down, and the jail rows
		 * measured just after them ran up to a fifth slower. */
		if (jail_ok)
			inproc_jail_steps(o.proc_reps / 2 + 1, jail_steps);
		if (!have_bwrap)
			snprintf(bwrap.why, sizeof bwrap.why,
			    "skipped: bubblewrap not installed");
	}
	{
		char *a_j[] = { (char *)o.sandboxrepl, "-e", "1",
		    "--path=jail", NULL };
		char *a_s[] = { (char *)o.sandboxrepl, "-e", "1",
		    "--path=sandbox", NULL };
		proc_measure(a_j, NULL, 1, &jail_e);
		if (jail_e.ran && strcmp(jail_e.outcome, "1") != 0) {
			snprintf(jail_e.why, sizeof jail_e.why,
			    "`--path=jail` answers \"%s\"", jail_e.outcome);
			jail_e.ran = false;
		} else if (jail_e.ran) {
			samples_free(&jail_e.wall);
			for (i = 0; i < o.proc_reps; i++) {
				proc_measure(a_j, NULL, 1, &jail_e);
				proc_measure(a_s, NULL, 1, &sandbox_e1);
			}
		}
	}

	/*
	 * Per evaluation, in process.  First a pause: the jail runs above
	 * leave a hundred network namespaces that the kernel tears down in
	 * a worker thread after they have returned, and while it does, the
	 * sub-microsecond rows measured up to 2x slower (0.54-0.70 against
	 * 0.31 us for the essay in alternate runs; steady 0.31 us pinned).
	 */
	sleep(SETTLE_SECONDS);
	fprintf(stderr, "bench: per-evaluation costs, in process...\n");
	ip = inproc_new();
	for (k = 0; k < NITEMS; k++)
		inproc_measure(ip, &items[k], items[k].big ? o.big_reps :
		    o.reps, &cost[k]);

	/* The Python anchors, then the essay in C once more. */
	fprintf(stderr, "bench: the Python anchors...\n");
	run_anchors(&o, items, NITEMS, &an);
	inproc_measure(ip, &items[0], o.reps, &cost[0]);
	/*
	 * The headline ratio: the essay expression alone, Python and C in
	 * turn, a few more rounds; each anchor's figure becomes the median of
	 * its runs' medians, C's the median of all its samples.
	 */
	if (an.ran) {
		struct samples per[NANCHORS];
		int round;
		memset(per, 0, sizeof per);
		for (i = 0; i < NANCHORS; i++)
			if (an.cell[i][0].have)
				samples_add(&per[i], an.cell[i][0].median);
		for (round = 0; round < o.essay_rounds; round++) {
			struct anchors again;
			run_anchors(&o, items, 1, &again);
			for (i = 0; i < NANCHORS; i++)
				if (again.ran && again.cell[i][0].have)
					samples_add(&per[i],
					    again.cell[i][0].median);
			inproc_measure(ip, &items[0], o.reps, &cost[0]);
		}
		for (i = 0; i < NANCHORS; i++) {
			if (per[i].n > 0)
				an.cell[i][0].median = samples_median(&per[i]);
			samples_free(&per[i]);
		}
		essay_python_runs = 1 + o.essay_rounds;
	}

	/* The jail again, from a caller holding 64 MiB more heap. */
	if (jail_ok)
		(void)inproc_jail_heavy(o.slow_reps * 2, HEAVY_MIB, &jail_big,
		    jail_why, sizeof jail_why);
	/* A replica world's fake internet, up and down. */
	fakenet_ok = inproc_fakenet(o.proc_reps / 2, &fn_netns, &fn_up,
	    &fn_down, fakenet_why, sizeof fakenet_why);

	/* 5. callgrind */
	fprintf(stderr, "bench: callgrind...\n");
	cg = callgrind_count(&o, false, cg_why, sizeof cg_why);
	cg_step = cg < 0 ? -1 : callgrind_count(&o, true, cg_why,
	    sizeof cg_why);

	/* ---- the tables ---- */
	c_essay = samples_median(&cost[0].total);
	for (i = 0; i < NANCHORS; i++)
		if (an.ran && an.cell[i][0].have &&
		    strcmp(an.cell[i][0].status, "ok") == 0 &&
		    (fastest_i < 0 || an.cell[i][0].median < fastest)) {
			fastest = an.cell[i][0].median;
			fastest_i = i;
		}

	printf("## Per evaluation on the sandbox path (in process, median of "
	    "%d samples)\n\n", o.reps);
	printf("| input | bytes | outcome | parse | check | evaluate | "
	    "parse+check+evaluate | per byte | whole step (record, trace) |");
	for (i = 0; i < NANCHORS; i++)
		printf(" %s |", anchor_labels[i]);
	printf(" fastest anchor / sandboxrepl |\n");
	printf("|---|---:|---|---:|---:|---:|---:|---:|---:|");
	for (i = 0; i < NANCHORS; i++)
		printf("---:|");
	printf("---:|\n");
	for (k = 0; k < NITEMS; k++) {
		struct evalcost *c = &cost[k];
		double tot = samples_median(&c->total);
		double best = NAN;
		printf("| %s | %zu | `%s` | %s | %s | %s | %s | %.1f ns | %s |",
		    items[k].label, items[k].len, c->outcome,
		    fmt_time(b1, sizeof b1, samples_median(&c->parse)),
		    fmt_time(b2, sizeof b2, samples_median(&c->check)),
		    c->checked_ok ? fmt_time(b3, sizeof b3,
		    samples_median(&c->eval)) : "— (blocked)",
		    fmt_time(b4, sizeof b4, tot),
		    tot * 1e9 / (double)items[k].len,
		    fmt_time(b5, sizeof b5, samples_median(&c->step)));
		for (i = 0; i < NANCHORS; i++) {
			const struct anchor_cell *ac = &an.cell[i][k];
			if (!items[k].to_python)
				printf(" not run |");
			else if (!ac->have)
				printf(" skipped |");
			else if (strcmp(ac->status, "ok") == 0) {
				printf(" %s |", fmt_time(b6, sizeof b6,
				    ac->median));
				if (isnan(best) || ac->median < best)
					best = ac->median;
			} else
				printf(" %s after %s |", ac->status,
				    fmt_time(b6, sizeof b6, ac->median));
		}
		printf(" %s |\n", fmt_ratio(b1, sizeof b1, best / tot));
	}
	if (!an.ran)
		printf("\nPython anchors skipped: %s.\n", an.why);
	for (i = 0; i < NANCHORS; i++)
		if (an.missing[i][0])
			printf("\n%s skipped: %s.\n", anchor_labels[i],
			    an.missing[i]);
	printf("\nPython anchors: `%s %s --bench`, Python's default recursion "
	    "limit; the 1 MiB inputs are not sent to them.  The essay row is "
	    "the median of %d Python runs taken in turn with %zu C samples.\n",
	    o.python, o.anchors, essay_python_runs, cost[0].total.n);

	printf("\n## Processes, batch and jail (median of %d runs unless "
	    "said)\n\n", o.proc_reps);
	printf("| measurement | sandboxrepl | compared with | ratio |\n");
	printf("|---|---:|---|---:|\n");
	printf("| one-shot `sandboxrepl --engine=model -e '%s'`, wall | %s | "
	    "`/bin/true` %s | %s |\n", ESSAY,
	    fmt_time(b1, sizeof b1, samples_median(&one_e.wall)),
	    fmt_time(b2, sizeof b2, samples_median(&one_true.wall)),
	    fmt_ratio(b3, sizeof b3, samples_median(&one_e.wall) /
	    samples_median(&one_true.wall)));
	printf("| the same with the unsafe path's CPython world (the "
	    "default), wall | %s | `/bin/true` %s | %s |\n",
	    fmt_time(b1, sizeof b1, samples_median(&one_world.wall)),
	    fmt_time(b2, sizeof b2, samples_median(&one_true.wall)),
	    fmt_ratio(b3, sizeof b3, samples_median(&one_world.wall) /
	    samples_median(&one_true.wall)));
	printf("| one-shot, CPU (user + system) | %s | `/bin/true` %s | %s |\n",
	    fmt_time(b1, sizeof b1, samples_median(&one_e.cpu)),
	    fmt_time(b2, sizeof b2, samples_median(&one_true.cpu)),
	    fmt_ratio(b3, sizeof b3, samples_median(&one_e.cpu) /
	    samples_median(&one_true.cpu)));
	printf("| one-shot, peak RSS%s | %.1f MiB | `/bin/true` %.1f MiB | "
	    "%s |\n", one_e.peak_kb > 0 ? "" : " (ru_maxrss: reads no lower "
	    "than this spawner's)", peak_mib(&one_e), peak_mib(&one_true),
	    fmt_ratio(b1, sizeof b1, peak_mib(&one_e) / peak_mib(&one_true)));
	for (i = 0; i < NANCHORS; i++) {
		if (!one_py[i].ran) {
			printf("| one-shot %s CLI | | skipped: %s | |\n",
			    anchor_labels[i], one_py[i].why[0] ? one_py[i].why :
			    an.why);
			continue;
		}
		t = samples_median(&one_py[i].wall);
		printf("| one-shot %s CLI (%zu runs), wall | %s | `python3 "
		    "anchors.py --once %s` %s | %s faster |\n",
		    anchor_labels[i], one_py[i].wall.n,
		    fmt_time(b1, sizeof b1, samples_median(&one_e.wall)),
		    anchor_names[i], fmt_time(b2, sizeof b2, t),
		    fmt_ratio(b3, sizeof b3, t / samples_median(&one_e.wall)));
	}
	if (batch.ran) {
		t = samples_median(&batch.wall);
		printf("| `--batch --path=sandbox`, %d essay lines (%zu runs) | "
		    "%.0f evaluations/s, %s per line | %zu records | |\n",
		    BATCH_LINES, batch.wall.n, BATCH_LINES / t,
		    fmt_time(b1, sizeof b1, t / BATCH_LINES), batch.records);
		printf("| `--batch`, peak RSS | %.1f MiB | target 8 MiB | |\n",
		    peak_mib(&batch));
	} else
		printf("| `--batch` | skipped: %s | | |\n", batch.why);
	if (bstep.ran)
		printf("| `--batch --path=sandbox` end to end, per input (%zu "
		    "essay lines less one line, %zu runs each in turn) | %s | "
		    "the essay's Python printing the same line "
		    "(`essay_trace.py`) %s; the same bytes out: %s | %s faster "
		    "|\n", bstep.lines, bstep.c_long.n,
		    fmt_time(b1, sizeof b1, bstep.c_per),
		    fmt_time(b2, sizeof b2, bstep.py_per),
		    bstep.same ? "yes" : "**no**",
		    fmt_ratio(b3, sizeof b3, bstep.py_per / bstep.c_per));
	else
		printf("| `--batch --path=sandbox` end to end | skipped: %s | | "
		    "|\n", bstep.why);
	if (bstep.ir_per >= 0)
		printf("| callgrind, instructions per input of `--batch "
		    "--path=sandbox` (the whole process: the line read, the "
		    "step, its record and trace line written) | %lld Ir | "
		    "essay parse + check + evaluate %lld Ir | %s |\n",
		    bstep.ir_per, cg, cg > 0 ? fmt_ratio(b1, sizeof b1,
		    (double)bstep.ir_per / (double)cg) : "—");
	else
		printf("| callgrind, instructions per input of `--batch` | "
		    "skipped: %s | | |\n", bstep.ran ? bstep.ir_why :
		    bstep.why);
	for (k = 0; k < 2; k++) {
		if (!big[k].ran) {
			printf("| %s through `--batch` | skipped: %s | | |\n",
			    items[6 + k].label, big[k].why);
			continue;
		}
		printf("| %s through `--batch` (%zu runs), time to record | %s "
		    "(CPU %s) | answer `%s` | |\n", items[6 + k].label,
		    big[k].wall.n,
		    fmt_time(b1, sizeof b1, samples_median(&big[k].wall)),
		    fmt_time(b2, sizeof b2, samples_median(&big[k].cpu)),
		    big[k].outcome);
		printf("| %s through `--batch`, peak RSS | %.1f MiB | | |\n",
		    items[6 + k].label, peak_mib(&big[k]));
	}
	if (state.ran) {
		printf("| `--state`: %d writes of 16 MB (`--batch --path=sandbox`"
		    ", %zu runs), wall | %s | issue 14 measured 33 s | |\n",
		    STATE_WRITES, state.wall.n,
		    fmt_time(b1, sizeof b1, samples_median(&state.wall)));
		printf("| `--state`: the same, DIR on disk after / peak RSS | "
		    "%.0f MiB / %.0f MiB (%zu written) | issue 14: 366 MiB / "
		    "1.5 GiB; target under 120 MB on disk | |\n",
		    state.disk_mib, state.maxrss_kb / 1024.0, state.written);
	} else
		printf("| `--state`, six 16 MB writes | skipped: %s | | |\n",
		    state.why);
	if (jail_ok) {
		printf("| `jail_run()` of a trivial function, per evaluation | "
		    "%s | `bwrap --unshare-all --die-with-parent --ro-bind / / "
		    "/bin/true` %s | %s |\n",
		    fmt_time(b1, sizeof b1, samples_median(&jail)),
		    bwrap.ran ? fmt_time(b2, sizeof b2,
		    samples_median(&bwrap.wall)) : bwrap.why,
		    fmt_ratio(b3, sizeof b3, samples_median(&jail) /
		    samples_median(&bwrap.wall)));
		/* On a busy machine the fastest run is the steadier sign of
		 * what the set-up itself costs. */
		printf("| the same, fastest of %zu runs | %s | bwrap %s | %s |\n",
		    jail.n, fmt_time(b1, sizeof b1, samples_min(&jail)),
		    bwrap.ran ? fmt_time(b2, sizeof b2,
		    samples_min(&bwrap.wall)) : "—",
		    bwrap.ran ? fmt_ratio(b3, sizeof b3, samples_min(&jail) /
		    samples_min(&bwrap.wall)) : "—");
	} else
		printf("| `jail_run()` of a trivial function | skipped: %s | "
		    "bwrap %s | |\n", jail_why, bwrap.ran ? fmt_time(b2,
		    sizeof b2, samples_median(&bwrap.wall)) : bwrap.why);
	if (jail_ok && jail_big.n > 0)
		printf("| `jail_run()` from a caller holding %u MiB more heap "
		    "in 16 KiB blocks (%zu runs) | %s | from a small caller %s "
		    "| %s |\n", HEAVY_MIB, jail_big.n, fmt_time(b1, sizeof b1,
		    samples_median(&jail_big)), fmt_time(b2, sizeof b2,
		    samples_median(&jail)), fmt_ratio(b3, sizeof b3,
		    samples_median(&jail_big) / samples_median(&jail)));
	if (jail_e.ran)
		printf("| `sandboxrepl -e 1 --path=jail`, wall | %s | "
		    "`--path=sandbox` %s | +%s |\n",
		    fmt_time(b1, sizeof b1, samples_median(&jail_e.wall)),
		    fmt_time(b2, sizeof b2, samples_median(&sandbox_e1.wall)),
		    fmt_time(b3, sizeof b3, samples_median(&jail_e.wall) -
		    samples_median(&sandbox_e1.wall)));
	else
		printf("| `sandboxrepl -e 1 --path=jail` | skipped: %s | | |\n",
		    jail_e.why);
	if (fakenet_ok)
		printf("| `fakenet_up()` + `fakenet_down()`: lo, AnyIP routes, "
		    "dnsmasq answering, sink ready, then both killed (%zu runs) "
		    "| %s + %s | `unshare(CLONE_NEWNET)` before it %s | |\n",
		    fn_up.n, fmt_time(b1, sizeof b1, samples_median(&fn_up)),
		    fmt_time(b2, sizeof b2, samples_median(&fn_down)),
		    fmt_time(b3, sizeof b3, samples_median(&fn_netns)));
	else
		printf("| `fakenet_up()` + `fakenet_down()` | skipped: %s | | "
		    "|\n", fakenet_why);
	if (cg >= 0)
		printf("| callgrind, instructions for one essay parse + check + "
		    "evaluate | %lld Ir | whole session step (record, trace "
		    "line) %lld Ir | |\n", cg, cg_step);
	else
		printf("| callgrind instruction count | skipped: %s | | |\n",
		    cg_why);

	/* ---- the targets ---- */
	printf("\n## Targets\n\n| target | measured | verdict |\n"
	    "|---|---|---|\n");
	if (fastest_i >= 0)
		printf("| ≥ 40x faster than the fastest Python anchor on the "
		    "essay expression | %s: %s vs sandboxrepl %s = %s | %s |\n",
		    anchor_labels[fastest_i],
		    fmt_time(b1, sizeof b1, fastest),
		    fmt_time(b2, sizeof b2, c_essay),
		    fmt_ratio(b3, sizeof b3, fastest / c_essay),
		    met(fastest / c_essay >= 40));
	else
		printf("| ≥ 40x faster than the fastest Python anchor | "
		    "skipped: %s | — |\n", an.ran ? "no anchor answered" :
		    an.why);
	{
		double pb100 = samples_median(&cost[2].total) /
		    (double)items[2].len;
		double pb1000 = samples_median(&cost[3].total) /
		    (double)items[3].len;
		double pbmb = samples_median(&cost[6].total) /
		    (double)items[6].len;
		double pblist = samples_median(&cost[7].total) /
		    (double)items[7].len;
		double pbc4k = samples_median(&cost[8].total) /
		    (double)items[8].len;
		double pbl4k = samples_median(&cost[9].total) /
		    (double)items[9].len;
		/* Growth of the cost per byte with size, each input against
		 * the same shape smaller: 100 -> 1000 terms, and 4 KiB -> 1 MiB
		 * (256x) of the chain and of the list. */
		double worst = fmax(fmax(pb1000 / pb100, pbmb / pbc4k),
		    pblist / pbl4k);
		printf("| cost linear in input size (per byte, each shape "
		    "against itself smaller) | 100 -> 1000 terms %.1f -> "
		    "%.1f ns; `1+1+...+1` 4 KiB -> 1 MiB %.1f -> %.1f ns; "
		    "`[1,1,...,1]` 4 KiB -> 1 MiB %.1f -> %.1f ns; worst "
		    "growth %.2fx | %s |\n", pb100 * 1e9, pb1000 * 1e9,
		    pbc4k * 1e9, pbmb * 1e9, pbl4k * 1e9, pblist * 1e9, worst,
		    met(worst <= 2.0));
	}
	printf("| the 1000-term chain works | `%s` | %s |\n", cost[3].outcome,
	    met(strcmp(cost[3].outcome, "500500") == 0));
	for (k = 0; k < 2; k++)
		if (big[k].ran)
			printf("| %s answered in < 100 ms (`--batch`) | %s "
			    "(CPU %s), `%s` | %s |\n", items[6 + k].label,
			    fmt_time(b1, sizeof b1,
			    samples_median(&big[k].wall)),
			    fmt_time(b2, sizeof b2,
			    samples_median(&big[k].cpu)), big[k].outcome,
			    met(samples_median(&big[k].wall) < 0.100));
	printf("| one-shot `-e` within 3x of `/bin/true` | %s |"
	    " %s |\n", fmt_ratio(b1, sizeof b1, samples_median(&one_e.wall) /
	    samples_median(&one_true.wall)),
	    met(samples_median(&one_e.wall) <= 3 *
	    samples_median(&one_true.wall)));
	if (bstep.ran)
		printf("| `--batch --path=sandbox` end to end ≥ 30x the essay's "
		    "Python printing the same trace line | %s (%s against %s "
		    "per input)%s | %s |\n", fmt_ratio(b1, sizeof b1,
		    bstep.py_per / bstep.c_per), fmt_time(b2, sizeof b2,
		    bstep.c_per), fmt_time(b3, sizeof b3, bstep.py_per),
		    bstep.same ? "" : "; the outputs differ",
		    met(bstep.same && bstep.py_per / bstep.c_per >= 30));
	else
		printf("| `--batch --path=sandbox` end to end ≥ 30x the essay's "
		    "Python | skipped: %s | — |\n", bstep.why);
	if (batch.ran)
		printf("| batch peak RSS ≤ 8 MiB | %.1f MiB | %s |\n",
		    peak_mib(&batch), met(peak_mib(&batch) <= 8.0));
	if (jail_ok) {
		printf("| jail overhead ≤ 2 ms per evaluation | median %s "
		    "(fastest run %s) | %s |\n",
		    fmt_time(b1, sizeof b1, samples_median(&jail)),
		    fmt_time(b2, sizeof b2, samples_min(&jail)),
		    met(samples_median(&jail) <= 0.002));
		/* For scale, not a target: the goal is the 2 ms
		 * above, set where bwrap launched in about 6 ms (JAIL.md). */
		if (bwrap.ran)
			printf("| for scale: a `bwrap` launch in the same run "
			    "(the issue's machines: about 6 ms) | jail_run() "
			    "%s of bwrap's %s | — |\n", fmt_ratio(b1, sizeof b1,
			    samples_median(&jail) /
			    samples_median(&bwrap.wall)),
			    fmt_time(b2, sizeof b2,
			    samples_median(&bwrap.wall)));
	}
	else
		printf("| jail overhead ≤ 2 ms | skipped: %s | — |\n",
		    jail_why);

	if (jail_ok) {
		int st;
		printf("\n## Where `jail_run()` spends its time\n\n"
		    "`jail_run()` told to fail at each set-up step in turn (the "
		    "`fail_at` test hook, %d rounds over all steps): the fastest "
		    "time until it has refused, which is every step before plus "
		    "the way back; the last row is the fastest whole run, so the "
		    "seccomp row's step includes fn and the result coming back.  "
		    "Each "
		    "run leaves namespaces for the kernel to tear down in the "
		    "background, which makes medians of neighbouring steps "
		    "differ by less than their noise.\n\n", o.proc_reps / 2 + 1);
		printf("| refused at | time to refusal | the step itself "
		    "(next row's time minus this one's) |\n|---|---:|---:|\n");
		for (st = JAIL_STEP_FORK + 1; st < JAIL_STEP_COUNT; st++) {
			double next = samples_min(&jail);
			int nx = st + 1;

			/* (the one step table's rows a world alone takes are
			 * no jail's) */
			if (jail_step_word(st, JAIL_SETUP_JAIL) == NULL)
				continue;
			while (nx < JAIL_STEP_COUNT &&
			    jail_step_word(nx, JAIL_SETUP_JAIL) == NULL)
				nx++;
			if (nx < JAIL_STEP_COUNT)
				next = jail_steps[nx];
			printf("| %s | %s | %s |\n", jail_step_name(st),
			    fmt_time(b1, sizeof b1, jail_steps[st]),
			    fmt_time(b2, sizeof b2, next - jail_steps[st]));
		}
		printf("| (none: fn runs, the result comes back) | %s | — |\n",
		    fmt_time(b1, sizeof b1, samples_min(&jail)));
	}

	bench_worlds(o.bwrap, o.runsc, o.proc_reps, o.slow_reps);
	fflush(stdout);
	batch_step_free(&bstep);
	inproc_free(ip);
	for (k = 0; k < NITEMS; k++) {
		free(items[k].src);
		samples_free(&cost[k].parse);
		samples_free(&cost[k].check);
		samples_free(&cost[k].eval);
		samples_free(&cost[k].total);
		samples_free(&cost[k].step);
	}
	return ferror(stdout) ? 1 : 0;
}
