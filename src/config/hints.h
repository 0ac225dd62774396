/*
 * hints.h - what `gpuquota check` says about a valid configuration
 * against the cluster it is for: quotas that add up to more GPUs than a
 * pool has, Slurm accounts no project lists, and the nearest existing
 * account for one that does not exist.  Never an error.  The caller
 * gathers the accounts and the GPU counts; these rules need no Slurm.
 */
#ifndef GPUQUOTA_HINTS_H
#define GPUQUOTA_HINTS_H

#include "config/config.h"

/* Accounts named in one line of gq_hint_unlisted, at most. */
#define GQ_HINT_LIST_MAX 20

/*
 * Each pool (one without pools) whose projects' gpu_quota add up to more
 * than its GPUs, caps[k]: one line each.  Returns how many lines.
 */
int gq_hint_capacity(const gq_config_t *cfg, const double *caps,
		     void (*say)(const char *line, void *ctx), void *ctx);

/*
 * The accounts of names[0..n) that no project lists and that are neither
 * a department's account nor "root", in one line (the first
 * GQ_HINT_LIST_MAX names, then "and N more").  Returns how many accounts.
 */
int gq_hint_unlisted(const gq_config_t *cfg, const char *const *names,
		     int n, void (*say)(const char *line, void *ctx),
		     void *ctx);

/*
 * The account of names[0..n) nearest to name: one equal without case,
 * else the first at the smallest edit distance (without case) of at most
 * 2; NULL when none is that near.
 */
const char *gq_hint_nearest(const char *name, const char *const *names,
			    int n);

#endif
