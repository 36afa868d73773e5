/*
 * worlds.c -- `make bench`: the unsafe path's CPython worlds.
 *
 * Three rows, the essay expression each time: a round trip to a world
 * that lives for the session (the input over the socket, CPython's
 * answer, the workspace back), a fresh world per input (zygote fork,
 * namespaces, mounts, pivot_root, seccomp, the set-up, the input,
 * destroy), and what a user would do instead, `bwrap ... python3 -I -c`
 * per input.  Goals (issue 15): <= 1 ms, <= 10 ms, fresh >= 3x bwrap.
 * Then the same two world rows for the jail path's kind of world (no
 * network, Landlock, the seccomp supervisor), and for the jail path under
 * gVisor (runsc's sandbox start-up in the fresh row), next to `runsc do
 * python3 -c` per input, with no goal of their own.
 */
#include "config.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena.h"
#include "bench.h"
#include "mockfs.h"
#include "world.h"

#define ESSAY_EXPR	"round(sum(orders) / len(orders), 2)"

static const char *const env[] = { "API_KEY=sk-live-9f3a2b", NULL };

static struct world *
built_world(struct mfs *fs, enum world_kind kind)
{
	struct world_seed seed = { .fs = fs, .env = env,
	    .setup = "orders = [250.0, 180.0, 90.0]\n" };
	struct world *w = world_new_kind(WORLD_ENGINE_CPYTHON, kind, 0, 0);
	char *err = NULL;

	if (!world_build(w, &seed, &err)) {
		fprintf(stderr, "bench: world: %s\n", err ? err : "?");
		free(err);
		world_free(w);
		return NULL;
	}
	return w;
}

static bool
essay_once(struct world *w)
{
	struct arena *a = arena_new();
	struct world_input in = { .src = ESSAY_EXPR,
	    .len = sizeof ESSAY_EXPR - 1, .a = a };
	struct world_reply rep;
	bool ok;

	world_run(w, &in, &rep);
	ok = rep.status == WORLD_OK && rep.result != NULL &&
	    strcmp(rep.result, "173.33") == 0;
	arena_free(a);
	return ok;
}

static bool
bwrap_once(const char *bwrap)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0)	/* (its answer is not the table's) */
			(void)dup2(devnull, 1);
		execl(bwrap, bwrap, "--unshare-all", "--die-with-parent",
		    "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib",
		    "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink",
		    "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev",
		    "--tmpfs", "/tmp", "/usr/bin/python3", "-I", "-c",
		    "orders = [250.0, 180.0, 90.0]; "
		    "print(" ESSAY_EXPR ")", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return false;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void
fmt(char *b, size_t n, double s)
{
	if (isnan(s))
		snprintf(b, n, "—");
	else if (s < 1e-3)
		snprintf(b, n, "%.0f µs", s * 1e6);
	else
		snprintf(b, n, "%.2f ms", s * 1e3);
}

/* A persistent world's round trips, then fresh worlds, of one kind. */
static void
measure(struct mfs *fs, enum world_kind kind, int reps, struct samples *keep,
    struct samples *fresh)
{
	struct world *w = built_world(fs, kind);
	double t;
	int i;

	if (w == NULL)
		return;
	(void)essay_once(w);	/* warm */
	for (i = 0; i < reps * 10; i++) {
		t = bench_now();
		if (essay_once(w))
			samples_add(keep, bench_now() - t);
	}
	world_free(w);
	for (i = 0; i < reps; i++) {
		t = bench_now();
		w = built_world(fs, kind);
		if (w != NULL && essay_once(w)) {
			world_free(w);
			samples_add(fresh, bench_now() - t);
		} else
			world_free(w);
	}
}

/* What a user would do instead of a gVisor world: `runsc do` per
 * input, as the caller (--rootless where it is not root). */
static bool
runsc_once(const char *runsc, const char *root)
{
	pid_t pid = fork();
	int st, devnull;

	if (pid == 0) {
		char rootarg[300];
		devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0)
			(void)dup2(devnull, 1);
		snprintf(rootarg, sizeof rootarg, "--root=%s", root);
		if (geteuid() == 0)
			execl(runsc, runsc, "--network=none", rootarg, "do",
			    "/usr/bin/python3", "-I", "-c",
			    "orders = [250.0, 180.0, 90.0]; "
			    "print(" ESSAY_EXPR ")", (char *)NULL);
		else
			execl(runsc, runsc, "--rootless", "--network=none",
			    rootarg, "do", "/usr/bin/python3", "-I", "-c",
			    "orders = [250.0, 180.0, 90.0]; "
			    "print(" ESSAY_EXPR ")", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return false;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void
row(const char *what, struct samples *s, const char *goal)
{
	char b[32];

	fmt(b, sizeof b, samples_median(s));
	printf("| %s | %s | %zu | %s |\n", what, s->n > 0 ? b : "—", s->n,
	    goal);
	samples_free(s);
}

void
bench_worlds(const char *bwrap, const char *runsc, int reps, int slow_reps)
{
	struct samples keep = { 0 }, fresh = { 0 }, bw = { 0 };
	struct samples jkeep = { 0 }, jfresh = { 0 };
	struct samples gkeep = { 0 }, gfresh = { 0 }, rd = { 0 };
	struct mfs *fs = mfs_new();
	char b1[32], b2[32], b3[32], root[] = "/tmp/bench-runsc.XXXXXX";
	double t, ratio;
	bool have_root;
	int i;

	fprintf(stderr, "bench: worlds...\n");
	mfs_put(fs, "report.txt", "Q2 refunds summary", 18);
	mfs_put(fs, "secrets.txt", "API_KEY=sk-live-9f3a2b", 22);
	measure(fs, WORLD_KIND_REPLICA, reps, &keep, &fresh);
	if (keep.n == 0) {
		printf("\n## CPython worlds\n\nskipped: no world could be "
		    "built here.\n");
		mfs_free(fs);
		return;
	}
	measure(fs, WORLD_KIND_JAIL, reps, &jkeep, &jfresh);
	fprintf(stderr, "bench: gVisor worlds...\n");
	measure(fs, WORLD_KIND_GVISOR, slow_reps, &gkeep, &gfresh);
	for (i = 0; access(bwrap, X_OK) == 0 && i < reps; i++) {
		t = bench_now();
		if (bwrap_once(bwrap))
			samples_add(&bw, bench_now() - t);
	}
	have_root = access(runsc, X_OK) == 0 && mkdtemp(root) != NULL;
	for (i = 0; have_root && i < slow_reps; i++) {
		t = bench_now();
		if (runsc_once(runsc, root))
			samples_add(&rd, bench_now() - t);
	}
	printf("\n## CPython worlds, the unsafe and jail paths (the essay "
	    "expression, median)\n\n");
	printf("| measurement | median | samples | goal |\n|---|---:|---:|---|\n");
	fmt(b1, sizeof b1, samples_median(&keep));
	printf("| a persistent world's round trip | %s | %zu | <= 1 ms |\n",
	    b1, keep.n);
	fmt(b2, sizeof b2, samples_median(&fresh));
	printf("| a fresh world per input (build, run, destroy) | %s | %zu | "
	    "<= 10 ms |\n", b2, fresh.n);
	fmt(b3, sizeof b3, samples_median(&bw));
	ratio = samples_median(&bw) / samples_median(&fresh);
	printf("| `bwrap --unshare-all ... python3 -I -c` per input | %s | "
	    "%zu | fresh world >= 3x faster: %.1fx |\n", b3, bw.n, ratio);
	row("the jail path's world (`--jail=ns`): a persistent world's "
	    "round trip", &jkeep, "");
	row("the jail path's world (`--jail=ns`): a fresh world per input "
	    "(its start-up)", &jfresh, "");
	row("the jail path under gVisor (`--jail=gvisor`): a persistent "
	    "world's round trip", &gkeep, "");
	row("the jail path under gVisor (`--jail=gvisor`): a fresh world per "
	    "input (runsc's start-up)", &gfresh, "");
	row("`runsc --network=none do python3 -I -c` per input", &rd, "");
	samples_free(&keep);
	samples_free(&fresh);
	samples_free(&bw);
	if (have_root) {
		char cmd[sizeof root + 16];
		snprintf(cmd, sizeof cmd, "rm -rf %s", root);
		if (system(cmd) != 0)
			fprintf(stderr, "bench: could not remove %s\n", root);
	}
	mfs_free(fs);
}
