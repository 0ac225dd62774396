/*
 * test_room_wait.c - the node-targeted room wait (docs/MODEL.md "Holds",
 * room wait): the node a room waiter waits on (gq_room_wait_node), the
 * jobs that could start there (gq_waits_could_land) and so wait, and the
 * node kept from pass to pass (state.c); and the reclaim-in-flight hold
 * narrowed the same way, to the victims' nodes.  Numbers worked by hand.
 */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/room.h"
#include "core/waits.h"
#include "core/view.h"
#include "state/state.h"
#include "helpers.h"

/*
 * The cluster, now 100: nodes n0, n1, n2 of 4 GPUs and n3 of 2 (C = 14).
 * team-a (q 8) runs 8 GPUs, all in quota, each job with a --time end:
 *   n0: a1 3 GPUs (ends `a1_ends`), 1 idle;
 *   n1: a2 2 GPUs (ends 200), a3 1 GPU (ends 900), and team-c's c1 (1
 *       GPU, q 0: over quota, reclaimable), 0 idle;
 *   n2: a4 2 GPUs (ends 300), 2 idle;
 *   n3: 2 idle.
 * team-b (q 4) pends b1 (job 10): 4 GPUs on one node, in quota (A = 4).
 * Room on each node, idle + what b1 may reclaim: n0 1, n1 0 + 1, n2 2, n3
 * 2: short of 4 everywhere, so no room, but b1 fits n0, n1 or n2 emptied:
 * a room waiter.  When could b1 start on each node?
 *   n0: 1 idle, 3 more: a1's 3 at a1_ends (400);
 *   n1: 0 idle + 1 to reclaim, 3 more: a2's 2 at 200 (3), a3's 1 at 900;
 *   n2: 2 idle, 2 more: a4's 2 at 300;
 *   n3: 2 GPUs in all, fewer than 4: never.
 * Soonest: n2 (300), then n0 (400), then n1 (900).
 * Node group 1 is {n0, n1} (a partition, or a --constraint only they
 * match); team-d (q 2) is another project with work in quota.
 */
#define NOW 100

static gq_view_t *view_in(gq_view_t *v, int64_t a1_ends, int closed,
			  uint32_t b1_group)
{
	gq_job_in_t in;

	gq_view_begin(v, 14, NOW);
	ck_assert_int_eq(gq_view_set_nodes(v, 4), 0);
	ck_assert_int_eq(gq_view_set_groups(v, 1), 0);
	ck_assert_int_eq(gq_view_node_group(v, 0, 1), 0);
	ck_assert_int_eq(gq_view_node_group(v, 1, 1), 0);
	gq_view_node_free(v, 0, 1);
	gq_view_node_free(v, 1, 0);
	gq_view_node_free(v, 2, 2);
	gq_view_node_free(v, 3, 2);
	if (closed >= 0)
		gq_view_close_node(v, closed);
	placed_t r[] = { { 1, 3, 0, a1_ends, "team-a" }, { 2, 2, 1, 200, "team-a" },
			{ 3, 1, 1, 900, "team-a" }, { 4, 1, 1, 0, "team-c" },
			{ 5, 2, 2, 300, "team-a" } };
	add_placed(v, r, sizeof(r) / sizeof(r[0]));
	in = shaped(pending(10, 4, 50), 4, 1);
	in.node_group = b1_group;
	add(v, "team-b", in);
	return v;
}

static gq_project_cfg_t projects[4];

static gq_view_t *room_view(int64_t a1_ends, int closed, uint32_t b1_group)
{
	projects[0] = proj("team-a", 8, 1, GQ_NO_LIMIT);
	projects[1] = proj("team-b", 4, 1, GQ_NO_LIMIT);
	projects[2] = proj("team-c", 0, 1, GQ_NO_LIMIT);
	projects[3] = proj("team-d", 2, 1, GQ_NO_LIMIT);
	return view_in(view_of(projects, 4, NULL, 0), a1_ends, closed,
		       b1_group);
}

static gq_room_node_t node_for(gq_view_t *v, int prefer)
{
	ck_assert_int_eq(gq_view_compute(v), 0);
	return gq_room_wait_node(gq_view_pass(v), gq_view_job(v, 10), prefer);
}

/* b1 waits where it can start soonest: n2, by 300. */
START_TEST(room_wait_node_soonest)
{
	gq_view_t *v = room_view(400, -1, 0);
	const uint32_t *ids;
	gq_room_node_t at = node_for(v, -1);

	ck_assert_int_eq(gq_view_job(v, 10)->band, GQ_BAND_IN_QUOTA);
	ck_assert(!gq_view_job(v, 10)->room);
	ck_assert_int_eq(gq_view_room_waiters(v, &ids), 1);
	ck_assert_uint_eq(ids[0], 10);
	ck_assert_int_eq(at.node, 2);
	ck_assert_int_eq(at.when, 300);
	ck_assert_uint_eq(at.idle, 2);
	ck_assert_uint_eq(at.reclaim, 0);
	ck_assert_uint_eq(at.gpus, 4);
	/* the node it waited on before, while b1 may still use it */
	at = gq_room_wait_node(gq_view_pass(v), gq_view_job(v, 10), 1);
	ck_assert_int_eq(at.node, 1);
	ck_assert_uint_eq(at.reclaim, 1);	/* team-c's c1 */
	ck_assert_int_eq(at.when, 900);
	/* n3 has 2 GPUs: never b1's, even preferred */
	ck_assert_int_eq(gq_room_wait_node(gq_view_pass(v), gq_view_job(v, 10), 3).node, 2);
	gq_view_free(v);
}
END_TEST

/*
 * Nodes b1 cannot use are never chosen: n2 draining (takes no work): n0
 * (400); b1 in node group {n0, n1} (its partition or --constraint): n0.
 * Ties: a1 ends at 300 too, n0 and n2 both by 300: n2, 2 idle against 1.
 * a1 without a time limit: n0 never has room by --time (INT64_MAX), n2
 * still by 300; with n2 draining too, n1 by 900 comes before n0.
 */
START_TEST(room_wait_node_it_may_use)
{
	gq_view_t *v = room_view(400, 2, 0);
	gq_room_node_t at = node_for(v, 2);	/* preferred, but draining */

	ck_assert_int_eq(at.node, 0);
	ck_assert_int_eq(at.when, 400);
	ck_assert_uint_eq(at.idle, 1);
	gq_view_free(v);

	v = room_view(400, -1, 1);
	ck_assert_int_eq(node_for(v, -1).node, 0);
	gq_view_free(v);

	v = room_view(300, -1, 0);
	at = node_for(v, -1);
	ck_assert_int_eq(at.node, 2);
	ck_assert_int_eq(at.when, 300);
	gq_view_free(v);

	v = room_view(0, -1, 0);
	ck_assert_int_eq(node_for(v, -1).node, 2);
	ck_assert_int_eq(gq_room_wait_node(gq_view_pass(v), gq_view_job(v, 10), 0).when,
			 INT64_MAX);
	gq_view_free(v);
	v = room_view(0, 2, 0);
	ck_assert_int_eq(node_for(v, -1).node, 1);
	gq_view_free(v);
}
END_TEST

/*
 * room_view with, pending besides b1: c5 (11) team-c, 1 GPU, any node;
 * c6 (12) team-c, 1 GPU, node group {n0, n1}; c7 (13) team-c, 4 GPUs on
 * one node; c8 (14) team-c, 6 GPUs on one node; d1 (15) team-d, 1 GPU,
 * in quota (A = 1 <= 2).  Computed.
 */
static gq_view_t *waiting_view(void)
{
	gq_view_t *v = room_view(400, -1, 0);
	gq_job_in_t c6 = pending(12, 1, 52);

	pend(v, 11, "team-c", 1, 51);
	c6.node_group = 1;
	add(v, "team-c", c6);
	add(v, "team-c", shaped(pending(13, 4, 53), 4, 1));
	add(v, "team-c", shaped(pending(14, 6, 54), 6, 1));
	pend(v, 15, "team-d", 1, 55);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 15)->band, GQ_BAND_IN_QUOTA);
	return v;
}

/* The holds of jobs 10 (b1) to 15 (d1) of waiting_view, in that order. */
static void expect_holds(gq_view_t *v, const gq_hold_t want[6])
{
	for (uint32_t id = 10; id <= 15; id++)
		ck_assert_msg(gq_view_job(v, id)->hold == want[id - 10],
			      "job %u: hold %d, want %d", id,
			      gq_view_job(v, id)->hold, want[id - 10]);
}

/*
 * GPUs kept on n2 for b1: who waits.  Pending, besides b1:
 *   c5 (11) team-c, 1 GPU, any node: could start on n2: held;
 *   c6 (12) team-c, 1 GPU, node group {n0, n1}: never on n2: not held
 *        (the pool-wide wait held it; now it takes n0's idle GPU);
 *   c7 (13) team-c, 4 GPUs on one node: n2 has 4: held;
 *   c8 (14) team-c, 6 GPUs on one node: more than n2 has: not held;
 *   d1 (15) team-d, 1 GPU, in quota (A = 1 <= 2): never held.
 * Between passes: a team-c job of node group {n0, n1} is not held, one
 * of any node is, unless its --time ends it before b1 can start on n2
 * (by 300): it gives the GPU back in time (backfill).
 * What holding only the jobs that could start on n2 costs: c5 could have
 * started now on n0 (1 idle) or n3 (2 idle), and waits instead, at most
 * room_wait: 1 GPU x 30 s = 30 GPU-seconds per wait (Slurm might as well
 * have put it on n2, where it would take a GPU b1 waits for).  c7 could
 * start on no other node now (n0 1 idle, n1 0, n3 has 2 GPUs): nothing.
 * The pool-wide wait held c6 too: 2 GPUs x 30 s in all, and every idle GPU of
 * n0 and n3 stayed idle.
 */
START_TEST(room_wait_holds_who_could_land)
{
	gq_view_t *v = waiting_view();
	gq_job_in_t late = pending(16, 1, 60);
	const gq_room_node_t *at;
	uint32_t held_gpus = 0, id;

	ck_assert(gq_view_keep_room(v, 10, -1));
	ck_assert_uint_eq(gq_view_kept_for(v), 10);
	at = gq_view_kept_node(v);
	ck_assert_int_eq(at->node, 2);
	expect_holds(v, (gq_hold_t[6]){ GQ_HOLD_NONE, GQ_HOLD_ROOM,
					GQ_HOLD_NONE, GQ_HOLD_ROOM,
					GQ_HOLD_NONE, GQ_HOLD_NONE });
	ck_assert_uint_eq(gq_view_job(v, 11)->waits_for, 10);
	late.node_group = 1;
	ck_assert_int_eq(gq_view_add_job(v, "team-c", &late)->hold,
			 GQ_HOLD_NONE);
	late.id = 17;
	late.node_group = 0;
	ck_assert_int_eq(gq_view_add_job(v, "team-c", &late)->hold,
			 GQ_HOLD_ROOM);
	/* backfill: b1 can start on n2 by 300; now 100.  A --time of 200 s
	 * ends by 300: not held; 201 s ends after: held */
	late.id = 18;
	late.time_limit = 200;
	ck_assert_int_eq(gq_view_add_job(v, "team-c", &late)->hold,
			 GQ_HOLD_NONE);
	late.id = 19;
	late.time_limit = 201;
	ck_assert_int_eq(gq_view_add_job(v, "team-c", &late)->hold,
			 GQ_HOLD_ROOM);
	/* a requeued job waiting out its begin time is held in advance:
	 * Slurm may start it before the next pass; one waiting on nothing
	 * of its own (a person's hold) is not */
	late.id = 20;
	late.time_limit = 0;
	late.state = GQ_JOB_WAITING;
	late.begins_later = true;
	ck_assert_int_eq(gq_view_add_job(v, "team-c", &late)->hold,
			 GQ_HOLD_ROOM);
	late.id = 21;
	late.begins_later = false;
	ck_assert_int_eq(gq_view_add_job(v, "team-c", &late)->hold,
			 GQ_HOLD_NONE);

	/* the cost: held jobs of one node that fit another node's idle
	 * GPUs now (n0 1, n3 2): c5 alone, 1 GPU */
	for (id = 11; id <= 14; id++) {
		const gq_job_t *j = gq_view_job(v, id);
		uint32_t gpn = j->in.gpus_per_node ? j->in.gpus_per_node :
						     j->in.gpus;

		if (j->hold == GQ_HOLD_ROOM && gpn <= 2)
			held_gpus += j->in.gpus;
	}
	ck_assert_uint_eq(held_gpus, 1);

	/* nobody: nothing kept, no node */
	ck_assert(!gq_view_keep_room(v, 0, -1));
	ck_assert_int_eq(gq_view_kept_node(v)->node, -1);
	gq_view_free(v);
}
END_TEST

/*
 * The node is kept from pass to pass while b1 may use it: at 100 b1
 * waits on n2 (by 300); at 101 a1's time limit moves to 150, so n0 would
 * now be sooner, but b1 stays on n2, so that GPUs freed there since 100
 * are not given up.  n2 draining at 102: b1 moves to n0.
 */
START_TEST(room_wait_node_kept_between_passes)
{
	char *f = write_temp("{\"settings\": {\"room_wait\": 30},"
			     " \"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 8},"
			     " {\"name\": \"team-b\", \"gpu_quota\": 4},"
			     " {\"name\": \"team-c\", \"gpu_quota\": 0},"
			     " {\"name\": \"team-d\", \"gpu_quota\": 2}]}");
	char err[GQ_ERR_MAX];
	struct { int64_t a1_ends; int closed, node; } step[] = {
		{ 400, -1, 2 }, { 150, -1, 2 }, { 150, 2, 0 } };
	gq_view_t *v;

	gq_state_lock();
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	for (int s = 0; s < 3; s++) {
		v = view_in(gq_state_next()->view[0], step[s].a1_ends,
			    step[s].closed, 0);
		pend(v, 11, "team-c", 1, 51);
		ck_assert_int_eq(gq_view_compute(v), 0);
		ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(),
							    NOW + s), 1);
		ck_assert_uint_eq(gq_view_kept_for(v), 10);
		ck_assert_int_eq(gq_view_kept_node(v)->node, step[s].node);
		ck_assert_int_eq(gq_view_job(v, 11)->hold, GQ_HOLD_ROOM);
		/* at 101 a fresh choice would have been n0 */
		if (s == 1)
			ck_assert_int_eq(gq_room_wait_node(gq_view_pass(v),
				gq_view_job(v, 10), -1).node, 0);
		gq_state_publish();
	}
	gq_state_clear();
	gq_state_unlock();
	unlink(f);
	free(f);
}
END_TEST

/*
 * The reclaim-in-flight hold, narrowed the same way (docs/MODEL.md
 * "Holds"): only the jobs outside quotas that could start on a node the
 * victims free wait.  waiting_view, d1 (15) reclaiming, its victim on n2:
 *   c5 could start on n2: held, for d1; c6 could not (its nodes are n0
 *   and n1): not held; c7 (4 GPUs) could: held; c8 asks more than n2's
 *   4 GPUs: not held.
 * Victims' nodes not known (a reclaim rebuilt after a restart): every job
 * outside quotas waits, c6 and c8 too, as before this rule.
 * A second reclaim, for b1 (10), frees n0: c6 could start there: held,
 * for b1; c5 still for d1 (the first reclaim whose node it could take).
 */
START_TEST(reclaim_wait_only_where_victims_free)
{
	gq_view_t *v = waiting_view();
	gq_reclaim_at_t r[2] = { { .preemptor = 15, .nnodes = 1,
				   .node = { 2 } },
				 { .preemptor = 10, .nnodes = 1,
				   .node = { 0 } } };

	ck_assert_int_eq(gq_view_wait_for_reclaims(v, r, 1), 1);
	expect_holds(v, (gq_hold_t[6]){ GQ_HOLD_NONE, GQ_HOLD_RECLAIM,
					GQ_HOLD_NONE, GQ_HOLD_RECLAIM,
					GQ_HOLD_NONE, GQ_HOLD_NONE });
	ck_assert_uint_eq(gq_view_job(v, 11)->waits_for, 15);
	gq_view_free(v);

	for (int known = 0; known <= 1; known++) {
		v = waiting_view();
		if (!known) {
			gq_reclaim_at_t any = { .preemptor = 15, .nnodes = -1 };

			ck_assert_int_eq(gq_view_wait_for_reclaims(v, &any, 1),
					 1);
			ck_assert_int_eq(gq_view_job(v, 12)->hold,
					 GQ_HOLD_RECLAIM);
			ck_assert_int_eq(gq_view_job(v, 14)->hold,
					 GQ_HOLD_RECLAIM);
		} else {
			ck_assert_int_eq(gq_view_wait_for_reclaims(v, r, 2), 2);
			ck_assert_uint_eq(gq_view_job(v, 11)->waits_for, 15);
			ck_assert_int_eq(gq_view_job(v, 12)->hold,
					 GQ_HOLD_RECLAIM);
			ck_assert_uint_eq(gq_view_job(v, 12)->waits_for, 10);
			ck_assert_int_eq(gq_view_job(v, 14)->hold,
					 GQ_HOLD_NONE);
		}
		gq_view_free(v);
	}
}
END_TEST

/*
 * The victims' nodes of a reclaim in flight, as the state notes them: any
 * node until the first are noted; then those, each once; a 9th node, or
 * one not known: any node from then on.  A reclaim rebuilt after a
 * restart: the nodes of its victims still warned, any node once one is
 * requeued already.
 */
START_TEST(reclaim_nodes_noted)
{
	int n2 = 2, n0 = 0, many[GQ_RECLAIM_NODES + 1];

	for (int i = 0; i <= GQ_RECLAIM_NODES; i++)
		many[i] = i;
	gq_state_lock();
	ck_assert(!gq_state_reclaim_nodes(20, &n2, 1));	/* no reclaim */
	ck_assert(gq_state_note_reclaim(20, 100, 0));
	ck_assert_int_eq(gq_state()->inflight[0].nnodes, -1);
	ck_assert(gq_state_reclaim_nodes(20, &n2, 1));
	ck_assert_int_eq(gq_state()->inflight[0].nnodes, 1);
	ck_assert(!gq_state_reclaim_nodes(20, &n2, 1));	/* once */
	ck_assert(gq_state_reclaim_nodes(20, &n0, 1));
	ck_assert_int_eq(gq_state()->inflight[0].nnodes, 2);
	ck_assert(gq_state_reclaim_nodes(20, many, GQ_RECLAIM_NODES + 1));
	ck_assert_int_eq(gq_state()->inflight[0].nnodes, -1);
	ck_assert(!gq_state_reclaim_nodes(20, &n0, 1));	/* any, for good */

	/* rebuilt: a warned victim's nodes read back, then a requeued one's
	 * (not known): any node */
	ck_assert(gq_state_rebuild_reclaim(21, 90, 0));
	ck_assert_int_eq(gq_state()->inflight[1].nnodes, -1);
	gq_state_rebuild_nodes(21, &n2, 1);
	ck_assert_int_eq(gq_state()->inflight[1].nnodes, 1);
	gq_state_rebuild_nodes(21, NULL, -1);
	ck_assert_int_eq(gq_state()->inflight[1].nnodes, -1);
	ck_assert(!gq_state_reclaim_nodes(21, &n2, 1));
	ck_assert(gq_state_note_reclaim(22, 100, 0));
	ck_assert(gq_state_reclaim_nodes(22, NULL, -1));
	ck_assert_int_eq(gq_state()->inflight[2].nnodes, -1);

	/* the preemptors the pass thread looks up between passes: those
	 * whose wait (30 s) is not over.  At 110: 20 (since 100), 21 (90),
	 * 22 (100); at most 2 asked: 2.  At 120: 21's is over (90 + 30).
	 * At 130: none. */
	uint32_t ids[3];

	ck_assert_int_eq(gq_state_preemptors(ids, 3, 110), 3);
	ck_assert_uint_eq(ids[0] + ids[1] + ids[2], 20 + 21 + 22);
	ck_assert_int_eq(gq_state_preemptors(ids, 2, 110), 2);
	ck_assert_int_eq(gq_state_preemptors(ids, 3, 120), 2);
	ck_assert(ids[0] != 21 && ids[1] != 21);
	ck_assert_int_eq(gq_state_preemptors(ids, 3, 130), 0);
	gq_state_clear();
	gq_state_unlock();
}
END_TEST

/*
 * A gang's reclaim keeps its victims' nodes from in-quota jobs too
 * (docs/MODEL.md "Holds"): a gang needs every GPU freed there, and a job
 * of one GPU tried before it would take one.  2 nodes x 4 GPUs, idle.
 * team-g (q 9) pends g1, 4 GPUs on each of 2 nodes (A = 8), and g2 (1
 * GPU, A = 9: in quota); team-a (q 2) pends a1 (1 GPU, in quota); team-z
 * (q 0) pends z1 (outside quotas).
 *   team-b (q 4) pends b1, 4 GPUs on one node (in quota).
 *   g1 reclaims on n0 and n1: g2, a1, z1 and b1 could start there: all
 *   held, for g1 (the in-quota ones with the gang's text).
 *   b1 reclaims on n0 instead: only z1 is held; in-quota jobs take what
 *   comes free elsewhere.
 *   g1 and a1 both reclaim (a1 on n1): a1, a preemptor in flight itself,
 *   is not held; the others are, for g1.
 *   Over its quota: team-g (q 2, weight 10) pends g1 of 2 GPUs on each
 *   of 2 nodes (A = 4) and g2 (1 GPU, A = 1: in quota); team-b has q 0.
 *   The quotas leave 4 GPUs to share, team-g's part 3 (f = 5): g1
 *   reclaims in its fair share.  Its reclaim holds z1 and b1, outside
 *   quotas, not g2 or a1: in-quota work comes first.
 */
START_TEST(gang_reclaim_keeps_its_nodes)
{
	const char *team[4] = { "team-g", "team-a", "team-z", "team-b" };
	double quota[2][4] = { { 9, 2, 0, 4 }, { 2, 2, 0, 0 } };
	gq_reclaim_at_t gang = { .preemptor = 1, .nnodes = 2, .node = { 0, 1 } };
	gq_reclaim_at_t b1 = { .preemptor = 5, .nnodes = 1, .node = { 0 } };
	gq_reclaim_at_t r[2] = { b1,
				 { .preemptor = 3, .nnodes = 1, .node = { 1 } } };
	gq_project_cfg_t p[4];
	gq_hold_t want[4][5] = {
		{ GQ_HOLD_NONE, GQ_HOLD_RECLAIM, GQ_HOLD_RECLAIM,
		  GQ_HOLD_RECLAIM, GQ_HOLD_RECLAIM },
		{ GQ_HOLD_NONE, GQ_HOLD_NONE, GQ_HOLD_NONE, GQ_HOLD_RECLAIM,
		  GQ_HOLD_NONE },
		{ GQ_HOLD_NONE, GQ_HOLD_RECLAIM, GQ_HOLD_NONE,
		  GQ_HOLD_RECLAIM, GQ_HOLD_RECLAIM },
		{ GQ_HOLD_NONE, GQ_HOLD_NONE, GQ_HOLD_NONE,
		  GQ_HOLD_RECLAIM, GQ_HOLD_RECLAIM } };
	int c, i;

	for (c = 0; c < 4; c++) {
		gq_view_t *v;

		for (i = 0; i < 4; i++)
			p[i] = proj(team[i], quota[c == 3][i],
				    c == 3 && !i ? 10 : 1, GQ_NO_LIMIT);
		v = view_of(p, 4, NULL, 0);

		gq_view_begin(v, 8, 100);
		ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
		gq_view_node_free(v, 0, 4);
		gq_view_node_free(v, 1, 4);
		add(v, "team-g", c == 3 ? shaped(pending(1, 4, 50), 2, 2) :
					  shaped(pending(1, 8, 50), 4, 2));
		pend(v, 2, "team-g", 1, 51);
		pend(v, 3, "team-a", 1, 52);
		pend(v, 4, "team-z", 1, 53);
		add(v, "team-b", shaped(pending(5, 4, 54), 4, 1));
		ck_assert_int_eq(gq_view_compute(v), 0);
		ck_assert_int_eq(gq_view_job(v, 1)->band, c == 3 ?
				 GQ_BAND_FAIR_SHARE : GQ_BAND_IN_QUOTA);
		ck_assert_int_eq(gq_view_job(v, 3)->band, GQ_BAND_IN_QUOTA);
		r[0] = c == 1 ? b1 : gang;
		ck_assert_int_eq(gq_view_wait_for_reclaims(v, r, c == 2 ? 2 : 1),
				 c == 2 ? 2 : 1);
		for (i = 0; i < 5; i++)
			ck_assert_msg(gq_view_job(v, i + 1)->hold == want[c][i],
				      "case %d job %d: hold %d", c, i + 1,
				      gq_view_job(v, i + 1)->hold);
		gq_view_free(v);
	}
}
END_TEST

Suite *room_wait_suite(void)
{
	Suite *s = suite_create("room_wait");
	TCase *tc = tcase_create("the node a room waiter waits on");

	tcase_add_test(tc, room_wait_node_soonest);
	tcase_add_test(tc, room_wait_node_it_may_use);
	tcase_add_test(tc, room_wait_holds_who_could_land);
	tcase_add_test(tc, room_wait_node_kept_between_passes);
	suite_add_tcase(s, tc);
	tc = tcase_create("the reclaim-in-flight hold where victims free GPUs");
	tcase_add_test(tc, reclaim_wait_only_where_victims_free);
	tcase_add_test(tc, gang_reclaim_keeps_its_nodes);
	tcase_add_test(tc, reclaim_nodes_noted);
	suite_add_tcase(s, tc);
	return s;
}
