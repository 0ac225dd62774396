/*
 * registry.h - who the projects and departments are (docs/MODEL.md
 * "Terms").
 *
 * Owns: the project table (configured projects, plus a 0-quota project for
 * each account no project lists, made on first sight), the department
 * table, account -> project, and Slurm's account tree (an account under a
 * department's account belongs to that department unless the config says
 * otherwise).  Also each project's and department's per-pass numbers
 * (a_p, pending GPUs, f_p), which the pass fills in.
 *
 * Costs: lookups and inserts O(1) (hash on the name; gq_registry_project_of
 * hashes the exact spelling, case-folding only on first sight of a
 * spelling); the tables only grow
 * (an unlisted account keeps its project for the life of the view).
 */
#ifndef GPUQUOTA_REGISTRY_H
#define GPUQUOTA_REGISTRY_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"
#include "tools/hash.h"

/*
 * The sums of a project's queue walk (queue.c) at some job: a_p plus the
 * GPUs of the jobs before it that may start, of all of them (what limits
 * bound), of those banded in quota, and of those banded in quota or fair
 * share.  `later`: the GPUs of the jobs not eligible yet that the walk
 * let through (their begin time passes on its own: they may start before
 * the next pass), which limits bound on top of `all`.
 */
typedef struct {
	double all, inq, fair;
	double later;
} gq_sums_t;

typedef struct {
	char *name;		/* shown: an unlisted account's sanitized */
	char *account;		/* an account no project lists: its name in
				 * lower case, its identity (usage.c keys
				 * its usage by it); NULL when configured */
	double quota, weight, limit;	/* limit INFINITY when unlimited */
	int department;		/* -1 when none */
	bool configured;	/* false: an account no project lists */
	bool dept_from_tree;	/* department taken from Slurm's accounts */
	double usage;		/* GPU-seconds above quota, decayed (usage.h) */
	double tilt;		/* its weight's factor from usage; 1: none */
	double budget;		/* requeue budget, GPU-hours; 0: none */
	double lost;		/* GPU-hours of its work requeues lost in the
				 * budget's window (gq_view_set_lost) */
	/* per pass */
	uint32_t alloc;		/* a_p */
	uint32_t at_risk;	/* of a_p, on nodes that do not respond */
	uint64_t pending;	/* GPUs of eligible pending jobs (x tasks) */
	uint32_t landing;	/* GPUs of its moved jobs not running again
				 * yet: still its own in the walk (queue.h) */
	double deserved;	/* step 1 of fair share */
	double share;		/* f_p */
	double share_floor;	/* f_p without usage's tilt: the floor
				 * against fair-share reclaim */
	double quota_out;	/* its part of its department's quota: its
				 * quota against reclaim from outside */
	gq_sums_t tail;		/* after the last job walked (late submits) */
	bool room_void;		/* a job left since the pass: its room sets
				 * are void until the next pass */
} gq_project_t;

typedef struct {
	char *name;
	double quota, weight, limit;
	/* per pass */
	uint32_t alloc;
	uint32_t at_risk;	/* of alloc, on nodes that do not respond */
	uint32_t landing;	/* its projects' landing GPUs */
	double demand, share;
	double share_floor;	/* share without usage's tilt (floors) */
	gq_sums_t tail;		/* alloc + pending GPUs not held, in quota
				 * (late submits; .fair unused) */
} gq_dept_t;

typedef struct {
	gq_project_t *proj;
	int nproj, proj_cap;
	gq_dept_t *dept;
	int ndept;
	gq_hash_t accounts;	/* account -> project index */
	/*
	 * The same by the account's exact spelling (registry.c): a pass asks
	 * once per job, and one probe of a small table holding the name
	 * itself costs less than case-folding the name and comparing it
	 * with a key stored elsewhere.  An account's project never changes
	 * in a registry's life, so it never goes stale.
	 */
	struct gq_spelled *spelled;
	uint32_t spelled_cap, spelled_count;
	gq_hash_t depts;	/* department name -> index */
	gq_hash_t tree;		/* account -> department, from Slurm's tree */
	/* per pass: GPUs of the pool no running job holds (capacity minus
	 * every a_p; kept up to date by jobs added after the pass) */
	double idle;
	double default_budget;	/* settings.requeue_budget: accounts no
				 * project lists */
} gq_registry_t;

/* The projects and departments of a config.  Returns 0 or -1 (memory). */
int gq_registry_init(gq_registry_t *r, const gq_config_t *cfg);
void gq_registry_free(gq_registry_t *r);

/*
 * The project of an account (NULL: the empty account); an account no
 * project lists becomes a 0-quota, weight-1, unlimited project, in the
 * department Slurm's tree puts it in.  Returns its index, or -1 when out
 * of memory.
 */
int gq_registry_project_of(gq_registry_t *r, const char *account);

/* The project of an account, or -1 when it has none yet. */
int gq_registry_find(const gq_registry_t *r, const char *account);

/*
 * Slurm's account tree: `account` has parent account `parent`.  Returns 0
 * or -1 (memory).
 */
int gq_registry_account_parent(gq_registry_t *r, const char *account,
			       const char *parent);

/* Forget the per-pass numbers of every project and department. */
void gq_registry_reset(gq_registry_t *r);

/*
 * A running job of `project` counted in (gpus > 0) or taken out (gpus <
 * 0): a_p, and a_d of its department, change by `gpus`, their at_risk
 * parts with them when the job runs on a node that does not respond.
 * (Inline: the pass counts every running job as it groups the records,
 * job_store.c.)  O(1).
 */
static inline void gq_registry_alloc(gq_registry_t *r, int project,
				     int64_t gpus, bool at_risk)
{
	gq_project_t *p = &r->proj[project];

	p->alloc += gpus;
	if (at_risk)
		p->at_risk += gpus;
	if (p->department >= 0) {
		r->dept[p->department].alloc += gpus;
		if (at_risk)
			r->dept[p->department].at_risk += gpus;
	}
}

/*
 * Is the victim's project in a department the preemptor's project is not
 * in?  Then the department's floor bounds the reclaim too.  (Inline: room
 * asks it for every project, once per shape of preemptor.)
 */
static inline bool gq_registry_outsider(const gq_registry_t *r,
					int victim_project,
					int preemptor_project)
{
	int d = r->proj[victim_project].department;

	return d >= 0 && d != r->proj[preemptor_project].department;
}

#endif
