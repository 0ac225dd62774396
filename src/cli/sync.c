/*
 * sync.c - plan the sacctmgr commands of `gpuquota sync` (see sync.h).
 */
#define _GNU_SOURCE	/* asprintf */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/sync.h"

long gq_sync_grptres_gpus(const char *grptres)
{
	const char *p = grptres;

	while (p && (p = strstr(p, "gres/gpu="))) {
		if (p == grptres || p[-1] == ',')
			return strtol(p + strlen("gres/gpu="), NULL, 10);
		p++;
	}
	return -1;
}

static const gq_acct_t *_find(const gq_acct_t *a, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcasecmp(a[i].name, name))
			return &a[i];
	return NULL;
}

static int _add(gq_plan_t *p, char *cmd)
{
	char **nc;

	if (!cmd)
		return -1;
	if (!(nc = realloc(p->cmds, sizeof(*nc) * (p->n + 1)))) {
		free(cmd);
		return -1;
	}
	p->cmds = nc;
	p->cmds[p->n++] = cmd;
	return 0;
}

static char *_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *_fmt(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* One account: create it, move it under parent, set its GPU limit. */
static int _account(gq_plan_t *p, const gq_acct_t *accts, int nacct,
		    const char *cluster, const char *name, const char *parent,
		    int limit)
{
	const gq_acct_t *have = _find(accts, nacct, name);
	long want = limit == GQ_NO_LIMIT ? -1 : limit;
	const char *par = parent ? parent : "root";

	if (!have) {
		if (_add(p, _fmt("add account %s Cluster=%s Parent=%s Description=gpuquota Organization=gpuquota",
				 name, cluster, par)))
			return -1;
		if (want >= 0 &&
		    _add(p, _fmt("modify account where name=%s cluster=%s set GrpTRES=gres/gpu=%ld",
				 name, cluster, want)))
			return -1;
		return 0;
	}
	if (parent && (!have->parent || strcasecmp(have->parent, parent)) &&
	    _add(p, _fmt("modify account where name=%s cluster=%s set Parent=%s",
			 name, cluster, parent)))
		return -1;
	if (have->gpu_limit != want &&
	    _add(p, _fmt("modify account where name=%s cluster=%s set GrpTRES=gres/gpu=%ld",
			 name, cluster, want)))
		return -1;
	return 0;
}

int gq_sync_plan(const gq_config_t *cfg, const gq_acct_t *accts, int nacct,
		 const char *cluster, gq_plan_t *out)
{
	int i, j;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < cfg->ndepts; i++)
		if (_account(out, accts, nacct, cluster, cfg->depts[i].name,
			     NULL, cfg->depts[i].gpu_limit))
			goto fail;
	for (i = 0; i < cfg->nprojects; i++) {
		const gq_project_cfg_t *pc = &cfg->projects[i];
		const char *parent = pc->department >= 0 ?
			cfg->depts[pc->department].name : NULL;

		for (j = 0; j < pc->naccounts; j++)
			if (_account(out, accts, nacct, cluster,
				     pc->accounts[j], parent, pc->gpu_limit))
				goto fail;
	}
	return 0;
fail:
	gq_sync_plan_free(out);
	return -1;
}

void gq_sync_plan_free(gq_plan_t *plan)
{
	int i;

	for (i = 0; i < plan->n; i++)
		free(plan->cmds[i]);
	free(plan->cmds);
	memset(plan, 0, sizeof(*plan));
}
