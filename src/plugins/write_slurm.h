/*
 * write_slurm.h - the core's answers back into Slurm's job records:
 * gpuquota's holds and releases, the band text in squeue's reason, and
 * pending jobs' priorities.  Writes only what changed.
 */
#ifndef GPUQUOTA_WRITE_SLURM_H
#define GPUQUOTA_WRITE_SLURM_H

#include <stdbool.h>
#include <time.h>

#include "core/pools.h"
#include "core/view.h"
#include "shared/slurm_compat.h"

/*
 * After a pass: hold, release, explain and reprioritize every pending job
 * of the views (one per pool).  `prev` is the pass before (NULL: none),
 * whose reason texts are not written again when nothing in them changed.
 * O(J x pools) with O(1) lookups.  Returns true when a scheduling pass
 * should run now (a job was released, or may now make room).  Caller
 * holds the slurmctld job write lock and the state lock.
 */
bool gq_write_pass(const gq_pools_t *view, const gq_pools_t *prev,
		   time_t now);

/*
 * The same in two steps, so that the job write lock is held only for the
 * jobs whose record changes (docs/DEVELOPING.md "A pass in two lock
 * holds").  gq_write_plan notes in `plan` (its ids emptied first) the
 * pending jobs gq_write_pass would change with `view` and `prev`, and
 * whether a scheduling pass should run; it writes nothing (victims whose
 * grace time is over are noted for gq_grace_requeue).  O(J): every job's
 * record read.  Returns -1 when out of memory.  Caller holds the job read
 * lock and the state lock.
 */
typedef struct {
	uint32_t id;
	char *text;		/* the reason text to write (xmalloc'd), or
				 * NULL: formatted under the read lock */
	uint32_t reason;	/* the job's state_reason `text` is for */
} gq_planned_t;

typedef struct {
	gq_planned_t *jobs;	/* the jobs to write, by id */
	int n, cap;
	bool kick;		/* a scheduling pass should run */
} gq_write_plan_t;

int gq_write_plan(gq_write_plan_t *plan, const gq_pools_t *view,
		  const gq_pools_t *prev, time_t now);

/*
 * Then, under the job write lock (and the state lock), once `view` is
 * published: each job of `plan` still there, found by id, written as
 * gq_write_pass writes it, from its record as it is now (a job started,
 * ended or changed since the plan is written or skipped as a whole pass
 * would; a reason text planned is written when the job's reason is still
 * the one it was made for, else made again).  Empties the plan.
 * O(jobs planned).  Returns true when a scheduling pass should run now.
 */
bool gq_write_planned(gq_write_plan_t *plan, const gq_pools_t *view,
		      const gq_pools_t *prev, time_t now);

/*
 * Under the job write lock and the state lock, before the pass's view is
 * published: tells the state of each job of `plan` Slurm started since
 * the plan was made (gq_state_job_started: a planned hold on it means the
 * pass is stale).  O(jobs planned).
 */
void gq_write_plan_started(const gq_write_plan_t *plan);

void gq_write_plan_free(gq_write_plan_t *plan);

#endif
