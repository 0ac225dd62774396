/*
 * view_impl.h - the inside of a gpuquota view, shared by the files of the
 * core that compute a pass (view.c, placement.c, room.c, patience.c).
 * Not for the plugins.
 */
#ifndef GPUQUOTA_VIEW_IMPL_H
#define GPUQUOTA_VIEW_IMPL_H

#include "tools/bucket.h"
#include "tools/hash.h"
#include "core/job_store.h"
#include "core/queue.h"
#include "core/registry.h"
#include "core/view.h"

struct gq_view {
	gq_registry_t reg;	/* projects, departments, accounts */

	/* the jobs of the pass, by index and by id: reached through the
	 * store's functions alone (job_store.h) */
	gq_job_store_t store;
	/* per queued job, by index: whether it is demand (queue.h,
	 * gq_queue_demand), until the walk writes it into its record */
	uint8_t *demand;
	/* per project, its queue as this pass' grouping saw it (queue.h),
	 * when seen_now (else gq_queue_demand reads the queued records) */
	gq_queue_seen_t *seen;
	int seen_cap;
	bool seen_now;
	/* the jobs that may reclaim after the walk, by index (queue.h,
	 * gq_queue_walk): what patience and room-making look through */
	int *reclaimers;
	int nreclaimers;
	int by_job_cap;		/* of demand, reclaimers */

	double capacity;
	int64_t now;
	int min_runtime;	/* from the config */
	int patience;		/* settings.reclaim_patience */
	int min_runtime_pass;	/* max(config, Slurm's), this pass */
	bool computed;		/* gq_view_compute ran: adds are late */
	uint32_t waits_for;	/* a reclaim in flight: its preemptor, or the
				 * job freed GPUs are kept for (0: none) */
	gq_hold_t waits_hold;	/* GQ_HOLD_RECLAIM or GQ_HOLD_ROOM */
	gq_room_node_t kept_on;	/* GQ_HOLD_ROOM: the node GPUs are kept on
				 * (gq_view_keep_room) */
	/* GQ_HOLD_RECLAIM: the victims' nodes of the reclaims waited for
	 * (gq_view_wait_for_reclaims), each with its preemptor; none noted
	 * when wait_anywhere */
	gq_room_node_t *wait_at;
	uint32_t *wait_at_for;
	int nwait_at, wait_at_cap;
	bool wait_anywhere;
	bool expect_wait;	/* work outside quotas will wait for one */
	/* the reclaims in flight of this pass's preemptors, as the pass
	 * began (gq_view_expect_reclaims): their GPUs are promised */
	gq_reclaim_at_t *inflight;
	int ninflight, inflight_cap;
	bool failed;		/* memory ran out during this pass */

	/* placement, for making room (optional) */
	int nnodes;
	uint32_t *node_free;	/* idle GPUs per node */
	uint8_t *node_closed;	/* per node: takes no new work
				 * (gq_view_close_node) */
	uint32_t *node_room;	/* per node: GPUs a preemptor can count on
				 * now, for the pass (room.h,
				 * gq_room_nodes) */
	int node_cap;
	int *pl_node;		/* running jobs' GPUs per node, entries */
	uint32_t *pl_gpus;	/* gq_job_t.place_first .. + place_n */
	int *pl_job;		/* the job (index in the store) of each entry */
	int npl, pl_cap;
	gq_hash_t room;		/* (preemptor, victim) pairs that make room */
	uint32_t *roomless;	/* in-quota jobs that can get room on no
				 * node now but would fit on their nodes
				 * emptied, by priority (room.c): who freed
				 * GPUs may be kept for (gq_view_keep_room) */
	int nroomless, roomless_cap;
	uint8_t *groups;	/* ngroups x nnodes: node in group */
	int ngroups, groups_cap;

	/* eligible victims in reclaim order, one run per project */
	int *order;
	int norder;
	int *run_first, *run_len;	/* per project (nproj at the pass) */
	int nruns;

	/* the pass' groupings, kept so that their memory is reused */
	gq_buckets_t queued;	/* pending and waiting jobs by project */
	gq_buckets_t running;	/* running jobs by project */
	gq_buckets_t bynode;	/* placement entries by node (room.c) */
};

/*
 * Built with -DGQ_PASS_STEPS (the benchmark only, tests/bench): the
 * thread CPU time of each step of the last gq_view_compute, in seconds,
 * so that `make bench` says where a pass' time goes.
 */
enum {
	GQ_STEP_START,		/* group the jobs by project, start them */
	GQ_STEP_DEMAND,		/* queues sorted, pending demand */
	GQ_STEP_SHARE,		/* fair shares */
	GQ_STEP_WALK,		/* bands, priorities, holds */
	GQ_STEP_RECLAIM,	/* floors, reclaim order, candidates */
	GQ_STEP_ROOM,		/* room-making */
	GQ_NSTEPS
};
#ifdef GQ_PASS_STEPS
extern double gq_pass_steps[GQ_NSTEPS];
#endif

#endif
