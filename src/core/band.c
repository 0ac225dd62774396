/*
 * band.c - priority bands and their encoding as Slurm priorities (the
 * walk's per-job encoding is inline in band.h).
 */
#include "core/band.h"

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
