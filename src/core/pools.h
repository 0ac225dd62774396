/*
 * pools.h - one view per pool of GPUs.
 *
 * Owns: a configuration split into its pools (gq_config_pool: each pool is
 * a configuration of its own, so every rule of the core applies inside
 * each pool unchanged), one view per pool, and which pool a job is in.
 * A configuration without "pools" is one pool.  Nothing crosses pools: a
 * job is in one pool's view, and only jobs of one view reclaim from each
 * other.
 */
#ifndef GPUQUOTA_POOLS_H
#define GPUQUOTA_POOLS_H

#include <stdint.h>

#include "config/config.h"
#include "core/coming_free.h"
#include "core/view.h"

typedef struct {
	int n;			/* pools, >= 1 */
	gq_config_t **config;	/* pool k as a configuration of its own */
	char **name;		/* pool k's name; NULL without pools */
	gq_view_t **view;	/* pool k's view */
	bool wants_victims;	/* a job of a view needs victims, as the
				 * pass computed them (victim_search.h) */
	bool soon;		/* an event brings the next pass sooner:
				 * a job is kept back or blocked
				 * (pass_soon.h) */
} gq_pools_t;

/*
 * The pools of a configuration, each with a new view.  NULL when out of
 * memory.  O(pools x (projects + accounts)).
 */
gq_pools_t *gq_pools_new(const gq_config_t *cfg);
void gq_pools_free(gq_pools_t *p);

/* Is `of` true of some pool's view (false for NULL)?  O(pools) calls. */
bool gq_pools_any(const gq_pools_t *p, bool (*of)(const gq_view_t *v));

/* The pool whose view holds job `id`, or -1.  O(pools). */
int gq_pools_find(const gq_pools_t *p, uint32_t id);

/*
 * Pool k of `of` in `p`, found by name (pools made of two configurations:
 * a reload may add, drop or reorder pools, so an index of one means
 * nothing in the other); without pools, the one pool.  -1 when p is NULL
 * or has no such pool.  O(pools).
 */
int gq_pools_same(const gq_pools_t *p, const gq_pools_t *of, int k);

/*
 * The job `id` in the pool it is demand in or runs in (NULL: none).
 * O(pools).
 */
const gq_job_t *gq_pools_job(const gq_pools_t *p, uint32_t id, int *pool);

/*
 * A pending job listing partitions of several pools is demand in one (its
 * home, gq_pool_of_job) and may start in any: in each other pool it is
 * added as a job waiting for its begin time (`in` turned so here), which
 * the core holds when it would pass a limit there and never counts as
 * demand, in A or as a preemptor.  So no limit is escaped by listing
 * partitions.
 */
void gq_pools_shadow(gq_job_in_t *in);

/*
 * The first pool other than its home that holds job `id` (its hold, for
 * the job's reason), or NULL.  O(pools).
 */
const gq_job_t *gq_pools_held_elsewhere(const gq_pools_t *p, uint32_t id,
					int *pool);

/*
 * The record whose answer job `id` gets (its hold, band and reason): its
 * home's (gq_pools_job), unless the home does not hold it and another
 * pool it lists does (gq_pools_held_elsewhere): then that pool's.  *pool
 * is the record's pool.  NULL when no pool has it as demand or running.
 * Every writer of a job's answer (the pass's writes, the re-hold, the
 * job's priority at submit) takes it from here.  O(pools).
 */
const gq_job_t *gq_pools_answer(const gq_pools_t *p, uint32_t id, int *pool);

/*
 * How many tasks of pending array `id` may start before the next pass:
 * the fewest over every pool it lists (its home's tasks_now and each
 * shadow's), since Slurm may start each task in any of them; 0 when a
 * pool holds it or no pool has it.  The plugin throttles the array to
 * these (array_throttle.h).  O(pools).
 */
uint32_t gq_pools_tasks_now(const gq_pools_t *p, uint32_t id);

/*
 * The pool whose view has pending job `id` able to reclaim now
 * (gq_view_may_reclaim), or -1.  O(pools).
 */
int gq_pools_reclaiming(const gq_pools_t *p, uint32_t id);

/*
 * May `preemptee` be requeued for `preemptor`?  Only inside one pool: both
 * in the same pool's view, and that view says so.  O(pools).
 */
bool gq_pools_preemptable(const gq_pools_t *p, uint32_t preemptee,
			  uint32_t preemptor);

/*
 * Would pending job `id` run on the idle GPUs of these nodes alone
 * (gq_fits_idle, its shape as its view has it), counting only the nodes
 * it may use (its node group)?  Compacts `n` to those nodes.  False when
 * no view has it pending.  O(pools + count).
 */
bool gq_pools_fits_idle(const gq_pools_t *p, uint32_t id, gq_node_idle_t *n,
			int count);

/*
 * `preemptee` was reclaimed already for job `owner` (0: not known) and is
 * in its grace time (warned, leaving): may `preemptor` count on its GPUs?
 * When the preemptor may reclaim in its pool and the preemptee is of that
 * pool or of none any more (gone from the views since), not of the
 * preemptor's project; and when they are not coming free for another
 * job: the preemptor is its owner, or its owner no longer may reclaim
 * (started, gone, held).  Else two preemptors would count on the same
 * GPUs, and Slurm, taking jobs in their grace time first, would give the
 * second nothing new: it would wait for the first to start, then for a
 * grace time of its own.  It costs no budget: its GPUs count as lost
 * already.  O(pools).
 */
bool gq_pools_may_take_leaving(const gq_pools_t *p, uint32_t preemptee,
			       uint32_t owner, uint32_t preemptor);

/* The job left (gq_view_job_gone in the pool that has it).  O(pools). */
void gq_pools_job_gone(gq_pools_t *p, uint32_t id);

#endif
