/*
 * projects.h - a replay's figures per project: the accounts of a result
 * rolled up into the projects of one configuration (the first
 * gpuquota.json given), as an admin reads them.
 *
 * Owns: which project an account is in (as the plugins map it: the
 * core's registry, core/registry.h), a project's quota (summed over
 * pools), and each project's figures: its accounts' GPU-hours, requeues,
 * GPU-hours lost, jobs and jobs never started summed; its wait p50/p95
 * over the union of its accounts' jobs (from the jobs' outcomes, not from
 * the accounts' percentiles); its time below quota measured on the
 * project as the contract reads it: while its jobs hold fewer GPUs than
 * min(quota, its demand), demand pending.  An account no project lists is
 * a project of its own, quota 0 (as the core and `gpuquota projects` have
 * it), or, folded, one of the project "(others)" (quota 0) with every
 * other such account.  No Slurm header here.
 */
#ifndef GPUQUOTA_SIM_PROJECTS_H
#define GPUQUOTA_SIM_PROJECTS_H

#include "config/config.h"
#include "sim/replay.h"

/* The index of the project of cfg listing `account`, as the plugins map
 * it (the core's registry: a project listing no account lists its own
 * name; Slurm's spellings folded), -1 when none does or out of memory.
 * O(projects x accounts): a registry made for the call. */
int gq_sim_project_of(const gq_config_t *cfg, const char *account);

/* Project p's quota in cfg, summed over pools. */
double gq_sim_project_quota(const gq_config_t *cfg, int p);

#define GQ_SIM_OTHERS "(others)"

/*
 * r->proj: cfg's projects in its order, then each account of r->acct no
 * project lists, in r->acct's order (`fold`, with cfg: all of them one
 * project, GQ_SIM_OTHERS, r->others its index); each account's `project`
 * set.  After the replay's accounts are known.  0, or -1 out of memory.
 * O(projects x accounts + A): one registry for all.
 */
int gq_sim_projects_init(gq_sim_result_t *r, const gq_config_t *cfg,
			 bool fold);

/* dt seconds pass with x's alloc and pending as they are: below quota
 * while its jobs hold fewer GPUs than min(quota, demand), demand
 * pending. */
void gq_sim_below_quota(gq_sim_acct_t *x, int64_t dt);

/* dt seconds pass with the accounts' alloc and pending as they are: each
 * project's alloc and pending summed, its time below quota counted.
 * O(A + projects). */
void gq_sim_projects_advance(gq_sim_result_t *r, int64_t dt);

/* The replay done (r->job's waits final): each project's sums and
 * waits.  0, or -1 out of memory.  O(J log J). */
int gq_sim_projects_finish(gq_sim_result_t *r, size_t njobs);

/* The waits w[0..n) sorted, their p50 and p95 (nearest rank; 0 when n
 * is 0).  O(n log n). */
void gq_sim_wait_ranks(int64_t *w, size_t n, double *p50, double *p95);

#endif
