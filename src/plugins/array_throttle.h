/*
 * array_throttle.h - gpuquota's throttle on pending job arrays.
 *
 * Slurm may start several tasks of one array record in one scheduling
 * cycle, without asking the priority plugin again.  So that it starts no
 * more than fit the project's and department's bounds (gq_job_t.tasks_now),
 * gpuquota lowers the array's own %N (array_recs->max_run_tasks) while a
 * bound binds, and gives the user's %N back when none does.  The user's
 * value is remembered across slurmctld restarts in a small file under
 * StateSaveLocation, by job id and submit time; a %N the user sets
 * meanwhile (scontrol update ArrayTaskThrottle) is taken as the user's.
 *
 * Every function but gq_throttle_save is called with the slurmctld job
 * write lock held; an internal mutex guards the table for the save.
 */
#ifndef GPUQUOTA_ARRAY_THROTTLE_H
#define GPUQUOTA_ARRAY_THROTTLE_H

#include "core/view.h"
#include "shared/slurm_compat.h"

/* Load the remembered values (slurmctld start).  A missing file is no
 * error; a bad line is logged and skipped. */
void gq_throttle_load(void);

/* The user's own %N of an array record whose %N is now `max_run_tasks`
 * (0: none).  Entries are the job's by its id and submit time
 * (src/state/throttle_file.h).  Reads only: an old line's entry becomes
 * the job's when a pass writes its throttle.  Linear in the throttled
 * arrays. */
uint32_t gq_throttle_user(job_record_t *job_ptr, uint32_t max_run_tasks);

/*
 * Throttle a pending array record to the tasks running plus `tasks_now`,
 * those it may start before the next pass (gq_pools_tasks_now: the fewest
 * over the pools it lists), less those started since `job` (its hold and
 * the pending tasks it was read with) was read; or give the user's %N
 * back.  Does nothing for other jobs.  O(1).
 */
void gq_throttle_apply(job_record_t *job_ptr, const gq_job_t *job,
		       uint32_t tasks_now);

/* The user's %N back on an array record gpuquota throttles, its entry
 * forgotten (observe mode undoes the throttle).  Linear in the
 * throttled arrays. */
void gq_throttle_release(job_record_t *job_ptr);

/* A pass writes every pending array: arrays it did not see are gone. */
void gq_throttle_pass_begin(void);
void gq_throttle_pass_end(void);

/* Write the file when the table changed (after the locks are released). */
void gq_throttle_save(void);

/* Forget everything (plugin unload). */
void gq_throttle_clear(void);

#endif
