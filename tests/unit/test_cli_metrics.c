/*
 * test_cli_metrics.c - `gpuquota metrics`' exposition (src/cli/metrics.c)
 * of a pass and a metrics file, line by line, numbers worked by hand.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/metrics.h"
#include "core/pools.h"
#include "state/metrics_file.h"
#include "helpers.h"

/*
 * C = 8.  Department ml (quota 4, limit 6) holds ml-a (quota 2, limit 3),
 * which runs job 1 (3 GPUs) and has job 2 (1 GPU) pending: A = 4 passes
 * its limit 3, so job 2 is held.  ops (quota 4, no limit, no department)
 * runs job 3 (1 GPU).
 */
static gq_view_t *_pass(void)
{
	static gq_dept_cfg_t d[1];
	static gq_project_cfg_t p[2];
	gq_view_t *v;

	d[0] = dept("ml", 4, 6);
	p[0] = proj("ml-a", 2, 1, 3);
	p[0].department = 0;
	p[1] = proj("ops", 4, 1, GQ_NO_LIMIT);
	v = view_of(p, 2, d, 1);
	gq_view_begin(v, 8, 1000);
	run(v, 1, "ml-a", 3, 10);
	pend(v, 2, "ml-a", 1, 20);
	run(v, 3, "ops", 1, 10);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_view_job(v, 2)->hold, GQ_HOLD_LIMIT);
	return v;
}

static void _has(const char *text, const char *line)
{
	char *want = malloc(strlen(line) + 3);

	sprintf(want, "\n%s\n", line);
	if (!strstr(text, want))
		fprintf(stderr, "%s", text);
	ck_assert_msg(strstr(text, want), "no line \"%s\" (text above)", line);
	free(want);
}

static void _lacks(const char *text, const char *start)
{
	char *want = malloc(strlen(start) + 2);

	sprintf(want, "\n%s", start);
	if (strstr(text, want))
		fprintf(stderr, "%s", text);
	ck_assert_msg(!strstr(text, want), "a line \"%s...\" (text above)", start);
	free(want);
}

/* the capacity of the one pool of these tests */
static const double cap8 = 8;

START_TEST(projects_and_departments)
{
	slurm_job_info_t ji[3] = { { .job_id = 1 }, { .job_id = 2 },
				   { .job_id = 3 } };
	job_info_msg_t jobs = { .record_count = 3, .job_array = ji };
	gq_view_t *v = _pass();
	char err[GQ_ERR_MAX];
	gq_prom_t p;

	gq_prom_init(&p);
	ck_assert_int_eq(gq_metrics_render(&v, NULL, &cap8, 1, &jobs, NULL, &p, err,
					   sizeof(err)), 0);
	_has(p.buf, "gpuquota_capacity_gpus 8");
	_has(p.buf, "gpuquota_project_quota_gpus{project=\"ml-a\",department=\"ml\"} 2");
	_has(p.buf, "gpuquota_project_limit_gpus{project=\"ml-a\",department=\"ml\"} 3");
	_lacks(p.buf, "gpuquota_project_limit_gpus{project=\"ops\"");	/* unlimited */
	_has(p.buf, "gpuquota_project_allocated_gpus{project=\"ml-a\",department=\"ml\"} 3");
	_has(p.buf, "gpuquota_project_allocated_gpus{project=\"ops\"} 1");
	_has(p.buf, "gpuquota_project_held_jobs{project=\"ml-a\",department=\"ml\"} 1");
	_has(p.buf, "gpuquota_project_held_jobs{project=\"ops\"} 0");
	_has(p.buf, "gpuquota_project_state{project=\"ml-a\",department=\"ml\",state=\"over-quota\"} 1");
	_has(p.buf, "gpuquota_project_state{project=\"ml-a\",department=\"ml\",state=\"at-quota\"} 0");
	_has(p.buf, "gpuquota_project_state{project=\"ops\",state=\"under-quota\"} 1");
	_has(p.buf, "gpuquota_department_quota_gpus{department=\"ml\"} 4");
	_has(p.buf, "gpuquota_department_limit_gpus{department=\"ml\"} 6");
	_has(p.buf, "gpuquota_department_allocated_gpus{department=\"ml\"} 3");
	_has(p.buf, "gpuquota_department_held_jobs{department=\"ml\"} 1");
	_has(p.buf, "gpuquota_department_state{department=\"ml\",state=\"under-quota\"} 1");
	/* no state path: the plugin's part is said missing */
	_has(p.buf, "gpuquota_metrics_file_ok 0");
	_lacks(p.buf, "gpuquota_passes_total");
	gq_prom_free(&p);
	gq_view_free(v);
}
END_TEST

/*
 * The plugin's file: 2 passes of 250 us (on a bound: in it), holding the
 * lock 500 us each (x + x is exact in binary: sums 0.0005 and 0.001), one
 * quota reclaim of two victims (1 + 2 GPUs), a limit hold, a release.
 * The ledger: team-b's job 9 took team-a's 5 (1 GPU, requeued at once,
 * 300 GPU-seconds lost) and warned team-a's 6 (2 GPUs: 1000 if requeued
 * then); 6 saved on SIGTERM and lost 4 when its run ended.  Per project:
 * team-a 2 victims, 3 GPUs lent, 304 GPU-seconds lost; team-b 3 GPUs
 * reclaimed.
 */
START_TEST(plugin_file)
{
	static gq_metrics_t m;
	char *path = write_temp(""), err[GQ_ERR_MAX];
	gq_view_t *v = _pass();
	gq_prom_t p;

	gq_metrics_init(&m, 1000);
	gq_metrics_pass(&m, &(gq_pass_rec_t){ .at = 1001, .pass_us = 250,
					       .read_hold_us = 2000,
					       .lock_hold_us = 500, .ok = true });
	gq_metrics_pass(&m, &(gq_pass_rec_t){ .at = 1003, .pass_us = 250,
					       .lock_hold_us = 500, .ok = true });
	gq_metrics_victim(&m, 9, GQ_BAND_IN_QUOTA, 1);
	gq_metrics_victim(&m, 9, GQ_BAND_IN_QUOTA, 2);
	gq_metrics_ledger(&m, &(gq_ledger_rec_t){
				      .victim = 5, .gpus = 1, .lost = 300,
				      .victim_project = "team-a",
				      .preemptor_project = "team-b" },
			  true);
	gq_metrics_ledger(&m, &(gq_ledger_rec_t){
				      .victim = 6, .gpus = 2, .lost = 1000,
				      .stage = GQ_LEDGER_WARNED,
				      .victim_project = "team-a",
				      .preemptor_project = "team-b" },
			  true);
	gq_metrics_ledger(&m, &(gq_ledger_rec_t){
				      .victim = 6, .gpus = 2, .lost = 4,
				      .stage = GQ_LEDGER_AFTER_GRACE,
				      .victim_project = "team-a",
				      .preemptor_project = "team-b" },
			  true);
	gq_metrics_hold(&m, GQ_HOLD_LIMIT);
	gq_metrics_release(&m);
	ck_assert_int_eq(gq_metrics_file_write(&m, path, 1004, err, sizeof(err)), 0);
	gq_prom_init(&p);
	ck_assert_int_eq(gq_metrics_render(&v, NULL, &cap8, 1, NULL, path, &p, err,
					   sizeof(err)), 0);
	_has(p.buf, "gpuquota_metrics_file_ok 1");
	_has(p.buf, "# TYPE gpuquota_passes_total counter");
	_has(p.buf, "gpuquota_passes_total 2");
	_has(p.buf, "gpuquota_pass_failures_total 0");
	_has(p.buf, "gpuquota_plugin_start_time_seconds 1000");
	_has(p.buf, "gpuquota_last_pass_timestamp_seconds 1003");
	_has(p.buf, "# TYPE gpuquota_pass_duration_seconds histogram");
	_has(p.buf, "gpuquota_pass_duration_seconds_bucket{le=\"0.0001\"} 0");
	_has(p.buf, "gpuquota_pass_duration_seconds_bucket{le=\"0.00025\"} 2");
	_has(p.buf, "gpuquota_pass_duration_seconds_bucket{le=\"+Inf\"} 2");
	_has(p.buf, "gpuquota_pass_duration_seconds_sum 0.0005");
	_has(p.buf, "gpuquota_pass_lock_hold_seconds_bucket{le=\"0.00025\"} 0");
	_has(p.buf, "gpuquota_pass_lock_hold_seconds_bucket{le=\"0.0005\"} 2");
	_has(p.buf, "gpuquota_pass_lock_hold_seconds_sum 0.001");
	_has(p.buf, "gpuquota_pass_lock_hold_seconds_count 2");
	/* one pass in two holds, one made whole (no read hold) */
	_has(p.buf, "# TYPE gpuquota_pass_read_lock_seconds histogram");
	_has(p.buf, "gpuquota_pass_read_lock_seconds_bucket{le=\"0.001\"} 0");
	_has(p.buf, "gpuquota_pass_read_lock_seconds_bucket{le=\"+Inf\"} 1");
	_has(p.buf, "gpuquota_pass_read_lock_seconds_sum 0.002");
	_has(p.buf, "gpuquota_reclaims_total{reason=\"quota\"} 1");
	_has(p.buf, "gpuquota_reclaims_total{reason=\"fair_share\"} 0");
	_has(p.buf, "gpuquota_reclaim_victims_total{reason=\"quota\"} 2");
	_has(p.buf, "gpuquota_reclaim_victim_gpus_total{reason=\"quota\"} 3");
	_has(p.buf, "gpuquota_holds_total{reason=\"limit\"} 1");
	_has(p.buf, "gpuquota_holds_total{reason=\"not_requeueable\"} 0");
	_has(p.buf, "gpuquota_releases_total 1");
	_has(p.buf, "gpuquota_reclaim_victim_gpu_seconds_lost_total{reason=\"quota\"} 304");
	_has(p.buf, "# TYPE gpuquota_project_gpu_seconds_lost_total counter");
	_has(p.buf, "gpuquota_project_reclaim_victims_total{project=\"team-a\",reason=\"quota\"} 2");
	_has(p.buf, "gpuquota_project_gpus_lent_total{project=\"team-a\",reason=\"quota\"} 3");
	_has(p.buf, "gpuquota_project_gpu_seconds_lost_total{project=\"team-a\",reason=\"quota\"} 304");
	_has(p.buf, "gpuquota_project_gpu_seconds_lost_total{project=\"team-a\",reason=\"fair_share\"} 0");
	_has(p.buf, "gpuquota_project_gpus_reclaimed_total{project=\"team-b\",reason=\"quota\"} 3");
	_has(p.buf, "gpuquota_project_gpus_lent_total{project=\"team-b\",reason=\"quota\"} 0");
	_has(p.buf, "gpuquota_project_records_uncounted_total 0");
	gq_prom_free(&p);

	/* not the plugin's file: an error naming it, nothing half-printed */
	unlink(path);
	free(path);
	path = write_temp("{\"version\": 1, \"written_at\": 5, \"started_at\": 1, \"passes_total\": 1.5}");
	gq_prom_init(&p);
	ck_assert_int_eq(gq_metrics_render(&v, NULL, &cap8, 1, NULL, path, &p, err,
					   sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, path));
	ck_assert_ptr_nonnull(strstr(err, "\"passes_total\": expected a count (integer >= 0), found 1.5"));
	ck_assert_uint_eq(p.len, 0);
	gq_prom_free(&p);
	unlink(path);
	free(path);
	gq_view_free(v);
}
END_TEST

/*
 * With pools, every per-project sample and the capacity carry their pool:
 * team-a (q {a100: 2}) runs 1 GPU in a100 (4 GPUs); h100 (2 GPUs) is idle.
 */
START_TEST(pools_labelled)
{
	char err[GQ_ERR_MAX];
	gq_config_t *cfg = NULL;
	gq_pools_t *pools;
	double caps[2] = { 4, 2 };
	gq_prom_t p;

	ck_assert(!gq_config_parse(
		"{\"pools\": [{\"name\": \"a100\", \"partitions\": [\"a100\"]},"
		"            {\"name\": \"h100\", \"partitions\": [\"h100\"]}],"
		" \"projects\": [{\"name\": \"team-a\", \"gpu_quota\": {\"a100\": 2}}]}",
		"t.json", &cfg, err, sizeof(err)));
	pools = gq_pools_new(cfg);
	gq_view_begin(pools->view[0], 4, 100);
	run(pools->view[0], 1, "team-a", 1, 1);
	gq_view_begin(pools->view[1], 2, 100);
	ck_assert_int_eq(gq_view_compute(pools->view[0]), 0);
	ck_assert_int_eq(gq_view_compute(pools->view[1]), 0);
	gq_prom_init(&p);
	ck_assert_int_eq(gq_metrics_render(pools->view, pools->name, caps, 2,
					   NULL, NULL, &p, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(p.buf, "gpuquota_capacity_gpus{pool=\"a100\"} 4\n"
					 "gpuquota_capacity_gpus{pool=\"h100\"} 2\n"));
	ck_assert_ptr_nonnull(strstr(p.buf, "gpuquota_project_quota_gpus{pool=\"a100\",project=\"team-a\"} 2\n"
					 "gpuquota_project_quota_gpus{pool=\"h100\",project=\"team-a\"} 0\n"));
	ck_assert_ptr_nonnull(strstr(p.buf, "gpuquota_project_allocated_gpus{pool=\"a100\",project=\"team-a\"} 1\n"));
	gq_prom_free(&p);
	gq_pools_free(pools);
	gq_config_free(cfg);
}
END_TEST

Suite *cli_metrics_suite(void)
{
	Suite *s = suite_create("cli_metrics");
	TCase *tc = tcase_create("cli_metrics");

	tcase_add_test(tc, projects_and_departments);
	tcase_add_test(tc, plugin_file);
	tcase_add_test(tc, pools_labelled);
	suite_add_tcase(s, tc);
	return s;
}
