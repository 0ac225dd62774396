/*
 * placement.c - a pass' nodes and where its running jobs sit (see
 * placement.h): each node's idle GPUs, whether it takes work, its node
 * groups and domain (switch or block), and each running job's GPUs per
 * node.  Room (room.c), patience (patience.c), the waits (waits.c) and
 * the pass (view.c) read them; this file calls none of them.
 */
#include <stdlib.h>
#include <string.h>

#include "core/job_store.h"
#include "core/placement.h"

#define GQ_PLACES_MIN_CAP 256

void gq_nodes_free(gq_nodes_t *n)
{
	free(n->node_free);
	free(n->node_closed);
	free(n->node_room);
	free(n->groups);
	free(n->node_domain);
	free(n->pl_node);
	free(n->pl_gpus);
	free(n->pl_job);
}

void gq_nodes_clear(gq_nodes_t *n)
{
	n->nnodes = 0;
	n->npl = 0;
	n->ngroups = 0;
	n->ndomains = 0;
}

/* Room for nnodes in the per-node arrays; -1 when out of memory. */
static int _grow_nodes(gq_nodes_t *n, int nnodes)
{
	uint32_t *nf, *nr;
	uint8_t *nc;
	int *nd;

	if (nnodes <= n->node_cap)
		return 0;
	if (!(nf = realloc(n->node_free, sizeof(*nf) * nnodes)))
		return -1;
	n->node_free = nf;
	if (!(nr = realloc(n->node_room, sizeof(*nr) * nnodes)))
		return -1;
	n->node_room = nr;
	if (!(nc = realloc(n->node_closed, sizeof(*nc) * nnodes)))
		return -1;
	n->node_closed = nc;
	if (!(nd = realloc(n->node_domain, sizeof(*nd) * nnodes)))
		return -1;
	n->node_domain = nd;
	n->node_cap = nnodes;
	return 0;
}

int gq_nodes_set(gq_nodes_t *n, int nnodes)
{
	if (_grow_nodes(n, nnodes))
		return -1;
	if (nnodes > 0) {
		memset(n->node_free, 0, sizeof(*n->node_free) * nnodes);
		memset(n->node_closed, 0, sizeof(*n->node_closed) * nnodes);
		memset(n->node_domain, 0xff, sizeof(*n->node_domain) * nnodes);
	}
	n->nnodes = nnodes;
	n->ndomains = 0;
	return 0;
}

void gq_nodes_close(gq_nodes_t *n, int node)
{
	if (node >= 0 && node < n->nnodes)
		n->node_closed[node] = 1;
}

int gq_nodes_set_groups(gq_nodes_t *n, int ngroups, bool *failed)
{
	size_t size = (size_t)ngroups * (n->nnodes > 0 ? n->nnodes : 1);

	if (ngroups < 0)
		return -1;
	if (size > (size_t)n->groups_cap) {
		uint8_t *g = realloc(n->groups, size);

		if (!g) {
			*failed = true;
			return -1;
		}
		n->groups = g;
		n->groups_cap = (int)size;
	}
	if (size)
		memset(n->groups, 0, size);
	n->ngroups = ngroups;
	return 0;
}

int gq_nodes_group(gq_nodes_t *n, int node, int group)
{
	if (group < 1 || group > n->ngroups || node < 0 || node >= n->nnodes)
		return -1;
	n->groups[(size_t)(group - 1) * n->nnodes + node] = 1;
	return 0;
}

bool gq_nodes_allowed(const gq_nodes_t *n, uint32_t node_group, int node)
{
	if (!node_group || n->ngroups <= 0 || node_group > (uint32_t)n->ngroups)
		return true;	/* any node, or groups not given */
	return n->groups[(size_t)(node_group - 1) * n->nnodes + node];
}

int gq_nodes_domain(gq_nodes_t *n, int node, int domain)
{
	if (node < 0 || node >= n->nnodes || domain < 0 || domain > 0xffff)
		return -1;
	n->node_domain[node] = domain;
	if (domain >= n->ndomains)
		n->ndomains = domain + 1;
	return 0;
}

void gq_nodes_idle(gq_nodes_t *n, int node, uint32_t free_gpus)
{
	if (node >= 0 && node < n->nnodes)
		n->node_free[node] = free_gpus;
}

static int _grow_places(gq_nodes_t *n)
{
	int ncap = n->pl_cap ? n->pl_cap * 2 : GQ_PLACES_MIN_CAP;
	int *pn = realloc(n->pl_node, sizeof(*pn) * ncap);
	int *pj;
	uint32_t *pg;

	if (pn)
		n->pl_node = pn;
	if (!pn || !(pg = realloc(n->pl_gpus, sizeof(*pg) * ncap)))
		return -1;
	n->pl_gpus = pg;
	if (!(pj = realloc(n->pl_job, sizeof(*pj) * ncap)))
		return -1;
	n->pl_job = pj;
	n->pl_cap = ncap;
	return 0;
}

/*
 * May job idx have the next entry?  A job's entries must be consecutive.
 * During a pass its record holds its input alone (job_store.h): whether
 * it has entries the store keeps (gq_store_set_placed), its entries are
 * counted into its record once it is grouped (view.c, _set_places).
 */
static bool _next_place(gq_nodes_t *n, gq_job_store_t *store, bool computed,
			int idx)
{
	gq_job_t *job = gq_store_at(store, idx);

	if (computed) {
		if (!job->place_n)
			job->place_first = n->npl;
		else if (job->place_first + job->place_n != n->npl)
			return false;
		job->place_n++;
		return true;
	}
	if (n->npl && n->pl_job[n->npl - 1] == idx)
		return true;
	return gq_store_set_placed(store, idx);
}

int gq_nodes_place(gq_nodes_t *n, gq_job_store_t *store, bool computed,
		   uint32_t job_id, int node, uint32_t gpus, bool *failed)
{
	int idx = gq_store_index(store, job_id);

	if (idx < 0 || node < 0 || node >= n->nnodes)
		return -1;
	if (n->npl == n->pl_cap && _grow_places(n)) {
		*failed = true;
		return -1;
	}
	if (!_next_place(n, store, computed, idx))
		return -1;
	n->pl_node[n->npl] = node;
	n->pl_gpus[n->npl] = gpus;
	n->pl_job[n->npl++] = idx;
	return 0;
}
