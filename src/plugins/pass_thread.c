/*
 * pass_thread.c - the pass thread of priority/gpuquota and its pacing,
 * the two lock holds of a pass and their timing, and the re-hold (see
 * pass_thread.h): under the job read lock, read Slurm (read_slurm.c),
 * compute (shared/pass_input.c) and note the jobs to write
 * (write_slurm.c); under the job write lock, publish the view
 * preempt/gpuquota answers from (state/state.c) and write those jobs back
 * (write_slurm.c); then the pass is timed into the metrics and the files
 * written, outside slurmctld's locks (state_files.c).  A pass that fails
 * is logged once and changes nothing: the last good view stays.
 */
#include <pthread.h>
#include <time.h>

#include "shared/slurm_compat.h"

#include "state/state.h"
#include "plugins/array_throttle.h"
#include "plugins/config_load.h"
#include "plugins/grace.h"
#include "plugins/hold.h"
#include "plugins/pass_thread.h"
#include "plugins/read_slurm.h"
#include "plugins/room_wait_text.h"
#include "plugins/state_files.h"
#include "plugins/write_slurm.h"
#include "shared/pass_input.h"

/*
 * The pass thread and its wake-up.  `lock` (with `wake`) guards stop,
 * wanted and urgent: a leaf of docs/DEVELOPING.md "Lock order", taken
 * with the state lock held or not (gq_state_t.pass_now).  Writers: any
 * thread asking for a pass (priority_p_set, reconfig, a job's end,
 * preempt/gpuquota through pass_now), the pass thread (a request
 * served), fini (stop).  `thread` and `started`: init and fini alone.
 * `failing` and `plan`: the pass thread alone, no lock.
 */
static struct passes {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop, wanted, urgent;
	pthread_t thread;
	bool started;
	bool failing;		/* the last pass failed (logged once) */
	gq_write_plan_t plan;	/* the jobs a two-hold pass writes (memory
				 * reused) */
} passes = { .lock = PTHREAD_MUTEX_INITIALIZER,
	     .wake = PTHREAD_COND_INITIALIZER };

static int _interval(void)
{
	int s = GQ_DEFAULT_INTERVAL;

	gq_state_lock();
	if (gq_state_config())
		s = gq_state_config()->settings.recompute_interval;
	gq_state_unlock();
	return s > 0 ? s : 1;
}

/*
 * Read Slurm into `next` and compute it, reclaims in flight waited for.
 * 0, or -1 out of memory.  Caller holds the job read lock (at least) and
 * the state lock.
 */
static int _compute(gq_pools_t *next, time_t now)
{
	if (!next || gq_read_pass(next, now))
		return -1;
	return gq_pass_compute(next, gq_state_usage(), gq_state_losses(now),
			       &gq_state_config()->settings, now);
}

/* A pass failed (out of memory) or succeeded: logged when that changes. */
static void _log_pass_outcome(bool ok)
{
	if (!ok && !passes.failing)
		error("gpuquota: pass failed (out of memory); answering from the last good pass until one succeeds");
	else if (ok && passes.failing)
		info("gpuquota: passes succeed again");
	passes.failing = !ok;
}

/* The pass is published: its room waits' changes logged, usage counted
 * up to now. */
static void _log_rooms_count_usage(time_t now)
{
	gq_room_log_changes(gq_state_view(), now);
	if (gq_usage_advance(gq_state_usage(), gq_state_view(),
			     gq_state_config()->settings.usage_half_life, now))
		error("gpuquota: usage not counted this pass (out of memory)");
}

/*
 * A whole pass in one hold: compute, publish, write every pending job.
 * Returns whether a scheduling pass should run now; *ok whether the pass
 * succeeded.  Caller holds the job write lock and the state lock.
 */
static bool _pass(time_t now, bool *ok)
{
	*ok = !_compute(gq_state_next(), now);
	_log_pass_outcome(*ok);
	if (!*ok)
		return false;
	gq_state_publish();
	_log_rooms_count_usage(now);
	/* after publishing, `next` is the pass before (or NULL) */
	return gq_write_pass(gq_state_view(), gq_state_spare(), now);
}

/*
 * A two-hold pass, its first hold: compute and plan the writes
 * (passes.plan).
 * Returns false when it failed (out of memory; logged).  Caller holds
 * the job read lock and the state lock.
 */
static bool _pass_read(time_t now, uint64_t *epoch)
{
	gq_pools_t *next = gq_state_next();
	bool ok;

	*epoch = gq_state_pass_read();
	ok = !_compute(next, now) &&
	     !gq_write_plan(&passes.plan, next, gq_state_view(), now);
	if (!ok)
		gq_state_pass_abandon();
	_log_pass_outcome(ok);
	return ok;
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
	gq_read_set(job_ptr, &in);
	gq_read_add(pools, job_ptr, &in, &k);
}

/*
 * A two-hold pass, its second hold: publish and write the planned jobs.
 * Returns false when a reclaim, a reload or the start of a job the pass
 * holds came between the holds (nothing published, the last pass's holds
 * written again: the pass is made again).  *kick: a scheduling pass
 * should run now.  Caller holds the job write lock and the state lock.
 */
static bool _pass_write(uint64_t epoch, time_t now,
			bool *kick)
{
	gq_write_plan_note_started(&passes.plan);
	if (!gq_state_pass_write(epoch, _added_since_read, NULL)) {
		/* a reclaim inside Slurm's main cycle: its holds again now,
		 * as the re-hold after it would (_run_rehold) */
		gq_hold_again(gq_state_view(), GQ_HOLD_NONE, "re-hold");
		return false;
	}
	_log_rooms_count_usage(now);
	*kick = gq_write_planned(&passes.plan, gq_state_view(),
				 gq_state_spare(), now);
	return true;
}

static uint64_t _us(const struct timespec *from, const struct timespec *to)
{
	int64_t ns = (int64_t)(to->tv_sec - from->tv_sec) * 1000000000 +
		     (to->tv_nsec - from->tv_nsec);

	return ns > 0 ? (uint64_t)ns / 1000 : 0;
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

/*
 * A pass's first hold, under the read locks `rd`: read Slurm and plan.
 * *ran: a configuration is loaded.  Returns whether the pass read (false:
 * no configuration, or the read failed); its hold times into r.
 */
static bool _read_hold(gq_timed_lock_t *rd, gq_pass_rec_t *r,
		       uint64_t *epoch, bool *ran)
{
	gq_pass_rec_t hold;
	bool read;

	_lock_timed(rd);
	gq_state_lock();
	*ran = gq_state_config() != NULL;
	read = *ran && _pass_read(time(NULL), epoch);
	if (*ran)
		gq_load_check(gq_state_config());
	gq_state_unlock();
	_unlock_timed(rd, &hold);
	r->read_hold_us += hold.lock_hold_us;
	r->read_cpu_us += hold.lock_cpu_us;
	return read;
}

static void _run_pass(void)
{
	/* as multifactor's decay thread: jobs, nodes and partitions */
	gq_timed_lock_t rd = { .locks = { .job = READ_LOCK, .node = READ_LOCK,
					  .part = READ_LOCK } };
	gq_timed_lock_t wr = { .locks = { .job = WRITE_LOCK, .node = READ_LOCK,
					  .part = READ_LOCK } };
	gq_pass_rec_t r = { 0 }, hold;
	uint64_t epoch;
	bool kick = false, ran = false, ok = false, searched;
	int tries;

	for (tries = 0; tries <= GQ_PASS_TRIES && !ok; tries++) {
		bool whole = tries == GQ_PASS_TRIES;

		/* the first hold: read and plan; none read (no
		 * configuration, or failed): this try counts */
		if (!whole && !_read_hold(&rd, &r, &epoch, &ran)) {
			tries++;
			break;
		}
		_lock_timed(&wr);
		gq_state_lock();
		searched = gq_state_victims_wanted();
		if (!gq_state_config())
			ran = false;
		else if (whole)
			kick = _pass(time(NULL), &ok);
		else
			ok = _pass_write(epoch, time(NULL), &kick);
		gq_state_unlock();
		/*
		 * A released job, or a reclaim that only this pass made
		 * possible (a job now needs victims: Slurm's tries since
		 * the last pass offered none, core/victim_search.h): ask
		 * for a scheduling pass now rather than at the next
		 * sched_interval (60 s by default).
		 */
		if (kick || (!searched && gq_state_victims_wanted()))
			queue_job_scheduler();
		_unlock_timed(&wr, &hold);
		r.lock_hold_us += hold.lock_hold_us;
		r.lock_cpu_us += hold.lock_cpu_us;
	}
	if (ran) {
		r.pass_us = r.read_hold_us + r.lock_hold_us;
		r.ok = ok;
		r.tries = tries;
		gq_files_record_pass(&r);
	}
	gq_grace_requeue();
	gq_files_write_ledger();
	gq_files_save_usage(false);
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
	/* the node read lock: a room wait's text names its node */
	gq_timed_lock_t t = { .locks = { .job = WRITE_LOCK,
					 .node = READ_LOCK } };
	gq_pass_rec_t r = { .ok = true, .rehold = true };
	struct timespec end;
	bool ran = false;

	_lock_timed(&t);
	gq_state_lock();
	if (gq_state_view()) {
		ran = true;
		gq_hold_again(gq_state_view(), GQ_HOLD_NONE, "re-hold");
	}
	gq_state_unlock();
	clock_gettime(CLOCK_MONOTONIC, &end);
	_unlock_timed(&t, &r);
	r.pass_us = _us(&t.granted, &end);
	if (ran)
		gq_files_record_pass(&r);
}

/*
 * Passes asked for (reloads; submits and job ends while a job is held,
 * blocked or needs victims, core/pass_soon.h) are paced: at least
 * this long from the end of one pass to the start of the next, and every
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

/*
 * Between passes, while reclaims are in flight, the pass thread looks
 * every GQ_START_POLL_NS for a preemptor that started: its pass then
 * comes at once, and the holds for it end (docs/MODEL.md "Holds", freed
 * GPUs kept), not at the next tick.  No cost while no reclaim is in flight.
 */
#define GQ_START_POLL_NS 250000000L
#define GQ_START_POLL_MAX 64	/* preemptors looked at, at most */

/* The preemptors in flight, into ids: how many.  The state lock alone. */
static int _in_flight(uint32_t *ids)
{
	int n;

	gq_state_lock();
	n = gq_state_preemptors(ids, GQ_START_POLL_MAX, time(NULL));
	gq_state_unlock();
	return n;
}

/* Has one of the n preemptors left the queue (started, or ended)?  The
 * job read lock alone.  O(n). */
static bool _preemptor_started(const uint32_t *ids, int n)
{
	slurmctld_lock_t read = { .job = READ_LOCK };
	bool started = false;
	int i;

	lock_slurmctld(read);
	for (i = 0; i < n && !started; i++) {
		job_record_t *job_ptr = find_job_record(ids[i]);

		started = job_ptr && !IS_JOB_PENDING(job_ptr);
	}
	unlock_slurmctld(read);
	return started;
}

/*
 * Wait for an ask, a stop or the tick (`until`), looking every
 * GQ_START_POLL_NS for a started preemptor among the n in ids.  Called,
 * and returns, with passes.lock held (a leaf: it is let go around the
 * look).
 */
static void _wait_tick(const struct timespec *until, const uint32_t *ids,
		       int n)
{
	while (!passes.stop && !passes.wanted) {
		struct timespec at;
		bool started;

		clock_gettime(CLOCK_MONOTONIC, &at);
		_add_ns(&at, GQ_START_POLL_NS);
		if (!n || !_before(&at, until))
			at = *until;
		if (pthread_cond_timedwait(&passes.wake, &passes.lock, &at) == 0)
			continue;
		if (!_before(&at, until))
			return;	/* the tick */
		slurm_mutex_unlock(&passes.lock);
		started = _preemptor_started(ids, n);
		slurm_mutex_lock(&passes.lock);
		if (started)
			return;
	}
}

static void *_pass_loop(void *arg)
{
	struct timespec earliest = { 0 };	/* end of last pass + gap */
	uint32_t ids[GQ_START_POLL_MAX];

	while (true) {
		struct timespec until, now;
		int n = _in_flight(ids);

		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += _interval();
		slurm_mutex_lock(&passes.lock);
		_wait_tick(&until, ids, n);
		/* an asked-for pass waits out the gap; more asks coalesce;
		 * an urgent one re-holds at once, its pass comes after */
		while (true) {
			if (passes.urgent && !passes.stop) {
				passes.urgent = false;
				slurm_mutex_unlock(&passes.lock);
				_run_rehold();
				slurm_mutex_lock(&passes.lock);
				continue;
			}
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (passes.stop || !_before(&now, &earliest))
				break;
			pthread_cond_timedwait(&passes.wake, &passes.lock,
					       &earliest);
		}
		passes.wanted = passes.urgent = false;
		if (passes.stop) {
			slurm_mutex_unlock(&passes.lock);
			break;
		}
		slurm_mutex_unlock(&passes.lock);
		_run_pass();
		clock_gettime(CLOCK_MONOTONIC, &earliest);
		_add_ns(&earliest, GQ_PASS_MIN_GAP_NS);
	}
	return NULL;
}

void gq_passes_want(void)
{
	slurm_mutex_lock(&passes.lock);
	passes.wanted = true;
	slurm_cond_signal(&passes.wake);
	slurm_mutex_unlock(&passes.lock);
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
	slurm_mutex_lock(&passes.lock);
	passes.wanted = passes.urgent = true;
	slurm_cond_signal(&passes.wake);
	slurm_mutex_unlock(&passes.lock);
}

/* The pass thread's waits on the monotonic clock: a clock stepped back
 * (NTP, an operator) neither delays passes nor hurries them. */
static void _cond_monotonic(void)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_destroy(&passes.wake);
	pthread_cond_init(&passes.wake, &a);
	pthread_condattr_destroy(&a);
}

void gq_passes_start(void)
{
	_cond_monotonic();
	passes.stop = false;
	passes.failing = false;	/* a plugin loaded again starts afresh */
	gq_thread_create("gpuquota", &passes.thread, _pass_loop, NULL);
	passes.started = true;
	gq_state_lock();
	gq_state_set_hooks(_want_pass_now, gq_read_completing);
	gq_state_unlock();
}

bool gq_passes_running(void)
{
	return passes.started;
}

void gq_passes_stop(void)
{
	if (!passes.started)
		return;
	gq_state_lock();
	gq_state_set_hooks(NULL, NULL);
	gq_state_unlock();
	slurm_mutex_lock(&passes.lock);
	passes.stop = true;
	slurm_cond_signal(&passes.wake);
	slurm_mutex_unlock(&passes.lock);
	gq_thread_join(passes.thread);
	passes.started = false;
	gq_write_plan_free(&passes.plan);
	gq_room_log_free();
}
