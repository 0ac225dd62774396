/*
 * write_slurm.h - the core's answers back into Slurm's job records:
 * gpuquota's holds and releases, the band text in squeue's reason, array
 * throttles and pending jobs' priorities.  One path: each job's answer is
 * decided from its record and the pass's pools (gq_write_decide, which
 * reads only), then applied (gq_write_apply, which writes exactly that).
 * What of an answer is applied in settings.mode's mode is one rule,
 * gq_write_for_mode (observe mode: nothing, gpuquota's own writes
 * undone, what enforce would do logged).
 * The batches below only choose which jobs and when; the re-hold
 * (hold.h, gq_hold_again) writes the holds of the same answers
 * (gq_pools_answer).
 */
#ifndef GPUQUOTA_WRITE_SLURM_H
#define GPUQUOTA_WRITE_SLURM_H

#include <stdbool.h>
#include <time.h>

#include "core/pools.h"
#include "core/view.h"
#include "shared/slurm_compat.h"

/* What an answer changes on a job's record (gq_write_t.what). */
enum {
	GQ_WRITE_LEFT = 1,	/* it left the pools: gpuquota's hold lifted,
				 * its priority as every job outside them */
	GQ_WRITE_THROTTLE = 2,	/* an array's %N (array_throttle.c) */
	GQ_WRITE_HOLD = 4,	/* gpuquota's hold for job->hold (hold.c) */
	GQ_WRITE_RELEASE = 8,	/* gpuquota's hold lifted, at prio */
	GQ_WRITE_TEXT = 16,	/* text: the band's words in its reason */
	GQ_WRITE_PRIO = 32,	/* prio: its priority */
	GQ_WRITE_UNDO = 64,	/* observe mode: gpuquota's hold lifted, the
				 * array's %N the user's, the priority
				 * multifactor's (gq_write_for_mode) */
};

/*
 * One pending job's answer.  Its pointers are into the pools it was
 * decided from, valid while those are (a pass's `next`, then the view it
 * is published as); `text` is owned (xmalloc'd) until applied or freed.
 */
typedef struct {
	uint32_t id;		/* the job's id */
	unsigned what;		/* GQ_WRITE_* bits; 0: nothing changes */
	bool kick;		/* a scheduling pass should run now */
	int pool;		/* the pool of `job` (HOLD, THROTTLE) */
	const gq_job_t *job;	/* its record there: its hold, its tasks */
	uint32_t tasks;		/* THROTTLE: tasks that may start now */
	uint32_t prio;		/* RELEASE: the band's priority; PRIO: the
				 * priority to write (multifactor's part in) */
	char *text;		/* TEXT: the reason text */
	uint32_t reason;	/* the state_reason `text` was made for */
	unsigned would;		/* observe mode: what enforce would write */
} gq_write_t;

/*
 * What of a pending job's answer `w` is applied in this mode: the one
 * rule of settings.mode (docs/MODEL.md "Observe mode").  Enforce: all of
 * it.  Observe: none of it (kept in w->would); instead what gpuquota
 * wrote before is undone (GQ_WRITE_UNDO): on a job it holds (its mark,
 * gq_read_held, as for a job that left the pools), and on the first pass
 * in observe mode (gq_state_observe_undone false) on every job of the
 * pools with a priority.  A job that
 * left the pools is answered as in enforce (GQ_WRITE_LEFT: an undo too).
 * Called by gq_write_decide.  Reads only.
 */
void gq_write_for_mode(job_record_t *job_ptr, gq_write_t *w);

/*
 * Decide `job_ptr`'s answer from `pools` (`prev`: the pass before, or
 * NULL; a text that did not change is not made again) into `w`.  A text
 * `w` has already (an earlier decision on the same pools) is reused when
 * the job's reason is still the one it was made for; otherwise freed.
 * Reads only (the hold texts of a batch are made once: hold.c).  O(1)
 * lookups, plus a reason text formatted when it may have changed.  Caller
 * holds the job read lock (at least) and the state lock.
 */
void gq_write_decide(job_record_t *job_ptr, const gq_pools_t *pools,
		     const gq_pools_t *prev, gq_write_t *w);

/*
 * Write `w` (decided from `pools`) on job_ptr's record; `w`'s text is
 * taken.  Returns w->kick.  Caller holds the job write lock and the
 * state lock.
 */
bool gq_write_apply(job_record_t *job_ptr, const gq_pools_t *pools,
		    gq_write_t *w, time_t now);

/* Free what `w` owns (a text not written). */
void gq_write_drop(gq_write_t *w);

/*
 * A whole pass in one hold: every pending job of Slurm decided and
 * applied (and every victim whose grace time is over noted for
 * gq_grace_requeue).  O(J x pools) with O(1) lookups.  Returns true when
 * a scheduling pass should run now (a job was released, or may now make
 * room).  Caller holds the job write lock and the state lock.
 */
bool gq_write_pass(const gq_pools_t *pools, const gq_pools_t *prev,
		   time_t now);

/*
 * The same in two lock holds (docs/DEVELOPING.md "A pass in two lock
 * holds"), so that the job write lock is held only for the jobs whose
 * record changes.  gq_write_plan decides every job under the read lock
 * and keeps in `plan` the answers that change something (their texts
 * made there); it writes nothing.  O(J).  Returns -1 when out of memory.
 * Caller holds the job read lock and the state lock.
 */
typedef struct {
	gq_write_t *jobs;	/* the answers that write, by id */
	int n, cap;
	bool kick;		/* a scheduling pass should run */
} gq_write_plan_t;

int gq_write_plan(gq_write_plan_t *plan, const gq_pools_t *pools,
		  const gq_pools_t *prev, time_t now);

/*
 * Then, under the job write lock, once the pools are published: each job
 * of `plan` still there, found by id, decided again from its record as it
 * is now (a job started, ended or changed since is answered as a whole
 * pass would; a planned text is reused when still for its reason) and
 * applied.  Empties the plan.  O(jobs planned).  Returns true when a
 * scheduling pass should run now.
 */
bool gq_write_planned(gq_write_plan_t *plan, const gq_pools_t *pools,
		      const gq_pools_t *prev, time_t now);

/*
 * Under the job write lock and the state lock, before the pass's view is
 * published: tells the state of each job of `plan` Slurm started since
 * the plan was made (gq_state_job_started: a planned hold on it means the
 * pass is stale).  O(jobs planned).
 */
void gq_write_plan_note_started(const gq_write_plan_t *plan);

void gq_write_plan_free(gq_write_plan_t *plan);

#endif
