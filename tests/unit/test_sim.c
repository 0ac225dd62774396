/*
 * test_sim.c - the simulator (src/sim): first-fit placement, the event
 * loop on hand-made histories (stock Slurm's order with backfill of jobs
 * that fit now; the quick start under gpuquota: a1 requeued, a2 kept),
 * Slurm's backfill reservation (the head of the queue reserved for, jobs
 * that end before it or use other nodes backfilled, held jobs none),
 * determinism, and the readers' errors (file, line, field).
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "sim_helpers.h"
#include "shared/job_facts.h"
#include "sim/cluster.h"
#include "sim/history.h"
#include "sim/replay.h"
#include "sim/reservation.h"
#include "sim/sacct.h"
#include "sim/trace_csv.h"

#define T0 GQ_SIM_TRACE_EPOCH

START_TEST(test_first_fit_one_node)
{
	gq_sim_cluster_t c;
	gq_sim_shape_t three = { .gpus = 3, .nodes = 1 },
		       two = { .gpus = 2, .nodes = 1 };
	int at[1];

	ck_assert_int_eq(gq_sim_cluster_uniform(&c, 2, 4, 0), 0);
	/* 3 of node 0's 4; the next 3 only on node 1; then 2 fit nowhere
	 * (1 + 1 idle) though 2 GPUs are idle in all */
	ck_assert(gq_sim_fit(&c, c.free_gpus, c.free_cpus, &three, at));
	ck_assert_int_eq(at[0], 0);
	gq_sim_take(&c, &three, at);
	ck_assert(gq_sim_fit(&c, c.free_gpus, c.free_cpus, &three, at));
	ck_assert_int_eq(at[0], 1);
	gq_sim_take(&c, &three, at);
	ck_assert_uint_eq(c.idle_gpus, 2);
	ck_assert_uint_eq(c.max_free, 1);
	ck_assert(!gq_sim_may_fit(&c, &two));
	ck_assert(!gq_sim_fit(&c, c.free_gpus, c.free_cpus, &two, at));
	gq_sim_give(&c, &three, at);	/* node 1 again: 4 idle there */
	ck_assert(gq_sim_fit(&c, c.free_gpus, c.free_cpus, &two, at));
	ck_assert_int_eq(at[0], 1);
	gq_sim_cluster_free(&c);
}
END_TEST

START_TEST(test_first_fit_whole_nodes)
{
	gq_sim_cluster_t c;
	gq_sim_shape_t one = { .gpus = 1, .nodes = 1 },
		       pair = { .gpus = 8, .nodes = 2 };
	int at[2];
	uint32_t g, cp;

	ck_assert_int_eq(gq_sim_cluster_uniform(&c, 4, 4, 8), 0);
	/* one GPU on node 0: a two-node job takes nodes 1 and 2 whole */
	ck_assert(gq_sim_fit(&c, c.free_gpus, c.free_cpus, &one, at));
	gq_sim_take(&c, &one, at);
	ck_assert_int_eq(c.idle_nodes, 3);
	ck_assert(gq_sim_fit(&c, c.free_gpus, c.free_cpus, &pair, at));
	ck_assert_int_eq(at[0], 1);
	ck_assert_int_eq(at[1], 2);
	gq_sim_held(&c, &pair, 1, &g, &cp);
	ck_assert_uint_eq(g, 4);
	ck_assert_uint_eq(cp, 8);
	gq_sim_take(&c, &pair, at);
	/* node 3 alone is wholly idle: no second pair, though 7 GPUs are
	 * idle (3 on node 0, 4 on node 3) */
	ck_assert_int_eq(c.idle_nodes, 1);
	ck_assert_uint_eq(c.idle_gpus, 7);
	ck_assert(!gq_sim_fit(&c, c.free_gpus, c.free_cpus, &pair, at));
	gq_sim_cluster_free(&c);
}
END_TEST

START_TEST(test_nodes_from_scontrol)
{
	char *path = write_temp(
		"NodeName=g1 Arch=x86_64 CoresPerSocket=4\n"
		"   CPUAlloc=0 CPUEfctv=16 CPUTot=16 CPULoad=0.00\n"
		"   Gres=gpu:a100:4(S:0-1)\n"
		"   Partitions=gpu,debug\n"
		"\n"
		"NodeName=c1 CPUTot=32 Gres=(null) Partitions=cpu\n");
	char err[GQ_ERR_MAX] = "";
	gq_sim_cluster_t c;

	ck_assert_msg(!gq_sim_cluster_read(&c, path, err, sizeof(err)), "%s",
		      err);
	ck_assert_int_eq(c.n, 2);
	ck_assert_uint_eq(c.node[0].gpus, 4);
	ck_assert_uint_eq(c.node[0].cpus, 16);
	ck_assert_uint_eq(c.node[1].gpus, 0);
	ck_assert_int_eq(c.nparts, 3);
	ck_assert(gq_sim_part_mask(&c, "debug") & c.node[0].parts);
	ck_assert(!(gq_sim_part_mask(&c, "gpu") & c.node[1].parts));
	ck_assert_uint_eq(gq_sim_part_mask(&c, "nope"), GQ_SIM_NO_PART);
	gq_sim_cluster_free(&c);
	unlink(path);
	free(path);
}
END_TEST

/*
 * Stock Slurm on one node of 3 GPUs: A (2 GPUs, 100 s) at 0, B (2 GPUs)
 * at 10, C (1 GPU, 30 s) at 20.  B does not fit until A ends at 100;
 * C fits at once at 20 (backfill of a job that fits now).  B waits 90 s,
 * C none; C's GPU idle from 50 to 100 while B waits: 50 GPU-s, plus A's
 * third GPU idle from 10 to 20 (B waiting, 1 idle): 10.
 */
START_TEST(test_stock_order_and_backfill)
{
	gq_sim_history_t h = { 0 };
	gq_sim_result_t r;

	read_trace("1,x,2,0,1,0,100,0,Pass\n"
		   "2,y,2,0,1,10,50,0,Pass\n"
		   "3,y,1,0,1,10,30,0,Pass\n", 1, 3, &h);
	replay(&h, 1, 3, NULL, &r);
	ck_assert_int_eq(r.job[0].first_start, T0);
	ck_assert_int_eq(r.job[1].first_start, T0 + 100);
	ck_assert_int_eq(r.job[1].wait, 90);
	ck_assert_int_eq(r.job[2].first_start, T0 + 20);
	ck_assert_int_eq(r.job[2].wait, 0);
	ck_assert_double_eq_tol(r.idle_waiting_secs, 60, 1e-9);
	ck_assert_uint_eq(r.passes, 0);
	ck_assert_uint_eq(r.reclaims, 0);
	/* GPU-hours: x 2 x 100 s, y 2 x 50 + 1 x 30 s */
	ck_assert_double_eq_tol(r.acct[0].gpu_secs, 200, 1e-9);
	ck_assert_double_eq_tol(r.acct[1].gpu_secs, 130, 1e-9);
	gq_sim_result_free(&r);
	gq_sim_history_free(&h);
}
END_TEST

/*
 * Under gpuquota b2 (in quota) reclaims a1, not a2: a1 is requeued at 10
 * (10 GPU-seconds lost), b2 starts at once on a1's GPU; a1 is pending
 * again, over quota, and starts when a2 ends (1 + 3600).  a2 is never
 * requeued.
 */
START_TEST(test_quick_start_requeues_a1)
{
	gq_sim_history_t h = { 0 };
	gq_sim_result_t r;
	char *cfg = quick_config();

	read_trace(quick_start, 2, 2, &h);
	replay(&h, 2, 2, cfg, &r);
	ck_assert_uint_eq(r.job[0].requeues, 1);	/* a1 */
	ck_assert_uint_eq(r.job[1].requeues, 0);	/* a2 */
	ck_assert_uint_eq(r.job[2].requeues, 0);
	ck_assert_uint_eq(r.reclaims, 1);
	ck_assert_int_eq(r.job[3].first_start, T0 + 10);	/* b2 */
	ck_assert_int_eq(r.job[0].last_start, T0 + 3601);
	ck_assert_double_eq_tol(r.acct[0].lost_secs, 10, 1e-9);
	ck_assert_uint_eq(r.acct[0].requeues, 1);
	gq_sim_result_free(&r);
	/* stock: nothing requeued, b2 waits for a1's end at 3600 */
	replay(&h, 2, 2, NULL, &r);
	ck_assert_uint_eq(r.job[0].requeues, 0);
	ck_assert_int_eq(r.job[3].first_start, T0 + 3600);
	gq_sim_result_free(&r);
	gq_sim_history_free(&h);
	unlink(cfg);
	free(cfg);
}
END_TEST

/*
 * --until cuts the figures at a window's end.  Stock, 1 node x 3 GPUs:
 * x (2 GPUs, 0-100) runs; y's 2-GPU job (10) waits; y's 1-GPU job runs
 * 20-50.  Until 60: x held 2 x 60 = 120 GPU-s, y 1 x 30; y's first job
 * waited 50 s and never started; idle while it waited 10-20 and 50-60,
 * one GPU: 20.  Until 15: the job submitted at 20 is left out.  The
 * quick start under gpuquota until 20: a1 requeued at 10 (10 GPU-s
 * lost), a holds a1's 10 + a2's 2 x 19 = 48, b b1's 18 + b2's 10 = 28.
 */
START_TEST(test_until_cuts_the_window)
{
	gq_sim_history_t h = { 0 };
	gq_sim_result_t r;
	char *cfg = quick_config();

	read_trace("1,x,2,0,1,0,100,0,Pass\n"
		   "2,y,2,0,1,10,50,0,Pass\n"
		   "3,y,1,0,1,10,30,0,Pass\n", 1, 3, &h);
	replay_until(&h, 1, 3, NULL, NULL, 0, 60, &r);
	ck_assert_double_eq_tol(r.acct[0].gpu_secs, 120, 1e-9);
	ck_assert_double_eq_tol(r.acct[1].gpu_secs, 30, 1e-9);
	ck_assert_int_eq(r.job[1].first_start, -1);
	ck_assert_int_eq(r.job[1].wait, 50);
	ck_assert_uint_eq(r.acct[1].never_started, 1);
	ck_assert_double_eq_tol(r.idle_waiting_secs, 20, 1e-9);
	ck_assert_int_eq(r.span, 60);
	gq_sim_result_free(&r);
	replay_until(&h, 1, 3, NULL, NULL, 0, 15, &r);
	ck_assert_uint_eq(r.acct[1].jobs, 1);
	ck_assert_double_eq_tol(r.acct[0].gpu_secs, 30, 1e-9);
	ck_assert_double_eq_tol(r.idle_waiting_secs, 5, 1e-9);
	gq_sim_result_free(&r);
	gq_sim_history_free(&h);

	read_trace(quick_start, 2, 2, &h);
	replay_until(&h, 2, 2, cfg, NULL, 0, 20, &r);
	ck_assert_uint_eq(r.reclaims, 1);
	ck_assert_uint_eq(r.acct[0].requeues, 1);
	ck_assert_double_eq_tol(r.acct[0].lost_secs, 10, 1e-9);
	ck_assert_double_eq_tol(r.acct[0].gpu_secs, 48, 1e-9);
	ck_assert_double_eq_tol(r.acct[1].gpu_secs, 28, 1e-9);
	gq_sim_result_free(&r);
	gq_sim_history_free(&h);
	unlink(cfg);
	free(cfg);
}
END_TEST

/* Time below quota is measured against a project's quota by account,
 * the account found as the plugins find it (Slurm's spellings folded:
 * sacct's "UB" is gpuquota.json's "ub"). */
START_TEST(test_quota_of)
{
	char *path = quick_config(), err[GQ_ERR_MAX] = "";
	gq_config_t *cfg = NULL;

	ck_assert_msg(!gq_config_load(path, &cfg, err, sizeof(err)), "%s", err);
	ck_assert_double_eq_tol(gq_sim_quota_of(cfg, "ub"), 2, 1e-9);
	ck_assert_double_eq_tol(gq_sim_quota_of(cfg, "UB"), 2, 1e-9);
	ck_assert_double_eq_tol(gq_sim_quota_of(cfg, "team-a"), 0, 1e-9);
	ck_assert_double_eq_tol(gq_sim_quota_of(NULL, "ua"), 0, 1e-9);
	gq_config_free(cfg);
	unlink(path);
	free(path);
}
END_TEST

/*
 * The quick start with settings.grace_time 60: a1 is warned at 10 and
 * keeps its GPU until its grace time ends at 70, when it is requeued
 * (70 GPU-seconds lost); b2 waits for it (no second victim meanwhile:
 * the reclaim settles) and starts at 70.
 */
START_TEST(test_quick_start_grace)
{
	gq_sim_history_t h = { 0 };
	gq_sim_result_t r;
	char *cfg = write_temp(
		"{\"settings\": {\"grace_time\": 60},"
		" \"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 2, \"accounts\": [\"ua\"]},"
		" {\"name\": \"team-b\", \"gpu_quota\": 2, \"accounts\": [\"ub\"]}]}");

	read_trace(quick_start, 2, 2, &h);
	replay(&h, 2, 2, cfg, &r);
	ck_assert_uint_eq(r.reclaims, 1);
	ck_assert_uint_eq(r.job[0].requeues, 1);
	ck_assert_uint_eq(r.job[1].requeues, 0);
	ck_assert_int_eq(r.job[3].first_start, T0 + 70);
	ck_assert_int_eq(r.job[3].wait, 60);
	ck_assert_double_eq_tol(r.acct[0].lost_secs, 70, 1e-9);
	gq_sim_result_free(&r);
	gq_sim_history_free(&h);
	unlink(cfg);
	free(cfg);
}
END_TEST

/* A model's job in Slurm's terms reads as the core expects: pending and
 * demand; pending with a begin time ahead: waiting, eligible on its own
 * (begins_later); running. */
START_TEST(test_model_facts)
{
	gq_job_facts_t f;
	gq_job_in_t in;

	gq_facts_model_job(&f, false, 100, 100);
	f.gpus = 2;
	gq_job_input(&f, 100, &in);
	ck_assert_int_eq(in.state, GQ_JOB_PENDING);
	ck_assert(in.requeueable);
	gq_facts_model_job(&f, false, 221, 100);
	gq_job_input(&f, 100, &in);
	ck_assert_int_eq(in.state, GQ_JOB_WAITING);
	ck_assert(in.begins_later);
	gq_facts_model_job(&f, true, 0, 100);
	gq_job_input(&f, 100, &in);
	ck_assert_int_eq(in.state, GQ_JOB_RUNNING);
	ck_assert(gq_node_takes_work(gq_facts_model_node_state()));
}
END_TEST

/*
 * Each project at its quota (a1 2 GPUs on n1, b1 2 GPUs on n2): b2, over
 * team-b's quota, reclaims nothing and waits for a1's end at 3600.
 */
START_TEST(test_at_quota_no_reclaim)
{
	gq_sim_history_t h = { 0 };
	gq_sim_result_t r;
	char *cfg = quick_config();

	read_trace("1,a,2,0,1,0,3600,0,Pass\n"
		   "2,b,2,0,1,1,3600,0,Pass\n"
		   "3,b,1,0,1,1,3600,0,Pass\n", 2, 2, &h);
	replay(&h, 2, 2, cfg, &r);
	ck_assert_uint_eq(r.reclaims, 0);
	ck_assert_int_eq(r.job[2].first_start, T0 + 3600);
	ck_assert_int_eq(r.job[2].wait, 3598);
	gq_sim_result_free(&r);
	gq_sim_history_free(&h);
	unlink(cfg);
	free(cfg);
}
END_TEST

START_TEST(test_replay_deterministic)
{
	gq_sim_history_t h = { 0 };
	gq_sim_result_t a, b;
	char *cfg = quick_config();

	read_trace(quick_start, 2, 2, &h);
	replay(&h, 2, 2, cfg, &a);
	replay(&h, 2, 2, cfg, &b);
	ck_assert(!memcmp(a.job, b.job, h.n * sizeof(*a.job)));
	ck_assert_uint_eq(a.passes, b.passes);
	gq_sim_result_free(&a);
	gq_sim_result_free(&b);
	gq_sim_history_free(&h);
	unlink(cfg);
	free(cfg);
}
END_TEST

/* ---- Slurm's backfill reservation (reservation.h) ---------------------- */

#define ANY INT64_MIN	/* a start not checked */

/* A job of a hand-made history and its first start (seconds after T0;
 * -1: never) with the reservation and without. */
typedef struct {
	const char *acct;
	int64_t submit, run, limit;	/* limit 0: none */
	uint32_t gpus, nodes;
	int64_t with, without;
} resv_job_t;

/* Replay jobs[0..n) on `nodes` nodes of `gpus` GPUs under `config` (NULL:
 * stock), with the reservation and without, and check each job's first
 * start. */
static void resv_check(const resv_job_t *jobs, size_t n, int nodes,
		       uint32_t gpus, const char *config)
{
	gq_sim_history_t h = { 0 };
	gq_sim_cluster_t c;
	char err[GQ_ERR_MAX] = "";
	size_t i;
	int off;

	for (i = 0; i < n; i++) {
		gq_sim_job_t *j = gq_sim_history_add(&h);

		ck_assert_ptr_nonnull(j);
		*j = (gq_sim_job_t){
			.account = gq_sim_intern(&h, jobs[i].acct,
						 strlen(jobs[i].acct)),
			.submit = T0 + jobs[i].submit, .run = jobs[i].run,
			.limit = jobs[i].limit, .gpus = jobs[i].gpus,
			.nodes = jobs[i].nodes };
	}
	gq_sim_history_sort(&h);
	ck_assert_int_eq(gq_sim_cluster_uniform(&c, nodes, gpus, 0), 0);
	for (off = 0; off < 2; off++) {
		gq_sim_opts_t o = { .history = &h, .cluster = &c,
				    .config = config,
				    .requeue_delay = GQ_SIM_REQUEUE_DELAY,
				    .idle_pass = GQ_SIM_IDLE_PASS,
				    .no_reservation = off };
		gq_sim_result_t r;

		ck_assert_msg(!gq_sim_replay(&o, &r, err, sizeof(err)), "%s",
			      err);
		for (i = 0; i < n; i++) {
			int64_t want = off ? jobs[i].without : jobs[i].with;

			if (want != ANY)
				ck_assert_msg(r.job[i].first_start ==
					      (want < 0 ? -1 : T0 + want),
					      "job %zu (%s): started %lld, not %lld",
					      i + 1, off ? "without" : "with",
					      (long long)(r.job[i].first_start - T0),
					      (long long)want);
		}
		gq_sim_result_free(&r);
	}
	gq_sim_cluster_free(&c);
	gq_sim_history_free(&h);
}

/*
 * One node of 8 GPUs; (submit, GPUs, run = time limit): J1 (0, 4, 100),
 * J2 (10, 8, 50), J3 (20, 4, 1000), J4 (30, 4, 60), then J5, J6, J7 (40,
 * 50, 60; 4 GPUs, 1000 s each).
 * With the reservation: J2 cannot start at 10 and is reserved for at
 * J1's end, 100, on n1.  J3 fits at 20 but would run until 1020 > 100:
 * it waits.  J4 ends at 30 + 60 = 90 <= 100: it backfills at 30.  J2
 * starts at 100 (wait 90) and ends at 150, when J3 and J5 start; J6 and
 * J7 at their ends, 1150.
 * Without it: J3 starts at 20 (till 1020); J4 at 100 (J1's end, till
 * 160), J5 at 160 (till 1160), J6 at 1020 (till 2020), J7 at 1160 (till
 * 2160): 8 GPUs are never idle together until J7 ends, J2 starts at
 * 2160.
 */
#define RESV_STREAM(big, rest)						\
	{ rest, 0, 100, 100, 4, 1, 0, 0 },				\
	{ big, 10, 50, 50, 8, 1, 100, 2160 },				\
	{ rest, 20, 1000, 1000, 4, 1, 150, 20 },			\
	{ rest, 30, 60, 60, 4, 1, 30, 100 },				\
	{ rest, 40, 1000, 1000, 4, 1, 150, 160 },			\
	{ rest, 50, 1000, 1000, 4, 1, 1150, 1020 },			\
	{ rest, 60, 1000, 1000, 4, 1, 1150, 1160 }

START_TEST(test_resv_head_of_queue)
{
	static const resv_job_t jobs[] = { RESV_STREAM("ua", "ua") };

	resv_check(jobs, 7, 1, 8, NULL);
}
END_TEST

/*
 * The same stream under gpuquota, min_runtime past the replay (nothing
 * may be reclaimed): J2 of team-a (ua, quota 8: in quota, no room), the
 * rest of team-b (ub, quota 0: over fair share, below J2).  J2 is ahead
 * of them and reserved for as under stock: the same starts.
 * With team-b's gpu_limit 4 and J2 its: J2 is held (8 > 4), never
 * started, and has no reservation: J3 starts at 20.
 * With every job in one project (quota 100): J3..J7 fit the quota and
 * outrank J2, which takes the in-quota band's base (no room: MODEL.md,
 * "Bands and priority"); a reservation binds only the jobs behind it,
 * so J2 starts when the stream is done, 2160, as without one.
 */
START_TEST(test_resv_gpuquota_and_held)
{
	static const resv_job_t below[] = { RESV_STREAM("ua", "ub") };
	static const resv_job_t held[] = {
		{ "ua", 0, 100, 100, 4, 1, 0, 0 },
		{ "ub", 10, 50, 50, 8, 1, -1, -1 },
		{ "ua", 20, 1000, 1000, 4, 1, 20, 20 } };
	static const resv_job_t one[] = {
		{ "ua", 0, 100, 100, 4, 1, 0, 0 },
		{ "ua", 10, 50, 50, 8, 1, 2160, 2160 },
		{ "ua", 20, 1000, 1000, 4, 1, 20, 20 },
		{ "ua", 30, 60, 60, 4, 1, ANY, ANY },
		{ "ua", 40, 1000, 1000, 4, 1, ANY, ANY },
		{ "ua", 50, 1000, 1000, 4, 1, ANY, ANY },
		{ "ua", 60, 1000, 1000, 4, 1, ANY, ANY } };
	char *cfg[3] = {
		write_temp("{\"settings\": {\"min_runtime\": 100000},"
			   " \"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 8, \"accounts\": [\"ua\"]},"
			   " {\"name\": \"team-b\", \"gpu_quota\": 0, \"accounts\": [\"ub\"]}]}"),
		write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 8, \"accounts\": [\"ua\"]},"
			   " {\"name\": \"team-b\", \"gpu_quota\": 4, \"gpu_limit\": 4, \"accounts\": [\"ub\"]}]}"),
		write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 100, \"accounts\": [\"ua\"]}]}") };
	int k;

	resv_check(below, 7, 1, 8, cfg[0]);
	resv_check(held, 3, 1, 8, cfg[1]);
	resv_check(one, 7, 1, 8, cfg[2]);
	for (k = 0; k < 3; k++) {
		unlink(cfg[k]);
		free(cfg[k]);
	}
}
END_TEST

/*
 * Two nodes of 4 GPUs: A (0, 2 GPUs, 100 s) on n1, B (0, 4 GPUs, 50 s)
 * on n2.  X (10, 4 GPUs, 10 s) is reserved for at B's end, 50, on n2;
 * Y (20, 2 GPUs, 180 s: until 200 > 50) fits on n1, not reserved: it
 * starts at 20.  X starts at 50.
 *
 * Whole nodes, and a job with no time limit (its run time counts): three
 * nodes of 4 GPUs; A (0, 4 GPUs, 100 s) on n1, B (0, 4, 200 s, no limit)
 * on n2, C (0, 2, 300 s) on n3.  X (10, two nodes, 100 s) is reserved
 * for at 200 (n1 idle at 100, n2 at 200) on n1 and n2.  Y (20, 2 GPUs,
 * 1000 s) fits on n3 (not reserved): 20.  Z (105, 2 GPUs, 1000 s) fits
 * on n1 at 105 but would hold it past 200: it waits; X starts at 200 and
 * ends at 300 with C: Z starts at 300.  Without the reservation Z starts
 * at 105 on n1 (till 1105) and X waits for two whole nodes until Y's end
 * frees n3, 1020 (n2, n3).
 */
START_TEST(test_resv_nodes)
{
	static const resv_job_t other[] = {
		{ "ua", 0, 100, 100, 2, 1, 0, 0 },
		{ "ua", 0, 50, 50, 4, 1, 0, 0 },
		{ "ua", 10, 10, 10, 4, 1, 50, 50 },
		{ "ua", 20, 180, 180, 2, 1, 20, 20 } };
	static const resv_job_t whole[] = {
		{ "ua", 0, 100, 100, 4, 1, 0, 0 },
		{ "ua", 0, 200, 0, 4, 1, 0, 0 },
		{ "ua", 0, 300, 300, 2, 1, 0, 0 },
		{ "ua", 10, 100, 100, 8, 2, 200, 1020 },
		{ "ua", 20, 1000, 1000, 2, 1, 20, 20 },
		{ "ua", 105, 1000, 1000, 2, 1, 300, 105 } };

	resv_check(other, 4, 2, 4, NULL);
	resv_check(whole, 6, 3, 4, NULL);
}
END_TEST

/* Two nodes of 4 GPUs, 3 held on n1 and 4 on n2; an attempt begun. */
static const gq_sim_shape_t held_n1 = { .gpus = 3, .nodes = 1 },
			    held_n2 = { .gpus = 4, .nodes = 1 };
static const int node_n1[1] = { 0 }, node_n2[1] = { 1 };

static void held_3_4(gq_sim_cluster_t *c, gq_sim_resv_t *v)
{
	ck_assert_int_eq(gq_sim_cluster_uniform(c, 2, 4, 0), 0);
	ck_assert_int_eq(gq_sim_resv_init(v, 2, 4), 0);
	gq_sim_take(c, &held_n1, node_n1);
	gq_sim_take(c, &held_n2, node_n2);
	gq_sim_resv_begin(v);
}

/*
 * A failed fit is kept until GPUs come back: held_3_4 (1 GPU idle).
 * 2 GPUs fail; a job of 3 (asking more) fails without a fit, even where
 * the idle GPUs were changed behind the cluster's back (4 on n1: it
 * would fit); 1 GPU (asking less) fits.  n2 given back (gq_sim_give):
 * the failure is gone, 2 GPUs fit on n1 (4 idle there now) and 3 too.
 *
 * The failures kept are forgotten together: held_3_4 again; 2 GPUs
 * fail, then two whole nodes; n2 given back; two whole nodes fail again
 * (n1 is not idle), and 2 GPUs now fit on n2: the first failure is not
 * read again.
 */
START_TEST(test_resv_failure_kept)
{
	gq_sim_cluster_t c;
	gq_sim_resv_t v;
	gq_sim_shape_t one = { .gpus = 1, .nodes = 1 },
		       two = { .gpus = 2, .nodes = 1 },
		       three = { .gpus = 3, .nodes = 1 },
		       pair = { .gpus = 8, .nodes = 2 };
	int at[2];

	held_3_4(&c, &v);
	ck_assert(!gq_sim_resv_fit(&v, &c, &two, 100, at));
	c.free_gpus[0] = 4;	/* not a give: the failure still holds */
	ck_assert(!gq_sim_resv_fit(&v, &c, &three, 100, at));
	ck_assert(gq_sim_resv_fit(&v, &c, &one, 100, at));
	gq_sim_give(&c, &held_n2, node_n2);
	ck_assert(gq_sim_resv_fit(&v, &c, &two, 100, at));
	ck_assert_int_eq(at[0], 0);
	ck_assert(gq_sim_resv_fit(&v, &c, &three, 100, at));
	gq_sim_resv_free(&v);
	gq_sim_cluster_free(&c);

	held_3_4(&c, &v);
	ck_assert(!gq_sim_resv_fit(&v, &c, &two, 100, at));
	ck_assert(!gq_sim_resv_fit(&v, &c, &pair, 100, at));
	gq_sim_give(&c, &held_n2, node_n2);
	ck_assert(!gq_sim_resv_fit(&v, &c, &pair, 100, at));
	ck_assert(gq_sim_resv_fit(&v, &c, &two, 100, at));
	ck_assert_int_eq(at[0], 1);
	gq_sim_resv_free(&v);
	gq_sim_cluster_free(&c);
}
END_TEST

/* The error of reading `text` with `reader` (0: trace, 1: sacct). */
static void read_error(int reader, const char *text, const char *want)
{
	gq_sim_history_t h = { 0 };
	char err[GQ_ERR_MAX] = "", *path = write_temp(text), *msg;
	int rc = reader ? gq_sim_read_sacct(path, &h, err, sizeof(err)) :
			  gq_sim_read_trace(path, 2, 8, &h, err, sizeof(err));

	ck_assert_int_eq(rc, -1);
	ck_assert_msg(asprintf(&msg, "%s%s", path, want) > 0, "memory");
	ck_assert_str_eq(err, msg);
	free(msg);
	gq_sim_history_free(&h);
	unlink(path);
	free(path);
}

START_TEST(test_trace_errors)
{
	read_error(0, "u_id,user,gpu_num,cpu_num,node_num,interval,run_time\n"
		      "0,1,1,0,1,0,10\n"
		      "1,1,x,0,1,5,10\n",
		   ":3: gpu_num: must be an integer >= 0, got 'x'");
	read_error(0, "u_id,user,gpu_num,node_num,interval\n",
		   ":1: run_time: no such column in the header");
}
END_TEST

static const char *sacct_header =
	"JobID|Account|Partition|AllocTRES|ReqTRES|NNodes|Submit|Start|End|Elapsed|Timelimit|State\n";

START_TEST(test_sacct_reads)
{
	char text[2048], err[GQ_ERR_MAX] = "", *path;
	gq_sim_history_t h = { 0 };

	snprintf(text, sizeof(text), "%s%s", sacct_header,
		 "17|team-a|gpu|billing=2,cpu=2,gres/gpu:a100=2,mem=8G,node=1|billing=2,cpu=2,gres/gpu=2,mem=8G,node=1|1|2026-01-01T00:00:10|2026-01-01T00:01:00|2026-01-01T01:01:00|01:00:00|1-00:00:00|COMPLETED\n"
		 "18|team-b|gpu,debug|billing=16,cpu=16,gres/gpu=16,node=2|billing=16,cpu=16,gres/gpu=16,node=2|2|2026-01-01T00:00:00|2026-01-01T00:00:05|2026-01-01T00:10:05|10:00|UNLIMITED|CANCELLED by 0\n"
		 "19_3|team-b|gpu||billing=1,cpu=1,gres/gpu=1,node=1|1|2026-01-01T00:00:00|Unknown|Unknown|00:00:00|01:00:00|PENDING\n"
		 "20|team-c|cpu|billing=4,cpu=4,mem=1G,node=1|cpu=4|1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:09|00:00:09|UNLIMITED|COMPLETED\n");
	path = write_temp(text);
	ck_assert_msg(!gq_sim_read_sacct(path, &h, err, sizeof(err)), "%s", err);
	ck_assert_uint_eq(h.n, 2);
	ck_assert_uint_eq(h.skipped, 2);	/* never started; no GPU */
	/* in submit order: 18 first */
	ck_assert_uint_eq(h.job[0].src_id, 18);
	ck_assert_str_eq(h.job[0].partition, "gpu");
	ck_assert_uint_eq(h.job[0].gpus, 16);
	ck_assert_uint_eq(h.job[0].nodes, 2);
	ck_assert_int_eq(h.job[0].run, 600);
	ck_assert_int_eq(h.job[0].limit, 0);
	ck_assert_uint_eq(h.job[1].gpus, 2);	/* the typed entry */
	ck_assert_uint_eq(h.job[1].cpus, 2);
	ck_assert_int_eq(h.job[1].run, 3600);
	ck_assert_int_eq(h.job[1].limit, 86400);
	ck_assert_int_eq(h.job[1].submit - h.job[0].submit, 10);
	ck_assert_str_eq(h.job[1].account, "team-a");
	gq_sim_history_free(&h);
	unlink(path);
	free(path);
}
END_TEST

/*
 * The quick start as a real cluster wrote it (Slurm 22.05, slurmdbd; `sacct
 * -a -P -X -D`, lines as printed, "billing=1,...,node=1" cut to the GPUs
 * and CPUs): a1 (job 1, team-a, 1 GPU, 12 s of work), a2 (2, team-a, 2
 * GPUs, 15 s), b1 (3, team-b, 1 GPU, 15 s), b2 (4, team-b, 1 GPU, 10 s).
 * b2 reclaimed a1: a1's first run (submitted 10:41:26, started :27,
 * PREEMPTED at :32, 5 s) and its second (Submit :32, the requeue; started
 * :44 after its begin time, 12 s) are two lines of JobID 1.
 */
static const char *sacct_quick_start =
	"1|team-a|gpu|cpu=1,gres/gpu=1,node=1|cpu=1,gres/gpu=1,mem=1000M,node=1|1|2026-12-03T10:41:26|2026-12-03T10:41:27|2026-12-03T10:41:32|00:00:05|00:01:00|PREEMPTED\n"
	"2|team-a|gpu|cpu=1,gres/gpu=2,node=1|cpu=1,gres/gpu=2,mem=1000M,node=1|1|2026-12-03T10:41:27|2026-12-03T10:41:29|2026-12-03T10:41:44|00:00:15|00:01:00|COMPLETED\n"
	"3|team-b|gpu|cpu=1,gres/gpu=1,node=1|cpu=1,gres/gpu=1,mem=1000M,node=1|1|2026-12-03T10:41:29|2026-12-03T10:41:29|2026-12-03T10:41:44|00:00:15|00:01:00|COMPLETED\n"
	"1|team-a|gpu|cpu=1,gres/gpu=1,node=1|cpu=1,gres/gpu=1,mem=1000M,node=1|1|2026-12-03T10:41:32|2026-12-03T10:41:44|2026-12-03T10:41:56|00:00:12|00:01:00|COMPLETED\n"
	"4|team-b|gpu|cpu=1,gres/gpu=1,node=1|cpu=1,gres/gpu=1,mem=1000M,node=1|1|2026-12-03T10:41:32|2026-12-03T10:41:32|2026-12-03T10:41:42|00:00:10|00:01:00|COMPLETED\n";

/* An sacct text of `body` lines (after the header) into h. */
static void read_sacct(const char *body, gq_sim_history_t *h)
{
	char text[4096], err[GQ_ERR_MAX] = "", *path;

	snprintf(text, sizeof(text), "%s%s", sacct_header, body);
	path = write_temp(text);
	ck_assert_msg(!gq_sim_read_sacct(path, h, err, sizeof(err)), "%s", err);
	unlink(path);
	free(path);
}

/*
 * A job's runs (sacct -D) are one job: submitted at its first line's
 * Submit, its work the Elapsed of its last run that started.  The quick
 * start above: job 1 is one job, submitted 10:41:26, 12 s; four jobs, in
 * submit order 1 (:26), 2 (:27), 3 (:29), 4 (:32).  Then, in any order
 * of lines: job 7 listed last run first (Start 00:10:00, 100 s; its
 * REQUEUED run, as later releases name it, submitted at 00:00:00, ran
 * 50 s) is submitted at 00:00:00 and runs 100 s; job 9 requeued, then
 * cancelled pending (its last line never started) is its run that did:
 * 30 s from 00:00:05; array tasks 12_3 and 12_4 are two jobs (src_id 12
 * both); 13 never started: left out, the one job skipped.
 */
START_TEST(test_sacct_runs_merged)
{
	gq_sim_history_t h = { 0 };
	int64_t t0;

	read_sacct(sacct_quick_start, &h);
	ck_assert_uint_eq(h.n, 4);
	ck_assert_uint_eq(h.skipped, 0);
	ck_assert_uint_eq(h.job[0].src_id, 1);
	ck_assert_int_eq(h.job[0].run, 12);
	ck_assert_uint_eq(h.job[0].gpus, 1);
	t0 = h.job[0].submit;
	ck_assert_int_eq(h.job[1].submit - t0, 1);	/* 2 */
	ck_assert_int_eq(h.job[2].submit - t0, 3);	/* 3 */
	ck_assert_uint_eq(h.job[3].src_id, 4);
	ck_assert_int_eq(h.job[3].submit - t0, 6);
	ck_assert_int_eq(h.job[1].run, 15);
	ck_assert_uint_eq(h.job[1].gpus, 2);
	gq_sim_history_free(&h);

	read_sacct("7|ua|gpu|gres/gpu=2|gres/gpu=2|1|2026-01-01T00:05:00|2026-01-01T00:10:00|2026-01-01T00:11:40|00:01:40|01:00:00|COMPLETED\n"
		   "7|ua|gpu|gres/gpu=2|gres/gpu=2|1|2026-01-01T00:00:00|2026-01-01T00:00:10|2026-01-01T00:01:00|00:00:50|01:00:00|REQUEUED\n"
		   "9|ub|gpu|gres/gpu=1|gres/gpu=1|1|2026-01-01T00:00:01|2026-01-01T00:00:05|2026-01-01T00:00:35|00:00:30|01:00:00|NODE_FAIL\n"
		   "9|ub|gpu||gres/gpu=1|1|2026-01-01T00:00:35|Unknown|2026-01-01T00:02:00|00:00:00|01:00:00|CANCELLED by 0\n"
		   "12_3|ub|gpu|gres/gpu=1|gres/gpu=1|1|2026-01-01T00:00:02|2026-01-01T00:00:02|2026-01-01T00:00:12|00:00:10|01:00:00|COMPLETED\n"
		   "12_4|ub|gpu|gres/gpu=1|gres/gpu=1|1|2026-01-01T00:00:02|2026-01-01T00:00:02|2026-01-01T00:00:22|00:00:20|01:00:00|COMPLETED\n"
		   "13|ub|gpu||gres/gpu=1|1|2026-01-01T00:00:03|Unknown|Unknown|00:00:00|01:00:00|PENDING\n",
		   &h);
	ck_assert_uint_eq(h.n, 4);
	ck_assert_uint_eq(h.skipped, 1);		/* 13 */
	ck_assert_uint_eq(h.job[0].src_id, 7);
	ck_assert_int_eq(h.job[0].run, 100);
	ck_assert_uint_eq(h.job[1].src_id, 9);
	ck_assert_int_eq(h.job[1].submit - h.job[0].submit, 1);
	ck_assert_int_eq(h.job[1].run, 30);
	ck_assert_uint_eq(h.job[2].src_id, 12);
	ck_assert_uint_eq(h.job[3].src_id, 12);
	ck_assert_int_eq(h.job[2].run + h.job[3].run, 30);
	gq_sim_history_free(&h);
}
END_TEST

/*
 * The real cluster's quick start replayed on its 2 nodes x 2 GPUs makes
 * the real cluster's decision.  From 10:41:26 (0): a1 on n1 at 0, a2 (2
 * GPUs) on n2 at 1, b1 on n1 at 3: full.  b2 at 6, team-b in quota (1 of
 * 2), team-a over (3 of 2): a1 is requeued (6 s x 1 GPU lost; a2 would
 * have lost 2 x 5 = 10), a2 kept; one reclaim.  Stock: b2 waits for a1's
 * end at 12 (its 12 s from 0), nothing requeued.
 */
START_TEST(test_sacct_quick_start_replayed)
{
	gq_sim_history_t h = { 0 };
	gq_sim_result_t r;
	char *cfg;

	read_sacct(sacct_quick_start, &h);
	cfg = write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 2},"
			 " {\"name\": \"team-b\", \"gpu_quota\": 2}]}");
	replay(&h, 2, 2, cfg, &r);
	ck_assert_uint_eq(r.reclaims, 1);
	ck_assert_uint_eq(r.job[0].requeues, 1);	/* a1 */
	ck_assert_uint_eq(r.job[1].requeues, 0);	/* a2 */
	ck_assert_int_eq(r.job[3].first_start - h.job[0].submit, 6);	/* b2 */
	ck_assert_double_eq_tol(r.acct[0].lost_secs, 6, 1e-9);
	gq_sim_result_free(&r);
	replay(&h, 2, 2, NULL, &r);
	ck_assert_uint_eq(r.reclaims, 0);
	ck_assert_uint_eq(r.job[0].requeues, 0);
	ck_assert_int_eq(r.job[3].first_start - h.job[0].submit, 12);
	gq_sim_result_free(&r);
	gq_sim_history_free(&h);
	unlink(cfg);
	free(cfg);
}
END_TEST

/*
 * A job that fits on no node (4 GPUs on one node of 2-GPU nodes) under a
 * configuration with usage (idle passes while jobs wait): the replay ends
 * once nothing is left to come, the job never started.
 */
START_TEST(test_never_fits_ends)
{
	char text[1024], err[GQ_ERR_MAX] = "", *path, *cfg;
	gq_sim_history_t h = { 0 };
	gq_sim_result_t r;

	snprintf(text, sizeof(text), "%s%s", sacct_header,
		 "5|team-a|gpu|gres/gpu=4|gres/gpu=4|1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:10:00|00:10:00|UNLIMITED|COMPLETED\n"
		 "6|team-a|gpu|gres/gpu=1|gres/gpu=1|1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:10:00|00:10:00|UNLIMITED|COMPLETED\n");
	path = write_temp(text);
	cfg = write_temp("{\"settings\": {\"usage_half_life\": 3600},"
			 " \"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 1}]}");
	ck_assert_msg(!gq_sim_read_sacct(path, &h, err, sizeof(err)), "%s", err);
	replay(&h, 2, 2, cfg, &r);
	ck_assert_int_eq(r.job[0].first_start, -1);
	ck_assert_uint_eq(r.acct[0].never_started, 1);
	ck_assert_int_eq(r.job[1].wait, 0);
	ck_assert_int_eq(r.span, 600);	/* the 1-GPU job's end */
	gq_sim_result_free(&r);
	gq_sim_history_free(&h);
	unlink(path);
	unlink(cfg);
	free(path);
	free(cfg);
}
END_TEST

START_TEST(test_sacct_errors)
{
	char text[1024];

	snprintf(text, sizeof(text), "%s%s", sacct_header,
		 "17|team-a|gpu|gres/gpu=2|gres/gpu=2|1|2026-01-01T00:00:10|2026-01-01T00:01:00|Unknown|1:x|UNLIMITED|RUNNING\n");
	read_error(1, text, ":2: Elapsed: not [D-]HH:MM:SS, got '1:x'");
	snprintf(text, sizeof(text), "%s%s", sacct_header,
		 "17|team-a|gpu|gres/gpu=2|gres/gpu=2|1|yesterday|2026-01-01T00:01:00|Unknown|00:10|UNLIMITED|RUNNING\n");
	read_error(1, text, ":2: Submit: not YYYY-MM-DDTHH:MM:SS, got 'yesterday'");
	read_error(1, "JobID|Account\n",
		   ":1: Partition: no such column in the header (sacct -P --format=..., sacct.h)");
	read_error(1, "JobID,Account\n",
		   ":1: JobID: no such column in the header (sacct -P --format=..., sacct.h)");
}
END_TEST

/*
 * A move in the simulator (docs/MODEL.md "Moves"), 2 nodes x 4 GPUs,
 * first fit: n0 takes uc's c1, c2 (T0, T0 + 1; uc in quota 2) and ub's
 * b1, b2 (quota 0); n1 ud's d1, d2 (in quota 2) and ub's b3, b4.  ua (q
 * 4) asks 4 GPUs at T0 + 20: 2 borrowed on each node, no time limits:
 * n0 is saved.  A pass later (move_age 600) c2 then c1 are moved, to n1
 * (b3, b4): ua's job starts on n0 at once; c1 and c2 restart after the
 * requeue delay (121 s), reclaim b3 and b4, and run.  d1, d2 stay.
 */
START_TEST(test_move_replayed)
{
	gq_sim_history_t h = { 0 };
	gq_sim_result_t r;
	char *cfg = write_temp(
		"{\"projects\": [{\"name\": \"ua\", \"gpu_quota\": 4},"
		" {\"name\": \"ub\", \"gpu_quota\": 0},"
		" {\"name\": \"uc\", \"gpu_quota\": 2},"
		" {\"name\": \"ud\", \"gpu_quota\": 2}],"
		" \"settings\": {\"move_age\": 600}}");

	read_trace("1,c,1,0,1,0,3600,0,Pass\n2,c,1,0,1,1,3600,0,Pass\n"
		   "3,b,1,0,1,1,3600,0,Pass\n4,b,1,0,1,1,3600,0,Pass\n"
		   "5,d,1,0,1,1,3600,0,Pass\n6,d,1,0,1,1,3600,0,Pass\n"
		   "7,b,1,0,1,1,3600,0,Pass\n8,b,1,0,1,1,3600,0,Pass\n"
		   "9,a,4,0,1,13,3600,0,Pass\n", 2, 4, &h);
	replay(&h, 2, 4, cfg, &r);
	ck_assert_uint_eq(r.moves, 2);
	ck_assert_int_lt(r.job[8].first_start, T0 + 30);	/* ua's */
	for (int j = 0; j < 8; j++)	/* c1, c2, b1-b4 requeued once */
		ck_assert_uint_eq(r.job[j].requeues, j == 4 || j == 5 ? 0 : 1);
	for (int j = 0; j < 2; j++)	/* c1, c2 run again */
		ck_assert_int_lt(r.job[j].last_start, T0 + 200);
	gq_sim_result_free(&r);
	gq_sim_history_free(&h);
	unlink(cfg);
	free(cfg);
}
END_TEST

Suite *sim_suite(void)
{
	Suite *s = suite_create("sim");
	TCase *tc = tcase_create("sim");

	/* a few replays of a month each: seconds on a busy 2-core machine
	 * under the sanitizers, past Check's default of 4 */
	tcase_set_timeout(tc, 60);

	tcase_add_test(tc, test_first_fit_one_node);
	tcase_add_test(tc, test_first_fit_whole_nodes);
	tcase_add_test(tc, test_nodes_from_scontrol);
	tcase_add_test(tc, test_stock_order_and_backfill);
	tcase_add_test(tc, test_quick_start_requeues_a1);
	tcase_add_test(tc, test_until_cuts_the_window);
	tcase_add_test(tc, test_quick_start_grace);
	tcase_add_test(tc, test_model_facts);
	tcase_add_test(tc, test_at_quota_no_reclaim);
	tcase_add_test(tc, test_quota_of);
	tcase_add_test(tc, test_replay_deterministic);
	tcase_add_test(tc, test_trace_errors);
	tcase_add_test(tc, test_move_replayed);
	tcase_add_test(tc, test_sacct_reads);
	tcase_add_test(tc, test_sacct_errors);
	tcase_add_test(tc, test_sacct_runs_merged);
	tcase_add_test(tc, test_sacct_quick_start_replayed);
	tcase_add_test(tc, test_never_fits_ends);
	suite_add_tcase(s, tc);

	tc = tcase_create("backfill reservation: the head of each partition's queue");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_resv_head_of_queue);
	tcase_add_test(tc, test_resv_gpuquota_and_held);
	tcase_add_test(tc, test_resv_nodes);
	tcase_add_test(tc, test_resv_failure_kept);
	suite_add_tcase(s, tc);
	return s;
}
