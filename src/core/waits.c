/*
 * waits.c - who waits while GPUs come free for another job (docs/MODEL.md
 * "Reclaims in flight" and "The room wait"): the jobs that could start
 * on a reclaim in flight's victims' nodes, or on the node a room wait
 * keeps, are held for it (GQ_HOLD_RECLAIM, GQ_HOLD_ROOM).  The view's
 * gq_view_wait_for_reclaims and gq_view_keep_room (view.h) are here;
 * which job is a room waiter and its node are room.c's.
 */
#include <stdlib.h>

#include "core/job_store.h"
#include "core/room.h"
#include "core/view.h"
#include "core/view_impl.h"
#include "core/waits.h"

/*
 * Whom a pending job waits for while GPUs are reclaimed, or kept, for
 * another (0: nobody): only where it could start on a node they come
 * free on (a room wait's node; a reclaim's victims' nodes, unless not
 * known).  A room wait's hold gives way to the current wait (a reclaim in
 * flight, or another job GPUs are kept for); a reclaim's hold stays.
 * O(1), or O(K) for K victims' nodes noted.
 */
static uint32_t _waits_for_reclaim(const gq_view_t *v, const gq_job_t *job)
{
	int i;

	if (!v->waits_for || job->in.state != GQ_JOB_PENDING ||
	    !job->in.gpus || (job->hold && job->hold != GQ_HOLD_ROOM) ||
	    job->band == GQ_BAND_IN_QUOTA || job->in.id == v->waits_for)
		return 0;
	if (v->waits_hold == GQ_HOLD_ROOM)
		return gq_waits_could_land(v, job, &v->kept_on) ? v->waits_for :
								 0;
	if (v->wait_anywhere)
		return v->waits_for;
	for (i = 0; i < v->nwait_at; i++)
		if (v->wait_at_for[i] != job->in.id &&
		    gq_waits_could_land(v, job, &v->wait_at[i]))
			return v->wait_at_for[i];
	return 0;
}

void gq_waits_hold(gq_view_t *v, gq_job_t *job)
{
	uint32_t id = _waits_for_reclaim(v, job);

	if (!id)
		return;
	job->hold = v->waits_hold;
	job->waits_for = id;
}

/* Room for n more victims' nodes; -1 when out of memory. */
static int _grow_wait_at(gq_view_t *v, int n)
{
	gq_room_node_t *at;
	uint32_t *f;
	int cap = v->wait_at_cap ? v->wait_at_cap : 8;

	if (v->nwait_at + n <= v->wait_at_cap)
		return 0;
	while (cap < v->nwait_at + n)
		cap *= 2;
	if (!(at = realloc(v->wait_at, sizeof(*at) * cap)))
		return -1;
	v->wait_at = at;
	if (!(f = realloc(v->wait_at_for, sizeof(*f) * cap)))
		return -1;
	v->wait_at_for = f;
	v->wait_at_cap = cap;
	return 0;
}

/*
 * Note reclaim r's victims' nodes (any node when they are not known, out
 * of range, or memory runs out).  O(nodes noted).
 */
static void _wait_at(gq_view_t *v, const gq_reclaim_at_t *r)
{
	int i;

	if (r->nnodes < 0 || !v->nnodes || _grow_wait_at(v, r->nnodes)) {
		v->wait_anywhere = true;
		return;
	}
	for (i = 0; i < r->nnodes; i++) {
		if (r->node[i] < 0 || r->node[i] >= v->nnodes) {
			v->wait_anywhere = true;
			return;
		}
		v->wait_at[v->nwait_at] = (gq_room_node_t){ .node = r->node[i] };
		v->wait_at_for[v->nwait_at++] = r->preemptor;
	}
}

/* The noted nodes' GPUs, idle or held (gq_waits_could_land).  O(N + E). */
static void _wait_at_gpus(gq_view_t *v)
{
	uint32_t *g = calloc(v->nnodes + 1, sizeof(*g));
	int i;

	if (!g) {	/* no memory: any node */
		v->wait_anywhere = true;
		return;
	}
	for (i = 0; i < v->npl; i++)
		if (v->pl_node[i] >= 0 && v->pl_node[i] < v->nnodes)
			g[v->pl_node[i]] += v->pl_gpus[i];
	for (i = 0; i < v->nwait_at; i++)
		v->wait_at[i].gpus = v->node_free[v->wait_at[i].node] +
				     g[v->wait_at[i].node];
	free(g);
}

int gq_view_wait_for_reclaims(gq_view_t *v, const gq_reclaim_at_t *r, int n)
{
	int i, k, waiting = 0;

	v->waits_for = 0;
	v->waits_hold = GQ_HOLD_RECLAIM;
	v->nwait_at = 0;
	v->wait_anywhere = false;
	for (i = 0; i < n; i++) {
		const gq_job_t *er = gq_store_find(&v->store, r[i].preemptor);

		/* it started, or no longer may reclaim (the rest of an array
		 * whose in-quota tasks started is banded over its quota) */
		if (!er || er->in.state != GQ_JOB_PENDING || er->hold ||
		    er->band > GQ_BAND_FAIR_SHARE)
			continue;
		if (!waiting++)
			v->waits_for = er->in.id;
		_wait_at(v, &r[i]);
	}
	if (waiting && !v->wait_anywhere)
		_wait_at_gpus(v);
	for (k = 0; waiting && k < gq_store_count(&v->store); k++)
		gq_waits_hold(v, gq_store_at(&v->store, k));
	return waiting;
}

bool gq_view_keep_room(gq_view_t *v, uint32_t id, int prefer)
{
	const gq_job_t *er = id ? gq_store_find(&v->store, id) : NULL;
	int k;

	v->waits_for = 0;
	v->kept_on.node = -1;
	/* it started, or no longer is in quota, or is held */
	if (!er || er->in.state != GQ_JOB_PENDING || er->hold ||
	    er->band != GQ_BAND_IN_QUOTA || !v->nnodes)
		return false;
	v->kept_on = gq_room_wait_node(v, er, prefer);
	if (v->kept_on.node < 0)	/* no node it may use takes it */
		return false;
	v->waits_for = id;
	v->waits_hold = GQ_HOLD_ROOM;
	for (k = 0; k < gq_store_count(&v->store); k++)
		gq_waits_hold(v, gq_store_at(&v->store, k));
	return true;
}

uint32_t gq_view_kept_for(const gq_view_t *v)
{
	return v->waits_hold == GQ_HOLD_ROOM ? v->waits_for : 0;
}

const gq_room_node_t *gq_view_kept_node(const gq_view_t *v)
{
	static const gq_room_node_t none = { .node = -1 };

	return gq_view_kept_for(v) ? &v->kept_on : &none;
}

bool gq_waits_could_land(const gq_view_t *v, const gq_job_t *job,
			const gq_room_node_t *at)
{
	uint32_t gpn = job->in.gpus_per_node ? job->in.gpus_per_node : 1;

	return at->node >= 0 && at->node < v->nnodes && job->in.gpus &&
	       !v->node_closed[at->node] &&
	       gq_view_node_allowed(v, job->in.node_group, at->node) &&
	       gpn <= at->gpus;
}
