/*
 * hold.h - gpuquota's holds on Slurm's job records: priority 0, Slurm's
 * WAIT_HELD and a reason of its own in squeue (GQ_HOLD_PREFIX), which is
 * how gpuquota tells its holds from a user's or an admin's.  Shared by
 * both plugins: priority/gpuquota holds and releases after each pass and
 * on submit, preempt/gpuquota when a reclaim starts (work outside quotas
 * waits for the preemptor).
 */
#ifndef GPUQUOTA_HOLD_H
#define GPUQUOTA_HOLD_H

#include "core/pools.h"
#include "core/view.h"
#include "shared/slurm_compat.h"
#include "shared/job_facts.h"

/* Room for " in pool NAME" (names are at most 64 characters). */
#define GQ_POOL_TEXT_MAX 80

/*
 * Hold a pending job for job->hold, saying why in squeue's reason (a new
 * hold is counted in the state's metrics); `pool` names the pool of
 * `view` where there are pools (NULL: one pool).  A job already held with
 * the same text is left alone.  Caller holds the job write lock and the
 * state lock.
 */
void gq_write_hold(job_record_t *job_ptr, const gq_view_t *view,
		   const gq_job_t *job, const char *pool);

/*
 * Is job_ptr held already as gq_write_hold would hold it for job->hold
 * (priority 0, WAIT_HELD, the same text): would it change nothing?
 * Reads only.  Caller holds the job read lock and the state lock.
 */
bool gq_hold_written(const job_record_t *job_ptr, const gq_view_t *view,
		     const gq_job_t *job, const char *pool);

/*
 * The squeue reason gq_write_hold writes for job->hold (NULL: none):
 * the batch's memo, or made into *own, which the caller frees.  Caller
 * holds the state lock.
 */
const char *gq_hold_text(const gq_view_t *view, const gq_job_t *job,
			 const char *pool, char **own);

/*
 * Write again the holds `pools` decided on the pending jobs that have a
 * priority (`only`: of that kind; GQ_HOLD_NONE: any): jobs held while
 * Slurm's main cycle ran, which put their priority back (docs/
 * DEVELOPING.md), and, in a reclaim, the jobs that now wait for it.  The
 * hold is the one the pass writes (write_slurm.h): the job's answer,
 * gq_pools_answer, so a job another pool it lists holds is held again
 * too.  `what` names the batch in the log.  Returns how many.  A walk of
 * the views' jobs, and for each held one a lookup by id, its state,
 * priority and reason text: no other job's record is read.  Caller holds
 * the job write lock and the state lock.
 */
int gq_hold_again(const gq_pools_t *pools, gq_hold_t only, const char *what);

/*
 * Hold a job array at its submit until the next pass (gq_read_new_array):
 * Slurm asks the priority before it makes the array's tasks, so no
 * throttle (%N) can be written then, and asks nothing more before a
 * scheduling cycle may start them.  The pass releases it with its
 * throttle, or holds it for a limit.  Caller holds the job write lock.
 */
#define GQ_HOLD_NEW_ARRAY GQ_HOLD_PREFIX \
	" a new job array waits for the next pass to set how many of its tasks may start"
void gq_hold_new_array(job_record_t *job_ptr);

/*
 * The nodes job_ptr runs on (its node_bitmap: Slurm's node indices, which
 * are the views'), into nodes[GQ_RECLAIM_NODES]: how many, or -1 when none
 * are known or there are more (a reclaim's victims' nodes: any node).
 * Shared by both plugins: the victim taken, the victim read back.
 */
int gq_hold_job_nodes(const job_record_t *job_ptr, int *nodes);

/* A job gpuquota held may start: Slurm's reason is cleared (the caller
 * counts the release). */
void gq_write_unhold(job_record_t *job_ptr);

/*
 * Slurm's release of a job a person held (scontrol release, job_mgr.c
 * _release_job_rec) asks the priority plugin for its priority, then
 * clears the job's reason itself.  When gpuquota holds the job in that
 * call, its reason is lost: the job is left at priority 0 with no reason
 * (then Slurm's WAIT_HELD, "JobHeldAdmin"), which would read as an
 * admin's hold and stay.  priority_p_set notes such a hold; until a pass
 * writes the hold again (or releases it), a noted job still at priority
 * 0, not set directly (a person's hold sets direct_set_prio) and with no
 * reason text of its own is gpuquota's.  Internally locked.
 */
void gq_hold_note_release(uint32_t job_id);
bool gq_hold_lost(const job_record_t *job_ptr);

/*
 * The log of holds and releases.  Inside a batch (a pass writing its
 * answers back, a reclaim holding the work that waits for it) the first
 * GQ_HOLD_LOG_LINES holds and releases get a line each in slurmctld's
 * log; the rest are at debug level and the batch ends with one line
 * counting them.  Thousands of jobs may wait for one reclaim, each hold
 * and release of them a line written under the job write lock: at that
 * rate the log alone holds the lock for tens of milliseconds a batch.
 * Outside a batch every hold has its line.  Caller
 * holds the job write lock.
 */
#define GQ_HOLD_LOG_LINES 20
void gq_hold_log_begin(void);
/* One more hold (release: a release) counted in the batch; true: log
 * its line at info, else at debug. */
bool gq_hold_count_line(bool release);
void gq_hold_log_end(const char *what);

#endif
