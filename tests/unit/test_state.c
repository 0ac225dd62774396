/*
 * test_state.c - the state both plugins share: answers come from the last
 * good pass, through reloads and failed passes.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/state.h"
#include "helpers.h"


/*
 * team-a q=1 L=2 runs jobs 1 and 2.  A reload (even of a config with a
 * higher limit) must not open a window where a new job is answered from
 * an empty view: until a pass on the new config succeeds, job 9 is held
 * by the last good pass (A = 3 > L = 2).  After that pass, the new limit
 * (4) applies.
 */
START_TEST(reload_keeps_last_good_view)
{
	char *a = write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 1, \"gpu_limit\": 2}]}");
	char *b = write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 1, \"gpu_limit\": 4}]}");
	char err[GQ_ERR_MAX];
	gq_job_in_t late = { .id = 9, .state = GQ_JOB_PENDING, .gpus = 1,
			     .tasks = 1, .requeueable = true };
	gq_state_t *st = gq_state();
	gq_view_t *v;

	gq_state_lock();
	ck_assert_int_eq(gq_state_load(a, err, sizeof(err)), 0);
	ck_assert_ptr_null(st->view);	/* no pass yet: nothing to answer */
	v = gq_state_next()->view[0];
	gq_view_begin(v, 8, 100);
	run(v, 1, "team-a", 1, 10);
	run(v, 2, "team-a", 1, 10);
	ck_assert_int_eq(gq_view_compute(v), 0);
	gq_state_publish();
	ck_assert_ptr_eq(st->view->view[0], v);

	/* reload: the last good view still answers */
	ck_assert_int_eq(gq_state_load(b, err, sizeof(err)), 0);
	ck_assert_ptr_eq(st->view->view[0], v);
	ck_assert_int_eq(gq_view_add_job(st->view->view[0], "team-a", &late)->hold,
			 GQ_HOLD_LIMIT);

	/* a bad file changes nothing */
	ck_assert_int_ne(gq_state_load("/nonexistent/gpuquota.json", err,
				       sizeof(err)), 0);
	ck_assert_ptr_eq(st->view->view[0], v);

	/* a pass on the new config: its limit applies */
	v = gq_state_next()->view[0];
	ck_assert_ptr_ne(v, st->view->view[0]);
	gq_view_begin(v, 8, 200);
	run(v, 1, "team-a", 1, 10);
	run(v, 2, "team-a", 1, 10);
	ck_assert_int_eq(gq_view_compute(v), 0);
	gq_state_publish();
	late.id = 10;
	ck_assert_int_eq(gq_view_add_job(st->view->view[0], "team-a", &late)->hold,
			 GQ_HOLD_NONE);
	/* the view of the old config was dropped, not reused */
	ck_assert_ptr_ne(gq_state_next()->view[0], v);
	gq_state_clear();
	gq_state_unlock();
	unlink(a);
	unlink(b);
	free(a);
	free(b);
}
END_TEST

/*
 * The pass of a cluster of 4 GPUs: team-b (q 0) runs 4 x 1 GPU, team-a
 * (q 2) pends a1 (job 20, 2 GPUs, in quota: it reclaims), team-c (q 0)
 * pends c1 (21, 1 GPU, over), team-d (q 1) pends d1 (22, 1 GPU, in
 * quota).  a1 running instead when a1_runs.
 */
static gq_view_t *reclaim_pass(bool a1_runs)
{
	gq_view_t *v = gq_state_next()->view[0];

	gq_view_begin(v, 4, 100);
	for (uint32_t id = 1; id <= (a1_runs ? 2u : 4u); id++)
		run(v, id, "team-b", 1, id);
	if (a1_runs)
		run(v, 20, "team-a", 2, 90);
	else
		pend(v, 20, "team-a", 2, 20);
	pend(v, 21, "team-c", 1, 21);
	pend(v, 22, "team-d", 1, 22);
	ck_assert_int_eq(gq_view_compute(v), 0);
	return v;
}

/*
 * Freed GPUs are kept for the job they were reclaimed for: while a1's
 * victims leave, c1 (over quota) waits, d1 (in quota) does not, and a job
 * submitted meanwhile outside quota waits too.  Once a1 runs nothing
 * waits.  The wait lasts GQ_RECLAIM_WAIT from a1's first reclaim, and a
 * later reclaim for a1 does not renew it.
 */
START_TEST(freed_gpus_kept_for_preemptor)
{
	char *f = write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 2},"
			     " {\"name\": \"team-b\", \"gpu_quota\": 0},"
			     " {\"name\": \"team-c\", \"gpu_quota\": 0},"
			     " {\"name\": \"team-d\", \"gpu_quota\": 1}]}");
	char err[GQ_ERR_MAX];
	gq_job_in_t late = { .id = 23, .state = GQ_JOB_PENDING, .gpus = 1,
			     .tasks = 1, .requeueable = true };
	gq_view_t *v;

	gq_state_lock();
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	v = reclaim_pass(false);
	ck_assert_int_eq(gq_view_job(v, 20)->band, GQ_BAND_IN_QUOTA);
	ck_assert(gq_view_preemptable(v, 1, 20));
	/* no reclaim in flight: nobody waits */
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 100), 0);
	ck_assert_int_eq(gq_view_job(v, 21)->hold, GQ_HOLD_NONE);

	gq_state_note_reclaim(20, 100, 0);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 101), 1);
	gq_state_publish();
	ck_assert_int_eq(gq_view_job(v, 21)->hold, GQ_HOLD_RECLAIM);
	ck_assert_uint_eq(gq_view_job(v, 21)->waits_for, 20);
	ck_assert_int_eq(gq_view_job(v, 22)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(gq_view_job(v, 20)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(gq_view_add_job(v, "team-c", &late)->hold,
			 GQ_HOLD_RECLAIM);

	/* still pending GQ_RECLAIM_WAIT later: nobody waits any more, and
	 * another reclaim for a1 does not renew it */
	v = reclaim_pass(false);
	gq_state_note_reclaim(20, 100 + GQ_RECLAIM_WAIT, 0);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 100 + GQ_RECLAIM_WAIT), 0);
	ck_assert_int_eq(gq_view_job(v, 21)->hold, GQ_HOLD_NONE);
	gq_state_publish();

	/* a1 runs: its reclaim is over and forgotten */
	v = reclaim_pass(true);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 102), 0);
	ck_assert_int_eq(gq_state()->ninflight, 0);
	ck_assert_int_eq(gq_view_job(v, 21)->hold, GQ_HOLD_NONE);
	gq_state_publish();

	/* a1 pending again, its victims warned 20 s first (grace_time): the
	 * wait is 30 + 20 = 50 s; a later victim's longer grace (25 s)
	 * lengthens it to 55 s, still from the first reclaim at 200 */
	v = reclaim_pass(false);
	ck_assert(gq_state_note_reclaim(20, 200, 20));
	ck_assert_int_eq(gq_state_reclaim_wait(20), 50);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 249), 1);
	ck_assert(!gq_state_note_reclaim(20, 240, 25));
	ck_assert_int_eq(gq_state_reclaim_wait(20), 55);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 254), 1);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 255), 0);
	/* what the next pass expects (gq_view_expect_reclaim_wait) */
	ck_assert(gq_state_reclaim_waiting(NULL, 0, 254));
	ck_assert(!gq_state_reclaim_waiting(NULL, 0, 255));
	ck_assert_int_eq(gq_state_reclaim_wait(99), GQ_RECLAIM_WAIT);
	/* no new victims for a1 while the warned ones leave: 25 s of grace
	 * plus Slurm's own 40 s (KillWait 30 + MessageTimeout 10) */
	ck_assert(gq_state_reclaim_settling(20, 264, 40));
	ck_assert(!gq_state_reclaim_settling(20, 265, 40));
	ck_assert(!gq_state_reclaim_settling(99, 210, 40));
	gq_state_publish();
	gq_state_clear();
	gq_state_unlock();
	unlink(f);
	free(f);
}
END_TEST

Suite *state_suite(void)
{
	Suite *s = suite_create("state");
	TCase *tc = tcase_create("state");

	tcase_add_test(tc, reload_keeps_last_good_view);
	tcase_add_test(tc, freed_gpus_kept_for_preemptor);
	suite_add_tcase(s, tc);
	return s;
}
