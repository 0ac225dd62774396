/*
 * write_slurm.c - holds, releases, reasons and priorities back into
 * Slurm's job records, and what of them observe mode applies (see
 * write_slurm.h).
 */
#include <string.h>

#include "shared/slurm_compat.h"

#include "state/state.h"
#include "core/view.h"
#include "plugins/array_throttle.h"
#include "plugins/grace.h"
#include "plugins/hold.h"
#include "plugins/multifactor.h"
#include "plugins/read_slurm.h"
#include "plugins/room_wait_text.h"
#include "plugins/xalloc.h"
#include "plugins/write_slurm.h"
#include "shared/job_facts.h"

/* slurmctld's own data: absent (NULL) when a client command loads us */
#pragma weak job_list
#pragma weak last_job_update

/* what follows Slurm's reason in the texts _explain writes */
#define GQ_EXPLAIN_MARK ", gpuquota: "

/*
 * Is the text this job's reason already has the one it would get: the
 * last pass wrote it for the same band and numbers, under the same reason?
 * Then nothing is formatted (formatting every pending job's text every
 * pass would cost more than the pass itself at 100 000 jobs).  O(1).
 */
static bool _explained(job_record_t *job_ptr, const gq_view_t *prev,
		       const gq_view_t *view, const gq_job_t *job,
		       const char *why)
{
	const gq_job_t *was = prev ? gq_view_job(prev, job->in.id) : NULL;
	const gq_project_t *p, *pw;
	size_t n;

	/* the job freed GPUs are kept for, or were: one per pool; a job
	 * waiting for a loan (its text counts down) */
	if (gq_view_saved_for(view) == job->in.id ||
	    (prev && gq_view_saved_for(prev) == job->in.id) || job->patient ||
	    (was && was->patient))
		return false;
	if (!was || was->band != job->band || was->cum != job->cum ||
	    was->roomless != job->roomless || !job_ptr->state_desc)
		return false;
	/* every text _explain writes starts "<why>, gpuquota: " (a text
	 * that does not is formatted and compared: the same outcome) */
	n = strlen(why);
	if (strncmp(job_ptr->state_desc, why, n) ||
	    strncmp(job_ptr->state_desc + n, GQ_EXPLAIN_MARK,
		    sizeof(GQ_EXPLAIN_MARK) - 1))
		return false;
	p = gq_view_project(view, job->project);
	pw = gq_view_project(prev, was->project);
	return pw && (p->name == pw->name || !strcmp(p->name, pw->name)) &&
	       p->quota == pw->quota && p->share == pw->share;
}

/*
 * A job waiting for a loan that ends soon (patience.h): "; waiting up to
 * N s for team-a's job 17 to end instead of requeueing it"; "" otherwise.
 */
static const char *_patience(const gq_view_t *view, const gq_job_t *job,
			     char *buf, size_t n)
{
	const gq_job_t *loan = job->patient ?
			       gq_view_job(view, job->waits_for) : NULL;
	const gq_project_t *lp;
	long left;

	if (!loan || !(lp = gq_view_project(view, loan->project)))
		return "";
	left = (long)(loan->in.ends_by - time(NULL));
	snprintf(buf, n, "; waiting up to %ld s for %s's job %u to end instead of requeueing it",
		 left > 0 ? left : 0, lp->name, loan->in.id);
	return buf;
}

/*
 * What follows an in-quota job's numbers: that no node can give it room
 * (it is tried after the in-quota jobs that can start); when a node is
 * saved for it (docs/MODEL.md "The saved node"), which and why, and
 * whether GPUs that come free there are kept for it (the room wait); else
 * _patience's text.
 */
static const char *_in_quota_tail(const gq_view_t *view, const gq_job_t *job,
				  char *buf, size_t n)
{
	bool saved = gq_view_saved_for(view) == job->in.id;
	bool kept = gq_view_kept_for(view) == job->in.id;
	const gq_room_node_t *at = gq_view_saved_node(view);
	char why[192], names[160];
	int w;

	if (!saved && !job->roomless)
		return _patience(view, job, buf, n);
	w = snprintf(buf, n, "; %s can free %u GPUs for it within the other projects' floors yet",
		     job->in.nodes > 1 ? "not enough nodes" : "no node",
		     job->in.gpus_per_node);
	if (!saved || w <= 0 || (size_t)w >= n)
		return buf;
	/* why that node: it can start there soonest (room.h) */
	gq_room_why(at, time(NULL), why, sizeof(why));
	if (kept)
		snprintf(buf + w, n - w, ", so GPUs that come free on %s are kept for it (at most %d s): it can start there soonest (%s)",
			 gq_room_node_name(at->node), gq_state_room_wait(),
			 why);
	else if (gq_room_saved_names(view, names, sizeof(names)) > 1) {
		/* a gang's nodes; cut short when too long for buf */
		if (snprintf(buf + w, n - w, ", so %s are saved for it (jobs that can start elsewhere take no victim there): it can start there soonest (%s: %s)",
			     names, gq_room_node_name(at->node), why) < 0)
			buf[w] = '\0';
	} else
		snprintf(buf + w, n - w, ", so %s is saved for it (jobs that can start elsewhere take no victim there): it can start there soonest (%s)",
			 gq_room_node_name(at->node), why);
	return buf;
}

/*
 * Why a job in gpuquota's order waits, appended to Slurm's own reason
 * (Priority or Resources) in squeue's reason column.  Slurm clears it when
 * a scheduling attempt fails; the next pass writes it again.  Returns the
 * text to write (xmalloc'd), or NULL when the job has it already or gets
 * none.  Reads only; the text depends on the job's reason, the view and
 * the job, nothing else of its record.
 */
static char *_explain_text(job_record_t *job_ptr, const gq_view_t *prev,
			   const gq_view_t *view, const gq_job_t *job,
			   const char *pool)
{
	const gq_project_t *p = gq_view_project(view, job->project);
	const char *why = job_state_reason_string(job_ptr->state_reason);
	char *desc = NULL, in[GQ_POOL_TEXT_MAX] = "", loan[512];

	if (job_ptr->state_reason != WAIT_NO_REASON &&
	    job_ptr->state_reason != WAIT_PRIORITY &&
	    job_ptr->state_reason != WAIT_RESOURCES)
		return NULL;
	if (_explained(job_ptr, prev, view, job, why))
		return NULL;
	if (pool)
		snprintf(in, sizeof(in), " in pool %s", pool);
	switch (job->band) {
	case GQ_BAND_IN_QUOTA:
		desc = gq_xprintf("%s, gpuquota: in quota%s (%s would hold %g of %g)%s",
				      why, in, p->name, job->cum, p->quota,
				      _in_quota_tail(view, job, loan,
						     sizeof(loan)));
		break;
	case GQ_BAND_FAIR_SHARE:
		desc = gq_xprintf("%s, gpuquota: over quota, within fair share%s (%s would hold %g, quota %g, fair share %.1f)%s",
				      why, in, p->name, job->cum, p->quota, p->share,
				      _patience(view, job, loan, sizeof(loan)));
		break;
	case GQ_BAND_OVER:
		desc = gq_xprintf("%s, gpuquota: over fair share, runs on idle GPUs only%s (%s would hold %g, quota %g, fair share %.1f)",
				      why, in, p->name, job->cum, p->quota, p->share);
		break;
	default:
		return NULL;
	}
	/* out of memory (NULL): the text waits for a later pass */
	if (desc && !xstrcmp(job_ptr->state_desc, desc))
		xfree(desc);
	return desc;
}

/* Write `desc` (taken) as the job's reason text; false when it has it. */
static bool _explain(job_record_t *job_ptr, char *desc)
{
	if (!desc || !xstrcmp(job_ptr->state_desc, desc)) {
		xfree(desc);
		return false;
	}
	xfree(job_ptr->state_desc);
	job_ptr->state_desc = desc;
	last_job_update = time(NULL);
	return true;
}

/* an admin's own priority (scontrol update priority=N) is kept */
static void _release(job_record_t *job_ptr, uint32_t prio)
{
	if (gq_hold_count_line(true))
		info("gpuquota: release %pJ", job_ptr);
	else
		debug("gpuquota: release %pJ", job_ptr);
	gq_metrics_release(gq_state_metrics());
	if (!job_ptr->direct_set_prio || !job_ptr->priority)
		gq_mf_write(job_ptr, gq_mf_priority(job_ptr, prio));
	gq_write_unhold(job_ptr);
}

/*
 * A pending job this pass has in no pool (its partition or account changed,
 * or the pools did): gpuquota's hold lifted, whether or not a pass before
 * had the job (after a restart none did), and, with multifactor, the site
 * factor given back (gq_mf_reset_site) of a job the pass before had in a
 * pool; it is ordered as every job outside the pools.  A person's hold
 * (priority 0, not ours) is left as it is.  O(1).
 */
static void _decide_left(job_record_t *job_ptr, const gq_pools_t *prev_pools,
			 gq_write_t *w)
{
	int k;

	/* gpuquota's hold is known by its own mark: the first pass after a
	 * start, which has no pass before, releases it too */
	if (!gq_read_held(job_ptr) &&
	    (!prev_pools || !gq_pools_job(prev_pools, job_ptr->job_id, &k) ||
	     !gq_mf_on() || !job_ptr->priority))
		return;
	w->what = GQ_WRITE_LEFT;
	w->kick = true;
}

/*
 * What gpuquota wrote on a pending job given back (GQ_WRITE_LEFT and
 * GQ_WRITE_UNDO): its hold lifted, and its priority multifactor's (the
 * site factor neutral again; 1 without multifactor); an admin's own
 * priority and a person's hold kept.  A job that left the pools
 * (`observe` false): the release logged.  Observe mode's undo: the
 * release logged within the batch's budget and counted, and the array's
 * %N the user's.  The priority is written on a held job or one with a
 * priority: a job that left the pools is one or the other (_decide_left).
 */
static void _give_back(job_record_t *job_ptr, bool observe, time_t now)
{
	bool held = gq_read_held(job_ptr);

	if (held && !observe)
		info("gpuquota: release %pJ: it left the pools", job_ptr);
	else if (held && gq_hold_count_line(true))
		info("gpuquota: observe: release %pJ: gpuquota holds no job in observe mode",
		     job_ptr);
	if (held && observe)
		gq_metrics_release(gq_state_metrics());
	if (held)
		gq_write_unhold(job_ptr);
	if (observe)
		gq_throttle_release(job_ptr);
	if (!job_ptr->direct_set_prio && (held || job_ptr->priority))
		job_ptr->priority = gq_mf_on() ? gq_mf_reset_site(job_ptr) : 1;
	last_job_update = now;
}

/*
 * The reason text of a decision: `planned` (taken) when it was made for
 * the reason the job still has, else made again; none when the job has
 * it already.
 */
static void _decide_text(job_record_t *job_ptr, const gq_view_t *prev,
			 const gq_view_t *view, const char *pool,
			 char **planned, uint32_t planned_reason,
			 gq_write_t *w)
{
	char *text = NULL;

	if (*planned && planned_reason == job_ptr->state_reason) {
		text = *planned;
		*planned = NULL;
	} else {
		text = _explain_text(job_ptr, prev, view, w->job, pool);
	}
	if (text && !xstrcmp(job_ptr->state_desc, text))
		xfree(text);
	if (!text)
		return;
	w->text = text;
	w->reason = job_ptr->state_reason;
	w->what |= GQ_WRITE_TEXT;
}

/*
 * A job with priority (not held): its band's text and its priority
 * (multifactor's part inside the band's place; an operator's own
 * priority= is kept).
 */
static void _decide_order(job_record_t *job_ptr, const gq_view_t *prev,
			  const gq_view_t *view, const char *pool,
			  char **planned, uint32_t planned_reason,
			  gq_write_t *w)
{
	const gq_job_t *job = w->job;
	uint32_t prio;

	if (job->in.state == GQ_JOB_PENDING)
		_decide_text(job_ptr, prev, view, pool, planned,
			     planned_reason, w);
	prio = gq_mf_priority(job_ptr, job->priority);
	if (job_ptr->direct_set_prio || job_ptr->priority == prio)
		return;
	/* e.g. submitted before the first pass after a restart: it may
	 * reclaim now */
	if (job->in.state == GQ_JOB_PENDING &&
	    gq_band_rose_to_reclaim(job_ptr->priority, job->band))
		w->kick = true;
	w->what |= GQ_WRITE_PRIO;
	w->prio = prio;
}

/* A pending job's answer (gq_write_decide). */
static void _decide(job_record_t *job_ptr, const gq_pools_t *pools,
		    const gq_pools_t *prev_pools, char **planned,
		    uint32_t planned_reason, gq_write_t *w)
{
	const gq_view_t *view, *prev;
	const gq_job_t *job;
	int k, home;

	if (!gq_pools_job(pools, job_ptr->job_id, &home)) {
		_decide_left(job_ptr, prev_pools, w);
		return;
	}
	job = gq_pools_answer(pools, job_ptr->job_id, &k);
	view = pools->view[k];
	/* the pass before, when it had the job's home pool (a reload may
	 * change the pools: then texts are written again) */
	prev = prev_pools && home < prev_pools->n ? prev_pools->view[home] :
						    NULL;
	w->pool = k;
	w->job = job;
	/* its tasks may start in any pool it lists: the fewest any lets */
	if (job_ptr->array_recs) {
		w->what |= GQ_WRITE_THROTTLE;
		w->tasks = gq_pools_tasks_now(pools, job->in.id);
	}
	if (job->hold && (job_ptr->priority || gq_read_held(job_ptr))) {
		if (job_ptr->priority ||
		    !gq_hold_written(job_ptr, view, job, pools->name[k]))
			w->what |= GQ_WRITE_HOLD;
		return;
	}
	if (gq_read_held(job_ptr)) {
		w->what |= GQ_WRITE_RELEASE;
		w->prio = job->priority;
		w->kick = true;
		return;
	}
	if (job->room)
		w->kick = true;
	if (job_ptr->priority)	/* 0: a person's hold */
		_decide_order(job_ptr, prev, view, pools->name[k], planned,
			      planned_reason, w);
}

void gq_write_for_mode(job_record_t *job_ptr, gq_write_t *w)
{
	bool held;

	if (gq_state_acts() || (w->what & GQ_WRITE_LEFT))
		return;
	w->would = w->what;
	w->what = 0;
	w->kick = false;
	xfree(w->text);
	if (!IS_JOB_PENDING(job_ptr) || !w->job)
		return;
	held = gq_read_held(job_ptr);
	/* every job of the pools, on the first pass in observe mode */
	if (held || (!gq_state_observe_undone() &&
		     (job_ptr->priority || job_ptr->array_recs))) {
		w->what = GQ_WRITE_UNDO;
		w->kick = held;
	}
}

void gq_write_decide(job_record_t *job_ptr, const gq_pools_t *pools,
		     const gq_pools_t *prev, gq_write_t *w)
{
	char *planned = w->text;
	uint32_t planned_reason = w->reason;

	memset(w, 0, sizeof(*w));
	w->id = job_ptr->job_id;
	if (IS_JOB_PENDING(job_ptr))
		_decide(job_ptr, pools, prev, &planned, planned_reason, w);
	xfree(planned);
	gq_write_for_mode(job_ptr, w);
}

bool gq_write_apply(job_record_t *job_ptr, const gq_pools_t *pools,
		    gq_write_t *w, time_t now)
{
	if (w->what & GQ_WRITE_LEFT)
		_give_back(job_ptr, false, now);
	if (w->what & GQ_WRITE_UNDO)
		_give_back(job_ptr, true, now);
	if (w->what & GQ_WRITE_THROTTLE)
		gq_throttle_apply(job_ptr, w->job, w->tasks);
	if (w->what & GQ_WRITE_HOLD)
		gq_write_hold(job_ptr, pools->view[w->pool], w->job,
			      pools->name[w->pool]);
	if (w->what & GQ_WRITE_RELEASE) {
		_release(job_ptr, w->prio);
		last_job_update = now;
	}
	if (w->what & GQ_WRITE_TEXT) {
		_explain(job_ptr, w->text);
		w->text = NULL;
	}
	if (w->what & GQ_WRITE_PRIO) {
		gq_mf_write(job_ptr, w->prio);
		last_job_update = now;
	}
	w->what = 0;
	return w->kick;
}

void gq_write_drop(gq_write_t *w)
{
	xfree(w->text);
	w->what = 0;
}

/* Observe mode: "would hold" logged, with the hold's squeue reason. */
static void _log_would_hold(job_record_t *job_ptr, const gq_pools_t *pools,
			    const gq_write_t *w)
{
	char *own;
	const char *text = gq_hold_text(pools->view[w->pool], w->job,
					pools->name[w->pool], &own);

	if (gq_hold_count_line(false))
		info("gpuquota: observe: would hold %pJ (%s)", job_ptr,
		     text ? text : "no text");
	xfree(own);
}

/*
 * Observe mode's log of what enforce would write on a pending job: a
 * hold, a release, an array throttle; one line per job and change of
 * its decision against the pass before (every job on the first pass in
 * observe mode), within the batch's line budget (hold.h).  O(pools).
 */
static void _observe_log(job_record_t *job_ptr, const gq_pools_t *pools,
			 const gq_pools_t *prev, const gq_write_t *w)
{
	const gq_job_t *job = w->job, *was = NULL;
	uint32_t tasks, before = UINT32_MAX;
	int k;

	if (gq_state_acts() || !job || (w->what & GQ_WRITE_LEFT))
		return;
	if (gq_state_observe_undone() && prev)
		was = gq_pools_answer(prev, job->in.id, &k);
	if (job->hold && (!was || was->hold != job->hold ||
			  was->waits_for != job->waits_for))
		_log_would_hold(job_ptr, pools, w);
	else if (!job->hold && was && was->hold && gq_hold_count_line(true))
		info("gpuquota: observe: would release %pJ", job_ptr);
	if (!job_ptr->array_recs || job->hold)
		return;
	tasks = gq_pools_tasks_now(pools, job->in.id);
	if (was && !was->hold)
		before = gq_pools_tasks_now(prev, job->in.id);
	if (tasks != before && tasks < job_ptr->array_recs->task_cnt)
		info("gpuquota: observe: would throttle %pJ: %u more task%s may start before the next pass",
		     job_ptr, tasks, tasks == 1 ? "" : "s");
}

bool gq_write_pass(const gq_pools_t *pools, const gq_pools_t *prev_pools,
		   time_t now)
{
	list_itr_t *it;
	job_record_t *job_ptr;
	bool kick = false;

	if (!job_list)
		return false;
	gq_throttle_pass_begin();
	gq_hold_log_begin();
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it))) {
		gq_write_t w = { 0 };

		gq_grace_note(job_ptr, now);
		gq_write_decide(job_ptr, pools, prev_pools, &w);
		_observe_log(job_ptr, pools, prev_pools, &w);
		if (gq_write_apply(job_ptr, pools, &w, now))
			kick = true;
	}
	list_iterator_destroy(it);
	gq_hold_log_end("pass");
	gq_throttle_pass_end();
	gq_state_set_observe_undone(!gq_state_acts());
	return kick;
}

/* Drop what a plan holds (texts not written), keep its memory. */
static void _plan_clear(gq_write_plan_t *plan)
{
	int i;

	for (i = 0; i < plan->n; i++)
		gq_write_drop(&plan->jobs[i]);
	plan->n = 0;
	plan->kick = false;
}

/* Room for one more answer in `plan`; -1 when out of memory. */
static int _plan_room(gq_write_plan_t *plan)
{
	int cap = plan->cap ? plan->cap * 2 : 256;
	gq_write_t *jobs;

	if (plan->n < plan->cap)
		return 0;
	if (!(jobs = realloc(plan->jobs, sizeof(*jobs) * cap)))
		return -1;
	plan->jobs = jobs;
	plan->cap = cap;
	return 0;
}

int gq_write_plan(gq_write_plan_t *plan, const gq_pools_t *pools,
		  const gq_pools_t *prev_pools, time_t now)
{
	list_itr_t *it;
	job_record_t *job_ptr;
	int rc = 0;

	_plan_clear(plan);
	if (!job_list)
		return 0;
	gq_hold_log_begin();	/* hold texts made once (hold.c) */
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it))) {
		gq_write_t w = { 0 };

		gq_grace_note(job_ptr, now);
		gq_write_decide(job_ptr, pools, prev_pools, &w);
		_observe_log(job_ptr, pools, prev_pools, &w);
		if (w.kick)
			plan->kick = true;
		if (!w.what)
			continue;
		if ((rc = _plan_room(plan))) {
			gq_write_drop(&w);
			break;
		}
		plan->jobs[plan->n++] = w;
	}
	list_iterator_destroy(it);
	gq_hold_log_end("plan");
	return rc;
}

bool gq_write_planned(gq_write_plan_t *plan, const gq_pools_t *pools,
		      const gq_pools_t *prev_pools, time_t now)
{
	bool kick = plan->kick;
	int i;

	gq_throttle_pass_begin();
	gq_hold_log_begin();
	for (i = 0; i < plan->n; i++) {
		gq_write_t *w = &plan->jobs[i];
		job_record_t *job_ptr = find_job_record(w->id);

		if (!job_ptr)
			continue;	/* gone: _plan_clear frees its text */
		gq_write_decide(job_ptr, pools, prev_pools, w);
		if (gq_write_apply(job_ptr, pools, w, now))
			kick = true;
	}
	gq_hold_log_end("pass");
	gq_throttle_pass_end();
	_plan_clear(plan);
	gq_state_set_observe_undone(!gq_state_acts());
	return kick;
}

void gq_write_plan_note_started(const gq_write_plan_t *plan)
{
	job_record_t *job_ptr;
	int i;

	for (i = 0; i < plan->n; i++)
		if ((job_ptr = find_job_record(plan->jobs[i].id)) &&
		    !IS_JOB_PENDING(job_ptr) && !IS_JOB_FINISHED(job_ptr))
			gq_state_job_started(job_ptr->job_id);
}

void gq_write_plan_free(gq_write_plan_t *plan)
{
	_plan_clear(plan);
	free(plan->jobs);
	memset(plan, 0, sizeof(*plan));
}
