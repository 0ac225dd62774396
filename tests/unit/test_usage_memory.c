/*
 * test_usage_memory.c - what gpuquota remembers between and across
 * passes, and whose it is: the jobs a pass let through before they were
 * eligible (they bound the jobs submitted before the next pass), usage
 * kept by project identity, floors usage never moves, and the reclaim
 * pause rebuilt after a slurmctld restart.  Numbers worked by hand in
 * each test's comment.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "core/pools.h"
#include "state/state.h"
#include "state/usage.h"
#include "core/view.h"
#include "shared/job_facts.h"
#include "shared/pass_input.h"
#include "helpers.h"

static gq_job_in_t begins_later(uint32_t id, uint32_t gpus, int64_t submit)
{
	gq_job_in_t in = pending(id, gpus, submit);

	in.state = GQ_JOB_WAITING;
	in.begins_later = true;
	return in;
}

/*
 * A job submitted between passes is bounded by the jobs the pass let
 * through before they were eligible, as the pass would bound it.
 * team-a (q 1, L 2), C 8, all idle.  Pass: J (job 20, 1 GPU, eligible):
 * A = 1.  K (job 10, 1 GPU, requeued, waiting for its begin time): held
 * in advance only past L: 1 + 1 = 2 <= 2, let through.  N (job 30, 1
 * GPU) submitted before the next pass: J 1 + K 1 + N 1 = 3 > L 2: held
 * (gpu_limit), as the pass walking all three would hold one of them.
 * Without K (team-b, same numbers but K absent) N fits: 1 + 1 = 2.
 */
START_TEST(late_submit_bounded_by_begins_later_jobs)
{
	gq_project_cfg_t p[2] = { proj("team-a", 1, 1, 2),
				  proj("team-b", 1, 1, 2) };
	gq_view_t *v = view_of(p, 2, NULL, 0);
	const gq_job_t *n;

	gq_view_begin(v, 8, 100);
	pend(v, 20, "team-a", 1, 20);
	add(v, "team-a", begins_later(10, 1, 10));
	pend(v, 21, "team-b", 1, 21);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 10)->hold, GQ_HOLD_NONE);
	n = pend(v, 30, "team-a", 1, 30);	/* between passes */
	ck_assert_int_eq(n->hold, GQ_HOLD_LIMIT);
	ck_assert(!n->demand);
	ck_assert_int_eq(pend(v, 31, "team-b", 1, 31)->hold, GQ_HOLD_NONE);
	gq_view_free(v);
}
END_TEST

/*
 * The same job is counted once, whatever it does before the next pass.
 * team-a (q 1, L 2), C 8.  Pass: J (job 20) eligible, A = 1; K (job 10,
 * begins later) let through (1 + 1 <= 2).
 * - K's begin time passes (pending again): judged on J 1 + K 1 = 2 <= 2,
 *   not held (its own GPU no longer also in the later sum: 3 would hold
 *   it).  Then N (job 30): 1 + 1 + 1 = 3 > 2: held.
 * - Second pass, K let through again; K starts (running): a_p 1, and
 *   the sums J 1 + K 1 = 2.  N (job 31): 3 > 2: held.
 * - Third pass without J: K let through (0 + 1), K starts: 1; N (job
 *   32): 1 + 1 = 2 <= 2, not held (K not counted twice).
 */
START_TEST(begins_later_job_counted_once_between_passes)
{
	gq_project_cfg_t p[1] = { proj("team-a", 1, 1, 2) };
	gq_view_t *v = view_of(p, 1, NULL, 0);
	gq_job_in_t k = begins_later(10, 1, 10);

	gq_view_begin(v, 8, 100);
	pend(v, 20, "team-a", 1, 20);
	add(v, "team-a", k);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(pend(v, 10, "team-a", 1, 10)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(pend(v, 30, "team-a", 1, 30)->hold, GQ_HOLD_LIMIT);

	gq_view_begin(v, 8, 200);
	pend(v, 20, "team-a", 1, 20);
	add(v, "team-a", k);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 10)->hold, GQ_HOLD_NONE);
	run(v, 10, "team-a", 1, 210);
	ck_assert_int_eq(pend(v, 31, "team-a", 1, 31)->hold, GQ_HOLD_LIMIT);

	gq_view_begin(v, 8, 300);
	add(v, "team-a", k);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 10)->hold, GQ_HOLD_NONE);
	run(v, 10, "team-a", 1, 310);
	ck_assert_int_eq(pend(v, 32, "team-a", 1, 32)->hold, GQ_HOLD_NONE);
	gq_view_free(v);
}
END_TEST

/*
 * The same in a department: d (q 4, L 3) holds team-a (q 1) and team-b
 * (q 1), C 8.  Pass: team-a's J (job 20, 1 GPU) eligible: d at 1;
 * team-b's K (job 10, 1 GPU, begins later): d 1 + 1 = 2 <= 3, let
 * through.  team-b's N (job 30, 2 GPUs) submitted between passes: d 1 +
 * K 1 + 2 = 4 > L 3: held (department limit); without K, 3 <= 3.
 */
START_TEST(late_submit_bounded_by_department_begins_later_jobs)
{
	gq_project_cfg_t p[2] = { proj("team-a", 1, 1, GQ_NO_LIMIT),
				  proj("team-b", 1, 1, GQ_NO_LIMIT) };
	gq_dept_cfg_t d[1] = { dept("d", 4, 3) };
	gq_view_t *v;

	p[0].department = p[1].department = 0;
	v = view_of(p, 2, d, 1);
	gq_view_begin(v, 8, 100);
	pend(v, 20, "team-a", 1, 20);
	add(v, "team-b", begins_later(10, 1, 10));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 10)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(pend(v, 30, "team-b", 2, 30)->hold,
			 GQ_HOLD_DEPT_LIMIT);
	gq_view_free(v);
}
END_TEST

static gq_pools_t *pools_of(const char *json)
{
	char err[GQ_ERR_MAX];
	gq_config_t *cfg = NULL;
	gq_pools_t *p;

	ck_assert_msg(!gq_config_parse(json, "t.json", &cfg, err, sizeof(err)),
		      "%s", err);
	ck_assert_ptr_nonnull(p = gq_pools_new(cfg));
	gq_config_free(cfg);
	return p;
}

/*
 * Project "ml" (q 2) lists account "ml-a" only; -A ml (no project lists
 * it: a 0-quota project also shown "ml") runs 4 x 1 GPU; ml-a runs 2, at
 * its quota.  "a b" and "a;b" (unlisted, both shown "a?b") run 1 and 0.
 * H = 100 s, passes at t 1000 (starts the clock) and 1100: each GPU above
 * quota adds (1 - 1/2) x 100 / ln 2 = 72.1348 GPU-s.  The account ml:
 * 4 x 72.1348 = 288.539; "a b": 72.1348; configured ml: 0 (tilt 1);
 * "a;b": 0.
 */
static void same_names_pass(gq_pools_t *p, int64_t now)
{
	gq_view_t *v = p->view[0];

	gq_view_begin(v, 8, now);
	for (uint32_t id = 1; id <= 4; id++)
		run(v, id, "ml", 1, 1);
	run(v, 10, "ml-a", 2, 1);
	run(v, 11, "a b", 1, 1);
	pend(v, 12, "a;b", 1, 1);
	ck_assert_int_eq(gq_view_compute(v), 0);
}

START_TEST(usage_kept_by_project_identity)
{
	gq_pools_t *p = pools_of(
		"{\"projects\": [{\"name\": \"ml\", \"gpu_quota\": 2,"
		"                 \"accounts\": [\"ml-a\"]},"
		"                {\"name\": \"other\", \"gpu_quota\": 2}]}");
	gq_view_t *v = p->view[0];
	gq_usage_t u = { 0 };
	int ml, rogue, ab, asb;

	for (int step = 0; step < 2; step++) {
		same_names_pass(p, 1000 + 100 * step);
		ck_assert_int_eq(gq_usage_advance(&u, p, 100,
						  1000 + 100 * step), 0);
	}
	gq_usage_apply(&u, p, 1, 100);
	ml = gq_view_find_project(v, "ml-a");
	rogue = gq_view_find_project(v, "ml");
	ab = gq_view_find_project(v, "a b");
	asb = gq_view_find_project(v, "a;b");
	ck_assert_int_ne(ml, rogue);
	ck_assert_str_eq(gq_view_project(v, rogue)->name, "ml");
	ck_assert_str_eq(gq_view_project(v, asb)->name,
			 gq_view_project(v, ab)->name);
	ck_assert_double_eq(gq_view_project(v, ml)->usage, 0);
	ck_assert_double_eq(gq_view_project(v, ml)->tilt, 1);
	ck_assert_double_eq_tol(gq_view_project(v, rogue)->usage, 288.539,
				1e-3);
	ck_assert_double_eq_tol(gq_view_project(v, ab)->usage, 72.1348, 1e-3);
	ck_assert_double_eq(gq_view_project(v, asb)->usage, 0);
	ck_assert_double_eq(gq_usage_of(&u, "", "ml"), 0);
	ck_assert_double_eq_tol(gq_usage_of_account(&u, "", "ml"), 288.539,
				1e-3);
	gq_usage_free(&u);
	gq_pools_free(p);
}
END_TEST

/*
 * The file keeps the identity: an account's entry is written with "kind":
 * "account" and read back as the account's, not project ml's (usage as
 * above: the account ml 288.539, configured ml none).  A file without
 * "kind" (as written before) is read as configured projects' usage; a
 * "kind" other than "project" or "account" refuses the file.
 */
START_TEST(usage_file_keeps_project_identity)
{
	gq_pools_t *p = pools_of(
		"{\"projects\": [{\"name\": \"ml\", \"gpu_quota\": 2,"
		"                 \"accounts\": [\"ml-a\"]}]}");
	char *path = write_temp("");
	char err[GQ_ERR_MAX];
	gq_usage_t u = { 0 }, r = { 0 };
	FILE *f;

	for (int step = 0; step < 2; step++) {
		same_names_pass(p, 1000 + 100 * step);
		gq_usage_advance(&u, p, 100, 1000 + 100 * step);
	}
	ck_assert_int_eq(gq_usage_file_write(&u, path, err, sizeof(err)), 0);
	ck_assert_int_eq(gq_usage_file_read(path, &r, err, sizeof(err)), 0);
	ck_assert_int_eq(r.n, 2);
	ck_assert_double_eq(gq_usage_of(&r, "", "ml"), 0);
	ck_assert_double_eq_tol(gq_usage_of_account(&r, "", "ml"), 288.539,
				1e-3);
	ck_assert_double_eq_tol(gq_usage_of_account(&r, "", "a b"), 72.1348,
				1e-3);

	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs("{\"version\": 1, \"written_at\": 5, \"usage\": [{\"pool\": \"\", \"project\": \"ml\", \"gpu_seconds\": 7}]}", f);
	fclose(f);
	ck_assert_int_eq(gq_usage_file_read(path, &r, err, sizeof(err)), 0);
	ck_assert_double_eq(gq_usage_of(&r, "", "ml"), 7);
	ck_assert_double_eq(gq_usage_of_account(&r, "", "ml"), 0);

	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs("{\"version\": 1, \"written_at\": 5, \"usage\": [{\"pool\": \"\", \"project\": \"ml\", \"kind\": \"user\", \"gpu_seconds\": 7}]}", f);
	fclose(f);
	ck_assert_int_eq(gq_usage_file_read(path, &r, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "usage[0]") != NULL, "%s", err);
	unlink(path);
	free(path);
	gq_usage_free(&u);
	gq_usage_free(&r);
	gq_pools_free(p);
}
END_TEST

/*
 * Usage tilts who gets idle GPUs first, never a floor.  C 8: team-a (q 2)
 * runs 5 x 1 GPU and pends 3; team-b (q 2) runs 2 and pends 6 x 1: D 8
 * each, deserved 2 each, surplus 4.  Untilted (1:1): f 4 and 4.  team-a's
 * usage tilting its weight to 0.2: f_a = 2 + 4 x 0.2 / 1.2 = 2.667, f_b =
 * 2 + 4 / 1.2 = 5.333 (bands), but the floor against fair-share reclaim
 * stays max(2, 4) = 4 (share_floor 4): team-b's fair-share job 30 (A = 3
 * <= 5.333) may take 5 - 4 = 1 of team-a's GPUs either way, not 5 - 2.667
 * -> 2.
 */
static int fair_share_reclaim_offers(double tilt, double *share,
				     double *share_floor)
{
	gq_project_cfg_t p[2] = { proj("team-a", 2, 1, GQ_NO_LIMIT),
				  proj("team-b", 2, 1, GQ_NO_LIMIT) };
	gq_view_t *v = view_of(p, 2, NULL, 0);
	int n = 0;

	gq_view_begin(v, 8, 100);
	for (uint32_t id = 1; id <= 5; id++)
		run(v, id, "team-a", 1, id);
	run(v, 6, "team-b", 1, 6);
	run(v, 7, "team-b", 1, 7);
	for (uint32_t id = 20; id < 23; id++)
		pend(v, id, "team-a", 1, id);
	for (uint32_t id = 30; id < 36; id++)
		pend(v, id, "team-b", 1, id);
	gq_view_set_usage(v, gq_view_find_project(v, "team-a"),
			  tilt < 1 ? 1e6 : 0, tilt);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 30)->band, GQ_BAND_FAIR_SHARE);
	for (uint32_t id = 1; id <= 5; id++)
		n += gq_view_preemptable(v, id, 30);
	*share = project(v, "team-a")->share;
	*share_floor = project(v, "team-a")->share_floor;
	gq_view_free(v);
	return n;
}

START_TEST(usage_never_moves_fair_share_floor)
{
	double share, floor;

	ck_assert_int_eq(fair_share_reclaim_offers(1, &share, &floor), 1);
	ck_assert_double_eq_tol(share, 4, 1e-9);
	ck_assert_double_eq_tol(floor, 4, 1e-9);
	ck_assert_int_eq(fair_share_reclaim_offers(0.2, &share, &floor), 1);
	ck_assert_double_eq_tol(share, 2.667, 1e-3);
	ck_assert_double_eq_tol(floor, 4, 1e-9);
}
END_TEST

/*
 * The same in a department: C 8, d (q 4) holds team-a (q 1) and team-b
 * (q 1), each demanding 8; team-c (q 4) outside, demanding 4.  Top: d 4,
 * team-c 4.  Inside d: deserved 1 + 1, surplus 2: untilted 2 and 2;
 * team-a tilted to 0.5: 1 + 2 x 0.5 / 1.5 = 1.667 and 2.333.  share_floor
 * stays 2 and 2; the department's own 4 either way.
 */
START_TEST(usage_never_moves_floor_inside_department)
{
	gq_project_cfg_t p[3] = { proj("team-a", 1, 1, GQ_NO_LIMIT),
				  proj("team-b", 1, 1, GQ_NO_LIMIT),
				  proj("team-c", 4, 1, GQ_NO_LIMIT) };
	gq_dept_cfg_t d[1] = { dept("d", 4, GQ_NO_LIMIT) };
	gq_view_t *v;

	p[0].department = p[1].department = 0;
	v = view_of(p, 3, d, 1);
	gq_view_begin(v, 8, 100);
	pend(v, 1, "team-a", 8, 1);
	pend(v, 2, "team-b", 8, 2);
	pend(v, 3, "team-c", 4, 3);
	gq_view_set_usage(v, gq_view_find_project(v, "team-a"), 1e6, 0.5);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_double_eq_tol(project(v, "team-a")->share, 1.667, 1e-3);
	ck_assert_double_eq_tol(project(v, "team-b")->share, 2.333, 1e-3);
	ck_assert_double_eq_tol(project(v, "team-a")->share_floor, 2, 1e-9);
	ck_assert_double_eq_tol(project(v, "team-b")->share_floor, 2, 1e-9);
	ck_assert_double_eq_tol(gq_view_dept(v, 0)->share_floor, 4, 1e-9);
	gq_view_free(v);
}
END_TEST

/*
 * The pause "no new victims while the first ones are warned" survives a
 * slurmctld restart, rebuilt from the victims' records.  grace_time 60 s,
 * KillWait + MessageTimeout 40 s: b1 (job 20) reclaims at t 100; Slurm
 * warns its victims v1 (preempt_time 100, end_time 100 + 60 = 160) and,
 * at t 105, v2 (grace 30: end_time 135).  slurmctld restarts at t 110:
 * gq_state_clear + gq_state_load forget the pause.  The first pass reads
 * v1 and v2 (gq_facts_reclaim_of: preemptor 20, since 100 and 105, grace
 * 60 and 30) and rebuilds one reclaim: since 100 (the earliest), grace
 * 60 (the longest).  Settling while t - 100 < 60 + 40: at t 120 and 199
 * yes, at 200 no, as without the restart.  Rebuilding changes no epoch
 * (the pass that reads it waits for it itself).
 */
START_TEST(restart_rebuilds_grace_pause)
{
	char *f = write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 2, \"gpu_limit\": 2},"
			     " {\"name\": \"team-x\", \"gpu_quota\": 4}]}");
	gq_job_facts_t run = { .job_state = JOB_RUNNING };
	const char *c = GQ_RECLAIMED_FOR "20 of team-a (in-quota)";
	char err[GQ_ERR_MAX];
	uint32_t pre;
	int64_t since;
	int grace;
	uint64_t epoch;

	gq_state_lock();
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	ck_assert(gq_state_note_reclaim(20, 100, 60));
	ck_assert(gq_state_reclaim_settling(20, 110, 40));
	gq_state_clear();		/* slurmctld restarts */
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	ck_assert(!gq_state()->inflight_read);
	ck_assert(!gq_state_reclaim_settling(20, 120, 40));
	epoch = gq_state()->epoch;
	ck_assert(gq_facts_reclaim_of(&run, c, 100, 160, &pre, &since, &grace));
	ck_assert(gq_state_rebuild_reclaim(pre, since, grace));
	ck_assert(gq_facts_reclaim_of(&run, c, 105, 135, &pre, &since, &grace));
	ck_assert(gq_state_rebuild_reclaim(pre, since, grace));
	ck_assert_uint_eq(gq_state()->epoch, epoch);
	ck_assert_int_eq(gq_state()->ninflight, 1);
	ck_assert(gq_state_reclaim_settling(20, 120, 40));
	ck_assert(gq_state_reclaim_settling(20, 199, 40));
	ck_assert(!gq_state_reclaim_settling(20, 200, 40));
	ck_assert_int_eq(gq_state_reclaim_wait(20), GQ_RECLAIM_WAIT + 60);
	/* a reclaim noted later for the same preemptor renews nothing */
	ck_assert(!gq_state_note_reclaim(20, 150, 60));
	ck_assert(!gq_state_reclaim_settling(20, 200, 40));
	gq_state_clear();
	gq_state_unlock();
	unlink(f);
	free(f);
}
END_TEST

/*
 * What a victim's record tells after a restart (gq_facts_reclaim_of):
 * running, preempt_time 100, end_time 160, comment "gpuquota: reclaimed
 * for job 20 of team-a (in-quota)": preemptor 20, since 100, grace 160 -
 * 100 = 60.  Its end not after preempt_time (160 at 160, or 0): grace 0.
 * No such victim: not running (requeued, pending), no preempt_time, no
 * comment or another's ("requeued by admin"), a comment without an id
 * ("job x", "job 0", "job 20x") or past 32 bits (4294967296).
 */
START_TEST(victim_record_names_its_preemptor)
{
	gq_job_facts_t run = { .job_state = JOB_RUNNING };
	gq_job_facts_t pend = { .job_state = JOB_PENDING };
	const char *c = GQ_RECLAIMED_FOR "20 of team-a (in-quota)";
	uint32_t pre = 0;
	int64_t since = 0;
	int grace = -1;

	ck_assert(gq_facts_reclaim_of(&run, c, 100, 160, &pre, &since, &grace));
	ck_assert_uint_eq(pre, 20);
	ck_assert_int_eq(since, 100);
	ck_assert_int_eq(grace, 60);
	ck_assert(gq_facts_reclaim_of(&run, c, 160, 160, &pre, &since, &grace));
	ck_assert_int_eq(grace, 0);
	ck_assert(gq_facts_reclaim_of(&run, c, 100, 0, &pre, &since, &grace));
	ck_assert_int_eq(grace, 0);
	ck_assert(gq_facts_reclaim_of(&run, GQ_RECLAIMED_FOR "7", 100, 130,
				      &pre, &since, &grace));
	ck_assert_uint_eq(pre, 7);
	ck_assert(!gq_facts_reclaim_of(&pend, c, 100, 160, &pre, &since,
				       &grace));
	ck_assert(!gq_facts_reclaim_of(&run, c, 0, 160, &pre, &since, &grace));
	ck_assert(!gq_facts_reclaim_of(&run, NULL, 100, 160, &pre, &since,
				       &grace));
	ck_assert(!gq_facts_reclaim_of(&run, "requeued by admin", 100, 160,
				       &pre, &since, &grace));
	ck_assert(!gq_facts_reclaim_of(&run, GQ_RECLAIMED_FOR "x of a", 100,
				       160, &pre, &since, &grace));
	ck_assert(!gq_facts_reclaim_of(&run, GQ_RECLAIMED_FOR "0 of a", 100,
				       160, &pre, &since, &grace));
	ck_assert(!gq_facts_reclaim_of(&run, GQ_RECLAIMED_FOR "20x of a", 100,
				       160, &pre, &since, &grace));
	ck_assert(!gq_facts_reclaim_of(&run, GQ_RECLAIMED_FOR "4294967296 of a",
				       100, 160, &pre, &since, &grace));
	/* the comment alone (a requeued victim still completing) */
	ck_assert_uint_eq(gq_facts_reclaimed_for(c), 20);
	ck_assert_uint_eq(gq_facts_reclaimed_for("requeued by admin"), 0);
	ck_assert_uint_eq(gq_facts_reclaimed_for(NULL), 0);
	ck_assert_uint_eq(gq_facts_reclaimed_for(GQ_RECLAIMED_FOR "20x"), 0);
}
END_TEST

/*
 * A victim already requeued (gq_facts_requeued_for): pending with Slurm's
 * requeue time as its submit time, 100, and gpuquota's comment for job 20:
 * at 110 and at 129 its reclaim may be in flight (since 100); at 130
 * (GQ_RECLAIM_WAIT = 30 later) no longer.  Not such a victim: running, no
 * comment, a submit time in the future or none.  A pass that rebuilds
 * (gq_pass_victim) notes job 20's reclaim again, with no grace time: its
 * wait is GQ_RECLAIM_WAIT from 100; one that does not rebuild, nothing.
 */
START_TEST(requeued_victim_names_its_reclaim)
{
	gq_job_facts_t pend = { .job_state = JOB_PENDING, .submit_time = 100 };
	gq_job_facts_t run = { .job_state = JOB_RUNNING, .submit_time = 100 };
	gq_job_facts_t none = { .job_state = JOB_PENDING };
	const char *c = GQ_RECLAIMED_FOR "20 of team-a (in-quota)";
	uint32_t pre = 0;
	int64_t since = 0;
	int grace = -1;

	ck_assert_int_eq(GQ_RECLAIM_WAIT, 30);
	ck_assert(gq_facts_requeued_for(&pend, c, 110, &pre, &since));
	ck_assert_uint_eq(pre, 20);
	ck_assert_int_eq(since, 100);
	ck_assert(gq_facts_requeued_for(&pend, c, 129, &pre, &since));
	ck_assert(!gq_facts_requeued_for(&pend, c, 130, &pre, &since));
	ck_assert(!gq_facts_requeued_for(&pend, c, 99, &pre, &since));
	ck_assert(!gq_facts_requeued_for(&run, c, 110, &pre, &since));
	ck_assert(!gq_facts_requeued_for(&none, c, 110, &pre, &since));
	ck_assert(!gq_facts_requeued_for(&pend, NULL, 110, &pre, &since));

	gq_state_lock();
	pre = 0;
	ck_assert_int_eq(gq_pass_victim(&pend, c, 0, 110, true, NULL, -1, &pre, &since,
					&grace), 1);
	ck_assert_uint_eq(pre, 20);
	ck_assert_int_eq(grace, 0);
	ck_assert_int_eq(gq_state_reclaim_wait(20), GQ_RECLAIM_WAIT);
	ck_assert_int_eq(gq_pass_victim(&pend, c, 0, 110, false, NULL, -1, &pre, &since,
					&grace), 0);
	gq_state_clear();

	/* the victims' nodes read back: a warned victim's (running, its
	 * preempt_time 105) on node 3; then the requeued one's, not known:
	 * any node */
	{
		int n3 = 3;
		gq_job_facts_t warned = { .job_state = JOB_RUNNING,
					  .submit_time = 90, .end_time = 165 };

		ck_assert_int_eq(gq_pass_victim(&warned, c, 105, 110, true,
						&n3, 1, &pre, &since, &grace),
				 1);
		ck_assert_int_eq(grace, 60);
		ck_assert_int_eq(gq_state()->inflight[0].nnodes, 1);
		ck_assert_int_eq(gq_state()->inflight[0].nodes[0], 3);
		ck_assert_int_eq(gq_pass_victim(&pend, c, 0, 110, true, &n3, 1,
						&pre, &since, &grace), 1);
		ck_assert_int_eq(gq_state()->inflight[0].nnodes, -1);
	}
	gq_state_clear();
	gq_state_unlock();
}
END_TEST

Suite *usage_memory_suite(void)
{
	Suite *s = suite_create("usage_memory");
	TCase *tc = tcase_create("usage_memory");

	tcase_add_test(tc, late_submit_bounded_by_begins_later_jobs);
	tcase_add_test(tc, begins_later_job_counted_once_between_passes);
	tcase_add_test(tc, late_submit_bounded_by_department_begins_later_jobs);
	tcase_add_test(tc, usage_kept_by_project_identity);
	tcase_add_test(tc, usage_file_keeps_project_identity);
	tcase_add_test(tc, usage_never_moves_fair_share_floor);
	tcase_add_test(tc, usage_never_moves_floor_inside_department);
	tcase_add_test(tc, restart_rebuilds_grace_pause);
	tcase_add_test(tc, victim_record_names_its_preemptor);
	tcase_add_test(tc, requeued_victim_names_its_reclaim);
	suite_add_tcase(s, tc);
	return s;
}
