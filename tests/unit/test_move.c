/*
 * test_move.c - moves (docs/MODEL.md "Moves"; core/move.c): another
 * project's in-quota job on the node saved for a room waiter is requeued
 * when it can restart at once elsewhere.  Numbers worked by hand.
 */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/move.h"
#include "core/view.h"
#include "shared/job_facts.h"
#include "shared/pass_input.h"
#include "state/ledger.h"
#include "state/state.h"
#include "helpers.h"

/*
 * Now 1000.  Nodes n0 and n1 of 4 GPUs, all held (C = 8).
 *   n0: team-c's c1 (job 1, 1 GPU, started 900) and c2 (job 2, 1 GPU,
 *       started 950), team-b's b1, b2 (jobs 3, 4, 1 GPU each);
 *   n1: `n1_acct`'s d1, d2 (jobs 5, 6), `b_acct`'s b3 (job 7), team-b's
 *       b4 (job 8): d1, d2 team-d's and b3 team-b's but where said.
 * team-a (q 4) pends a1 (job 10): 4 GPUs on one node.  team-b (q 0)
 * borrows all it holds; team-c (q 2) holds 2, in quota; team-d (q 2),
 * team-f (q 4).
 * a1's room within the floors: n0 0 idle + b1, b2 = 2; n1 0 + 2 (d1, d2
 * in quota): short of 4 on both, and no job has a time limit: a room
 * waiter, n0 saved (ties: the lower index).
 * A move on n0 needs 4 - 0 - 2 = 2 GPUs of moved jobs.  c2 loses 1 x 50
 * GPU-seconds, c1 1 x 100: c2 first.  c2 restarts on n1: room 0 + b3, b4
 * (team-c may reclaim them in quota) = 2 >= 1; then c1 on n1: 2 - 1 kept
 * = 1 >= 1.  Bound: b1 + b2 + c2 + c1 = 4 = a1's GPUs.
 */
#define NOW 1000

typedef struct {
	uint32_t id, gpus;
	int node;
	int64_t start, ends;
	const char *acct;
} job_at_t;

/* Tweaks of the move case (move_only_when_the_rules_allow): c2's nodes
 * not known (pinned); team-c asking one more GPU. */
static bool c2_pinned, c_pends;

static void place(gq_view_t *v, const job_at_t *r, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		gq_job_in_t in = running(r[i].id, r[i].gpus, r[i].start);

		in.ends_by = r[i].ends;
		if (c2_pinned && r[i].id == 2)
			in.node_group = GQ_NODES_UNKNOWN;
		add(v, r[i].acct, in);
		ck_assert_int_eq(gq_view_place(v, r[i].id, r[i].node,
					       r[i].gpus), 0);
	}
}

static gq_project_cfg_t projects[5];

/* A view of team-a, -b, -c, -d, -f with these quotas. */
static gq_view_t *view_with(const int quota[5])
{
	static const char *const names[5] = { "team-a", "team-b", "team-c",
					      "team-d", "team-f" };

	for (int i = 0; i < 5; i++)
		projects[i] = proj(names[i], quota[i], 1, GQ_NO_LIMIT);
	return view_of(projects, 5, NULL, 0);
}

static void move_fill(gq_view_t *v, const char *n1_acct, const char *b_acct,
		      int64_t c_ends, int64_t now)
{
	two_nodes_at(v, 8, now, 0, 0);
	job_at_t r[] = { { 1, 1, 0, 900, c_ends, "team-c" },
			 { 2, 1, 0, 950, c_ends, "team-c" },
			 { 3, 1, 0, 100, 0, "team-b" }, { 4, 1, 0, 110, 0, "team-b" },
			 { 5, 1, 1, 100, 0, n1_acct }, { 6, 1, 1, 110, 0, n1_acct },
			 { 7, 1, 1, 120, 0, b_acct }, { 8, 1, 1, 130, 0, "team-b" } };
	place(v, r, sizeof(r) / sizeof(r[0]));
	add(v, "team-a", shaped(pending(10, 4, 500), 4, 1));
	if (c_pends)
		pend(v, 11, "team-c", 1, 600);
}

static gq_view_t *move_case(const char *n1_acct, const char *b_acct,
			    int64_t c_ends)
{
	gq_view_t *v = view_with((const int[]){ 4, 0, 2, 2, 4 });

	move_fill(v, n1_acct, b_acct, c_ends, NOW);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(gq_view_save_node(v, 10, -1));
	ck_assert_int_eq(gq_view_saved_node(v)->node, 0);
	return v;
}

static uint32_t lately;	/* a job moved lately, for the rules; 0: none */

static bool _lately(uint32_t id, void *ctx)
{
	(void)ctx;
	return id == lately;
}

static gq_move_rules_t rules(int64_t age, int64_t waited, int64_t grace)
{
	return (gq_move_rules_t){ .age = age, .waited = waited,
				  .grace = grace, .moved_lately = _lately };
}

/*
 * a1 (job 10) has no room, n0 is saved for it, and a pass with move_age
 * 600 moves `first` then `second` to n1, `gpus` in all, no borrowed
 * victim with them.
 */
static void moves_two(gq_view_t *v, uint32_t first, uint32_t second,
		      uint32_t gpus)
{
	gq_move_rules_t r = rules(600, 2, 0);
	const gq_move_t *m;

	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(gq_view_job(v, 10)->roomless);
	ck_assert(gq_view_save_node(v, 10, -1));
	ck_assert_int_eq(gq_view_saved_node(v)->node, 0);
	lately = 0;
	ck_assert(gq_view_move(v, &r));
	m = gq_view_move_of(v);
	ck_assert_int_eq(m->n, 2);
	ck_assert_uint_eq(m->moved[0], first);
	ck_assert_uint_eq(m->moved[1], second);
	ck_assert_int_eq(m->to[0], 1);
	ck_assert_int_eq(m->to[1], 1);
	ck_assert_uint_eq(m->borrowed, 0);
	ck_assert_uint_eq(m->gpus, gpus);
}

START_TEST(move_empties_the_saved_node)
{
	gq_view_t *v = move_case("team-d", "team-b", 0);
	gq_move_rules_t r = rules(600, 2, 0);
	const gq_move_t *m;

	lately = 0;
	ck_assert(gq_view_job(v, 10)->roomless);
	ck_assert(!gq_view_preemptable(v, 1, 10));
	ck_assert(gq_view_move(v, &r));
	m = gq_view_move_of(v);
	ck_assert_uint_eq(m->waiter, 10);
	ck_assert_int_eq(m->node, 0);
	ck_assert_int_eq(m->n, 2);
	ck_assert_uint_eq(m->moved[0], 2);	/* c2: 50 GPU-seconds */
	ck_assert_uint_eq(m->moved[1], 1);	/* c1: 100 */
	ck_assert_int_eq(m->to[0], 1);
	ck_assert_int_eq(m->to[1], 1);
	ck_assert_uint_eq(m->borrowed, 2);
	ck_assert_uint_eq(m->gpus, 2);
	/* a1 takes b1, b2, c1, c2 on n0, nothing on n1 */
	for (uint32_t j = 1; j <= 8; j++)
		ck_assert_msg(gq_view_preemptable(v, j, 10) == (j <= 4),
			      "job %u", j);
	ck_assert(!gq_view_job(v, 10)->roomless);
	ck_assert(gq_view_job(v, 10)->room);
	ck_assert_uint_eq(gq_view_job(v, 10)->priority,
			  gq_band_priority(GQ_BAND_IN_QUOTA,
					   gq_view_job(v, 10)->key));
	ck_assert_int_eq(gq_view_move_to(v, 10, 1), 1);
	ck_assert_int_eq(gq_view_move_to(v, 10, 3), -1);	/* borrowed */
	ck_assert_int_eq(gq_view_move_to(v, 11, 1), -1);
	gq_view_free(v);
}
END_TEST

/*
 * A gang's move.  Now 1000, nodes n0-n2 of 4 GPUs (C = 12):
 *   n0: team-c's c1 (job 1, 1 GPU, started 900), team-b's b1-b3 (2-4);
 *   n1: team-c's c2 (job 5, 1 GPU, started c2_start), team-b's b4-b6
 *       (6-8);
 *   n2: team-d's d1, d2 (jobs 9, 11, in quota), 2 GPUs idle.
 * c1 and c2 end at 5000 (--time); nothing else has a time limit.
 * team-a (q 8) pends a1 (job 10): 4 GPUs on each of 2 nodes.  team-b
 * (q 0) borrows its 6; team-c (q 2) and team-d (q 2) are in quota.
 * a1's room: n0 0 idle + 3, n1 0 + 3, n2 2 + 0: short of 4 on every
 * node.  Soonest: n0 and n1 by 5000, n2 never: n0, n1 saved.  Moves
 * (move_age 600, past the grace): on n0, b1-b3 alone give 3 < 4; c1
 * (100 GPU-seconds) restarts on n2 (2 idle, none of a1's nodes), then
 * b1-b3: 0 + 3 + 1 = 4.  On n1 the same with c2 (50 GPU-seconds when
 * started 950) on n2 (2 - 1 kept = 1).  Borrowed 6, moved 2: a1's 8.
 * With c2 started 300 (700 s ago, past move_age) n1 cannot be emptied:
 * no move at all, c1 stays (a plan of n0 alone would move it for
 * nothing).
 */
static gq_view_t *gang_move_case(int64_t c2_start)
{
	gq_view_t *v = view_with((const int[]){ 8, 0, 2, 2, 0 });
	job_at_t r[] = { { 1, 1, 0, 900, 5000, "team-c" },
			 { 2, 1, 0, 100, 0, "team-b" },
			 { 3, 1, 0, 110, 0, "team-b" },
			 { 4, 1, 0, 120, 0, "team-b" },
			 { 5, 1, 1, c2_start, 5000, "team-c" },
			 { 6, 1, 1, 130, 0, "team-b" },
			 { 7, 1, 1, 140, 0, "team-b" },
			 { 8, 1, 1, 150, 0, "team-b" },
			 { 9, 1, 2, 160, 0, "team-d" },
			 { 11, 1, 2, 170, 0, "team-d" } };
	const int *nodes;

	gq_view_begin(v, 12, NOW);
	ck_assert_int_eq(gq_view_set_nodes(v, 3), 0);
	gq_view_node_free(v, 0, 0);
	gq_view_node_free(v, 1, 0);
	gq_view_node_free(v, 2, 2);
	place(v, r, sizeof(r) / sizeof(r[0]));
	add(v, "team-a", shaped(pending(10, 8, 500), 4, 2));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(gq_view_job(v, 10)->roomless);
	ck_assert(gq_view_save_node(v, 10, -1));
	ck_assert_int_eq(gq_view_saved_nodes(v, &nodes), 2);
	ck_assert_int_eq(nodes[0], 0);
	ck_assert_int_eq(nodes[1], 1);
	return v;
}

START_TEST(move_empties_a_gangs_nodes)
{
	gq_view_t *v = gang_move_case(950);
	gq_move_rules_t r = rules(600, 2, 0);
	const gq_move_t *m;

	lately = 0;
	ck_assert(gq_view_move(v, &r));
	m = gq_view_move_of(v);
	ck_assert_int_eq(m->n, 2);
	ck_assert_uint_eq(m->moved[0], 1);
	ck_assert_uint_eq(m->moved[1], 5);
	ck_assert_int_eq(m->to[0], 2);
	ck_assert_int_eq(m->to[1], 2);
	ck_assert_uint_eq(m->borrowed, 6);
	ck_assert_uint_eq(m->gpus, 2);
	for (uint32_t j = 1; j <= 11; j++)
		ck_assert_msg(gq_view_preemptable(v, j, 10) == (j <= 8),
			      "job %u", j);
	ck_assert(gq_view_job(v, 10)->room);
	gq_view_free(v);
}
END_TEST

START_TEST(move_for_a_gang_all_nodes_or_none)
{
	gq_view_t *v = gang_move_case(300);
	gq_move_rules_t r = rules(600, 2, 0);

	lately = 0;
	ck_assert(!gq_view_move(v, &r));
	ck_assert_uint_eq(gq_view_move_of(v)->waiter, 0);
	/* in quota, not moved: c1, c2, d1, d2 (team-b's stay its usual
	 * victims, too few on any node) */
	ck_assert(!gq_view_preemptable(v, 1, 10));
	ck_assert(!gq_view_preemptable(v, 5, 10));
	ck_assert(!gq_view_preemptable(v, 9, 10));
	ck_assert(!gq_view_preemptable(v, 11, 10));
	ck_assert(!gq_view_job(v, 10)->room);
	ck_assert(gq_view_job(v, 10)->roomless);
	gq_view_free(v);
}
END_TEST

/* Each rule alone keeps the move from being made; nothing is offered. */
START_TEST(move_only_when_the_rules_allow)
{
	struct {
		const char *n1_acct, *b_acct;
		int64_t c_ends;
		gq_move_rules_t r;
		uint32_t lately;
		const char *why;
	} no[] = {
		{ "team-d", "team-b", 0, rules(0, 2, 0), 0, "moves off" },
		{ "team-d", "team-b", 0, rules(60, 2, 0), 0, "c1 (100 s) too old" },
		{ "team-d", "team-b", 0, rules(600, 0, 0), 0, "saved in this pass" },
		{ "team-d", "team-b", 0, rules(600, 20, 30), 0, "within the grace" },
		{ "team-d", "team-b", 0, rules(600, 2, 0), 2, "c2 moved lately" },
		{ "team-f", "team-f", 0, rules(600, 2, 0), 0,
		  "n1: room for c2 alone" },
		{ "team-d", "team-b", 1500, rules(600, 2, 0), 0, "n0 free by 1500" },
	};

	for (unsigned i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		gq_view_t *v = move_case(no[i].n1_acct, no[i].b_acct,
					 no[i].c_ends);

		lately = no[i].lately;
		ck_assert_msg(!gq_view_move(v, &no[i].r), "%s", no[i].why);
		ck_assert_uint_eq(gq_view_move_of(v)->waiter, 0);
		ck_assert_msg(!gq_view_preemptable(v, 1, 10), "%s", no[i].why);
		ck_assert(gq_view_job(v, 10)->roomless);
		gq_view_free(v);
	}
	/* c2 pinned (--nodelist): c1 alone is short.  team-c asking one
	 * more GPU does not keep the move: team-c holds its quota, c1 and
	 * c2 restart first in its queue (moved_job_restarts_first) */
	for (int t = 0; t < 2; t++) {
		gq_view_t *v;
		gq_move_rules_t r = rules(600, 2, 0);

		c2_pinned = t == 0;
		c_pends = t == 1;
		v = move_case("team-d", "team-b", 0);
		lately = 0;
		ck_assert_msg(gq_view_move(v, &r) == c_pends, "tweak %d", t);
		ck_assert(gq_view_preemptable(v, 1, 10) == c_pends);
		gq_view_free(v);
	}
	c2_pinned = c_pends = false;
	/* n0 free by 1601: later than now + 600, the move is made */
	{
		gq_view_t *v = move_case("team-d", "team-b", 1601);
		gq_move_rules_t r = rules(600, 2, 0);

		lately = 0;
		ck_assert(gq_view_move(v, &r));
		gq_view_free(v);
	}
}
END_TEST

/*
 * The bound.  Now 1000, nodes n0 and n1 of 8 GPUs (C = 16).
 *   n0: 2 idle; team-c's c1 (job 1, 3 GPUs, started 990: 30 GPU-seconds
 *       to lose), c2 (job 2, 1 GPU, started 900: 100), c3 (job 9, 1 GPU,
 *       started 880: 120); team-d's d1 (job 5, 1 GPU, started 100: too
 *       old to move);
 *   n1: team-d's d2 (job 6, 5 GPUs), team-b's b3, b4, b5 (jobs 7, 8, 11).
 * team-c (q 5) holds 5, team-d (q 7) 6: in quota; team-b (q 0) borrows 3.
 * a1 (team-a, q 4) needs 4 on one node: n0 2 + 0, n1 0 + 3: no room; n0
 * is saved (more idle).  A move needs 4 - 2 - 0 = 2 moved GPUs.  c1 loses
 * least, and could land on n1 (3 >= 3), but 2 + 3 > 4: it would be
 * requeued for a GPU a1 cannot use.  c2 lands on n1 (b3-b5: 3), c3 too
 * (3 - 1 kept).  d1 is not moved.
 */
START_TEST(move_requeues_no_more_than_it_needs)
{
	gq_view_t *v;

	v = view_with((const int[]){ 4, 0, 5, 7, 0 });
	two_nodes_at(v, 16, NOW, 2, 0);
	job_at_t j[] = { { 1, 3, 0, 990, 0, "team-c" },
			 { 2, 1, 0, 900, 0, "team-c" },
			 { 9, 1, 0, 880, 0, "team-c" },
			 { 5, 1, 0, 100, 0, "team-d" },
			 { 6, 5, 1, 100, 0, "team-d" },
			 { 7, 1, 1, 120, 0, "team-b" }, { 8, 1, 1, 130, 0, "team-b" },
			 { 11, 1, 1, 140, 0, "team-b" } };
	place(v, j, sizeof(j) / sizeof(j[0]));
	add(v, "team-a", shaped(pending(10, 4, 500), 4, 1));
	moves_two(v, 2, 9, 2);
	ck_assert(!gq_view_preemptable(v, 1, 10));
	ck_assert(!gq_view_preemptable(v, 5, 10));
	ck_assert(gq_view_preemptable(v, 2, 10));
	ck_assert(gq_view_preemptable(v, 9, 10));
	gq_view_free(v);
}
END_TEST

/*
 * Moving more spares a borrowed victim that would pass the bound.  Now
 * 1000, n0 and n1 of 8 GPUs.  n0: team-b's b1 (job 3, 3 GPUs, borrowed),
 * team-c's c1 (job 1, 2 GPUs, started 900), c2 (job 2, 2, started 950),
 * team-f's f1 (job 5, 1 GPU, started 100: too old to move); no GPU idle.
 * n1: team-d's d1 (job 6, 4 GPUs), 4 idle.  team-c (q 4), team-d (q 4),
 * team-f (q 1) in quota; team-b (q 0) borrows.  a1 (team-a, q 4) needs 4
 * on n0 alone (its partition): idle 0 + b1 3 < 4, no room; n0 saved.
 * c2 loses least (100 GPU-seconds, c1 200) and lands on n1 (4 idle), m
 * = 2; b1 then takes b + m to 5 > 4.  c1 lands on n1 too (4 - 2 kept),
 * m = 4 = g: a1 fits with no borrowed victim.  b1 and f1 stay.
 */
/* n0 and n1 of 8 GPUs, 0 and 4 idle, jobs j placed; a1 (job 10, team-a)
 * asks 4 GPUs on n0 alone (node group 1). */
static gq_view_t *n0_alone(const int quota[5], const job_at_t *j,
			   unsigned n)
{
	gq_view_t *v = view_with(quota);
	gq_job_in_t a1 = shaped(pending(10, 4, 500), 4, 1);

	two_nodes_at(v, 16, NOW, 0, 4);
	ck_assert_int_eq(gq_view_set_groups(v, 1), 0);
	ck_assert_int_eq(gq_view_node_group(v, 0, 1), 0);
	place(v, j, n);
	a1.node_group = 1;
	add(v, "team-a", a1);
	return v;
}

START_TEST(move_more_rather_than_past_the_bound)
{
	job_at_t j[] = { { 3, 3, 0, 100, 0, "team-b" },
			 { 1, 2, 0, 900, 0, "team-c" },
			 { 2, 2, 0, 950, 0, "team-c" },
			 { 5, 1, 0, 100, 0, "team-f" },
			 { 6, 4, 1, 100, 0, "team-d" } };
	gq_view_t *v = n0_alone((const int[]){ 4, 0, 4, 4, 1 }, j,
				sizeof(j) / sizeof(j[0]));

	moves_two(v, 2, 1, 4);
	for (uint32_t id = 1; id <= 6; id++)
		ck_assert_msg(gq_view_preemptable(v, id, 10) == (id <= 2),
			      "job %u", id);
	gq_view_free(v);
}
END_TEST

/*
 * The borrowed victims that fit with the moved jobs, not the first ones
 * in reclaim order.  Now 1000, n0 and n1 of 8 GPUs.  n0: team-b's b1
 * (job 3, 1 GPU, started 990: loses least, reclaimed first) and b2 (job
 * 4, 2 GPUs, started 900), team-c's c2 (job 2, 2 GPUs, started 950) and
 * c1 (job 1, 1 GPU, started 800), team-f's f1 (job 5, 2 GPUs, started
 * 100: too old to move); none idle.  n1: team-d's d1 (job 6, 4 GPUs), 4
 * idle.  a1 (q 4) needs 4 on n0 alone: idle 0 + b1 + b2 = 3, no room.
 * c2 loses 100 GPU-seconds, c1 200: c2 first, to n1; m = 2.  Then b in
 * [4 - 0 - 2, 4 - 2] = [2, 2]: b1 (1) leaves only 1 or 3 with b2, so it
 * is passed over; b2 (2) fits.  One move: c2 with b2; b1, c1, f1 stay.
 */
START_TEST(move_takes_the_borrowed_victims_that_fit)
{
	job_at_t j[] = { { 3, 1, 0, 990, 0, "team-b" },
			 { 4, 2, 0, 900, 0, "team-b" },
			 { 2, 2, 0, 950, 0, "team-c" },
			 { 1, 1, 0, 800, 0, "team-c" },
			 { 5, 2, 0, 100, 0, "team-f" },
			 { 6, 4, 1, 100, 0, "team-d" } };
	gq_view_t *v = n0_alone((const int[]){ 4, 0, 3, 4, 2 }, j,
				sizeof(j) / sizeof(j[0]));
	gq_move_rules_t r = rules(600, 2, 0);
	const gq_move_t *m;

	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(gq_view_job(v, 10)->roomless);
	ck_assert(gq_view_save_node(v, 10, -1));
	lately = 0;
	ck_assert(gq_view_move(v, &r));
	m = gq_view_move_of(v);
	ck_assert_int_eq(m->n, 1);
	ck_assert_uint_eq(m->moved[0], 2);
	ck_assert_int_eq(m->to[0], 1);
	ck_assert_uint_eq(m->borrowed, 2);
	ck_assert_uint_eq(m->gpus, 2);
	for (uint32_t id = 1; id <= 6; id++)
		ck_assert_msg(gq_view_preemptable(v, id, 10) ==
				      (id == 2 || id == 4),
			      "job %u", id);
	gq_view_free(v);
}
END_TEST

/*
 * A landing still kept is no room for another move: the move case with
 * team-f's job 12 (2 GPUs), moved earlier, waiting out its requeue delay
 * to restart on n1.  n1's room for c2 is b3 + b4 = 2, all kept for job
 * 12: c2 and c1 have no landing, so nothing moves.
 */
START_TEST(move_leaves_a_landing_kept)
{
	gq_view_t *v = view_with((const int[]){ 4, 0, 2, 2, 4 });
	gq_reclaim_at_t kept = { .preemptor = 12, .landing = true,
				 .nnodes = 1, .node = { 1 } };
	gq_move_rules_t r = rules(600, 2, 0);
	gq_job_in_t x = pending(12, 2, 700);

	move_fill(v, "team-d", "team-b", 0, NOW);
	x.state = GQ_JOB_WAITING;
	x.begins_later = true;
	add(v, "team-f", x);
	ck_assert_int_eq(gq_view_expect_reclaims(v, &kept, 1), 0);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(gq_view_save_node(v, 10, -1));
	ck_assert_int_eq(gq_view_saved_node(v)->node, 0);
	lately = 0;
	ck_assert(!gq_view_move(v, &r));
	gq_view_free(v);
}
END_TEST

/* The state with the small case's projects and settings.move_age. */
static char *move_state(int age)
{
	char json[512];

	snprintf(json, sizeof(json),
		 "{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 4},"
		 " {\"name\": \"team-b\", \"gpu_quota\": 0},"
		 " {\"name\": \"team-c\", \"gpu_quota\": 2},"
		 " {\"name\": \"team-d\", \"gpu_quota\": 2}],"
		 " \"settings\": {\"move_age\": %d}}", age);
	return state_with(json);
}

/* One pass of the state at `now`, both nodes draining when `closed`
 * (a1 then waits on no node): its move's waiter (0: none). */
static uint32_t state_pass_at(int64_t now, bool closed)
{
	gq_view_t *v = gq_state_next()->view[0];

	move_fill(v, "team-d", "team-b", 0, now);
	if (closed) {
		gq_view_close_node(v, 0);
		gq_view_close_node(v, 1);
	}
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), now), 0);
	ck_assert_uint_eq(gq_view_saved_for(v), closed ? 0 : 10);
	gq_state_publish();
	return gq_view_move_of(gq_state_view()->view[0])->waiter;
}

static uint32_t state_pass(int64_t now)
{
	return state_pass_at(now, false);
}

/*
 * Through the state, with settings.move_age 600 (grace_time 0): n0 is
 * saved for a1 in the first pass (waited 0: no move), and a pass later
 * c2 and c1 are moved.  The ledger's record of c2's requeue says move,
 * and no requeue budget counts it.  c2 moved, the next passes make no
 * move (c1 alone is short), after a restart too (the ledger read back),
 * until move_window (3600 s) is over.  A waiter for which a job was
 * moved lately gets no second move.
 */
START_TEST(move_through_the_state_and_the_ledger)
{
	char *f = move_state(600);
	const gq_view_t *v;
	gq_ledger_rec_t r;

	ck_assert_uint_eq(state_pass(NOW), 0);
	ck_assert_uint_eq(state_pass(NOW + 2), 10);
	v = gq_state_view()->view[0];
	gq_ledger_record(&r, NULL, v, gq_view_job(v, 10), gq_view_job(v, 2),
			 NOW + 2);
	ck_assert_int_eq(r.reason, GQ_RECLAIM_MOVE);
	ck_assert_str_eq(gq_ledger_reason(r.reason), "move");
	ck_assert_uint_eq(r.lost, 52);	/* 1 GPU x (1002 - 950) */
	ck_assert(gq_state_ledger_note(&r));
	ck_assert_int_eq(gq_state_losses(NOW + 2)->n, 0);
	/* b1's requeue is a quota reclaim: counted */
	gq_ledger_record(&r, NULL, v, gq_view_job(v, 10), gq_view_job(v, 3),
			 NOW + 2);
	ck_assert_int_eq(r.reason, GQ_RECLAIM_QUOTA);
	ck_assert_int_eq(gq_view_move_to(v, 10, 3), -1);
	ck_assert_uint_eq(state_pass(NOW + 4), 0);
	/* a restart: the ledger's move read back */
	gq_ledger_record(&r, NULL, v, gq_view_job(v, 10), gq_view_job(v, 2),
			 NOW + 2);
	state_done(f);
	f = move_state(600);
	gq_state_losses_load(&r, 1, NOW + 6);
	ck_assert_uint_eq(state_pass(NOW + 6), 0);
	ck_assert_uint_eq(state_pass(NOW + 8), 0);
	/* the window over (c2 then 3 601 s old: young enough by clock
	 * only in this test's numbers, so move_age is raised) */
	state_done(f);
	f = move_state(86400);
	gq_state_losses_load(&r, 1, NOW + 3602);
	ck_assert_uint_eq(state_pass(NOW + 3602), 0);
	ck_assert_uint_eq(state_pass(NOW + 3604), 10);
	state_done(f);
	/* one move a waiter: a job (99) moved for a1 lately, none since */
	f = move_state(600);
	r.victim = 99;
	gq_state_losses_load(&r, 1, NOW);
	ck_assert_uint_eq(state_pass(NOW), 0);
	ck_assert_uint_eq(state_pass(NOW + 2), 0);
	state_done(f);
}
END_TEST

/*
 * After the move (c2, c1 to n1, a1 running on n0 since 1003), a pass of
 * the state at `now`: c1 (job 1) and c2 (job 2) pending again, waiting
 * out the requeue delay until `begins` (then eligible), or c2 running on
 * n1 from `c2_start` (0: not yet); c1 still on n0 (ending after its
 * grace time) while c1_ends > now.  n1 runs d1, d2 and b3, one GPU idle
 * (b4 ended) unless c2 runs.  team-b pends b5 (job 20, 1 GPU, any node)
 * and b6 (job 21, 1 GPU, n0 alone: node group 1).  Returns b5's hold.
 */
static int64_t begins = NOW + 2 + 11, c1_ends;
static int b1_hold = -1;	/* b1 back, waiting out its delay: its hold */

static int landing_pass(int64_t now, int64_t c2_start, int *b6_hold)
{
	gq_view_t *v = gq_state_next()->view[0];
	gq_job_in_t c;

	two_nodes_at(v, 8, now, 0, c2_start ? 0 : 1);
	ck_assert_int_eq(gq_view_set_groups(v, 1), 0);
	ck_assert_int_eq(gq_view_node_group(v, 0, 1), 0);
	job_at_t r[] = { { 10, 4, 0, NOW + 3, 0, "team-a" },
			 { 5, 1, 1, 100, 0, "team-d" },
			 { 6, 1, 1, 110, 0, "team-d" },
			 { 7, 1, 1, 120, 0, "team-b" } };
	place(v, r, sizeof(r) / sizeof(r[0]));
	for (uint32_t id = 1; id <= 2; id++) {
		if (id == 2 && c2_start) {
			c = running(2, 1, c2_start);
			add(v, "team-c", c);
			ck_assert_int_eq(gq_view_place(v, 2, 1, 1), 0);
			continue;
		}
		if (id == 1 && c1_ends > now) {
			c = running(1, 1, 900);
			add(v, "team-c", c);
			ck_assert_int_eq(gq_view_place(v, 1, 0, 1), 0);
			continue;
		}
		c = pending(id, 1, 800 + id);
		c.begins_later = now < begins;
		c.state = c.begins_later ? GQ_JOB_WAITING : GQ_JOB_PENDING;
		add(v, "team-c", c);
	}
	pend(v, 20, "team-b", 1, 900);
	if (c_pends)
		pend(v, 11, "team-c", 1, 600);
	c = pending(21, 1, 901);
	c.node_group = 1;
	add(v, "team-b", c);
	if (b1_hold >= 0) {
		c = pending(3, 1, 700);
		c.state = GQ_JOB_WAITING;
		c.begins_later = true;
		add(v, "team-b", c);
	}
	gq_state_expect_reclaims(gq_state_next(), 0, now);
	ck_assert_int_eq(gq_view_compute(v), 0);
	gq_state_wait_for_reclaims(gq_state_next(), now);
	gq_state_publish();
	v = gq_state_view()->view[0];
	*b6_hold = gq_view_job(v, 21)->hold;
	if (b1_hold >= 0)
		b1_hold = gq_view_job(v, 3)->hold;
	return gq_view_job(v, 20)->hold;
}

/*
 * The move of move_through_the_state_and_the_ledger, noted at 1002 as
 * preempt/gpuquota notes it: c1 (job 1) and c2 (job 2) to n1, no grace
 * time, Slurm's requeue delay 11 s.  Returns the state file.
 */
static char *moved_both(void)
{
	char *f = move_state(600);

	ck_assert_uint_eq(state_pass(NOW), 0);
	ck_assert_uint_eq(state_pass(NOW + 2), 10);
	ck_assert_int_eq(gq_view_move_to(gq_state_view()->view[0], 10, 1), 1);
	gq_state_note_landing(2, 1, NOW + 2, 0, 11);
	gq_state_note_landing(1, 1, NOW + 2, 0, 11);
	return f;
}

/*
 * A moved job's landing is kept (docs/MODEL.md "Moves"): the move of
 * move_through_the_state_and_the_ledger noted at 1002 as preempt/gpuquota
 * does, c1 and c2 to n1, no grace time, Slurm's requeue delay 11 s: kept
 * until 1002 + 30 + 11 = 1043 unless seen requeued.  At 1004 both are:
 * kept until 1004 + 30 + 11 = 1045.  b5 (team-b, outside quota), which
 * could take n1's idle GPU, waits for c1 or c2; b6, of n0 alone, does
 * not.  The pass thread looks for both to start.  At 1006 c2 runs again
 * on n1: b5 waits for c1 alone.  At 1045 the wait is over: nobody waits.
 */
START_TEST(moved_job_keeps_its_landing)
{
	char *f = moved_both();
	uint32_t ids[4];
	int b6;

	ck_assert_int_eq(landing_pass(NOW + 4, 0, &b6), GQ_HOLD_RECLAIM);
	ck_assert_int_eq(b6, GQ_HOLD_NONE);
	ck_assert_uint_eq(gq_view_job(gq_state_view()->view[0], 20)->waits_for,
			  2);
	ck_assert_int_eq(gq_state_preemptors(ids, 4, NOW + 4), 2);
	ck_assert_int_eq(landing_pass(NOW + 6, NOW + 5, &b6), GQ_HOLD_RECLAIM);
	ck_assert_uint_eq(gq_view_job(gq_state_view()->view[0], 20)->waits_for,
			  1);
	ck_assert_int_eq(gq_state_preemptors(ids, 4, NOW + 6), 1);
	ck_assert_uint_eq(ids[0], 1);
	ck_assert_int_eq(landing_pass(NOW + 44, NOW + 5, &b6), GQ_HOLD_RECLAIM);
	ck_assert_int_eq(landing_pass(NOW + 45, NOW + 5, &b6), GQ_HOLD_NONE);
	ck_assert_int_eq(gq_state_preemptors(ids, 4, NOW + 45), 0);
	state_done(f);
}
END_TEST

/* Job `id`'s band in the view the last pass published. */
static gq_band_t band_of(uint32_t id)
{
	return gq_view_job(gq_state_view()->view[0], id)->band;
}

/*
 * A moved job restarts first in its project's queue (docs/MODEL.md
 * "Moves"): team-c (q 2) holds c1 and c2 and asks one GPU more, c3 (job
 * 11, 1 GPU, submitted before c1 and c2 are requeued).  The move is made
 * at 1002 as in moved_job_keeps_its_landing.  At 1004 c1 and c2 wait
 * out the requeue delay: team-c's sums start at a_p 0 + landings 2, so c1
 * and c2 are in quota and c3 is not (2 + 1 > 2).  Without the landings
 * counted c3 would be in quota (0 + 1 <= 2) and reclaim for a GPU its
 * project gets back with c1.  At 1014 both are eligible: still in quota,
 * c3 not.  At 1016 c2 runs again (1 + landing 1): the same.
 */
START_TEST(moved_job_restarts_first)
{
	char *f = move_state(600);
	int b6;

	c_pends = true;
	ck_assert_uint_eq(state_pass(NOW), 0);
	ck_assert_uint_eq(state_pass(NOW + 2), 10);
	gq_state_note_landing(2, 1, NOW + 2, 0, 11);
	gq_state_note_landing(1, 1, NOW + 2, 0, 11);
	for (int t = 0; t < 3; t++) {
		int64_t now = NOW + (int64_t[]){ 4, 14, 16 }[t];

		landing_pass(now, t == 2 ? NOW + 15 : 0, &b6);
		ck_assert_msg(band_of(11) != GQ_BAND_IN_QUOTA, "at %lld",
			      (long long)now);
		ck_assert_int_eq(band_of(1), GQ_BAND_IN_QUOTA);
		if (t < 2)
			ck_assert_int_eq(band_of(2), GQ_BAND_IN_QUOTA);
	}
	c_pends = false;
	state_done(f);
}
END_TEST

/* The move of moved_job_keeps_its_landing, c1's landing alone noted, c1
 * still on n0 until `ends` (its grace and KillWait): the state file. */
static char *c1_moved_and_ending(int64_t ends)
{
	char *f = move_state(600);

	ck_assert_uint_eq(state_pass(NOW), 0);
	ck_assert_uint_eq(state_pass(NOW + 2), 10);
	gq_state_note_landing(1, 1, NOW + 2, 0, 11);
	c1_ends = ends;
	return f;
}

/*
 * c1 slow to end: noted at 1002, still on n0 at 1040 (kept, the first
 * bound 1043 not reached), seen requeued at 1042 (begin time 1053): kept
 * until 1042 + 41 = 1083, past the first bound.
 */
START_TEST(landing_kept_past_a_slow_end)
{
	char *f = c1_moved_and_ending(NOW + 41);
	uint32_t ids[4];
	int b6;

	begins = NOW + 53;
	ck_assert_int_eq(landing_pass(NOW + 40, NOW + 5, &b6), GQ_HOLD_RECLAIM);
	ck_assert_int_eq(gq_state_preemptors(ids, 4, NOW + 40), 0);
	ck_assert_int_eq(landing_pass(NOW + 42, NOW + 5, &b6), GQ_HOLD_RECLAIM);
	ck_assert_int_eq(landing_pass(NOW + 82, NOW + 5, &b6), GQ_HOLD_RECLAIM);
	ck_assert_int_eq(landing_pass(NOW + 83, NOW + 5, &b6), GQ_HOLD_NONE);
	c1_ends = 0;
	begins = NOW + 2 + 11;
	state_done(f);
}
END_TEST

/* The clock steps back 202 s while c1 ends: its start (900) is its own,
 * not a restart; still kept. */
START_TEST(landing_kept_across_a_clock_step)
{
	char *f = c1_moved_and_ending(NOW + 41);
	int b6;

	ck_assert_int_eq(landing_pass(NOW - 200, NOW + 5, &b6),
			 GQ_HOLD_RECLAIM);
	c1_ends = 0;
	state_done(f);
}
END_TEST

/*
 * c1 (job 1) and c2 (job 2) as the first pass after a restart reads them
 * (gq_pass_landing): moved at 1002 for a1, to n1 (node 1), as their
 * system comments say; requeued at 1002 (pending, submit time 1002) or,
 * c1 when `warned`, still running on n0, warned at 1002 with a grace time
 * of 20 s (end time 1022).  KillWait 5 s, requeue delay 11 s.  Returns
 * how many landings were rebuilt.
 */
static int read_moved(int64_t now, bool warned)
{
	char c[512], why[192];
	int n = 0;

	snprintf(why, sizeof(why), GQ_MOVED_WHY, "n1");
	for (uint32_t id = 1; id <= 2; id++) {
		bool w = id == 1 && warned;
		gq_job_facts_t f = {
			.id = id, .job_state = w ? JOB_RUNNING : JOB_PENDING,
			.submit_time = w ? 800 : NOW + 2, .start_time = 900,
			.end_time = w ? NOW + 22 : 0 };

		if (w)
			snprintf(c, sizeof(c), GQ_RECLAIMED_WARNED, 10u,
				 "team-a", why);
		else
			snprintf(c, sizeof(c), GQ_RECLAIMED_LOST, 10u,
				 "team-a", why, 52ULL);
		n += gq_pass_landing(&f, c, w ? NOW + 2 : 0, now, 1, 5, 11);
	}
	return n;
}

/*
 * A slurmctld restart rebuilds a moved job's landing (docs/MODEL.md
 * "Moves"): the move of moved_job_keeps_its_landing at 1002, then a
 * restart (the state made again).  The first pass, at 1004, reads c1 and
 * c2 requeued at 1002: both kept until 1002 + 30 + 11 = 1043, and b5
 * waits (for c1, read first), b6 (n0 alone) not, as without the
 * restart; at 1006 c2 runs again on n1, and b5 waits for c1 until 1043.
 * Read at 1043, nothing is rebuilt.  c1 still warned on n0, read at 1045
 * (c2's requeue too old): c1 kept until 1002 + 30 + 20 + 5 + 11 = 1068
 * unless seen requeued.
 */
START_TEST(landing_rebuilt_after_a_restart)
{
	char *f = moved_both();
	int b6;

	state_done(f);
	f = move_state(600);
	ck_assert_int_eq(read_moved(NOW + 4, false), 2);
	ck_assert_int_eq(landing_pass(NOW + 4, 0, &b6), GQ_HOLD_RECLAIM);
	ck_assert_int_eq(b6, GQ_HOLD_NONE);
	ck_assert_uint_eq(gq_view_job(gq_state_view()->view[0], 20)->waits_for,
			  1);	/* the first read */
	ck_assert_int_eq(landing_pass(NOW + 6, NOW + 5, &b6), GQ_HOLD_RECLAIM);
	ck_assert_uint_eq(gq_view_job(gq_state_view()->view[0], 20)->waits_for,
			  1);
	ck_assert_int_eq(landing_pass(NOW + 42, NOW + 5, &b6),
			 GQ_HOLD_RECLAIM);
	ck_assert_int_eq(landing_pass(NOW + 43, NOW + 5, &b6), GQ_HOLD_NONE);
	state_done(f);
	f = move_state(600);
	ck_assert_int_eq(read_moved(NOW + 43, false), 0);
	state_done(f);
	f = move_state(600);
	c1_ends = NOW + 70;
	ck_assert_int_eq(read_moved(NOW + 45, true), 1);
	ck_assert_int_eq(landing_pass(NOW + 45, NOW + 5, &b6), GQ_HOLD_RECLAIM);
	ck_assert_uint_eq(gq_view_job(gq_state_view()->view[0], 20)->waits_for,
			  1);
	ck_assert_int_eq(landing_pass(NOW + 67, NOW + 5, &b6), GQ_HOLD_RECLAIM);
	ck_assert_int_eq(landing_pass(NOW + 68, NOW + 5, &b6), GQ_HOLD_NONE);
	c1_ends = 0;
	state_done(f);
}
END_TEST

/*
 * The move's borrowed victims wait out the same requeue delay as the
 * moved jobs, and Slurm may start one the moment its begin time passes,
 * before a pass sees it eligible: b1 (job 3, team-b, requeued at 1002,
 * begin time 1013) is held for the landing in advance at 1004, as b5 is.
 * It could take n1's idle GPU before c1 or c2 (CI saw b1 start there,
 * then requeued again by c1).
 */
START_TEST(moved_jobs_victims_held_in_advance)
{
	char *f = moved_both();
	int b6;

	b1_hold = 0;
	ck_assert_int_eq(landing_pass(NOW + 4, 0, &b6), GQ_HOLD_RECLAIM);
	ck_assert_int_eq(b1_hold, GQ_HOLD_RECLAIM);
	ck_assert_uint_eq(gq_view_job(gq_state_view()->view[0], 3)->waits_for,
			  2);
	b1_hold = -1;
	state_done(f);
}
END_TEST

/*
 * W's wait counts from the first pass that saved its node (move_age 600,
 * grace_time 0).  At 1000 and 1002 both nodes drain: a1 is a room waiter
 * on no node.  At 1004 they take work again: n0 saved, no move (saved in
 * this pass).  At 1006 the move.
 */
START_TEST(move_waits_from_the_first_save)
{
	char *f = move_state(600);

	ck_assert_uint_eq(state_pass_at(NOW, true), 0);
	ck_assert_uint_eq(state_pass_at(NOW + 2, true), 0);
	ck_assert_uint_eq(state_pass(NOW + 4), 0);
	ck_assert_uint_eq(state_pass(NOW + 6), 10);
	state_done(f);
}
END_TEST

Suite *move_suite(void)
{
	Suite *s = suite_create("move");
	TCase *tc = tcase_create("moves for a room waiter");

	tcase_add_test(tc, move_empties_the_saved_node);
	tcase_add_test(tc, move_empties_a_gangs_nodes);
	tcase_add_test(tc, move_for_a_gang_all_nodes_or_none);
	tcase_add_test(tc, move_only_when_the_rules_allow);
	tcase_add_test(tc, move_requeues_no_more_than_it_needs);
	tcase_add_test(tc, move_more_rather_than_past_the_bound);
	tcase_add_test(tc, move_takes_the_borrowed_victims_that_fit);
	tcase_add_test(tc, move_leaves_a_landing_kept);
	tcase_add_test(tc, move_through_the_state_and_the_ledger);
	tcase_add_test(tc, moved_job_keeps_its_landing);
	tcase_add_test(tc, landing_kept_past_a_slow_end);
	tcase_add_test(tc, landing_kept_across_a_clock_step);
	tcase_add_test(tc, landing_rebuilt_after_a_restart);
	tcase_add_test(tc, moved_jobs_victims_held_in_advance);
	tcase_add_test(tc, moved_job_restarts_first);
	tcase_add_test(tc, move_waits_from_the_first_save);
	suite_add_tcase(s, tc);
	return s;
}
