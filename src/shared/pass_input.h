/*
 * pass_input.h - a pass's input as data, and the one function that turns
 * it into the pools' views.
 *
 * Owns: what both readers of Slurm hand over (plugins/read_slurm.c from
 * slurmctld's records, cli/read_api.c from libslurm's messages): the
 * active jobs, each with its account, partitions, narrowing and placement,
 * and the node table, each node with its GPUs, state, partitions and
 * features; and the steps that fill a pass from it, in their one order
 * (views begun, nodes, capacity and node groups, PreemptExemptTime, then
 * jobs, placement and shadows).  A reader copies Slurm's fields; every
 * decision about them is here or in job_facts.h, so the command and
 * slurmctld cannot read one cluster two ways.  The memory of a
 * gq_pass_in_t is its reader's (the plugin's comes from its failing
 * allocator, xalloc.h).
 */
#ifndef GPUQUOTA_PASS_INPUT_H
#define GPUQUOTA_PASS_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "core/pools.h"
#include "state/losses.h"
#include "state/usage.h"
#include "core/view.h"
#include "shared/job_facts.h"

/* A running job's GPUs on one node (its index in the node table). */
typedef struct {
	uint32_t node;
	uint32_t gpus;
} gq_pass_place_t;

/* An active job (gq_facts_active) of a pool, as the pass reads it. */
typedef struct {
	int pool;		/* its pool (gq_pass_pool): the reader, which
				 * hands over only jobs of a pool, found it */
	const char *account;
	const char *partitions;	/* comma separated: a pending job's every
				 * one, a started job's own first */
	bool pending;		/* Slurm's state is PENDING (its narrowing
				 * makes a node group) */
	/* a job not running: what narrows its nodes (gq_narrow_of) */
	const char *features;	/* --constraint */
	const char *tres_per_node, *tres_per_job;
	bool pinned;		/* --nodelist or --exclude: its nodes are
				 * not its partition's; a running job so is
				 * never moved (GQ_NODES_UNKNOWN) */
	gq_job_in_t in;		/* gq_job_input's record, at_risk and
				 * site_order set; node_group is set here */
	uint32_t place, nplaces;	/* running: its GPUs per node,
					 * gq_pass_in_t.place[place...] */
} gq_pass_job_t;

/* A node of the node table, by index. */
typedef struct {
	bool present;		/* a hole in the table: false */
	uint32_t state;		/* Slurm's node_state */
	uint64_t gpus;		/* GPUs configured */
	uint64_t alloc;		/* GPUs allocated */
	uint32_t part, nparts;	/* its partitions: node_part[part...] */
	const char *features;	/* active features */
	const char *gres;	/* its gres, Slurm's text (GPU types) */
	int domain;		/* its switch or block, from 1; 0: none */
} gq_pass_node_t;

typedef struct {
	gq_pass_job_t *job;
	size_t njobs;
	gq_pass_node_t *node;
	size_t nnodes;
	gq_pass_place_t *place;
	size_t nplaces;
	const char *const *part;	/* Slurm's partitions: node group
					 * i + 1 is part[i] */
	int nparts;
	int *node_part;		/* the nodes' partitions, indexes of part[] */
	size_t nnode_parts;
	int min_runtime;	/* PreemptExemptTime, seconds */
} gq_pass_in_t;

/*
 * Which pool a job of these partitions is in (gq_pool_of_job: a started
 * job the pool of the partition it runs in), or -1: not gpuquota's.
 */
int gq_pass_pool(const gq_pools_t *p, const char *partitions, bool pending);

/*
 * A job of pool `home` not running (its input `in`) into every other
 * pool it lists a partition of, as a shadow (gq_pools_shadow): held there
 * when it would pass a limit.  During a pass (gq_pass_fill) or, `late`,
 * into computed views (gq_view_add_late).  Returns 0, or -1 when a view
 * ran out of memory.  O(pools x listed partitions).
 */
int gq_pass_shadows(gq_pools_t *p, int home, const char *account,
		    const char *partitions, const gq_job_in_t *in, bool late);

/* A partition's index in in->part (name of len bytes), or -1.
 * O(partitions). */
int gq_pass_part_index(const gq_pass_in_t *in, const char *name, size_t len);

/* C of pool cfg: its nodes' GPUs (gq_node_capacity).  O(nodes). */
double gq_pass_capacity(const gq_pass_in_t *in, const gq_config_t *cfg);

/*
 * Fill each pool's view for a pass: gq_view_begin, the pool's nodes (idle
 * GPUs where a node takes work, else closed), its capacity, the node
 * groups (Slurm's partitions, then each distinct narrowing of a pending
 * job of the pools, in the jobs' order), PreemptExemptTime; then every
 * job in the pool it names (a job of none is skipped), a running one with
 * its placement, one not running with its node group and as a shadow in
 * the other pools it lists.  (Slurm's
 * account tree comes from the reader: slurmctld's cache or slurmdbd.)
 * Sets in->job[i].in.node_group.  Returns 0, or -1 out of memory (the
 * views then hold a partial pass: not to be computed).
 * O(J x pools x listed partitions + pools x N x (node partitions x P +
 * narrowings)) for J jobs, N nodes, P partitions.
 */
int gq_pass_fill(gq_pools_t *p, gq_pass_in_t *in, int64_t now);

/*
 * A job's part in the reclaims in flight, from what Slurm keeps (both
 * readers, between gq_state_leaving_begin and gq_state_leaving_end): when
 * `rebuild` (the first pass since the state was made, and every run of
 * the command), a victim still warned (gq_facts_reclaim_of, f's state,
 * end time and preempt_time) or requeued less than GQ_RECLAIM_WAIT ago
 * (gq_facts_requeued_for) notes its reclaim again
 * (gq_state_rebuild_reclaim, with *preemptor, *since, *grace set), with
 * the nodes a warned victim still runs on (nodes[0..nnodes), Slurm's node
 * indices; nnodes < 0: not known; a victim requeued: not known either,
 * so any node: gq_state_rebuild_nodes); a victim still leaving (warned
 * and running, or completing) is told to gq_state_victim_leaving; a
 * running array task (f's id, array_job_id, start_time) ends the reclaim
 * its array noted before it started (gq_state_array_task_running).
 * Returns 1 when a reclaim was rebuilt, -1 when that ran out of memory,
 * else 0.  Caller holds the state lock.  O(reclaims in flight +
 * nnodes).
 */
int gq_pass_victim(const gq_job_facts_t *f, const char *system_comment,
		   int64_t preempt_time, int64_t now, bool rebuild,
		   const int *nodes, int nnodes,
		   uint32_t *preemptor, int64_t *since, int *grace);

/*
 * A moved job's landing (gq_state_note_landing), rebuilt from what Slurm
 * keeps at a pass that rebuilds (gq_pass_victim's `rebuild`).  Its system
 * comment names the node it restarts on (gq_facts_moved_to); `node` is
 * that node's index (-1: none, nothing rebuilt).  A victim still warned
 * (gq_facts_reclaim_of) is kept from its warning for its grace time,
 * `kill_wait` and Slurm's requeue `delay`, as preempt/gpuquota kept it; a
 * victim requeued less than GQ_RECLAIM_WAIT + delay ago, from its
 * requeue.  Returns whether a landing was rebuilt (false too when out of
 * memory).  Caller holds the state lock.  O(landings).
 */
bool gq_pass_landing(const gq_job_facts_t *f, const char *system_comment,
		     int64_t preempt_time, int64_t now, int node, int kill_wait,
		     int delay);

/*
 * Compute a filled pass (the plugin's and the command's one order): the
 * surplus tilted by each project's usage, each project's work lost to
 * requeues in the requeue budget's window (`losses`, NULL: none known),
 * each pool's model with the reclaims in flight expected
 * (gq_state_reclaim_waiting), then work outside quotas made to wait for
 * them (gq_state_wait_for_reclaims).  Returns 0, or -1 out of memory.
 * Caller holds the state lock.
 */
int gq_pass_compute(gq_pools_t *p, const gq_usage_t *usage,
		    const gq_losses_t *losses, const gq_settings_t *s,
		    int64_t now);

#endif
