/*
 * test_victim_search.c - Slurm looks for victims only while a job that may
 * reclaim cannot start on idle GPUs, or has waited GQ_SEARCH_AFTER
 * seconds (core/victim_search.h).
 */
#include <check.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/victim_search.h"
#include "state/state.h"
#include "helpers.h"

/* team-a (quota 4) and team-b (quota 4); 8 GPUs on two nodes of 4 */
static const char *two_teams =
	"{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 4},"
	" {\"name\": \"team-b\", \"gpu_quota\": 4}]}";

/* The state locked and two_teams loaded: its next view. */
static gq_view_t *loaded_view(char **file)
{
	char err[GQ_ERR_MAX];

	gq_state_lock();
	*file = write_temp(two_teams);
	ck_assert_int_eq(gq_state_load(*file, err, sizeof(err)), 0);
	return gq_state_next()->view[0];
}

static void done(char *file)
{
	gq_state_clear();
	gq_state_unlock();
	unlink(file);
	free(file);
}

/* Does job id want victims, alone of the jobs added since the pass? */
static bool wants(const gq_view_t *v, uint32_t id)
{
	uint64_t late = 0;

	return gq_view_job_wants_victims(v, id, &late);
}

/* Two nodes with `free0` and `free1` idle GPUs of 8, at time 100. */
static void begin(gq_view_t *v, uint32_t free0, uint32_t free1)
{
	two_nodes(v, 8, free0, free1);
}

/*
 * team-b runs 3 GPUs on node 0 and 2 on node 1: idle 1 and 2.  team-a
 * (in quota) submits at 99:
 * - job 10, 1 GPU: node 1 has 2 idle: it fits, no search.
 * - job 11, 2 GPUs on one node: node 1 has 2: fits; no search.
 * - job 12, 3 per node on one node: no node has 3 idle: search.
 */
START_TEST(search_only_when_idle_gpus_do_not_fit)
{
	char *f;
	gq_view_t *v;

	v = loaded_view(&f);
	begin(v, 1, 2);
	run(v, 20, "team-b", 3, 50);
	run(v, 21, "team-b", 2, 50);
	pend(v, 10, "team-a", 1, 99);
	add(v, "team-a", shaped(pending(11, 2, 99), 2, 1));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(gq_job_may_reclaim(gq_view_job(v, 10)));
	ck_assert(gq_job_may_reclaim(gq_view_job(v, 11)));
	ck_assert(!wants(v, 10));
	ck_assert(!wants(v, 11));
	ck_assert(!gq_view_wants_victims(v));

	begin(v, 1, 2);
	run(v, 20, "team-b", 3, 50);
	run(v, 21, "team-b", 2, 50);
	pend(v, 10, "team-a", 1, 99);
	add(v, "team-a", shaped(pending(12, 3, 99), 3, 1));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(!wants(v, 10));
	ck_assert(wants(v, 12));
	ck_assert(gq_view_wants_victims(v));
	done(f);
}
END_TEST

/*
 * Idle 1 and 2 as above, node 1 closed (draining): only node 0's 1 GPU
 * is open.  Job 10 (1 GPU) fits; job 11 (2 GPUs) does not: search.  A
 * job that fits but was submitted at 95, 5 s = GQ_SEARCH_AFTER before
 * now (100): search (something else keeps it from the idle GPU); at 96
 * (4 s): none.
 */
START_TEST(closed_nodes_and_old_jobs)
{
	char *f;
	gq_view_t *v;

	ck_assert_int_eq(GQ_SEARCH_AFTER, 5);
	v = loaded_view(&f);
	begin(v, 1, 2);
	gq_view_close_node(v, 1);
	run(v, 20, "team-b", 5, 50);
	pend(v, 10, "team-a", 1, 99);
	pend(v, 11, "team-a", 2, 99);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(!wants(v, 10));
	ck_assert(wants(v, 11));

	begin(v, 1, 2);
	run(v, 20, "team-b", 5, 50);
	pend(v, 10, "team-a", 1, 96);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(!gq_view_wants_victims(v));
	begin(v, 1, 2);
	run(v, 20, "team-b", 5, 50);
	pend(v, 10, "team-a", 1, 95);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(gq_view_wants_victims(v));
	done(f);
}
END_TEST

/*
 * Without placement (no nodes given) gpuquota cannot tell: job 10 of
 * team-a (in quota, may reclaim) searches.  A view with no job that may
 * reclaim (running jobs only) does not; neither does a running job, nor
 * one the view does not hold.
 */
START_TEST(no_placement_searches_for_reclaimers)
{
	char *f;
	gq_view_t *v;

	v = loaded_view(&f);
	gq_view_begin(v, 8, 100);
	run(v, 20, "team-b", 4, 50);
	pend(v, 10, "team-a", 1, 99);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(gq_view_wants_victims(v));

	gq_view_begin(v, 8, 100);
	run(v, 20, "team-b", 4, 50);
	run(v, 21, "team-a", 4, 50);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(!gq_view_wants_victims(v));
	ck_assert(!wants(v, 21));
	ck_assert(!wants(v, 99));
	done(f);
}
END_TEST

/*
 * Jobs added after the pass take the idle GPUs first.  Idle 1 and 2
 * (3 in all).  Added in turn: job 10 (1 GPU): 0 + 1 <= 3, fits, 1 taken;
 * job 11 (2 GPUs): 1 + 2 <= 3, fits, 3 taken; job 13 (1 GPU): 3 + 1 > 3:
 * victims.  Each alone would fit.
 */
START_TEST(late_jobs_take_idle_gpus_first)
{
	char *f;
	gq_view_t *v;
	uint64_t late = 0;

	v = loaded_view(&f);
	begin(v, 1, 2);
	run(v, 20, "team-b", 5, 50);
	pend(v, 10, "team-a", 1, 99);
	pend(v, 11, "team-a", 2, 99);
	pend(v, 13, "team-a", 1, 99);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(!gq_view_job_wants_victims(v, 10, &late));
	ck_assert_uint_eq(late, 1);
	ck_assert(!gq_view_job_wants_victims(v, 11, &late));
	ck_assert_uint_eq(late, 3);
	ck_assert(gq_view_job_wants_victims(v, 13, &late));
	ck_assert(!wants(v, 13));
	done(f);
}
END_TEST

/*
 * The state's flag follows the published view and the jobs added to it.
 * The pass computed wants_victims false (job 10 fits node 1): published,
 * the flag is false.  priority_p_set then adds job 12 (3 per node, fits
 * nowhere): gq_state_job_added sets it.  The next view (nothing pending)
 * clears it.
 */
START_TEST(state_flag_follows_view_and_adds)
{
	char *f;
	gq_view_t *v;
	gq_job_in_t late = shaped(pending(12, 3, 100), 3, 1);

	v = loaded_view(&f);
	begin(v, 1, 2);
	run(v, 20, "team-b", 5, 50);
	pend(v, 10, "team-a", 1, 99);
	ck_assert_int_eq(gq_view_compute(v), 0);
	gq_state_next()->wants_victims =
		gq_pools_wants_victims(gq_state_next());
	gq_state_publish();
	ck_assert(!gq_state_victims_wanted());
	ck_assert_ptr_nonnull(gq_view_add_late(gq_state_view()->view[0],
					       "team-a", &late));
	gq_state_job_added(12);
	ck_assert(gq_state_victims_wanted());

	v = gq_state_next()->view[0];
	begin(v, 1, 2);
	run(v, 20, "team-b", 5, 50);
	ck_assert_int_eq(gq_view_compute(v), 0);
	gq_state_next()->wants_victims =
		gq_pools_wants_victims(gq_state_next());
	gq_state_publish();
	ck_assert(!gq_state_victims_wanted());
	done(f);
}
END_TEST

Suite *victim_search_suite(void)
{
	Suite *s = suite_create("victim_search");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, search_only_when_idle_gpus_do_not_fit);
	tcase_add_test(tc, closed_nodes_and_old_jobs);
	tcase_add_test(tc, no_placement_searches_for_reclaimers);
	tcase_add_test(tc, late_jobs_take_idle_gpus_first);
	tcase_add_test(tc, state_flag_follows_view_and_adds);
	suite_add_tcase(s, tc);
	return s;
}
