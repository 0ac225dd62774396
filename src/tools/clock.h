/*
 * clock.h - a wait or an age read from the wall clock, which an admin or
 * NTP may step forward or back (docs/MODEL.md "When the clock steps").
 * Plain C, no gpuquota concept.
 */
#ifndef GPUQUOTA_CLOCK_H
#define GPUQUOTA_CLOCK_H

#include <stdint.h>

/*
 * Seconds from *since to now.  A *since after now (the clock stepped back
 * since it was read) becomes now, and 0 is returned: the wait starts
 * again from the step instead of lasting until the clock catches up, and
 * a duration is never negative.  O(1).
 */
static inline int64_t gq_clock_since(int64_t *since, int64_t now)
{
	if (*since > now)
		*since = now;
	return now - *since;
}

#endif
