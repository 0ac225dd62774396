/*
 * read_slurm.h - Slurm's state into the core's inputs: where a pass reads
 * job_list, the node table and the association manager (the writes read
 * the records they change: write_slurm.h; sprio's factors and the
 * configuration checks read job_list too).  What the fields mean is
 * decided in shared/job_facts.h; this file only copies them.
 */
#ifndef GPUQUOTA_READ_SLURM_H
#define GPUQUOTA_READ_SLURM_H

#include <time.h>

#include "config/config.h"
#include "core/pools.h"
#include "core/view.h"
#include "shared/slurm_compat.h"

/* Once per plugin load. */
void gq_read_init(void);

/* Which pool is this job in (gq_pool_of_job), or -1: not gpuquota's. */
int gq_read_pool(const gq_pools_t *p, job_record_t *job_ptr);

/*
 * A pending job of pool `home` (its input `in`) added between passes into
 * every other pool it lists a partition of, as a shadow (gq_pools_shadow,
 * gq_view_add_late): held there when it would pass a limit.  Returns 0, or -1 when a view ran out of memory.
 * O(pools x listed partitions).
 */
int gq_read_shadows(gq_pools_t *p, int home, job_record_t *job_ptr,
		    const gq_job_in_t *in);

/*
 * The completing nodes (slurmctld's cg_node_bitmap: a job ended there and
 * the node's epilog is not done) that take work, with their idle GPUs
 * (the ended jobs' GPUs are idle already), at most `max` into `out`;
 * returns how many (gq_state_t.completing_nodes).  O(nodes / 64 +
 * completing nodes).  Caller holds the node read lock (at least).
 */
int gq_read_completing(gq_node_idle_t *out, int max);

/* Is this job held by gpuquota (not by a user or an admin)? */
bool gq_read_held(job_record_t *job_ptr);

/*
 * Is this a job array's record as priority_p_set sees it at submit,
 * before Slurm has made its tasks (array_recs)?  Slurm's job_allocate()
 * (job_mgr.c; read in 22.05.8, 23.11.4 and 26.05.3) calls
 * job_independent() for every job but an array, then set_job_prio() (the
 * priority still NO_VAL), and only then _create_job_array();
 * job_independent() gives an eligible job its begin time and an
 * ineligible one a reason.  So a job given its first priority with no
 * begin time and no reason is an array.  O(1).
 */
bool gq_read_new_array(const job_record_t *job_ptr);

/*
 * How many jobs whose ignored checkpoint note was logged are remembered
 * (so as not to log it again): those met in the last two walks of
 * job_list.  O(1).
 */
int gq_read_ignored_remembered(void);

/* The core's input for one job.  Reads only: a running job's ignored
 * checkpoint note is logged by the pass's walk (gq_read_pass), once per
 * job and note. */
void gq_read_job(job_record_t *job_ptr, time_t now, gq_job_in_t *out);

/* A job as priority_p_set reads it: gq_read_job now, and a waiting job
 * at priority 0 is pending (being given a priority now).  O(1). */
void gq_read_set(job_record_t *job_ptr, gq_job_in_t *in);

/*
 * priority_p_set's insertion of job_ptr (its input `in`, gq_read_set)
 * into `pools` (its band from the pass, as if last in its project's
 * queue); a pass between its read and its write adds the jobs
 * priority_p_set added meanwhile the same way.  Returns the job as it
 * orders (a shadow when another pool's limit holds it), NULL outside the
 * pools or out of memory; *k its pool.  Caller holds the job write lock
 * and the state lock.  O(pools x listed partitions).
 */
const gq_job_t *gq_read_add(gq_pools_t *pools, job_record_t *job_ptr,
			    const gq_job_in_t *in, int *k);

/*
 * Fill each pool's view for a pass: the pool's nodes and capacity,
 * Slurm's account tree, every active job of the pool and the running
 * jobs' placement; at the first pass since the state was made (a
 * slurmctld restart), the reclaims in flight, from the victims still
 * warned (gq_state_rebuild_reclaim).  Logs a running job's ignored
 * checkpoint note once per job and note.  O(J x pools + N x pools +
 * associations x pools).
 * Caller holds the slurmctld job, node and partition locks (read at
 * least) and the state lock.  Returns 0, or -1 when a view ran out of
 * memory.
 */
int gq_read_pass(gq_pools_t *p, time_t now);

#endif
