/*
 * jail_wire.h -- the one wire between a parent and its jailed child: the
 * model-engine jail's warden and PID 1 (jail_child.c, read by jail.c)
 * and a CPython world and its session (world/wire.h, read by
 * world/cpython.c) speak it alike.
 *
 * A frame is a one-byte type, a 32-bit payload length in host byte order
 * (both ends are the same machine), then the payload.  One enum names
 * every type, so no letter means two things; what each carries is
 * written beside it (the world's frames in detail in world/wire.h).
 * Every reader checks a frame's type and length against its own rules
 * (struct wire_len) before it uses a byte of the payload: wire_head() for
 * a header read from a descriptor, wire_next() for a bounded buffer.
 */
#ifndef SANDBOXREPL_JAIL_WIRE_H
#define SANDBOXREPL_JAIL_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ww_type {
	/* session -> world: a request (world/wire.h) */
	WW_PUT		= 'P',
	WW_ENV		= 'V',
	WW_COMMAND	= 'C',
	WW_INPUT	= 'I',	/* u8 flags (WW_SETUP), u64 nonce, source */

	/* child -> parent: set-up, both */
	WW_READY	= 'Y',	/* empty: set-up done, the code runs */
	WW_REFUSE	= 'R',	/* u32 step, i32 errno, detail text */
	WW_END		= 'E',	/* empty: nothing follows */

	/* world -> session: a reply (world/wire.h) */
	WW_STATUS	= 'S',	/* u32 enum ww_status, u64 the input's nonce */
	WW_RESULT	= 'r',
	WW_MESSAGE	= 'M',
	WW_ERROR	= 'X',
	WW_OUTPUT	= 'O',	/* what the code wrote (the jail's too) */
	WW_TAIL		= 'e',	/* u32 enum ww_tail, u32 bytes of O's text */
	WW_EVENT	= 'A',	/* event name, NUL, its arguments as text */
	WW_DROPPED	= 'D',	/* u32 events left out */
	WW_FILE		= 'F',	/* u32 path length, u32 mode, path, data */
	WW_NAMES	= 'N',	/* the names __main__ binds, NUL-separated */
	WW_LITERALS_F	= 'L',	/* name NUL repr NUL, for plain data */
	WW_TRUNCATED	= 'T',	/* u32 left out, their paths */
	WW_CUT		= 'K',	/* u32 enum ww_cut, u64 its size */
	WW_ENDED	= 'Z',	/* i32 the interpreter's wait status */
	WW_LIVE		= 'W',	/* u8 'o' or 'e', text: output as it is
				   written, before the reply (output.c) */

	/* the model-engine jail (jail_child.c -> jail.c) */
	WW_WAIT		= 'w',	/* struct wire_wait: how PID 1 ended */
	WW_SECCOMP	= 's',	/* PID 1 -> warden: i32 trapped syscall */
	WW_FLAT_FILE	= 'f',	/* u32 name length, a flat name, data */
	WW_FLAT_CUT	= 't',	/* empty: the workspace was cut to the caps */
};

#define WIRE_HEADER	5	/* type + u32 length */

/* What a reader allows a frame type to carry: min..max bytes (min > max:
 * a type it does not accept). */
struct wire_len {
	uint64_t	min, max;
};
#define WIRE_REJECT	((struct wire_len){ 1, 0 })

/* A frame's rule, as one reader sees it (ctx is the reader's). */
typedef struct wire_len (*wire_rule)(enum ww_type type, const void *ctx);

struct wire_frame {
	enum ww_type	 type;
	uint32_t	 len;
	const char	*pay;		/* wire_next's: inside the buffer */
};

/* Decode a header and check it against rule: true and *f (but its pay)
 * set, or false when the type is not accepted or its length is out of
 * the rule's bounds. */
bool wire_head(const char head[WIRE_HEADER], wire_rule rule, const void *ctx,
    struct wire_frame *f);
/*
 * The next frame of buf[*off..buflen): 1 and *f (pay inside buf), *off
 * past it; 0 at the end of buf; -1 when the rest is not a whole frame
 * (a header or payload cut short: *off stays) and -2 when the header
 * breaks rule.  A frame's payload is never past buflen.
 */
int wire_next(const char *buf, size_t buflen, size_t *off, wire_rule rule,
    const void *ctx, struct wire_frame *f);
/* A rule that accepts every type at every length (a log read for a few
 * frames among others: jail_child.c's status pipe). */
struct wire_len wire_any(enum ww_type type, const void *ctx);

#endif
