/*
 * format.h -- Python's format() mini-language: format(value, spec).
 *
 * The engine behind f-strings ({x:>10.2f}), str.format and format().
 * It covers int (bool), float and str exactly as CPython 3.11 does, and
 * falls back to str(value) for the empty spec of any other type.
 */
#ifndef SANDBOXREPL_FORMAT_H
#define SANDBOXREPL_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include "value.h"

struct sbuf;

/* Append format(v, spec) to out; false with ValueError/TypeError. */
bool format_value(struct rt *rt, value v, const char *spec, size_t speclen,
    struct sbuf *out);

#endif
