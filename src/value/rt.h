/*
 * rt.h -- the runtime context every operation on values receives.
 *
 * An operation allocates from rt->arena and reports failure by returning
 * false after setting rt->exc: errors are values, never longjmp or exit.
 * The exception is either a Python exception (class name and message, as
 * CPython would report it) or a limit refusal (a cap of the sandbox was
 * about to be exceeded; the operation did not allocate the big result).
 *
 * Caps are checked *before* allocating: an operation predicts the size of
 * its result and calls rt_check_* first.  Besides the cap on one object,
 * every prediction is also held against the memory the whole input may
 * hold (rt->mem, a meter the arena keeps: arena.h): one accounting point
 * for every path that evaluates in this process.
 */
#ifndef SANDBOXREPL_RT_H
#define SANDBOXREPL_RT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/pyexc.h"

struct eval;
struct value;

enum exc_kind {
	EXC_NONE = 0,
	EXC_PYTHON,	/* a Python exception: cls and msg */
	EXC_LIMIT,	/* a cap refused the operation: msg says which */
};

struct pyexc {
	enum exc_kind	 kind;
	enum pyexc_class	 cls;	/* PYEXC_ZeroDivisionError, ... (pyexc.h);
				   a limit's is PYEXC_MemoryError */
	char		*msg;	/* arena string */
	uint32_t	 start;	/* span of the node that raised, if known */
	uint32_t	 end;
	bool		 has_span;
	/* EXC_LIMIT: what was refused and how big it would have been */
	enum { LIMIT_NONE, LIMIT_STEPS, LIMIT_INT_BITS, LIMIT_SEQ_LEN,
	    LIMIT_STR_BYTES, LIMIT_MEMORY } limit;
	uint64_t	 limit_amount;
};

/* The caps an evaluation runs under; 0 means "no cap". */
struct limits {
	uint64_t	max_steps;	/* evaluation steps (fuel) */
	uint64_t	max_int_bits;	/* size of one int */
	uint64_t	max_seq_len;	/* items in one list/tuple/dict/set */
	uint64_t	max_str_bytes;	/* bytes in one str/bytes */
	unsigned	max_depth;	/* nesting of evaluation (recursion) */
};

/* Python 3.11's default for int <-> str conversion. */
#define INT_MAX_STR_DIGITS 4300

struct rt {
	struct arena	*arena;
	struct pyexc	 exc;
	struct limits	 limits;
	uint64_t	 steps;		/* fuel used so far */
	/* What this input's arenas hold, against the input's memory cap;
	 * NULL: no cap (the jail's evaluator: the kernel's RLIMIT_AS). */
	struct meter	*mem;
	unsigned	 depth;		/* current nesting */
	/*
	 * Call a callable value (lambda, builtin, mock function): set by the
	 * evaluator so that natives such as min(key=...) can call back.
	 */
	bool		(*call)(struct rt *rt, struct value fn,
			    const struct value *args, size_t nargs,
			    struct value *out);
	/* The evaluator this runtime is part of (eval.h), behind call():
	 * the object model's natives reach their evaluation through it.
	 * NULL for a bare runtime (the value layer's tests). */
	struct eval	*ev;
};

/* Set a Python exception; always returns false so callers can
 * "return rt_raise(...)". */
bool rt_raise(struct rt *rt, enum pyexc_class cls, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Set a limit refusal; always returns false. */
bool rt_limit(struct rt *rt, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Forget the pending exception. */
void rt_clear(struct rt *rt);

/*
 * Cap checks: true when the predicted size is allowed, else a refusal.
 * Each also holds its size in bytes against the memory cap, as
 * rt_check_bytes() does.
 */
bool rt_check_int_bits(struct rt *rt, uint64_t bits);
bool rt_check_seq_len(struct rt *rt, uint64_t len);
bool rt_check_str_bytes(struct rt *rt, uint64_t bytes);
/* May the input hold bytes more?  Else the refusal "this input would
 * hold more than 256 MiB" (LIMIT_MEMORY).  For a size with no cap of
 * its own (a copy, a buffer about to be copied). */
bool rt_check_bytes(struct rt *rt, uint64_t bytes);
/* The refusal when the steps run out or the memory went past its cap
 * in small pieces (rt_step's slow path). */
bool rt_steps_exhausted(struct rt *rt);

/* "256 MiB", "1.5 GiB", "4096 bytes": a size as a refusal says it. */
void rt_format_bytes(uint64_t bytes, char *buf, size_t len);

/* Charge one evaluation step; false when the fuel is gone or the memory
 * went past its cap.  Inline: the evaluator charges a step per node. */
static inline bool
rt_step(struct rt *rt)
{
	rt->steps++;
	if ((rt->limits.max_steps != 0 && rt->steps > rt->limits.max_steps) ||
	    (rt->mem != NULL && rt->mem->over))
		return rt_steps_exhausted(rt);
	return true;
}

#endif
