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
 * The partitions, from part_list; the narrowings come from
 * gq_groups_note_pending.  O(P).  NULL when out of memory.  Caller holds
 * the partition read lock.
 */
gq_groups_t *gq_groups_begin(void);

/*
 * Note a pending job's narrowing (in job_list's order: the first
 * GQ_NARROW_MAX distinct ones get a group) and return its node group (0:
 * any node), final as soon as it is returned: groups are only added.
 * O(P + W) for the W narrowings noted so far.  Caller holds the job read
 * lock.
 */
uint32_t gq_groups_note_pending(gq_groups_t *g, job_record_t *job_ptr);

/*
 * Give the view its node groups (after gq_view_set_nodes): each node in
 * the groups of its partitions and of the narrowings it allows.
 * O(nodes x (partitions per node + W)).  Returns 0 or -1 (memory).
 */
int gq_groups_fill(const gq_groups_t *g, gq_view_t *view);

/*
 * The node group of a job that is not pending and not running (0: any
 * node), once every pending job has been noted.  O(P + W).
 */
uint32_t gq_groups_of_job(const gq_groups_t *g, job_record_t *job_ptr);

void gq_groups_free(gq_groups_t *g);

#endif
