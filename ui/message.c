/*
 * message.c -- the message line under the columns: what a command, a
 * step of a play or the input line has to say.  A leaf the UI's parts
 * write to, so that play.c and input.c do not call meta.c for it.
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>

#include "uipriv.h"
#include "base/xalloc.h"

void
message_set(struct ui *u, const char *fmt, ...)
{
	va_list ap;
	free(u->message);
	va_start(ap, fmt);
	u->message = xvasprintf(fmt, ap);
	va_end(ap);
}
