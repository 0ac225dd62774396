/*
 * multifactor.h - Slurm's own priority/multifactor inside priority/gpuquota
 * (multifactor.c; docs/MODEL.md "Priority with multifactor",
 * docs/DEVELOPING.md "multifactor inside gpuquota").
 *
 * gpuquota loads the running Slurm's priority_multifactor.so from PluginDir
 * at init and forwards every priority entry point to it: usage and its
 * decay, run seconds, GrpTRESMins, sshare, sprio and the priority of every
 * job outside the pools stay multifactor's.  A pool job's band rides in its
 * site factor, which multifactor adds to its own sum at submit and every
 * PriorityCalcPeriod, so neither overwrites the other.  When it is off (a
 * setting) or cannot be loaded, every call here is a no-op and gpuquota
 * orders alone (priority/basic's bookkeeping: run_secs.h).
 */
#ifndef GPUQUOTA_PLUGIN_MULTIFACTOR_H
#define GPUQUOTA_PLUGIN_MULTIFACTOR_H

#include "shared/slurm_compat.h"

/* Load and init multifactor (from init); false when it cannot (logged
 * unless `quiet`: client commands load it for sshare's factor only). */
bool gq_mf_load(bool quiet);
/* fini it and unload it (from fini); nothing when not loaded. */
void gq_mf_unload(void);
bool gq_mf_on(void);

/* Its entry points, forwarded (no-ops, 0 or NULL when not loaded). */
uint32_t gq_mf_set(uint32_t last_prio, job_record_t *job_ptr);
void gq_mf_reconfig(bool assoc_clear);
void gq_mf_set_assoc_usage(slurmdb_assoc_rec_t *assoc);
double gq_mf_calc_fs_factor(long double usage_efctv, long double shares_norm);
void gq_mf_job_end(job_record_t *job_ptr);
uint32_t gq_mf_recover(uint32_t prio_boost);
void gq_mf_thread_start(void);
/* sprio's list from multifactor (its request where the version has one) */
list_t *gq_mf_factors(void *req, uid_t uid);

/*
 * multifactor's part of a job's priority: its weighted factors (age,
 * association, fair share, size, partition, QOS, TRES) less nice, without
 * the site factor, as it last computed them (job_ptr->prio_factors); 0
 * when it has not.  O(TRES).
 */
double gq_mf_part(const job_record_t *job_ptr);

/* The job's order inside its project (gq_job_in_t.site_order): its part,
 * rounded, when the site weighs any factor; 0 otherwise. */
int64_t gq_mf_order(const job_record_t *job_ptr);

/*
 * The priority a pool job gets from gpuquota's `band_prio`
 * (gq_band_priority; 0: held, 1: not classified) with multifactor's part
 * inside it (gq_band_compose); band_prio itself when not loaded.
 */
uint32_t gq_mf_priority(const job_record_t *job_ptr, uint32_t band_prio);

/*
 * Write `prio` (from gq_mf_priority) as the job's priority: with
 * multifactor, its site factor is set so that multifactor's own sum gives
 * it again, and its per-partition priorities move with it.  Caller holds
 * the job write lock.
 */
void gq_mf_write(job_record_t *job_ptr, uint32_t prio);

/*
 * Writes job_ptr's site factor back to neutral (gpuquota's band taken
 * out: a job that left the pools, or observe mode's undo) and returns
 * multifactor's priority for it, computed again; 1 without multifactor.
 * Caller holds the job write lock.
 */
uint32_t gq_mf_reset_site(job_record_t *job_ptr);

#endif
