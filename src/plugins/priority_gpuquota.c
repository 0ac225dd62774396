/*
 * priority_gpuquota.c - priority/gpuquota: orders pending jobs by gpuquota
 * band and share (docs/MODEL.md "Bands and priority").
 *
 * Owns the pass: loads gpuquota.json, runs a pass every
 * recompute_interval seconds and soon after each submit (its own thread):
 * under the job read lock, read Slurm (read_slurm.c), compute
 * (core/view.c) and note the jobs to write (write_slurm.c); under the
 * write lock, publish the view preempt/gpuquota answers from
 * (state/state.c) and write those jobs back (write_slurm.c); then the
 * pass is timed into the metrics and the metrics file written, outside
 * slurmctld's locks (state/metrics_file.h).  A pass that fails is logged
 * once and changes nothing: the last good view stays.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shared/slurm_compat.h"

#include "config/advice.h"
#include "core/band.h"
#include "state/metrics_file.h"
#include "state/state.h"
#include "plugins/array_throttle.h"
#include "plugins/grace.h"
#include "plugins/hold.h"
#include "plugins/multifactor.h"
#include "plugins/read_slurm.h"
#include "plugins/run_secs.h"
#include "plugins/xalloc.h"
#include "plugins/write_slurm.h"
#include "shared/job_facts.h"
#include "shared/pass_input.h"
#include "shared/wiring.h"

/* slurmctld data: absent (NULL) when sprio or sshare load the plugin */
#pragma weak job_list
#pragma weak acct_db_conn

const char plugin_name[] = "Priority gpuquota plugin";
const char plugin_type[] = "priority/gpuquota";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

static pthread_t pass_thread;
static bool accounts_checked;	/* config's accounts looked up in slurmdbd */
static bool partitions_checked;	/* the pools' partitions looked up */
static pthread_mutex_t pass_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pass_cond = PTHREAD_COND_INITIALIZER;
static bool pass_stop, pass_wanted, pass_urgent, in_ctld, pass_started;
static bool pass_failing;	/* the last pass failed (logged once) */
static char *metrics_path;	/* <StateSaveLocation>/gpuquota-metrics.json */
static bool metrics_failing;	/* the last write failed (logged once) */
static char *usage_path;	/* <StateSaveLocation>/gpuquota-usage.json */
static time_t usage_saved;	/* when it was last written */
#define GQ_USAGE_SAVE_EVERY 30	/* seconds: what a crash may lose */
static gq_metrics_t metrics_snap;	/* written by the pass thread only */

static void _log_advice(const char *line, void *ctx)
{
	info("gpuquota: note: %s", line);
}

/* project i as the load's log line lists it, into buf (n: its size,
 * 0 to measure); its length */
static int _project_text(const gq_config_t *cfg, int i, char *buf, size_t n)
{
	return snprintf(buf, n, "%s%s(quota=%d,weight=%g)", i ? " " : "",
			cfg->projects[i].name, cfg->projects[i].gpu_quota,
			cfg->projects[i].over_quota_weight);
}

static void _log_config(const gq_config_t *cfg, const char *path)
{
	size_t len = 1, at = 0;
	char *s;
	int i;

	for (i = 0; i < cfg->nprojects; i++)
		len += _project_text(cfg, i, NULL, 0);
	if ((s = gq_xcalloc(len, 1)))	/* out of memory: no list */
		for (i = 0; i < cfg->nprojects; i++)
			at += _project_text(cfg, i, s + at, len - at);
	info("gpuquota: loaded %s: %d projects: %s", path, cfg->nprojects,
	     s && *s ? s : "(none)");
	xfree(s);
	gq_config_advice(cfg, _log_advice, NULL);
}

/* Load (or reload) the config; a bad file keeps the last good one. */
static int _load(bool fatal_on_error)
{
	char *path = gq_config_path(slurm_conf.slurm_conf,
				    slurm_conf.priority_params);
	char err[GQ_ERR_MAX];
	int rc;

	if (!path)
		fatal("gpuquota: out of memory");
	gq_state_lock();
	rc = gq_state_load(path, err, sizeof(err));
	if (!rc) {
		_log_config(gq_state()->config, path);
		accounts_checked = partitions_checked = false;
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

static bool _assoc_exists(const char *account, void *ctx)
{
	list_itr_t *it = list_iterator_create(assoc_mgr_assoc_list);
	slurmdb_assoc_rec_t *assoc;
	bool found = false;

	while (!found && (assoc = list_next(it)))
		found = !assoc->user && assoc->acct &&
			!xstrcasecmp(assoc->acct, account);
	list_iterator_destroy(it);
	return found;
}

static void _report_missing(const char *line, void *ctx)
{
	error("gpuquota: %s", line);
}

static int _partition_nodes(const char *name, void *ctx)
{
	part_record_t *part_ptr = find_part_record((char *)name);

	return part_ptr ? (int)part_ptr->total_nodes : -1;
}

/*
 * Say which partitions of the pools do not exist in Slurm or have no
 * nodes: once per load, at its first pass (partitions are read by then).
 * Caller holds the partition read lock and the state lock.
 */
static void _check_partitions(const gq_config_t *cfg)
{
	if (partitions_checked)
		return;
	gq_missing_partitions(cfg, _partition_nodes, _report_missing, NULL);
	partitions_checked = true;
}

/*
 * With slurmdbd, say which configured accounts do not exist there: Slurm
 * refuses their jobs (AccountingStorageEnforce=associations) or, without
 * enforcement, they run as the project the config names.  Once per load,
 * as soon as the association manager has its list.  O(accounts x
 * associations), once.  Caller holds the state lock.
 */
static void _check_accounts(const gq_config_t *cfg)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK };

	if (accounts_checked || !slurm_with_slurmdbd())
		return;
	assoc_mgr_lock(&locks);
	if (assoc_mgr_assoc_list) {
		gq_missing_accounts(cfg, _assoc_exists, _report_missing, NULL);
		accounts_checked = true;
	}
	assoc_mgr_unlock(&locks);
}

/* The jobs a two-hold pass writes (pass thread only; memory reused). */
static gq_write_plan_t plan;

/*
 * Read Slurm into `next` and compute it, reclaims in flight waited for.
 * 0, or -1 out of memory.  Caller holds the job read lock (at least) and
 * the state lock.
 */
static int _compute(gq_state_t *st, gq_pools_t *next, time_t now)
{
	if (!next || gq_read_pass(next, now))
		return -1;
	return gq_pass_compute(next, &st->usage, &st->config->settings, now);
}

/* A pass failed (out of memory) or succeeded: said when that changes. */
static void _passed(bool ok)
{
	if (!ok && !pass_failing)
		error("gpuquota: pass failed (out of memory); answering from the last good pass until one succeeds");
	else if (ok && pass_failing)
		info("gpuquota: passes succeed again");
	pass_failing = !ok;
}

/* The pass is published: usage counted up to now. */
static void _published(gq_state_t *st, time_t now)
{
	if (gq_usage_advance(&st->usage, st->view,
			     st->config->settings.usage_half_life, now))
		error("gpuquota: usage not counted this pass (out of memory)");
}

/*
 * A whole pass in one hold: compute, publish, write every pending job.
 * Returns whether a scheduling pass should run now; *ok whether the pass
 * succeeded.  Caller holds the job write lock and the state lock.
 */
static bool _pass(gq_state_t *st, time_t now, bool *ok)
{
	*ok = !_compute(st, gq_state_next(), now);
	_passed(*ok);
	if (!*ok)
		return false;
	gq_state_publish();
	_published(st, now);
	/* after publishing, `next` is the pass before (or NULL) */
	return gq_write_pass(st->view, st->next, now);
}

/*
 * A two-hold pass, its first hold: compute and plan the writes (`plan`).
 * Returns false when it failed (out of memory; logged).  Caller holds
 * the job read lock and the state lock.
 */
static bool _pass_read(gq_state_t *st, time_t now, uint64_t *epoch)
{
	gq_pools_t *next = gq_state_next();
	bool ok;

	*epoch = gq_state_pass_read();
	ok = !_compute(st, next, now) &&
	     !gq_write_plan(&plan, next, st->view, now);
	if (!ok)
		gq_state_pass_abandon();
	_passed(ok);
	return ok;
}

/*
 * priority_p_set's insertion of job_ptr into `pools` (its band from the
 * pass, as if last in its project's queue).  Returns the job as it orders
 * (a shadow when another pool's limit holds it), NULL outside the pools
 * or out of memory; *k its pool.  Caller holds the state lock.
 */
static const gq_job_t *_add_job(gq_pools_t *pools, job_record_t *job_ptr,
				const gq_job_in_t *in, int *k)
{
	const gq_job_t *job, *shadow;

	if ((*k = gq_read_pool(pools, job_ptr)) < 0 ||
	    !(job = gq_view_add_job(pools->view[*k], job_ptr->account, in)))
		return NULL;
	/* held by a limit of another pool it lists: that hold */
	if (!gq_read_shadows(pools, *k, job_ptr, in) && !job->hold &&
	    (shadow = gq_pools_held_elsewhere(pools, in->id, k)))
		job = shadow;
	return job;
}

/* read a job as priority_p_set does */
static void _read_set(job_record_t *job_ptr, gq_job_in_t *in)
{
	gq_read_job(job_ptr, time(NULL), in);
	if (in->state == GQ_JOB_WAITING && IS_JOB_PENDING(job_ptr) &&
	    job_ptr->priority == 0)
		in->state = GQ_JOB_PENDING;	/* being given a priority now */
}

/* A job priority_p_set added between a pass's read and its write, added
 * to the pass's view (gq_state_pass_write). */
static void _added_since_read(gq_pools_t *pools, uint32_t id, void *arg)
{
	job_record_t *job_ptr = find_job_record(id);
	gq_job_in_t in;
	int k;

	if (!job_ptr || !IS_JOB_PENDING(job_ptr))
		return;		/* started or gone: the next pass reads it */
	_read_set(job_ptr, &in);
	_add_job(pools, job_ptr, &in, &k);
}

/*
 * A two-hold pass, its second hold: publish and write the planned jobs.
 * Returns false when a reclaim, a reload or the start of a job the pass
 * holds came between the holds (nothing published, the last pass's holds
 * written again: the pass is made again).  *kick: a scheduling pass
 * should run now.  Caller holds the job write lock and the state lock.
 */
static bool _pass_write(gq_state_t *st, uint64_t epoch, time_t now,
			bool *kick)
{
	gq_write_plan_started(&plan);
	if (!gq_state_pass_write(epoch, _added_since_read, NULL)) {
		/* a reclaim inside Slurm's main cycle: its holds again now,
		 * as the re-hold after it would (_run_rehold) */
		gq_hold_again(st->view, GQ_HOLD_NONE, "re-hold");
		return false;
	}
	_published(st, now);
	*kick = gq_write_planned(&plan, st->view, st->next, now);
	return true;
}

static uint64_t _us(const struct timespec *from, const struct timespec *to)
{
	int64_t ns = (int64_t)(to->tv_sec - from->tv_sec) * 1000000000 +
		     (to->tv_nsec - from->tv_nsec);

	return ns > 0 ? (uint64_t)ns / 1000 : 0;
}

/*
 * Usage survives restarts: read at init (a missing file starts from zero;
 * a bad one too, said in the log, never fatal), written every
 * GQ_USAGE_SAVE_EVERY seconds and at fini, from a copy taken under the
 * state lock (the file is written with no lock held).
 */
static void _usage_load(void)
{
	char err[GQ_ERR_MAX];
	gq_usage_t u = { 0 };
	int rc;

	if (!usage_path)
		return;
	rc = gq_usage_file_read(usage_path, &u, err, sizeof(err));
	if (rc == -1)
		error("gpuquota: usage file: %s; usage starts from zero", err);
	gq_state_lock();
	if (!rc) {
		gq_usage_free(&gq_state()->usage);
		gq_state()->usage = u;
		info("gpuquota: usage of %d projects read from %s", u.n,
		     usage_path);
	}
	gq_state_unlock();
}

static void _usage_save(bool now)
{
	char err[GQ_ERR_MAX];
	gq_usage_t copy = { 0 };
	const gq_usage_t *u;
	int i, rc = 0;

	if (!usage_path || (!now && time(NULL) - usage_saved < GQ_USAGE_SAVE_EVERY))
		return;
	usage_saved = time(NULL);
	gq_state_lock();
	u = &gq_state()->usage;
	if (!u->n || !gq_state()->config ||
	    !gq_state()->config->settings.usage_half_life) {
		gq_state_unlock();
		return;
	}
	copy.at = u->at;
	if (!(copy.e = calloc(u->n, sizeof(*copy.e))))
		rc = -1;
	for (i = 0; !rc && i < u->n; i++, copy.n++) {
		copy.e[i].gpu_seconds = u->e[i].gpu_seconds;
		if (!(copy.e[i].pool = strdup(u->e[i].pool)) ||
		    !(copy.e[i].project = strdup(u->e[i].project)))
			rc = -1;
	}
	gq_state_unlock();
	if (rc || gq_usage_file_write(&copy, usage_path, err, sizeof(err)))
		error("gpuquota: usage file: %s", rc ? "out of memory" : err);
	gq_usage_free(&copy);
}

/*
 * Count a pass in the metrics, then write them to the metrics file: the
 * snapshot is taken under the state lock, the file written after it, with
 * no lock held.
 */
static void _record_pass(gq_pass_rec_t *r)
{
	char err[GQ_ERR_MAX];
	struct timespec ts;
	double now;

	clock_gettime(CLOCK_REALTIME, &ts);
	now = ts.tv_sec + ts.tv_nsec / 1e9;
	r->at = now;
	gq_state_lock();
	gq_metrics_pass(&gq_state()->metrics, r);
	metrics_snap = gq_state()->metrics;
	gq_state_unlock();
	if (!metrics_path)
		return;
	if (gq_metrics_file_write(&metrics_snap, metrics_path, now, err,
				  sizeof(err))) {
		if (!metrics_failing)
			error("gpuquota: metrics file: %s; `gpuquota metrics` shows only what it reads from Slurm until a write succeeds",
			      err);
		metrics_failing = true;
	} else if (metrics_failing) {
		info("gpuquota: metrics file %s written again", metrics_path);
		metrics_failing = false;
	}
}

/* A hold of slurmctld's locks, timed: when granted, and this thread's
 * CPU while it holds them (the hold less the time it waited for a core). */
typedef struct {
	slurmctld_lock_t locks;
	struct timespec granted, cpu0;
} gq_timed_lock_t;

static void _lock_timed(gq_timed_lock_t *t)
{
	lock_slurmctld(t->locks);
	clock_gettime(CLOCK_MONOTONIC, &t->granted);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t->cpu0);
}

/* Let go of t's locks; r gets the hold's wall and CPU time. */
static void _unlock_timed(gq_timed_lock_t *t, gq_pass_rec_t *r)
{
	struct timespec cpu1, released;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
	unlock_slurmctld(t->locks);
	clock_gettime(CLOCK_MONOTONIC, &released);
	r->lock_hold_us = _us(&t->granted, &released);
	r->lock_cpu_us = _us(&t->cpu0, &cpu1);
}

/*
 * A pass in two lock holds (docs/DEVELOPING.md "A pass in two lock
 * holds"): read, compute and plan under the job read lock (squeue and the
 * other readers go on; writers wait), then publish and write the jobs that
 * change under the job write lock.  A reclaim or a reload between the two
 * (gq_state_t.epoch) makes it again; after GQ_PASS_TRIES such, the pass is
 * made whole under the write lock.
 */
#define GQ_PASS_TRIES 3

static void _run_pass(void)
{
	/* as multifactor's decay thread: jobs, nodes and partitions */
	gq_timed_lock_t rd = { .locks = { .job = READ_LOCK, .node = READ_LOCK,
					  .part = READ_LOCK } };
	gq_timed_lock_t wr = { .locks = { .job = WRITE_LOCK, .node = READ_LOCK,
					  .part = READ_LOCK } };
	gq_pass_rec_t r = { 0 }, hold;
	uint64_t epoch;
	gq_state_t *st = gq_state();
	bool kick = false, ran = false, ok = false, read;
	int tries;

	for (tries = 0; tries <= GQ_PASS_TRIES && !ok; tries++) {
		bool whole = tries == GQ_PASS_TRIES;

		if (!whole) {	/* the first hold: read and plan */
			_lock_timed(&rd);
			gq_state_lock();
			ran = st->config != NULL;
			read = ran && _pass_read(st, time(NULL), &epoch);
			if (ran) {
				_check_accounts(st->config);
				_check_partitions(st->config);
			}
			gq_state_unlock();
			_unlock_timed(&rd, &hold);
			r.read_hold_us += hold.lock_hold_us;
			r.read_cpu_us += hold.lock_cpu_us;
			if (!read)
				break;	/* no configuration, or failed */
		}
		_lock_timed(&wr);
		gq_state_lock();
		if (!st->config)
			ran = false;
		else if (whole)
			kick = _pass(st, time(NULL), &ok);
		else
			ok = _pass_write(st, epoch, time(NULL), &kick);
		gq_state_unlock();
		/*
		 * A released job, or a reclaim that only this pass made
		 * possible: ask for a scheduling pass now rather than at the
		 * next sched_interval (60 s by default).
		 */
		if (kick)
			queue_job_scheduler();
		_unlock_timed(&wr, &hold);
		r.lock_hold_us += hold.lock_hold_us;
		r.lock_cpu_us += hold.lock_cpu_us;
	}
	if (ran) {
		r.pass_us = r.read_hold_us + r.lock_hold_us;
		r.ok = ok;
		r.tries = tries;
		_record_pass(&r);
	}
	gq_grace_requeue();
	_usage_save(false);
	gq_throttle_save();
}

/*
 * A re-hold (gq_state_t.pass_now): the holds of the last pass written
 * again on the jobs Slurm's main cycle gave their priority back
 * (gq_hold_again), as soon as the cycle lets go of the job lock.  A walk
 * of the job list by id, not a pass: in a burst of reclaims, each inside a
 * cycle, a whole pass each (reading every job) held the job write lock
 * the submits wait for.  Its lock hold is recorded with the passes'.
 */
static void _run_rehold(void)
{
	gq_timed_lock_t t = { .locks = { .job = WRITE_LOCK } };
	gq_pass_rec_t r = { .ok = true, .rehold = true };
	struct timespec end;
	bool ran = false;

	_lock_timed(&t);
	gq_state_lock();
	if (gq_state()->view) {
		ran = true;
		gq_hold_again(gq_state()->view, GQ_HOLD_NONE, "re-hold");
	}
	gq_state_unlock();
	clock_gettime(CLOCK_MONOTONIC, &end);
	_unlock_timed(&t, &r);
	r.pass_us = _us(&t.granted, &end);
	if (ran)
		_record_pass(&r);
}

/*
 * Passes asked for (submits, job ends, reloads) are paced: at least this
 * long from the end of one pass to the start of the next, and every
 * request in between is served by that one pass.  A submit storm thus
 * costs one pass per gap, not one per submit (each holds the job write
 * lock for O(J log J)); a job submitted meanwhile gets its band at once
 * from priority_p_set.
 */
#define GQ_PASS_MIN_GAP_NS 500000000L

static void _add_ns(struct timespec *t, long ns)
{
	t->tv_nsec += ns;
	while (t->tv_nsec >= 1000000000L) {
		t->tv_nsec -= 1000000000L;
		t->tv_sec++;
	}
}

static bool _before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static void *_pass_loop(void *arg)
{
	struct timespec earliest = { 0 };	/* end of last pass + gap */

	while (true) {
		struct timespec until, now;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += _interval();
		slurm_mutex_lock(&pass_mutex);
		while (!pass_stop && !pass_wanted &&
		       pthread_cond_timedwait(&pass_cond, &pass_mutex,
					      &until) == 0)
			;
		/* an asked-for pass waits out the gap; more asks coalesce;
		 * an urgent one re-holds at once, its pass comes after */
		while (true) {
			if (pass_urgent && !pass_stop) {
				pass_urgent = false;
				slurm_mutex_unlock(&pass_mutex);
				_run_rehold();
				slurm_mutex_lock(&pass_mutex);
				continue;
			}
			clock_gettime(CLOCK_REALTIME, &now);
			if (pass_stop || !_before(&now, &earliest))
				break;
			pthread_cond_timedwait(&pass_cond, &pass_mutex,
					       &earliest);
		}
		pass_wanted = pass_urgent = false;
		if (pass_stop) {
			slurm_mutex_unlock(&pass_mutex);
			break;
		}
		slurm_mutex_unlock(&pass_mutex);
		_run_pass();
		clock_gettime(CLOCK_REALTIME, &earliest);
		_add_ns(&earliest, GQ_PASS_MIN_GAP_NS);
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

/*
 * A re-hold at once, and a pass after the gap (gq_state_t.pass_now):
 * preempt/gpuquota held work for a reclaim inside Slurm's main scheduling
 * cycle, which puts the priority of the jobs still in its queue back; the
 * re-hold writes their holds again as soon as the cycle lets go of the
 * job lock, before a second scheduling test could start them
 * (docs/DEVELOPING.md).
 */
static void _want_pass_now(void)
{
	slurm_mutex_lock(&pass_mutex);
	pass_wanted = pass_urgent = true;
	slurm_cond_signal(&pass_cond);
	slurm_mutex_unlock(&pass_mutex);
}

/* The pass thread: from init, or where Slurm has it, thread_start (with
 * multifactor's own thread: its decay). */
static void _start_passes(void)
{
	if (!in_ctld || pass_started)
		return;
	gq_mf_thread_start();
	pass_stop = false;
	gq_thread_create("gpuquota", &pass_thread, _pass_loop, NULL);
	pass_started = true;
	gq_state_lock();
	gq_state()->pass_now = _want_pass_now;
	gq_state()->completing_nodes = gq_read_completing;
	gq_state_unlock();
}

GQ_PRIORITY_THREAD_ENTRIES(_start_passes)

/* multifactor inside, unless the configuration says not to (read at init
 * only: a reload within the same slurmctld keeps what init chose) */
static void _mf_load(void)
{
	bool want;

	gq_state_lock();
	want = !gq_state()->config || gq_state()->config->settings.multifactor;
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
	in_ctld = true;
	/* only root or SlurmUser may decide whose GPUs may be taken */
	gq_config_require_owner((long)slurm_conf.slurm_user_id);
	gq_throttle_load();
	gq_read_init();
	gq_state_lock();
	gq_metrics_init(&gq_state()->metrics, (double)time(NULL));
	/* fatal only without a last good configuration in this process */
	had_config = gq_state()->config != NULL;
	gq_state_unlock();
	if (slurm_conf.state_save_location &&
	    (!(metrics_path = gq_metrics_file_path(
		       slurm_conf.state_save_location)) ||
	     !(usage_path = gq_usage_file_path(
		       slurm_conf.state_save_location))))
		fatal("gpuquota: out of memory");
	_usage_load();
	_load(!had_config);
	_mf_load();
	if ((wiring = gq_wiring_job_submit(slurm_conf.job_submit_plugins)))
		error("gpuquota: %s", wiring);
	if (GQ_PRIORITY_START_IN_INIT)
		_start_passes();
	verbose("%s loaded", plugin_type);
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	if (!in_ctld) {
		gq_mf_unload();
		return SLURM_SUCCESS;
	}
	if (pass_started) {
		gq_state_lock();
		gq_state()->pass_now = NULL;
		gq_state()->completing_nodes = NULL;
		gq_state_unlock();
		slurm_mutex_lock(&pass_mutex);
		pass_stop = true;
		slurm_cond_signal(&pass_cond);
		slurm_mutex_unlock(&pass_mutex);
		gq_thread_join(pass_thread);
		pass_started = false;
		gq_write_plan_free(&plan);
	}
	/*
	 * The configuration and the last view stay in libgpuquota (which
	 * preempt/gpuquota keeps loaded): from 23.11 slurmctld reconfigures
	 * by starting a new slurmctld, after fini; when that one refuses a
	 * bad gpuquota.json, this process inits again and goes on with them.
	 * The array throttles are read again from their file at init.
	 */
	gq_throttle_clear();
	gq_mf_unload();
	_usage_save(true);
	free(metrics_path);
	metrics_path = NULL;
	free(usage_path);
	usage_path = NULL;
	in_ctld = false;
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
 * On submit, requeue and update (job write lock held): the job's band from
 * the last pass' shares, as if last in its project's queue; a pass soon
 * after puts it in its exact place.  O(1).
 */
extern uint32_t priority_p_set(uint32_t last_prio, job_record_t *job_ptr)
{
	const gq_job_t *job = NULL;
	const gq_pools_t *pools;
	gq_state_t *st;
	gq_job_in_t in;
	uint32_t prio = 1, mf_prio;
	int k = 0;

	if (job_ptr->direct_set_prio && (job_ptr->priority > 1))
		return job_ptr->priority;
	/* multifactor's factors first: the job's order reads them */
	mf_prio = gq_mf_set(last_prio, job_ptr);	/* 1 without it */
	_read_set(job_ptr, &in);
	gq_state_lock();
	st = gq_state();
	pools = st->view ? st->view : st->next;
	if (pools && gq_read_pool(pools, job_ptr) < 0) {
		/* outside the GPU pools: multifactor's (or FIFO) */
		bool left = st->view && gq_pools_job(st->view, in.id, &k);

		gq_state_unlock();
		return left ? gq_mf_left_pools(job_ptr) : mf_prio;
	}
	if (st->view && (job = _add_job(st->view, job_ptr, &in, &k))) {
		gq_state_job_added(in.id);	/* a pass reading meanwhile */
		prio = _set_in_view(job_ptr, st->view, job, k);
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
		gq_metrics_release(&gq_state()->metrics);
		gq_state_unlock();
	}
	if (in_ctld)
		_want_pass();
	return prio;
}

extern void priority_p_reconfig(bool assoc_clear)
{
	gq_mf_reconfig(assoc_clear);
	if (in_ctld) {
		_load(false);
		_want_pass();
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

	if (in_ctld && gq_mf_on())	/* its factors; the band is in SITE */
		return gq_mf_factors((void *)req, uid);
	ret = list_create(slurm_destroy_priority_factors_object);
	if (!in_ctld)
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
	if (!in_ctld)
		return;
	if (gq_mf_on())	/* usage, and the run seconds given back */
		gq_mf_job_end(job_ptr);
	else
		gq_give_back_run_secs(job_ptr);
	gq_state_lock();
	gq_state_job_gone(job_ptr->job_id);
	gq_state_unlock();
	_want_pass();
}
