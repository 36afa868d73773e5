/*
 * test_verdicts.c -- the verdicts' table (record.h's VERDICTS and
 * LAYERS): each verdict's name, word, colour and whether it is a
 * refusal, and the name a refusal gives each layer.  The trace line, the
 * screen and the records read these; a change here is a change the
 * class sees.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <string.h>

#include "base/arena.h"
#include "base/textesc.h"
#include "record/paths.h"
#include "record/record.h"

/*
 * A path's code label ("sandboxed code") is shown in each trace line as
 * the table has it, unescaped, with the table's length (join_line): it
 * must be text that escaping leaves as it is, and that length.
 */
static void
test_code_labels_plain(void **state)
{
	struct arena *a = arena_new();
	int p;

	(void)state;
	for (p = 0; p < PATH__COUNT; p++) {
		const struct path_row *row = path_row((enum path_id)p);
		assert_ptr_equal(textesc_text(a, row->code_label),
		    row->code_label);
		assert_int_equal(strlen(row->code_label), row->code_label_len);
	}
	arena_free(a);
}

static void
test_verdicts(void **state)
{
	static const struct {
		enum verdict v;
		const char *name, *word;
		enum verdict_colour colour;
		bool refusal;
	} want[] = {
		{ VERDICT_OK, "ok", "ok", VERDICT_COLOUR_OK, false },
		{ VERDICT_BLOCKED, "blocked", "BLOCKED",
		    VERDICT_COLOUR_BLOCKED, true },
		{ VERDICT_ERROR, "error", "error", VERDICT_COLOUR_ERROR,
		    false },
		{ VERDICT_LANDED, "landed", "LANDED", VERDICT_COLOUR_DAMAGE,
		    false },
		{ VERDICT_CONTAINED, "contained", "CONTAINED",
		    VERDICT_COLOUR_CONTAINED, true },
		{ VERDICT_BYPASSED, "bypassed", "BYPASSED",
		    VERDICT_COLOUR_DAMAGE, false },
		{ VERDICT_INSIDE, "inside", "INSIDE", VERDICT_COLOUR_INSIDE,
		    false },
	};
	size_t i;

	(void)state;
	assert_int_equal(VERDICT__COUNT, sizeof want / sizeof want[0]);
	for (i = 0; i < sizeof want / sizeof want[0]; i++) {
		assert_int_equal(want[i].v, (int)i);
		assert_string_equal(record_verdict_name(want[i].v),
		    want[i].name);
		assert_string_equal(record_verdict_word(want[i].v),
		    want[i].word);
		assert_int_equal(record_verdict_colour(want[i].v),
		    want[i].colour);
		assert_int_equal(record_verdict_is_refusal(want[i].v),
		    want[i].refusal);
	}
}

static void
test_refusers(void **state)
{
	static const struct {
		enum layer l;
		const char *refuser;
	} want[] = {
		{ LAYER_COMMANDS, "the command allowlist" },
		{ LAYER_NAMESPACE, "the namespaces" },
		{ LAYER_LANDLOCK, "Landlock" },
		{ LAYER_SECCOMP, "seccomp" },
		{ LAYER_RLIMIT, "an rlimit" },
		{ LAYER_TIMEOUT, "the timeout" },
		{ LAYER_GVISOR, "gVisor" },
		{ LAYER_MICROVM, "the microVM" },
	};
	size_t i, named = 0;
	int l;

	(void)state;
	for (i = 0; i < sizeof want / sizeof want[0]; i++)
		assert_string_equal(record_layer_refuser(want[i].l),
		    want[i].refuser);
	/* the rest: the policy names its filter, or the reason says it */
	for (l = 0; l < LAYER__COUNT; l++)
		if (record_layer_refuser((enum layer)l) != NULL)
			named++;
	assert_int_equal(named, sizeof want / sizeof want[0]);
	assert_null(record_layer_refuser(LAYER_ALLOWLIST));
	assert_null(record_layer_refuser(LAYER_BUDGET));
	assert_null(record_layer_refuser(LAYER_NETWORK));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_code_labels_plain),
		cmocka_unit_test(test_refusers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
