/*
 * waits.h - who waits while GPUs come free for another job (waits.c).
 * Internal to the core: the view's public calls are in view.h
 * (gq_view_wait_for_reclaims, gq_view_keep_room, gq_view_kept_for).
 */
#ifndef GPUQUOTA_WAITS_H
#define GPUQUOTA_WAITS_H

#include "core/room.h"
#include "core/view.h"

/*
 * Hold pending `job` for the job GPUs are reclaimed or kept for in this
 * view (v->waits_for), when it could start where they come free: its hold
 * becomes v->waits_hold, its waits_for that job.  Else nothing.  O(1), or
 * O(K) for K victims' nodes noted.
 */
void gq_waits_hold(gq_view_t *v, gq_job_t *job);

/*
 * Could pending `job` start on node at->node before the next pass?  It
 * asks GPUs, the node takes work, the job may use it (its partition,
 * --constraint and GPU type: its node group) and asks at most that
 * node's GPUs per node (at->gpus:
 * all of them, idle or held, since a job that ends there between passes
 * runs Slurm's scheduler before gpuquota's next pass).  A job that asks
 * GPUs for the whole job only (--gpus=N) could take one or more there.
 * O(1).
 */
bool gq_waits_could_land(const gq_view_t *v, const gq_job_t *job,
			const gq_room_node_t *at);

#endif
