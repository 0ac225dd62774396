/*
 * test_saved_node.c - the node saved for an in-quota job no node can take
 * (docs/MODEL.md "The saved node"; core/saved_node.c): the jobs that may
 * reclaim and can start elsewhere take no victim there.  Numbers worked
 * by hand.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/room.h"
#include "core/view.h"
#include "state/state.h"
#include "helpers.h"

/*
 * The cluster, now 100: nodes n0 and n1 of 4 GPUs, all held (C = 8).
 *   n0: team-c's c1 (job 1, 1 GPU, --time ends at c1_ends), team-b's b1,
 *       b2, b3 (jobs 2-4, 1 GPU each);
 *   n1: team-c's c2 (job 5, 1 GPU, no time limit), and 3 GPUs of
 *       `n1_acct` (jobs 6-8, 1 GPU each).
 * team-a (q 4) pends a1 (job 10): 4 GPUs on one node.  team-e (q 2)
 * pends e1 and e2 (jobs 11, 12): 1 GPU each.  team-b (q 0) holds 3 or 6
 * GPUs over its quota; team-c (q 2) holds 2, in quota; team-d (q 3).
 * a1's room within the floors: n0 0 idle + b1-b3 = 3, n1 0 + 3 at most
 * (c1, c2 in quota): short of 4 on both.  It would fit either node
 * emptied: a room waiter.  It can start on n0 when c1 ends (c1_ends), on
 * n1 never (c2 has no time limit): n0 is saved for it.
 */
#define NOW 100

static gq_view_t *fill(gq_view_t *v, const char *n1_acct, int64_t c1_ends,
		       int64_t c2_ends)
{
	gq_view_begin(v, 8, NOW);
	ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
	gq_view_node_free(v, 0, 0);
	gq_view_node_free(v, 1, 0);
	placed_t r[] = { { 1, 1, 0, c1_ends, "team-c" }, { 2, 1, 0, 0, "team-b" },
			{ 3, 1, 0, 0, "team-b" }, { 4, 1, 0, 0, "team-b" },
			{ 5, 1, 1, c2_ends, "team-c" }, { 6, 1, 1, 0, n1_acct },
			{ 7, 1, 1, 0, n1_acct }, { 8, 1, 1, 0, n1_acct } };
	add_placed(v, r, sizeof(r) / sizeof(r[0]));
	add(v, "team-a", shaped(pending(10, 4, 50), 4, 1));
	pend(v, 11, "team-e", 1, 60);
	pend(v, 12, "team-e", 1, 61);
	return v;
}

static gq_project_cfg_t projects[5];

static gq_view_t *small_case(const char *n1_acct)
{
	gq_view_t *v;

	projects[0] = proj("team-a", 4, 1, GQ_NO_LIMIT);
	projects[1] = proj("team-b", 0, 1, GQ_NO_LIMIT);
	projects[2] = proj("team-c", 2, 1, GQ_NO_LIMIT);
	projects[3] = proj("team-d", 3, 1, GQ_NO_LIMIT);
	projects[4] = proj("team-e", 2, 1, GQ_NO_LIMIT);
	v = fill(view_of(projects, 5, NULL, 0), n1_acct, 125, 0);
	ck_assert_int_eq(gq_view_compute(v), 0);
	return v;
}

/*
 * Today's victims first: without a saved node e1 may take b1 on n0 (b1-b6
 * are all over team-b's quota of 0).  n0 saved for a1: e1 and e2 can
 * start on n1 (0 idle + b4-b6, 3 >= 1), so they keep off n0: b1-b3 are
 * refused to them, b4-b6 not.  a1 itself is not marked.  Nothing is held.
 * team-d's d1 (job 13, q 3), added after the pass, keeps off n0 as well.
 */
START_TEST(saved_node_kept_from_who_can_go_elsewhere)
{
	gq_view_t *v = small_case("team-b");
	const uint32_t *ids;

	ck_assert_int_eq(gq_view_room_waiters(v, &ids), 1);
	ck_assert_uint_eq(ids[0], 10);
	ck_assert(gq_view_job(v, 10)->roomless);
	ck_assert(gq_view_preemptable(v, 2, 11));
	ck_assert(gq_view_save_node(v, 10, -1));
	ck_assert_uint_eq(gq_view_saved_for(v), 10);
	ck_assert_int_eq(gq_view_saved_node(v)->node, 0);
	ck_assert_int_eq(gq_view_saved_node(v)->when, 125);
	ck_assert(gq_view_job(v, 11)->off_saved);
	ck_assert(gq_view_job(v, 12)->off_saved);
	ck_assert(!gq_view_job(v, 10)->off_saved);
	for (uint32_t b = 2; b <= 4; b++) {
		ck_assert(!gq_view_preemptable(v, b, 11));
		ck_assert(!gq_view_preemptable(v, b, 12));
	}
	for (uint32_t b = 6; b <= 8; b++)
		ck_assert(gq_view_preemptable(v, b, 11));
	ck_assert_uint_eq(gq_view_kept_for(v), 0);
	ck_assert_int_eq(gq_view_job(v, 11)->hold, GQ_HOLD_NONE);
	/* d1, submitted after the pass (Slurm tries it at once), the same */
	ck_assert_ptr_nonnull(gq_view_add_late(v, "team-d",
					       &(gq_job_in_t){ .id = 13,
					       .state = GQ_JOB_PENDING, .gpus = 1,
					       .gpus_per_node = 1, .nodes = 1,
					       .submit_time = 101 }));
	ck_assert(gq_view_job(v, 13)->off_saved);
	ck_assert(!gq_view_preemptable(v, 2, 13));
	ck_assert(gq_view_preemptable(v, 6, 13));
	/* nothing saved any more: b1 is e1's again */
	ck_assert(!gq_view_save_node(v, 0, -1));
	ck_assert(!gq_view_job(v, 11)->off_saved);
	ck_assert(gq_view_preemptable(v, 2, 11));
	gq_view_free(v);
}
END_TEST

/*
 * n1's 3 GPUs are team-d's, in quota (3 of 3): no victim there for e1,
 * and no GPU idle.  e1 can start on n0 alone, so it does not keep off
 * it: b1 stays e1's victim.  a1 is still a room waiter (n1: 0 + 0).
 */
START_TEST(saved_node_given_when_nowhere_else)
{
	gq_view_t *v = small_case("team-d");

	ck_assert(gq_view_save_node(v, 10, -1));
	ck_assert_int_eq(gq_view_saved_node(v)->node, 0);
	ck_assert(!gq_view_job(v, 11)->off_saved);
	ck_assert(gq_view_preemptable(v, 2, 11));
	ck_assert(!gq_view_preemptable(v, 6, 11));	/* in quota */
	gq_view_free(v);
}
END_TEST

/*
 * The state saves the node with the default settings (room_wait 0: no
 * hold, no GPU kept idle), and keeps it from pass to pass: in the second
 * pass c2 ends at 110, so n1 (by 110) looks sooner than n0 (by 125), but
 * n0 stays saved while a1 may use it.
 */
START_TEST(saved_node_by_default_and_kept)
{
	char *f = state_with("{\"projects\": ["
			     " {\"name\": \"team-a\", \"gpu_quota\": 4},"
			     " {\"name\": \"team-b\", \"gpu_quota\": 0},"
			     " {\"name\": \"team-c\", \"gpu_quota\": 2},"
			     " {\"name\": \"team-e\", \"gpu_quota\": 2}]}");
	int64_t c2_ends[2] = { 0, 110 };
	gq_view_t *v;

	for (int s = 0; s < 2; s++) {
		v = fill(gq_state_next()->view[0], "team-b", 125, c2_ends[s]);
		ck_assert_int_eq(gq_view_compute(v), 0);
		ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(),
							    NOW + s), 0);
		ck_assert_uint_eq(gq_view_kept_for(v), 0);
		ck_assert_uint_eq(gq_view_saved_for(v), 10);
		ck_assert_int_eq(gq_view_saved_node(v)->node, 0);
		ck_assert(gq_view_job(v, 11)->off_saved);
		ck_assert(!gq_view_preemptable(v, 2, 11));
		ck_assert_int_eq(gq_view_job(v, 11)->hold, GQ_HOLD_NONE);
		gq_state_publish();
	}
	/* a fresh choice in the second pass would have been n1 */
	ck_assert_int_eq(gq_room_wait_node(gq_view_pass(v), gq_view_job(v, 10),
					   -1).node, 1);
	state_done(f);
}
END_TEST

/*
 * Room sets take the saved node last.  Nodes n0, n1 of 4 GPUs, now 100:
 *   n0: team-c's c1 (job 1, 1 GPU, ends 125), team-d's d1 (4, ends 130),
 *       team-b's b1 (3) and b2 (8, the youngest);
 *   n1: team-c's c2 (2, no time limit), team-b's b4, b5, b6 (5, 6, 7).
 * team-b (q 3) holds 5: 2 over its floor; its youngest, b2 and b6, are
 * the usual candidates.  team-a's a1 (10) needs 4 on one node: n0 0 idle
 * + 2, n1 0 + 2: no room; n0 is soonest (by 130; n1 never).  team-e's r1
 * (11) needs 2 GPUs on one node: the usual candidates are one per node,
 * so r1 makes room node by node, the most room first, ties by index: n0
 * (b2, b1).  With n0 saved in the pass before, n1 comes first: b6 and b5
 * (2 over the floor, as many as b2 and b1).
 */
static gq_view_t *room_fill(gq_view_t *v)
{
	gq_view_begin(v, 8, NOW);
	ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
	gq_view_node_free(v, 0, 0);
	gq_view_node_free(v, 1, 0);
	placed_t r[] = { { 1, 1, 0, 125, "team-c" }, { 3, 1, 0, 0, "team-b" },
			{ 4, 1, 0, 130, "team-d" },
			{ 8, 1, 0, 0, "team-b" }, { 2, 1, 1, 0, "team-c" },
			{ 5, 1, 1, 0, "team-b" }, { 6, 1, 1, 0, "team-b" },
			{ 7, 1, 1, 0, "team-b" } };
	add_placed(v, r, sizeof(r) / sizeof(r[0]));
	add(v, "team-a", shaped(pending(10, 4, 50), 4, 1));
	add(v, "team-e", shaped(pending(11, 2, 60), 2, 1));
	return v;
}

START_TEST(saved_node_last_for_room_sets)
{
	char *f = state_with("{\"projects\": ["
			     " {\"name\": \"team-a\", \"gpu_quota\": 4},"
			     " {\"name\": \"team-b\", \"gpu_quota\": 3},"
			     " {\"name\": \"team-c\", \"gpu_quota\": 2},"
			     " {\"name\": \"team-d\", \"gpu_quota\": 1},"
			     " {\"name\": \"team-e\", \"gpu_quota\": 2}]}");
	uint32_t want[2][2] = { { 8, 3 }, { 7, 6 } };
	gq_view_t *v;

	for (int s = 0; s < 2; s++) {
		v = room_fill(gq_state_next()->view[0]);
		gq_state_saved_before(gq_state_next(), 0);
		ck_assert_int_eq(gq_view_compute(v), 0);
		ck_assert(gq_view_job(v, 11)->room);
		ck_assert(gq_view_job(v, 10)->roomless);
		for (uint32_t b = 3; b <= 8; b++) {
			bool in = b == want[s][0] || b == want[s][1];

			if (b != 4)	/* (d1: in quota) */
				ck_assert_msg(gq_view_preemptable(v, b, 11) == in,
					      "pass %d: b %u", s, b);
		}
		gq_state_wait_for_reclaims(gq_state_next(), NOW + s);
		ck_assert_int_eq(gq_view_saved_node(v)->node, 0);
		gq_state_publish();
	}
	state_done(f);
}
END_TEST

/*
 * A gang's nodes.  Nodes n0-n3 of 4 GPUs, all held (C = 16), now 100:
 * on node i, team-c's c (1 GPU, --time ends at 125, 130, 140, never)
 * and three 1-GPU jobs of team-b (q 0): ids 4i + 1 (c) and 4i + 2 ..
 * 4i + 4 (b).  team-c (q 4) holds 4: in quota.  team-a's a1 (job 30,
 * q 8) asks 2 nodes x 4 GPUs: each node gives 0 idle + 3 within the
 * floors, short of 4: a room waiter.  It can start on n0 by 125, n1 by
 * 130, n2 by 140, n3 never.  Saved: n0 and n1, its two soonest.
 * team-e's e1 (31, q 2, 1 GPU) can start on n2 or n3, so it keeps off
 * both saved nodes: b on n0 and n1 are refused to it, b on n2, n3 not.
 * With switches (n0, n2 in one; n1, n3 in the other) the second node is
 * n2, in n0's switch, though n1 is sooner: n1's b are e1's again.
 */
/* nnodes nodes of 4 GPUs, none idle, now NOW: on node i team-c's job
 * ids[i][0] (--time ends at ends[i], 0: no limit) and team-b's jobs
 * ids[i][1 .. 3], 1 GPU each. */
static void one_c_three_b(gq_view_t *v, int nnodes, const uint32_t ids[][4],
			  const int64_t *ends)
{
	gq_view_begin(v, 4 * nnodes, NOW);
	ck_assert_int_eq(gq_view_set_nodes(v, nnodes), 0);
	for (int i = 0; i < nnodes; i++) {
		placed_t r[] = { { ids[i][0], 1, i, ends[i], "team-c" },
				 { ids[i][1], 1, i, 0, "team-b" },
				 { ids[i][2], 1, i, 0, "team-b" },
				 { ids[i][3], 1, i, 0, "team-b" } };

		gq_view_node_free(v, i, 0);
		add_placed(v, r, 4);
	}
}

/* The gang's cluster in v, team-c's jobs ending at ends[], computed. */
static gq_view_t *gang_fill(gq_view_t *v, const int64_t *ends, bool domains)
{
	static const uint32_t ids[4][4] = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 },
					    { 9, 10, 11, 12 },
					    { 13, 14, 15, 16 } };

	one_c_three_b(v, 4, ids, ends);
	for (int i = 0; domains && i < 4; i++)
		ck_assert_int_eq(gq_view_node_domain(v, i, i % 2), 0);
	add(v, "team-a", shaped(pending(30, 8, 50), 4, 2));
	pend(v, 31, "team-e", 1, 60);
	ck_assert_int_eq(gq_view_compute(v), 0);
	return v;
}

static gq_view_t *gang_case(bool domains)
{
	static const int64_t ends[4] = { 125, 130, 140, 0 };

	projects[0] = proj("team-a", 8, 1, GQ_NO_LIMIT);
	projects[1] = proj("team-b", 0, 1, GQ_NO_LIMIT);
	projects[2] = proj("team-c", 4, 1, GQ_NO_LIMIT);
	projects[3] = proj("team-e", 2, 1, GQ_NO_LIMIT);
	return gang_fill(view_of(projects, 4, NULL, 0), ends, domains);
}

START_TEST(saved_nodes_of_a_gang)
{
	gq_view_t *v = gang_case(_i == 1);
	int second = _i == 1 ? 2 : 1;
	const int *nodes;

	ck_assert(gq_view_job(v, 30)->roomless);
	ck_assert(gq_view_save_node(v, 30, -1));
	ck_assert_int_eq(gq_view_saved_node(v)->node, 0);
	ck_assert_int_eq(gq_view_saved_node(v)->when, 125);
	ck_assert_int_eq(gq_view_saved_nodes(v, &nodes), 2);
	ck_assert_int_eq(nodes[0], 0);
	ck_assert_int_eq(nodes[1], second);
	ck_assert(gq_view_job(v, 31)->off_saved);
	for (uint32_t i = 0; i < 4; i++)
		for (uint32_t b = 4 * i + 2; b <= 4 * i + 4; b++)
			ck_assert_msg(gq_view_preemptable(v, b, 31) ==
				      (i != 0 && (int)i != second),
				      "node %u, b %u", i, b);
	gq_view_free(v);
}
END_TEST

/*
 * A gang's nodes are kept from pass to pass, as the first node is: in
 * the second pass n2's team-c job ends at 105, so a fresh choice would
 * be n2 (by 105), then n0 (125); the state keeps n0 and n1 while a1 may
 * use them.
 */
START_TEST(saved_nodes_of_a_gang_kept)
{
	char *f = state_with("{\"projects\": ["
			     " {\"name\": \"team-a\", \"gpu_quota\": 8},"
			     " {\"name\": \"team-b\", \"gpu_quota\": 0},"
			     " {\"name\": \"team-c\", \"gpu_quota\": 4},"
			     " {\"name\": \"team-e\", \"gpu_quota\": 2}]}");
	static const int64_t ends[2][4] = { { 125, 130, 140, 0 },
					    { 125, 130, 105, 0 } };
	gq_room_node_t fresh[2];
	const int *nodes;
	gq_view_t *v;

	for (int s = 0; s < 2; s++) {
		v = gang_fill(gq_state_next()->view[0], ends[s], false);
		ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(),
							    NOW + s), 0);
		ck_assert_uint_eq(gq_view_saved_for(v), 30);
		ck_assert_int_eq(gq_view_saved_nodes(v, &nodes), 2);
		ck_assert_int_eq(nodes[0], 0);
		ck_assert_int_eq(nodes[1], 1);
		ck_assert(!gq_view_preemptable(v, 6, 31));	/* n1's b */
		gq_state_publish();
	}
	ck_assert_int_eq(gq_room_wait_nodes(gq_view_pass(v), gq_view_job(v, 30),
					    NULL, 0, fresh, 2), 2);
	ck_assert_int_eq(fresh[0].node, 2);
	ck_assert_int_eq(fresh[1].node, 0);
	state_done(f);
}
END_TEST

/*
 * Room sets take all the nodes saved before last.  Nodes n0-n2 of 4
 * GPUs, all held, now 100: on each, team-c's c (in quota) and three of
 * team-b's 1-GPU jobs: n0 b2, b3, b30; n1 b4, b5, b31; n2 b6, b7, b8
 * (a higher id started later: younger).  team-b (q 7) holds 9: 2 over
 * its floor, the youngest b31 (n1) and b30 (n0): one per node, so
 * team-e's r1 (job 40, 2 GPUs on one node) makes room node by node, no
 * node with idle GPUs, ties by index.  Nothing saved: n0 (b30, b3).  n0
 * saved: n1 (b31, b5).  n0 and n1 saved, a gang's: n2 (b8, b7).
 */
START_TEST(saved_nodes_last_for_room_sets)
{
	static const int saved[] = { 0, 1 };
	static const uint32_t want[3][2] = { { 30, 3 }, { 31, 5 }, { 8, 7 } };
	static const uint32_t ids[3][4] = { { 1, 2, 3, 30 }, { 11, 4, 5, 31 },
					    { 21, 6, 7, 8 } };
	static const int64_t ends[3] = { 0, 0, 0 };
	gq_view_t *v;

	projects[0] = proj("team-b", 7, 1, GQ_NO_LIMIT);
	projects[1] = proj("team-c", 3, 1, GQ_NO_LIMIT);
	projects[2] = proj("team-e", 2, 1, GQ_NO_LIMIT);
	v = view_of(projects, 3, NULL, 0);
	one_c_three_b(v, 3, ids, ends);
	add(v, "team-e", shaped(pending(40, 2, 60), 2, 1));
	gq_view_saved_before(v, saved, _i);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(gq_view_job(v, 40)->room);
	for (int i = 0; i < 3; i++)
		for (int k = 1; k < 4; k++) {
			uint32_t b = ids[i][k];

			ck_assert_msg(gq_view_preemptable(v, b, 40) ==
				      (b == want[_i][0] || b == want[_i][1]),
				      "%d saved: b %u", _i, b);
		}
	gq_view_free(v);
}
END_TEST

Suite *saved_node_suite(void)
{
	Suite *s = suite_create("saved_node");
	TCase *tc = tcase_create("the node saved for a room waiter");

	tcase_add_test(tc, saved_node_kept_from_who_can_go_elsewhere);
	tcase_add_test(tc, saved_node_given_when_nowhere_else);
	tcase_add_test(tc, saved_node_by_default_and_kept);
	tcase_add_test(tc, saved_node_last_for_room_sets);
	tcase_add_loop_test(tc, saved_nodes_of_a_gang, 0, 2);
	tcase_add_test(tc, saved_nodes_of_a_gang_kept);
	tcase_add_loop_test(tc, saved_nodes_last_for_room_sets, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}
