/*
 * fuzz_session.c -- libFuzzer target: the evaluator, on the unsafe and the
 * sandbox paths, through session_run() as the program drives it.
 *
 * Each fuzz input is a fresh session with the essay's seeded state; the
 * input is cut at newlines and every line is one REPL entry, so that an
 * assignment on one line feeds the next (names holding lambdas, objects,
 * self-referencing containers).  Every record is also printed as JSON, the
 * way the batch printer would.  The sandbox path's policy is chosen by
 * the input's length (essay, dunder, blocklist), so that the weaker
 * presets, which let most code reach the evaluator, are fuzzed too.  The
 * jail path is left out: it forks.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"
#include "sandbox/policy.h"
#include "record/record.h"
#include "base/sbuf.h"
#include "session/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Lines per fuzz input: enough to build state, few enough to stay fast. */
#define MAX_LINES 8

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct session_opts o;
	struct session *s;
	const char *p = (const char *)data, *end = p + size;
	unsigned lines = 0;

	static const char *const presets[] = { "essay", "dunder", "blocklist" };

	memset(&o, 0, sizeof o);
	o.paths = PATH_BIT(PATH_UNSAFE) | PATH_BIT(PATH_SANDBOX);
	o.policy = policy_preset(presets[size % 3]);
	s = session_new(&o);
	while (p < end && lines++ < MAX_LINES) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct arena *a = arena_new();
		struct record *r = NULL;
		size_t i, n;

		n = session_run(s, p, len, NULL, 0, a, &r);
		for (i = 0; i < n; i++) {
			struct sbuf sb = SBUF_INIT;
			record_json(&r[i], &sb);
			sbuf_free(&sb);
		}
		arena_free(a);
		p += len + 1;
	}
	session_free(s);
	return 0;
}
