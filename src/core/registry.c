/*
 * registry.c - projects, departments and accounts (see registry.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/registry.h"

#define GQ_PROJECTS_MIN_CAP 8
#define GQ_SHOWN_NAME_MAX 64

static double _limit(int limit)
{
	return limit == GQ_NO_LIMIT ? INFINITY : (double)limit;
}

/*
 * The name shown for an account no project lists: Slurm without slurmdbd
 * takes any `-A` text, so every character outside a config name's
 * (letters, digits, '.', '_', '-') becomes '?', and it is cut at 64, so
 * that no account can break a log line, squeue's reason, the command's
 * table or a sacctmgr argument.  The account itself is kept as the key.
 */
static char *_shown_name(const char *account)
{
	size_t n = strlen(account), i;
	char *s;

	if (n > GQ_SHOWN_NAME_MAX)
		n = GQ_SHOWN_NAME_MAX;
	if (!(s = malloc(n + 1)))
		return NULL;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)account[i];

		s[i] = gq_config_name_char(c) ? (char)c : '?';
	}
	s[n] = '\0';
	return s;
}

static int _add_project(gq_registry_t *r, const char *name, double quota,
			double weight, double limit, int dept, bool configured)
{
	gq_project_t *p;

	if (r->nproj == r->proj_cap) {
		int ncap = r->proj_cap ? r->proj_cap * 2 : GQ_PROJECTS_MIN_CAP;
		gq_project_t *np = realloc(r->proj, sizeof(*np) * ncap);

		if (!np)
			return -1;
		r->proj = np;
		r->proj_cap = ncap;
	}
	p = &r->proj[r->nproj];
	memset(p, 0, sizeof(*p));
	if (!(p->name = configured ? strdup(name) : _shown_name(name)))
		return -1;
	p->quota = quota;
	p->weight = weight;
	p->limit = limit;
	p->department = dept;
	p->configured = configured;
	return r->nproj++;
}

int gq_registry_init(gq_registry_t *r, const gq_config_t *cfg)
{
	int i, j;

	memset(r, 0, sizeof(*r));
	gq_hash_init(&r->accounts, &gq_hash_names);
	gq_hash_init(&r->depts, &gq_hash_names);
	gq_hash_init(&r->tree, &gq_hash_names);
	if (cfg->ndepts && !(r->dept = calloc(cfg->ndepts, sizeof(*r->dept))))
		return -1;
	for (i = 0; i < cfg->ndepts; i++) {
		const gq_dept_cfg_t *dc = &cfg->depts[i];

		r->ndept = i + 1;
		if (!(r->dept[i].name = strdup(dc->name)) ||
		    gq_hash_put(&r->depts, gq_key_str(dc->name), i))
			return -1;
		r->dept[i].quota = dc->gpu_quota;
		r->dept[i].weight = dc->over_quota_weight;
		r->dept[i].limit = _limit(dc->gpu_limit);
	}
	for (i = 0; i < cfg->nprojects; i++) {
		const gq_project_cfg_t *pc = &cfg->projects[i];
		int idx = _add_project(r, pc->name, pc->gpu_quota,
				       pc->over_quota_weight,
				       _limit(pc->gpu_limit), pc->department,
				       true);

		if (idx < 0)
			return -1;
		for (j = 0; j < pc->naccounts; j++)
			if (gq_hash_put(&r->accounts,
					gq_key_str(pc->accounts[j]), idx))
				return -1;
	}
	return 0;
}

void gq_registry_free(gq_registry_t *r)
{
	int i;

	for (i = 0; i < r->nproj; i++)
		free(r->proj[i].name);
	free(r->proj);
	for (i = 0; i < r->ndept; i++)
		free(r->dept[i].name);
	free(r->dept);
	gq_hash_free(&r->accounts);
	gq_hash_free(&r->depts);
	gq_hash_free(&r->tree);
	memset(r, 0, sizeof(*r));
}

int gq_registry_find(const gq_registry_t *r, const char *account)
{
	return gq_hash_get(&r->accounts, gq_key_str(account ? account : ""));
}

int gq_registry_project_of(gq_registry_t *r, const char *account)
{
	int idx, dept;

	if (!account)
		account = "";
	if ((idx = gq_hash_get(&r->accounts, gq_key_str(account))) >= 0)
		return idx;
	dept = gq_hash_get(&r->tree, gq_key_str(account));
	idx = _add_project(r, account, 0, 1, INFINITY, dept, false);
	if (idx < 0 || gq_hash_put(&r->accounts, gq_key_str(account), idx))
		return -1;
	r->proj[idx].dept_from_tree = dept >= 0;
	return idx;
}

int gq_registry_account_parent(gq_registry_t *r, const char *account,
			       const char *parent)
{
	int d = parent ? gq_hash_get(&r->depts, gq_key_str(parent)) : -1;
	int p = gq_hash_get(&r->accounts, gq_key_str(account));
	gq_project_t *pr;

	/* remember the tree's answer, also "no department" once it had one */
	if ((d >= 0 || gq_hash_get(&r->tree, gq_key_str(account)) >= 0) &&
	    gq_hash_put(&r->tree, gq_key_str(account), d))
		return -1;
	if (p < 0)
		return 0;
	pr = &r->proj[p];
	if (pr->department >= 0 && !pr->dept_from_tree)
		return 0;	/* the config says where it belongs */
	pr->department = d;
	pr->dept_from_tree = d >= 0;
	return 0;
}

void gq_registry_reset(gq_registry_t *r)
{
	int i;

	for (i = 0; i < r->nproj; i++) {
		gq_project_t *p = &r->proj[i];

		p->alloc = p->at_risk = 0;
		p->pending = 0;
		p->deserved = p->share = 0;
		memset(&p->tail, 0, sizeof(p->tail));
		p->quota_out = p->quota;
		p->room_void = false;
	}
	for (i = 0; i < r->ndept; i++) {
		r->dept[i].alloc = r->dept[i].at_risk = 0;
		r->dept[i].demand = r->dept[i].share = 0;
		memset(&r->dept[i].tail, 0, sizeof(r->dept[i].tail));
	}
	r->idle = 0;
}

bool gq_registry_outsider(const gq_registry_t *r, int victim_project,
			  int preemptor_project)
{
	int d = r->proj[victim_project].department;

	return d >= 0 && d != r->proj[preemptor_project].department;
}
