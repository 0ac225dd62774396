/*
 * histogram.h - a Prometheus histogram of durations: fixed upper bounds
 * ("le"), a count per bucket, the sum and the count of all observations.
 *
 * Owns the bucketing rule: an observation v goes in the first bucket with
 * v <= le; above the last bound it is counted only in +Inf (the total).
 * Counts are kept per bucket and reported cumulative, as Prometheus'
 * _bucket samples are.  Plain C, no allocation.
 */
#ifndef GPUQUOTA_HISTOGRAM_H
#define GPUQUOTA_HISTOGRAM_H

#include <stdint.h>

#define GQ_HIST_MAX 24		/* finite bounds at most */

typedef struct {
	int n;				/* finite bounds */
	double le[GQ_HIST_MAX];		/* ascending */
	uint64_t in[GQ_HIST_MAX];	/* observations in (le[i-1], le[i]] */
	uint64_t count;			/* all observations (+Inf) */
	double sum;
} gq_hist_t;

/*
 * Empty histogram with these bounds (ascending, finite, at most
 * GQ_HIST_MAX).  Returns 0, or -1 when the bounds are not.
 */
int gq_hist_init(gq_hist_t *h, const double *le, int n);

/* Count one observation. */
void gq_hist_observe(gq_hist_t *h, double v);

/* Observations <= le[i] (i == h->n: all of them, the +Inf bucket). */
uint64_t gq_hist_cumulative(const gq_hist_t *h, int i);

/*
 * The bounds gpuquota's pass histograms use, in seconds: 100 us to 10 s,
 * 1-2.5-5 steps (a pass at 5 000 pending jobs holds the lock for about a
 * millisecond; the 10 ms target sits on a bound).
 */
extern const double gq_hist_pass_bounds[];
extern const int gq_hist_pass_nbounds;

#endif
