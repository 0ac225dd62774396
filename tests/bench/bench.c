/*
 * bench.c - speed of the hot path: one pass (O(J log J)) and
 * gq_view_preemptable() (O(1)) on synthetic clusters of growing size.
 * Reports time per pass and per call; not a test, nothing is asserted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/view.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void bench(int nproj, int njobs)
{
	gq_project_cfg_t *p = calloc(nproj, sizeof(*p));
	char **names = calloc(nproj, sizeof(*names));
	gq_config_t cfg = { 0 };
	gq_view_t *v;
	double t0, t_pass, t_call;
	int i, rounds = 5, calls = 2000000;
	volatile int sink = 0;

	for (i = 0; i < nproj; i++) {
		names[i] = malloc(32);
		snprintf(names[i], 32, "proj-%d", i);
		p[i].name = names[i];
		p[i].gpu_quota = 8;
		p[i].over_quota_weight = 1 + i % 3;
		p[i].gpu_limit = GQ_NO_LIMIT;
		p[i].department = -1;
		p[i].accounts = &names[i];
		p[i].naccounts = 1;
	}
	cfg.projects = p;
	cfg.nprojects = nproj;
	v = gq_view_create(&cfg);
	srand(42);
	t0 = now_s();
	for (int r = 0; r < rounds; r++) {
		gq_view_begin(v, nproj * 8.0, 100000);
		for (i = 0; i < njobs; i++) {
			gq_job_t *j = gq_view_add_job(v, i + 1, names[rand() % nproj]);

			j->state = (i % 3) ? GQ_JOB_RUNNING : GQ_JOB_PENDING;
			j->gpus = 1 + rand() % 4;
			j->tasks = 1;
			j->requeueable = true;
			j->submit_time = i;
			j->start_time = i;
		}
		gq_view_compute(v);
	}
	t_pass = (now_s() - t0) / rounds;
	t0 = now_s();
	for (i = 0; i < calls; i++)
		sink += gq_view_preemptable(v, 1 + rand() % njobs,
					    1 + rand() % njobs);
	t_call = (now_s() - t0) / calls;
	printf("%6d projects %8d jobs: pass %8.2f ms (%6.0f ns/job)  preemptable %5.0f ns/call\n",
	       nproj, njobs, t_pass * 1e3, t_pass * 1e9 / njobs, t_call * 1e9);
	gq_view_free(v);
	for (i = 0; i < nproj; i++)
		free(names[i]);
	free(names);
	free(p);
	(void)sink;
}

int main(void)
{
	bench(10, 1000);
	bench(100, 10000);
	bench(100, 100000);
	bench(1000, 200000);
	return 0;
}
