/*
 * victims.h - victim candidate sets with floors (SEMANTICS.md "Reclaim").
 *
 * Owns: which running jobs of a project may be reclaimed, so that whatever
 * subset of them Slurm requeues the project never ends below its floor
 * (q_v for quota reclaim, max(q_v, f_v) for fair-share reclaim), and the
 * order in which candidates of all projects are taken.
 */
#ifndef GPUQUOTA_VICTIMS_H
#define GPUQUOTA_VICTIMS_H

#include <stdint.h>

#include "core/view.h"

/* Can this running job ever be a victim (requeueable, holds GPUs, old enough)? */
int gq_victim_eligible(const gq_job_t *job, int64_t now, int min_runtime);

/*
 * Mark the candidates of one project: `run` holds the indexes (into jobs)
 * of its running jobs.  Sorts `run` into walk order (lowest Slurm order
 * first, then youngest), then walks it once per floor, skipping jobs whose
 * GPUs no longer fit in alloc - floor.  O(n log n).
 */
void gq_victims_mark(gq_job_t *jobs, int *run, int n, double alloc,
		     double quota, double share, int64_t now, int min_runtime);

/*
 * Over-service of a project, a_v / max(q_v, f_v): the most over-served
 * project is reclaimed from first (a project with nothing deserved: +inf).
 */
double gq_overservice(double alloc, double quota, double share);

#endif
