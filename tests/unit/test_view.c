/*
 * test_view.c - a whole pass: shares, bands, priorities, victim sets and
 * preemptable() answers, on scenarios worked out by hand.
 */
#include <check.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/view.h"
#include "helpers.h"

/* a view over projects given as name/quota pairs, weight 1, no limit */
static gq_view_t *view2(const char *a, int qa, const char *b, int qb,
			int min_runtime)
{
	gq_project_cfg_t p[2] = { proj(a, qa, 1, GQ_NO_LIMIT),
				  proj(b, qb, 1, GQ_NO_LIMIT) };
	gq_config_t cfg = { .projects = p, .nprojects = 2 };

	cfg.settings.min_runtime = min_runtime;
	cfg.settings.recompute_interval = 2;
	return gq_view_create(&cfg);
}

/*
 * The quick start, step 4: a1 (1 GPU, id 1) and a2 (2 GPUs, id 2) of
 * team-a, b1 (1, id 3) of team-b run on C=4; b2 (1, id 4) of team-b pends.
 * D_a=3, D_b=2 -> f_a=2, f_b=2.  b2: A=1+1=2 <= q_b=2: in quota.
 * team-a may lose a_a - q_a = 1 GPU: the walk (youngest first) skips a2
 * (2 GPUs) and takes a1.
 */
START_TEST(quick_start_reclaims_a1)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);

	gq_view_begin(v, 4, 100);
	run(v, 1, "team-a", 1, 10);
	run(v, 2, "team-a", 2, 20);
	run(v, 3, "team-b", 1, 30);
	pend(v, 4, "team-b", 1, 40);
	ck_assert_int_eq(gq_view_compute(v), 0);

	ck_assert_uint_eq(project(v, "team-a")->alloc, 3);
	ck_assert_uint_eq(project(v, "team-b")->alloc, 1);
	ck_assert_double_eq_tol(project(v, "team-a")->share, 2, 1e-9);
	ck_assert_double_eq_tol(project(v, "team-b")->share, 2, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 4)->band, GQ_BAND_IN_QUOTA);
	ck_assert_double_eq_tol(gq_view_job(v, 4)->cum, 2, 1e-9);

	ck_assert(gq_view_preemptable(v, 1, 4));	/* a1 */
	ck_assert(!gq_view_preemptable(v, 2, 4));	/* a2: team-a below quota */
	ck_assert(!gq_view_preemptable(v, 3, 4));	/* own project */
	ck_assert(gq_view_job(v, 1)->over_quota);	/* a1's GPU: beyond q */
	ck_assert(!gq_view_job(v, 2)->over_quota);
	ck_assert(!gq_view_job(v, 3)->over_quota);
	ck_assert(!gq_view_preemptable(v, 4, 4));	/* not running */
	ck_assert(!gq_view_preemptable(v, 1, 99));	/* unknown preemptor */
	/* every running job that could ever be a victim has a rank; the
	 * youngest (a2) comes first in the walk, before a1 */
	ck_assert_uint_lt(gq_view_preempt_rank(v, 2), gq_view_preempt_rank(v, 1));
	ck_assert_uint_eq(gq_view_preempt_rank(v, 4), UINT32_MAX);
	gq_view_free(v);
}
END_TEST

/*
 * Step 2-3: before b2, team-a's a2 was over quota but fits the fair share:
 * a1 runs (1), a2 pends (2): D_a=3, D_b=1 (b1 running), C=4:
 * deserved 2+1, surplus 1 -> team-a: f_a=3.  a2: A=3 <= f_a: fair-share
 * band; it may start on idle GPUs.
 */
START_TEST(over_quota_job_in_fair_share_band)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);

	gq_view_begin(v, 4, 100);
	run(v, 1, "team-a", 1, 10);
	pend(v, 2, "team-a", 2, 20);
	run(v, 3, "team-b", 1, 30);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_double_eq_tol(project(v, "team-a")->share, 3, 1e-9);
	ck_assert_double_eq_tol(project(v, "team-b")->share, 1, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 2)->band, GQ_BAND_FAIR_SHARE);
	/* fair-share reclaim: team-b holds 1 <= max(q, f) = 2: no victim */
	ck_assert(!gq_view_preemptable(v, 3, 2));
	gq_view_free(v);
}
END_TEST

/*
 * A project at its quota submits again into a full cluster: team-a holds 2
 * (q=2), team-b holds 2 (q=2), team-a submits 1 GPU: A=3 > q; D_a=3, D_b=2,
 * f_a=2: over its fair share: it may take nothing.
 */
START_TEST(at_quota_preempts_nothing)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);
	uint32_t ee;

	gq_view_begin(v, 4, 100);
	run(v, 1, "team-a", 2, 10);
	run(v, 2, "team-b", 1, 20);
	run(v, 3, "team-b", 1, 30);
	pend(v, 4, "team-a", 1, 40);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 4)->band, GQ_BAND_OVER);
	for (ee = 1; ee <= 3; ee++)
		ck_assert(!gq_view_preemptable(v, ee, 4));
	gq_view_free(v);
}
END_TEST

/*
 * Never victims: --no-requeue / interactive jobs, and jobs younger than the
 * minimum runtime (60 s).  team-a q=0 holds three 1-GPU jobs: one not
 * requeueable, one started 30 s ago (now=100, start 70), one eligible.
 */
START_TEST(exempt_jobs_are_never_victims)
{
	gq_view_t *v = view2("team-a", 0, "team-b", 2, 60);

	gq_view_begin(v, 4, 100);
	add(v, "team-a", no_requeue(running(1, 1, 10)));
	run(v, 2, "team-a", 1, 70);
	run(v, 3, "team-a", 1, 20);
	pend(v, 4, "team-b", 1, 90);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(!gq_view_preemptable(v, 1, 4));
	ck_assert(!gq_view_preemptable(v, 2, 4));
	ck_assert(gq_view_preemptable(v, 3, 4));
	/* all three are over team-a's quota of 0, reclaimable or not */
	ck_assert(gq_view_job(v, 1)->over_quota);
	ck_assert(gq_view_job(v, 2)->over_quota);
	ck_assert(gq_view_job(v, 3)->over_quota);

	/* Slurm's PreemptExemptTime, when longer, wins: 90 s > 80 s run */
	gq_view_begin(v, 4, 100);
	run(v, 3, "team-a", 1, 20);
	pend(v, 4, "team-b", 1, 90);
	gq_view_min_runtime_at_least(v, 90);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_min_runtime(v), 90);
	ck_assert(!gq_view_preemptable(v, 3, 4));
	/* and a shorter one does not lower the configured minimum */
	gq_view_begin(v, 4, 100);
	run(v, 3, "team-a", 1, 20);
	pend(v, 4, "team-b", 1, 90);
	gq_view_min_runtime_at_least(v, 10);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_min_runtime(v), 60);
	ck_assert(gq_view_preemptable(v, 3, 4));
	gq_view_free(v);
}
END_TEST

/*
 * Floors hold whatever subset is taken: team-a q=1 holds 4 one-GPU jobs and
 * a 2-GPU job (a=6); team-b (q=4) submits 2.  Budget a-q = 5: the walk
 * (youngest first: ids 5(2 GPUs),4,3,2,1) takes 5 (2), 4, 3, 2 (1 each) =5
 * and skips 1: team-a keeps at least 1 GPU.
 */
START_TEST(floor_bounds_candidate_gpus)
{
	gq_view_t *v = view2("team-a", 1, "team-b", 4, 0);
	uint32_t id, sum = 0;

	gq_view_begin(v, 6, 100);
	for (id = 1; id <= 4; id++)
		run(v, id, "team-a", 1, id);
	run(v, 5, "team-a", 2, 5);
	pend(v, 6, "team-b", 2, 50);
	ck_assert_int_eq(gq_view_compute(v), 0);
	for (id = 1; id <= 5; id++)
		if (gq_view_preemptable(v, id, 6))
			sum += gq_view_job(v, id)->in.gpus;
	ck_assert_uint_eq(sum, 5);
	ck_assert(!gq_view_preemptable(v, 1, 6));
	/* walk order is reclaim order: youngest first */
	ck_assert_uint_lt(gq_view_preempt_rank(v, 5), gq_view_preempt_rank(v, 4));
	ck_assert_uint_lt(gq_view_preempt_rank(v, 4), gq_view_preempt_rank(v, 2));
	gq_view_free(v);
}
END_TEST

/*
 * Slurm order before age in the walk: the lowest-order job goes first even
 * when older.  team-a q=0: job 1 (order 5, old), job 2 (order 9, young).
 */
START_TEST(walk_lowest_order_first)
{
	gq_view_t *v = view2("team-a", 0, "team-b", 4, 0);

	gq_view_begin(v, 4, 100);
	add(v, "team-a", with_order(running(1, 1, 10), 5));
	add(v, "team-a", with_order(running(2, 1, 20), 9));
	pend(v, 3, "team-b", 1, 50);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_uint_lt(gq_view_preempt_rank(v, 1), gq_view_preempt_rank(v, 2));
	gq_view_free(v);
}
END_TEST

/*
 * multifactor's part (site_order) orders a project's queue before QOS and
 * nice: team-a q=2, C=4.  Job 1 (2 GPUs, QOS order 9, multifactor 100)
 * and job 2 (2 GPUs, order 0, multifactor 5000, submitted later): job 2
 * is first in team-a's queue, A=2 in quota; job 1 A=4, past the quota.
 */
START_TEST(walk_multifactor_before_qos)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);
	gq_job_in_t j1 = with_order(pending(1, 2, 10), 9),
		    j2 = pending(2, 2, 20);

	j1.site_order = 100;
	j2.site_order = 5000;
	gq_view_begin(v, 4, 100);
	add(v, "team-a", j1);
	add(v, "team-a", j2);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 2)->band, GQ_BAND_IN_QUOTA);
	ck_assert_double_eq_tol(gq_view_job(v, 2)->cum, 2, 1e-9);
	ck_assert_int_ne(gq_view_job(v, 1)->band, GQ_BAND_IN_QUOTA);
	ck_assert_double_eq_tol(gq_view_job(v, 1)->cum, 4, 1e-9);
	ck_assert_uint_gt(gq_view_job(v, 2)->priority,
			  gq_view_job(v, 1)->priority);
	gq_view_free(v);
}
END_TEST

/*
 * Most over-served project first: C=8, p q=1 holds 4 (ratio vs
 * max(q,f)), r q=2 holds 4; s (q=5) pends 5.  D: p 4, r 4, s 5: quotas
 * 1+2+5=8=C, no surplus: f = 1, 2, 5.  Over-service: p 4/1=4, r 4/2=2:
 * every p candidate ranks before every r candidate.
 */
START_TEST(most_over_served_first)
{
	gq_project_cfg_t p[3] = { proj("p", 1, 1, GQ_NO_LIMIT),
				  proj("r", 2, 1, GQ_NO_LIMIT),
				  proj("s", 5, 1, GQ_NO_LIMIT) };
	gq_config_t cfg = { .projects = p, .nprojects = 3 };
	gq_view_t *v = gq_view_create(&cfg);

	gq_view_begin(v, 8, 100);
	run(v, 1, "r", 2, 5);
	run(v, 2, "r", 2, 6);
	run(v, 3, "p", 1, 7);
	run(v, 4, "p", 1, 8);
	run(v, 5, "p", 2, 9);
	pend(v, 6, "s", 5, 50);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_double_eq_tol(project(v, "s")->share, 5, 1e-9);
	/* p: budget 3: walk 5 (2), 4 (1) -> 3; job 3 skipped */
	ck_assert(gq_view_preemptable(v, 5, 6));
	ck_assert(gq_view_preemptable(v, 4, 6));
	ck_assert(!gq_view_preemptable(v, 3, 6));
	/* r: budget 2: job 2 (youngest, 2 GPUs) */
	ck_assert(gq_view_preemptable(v, 2, 6));
	ck_assert(!gq_view_preemptable(v, 1, 6));
	/* p (over-service 4) before r (2), each youngest first */
	ck_assert_uint_eq(gq_view_preempt_rank(v, 5), 1);
	ck_assert_uint_eq(gq_view_preempt_rank(v, 4), 2);
	ck_assert_uint_eq(gq_view_preempt_rank(v, 3), 3);
	ck_assert_uint_eq(gq_view_preempt_rank(v, 2), 4);
	ck_assert_uint_eq(gq_view_preempt_rank(v, 1), 5);
	gq_view_free(v);
}
END_TEST

/*
 * Fair-share reclaim: C=6, a q=1 w=1, b q=1 w=1.  a holds 5, b holds 1 and
 * pends 2.  D_a=5, D_b=3: deserved 1,1; surplus 4 -> 2 each: f_a=3, f_b=3.
 * b's job: A=1+2=3 > q_b, <= f_b: fair-share band; a may lose
 * a - max(q, f) = 2.  With a second pending 1-GPU job: A=4 > f_b: over, and
 * takes nothing.
 */
START_TEST(fair_share_reclaim_floor)
{
	gq_view_t *v = view2("a", 1, "b", 1, 0);
	uint32_t id, sum = 0;

	gq_view_begin(v, 6, 100);
	for (id = 1; id <= 5; id++)
		run(v, id, "a", 1, id);
	run(v, 6, "b", 1, 6);
	pend(v, 7, "b", 2, 50);
	pend(v, 8, "b", 1, 60);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_double_eq_tol(project(v, "a")->share, 3, 1e-9);
	ck_assert_double_eq_tol(project(v, "b")->share, 3, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 7)->band, GQ_BAND_FAIR_SHARE);
	ck_assert_int_eq(gq_view_job(v, 8)->band, GQ_BAND_OVER);
	for (id = 1; id <= 5; id++) {
		if (gq_view_preemptable(v, id, 7))
			sum += 1;
		ck_assert(!gq_view_preemptable(v, id, 8));
	}
	ck_assert_uint_eq(sum, 2);
	gq_view_free(v);
}
END_TEST

/*
 * Interleaving by share: team-a q=2 and team-b q=4, each with four 1-GPU
 * jobs pending on an empty cluster, C=6.  In quota keys: team-a 1/2, 2/2;
 * team-b 1/4, 2/4, 3/4, 4/4 -> order b1, (a1 = b2: older first), b3,
 * (a2 = b4).  Past quota: team-a's 3rd job key (3-2)/1 = 1.
 */
START_TEST(interleaving_by_share)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 4, 0);
	uint32_t id;

	gq_view_begin(v, 6, 100);
	for (id = 1; id <= 4; id++)
		pend(v, id, "team-a", 1, id);
	for (id = 5; id <= 8; id++)
		pend(v, id, "team-b", 1, id);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_uint_gt(gq_view_job(v, 5)->priority, gq_view_job(v, 1)->priority);
	ck_assert_uint_eq(gq_view_job(v, 1)->priority, gq_view_job(v, 6)->priority);
	ck_assert_uint_gt(gq_view_job(v, 6)->priority, gq_view_job(v, 7)->priority);
	ck_assert_uint_gt(gq_view_job(v, 7)->priority, gq_view_job(v, 2)->priority);
	ck_assert_uint_eq(gq_view_job(v, 2)->priority, gq_view_job(v, 8)->priority);
	ck_assert_int_eq(gq_view_job(v, 3)->band, GQ_BAND_OVER);
	ck_assert_double_eq_tol(gq_view_job(v, 3)->key, 1, 1e-9);
	gq_view_free(v);
}
END_TEST

/*
 * An account no project lists is a project of its own, quota 0: its jobs
 * run on idle GPUs (band by fair share) and are reclaimed first.
 */
START_TEST(unknown_account_is_zero_quota_project)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);
	const gq_project_t *p;

	gq_view_begin(v, 4, 100);
	run(v, 1, "guest", 2, 10);
	run(v, 2, "team-a", 2, 20);
	pend(v, 3, "team-b", 1, 30);
	ck_assert_int_eq(gq_view_compute(v), 0);
	p = project(v, "guest");
	ck_assert_ptr_nonnull(p);
	ck_assert(!p->configured);
	ck_assert_double_eq_tol(p->quota, 0, 1e-9);
	/* D: guest 2, a 2, b 1: deserved 0,2,1; surplus 1 -> guest: f=1 */
	ck_assert_double_eq_tol(p->share, 1, 1e-9);
	ck_assert(gq_view_preemptable(v, 1, 3));
	gq_view_free(v);
}
END_TEST

/*
 * An account is one project however it is spelled, in any order of
 * spellings (the registry keeps each exact spelling in front of the
 * case-folding lookup), across passes, and for accounts no project lists
 * too, short or long.
 */
START_TEST(account_spellings_one_project)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);
	const char *spell[] = { "team-a", "TEAM-A", "team-b", "Team-A",
				"Guest", "team-a", "GUEST", "guest", "Team-B",
				/* too long to be kept by its spelling */
				"Long-Account-Name-Of-More-Than-24",
				"long-account-name-of-more-than-24" };
	int round, i;

	for (round = 0; round < 2; round++) {
		gq_view_begin(v, 4, 100);
		for (i = 0; i < 11; i++)
			pend(v, 1 + i, spell[i], 1, 10 + i);
		ck_assert_int_eq(gq_view_compute(v), 0);
		ck_assert_int_eq(gq_view_nprojects(v), 4);
		ck_assert_int_eq(gq_view_job(v, 10)->project,
				 gq_view_job(v, 11)->project);
		ck_assert_int_eq(gq_view_job(v, 2)->project,
				 gq_view_find_project(v, "team-a"));
		ck_assert_int_eq(gq_view_job(v, 4)->project,
				 gq_view_find_project(v, "team-a"));
		ck_assert_int_eq(gq_view_job(v, 9)->project,
				 gq_view_find_project(v, "team-b"));
		ck_assert_int_eq(gq_view_job(v, 7)->project,
				 gq_view_job(v, 5)->project);
		ck_assert_int_eq(gq_view_job(v, 8)->project,
				 gq_view_job(v, 5)->project);
		ck_assert_uint_eq(project(v, "team-a")->pending, 4);
		ck_assert_uint_eq(project(v, "guest")->pending, 3);
	}
	gq_view_free(v);
}
END_TEST

/*
 * Seeded random accounts, short and long (the registry keeps spellings
 * under 24 bytes by themselves), each asked in several random cases and
 * orders across passes: every job is in the project the case-folding
 * lookup gives its account.
 */
START_TEST(account_spellings_random)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789._-";
	int c;

	for (c = 0; c < 10; c++) {
		unsigned seed = 20261201u + c;
		gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);
		int nnames = 1 + rand_r(&seed) % 300, i, k, round;
		char (*name)[48] = calloc(nnames, sizeof(*name));
		int *want = calloc(4 * nnames, sizeof(*want));
		char spelled[48];

		for (i = 0; i < nnames; i++) {
			int len = 1 + rand_r(&seed) % 40;

			for (k = 0; k < len; k++)
				name[i][k] = chars[rand_r(&seed) %
						   (sizeof(chars) - 1)];
			if (i < 2)	/* the configured ones too */
				snprintf(name[i], sizeof(name[i]), "%s",
					 i ? "team-b" : "team-a");
		}
		for (round = 0; round < 2; round++) {
			gq_view_begin(v, 4, 100);
			for (k = 0; k < 4 * nnames; k++) {
				int p;

				i = rand_r(&seed) % nnames;
				for (p = 0; name[i][p]; p++)
					spelled[p] = rand_r(&seed) % 2 ?
						     (char)toupper(name[i][p]) :
						     name[i][p];
				spelled[p] = '\0';
				pend(v, 1 + k, spelled, 1, k);
				want[k] = gq_view_find_project(v, name[i]);
			}
			/* a job's project is in its record once the pass ran
			 * (view.h, gq_view_add_job) */
			ck_assert_int_eq(gq_view_compute(v), 0);
			for (k = 0; k < 4 * nnames; k++)
				ck_assert_msg(gq_view_job(v, 1 + k)->project ==
					      want[k], "seed %u: job %d",
					      20261201u + c, 1 + k);
		}
		free(want);
		free(name);
		gq_view_free(v);
	}
}
END_TEST

/* The jobs of a pass: team-a runs 1 and 4, team-b pends 2 and 5. */
static void _recompute_jobs(gq_view_t *v)
{
	run(v, 1, "team-a", 2, 10);
	pend(v, 2, "team-b", 1, 20);
	run(v, 4, "team-a", 1, 40);
	pend(v, 5, "team-b", 2, 50);
}

/*
 * A pass computed again without gq_view_begin, after jobs came and went
 * between (a late running job in another project, a job gone, a job
 * re-added in another state), answers as a fresh pass over the same
 * jobs: the pass regroups from the records as they are now, not from
 * what it noted when the jobs were first added.
 */
START_TEST(recompute_after_changes_as_fresh)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);
	gq_view_t *f = view2("team-a", 2, "team-b", 2, 0);
	uint32_t id;

	gq_view_begin(v, 6, 100);
	_recompute_jobs(v);
	ck_assert_int_eq(gq_view_compute(v), 0);
	run(v, 3, "team-b", 1, 30);	/* late, running */
	gq_view_job_gone(v, 4);		/* waits now */
	run(v, 2, "team-b", 1, 60);	/* pending -> running */
	ck_assert_int_eq(gq_view_compute(v), 0);

	gq_view_begin(f, 6, 100);
	_recompute_jobs(f);
	run(f, 3, "team-b", 1, 30);
	add(f, "team-a", (gq_job_in_t){ .id = 4, .state = GQ_JOB_WAITING,
					.gpus = 1, .tasks = 1,
					.requeueable = true,
					.start_time = 40 });
	run(f, 2, "team-b", 1, 60);
	ck_assert_int_eq(gq_view_compute(f), 0);

	ck_assert_uint_eq(project(v, "team-a")->alloc, 2);
	ck_assert_uint_eq(project(v, "team-b")->alloc, 2);
	for (id = 1; id <= 5; id++) {
		const gq_job_t *a = gq_view_job(v, id), *b = gq_view_job(f, id);

		ck_assert_int_eq(a->in.state, b->in.state);
		ck_assert_int_eq(a->project, b->project);
		if (a->in.state == GQ_JOB_RUNNING) {
			ck_assert_uint_eq(a->victim, b->victim);
			ck_assert_uint_eq(a->preempt_rank, b->preempt_rank);
			ck_assert_int_eq(a->over_quota, b->over_quota);
		} else {	/* a running job keeps its old priority */
			ck_assert_int_eq(a->band, b->band);
			ck_assert_uint_eq(a->priority, b->priority);
			ck_assert_int_eq(a->hold, b->hold);
		}
	}
	ck_assert_uint_ne(gq_view_preempt_rank(v, 3), UINT32_MAX);
	ck_assert_double_eq_tol(project(v, "team-a")->share,
				project(f, "team-a")->share, 1e-9);
	ck_assert_double_eq_tol(project(v, "team-b")->share,
				project(f, "team-b")->share, 1e-9);
	gq_view_free(v);
	gq_view_free(f);
}
END_TEST

/*
 * A job submitted between passes (priority_p_set on submit): placed at the
 * tail of its project's queue, and can reclaim at once.  Pass with a1, a2,
 * b1 running (f_a=3, f_b=1); b2 arrives late: A = 1 + 1 = 2 <= q_b.
 * Victims of that pass: team-a quota budget 3-2 = 1 -> a1.
 */
START_TEST(late_submit_reclaims)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);
	gq_job_in_t in = { .id = 4, .state = GQ_JOB_PENDING, .gpus = 1, .tasks = 1,
			.requeueable = true, .submit_time = 40 };
	const gq_job_t *b2, *again;

	gq_view_begin(v, 4, 100);
	run(v, 1, "team-a", 1, 10);
	run(v, 2, "team-a", 2, 20);
	run(v, 3, "team-b", 1, 30);
	ck_assert_int_eq(gq_view_compute(v), 0);
	b2 = gq_view_add_job(v, "team-b", &in);
	ck_assert_ptr_nonnull(b2);
	ck_assert_int_eq(b2->band, GQ_BAND_IN_QUOTA);
	ck_assert_double_eq_tol(b2->cum, 2, 1e-9);
	ck_assert(gq_view_preemptable(v, 1, 4));
	ck_assert(!gq_view_preemptable(v, 2, 4));
	/* set again (an update): keeps its place, A is not counted twice */
	again = gq_view_add_job(v, "team-b", &in);
	ck_assert_double_eq_tol(again->cum, 2, 1e-9);
	/* a second late job of team-b: A = 3 > q: not in quota */
	in.id = 5;
	ck_assert_int_ne(gq_view_add_job(v, "team-b", &in)->band,
			 GQ_BAND_IN_QUOTA);
	/* a1 requeued: priority_p_set for it moves it to pending */
	in.id = 1;
	ck_assert_int_eq(gq_view_add_job(v, "team-a", &in)->in.state,
			 GQ_JOB_PENDING);
	ck_assert_uint_eq(project(v, "team-a")->alloc, 2);
	gq_view_free(v);
}
END_TEST

/*
 * gpu_limit holds: team-a q=1 L=2 alone on C=8 pends four 1-GPU jobs.
 * f_a = min(D=4, L=2) = 2.  A: 1 in quota, 2 fair share, the third would
 * make 3 > L: held; held jobs do not add to A, so the fourth is held too.
 */
START_TEST(limit_holds_jobs_past_it)
{
	gq_project_cfg_t p[1] = { proj("team-a", 1, 1, 2) };
	gq_config_t cfg = { .projects = p, .nprojects = 1 };
	gq_view_t *v = gq_view_create(&cfg);
	uint32_t id;

	gq_view_begin(v, 8, 100);
	for (id = 1; id <= 4; id++)
		pend(v, id, "team-a", 1, id);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_double_eq_tol(project(v, "team-a")->share, 2, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 1)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(gq_view_job(v, 1)->band, GQ_BAND_IN_QUOTA);
	ck_assert_int_eq(gq_view_job(v, 2)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(gq_view_job(v, 2)->band, GQ_BAND_FAIR_SHARE);
	ck_assert_int_eq(gq_view_job(v, 3)->hold, GQ_HOLD_LIMIT);
	ck_assert_int_eq(gq_view_job(v, 4)->hold, GQ_HOLD_LIMIT);

	/* two of them run: the others stay held; a late one is held too */
	gq_view_begin(v, 8, 200);
	run(v, 1, "team-a", 1, 150);
	run(v, 2, "team-a", 1, 150);
	pend(v, 3, "team-a", 1, 3);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 3)->hold, GQ_HOLD_LIMIT);
	{
		gq_job_in_t in = { .id = 9, .state = GQ_JOB_PENDING, .gpus = 1,
				.tasks = 1, .requeueable = true };

		ck_assert_int_eq(gq_view_add_job(v, "team-a", &in)->hold,
				 GQ_HOLD_LIMIT);
	}
	gq_view_free(v);
}
END_TEST

/*
 * An array's band counts the tasks Slurm may start at once: team-a (q=2)
 * pends an array of 8 x 1 GPU, team-b (q=0) holds all 4 GPUs.  With %2,
 * A = 2 <= 2: in quota, it reclaims 2 GPUs.  Without a throttle all 8
 * could start at once (A = 8 > 2), but no GPU is idle, so the array is
 * split at its band: its first 2 tasks are in quota (tasks_now 2, the
 * plugin throttles it to them) and it reclaims as with %2.  Demand is all
 * 8 tasks either way.
 */
START_TEST(array_band_counts_tasks_at_once)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 0, 0);
	gq_job_in_t arr = with_tasks(pending(9, 1, 50), 8);
	uint32_t at_once, id, n;

	for (at_once = 0; at_once <= 2; at_once += 2) {	/* none, %2 */
		arr.tasks_at_once = at_once;
		gq_view_begin(v, 4, 100);
		for (id = 1; id <= 4; id++)
			run(v, id, "team-b", 1, id);
		add(v, "team-a", arr);
		ck_assert_int_eq(gq_view_compute(v), 0);
		ck_assert_uint_eq(project(v, "team-a")->pending, 8);
		for (id = 1, n = 0; id <= 4; id++)
			n += gq_view_preemptable(v, id, 9);
		ck_assert_uint_eq(gq_view_job(v, 9)->tasks_now, 2);
		ck_assert_double_eq_tol(gq_view_job(v, 9)->cum, 2, 1e-9);
		ck_assert_int_eq(gq_view_job(v, 9)->band, GQ_BAND_IN_QUOTA);
		/* team-b is over its quota 0: all of it for an in-quota job */
		ck_assert_uint_eq(n, 4);
	}
	gq_view_free(v);
}
END_TEST

/*
 * An array is split at its band only when the idle GPUs do not cover all
 * it may start.  1-GPU tasks, C = 8, numbers by hand:
 *   A. team-a (q 2) array of 8, nothing runs: idle 8 covers 8, no split:
 *      tasks_now 8; f_a = 8 (nobody else wants any), A = 8 <= 8:
 *      fair share.
 *   B. team-b (q 0) runs 2: idle 6 < 8: split in quota, 0 + 2 <= 2:
 *      tasks_now 2, A = 2, in quota.  The same when the array comes
 *      after the pass (a late submit).
 *   C. team-a runs 2 (at quota), team-b runs 4, array of 4: idle 2 < 4.
 *      The first task is not in quota (2 + 1 > 2); fair share: demands
 *      a 6, b 4, deserved a 2, b 0, surplus 6 by weight 1:1 -> 3 each,
 *      f_a = 5: 2 + 1 <= 5, fair share, 5 - 2 = 3 tasks fit: tasks_now
 *      3, A = 5.  Unsplit it was A = 6 > 5: over fair share.
 *   D. department d (q 3) holds team-a (q 4); team-b (q 0, outside) runs
 *      8; array of 6: idle 0: the first task fits both quotas, room
 *      min(4 - 0, 3 - 0) = 3: tasks_now 3, in quota.
 */
/*
 * While work outside quotas waits for a reclaim in flight, the idle GPUs
 * are not open to it: an array is split at its band even where they would
 * cover it.  Case A of array_split_at_its_band (team-a q 2, 8 idle, an
 * array of 8 x 1): whole, fair share (A = 8), it would be held for team-c's
 * reclaim; split, its 2 in-quota tasks (A = 2) are not held.
 */
START_TEST(array_split_while_a_reclaim_waits)
{
	gq_project_cfg_t p[3] = { proj("team-a", 2, 1, GQ_NO_LIMIT),
				  proj("team-b", 0, 1, GQ_NO_LIMIT),
				  proj("team-c", 2, 1, GQ_NO_LIMIT) };
	gq_view_t *v = view_of(p, 3, NULL, 0);
	const gq_job_t *j;
	uint32_t c1 = 20;

	for (int waiting = 0; waiting <= 1; waiting++) {
		gq_view_begin(v, 8, 100);
		gq_view_expect_reclaim_wait(v, waiting);
		add(v, "team-a", with_tasks(pending(9, 1, 50), 8));
		pend(v, c1, "team-c", 1, 60);
		ck_assert_int_eq(gq_view_compute(v), 0);
		gq_view_wait_for_reclaims(v, &c1, 1);
		j = gq_view_job(v, 9);
		if (!waiting) {
			ck_assert_uint_eq(j->tasks_now, 8);
			ck_assert_int_ne(j->band, GQ_BAND_IN_QUOTA);
			ck_assert_int_eq(j->hold, GQ_HOLD_RECLAIM);
		} else {
			ck_assert_uint_eq(j->tasks_now, 2);
			ck_assert_int_eq(j->band, GQ_BAND_IN_QUOTA);
			ck_assert_double_eq_tol(j->cum, 2, 1e-9);
			ck_assert_int_eq(j->hold, GQ_HOLD_NONE);
		}
	}
	/* a new pass forgets it */
	gq_view_begin(v, 8, 100);
	add(v, "team-a", with_tasks(pending(9, 1, 50), 8));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_uint_eq(gq_view_job(v, 9)->tasks_now, 8);
	gq_view_free(v);
}
END_TEST

START_TEST(array_split_at_its_band)
{
	gq_project_cfg_t p[2] = { proj("team-a", 2, 1, GQ_NO_LIMIT),
				  proj("team-b", 0, 1, GQ_NO_LIMIT) };
	gq_dept_cfg_t d[1] = { dept("d", 3, GQ_NO_LIMIT) };
	gq_view_t *v = view_of(p, 2, NULL, 0);
	const gq_job_t *j;
	uint32_t id;

	gq_view_begin(v, 8, 100);	/* A */
	add(v, "team-a", with_tasks(pending(9, 1, 50), 8));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_uint_eq(gq_view_job(v, 9)->tasks_now, 8);
	ck_assert_double_eq_tol(project(v, "team-a")->share, 8, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 9)->band, GQ_BAND_FAIR_SHARE);
	ck_assert_double_eq_tol(gq_view_job(v, 9)->cum, 8, 1e-9);

	for (int late = 0; late <= 1; late++) {	/* B */
		gq_view_begin(v, 8, 100);
		run(v, 1, "team-b", 1, 1);
		run(v, 2, "team-b", 1, 2);
		if (!late)
			add(v, "team-a", with_tasks(pending(9, 1, 50), 8));
		ck_assert_int_eq(gq_view_compute(v), 0);
		j = late ? add(v, "team-a", with_tasks(pending(9, 1, 50), 8)) :
			   gq_view_job(v, 9);
		ck_assert_uint_eq(j->tasks_now, 2);
		ck_assert_int_eq(j->band, GQ_BAND_IN_QUOTA);
		ck_assert_double_eq_tol(j->cum, 2, 1e-9);
		ck_assert(gq_view_preemptable(v, 1, 9));
	}

	gq_view_begin(v, 8, 100);	/* C */
	run(v, 1, "team-a", 1, 1);
	run(v, 2, "team-a", 1, 2);
	for (id = 3; id <= 6; id++)
		run(v, id, "team-b", 1, id);
	add(v, "team-a", with_tasks(pending(9, 1, 50), 4));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_double_eq_tol(project(v, "team-a")->share, 5, 1e-9);
	ck_assert_uint_eq(gq_view_job(v, 9)->tasks_now, 3);
	ck_assert_int_eq(gq_view_job(v, 9)->band, GQ_BAND_FAIR_SHARE);
	ck_assert_double_eq_tol(gq_view_job(v, 9)->cum, 5, 1e-9);
	gq_view_free(v);

	p[0] = proj("team-a", 4, 1, GQ_NO_LIMIT);	/* D */
	p[0].department = 0;
	v = view_of(p, 2, d, 1);
	gq_view_begin(v, 8, 100);
	for (id = 1; id <= 8; id++)
		run(v, id, "team-b", 1, id);
	add(v, "team-a", with_tasks(pending(9, 1, 50), 6));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_uint_eq(gq_view_job(v, 9)->tasks_now, 3);
	ck_assert_int_eq(gq_view_job(v, 9)->band, GQ_BAND_IN_QUOTA);
	ck_assert(gq_view_preemptable(v, 1, 9));
	gq_view_free(v);
}
END_TEST

/*
 * The same job twice in a pass (Slurm lists a job once; a reader may not):
 * the last one counts, as one task when it names none.  team-a pends job
 * 5 of 2 GPUs, added twice with tasks 0: pending 2, not 0 or 4.
 */
START_TEST(same_job_twice_counts_once)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);
	gq_job_in_t in = pending(5, 2, 5);

	in.tasks = 0;
	gq_view_begin(v, 4, 100);
	add(v, "team-a", in);
	add(v, "team-a", in);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_uint_eq(project(v, "team-a")->pending, 2);
	ck_assert_uint_eq(gq_view_job(v, 5)->in.tasks, 1);
	gq_view_free(v);
}
END_TEST

/*
 * GPUs reclaimed for an array are kept for it while it may reclaim, not
 * while its record stays pending: 2 x 2 GPUs, team-a and team-b q 2.
 * team-a runs 4; team-b's array 9 of 3 is split to its 2 in-quota tasks
 * and reclaims: work outside quotas waits.  Its 2 tasks run (10, 11),
 * team-a's jobs 3 and 4 are requeued; the record's last task is over
 * quota (A = 2 + 1 > 2 = f): nobody waits for it any more.
 */
START_TEST(reclaim_wait_ends_with_the_array_band)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);
	uint32_t arr = 9, id;
	int after;

	for (after = 0; after <= 1; after++) {
		gq_view_begin(v, 4, 100);
		for (id = 1; id <= 4; id++)
			add(v, "team-a", after && id > 2 ? pending(id, 1, id) :
							   running(id, 1, id));
		for (id = 10; after && id <= 11; id++)
			run(v, id, "team-b", 1, 60);
		add(v, "team-b", with_tasks(pending(9, 1, 50), after ? 1 : 3));
		ck_assert_int_eq(gq_view_compute(v), 0);
		ck_assert_int_eq(gq_view_job(v, 9)->band,
				 after ? GQ_BAND_OVER : GQ_BAND_IN_QUOTA);
		ck_assert_int_eq(gq_view_wait_for_reclaims(v, &arr, 1), !after);
	}
	ck_assert_int_eq(gq_view_job(v, 3)->hold, GQ_HOLD_NONE);
	gq_view_free(v);
}
END_TEST

/*
 * An array record may start as many tasks as fit its bounds (tasks_now;
 * the plugin throttles the array to it), the jobs behind it see them, and
 * it is held only when not one task fits.  Numbers by hand, 1-GPU tasks
 * on an idle 8-GPU cluster:
 *   team-a q=1 L=2, array of 4: 2 fit (0 + 2 <= 2), A = 2; job 2 behind
 *   it: 2 + 1 > 2, held.
 *   team-a q=1 L=4 running 2, array of 3: 2 fit (2 + 2 <= 4); before,
 *   the whole array was held since all 3 did not fit.
 *   the same array with %1: 1.
 *   team-a q=2 (no limit) running 1, array of 3 that cannot be requeued:
 *   1 fits the quota (1 + 1 <= 2); running 2: none, held.
 *   department d L=3 with team-a (no limit) running 1, array of 4: 2
 *   fit the department (1 + 2 <= 3).
 */
START_TEST(array_starts_what_fits)
{
	gq_project_cfg_t p[1];
	gq_dept_cfg_t d[1] = { dept("d", 8, 3) };
	gq_view_t *v;
	gq_job_in_t arr;

	p[0] = proj("team-a", 1, 1, 2);
	v = view_of(p, 1, NULL, 0);
	gq_view_begin(v, 8, 100);
	add(v, "team-a", with_tasks(pending(1, 1, 1), 4));
	pend(v, 2, "team-a", 1, 2);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_uint_eq(gq_view_job(v, 1)->tasks_now, 2);
	ck_assert_int_eq(gq_view_job(v, 1)->hold, GQ_HOLD_NONE);
	ck_assert_double_eq_tol(gq_view_job(v, 1)->cum, 2, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 2)->hold, GQ_HOLD_LIMIT);
	ck_assert_uint_eq(gq_view_job(v, 2)->tasks_now, 0);
	gq_view_free(v);

	p[0] = proj("team-a", 1, 1, 4);
	v = view_of(p, 1, NULL, 0);
	for (uint32_t at_once = 0; at_once <= 1; at_once++) {
		gq_view_begin(v, 8, 100);
		run(v, 1, "team-a", 1, 1);
		run(v, 2, "team-a", 1, 2);
		arr = with_tasks(pending(3, 1, 3), 3);
		arr.tasks_at_once = at_once;
		add(v, "team-a", arr);
		ck_assert_int_eq(gq_view_compute(v), 0);
		ck_assert_uint_eq(gq_view_job(v, 3)->tasks_now,
				  at_once ? 1 : 2);
		ck_assert_int_eq(gq_view_job(v, 3)->hold, GQ_HOLD_NONE);
	}
	gq_view_free(v);

	p[0] = proj("team-a", 2, 1, GQ_NO_LIMIT);
	v = view_of(p, 1, NULL, 0);
	for (uint32_t nrun = 1; nrun <= 2; nrun++) {
		gq_view_begin(v, 8, 100);
		for (uint32_t id = 1; id <= nrun; id++)
			run(v, id, "team-a", 1, id);
		add(v, "team-a", no_requeue(with_tasks(pending(9, 1, 9), 3)));
		ck_assert_int_eq(gq_view_compute(v), 0);
		ck_assert_uint_eq(gq_view_job(v, 9)->tasks_now, 2 - nrun);
		ck_assert_int_eq(gq_view_job(v, 9)->hold,
				 nrun == 2 ? GQ_HOLD_NOT_REQUEUEABLE :
					     GQ_HOLD_NONE);
	}
	gq_view_free(v);

	p[0] = proj("team-a", 1, 1, GQ_NO_LIMIT);
	p[0].department = 0;
	v = view_of(p, 1, d, 1);
	gq_view_begin(v, 8, 100);
	run(v, 1, "team-a", 1, 1);
	add(v, "team-a", with_tasks(pending(2, 1, 2), 4));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_uint_eq(gq_view_job(v, 2)->tasks_now, 2);
	ck_assert_int_eq(gq_view_job(v, 2)->hold, GQ_HOLD_NONE);
	gq_view_free(v);
}
END_TEST

/*
 * First fit: a job too large for a band does not push the smaller jobs
 * behind it out of the band they fit.  C = 8, team-a (q 4) pends big (8
 * GPUs), then s1 (1), s2 (2), s3 (2); team-b (q 4) runs 8 x 1 GPU.  Both
 * demand more than 4: fair shares 4 and 4.
 *   big: 0 + 8 > 4 (quota), 0 + 8 > 4 (share): over, A = 8.
 *   s1: in quota 0 + 1 <= 4: in-quota, A = 1.  s2: 1 + 2 = 3 <= 4:
 *   in-quota, A = 3.  s3: 3 + 2 = 5 > 4, and 3 + 2 > 4: over,
 *   A = 0 + 8 + 1 + 2 + 2 = 13.
 * So team-a (0 < 4) reclaims for s1 and s2 from team-b (8 > 4), not for
 * big.  Before, all four were over (A = 8, 9, 11, 13) and team-a never
 * reclaimed while big waited at its head.
 */
START_TEST(large_head_job_keeps_smaller_in_quota)
{
	gq_view_t *v = view2("team-a", 4, "team-b", 4, 0);
	uint32_t id;

	gq_view_begin(v, 8, 100);
	for (id = 1; id <= 8; id++)
		run(v, id, "team-b", 1, id);
	pend(v, 11, "team-a", 8, 11);
	pend(v, 12, "team-a", 1, 12);
	pend(v, 13, "team-a", 2, 13);
	pend(v, 14, "team-a", 2, 14);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_double_eq_tol(project(v, "team-a")->share, 4, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 11)->band, GQ_BAND_OVER);
	ck_assert_double_eq_tol(gq_view_job(v, 11)->cum, 8, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 12)->band, GQ_BAND_IN_QUOTA);
	ck_assert_double_eq_tol(gq_view_job(v, 12)->cum, 1, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 13)->band, GQ_BAND_IN_QUOTA);
	ck_assert_double_eq_tol(gq_view_job(v, 13)->cum, 3, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 14)->band, GQ_BAND_OVER);
	ck_assert_double_eq_tol(gq_view_job(v, 14)->cum, 13, 1e-9);
	ck_assert(gq_view_preemptable(v, 8, 12));
	ck_assert(gq_view_preemptable(v, 8, 13));
	ck_assert(!gq_view_preemptable(v, 8, 11));
	ck_assert(!gq_view_preemptable(v, 8, 14));
	/* Slurm tries s1 and s2 first */
	ck_assert_uint_gt(gq_view_job(v, 13)->priority,
			  gq_view_job(v, 11)->priority);
	gq_view_free(v);
}
END_TEST

/*
 * A requeued job keeps its place in its project's queue: Slurm resets its
 * submit time, so the queue goes by job id (the order of submission).
 * team-a (q 1) pends job 7 (submitted at 50) and job 3, requeued at 90
 * (submit time 90): job 3 comes first, in quota (A = 1); job 7: A = 2.
 */
START_TEST(requeued_job_keeps_its_place)
{
	gq_view_t *v = view2("team-a", 1, "team-b", 1, 0);

	gq_view_begin(v, 2, 100);
	pend(v, 7, "team-a", 1, 50);
	pend(v, 3, "team-a", 1, 90);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 3)->band, GQ_BAND_IN_QUOTA);
	ck_assert_double_eq_tol(gq_view_job(v, 3)->cum, 1, 1e-9);
	ck_assert_int_ne(gq_view_job(v, 7)->band, GQ_BAND_IN_QUOTA);
	ck_assert_uint_gt(gq_view_job(v, 3)->priority,
			  gq_view_job(v, 7)->priority);
	gq_view_free(v);
}
END_TEST

/*
 * An account no project lists (Slurm without slurmdbd takes any -A text)
 * is shown with every character outside a config name's as '?', cut at
 * 64: no newline, quote or shell character reaches a log line, squeue's
 * reason or the command.  It still finds its project.
 */
START_TEST(unlisted_account_name_is_shown_safely)
{
	gq_view_t *v = view2("team-a", 1, "team-b", 1, 0);
	char long_name[200];
	int idx;

	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	gq_view_begin(v, 4, 100);
	pend(v, 1, "evil\nname;$(rm -rf)", 1, 1);
	pend(v, 2, long_name, 1, 2);
	ck_assert_int_eq(gq_view_compute(v), 0);
	idx = gq_view_find_project(v, "evil\nname;$(rm -rf)");
	ck_assert_int_ge(idx, 0);
	ck_assert_str_eq(gq_view_project(v, idx)->name, "evil?name?" "??rm?-rf?");
	ck_assert_int_eq(gq_view_job(v, 1)->project, idx);
	idx = gq_view_find_project(v, long_name);
	ck_assert_uint_eq(strlen(gq_view_project(v, idx)->name), 64);
	gq_view_free(v);
}
END_TEST

/*
 * A requeued job waits for its begin time and then may start before the
 * next pass sees it eligible: it is held in advance when it would pass the
 * limit.  team-a q=1 L=2 runs jobs 1 and 2; job 3 (requeued, begins later)
 * would make 3 > 2: held; it is not demand (D = 2).  On team-b (no limit)
 * a job that begins later is not held.
 */
START_TEST(begins_later_held_in_advance)
{
	gq_project_cfg_t p[2] = { proj("team-a", 1, 1, 2),
				  proj("team-b", 1, 1, GQ_NO_LIMIT) };
	gq_view_t *v = view_of(p, 2, NULL, 0);
	gq_job_in_t later = pending(3, 1, 30);

	later.state = GQ_JOB_WAITING;
	later.begins_later = true;
	gq_view_begin(v, 8, 100);
	run(v, 1, "team-a", 1, 10);
	run(v, 2, "team-a", 1, 20);
	add(v, "team-a", later);
	later.id = 4;
	add(v, "team-b", later);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 3)->hold, GQ_HOLD_LIMIT);
	ck_assert_int_eq(gq_view_job(v, 4)->hold, GQ_HOLD_NONE);
	ck_assert_uint_eq(project(v, "team-a")->pending, 0);
	/* the same between passes (a requeue seen by priority_p_set) */
	later.id = 5;
	ck_assert_int_eq(add(v, "team-a", later)->hold, GQ_HOLD_LIMIT);
	gq_view_free(v);
}
END_TEST

/*
 * Work that cannot be requeued starts only inside quota: team-a q=2 runs
 * one GPU; interactive job 2 (1 GPU) gives A=2 <= q: may start; interactive
 * job 3 would make A=3 > q: held; a batch job 4 behind it (A=3) is not held:
 * it runs over quota where it can be reclaimed.
 */
START_TEST(not_requeueable_only_inside_quota)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);

	gq_view_begin(v, 8, 100);
	run(v, 1, "team-a", 1, 10);
	add(v, "team-a", no_requeue(pending(2, 1, 20)));
	add(v, "team-a", no_requeue(pending(3, 1, 30)));
	pend(v, 4, "team-a", 1, 40);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 2)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(gq_view_job(v, 3)->hold, GQ_HOLD_NOT_REQUEUEABLE);
	ck_assert_int_eq(gq_view_job(v, 4)->hold, GQ_HOLD_NONE);
	ck_assert_double_eq_tol(gq_view_job(v, 4)->cum, 3, 1e-9);
	gq_view_free(v);
}
END_TEST

/* three projects, p1 and p2 in department d */
static gq_view_t *dept_view(int qd, int ld, int q1, int q2, int q3)
{
	gq_project_cfg_t p[3] = { proj("p1", q1, 1, GQ_NO_LIMIT),
				  proj("p2", q2, 1, GQ_NO_LIMIT),
				  proj("p3", q3, 1, GQ_NO_LIMIT) };
	gq_dept_cfg_t d[1] = { { .name = "d", .gpu_quota = qd,
				 .over_quota_weight = 1, .gpu_limit = ld } };
	gq_config_t cfg = { .projects = p, .nprojects = 3, .depts = d,
			    .ndepts = 1 };

	p[0].department = 0;
	p[1].department = 0;
	return gq_view_create(&cfg);
}

/*
 * Fair share top-down: C=8; d (q=4) holds p1 (q=3) and p2 (q=3); p3 (q=4)
 * outside; all demand 8.  Top: d min(4, 16) = 4, p3 4: no surplus.  Inside
 * d, C=4: caps 3 and 3 sum past 4: by quota 3:3 -> 2 and 2.
 */
START_TEST(department_fair_share_top_down)
{
	gq_view_t *v = dept_view(4, GQ_NO_LIMIT, 3, 3, 4);
	uint32_t id = 1;
	int k;

	gq_view_begin(v, 8, 100);
	for (k = 0; k < 8; k++) {
		pend(v, id, "p1", 1, id);
		id++;
		pend(v, id, "p2", 1, id);
		id++;
		pend(v, id, "p3", 1, id);
		id++;
	}
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_double_eq_tol(gq_view_dept(v, 0)->share, 4, 1e-9);
	ck_assert_double_eq_tol(project(v, "p1")->share, 2, 1e-9);
	ck_assert_double_eq_tol(project(v, "p2")->share, 2, 1e-9);
	ck_assert_double_eq_tol(project(v, "p3")->share, 4, 1e-9);
	gq_view_free(v);
}
END_TEST

/*
 * A project at ease inside its own quota but in a department at its quota
 * is not in quota: C=8, d q=4: p1 (q=3) holds 3, p2 (q=3) holds 1, p3 (q=4)
 * holds 4; p2 pends 1: A=2 <= 3 for p2, but d would hold 5 > 4.
 * D: p1 3, p2 2, p3 4; top: d deserves 4, p3 4: f_d = 4; inside d caps
 * 3 and 2 sum past 4: by quota 3:3 -> 2 each (p2 capped at 2): f_p2 = 2.
 * So the job is fair-share (A=2 <= 2), and takes nothing: p1 is at
 * max(q, f) = 3, p3 at max(4, 4).
 */
START_TEST(department_quota_bounds_band)
{
	gq_view_t *v = dept_view(4, GQ_NO_LIMIT, 3, 3, 4);
	uint32_t id;

	gq_view_begin(v, 8, 100);
	run(v, 1, "p1", 3, 10);
	run(v, 2, "p2", 1, 20);
	run(v, 3, "p3", 4, 30);
	pend(v, 4, "p2", 1, 40);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_double_eq_tol(project(v, "p2")->share, 2, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 4)->band, GQ_BAND_FAIR_SHARE);
	for (id = 1; id <= 3; id++)
		ck_assert(!gq_view_preemptable(v, id, 4));
	gq_view_free(v);
}
END_TEST

/*
 * A department's floor bounds reclaim from outside it, not from inside:
 * C=6, d (q=4) holds p1 (q=1) with four 1-GPU jobs; p3 (q=4, outside) holds
 * 2 and pends 2 (A=4 <= 4: in quota); p2 (q=3, in d) pends 1.
 * Top: d deserves min(4, 5) = 4, p3 4: 8 > 6: by quota 4:4 -> 3 and 3.
 * Inside d (C=3): deserved p1 1, p2 1; surplus 1 to p1 (p2's demand is 1):
 * f_p1 = 2, f_p2 = 1.  p3's job: d holds 4 = q_d: nothing from outside.
 * p2's job: A=1 <= q_p2, but d would hold 5 > q_d: fair-share (A <= f = 1):
 * it may take from p1 down to max(q, f) = 2.
 */
START_TEST(department_floor_bounds_outside_reclaim)
{
	gq_view_t *v = dept_view(4, GQ_NO_LIMIT, 1, 3, 4);
	uint32_t id, from_p2 = 0;

	gq_view_begin(v, 6, 100);
	for (id = 1; id <= 4; id++)
		run(v, id, "p1", 1, id);
	run(v, 5, "p3", 2, 5);
	pend(v, 6, "p3", 2, 60);
	pend(v, 7, "p2", 1, 70);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_double_eq_tol(project(v, "p1")->share, 2, 1e-9);
	ck_assert_double_eq_tol(project(v, "p2")->share, 1, 1e-9);
	ck_assert_int_eq(gq_view_job(v, 6)->band, GQ_BAND_IN_QUOTA);
	ck_assert_int_eq(gq_view_job(v, 7)->band, GQ_BAND_FAIR_SHARE);
	for (id = 1; id <= 4; id++) {
		ck_assert(!gq_view_preemptable(v, id, 6));
		from_p2 += gq_view_preemptable(v, id, 7);
	}
	ck_assert_uint_eq(from_p2, 2);
	gq_view_free(v);
}
END_TEST

/*
 * A department's limit holds its projects' jobs: d q=1 L=2 holds p1 (q=2,
 * no limit of its own); p1 pends three 1-GPU jobs on an idle C=8: the
 * third would take d to 3 > 2: held.
 */
START_TEST(department_limit_holds)
{
	gq_view_t *v = dept_view(1, 2, 2, 0, 0);

	gq_view_begin(v, 8, 100);
	pend(v, 1, "p1", 1, 1);
	pend(v, 2, "p1", 1, 2);
	pend(v, 3, "p1", 1, 3);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 1)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(gq_view_job(v, 2)->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(gq_view_job(v, 3)->hold, GQ_HOLD_DEPT_LIMIT);
	/* d q=1: the second job is past the department's quota */
	ck_assert_int_eq(gq_view_job(v, 1)->band, GQ_BAND_IN_QUOTA);
	ck_assert_int_ne(gq_view_job(v, 2)->band, GQ_BAND_IN_QUOTA);
	gq_view_free(v);
}
END_TEST

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
	 * usual set is now the room set too ({x3, x1}), not {x4, x3}, so that
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
 * Room sets of many shapes share their victims, and each is kept whole.
 * 2 nodes x 4 GPUs: team-c (q 2: it may lose 2) runs x1, x3 on n0 and
 * x2, x4 on n1 (1 GPU each), team-d (q 4, at its quota) 2 GPUs on each
 * node.  p1..p5 (q 4 each) each pend a 2-GPU one-node job, in quota (key
 * 0.5): the usual set {x4, x3} spans both nodes, so each gets the room
 * set {x1, x3} on n0 (a victim another set took costs nothing more).
 * p5 pends a second such job (key 1: tried last; the same shape): it
 * reuses p5's set, both victims.  Five shapes of 2 victims are more than
 * the 6 running jobs in reclaim order: the shapes' victim list grows (it
 * was cut at that count, and the second p5 job read past it: ASan).
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
 * Patience for loans that end soon (settings.reclaim_patience 60 s, now
 * 100).  2 nodes x 2 GPUs: team-a (q 2) runs a1 (n0) and a2 (n1), then
 * a3 on n0 whose time limit ends it at 130 and a4 on n1 with no limit:
 * 2 over its quota, both candidates.  team-b (q 2) submits b1 and b2, 1
 * GPU each, in quota.  b1 (first) waits for a3, which ends within 60 s,
 * and reclaims nothing; b2 finds no loan left (a4 has no end) and
 * reclaims a4.  With a3 ending at 170 (past the patience), or patience 0,
 * both reclaim.
 */
START_TEST(patience_for_loans_that_end_soon)
{
	gq_project_cfg_t p[2] = { proj("team-a", 2, 1, GQ_NO_LIMIT),
				  proj("team-b", 2, 1, GQ_NO_LIMIT) };
	int64_t ends[3] = { 130, 170, 130 };
	int patience[3] = { 60, 60, 0 };

	for (int c = 0; c < 3; c++) {
		gq_config_t cfg = { .projects = p, .nprojects = 2 };
		gq_job_in_t a3 = running(3, 1, 30);
		gq_view_t *v;
		const gq_job_t *b1;

		cfg.settings.reclaim_patience = patience[c];
		ck_assert_ptr_nonnull(v = gq_view_create(&cfg));
		gq_view_begin(v, 4, 100);
		ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
		run(v, 1, "team-a", 1, 10);
		run(v, 2, "team-a", 1, 11);
		a3.ends_by = ends[c];
		add(v, "team-a", a3);
		run(v, 4, "team-a", 1, 31);
		for (uint32_t id = 1; id <= 4; id++)
			ck_assert_int_eq(gq_view_place(v, id, (id + 1) % 2, 1),
					 0);
		pend(v, 20, "team-b", 1, 50);
		pend(v, 21, "team-b", 1, 51);
		ck_assert_int_eq(gq_view_compute(v), 0);
		b1 = gq_view_job(v, 20);
		ck_assert_int_eq(b1->band, GQ_BAND_IN_QUOTA);
		ck_assert_int_eq(gq_view_job(v, 21)->band, GQ_BAND_IN_QUOTA);
		if (c == 0) {
			ck_assert(b1->patient);
			ck_assert_uint_eq(b1->waits_for, 3);
			ck_assert(!gq_view_preemptable(v, 3, 20));
			ck_assert(!gq_view_preemptable(v, 4, 20));
			ck_assert(!gq_view_job(v, 21)->patient);
			ck_assert(gq_view_preemptable(v, 4, 21));
		} else {
			ck_assert(!b1->patient);
			ck_assert(gq_view_preemptable(v, 4, 20));
			ck_assert(gq_view_preemptable(v, 4, 21));
		}
		gq_view_free(v);
	}
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
 * {x3, x2}, spans both nodes, so room is made: {x1, x2} on n0.  Before,
 * team-a's failed attempt left x1 and x2 marked as taken; team-b's room
 * on n0 then counted their GPUs as freed without taking them, and its
 * room set was empty: it could reclaim nothing.
 * team-a's job, for which no room can be made, goes below team-b's in its
 * band: 2 000 000 001 (the band's base, band.h), under team-b's key 1
 * (2 000 000 002), where it was 2 500 000 001 (key 0.5) and tried first.
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
 * Room only where the preemptor may run: the same cluster as above, but
 * node 0 is in partition A (group 1) and node 1 in partition B (group 2);
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
 * Slurm's account tree as structure: department research (q=4); vision
 * (q=2) names no department but its account's parent is research; nlp
 * names research itself; ops is under root.  An unlisted account guest
 * under research becomes a 0-quota project of research.  nlp's config
 * wins over the tree (parent root).
 */
START_TEST(account_tree_gives_departments)
{
	gq_project_cfg_t p[3] = { proj("vision", 2, 1, GQ_NO_LIMIT),
				  proj("nlp", 1, 1, GQ_NO_LIMIT),
				  proj("ops", 2, 1, GQ_NO_LIMIT) };
	gq_dept_cfg_t d[1] = { { .name = "research", .gpu_quota = 4,
				 .over_quota_weight = 1,
				 .gpu_limit = GQ_NO_LIMIT } };
	gq_config_t cfg = { .projects = p, .nprojects = 3, .depts = d,
			    .ndepts = 1 };
	gq_view_t *v;

	p[0].department = -1;
	p[1].department = 0;
	p[2].department = -1;
	v = gq_view_create(&cfg);
	gq_view_begin(v, 8, 100);
	gq_view_account_parent(v, "vision", "research");
	gq_view_account_parent(v, "nlp", "root");
	gq_view_account_parent(v, "ops", "root");
	gq_view_account_parent(v, "guest", "research");
	run(v, 1, "guest", 3, 10);
	run(v, 2, "vision", 2, 20);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(project(v, "vision")->department, 0);
	ck_assert_int_eq(project(v, "nlp")->department, 0);
	ck_assert_int_eq(project(v, "ops")->department, -1);
	ck_assert_int_eq(project(v, "guest")->department, 0);
	ck_assert_uint_eq(gq_view_dept(v, 0)->alloc, 5);

	/* vision moved out of research in Slurm: it leaves the department */
	gq_view_begin(v, 8, 200);
	gq_view_account_parent(v, "vision", "root");
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(project(v, "vision")->department, -1);
	ck_assert_int_eq(project(v, "nlp")->department, 0);
	gq_view_free(v);
}
END_TEST

/*
 * No ping-pong: after the quick start's reclaim, a1 pends again.  team-a
 * holds 2 (a2), team-b 2 (b1, b2); D_a = 3, D_b = 2: f = 2, 2.  a1:
 * A = 2 + 1 = 3 > q_a and > f_a: over its fair share, it takes nothing
 * back, and team-b (at its quota and fair share) offers no candidate.
 */
START_TEST(no_ping_pong_after_reclaim)
{
	gq_view_t *v = view2("team-a", 2, "team-b", 2, 0);
	uint32_t id;

	gq_view_begin(v, 4, 200);
	pend(v, 1, "team-a", 1, 150);
	run(v, 2, "team-a", 2, 20);
	run(v, 3, "team-b", 1, 30);
	run(v, 4, "team-b", 1, 160);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 1)->band, GQ_BAND_OVER);
	for (id = 2; id <= 4; id++)
		ck_assert(!gq_view_preemptable(v, id, 1));
	ck_assert(!(gq_view_job(v, 4)->victim));
	ck_assert(!(gq_view_job(v, 3)->victim));
	gq_view_free(v);
}
END_TEST

Suite *view_suite(void)
{
	Suite *s = suite_create("view");
	TCase *tc = tcase_create("view");

	tcase_add_test(tc, quick_start_reclaims_a1);
	tcase_add_test(tc, over_quota_job_in_fair_share_band);
	tcase_add_test(tc, at_quota_preempts_nothing);
	tcase_add_test(tc, exempt_jobs_are_never_victims);
	tcase_add_test(tc, floor_bounds_candidate_gpus);
	tcase_add_test(tc, walk_lowest_order_first);
	tcase_add_test(tc, walk_multifactor_before_qos);
	tcase_add_test(tc, most_over_served_first);
	tcase_add_test(tc, fair_share_reclaim_floor);
	tcase_add_test(tc, interleaving_by_share);
	tcase_add_test(tc, unknown_account_is_zero_quota_project);
	tcase_add_test(tc, account_spellings_one_project);
	tcase_add_test(tc, account_spellings_random);
	tcase_add_test(tc, recompute_after_changes_as_fresh);
	tcase_add_test(tc, late_submit_reclaims);
	tcase_add_test(tc, limit_holds_jobs_past_it);
	tcase_add_test(tc, not_requeueable_only_inside_quota);
	tcase_add_test(tc, begins_later_held_in_advance);
	tcase_add_test(tc, array_band_counts_tasks_at_once);
	tcase_add_test(tc, array_starts_what_fits);
	tcase_add_test(tc, array_split_at_its_band);
	tcase_add_test(tc, array_split_while_a_reclaim_waits);
	tcase_add_test(tc, same_job_twice_counts_once);
	tcase_add_test(tc, reclaim_wait_ends_with_the_array_band);
	tcase_add_test(tc, large_head_job_keeps_smaller_in_quota);
	tcase_add_test(tc, requeued_job_keeps_its_place);
	tcase_add_test(tc, unlisted_account_name_is_shown_safely);
	tcase_add_test(tc, department_fair_share_top_down);
	tcase_add_test(tc, department_quota_bounds_band);
	tcase_add_test(tc, department_floor_bounds_outside_reclaim);
	tcase_add_test(tc, department_limit_holds);
	tcase_add_test(tc, room_made_on_one_node);
	tcase_add_test(tc, room_sets_share_victims);
	tcase_add_test(tc, room_failed_attempt_leaves_nothing);
	tcase_add_test(tc, patience_for_loans_that_end_soon);
	tcase_add_test(tc, room_only_in_its_partition);
	tcase_add_test(tc, room_not_made_below_floor);
	tcase_add_test(tc, room_usual_set_kept);
	tcase_add_test(tc, account_tree_gives_departments);
	tcase_add_test(tc, no_ping_pong_after_reclaim);
	suite_add_tcase(s, tc);
	return s;
}
