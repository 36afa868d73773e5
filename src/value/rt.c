/*
 * rt.c -- raising exceptions and checking caps.
 *
 * Every cap is checked against a *predicted* size before the operation
 * allocates, so that a refusal costs microseconds whatever was asked for.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/arena.h"
#include "rt.h"
#include "base/xalloc.h"

static bool
set_exc(struct rt *rt, enum exc_kind kind, enum pyexc_class cls, const char *fmt,
    va_list ap)
{
	char *msg = xvasprintf(fmt, ap);
	rt->exc.kind = kind;
	rt->exc.cls = cls;
	rt->exc.msg = arena_strdup(rt->arena, msg);
	rt->exc.has_span = false;
	rt->exc.limit = LIMIT_NONE;
	rt->exc.limit_amount = 0;
	free(msg);
	return false;
}

bool
rt_raise(struct rt *rt, enum pyexc_class cls, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_exc(rt, EXC_PYTHON, cls, fmt, ap);
	va_end(ap);
	return false;
}

bool
rt_limit(struct rt *rt, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_exc(rt, EXC_LIMIT, PYEXC_MemoryError, fmt, ap);
	va_end(ap);
	return false;
}

void
rt_clear(struct rt *rt)
{
	rt->exc.kind = EXC_NONE;
	rt->exc.cls = PYEXC_BaseException;
	rt->exc.msg = NULL;
	rt->exc.has_span = false;
}

static bool
limit_hit(struct rt *rt, int what, uint64_t amount)
{
	rt->exc.limit = what;
	rt->exc.limit_amount = amount;
	return false;
}

void
rt_format_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	size_t u;

	if (bytes < 1024) {
		snprintf(buf, len, "%llu bytes", (unsigned long long)bytes);
		return;
	}
	for (u = 0; u + 1 < sizeof units / sizeof units[0] &&
	    v >= 1024 * 1024; u++)
		v /= 1024;
	v /= 1024;
	if (v == (double)(uint64_t)v)
		snprintf(buf, len, "%.0f %s", v, units[u]);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
}

/* The refusal of a memory cap; amount: what the input would have held. */
static bool
memory_refused(struct rt *rt, uint64_t amount)
{
	char figure[32];
	rt_format_bytes(rt->mem->limit, figure, sizeof figure);
	return rt_limit(rt, "this input would hold more than %s%s", figure,
	    rt->mem->note ? rt->mem->note : ""),
	    limit_hit(rt, LIMIT_MEMORY, amount);
}

bool
rt_check_bytes(struct rt *rt, uint64_t bytes)
{
	const struct meter *m = rt->mem;
	if (m != NULL && m->limit != 0 && (m->over || m->held > m->limit ||
	    bytes > m->limit - m->held))
		return memory_refused(rt, m->held + bytes);
	return true;
}

bool
rt_check_int_bits(struct rt *rt, uint64_t bits)
{
	if (rt->limits.max_int_bits != 0 && bits > rt->limits.max_int_bits)
		return rt_limit(rt, "int of about %llu bits exceeds the cap of "
		    "%llu bits", (unsigned long long)bits,
		    (unsigned long long)rt->limits.max_int_bits),
		    limit_hit(rt, LIMIT_INT_BITS, bits);
	return rt_check_bytes(rt, bits / 8);
}

bool
rt_check_seq_len(struct rt *rt, uint64_t len)
{
	if (rt->limits.max_seq_len != 0 && len > rt->limits.max_seq_len)
		return rt_limit(rt, "sequence of %llu items exceeds the cap of "
		    "%llu items", (unsigned long long)len,
		    (unsigned long long)rt->limits.max_seq_len),
		    limit_hit(rt, LIMIT_SEQ_LEN, len);
	/* a struct value an item, and room to grow into twice that */
	return rt_check_bytes(rt, len > UINT64_MAX / 32 ? UINT64_MAX :
	    len * 32);
}

bool
rt_check_str_bytes(struct rt *rt, uint64_t bytes)
{
	if (rt->limits.max_str_bytes != 0 && bytes > rt->limits.max_str_bytes)
		return rt_limit(rt, "string of %llu bytes exceeds the cap of "
		    "%llu bytes", (unsigned long long)bytes,
		    (unsigned long long)rt->limits.max_str_bytes),
		    limit_hit(rt, LIMIT_STR_BYTES, bytes);
	return rt_check_bytes(rt, bytes);
}

bool
rt_steps_exhausted(struct rt *rt)
{
	if (rt->mem != NULL && rt->mem->over)
		return memory_refused(rt, rt->mem->held);
	return rt_limit(rt, "evaluation took more than %llu steps",
	    (unsigned long long)rt->limits.max_steps),
	    limit_hit(rt, LIMIT_STEPS, rt->steps);
}
