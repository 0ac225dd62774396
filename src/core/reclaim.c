/*
 * reclaim.c - floors, one allowance for every candidate set, reclaim order
 * (see reclaim.h).
 */
#define _GNU_SOURCE	/* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fairshare.h"
#include "core/reclaim.h"
#include "core/requeue_budget.h"
#include "tools/sort.h"

/* The four kinds of reclaim, in the order of their bits. */
enum { K_QUOTA, K_FAIR, K_QUOTA_OUT, K_FAIR_OUT, K_N };

#define KIND_BIT(k) ((uint8_t)(1u << (k)))
#define OUT_BITS (GQ_VICTIM_QUOTA_OUT | GQ_VICTIM_FAIR_OUT)

double gq_floor(double quota, double share, bool fair)
{
	return fair ? fmax(quota, share) : quota;
}

void gq_reclaim_floors(gq_registry_t *r)
{
	double *w = malloc(sizeof(double) * (r->nproj + 1));
	double *out = calloc(r->nproj + 1, sizeof(double));
	int i, d, n;

	if (!w || !out) {	/* no memory: q_p, the old floor */
		free(w);
		free(out);
		return;
	}
	for (d = 0; d < r->ndept; d++) {
		double sum = 0;

		for (i = n = 0; i < r->nproj; i++) {
			if (r->proj[i].department != d)
				continue;
			w[i] = r->proj[i].quota;
			sum += w[i];
			n++;
		}
		if (!n || sum <= r->dept[d].quota + GQ_EPS)
			continue;	/* quotas fit: each keeps q_p */
		/* oversubscribed: q_d by quota, each capped at q_p */
		for (i = 0; i < r->nproj; i++)
			if (r->proj[i].department != d)
				w[i] = out[i] = 0;
			else
				out[i] = 0;
		gq_waterfill(r->dept[d].quota, r->nproj, w, w, out);
		for (i = 0; i < r->nproj; i++)
			if (r->proj[i].department == d)
				r->proj[i].quota_out = out[i];
	}
	free(w);
	free(out);
}

/* Since when a requeue would lose the job's work: its last checkpoint,
 * or its start when it has none. */
static inline int64_t _saved(const gq_job_in_t *j)
{
	return j->start_time + j->saved_secs;
}

/*
 * Lowest Slurm order first; among equals the one that loses least per GPU
 * freed: the latest saved (GPU-seconds lost / GPUs = now - _saved), which
 * without checkpoints is the youngest.  Taking candidates in this order,
 * the GPUs a reclaim needs cost the fewest GPU-seconds of work.
 */
static int _cmp_walk(const void *a, const void *b, void *ctx)
{
	const gq_job_t *jobs = ctx;
	const gq_job_in_t *x = &jobs[*(const int *)a].in;
	const gq_job_in_t *y = &jobs[*(const int *)b].in;

	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	if (_saved(x) != _saved(y))
		return _saved(x) > _saved(y) ? -1 : 1;
	if (x->start_time != y->start_time)
		return x->start_time > y->start_time ? -1 : 1;
	if (x->id != y->id)
		return x->id > y->id ? -1 : 1;
	return 0;
}

bool gq_victim_eligible(const gq_job_in_t *job, int64_t now, int min_runtime)
{
	/* on a node that does not respond: lost soon, and Slurm places
	 * nothing there */
	if (job->state != GQ_JOB_RUNNING || !job->requeueable || !job->gpus ||
	    job->at_risk)
		return false;
	return min_runtime <= 0 || job->start_time > now ||
	       now - job->start_time >= min_runtime;
}

void gq_reclaim_sort(gq_job_t *jobs, int *run, int n, const gq_project_t *p)
{
	double over = p->alloc - p->quota;
	int i;

	gq_sort_ints(run, n, _cmp_walk, jobs);
	for (i = 0; i < n; i++) {
		gq_job_t *job = &jobs[run[i]];

		job->victim = job->chain = 0;
		job->over_quota = job->in.gpus &&
				  job->in.gpus <= over + GQ_EPS;
		if (job->over_quota)
			over -= job->in.gpus;
	}
}

double gq_overservice(const gq_project_t *p)
{
	double floor = gq_floor(p->quota, p->share_floor, true);

	if (floor <= GQ_EPS)
		return p->alloc > 0 ? INFINITY : 0;
	return p->alloc / floor;
}

typedef struct {
	int project;
	double over;
} gq_over_t;

static int _cmp_over(const void *a, const void *b)
{
	const gq_over_t *x = a, *y = b;

	if (x->over != y->over)
		return x->over > y->over ? -1 : 1;
	return x->project - y->project;
}

/*
 * Allowances.  A project's kinds form a chain by floor, lowest first: a job
 * joins a kind only after every kind below it, so the kinds' sets are
 * nested.  Quota and fair-share reclaim from outside a department also
 * need the department's allowance (quota out, then fair out).
 */
struct gq_allowance {
	double (*left)[K_N];	/* per project: a_p - floor, per kind */
	uint8_t (*chain)[K_N];	/* per project: kinds by floor, lowest first */
	double (*dleft)[2];	/* per department: a_d - q_d, a_d - max(q_d, f_d) */
};

gq_allowance_t *gq_allowance_new(const gq_registry_t *r)
{
	gq_allowance_t *b = calloc(1, sizeof(*b));
	int i, k, j;

	if (!b)
		return NULL;
	b->left = calloc(r->nproj + 1, sizeof(*b->left));
	b->chain = calloc(r->nproj + 1, sizeof(*b->chain));
	b->dleft = calloc(r->ndept + 1, sizeof(*b->dleft));
	if (!b->left || !b->chain || !b->dleft) {
		gq_allowance_free(b);
		return NULL;
	}
	for (i = 0; i < r->nproj; i++) {
		const gq_project_t *p = &r->proj[i];
		double floor[K_N];

		/* usage never moves a floor: f_p untilted */
		floor[K_QUOTA] = gq_floor(p->quota, p->share_floor, false);
		floor[K_FAIR] = gq_floor(p->quota, p->share_floor, true);
		floor[K_QUOTA_OUT] = gq_floor(p->quota_out, p->share_floor,
					      false);
		floor[K_FAIR_OUT] = gq_floor(p->quota_out, p->share_floor,
					     true);
		/* past its requeue budget: fair-share reclaim spares it */
		floor[K_FAIR] = gq_requeue_budget_fair_floor(p, floor[K_FAIR]);
		floor[K_FAIR_OUT] = gq_requeue_budget_fair_floor(p,
							floor[K_FAIR_OUT]);
		/* insertion sort of four kinds by floor; ties: bit order */
		/* what it holds on nodes that do not respond counts as
		 * lost: it will be, when Slurm sets them DOWN */
		for (k = 0; k < K_N; k++) {
			b->left[i][k] = (double)p->alloc - p->at_risk - floor[k];
			for (j = k; j > 0 && floor[b->chain[i][j - 1]] > floor[k]; j--)
				b->chain[i][j] = b->chain[i][j - 1];
			b->chain[i][j] = k;
		}
	}
	for (i = 0; i < r->ndept; i++) {
		const gq_dept_t *d = &r->dept[i];

		double held = (double)d->alloc - d->at_risk;

		b->dleft[i][0] = held - gq_floor(d->quota, d->share_floor,
						 false);
		b->dleft[i][1] = held - gq_floor(d->quota, d->share_floor,
						 true);
	}
	return b;
}

void gq_allowance_free(gq_allowance_t *b)
{
	if (!b)
		return;
	free(b->left);
	free(b->chain);
	free(b->dleft);
	free(b);
}

uint8_t gq_reclaim_kind(const gq_registry_t *r, const gq_job_t *preemptee,
			const gq_job_t *preemptor)
{
	bool out;

	if (preemptee->project == preemptor->project)
		return 0;
	out = gq_registry_outsider(r, preemptee->project, preemptor->project);
	if (preemptor->band == GQ_BAND_IN_QUOTA)
		return out ? GQ_VICTIM_QUOTA_OUT : GQ_VICTIM_QUOTA;
	if (preemptor->band == GQ_BAND_FAIR_SHARE)
		return out ? GQ_VICTIM_FAIR_OUT : GQ_VICTIM_FAIR;
	return 0;
}

void gq_reclaim_kinds(const gq_registry_t *r, const gq_job_t *preemptor,
		      uint8_t *kind)
{
	gq_job_t preemptee = { .project = 0 };

	for (preemptee.project = 0; preemptee.project < r->nproj; preemptee.project++)
		kind[preemptee.project] = gq_reclaim_kind(r, &preemptee, preemptor);
}

/* The chain bits a job needs to be offered under `kind`: every kind up
 * to it in its project's chain. */
static uint8_t _chain_upto(const gq_allowance_t *b, int project, uint8_t kind)
{
	uint8_t bits = 0;
	int i;

	for (i = 0; i < K_N; i++) {
		bits |= KIND_BIT(b->chain[project][i]);
		if (KIND_BIT(b->chain[project][i]) == kind)
			break;
	}
	return bits;
}

/* The department bits a job needs to be offered to outsiders. */
static uint8_t _dept_upto(uint8_t kind)
{
	if (kind == GQ_VICTIM_QUOTA_OUT)
		return GQ_VICTIM_QUOTA_OUT;
	if (kind == GQ_VICTIM_FAIR_OUT)
		return OUT_BITS;
	return 0;
}

/* Has department d room to offer e to outsiders under `bits` it lacks? */
static bool _dept_has_room(const gq_allowance_t *b, int d, const gq_job_t *e,
			   uint8_t bits)
{
	uint8_t need = bits & ~e->victim;

	return !((need & GQ_VICTIM_QUOTA_OUT) &&
		 e->in.gpus > b->dleft[d][0] + GQ_EPS) &&
	       !((need & GQ_VICTIM_FAIR_OUT) &&
		 e->in.gpus > b->dleft[d][1] + GQ_EPS);
}

static void _charge(gq_allowance_t *b, const gq_registry_t *r,
		    const gq_job_t *e, const gq_charge_t *c, int sign)
{
	int d = r->proj[e->project].department, k;
	double g = sign * (double)e->in.gpus;

	for (k = 0; k < K_N; k++)
		if (c->chain & KIND_BIT(k))
			b->left[e->project][k] -= g;
	if (d >= 0 && (c->victim & GQ_VICTIM_QUOTA_OUT))
		b->dleft[d][0] -= g;
	if (d >= 0 && (c->victim & GQ_VICTIM_FAIR_OUT))
		b->dleft[d][1] -= g;
}

bool gq_allowance_take(gq_allowance_t *b, const gq_registry_t *r, gq_job_t *e,
		    uint8_t kind, gq_charge_t *undo)
{
	int d = r->proj[e->project].department, k;
	uint8_t vbits = 0;
	gq_charge_t c;

	c.chain = _chain_upto(b, e->project, kind) & ~e->chain;
	for (k = 0; k < K_N; k++)
		if ((c.chain & KIND_BIT(k)) &&
		    e->in.gpus > b->left[e->project][k] + GQ_EPS)
			return false;
	/* offered: the kind itself, and for outsiders the department's */
	if (kind & OUT_BITS)
		vbits = d >= 0 ? _dept_upto(kind) : kind;
	else
		vbits = kind;
	c.victim = vbits & ~e->victim;
	if (d >= 0 && !_dept_has_room(b, d, e, c.victim))
		return false;
	_charge(b, r, e, &c, 1);
	e->chain |= c.chain;
	e->victim |= c.victim;
	if (undo)
		*undo = c;
	return true;
}

void gq_allowance_give_back(gq_allowance_t *b, const gq_registry_t *r,
			 gq_job_t *e, const gq_charge_t *undo)
{
	_charge(b, r, e, undo, -1);
	e->chain &= ~undo->chain;
	e->victim &= ~undo->victim;
}

bool gq_allowance_spent(const gq_allowance_t *b, int project, uint8_t kind)
{
	int i;

	for (i = 0; i < K_N; i++) {
		int k = b->chain[project][i];

		if (1 > b->left[project][k] + GQ_EPS)
			return true;
		if (KIND_BIT(k) == kind)
			break;
	}
	return false;
}

bool gq_allowance_any_left(const gq_allowance_t *b, const gq_registry_t *r)
{
	int p;

	for (p = 0; p < r->nproj; p++)
		if (!(1 > b->left[p][b->chain[p][0]] + GQ_EPS))
			return true;
	return false;
}

/*
 * Offer one job under as many kinds as the allowances let: up its
 * project's chain from the lowest floor, stopping at the first kind
 * whose allowance has no room; then to outsiders as far as its department's
 * allowances let (quota, then fair share).  `left` is its project's
 * allowances (b->left's row, or the caller's copy of it in registers: a
 * project's jobs are offered one after another).  O(1).
 */
static inline void _mark_row(gq_allowance_t *b, const gq_registry_t *r,
			     gq_job_t *e, double *left, const uint8_t *chain)
{
	int d = r->proj[e->project].department, i;
	gq_charge_t c = { 0 };
	uint8_t add;

	for (i = 0; i < K_N; i++) {
		int k = chain[i];

		if (e->chain & KIND_BIT(k))
			continue;
		if (e->in.gpus > left[k] + GQ_EPS)
			break;
		c.chain |= KIND_BIT(k);
		left[k] -= e->in.gpus;
	}
	e->chain |= c.chain;
	/* insiders: offered what the chain holds */
	add = e->chain & (GQ_VICTIM_QUOTA | GQ_VICTIM_FAIR);
	/* outsiders: the chain, then the department's allowances, nested */
	if (d < 0) {
		add |= e->chain & OUT_BITS;
	} else if ((e->chain & GQ_VICTIM_QUOTA_OUT) &&
		   _dept_has_room(b, d, e, GQ_VICTIM_QUOTA_OUT)) {
		add |= GQ_VICTIM_QUOTA_OUT;
		if ((e->chain & GQ_VICTIM_FAIR_OUT) &&
		    _dept_has_room(b, d, e, GQ_VICTIM_FAIR_OUT))
			add |= GQ_VICTIM_FAIR_OUT;
	}
	/* charge the department for what is newly offered to outsiders
	 * (the project's allowances were charged above: no chain bits) */
	c.chain = 0;
	c.victim = add & ~e->victim;
	if (d >= 0 && (c.victim & OUT_BITS))
		_charge(b, r, e, &c, 1);
	e->victim |= add;
}

static void _mark_one(gq_allowance_t *b, const gq_registry_t *r, gq_job_t *e)
{
	_mark_row(b, r, e, b->left[e->project], b->chain[e->project]);
}

void gq_reclaim_mark(gq_allowance_t *b, const gq_registry_t *r, gq_job_t *jobs,
		     const int *order, int n)
{
	int i;

	for (i = 0; i < n; i++)
		_mark_one(b, r, &jobs[order[i]]);
}

bool gq_reclaim_allowed(const gq_registry_t *r, const gq_job_t *preemptee,
			const gq_job_t *preemptor)
{
	uint8_t kind = gq_reclaim_kind(r, preemptee, preemptor);

	return kind && (preemptee->victim & kind);
}

bool gq_reclaim_over_floor(const gq_registry_t *r, const gq_job_t *preemptee,
			   const gq_job_t *preemptor)
{
	uint8_t kind = gq_reclaim_kind(r, preemptee, preemptor);
	bool fair = kind & (GQ_VICTIM_FAIR | GQ_VICTIM_FAIR_OUT);
	bool out = kind & (GQ_VICTIM_QUOTA_OUT | GQ_VICTIM_FAIR_OUT);
	const gq_project_t *p = &r->proj[preemptee->project];
	const gq_dept_t *d;

	if (!kind || (double)p->alloc - p->at_risk -
			     gq_floor(out ? p->quota_out : p->quota,
				      p->share_floor, fair) <
		     preemptee->in.gpus)
		return false;
	if (!out || p->department < 0)
		return true;
	d = &r->dept[p->department];
	return (double)d->alloc - d->at_risk -
		       gq_floor(d->quota, d->share_floor, fair) >=
	       preemptee->in.gpus;
}

/*
 * One project at a time, most over-served first: its running jobs sorted
 * into walk order (O(n) when Slurm listed them in order or reversed,
 * O(n log n) otherwise), its eligible ones listed and ranked, and offered
 * from the allowances, while they are in cache.  Offering them in this order
 * is offering them in reclaim order (gq_reclaim_mark): the same sets.
 * O(P log P + J): one sweep of the running jobs.
 */
int gq_reclaim_order(const gq_registry_t *r, gq_job_t *jobs,
		     const gq_buckets_t *running, int64_t now, int min_runtime,
		     gq_allowance_t *b, gq_reclaim_runs_t *runs)
{
	gq_over_t *over = malloc(sizeof(*over) * (r->nproj + 1));
	int *order = runs->order, *run_first = runs->run_first;
	int *run_len = runs->run_len;
	int i, k, n = 0;

	runs->norder = 0;
	if (!over)
		return -1;
	for (i = 0; i < r->nproj; i++) {
		over[i].project = i;
		over[i].over = gq_overservice(&r->proj[i]);
	}
	qsort(over, r->nproj, sizeof(*over), _cmp_over);
	for (i = 0; i < r->nproj; i++) {
		int p = over[i].project, first = n;
		int *run = gq_bucket(running, p);
		int len = gq_bucket_len(running, p);

		double left[K_N];

		gq_reclaim_sort(jobs, run, len, &r->proj[p]);
		/* its allowances in registers while its jobs are offered */
		memcpy(left, b->left[p], sizeof(left));
		for (k = 0; k < len; k++) {
			gq_job_t *job = &jobs[run[k]];

			if (!gq_victim_eligible(&job->in, now, min_runtime))
				continue;
			job->preempt_rank = n + 1;
			order[n++] = run[k];
			_mark_row(b, r, job, left, b->chain[p]);
		}
		memcpy(b->left[p], left, sizeof(left));
		run_len[p] = n - first;
		run_first[p] = n > first ? first : 0;
	}
	runs->norder = n;
	runs->nruns = r->nproj;
	free(over);
	return 0;
}

int gq_reclaim_runs_alloc(gq_reclaim_runs_t *runs, int njobs, int nproj)
{
	int *o = realloc(runs->order, sizeof(int) * (njobs + 1));
	int *f, *l;

	if (!o)
		return -1;
	runs->order = o;
	f = realloc(runs->run_first, sizeof(int) * (nproj + 1));
	if (f)
		runs->run_first = f;
	l = f ? realloc(runs->run_len, sizeof(int) * (nproj + 1)) : NULL;
	if (!l)
		return -1;
	runs->run_len = l;
	return 0;
}

void gq_reclaim_runs_free(gq_reclaim_runs_t *runs)
{
	free(runs->order);
	free(runs->run_first);
	free(runs->run_len);
}

/* projects by where their run starts in the reclaim order */
static int _cmp_run(const void *a, const void *b, void *ctx)
{
	const int *first = ctx;

	return first[*(const int *)a] - first[*(const int *)b];
}

void gq_reclaim_shrink(const gq_reclaim_runs_t *runs, gq_registry_t *r,
		       gq_job_t *jobs, int project)
{
	int d = r->proj[project].department, i, k, n = 0, nmine = 0;
	int *projects, *mine;
	gq_allowance_t *b = NULL;

	if (project >= runs->nruns)
		return;
	projects = malloc(sizeof(int) * (runs->nruns + 1));
	mine = malloc(sizeof(int) * (runs->norder + 1));
	if (!projects) {	/* no memory: offer nobody until the next pass */
		for (k = 0; k < runs->norder; k++)
			jobs[runs->order[k]].victim = 0;
		free(mine);
		return;
	}
	if (mine)
		b = gq_allowance_new(r);
	/* the affected projects' runs, in reclaim order (each contiguous) */
	for (i = 0; i < runs->nruns; i++)
		if (i == project || (d >= 0 && r->proj[i].department == d))
			projects[n++] = i;
	qsort_r(projects, n, sizeof(*projects), _cmp_run, runs->run_first);
	for (i = 0; i < n; i++) {
		r->proj[projects[i]].room_void = true;
		for (k = 0; k < runs->run_len[projects[i]]; k++) {
			int j = runs->order[runs->run_first[projects[i]] + k];

			jobs[j].victim = jobs[j].chain = 0;
			if (mine && jobs[j].in.state == GQ_JOB_RUNNING)
				mine[nmine++] = j;
		}
	}
	/* no memory for an allowance: offer none of them until the next pass */
	if (b)
		gq_reclaim_mark(b, r, jobs, mine, nmine);
	gq_allowance_free(b);
	free(projects);
	free(mine);
}
