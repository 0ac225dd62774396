/*
 * test_metrics.c - the plugins' counters, the histogram bucketing and the
 * metrics state file (write, read back, bad files), the log budget of
 * holds and releases, with numbers worked
 * by hand.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "tools/histogram.h"
#include "tools/log_budget.h"
#include "state/metrics.h"
#include "state/metrics_file.h"
#include "helpers.h"

/*
 * Bounds 1 ms, 10 ms, 100 ms; observations 0.5 ms, 1 ms (on a bound: in
 * it), 2 ms, 50 ms, 500 ms (above all: +Inf only).  Cumulative: 2, 3, 4,
 * and 5 in +Inf; sum 0.5535 s.
 */
START_TEST(histogram_buckets)
{
	const double le[] = { 0.001, 0.01, 0.1 };
	gq_hist_t h;

	ck_assert_int_eq(gq_hist_init(&h, le, 3), 0);
	gq_hist_observe(&h, 0.0005);
	gq_hist_observe(&h, 0.001);
	gq_hist_observe(&h, 0.002);
	gq_hist_observe(&h, 0.05);
	gq_hist_observe(&h, 0.5);
	ck_assert_uint_eq(gq_hist_cumulative(&h, 0), 2);
	ck_assert_uint_eq(gq_hist_cumulative(&h, 1), 3);
	ck_assert_uint_eq(gq_hist_cumulative(&h, 2), 4);
	ck_assert_uint_eq(gq_hist_cumulative(&h, 3), 5);
	ck_assert_uint_eq(h.count, 5);
	ck_assert_double_eq_tol(h.sum, 0.5535, 1e-12);
}
END_TEST

START_TEST(histogram_bad_bounds)
{
	const double down[] = { 0.1, 0.01 }, same[] = { 1, 1 },
		     inf[] = { 1, INFINITY };
	gq_hist_t h;

	ck_assert_int_eq(gq_hist_init(&h, down, 2), -1);
	ck_assert_int_eq(gq_hist_init(&h, same, 2), -1);
	ck_assert_int_eq(gq_hist_init(&h, inf, 2), -1);
	ck_assert_int_eq(gq_hist_init(&h, down, GQ_HIST_MAX + 1), -1);
}
END_TEST

/*
 * 1030 passes, at = 0..1029 s, pass i took i us and held the lock 2i us;
 * every 10th failed.  The ring keeps the newest 1024 (at 6..1029), oldest
 * first; counters and histograms count all 1030 (103 failures).  Pass
 * durations 0..1029 us: 101 are <= 100 us, 251 <= 250 us, 501 <= 500 us,
 * 1001 <= 1 ms.
 */
START_TEST(passes_ring_and_counts)
{
	static gq_metrics_t m;
	int i;

	gq_metrics_init(&m, 5);
	ck_assert_double_eq(m.started_at, 5);
	for (i = 0; i < 1030; i++)
		gq_metrics_pass(&m, &(gq_pass_rec_t){ .at = i, .pass_us = i,
						       .lock_hold_us = 2 * i,
						       .ok = i % 10 != 0 });
	ck_assert_uint_eq(m.passes_total, 1030);
	ck_assert_uint_eq(m.pass_failures_total, 103);
	ck_assert_int_eq(m.recent_n, GQ_RECENT_PASSES);
	ck_assert_double_eq(gq_metrics_recent(&m, 0)->at, 6);
	ck_assert_double_eq(gq_metrics_recent(&m, 1023)->at, 1029);
	ck_assert_uint_eq(gq_metrics_recent(&m, 1023)->lock_hold_us, 2058);
	ck_assert(!gq_metrics_recent(&m, 4)->ok);	/* at 10 */
	ck_assert(gq_metrics_recent(&m, 5)->ok);
	ck_assert_uint_eq(gq_hist_cumulative(&m.pass_seconds, 0), 101);
	ck_assert_uint_eq(gq_hist_cumulative(&m.pass_seconds, 1), 251);
	ck_assert_uint_eq(gq_hist_cumulative(&m.pass_seconds, 2), 501);
	ck_assert_uint_eq(gq_hist_cumulative(&m.pass_seconds, 3), 1001);
	/* lock hold 0..2058 us: 501 are <= 1 ms */
	ck_assert_uint_eq(gq_hist_cumulative(&m.lock_hold_seconds, 3), 501);
	/* sum of 0..1029 us = 1029 * 1030 / 2 us */
	ck_assert_double_eq_tol(m.pass_seconds.sum, 0.529935, 1e-9);
}
END_TEST

/*
 * Job 7 (in quota) takes two victims of 1 and 2 GPUs: one quota reclaim,
 * two victims, 3 GPUs.  Job 8 (fair share) takes one of 4 GPUs.  Job 7
 * again (a later scheduling pass): a second quota reclaim.  Job 9 (in
 * quota) moves a job of 2 GPUs: a third quota reclaim, a move's victim.
 */
START_TEST(reclaims_victims_holds)
{
	static gq_metrics_t m;

	gq_metrics_init(&m, 0);
	gq_metrics_victim(&m, 7, GQ_BAND_IN_QUOTA, false, 1);
	gq_metrics_victim(&m, 7, GQ_BAND_IN_QUOTA, false, 2);
	gq_metrics_victim(&m, 8, GQ_BAND_FAIR_SHARE, false, 4);
	gq_metrics_victim(&m, 7, GQ_BAND_IN_QUOTA, false, 1);
	gq_metrics_victim(&m, 9, GQ_BAND_IN_QUOTA, true, 2);	/* a move */
	ck_assert_uint_eq(m.reclaims_total[GQ_RECLAIM_QUOTA], 3);
	ck_assert_uint_eq(m.reclaims_total[GQ_RECLAIM_MOVE], 0);
	ck_assert_uint_eq(m.victims_total[GQ_RECLAIM_MOVE], 1);
	ck_assert_uint_eq(m.victim_gpus_total[GQ_RECLAIM_MOVE], 2);
	ck_assert_uint_eq(m.reclaims_total[GQ_RECLAIM_FAIR_SHARE], 1);
	ck_assert_uint_eq(m.victims_total[GQ_RECLAIM_QUOTA], 3);
	ck_assert_uint_eq(m.victims_total[GQ_RECLAIM_FAIR_SHARE], 1);
	ck_assert_uint_eq(m.victim_gpus_total[GQ_RECLAIM_QUOTA], 4);
	ck_assert_uint_eq(m.victim_gpus_total[GQ_RECLAIM_FAIR_SHARE], 4);

	gq_metrics_hold(&m, GQ_HOLD_LIMIT);
	gq_metrics_hold(&m, GQ_HOLD_LIMIT);
	gq_metrics_hold(&m, GQ_HOLD_NOT_REQUEUEABLE);
	gq_metrics_hold(&m, GQ_HOLD_NONE);	/* not a hold */
	gq_metrics_release(&m);
	ck_assert_uint_eq(m.holds_total[GQ_HOLD_LIMIT], 2);
	ck_assert_uint_eq(m.holds_total[GQ_HOLD_DEPT_LIMIT], 0);
	ck_assert_uint_eq(m.holds_total[GQ_HOLD_NOT_REQUEUEABLE], 1);
	ck_assert_uint_eq(m.holds_total[GQ_HOLD_NONE], 0);
	ck_assert_uint_eq(m.releases_total, 1);
	ck_assert_str_eq(gq_metrics_hold_reason(GQ_HOLD_DEPT_LIMIT),
			 "department_limit");
	ck_assert_ptr_null(gq_metrics_hold_reason(GQ_HOLD_NONE));
	ck_assert_str_eq(gq_ledger_reason(GQ_RECLAIM_FAIR_SHARE),
			 "fair_share");
}
END_TEST

static char *_tmpdir(void)
{
	char *d = strdup("/tmp/gq-metrics-XXXXXX");

	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static json_object *_get(json_object *o, const char *key)
{
	json_object *v = NULL;

	ck_assert_msg(json_object_object_get_ex(o, key, &v), "no key %s", key);
	return v;
}

/* Written atomically (no temporary file left), read back the same. */
START_TEST(file_round_trip)
{
	static gq_metrics_t m, back;
	char *dir = _tmpdir(), *path = gq_metrics_file_path(dir), tmp[300];
	char err[GQ_ERR_MAX];
	json_object *root, *h;
	double written;
	int i;

	gq_metrics_init(&m, 1000.5);
	for (i = 0; i < 3; i++)
		gq_metrics_pass(&m, &(gq_pass_rec_t){
					    .at = 1001 + i,
					    .pass_us = 100 * (i + 1),
					    .lock_hold_us = 300 * (i + 1),
					    .lock_cpu_us = 200 * (i + 1),
					    /* the second made whole: one hold */
					    .read_hold_us = i == 1 ? 0 :
							    1000 * (i + 1),
					    .read_cpu_us = i == 1 ? 0 : 700,
					    .tries = i == 1 ? 4 : 1,
					    .ok = i != 1 });
	/* a re-hold: a lock hold and a recent entry, not a pass */
	gq_metrics_pass(&m, &(gq_pass_rec_t){ .at = 1004, .pass_us = 50,
					      .lock_hold_us = 400,
					      .lock_cpu_us = 100, .ok = true,
					      .rehold = true });
	gq_metrics_victim(&m, 7, GQ_BAND_IN_QUOTA, false, 2);
	gq_metrics_victim(&m, 7, GQ_BAND_IN_QUOTA, false, 1);
	/* the ledger: 1200 + 35 GPU-seconds lost in quota reclaims, one
	 * record dropped (not queued), one lost in a failed write; team-a
	 * lent 2 + 1 GPUs to team-b */
	gq_metrics_ledger(&m, &(gq_ledger_rec_t){
				      .reason = GQ_RECLAIM_QUOTA, .lost = 1200,
				      .gpus = 2, .victim_project = "team-a",
				      .preemptor_project = "team-b" },
			  true);
	gq_metrics_ledger(&m, &(gq_ledger_rec_t){
				      .reason = GQ_RECLAIM_QUOTA, .lost = 35,
				      .gpus = 1, .victim_project = "team-a",
				      .preemptor_project = "team-b" },
			  false);
	gq_metrics_ledger_dropped(&m, 1);
	gq_metrics_hold(&m, GQ_HOLD_DEPT_LIMIT);
	gq_metrics_release(&m);
	ck_assert_int_eq(gq_metrics_file_write(&m, path, 1010.25, err,
					       sizeof(err)), 0);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	ck_assert_int_ne(access(tmp, F_OK), 0);

	/* the fixed keys, as the bench reads them */
	ck_assert_ptr_nonnull(root = json_object_from_file(path));
	ck_assert_int_eq(json_object_get_int(_get(root, "version")), 1);
	ck_assert_double_eq(json_object_get_double(_get(root, "written_at")), 1010.25);
	ck_assert_int_eq(json_object_get_int(_get(root, "passes_total")), 3);
	ck_assert_int_eq(json_object_get_int(_get(root, "pass_failures_total")), 1);
	ck_assert_int_eq(json_object_get_int(_get(root, "reclaims_total")), 1);
	ck_assert_int_eq(json_object_get_int(_get(root, "victims_total")), 2);
	ck_assert_int_eq(json_object_get_int(_get(root, "holds_total")), 1);
	ck_assert_int_eq(json_object_get_int(_get(root, "releases_total")), 1);
	ck_assert_int_eq(json_object_array_length(_get(root, "recent_passes")), 4);
	ck_assert(!json_object_get_boolean(_get(json_object_array_get_idx(
		_get(root, "recent_passes"), 2), "rehold")));
	ck_assert(json_object_get_boolean(_get(json_object_array_get_idx(
		_get(root, "recent_passes"), 3), "rehold")));
	ck_assert_int_eq(json_object_get_int(_get(json_object_array_get_idx(
		_get(root, "recent_passes"), 2), "lock_hold_us")), 900);
	ck_assert_int_eq(json_object_get_int(_get(json_object_array_get_idx(
		_get(root, "recent_passes"), 2), "lock_cpu_us")), 600);
	ck_assert_int_eq(json_object_get_int(_get(json_object_array_get_idx(
		_get(root, "recent_passes"), 2), "read_hold_us")), 3000);
	ck_assert_int_eq(json_object_get_int(_get(json_object_array_get_idx(
		_get(root, "recent_passes"), 1), "tries")), 4);
	/* read holds: 1 and 3 ms; none for the whole pass nor the re-hold */
	h = _get(_get(root, "read_hold_seconds"), "buckets");
	ck_assert_int_eq(json_object_get_int(_get(h, "+Inf")), 2);
	ck_assert_double_eq_tol(json_object_get_double(_get(_get(root, "read_hold_seconds"), "sum")),
				0.004, 1e-12);
	/* 100, 200, 300 us: 1 <= 100 us, 2 <= 250 us, all <= 500 us */
	h = _get(_get(root, "pass_seconds"), "buckets");
	ck_assert_int_eq(json_object_get_int(_get(h, "0.0001")), 1);
	ck_assert_int_eq(json_object_get_int(_get(h, "0.00025")), 2);
	ck_assert_int_eq(json_object_get_int(_get(h, "0.0005")), 3);
	ck_assert_int_eq(json_object_get_int(_get(h, "+Inf")), 3);
	ck_assert_double_eq_tol(json_object_get_double(_get(_get(root, "pass_seconds"), "sum")),
				0.0006, 1e-12);
	json_object_put(root);

	ck_assert_int_eq(gq_metrics_file_read(path, &back, &written, err,
					      sizeof(err)), 0);
	ck_assert_double_eq(written, 1010.25);
	ck_assert_double_eq(back.started_at, 1000.5);
	ck_assert_uint_eq(back.passes_total, 3);
	ck_assert_uint_eq(back.pass_failures_total, 1);
	ck_assert_uint_eq(back.reclaims_total[GQ_RECLAIM_QUOTA], 1);
	ck_assert_uint_eq(back.victims_total[GQ_RECLAIM_QUOTA], 2);
	ck_assert_uint_eq(back.victim_gpus_total[GQ_RECLAIM_QUOTA], 3);
	ck_assert_uint_eq(back.lost_gpu_seconds_total[GQ_RECLAIM_QUOTA], 1235);
	ck_assert_uint_eq(back.lost_gpu_seconds_total[GQ_RECLAIM_FAIR_SHARE], 0);
	ck_assert_uint_eq(back.ledger_records_total, 1);
	ck_assert_uint_eq(back.ledger_dropped_total, 2);
	ck_assert_uint_eq(back.holds_total[GQ_HOLD_DEPT_LIMIT], 1);
	ck_assert_uint_eq(back.releases_total, 1);
	/* per project: team-a lent 3 GPUs in 2 victims, lost 1235
	 * GPU-seconds; team-b took 3 GPUs back */
	ck_assert_int_eq(back.nprojects, 2);
	ck_assert_str_eq(back.project[0].name, "team-a");
	ck_assert_uint_eq(back.project[0].victims[GQ_RECLAIM_QUOTA], 2);
	ck_assert_uint_eq(back.project[0].gpus_lent[GQ_RECLAIM_QUOTA], 3);
	ck_assert_uint_eq(back.project[0].lost[GQ_RECLAIM_QUOTA], 1235);
	ck_assert_uint_eq(back.project[0].gpus_reclaimed[GQ_RECLAIM_QUOTA], 0);
	ck_assert_str_eq(back.project[1].name, "team-b");
	ck_assert_uint_eq(back.project[1].gpus_reclaimed[GQ_RECLAIM_QUOTA], 3);
	ck_assert_uint_eq(back.project[1].lost[GQ_RECLAIM_QUOTA], 0);
	ck_assert_uint_eq(back.projects_uncounted_total, 0);
	ck_assert_uint_eq(gq_metrics_recent(&back, 2)->lock_cpu_us, 600);
	ck_assert_uint_eq(gq_metrics_recent(&back, 2)->read_hold_us, 3000);
	ck_assert_uint_eq(gq_metrics_recent(&back, 2)->read_cpu_us, 700);
	ck_assert_int_eq(gq_metrics_recent(&back, 1)->tries, 4);
	ck_assert_uint_eq(back.read_hold_seconds.count, 2);
	ck_assert_int_eq(back.recent_n, 4);
	ck_assert(!back.recent[1].ok);
	ck_assert(!back.recent[2].rehold);
	ck_assert(back.recent[3].rehold);
	ck_assert_int_eq(back.pass_seconds.n, gq_hist_pass_nbounds);
	for (i = 0; i <= back.pass_seconds.n; i++) {
		ck_assert_uint_eq(gq_hist_cumulative(&back.pass_seconds, i),
				  gq_hist_cumulative(&m.pass_seconds, i));
		ck_assert_uint_eq(gq_hist_cumulative(&back.lock_hold_seconds, i),
				  gq_hist_cumulative(&m.lock_hold_seconds, i));
	}
	/* 300 + 600 + 900 us of passes and 400 of the re-hold */
	ck_assert_double_eq_tol(back.lock_hold_seconds.sum, 0.0022, 1e-12);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
}
END_TEST

static int _read_text(const char *text, char *err, size_t n)
{
	static gq_metrics_t m;
	char *path = write_temp(text);
	double w;
	int rc = gq_metrics_file_read(path, &m, &w, err, n);

	unlink(path);
	free(path);
	return rc;
}

/* A file that is not the plugin's: the error names the key and value. */
START_TEST(file_bad)
{
	char err[GQ_ERR_MAX];
	static gq_metrics_t m;
	double w;

	ck_assert_int_eq(gq_metrics_file_read("/nonexistent/gpuquota-metrics.json",
					      &m, &w, err, sizeof(err)), -2);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/gpuquota-metrics.json"));
	ck_assert_int_eq(_read_text("{\"version\": 1,", err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "not a JSON file"));
	ck_assert_int_eq(_read_text("{\"version\": 2}", err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "\"version\": 2, this command reads 1"));
	ck_assert_int_eq(_read_text("{\"version\": 1, \"written_at\": 1, \"started_at\": 1, \"passes_total\": -3}",
				    err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "key \"passes_total\": expected a count (integer >= 0), found -3"));
	ck_assert_int_eq(_read_text("{\"version\": 1, \"written_at\": \"now\"}",
				    err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "key \"written_at\": expected a number, found \"now\""));
}
END_TEST

/* The log of holds and releases (plugins/hold.c): a batch writes at
 * most `max` lines and counts the rest by kind. */
/* max 3: holds h1 h2, release r1 get lines; h3 h4 and r2 are counted
 * (2 holds, 1 release); a new batch starts from zero; outside a batch
 * nothing is counted. */
START_TEST(batch_writes_at_most_max_lines)
{
	gq_log_budget_t b = { 0 };
	int i;

	for (i = 0; i < 10; i++)	/* no batch: every line */
		ck_assert(gq_log_budget_line(&b, 0));
	ck_assert_int_eq(gq_log_budget_over(&b, 0), 0);
	gq_log_budget_begin(&b, 3);
	ck_assert(gq_log_budget_line(&b, 0));
	ck_assert(gq_log_budget_line(&b, 0));
	ck_assert(gq_log_budget_line(&b, 1));
	ck_assert(!gq_log_budget_line(&b, 0));
	ck_assert(!gq_log_budget_line(&b, 1));
	ck_assert(!gq_log_budget_line(&b, 0));
	ck_assert_int_eq(gq_log_budget_over(&b, 0), 2);
	ck_assert_int_eq(gq_log_budget_over(&b, 1), 1);
	gq_log_budget_end(&b);
	ck_assert_int_eq(gq_log_budget_over(&b, 0), 0);
	ck_assert(gq_log_budget_line(&b, 0));
	gq_log_budget_begin(&b, 3);
	ck_assert_int_eq(gq_log_budget_over(&b, 0), 0);
	ck_assert(gq_log_budget_line(&b, 1));
}
END_TEST

Suite *metrics_suite(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("metrics");

	tcase_add_test(tc, histogram_buckets);
	tcase_add_test(tc, histogram_bad_bounds);
	tcase_add_test(tc, passes_ring_and_counts);
	tcase_add_test(tc, reclaims_victims_holds);
	tcase_add_test(tc, file_round_trip);
	tcase_add_test(tc, file_bad);
	tcase_add_test(tc, batch_writes_at_most_max_lines);
	suite_add_tcase(s, tc);
	return s;
}
