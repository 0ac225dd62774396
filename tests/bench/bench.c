/*
 * bench.c - speed of the hot path on synthetic clusters of growing size:
 * one pass (O(J log J)), the pass with node placement and room-making on
 * a full cluster with oversubscribed quotas (also at 200 000 jobs, as the
 * plugin's pass always has placement), and gq_view_preemptable()
 * (O(1)).  Reports time per pass and per call, and under each pass where
 * its time went (adding the jobs, each step of the pass); not a test,
 * nothing is asserted (speed is measured, never asserted: machines are
 * noisy).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/view.h"
#include "core/view_steps.h"	/* gq_pass_steps (-DGQ_PASS_STEPS) */

/* rounds of each pass: the minimum is the least disturbed by other work
 * on a shared machine, the median says how disturbed */
#define ROUNDS 7

/* this thread's CPU time: a busy machine slows the pass less than the
 * wall clock suggests */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* nproj projects of quota `quota` (accounts proj-N), ndept departments */
static gq_view_t *make_view(int nproj, int quota, int ndept, char ***names)
{
	gq_project_cfg_t *p = calloc(nproj, sizeof(*p));
	gq_dept_cfg_t *d = calloc(ndept + 1, sizeof(*d));
	gq_config_t cfg = { 0 };
	gq_view_t *v;
	int i;

	*names = calloc(nproj + ndept, sizeof(**names));
	for (i = 0; i < ndept; i++) {
		(*names)[nproj + i] = malloc(32);
		snprintf((*names)[nproj + i], 32, "dept-%d", i);
		d[i].name = (*names)[nproj + i];
		d[i].gpu_quota = quota * nproj / ndept / 2;
		d[i].over_quota_weight = 1;
		d[i].gpu_limit = GQ_NO_LIMIT;
	}
	for (i = 0; i < nproj; i++) {
		(*names)[i] = malloc(32);
		snprintf((*names)[i], 32, "proj-%d", i);
		p[i].name = (*names)[i];
		p[i].gpu_quota = quota;
		p[i].over_quota_weight = 1 + i % 3;
		p[i].gpu_limit = GQ_NO_LIMIT;
		p[i].department = ndept && i % 2 ? i % ndept : -1;
		p[i].accounts = &(*names)[i];
		p[i].naccounts = 1;
	}
	cfg.projects = p;
	cfg.nprojects = nproj;
	cfg.depts = d;
	cfg.ndepts = ndept;
	v = gq_view_create(&cfg);
	free(p);
	free(d);
	return v;
}

static void free_names(char **names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Where a pass' time goes: adding the jobs, then each step of
 * gq_view_compute (view_steps.h), the minimum of each over the rounds.
 * Built without -DGQ_PASS_STEPS (not `make bench`): nothing.
 */
typedef struct {
	double add[ROUNDS], step[GQ_NSTEPS][ROUNDS];
} steps_t;

static void steps_note(steps_t *s, int round, double add)
{
	s->add[round] = add;
#ifdef GQ_PASS_STEPS
	for (int i = 0; i < GQ_NSTEPS; i++)
		s->step[i][round] = gq_pass_steps[i];
#endif
}

static double min_of(const double *t)
{
	double m = t[0];

	for (int r = 1; r < ROUNDS; r++)
		if (t[r] < m)
			m = t[r];
	return m;
}

static void steps_print(const steps_t *s)
{
	static const char *name[GQ_NSTEPS] = {
		"group", "demand", "share", "walk", "reclaim", "room"
	};

	printf("         steps, min of %d rounds (ms): add %.2f", ROUNDS,
	       min_of(s->add) * 1e3);
#ifdef GQ_PASS_STEPS
	for (int i = 0; i < GQ_NSTEPS; i++)
		printf(", %s %.2f", name[i], min_of(s->step[i]) * 1e3);
#else
	(void)name;
#endif
	printf("\n");
}

/* min and median of n timings (sorts them) */
static void min_median(double *t, int n, double *min, double *median)
{
	qsort(t, n, sizeof(*t), cmp_double);
	*min = t[0];
	*median = t[n / 2];
}

/*
 * One pass over njobs jobs of nproj projects (a third pending), the jobs
 * made beforehand so that only the pass is timed: adding them, then
 * gq_view_compute.  Reports the minimum and median of the rounds.
 */
static void bench(int nproj, int njobs)
{
	char **names;
	gq_view_t *v = make_view(nproj, 8, 0, &names);
	gq_job_in_t *jobs = malloc(sizeof(*jobs) * njobs);
	int *owner = malloc(sizeof(*owner) * njobs);
	double t[ROUNDS], t0, t1, t_min, t_med, t_call;
	int i, r, calls = 2000000;
	steps_t steps;
	volatile int sink = 0;

	srand(42);
	for (i = 0; i < njobs; i++) {
		jobs[i] = (gq_job_in_t){
			.id = i + 1,
			.state = (i % 3) ? GQ_JOB_RUNNING : GQ_JOB_PENDING,
			.gpus = 1 + rand() % 4, .tasks = 1,
			.requeueable = true, .submit_time = i,
			.start_time = i,
		};
		owner[i] = rand() % nproj;
	}
	for (r = 0; r < ROUNDS; r++) {
		t0 = now_s();
		gq_view_begin(v, nproj * 8.0, 100000);
		for (i = 0; i < njobs; i++)
			gq_view_add_job(v, names[owner[i]], &jobs[i]);
		t1 = now_s();
		if (gq_view_compute(v))
			fprintf(stderr, "bench: pass failed\n");
		t[r] = now_s() - t0;
		steps_note(&steps, r, t1 - t0);
	}
	min_median(t, ROUNDS, &t_min, &t_med);
	t0 = now_s();
	for (i = 0; i < calls; i++)
		sink += gq_view_preemptable(v, 1 + rand() % njobs,
					    1 + rand() % njobs);
	t_call = (now_s() - t0) / calls;
	printf("%6d projects %8d jobs:                       pass %8.2f ms (median %8.2f, %4.0f ns/job)  preemptable %4.0f ns/call\n",
	       nproj, njobs, t_min * 1e3, t_med * 1e3, t_min * 1e9 / njobs,
	       t_call * 1e9);
	steps_print(&steps);
	gq_view_free(v);
	free_names(names, nproj);
	free(jobs);
	free(owner);
	(void)sink;
}

/*
 * A full cluster with placement: every GPU runs a 1-GPU job, npend 1-GPU
 * jobs pend asking for one GPU on one node (room-making applies), quotas
 * `quota` each (oversubscribed when nproj x quota > C), ndept departments.
 */
static void bench_room(int nproj, int quota, int ndept, int nnodes, int gpn,
		       int npend)
{
	char **names;
	gq_view_t *v = make_view(nproj, quota, ndept, &names);
	int i, n, id = 1, nrun = nnodes * gpn;
	double t[ROUNDS], t0, t1, t_min, t_med;
	steps_t steps;

	for (int r = 0; r < ROUNDS; r++) {
		t0 = now_s();
		id = 1;
		gq_view_begin(v, nrun, 100000);
		gq_view_set_nodes(v, nnodes);
		for (n = 0; n < nnodes; n++)
			for (i = 0; i < gpn; i++, id++) {
				gq_job_in_t in = {
					.id = id, .state = GQ_JOB_RUNNING,
					.gpus = 1, .tasks = 1,
					.requeueable = true,
					.submit_time = id, .start_time = id,
				};

				gq_view_add_job(v, names[id % nproj], &in);
				gq_view_place(v, id, n, 1);
			}
		for (i = 0; i < npend; i++, id++) {
			gq_job_in_t in = {
				.id = id, .state = GQ_JOB_PENDING, .gpus = 1,
				.tasks = 1, .requeueable = true,
				.submit_time = id, .gpus_per_node = 1,
				.nodes = 1,
			};

			gq_view_add_job(v, names[id % nproj], &in);
		}
		t1 = now_s();
		if (gq_view_compute(v))
			fprintf(stderr, "bench: pass failed\n");
		t[r] = now_s() - t0;
		steps_note(&steps, r, t1 - t0);
	}
	min_median(t, ROUNDS, &t_min, &t_med);
	printf("%6d projects %2d depts, quota %4d, %4d nodes x %d GPUs, %6d running, %6d pending: pass %8.2f ms (median %8.2f)\n",
	       nproj, ndept, quota, nnodes, gpn, nrun, npend, t_min * 1e3,
	       t_med * 1e3);
	steps_print(&steps);
	gq_view_free(v);
	free_names(names, nproj + ndept);
}

/* `bench plain` or `bench room` runs one half (for profiling) */
int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : "";

	if (strcmp(only, "room")) {
		bench(10, 1000);
		bench(100, 10000);
		bench(100, 100000);
		bench(1000, 200000);
	}
	if (strcmp(only, "plain")) {
		/* with placement: quotas sum to C, then oversubscribed 2x, 10x */
		bench_room(100, 80, 0, 1000, 8, 20000);
		bench_room(100, 160, 0, 1000, 8, 20000);
		bench_room(100, 800, 0, 1000, 8, 20000);
		bench_room(100, 160, 10, 1000, 8, 20000);
		/*
		 * 200 000 jobs as slurmctld holds them: the plugin always
		 * reads placement, so its pass makes room too (the plain
		 * case above has 133 000 running jobs, more than any
		 * cluster of its 8 000 GPUs could place): 2 000 nodes x 8
		 * GPUs full, the rest pending; quotas sum to C, then 2x
		 */
		bench_room(1000, 16, 0, 2000, 8, 184000);
		bench_room(1000, 32, 0, 2000, 8, 184000);
	}
	return 0;
}
