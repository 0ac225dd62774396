/*
 * check_hints.h - the warnings `gpuquota check` adds about the cluster a
 * valid configuration is for: quotas beyond a pool's GPUs, configured
 * accounts slurmdbd lacks (with the nearest it has), and Slurm accounts
 * no project lists.  The rules are config/hints.h's; this gathers their
 * input from what the command read.
 */
#ifndef GPUQUOTA_CHECK_HINTS_H
#define GPUQUOTA_CHECK_HINTS_H

#include "cli/sacctmgr.h"
#include "config/config.h"

/*
 * warn gets each line.  accts: slurmdbd's accounts, NULL without
 * slurmdbd (no account warnings); caps: each pool's GPUs (one without
 * pools), NULL when unknown.
 */
void gq_check_hints(const gq_config_t *cfg, const gq_accts_t *accts,
		    const double *caps,
		    void (*warn)(const char *line, void *ctx));

#endif
