/*
 * update_job.h - one job's record changed through libslurm's public API,
 * as scontrol changes it: the job named by its id string, the answer
 * read per array task.
 */
#ifndef GPUQUOTA_UPDATE_JOB_H
#define GPUQUOTA_UPDATE_JOB_H

#include <stddef.h>

#define GQ_SLURM_PUBLIC_ONLY
#include "shared/slurm_compat.h"

/*
 * Job j's name for an update, into id: an array's task as
 * "<array job>_<task>", since the plain id of the task that carries the
 * array's id would update every task of the array; else its id.
 */
void gq_job_update_name(const slurm_job_info_t *j, char *id, size_t size);

/*
 * Apply desc (from slurm_init_job_desc_msg) to job j with
 * slurm_update_job2.  0, or Slurm's error number (the first task's
 * refusal for an array).
 */
int gq_job_update(const slurm_job_info_t *j, job_desc_msg_t *desc);

#endif
