/*
 * config_projects.c - the "departments" and "projects" sections of
 * gpuquota.json (see config_parse.h): their numbers by pool, accounts,
 * grace and requeue budget; every account in one project.
 */
#include "config/config_parse.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>
#include <json-c/json.h>

static const char *const dept_keys[] = {
	"name", "gpu_quota", "over_quota_weight", "gpu_limit", NULL
};

static const char *const project_keys[] = {
	"name", "gpu_quota", "over_quota_weight", "gpu_limit", "accounts",
	"department", "grace_time", "requeue_budget", NULL
};

/* ----- numbers by pool ---------------------------------------------------- */

enum number_kind { QUOTA, WEIGHT, LIMIT };

static const char *const number_keys[] = {
	[QUOTA] = "gpu_quota", [WEIGHT] = "over_quota_weight",
	[LIMIT] = "gpu_limit",
};

/* One number of a kind; a limit's lower bound is checked later. */
static int _get_number(struct parser *p, struct json_object *v,
		       const char *kp, enum number_kind kind,
		       gq_pool_numbers_t *n)
{
	if (kind == WEIGHT)
		return gq_cfg_get_real(p, v, kp, GQ_WEIGHT_MAX,
				       &n->over_quota_weight);
	return gq_cfg_get_int(p, v, kp, 0, "0",
			      kind == QUOTA ? &n->gpu_quota : &n->gpu_limit);
}

static int _pool_index(const gq_config_t *cfg, const char *name)
{
	int k;

	for (k = 0; k < cfg->npools; k++)
		if (!strcasecmp(cfg->pools[k].name, name))
			return k;
	return -1;
}

/*
 * A number by pool (with pools): a plain number is the same in every
 * pool; an object maps pool names to numbers, and the pools it leaves
 * out keep their default.
 */
static int _get_by_pool(struct parser *p, struct json_object *v,
			const char *kp, enum number_kind kind,
			gq_pool_numbers_t *by_pool)
{
	char kb[KP_MAX], vb[VAL_BUF];
	int k;

	if (!json_object_is_type(v, json_type_object)) {
		for (k = 0; k < p->cfg->npools; k++)
			if (_get_number(p, v, kp, kind, &by_pool[k]))
				return -1;
		return 0;
	}
	json_object_object_foreach(v, pool, n) {
		gq_cfg_kp_key(kb, kp, pool);
		if ((k = _pool_index(p->cfg, pool)) < 0) {
			gq_cfg_set_err(p, "%s: no pool named %s", kb,
				       gq_cfg_jstr(pool, vb));
			return -1;
		}
		if (_get_number(p, n, kb, kind, &by_pool[k]))
			return -1;
	}
	return 0;
}

/* Each pool's limit at least its quota (key path of the limit's entry). */
static int _limits_over_quotas(struct parser *p, struct json_object *limit,
			       const char *kp, const gq_pool_numbers_t *by_pool)
{
	char kb[KP_MAX], vb[VAL_BUF], qb[KP_MAX + MINSTR_MAX];
	struct json_object *v = limit;
	int k;

	for (k = 0; k < p->cfg->npools; k++) {
		const gq_pool_numbers_t *n = &by_pool[k];
		const char *name = p->cfg->pools[k].name;

		if (n->gpu_limit == GQ_NO_LIMIT ||
		    n->gpu_limit >= n->gpu_quota)
			continue;
		snprintf(kb, sizeof(kb), "%s", kp);
		if (json_object_is_type(limit, json_type_object)) {
			gq_cfg_kp_key(kb, kp, name);
			json_object_object_get_ex(limit, name, &v);
		}
		snprintf(qb, sizeof(qb), "gpu_quota in pool %s (%d)",
			 gq_cfg_jstr(name, vb), n->gpu_quota);
		gq_cfg_set_err(p, "%s: must be an integer >= %s, got %s", kb,
			       qb, gq_cfg_jval(v, vb));
		return -1;
	}
	return 0;
}

/* gpu_quota, over_quota_weight and gpu_limit by pool (with pools). */
static int _parse_by_pool(struct parser *p, struct json_object *obj,
			  const char *kp, gq_pool_numbers_t **out)
{
	gq_pool_numbers_t *by_pool;
	struct json_object *v, *limit = NULL;
	char kb[KP_MAX];
	int k, rc = 0;

	if (!(by_pool = calloc(p->cfg->npools, sizeof(*by_pool))))
		return gq_cfg_oom(p);
	*out = by_pool;
	for (k = 0; k < p->cfg->npools; k++) {
		by_pool[k].over_quota_weight = 1.0;
		by_pool[k].gpu_limit = GQ_NO_LIMIT;
	}
	for (k = QUOTA; k <= LIMIT; k++) {
		if (!gq_cfg_field(p, obj, kp, number_keys[k], k == QUOTA, &v,
				  &rc)) {
			if (rc)
				return rc;
			continue;
		}
		if (k == LIMIT)
			limit = v;
		if (_get_by_pool(p, v, gq_cfg_kp_key(kb, kp, number_keys[k]), k,
				 by_pool))
			return -1;
	}
	return limit ? _limits_over_quotas(p, limit,
					   gq_cfg_kp_key(kb, kp, "gpu_limit"),
					   by_pool) : 0;
}

/*
 * The fields projects and departments share.  names holds the names seen so
 * far (for the duplicate check) and what is "project" or "department".
 */
static int _parse_common(struct parser *p, struct json_object *obj,
			 const char *kp, const char *what,
			 struct lh_table *names, char **name, int *quota,
			 double *weight, int *limit,
			 gq_pool_numbers_t **by_pool)
{
	char kb[KP_MAX], vb[VAL_BUF], qb[MINSTR_MAX];
	struct json_object *v;
	int rc = 0;

	if (gq_cfg_field(p, obj, kp, "name", true, &v, &rc)) {
		gq_cfg_kp_key(kb, kp, "name");
		if (gq_cfg_get_string(p, v, kb, name))
			return -1;
		if (lh_table_lookup_ex(names, *name, NULL)) {
			gq_cfg_set_err(p, "%s: duplicate %s %s", kb, what,
				       gq_cfg_jstr(*name, vb));
			return -1;
		}
		if (lh_table_insert(names, *name, NULL))
			return gq_cfg_oom(p);
	}
	if (rc)
		return rc;

	*weight = 1.0;
	*limit = GQ_NO_LIMIT;
	if (p->cfg->npools)
		return _parse_by_pool(p, obj, kp, by_pool);
	for (int k = QUOTA; k <= LIMIT; k++)
		if (json_object_object_get_ex(obj, number_keys[k], &v) &&
		    json_object_is_type(v, json_type_object)) {
			gq_cfg_set_err(p, "%s: a number by pool needs top-level \"pools\", got %s",
				       gq_cfg_kp_key(kb, kp, number_keys[k]),
				       gq_cfg_jval(v, vb));
			return -1;
		}

	if (gq_cfg_field(p, obj, kp, "gpu_quota", true, &v, &rc) &&
	    gq_cfg_get_int(p, v, gq_cfg_kp_key(kb, kp, "gpu_quota"), 0, "0",
			   quota))
		return -1;
	if (rc)
		return rc;

	if (gq_cfg_field(p, obj, kp, "over_quota_weight", false, &v, &rc) &&
	    gq_cfg_get_real(p, v, gq_cfg_kp_key(kb, kp, "over_quota_weight"),
			    GQ_WEIGHT_MAX, weight))
		return -1;

	snprintf(qb, sizeof(qb), "gpu_quota (%d)", *quota);
	if (gq_cfg_field(p, obj, kp, "gpu_limit", false, &v, &rc) &&
	    gq_cfg_get_int(p, v, gq_cfg_kp_key(kb, kp, "gpu_limit"), *quota, qb,
			   limit))
		return -1;
	return 0;
}

/*
 * The top-level array `key` of n entries of `size` bytes: *out gets a
 * zeroed table of them and *names an empty table for their names.
 * Returns n (0: nothing to parse, nothing allocated), or -1 with the
 * error set.
 */
int gq_cfg_open_array(struct parser *p, struct json_object *arr,
		      const char *key, size_t size, void **out,
		      struct lh_table **names)
{
	size_t n;

	if (gq_cfg_need_type(p, arr, key, json_type_array, "an array"))
		return -1;
	n = json_object_array_length(arr);
	if (n == 0)
		return 0;
	if (n > INT_MAX) {
		gq_cfg_set_err(p, "%s: too many entries", key);
		return -1;
	}
	if (!(*out = calloc(n, size)))
		return gq_cfg_oom(p);
	*names = lh_table_new((int)(n < TABLE_MIN ? TABLE_MIN : n), NULL,
			      gq_cfg_hash_nocase, gq_cfg_equal_nocase);
	if (!*names)
		return gq_cfg_oom(p);
	return (int)n;
}

int gq_cfg_parse_depts(struct parser *p, struct json_object *arr)
{
	gq_config_t *cfg = p->cfg;
	struct lh_table *names = NULL;
	char kb[KP_MAX];
	int n, i, rc = 0;

	n = gq_cfg_open_array(p, arr, "departments", sizeof(*cfg->depts),
			      (void **)&cfg->depts, &names);
	if (n <= 0)
		return n;
	cfg->ndepts = n;
	for (i = 0; i < n && !rc; i++) {
		struct json_object *d = json_object_array_get_idx(arr, i);
		gq_dept_cfg_t *dc = &cfg->depts[i];

		gq_cfg_kp_idx(kb, "departments", i);
		rc = gq_cfg_need_type(p, d, kb, json_type_object, "an object");
		if (!rc)
			rc = gq_cfg_check_keys(p, d, kb, dept_keys);
		if (!rc)
			rc = _parse_common(p, d, kb, "department", names,
					   &dc->name, &dc->gpu_quota,
					   &dc->over_quota_weight,
					   &dc->gpu_limit, &dc->by_pool);
	}
	lh_table_free(names);
	return rc;
}

/* settings.requeue_budget (GPU-hours) and its window (seconds). */
int gq_cfg_parse_budget(struct parser *p, struct json_object *obj,
			gq_settings_t *s)
{
	struct json_object *v;
	int rc = 0;

	if (gq_cfg_field(p, obj, "settings", "requeue_budget", false, &v,
			 &rc) &&
	    gq_cfg_get_real(p, v, "settings.requeue_budget", GQ_BUDGET_MAX,
			    &s->requeue_budget))
		return -1;
	if (gq_cfg_field(p, obj, "settings", "requeue_budget_window", false, &v,
			 &rc) &&
	    gq_cfg_get_int(p, v, "settings.requeue_budget_window",
			   GQ_BUDGET_WINDOW_MIN, "3600",
			   &s->requeue_budget_window))
		return -1;
	if (s->requeue_budget_window > GQ_BUDGET_WINDOW_MAX) {
		gq_cfg_set_err(p, "settings.requeue_budget_window: must be an integer <= %d (seconds, 30 days), got %d",
			       GQ_BUDGET_WINDOW_MAX, s->requeue_budget_window);
		return -1;
	}
	return rc;
}

/* A grace time: an integer of seconds, 0..GQ_GRACE_TIME_MAX. */
int gq_cfg_get_grace(struct parser *p, struct json_object *v,
		     const char *kp, int *out)
{
	char vb[VAL_BUF];

	if (gq_cfg_get_int(p, v, kp, 0, "0", out))
		return -1;
	if (*out > GQ_GRACE_TIME_MAX) {
		gq_cfg_set_err(p, "%s: must be an integer <= %d (seconds a preemptor waits), got %s",
			       kp, GQ_GRACE_TIME_MAX, gq_cfg_jval(v, vb));
		return -1;
	}
	return 0;
}

/* A project's "department": the index of the department of that name. */
static int _project_dept(struct parser *p, struct json_object *v,
			 const char *kp, int *dept)
{
	gq_config_t *cfg = p->cfg;
	char *dname = NULL, vb[VAL_BUF];
	int d;

	if (gq_cfg_get_string(p, v, kp, &dname))
		return -1;
	for (d = 0; d < cfg->ndepts; d++)
		if (!strcmp(cfg->depts[d].name, dname))
			break;
	if (d == cfg->ndepts)
		gq_cfg_set_err(p, "%s: no department named %s", kp,
			       gq_cfg_jstr(dname, vb));
	free(dname);
	if (d == cfg->ndepts)
		return -1;
	*dept = d;
	return 0;
}

static int _parse_project(struct parser *p, struct json_object *obj,
			  const char *kp, struct lh_table *names,
			  gq_project_cfg_t *pc)
{
	char kb[KP_MAX];
	struct json_object *v;
	int rc = 0;

	pc->department = -1;
	pc->grace_time = GQ_UNSET;
	pc->requeue_budget = GQ_UNSET;
	if (gq_cfg_need_type(p, obj, kp, json_type_object, "an object") ||
	    gq_cfg_check_keys(p, obj, kp, project_keys) ||
	    _parse_common(p, obj, kp, "project", names, &pc->name,
			  &pc->gpu_quota, &pc->over_quota_weight,
			  &pc->gpu_limit, &pc->by_pool))
		return -1;

	if (gq_cfg_field(p, obj, kp, "accounts", false, &v, &rc)) {
		if (gq_cfg_get_str_array(p, v,
					 gq_cfg_kp_key(kb, kp, "accounts"),
					 "account", true, &pc->accounts,
					 &pc->naccounts))
			return -1;
	} else {
		pc->accounts = calloc(1, sizeof(*pc->accounts));
		if (!pc->accounts)
			return gq_cfg_oom(p);
		pc->naccounts = 1;
		pc->accounts[0] = strdup(pc->name);
		if (!pc->accounts[0])
			return gq_cfg_oom(p);
	}

	if (gq_cfg_field(p, obj, kp, "department", false, &v, &rc) &&
	    _project_dept(p, v, gq_cfg_kp_key(kb, kp, "department"),
			  &pc->department))
		return -1;
	if (gq_cfg_field(p, obj, kp, "grace_time", false, &v, &rc) &&
	    gq_cfg_get_grace(p, v, gq_cfg_kp_key(kb, kp, "grace_time"),
			     &pc->grace_time))
		return -1;
	if (gq_cfg_field(p, obj, kp, "requeue_budget", false, &v, &rc) &&
	    gq_cfg_get_real(p, v, gq_cfg_kp_key(kb, kp, "requeue_budget"),
			    GQ_BUDGET_MAX, &pc->requeue_budget))
		return -1;
	return 0;
}

/*
 * Every account belongs to one project.  A project without "accounts" owns
 * its name; those are registered first so that a clash is always reported
 * at the explicit "accounts" entry, whatever the order of the projects.
 */
/* Projects without "accounts": their name is their account, in owner. */
static int _own_names(struct parser *p, struct json_object *arr,
		      struct lh_table *owner)
{
	gq_config_t *cfg = p->cfg;
	char kb[KP_MAX], ab[VAL_BUF], pb[VAL_BUF];
	int i;

	for (i = 0; i < cfg->nprojects; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		void *prev;

		if (json_object_object_get_ex(o, "accounts", NULL))
			continue;
		if (lh_table_lookup_ex(owner, cfg->projects[i].accounts[0],
				       &prev)) {
			snprintf(kb, sizeof(kb), "projects[%d].name", i);
			gq_cfg_set_err(p, "%s: account %s already belongs to project %s",
				       kb, gq_cfg_jstr(cfg->projects[i].accounts[0], ab),
				       gq_cfg_jstr(cfg->projects[(intptr_t)prev].name, pb));
			return -1;
		}
		if (lh_table_insert(owner, cfg->projects[i].accounts[0],
				    (void *)(intptr_t)i))
			return gq_cfg_oom(p);
	}
	return 0;
}

/* Project i's "accounts" list, each into owner once. */
static int _own_list(struct parser *p, int i, struct lh_table *owner)
{
	gq_config_t *cfg = p->cfg;
	gq_project_cfg_t *pc = &cfg->projects[i];
	char kb[KP_MAX], ab[VAL_BUF], pb[VAL_BUF];
	int j;

	for (j = 0; j < pc->naccounts; j++) {
		void *prev;
		int q;

		snprintf(kb, sizeof(kb), "projects[%d].accounts[%d]", i, j);
		if (!lh_table_lookup_ex(owner, pc->accounts[j], &prev)) {
			if (lh_table_insert(owner, pc->accounts[j],
					    (void *)(intptr_t)i))
				return gq_cfg_oom(p);
			continue;
		}
		q = (int)(intptr_t)prev;
		if (q == i)
			gq_cfg_set_err(p, "%s: account %s is listed twice", kb,
				       gq_cfg_jstr(pc->accounts[j], ab));
		else
			gq_cfg_set_err(p, "%s: account %s already belongs to project %s",
				       kb, gq_cfg_jstr(pc->accounts[j], ab),
				       gq_cfg_jstr(cfg->projects[q].name, pb));
		return -1;
	}
	return 0;
}

/* Each account belongs to one project: names first, then the lists. */
static int _check_accounts(struct parser *p, struct json_object *arr)
{
	gq_config_t *cfg = p->cfg;
	struct lh_table *owner;
	int i, rc;

	owner = lh_table_new(cfg->nprojects < TABLE_MIN ? TABLE_MIN :
			     cfg->nprojects, NULL, gq_cfg_hash_nocase,
			     gq_cfg_equal_nocase);
	if (!owner)
		return gq_cfg_oom(p);
	rc = _own_names(p, arr, owner);
	for (i = 0; i < cfg->nprojects && !rc; i++)
		if (json_object_object_get_ex(json_object_array_get_idx(arr, i),
					      "accounts", NULL))
			rc = _own_list(p, i, owner);
	lh_table_free(owner);
	return rc;
}

/*
 * No project or department may be Slurm's root account: every account is
 * under it, so a department "root" would take in every top-level account,
 * and `gpuquota sync` would set a project's gpu_limit on the whole
 * cluster.  Its jobs (root's own) are an unlisted account's.  O(accounts).
 */
static int _no_root(struct parser *p, struct json_object *arr)
{
	const gq_config_t *cfg = p->cfg;
	const char *name;
	char kb[KP_MAX], vb[VAL_BUF];
	int i, j;

	for (i = 0; i < cfg->ndepts; i++)
		if (!strcasecmp(name = cfg->depts[i].name, GQ_ROOT_ACCOUNT)) {
			snprintf(kb, sizeof(kb), "departments[%d].name", i);
			goto root;
		}
	for (i = 0; i < cfg->nprojects; i++)
		for (j = 0; j < cfg->projects[i].naccounts; j++) {
			if (strcasecmp(name = cfg->projects[i].accounts[j],
				       GQ_ROOT_ACCOUNT))
				continue;
			if (json_object_object_get_ex(
				    json_object_array_get_idx(arr, i),
				    "accounts", NULL))
				snprintf(kb, sizeof(kb),
					 "projects[%d].accounts[%d]", i, j);
			else
				snprintf(kb, sizeof(kb), "projects[%d].name",
					 i);
			goto root;
		}
	return 0;
root:
	gq_cfg_set_err(p, "%s: must not be Slurm's root account (every account is under it), got %s",
		       kb, gq_cfg_jstr(name, vb));
	return -1;
}

int gq_cfg_parse_projects(struct parser *p, struct json_object *arr)
{
	gq_config_t *cfg = p->cfg;
	struct lh_table *names = NULL;
	char kb[KP_MAX];
	int n, i, rc = 0;

	n = gq_cfg_open_array(p, arr, "projects", sizeof(*cfg->projects),
			      (void **)&cfg->projects, &names);
	if (n <= 0)
		return n;
	cfg->nprojects = n;
	for (i = 0; i < n && !rc; i++)
		rc = _parse_project(p, json_object_array_get_idx(arr, i),
				    gq_cfg_kp_idx(kb, "projects", i), names,
				    &cfg->projects[i]);
	lh_table_free(names);
	if (!rc)
		rc = _check_accounts(p, arr);
	if (!rc)
		rc = _no_root(p, arr);
	return rc;
}
