/*
 * methods_num.c -- the methods of int (bool's too) and float.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "methods_int.h"
#include "value/num.h"
#include "value/rt.h"
#include "value/value.h"

/* ================================================================ */
/* int and float                                                     */
/* ================================================================ */

static void
int_mpz(value self, mpz_t z)
{
	num_get_mpz(self, z);
}

METHOD(int_bit_length)
{
	mpz_t z;
	if (!no_args(rt, "int.bit_length", nargs, nkw))
		return false;
	int_mpz(self, z);
	*out = value_int(mpz_sgn(z) == 0 ? 0 :
	    (int64_t)mpz_sizeinbase(z, 2));
	mpz_clear(z);
	return true;
}

METHOD(int_bit_count)
{
	mpz_t z;
	if (!no_args(rt, "int.bit_count", nargs, nkw))
		return false;
	int_mpz(self, z);
	mpz_abs(z, z);
	*out = value_int((int64_t)mpz_popcount(z));
	mpz_clear(z);
	return true;
}

METHOD(int_as_integer_ratio)
{
	value t;
	if (!no_args(rt, "int.as_integer_ratio", nargs, nkw))
		return false;
	t = value_tuple(rt->arena, 2);
	t.as.tuple->items[0] = self.type == VT_BOOL ? value_int(self.as.b) :
	    self;
	t.as.tuple->items[1] = value_int(1);
	*out = t;
	return true;
}

METHOD(int_conjugate)
{
	if (!no_args(rt, "int.conjugate", nargs, nkw))
		return false;
	*out = self.type == VT_BOOL ? value_int(self.as.b) : self;
	return true;
}

/* to_bytes(length=1, byteorder='big', *, signed=False) */
METHOD(int_to_bytes)
{
	static const struct param params[] = {
		{ "length", false }, { "byteorder", false }, { "signed", true },
	};
	value a[3];
	bool given[3], little = false, is_signed = false;
	int64_t length = 1;
	mpz_t z, m;
	char *buf;
	size_t i, nbits;

	if (!kw_args(rt, "to_bytes", params, 3, args, nargs, kwnames, nkw, a,
	    given))
		return false;
	if (given[0] && !arg_index(rt, a[0], &length))
		return false;
	if (given[1]) {
		if (a[1].type != VT_STR)
			return rt_raise(rt, PYEXC_TypeError,
			    "to_bytes() argument 'byteorder' must be str, not "
			    "%s",
			    clinic_type_name(a[1]));
		if (strcmp(a[1].as.s->data, "little") == 0)
			little = true;
		else if (strcmp(a[1].as.s->data, "big") != 0)
			return rt_raise(rt, PYEXC_ValueError,
			    "byteorder must be either 'little' or 'big'");
	}
	if (given[2] && !value_truthy(rt, a[2], &is_signed))
		return false;
	if (length < 0)
		return rt_raise(rt, PYEXC_ValueError, "length argument must be "
		    "non-negative");
	if (!rt_check_str_bytes(rt, (uint64_t)length))
		return false;
	int_mpz(self, z);
	if (!is_signed && mpz_sgn(z) < 0) {
		mpz_clear(z);
		return rt_raise(rt, PYEXC_OverflowError,
		    "can't convert negative int to unsigned");
	}
	/* bits needed: magnitude bits, plus a sign bit when signed */
	if (mpz_sgn(z) == 0)
		nbits = 0;
	else if (mpz_sgn(z) > 0)
		nbits = mpz_sizeinbase(z, 2) + (is_signed ? 1 : 0);
	else {
		/* -2**(k-1) fits in k bits; CPython lets -1 fit in none */
		mpz_init(m);
		mpz_neg(m, z);
		mpz_sub_ui(m, m, 1);
		nbits = mpz_sgn(m) == 0 ? 0 : mpz_sizeinbase(m, 2) + 1;
		mpz_clear(m);
	}
	if (nbits > (uint64_t)length * 8) {
		mpz_clear(z);
		return rt_raise(rt, PYEXC_OverflowError,
		    "int too big to convert");
	}
	/* two's complement: add 2**(8*length) to a negative value */
	if (mpz_sgn(z) < 0) {
		mpz_init(m);
		mpz_ui_pow_ui(m, 2, (unsigned long)length * 8);
		mpz_add(z, z, m);
		mpz_clear(m);
	}
	buf = arena_alloc(rt->arena, (size_t)length + 1);
	for (i = 0; i < (size_t)length; i++) {
		unsigned char byte = (unsigned char)mpz_getlimbn(z, 0) & 0xFF;
		if (mpz_sgn(z) == 0)
			byte = 0;
		buf[little ? i : (size_t)length - 1 - i] = (char)byte;
		mpz_fdiv_q_2exp(z, z, 8);
	}
	mpz_clear(z);
	*out = value_bytes(rt->arena, buf, (size_t)length);
	return true;
}

METHOD(float_is_integer)
{
	double f = self.as.f;
	if (!no_args(rt, "float.is_integer", nargs, nkw))
		return false;
	*out = value_bool(isfinite(f) && floor(f) == f);
	return true;
}

METHOD(float_conjugate)
{
	if (!no_args(rt, "float.conjugate", nargs, nkw))
		return false;
	*out = self;
	return true;
}

/* float.hex(): [-]0x1.<13 hex digits>p<exp>, subnormals as 0x0.<...>p-1022 */
METHOD(float_hex)
{
	double f = self.as.f, m;
	int e, i;
	char buf[64];
	size_t n = 0;
	uint64_t bits;

	if (!no_args(rt, "float.hex", nargs, nkw))
		return false;
	if (isnan(f)) {
		*out = value_cstr(rt->arena, "nan");
		return true;
	}
	if (isinf(f)) {
		*out = value_cstr(rt->arena, f < 0 ? "-inf" : "inf");
		return true;
	}
	if (signbit(f))
		buf[n++] = '-';
	f = fabs(f);
	if (f == 0) {
		strcpy(buf + n, "0x0.0p+0");
		*out = value_cstr(rt->arena, buf);
		return true;
	}
	m = frexp(f, &e);	/* f = m * 2**e, 0.5 <= m < 1 */
	e -= 1;			/* 1 <= 2m < 2 */
	if (e < -1022) {
		/* subnormal: scale to the fixed exponent */
		m = ldexp(f, 1022);
		e = -1022;
	} else
		m *= 2;
	n += (size_t)snprintf(buf + n, sizeof buf - n, "0x%d.", (int)m);
	m -= floor(m);
	bits = (uint64_t)ldexp(m, 52);
	for (i = 12; i >= 0; i--)
		buf[n++] = "0123456789abcdef"[(bits >> (i * 4)) & 15];
	snprintf(buf + n, sizeof buf - n, "p%+d", e);
	*out = value_cstr(rt->arena, buf);
	return true;
}

METHOD(float_as_integer_ratio)
{
	double f = self.as.f, m;
	int e;
	mpz_t num, den;
	value t;

	if (!no_args(rt, "float.as_integer_ratio", nargs, nkw))
		return false;
	if (isnan(f))
		return rt_raise(rt, PYEXC_ValueError, "cannot convert NaN to "
		    "integer ratio");
	if (isinf(f))
		return rt_raise(rt, PYEXC_OverflowError,
		    "cannot convert Infinity to integer ratio");
	/* m * 2**e with m an integer of at most 53 bits */
	m = frexp(f, &e);
	while (m != floor(m)) {
		m *= 2;
		e--;
	}
	mpz_init_set_d(num, m);
	mpz_init_set_ui(den, 1);
	if (e > 0)
		mpz_mul_2exp(num, num, (mp_bitcnt_t)e);
	else
		mpz_mul_2exp(den, den, (mp_bitcnt_t)-e);
	t = value_tuple(rt->arena, 2);
	t.as.tuple->items[0] = value_int_mpz(rt->arena, num);
	t.as.tuple->items[1] = value_int_mpz(rt->arena, den);
	mpz_clear(num);
	mpz_clear(den);
	*out = t;
	return true;
}
