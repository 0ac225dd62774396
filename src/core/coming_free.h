/*
 * coming_free.h - GPUs coming free: a preemptor waits for completing nodes
 * instead of taking victims (docs/MODEL.md "GPUs coming free").
 *
 * When a job ends, Slurm gives its GPUs back at once but lets no job start
 * on its node until the node's epilog is done (the node is COMPLETING, in
 * slurmctld's cg_node_bitmap), usually within a second.  A scheduling
 * cycle in that second sees no room for an in-quota job and would reclaim
 * elsewhere; a moment later the job starts on the completed node and the
 * victims were requeued for nothing.  So a preemptor that fits on the idle
 * GPUs of the completing nodes it may use takes no victims, for at most
 * GQ_COMING_FREE_WAIT seconds from the first time it waited (a node that
 * stays completing, e.g. a hung epilog, does not stop reclaim).
 */
#ifndef GPUQUOTA_COMING_FREE_H
#define GPUQUOTA_COMING_FREE_H

#include <stdbool.h>
#include <stdint.h>

/* How long a preemptor waits for completing nodes, at most (seconds). */
#define GQ_COMING_FREE_WAIT 10

/* A node and its idle GPUs (node: slurmctld's node index). */
typedef struct {
	int node;
	uint32_t idle;
} gq_node_idle_t;

/*
 * Could a job run on the idle GPUs of these nodes alone?  With a per-node
 * request (gpus_per_node > 0): `nodes` (0 is taken as 1) of them with at
 * least gpus_per_node idle each.  Without: `gpus` on one node, or, for a
 * job of several nodes, `gpus` over `nodes` of them.  GPUs only: CPUs and
 * memory are Slurm's to check when it starts the job.  May reorder n.
 * O(count x nodes).
 */
bool gq_fits_idle(uint32_t gpus, uint32_t gpus_per_node, uint32_t nodes,
		  gq_node_idle_t *n, int count);

#endif
