/*
 * test_sync.c - the sacctmgr plan of `gpuquota sync`.
 */
#include <check.h>
#include <string.h>

#include "cli/sync.h"

START_TEST(grptres_parse)
{
	ck_assert_int_eq(gq_sync_grptres_gpus(""), -1);
	ck_assert_int_eq(gq_sync_grptres_gpus(NULL), -1);
	ck_assert_int_eq(gq_sync_grptres_gpus("gres/gpu=4"), 4);
	ck_assert_int_eq(gq_sync_grptres_gpus("cpu=8,gres/gpu=2,mem=1G"), 2);
	ck_assert_int_eq(gq_sync_grptres_gpus("gres/gpu:a100=2"), -1);
	ck_assert_int_eq(gq_sync_grptres_gpus("xgres/gpu=2"), -1);
}
END_TEST

/*
 * Config: department research (limit 10), project vision (research, no
 * limit), nlp (research, limit 6), search (accounts search and search-ci,
 * limit 3).  slurmdbd has: research (under root, no limit), vision (under
 * root, limit 2), search (under root, limit 3).
 * Plan: research limit 10; vision moved under research, limit cleared;
 * nlp created under research with limit 6; search unchanged; search-ci
 * created with limit 3 (each account of a project gets the project's
 * limit).
 */
START_TEST(plan_changes)
{
	char *acc_v[] = { "vision" }, *acc_n[] = { "nlp" },
	     *acc_s[] = { "search", "search-ci" };
	gq_dept_cfg_t d[1] = { { .name = "research", .gpu_quota = 6,
				 .over_quota_weight = 1, .gpu_limit = 10 } };
	gq_project_cfg_t p[3] = {
		{ .name = "vision", .gpu_quota = 4, .over_quota_weight = 1,
		  .gpu_limit = GQ_NO_LIMIT, .department = 0,
		  .accounts = acc_v, .naccounts = 1 },
		{ .name = "nlp", .gpu_quota = 2, .over_quota_weight = 1,
		  .gpu_limit = 6, .department = 0, .accounts = acc_n,
		  .naccounts = 1 },
		{ .name = "search", .gpu_quota = 2, .over_quota_weight = 1,
		  .gpu_limit = 3, .department = -1, .accounts = acc_s,
		  .naccounts = 2 },
	};
	gq_config_t cfg = { .projects = p, .nprojects = 3, .depts = d,
			    .ndepts = 1 };
	gq_acct_t have[3] = { { "research", "root", -1 },
			      { "vision", "root", 2 },
			      { "search", "root", 3 } };
	gq_plan_t plan;

	ck_assert_int_eq(gq_sync_plan(&cfg, have, 3, "c1", &plan), 0);
	ck_assert_int_eq(plan.n, 7);
	ck_assert_str_eq(plan.cmds[0], "modify account where name=research cluster=c1 set GrpTRES=gres/gpu=10");
	ck_assert_str_eq(plan.cmds[1], "modify account where name=vision cluster=c1 set Parent=research");
	ck_assert_str_eq(plan.cmds[2], "modify account where name=vision cluster=c1 set GrpTRES=gres/gpu=-1");
	ck_assert_str_eq(plan.cmds[3], "add account nlp Cluster=c1 Parent=research Description=gpuquota Organization=gpuquota");
	ck_assert_str_eq(plan.cmds[4], "modify account where name=nlp cluster=c1 set GrpTRES=gres/gpu=6");
	ck_assert_str_eq(plan.cmds[5], "add account search-ci Cluster=c1 Parent=root Description=gpuquota Organization=gpuquota");
	ck_assert_str_eq(plan.cmds[6], "modify account where name=search-ci cluster=c1 set GrpTRES=gres/gpu=3");
	gq_sync_plan_free(&plan);

	/* in sync: nothing to do */
	{
		gq_acct_t all[5] = { { "research", "root", 10 },
				     { "vision", "research", -1 },
				     { "nlp", "research", 6 },
				     { "search", "root", 3 },
				     { "search-ci", "root", 3 } };

		ck_assert_int_eq(gq_sync_plan(&cfg, all, 5, "c1", &plan), 0);
		ck_assert_int_eq(plan.n, 0);
		gq_sync_plan_free(&plan);
	}
}
END_TEST

Suite *sync_suite(void)
{
	Suite *s = suite_create("sync");
	TCase *tc = tcase_create("sync");

	tcase_add_test(tc, grptres_parse);
	tcase_add_test(tc, plan_changes);
	suite_add_tcase(s, tc);
	return s;
}
