/*
 * test_state.c -- what --state=DIR keeps: the digests it names contents and
 * ledger keys by (FIPS 180-4's test vectors), and a session that survives
 * the ways a save can be cut short -- a torn journal line, a compaction
 * killed between its rename and emptying the journal, a reset between
 * inputs -- checked through the records a restarted session gives.
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
#include <sys/stat.h>
#include <unistd.h>

#include "base/arena.h"
#include "sandbox/ledger.h"
#include "record/record.h"
#include "session/session.h"
#include "base/sha256.h"
#include "base/xalloc.h"

/* ---- SHA-256 ---- */

static void
test_sha256_vectors(void **state)
{
	static const struct {
		const char *msg, *digest;
	} v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb924"
		    "27ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223"
		    "b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		    "248d6a61d20638b8e5c026930c3e6039"
		    "a33ce45964ff2167f6ecedd419db06c1" },
		{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
		    "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
		    "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
	};
	char hex[SHA256_HEX];
	size_t i;
	(void)state;
	for (i = 0; i < sizeof v / sizeof v[0]; i++) {
		sha256_hex(v[i].msg, strlen(v[i].msg), hex);
		assert_string_equal(hex, v[i].digest);
	}
}

/* A million 'a', fed in pieces that straddle the 64-byte blocks. */
static void
test_sha256_pieces(void **state)
{
	static const size_t sizes[] = { 1, 63, 64, 65, 55, 56, 1000 };
	char *a = xmalloc(1000000);
	unsigned char d[SHA256_BYTES], whole[SHA256_BYTES];
	struct sha256 c;
	size_t done = 0, k = 0;
	(void)state;

	memset(a, 'a', 1000000);
	sha256_init(&c);
	while (done < 1000000) {
		size_t n = sizes[k++ % (sizeof sizes / sizeof sizes[0])];
		if (n > 1000000 - done)
			n = 1000000 - done;
		sha256_update(&c, a + done, n);
		done += n;
	}
	sha256_final(&c, d);
	sha256_init(&c);
	sha256_update(&c, a, 1000000);
	sha256_final(&c, whole);
	assert_memory_equal(d, whole, SHA256_BYTES);
	/* FIPS 180-2, appendix B.3 */
	assert_int_equal(d[0], 0xcd);
	assert_int_equal(d[1], 0xc7);
	assert_int_equal(d[30], 0x2c);
	assert_int_equal(d[31], 0xd0);
	free(a);
}

/* ---- the ledger ---- */

/* Any key -- a lone surrogate's bytes, a long text -- goes through the
 * digests the state stores and is found again. */
static void
test_ledger_digests_round_trip(void **state)
{
	struct ledger *l = ledger_new(), *back = ledger_new();
	const char *key = "key:k\xed\xa0\x80", *args = "{'path': 'a\\ud800'}";
	const char *k, *a, *m;
	bool same = false;
	(void)state;

	ledger_add(l, key, args, "wrote a\xed\xa0\x80");
	assert_true(ledger_at(l, 0, &k, &a, &m));
	assert_int_equal(strlen(k), SHA256_HEX - 1);
	assert_true(ledger_add_digests(back, k, a, m));
	assert_string_equal(ledger_find(back, key, args, &same),
	    "wrote a\xed\xa0\x80");
	assert_true(same);
	assert_null(ledger_find(back, "key:k", args, &same));
	assert_false(ledger_add_digests(back, "key:k", a, m));
	assert_false(ledger_add_digests(back, k, "abc", m));
	assert_int_equal(ledger_count(back), 1);
	ledger_free(l);
	ledger_free(back);
}

/* ---- a session in DIR ---- */

struct fixture {
	char	 dir[64];
	char	 path[128];
};

static int
setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof *f);
	snprintf(f->dir, sizeof f->dir, "/tmp/test_state.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof f->path, "%s/s", f->dir);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	char *cmd = xasprintf("rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(f);
	return 0;
}

static struct session *
open_session(struct fixture *f)
{
	struct session_opts o = { .paths = PATH_BIT(PATH_UNSAFE) |
	    PATH_BIT(PATH_SANDBOX) };
	struct session *s = session_new(&o);
	char *err = NULL;
	if (!session_use_state(s, f->path, &err))
		fail_msg("%s", err);
	return s;
}

/* Run input on path p; the outcome (arena-owned). */
static const char *
run(struct session *s, struct arena *a, enum path_id p, const char *input)
{
	struct record *r;
	size_t n = session_run(s, input, strlen(input), NULL, PATH_BIT(p), a,
	    &r);
	assert_int_equal(n, 1);
	return r->outcome;
}

static char *
file_text(struct fixture *f, const char *name, size_t *len)
{
	char *path = xasprintf("%s/%s", f->path, name);
	FILE *fp = fopen(path, "rb");
	char *buf = xmalloc(1 << 20);
	assert_non_null(fp);
	*len = fread(buf, 1, (1 << 20) - 1, fp);
	buf[*len] = '\0';
	fclose(fp);
	free(path);
	return buf;
}

static void
append_text(struct fixture *f, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", f->path, name);
	FILE *fp = fopen(path, "ab");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	free(path);
}

/* A line torn by a kill during its append was never acknowledged: the
 * state loads without it, and the next line does not follow it. */
static void
test_torn_line_is_cut(void **state)
{
	struct fixture *f = *state;
	struct arena *a = arena_new();
	struct session *s = open_session(f);
	char *j;
	size_t len;

	assert_string_equal(run(s, a, PATH_SANDBOX,
	    "write_file({'path': 'one', 'text': '1'})"), "wrote one");
	session_free(s);
	append_text(f, "journal.jsonl", "{\"seq\":3,\"step\":2,\"verd");

	s = open_session(f);
	assert_string_equal(run(s, a, PATH_SANDBOX, "read_file({'path': "
	    "'one'})"), "1");
	session_free(s);
	s = open_session(f);
	assert_string_equal(run(s, a, PATH_SANDBOX,
	    "write_file({'path': 'one', 'text': '1'})"),
	    "wrote one (idempotent: already done)");
	session_free(s);
	j = file_text(f, "journal.jsonl", &len);
	assert_null(strstr(j, "verd{"));
	assert_int_equal(j[len - 1], '\n');
	free(j);
	arena_free(a);
}

/* A compaction killed after its rename but before it emptied the journal
 * leaves lines the snapshot already holds: they are not applied twice. */
static void
test_lines_in_the_snapshot_are_skipped(void **state)
{
	struct fixture *f = *state;
	struct arena *a = arena_new();
	struct session *s = open_session(f);
	char *before = NULL, *now, *both, *cmd, input[96];
	size_t len, prev = 0;
	int i;

	for (i = 0; i < 200; i++) {
		snprintf(input, sizeof input, "open('log', 'a').write('%d,')",
		    i);
		run(s, a, PATH_UNSAFE, input);
		now = file_text(f, "journal.jsonl", &len);
		if (len < prev)		/* compacted by this step */
			break;
		free(before);
		before = now;
		prev = len;
	}
	assert_true(i < 200);
	run(s, a, PATH_UNSAFE, "open('log', 'a').write('|')");
	session_free(s);
	free(now);
	/* the journal as the killed compaction would have left it */
	now = file_text(f, "journal.jsonl", &len);
	both = xasprintf("%s%s", before, now);
	cmd = xasprintf("%s/journal.jsonl", f->path);
	assert_int_equal(truncate(cmd, 0), 0);
	append_text(f, "journal.jsonl", both);

	s = open_session(f);
	snprintf(input, sizeof input, "'%d,%d,|'", i - 1, i);
	assert_string_equal(run(s, a, PATH_UNSAFE,
	    "open('log').read()[-7:]"), input);
	session_free(s);
	free(before);
	free(now);
	free(both);
	free(cmd);
	arena_free(a);
}

/* Names, a change in place included, and a reset between inputs. */
static void
test_names_and_reset(void **state)
{
	struct fixture *f = *state;
	struct arena *a = arena_new();
	struct session *s = open_session(f);

	run(s, a, PATH_UNSAFE, "x = [1, 'a\\ud800', b'\\xff', {'k': 2.5}]");
	run(s, a, PATH_UNSAFE, "x.append(2)");
	session_free(s);
	s = open_session(f);
	assert_string_equal(run(s, a, PATH_UNSAFE, "x"),
	    "[1, 'a\\ud800', b'\\xff', {'k': 2.5}, 2]");
	run(s, a, PATH_UNSAFE, "write_file({'path': 'w', 'text': 'w'})");
	session_reset(s, false);
	run(s, a, PATH_UNSAFE, "write_file({'path': 'v', 'text': 'v'})");
	session_free(s);
	s = open_session(f);
	assert_string_equal(run(s, a, PATH_UNSAFE, "x"),
	    "NameError: name 'x' is not defined");
	assert_string_equal(run(s, a, PATH_UNSAFE, "list_files({})"),
	    "['v']");
	session_free(s);
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_vectors),
		cmocka_unit_test(test_sha256_pieces),
		cmocka_unit_test(test_ledger_digests_round_trip),
		cmocka_unit_test_setup_teardown(test_torn_line_is_cut, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_lines_in_the_snapshot_are_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_and_reset, setup,
		    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
