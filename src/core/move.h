/*
 * move.h - a move: another project's in-quota job requeued to empty the
 * node saved for a room waiter, when it can restart at once elsewhere
 * (docs/MODEL.md "Moves").
 *
 * Owns which jobs may be moved, where each restarts, and the bound on
 * what a move requeues.  The waiter W and its node S come from the saved
 * node (saved_node.h); the pass offers W the move's victims as a room
 * set (room.h), so Slurm requeues them for W as for any reclaim.
 */
#ifndef GPUQUOTA_MOVE_H
#define GPUQUOTA_MOVE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/pass.h"
#include "core/room.h"

/* Jobs moved for one waiter, at most, over all its nodes: a node's
 * worth of small jobs. */
#define GQ_MOVE_MAX 8

/* What allows a move, from the configuration and the state. */
typedef struct {
	int64_t age;		/* settings.move_age: a job started or
				 * saved a checkpoint less than this ago
				 * may be moved; 0: moves off */
	int64_t waited;		/* seconds since W's node was first saved
				 * for it (0: saved in this pass) */
	int64_t grace;		/* settings.grace_time: W waits past it */
	int min_runtime;	/* a moved job is old enough to be a victim */
	/* was job `id` moved within settings.move_window?  NULL: never */
	bool (*moved_lately)(uint32_t id, void *ctx);
	void *ctx;
	/* the reclaims in flight and landings of the pass (pass.h): the
	 * GPUs of a landing still kept are not room for another move */
	const gq_reclaim_at_t *inflight;
	int ninflight;
} gq_move_rules_t;

/* One pass' move: W, its first node, the jobs moved (from any of its
 * nodes) and where each restarts. */
typedef struct {
	uint32_t waiter;	/* W; 0: no move in this pass */
	int node;		/* S, W's first node */
	int n;
	uint32_t moved[GQ_MOVE_MAX];	/* the moved jobs M */
	int to[GQ_MOVE_MAX];		/* the node each restarts on */
	uint32_t borrowed;	/* GPUs of borrowed work on W's nodes
				 * requeued for W */
	uint32_t gpus;		/* GPUs of the moved jobs there */
} gq_move_t;

void gq_move_clear(gq_move_t *m);

/*
 * Plan a move for waiter `w` on its saved nodes nodes[0 .. nnodes) (one,
 * or each node of a gang; `at` the first, with its numbers) and offer it:
 * W's victims (borrowed jobs on its nodes that W may reclaim, then the
 * moved jobs) become W's room set in `room`, W gets back its band's
 * priority.  Nothing is planned unless moves are on, W asks GPUs per
 * node and has all its nodes saved, it waited past the grace
 * (rules->waited > 0 and >= rules->grace) and its first node does not
 * come free by waiting within rules->age.  On each node S: nothing when
 * S has W's GPUs idle; W's borrowed victims there alone when they give
 * it room; else moved jobs.  Each moved job M is another project's
 * running job on S alone, requeueable, old enough to be a victim, its
 * project (and department) holding and asking no more than its quota,
 * not a candidate of W, its nodes known (not GQ_NODES_UNKNOWN), started
 * or checkpointed less than rules->age ago and not moved lately; the
 * least work lost first.  M restarts on a node, none of W's, that it may
 * use, whose room (idle, leaving) and GPUs M's project may reclaim there
 * in quota cover M, each node's GPUs counted for one M only.  The bound
 * on each S, g W's GPUs per node: room(S) + borrowed + gpus >= g,
 * room(S) + gpus <= g, borrowed + gpus <= g; at most GQ_MOVE_MAX moved
 * jobs in all.  After each moved job, a set of W's borrowed victims on S
 * within the bound, in reclaim order: the first plan where W fits on S
 * is kept.  A plan with every node kept and at least one job moved is
 * offered.  Returns true when a move is offered (*out filled: the
 * borrowed and moved GPUs summed over the nodes).  Per node O(E log E)
 * for the jobs on it, plus O(N x k + E + P + B x g) per moved job tried
 * (at most the jobs on it; B the borrowed ones), k nodes.
 */
bool gq_move_plan(gq_pass_t *pass, gq_room_t *room, gq_job_t *w,
		  const gq_room_node_t *at, const int *nodes, int nnodes,
		  const gq_move_rules_t *rules, gq_move_t *out);

/* The node moved job `victim` restarts on when the move is W's; -1: the
 * pair is no move.  O(GQ_MOVE_MAX). */
int gq_move_to(const gq_move_t *m, uint32_t preemptor, uint32_t victim);

#endif
