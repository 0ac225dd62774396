/*
 * advice.c - what a valid configuration asks that the model cannot give,
 * and a project's numbers as the load's log line lists them (see
 * advice.h).
 */
#include <stdio.h>

#include "config/advice.h"

/* " in pool NAME" with pools, "" without. */
static void _in_pool(const gq_config_t *cfg, int k, char *buf, size_t len)
{
	if (cfg->npools)
		snprintf(buf, len, " in pool %s", cfg->pools[k].name);
	else
		buf[0] = '\0';
}

/* Pool k's advice (pc: the pool as a configuration of its own); a
 * department's sum is said only when no project of it is said alone. */
static int _pool_advice(const gq_config_t *pc, const char *in,
			void (*say)(const char *line, void *ctx), void *ctx)
{
	char line[512];
	int i, d, n = 0;
	bool told[pc->ndepts + 1];

	for (d = 0; d <= pc->ndepts; d++)
		told[d] = false;
	for (i = 0; i < pc->nprojects; i++) {
		const gq_project_cfg_t *p = &pc->projects[i];

		if (p->department < 0 ||
		    p->gpu_quota <= pc->depts[p->department].gpu_quota)
			continue;
		told[p->department] = true;
		snprintf(line, sizeof(line),
			 "project %s: gpu_quota %d%s is more than its department %s's %d: its jobs past %d GPUs there are never in quota",
			 p->name, p->gpu_quota, in,
			 pc->depts[p->department].name,
			 pc->depts[p->department].gpu_quota,
			 pc->depts[p->department].gpu_quota);
		say(line, ctx);
		n++;
	}
	for (d = 0; d < pc->ndepts; d++) {
		long sum = 0;

		for (i = 0; i < pc->nprojects; i++)
			if (pc->projects[i].department == d)
				sum += pc->projects[i].gpu_quota;
		if (told[d] || sum <= pc->depts[d].gpu_quota)
			continue;
		snprintf(line, sizeof(line),
			 "department %s: its projects' gpu_quota add up to %ld%s, more than its own %d: together they are in quota up to %d only",
			 pc->depts[d].name, sum, in, pc->depts[d].gpu_quota,
			 pc->depts[d].gpu_quota);
		say(line, ctx);
		n++;
	}
	return n;
}

int gq_config_advice(const gq_config_t *cfg,
		     void (*say)(const char *line, void *ctx), void *ctx)
{
	int k, n = 0, npools = cfg->npools ? cfg->npools : 1;
	char in[160];

	for (k = 0; k < npools; k++) {
		gq_config_t *pc = gq_config_pool(cfg, k);

		if (!pc)
			return -1;
		_in_pool(cfg, k, in, sizeof(in));
		n += _pool_advice(pc, in, say, ctx);
		gq_config_free(pc);
	}
	return n;
}

/* snprintf at buf + *at, never past n; *at counts the whole text */
static void _put(char *buf, size_t n, int *at, const char *pool,
		 const gq_pool_numbers_t *x, const char *sep)
{
	size_t off = (size_t)*at < n ? (size_t)*at : n;
	int w = snprintf(buf ? buf + off : NULL, n - off,
			 "%s%squota=%d,weight=%g%s", pool ? pool : "",
			 pool ? ":" : "", x->gpu_quota, x->over_quota_weight,
			 sep);

	*at += w > 0 ? w : 0;
}

int gq_config_project_text(const gq_config_t *cfg, int i, char *buf,
			   size_t n)
{
	const gq_project_cfg_t *p = &cfg->projects[i];
	gq_pool_numbers_t one = { p->gpu_quota, p->over_quota_weight,
				  p->gpu_limit };
	int at = snprintf(buf, n, "%s(", p->name), k;

	if (!cfg->npools || !p->by_pool)
		_put(buf, n, &at, NULL, &one, ")");
	for (k = 0; cfg->npools && p->by_pool && k < cfg->npools; k++)
		_put(buf, n, &at, cfg->pools[k].name, &p->by_pool[k],
		     k + 1 < cfg->npools ? ";" : ")");
	return at;
}
