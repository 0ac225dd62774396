/*
 * waits.h - who waits while GPUs come free for another job (waits.c).
 * Internal to the core: the view's public calls are in view.h
 * (gq_view_wait_for_reclaims, gq_view_keep_room, gq_view_kept_for).
 */
#ifndef GPUQUOTA_WAITS_H
#define GPUQUOTA_WAITS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/job.h"
#include "core/pass.h"
#include "core/placement.h"
#include "core/room.h"

/*
 * The wait of a pass: the job GPUs are reclaimed or kept for, how its
 * waiters are held, and where they must not start.
 */
typedef struct {
	uint32_t waits_for;	/* a reclaim in flight: its preemptor, or the
				 * job freed GPUs are kept for (0: none) */
	gq_hold_t hold;		/* GQ_HOLD_RECLAIM or GQ_HOLD_ROOM */
	gq_room_node_t kept_on;	/* GQ_HOLD_ROOM: the node GPUs are kept on
				 * (gq_waits_keep_room) */
	int64_t kept_at;	/* GQ_HOLD_ROOM: the pass's time */
	/* GQ_HOLD_RECLAIM: the victims' nodes of the reclaims waited for
	 * (gq_waits_for_reclaims), each with its preemptor; none noted
	 * when anywhere */
	gq_room_node_t *at;
	uint32_t *at_for;
	uint8_t *at_gang;	/* its preemptor asks several nodes: in-quota
				 * jobs wait on that node too */
	int nat, at_cap;
	bool anywhere;
} gq_waits_t;

/* Nobody waits (a pass begins). */
void gq_waits_clear(gq_waits_t *w);
void gq_waits_free(gq_waits_t *w);

/*
 * Hold pending `job` for the job GPUs are reclaimed or kept for
 * (w->waits_for), when it could start where they come free: its hold
 * becomes w->hold, its waits_for that job.  Else nothing.  O(1), or O(K)
 * for K victims' nodes noted.
 */
void gq_waits_hold(const gq_waits_t *w, const gq_nodes_t *nodes,
		   gq_job_t *job);

/*
 * Does the job `j` of reclaim in flight `r` still wait for the GPUs
 * freed for it?  A preemptor: while it is pending, not held, in quota or
 * fair share.  A moved job (r->landing): until it starts again (the
 * state forgets the landing then) or leaves the queue; meanwhile it may
 * run in its grace time, be requeued and wait out Slurm's requeue delay;
 * not held by gpuquota, and pending in quota or fair share.  NULL: no.
 * O(1).
 */
bool gq_waits_still_for(const gq_reclaim_at_t *r, const gq_job_t *j);

/* gq_view_wait_for_reclaims (view.h), on the pass' jobs and nodes. */
int gq_waits_for_reclaims(gq_waits_t *w, gq_job_store_t *store,
			  const gq_nodes_t *nodes, const gq_reclaim_at_t *r,
			  int n);

/* gq_view_keep_room (view.h): the node from gq_room_wait_node. */
bool gq_waits_keep_room(gq_waits_t *w, gq_pass_t *pass, uint32_t id,
			int prefer);

/* The job freed GPUs are kept for, or 0; the node (node -1: none). */
uint32_t gq_waits_kept_for(const gq_waits_t *w);
const gq_room_node_t *gq_waits_kept_node(const gq_waits_t *w);

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
bool gq_waits_could_land(const gq_nodes_t *nodes, const gq_job_t *job,
			 const gq_room_node_t *at);

#endif
