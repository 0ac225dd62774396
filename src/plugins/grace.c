/*
 * grace.c - victims in their grace time are requeued when it ends, and
 * their ledger records settled when their runs end (see grace.h and
 * docs/MODEL.md "Warning before requeue", "Ledger").
 */
#include <stdio.h>
#include <string.h>

#include "plugins/xalloc.h"
#include "plugins/grace.h"
#include "plugins/reclaim_note.h"
#include "shared/job_facts.h"
#include "state/state.h"


/* Victims due, noted by the pass thread only, requeued right after. */
static uint32_t *due;
static int ndue, due_cap;

/* Victims warned before a restart, noted at the first pass, kept again
 * right after it (pass thread only). */
static uint32_t *rebuilt;
static int nrebuilt, rebuilt_cap;

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

void gq_grace_rebuild_note(job_record_t *job_ptr)
{
	if (!IS_JOB_RUNNING(job_ptr) || !job_ptr->preempt_time ||
	    !job_ptr->system_comment ||
	    !xstrstr(job_ptr->system_comment, ", warned:"))
		return;
	/* out of memory: its warned record stands */
	if (gq_xgrow(&rebuilt, nrebuilt, &rebuilt_cap, sizeof(*rebuilt)))
		return;
	rebuilt[nrebuilt++] = job_ptr->job_id;
}

/* the warned victim `id` kept in the state, or -1.  O(warned). */
static int _warned_index(uint32_t id)
{
	int i;

	for (i = 0; i < gq_state_nwarned(); i++)
		if (gq_state_warned(i)->rec.victim == id)
			return i;
	return -1;
}

/*
 * Settle warned victim i, whose run ended at `end` (`how`): its
 * after-grace record noted, a log line, and its system comment (and admin
 * comment note) says the work lost, as a victim requeued at once has it
 * (not when a newer reclaim has written it since).  Caller holds the job
 * write lock and the state lock.
 */
static void _settle(job_record_t *job_ptr, int i, int64_t end,
		    const char *how)
{
	int64_t start = gq_state_warned(i)->start;
	gq_ledger_rec_t r;

	gq_state_warned_settle(i, end, &r);
	/* not "gpuquota: reclaim:", which is one line per decision */
	info("gpuquota: reclaim settled: JobId=%u (%s, %u GPU%s) taken for JobId=%u %s: %llu GPU-seconds lost (its run of %lld s)",
	     r.victim, r.victim_project, r.gpus, r.gpus == 1 ? "" : "s",
	     r.preemptor, how, (unsigned long long)r.lost,
	     (long long)(r.gpus ? r.lost / r.gpus : 0));
	if (job_ptr &&
	    gq_facts_reclaimed_for(job_ptr->system_comment) == r.preemptor)
		gq_reclaim_note_write(job_ptr, &r, start);
}

/*
 * Keep again a victim warned before slurmctld restarted (its warned
 * record is in the ledger): the decision from Slurm's preempt_time and
 * gpuquota's system comment (preemptor, its project and band), the rest
 * from the pass's view (its pool, project, GPUs and start).
 * Not kept when the view or the comment lacks it: its warned record
 * stands.  Caller holds the job write lock and the state lock.  O(1).
 */
static void _keep_again(uint32_t id)
{
	job_record_t *job_ptr = find_job_record(id);
	const gq_pools_t *pools = gq_state_view();
	char project[GQ_LEDGER_NAME], band[16];
	const gq_job_t *ee;
	uint32_t preemptor;
	gq_warned_t w;
	int k;

	if (!job_ptr || !IS_JOB_RUNNING(job_ptr) || !job_ptr->preempt_time ||
	    _warned_index(id) >= 0 || !pools ||
	    !(ee = gq_pools_job(pools, id, &k)) ||
	    sscanf(job_ptr->system_comment, GQ_RECLAIMED_FOR "%u of %64s (%15[^)])",
		   &preemptor, project, band) != 3)
		return;
	memset(&w, 0, sizeof(w));
	w.rec.at = w.rec.end = job_ptr->preempt_time;
	w.rec.stage = GQ_LEDGER_WARNED;
	w.rec.preemptor = preemptor;
	w.rec.reason = strcmp(band, gq_band_name(GQ_BAND_FAIR_SHARE)) ?
			       GQ_RECLAIM_QUOTA : GQ_RECLAIM_FAIR_SHARE;
	w.rec.victim = id;
	w.rec.gpus = ee->in.gpus;
	gq_ledger_name(w.rec.pool, pools->name[k]);
	gq_ledger_name(w.rec.preemptor_project, project);
	gq_ledger_name(w.rec.victim_project,
		       gq_view_project(pools->view[k], ee->project)->name);
	w.start = ee->in.start_time;
	w.restarts = job_ptr->restart_cnt;
	if (gq_state_warned_keep(&w))
		debug("gpuquota: reclaim of %pJ for JobId=%u kept again after a restart: its loss counted when its run ends",
		      job_ptr, preemptor);
}

/*
 * When Slurm requeued warned victim w (its restart count grew): the end
 * its requeue set (end_time, kept while it completes), else the new
 * submit time Slurm gives it once completed (at most its epilog later),
 * else now.  O(1).
 */
static int64_t _requeued_at(job_record_t *job_ptr, const gq_warned_t *w,
			    time_t now)
{
	if (job_ptr->end_time >= w->rec.at && job_ptr->end_time <= now)
		return job_ptr->end_time;
	if (job_ptr->details && job_ptr->details->submit_time >= w->rec.at &&
	    job_ptr->details->submit_time <= now)
		return job_ptr->details->submit_time;
	return now;
}

/*
 * The warned victims whose runs ended since the last look, without
 * gpuquota's requeue: requeued by Slurm (its check of grace times, a
 * preemptor's cycle, or at its exit from 24.11) are settled; ended
 * otherwise (cancelled, a time limit) are forgotten, their warned record
 * standing; still running, completing or due for gpuquota's requeue are
 * kept.  Caller holds the job write lock and the state lock.
 * O(warned victims) lookups.
 */
static void _settle_ended(time_t now)
{
	int i;

	for (i = gq_state_nwarned() - 1; i >= 0; i--) {
		const gq_warned_t *w = gq_state_warned(i);
		job_record_t *job_ptr = find_job_record(w->rec.victim);
		int64_t end;

		if (job_ptr && job_ptr->restart_cnt != w->restarts) {
			end = _requeued_at(job_ptr, w, now);
			_settle(job_ptr, i, end, "requeued by Slurm");
		} else if (!job_ptr ||
			   !(IS_JOB_RUNNING(job_ptr) ||
			     IS_JOB_COMPLETING(job_ptr) ||
			     IS_JOB_PENDING(job_ptr) ||
			     _grace_over(job_ptr, now))) {
			gq_state_warned_drop(i);
		}
	}
}

/*
 * Requeue one victim whose grace time is over (job_ptr), its run ended
 * at `end`: its ledger record's note written first (the requeue sends the
 * run's end, its admin comment, to slurmdbd), then settled.  Caller
 * holds slurmctld's job write lock, not the state lock.
 */
static void _requeue_one(job_record_t *job_ptr, time_t now)
{
	bool exited = !IS_JOB_RUNNING(job_ptr);
	/* its run ended at its exit, or ends now */
	int64_t end = exited && job_ptr->end_time > 0 &&
		      job_ptr->end_time <= now ? job_ptr->end_time : now;
	int rc, w;

	gq_state_lock();
	if ((w = _warned_index(job_ptr->job_id)) >= 0) {
		const gq_warned_t *wr = gq_state_warned(w);
		gq_ledger_rec_t r;

		gq_ledger_after_grace(&wr->rec, wr->start, end, &r);
		gq_reclaim_note_write(job_ptr, &r, wr->start);
	}
	gq_state_unlock();
	rc = job_requeue_internal(0, job_ptr, true, 0);
	if (rc == SLURM_SUCCESS) {
		info("gpuquota: reclaimed %pJ %s: requeued", job_ptr,
		     exited ? "exited in its grace time" :
			      "reached the end of its grace time");
		gq_state_lock();
		if ((w = _warned_index(job_ptr->job_id)) >= 0)
			_settle(job_ptr, w, end,
				exited ? "exited in its grace time, requeued" :
					 "requeued at the end of its grace time");
		gq_state_unlock();
	} else if (exited) {
		/* e.g. past MaxBatchRequeue: said once, not at every pass
		 * until Slurm purges the record */
		error("gpuquota: requeue of reclaimed %pJ after its grace time: %s; it stays ended",
		      job_ptr, slurm_strerror(rc));
		job_ptr->preempt_time = 0;
	} else {
		error("gpuquota: requeue of reclaimed %pJ after its grace time: %s",
		      job_ptr, slurm_strerror(rc));
	}
}

void gq_grace_requeue(void)
{
	/* as Slurm's own job_time_limit(), which requeues preempted jobs */
	slurmctld_lock_t locks = { .conf = READ_LOCK, .job = WRITE_LOCK,
				   .node = WRITE_LOCK, .part = READ_LOCK };
	time_t now = time(NULL);
	int i, nwarned;

	gq_state_lock();
	nwarned = gq_state_nwarned();
	gq_state_unlock();
	if (!ndue && !nwarned && !nrebuilt)
		return;
	lock_slurmctld(locks);
	gq_state_lock();
	for (i = 0; i < nrebuilt; i++)
		_keep_again(rebuilt[i]);
	nrebuilt = 0;
	gq_state_unlock();
	for (i = 0; i < ndue; i++) {
		job_record_t *job_ptr = find_job_record(due[i]);

		/* requeued or gone meanwhile: nothing */
		if (job_ptr && _grace_over(job_ptr, now))
			_requeue_one(job_ptr, now);
	}
	gq_state_lock();
	_settle_ended(now);
	gq_state_unlock();
	unlock_slurmctld(locks);
	ndue = 0;
}
