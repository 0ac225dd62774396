/*
 * run_secs.c - Slurm's run-seconds counters at a job's end: the
 * reservation its start made (core/run_secs.h) given back to its QOS, its
 * partition's QOS and every association up its tree, as priority/basic
 * does, on the QOS multifactor gives back to.
 */
#include "shared/slurm_compat.h"

#include "core/run_secs.h"
#include "plugins/run_secs.h"
#include "plugins/xalloc.h"

/* slurmctld data, used only there (a job's end): sshare of 25.05.8 loads
 * the priority plugin, and a plain reference fails its dlopen ("undefined
 * symbol: slurmctld_tres_cnt") */
#pragma weak slurmctld_tres_cnt

static void _give_back(uint64_t *used, const uint64_t *give,
		       const char *what, const char *name,
		       job_record_t *job_ptr)
{
	if (gq_run_secs_give_back(used, give, slurmctld_tres_cnt))
		debug2("gpuquota: %pJ: run seconds of %s %s were below its reservation: set to 0",
		       job_ptr, what, name);
}

void gq_give_back_run_secs(job_record_t *job_ptr)
{
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK, .qos = WRITE_LOCK };
	slurmdb_qos_rec_t *qos = job_ptr->qos_ptr, *part_qos = NULL;
	slurmdb_assoc_rec_t *assoc;
	uint64_t *give;

	if (!job_ptr->tres_alloc_cnt)
		return;		/* never started: nothing reserved */
	if (!(give = gq_xcalloc(slurmctld_tres_cnt, sizeof(*give)))) {
		error("gpuquota: %pJ: out of memory: its reserved run-minutes are not given back",
		      job_ptr);
		return;
	}
	gq_run_secs_reserved(job_ptr->tres_alloc_cnt, slurmctld_tres_cnt,
			     job_ptr->time_limit,
			     qos ? qos->usage_factor : -1, TRES_ARRAY_ENERGY,
			     NO_CONSUME_VAL64, give);
	if (job_ptr->part_ptr && job_ptr->part_ptr->qos_ptr != qos)
		part_qos = job_ptr->part_ptr->qos_ptr;
	assoc_mgr_lock(&locks);
	if (qos && qos->usage)
		_give_back(qos->usage->grp_used_tres_run_secs, give, "QOS",
			   qos->name, job_ptr);
	if (part_qos && part_qos->usage)
		_give_back(part_qos->usage->grp_used_tres_run_secs, give,
			   "QOS", part_qos->name, job_ptr);
	/* O(depth of its association tree x TRES) */
	for (assoc = job_ptr->assoc_ptr; assoc && assoc->usage;
	     assoc = assoc->usage->parent_assoc_ptr)
		_give_back(assoc->usage->grp_used_tres_run_secs, give,
			   "account", assoc->acct, job_ptr);
	assoc_mgr_unlock(&locks);
	xfree(give);
}
