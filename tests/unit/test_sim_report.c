/*
 * test_sim_report.c - the simulator's report (src/sim/projects.h,
 * model.h's gq_sim_idle_kind, series.h, report.h): the figures rolled up
 * per project of the first configuration (sums, waits over the union of
 * its jobs, time below the project's quota), the idle GPUs while jobs
 * waited split into fragmented and held, and the projects' GPUs over
 * time, the accounts no project lists folded into one row, and the
 * warning for a pool no job is in.  docs/SIMULATOR.md says what each
 * counts.
 */
#define _GNU_SOURCE
#include <check.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "sim_helpers.h"
#include "sim/history.h"
#include "sim/pool_check.h"
#include "sim/projects.h"
#include "sim/report.h"
#include "sim/series.h"
#include "sim/trace_csv.h"

/* team-a lists ua and uc, team-b ub, team-c uz (no job); ud is in none. */
static gq_config_t *rollup_config(void)
{
	char *path = write_temp(
		"{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 2, \"accounts\": [\"ua\", \"uc\"]},"
		" {\"name\": \"team-b\", \"gpu_quota\": 2, \"accounts\": [\"ub\"]},"
		" {\"name\": \"team-c\", \"gpu_quota\": 1, \"accounts\": [\"uz\"]}]}");
	char err[GQ_ERR_MAX] = "";
	gq_config_t *cfg = NULL;

	ck_assert_msg(!gq_config_load(path, &cfg, err, sizeof(err)), "%s", err);
	unlink(path);
	free(path);
	return cfg;
}

/*
 * Stock on one node of 2 GPUs: j1 ua 2 GPUs 100 s at 0; j2 uc 1 GPU 50 s
 * at 10; j3 ub 1 GPU 50 s at 20; j4 uc 1 GPU 10 s at 30; j5 ud 1 GPU
 * 10 s at 160.  j2 and j3 start at 100 (j1's end), j4 at 150, j5 at 160.
 * Waits: j1 0, j2 90, j3 80, j4 120, j5 0.
 */
static const char *rollup_trace =
	"1,a,2,0,1,0,100,0,Pass\n"
	"2,c,1,0,1,10,50,0,Pass\n"
	"3,b,1,0,1,10,50,0,Pass\n"
	"4,c,1,0,1,10,10,0,Pass\n"
	"5,d,1,0,1,130,10,0,Pass\n";

/*
 * team-a (ua, uc): GPU-seconds 2 x 100 + 50 + 10 = 260; its waits
 * {0, 90, 120}: p50 the 2nd (90), p95 the 3rd (120) -- not an average of
 * ua's (0, 0) and uc's (90, 120).  Below its quota 2 while its demand
 * waits: [10, 100) it holds 2 (j1) of min(2, 3): no; [100, 150) 1 (j2)
 * of min(2, 2) with j4 waiting: 50 s.  uc alone counts 140 s ([10, 150):
 * it held fewer than min(2, its demand)), so the project's 50 is not the
 * sum of its accounts'.  team-b: [20, 100) 0 of min(2, 1): 80 s.
 * team-c: no job, all 0.  ud: a project of its own, quota 0, 10 GPU-s.
 */
START_TEST(test_projects_rollup)
{
	gq_config_t *cfg = rollup_config();
	gq_sim_history_t h = { 0 };
	gq_sim_result_t r;

	read_trace(rollup_trace, 1, 2, &h);
	replay_with(&h, 1, 2, NULL, cfg, 0, &r);
	ck_assert_int_eq(r.nproj, 4);
	ck_assert_str_eq(r.proj[0].account, "team-a");
	ck_assert_str_eq(r.proj[3].account, "ud");
	ck_assert_double_eq_tol(r.proj[3].quota, 0, 1e-9);
	ck_assert_int_eq(r.acct[1].project, 0);	/* uc */
	ck_assert_uint_eq(r.proj[0].jobs, 3);
	ck_assert_double_eq_tol(r.proj[0].gpu_secs, 260, 1e-9);
	ck_assert_double_eq_tol(r.proj[0].wait_p50, 90, 1e-9);
	ck_assert_double_eq_tol(r.proj[0].wait_p95, 120, 1e-9);
	ck_assert_int_eq(r.proj[0].below_secs, 50);
	ck_assert_int_eq(r.acct[1].below_secs, 140);
	ck_assert_int_eq(r.proj[1].below_secs, 80);
	ck_assert_double_eq_tol(r.proj[1].wait_p50, 80, 1e-9);
	ck_assert_uint_eq(r.proj[2].jobs, 0);
	ck_assert_double_eq_tol(r.proj[2].quota, 1, 1e-9);
	ck_assert_double_eq_tol(r.proj[3].gpu_secs, 10, 1e-9);
	gq_sim_result_free(&r);
	gq_sim_history_free(&h);
	gq_config_free(cfg);
}
END_TEST

/* The report: the projects' tables in the text (the accounts' only when
 * asked); in JSON a "projects" array beside "accounts", each with its
 * accounts, and the idle GPU-hours split. */
START_TEST(test_projects_reported)
{
	gq_config_t *cfg = rollup_config();
	gq_sim_history_t h = { 0 };
	gq_sim_result_t r;
	const char *label[] = { "stock" };
	char *text, want[64];
	size_t len;
	FILE *f;
	json_object *top, *p, *x;

	read_trace(rollup_trace, 1, 2, &h);
	replay_with(&h, 1, 2, NULL, cfg, 0, &r);
	f = open_memstream(&text, &len);
	gq_sim_report_text(f, &r, label, 1, false);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "\nPROJECT "));
	snprintf(want, sizeof(want), "\n%-16s %6g %12.2f\n", "team-a", 2.0,
		 260 / 3600.0);	/* the GPU-hours table's row */
	ck_assert_ptr_nonnull(strstr(text, want));
	ck_assert_ptr_null(strstr(text, "ACCOUNT"));
	free(text);
	f = open_memstream(&text, &len);
	gq_sim_report_text(f, &r, label, 1, true);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "\nACCOUNT "));
	free(text);
	f = open_memstream(&text, &len);
	gq_sim_report_json(f, &r, label, 1);
	fclose(f);
	top = json_tokener_parse(text);
	ck_assert_ptr_nonnull(top);
	x = json_object_array_get_idx(top, 0);
	ck_assert(json_object_object_get_ex(x, "idle_gpu_hours_fragmented", NULL));
	ck_assert(json_object_object_get_ex(x, "accounts", NULL));
	ck_assert(json_object_object_get_ex(x, "projects", &p));
	p = json_object_array_get_idx(p, 0);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(p, "project")), "team-a");
	ck_assert_int_eq(json_object_array_length(json_object_object_get(p, "accounts")), 2);
	ck_assert_double_eq_tol(json_object_get_double(json_object_object_get(p, "wait_p50_s")), 90, 1e-9);
	json_object_put(top);
	free(text);
	gq_sim_result_free(&r);
	gq_sim_history_free(&h);
	gq_config_free(cfg);
}
END_TEST

/*
 * Folded, stock on one node of 2 GPUs: j1 ua 2 GPUs 100 s at 0; j2 ud
 * 1 GPU 50 s at 10; j3 ue 1 GPU 20 s at 20.  j2 and j3 start at 100
 * (j1's end): waits 90 and 80.  ud and ue, listed by no project, are one
 * project "(others)" after team-a, team-b, team-c: index 3, 4 projects
 * (5 unfolded).  Its GPU-seconds 50 + 20 = 70, 2 jobs, waits {80, 90}:
 * p50 the 1st (80), p95 the 2nd (90).  The text: one "(others)" row of
 * 70 / 3600 = 0.02 GPU-hours in the projects' table and one in the
 * accounts' table, no row of ud or ue, and a line saying 2 accounts.
 */
static const char *fold_trace =
	"1,a,2,0,1,0,100,0,Pass\n"
	"2,d,1,0,1,10,50,0,Pass\n"
	"3,e,1,0,1,10,20,0,Pass\n";

START_TEST(test_projects_folded)
{
	gq_config_t *cfg = rollup_config();
	gq_sim_history_t h = { 0 };
	gq_sim_result_t r;
	const char *label[] = { "stock" };
	char *text, want[64], *at;
	size_t len;
	int rows = 0;
	FILE *f;

	read_trace(fold_trace, 1, 2, &h);
	replay_folded(&h, 1, 2, cfg, &r);
	ck_assert_int_eq(r.nproj, 4);
	ck_assert_int_eq(r.others, 3);
	ck_assert_str_eq(r.proj[3].account, "(others)");
	ck_assert_int_eq(r.acct[1].project, 3);	/* ud */
	ck_assert_int_eq(r.acct[2].project, 3);	/* ue */
	ck_assert_uint_eq(r.proj[3].jobs, 2);
	ck_assert_double_eq_tol(r.proj[3].gpu_secs, 70, 1e-9);
	ck_assert_double_eq_tol(r.proj[3].wait_p50, 80, 1e-9);
	ck_assert_double_eq_tol(r.proj[3].wait_p95, 90, 1e-9);
	f = open_memstream(&text, &len);
	gq_sim_report_text(f, &r, label, 1, true);
	fclose(f);
	snprintf(want, sizeof(want), "\n%-16s %6g %12.2f\n", "(others)", 0.0,
		 70 / 3600.0);
	for (at = text; (at = strstr(at, want)); at++)
		rows++;
	ck_assert_int_eq(rows, 2);
	ck_assert_ptr_null(strstr(text, "\nud "));
	ck_assert_ptr_null(strstr(text, "\nue "));
	ck_assert_ptr_nonnull(strstr(text, "(others): 2 accounts no project lists"));
	free(text);
	gq_sim_result_free(&r);
	replay_with(&h, 1, 2, NULL, cfg, 0, &r);	/* --all-accounts */
	ck_assert_int_eq(r.nproj, 5);
	ck_assert_int_eq(r.others, -1);
	gq_sim_result_free(&r);
	gq_sim_history_free(&h);
	gq_config_free(cfg);
}
END_TEST

/*
 * Pools a100 (partition a100) and h100 (h100, h100-long); a trace's jobs
 * name no partition: no job is in either pool, two warning lines.  j1
 * given partition h100-long: h100 has a job, one line (a100's).  A
 * configuration without pools: none.
 */
START_TEST(test_pools_without_jobs_warned)
{
	char *path = write_temp(
		"{\"pools\": [{\"name\": \"a100\", \"partitions\": [\"a100\"]},"
		" {\"name\": \"h100\", \"partitions\": [\"h100\", \"h100-long\"]}],"
		" \"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 2, \"accounts\": [\"ua\"]}]}");
	char err[GQ_ERR_MAX] = "", *text;
	gq_config_t *cfg = NULL, *plain = rollup_config();
	gq_sim_history_t h = { 0 };
	size_t len;
	FILE *f;

	ck_assert_msg(!gq_config_load(path, &cfg, err, sizeof(err)), "%s", err);
	read_trace(fold_trace, 1, 2, &h);
	f = open_memstream(&text, &len);
	ck_assert_int_eq(gq_sim_warn_pools(f, "p.json", cfg, &h), 2);
	fclose(f);
	ck_assert_str_eq(text,
		"gpuquota simulate: warning: p.json: no job in the trace matches pool a100 (partitions a100); every project shows 0 there\n"
		"gpuquota simulate: warning: p.json: no job in the trace matches pool h100 (partitions h100,h100-long); every project shows 0 there\n");
	free(text);
	h.job[0].partition = gq_sim_intern(&h, "h100-long", 9);
	f = open_memstream(&text, &len);
	ck_assert_int_eq(gq_sim_warn_pools(f, "p.json", cfg, &h), 1);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "pool a100 "));
	free(text);
	f = open_memstream(&text, &len);
	ck_assert_int_eq(gq_sim_warn_pools(f, "p.json", plain, &h), 0);
	fclose(f);
	ck_assert_uint_eq(len, 0);
	free(text);
	gq_sim_history_free(&h);
	gq_config_free(cfg);
	gq_config_free(plain);
	unlink(path);
	free(path);
}
END_TEST

/*
 * Stock, 2 nodes x 2 GPUs: A (1 GPU, 100 s) and B (1 GPU, 40 s) at 0 on
 * n1, C (1 GPU, 100 s) at 0 on n2; D (2 GPUs, 30 s) at 10.  [10, 40): 1
 * GPU idle (n2), D asks 2: idle, not fragmented (30 GPU-s).  [40, 100):
 * B gone, 1 idle on each node, 2 in all, none with 2: fragmented, 2 x 60
 * = 120.  D starts at 100.  Held: none (stock starts what fits).
 *
 * Whole nodes, 3 nodes x 2 GPUs: A (1 GPU, 100 s) and X (1 GPU, 20 s) at
 * 0 on n1, B (1 GPU, 100 s) on n2; E (2 nodes, 4 GPUs, 30 s) at 10.
 * [10, 20): 3 idle < 4 (30 GPU-s); [20, 100): 4 idle (1 on n1, 1 on n2,
 * n3 whole), one node wholly idle of the 2 it needs: fragmented, 4 x 80
 * = 320.  E starts at 100.
 */
/* Replay a trace on stock (nodes x gpn) and check job `j`'s first start
 * (seconds after the first submit) and the idle GPU-seconds: all, and of
 * them fragmented and reserved (held: none under stock). */
static void stock_idle(const char *trace, int nodes, int gpn, int j,
		       int64_t start, double all, double frag, double resv)
{
	gq_sim_history_t h = { 0 };
	gq_sim_result_t r;

	read_trace(trace, nodes, gpn, &h);
	replay(&h, nodes, gpn, NULL, &r);
	ck_assert_int_eq(r.job[j].first_start, GQ_SIM_TRACE_EPOCH + start);
	ck_assert_double_eq_tol(r.idle_waiting_secs, all, 1e-9);
	ck_assert_double_eq_tol(r.idle_fragmented_secs, frag, 1e-9);
	ck_assert_double_eq_tol(r.idle_reserved_secs, resv, 1e-9);
	ck_assert_double_eq_tol(r.idle_held_secs, 0, 1e-9);
	gq_sim_result_free(&r);
	gq_sim_history_free(&h);
}

START_TEST(test_idle_fragmented)
{
	stock_idle("1,a,1,0,1,0,100,0,Pass\n"
		   "2,b,1,0,1,0,40,0,Pass\n"
		   "3,c,1,0,1,0,100,0,Pass\n"
		   "4,d,2,0,1,10,30,0,Pass\n", 2, 2, 3, 100, 150, 120, 0);
	stock_idle("1,a,1,0,1,0,100,0,Pass\n"
		   "2,x,1,0,1,0,20,0,Pass\n"
		   "3,b,1,0,1,0,100,0,Pass\n"
		   "4,e,4,0,2,10,30,0,Pass\n", 3, 2, 3, 100, 350, 320, 0);
}
END_TEST

/*
 * Stock, one node of 8 GPUs (the trace has no time limits: a job's run
 * time is its limit): A (4 GPUs, 100 s) at 0, B (8, 30 s) at 10, C (4,
 * 200 s) at 20.  B is reserved the node at 100; C fits in the 4 idle GPUs
 * but would end at 220: it waits.  [10, 20): B asks more than is idle
 * (4 x 10 = 40 GPU-s); [20, 100): C fits and waits behind B's
 * reservation, reserved 4 x 80 = 320.  B runs [100, 130), C from 130.
 */
START_TEST(test_idle_reserved)
{
	/* C (job 2) starts at 130: after B's [100, 130) */
	stock_idle("1,a,4,0,1,0,100,0,Pass\n"
		   "2,b,8,0,1,10,30,0,Pass\n"
		   "3,c,4,0,1,10,200,0,Pass\n", 1, 8, 2, 130, 360, 0, 320);
}
END_TEST

/*
 * gpuquota, one node of 2 GPUs, team-a's gpu_limit 1: a1 (1 GPU, 100 s)
 * at 0, a2 (1 GPU, 50 s) at 10.  a2 fits but the pass at 10 holds it
 * (a1 and a2 would pass the limit): 1 idle GPU x 90 s, held.  At 100 a1
 * ends and the pass of that tick (recompute_interval 1) releases a2,
 * which starts then.
 */
START_TEST(test_idle_held)
{
	gq_sim_history_t h = { 0 };
	gq_sim_result_t r;
	char *cfg = write_temp(
		"{\"settings\": {\"recompute_interval\": 1},"
		" \"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 1,"
		" \"gpu_limit\": 1, \"accounts\": [\"ua\"]}]}");

	read_trace("1,a,1,0,1,0,100,0,Pass\n"
		   "2,a,1,0,1,10,50,0,Pass\n", 1, 2, &h);
	replay(&h, 1, 2, cfg, &r);
	ck_assert_int_eq(r.job[1].first_start, GQ_SIM_TRACE_EPOCH + 100);
	ck_assert_double_eq_tol(r.idle_waiting_secs, 90, 1e-9);
	ck_assert_double_eq_tol(r.idle_held_secs, 90, 1e-9);
	ck_assert_double_eq_tol(r.idle_fragmented_secs, 0, 1e-9);
	gq_sim_result_free(&r);
	gq_sim_history_free(&h);
	unlink(cfg);
	free(cfg);
}
END_TEST

/*
 * The quick start's GPUs per project, one-second steps (16 384 of room,
 * the replay's 7 202 s fit: it ends with the pass at the tick after a1's
 * end, recompute_interval 2): team-a holds a1's 1 from 0, 3 with a2 from
 * 1, 2 after a1's requeue at 10, 1 from 3601 (a2 ends, a1 runs again)
 * to 7201; team-b 1 from 2 (b1), 2 from 10 (b2 on a1's GPU), 1 from 3602
 * (b1 ends), 0 from 3610.
 */
START_TEST(test_series_quick_start)
{
	gq_sim_history_t h = { 0 };
	gq_sim_result_t r;
	char *path = quick_config(), err[GQ_ERR_MAX] = "";
	gq_config_t *cfg = NULL;
	const gq_sim_series_t *s = &r.series;
	static const struct { int at; double a, b; } want[] = {
		{ 0, 1, 0 }, { 1, 3, 0 }, { 2, 3, 1 }, { 9, 3, 1 },
		{ 10, 2, 2 }, { 3600, 2, 2 }, { 3601, 1, 2 }, { 3602, 1, 1 },
		{ 3609, 1, 1 }, { 3610, 1, 0 }, { 7200, 1, 0 }, { 7201, 0, 0 },
	};
	size_t i;

	ck_assert_msg(!gq_config_load(path, &cfg, err, sizeof(err)), "%s", err);
	read_trace(quick_start, 2, 2, &h);
	replay_with(&h, 2, 2, path, cfg, 16384, &r);
	ck_assert_int_eq(s->step, 1);
	ck_assert_int_eq(gq_sim_series_len(s), 7202);
	ck_assert_int_eq(gq_sim_series_at(s, 0), GQ_SIM_TRACE_EPOCH);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ck_assert_double_eq_tol(gq_sim_series_mean(s, want[i].at, 0), want[i].a, 1e-9);
		ck_assert_double_eq_tol(gq_sim_series_mean(s, want[i].at, 1), want[i].b, 1e-9);
	}
	gq_sim_result_free(&r);
	gq_sim_history_free(&h);
	gq_config_free(cfg);
	unlink(path);
	free(path);
}
END_TEST

/*
 * Room for 4 steps: a level 2 over [0, 4) fills 4 steps of 1 s; reaching
 * 6 merges them into 2 steps of 2 s (4 GPU-s each) and the third, [4, 6),
 * holds level 1's 2: means 2, 2, 1.  Reaching 20 doubles twice more
 * (steps of 8 s): [0, 8) holds 8 + 2 = 10 GPU-s, mean 1.25.
 */
START_TEST(test_series_bounded)
{
	gq_sim_series_t s;

	ck_assert_int_eq(gq_sim_series_init(&s, 4, 1), 0);
	gq_sim_series_reach(&s, 0, 4);
	gq_sim_series_add(&s, 0, 2, 0, 4);
	ck_assert_int_eq(gq_sim_series_len(&s), 4);
	gq_sim_series_reach(&s, 4, 6);
	gq_sim_series_add(&s, 0, 1, 4, 6);
	ck_assert_int_eq(s.step, 2);
	ck_assert_int_eq(gq_sim_series_len(&s), 3);
	ck_assert_double_eq_tol(gq_sim_series_mean(&s, 0, 0), 2, 1e-9);
	ck_assert_double_eq_tol(gq_sim_series_mean(&s, 1, 0), 2, 1e-9);
	ck_assert_double_eq_tol(gq_sim_series_mean(&s, 2, 0), 1, 1e-9);
	gq_sim_series_reach(&s, 6, 20);
	ck_assert_int_eq(s.step, 8);
	ck_assert_double_eq_tol(gq_sim_series_mean(&s, 0, 0), 1.25, 1e-9);
	gq_sim_series_free(&s);
}
END_TEST

Suite *sim_report_suite(void)
{
	Suite *s = suite_create("sim_report");
	TCase *tc = tcase_create("sim_report");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_projects_rollup);
	tcase_add_test(tc, test_projects_reported);
	tcase_add_test(tc, test_projects_folded);
	tcase_add_test(tc, test_pools_without_jobs_warned);
	tcase_add_test(tc, test_idle_fragmented);
	tcase_add_test(tc, test_idle_held);
	tcase_add_test(tc, test_idle_reserved);
	tcase_add_test(tc, test_series_quick_start);
	tcase_add_test(tc, test_series_bounded);
	suite_add_tcase(s, tc);
	return s;
}
