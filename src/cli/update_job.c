/*
 * update_job.c - one job's record changed as scontrol changes it (see
 * update_job.h).
 */
#include <errno.h>
#include <stdio.h>

#include "cli/update_job.h"

void gq_job_update_name(const slurm_job_info_t *j, char *id, size_t size)
{
	if (j->array_task_id != NO_VAL)
		snprintf(id, size, "%u_%u", j->array_job_id, j->array_task_id);
	else
		snprintf(id, size, "%u", j->job_id);
}

int gq_job_update(const slurm_job_info_t *j, job_desc_msg_t *desc)
{
	job_array_resp_msg_t *resp = NULL;
	char id[64];
	int rc = 0;
	uint32_t i;

	gq_job_update_name(j, id, sizeof(id));
	desc->job_id_str = id;
	if (slurm_update_job2(desc, &resp))
		rc = errno ? errno : SLURM_ERROR;
	for (i = 0; resp && !rc && i < resp->job_array_count; i++)
		rc = resp->error_code[i];
	if (resp)
		slurm_free_job_array_resp(resp);
	desc->job_id_str = NULL;
	return rc;
}
