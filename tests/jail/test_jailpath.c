/*
 * test_jailpath.c -- the jail path with the model engine (the model in
 * its own kernel jail, jailpath.c), probed with the inputs a student
 * types.  (With CPython, the default, see test_jailworld.c.)
 *
 * Each probe is a Python input run on the jail path through session_run(),
 * exactly as `sandboxrepl --path=jail --engine=model` runs it.  Escapes must end
 * "contained" with the layer that stopped them, and the host side checks
 * that nothing was touched: a canary directory keeps its file, a TCP
 * listener on host loopback accepts nothing.  Legitimate work must still
 * give CPython's answer, and its real effects must come back as the jail
 * path's filesystem.  With a set-up step made to fail, nothing runs.
 *
 * Skips (exit 77) only when the kernel has no user namespaces.
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
#include "jail/jail.h"
#include "fs/mockfs.h"
#include "record/record.h"
#include "session/session.h"

/* Under AddressSanitizer, let malloc fail under RLIMIT_AS the way it does
 * without it, so a memory bomb in the jail meets the rlimit, not ASan's
 * allocation-size check. */
const char *__asan_default_options(void);
const char *
__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

static const char *canary_file;

static int
setup(void **state)
{
	struct session_opts o = { .paths = PATH_BIT(PATH_JAIL) };

	*state = fx_new(&o);
	return 0;
}

static struct record *
run(struct fx *f, const char *input)
{
	return fx_run(f->s, f->a, 0, PATH_JAIL, input);
}

static void
expect_contained(struct fx *f, const char *input, enum layer layer,
    const char *reason_part)
{
	struct record *r = run(f, input);
	if (r->verdict != VERDICT_CONTAINED || r->layer != layer ||
	    (reason_part && strstr(r->reason, reason_part) == NULL))
		fail_msg("%s: got %s/%s: %s", input,
		    record_verdict_name(r->verdict),
		    record_layer_name(r->layer), r->line);
}

static void
test_legit_work(void **state)
{
	struct fx *f = *state;
	struct record *r = run(f, "round(sum(orders) / len(orders), 2)");
	assert_int_equal(r->verdict, VERDICT_OK);
	assert_string_equal(r->result, "173.33");
	r = run(f, "read_file({'path': 'report.txt'})");
	assert_string_equal(r->outcome, "Q2 refunds summary");
	r = run(f, "write_file({'path': 'out.txt', 'text': 'ok'})");
	assert_int_equal(r->verdict, VERDICT_OK);
	assert_true(fx_has(r, "out.txt"));		/* read back from the jail */
	assert_int_equal(r->neffects, 1);
	assert_false(r->effects[0].simulated);	/* a real write */
	r = run(f, "open('out.txt').read()");
	assert_string_equal(r->result, "'ok'");
	/* Real damage inside the workspace is real, and only there. */
	r = run(f, "__import__('os').remove('secrets.txt')");
	assert_int_equal(r->verdict, VERDICT_INSIDE);
	assert_false(fx_has(r, "secrets.txt"));
	/* and the record says where it happened, not a bare "None" */
	assert_string_equal(r->outcome, "INSIDE the jail's copy: deleted "
	    "secrets.txt; the host is untouched");
	/* A typo is the error it is on every path, not a containment. */
	r = run(f, "read_file('reprot.txt')");
	assert_int_equal(r->verdict, VERDICT_ERROR);
	assert_string_equal(r->reason, "FileNotFoundError: [Errno 2] No such "
	    "file or directory: 'reprot.txt'");
	r = run(f, "open('reprot.txt').read()");
	assert_int_equal(r->verdict, VERDICT_ERROR);
	/* The command as students guess it, as the essay writes it. */
	assert_string_equal(run(f, "read_file('report.txt')")->outcome,
	    "Q2 refunds summary");
	assert_string_equal(run(f, "read_file(path='report.txt')")->outcome,
	    "Q2 refunds summary");
	assert_string_equal(run(f, "list_files('.')")->outcome,
	    "['out.txt', 'report.txt']");
}

static void
test_host_files_untouched(void **state)
{
	struct fx *f = *state;
	char in[512];
	struct stat st;

	snprintf(in, sizeof in, "open('%s').read()", canary_file);
	expect_contained(f, in, LAYER_NAMESPACE, "No such file");
	snprintf(in, sizeof in, "__import__('os').remove('%s')", canary_file);
	expect_contained(f, in, LAYER_NAMESPACE, "unlink");
	snprintf(in, sizeof in, "delete_file({'path': '%s'})", canary_file);
	expect_contained(f, in, LAYER_NAMESPACE, NULL);
	snprintf(in, sizeof in, "write_file({'path': '%s', 'text': 'x'})",
	    canary_file);
	expect_contained(f, in, LAYER_NAMESPACE, NULL);
	assert_int_equal(stat(canary_file, &st), 0);
	assert_int_equal(st.st_size, 6);
	expect_contained(f, "open('/etc/passwd').read()", LAYER_NAMESPACE,
	    "/etc/passwd");
	expect_contained(f, "open('/proc/self/exe').read()", LAYER_NAMESPACE,
	    NULL);
	expect_contained(f, "open('../../../../etc/shadow').read()",
	    LAYER_NAMESPACE, NULL);
}

static void
test_no_processes(void **state)
{
	struct fx *f = *state;
	expect_contained(f, "__import__('os').system('touch /tmp/pwned')",
	    LAYER_SECCOMP, "starting a program (execve) is forbidden");
	expect_contained(f, "__import__('os').popen('id')", LAYER_SECCOMP,
	    "execve");
	assert_int_not_equal(access("/tmp/pwned", F_OK), 0);
	/* The code runs as PID 1 of a pid namespace of its own: no other
	 * process, not even the warden, is there to see. */
	assert_string_equal(run(f, "__import__('os').getpid()")->result, "1");
}

static void
test_no_network(void **state)
{
	struct fx *f = *state;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof sa;
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), cfd;
	char in[256];

	assert_true(lfd >= 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof sa), 0);
	assert_int_equal(listen(lfd, 8), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &len), 0);
	snprintf(in, sizeof in, "http_get({'url': 'http://127.0.0.1:%d/', "
	    "'body': 'API_KEY=sk-live-9f3a2b'})", ntohs(sa.sin_port));
	expect_contained(f, in, LAYER_SECCOMP, "socket");
	cfd = accept(lfd, NULL, NULL);
	assert_int_equal(cfd, -1);		/* nobody came */
	assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
	close(lfd);
}

static void
test_bombs_end(void **state)
{
	struct fx *f = *state;
	static const char *const bombs[] = {
		"9**9**9",
		"'a' * 10**10",
		"[0] * 10**9",
		"[1 for a in 'x' * 10**5 for b in 'x' * 10**5]",
	};
	size_t i;
	for (i = 0; i < sizeof bombs / sizeof bombs[0]; i++) {
		time_t t0 = time(NULL);
		struct record *r = run(f, bombs[i]);
		if (r->verdict != VERDICT_CONTAINED)
			fail_msg("%s: %s", bombs[i], r->line);
		assert_true(r->layer == LAYER_RLIMIT ||
		    r->layer == LAYER_TIMEOUT);
		assert_true(time(NULL) - t0 < 15);
	}
	/* And the jail path still works afterwards. */
	assert_string_equal(run(f, "6 * 7")->result, "42");
}

static void
test_fail_closed(void **state)
{
	int step;
	(void)state;
	for (step = 1; step < JAIL_STEP_COUNT; step++) {
		struct session_opts o = { .paths = PATH_BIT(PATH_JAIL),
		    .jail_fail_at = step };
		struct session *s;
		struct arena *a;
		struct record *r;
		const char *in = "write_file({'path': 'ran.txt', 'text': 'x'})";

		if (jail_step_word(step, JAIL_SETUP_JAIL) == NULL)
			continue;	/* a world's alone */
		s = session_new(&o);
		a = arena_new();
		session_run(s, in, strlen(in), NULL, 0, a, &r);
		if (r->verdict != VERDICT_ERROR ||
		    strstr(r->reason, "nothing ran") == NULL)
			fail_msg("step %s: %s", jail_step_name(step), r->line);
		assert_false(fx_has(r, "ran.txt"));
		assert_false(mfs_exists(session_fs(s, PATH_JAIL), "ran.txt"));
		session_free(s);
		arena_free(a);
	}
}

static void
test_jail_filter(void **state)
{
	struct session_opts o = { .paths = PATH_BIT(PATH_JAIL),
	    .jail_filter = true };
	struct session *s = session_new(&o);
	struct arena *a = arena_new();
	struct record *r;
	const char *in = "__import__('os').system('id')";
	(void)state;
	session_run(s, in, strlen(in), NULL, 0, a, &r);
	assert_int_equal(r->verdict, VERDICT_BLOCKED);
	assert_int_equal(r->layer, LAYER_ALLOWLIST);
	in = "round(sum(orders) / len(orders), 2)";
	session_run(s, in, strlen(in), NULL, 0, a, &r);
	assert_string_equal(r->result, "173.33");
	session_free(s);
	arena_free(a);
}

/* Each input runs in a fresh jail, yet the names it binds are kept for
 * the next one: literals and modules come back (read as hostile input);
 * what cannot, the record says stayed behind. */
static void
test_names_kept(void **state)
{
	struct fx *f = *state;
	struct record *r;
	run(f, "d = {'a': [1.5, None, -2, (1+2j)], 'b': {3}, 'c': set()}");
	r = run(f, "d");
	assert_string_equal(r->result,
	    "{'a': [1.5, None, -2, (1+2j)], 'b': {3}, 'c': set()}");
	run(f, "s = \"__import__('os').system('id')\"");
	r = run(f, "s");
	assert_string_equal(r->result, "\"__import__('os').system('id')\"");
	run(f, "import os");
	expect_contained(f, "os.system('id')", LAYER_SECCOMP, "execve");
	r = run(f, "g = lambda: 1");
	assert_int_equal(r->verdict, VERDICT_OK);
	assert_non_null(strstr(r->outcome, "g stayed in the jail"));
	r = run(f, "g()");
	assert_string_equal(r->reason, "NameError: name 'g' is not defined");
	/* a change in place comes back too; a list that holds itself
	 * cannot, and no stale copy is left in its place */
	run(f, "l = [1]");
	run(f, "l.append(2)");
	assert_string_equal(run(f, "l")->result, "[1, 2]");
	r = run(f, "l.append(l)");
	assert_non_null(strstr(r->outcome, "l stayed in the jail"));
	r = run(f, "l");
	assert_string_equal(r->reason, "NameError: name 'l' is not defined");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, fx_teardown)
		T(test_names_kept),
		T(test_legit_work),
		T(test_host_files_untouched),
		T(test_no_processes),
		T(test_no_network),
		T(test_bombs_end),
		cmocka_unit_test(test_fail_closed),
		cmocka_unit_test(test_jail_filter),
#undef T
	};
	int rc;

	if (access("/proc/self/ns/user", F_OK) == -1) {
		fprintf(stderr, "test_jailpath: no user namespaces; skipping\n");
		return 77;
	}
	if ((canary_file = fx_canary_new("jp")) == NULL)
		return 99;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	fx_canary_remove();
	return rc;
}
