/*
 * patience.h - waiting for loans that end soon instead of reclaiming them
 * (settings.reclaim_patience; docs/MODEL.md "Patience for loans that end
 * soon").  Part of a pass: called by view.c after the candidates are
 * marked, before room-making.
 */
#ifndef GPUQUOTA_PATIENCE_H
#define GPUQUOTA_PATIENCE_H

#include "core/view.h"

/*
 * A loan is a running job that is a reclaim candidate (over quota) on a
 * node that takes work, whose time limit ends it within `patience`
 * seconds of v's now.  Each pending job that may reclaim, highest
 * priority first, that asks GPUs on one node and finds no node with room
 * now (idle GPUs and those leaving in a grace time: gq_room_nodes) but
 * one where that room and loans there cover it, waits for them
 * (gq_job_t.patient, waits_for: the loan that ends last of those it
 * counts on) and reclaims nothing; the GPUs it counts on are not counted
 * again for the next one.  Returns 0, or -1 (memory).  O(L log L + Pr x
 * (N + L)) for L loans, Pr such jobs, N nodes: nothing when patience is
 * 0 or there is no loan.
 */
int gq_patience_apply(gq_view_t *v, int patience);

#endif
