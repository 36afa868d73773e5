/*
 * fuzz_jailwire.c -- libFuzzer target: the jail's reply decoder,
 * jail_wire_parse() (src/jail.c, exported through src/jail_int.h).
 *
 * The input is the byte stream the jail's warden writes back over its
 * pipe: frames of a type byte, a host-order u32 length and a payload.
 * The plan's caps are small so that the limit checks are reached.  The
 * jail is never started.  (jailpath.c's JSON-lines decoder is static and
 * mostly jansson; it is exercised by the jail tests, not fuzzed here.)
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "jail/jail_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jail_plan plan;
	struct jail_outcome out;

	memset(&plan, 0, sizeof plan);
	plan.max_result = 64;
	plan.max_files = 4;
	plan.max_read_bytes = 256;
	plan.cpu_seconds = 1;
	plan.wall_ms = 100;
	memset(&out, 0, sizeof out);
	out.exit_code = -1;
	out.seccomp_syscall = -1;
	(void)jail_wire_parse(&plan, (const char *)data, size, &out);
	jail_outcome_free(&out);
	return 0;
}
