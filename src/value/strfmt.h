/*
 * strfmt.h -- printf-style formatting: str % args and bytes % args, with
 * CPython 3.11's conversions, flags and errors.
 */
#ifndef SANDBOXREPL_STRFMT_H
#define SANDBOXREPL_STRFMT_H

#include <stdbool.h>

#include "value.h"

/* fmt % args for fmt a str or bytes value. */
bool strfmt_percent(struct rt *rt, value fmt, value args, value *out);

#endif
