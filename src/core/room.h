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
 * victims in reclaim order; *budget is the pass' budget, with the usual
 * sets marked from it.  When room is needed, the sets are made again:
 * room sets first, then the usual sets (*budget is replaced).  Returns
 * 0, or -1 when out of memory.
 */
int gq_room_make(gq_view_t *v, const int *order, int norder,
		 gq_budget_t **budget);

#endif
