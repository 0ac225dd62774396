/*
 * view.c - one scheduling pass: snapshot in, shares, bands, priorities and
 * victim sets out (see view.h for what it owns and what it costs).
 */
#define _GNU_SOURCE	/* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fairshare.h"
#include "core/index.h"
#include "core/victims.h"
#include "core/view.h"
#include "core/view_impl.h"


static double _limit(int limit)
{
	return limit == GQ_NO_LIMIT ? INFINITY : (double)limit;
}

static int _add_project(gq_view_t *v, const char *name, double quota,
			double weight, double limit, int dept, bool configured)
{
	gq_project_t *p;

	if (v->nproj == v->proj_cap) {
		int ncap = v->proj_cap ? v->proj_cap * 2 : 8;
		gq_project_t *np = realloc(v->proj, sizeof(*np) * ncap);

		if (!np)
			return -1;
		v->proj = np;
		v->proj_cap = ncap;
	}
	p = &v->proj[v->nproj];
	memset(p, 0, sizeof(*p));
	if (!(p->name = strdup(name)))
		return -1;
	p->quota = quota;
	p->weight = weight;
	p->limit = limit;
	p->department = dept;
	p->configured = configured;
	return v->nproj++;
}

gq_view_t *gq_view_create(const gq_config_t *cfg)
{
	gq_view_t *v = calloc(1, sizeof(*v));
	int i, j;

	if (!v)
		return NULL;
	v->min_runtime = cfg->settings.min_runtime;
	if (cfg->ndepts && !(v->dept = calloc(cfg->ndepts, sizeof(*v->dept))))
		goto fail;
	v->ndept = cfg->ndepts;
	for (i = 0; i < cfg->ndepts; i++) {
		if (!(v->dept[i].name = strdup(cfg->depts[i].name)) ||
		    gq_strmap_put(&v->depts, cfg->depts[i].name, i))
			goto fail;
		v->dept[i].quota = cfg->depts[i].gpu_quota;
		v->dept[i].weight = cfg->depts[i].over_quota_weight;
		v->dept[i].limit = _limit(cfg->depts[i].gpu_limit);
	}
	for (i = 0; i < cfg->nprojects; i++) {
		const gq_project_cfg_t *pc = &cfg->projects[i];
		int idx = _add_project(v, pc->name, pc->gpu_quota,
				       pc->over_quota_weight,
				       _limit(pc->gpu_limit), pc->department,
				       true);

		if (idx < 0)
			goto fail;
		for (j = 0; j < pc->naccounts; j++)
			if (gq_strmap_put(&v->accounts, pc->accounts[j], idx))
				goto fail;
	}
	return v;
fail:
	gq_view_free(v);
	return NULL;
}

void gq_view_free(gq_view_t *v)
{
	int i;

	if (!v)
		return;
	for (i = 0; i < v->nproj; i++)
		free(v->proj[i].name);
	free(v->proj);
	for (i = 0; i < v->ndept; i++)
		free(v->dept[i].name);
	free(v->dept);
	gq_strmap_free(&v->accounts);
	gq_strmap_free(&v->depts);
	gq_strmap_free(&v->tree);
	free(v->jobs);
	gq_idmap_free(&v->ids);
	free(v->node_free);
	free(v->pl_node);
	free(v->pl_gpus);
	gq_pairset_free(&v->room);
	free(v);
}

void gq_view_begin(gq_view_t *v, double capacity, int64_t now)
{
	v->njobs = 0;
	gq_idmap_clear(&v->ids);
	v->capacity = capacity;
	v->now = now;
	v->min_runtime_pass = v->min_runtime;
	v->nnodes = 0;
	v->npl = 0;
	gq_pairset_clear(&v->room);
}

void gq_view_account_parent(gq_view_t *v, const char *account,
			    const char *parent)
{
	int d = parent ? gq_strmap_get(&v->depts, parent) : -1;
	int p = gq_strmap_get(&v->accounts, account);
	gq_project_t *pr;

	if (d >= 0 || gq_strmap_get(&v->tree, account) >= 0)
		gq_strmap_put(&v->tree, account, d);
	if (p < 0)
		return;
	pr = &v->proj[p];
	if (pr->department >= 0 && !pr->dept_from_tree)
		return;	/* the config says where it belongs */
	pr->department = d;
	pr->dept_from_tree = d >= 0;
}

void gq_view_set_capacity(gq_view_t *v, double capacity)
{
	v->capacity = capacity;
}

void gq_view_min_runtime_at_least(gq_view_t *v, int seconds)
{
	if (seconds > v->min_runtime_pass)
		v->min_runtime_pass = seconds;
}

int gq_view_set_nodes(gq_view_t *v, int nnodes)
{
	if (nnodes > v->node_cap) {
		uint32_t *nf = realloc(v->node_free, sizeof(*nf) * nnodes);

		if (!nf)
			return -1;
		v->node_free = nf;
		v->node_cap = nnodes;
	}
	if (nnodes > 0)
		memset(v->node_free, 0, sizeof(*v->node_free) * nnodes);
	v->nnodes = nnodes;
	return 0;
}

void gq_view_node_free(gq_view_t *v, int node, uint32_t free_gpus)
{
	if (node >= 0 && node < v->nnodes)
		v->node_free[node] = free_gpus;
}

int gq_view_place(gq_view_t *v, uint32_t job_id, int node, uint32_t gpus)
{
	int idx = gq_idmap_get(&v->ids, job_id);
	gq_job_t *job;

	if (idx < 0 || node < 0 || node >= v->nnodes)
		return -1;
	job = &v->jobs[idx];
	if (v->npl == v->pl_cap) {
		int ncap = v->pl_cap ? v->pl_cap * 2 : 256;
		int *pn = realloc(v->pl_node, sizeof(*pn) * ncap);
		uint32_t *pg;

		if (!pn)
			return -1;
		v->pl_node = pn;
		if (!(pg = realloc(v->pl_gpus, sizeof(*pg) * ncap)))
			return -1;
		v->pl_gpus = pg;
		v->pl_cap = ncap;
	}
	if (!job->place_n)
		job->place_first = v->npl;
	else if (job->place_first + job->place_n != v->npl)
		return -1;	/* a job's entries must be consecutive */
	v->pl_node[v->npl] = node;
	v->pl_gpus[v->npl++] = gpus;
	job->place_n++;
	return 0;
}

/* The project of an account; an account no project lists becomes one. */
static int _project_of(gq_view_t *v, const char *account)
{
	int idx;

	if (!account)
		account = "";
	if ((idx = gq_strmap_get(&v->accounts, account)) >= 0)
		return idx;
	idx = _add_project(v, account, 0, 1, INFINITY,
			   gq_strmap_get(&v->tree, account), false);
	if (idx < 0 || gq_strmap_put(&v->accounts, account, idx))
		return -1;
	v->proj[idx].dept_from_tree = v->proj[idx].department >= 0;
	return idx;
}

static gq_job_t *_store_job(gq_view_t *v, uint32_t id, int project)
{
	gq_job_t *job;

	if (v->njobs == v->jobs_cap) {
		int ncap = v->jobs_cap ? v->jobs_cap * 2 : 256;
		gq_job_t *nj = realloc(v->jobs, sizeof(*nj) * ncap);

		if (!nj)
			return NULL;
		v->jobs = nj;
		v->jobs_cap = ncap;
	}
	if (gq_idmap_put(&v->ids, id, v->njobs))
		return NULL;
	job = &v->jobs[v->njobs++];
	memset(job, 0, sizeof(*job));
	job->id = id;
	job->project = project;
	job->tasks = 1;
	job->band = GQ_BAND_NONE;
	job->preempt_rank = UINT32_MAX;
	job->place_first = -1;
	return job;
}

gq_job_t *gq_view_add_job(gq_view_t *v, uint32_t id, const char *account)
{
	int project = _project_of(v, account);

	if (project < 0)
		return NULL;
	return _store_job(v, id, project);
}

/* Fair shares: across departments (and projects outside any) first, then
 * inside each department with its share as capacity. */
static void _fair_shares(gq_view_t *v)
{
	int n = v->nproj, top = 0, i, d;
	gq_claim_t *c = calloc(n + v->ndept + 1, sizeof(*c));
	int *slot = calloc(n + 1, sizeof(*slot));

	if (!c || !slot) {
		free(c);
		free(slot);
		return;
	}
	for (d = 0; d < v->ndept; d++)
		v->dept[d].demand = 0;
	for (i = 0; i < n; i++) {
		gq_project_t *p = &v->proj[i];

		if (p->department >= 0)
			v->dept[p->department].demand += p->alloc + p->pending;
	}
	/* top level: departments, then projects without one */
	for (d = 0; d < v->ndept; d++, top++) {
		c[top].quota = v->dept[d].quota;
		c[top].weight = v->dept[d].weight;
		c[top].limit = v->dept[d].limit;
		c[top].demand = v->dept[d].demand;
	}
	for (i = 0; i < n; i++) {
		gq_project_t *p = &v->proj[i];

		if (p->department >= 0)
			continue;
		slot[i] = top;
		c[top].quota = p->quota;
		c[top].weight = p->weight;
		c[top].limit = p->limit;
		c[top].demand = p->alloc + p->pending;
		top++;
	}
	gq_fair_share(c, top, v->capacity);
	for (d = 0; d < v->ndept; d++)
		v->dept[d].share = c[d].share;
	for (i = 0; i < n; i++) {
		if (v->proj[i].department >= 0)
			continue;
		v->proj[i].deserved = c[slot[i]].deserved;
		v->proj[i].share = c[slot[i]].share;
	}
	/* inside each department */
	for (d = 0; d < v->ndept; d++) {
		int m = 0;

		for (i = 0; i < n; i++) {
			gq_project_t *p = &v->proj[i];

			if (p->department != d)
				continue;
			slot[i] = m;
			c[m].quota = p->quota;
			c[m].weight = p->weight;
			c[m].limit = p->limit;
			c[m].demand = p->alloc + p->pending;
			m++;
		}
		gq_fair_share(c, m, v->dept[d].share);
		for (i = 0; i < n; i++) {
			if (v->proj[i].department != d)
				continue;
			v->proj[i].deserved = c[slot[i]].deserved;
			v->proj[i].share = c[slot[i]].share;
		}
	}
	free(c);
	free(slot);
}

/* A project's pending queue: eligible before waiting, then Slurm's order
 * (higher first), then oldest submit, then lowest id. */
static int _cmp_queue(const void *a, const void *b, void *ctx)
{
	const gq_job_t *jobs = ctx;
	const gq_job_t *x = &jobs[*(const int *)a];
	const gq_job_t *y = &jobs[*(const int *)b];

	if (x->state != y->state)
		return x->state == GQ_JOB_PENDING ? -1 : 1;
	if (x->order != y->order)
		return x->order > y->order ? -1 : 1;
	if (x->submit_time != y->submit_time)
		return x->submit_time < y->submit_time ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return 0;
}

static void _place(const gq_project_t *p, gq_job_t *job, double cum)
{
	job->cum = cum;
	job->band = gq_band_of(cum, p->quota, p->share, 1);
	job->key = gq_band_key(job->band, cum, p->quota, p->weight);
	job->priority = gq_band_priority(job->band, job->key);
}

/* What keeps a job that would bring its project to `cum` from starting. */
static gq_hold_t _project_hold(const gq_project_t *p, const gq_job_t *job,
			       double cum)
{
	if (cum > p->limit + GQ_EPS)
		return GQ_HOLD_LIMIT;
	if (!job->requeueable && cum > p->quota + GQ_EPS)
		return GQ_HOLD_NOT_REQUEUEABLE;
	return GQ_HOLD_NONE;
}

/*
 * Walk a project's pending queue: A_k, band, key, priority, hold.  A held
 * job does not add to A for the jobs behind it (it will not start); nor
 * does a job that is not eligible yet (it is not demand).
 */
static void _walk_queue(gq_view_t *v, gq_project_t *p, int *q, int n)
{
	double cum = p->alloc;
	int k;

	qsort_r(q, n, sizeof(*q), _cmp_queue, v->jobs);
	for (k = 0; k < n; k++) {
		gq_job_t *job = &v->jobs[q[k]];

		_place(p, job, cum + job->gpus);
		job->hold = GQ_HOLD_NONE;
		if (job->state != GQ_JOB_PENDING)
			continue;
		job->hold = _project_hold(p, job, cum + job->gpus);
		if (!job->hold)
			cum += job->gpus;
	}
	p->tail = cum;
}

/* Jobs in the order Slurm will try them: priority, then older, then id. */
static int _cmp_prio(const void *a, const void *b, void *ctx)
{
	const gq_job_t *jobs = ctx;
	const gq_job_t *x = &jobs[*(const int *)a];
	const gq_job_t *y = &jobs[*(const int *)b];

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	if (x->submit_time != y->submit_time)
		return x->submit_time < y->submit_time ? -1 : 1;
	return x->id < y->id ? -1 : (x->id > y->id);
}

/* A job's band once its department is over quota: not in quota. */
static void _demote(const gq_project_t *p, gq_job_t *job)
{
	job->band = gq_band_of(job->cum, p->quota, p->share, 0);
	job->key = gq_band_key(job->band, job->cum, p->quota, p->weight);
	job->priority = gq_band_priority(job->band, job->key);
}

/*
 * A pending job that would bring its department to cum + its GPUs: held
 * past the department's limit, or past its quota when it cannot be
 * requeued; not in quota past its quota.  Returns whether it counts (is
 * not held).
 */
static bool _dept_place(gq_view_t *v, const gq_dept_t *dp, gq_job_t *job,
			double cum)
{
	double next = cum + job->gpus;

	if (next > dp->limit + GQ_EPS)
		job->hold = GQ_HOLD_DEPT_LIMIT;
	else if (next > dp->quota + GQ_EPS && !job->requeueable)
		job->hold = GQ_HOLD_NOT_REQUEUEABLE;
	else if (next > dp->quota + GQ_EPS && job->band == GQ_BAND_IN_QUOTA)
		_demote(&v->proj[job->project], job);
	return !job->hold;
}

/*
 * Departments bound their projects as a group: walk each department's
 * eligible pending jobs in the order Slurm will try them, adding up the
 * department's GPUs.  A job past the department's limit is held; one past
 * its quota is not in quota (nor may it start if it cannot be requeued).
 * O(J log J): jobs are bucketed by department, then each bucket sorted.
 */
static void _dept_bounds(gq_view_t *v)
{
	int *start = calloc(v->ndept + 2, sizeof(int));
	int *idx = malloc(sizeof(int) * (v->njobs + 1));
	int d, k;

	if (!start || !idx)
		goto out;
	for (k = 0; k < v->njobs; k++) {
		gq_job_t *job = &v->jobs[k];

		if (job->state == GQ_JOB_PENDING && !job->hold &&
		    (d = v->proj[job->project].department) >= 0)
			start[d + 2]++;
	}
	for (d = 2; d < v->ndept + 2; d++)
		start[d] += start[d - 1];
	for (k = 0; k < v->njobs; k++) {
		gq_job_t *job = &v->jobs[k];

		if (job->state == GQ_JOB_PENDING && !job->hold &&
		    (d = v->proj[job->project].department) >= 0)
			idx[start[d + 1]++] = k;
	}
	/* now bucket d is idx[start[d] .. start[d + 1]) */
	for (d = 0; d < v->ndept; d++) {
		gq_dept_t *dp = &v->dept[d];
		int *q = idx + start[d], n = start[d + 1] - start[d];
		double cum = dp->alloc;

		qsort_r(q, n, sizeof(*q), _cmp_prio, v->jobs);
		for (k = 0; k < n; k++)
			if (_dept_place(v, dp, &v->jobs[q[k]], cum))
				cum += v->jobs[q[k]].gpus;
		dp->tail = cum;
	}
out:
	free(start);
	free(idx);
}

/*
 * Departments' floors on reclaim from outside them: walk all candidates in
 * reclaim order (`cand`), giving the *_OUT bits while the department can
 * still lose the GPUs (alloc - q_d for quota reclaim, alloc - max(q_d, f_d)
 * for fair-share reclaim).  A project without a department has no floor
 * above its own.  O(candidates).
 */
static void _dept_floors(gq_view_t *v, const int *cand, int n)
{
	double *left = calloc(2 * v->ndept + 1, sizeof(double));
	int d, k;

	if (!left)
		return;
	for (d = 0; d < v->ndept; d++) {
		left[2 * d] = v->dept[d].alloc - v->dept[d].quota;
		left[2 * d + 1] = v->dept[d].alloc -
				  fmax(v->dept[d].quota, v->dept[d].share);
	}
	for (k = 0; k < n; k++) {
		gq_job_t *job = &v->jobs[cand[k]];

		if ((d = v->proj[job->project].department) < 0) {
			if (job->victim & GQ_VICTIM_QUOTA)
				job->victim |= GQ_VICTIM_QUOTA_OUT;
			if (job->victim & GQ_VICTIM_FAIR)
				job->victim |= GQ_VICTIM_FAIR_OUT;
			continue;
		}
		if ((job->victim & GQ_VICTIM_QUOTA) &&
		    job->gpus <= left[2 * d] + GQ_EPS) {
			job->victim |= GQ_VICTIM_QUOTA_OUT;
			left[2 * d] -= job->gpus;
		}
		if ((job->victim & GQ_VICTIM_FAIR) &&
		    job->gpus <= left[2 * d + 1] + GQ_EPS) {
			job->victim |= GQ_VICTIM_FAIR_OUT;
			left[2 * d + 1] -= job->gpus;
		}
	}
	free(left);
}

typedef struct {
	int project;
	double over;
} gq_order_t;

static int _cmp_over(const void *a, const void *b)
{
	const gq_order_t *x = a, *y = b;

	if (x->over != y->over)
		return x->over > y->over ? -1 : 1;
	return x->project - y->project;
}

void gq_view_compute(gq_view_t *v)
{
	int n = v->nproj, i, k, ncand = 0, nelig = 0;
	int *start = calloc(2 * n + 2, sizeof(int));	/* pending | running */
	int *fill = calloc(2 * n + 2, sizeof(int));
	int *byproj = malloc(sizeof(int) * (v->njobs + 1));
	int *cand = malloc(sizeof(int) * (v->njobs + 1));
	int *elig = malloc(sizeof(int) * (v->njobs + 1));
	gq_order_t *order = malloc(sizeof(*order) * (n + 1));

	if (!start || !fill || !byproj || !cand || !elig || !order)
		goto out;

	for (i = 0; i < n; i++) {
		v->proj[i].alloc = v->proj[i].pending = 0;
		v->proj[i].share = v->proj[i].deserved = v->proj[i].tail = 0;
	}
	/* a_p and D_p; bucket jobs by (project, pending|running): O(J) */
	for (k = 0; k < v->njobs; k++) {
		gq_job_t *job = &v->jobs[k];
		gq_project_t *p = &v->proj[job->project];
		int running = job->state == GQ_JOB_RUNNING;

		job->victim = 0;
		job->room = false;
		job->preempt_rank = UINT32_MAX;
		if (running)
			p->alloc += job->gpus;
		else if (job->state == GQ_JOB_PENDING)
			p->pending += job->gpus * (job->tasks ? job->tasks : 1);
		start[2 * job->project + running + 1]++;
	}
	for (i = 1; i <= 2 * n; i++)
		start[i] += start[i - 1];
	for (k = 0; k < v->njobs; k++) {
		int b = 2 * v->jobs[k].project +
			(v->jobs[k].state == GQ_JOB_RUNNING);

		byproj[start[b] + fill[b]++] = k;
	}
	for (i = 0; i < v->ndept; i++)
		v->dept[i].alloc = 0;
	for (i = 0; i < n; i++)
		if (v->proj[i].department >= 0)
			v->dept[v->proj[i].department].alloc += v->proj[i].alloc;

	_fair_shares(v);

	for (i = 0; i < n; i++) {
		gq_project_t *p = &v->proj[i];

		_walk_queue(v, p, byproj + start[2 * i],
			    start[2 * i + 1] - start[2 * i]);
		gq_victims_mark(v->jobs, byproj + start[2 * i + 1],
				start[2 * i + 2] - start[2 * i + 1], p->alloc,
				p->quota, p->share, v->now, v->min_runtime_pass);
		order[i].project = i;
		order[i].over = gq_overservice(p->alloc, p->quota, p->share);
	}
	if (v->ndept)
		_dept_bounds(v);

	/* reclaim order: most over-served project first, then walk order */
	qsort(order, n, sizeof(*order), _cmp_over);
	for (i = 0; i < n; i++) {
		int pi = order[i].project;

		for (k = start[2 * pi + 1]; k < start[2 * pi + 2]; k++) {
			gq_job_t *job = &v->jobs[byproj[k]];

			if (!gq_victim_eligible(job, v->now, v->min_runtime_pass))
				continue;
			job->preempt_rank = nelig + 1;
			elig[nelig++] = byproj[k];
			if (job->victim)
				cand[ncand++] = byproj[k];
		}
	}
	_dept_floors(v, cand, ncand);
	if (v->nnodes)
		gq_room_make(v, elig, nelig);
out:
	free(start);
	free(fill);
	free(byproj);
	free(cand);
	free(elig);
	free(order);
}

const gq_job_t *gq_view_add_late(gq_view_t *v, const char *account,
				 const gq_job_t *in)
{
	int project = _project_of(v, account);
	int idx = gq_idmap_get(&v->ids, in->id);
	gq_project_t *p;
	gq_job_t *job;

	if (project < 0)
		return NULL;
	if (idx >= 0) {
		job = &v->jobs[idx];
		/* still pending in the same project: keep its place */
		if (job->state == in->state && job->project == project &&
		    job->state != GQ_JOB_RUNNING)
			return job;
		/* requeued, released or moved: take it out of its project */
		p = &v->proj[job->project];
		if (job->state == GQ_JOB_RUNNING)
			p->alloc -= job->gpus;
		else if (job->state == GQ_JOB_PENDING)
			p->pending -= job->gpus * job->tasks;
		job->project = project;
		job->victim = 0;
		job->preempt_rank = UINT32_MAX;
	} else if (!(job = _store_job(v, in->id, project))) {
		return NULL;
	}
	p = &v->proj[project];
	job->state = in->state;
	job->gpus = in->gpus;
	job->tasks = in->tasks ? in->tasks : 1;
	job->requeueable = in->requeueable;
	job->order = in->order;
	job->submit_time = in->submit_time;
	job->start_time = in->start_time;
	if (job->state == GQ_JOB_RUNNING) {
		p->alloc += job->gpus;
		job->band = GQ_BAND_NONE;
		return job;
	}
	if (p->tail < p->alloc)
		p->tail = p->alloc;
	_place(p, job, p->tail + job->gpus);
	job->hold = GQ_HOLD_NONE;
	if (job->state != GQ_JOB_PENDING)
		return job;
	p->pending += job->gpus * job->tasks;
	job->hold = _project_hold(p, job, p->tail + job->gpus);
	if (!job->hold && p->department >= 0) {
		gq_dept_t *dp = &v->dept[p->department];
		double cum = fmax(dp->tail, dp->alloc);

		if (_dept_place(v, dp, job, cum))
			dp->tail = cum + job->gpus;
	}
	if (!job->hold)
		p->tail += job->gpus;
	return job;
}

const gq_job_t *gq_view_job(const gq_view_t *v, uint32_t id)
{
	int idx = gq_idmap_get(&v->ids, id);

	return idx < 0 ? NULL : &v->jobs[idx];
}

const gq_project_t *gq_view_project(const gq_view_t *v, int idx)
{
	return (idx >= 0 && idx < v->nproj) ? &v->proj[idx] : NULL;
}

int gq_view_nprojects(const gq_view_t *v)
{
	return v->nproj;
}

int gq_view_find_project(const gq_view_t *v, const char *account)
{
	return gq_strmap_get(&v->accounts, account ? account : "");
}

const gq_dept_t *gq_view_dept(const gq_view_t *v, int idx)
{
	return (idx >= 0 && idx < v->ndept) ? &v->dept[idx] : NULL;
}

int gq_view_ndepts(const gq_view_t *v)
{
	return v->ndept;
}

double gq_view_capacity(const gq_view_t *v)
{
	return v->capacity;
}

int gq_view_min_runtime(const gq_view_t *v)
{
	return v->min_runtime_pass;
}

bool gq_view_preemptable(const gq_view_t *v, uint32_t preemptee,
			 uint32_t preemptor)
{
	const gq_job_t *ee = gq_view_job(v, preemptee);
	const gq_job_t *er = gq_view_job(v, preemptor);

	int dept;
	bool same;

	if (!ee || !er || ee->state != GQ_JOB_RUNNING ||
	    er->state != GQ_JOB_PENDING || er->hold ||
	    ee->project == er->project)
		return false;
	if (er->room)
		return gq_pairset_has(&v->room, er->id, ee->id);
	dept = v->proj[ee->project].department;
	same = dept >= 0 && dept == v->proj[er->project].department;
	if (er->band == GQ_BAND_IN_QUOTA)
		return ee->victim & (same ? GQ_VICTIM_QUOTA : GQ_VICTIM_QUOTA_OUT);
	if (er->band == GQ_BAND_FAIR_SHARE)
		return ee->victim & (same ? GQ_VICTIM_FAIR : GQ_VICTIM_FAIR_OUT);
	return false;
}

uint32_t gq_view_preempt_rank(const gq_view_t *v, uint32_t id)
{
	const gq_job_t *job = gq_view_job(v, id);

	return job ? job->preempt_rank : UINT32_MAX;
}
