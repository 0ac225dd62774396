/*
 * job_submit_gpuquota.c - job_submit/gpuquota: a person's hold on a job
 * gpuquota holds stays that person's (docs/MODEL.md "Holds").
 *
 * gpuquota holds a job as a person would: priority 0, reason WAIT_HELD,
 * its own text.  `scontrol hold` (or uhold, or an update to priority 0) on
 * a job whose priority is already 0 changes nothing in its record
 * (job_mgr.c _update_job: "setting priority to current value", which for
 * an operator sets WAIT_HELD again and for a user does nothing), so the
 * hold would still read as gpuquota's and be released by its next pass.
 * Slurm asks the job_submit plugins about every update before it applies
 * it (job_submit_g_modify, under the job write lock); this one makes
 * gpuquota's hold a person's hold first, as _hold_job_rec would:
 * priority 0 set by hand (direct_set_prio), a hold reason, no gpuquota
 * text.  An operator's hold then gets Slurm's own reason (WAIT_HELD, or
 * WAIT_HELD_USER for uhold); a user's stays WAIT_HELD_USER.  Only for
 * those Slurm lets update the job (_may_update): Slurm checks them after
 * asking the plugins.  Nothing else is changed, and submits are untouched.
 * priority/gpuquota does not start without this plugin (wiring.h).
 */
#include "shared/slurm_compat.h"

#include "shared/job_facts.h"

const char plugin_name[] = "Job submit gpuquota plugin";
const char plugin_type[] = "job_submit/gpuquota";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

extern int init(void)
{
	verbose("%s loaded", plugin_type);
	return SLURM_SUCCESS;
}

extern void fini(void)
{
}

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid,
		      char **err_msg)
{
	return SLURM_SUCCESS;
}

/*
 * Does Slurm let uid update job_ptr as job_desc asks?  The rule of
 * job_mgr.c _update_job: the job's owner, an operator, or a coordinator
 * of the job's account (and of the account asked for, if one is).
 */
static bool _may_update(const job_desc_msg_t *job_desc,
			const job_record_t *job_ptr, uint32_t uid)
{
	if (job_ptr->user_id == uid || validate_operator(uid))
		return true;
	return gq_is_user_acct_coord(uid, job_ptr->account) &&
	       (!job_desc->account ||
		gq_is_user_acct_coord(uid, job_desc->account));
}

extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr,
		      uint32_t submit_uid GQ_JOB_MODIFY_ERR_MSG)
{
	if (!job_ptr || !IS_JOB_PENDING(job_ptr) ||
	    !gq_facts_hold_handed_over(job_ptr->priority,
				       job_ptr->state_reason,
				       job_ptr->state_desc,
				       job_desc->priority))
		return SLURM_SUCCESS;
	if (!_may_update(job_desc, job_ptr, submit_uid))
		return SLURM_SUCCESS;
	info("gpuquota: %pJ held by uid %u: gpuquota's hold is now that hold (released by scontrol release alone)",
	     job_ptr, submit_uid);
	job_ptr->direct_set_prio = 1;
	job_ptr->state_reason = WAIT_HELD_USER;
	xfree(job_ptr->state_desc);
	last_job_update = time(NULL);
	return SLURM_SUCCESS;
}
