/*
 * helpers.h - building configs, jobs and views in the unit tests: what
 * Slurm would say of a job, as the core's input.
 */
#ifndef GPUQUOTA_TEST_HELPERS_H
#define GPUQUOTA_TEST_HELPERS_H

#include "core/view.h"

/* A project whose account is its name (name must outlive the config). */
gq_project_cfg_t proj(const char *name, int quota, double weight, int limit);

/* A department, weight 1. */
gq_dept_cfg_t dept(const char *name, int quota, int limit);

/* A view of np projects and nd departments (both copied). */
gq_view_t *view_of(gq_project_cfg_t *p, int np, gq_dept_cfg_t *d, int nd);

/* A view of two projects given as name/quota pairs, weight 1, no limit. */
gq_view_t *view2(const char *a, int qa, const char *b, int qb,
		 int min_runtime);

/* The in-quota band's base priority: a job there with no room (or
 * patient) has it; a keyed job base + 1 + (1 - key) x (700 000 000 - 2)
 * (band.h). */
#define IN_QUOTA_BASE 1400000001u

/* What Slurm says of a running job (requeueable, started at `start`). */
gq_job_in_t running(uint32_t id, uint32_t gpus, int64_t start);

/* What Slurm says of an eligible pending job. */
gq_job_in_t pending(uint32_t id, uint32_t gpus, int64_t submit);

gq_job_in_t no_requeue(gq_job_in_t in);
gq_job_in_t with_order(gq_job_in_t in, int64_t order);
gq_job_in_t with_tasks(gq_job_in_t in, uint32_t tasks);

/* a pending job's shape: gpus_per_node on each of `nodes` nodes */
gq_job_in_t shaped(gq_job_in_t in, uint32_t gpus_per_node, uint32_t nodes);

/* Add a job of account acct; fails the test when the view refuses it. */
const gq_job_t *add(gq_view_t *v, const char *acct, gq_job_in_t in);
const gq_job_t *run(gq_view_t *v, uint32_t id, const char *acct,
		    uint32_t gpus, int64_t start);
const gq_job_t *pend(gq_view_t *v, uint32_t id, const char *acct,
		     uint32_t gpus, int64_t submit);

/* A running job placed on one node, started at 10 + id, its --time end
 * `ends` (0: none). */
typedef struct {
	uint32_t id, gpus;
	int node;
	int64_t ends;
	const char *acct;
} placed_t;
void add_placed(gq_view_t *v, const placed_t *r, unsigned n);

/* Begin a pass at time 100 on two nodes, `free0` and `free1` of `total`
 * GPUs idle on them. */
/* The same at time `now`. */
void two_nodes_at(gq_view_t *v, uint32_t total, int64_t now, uint32_t free0,
		  uint32_t free1);
void two_nodes(gq_view_t *v, uint32_t total, uint32_t free0, uint32_t free1);

/* The project of an account, after a pass. */
const gq_project_t *project(gq_view_t *v, const char *acct);

/* A temporary file holding text; free the returned path. */
char *write_temp(const char *text);

/* The state locked and loaded with the configuration `json` (the test
 * fails when it does not load); state_done clears and unlocks it and
 * removes the file.  Returns the file's path, for state_done. */
char *state_with(const char *json);
void state_done(char *path);

#endif
