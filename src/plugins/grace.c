/*
 * grace.c - the glue of the warning before requeue: Slurm's records of
 * victims in their grace time read into core/grace.c's input, and its
 * answers carried out: gpuquota's requeue when the grace is over, the
 * ledger records settled when their runs end (see grace.h and
 * docs/MODEL.md "Warning before requeue", "Ledger").
 */
#include <stdio.h>
#include <string.h>

#include "core/grace.h"
#include "plugins/xalloc.h"
#include "plugins/grace.h"
#include "plugins/reclaim_note.h"
#include "plugins/room_wait_text.h"
#include "shared/job_facts.h"
#include "state/state.h"

/*
 * The victims a pass found for gpuquota's requeue.  The pass thread alone
 * writes and reads them (gq_grace_note, gq_grace_rebuild_note during its
 * pass, gq_grace_requeue right after): no lock guards them.
 */
static struct {
	uint32_t *due;		/* grace over: requeued after the pass */
	int ndue, due_cap;
	uint32_t *rebuilt;	/* warned before a restart: kept again after
				 * the first pass */
	int nrebuilt, rebuilt_cap;
} grace_found;

void gq_grace_note(job_record_t *job_ptr, time_t now)
{
	gq_grace_job_t j;

	/* never preempted: no victim (gq_grace_end), and the walk of every
	 * job reads no more of it */
	if (!job_ptr->preempt_time)
		return;
	j = gq_grace_victim_of(job_ptr);
	if (!gq_grace_over(&j, now))
		return;
	/* out of memory: requeued by Slurm's own check, or the next pass */
	if (gq_xgrow(&grace_found.due, grace_found.ndue, &grace_found.due_cap,
		     sizeof(*grace_found.due)))
		return;
	grace_found.due[grace_found.ndue++] = job_ptr->job_id;
}

void gq_grace_rebuild_note(job_record_t *job_ptr)
{
	gq_grace_job_t j = gq_grace_victim_of(job_ptr);

	if (!gq_grace_warned_before(
		    &j, gq_facts_warned_comment(job_ptr->system_comment)))
		return;
	/* out of memory: its warned record stands */
	if (gq_xgrow(&grace_found.rebuilt, grace_found.nrebuilt, &grace_found.rebuilt_cap,
		     sizeof(*grace_found.rebuilt)))
		return;
	grace_found.rebuilt[grace_found.nrebuilt++] = job_ptr->job_id;
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

/* The node moved job `job` restarts on, while its landing is kept; NULL:
 * not known (then its comment says "another node").  Caller holds the
 * state lock. */
static const char *_moved_to(uint32_t job)
{
	int node = -1;

	return gq_state_landing(job, &node) && node >= 0 ?
		       gq_room_node_name(node) : NULL;
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
		gq_reclaim_note_write(job_ptr, &r, start,
				      _moved_to(r.victim));
}

/*
 * Keep again a victim warned before slurmctld restarted (its warned
 * record is in the ledger), as gq_grace_keep_again decides: not kept
 * when the view or the comment lacks it (its warned record stands).
 * Caller holds the job write lock and the state lock.  O(warned).
 */
static void _keep_again(uint32_t id)
{
	job_record_t *job_ptr = find_job_record(id);
	gq_grace_comment_t c;
	gq_grace_job_t j;
	gq_grace_kept_t k;
	gq_warned_t w;

	if (!job_ptr)
		return;
	j = gq_grace_victim_of(job_ptr);
	if (!gq_grace_keep_again(id, &j, _warned_index(id) >= 0,
				 gq_facts_reclaim_comment(
					 job_ptr->system_comment, &c) ? &c : NULL,
				 gq_state_view(), &k))
		return;
	memset(&w, 0, sizeof(w));
	w.rec.at = w.rec.end = k.at;
	w.rec.stage = GQ_LEDGER_WARNED;
	w.rec.preemptor = k.preemptor;
	w.rec.reason = k.moved ? GQ_RECLAIM_MOVE :
		       k.fair_share ? GQ_RECLAIM_FAIR_SHARE : GQ_RECLAIM_QUOTA;
	w.rec.victim = k.victim;
	w.rec.gpus = k.gpus;
	gq_ledger_name(w.rec.pool, k.pool);
	gq_ledger_name(w.rec.preemptor_project, k.preemptor_project);
	gq_ledger_name(w.rec.victim_project, k.victim_project);
	w.start = k.start;
	w.restarts = k.restarts;
	if (gq_state_warned_keep(&w))
		debug("gpuquota: reclaim of %pJ for JobId=%u kept again after a restart: its loss counted when its run ends",
		      job_ptr, k.preemptor);
}

/*
 * The warned victims whose runs ended since the last look, without
 * gpuquota's requeue (gq_grace_look): requeued by Slurm (its check of
 * grace times, a preemptor's cycle, or at its exit from 24.11) are
 * settled; ended otherwise (cancelled, a time limit) are forgotten, their
 * warned record standing; the others are kept.  Caller holds the job
 * write lock and the state lock.  O(warned victims) lookups.
 */
static void _settle_ended(time_t now)
{
	int i;

	for (i = gq_state_nwarned() - 1; i >= 0; i--) {
		const gq_warned_t *w = gq_state_warned(i);
		job_record_t *job_ptr = find_job_record(w->rec.victim);
		gq_grace_job_t j = { 0 };

		if (job_ptr)
			j = gq_grace_victim_of(job_ptr);
		switch (gq_grace_look(job_ptr ? &j : NULL, w->restarts, now)) {
		case GQ_GRACE_SETTLE:
			_settle(job_ptr, i,
				gq_grace_requeued_at(&j, w->rec.at, now),
				"requeued by Slurm");
			break;
		case GQ_GRACE_FORGET:
			gq_state_warned_drop(i);
			break;
		case GQ_GRACE_KEEP:
			break;
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
	gq_grace_job_t j = gq_grace_victim_of(job_ptr);
	bool exited = gq_grace_end(&j, now) == GQ_GRACE_EXIT;
	/* its run ended at its exit, or ends now */
	int64_t end = gq_grace_run_end(&j, now);
	int rc, w;

	gq_state_lock();
	if ((w = _warned_index(job_ptr->job_id)) >= 0) {
		const gq_warned_t *wr = gq_state_warned(w);
		gq_ledger_rec_t r;

		gq_ledger_after_grace(&wr->rec, wr->start, end, &r);
		gq_reclaim_note_write(job_ptr, &r, wr->start,
				      _moved_to(r.victim));
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
	if (!grace_found.ndue && !nwarned && !grace_found.nrebuilt)
		return;
	lock_slurmctld(locks);
	gq_state_lock();
	for (i = 0; i < grace_found.nrebuilt; i++)
		_keep_again(grace_found.rebuilt[i]);
	grace_found.nrebuilt = 0;
	gq_state_unlock();
	for (i = 0; i < grace_found.ndue; i++) {
		job_record_t *job_ptr = find_job_record(grace_found.due[i]);
		gq_grace_job_t j;

		if (!job_ptr)
			continue;	/* gone meanwhile: nothing */
		j = gq_grace_victim_of(job_ptr);
		if (gq_grace_over(&j, now))	/* else requeued meanwhile */
			_requeue_one(job_ptr, now);
	}
	gq_state_lock();
	_settle_ended(now);
	gq_state_unlock();
	unlock_slurmctld(locks);
	grace_found.ndue = 0;
}
