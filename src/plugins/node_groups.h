/*
 * node_groups.h - the nodes each pending job may run on, as the view's
 * node groups (view.h): one group per partition, then one per distinct
 * narrowing among pending jobs (--constraint, GPU type: the rules are in
 * core/constraint.h), so that room is made for a job only where it can
 * start.
 */
#ifndef GPUQUOTA_NODE_GROUPS_H
#define GPUQUOTA_NODE_GROUPS_H

#include <stdint.h>

#include "core/view.h"
#include "plugins/slurm_compat.h"

typedef struct gq_groups gq_groups_t;

/*
 * The partitions and the pending jobs' distinct narrowings, from
 * part_list and job_list.  O(P + J x W) for W narrowings (at most
 * GQ_NARROW_MAX).  Caller holds the job and partition read locks.
 */
gq_groups_t *gq_groups_collect(void);

/*
 * Give the view its node groups (after gq_view_set_nodes): each node in
 * the groups of its partitions and of the narrowings it allows.
 * O(nodes x (partitions per node + W)).  Returns 0 or -1 (memory).
 */
int gq_groups_fill(const gq_groups_t *g, gq_view_t *view);

/* A pending job's node group (0: any node).  O(P + W). */
uint32_t gq_groups_of_job(const gq_groups_t *g, job_record_t *job_ptr);

void gq_groups_free(gq_groups_t *g);

#endif
