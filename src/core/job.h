/*
 * job.h - a job of a pass: what Slurm knows of it (gq_job_in_t, the input
 * of a pass) and its record (gq_job_t: that input, then what the pass
 * decided of it).
 *
 * Owns: the types alone.  The view takes jobs in (view.h, gq_view_add_job)
 * and answers with their records; the job store keeps the records
 * (job_store.h); the steps of a pass write their decisions into them
 * (queue.c, reclaim.c, room.c, patience.c).  No Slurm header here.
 */
#ifndef GPUQUOTA_JOB_H
#define GPUQUOTA_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "core/band.h"

typedef enum {
	GQ_JOB_RUNNING,		/* running or suspended: holds GPUs */
	GQ_JOB_PENDING,		/* pending and eligible to start */
	GQ_JOB_WAITING,		/* pending but held, on a dependency or begin time */
} gq_job_state_t;

/* gq_job_in_t.node_group of a running job whose nodes the pass does not
 * know (--nodelist, --exclude, a narrowing no pending job has). */
#define GQ_NODES_UNKNOWN UINT32_MAX

/* What Slurm knows about a job: the input of a pass. */
typedef struct {
	uint32_t id;
	gq_job_state_t state;
	uint32_t gpus;		/* allocated (running) or requested (pending),
				 * all nodes */
	uint32_t tasks;		/* pending array tasks behind this record;
				 * 0 is taken as 1 */
	uint32_t tasks_at_once;	/* how many of them Slurm may start at once
				 * (the array's %N throttle); 0: all */
	union {
		uint32_t saved_secs;	/* running: how far into its run its
					 * last checkpoint was (gpuquota
					 * checkpoint, gq_facts_saved_at); 0:
					 * none.  Orders victims inside a
					 * project, never the ledger's loss
					 * (its owner writes it) */
		uint32_t time_limit;	/* pending: its --time in seconds;
					 * 0: none (waits.h, the room wait) */
	};
	int64_t order;		/* Slurm's order inside a project, higher
				 * first (gq_job_order: QOS priority, nice) */
	int64_t site_order;	/* multifactor's part of its priority, rounded:
				 * inside a project before `order`, higher
				 * first; 0 without multifactor's weights */
	union {
		int64_t submit_time;	/* pending */
		int64_t ends_by;	/* running: when its time limit ends
					 * it; 0: no limit (patience.h) */
	};
	int64_t start_time;
	/* shape of a pending job, for making room: 0 = any placement */
	uint32_t gpus_per_node;
	uint32_t nodes;
	uint32_t node_group;	/* the nodes it may run on (running: may
				 * restart on), a group of
				 * gq_view_node_group (1-based); 0: any;
				 * GQ_NODES_UNKNOWN: a running job pinned or
				 * narrowed in a way the pass does not know
				 * (never moved: move.h) */
	bool requeueable;	/* batch job that may be requeued */
	bool begins_later;	/* waiting for its begin time (a requeued
				 * job) or a dependency: it becomes eligible
				 * on its own, so gpuquota holds it in
				 * advance when it would pass a limit */
	bool at_risk;		/* running on a node that does not respond
				 * (not yet DOWN): counted as lost by reclaim
				 * (docs/MODEL.md "Node failures") */
	bool elsewhere;		/* pending and demand in another pool, listing
				 * a partition of this one too: here it is
				 * only held when it would pass a limit
				 * (added waiting, begins_later; see
				 * gq_pools_shadow) */
} gq_job_in_t;

/*
 * Victim set membership bits (gq_job_t.victim).  The project's own floor
 * bounds reclaim by any other project; for a preemptor outside the victim's
 * department, the department's floor bounds it too (the *_OUT bits).
 */
#define GQ_VICTIM_QUOTA 0x1	/* quota reclaim, preemptor in the same dept */
#define GQ_VICTIM_FAIR 0x2	/* fair-share reclaim, same dept */
#define GQ_VICTIM_QUOTA_OUT 0x4	/* quota reclaim from outside the dept */
#define GQ_VICTIM_FAIR_OUT 0x8	/* fair-share reclaim from outside */

/* Why gpuquota keeps a pending job from starting (gq_job_t.hold) */
typedef enum {
	GQ_HOLD_NONE = 0,
	GQ_HOLD_LIMIT,		/* would take its project past gpu_limit */
	GQ_HOLD_DEPT_LIMIT,	/* would take its department past gpu_limit */
	GQ_HOLD_NOT_REQUEUEABLE,	/* cannot be requeued, and would run
					 * over quota where nobody could
					 * reclaim it */
	GQ_HOLD_RECLAIM,	/* not in quota, while GPUs are being
				 * reclaimed for another job (waits_for) */
	GQ_HOLD_ROOM,		/* not in quota, while freed GPUs are kept
				 * for an in-quota job that can get room on
				 * no node yet (waits_for) */
	GQ_HOLD_BUDGET,		/* its project lost its requeue budget, and
				 * it would run beyond quota (borrow) */
} gq_hold_t;

/*
 * A job of the pass: its input, and what the pass decided for it.  128
 * bytes, two cache lines: a pass copies whole records, with streaming
 * stores while the size is a multiple of 16 (job_store.c, _put_record;
 * other sizes are copied the ordinary way, slower), so a field added is
 * best placed in a hole or with its 16 bytes.  The input is the first
 * line (64 bytes), `project` right after it: adding a job writes that
 * line alone (job_store.h, gq_store_stage; job_store.c, _put_started).
 */
typedef struct {
	gq_job_in_t in;		/* as added; never changed by the pass */
	int project;		/* index in the registry */
	/* pending jobs (queue.c) */
	gq_band_t band : 8;	/* a byte each, band and hold: a record is
				 * two cache lines (job_store.c) */
	gq_hold_t hold : 8;	/* must not start yet */
	bool off_saved;		/* takes no victim on the node saved for
				 * another job (saved_node.h); in the hole
				 * before cum */
	bool landing;		/* moved, not running again yet: first in
				 * its project's queue (queue.c); the
				 * hole's last byte */
	double cum;		/* A_k */
	double key;		/* place inside the band, smaller first */
	uint32_t priority;	/* for Slurm */
	uint32_t waits_for;	/* GQ_HOLD_RECLAIM: the preemptor;
				 * GQ_HOLD_ROOM: the job GPUs are kept for */
	uint32_t tasks_now;	/* tasks it may start before the next pass:
				 * 1, or of an array record as many as fit
				 * its limits (the plugin throttles the
				 * array to it); 0 when held */
	bool demand;		/* counted in its project's pending demand */
	bool room;		/* reclaims from its own set (room.c) */
	bool roomless;		/* in quota, and no node can give it room:
				 * priority gq_band_priority_roomless() */
	bool patient;		/* waits for loans that end soon, reclaims
				 * nothing (patience.h; waits_for: the loan
				 * that ends last of those) */
	bool later;		/* not eligible yet, let through: counted in
				 * its project's tail.later (queue.c) */
	/* running jobs (reclaim.c) */
	uint8_t victim;		/* GQ_VICTIM_* bits: offered under */
	uint8_t chain;		/* kinds its project's budget counts it in */
	bool over_quota;	/* among its project's GPUs beyond quota */
	uint32_t preempt_rank;	/* 1.. in order of reclaim; UINT32_MAX: none */
	int place_first, place_n;	/* its GPUs per node (placement) */
} gq_job_t;

/* May this job take victims: pending, not held, not patient, in the
 * in-quota or fair-share band?  O(1). */
static inline bool gq_job_may_reclaim(const gq_job_t *job)
{
	return job->in.state == GQ_JOB_PENDING && !job->hold &&
	       !job->patient &&
	       (job->band == GQ_BAND_IN_QUOTA ||
		job->band == GQ_BAND_FAIR_SHARE);
}

/* Is this room waiter still one to keep GPUs or save a node for: pending,
 * not held, in quota (it did not start, leave its band or get held since
 * it was listed)?  NULL: no.  O(1). */
static inline bool gq_job_still_room_waiter(const gq_job_t *job)
{
	return job && job->in.state == GQ_JOB_PENDING && !job->hold &&
	       job->band == GQ_BAND_IN_QUOTA;
}

#endif
