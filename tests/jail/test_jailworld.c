/*
 * test_jailworld.c -- the jail path with CPython inside: a world of the
 * jail kind (world.h), probed with the inputs a student types.
 *
 * Each probe runs through session_run() on the jail path with the
 * cpython engine, as `sandboxrepl --path=jail` runs it.  The record must
 * say what the kernel did: "contained" only when seccomp, Landlock, an
 * rlimit or the wall clock stopped something, naming the call and the
 * errno; a plain FileNotFoundError is an error; damage inside the
 * throwaway workspace is told as that.  The host side is checked too: a
 * canary file outside keeps its bytes, a listener on host loopback
 * accepts nothing.  Every set-up step made to fail refuses: nothing
 * runs, and the jail path never falls back to anything unjailed.
 * Never skips on Linux: the machines this runs on (CI) have user
 * namespaces and libpython.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/arena.h"
#include "fixtures.h"
#include "fs/mockfs.h"
#include "record/record.h"
#include "session/session.h"
#include "world/world.h"
#include "world/world_int.h"

static const char *canary_file;

static struct session_opts
jail_opts(bool fresh, bool filter, int fail_at)
{
	struct session_opts o = { .paths = PATH_BIT(PATH_JAIL),
	    .engine = WORLD_ENGINE_CPYTHON, .fresh_world = fresh,
	    .jail_filter = filter, .world_wall_ms = 2000,
	    .world_fail_at = fail_at };

	return o;
}

static struct session *
jail_session(bool fresh, bool filter, int fail_at)
{
	struct session_opts o = jail_opts(fresh, filter, fail_at);

	return session_new(&o);
}

static int
setup(void **state)
{
	struct session_opts o = jail_opts(false, false, 0);

	*state = fx_new(&o);
	return 0;
}

static struct record *
run_in(struct session *s, struct arena *a, const char *input)
{
	return fx_run(s, a, 0, PATH_JAIL, input);
}

static struct record *
run(struct fx *f, const char *input)
{
	struct record *r = run_in(f->s, f->a, input);

	assert_string_equal(r->engine, "cpython");
	return r;
}

static void
expect(struct fx *f, const char *input, enum verdict v, enum layer l,
    const char *reason_part)
{
	struct record *r = run(f, input);

	if (r->verdict != v || (v != VERDICT_OK && r->layer != l) ||
	    (reason_part != NULL && (r->reason == NULL ||
	    strstr(r->reason, reason_part) == NULL)))
		fail_msg("%s: got %s/%s: %s", input,
		    record_verdict_name(r->verdict),
		    record_layer_name(r->layer), r->line);
}

static void
test_essay_work(void **state)
{
	struct fx *f = *state;
	struct record *r;

	r = run(f, "read_file({'path': 'report.txt'})");
	assert_int_equal(r->verdict, VERDICT_OK);
	assert_string_equal(r->outcome, "Q2 refunds summary");
	r = run(f, "round(sum(orders) / len(orders), 2)");
	assert_int_equal(r->verdict, VERDICT_OK);
	assert_string_equal(r->result, "173.33");
	/* what the model never had: CPython's standard library */
	r = run(f, "__import__('json').dumps({'a': [1, 2]})");
	assert_string_equal(r->result, "'{\"a\": [1, 2]}'");
}

/* A program cannot start: seccomp answers execve with EPERM, the shell's
 * failure comes back as os.system's status, and nothing was removed. */
static void
test_execve_refused(void **state)
{
	struct fx *f = *state;
	struct record *r;
	size_t i;

	r = run(f, "__import__('os').system('rm report.txt')");
	assert_int_equal(r->verdict, VERDICT_CONTAINED);
	assert_int_equal(r->layer, LAYER_SECCOMP);
	assert_string_equal(r->reason,
	    "starting a program (execve) is forbidden");
	assert_string_equal(r->outcome, "CONTAINED by seccomp: "
	    "starting a program (execve) is forbidden");
	/* the effect says the boundary refused it */
	for (i = 0; i < r->neffects && strcmp(r->effects[i].op, "denied");
	    i++)
		;
	assert_true(i < r->neffects);
	assert_true(r->effects[i].denied);
	assert_string_equal(r->effects[i].target, "execve");
	r = run(f, "read_file({'path': 'report.txt'})");
	assert_string_equal(r->outcome, "Q2 refunds summary");
	assert_true(fx_has(r, "report.txt"));
	expect(f, "import subprocess; subprocess.run(['rm', 'report.txt'])",
	    VERDICT_CONTAINED, LAYER_SECCOMP,
	    "is forbidden; then PermissionError");
	/* the session goes on, in the same world */
	assert_string_equal(run(f, "6 * 7")->result, "42");
	/* the supervisor that answers for seccomp is out of the code's
	 * reach (Landlock's signal scope): killing it fails, nothing is
	 * "simulated" in a jail, and the next refusal is still recorded */
	expect(f, "import os; [os.kill(p, 9) for p in range(2, 9)]",
	    VERDICT_ERROR, LAYER_EVAL, "PermissionError");
	expect(f, "__import__('os').system('id')", VERDICT_CONTAINED,
	    LAYER_SECCOMP, "execve");
}

/* No network at all: socket() is refused whatever the address, and a
 * listener on the host's loopback sees nobody. */
static void
test_no_network(void **state)
{
	struct fx *f = *state;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof sa;
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), cfd;
	char in[256];
	struct record *r;
	size_t i;

	expect(f, "import socket; socket.create_connection(('203.0.113.9', "
	    "80))", VERDICT_CONTAINED, LAYER_SECCOMP,
	    "opening a network socket (socket) is forbidden");
	assert_true(lfd >= 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof sa), 0);
	assert_int_equal(listen(lfd, 8), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &len), 0);
	snprintf(in, sizeof in, "http_get({'url': 'http://127.0.0.1:%d/', "
	    "'body': 'API_KEY=sk-live-9f3a2b'})", ntohs(sa.sin_port));
	r = run(f, in);
	assert_int_equal(r->verdict, VERDICT_CONTAINED);
	assert_non_null(strstr(r->reason, "socket"));
	/* the request is told as an attempt: nothing was sent */
	for (i = 0; i < r->neffects; i++)
		if (strcmp(r->effects[i].op, "send") == 0) {
			assert_null(r->effects[i].category);
			assert_non_null(strstr(r->effects[i].text,
			    "tried to send 'API_KEY=sk-live-9f3a2b'"));
		}
	cfd = accept(lfd, NULL, NULL);
	assert_int_equal(cfd, -1);		/* nobody came */
	assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
	close(lfd);
}

/* A typo is an error, not the kernel stopping anything. */
static void
test_not_found_is_an_error(void **state)
{
	struct fx *f = *state;

	expect(f, "open('reprot.txt')", VERDICT_ERROR, LAYER_EVAL,
	    "FileNotFoundError");
	expect(f, "read_file({'path': 'reprot.txt'})", VERDICT_ERROR,
	    LAYER_EVAL, "FileNotFoundError");
}

/* Damage is real, to the jail's throwaway workspace only; the host's
 * files are not even there to see, and what Landlock does not grant
 * (/etc, /proc) it refuses. */
static void
test_damage_stays_inside(void **state)
{
	struct fx *f = *state;
	struct record *r;
	struct stat st;
	char in[512];

	r = run(f, "import os; os.remove('secrets.txt')");
	assert_int_equal(r->verdict, VERDICT_INSIDE);
	assert_string_equal(r->outcome, "INSIDE the jail's copy: secrets.txt "
	    "deleted; the host is untouched");
	assert_false(fx_has(r, "secrets.txt"));
	assert_false(mfs_exists(session_fs(f->s, PATH_JAIL), "secrets.txt"));
	snprintf(in, sizeof in, "open('%s').read()", canary_file);
	expect(f, in, VERDICT_ERROR, LAYER_EVAL, "FileNotFoundError");
	snprintf(in, sizeof in, "__import__('os').remove('%s')", canary_file);
	expect(f, in, VERDICT_ERROR, LAYER_EVAL, NULL);
	snprintf(in, sizeof in, "write_file({'path': '%s', 'text': 'x'})",
	    canary_file);
	expect(f, in, VERDICT_ERROR, LAYER_EVAL, NULL);
	assert_int_equal(stat(canary_file, &st), 0);
	assert_int_equal(st.st_size, 6);
	expect(f, "open('/etc/passwd').read()", VERDICT_CONTAINED,
	    LAYER_LANDLOCK, "opening /etc/passwd is forbidden: it is outside "
	    "what the jail grants");
	expect(f, "open('/proc/self/exe', 'rb').read()", VERDICT_CONTAINED,
	    LAYER_LANDLOCK, "/proc/self/exe");
	/* harm done before an exception is told with it */
	r = run(f, "import shutil; shutil.rmtree('.')");
	assert_int_equal(r->verdict, VERDICT_INSIDE);
	assert_non_null(strstr(r->reason, "the jail's copy: report.txt "
	    "deleted; the host is untouched; then OSError"));
	assert_non_null(strstr(r->outcome, "INSIDE the jail's copy: "));
	assert_false(fx_has(r, "report.txt"));
}

/* CPython's own object graph, as at a student's prompt; the code runs in
 * its own pid namespace, a child of the world's init (PID 1 cannot be
 * killed from inside, the interpreter must be). */
static void
test_cpython_inside(void **state)
{
	struct fx *f = *state;
	struct record *r;

	r = run(f, "().__class__.__base__.__subclasses__()");
	assert_int_equal(r->verdict, VERDICT_OK);
	assert_non_null(strstr(r->result, "<class '_frozen_importlib."
	    "BuiltinImporter'>"));
	assert_non_null(strstr(r->result, "<class 'os._wrap_close'>"));
	assert_string_equal(run(f, "__import__('os').getppid()")->result, "1");
	assert_string_not_equal(run(f, "__import__('os').getpid()")->result,
	    "1");
	/* the subclass walk to os.system meets seccomp */
	expect(f, "[c for c in ().__class__.__base__.__subclasses__() if "
	    "c.__name__ == '_wrap_close'][0].__init__.__globals__['system']"
	    "('id')", VERDICT_CONTAINED, LAYER_SECCOMP, "execve");
}

/* The host's processes are out of reach: this test's own pid does not
 * exist in the world's pid namespace, /proc is not granted, and no user
 * namespace can be made to get capabilities back. */
static void
test_host_processes(void **state)
{
	struct fx *f = *state;
	char in[160];

	snprintf(in, sizeof in, "import os, signal; os.kill(%d, "
	    "signal.SIGKILL)", (int)getpid());
	expect(f, in, VERDICT_ERROR, LAYER_EVAL, "ProcessLookupError");
	expect(f, "import os; os.listdir('/proc')", VERDICT_CONTAINED,
	    LAYER_LANDLOCK, "/proc");
	expect(f, "import ctypes; ctypes.CDLL(None, use_errno=True)"
	    ".unshare(0x10000000)", VERDICT_CONTAINED, LAYER_SECCOMP,
	    "unshare");
	/* and the session goes on in the same world */
	assert_string_equal(run(f, "6 * 7")->result, "42");
}

/* Names live as long as the world: across inputs, until :reset. */
static void
test_names_persist(void **state)
{
	struct fx *f = *state;
	const char *const *names;
	size_t n, i;
	bool seen = false;

	run(f, "import os; x = 41; g = lambda: x + 1");
	assert_string_equal(run(f, "g()")->result, "42");
	names = session_world_names(f->s, PATH_JAIL, &n);
	for (i = 0; names != NULL && i < n; i++)
		seen |= strcmp(names[i], "g") == 0;
	assert_true(seen);
	session_reset(f->s, true);
	expect(f, "g()", VERDICT_ERROR, LAYER_EVAL,
	    "NameError: name 'g' is not defined");
	/* the reset world has the essay's files again */
	assert_string_equal(run(f, "read_file({'path': 'report.txt'})")->outcome,
	    "Q2 refunds summary");
}

/* --fresh-world: one world per input, nothing carried over. */
static void
test_fresh_world(void **state)
{
	struct session *s = jail_session(true, false, 0);
	struct arena *a = arena_new();
	struct record *r;

	(void)state;
	run_in(s, a, "x = 1");
	r = run_in(s, a, "x");
	assert_int_equal(r->verdict, VERDICT_ERROR);
	assert_non_null(strstr(r->reason, "NameError"));
	session_free(s);
	arena_free(a);
}

/* Bombs end by a limit, and the session goes on. */
static void
test_bombs_end(void **state)
{
	struct fx *f = *state;
	static const struct {
		const char	*src;
		enum layer	 layer;
	} bombs[] = {
		{ "'x' * 10**10", LAYER_RLIMIT },
		{ "[0] * 10**9", LAYER_RLIMIT },
		{ "import os\nwhile True: os.fork()", LAYER_RLIMIT },
		{ "while True: pass", LAYER_TIMEOUT },
	};
	size_t i;

	for (i = 0; i < sizeof bombs / sizeof bombs[0]; i++) {
		time_t t0 = time(NULL);
		struct record *r = run(f, bombs[i].src);

		if (r->verdict != VERDICT_CONTAINED ||
		    r->layer != bombs[i].layer)
			fail_msg("%s: %s", bombs[i].src, r->line);
		assert_true(time(NULL) - t0 < 15);
	}
	/* still works afterwards (a fresh world after the timeout) */
	assert_string_equal(run(f, "6 * 7")->result, "42");
}

/* Every set-up step made to fail refuses: nothing runs, no fallback. */
static void
test_fail_closed(void **state)
{
	int step;

	(void)state;
	for (step = JAIL_STEP_NONE + 1; step < JAIL_STEP_COUNT; step++) {
		struct session *s;
		struct arena *a;
		struct record *r;
		char want[64];

		if (jail_step_word(step, JAIL_SETUP_WORLD) == NULL)
			continue;	/* the model-engine jail's alone */
		s = jail_session(false, false, step);
		a = arena_new();
		r = run_in(s, a, "write_file({'path': 'ran.txt', 'text': 'x'})");

		snprintf(want, sizeof want, "world set-up failed at %s",
		    world_step_name((enum jail_step)step));
		if (r->verdict != VERDICT_ERROR ||
		    strstr(r->reason, "jail refused, nothing ran") == NULL ||
		    strstr(r->reason, want) == NULL)
			fail_msg("step %s: %s", world_step_name(
			    (enum jail_step)step), r->line);
		assert_false(fx_has(r, "ran.txt"));
		assert_false(mfs_exists(session_fs(s, PATH_JAIL), "ran.txt"));
		assert_null(session_engine_note(s));	/* no fallback */
		session_free(s);
		arena_free(a);
	}
}

/* --jail-filter: the sandbox's allowlist in front, CPython behind it. */
static void
test_jail_filter(void **state)
{
	struct session *s = jail_session(false, true, 0);
	struct arena *a = arena_new();
	struct record *r;

	(void)state;
	r = run_in(s, a, "__import__('os').system('id')");
	assert_int_equal(r->verdict, VERDICT_BLOCKED);
	assert_int_equal(r->layer, LAYER_ALLOWLIST);
	r = run_in(s, a, "round(sum(orders) / len(orders), 2)");
	assert_string_equal(r->result, "173.33");
	assert_string_equal(r->engine, "cpython");
	session_free(s);
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, fx_teardown)
		T(test_essay_work),
		T(test_execve_refused),
		T(test_no_network),
		T(test_not_found_is_an_error),
		T(test_damage_stays_inside),
		T(test_cpython_inside),
		T(test_host_processes),
		T(test_names_persist),
		T(test_bombs_end),
		cmocka_unit_test(test_fresh_world),
		cmocka_unit_test(test_fail_closed),
		cmocka_unit_test(test_jail_filter),
#undef T
	};
	int rc;

	if ((canary_file = fx_canary_new("jw")) == NULL)
		return 99;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	fx_canary_remove();
	return rc;
}
