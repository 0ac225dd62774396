/*
 * test_registry.c - Accounts and projects: an account is one project
 * however it is spelled, an account no project lists is a zero-quota
 * project of its own and is shown safely, and Slurm's account tree places
 * projects in departments.  docs/MODEL.md "Terms".
 */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/view.h"
#include "helpers.h"

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

Suite *registry_suite(void)
{
	Suite *s = suite_create("registry");
	TCase *tc;

	tc = tcase_create("an account is one project, however spelled");
	tcase_add_test(tc, unknown_account_is_zero_quota_project);
	tcase_add_test(tc, account_spellings_one_project);
	tcase_add_test(tc, account_spellings_random);
	tcase_add_test(tc, unlisted_account_name_is_shown_safely);
	suite_add_tcase(s, tc);
	tc = tcase_create("Slurm's account tree gives departments");
	tcase_add_test(tc, account_tree_gives_departments);
	suite_add_tcase(s, tc);
	return s;
}
