/*
 * write_slurm.h - the core's answers back into Slurm's job records:
 * gpuquota's holds and releases, the band text in squeue's reason, and
 * pending jobs' priorities.  Writes only what changed.
 */
#ifndef GPUQUOTA_WRITE_SLURM_H
#define GPUQUOTA_WRITE_SLURM_H

#include <stdbool.h>
#include <time.h>

#include "core/pools.h"
#include "core/view.h"
#include "plugins/slurm_compat.h"

/*
 * After a pass: hold, release, explain and reprioritize every pending job
 * of the views (one per pool).  `prev` is the pass before (NULL: none),
 * whose reason texts are not written again when nothing in them changed.
 * O(J x pools) with O(1) lookups.  Returns true when a scheduling pass
 * should run now (a job was released, or may now make room).  Caller
 * holds the slurmctld job write lock and the state lock.
 */
bool gq_write_pass(const gq_pools_t *view, const gq_pools_t *prev,
		   time_t now);

#endif
