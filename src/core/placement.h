/*
 * placement.h - a pass' nodes and where its running jobs sit
 * (placement.c): each node's idle GPUs, whether it takes work, what it
 * offers a preemptor now, its node groups and domain, and each running
 * job's GPUs per node.  The view's calls (view.h, "Placement", "Node
 * groups") reach them through these functions; room.c, patience.c and
 * waits.c read them.
 */
#ifndef GPUQUOTA_PLACEMENT_H
#define GPUQUOTA_PLACEMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/job_store.h"

typedef struct {
	int nnodes;
	uint32_t *node_free;	/* idle GPUs per node */
	uint8_t *node_closed;	/* per node: takes no new work */
	uint32_t *node_room;	/* per node: GPUs a preemptor can count on
				 * now, for the pass (room.h,
				 * gq_room_nodes) */
	int node_cap;
	int *pl_node;		/* running jobs' GPUs per node, entries */
	uint32_t *pl_gpus;	/* gq_job_t.place_first .. + place_n */
	int *pl_job;		/* the job (index in the store) of each entry */
	int npl, pl_cap;
	uint8_t *groups;	/* ngroups x nnodes: node in group */
	int ngroups, groups_cap;
	int *node_domain;	/* per node: its switch or block, 0 ..
				 * ndomains - 1; -1: none given */
	int ndomains;		/* 0: no topology */
} gq_nodes_t;

void gq_nodes_free(gq_nodes_t *n);

/* Forget the nodes, their entries and groups (a pass begins). */
void gq_nodes_clear(gq_nodes_t *n);

/* nnodes nodes, none idle, all open.  0, or -1 (memory). */
int gq_nodes_set(gq_nodes_t *n, int nnodes);
void gq_nodes_close(gq_nodes_t *n, int node);
void gq_nodes_idle(gq_nodes_t *n, int node, uint32_t free_gpus);

/* ngroups groups, no node in any.  0, or -1 (out of range; memory, then
 * *failed is set). */
int gq_nodes_set_groups(gq_nodes_t *n, int ngroups, bool *failed);
int gq_nodes_group(gq_nodes_t *n, int node, int group);

/* May a pending job with this node_group run on `node`? */
bool gq_nodes_allowed(const gq_nodes_t *n, uint32_t node_group, int node);

/* `node` is in domain `domain` (its switch or block: 0 .. 65535, dense
 * numbers from 0).  0, or -1 (out of range). */
int gq_nodes_domain(gq_nodes_t *n, int node, int domain);

/*
 * Job job_id holds `gpus` GPUs on `node` (its entries consecutive).
 * `computed`: the pass is computed, so the job's record is whole.  0, or
 * -1 (unknown job, entries not consecutive; memory, then *failed is set).
 */
int gq_nodes_place(gq_nodes_t *n, gq_job_store_t *store, bool computed,
		   uint32_t job_id, int node, uint32_t gpus, bool *failed);

#endif
