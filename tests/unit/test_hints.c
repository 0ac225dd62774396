/*
 * test_hints.c - what `gpuquota check` says about a configuration
 * against its cluster (config/hints.h): quotas beyond a pool's GPUs,
 * accounts no project lists, the nearest account for a missing one (and
 * the edit distance behind it, tools/edit_distance.h).
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/hints.h"
#include "shared/job_facts.h"
#include "tools/edit_distance.h"

static char said[4][2048];
static int nsaid;

static void say(const char *line, void *ctx)
{
	(void)ctx;
	ck_assert_int_lt(nsaid, 4);
	snprintf(said[nsaid++], sizeof(said[0]), "%s", line);
}

/*
 * kitten -> sitting: k->s, e->i, +g: 3.  vison -> vision: +i: 1.  flaw ->
 * lawn: -f, +n: 2.  "" -> abc: 3.  Past max the answer is max + 1.
 */
START_TEST(edit_distance)
{
	char long_name[GQ_EDIT_NAME_MAX + 2];

	ck_assert_int_eq(gq_edit_distance("kitten", "sitting", 5), 3);
	ck_assert_int_eq(gq_edit_distance("vison", "vision", 2), 1);
	ck_assert_int_eq(gq_edit_distance("flaw", "lawn", 2), 2);
	ck_assert_int_eq(gq_edit_distance("", "abc", 3), 3);
	ck_assert_int_eq(gq_edit_distance("same", "same", 0), 0);
	ck_assert_int_eq(gq_edit_distance("kitten", "sitting", 2), 3);
	ck_assert_int_eq(gq_edit_distance("a", "abcdef", 2), 3);
	ck_assert_int_eq(gq_edit_distance("Vision", "vision", 2), 1);
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	ck_assert_int_eq(gq_edit_distance(long_name, long_name, 2), 3);
}
END_TEST

/*
 * Accounts vision, nlp, ops-team.  vison: vision (1).  VISION: vision
 * (same without case, 0).  npl: nlp (2: two substitutions).  opsteam:
 * ops-team (1).  graphics: none within 2.
 */
START_TEST(nearest_account)
{
	const char *names[] = { "vision", "nlp", "ops-team" };

	ck_assert_str_eq(gq_hint_nearest("vison", names, 3), "vision");
	ck_assert_str_eq(gq_hint_nearest("VISION", names, 3), "vision");
	ck_assert_str_eq(gq_hint_nearest("npl", names, 3), "nlp");
	ck_assert_str_eq(gq_hint_nearest("opsteam", names, 3), "ops-team");
	ck_assert_ptr_null(gq_hint_nearest("graphics", names, 3));
	ck_assert_ptr_null(gq_hint_nearest("vison", names, 0));
}
END_TEST

static bool _only_vision(const char *account, void *ctx)
{
	(void)ctx;
	return !strcmp(account, "vision");
}

static const char *_near(const char *account, void *ctx)
{
	static const char *names[] = { "vision" };

	(void)ctx;
	return gq_hint_nearest(account, names, 1);
}

/* The missing-account line names the nearest: project v lists vision
 * (exists) and vison (missing, 1 from vision); ghost has none near. */
START_TEST(missing_account_did_you_mean)
{
	char *acc_v[] = { "vision", "vison" }, *acc_g[] = { "ghost" };
	gq_project_cfg_t p[2] = {
		{ .name = "v", .accounts = acc_v, .naccounts = 2,
		  .department = -1 },
		{ .name = "ghost", .accounts = acc_g, .naccounts = 1,
		  .department = -1 },
	};
	gq_config_t cfg = { .projects = p, .nprojects = 2 };

	nsaid = 0;
	gq_missing_accounts(&cfg, _only_vision, _near, say, NULL);
	ck_assert_int_eq(nsaid, 2);
	ck_assert_ptr_nonnull(strstr(said[0], "project v: account vison does not exist in slurmdbd"));
	ck_assert_ptr_nonnull(strstr(said[0], "; did you mean 'vision'?"));
	ck_assert_ptr_nonnull(strstr(said[1], "project ghost: account ghost does not exist in slurmdbd"));
	ck_assert_ptr_null(strstr(said[1], "did you mean"));
}
END_TEST

/*
 * Pools a100 (8 GPUs) and h100 (16): team-a q {a100 100, h100 4}, team-b
 * q {a100 20, h100 4}: a100 100 + 20 = 120 > 8: said; h100 8 <= 16: not.
 * Without pools: quotas 6 + 3 = 9 on a cluster of 8: said; of 9: not.
 */
START_TEST(quotas_beyond_gpus)
{
	gq_pool_numbers_t na[2] = { { 100, 1, -1 }, { 4, 1, -1 } },
			  nb[2] = { { 20, 1, -1 }, { 4, 1, -1 } };
	gq_pool_cfg_t pools[2] = { { .name = "a100" }, { .name = "h100" } };
	gq_project_cfg_t p[2] = {
		{ .name = "team-a", .gpu_quota = 6, .by_pool = na },
		{ .name = "team-b", .gpu_quota = 3, .by_pool = nb },
	};
	gq_config_t cfg = { .projects = p, .nprojects = 2, .pools = pools,
			    .npools = 2 };
	double caps[2] = { 8, 16 }, eight = 8, nine = 9;

	nsaid = 0;
	ck_assert_int_eq(gq_hint_capacity(&cfg, caps, say, NULL), 1);
	ck_assert_str_eq(said[0], "pool a100: quotas add up to 120 GPUs, the pool has 8");
	cfg.npools = 0;
	nsaid = 0;
	ck_assert_int_eq(gq_hint_capacity(&cfg, &eight, say, NULL), 1);
	ck_assert_str_eq(said[0], "quotas add up to 9 GPUs, the cluster has 8");
	ck_assert_int_eq(gq_hint_capacity(&cfg, &nine, say, NULL), 0);
}
END_TEST

/*
 * Slurm has root, research (a department), team-a (listed by project a),
 * and u0..u24 no project lists: 25 said in one line, the first 20 by
 * name, then "and 5 more".  With only u0 and u1 unlisted: both named.
 */
START_TEST(unlisted_accounts)
{
	char *acc_a[] = { "team-a" }, names_buf[25][16];
	const char *names[28];
	gq_dept_cfg_t d = { .name = "research" };
	gq_project_cfg_t p = { .name = "a", .accounts = acc_a,
			       .naccounts = 1, .department = -1 };
	gq_config_t cfg = { .projects = &p, .nprojects = 1, .depts = &d,
			    .ndepts = 1 };
	int i;

	names[0] = "root";
	names[1] = "research";
	names[2] = "TEAM-A";	/* listed, whatever the case */
	for (i = 0; i < 25; i++) {
		snprintf(names_buf[i], sizeof(names_buf[i]), "u%d", i);
		names[3 + i] = names_buf[i];
	}
	nsaid = 0;
	ck_assert_int_eq(gq_hint_unlisted(&cfg, names, 28, say, NULL), 25);
	ck_assert_int_eq(nsaid, 1);
	ck_assert_ptr_nonnull(strstr(said[0], "25 Slurm accounts no project lists (each a 0-quota project): u0, u1, "));
	ck_assert_ptr_nonnull(strstr(said[0], ", u19 and 5 more"));
	ck_assert_ptr_null(strstr(said[0], "u20"));
	nsaid = 0;
	ck_assert_int_eq(gq_hint_unlisted(&cfg, names, 5, say, NULL), 2);
	ck_assert_str_eq(said[0], "2 Slurm accounts no project lists (each a 0-quota project): u0, u1");
	nsaid = 0;
	ck_assert_int_eq(gq_hint_unlisted(&cfg, names, 3, say, NULL), 0);
	ck_assert_int_eq(nsaid, 0);
}
END_TEST

Suite *hints_suite(void)
{
	Suite *s = suite_create("hints");
	TCase *tc = tcase_create("edit_distance");

	tcase_add_test(tc, edit_distance);
	tcase_add_test(tc, nearest_account);
	suite_add_tcase(s, tc);
	tc = tcase_create("check_hints");
	tcase_add_test(tc, missing_account_did_you_mean);
	tcase_add_test(tc, quotas_beyond_gpus);
	tcase_add_test(tc, unlisted_accounts);
	suite_add_tcase(s, tc);
	return s;
}
