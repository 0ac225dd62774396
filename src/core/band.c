/*
 * band.c - priority bands and their encoding as Slurm priorities.
 */
#include <math.h>

#include "core/band.h"
#include "core/fairshare.h"

gq_band_t gq_band_of(double in_quota, double in_fair, double quota,
		     double share, bool in_ancestors)
{
	if (in_quota <= quota + GQ_EPS && in_ancestors)
		return GQ_BAND_IN_QUOTA;
	if (in_fair <= share + GQ_EPS)
		return GQ_BAND_FAIR_SHARE;
	return GQ_BAND_OVER;
}

double gq_band_key(gq_band_t band, double cum, double quota, double weight)
{
	double key;

	if (band == GQ_BAND_IN_QUOTA)
		return quota > 0 ? cum / quota : 0;
	if (weight <= 0)
		return INFINITY;
	key = (cum - quota) / weight;
	return key > 0 ? key : 0;
}

uint32_t gq_band_base(gq_band_t band)
{
	/* over = 1, fair-share = 1 + SPAN, in-quota = 1 + 2 SPAN */
	if (band > GQ_BAND_OVER)
		return 1;
	return 1 + (uint32_t)(2 - band) * GQ_BAND_SPAN;
}

uint32_t gq_band_priority(gq_band_t band, double key)
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

uint32_t gq_band_priority_roomless(void)
{
	return gq_band_base(GQ_BAND_IN_QUOTA);
}

gq_band_t gq_band_from_priority(uint32_t prio)
{
	if (prio > 1 + 2 * GQ_BAND_SPAN - 1)
		return GQ_BAND_IN_QUOTA;
	if (prio > GQ_BAND_SPAN)
		return GQ_BAND_FAIR_SHARE;
	return GQ_BAND_OVER;
}

bool gq_band_rose_to_reclaim(uint32_t old_priority, gq_band_t band)
{
	return (band == GQ_BAND_IN_QUOTA || band == GQ_BAND_FAIR_SHARE) &&
	       band < gq_band_from_priority(old_priority);
}

const char *gq_band_name(gq_band_t band)
{
	switch (band) {
	case GQ_BAND_IN_QUOTA:
		return "in-quota";
	case GQ_BAND_FAIR_SHARE:
		return "fair-share";
	case GQ_BAND_OVER:
		return "over-fair-share";
	default:
		return "none";
	}
}
