/*
 * test_state.c - the state both plugins share: answers come from the last
 * good pass, through reloads and failed passes.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "state/state.h"
#include "helpers.h"


/* The end of a test that loaded config files: the state cleared and
 * unlocked, each file (NULL: none) removed. */
static void end_state(char *a, char *b)
{
	gq_state_clear();
	gq_state_unlock();
	for (int i = 0; i < 2; i++) {
		char *f = i ? b : a;

		if (f) {
			unlink(f);
			free(f);
		}
	}
}

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
	v = gq_state_next()->view[0];
	gq_view_begin(v, 8, 100);
	run(v, 1, "team-a", 1, 10);
	run(v, 2, "team-a", 1, 10);
	ck_assert_int_eq(gq_view_compute(v), 0);
	gq_state_publish();
	ck_assert_ptr_eq(st->view->view[0], v);

	/* reload: the last good view still answers */
	ck_assert_int_eq(gq_state_load(b, err, sizeof(err)), 0);
	ck_assert_ptr_eq(st->view->view[0], v);
	ck_assert_int_eq(gq_view_add_job(st->view->view[0], "team-a", &late)->hold,
			 GQ_HOLD_LIMIT);

	/* a bad file changes nothing */
	ck_assert_int_ne(gq_state_load("/nonexistent/gpuquota.json", err,
				       sizeof(err)), 0);
	ck_assert_ptr_eq(st->view->view[0], v);

	/* a pass on the new config: its limit applies */
	v = gq_state_next()->view[0];
	ck_assert_ptr_ne(v, st->view->view[0]);
	gq_view_begin(v, 8, 200);
	run(v, 1, "team-a", 1, 10);
	run(v, 2, "team-a", 1, 10);
	ck_assert_int_eq(gq_view_compute(v), 0);
	gq_state_publish();
	late.id = 10;
	ck_assert_int_eq(gq_view_add_job(st->view->view[0], "team-a", &late)->hold,
			 GQ_HOLD_NONE);
	/* the view of the old config was dropped, not reused */
	ck_assert_ptr_ne(gq_state_next()->view[0], v);
	end_state(a, b);
}
END_TEST

/*
 * R6. After a config reload and before the next pass, a job submitted by
 * a project already at its gpu_limit must be held: priority_p_set answers
 * from the state's view, which is the last good pass until a pass on the
 * new config succeeds (never an empty view).
 */
START_TEST(reload_window_ignores_limit)
{
	char *path = write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 1, \"gpu_limit\": 2}]}");
	char err[GQ_ERR_MAX];
	gq_job_in_t in = { .id = 9, .state = GQ_JOB_PENDING, .gpus = 1,
			   .tasks = 1, .requeueable = true };
	gq_view_t *v;
	const gq_job_t *j;
	uint32_t id;

	gq_state_lock();
	ck_assert_int_eq(gq_state_load(path, err, sizeof(err)), 0);
	v = gq_state_next()->view[0];
	gq_view_begin(v, 8, 100);
	for (id = 1; id <= 2; id++)	/* team-a runs 2 GPUs */
		run(v, id, "team-a", 1, id);
	ck_assert_int_eq(gq_view_compute(v), 0);
	gq_state_publish();
	/* the reload (scontrol reconfigure), no pass yet */
	ck_assert_int_eq(gq_state_load(path, err, sizeof(err)), 0);
	j = gq_view_add_job(gq_state()->view->view[0], "team-a", &in);
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(j->hold, GQ_HOLD_LIMIT);	/* 3 > L = 2 */
	gq_state_clear();
	gq_state_unlock();
	unlink(path);
	free(path);
}
END_TEST

/* The projects of reclaim_pass, in a config file (caller removes it). */
static char *reclaim_config(void)
{
	return write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 2},"
			  " {\"name\": \"team-b\", \"gpu_quota\": 0},"
			  " {\"name\": \"team-c\", \"gpu_quota\": 0},"
			  " {\"name\": \"team-d\", \"gpu_quota\": 1}]}");
}

/*
 * The pass of a cluster of 4 GPUs: team-b (q 0) runs 4 x 1 GPU, team-a
 * (q 2) pends a1 (job 20, 2 GPUs, in quota: it reclaims), team-c (q 0)
 * pends c1 (21, 1 GPU, over), team-d (q 1) pends d1 (22, 1 GPU, in
 * quota).  a1 running instead when a1_runs.
 */
static gq_view_t *reclaim_pass(bool a1_runs)
{
	gq_view_t *v = gq_state_next()->view[0];

	gq_view_begin(v, 4, 100);
	for (uint32_t id = 1; id <= (a1_runs ? 2u : 4u); id++)
		run(v, id, "team-b", 1, id);
	if (a1_runs)
		run(v, 20, "team-a", 2, 90);
	else
		pend(v, 20, "team-a", 2, 20);
	pend(v, 21, "team-c", 1, 21);
	pend(v, 22, "team-d", 1, 22);
	ck_assert_int_eq(gq_view_compute(v), 0);
	return v;
}

static const char a100_h100[] =
	"{\"pools\": [{\"name\": \"a100\", \"partitions\": [\"a100\"]},"
	" {\"name\": \"h100\", \"partitions\": [\"h100\"]}],"
	" \"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 1}]}";

/*
 * A reclaim in flight belongs to its preemptor's pool, found by name when
 * a reload reorders the pools: team-a's job 20 in pool a100 reclaims at
 * 100; the file is reloaded with h100 listed first.  At 110 the next
 * pass's pool 0 (h100) has no reclaim to wait for, its pool 1 (a100) has.
 * A pool the last pass did not have waits for any reclaim in flight.
 */
START_TEST(reclaim_waiting_follows_pool_names)
{
	char *a = write_temp(a100_h100);
	char *b = write_temp("{\"pools\": [{\"name\": \"h100\", \"partitions\": [\"h100\"]},"
			     " {\"name\": \"a100\", \"partitions\": [\"a100\"]},"
			     " {\"name\": \"l40\", \"partitions\": [\"l40\"]}],"
			     " \"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 1}]}");
	char err[GQ_ERR_MAX];
	gq_pools_t *next;
	int k;

	gq_state_lock();
	ck_assert_int_eq(gq_state_load(a, err, sizeof(err)), 0);
	next = gq_state_next();
	for (k = 0; k < 2; k++)
		gq_view_begin(next->view[k], 4, 100);
	pend(next->view[0], 20, "team-a", 1, 90);
	for (k = 0; k < 2; k++)
		ck_assert_int_eq(gq_view_compute(next->view[k]), 0);
	gq_state_publish();
	ck_assert(gq_state_note_reclaim(20, 100, 0));

	ck_assert_int_eq(gq_state_load(b, err, sizeof(err)), 0);
	next = gq_state_next();
	ck_assert_int_eq(gq_pools_same(gq_state()->view, next, 0), 1);
	ck_assert_int_eq(gq_pools_same(gq_state()->view, next, 1), 0);
	ck_assert_int_eq(gq_pools_same(gq_state()->view, next, 2), -1);
	ck_assert(!gq_state_reclaim_waiting(next, 0, 110));	/* h100 */
	ck_assert(gq_state_reclaim_waiting(next, 1, 110));	/* a100 */
	ck_assert(gq_state_reclaim_waiting(next, 2, 110));	/* new */
	ck_assert(!gq_state_reclaim_waiting(next, 1, 100 + GQ_RECLAIM_WAIT));
	end_state(a, b);
}
END_TEST

/*
 * A reclaim's pause ends when its victims have left: job 20 reclaims at
 * 100 with a grace time of 60 s (KillWait + MessageTimeout 40 s: by the
 * clock, no new victims until 200), and so does 30.  A pass finds a
 * victim of each still leaving: 20 still settles at 150.  The next pass
 * finds none of 20's (they saved and exited): from then on 20 may take
 * new victims (an array's next task), where the clock alone would wait
 * until 200; 30, whose victim still leaves, settles until 200.  The
 * wait of work outside quotas (reclaim in flight) is not shortened.
 */
START_TEST(reclaim_pause_ends_when_victims_left)
{
	gq_state_lock();
	ck_assert(gq_state_note_reclaim(20, 100, 60));
	ck_assert(gq_state_note_reclaim(30, 100, 60));
	ck_assert(gq_state_reclaim_settling(20, 120, 40));
	gq_state_leaving_begin();
	gq_state_victim_leaving(20);
	gq_state_victim_leaving(30);
	gq_state_victim_leaving(99);	/* no reclaim in flight: nothing */
	gq_state_leaving_end();
	ck_assert(gq_state_reclaim_settling(20, 150, 40));
	gq_state_leaving_begin();
	gq_state_victim_leaving(30);
	gq_state_leaving_end();
	ck_assert(!gq_state_reclaim_settling(20, 171, 40));
	ck_assert(gq_state_reclaim_settling(30, 171, 40));
	ck_assert(gq_state_reclaim_settling(30, 199, 40));
	ck_assert(!gq_state_reclaim_settling(30, 200, 40));
	ck_assert_int_eq(gq_state_reclaim_wait(20), GQ_RECLAIM_WAIT + 60);
	end_state(NULL, NULL);
}
END_TEST

/*
 * A clock stepped back restarts a reclaim's waits from the step, never
 * for as long as the step: job 20 reclaims at 100000 with a grace time
 * of 60 s (settles until 100000 + 60 + 40).  The clock steps back a year
 * at 100010: now 100010 - 31536000 = T.  The victims still settle at T
 * (the wait starts again at T), and until T + 99; at T + 100 they no
 * longer do.  Work outside quotas waits for the reclaim until T +
 * GQ_RECLAIM_WAIT + 60, not a year.  Job 30's wait, noted at T + 200 and
 * read after the clock steps back an hour (T + 210 - 3600 = U): over at U
 * + GQ_RECLAIM_WAIT + 60.
 */
START_TEST(reclaim_waits_survive_a_clock_step)
{
	int64_t t = 100010 - 31536000, u = t + 210 - 3600;

	gq_state_lock();
	ck_assert(gq_state_note_reclaim(20, 100000, 60));
	ck_assert(gq_state_reclaim_settling(20, t, 40));
	ck_assert(gq_state_reclaim_settling(20, t + 99, 40));
	ck_assert(!gq_state_reclaim_settling(20, t + 100, 40));
	ck_assert(gq_state_reclaim_waiting(NULL, 0, t + GQ_RECLAIM_WAIT + 59));
	ck_assert(!gq_state_reclaim_waiting(NULL, 0, t + GQ_RECLAIM_WAIT + 60));
	ck_assert(gq_state_note_reclaim(30, t + 200, 60));
	ck_assert(gq_state_reclaim_waiting(NULL, 0, u));
	ck_assert(gq_state_reclaim_waiting(NULL, 0, u + GQ_RECLAIM_WAIT + 59));
	ck_assert(!gq_state_reclaim_waiting(NULL, 0, u + GQ_RECLAIM_WAIT + 60));
	end_state(NULL, NULL);
}
END_TEST

/*
 * Without a last pass (the first after a restart, or the command), a
 * reclaim in flight rebuilt from its victims belongs to the pool its
 * preemptor is in in the pass itself: team-a's job 20 pends in a100 and
 * its victim, warned at 100 for 30 s, is rebuilt at 110; a100 waits for
 * it, h100 does not; at 100 + 30 + GQ_RECLAIM_WAIT nothing waits.
 */
START_TEST(reclaim_waiting_without_last_pass)
{
	char *a = write_temp(a100_h100);
	char err[GQ_ERR_MAX];
	gq_pools_t *next;
	int k;

	gq_state_lock();
	ck_assert_int_eq(gq_state_load(a, err, sizeof(err)), 0);
	ck_assert_ptr_null(gq_state()->view);
	next = gq_state_next();
	for (k = 0; k < 2; k++)
		gq_view_begin(next->view[k], 4, 110);
	pend(next->view[0], 20, "team-a", 1, 90);
	ck_assert(gq_state_rebuild_reclaim(20, 100, 30));
	ck_assert(gq_state_reclaim_waiting(next, 0, 110));
	ck_assert(!gq_state_reclaim_waiting(next, 1, 110));
	ck_assert(!gq_state_reclaim_waiting(next, 0, 130 + GQ_RECLAIM_WAIT));
	end_state(a, NULL);
}
END_TEST

/*
 * Freed GPUs are kept for the job they were reclaimed for: while a1's
 * victims leave, c1 (over quota) waits, d1 (in quota) does not, and a job
 * submitted meanwhile outside quota waits too.  Once a1 runs nothing
 * waits.  The wait lasts GQ_RECLAIM_WAIT from a1's first reclaim, and a
 * later reclaim for a1 does not renew it.
 */
START_TEST(freed_gpus_kept_for_preemptor)
{
	char *f = reclaim_config();
	char err[GQ_ERR_MAX];
	gq_job_in_t late = { .id = 23, .state = GQ_JOB_PENDING, .gpus = 1,
			     .tasks = 1, .requeueable = true };
	gq_view_t *v;

	gq_state_lock();
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	v = reclaim_pass(false);
	ck_assert_int_eq(gq_view_job(v, 20)->band, GQ_BAND_IN_QUOTA);
	ck_assert(gq_view_preemptable(v, 1, 20));
	/* no reclaim in flight: nobody waits */
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 100), 0);
	ck_assert_int_eq(gq_view_job(v, 21)->hold, GQ_HOLD_NONE);

	gq_state_note_reclaim(20, 100, 0);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 101), 1);
	gq_state_publish();
	ck_assert_int_eq(gq_view_job(v, 21)->hold, GQ_HOLD_RECLAIM);
	ck_assert_uint_eq(gq_view_job(v, 21)->waits_for, 20);
	ck_assert_int_eq(gq_view_job(v, 22)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(gq_view_job(v, 20)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(gq_view_add_job(v, "team-c", &late)->hold,
			 GQ_HOLD_RECLAIM);

	/* still pending GQ_RECLAIM_WAIT later: nobody waits any more, and
	 * another reclaim for a1 does not renew it */
	v = reclaim_pass(false);
	gq_state_note_reclaim(20, 100 + GQ_RECLAIM_WAIT, 0);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 100 + GQ_RECLAIM_WAIT), 0);
	ck_assert_int_eq(gq_view_job(v, 21)->hold, GQ_HOLD_NONE);
	gq_state_publish();

	/* a1 runs: its reclaim is over and forgotten */
	v = reclaim_pass(true);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 102), 0);
	ck_assert_int_eq(gq_state()->ninflight, 0);
	ck_assert_int_eq(gq_view_job(v, 21)->hold, GQ_HOLD_NONE);
	gq_state_publish();

	/* a1 pending again, its victims warned 20 s first (grace_time): the
	 * wait is 30 + 20 = 50 s; a later victim's longer grace (25 s)
	 * lengthens it to 55 s, still from the first reclaim at 200 */
	v = reclaim_pass(false);
	ck_assert(gq_state_note_reclaim(20, 200, 20));
	ck_assert_int_eq(gq_state_reclaim_wait(20), 50);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 249), 1);
	ck_assert(!gq_state_note_reclaim(20, 240, 25));
	ck_assert_int_eq(gq_state_reclaim_wait(20), 55);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 254), 1);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 255), 0);
	/* what the next pass expects (gq_view_expect_reclaim_wait) */
	ck_assert(gq_state_reclaim_waiting(NULL, 0, 254));
	ck_assert(!gq_state_reclaim_waiting(NULL, 0, 255));
	ck_assert_int_eq(gq_state_reclaim_wait(99), GQ_RECLAIM_WAIT);
	/* no new victims for a1 while the warned ones leave: 25 s of grace
	 * plus Slurm's own 40 s (KillWait 30 + MessageTimeout 10) */
	ck_assert(gq_state_reclaim_settling(20, 264, 40));
	ck_assert(!gq_state_reclaim_settling(20, 265, 40));
	ck_assert(!gq_state_reclaim_settling(99, 210, 40));
	gq_state_publish();
	end_state(f, NULL);
}
END_TEST

/*
 * The room wait's cluster: 2 nodes x 4 GPUs (C = 8).  team-a (q 5) runs
 * a1 (job 1, 2 GPUs, node 0) and a2 (2, 2 GPUs, node 1): 4 <= 5, in
 * quota, nothing of it reclaimable.  team-c (q 0) borrows 2 + 2: jobs 3, 4
 * on node 0, 5, 6 on node 1, all reclaimable (floor 0).  team-b (q 8)
 * pends b1 (job 10): 4 GPUs on one node, in quota (A = 4 <= 8).  Each node can
 * free 0 idle + 2 of team-c = 2 < 4: no room on any node, though b1
 * fits on either node emptied (4 GPUs).  team-c pends c7 (11, 1 GPU,
 * outside quotas); team-a pends a3 (12, 1 GPU, in quota: A = 5 <= 5).
 * a1_ended: node 0 has 2 idle GPUs instead of a1.  b1 asks
 * `gpn` GPUs per node (8: more than any node has).
 */
/* The running jobs of room_pass: a1 (when a1 runs) and a2, team-a's 2
 * GPUs on nodes 0 and 1; team-c's 3, 4 on node 0, 5, 6 on node 1. */
static void room_running(gq_view_t *v, bool a1)
{
	uint32_t id;

	if (a1) {
		run(v, 1, "team-a", 2, 10);
		ck_assert_int_eq(gq_view_place(v, 1, 0, 2), 0);
	}
	run(v, 2, "team-a", 2, 10);
	ck_assert_int_eq(gq_view_place(v, 2, 1, 2), 0);
	for (id = 3; id <= 6; id++) {
		run(v, id, "team-c", 1, 17 + id);
		ck_assert_int_eq(gq_view_place(v, id, id <= 4 ? 0 : 1, 1), 0);
	}
}

static gq_view_t *room_pass(int64_t now, bool a1_ended, uint32_t gpn)
{
	gq_view_t *v = gq_state_next()->view[0];

	gq_view_begin(v, 8, now);
	ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
	gq_view_node_free(v, 0, a1_ended ? 2 : 0);
	gq_view_node_free(v, 1, 0);
	room_running(v, !a1_ended);
	add(v, "team-b", shaped(pending(10, gpn, 50), gpn, 1));
	pend(v, 11, "team-c", 1, 51);
	pend(v, 12, "team-a", 1, 52);
	ck_assert_int_eq(gq_view_compute(v), 0);
	return v;
}

/*
 * One pass of room_pass at `now` (a1 running), work waiting for `waits`
 * jobs, c1 (11) held so: the view, published.
 */
static gq_view_t *room_step(int64_t now, int waits, gq_hold_t c1)
{
	gq_view_t *v = room_pass(now, false, 4);

	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), now),
			 waits);
	ck_assert_int_eq(gq_view_job(v, 11)->hold, c1);
	gq_state_publish();
	return v;
}

/* settings: "" or a "settings" member with its comma */
static char *room_config_with(const char *settings)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "{%s\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 5},"
		 " {\"name\": \"team-b\", \"gpu_quota\": 8},"
		 " {\"name\": \"team-c\", \"gpu_quota\": 0}]}", settings);
	return write_temp(text);
}

/* The room wait is off by default (settings.room_wait 0): these tests
 * turn it on, 30 s. */
#define ROOM_WAIT 30

static char *room_config(void)
{
	return room_config_with("\"settings\": {\"room_wait\": 30}, ");
}

/*
 * Freed GPUs are kept for an in-quota job that can get room on no node:
 * c7 (outside quotas) waits for b1, a3 (in quota) does not, a team-c job
 * submitted meanwhile waits too.  The wait lasts ROOM_WAIT from its
 * first pass and is not renewed.  When a1 ends, node 0 has 2 idle + 2 of
 * team-c = 4: room is made there (team-c's jobs 3 and 4, not 5 and 6), and
 * the reclaim's own wait takes over.
 */
START_TEST(freed_gpus_kept_for_room)
{
	char *f = room_config();
	char err[GQ_ERR_MAX];
	gq_job_in_t late = { .id = 13, .state = GQ_JOB_PENDING, .gpus = 1,
			     .tasks = 1, .requeueable = true };
	const uint32_t *ids;
	gq_view_t *v;

	gq_state_lock();
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	v = room_pass(100, false, 4);
	ck_assert_int_eq(gq_view_job(v, 10)->band, GQ_BAND_IN_QUOTA);
	ck_assert_int_eq(gq_view_job(v, 12)->band, GQ_BAND_IN_QUOTA);
	ck_assert(!gq_view_job(v, 10)->room);	/* no room within floors */
	ck_assert(!gq_view_preemptable(v, 1, 10));
	ck_assert_int_eq(gq_view_room_waiters(v, &ids), 1);
	ck_assert_uint_eq(ids[0], 10);
	ck_assert_int_eq(gq_view_job(v, 11)->hold, GQ_HOLD_NONE);

	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 100), 1);
	gq_state_publish();
	ck_assert_uint_eq(gq_view_kept_for(v), 10);
	ck_assert_int_eq(gq_view_job(v, 11)->hold, GQ_HOLD_ROOM);
	ck_assert_uint_eq(gq_view_job(v, 11)->waits_for, 10);
	ck_assert_int_eq(gq_view_job(v, 12)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(gq_view_job(v, 10)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(gq_view_add_job(v, "team-c", &late)->hold,
			 GQ_HOLD_ROOM);

	/* the next pass expects work outside quotas to wait: arrays are
	 * split at their band (gq_view_expect_reclaim_wait) */
	ck_assert(gq_state_reclaim_waiting(gq_state()->view, 0, 101));
	ck_assert(!gq_state_reclaim_waiting(gq_state()->view, 0,
					    100 + ROOM_WAIT));
	ck_assert(!gq_state_reclaim_waiting(NULL, 0, 101));

	/* one second before the end of the wait: still kept */
	room_step(100 + ROOM_WAIT - 1, 1, GQ_HOLD_ROOM);
	/* over, and not renewed for b1 later */
	v = room_step(100 + ROOM_WAIT, 0, GQ_HOLD_NONE);
	ck_assert_uint_eq(gq_view_kept_for(v), 0);
	room_step(200, 0, GQ_HOLD_NONE);

	/* a1 ends: node 0 has room (team-c's usual set, all 4 of its jobs,
	 * gives 2 + 2 there), so b1 reclaims and keeps no room wait */
	v = room_pass(201, true, 4);
	ck_assert(gq_view_preemptable(v, 3, 10));
	ck_assert(gq_view_preemptable(v, 4, 10));
	ck_assert(!gq_view_preemptable(v, 2, 10));
	ck_assert_int_eq(gq_view_room_waiters(v, &ids), 0);
	gq_state_note_reclaim(10, 201, 0);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 202), 1);
	ck_assert_int_eq(gq_view_job(v, 11)->hold, GQ_HOLD_RECLAIM);
	gq_state_publish();

	/* b1 gone (it ran): its room wait is forgotten */
	v = gq_state_next()->view[0];
	gq_view_begin(v, 8, 300);
	pend(v, 11, "team-c", 1, 51);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 300), 0);
	ck_assert_int_eq(gq_state()->nroomwait, 0);
	gq_state_publish();
	end_state(f, NULL);
}
END_TEST

/*
 * The room wait when the clock steps back a year: b1's wait begins at
 * 100 000 (ROOM_WAIT 30 s).  The clock steps back a year at 100 010: T =
 * 100 010 - 31 536 000.  The wait starts again at T: kept at T and T +
 * 29, over at T + 30 (not a year later), and not renewed.
 */
START_TEST(room_wait_survives_a_clock_step)
{
	char *f = room_config();
	char err[GQ_ERR_MAX];
	int64_t t = 100010 - 31536000;

	gq_state_lock();
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	room_step(100000, 1, GQ_HOLD_ROOM);
	room_step(t, 1, GQ_HOLD_ROOM);
	room_step(t + ROOM_WAIT - 1, 1, GQ_HOLD_ROOM);
	room_step(t + ROOM_WAIT, 0, GQ_HOLD_NONE);
	room_step(t + 100, 0, GQ_HOLD_NONE);
	end_state(f, NULL);
}
END_TEST

/*
 * A grace time and the room wait, one after the other.  As above, a1 has
 * ended: b1 takes team-c's 3 and 4 on node 0 with a grace time of 60 s.
 * While they are warned (at risk, still running) b1 has no room again,
 * but work outside quotas waits for b1's reclaim, 30 + 60 s, not for a
 * room wait (none begins while a reclaim is in flight).  Should 3 and 4
 * outlast that (a slow exit past G + KillWait), b1's room wait takes
 * over for 30 s more; then nothing is kept.
 */
static gq_view_t *grace_pass(int64_t now)
{
	gq_view_t *v = gq_state_next()->view[0];
	uint32_t id;

	gq_view_begin(v, 8, now);
	ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
	gq_view_node_free(v, 0, 0);
	gq_view_node_free(v, 1, 0);
	run(v, 2, "team-a", 2, 10);
	ck_assert_int_eq(gq_view_place(v, 2, 1, 2), 0);
	for (id = 3; id <= 6; id++) {
		gq_job_in_t in = running(id, 1, 17 + id);

		in.at_risk = id <= 4;	/* warned, leaving */
		add(v, "team-c", in);
		ck_assert_int_eq(gq_view_place(v, id, id <= 4 ? 0 : 1, 1), 0);
	}
	add(v, "team-b", shaped(pending(10, 4, 50), 4, 1));
	pend(v, 11, "team-c", 1, 51);
	pend(v, 12, "team-a", 1, 52);
	ck_assert_int_eq(gq_view_compute(v), 0);
	return v;
}

START_TEST(room_wait_after_a_grace_time)
{
	char *f = room_config();
	char err[GQ_ERR_MAX];
	const uint32_t *ids;
	gq_view_t *v;

	gq_state_lock();
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	v = room_pass(201, true, 4);
	ck_assert(gq_view_preemptable(v, 3, 10));
	ck_assert(gq_view_preemptable(v, 4, 10));
	ck_assert(gq_state_note_reclaim(10, 201, 60));
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 201), 1);
	ck_assert_int_eq(gq_view_job(v, 11)->hold, GQ_HOLD_RECLAIM);
	gq_state_publish();

	/* 39 s on, 3 and 4 in their grace time: b1 has no room, and waits
	 * for its reclaim, not as a room waiter */
	v = grace_pass(240);
	ck_assert(!gq_view_job(v, 10)->room);
	/* node 1's team-c jobs stay candidates of the view, but nothing new
	 * is offered to b1 while its victims leave (KillWait +
	 * MessageTimeout 40 s after the grace time) */
	ck_assert(gq_state_reclaim_settling(10, 240, 40));
	ck_assert_int_eq(gq_view_room_waiters(v, &ids), 1);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 240), 1);
	ck_assert_int_eq(gq_view_job(v, 11)->hold, GQ_HOLD_RECLAIM);
	ck_assert_uint_eq(gq_view_kept_for(v), 0);
	gq_state_publish();
	/* the last second of 30 + 60 */
	v = grace_pass(290);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 290), 1);
	ck_assert_int_eq(gq_view_job(v, 11)->hold, GQ_HOLD_RECLAIM);
	gq_state_publish();

	/* 3 and 4 outlast it: the room wait takes over, 30 s, once */
	v = grace_pass(291);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 291), 1);
	ck_assert_int_eq(gq_view_job(v, 11)->hold, GQ_HOLD_ROOM);
	ck_assert_uint_eq(gq_view_kept_for(v), 10);
	gq_state_publish();
	v = grace_pass(291 + ROOM_WAIT);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(),
						    291 + ROOM_WAIT),
			 0);
	ck_assert_int_eq(gq_view_job(v, 11)->hold, GQ_HOLD_NONE);
	gq_state_publish();
	end_state(f, NULL);
}
END_TEST

/*
 * A quota lowered below what the project holds (docs/MODEL.md "Quotas
 * edited while jobs run"), with min_runtime 25 s and reclaim_patience
 * 60 s.  2 nodes x 2 GPUs, now 100: team-a (q 4) runs a1 (n1, since 10),
 * a2 (n0, 11), a3 (n1, 30, its time limit ends it at 130), a4 (n0, 90).
 * Edit: team-a q 2, team-b q 2.  The first pass after it: team-a over
 * its quota, nobody waits, nothing is requeued.  Then team-b pends b1, b2 (1 GPU each, in quota):
 * team-a may lose 4 - 2 = 2; a4 is younger than min_runtime; b1 waits
 * for a3 (ends within 60 s) instead of requeueing it; b2 finds no loan
 * left and may take a2 (youngest past min_runtime but a3, counted on by
 * b1), never a4, never a1 (team-a's floor).
 */
START_TEST(lowered_quota_keeps_min_runtime_and_patience)
{
	char *a = write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 4},"
			     " {\"name\": \"team-b\", \"gpu_quota\": 0}],"
			     " \"settings\": {\"min_runtime\": 25, \"reclaim_patience\": 60}}");
	char *b = write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 2},"
			     " {\"name\": \"team-b\", \"gpu_quota\": 2}],"
			     " \"settings\": {\"min_runtime\": 25, \"reclaim_patience\": 60}}");
	char err[GQ_ERR_MAX];
	gq_view_t *v;

	gq_state_lock();
	for (int step = 0; step < 3; step++) {
		gq_job_in_t a3 = running(3, 1, 30);
		uint32_t id;

		ck_assert_int_eq(gq_state_load(step ? b : a, err, sizeof(err)), 0);
		v = gq_state_next()->view[0];
		gq_view_begin(v, 4, 100);
		ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
		run(v, 1, "team-a", 1, 10);
		run(v, 2, "team-a", 1, 11);
		a3.ends_by = 130;
		add(v, "team-a", a3);
		run(v, 4, "team-a", 1, 90);
		for (id = 1; id <= 4; id++)
			ck_assert_int_eq(gq_view_place(v, id, id % 2, 1), 0);
		if (step == 2) {
			pend(v, 20, "team-b", 1, 95);
			pend(v, 21, "team-b", 1, 96);
		}
		ck_assert_int_eq(gq_view_compute(v), 0);
		gq_state_publish();
		/* after the edit team-a is over its quota; its jobs are
		 * candidates, but for nobody: nothing pends */
		if (step == 1)
			ck_assert_uint_eq(project(v, "team-a")->alloc, 4);
	}
	ck_assert_int_eq(project(v, "team-a")->quota, 2);
	ck_assert(gq_view_job(v, 20)->patient);
	ck_assert_uint_eq(gq_view_job(v, 20)->waits_for, 3);
	for (uint32_t id = 1; id <= 4; id++)
		ck_assert(!gq_view_preemptable(v, id, 20));
	ck_assert(!gq_view_job(v, 21)->patient);
	ck_assert(gq_view_preemptable(v, 2, 21));
	ck_assert(!gq_view_preemptable(v, 4, 21));
	ck_assert(!gq_view_preemptable(v, 1, 21));
	end_state(a, b);
}
END_TEST

/*
 * GPUs are kept only where keeping them helps.  A job that can never fit
 * keeps nothing: b1 asks 8 GPUs on one node of 4 (in quota: A = 8 <= 8);
 * b1 asking 4 whose partition is node 2, down (no GPUs, no jobs),
 * neither.  Nor a job of one GPU (below).
 */
START_TEST(room_wait_only_when_it_helps)
{
	char *f = room_config();
	char err[GQ_ERR_MAX];
	gq_job_in_t b1 = shaped(pending(10, 4, 50), 4, 1);
	const uint32_t *ids;
	gq_view_t *v;
	uint32_t id;

	gq_state_lock();
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	v = room_pass(100, false, 8);
	ck_assert_int_eq(gq_view_job(v, 10)->band, GQ_BAND_IN_QUOTA);
	ck_assert_int_eq(gq_view_room_waiters(v, &ids), 0);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 100), 0);
	ck_assert_int_eq(gq_view_job(v, 11)->hold, GQ_HOLD_NONE);
	gq_state_publish();

	/* node 2, b1's only node, is down: 0 GPUs, no jobs */
	v = gq_state_next()->view[0];
	gq_view_begin(v, 8, 110);
	ck_assert_int_eq(gq_view_set_nodes(v, 3), 0);
	ck_assert_int_eq(gq_view_set_groups(v, 1), 0);
	ck_assert_int_eq(gq_view_node_group(v, 2, 1), 0);
	room_running(v, true);
	b1.node_group = 1;
	add(v, "team-b", b1);
	pend(v, 11, "team-c", 1, 51);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_room_waiters(v, &ids), 0);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 110), 0);
	ck_assert_int_eq(gq_view_job(v, 11)->hold, GQ_HOLD_NONE);
	gq_state_publish();

	/*
	 * Nothing to reclaim: team-a (2 + 2, q 5) and team-b (2 + 2, q 8)
	 * fill both nodes in quota.  b1 of 1 GPU (A = 5 <= 8) has no room,
	 * but any GPU that comes free fits it: nothing is kept.  b1 of 1
	 * GPU on each of 2 nodes (A = 6) is kept for.
	 */
	for (int shape = 1; shape <= 2; shape++) {
		v = gq_state_next()->view[0];
		gq_view_begin(v, 8, 120 + shape);
		ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
		for (id = 1; id <= 4; id++) {
			run(v, id, id <= 2 ? "team-a" : "team-b", 2, 10);
			ck_assert_int_eq(gq_view_place(v, id, id % 2, 2), 0);
		}
		add(v, "team-b", shaped(pending(10, shape, 50), 1, shape));
		pend(v, 11, "team-c", 1, 51);
		ck_assert_int_eq(gq_view_compute(v), 0);
		ck_assert_int_eq(gq_view_job(v, 10)->band, GQ_BAND_IN_QUOTA);
		ck_assert_int_eq(gq_view_room_waiters(v, &ids), shape - 1);
		ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(),
							    120 + shape),
				 shape - 1);
		ck_assert_int_eq(gq_view_job(v, 11)->hold,
				 shape == 1 ? GQ_HOLD_NONE : GQ_HOLD_ROOM);
		gq_state_publish();
	}
	end_state(f, NULL);
}
END_TEST

/*
 * settings.room_wait: 5 s keeps the GPUs for b1 from 100 to 104, not at
 * 105; 0 never keeps them, and neither does a configuration that does not
 * set it (the default is 0: docs/MODEL.md "Holds").
 */
START_TEST(room_wait_setting)
{
	char *f = room_config_with("\"settings\": {\"room_wait\": 5}, ");
	char *off = room_config_with("\"settings\": {\"room_wait\": 0}, ");
	char *unset = room_config_with("");
	char err[GQ_ERR_MAX];

	gq_state_lock();
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	ck_assert_int_eq(gq_state_room_wait(), 5);
	room_step(100, 1, GQ_HOLD_ROOM);
	room_step(104, 1, GQ_HOLD_ROOM);
	room_step(105, 0, GQ_HOLD_NONE);
	gq_state_clear();

	ck_assert_int_eq(gq_state_load(off, err, sizeof(err)), 0);
	ck_assert_int_eq(gq_state_room_wait(), 0);
	room_step(100, 0, GQ_HOLD_NONE);
	ck_assert_int_eq(gq_state()->nroomwait, 0);
	gq_state_clear();

	ck_assert_int_eq(gq_state_load(unset, err, sizeof(err)), 0);
	ck_assert_int_eq(gq_state_room_wait(), 0);
	room_step(100, 0, GQ_HOLD_NONE);
	ck_assert_int_eq(gq_state()->nroomwait, 0);
	unlink(unset);
	free(unset);
	end_state(f, off);
}
END_TEST

/* A job priority_p_set added between a pass's holds, added again to the
 * pass's view (as _added_since_read does); counted in *arg. */
static void add_again(gq_pools_t *pools, uint32_t id, void *arg)
{
	gq_job_in_t in = { .id = id, .state = GQ_JOB_PENDING, .gpus = 1,
			   .tasks = 1, .requeueable = true };

	ck_assert_ptr_nonnull(gq_view_add_job(pools->view[0], "team-c", &in));
	(*(int *)arg)++;
}

/*
 * A pass in two holds (docs/DEVELOPING.md): what happens to the published
 * view between its read and its write is made again on the pass's view
 * (a job gone leaves it, a job added is added), or, for a reclaim noted
 * or a configuration loaded, nothing is published and the pass is made
 * again.  reclaim_pass: team-b runs jobs 1-4 (1 GPU each) on 4 GPUs.
 */
START_TEST(pass_in_two_holds)
{
	char *f = reclaim_config();
	char err[GQ_ERR_MAX];
	gq_job_in_t late = { .id = 23, .state = GQ_JOB_PENDING, .gpus = 1,
			     .tasks = 1, .requeueable = true };
	gq_state_t *st = gq_state();
	gq_view_t *v0, *v1, *v2;
	uint64_t e;
	int added = 0;

	gq_state_lock();
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	v0 = reclaim_pass(false);
	gq_state_publish();

	/* read; then job 4 ends and job 23 is submitted */
	e = gq_state_pass_read();
	v1 = reclaim_pass(false);
	gq_state_job_gone(4);
	ck_assert_uint_eq(project(v0, "team-b")->alloc, 3);	/* at once */
	ck_assert_ptr_nonnull(gq_view_add_job(v0, "team-c", &late));
	gq_state_job_added(23);
	ck_assert_uint_eq(project(v1, "team-b")->alloc, 4);	/* as read */
	ck_assert(gq_state_pass_write(e, add_again, &added));
	ck_assert_ptr_eq(st->view->view[0], v1);
	ck_assert_uint_eq(project(v1, "team-b")->alloc, 3);	/* 4 - job 4 */
	ck_assert_int_eq(gq_view_job(v1, 4)->in.state, GQ_JOB_WAITING);
	ck_assert_int_eq(added, 1);
	ck_assert_int_eq(gq_view_job(v1, 23)->in.state, GQ_JOB_PENDING);

	/* outside a pass's holds nothing is noted: job 3 leaves the
	 * published view only, and the next pass reads it as it is */
	gq_state_job_gone(3);
	gq_state_job_added(24);
	ck_assert_uint_eq(project(v1, "team-b")->alloc, 2);
	e = gq_state_pass_read();
	v2 = reclaim_pass(false);
	ck_assert(gq_state_pass_write(e, add_again, &added));
	ck_assert_ptr_eq(st->view->view[0], v2);
	ck_assert_uint_eq(project(v2, "team-b")->alloc, 4);
	ck_assert_int_eq(added, 1);

	/* a reclaim noted between the holds: nothing published, nothing
	 * replayed; made again, it publishes */
	e = gq_state_pass_read();
	reclaim_pass(false);
	gq_state_job_added(25);
	ck_assert(gq_state_note_reclaim(20, 100, 0));
	ck_assert(!gq_state_pass_write(e, add_again, &added));
	ck_assert_ptr_eq(st->view->view[0], v2);
	ck_assert_int_eq(added, 1);
	e = gq_state_pass_read();
	v1 = reclaim_pass(false);
	ck_assert(gq_state_pass_write(e, add_again, &added));
	ck_assert_ptr_eq(st->view->view[0], v1);

	/* the same reclaim again changes nothing; a longer grace time for
	 * it does (the pass's holds waited for the shorter one) */
	e = gq_state_pass_read();
	reclaim_pass(false);
	ck_assert(!gq_state_note_reclaim(20, 101, 0));
	ck_assert(gq_state_pass_write(e, add_again, &added));
	e = gq_state_pass_read();
	reclaim_pass(false);
	ck_assert(!gq_state_note_reclaim(20, 102, 5));
	ck_assert(!gq_state_pass_write(e, add_again, &added));

	/* a reload between the holds: the pass read for the old one */
	e = gq_state_pass_read();
	reclaim_pass(false);
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	ck_assert(!gq_state_pass_write(e, add_again, &added));

	/* a pass that failed: what came after its read is not kept */
	e = gq_state_pass_read();
	gq_state_job_added(26);
	gq_state_pass_abandon();
	e = gq_state_pass_read();
	reclaim_pass(false);
	ck_assert(gq_state_pass_write(e, add_again, &added));
	ck_assert_int_eq(added, 1);
	end_state(f, NULL);
}
END_TEST

/*
 * Observe to enforce: the view published in observe was never written
 * into Slurm (no hold), so no reclaim is offered from it.  Observe:
 * neither acts.  Reload enforce: gpuquota acts, the view (published in
 * observe) does not.  The next publish (a pass in enforce, which writes
 * its holds): both.  Back to observe: neither, at once.
 */
START_TEST(view_acts_after_an_enforce_pass)
{
	char *obs = write_temp("{\"settings\": {\"mode\": \"observe\"},"
			       " \"projects\": [{\"name\": \"a\", \"gpu_quota\": 1}]}");
	char *enf = write_temp("{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 1}]}");
	char err[GQ_ERR_MAX];

	gq_state_lock();
	ck_assert_int_eq(gq_state_load(obs, err, sizeof(err)), 0);
	gq_state_publish();
	ck_assert(!gq_state_acts());
	ck_assert(!gq_state_view_acts());
	ck_assert_int_eq(gq_state_load(enf, err, sizeof(err)), 0);
	ck_assert(gq_state_acts());
	ck_assert(!gq_state_view_acts());
	gq_state_publish();
	ck_assert(gq_state_view_acts());
	ck_assert_int_eq(gq_state_load(obs, err, sizeof(err)), 0);
	ck_assert(!gq_state_view_acts());
	end_state(obs, enf);
}
END_TEST

Suite *state_suite(void)
{
	Suite *s = suite_create("state");
	TCase *tc = tcase_create("state");

	tcase_add_test(tc, reload_keeps_last_good_view);
	tcase_add_test(tc, reclaim_waiting_follows_pool_names);
	tcase_add_test(tc, reclaim_pause_ends_when_victims_left);
	tcase_add_test(tc, reclaim_waits_survive_a_clock_step);
	tcase_add_test(tc, reclaim_waiting_without_last_pass);
	tcase_add_test(tc, freed_gpus_kept_for_preemptor);
	tcase_add_test(tc, freed_gpus_kept_for_room);
	tcase_add_test(tc, room_wait_survives_a_clock_step);
	tcase_add_test(tc, view_acts_after_an_enforce_pass);
	tcase_add_test(tc, room_wait_after_a_grace_time);
	tcase_add_test(tc, lowered_quota_keeps_min_runtime_and_patience);
	tcase_add_test(tc, room_wait_only_when_it_helps);
	tcase_add_test(tc, room_wait_setting);
	tcase_add_test(tc, pass_in_two_holds);
	tcase_add_test(tc, reload_window_ignores_limit);
	suite_add_tcase(s, tc);
	return s;
}
