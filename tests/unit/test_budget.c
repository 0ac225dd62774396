/*
 * test_budget.c - The requeue budget (docs/MODEL.md "Requeue budget"): a
 * project that lost its budget of work to requeues in the window borrows
 * no more (its work beyond quota waits, held), and fair-share reclaim
 * takes none of its jobs; quota reclaim still does.  The losses are
 * counted from the ledger's records by project name, in every pool
 * (src/state/losses.c), from Slurm's facts only: a job's own checkpoint
 * note never lowers them.  The losses kept past their cap are the
 * newest.  Numbers worked by hand in each test's comment.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "core/pools.h"
#include "core/view.h"
#include "shared/job_facts.h"
#include "state/losses.h"
#include "helpers.h"

/* a: quota qa, budget 10 GPU-hours; b: quota qb, no budget */
static gq_view_t *_budget_view(int qa, int qb)
{
	gq_project_cfg_t p[2] = { proj("a", qa, 1, GQ_NO_LIMIT),
				  proj("b", qb, 1, GQ_NO_LIMIT) };

	p[0].requeue_budget = 10;
	return view_of(p, 2, NULL, 0);
}

/* a runs 1, 2 and pends 3 (1 GPU each) */
static void _a_borrows(gq_view_t *v)
{
	run(v, 1, "a", 1, 1);
	run(v, 2, "a", 1, 2);
	pend(v, 3, "a", 1, 30);
	ck_assert_int_eq(gq_view_compute(v), 0);
}

/* a runs 1-3, b runs 4 and pends 5 (1 GPU each) */
static void _a_lends(gq_view_t *v)
{
	for (uint32_t id = 1; id <= 3; id++)
		run(v, id, "a", 1, id);
	run(v, 4, "b", 1, 4);
	pend(v, 5, "b", 1, 50);
	ck_assert_int_eq(gq_view_compute(v), 0);
}

/*
 * C = 8, a (q 2) runs 2 and pends a3 (1 GPU): A = 3 > q, and 6 GPUs are
 * idle: within its fair share, it would borrow.  a lost 12 GPU-hours >=
 * its budget of 10: a3 waits, held for the budget.  a2b (pending when a
 * runs 1) fits in its quota (A = 2 <= 2): not held.  Lost 8 < 10: a3
 * borrows.
 */
START_TEST(budget_stops_borrowing)
{
	gq_view_t *v = _budget_view(2, 6);

	gq_view_begin(v, 8, 100);
	gq_view_set_lost(v, gq_view_find_project(v, "a"), 12);
	_a_borrows(v);
	ck_assert_int_eq(gq_view_job(v, 3)->hold, GQ_HOLD_BUDGET);

	gq_view_begin(v, 8, 100);
	run(v, 1, "a", 1, 1);
	pend(v, 4, "a", 1, 40);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 4)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(gq_view_job(v, 4)->band, GQ_BAND_IN_QUOTA);

	gq_view_begin(v, 8, 100);
	gq_view_set_lost(v, gq_view_find_project(v, "a"), 8);
	_a_borrows(v);
	ck_assert_int_eq(gq_view_job(v, 3)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(gq_view_job(v, 3)->band, GQ_BAND_FAIR_SHARE);
	gq_view_free(v);
}
END_TEST

/*
 * Fair-share reclaim spares a project past its budget: C = 4, a (q 1)
 * runs 3, b (q 1) runs 1 and pends b2 (1 GPU).  D_a = 3, D_b = 2:
 * deserved 1, 1; surplus 2, one each: f_a = f_b = 2.  b2: A_b = 2 <= f_b,
 * fair-share band; a may lose a - max(q, f) = 1.  Past its budget a loses
 * none to it.  Quota reclaim still takes from it: with q_b = 2, b2 is in
 * quota and a may lose a - q_a = 2.
 */
START_TEST(budget_spares_fair_share_reclaim_only)
{
	gq_view_t *v = _budget_view(1, 1);
	int n = 0;

	gq_view_begin(v, 4, 100);
	_a_lends(v);
	ck_assert_int_eq(gq_view_job(v, 5)->band, GQ_BAND_FAIR_SHARE);
	for (uint32_t id = 1; id <= 3; id++)
		n += gq_view_preemptable(v, id, 5);
	ck_assert_int_eq(n, 1);

	gq_view_begin(v, 4, 100);
	gq_view_set_lost(v, gq_view_find_project(v, "a"), 10);
	_a_lends(v);
	for (uint32_t id = 1; id <= 3; id++)
		ck_assert(!gq_view_preemptable(v, id, 5));
	gq_view_free(v);

	v = _budget_view(1, 2);
	gq_view_begin(v, 4, 100);
	gq_view_set_lost(v, gq_view_find_project(v, "a"), 10);
	_a_lends(v);
	ck_assert_int_eq(gq_view_job(v, 5)->band, GQ_BAND_IN_QUOTA);
	n = 0;
	for (uint32_t id = 1; id <= 3; id++)
		n += gq_view_preemptable(v, id, 5);
	ck_assert_int_eq(n, 2);
	gq_view_free(v);
}
END_TEST

static gq_ledger_rec_t _rec(int64_t at, const char *victim_project,
			    uint64_t lost)
{
	gq_ledger_rec_t r;

	memset(&r, 0, sizeof(r));
	r.at = at;
	r.gpus = 1;
	r.lost = lost;
	gq_ledger_name(r.victim_project, victim_project);
	return r;
}

/*
 * Losses by project from the ledger's records: a lost 3600 GPU-s at 100
 * and 1800 at 50, b 7200 at 200.  Since 60: a 1 GPU-hour (the one at 50
 * is before), b 2; in both pools (a budget is the project's); c, in no
 * record, 0.  Pruned at 150: only b's.  A record without loss is not
 * kept.
 */
START_TEST(losses_by_project_in_window)
{
	char err[GQ_ERR_MAX];
	gq_config_t *cfg = NULL;
	gq_losses_t l = { 0 };
	gq_ledger_rec_t r[4] = { _rec(50, "a", 1800), _rec(100, "a", 3600),
				 _rec(200, "b", 7200), _rec(210, "a", 0) };
	gq_pools_t *p;
	int i, k;

	ck_assert(!gq_config_parse(
		"{\"pools\": [{\"name\": \"x\", \"partitions\": [\"x\"]},"
		"            {\"name\": \"y\", \"partitions\": [\"y\"]}],"
		" \"projects\": [{\"name\": \"a\", \"gpu_quota\": 1}, {\"name\": \"b\", \"gpu_quota\": 1},"
		"                {\"name\": \"c\", \"gpu_quota\": 1}]}", "t.json", &cfg, err,
		sizeof(err)));
	ck_assert_ptr_nonnull(p = gq_pools_new(cfg));
	gq_config_free(cfg);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(gq_losses_add(&l, &r[i], 0), 0);
	ck_assert_int_eq(l.n, 3);
	ck_assert_int_eq(gq_losses_apply(&l, p, 60), 0);
	for (k = 0; k < 2; k++) {
		gq_view_t *v = p->view[k];

		ck_assert_double_eq_tol(project(v, "a")->lost, 1, 1e-9);
		ck_assert_double_eq_tol(project(v, "b")->lost, 2, 1e-9);
		ck_assert_double_eq_tol(project(v, "c")->lost, 0, 1e-9);
	}
	gq_losses_prune(&l, 150);
	ck_assert_int_eq(l.n, 1);
	ck_assert_int_eq(gq_losses_apply(&l, p, 0), 0);
	ck_assert_double_eq_tol(project(p->view[0], "a")->lost, 0, 1e-9);
	ck_assert_double_eq_tol(project(p->view[0], "b")->lost, 2, 1e-9);
	gq_losses_free(&l);
	gq_pools_free(p);
}
END_TEST

/* the ledger's record of team-a's job `id` (4 GPUs, started an hour
 * before `at`, its comment `comment`) taken at `at` for team-b's 100 + id,
 * made as preempt/gpuquota makes it: Slurm's facts read (gq_job_input),
 * the view computed, gq_ledger_record */
static gq_ledger_rec_t _taken(gq_view_t *v, uint32_t id, int64_t at,
			      const char *comment, uint32_t *saved)
{
	gq_job_facts_t f = { .id = id, .job_state = JOB_RUNNING, .gpus = 4,
			     .batch = true, .requeue = true,
			     .nice = NICE_OFFSET, .start_time = at - 3600,
			     .comment = comment };
	gq_job_in_t in;
	gq_ledger_rec_t r;

	gq_job_input(&f, at, &in);
	*saved = in.saved_secs;
	gq_view_begin(v, 8, at);
	ck_assert_ptr_nonnull(gq_view_add_job(v, "team-a", &in));
	pend(v, 100 + id, "team-b", 2, at - 10);
	ck_assert_int_eq(gq_view_compute(v), 0);
	gq_ledger_record(&r, NULL, v, gq_view_job(v, 100 + id),
			 gq_view_job(v, id), at);
	return r;
}

/*
 * A job's owner cannot lower its project's loss.  team-a (q 2, budget 1
 * GPU-hour, window a day) has five 4-GPU jobs taken, each an hour into its
 * run, at now - 7200 + id x 60: each loses 4 x 3600 = 14 400 GPU-seconds,
 * 5 x 14 400 / 3600 = 20 GPU-hours >= 1.  Then team-a runs 2 (its quota)
 * and submits 51 (1 GPU) on 8 GPUs: A = 3 > q = 2, so 51 would borrow:
 * held for the budget.  The same when each owner wrote
 * `gpuquota-checkpoint=<id>@<the reclaim's time>` just before (saving
 * nothing): the note is read (saved 3600 s into the run: it orders
 * victims inside team-a) but the loss stays 14 400 each, 20 GPU-hours, and
 * 51 is held.
 */
START_TEST(owner_note_does_not_lower_the_budget)
{
	const char *json = "{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 2, \"requeue_budget\": 1},"
			   " {\"name\": \"team-b\", \"gpu_quota\": 2}]}";
	int64_t now = 1800000000;
	char err[GQ_ERR_MAX], note[64];
	gq_config_t *cfg = NULL;
	gq_pools_t *p;
	gq_view_t *v;

	ck_assert(!gq_config_parse(json, "t.json", &cfg, err, sizeof(err)));
	ck_assert_ptr_nonnull(p = gq_pools_new(cfg));
	gq_config_free(cfg);
	v = p->view[0];
	for (int noted = 0; noted <= 1; noted++) {
		gq_losses_t l = { 0 };

		for (uint32_t id = 1; id <= 5; id++) {
			int64_t at = now - 7200 + id * 60;
			uint32_t saved;
			gq_ledger_rec_t r;

			snprintf(note, sizeof(note),
				 "my run gpuquota-checkpoint=%u@%lld", id,
				 (long long)at);
			r = _taken(v, id, at, noted ? note : NULL, &saved);
			ck_assert_uint_eq(saved, noted ? 3600 : 0);
			ck_assert_uint_eq(r.lost, 14400);
			ck_assert_int_eq(gq_losses_add(&l, &r, now - 86400), 0);
		}
		gq_view_begin(v, 8, now);
		run(v, 50, "team-a", 2, now - 10);
		pend(v, 51, "team-a", 1, now - 5);
		ck_assert_int_eq(gq_losses_apply(&l, p, now - 86400), 0);
		ck_assert_int_eq(gq_view_compute(v), 0);
		ck_assert_double_eq_tol(project(v, "team-a")->lost, 20, 1e-9);
		ck_assert_int_eq(gq_view_job(v, 51)->hold, GQ_HOLD_BUDGET);
		gq_losses_free(&l);
	}
	gq_pools_free(p);
}
END_TEST

/*
 * Past the cap the oldest go, one by one, whatever the moves behind:
 * GQ_LOSSES_MAX + 40 000 records (at 1000 + i, lost i + 1; 40 000 passes
 * GQ_LOSSES_MAX / 8 = 18 750 twice, so the buffer's end is reached and
 * the kept ones moved more than once) keep the newest GQ_LOSSES_MAX: the
 * i-th kept is record 40 000 + i.  An after-grace record of the newest
 * victim replaces its loss (5).  Pruned before the last 10, then 100 more
 * added: 110 kept, in order, the last 10 of before first.
 */
START_TEST(losses_past_the_cap_keep_the_newest)
{
	const int extra = 40000, total = GQ_LOSSES_MAX + 40000;
	gq_losses_t l = { 0 };
	gq_ledger_rec_t r = _rec(0, "a", 0);
	int i, rc = 0;

	for (i = 0; i < total; i++) {
		r.at = 1000 + i;
		r.lost = i + 1;
		r.victim = i + 1;
		rc |= gq_losses_add(&l, &r, 0);
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(l.n, GQ_LOSSES_MAX);
	for (i = 0; i < l.n; i++)
		if (l.e[i].at != 1000 + extra + i ||
		    l.e[i].lost != (uint64_t)(extra + i + 1))
			ck_abort_msg("kept %d: at %lld lost %llu", i,
				     (long long)l.e[i].at,
				     (unsigned long long)l.e[i].lost);
	r.stage = GQ_LEDGER_AFTER_GRACE;
	r.lost = 5;
	ck_assert_int_eq(gq_losses_add(&l, &r, 0), 0);
	ck_assert_int_eq(l.n, GQ_LOSSES_MAX);
	ck_assert_uint_eq(l.e[l.n - 1].lost, 5);
	r.stage = GQ_LEDGER_REQUEUED;
	gq_losses_prune(&l, 1000 + total - 10);
	ck_assert_int_eq(l.n, 10);
	for (i = 0; i < 100; i++) {
		r.at = 1000 + total + i;
		r.lost = 1;
		ck_assert_int_eq(gq_losses_add(&l, &r, 0), 0);
	}
	ck_assert_int_eq(l.n, 110);
	for (i = 0; i < l.n; i++)
		ck_assert_int_eq(l.e[i].at, 1000 + total - 10 + i);
	gq_losses_free(&l);
}
END_TEST

/*
 * The clock steps (window 3600 s).  a loses 3600 GPU-s at 10000 (a
 * reading), the pass reads 10060, then the clock steps back an hour:
 * 6500.  The loss keeps its age, 60 s: dated 10000 - (10060 - 6500) =
 * 6440, it leaves the window at 6440 + 3600 = 10040 (counted 1 GPU-hour
 * at 10040, 0 at 10041), not when the clock reaches 13600.  A record a
 * year ahead read at 20000 (a ledger written with the clock ahead) is
 * dated 20000: 1 GPU-hour at 23600, none at 23601.  b's warned loss
 * (1200) moves back with the step; its after-grace record (same victim,
 * preemptor and decision time 10050) still replaces it: 2, not 1202.
 */
START_TEST(losses_keep_their_age_when_the_clock_steps)
{
	gq_losses_t l = { 0 };
	gq_ledger_rec_t a = _rec(10000, "a", 3600), w = _rec(10050, "b", 1200);
	gq_ledger_rec_t g, y = _rec(20000 + 365 * 86400, "a", 3600);

	w.stage = GQ_LEDGER_WARNED;
	w.victim = 7;
	w.preemptor = 12;
	g = w;
	g.stage = GQ_LEDGER_AFTER_GRACE;
	g.lost = 2;
	gq_losses_clock(&l, 10000);
	ck_assert_int_eq(gq_losses_add(&l, &a, 0), 0);
	gq_losses_clock(&l, 10050);
	ck_assert_int_eq(gq_losses_add(&l, &w, 0), 0);
	gq_losses_clock(&l, 10060);
	gq_losses_clock(&l, 6500);
	ck_assert_int_eq(l.n, 2);
	ck_assert_int_eq(l.e[0].at, 6440);
	ck_assert_int_eq(l.e[1].at, 6490);
	ck_assert_int_eq(gq_losses_add(&l, &g, 0), 0);
	ck_assert_int_eq(l.n, 2);
	ck_assert_uint_eq(l.e[1].lost, 2);
	gq_losses_clock(&l, 10040);
	gq_losses_prune(&l, 10040 - 3600);
	ck_assert_int_eq(l.n, 2);
	gq_losses_clock(&l, 10041);
	gq_losses_prune(&l, 10041 - 3600);
	ck_assert_int_eq(l.n, 1);
	ck_assert_uint_eq(l.e[0].lost, 2);
	gq_losses_free(&l);

	/* read back at a start: the record a year ahead */
	ck_assert_int_eq(gq_losses_add(&l, &y, 20000 - 3600), 0);
	gq_losses_clock(&l, 20000);
	ck_assert_int_eq(l.e[0].at, 20000);
	gq_losses_clock(&l, 23600);
	gq_losses_prune(&l, 23600 - 3600);
	ck_assert_int_eq(l.n, 1);
	gq_losses_clock(&l, 23601);
	gq_losses_prune(&l, 23601 - 3600);
	ck_assert_int_eq(l.n, 0);
	gq_losses_free(&l);
}
END_TEST

Suite *budget_suite(void)
{
	Suite *s = suite_create("budget");
	TCase *tc = tcase_create("requeue_budget");

	tcase_add_test(tc, budget_stops_borrowing);
	tcase_add_test(tc, budget_spares_fair_share_reclaim_only);
	tcase_add_test(tc, losses_by_project_in_window);
	tcase_add_test(tc, losses_keep_their_age_when_the_clock_steps);
	tcase_add_test(tc, owner_note_does_not_lower_the_budget);
	tcase_add_test(tc, losses_past_the_cap_keep_the_newest);
	/* 190 000 records under ASan on a busy machine */
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}
