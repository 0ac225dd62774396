/*
 * saved_node.h - the node saved for an in-quota job no node can take
 * (docs/MODEL.md "The saved node").
 *
 * An in-quota job W that asks GPUs per node may find no node that can
 * give it room within the floors (room.c lists it: a room waiter).  The
 * node where it can start soonest (gq_room_wait_node) is saved for it,
 * and for a gang of k nodes the k - 1 next soonest as well
 * (gq_room_wait_nodes, at most GQ_RECLAIM_NODES in all): every other job
 * that may reclaim, and can start on other nodes with the idle GPUs and
 * the victims it may take there, takes no victim on W's nodes.  Nothing
 * is held and no GPU is kept idle for it here (that is the room wait's,
 * waits.h); only the victims of other reclaims move.
 */
#ifndef GPUQUOTA_SAVED_NODE_H
#define GPUQUOTA_SAVED_NODE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/pass.h"
#include "core/room.h"

/* The node saved in one pool's pass, and for whom. */
typedef struct {
	uint32_t saved_for;	/* W, or 0: no node saved */
	gq_room_node_t on;	/* W's first node and its numbers (node -1:
				 * none): the one the room wait keeps GPUs
				 * on */
	int nodes[GQ_RECLAIM_NODES];	/* all W's nodes, on.node first */
	int nnodes;
	bool marked;		/* some job of the pass has off_saved set */
} gq_saved_node_t;

/* No node saved (a pass begins). */
void gq_saved_node_clear(gq_saved_node_t *s);

/*
 * Save the n nodes at[] (n <= GQ_RECLAIM_NODES; at[0] the first) for
 * pending job `id` and mark which jobs keep off them (gq_job_t.off_saved):
 * each pending job that may reclaim from the usual sets (not from a room
 * set of its own), other than `id`, that can start elsewhere.  It can
 * when its open nodes other than the saved ones give it
 * as many nodes as it asks, each with its GPUs per node (one GPU when it
 * asks none per node) from the node's room now (idle, plus victims
 * leaving in their grace time) and the GPUs of the running jobs there it
 * may reclaim (gq_reclaim_allowed).  A job of one GPU per node asking
 * gpus in all over one node counts them on one node.  n 0, at[0] node -1
 * or `id` 0: nothing saved, no job keeps off.  O(J) to clear the marks (none
 * when no job was marked), plus O(N + E) per shape of such jobs (project,
 * band, node group, GPUs per node or in all, nodes: each counted once)
 * for N nodes and E placement entries.  The shapes grow with projects,
 * not jobs: a queue of one-GPU jobs costs O(J + P x (N + E)).
 */
void gq_saved_node_set(gq_saved_node_t *s, gq_pass_t *pass, uint32_t id,
		       const gq_room_node_t *at, int n);

/*
 * The same mark for one job added after the pass (it may reclaim before
 * the next pass: Slurm tries a submit at once).  O(N + E) when a node is
 * saved and the job may reclaim, else O(1).
 */
void gq_saved_node_mark_late(const gq_saved_node_t *s, const gq_pass_t *pass,
			     gq_job_t *job);

/* Do the saved nodes refuse `preemptee` to `preemptor`: the preemptor
 * keeps off them and the preemptee holds GPUs on one?  O(nodes of the
 * preemptee x saved nodes). */
bool gq_saved_node_refuses(const gq_saved_node_t *s, const gq_pass_t *pass,
		      const gq_job_t *preemptor, const gq_job_t *preemptee);

#endif
