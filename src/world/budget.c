/*
 * budget.c -- the CPython worlds' memory budget, as --memory sets it
 * (world.h, world_int.h): the session sets it, the kinds (cpython.c) and
 * --doctor read it.  A file of its own, so that the kinds that read it
 * and world.c that makes them need not know each other.
 */
#include "config.h"

#include <stdint.h>

#include "world.h"
#include "world_int.h"

static uint64_t budget;	/* 0: the default */

void
world_set_memory(uint64_t input)
{
	budget = input > WORLD_MEM_MIN / 3 ? 3 * input : WORLD_MEM_MIN;
}

uint64_t
world_memory(void)
{
	return budget ? budget : WORLD_MEM_BYTES;
}

uint64_t
world_process_memory(uint64_t mem)
{
	return world_as_over(mem);
}
