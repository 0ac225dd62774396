/*
 * glue.h - the glue tests' fake slurmctld: job records as slurmctld holds
 * them, in the job_list and job table that stubs.c stands in for, and its
 * log (log.c).
 */
#ifndef GPUQUOTA_TEST_GLUE_H
#define GPUQUOTA_TEST_GLUE_H

#include <check.h>

#include "shared/slurm_compat.h"

/* An empty job_list and job table (records of earlier tests are left to
 * the test's fork). */
void glue_jobs_reset(void);

/* Put a record in job_list and the job table (stubs.c). */
void glue_job_register(job_record_t *job_ptr);

/* A pending batch job of account `acct` in partition `part`, requeueable,
 * submitted at 1000 + id, in job_list and found by find_job_record(). */
job_record_t *glue_pending(uint32_t id, const char *acct, const char *part,
			   uint32_t prio);

/* A pending array's record: `tasks` tasks pending, none running, no %N. */
job_record_t *glue_array(uint32_t id, uint32_t tasks);

/* The job asks for `gpus` GPUs (gres_list_req, as read_slurm.c reads it;
 * gq_read_init() first). */
void glue_gpus(job_record_t *job_ptr, uint64_t gpus);

/* gpuquota's hold as hold.c writes it, with reason text `text`. */
void glue_held_by_gpuquota(job_record_t *job_ptr, const char *text);

/* priority/gpuquota's entry point (priority_gpuquota.c), as Slurm's
 * set_job_prio() calls it */
uint32_t priority_p_set(uint32_t last_prio, job_record_t *job_ptr);

/* slurmctld's log into a new file (info and up); free the returned path. */
char *glue_log_to_file(void);

/* How many lines of the log at path have `s`. */
int glue_log_lines(const char *path, const char *s);

Suite *glue_throttle_suite(void);
Suite *glue_write_suite(void);
Suite *glue_oom_suite(void);
Suite *glue_ledger_suite(void);
Suite *glue_grace_ledger_suite(void);
Suite *glue_read_suite(void);
Suite *glue_config_load_suite(void);

#endif
