/*
 * test_mockfs.c -- the mock filesystem keeps files sorted, copies what it
 * keeps, and reports creation, replacement and deletion; the workspace's
 * mock implementations act on it (and the unsafe path's pretend host
 * shows its files only there); the namespace and the ledger keep what
 * they are given across inputs.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "record/effect.h"
#include "fs/fsops.h"
#include "sandbox/ledger.h"
#include "fs/mockfs.h"
#include "interp/ns.h"
#include "value/rt.h"
#include "fs/workspace.h"

static void
test_sorted_and_copied(void **state)
{
	struct mfs *fs = mfs_new(), *c;
	char name[8] = "b.txt";
	size_t len;
	(void)state;
	assert_false(mfs_put(fs, name, "B", 1));
	name[0] = 'x';			/* the mfs kept its own copy */
	assert_false(mfs_put(fs, "a.txt", "A", 1));
	assert_false(mfs_put(fs, "c.txt", "", 0));
	assert_int_equal(mfs_count(fs), 3);
	assert_string_equal(mfs_name(fs, 0), "a.txt");
	assert_string_equal(mfs_name(fs, 1), "b.txt");
	assert_string_equal(mfs_name(fs, 2), "c.txt");
	assert_null(mfs_name(fs, 3));
	assert_true(mfs_put(fs, "b.txt", "BB", 2));	/* replaced */
	assert_memory_equal(mfs_get(fs, "b.txt", &len), "BB", 2);
	assert_int_equal(len, 2);
	mfs_append(fs, "b.txt", "C", 1);
	assert_memory_equal(mfs_get(fs, "b.txt", &len), "BBC", 3);
	assert_int_equal(mfs_bytes(fs), 4);
	c = mfs_clone(fs);
	assert_true(mfs_delete(fs, "a.txt"));
	assert_false(mfs_delete(fs, "a.txt"));
	assert_null(mfs_get(fs, "a.txt", NULL));
	assert_true(mfs_exists(c, "a.txt"));		/* the clone is deep */
	assert_int_equal(mfs_count(fs), 2);
	mfs_free(fs);
	mfs_free(c);
}

static void
test_binary_contents(void **state)
{
	struct mfs *fs = mfs_new();
	size_t len;
	(void)state;
	mfs_put(fs, "bin", "a\0b", 3);
	assert_memory_equal(mfs_get(fs, "bin", &len), "a\0b", 3);
	assert_int_equal(len, 3);
	mfs_free(fs);
}

/* A world's tree: a directory sorts before what it holds; modes and the
 * unreadable mark are kept by a clone, kept by a later put (the mark
 * cleared), and a change of either is a change the state sees. */
static void
test_tree_and_modes(void **state)
{
	struct mfs *fs = mfs_new(), *c;
	unsigned long gen;
	size_t i;
	(void)state;
	mfs_put(fs, "loot/secrets.txt", "S", 1);
	mfs_put(fs, "loot/", "", 0);
	mfs_put(fs, "loot.txt", "L", 1);
	assert_string_equal(mfs_name(fs, 0), "loot.txt");
	assert_string_equal(mfs_name(fs, 1), "loot/");
	assert_string_equal(mfs_name(fs, 2), "loot/secrets.txt");
	assert_true(mfs_is_dir_name("loot/"));
	assert_false(mfs_is_dir_name("loot.txt"));
	assert_int_equal(mfs_mode(fs, 1), S_IFDIR | 0755);
	assert_int_equal(mfs_mode(fs, 2), S_IFREG | 0644);
	gen = mfs_generation(fs);
	assert_true(mfs_set_mode(fs, "loot.txt", S_IFREG, true));
	assert_false(mfs_set_mode(fs, "absent", S_IFREG, true));
	assert_true(mfs_generation(fs) > gen);
	i = mfs_index(fs, "loot.txt");
	assert_true(mfs_stamp(fs, i) > gen);
	c = mfs_clone(fs);
	assert_int_equal(mfs_mode(c, 0), S_IFREG);
	assert_true(mfs_unreadable(c, 0));
	mfs_put(fs, "loot.txt", "new", 3);
	assert_int_equal(mfs_mode(fs, 0), S_IFREG);	/* kept */
	assert_false(mfs_unreadable(fs, 0));		/* cleared */
	assert_int_equal(mfs_index(fs, "absent"), (size_t)-1);
	mfs_free(fs);
	mfs_free(c);
}

/* The mock workspaces through fsops: the path's files, a pretend host's
 * files for workspace_host only, and no real execution or network. */
static void
test_workspace_mock(void **state)
{
	struct arena *a = arena_new();
	struct rt rt = { .arena = a };
	struct effect_log log = { .arena = a, .simulated = true };
	struct workspace ws = { .ops = &workspace_mock, .rt = &rt,
	    .fs = mfs_new(), .effects = &log };
	const char *d;
	size_t len;
	bool existed = true;
	value names;
	(void)state;

	assert_true(fsops_write(&ws, "a.txt", "hi", 2, false, &existed));
	assert_false(existed);
	assert_true(fsops_write(&ws, "a.txt", "!", 1, true, &existed));
	assert_true(existed);
	assert_true(fsops_read(&ws, "a.txt", &d, &len));
	assert_int_equal(len, 3);
	assert_memory_equal(d, "hi!", 3);
	assert_true(fsops_exists(&ws, "a.txt"));
	assert_true(fsops_list(&ws, &names));
	assert_int_equal(names.as.list->len, 1);
	assert_false(fsops_listdir(&ws, "a.txt", &names));
	assert_int_equal(rt.exc.cls, PYEXC_NotADirectoryError);
	rt_clear(&rt);
	assert_false(fsops_read(&ws, "/etc/passwd", &d, &len));
	assert_int_equal(rt.exc.cls, PYEXC_FileNotFoundError);
	rt_clear(&rt);
	assert_false(fsops_exec(&ws, "ls"));
	assert_int_equal(rt.exc.cls, PYEXC_RuntimeError);
	rt_clear(&rt);
	assert_false(fsops_connect(&ws, "http://x"));
	assert_int_equal(rt.exc.cls, PYEXC_RuntimeError);
	rt_clear(&rt);

	ws.ops = &workspace_host;	/* the same files, on a pretend host */
	assert_true(fsops_read(&ws, "/etc/passwd", &d, &len));
	assert_true(len > 0 && strncmp(d, "root:", 5) == 0);
	assert_true(fsops_read(&ws, "a.txt", &d, &len));
	assert_int_equal(len, 3);
	assert_true(fsops_delete(&ws, "a.txt"));
	assert_false(fsops_delete(&ws, "a.txt"));
	assert_int_equal(rt.exc.cls, PYEXC_FileNotFoundError);
	assert_int_equal(log.n, 0);	/* (effects are the callers' to say) */
	mfs_free(ws.fs);
	arena_free(a);
}

static void
test_ns_outlives_line(void **state)
{
	struct ns *ns = ns_new();
	struct arena *a = arena_new();
	value v, got;
	int i;
	(void)state;
	v = value_list(a, 2);
	value_list_append(a, v, value_float(250.0));
	value_list_append(a, v, value_cstr(a, "x"));
	ns_set(ns, "orders", v);
	arena_free(a);			/* the line is over */
	assert_true(ns_get(ns, "orders", &got));
	assert_int_equal(got.type, VT_LIST);
	assert_int_equal(got.as.list->len, 2);
	assert_true(got.as.list->items[0].as.f == 250.0);
	assert_string_equal(got.as.list->items[1].as.s->data, "x");
	/* Rebinding in a loop keeps memory bounded (compaction) and the
	 * latest value. */
	for (i = 0; i < 20000; i++) {
		struct arena *t = arena_new();
		value big = value_list(t, 64);
		int k;
		for (k = 0; k < 64; k++)
			value_list_append(t, big, value_int(i));
		ns_set(ns, "x", big);
		arena_free(t);
	}
	assert_true(ns_get(ns, "x", &got));
	assert_int_equal(got.as.list->items[63].as.i, 19999);
	assert_int_equal(ns_count(ns), 2);
	assert_string_equal(ns_name(ns, 1, NULL), "x");
	assert_true(ns_delete(ns, "orders"));
	assert_false(ns_get(ns, "orders", &got));
	ns_free(ns);
}

static void
test_ledger(void **state)
{
	struct ledger *l = ledger_new();
	bool same = false;
	(void)state;
	assert_null(ledger_find(l, "k", "{'path': 'o'}", &same));
	ledger_add(l, "k", "{'path': 'o'}", "wrote o");
	assert_string_equal(ledger_find(l, "k", "{'path': 'o'}", &same),
	    "wrote o");
	assert_true(same);
	assert_string_equal(ledger_find(l, "k", "{'path': 'p'}", &same),
	    "wrote o");
	assert_false(same);
	assert_int_equal(ledger_count(l), 1);
	ledger_clear(l);
	assert_null(ledger_find(l, "k", "{'path': 'o'}", &same));
	ledger_free(l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sorted_and_copied),
		cmocka_unit_test(test_binary_contents),
		cmocka_unit_test(test_tree_and_modes),
		cmocka_unit_test(test_workspace_mock),
		cmocka_unit_test(test_ns_outlives_line),
		cmocka_unit_test(test_ledger),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
