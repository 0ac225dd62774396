/*
 * test_sync.c - the sacctmgr plan of `gpuquota sync`, and reading
 * sacctmgr's output (a fake sacctmgr in PATH).
 */
#define _GNU_SOURCE	/* asprintf */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/sacctmgr.h"
#include "cli/sync.h"

/* cmd, shown as `gpuquota sync --dry-run` shows it, is want. */
#define ck_cmd(cmd, want) do {						\
	const gq_cmd_t *c_ = (cmd);					\
	char *s_ = gq_sync_cmd_str(c_);					\
									\
	ck_assert_ptr_null(c_->argv[c_->argc]);				\
	ck_assert_ptr_nonnull(s_);					\
	ck_assert_str_eq(s_, (want));					\
	free(s_);							\
} while (0)

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

/* The configuration of plan_changes and backstop_missing: department
 * research (limit 10) with vision (no limit) and nlp (limit 6); search
 * (limit 3, accounts search and search-ci) outside. */
static char *acc_v[] = { "vision" }, *acc_n[] = { "nlp" },
	    *acc_s[] = { "search", "search-ci" };

/* Plans that move accounts (`gpuquota sync --reparent`). */
static const gq_sync_opts_t reparent = { .reparent = true };

static gq_config_t research_config(gq_dept_cfg_t *d, gq_project_cfg_t *p)
{
	gq_config_t cfg = { .projects = p, .nprojects = 3, .depts = d,
			    .ndepts = 1 };

	d[0] = (gq_dept_cfg_t){ .name = "research", .gpu_quota = 6,
				.over_quota_weight = 1, .gpu_limit = 10 };
	p[0] = (gq_project_cfg_t){ .name = "vision", .gpu_quota = 4,
				   .over_quota_weight = 1,
				   .gpu_limit = GQ_NO_LIMIT, .department = 0,
				   .accounts = acc_v, .naccounts = 1 };
	p[1] = (gq_project_cfg_t){ .name = "nlp", .gpu_quota = 2,
				   .over_quota_weight = 1, .gpu_limit = 6,
				   .department = 0, .accounts = acc_n,
				   .naccounts = 1 };
	p[2] = (gq_project_cfg_t){ .name = "search", .gpu_quota = 2,
				   .over_quota_weight = 1, .gpu_limit = 3,
				   .department = -1, .accounts = acc_s,
				   .naccounts = 2 };
	return cfg;
}

/* What slurmdbd has in plan_changes and plan_keeps_parents: research
 * (under root, no limit), vision (under root, limit 2), search (under
 * root, limit 3). */
static const gq_acct_t research_have[3] = {
	{ "research", "root", -1, NULL, 0 },
	{ "vision", "root", 2, NULL, 0 },
	{ "search", "root", 3, NULL, 0 },
};

/*
 * Config: department research (limit 10), project vision (research, no
 * limit), nlp (research, limit 6), search (accounts search and search-ci,
 * limit 3).  slurmdbd has: research (under root, no limit), vision (under
 * root, limit 2), search (under root, limit 3).
 * Plan (--reparent): research limit 10; vision moved under research,
 * limit cleared;
 * nlp created under research with limit 6; search unchanged; search-ci
 * created with limit 3 (each account of a project gets the project's
 * limit).
 */
START_TEST(plan_changes)
{
	gq_dept_cfg_t d[1];
	gq_project_cfg_t p[3];
	gq_config_t cfg = research_config(d, p);
	gq_plan_t plan;

	ck_assert_int_eq(gq_sync_plan(&cfg, research_have, 3, "c1", &reparent,
				      &plan), 0);
	ck_assert_int_eq(plan.n, 7);
	ck_cmd(&plan.cmds[0], "modify account where name=research cluster=c1 set GrpTRES=gres/gpu=10");
	ck_cmd(&plan.cmds[1], "modify account where name=vision cluster=c1 set Parent=research");
	ck_cmd(&plan.cmds[2], "modify account where name=vision cluster=c1 set GrpTRES=gres/gpu=-1");
	ck_cmd(&plan.cmds[3], "add account nlp Cluster=c1 Parent=research Description=gpuquota Organization=gpuquota");
	ck_cmd(&plan.cmds[4], "modify account where name=nlp cluster=c1 set GrpTRES=gres/gpu=6");
	ck_cmd(&plan.cmds[5], "add account search-ci Cluster=c1 Parent=root Description=gpuquota Organization=gpuquota");
	ck_cmd(&plan.cmds[6], "modify account where name=search-ci cluster=c1 set GrpTRES=gres/gpu=3");
	ck_assert_int_eq(plan.cmds[6].argc, 7);
	ck_assert_str_eq(plan.cmds[6].argv[3], "name=search-ci");
	ck_assert_str_eq(plan.cmds[6].argv[6], "GrpTRES=gres/gpu=3");
	gq_sync_plan_free(&plan);

	/* in sync: nothing to do */
	{
		gq_acct_t all[5] = { { "research", "root", 10, NULL, 0 },
				     { "vision", "research", -1, NULL, 0 },
				     { "nlp", "research", 6, NULL, 0 },
				     { "search", "root", 3, NULL, 0 },
				     { "search-ci", "root", 3, NULL, 0 } };

		ck_assert_int_eq(gq_sync_plan(&cfg, all, 5, "c1", NULL, &plan),
				 0);
		ck_assert_int_eq(plan.n, 0);
		gq_sync_plan_free(&plan);
	}
}
END_TEST

static void count_warn(const char *line, void *ctx)
{
	(void)line;
	(*(int *)ctx)++;
}

/*
 * Slurm's GrpTRES behind each gpu_limit (gq_sync_backstop): department
 * research (limit 10) has none in slurmdbd: 1; nlp (limit 6) has 8,
 * larger: 1; search (limit 3) has 3: none; vision (no limit): none;
 * search-ci is not in slurmdbd (the missing-account warning says so):
 * none.  Without Enforce=limits one more.  No limit configured: nothing.
 */
START_TEST(backstop_missing)
{
	gq_dept_cfg_t d[1];
	gq_project_cfg_t p[3];
	gq_config_t cfg = research_config(d, p);
	gq_acct_t have[4] = { { "research", "root", -1, NULL, 0 },
			      { "vision", "research", 2, NULL, 0 },
			      { "nlp", "research", 8, NULL, 0 },
			      { "search", "root", 3, NULL, 0 } };
	int n = 0;

	ck_assert_int_eq(gq_sync_backstop(&cfg, have, 4, true, count_warn, &n), 2);
	ck_assert_int_eq(n, 2);
	n = 0;
	ck_assert_int_eq(gq_sync_backstop(&cfg, have, 4, false, count_warn, &n), 3);
	d[0].gpu_limit = GQ_NO_LIMIT;
	p[1].gpu_limit = GQ_NO_LIMIT;
	p[2].gpu_limit = GQ_NO_LIMIT;
	n = 0;
	ck_assert_int_eq(gq_sync_backstop(&cfg, have, 4, false, count_warn, &n), 0);
	ck_assert_int_eq(n, 0);
}
END_TEST

/*
 * The configuration of the plan_pools tests: pools a100 and h100; team-a
 * limited to 4 in a100 and 2 in h100; team-b limited to 3 in a100 and not
 * in h100.  Each project has one account of its name.
 */
static char *acc_a[] = { "team-a" }, *acc_b[] = { "team-b" };
static gq_pool_numbers_t team_a_pools[2] = { { 4, 1, 4 }, { 2, 1, 2 } },
			 team_b_pools[2] = { { 0, 1, 3 },
					     { 0, 1, GQ_NO_LIMIT } };
static gq_pool_cfg_t team_pools[2] = { { .name = "a100" },
				       { .name = "h100" } };
static gq_project_cfg_t teams[2] = {
	{ .name = "team-a", .by_pool = team_a_pools, .department = -1,
	  .accounts = acc_a, .naccounts = 1 },
	{ .name = "team-b", .by_pool = team_b_pools, .department = -1,
	  .accounts = acc_b, .naccounts = 1 },
};

static gq_config_t teams_config(void)
{
	gq_config_t cfg = { .projects = teams, .nprojects = 2,
			    .pools = team_pools, .npools = 2 };

	return cfg;
}

/*
 * With pools, Slurm's GrpTRES counts the GPUs of every partition, so the
 * limit sync sets is the sum of the pools' limits (gpuquota enforces each
 * pool's): team-a L {a100: 4, h100: 2} -> 6; team-b limited in a100 only
 * -> none (it is unlimited in h100).
 */
START_TEST(plan_pools_sum_limits)
{
	gq_config_t cfg = teams_config();
	gq_acct_t have[2] = { { "team-a", "root", -1, NULL, 0 },
			      { "team-b", "root", 3, NULL, 0 } };
	gq_plan_t plan;

	ck_assert_int_eq(gq_sync_plan(&cfg, have, 2, "c1", NULL, &plan), 0);
	ck_assert_int_eq(plan.n, 2);
	ck_cmd(&plan.cmds[0], "modify account where name=team-a cluster=c1 set GrpTRES=gres/gpu=6");
	ck_cmd(&plan.cmds[1], "modify account where name=team-b cluster=c1 set GrpTRES=gres/gpu=-1");
	gq_sync_plan_free(&plan);
}
END_TEST

static void keep_note(const char *line, void *ctx)
{
	char **notes = ctx;

	while (*notes)
		notes++;
	*notes = strdup(line);
}

static void free_notes(char **notes, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(notes[i]);
}

/*
 * plan_changes without --reparent: vision stays under root in slurmdbd
 * (moving it would move its users and what they inherit), one note says
 * so; the other 6 commands are the same: research limit 10, vision's limit
 * cleared, nlp created with 6, search-ci created with 3.
 */
START_TEST(plan_keeps_parents)
{
	gq_dept_cfg_t d[1];
	gq_project_cfg_t p[3];
	gq_config_t cfg = research_config(d, p);
	char *notes[4] = { NULL };
	gq_sync_opts_t opts = { .note = keep_note, .ctx = notes };
	gq_plan_t plan;

	ck_assert_int_eq(gq_sync_plan(&cfg, research_have, 3, "c1", &opts,
				      &plan), 0);
	ck_assert_int_eq(plan.n, 6);
	ck_cmd(&plan.cmds[0], "modify account where name=research cluster=c1 set GrpTRES=gres/gpu=10");
	ck_cmd(&plan.cmds[1], "modify account where name=vision cluster=c1 set GrpTRES=gres/gpu=-1");
	ck_cmd(&plan.cmds[2], "add account nlp Cluster=c1 Parent=research Description=gpuquota Organization=gpuquota");
	ck_cmd(&plan.cmds[5], "modify account where name=search-ci cluster=c1 set GrpTRES=gres/gpu=3");
	ck_assert_ptr_nonnull(notes[0]);
	ck_assert_ptr_nonnull(strstr(notes[0], "account vision: its parent is root in slurmdbd, research in the configuration: not moved"));
	ck_assert_ptr_nonnull(strstr(notes[0], "--reparent"));
	ck_assert_ptr_null(notes[1]);
	free_notes(notes, 1);
	gq_sync_plan_free(&plan);
}
END_TEST

/* A typed GrpTRES entry: only "gres/gpu:TYPE=N" of that exact type. */
START_TEST(grptres_typed_parse)
{
	ck_assert_int_eq(gq_sync_grptres_typed("gres/gpu=6,gres/gpu:a100=4", "a100"), 4);
	ck_assert_int_eq(gq_sync_grptres_typed("gres/gpu:a100=4", "h100"), -1);
	ck_assert_int_eq(gq_sync_grptres_typed("gres/gpu:a1000=2", "a100"), -1);
	ck_assert_int_eq(gq_sync_grptres_typed("xgres/gpu:a100=2", "a100"), -1);
	ck_assert_int_eq(gq_sync_grptres_typed(NULL, "a100"), -1);
	ck_assert_int_eq(gq_sync_grptres_typed("gres/gpu:a100=2", NULL), -1);
}
END_TEST

/*
 * Pools a100 (type a100: Slurm limits it alone) and h100 (no type).
 * team-a L {a100: 4, h100: 2}: gres/gpu = 4 + 2 = 6 and gres/gpu:a100=4 in
 * one command; its h100 limit has no Slurm equivalent: a note.  team-b L
 * {a100: 3, h100: none}: no total (h100 unlimited), so its GrpTRES 3 is
 * cleared (-1), and gres/gpu:a100=3; no note (no h100 limit).  Once
 * slurmdbd has them, nothing to do; the note stays.
 */
START_TEST(plan_pools_typed_limits)
{
	char *types[2] = { "a100", NULL };
	gq_config_t cfg = teams_config();
	gq_acct_t have[2] = { { "team-a", "root", -1, "", 0 },
			      { "team-b", "root", 3, "gres/gpu=3", 0 } };
	gq_acct_t done[2] = { { "team-a", "root", 6,
				"gres/gpu=6,gres/gpu:a100=4", 0 },
			      { "team-b", "root", -1, "gres/gpu:a100=3", 0 } };
	char *notes[4] = { NULL };
	gq_sync_opts_t opts = { .pool_type = types, .note = keep_note,
				.ctx = notes };
	gq_plan_t plan;

	ck_assert_int_eq(gq_sync_plan(&cfg, have, 2, "c1", &opts, &plan), 0);
	ck_assert_int_eq(plan.n, 2);
	ck_cmd(&plan.cmds[0], "modify account where name=team-a cluster=c1 set GrpTRES=gres/gpu=6,gres/gpu:a100=4");
	ck_cmd(&plan.cmds[1], "modify account where name=team-b cluster=c1 set GrpTRES=gres/gpu=-1,gres/gpu:a100=3");
	ck_assert_str_eq(notes[0], "project team-a: limit in pool h100 has no Slurm equivalent; gpuquota enforces it alone");
	ck_assert_ptr_null(notes[1]);
	gq_sync_plan_free(&plan);
	free_notes(notes, 1);
	notes[0] = NULL;
	ck_assert_int_eq(gq_sync_plan(&cfg, done, 2, "c1", &opts, &plan), 0);
	ck_assert_int_eq(plan.n, 0);
	ck_assert_ptr_nonnull(notes[0]);
	ck_assert_ptr_null(notes[1]);
	free_notes(notes, 1);
	gq_sync_plan_free(&plan);
}
END_TEST

/*
 * A pool's GPU type for a typed GrpTRES.  Pools a100 (partitions a100,
 * a100-long), h100 (h100), mix (mix).  n1 8 a100 (a100, a100-long), n2 4
 * a100 (a100-long), n6 no GPU (a100): a100 is a100's alone.  n3 8 h100
 * (h100), but n4 4 h100 in debug, no pool: a gres/gpu:h100 limit would
 * count n4 too: none.  n5 2 l4 + 2 t4 (mix): several types: none.  A
 * project limited in each pool: two notes (h100, mix).  Without
 * gres/gpu:a100 in AccountingStorageTRES, a100 has none either: a third.
 */
START_TEST(pool_types)
{
	char *pa[] = { "a100", "a100-long" }, *ph[] = { "h100" },
	     *pm[] = { "mix" }, *acc[] = { "t" }, *types[3], *notes[8] = { 0 };
	gq_pool_cfg_t pools[3] = { { "a100", pa, 2 }, { "h100", ph, 1 },
				   { "mix", pm, 1 } };
	gq_pool_numbers_t nums[3] = { { 1, 1, 2 }, { 1, 1, 2 }, { 1, 1, 2 } };
	gq_project_cfg_t p = { .name = "t", .by_pool = nums, .department = -1,
			       .accounts = acc, .naccounts = 1 };
	gq_config_t cfg = { .projects = &p, .nprojects = 1, .pools = pools,
			    .npools = 3 };
	gq_sync_node_t nodes[6] = {
		{ "gpu:a100:8", "a100,a100-long" },
		{ "gpu:a100:4(S:0-1)", "a100-long" },
		{ "gpu:h100:8", "h100" },
		{ "gpu:h100:4", "debug" },
		{ "gpu:l4:2,gpu:t4:2", "mix" },
		{ "", "a100" },
	};

	ck_assert_int_eq(gq_sync_pool_types(&cfg, nodes, 6,
					    "cpu,mem,gres/gpu,gres/gpu:a100,gres/gpu:h100",
					    types, keep_note, notes), 0);
	ck_assert_str_eq(types[0], "a100");
	ck_assert_ptr_null(types[1]);
	ck_assert_ptr_null(types[2]);
	ck_assert_str_eq(notes[0], "pool h100: no GrpTRES=gres/gpu:TYPE limit: nodes outside it have GPUs of its type");
	ck_assert_str_eq(notes[1], "pool mix: no GrpTRES=gres/gpu:TYPE limit: its nodes have GPUs without a type or of several types");
	ck_assert_ptr_null(notes[2]);
	free(types[0]);
	free_notes(notes, 2);
	memset(notes, 0, sizeof(notes));
	ck_assert_int_eq(gq_sync_pool_types(&cfg, nodes, 6, "cpu,gres/gpu",
					    types, keep_note, notes), 0);
	ck_assert_ptr_null(types[0]);
	ck_assert_str_eq(notes[0], "pool a100: no GrpTRES=gres/gpu:TYPE limit: AccountingStorageTRES does not list gres/gpu:a100");
	ck_assert_ptr_nonnull(notes[2]);
	free_notes(notes, 3);
}
END_TEST

/* `Apply these N changes? [y/N]`: y or yes in any case, blanks around. */
START_TEST(answer_yes)
{
	ck_assert(gq_sync_answer_yes("y\n"));
	ck_assert(gq_sync_answer_yes("Yes\n"));
	ck_assert(gq_sync_answer_yes(" yes \r\n"));
	ck_assert(!gq_sync_answer_yes("n\n"));
	ck_assert(!gq_sync_answer_yes("\n"));
	ck_assert(!gq_sync_answer_yes("yess\n"));
	ck_assert(!gq_sync_answer_yes("y e s\n"));
	ck_assert(!gq_sync_answer_yes(""));
}
END_TEST

/*
 * Names a shell would split or interpret stay one argument each:
 * department research (no limit), project "team a" (limit 2, no
 * department, not in slurmdbd) and o'brien (research, no limit, in
 * slurmdbd under root).
 */
START_TEST(plan_names_one_argument)
{
	char *acc_t[] = { "team a" }, *acc_o[] = { "o'brien" };
	gq_dept_cfg_t d[1] = { { .name = "research", .gpu_quota = 2,
				 .over_quota_weight = 1,
				 .gpu_limit = GQ_NO_LIMIT } };
	gq_project_cfg_t p[2] = {
		{ .name = "team a", .gpu_quota = 1, .over_quota_weight = 1,
		  .gpu_limit = 2, .department = -1, .accounts = acc_t,
		  .naccounts = 1 },
		{ .name = "o'brien", .gpu_quota = 1, .over_quota_weight = 1,
		  .gpu_limit = GQ_NO_LIMIT, .department = 0,
		  .accounts = acc_o, .naccounts = 1 },
	};
	gq_config_t cfg = { .projects = p, .nprojects = 2, .depts = d,
			    .ndepts = 1 };
	gq_acct_t have[2] = { { "research", "root", -1, NULL, 0 },
			      { "o'brien", "root", -1, NULL, 0 } };
	gq_plan_t plan;

	ck_assert_int_eq(gq_sync_plan(&cfg, have, 2, "c1", &reparent, &plan),
			 0);
	ck_assert_int_eq(plan.n, 3);
	ck_assert_int_eq(plan.cmds[0].argc, 7);
	ck_assert_str_eq(plan.cmds[0].argv[2], "team a");
	ck_cmd(&plan.cmds[0], "add account 'team a' Cluster=c1 Parent=root Description=gpuquota Organization=gpuquota");
	ck_assert_int_eq(plan.cmds[1].argc, 7);
	ck_assert_str_eq(plan.cmds[1].argv[3], "name=team a");
	ck_cmd(&plan.cmds[1], "modify account where 'name=team a' cluster=c1 set GrpTRES=gres/gpu=2");
	ck_assert_int_eq(plan.cmds[2].argc, 7);
	ck_assert_str_eq(plan.cmds[2].argv[3], "name=o'brien");
	ck_cmd(&plan.cmds[2], "modify account where 'name=o'\\''brien' cluster=c1 set Parent=research");
	gq_sync_plan_free(&plan);
}
END_TEST

/* Display: quotes only where a shell would not take the text as it is. */
START_TEST(cmd_str_quoting)
{
	char *argv[] = { "plain-1.0,a/b:c=d+e@f%g", "", "$HOME", "a;b",
			 "*", "~x", "it's", NULL };
	gq_cmd_t cmd = { .argv = argv, .argc = 7 }, none = { .argv = argv };

	ck_cmd(&cmd, "plain-1.0,a/b:c=d+e@f%g '' '$HOME' 'a;b' '*' '~x' 'it'\\''s'");
	none.argv = &argv[7];
	ck_cmd(&none, "");
}
END_TEST

/* ---- sacctmgr.c: a fake sacctmgr (sh) first in PATH --------------------- */

static char *saved_path;	/* PATH before the first fake */

/*
 * It writes its arguments, one a line, into DIR/args, then prints out
 * (printf format) and exits with status.  Returns DIR, now all of PATH.
 */
static char *fake_sacctmgr(const char *out, int status)
{
	char *dir = strdup("/tmp/gq_test_sacctmgr_XXXXXX"), *path;
	FILE *f;

	if (!saved_path)
		saved_path = strdup(getenv("PATH") ? getenv("PATH") : "");
	ck_assert_ptr_nonnull(saved_path);
	ck_assert_ptr_nonnull(dir);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_ge(asprintf(&path, "%s/sacctmgr", dir), 0);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "#!/bin/sh\n"
		"for a; do printf '%%s\\n' \"$a\"; done > '%s/args'\n"
		"printf '%s'\n"
		"exit %d\n", dir, out, status);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(path, 0755), 0);
	free(path);
	ck_assert_int_eq(setenv("PATH", dir, 1), 0);
	return dir;
}

/* The arguments the fake got, one a line. */
static char *fake_args(const char *dir)
{
	char *path, *buf = NULL;
	size_t len = 0;
	FILE *f;

	ck_assert_int_ge(asprintf(&path, "%s/args", dir), 0);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(getdelim(&buf, &len, '\0', f), 0);
	fclose(f);
	unlink(path);
	free(path);
	return buf;
}

static void fake_done(char *dir)
{
	char *path;

	ck_assert_int_ge(asprintf(&path, "%s/sacctmgr", dir), 0);
	unlink(path);
	free(path);
	rmdir(dir);
	free(dir);
	ck_assert_int_eq(setenv("PATH", saved_path, 1), 0);
}

START_TEST(sacctmgr_accounts)
{
	char *dir = fake_sacctmgr("root|||\\n"
				  "research||root|gres/gpu=10\\n"
				  "research|alice|root|\\n"
				  "team a||research|cpu=4,gres/gpu=2\\n", 0);
	char *args;
	gq_accts_t a;

	ck_assert_int_eq(gq_sacctmgr_accounts("my cluster", &a), 0);
	args = fake_args(dir);
	ck_assert_str_eq(args, "-n\n-P\nshow\nassoc\ncluster=my cluster\n"
			 "format=Account,User,ParentName,GrpTRES\n");
	free(args);
	ck_assert_int_eq(a.n, 3);
	ck_assert_str_eq(a.a[0].name, "root");
	ck_assert_str_eq(a.a[0].parent, "root");
	ck_assert_int_eq(a.a[0].gpu_limit, -1);
	ck_assert_str_eq(a.a[1].name, "research");
	ck_assert_int_eq(a.a[1].gpu_limit, 10);
	ck_assert_int_eq(a.a[1].nusers, 1);	/* alice */
	ck_assert_int_eq(a.a[0].nusers, 0);
	ck_assert_str_eq(a.a[2].name, "team a");
	ck_assert_str_eq(a.a[2].grptres, "cpu=4,gres/gpu=2");
	ck_assert_str_eq(a.a[2].parent, "research");
	ck_assert_int_eq(a.a[2].gpu_limit, 2);
	gq_sacctmgr_accounts_free(&a);
	ck_assert_int_eq(a.n, 0);
	fake_done(dir);

	/* sacctmgr fails: nothing, whatever it printed */
	dir = fake_sacctmgr("x|||\\n", 1);
	ck_assert_int_eq(gq_sacctmgr_accounts("c1", &a), -1);
	ck_assert_int_eq(a.n, 0);
	ck_assert_ptr_null(a.a);
	free(fake_args(dir));
	fake_done(dir);
}
END_TEST

START_TEST(sacctmgr_qos)
{
	char *dir = fake_sacctmgr("normal|0\\nHigh|100\\nunset|\\n", 0);
	gq_qos_table_t t;
	char *args;

	ck_assert_int_eq(gq_sacctmgr_qos(&t), 0);
	args = fake_args(dir);
	ck_assert_str_eq(args, "-n\n-P\nshow\nqos\nformat=Name,Priority\n");
	free(args);
	ck_assert_int_eq(t.n, 3);
	ck_assert_int_eq(gq_sacctmgr_qos_find(&t, "normal")->priority, 0);
	ck_assert_int_eq(gq_sacctmgr_qos_find(&t, "high")->priority, 100);
	ck_assert_int_eq(gq_sacctmgr_qos_find(&t, "HIGH")->priority, 100);
	ck_assert_int_eq(gq_sacctmgr_qos_find(&t, "unset")->priority, 0);
	ck_assert_ptr_null(gq_sacctmgr_qos_find(&t, "low"));
	ck_assert_ptr_null(gq_sacctmgr_qos_find(&t, NULL));
	ck_assert_uint_eq(gq_sacctmgr_qos_priority("High", &t), 100);
	ck_assert_uint_eq(gq_sacctmgr_qos_priority("low", &t), 0);
	gq_sacctmgr_qos_free(&t);
	fake_done(dir);

	/* a priority that is not a number: refused */
	dir = fake_sacctmgr("normal|0\\nodd|-5\\n", 0);
	ck_assert_int_eq(gq_sacctmgr_qos(&t), -1);
	ck_assert_int_eq(t.n, 0);
	free(fake_args(dir));
	fake_done(dir);
}
END_TEST

START_TEST(sacctmgr_run)
{
	char *argv[] = { "add", "account", "team a", "Parent=o'brien", NULL };
	gq_cmd_t cmd = { .argv = argv, .argc = 4 };
	char *dir = fake_sacctmgr("", 0), *args;

	ck_assert_int_eq(gq_sacctmgr_run(&cmd), 0);
	args = fake_args(dir);
	ck_assert_str_eq(args, "-i\nadd\naccount\nteam a\nParent=o'brien\n");
	free(args);
	fake_done(dir);

	dir = fake_sacctmgr("", 3);
	ck_assert_int_eq(gq_sacctmgr_run(&cmd), -1);
	free(fake_args(dir));
	fake_done(dir);

	/* no sacctmgr at all */
	ck_assert_int_eq(setenv("PATH", "/nonexistent", 1), 0);
	ck_assert_int_eq(gq_sacctmgr_run(&cmd), -1);
	ck_assert_int_eq(setenv("PATH", saved_path, 1), 0);
}
END_TEST

Suite *sync_suite(void)
{
	Suite *s = suite_create("sync");
	TCase *tc = tcase_create("sync");

	tcase_add_test(tc, grptres_parse);
	tcase_add_test(tc, plan_changes);
	tcase_add_test(tc, backstop_missing);
	tcase_add_test(tc, plan_pools_sum_limits);
	tcase_add_test(tc, plan_keeps_parents);
	tcase_add_test(tc, grptres_typed_parse);
	tcase_add_test(tc, plan_pools_typed_limits);
	tcase_add_test(tc, pool_types);
	tcase_add_test(tc, answer_yes);
	tcase_add_test(tc, plan_names_one_argument);
	tcase_add_test(tc, cmd_str_quoting);
	tcase_add_test(tc, sacctmgr_accounts);
	tcase_add_test(tc, sacctmgr_qos);
	tcase_add_test(tc, sacctmgr_run);
	suite_add_tcase(s, tc);
	return s;
}
