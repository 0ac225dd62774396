/*
 * grace.h - the warning before requeue (docs/MODEL.md "Warning before
 * requeue", "Ledger"): which grace time a victim gets, when its grace is
 * over, which warned victims gpuquota requeues, settles or forgets, which
 * are kept again after a restart, and the pause while they leave.  Plain
 * inputs: the glue (plugins/grace.c, plugins/preempt_gpuquota.c) copies
 * Slurm's fields in (shared/job_facts.c: gq_facts_grace_state) and
 * carries the answers out (requeue, SIGTERM, ledger).
 */
#ifndef GPUQUOTA_CORE_GRACE_H
#define GPUQUOTA_CORE_GRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"
#include "core/pools.h"

/* A victim's Slurm state, as grace's decisions tell them apart. */
typedef enum {
	GQ_GRACE_RUNNING,	/* running (not suspended) */
	GQ_GRACE_COMPLETING,	/* not running, still completing */
	GQ_GRACE_PENDING,	/* pending: requeued, done completing */
	GQ_GRACE_EXITED,	/* completed or failed: exited by itself */
	GQ_GRACE_OTHER,		/* suspended, cancelled, timed out, a node
				 * failure, ...: ended by someone else */
} gq_grace_state_t;

/* A job as grace's decisions read it: Slurm's fields, copied. */
typedef struct {
	gq_grace_state_t state;
	bool batch;		/* sbatch: gpuquota may requeue it */
	int64_t preempt_time;	/* Slurm's: when it was warned; 0: never */
	int64_t end_time;	/* Slurm's: the end of its grace time while
				 * it runs, its exit once ended */
	int64_t submit_time;	/* Slurm's new one after a requeue; 0: none */
	uint32_t restarts;	/* Slurm's restart count */
} gq_grace_job_t;

/* Where a victim's grace stands (gq_grace_end). */
typedef enum {
	GQ_GRACE_NOT_OURS,	/* not warned, not a batch job, or ended by
				 * someone else: not gpuquota's to requeue */
	GQ_GRACE_RUNS,		/* running in its grace time */
	GQ_GRACE_TIME_UP,	/* still running, its grace time is up */
	GQ_GRACE_EXIT,		/* exited by itself in its grace time */
} gq_grace_end_t;

/* What to do with a kept warned victim at a look (gq_grace_look). */
typedef enum {
	GQ_GRACE_KEEP,		/* running, completing, pending or due */
	GQ_GRACE_SETTLE,	/* requeued by Slurm since it was kept */
	GQ_GRACE_FORGET,	/* gone or ended otherwise: its warned
				 * record stands */
} gq_grace_look_t;

/*
 * The grace time of the jobs of the project named `project`: the
 * project's own, else settings.grace_time (an account no project lists,
 * NULL: the settings'; no configuration: GQ_DEFAULT_GRACE_TIME).
 * O(projects), once per victim.
 */
int gq_grace_of(const gq_config_t *cfg, const char *project);

/* ... of job `id`, by its project in its home pool's view (not in any:
 * the settings').  O(projects). */
int gq_grace_of_job(const gq_config_t *cfg, const gq_pools_t *pools,
		    uint32_t id);

/* Warned and still running: its GPUs are taken, its grace time runs.
 * O(1). */
bool gq_grace_in(const gq_grace_job_t *j);

/*
 * Where j's grace stands at `now`: time up when it runs at or past its
 * end time; an exit when it completed or failed, not completing (Slurm
 * would leave it so); a user's scancel, a time limit or a node failure
 * is not gpuquota's.  O(1).
 */
gq_grace_end_t gq_grace_end(const gq_grace_job_t *j, int64_t now);

/* Is j due for gpuquota's requeue: its time up, or exited?  O(1). */
bool gq_grace_over(const gq_grace_job_t *j, int64_t now);

/* The end of the run gpuquota requeues now (j over): its exit (Slurm's
 * end time, when not ahead of now), else now.  O(1). */
int64_t gq_grace_run_end(const gq_grace_job_t *j, int64_t now);

/*
 * When Slurm requeued j, warned at `at`: the end time the requeue set (if
 * between at and now), else its new submit time (the same), else now.
 * O(1).
 */
int64_t gq_grace_requeued_at(const gq_grace_job_t *j, int64_t at,
			     int64_t now);

/*
 * A kept warned victim at a look after a pass: j (NULL: Slurm has no
 * record), `restarts` its restart count when it was warned.  Settled when
 * Slurm requeued it (its restart count grew); forgotten when gone or
 * ended otherwise; else kept.  O(1).
 */
gq_grace_look_t gq_grace_look(const gq_grace_job_t *j, uint32_t restarts,
			      int64_t now);

/* The end a settled record counts its loss to: `end`, not before the
 * decision `at`.  O(1). */
int64_t gq_grace_settled_end(int64_t at, int64_t end);

/*
 * The first pass after a restart: is j a victim gpuquota warned before
 * (running, warned, and gpuquota's warned comment on it), whose run's
 * end is still to settle?  O(1).
 */
bool gq_grace_warned_before(const gq_grace_job_t *j, bool warned_comment);

/* What gpuquota's system comment on a victim names. */
typedef struct {
	uint32_t preemptor;
	char project[65];	/* the preemptor's project */
	char band[16];		/* the preemptor's band's name */
} gq_grace_comment_t;

/* A victim kept again after a restart: its decision and its run. */
typedef struct {
	int64_t at;		/* the decision: Slurm's preempt_time */
	uint32_t preemptor;
	const char *preemptor_project;	/* c's */
	bool fair_share;	/* the preemptor's band: the reason */
	bool moved;		/* a move (its comment's "moved: ..."):
				 * the reason instead */
	const char *pool;	/* the view's pool name; NULL: no pools */
	uint32_t victim;
	const char *victim_project;	/* the view's */
	uint32_t gpus;		/* the view's */
	int64_t start;		/* the view's start of its run */
	uint32_t restarts;
} gq_grace_kept_t;

/*
 * Keep again victim `id` (j), warned before slurmctld restarted: when it
 * runs, warned, not kept already, in the view `pools` and named by
 * gpuquota's comment c (NULL: none).  The decision from Slurm's
 * preempt_time and c; its pool, project, GPUs and start from the view.
 * Into *out (names point into pools and c); false: not kept.  O(1).
 */
bool gq_grace_keep_again(uint32_t id, const gq_grace_job_t *j, bool kept,
			 const gq_grace_comment_t *c, const gq_pools_t *pools,
			 gq_grace_kept_t *out);

/*
 * The pause of a reclaim in flight: its victims were warned for `grace`
 * seconds `elapsed` ago and have not all left (left false): no new
 * victims for its preemptor until grace + settle seconds passed.  O(1).
 */
bool gq_grace_pausing(int grace, bool left, int64_t elapsed, int settle);

#endif
