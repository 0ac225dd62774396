/*
 * cmd_projects.c - `gpuquota projects` (and the table of `check`): a row
 * per department and project of each pool shown, as a padded table,
 * parsable ('|'), or JSON.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#define GQ_SLURM_PUBLIC_ONLY
#include "shared/slurm_compat.h"
#include "cli/cli.h"
#include "cli/metrics.h"
#include "tools/cli_text.h"

/* Room for one number of the projects table, and for one row's label. */
#define GQ_NUM_MAX 32
#define GQ_LABEL_MAX 64

typedef struct {
	const char *name;
	const char *department;	/* projects: their department, or NULL */
	bool configured;
	bool hidden;		/* PrivateData=jobs: use not shown */
	double quota, limit, weight, share;
	uint32_t alloc;
	uint64_t pending;
	double usage;		/* projects: GPU-seconds above quota, decayed;
				 * NAN: not shown (no usage_half_life) */
	double budget, lost;	/* projects: requeue budget and loss in
				 * its window, GPU-hours; budget 0: none */
} gq_row_t;

static const char *_state(const gq_row_t *r)
{
	if (r->hidden)
		return "-";
	/* its work beyond quota waits (docs/MODEL.md "Requeue budget") */
	if (r->budget > 0 && r->lost >= r->budget && r->alloc >= r->quota)
		return "at-budget";
	return gq_quota_state(r->alloc, r->quota);
}

static void _fmt_num(char *buf, size_t n, double v)
{
	if (isinf(v))
		snprintf(buf, n, "-");
	else if (fabs(v - round(v)) < 1e-9)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.2f", v);
}

static json_object *_row_json(const gq_row_t *r, bool project)
{
	json_object *o = json_object_new_object();
	double over = r->alloc > r->quota ? r->alloc - r->quota : 0;

	json_object_object_add(o, "name", json_object_new_string(r->name));
	if (project) {
		json_object_object_add(o, "department", r->department ?
				       json_object_new_string(r->department) : NULL);
		json_object_object_add(o, "configured", json_object_new_boolean(r->configured));
	}
	json_object_object_add(o, "gpu_quota", json_object_new_int64((int64_t)r->quota));
	json_object_object_add(o, "gpu_limit", isinf(r->limit) ? NULL :
			       json_object_new_int64((int64_t)r->limit));
	json_object_object_add(o, "over_quota_weight", json_object_new_double(r->weight));
	if (r->hidden) {
		/* null: hidden from this user by PrivateData=jobs */
		json_object_object_add(o, "allocated", NULL);
		json_object_object_add(o, "over_quota", NULL);
		json_object_object_add(o, "fair_share", NULL);
		json_object_object_add(o, "pending", NULL);
		json_object_object_add(o, "state", NULL);
		return o;
	}
	json_object_object_add(o, "allocated", json_object_new_int64(r->alloc));
	json_object_object_add(o, "over_quota", json_object_new_int64((int64_t)over));
	json_object_object_add(o, "fair_share", json_object_new_double(r->share));
	json_object_object_add(o, "pending", json_object_new_int64(r->pending));
	json_object_object_add(o, "state", json_object_new_string(_state(r)));
	if (project && !isnan(r->usage))
		json_object_object_add(o, "usage_gpu_seconds",
				       json_object_new_double(r->usage));
	if (project && r->budget > 0) {
		json_object_object_add(o, "requeue_budget_gpu_hours",
				       json_object_new_double(r->budget));
		json_object_object_add(o, "requeue_lost_gpu_hours",
				       json_object_new_double(r->lost));
	}
	return o;
}

/* The header's cells. */
static const char *const _header[] = {
	"PROJECT", "QUOTA", "LIMIT", "WEIGHT", "ALLOCATED", "OVER_QUOTA",
	"FAIR_SHARE", "PENDING", "STATE", "USAGE(GPU-h)",
};

/* The table's columns: PROJECT to STATE, then USAGE(GPU-h). */
static const gq_col_t _cols[] = {
	{ 18, false, 0 }, { 5, true, 0 }, { 5, true, 0 }, { 6, true, 0 },
	{ 9, true, 0 }, { 10, true, 0 }, { 10, true, 0 }, { 7, true, 0 },
	{ 10, false, 0 }, { 12, true, 0 },
};
#define GQ_NCOLS ((int)(sizeof(_cols) / sizeof(_cols[0])))

/*
 * One line of the table: the pool's name first when parsable with pools
 * (the text has a section per pool instead); USAGE only when usage.
 */
static void _line(const gq_cli_t *c, const gq_cli_opts_t *o, bool usage,
		  const char *const *cells, const char *pool)
{
	const char *row[GQ_NCOLS + 1];
	gq_col_t cols[GQ_NCOLS + 1] = { { 0, false, 0 } };
	int n = usage ? GQ_NCOLS : GQ_NCOLS - 1, at = 0;

	if (o->parsable && c->pool)
		row[at++] = pool;
	memcpy(cols + at, _cols, sizeof(_cols));
	memcpy(row + at, cells, n * sizeof(*cells));
	gq_table_row(stdout, o->parsable, cols, row, n + at);
}

static void _row_print(const gq_cli_t *c, const gq_cli_opts_t *o,
		       const gq_row_t *r, const char *label, bool usage)
{
	char q[GQ_NUM_MAX], lim[GQ_NUM_MAX], w[GQ_NUM_MAX], fs[GQ_NUM_MAX];
	char al[GQ_NUM_MAX], ov[GQ_NUM_MAX], pe[GQ_NUM_MAX], u[GQ_NUM_MAX];
	double over = r->alloc > r->quota ? r->alloc - r->quota : 0;
	const char *cells[GQ_NCOLS] = { label, q, lim, w, al, ov, fs, pe,
					_state(r), u };

	snprintf(q, sizeof(q), "%.0f", r->quota);
	_fmt_num(lim, sizeof(lim), r->limit);
	_fmt_num(w, sizeof(w), r->weight);
	_fmt_num(fs, sizeof(fs), r->share);
	snprintf(al, sizeof(al), "%u", r->alloc);
	snprintf(ov, sizeof(ov), "%.0f", over);
	snprintf(pe, sizeof(pe), "%llu", (unsigned long long)r->pending);
	/* GPU-hours: what a reader compares */
	snprintf(u, sizeof(u), "%.2f", isnan(r->usage) ? 0 : r->usage / 3600);
	if (r->hidden || isnan(r->usage))
		snprintf(u, sizeof(u), "-");
	if (r->hidden)
		cells[4] = cells[5] = cells[6] = cells[7] = "-";
	_line(c, o, usage, cells, c->pool);
}

static gq_row_t _project_row(const gq_view_t *v, int i)
{
	const gq_project_t *p = gq_view_project(v, i);
	const gq_dept_t *d = gq_view_dept(v, p->department);
	gq_row_t r = { .name = p->name, .department = d ? d->name : NULL,
		       .configured = p->configured, .quota = p->quota,
		       .limit = p->limit, .weight = p->weight,
		       .share = p->share, .alloc = p->alloc,
		       .pending = p->pending, .usage = p->usage,
		       .budget = p->budget, .lost = p->lost };

	return r;
}

static bool _shown(const gq_cli_t *c, int i)
{
	const gq_project_t *p = gq_view_project(c->view, i);

	/* PrivateData=accounts: the projects of the caller's own jobs (the
	 * only jobs Slurm shows when jobs are private too) */
	if (c->private_accounts)
		return c->mine && c->mine[i];
	/* an account no project lists is shown while it has work */
	return p->configured || p->alloc || p->pending;
}

/* Does department d have a project _shown? */
static bool _dept_shown(const gq_cli_t *c, int d)
{
	int i, n = gq_view_nprojects(c->view);

	for (i = 0; i < n; i++)
		if (gq_view_project(c->view, i)->department == d &&
		    _shown(c, i))
			return true;
	return !c->private_accounts;
}

/* Department d's row: its projects' pending GPUs summed. */
static gq_row_t _dept_row(const gq_cli_t *c, int d)
{
	const gq_dept_t *dp = gq_view_dept(c->view, d);
	gq_row_t r = { .name = dp->name, .configured = true,
		       .hidden = c->private_jobs,
		       .quota = dp->quota, .limit = dp->limit,
		       .weight = dp->weight, .share = dp->share,
		       .alloc = dp->alloc, .usage = NAN };
	int i, n = gq_view_nprojects(c->view);

	for (i = 0; i < n; i++)
		if (gq_view_project(c->view, i)->department == d)
			r.pending += gq_view_project(c->view, i)->pending;
	return r;
}

/*
 * The pool being shown (gq_cli_use_pool): departments, each followed by
 * its projects, then the projects outside any department; into the JSON
 * arrays depts and projects, or printed (a department's label ends in
 * '/', its projects indented unless parsable).
 */
static void _projects_of_pool(gq_cli_t *c, const gq_cli_opts_t *o,
			      json_object *depts, json_object *projects)
{
	int i, d, n = gq_view_nprojects(c->view), nd = gq_view_ndepts(c->view);
	bool usage = c->cfg->settings.usage_half_life > 0;
	char label[GQ_LABEL_MAX];
	gq_row_t r;

	for (d = -1; d < nd; d++) {
		if (d >= 0 && _dept_shown(c, d)) {
			r = _dept_row(c, d);
			if (o->json) {
				json_object_array_add(depts, _row_json(&r, false));
			} else {
				snprintf(label, sizeof(label), "%s/", r.name);
				_row_print(c, o, &r, label, usage);
			}
		}
		for (i = 0; i < n; i++) {
			const gq_project_t *p = gq_view_project(c->view, i);

			if (p->department != d || !_shown(c, i))
				continue;
			r = _project_row(c->view, i);
			r.hidden = c->private_jobs;
			if (!usage)
				r.usage = NAN;
			if (o->json) {
				json_object_array_add(projects, _row_json(&r, true));
				continue;
			}
			snprintf(label, sizeof(label), "%s%s",
				 d >= 0 && !o->parsable ? "  " : "", p->name);
			_row_print(c, o, &r, label, usage);
		}
	}
}

/* The header line, unless --noheader or JSON. */
static void _head(const gq_cli_t *c, const gq_cli_opts_t *o)
{
	if (!o->json && !o->noheader)
		_line(c, o, c->cfg->settings.usage_half_life > 0, _header,
		      "POOL");
}

/* With pools: a section per pool shown, or one parsable table. */
static int _pools(gq_cli_t *c, const gq_cli_opts_t *o)
{
	json_object *projects, *depts, *pools = json_object_new_array(), *j;
	double total = 0;
	int k, shown = 0;

	for (k = 0; k < c->pools->n; k++) {
		if (!gq_cli_pool_shown(c, k) || gq_cli_use_pool(c, k))
			continue;
		total += c->capacity;
		if (!o->json && !o->parsable)
			printf("%sPOOL %s (%.0f GPUs)\n", shown ? "\n" : "",
			       c->pool, c->capacity);
		if (!o->parsable || !shown)
			_head(c, o);
		shown++;
		j = json_object_new_object();
		projects = json_object_new_array();
		depts = json_object_new_array();
		_projects_of_pool(c, o, depts, projects);
		json_object_object_add(j, "name", json_object_new_string(c->pool));
		json_object_object_add(j, "capacity", json_object_new_int64((int64_t)c->capacity));
		json_object_object_add(j, "departments", depts);
		json_object_object_add(j, "projects", projects);
		json_object_array_add(pools, j);
	}
	c->capacity = total;
	gq_cli_emit(c, o->json, "pools", pools, NULL, NULL);
	return 0;
}

/*
 * JSON: {"capacity", "departments": [...], "projects": [...]}; with
 * pools {"capacity" (all pools), "pools": [{"name", "capacity",
 * "departments", "projects"}, ...]}, and a section per pool in text.
 * --pool NAME,... shows those.
 */
int gq_cmd_projects(gq_cli_t *c, const gq_cli_opts_t *o)
{
	json_object *projects, *depts;

	gq_cli_mode_line(c, o);
	if (c->pool)
		return _pools(c, o);
	projects = json_object_new_array();
	depts = json_object_new_array();
	_head(c, o);
	_projects_of_pool(c, o, depts, projects);
	gq_cli_emit(c, o->json, "departments", depts, "projects", projects);
	return 0;
}
