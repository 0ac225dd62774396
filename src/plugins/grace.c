/*
 * grace.c - victims in their grace time are requeued when it ends (see
 * grace.h and docs/MODEL.md "Warning before requeue").
 */
#include "plugins/xalloc.h"
#include "plugins/grace.h"


/* Victims due, noted by the pass thread only, requeued right after. */
static uint32_t *due;
static int ndue, due_cap;

/* It exited by itself (its checkpoint handler ran), or its time is up. */
static bool _grace_over(job_record_t *job_ptr, time_t now)
{
	uint32_t base = job_ptr->job_state & JOB_STATE_BASE;

	if (!job_ptr->preempt_time || !job_ptr->batch_flag)
		return false;
	if (IS_JOB_RUNNING(job_ptr))
		return now >= job_ptr->end_time;
	/* not a user's scancel, a timeout or a node failure (Slurm's own) */
	return !IS_JOB_COMPLETING(job_ptr) &&
	       (base == JOB_COMPLETE || base == JOB_FAILED);
}

void gq_grace_note(job_record_t *job_ptr, time_t now)
{
	if (!_grace_over(job_ptr, now))
		return;
	/* out of memory: requeued by Slurm's own check, or the next pass */
	if (gq_xgrow(&due, ndue, &due_cap, sizeof(*due)))
		return;
	due[ndue++] = job_ptr->job_id;
}

void gq_grace_requeue(void)
{
	/* as Slurm's own job_time_limit(), which requeues preempted jobs */
	slurmctld_lock_t locks = { .conf = READ_LOCK, .job = WRITE_LOCK,
				   .node = WRITE_LOCK, .part = READ_LOCK };
	time_t now = time(NULL);
	int i;

	if (!ndue)
		return;
	lock_slurmctld(locks);
	for (i = 0; i < ndue; i++) {
		job_record_t *job_ptr = find_job_record(due[i]);
		bool exited;
		int rc;

		if (!job_ptr || !_grace_over(job_ptr, now))
			continue;	/* requeued or gone meanwhile */
		exited = !IS_JOB_RUNNING(job_ptr);
		rc = job_requeue_internal(0, job_ptr, true, 0);
		if (rc == SLURM_SUCCESS)
			info("gpuquota: reclaimed %pJ %s: requeued", job_ptr,
			     exited ? "exited in its grace time" :
				      "reached the end of its grace time");
		else if (exited) {
			/* e.g. past MaxBatchRequeue: said once, not at every
			 * pass until Slurm purges the record */
			error("gpuquota: requeue of reclaimed %pJ after its grace time: %s; it stays ended",
			      job_ptr, slurm_strerror(rc));
			job_ptr->preempt_time = 0;
		} else {
			error("gpuquota: requeue of reclaimed %pJ after its grace time: %s",
			      job_ptr, slurm_strerror(rc));
		}
	}
	unlock_slurmctld(locks);
	ndue = 0;
}
