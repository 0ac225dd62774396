/*
 * sync.c - plan the sacctmgr commands of `gpuquota sync` (see sync.h).
 * Each command is an argument vector: a name is one argument whatever
 * characters it holds, and no shell ever parses it.
 */
#define _GNU_SOURCE	/* vasprintf, open_memstream */
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
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

static void _cmd_free(gq_cmd_t *c)
{
	int i;

	for (i = 0; i < c->argc; i++)
		free(c->argv[i]);
	free(c->argv);
	memset(c, 0, sizeof(*c));
}

static int _varg(gq_cmd_t *c, const char *fmt, va_list ap)
{
	char **na, *arg;

	if (vasprintf(&arg, fmt, ap) < 0)
		return -1;
	if (!(na = realloc(c->argv, sizeof(*na) * (c->argc + 2)))) {
		free(arg);
		return -1;
	}
	c->argv = na;
	na[c->argc++] = arg;
	na[c->argc] = NULL;
	return 0;
}

/* Append one argument to c, formatted as printf does. */
static int _arg(gq_cmd_t *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int _arg(gq_cmd_t *c, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = _varg(c, fmt, ap);
	va_end(ap);
	return rc;
}

/* Move c into the plan; failed (building c failed): free it.  0 or -1. */
static int _add(gq_plan_t *p, gq_cmd_t *c, bool failed)
{
	gq_cmd_t *nc;

	if (failed || !(nc = realloc(p->cmds, sizeof(*nc) * (p->n + 1)))) {
		_cmd_free(c);
		return -1;
	}
	p->cmds = nc;
	p->cmds[p->n++] = *c;
	return 0;
}

/* add account NAME Cluster=C Parent=P Description=... Organization=... */
static int _create(gq_plan_t *p, const char *name, const char *cluster,
		   const char *parent)
{
	gq_cmd_t c = { 0 };
	bool failed = _arg(&c, "add") || _arg(&c, "account") ||
		      _arg(&c, "%s", name) ||
		      _arg(&c, "Cluster=%s", cluster) ||
		      _arg(&c, "Parent=%s", parent) ||
		      _arg(&c, "Description=gpuquota") ||
		      _arg(&c, "Organization=gpuquota");

	return _add(p, &c, failed);
}

/* modify account where name=NAME cluster=C set SET (formatted) */
static int _modify(gq_plan_t *p, const char *name, const char *cluster,
		   const char *set, ...) __attribute__((format(printf, 4, 5)));

static int _modify(gq_plan_t *p, const char *name, const char *cluster,
		   const char *set, ...)
{
	gq_cmd_t c = { 0 };
	bool failed = _arg(&c, "modify") || _arg(&c, "account") ||
		      _arg(&c, "where") || _arg(&c, "name=%s", name) ||
		      _arg(&c, "cluster=%s", cluster) || _arg(&c, "set");
	va_list ap;

	if (!failed) {
		va_start(ap, set);
		failed = _varg(&c, set, ap);
		va_end(ap);
	}
	return _add(p, &c, failed);
}

/* One account: create it, move it under parent, set its GPU limit. */
static int _account(gq_plan_t *p, const gq_acct_t *accts, int nacct,
		    const char *cluster, const char *name, const char *parent,
		    int limit)
{
	const gq_acct_t *have = _find(accts, nacct, name);
	long want = limit == GQ_NO_LIMIT ? -1 : limit;

	if (!have) {
		if (_create(p, name, cluster, parent ? parent : "root"))
			return -1;
		if (want >= 0 &&
		    _modify(p, name, cluster, "GrpTRES=gres/gpu=%ld", want))
			return -1;
		return 0;
	}
	if (parent && (!have->parent || strcasecmp(have->parent, parent)) &&
	    _modify(p, name, cluster, "Parent=%s", parent))
		return -1;
	if (have->gpu_limit != want &&
	    _modify(p, name, cluster, "GrpTRES=gres/gpu=%ld", want))
		return -1;
	return 0;
}

/*
 * The limit Slurm can enforce for an account: its gpu_limit, or with
 * pools their sum (GrpTRES counts GPUs of every partition; each pool's own
 * limit is gpuquota's to enforce), none when some pool has none.
 */
static int _slurm_limit(const gq_config_t *cfg, int limit,
			const gq_pool_numbers_t *by_pool)
{
	long sum = 0;
	int k;

	if (!cfg->npools || !by_pool)
		return limit;
	for (k = 0; k < cfg->npools; k++) {
		if (by_pool[k].gpu_limit == GQ_NO_LIMIT)
			return GQ_NO_LIMIT;
		sum += by_pool[k].gpu_limit;
	}
	return sum > INT_MAX ? GQ_NO_LIMIT : (int)sum;
}

/* One account's backstop: 1 when it exists and lacks the limit. */
static int _backstop(const gq_acct_t *accts, int nacct, const char *name,
		     int limit, void (*warn)(const char *line, void *ctx),
		     void *ctx)
{
	const gq_acct_t *have = _find(accts, nacct, name);
	char line[512];

	if (limit == GQ_NO_LIMIT || !have ||
	    (have->gpu_limit >= 0 && have->gpu_limit <= limit))
		return 0;
	snprintf(line, sizeof(line),
		 "account %s: gpu_limit %d has no GrpTRES=gres/gpu=%d in slurmdbd as a backstop (`gpuquota sync` sets it)",
		 name, limit, limit);
	warn(line, ctx);
	return 1;
}

int gq_sync_backstop(const gq_config_t *cfg, const gq_acct_t *accts,
		     int nacct, bool enforce_limits,
		     void (*warn)(const char *line, void *ctx), void *ctx)
{
	int i, j, n = 0, limits = 0;

	for (i = 0; i < cfg->ndepts; i++) {
		int l = _slurm_limit(cfg, cfg->depts[i].gpu_limit,
				     cfg->depts[i].by_pool);

		limits += l != GQ_NO_LIMIT;
		n += _backstop(accts, nacct, cfg->depts[i].name, l, warn, ctx);
	}
	for (i = 0; i < cfg->nprojects; i++) {
		const gq_project_cfg_t *pc = &cfg->projects[i];
		int l = _slurm_limit(cfg, pc->gpu_limit, pc->by_pool);

		limits += l != GQ_NO_LIMIT;
		for (j = 0; j < pc->naccounts; j++)
			n += _backstop(accts, nacct, pc->accounts[j], l, warn,
				       ctx);
	}
	if (limits && !enforce_limits) {
		warn("slurm.conf: AccountingStorageEnforce lacks limits: Slurm enforces no GrpTRES backstop of gpu_limit", ctx);
		n++;
	}
	return n;
}

int gq_sync_plan(const gq_config_t *cfg, const gq_acct_t *accts, int nacct,
		 const char *cluster, gq_plan_t *out)
{
	int i, j;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < cfg->ndepts; i++)
		if (_account(out, accts, nacct, cluster, cfg->depts[i].name,
			     NULL, _slurm_limit(cfg, cfg->depts[i].gpu_limit,
						cfg->depts[i].by_pool)))
			goto fail;
	for (i = 0; i < cfg->nprojects; i++) {
		const gq_project_cfg_t *pc = &cfg->projects[i];
		const char *parent = pc->department >= 0 ?
			cfg->depts[pc->department].name : NULL;

		for (j = 0; j < pc->naccounts; j++)
			if (_account(out, accts, nacct, cluster,
				     pc->accounts[j], parent,
				     _slurm_limit(cfg, pc->gpu_limit,
						  pc->by_pool)))
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
		_cmd_free(&plan->cmds[i]);
	free(plan->cmds);
	memset(plan, 0, sizeof(*plan));
}

/* A shell takes s as it is: a non-empty word of these characters only. */
static bool _shell_plain(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("_-.,/:=+@%", *s)))
			return false;
	return true;
}

char *gq_sync_cmd_str(const gq_cmd_t *cmd)
{
	char *s = NULL;
	size_t len;
	FILE *f = open_memstream(&s, &len);
	bool bad;
	int i;

	if (!f)
		return NULL;
	for (i = 0; i < cmd->argc; i++) {
		const char *a = cmd->argv[i];

		if (i)
			fputc(' ', f);
		if (_shell_plain(a)) {
			fputs(a, f);
			continue;
		}
		/* 'single quotes' take all but ', written '\'' */
		fputc('\'', f);
		for (; *a; a++) {
			if (*a == '\'')
				fputs("'\\''", f);
			else
				fputc(*a, f);
		}
		fputc('\'', f);
	}
	bad = ferror(f);
	if (fclose(f) || bad) {
		free(s);
		return NULL;
	}
	return s;
}
