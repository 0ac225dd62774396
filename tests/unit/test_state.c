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
	v = gq_state_next();
	gq_view_begin(v, 8, 100);
	run(v, 1, "team-a", 1, 10);
	run(v, 2, "team-a", 1, 10);
	ck_assert_int_eq(gq_view_compute(v), 0);
	gq_state_publish();
	ck_assert_ptr_eq(st->view, v);

	/* reload: the last good view still answers */
	ck_assert_int_eq(gq_state_load(b, err, sizeof(err)), 0);
	ck_assert_ptr_eq(st->view, v);
	ck_assert_int_eq(gq_view_add_job(st->view, "team-a", &late)->hold,
			 GQ_HOLD_LIMIT);

	/* a bad file changes nothing */
	ck_assert_int_ne(gq_state_load("/nonexistent/gpuquota.json", err,
				       sizeof(err)), 0);
	ck_assert_ptr_eq(st->view, v);

	/* a pass on the new config: its limit applies */
	v = gq_state_next();
	ck_assert_ptr_ne(v, st->view);
	gq_view_begin(v, 8, 200);
	run(v, 1, "team-a", 1, 10);
	run(v, 2, "team-a", 1, 10);
	ck_assert_int_eq(gq_view_compute(v), 0);
	gq_state_publish();
	late.id = 10;
	ck_assert_int_eq(gq_view_add_job(st->view, "team-a", &late)->hold,
			 GQ_HOLD_NONE);
	/* the view of the old config was dropped, not reused */
	ck_assert_ptr_ne(gq_state_next(), v);
	gq_state_clear();
	gq_state_unlock();
	unlink(a);
	unlink(b);
	free(a);
	free(b);
}
END_TEST

Suite *state_suite(void)
{
	Suite *s = suite_create("state");
	TCase *tc = tcase_create("state");

	tcase_add_test(tc, reload_keeps_last_good_view);
	suite_add_tcase(s, tc);
	return s;
}
