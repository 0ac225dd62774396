/*
 * room.h - victims chosen node by node when the usual candidates cannot
 * make room (docs/MODEL.md "Making room").  Part of a pass: called by
 * view.c after the usual sets are marked.
 */
#ifndef GPUQUOTA_ROOM_H
#define GPUQUOTA_ROOM_H

#include "core/reclaim.h"
#include "core/view.h"

/*
 * What each node offers a preemptor now (v->node_room): its idle GPUs
 * plus the GPUs of the victims leaving it in their grace time (at_risk:
 * warned, their GPUs counted as lost by reclaim.c, and offered first to
 * any job that may reclaim: room coming); 0 on a node that takes no new
 * work (gq_view_close_node), whatever it holds.  Before patience and
 * room-making.  O(N + E) for E placement entries.
 */
void gq_room_nodes(gq_view_t *v);

/*
 * For each pending job that may reclaim but whose usual candidates cannot
 * make room on its nodes, choose a set within the floors that does
 * (gq_job_t.room, and the view's room pairs).  `order` lists the eligible
 * victims in reclaim order; *allowance is the pass' allowance, with the usual
 * sets marked from it.  When room is needed, the sets are made again:
 * room sets first, then the usual sets (*allowance is replaced).  Returns
 * 0, or -1 when out of memory.
 */
int gq_room_make(gq_view_t *v, const int *order, int norder,
		 gq_allowance_t **allowance);

/*
 * The node where room waiter er (in quota, no room on any node: room.c,
 * _roomless) can start soonest, after the pass (gq_room_make): of the
 * nodes it may use (its node group), that take work and have at least
 * its GPUs per node, the one whose idle GPUs (with those of victims
 * leaving), then over-quota GPUs er may reclaim there within the floors
 * (the usual sets), then the GPUs of its other running jobs taken in the
 * order their --time ends them, reach its GPUs per node first
 * (gq_room_node_t.when); ties: more idle, then more to reclaim, then the
 * lower node index.  `prefer` (-1: none) is chosen instead while it is
 * one er may use.  Reads the view only.  node -1: none, or out of memory.
 * Cost: O(P + N + E log E) for E placement entries (the running jobs'
 * GPUs per node), per call: once per pool and pass, for its one waiter.
 */
gq_room_node_t gq_room_wait_node(const gq_view_t *v, const gq_job_t *er,
				 int prefer);

#endif
