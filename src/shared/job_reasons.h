/*
 * job_reasons.h - which pending jobs are demand, read from Slurm's job
 * state reasons (public slurm/slurm.h only).  Shared by the plugins
 * (snapshot.c) and the gpuquota command, so both count the same demand.
 */
#ifndef GPUQUOTA_JOB_REASONS_H
#define GPUQUOTA_JOB_REASONS_H

#include <stdbool.h>
#include <stdint.h>

#include <slurm/slurm.h>

/*
 * Held back by Slurm's own association, QOS or other policy limits
 * (AssocGrpGRES, QOSMaxGRESPerUser, ...): not demand while it lasts.
 * Slurm keeps most of these reasons in one range of enum job_state_reason.
 */
static inline bool gq_reason_slurm_limited(uint32_t reason)
{
	switch (reason) {
	case WAIT_ASSOC_JOB_LIMIT:
	case WAIT_ASSOC_RESOURCE_LIMIT:
	case WAIT_ASSOC_TIME_LIMIT:
	case WAIT_QOS_JOB_LIMIT:
	case WAIT_QOS_RESOURCE_LIMIT:
	case WAIT_QOS_TIME_LIMIT:
	case WAIT_QOS_THRES:
	case WAIT_QOS:
	case WAIT_ACCOUNT:
	case WAIT_DEP_INVALID:
		return true;
	default:
		return reason >= WAIT_QOS_GRP_CPU && reason <= WAIT_QOS_MIN_BILLING;
	}
}

/*
 * A pending job that is not demand: held by a user or an admin (not by
 * gpuquota: gq_held), waiting on a dependency or a begin time (the caller
 * knows: slurmctld from the job's begin time, the command from reason
 * BeginTime), or held by Slurm's limits.
 */
static inline bool gq_reason_not_demand(uint32_t reason, uint32_t priority,
					bool gq_held, bool begin_later)
{
	if (!gq_held && (priority == 0 || reason == WAIT_HELD ||
			 reason == WAIT_HELD_USER))
		return true;
	return reason == WAIT_DEPENDENCY || begin_later ||
	       gq_reason_slurm_limited(reason);
}

#endif
