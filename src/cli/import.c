/*
 * import.c - `gpuquota import` (see import.h): slurmdbd's account tree as
 * a draft gpuquota.json.  The draft is built from rows alone; the command
 * reads them with sacctmgr (cli/sacctmgr.h).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>
#include <slurm/slurm.h>

/* public API only: the command links libslurm */
#define GQ_SLURM_PUBLIC_ONLY
#include "shared/slurm_compat.h"
#include "cli/import.h"
#include "cli/sacctmgr.h"
#include "config/config.h"

/* The rows and what the draft shares while it walks them. */
typedef struct {
	const gq_acct_t *a;
	int n;
	void (*note)(const char *line, void *ctx);
	void *ctx;
	bool *seen;	/* a row already in a project (a cycle stops) */
} gq_tree_t;

static void _say(const gq_tree_t *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void _say(const gq_tree_t *t, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!t->note)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	t->note(line, t->ctx);
}

/* obj[key] = a new string or integer; -1 (nothing added) out of memory. */
static int _put(json_object *obj, const char *key, json_object *v)
{
	if (!v)
		return -1;
	if (json_object_object_add(obj, key, v)) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

static int _push(json_object *arr, json_object *v)
{
	if (!v)
		return -1;
	if (json_object_array_add(arr, v)) {
		json_object_put(v);
		return -1;
	}
	return 0;
}

static bool _is_child(const gq_tree_t *t, int i, const char *parent)
{
	return strcasecmp(t->a[i].name, "root") &&
	       strcasecmp(t->a[i].name, parent) &&
	       t->a[i].parent && !strcasecmp(t->a[i].parent, parent);
}

static bool _has_children(const gq_tree_t *t, const char *name)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (_is_child(t, i, name))
			return true;
	return false;
}

/* Users or sub-accounts: work runs there. */
static bool _active(const gq_tree_t *t, int i)
{
	return t->a[i].nusers > 0 || _has_children(t, t->a[i].name);
}

/* Add row i and its sub-accounts (every depth) to the array accts. */
static int _collect(gq_tree_t *t, int i, json_object *accts)
{
	int j;

	if (t->seen[i])
		return 0;
	t->seen[i] = true;
	if (!gq_config_name_ok(t->a[i].name))
		_say(t, "account %s: not a name gpuquota.json takes (letters, digits, '.', '_', '-', at most 64): left out",
		     t->a[i].name);
	else if (_push(accts, json_object_new_string(t->a[i].name)))
		return -1;
	for (j = 0; j < t->n; j++)
		if (_is_child(t, j, t->a[i].name) && _collect(t, j, accts))
			return -1;
	return 0;
}

/* Row i as a project (in department dept, or none) added to projects;
 * *quota gets its quota. */
static int _project(gq_tree_t *t, int i, const char *dept,
		    json_object *projects, long *quota)
{
	json_object *p = json_object_new_object(),
		    *accts = json_object_new_array();
	long q = t->a[i].gpu_limit > 0 ? t->a[i].gpu_limit : 0;

	*quota = q;
	if (!p || !accts || _collect(t, i, accts) ||
	    _put(p, "name", json_object_new_string(t->a[i].name)) ||
	    _put(p, "gpu_quota", json_object_new_int64(q)) ||
	    (dept && _put(p, "department", json_object_new_string(dept))))
		goto fail;
	/* its own name alone is the default */
	if (json_object_array_length(accts) > 1) {
		if (json_object_object_add(p, "accounts", accts))
			goto fail;
	} else {
		json_object_put(accts);
	}
	accts = NULL;
	return _push(projects, p);
fail:
	json_object_put(accts);
	json_object_put(p);
	return -1;
}

/* Row d as a department: its active sub-accounts its projects. */
static int _department(gq_tree_t *t, int d, json_object *depts,
		       json_object *projects)
{
	const char *name = t->a[d].name;
	json_object *o = json_object_new_object();
	long sum = 0, q;
	int j;

	t->seen[d] = true;
	for (j = 0; o && j < t->n; j++) {
		if (!_is_child(t, j, name) || t->seen[j])
			continue;
		if (!_active(t, j)) {
			_say(t, "account %s: no users and no sub-accounts: left out",
			     t->a[j].name);
			continue;
		}
		if (!gq_config_name_ok(t->a[j].name)) {
			_say(t, "account %s: not a name gpuquota.json takes: left out with its sub-accounts",
			     t->a[j].name);
			continue;
		}
		if (_project(t, j, name, projects, &q))
			goto fail;
		sum += q;
	}
	if (t->a[d].nusers)
		_say(t, "account %s: its %d users' jobs are a 0-quota project outside department %s (give them an account under it)",
		     name, t->a[d].nusers, name);
	q = t->a[d].gpu_limit >= 0 ? t->a[d].gpu_limit : sum;
	if (!o || _put(o, "name", json_object_new_string(name)) ||
	    _put(o, "gpu_quota", json_object_new_int64(q)))
		goto fail;
	return _push(depts, o);
fail:
	json_object_put(o);
	return -1;
}

/* Does some sub-account of name have sub-accounts of its own? */
static bool _two_levels(const gq_tree_t *t, const char *name)
{
	int j;

	for (j = 0; j < t->n; j++)
		if (_is_child(t, j, name) && _has_children(t, t->a[j].name))
			return true;
	return false;
}

/* One account under root: a department, a project, or left out. */
static int _top(gq_tree_t *t, int i, json_object *depts,
		json_object *projects)
{
	long q;

	if (!gq_config_name_ok(t->a[i].name)) {
		_say(t, "account %s: not a name gpuquota.json takes (letters, digits, '.', '_', '-', at most 64): left out with its sub-accounts",
		     t->a[i].name);
		return 0;
	}
	if (!_active(t, i)) {
		_say(t, "account %s: no users and no sub-accounts: left out",
		     t->a[i].name);
		return 0;
	}
	if (_two_levels(t, t->a[i].name))
		return _department(t, i, depts, projects);
	return _project(t, i, NULL, projects, &q);
}

/* The draft as one JSON object; NULL out of memory. */
static json_object *_draft(gq_tree_t *t)
{
	json_object *root = json_object_new_object(),
		    *depts = json_object_new_array(),
		    *projects = json_object_new_array();
	int i;

	if (!root || !depts || !projects)
		goto fail;
	for (i = 0; i < t->n; i++)
		if (_is_child(t, i, "root") && !t->seen[i] &&
		    _top(t, i, depts, projects))
			goto fail;
	if (json_object_array_length(depts)) {
		if (json_object_object_add(root, "departments", depts))
			goto fail;
	} else {
		json_object_put(depts);
	}
	depts = NULL;
	if (json_object_object_add(root, "projects", projects))
		goto fail;
	return root;
fail:
	json_object_put(depts);
	json_object_put(projects);
	json_object_put(root);
	return NULL;
}

int gq_import_draft(const gq_acct_t *rows, int n, FILE *out,
		    void (*note)(const char *line, void *ctx), void *ctx)
{
	gq_tree_t t = { rows, n, note, ctx, calloc(n + 1, sizeof(bool)) };
	json_object *root = t.seen ? _draft(&t) : NULL;
	int rc = -1, flags = JSON_C_TO_STRING_PRETTY |
			     JSON_C_TO_STRING_SPACED |
			     JSON_C_TO_STRING_NOSLASHESCAPE;

	if (root && fprintf(out, "%s\n",
			    json_object_to_json_string_ext(root, flags)) > 0)
		rc = fflush(out) ? -1 : 0;
	json_object_put(root);
	free(t.seen);
	return rc;
}

static void _note(const char *line, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "gpuquota: note: %s\n", line);
}

/* The cluster's accounts into a draft at path (NULL: stdout). */
static int _import(const char *cluster, const char *path)
{
	gq_accts_t have;
	FILE *out = stdout;
	int rc = 0;

	if (gq_sacctmgr_accounts(cluster, &have)) {
		fprintf(stderr, "gpuquota: sacctmgr show assoc failed\n");
		return 1;
	}
	if (path && !(out = fopen(path, "w"))) {
		fprintf(stderr, "gpuquota: %s: cannot write: %m\n", path);
		rc = 1;
	} else if (gq_import_draft(have.a, have.n, out, _note, NULL)) {
		fprintf(stderr, "gpuquota: %s: writing the draft failed\n",
			path ? path : "stdout");
		rc = 1;
	}
	if (path && out && fclose(out) && !rc) {
		fprintf(stderr, "gpuquota: %s: cannot write: %m\n", path);
		rc = 1;
	}
	if (!rc)
		fprintf(stderr, "gpuquota: note: quotas are the accounts' GrpTRES=gres/gpu (0 when none): edit them, then run `gpuquota check FILE`\n");
	gq_sacctmgr_accounts_free(&have);
	return rc;
}

#define GQ_IMPORT_USAGE "usage: gpuquota import [-o FILE]\n"

int gq_import_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL;
	slurm_conf_t *conf = NULL;
	char *cluster;
	int opt, rc;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		if (opt == 'o') {
			path = optarg;
		} else {
			fputs(GQ_IMPORT_USAGE, opt == 'h' ? stdout : stderr);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (optind < argc) {
		fputs(GQ_IMPORT_USAGE, stderr);
		return 2;
	}
	if (slurm_load_ctl_conf(0, &conf)) {
		slurm_perror("gpuquota: slurm_load_ctl_conf");
		return 1;
	}
	if (!gq_sacctmgr_is_dbd(conf)) {
		fprintf(stderr, "gpuquota: import needs AccountingStorageType=accounting_storage/slurmdbd\n");
		gq_free_ctl_conf(conf);
		return 1;
	}
	cluster = strdup(conf->cluster_name ? conf->cluster_name : "");
	gq_free_ctl_conf(conf);
	if (!cluster) {
		fprintf(stderr, "gpuquota: out of memory\n");
		return 1;
	}
	rc = _import(cluster, path);
	free(cluster);
	return rc;
}
