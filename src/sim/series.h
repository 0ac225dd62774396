/*
 * series.h - levels over time in bounded memory: a replay's GPUs held by
 * each project, recorded as GPU-seconds per time step, for a plot.
 *
 * Owns: the steps (buckets of `step` seconds from the first time
 * recorded), each holding every series' GPU-seconds in it, so a step's
 * mean level is exact however often the level changed inside it.  At
 * most `points` steps: when the time recorded outgrows them, two steps
 * become one and the step doubles.  Memory: points x series doubles,
 * fixed at the start; time: each add walks the steps it spans (O(steps
 * spanned), O(points x series) at each doubling, at most
 * log2(span / points) of them).  No Slurm header here.
 */
#ifndef GPUQUOTA_SIM_SERIES_H
#define GPUQUOTA_SIM_SERIES_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
	int cap;		/* steps of room (even); 0: nothing recorded */
	int nseries;
	bool started;
	int64_t t0;		/* the first step's start */
	int64_t step;		/* seconds a step spans (1, doubling) */
	int64_t end;		/* recorded up to */
	double *secs;		/* [k * nseries + s]: series s's level-seconds
				 * in step k */
} gq_sim_series_t;

/* Room for `points` steps (rounded up to even; 0: none, every call a
 * no-op) of `nseries` series.  0, or -1 out of memory. */
int gq_sim_series_init(gq_sim_series_t *s, int points, int nseries);

/* The time recorded reaches `to` (steps merged as needed); the first
 * call sets t0 to `from`.  Call once per span, before its adds. */
void gq_sim_series_reach(gq_sim_series_t *s, int64_t from, int64_t to);

/* Series k stood at `level` from `from` to `to` (within what reach
 * made room for). */
void gq_sim_series_add(gq_sim_series_t *s, int k, double level,
		       int64_t from, int64_t to);

/* Steps recorded, and step i's start and its mean level of series k
 * (its GPU-seconds over its length, the last step's cut at `end`). */
int gq_sim_series_len(const gq_sim_series_t *s);
int64_t gq_sim_series_at(const gq_sim_series_t *s, int i);
double gq_sim_series_mean(const gq_sim_series_t *s, int i, int k);

void gq_sim_series_free(gq_sim_series_t *s);

#endif
