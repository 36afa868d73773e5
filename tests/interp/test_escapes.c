/*
 * test_escapes.c -- the escape gallery (scenarios/escapes.scn) played by
 * sandboxrepl's own model engine (session_new's default), as a table of
 * which control stopped what.
 *
 * The gallery is held to CPython 3.11 by tests/whole/gallery.test: every
 * payload lands in a CPython world.  The model is not CPython: it runs
 * generators eagerly and has neither site's Quitter nor importlib's
 * bootstrap, so the payloads that need them (a running generator's
 * caller, a format field walking through them) end in the model's
 * exception -- a clear outcome, and the only kind allowed.
 *
 * Every payload must: be blocked by the essay's allowlist; answer within
 * 2 s; on the unsafe path land (damage, exfiltration or a process), give
 * a value, or raise an exception with its reason -- nine in ten at least
 * land or give a value.  The blocklist preset must be bypassed by at
 * least one payload, and every bypass say so in its record.  (On the
 * model no payload gets past the dunder filter: its eval checks the
 * string with the policy, and the gallery's frame walk needs a running
 * generator; gallery.test sees CPython's dunder bypasses.)
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
#include <time.h>

#include "base/arena.h"
#include "record/record.h"
#include "app/scenario.h"
#include "session/session.h"

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool
label_has(const struct record *r, const char *tag)
{
	return strstr(r->label, tag) != NULL;
}

static void
test_gallery(void **state)
{
	const char *srcdir = getenv("srcdir");
	char path[4096];
	struct scenario sc;
	struct session_opts o = { 0 };
	struct session *s = session_new(&o);
	char *err;
	size_t i, k, escapes = 0, dunder_bypass = 0, blocklist_bypass = 0;
	size_t played = 0, raised = 0;
	unsigned bad = 0;

	(void)state;
	snprintf(path, sizeof path, "%s/scenarios/escapes.scn",
	    srcdir ? srcdir : ".");
	if (!scenario_load(path, &sc, &err))
		fail_msg("%s", err);
	for (i = 0; i < sc.n; i++) {
		struct arena *a = arena_new();
		struct scn_output out;
		double t0 = now();
		scenario_exec(s, &sc.steps[i], a, &out);
		if (now() - t0 > 2.0) {
			fprintf(stderr, "SLOW line %u\n", sc.steps[i].lineno);
			bad++;
		}
		if (out.nrecords > 0)
			escapes++;
		for (k = 0; k < out.nrecords; k++) {
			const struct record *r = &out.records[k];
			bool ok = true;
			if (r->path == PATH_UNSAFE) {
				ok = r->verdict == VERDICT_LANDED ||
				    (r->verdict == VERDICT_OK && r->result) ||
				    (r->verdict == VERDICT_ERROR &&
				    r->reason != NULL);
				if (r->verdict == VERDICT_ERROR) {
					fprintf(stderr, "MODEL RAISED %s\n",
					    r->line);
					raised++;
				} else
					played++;
			}
			else if (label_has(r, "[essay]"))
				ok = r->verdict == VERDICT_BLOCKED &&
				    r->rule != NULL && r->reason != NULL;
			else if (label_has(r, "[dunder]"))
				dunder_bypass += r->verdict == VERDICT_BYPASSED;
			else if (label_has(r, "[blocklist]"))
				blocklist_bypass +=
				    r->verdict == VERDICT_BYPASSED;
			/* (its rule stays "bypassed" in records, as before) */
			if (r->verdict == VERDICT_BYPASSED &&
			    (strncmp(r->outcome, "BYPASSED", 8) != 0 ||
			    r->rule == NULL || strcmp(r->rule, "bypassed") != 0))
				ok = false;
			if (!ok) {
				fprintf(stderr, "WRONG %s\n", r->line);
				bad++;
			}
		}
		arena_free(a);
	}
	fprintf(stderr, "gallery: %zu escapes, %zu played out and %zu raised "
	    "on the model; dunder bypassed %zu times, blocklist %zu times\n",
	    escapes, played, raised, dunder_bypass, blocklist_bypass);
	assert_true(escapes >= 25);
	assert_int_equal(played + raised, escapes);
	assert_true(played * 10 >= escapes * 9);
	assert_true(blocklist_bypass >= 1);
	assert_int_equal(bad, 0);
	scenario_free(&sc);
	session_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gallery),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
