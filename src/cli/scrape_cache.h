/*
 * scrape_cache.h - the scrape `gpuquota metrics --listen` serves: one load
 * of Slurm kept and served again, so that slurmctld and slurmdbd are read
 * at most once an interval whatever the request rate.
 *
 * Owns when a load runs and what a request gets (docs/MODEL.md "Metrics",
 * "The exporter's cache"): the cached text while it is younger than the
 * interval; at most one load at a time, and the next one no sooner than
 * an interval after the last ended, failed or not; while a load runs, the
 * previous text (or a wait when there is none); after a failed load, the
 * last good text while it is at most GQ_SCRAPE_STALE_MAX seconds past the
 * interval, else 503.  Every answer ends with the gpuquota_scrape_*
 * metrics.  Plain C and pthreads: the loader and the clock are function
 * pointers, so tests count loads and move time.
 */
#ifndef GPUQUOTA_CLI_SCRAPE_CACHE_H
#define GPUQUOTA_CLI_SCRAPE_CACHE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/prom.h"

/* How long past the interval the last good text is served while loads
 * fail (seconds). */
#define GQ_SCRAPE_STALE_MAX 300.0

/* Fill out with the exposition; 0, or -1 with the reason in err. */
typedef int (*gq_render_t)(void *ctx, gq_prom_t *out, char *err,
			   size_t errlen);

/* Seconds on a clock that never steps back (tests: any). */
typedef double (*gq_clock_t)(void *ctx);

typedef struct {
	gq_render_t load;
	void *load_ctx;
	gq_clock_t clock;	/* CLOCK_MONOTONIC unless a test sets one */
	void *clock_ctx;
	double interval;	/* seconds, > 0 */
	/* the rest under mu */
	pthread_mutex_t mu;
	pthread_cond_t done;	/* a load ended */
	bool loading;		/* a load runs (the only one) */
	bool tried, last_ok;	/* a load ended; the last one succeeded */
	double ended_at;	/* when the last load ended */
	char *text;		/* the last good exposition, or NULL */
	size_t len;
	double read_at;		/* when the load that made text began */
	char err[512];		/* the last failed load's reason */
	uint64_t loads, failures;
} gq_scrape_cache_t;

/* A request's answer: status 200 or 503 and body (malloc'd, or NULL out
 * of memory); gq_scrape_answer_free frees it. */
typedef struct {
	unsigned status;
	char *body;
	size_t len;
} gq_scrape_answer_t;

/* A cache that has loaded nothing yet.  0, or -1 (pthread failure). */
int gq_scrape_cache_init(gq_scrape_cache_t *c, double interval,
			 gq_render_t load, void *load_ctx);
void gq_scrape_cache_free(gq_scrape_cache_t *c);

/* One GET /metrics (thread-safe; may run the load, or wait for one). */
void gq_scrape_get(gq_scrape_cache_t *c, gq_scrape_answer_t *a);
void gq_scrape_answer_free(gq_scrape_answer_t *a);

/* The default clock: CLOCK_MONOTONIC in seconds. */
double gq_scrape_monotonic(void *ctx);

#endif
