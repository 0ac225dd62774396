/*
 * preempt_gpuquota.c - preempt/gpuquota: quota and fair-share reclaim by
 * requeue (docs/MODEL.md "Reclaim").
 *
 * Answers from the view the last priority/gpuquota pass computed: O(1) per
 * preemptable() call, never a walk of job_list (a walk of the view's
 * running jobs when Slurm's jobs changed since the last answer:
 * _note_ends).  In observe mode no victim is offered; a would-be reclaim
 * is logged and recorded in the ledger as observed.
 */
#include "shared/slurm_compat.h"

#include "core/band.h"
#include "core/grace.h"
#include "core/reclaim.h"
#include "state/ledger.h"
#include "state/state.h"
#include "plugins/grace.h"
#include "plugins/hold.h"
#include "plugins/reclaim_note.h"
#include "plugins/room_wait_text.h"
#include "plugins/xalloc.h"
#include "shared/job_facts.h"

/* slurmctld's own data: absent when a client command loads us */
#pragma weak job_list
#pragma weak last_job_update

/* completing nodes looked at per preemptor: enough for any job's shape */
#define GQ_COMPLETING_MAX 256

const char plugin_name[] = "Preempt gpuquota plugin";
const char plugin_type[] = "preempt/gpuquota";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

extern int init(void)
{
	if (xstrcmp(slurm_conf.priority_type, "priority/gpuquota"))
		error("%s needs PriorityType=priority/gpuquota; nothing will be reclaimed",
		      plugin_type);
	/*
	 * Floors hold whatever subset of the candidates Slurm takes, in any
	 * order; the order only says who gives first (most over-served
	 * project).  preempt_youngest_first replaces that order with start
	 * times; without preempt_strict_order select/cons_tres may move
	 * candidates to preempt fewer jobs.
	 */
	if (xstrcasestr(slurm_conf.sched_params, "preempt_youngest_first"))
		info("%s: SchedulerParameters=preempt_youngest_first: Slurm takes the youngest candidates first, not the most over-served project's; floors still hold",
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

/* pools whose ended jobs _note_ends remembers looking for */
#define GQ_NOTE_POOLS 64
/* (preemptor, victim) pairs observe mode logged last, oldest overwritten */
#define GQ_OBSERVED_PAIRS 256

/*
 * What preempt/gpuquota remembers between Slurm's calls.  Slurm's calls
 * (preemptable(), the victim's grace time) write it, each holding the
 * state lock (gq_state_lock) while it reads or writes: that lock guards
 * it.
 */
static struct {
	/* The preemptor Slurm last asked about: Slurm lists a pending job's
	 * candidates (preemptable() for every job) right before it preempts
	 * any of them, all under the job write lock, so the victims it then
	 * preempts (PREEMPT_DATA_GRACE_TIME, asked once per victim) are this
	 * job's. */
	uint32_t last_preemptor;
	/* _waits_for_completing's last answer: preemptor, second, wait */
	uint32_t wait_id;
	time_t wait_at;
	bool wait;
	/* _note_ends: Slurm's jobs and the view last looked at, per pool */
	time_t seen_update[GQ_NOTE_POOLS];
	uint64_t seen_view[GQ_NOTE_POOLS];
	/* _observed_before: pairs logged, the next one overwritten */
	uint32_t pair[GQ_OBSERVED_PAIRS][2];
	int next_pair;
} preempt_asks;

/*
 * Reclaimed already and warned, in its grace time (gq_grace_in): its GPUs
 * are taken.  Offered again to any job that may reclaim, first, so that
 * Slurm counts them as coming free and waits for them, instead of taking
 * more victims; Slurm does not requeue it twice (preempt.c's grace
 * check), and the budgets already count its GPUs as lost (read_slurm.c).
 */
static bool _in_grace(job_record_t *job_ptr)
{
	gq_grace_job_t j = gq_grace_victim_of(job_ptr);

	return gq_grace_in(&j);
}

/*
 * Does the preemptor wait for GPUs coming free (core/coming_free.h)?
 * Slurm asks preemptable() for every running job in a row for one
 * preemptor: answered once per preemptor and second.  O(nodes / 64 +
 * completing nodes).  Caller holds the state lock; Slurm the node read
 * lock.
 */
static bool _waits_for_completing(uint32_t preemptor, time_t now)
{
	gq_node_idle_t cg[GQ_COMPLETING_MAX];
	int n;

	if (preemptor == preempt_asks.wait_id && now == preempt_asks.wait_at)
		return preempt_asks.wait;
	n = gq_state_completing_nodes(cg, GQ_COMPLETING_MAX);
	preempt_asks.wait_id = preemptor;
	preempt_asks.wait_at = now;
	preempt_asks.wait = gq_state_wait_coming_free(
		preemptor, n && gq_pools_fits_idle(gq_state_view(), preemptor,
						   cg, n),
		now);
	return preempt_asks.wait;
}

/*
 * Jobs of pool k's view that ended since it was made, taken out of it
 * (gq_state_job_gone) before a candidate is offered to a preemptor of
 * that pool, so that no floor is judged on GPUs already gone.  Slurm
 * tells the priority plugin of a job's end only with
 * AccountingStorageEnforce=limits (acct_policy.c _adjust_limit_usage
 * calls priority_g_job_end), and a job's end runs Slurm's scheduler at
 * once, before the next pass.  Done when Slurm's jobs (last_job_update)
 * or the view changed since the last time for this pool: O(running jobs
 * of the pool) lookups by id then, at most once per preemptor that may
 * reclaim and change of Slurm's jobs (each job Slurm starts in a cycle is
 * one).  Caller holds the job write lock and the state lock.
 */
static void _note_ends(int k)
{
	gq_pools_t *p = gq_state_view();
	gq_view_t *v;
	int i;

	if (!job_list || k < 0)
		return;
	if (k < GQ_NOTE_POOLS) {
		if (preempt_asks.seen_update[k] == last_job_update &&
		    preempt_asks.seen_view[k] == gq_state_published())
			return;
		preempt_asks.seen_update[k] = last_job_update;
		preempt_asks.seen_view[k] = gq_state_published();
	}
	v = p->view[k];
	for (i = 0; i < gq_view_njobs(v); i++) {
		const gq_job_t *job = gq_view_job_at(v, i);
		job_record_t *job_ptr;

		if (job->in.state != GQ_JOB_RUNNING || job->in.elsewhere)
			continue;
		job_ptr = find_job_record(job->in.id);
		/* ended, or preempted since the view was made without
		 * gpuquota knowing: a job on time borrowed from a
		 * reservation (MaxStartDelay) is preempted by Slurm itself,
		 * preemptable() and the grace callback unasked (preempt.c,
		 * job_borrow_from_resv_check).  A view made since reads it
		 * as leaving (at_risk) and keeps it. */
		if (!job_ptr || !IS_JOB_RUNNING(job_ptr) ||
		    (job_ptr->preempt_time && !job->in.at_risk))
			gq_state_job_gone(job->in.id);
	}
}

/* Was the pair logged already (then true); else remembered. */
static bool _observed_before(uint32_t preemptor, uint32_t victim)
{
	int i, *next = &preempt_asks.next_pair;

	for (i = 0; i < GQ_OBSERVED_PAIRS; i++)
		if (preempt_asks.pair[i][0] == preemptor &&
		    preempt_asks.pair[i][1] == victim)
			return true;
	preempt_asks.pair[*next][0] = preemptor;
	preempt_asks.pair[*next][1] = victim;
	*next = (*next + 1) % GQ_OBSERVED_PAIRS;
	return false;
}

/*
 * Observe mode (docs/MODEL.md "Observe mode"): a victim gpuquota would
 * offer is not offered; once per pair, a log line and a ledger record
 * marked observed (its loss as if requeued now).  Caller holds the state
 * lock.
 */
static void _observe_reclaim(job_record_t *victim, job_record_t *preemptor,
			     time_t now)
{
	gq_pools_t *pools = gq_state_view();
	const gq_job_t *er, *ee;
	gq_ledger_rec_t r;
	int k;

	if (_observed_before(preemptor->job_id, victim->job_id))
		return;
	info("gpuquota: observe: would reclaim %pJ for %pJ", victim,
	     preemptor);
	if (!(er = gq_pools_job(pools, preemptor->job_id, &k)) ||
	    !(ee = gq_view_job(pools->view[k], victim->job_id)))
		return;
	gq_ledger_record(&r, pools->name[k], pools->view[k], er, ee, now);
	r.stage = GQ_LEDGER_OBSERVED;
	if (!gq_state_ledger_note(&r))
		error("gpuquota: ledger: the observed record of JobId=%u for JobId=%u is dropped (out of memory, or %d records waiting for the file)",
		      ee->in.id, er->in.id, GQ_LEDGER_QUEUE_MAX);
}

/*
 * Slurm 22.05 and 23.11 ask before each search for victims: off while no
 * job needs victims (core/victim_search.h), so that Slurm skips its walk
 * of every job for every job it tries to start.  Later releases do not
 * ask.
 */
static bool __attribute__((unused)) _enabled(void)
{
	return slurm_conf.preempt_mode != PREEMPT_MODE_OFF &&
	       gq_state_victims_wanted();
}

extern bool preempt_p_preemptable(job_record_t *preemptee,
				  job_record_t *preemptor)
{
	time_t now = time(NULL);
	bool rc = false;

	/* Slurm asks about every job it has, for every job it tries to
	 * start: no lock while no job needs victims, nor for a job that
	 * holds no GPUs */
	if (!gq_state_victims_wanted() || !IS_JOB_RUNNING(preemptee))
		return false;

	gq_state_lock();
	if (gq_state_view())
		_note_ends(gq_pools_reclaiming(gq_state_view(),
					       preemptor->job_id));
	/* inside one pool only: both in the preemptor's pool's view */
	if (_in_grace(preemptee))
		rc = gq_pools_may_take_leaving(gq_state_view(),
					       preemptee->job_id,
					       gq_facts_reclaimed_for(
						       preemptee->system_comment),
					       preemptor->job_id);
	else if (gq_state_reclaim_settling(preemptor->job_id, now,
					   slurm_conf.kill_wait +
						   slurm_conf.msg_timeout))
		rc = false;
	else
		rc = gq_pools_preemptable(gq_state_view(), preemptee->job_id,
					  preemptor->job_id) &&
		     !_waits_for_completing(preemptor->job_id, now);
	/* observe mode, or its view's holds not written yet: no victim */
	if (rc && !gq_state_view_acts()) {
		if (!gq_state_acts())
			_observe_reclaim(preemptee, preemptor, now);
		rc = false;
	}
	if (rc)
		preempt_asks.last_preemptor = preemptor->job_id;
	gq_state_unlock();
	return rc;
}

/*
 * The first reclaim for a preemptor: work outside quotas waits until it
 * starts (gq_view_wait_for_reclaims), held at once, before the rest of
 * this scheduling cycle or backfill could start it on the GPUs being
 * freed.  O(J), once per preemptor.  Caller holds the job write lock and
 * the state lock.
 */
static int _hold_for_reclaim(gq_pools_t *v, time_t now)
{
	if (!job_list || !gq_state_wait_for_reclaims(v, now))
		return 0;
	return gq_hold_again(v, GQ_HOLD_RECLAIM, "reclaim");
}

/*
 * The reclaim's record for the ledger (state/ledger.h), queued in memory:
 * priority/gpuquota's pass thread writes it after its next pass, outside
 * slurmctld's locks.  A victim requeued at once (no grace time) loses its
 * run now: one record.  A victim warned first runs on: a warned record
 * now, its loss as if requeued now, and the victim kept so that the
 * record is settled with its loss when its run ends (plugins/grace.c,
 * gq_grace_requeue).  The record
 * into *out.  Caller holds the state lock.
 */
static void _ledger_note(const char *pool, const gq_view_t *v,
			 const gq_job_t *er, const gq_job_t *ee,
			 job_record_t *victim, int grace, time_t now,
			 gq_ledger_rec_t *out)
{
	gq_warned_t w = {
		.start = ee->in.start_time,
		.restarts = victim->restart_cnt,
	};
	bool ok;

	gq_ledger_record(&w.rec, pool, v, er, ee, now);
	if (grace)
		w.rec.stage = GQ_LEDGER_WARNED;
	ok = grace ? gq_state_warned_note(&w) : gq_state_ledger_note(&w.rec);
	if (!ok)
		error("gpuquota: ledger: the record of JobId=%u taken for JobId=%u is dropped (out of memory, or %d records waiting for the file)",
		      ee->in.id, er->in.id, GQ_LEDGER_QUEUE_MAX);
	*out = w.rec;
}

/*
 * A victim is being preempted: counted (reclaims and victims, by the
 * preemptor's band), recorded in the ledger, one log line with the
 * decision and the numbers behind it, and a system comment on the victim
 * (squeue -O system_comment, scontrol show job) saying for which job it
 * was reclaimed and the GPU-seconds its requeue loses (warned first: said
 * when its run ends, plugins/grace.c), with slurmdbd in its admin comment
 * too (reclaim_note.h).
 */
static void _note_reclaim(job_record_t *victim, int grace)
{
	gq_pools_t *pools;
	gq_view_t *v;
	const gq_job_t *ee, *er;
	const gq_project_t *pe, *pr;
	time_t now = time(NULL);
	gq_ledger_rec_t r;
	int k, n, to, nodes[GQ_RECLAIM_NODES];
	bool fresh;

	gq_state_lock();
	pools = gq_state_view();
	if (!(er = gq_pools_job(pools, preempt_asks.last_preemptor, &k)) ||
	    !(ee = gq_view_job((v = pools->view[k]), victim->job_id))) {
		gq_state_unlock();
		return;
	}
	pe = gq_view_project(v, ee->project);
	pr = gq_view_project(v, er->project);
	to = gq_view_move_to(v, er->in.id, ee->in.id);
	gq_metrics_victim(gq_state_metrics(), er->in.id, er->band, to >= 0,
			  ee->in.gpus);
	_ledger_note(pools->name[k], v, er, ee, victim, grace, now, &r);
	info("gpuquota: reclaim%s%s: JobId=%u (%s, %s, A=%g, quota %g, fair share %.2f) takes JobId=%u (%s, %u GPU%s; %s holds %u, quota %g, fair share %.2f, floor %.2f), %llu GPU-seconds lost%s",
	     pools->name[k] ? " in pool " : "",
	     pools->name[k] ? pools->name[k] : "", er->in.id, pr->name, gq_band_name(er->band), er->cum, pr->quota,
	     pr->share, ee->in.id, pe->name, ee->in.gpus,
	     ee->in.gpus == 1 ? "" : "s", pe->name, pe->alloc, pe->quota,
	     pe->share, gq_floor(pe->quota, pe->share_floor,
				 er->band == GQ_BAND_FAIR_SHARE),
	     (unsigned long long)r.lost,
	     grace ? " if requeued now; warned first, requeued when it exits or its grace time ends (the loss counted then)" : "");
	if (to >= 0)	/* a moved job runs on one node: the one emptied */
		info("gpuquota: move: JobId=%u of %s (in quota) is requeued to empty %s for JobId=%u of %s, which needs it whole; it restarts on %s, where GPUs are idle or borrowed",
		     ee->in.id, pe->name,
		     victim->nodes ? victim->nodes :
				     gq_room_node_name(gq_view_move_of(v)->node),
		     er->in.id, pr->name, gq_room_node_name(to));
	gq_reclaim_note_write(victim, &r, ee->in.start_time,
			      to >= 0 ? gq_room_node_name(to) : NULL);
	if (to >= 0)	/* its landing kept while it restarts (it may take
			 * KillWait to end after its grace time) */
		gq_state_note_landing(ee->in.id, to, now,
				      grace + slurm_conf.kill_wait,
				      gq_facts_requeue_delay(
					      slurm_conf.sched_params,
					      slurm_conf.authinfo));
	/* holds written inside Slurm's main cycle: written again by a re-hold
	 * right after it (pass_thread.c, _want_pass_now); again when a
	 * victim frees a node no victim of the reclaim freed before, or a
	 * moved job's landing is kept */
	fresh = gq_state_note_reclaim(er->in.id, now, grace);
	n = gq_hold_job_nodes(victim, nodes);
	if ((gq_state_reclaim_nodes(er->in.id, nodes, n) || fresh ||
	     to >= 0) && _hold_for_reclaim(pools, now))
		gq_state_want_pass_now();
	gq_state_unlock();
}

/* PreemptMode as configured, without GANG and WITHIN (not stop modes) */
static uint16_t _mode(job_record_t *job_ptr)
{
	return slurm_conf.preempt_mode &
	       ~(PREEMPT_MODE_GANG | PREEMPT_MODE_WITHIN);
}

/* candidates sort ascending: reclaim order; jobs in their grace first */
static uint32_t _prio(job_record_t *job_ptr)
{
	uint32_t rank = UINT32_MAX;
	gq_pools_t *pools;
	int k;

	if (_in_grace(job_ptr))
		return 0;
	gq_state_lock();
	pools = gq_state_view();
	if ((k = gq_pools_find(pools, job_ptr->job_id)) >= 0)
		rank = gq_view_preempt_rank(pools->view[k], job_ptr->job_id);
	gq_state_unlock();
	return rank;
}

/*
 * The victim's grace time (gq_grace_of_job: settings.grace_time, or its
 * project's): Slurm then sends it SIGCONT and SIGTERM (its own --signal
 * instead with SlurmctldParameters=preempt_send_user_signal) and requeues
 * it when the time is up; a victim that exits first is requeued after
 * the next pass (plugins/grace.c).  0: requeued at once.  Reads only.
 */
static int _grace_of(job_record_t *job_ptr)
{
	int grace;

	gq_state_lock();
	grace = gq_grace_of_job(gq_state_config(), gq_state_view(),
				job_ptr->job_id);
	gq_state_unlock();
	return grace;
}

/*
 * The warning to the batch script.  Slurm's own signals for a grace time
 * reach only the job's steps (SIGTERM), or with
 * SlurmctldParameters=preempt_send_user_signal the job's own --signal
 * where it asked for it (B: for the batch script); a script that runs its
 * work without srun (python train.py) would not hear of it.  So the batch
 * script (with everything it started) gets SIGTERM too, unless the job's
 * own signal goes instead.
 */
static void _warn_batch_script(job_record_t *job_ptr)
{
	if (!job_ptr->batch_flag ||
	    (job_ptr->warn_signal &&
	     xstrcasestr(slurm_conf.slurmctld_params,
			 "preempt_send_user_signal")))
		return;
	/* the script's whole process group (KILL_FULL_JOB: killpg in
	 * slurmstepd), not the shell alone (KILL_JOB_BATCH), whose children
	 * then outlived it */
	if (job_signal(job_ptr, SIGTERM, KILL_FULL_JOB, 0, false) !=
	    SLURM_SUCCESS)
		debug("gpuquota: no SIGTERM to the batch script of %pJ",
		      job_ptr);
}

/*
 * The victim's GPUs leave its project now, not at the next pass: the
 * candidates left shrink to what the project still holds, so the next
 * victim Slurm takes (for this preemptor or another) cannot take it below
 * its floor.
 */
static void _take_gpus_from_project(job_record_t *job_ptr)
{
	gq_state_lock();
	gq_state_job_gone(job_ptr->job_id);
	gq_state_unlock();
}

/*
 * Slurm asks a victim's grace time once, right before it preempts it
 * (PREEMPT_DATA_GRACE_TIME): the victim is taken there.  The reclaim
 * noted (_note_reclaim), the batch script warned when it has a grace
 * time, its GPUs taken from its project; its grace time returned.
 */
static uint32_t _take_victim(job_record_t *job_ptr)
{
	int grace = _grace_of(job_ptr);

	_note_reclaim(job_ptr, grace);
	if (grace)
		_warn_batch_script(job_ptr);
	_take_gpus_from_project(job_ptr);
	return grace;
}

GQ_PREEMPT_DATA_ENTRIES(_enabled, _mode, _prio, _take_victim)
