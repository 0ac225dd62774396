/*
 * patience.h - waiting for loans that end soon instead of reclaiming them
 * (settings.reclaim_patience; docs/MODEL.md "Patience for loans that end
 * soon").  Part of a pass: called by view.c after the candidates are
 * marked, before room-making.
 */
#ifndef GPUQUOTA_PATIENCE_H
#define GPUQUOTA_PATIENCE_H

#include "core/pass.h"
#include "core/queue.h"

/*
 * The reclaims in flight of this pass's preemptors, as the pass began
 * (gq_view_expect_reclaims): their GPUs are promised.  Memory reused.
 */
typedef struct {
	gq_reclaim_at_t *at;
	int n, cap;
} gq_inflight_t;

/* Note n reclaims in flight (a copy).  0, or -1 (memory: none noted). */
int gq_inflight_set(gq_inflight_t *inflight, const gq_reclaim_at_t *r, int n);

/*
 * A loan, for a pending job J, is a running job on a node that takes work
 * whose time limit ends it within `patience` seconds of the pass' now and
 * that is one of J's reclaim candidates (another project's job, offered under
 * J's kind of reclaim: gq_reclaim_allowed); never a job in its project's
 * quota, nor one of J's own project.  Each pending job that may reclaim
 * (reclaimers, gq_queue_walk's list),
 * highest priority first, that asks GPUs on one node and finds no node
 * with room now (idle GPUs and those leaving in a grace time:
 * gq_room_nodes) but one where that room and its loans there cover it,
 * waits for them (gq_job_t.patient, waits_for: the loan that ends last of
 * those it counts on) and reclaims nothing; the GPUs it counts on are not
 * counted again for the next one.  A patient in-quota job takes the
 * priority of a job with no room (gq_band_priority_roomless): it can
 * start on nothing now.  Returns 0, or -1 (memory).  O(L log L + Pr x (N
 * + L)) for L loans, Pr such jobs, N nodes: nothing when patience is 0 or
 * there is no loan.
 */
int gq_patience_apply(gq_pass_t *pass, const gq_reclaimers_t *reclaimers,
		      const gq_inflight_t *inflight, int patience);

#endif
