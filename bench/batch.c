/*
 * batch.c -- `--batch --path=sandbox` end to end, one trace line per
 * input, next to the essay's own Python approach printing the same line.
 *
 * Both are whole processes reading the same file of essay lines and
 * writing one line per input to a file; the two outputs must be the same
 * bytes.  Each also runs on a file of one line, and per input is
 * (median of the long runs - median of the one-line runs) / (lines - 1):
 * start-up (CPython's is tens of milliseconds) is not an input's cost.
 * The runs alternate, so that both see the same machine.
 *
 * callgrind counts the whole process twice, on 1 and on 1 + CG_LINES
 * lines: the difference over CG_LINES is one input's instructions, all of
 * them (reading the line, the step, the record, the trace line, writing
 * it), a figure that does not move with the machine's load.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xalloc.h"

#include "batch.h"

#define ESSAY "round(sum(orders) / len(orders), 2)"
#define CG_LINES 2000

static char *
essay_file(size_t n)
{
	char *path = temp_file("batch-essay");
	FILE *f;
	size_t i;

	if (path == NULL || (f = fopen(path, "w")) == NULL) {
		free(path);
		return NULL;
	}
	for (i = 0; i < n; i++)
		fprintf(f, "%s\n", ESSAY);
	if (fclose(f) != 0) {
		unlink(path);
		free(path);
		return NULL;
	}
	return path;
}

/* callgrind's "Collected" for argv on stdin from in; -1 on failure. */
static long long
collected(const char *valgrind, const char *sandboxrepl, const char *in)
{
	char *err = temp_file("batch-cg"), *text, *p;
	long long n = -1;
	struct run r;
	char *argv[] = { (char *)valgrind, "--tool=callgrind",
	    "--callgrind-out-file=/dev/null", (char *)sandboxrepl, "--batch",
	    "--path=sandbox", "--budget=1000000", NULL };

	if (err == NULL)
		return -1;
	if (spawn_run(argv, in, NULL, err, &r) && r.ok &&
	    (text = slurp(err, NULL)) != NULL) {
		if ((p = strstr(text, "Collected :")) != NULL)
			n = strtoll(p + strlen("Collected :"), NULL, 10);
		free(text);
	}
	unlink(err);
	free(err);
	return n;
}

static bool
same_bytes(const char *a, const char *b)
{
	size_t la, lb;
	char *ta = slurp(a, &la), *tb = slurp(b, &lb);
	bool same = ta != NULL && tb != NULL && la == lb && la > 0 &&
	    memcmp(ta, tb, la) == 0;

	free(ta);
	free(tb);
	return same;
}

void
batch_step_measure(const char *sandboxrepl, const char *python,
    const char *script, const char *valgrind, size_t lines, int reps,
    struct batchstep *b)
{
	char *in_long = NULL, *in_one = NULL, *in_cg = NULL;
	char *out_c = temp_file("batch-c"), *out_py = temp_file("batch-py");
	char *c_argv[] = { (char *)sandboxrepl, "--batch", "--path=sandbox",
	    "--budget=1000000", NULL };
	char *py_argv[] = { (char *)python, (char *)script, NULL };
	struct run r;
	int i;

	memset(b, 0, sizeof *b);
	b->ir_per = -1;
	b->lines = lines;
	if (!path_executable(python)) {
		snprintf(b->why, sizeof b->why, "%s not installed", python);
		goto out;
	}
	if (access(script, R_OK) != 0) {
		snprintf(b->why, sizeof b->why, "%s not found", script);
		goto out;
	}
	in_long = essay_file(lines);
	in_one = essay_file(1);
	if (in_long == NULL || in_one == NULL || out_c == NULL ||
	    out_py == NULL) {
		snprintf(b->why, sizeof b->why, "cannot make temporary files");
		goto out;
	}
	/* a run of each first, unrecorded: the caches, and the outputs */
	if (!spawn_run(c_argv, in_long, out_c, NULL, &r) || !r.ok) {
		snprintf(b->why, sizeof b->why, "%s failed (status %d)",
		    sandboxrepl, r.status);
		goto out;
	}
	if (!spawn_run(py_argv, in_long, out_py, NULL, &r) || !r.ok) {
		snprintf(b->why, sizeof b->why, "%s failed (status %d)",
		    script, r.status);
		goto out;
	}
	b->same = same_bytes(out_c, out_py);
	for (i = 0; i < reps; i++) {
		if (!spawn_run(c_argv, in_long, NULL, NULL, &r) || !r.ok)
			break;
		samples_add(&b->c_long, r.wall);
		if (!spawn_run(py_argv, in_long, NULL, NULL, &r) || !r.ok)
			break;
		samples_add(&b->py_long, r.wall);
		if (!spawn_run(c_argv, in_one, NULL, NULL, &r) || !r.ok)
			break;
		samples_add(&b->c_one, r.wall);
		if (!spawn_run(py_argv, in_one, NULL, NULL, &r) || !r.ok)
			break;
		samples_add(&b->py_one, r.wall);
	}
	if (i < reps) {
		snprintf(b->why, sizeof b->why, "a run failed (status %d)",
		    r.status);
		goto out;
	}
	b->ran = true;
	b->c_per = (samples_median(&b->c_long) - samples_median(&b->c_one)) /
	    (double)(lines - 1);
	b->py_per = (samples_median(&b->py_long) -
	    samples_median(&b->py_one)) / (double)(lines - 1);

	if (!path_executable(valgrind)) {
		snprintf(b->ir_why, sizeof b->ir_why, "valgrind not installed");
		goto out;
	}
	in_cg = essay_file(1 + CG_LINES);
	{
		long long one = in_cg ? collected(valgrind, sandboxrepl,
		    in_one) : -1;
		long long many = one >= 0 ? collected(valgrind, sandboxrepl,
		    in_cg) : -1;
		if (many > one && one >= 0)
			b->ir_per = (many - one) / CG_LINES;
		else
			snprintf(b->ir_why, sizeof b->ir_why,
			    "valgrind failed");
	}
out:
	if (in_long)
		unlink(in_long);
	if (in_one)
		unlink(in_one);
	if (in_cg)
		unlink(in_cg);
	if (out_c)
		unlink(out_c);
	if (out_py)
		unlink(out_py);
	free(in_long);
	free(in_one);
	free(in_cg);
	free(out_c);
	free(out_py);
}

void
batch_step_free(struct batchstep *b)
{
	samples_free(&b->c_long);
	samples_free(&b->c_one);
	samples_free(&b->py_long);
	samples_free(&b->py_one);
}
