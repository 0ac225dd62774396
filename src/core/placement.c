/*
 * placement.c - a view's nodes and where its running jobs sit (see
 * view.h, "Placement" and "Node groups"): each node's idle GPUs, whether
 * it takes work, its node groups, and each running job's GPUs per node.
 * Room (room.c), patience (patience.c) and the pass (view.c) read them;
 * this file calls none of them.
 */
#include <stdlib.h>
#include <string.h>

#include "core/view.h"
#include "core/job_store.h"
#include "core/view_impl.h"

#define GQ_PLACES_MIN_CAP 256

/* Room for nnodes in the per-node arrays; -1 when out of memory. */
static int _grow_nodes(gq_view_t *v, int nnodes)
{
	uint32_t *nf, *nr;
	uint8_t *nc;

	if (nnodes <= v->node_cap)
		return 0;
	if (!(nf = realloc(v->node_free, sizeof(*nf) * nnodes)))
		return -1;
	v->node_free = nf;
	if (!(nr = realloc(v->node_room, sizeof(*nr) * nnodes)))
		return -1;
	v->node_room = nr;
	if (!(nc = realloc(v->node_closed, sizeof(*nc) * nnodes)))
		return -1;
	v->node_closed = nc;
	v->node_cap = nnodes;
	return 0;
}

int gq_view_set_nodes(gq_view_t *v, int nnodes)
{
	if (_grow_nodes(v, nnodes)) {
		v->failed = true;
		return -1;
	}
	if (nnodes > 0) {
		memset(v->node_free, 0, sizeof(*v->node_free) * nnodes);
		memset(v->node_closed, 0, sizeof(*v->node_closed) * nnodes);
	}
	v->nnodes = nnodes;
	return 0;
}

void gq_view_close_node(gq_view_t *v, int node)
{
	if (node >= 0 && node < v->nnodes)
		v->node_closed[node] = 1;
}

int gq_view_set_groups(gq_view_t *v, int ngroups)
{
	size_t n = (size_t)ngroups * (v->nnodes > 0 ? v->nnodes : 1);

	if (ngroups < 0)
		return -1;
	if (n > (size_t)v->groups_cap) {
		uint8_t *g = realloc(v->groups, n);

		if (!g) {
			v->failed = true;
			return -1;
		}
		v->groups = g;
		v->groups_cap = (int)n;
	}
	if (n)
		memset(v->groups, 0, n);
	v->ngroups = ngroups;
	return 0;
}

int gq_view_node_group(gq_view_t *v, int node, int group)
{
	if (group < 1 || group > v->ngroups || node < 0 || node >= v->nnodes)
		return -1;
	v->groups[(size_t)(group - 1) * v->nnodes + node] = 1;
	return 0;
}

bool gq_view_node_allowed(const gq_view_t *v, uint32_t node_group, int node)
{
	if (!node_group || (int)node_group > v->ngroups)
		return true;	/* any node, or groups not given */
	return v->groups[(size_t)(node_group - 1) * v->nnodes + node];
}

void gq_view_node_free(gq_view_t *v, int node, uint32_t free_gpus)
{
	if (node >= 0 && node < v->nnodes)
		v->node_free[node] = free_gpus;
}

static int _grow_places(gq_view_t *v)
{
	int ncap = v->pl_cap ? v->pl_cap * 2 : GQ_PLACES_MIN_CAP;
	int *pn = realloc(v->pl_node, sizeof(*pn) * ncap);
	int *pj;
	uint32_t *pg;

	if (pn)
		v->pl_node = pn;
	if (!pn || !(pg = realloc(v->pl_gpus, sizeof(*pg) * ncap)))
		return -1;
	v->pl_gpus = pg;
	if (!(pj = realloc(v->pl_job, sizeof(*pj) * ncap)))
		return -1;
	v->pl_job = pj;
	v->pl_cap = ncap;
	return 0;
}

/*
 * May job idx have the next entry?  A job's entries must be consecutive.
 * During a pass its record holds its input alone (job_store.h): whether
 * it has entries the store keeps (gq_store_set_placed), its entries are
 * counted into its record once it is grouped (view.c, _set_places).
 */
static bool _next_place(gq_view_t *v, int idx)
{
	gq_job_t *job = gq_store_at(&v->store, idx);

	if (v->computed) {
		if (!job->place_n)
			job->place_first = v->npl;
		else if (job->place_first + job->place_n != v->npl)
			return false;
		job->place_n++;
		return true;
	}
	if (v->npl && v->pl_job[v->npl - 1] == idx)
		return true;
	return gq_store_set_placed(&v->store, idx);
}

int gq_view_place(gq_view_t *v, uint32_t job_id, int node, uint32_t gpus)
{
	int idx = gq_store_index(&v->store, job_id);

	if (idx < 0 || node < 0 || node >= v->nnodes)
		return -1;
	if (v->npl == v->pl_cap && _grow_places(v)) {
		v->failed = true;
		return -1;
	}
	if (!_next_place(v, idx))
		return -1;
	v->pl_node[v->npl] = node;
	v->pl_gpus[v->npl] = gpus;
	v->pl_job[v->npl++] = idx;
	return 0;
}
