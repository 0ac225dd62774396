/*
 * pass_soon.h - whether a submit or a job's end brings the next pass
 * sooner (docs/MODEL.md "When").
 *
 * A pass runs every recompute_interval seconds.  Between passes, Slurm
 * starts jobs by the bands the last pass wrote, and a job submitted
 * meanwhile gets its band at once (priority_p_set).  An earlier pass
 * changes what Slurm may start only when gpuquota keeps a pending job
 * back: a hold, or an array throttled below its pending tasks.  Only then
 * does an event ask for a pass before the next tick.
 */
#ifndef GPUQUOTA_PASS_SOON_H
#define GPUQUOTA_PASS_SOON_H

#include <stdbool.h>

#include "core/job.h"
#include "core/pools.h"
#include "core/view.h"

/*
 * Does the pass keep this job back: held (any gq_hold_t), or an eligible
 * array record that may start fewer tasks than Slurm alone would let
 * start (its pending tasks, or its own %N)?  O(1).
 */
bool gq_job_kept_back(const gq_job_t *job);

/* Does the view keep any pending job back?  O(jobs). */
bool gq_view_keeps_back(const gq_view_t *v);

/* The same over every pool's view (false for NULL).  O(jobs). */
bool gq_pools_keep_back(const gq_pools_t *p);

#endif
