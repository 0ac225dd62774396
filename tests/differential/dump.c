/*
 * dump.c - every answer of the core on seeded random passes, printed, so
 * that two versions of the core can be compared answer by answer
 * (tests/differential/run.sh): a change meant to be faster only must
 * print the same.  Random clusters (every other case nearly full),
 * projects in and out of departments, unlisted accounts, node groups,
 * running jobs placed on nodes, pending jobs of any shape (multi-node,
 * arrays, waiting); per pass: each job's band, A, key, priority, hold,
 * tasks_now, demand, room, candidate bits, over-quota mark and reclaim
 * rank, every pair preemptable(), each project's numbers, and
 * preemptable() again after a job is gone between passes.
 * Usage: dump [CASES [FIRST_SEED]]: case k has seed FIRST_SEED + k, so
 * `dump 1 SEED` replays one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/view.h"

#define MAXP 8
#define MAXD 3
#define MAXJ 200

static unsigned seed;

static int rnd(int n)
{
	return rand_r(&seed) % n;
}

typedef struct {
	gq_project_cfg_t p[MAXP];
	gq_dept_cfg_t d[MAXD];
	char names[MAXP][16], dnames[MAXD][16];
	char *acc[MAXP];
	gq_config_t cfg;
	int nnodes, gpn;
} world_t;

static void make_config(world_t *w)
{
	int nproj = 1 + rnd(MAXP), ndept = rnd(MAXD), c = w->nnodes * w->gpn;

	memset(&w->cfg, 0, sizeof(w->cfg));
	for (int i = 0; i < ndept; i++) {
		snprintf(w->dnames[i], sizeof(w->dnames[i]), "d%d", i);
		w->d[i] = (gq_dept_cfg_t){
			.name = w->dnames[i],
			.gpu_quota = rnd(3 * c / 2 + 1),
			.over_quota_weight = 1 + rnd(3),
			.gpu_limit = rnd(4) ? GQ_NO_LIMIT : rnd(c + 1),
		};
	}
	for (int i = 0; i < nproj; i++) {
		/* short names and names longer than one word */
		snprintf(w->names[i], sizeof(w->names[i]),
			 rnd(2) ? "p%d" : "Proj-long-%d", i);
		w->acc[i] = w->names[i];
		w->p[i] = (gq_project_cfg_t){
			.name = w->names[i],
			.gpu_quota = rnd(c / 2 + 2),
			.over_quota_weight = 1 + rnd(3),
			.gpu_limit = rnd(4) ? GQ_NO_LIMIT : rnd(c + 1),
			.department = ndept && rnd(2) ? rnd(ndept) : -1,
			.accounts = &w->acc[i],
			.naccounts = 1,
		};
	}
	w->cfg.projects = w->p;
	w->cfg.nprojects = nproj;
	w->cfg.depts = w->d;
	w->cfg.ndepts = ndept;
	w->cfg.settings.min_runtime = rnd(3) ? 0 : 30;
}

static const char *account(world_t *w)
{
	if (rnd(10))
		return w->names[rnd(w->cfg.nprojects)];
	return rnd(2) ? "stray" : "";	/* unlisted, and the empty one */
}

/* running jobs placed on nodes; their ids in ids[], returns how many */
static int add_running(world_t *w, gq_view_t *v, int full, uint32_t *id,
		       uint32_t *ids)
{
	int used[16] = { 0 }, n = 0;

	for (int i = 0; i < w->nnodes * (full ? 8 : 3); i++) {
		int node = rnd(w->nnodes);
		uint32_t g = 1 + rnd(w->gpn);
		gq_job_in_t in = { 0 };

		if (used[node] + (int)g > w->gpn)
			continue;
		used[node] += g;
		in.id = *id;
		in.state = GQ_JOB_RUNNING;
		in.gpus = g;
		in.tasks = 1;
		in.requeueable = rnd(5) != 0;
		in.order = rnd(3);
		in.start_time = in.submit_time = 1000 - rnd(100);
		in.at_risk = rnd(20) == 0;
		if (gq_view_add_job(v, account(w), &in)) {
			gq_view_place(v, in.id, node, g);
			ids[n++] = in.id;
		}
		*id += 1 + rnd(3);
	}
	for (int node = 0; node < w->nnodes; node++)
		gq_view_node_free(v, node, w->gpn - used[node]);
	return n;
}

static int add_pending(world_t *w, gq_view_t *v, int full, int ngroups,
		       uint32_t *id, uint32_t *ids, int n)
{
	int npend = rnd(40);

	for (int i = 0; i < npend && n < MAXJ; i++) {
		gq_job_in_t in = { 0 };

		in.id = *id;
		in.state = rnd(6) ? GQ_JOB_PENDING : GQ_JOB_WAITING;
		in.begins_later = in.state == GQ_JOB_WAITING && rnd(2);
		in.gpus = rnd(8) ? 1 + rnd(w->gpn) : 0;
		in.tasks = rnd(5) ? 1 : 2 + rnd(3);
		if (in.tasks > 1 && rnd(2))
			in.tasks_at_once = 1 + rnd(2);
		in.requeueable = rnd(4) != 0;
		in.order = rnd(3);
		in.submit_time = 1000 - rnd(50);
		if ((full || rnd(3)) && in.gpus) {
			in.nodes = 1 + rnd(2);
			in.gpus_per_node = (in.gpus + in.nodes - 1) / in.nodes;
			if (in.gpus_per_node > (uint32_t)w->gpn)
				in.gpus_per_node = w->gpn;
		}
		if (ngroups && rnd(2))
			in.node_group = 1 + rnd(ngroups);
		if (gq_view_add_job(v, rnd(10) ? w->names[rnd(w->cfg.nprojects)] :
					    "stray", &in))
			ids[n++] = in.id;
		*id += 1 + rnd(3);
	}
	return n;
}

static void print_pairs(const gq_view_t *v, const uint32_t *ids, int n,
			char tag)
{
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++)
			if (gq_view_preemptable(v, ids[a], ids[b]))
				printf("%c%u<-%u ", tag, ids[a], ids[b]);
	printf("\n");
}

static void print_pass(const gq_view_t *v, const uint32_t *ids, int n)
{
	for (int k = 0; k < n; k++) {
		const gq_job_t *j = gq_view_job(v, ids[k]);

		printf("j%u p%d b%d cum%.6g key%.6g pr%u h%d w%u tn%u d%d r%d v%d ch%d oq%d rank%u\n",
		       j->in.id, j->project, j->band, j->cum, j->key,
		       j->priority, j->hold, j->waits_for, j->tasks_now,
		       j->demand, j->room, j->victim, j->chain, j->over_quota,
		       gq_view_preempt_rank(v, ids[k]));
	}
	print_pairs(v, ids, n, 'P');
	for (int i = 0; i < gq_view_nprojects(v); i++) {
		const gq_project_t *q = gq_view_project(v, i);

		printf("proj %s a%u pend%lu sh%.6g qo%.6g\n", q->name, q->alloc,
		       (unsigned long)q->pending, q->share, q->quota_out);
	}
}

int main(int argc, char **argv)
{
	int cases = argc > 1 ? atoi(argv[1]) : 1000;
	unsigned first = argc > 2 ? (unsigned)atoi(argv[2]) : 1000;

	for (int c = 0; c < cases; c++) {
		world_t w;
		unsigned case_seed = first + (unsigned)c;
		uint32_t ids[MAXJ], id;
		int n, ngroups, full = case_seed % 2;
		gq_view_t *v;

		seed = case_seed;
		w.nnodes = 1 + rnd(10);
		w.gpn = 1 + rnd(8);
		make_config(&w);
		if (!(v = gq_view_create(&w.cfg)))
			return 1;
		gq_view_begin(v, w.nnodes * w.gpn, 1000);
		gq_view_set_nodes(v, w.nnodes);
		if ((ngroups = rnd(3))) {
			gq_view_set_groups(v, ngroups);
			for (int node = 0; node < w.nnodes; node++)
				for (int g = 1; g <= ngroups; g++)
					if (rnd(2))
						gq_view_node_group(v, node, g);
		}
		id = 1 + rnd(5);
		n = add_running(&w, v, full, &id, ids);
		n = add_pending(&w, v, full, ngroups, &id, ids, n);
		printf("case %u rc %d\n", case_seed, gq_view_compute(v));
		print_pass(v, ids, n);
		if (n) {	/* a job gone between passes */
			gq_view_job_gone(v, ids[rnd(n)]);
			print_pairs(v, ids, n, 'G');
		}
		gq_view_free(v);
	}
	return 0;
}
