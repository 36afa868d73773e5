/*
 * inproc.c -- the cost of one evaluation, measured inside this process.
 *
 * The sandbox path's evaluation is set up as session.c's run_path() sets
 * it up: the essay policy, its caps, a namespace holding
 * orders = [250.0, 180.0, 90.0], a mock filesystem.  One sample is K
 * repetitions of a phase divided by K, with K chosen so that a sample
 * lasts about a millisecond; each repetition of a sample measures every
 * phase once, so that a slow spell of the machine hits them all alike.
 *
 *   parse  arena_new + parse_input + arena_free
 *   check  check_tree on the parsed tree (its stack lives in a scratch
 *          arena made outside the timed loop)
 *   eval   arena_new + eval_root on the parsed tree + arena_free
 *   total  arena_new + parse + check + eval + arena_free: what the Python
 *          anchors do per call
 *   step   session_run on the sandbox path: all of the above plus the
 *          record, the repr and the trace line
 */
#include "config.h"

#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/arena.h"
#include "sandbox/allowlist.h"
#include "interp/eval.h"
#include "jail/jail.h"
#include "model/mock.h"
#include "fs/mockfs.h"
#include "interp/ns.h"
#include "lang/parse.h"
#include "sandbox/policy.h"
#include "record/record.h"
#include "base/sbuf.h"
#include "session/session.h"
#include "value/value.h"
#include "world/world.h"
#include "world/fakenet.h"
#include "base/xalloc.h"

#include "bench.h"

struct inproc {
	const struct policy	*policy;
	struct eval_calls	*calls;
	struct ns		*ns;
	struct mfs		*fs;
	struct session		*session;
};

/* A sample should last about this long. */
#define SAMPLE_SECONDS 0.001

struct inproc *
inproc_new(void)
{
	struct inproc *ip = xcalloc(1, sizeof *ip);
	struct session_opts so = { 0 };
	struct arena *a = arena_new();
	value orders = value_list(a, 3);

	ip->policy = policy_preset("essay");
	ip->calls = eval_calls_new(ip->policy->calls,
	    ip->policy->name_rule != NAMES_ALL,
	    ip->policy->attr_rule == ATTRS_PUBLIC);
	ip->ns = ns_new();
	ip->fs = mfs_new();
	value_list_append(a, orders, value_float(250.0));
	value_list_append(a, orders, value_float(180.0));
	value_list_append(a, orders, value_float(90.0));
	ns_set(ip->ns, "orders", orders);
	arena_free(a);
	/* The session's budget would refuse after 1000 steps: a bench runs
	 * far more, so it gets the largest budget there is. */
	so.paths = PATH_BIT(PATH_SANDBOX);
	so.budget = ~0u;
	so.budget_set = true;
	ip->session = session_new(&so);
	return ip;
}

void
inproc_free(struct inproc *ip)
{
	if (ip == NULL)
		return;
	session_free(ip->session);
	eval_calls_free(ip->calls);
	mfs_free(ip->fs);
	ns_free(ip->ns);
	free(ip);
}

static void
setup_eval(struct inproc *ip, struct eval *ev, struct arena *a,
    const char *src)
{
	eval_init(ev, a, &mock_model, &workspace_mock, false);
	ev->ws.fs = ip->fs;
	ev->ns = ip->ns;
	ev->src = src;
	ev->calls = ip->calls;
	ev->rt.limits = ip->policy->limits;
}

/* One whole parse + check + evaluate; fills outcome when asked. */
static void
pipeline(struct inproc *ip, const struct item *it, struct evalcost *c)
{
	struct arena *a = arena_new();
	struct parse_result pr;
	struct check_result cr;
	struct eval ev;
	value v;
	bool has_value;

	parse_input(a, it->src, it->len, &pr);
	if (pr.status != PARSE_OK) {
		if (c)
			snprintf(c->outcome, sizeof c->outcome, "SyntaxError");
		goto out;
	}
	if (!check_tree(ip->policy, pr.root, a, &cr)) {
		if (c)
			snprintf(c->outcome, sizeof c->outcome, "BLOCKED: %s",
			    cr.reason);
		goto out;
	}
	if (c)
		c->checked_ok = true;
	setup_eval(ip, &ev, a, it->src);
	if (!eval_root(&ev, pr.root, &v, &has_value)) {
		if (c) {
			c->evaluated = true;
			snprintf(c->outcome, sizeof c->outcome, "%s",
			    ev.rt.exc.kind == EXC_LIMIT ? "BLOCKED: limit" :
			    pyexc_name(ev.rt.exc.cls));
		}
		goto out;
	}
	if (c) {
		struct sbuf b = SBUF_INIT;
		c->evaluated = true;
		if (has_value && value_repr(&ev.rt, v, &b)) {
			const char *s = sbuf_cstr(&b);
			if (strlen(s) > 20)
				snprintf(c->outcome, sizeof c->outcome,
				    "%.12s...", s);
			else
				snprintf(c->outcome, sizeof c->outcome, "%s",
				    s);
		} else
			snprintf(c->outcome, sizeof c->outcome, "ok");
		sbuf_free(&b);
	}
out:
	arena_free(a);
}

static const char essay_src[] = "round(sum(orders) / len(orders), 2)";

void
inproc_essay_warm(struct inproc *ip)
{
	struct item it = { "essay", "", (char *)essay_src,
	    sizeof essay_src - 1, false, false };
	pipeline(ip, &it, NULL);
}

void __attribute__((noinline))
bench_essay_once(struct inproc *ip)
{
	struct item it = { "essay", "", (char *)essay_src,
	    sizeof essay_src - 1, false, false };
	pipeline(ip, &it, NULL);
}

void __attribute__((noinline))
bench_step_once(struct inproc *ip)
{
	struct arena *a = arena_new();
	struct record *r;
	(void)session_run(ip->session, essay_src, sizeof essay_src - 1, NULL,
	    PATH_BIT(PATH_SANDBOX), a, &r);
	arena_free(a);
}

static double
time_parse(const struct item *it, long k)
{
	double t0 = bench_now();
	long i;
	for (i = 0; i < k; i++) {
		struct arena *a = arena_new();
		struct parse_result pr;
		parse_input(a, it->src, it->len, &pr);
		arena_free(a);
	}
	return (bench_now() - t0) / (double)k;
}

static double
time_check(struct inproc *ip, const struct node *root, long k)
{
	struct arena *scratch = arena_new();
	struct check_result cr;
	double t0 = bench_now(), t;
	long i;
	for (i = 0; i < k; i++)
		(void)check_tree(ip->policy, root, scratch, &cr);
	t = (bench_now() - t0) / (double)k;
	arena_free(scratch);
	return t;
}

static double
time_eval(struct inproc *ip, const struct item *it, const struct node *root,
    long k)
{
	double t0 = bench_now();
	long i;
	for (i = 0; i < k; i++) {
		struct arena *a = arena_new();
		struct eval ev;
		value v;
		bool has_value;
		setup_eval(ip, &ev, a, it->src);
		(void)eval_root(&ev, root, &v, &has_value);
		arena_free(a);
	}
	return (bench_now() - t0) / (double)k;
}

static double
time_total(struct inproc *ip, const struct item *it, long k)
{
	double t0 = bench_now();
	long i;
	for (i = 0; i < k; i++)
		pipeline(ip, it, NULL);
	return (bench_now() - t0) / (double)k;
}

static double
time_step(struct inproc *ip, const struct item *it, long k)
{
	double t0 = bench_now();
	long i;
	for (i = 0; i < k; i++) {
		struct arena *a = arena_new();
		struct record *r;
		(void)session_run(ip->session, it->src, it->len, NULL,
		    PATH_BIT(PATH_SANDBOX), a, &r);
		arena_free(a);
	}
	return (bench_now() - t0) / (double)k;
}

void
inproc_measure(struct inproc *ip, const struct item *it, int reps,
    struct evalcost *c)
{
	struct arena *tree = arena_new();
	struct parse_result pr;
	double one;
	long k = 1;
	int r;

	pipeline(ip, it, c);
	/* Warm up, and find K. */
	one = time_total(ip, it, 1);
	while (one * (double)k < SAMPLE_SECONDS && k < (1L << 24))
		k *= 2;
	(void)time_total(ip, it, k);
	parse_input(tree, it->src, it->len, &pr);
	for (r = 0; r < reps; r++) {
		samples_add(&c->parse, time_parse(it, k));
		if (pr.status == PARSE_OK) {
			samples_add(&c->check, time_check(ip, pr.root, k));
			if (c->checked_ok)
				samples_add(&c->eval,
				    time_eval(ip, it, pr.root, k));
		}
		samples_add(&c->total, time_total(ip, it, k));
		samples_add(&c->step, time_step(ip, it, k));
	}
	arena_free(tree);
}

/* ---- the jail ---- */

static int
trivial(void *arg)
{
	static const char one[] = "1";
	(void)arg;
	(void)jail_write_result(one, 1);
	return 0;
}

bool
inproc_jail(int reps, struct samples *out, char *why, size_t whylen)
{
	struct jail_config cfg = { 0 };
	struct jail_outcome o;
	int r;

	for (r = 0; r < reps; r++) {
		double t0 = bench_now(), t;
		int rc = jail_run(&cfg, trivial, NULL, &o);
		t = bench_now() - t0;
		if (rc != 0) {
			snprintf(why, whylen, "jail_run: %s: %s",
			    jail_status_name(o.status), o.reason);
			jail_outcome_free(&o);
			return false;
		}
		jail_outcome_free(&o);
		samples_add(out, t);
	}
	return true;
}

/*
 * jail_run() from a caller that holds mib MiB of heap in 16 KiB blocks,
 * the arena's block size: what a session may hold after a big input.
 * jail_run() forks its caller, and fork() copies (and exit() tears down)
 * the page tables of everything the caller has mapped.
 */
bool
inproc_jail_heavy(int reps, unsigned mib, struct samples *out, char *why,
    size_t whylen)
{
	size_t n = (size_t)mib * 64, i;
	char **blocks = xcalloc(n, sizeof *blocks);
	bool ok;

	for (i = 0; i < n; i++) {
		blocks[i] = xmalloc(16384);
		memset(blocks[i], 1, 16384);
	}
	ok = inproc_jail(reps, out, why, whylen);
	for (i = 0; i < n; i++)
		free(blocks[i]);
	free(blocks);
	return ok;
}

/*
 * Where jail_run()'s time goes: jail_run() told to fail at each set-up
 * step in turn (the fail_at test hook) takes the time of every step
 * before it, plus the refusal going back.  out[step] gets the fastest
 * run: the medians of neighbouring steps differ by less than the noise
 * each run's background namespace teardown adds to the next.
 */
void
inproc_jail_steps(int reps, double *out)
{
	struct samples s[JAIL_STEP_COUNT];
	int step, r;

	memset(s, 0, sizeof s);
	/* Round-robin over the steps, so that a slow spell hits them all. */
	for (r = 0; r < reps; r++)
		for (step = JAIL_STEP_FORK + 1; step < JAIL_STEP_COUNT; step++) {
			struct jail_config cfg = { 0 };
			struct jail_outcome o;
			double t0;

			if (jail_step_word(step, JAIL_SETUP_JAIL) == NULL)
				continue;	/* a world's alone */
			t0 = bench_now();
			cfg.fail_at = step;
			(void)jail_run(&cfg, trivial, NULL, &o);
			samples_add(&s[step], bench_now() - t0);
			jail_outcome_free(&o);
		}
	for (step = 0; step < JAIL_STEP_COUNT; step++) {
		out[step] = samples_min(&s[step]);
		samples_free(&s[step]);
	}
}

/*
 * The fake internet of a replica world (src/world/fakenet.c): a child
 * enters a user namespace (as nobody, when root, like a world), then per
 * sample unshares a network namespace, brings the fake internet up (lo,
 * AnyIP routes, dnsmasq answering, the sink ready) and takes it down
 * again.  up, down and netns get one sample per round each, in seconds.
 */
bool
inproc_fakenet(int reps, struct samples *netns, struct samples *up,
    struct samples *down, char *why, size_t whylen)
{
	int pfd[2], st, r;
	double t[3];
	pid_t pid;

	if (pipe(pfd) == -1) {
		snprintf(why, whylen, "pipe failed");
		return false;
	}
	{	/* CPython's module, loaded here as the zygote's parent does
		 * (world.h): the child below leaves the host's ids behind */
		char v[32];
		(void)world_python_version(v, sizeof v);
	}
	pid = fork();
	if (pid == 0) {
		struct fakenet_config cfg = { 0 };
		char map[64], err[256];
		unsigned uid, gid;
		int fd;

		close(pfd[0]);
		if (geteuid() == 0 && (setgroups(0, NULL) == -1 ||
		    setresgid(65534, 65534, 65534) == -1 ||
		    setresuid(65534, 65534, 65534) == -1))
			_exit(2);
		(void)prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		uid = (unsigned)geteuid();
		gid = (unsigned)getegid();
		if (unshare(CLONE_NEWUSER) == -1)
			_exit(3);
		fd = open("/proc/self/setgroups", O_WRONLY);
		if (fd < 0 || write(fd, "deny", 4) != 4 || close(fd) == -1)
			_exit(4);
		snprintf(map, sizeof map, "1000 %u 1", uid);
		fd = open("/proc/self/uid_map", O_WRONLY);
		if (fd < 0 || write(fd, map, strlen(map)) < 0 || close(fd) == -1)
			_exit(5);
		snprintf(map, sizeof map, "1000 %u 1", gid);
		fd = open("/proc/self/gid_map", O_WRONLY);
		if (fd < 0 || write(fd, map, strlen(map)) < 0 || close(fd) == -1)
			_exit(6);
		/* One CA for every world, as the zygote makes it. */
		cfg.ca = fakenet_ca_new(err, sizeof err);
		if (!cfg.ca) {
			(void)write(pfd[1], err, strlen(err));
			_exit(8);
		}
		for (r = 0; r < reps; r++) {
			struct fakenet fn;
			double t0 = bench_now();

			if (unshare(CLONE_NEWNET) == -1)
				_exit(7);
			t[0] = bench_now() - t0;
			t0 = bench_now();
			if (fakenet_up(&cfg, &fn, err, sizeof err) == -1) {
				(void)write(pfd[1], err, strlen(err));
				_exit(8);
			}
			t[1] = bench_now() - t0;
			t0 = bench_now();
			fakenet_down(&fn);
			t[2] = bench_now() - t0;
			if (write(pfd[1], t, sizeof t) != (ssize_t)sizeof t)
				_exit(9);
		}
		_exit(0);
	}
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		snprintf(why, whylen, "fork failed");
		return false;
	}
	for (r = 0; r < reps; r++) {
		ssize_t got = read(pfd[0], t, sizeof t);

		if (got != (ssize_t)sizeof t) {
			char *text = (char *)t;

			if (got > 0 && (size_t)got < sizeof t)
				snprintf(why, whylen, "%.*s", (int)got, text);
			else
				snprintf(why, whylen, "the child stopped");
			break;
		}
		samples_add(netns, t[0]);
		samples_add(up, t[1]);
		samples_add(down, t[2]);
	}
	close(pfd[0]);
	waitpid(pid, &st, 0);
	if (r < reps && !why[0])
		snprintf(why, whylen, "the child stopped (status %d)", st);
	return r == reps;
}
