/*
 * test_coming_free.c - GPUs coming free: a preemptor that fits on the idle
 * GPUs of completing nodes waits for them (at most GQ_COMING_FREE_WAIT s)
 * instead of taking victims elsewhere.
 */
#include <check.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/coming_free.h"
#include "state/state.h"
#include "helpers.h"

/*
 * Completing nodes n0 (2 idle), n1 (1), n2 (4).
 * - 1 GPU per node on 1 node: n0 has 2 >= 1: fits.
 * - 4 per node on 1 node: n2: fits; on 2 nodes: only n2 has 4: no.
 * - 2 per node on 2 nodes: n0 and n2: fits; on 3: n1 has 1 < 2: no.
 * - no per-node request, 4 GPUs on 1 node: n2 (4): fits; 5 on 1: no;
 *   5 on 2 nodes: the 2 largest are 4 + 2 = 6 >= 5: fits; 7 on 3 nodes:
 *   4 + 2 + 1 = 7: fits; 8 on 3: no; 1 on 4 nodes: only 3 nodes: no.
 * - nodes 0 is taken as 1.  A job of no GPUs waits for nothing.
 */
START_TEST(fits_on_idle_gpus)
{
	gq_node_idle_t n[] = { { 0, 2 }, { 1, 1 }, { 2, 4 } };

	ck_assert(gq_fits_idle(1, 1, 1, n, 3));
	ck_assert(gq_fits_idle(4, 4, 1, n, 3));
	ck_assert(!gq_fits_idle(8, 4, 2, n, 3));
	ck_assert(gq_fits_idle(4, 2, 2, n, 3));
	ck_assert(!gq_fits_idle(6, 2, 3, n, 3));
	ck_assert(gq_fits_idle(4, 0, 1, n, 3));
	ck_assert(!gq_fits_idle(5, 0, 1, n, 3));
	ck_assert(gq_fits_idle(5, 0, 2, n, 3));
	ck_assert(gq_fits_idle(7, 0, 3, n, 3));
	ck_assert(!gq_fits_idle(8, 0, 3, n, 3));
	ck_assert(!gq_fits_idle(1, 0, 4, n, 3));
	ck_assert(gq_fits_idle(2, 2, 0, n, 3));
	ck_assert(!gq_fits_idle(0, 0, 1, n, 3));
	ck_assert(!gq_fits_idle(1, 1, 1, n, 0));
	/* ties among the largest: 2 + 2 on two nodes */
	gq_node_idle_t t[] = { { 0, 2 }, { 1, 2 }, { 2, 1 } };
	ck_assert(gq_fits_idle(4, 0, 2, t, 3));
	ck_assert(!gq_fits_idle(5, 0, 2, t, 3));
	ck_assert(gq_fits_idle(5, 0, 3, t, 3));
}
END_TEST

/*
 * The preemptor's shape and node group come from the published view.
 * team-a (q 2) has job 10 pending: 2 GPUs on 1 node, node group 1 (nodes
 * 1 and 2 of 0..2).  Completing: node 0 with 4 idle (not its group), node
 * 1 with 1: it does not fit (node 0 is not its, node 1 too small).  Node 2
 * completing with 2 idle: it fits.  A running job, or one in no view:
 * nothing to wait for.
 */
START_TEST(fits_within_its_node_group)
{
	char *f = write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 2}]}");
	char err[GQ_ERR_MAX];
	gq_job_in_t a = shaped(pending(10, 2, 50), 2, 1);
	gq_view_t *v;

	gq_state_lock();
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	v = gq_state_next()->view[0];
	gq_view_begin(v, 8, 100);
	ck_assert_int_eq(gq_view_set_nodes(v, 3), 0);
	ck_assert_int_eq(gq_view_set_groups(v, 1), 0);
	ck_assert_int_eq(gq_view_node_group(v, 1, 1), 0);
	ck_assert_int_eq(gq_view_node_group(v, 2, 1), 0);
	a.node_group = 1;
	add(v, "team-a", a);
	run(v, 11, "team-a", 1, 10);
	ck_assert_int_eq(gq_view_compute(v), 0);
	gq_state_publish();

	gq_node_idle_t one[] = { { 0, 4 }, { 1, 1 } };
	ck_assert(!gq_pools_fits_idle(gq_state()->view, 10, one, 2));
	gq_node_idle_t two[] = { { 0, 4 }, { 1, 1 }, { 2, 2 } };
	ck_assert(gq_pools_fits_idle(gq_state()->view, 10, two, 3));
	ck_assert_int_eq(two[0].node, 1);	/* compacted to its nodes */
	gq_node_idle_t again[] = { { 2, 2 } };
	ck_assert(!gq_pools_fits_idle(gq_state()->view, 11, again, 1));
	ck_assert(!gq_pools_fits_idle(gq_state()->view, 99, again, 1));
	gq_state_clear();
	gq_state_unlock();
	unlink(f);
	free(f);
}
END_TEST

/*
 * The wait is bounded: job 10 fits at 100 and waits until 100 + 10 (not
 * at 110); a call where it does not fit (105) starts the clock again, so
 * it waits from 106 to 115.  Another preemptor has its own clock.
 */
START_TEST(wait_is_bounded)
{
	gq_state_lock();
	ck_assert(gq_state_wait_coming_free(10, true, 100));
	ck_assert(gq_state_wait_coming_free(10, true, 104));
	ck_assert(!gq_state_wait_coming_free(10, false, 105));
	ck_assert(gq_state_wait_coming_free(10, true, 106));
	ck_assert(gq_state_wait_coming_free(20, true, 114));
	ck_assert(gq_state_wait_coming_free(10, true, 115));
	ck_assert(!gq_state_wait_coming_free(10, true, 106 + GQ_COMING_FREE_WAIT));
	ck_assert(gq_state_wait_coming_free(20, true, 114 + GQ_COMING_FREE_WAIT - 1));
	ck_assert(!gq_state_wait_coming_free(20, true, 114 + GQ_COMING_FREE_WAIT));
	ck_assert_int_eq(GQ_COMING_FREE_WAIT, 10);
	gq_state_clear();
	gq_state_unlock();
}
END_TEST

/*
 * A clock stepped back an hour restarts the wait from the step: job 10
 * fits at 100000 and waits; at 100005 - 3600 = 96405 it waits again from
 * 96405, until 96405 + GQ_COMING_FREE_WAIT (not until the clock is back
 * at 100010).
 */
START_TEST(wait_survives_a_clock_step)
{
	gq_state_lock();
	ck_assert(gq_state_wait_coming_free(10, true, 100000));
	ck_assert(gq_state_wait_coming_free(10, true, 96405));
	ck_assert(gq_state_wait_coming_free(10, true,
					    96405 + GQ_COMING_FREE_WAIT - 1));
	ck_assert(!gq_state_wait_coming_free(10, true,
					     96405 + GQ_COMING_FREE_WAIT));
	gq_state_clear();
	gq_state_unlock();
}
END_TEST

Suite *coming_free_suite(void)
{
	Suite *s = suite_create("coming_free");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, fits_on_idle_gpus);
	tcase_add_test(tc, fits_within_its_node_group);
	tcase_add_test(tc, wait_is_bounded);
	tcase_add_test(tc, wait_survives_a_clock_step);
	suite_add_tcase(s, tc);
	return s;
}
