/*
 * clock.h -- the monotonic clock in milliseconds, for deadlines, timeouts
 * and elapsed times (never the time of day): the one reading of it that
 * the jail, the worlds, the fake internet and --agent share.
 */
#ifndef SANDBOXREPL_CLOCK_H
#define SANDBOXREPL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Milliseconds, with their fraction: elapsed times. */
static inline double
clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Whole milliseconds: deadlines counted in integers. */
static inline int64_t
clock_ms_whole(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif
