/*
 * helpers.c - see helpers.h.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "state/state.h"
#include "helpers.h"

gq_project_cfg_t proj(const char *name, int quota, double weight, int limit)
{
	gq_project_cfg_t p;
	static char *acct[64];
	static int n;

	memset(&p, 0, sizeof(p));
	p.name = (char *)name;
	p.gpu_quota = quota;
	p.over_quota_weight = weight;
	p.gpu_limit = limit;
	p.department = -1;
	acct[n % 64] = (char *)name;
	p.accounts = &acct[n++ % 64];
	p.naccounts = 1;
	return p;
}

gq_dept_cfg_t dept(const char *name, int quota, int limit)
{
	gq_dept_cfg_t d = { .name = (char *)name, .gpu_quota = quota,
			    .over_quota_weight = 1, .gpu_limit = limit };

	return d;
}

gq_view_t *view_of(gq_project_cfg_t *p, int np, gq_dept_cfg_t *d, int nd)
{
	gq_config_t cfg = { .projects = p, .nprojects = np, .depts = d,
			    .ndepts = nd };
	gq_view_t *v = gq_view_create(&cfg);

	ck_assert_ptr_nonnull(v);
	return v;
}

gq_view_t *view2(const char *a, int qa, const char *b, int qb,
		 int min_runtime)
{
	gq_project_cfg_t p[2] = { proj(a, qa, 1, GQ_NO_LIMIT),
				  proj(b, qb, 1, GQ_NO_LIMIT) };
	gq_config_t cfg = { .projects = p, .nprojects = 2 };

	cfg.settings.min_runtime = min_runtime;
	cfg.settings.recompute_interval = 2;
	return gq_view_create(&cfg);
}

gq_job_in_t running(uint32_t id, uint32_t gpus, int64_t start)
{
	gq_job_in_t in = { .id = id, .state = GQ_JOB_RUNNING, .gpus = gpus,
			   .tasks = 1, .requeueable = true,
			   .start_time = start };	/* no time limit */

	return in;
}

gq_job_in_t pending(uint32_t id, uint32_t gpus, int64_t submit)
{
	gq_job_in_t in = { .id = id, .state = GQ_JOB_PENDING, .gpus = gpus,
			   .tasks = 1, .requeueable = true,
			   .submit_time = submit };

	return in;
}

gq_job_in_t no_requeue(gq_job_in_t in)
{
	in.requeueable = false;
	return in;
}

gq_job_in_t with_order(gq_job_in_t in, int64_t order)
{
	in.order = order;
	return in;
}

gq_job_in_t with_tasks(gq_job_in_t in, uint32_t tasks)
{
	in.tasks = tasks;
	return in;
}

gq_job_in_t shaped(gq_job_in_t in, uint32_t gpus_per_node, uint32_t nodes)
{
	in.gpus_per_node = gpus_per_node;
	in.nodes = nodes;
	return in;
}

const gq_job_t *add(gq_view_t *v, const char *acct, gq_job_in_t in)
{
	const gq_job_t *j = gq_view_add_job(v, acct, &in);

	ck_assert_ptr_nonnull(j);
	return j;
}

const gq_job_t *run(gq_view_t *v, uint32_t id, const char *acct,
		    uint32_t gpus, int64_t start)
{
	return add(v, acct, running(id, gpus, start));
}

const gq_job_t *pend(gq_view_t *v, uint32_t id, const char *acct,
		     uint32_t gpus, int64_t submit)
{
	return add(v, acct, pending(id, gpus, submit));
}

const gq_project_t *project(gq_view_t *v, const char *acct)
{
	return gq_view_project(v, gq_view_find_project(v, acct));
}

char *write_temp(const char *text)
{
	char *path = strdup("/tmp/gq-test-XXXXXX");
	int fd = mkstemp(path);
	FILE *f;

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

char *state_with(const char *json)
{
	char *path = write_temp(json);
	char err[GQ_ERR_MAX];

	gq_state_lock();
	ck_assert_msg(gq_state_load(path, err, sizeof(err)) == 0, "%s", err);
	return path;
}

void state_done(char *path)
{
	gq_state_clear();
	gq_state_unlock();
	unlink(path);
	free(path);
}

void two_nodes_at(gq_view_t *v, uint32_t total, int64_t now, uint32_t free0,
		  uint32_t free1)
{
	gq_view_begin(v, total, now);
	ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
	gq_view_node_free(v, 0, free0);
	gq_view_node_free(v, 1, free1);
}

void two_nodes(gq_view_t *v, uint32_t total, uint32_t free0, uint32_t free1)
{
	two_nodes_at(v, total, 100, free0, free1);
}

void add_placed(gq_view_t *v, const placed_t *r, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		gq_job_in_t in = running(r[i].id, r[i].gpus, 10 + r[i].id);

		in.ends_by = r[i].ends;
		add(v, r[i].acct, in);
		ck_assert_int_eq(gq_view_place(v, r[i].id, r[i].node,
					       r[i].gpus), 0);
	}
}
