/*
 * wire.h -- what crosses between the session and a CPython world.
 *
 * The jail's framing (jail_int.h): a one-byte type, a 32-bit payload
 * length in host byte order, the payload.  Requests go from the session
 * to the world; replies come back and are hostile until checked
 * (cpython.c): every type, length, count and name against the caps below.
 *
 * A request is  [P file]* [V env]* [C command]? I input  -- one frame I
 *   ends it; P (u32 name length, name, data) puts a workspace file and V
 *   ("KEY=VALUE") sets the environment, both for set-up.
 * The nonce of an input comes back in its reply's S: the code in a world
 * can write to the socket too, and a reply it forged must not stand for
 * the real one (nor leave the real one to answer the next input).
 * A reply is    Y (set-up done) | R refusal (u32 step, i32 errno, text)
 *   after a build, or
 *               S status [r result] [M message] [X error] [O output]
 *               [A event]* [D dropped] [N names] [F file]* [T]? E
 *   after an input.
 * The interpreter is not the world's PID 1: PID 1 is a small init
 * (replica.c) that reaps orphans and, when the interpreter ends -- by
 * SystemExit, a signal (os.kill of itself, a segfault in ctypes), or
 * anything else -- sends what it left behind and how it ended:
 *               [O output] [F file]* [T]? K (i32 wait status)
 *   after which the world is gone.  K follows an input's E when the
 *   input raised SystemExit, or stands instead of it when the
 *   interpreter died during the input.
 */
#ifndef SANDBOXREPL_WORLD_WIRE_H
#define SANDBOXREPL_WORLD_WIRE_H

#include <stdint.h>

enum ww_type {
	WW_PUT		= 'P',
	WW_ENV		= 'V',
	WW_COMMAND	= 'C',
	WW_INPUT	= 'I',	/* u8 flags (WW_SETUP), u64 nonce, source */

	WW_READY	= 'Y',
	WW_REFUSE	= 'R',
	WW_STATUS	= 'S',	/* u32 enum ww_status, u64 the input's nonce */
	WW_RESULT	= 'r',
	WW_MESSAGE	= 'M',
	WW_ERROR	= 'X',
	WW_OUTPUT	= 'O',
	WW_EVENT	= 'A',	/* event name, NUL, its arguments as text */
	WW_DROPPED	= 'D',	/* u32 events left out */
	WW_FILE		= 'F',	/* u32 name length, name, data */
	WW_NAMES	= 'N',	/* the names __main__ binds, NUL-separated */
	WW_TRUNCATED	= 'T',
	WW_END		= 'E',
	WW_ENDED	= 'K',	/* i32 the interpreter's wait status */
};

#define WW_SETUP	1u	/* input flag: run unreported */

enum ww_status {
	WW_OK		= 0,	/* ran */
	WW_RAISED	= 1,	/* raised an exception */
	WW_EXITED	= 2,	/* raised SystemExit: the world ends */
	WW_NOMEM	= 3,	/* MemoryError: the memory cap stopped it */
};

/* Caps, both ends. */
#define WW_MAX_SOURCE	(16u << 20)	/* bytes of one input */
#define WW_MAX_RESULT	(64u << 10)	/* bytes of a repr or message */
#define WW_MAX_ERROR	4096
#define WW_MAX_OUTPUT	(64u << 10)	/* bytes of captured output */
#define WW_MAX_EVENTS	128		/* audit events per input */
#define WW_MAX_EVENT	512		/* bytes of one event */
#define WW_MAX_FILES	64		/* workspace files read back */
#define WW_MAX_FILE_BYTES (8u << 20)	/* workspace bytes, in all */
#define WW_MAX_ENV	64
#define WW_MAX_NAMES	4096		/* bytes of the names frame */
#define WW_MAX_DETAIL	200

#endif
