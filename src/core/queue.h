/*
 * queue.h - where a pending job stands (docs/MODEL.md "Bands and
 * priority", "Holds").
 *
 * Owns: a project's pending queue in Slurm's order; A_k = a_p + GPUs of
 * the jobs before it and its own; the job's band, key and priority;
 * gpuquota's holds (gpu_limit, work that cannot be requeued outside
 * quota); which pending jobs are demand for fair share; which may reclaim
 * once walked (the list the steps after it read); and departments
 * bounding their projects as a group.  The same per-job rules serve a
 * pass and a job added between passes (gq_queue_late).
 */
#ifndef GPUQUOTA_QUEUE_H
#define GPUQUOTA_QUEUE_H

#include "tools/bucket.h"
#include "core/registry.h"
#include "core/job.h"

/*
 * A project's queue: eligible before waiting, then multifactor's part of
 * the priority when the site weighs it, then Slurm's order (QOS priority,
 * nice; higher first), then the order of submission: lowest id.  Not the submit time,
 * which Slurm resets when it requeues a job: a job requeued to reclaim
 * its GPUs keeps its place in its project's queue.  <0, 0 or >0.
 */
static inline int gq_queue_cmp(const gq_job_in_t *x, const gq_job_in_t *y)
{
	if (x->state != y->state)
		return x->state == GQ_JOB_PENDING ? -1 : 1;
	if (x->site_order != y->site_order)
		return x->site_order > y->site_order ? -1 : 1;
	if (x->order != y->order)
		return x->order > y->order ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return 0;
}

/*
 * What the pass saw of a project's queue as it grouped the jobs
 * (job_store.h, gq_store_group), so that gq_queue_demand need not read the
 * queued records again: whether they came in order (gq_queue_cmp),
 * whether one is eligible work that cannot be requeued (its hold reads
 * A), and the GPUs (x tasks) of its eligible jobs.  gq_queue_seen()
 * counts a job in.
 */
typedef struct {
	int64_t order;		/* the last job seen: its order, id, state */
	uint64_t pending;	/* GPUs x tasks of the eligible jobs */
	uint32_t id;
	uint8_t state;
	bool any;		/* a job was seen */
	bool unordered;		/* a job came before one it follows */
	bool hard;		/* an eligible job with GPUs not requeueable */
} gq_queue_seen_t;

/* The next queued job of a project, in the order the store has them. */
static inline void gq_queue_seen(gq_queue_seen_t *s, const gq_job_in_t *in)
{
	gq_job_in_t last = { .state = s->state, .order = s->order,
			     .id = s->id };

	if (s->any && gq_queue_cmp(&last, in) > 0)
		s->unordered = true;
	s->any = true;
	s->order = in->order;
	s->id = in->id;
	s->state = (uint8_t)in->state;
	if (in->state == GQ_JOB_PENDING) {
		s->pending += (uint64_t)in->gpus * in->tasks;
		s->hard |= in->gpus && !in->requeueable;
	}
}

/* The jobs that may reclaim once walked (gq_queue_walk), by index. */
typedef struct {
	int *job;
	int n;
} gq_reclaimers_t;

/*
 * What a pass' queue steps keep, their memory reused from pass to pass:
 * the jobs grouped by project, what the grouping saw of each queue, the
 * demand, and the jobs that may reclaim, which patience.c and room.c
 * look through.
 */
typedef struct {
	/* per queued job, by index: whether it is demand (gq_queue_demand),
	 * until the walk writes it into its record */
	uint8_t *demand;
	/* per project, its queue as this pass' grouping saw it, when
	 * seen_now (else gq_queue_demand reads the queued records) */
	gq_queue_seen_t *seen;
	int seen_cap;
	bool seen_now;
	gq_reclaimers_t reclaimers;
	int by_job_cap;		/* of demand, reclaimers */
	gq_buckets_t queued;	/* pending and waiting jobs by project */
	gq_buckets_t running;	/* running jobs by project */
} gq_queue_pass_t;

/* Room for n jobs (demand, reclaimers) and nproj projects (seen, zeroed);
 * 0 or -1 (memory). */
int gq_queue_pass_alloc_jobs(gq_queue_pass_t *q, int n);
int gq_queue_pass_alloc_seen(gq_queue_pass_t *q, int nproj);
void gq_queue_pass_free(gq_queue_pass_t *q);

/*
 * Sort every project's queue (bucket p of `queued`: its pending and
 * waiting jobs) into Slurm's order: eligible first, then Slurm's order
 * (QOS, nice), lowest id; and set each project's pending demand: the GPUs
 * (x array tasks) of its eligible jobs that its own holds (gpu_limit,
 * non-requeueable past quota) do not keep back.  Reads the jobs' input
 * alone and writes no record (the walk after fair shares writes them):
 * demand[k] says whether job k is demand, for gq_queue_walk to write
 * into its record.  Before fair shares, which need the demand.
 * `seen` (NULL: nothing seen), per project, what the grouping saw of
 * its queue and demand[] as it wrote it there (eligible: demand): a
 * queue seen in order is not checked again, and one whose holds cannot
 * read A (no gpu_limit, every eligible job requeueable) keeps that demand
 * and its sum, its records not read.
 * O(J log J), O(J) for queues already in order, O(P) when every queue was
 * seen in order and without holds.
 */
void gq_queue_demand(gq_registry_t *r, const gq_job_t *jobs,
		     const gq_buckets_t *queued, uint8_t *demand,
		     const gq_queue_seen_t *seen);

/*
 * After fair shares: every pending job's cum, band, key, priority and
 * hold.  A project's queue is walked in order; a held job and a job not
 * yet eligible add nothing to A for the jobs behind it.  The projects of
 * a department are walked together in the order Slurm will try their
 * jobs (highest priority first), adding up the department's GPUs: a job
 * past the department's quota is not in quota, past its limit it is
 * held, and so is one past its quota that cannot be requeued.  A job
 * without GPUs is not gpuquota's to order (band none, priority 1, never
 * held, never reclaims).  A moved job not running again yet
 * (job->landing) is first: A starts at a_p plus its project's landing
 * GPUs (gq_project_t.landing, set before the call), and it is banded on
 * them, adding nothing again.  Sets each project's and department's tail, and
 * each queued job's demand from gq_queue_demand's.  Lists in
 * reclaimers->job (room for every job; NULL: not wanted) the jobs that
 * may reclaim once walked, by index, ascending (reclaimers->n of them):
 * pending, not held, in quota or fair share, so that the steps after it
 * that look for them (patience.c, room.c) read no other record.
 * Returns 0, or -1 when out of memory.
 * Cost: O(J) outside departments; O(J_d x P_d) for a department with P_d
 * projects and J_d pending jobs (each step compares the projects' heads).
 */
int gq_queue_walk(gq_registry_t *r, gq_job_t *jobs, const gq_buckets_t *queued,
		  const uint8_t *demand, gq_reclaimers_t *reclaimers);

/*
 * A job added after the pass (submitted, requeued, released): placed at
 * the tail of its project's queue and of its department's, with the rules
 * above.  Returns whether it is demand (eligible, not held).  O(1).
 */
bool gq_queue_late(gq_registry_t *r, gq_job_t *job);

/*
 * A job the walk let through before it was eligible (gq_job_t.later)
 * starts, turns eligible or leaves, between passes: out of its project's
 * and department's tail.later, so that it is not counted twice; when it
 * `started` (in the same project), into their tail.all, which bounds the
 * jobs submitted after it.  O(1).
 */
void gq_queue_unlate(gq_registry_t *r, gq_job_t *job, bool started);

#endif
