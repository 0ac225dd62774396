/*
 * hold.c - gpuquota's holds on Slurm's job records (see hold.h).
 */
#include <pthread.h>

#include "shared/slurm_compat.h"

#include "tools/clock.h"
#include "tools/log_budget.h"
#include "state/state.h"
#include "plugins/xalloc.h"
#include "plugins/hold.h"
#include "plugins/room_wait_text.h"
#include "shared/job_facts.h"

/* slurmctld's own data: absent when a client command loads us */
#pragma weak job_list
#pragma weak last_job_update

/* Jobs held inside a release whose reason Slurm then cleared (hold.h):
 * a handful at most, each until the next pass writes its hold again;
 * an entry no pass took up (the job ended) goes after GQ_LOST_TTL. */
#define GQ_LOST_TTL 600

typedef struct {
	uint32_t job_id;
	int64_t noted;
} gq_lost_t;

/*
 * The batch being logged (hold.h), one per plugin (each plugin links its
 * own hold.c).  Guarded by slurmctld's job lock: its users hold the job
 * write lock, or the job read lock with the state lock (a pass's plan).
 * Written by the pass thread (a pass, a plan, a re-hold), by
 * preempt/gpuquota's reclaim, and outside a batch by priority_p_set.
 *
 * The memo: the last hold text made in this batch, and what it was made
 * from.  The text depends only on the kind of hold, whom or what it names
 * (the job waited for, the project or the department), the view and the
 * pool, and a batch holds thousands of jobs for one reclaim or room wait:
 * one text is formatted per batch and compared, not one per job.  Outside
 * a batch (memo.on false) each hold formats its own.
 */
static struct hold_batch {
	gq_log_budget_t lines;	/* kind 0: holds, 1: releases */
	struct {
		bool on;
		gq_hold_t hold;
		uint32_t key;
		const gq_view_t *view;
		const char *pool;
		char *text;
	} memo;
} batch;

static void _memo_clear(bool on)
{
	xfree(batch.memo.text);
	memset(&batch.memo, 0, sizeof(batch.memo));
	batch.memo.on = on;
}

void gq_hold_log_begin(void)
{
	gq_log_budget_begin(&batch.lines, GQ_HOLD_LOG_LINES);
	_memo_clear(true);
}

bool gq_hold_count_line(bool release)
{
	return gq_log_budget_line(&batch.lines, release);
}

void gq_hold_log_end(const char *what)
{
	int holds = gq_log_budget_over(&batch.lines, 0);
	int releases = gq_log_budget_over(&batch.lines, 1);

	/* not "gpuquota: reclaim: ...", the line of a reclaim decision */
	if (holds || releases)
		info("gpuquota: %d more holds and %d more releases after the first %d of this %s (one line each at SlurmctldDebug=debug)",
		     holds, releases, GQ_HOLD_LOG_LINES, what);
	gq_log_budget_end(&batch.lines);
	_memo_clear(false);
}

/*
 * The holds lost to a release (hold.h), one table per plugin.  `lock`
 * guards every field; a leaf of docs/DEVELOPING.md "Lock order".  Written
 * under the job write lock: by a pass's writes and priority_p_set (a
 * hold noted, then forgotten when written again).
 */
static struct lost_holds {
	pthread_mutex_t lock;
	gq_lost_t *job;
	int n, cap;
} lost = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void _forget(uint32_t job_id)
{
	int i;

	slurm_mutex_lock(&lost.lock);
	for (i = 0; i < lost.n; i++)
		if (lost.job[i].job_id == job_id) {
			lost.job[i] = lost.job[--lost.n];
			break;
		}
	slurm_mutex_unlock(&lost.lock);
}

void gq_hold_note_release(uint32_t job_id)
{
	time_t now = time(NULL);
	int i = 0;

	slurm_mutex_lock(&lost.lock);
	while (i < lost.n)	/* the old, and this job's earlier entry */
		if (lost.job[i].job_id == job_id ||
		    gq_clock_since(&lost.job[i].noted, now) > GQ_LOST_TTL)
			lost.job[i] = lost.job[--lost.n];
		else
			i++;
	/* out of memory: the hold reads as an admin's until the next pass
	 * writes it again */
	if (!gq_xgrow(&lost.job, lost.n, &lost.cap, sizeof(*lost.job))) {
		lost.job[lost.n].job_id = job_id;
		lost.job[lost.n++].noted = now;
	}
	slurm_mutex_unlock(&lost.lock);
}

bool gq_hold_lost(const job_record_t *job_ptr)
{
	time_t now = time(NULL);
	bool found = false;
	int i;

	if (job_ptr->priority || job_ptr->direct_set_prio ||
	    job_ptr->state_desc || !IS_JOB_PENDING(job_ptr) ||
	    (job_ptr->state_reason != WAIT_NO_REASON &&
	     job_ptr->state_reason != WAIT_HELD))
		return false;
	slurm_mutex_lock(&lost.lock);
	for (i = 0; i < lost.n && !found; i++)
		found = lost.job[i].job_id == job_ptr->job_id &&
			gq_clock_since(&lost.job[i].noted, now) <= GQ_LOST_TTL;
	slurm_mutex_unlock(&lost.lock);
	return found;
}

static const char *_plural(double n)
{
	return n == 1 ? "" : "s";
}

int gq_hold_job_nodes(const job_record_t *job_ptr, int *nodes)
{
	int64_t i, last;
	int n = 0;

	if (!job_ptr->node_bitmap || (i = bit_ffs(job_ptr->node_bitmap)) < 0)
		return -1;
	last = bit_fls(job_ptr->node_bitmap);
	for (; i <= last; i++) {
		if (!bit_test(job_ptr->node_bitmap, i))
			continue;
		if (n == GQ_RECLAIM_NODES)
			return -1;
		nodes[n++] = (int)i;
	}
	return n;
}

/* What a hold of `job` names besides its kind: the job waited for, the
 * project or the department (the memo's key). */
static uint32_t _hold_key(const gq_view_t *view, const gq_job_t *job)
{
	switch (job->hold) {
	case GQ_HOLD_RECLAIM:	/* in quota: its own text */
		return job->waits_for * 2 + (job->band == GQ_BAND_IN_QUOTA);
	case GQ_HOLD_ROOM:
		return job->waits_for;
	case GQ_HOLD_DEPT_LIMIT:
		return gq_view_project(view, job->project)->department;
	default:
		return job->project;
	}
}

/* The reclaim hold's text: GPUs kept for a moved job's restart, or a
 * reclaim in flight.  A gang's reclaim holds in-quota jobs too, so its
 * text says why (`who`). */
static char *_reclaim_text(const gq_view_t *view, const gq_job_t *job)
{
	const gq_job_t *er = gq_view_job(view, job->waits_for);
	const gq_project_t *pr = er ? gq_view_project(view, er->project) : NULL;
	const char *who = "; work outside quotas waits";
	int wait;

	/* a moved job that reclaims itself: its reclaim's text */
	if ((wait = gq_state_landing(job->waits_for, NULL)) &&
	    !gq_state_reclaiming(job->waits_for))
		return gq_xprintf(GQ_HOLD_PREFIX " GPUs are kept for job %u of %s, moved to make room, while it restarts%s until it starts (at most %d s)",
				  job->waits_for, pr ? pr->name : "?", who, wait);
	if (job->band == GQ_BAND_IN_QUOTA)	/* for a gang */
		who = ", which needs every GPU freed on its nodes; jobs that could start there wait";
	return gq_xprintf(GQ_HOLD_PREFIX " GPUs are being reclaimed for job %u of %s%s until it starts (at most %d s)",
			  job->waits_for, pr ? pr->name : "?", who,
			  gq_state_reclaim_wait(job->waits_for));
}

/* The squeue reason of `job`'s hold, formatted (caller frees); NULL for
 * no hold gpuquota writes. */
static char *_hold_text(const gq_view_t *view, const gq_job_t *job,
			const char *pool)
{
	char in[GQ_POOL_TEXT_MAX] = "";
	const gq_project_t *p = gq_view_project(view, job->project);
	const gq_dept_t *d = gq_view_dept(view, p->department);

	if (pool)
		snprintf(in, sizeof(in), " in pool %s", pool);
	switch (job->hold) {
	case GQ_HOLD_LIMIT:
		return gq_xprintf(GQ_HOLD_PREFIX " project %s would pass its gpu_limit%s (%.0f GPU%s)",
				      p->name, in, p->limit, _plural(p->limit));
	case GQ_HOLD_DEPT_LIMIT:
		return gq_xprintf(GQ_HOLD_PREFIX " department %s would pass its gpu_limit%s (%.0f GPU%s)",
				      d ? d->name : "?", in, d ? d->limit : 0,
				      _plural(d ? d->limit : 0));
	case GQ_HOLD_NOT_REQUEUEABLE:
		return gq_xprintf(GQ_HOLD_PREFIX " job cannot be requeued, so it waits to fit in the quota of %s%s (%.0f GPU%s)",
				      p->name, in, p->quota, _plural(p->quota));
	case GQ_HOLD_BUDGET:
		return gq_xprintf(GQ_HOLD_PREFIX " project %s lost %.1f GPU-hours to requeues in the last %d h (requeue budget %g), so its work waits to fit in its quota%s (%.0f GPU%s) instead of borrowing",
				      p->name, p->lost,
				      gq_state_budget_window() / 3600,
				      p->budget, in, p->quota,
				      _plural(p->quota));
	case GQ_HOLD_RECLAIM:
		return _reclaim_text(view, job);
	case GQ_HOLD_ROOM:
		return gq_room_hold_text(view, job->waits_for);
	default:
		return NULL;
	}
}

/* The text of job's hold, from the memo when it has it (NULL: none). */
static const char *_memo_text(const gq_view_t *view, const gq_job_t *job,
			      const char *pool)
{
	uint32_t key = _hold_key(view, job);

	if (batch.memo.text && batch.memo.hold == job->hold &&
	    batch.memo.key == key && batch.memo.view == view &&
	    batch.memo.pool == pool)
		return batch.memo.text;
	xfree(batch.memo.text);
	batch.memo.hold = job->hold;
	batch.memo.key = key;
	batch.memo.view = view;
	batch.memo.pool = pool;
	return batch.memo.text = _hold_text(view, job, pool);
}

/* The text of job's hold: the batch's memo, or (outside a batch) made
 * for it into *own, which the caller frees. */
static const char *_text(const gq_view_t *view, const gq_job_t *job,
			 const char *pool, char **own)
{
	*own = NULL;
	if (batch.memo.on)
		return _memo_text(view, job, pool);
	return *own = _hold_text(view, job, pool);
}

const char *gq_hold_text(const gq_view_t *view, const gq_job_t *job,
			 const char *pool, char **own)
{
	return _text(view, job, pool, own);
}

bool gq_hold_written(const job_record_t *job_ptr, const gq_view_t *view,
		     const gq_job_t *job, const char *pool)
{
	char *own;
	const char *text;
	bool same;

	if (job_ptr->priority || job_ptr->state_reason != WAIT_HELD)
		return false;
	text = _text(view, job, pool, &own);
	same = text && !xstrcmp(job_ptr->state_desc, text);
	xfree(own);
	return same;
}

/*
 * Out of memory for a hold's text: held all the same (a limit comes
 * first), without a text of its own, and noted as gpuquota's
 * (gq_hold_lost) until a pass writes the hold again or releases it.
 */
static void _hold_without_text(job_record_t *job_ptr)
{
	error("gpuquota: hold %pJ: out of memory for its reason; held without one",
	      job_ptr);
	if (!gq_facts_held_by_us(job_ptr->state_reason,
				 job_ptr->state_desc)) {
		xfree(job_ptr->state_desc);
		gq_hold_note_release(job_ptr->job_id);
	}
	job_ptr->priority = 0;
	job_ptr->state_reason = WAIT_HELD;
	if (&last_job_update)
		last_job_update = time(NULL);
}

void gq_write_hold(job_record_t *job_ptr, const gq_view_t *view,
		   const gq_job_t *job, const char *pool)
{
	char *own, *desc;
	const char *text = _text(view, job, pool, &own);

	if (!text && job->hold != GQ_HOLD_NONE)
		_hold_without_text(job_ptr);
	if (!text)
		return;
	if (job_ptr->state_reason == WAIT_HELD &&
	    !xstrcmp(job_ptr->state_desc, text)) {
		/* the same hold; a priority Slurm's main cycle put back
		 * (gq_facts_held_by_us) goes back to 0 */
		_forget(job_ptr->job_id);
		xfree(own);
		if (job_ptr->priority) {
			debug("gpuquota: hold %pJ again (Slurm's scheduling cycle had put its priority back)",
			      job_ptr);
			job_ptr->priority = 0;
			if (&last_job_update)
				last_job_update = time(NULL);
		}
		return;
	}
	if (!(desc = own ? own : gq_xstrdup(text))) {
		_hold_without_text(job_ptr);
		return;
	}
	if (gq_hold_count_line(false))
		info("gpuquota: hold %pJ: %s", job_ptr, desc);
	else
		debug("gpuquota: hold %pJ: %s", job_ptr, desc);
	/* a new hold, not a new reason for a held job, is counted */
	if (gq_hold_lost(job_ptr))
		_forget(job_ptr->job_id);
	else if (!gq_facts_held_by_us(job_ptr->state_reason,
				      job_ptr->state_desc))
		gq_metrics_hold(gq_state_metrics(), job->hold);
	job_ptr->priority = 0;
	job_ptr->state_reason = WAIT_HELD;
	xfree(job_ptr->state_desc);
	job_ptr->state_desc = desc;
	if (&last_job_update)
		last_job_update = time(NULL);
}

void gq_hold_new_array(job_record_t *job_ptr)
{
	info("gpuquota: hold %pJ: %s", job_ptr, GQ_HOLD_NEW_ARRAY);
	job_ptr->priority = 0;
	job_ptr->state_reason = WAIT_HELD;
	xfree(job_ptr->state_desc);
	/* out of memory: held without a text, noted as gpuquota's */
	if (!(job_ptr->state_desc = gq_xstrdup(GQ_HOLD_NEW_ARRAY)))
		gq_hold_note_release(job_ptr->job_id);
	if (&last_job_update)
		last_job_update = time(NULL);
}

void gq_write_unhold(job_record_t *job_ptr)
{
	_forget(job_ptr->job_id);
	job_ptr->state_reason = WAIT_NO_REASON;
	xfree(job_ptr->state_desc);
}


/*
 * The hold job_ptr's answer in `pools` gives it (gq_pools_answer: its home
 * pool's, or another pool's it lists), when of kind `only` (GQ_HOLD_NONE:
 * any) and the job has a priority to take away; NULL otherwise.
 */
static const gq_job_t *_hold_again_of(const gq_pools_t *pools,
				      job_record_t *job_ptr, gq_hold_t only,
				      int *k)
{
	const gq_job_t *job;

	if (!IS_JOB_PENDING(job_ptr) || !job_ptr->priority ||
	    !(job = gq_pools_answer(pools, job_ptr->job_id, k)) ||
	    !job->hold || (only != GQ_HOLD_NONE && job->hold != only))
		return NULL;
	return job;
}

int gq_hold_again(const gq_pools_t *pools, gq_hold_t only, const char *what)
{
	int k, i, n = 0;

	/* observe mode: nothing held (write_slurm.h, gq_write_for_mode) */
	if (!job_list || !pools || !gq_state_acts())
		return 0;
	gq_hold_log_begin();
	for (k = 0; k < pools->n; k++) {
		const gq_view_t *v = pools->view[k];

		for (i = 0; i < gq_view_njobs(v); i++) {
			const gq_job_t *job = gq_view_job_at(v, i);
			job_record_t *job_ptr;
			int at;

			/* a job held at home and by a shadow is met twice:
			 * the second time it has no priority */
			if (!job->hold ||
			    !(job_ptr = find_job_record(job->in.id)) ||
			    !(job = _hold_again_of(pools, job_ptr, only, &at)))
				continue;
			gq_write_hold(job_ptr, pools->view[at], job,
				      pools->name[at]);
			n++;
		}
	}
	gq_hold_log_end(what);
	return n;
}
