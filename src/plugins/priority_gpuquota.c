/*
 * priority_gpuquota.c - priority/gpuquota: orders pending jobs by gpuquota
 * band and share (SEMANTICS.md "Ordering pending jobs").
 *
 * Owns the pass: loads gpuquota.json, runs a pass every
 * recompute_interval seconds and soon after each submit (its own thread,
 * taking the locks multifactor's decay thread takes), and publishes the
 * view that preempt/gpuquota answers from.
 */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm_errno.h"
#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/run_in_daemon.h"
#include "src/common/slurm_protocol_api.h"
#include "src/common/slurm_priority.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "core/band.h"
#include "core/state.h"
#include "plugins/snapshot.h"

/* slurmctld data: absent (NULL) when sprio or sshare load the plugin */
#pragma weak job_list

const char plugin_name[] = "Priority gpuquota plugin";
const char plugin_type[] = "priority/gpuquota";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

static pthread_t pass_thread;
static bool accounts_checked;	/* config's accounts looked up in slurmdbd */
static pthread_mutex_t pass_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pass_cond = PTHREAD_COND_INITIALIZER;
static bool pass_stop, pass_wanted, in_ctld;

static void _log_config(const gq_config_t *cfg, const char *path)
{
	char *s = NULL;
	int i;

	for (i = 0; i < cfg->nprojects; i++)
		xstrfmtcat(s, "%s%s(quota=%d,weight=%g)", i ? " " : "",
			   cfg->projects[i].name, cfg->projects[i].gpu_quota,
			   cfg->projects[i].over_quota_weight);
	info("gpuquota: loaded %s: %d projects: %s", path, cfg->nprojects,
	     s ? s : "(none)");
	xfree(s);
}

/* Load (or reload) the config; a bad file keeps the last good one. */
static int _load(bool fatal_on_error)
{
	char *path = gq_config_path(slurm_conf.slurm_conf,
				    slurm_conf.priority_params);
	char err[1024];
	int rc;

	if (!path)
		fatal("gpuquota: out of memory");
	gq_state_lock();
	rc = gq_state_load(path, err, sizeof(err));
	if (!rc) {
		_log_config(gq_state()->config, path);
		accounts_checked = false;
	}
	gq_state_unlock();
	if (rc && fatal_on_error)
		fatal("gpuquota: %s", err);
	else if (rc)
		error("gpuquota: %s; keeping the last good configuration",
		      err);
	free(path);
	return rc;
}

static int _interval(void)
{
	int s = GQ_DEFAULT_INTERVAL;

	gq_state_lock();
	if (gq_state()->config)
		s = gq_state()->config->settings.recompute_interval;
	gq_state_unlock();
	return s > 0 ? s : 1;
}

/*
 * With slurmdbd, say which configured accounts do not exist there: Slurm
 * refuses their jobs (AccountingStorageEnforce=associations) or, without
 * enforcement, they run as the project the config names.  Once per load,
 * as soon as the association manager has its list.  Caller holds the
 * state lock.
 */
static void _check_accounts(const gq_config_t *cfg)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK };
	ListIterator it;
	slurmdb_assoc_rec_t *assoc;
	int i, j;

	if (accounts_checked || !slurm_with_slurmdbd())
		return;
	assoc_mgr_lock(&locks);
	if (!assoc_mgr_assoc_list) {
		assoc_mgr_unlock(&locks);
		return;
	}
	for (i = 0; i < cfg->nprojects; i++) {
		for (j = 0; j < cfg->projects[i].naccounts; j++) {
			const char *acct = cfg->projects[i].accounts[j];
			bool found = false;

			it = list_iterator_create(assoc_mgr_assoc_list);
			while (!found && (assoc = list_next(it)))
				found = !assoc->user && assoc->acct &&
					!xstrcasecmp(assoc->acct, acct);
			list_iterator_destroy(it);
			if (!found)
				error("gpuquota: project %s: account %s does not exist in slurmdbd: Slurm refuses its jobs where AccountingStorageEnforce has associations (`gpuquota sync` creates it)",
				      cfg->projects[i].name, acct);
		}
	}
	assoc_mgr_unlock(&locks);
	accounts_checked = true;
}

static void _run_pass(void)
{
	/* as multifactor's decay thread: write jobs, read nodes and parts */
	slurmctld_lock_t locks = { NO_LOCK, WRITE_LOCK, READ_LOCK, READ_LOCK,
				   NO_LOCK };
	gq_state_t *st;

	lock_slurmctld(locks);
	gq_state_lock();
	st = gq_state();
	if (st->view && st->config) {
		gq_snapshot_pass(st->view, st->config, time(NULL));
		st->passes++;
		_check_accounts(st->config);
	}
	gq_state_unlock();
	unlock_slurmctld(locks);
}

static void *_pass_loop(void *arg)
{
	while (true) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += _interval();
		slurm_mutex_lock(&pass_mutex);
		while (!pass_stop && !pass_wanted &&
		       pthread_cond_timedwait(&pass_cond, &pass_mutex,
					      &until) == 0)
			;
		pass_wanted = false;
		if (pass_stop) {
			slurm_mutex_unlock(&pass_mutex);
			break;
		}
		slurm_mutex_unlock(&pass_mutex);
		_run_pass();
	}
	return NULL;
}

/* Ask for a pass soon (on submit); does not block. */
static void _want_pass(void)
{
	slurm_mutex_lock(&pass_mutex);
	pass_wanted = true;
	slurm_cond_signal(&pass_cond);
	slurm_mutex_unlock(&pass_mutex);
}

extern int init(void)
{
	/* client commands (sprio, sshare) load us too: no pass there */
	if (!running_in_slurmctld())
		return SLURM_SUCCESS;
	in_ctld = true;
	gq_snapshot_init();
	_load(true);
	pass_stop = false;
	slurm_thread_create(&pass_thread, _pass_loop, NULL);
	verbose("%s loaded", plugin_type);
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	if (!in_ctld)
		return SLURM_SUCCESS;
	slurm_mutex_lock(&pass_mutex);
	pass_stop = true;
	slurm_cond_signal(&pass_cond);
	slurm_mutex_unlock(&pass_mutex);
	pthread_join(pass_thread, NULL);
	gq_state_lock();
	gq_state_clear();
	gq_state_unlock();
	in_ctld = false;
	return SLURM_SUCCESS;
}

/*
 * On submit, requeue and update (job write lock held): the job's band from
 * the last pass' shares, as if last in its project's queue; a pass soon
 * after puts it in its exact place.  O(1).
 */
extern uint32_t priority_p_set(uint32_t last_prio, job_record_t *job_ptr)
{
	const gq_job_t *job = NULL;
	gq_job_t in;
	uint32_t prio = 1;

	if (job_ptr->direct_set_prio && (job_ptr->priority > 1))
		return job_ptr->priority;
	gq_snapshot_job(job_ptr, time(NULL), &in);
	if (in.state == GQ_JOB_WAITING && IS_JOB_PENDING(job_ptr) &&
	    job_ptr->priority == 0)
		in.state = GQ_JOB_PENDING;	/* being given a priority now */
	gq_state_lock();
	if (gq_state()->config &&
	    !gq_snapshot_in_pool(gq_state()->config, job_ptr->part_ptr)) {
		/* outside the GPU pool: not gpuquota's to order */
		gq_state_unlock();
		return 1;
	}
	if (gq_state()->view &&
	    (job = gq_view_add_late(gq_state()->view, job_ptr->account, &in))) {
		if (job->hold) {
			gq_snapshot_hold(job_ptr, gq_state()->view, job);
			prio = 0;
		} else if (job->priority) {
			prio = job->priority;
		}
	}
	gq_state_unlock();
	if (!job)
		info("gpuquota: %pJ not classified yet, priority %u until the next pass",
		     job_ptr, prio);
	else if (prio && gq_snapshot_held(job_ptr)) {
		job_ptr->state_reason = WAIT_NO_REASON;
		xfree(job_ptr->state_desc);
	}
	if (in_ctld)
		_want_pass();
	return prio;
}

extern void priority_p_reconfig(bool assoc_clear)
{
	if (in_ctld) {
		_load(false);
		_want_pass();
	}
}

extern void priority_p_set_assoc_usage(slurmdb_assoc_rec_t *assoc)
{
}

extern double priority_p_calc_fs_factor(long double usage_efctv,
					long double shares_norm)
{
	return 0.0;
}

static bool _listed(List l, uint32_t id)
{
	ListIterator it;
	uint32_t *p;
	bool found = false;

	if (!l)
		return true;
	it = list_iterator_create(l);
	while (!found && (p = list_next(it)))
		found = (*p == id);
	list_iterator_destroy(it);
	return found;
}

/*
 * sprio: the factors behind each pending job's priority.  SITE is the
 * band's base (in-quota 2000000001, fair-share 1000000001, over 1) and
 * FAIRSHARE the place inside the band (smaller share of quota or of
 * weighted surplus: higher); they add up to the job's priority.
 */
extern List priority_p_get_priority_factors_list(
	priority_factors_request_msg_t *req_msg, uid_t uid)
{
	slurmctld_lock_t locks = { NO_LOCK, READ_LOCK, NO_LOCK, READ_LOCK,
				   NO_LOCK };
	List ret = list_create(slurm_destroy_priority_factors_object);
	ListIterator it;
	job_record_t *job_ptr;

	if (!in_ctld)
		return ret;
	lock_slurmctld(locks);
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it))) {
		priority_factors_object_t *obj;
		uint32_t base;

		if (!IS_JOB_PENDING(job_ptr) || !job_ptr->priority ||
		    !job_ptr->part_ptr ||
		    !_listed(req_msg->job_id_list, job_ptr->job_id) ||
		    !_listed(req_msg->uid_list, job_ptr->user_id))
			continue;
		if (req_msg->partitions &&
		    !xstrstr(req_msg->partitions, job_ptr->part_ptr->name))
			continue;
		obj = xmalloc(sizeof(*obj));
		obj->job_id = job_ptr->job_id;
		obj->user_id = job_ptr->user_id;
		obj->partition = job_ptr->part_ptr->name;
		obj->nice = NICE_OFFSET;
		if (job_ptr->direct_set_prio) {
			obj->direct_prio = job_ptr->priority;
		} else {
			base = gq_band_base(gq_band_from_priority(job_ptr->priority));
			/* Slurm biases site priority like nice */
			obj->priority_site = NICE_OFFSET + base;
			obj->priority_fs = job_ptr->priority - base;
		}
		list_append(ret, obj);
	}
	list_iterator_destroy(it);
	unlock_slurmctld(locks);
	return ret;
}

extern void priority_p_job_end(job_record_t *job_ptr)
{
	if (in_ctld)
		_want_pass();
}
