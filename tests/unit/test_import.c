/*
 * test_import.c - the draft of `gpuquota import` (cli/import.h): Slurm's
 * account tree to a gpuquota.json the loader accepts (docs/MODEL.md
 * "Configuration", man gpuquota import).
 */
#define _GNU_SOURCE	/* open_memstream */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/import.h"
#include "config/config.h"

/* Notes kept, at most 8. */
typedef struct {
	char *line[8];
	int n;
} notes_t;

static void keep(const char *line, void *ctx)
{
	notes_t *t = ctx;

	ck_assert_int_lt(t->n, 8);
	t->line[t->n++] = strdup(line);
}

static void notes_free(notes_t *t)
{
	while (t->n)
		free(t->line[--t->n]);
}

/* The draft of rows, parsed as gpuquota check parses a file. */
static gq_config_t *draft(const gq_acct_t *rows, int n, notes_t *notes)
{
	char *text = NULL, err[GQ_ERR_MAX];
	size_t len;
	FILE *f = open_memstream(&text, &len);
	gq_config_t *cfg = NULL;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(gq_import_draft(rows, n, f, keep, notes), 0);
	ck_assert_int_eq(fclose(f), 0);
	if (gq_config_parse(text, "draft.json", &cfg, err, sizeof(err)))
		ck_abort_msg("draft refused: %s\n%s", err, text);
	free(text);
	return cfg;
}

static const gq_project_cfg_t *project(const gq_config_t *cfg,
				       const char *name)
{
	int i;

	for (i = 0; i < cfg->nprojects; i++)
		if (!strcmp(cfg->projects[i].name, name))
			return &cfg->projects[i];
	ck_abort_msg("no project %s", name);
	return NULL;
}

/*
 * Eight accounts (name, parent, GrpTRES gres/gpu, users):
 *   root
 *   research   root      -    0   vision has a sub-account: a department
 *     vision   research  8    3   project, accounts vision + vision-ci
 *       vision-ci vision -    1
 *     nlp      research  2    2   project, quota 2
 *     scratch  research  -    0   no users, no sub-account: left out
 *   ops        root      4    2   project, accounts ops + ops-ci, quota 4
 *     ops-ci   ops       -    1
 * research has no GrpTRES: its quota is its projects' 8 + 2 = 10.  One
 * note (scratch).  With research's GrpTRES 6 its quota is 6.
 */
static gq_acct_t tree[8] = {
	{ "root", "root", -1, "", 0 },
	{ "research", "root", -1, "", 0 },
	{ "vision", "research", 8, "gres/gpu=8", 3 },
	{ "vision-ci", "vision", -1, "", 1 },
	{ "nlp", "research", 2, "gres/gpu=2", 2 },
	{ "scratch", "research", -1, "", 0 },
	{ "ops", "root", 4, "gres/gpu=4", 2 },
	{ "ops-ci", "ops", -1, "", 1 },
};

START_TEST(import_tree)
{
	notes_t notes = { { 0 }, 0 };
	gq_config_t *cfg = draft(tree, 8, &notes);
	const gq_project_cfg_t *p;

	ck_assert_int_eq(cfg->ndepts, 1);
	ck_assert_str_eq(cfg->depts[0].name, "research");
	ck_assert_int_eq(cfg->depts[0].gpu_quota, 10);
	ck_assert_int_eq(cfg->depts[0].gpu_limit, GQ_NO_LIMIT);
	ck_assert_int_eq(cfg->nprojects, 3);
	p = project(cfg, "vision");
	ck_assert_int_eq(p->gpu_quota, 8);
	ck_assert_int_eq(p->department, 0);
	ck_assert_int_eq(p->naccounts, 2);
	ck_assert_str_eq(p->accounts[0], "vision");
	ck_assert_str_eq(p->accounts[1], "vision-ci");
	p = project(cfg, "nlp");
	ck_assert_int_eq(p->gpu_quota, 2);
	ck_assert_int_eq(p->department, 0);
	ck_assert_int_eq(p->naccounts, 1);
	p = project(cfg, "ops");
	ck_assert_int_eq(p->gpu_quota, 4);
	ck_assert_int_eq(p->department, -1);
	ck_assert_int_eq(p->naccounts, 2);
	ck_assert_str_eq(p->accounts[1], "ops-ci");
	ck_assert_int_eq(notes.n, 1);
	ck_assert_str_eq(notes.line[0], "account scratch: no users and no sub-accounts: left out");
	gq_config_free(cfg);
	notes_free(&notes);

	tree[1].gpu_limit = 6;
	cfg = draft(tree, 8, &notes);
	ck_assert_int_eq(cfg->depts[0].gpu_quota, 6);
	gq_config_free(cfg);
	notes_free(&notes);
	tree[1].gpu_limit = -1;
}
END_TEST

/*
 * What the file cannot take is left out, said: "team a" (a space) with
 * users, under root, and "x,y" under ops (its only other account is
 * ops); "empty" under root with no users nor sub-accounts.  Accounts
 * outside root's tree (a and b, each the other's parent) are no one's.
 * A tree without accounts: {"projects": []}.
 */
START_TEST(import_left_out)
{
	gq_acct_t rows[7] = {
		{ "root", "root", -1, "", 0 },
		{ "team a", "root", -1, "", 2 },
		{ "ops", "root", 3, "", 1 },
		{ "x,y", "ops", -1, "", 1 },
		{ "empty", "root", -1, "", 0 },
		{ "a", "b", -1, "", 1 },
		{ "b", "a", -1, "", 1 },
	};
	notes_t notes = { { 0 }, 0 };
	gq_config_t *cfg = draft(rows, 7, &notes);

	ck_assert_int_eq(cfg->ndepts, 0);
	ck_assert_int_eq(cfg->nprojects, 1);
	ck_assert_str_eq(cfg->projects[0].name, "ops");
	ck_assert_int_eq(cfg->projects[0].naccounts, 1);
	ck_assert_int_eq(notes.n, 3);
	ck_assert_ptr_nonnull(strstr(notes.line[0], "account team a: not a name gpuquota.json takes"));
	ck_assert_ptr_nonnull(strstr(notes.line[1], "account x,y: not a name gpuquota.json takes"));
	ck_assert_str_eq(notes.line[2], "account empty: no users and no sub-accounts: left out");
	gq_config_free(cfg);
	notes_free(&notes);

	cfg = draft(rows, 1, &notes);
	ck_assert_int_eq(cfg->nprojects, 0);
	ck_assert_int_eq(notes.n, 0);
	gq_config_free(cfg);
}
END_TEST

Suite *import_suite(void)
{
	Suite *s = suite_create("import");
	TCase *tc = tcase_create("draft_from_tree");

	tcase_add_test(tc, import_tree);
	tcase_add_test(tc, import_left_out);
	suite_add_tcase(s, tc);
	return s;
}
