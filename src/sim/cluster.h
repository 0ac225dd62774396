/*
 * cluster.h - the simulator's nodes and its model of Slurm's placement
 * (select/cons_tres with GPUs as gres): GPUs, and CPUs when known, per
 * node; a one-node job on the first node in node order with its GPUs
 * and CPUs idle; a job of several nodes on the first that many nodes
 * wholly idle, each taken whole (all its GPUs and CPUs).  Memory,
 * GPU types, features and topology are not modelled.  No Slurm header
 * here.
 */
#ifndef GPUQUOTA_SIM_CLUSTER_H
#define GPUQUOTA_SIM_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GQ_SIM_PARTS_MAX 63	/* partitions the model tells apart */
#define GQ_SIM_NO_PART (1ULL << 63)	/* a partition no node is in */

typedef struct {
	char *name;
	uint32_t gpus, cpus;	/* configured; cpus 0: not modelled */
	uint64_t parts;		/* bit i: in partition part[i]; 0: none named */
} gq_sim_node_t;

typedef struct {
	gq_sim_node_t *node;
	int n;
	char *part[GQ_SIM_PARTS_MAX];	/* partitions, as the nodes name them */
	int nparts;
	uint32_t *free_gpus, *free_cpus;	/* idle now, by node */
	uint32_t max_free;	/* most idle GPUs of one node */
	int idle_nodes;		/* nodes with GPUs, wholly idle */
	uint64_t gpus, idle_gpus;	/* all nodes */
	uint64_t gives;		/* gq_sim_give calls: idle GPUs and CPUs
				 * only ever came back at these */
} gq_sim_cluster_t;

/* What a job asks of the nodes. */
typedef struct {
	uint32_t gpus;		/* one node: its GPUs; several: unused */
	uint32_t cpus;		/* one node: its CPUs (0: none asked) */
	uint32_t nodes;		/* >= 1 */
	uint64_t parts;		/* nodes it may use; 0: any */
} gq_sim_shape_t;

/* `n` nodes n1..nN of `gpus` GPUs and `cpus` CPUs (0: not modelled).
 * Returns 0 or -1 (memory). */
int gq_sim_cluster_uniform(gq_sim_cluster_t *c, int n, uint32_t gpus,
			   uint32_t cpus);

/*
 * The nodes of `scontrol show node` output (or `scontrol -o show node`):
 * each record's NodeName, CPUTot, Gres (its GPUs, tools/gres_text.h) and
 * Partitions.  Returns 0, or -1 with err naming the file, line and field.
 * O(text).
 */
int gq_sim_cluster_read(gq_sim_cluster_t *c, const char *path, char *err,
			size_t errlen);

/* The nodes a job of this partition (NULL: none named) may use, as a
 * mask of the cluster's partitions: 0 (any) when the cluster names none
 * or the job none; GQ_SIM_NO_PART (no node) for a partition no node is
 * in.  O(partitions). */
uint64_t gq_sim_part_mask(const gq_sim_cluster_t *c, const char *partition);

/* Could the job fit now, at a glance (O(1)): false means it cannot. */
bool gq_sim_may_fit(const gq_sim_cluster_t *c, const gq_sim_shape_t *s);

/*
 * First fit on these idle GPUs and CPUs (the cluster's own, or a what-if
 * copy): the nodes into out (s->nodes of them).  False: it does not fit.
 * O(N).
 */
bool gq_sim_fit(const gq_sim_cluster_t *c, const uint32_t *free_gpus,
		const uint32_t *free_cpus, const gq_sim_shape_t *s, int *out);

/* The same, never on a node i with avoid[i] set (NULL: none avoided). */
bool gq_sim_fit_avoid(const gq_sim_cluster_t *c, const uint32_t *free_gpus,
		      const uint32_t *free_cpus, const gq_sim_shape_t *s,
		      const uint8_t *avoid, int *out);

/* May node i take its part of the job on these idle GPUs and CPUs (its
 * partitions; the job's GPUs and CPUs idle, or the node wholly idle for
 * a job of several nodes)?  O(1). */
bool gq_sim_node_fits(const gq_sim_cluster_t *c, const uint32_t *free_gpus,
		      const uint32_t *free_cpus, const gq_sim_shape_t *s,
		      int i);

/* What a job of shape s holds on node i: its GPUs and CPUs there. */
void gq_sim_held(const gq_sim_cluster_t *c, const gq_sim_shape_t *s, int i,
		 uint32_t *gpus, uint32_t *cpus);

/* Take (a start) or give back (an end, a requeue) the job's nodes.
 * O(N): the glance's figures are made again. */
void gq_sim_take(gq_sim_cluster_t *c, const gq_sim_shape_t *s,
		 const int *nodes);
void gq_sim_give(gq_sim_cluster_t *c, const gq_sim_shape_t *s,
		 const int *nodes);

void gq_sim_cluster_free(gq_sim_cluster_t *c);

#endif
