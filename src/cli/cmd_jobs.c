/*
 * cmd_jobs.c - `gpuquota jobs`: a row per active job of the pools shown,
 * with its project, GPUs and quota use (running) or band (pending), as
 * a padded table, parsable ('|'), or JSON; filtered by -A accounts,
 * -j job ids and --pool pools, comma lists as squeue takes them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#define GQ_SLURM_PUBLIC_ONLY
#include "shared/slurm_compat.h"
#include "cli/cli.h"
#include "core/band.h"
#include "shared/job_facts.h"
#include "tools/cli_text.h"

static const char *_job_state(const slurm_job_info_t *j)
{
	/* only active jobs are listed; the public API has no name table */
	switch (j->job_state & JOB_STATE_BASE) {
	case JOB_PENDING:
		return "PENDING";
	case JOB_RUNNING:
		return "RUNNING";
	case JOB_SUSPENDED:
		return "SUSPENDED";
	default:
		return "DONE";
	}
}

/* running: in-quota / over-quota; pending: its band, or "would hold"
 * in observe mode where enforce holds it */
static const char *_quota_use(const gq_cli_t *c, const gq_job_t *job)
{
	if (job->in.state == GQ_JOB_RUNNING)
		return job->over_quota ? "over-quota" : "in-quota";
	if (job->hold && gq_cli_observe(c))
		return "would hold";
	return gq_band_name(job->band);
}

/*
 * The priority slurmctld's plugin gives a pending job: 0 while gpuquota
 * holds it, and a job a user or an admin holds keeps its 0; in observe
 * mode Slurm's own.
 */
static uint32_t _priority(const gq_cli_t *c, const slurm_job_info_t *j,
			  const gq_job_t *job)
{
	double w = c->api.mf_weights;

	if (gq_cli_observe(c))	/* Slurm's own, untouched */
		return j->priority;
	if (job->hold)
		return 0;
	if (j->priority == 0 &&
	    !gq_facts_held_by_us(j->state_reason, j->state_desc))
		return 0;
	if (w < 0)
		return job->priority;
	/* multifactor's part inside the band's place, as the plugin does */
	return gq_band_compose(job->priority,
			       gq_priority_part(j->priority, j->site_factor),
			       w, gq_band_room(w));
}

/*
 * PrivateData=jobs: a pending job's band as slurmctld gave it (its
 * priority; NULL: held or not classified), not one computed from the
 * caller's own jobs alone.
 */
static const char *_slurm_band(const slurm_job_info_t *j)
{
	if (j->priority <= 1)
		return NULL;
	return gq_band_name(gq_band_from_priority(j->priority));
}

/*
 * A job name as a table cell: users choose it, so control characters
 * (newlines, terminal escapes) become '?' and cannot break the table or
 * the terminal.  JSON output escapes them instead.
 */
static const char *_printable(const char *s, char *buf, size_t n)
{
	size_t i;

	for (i = 0; s && s[i] && i + 1 < n; i++)
		buf[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' :
									s[i];
	buf[i] = '\0';
	return buf;
}

/* NAME JOBID TYPE STATE PROJECT [POOL] NODES GPUS QUOTA */
static const gq_col_t _cols[] = {
	{ 14, false, 14 }, { 8, true, 0 }, { 11, false, 0 }, { 9, false, 0 },
	{ 16, false, 16 }, { 10, false, 10 }, { 10, false, 10 },
	{ 4, true, 0 }, { 0, false, 0 },
};
#define GQ_POOL_COL 5
#define GQ_NCOLS ((int)(sizeof(_cols) / sizeof(_cols[0])))

/* One line: the POOL cell left out without pools. */
static void _line(const gq_cli_opts_t *o, bool pools, const char **cells)
{
	gq_col_t cols[GQ_NCOLS];
	int i, n = 0;

	for (i = 0; i < GQ_NCOLS; i++) {
		if (i == GQ_POOL_COL && !pools)
			continue;
		cols[n] = _cols[i];
		cells[n++] = cells[i];
	}
	gq_table_row(stdout, o->parsable, cols, cells, n);
}

/* A job's line; name: its printable name, quota: its last cell. */
static void _job_line(const gq_cli_opts_t *o, const slurm_job_info_t *j,
		      const char *project, const char *pool, uint32_t gpus,
		      const char *quota)
{
	char name[64], id[16], g[16];
	const char *cells[GQ_NCOLS] = {
		_printable(j->name, name, sizeof(name)), id,
		j->batch_flag ? "batch" : "interactive", _job_state(j),
		project, pool, j->nodes && *j->nodes ? j->nodes : "-", g,
		quota,
	};

	snprintf(id, sizeof(id), "%u", j->job_id);
	snprintf(g, sizeof(g), "%u", gpus);
	_line(o, pool != NULL, cells);
}

/*
 * One of the caller's jobs when Slurm hides the others (PrivateData=jobs):
 * what Slurm says of it; a running job's quota use and whether it may be
 * reclaimed depend on jobs the caller cannot see, so are not shown ("-",
 * JSON null).
 */
static void _job_private(const gq_cli_opts_t *o, const slurm_job_info_t *j,
			 const gq_job_t *job, const gq_project_t *p,
			 const char *pool, json_object *arr)
{
	bool pending = (j->job_state & JOB_STATE_BASE) == JOB_PENDING;
	const char *band = pending ? _slurm_band(j) : NULL;
	const char *type = j->batch_flag ? "batch" : "interactive";
	bool held = gq_facts_held_by_us(j->state_reason, j->state_desc);
	json_object *x;

	if (!o->json) {
		_job_line(o, j, p->name, pool, job->in.gpus, band ? band : "-");
		return;
	}
	x = json_object_new_object();
	json_object_object_add(x, "name", json_object_new_string(j->name ? j->name : ""));
	json_object_object_add(x, "job_id", json_object_new_int64(j->job_id));
	json_object_object_add(x, "type", json_object_new_string(type));
	json_object_object_add(x, "state", json_object_new_string(_job_state(j)));
	json_object_object_add(x, "project", json_object_new_string(p->name));
	json_object_object_add(x, "account", json_object_new_string(j->account ? j->account : ""));
	json_object_object_add(x, "nodes", json_object_new_string(j->nodes ? j->nodes : ""));
	json_object_object_add(x, "gpus", json_object_new_int64(job->in.gpus));
	json_object_object_add(x, "tasks", json_object_new_int64(job->in.tasks));
	json_object_object_add(x, "quota", band ? json_object_new_string(band) : NULL);
	json_object_object_add(x, "band", band ? json_object_new_string(band) : NULL);
	json_object_object_add(x, "priority", pending ?
			       json_object_new_int64(j->priority) : NULL);
	json_object_object_add(x, "held_by_gpuquota", json_object_new_boolean(pending && held));
	json_object_object_add(x, "preemptible", NULL);
	json_object_array_add(arr, x);
}

static json_object *_job_json(const gq_cli_t *c, const slurm_job_info_t *j,
			      const gq_job_t *job, const gq_project_t *p,
			      const char *pool)
{
	json_object *o = json_object_new_object();
	bool pending = job->in.state != GQ_JOB_RUNNING;

	json_object_object_add(o, "name", json_object_new_string(j->name ? j->name : ""));
	json_object_object_add(o, "job_id", json_object_new_int64(j->job_id));
	json_object_object_add(o, "type", json_object_new_string(j->batch_flag ? "batch" : "interactive"));
	json_object_object_add(o, "state", json_object_new_string(_job_state(j)));
	json_object_object_add(o, "project", json_object_new_string(p->name));
	if (pool)
		json_object_object_add(o, "pool", json_object_new_string(pool));
	json_object_object_add(o, "account", json_object_new_string(j->account ? j->account : ""));
	json_object_object_add(o, "nodes", json_object_new_string(j->nodes ? j->nodes : ""));
	json_object_object_add(o, "gpus", json_object_new_int64(job->in.gpus));
	json_object_object_add(o, "tasks", json_object_new_int64(job->in.tasks));
	json_object_object_add(o, "quota", json_object_new_string(_quota_use(c, job)));
	json_object_object_add(o, "band", pending ?
			       json_object_new_string(gq_band_name(job->band)) : NULL);
	json_object_object_add(o, "priority", pending ?
			       json_object_new_int64(_priority(c, j, job)) : NULL);
	json_object_object_add(o, "multifactor", pending && c->api.mf_weights > 0 ?
			       json_object_new_int64(job->in.site_order) : NULL);
	json_object_object_add(o, "held_by_gpuquota", json_object_new_boolean(pending && job->hold && !gq_cli_observe(c)));
	json_object_object_add(o, "would_hold", json_object_new_boolean(pending && job->hold && gq_cli_observe(c)));
	json_object_object_add(o, "preemptible", json_object_new_boolean(job->victim != 0));
	return o;
}

/* The QUOTA cell: a pending job's order inside its band follows. */
static void _job_text(const gq_cli_t *c, const gq_cli_opts_t *o,
		      const slurm_job_info_t *j, const gq_job_t *job,
		      const gq_project_t *p, const char *pool)
{
	char quota[64];

	/* the order inside its band: multifactor's part first */
	if (job->in.state != GQ_JOB_RUNNING && c->api.mf_weights > 0)
		snprintf(quota, sizeof(quota), "%s, multifactor %" PRId64,
			 _quota_use(c, job), job->in.site_order);
	else
		snprintf(quota, sizeof(quota), "%s", _quota_use(c, job));
	_job_line(o, j, p->name, pool, job->in.gpus, quota);
}

/*
 * Is job j in -j's list?  An item is a job id, which also names each
 * task of an array with that id (as squeue -j), or ARRAY_TASK.
 */
static bool _listed(const char *list, const slurm_job_info_t *j)
{
	char item[32], id[32];
	size_t pos = 0;

	if (!list)
		return true;
	snprintf(id, sizeof(id), "%u_%u", j->array_job_id, j->array_task_id);
	while (gq_list_next(list, &pos, item, sizeof(item))) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(item, &end, 10);
		if (!*end && !errno && (v == j->job_id ||
		    (j->array_job_id && v == j->array_job_id)))
			return true;
		if (j->array_task_id != NO_VAL && !strcmp(item, id))
			return true;
	}
	return false;
}

/* The header line, unless --noheader or JSON. */
static void _head(const gq_cli_opts_t *o, bool pools)
{
	const char *h[GQ_NCOLS] = { "NAME", "JOBID", "TYPE", "STATE",
				    "PROJECT", "POOL", "NODES", "GPUS",
				    "QUOTA" };

	if (!o->json && !o->noheader)
		_line(o, pools, h);
}

int gq_cmd_jobs(gq_cli_t *c, const gq_cli_opts_t *o)
{
	json_object *arr = json_object_new_array();
	bool pools = c->pool != NULL;
	uint32_t i;

	gq_cli_mode_line(c, o);
	_head(o, pools);
	for (i = 0; i < c->api.jobs->record_count; i++) {
		slurm_job_info_t *j = &c->api.jobs->job_array[i];
		int k = -1;
		const gq_job_t *job = gq_pools_job(c->pools, j->job_id, &k);
		const gq_project_t *p;
		const char *pool;

		if (!job || !gq_cli_pool_shown(c, k) || !_listed(o->jobs, j) ||
		    (o->accounts && (!j->account ||
				     !gq_list_has(o->accounts, j->account, true))))
			continue;
		p = gq_view_project(c->pools->view[k], job->project);
		pool = pools ? c->pools->name[k] : NULL;
		if (c->private_jobs)
			_job_private(o, j, job, p, pool, arr);
		else if (o->json)
			json_object_array_add(arr, _job_json(c, j, job, p, pool));
		else
			_job_text(c, o, j, job, p, pool);
	}
	gq_cli_emit(c, o->json, "jobs", arr, NULL, NULL);
	return 0;
}
