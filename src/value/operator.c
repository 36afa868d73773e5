/*
 * operator.c -- the operators and subscripts on values: where they go.
 *
 * value_binop() hands two numbers to num.c (after a fast path for small
 * ints and floats), 'fmt' % args to strfmt.c, and does itself what
 * CPython's sequence, mapping and set types do: concatenation and
 * repetition with their exact TypeErrors and caps, set algebra and
 * dict | dict.  value_getitem() indexes and slices str, bytes, lists and
 * tuples as CPython does and looks dicts up.  The top of the value
 * layer: it calls the files below it (value.c, num.c, compare.c, repr.c,
 * strfmt.c) and none of them calls it.
 */
#include "config.h"

#include <string.h>

#include "num.h"
#include "base/sbuf.h"
#include "strfmt.h"
#include "value.h"
#include "value_internal.h"

#define X_SYM(e, name, sym) sym,
static const char *const bin_syms[] = { BINOPS(X_SYM) };
#undef X_SYM

/* ================================================================ */
/* subscripts                                                        */
/* ================================================================ */

/* _PyEval_SliceIndex: an int clamped to the int64 range. */
static bool
slice_index(struct rt *rt, value v, int64_t *out)
{
	if (!NUM_IS_INTLIKE(v))
		return rt_raise(rt, PYEXC_TypeError,
		    "slice indices must be integers or None or have an "
		    "__index__ method");
	num_to_int64_clamped(v, out);
	return true;
}

/* PySlice_Unpack + PySlice_AdjustIndices: start, step and item count. */
static bool
slice_indices(struct rt *rt, const struct vslice *sl, int64_t length,
    int64_t *start, int64_t *step, int64_t *count)
{
	int64_t stop;
	if (sl->step.type == VT_NONE)
		*step = 1;
	else {
		if (!slice_index(rt, sl->step, step))
			return false;
		if (*step == 0)
			return rt_raise(rt, PYEXC_ValueError,
			    "slice step cannot be zero");
		if (*step < -INT64_MAX)
			*step = -INT64_MAX;
	}
	if (sl->start.type == VT_NONE)
		*start = *step < 0 ? INT64_MAX : 0;
	else if (!slice_index(rt, sl->start, start))
		return false;
	if (sl->stop.type == VT_NONE)
		stop = *step < 0 ? INT64_MIN : INT64_MAX;
	else if (!slice_index(rt, sl->stop, &stop))
		return false;
	if (*start < 0) {
		*start += length;
		if (*start < 0)
			*start = *step < 0 ? -1 : 0;
	} else if (*start >= length)
		*start = *step < 0 ? length - 1 : length;
	if (stop < 0) {
		stop += length;
		if (stop < 0)
			stop = *step < 0 ? -1 : 0;
	} else if (stop >= length)
		stop = *step < 0 ? length - 1 : length;
	*count = 0;
	if (*step < 0) {
		if (stop < *start)
			*count = (*start - stop - 1) / (-*step) + 1;
	} else if (*start < stop)
		*count = (stop - *start - 1) / *step + 1;
	return true;
}

/* Byte offsets of every code point of s (and of its end), for indexing a
 * non-ASCII str. */
static size_t *
char_offsets(struct rt *rt, const struct vstr *s)
{
	size_t *off = arena_array(rt->arena, s->nchars + 1, sizeof *off);
	size_t i, k = 0;
	for (i = 0; i < s->len; i++)
		if (((unsigned char)s->data[i] & 0xC0) != 0x80)
			off[k++] = i;
	off[k] = s->len;
	return off;
}

bool
value_getitem(struct rt *rt, value c, value key, value *out)
{
	int64_t len, i, start = 0, step = 1, count = 0, k;
	const char *what;

	switch (c.type) {
	case VT_DICT: {
		bool found;
		if (!value_dict_get(rt, c, key, out, &found))
			return false;
		if (!found) {
			struct sbuf r = SBUF_INIT;
			bool ok = value_repr(rt, key, &r);
			if (ok)
				rt_raise(rt, PYEXC_KeyError,
				    "%s", sbuf_cstr(&r));
			sbuf_free(&r);
			return false;
		}
		return true;
	}
	case VT_LIST: what = "list"; len = (int64_t)c.as.list->len; break;
	case VT_TUPLE: what = "tuple"; len = (int64_t)c.as.tuple->len; break;
	case VT_STR: what = "string"; len = (int64_t)c.as.s->nchars; break;
	case VT_BYTES: what = "byte"; len = (int64_t)c.as.s->len; break;
	default:
		return rt_raise(rt, PYEXC_TypeError, "'%s' object is not "
		    "subscriptable", value_type_name(c));
	}

	if (key.type == VT_SLICE) {
		if (!slice_indices(rt, key.as.slice, len, &start, &step, &count))
			return false;
		if (c.type == VT_STR || c.type == VT_BYTES) {
			struct sbuf b = SBUF_INIT;
			bool wide = c.type == VT_STR && !c.as.s->is_ascii;
			uint64_t most = wide ? 4 * (uint64_t)count :
			    (uint64_t)count;
			const size_t *off;
			/* held: the buffer, the value, a non-ASCII string's
			 * offsets */
			if (most > c.as.s->len)
				most = c.as.s->len;
			if (!rt_check_bytes(rt, 2 * most + (wide ? 8 *
			    ((uint64_t)c.as.s->nchars + 1) : 0)))
				return false;
			off = wide ? char_offsets(rt, c.as.s) : NULL;
			/* (start + k * step: stepping past the last item could
			 * overflow when the step is huge) */
			for (k = 0; k < count; k++) {
				i = start + k * step;
				size_t from = off ? off[i] : (size_t)i;
				size_t to = off ? off[i + 1] : (size_t)i + 1;
				sbuf_add(&b, c.as.s->data + from, to - from);
			}
			*out = c.type == VT_STR ?
			    value_str(rt->arena, sbuf_cstr(&b), b.len) :
			    value_bytes(rt->arena, sbuf_cstr(&b), b.len);
			sbuf_free(&b);
			return true;
		}
		if (!rt_check_seq_len(rt, (uint64_t)count))
			return false;
		value r = c.type == VT_LIST ? value_list(rt->arena, (size_t)count) :
		    value_tuple(rt->arena, (size_t)count);
		for (k = 0; k < count; k++)
			seq_items(r)[k] = seq_items(c)[start + k * step];
		if (r.type == VT_LIST)
			r.as.list->len = (size_t)count;
		*out = r;
		return true;
	}

	if (!NUM_IS_INTLIKE(key)) {
		if (c.type == VT_STR)
			return rt_raise(rt, PYEXC_TypeError,
			    "string indices must be integers, not '%s'",
			    value_type_name(key));
		return rt_raise(rt, PYEXC_TypeError,
		    "%s indices must be integers or slices, not %s",
		    what, value_type_name(key));
	}
	if (!num_to_int64_clamped(key, &i))
		return rt_raise(rt, PYEXC_IndexError,
		    "cannot fit 'int' into an index-sized integer");
	if (i < 0)
		i += len;
	if (i < 0 || i >= len) {
		if (c.type == VT_BYTES)
			return rt_raise(rt, PYEXC_IndexError,
			    "index out of range");
		return rt_raise(rt, PYEXC_IndexError,
		    "%s index out of range", what);
	}
	switch (c.type) {
	case VT_LIST:
	case VT_TUPLE:
		*out = seq_items(c)[i];
		return true;
	case VT_BYTES:
		*out = value_int((unsigned char)c.as.s->data[i]);
		return true;
	default:
		if (c.as.s->is_ascii)
			*out = value_str(rt->arena, c.as.s->data + i, 1);
		else {
			const size_t *off = char_offsets(rt, c.as.s);
			*out = value_str(rt->arena, c.as.s->data + off[i],
			    off[i + 1] - off[i]);
		}
		return true;
	}
}

/* ================================================================ */
/* operators on non-numbers                                          */
/* ================================================================ */

static bool
is_sequence(value v)
{
	return v.type == VT_STR || v.type == VT_BYTES || v.type == VT_LIST ||
	    v.type == VT_TUPLE;
}

static bool
binop_unsupported(struct rt *rt, enum binop op, value a, value b)
{
	return rt_raise(rt, PYEXC_TypeError,
	    "unsupported operand type(s) for %s: '%s' and '%s'",
	    op == BINOP_POW ? "** or pow()" : bin_syms[op], value_type_name(a),
	    value_type_name(b));
}

/* Past this no allocation is tried even with no cap set: CPython's
 * allocation would fail with MemoryError, ours would end the program. */
#define HARD_SEQ_BYTES ((uint64_t)1 << 40)

/* sq_concat of str, bytes, list, tuple: a is the sequence. */
static bool
concat(struct rt *rt, value a, value b, value *out)
{
	if (a.type != b.type) {
		if (a.type == VT_BYTES)
			return rt_raise(rt, PYEXC_TypeError,
			    "can't concat %s to %s",
			    value_type_name(b), value_type_name(a));
		return rt_raise(rt, PYEXC_TypeError,
		    "can only concatenate %s (not \"%s\") to %s",
		    value_type_name(a), value_type_name(b), value_type_name(a));
	}
	if (a.type == VT_STR || a.type == VT_BYTES) {
		size_t n = a.as.s->len + b.as.s->len;
		if (!rt_check_str_bytes(rt, n))
			return false;
		/* written in place: a copy through a buffer would hold the
		 * result twice */
		char *data;
		*out = value_str_alloc(rt->arena, a.type, n, &data);
		memcpy(data, a.as.s->data, a.as.s->len);
		memcpy(data + a.as.s->len, b.as.s->data, b.as.s->len);
		value_str_finish(*out);
		return true;
	}
	size_t na = seq_len(a), nb = seq_len(b);
	if (!rt_check_seq_len(rt, (uint64_t)na + nb))
		return false;
	value r = a.type == VT_LIST ? value_list(rt->arena, na + nb) :
	    value_tuple(rt->arena, na + nb);
	value *items = seq_items(r);
	if (na)
		memcpy(items, seq_items(a), na * sizeof(value));
	if (nb)
		memcpy(items + na, seq_items(b), nb * sizeof(value));
	if (r.type == VT_LIST)
		r.as.list->len = na + nb;
	*out = r;
	return true;
}

/* sequence_repeat: seq * n (n must be an int). */
static bool
repeat(struct rt *rt, value seq, value n, value *out)
{
	int64_t count;
	size_t unit, i;
	if (!NUM_IS_INTLIKE(n))
		return rt_raise(rt, PYEXC_TypeError,
		    "can't multiply sequence by non-int of type '%s'",
		    value_type_name(n));
	if (!num_to_int64_clamped(n, &count))
		return rt_raise(rt, PYEXC_OverflowError,
		    "cannot fit 'int' into an index-sized integer");
	if (count < 0)
		count = 0;
	/* an empty sequence repeats to nothing, however large the count */
	if ((seq.type == VT_STR || seq.type == VT_BYTES ? seq.as.s->len :
	    seq_len(seq)) == 0)
		count = 0;
	if (seq.type == VT_STR || seq.type == VT_BYTES) {
		unit = seq.as.s->len;
		uint64_t total;
		if (__builtin_mul_overflow((uint64_t)unit, (uint64_t)count,
		    &total) || total > (uint64_t)INT64_MAX)
			return rt_raise(rt, PYEXC_OverflowError, "%s",
			    seq.type == VT_STR ? "repeated string is too long" :
			    "repeated bytes are too long");
		if (!rt_check_str_bytes(rt, total))
			return false;
		if (total > HARD_SEQ_BYTES)
			return rt_raise(rt, PYEXC_MemoryError, "%s", "");
		char *data;
		*out = value_str_alloc(rt->arena, seq.type, (size_t)total,
		    &data);
		for (i = 0; i < (size_t)count; i++)
			memcpy(data + i * unit, seq.as.s->data, unit);
		/* the counts are the unit's, times count */
		out->as.s->nchars = seq.as.s->nchars * (size_t)count;
		out->as.s->is_ascii = seq.as.s->is_ascii;
		return true;
	}
	unit = seq_len(seq);
	uint64_t total;
	if (__builtin_mul_overflow((uint64_t)unit, (uint64_t)count, &total) ||
	    total > (uint64_t)INT64_MAX / sizeof(value))
		return rt_raise(rt, PYEXC_MemoryError, "%s", "");
	if (!rt_check_seq_len(rt, total))
		return false;
	if (total > HARD_SEQ_BYTES / sizeof(value))
		return rt_raise(rt, PYEXC_MemoryError, "%s", "");
	value r = seq.type == VT_LIST ? value_list(rt->arena, (size_t)total) :
	    value_tuple(rt->arena, (size_t)total);
	for (i = 0; i < (size_t)count; i++)
		memcpy(seq_items(r) + i * unit, seq_items(seq),
		    unit * sizeof(value));
	if (r.type == VT_LIST)
		r.as.list->len = (size_t)total;
	*out = r;
	return true;
}

/* set | & - ^ and dict | dict */
static bool
set_binop(struct rt *rt, enum binop op, value a, value b, value *out)
{
	value r = a.type == VT_DICT ? value_dict(rt->arena) :
	    value_set(rt->arena);
	size_t i;
	r.type = a.type;
	if (op == BINOP_BITOR || a.type == VT_DICT) {
		for (i = 0; i < a.as.dict->used; i++)
			if (a.as.dict->entries[i].live &&
			    !value_dict_set(rt, r, a.as.dict->entries[i].key,
			    a.as.dict->entries[i].val))
				return false;
		for (i = 0; i < b.as.dict->used; i++)
			if (b.as.dict->entries[i].live &&
			    !value_dict_set(rt, r, b.as.dict->entries[i].key,
			    b.as.dict->entries[i].val))
				return false;
		*out = r;
		return true;
	}
	/* & and - keep a's items by membership in b; ^ adds b's not in a */
	for (i = 0; i < a.as.dict->used; i++) {
		bool found;
		if (!a.as.dict->entries[i].live)
			continue;
		if (!value_dict_get(rt, b, a.as.dict->entries[i].key, NULL,
		    &found))
			return false;
		if ((op == BINOP_BITAND) == found &&
		    !value_set_add(rt, r, a.as.dict->entries[i].key))
			return false;
	}
	if (op == BINOP_BITXOR)
		for (i = 0; i < b.as.dict->used; i++) {
			bool found;
			if (!b.as.dict->entries[i].live)
				continue;
			if (!value_dict_get(rt, a, b.as.dict->entries[i].key,
			    NULL, &found))
				return false;
			if (!found && !value_set_add(rt, r,
			    b.as.dict->entries[i].key))
				return false;
		}
	*out = r;
	return true;
}

static bool binop_general(struct rt *rt, enum binop op, value a, value b,
    value *out) __attribute__((noinline));

bool
value_binop(struct rt *rt, enum binop op, value a, value b, value *out)
{
	/* two small ints whose sum, difference or product fits: what
	 * num_binop() would make, without the way through it */
	if (a.type == VT_INT && b.type == VT_INT) {
		int64_t r;
		bool overflow = true;
		switch (op) {
		case BINOP_ADD:
			overflow = __builtin_add_overflow(a.as.i, b.as.i, &r);
			break;
		case BINOP_SUB:
			overflow = __builtin_sub_overflow(a.as.i, b.as.i, &r);
			break;
		case BINOP_MULT:
			overflow = __builtin_mul_overflow(a.as.i, b.as.i, &r);
			break;
		default:
			break;
		}
		if (!overflow) {
			*out = value_int(r);
			return true;
		}
	}
	/* a float and a float or small int under + - * /: what
	 * float_binop() computes ((double) of the int, then the IEEE
	 * operation); a division by zero goes on for its error */
	if ((a.type == VT_FLOAT || b.type == VT_FLOAT) &&
	    (a.type == VT_FLOAT || a.type == VT_INT) &&
	    (b.type == VT_FLOAT || b.type == VT_INT)) {
		double x = a.type == VT_FLOAT ? a.as.f : (double)a.as.i;
		double y = b.type == VT_FLOAT ? b.as.f : (double)b.as.i;
		switch (op) {
		case BINOP_ADD: *out = value_float(x + y); return true;
		case BINOP_SUB: *out = value_float(x - y); return true;
		case BINOP_MULT: *out = value_float(x * y); return true;
		case BINOP_DIV:
			if (y != 0.0) {
				*out = value_float(x / y);
				return true;
			}
			break;
		default:
			break;
		}
	}
	return binop_general(rt, op, a, b, out);
}

/* value_binop() past its fast cases, out of line: their callers keep no
 * frame for the calls made here. */
static bool
binop_general(struct rt *rt, enum binop op, value a, value b, value *out)
{
	if (NUM_IS_NUMBER(a) && NUM_IS_NUMBER(b))
		return num_binop(rt, op, a, b, out);
	switch (op) {
	case BINOP_ADD:
		if (is_sequence(a))
			return concat(rt, a, b, out);
		break;
	case BINOP_MULT:
		if (is_sequence(a))
			return repeat(rt, a, b, out);
		if (is_sequence(b))
			return repeat(rt, b, a, out);
		break;
	case BINOP_MOD:
		if (a.type == VT_STR || a.type == VT_BYTES)
			return strfmt_percent(rt, a, b, out);
		break;
	case BINOP_BITOR:
		if (a.type == VT_DICT && b.type == VT_DICT)
			return set_binop(rt, op, a, b, out);
		/* FALLTHROUGH */
	case BINOP_BITAND:
	case BINOP_BITXOR:
	case BINOP_SUB:
		if ((a.type == VT_SET || a.type == VT_FROZENSET) &&
		    (b.type == VT_SET || b.type == VT_FROZENSET))
			return set_binop(rt, op, a, b, out);
		break;
	default:
		break;
	}
	return binop_unsupported(rt, op, a, b);
}

bool
value_unaryop(struct rt *rt, enum unaryop op, value a, value *out)
{
	bool t;
	if (op == UNARYOP_NOT) {
		if (!value_truthy(rt, a, &t))
			return false;
		*out = value_bool(!t);
		return true;
	}
	return num_unaryop(rt, op, a, out);
}
