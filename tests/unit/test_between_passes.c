/*
 * test_between_passes.c - what Slurm does between gpuquota's passes, told
 * to the core: a job's end without notice, a start between a pass's two
 * lock holds, a person's hold on a job gpuquota holds, the slurm.conf
 * wiring that makes it possible, and gpuquota's own writes read back by
 * the next pass, which give every job the same answer again (docs/MODEL.md
 * "Holds", "Reclaim", docs/DEVELOPING.md "A pass in two lock holds").
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "state/state.h"
#include "shared/job_facts.h"
#include "shared/pass_input.h"
#include "shared/wiring.h"
#include "helpers.h"

/*
 * A job ends between passes and Slurm never tells (no
 * AccountingStorageEnforce=limits): preempt/gpuquota takes it out of the
 * view before it offers candidates (gq_view_job_gone).
 * 2 nodes x 2 GPUs.  team-a (q 2) runs a1, a2 on n0 and a3, a4 on n1 (1
 * GPU each, a4 youngest); team-b (q 2) pends b1 (2 GPUs on one node), in
 * quota.  team-a may lose 4 - 2 = 2: a4 and a3 offered.  a1 ends: team-a
 * holds 3 and may lose 1 only.  Slurm would free n1 (a3 and a4) for b1,
 * leaving team-a with a2 alone, 1 < 2; now at most one of them is offered.
 */
START_TEST(natural_end_shrinks_candidates)
{
	gq_project_cfg_t p[2] = { proj("team-a", 2, 1, GQ_NO_LIMIT),
				  proj("team-b", 2, 1, GQ_NO_LIMIT) };
	gq_view_t *v = view_of(p, 2, NULL, 0);
	int offered;

	gq_view_begin(v, 4, 100);
	ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
	for (uint32_t id = 1; id <= 4; id++) {
		run(v, id, "team-a", 1, id);
		ck_assert_int_eq(gq_view_place(v, id, id <= 2 ? 0 : 1, 1), 0);
	}
	add(v, "team-b", shaped(pending(20, 2, 50), 2, 1));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(gq_view_preemptable(v, 3, 20));
	ck_assert(gq_view_preemptable(v, 4, 20));
	gq_view_job_gone(v, 1);		/* a1 ended */
	offered = gq_view_preemptable(v, 3, 20) + gq_view_preemptable(v, 4, 20);
	ck_assert_msg(offered == 1,
		      "after a1's end team-a (3 GPUs, q 2) may lose 1, %d offered",
		      offered);
	gq_view_free(v);
}
END_TEST

static char *limit_config(void)
{
	return write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 2, \"gpu_limit\": 2},"
			  " {\"name\": \"team-x\", \"gpu_quota\": 4}]}");
}

/*
 * One pass's view on a full cluster (team-x runs 4 x 1 GPU): team-a (q 2,
 * L 2) pends K (id 10, requeued: while its begin time is ahead,
 * k_eligible false), J (20) and M (30), 1 GPU each.  With K eligible: K
 * A 1, J A 2, M A 3 > L: M held.  With K in its begin time, K is held in
 * advance (2 + 1 > 2) and J, M are not.
 */
static gq_view_t *limit_pass(bool k_eligible)
{
	gq_view_t *v = gq_state_next()->view[0];
	gq_job_in_t k = pending(10, 1, 10);

	if (!k_eligible) {
		k.state = GQ_JOB_WAITING;
		k.begins_later = true;
	}
	gq_view_begin(v, 4, 100);
	for (uint32_t id = 1; id <= 4; id++)
		run(v, id, "team-x", 1, id);
	add(v, "team-a", k);
	pend(v, 20, "team-a", 1, 20);
	pend(v, 30, "team-a", 1, 30);
	ck_assert_int_eq(gq_view_compute(v), 0);
	return v;
}

/*
 * A start between a pass's two lock holds: the first view (K held, M
 * not) is published; the next pass reads K eligible and plans K's release
 * and M's hold.  Between its holds team-x's job 4 ends and Slurm starts M
 * with the old priority.  Published as planned, K and J would run beside
 * M: 3 > L 2.  The glue tells the state of M's start
 * (gq_write_plan_note_started): the pass publishes nothing and is made again.
 * A start of J, which the pass does not hold, changes nothing it counted
 * (J was counted waiting, and runs within L): that pass is published.
 */
static bool pass_with_start(uint32_t started)
{
	char *f = limit_config();
	char err[GQ_ERR_MAX];
	gq_view_t *v1;
	uint64_t e;
	bool published;

	gq_state_lock();
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	ck_assert_int_eq(gq_view_job(limit_pass(false), 10)->hold,
			 GQ_HOLD_LIMIT);
	gq_state_publish();
	e = gq_state_pass_read();
	v1 = limit_pass(true);
	ck_assert_int_eq(gq_view_job(v1, 10)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(gq_view_job(v1, 30)->hold, GQ_HOLD_LIMIT);
	gq_state_job_gone(4);
	gq_state_job_started(started);
	published = gq_state_pass_write(e, NULL, NULL);
	gq_state_clear();
	gq_state_unlock();
	unlink(f);
	free(f);
	return published;
}

START_TEST(start_of_held_job_between_holds_stales_pass)
{
	ck_assert_msg(!pass_with_start(30),
		      "published after M started: K, J and M may run, team-a 3 > L 2");
	ck_assert(pass_with_start(20));
}
END_TEST

/* xorshift64*, as the randomized test of the core */
static uint64_t brng;

static uint32_t brnd(uint32_t n)
{
	brng ^= brng >> 12;
	brng ^= brng << 25;
	brng ^= brng >> 27;
	return n ? (uint32_t)((brng * 2685821657736338717ULL) >> 33) % n : 0;
}

/* One seeded world: team-a (quota q, limit L) and team-x on 8 GPUs. */
typedef struct {
	int q, l, run_a, run_x, npend;
	bool later[8];		/* in its begin time at the first pass */
} bworld_t;

static gq_view_t *bpass(const bworld_t *w, bool second)
{
	gq_view_t *v = gq_state_next()->view[0];
	uint32_t id = 1;
	int i;

	gq_view_begin(v, 8, 100);
	for (i = 0; i < w->run_a; i++)
		run(v, id++, "team-a", 1, i);
	for (i = 0; i < w->run_x; i++)
		run(v, id++, "team-x", 1, i);
	for (i = 0; i < w->npend; i++) {
		gq_job_in_t in = pending(100 + i, 1, 10 + i);

		if (w->later[i] && !second) {
			in.state = GQ_JOB_WAITING;
			in.begins_later = true;
		}
		add(v, "team-a", in);
	}
	ck_assert_int_eq(gq_view_compute(v), 0);
	return v;
}

/*
 * Starts between a pass's two holds, on seeded worlds: the first pass
 * (V0) is published; the next one (V1) reads, its begin-time waiters now
 * eligible; between its holds Slurm starts any subset of the jobs V0 left
 * unheld (each told: gq_state_job_started).  When V1 is published, what
 * may run after its writes (team-a's running jobs, the started ones, and
 * V1's unheld jobs not started) stays within L; and V1 is refused only
 * when a started job is one it holds.  GQ_SEED=N replays one world.
 */
START_TEST(starts_between_holds_keep_limits)
{
	const char *only = getenv("GQ_SEED");
	uint64_t seed, first = only ? strtoull(only, NULL, 10) : 1;
	uint64_t last = only ? first : 600;

	for (seed = first; seed <= last; seed++) {
		char json[256], err[GQ_ERR_MAX], *f;
		bworld_t w = { 0 };
		bool started[8] = { false }, held_start = false, published;
		gq_view_t *v1;
		uint64_t e;
		int i, may;

		brng = seed * 0x9E3779B97F4A7C15ULL + 1;
		w.q = brnd(3);
		w.l = w.q + brnd(3);
		w.run_a = brnd(w.l + 1);
		w.run_x = brnd(8 - w.run_a);
		w.npend = 1 + brnd(6);
		for (i = 0; i < w.npend; i++)
			w.later[i] = brnd(3) == 0;
		snprintf(json, sizeof(json),
			 "{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": %d, \"gpu_limit\": %d},"
			 " {\"name\": \"team-x\", \"gpu_quota\": 1}]}", w.q, w.l);
		f = write_temp(json);
		gq_state_lock();
		ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
		bpass(&w, false);
		for (i = 0; i < w.npend; i++)	/* Slurm may start V0's unheld */
			started[i] = !gq_view_job(gq_state_next()->view[0],
						  100 + i)->hold && brnd(2);
		gq_state_publish();
		e = gq_state_pass_read();
		v1 = bpass(&w, true);
		for (i = 0; i < w.npend; i++) {
			if (!started[i])
				continue;
			held_start |= gq_view_job(v1, 100 + i)->hold != 0;
			gq_state_job_started(100 + i);
		}
		may = w.run_a;
		for (i = 0; i < w.npend; i++)
			may += started[i] || !gq_view_job(v1, 100 + i)->hold;
		published = gq_state_pass_write(e, NULL, NULL);
		ck_assert_msg(published == !held_start,
			      "seed %llu: published %d with a held job started %d",
			      (unsigned long long)seed, published, held_start);
		ck_assert_msg(!published || may <= w.l,
			      "seed %llu: published, team-a may hold %d > L %d",
			      (unsigned long long)seed, may, w.l);
		gq_state_clear();
		gq_state_unlock();
		unlink(f);
		free(f);
	}
}
END_TEST

/*
 * A person's hold on a job gpuquota holds (scontrol hold: an update to
 * priority 0).  Slurm changes nothing in a record already at priority 0,
 * so job_submit/gpuquota hands the hold over when asked to hold a job
 * gpuquota holds, and only then; afterwards the record (priority 0, set
 * by hand, WAIT_HELD_USER, no text) is a person's hold: not demand.
 */
START_TEST(person_hold_takes_over_gpuquota_hold)
{
	const char *ours = "gpuquota: project team-a would pass its gpu_limit (2 GPUs)";
	gq_job_facts_t f = {
		.id = 7, .job_state = JOB_PENDING, .gpus = 1, .batch = true,
		.requeue = true, .nice = NICE_OFFSET, .priority = 0,
		.reason = WAIT_HELD_USER, .state_desc = NULL,
	};
	gq_job_in_t in;

	ck_assert(gq_facts_hold_handed_over(0, WAIT_HELD, ours, 0));
	/* a release, or a priority set by hand: not a hold */
	ck_assert(!gq_facts_hold_handed_over(0, WAIT_HELD, ours, INFINITE));
	ck_assert(!gq_facts_hold_handed_over(0, WAIT_HELD, ours, 5));
	/* a person's hold already, or no hold: Slurm's own path does it */
	ck_assert(!gq_facts_hold_handed_over(0, WAIT_HELD, NULL, 0));
	ck_assert(!gq_facts_hold_handed_over(0, WAIT_HELD_USER, ours, 0));
	ck_assert(!gq_facts_hold_handed_over(1000, WAIT_NO_REASON, NULL, 0));
	/* gpuquota's hold whose priority Slurm's cycle put back: Slurm's
	 * own hold path (_hold_job_rec) clears our text */
	ck_assert(!gq_facts_hold_handed_over(1000, WAIT_HELD, ours, 0));
	gq_job_input(&f, 100, &in);
	ck_assert(!gq_facts_held_by_us(f.reason, f.state_desc));
	ck_assert_int_eq(in.state, GQ_JOB_WAITING);
	ck_assert(!in.begins_later);
}
END_TEST

/* JobSubmitPlugins as Slurm reads it: comma-separated, with or without
 * the "job_submit/" type, spaces allowed. */
/* One array task (or record) as a pass reads it, through gq_pass_victim. */
static void read_task(uint32_t id, uint32_t array_id, bool running,
		      int64_t start, int64_t now)
{
	gq_job_facts_t f = { .id = id, .array_job_id = array_id,
			     .job_state = running ? JOB_RUNNING : JOB_PENDING,
			     .start_time = start };
	uint32_t pre;
	int64_t since;
	int grace;

	ck_assert_int_eq(gq_pass_victim(&f, NULL, 0, now, false, NULL, -1,
					&pre, &since, &grace), 0);
}

/*
 * An array's task starts under a new id: Slurm preempts for job array
 * 103's next task under its pending record, 103; the reclaim is noted at
 * 100 with a grace time of 60 s (work outside quotas waits up to
 * GQ_RECLAIM_WAIT + 60 s for it).  A pass at
 * 120 reads task 104, which started at 90, before the reclaim: nothing
 * ends.  The pending record 103 itself, and a pending task: nothing.
 * Task 105 started at 100 (the reclaim's second): the reclaim is over
 * (nothing waits for it: its wait is the plain GQ_RECLAIM_WAIT of one
 * not in flight), and the array's next reclaim, at 130, is noted afresh
 * (a new one: true), which task 105, started before it, does not end.
 */
START_TEST(array_task_start_ends_its_reclaim)
{
	gq_state_lock();
	ck_assert(gq_state_note_reclaim(103, 100, 60));
	read_task(104, 103, true, 90, 120);
	read_task(103, 103, false, 0, 120);
	read_task(106, 103, false, 0, 120);
	ck_assert_int_eq(gq_state_reclaim_wait(103), GQ_RECLAIM_WAIT + 60);
	read_task(105, 103, true, 100, 120);
	ck_assert_int_eq(gq_state_reclaim_wait(103), GQ_RECLAIM_WAIT);
	ck_assert(gq_state_note_reclaim(103, 130, 60));
	read_task(105, 103, true, 100, 135);	/* started before: stays */
	ck_assert_int_eq(gq_state_reclaim_wait(103), GQ_RECLAIM_WAIT + 60);
	gq_state_clear();
	gq_state_unlock();
}
END_TEST

START_TEST(wiring_job_submit_lists_gpuquota)
{
	ck_assert(gq_wiring_lists("gpuquota", "gpuquota"));
	ck_assert(gq_wiring_lists("lua, job_submit/gpuquota", "gpuquota"));
	ck_assert(gq_wiring_lists("lua,gpuquota ,all_partitions", "gpuquota"));
	ck_assert(!gq_wiring_lists("lua,gpuquota2", "gpuquota"));
	ck_assert(!gq_wiring_lists("", "gpuquota"));
	ck_assert(!gq_wiring_lists(NULL, "gpuquota"));
	ck_assert_ptr_null(gq_wiring_job_submit("lua,gpuquota"));
	ck_assert_ptr_nonnull(gq_wiring_job_submit("lua"));
	ck_assert_ptr_nonnull(gq_wiring_job_submit(NULL));
}
END_TEST

/*
 * What the glue writes into a pending job's record, fed back as Slurm
 * would show it to the next pass: a hold (priority 0, WAIT_HELD and
 * gpuquota's text), a release (no reason, a priority), and, when Slurm's
 * scheduler `tested` the job since, its own reason: Dependency while it
 * has one, else Priority.  Slurm tests no held job's dependency.
 */
static void _fed_back(gq_job_facts_t *f, bool hold, bool tested)
{
	if (hold) {
		f->priority = 0;
		f->reason = WAIT_HELD;
		f->state_desc = GQ_HOLD_PREFIX " project team-a would pass its gpu_limit";
		return;
	}
	if (gq_facts_held_by_us(f->reason, f->state_desc)) {
		f->priority = 1;
		f->reason = WAIT_NO_REASON;
		f->state_desc = NULL;
	}
	if (tested && f->reason == WAIT_NO_REASON)
		f->reason = f->depends ? WAIT_DEPENDENCY : WAIT_PRIORITY;
}

/* A pending job of one GPU as Slurm's record has it (depends: on another
 * job's end). */
static gq_job_facts_t _pending_facts(uint32_t id, uint32_t gpus, bool depends)
{
	gq_job_facts_t f = { .id = id, .job_state = JOB_PENDING, .gpus = gpus,
			     .batch = true, .requeue = true,
			     .nice = NICE_OFFSET, .priority = 1,
			     .reason = depends ? WAIT_DEPENDENCY : WAIT_PRIORITY,
			     .depends = depends, .submit_time = 50 + id };

	return f;
}

/*
 * One pass over the records `f` (project i % np of `p`), after job 1
 * (team-a, 1 GPU) running: which jobs it holds.
 */
static void _facts_pass(gq_project_cfg_t *p, int np, gq_dept_cfg_t *d,
			int nd, const gq_job_facts_t *f, int n, bool *held)
{
	gq_view_t *v = view_of(p, np, d, nd);
	gq_job_in_t in;
	int i;

	gq_view_begin(v, 8, 100);
	run(v, 1, p[0].accounts[0], 1, 1);
	for (i = 0; i < n; i++) {
		gq_job_input(&f[i], 100, &in);
		add(v, p[i % np].accounts[0], in);
	}
	ck_assert_int_eq(gq_view_compute(v), 0);
	for (i = 0; i < n; i++)
		held[i] = gq_view_job(v, f[i].id)->hold != GQ_HOLD_NONE;
	gq_view_free(v);
}

/*
 * A job's answer is the same pass after pass while nothing about it
 * changes, whatever gpuquota wrote into its record the pass before
 * (docs/MODEL.md "Holds"; the soak's flapping holds of jobs on a
 * dependency).  team-a: q 1, L 2, runs job 1 (1 GPU).  Job 5 (1 GPU)
 * waits on another job's end; job 9 (1 GPU) is eligible.  Pass 1: 9
 * at A = 1 + 1 = 2 <= 2, let through; 5 on top of it, 2 + 1 = 3 > 2:
 * held in advance.  Its hold replaces Slurm's reason Dependency; the
 * next pass still reads it as waiting on its dependency, so 9 is still let
 * through and 5 still held.  (Read as eligible, 5 would come first, at
 * 2, and 9 be held at 3: released, 5 would read as waiting again, and so
 * on, a hold and a release each pass.)  Passes 2 to 6, with and without
 * Slurm's scheduler testing the jobs in between: the same answers.
 */
START_TEST(dependency_answer_stable_over_passes)
{
	gq_project_cfg_t p[1] = { proj("team-a", 1, 1, 2) };
	gq_job_facts_t f[2] = { _pending_facts(5, 1, true),
				_pending_facts(9, 1, false) };
	bool first[2], held[2];
	int pass, i;

	_facts_pass(p, 1, NULL, 0, f, 2, first);
	ck_assert(first[0]);	/* 5 held in advance */
	ck_assert(!first[1]);	/* 9 let through */
	for (pass = 2; pass <= 6; pass++) {
		for (i = 0; i < 2; i++)
			_fed_back(&f[i], first[i], pass % 2);
		_facts_pass(p, 1, NULL, 0, f, 2, held);
		for (i = 0; i < 2; i++)
			ck_assert_msg(held[i] == first[i],
				      "pass %d: job %u %s, pass 1 %s", pass,
				      f[i].id, held[i] ? "held" : "let through",
				      first[i] ? "held" : "let through");
	}
}
END_TEST

/* xorshift32: the property's cases, the same every run */
static uint32_t _next(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/*
 * The property behind the test above, on 300 seeded random cases: a pass
 * over the same records gives every job the same answer after the glue's
 * writes of the pass before are fed back (_fed_back: holds, releases,
 * Slurm's scheduler testing the jobs in between or not).  Three projects
 * (q 0 to 2, L 1 to 4 or none), in department ml (q 3, L 2 to 6) or not;
 * 2 to 9 pending jobs of 1 to 3 GPUs, about a third on a dependency.
 */
START_TEST(answers_stable_with_writes_fed_back)
{
	gq_project_cfg_t p[3] = { proj("team-a", 0, 1, GQ_NO_LIMIT),
				  proj("team-b", 0, 1, GQ_NO_LIMIT),
				  proj("team-c", 0, 1, GQ_NO_LIMIT) };
	gq_dept_cfg_t d[1];
	gq_job_facts_t f[9];
	bool first[9], held[9];
	uint32_t seed = 4242;
	int c, i, k, n, nd;

	for (c = 0; c < 300; c++) {
		nd = _next(&seed) % 2;
		d[0] = dept("ml", 3, 2 + (int)(_next(&seed) % 5));
		for (k = 0; k < 3; k++) {
			uint32_t l = _next(&seed) % 5;

			p[k] = proj(p[k].name, (int)(_next(&seed) % 3), 1,
				    l ? (int)l : GQ_NO_LIMIT);
			p[k].department = nd ? 0 : -1;
		}
		n = 2 + (int)(_next(&seed) % 8);
		for (i = 0; i < n; i++)
			f[i] = _pending_facts(10 + i, 1 + _next(&seed) % 3,
					      _next(&seed) % 3 == 0);
		_facts_pass(p, 3, d, nd, f, n, first);
		for (k = 0; k < 3; k++) {
			for (i = 0; i < n; i++)
				_fed_back(&f[i], first[i], _next(&seed) % 2);
			_facts_pass(p, 3, d, nd, f, n, held);
			for (i = 0; i < n; i++)
				ck_assert_msg(held[i] == first[i],
					      "case %d, pass %d: job %u %s, pass 1 %s",
					      c, k + 2, f[i].id,
					      held[i] ? "held" : "let through",
					      first[i] ? "held" : "let through");
		}
	}
}
END_TEST

Suite *between_passes_suite(void)
{
	Suite *s = suite_create("between_passes");
	TCase *tc = tcase_create("between_passes");

	tcase_add_test(tc, natural_end_shrinks_candidates);
	tcase_add_test(tc, start_of_held_job_between_holds_stales_pass);
	tcase_add_test(tc, starts_between_holds_keep_limits);
	tcase_add_test(tc, person_hold_takes_over_gpuquota_hold);
	tcase_add_test(tc, array_task_start_ends_its_reclaim);
	tcase_add_test(tc, wiring_job_submit_lists_gpuquota);
	tcase_add_test(tc, dependency_answer_stable_over_passes);
	tcase_add_test(tc, answers_stable_with_writes_fed_back);
	/* seeded passes under ASan: seconds on a loaded 2-core machine,
	 * past Check's default of 4 */
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}
