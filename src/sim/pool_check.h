/*
 * pool_check.h - the pools of a configuration no job of a history is in:
 * replayed, gpuquota sees no job there, and every project's figures of
 * that pool are 0 (a trace whose jobs name no partition, or none of the
 * pool's).
 *
 * Owns: the warning line for each such pool.  No Slurm header here.
 */
#ifndef GPUQUOTA_SIM_POOL_CHECK_H
#define GPUQUOTA_SIM_POOL_CHECK_H

#include <stdio.h>

#include "config/config.h"
#include "sim/history.h"

/*
 * For each pool of cfg (read from `path`) no job of h is in, as a pending
 * job is (gq_pool_of_job: the first partition it names that a pool has),
 * one line to f:
 *   gpuquota simulate: warning: PATH: no job in the trace matches pool X
 *   (partitions P,Q); every project shows 0 there
 * Returns the lines written (0 without pools), or -1 out of memory.
 * O(pools x J x partitions).
 */
int gq_sim_warn_pools(FILE *f, const char *path, const gq_config_t *cfg,
		      const gq_sim_history_t *h);

#endif
