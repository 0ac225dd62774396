/*
 * topology.h - each node's domain for the core: its leaf switch
 * (topology/tree) or block (topology/block), from Slurm's topology
 * plugin (topology.c; docs/MODEL.md "Gangs").
 */
#ifndef GPUQUOTA_PLUGIN_TOPOLOGY_H
#define GPUQUOTA_PLUGIN_TOPOLOGY_H

#include "shared/slurm_compat.h"

/*
 * The domain of the node at node_ptr->index, numbered densely from 0, or
 * -1 (no tree or block topology, or a node outside every switch and
 * block).  Under the node read lock.  Cached until slurmctld's
 * configuration or node count changes; a rebuild reads each node's
 * address from the topology plugin, O(N x (S + D)) for S switches or
 * blocks and D domains.
 */
int gq_topo_domain(const node_record_t *node_ptr);

/* Forget the cache (plugin fini). */
void gq_topo_fini(void);

#endif
