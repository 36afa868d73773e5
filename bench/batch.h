/*
 * batch.h -- `make bench`'s rows for `--batch --path=sandbox` end to end
 * (batch.c): one trace line per input next to the essay's own Python
 * approach printing the same line, and callgrind's instructions per
 * input of the whole step.
 */
#ifndef SANDBOXREPL_BENCH_BATCH_H
#define SANDBOXREPL_BENCH_BATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "bench.h"

struct batchstep {
	bool		 ran;
	char		 why[256];	/* when not ran */
	size_t		 lines;		/* the long run's lines */
	struct samples	 c_long, c_one;	/* sandboxrepl: wall, s */
	struct samples	 py_long, py_one;	/* essay_trace.py */
	double		 c_per, py_per;	/* per input, start-up taken out */
	bool		 same;		/* the two printed the same bytes */
	long long	 ir_per;	/* callgrind; -1 when not counted */
	char		 ir_why[128];
};

/*
 * sandboxrepl --batch --path=sandbox and script (bench/essay_trace.py
 * under python) on the same file of `lines` essay lines, then on one
 * line, reps times each in turn; then, with valgrind, the whole step's
 * instructions per input.
 */
void batch_step_measure(const char *sandboxrepl, const char *python,
    const char *script, const char *valgrind, size_t lines, int reps,
    struct batchstep *b);
void batch_step_free(struct batchstep *b);

#endif
