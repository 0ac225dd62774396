/*
 * test_config_load.c - priority/gpuquota's load of gpuquota.json
 * (src/plugins/config_load.c): the configuration it runs published in
 * StateSaveLocation (its exact text and hash; a failed reload keeps them
 * and adds the failure, counted in config_load_failures_total), and the
 * "loaded" log line with each project's numbers per pool
 * (docs/MODEL.md "The running configuration").
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/slurm_compat.h"

#include "state/running_config.h"
#include "state/state.h"
#include "plugins/config_load.h"
#include "plugins/state_files.h"
#include "glue.h"
#include "helpers.h"

static const char pooled[] =
	"{\"pools\": [{\"name\": \"a100\", \"partitions\": [\"a100\"]},"
	" {\"name\": \"h100\", \"partitions\": [\"h100\"]}],"
	" \"projects\": [{\"name\": \"team-a\","
	" \"gpu_quota\": {\"a100\": 2, \"h100\": 1},"
	" \"over_quota_weight\": {\"h100\": 3}}]}\n";

static void _rewrite(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/*
 * A good load with two pools: the log lists team-a's numbers in each
 * pool (a100: quota 2, weight 1 by default; h100: quota 1, weight 3),
 * not quota 0 weight 1; the running file has the exact text and its
 * hash.  Then a bad file (gpu_quota -1) is reloaded: refused, counted
 * once, and the running file keeps the good text and names the error.
 */
START_TEST(load_publishes_running_config)
{
	char dir[] = "/tmp/gq-load-XXXXXX", params[256], err[GQ_ERR_MAX];
	char *cfg = write_temp(pooled), *log = glue_log_to_file(), *file;
	gq_running_t r;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(params, sizeof(params), "gpuquota_config=%s", cfg);
	xfree(slurm_conf.priority_params);
	slurm_conf.priority_params = xstrdup(params);
	gq_files_init(dir);
	ck_assert_int_eq(gq_load_config(false), 0);
	ck_assert(glue_log_lines(log, "team-a(a100:quota=2,weight=1;h100:quota=1,weight=3)"));
	file = gq_running_file_path(dir);
	ck_assert_msg(!gq_running_file_read(file, &r, err, sizeof(err)), "%s",
		      err);
	ck_assert_str_eq(r.text, pooled);
	ck_assert_uint_eq(r.hash, gq_running_hash(pooled, strlen(pooled)));
	ck_assert_str_eq(r.path, cfg);
	ck_assert_int_eq(r.failed_at, 0);
	gq_running_free(&r);

	_rewrite(cfg, "{\"projects\": [{\"name\": \"b\", \"gpu_quota\": -1}]}");
	ck_assert_int_eq(gq_load_config(false), -1);
	ck_assert_uint_eq(gq_state_metrics()->config_load_failures_total, 1);
	ck_assert_msg(!gq_running_file_read(file, &r, err, sizeof(err)), "%s",
		      err);
	ck_assert_str_eq(r.text, pooled);
	ck_assert_int_gt(r.failed_at, 0);
	ck_assert_ptr_nonnull(strstr(r.failed_err, "projects[0].gpu_quota"));
	gq_running_free(&r);

	gq_files_fini();
	log_fini();
	unlink(file);
	unlink(cfg);
	unlink(log);
	rmdir(dir);
	free(file);
	free(cfg);
	free(log);
	xfree(slurm_conf.priority_params);
}
END_TEST

Suite *glue_config_load_suite(void)
{
	Suite *s = suite_create("glue_config_load");
	TCase *tc = tcase_create("running configuration published");

	tcase_add_test(tc, load_publishes_running_config);
	suite_add_tcase(s, tc);
	return s;
}
