/*
 * test_pools.c - pools of GPUs: which pool a job is in, each pool its own
 * model, a job listing several pools held by any pool's limit, and a
 * project's numbers per pool in slurmctld's "loaded" line.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "config/advice.h"
#include "config/config.h"
#include "core/pools.h"
#include "shared/job_facts.h"
#include "helpers.h"

static const char two_pools[] =
	"{\"pools\": [{\"name\": \"a100\", \"partitions\": [\"a100\"]},"
	"            {\"name\": \"h100\", \"partitions\": [\"h100\", \"h100-long\"]}],"
	" \"projects\": [{\"name\": \"team-a\", \"gpu_quota\": {\"a100\": 2, \"h100\": 1},"
	"                 \"gpu_limit\": {\"h100\": 1}},"
	"                {\"name\": \"team-b\", \"gpu_quota\": {\"h100\": 2}}]}";

static gq_pools_t *pools_of(const char *json)
{
	char err[GQ_ERR_MAX];
	gq_config_t *cfg = NULL;
	gq_pools_t *p;

	ck_assert_msg(!gq_config_parse(json, "t.json", &cfg, err, sizeof(err)),
		      "%s", err);
	p = gq_pools_new(cfg);
	ck_assert_ptr_nonnull(p);
	gq_config_free(cfg);	/* the pools keep copies */
	return p;
}

/*
 * A started job is in the pool of the partition it runs in (the first
 * listed); a pending one in the pool of the first partition it lists that
 * is in a pool; a job of no pool's partition in none.  Without pools,
 * everything is in the one pool (or what settings.partitions names).
 */
START_TEST(pool_of_job)
{
	gq_pools_t *p = pools_of(two_pools);

	ck_assert_int_eq(p->n, 2);
	ck_assert_str_eq(p->name[1], "h100");
	ck_assert_int_eq(gq_pool_of_job(p->config, p->n, "h100-long", true), 1);
	ck_assert_int_eq(gq_pool_of_job(p->config, p->n, "cpu,h100,a100", false), 1);
	ck_assert_int_eq(gq_pool_of_job(p->config, p->n, "a100,h100", false), 0);
	ck_assert_int_eq(gq_pool_of_job(p->config, p->n, "cpu,a100", true), -1);
	ck_assert_int_eq(gq_pool_of_job(p->config, p->n, "cpu", false), -1);
	ck_assert_int_eq(gq_pool_of_job(p->config, p->n, NULL, false), -1);
	gq_pools_free(p);

	p = pools_of("{\"projects\": []}");
	ck_assert_int_eq(p->n, 1);
	ck_assert_ptr_null(p->name[0]);
	ck_assert_int_eq(gq_pool_of_job(p->config, 1, "anything", true), 0);
	ck_assert_int_eq(gq_pool_of_job(p->config, 1, NULL, false), 0);
	gq_pools_free(p);
}
END_TEST

/*
 * A warned victim's GPUs come free for the job it was reclaimed for:
 * team-b (quota 0) runs 1 and 2, team-a (quota 2) pends 20 and 21, both
 * in quota.  Job 1, warned for 20, is not for 21 while 20 may reclaim
 * (21 takes 2 instead, and both start when their victims leave); it is
 * for 20, for anyone when its owner is not known or gone, and 2 (not
 * warned for anyone) for both.
 */
START_TEST(leaving_gpus_for_their_owner)
{
	gq_pools_t *p = pools_of("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 2},"
				 " {\"name\": \"team-b\", \"gpu_quota\": 0}]}");
	gq_view_t *v = p->view[0];

	gq_view_begin(v, 2, 100);
	run(v, 1, "team-b", 1, 1);
	run(v, 2, "team-b", 1, 2);
	pend(v, 20, "team-a", 1, 20);
	pend(v, 21, "team-a", 1, 21);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert(gq_view_may_reclaim(v, 20) && gq_view_may_reclaim(v, 21));

	ck_assert(!gq_pools_may_take_leaving(p, 1, 20, 21));
	ck_assert(gq_pools_may_take_leaving(p, 1, 20, 20));
	ck_assert(gq_pools_may_take_leaving(p, 1, 0, 21));
	ck_assert(gq_pools_may_take_leaving(p, 1, 77, 21));
	ck_assert(gq_pools_preemptable(p, 2, 21));
	gq_pools_job_gone(p, 20);	/* 20 started or ended */
	ck_assert(gq_pools_may_take_leaving(p, 1, 20, 21));
	gq_pools_free(p);
}
END_TEST

/*
 * Each pool its own model, numbers by hand.  a100: 4 GPUs, h100: 2.
 * team-b runs 2 in a100 (quota 0 there: over) and 2 in h100 (its quota).
 * team-a pends a1 (1 GPU) in a100: in quota there (A = 1 <= 2) and it
 * reclaims team-b's a100 jobs, never its h100 ones (team-b is at quota in
 * h100, and another pool anyway).  team-a's a2, listing a100,h100, is
 * demand in a100 (A = 2 <= 2, in quota) and a shadow in h100, where
 * team-a already runs 1 = its limit there: held by h100's limit.
 */
START_TEST(pools_apart)
{
	gq_pools_t *p = pools_of(two_pools);
	gq_view_t *a = p->view[0], *h = p->view[1];
	gq_job_in_t a2 = pending(21, 1, 21);
	const gq_job_t *j;
	int k = -1;

	gq_view_begin(a, 4, 100);
	gq_view_begin(h, 3, 100);
	run(a, 1, "team-b", 1, 1);
	run(a, 2, "team-b", 1, 2);
	run(h, 3, "team-b", 1, 3);
	run(h, 4, "team-b", 1, 4);
	run(h, 5, "team-a", 1, 5);
	pend(a, 20, "team-a", 1, 20);
	add(a, "team-a", a2);
	gq_pools_shadow(&a2);
	add(h, "team-a", a2);
	ck_assert_int_eq(gq_view_compute(a), 0);
	ck_assert_int_eq(gq_view_compute(h), 0);

	j = gq_pools_job(p, 20, &k);
	ck_assert_int_eq(k, 0);
	ck_assert_int_eq(j->band, GQ_BAND_IN_QUOTA);
	ck_assert(gq_pools_preemptable(p, 1, 20));
	ck_assert(!gq_pools_preemptable(p, 3, 20));	/* other pool */
	ck_assert(!gq_pools_preemptable(p, 5, 20));

	j = gq_pools_job(p, 21, &k);	/* home: a100 */
	ck_assert_int_eq(k, 0);
	ck_assert_int_eq(j->band, GQ_BAND_IN_QUOTA);
	ck_assert_int_eq(j->hold, GQ_HOLD_NONE);
	j = gq_pools_held_elsewhere(p, 21, &k);
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(k, 1);
	ck_assert_int_eq(j->hold, GQ_HOLD_LIMIT);
	/* not demand in h100: team-a's h100 demand is what it runs */
	ck_assert_uint_eq(gq_view_project(h, gq_view_find_project(h, "team-a"))->pending, 0);
	ck_assert_ptr_null(gq_pools_held_elsewhere(p, 20, NULL));
	/* the answer each job gets: a2's is h100's hold, a1's its home's;
	 * a running job's its own pool's; an unknown job none */
	j = gq_pools_answer(p, 21, &k);
	ck_assert_int_eq(k, 1);
	ck_assert_int_eq(j->hold, GQ_HOLD_LIMIT);
	ck_assert(j->in.elsewhere);
	j = gq_pools_answer(p, 20, &k);
	ck_assert_int_eq(k, 0);
	ck_assert_int_eq(j->hold, GQ_HOLD_NONE);
	ck_assert_int_eq(j->band, GQ_BAND_IN_QUOTA);
	ck_assert_ptr_nonnull(gq_pools_answer(p, 3, &k));
	ck_assert_int_eq(k, 1);
	ck_assert_ptr_null(gq_pools_answer(p, 99, &k));

	/* a walk of each view's jobs (the re-hold's) meets every job once
	 * in its home pool, and a2's shadow in h100: a100 holds 1, 2, 20,
	 * 21; h100 3, 4, 5 and 21 elsewhere */
	{
		uint32_t home = 0, shadows = 0;

		for (k = 0; k < p->n; k++)
			for (int i = 0; i < gq_view_njobs(p->view[k]); i++) {
				j = gq_view_job_at(p->view[k], i);
				if (j->in.elsewhere)
					shadows += j->in.id;
				else
					home += j->in.id;
			}
		ck_assert_uint_eq(home, 1 + 2 + 20 + 21 + 3 + 4 + 5);
		ck_assert_uint_eq(shadows, 21);
		ck_assert_int_eq(gq_view_njobs(a) + gq_view_njobs(h), 8);
	}

	/*
	 * Reclaimed jobs in their grace time (leaving): a job that may
	 * reclaim counts on their GPUs in its own pool, whether the job is
	 * still in the view or gone from it since; not on another pool's;
	 * a job that may not reclaim, on none.
	 */
	ck_assert(gq_pools_may_take_leaving(p, 1, 0, 20));
	gq_pools_job_gone(p, 2);
	ck_assert(gq_pools_may_take_leaving(p, 2, 0, 20));
	ck_assert(gq_pools_may_take_leaving(p, 99, 0, 20));
	ck_assert(!gq_pools_may_take_leaving(p, 3, 0, 20));	/* h100 */
	ck_assert(!gq_pools_may_take_leaving(p, 1, 0, 3));	/* running */
	ck_assert(!gq_pools_may_take_leaving(p, 1, 0, 98));	/* unknown */
	gq_pools_free(p);
}
END_TEST

/*
 * An array listing two pools starts, before the next pass, no more tasks
 * than the fewest any pool it lists lets start: Slurm may start each task
 * in any of them.  Pools a100 and h100, 8 GPUs each; a100 full of team-b
 * (quota 0 there).  team-a: quota {a100: 8}, limit {h100: 2}.  Array A
 * (8 x 1 GPU, -p a100,h100), home a100: in quota, tasks_now 8 (it may
 * reclaim).  Its shadow in h100: tasks_now 2, not held.  So 2 tasks may
 * start (else all 8 could start on h100's idle GPUs, limit 2); a hold in
 * any pool: none.
 */
START_TEST(array_listing_pools_starts_fewest_tasks)
{
	gq_pools_t *p = pools_of(
		"{\"pools\": [{\"name\": \"a100\", \"partitions\": [\"a100\"]},"
		"            {\"name\": \"h100\", \"partitions\": [\"h100\"]}],"
		" \"projects\": [{\"name\": \"team-a\", \"gpu_quota\": {\"a100\": 8},"
		"                 \"gpu_limit\": {\"h100\": 2}}]}");
	gq_view_t *a = p->view[0], *h = p->view[1];
	gq_job_in_t arr = with_tasks(pending(30, 1, 30), 8);
	const gq_job_t *home;
	int k = -1;

	gq_view_begin(a, 8, 100);
	gq_view_begin(h, 8, 100);
	for (uint32_t id = 1; id <= 8; id++)
		run(a, id, "team-b", 1, id);
	add(a, "team-a", arr);
	gq_pools_shadow(&arr);
	add(h, "team-a", arr);
	ck_assert_int_eq(gq_view_compute(a), 0);
	ck_assert_int_eq(gq_view_compute(h), 0);
	home = gq_pools_job(p, 30, &k);
	ck_assert_int_eq(k, 0);
	ck_assert_int_eq(home->band, GQ_BAND_IN_QUOTA);
	ck_assert_uint_eq(home->tasks_now, 8);
	ck_assert_uint_eq(gq_view_job(h, 30)->tasks_now, 2);
	ck_assert_ptr_null(gq_pools_held_elsewhere(p, 30, NULL));
	ck_assert_uint_eq(gq_pools_tasks_now(p, 30), 2);
	ck_assert_uint_eq(gq_pools_tasks_now(p, 99), 0);	/* none */

	/* team-a runs 2 in h100: the shadow is held there: none start */
	gq_view_begin(a, 8, 100);
	gq_view_begin(h, 8, 100);
	for (uint32_t id = 1; id <= 8; id++)
		run(a, id, "team-b", 1, id);
	run(h, 9, "team-a", 1, 9);
	run(h, 10, "team-a", 1, 10);
	arr = with_tasks(pending(30, 1, 30), 8);
	add(a, "team-a", arr);
	gq_pools_shadow(&arr);
	add(h, "team-a", arr);
	ck_assert_int_eq(gq_view_compute(a), 0);
	ck_assert_int_eq(gq_view_compute(h), 0);
	ck_assert_int_eq(gq_view_job(h, 30)->hold, GQ_HOLD_LIMIT);
	ck_assert_uint_eq(gq_pools_tasks_now(p, 30), 0);
	gq_pools_free(p);
}
END_TEST

/* a100 has 2 nodes, h100 none, h100-long does not exist */
static int _nodes(const char *partition, void *ctx)
{
	(void)ctx;
	if (!strcmp(partition, "a100"))
		return 2;
	return strcmp(partition, "h100") ? -1 : 0;
}

static void _collect(const char *line, void *ctx)
{
	char *buf = ctx;

	strncat(buf, line, 1023 - strlen(buf));
	strncat(buf, "|", 1023 - strlen(buf));
}

START_TEST(pool_partitions_checked)
{
	char err[GQ_ERR_MAX], lines[1024] = "";
	gq_config_t *cfg = NULL;

	ck_assert(!gq_config_parse(two_pools, "t.json", &cfg, err, sizeof(err)));
	gq_missing_partitions(cfg, _nodes, _collect, lines);
	ck_assert_str_eq(lines,
			 "pools[1].partitions[0]: partition h100 has no nodes: it adds no GPUs|"
			 "pools[1].partitions[1]: no partition named h100-long in Slurm: no job can run there|");
	gq_config_free(cfg);
}
END_TEST

/*
 * slurmctld's "loaded" line lists each project's numbers in each pool
 * (by_pool), not the top-level fields pools leave unused (quota 0,
 * weight 1): two_pools' team-a has 2 GPUs in a100 and 1 in h100,
 * team-b none in a100 (a pool its quota object leaves out: 0) and 2 in
 * h100, weights 1.  Without pools: the project's own numbers.  Measured
 * (n 0) and written, the same length; cut short, never past n.
 */
START_TEST(project_text_per_pool)
{
	char err[GQ_ERR_MAX], buf[128], small[8];
	gq_config_t *cfg = NULL;
	int n;

	ck_assert_int_eq(gq_config_parse(two_pools, "t.json", &cfg, err,
					 sizeof(err)), 0);
	n = gq_config_project_text(cfg, 0, NULL, 0);
	ck_assert_int_eq(gq_config_project_text(cfg, 0, buf, sizeof(buf)), n);
	ck_assert_str_eq(buf, "team-a(a100:quota=2,weight=1;h100:quota=1,weight=1)");
	ck_assert_int_eq(n, (int)strlen(buf));
	gq_config_project_text(cfg, 1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "team-b(a100:quota=0,weight=1;h100:quota=2,weight=1)");
	ck_assert_int_eq(gq_config_project_text(cfg, 1, small, sizeof(small)),
			 (int)strlen(buf));
	ck_assert_str_eq(small, "team-b(");
	gq_config_free(cfg);
	ck_assert_int_eq(gq_config_parse(
		"{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 3, \"over_quota_weight\": 2.5}]}",
		"t.json", &cfg, err, sizeof(err)), 0);
	gq_config_project_text(cfg, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "a(quota=3,weight=2.5)");
	gq_config_free(cfg);
}
END_TEST

Suite *pools_suite(void)
{
	Suite *s = suite_create("pools");
	TCase *tc = tcase_create("pools");

	tcase_add_test(tc, pool_of_job);
	tcase_add_test(tc, project_text_per_pool);
	tcase_add_test(tc, pools_apart);
	tcase_add_test(tc, leaving_gpus_for_their_owner);
	tcase_add_test(tc, array_listing_pools_starts_fewest_tasks);
	tcase_add_test(tc, pool_partitions_checked);
	suite_add_tcase(s, tc);
	return s;
}
