/*
 * sim_helpers.c - the simulator's tests' shared setup (see
 * sim_helpers.h).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "helpers.h"
#include "sim_helpers.h"
#include "sim/trace_csv.h"

void read_trace(const char *body, uint32_t nodes, uint32_t gpus,
		gq_sim_history_t *h)
{
	char text[4096], err[GQ_ERR_MAX] = "";
	char *path;

	snprintf(text, sizeof(text), "%s%s",
		 "u_id,user,gpu_num,cpu_num,node_num,interval,run_time,wall_time,new_status\n",
		 body);
	path = write_temp(text);
	ck_assert_msg(!gq_sim_read_trace(path, nodes, gpus, h, err,
					 sizeof(err)), "%s", err);
	unlink(path);
	free(path);
}

void replay_until(const gq_sim_history_t *h, int n, uint32_t g,
		  const char *config, const gq_config_t *quotas, int points,
		  int64_t until, gq_sim_result_t *r)
{
	gq_sim_cluster_t c;
	char err[GQ_ERR_MAX] = "";
	gq_sim_opts_t o = { .history = h, .cluster = &c, .config = config,
			    .quotas = quotas, .series_points = points,
			    .requeue_delay = GQ_SIM_REQUEUE_DELAY,
			    .idle_pass = GQ_SIM_IDLE_PASS, .until = until };

	ck_assert_int_eq(gq_sim_cluster_uniform(&c, n, g, 0), 0);
	ck_assert_msg(!gq_sim_replay(&o, r, err, sizeof(err)), "%s", err);
	gq_sim_cluster_free(&c);
}

void replay_folded(const gq_sim_history_t *h, int n, uint32_t g,
		   const gq_config_t *quotas, gq_sim_result_t *r)
{
	gq_sim_cluster_t c;
	char err[GQ_ERR_MAX] = "";
	gq_sim_opts_t o = { .history = h, .cluster = &c, .quotas = quotas,
			    .requeue_delay = GQ_SIM_REQUEUE_DELAY,
			    .idle_pass = GQ_SIM_IDLE_PASS,
			    .fold_unlisted = true };

	ck_assert_int_eq(gq_sim_cluster_uniform(&c, n, g, 0), 0);
	ck_assert_msg(!gq_sim_replay(&o, r, err, sizeof(err)), "%s", err);
	gq_sim_cluster_free(&c);
}

void replay_with(const gq_sim_history_t *h, int n, uint32_t g,
		 const char *config, const gq_config_t *quotas, int points,
		 gq_sim_result_t *r)
{
	replay_until(h, n, g, config, quotas, points, 0, r);
}

void replay(const gq_sim_history_t *h, int n, uint32_t g, const char *config,
	    gq_sim_result_t *r)
{
	replay_with(h, n, g, config, NULL, 0, r);
}

const char *quick_start =
	"1,a,1,0,1,0,3600,0,Pass\n"
	"2,a,2,0,1,1,3600,0,Pass\n"
	"3,b,1,0,1,1,3600,0,Pass\n"
	"4,b,1,0,1,8,3600,0,Pass\n";

char *quick_config(void)
{
	return write_temp(
		"{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 2, \"accounts\": [\"ua\"]},"
		" {\"name\": \"team-b\", \"gpu_quota\": 2, \"accounts\": [\"ub\"]}]}");
}
