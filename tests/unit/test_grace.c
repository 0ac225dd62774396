/*
 * test_grace.c - the warning before requeue (src/core/grace.c;
 * docs/MODEL.md "Warning before requeue", "Ledger"): which grace time a
 * victim gets, when its grace is over (its time up, or it exited by
 * itself; a user's scancel, a time limit or a node failure is not
 * gpuquota's), which kept victims are settled or forgotten, which are kept
 * again after a restart, the end a settled record counts to, and the
 * pause while victims leave.  Slurm's states as the glue reads them
 * (shared/job_facts.c, gq_facts_grace_state).  Numbers worked by hand in
 * each test's comment.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "core/grace.h"
#include "core/pools.h"
#include "shared/job_facts.h"
#include "state/ledger.h"
#include "helpers.h"

static const char cfg_json[] =
	"{\"settings\": {\"grace_time\": 30},"
	" \"projects\": [{\"name\": \"a\", \"gpu_quota\": 1, \"grace_time\": 0},"
	"  {\"name\": \"b\", \"gpu_quota\": 1, \"grace_time\": 120},"
	"  {\"name\": \"c\", \"gpu_quota\": 1}]}";

static gq_config_t *_cfg(void)
{
	char err[GQ_ERR_MAX];
	gq_config_t *cfg = NULL;

	ck_assert_msg(!gq_config_parse(cfg_json, "t.json", &cfg, err,
				       sizeof(err)), "%s", err);
	return cfg;
}

/* a batch victim warned at t=100 with 30 s of grace: Slurm's end_time
 * 100 + 30 = 130 while it runs */
static gq_grace_job_t _warned(gq_grace_state_t state)
{
	gq_grace_job_t j = { .state = state, .batch = true,
			     .preempt_time = 100, .end_time = 130 };

	return j;
}

/*
 * settings.grace_time 30; a's own 0, b's own 120, c none: a 0, b 120, c
 * 30, an account no project lists 30, no project 30; no configuration:
 * the default.  By job: b's job 7 in the view gets 120; job 9, in no
 * view, the settings' 30.
 */
START_TEST(grace_time_of_a_project)
{
	gq_config_t *cfg = _cfg();
	gq_pools_t *p = gq_pools_new(cfg);

	ck_assert_int_eq(gq_grace_of(cfg, "a"), 0);
	ck_assert_int_eq(gq_grace_of(cfg, "b"), 120);
	ck_assert_int_eq(gq_grace_of(cfg, "c"), 30);
	ck_assert_int_eq(gq_grace_of(cfg, "nobody"), 30);
	ck_assert_int_eq(gq_grace_of(cfg, NULL), 30);
	ck_assert_int_eq(gq_grace_of(NULL, "a"), GQ_DEFAULT_GRACE_TIME);

	gq_view_begin(p->view[0], 4, 100);
	run(p->view[0], 7, "b", 1, 10);
	ck_assert_int_eq(gq_view_compute(p->view[0]), 0);
	ck_assert_int_eq(gq_grace_of_job(cfg, p, 7), 120);
	ck_assert_int_eq(gq_grace_of_job(cfg, p, 9), 30);
	gq_pools_free(p);
	gq_config_free(cfg);
}
END_TEST

/*
 * Preempted at t=100, grace 30: its end_time 130.  Still running at 129:
 * in its grace time, not over.  At 130: time up, over; its run ends now
 * (130), whatever its end_time says.  Not warned (preempt_time 0), or an
 * srun job (not batch): never gpuquota's to requeue.
 */
START_TEST(grace_over_when_time_is_up)
{
	gq_grace_job_t j = _warned(GQ_GRACE_RUNNING);

	ck_assert(gq_grace_in(&j));
	ck_assert_int_eq(gq_grace_end(&j, 129), GQ_GRACE_RUNS);
	ck_assert(!gq_grace_over(&j, 129));
	ck_assert_int_eq(gq_grace_end(&j, 130), GQ_GRACE_TIME_UP);
	ck_assert(gq_grace_over(&j, 130));
	ck_assert_int_eq(gq_grace_run_end(&j, 131), 131);

	j.batch = false;
	ck_assert_int_eq(gq_grace_end(&j, 130), GQ_GRACE_NOT_OURS);
	ck_assert(!gq_grace_over(&j, 130));
	j = _warned(GQ_GRACE_RUNNING);
	j.preempt_time = 0;
	ck_assert(!gq_grace_in(&j));
	ck_assert_int_eq(gq_grace_end(&j, 130), GQ_GRACE_NOT_OURS);
}
END_TEST

/*
 * Preempted at t=100, grace 30; it exited COMPLETE at 110 (end_time 110):
 * over, an exit; its run ended at 110 (at now=115).  Exited FAILED: the
 * same.  An exit whose end_time is ahead of now (120 at 115) or unknown
 * (0) ends now, 115.  Still completing: not over yet.
 */
START_TEST(grace_over_when_it_exits)
{
	gq_grace_job_t j = _warned(gq_facts_grace_state(JOB_COMPLETE));

	j.end_time = 110;
	ck_assert(!gq_grace_in(&j));
	ck_assert_int_eq(gq_grace_end(&j, 115), GQ_GRACE_EXIT);
	ck_assert(gq_grace_over(&j, 115));
	ck_assert_int_eq(gq_grace_run_end(&j, 115), 110);
	j.state = gq_facts_grace_state(JOB_FAILED);
	ck_assert_int_eq(gq_grace_end(&j, 115), GQ_GRACE_EXIT);
	j.end_time = 120;
	ck_assert_int_eq(gq_grace_run_end(&j, 115), 115);
	j.end_time = 0;
	ck_assert_int_eq(gq_grace_run_end(&j, 115), 115);

	j.state = gq_facts_grace_state(JOB_COMPLETE | JOB_COMPLETING);
	ck_assert_int_eq(gq_grace_end(&j, 115), GQ_GRACE_NOT_OURS);
	ck_assert(!gq_grace_over(&j, 115));
}
END_TEST

/*
 * Preempted at t=100, grace 30, then cancelled by a user (scancel), ended
 * by its time limit, by a node failure, or suspended: not gpuquota's; at
 * 130 still not over.  Requeued and pending: not over either.
 */
START_TEST(ended_by_someone_else_is_not_gpuquotas)
{
	uint32_t other[] = { JOB_CANCELLED, JOB_TIMEOUT, JOB_NODE_FAIL,
			     JOB_SUSPENDED, JOB_PENDING };
	unsigned i;

	for (i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		gq_grace_job_t j = _warned(gq_facts_grace_state(other[i]));

		ck_assert_int_eq(gq_grace_end(&j, 130), GQ_GRACE_NOT_OURS);
		ck_assert(!gq_grace_over(&j, 130));
	}
}
END_TEST

/* Slurm's job_state as grace reads it: the base state, and the
 * completing flag on a job that no longer runs. */
START_TEST(slurm_states_as_grace_reads_them)
{
	ck_assert_int_eq(gq_facts_grace_state(JOB_RUNNING), GQ_GRACE_RUNNING);
	ck_assert_int_eq(gq_facts_grace_state(JOB_RUNNING | JOB_COMPLETING),
			 GQ_GRACE_RUNNING);
	ck_assert_int_eq(gq_facts_grace_state(JOB_PENDING | JOB_COMPLETING),
			 GQ_GRACE_COMPLETING);
	ck_assert_int_eq(gq_facts_grace_state(JOB_PENDING), GQ_GRACE_PENDING);
	ck_assert_int_eq(gq_facts_grace_state(JOB_COMPLETE), GQ_GRACE_EXITED);
	ck_assert_int_eq(gq_facts_grace_state(JOB_FAILED), GQ_GRACE_EXITED);
	ck_assert_int_eq(gq_facts_grace_state(JOB_CANCELLED), GQ_GRACE_OTHER);
	ck_assert_int_eq(gq_facts_grace_state(JOB_SUSPENDED), GQ_GRACE_OTHER);
}
END_TEST

/*
 * Kept warned at t=100, Slurm's restart count 0 then; looked at, now=150.
 * Requeued by Slurm (count 1): settled; its end the end_time its requeue
 * set (140), else its new submit time (145), else now (150); an end
 * before the decision (90) does not count, nor a submit after now (160).
 * Gone from Slurm, cancelled: forgotten.  Running, completing, pending
 * (count 0) or exited (gpuquota's requeue is due): kept.
 */
START_TEST(kept_victims_settled_forgotten_or_kept)
{
	gq_grace_job_t j = _warned(GQ_GRACE_PENDING);

	j.restarts = 1;
	j.end_time = 140;
	ck_assert_int_eq(gq_grace_look(&j, 0, 150), GQ_GRACE_SETTLE);
	ck_assert_int_eq(gq_grace_requeued_at(&j, 100, 150), 140);
	j.end_time = 0;
	j.submit_time = 145;
	ck_assert_int_eq(gq_grace_requeued_at(&j, 100, 150), 145);
	j.end_time = 90;
	j.submit_time = 160;
	ck_assert_int_eq(gq_grace_requeued_at(&j, 100, 150), 150);

	ck_assert_int_eq(gq_grace_look(NULL, 0, 150), GQ_GRACE_FORGET);
	j = _warned(gq_facts_grace_state(JOB_CANCELLED));
	ck_assert_int_eq(gq_grace_look(&j, 0, 150), GQ_GRACE_FORGET);
	j = _warned(GQ_GRACE_RUNNING);
	ck_assert_int_eq(gq_grace_look(&j, 0, 150), GQ_GRACE_KEEP);
	j.state = GQ_GRACE_COMPLETING;
	ck_assert_int_eq(gq_grace_look(&j, 0, 150), GQ_GRACE_KEEP);
	j.state = GQ_GRACE_PENDING;
	ck_assert_int_eq(gq_grace_look(&j, 0, 150), GQ_GRACE_KEEP);
	j.state = GQ_GRACE_EXITED;
	ck_assert_int_eq(gq_grace_look(&j, 0, 150), GQ_GRACE_KEEP);
	j.batch = false;	/* exited, not gpuquota's to requeue */
	ck_assert_int_eq(gq_grace_look(&j, 0, 150), GQ_GRACE_FORGET);
}
END_TEST

/*
 * Decided at t=100, 2 GPUs, its run from t=40.  Its run ended at 130:
 * the settled record counts to 130, 2 x (130 - 40) = 180 GPU-seconds.
 * An end at 90, before the decision, counts as the decision: 100,
 * 2 x 60 = 120.
 */
START_TEST(settled_record_counts_to_the_end_of_the_run)
{
	gq_ledger_rec_t w = { .at = 100, .end = 100,
			      .stage = GQ_LEDGER_WARNED, .gpus = 2 }, r;

	ck_assert_int_eq(gq_grace_settled_end(100, 130), 130);
	ck_assert_int_eq(gq_grace_settled_end(100, 90), 100);
	gq_ledger_after_grace(&w, 40, 130, &r);
	ck_assert_int_eq(r.stage, GQ_LEDGER_AFTER_GRACE);
	ck_assert_int_eq(r.end, 130);
	ck_assert_uint_eq(r.lost, 180);
	gq_ledger_after_grace(&w, 40, 90, &r);
	ck_assert_int_eq(r.end, 100);
	ck_assert_uint_eq(r.lost, 120);
}
END_TEST

/*
 * After a restart: b's job 7 (2 GPUs, started at t=40) runs, warned at
 * t=100 (Slurm's preempt_time), restart count 1, gpuquota's comment
 * "reclaimed for job 12 of c (fair-share), warned: ...".  Kept again: the
 * decision at 100 for 12 of c, reason fair share, victim b, 2 GPUs, run
 * from 40, count 1.  Not kept: kept already, a comment that names no
 * decision, not running, not warned, not in the view (job 8).
 */
START_TEST(warned_before_a_restart_kept_again)
{
	gq_config_t *cfg = _cfg();
	gq_pools_t *p = gq_pools_new(cfg);
	gq_grace_job_t j = _warned(GQ_GRACE_RUNNING);
	gq_grace_comment_t c;
	gq_grace_kept_t k;
	char text[256];

	gq_view_begin(p->view[0], 4, 100);
	run(p->view[0], 7, "b", 2, 40);
	ck_assert_int_eq(gq_view_compute(p->view[0]), 0);
	snprintf(text, sizeof(text), GQ_RECLAIMED_WARNED, 12, "c",
		 "fair-share");
	ck_assert(gq_facts_warned_comment(text));
	ck_assert(gq_grace_warned_before(&j, gq_facts_warned_comment(text)));
	ck_assert(gq_facts_reclaim_comment(text, &c));
	j.restarts = 1;
	ck_assert(gq_grace_keep_again(7, &j, false, &c, p, &k));
	ck_assert_int_eq(k.at, 100);
	ck_assert_uint_eq(k.preemptor, 12);
	ck_assert_str_eq(k.preemptor_project, "c");
	ck_assert(k.fair_share);
	ck_assert_ptr_null(k.pool);
	ck_assert_uint_eq(k.victim, 7);
	ck_assert_str_eq(k.victim_project, "b");
	ck_assert_uint_eq(k.gpus, 2);
	ck_assert_int_eq(k.start, 40);
	ck_assert_uint_eq(k.restarts, 1);
	ck_assert(!k.moved);
	/* a moved job's comment (docs/MODEL.md "Moves"): a move again */
	snprintf(text, sizeof(text), GQ_RECLAIMED_WARNED, 12, "c",
		 "moved: that job needs this node whole; this one restarts on n2, where GPUs are idle or borrowed");
	ck_assert(gq_facts_reclaim_comment(text, &c));
	ck_assert(gq_grace_keep_again(7, &j, false, &c, p, &k));
	ck_assert(k.moved && !k.fair_share);

	ck_assert(!gq_grace_keep_again(7, &j, true, &c, p, &k));
	ck_assert(!gq_grace_keep_again(7, &j, false, NULL, p, &k));
	ck_assert(!gq_grace_keep_again(8, &j, false, &c, p, &k));
	ck_assert(!gq_grace_keep_again(7, NULL, false, &c, p, &k));
	ck_assert(!gq_facts_warned_comment(NULL));
	ck_assert(!gq_facts_reclaim_comment("site note", &c));
	j.state = GQ_GRACE_COMPLETING;
	ck_assert(!gq_grace_keep_again(7, &j, false, &c, p, &k));
	ck_assert(!gq_grace_warned_before(&j, true));
	j = _warned(GQ_GRACE_RUNNING);
	j.preempt_time = 0;
	ck_assert(!gq_grace_keep_again(7, &j, false, &c, p, &k));
	ck_assert(!gq_grace_warned_before(&j, true));
	gq_pools_free(p);
	gq_config_free(cfg);
}
END_TEST

/*
 * A reclaim's victims warned for 30 s, Slurm's settling 10 s: no new
 * victims for its preemptor until 30 + 10 = 40 s passed (39: pausing; 40:
 * not), nor once all its victims left, nor without a grace time.
 */
START_TEST(pause_while_victims_leave)
{
	ck_assert(gq_grace_pausing(30, false, 39, 10));
	ck_assert(!gq_grace_pausing(30, false, 40, 10));
	ck_assert(!gq_grace_pausing(30, true, 5, 10));
	ck_assert(!gq_grace_pausing(0, false, 5, 10));
}
END_TEST

Suite *grace_suite(void)
{
	Suite *s = suite_create("grace");
	TCase *tc = tcase_create("which grace time");
	TCase *over = tcase_create("when the grace is over");
	TCase *kept = tcase_create("warned victims kept, settled, forgotten");

	tcase_add_test(tc, grace_time_of_a_project);
	tcase_add_test(tc, pause_while_victims_leave);
	suite_add_tcase(s, tc);
	tcase_add_test(over, grace_over_when_time_is_up);
	tcase_add_test(over, grace_over_when_it_exits);
	tcase_add_test(over, ended_by_someone_else_is_not_gpuquotas);
	tcase_add_test(over, slurm_states_as_grace_reads_them);
	suite_add_tcase(s, over);
	tcase_add_test(kept, kept_victims_settled_forgotten_or_kept);
	tcase_add_test(kept, settled_record_counts_to_the_end_of_the_run);
	tcase_add_test(kept, warned_before_a_restart_kept_again);
	suite_add_tcase(s, kept);
	return s;
}
