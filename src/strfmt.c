#include "config.h"
#include "strfmt.h"
bool
strfmt_percent(struct rt *rt, value fmt, value args, value *out)
{
	return rt_raise(rt, "TypeError", "not all arguments converted during string formatting");
}
