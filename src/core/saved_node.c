/*
 * saved_node.c - the node saved for an in-quota job no node can take:
 * who keeps off it (see saved_node.h and docs/MODEL.md "The saved node").
 *
 * For a preemptor P other than W, with S the saved nodes (one, or a
 * gang's k):
 *   off_saved(P) = fits(P, { room(n) + mine(P, n) : n open, n not in S,
 *                            P may use n })
 *   room(n)    = idle GPUs of n, plus those of victims leaving it;
 *   mine(P, n) = GPUs on n of running jobs P may reclaim (the usual sets).
 * A P that keeps off S is refused every victim with GPUs on a node of
 * S.  It loses nothing it could not get elsewhere: it starts there
 * instead.
 */
#include <stdlib.h>
#include <string.h>

#include "core/coming_free.h"
#include "core/reclaim.h"
#include "core/saved_node.h"
#include "tools/hash.h"

void gq_saved_node_clear(gq_saved_node_t *s)
{
	s->saved_for = 0;
	s->on.node = -1;
	s->nnodes = 0;
	s->marked = false;
}

/* Is node n one of the saved nodes?  O(k) for k saved. */
static bool _is_saved(const gq_saved_node_t *s, int n)
{
	return gq_node_in(s->nodes, s->nnodes, n);
}

/* May this job take victims from the usual sets: pending, may reclaim,
 * not from a room set of its own, not W. */
static bool _usual_preemptor(const gq_job_t *job, uint32_t waiter)
{
	return gq_job_may_reclaim(job) && !job->room && job->in.id != waiter &&
	       job->in.gpus;
}

/*
 * The shape that decides off_saved: project, band (in quota or fair
 * share), node group, GPUs per node or GPUs in all, nodes.  0 when a
 * number is too large for its bits: such a job is counted alone.
 */
static uint64_t _shape_key(const gq_job_t *p)
{
	uint64_t g = p->in.gpus_per_node ? p->in.gpus_per_node :
					   0x4000u | p->in.gpus;

	if ((uint64_t)p->project >= 1u << 19 || p->in.node_group >= 1u << 16 ||
	    p->in.gpus_per_node >= 0x4000u || p->in.gpus >= 0x4000u ||
	    p->in.nodes >= 0x1000u)
		return 0;
	return (uint64_t)(p->project + 1) << 44 |
	       (uint64_t)p->in.node_group << 28 |
	       (uint64_t)(p->band == GQ_BAND_FAIR_SHARE) << 27 | g << 12 |
	       p->in.nodes;
}

/*
 * fits(P, ...) above.  `mine` and `scratch` have room for every node.
 * Victims leaving in their grace time count once, in room(n).  O(N x k +
 * E) for k saved nodes.
 */
static bool _fits_elsewhere(const gq_pass_t *pass, const gq_job_t *p,
			    const gq_saved_node_t *s, uint32_t *mine,
			    gq_node_idle_t *scratch)
{
	const gq_nodes_t *n = &pass->nodes;
	int i, m = 0;

	memset(mine, 0, sizeof(*mine) * n->nnodes);
	for (i = 0; i < n->npl; i++) {
		const gq_job_t *j = gq_store_at(&pass->store, n->pl_job[i]);

		if (j->in.state == GQ_JOB_RUNNING && !j->in.at_risk &&
		    gq_reclaim_allowed(&pass->reg, j, p))
			mine[n->pl_node[i]] += n->pl_gpus[i];
	}
	for (i = 0; i < n->nnodes; i++) {
		if (_is_saved(s, i) || n->node_closed[i] ||
		    !gq_nodes_allowed(n, p->in.node_group, i))
			continue;
		scratch[m].node = i;
		scratch[m++].idle = n->node_room[i] + mine[i];
	}
	return gq_fits_idle(p->in.gpus, p->in.gpus_per_node, p->in.nodes,
			    scratch, m);
}

/* _fits_elsewhere's scratch, room for every node; false: no memory
 * (then nothing is marked: jobs may take victims there). */
typedef struct {
	uint32_t *mine;
	gq_node_idle_t *idle;
} gq_fit_scratch_t;

static bool _scratch_new(gq_fit_scratch_t *f, int nnodes)
{
	f->mine = malloc(sizeof(*f->mine) * (nnodes + 1));
	f->idle = malloc(sizeof(*f->idle) * (nnodes + 1));
	return f->mine && f->idle;
}

static void _scratch_free(gq_fit_scratch_t *f)
{
	free(f->mine);
	free(f->idle);
}

/* Mark off_saved on the usual preemptors, each shape counted once (a
 * table of shape -> answer); all false without memory.  Returns whether
 * any job was looked at. */
static bool _mark(gq_pass_t *pass, const gq_saved_node_t *s)
{
	int i, count = gq_store_count(&pass->store);
	gq_fit_scratch_t f;
	bool ok = _scratch_new(&f, pass->nodes.nnodes);
	gq_hash_t shapes;

	gq_hash_init(&shapes, &gq_hash_ints);
	for (i = 0; i < count; i++) {
		gq_job_t *job = gq_store_at(&pass->store, i);
		uint64_t key;
		int off;

		job->off_saved = false;
		if (!s->nnodes || !ok || !_usual_preemptor(job, s->saved_for))
			continue;
		key = _shape_key(job);
		off = key ? gq_hash_get(&shapes, gq_key_int(key)) : -1;
		if (off < 0) {
			off = _fits_elsewhere(pass, job, s, f.mine, f.idle);
			/* no memory for the table: counted again next time */
			if (key)
				gq_hash_put(&shapes, gq_key_int(key), off);
		}
		job->off_saved = off;
	}
	gq_hash_free(&shapes);
	_scratch_free(&f);
	return s->nnodes > 0;
}

void gq_saved_node_set(gq_saved_node_t *s, gq_pass_t *pass, uint32_t id,
		       const gq_room_node_t *at, int n)
{
	bool was = s->marked;
	int i;

	gq_saved_node_clear(s);
	for (i = 0; id && i < n && i < GQ_RECLAIM_NODES; i++)
		if (at[i].node >= 0 && at[i].node < pass->nodes.nnodes &&
		    !_is_saved(s, at[i].node))
			s->nodes[s->nnodes++] = at[i].node;
	if (s->nnodes && s->nodes[0] == at[0].node) {
		s->saved_for = id;
		s->on = at[0];
	} else {
		s->nnodes = 0;	/* no first node: none saved */
	}
	if (was || s->nnodes)
		s->marked = _mark(pass, s);
}

void gq_saved_node_mark_late(const gq_saved_node_t *s, const gq_pass_t *pass,
			     gq_job_t *job)
{
	gq_fit_scratch_t f;

	job->off_saved = false;
	if (!s->nnodes || !_usual_preemptor(job, s->saved_for))
		return;
	if (_scratch_new(&f, pass->nodes.nnodes))
		job->off_saved = _fits_elsewhere(pass, job, s, f.mine, f.idle);
	_scratch_free(&f);
}

bool gq_saved_node_refuses(const gq_saved_node_t *s, const gq_pass_t *pass,
		      const gq_job_t *preemptor, const gq_job_t *preemptee)
{
	int i;

	if (!preemptor->off_saved || !s->nnodes)
		return false;
	for (i = 0; i < preemptee->place_n; i++)
		if (_is_saved(s, pass->nodes.pl_node[preemptee->place_first +
						     i]))
			return true;
	return false;
}
