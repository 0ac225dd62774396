/*
 * priority_gpuquota.c - priority/gpuquota: orders pending jobs by gpuquota
 * band and share (docs/MODEL.md "Bands and priority").
 *
 * Slurm's entry points: init and fini (the configuration, config_load.c;
 * the usage and metrics files, state_files.c; multifactor inside,
 * multifactor.c; the pass thread, pass_thread.c), priority_p_set (a
 * job's band from the last pass at submit, requeue and update, and a pass
 * asked for soon after), priority_p_reconfig, priority_p_job_end and
 * sprio's factors.
 */
#include <time.h>

#include "shared/slurm_compat.h"

#include "core/band.h"
#include "state/state.h"
#include "plugins/topology.h"
#include "plugins/array_throttle.h"
#include "plugins/config_load.h"
#include "plugins/hold.h"
#include "plugins/multifactor.h"
#include "plugins/pass_thread.h"
#include "plugins/read_slurm.h"
#include "plugins/run_secs.h"
#include "plugins/state_files.h"
#include "shared/wiring.h"
#include "tools/trusted_file.h"

/* slurmctld data: absent (NULL) when sprio or sshare load the plugin */
#pragma weak job_list
#pragma weak acct_db_conn

const char plugin_name[] = "Priority gpuquota plugin";
const char plugin_type[] = "priority/gpuquota";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/*
 * Where this plugin runs.  No lock: written by init and fini alone, read
 * by Slurm's calls into the plugin and the pass thread, which run
 * between them.
 */
static struct priority_plugin {
	bool in_ctld;	/* loaded by slurmctld (not sprio, sshare) */
} plugin;

/* The pass thread: from init, or where Slurm has it, thread_start (with
 * multifactor's own thread: its decay). */
static void _start_passes(void)
{
	if (!plugin.in_ctld || gq_passes_running())
		return;
	gq_mf_thread_start();
	gq_passes_start();
}

GQ_PRIORITY_THREAD_ENTRIES(_start_passes)

/* multifactor inside, unless the configuration says not to (read at init
 * only: a reload within the same slurmctld keeps what init chose) */
static void _mf_load(void)
{
	bool want;

	gq_state_lock();
	want = !gq_state_config() || gq_state_config()->settings.multifactor;
	gq_state_unlock();
	if (want)
		gq_mf_load(false);
	else
		info("gpuquota: settings.multifactor is false: gpuquota orders every job alone");
}

extern int init(void)
{
	const char *wiring;
	bool had_config;

	/* client commands (sprio, sshare) load us too: no pass there;
	 * sshare asks multifactor's fair-share factor */
	if (!running_in_slurmctld()) {
		gq_mf_load(true);
		return SLURM_SUCCESS;
	}
	/* a person's hold must stay theirs: no start without the plugin
	 * that hands gpuquota's hold over (job_submit_gpuquota.c) */
	if ((wiring = gq_wiring_job_submit(slurm_conf.job_submit_plugins))) {
		error("gpuquota: %s", wiring);
		return SLURM_ERROR;
	}
	plugin.in_ctld = true;
	/* only root or SlurmUser may decide whose GPUs may be taken */
	gq_config_require_owner((long)slurm_conf.slurm_user_id);
	/* and the state files (trusted_file.h) */
	gq_file_trust_owner((long)slurm_conf.slurm_user_id);
	gq_read_init();
	gq_state_lock();
	gq_metrics_init(gq_state_metrics(), (double)time(NULL));
	/* loaded again: its first pass in observe mode undoes again */
	gq_state_set_observe_undone(false);
	/* fatal only without a last good configuration in this process */
	had_config = gq_state_config() != NULL;
	gq_state_unlock();
	/* after the metrics' start: a refused file is counted */
	gq_throttle_load();
	gq_files_init(slurm_conf.state_save_location);
	gq_load_config(!had_config);
	_mf_load();
	if (GQ_PRIORITY_START_IN_INIT)
		_start_passes();
	verbose("%s loaded", plugin_type);
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	if (!plugin.in_ctld) {
		gq_mf_unload();
		return SLURM_SUCCESS;
	}
	gq_passes_stop();
	/*
	 * The configuration and the last view stay in libgpuquota (which
	 * preempt/gpuquota keeps loaded): from 23.11 slurmctld reconfigures
	 * by starting a new slurmctld, after fini; when that one refuses a
	 * bad gpuquota.json, this process inits again and goes on with them.
	 * The array throttles are read again from their file at init.
	 */
	gq_throttle_clear();
	gq_mf_unload();
	gq_files_fini();
	gq_topo_fini();
	plugin.in_ctld = false;
	return SLURM_SUCCESS;
}

/*
 * priority_p_set for a job the view has (`job`, in pool k): its throttle,
 * and 0 when it is held (its hold written), else its band's priority (1:
 * none).  A new array is held until the next pass.  The Slurm fact that
 * forces it: job_allocate() (job_mgr.c) calls set_job_prio() before
 * _create_job_array() builds array_recs, where the throttle (%N) lives,
 * and calls no plugin of gpuquota's after it; the next scheduling cycle
 * (main or backfill) may then start its tasks one after the other
 * without asking again.  So the throttle cannot be set at submit, and
 * priority 0 keeps every task from starting until a pass sets it
 * (read_slurm.h, gq_read_new_array).  Caller holds the state lock.
 */
static uint32_t _set_in_view(job_record_t *job_ptr, const gq_pools_t *pools,
			     const gq_job_t *job, int k)
{
	gq_throttle_apply(job_ptr, job, gq_pools_tasks_now(pools, job->in.id));
	if (job->hold) {
		/* from priority 0: a person's hold being released, and
		 * Slurm clears our reason after (hold.h) */
		bool releasing = job_ptr->priority == 0;

		gq_write_hold(job_ptr, pools->view[k], job, pools->name[k]);
		if (releasing)
			gq_hold_note_release(job_ptr->job_id);
		return 0;
	}
	if (job->in.gpus && gq_read_new_array(job_ptr)) {
		gq_hold_new_array(job_ptr);
		return 0;
	}
	return job->priority ? job->priority : 1;
}

/*
 * After a submit, requeue, update or job end: the next pass sooner when
 * it would change what Slurm may start (core/pass_soon.h), or when this
 * job waits for it (`waits`: held, e.g. a new array until a pass sets its
 * throttle).  Otherwise the pass at the next tick serves.
 */
static void _pass_soon_if(bool waits)
{
	bool soon;

	if (!plugin.in_ctld)
		return;
	gq_state_lock();
	soon = waits || gq_state_pass_soon();
	gq_state_unlock();
	if (soon)
		gq_passes_want();
}

/*
 * priority_p_set in observe mode (docs/MODEL.md "Observe mode"): the
 * job's priority is multifactor's, untouched (no band, no hold, no
 * throttle).  Writes: a hold of gpuquota's lifted and counted, as
 * gq_write_for_mode does; asks for a pass, to log what enforce would do.
 * Returns whether it ran: false in enforce mode, where it does nothing.
 * Job write lock held.
 */
static bool _observe_mode_set(job_record_t *job_ptr)
{
	bool acts;

	gq_state_lock();
	acts = gq_state_acts();
	if (!acts && gq_read_held(job_ptr)) {
		gq_write_unhold(job_ptr);
		gq_metrics_release(gq_state_metrics());
	}
	gq_state_unlock();
	if (!acts)
		_pass_soon_if(false);
	return !acts;
}

/*
 * On submit, requeue and update (job write lock held): the job's band from
 * the last pass' shares, as if last in its project's queue; the next pass
 * puts it in its exact place (sooner when _pass_soon_if says).  O(1).
 */
extern uint32_t priority_p_set(uint32_t last_prio, job_record_t *job_ptr)
{
	const gq_job_t *job = NULL;
	const gq_pools_t *pools;
	gq_pools_t *view;
	gq_job_in_t in;
	uint32_t prio = 1, mf_prio;
	int k = 0;

	if (job_ptr->direct_set_prio && (job_ptr->priority > 1))
		return job_ptr->priority;
	/* multifactor's factors first: the job's order reads them */
	mf_prio = gq_mf_set(last_prio, job_ptr);	/* 1 without it */
	if (_observe_mode_set(job_ptr))
		return mf_prio;
	gq_read_set(job_ptr, &in);
	gq_state_lock();
	view = gq_state_view();
	pools = view ? view : gq_state_spare();
	if (pools && gq_read_pool(pools, job_ptr) < 0) {
		/* outside the GPU pools: multifactor's (or FIFO) */
		bool left = view && gq_pools_job(view, in.id, &k);

		gq_state_unlock();
		return left ? gq_mf_reset_site(job_ptr) : mf_prio;
	}
	if (view && (job = gq_read_add(view, job_ptr, &in, &k))) {
		gq_state_job_added(in.id);	/* a pass reading meanwhile */
		prio = _set_in_view(job_ptr, view, job, k);
	}
	gq_state_unlock();
	if (job && prio > 1) {	/* multifactor's part inside the band */
		prio = gq_mf_priority(job_ptr, prio);
		gq_mf_write(job_ptr, prio);
	}
	if (!job && in.gpus && gq_read_new_array(job_ptr)) {
		/* before the first pass too (_set_in_view) */
		gq_hold_new_array(job_ptr);
		prio = 0;
	} else if (!job) {
		prio = mf_prio;
		info("gpuquota: %pJ not classified yet, priority %u until the next pass",
		     job_ptr, prio);
	} else if (prio && gq_read_held(job_ptr)) {
		gq_write_unhold(job_ptr);
		gq_state_lock();
		gq_metrics_release(gq_state_metrics());
		gq_state_unlock();
	}
	_pass_soon_if(prio == 0);
	return prio;
}

extern void priority_p_reconfig(bool assoc_clear)
{
	const char *wiring;

	gq_mf_reconfig(assoc_clear);
	/* 22.05 reconfigures in place: it cannot refuse, it says so */
	if (plugin.in_ctld &&
	    (wiring = gq_wiring_job_submit(slurm_conf.job_submit_plugins)))
		error("gpuquota: %s", wiring);
	if (plugin.in_ctld) {
		gq_load_config(false);
		gq_passes_want();
	}
}

extern void priority_p_set_assoc_usage(slurmdb_assoc_rec_t *assoc)
{
	gq_mf_set_assoc_usage(assoc);
}

GQ_PRIORITY_FS_FACTOR_ENTRY

/*
 * PrivateData=jobs: does uid see job_ptr?  The same rule as Slurm's
 * priority/multifactor (and squeue): its own, an operator's or an
 * account coordinator's, or by MCS label where MCS decides privacy.
 */
static bool _visible(const job_record_t *job_ptr, uid_t uid)
{
	if (!(slurm_conf.private_data & PRIVATE_DATA_JOBS) ||
	    job_ptr->user_id == uid || validate_operator(uid))
		return true;
	if (slurm_mcs_get_privatedata() == 1)
		return !mcs_g_check_mcs_label(uid, job_ptr->mcs_label, false);
	return gq_is_user_acct_coord(uid, job_ptr->account);
}

/*
 * sprio: the factors behind each pending job's priority.  SITE is the
 * band's base (gq_band_base: in-quota 1400000001, fair-share 700000001,
 * over 1) and FAIRSHARE the place inside the band (smaller share of
 * quota or of weighted surplus: higher); they add up to the job's
 * priority.  Only the jobs PrivateData lets uid see.
 */
static list_t *_factors(const gq_factors_req_t *req, uid_t uid, bool locked)
{
	slurmctld_lock_t locks = { .job = READ_LOCK, .part = READ_LOCK };
	list_t *ret;
	list_itr_t *it;
	job_record_t *job_ptr;

	/* its factors; the band is in SITE */
	if (plugin.in_ctld && gq_mf_on())
		return gq_mf_factors((void *)req, uid);
	ret = list_create(slurm_destroy_priority_factors_object);
	if (!plugin.in_ctld)
		return ret;
	if (!locked)
		lock_slurmctld(locks);
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it))) {
		uint32_t base = 0;

		if (!IS_JOB_PENDING(job_ptr) || !job_ptr->priority ||
		    !job_ptr->part_ptr || !gq_factors_wanted(req, job_ptr) ||
		    !_visible(job_ptr, uid))
			continue;
		if (!job_ptr->direct_set_prio)
			base = gq_band_base(gq_band_from_priority(job_ptr->priority));
		/* Slurm biases site priority like nice */
		list_append(ret, gq_factors_new(job_ptr, NICE_OFFSET + base,
						job_ptr->priority - base));
	}
	list_iterator_destroy(it);
	if (!locked)
		unlock_slurmctld(locks);
	return ret;
}

GQ_PRIORITY_FACTORS_ENTRY(_factors)

/*
 * Slurm calls this only where AccountingStorageEnforce has "limits": then
 * the run seconds its start reserved are given back (GrpTRESRunMins), and
 * its GPUs leave its project at once (candidates shrink, see
 * gq_view_job_gone); elsewhere the next pass sees it gone.
 */
extern void priority_p_job_end(job_record_t *job_ptr)
{
	bool soon;

	if (!plugin.in_ctld)
		return;
	if (gq_mf_on())	/* usage, and the run seconds given back */
		gq_mf_job_end(job_ptr);
	else
		gq_give_back_run_secs(job_ptr);
	gq_state_lock();
	gq_state_job_gone(job_ptr->job_id);
	soon = gq_state_pass_soon();	/* core/pass_soon.h */
	gq_state_unlock();
	if (soon)
		gq_passes_want();
}
