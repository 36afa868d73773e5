/*
 * test_world.c -- a world refuses when any set-up step fails, and the
 * session then runs the model and says so.
 *
 * Every step of a replica world (jail.h's JAIL_STEPS, a world's) is made to
 * fail in turn with the fail_at hook: the build must fail naming that
 * step, no code may run (a canary the input would write never appears),
 * and a session asked for a cpython world gets records with engine
 * "model" and a note naming the step.  Then the same session options
 * without the hook give engine "cpython" and CPython's own answer.  The
 * sandbox path builds a world of its own only under a policy wider than
 * the essay's subset, and falls back the same way.
 * Never skips on Linux: the machines this runs on (CI) have user
 * namespaces.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "base/arena.h"
#include "fs/mockfs.h"
#include "sandbox/policy.h"
#include "record/record.h"
#include "session/session.h"
#include "world/world.h"
#include "world/world_int.h"

/* Every step refuses: the build fails naming it, nothing runs. */
static void
test_every_step_refuses(void **state)
{
	struct mfs *fs = mfs_new();
	struct world_seed seed = { .fs = fs,
	    .setup = "open('ran.txt', 'w').write('the code ran')\n" };
	int step;

	(void)state;
	for (step = JAIL_STEP_NONE + 1; step < JAIL_STEP_COUNT; step++) {
		struct world *w;
		char *err = NULL, want[64];
		bool built;

		if (jail_step_word(step, JAIL_SETUP_WORLD) == NULL)
			continue;	/* the jail's alone */
		w = world_new(WORLD_ENGINE_CPYTHON, 0, step);
		built = world_build(w, &seed, &err);

		snprintf(want, sizeof want, "world set-up failed at %s",
		    world_step_name((enum jail_step)step));
		print_message("  %-14s %s\n", world_step_name(
		    (enum jail_step)step), err ? err : "(built)");
		assert_false(built);
		assert_non_null(err);
		assert_non_null(strstr(err, want));
		/* the set-up source never ran: nothing came back */
		world_read_back(w, fs);
		assert_false(mfs_exists(fs, "ran.txt"));
		free(err);
		world_free(w);
	}
	mfs_free(fs);
}

/*
 * Each world kind's container is a row of jail.h's descriptions: the
 * fake internet the replica's alone, every CPython kind a world's
 * words, and the model-jail kind the model-engine jail's own row.  A
 * model-jail world runs only a parsed input (the jail path's): given
 * none, nothing runs and it says so.
 */
static void
test_kinds_are_containers(void **state)
{
	struct arena *a = arena_new();
	struct world_input in = { .src = "1", .len = 1, .a = a };
	struct world_reply rep;
	struct world *w;
	int k;

	(void)state;
	for (k = 0; k < WORLD_KIND__COUNT; k++) {
		const struct jail_container *c =
		    world_kind_container((enum world_kind)k);

		assert_non_null(c);
		assert_int_equal(world_kind_has_fakenet((enum world_kind)k),
		    k == WORLD_KIND_REPLICA);
		assert_int_equal(c->words, k == WORLD_KIND_MODEL_JAIL ?
		    JAIL_SETUP_JAIL : JAIL_SETUP_WORLD);
	}
	assert_null(world_kind_container(WORLD_KIND__COUNT));
	assert_ptr_equal(world_kind_container(WORLD_KIND_MODEL_JAIL),
	    jail_container(JAIL_CONTAINER_MODEL));

	w = world_new_kind(WORLD_ENGINE_MODEL, WORLD_KIND_MODEL_JAIL, 0, 0);
	assert_int_equal(w->kind, WORLD_KIND_MODEL_JAIL);
	assert_true(world_kind_contains(w->kind));
	world_run(w, &in, &rep);
	assert_int_equal(rep.status, WORLD_LOST);
	assert_false(rep.decided);
	world_free(w);
	arena_free(a);
}

/* Run input on path p alone: its one record. */
static struct record *
run_on(struct session *s, struct arena *a, enum path_id p, const char *input)
{
	struct record *r;
	size_t n = session_run(s, input, strlen(input), NULL, PATH_BIT(p), a,
	    &r);

	assert_int_equal(n, 1);
	return r;
}

static struct record *
run_unsafe(struct session *s, struct arena *a, const char *input)
{
	return run_on(s, a, PATH_UNSAFE, input);
}

/* A session asked for cpython falls back to the model and says why. */
static void
test_session_falls_back_to_the_model(void **state)
{
	struct session_opts o = { .engine = WORLD_ENGINE_CPYTHON,
	    .world_fail_at = JAIL_STEP_SECCOMP };
	struct session *s = session_new(&o);
	struct arena *a = arena_new();
	struct record *r;

	(void)state;
	r = run_unsafe(s, a, "__import__('pathlib').Path('secrets.txt')"
	    ".read_text()");
	assert_string_equal(r->engine, "model");
	assert_non_null(session_engine_note(s));
	assert_non_null(strstr(session_engine_note(s), "seccomp"));
	assert_string_equal(session_engine(s, PATH_UNSAFE), "model");
	session_free(s);

	/* Without the hook: CPython's own answer, from a world. */
	o.world_fail_at = 0;
	s = session_new(&o);
	r = run_unsafe(s, a, "__import__('pathlib').Path('secrets.txt')"
	    ".read_text()");
	assert_string_equal(r->engine, "cpython");
	assert_string_equal(r->result, "'API_KEY=sk-live-9f3a2b'");
	assert_null(session_engine_note(s));
	/* ... whose names persist, and whose :reset forgets them */
	(void)run_unsafe(s, a, "import json; x = json.dumps([1])");
	r = run_unsafe(s, a, "x");
	assert_string_equal(r->result, "'[1]'");
	/* the names the files pane lists are the world's own */
	{
		size_t n;
		const char *const *names = session_world_names(s, PATH_UNSAFE,
		    &n);
		assert_non_null(names);
		assert_int_equal(n, 3);
		assert_string_equal(names[0], "json");
		assert_string_equal(names[1], "orders");
		assert_string_equal(names[2], "x");
	}
	session_reset(s, true);
	r = run_unsafe(s, a, "x");
	assert_string_equal(r->verdict == VERDICT_ERROR ? r->reason : "",
	    "NameError: name 'x' is not defined");
	session_free(s);
	arena_free(a);
}

static struct record *
run_sandbox(struct session *s, struct arena *a, const char *input)
{
	return run_on(s, a, PATH_SANDBOX, input);
}

/*
 * The sandbox path builds a world only under a policy wider than the
 * essay's subset: with every build made to fail, the essay's inputs run
 * and nothing says the sandbox fell back (nothing was built); the
 * dunder policy's first input tries, falls back to the evaluator and
 * says so.
 */
static void
test_sandbox_world_only_for_wide_policies(void **state)
{
	struct session_opts o = { .engine = WORLD_ENGINE_CPYTHON,
	    .world_fail_at = JAIL_STEP_SECCOMP };
	struct session *s = session_new(&o);
	struct arena *a = arena_new();
	struct record *r;

	(void)state;
	r = run_sandbox(s, a, "sum(orders)");
	assert_string_equal(r->engine, "model");
	assert_string_equal(r->result, "520.0");
	r = run_sandbox(s, a, "write_file({'path': 'a.txt', 'text': 'x'})");
	assert_int_equal(r->verdict, VERDICT_OK);
	assert_null(session_engine_note(s));	/* no world was built */
	assert_string_equal(session_engine(s, PATH_SANDBOX), "model");

	session_set_policy(s, policy_preset("dunder"));
	r = run_sandbox(s, a, "sorted(orders)");
	assert_string_equal(r->engine, "model");
	assert_string_equal(r->result, "[90.0, 180.0, 250.0]");
	assert_non_null(session_engine_note(s));
	assert_non_null(strstr(session_engine_note(s),
	    "the sandbox path runs the model"));
	assert_non_null(strstr(session_engine_note(s), "seccomp"));
	session_free(s);
	arena_free(a);
}

/*
 * A wide policy's world holds the sandbox's names and files for the
 * session; a spell under the essay's policy changes the files without
 * it, and the world built afterwards starts from them.
 */
static void
test_sandbox_world_follows_the_policy(void **state)
{
	struct session_opts o = { .engine = WORLD_ENGINE_CPYTHON };
	struct session *s;
	struct arena *a = arena_new();
	struct record *r;
	size_t n;

	(void)state;
	o.policy = policy_preset("dunder");
	s = session_new(&o);
	r = run_sandbox(s, a, "[(y := 7)]");
	assert_string_equal(r->engine, "cpython");
	r = run_sandbox(s, a, "y * 6");
	assert_string_equal(r->result, "42");
	assert_non_null(session_world_names(s, PATH_SANDBOX, &n));
	assert_string_equal(session_engine(s, PATH_SANDBOX), "cpython");

	session_set_policy(s, policy_preset("essay"));
	assert_string_equal(session_engine(s, PATH_SANDBOX), "model");
	assert_null(session_world_names(s, PATH_SANDBOX, &n));
	r = run_sandbox(s, a, "write_file({'path': 'b.txt', 'text': 'made "
	    "under the essay'})");
	assert_string_equal(r->engine, "model");
	assert_int_equal(r->verdict, VERDICT_OK);

	session_set_policy(s, policy_preset("dunder"));
	r = run_sandbox(s, a, "(x for x in ()).gi_frame.f_globals"
	    "['__builtins__'].open('b.txt').read()");
	assert_string_equal(r->engine, "cpython");
	assert_string_equal(r->rule, "bypassed");
	assert_string_equal(r->result, "'made under the essay'");
	session_free(s);
	arena_free(a);
}

/*
 * Going back to a snapshot gives a CPython world's path a new world built
 * from the files restored; of its old world's names, those bound to plain
 * data are bound again, and names bound after the snapshot are gone.
 */
static void
test_snapshot_rebuilds_the_world(void **state)
{
	struct session_opts o = { .engine = WORLD_ENGINE_CPYTHON };
	struct session *s = session_new(&o);
	struct arena *a = arena_new();
	struct session_snap *sn;
	struct record *r;

	(void)state;
	session_report_literals(s);	/* as the UI does */
	r = run_unsafe(s, a, "x = [1, 'two', {'k': 3.5}]");
	assert_string_equal(r->engine, "cpython");
	sn = session_snap_take(s);
	run_unsafe(s, a, "x = 0");
	run_unsafe(s, a, "y = 5");
	r = run_unsafe(s, a, "__import__('os').remove('report.txt')");
	r = run_unsafe(s, a, "__import__('os').path.exists('report.txt')");
	assert_string_equal(r->result, "False");
	session_snap_restore(s, sn);
	session_snap_free(s, sn);
	r = run_unsafe(s, a, "open('report.txt').read()");
	assert_string_equal(r->result, "'Q2 refunds summary'");
	r = run_unsafe(s, a, "x");
	assert_string_equal(r->result, "[1, 'two', {'k': 3.5}]");
	r = run_unsafe(s, a, "y");
	assert_int_equal(r->verdict, VERDICT_ERROR);
	assert_non_null(strstr(r->outcome, "NameError"));
	r = run_unsafe(s, a, "orders");	/* the seeds too */
	assert_string_equal(r->result, "[250.0, 180.0, 90.0]");
	session_free(s);
	arena_free(a);
}

/* The repr of src's value in w, in a: "" for a statement, NULL when it
 * did not run. */
static const char *
value_of(struct world *w, struct arena *a, const char *src)
{
	struct world_input in = { .src = src, .len = strlen(src), .a = a };
	struct world_reply rep;

	world_run(w, &in, &rep);
	if (rep.status != WORLD_OK)
		return NULL;
	return rep.result != NULL ? rep.result : "";
}

/*
 * world_renew (--fresh-world's replacement of a world after an input):
 * the next world runs its set-up with the last one's seed at once,
 * while the caller still does other things -- the set-up's own clock
 * says so -- and its build with that seed takes it; a world made and
 * freed the other way round, as a snapshot's restore does, runs its
 * set-up at its build.  Either way the next world has run no input: a
 * name the last one's input bound is not there.
 */
static void
test_renew_seeds_ahead(void **state)
{
	struct mfs *fs = mfs_new();
	struct world_seed seed = { .fs = fs,
	    .setup = "import time\nt0 = time.monotonic()\n" };
	struct arena *a = arena_new();
	struct world *w = world_new(WORLD_ENGINE_CPYTHON, 0, 0), *next;
	const char *v;
	char *err = NULL;

	(void)state;
	assert_true(world_build(w, &seed, &err));
	v = value_of(w, a, "mine = 1");
	assert_non_null(v);
	world_read_back(w, fs);
	next = world_renew(w, 0, 0);
	usleep(300 * 1000);
	assert_true(world_build(next, &seed, &err));
	v = value_of(next, a, "time.monotonic() - t0 > 0.25");
	assert_non_null(v);
	assert_string_equal(v, "True");		/* set up at the renew */
	v = value_of(next, a, "'mine' in dir()");
	assert_non_null(v);
	assert_string_equal(v, "False");
	/* made, then the last one freed: no renew, set up at the build */
	w = world_new(WORLD_ENGINE_CPYTHON, 0, 0);
	world_free(next);
	usleep(300 * 1000);
	assert_true(world_build(w, &seed, &err));
	v = value_of(w, a, "time.monotonic() - t0 > 0.25");
	assert_non_null(v);
	assert_string_equal(v, "False");
	world_free(w);
	arena_free(a);
	mfs_free(fs);
}

/* How many of the host's processes have marker in their command line. */
static int
count_marked(const char *marker)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		char path[300], buf[4096];
		FILE *f;
		size_t len, i;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		len = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		for (i = 0; i < len; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		buf[len] = '\0';
		if (strstr(buf, marker) != NULL)
			n++;
	}
	closedir(d);
	return n;
}

/*
 * A world replaced by world_renew ends soon after, while its successor
 * lives on unused (the session only frees that one at the next input or
 * its end): a program the last input left running is gone within a
 * second, with its world (zygote.c: "Done worlds").
 */
static void
test_renew_ends_the_last(void **state)
{
	struct mfs *fs = mfs_new();
	struct world_seed seed = { .fs = fs };
	struct arena *a = arena_new();
	struct world *w = world_new(WORLD_ENGINE_CPYTHON, 0, 0), *next;
	char marker[64], src[256];
	const char *v;
	char *err = NULL;
	int i, left = -1;

	(void)state;
	snprintf(marker, sizeof marker, "renew-ends-%ld-%ld", (long)getpid(),
	    (long)time(NULL));
	snprintf(src, sizeof src, "__import__('subprocess').Popen(['/bin/sh', "
	    "'-c', 'sleep 600; : %s']) and None", marker);
	assert_true(world_build(w, &seed, &err));
	v = value_of(w, a, src);
	assert_non_null(v);
	for (i = 0; i < 100 && count_marked(marker) == 0; i++)
		usleep(10 * 1000);
	/* (it runs; for a moment two: sh's child before it execs sleep) */
	assert_true(count_marked(marker) >= 1);
	world_read_back(w, fs);
	next = world_renew(w, 0, 0);
	for (i = 0; i < 100; i++) {
		if ((left = count_marked(marker)) == 0)
			break;
		usleep(10 * 1000);
	}
	assert_int_equal(left, 0);
	assert_true(world_build(next, &seed, &err));
	v = value_of(next, a, "1 + 1");
	assert_non_null(v);
	assert_string_equal(v, "2");
	world_free(next);
	arena_free(a);
	mfs_free(fs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_step_refuses),
		cmocka_unit_test(test_kinds_are_containers),
		cmocka_unit_test(test_session_falls_back_to_the_model),
		cmocka_unit_test(test_sandbox_world_only_for_wide_policies),
		cmocka_unit_test(test_sandbox_world_follows_the_policy),
		cmocka_unit_test(test_snapshot_rebuilds_the_world),
		cmocka_unit_test(test_renew_seeds_ahead),
		cmocka_unit_test(test_renew_ends_the_last),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
