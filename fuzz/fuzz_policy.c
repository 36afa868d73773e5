/*
 * fuzz_policy.c -- libFuzzer target: the policy-file reader.
 *
 * The input is the text of a policy file; policy_parse() either returns a
 * heap policy (its allow-questions are asked once, then it is freed) or an
 * error message.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "sandbox/policy.h"
#include "session/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy *p;
	char *err = NULL;

	p = policy_parse("fuzz.policy", (const char *)data, size,
	    &session_policy_names, &err);
	if (p != NULL) {
		(void)policy_allows_call(p, "open");
		(void)policy_allows_command(p, "read_file");
		(void)policy_allows_host(p, "example.com");
		policy_free(p);
	}
	free(err);
	return 0;
}
