/*
 * model.h - the replay's model of the cluster and its jobs, shared by the
 * files of the replay (internal to src/sim): replay.c (the loop, starts,
 * ends, requeues, Slurm's scheduling), model_pass.c (gpuquota's pass and
 * answers from the model), model_reclaim.c (a reclaim as preempt/gpuquota
 * answers Slurm).  No Slurm header here.
 */
#ifndef GPUQUOTA_SIM_MODEL_H
#define GPUQUOTA_SIM_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/pools.h"
#include "sim/cluster.h"
#include "sim/events.h"
#include "sim/replay.h"
#include "sim/reservation.h"
#include "shared/pass_input.h"

enum { ST_FUTURE, ST_PENDING, ST_RUNNING, ST_DONE };

/* A job as the model has it now. */
typedef struct {
	uint8_t st;
	bool warned;		/* a victim in its grace time */
	bool held;		/* gpuquota's answer: held */
	bool reclaims;		/* may reclaim (this scheduling attempt) */
	uint32_t prio;		/* the priority Slurm orders it by */
	uint32_t run;		/* its runs so far (stale events) */
	uint32_t preemptor;	/* warned: the job it was taken for */
	int64_t warned_at;	/* Slurm's preempt_time */
	int acct;
	uint32_t pos;		/* its place in the pending or running list */
	int64_t pend_since;	/* submitted, or requeued (Slurm's submit
				 * time then) */
	int64_t begin;		/* not before */
	int64_t start;
	uint32_t held_gpus;	/* running: all its nodes' */
	gq_sim_shape_t shape;
	int *nodes;		/* running: shape.nodes of them */
} gq_rjob_t;

/* A candidate victim: its reclaim rank and its index. */
typedef struct {
	uint32_t rank, job;
} gq_sim_cand_t;

typedef struct {
	const gq_sim_opts_t *o;
	const gq_sim_history_t *h;
	gq_sim_cluster_t *c;
	gq_sim_result_t *r;
	bool gq;		/* gpuquota (else stock) */
	gq_rjob_t *job;
	int *node_pool;		/* the jobs' node lists, one block */
	gq_events_t ev;
	int64_t now;
	bool dirty;		/* something changed since the last pass */
	int64_t dirty_since, last_pass, base;
	int interval;
	uint32_t *running;	/* indexes of running jobs */
	size_t nrunning;
	uint32_t *pending;	/* indexes of pending jobs */
	size_t npending;
	uint64_t *active;	/* bit i: job i pending or running */
	uint32_t *order;	/* the scheduler's scratch */
	uint64_t eligible;	/* eligible pending jobs */
	gq_pass_in_t in;	/* the pass input, its arrays reused */
	size_t in_cap, place_cap;
	uint32_t *scratch_g, *scratch_c;	/* what-if idle GPUs, CPUs */
	int *fit;
	gq_sim_cand_t *cand;
	gq_sim_resv_t resv;	/* Slurm's backfill reservation */
} gq_replay_t;

/* Mark a change: a pass is due at the next tick (job_life.c). */
void gq_sim_mark(gq_replay_t *R);

/* Time passes from R->now to t: the figures counted (job_life.c). */
void gq_sim_advance(gq_replay_t *R, int64_t t);

/* Job i becomes eligible (sign +1) or no longer (-1): its account's
 * pending GPUs (job_life.c). */
void gq_sim_eligible(gq_replay_t *R, uint32_t i, int sign);

/* Job i submitted now; 0, or -1 out of memory (job_life.c). */
int gq_sim_submit(gq_replay_t *R, uint32_t i);

/* Start job i on `nodes` (a fit); requeue running job i; end it at its
 * run time (job_life.c).  0, or -1 out of memory. */
int gq_sim_start(gq_replay_t *R, uint32_t i, const int *nodes);
int gq_sim_requeue(gq_replay_t *R, uint32_t i);
void gq_sim_end(gq_replay_t *R, uint32_t i);

/* The replay stops at R->now (opts.until): the GPU-seconds of the jobs
 * still running counted to it (job_life.c).  O(running). */
void gq_sim_cut(gq_replay_t *R);

/* The pass input's nodes and partitions, once (model_pass.c). */
int gq_sim_in_nodes(gq_replay_t *R);

/* priority/gpuquota's pass on the model (model_pass.c). */
int gq_sim_pass(gq_replay_t *R);

/* Job i's hold and priority now (model_pass.c). */
void gq_sim_answer(gq_replay_t *R, uint32_t i);

/* Job i submitted between passes, added late (model_pass.c). */
int gq_sim_add_late(gq_replay_t *R, uint32_t i);

/*
 * Why the idle GPUs are idle while eligible jobs wait, the model as it
 * is now (after a scheduling attempt), in this order:
 * - GQ_IDLE_HELD: some eligible pending job fits now and waits, kept
 *   by gpuquota's rules (held: a hold, a room wait, a reclaim in
 *   flight); never under stock;
 * - GQ_IDLE_RESERVED: else, some eligible pending job fits now and waits,
 *   not held: it would delay a backfill reservation (reservation.h);
 * - GQ_IDLE_FRAGMENTED: else, some eligible pending job asks no more
 *   GPUs than are idle on the nodes it may use, in all, yet fits on
 *   none of them (no one node with its GPUs and CPUs idle; too few
 *   wholly idle nodes for a job of several);
 * - GQ_IDLE_OTHER: else (each waiting job asks more GPUs than are idle
 *   where it may run: the idle GPUs wait to add up).
 * A job that fits comes first: it could use the idle GPUs now.
 * O(eligible pending), plus the partitions' idle GPUs once (O(N x
 * partitions)) when a job names one, and a first fit (O(N)) for each
 * job that asks no more than is idle, up to the first that fits
 * (idle_kind.c).
 */
enum { GQ_IDLE_OTHER, GQ_IDLE_FRAGMENTED, GQ_IDLE_RESERVED, GQ_IDLE_HELD };
int gq_sim_idle_kind(const gq_replay_t *R);

/* Job i does not fit: a reclaim, as preempt/gpuquota and cons_tres
 * would make it (model_reclaim.c). */
int gq_sim_reclaim(gq_replay_t *R, uint32_t i);

#endif
