/*
 * fuzz_scenario.c -- libFuzzer target: the scenario reader.
 *
 * The input is the text of a .scn file; scenario_parse() either fills a
 * scenario (freed again) or returns an error message.  Steps are not run
 * (fuzz_session covers the evaluator, and a scenario may name the jail).
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "app/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scenario sc;
	char *err = NULL;

	if (scenario_parse("fuzz.scn", (const char *)data, size, &sc, &err))
		scenario_free(&sc);
	free(err);
	return 0;
}
