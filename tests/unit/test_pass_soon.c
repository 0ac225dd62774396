/*
 * test_pass_soon.c - a submit or a job's end brings the next pass sooner
 * only while the pass keeps a job back (a hold, or an array throttled
 * below what Slurm alone would start), a pending job is blocked (the idle
 * GPUs cannot start it), or a job needs victims (core/pass_soon.h).
 */
#include <check.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/pass_soon.h"
#include "core/victim_search.h"
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

/*
 * team-a (quota 2) and team-b (quota 2), two nodes of 2 GPUs.  team-a
 * runs 2, team-b runs 1, and team-a pends job 10 (1 GPU), over its quota
 * (2 + 1 > 2), not held.
 * - node 1 has 1 idle GPU: job 10 fits, not blocked: no pass sooner.
 * - team-b runs 2, no GPU idle: job 10 is blocked.  A job's end may
 *   take team-a under its quota and let job 10 reclaim: a pass sooner.
 * - job 10 asks 2 GPUs with 1 idle: blocked too.
 */
/* The pass above: team-b runs `b` GPUs, node 1 has `idle` GPUs idle, and
 * job 10 asks `gpus`. */
static void blocked_pass(gq_view_t *v, uint32_t b, uint32_t idle,
			 uint32_t gpus)
{
	two_nodes(v, 4, 0, idle);
	run(v, 1, "team-a", 2, 10);
	run(v, 2, "team-b", b, 10);
	pend(v, 10, "team-a", gpus, 50);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(!gq_job_kept_back(gq_view_job(v, 10)));
}

START_TEST(a_blocked_job_brings_a_pass)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);

	blocked_pass(v, 1, 1, 1);
	ck_assert(!gq_view_blocked(v));
	blocked_pass(v, 2, 0, 1);
	ck_assert(!gq_job_may_reclaim(gq_view_job(v, 10)));
	ck_assert(gq_view_blocked(v));
	blocked_pass(v, 1, 1, 2);
	ck_assert(gq_view_blocked(v));
	gq_view_free(v);
}
END_TEST

/* team-a (quota 4, limit 4), team-b (quota 4), team-c (quota 0), on two
 * nodes of 4 GPUs */
static const char *limited =
	"{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 4,"
	" \"gpu_limit\": 4}, {\"name\": \"team-b\", \"gpu_quota\": 4},"
	" {\"name\": \"team-c\", \"gpu_quota\": 0}]}";

/* Compute the next view and publish it, as a pass does. */
static void publish(void)
{
	gq_pools_t *next = gq_state_next();

	ck_assert_int_eq(gq_view_compute(next->view[0]), 0);
	next->soon = gq_pools_pass_soon(next);
	gq_state_publish();
}

/* A pass on a full cluster (team-a 4 GPUs on node 0, team-c 4 on node 1,
 * nothing pending): nothing brings a pass sooner. */
static void publish_full(void)
{
	gq_view_t *v = gq_state_next()->view[0];

	two_nodes(v, 8, 0, 0);
	run(v, 1, "team-a", 4, 10);
	run(v, 2, "team-c", 4, 10);
	publish();
	ck_assert(!gq_state_pass_soon());
}

/* priority_p_set adds job `id` (gpus, submitted at 100) of `acct` to the
 * published view, as the state hears of it. */
static const gq_job_t *add_late(uint32_t id, uint32_t gpus, const char *acct)
{
	gq_job_in_t late = pending(id, gpus, 100);
	const gq_job_t *job = gq_view_add_late(gq_state_view()->view[0], acct,
					       &late);

	ck_assert_ptr_nonnull(job);
	gq_state_job_added(id);
	return job;
}

/*
 * The state's answer: soon before the first pass; not after a pass that
 * keeps nothing back and blocks nothing (team-a runs 2 on node 0, pends
 * job 10 of 1 GPU: 3 <= 4, and node 1 has 4 idle); soon once
 * priority_p_set adds job 11 (2 GPUs: 3 + 2 = 5 > 4, held); not after
 * the next pass (team-a runs 4 on node 0, team-c 4 on node 1, nothing
 * pends); soon again once it adds team-b's job 12 (1 GPU, in quota, no
 * GPU idle): it needs victims, so patience and room are decided first.
 * The same pass again, and team-c's job 13 (1 GPU, over quota, not held)
 * comes: it is blocked, and a job's end may let it reclaim: soon.
 */
START_TEST(state_follows_view_and_adds)
{
	char err[GQ_ERR_MAX], *f;
	gq_view_t *v;

	gq_state_lock();
	f = write_temp(limited);
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	ck_assert(gq_state_pass_soon());	/* no pass yet */
	v = gq_state_next()->view[0];
	two_nodes(v, 8, 2, 4);
	run(v, 1, "team-a", 2, 10);
	pend(v, 10, "team-a", 1, 50);
	publish();
	ck_assert(!gq_state_pass_soon());
	ck_assert_int_eq(add_late(11, 2, "team-a")->hold, GQ_HOLD_LIMIT);
	ck_assert(gq_state_pass_soon());

	publish_full();
	ck_assert(gq_job_may_reclaim(add_late(12, 1, "team-b")));
	ck_assert(gq_state_pass_soon());

	publish_full();
	ck_assert(!gq_job_may_reclaim(add_late(13, 1, "team-c")));
	ck_assert_int_eq(gq_view_job(gq_state_view()->view[0], 13)->hold,
			 GQ_HOLD_NONE);
	ck_assert(gq_state_pass_soon());
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
	tcase_add_test(tc, a_blocked_job_brings_a_pass);
	tcase_add_test(tc, state_follows_view_and_adds);
	suite_add_tcase(s, tc);
	return s;
}
