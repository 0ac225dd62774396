/*
 * pass_soon.h - whether a submit or a job's end brings the next pass
 * sooner (docs/MODEL.md "When").
 *
 * A pass runs every recompute_interval seconds.  Between passes, Slurm
 * starts jobs by the bands the last pass wrote, and a job submitted
 * meanwhile gets its band at once (priority_p_set).  An earlier pass
 * changes what Slurm may start only when gpuquota keeps a pending job
 * back (a hold, or an array throttled below its pending tasks), when a
 * pending job is blocked (the idle GPUs cannot start it: a job's end may
 * raise its band and let it reclaim), or when a job needs victims
 * (victim_search.h): then what only a pass decides (patience, room, the
 * exact shares) must come before the reclaim.  Only then does an event
 * ask for a pass before the next tick.
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

/*
 * Is some pending job of the view, eligible and not held, blocked: the
 * idle GPUs of its open nodes cannot start it?  Then a job's end may
 * change what it may do (its band, a reclaim), and only a pass tells.
 * True without placement.  O(such jobs x nodes), shapes cached
 * (gq_view_any_unfit).
 */
bool gq_view_blocked(const gq_view_t *v);
bool gq_pools_blocked(const gq_pools_t *p);

/* Is job `id`, added after its pass, blocked, `*late` idle GPUs taken by
 * jobs added before it?  Adds its GPUs to *late.  O(nodes). */
bool gq_pools_job_blocked(const gq_pools_t *p, uint32_t id, uint64_t *late);

/*
 * Does an event bring the next pass sooner: some pool keeps a job back,
 * or a job is blocked (gq_view_blocked)?  False for NULL.
 * O(jobs + blocked shapes x nodes).
 */
bool gq_pools_pass_soon(const gq_pools_t *p);

#endif
