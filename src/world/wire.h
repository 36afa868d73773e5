/*
 * wire.h -- what crosses between the session and a CPython world.
 *
 * The one wire (jail_wire.h), which the model-engine jail speaks too: a
 * one-byte type, a 32-bit payload length in host byte order, the
 * payload.  Requests go from the session
 * to the world; replies come back and are hostile until checked
 * (cpython.c): every type, length, count and name against the caps below.
 *
 * A request is  [P file]* [V env]* [C command]? I input  -- one frame I
 *   ends it; P puts a workspace entry and V ("KEY=VALUE") sets the
 *   environment, both for set-up.
 * P and F carry one workspace entry: u32 path length, u32 mode, the
 *   path, its data.  The path is relative, its components flat names
 *   (ww_path_ok), at most WW_MAX_DEPTH of them; mode is its st_mode (a
 *   regular file, a directory, a symbolic link whose data is its target,
 *   or another kind with no data), with WW_UNREADABLE when the world
 *   could not read it (no data then).  F frames come in tree order: a
 *   directory before what it holds.
 * The nonce of an input comes back in its reply's S: the code in a world
 * can write to the socket too, and a reply it forged must not stand for
 * the real one (nor leave the real one to answer the next input).
 * A reply is    Y (set-up done) | R refusal (u32 step, i32 errno, text)
 *   after a build, or
 *               S status [r result] [M message] [X error] [O output]
 *               [e tail] [A event]* [D dropped] [K cut]* [N names]
 *               [L literals] [F file]* [T left]? E
 *   after an input.  O is what a terminal would have shown: what the
 *   code and its children wrote, the prompt's echo of every expression
 *   statement's value and the traceback it printed; r is the repr of the
 *   last value echoed, X the last line of the traceback, and e, when
 *   O's text ends with what the prompt wrote for the outcome -- the
 *   result's echo, or the exception's traceback -- which and how many
 *   bytes of text.  K says a cap cut something (u32 enum ww_cut, u64
 *   how much it held); T that the workspace was read back in part (u32
 *   entries left out, then the paths of the first of them, each ending in
 *   NUL, a directory's with '/', up to WW_MAX_UNSENT bytes).  L, sent
 *   when the input asked (WW_LITERALS: the session keeps a --state),
 *   holds the names __main__ binds to plain data (None, bool, int, finite
 *   float, str, bytes, and lists, tuples, dicts and non-empty sets of
 *   those), each as "name" NUL "repr" NUL: what a resumed session's new
 *   world can bind again, once the session has checked each repr is a
 *   literal (session.c).
 * The interpreter is not the world's PID 1: PID 1 is a small init
 * (replica.c) that reaps orphans and, when the interpreter ends -- by
 * SystemExit, a signal (os.kill of itself, a segfault in ctypes), or
 * anything else -- sends what it left behind and how it ended:
 *               Z (i32 wait status) [O output] [F file]* [T left]? E
 *   after which the world is gone.  Z stands for the status of this
 *   reply; it follows an input's E when the input raised SystemExit, or
 *   comes instead of the input's S when the interpreter died during it.
 */
#ifndef SANDBOXREPL_WORLD_WIRE_H
#define SANDBOXREPL_WORLD_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jail/jail_wire.h"

/* The frame types (enum ww_type) are the one wire's: jail_wire.h. */

#define WW_SETUP	1u	/* input flag: run unreported */
#define WW_LITERALS	2u	/* input flag: send the L frame */
#define WW_UNREADABLE	0x80000000u	/* an entry's mode flag */

/* What the prompt wrote last, in an e frame. */
enum ww_tail {
	WW_TAIL_ECHO	= 0,	/* the result's echo: its repr, a newline */
	WW_TAIL_TRACEBACK = 1,	/* the exception as sys.excepthook printed it */
	WW_TAIL__COUNT
};

/* What a cap cut, in a K frame, and what it held. */
enum ww_cut {
	WW_CUT_RESULT	= 0,	/* bytes of the value's repr */
	WW_CUT_OUTPUT	= 1,	/* bytes the code printed */
	WW_CUT_NAMES	= 2,	/* names not listed */
	WW_CUT_EVENTS	= 3,	/* audit events whose text was cut */
	WW_CUT_MESSAGE	= 4,	/* bytes of a command's message */
	WW_CUT__COUNT
};

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
#define WW_MAX_LIVE	16384		/* text bytes of one live frame */
#define WW_MAX_EVENTS	128		/* audit events per input */
/* The event a world adds for the copies of the interpreter that ended
 * with the input (forks.c), its one argument their number. */
#define FORKS_EVENT	"sandboxrepl.forks_ended"
/* The event a world adds after a program the code asked for
 * (os.system, subprocess.Popen, os.posix_spawn) when no process was
 * created for it (pyrun.c, spawn_check): its arguments "full" (the
 * world's process limit was full) or "failed", and RLIMIT_NPROC. */
#define NOSPAWN_EVENT	"sandboxrepl.no_process"
#define WW_MAX_EVENT	512		/* bytes of one event */
#define WW_MAX_FILES	64		/* workspace entries read back */
#define WW_MAX_DEPTH	8		/* components of an entry's path */
#define WW_MAX_PATH	1024		/* bytes of an entry's path */
#define WW_MAX_UNSENT	4096		/* bytes of paths left out */
#define WW_MAX_FILE_BYTES (8u << 20)	/* workspace bytes, in all */
#define WW_MAX_ENV	64
#define WW_MAX_NAMES	4096		/* bytes of the names frame */
#define WW_MAX_LITERALS	(64u << 10)	/* bytes of the literals frame */
#define WW_MAX_LITERAL	(16u << 10)	/* bytes of one name's repr */
#define WW_MAX_DETAIL	200

/* A relative path of 1..WW_MAX_DEPTH flat names (no "", ".", "..",
 * NUL), at most WW_MAX_PATH bytes. */
static inline bool
ww_path_ok(const char *p, size_t len)
{
	size_t depth = 0, start = 0, i;

	if (len == 0 || len > WW_MAX_PATH)
		return false;
	for (i = 0; i <= len; i++) {
		if (i < len && p[i] == '\0')
			return false;
		if (i == len || p[i] == '/') {
			size_t n = i - start;
			if (n == 0 || n > 255 ||
			    (n == 1 && p[start] == '.') ||
			    (n == 2 && p[start] == '.' &&
			    p[start + 1] == '.') || ++depth > WW_MAX_DEPTH)
				return false;
			start = i + 1;
		}
	}
	return true;
}

#endif
