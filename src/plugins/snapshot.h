/*
 * snapshot.h - Slurm's state into the core's inputs, the core's answers
 * back into Slurm: the only place the priority plugin reads job_list.
 */
#ifndef GPUQUOTA_SNAPSHOT_H
#define GPUQUOTA_SNAPSHOT_H

#include <time.h>

#include "core/view.h"
#include "src/slurmctld/slurmctld.h"

/* Once per plugin load. */
void gq_snapshot_init(void);

/*
 * One pass: snapshot job_list and the node table into the view, compute,
 * and set the priority of every pending job.  O(J log J) (see view.h).
 * Caller holds the slurmctld job write, node and partition read locks and
 * the state lock.
 */
void gq_snapshot_pass(gq_view_t *view, const gq_config_t *cfg, time_t now);

/* state_desc of the jobs gpuquota holds (priority 0, Reason=WAIT_HELD) */
#define GQ_HOLD_PREFIX "gpuquota:"

/* Is a partition part of the GPU pool (settings.partitions; all if none)? */
bool gq_snapshot_in_pool(const gq_config_t *cfg, part_record_t *part_ptr);

/* Is this job held by gpuquota (not by a user or an admin)? */
bool gq_snapshot_held(job_record_t *job_ptr);

/* Hold a pending job for job->hold, saying why in squeue's reason. */
void gq_snapshot_hold(job_record_t *job_ptr, const gq_view_t *view,
		      const gq_job_t *job);

/* The core's inputs for one job (account aside), outside of a pass. */
void gq_snapshot_job(job_record_t *job_ptr, time_t now, gq_job_t *out);

#endif
