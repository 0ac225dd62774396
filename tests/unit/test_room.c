/*
 * test_room.c - Making room on one node for a job that asks GPUs per node:
 * room is made within the floors, the union of room sets and the usual set
 * keeps every floor, sets of many shapes share victims, a failed attempt
 * leaves nothing, and victims in their grace time are room coming.
 * docs/MODEL.md "Reclaim" (Making room).  The nodes room may be made on
 * (node groups, nodes that take no work): test_placement.c.
 */
#include <check.h>
#include <stdbool.h>

#include "core/band.h"
#include "core/view.h"
#include "helpers.h"

/* team-b's b1 (2 GPUs on one node) and team-d's d1 (1 GPU) pend; n0
 * holds x1, x2 of team-x (q 0), warned when `warned`; n1 y1, y2 of
 * team-y (q 2, at its quota); n0 closed when `closed`. */
static gq_view_t *grace_view(bool warned, bool closed)
{
	gq_project_cfg_t p[3] = { proj("team-b", 4, 1, GQ_NO_LIMIT),
				  proj("team-d", 1, 1, GQ_NO_LIMIT),
				  proj("team-y", 2, 1, GQ_NO_LIMIT) };
	gq_view_t *v = view_of(p, 3, NULL, 0);

	gq_view_begin(v, 4, 100);
	ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
	if (closed)
		gq_view_close_node(v, 0);
	for (uint32_t id = 1; id <= 2; id++) {
		gq_job_in_t x = running(id, 1, id);

		x.at_risk = warned;	/* preempt_time set: in its grace */
		add(v, "team-x", x);
		ck_assert_int_eq(gq_view_place(v, id, 0, 1), 0);
	}
	run(v, 3, "team-y", 1, 3);
	run(v, 4, "team-y", 1, 4);
	ck_assert_int_eq(gq_view_place(v, 3, 1, 1), 0);
	ck_assert_int_eq(gq_view_place(v, 4, 1, 1), 0);
	add(v, "team-b", shaped(pending(20, 2, 50), 2, 1));
	pend(v, 30, "team-d", 1, 51);
	ck_assert_int_eq(gq_view_compute(v), 0);
	return v;
}

/*
 * Room that can be made is made: 2 nodes x 2 GPUs, full.  team-a (q=2) runs
 * x1 on node 0, x2 on node 1, x3 on node 0, x4 on node 1 (in that order);
 * team-b (q=2) pends b1 needing 2 GPUs on one node.  The usual walk
 * (youngest first, budget a - q = 2) takes x4 and x3: one GPU on each node,
 * no room.  Node by node instead: node 0 gives x3 then x1: room for b1.
 */
START_TEST(room_made_on_one_node)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);
	uint32_t id;

	gq_view_begin(v, 4, 100);
	ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
	for (id = 1; id <= 4; id++) {
		run(v, id, "team-a", 1, id);
		ck_assert_int_eq(gq_view_place(v, id, (id + 1) % 2, 1), 0);
	}
	add(v, "team-b", shaped(pending(5, 2, 50), 2, 1));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(gq_view_job(v, 5)->room);
	ck_assert(gq_view_preemptable(v, 1, 5));
	ck_assert(gq_view_preemptable(v, 3, 5));
	ck_assert(!gq_view_preemptable(v, 2, 5));
	ck_assert(!gq_view_preemptable(v, 4, 5));
	/*
	 * The room set and the usual set share team-a's budget of 2: the
	 * usual set is the room set too ({x3, x1}), not {x4, x3}, so that
	 * no mix of reclaims takes team-a below 2.
	 */
	ck_assert(gq_view_job(v, 1)->victim & GQ_VICTIM_QUOTA);
	ck_assert(gq_view_job(v, 3)->victim & GQ_VICTIM_QUOTA);
	ck_assert(!(gq_view_job(v, 4)->victim & GQ_VICTIM_QUOTA));
	ck_assert(!(gq_view_job(v, 2)->victim & GQ_VICTIM_QUOTA));
	gq_view_free(v);
}
END_TEST

/*
 * When the usual candidates make room, they are used: the quick start with
 * placement (a1, b1 on node 0; a2 on node 1): b2 needs 1 GPU on a node;
 * a1 frees node 0.
 */
START_TEST(room_usual_set_kept)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);

	gq_view_begin(v, 4, 100);
	gq_view_set_nodes(v, 2);
	run(v, 1, "team-a", 1, 10);
	gq_view_place(v, 1, 0, 1);
	run(v, 2, "team-a", 2, 20);
	gq_view_place(v, 2, 1, 2);
	run(v, 3, "team-b", 1, 30);
	gq_view_place(v, 3, 0, 1);
	add(v, "team-b", shaped(pending(4, 1, 40), 1, 1));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(!gq_view_job(v, 4)->room);
	ck_assert(gq_view_preemptable(v, 1, 4));
	ck_assert(!gq_view_preemptable(v, 2, 4));
	/* a job's placement entries must be consecutive */
	ck_assert_int_eq(gq_view_place(v, 1, 1, 1), -1);
	gq_view_free(v);
}
END_TEST

/*
 * No room within the floors: team-a q=3 holds the 4 GPUs (may lose 1);
 * b1 needs 2 on one node: no set makes room, so none is invented.
 */
START_TEST(room_not_made_below_floor)
{
	gq_view_t *v = view2("team-a", 3, "team-b", 2, 0);
	uint32_t id, n = 0;

	gq_view_begin(v, 4, 100);
	gq_view_set_nodes(v, 2);
	for (id = 1; id <= 4; id++) {
		run(v, id, "team-a", 1, id);
		gq_view_place(v, id, (id + 1) % 2, 1);
	}
	add(v, "team-b", shaped(pending(5, 2, 50), 2, 1));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(!gq_view_job(v, 5)->room);
	for (id = 1; id <= 4; id++)
		n += gq_view_preemptable(v, id, 5);
	ck_assert_uint_eq(n, 1);	/* the usual set: within the floor */
	gq_view_free(v);
}
END_TEST

/*
 * Floors hold "whatever subset Slurm ends up requeueing", across room
 * sets and the usual set: room sets chosen per preemptor with a fresh
 * budget could together pass a_v - q_v.  2 nodes x 2 GPUs, team-a (q=2)
 * holds x1..x4 alternately on n0/n1.  team-b (q=2) pends b1: 2 GPUs on one
 * node (room set {x3,x1}); team-c (q=1) pends c1: 1 GPU (usual set
 * {x4,x3}).  The union {x1,x3,x4} = 3 GPUs > a - q = 2 would leave team-a
 * at 1 < quota: it must not all be preemptable.
 */
START_TEST(room_sets_union_breaks_floor)
{
	gq_project_cfg_t p[3] = { proj("team-a", 2, 1, GQ_NO_LIMIT),
				  proj("team-b", 2, 1, GQ_NO_LIMIT),
				  proj("team-c", 1, 1, GQ_NO_LIMIT) };
	gq_view_t *v = view_of(p, 3, NULL, 0);
	gq_job_in_t in;
	uint32_t id, union_gpus = 0;

	gq_view_begin(v, 4, 100);
	gq_view_set_nodes(v, 2);
	for (id = 1; id <= 4; id++) {
		run(v, id, "team-a", 1, id);
		gq_view_place(v, id, (id + 1) % 2, 1);
	}
	in = pending(5, 2, 50);
	in.gpus_per_node = 2;
	in.nodes = 1;
	add(v, "team-b", in);
	in = pending(6, 1, 60);
	in.gpus_per_node = 1;
	in.nodes = 1;
	add(v, "team-c", in);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 5)->band, GQ_BAND_IN_QUOTA);
	ck_assert_int_eq(gq_view_job(v, 6)->band, GQ_BAND_IN_QUOTA);
	for (id = 1; id <= 4; id++)
		if (gq_view_preemptable(v, id, 5) ||
		    gq_view_preemptable(v, id, 6))
			union_gpus += 1;
	/* contract: at most a_v - floor_v = 4 - 2 */
	ck_assert_uint_le(union_gpus, 2);
	gq_view_free(v);
}
END_TEST

/*
 * Room sets of many shapes share their victims, and each is kept whole.
 * 2 nodes x 4 GPUs: team-c (q 2: it may lose 2) runs x1, x3 on n0 and
 * x2, x4 on n1 (1 GPU each), team-d (q 4, at its quota) 2 GPUs on each
 * node.  p1..p5 (q 4 each) each pend a 2-GPU one-node job, in quota (key
 * 0.5): the usual set {x4, x3} spans both nodes, so each gets the room
 * set {x1, x3} on n0 (a victim another set took costs nothing more).
 * p5 pends a second such job (key 1: tried last; the same shape): it
 * reuses p5's set, both victims.  Five shapes of 2 victims are more than
 * the 6 running jobs in reclaim order: the shapes' victim list must grow
 * past that count (a list cut there would be read past its end by the
 * second p5 job: ASan).
 */
START_TEST(room_sets_share_victims)
{
	gq_project_cfg_t p[7] = { proj("team-c", 2, 1, GQ_NO_LIMIT),
				  proj("team-d", 4, 1, GQ_NO_LIMIT),
				  proj("p1", 4, 1, GQ_NO_LIMIT),
				  proj("p2", 4, 1, GQ_NO_LIMIT),
				  proj("p3", 4, 1, GQ_NO_LIMIT),
				  proj("p4", 4, 1, GQ_NO_LIMIT),
				  proj("p5", 4, 1, GQ_NO_LIMIT) };
	gq_view_t *v = view_of(p, 7, NULL, 0);
	const char *pn[5] = { "p1", "p2", "p3", "p4", "p5" };
	uint32_t id;

	gq_view_begin(v, 8, 100);
	ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
	for (id = 1; id <= 4; id++) {
		run(v, id, "team-c", 1, 10 + id);
		ck_assert_int_eq(gq_view_place(v, id, (id + 1) % 2, 1), 0);
	}
	run(v, 5, "team-d", 2, 1);
	run(v, 6, "team-d", 2, 2);
	ck_assert_int_eq(gq_view_place(v, 5, 0, 2), 0);
	ck_assert_int_eq(gq_view_place(v, 6, 1, 2), 0);
	for (id = 0; id < 5; id++)
		add(v, pn[id], shaped(pending(20 + id, 2, 50 + id), 2, 1));
	add(v, "p5", shaped(pending(25, 2, 60), 2, 1));
	ck_assert_int_eq(gq_view_compute(v), 0);
	for (id = 20; id <= 25; id++) {
		ck_assert_msg(gq_view_job(v, id)->room, "job %u: no room", id);
		ck_assert(gq_view_preemptable(v, 1, id));
		ck_assert(gq_view_preemptable(v, 3, id));
		ck_assert(!gq_view_preemptable(v, 5, id));
	}
	gq_view_free(v);
}
END_TEST

/*
 * A preemptor for which no room can be made leaves nothing behind.  2
 * nodes x 2 GPUs: n0 runs x1, x2 of team-c (q 1: it may lose 2), n1 x3
 * of team-c and y1 of team-d (q 1, at its quota).  team-a (q 8) asks 2
 * GPUs on each of 2 nodes (A = 4, key 0.5: tried first): n0 can give x1
 * + x2, which spends team-c's 2, so n1 cannot give x3 (and y1 is team-d's
 * floor): no room for it, and its choices go back.
 * team-b (q 2) asks 2 on one node (key 1): its usual set, youngest first
 * {x3, x2}, spans both nodes, so room is made: {x1, x2} on n0.  Were
 * team-a's failed attempt to leave x1 and x2 marked as taken, team-b's
 * room on n0 would count their GPUs as freed without taking them, and its
 * room set would be empty: it could reclaim nothing.
 * team-a's job, for which no room can be made, goes below team-b's in its
 * band: 1 400 000 001 (the band's base, band.h), under team-b's key 1
 * (1 400 000 002), not 1 750 000 001 (key 0.5), which would be tried first.
 * Slurm's main cycle stops trying a partition at the first job it cannot
 * start, so tried first it would keep team-b's reclaim waiting.
 */
START_TEST(room_failed_attempt_leaves_nothing)
{
	gq_project_cfg_t p[4] = { proj("team-a", 8, 1, GQ_NO_LIMIT),
				  proj("team-b", 2, 1, GQ_NO_LIMIT),
				  proj("team-c", 1, 1, GQ_NO_LIMIT),
				  proj("team-d", 1, 1, GQ_NO_LIMIT) };
	gq_view_t *v = view_of(p, 4, NULL, 0);

	gq_view_begin(v, 4, 100);
	ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
	run(v, 1, "team-c", 1, 1);
	run(v, 2, "team-c", 1, 2);
	run(v, 3, "team-c", 1, 3);
	run(v, 4, "team-d", 1, 4);
	ck_assert_int_eq(gq_view_place(v, 1, 0, 1), 0);
	ck_assert_int_eq(gq_view_place(v, 2, 0, 1), 0);
	ck_assert_int_eq(gq_view_place(v, 3, 1, 1), 0);
	ck_assert_int_eq(gq_view_place(v, 4, 1, 1), 0);
	add(v, "team-a", shaped(pending(10, 4, 50), 2, 2));
	add(v, "team-b", shaped(pending(20, 2, 50), 2, 1));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 10)->band, GQ_BAND_IN_QUOTA);
	ck_assert_int_eq(gq_view_job(v, 20)->band, GQ_BAND_IN_QUOTA);
	ck_assert(!gq_view_job(v, 10)->room);
	ck_assert(gq_view_job(v, 20)->room);
	for (uint32_t id = 1; id <= 4; id++)	/* {x1, x2} */
		ck_assert_int_eq(gq_view_preemptable(v, id, 20), id <= 2);
	ck_assert(gq_view_job(v, 10)->roomless);
	ck_assert(!gq_view_job(v, 20)->roomless);
	ck_assert_uint_eq(gq_view_job(v, 10)->priority, 1400000001u);
	ck_assert_uint_eq(gq_view_job(v, 20)->priority, 1400000002u);
	ck_assert_double_eq_tol(gq_view_job(v, 10)->cum, 4, 1e-9);	/* kept */
	gq_view_free(v);
}
END_TEST

/*
 * A gang gets room in one switch (docs/MODEL.md "Gangs").  4 nodes x 2
 * GPUs; switch s0 = {n0, n2}, s1 = {n1, n3}.  Node k runs team-b's
 * b(k+1) (1 GPU, started at k + 1), its other GPU idle.  team-b (q 2)
 * holds 4: it may lose 2, the youngest first: b4 (n3), b3 (n2).  team-a
 * (q 4) pends a1, 2 GPUs on each of 2 nodes (A = 4, in quota).
 * The usual set {b4, b3} gives room on n3 and n2, one in each switch: no
 * switch has 2 nodes with room, so room is made.  Nodes by room (all 1)
 * then index: n0, n1, n2, n3; s0 first: n0 gives b1, n2 gives b3.  Room
 * on n0 and n2, in s0: b1 and b3.  Without switches the usual set is
 * used: b3 and b4, over both switches.  A gang of 3 nodes (team-b q 1:
 * may lose 3; the usual set b4, b3, b2 spans both) fits no switch: the
 * usual set, as without switches (n1, n2, n3), never a fourth.
 */
static gq_view_t *switch_view(int qb, uint32_t nodes, bool domains)
{
	gq_view_t *v = view2("team-a", 6, "team-b", qb, 0);
	uint32_t id;

	gq_view_begin(v, 8, 100);
	ck_assert_int_eq(gq_view_set_nodes(v, 4), 0);
	for (id = 1; id <= 4; id++) {
		run(v, id, "team-b", 1, id);
		ck_assert_int_eq(gq_view_place(v, id, id - 1, 1), 0);
		gq_view_node_free(v, id - 1, 1);
		if (domains)
			ck_assert_int_eq(gq_view_node_domain(v, id - 1,
							     (id - 1) % 2), 0);
	}
	add(v, "team-a", shaped(pending(10, 2 * nodes, 50), 2, nodes));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 10)->band, GQ_BAND_IN_QUOTA);
	return v;
}

static void expect_victims(gq_view_t *v, bool room, const bool want[4])
{
	ck_assert(gq_view_job(v, 10)->room == room);
	for (uint32_t id = 1; id <= 4; id++)
		ck_assert_msg(gq_view_preemptable(v, id, 10) == want[id - 1],
			      "b%u: preemptable %d", id,
			      gq_view_preemptable(v, id, 10));
}

START_TEST(gang_room_in_one_switch)
{
	gq_view_t *v = switch_view(2, 2, true);

	expect_victims(v, true, (const bool[4]){ true, false, true, false });
	gq_view_free(v);
	v = switch_view(2, 2, false);	/* no switches: the usual set */
	expect_victims(v, false, (const bool[4]){ false, false, true, true });
	gq_view_free(v);
	v = switch_view(1, 3, true);	/* no switch has 3 nodes */
	expect_victims(v, false, (const bool[4]){ false, true, true, true });
	ck_assert(!gq_view_job(v, 10)->roomless);
	gq_view_free(v);
}
END_TEST

/*
 * Victims leaving in their grace time are room coming for a preemptor.
 * 2 nodes x 2 GPUs.  n0: x1, x2 of team-x (q 0), warned for b1 (at risk:
 * their GPUs count as lost, team-x's budget is 2 - 2 = 0).  n1: y1, y2
 * of team-y (q 2, at its quota: nothing to take).  team-b (q 4) pends b1,
 * 2 GPUs on one node: A = 2, key 0.5.  team-d (q 1) pends d1, 1 GPU: A =
 * 1, key 1.
 * n0 offers 0 idle + 2 leaving = 2 >= 2: b1 has room coming, keeps its
 * key, 1 400 000 001 + 1 + 0.5 x 699 999 998 = 1 750 000 001, above d1's
 * 1 400 000 002: when x1 and x2 exit, b1 is tried first for n0.
 * The same on a closed n0 (draining): nothing comes there for anyone, b1
 * is roomless (1 400 000 001, below d1).
 */
START_TEST(grace_victims_are_room_coming)
{
	gq_view_t *v = grace_view(true, false);
	const gq_job_t *b1 = gq_view_job(v, 20), *d1 = gq_view_job(v, 30);

	ck_assert_int_eq(b1->band, GQ_BAND_IN_QUOTA);
	ck_assert_int_eq(d1->band, GQ_BAND_IN_QUOTA);
	ck_assert(!b1->roomless);
	ck_assert_uint_eq(b1->priority, 1750000001u);
	ck_assert_uint_eq(d1->priority, IN_QUOTA_BASE + 1);
	for (uint32_t id = 1; id <= 4; id++)
		ck_assert(!gq_view_job(v, id)->victim);
	gq_view_free(v);

	v = grace_view(true, true);
	b1 = gq_view_job(v, 20);
	ck_assert(b1->roomless);
	ck_assert_uint_eq(b1->priority, IN_QUOTA_BASE);
	gq_view_free(v);
}
END_TEST

/* Job id has no room: it is tried after the in-quota jobs that can start
 * (priority 1 400 000 001) and is the one job listed for the room wait. */
static void only_room_waiter(gq_view_t *v, uint32_t id)
{
	const uint32_t *ids;

	ck_assert_msg(!gq_view_job(v, id)->room, "job %u has room", id);
	ck_assert(gq_view_job(v, id)->roomless);
	ck_assert_uint_eq(gq_view_job(v, id)->priority, 1400000001u);
	ck_assert_int_eq(gq_view_room_waiters(v, &ids), 1);
	ck_assert_uint_eq(ids[0], id);
}

/*
 * A room set may take a victim another job's usual set counted on; that
 * job then needs a room set of its own, or has none.  3 nodes x 2 GPUs.
 * team-x (q 1) runs x1 on n2, x2 on n0, x3 on n1 (the youngest), 1 GPU
 * each: it may lose 2, its usual set {x3, x2}.  team-y (q 0) runs y1 on
 * n2.  n0 and n1 have 1 GPU idle each.  team-r (q 2) pends r1, 2 GPUs on
 * one node of n2's partition (A = 2, key 1, submitted first); team-g
 * (q 4) pends g1, 2 GPUs on each of 2 nodes of n0 and n1's (A = 4, key 1).
 * r1's usual set gives n2 one GPU (y1): it needs room, and takes x1 and
 * y1.  g1's usual set gave n0 1 + x2 and n1 1 + x3; with x1 taken, team-x
 * has 1 left for its usual set: x3.  n0 then gives 1: g1 no longer fits.
 * Made again with g1 among the jobs that need room: r1 first gets {x1,
 * y1}, then g1 could take x2 on n0 but not x3 on n1 (team-x is at its
 * floor): no room, so it is tried after the in-quota jobs that can start
 * (priority 1 400 000 001) and listed for the room wait.  Left to its
 * usual set it would be tried first, fail, and stop Slurm's main cycle
 * for the partition until backfill.
 */
START_TEST(room_set_takes_a_usual_sets_victim)
{
	const char *team[4] = { "team-x", "team-y", "team-r", "team-g" };
	double quota[4] = { 1, 0, 2, 4 };
	int on[4] = { 2, 0, 1, 2 }, group[3] = { 2, 2, 1 }, i;
	gq_job_in_t r1 = shaped(pending(20, 2, 50), 2, 1);
	gq_job_in_t g1 = shaped(pending(30, 4, 51), 2, 2);
	gq_project_cfg_t p[4];
	gq_view_t *v;

	for (i = 0; i < 4; i++)
		p[i] = proj(team[i], quota[i], 1, GQ_NO_LIMIT);
	v = view_of(p, 4, NULL, 0);
	gq_view_begin(v, 6, 100);
	ck_assert_int_eq(gq_view_set_nodes(v, 3) | gq_view_set_groups(v, 2), 0);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(gq_view_node_group(v, i, group[i]), 0);
		gq_view_node_free(v, i, group[i] == 2);
	}
	for (i = 0; i < 4; i++) {	/* x1, x2, x3 and y1 */
		run(v, i + 1, team[i / 3], 1, i + 1);
		ck_assert_int_eq(gq_view_place(v, i + 1, on[i], 1), 0);
	}
	r1.node_group = 1;
	g1.node_group = 2;
	add(v, "team-r", r1);
	add(v, "team-g", g1);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(gq_view_job(v, 20)->room);
	ck_assert(gq_view_preemptable(v, 1, 20));
	ck_assert(gq_view_preemptable(v, 4, 20));
	only_room_waiter(v, 30);
	gq_view_free(v);
}
END_TEST

/*
 * Idle GPUs are counted once per pass: a room set that counts a node's
 * idle GPUs takes them from the room sets made after it (victims are
 * shared: room_sets_share_victims).  3 nodes x 4 GPUs: n0 idle; team-z
 * (q 2: it may lose 4) runs z1, z2 (2 GPUs each) on n1 and z3 (2, the
 * youngest) on n2, beside team-x's x1 (2, q 2: at its quota).  team-a (q 8) pends g1 and
 * team-b (q 8) pends g2, 4 GPUs on each of 2 nodes (A = 8, key 1; g1
 * submitted first).  The usual set, youngest first, is {z3, z2}: 2 GPUs
 * on n1 and n2 each, no second node.  g1's room set: n0's 4 idle and n1
 * emptied of z1, z2.  g2 then finds n0 counted, n1 (the shared victims)
 * and n2, which can free neither z3 (team-z would lose 6) nor x1: one
 * node, no room.  So g2 is tried after
 * the jobs that can start (priority 1 400 000 001) and listed for the
 * room wait, instead of counting on n0 as well.
 */
START_TEST(room_sets_count_idle_once)
{
	gq_project_cfg_t p[4] = { proj("team-z", 2, 1, GQ_NO_LIMIT),
				  proj("team-x", 2, 1, GQ_NO_LIMIT),
				  proj("team-a", 8, 1, GQ_NO_LIMIT),
				  proj("team-b", 8, 1, GQ_NO_LIMIT) };
	int on[4] = { 1, 1, 2, 2 }, i;
	gq_view_t *v = view_of(p, 4, NULL, 0);

	gq_view_begin(v, 12, 100);
	ck_assert_int_eq(gq_view_set_nodes(v, 3), 0);
	gq_view_node_free(v, 0, 4);
	for (i = 0; i < 4; i++) {	/* z1, z2, z3, x1 */
		run(v, i + 1, i < 3 ? "team-z" : "team-x", 2, i + 1);
		ck_assert_int_eq(gq_view_place(v, i + 1, on[i], 2), 0);
	}
	add(v, "team-a", shaped(pending(20, 8, 50), 4, 2));
	add(v, "team-b", shaped(pending(21, 8, 51), 4, 2));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(gq_view_job(v, 20)->room);
	ck_assert(gq_view_preemptable(v, 1, 20));
	ck_assert(gq_view_preemptable(v, 2, 20));
	ck_assert(!gq_view_preemptable(v, 3, 20));
	only_room_waiter(v, 21);
	gq_view_free(v);
}
END_TEST

Suite *room_suite(void)
{
	Suite *s = suite_create("room");
	TCase *tc;

	tc = tcase_create("room is made on one node within the floors");
	tcase_add_test(tc, room_made_on_one_node);
	tcase_add_test(tc, room_usual_set_kept);
	tcase_add_test(tc, room_not_made_below_floor);
	tcase_add_test(tc, room_sets_union_breaks_floor);
	suite_add_tcase(s, tc);
	tc = tcase_create("room sets share victims, a failed attempt leaves nothing");
	tcase_add_test(tc, room_sets_share_victims);
	tcase_add_test(tc, room_failed_attempt_leaves_nothing);
	tcase_add_test(tc, room_set_takes_a_usual_sets_victim);
	tcase_add_test(tc, room_sets_count_idle_once);
	suite_add_tcase(s, tc);
	tc = tcase_create("victims in their grace time are room coming");
	tcase_add_test(tc, grace_victims_are_room_coming);
	tcase_add_test(tc, gang_room_in_one_switch);
	suite_add_tcase(s, tc);
	return s;
}
