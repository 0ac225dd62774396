/*
 * view_impl.h - the inside of a gpuquota view, shared by the files of the
 * core that compute a pass (view.c, room.c).  Not for the plugins.
 */
#ifndef GPUQUOTA_VIEW_IMPL_H
#define GPUQUOTA_VIEW_IMPL_H

#include "core/index.h"
#include "core/view.h"

struct gq_view {
	gq_project_t *proj;
	int nproj, proj_cap;
	gq_dept_t *dept;
	int ndept;
	gq_strmap_t accounts;	/* account -> project index */
	gq_strmap_t depts;	/* department name -> index */
	gq_strmap_t tree;	/* account -> department, from Slurm's tree */

	gq_job_t *jobs;
	int njobs, jobs_cap;
	gq_idmap_t ids;		/* job id -> index in jobs */

	double capacity;
	int64_t now;
	int min_runtime;	/* from the config */
	int min_runtime_pass;	/* max(config, Slurm's), this pass */

	/* placement, for making room (optional) */
	int nnodes;
	uint32_t *node_free;	/* idle GPUs per node */
	int node_cap;
	int *pl_node;		/* running jobs' GPUs per node: */
	uint32_t *pl_gpus;	/* gq_job_t.place_first .. + place_n */
	int npl, pl_cap;
	gq_pairset_t room;	/* (preemptor, victim) sets that make room */
};

/*
 * For each pending job that may reclaim but whose usual candidates cannot
 * make room on its nodes, choose a set within the same floors that does.
 * `order` lists every victim-eligible running job in reclaim order.
 */
void gq_room_make(gq_view_t *v, const int *order, int norder);

#endif
