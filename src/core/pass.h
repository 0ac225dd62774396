/*
 * pass.h - what every step of a pass reads: the projects (registry.h),
 * the jobs (job_store.h), the nodes and placement (placement.h) and the
 * time the pass is at; and a reclaim in flight, as the pass is told of
 * it.  The view (view.c) fills them; queue.c, reclaim.c, room.c,
 * patience.c and waits.c are given what they need of them.
 */
#ifndef GPUQUOTA_PASS_H
#define GPUQUOTA_PASS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/job_store.h"
#include "core/placement.h"
#include "core/registry.h"

/* The nodes of a reclaim in flight noted, at most (more: any node); the
 * nodes saved for a gang, at most (saved_node.h). */
#define GQ_RECLAIM_NODES 8

/* Is `node` one of nodes[0 .. n)?  O(n): n is at most GQ_RECLAIM_NODES
 * where the core asks. */
static inline bool gq_node_in(const int *nodes, int n, int node)
{
	while (n-- > 0)
		if (nodes[n] == node)
			return true;
	return false;
}

typedef struct {
	gq_registry_t reg;	/* projects, departments, accounts */
	/* the jobs of the pass, by index and by id: reached through the
	 * store's functions alone (job_store.h) */
	gq_job_store_t store;
	gq_nodes_t nodes;	/* placement, for making room (optional) */
	/* the nodes saved in the pass before (saved_node.h): room sets
	 * take them last */
	int saved_before[GQ_RECLAIM_NODES];
	int nsaved_before;
	int64_t now;
} gq_pass_t;

/*
 * A reclaim in flight: its preemptor and the nodes its victims free.  Or
 * a moved job's landing (move.h, `landing`): the job, in its grace time
 * or waiting out Slurm's requeue delay, and the node it restarts on.
 */
typedef struct {
	uint32_t preemptor;
	bool landing;
	int nnodes;		/* -1: not known (rebuilt after a restart, or
				 * more than GQ_RECLAIM_NODES): any node */
	int node[GQ_RECLAIM_NODES];	/* view node indices */
} gq_reclaim_at_t;

#endif
