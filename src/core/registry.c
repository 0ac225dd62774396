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

/* An account's identity: its name in lower case, as Slurm keeps it. */
static char *_folded(const char *account)
{
	char *s = strdup(account);
	size_t i;

	for (i = 0; s && s[i]; i++)
		if (s[i] >= 'A' && s[i] <= 'Z')
			s[i] = (char)(s[i] - 'A' + 'a');
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
	if (!configured && !(p->account = _folded(name))) {
		free(p->name);
		return -1;
	}
	p->quota = quota;
	p->weight = weight;
	p->tilt = 1;
	p->limit = limit;
	p->department = dept;
	p->configured = configured;
	p->budget = r->default_budget;
	return r->nproj++;
}

int gq_registry_init(gq_registry_t *r, const gq_config_t *cfg)
{
	int i, j;

	memset(r, 0, sizeof(*r));
	r->default_budget = cfg->settings.requeue_budget;
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
		if (pc->requeue_budget != GQ_UNSET)
			r->proj[idx].budget = pc->requeue_budget;
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

	for (i = 0; i < r->nproj; i++) {
		free(r->proj[i].name);
		free(r->proj[i].account);
	}
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
 * The exact spellings seen, open addressing kept at most a quarter full
 * (a probe that misses costs a mispredicted branch): the name inline,
 * zero-padded to three words (names of GQ_SPELLED_MAX bytes or more are
 * not kept: they take the case-folding table every time), and its hash,
 * compared first.  A name has no NUL inside, so two zero-padded names are
 * the same name exactly when their words are equal: no byte loop, no
 * memcmp.
 */
#define GQ_SPELLED_MAX 24
#define GQ_SPELLED_WORDS (GQ_SPELLED_MAX / 8)
#define GQ_SPELLED_MIN_CAP 64

struct gq_spelled {
	uint64_t w[GQ_SPELLED_WORDS];	/* the name, zero-padded */
	uint32_t hash;
	int project;		/* -1: a free slot */
};

/* A name as three zero-padded words, when it is short enough to keep */
typedef struct {
	uint64_t w[GQ_SPELLED_WORDS];
	uint32_t hash;
	bool kept;		/* shorter than GQ_SPELLED_MAX */
} gq_spelling_t;

static inline uint64_t _load8(const char *s)
{
	uint64_t w;

	memcpy(&w, s, sizeof(w));
	return w;
}

static inline uint64_t _load4(const char *s)
{
	uint32_t w;

	memcpy(&w, s, sizeof(w));
	return w;
}

/*
 * The words of a name of n < GQ_SPELLED_MAX bytes, zero-padded, as a copy
 * of its bytes into them would make them: on a little-endian machine
 * read as whole words, the last part word from the 8 bytes that end the
 * name (or, in a name under 8 bytes, from two 4-byte reads, or its
 * bytes) shifted down, so that no byte after the name is read and no
 * word is read back from a byte copy (a stall per name).
 */
static void _words(const char *s, size_t n, uint64_t *w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	size_t full = n / 8, r = n % 8, i;

	w[0] = w[1] = w[2] = 0;
	for (i = 0; i < full; i++)
		w[i] = _load8(s + 8 * i);
	if (!r)
		return;
	if (full)
		w[full] = _load8(s + n - 8) >> (8 * (8 - r));
	else if (r >= 4)
		w[0] = _load4(s) | _load4(s + r - 4) << (8 * (r - 4));
	else
		w[0] = (uint64_t)(unsigned char)s[0] |
		       (uint64_t)(unsigned char)s[r / 2] << (8 * (r / 2)) |
		       (uint64_t)(unsigned char)s[r - 1] << (8 * (r - 1));
#else
	memset(w, 0, sizeof(uint64_t) * GQ_SPELLED_WORDS);
	memcpy(w, s, n);
#endif
}

/* The words and hash of a name; never reads past its NUL.  O(length) */
static void _spelling(const char *s, gq_spelling_t *sp)
{
	size_t n = strlen(s);
	uint64_t h;

	sp->kept = n < GQ_SPELLED_MAX;
	if (!sp->kept) {
		memset(sp->w, 0, sizeof(sp->w));
		sp->hash = 0;
		return;
	}
	_words(s, n, sp->w);
	/* independent multiplies, not a chain: one per word */
	h = (sp->w[0] * 0x9E3779B97F4A7C15ULL) ^
	    (sp->w[1] * 0xC2B2AE3D27D4EB4FULL) ^
	    (sp->w[2] * 0x165667B19E3779F9ULL);
	h ^= h >> 31;
	h *= 0xFF51AFD7ED558CCDULL;
	sp->hash = (uint32_t)(h ^ (h >> 32));
}

static bool _spelled_same(const struct gq_spelled *slot,
			  const gq_spelling_t *sp)
{
	return slot->hash == sp->hash && slot->w[0] == sp->w[0] &&
	       slot->w[1] == sp->w[1] && slot->w[2] == sp->w[2];
}

/* The slot of a name, or the free slot where it would go. */
static struct gq_spelled *_spelled_slot(const gq_registry_t *r,
					const gq_spelling_t *sp)
{
	uint32_t mask = r->spelled_cap - 1, i = sp->hash & mask;

	while (r->spelled[i].project >= 0 && !_spelled_same(&r->spelled[i], sp))
		i = (i + 1) & mask;
	return &r->spelled[i];
}

/* Keep a spelling; without memory it is simply not kept. */
static void _spelled_put(gq_registry_t *r, const gq_spelling_t *sp,
			 int project)
{
	struct gq_spelled *slot;

	if (!sp->kept)
		return;
	if ((r->spelled_count + 1) * 4 > r->spelled_cap) {
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
			if (old[i].project >= 0) {
				gq_spelling_t o = { .hash = old[i].hash };

				memcpy(o.w, old[i].w, sizeof(o.w));
				*_spelled_slot(r, &o) = old[i];
			}
		free(old);
	}
	slot = _spelled_slot(r, sp);
	if (slot->project < 0)
		r->spelled_count++;
	memcpy(slot->w, sp->w, sizeof(slot->w));
	slot->hash = sp->hash;
	slot->project = project;
}

/* O(1): its exact spelling (one probe), else _project_of */
int gq_registry_project_of(gq_registry_t *r, const char *account)
{
	gq_spelling_t sp;
	int idx;

	if (!account)
		account = "";
	_spelling(account, &sp);
	if (r->spelled_cap && sp.kept) {
		const struct gq_spelled *slot = _spelled_slot(r, &sp);

		if (slot->project >= 0)
			return slot->project;
	}
	if ((idx = _project_of(r, account)) >= 0)
		_spelled_put(r, &sp, idx);
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
		p->landing = 0;
		p->deserved = p->share = p->share_floor = 0;
		memset(&p->tail, 0, sizeof(p->tail));
		p->quota_out = p->quota;
		p->room_void = false;
	}
	for (i = 0; i < r->ndept; i++) {
		r->dept[i].alloc = r->dept[i].at_risk = 0;
		r->dept[i].landing = 0;
		r->dept[i].demand = r->dept[i].share = 0;
		r->dept[i].share_floor = 0;
		memset(&r->dept[i].tail, 0, sizeof(r->dept[i].tail));
	}
	r->idle = 0;
}
