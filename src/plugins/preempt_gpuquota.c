/*
 * preempt_gpuquota.c - preempt/gpuquota: quota and fair-share reclaim by
 * requeue (SEMANTICS.md "Reclaim").
 *
 * Answers from the view the last priority/gpuquota pass computed: O(1) per
 * preemptable() call, never a walk of job_list.
 */
#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/xstring.h"
#include "src/slurmctld/preempt.h"
#include "src/slurmctld/slurmctld.h"

#include "core/state.h"

const char plugin_name[] = "Preempt gpuquota plugin";
const char plugin_type[] = "preempt/gpuquota";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

extern int init(void)
{
	if (xstrcmp(slurm_conf.priority_type, "priority/gpuquota"))
		error("%s needs PriorityType=priority/gpuquota; nothing will be reclaimed",
		      plugin_type);
	verbose("%s loaded", plugin_type);
	return SLURM_SUCCESS;
}

extern void fini(void)
{
}

/*
 * Queue order between two pending jobs: priority/gpuquota's bands already
 * put preemptors first, so never reorder here.
 */
extern bool preempt_p_job_preempt_check(job_queue_rec_t *preemptor,
					job_queue_rec_t *preemptee)
{
	return false;
}

extern bool preempt_p_preemptable(job_record_t *preemptee,
				  job_record_t *preemptor)
{
	bool rc = false;

	gq_state_lock();
	if (gq_state()->view)
		rc = gq_view_preemptable(gq_state()->view, preemptee->job_id,
					 preemptor->job_id);
	gq_state_unlock();
	return rc;
}

extern int preempt_p_get_data(job_record_t *job_ptr,
			      slurm_preempt_data_type_t data_type, void *data)
{
	switch (data_type) {
	case PREEMPT_DATA_ENABLED:
		*(bool *)data = slurm_conf.preempt_mode != PREEMPT_MODE_OFF;
		break;
	case PREEMPT_DATA_MODE:
		*(uint16_t *)data = slurm_conf.preempt_mode &
				    ~(PREEMPT_MODE_GANG | PREEMPT_MODE_WITHIN);
		break;
	case PREEMPT_DATA_PRIO:
		/* candidates sort ascending: reclaim order */
		gq_state_lock();
		*(uint32_t *)data = gq_state()->view ?
			gq_view_preempt_rank(gq_state()->view, job_ptr->job_id) :
			UINT32_MAX;
		gq_state_unlock();
		break;
	case PREEMPT_DATA_GRACE_TIME:
		*(uint32_t *)data = 0;
		break;
	default:
		error("%s: unknown enum %d", __func__, data_type);
		return SLURM_ERROR;
	}
	return SLURM_SUCCESS;
}
