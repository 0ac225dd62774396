/*
 * topology.c - each node's domain (see topology.h).  A node's address
 * from Slurm's topology plugin is its path down to it: "s0.s4.s8.tux1"
 * with topology/tree (top switch first), "b8.tux1" with topology/block.
 * Its domain is that address less ".<node name>": the leaf switch's path,
 * or the block.  Nodes of one domain share it; the core gets each
 * domain's number.
 */
#include <string.h>

#include "shared/slurm_compat.h"

#include "plugins/topology.h"
#include "plugins/xalloc.h"

/* The cache: one domain number per node index, and what it was built
 * from.  Used by the pass thread alone (gq_read_pass). */
static struct {
	int *domain;
	int nnodes;
	time_t conf;		/* slurm_conf.last_update when built */
	bool built;
} cache;

/* Node name's domain: its address less ".name"; NULL: none, or out of
 * memory (xfree). */
static char *_domain_of(char *name)
{
	char *addr = NULL, *pattern = NULL, *d = NULL;
	size_t la, ln = strlen(name);

	if (gq_topo_node_addr(name, &addr, &pattern) == SLURM_SUCCESS && addr &&
	    (la = strlen(addr)) > ln + 1 && addr[la - ln - 1] == '.' &&
	    !strcmp(addr + la - ln, name))
		d = gq_xprintf("%.*s", (int)(la - ln - 1), addr);
	xfree(addr);
	xfree(pattern);
	return d;
}

/* The number of domain d among names[0..*n), added when new (d is then
 * the table's); -1: out of memory.  O(D). */
static int _number(char ***names, int *n, int *cap, char *d)
{
	int i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*names)[i], d)) {
			xfree(d);
			return i;
		}
	if (gq_xgrow(names, *n, cap, sizeof(**names))) {
		xfree(d);
		return -1;
	}
	(*names)[*n] = d;
	return (*n)++;
}

/* Each node's domain, -1 for none.  Out of memory: none at all, and
 * built again at the next pass. */
static void _build(void)
{
	char **names = NULL;
	node_record_t *node_ptr;
	int i, n = 0, cap = 0, d = 0;
	bool on;

	xfree(cache.domain);
	cache.nnodes = 0;
	cache.built = false;
	if (!(cache.domain = gq_xcalloc(node_record_count + 1,
					 sizeof(*cache.domain))))
		return;
	for (i = 0; i < node_record_count; i++)
		cache.domain[i] = -1;
	on = node_record_count > 0 && gq_topo_tree_or_block();
	for (i = 0; on && d >= 0 && (node_ptr = next_node(&i)); i++) {
		char *name = _domain_of(node_ptr->name);

		if (name && (d = _number(&names, &n, &cap, name)) >= 0)
			cache.domain[node_ptr->index] = d;
	}
	for (i = 0; i < n; i++)
		xfree(names[i]);
	xfree(names);
	if (d < 0)
		return;
	if (n)
		info("gpuquota: %d switch or block domains over %d nodes; a job of several nodes gets room in one when one can give it",
		     n, node_record_count);
	cache.nnodes = node_record_count;
	cache.conf = slurm_conf.last_update;
	cache.built = true;
}

int gq_topo_domain(const node_record_t *node_ptr)
{
	int64_t i = node_ptr ? (int64_t)node_ptr->index : -1;

	if (!cache.built || cache.conf != slurm_conf.last_update ||
	    cache.nnodes != node_record_count)
		_build();
	if (!cache.built || i < 0 || i >= cache.nnodes)
		return -1;
	return cache.domain[i];
}

void gq_topo_fini(void)
{
	xfree(cache.domain);
	memset(&cache, 0, sizeof(cache));
}
