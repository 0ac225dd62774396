/*
 * reclaim.h - who may be taken from, down to which floor, in what order
 * (docs/MODEL.md "Reclaim").
 *
 * Owns: the floors (q for quota reclaim, max(q, f) for fair-share
 * reclaim: gq_floor is the one place this formula is written; a project in
 * a department has, against preemptors outside it, its part of the
 * department's quota instead of q, and the department its own floor);
 * which running jobs are candidates; the order they are offered in (most
 * over-served project first); and whether one job may take another's GPUs.
 *
 * The guarantee: whatever subset of the offered candidates Slurm
 * requeues, for however many preemptors, no project ends below the lowest
 * floor it was offered under, nor a department below its floor against
 * outsiders.  Every candidate set of a pass (the usual sets of the four
 * kinds of reclaim and the room sets of room.c) draws on one allowance per
 * project and department (gq_allowance_t): the kinds are nested by floor (a
 * job offered under a higher floor is offered under every lower one), so
 * the union of all sets never exceeds a_p - the lowest floor, and each
 * kind's set never exceeds a_p - its floor.  GPUs on nodes that do not
 * respond are not in a_p here: they will be lost when Slurm sets the
 * node DOWN, so a reclaim decided now cannot leave the project below its
 * floor then (docs/MODEL.md "Node failures").
 */
#ifndef GPUQUOTA_RECLAIM_H
#define GPUQUOTA_RECLAIM_H

#include <stdbool.h>
#include <stdint.h>

#include "tools/bucket.h"
#include "core/registry.h"
#include "core/job.h"

/* The floor a reclaim leaves: q, or max(q, f) for fair-share reclaim;
 * f untilted by usage (share_floor). */
double gq_floor(double quota, double share, bool fair);

/*
 * Each project's quota against outsiders (quota_out): its department's
 * quota divided in proportion to its projects' quotas, each capped at its
 * own (q_p when the quotas fit in the department's).  O(P^2) water-fill.
 */
void gq_reclaim_floors(gq_registry_t *r);

/* Can this running job ever be a victim (requeueable, holds GPUs, old
 * enough, not on a node that does not respond)?  A start after `now` (the
 * clock stepped back since) is of unknown age: old enough, so that no
 * floor waits for the clock to catch up. */
bool gq_victim_eligible(const gq_job_in_t *job, int64_t now, int min_runtime);

/*
 * One project's running jobs (`run`, indexes into jobs) into walk order:
 * lowest Slurm order first, then the latest saved (its checkpoint,
 * start_time + saved_secs, or else its start: the youngest), so that the GPUs taken lose
 * the least work.  Also marks which jobs hold the project's GPUs beyond
 * quota (over_quota, what users see).  O(n) when they are in walk order
 * or its reverse (sort.h), O(n log n) otherwise (checkpoints out of start
 * order).
 */
void gq_reclaim_sort(gq_job_t *jobs, int *run, int n, const gq_project_t *p);

/*
 * Over-service of a project, a_v / max(q_v, f_v): the most over-served
 * project is reclaimed from first (a project with nothing deserved: +inf).
 */
double gq_overservice(const gq_project_t *p);

/* What is left to take from each project and department in this pass. */
typedef struct gq_allowance gq_allowance_t;

/* Fresh allowances from the registry's a_p, floors and f_p; NULL: memory. */
gq_allowance_t *gq_allowance_new(const gq_registry_t *r);
void gq_allowance_free(gq_allowance_t *b);

/* What taking a job under one kind of reclaim added (to undo it). */
typedef struct {
	uint8_t chain, victim;
} gq_charge_t;

/*
 * The kind of reclaim (one GQ_VICTIM_* bit) by which pending `preemptor` would
 * take running `preemptee`: by preemptor's band (in quota: quota reclaim; fair share:
 * fair-share reclaim) and whether preemptee's department is preemptor's; 0 when none.
 */
uint8_t gq_reclaim_kind(const gq_registry_t *r, const gq_job_t *preemptee,
			const gq_job_t *preemptor);

/* gq_reclaim_kind for a victim of each project: kind[p], for every
 * project p (it depends on the victim only through its project).  O(P). */
void gq_reclaim_kinds(const gq_registry_t *r, const gq_job_t *preemptor,
		      uint8_t *kind);

/*
 * Offer job e under `kind` (and the kinds below it), drawing on the
 * allowances.  Returns false, changing nothing, when an allowance has no room
 * for it; *undo says what was added.  O(1).
 */
bool gq_allowance_take(gq_allowance_t *b, const gq_registry_t *r, gq_job_t *e,
		    uint8_t kind, gq_charge_t *undo);
void gq_allowance_give_back(gq_allowance_t *b, const gq_registry_t *r,
			 gq_job_t *e, const gq_charge_t *undo);

/*
 * Would gq_allowance_take refuse under `kind` every job of `project` that is
 * in none of its sets yet (chain 0)?  True when an allowance of a kind up to
 * `kind` in the project's chain has less than one GPU left: every
 * candidate holds one GPU at least.  Lets room-making pass over such a
 * project's placement entries without reading their jobs.  O(1).
 */
bool gq_allowance_spent(const gq_allowance_t *b, int project, uint8_t kind);

/*
 * Has any project one GPU or more left under its lowest floor (the first
 * kind of its chain)?  When none has, gq_allowance_spent is true for every
 * project and kind.  O(P).
 */
bool gq_allowance_any_left(const gq_allowance_t *b, const gq_registry_t *r);

/*
 * The usual candidate sets: each job of `order` (reclaim order) is offered
 * under as many kinds as the allowances still allow, from the lowest floor
 * up; jobs already offered (room sets) keep what they have.  O(n).
 */
void gq_reclaim_mark(gq_allowance_t *b, const gq_registry_t *r, gq_job_t *jobs,
		     const int *order, int n);

/*
 * The eligible victims of a pass in reclaim order, one run per project
 * (gq_reclaim_order): what room-making walks and what a job gone between
 * passes shrinks (gq_reclaim_shrink).  Memory reused from pass to pass.
 */
typedef struct {
	int *order;		/* store indices, in reclaim order */
	int norder;
	int *run_first, *run_len;	/* per project (nproj at the pass) */
	int nruns;
} gq_reclaim_runs_t;

/* Room for njobs in the order and nproj runs; 0 or -1 (memory). */
int gq_reclaim_runs_alloc(gq_reclaim_runs_t *runs, int njobs, int nproj);
void gq_reclaim_runs_free(gq_reclaim_runs_t *runs);

/*
 * Reclaim order over all projects, and the usual candidate sets: running
 * jobs bucketed by project in `running`, projects by over-service, each
 * project's bucket sorted into walk order (gq_reclaim_sort) when the walk
 * reaches it.  Lists the eligible jobs in runs->order (room for every
 * job, gq_reclaim_runs_alloc; runs->norder their count), sets their
 * preempt_rank, and offers them from `b` in that order
 * (gq_reclaim_mark).  runs->run_first[p], run_len[p]: where project p's
 * jobs are in the order (0, 0: none); runs->nruns, the projects.
 * Returns 0 or -1 (memory).  O(P log P + J): one sweep of the running
 * jobs, each project's read while in cache.
 */
int gq_reclaim_order(const gq_registry_t *r, gq_job_t *jobs,
		     const gq_buckets_t *running, int64_t now, int min_runtime,
		     gq_allowance_t *b, gq_reclaim_runs_t *runs);

/*
 * A running job of project `project` is gone between passes (requeued,
 * reclaimed, ended): the allowances of its project, and of its
 * department's projects when it has one, shrank.  Offer their jobs again
 * from allowances of what they hold now, in reclaim order, and void their
 * room sets until the next pass, so that the candidates stay within the
 * floors at every preemption, not only at pass time.  O(P + jobs of those
 * projects).
 */
void gq_reclaim_shrink(const gq_reclaim_runs_t *runs, gq_registry_t *r,
		       gq_job_t *jobs, int project);

/*
 * May pending `preemptor` take running `preemptee` as a usual candidate: another
 * project, preemptor in quota or in fair share, preemptee offered under that kind?
 * O(1).
 */
bool gq_reclaim_allowed(const gq_registry_t *r, const gq_job_t *preemptee,
			const gq_job_t *preemptor);

/*
 * Could running `preemptee` leave its project (and, for `preemptor` outside preemptee's
 * department, its department) without either passing the floor of the
 * reclaim `preemptor` may make (gq_reclaim_kind)?  Whether or not the candidate
 * walk picked it: what a loan that ends soon is for patience.h.  O(1).
 */
bool gq_reclaim_over_floor(const gq_registry_t *r, const gq_job_t *preemptee,
			   const gq_job_t *preemptor);

#endif
