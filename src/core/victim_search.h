/*
 * victim_search.h - whether Slurm needs to look for victims at all
 * (docs/MODEL.md "When Slurm looks for victims").
 *
 * Slurm looks for victims for every job it tries to start: it walks all
 * its jobs and asks preempt/gpuquota about each.  Only a job that may
 * reclaim and cannot start on idle GPUs needs victims.  While no job of a
 * view is such a job, gpuquota tells Slurm that preemption is off
 * (PREEMPT_DATA_ENABLED, asked by Slurm 22.05 and 23.11) and answers each
 * question at once (later releases walk anyway).
 */
#ifndef GPUQUOTA_VICTIM_SEARCH_H
#define GPUQUOTA_VICTIM_SEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/job.h"
#include "core/pools.h"
#include "core/view.h"

/*
 * How long a job that may reclaim and fits the idle GPUs waits before
 * victims are searched for it anyway (seconds from its submit time).
 * Something gpuquota does not see keeps it from those GPUs: CPUs, memory
 * or a feature.  A reclaim on another node may still start it.
 */
#define GQ_SEARCH_AFTER 5

/* Which jobs a fit test asks about. */
typedef bool gq_job_pick_t(const gq_job_t *job);

/*
 * Is some job of the view that `pick` takes one the idle GPUs of its open
 * nodes cannot start, or (with `aged`) one that has waited
 * GQ_SEARCH_AFTER seconds or more?  True without placement (no nodes
 * given) or without memory: gpuquota cannot tell.  A job of the same
 * shape as the one before is answered in O(1): O(picked jobs x nodes) at
 * worst, O(picked jobs + nodes) for one shape.
 */
bool gq_view_any_unfit(const gq_view_t *v, gq_job_pick_t *pick, bool aged);

/*
 * The same for job `id`, added to the view after its pass: `*late` idle
 * GPUs are taken already by jobs added before it, and its own GPUs are
 * added to *late when `pick` takes it.  O(nodes).
 */
bool gq_view_job_unfit(const gq_view_t *v, uint32_t id, gq_job_pick_t *pick,
		       bool aged, uint64_t *late);

/*
 * Does job `id`, added to the view after its pass, need victims: it may
 * reclaim, and it cannot start on the idle GPUs of the open nodes it may
 * use, or it has waited GQ_SEARCH_AFTER seconds or more.  *late counts
 * the GPUs of such jobs added since the pass: they take idle GPUs first
 * (their sum over all open nodes, a bound), and this job's are added to
 * it.  True without placement (no nodes given): gpuquota cannot tell.
 * O(nodes).
 */
bool gq_view_job_wants_victims(const gq_view_t *v, uint32_t id,
			       uint64_t *late);

/*
 * Does any job of the view need victims (gq_view_job_wants_victims)?
 * O(jobs that may reclaim x nodes); jobs of the same shape as the one
 * before are answered in O(1), so a queue of one-GPU jobs costs O(jobs +
 * nodes).
 */
bool gq_view_wants_victims(const gq_view_t *v);

/* The same over every pool's view (false for NULL), and for job `id` in
 * the pool that holds it. */
bool gq_pools_wants_victims(const gq_pools_t *p);
bool gq_pools_job_wants_victims(const gq_pools_t *p, uint32_t id,
				uint64_t *late);

#endif
