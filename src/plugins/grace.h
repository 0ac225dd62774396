/*
 * grace.h - victims in their grace time (settings.grace_time), and the
 * ledger's records of them when their runs end: Slurm warns
 * a victim (SIGTERM, or its own --signal) and marks it (preempt_time);
 * gpuquota requeues it when it exits, which Slurm would leave COMPLETED or
 * FAILED, or as soon as its time is up, which Slurm checks only every 30 s
 * (PERIODIC_TIMEOUT) or at the preemptor's next attempt.
 */
#ifndef GPUQUOTA_GRACE_H
#define GPUQUOTA_GRACE_H

#include "shared/slurm_compat.h"

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
