/*
 * view.h - one scheduling pass of gpuquota, and the answers it gives until
 * the next pass.
 *
 * Owns: the project table (configured projects plus a 0-quota project per
 * unknown account), the per-pass job snapshot, and what is derived from it:
 * allocation a_p, demand D_p, fair share f_p, each pending job's band and
 * priority, and each running job's membership in the victim candidate sets
 * (SEMANTICS.md "Reclaim").  The Slurm glue fills the snapshot; everything
 * decided is decided here, without Slurm headers.
 *
 * Costs: a pass is O(J log J) in jobs (one sort of each project's pending
 * and running jobs) plus O(P^2) in projects for water-filling; job lookups
 * and gq_view_preemptable() are O(1) (hash on job id).
 */
#ifndef GPUQUOTA_VIEW_H
#define GPUQUOTA_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"
#include "core/band.h"

typedef enum {
	GQ_JOB_RUNNING,		/* running or suspended: holds GPUs */
	GQ_JOB_PENDING,		/* pending and eligible to start */
	GQ_JOB_WAITING,		/* pending but held, on a dependency or begin time */
} gq_job_state_t;

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
} gq_hold_t;

typedef struct {
	/* input, from Slurm */
	uint32_t id;
	gq_job_state_t state;
	uint32_t gpus;		/* allocated (running) or requested (pending) */
	uint32_t tasks;		/* pending array tasks behind this record, >= 1 */
	bool requeueable;	/* batch job that may be requeued */
	int64_t order;		/* Slurm-side order in the project, higher first
				 * (QOS priority, nice) */
	int64_t submit_time;
	int64_t start_time;
	/* derived */
	int project;		/* index in the project table */
	double cum;		/* A_k (pending jobs) */
	gq_band_t band;
	double key;
	uint32_t priority;	/* for Slurm; pending jobs */
	gq_hold_t hold;		/* pending jobs that must not start yet */
	uint8_t victim;		/* GQ_VICTIM_* bits (running jobs) */
	bool over_quota;	/* running: among its project's GPUs beyond
				 * quota (the walk, eligibility aside) */
	uint32_t preempt_rank;	/* running jobs: 1.. in order of reclaim */
	/* shape of a pending job, for making room: 0 = any placement */
	uint32_t gpus_per_node;
	uint32_t nodes;
	/* derived */
	int place_first, place_n;	/* running: its GPUs per node */
	bool room;		/* pending: reclaims from its own set (room) */
} gq_job_t;

typedef struct {
	char *name;
	double quota, weight, limit;	/* limit INFINITY when unlimited */
	int department;		/* -1 when none */
	bool configured;	/* false: an account no project lists */
	bool dept_from_tree;	/* department taken from Slurm's accounts */
	/* per pass */
	uint32_t alloc;		/* a_p */
	uint32_t pending;	/* GPUs of eligible pending jobs */
	double share;		/* f_p */
	double deserved;
	double tail;		/* A of the last job walked (for late submits) */
} gq_project_t;

typedef struct {
	char *name;
	double quota, weight, limit;
	/* per pass */
	uint32_t alloc;
	double demand, share;
	double tail;		/* alloc + pending GPUs not held (late submits) */
} gq_dept_t;

typedef struct gq_view gq_view_t;

/* A view for a configuration (copied; cfg may be freed afterwards). */
gq_view_t *gq_view_create(const gq_config_t *cfg);
void gq_view_free(gq_view_t *v);

/* Start a pass: forget the previous jobs. */
void gq_view_begin(gq_view_t *v, double capacity, int64_t now);
void gq_view_set_capacity(gq_view_t *v, double capacity);

/*
 * Add a job of the pass, belonging to `account` (NULL or "": the empty
 * account, itself a 0-quota project).  Returns the stored job to fill, or
 * NULL when out of memory.  O(1) amortized.
 */
gq_job_t *gq_view_add_job(gq_view_t *v, uint32_t id, const char *account);

/*
 * Placement, optional, after gq_view_begin: the pool's nodes, their idle
 * GPUs, and the GPUs each running job holds on each node (all of a job's
 * entries right after adding it).  With it, a pass also makes room: see
 * SEMANTICS.md "the candidates must actually make room".
 */
int gq_view_set_nodes(gq_view_t *v, int nnodes);
void gq_view_node_free(gq_view_t *v, int node, uint32_t free_gpus);
int gq_view_place(gq_view_t *v, uint32_t job_id, int node, uint32_t gpus);

/*
 * Slurm's account tree (slurmdbd): `account` has parent account `parent`.
 * When the parent is a department's name, the account's project belongs
 * to that department, unless gpuquota.json gives the project a department
 * of its own; an account no project lists becomes a 0-quota project in it.
 * Call for every account association, before gq_view_compute.  O(1).
 */
void gq_view_account_parent(gq_view_t *v, const char *account,
			    const char *parent);

/* Minimum runtime of this pass, if Slurm's own (PreemptExemptTime) is
 * longer than the configured one. */
void gq_view_min_runtime_at_least(gq_view_t *v, int seconds);

/* Derive shares, bands, priorities and victim sets for the jobs added. */
void gq_view_compute(gq_view_t *v);

/*
 * A job submitted after the pass: placed at the tail of its project's queue,
 * given its band and priority; visible to lookups until the next pass.
 * `job` holds the input fields.  Returns the stored job or NULL.
 */
const gq_job_t *gq_view_add_late(gq_view_t *v, const char *account,
				 const gq_job_t *job);

/* O(1) lookups */
const gq_job_t *gq_view_job(const gq_view_t *v, uint32_t id);
const gq_project_t *gq_view_project(const gq_view_t *v, int idx);
int gq_view_nprojects(const gq_view_t *v);
int gq_view_find_project(const gq_view_t *v, const char *account);
const gq_dept_t *gq_view_dept(const gq_view_t *v, int idx);
int gq_view_ndepts(const gq_view_t *v);
double gq_view_capacity(const gq_view_t *v);
int gq_view_min_runtime(const gq_view_t *v);

/*
 * May `preemptor` (pending) take the GPUs of `preemptee` (running)?
 * Quota reclaim for an in-quota preemptor, fair-share reclaim for a
 * fair-share one; never within a project.  O(1).
 */
bool gq_view_preemptable(const gq_view_t *v, uint32_t preemptee,
			 uint32_t preemptor);

/* Order of reclaim among candidates: lower first; UINT32_MAX otherwise. */
uint32_t gq_view_preempt_rank(const gq_view_t *v, uint32_t id);

#endif
