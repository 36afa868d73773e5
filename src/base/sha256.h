/*
 * sha256.h -- SHA-256 (FIPS 180-4), for the state's content addresses.
 *
 * --state names a file's contents and a ledger entry's key by their
 * digest, so that each is kept once and any byte string has a key that
 * round-trips.  No library the program already links offers a hash, and
 * this one is a page of code checked against the standard's test vectors.
 */
#ifndef SANDBOXREPL_SHA256_H
#define SANDBOXREPL_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES	32
#define SHA256_HEX	(2 * SHA256_BYTES + 1)	/* with the NUL */

struct sha256 {
	uint32_t	h[8];
	uint64_t	len;		/* bytes hashed so far */
	unsigned char	buf[64];	/* a partial block */
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *p, size_t n);
void sha256_final(struct sha256 *c, unsigned char out[SHA256_BYTES]);
/* The digest of p[0..n) as 64 lowercase hex digits and a NUL. */
void sha256_hex(const void *p, size_t n, char out[SHA256_HEX]);

#endif
