/*
 * advice.h - what a valid configuration asks that the model cannot give:
 * a project whose quota its department's quota does not cover in a pool.
 * Said by `gpuquota check` and in slurmctld's log at each load; never an
 * error (the file is valid, and the department's quota is the rule).
 * And a project's numbers in each pool as the load's log line lists
 * them.
 */
#ifndef GPUQUOTA_ADVICE_H
#define GPUQUOTA_ADVICE_H

#include <stdbool.h>

#include "config/config.h"

/*
 * Calls say once per line of advice: a project's quota above its
 * department's in a pool (its jobs past the department's quota are never
 * in quota), and a department whose projects' quotas add up to more than
 * its own in a pool.  Returns how many lines, -1 out of memory.  O(pools x
 * projects).
 */
int gq_config_advice(const gq_config_t *cfg,
		     void (*say)(const char *line, void *ctx), void *ctx);

/*
 * Project i's numbers as slurmctld's log line lists them, into buf (n
 * its size; 0 to measure), snprintf's way: "name(quota=Q,weight=W)"
 * without pools, "name(P1:quota=Q,weight=W;P2:...)" with pools (each
 * pool's numbers, by_pool).  The length of the whole text.  O(pools).
 */
int gq_config_project_text(const gq_config_t *cfg, int i, char *buf,
			   size_t n);

#endif
