/*
 * test_config.c - gpuquota.json loading and validation (src/config).
 *
 * Rejections are table driven: each row is one rule, run as its own loop
 * iteration, asserting the exact one-line message.
 */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"

#define PATH "/x/gpuquota.json"

/* examples/gpuquota.json (also in README.md) without its settings. */
static const char example_json[] =
	"{\n"
	"  \"projects\": [\n"
	"    {\"name\": \"team-a\", \"gpu_quota\": 2},\n"
	"    {\"name\": \"team-b\", \"gpu_quota\": 2, \"over_quota_weight\": 1,\n"
	"     \"gpu_limit\": 4, \"accounts\": [\"team-b\", \"team-b-ci\"]}\n"
	"  ]\n"
	"}\n";

static gq_config_t *parse_ok(const char *json)
{
	gq_config_t *cfg = NULL;
	char err[GQ_ERR_MAX] = "";
	int rc = gq_config_parse(json, PATH, &cfg, err, sizeof(err));

	ck_assert_msg(rc == 0, "parse failed: %s", err);
	ck_assert_ptr_nonnull(cfg);
	return cfg;
}

/* Write text (len bytes) to a new temporary file; returns its path. */
static char *write_temp(const char *text, size_t len)
{
	char *path = strdup("/tmp/gq_test_config_XXXXXX");
	int fd;

	ck_assert_ptr_nonnull(path);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

/* ----- accepted files ---------------------------------------------------- */

START_TEST(test_example)
{
	gq_config_t *cfg = parse_ok(example_json);
	gq_project_cfg_t *a, *b;

	ck_assert_int_eq(cfg->nprojects, 2);
	ck_assert_int_eq(cfg->ndepts, 0);
	a = &cfg->projects[0];
	b = &cfg->projects[1];

	ck_assert_str_eq(a->name, "team-a");
	ck_assert_int_eq(a->gpu_quota, 2);
	ck_assert_double_eq(a->over_quota_weight, 1.0);
	ck_assert_int_eq(a->gpu_limit, GQ_NO_LIMIT);
	ck_assert_int_eq(a->department, -1);
	ck_assert_int_eq(a->naccounts, 1);
	ck_assert_str_eq(a->accounts[0], "team-a");
	ck_assert_ptr_ne(a->accounts[0], a->name);	/* own copy */

	ck_assert_str_eq(b->name, "team-b");
	ck_assert_int_eq(b->gpu_quota, 2);
	ck_assert_double_eq(b->over_quota_weight, 1.0);
	ck_assert_int_eq(b->gpu_limit, 4);
	ck_assert_int_eq(b->department, -1);
	ck_assert_int_eq(b->naccounts, 2);
	ck_assert_str_eq(b->accounts[0], "team-b");
	ck_assert_str_eq(b->accounts[1], "team-b-ci");

	ck_assert_int_eq(cfg->settings.min_runtime, GQ_DEFAULT_MIN_RUNTIME);
	ck_assert_int_eq(cfg->settings.recompute_interval, GQ_DEFAULT_INTERVAL);
	ck_assert_ptr_null(cfg->settings.partitions);
	ck_assert_int_eq(cfg->settings.npartitions, 0);
	gq_config_free(cfg);
}
END_TEST

START_TEST(test_values)
{
	gq_config_t *cfg = parse_ok(
		"{\"projects\": ["
		" {\"name\": \"p0\", \"gpu_quota\": 0, \"over_quota_weight\": 0},"
		" {\"name\": \"p1\", \"gpu_quota\": 3, \"gpu_limit\": 3,"
		"  \"over_quota_weight\": 2.5},"
		" {\"name\": \"p2\", \"gpu_quota\": 2147483647,"
		"  \"over_quota_weight\": 3, \"accounts\": [\"x\", \"y\", \"p0x\"]}"
		"]}");

	ck_assert_int_eq(cfg->nprojects, 3);
	ck_assert_int_eq(cfg->projects[0].gpu_quota, 0);
	ck_assert_double_eq(cfg->projects[0].over_quota_weight, 0.0);
	ck_assert_int_eq(cfg->projects[1].gpu_limit, 3);
	ck_assert_double_eq(cfg->projects[1].over_quota_weight, 2.5);
	ck_assert_int_eq(cfg->projects[2].gpu_quota, INT_MAX);
	ck_assert_double_eq(cfg->projects[2].over_quota_weight, 3.0);
	ck_assert_int_eq(cfg->projects[2].naccounts, 3);
	ck_assert_str_eq(cfg->projects[2].accounts[2], "p0x");
	gq_config_free(cfg);
}
END_TEST

START_TEST(test_departments)
{
	gq_config_t *cfg = parse_ok(
		"{\"departments\": ["
		"  {\"name\": \"research\", \"gpu_quota\": 4},"
		"  {\"name\": \"ml\", \"gpu_quota\": 2, \"over_quota_weight\": 0.5,"
		"   \"gpu_limit\": 6}"
		" ],"
		" \"projects\": ["
		"  {\"name\": \"a\", \"gpu_quota\": 2, \"department\": \"ml\"},"
		"  {\"name\": \"b\", \"gpu_quota\": 2, \"department\": \"ml\"},"
		"  {\"name\": \"c\", \"gpu_quota\": 1, \"department\": \"research\"},"
		"  {\"name\": \"d\", \"gpu_quota\": 1}"
		" ]}");

	ck_assert_int_eq(cfg->ndepts, 2);
	ck_assert_str_eq(cfg->depts[0].name, "research");
	ck_assert_int_eq(cfg->depts[0].gpu_quota, 4);
	ck_assert_double_eq(cfg->depts[0].over_quota_weight, 1.0);
	ck_assert_int_eq(cfg->depts[0].gpu_limit, GQ_NO_LIMIT);
	ck_assert_str_eq(cfg->depts[1].name, "ml");
	ck_assert_int_eq(cfg->depts[1].gpu_quota, 2);
	ck_assert_double_eq(cfg->depts[1].over_quota_weight, 0.5);
	ck_assert_int_eq(cfg->depts[1].gpu_limit, 6);
	/* ml's projects ask 4 of its 2: oversubscription is allowed */
	ck_assert_int_eq(cfg->projects[0].department, 1);
	ck_assert_int_eq(cfg->projects[1].department, 1);
	ck_assert_int_eq(cfg->projects[2].department, 0);
	ck_assert_int_eq(cfg->projects[3].department, -1);
	gq_config_free(cfg);
}
END_TEST

START_TEST(test_settings)
{
	gq_config_t *cfg = parse_ok(
		"{\"settings\": {\"min_runtime\": 300, \"recompute_interval\": 5,"
		"  \"partitions\": [\"gpu\", \"a100\"]},"
		" \"projects\": []}");

	ck_assert_int_eq(cfg->nprojects, 0);
	ck_assert_int_eq(cfg->settings.min_runtime, 300);
	ck_assert_int_eq(cfg->settings.recompute_interval, 5);
	ck_assert_int_eq(cfg->settings.npartitions, 2);
	ck_assert_str_eq(cfg->settings.partitions[0], "gpu");
	ck_assert_str_eq(cfg->settings.partitions[1], "a100");
	gq_config_free(cfg);

	cfg = parse_ok("{\"projects\": [], \"departments\": [], \"settings\": {}}");
	ck_assert_int_eq(cfg->nprojects, 0);
	ck_assert_int_eq(cfg->ndepts, 0);
	ck_assert_int_eq(cfg->settings.min_runtime, GQ_DEFAULT_MIN_RUNTIME);
	ck_assert_int_eq(cfg->settings.recompute_interval, GQ_DEFAULT_INTERVAL);
	ck_assert_int_eq(cfg->settings.npartitions, 0);
	gq_config_free(cfg);
}
END_TEST

START_TEST(test_empty_projects_and_bom)
{
	gq_config_t *cfg = parse_ok("\xEF\xBB\xBF {\"projects\": []} \n");

	ck_assert_int_eq(cfg->nprojects, 0);
	ck_assert_ptr_null(cfg->projects);
	gq_config_free(cfg);
}
END_TEST

START_TEST(test_account_owns_other_name_when_explicit)
{
	/* b lists its accounts, so a may use the string "b" */
	gq_config_t *cfg = parse_ok(
		"{\"projects\": ["
		" {\"name\": \"a\", \"gpu_quota\": 1, \"accounts\": [\"a\", \"b\"]},"
		" {\"name\": \"b\", \"gpu_quota\": 1, \"accounts\": [\"b-acct\"]}"
		"]}");

	ck_assert_str_eq(cfg->projects[0].accounts[1], "b");
	ck_assert_str_eq(cfg->projects[1].accounts[0], "b-acct");
	gq_config_free(cfg);
}
END_TEST

START_TEST(test_empty_and_free)
{
	gq_config_t *cfg = gq_config_empty();

	ck_assert_ptr_nonnull(cfg);
	ck_assert_int_eq(cfg->nprojects, 0);
	ck_assert_int_eq(cfg->ndepts, 0);
	ck_assert_int_eq(cfg->settings.min_runtime, GQ_DEFAULT_MIN_RUNTIME);
	ck_assert_int_eq(cfg->settings.recompute_interval, GQ_DEFAULT_INTERVAL);
	ck_assert_ptr_null(cfg->settings.partitions);
	ck_assert_int_eq(cfg->settings.npartitions, 0);
	gq_config_free(cfg);
	gq_config_free(NULL);
}
END_TEST

/* ----- rejected files ---------------------------------------------------- */

static const struct bad {
	const char *json;
	const char *msg;	/* expected error after "PATH: " */
} bad[] = {
	/* malformed JSON */
	{ "{\n  \"projects\": [\n    x\n  ]\n}",
	  "malformed JSON at line 3, column 5: unexpected character" },
	{ "{\"projects\": [", "malformed JSON at line 1, column 15: unexpected end of input" },
	{ "", "malformed JSON at line 1, column 1: unexpected end of input" },
	{ "{\"projects\": []} x", "malformed JSON at line 1, column 18: unexpected character" },
	{ "{\"projects\": [],}", "malformed JSON at line 1, column 17: unexpected character" },
	/* root */
	{ "[]", "top level: must be an object, got []" },
	{ "42", "top level: must be an object, got 42" },
	{ "{\"projects\": [], \"colour\": \"blue\"}", "colour: unknown key" },
	{ "{\"projects\": [], \"bad key\": 1}", "[\"bad key\"]: unknown key" },
	{ "{}", "projects: missing required key" },
	{ "{\"projects\": {}}", "projects: must be an array, got {}" },
	/* project shape */
	{ "{\"projects\": [5]}", "projects[0]: must be an object, got 5" },
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 1, \"colour\": 1}]}",
	  "projects[0].colour: unknown key" },
	{ "{\"projects\": [{\"gpu_quota\": 1}]}",
	  "projects[0].name: missing required key" },
	{ "{\"projects\": [{\"name\": \"\", \"gpu_quota\": 1}]}",
	  "projects[0].name: must be a non-empty string, got \"\"" },
	{ "{\"projects\": [{\"name\": 7, \"gpu_quota\": 1}]}",
	  "projects[0].name: must be a non-empty string, got 7" },
	{ "{\"projects\": [{\"name\": \"a\\u0000b\", \"gpu_quota\": 1}]}",
	  "projects[0].name: must not contain a NUL character, got \"a\\u0000b\"" },
	/* gpu_quota */
	{ "{\"projects\": [{\"name\": \"a\"}]}",
	  "projects[0].gpu_quota: missing required key" },
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 1},"
	  " {\"name\": \"b\", \"gpu_quota\": -2}]}",
	  "projects[1].gpu_quota: must be an integer >= 0, got -2" },
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 1.5}]}",
	  "projects[0].gpu_quota: must be an integer >= 0, got 1.5" },
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 1.0}]}",
	  "projects[0].gpu_quota: must be an integer >= 0, got 1.0" },
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": \"2\"}]}",
	  "projects[0].gpu_quota: must be an integer >= 0, got \"2\"" },
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": true}]}",
	  "projects[0].gpu_quota: must be an integer >= 0, got true" },
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": null}]}",
	  "projects[0].gpu_quota: must be an integer >= 0, got null" },
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 2147483648}]}",
	  "projects[0].gpu_quota: must be an integer <= 2147483647, got 2147483648" },
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 99999999999999999999999}]}",
	  "projects[0].gpu_quota: must be an integer <= 2147483647, got a number beyond 64 bits" },
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": -99999999999999999999999}]}",
	  "projects[0].gpu_quota: must be an integer >= 0, got a number beyond 64 bits" },
	/* over_quota_weight */
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 1,"
	  " \"over_quota_weight\": -0.5}]}",
	  "projects[0].over_quota_weight: must be a number >= 0, got -0.5" },
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 1,"
	  " \"over_quota_weight\": \"1\"}]}",
	  "projects[0].over_quota_weight: must be a number >= 0, got \"1\"" },
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 1,"
	  " \"over_quota_weight\": 1e999}]}",
	  "projects[0].over_quota_weight: must be a finite number >= 0, got 1e999" },
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 1,"
	  " \"over_quota_weight\": NaN}]}",
	  "projects[0].over_quota_weight: must be a finite number >= 0, got NaN" },
	/* gpu_limit */
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 2, \"gpu_limit\": 1}]}",
	  "projects[0].gpu_limit: must be an integer >= gpu_quota (2), got 1" },
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 0, \"gpu_limit\": -1}]}",
	  "projects[0].gpu_limit: must be an integer >= gpu_quota (0), got -1" },
	/* uniqueness */
	{ "{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 1},"
	  " {\"name\": \"team-b\", \"gpu_quota\": 1},"
	  " {\"name\": \"team-a\", \"gpu_quota\": 2}]}",
	  "projects[2].name: duplicate project \"team-a\"" },
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 1, \"accounts\": [\"x\"]},"
	  " {\"name\": \"b\", \"gpu_quota\": 1, \"accounts\": [\"y\", \"x\"]}]}",
	  "projects[1].accounts[1]: account \"x\" already belongs to project \"a\"" },
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 1,"
	  " \"accounts\": [\"x\", \"y\", \"x\"]}]}",
	  "projects[0].accounts[2]: account \"x\" is listed twice" },
	/* a project without "accounts" owns its name, whatever the order */
	{ "{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 1},"
	  " {\"name\": \"team-b\", \"gpu_quota\": 1}, {\"name\": \"c\","
	  " \"gpu_quota\": 1, \"accounts\": [\"team-b\"]}]}",
	  "projects[2].accounts[0]: account \"team-b\" already belongs to project \"team-b\"" },
	{ "{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 1},"
	  " {\"name\": \"c\", \"gpu_quota\": 1, \"accounts\": [\"team-b\"]},"
	  " {\"name\": \"team-b\", \"gpu_quota\": 1}]}",
	  "projects[1].accounts[0]: account \"team-b\" already belongs to project \"team-b\"" },
	/* accounts shape */
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 1, \"accounts\": []}]}",
	  "projects[0].accounts: must be a non-empty array of non-empty strings, got []" },
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 1, \"accounts\": \"a\"}]}",
	  "projects[0].accounts: must be a non-empty array of non-empty strings, got \"a\"" },
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 1,"
	  " \"accounts\": [\"a\", \"\"]}]}",
	  "projects[0].accounts[1]: must be a non-empty string, got \"\"" },
	/* department reference */
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 1, \"department\": \"ml\"}]}",
	  "projects[0].department: no department named \"ml\"" },
	{ "{\"departments\": [{\"name\": \"research\", \"gpu_quota\": 1}],"
	  " \"projects\": [{\"name\": \"a\", \"gpu_quota\": 1, \"department\": \"ml\"}]}",
	  "projects[0].department: no department named \"ml\"" },
	{ "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 1, \"department\": 1}]}",
	  "projects[0].department: must be a non-empty string, got 1" },
	/* departments */
	{ "{\"departments\": {}, \"projects\": []}",
	  "departments: must be an array, got {}" },
	{ "{\"departments\": [{\"name\": \"ml\", \"gpu_quota\": 1},"
	  " {\"name\": \"ml\", \"gpu_quota\": 2}], \"projects\": []}",
	  "departments[1].name: duplicate department \"ml\"" },
	{ "{\"departments\": [{\"name\": \"ml\"}], \"projects\": []}",
	  "departments[0].gpu_quota: missing required key" },
	{ "{\"departments\": [{\"name\": \"ml\", \"gpu_quota\": 1, \"accounts\": [\"x\"]}],"
	  " \"projects\": []}",
	  "departments[0].accounts: unknown key" },
	{ "{\"departments\": [{\"name\": \"ml\", \"gpu_quota\": 4, \"gpu_limit\": 3}],"
	  " \"projects\": []}",
	  "departments[0].gpu_limit: must be an integer >= gpu_quota (4), got 3" },
	{ "{\"departments\": [{\"name\": \"ml\", \"gpu_quota\": 4,"
	  " \"over_quota_weight\": -1}], \"projects\": []}",
	  "departments[0].over_quota_weight: must be a number >= 0, got -1" },
	/* settings */
	{ "{\"projects\": [], \"settings\": []}",
	  "settings: must be an object, got []" },
	{ "{\"projects\": [], \"settings\": {\"preempt\": true}}",
	  "settings.preempt: unknown key" },
	{ "{\"projects\": [], \"settings\": {\"min_runtime\": -1}}",
	  "settings.min_runtime: must be an integer >= 0, got -1" },
	{ "{\"projects\": [], \"settings\": {\"min_runtime\": \"5m\"}}",
	  "settings.min_runtime: must be an integer >= 0, got \"5m\"" },
	{ "{\"projects\": [], \"settings\": {\"recompute_interval\": 0}}",
	  "settings.recompute_interval: must be an integer >= 1, got 0" },
	{ "{\"projects\": [], \"settings\": {\"recompute_interval\": 2.5}}",
	  "settings.recompute_interval: must be an integer >= 1, got 2.5" },
	{ "{\"projects\": [], \"settings\": {\"partitions\": []}}",
	  "settings.partitions: must be a non-empty array of non-empty strings, got []" },
	{ "{\"projects\": [], \"settings\": {\"partitions\": [\"gpu\", 3]}}",
	  "settings.partitions[1]: must be a non-empty string, got 3" },
	{ "{\"projects\": [], \"settings\": {\"partitions\": [\"gpu\", \"gpu\"]}}",
	  "settings.partitions[1]: duplicate partition \"gpu\"" },
	/* messages stay on one line */
	{ "{\"projects\": [{\"name\": \"a\\nb\", \"gpu_quota\": \"x\\ny\"}]}",
	  "projects[0].gpu_quota: must be an integer >= 0, got \"x\\ny\"" },
};

START_TEST(test_reject)
{
	const struct bad *b = &bad[_i];
	gq_config_t *cfg = (gq_config_t *)&cfg;	/* must be reset to NULL */
	char err[GQ_ERR_MAX], want[GQ_ERR_MAX];
	int rc;

	memset(err, 'Z', sizeof(err));
	rc = gq_config_parse(b->json, PATH, &cfg, err, sizeof(err));
	ck_assert_msg(rc == -1, "accepted: %s", b->json);
	ck_assert_ptr_null(cfg);
	snprintf(want, sizeof(want), "%s: %s", PATH, b->msg);
	ck_assert_msg(!strcmp(err, want), "input: %s\n  got:  %s\n  want: %s",
		      b->json, err, want);
	ck_assert_ptr_null(strchr(err, '\n'));
}
END_TEST

START_TEST(test_err_truncated)
{
	gq_config_t *cfg = NULL;
	char err[16];
	const char *json = "{\"projects\": 1}";

	memset(err, 'Z', sizeof(err));
	ck_assert_int_eq(gq_config_parse(json, PATH, &cfg, err, 10), -1);
	ck_assert_str_eq(err, "/x/gpuquo");
	ck_assert_int_eq(err[10], 'Z');	/* nothing written past errlen */
	ck_assert_int_eq(gq_config_parse(json, PATH, &cfg, err, 1), -1);
	ck_assert_str_eq(err, "");
	ck_assert_int_eq(gq_config_parse(json, PATH, &cfg, NULL, 0), -1);
	ck_assert_ptr_null(cfg);
}
END_TEST

/* ----- gq_config_load ---------------------------------------------------- */

START_TEST(test_load_missing)
{
	gq_config_t *cfg = (gq_config_t *)&cfg;
	char err[GQ_ERR_MAX];

	ck_assert_int_eq(gq_config_load("/nonexistent/gpuquota.json", &cfg,
					 err, sizeof(err)), -1);
	ck_assert_ptr_null(cfg);
	ck_assert_str_eq(err, "/nonexistent/gpuquota.json: cannot read: "
			 "No such file or directory");
}
END_TEST

START_TEST(test_load_directory)
{
	gq_config_t *cfg = NULL;
	char err[GQ_ERR_MAX];

	ck_assert_int_eq(gq_config_load("/tmp", &cfg, err, sizeof(err)), -1);
	ck_assert_ptr_null(cfg);
	ck_assert_str_eq(err, "/tmp: cannot read: Is a directory");
}
END_TEST

START_TEST(test_load_file)
{
	char *path = write_temp(example_json, strlen(example_json));
	gq_config_t *cfg = NULL;
	char err[GQ_ERR_MAX] = "";

	ck_assert_msg(gq_config_load(path, &cfg, err, sizeof(err)) == 0,
		      "load failed: %s", err);
	ck_assert_int_eq(cfg->nprojects, 2);
	ck_assert_str_eq(cfg->projects[1].accounts[1], "team-b-ci");
	ck_assert_int_eq(cfg->projects[1].gpu_limit, 4);
	gq_config_free(cfg);
	unlink(path);
	free(path);
}
END_TEST

START_TEST(test_load_bad_file)
{
	static const char text[] = "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": -3}]}";
	char *path = write_temp(text, strlen(text));
	gq_config_t *cfg = NULL;
	char err[GQ_ERR_MAX], want[GQ_ERR_MAX];

	ck_assert_int_eq(gq_config_load(path, &cfg, err, sizeof(err)), -1);
	ck_assert_ptr_null(cfg);
	snprintf(want, sizeof(want),
		 "%s: projects[0].gpu_quota: must be an integer >= 0, got -3",
		 path);
	ck_assert_str_eq(err, want);
	unlink(path);
	free(path);
}
END_TEST

START_TEST(test_load_nul_byte)
{
	static const char text[] = "{\"projects\":\n []}\0";
	char *path = write_temp(text, sizeof(text));	/* with the NUL */
	gq_config_t *cfg = NULL;
	char err[GQ_ERR_MAX], want[GQ_ERR_MAX];

	ck_assert_int_eq(gq_config_load(path, &cfg, err, sizeof(err)), -1);
	snprintf(want, sizeof(want),
		 "%s: malformed JSON at line 2, column 5: NUL byte", path);
	ck_assert_str_eq(err, want);
	unlink(path);
	free(path);
}
END_TEST

START_TEST(test_load_large_file)
{
	/* well past the loader's first read buffer */
	const int n = 3000;
	size_t cap = 64 + (size_t)n * 80, len = 0;
	char *text = malloc(cap), *path;
	gq_config_t *cfg = NULL;
	char err[GQ_ERR_MAX] = "";
	int i;

	ck_assert_ptr_nonnull(text);
	len += (size_t)snprintf(text + len, cap - len, "{\"projects\": [\n");
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len,
				"  {\"name\": \"project-%04d\", \"gpu_quota\": %d}%s\n",
				i, i % 5, i + 1 < n ? "," : "");
	len += (size_t)snprintf(text + len, cap - len, "]}\n");
	ck_assert_uint_lt(len, cap);
	path = write_temp(text, len);

	ck_assert_msg(gq_config_load(path, &cfg, err, sizeof(err)) == 0,
		      "load failed: %s", err);
	ck_assert_int_eq(cfg->nprojects, n);
	ck_assert_str_eq(cfg->projects[n - 1].name, "project-2999");
	ck_assert_str_eq(cfg->projects[n - 1].accounts[0], "project-2999");
	ck_assert_int_eq(cfg->projects[n - 1].gpu_quota, (n - 1) % 5);
	gq_config_free(cfg);
	unlink(path);
	free(path);
	free(text);
}
END_TEST

START_TEST(config_path_rules)
{
	char *p;

	p = gq_config_path("/etc/slurm/slurm.conf", NULL);
	ck_assert_str_eq(p, "/etc/slurm/gpuquota.json");
	free(p);
	p = gq_config_path("/x/slurm.conf", "max_age=1,gpuquota_config=/y/q.json,z=1");
	ck_assert_str_eq(p, "/y/q.json");
	free(p);
	/* not a key of its own: ignored */
	p = gq_config_path("/x/slurm.conf", "nogpuquota_config=/y");
	ck_assert_str_eq(p, "/x/gpuquota.json");
	free(p);
	p = gq_config_path("slurm.conf", "");
	ck_assert_str_eq(p, "gpuquota.json");
	free(p);
}
END_TEST

Suite *config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc;

	tc = tcase_create("accept");
	tcase_add_test(tc, test_example);
	tcase_add_test(tc, test_values);
	tcase_add_test(tc, test_departments);
	tcase_add_test(tc, test_settings);
	tcase_add_test(tc, test_empty_projects_and_bom);
	tcase_add_test(tc, test_account_owns_other_name_when_explicit);
	tcase_add_test(tc, test_empty_and_free);
	suite_add_tcase(s, tc);

	tc = tcase_create("reject");
	tcase_add_loop_test(tc, test_reject, 0,
			    (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, test_err_truncated);
	suite_add_tcase(s, tc);

	tc = tcase_create("load");
	tcase_add_test(tc, test_load_missing);
	tcase_add_test(tc, test_load_directory);
	tcase_add_test(tc, test_load_file);
	tcase_add_test(tc, test_load_bad_file);
	tcase_add_test(tc, test_load_nul_byte);
	tcase_add_test(tc, test_load_large_file);
	tcase_add_test(tc, config_path_rules);
	suite_add_tcase(s, tc);
	return s;
}
