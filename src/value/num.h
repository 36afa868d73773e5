/*
 * num.h -- numbers: bool-as-int, int (int64 fast path, GMP beyond), float
 * and complex, with CPython 3.11's results and exceptions.
 *
 * operator.c dispatches here when both operands of an operator are
 * numbers, compare.c to hash and compare a number; builtins.c uses the
 * conversions and round/abs.  Everything allocates in rt->arena and fails
 * by returning false with rt->exc set.
 */
#ifndef SANDBOXREPL_NUM_H
#define SANDBOXREPL_NUM_H

#include <stdbool.h>
#include <stdint.h>

#include "value.h"

struct sbuf;

/* bool, int or bigint */
#define NUM_IS_INTLIKE(v) \
	((v).type == VT_BOOL || (v).type == VT_INT || (v).type == VT_BIGINT)
/* any of int-like, float, complex */
#define NUM_IS_NUMBER(v) (NUM_IS_INTLIKE(v) || (v).type == VT_FLOAT || \
	(v).type == VT_COMPLEX)

/* a OP b for two numbers (TypeError for ops numbers lack, e.g. 1.5 << 1). */
bool num_binop(struct rt *rt, enum binop op, value a, value b, value *out);
/* -a, +a, ~a for a number (not is operator.c's). */
bool num_unaryop(struct rt *rt, enum unaryop op, value a, value *out);
/* EQ..GTE between two numbers; *res is the C truth. */
bool num_compare(struct rt *rt, enum cmpop op, value a, value b, bool *res);
/* CPython's numeric hash (as the bits of a Py_hash_t). */
uint64_t num_hash(value v);
/* float(v) for an int-like or float: OverflowError for huge ints. */
bool num_to_double(struct rt *rt, value v, double *out);
/* The int value of an int-like as an mpz (caller mpz_clear()s). */
void num_get_mpz(value v, mpz_t out);
/* Clamp an int-like to int64 (Py_ssize_t style); true when it fitted. */
bool num_to_int64_clamped(value v, int64_t *out);
/* repr of an int-like, with CPython's 4300-digit limit. */
bool num_int_repr(struct rt *rt, value v, struct sbuf *out);
/*
 * Python's repr of a double ('r' mode) into buf (>= 32 bytes):
 * add_dot0 appends ".0" to integral values (float repr does, complex parts
 * do not), plus_sign writes '+' for non-negative values.
 */
void num_format_double(double f, bool add_dot0, bool plus_sign, char *buf);
/* round(x) and round(x, ndigits) (ndigits None when absent). */
bool num_round(struct rt *rt, value x, value ndigits, value *out);
/* Test hook: when set, round(float, ndigits) takes the exact path only,
 * never its fast path (tests/test_num.c compares the two). */
extern bool num_round_exact_only;
/* abs(x) */
bool num_abs(struct rt *rt, value x, value *out);
/* divmod(a, b) as a 2-tuple, for two numbers. */
bool num_divmod(struct rt *rt, value a, value b, value *out);

#endif
