/*
 * test_placement.c - a view's nodes and where its running jobs sit
 * (src/core/placement.c): a job's placement entries are consecutive and
 * follow it through the pass, node groups bound the nodes a pending job
 * may use (room only on those), and a node that takes no work is no room.
 * docs/MODEL.md "Reclaim" (Making room) and "Holds" (room wait).
 */
#include <check.h>
#include <stdbool.h>

#include "core/band.h"
#include "core/view.h"
#include "helpers.h"

/*
 * Entries must be consecutive: 2 nodes; x1 (team-a, 2 GPUs) on n0 and n1,
 * then x2 (1 GPU) on n1.  A third entry of x1 after x2's is refused, so
 * are an unknown job (99) and a node out of range (2).  x1 added again
 * keeps its entries.  After the pass (records grouped, moved): x1's
 * entries are 0 and 1 (place_first 0, place_n 2), x2's is 2.  A job added
 * after the pass, x3 (running), gets entries 3 and 4 on n0 and n1; x1's
 * again after them is refused.
 */
START_TEST(placement_entries_consecutive)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);
	const gq_job_t *x1, *x2, *x3;

	gq_view_begin(v, 4, 100);
	ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
	add(v, "team-b", pending(9, 1, 50));
	run(v, 1, "team-a", 2, 1);
	ck_assert_int_eq(gq_view_place(v, 1, 0, 1), 0);
	ck_assert_int_eq(gq_view_place(v, 1, 1, 1), 0);
	run(v, 2, "team-a", 1, 2);
	ck_assert_int_eq(gq_view_place(v, 2, 1, 1), 0);
	ck_assert_int_ne(gq_view_place(v, 1, 0, 1), 0);
	ck_assert_int_ne(gq_view_place(v, 99, 0, 1), 0);
	ck_assert_int_ne(gq_view_place(v, 2, 2, 1), 0);
	run(v, 1, "team-a", 2, 1);	/* told twice: the last */
	ck_assert_int_eq(gq_view_compute(v), 0);
	x1 = gq_view_job(v, 1);
	x2 = gq_view_job(v, 2);
	ck_assert_int_eq(x1->place_first, 0);
	ck_assert_int_eq(x1->place_n, 2);
	ck_assert_int_eq(x2->place_first, 2);
	ck_assert_int_eq(x2->place_n, 1);
	ck_assert_int_eq(gq_view_job(v, 9)->place_n, 0);
	run(v, 3, "team-a", 1, 3);
	ck_assert_int_eq(gq_view_place(v, 3, 0, 1), 0);
	ck_assert_int_eq(gq_view_place(v, 3, 1, 1), 0);
	ck_assert_int_ne(gq_view_place(v, 1, 0, 1), 0);
	x3 = gq_view_job(v, 3);
	ck_assert_int_eq(x3->place_first, 3);
	ck_assert_int_eq(x3->place_n, 2);
	gq_view_free(v);
}
END_TEST

/*
 * Node groups: 3 nodes, 2 groups; n0 in group 1, n1 and n2 in group 2, n2
 * in group 1 too.  Group 3 and node 3 are out of range.  A job of no
 * group (0) may run anywhere, and so may one whose group is past those
 * given (groups not read); group 1: n0 and n2, not n1.
 */
START_TEST(node_groups_bound_nodes)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);

	gq_view_begin(v, 6, 100);
	ck_assert_int_eq(gq_view_set_nodes(v, 3), 0);
	ck_assert_int_eq(gq_view_set_groups(v, 2), 0);
	ck_assert_int_eq(gq_view_node_group(v, 0, 1), 0);
	ck_assert_int_eq(gq_view_node_group(v, 1, 2), 0);
	ck_assert_int_eq(gq_view_node_group(v, 2, 2), 0);
	ck_assert_int_eq(gq_view_node_group(v, 2, 1), 0);
	ck_assert_int_ne(gq_view_node_group(v, 0, 3), 0);
	ck_assert_int_ne(gq_view_node_group(v, 3, 1), 0);
	ck_assert_int_ne(gq_view_node_group(v, 0, 0), 0);
	for (int n = 0; n < 3; n++) {
		ck_assert(gq_view_node_allowed(v, 0, n));
		ck_assert(gq_view_node_allowed(v, 3, n));
		ck_assert(gq_view_node_allowed(v, 2, n) == (n != 0));
	}
	ck_assert(gq_view_node_allowed(v, 1, 0));
	ck_assert(!gq_view_node_allowed(v, 1, 1));
	ck_assert(gq_view_node_allowed(v, 1, 2));
	gq_view_free(v);
}
END_TEST

/*
 * Room only where the preemptor may run: 2 nodes x 2 GPUs, full; team-a
 * (q=2) runs x1 and x3 on node 0, x2 and x4 on node 1; team-b (q=2) pends
 * b1, 2 GPUs on one node.  Node 0 is in partition A (group 1) and node 1
 * in partition B (group 2);
 * b1 may only use B.  Node 1 holds x2 and x4 (team-a may lose 2): b1 gets
 * those, not x1 and x3 on node 0, which would requeue work for a node b1
 * cannot use.  A job of A needing 2 on one node gets node 0's.
 */
START_TEST(room_only_in_its_partition)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);
	gq_job_in_t b1 = shaped(pending(5, 2, 50), 2, 1);
	uint32_t id;

	gq_view_begin(v, 4, 100);
	ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
	ck_assert_int_eq(gq_view_set_groups(v, 2), 0);
	ck_assert_int_eq(gq_view_node_group(v, 0, 1), 0);
	ck_assert_int_eq(gq_view_node_group(v, 1, 2), 0);
	ck_assert_int_ne(gq_view_node_group(v, 1, 3), 0);
	for (id = 1; id <= 4; id++) {
		run(v, id, "team-a", 1, id);
		ck_assert_int_eq(gq_view_place(v, id, (id + 1) % 2, 1), 0);
	}
	b1.node_group = 2;
	add(v, "team-b", b1);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(gq_view_job(v, 5)->room);
	ck_assert(gq_view_preemptable(v, 2, 5));
	ck_assert(gq_view_preemptable(v, 4, 5));
	ck_assert(!gq_view_preemptable(v, 1, 5));
	ck_assert(!gq_view_preemptable(v, 3, 5));
	gq_view_free(v);
}
END_TEST

/*
 * A node that takes no new work (draining, failing) is no room: Slurm
 * starts nothing there, whatever is freed.
 * 2 nodes x 4 GPUs.  n0, draining: x1, x2 of team-x (q 0: 2 over quota,
 * candidates).  n1: y1..y3 of team-y (q 3, at its quota), z1 of team-z
 * (q 0, a candidate).  team-b (q 2) pends b1, 2 GPUs on one node: A = 2,
 * key 1.
 * n0 closed: nothing there; n1: 0 idle + z1's 1 = 1 < 2: no node can give
 * b1 room.  It is roomless, priority 1 400 000 001, and a room waiter (n1
 * emptied has 4 >= 2).  With n0 open, x1 + x2 make room there: not
 * roomless, priority 1 400 000 001 + 1 + 0 = 1 400 000 002.
 */
START_TEST(draining_node_is_no_room)
{
	gq_project_cfg_t p[2] = { proj("team-b", 2, 1, GQ_NO_LIMIT),
				  proj("team-y", 3, 1, GQ_NO_LIMIT) };

	for (int closed = 0; closed <= 1; closed++) {
		gq_view_t *v = view_of(p, 2, NULL, 0);
		const uint32_t *ids;
		const gq_job_t *b1;

		gq_view_begin(v, 8, 100);
		ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
		if (closed)
			gq_view_close_node(v, 0);
		run(v, 1, "team-x", 1, 1);
		run(v, 2, "team-x", 1, 2);
		ck_assert_int_eq(gq_view_place(v, 1, 0, 1), 0);
		ck_assert_int_eq(gq_view_place(v, 2, 0, 1), 0);
		for (uint32_t id = 3; id <= 5; id++) {
			run(v, id, "team-y", 1, id);
			ck_assert_int_eq(gq_view_place(v, id, 1, 1), 0);
		}
		run(v, 6, "team-z", 1, 6);
		ck_assert_int_eq(gq_view_place(v, 6, 1, 1), 0);
		add(v, "team-b", shaped(pending(20, 2, 50), 2, 1));
		ck_assert_int_eq(gq_view_compute(v), 0);
		b1 = gq_view_job(v, 20);
		ck_assert_int_eq(b1->band, GQ_BAND_IN_QUOTA);
		ck_assert(b1->roomless == closed);
		ck_assert_uint_eq(b1->priority, IN_QUOTA_BASE + !closed);
		ck_assert_int_eq(gq_view_room_waiters(v, &ids), closed);
		if (closed)
			ck_assert_uint_eq(ids[0], 20);
		gq_view_free(v);
	}
}
END_TEST

Suite *placement_suite(void)
{
	Suite *s = suite_create("placement");
	TCase *tc;

	tc = tcase_create("a job's placement entries are consecutive");
	tcase_add_test(tc, placement_entries_consecutive);
	suite_add_tcase(s, tc);
	tc = tcase_create("room only on nodes the job may use and that take work");
	tcase_add_test(tc, node_groups_bound_nodes);
	tcase_add_test(tc, room_only_in_its_partition);
	tcase_add_test(tc, draining_node_is_no_room);
	suite_add_tcase(s, tc);
	return s;
}
