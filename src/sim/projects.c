/*
 * projects.c - a replay's figures per project (see projects.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/registry.h"
#include "sim/projects.h"

/* The config project of `account` as the plugins map it (the core's
 * registry: Slurm's spellings folded), -1 when no project lists it or out
 * of memory (*oom set). */
static int _project_in(gq_registry_t *reg, const gq_config_t *cfg,
		       const char *account, bool *oom)
{
	int p = gq_registry_project_of(reg, account);

	if (p < 0)
		*oom = true;
	return p >= 0 && p < cfg->nprojects ? p : -1;
}

int gq_sim_project_of(const gq_config_t *cfg, const char *account)
{
	gq_registry_t reg;
	bool oom = false;
	int p = -1;

	if (cfg && !gq_registry_init(&reg, cfg))
		p = _project_in(&reg, cfg, account, &oom);
	if (cfg)
		gq_registry_free(&reg);
	return p;
}

double gq_sim_project_quota(const gq_config_t *cfg, int p)
{
	const gq_project_cfg_t *x = &cfg->projects[p];
	double q = 0;
	int k;

	if (!cfg->npools)
		return x->gpu_quota;
	for (k = 0; k < cfg->npools; k++)
		q += x->by_pool[k].gpu_quota;
	return q;
}

/* Account x's project when no project lists it: its own, or with `fold`
 * the one "(others)" (made at the first such account). */
static void _unlisted(gq_sim_result_t *r, gq_sim_acct_t *x, bool fold)
{
	if (fold && r->others >= 0) {
		x->project = r->others;
		return;
	}
	x->project = r->nproj;
	r->proj[r->nproj].account = fold ? GQ_SIM_OTHERS : x->account;
	r->proj[r->nproj].project = r->nproj;
	if (fold)
		r->others = r->nproj;
	r->nproj++;
}

int gq_sim_projects_init(gq_sim_result_t *r, const gq_config_t *cfg,
			 bool fold)
{
	int np = cfg ? cfg->nprojects : 0, a, p;
	gq_registry_t reg;
	bool oom = false;

	r->others = -1;
	r->proj = calloc(np + r->nacct + 1, sizeof(*r->proj));
	if (!r->proj)
		return -1;
	for (p = 0; p < np; p++) {
		r->proj[p].account = cfg->projects[p].name;
		r->proj[p].quota = gq_sim_project_quota(cfg, p);
		r->proj[p].project = p;
	}
	r->nproj = np;
	if (cfg && gq_registry_init(&reg, cfg))
		oom = true;
	for (a = 0; !oom && a < r->nacct; a++) {
		gq_sim_acct_t *x = &r->acct[a];

		x->project = cfg ? _project_in(&reg, cfg, x->account, &oom) : -1;
		if (x->project < 0)
			_unlisted(r, x, fold && cfg);
	}
	if (cfg)
		gq_registry_free(&reg);
	return oom ? -1 : 0;
}

void gq_sim_below_quota(gq_sim_acct_t *x, int64_t dt)
{
	double demand = x->alloc + (double)x->pending;

	if (x->pending && x->alloc < (x->quota < demand ? x->quota : demand))
		x->below_secs += dt;
}

void gq_sim_projects_advance(gq_sim_result_t *r, int64_t dt)
{
	int a, p;

	for (p = 0; p < r->nproj; p++)
		r->proj[p].alloc = r->proj[p].pending = 0;
	for (a = 0; a < r->nacct; a++) {
		gq_sim_acct_t *x = &r->proj[r->acct[a].project];

		x->alloc += r->acct[a].alloc;
		x->pending += r->acct[a].pending;
	}
	for (p = 0; p < r->nproj; p++)
		gq_sim_below_quota(&r->proj[p], dt);
}

static int _by_wait(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

void gq_sim_wait_ranks(int64_t *w, size_t n, double *p50, double *p95)
{
	qsort(w, n, sizeof(*w), _by_wait);
	*p50 = n ? w[(n * 50 + 99) / 100 - 1] : 0;
	*p95 = n ? w[(n * 95 + 99) / 100 - 1] : 0;
}

/* The sums of each project's accounts.  O(A). */
static void _sums(gq_sim_result_t *r)
{
	int a;

	for (a = 0; a < r->nacct; a++) {
		const gq_sim_acct_t *x = &r->acct[a];
		gq_sim_acct_t *p = &r->proj[x->project];

		p->gpu_secs += x->gpu_secs;
		p->lost_secs += x->lost_secs;
		p->jobs += x->jobs;
		p->requeues += x->requeues;
		p->never_started += x->never_started;
	}
}

/* Each project's waits: its jobs' waits gathered by project (a counting
 * sort), each project's ranked.  O(J + projects + J log J). */
int gq_sim_projects_finish(gq_sim_result_t *r, size_t njobs)
{
	size_t *at = calloc(r->nproj + 1, sizeof(*at)), i;
	int64_t *w = calloc(njobs + 1, sizeof(*w));
	int p;

	if (!at || !w) {
		free(at);
		free(w);
		return -1;
	}
	_sums(r);
	for (i = 0; i < njobs; i++)
		at[r->acct[r->job[i].acct].project + 1]++;
	for (p = 0; p < r->nproj; p++)
		at[p + 1] += at[p];
	for (i = 0; i < njobs; i++)
		w[at[r->acct[r->job[i].acct].project]++] = r->job[i].wait;
	/* at[p] is now project p's end, p + 1's start */
	for (p = 0; p < r->nproj; p++) {
		size_t from = p ? at[p - 1] : 0;

		gq_sim_wait_ranks(w + from, at[p] - from, &r->proj[p].wait_p50,
				  &r->proj[p].wait_p95);
	}
	free(at);
	free(w);
	return 0;
}
