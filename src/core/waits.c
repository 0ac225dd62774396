/*
 * waits.c - who waits while GPUs come free for another job (docs/MODEL.md
 * "Reclaims in flight" and "The room wait"): the jobs that could start
 * on a reclaim in flight's victims' nodes, or on the node a room wait
 * keeps, are held for it (GQ_HOLD_RECLAIM, GQ_HOLD_ROOM).  The view's
 * gq_view_wait_for_reclaims and gq_view_keep_room (view.h) call here;
 * which job is a room waiter and its node are room.c's.
 */
#include <stdlib.h>

#include "core/job_store.h"
#include "core/placement.h"
#include "core/room.h"
#include "core/waits.h"

void gq_waits_clear(gq_waits_t *w)
{
	w->waits_for = 0;
	w->kept_on.node = -1;
	w->nat = 0;
	w->anywhere = false;
}

void gq_waits_free(gq_waits_t *w)
{
	free(w->at);
	free(w->at_for);
	free(w->at_gang);
}

/*
 * Backfill on the kept node: a job whose --time ends it before the room
 * waiter can start there (kept_on.when) gives the GPUs back in time, so
 * it is not held.  when <= now: the waiter can start now; INT64_MAX: only
 * when jobs without a time limit end.  O(1).
 */
static bool _ends_first(const gq_waits_t *w, const gq_job_t *job)
{
	return job->in.time_limit && w->kept_on.when != INT64_MAX &&
	       w->kept_at + (int64_t)job->in.time_limit <= w->kept_on.when;
}

/*
 * May the job start before the next pass: pending, or eligible on its
 * own (its begin time passes: a requeued victim, whose requeue delay
 * ends with a moved job's; a dependency met).  Such a job is held in
 * advance, as for a limit (docs/MODEL.md "Holds").
 */
static bool _may_start(const gq_job_t *job)
{
	return job->in.state == GQ_JOB_PENDING || job->in.begins_later;
}

/* Is the job the preemptor of a reclaim noted?  O(K). */
static bool _preempts(const gq_waits_t *w, uint32_t id)
{
	int i;

	for (i = 0; i < w->nat; i++)
		if (w->at_for[i] == id)
			return true;
	return false;
}

/*
 * Whom a job that may start waits for while GPUs are reclaimed, or kept,
 * for another (0: nobody): only where it could start on a node they come
 * free on (a room wait's node; a reclaim's victims' nodes, unless not
 * known).  Work outside quotas waits for any of them; an in-quota job
 * only on the victims' nodes of an in-quota gang (a preemptor of several
 * nodes), and never while it is a preemptor in flight itself: a gang
 * needs every GPU freed there, a job of one node takes what comes free
 * elsewhere.  A room wait's hold gives way to the current wait (a
 * reclaim in flight, or another job GPUs are kept for); a reclaim's hold
 * stays.  O(1), or O(K) for K victims' nodes noted.
 */
static uint32_t _waits_for_reclaim(const gq_waits_t *w,
				   const gq_nodes_t *nodes,
				   const gq_job_t *job)
{
	bool inq = job->band == GQ_BAND_IN_QUOTA;
	int i;

	if (!w->waits_for || !_may_start(job) ||
	    !job->in.gpus || (job->hold && job->hold != GQ_HOLD_ROOM) ||
	    job->in.id == w->waits_for)
		return 0;
	if (w->hold == GQ_HOLD_ROOM)
		return !inq && gq_waits_could_land(nodes, job, &w->kept_on) &&
		       !_ends_first(w, job) ? w->waits_for : 0;
	if (w->anywhere)
		return inq ? 0 : w->waits_for;
	if (inq && _preempts(w, job->in.id))
		return 0;
	for (i = 0; i < w->nat; i++)
		if (w->at_for[i] != job->in.id && (!inq || w->at_gang[i]) &&
		    gq_waits_could_land(nodes, job, &w->at[i]))
			return w->at_for[i];
	return 0;
}

void gq_waits_hold(const gq_waits_t *w, const gq_nodes_t *nodes,
		   gq_job_t *job)
{
	uint32_t id = _waits_for_reclaim(w, nodes, job);

	if (!id)
		return;
	job->hold = w->hold;
	job->waits_for = id;
}

/* Room for n more victims' nodes; -1 when out of memory. */
static int _grow_wait_at(gq_waits_t *w, int n)
{
	gq_room_node_t *at;
	uint32_t *f;
	uint8_t *g;
	int cap = w->at_cap ? w->at_cap : 8;

	if (w->nat + n <= w->at_cap)
		return 0;
	while (cap < w->nat + n)
		cap *= 2;
	if (!(at = realloc(w->at, sizeof(*at) * cap)))
		return -1;
	w->at = at;
	if (!(f = realloc(w->at_for, sizeof(*f) * cap)))
		return -1;
	w->at_for = f;
	if (!(g = realloc(w->at_gang, cap)))
		return -1;
	w->at_gang = g;
	w->at_cap = cap;
	return 0;
}

/*
 * Note reclaim r's victims' nodes (any node when they are not known, out
 * of range, or memory runs out), and whether its preemptor is a gang.
 * O(nodes noted).
 */
static void _wait_at(gq_waits_t *w, const gq_nodes_t *nodes,
		     const gq_reclaim_at_t *r, bool gang)
{
	int i;

	if (r->nnodes < 0 || !nodes->nnodes || _grow_wait_at(w, r->nnodes)) {
		w->anywhere = true;
		return;
	}
	for (i = 0; i < r->nnodes; i++) {
		if (r->node[i] < 0 || r->node[i] >= nodes->nnodes) {
			w->anywhere = true;
			return;
		}
		w->at[w->nat] = (gq_room_node_t){ .node = r->node[i] };
		w->at_gang[w->nat] = gang;
		w->at_for[w->nat++] = r->preemptor;
	}
}

/* The noted nodes' GPUs, idle or held (gq_waits_could_land).  O(N + E). */
static void _wait_at_gpus(gq_waits_t *w, const gq_nodes_t *nodes)
{
	uint32_t *g = calloc(nodes->nnodes + 1, sizeof(*g));
	int i;

	if (!g) {	/* no memory: any node */
		w->anywhere = true;
		return;
	}
	for (i = 0; i < nodes->npl; i++)
		if (nodes->pl_node[i] >= 0 && nodes->pl_node[i] < nodes->nnodes)
			g[nodes->pl_node[i]] += nodes->pl_gpus[i];
	for (i = 0; i < w->nat; i++)
		w->at[i].gpus = nodes->node_free[w->at[i].node] +
				g[w->at[i].node];
	free(g);
}

bool gq_waits_still_for(const gq_reclaim_at_t *r, const gq_job_t *j)
{
	if (!j || j->hold)
		return false;
	if (r->landing && j->in.state != GQ_JOB_PENDING)
		return true;	/* in its grace time, or requeued */
	return j->in.state == GQ_JOB_PENDING && j->band <= GQ_BAND_FAIR_SHARE;
}

int gq_waits_for_reclaims(gq_waits_t *w, gq_job_store_t *store,
			  const gq_nodes_t *nodes, const gq_reclaim_at_t *r,
			  int n)
{
	int i, k, waiting = 0;

	w->waits_for = 0;
	w->hold = GQ_HOLD_RECLAIM;
	w->nat = 0;
	w->anywhere = false;
	for (i = 0; i < n; i++) {
		const gq_job_t *preemptor = gq_store_find(store, r[i].preemptor);

		/* it started, or no longer may reclaim (the rest of an array
		 * whose in-quota tasks started is banded over its quota) */
		if (!gq_waits_still_for(&r[i], preemptor))
			continue;
		if (!waiting++)
			w->waits_for = preemptor->in.id;
		_wait_at(w, nodes, &r[i], !r[i].landing &&
			 preemptor->in.nodes > 1 &&
			 preemptor->band == GQ_BAND_IN_QUOTA);
	}
	if (waiting && !w->anywhere)
		_wait_at_gpus(w, nodes);
	for (k = 0; waiting && k < gq_store_count(store); k++)
		gq_waits_hold(w, nodes, gq_store_at(store, k));
	return waiting;
}

bool gq_waits_keep_room(gq_waits_t *w, gq_pass_t *pass, uint32_t id,
			int prefer)
{
	gq_job_store_t *store = &pass->store;
	const gq_job_t *waiter = id ? gq_store_find(store, id) : NULL;
	int k;

	w->waits_for = 0;
	w->kept_on.node = -1;
	if (!gq_job_still_room_waiter(waiter) || !pass->nodes.nnodes)
		return false;
	w->kept_on = gq_room_wait_node(pass, waiter, prefer);
	if (w->kept_on.node < 0)	/* no node it may use takes it */
		return false;
	w->waits_for = id;
	w->hold = GQ_HOLD_ROOM;
	w->kept_at = pass->now;
	for (k = 0; k < gq_store_count(store); k++)
		gq_waits_hold(w, &pass->nodes, gq_store_at(store, k));
	return true;
}

uint32_t gq_waits_kept_for(const gq_waits_t *w)
{
	return w->hold == GQ_HOLD_ROOM ? w->waits_for : 0;
}

const gq_room_node_t *gq_waits_kept_node(const gq_waits_t *w)
{
	static const gq_room_node_t none = { .node = -1 };

	return gq_waits_kept_for(w) ? &w->kept_on : &none;
}

bool gq_waits_could_land(const gq_nodes_t *nodes, const gq_job_t *job,
			 const gq_room_node_t *at)
{
	uint32_t gpn = job->in.gpus_per_node ? job->in.gpus_per_node : 1;

	return at->node >= 0 && at->node < nodes->nnodes && job->in.gpus &&
	       !nodes->node_closed[at->node] &&
	       gq_nodes_allowed(nodes, job->in.node_group, at->node) &&
	       gpn <= at->gpus;
}
