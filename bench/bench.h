/*
 * bench.h -- `make bench`: what the benchmark's files share.
 *
 * bench.c runs everything and prints the Markdown tables; inproc.c times
 * one evaluation inside this process (parse, check, evaluate, a whole
 * session step, jail_run); spawn.c times whole processes (sandboxrepl -e,
 * --batch, /bin/true, bwrap, the Python anchors, callgrind).  Nothing here
 * is part of sandboxrepl: it only links the core library.
 */
#ifndef SANDBOXREPL_BENCH_H
#define SANDBOXREPL_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- samples and medians ---- */

struct samples {
	double	*v;
	size_t	 n, cap;
};

void samples_add(struct samples *s, double x);
double samples_median(struct samples *s);	/* NaN when empty */
double samples_min(const struct samples *s);	/* NaN when empty */
void samples_free(struct samples *s);
double bench_now(void);				/* seconds, monotonic */

/* ---- the corpus ---- */

struct item {
	const char	*name;		/* short key, also sent to anchors.py */
	const char	*label;		/* what the table shows */
	char		*src;		/* heap */
	size_t		 len;
	bool		 to_python;	/* also run through the anchors */
	bool		 big;		/* the 1 MB inputs: fewer repetitions */
};

/* ---- in-process: one evaluation on the sandbox path (inproc.c) ---- */

struct evalcost {
	struct samples	 parse, check, eval, total, step;	/* seconds */
	char		 outcome[64];	/* "173.33", "BLOCKED", "limit" */
	bool		 checked_ok;	/* the allowlist let it through */
	bool		 evaluated;	/* the evaluation ran (ok or not) */
};

struct inproc;
struct inproc *inproc_new(void);
void inproc_free(struct inproc *ip);
/* Add reps samples of every phase of it to *c (interleaved per rep). */
void inproc_measure(struct inproc *ip, const struct item *it, int reps,
    struct evalcost *c);
/* One parse + check + evaluate of the essay expression; the callgrind
 * count toggles on this function. */
void bench_essay_once(struct inproc *ip);
/* One whole session step (session_run on the sandbox path) of it. */
void bench_step_once(struct inproc *ip);
/* The same, under another name: the warm-up callgrind does not count. */
void inproc_essay_warm(struct inproc *ip);

/* jail_run() with a trivial function: reps samples of its wall time
 * (the first jail_run of a process also builds the seccomp program).
 * false with *why set when the jail refused or is unavailable. */
bool inproc_jail(int reps, struct samples *out, char *why, size_t whylen);

/* The same from a caller holding mib MiB more heap, in 16 KiB blocks. */
bool inproc_jail_heavy(int reps, unsigned mib, struct samples *out,
    char *why, size_t whylen);
/* jail_run() refused at each set-up step in turn: out[JAIL_STEP_COUNT]
 * gets the fastest time to the refusal (NaN for the host's own steps). */
void inproc_jail_steps(int reps, double *out);

/* fakenet_up() and fakenet_down() (src/world/fakenet.c), and the
 * unshare(CLONE_NEWNET) before each, in a child's user namespace: reps
 * samples of each.  false with *why set when it could not run. */
bool inproc_fakenet(int reps, struct samples *netns, struct samples *up,
    struct samples *down, char *why, size_t whylen);

/* ---- child processes (spawn.c) ---- */

struct run {
	double	 wall;		/* seconds, spawn to reaped */
	double	 cpu;		/* the child's user + system seconds */
	long	 maxrss_kb;	/* the child's peak RSS */
	int	 status;	/* wait status */
	bool	 ok;		/* spawned and exited 0 */
};

/*
 * Run argv[0] (a path) with argv; stdin from in_path (NULL: /dev/null),
 * stdout to out_path (NULL: /dev/null), stderr likewise to err_path.
 * The environment is inherited.
 */
bool spawn_run(char *const argv[], const char *in_path, const char *out_path,
    const char *err_path, struct run *r);
/* The peak RSS (KiB) of argv[0] itself, from execve to exit, traced;
 * -1 when it cannot be measured. */
long spawn_peak_rss(char *const argv[], const char *in_path);
/* This process's resident set now, in KiB; -1 when unknown. */
long self_rss_kb(void);
bool path_executable(const char *path);
/* A whole file into a NUL-terminated heap buffer; NULL on failure. */
char *slurp(const char *path, size_t *len);
/* mkstemp in $TMPDIR (or /tmp); the name is heap-allocated. */
char *temp_file(const char *tag);

/* The unsafe path's CPython worlds: prints its own table (worlds.c). */
/* reps: per fast row; slow_reps: per row of a gVisor sandbox's start
 * (half a second each). */
void bench_worlds(const char *bwrap, const char *runsc, int reps,
    int slow_reps);

#endif
