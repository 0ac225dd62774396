/*
 * test_pass_soon.c - a submit or a job's end brings the next pass sooner
 * only while the pass keeps a job back: a hold, or an array throttled
 * below what Slurm alone would start (core/pass_soon.h).
 */
#include <check.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/pass_soon.h"
#include "state/state.h"
#include "helpers.h"

/*
 * team-a (quota 2, limit 3) and team-b (quota 0), 4 GPUs.
 * - team-b runs 1 GPU, team-a pends job 10 (1 GPU): it starts on the idle
 *   GPUs by its band alone; nothing is kept back.
 * - team-a runs 3 (its limit): job 10 would take it to 4 > 3: held
 *   (GQ_HOLD_LIMIT), kept back.
 */
START_TEST(a_hold_keeps_back)
{
	gq_project_cfg_t p[2] = { proj("team-a", 2, 1, 3),
				  proj("team-b", 0, 1, GQ_NO_LIMIT) };
	gq_view_t *v = view_of(p, 2, NULL, 0);

	gq_view_begin(v, 4, 100);
	run(v, 1, "team-b", 1, 10);
	pend(v, 10, "team-a", 1, 50);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 10)->hold, GQ_HOLD_NONE);
	ck_assert(!gq_job_kept_back(gq_view_job(v, 10)));
	ck_assert(!gq_job_kept_back(gq_view_job(v, 1)));
	ck_assert(!gq_view_keeps_back(v));

	gq_view_begin(v, 4, 100);
	run(v, 2, "team-a", 3, 10);
	pend(v, 10, "team-a", 1, 50);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 10)->hold, GQ_HOLD_LIMIT);
	ck_assert(gq_job_kept_back(gq_view_job(v, 10)));
	ck_assert(gq_view_keeps_back(v));
	gq_view_free(v);
}
END_TEST

/*
 * team-a (quota 2) pends an array of 8 x 1 GPU; team-b (quota 0) holds
 * all 4 GPUs.  No GPU is idle: the array is split at its band, 2 tasks
 * in quota (tasks_now 2 < 8): kept back.  With the user's own %2 Slurm
 * starts 2 at most anyway (tasks_now 2 = 2): not kept back.  On an idle
 * cluster (8 GPUs, quota 8) all 8 may start: not kept back.
 */
START_TEST(an_array_throttled_by_gpuquota_keeps_back)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 0, 0);
	gq_job_in_t arr = with_tasks(pending(9, 1, 50), 8);
	uint32_t id;

	for (id = 0; id <= 2; id += 2) {	/* none, %2 */
		arr.tasks_at_once = id;
		gq_view_begin(v, 4, 100);
		run(v, 1, "team-b", 4, 10);
		add(v, "team-a", arr);
		ck_assert_int_eq(gq_view_compute(v), 0);
		ck_assert_uint_eq(gq_view_job(v, 9)->tasks_now, 2);
		ck_assert(gq_view_keeps_back(v) == (id == 0));
	}
	gq_view_free(v);

	v = view2("team-a", 8, "team-b", 0, 0);
	arr.tasks_at_once = 0;
	gq_view_begin(v, 8, 100);
	add(v, "team-a", arr);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_uint_eq(gq_view_job(v, 9)->tasks_now, 8);
	ck_assert(!gq_view_keeps_back(v));
	gq_view_free(v);
}
END_TEST

/* team-a (quota 4, limit 4) and team-b (quota 4) on 8 GPUs */
static const char *limited =
	"{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 4,"
	" \"gpu_limit\": 4}, {\"name\": \"team-b\", \"gpu_quota\": 4}]}";

/* Compute the next view and publish it, as a pass does. */
static void publish(void)
{
	gq_pools_t *next = gq_state_next();

	ck_assert_int_eq(gq_view_compute(next->view[0]), 0);
	next->keeps_back = gq_pools_keep_back(next);
	gq_state_publish();
}

/*
 * The state's answer: soon before the first pass; not after a pass that
 * keeps nothing back (team-a runs 2, pends 1: 3 <= 4); soon once
 * priority_p_set adds job 11 (2 GPUs: 3 + 2 = 5 > 4, held); not after
 * the next pass that keeps nothing back.
 */
START_TEST(state_follows_view_and_adds)
{
	char err[GQ_ERR_MAX], *f;
	gq_view_t *v;
	gq_job_in_t late = pending(11, 2, 100);

	gq_state_lock();
	f = write_temp(limited);
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	ck_assert(gq_state_pass_soon());	/* no pass yet */
	v = gq_state_next()->view[0];
	gq_view_begin(v, 8, 100);
	run(v, 1, "team-a", 2, 10);
	pend(v, 10, "team-a", 1, 50);
	publish();
	ck_assert(!gq_state_pass_soon());
	ck_assert_ptr_nonnull(gq_view_add_late(gq_state_view()->view[0],
					       "team-a", &late));
	ck_assert_int_eq(gq_view_job(gq_state_view()->view[0], 11)->hold,
			 GQ_HOLD_LIMIT);
	gq_state_job_added(11);
	ck_assert(gq_state_pass_soon());

	v = gq_state_next()->view[0];
	gq_view_begin(v, 8, 100);
	run(v, 1, "team-a", 2, 10);
	publish();
	ck_assert(!gq_state_pass_soon());
	gq_state_clear();
	gq_state_unlock();
	unlink(f);
	free(f);
}
END_TEST

Suite *pass_soon_suite(void)
{
	Suite *s = suite_create("pass_soon");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, a_hold_keeps_back);
	tcase_add_test(tc, an_array_throttled_by_gpuquota_keeps_back);
	tcase_add_test(tc, state_follows_view_and_adds);
	suite_add_tcase(s, tc);
	return s;
}
