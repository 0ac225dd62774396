/*
 * room.h - victims chosen node by node when the usual candidates cannot
 * make room (docs/MODEL.md "Making room").  Part of a pass: called by
 * view.c after the usual sets are marked.
 */
#ifndef GPUQUOTA_ROOM_H
#define GPUQUOTA_ROOM_H

#include "tools/bucket.h"
#include "tools/hash.h"
#include "core/pass.h"
#include "core/queue.h"
#include "core/reclaim.h"

/*
 * What room-making keeps of a pass: the room sets, who waits for room,
 * and the eligible victims' entries by node (memory reused).
 */
typedef struct {
	gq_hash_t pairs;	/* (preemptor, victim) pairs that make room */
	uint32_t *roomless;	/* in-quota jobs that can get room on no
				 * node now but would fit on their nodes
				 * emptied, by priority: who freed GPUs may
				 * be kept for (waits.h) */
	int nroomless, roomless_cap;
	gq_buckets_t bynode;	/* placement entries by node */
} gq_room_t;

void gq_room_init(gq_room_t *room);
/* Forget the room sets and waiters (a pass begins). */
void gq_room_clear(gq_room_t *room);
void gq_room_free(gq_room_t *room);

/* Is (preemptor, victim) one of the room sets' pairs?  O(1). */
bool gq_room_pair(const gq_room_t *room, uint32_t preemptor, uint32_t victim);

/* Offer victim to preemptor as part of its room set (move.h).  0, or -1
 * (memory).  O(1). */
int gq_room_add_pair(gq_room_t *room, uint32_t preemptor, uint32_t victim);

/* The room waiters (view.h, gq_view_room_waiters).  O(1). */
int gq_room_waiters(const gq_room_t *room, const uint32_t **ids);

/*
 * The node a room waiter waits on (docs/MODEL.md "Holds", room wait):
 * where it can start soonest, and the numbers that say so.
 */
typedef struct {
	int node;		/* index (gq_view_set_nodes); -1: none */
	uint32_t gpus;		/* its GPUs, idle or held by running jobs */
	uint32_t idle;		/* what it offers now: idle, plus GPUs of
				 * victims leaving in their grace time */
	uint32_t reclaim;	/* over-quota GPUs there the waiter may
				 * reclaim within the floors (the usual
				 * sets of the pass) */
	int64_t when;		/* when it has the waiter's GPUs per node
				 * free: the view's now when idle + reclaim
				 * cover them, else the latest --time end of
				 * the jobs there that must end first, the
				 * soonest ending first; INT64_MAX when one of
				 * them has no time limit */
} gq_room_node_t;

/*
 * What each node offers a preemptor now (node_room): its idle GPUs
 * plus the GPUs of the victims leaving it in their grace time (at_risk:
 * warned, their GPUs counted as lost by reclaim.c, and offered first to
 * any job that may reclaim: room coming); 0 on a node that takes no new
 * work (gq_view_close_node), whatever it holds.  Before patience and
 * room-making.  O(N + E) for E placement entries.
 */
void gq_room_nodes(gq_pass_t *pass);

/*
 * For each pending job that may reclaim but whose usual candidates cannot
 * make room on its nodes, choose a set within the floors that does
 * (gq_job_t.room, and room's pairs), looking through the jobs that may
 * reclaim.  runs->order lists the eligible victims in reclaim order;
 * *allowance is the pass' allowance, with the usual
 * sets marked from it.  When room is needed, the sets are made again:
 * room sets first, then the usual sets (*allowance is replaced).  A job
 * whose usual set no longer gives it room once marked (a room set took
 * a victim it counted on) needs room too: made again, at most
 * GQ_ROOM_ROUNDS times; after the last, it has none (gq_job_t.roomless).
 * Every job that may reclaim and asks GPUs per node ends with a room
 * set, a usual set that gives it room, or no room.  Returns 0, or -1
 * when out of memory.
 */
int gq_room_make(gq_pass_t *pass, gq_room_t *room,
		 const gq_reclaimers_t *reclaimers, const gq_reclaim_runs_t *runs,
		 gq_allowance_t **allowance);

/*
 * The node where room waiter preemptor (in quota, no room on any node: room.c,
 * _roomless) can start soonest, after the pass (gq_room_make): of the
 * nodes it may use (its node group), that take work and have at least
 * its GPUs per node, the one whose idle GPUs (with those of victims
 * leaving), then over-quota GPUs preemptor may reclaim there within the floors
 * (the usual sets), then the GPUs of its other running jobs taken in the
 * order their --time ends them, reach its GPUs per node first
 * (gq_room_node_t.when); ties: more idle, then more to reclaim, then the
 * lower node index.  `prefer` (-1: none) is chosen instead while it is
 * one preemptor may use.  Reads the pass only.  node -1: none, or out of
 * memory.
 * Cost: O(P + N + E log E) for E placement entries (the running jobs'
 * GPUs per node), per call: once per pool and pass, for its one waiter.
 */
gq_room_node_t gq_room_wait_node(const gq_pass_t *pass,
				 const gq_job_t *preemptor, int prefer);

/*
 * A gang's nodes to wait on: out[0] as gq_room_wait_node gives it (with
 * prefer[0] as its `prefer`), then up to its nodes - 1 more (at most max
 * in all): prefer[k] while preemptor may still use it, else the soonest
 * of the rest by the same order, those in out[0]'s switch or block first
 * (topology/tree, topology/block).  prefer: the nodes chosen in the pass
 * before (nprefer of them; 0: none), kept as the first node is.  Returns
 * how many are in out (0: none, or out of memory).  Cost: as
 * gq_room_wait_node, plus O(N x k^2) for k nodes chosen (k <= max).
 */
int gq_room_wait_nodes(const gq_pass_t *pass, const gq_job_t *preemptor,
		       const int *prefer, int nprefer, gq_room_node_t *out,
		       int max);

#endif
