/*
 * grace.h - the glue of victims in their grace time (settings.grace_time;
 * the decisions in core/grace.h), and the ledger's records of them when
 * their runs end: Slurm warns
 * a victim (SIGTERM, or its own --signal) and marks it (preempt_time);
 * gpuquota requeues it when it exits, which Slurm would leave COMPLETED or
 * FAILED, or as soon as its time is up, which Slurm checks only every 30 s
 * (PERIODIC_TIMEOUT) or at the preemptor's next attempt.
 */
#ifndef GPUQUOTA_GRACE_H
#define GPUQUOTA_GRACE_H

#include "shared/slurm_compat.h"

#include "core/grace.h"
#include "shared/job_facts.h"

/* Slurm's record as grace's decisions read it (core/grace.h): fields
 * copied, the state through gq_facts_grace_state.  O(1). */
static inline gq_grace_job_t gq_grace_victim_of(const job_record_t *job_ptr)
{
	gq_grace_job_t j = {
		.state = gq_facts_grace_state(job_ptr->job_state),
		.batch = job_ptr->batch_flag,
		.preempt_time = job_ptr->preempt_time,
		.end_time = job_ptr->end_time,
		.submit_time = job_ptr->details ?
				       job_ptr->details->submit_time : 0,
		.restarts = job_ptr->restart_cnt,
	};

	return j;
}

/*
 * During a pass (the job read lock held at least): note `job_ptr` if it
 * is a victim whose grace ended (it exited, or its time is up).  Pass
 * thread only.  O(1).
 */
void gq_grace_note(job_record_t *job_ptr, time_t now);

/*
 * At the first pass after slurmctld started (the job read lock held): job_ptr
 * is a victim gpuquota warned before (running, its preempt_time and
 * gpuquota's warned system comment), whose run's end is to settle its
 * ledger record (docs/MODEL.md "Ledger"): noted, kept again by the next
 * gq_grace_requeue from the view the pass publishes.  Pass thread only.
 * O(1) amortized.
 */
void gq_grace_rebuild_note(job_record_t *job_ptr);

/*
 * After the pass, with no slurmctld lock held: requeue the noted victims,
 * and settle the ledger records of warned victims whose runs ended
 * (docs/MODEL.md "Ledger": requeued here, with the end of the run as it
 * is now; requeued by Slurm since the last look; the
 * others forgotten), after keeping again the victims noted at the first
 * pass.  Under the job and node write locks a requeue needs, taken only
 * when a victim is noted or warned.  O(noted + warned).
 */
void gq_grace_requeue(void);

#endif
