/*
 * grace.c - the warning before requeue's decisions (see grace.h).
 */
#include <string.h>

#include "core/band.h"
#include "core/grace.h"
#include "core/view.h"

int gq_grace_of(const gq_config_t *cfg, const char *project)
{
	int i;

	if (!cfg)
		return GQ_DEFAULT_GRACE_TIME;
	for (i = 0; project && i < cfg->nprojects; i++)
		if (!strcmp(cfg->projects[i].name, project))
			return cfg->projects[i].grace_time != GQ_UNSET ?
				       cfg->projects[i].grace_time :
				       cfg->settings.grace_time;
	return cfg->settings.grace_time;
}

int gq_grace_of_job(const gq_config_t *cfg, const gq_pools_t *pools,
		    uint32_t id)
{
	const gq_job_t *job;
	int k;

	if (!(job = gq_pools_job(pools, id, &k)))
		return gq_grace_of(cfg, NULL);
	return gq_grace_of(cfg,
			   gq_view_project(pools->view[k], job->project)->name);
}

bool gq_grace_in(const gq_grace_job_t *j)
{
	return j->preempt_time && j->state == GQ_GRACE_RUNNING;
}

gq_grace_end_t gq_grace_end(const gq_grace_job_t *j, int64_t now)
{
	if (!j->preempt_time || !j->batch)
		return GQ_GRACE_NOT_OURS;
	if (j->state == GQ_GRACE_RUNNING)
		return now >= j->end_time ? GQ_GRACE_TIME_UP : GQ_GRACE_RUNS;
	/* not a user's scancel, a timeout or a node failure (Slurm's own) */
	return j->state == GQ_GRACE_EXITED ? GQ_GRACE_EXIT : GQ_GRACE_NOT_OURS;
}

bool gq_grace_over(const gq_grace_job_t *j, int64_t now)
{
	gq_grace_end_t e = gq_grace_end(j, now);

	return e == GQ_GRACE_TIME_UP || e == GQ_GRACE_EXIT;
}

int64_t gq_grace_run_end(const gq_grace_job_t *j, int64_t now)
{
	bool exited = j->state != GQ_GRACE_RUNNING;

	return exited && j->end_time > 0 && j->end_time <= now ? j->end_time :
								 now;
}

int64_t gq_grace_requeued_at(const gq_grace_job_t *j, int64_t at,
			     int64_t now)
{
	/* the end its requeue set, kept while it completes */
	if (j->end_time >= at && j->end_time <= now)
		return j->end_time;
	/* the submit time Slurm gives it once completed */
	if (j->submit_time >= at && j->submit_time <= now)
		return j->submit_time;
	return now;
}

gq_grace_look_t gq_grace_look(const gq_grace_job_t *j, uint32_t restarts,
			      int64_t now)
{
	if (j && j->restarts != restarts)
		return GQ_GRACE_SETTLE;
	if (!j || !(j->state == GQ_GRACE_RUNNING ||
		    j->state == GQ_GRACE_COMPLETING ||
		    j->state == GQ_GRACE_PENDING || gq_grace_over(j, now)))
		return GQ_GRACE_FORGET;
	return GQ_GRACE_KEEP;
}

int64_t gq_grace_settled_end(int64_t at, int64_t end)
{
	return end > at ? end : at;
}

bool gq_grace_warned_before(const gq_grace_job_t *j, bool warned_comment)
{
	return j->state == GQ_GRACE_RUNNING && j->preempt_time &&
	       warned_comment;
}

bool gq_grace_keep_again(uint32_t id, const gq_grace_job_t *j, bool kept,
			 const gq_grace_comment_t *c, const gq_pools_t *pools,
			 gq_grace_kept_t *out)
{
	const gq_job_t *ee;
	int k;

	if (!j || j->state != GQ_GRACE_RUNNING || !j->preempt_time || kept ||
	    !pools || !(ee = gq_pools_job(pools, id, &k)) || !c)
		return false;
	memset(out, 0, sizeof(*out));
	out->at = j->preempt_time;
	out->preemptor = c->preemptor;
	out->preemptor_project = c->project;
	out->fair_share = !strcmp(c->band, gq_band_name(GQ_BAND_FAIR_SHARE));
	out->moved = !strncmp(c->band, "moved", 5);
	out->pool = pools->name[k];
	out->victim = id;
	out->victim_project = gq_view_project(pools->view[k], ee->project)->name;
	out->gpus = ee->in.gpus;
	out->start = ee->in.start_time;
	out->restarts = j->restarts;
	return true;
}

bool gq_grace_pausing(int grace, bool left, int64_t elapsed, int settle)
{
	return grace > 0 && !left && elapsed < grace + settle;
}
