/*
 * reservation.c - Slurm's backfill reservation, modelled (see
 * reservation.h).
 */
#include <stdlib.h>
#include <string.h>

#include "sim/reservation.h"

int gq_sim_resv_init(gq_sim_resv_t *v, int nodes, size_t jobs)
{
	memset(v, 0, sizeof(*v));
	v->by_end = calloc(jobs + 1, sizeof(*v->by_end));
	v->run = calloc(jobs + 1, sizeof(*v->run));
	v->g = calloc(2 * ((size_t)nodes + 1), sizeof(*v->g));
	v->c = v->g ? v->g + nodes + 1 : NULL;
	v->avoid = calloc(nodes + 1, sizeof(*v->avoid));
	return v->by_end && v->run && v->g && v->avoid ? 0 : -1;
}

void gq_sim_resv_free(gq_sim_resv_t *v)
{
	int k;

	for (k = 0; k < GQ_SIM_RESV_MAX; k++)
		free(v->one[k].nodes);
	free(v->by_end);
	free(v->run);
	free(v->g);
	free(v->avoid);
	memset(v, 0, sizeof(*v));
}

/* ---- the running jobs by expected end ---------------------------------- */

/* Where (end, job) is or goes in by_end: the first entry not before it.
 * O(log R). */
static size_t _where(const gq_sim_resv_t *v, int64_t end, uint32_t job)
{
	size_t lo = 0, hi = v->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const gq_sim_ending_t *e = &v->by_end[mid];

		if (e->end < end || (e->end == end && e->job < job))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void gq_sim_resv_running(gq_sim_resv_t *v, uint32_t job, int64_t end,
			 const gq_sim_shape_t *s, const int *nodes)
{
	size_t at = _where(v, end, job);

	memmove(&v->by_end[at + 1], &v->by_end[at],
		(v->n - at) * sizeof(*v->by_end));
	v->by_end[at] = (gq_sim_ending_t){ end, job };
	v->n++;
	v->run[job] = (gq_sim_resv_run_t){ end, s, nodes };
}

void gq_sim_resv_gone(gq_sim_resv_t *v, uint32_t job)
{
	size_t at = _where(v, v->run[job].end, job);

	if (at == v->n || v->by_end[at].job != job)
		return;
	v->n--;
	memmove(&v->by_end[at], &v->by_end[at + 1],
		(v->n - at) * sizeof(*v->by_end));
}

void gq_sim_resv_ends(gq_sim_resv_t *v, uint32_t job, int64_t end)
{
	gq_sim_resv_run_t r = v->run[job];

	gq_sim_resv_gone(v, job);
	gq_sim_resv_running(v, job, end, r.shape, r.nodes);
}

/* ---- one attempt's reservations ---------------------------------------- */

void gq_sim_resv_begin(gq_sim_resv_t *v)
{
	v->nresv = 0;
	v->nheads = 0;
	v->nfail = v->next_fail = 0;	/* they name this attempt's
					 * reservations */
}

void gq_sim_resv_head(gq_sim_resv_t *v, uint64_t parts, uint32_t job,
		      bool (*ahead)(const void *ctx, uint32_t a, uint32_t b),
		      const void *ctx)
{
	int k;

	for (k = 0; k < v->nheads && v->head_parts[k] != parts; k++)
		;
	if (k == v->nheads) {
		if (k == GQ_SIM_RESV_MAX)
			return;
		v->nheads++;
		v->head_parts[k] = parts;
	} else if (!ahead(ctx, job, v->head[k])) {
		return;
	}
	v->head[k] = job;
}

size_t gq_sim_resv_heads(const gq_sim_resv_t *v, uint32_t *out)
{
	memcpy(out, v->head, v->nheads * sizeof(*out));
	return (size_t)v->nheads;
}

/*
 * The running job e's GPUs and CPUs back into the what-if idle ones;
 * how many of its nodes now take their part of shape s that did not
 * before.  O(its nodes).
 */
static uint32_t _give_back(gq_sim_resv_t *v, const gq_sim_cluster_t *c,
			   const gq_sim_shape_t *s, uint32_t job)
{
	const gq_sim_shape_t *js = v->run[job].shape;
	uint32_t k, g, cp, more = 0;

	for (k = 0; k < js->nodes; k++) {
		int i = v->run[job].nodes[k];
		bool before = gq_sim_node_fits(c, v->g, v->c, s, i);

		gq_sim_held(c, js, i, &g, &cp);
		v->g[i] += g;
		v->c[i] += cp;
		more += !before && gq_sim_node_fits(c, v->g, v->c, s, i);
	}
	return more;
}

/*
 * The earliest time a job of shape s could start, into *at, and its
 * nodes then into out: the running jobs leave in order of expected end
 * until s->nodes nodes take it (with every job that ends at that time
 * gone too).  False: it fits on no node, ever.  O(N + the jobs walked x
 * their nodes).
 */
static bool _earliest(gq_sim_resv_t *v, const gq_sim_cluster_t *c,
		      const gq_sim_shape_t *s, int64_t now, int64_t *at,
		      int *out)
{
	uint32_t fit = 0;
	size_t k;
	int i;

	memcpy(v->g, c->free_gpus, c->n * sizeof(*v->g));
	memcpy(v->c, c->free_cpus, c->n * sizeof(*v->c));
	for (i = 0; i < c->n; i++)
		fit += gq_sim_node_fits(c, v->g, v->c, s, i);
	*at = now;
	for (k = 0; k < v->n; k++) {
		const gq_sim_ending_t *e = &v->by_end[k];

		if (fit >= s->nodes && e->end > *at)
			break;
		fit += _give_back(v, c, s, e->job);
		if (e->end > *at)
			*at = e->end;
	}
	return fit >= s->nodes && gq_sim_fit(c, v->g, v->c, s, out);
}

int gq_sim_resv_make(gq_sim_resv_t *v, const gq_sim_cluster_t *c,
		     const gq_sim_shape_t *s, int64_t now)
{
	gq_sim_resv_one_t *r;
	int k;

	for (k = 0; k < v->nresv; k++)
		if (v->one[k].parts == s->parts)
			return 0;
	if (v->nresv == GQ_SIM_RESV_MAX)
		return 0;
	r = &v->one[v->nresv];
	if (r->cap < s->nodes) {
		int *nn = realloc(r->nodes, s->nodes * sizeof(*nn));

		if (!nn)
			return -1;
		r->nodes = nn;
		r->cap = s->nodes;
	}
	r->parts = s->parts;
	r->nnodes = s->nodes;
	if (!_earliest(v, c, s, now, &r->start, r->nodes)) {
		r->start = INT64_MAX;
		r->nnodes = 0;
	}
	v->nresv++;
	return 0;
}

/* The reservations a job running until `until` avoids (bit k: one[k]);
 * false when one past the mask's 64 bits would be. */
static bool _avoided(const gq_sim_resv_t *v, int64_t until, uint64_t *bits)
{
	int k;

	*bits = 0;
	for (k = 0; k < v->nresv; k++) {
		if (v->one[k].start >= until || !v->one[k].nnodes)
			continue;
		if (k >= 64)
			return false;
		*bits |= 1ULL << k;
	}
	return true;
}

/* Does a failure kept since GPUs last came back ask no more than s
 * avoiding `avoided`? */
static bool _failed_before(gq_sim_resv_t *v, const gq_sim_cluster_t *c,
			   const gq_sim_shape_t *s, uint64_t avoided)
{
	int k;

	if (v->fail_gives != c->gives) {
		v->nfail = v->next_fail = 0;
		v->fail_gives = c->gives;
	}
	for (k = 0; k < v->nfail; k++) {
		const gq_sim_resv_fail_t *f = &v->fail[k];

		if (f->parts == s->parts && (f->nodes > 1) == (s->nodes > 1) &&
		    s->nodes >= f->nodes && s->gpus >= f->gpus &&
		    s->cpus >= f->cpus && (avoided & f->avoided) == f->avoided)
			return true;
	}
	return false;
}

static void _keep_failure(gq_sim_resv_t *v, const gq_sim_shape_t *s,
			  uint64_t avoided)
{
	v->fail[v->next_fail] = (gq_sim_resv_fail_t){
		s->parts, avoided, s->gpus, s->cpus, s->nodes };
	v->next_fail = (v->next_fail + 1) % GQ_SIM_RESV_FAILS;
	if (v->nfail < GQ_SIM_RESV_FAILS)
		v->nfail++;
}

/* Mark (on true) or clear the nodes reserved from before `until`; true
 * when any is. */
static bool _mark(gq_sim_resv_t *v, int64_t until, uint8_t on)
{
	bool any = false;
	int k;
	uint32_t d;

	for (k = 0; k < v->nresv; k++) {
		const gq_sim_resv_one_t *r = &v->one[k];

		if (r->start >= until)
			continue;
		for (d = 0; d < r->nnodes; d++)
			v->avoid[r->nodes[d]] = on;
		any = any || r->nnodes;
	}
	return any;
}

bool gq_sim_resv_fit(gq_sim_resv_t *v, const gq_sim_cluster_t *c,
		     const gq_sim_shape_t *s, int64_t until, int *out)
{
	uint64_t avoided;
	bool kept = _avoided(v, until, &avoided), avoid, ok;

	if (kept && _failed_before(v, c, s, avoided))
		return false;
	avoid = _mark(v, until, 1);
	ok = gq_sim_fit_avoid(c, c->free_gpus, c->free_cpus, s,
			      avoid ? v->avoid : NULL, out);
	if (avoid)
		_mark(v, until, 0);
	if (!ok && kept)
		_keep_failure(v, s, avoided);
	return ok;
}
