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
	free(r->spelled);
	memset(r, 0, sizeof(*r));
}

int gq_registry_find(const gq_registry_t *r, const char *account)
{
	return gq_hash_get(&r->accounts, gq_key_str(account ? account : ""));
}

/* The project of an account, by its case-folded name, made when new. */
static int _project_of(gq_registry_t *r, const char *account)
{
	int idx, dept;

	if ((idx = gq_hash_get(&r->accounts, gq_key_str(account))) >= 0)
		return idx;
	dept = gq_hash_get(&r->tree, gq_key_str(account));
	idx = _add_project(r, account, 0, 1, INFINITY, dept, false);
	if (idx < 0 || gq_hash_put(&r->accounts, gq_key_str(account), idx))
		return -1;
	r->proj[idx].dept_from_tree = dept >= 0;
	return idx;
}

/*
 * The exact spellings seen, open addressing kept at most half full: the
 * name inline (names of GQ_SPELLED_MAX bytes or more are not kept: they
 * take the case-folding table every time) and its hash, compared first.
 */
#define GQ_SPELLED_MAX 24
#define GQ_SPELLED_MIN_CAP 64

struct gq_spelled {
	uint32_t hash;
	int project;		/* -1: a free slot */
	char name[GQ_SPELLED_MAX];
};

/* FNV-1a of the bytes as they are, and their length */
static uint32_t _spelled_hash(const char *s, size_t *len)
{
	const char *p = s;
	uint64_t h = 14695981039346656037ULL;

	while (*p) {
		h ^= (unsigned char)*p++;
		h *= 1099511628211ULL;
	}
	*len = p - s;
	return (uint32_t)(h ^ (h >> 32));
}

static bool _same(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/* The slot of a name, or the free slot where it would go. */
static struct gq_spelled *_spelled_slot(const gq_registry_t *r,
					const char *s, uint32_t h)
{
	uint32_t mask = r->spelled_cap - 1, i = h & mask;

	while (r->spelled[i].project >= 0 &&
	       (r->spelled[i].hash != h || !_same(r->spelled[i].name, s)))
		i = (i + 1) & mask;
	return &r->spelled[i];
}

/* Keep a spelling; without memory it is simply not kept. */
static void _spelled_put(gq_registry_t *r, const char *s, uint32_t h,
			 size_t len, int project)
{
	struct gq_spelled *slot;

	if (len >= GQ_SPELLED_MAX)
		return;
	if ((r->spelled_count + 1) * 2 > r->spelled_cap) {
		uint32_t ncap = r->spelled_cap ? 2 * r->spelled_cap :
						 GQ_SPELLED_MIN_CAP, i;
		struct gq_spelled *old = r->spelled, *n;

		if (!(n = malloc(sizeof(*n) * ncap)))
			return;
		for (i = 0; i < ncap; i++)
			n[i].project = -1;
		r->spelled = n;
		i = r->spelled_cap;
		r->spelled_cap = ncap;
		while (i-- > 0)
			if (old[i].project >= 0)
				*_spelled_slot(r, old[i].name, old[i].hash) =
					old[i];
		free(old);
	}
	slot = _spelled_slot(r, s, h);
	if (slot->project < 0)
		r->spelled_count++;
	slot->hash = h;
	slot->project = project;
	memcpy(slot->name, s, len + 1);
}

/* O(1): its exact spelling (one probe), else _project_of */
int gq_registry_project_of(gq_registry_t *r, const char *account)
{
	size_t len;
	uint32_t h;
	int idx;

	if (!account)
		account = "";
	h = _spelled_hash(account, &len);
	if (r->spelled_cap) {
		const struct gq_spelled *slot = _spelled_slot(r, account, h);

		if (slot->project >= 0)
			return slot->project;
	}
	if ((idx = _project_of(r, account)) >= 0)
		_spelled_put(r, account, h, len, idx);
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

		p->alloc = 0;
		p->pending = 0;
		p->deserved = p->share = 0;
		memset(&p->tail, 0, sizeof(p->tail));
		p->quota_out = p->quota;
		p->room_void = false;
	}
	for (i = 0; i < r->ndept; i++) {
		r->dept[i].alloc = 0;
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
