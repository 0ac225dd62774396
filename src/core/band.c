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

uint32_t gq_band_room(double max_part)
{
	uint32_t room = 2;

	if (max_part <= 0 || isnan(max_part))
		return 1;	/* no part to make room for */
	while (room < GQ_BAND_ROOM_MAX && (double)room <= max_part)
		room <<= 1;
	return room;
}

uint32_t gq_band_compose(uint32_t band_prio, double part, double max_part,
			 uint32_t room)
{
	gq_band_t band = gq_band_from_priority(band_prio);
	uint32_t base = gq_band_base(band), off, slots, slot;
	double scaled = part;

	if (room <= 1 || band_prio == 0)
		return band_prio;
	off = band_prio - base;			/* 0 .. SPAN - 1 */
	slots = GQ_BAND_SPAN / room - 2;	/* a slot's margin each end */
	/* the base (no room, or waiting for loans) alone in slot 0; places
	 * 1.. share the rest */
	slot = off ? 1 + (uint32_t)((uint64_t)(off - 1) * (slots - 1) /
				    (GQ_BAND_SPAN - 1)) : 0;
	if (max_part >= room)
		scaled = part * (double)room / (max_part + 1);
	if (isnan(scaled) || scaled < 0)
		scaled = 0;
	if (scaled > room - 1)
		scaled = room - 1;
	return base + room * (1 + slot) + (uint32_t)scaled;
}

uint32_t gq_band_site_factor(uint32_t prio, double part)
{
	double site = (double)GQ_NICE_OFFSET + prio - part;

	if (isnan(site) || site < 0)
		return 0;
	if (site > UINT32_MAX)
		return UINT32_MAX;
	return (uint32_t)site;
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
