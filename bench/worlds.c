/*
 * worlds.c -- `make bench`: the unsafe path's CPython worlds.
 *
 * Three rows, the essay expression each time: a round trip to a world
 * that lives for the session (the input over the socket, CPython's
 * answer, the workspace back), a fresh world per input (zygote fork,
 * namespaces, mounts, pivot_root, seccomp, the set-up, the input,
 * destroy), and what a user would do instead, `bwrap ... python3 -I -c`
 * per input.  Goals (issue 15): <= 1 ms, <= 10 ms, fresh >= 3x bwrap.
 * A fresh world is measured twice: at a user's pace (the zygote has
 * built it ahead, as for a session that waits for its next input) and
 * back to back (built while the caller waits).
 * Then the same two world rows for the jail path's kind of world (no
 * network, Landlock, the seccomp supervisor), and for the jail path under
 * gVisor (runsc's sandbox start-up in the fresh row), next to `runsc do
 * python3 -c` per input, with no goal of their own; and for the jail
 * path in a microVM (`--jail=microvm`): its boot (a world built: QEMU
 * started, the guest's kernel booted, CPython ready and seeded), a kept
 * world's round trip, and a fresh world per input (a boot each, measured
 * MICROVM_FRESH times: seconds under TCG), each as a multiple of the
 * namespace jail's; one row saying why where no microVM boots here (no
 * QEMU, no images).
 * Last, where a fresh replica world's time goes: the world told to fail
 * at each set-up step in turn (the fail_at test hook, as the jail's
 * table does), the fastest time until it has refused, and from the
 * differences each step's own cost; then the set-up (files, environment,
 * names), the input and the destroy of whole worlds.
 */
#include "config.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/arena.h"
#include "bench.h"
#include "fs/mockfs.h"
#include "world/world.h"
#include "world/world_int.h"

#define ESSAY_EXPR	"round(sum(orders) / len(orders), 2)"

static const char *const env[] = { "API_KEY=sk-live-9f3a2b", NULL };

/* The session's seed for every world: its files, environment, names. */
static struct world_seed
essay_seed(struct mfs *fs)
{
	struct world_seed seed = { .fs = fs, .env = env,
	    .setup = "orders = [250.0, 180.0, 90.0]\n" };

	return seed;
}

/* A world of kind, built and seeded; or NULL, why it could not be in
 * why (when not NULL, else on stderr). */
static struct world *
built_world_at(struct mfs *fs, enum world_kind kind, int fail_at, char *why,
    size_t n)
{
	struct world_seed seed = essay_seed(fs);
	struct world *w = world_new_kind(WORLD_ENGINE_CPYTHON, kind, 0,
	    fail_at);
	char *err = NULL;

	if (!world_build(w, &seed, &err)) {
		if (why != NULL && n > 0)
			snprintf(why, n, "%s", err ? err : "?");
		else
			fprintf(stderr, "bench: world: %s\n", err ? err : "?");
		free(err);
		world_free(w);
		return NULL;
	}
	return w;
}

static struct world *
built_world_why(struct mfs *fs, enum world_kind kind, char *why, size_t n)
{
	return built_world_at(fs, kind, 0, why, n);
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

/* The set-up steps as a warden and its PID 1 take them (jail.h's
 * JAIL_STEPS lists them, a world's words in a column; pdeathsig comes
 * first in a world). */
static const enum jail_step step_order[] = {
	JAIL_STEP_PDEATHSIG, JAIL_STEP_IDS, JAIL_STEP_CGROUP,
	JAIL_STEP_UNSHARE, JAIL_STEP_ID_MAPS, JAIL_STEP_UNDUMPABLE,
	JAIL_STEP_PID1, JAIL_STEP_MOUNT_PRIVATE, JAIL_STEP_NETWORK,
	JAIL_STEP_ROOTFS, JAIL_STEP_WORKSPACE, JAIL_STEP_PIVOT_ROOT,
	JAIL_STEP_RLIMITS, JAIL_STEP_FDS, JAIL_STEP_CAPS,
	JAIL_STEP_NO_NEW_PRIVS, JAIL_STEP_SECCOMP, JAIL_STEP_PYTHON,
};
#define NSTEPS	(sizeof step_order / sizeof step_order[0])

/* A fail_at that names no step: a world forked for its request and
 * built whole, never a spare built ahead (zygote.c hands spares only to
 * requests without one). */
#define NO_STEP	1000

/* The fastest build of a replica world refused at step (NO_STEP: none). */
static double
time_to(struct mfs *fs, int step)
{
	struct world_seed seed = essay_seed(fs);
	struct world *w = world_new_kind(WORLD_ENGINE_CPYTHON,
	    WORLD_KIND_REPLICA, 0, step);
	char *err = NULL;
	double t = bench_now();
	bool ok = world_build(w, &seed, &err);

	t = bench_now() - t;
	free(err);
	world_free(w);
	return ok == (step == NO_STEP) ? t : NAN;
}

static void
fmt(char *b, size_t n, double s)
{
	if (isnan(s))
		snprintf(b, n, "—");
	else if (s >= 1)
		snprintf(b, n, "%.2f s", s);
	else if (s < 1e-3)
		snprintf(b, n, "%.0f µs", s * 1e6);
	else
		snprintf(b, n, "%.2f ms", s * 1e3);
}

/* Where a fresh world's time goes (see the top of the file). */
static void
breakdown(struct mfs *fs, int rounds)
{
	struct samples at[NSTEPS + 1], setup = { 0 }, run = { 0 },
	    destroy = { 0 };
	char b1[32], b2[32];
	size_t k;
	int r;

	memset(at, 0, sizeof at);
	for (r = 0; r < rounds; r++) {
		struct world *w;
		double t;

		for (k = 0; k <= NSTEPS; k++) {
			t = time_to(fs, k < NSTEPS ? (int)step_order[k] :
			    NO_STEP);
			if (!isnan(t))
				samples_add(&at[k], t);
		}
		/* a whole one, by parts: build, the input, destroy */
		t = bench_now();
		w = built_world_at(fs, WORLD_KIND_REPLICA, NO_STEP, NULL, 0);
		if (w == NULL)
			continue;
		samples_add(&setup, bench_now() - t);
		t = bench_now();
		if (essay_once(w))
			samples_add(&run, bench_now() - t);
		t = bench_now();
		world_free(w);
		samples_add(&destroy, bench_now() - t);
	}
	printf("\n## Where a fresh replica world spends its time\n\n"
	    "The world told to fail at each set-up step in turn (the "
	    "`fail_at` test hook, %d rounds): the fastest time until it has "
	    "refused, which is every step before plus the way back; the "
	    "step itself is the next row's time minus this one's.  A "
	    "world told to fail (here the last rows too, told a step that "
	    "does not exist) is always forked for its request, never a "
	    "spare built ahead, so these are whole builds.  PID 1 starts "
	    "the fake internet at `network` and waits for it to answer "
	    "before `pivot-root`.  Then whole worlds, by parts "
	    "(medians).\n\n",
	    rounds);
	printf("| refused at | time to refusal | the step itself |\n"
	    "|---|---:|---:|\n");
	for (k = 0; k < NSTEPS; k++) {
		double here = samples_min(&at[k]), next = samples_min(&at[k + 1]);

		fmt(b1, sizeof b1, here);
		fmt(b2, sizeof b2, next - here);
		printf("| %s | %s | %s |\n", world_step_name(step_order[k]),
		    b1, b2);
	}
	fmt(b1, sizeof b1, samples_min(&at[NSTEPS]));
	printf("| (none: ready, and the set-up's files, environment and "
	    "names sent and run) | %s | — |\n", b1);
	fmt(b1, sizeof b1, samples_median(&setup));
	printf("| a whole world's build (as above), median | %s | |\n", b1);
	fmt(b1, sizeof b1, samples_median(&run));
	printf("| its first input, the essay expression, median | %s | |\n",
	    b1);
	fmt(b1, sizeof b1, samples_median(&destroy));
	printf("| its destroy, median | %s | |\n", b1);
	for (k = 0; k <= NSTEPS; k++)
		samples_free(&at[k]);
	samples_free(&setup);
	samples_free(&run);
	samples_free(&destroy);
}

/* The essay's source for a python3 -c of its own. */
#define ESSAY_PY	"orders = [250.0, 180.0, 90.0]; print(" ESSAY_EXPR ")"

/* Run argv (a launcher and python3 -c ESSAY_PY) and wait: whether it
 * exited 0.  Its answer is checked by the exit status; the table is on
 * stdout, so its own output goes to /dev/null. */
static bool
run_quiet(char *const argv[])
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null < 0 || dup2(null, 1) == -1)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return false;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static bool
bwrap_once(const char *bwrap)
{
	char *const argv[] = { (char *)bwrap, "--unshare-all",
	    "--die-with-parent", "--ro-bind", "/usr", "/usr", "--symlink",
	    "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
	    "--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev",
	    "/dev", "--tmpfs", "/tmp", "/usr/bin/python3", "-I", "-c",
	    ESSAY_PY, NULL };

	return run_quiet(argv);
}

/*
 * Fresh worlds at a user's pace: the zygote builds the next world of a
 * kind while the session waits for its next input (zygote.c: spares),
 * and the session takes it and sends it its seed (files, environment,
 * names) as it frees the last one (cpython.c: seeded ahead), so an input
 * that comes PACE_MS after the last one finds it built and seeded.  The
 * time counted is what the user waits for: the build's rest (the seed's
 * answer), the input, the next world made and the last one freed (the
 * next one's request and seed).  Back to back (measure() below) the
 * spares have had less time or none, which is a world's whole build.
 */
#define PACE_MS	100

/* A fresh world per input, reps times, pace_ms apart (0: back to back):
 * the request, the set-up, the input and the destroy; and in boot (when
 * not NULL) the build alone, start to ready.  As --fresh-world replaces
 * a world after its input (session_renew_world: world_renew): the next
 * one made, then the last one freed, within the input's time. */
static void
fresh_worlds(struct mfs *fs, enum world_kind kind, int reps, int pace_ms,
    struct samples *out, struct samples *boot)
{
	struct world_seed seed = essay_seed(fs);
	struct world *w, *next = world_new_kind(WORLD_ENGINE_CPYTHON, kind, 0,
	    0);
	char *err = NULL;
	double t;
	int i;

	for (i = 0; i < reps; i++) {
		bool ok;

		if (pace_ms > 0)
			usleep((useconds_t)pace_ms * 1000);
		t = bench_now();
		w = next;
		ok = world_build(w, &seed, &err);
		if (!ok) {
			fprintf(stderr, "bench: world: %s\n", err ? err : "?");
			free(err);
			err = NULL;
		} else if (boot != NULL)
			samples_add(boot, bench_now() - t);
		ok = ok && essay_once(w);
		next = world_renew(w, 0, 0);
		if (ok)
			samples_add(out, bench_now() - t);
	}
	world_free(next);
}

/* A persistent world's round trips, then fresh worlds, of one kind; in
 * boot (when not NULL) every build's time, start to ready, and in why
 * (when not NULL) why the first world could not be built. */
static void
measure(struct mfs *fs, enum world_kind kind, int reps, struct samples *keep,
    struct samples *fresh, struct samples *boot, char *why, size_t n)
{
	double t = bench_now();
	struct world *w = built_world_why(fs, kind, why, n);
	int i;

	if (w == NULL)
		return;
	if (boot != NULL)
		samples_add(boot, bench_now() - t);
	(void)essay_once(w);	/* warm */
	for (i = 0; i < reps * 10; i++) {
		t = bench_now();
		if (essay_once(w))
			samples_add(keep, bench_now() - t);
	}
	world_free(w);
	fresh_worlds(fs, kind, reps, 0, fresh, boot);
}


/* What a user would do instead of a gVisor world: `runsc do` per
 * input, as the caller (--rootless where it is not root). */
static bool
runsc_once(const char *runsc, const char *root)
{
	char rootarg[300];
	char *const as_root[] = { (char *)runsc, "--network=none", rootarg,
	    "do", "/usr/bin/python3", "-I", "-c", ESSAY_PY, NULL };
	char *const rootless[] = { (char *)runsc, "--rootless",
	    "--network=none", rootarg, "do", "/usr/bin/python3", "-I", "-c",
	    ESSAY_PY, NULL };

	snprintf(rootarg, sizeof rootarg, "--root=%s", root);
	return run_quiet(geteuid() == 0 ? as_root : rootless);
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

/* A fresh world's row, paced (goal: 1/10 of bwrap's) or back to back
 * (1/3), as a fraction of the bwrap launch, and its part until the world
 * was taken and set up (the rest is the input and the destroy); frees
 * both. */
static void
fresh_row(const char *what, struct samples *s, struct samples *build,
    double bwrap, int goal)
{
	char b1[32], b2[32];
	double m = samples_median(s);

	fmt(b1, sizeof b1, m);
	fmt(b2, sizeof b2, samples_median(build));
	if (goal == 10)
		printf("| %s, %d ms apart (built ahead) | %s (set up: %s) | "
		    "%zu | <= 1/%d of bwrap's: 1/%.1f |\n", what, PACE_MS,
		    s->n > 0 ? b1 : "—", b2, s->n, goal, bwrap / m);
	else
		printf("| %s, back to back | %s (set up: %s) | %zu | <= 1/%d "
		    "of bwrap's: 1/%.1f |\n", what, s->n > 0 ? b1 : "—", b2,
		    s->n, goal, bwrap / m);
	samples_free(s);
	samples_free(build);
}

/* Fresh microVM worlds measured: each is a boot under TCG (seconds). */
#define MICROVM_FRESH	2

/* "N x the namespace jail's" for the goal column, or "". */
static const char *
times_ns(char *b, size_t n, struct samples *s, double ns)
{
	double r = samples_median(s) / ns;

	if (isnan(r) || isinf(r))
		snprintf(b, n, "%s", "");
	else
		snprintf(b, n, "%.0fx `--jail=ns`'s", r);
	return b;
}

/* The microVM's rows (`--jail=microvm`: its boot, a kept world's round
 * trip, a world per input), each next to the namespace jail's, or one
 * row that says why there are none. */
static void
microvm_rows(struct samples *boot, struct samples *keep,
    struct samples *fresh, const char *why, double ns_keep, double ns_fresh)
{
	char what[256], r[64];

	if (boot->n == 0) {
		printf("| the jail path in a microVM (`--jail=microvm`) | "
		    "skipped: %s | 0 | |\n", why[0] ? why : "no world");
		return;
	}
	snprintf(what, sizeof what, "the jail path in a microVM "
	    "(`--jail=microvm`, %s): its boot, start to ready (QEMU, the "
	    "guest's kernel, CPython, the set-up)", microvm_accel_words());
	row(what, boot, times_ns(r, sizeof r, boot, ns_fresh));
	row("the jail path in a microVM: a persistent world's round trip",
	    keep, times_ns(r, sizeof r, keep, ns_keep));
	row("the jail path in a microVM: a fresh world per input "
	    "(`--fresh-world`: a boot each)", fresh,
	    times_ns(r, sizeof r, fresh, ns_fresh));
}

void
bench_worlds(const char *bwrap, const char *runsc, int reps, int slow_reps)
{
	struct samples keep = { 0 }, fresh = { 0 }, bw = { 0 };
	struct samples jkeep = { 0 }, jfresh = { 0 };
	struct samples paced = { 0 }, jpaced = { 0 };
	struct samples pbuild = { 0 }, fbuild = { 0 };
	struct samples jpbuild = { 0 }, jfbuild = { 0 };
	struct samples gkeep = { 0 }, gfresh = { 0 }, rd = { 0 };
	struct samples mkeep = { 0 }, mfresh = { 0 }, mboot = { 0 };
	struct mfs *fs = mfs_new();
	char b1[32], b3[32], root[] = "/tmp/bench-runsc.XXXXXX";
	char mwhy[512] = "";
	double t, bwm, ns_keep, ns_fresh;
	bool have_root;
	int i;

	fprintf(stderr, "bench: worlds...\n");
	mfs_put(fs, "report.txt", "Q2 refunds summary", 18);
	mfs_put(fs, "secrets.txt", "API_KEY=sk-live-9f3a2b", 22);
	measure(fs, WORLD_KIND_REPLICA, reps, &keep, &fresh, &fbuild, NULL,
	    0);
	if (keep.n == 0) {
		printf("\n## CPython worlds\n\nskipped: no world could be "
		    "built here.\n");
		mfs_free(fs);
		return;
	}
	measure(fs, WORLD_KIND_JAIL, reps, &jkeep, &jfresh, &jfbuild, NULL,
	    0);
	fresh_worlds(fs, WORLD_KIND_REPLICA, reps, PACE_MS, &paced, &pbuild);
	fresh_worlds(fs, WORLD_KIND_JAIL, reps, PACE_MS, &jpaced, &jpbuild);
	fprintf(stderr, "bench: gVisor worlds...\n");
	measure(fs, WORLD_KIND_GVISOR, slow_reps, &gkeep, &gfresh, NULL, NULL,
	    0);
	fprintf(stderr, "bench: microVM worlds (%s)...\n",
	    microvm_accel_words());
	measure(fs, WORLD_KIND_MICROVM, MICROVM_FRESH, &mkeep, &mfresh, &mboot,
	    mwhy, sizeof mwhy);
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
	bwm = samples_median(&bw);
	printf("\n## CPython worlds, the unsafe and jail paths (the essay "
	    "expression, median)\n\n");
	printf("| measurement | median | samples | goal |\n|---|---:|---:|---|\n");
	fmt(b1, sizeof b1, samples_median(&keep));
	printf("| a persistent world's round trip | %s | %zu | <= 1 ms |\n",
	    b1, keep.n);
	fmt(b3, sizeof b3, bwm);
	printf("| `bwrap --unshare-all --die-with-parent --ro-bind /usr /usr "
	    "... python3 -I -c` per input | %s | %zu | the yardstick |\n",
	    b3, bw.n);
	fresh_row("a fresh world per input", &paced, &pbuild, bwm, 10);
	fresh_row("a fresh world per input", &fresh, &fbuild, bwm, 3);
	ns_keep = samples_median(&jkeep);
	ns_fresh = samples_median(&jfresh);
	row("the jail path's world (`--jail=ns`): a persistent world's "
	    "round trip", &jkeep, "<= 1 ms");
	fresh_row("the jail path's world (`--jail=ns`): a fresh world per "
	    "input", &jpaced, &jpbuild, bwm, 10);
	fresh_row("the jail path's world (`--jail=ns`): a fresh world per "
	    "input", &jfresh, &jfbuild, bwm, 3);
	row("the jail path under gVisor (`--jail=gvisor`): a persistent "
	    "world's round trip", &gkeep, "");
	row("the jail path under gVisor (`--jail=gvisor`): a fresh world per "
	    "input (runsc's start-up)", &gfresh, "");
	row("`runsc --network=none do python3 -I -c` per input", &rd, "");
	microvm_rows(&mboot, &mkeep, &mfresh, mwhy, ns_keep, ns_fresh);
	samples_free(&keep);
	samples_free(&bw);
	if (have_root) {
		char cmd[sizeof root + 16];
		snprintf(cmd, sizeof cmd, "rm -rf %s", root);
		if (system(cmd) != 0)
			fprintf(stderr, "bench: could not remove %s\n", root);
	}
	breakdown(fs, reps / 4 + 1);
	mfs_free(fs);
}
