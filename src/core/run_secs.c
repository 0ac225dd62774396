/*
 * run_secs.c - run seconds given back at a job's end (see run_secs.h).
 */
#include "core/run_secs.h"

void gq_run_secs_reserved(const uint64_t *tres_alloc, int n,
			  uint32_t time_limit, double usage_factor, int skip,
			  uint64_t no_consume, uint64_t *out)
{
	uint64_t secs = (uint64_t)time_limit * 60;
	int i;

	if (usage_factor >= 0)	/* as acct_policy.c scales the reservation */
		secs = (uint64_t)((double)secs * usage_factor);
	for (i = 0; i < n; i++) {
		out[i] = 0;
		if (i == skip || tres_alloc[i] == no_consume)
			continue;
		out[i] = tres_alloc[i] * secs;	/* wraps as Slurm's does */
	}
}

int gq_run_secs_give_back(uint64_t *used, const uint64_t *give, int n)
{
	int i, under = 0;

	for (i = 0; i < n; i++) {
		if (give[i] > used[i]) {
			used[i] = 0;
			under++;
		} else {
			used[i] -= give[i];
		}
	}
	return under;
}
