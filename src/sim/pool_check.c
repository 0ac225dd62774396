/*
 * pool_check.c - the pools no job of a history is in (see pool_check.h).
 */
#include <stdbool.h>
#include <stdlib.h>

#include "shared/job_facts.h"
#include "sim/pool_check.h"

/* The warning line of pool k. */
static void _warn(FILE *f, const char *path, const gq_pool_cfg_t *pool)
{
	int i;

	fprintf(f, "gpuquota simulate: warning: %s: no job in the trace matches pool %s (partitions ",
		path, pool->name);
	for (i = 0; i < pool->npartitions; i++)
		fprintf(f, "%s%s", i ? "," : "", pool->partitions[i]);
	fprintf(f, "); every project shows 0 there\n");
}

int gq_sim_warn_pools(FILE *f, const char *path, const gq_config_t *cfg,
		      const gq_sim_history_t *h)
{
	int np = cfg ? cfg->npools : 0, k, lines = 0;
	gq_config_t **pools = calloc(np + 1, sizeof(*pools));
	bool *seen = calloc(np + 1, sizeof(*seen));
	size_t i;

	for (k = 0; pools && k < np; k++)
		if (!(pools[k] = gq_config_pool(cfg, k)))
			break;
	if (!pools || !seen || k < np)
		lines = -1;
	for (i = 0; lines == 0 && i < h->n; i++) {
		k = gq_pool_of_job(pools, np, h->job[i].partition, false);
		if (k >= 0)
			seen[k] = true;
	}
	for (k = 0; lines >= 0 && k < np; k++)
		if (!seen[k]) {
			_warn(f, path, &cfg->pools[k]);
			lines++;
		}
	for (k = 0; pools && k < np; k++)
		gq_config_free(pools[k]);
	free(pools);
	free(seen);
	return lines;
}
