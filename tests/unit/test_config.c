/*
 * test_config.c - gpuquota.json loading and validation (src/config).
 *
 * Rejections are table driven: each row is one rule, run as its own loop
 * iteration, asserting the exact one-line message.
 */
#include <check.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>
#include <limits.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/advice.h"
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

/*
 * Pools (the example of docs/MODEL.md "Pools"): numbers by pool, a plain
 * number the same in every pool, a pool left out of an object at its
 * defaults (quota 0, weight 1, no limit), and each pool as a
 * configuration of its own.
 */
START_TEST(test_pools)
{
	gq_config_t *cfg = parse_ok(
		"{\"pools\": ["
		"  {\"name\": \"a100\", \"partitions\": [\"a100\"]},"
		"  {\"name\": \"h100\", \"partitions\": [\"h100\", \"h100-long\"]}"
		" ],"
		" \"departments\": [{\"name\": \"ml\", \"gpu_quota\": {\"h100\": 3},"
		"   \"gpu_limit\": 6}],"
		" \"projects\": ["
		"  {\"name\": \"team-a\", \"gpu_quota\": {\"a100\": 4, \"h100\": 2},"
		"   \"over_quota_weight\": {\"a100\": 1, \"h100\": 2},"
		"   \"gpu_limit\": {\"h100\": 4}, \"department\": \"ml\"},"
		"  {\"name\": \"team-b\", \"gpu_quota\": 3, \"over_quota_weight\": 0.5}"
		" ],"
		" \"settings\": {\"min_runtime\": 60}}");
	const gq_pool_numbers_t *a, *b, *d;
	gq_config_t *h;

	ck_assert_int_eq(cfg->npools, 2);
	ck_assert_str_eq(cfg->pools[1].name, "h100");
	ck_assert_int_eq(cfg->pools[1].npartitions, 2);
	a = cfg->projects[0].by_pool;
	b = cfg->projects[1].by_pool;
	d = cfg->depts[0].by_pool;
	ck_assert_int_eq(a[0].gpu_quota, 4);
	ck_assert_double_eq(a[0].over_quota_weight, 1);
	ck_assert_int_eq(a[0].gpu_limit, GQ_NO_LIMIT);
	ck_assert_int_eq(a[1].gpu_quota, 2);
	ck_assert_double_eq(a[1].over_quota_weight, 2);
	ck_assert_int_eq(a[1].gpu_limit, 4);
	for (int k = 0; k < 2; k++) {
		ck_assert_int_eq(b[k].gpu_quota, 3);
		ck_assert_double_eq(b[k].over_quota_weight, 0.5);
		ck_assert_int_eq(b[k].gpu_limit, GQ_NO_LIMIT);
		ck_assert_int_eq(d[k].gpu_limit, 6);
	}
	ck_assert_int_eq(d[0].gpu_quota, 0);
	ck_assert_int_eq(d[1].gpu_quota, 3);

	h = gq_config_pool(cfg, 1);
	ck_assert_ptr_nonnull(h);
	ck_assert_int_eq(h->npools, 0);
	ck_assert_int_eq(h->settings.npartitions, 2);
	ck_assert_str_eq(h->settings.partitions[1], "h100-long");
	ck_assert_int_eq(h->settings.min_runtime, 60);
	ck_assert_int_eq(h->nprojects, 2);
	ck_assert_str_eq(h->projects[0].name, "team-a");
	ck_assert_int_eq(h->projects[0].gpu_quota, 2);
	ck_assert_double_eq(h->projects[0].over_quota_weight, 2);
	ck_assert_int_eq(h->projects[0].gpu_limit, 4);
	ck_assert_int_eq(h->projects[0].department, 0);
	ck_assert_str_eq(h->projects[0].accounts[0], "team-a");
	ck_assert_int_eq(h->projects[1].gpu_quota, 3);
	ck_assert_int_eq(h->depts[0].gpu_quota, 3);
	ck_assert_int_eq(h->depts[0].gpu_limit, 6);
	gq_config_free(h);
	ck_assert_ptr_null(gq_config_pool(cfg, 2));
	gq_config_free(cfg);
}
END_TEST

/* examples/gpuquota-pools.json loads, with the numbers MODEL.md gives */
START_TEST(test_pools_example)
{
	char err[GQ_ERR_MAX] = "";
	gq_config_t *cfg = NULL;

	ck_assert_msg(!gq_config_load("../../examples/gpuquota-pools.json", &cfg,
				      err, sizeof(err)), "%s", err);
	ck_assert_int_eq(cfg->npools, 2);
	ck_assert_int_eq(cfg->projects[0].by_pool[1].gpu_limit, 4);
	ck_assert_int_eq(cfg->projects[1].by_pool[1].gpu_quota, 0);
	gq_config_free(cfg);
}
END_TEST

START_TEST(test_settings)
{
	gq_config_t *cfg = parse_ok(
		"{\"settings\": {\"min_runtime\": 300, \"recompute_interval\": 5,"
		"  \"room_wait\": 120, \"partitions\": [\"gpu\", \"a100\"]},"
		" \"projects\": []}");

	ck_assert_int_eq(cfg->nprojects, 0);
	ck_assert_int_eq(cfg->settings.min_runtime, 300);
	ck_assert_int_eq(cfg->settings.recompute_interval, 5);
	ck_assert_int_eq(cfg->settings.room_wait, 120);
	ck_assert_int_eq(cfg->settings.npartitions, 2);
	ck_assert_str_eq(cfg->settings.partitions[0], "gpu");
	ck_assert_str_eq(cfg->settings.partitions[1], "a100");
	gq_config_free(cfg);

	cfg = parse_ok("{\"projects\": [], \"departments\": [], \"settings\": {}}");
	ck_assert_int_eq(cfg->nprojects, 0);
	ck_assert_int_eq(cfg->ndepts, 0);
	ck_assert_int_eq(cfg->settings.min_runtime, GQ_DEFAULT_MIN_RUNTIME);
	ck_assert_int_eq(cfg->settings.recompute_interval, GQ_DEFAULT_INTERVAL);
	ck_assert_int_eq(cfg->settings.room_wait, 0);	/* off */
	ck_assert_int_eq(cfg->settings.npartitions, 0);
	ck_assert_int_eq(cfg->settings.grace_time, GQ_DEFAULT_GRACE_TIME);
	ck_assert(cfg->settings.multifactor);	/* delegation on */
	gq_config_free(cfg);

	cfg = parse_ok("{\"settings\": {\"multifactor\": false}, \"projects\": []}");
	ck_assert(!cfg->settings.multifactor);
	gq_config_free(cfg);

	/* grace time: settings', a project's own, none */
	cfg = parse_ok("{\"settings\": {\"grace_time\": 30},"
		       " \"projects\": [{\"name\": \"a\", \"gpu_quota\": 1, \"grace_time\": 0},"
		       "  {\"name\": \"b\", \"gpu_quota\": 1, \"grace_time\": 120},"
		       "  {\"name\": \"c\", \"gpu_quota\": 1}]}");
	ck_assert_int_eq(cfg->settings.grace_time, 30);
	ck_assert_int_eq(cfg->projects[0].grace_time, 0);
	ck_assert_int_eq(cfg->projects[1].grace_time, 120);
	ck_assert_int_eq(cfg->projects[2].grace_time, GQ_UNSET);
	/* which applies to a job: test_grace.c, grace_time_of_a_project */
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

/*
 * The corpus of bad files, tests/config/bad/NN-what.json, each with the
 * message it must get in NN-what.err (after "FILE: "): one line naming
 * the key and the value.  `gpuquota check` and slurmctld read the same
 * files in the integration tests.
 */
#define CORPUS "../config/bad"

static char **corpus;
static int ncorpus;

static int _cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void _load_corpus(void)
{
	DIR *d = opendir(CORPUS);
	struct dirent *e;

	ck_assert_msg(d != NULL, "no %s", CORPUS);
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n < 6 || strcmp(e->d_name + n - 5, ".json"))
			continue;
		corpus = realloc(corpus, sizeof(*corpus) * (ncorpus + 1));
		corpus[ncorpus++] = strndup(e->d_name, n - 5);
	}
	closedir(d);
	qsort(corpus, ncorpus, sizeof(*corpus), _cmp_str);
}

static char *_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, GQ_ERR_MAX + 2);
	size_t n;

	ck_assert_msg(f && buf, "cannot read %s", path);
	n = fread(buf, 1, GQ_ERR_MAX, f);
	fclose(f);
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return buf;
}

START_TEST(corpus_is_large)
{
	_load_corpus();
	/* the issue asks for at least 50 classes of bad files */
	ck_assert_int_ge(ncorpus, 50);
}
END_TEST

START_TEST(corpus_rejected)
{
	char path[256], want[GQ_ERR_MAX + 512], err[GQ_ERR_MAX], *msg;
	gq_config_t *cfg;
	int i;

	if (!corpus)
		_load_corpus();
	for (i = 0; i < ncorpus; i++) {
		snprintf(path, sizeof(path), "%s/%s.err", CORPUS, corpus[i]);
		msg = _slurp(path);
		snprintf(path, sizeof(path), "%s/%s.json", CORPUS, corpus[i]);
		cfg = (gq_config_t *)&cfg;	/* must be reset to NULL */
		memset(err, 'Z', sizeof(err));
		ck_assert_msg(gq_config_load(path, &cfg, err, sizeof(err)) == -1,
			      "%s accepted", path);
		ck_assert_ptr_null(cfg);
		snprintf(want, sizeof(want), "%s: %s", path, msg);
		ck_assert_msg(!strcmp(err, want), "%s\n  got:  %s\n  want: %s",
			      path, err, want);
		ck_assert_ptr_null(strchr(err, '\n'));
		free(msg);
	}
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

/*
 * With an owner required (the plugin: SlurmUser), a file writable by its
 * group or by anyone, or owned by another user, is refused; root's 0644
 * file is read.  The default (no owner required) reads any file.
 */
START_TEST(test_load_trust)
{
	char *path = write_temp("{\"projects\": []}", 16);
	char err[GQ_ERR_MAX], want[GQ_ERR_MAX + 256];
	gq_config_t *cfg = NULL;

	ck_assert_int_eq(chmod(path, 0666), 0);
	ck_assert_int_eq(gq_config_load(path, &cfg, err, sizeof(err)), 0);
	gq_config_free(cfg);
	gq_config_require_owner(64030);
	ck_assert_int_eq(gq_config_load(path, &cfg, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s: cannot trust: writable by anyone (mode 0666); this file decides whose GPUs may be taken", path);
	ck_assert_str_eq(err, want);
	ck_assert_int_eq(chmod(path, 0664), 0);
	ck_assert_int_eq(gq_config_load(path, &cfg, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "writable by its group (mode 0664)"));
	ck_assert_int_eq(chmod(path, 0644), 0);
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(path, 12345, 0), 0);
		ck_assert_int_eq(gq_config_load(path, &cfg, err, sizeof(err)), -1);
		ck_assert_ptr_nonnull(strstr(err, "owned by uid 12345, not root or SlurmUser (uid 64030)"));
		ck_assert_int_eq(chown(path, 64030, 0), 0);
		ck_assert_int_eq(gq_config_load(path, &cfg, err, sizeof(err)), 0);
		gq_config_free(cfg);
		ck_assert_int_eq(chown(path, 0, 0), 0);
	}
	ck_assert_int_eq(gq_config_load(path, &cfg, err, sizeof(err)), 0);
	gq_config_free(cfg);
	gq_config_require_owner(-1);
	unlink(path);
	free(path);
}
END_TEST

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

/* A file with `text` fails to load with "<path>: <what>". */
static void load_fails(const char *text, const char *what)
{
	char *path = write_temp(text, strlen(text));
	gq_config_t *cfg = NULL;
	char err[GQ_ERR_MAX], want[GQ_ERR_MAX];

	ck_assert_int_eq(gq_config_load(path, &cfg, err, sizeof(err)), -1);
	ck_assert_ptr_null(cfg);
	snprintf(want, sizeof(want), "%s: %s", path, what);
	ck_assert_str_eq(err, want);
	unlink(path);
	free(path);
}

START_TEST(test_load_bad_file)
{
	load_fails("{\"projects\": [{\"name\": \"a\", \"gpu_quota\": -3}]}",
		   "projects[0].gpu_quota: must be an integer >= 0, got -3");
}
END_TEST

/* settings.multifactor takes true or false, nothing else */
START_TEST(test_multifactor_not_bool)
{
	load_fails("{\"settings\": {\"multifactor\": \"yes\"}, \"projects\": []}",
		   "settings.multifactor: must be true or false, got \"yes\"");
}
END_TEST

/*
 * settings.mode: "enforce" by default, "enforce" or "observe" when given;
 * any other string, a number or a wrong case is an error naming the key
 * and the value.
 */
START_TEST(test_mode)
{
	gq_config_t *cfg = parse_ok("{\"projects\": []}");

	ck_assert_int_eq(cfg->settings.mode, GQ_MODE_ENFORCE);
	gq_config_free(cfg);
	cfg = parse_ok("{\"settings\": {\"mode\": \"observe\"}, \"projects\": []}");
	ck_assert_int_eq(cfg->settings.mode, GQ_MODE_OBSERVE);
	gq_config_free(cfg);
	cfg = parse_ok("{\"settings\": {\"mode\": \"enforce\"}, \"projects\": []}");
	ck_assert_int_eq(cfg->settings.mode, GQ_MODE_ENFORCE);
	gq_config_free(cfg);
	load_fails("{\"settings\": {\"mode\": \"dry-run\"}, \"projects\": []}",
		   "settings.mode: must be \"enforce\" or \"observe\", got \"dry-run\"");
	load_fails("{\"settings\": {\"mode\": \"Observe\"}, \"projects\": []}",
		   "settings.mode: must be \"enforce\" or \"observe\", got \"Observe\"");
	load_fails("{\"settings\": {\"mode\": 1}, \"projects\": []}",
		   "settings.mode: must be \"enforce\" or \"observe\", got 1");
}
END_TEST

/*
 * The requeue budget: settings' (GPU-hours) and its window (seconds, a day
 * by default), a project's own (0: none), an unlisted account's the
 * settings'; a window under an hour or over 30 days, a negative budget:
 * errors naming the key and the value.
 */
START_TEST(test_requeue_budget)
{
	gq_config_t *cfg = parse_ok("{\"projects\": []}");

	ck_assert_double_eq(cfg->settings.requeue_budget, 0);
	ck_assert_int_eq(cfg->settings.requeue_budget_window,
			 GQ_DEFAULT_BUDGET_WINDOW);
	gq_config_free(cfg);
	cfg = parse_ok("{\"settings\": {\"requeue_budget\": 20,"
		       "  \"requeue_budget_window\": 7200},"
		       " \"projects\": [{\"name\": \"a\", \"gpu_quota\": 1,"
		       "   \"requeue_budget\": 2.5},"
		       "  {\"name\": \"b\", \"gpu_quota\": 1, \"requeue_budget\": 0},"
		       "  {\"name\": \"c\", \"gpu_quota\": 1}]}");
	ck_assert_int_eq(cfg->settings.requeue_budget_window, 7200);
	ck_assert_double_eq(gq_config_requeue_budget(cfg, "a"), 2.5);
	ck_assert_double_eq(gq_config_requeue_budget(cfg, "b"), 0);
	ck_assert_double_eq(gq_config_requeue_budget(cfg, "c"), 20);
	ck_assert_double_eq(gq_config_requeue_budget(cfg, "nobody"), 20);
	gq_config_free(cfg);
	load_fails("{\"settings\": {\"requeue_budget_window\": 60}, \"projects\": []}",
		   "settings.requeue_budget_window: must be an integer >= 3600, got 60");
	load_fails("{\"settings\": {\"requeue_budget_window\": 2592001}, \"projects\": []}",
		   "settings.requeue_budget_window: must be an integer <= 2592000 (seconds, 30 days), got 2592001");
	load_fails("{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 1, \"requeue_budget\": -1}]}",
		   "projects[0].requeue_budget: must be a number >= 0, got -1");
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

static void collect(const char *line, void *ctx)
{
	char *buf = ctx;

	strncat(buf, line, 4095 - strlen(buf));
	strncat(buf, "\n", 4095 - strlen(buf));
}

/*
 * Advice on a valid file: pool h100 gives department ml no quota while
 * its project team-a asks 2 there (team-a's jobs there are never in
 * quota); in a100 ml's 4 covers team-a's 2 and team-b's 2.  Department
 * sim (quota 3) has vision 2 and nlp 2: 4 > 3, no project above 3 alone.
 * A file whose departments cover their projects gets no advice.
 */
START_TEST(config_advice_department_quota)
{
	const char *text =
		"{\"pools\": [{\"name\": \"a100\", \"partitions\": [\"a100\"]},"
		"           {\"name\": \"h100\", \"partitions\": [\"h100\"]}],"
		" \"departments\": [{\"name\": \"ml\", \"gpu_quota\": {\"a100\": 4}},"
		"                   {\"name\": \"sim\", \"gpu_quota\": 3}],"
		" \"projects\": [{\"name\": \"team-a\", \"department\": \"ml\","
		"                 \"gpu_quota\": {\"a100\": 2, \"h100\": 2}},"
		"                {\"name\": \"team-b\", \"department\": \"ml\","
		"                 \"gpu_quota\": {\"a100\": 2}},"
		"                {\"name\": \"vision\", \"department\": \"sim\", \"gpu_quota\": 2},"
		"                {\"name\": \"nlp\", \"department\": \"sim\", \"gpu_quota\": 2}]}";
	char err[GQ_ERR_MAX], out[4096] = "";
	gq_config_t *cfg = NULL;

	ck_assert_msg(!gq_config_parse(text, "t.json", &cfg, err, sizeof(err)),
		      "%s", err);
	/* sim's sum in both pools (a number is the same in every pool) */
	ck_assert_int_eq(gq_config_advice(cfg, collect, out), 3);
	ck_assert_msg(strstr(out, "project team-a: gpu_quota 2 in pool h100 is more than its department ml's 0"),
		      "%s", out);
	ck_assert_msg(strstr(out, "department sim: its projects' gpu_quota add up to 4 in pool a100, more than its own 3"),
		      "%s", out);
	ck_assert_ptr_null(strstr(out, "in pool a100 is more than"));
	ck_assert_ptr_null(strstr(out, "department ml:"));
	gq_config_free(cfg);
	out[0] = '\0';
	ck_assert(!gq_config_parse("{\"departments\": [{\"name\": \"d\", \"gpu_quota\": 4}],"
				   " \"projects\": [{\"name\": \"p\", \"department\": \"d\", \"gpu_quota\": 4}]}",
				   "t.json", &cfg, err, sizeof(err)));
	ck_assert_int_eq(gq_config_advice(cfg, collect, out), 0);
	gq_config_free(cfg);
}
END_TEST
/*
 * A weight (over_quota_weight, usage_weight) is 0 or from 0.001 to 1e6,
 * a requeue budget 0 or from 0.001 to 1e9 GPU-hours: the ends are
 * accepted, just past them refused (the corpus holds the absurd ones:
 * 1e308, 5e-324).  With weights so bounded, 10^5 projects sum to at most
 * 1e11 and the smallest is 1e-9 of the largest: no sum overflows and no
 * ratio is a denormal (fair shares: test_fairshare.c).
 */
START_TEST(weights_and_budgets_bounded)
{
	gq_config_t *cfg = parse_ok(
		"{\"departments\": [{\"name\": \"d\", \"gpu_quota\": 1,"
		"   \"over_quota_weight\": 1000000}],"
		" \"projects\": [{\"name\": \"a\", \"gpu_quota\": 1,"
		"   \"over_quota_weight\": 0.001, \"requeue_budget\": 0.001},"
		"  {\"name\": \"b\", \"gpu_quota\": 1, \"over_quota_weight\": 0,"
		"   \"requeue_budget\": 1e9, \"department\": \"d\"}],"
		" \"settings\": {\"usage_weight\": 1e6}}");

	ck_assert_double_eq(cfg->depts[0].over_quota_weight, 1e6);
	ck_assert_double_eq(cfg->projects[0].over_quota_weight, 0.001);
	ck_assert_double_eq(cfg->projects[1].over_quota_weight, 0);
	ck_assert_double_eq(gq_config_requeue_budget(cfg, "a"), 0.001);
	ck_assert_double_eq(gq_config_requeue_budget(cfg, "b"), 1e9);
	ck_assert_double_eq(cfg->settings.usage_weight, 1e6);
	gq_config_free(cfg);
	load_fails("{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 1,"
		   " \"over_quota_weight\": 0.0009}]}",
		   "projects[0].over_quota_weight: must be 0 or from 0.001 to 1000000, got 0.0009");
	load_fails("{\"departments\": [{\"name\": \"d\", \"gpu_quota\": 1,"
		   " \"over_quota_weight\": 1000001}], \"projects\": []}",
		   "departments[0].over_quota_weight: must be 0 or from 0.001 to 1000000, got 1000001");
	load_fails("{\"projects\": [], \"settings\": {\"usage_weight\": 1e-9}}",
		   "settings.usage_weight: must be 0 or from 0.001 to 1000000, got 1e-9");
	load_fails("{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 1,"
		   " \"requeue_budget\": 1.5e9}]}",
		   "projects[0].requeue_budget: must be 0 or from 0.001 to 1000000000, got 1.5e9");
}
END_TEST

/*
 * A key written twice in one object is refused where the second one
 * stands (json-c alone keeps the last: min_runtime 600 would be lost).
 * The same key in different objects, and braces, commas and an escaped
 * quote inside strings, are not duplicates.
 */
START_TEST(duplicate_key_refused)
{
	gq_config_t *cfg = parse_ok(
		"{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 1},"
		" {\"name\": \"b\", \"gpu_quota\": 2,"
		"  \"over_quota_weight\": {\"p\": 1}}],"
		" \"pools\": [{\"name\": \"p\", \"partitions\": [\"gpu\"]}]}");

	ck_assert_int_eq(cfg->nprojects, 2);
	gq_config_free(cfg);
	load_fails("{\"projects\": [], \"settings\": {\"min_runtime\": 600},"
		   " \"settings\": {}}",
		   "malformed JSON at line 1, column 52: key \"settings\" written twice in one object (the first would be lost)");
	load_fails("{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 1,\n"
		   "  \"gpu_quota\": 5}]}",
		   "malformed JSON at line 2, column 3: key \"gpu_quota\" written twice in one object (the first would be lost)");
	load_fails("{\"projects\": [{\"name\": \"a{,\\\"\", \"name\": \"b\"}]}",
		   "malformed JSON at line 1, column 33: key \"name\" written twice in one object (the first would be lost)");
	/* an object closed before any key was seen: no keys to compare */
	load_fails("{}", "projects: missing required key");
	load_fails("[{}]", "top level: must be an object, got [{}]");
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
	tcase_add_test(tc, test_pools);
	tcase_add_test(tc, test_pools_example);
	tcase_add_test(tc, test_settings);
	tcase_add_test(tc, test_empty_projects_and_bom);
	tcase_add_test(tc, test_account_owns_other_name_when_explicit);
	tcase_add_test(tc, test_empty_and_free);
	suite_add_tcase(s, tc);

	tc = tcase_create("reject");
	tcase_add_test(tc, corpus_is_large);
	tcase_add_test(tc, corpus_rejected);
	tcase_add_test(tc, test_err_truncated);
	suite_add_tcase(s, tc);

	tc = tcase_create("load");
	tcase_add_test(tc, test_load_missing);
	tcase_add_test(tc, test_load_trust);
	tcase_add_test(tc, test_load_directory);
	tcase_add_test(tc, test_load_file);
	tcase_add_test(tc, test_load_bad_file);
	tcase_add_test(tc, test_load_nul_byte);
	tcase_add_test(tc, test_multifactor_not_bool);
	tcase_add_test(tc, test_mode);
	tcase_add_test(tc, test_requeue_budget);
	tcase_add_test(tc, weights_and_budgets_bounded);
	tcase_add_test(tc, duplicate_key_refused);
	tcase_add_test(tc, test_load_large_file);
	tcase_add_test(tc, config_path_rules);
	tcase_add_test(tc, config_advice_department_quota);
	suite_add_tcase(s, tc);
	return s;
}
