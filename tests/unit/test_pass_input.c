/*
 * test_pass_input.c - the one step from a pass input (what both readers
 * of Slurm copy) to the pools' views: each job's pool, its node group, a
 * shadow in the other pools it lists, placement, each pool's capacity.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "config/config.h"
#include "core/pools.h"
#include "core/registry.h"
#include "shared/pass_input.h"
#include "helpers.h"

static gq_pools_t *two_pools(void)
{
	char err[GQ_ERR_MAX];
	gq_config_t *cfg = NULL;
	gq_pools_t *p;

	ck_assert_msg(!gq_config_parse(
		"{\"pools\": [{\"name\": \"a100\", \"partitions\": [\"a100\"]},"
		"            {\"name\": \"h100\", \"partitions\": [\"h100\"]}],"
		" \"projects\": [{\"name\": \"team-a\", \"gpu_quota\": {\"a100\": 2, \"h100\": 4}},"
		"                {\"name\": \"team-b\", \"gpu_quota\": {\"h100\": 4}}]}",
		"t.json", &cfg, err, sizeof(err)), "%s", err);
	p = gq_pools_new(cfg);
	ck_assert_ptr_nonnull(p);
	gq_config_free(cfg);
	return p;
}

static const char *const parts[] = { "a100", "h100", "cpu" };
/* n0, n1 in a100, n2 in h100, n3 in cpu (indexes of parts) */
static int node_part[] = { 0, 0, 1, 2 };

/*
 * The cluster: n0 (a100, 4 GPUs, 2 allocated, feature "fast"), n1 (a100,
 * down), n2 (h100, 8 GPUs all allocated), n3 (cpu, none) and a hole in
 * the node table.  Jobs: 1 (team-a, running 2 GPUs on n0), 2 (team-a
 * pending 2, listing a100 and h100, --constraint fast), 3 (team-b pending
 * 1 in h100), 4 (running in cpu: no pool's, skipped), 5 (team-a pending
 * 1 in a100, --constraint slow), 6 (team-b running 8 on n2).
 */
static void cluster(gq_pass_in_t *in, gq_pass_node_t *node,
		    gq_pass_job_t *job, gq_pass_place_t *place)
{
	memset(in, 0, sizeof(*in));
	node[0] = (gq_pass_node_t){ .present = true, .state = NODE_STATE_MIXED,
				    .gpus = 4, .alloc = 2, .part = 0,
				    .nparts = 1, .features = "fast",
				    .gres = "gpu:a100:4" };
	node[1] = (gq_pass_node_t){ .present = true, .state = NODE_STATE_DOWN,
				    .gpus = 4, .part = 1, .nparts = 1,
				    .gres = "gpu:a100:4" };
	node[2] = (gq_pass_node_t){ .present = true,
				    .state = NODE_STATE_ALLOCATED, .gpus = 8,
				    .alloc = 8, .part = 2, .nparts = 1,
				    .gres = "gpu:h100:8" };
	node[3] = (gq_pass_node_t){ .present = true, .state = NODE_STATE_IDLE,
				    .part = 3, .nparts = 1 };
	node[4] = (gq_pass_node_t){ .present = false };
	place[0] = (gq_pass_place_t){ .node = 0, .gpus = 2 };
	place[1] = (gq_pass_place_t){ .node = 2, .gpus = 8 };
	job[0] = (gq_pass_job_t){ .pool = 0,
				  .account = "team-a", .partitions = "a100",
				  .in = running(1, 2, 10), .place = 0,
				  .nplaces = 1 };
	job[1] = (gq_pass_job_t){ .pool = 0,
				  .account = "team-a",
				  .partitions = "a100,h100", .pending = true,
				  .features = "fast", .in = pending(2, 2, 20) };
	job[2] = (gq_pass_job_t){ .pool = 1,
				  .account = "team-b", .partitions = "h100",
				  .pending = true, .in = pending(3, 1, 30) };
	job[3] = (gq_pass_job_t){ .pool = -1,
				  .account = "team-a", .partitions = "cpu",
				  .in = running(4, 0, 40) };
	job[4] = (gq_pass_job_t){ .pool = 0,
				  .account = "team-a", .partitions = "a100",
				  .pending = true, .features = "slow",
				  .in = pending(5, 1, 50) };
	job[5] = (gq_pass_job_t){ .pool = 1,
				  .account = "team-b", .partitions = "h100",
				  .in = running(6, 8, 60), .place = 1,
				  .nplaces = 1 };
	in->job = job;
	in->njobs = 6;
	in->node = node;
	in->nnodes = 5;
	in->place = place;
	in->nplaces = 2;
	in->part = parts;
	in->nparts = 3;
	in->node_part = node_part;
	in->nnode_parts = 4;
	in->min_runtime = 0;
}

/*
 * C: a100's nodes n0 (4) and n1 (down: 0) give 4; h100's n2 gives 8.
 * Node groups: partitions a100 = 1, h100 = 2, cpu = 3; then the
 * narrowings of the pools' pending jobs in order: job 2's (any partition
 * of its pool, "fast") = 4, job 5's (a100, "slow") = 5; job 3 narrows
 * nothing: its partition's group 2.
 */
START_TEST(capacity_and_node_groups)
{
	gq_pools_t *p = two_pools();
	gq_pass_in_t in;
	gq_pass_node_t node[5];
	gq_pass_job_t job[6];
	gq_pass_place_t place[2];

	cluster(&in, node, job, place);
	ck_assert_int_eq(gq_pass_fill(p, &in, 100), 0);
	ck_assert_double_eq(gq_pass_capacity(&in, p->config[0]), 4);
	ck_assert_double_eq(gq_pass_capacity(&in, p->config[1]), 8);
	ck_assert_int_eq(job[1].in.node_group, 4);
	ck_assert_int_eq(job[2].in.node_group, 2);
	ck_assert_int_eq(job[4].in.node_group, 5);
	ck_assert_int_eq(gq_pass_part_index(&in, "h100", 4), 1);
	ck_assert_int_eq(gq_pass_part_index(&in, "h100,cpu", 4), 1);
	ck_assert_int_eq(gq_pass_part_index(&in, "gpu", 3), -1);
	gq_pools_free(p);
}
END_TEST

/*
 * Each job in its pool: 1 and 5 in a100; 2 in a100 (the first it lists)
 * and a shadow in h100; 3 and 6 in h100; 4 (cpu) in none.  After the
 * pass, team-a holds 2 in a100 (job 1's placement on n0), team-b 8 in
 * h100.
 */
START_TEST(jobs_into_their_pools)
{
	gq_pools_t *p = two_pools();
	gq_pass_in_t in;
	gq_pass_node_t node[5];
	gq_pass_job_t job[6];
	gq_pass_place_t place[2];
	const gq_job_t *j;
	int k = -1;

	cluster(&in, node, job, place);
	ck_assert_int_eq(gq_pass_fill(p, &in, 100), 0);
	ck_assert_int_eq(gq_view_compute(p->view[0]), 0);
	ck_assert_int_eq(gq_view_compute(p->view[1]), 0);
	ck_assert_ptr_nonnull(gq_pools_job(p, 1, &k));
	ck_assert_int_eq(k, 0);
	ck_assert_ptr_nonnull(gq_pools_job(p, 2, &k));
	ck_assert_int_eq(k, 0);
	j = gq_view_job(p->view[1], 2);
	ck_assert_ptr_nonnull(j);
	ck_assert(j->in.elsewhere);
	ck_assert_ptr_nonnull(gq_pools_job(p, 6, &k));
	ck_assert_int_eq(k, 1);
	ck_assert_int_eq(gq_pools_find(p, 4), -1);
	ck_assert_int_eq(project(p->view[0], "team-a")->alloc, 2);
	ck_assert_int_eq(project(p->view[1], "team-b")->alloc, 8);
	ck_assert_int_eq(project(p->view[1], "team-a")->alloc, 0);
	gq_pools_free(p);
}
END_TEST

/* A started job's pool is its first partition's; a pending one's the
 * first it lists that is in a pool. */
START_TEST(pool_of_started_and_pending)
{
	gq_pools_t *p = two_pools();

	ck_assert_int_eq(gq_pass_pool(p, "h100,a100", false), 1);
	ck_assert_int_eq(gq_pass_pool(p, "cpu,a100", true), 0);
	ck_assert_int_eq(gq_pass_pool(p, "cpu,a100", false), -1);
	ck_assert_int_eq(gq_pass_pool(p, NULL, true), -1);
	gq_pools_free(p);
}
END_TEST

Suite *pass_input_suite(void)
{
	Suite *s = suite_create("pass_input");
	TCase *tc = tcase_create("fill");

	tcase_add_test(tc, capacity_and_node_groups);
	tcase_add_test(tc, jobs_into_their_pools);
	tcase_add_test(tc, pool_of_started_and_pending);
	suite_add_tcase(s, tc);
	return s;
}
