/*
 * room.c - candidates that actually make room (SEMANTICS.md "Reclaim").
 *
 * The usual victim walk picks GPUs by project and age, not by node: it may
 * free one GPU on each of two nodes when the preemptor needs two on one.
 * For each pending job that may reclaim and needs G GPUs on each of N
 * nodes, when the usual candidates cannot give that, choose per node the
 * victims (same floors: each project keeps alloc - floor, each department
 * too for a preemptor outside it), in reclaim order, until the node has
 * room; stop at N nodes.  The choice is kept as (preemptor, victim) pairs.
 *
 * Cost: O(V log V + N log N) per pass to bucket victims by node and order
 * nodes, then O(N + V) per preemptor that needs it; preemptors are pending
 * jobs in the in-quota and fair-share bands, at most about as many as the
 * pool has GPUs.
 */
#define _GNU_SOURCE	/* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fairshare.h"
#include "core/view_impl.h"

typedef struct {
	int job;	/* index in v->jobs */
	uint32_t gpus;	/* its GPUs on this node */
} gq_slot_t;

typedef struct {
	gq_view_t *v;
	gq_job_t *er;		/* the preemptor */
	int fair;		/* fair-share reclaim (else quota) */
	double *left;		/* per project, then per department */
	int *stamp;		/* left[] is valid when stamp == gen */
	int gen;
} gq_budget_t;

static double *_left(gq_budget_t *b, int slot, double init)
{
	if (b->stamp[slot] != b->gen) {
		b->stamp[slot] = b->gen;
		b->left[slot] = init;
	}
	return &b->left[slot];
}

/* Can job e be taken from, within its project's and department's floors? */
static int _fits(gq_budget_t *b, const gq_job_t *e, int take)
{
	gq_view_t *v = b->v;
	const gq_project_t *p = &v->proj[e->project];
	int d = p->department;
	double *lp, *ld = NULL;

	if (e->project == b->er->project)
		return 0;
	lp = _left(b, e->project, p->alloc - (b->fair ?
					      fmax(p->quota, p->share) :
					      p->quota));
	if (d >= 0 && d != v->proj[b->er->project].department) {
		const gq_dept_t *dp = &v->dept[d];

		ld = _left(b, v->nproj + d, dp->alloc - (b->fair ?
						       fmax(dp->quota, dp->share) :
						       dp->quota));
	}
	if (e->gpus > *lp + GQ_EPS || (ld && e->gpus > *ld + GQ_EPS))
		return 0;
	if (take) {
		*lp -= e->gpus;
		if (ld)
			*ld -= e->gpus;
	}
	return 1;
}

static void _give_back(gq_budget_t *b, const gq_job_t *e)
{
	gq_view_t *v = b->v;
	int d = v->proj[e->project].department;

	b->left[e->project] += e->gpus;
	if (d >= 0 && d != v->proj[b->er->project].department)
		b->left[v->nproj + d] += e->gpus;
}

/* Would the usual candidates give room on enough nodes? */
static int _usual_fits(gq_view_t *v, const gq_job_t *er, const int *nstart,
		       const gq_slot_t *slots, const int *nodes)
{
	uint32_t bits_in = er->band == GQ_BAND_IN_QUOTA ? GQ_VICTIM_QUOTA :
			   GQ_VICTIM_FAIR;
	uint32_t bits_out = er->band == GQ_BAND_IN_QUOTA ? GQ_VICTIM_QUOTA_OUT :
			    GQ_VICTIM_FAIR_OUT;
	int dept = v->proj[er->project].department, ok = 0, k, s;

	for (k = 0; k < v->nnodes && ok < (int)er->nodes; k++) {
		int n = nodes[k];
		uint64_t room = v->node_free[n];

		for (s = nstart[n]; s < nstart[n + 1] && room < er->gpus_per_node; s++) {
			const gq_job_t *e = &v->jobs[slots[s].job];
			int d = v->proj[e->project].department;
			uint32_t bits = (d >= 0 && d == dept) ? bits_in : bits_out;

			if (e->project != er->project && (e->victim & bits))
				room += slots[s].gpus;
		}
		if (room >= er->gpus_per_node)
			ok++;
	}
	return ok >= (int)er->nodes;
}

static int _cmp_slot(const void *a, const void *b, void *ctx)
{
	const gq_view_t *v = ctx;
	const gq_slot_t *x = a, *y = b;

	return v->jobs[x->job].preempt_rank < v->jobs[y->job].preempt_rank ? -1 :
	       v->jobs[x->job].preempt_rank > v->jobs[y->job].preempt_rank;
}

static int _cmp_node_free(const void *a, const void *b, void *ctx)
{
	const gq_view_t *v = ctx;
	uint32_t x = v->node_free[*(const int *)a];
	uint32_t y = v->node_free[*(const int *)b];

	if (x != y)
		return x > y ? -1 : 1;
	return *(const int *)a - *(const int *)b;
}

/* Choose victims node by node for one preemptor; record them if enough. */
static void _choose(gq_budget_t *b, const int *nstart, const gq_slot_t *slots,
		    const int *nodes, int *chosen, char *taken)
{
	gq_view_t *v = b->v;
	gq_job_t *er = b->er;
	int nchosen = 0, ok = 0, k, s, i;

	for (k = 0; k < v->nnodes && ok < (int)er->nodes; k++) {
		int n = nodes[k], mark = nchosen;
		uint64_t room = v->node_free[n];

		for (s = nstart[n]; s < nstart[n + 1] && room < er->gpus_per_node; s++) {
			const gq_job_t *e = &v->jobs[slots[s].job];

			if (taken[slots[s].job]) {	/* freed for another node */
				room += slots[s].gpus;
				continue;
			}
			if (!_fits(b, e, 1))
				continue;
			taken[slots[s].job] = 1;
			chosen[nchosen++] = slots[s].job;
			room += slots[s].gpus;
		}
		if (room >= er->gpus_per_node) {
			ok++;
			continue;
		}
		/* this node cannot make it: undo its choices */
		for (i = mark; i < nchosen; i++) {
			_give_back(b, &v->jobs[chosen[i]]);
			taken[chosen[i]] = 0;
		}
		nchosen = mark;
	}
	if (ok >= (int)er->nodes) {
		for (i = 0; i < nchosen; i++)
			gq_pairset_add(&v->room, er->id, v->jobs[chosen[i]].id);
		er->room = true;
	}
	for (i = 0; i < nchosen; i++)
		taken[chosen[i]] = 0;
}

void gq_room_make(gq_view_t *v, const int *order, int norder)
{
	int *nstart = calloc(v->nnodes + 2, sizeof(int));
	int *nodes = malloc(sizeof(int) * (v->nnodes + 1));
	int *chosen = malloc(sizeof(int) * (norder + 1));
	char *taken = calloc(v->njobs + 1, 1);
	gq_slot_t *slots = NULL;
	gq_budget_t b = { .v = v };
	int k, i, nslots = 0;

	b.left = calloc(v->nproj + v->ndept + 1, sizeof(double));
	b.stamp = calloc(v->nproj + v->ndept + 1, sizeof(int));
	for (k = 0; k < norder; k++)
		nslots += v->jobs[order[k]].place_n;
	slots = malloc(sizeof(*slots) * (nslots + 1));
	if (!nstart || !nodes || !chosen || !taken || !slots || !b.left ||
	    !b.stamp)
		goto out;

	/* bucket the eligible victims' GPUs by node, in reclaim order */
	for (k = 0; k < norder; k++) {
		const gq_job_t *e = &v->jobs[order[k]];

		for (i = 0; i < e->place_n; i++)
			nstart[v->pl_node[e->place_first + i] + 2]++;
	}
	for (i = 2; i <= v->nnodes + 1; i++)
		nstart[i] += nstart[i - 1];
	for (k = 0; k < norder; k++) {
		const gq_job_t *e = &v->jobs[order[k]];

		for (i = 0; i < e->place_n; i++) {
			int n = v->pl_node[e->place_first + i];

			slots[nstart[n + 1]].job = order[k];
			slots[nstart[n + 1]++].gpus = v->pl_gpus[e->place_first + i];
		}
	}
	/* order is reclaim order already; keep it stable per node */
	for (i = 0; i < v->nnodes; i++) {
		qsort_r(slots + nstart[i], nstart[i + 1] - nstart[i],
			sizeof(*slots), _cmp_slot, v);
		nodes[i] = i;
	}
	/* nodes with the most idle GPUs first: fewest victims */
	qsort_r(nodes, v->nnodes, sizeof(*nodes), _cmp_node_free, v);

	for (k = 0; k < v->njobs; k++) {
		gq_job_t *er = &v->jobs[k];

		if (er->state != GQ_JOB_PENDING || er->hold ||
		    !er->gpus_per_node || !er->nodes ||
		    (er->band != GQ_BAND_IN_QUOTA &&
		     er->band != GQ_BAND_FAIR_SHARE))
			continue;
		if (_usual_fits(v, er, nstart, slots, nodes))
			continue;
		b.er = er;
		b.fair = er->band == GQ_BAND_FAIR_SHARE;
		b.gen++;
		_choose(&b, nstart, slots, nodes, chosen, taken);
	}
out:
	free(nstart);
	free(nodes);
	free(chosen);
	free(taken);
	free(slots);
	free(b.left);
	free(b.stamp);
}
