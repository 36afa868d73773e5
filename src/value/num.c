/*
 * num.c -- numbers with CPython 3.11's exact answers.
 *
 * An operator on two numbers first finds the "widest" kind of its operands
 * (int < float < complex, bool counting as int), converts the other operand
 * up (an int too large for a double raises OverflowError as CPython does)
 * and then runs the kind's operation.  Ints take an int64 fast path with
 * overflow checks and fall back to GMP only when a result does not fit, so
 * small-int and float arithmetic never allocate.
 *
 * Where CPython's answer depends on its algorithm (true division of ints,
 * float floor division and modulo, float and complex power, complex
 * division, round) the code below follows CPython's C source step by step;
 * each such function says which one it mirrors.
 *
 * Before a GMP operation that can make a big result (**, <<, *) the size of
 * the result is predicted and checked against the int-bits cap, so that
 * 9**9**9 is refused without being computed.
 */
#include "config.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "num.h"
#include "base/sbuf.h"
#include "value.h"

/* A bound on any int we are willing to build even with no cap set: GMP
 * aborts the process on absurd sizes, CPython raises MemoryError. */
#define HARD_INT_BITS ((uint64_t)1 << 36)

#define X_SYM(e, name, sym) sym,
static const char *const binop_syms[] = { BINOPS(X_SYM) };
static const char *const cmpop_syms[] = { CMPOPS(X_SYM) };
#undef X_SYM

static bool
unsupported(struct rt *rt, enum binop op, value a, value b)
{
	return rt_raise(rt, PYEXC_TypeError,
	    "unsupported operand type(s) for %s: '%s' and '%s'",
	    op == BINOP_POW ? "** or pow()" : binop_syms[op],
	    value_type_name(a), value_type_name(b));
}

static bool
check_bits(struct rt *rt, uint64_t bits)
{
	if (!rt_check_int_bits(rt, bits))
		return false;
	if (bits > HARD_INT_BITS)
		return rt_raise(rt, PYEXC_MemoryError, "%s", "");
	return true;
}

/* ================================================================ */
/* int helpers                                                       */
/* ================================================================ */

void
num_get_mpz(value v, mpz_t out)
{
	if (v.type == VT_BIGINT)
		mpz_init_set(out, v.as.big->z);
	else if (v.type == VT_BOOL)
		mpz_init_set_si(out, v.as.b);
	else
		mpz_init_set_si(out, (long)v.as.i);
}

static int64_t
small(value v)
{
	return v.type == VT_BOOL ? (int64_t)v.as.b : v.as.i;
}

static bool
is_small(value v)
{
	return v.type == VT_BOOL || v.type == VT_INT;
}

/* Bits in |v| (0 for 0). */
static uint64_t
int_bits(value v)
{
	if (v.type == VT_BIGINT)
		return mpz_sizeinbase(v.as.big->z, 2);
	int64_t i = small(v);
	uint64_t u = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
	return u == 0 ? 0 : 64 - (uint64_t)__builtin_clzll(u);
}

static int
int_sign(value v)
{
	if (v.type == VT_BIGINT)
		return mpz_sgn(v.as.big->z);
	int64_t i = small(v);
	return (i > 0) - (i < 0);
}

bool
num_to_int64_clamped(value v, int64_t *out)
{
	if (is_small(v)) {
		*out = small(v);
		return true;
	}
	*out = mpz_sgn(v.as.big->z) < 0 ? INT64_MIN : INT64_MAX;
	return false;
}

static value
mk_int(struct rt *rt, const mpz_t z)
{
	return value_int_mpz(rt->arena, z);
}

/*
 * int -> double, correctly rounded (half to even) as PyLong_AsDouble: keep
 * 55 significant bits with the dropped bits folded into a sticky bit, so
 * that the one conversion to double rounds exactly once.
 */
static bool
num_mpz_to_double(const mpz_t z, double *out)
{
	size_t n = mpz_sizeinbase(z, 2);
	if (n <= 63) {
		*out = (double)mpz_get_si(z);
		return true;
	}
	if (n > DBL_MAX_EXP) 
		return false;
	mpz_t q;
	mpz_init(q);
	mpz_abs(q, z);
	size_t shift = n - 55;
	bool sticky = mpz_scan1(q, 0) < shift;
	mpz_tdiv_q_2exp(q, q, shift);
	uint64_t top = mpz_get_ui(q) | (sticky ? 1 : 0);
	mpz_clear(q);
	double d = ldexp((double)top, (int)shift);
	if (isinf(d))
		return false;
	*out = mpz_sgn(z) < 0 ? -d : d;
	return true;
}

bool
num_to_double(struct rt *rt, value v, double *out)
{
	switch (v.type) {
	case VT_FLOAT: *out = v.as.f; return true;
	case VT_BOOL: *out = v.as.b; return true;
	case VT_INT: *out = (double)v.as.i; return true;
	case VT_BIGINT:
		if (!num_mpz_to_double(v.as.big->z, out))
			return rt_raise(rt, PYEXC_OverflowError,
			    "int too large to convert to float");
		return true;
	default:
		return rt_raise(rt, PYEXC_TypeError,
		    "must be real number, not %s", value_type_name(v));
	}
}

/*
 * int / int correctly rounded, as CPython's long_true_divide: find the
 * binary exponent E of the quotient exactly, scale so that the quotient's
 * integer part has the 53 bits a double of that exponent holds (fewer for
 * subnormals), and round the remainder half to even.
 */
static bool
int_true_divide(struct rt *rt, value a, value b, double *out)
{
	if (int_sign(b) == 0)
		return rt_raise(rt, PYEXC_ZeroDivisionError,
		    "division by zero");
	bool negate = (int_sign(a) < 0) != (int_sign(b) < 0);
	if (int_bits(a) <= DBL_MANT_DIG && int_bits(b) <= DBL_MANT_DIG) {
		/* both exact as doubles: IEEE division rounds correctly */
		*out = (double)small(a) / (double)small(b);
		return true;
	}
	if (int_sign(a) == 0) {
		*out = negate ? -0.0 : 0.0;
		return true;
	}
	mpz_t x, y, t, r;
	num_get_mpz(a, x);
	num_get_mpz(b, y);
	mpz_abs(x, x);
	mpz_abs(y, y);
	mpz_inits(t, r, NULL);
	long e = (long)mpz_sizeinbase(x, 2) - (long)mpz_sizeinbase(y, 2);
	/* E = e if x >= y * 2**e else e - 1 */
	if (e >= 0) {
		mpz_mul_2exp(t, y, (mp_bitcnt_t)e);
		if (mpz_cmp(x, t) < 0)
			e--;
	} else {
		mpz_mul_2exp(t, x, (mp_bitcnt_t)-e);
		if (mpz_cmp(t, y) < 0)
			e--;
	}
	bool ok = true;
	if (e >= DBL_MAX_EXP) {
		ok = false;
	} else {
		long k = (e < DBL_MIN_EXP - 1 ? DBL_MIN_EXP - 1 : e) -
		    (DBL_MANT_DIG - 1);
		/* N = floor(x / (y * 2**k)), r the remainder */
		if (k >= 0) {
			mpz_mul_2exp(t, y, (mp_bitcnt_t)k);
			mpz_fdiv_qr(x, r, x, t);
		} else {
			mpz_mul_2exp(x, x, (mp_bitcnt_t)-k);
			mpz_set(t, y);
			mpz_fdiv_qr(x, r, x, t);
		}
		mpz_mul_2exp(r, r, 1);
		int c = mpz_cmp(r, t);
		if (c > 0 || (c == 0 && mpz_odd_p(x)))
			mpz_add_ui(x, x, 1);
		double d = ldexp((double)mpz_get_ui(x), (int)k);
		if (isinf(d))
			ok = false;
		else
			*out = negate ? -d : d;
	}
	mpz_clears(x, y, t, r, NULL);
	if (!ok)
		return rt_raise(rt, PYEXC_OverflowError,
		    "integer division result too large for a float");
	return true;
}

/* Python's floor division and modulo of ints. */
static bool
int_divmod(struct rt *rt, value a, value b, value *q, value *m,
    const char *zeromsg)
{
	if (int_sign(b) == 0)
		return rt_raise(rt, PYEXC_ZeroDivisionError, "%s", zeromsg);
	if (is_small(a) && is_small(b)) {
		int64_t x = small(a), y = small(b);
		if (!(x == INT64_MIN && y == -1)) {
			int64_t qq = x / y, rr = x % y;
			if (rr != 0 && ((rr < 0) != (y < 0))) {
				qq--;
				rr += y;
			}
			if (q)
				*q = value_int(qq);
			if (m)
				*m = value_int(rr);
			return true;
		}
	}
	mpz_t x, y, qq, rr;
	num_get_mpz(a, x);
	num_get_mpz(b, y);
	mpz_inits(qq, rr, NULL);
	mpz_fdiv_qr(qq, rr, x, y);
	if (q)
		*q = mk_int(rt, qq);
	if (m)
		*m = mk_int(rt, rr);
	mpz_clears(x, y, qq, rr, NULL);
	return true;
}

/* a ** b for ints with b >= 0, size predicted first. */
static bool
int_pow(struct rt *rt, value a, value b, value *out)
{
	/* 0, 1 and -1 never grow */
	if (is_small(a) && small(a) >= -1 && small(a) <= 1) {
		int64_t x = small(a);
		if (x == 0)
			*out = value_int(int_sign(b) == 0 ? 1 : 0);
		else if (x == 1)
			*out = value_int(1);
		else {
			bool odd = b.type == VT_BIGINT ? mpz_odd_p(b.as.big->z)
			    : (small(b) & 1);
			*out = value_int(odd ? -1 : 1);
		}
		return true;
	}
	/* |a| >= 2: the result has at least b * log2|a| bits */
	double lg;
	if (a.type == VT_BIGINT) {
		long ex;
		double m = mpz_get_d_2exp(&ex, a.as.big->z);
		lg = (double)ex + log2(fabs(m));
	} else
		lg = log2(fabs((double)small(a)));
	double nb = b.type == VT_BIGINT ? mpz_get_d(b.as.big->z) :
	    (double)small(b);
	double pred = nb * lg;
	if (pred > 1e18)
		pred = 1e18;
	if (!check_bits(rt, (uint64_t)pred))
		return false;
	uint64_t e = (uint64_t)small(b);
	if (is_small(a)) {
		/* square-and-multiply in int64 while it fits */
		int64_t base = small(a), acc = 1;
		uint64_t n = e;
		bool overflow = false;
		while (n) {
			if (n & 1 && __builtin_mul_overflow(acc, base, &acc)) {
				overflow = true;
				break;
			}
			n >>= 1;
			if (n && __builtin_mul_overflow(base, base, &base)) {
				overflow = true;
				break;
			}
		}
		if (!overflow) {
			*out = value_int(acc);
			return true;
		}
	}
	mpz_t x;
	num_get_mpz(a, x);
	mpz_pow_ui(x, x, (unsigned long)e);
	*out = mk_int(rt, x);
	mpz_clear(x);
	return true;
}

static bool float_pow(struct rt *rt, double iv, double iw, value *out);

static bool
int_binop(struct rt *rt, enum binop op, value a, value b, value *out)
{
	bool both_small = is_small(a) && is_small(b);
	int64_t x = both_small ? small(a) : 0, y = both_small ? small(b) : 0;
	int64_t r;
	mpz_t za, zb;

	switch (op) {
	case BINOP_ADD:
		if (both_small && !__builtin_add_overflow(x, y, &r))
			goto small_result;
		break;
	case BINOP_SUB:
		if (both_small && !__builtin_sub_overflow(x, y, &r))
			goto small_result;
		break;
	case BINOP_MULT:
		if (both_small && !__builtin_mul_overflow(x, y, &r))
			goto small_result;
		if (!check_bits(rt, int_bits(a) + int_bits(b)))
			return false;
		break;
	case BINOP_DIV: {
		double d = 0.0;
		if (!int_true_divide(rt, a, b, &d))
			return false;
		*out = value_float(d);
		return true;
	}
	case BINOP_FLOORDIV:
		return int_divmod(rt, a, b, out, NULL,
		    "integer division or modulo by zero");
	case BINOP_MOD:
		return int_divmod(rt, a, b, NULL, out,
		    "integer modulo by zero");
	case BINOP_POW:
		if (int_sign(b) < 0) {
			/* a negative exponent makes it a float power */
			double fa, fb;
			if (!num_to_double(rt, a, &fa) ||
			    !num_to_double(rt, b, &fb))
				return false;
			return float_pow(rt, fa, fb, out);
		}
		return int_pow(rt, a, b, out);
	case BINOP_LSHIFT:
	case BINOP_RSHIFT:
		if (int_sign(b) < 0)
			return rt_raise(rt, PYEXC_ValueError,
			    "negative shift count");
		if (int_sign(a) == 0) {
			*out = value_int(0);
			return true;
		}
		if (op == BINOP_RSHIFT) {
			if (b.type == VT_BIGINT || y >= 64) {
				if (both_small || b.type == VT_BIGINT ||
				    (uint64_t)y >= int_bits(a)) {
					*out = value_int(int_sign(a) < 0 ? -1 : 0);
					return true;
				}
			} else if (both_small) {
				r = x >> y;	/* arithmetic shift floors */
				goto small_result;
			}
		} else {
			if (b.type == VT_BIGINT)
				return check_bits(rt, HARD_INT_BITS + 1);
			if (both_small && y < 63 && int_bits(a) + (uint64_t)y < 63) {
				r = (int64_t)((uint64_t)x << y);
				goto small_result;
			}
			if (!check_bits(rt, int_bits(a) + (uint64_t)small(b)))
				return false;
		}
		break;
	case BINOP_BITAND:
	case BINOP_BITOR:
	case BINOP_BITXOR:
		if (both_small) {
			r = op == BINOP_BITAND ? (x & y) : op == BINOP_BITOR ?
			    (x | y) : (x ^ y);
			if (a.type == VT_BOOL && b.type == VT_BOOL) {
				*out = value_bool(r != 0);
				return true;
			}
			goto small_result;
		}
		break;
	default:
		return unsupported(rt, op, a, b);
	}

	num_get_mpz(a, za);
	num_get_mpz(b, zb);
	switch (op) {
	case BINOP_ADD: mpz_add(za, za, zb); break;
	case BINOP_SUB: mpz_sub(za, za, zb); break;
	case BINOP_MULT: mpz_mul(za, za, zb); break;
	case BINOP_LSHIFT: mpz_mul_2exp(za, za, (mp_bitcnt_t)small(b)); break;
	case BINOP_RSHIFT: mpz_fdiv_q_2exp(za, za, (mp_bitcnt_t)small(b)); break;
	case BINOP_BITAND: mpz_and(za, za, zb); break;
	case BINOP_BITOR: mpz_ior(za, za, zb); break;
	case BINOP_BITXOR: mpz_xor(za, za, zb); break;
	default: break;
	}
	*out = mk_int(rt, za);
	mpz_clears(za, zb, NULL);
	return true;

small_result:
	*out = value_int(r);
	return true;
}

/* ================================================================ */
/* float                                                             */
/* ================================================================ */

static bool
is_odd_integer(double x)
{
	/* DOUBLE_IS_ODD_INTEGER from floatobject.c */
	return fmod(fabs(x), 2.0) == 1.0;
}

static bool complex_pow(struct rt *rt, struct vcomplex a, struct vcomplex b,
    value *out);

/* float ** float, as CPython's float_pow. */
static bool
float_pow(struct rt *rt, double iv, double iw, value *out)
{
	bool negate_result = false;
	double ix;

	if (iw == 0) {
		*out = value_float(1.0);
		return true;
	}
	if (isnan(iv)) {
		*out = value_float(iv);
		return true;
	}
	if (isnan(iw)) {
		*out = value_float(iv == 1.0 ? 1.0 : iw);
		return true;
	}
	if (isinf(iw)) {
		iv = fabs(iv);
		if (iv == 1.0)
			*out = value_float(1.0);
		else if ((iw > 0.0) == (iv > 1.0))
			*out = value_float(fabs(iw));
		else
			*out = value_float(0.0);
		return true;
	}
	if (isinf(iv)) {
		bool odd = is_odd_integer(iw);
		if (iw > 0.0)
			*out = value_float(odd ? iv : fabs(iv));
		else
			*out = value_float(odd ? copysign(0.0, iv) : 0.0);
		return true;
	}
	if (iv == 0.0) {
		bool odd = is_odd_integer(iw);
		if (iw < 0.0)
			return rt_raise(rt, PYEXC_ZeroDivisionError,
			    "0.0 cannot be raised to a negative power");
		*out = value_float(odd ? iv : 0.0);
		return true;
	}
	if (iv < 0.0) {
		if (iw != floor(iw)) {
			/* a negative base to a fractional power is complex */
			struct vcomplex ca = { iv, 0.0 }, cb = { iw, 0.0 };
			return complex_pow(rt, ca, cb, out);
		}
		iv = -iv;
		negate_result = is_odd_integer(iw);
	}
	if (iv == 1.0) {
		*out = value_float(negate_result ? -1.0 : 1.0);
		return true;
	}
	errno = 0;
	ix = pow(iv, iw);
	/* _Py_ADJUST_ERANGE1 */
	if (errno == 0) {
		if (isinf(ix))
			errno = ERANGE;
	} else if (errno == ERANGE && ix == 0.0)
		errno = 0;
	if (negate_result)
		ix = -ix;
	if (errno != 0) {
		int e = errno;
		errno = 0;
		if (e == ERANGE)
			return rt_raise(rt, PYEXC_OverflowError,
			    "(34, 'Numerical result out of range')");
		return rt_raise(rt, PYEXC_ValueError,
		    "(33, 'Numerical argument out of domain')");
	}
	*out = value_float(ix);
	return true;
}

/* CPython's _float_div_mod: floor quotient and modulo with Python signs. */
static void
float_div_mod(double vx, double wx, double *floordiv, double *mod)
{
	double div;
	*mod = fmod(vx, wx);
	div = (vx - *mod) / wx;
	if (*mod) {
		if ((wx < 0) != (*mod < 0)) {
			*mod += wx;
			div -= 1.0;
		}
	} else
		*mod = copysign(0.0, wx);
	if (div) {
		*floordiv = floor(div);
		if (div - *floordiv > 0.5)
			*floordiv += 1.0;
	} else
		*floordiv = copysign(0.0, vx / wx);
}

static bool
float_binop(struct rt *rt, enum binop op, value a, value b, value *out)
{
	double x, y, q, m;
	switch (op) {
	case BINOP_ADD: case BINOP_SUB: case BINOP_MULT: case BINOP_DIV:
	case BINOP_FLOORDIV: case BINOP_MOD: case BINOP_POW:
		break;
	default:
		return unsupported(rt, op, a, b);
	}
	if (!num_to_double(rt, a, &x) || !num_to_double(rt, b, &y))
		return false;
	switch (op) {
	case BINOP_ADD: *out = value_float(x + y); return true;
	case BINOP_SUB: *out = value_float(x - y); return true;
	case BINOP_MULT: *out = value_float(x * y); return true;
	case BINOP_DIV:
		if (y == 0.0)
			return rt_raise(rt, PYEXC_ZeroDivisionError,
			    "float division by zero");
		*out = value_float(x / y);
		return true;
	case BINOP_FLOORDIV:
		if (y == 0.0)
			return rt_raise(rt, PYEXC_ZeroDivisionError,
			    "float floor division by zero");
		float_div_mod(x, y, &q, &m);
		*out = value_float(q);
		return true;
	case BINOP_MOD:
		if (y == 0.0)
			return rt_raise(rt, PYEXC_ZeroDivisionError,
			    "float modulo");
		/* float_rem */
		m = fmod(x, y);
		if (m) {
			if ((y < 0) != (m < 0))
				m += y;
		} else
			m = copysign(0.0, y);
		*out = value_float(m);
		return true;
	default:
		return float_pow(rt, x, y, out);
	}
}

/* ================================================================ */
/* complex                                                           */
/* ================================================================ */

static struct vcomplex
c_prod(struct vcomplex a, struct vcomplex b)
{
	struct vcomplex r;
	r.re = a.re * b.re - a.im * b.im;
	r.im = a.re * b.im + a.im * b.re;
	return r;
}

/* _Py_c_quot; sets errno = EDOM on division by zero. */
static struct vcomplex
c_quot(struct vcomplex a, struct vcomplex b)
{
	struct vcomplex r;
	double abs_breal = b.re < 0 ? -b.re : b.re;
	double abs_bimag = b.im < 0 ? -b.im : b.im;
	if (abs_breal >= abs_bimag) {
		if (abs_breal == 0.0) {
			errno = EDOM;
			r.re = r.im = 0.0;
		} else {
			double ratio = b.im / b.re;
			double denom = b.re + b.im * ratio;
			r.re = (a.re + a.im * ratio) / denom;
			r.im = (a.im - a.re * ratio) / denom;
		}
	} else if (abs_bimag >= abs_breal) {
		double ratio = b.re / b.im;
		double denom = b.re * ratio + b.im;
		r.re = (a.re * ratio + a.im) / denom;
		r.im = (a.im * ratio - a.re) / denom;
	} else {
		r.re = r.im = NAN;
	}
	return r;
}

/* _Py_c_pow */
static struct vcomplex
c_pow(struct vcomplex a, struct vcomplex b)
{
	struct vcomplex r;
	if (b.re == 0.0 && b.im == 0.0) {
		r.re = 1.0;
		r.im = 0.0;
	} else if (a.re == 0.0 && a.im == 0.0) {
		if (b.im != 0.0 || b.re < 0.0)
			errno = EDOM;
		r.re = 0.0;
		r.im = 0.0;
	} else {
		double vabs = hypot(a.re, a.im);
		double len = pow(vabs, b.re);
		double at = atan2(a.im, a.re);
		double phase = at * b.re;
		if (b.im != 0.0) {
			len /= exp(at * b.im);
			phase += b.im * log(vabs);
		}
		r.re = len * cos(phase);
		r.im = len * sin(phase);
	}
	return r;
}

static struct vcomplex
c_powu(struct vcomplex x, long n)
{
	struct vcomplex r = { 1.0, 0.0 }, p = x;
	long mask = 1;
	while (mask > 0 && n >= mask) {
		if (n & mask)
			r = c_prod(r, p);
		mask <<= 1;
		p = c_prod(p, p);
	}
	return r;
}

static struct vcomplex
c_powi(struct vcomplex x, long n)
{
	struct vcomplex one = { 1.0, 0.0 };
	if (n > 100 || n < -100) {
		struct vcomplex cn = { (double)n, 0.0 };
		return c_pow(x, cn);
	} else if (n > 0)
		return c_powu(x, n);
	else
		return c_quot(one, c_powu(x, -n));
}

/* complex_pow from complexobject.c (3.11) */
static bool
complex_pow(struct rt *rt, struct vcomplex a, struct vcomplex b, value *out)
{
	struct vcomplex p;
	long int_exponent;
	errno = 0;
	int_exponent = (b.re >= -9.2e18 && b.re <= 9.2e18) ? (long)b.re : 0;
	if (b.im == 0.0 && b.re == (double)int_exponent)
		p = c_powi(a, int_exponent);
	else
		p = c_pow(a, b);
	/* _Py_ADJUST_ERANGE2: an infinite part is an overflow, anything
	 * else (a NaN too) clears a range error */
	if (isinf(p.re) || isinf(p.im)) {
		if (errno == 0)
			errno = ERANGE;
	} else if (errno == ERANGE)
		errno = 0;
	int e = errno;
	errno = 0;
	if (e == EDOM)
		return rt_raise(rt, PYEXC_ZeroDivisionError,
		    "0.0 to a negative or complex power");
	if (e == ERANGE)
		return rt_raise(rt, PYEXC_OverflowError,
		    "complex exponentiation");
	*out = value_complex(rt->arena, p.re, p.im);
	return true;
}

static bool
to_complex(struct rt *rt, value v, struct vcomplex *c)
{
	if (v.type == VT_COMPLEX) {
		*c = *v.as.c;
		return true;
	}
	c->im = 0.0;
	return num_to_double(rt, v, &c->re);
}

static bool
complex_binop(struct rt *rt, enum binop op, value a, value b, value *out)
{
	struct vcomplex x, y, r;
	switch (op) {
	case BINOP_ADD: case BINOP_SUB: case BINOP_MULT: case BINOP_DIV:
	case BINOP_POW:
		break;
	default:
		return unsupported(rt, op, a, b);
	}
	if (!to_complex(rt, a, &x) || !to_complex(rt, b, &y))
		return false;
	switch (op) {
	case BINOP_ADD: r.re = x.re + y.re; r.im = x.im + y.im; break;
	case BINOP_SUB: r.re = x.re - y.re; r.im = x.im - y.im; break;
	case BINOP_MULT: r = c_prod(x, y); break;
	case BINOP_DIV:
		errno = 0;
		r = c_quot(x, y);
		if (errno == EDOM) {
			errno = 0;
			return rt_raise(rt, PYEXC_ZeroDivisionError,
			    "complex division by zero");
		}
		break;
	default:
		return complex_pow(rt, x, y, out);
	}
	*out = value_complex(rt->arena, r.re, r.im);
	return true;
}

/* ================================================================ */
/* dispatch                                                          */
/* ================================================================ */

bool
num_binop(struct rt *rt, enum binop op, value a, value b, value *out)
{
	if (a.type == VT_COMPLEX || b.type == VT_COMPLEX)
		return complex_binop(rt, op, a, b, out);
	if (a.type == VT_FLOAT || b.type == VT_FLOAT)
		return float_binop(rt, op, a, b, out);
	return int_binop(rt, op, a, b, out);
}

bool
num_unaryop(struct rt *rt, enum unaryop op, value a, value *out)
{
	mpz_t z;
	switch (a.type) {
	case VT_FLOAT:
		if (op == UNARYOP_USUB)
			*out = value_float(-a.as.f);
		else if (op == UNARYOP_UADD)
			*out = a;
		else
			break;
		return true;
	case VT_COMPLEX:
		if (op == UNARYOP_USUB)
			*out = value_complex(rt->arena, -a.as.c->re, -a.as.c->im);
		else if (op == UNARYOP_UADD)
			*out = value_complex(rt->arena, a.as.c->re, a.as.c->im);
		else
			break;
		return true;
	case VT_BOOL:
	case VT_INT:
		if (op == UNARYOP_UADD) {
			*out = value_int(small(a));
			return true;
		}
		if (op == UNARYOP_INVERT) {
			*out = value_int(~small(a));
			return true;
		}
		if (op == UNARYOP_USUB && small(a) != INT64_MIN) {
			*out = value_int(-small(a));
			return true;
		}
		/* FALLTHROUGH */
	case VT_BIGINT:
		num_get_mpz(a, z);
		if (op == UNARYOP_USUB)
			mpz_neg(z, z);
		else if (op == UNARYOP_INVERT)
			mpz_com(z, z);
		*out = mk_int(rt, z);
		mpz_clear(z);
		return true;
	default:
		break;
	}
	return rt_raise(rt, PYEXC_TypeError,
	    "bad operand type for unary %s: '%s'",
	    op == UNARYOP_USUB ? "-" : op == UNARYOP_UADD ? "+" : "~",
	    value_type_name(a));
}

/* ================================================================ */
/* comparison and hash                                               */
/* ================================================================ */

/* Exact three-way comparison of an int with a non-NaN double. */
static int
cmp_int_double(value a, double d)
{
	if (is_small(a)) {
		int64_t i = small(a);
		if (d >= 9223372036854775808.0)
			return -1;
		if (d < -9223372036854775808.0)
			return 1;
		double t = trunc(d);
		int64_t ti = (int64_t)t;
		if (i != ti)
			return i < ti ? -1 : 1;
		return t < d ? -1 : t > d ? 1 : 0;
	}
	if (isinf(d))
		return d > 0 ? -1 : 1;
	int c = mpz_cmp_d(a.as.big->z, d);
	return (c > 0) - (c < 0);
}

static int
cmp_int_int(value a, value b)
{
	if (is_small(a) && is_small(b))
		return (small(a) > small(b)) - (small(a) < small(b));
	mpz_t x, y;
	num_get_mpz(a, x);
	num_get_mpz(b, y);
	int c = mpz_cmp(x, y);
	mpz_clears(x, y, NULL);
	return (c > 0) - (c < 0);
}

bool
num_compare(struct rt *rt, enum cmpop op, value a, value b, bool *res)
{
	if (a.type == VT_COMPLEX || b.type == VT_COMPLEX) {
		struct vcomplex x, y;
		bool eq;
		if (op != CMPOP_EQ && op != CMPOP_NOTEQ)
			return rt_raise(rt, PYEXC_TypeError,
			    "'%s' not supported between instances of '%s' and "
			    "'%s'",
			    cmpop_syms[op], value_type_name(a),
			    value_type_name(b));
		if (a.type != VT_COMPLEX || b.type != VT_COMPLEX) {
			/* complex vs real: exact comparison of the real part */
			value c = a.type == VT_COMPLEX ? a : b;
			value r = a.type == VT_COMPLEX ? b : a;
			bool req;
			if (c.as.c->im != 0.0)
				eq = false;
			else if (!num_compare(rt, CMPOP_EQ, r,
			    value_float(c.as.c->re), &req))
				return false;
			else
				eq = req;
		} else {
			x = *a.as.c;
			y = *b.as.c;
			eq = x.re == y.re && x.im == y.im;
		}
		*res = op == CMPOP_EQ ? eq : !eq;
		return true;
	}
	if (a.type == VT_FLOAT || b.type == VT_FLOAT) {
		int c;
		if (a.type == VT_FLOAT && b.type == VT_FLOAT) {
			double x = a.as.f, y = b.as.f;
			switch (op) {
			case CMPOP_EQ: *res = x == y; break;
			case CMPOP_NOTEQ: *res = x != y; break;
			case CMPOP_LT: *res = x < y; break;
			case CMPOP_LTE: *res = x <= y; break;
			case CMPOP_GT: *res = x > y; break;
			default: *res = x >= y; break;
			}
			return true;
		}
		double d = a.type == VT_FLOAT ? a.as.f : b.as.f;
		if (isnan(d)) {
			*res = op == CMPOP_NOTEQ;
			return true;
		}
		c = a.type == VT_FLOAT ? -cmp_int_double(b, d) :
		    cmp_int_double(a, d);
		*res = cmpop_holds(op, c);
		return true;
	}
	*res = cmpop_holds(op, cmp_int_int(a, b));
	return true;
}

#define HASH_BITS 61
#define HASH_MODULUS (((uint64_t)1 << HASH_BITS) - 1)
#define HASH_INF 314159

static int64_t
fix_hash(int64_t h)
{
	return h == -1 ? -2 : h;
}

static int64_t
hash_double(double v)
{
	/* _Py_HashDouble */
	int e, sign;
	double m;
	uint64_t x, y;
	if (!isfinite(v)) {
		if (isinf(v))
			return v > 0 ? HASH_INF : -HASH_INF;
		return 0;
	}
	m = frexp(v, &e);
	sign = 1;
	if (m < 0) {
		sign = -1;
		m = -m;
	}
	x = 0;
	while (m) {
		x = ((x << 28) & HASH_MODULUS) | x >> (HASH_BITS - 28);
		m *= 268435456.0;
		e -= 28;
		y = (uint64_t)m;
		m -= (double)y;
		x += y;
		if (x >= HASH_MODULUS)
			x -= HASH_MODULUS;
	}
	e = e >= 0 ? e % HASH_BITS : HASH_BITS - 1 - ((-1 - e) % HASH_BITS);
	x = ((x << e) & HASH_MODULUS) | x >> (HASH_BITS - e);
	return fix_hash((int64_t)x * sign);
}

static int64_t
hash_int(value v)
{
	if (is_small(v)) {
		int64_t i = small(v);
		uint64_t u = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
		int64_t h = (int64_t)(u % HASH_MODULUS);
		return fix_hash(i < 0 ? -h : h);
	}
	mpz_t r;
	mpz_init(r);
	mpz_tdiv_r_ui(r, v.as.big->z, HASH_MODULUS);
	int64_t h = mpz_get_si(r);
	mpz_clear(r);
	return fix_hash(h);
}

uint64_t
num_hash(value v)
{
	switch (v.type) {
	case VT_FLOAT:
		return (uint64_t)hash_double(v.as.f);
	case VT_COMPLEX: {
		uint64_t hr = (uint64_t)hash_double(v.as.c->re);
		uint64_t hi = (uint64_t)hash_double(v.as.c->im);
		return (uint64_t)fix_hash((int64_t)(hr + 1000003u * hi));
	}
	default:
		return (uint64_t)hash_int(v);
	}
}

/* ================================================================ */
/* repr                                                              */
/* ================================================================ */

/*
 * Add one unit in the last digit of a "d.ddde+XX" string, carrying into
 * the exponent when all digits were 9.  False when it cannot.
 */
static bool
bump_up(char *buf)
{
	char *e = strchr(buf, 'e'), *p;
	if (e == NULL)
		return false;
	for (p = e - 1; p >= buf; p--) {
		if (*p == '.')
			continue;
		if (*p != '9') {
			(*p)++;
			return true;
		}
		*p = '0';
	}
	/* 9.99e+XX became 0.00e+XX: make it 1.00e+(XX+1) */
	buf[0] = '1';
	sprintf(e, "e%+d", (atoi(e + 1) + 1) % 1000);
	return true;
}

/*
 * The common case without printf and strtod (they were most of a trace
 * line's cost: `-> 173.33`): f in [1e-4, 1e15) that some decimal of at
 * most 15 significant digits reads back as.  For k = 0, 1, ... the
 * integer m nearest f * 10^k is the only candidate at that scale (f *
 * 10^k < 1e15 < 2^52 is computed within 0.12 of exact, and a decimal that
 * reads back as f lies within half an ulp of f, 10^k times less than 0.12
 * from it; so m is the floor of f * 10^k + 0.5, a sum without rounding
 * below 2^50, whichever way a tie would go); m / 10^k, both exact and
 * divided with one rounding, is what
 * strtod gives for that decimal.  The smallest k that reads back has the
 * fewest significant digits, and at 15 digits or fewer no other string as
 * short reads back as f (num_format_double's comment): Python's repr.
 * Its digits (trailing zeros dropped) and decimal exponent; false when
 * the general search must decide.
 */
static bool
short_decimal(double f, char *digits, int *nd, int *exp10)
{
	static const double pow10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6,
	    1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
	    1e18, 1e19 };
	char buf[24], *e = buf + sizeof buf, *q = e;
	uint64_t u;
	int k, n;

	if (!(f >= 1e-4 && f < 1e15))
		return false;
	for (k = 0; k < (int)(sizeof pow10 / sizeof pow10[0]); k++) {
		double x = f * pow10[k];
		if (!(x < 1e15))
			return false;
		u = (uint64_t)(x + 0.5);
		if ((double)u / pow10[k] == f)
			break;
	}
	if (k == (int)(sizeof pow10 / sizeof pow10[0]))
		return false;
	/* (two digits a division) */
	while (u >= 100) {
		unsigned d = (unsigned)(u % 100);
		u /= 100;
		*--q = (char)('0' + d % 10);
		*--q = (char)('0' + d / 10);
	}
	if (u >= 10) {
		*--q = (char)('0' + u % 10);
		u /= 10;
	}
	*--q = (char)('0' + u);
	n = (int)(e - q);
	*exp10 = n - 1 - k;
	while (n > 1 && e[-1] == '0') {
		e--;
		n--;
	}
	memcpy(digits, q, (size_t)n);
	digits[n] = '\0';
	*nd = n;
	return true;
}

/*
 * The shortest digit string that reads back as f (the closest one when
 * several are as short) is what Python's repr shows; printf's %.*e is
 * correctly rounded, which gives it in at most three tries.  Then Python's
 * 'r' layout: positional when -4 <= exponent < 16, else d.ddde+XX.
 */
void
num_format_double(double f, bool add_dot0, bool plus_sign, char *out)
{
	char buf[40], digits[24];
	int prec, exp10, nd = 0;
	char *p = out;

	if (isnan(f)) {
		strcpy(out, plus_sign ? "+nan" : "nan");
		return;
	}
	if (signbit(f))
		*p++ = '-';
	else if (plus_sign)
		*p++ = '+';
	if (isinf(f)) {
		strcpy(p, "inf");
		return;
	}
	f = fabs(f);
	if (f == 0.0) {
		strcpy(p, add_dot0 ? "0.0" : "0");
		return;
	}
	/*
	 * Half a unit in the 15th significant digit is more than half an ulp
	 * of any double, so if some string of at most 15 digits reads back as
	 * f, the 15-digit rounding of f is that string padded with zeros: one
	 * try finds it (the zeros are stripped below).  Otherwise 16 digits,
	 * where a power of two's lopsided rounding interval may need the
	 * string one unit above the nearest, and at last 17, which always do.
	 */
	int e2;
	bool lopsided;
	if (short_decimal(f, digits, &nd, &exp10))
		goto layout;
	lopsided = frexp(f, &e2) == 0.5;	/* (only the search asks) */
	/* (subnormals hold fewer bits: they search from one digit up) */
	for (prec = f < DBL_MIN ? 0 : 14; prec < 16; prec++) {
		snprintf(buf, sizeof buf, "%.*e", prec, f);
		if (strtod(buf, NULL) == f)
			break;
		if (prec >= 15 && lopsided && bump_up(buf) &&
		    strtod(buf, NULL) == f)
			break;
	}
	if (prec == 16)
		snprintf(buf, sizeof buf, "%.16e", f);
	/* buf is d[.ddd]e[+-]XX: collect digits and the exponent */
	char *q;
	for (q = buf; *q != 'e'; q++)
		if (*q != '.')
			digits[nd++] = *q;
	exp10 = atoi(q + 1);
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = '\0';
layout:
	if (exp10 < -4 || exp10 >= 16) {
		*p++ = digits[0];
		if (nd > 1) {
			*p++ = '.';
			memcpy(p, digits + 1, (size_t)nd - 1);
			p += nd - 1;
		}
		sprintf(p, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
		return;
	}
	if (exp10 < 0) {
		*p++ = '0';
		*p++ = '.';
		for (int i = -1; i > exp10; i--)
			*p++ = '0';
		memcpy(p, digits, (size_t)nd);
		p += nd;
	} else {
		for (int i = 0; i <= exp10; i++)
			*p++ = i < nd ? digits[i] : '0';
		if (nd > exp10 + 1) {
			*p++ = '.';
			memcpy(p, digits + exp10 + 1, (size_t)(nd - exp10 - 1));
			p += nd - exp10 - 1;
		} else if (add_dot0) {
			*p++ = '.';
			*p++ = '0';
		}
	}
	*p = '\0';
}

bool
num_int_repr(struct rt *rt, value v, struct sbuf *out)
{
	if (is_small(v)) {
		char buf[24], *e = buf + sizeof buf, *q = e;
		int64_t x = small(v);
		uint64_t u = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
		do
			*--q = (char)('0' + u % 10);
		while ((u /= 10) != 0);
		if (x < 0)
			*--q = '-';
		sbuf_add(out, q, (size_t)(e - q));
		return true;
	}
	/* sizeinbase(10) is exact or one too many: check before and after */
	size_t est = mpz_sizeinbase(v.as.big->z, 10);
	if (est > INT_MAX_STR_DIGITS + 1)
		goto too_long;
	char *s = arena_alloc(rt->arena, est + 2);
	mpz_get_str(s, 10, v.as.big->z);
	if (strlen(s) - (s[0] == '-') > INT_MAX_STR_DIGITS)
		goto too_long;
	sbuf_adds(out, s);
	return true;
too_long:
	return rt_raise(rt, PYEXC_ValueError,
	    "Exceeds the limit (%d digits) for integer string conversion; use "
	    "sys.set_int_max_str_digits() to "
	    "increase the limit", INT_MAX_STR_DIGITS);
}

/* ================================================================ */
/* round, abs, divmod                                                */
/* ================================================================ */

/* PyLong_FromDouble */
static bool
int_from_double(struct rt *rt, double d, value *out)
{
	if (isinf(d))
		return rt_raise(rt, PYEXC_OverflowError,
		    "cannot convert float infinity to integer");
	if (isnan(d))
		return rt_raise(rt, PYEXC_ValueError,
		    "cannot convert float NaN to integer");
	if (d > -9.2e18 && d < 9.2e18) {
		*out = value_int((int64_t)d);
		return true;
	}
	mpz_t z;
	mpz_init_set_d(z, d);
	*out = mk_int(rt, z);
	mpz_clear(z);
	return true;
}

bool num_round_exact_only;

/*
 * double_round from floatobject.c: x correctly rounded (half to even on
 * the exact binary value) to ndigits decimal places, then read back.  For
 * ndigits >= 0 printf's %.*f does the rounding; for negative ndigits we
 * divide the exact value by 10**-ndigits with GMP.
 */
static bool
double_round(struct rt *rt, double x, int ndigits, value *out)
{
	char stackbuf[400];
	double rounded;
	/*
	 * The fast path (the essay's round(..., 2) takes it): y = x * 10**n
	 * is within half an ulp of the exact product; when y's fraction is
	 * further than one ulp from one half, the exact product rounds to the
	 * same integer r, and r / 10**n (two exact doubles) is the double
	 * nearest the decimal -- what reading printf's digits back gives.
	 * Anything closer to a tie takes the exact path below.  (Without
	 * it the essay expression took 1.7x the instructions in make bench;
	 * tests/test_num.c checks it against the exact path, through
	 * num_round_exact_only.)
	 */
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
	    1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
	    1e19, 1e20, 1e21, 1e22 };
	if (!num_round_exact_only && ndigits >= 0 && ndigits <= 22 &&
	    isfinite(x)) {
		double y = x * p10[ndigits];
		if (fabs(y) < 4503599627370496.0) {	/* 2**52 */
			double fl = floor(y), frac = y - fl;
			double ay = fabs(y), up, ulp;
			uint64_t bits;
			/* nextafter(|y|, inf) - |y|: for a finite |y| the
			 * next double up is the next bit pattern */
			memcpy(&bits, &ay, sizeof bits);
			bits++;
			memcpy(&up, &bits, sizeof up);
			ulp = up - ay;
			if (fabs(frac - 0.5) > ulp) {
				double r = frac < 0.5 ? fl : fl + 1;
				*out = value_float(copysign(fabs(r) /
				    p10[ndigits], x));
				return true;
			}
		}
	}
	if (ndigits >= 0) {
		snprintf(stackbuf, sizeof stackbuf, "%.*f", ndigits, x);
		rounded = strtod(stackbuf, NULL);
	} else {
		int e;
		double m = frexp(fabs(x), &e);
		mpz_t num, den, q, r;
		mpz_inits(num, den, q, r, NULL);
		mpz_set_d(num, ldexp(m, 53));	/* |x| = num * 2**(e-53) */
		e -= 53;
		mpz_ui_pow_ui(den, 10, (unsigned long)-ndigits);
		if (e >= 0)
			mpz_mul_2exp(num, num, (mp_bitcnt_t)e);
		else
			mpz_mul_2exp(den, den, (mp_bitcnt_t)-e);
		mpz_fdiv_qr(q, r, num, den);
		mpz_mul_2exp(r, r, 1);
		int c = mpz_cmp(r, den);
		if (c > 0 || (c == 0 && mpz_odd_p(q)))
			mpz_add_ui(q, q, 1);
		char *digits = mpz_get_str(NULL, 10, q);
		snprintf(stackbuf, sizeof stackbuf, "%s%se%d",
		    signbit(x) ? "-" : "", digits, -ndigits);
		free(digits);
		mpz_clears(num, den, q, r, NULL);
		errno = 0;
		rounded = strtod(stackbuf, NULL);
		errno = 0;
		if (isinf(rounded))
			return rt_raise(rt, PYEXC_OverflowError,
			    "rounded value too large to represent");
	}
	*out = value_float(rounded);
	return true;
}

/* round(int, ndigits) for negative ndigits: half to even at 10**-n. */
static bool
int_round(struct rt *rt, value x, int64_t ndigits, value *out)
{
	uint64_t k = ndigits == INT64_MIN ? (uint64_t)INT64_MAX + 1 :
	    (uint64_t)-ndigits;
	/* |x| < 10**k / 2 when it has fewer than k digits: the answer is 0 */
	size_t digits = is_small(x) ? 20 : mpz_sizeinbase(x.as.big->z, 10);
	if (k > digits + 1) {
		*out = value_int(0);
		return true;
	}
	mpz_t z, p, q, r;
	num_get_mpz(x, z);
	mpz_inits(p, q, r, NULL);
	mpz_ui_pow_ui(p, 10, (unsigned long)k);
	/* divmod_near: quotient rounded half to even */
	mpz_fdiv_qr(q, r, z, p);
	mpz_mul_2exp(r, r, 1);
	int c = mpz_cmp(r, p);
	if (c > 0 || (c == 0 && mpz_odd_p(q)))
		mpz_add_ui(q, q, 1);
	mpz_mul(z, q, p);
	*out = mk_int(rt, z);
	mpz_clears(z, p, q, r, NULL);
	return true;
}

bool
num_round(struct rt *rt, value x, value nd, value *out)
{
	int64_t n;
	if (!NUM_IS_INTLIKE(x) && x.type != VT_FLOAT)
		return rt_raise(rt, PYEXC_TypeError,
		    "type %s doesn't define __round__ method",
		    value_type_name(x));
	if (nd.type == VT_NONE) {
		if (x.type != VT_FLOAT) {
			*out = x.type == VT_BOOL ? value_int(x.as.b) : x;
			return true;
		}
		double r = round(x.as.f);
		if (fabs(x.as.f - r) == 0.5)
			r = 2.0 * round(x.as.f / 2.0);
		return int_from_double(rt, r, out);
	}
	if (!NUM_IS_INTLIKE(nd))
		return rt_raise(rt, PYEXC_TypeError,
		    "'%s' object cannot be interpreted as an integer",
		    value_type_name(nd));
	num_to_int64_clamped(nd, &n);
	if (x.type != VT_FLOAT) {
		if (n >= 0) {
			*out = x.type == VT_BOOL ? value_int(x.as.b) : x;
			return true;
		}
		return int_round(rt, x, n, out);
	}
	/* float___round___impl: NDIGITS_MAX 323, NDIGITS_MIN -308 */
	if (n > 323 || !isfinite(x.as.f)) {
		*out = x;
		return true;
	}
	if (n < -308) {
		*out = value_float(0.0 * x.as.f);
		return true;
	}
	return double_round(rt, x.as.f, (int)n, out);
}

bool
num_abs(struct rt *rt, value x, value *out)
{
	switch (x.type) {
	case VT_FLOAT:
		*out = value_float(fabs(x.as.f));
		return true;
	case VT_COMPLEX: {
		double re = x.as.c->re, im = x.as.c->im, r;
		/* complex_abs: hypot, OverflowError when only it overflows */
		r = hypot(re, im);
		if (isinf(r) && isfinite(re) && isfinite(im))
			return rt_raise(rt, PYEXC_OverflowError,
			    "absolute value too large");
		*out = value_float(r);
		return true;
	}
	case VT_BOOL:
	case VT_INT:
	case VT_BIGINT:
		if (int_sign(x) < 0)
			return num_unaryop(rt, UNARYOP_USUB, x, out);
		*out = x.type == VT_BOOL ? value_int(x.as.b) : x;
		return true;
	default:
		return rt_raise(rt, PYEXC_TypeError,
		    "bad operand type for abs(): '%s'", value_type_name(x));
	}
}

bool
num_divmod(struct rt *rt, value a, value b, value *out)
{
	value q, m, t;
	if (a.type == VT_COMPLEX || b.type == VT_COMPLEX)
		return rt_raise(rt, PYEXC_TypeError,
		    "unsupported operand type(s) for divmod(): '%s' and '%s'",
		    value_type_name(a),
		    value_type_name(b));
	if (a.type == VT_FLOAT || b.type == VT_FLOAT) {
		double x, y, fq, fm;
		if (!num_to_double(rt, a, &x) || !num_to_double(rt, b, &y))
			return false;
		if (y == 0.0)
			return rt_raise(rt, PYEXC_ZeroDivisionError,
			    "float divmod()");
		float_div_mod(x, y, &fq, &fm);
		q = value_float(fq);
		m = value_float(fm);
	} else if (!int_divmod(rt, a, b, &q, &m,
	    "integer division or modulo by zero"))
		return false;
	t = value_tuple(rt->arena, 2);
	t.as.tuple->items[0] = q;
	t.as.tuple->items[1] = m;
	*out = t;
	return true;
}
