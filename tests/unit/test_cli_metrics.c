/*
 * test_cli_metrics.c - `gpuquota metrics`' exposition (src/cli/metrics.c)
 * of a pass and a metrics file, line by line, numbers worked by hand; the
 * exporter's cache (src/cli/scrape_cache.c) on a counting loader and the
 * test's clock, and through the HTTP server (src/cli/serve.c).
 */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/metrics.h"
#include "cli/scrape_cache.h"
#include "cli/serve.h"
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
	gq_metrics_victim(&m, 9, GQ_BAND_IN_QUOTA, false, 1);
	gq_metrics_victim(&m, 9, GQ_BAND_IN_QUOTA, false, 2);
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

/* ---- the exporter's cache (src/cli/scrape_cache.c) ---- */

/*
 * A loader that counts its loads, takes `cost` seconds of the test's
 * clock, fails while `fail` is set, and, while `block` is set, waits for
 * the test to let it go.
 */
typedef struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int loads, inside;
	bool block, fail;
	double now, cost;	/* the test's clock */
} loader_t;

static loader_t ld;

static double _clock(void *ctx)
{
	double t;

	(void)ctx;
	pthread_mutex_lock(&ld.mu);
	t = ld.now;
	pthread_mutex_unlock(&ld.mu);
	return t;
}

static int _count_load(void *ctx, gq_prom_t *out, char *err, size_t errlen)
{
	int rc = 0;

	(void)ctx;
	pthread_mutex_lock(&ld.mu);
	ld.loads++;
	ld.inside++;
	pthread_cond_broadcast(&ld.cv);
	while (ld.block)
		pthread_cond_wait(&ld.cv, &ld.mu);
	ld.now += ld.cost;
	ld.inside--;
	if (ld.fail) {
		snprintf(err, errlen, "slurmctld down");
		rc = -1;
	}
	pthread_mutex_unlock(&ld.mu);
	if (!rc) {
		gq_prom_family(out, "x", "gauge", "a test metric");
		gq_prom_sample(out, "x", NULL, 1);
	}
	return rc;
}

/* A cache of interval s on the test's clock, at time 0. */
static void _cache(gq_scrape_cache_t *c, double s)
{
	pthread_mutex_init(&ld.mu, NULL);
	pthread_cond_init(&ld.cv, NULL);
	ld.loads = ld.inside = 0;
	ld.block = ld.fail = false;
	ld.now = ld.cost = 0;
	ck_assert_int_eq(gq_scrape_cache_init(c, s, _count_load, NULL), 0);
	c->clock = _clock;
}

static void _at(double t)
{
	pthread_mutex_lock(&ld.mu);
	ld.now = t;
	pthread_mutex_unlock(&ld.mu);
}

/* One request at t: its status, its body kept in body (or checked). */
static unsigned _get_at(gq_scrape_cache_t *c, double t, const char *has)
{
	gq_scrape_answer_t a;
	unsigned status;

	_at(t);
	gq_scrape_get(c, &a);
	ck_assert_ptr_nonnull(a.body);
	ck_assert_uint_eq(strlen(a.body), a.len);
	if (has)
		_has(a.body, has);
	status = a.status;
	gq_scrape_answer_free(&a);
	return status;
}

/*
 * Interval 2 s; 100 requests a second for 10 s (t = 0, 0.01, ...,
 * 9.99).  Loads that take no time: at t = 0, 2, 4, 6, 8, so 5 =
 * ceil(10 / 2); every request 200.  Loads of 0.5 s: a load starts an
 * interval after the last ended, at 0 (ends 0.5), 2.5, 5, 7.5: 4.
 * A request at 1.5 after the load at 0 sees age 1.5.
 */
START_TEST(cache_loads_once_an_interval)
{
	gq_scrape_cache_t c;
	int i;

	_cache(&c, 2);
	for (i = 0; i < 1000; i++)
		ck_assert_uint_eq(_get_at(&c, i / 100.0, NULL), 200);
	ck_assert_int_eq(ld.loads, 5);
	gq_scrape_cache_free(&c);

	_cache(&c, 2);
	ld.cost = 0.5;
	for (i = 0; i < 1000; i++) {
		/* a request never sees time go back (a load moved it) */
		double t = i / 100.0 > ld.now ? i / 100.0 : ld.now;

		ck_assert_uint_eq(_get_at(&c, t, NULL), 200);
	}
	ck_assert_int_eq(ld.loads, 4);
	gq_scrape_cache_free(&c);

	_cache(&c, 2);
	_get_at(&c, 0, "gpuquota_scrape_age_seconds 0");
	_get_at(&c, 1.5, "gpuquota_scrape_age_seconds 1.5");
	_get_at(&c, 1.5, "x 1");
	_get_at(&c, 1.5, "gpuquota_scrape_loads_total 1");
	_get_at(&c, 1.5, "gpuquota_scrape_cache_seconds 2");
	_get_at(&c, 1.5, "gpuquota_scrape_last_load_ok 1");
	ck_assert_int_eq(ld.loads, 1);
	gq_scrape_cache_free(&c);
}
END_TEST

/* A request in a thread of its own. */
typedef struct {
	gq_scrape_cache_t *c;
	gq_scrape_answer_t a;
} asker_t;

static void *_getter(void *arg)
{
	asker_t *q = arg;

	gq_scrape_get(q->c, &q->a);
	return NULL;
}

/* Start a thread asking c; its answer lands in q->a. */
static void _ask(pthread_t *t, gq_scrape_cache_t *c, asker_t *q)
{
	q->c = c;
	ck_assert_int_eq(pthread_create(t, NULL, _getter, q), 0);
}

/* Wait until the loader has been entered n times in all. */
static void _loads_reach(int n)
{
	pthread_mutex_lock(&ld.mu);
	while (ld.loads < n)
		pthread_cond_wait(&ld.cv, &ld.mu);
	pthread_mutex_unlock(&ld.mu);
}

static void _unblock(void)
{
	pthread_mutex_lock(&ld.mu);
	ld.block = false;
	pthread_cond_broadcast(&ld.cv);
	pthread_mutex_unlock(&ld.mu);
}

/*
 * Interval 2 s, the clock still at 0.  Eight requests while the first
 * load runs (held inside the loader): one load, the other seven wait for
 * it and all eight get its text.  At t = 3 (stale) a request starts the
 * second load and holds in it; a request meanwhile gets the previous text
 * at once (age 3): still 2 loads.
 */
START_TEST(cache_one_load_at_a_time)
{
	gq_scrape_answer_t now;
	gq_scrape_cache_t c;
	asker_t a[8];
	pthread_t t[8];
	int i;

	_cache(&c, 2);
	ld.block = true;
	for (i = 0; i < 8; i++)
		_ask(&t[i], &c, &a[i]);
	_loads_reach(1);
	usleep(100 * 1000);	/* the others reach the cache meanwhile */
	ck_assert_int_eq(ld.loads, 1);
	_unblock();
	for (i = 0; i < 8; i++) {
		pthread_join(t[i], NULL);
		ck_assert_uint_eq(a[i].a.status, 200);
		_has(a[i].a.body, "x 1");
		gq_scrape_answer_free(&a[i].a);
	}
	ck_assert_int_eq(ld.loads, 1);

	_at(3);
	ld.block = true;
	_ask(&t[0], &c, &a[0]);
	_loads_reach(2);
	gq_scrape_get(&c, &now);
	ck_assert_uint_eq(now.status, 200);
	_has(now.body, "gpuquota_scrape_age_seconds 3");
	gq_scrape_answer_free(&now);
	_unblock();
	pthread_join(t[0], NULL);
	_has(a[0].a.body, "gpuquota_scrape_age_seconds 0");
	gq_scrape_answer_free(&a[0].a);
	ck_assert_int_eq(ld.loads, 2);
	gq_scrape_cache_free(&c);
}
END_TEST

/*
 * Interval 2 s; the last good text is served up to 2 + 300 = 302 s old.
 * Load at 0 succeeds.  At 2 the load fails: the text of 0 is served (age
 * 2, last_load_ok 0).  At 3 no load (1 s after the failed one ended).  At
 * 303 the third load fails and the text is 303 s old: 503 naming the
 * reason.  At 304 no load (still 503); at 305 the fourth load succeeds:
 * 200, age 0.  Loads 4, failures 2.  With no good text yet, a failed
 * load is 503 and is not tried again within the interval.
 */
START_TEST(cache_failed_load)
{
	gq_scrape_cache_t c;
	gq_scrape_answer_t a;

	_cache(&c, 2);
	_get_at(&c, 0, "gpuquota_scrape_last_load_ok 1");
	ld.fail = true;
	_get_at(&c, 2, "gpuquota_scrape_last_load_ok 0");
	_get_at(&c, 2, "gpuquota_scrape_age_seconds 2");
	_get_at(&c, 3, "gpuquota_scrape_load_failures_total 1");
	ck_assert_int_eq(ld.loads, 2);
	_at(303);
	gq_scrape_get(&c, &a);
	ck_assert_uint_eq(a.status, 503);
	ck_assert_str_eq(a.body, "gpuquota: slurmctld down (the last good load is 303 s old)\n");
	gq_scrape_answer_free(&a);
	ck_assert_uint_eq(_get_at(&c, 304, NULL), 503);
	ck_assert_int_eq(ld.loads, 3);
	ld.fail = false;
	_get_at(&c, 305, "gpuquota_scrape_age_seconds 0");
	_get_at(&c, 305, "gpuquota_scrape_last_load_ok 1");
	_get_at(&c, 305, "gpuquota_scrape_load_failures_total 2");
	ck_assert_int_eq(ld.loads, 4);
	gq_scrape_cache_free(&c);

	_cache(&c, 2);
	ld.fail = true;
	_at(0);
	gq_scrape_get(&c, &a);
	ck_assert_uint_eq(a.status, 503);
	ck_assert_str_eq(a.body, "gpuquota: slurmctld down\n");
	gq_scrape_answer_free(&a);
	ck_assert_uint_eq(_get_at(&c, 1.9, NULL), 503);
	ck_assert_int_eq(ld.loads, 1);
	gq_scrape_cache_free(&c);
}
END_TEST

/* ---- through the HTTP server (src/cli/serve.c) ---- */

static int http_loads;	/* under ld.mu */

static int _http_load(void *ctx, gq_prom_t *out, char *err, size_t errlen)
{
	(void)ctx;
	(void)err;
	(void)errlen;
	pthread_mutex_lock(&ld.mu);
	http_loads++;
	pthread_mutex_unlock(&ld.mu);
	gq_prom_family(out, "x", "gauge", "a test metric");
	gq_prom_sample(out, "x", NULL, 1);
	return 0;
}

/* GET /metrics on 127.0.0.1:port; true when the answer is 200 with x. */
static bool _http_get(unsigned port)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	char buf[4096];
	size_t got = 0;
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    write(fd, req, sizeof(req) - 1) != (ssize_t)sizeof(req) - 1) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (got < sizeof(buf) - 1 &&
	       (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	buf[got] = '\0';
	close(fd);
	return !strncmp(buf, "HTTP/1.1 200", 12) && strstr(buf, "\nx 1\n");
}

typedef struct {
	unsigned port;
	int first, ok;
} client_t;

/* 25 requests a second for 10 s, request i at start + i / 25 s. */
static void *_client(void *arg)
{
	client_t *cl = arg;
	double start = gq_scrape_monotonic(NULL) + cl->first / 100.0;
	int i;

	for (i = 0; i < 250; i++) {
		double wait = start + i / 25.0 - gq_scrape_monotonic(NULL);

		if (wait > 0)
			usleep((useconds_t)(wait * 1e6));
		cl->ok += _http_get(cl->port);
	}
	return NULL;
}

/*
 * The bound: 100 requests a second for 10 s (four clients of 25 a
 * second) through the real server, cache interval 2 s.  Loads start at
 * 0, 2, 4, 6, 8 (and 10 if the run took a little longer): at most one an
 * interval plus the first, floor(T / 2) + 1 for a run of T seconds; all
 * 1 000 requests answered 200.
 */
START_TEST(serve_100_per_second)
{
	gq_scrape_cache_t c;
	client_t cl[4];
	pthread_t t[4];
	gq_server_t *s;
	unsigned port;
	double t0, took;
	int i, status, ok = 0;

	pthread_mutex_init(&ld.mu, NULL);
	http_loads = 0;
	ck_assert_int_eq(gq_scrape_cache_init(&c, 2, _http_load, NULL), 0);
	s = gq_serve_start("127.0.0.1:0", &c, &port, &status);
	ck_assert_ptr_nonnull(s);
	t0 = gq_scrape_monotonic(NULL);
	for (i = 0; i < 4; i++) {
		cl[i] = (client_t){ .port = port, .first = i };
		ck_assert_int_eq(pthread_create(&t[i], NULL, _client, &cl[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		ok += cl[i].ok;
	}
	took = gq_scrape_monotonic(NULL) - t0;
	gq_serve_stop(s);
	gq_scrape_cache_free(&c);
	ck_assert_int_eq(ok, 1000);
	ck_assert_msg(http_loads >= 5 && http_loads <= (int)(took / 2) + 1,
		      "%d loads in %.2f s", http_loads, took);
}
END_TEST

/* settings.mode as an info gauge: 1 for the mode in force, 0 for the
 * other (docs/MODEL.md "Observe mode"). */
START_TEST(mode_gauge)
{
	gq_prom_t p;

	gq_prom_init(&p);
	gq_metrics_mode(&p, true);
	_has(p.buf, "# TYPE gpuquota_mode gauge");
	_has(p.buf, "gpuquota_mode{mode=\"observe\"} 1");
	_has(p.buf, "gpuquota_mode{mode=\"enforce\"} 0");
	gq_prom_free(&p);
	gq_prom_init(&p);
	gq_metrics_mode(&p, false);
	_has(p.buf, "gpuquota_mode{mode=\"observe\"} 0");
	_has(p.buf, "gpuquota_mode{mode=\"enforce\"} 1");
	gq_prom_free(&p);
}
END_TEST

Suite *cli_metrics_suite(void)
{
	Suite *s = suite_create("cli_metrics");
	TCase *tc = tcase_create("cli_metrics");

	tcase_add_test(tc, projects_and_departments);
	tcase_add_test(tc, mode_gauge);
	tcase_add_test(tc, plugin_file);
	tcase_add_test(tc, pools_labelled);
	tcase_add_test(tc, cache_loads_once_an_interval);
	tcase_add_test(tc, cache_one_load_at_a_time);
	tcase_add_test(tc, cache_failed_load);
	suite_add_tcase(s, tc);
	/* about 10 s: the bound through the real server */
	tc = tcase_create("cli_metrics_serve");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, serve_100_per_second);
	suite_add_tcase(s, tc);
	return s;
}
