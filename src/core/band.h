/*
 * band.h - priority bands of pending jobs (docs/MODEL.md "Bands and
 * priority").
 *
 * Owns: which band a pending job is in given its project's cumulative GPUs
 * A_k, the in-band key that interleaves projects, and the mapping of
 * (band, key) onto Slurm's 32-bit job priority (higher runs first).
 * What the walk asks of every pending job (band, key, priority) is
 * inline here: a pass asks it 200 000 times.
 */
#ifndef GPUQUOTA_BAND_H
#define GPUQUOTA_BAND_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/fairshare.h"	/* GQ_EPS */

typedef enum {
	GQ_BAND_IN_QUOTA = 0,	/* A_k <= q_p */
	GQ_BAND_FAIR_SHARE = 1,	/* A_k <= f_p */
	GQ_BAND_OVER = 2,	/* over its fair share */
	GQ_BAND_NONE = 3,	/* not a pending job */
} gq_band_t;

/*
 * Width of each band in priority units; bands never overlap.  The three
 * fit below 2^31 so that a band also fits in Slurm's site factor
 * (NICE_OFFSET + value, 32 bits), which carries it when multifactor
 * computes the rest (gq_band_compose).
 */
#define GQ_BAND_SPAN 700000000u

/*
 * A job's band: in quota when `in_quota` (a_p, the jobs before it banded
 * in quota, and itself) fits the quota and in_ancestors (its department
 * stays within its quota); fair share when `in_fair` (the same over the
 * jobs banded in quota or fair share) fits the fair share; else over.
 */
static inline gq_band_t gq_band_of(double in_quota, double in_fair,
				   double quota, double share,
				   bool in_ancestors)
{
	if (in_quota <= quota + GQ_EPS && in_ancestors)
		return GQ_BAND_IN_QUOTA;
	if (in_fair <= share + GQ_EPS)
		return GQ_BAND_FAIR_SHARE;
	return GQ_BAND_OVER;
}

/*
 * Key inside a band; smaller goes first: A_k / q_p in quota,
 * (A_k - q_p) / w_p above it (weight 0: +infinity, last).
 */
static inline double gq_band_key(gq_band_t band, double cum, double quota,
				 double weight)
{
	double key;

	if (band == GQ_BAND_IN_QUOTA)
		return quota > 0 ? cum / quota : 0;
	if (weight <= 0)
		return INFINITY;
	key = (cum - quota) / weight;
	return key > 0 ? key : 0;
}

/*
 * The priority of an in-quota job that can neither start nor reclaim
 * now: no node can give it room, by idle GPUs or reclaim (room.c), or it
 * waits for loans that end soon (patience.c).  Below every other in-quota
 * job, so that Slurm's main cycle, which stops trying a partition at the
 * first job it cannot start, tries the in-quota jobs that can start or
 * reclaim first.
 */
uint32_t gq_band_priority_roomless(void);

/* Lowest priority of a band (what sprio shows as the band's part). */
static inline uint32_t gq_band_base(gq_band_t band)
{
	/* over = 1, fair-share = 1 + SPAN, in-quota = 1 + 2 SPAN */
	if (band > GQ_BAND_OVER)
		return 1;
	return 1 + (uint32_t)(2 - band) * GQ_BAND_SPAN;
}

/*
 * Slurm priority for (band, key): in-quota > fair-share > over; never 0.
 * The in-quota band keeps its lowest value (its base) for jobs that can
 * get no room (gq_band_priority_roomless): keyed jobs take the rest.
 */
static inline uint32_t gq_band_priority(gq_band_t band, double key)
{
	uint32_t base = gq_band_base(band);
	double unit;

	if (band == GQ_BAND_NONE)
		return 1;
	/*
	 * Map key in [0, inf] monotonically onto [0, 1]: in quota the key is
	 * already in [0, 1]; above quota key / (1 + key) keeps the order.
	 */
	if (isnan(key) || key < 0)
		key = 0;
	if (band == GQ_BAND_IN_QUOTA) {
		/* base + 1 .. base + SPAN - 1: the base is the roomless' */
		unit = key > 1 ? 1 : key;
		return base + 1 +
		       (uint32_t)llround((1 - unit) * (GQ_BAND_SPAN - 2));
	}
	unit = isinf(key) ? 1 : key / (1 + key);
	return base + (uint32_t)llround((1 - unit) * (GQ_BAND_SPAN - 1));
}

/*
 * Multifactor's room: the smallest power of two above `max_part`, the
 * largest priority Slurm's priority/multifactor can give a job (the sum of
 * its PriorityWeight*), at least 2 and at most GQ_BAND_ROOM_MAX; 1 when
 * `max_part` is 0 or less (no multifactor, or no weights: priorities are
 * the bands').
 */
#define GQ_BAND_ROOM_MAX (1u << 22)
uint32_t gq_band_room(double max_part);

/*
 * A job's priority with multifactor's part `part` inside its band's place
 * (docs/MODEL.md "Priority with multifactor"): the band's range is cut into
 * slots of `room`, a margin of one slot at each end; the place
 * gq_band_priority gave (`band_prio`) picks the slot, keeping its order (the
 * base, for jobs that can neither start nor reclaim, keeps the lowest
 * slot), and the part, scaled by room / (max_part + 1) when it does not
 * fit and clamped to [0, room - 1], is added.  `room` 1: band_prio as it is.  O(1).
 */
uint32_t gq_band_compose(uint32_t band_prio, double part, double max_part,
			 uint32_t room);

/*
 * The site factor that makes multifactor's own sum (site factor -
 * NICE_OFFSET + part, what it computes at submit and every
 * PriorityCalcPeriod) equal `prio` while its part is `part`: NICE_OFFSET +
 * prio - part, clamped to 32 bits (never wraps).
 */
uint32_t gq_band_site_factor(uint32_t prio, double part);
#define GQ_NICE_OFFSET 0x80000000u	/* Slurm's NICE_OFFSET */

/* Band a priority value came from (inverse of gq_band_priority's bands). */
gq_band_t gq_band_from_priority(uint32_t prio);

/*
 * Has a pending job risen into a band that may reclaim (in quota, fair
 * share) since Slurm last had `old_priority` for it (1: not classified
 * yet, after a restart or reload)?  Slurm then should try it at once:
 * its own next cycle may be sched_interval (60 s by default) away.
 */
bool gq_band_rose_to_reclaim(uint32_t old_priority, gq_band_t band);

const char *gq_band_name(gq_band_t band);

#endif
