/*
 * unicode.h -- the few Unicode facts the lexer needs: strict UTF-8
 * decoding, the identifier character classes (XID_Start, XID_Continue),
 * the printable class (str.isprintable(): what repr() escapes and
 * CPython's "invalid character" message) and NFKC
 * for identifiers.  The tables are generated from CPython 3.11's
 * unicodedata by tools/gen_unicode.py into unicode_tables.gen.h.
 */
#ifndef SANDBOXREPL_UNICODE_H
#define SANDBOXREPL_UNICODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;

/*
 * Decode one code point from s[0..len) as Python's strict UTF-8 decoder
 * does (no overlong forms, no surrogates, nothing past U+10FFFF).
 * Returns the number of bytes used (1..4), or 0 when the bytes are not
 * valid UTF-8 (len == 0 also returns 0).
 */
size_t unicode_decode(const char *s, size_t len, uint32_t *cp);
/*
 * Where unicode_decode() fails, why, as CPython's UTF-8 decoder says it:
 * "invalid start byte", "invalid continuation byte" or "unexpected end of
 * data", with the bytes the error covers in *len.  NULL when s[0..n)
 * (n > 0) starts with a valid character (its length in *len).
 */
const char *unicode_decode_error(const char *s, size_t n, size_t *len);
/* Encode cp (surrogates allowed: generalised UTF-8) into out; returns 1..4. */
size_t unicode_encode(uint32_t cp, char out[4]);
/* How many bytes unicode_encode() writes for cp. */
size_t unicode_encoded_len(uint32_t cp);
/* Code points in s[0..len), which must be valid UTF-8. */
size_t unicode_count(const char *s, size_t len);

/*
 * The text inside a str is already valid generalised UTF-8 (a surrogate
 * is kept as its 3 bytes), so walking it needs no checks: the bytes of
 * the character that starts with lead (1..4), and the code point at s[*i]
 * with *i moved past it (never past len).
 */
size_t unicode_char_len(unsigned char lead);
uint32_t unicode_next(const char *s, size_t len, size_t *i);

bool unicode_is_xid_start(uint32_t cp);		/* letters and '_' */
bool unicode_is_xid_continue(uint32_t cp);
bool unicode_is_printable(uint32_t cp);		/* str.isprintable() */

/*
 * The NFKC form of the identifier s[0..len) (valid UTF-8), NUL-terminated
 * in arena a, as CPython normalises names: ASCII is returned as a copy;
 * otherwise each character is replaced by its own NFKC image and the
 * result is put in NFC (so a letter and a combining accent, or Hangul
 * jamo, join as NFKC of the whole string would join them).
 */
char *unicode_nfkc_identifier(struct arena *a, const char *s, size_t len);

#endif
