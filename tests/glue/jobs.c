/*
 * jobs.c - job records as slurmctld holds them, for the glue tests.
 */
#include <string.h>

#include "shared/slurm_compat.h"

#include "glue.h"

job_record_t *glue_pending(uint32_t id, const char *acct, const char *part,
			   uint32_t prio)
{
	job_record_t *j = xcalloc(1, sizeof(*j));

	j->magic = JOB_MAGIC;
	j->job_id = id;
	j->array_task_id = NO_VAL;
	j->job_state = JOB_PENDING;
	j->batch_flag = 1;
	j->priority = prio;
	j->account = xstrdup(acct);
	j->partition = xstrdup(part);
	j->details = xcalloc(1, sizeof(*j->details));
	j->details->requeue = 1;
	j->details->submit_time = 1000 + id;
	glue_job_register(j);
	return j;
}

job_record_t *glue_array(uint32_t id, uint32_t tasks)
{
	job_record_t *j = glue_pending(id, "team-a", "gpu", 1);

	j->array_job_id = id;
	j->array_recs = xcalloc(1, sizeof(*j->array_recs));
	j->array_recs->task_cnt = tasks;
	return j;
}

void glue_gpus(job_record_t *job_ptr, uint64_t gpus)
{
	gres_state_t *gs = xcalloc(1, sizeof(*gs));
	gres_job_state_t *g = xcalloc(1, sizeof(*g));

	g->total_gres = gpus;
	gs->plugin_id = gres_build_id("gpu");
	gs->gres_data = g;
	if (!job_ptr->gres_list_req)
		job_ptr->gres_list_req = list_create(NULL);
	list_append(job_ptr->gres_list_req, gs);
}

void glue_held_by_gpuquota(job_record_t *job_ptr, const char *text)
{
	job_ptr->priority = 0;
	job_ptr->state_reason = WAIT_HELD;
	xfree(job_ptr->state_desc);
	job_ptr->state_desc = xstrdup(text);
}
