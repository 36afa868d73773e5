/*
 * pyexc.c -- Python's built-in exception classes: their names and the
 * hierarchy pyexc_is() walks (pyexc.h).
 */
#include "config.h"

#include "pyexc.h"

static const char *const names[] = {
#define PYEXC_NAME(name, base, printed) printed,
	PYEXC_CLASSES(PYEXC_NAME)
#undef PYEXC_NAME
};

static const enum pyexc_class bases[] = {
#define PYEXC_BASE(name, base, printed) PYEXC_##base,
	PYEXC_CLASSES(PYEXC_BASE)
#undef PYEXC_BASE
};

const char *
pyexc_name(enum pyexc_class cls)
{
	return (unsigned)cls < PYEXC_COUNT ? names[cls] : "Exception";
}

bool
pyexc_is(enum pyexc_class cls, enum pyexc_class ancestor)
{
	if ((unsigned)cls >= PYEXC_COUNT)
		return false;
	for (;;) {
		if (cls == ancestor)
			return true;
		if (bases[cls] == cls)	/* BaseException */
			return false;
		cls = bases[cls];
	}
}
