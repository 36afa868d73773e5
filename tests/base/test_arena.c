/*
 * test_arena.c -- the arena hands out zeroed, aligned memory, runs its
 * finalisers, bumps small objects out of its chunks, and the sbuf grows.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/arena.h"
#include "base/sbuf.h"

static int finalised;

static void
count_final(void *p)
{
	(void)p;
	finalised++;
}

static void
test_alloc_zeroed_aligned(void **state)
{
	struct arena *a = arena_new();
	int i;
	(void)state;
	for (i = 1; i < 100000; i += 97) {
		unsigned char *p = arena_alloc(a, (size_t)i);
		assert_int_equal((uintptr_t)p % 16, 0);
		assert_int_equal(p[0], 0);
		assert_int_equal(p[i - 1], 0);
		memset(p, 0xAB, (size_t)i);
	}
	arena_free(a);
}

/*
 * An arena freed is kept for the next arena_new() (a spare, its block
 * with it): what the next one hands out is zero all the same, whatever
 * the one before wrote, and however much of the block it used.
 */
static void
test_spare_zeroed(void **state)
{
	size_t used, i, k;
	(void)state;
	for (used = 16; used <= 8192; used *= 2) {
		struct arena *a = arena_new();
		unsigned char *p;
		for (k = 0; k < used; k += 16)
			memset(arena_alloc(a, 16), 0xCD, 16);
		arena_free(a);
		a = arena_new();
		for (k = 0; k < 2 * used; k += 256) {
			p = arena_alloc(a, 256);
			for (i = 0; i < 256; i++)
				assert_int_equal(p[i], 0);
			memset(p, 0xEF, 256);
		}
		arena_free(a);
	}
}

/*
 * arena_bump(): zeroed, 8-byte aligned, in the arena, never overlapping
 * (each object is filled and checked afterwards), across chunk changes
 * and requests too big for a chunk, and through a copy that carries on
 * and is copied back, as the parser's f-string sub-parsers do.
 */
static void
test_bump(void **state)
{
	struct arena *a = arena_new();
	struct arena_bump b = { a, NULL, 0, 0 }, sub;
	unsigned char *obj[3000];
	size_t len[3000], i, k;
	(void)state;
	for (i = 0; i < 3000; i++) {
		len[i] = i % 500 == 499 ? 20000 : 1 + (i * 37) % 300;
		if (i == 1500) {
			sub = b;
			obj[i] = arena_bump(&sub, len[i]);
			b = sub;
		} else
			obj[i] = arena_bump(&b, len[i]);
		assert_int_equal((uintptr_t)obj[i] % 8, 0);
		assert_true(arena_owns(a, obj[i]));
		for (k = 0; k < len[i]; k++)
			assert_int_equal(obj[i][k], 0);
		memset(obj[i], (int)(i & 0xFF), len[i]);
	}
	for (i = 0; i < 3000; i++)
		for (k = 0; k < len[i]; k++)
			assert_int_equal(obj[i][k], i & 0xFF);
	arena_free(a);
}

static void
test_finalisers_run(void **state)
{
	struct arena *a = arena_new();
	(void)state;
	finalised = 0;
	arena_on_free(a, count_final, NULL);
	arena_on_free(a, count_final, NULL);
	assert_int_equal(finalised, 0);
	arena_free(a);
	assert_int_equal(finalised, 2);
}

static void
test_grow_copies(void **state)
{
	struct arena *a = arena_new();
	int *p = arena_array(a, 4, sizeof(int));
	(void)state;
	p[0] = 1; p[3] = 4;
	p = arena_grow(a, p, 4, 5000, sizeof(int));
	assert_int_equal(p[0], 1);
	assert_int_equal(p[3], 4);
	assert_int_equal(p[4999], 0);
	assert_string_equal(arena_printf(a, "%d-%s", 7, "x"), "7-x");
	arena_free(a);
}

static void
test_sbuf(void **state)
{
	struct sbuf b = SBUF_INIT;
	int i;
	(void)state;
	assert_string_equal(sbuf_cstr(&b), "");
	for (i = 0; i < 1000; i++)
		sbuf_addf(&b, "%d,", i % 10);
	assert_int_equal(b.len, 2000);
	sbuf_truncate(&b, 4);
	assert_string_equal(sbuf_cstr(&b), "0,1,");
	sbuf_free(&b);
}

/* An arena on a meter: the meter holds what the arena took, says when a
 * cap is passed, and lets go of it all when the arena is freed. */
static void
test_meter(void **state)
{
	struct meter m = { .limit = 4u << 20 };
	struct arena *a = arena_new();
	size_t before;
	int i;
	(void)state;
	arena_set_meter(a, &m);
	assert_int_equal(m.held, arena_held(a));
	before = m.held;
	(void)arena_alloc(a, 1u << 20);
	assert_true(m.held >= before + (1u << 20));
	assert_false(m.over);
	arena_charge(a, 1000);
	assert_int_equal(m.held, arena_held(a));
	for (i = 0; i < 4; i++)
		(void)arena_alloc(a, 1u << 20);
	assert_true(m.over);		/* 5 MiB and more, past 4 */
	assert_true(arena_owns(a, arena_alloc(a, 16)));
	assert_false(arena_owns(a, &m));
	arena_free(a);
	assert_int_equal(m.held, 0);
	assert_false(m.over);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_zeroed_aligned),
		cmocka_unit_test(test_spare_zeroed),
		cmocka_unit_test(test_bump),
		cmocka_unit_test(test_finalisers_run),
		cmocka_unit_test(test_grow_copies),
		cmocka_unit_test(test_sbuf),
		cmocka_unit_test(test_meter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
