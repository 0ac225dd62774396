/*
 * sync.c - plan the sacctmgr commands of `gpuquota sync` (see sync.h).
 * Each command is an argument vector: a name is one argument whatever
 * characters it holds, and no shell ever parses it.
 */
#define _GNU_SOURCE	/* vasprintf, open_memstream */
#include <limits.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/sync.h"
#include "tools/gres_text.h"

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

long gq_sync_grptres_typed(const char *grptres, const char *type)
{
	size_t tl = type ? strlen(type) : 0;
	const char *p = grptres;

	if (!tl)
		return -1;
	while (p && (p = strstr(p, "gres/gpu:"))) {
		const char *t = p + strlen("gres/gpu:");

		if ((p == grptres || p[-1] == ',') && !strncmp(t, type, tl) &&
		    t[tl] == '=')
			return strtol(t + tl + 1, NULL, 10);
		p++;
	}
	return -1;
}

/* Is partition one of pool k's? */
static bool _pool_has(const gq_pool_cfg_t *pool, const char *part,
		      size_t len)
{
	int i;

	for (i = 0; i < pool->npartitions; i++)
		if (strlen(pool->partitions[i]) == len &&
		    !strncmp(pool->partitions[i], part, len))
			return true;
	return false;
}

/* Is node in pool (one of its partitions in the comma list)? */
static bool _node_in(const gq_pool_cfg_t *pool, const gq_sync_node_t *node)
{
	const char *p = node->partitions, *e;

	while (p && *p) {
		e = strchr(p, ',');
		if (_pool_has(pool, p, e ? (size_t)(e - p) : strlen(p)))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

/*
 * The one GPU type of pool k's nodes into buf, or why there is none
 * (returned; NULL when buf holds the type).
 */
static const char *_one_type(const gq_config_t *cfg, int k,
			     const gq_sync_node_t *nodes, int nnodes,
			     char *buf, size_t len)
{
	char t[128];
	int i;

	buf[0] = '\0';
	for (i = 0; i < nnodes; i++) {
		uint64_t gpus = gq_gres_text_gpus(nodes[i].gres);

		if (!gpus || !_node_in(&cfg->pools[k], &nodes[i]))
			continue;
		if (!gq_gres_text_type(nodes[i].gres, t, sizeof(t)) ||
		    gq_gres_text_gpus_of_type(nodes[i].gres, t) != gpus)
			return "its nodes have GPUs without a type or of several types";
		if (buf[0] && strcmp(buf, t))
			return "its nodes have GPUs of several types";
		snprintf(buf, len, "%s", t);
	}
	if (!buf[0])
		return "it has no GPU node";
	for (i = 0; i < nnodes; i++)
		if (!_node_in(&cfg->pools[k], &nodes[i]) &&
		    gq_gres_text_gpus_of_type(nodes[i].gres, buf))
			return "nodes outside it have GPUs of its type";
	return NULL;
}

/* Does some project or department have a limit in pool k? */
static bool _limited_in(const gq_config_t *cfg, int k)
{
	int i;

	for (i = 0; i < cfg->nprojects; i++)
		if (cfg->projects[i].by_pool[k].gpu_limit != GQ_NO_LIMIT)
			return true;
	for (i = 0; i < cfg->ndepts; i++)
		if (cfg->depts[i].by_pool[k].gpu_limit != GQ_NO_LIMIT)
			return true;
	return false;
}

/* Does the comma list tres have the entry "gres/gpu:TYPE"? */
static bool _tres_lists(const char *tres, const char *type)
{
	char want[160];
	const char *p = tres;
	size_t wl;

	snprintf(want, sizeof(want), "gres/gpu:%s", type);
	wl = strlen(want);
	while (p && (p = strstr(p, want))) {
		if ((p == tres || p[-1] == ',') && (!p[wl] || p[wl] == ','))
			return true;
		p++;
	}
	return false;
}

int gq_sync_pool_types(const gq_config_t *cfg, const gq_sync_node_t *nodes,
		       int nnodes, const char *acct_tres, char **types,
		       void (*note)(const char *line, void *ctx), void *ctx)
{
	char type[128], line[512], lacks[200];
	const char *why;
	int k;

	for (k = 0; k < cfg->npools; k++)
		types[k] = NULL;
	for (k = 0; k < cfg->npools; k++) {
		why = _one_type(cfg, k, nodes, nnodes, type, sizeof(type));
		if (!why && !_tres_lists(acct_tres, type)) {
			snprintf(lacks, sizeof(lacks),
				 "AccountingStorageTRES does not list gres/gpu:%s",
				 type);
			why = lacks;
		}
		if (!why && !(types[k] = strdup(type)))
			goto oom;
		if (!why || !note || !_limited_in(cfg, k))
			continue;
		snprintf(line, sizeof(line),
			 "pool %s: no GrpTRES=gres/gpu:TYPE limit: %s",
			 cfg->pools[k].name, why);
		note(line, ctx);
	}
	return 0;
oom:
	for (k = 0; k < cfg->npools; k++) {
		free(types[k]);
		types[k] = NULL;
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

/*
 * The limit Slurm can enforce for an account: its gpu_limit, or with
 * pools their sum (GrpTRES gres/gpu counts GPUs of every partition; each
 * pool's own limit is a typed GrpTRES or gpuquota's alone), none when
 * some pool has none.
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

/* What planning one account needs besides its own numbers. */
typedef struct {
	const gq_config_t *cfg;
	const gq_acct_t *accts;
	int nacct;
	const char *cluster;
	const gq_sync_opts_t *opts;
	gq_plan_t *out;
} gq_planner_t;

static void _note(const gq_planner_t *pl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void _note(const gq_planner_t *pl, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!pl->opts->note)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	pl->opts->note(line, pl->opts->ctx);
}

/* Pool k's type, when Slurm can limit it alone. */
static const char *_type(const gq_planner_t *pl, int k)
{
	return pl->opts->pool_type ? pl->opts->pool_type[k] : NULL;
}

/*
 * The GrpTRES entries that differ from have (NULL: a new account) as
 * "gres/gpu=N,gres/gpu:TYPE=M"; "" when none.  Malloc'ed, NULL out of
 * memory.
 */
static char *_grptres(const gq_planner_t *pl, const gq_acct_t *have,
		      int limit, const gq_pool_numbers_t *by_pool)
{
	long want = limit == GQ_NO_LIMIT ? -1 : limit, got, w;
	char *s = NULL;
	size_t len;
	FILE *f = open_memstream(&s, &len);
	int k, n = 0;

	if (!f)
		return NULL;
	if ((have ? have->gpu_limit : -1) != want)
		n += fprintf(f, "gres/gpu=%ld", want) > 0;
	for (k = 0; by_pool && k < pl->cfg->npools; k++) {
		const char *t = _type(pl, k);

		if (!t)
			continue;
		w = by_pool[k].gpu_limit == GQ_NO_LIMIT ? -1 :
			by_pool[k].gpu_limit;
		got = have ? gq_sync_grptres_typed(have->grptres, t) : -1;
		if (got != w)
			n += fprintf(f, "%sgres/gpu:%s=%ld", n ? "," : "", t,
				     w) > 0;
	}
	if (fclose(f)) {
		free(s);
		return NULL;
	}
	return s;
}

/* One account: create it, move it under parent, set its GPU limits. */
static int _account(const gq_planner_t *pl, const char *name,
		    const char *parent, int limit,
		    const gq_pool_numbers_t *by_pool)
{
	const gq_acct_t *have = _find(pl->accts, pl->nacct, name);
	char *tres = _grptres(pl, have, _slurm_limit(pl->cfg, limit, by_pool),
			      by_pool);
	int rc = 0;

	if (!tres)
		return -1;
	if (!have) {
		rc = _create(pl->out, name, pl->cluster,
			     parent ? parent : "root");
	} else if (parent && (!have->parent ||
			      strcasecmp(have->parent, parent))) {
		if (pl->opts->reparent)
			rc = _modify(pl->out, name, pl->cluster, "Parent=%s",
				     parent);
		else
			_note(pl, "account %s: its parent is %s in slurmdbd, %s in the configuration: not moved (moving an account moves its users and the limits and fair share they inherit; --reparent moves it)",
			      name, have->parent ? have->parent : "none",
			      parent);
	}
	if (!rc && *tres)
		rc = _modify(pl->out, name, pl->cluster, "GrpTRES=%s", tres);
	free(tres);
	return rc;
}

/* Each pool limit of who (kind "project" or "department") that Slurm
 * cannot express: one note. */
static void _pool_notes(const gq_planner_t *pl, const char *kind,
			const char *who, const gq_pool_numbers_t *by_pool)
{
	int k;

	for (k = 0; by_pool && pl->cfg->npools > 1 && k < pl->cfg->npools;
	     k++)
		if (by_pool[k].gpu_limit != GQ_NO_LIMIT && !_type(pl, k))
			_note(pl, "%s %s: limit in pool %s has no Slurm equivalent; gpuquota enforces it alone",
			      kind, who, pl->cfg->pools[k].name);
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
		 const char *cluster, const gq_sync_opts_t *opts,
		 gq_plan_t *out)
{
	static const gq_sync_opts_t none = { 0 };
	gq_planner_t pl = { cfg, accts, nacct, cluster, opts ? opts : &none,
			    out };
	int i, j;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < cfg->ndepts; i++) {
		const gq_dept_cfg_t *d = &cfg->depts[i];

		_pool_notes(&pl, "department", d->name, d->by_pool);
		if (_account(&pl, d->name, NULL, d->gpu_limit, d->by_pool))
			goto fail;
	}
	for (i = 0; i < cfg->nprojects; i++) {
		const gq_project_cfg_t *pc = &cfg->projects[i];
		const char *parent = pc->department >= 0 ?
			cfg->depts[pc->department].name : NULL;

		_pool_notes(&pl, "project", pc->name, pc->by_pool);
		for (j = 0; j < pc->naccounts; j++)
			if (_account(&pl, pc->accounts[j], parent,
				     pc->gpu_limit, pc->by_pool))
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

bool gq_sync_answer_yes(const char *line)
{
	size_t n = strcspn(line, "\r\n");

	while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	while (n && (*line == ' ' || *line == '\t')) {
		line++;
		n--;
	}
	return (n == 1 && !strncasecmp(line, "y", 1)) ||
	       (n == 3 && !strncasecmp(line, "yes", 3));
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
