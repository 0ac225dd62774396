/*
 * reservation.h - the simulator's model of Slurm's backfill reservation
 * (sched/backfill): a pending job that cannot start now is given the
 * earliest time and nodes it could start on, from the running jobs'
 * expected ends (their start plus time limit); a job behind it in
 * Slurm's order starts now only if it ends by then (now plus its time
 * limit) or fits on nodes not reserved.
 *
 * Owns: the running jobs in order of expected end, and the reservations
 * of one scheduling attempt, made again at each attempt (as each backfill
 * cycle makes its table again): one for each set of partitions a job
 * asks (a job's partition mask, cluster.h), to the first job of that set
 * in Slurm's order that is not held and does not start.  Slurm reserves
 * for up to bf_max_job_test jobs; one a partition is what keeps the job
 * at the head of a partition's queue from waiting behind jobs that come
 * after it, the starvation the reservation exists to stop: the jobs
 * behind it are reserved for in turn once it starts.  What is left out:
 * the second and later blocked jobs of a partition (small jobs may take
 * their nodes meanwhile), reservations of different partitions seeing
 * each other (each is made from the running jobs alone), bf_window (no
 * horizon: as a site whose window is at least its longest time limit,
 * as Slurm's documentation advises), bf_resolution (times to the
 * second), and a reclaim (a preemptor takes its victims' nodes whatever
 * is reserved).  A job with no time limit in the history counts its own
 * run time as its limit; a victim in its grace time ends when its grace
 * time does.  No Slurm header here.
 */
#ifndef GPUQUOTA_SIM_RESERVATION_H
#define GPUQUOTA_SIM_RESERVATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/cluster.h"
#include "sim/history.h"

#define GQ_SIM_RESV_MAX (GQ_SIM_PARTS_MAX + 2)	/* partition masks: none,
						 * each one, no node's */

/* A running job's expected end. */
typedef struct {
	int64_t end;
	uint32_t job;
} gq_sim_ending_t;

/* A running job as the walk reads it. */
typedef struct {
	int64_t end;		/* expected */
	const gq_sim_shape_t *shape;
	const int *nodes;
} gq_sim_resv_run_t;

/* A fit that failed: a job that asks at least as much (the same
 * partitions, one node or several) and avoids at least these
 * reservations fails too, until GPUs come back (cluster.h's gives). */
typedef struct {
	uint64_t parts, avoided;	/* bit k: one[k]'s nodes avoided */
	uint32_t gpus, cpus, nodes;
} gq_sim_resv_fail_t;

#define GQ_SIM_RESV_FAILS 16	/* the last failures kept */

/* One reservation: the first blocked job of its partitions. */
typedef struct {
	uint64_t parts;		/* the job's partition mask */
	int64_t start;		/* INT64_MAX: it fits on no node, ever */
	int *nodes;		/* nnodes of them, reserved from start */
	uint32_t nnodes, cap;
} gq_sim_resv_one_t;

typedef struct {
	gq_sim_ending_t *by_end;	/* running jobs, by end then job */
	size_t n;
	gq_sim_resv_run_t *run;	/* by job, while it runs */
	gq_sim_resv_one_t one[GQ_SIM_RESV_MAX];	/* this attempt's */
	int nresv;
	uint32_t head[GQ_SIM_RESV_MAX];	/* this attempt's first job that does
					 * not fit at a glance, by mask */
	uint64_t head_parts[GQ_SIM_RESV_MAX];
	int nheads;
	gq_sim_resv_fail_t fail[GQ_SIM_RESV_FAILS];
	int nfail, next_fail;
	uint64_t fail_gives;	/* the cluster's gives they hold for */
	uint32_t *g, *c;	/* what-if idle GPUs and CPUs, by node (one
				 * block) */
	uint8_t *avoid;		/* by node: reserved for this fit */
} gq_sim_resv_t;

/* The time limit the reservation reads: the job's, or its run time when
 * the history gives none. */
static inline int64_t gq_sim_resv_limit(const gq_sim_job_t *j)
{
	return j->limit > 0 ? j->limit : j->run;
}

/* Room for `jobs` jobs on `nodes` nodes; 0, or -1 out of memory. */
int gq_sim_resv_init(gq_sim_resv_t *v, int nodes, size_t jobs);
void gq_sim_resv_free(gq_sim_resv_t *v);

/* Job `job` runs on `nodes` (shape s) until about `end`; it ended (or
 * left); its expected end is now `end` (a victim warned).  The pointers
 * are kept while it runs.  O(log R + R): the list kept in order. */
void gq_sim_resv_running(gq_sim_resv_t *v, uint32_t job, int64_t end,
			 const gq_sim_shape_t *s, const int *nodes);
void gq_sim_resv_gone(gq_sim_resv_t *v, uint32_t job);
void gq_sim_resv_ends(gq_sim_resv_t *v, uint32_t job, int64_t end);

/* A scheduling attempt begins: no reservation, no head, no failure.
 * O(1). */
void gq_sim_resv_begin(gq_sim_resv_t *v);

/*
 * Job `job` of partition mask `parts` does not fit at a glance: kept if
 * it is the first of its mask in Slurm's order (ahead(ctx, a, b): a
 * before b), so that the attempt tries it and it may be reserved for.
 * The heads into out (GQ_SIM_RESV_MAX at most), their number returned.
 * O(masks) each.
 */
void gq_sim_resv_head(gq_sim_resv_t *v, uint64_t parts, uint32_t job,
		      bool (*ahead)(const void *ctx, uint32_t a, uint32_t b),
		      const void *ctx);
size_t gq_sim_resv_heads(const gq_sim_resv_t *v, uint32_t *out);

/*
 * A pending job of shape s that did not start now: when it is the first
 * of its partition mask this attempt, reserved for at the earliest time
 * it could start (now, or the expected end of the running job after
 * which it fits first) on the first fit then.  O(N + the running jobs
 * walked x their nodes).
 */
int gq_sim_resv_make(gq_sim_resv_t *v, const gq_sim_cluster_t *c,
		     const gq_sim_shape_t *s, int64_t now);

/*
 * First fit now for a job of shape s that would run until `until`: on
 * any node, but a node reserved from before `until`.  O(N + reserved
 * nodes); O(reservations + GQ_SIM_RESV_FAILS) when a failure of this
 * attempt, since GPUs last came back, asked no more: a long queue of
 * jobs that cannot start is walked without a fit each.
 */
bool gq_sim_resv_fit(gq_sim_resv_t *v, const gq_sim_cluster_t *c,
		     const gq_sim_shape_t *s, int64_t until, int *out);

#endif
