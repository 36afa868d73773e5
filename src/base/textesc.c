/*
 * textesc.c -- text made safe for a terminal, by Python's repr() rules.
 *
 * Runs of printable ASCII are copied as they are; anything else is decoded
 * one character at a time: strict UTF-8 (a lone surrogate, which a Python
 * str may hold, decodes too), then unicode_is_printable() -- the
 * table repr() itself uses -- decides.  A byte that starts no valid
 * character is one \xNN.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "textesc.h"
#include "sbuf.h"
#include "unicode.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Plain printable ASCII that no context escapes. */
static bool
is_plain(unsigned char c, char quote)
{
	return c >= 0x20 && c < 0x7f &&
	    !(quote != 0 && (c == '\\' || c == (unsigned char)quote));
}

/*
 * How many of s[0, n) are plain for quote (is_plain), counted eight bytes
 * at a time: every text a trace line shows goes through here, and it is
 * almost always all plain.  In a word x, a byte below 0x20 borrows in
 * x - 0x20.., one from 0x7f up has its top bit set in x or in x + 0x01..
 * (a byte below 0x80 does not carry out), and a byte equal to c is zero
 * in x ^ c..; a borrow or carry reaches only bytes above one that is not
 * plain, so the word is all plain exactly when no top bit is set.
 */
static size_t
plain_run_words(const char *s, size_t n, char quote)
{
	const uint64_t ones = 0x0101010101010101u, tops = ones << 7;
	const uint64_t qs = ones * (unsigned char)quote, bs = ones * '\\';
	size_t i = 0;
	bool last = false;

	for (;;) {
		uint64_t x, t;
		if (i + 8 > n) {
			/* the tail: the last eight bytes, once */
			if (n < 8 || i == n || last)
				break;
			i = n - 8;
			last = true;
		}
		memcpy(&x, s + i, 8);
		t = (x - ones * 0x20) | x | (x + ones);
		if (quote != 0)
			t |= ((x ^ qs) - ones) | ((x ^ bs) - ones);
		if ((t & tops) != 0)
			break;
		i += 8;
	}
	while (i < n && is_plain((unsigned char)s[i], quote))
		i++;
	return i;
}

#ifdef __SSE2__
/*
 * plain_run() sixteen bytes at a time: a byte below 0x20 or from 0x80 up
 * is below 0x20 as a signed byte; DEL, the quote and the backslash are
 * compared.  The first byte that is not plain ends the run, as byte by
 * byte; the last sixteen bytes are looked at once more, overlapping.
 * (tests/base/test_textesc_fixed compares it with plain_run_words.)
 */
static size_t
plain_run(const char *s, size_t n, char quote)
{
	const __m128i lo = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7f);
	const __m128i q = _mm_set1_epi8(quote != 0 ? quote : 0x7f);
	const __m128i bs = _mm_set1_epi8(quote != 0 ? '\\' : 0x7f);
	size_t i = 0;

	if (n < 16)
		return plain_run_words(s, n, quote);
	for (;;) {
		__m128i v;
		unsigned m;
		bool last = i + 16 >= n;
		if (last)
			i = n - 16;
		v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		m = (unsigned)_mm_movemask_epi8(_mm_or_si128(
		    _mm_or_si128(_mm_cmplt_epi8(v, lo), _mm_cmpeq_epi8(v, del)),
		    _mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs))));
		if (m != 0)
			return i + (size_t)__builtin_ctz(m);
		if (last)
			return n;
		i += 16;
	}
}
#else
#define plain_run plain_run_words
#endif

size_t
textesc_plain_run(const char *s, size_t n, char quote)
{
	return plain_run(s, n, quote);
}

/* A surrogate in generalised UTF-8 (ED A0..BF 80..BF), as CPython strs
 * built with surrogateescape hold them. */
static size_t
decode_surrogate(const unsigned char *p, size_t n, uint32_t *cp)
{
	size_t i = 0;
	if (n < 3 || p[0] != 0xED || p[1] < 0xA0 || p[1] > 0xBF ||
	    (p[2] & 0xC0) != 0x80)
		return 0;
	*cp = unicode_next((const char *)p, 3, &i);
	return 3;
}

size_t
textesc_next(const char *s, size_t n, char quote, char buf[TEXTESC_MAX])
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	size_t used;

	buf[0] = '\0';
	if (p[0] < 0x80) {
		cp = p[0];
		if (is_plain(p[0], quote))
			return 1;
		if (cp == '\n')
			strcpy(buf, "\\n");
		else if (cp == '\r')
			strcpy(buf, "\\r");
		else if (cp == '\t')
			strcpy(buf, "\\t");
		else if (quote != 0 && (cp == '\\' ||
		    cp == (unsigned char)quote))
			snprintf(buf, TEXTESC_MAX, "\\%c", (char)cp);
		else
			snprintf(buf, TEXTESC_MAX, "\\x%02x", (unsigned)cp);
		return 1;
	}
	used = unicode_decode(s, n, &cp);
	if (used == 0)
		used = decode_surrogate(p, n, &cp);
	if (used == 0) {
		snprintf(buf, TEXTESC_MAX, "\\x%02x", (unsigned)p[0]);
		return 1;
	}
	if (unicode_is_printable(cp))
		return used;
	if (cp <= 0xff)
		snprintf(buf, TEXTESC_MAX, "\\x%02x", (unsigned)cp);
	else if (cp <= 0xffff)
		snprintf(buf, TEXTESC_MAX, "\\u%04x", (unsigned)cp);
	else
		snprintf(buf, TEXTESC_MAX, "\\U%08x", (unsigned)cp);
	return used;
}

void
textesc_add(struct sbuf *out, const char *s, size_t len, char quote)
{
	size_t i = 0;

	while (i < len) {
		char buf[TEXTESC_MAX];
		size_t run = i + plain_run(s + i, len - i, quote), used;
		if (run > i) {
			sbuf_add(out, s + i, run - i);
			i = run;
			continue;
		}
		used = textesc_next(s + i, len - i, quote, buf);
		if (buf[0] != '\0')
			sbuf_adds(out, buf);
		else
			sbuf_add(out, s + i, used);
		i += used;
	}
}

void
textesc_repr(struct sbuf *out, const char *s, size_t len)
{
	/* Python's choice: single quotes unless only ' occurs */
	char q = memchr(s, '\'', len) && !memchr(s, '"', len) ? '"' : '\'';
	sbuf_addc(out, q);
	textesc_add(out, s, len, q);
	sbuf_addc(out, q);
}

#ifdef __SSE2__
/*
 * In one pass sixteen bytes at a time: is s[0, len) (16 bytes or more)
 * plain text but for quotes (plain_run with quote 0, and no backslash),
 * and does it hold a ' and a "?  (tests/base/test_textesc_fixed compares
 * textesc_repr_in with textesc_repr.)
 */
static bool
repr_scan(const char *s, size_t len, bool *sq, bool *dq)
{
	const __m128i lo = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7f);
	const __m128i bs = _mm_set1_epi8('\\'), q1 = _mm_set1_epi8('\'');
	const __m128i q2 = _mm_set1_epi8('"');
	unsigned bad = 0, m1 = 0, m2 = 0;
	size_t i = 0;

	for (;;) {
		bool last = i + 16 >= len;
		__m128i v;
		if (last)
			i = len - 16;
		v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		bad |= (unsigned)_mm_movemask_epi8(_mm_or_si128(
		    _mm_or_si128(_mm_cmplt_epi8(v, lo), _mm_cmpeq_epi8(v, del)),
		    _mm_cmpeq_epi8(v, bs)));
		m1 |= (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, q1));
		m2 |= (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, q2));
		if (last || bad != 0)
			break;
		i += 16;
	}
	*sq = m1 != 0;
	*dq = m2 != 0;
	return bad == 0;
}
#endif

const char *
textesc_repr_in(struct arena *a, const char *s, size_t len)
{
	char q;
	struct sbuf b = SBUF_INIT;
	const char *r;

#ifdef __SSE2__
	bool sq, dq;
	/* plain but for quotes: the quote Python picks, and plain for it
	 * unless it is inside (a " is not, when " is picked) */
	if (len >= 16 && repr_scan(s, len, &sq, &dq) && !(sq && dq)) {
		q = sq ? '"' : '\'';
		goto plain;
	}
#endif
	q = memchr(s, '\'', len) && !memchr(s, '"', len) ? '"' : '\'';
	if (plain_run(s, len, q) == len) {	/* nothing to escape */
#ifdef __SSE2__
plain:;
#endif
		char *p = arena_alloc(a, len + 3);
		p[0] = q;
		memcpy(p + 1, s, len);
		p[len + 1] = q;
		p[len + 2] = '\0';
		return p;
	}
	textesc_repr(&b, s, len);
	r = arena_strndup(a, sbuf_cstr(&b), b.len);
	sbuf_free(&b);
	return r;
}

bool
textesc_needed(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		char buf[TEXTESC_MAX];
		i += plain_run(s + i, len - i, 0);
		if (i == len)
			break;
		i += textesc_next(s + i, len - i, 0, buf);
		if (buf[0] != '\0')
			return true;
	}
	return false;
}

/* textesc_text_n() past a plain start, out of line (its calls made the
 * plain case keep a frame): s escaped unless nothing at p needs it. */
static const char * __attribute__((noinline))
text_rest(struct arena *a, const char *s, const unsigned char *p,
    size_t *len)
{
	struct sbuf b = SBUF_INIT;
	size_t n = strlen(s);
	char *r;

	if (!textesc_needed((const char *)p, n - (size_t)(p -
	    (const unsigned char *)s))) {
		*len = n;
		return s;
	}
	textesc_add(&b, s, n, 0);
	*len = b.len;
	r = arena_strndup(a, sbuf_cstr(&b), b.len);
	sbuf_free(&b);
	return r;
}

const char *
textesc_text_n(struct arena *a, const char *s, size_t *len)
{
	const unsigned char *p = (const unsigned char *)s;

	if (s == NULL)
		return s;
	/* a trace line's label and outcome are short and printable ASCII:
	 * to their end in one pass, without strlen's */
	while (*p >= 0x20 && *p < 0x7f)
		p++;
	if (*p != '\0')
		return text_rest(a, s, p, len);
	*len = (size_t)(p - (const unsigned char *)s);
	return s;
}

const char *
textesc_text(struct arena *a, const char *s)
{
	size_t n;
	return textesc_text_n(a, s, &n);
}
