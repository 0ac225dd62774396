/*
 * hints.c - what `gpuquota check` says about a configuration against its
 * cluster (see hints.h).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "config/hints.h"
#include "tools/edit_distance.h"

#define GQ_HINT_NEAR 2	/* the largest edit distance worth a hint */

/* A project's quota in pool k (its gpu_quota without pools). */
static long _quota(const gq_config_t *cfg, const gq_project_cfg_t *p, int k)
{
	return cfg->npools ? p->by_pool[k].gpu_quota : p->gpu_quota;
}

int gq_hint_capacity(const gq_config_t *cfg, const double *caps,
		     void (*say)(const char *line, void *ctx), void *ctx)
{
	int k, i, n = 0, npools = cfg->npools ? cfg->npools : 1;
	char line[512];

	for (k = 0; k < npools; k++) {
		long sum = 0;

		for (i = 0; i < cfg->nprojects; i++)
			sum += _quota(cfg, &cfg->projects[i], k);
		if (sum <= caps[k])
			continue;
		if (cfg->npools)
			snprintf(line, sizeof(line),
				 "pool %s: quotas add up to %ld GPUs, the pool has %.0f",
				 cfg->pools[k].name, sum, caps[k]);
		else
			snprintf(line, sizeof(line),
				 "quotas add up to %ld GPUs, the cluster has %.0f",
				 sum, caps[k]);
		say(line, ctx);
		n++;
	}
	return n;
}

/* Does a project list account, or is it a department's or root? */
static bool _listed(const gq_config_t *cfg, const char *account)
{
	int i, j;

	if (!strcasecmp(account, "root"))
		return true;
	for (i = 0; i < cfg->ndepts; i++)
		if (!strcasecmp(cfg->depts[i].name, account))
			return true;
	for (i = 0; i < cfg->nprojects; i++)
		for (j = 0; j < cfg->projects[i].naccounts; j++)
			if (!strcasecmp(cfg->projects[i].accounts[j], account))
				return true;
	return false;
}

/* Append s to line (size len, used *at), cut at its end. */
static void _append(char *line, size_t len, size_t *at, const char *s)
{
	int w = snprintf(line + *at, len - *at, "%s", s);

	if (w > 0)
		*at += (size_t)w < len - *at ? (size_t)w : len - *at - 1;
}

int gq_hint_unlisted(const gq_config_t *cfg, const char *const *names,
		     int n, void (*say)(const char *line, void *ctx),
		     void *ctx)
{
	char line[GQ_HINT_LIST_MAX * 72 + 256], more[64];
	size_t at = 0;
	int i, count = 0;

	for (i = 0; i < n; i++)
		count += !_listed(cfg, names[i]);
	if (!count)
		return 0;
	snprintf(line, sizeof(line),
		 "%d Slurm account%s no project lists (each a 0-quota project): ",
		 count, count == 1 ? "" : "s");
	at = strlen(line);
	for (i = 0, count = 0; i < n; i++) {
		if (_listed(cfg, names[i]))
			continue;
		if (++count > GQ_HINT_LIST_MAX)
			continue;
		if (count > 1)
			_append(line, sizeof(line), &at, ", ");
		_append(line, sizeof(line), &at, names[i]);
	}
	if (count > GQ_HINT_LIST_MAX) {
		snprintf(more, sizeof(more), " and %d more",
			 count - GQ_HINT_LIST_MAX);
		_append(line, sizeof(line), &at, more);
	}
	say(line, ctx);
	return count;
}

/* s in lower case into buf (len > 0), cut to fit. */
static void _lower(const char *s, char *buf, size_t len)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++)
		buf[i] = (char)tolower((unsigned char)s[i]);
	buf[i] = '\0';
}

const char *gq_hint_nearest(const char *name, const char *const *names,
			    int n)
{
	char a[GQ_EDIT_NAME_MAX + 2], b[GQ_EDIT_NAME_MAX + 2];
	const char *best = NULL;
	int i, d, bestd = GQ_HINT_NEAR + 1;

	/* one char past the limit: a longer name stays too long to compare */
	_lower(name, a, sizeof(a));
	for (i = 0; i < n && bestd > 0; i++) {
		_lower(names[i], b, sizeof(b));
		d = gq_edit_distance(a, b, GQ_HINT_NEAR);
		if (d < bestd) {
			bestd = d;
			best = names[i];
		}
	}
	return best;
}
