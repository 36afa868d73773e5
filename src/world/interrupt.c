/*
 * interrupt.c -- Ctrl-C, as a flag a signal handler may set: the UI's
 * SIGINT handler calls world_interrupt() while an input runs, and a
 * world reading an input's reply passes it on (cpython.c's
 * interrupt_world).  A file of its own, so that the kinds that read it
 * and world.c that makes them need not know each other.
 */
#include "config.h"

#include <signal.h>

#include "world.h"

static volatile sig_atomic_t interrupt_requested;

void
world_interrupt(void)
{
	interrupt_requested = 1;
}

void
world_interrupt_clear(void)
{
	interrupt_requested = 0;
}

bool
world_interrupt_pending(void)
{
	return interrupt_requested != 0;
}
