/*
 * gpuquota.c - the gpuquota command: what the plugins decide, seen through
 * libslurm's public API and the same core and config code.
 *
 *   gpuquota projects [--json]        quota, allocation, fair share per project
 *   gpuquota jobs [-A account] [--json]
 *                                     workloads with project, GPUs, quota use
 *   gpuquota check [FILE] [--json]    validate a config, show its fair shares
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include <json-c/json.h>
#include <slurm/slurm.h>

#include "config/config.h"
#include "core/gres_text.h"
#include "cli/sync.h"
#include "core/view.h"
#include "shared/job_reasons.h"


typedef struct {
	gq_acct_t *a;		/* names and parents are malloc'ed */
	int n;
} gq_accts_t;

typedef struct {
	gq_config_t *cfg;
	gq_view_t *view;
	job_info_msg_t *jobs;
	double capacity;
	bool dbd;		/* accounting through slurmdbd */
	gq_accts_t accts;	/* its account associations, when dbd */
} gq_cli_t;

static void _usage(FILE *f)
{
	fprintf(f,
		"usage: gpuquota projects [--json]\n"
		"       gpuquota jobs [-A account] [--json]\n"
		"       gpuquota check [FILE] [--json]\n"
		"       gpuquota sync [--dry-run] [FILE]\n");
}

/* ---- accounts in slurmdbd (sacctmgr) ------------------------------------ */

static void _free_accounts(gq_accts_t *a)
{
	int i;

	for (i = 0; i < a->n; i++) {
		free((char *)a->a[i].name);
		free((char *)a->a[i].parent);
	}
	free(a->a);
	memset(a, 0, sizeof(*a));
}

/*
 * The account associations of a cluster, from `sacctmgr show assoc`
 * (rows without a user).  Returns -1 when sacctmgr fails.
 */
static int _load_accounts(const char *cluster, gq_accts_t *out)
{
	char cmd[512], *line = NULL;
	size_t cap = 0;
	FILE *f;

	memset(out, 0, sizeof(*out));
	snprintf(cmd, sizeof(cmd),
		 "sacctmgr -n -P show assoc cluster='%s' format=Account,User,ParentName,GrpTRES 2>/dev/null",
		 cluster);
	if (!(f = popen(cmd, "r")))
		return -1;
	while (getline(&line, &cap, f) > 0) {
		char *fields[4] = { 0 }, *p = line;
		gq_acct_t *na;
		int k;

		line[strcspn(line, "\n")] = 0;
		for (k = 0; k < 4 && p; k++)
			fields[k] = strsep(&p, "|");
		if (!fields[0] || !*fields[0] || (fields[1] && *fields[1]))
			continue;	/* a user's association */
		if (!(na = realloc(out->a, sizeof(*na) * (out->n + 1))))
			break;
		out->a = na;
		na[out->n].name = strdup(fields[0]);
		na[out->n].parent = strdup(fields[2] && *fields[2] ?
					   fields[2] : "root");
		na[out->n].gpu_limit = gq_sync_grptres_gpus(fields[3]);
		out->n++;
	}
	free(line);
	return pclose(f) == 0 ? 0 : -1;
}

static bool _is_dbd(const slurm_conf_t *conf)
{
	return conf->accounting_storage_type &&
	       strstr(conf->accounting_storage_type, "slurmdbd");
}

/*
 * With slurmdbd: warn (stderr) about configured accounts it does not have,
 * as slurmctld's log does.
 */
static void _check_accounts(const gq_cli_t *c)
{
	int i, j, k;

	if (!c->dbd)
		return;
	for (i = 0; i < c->cfg->nprojects; i++)
		for (j = 0; j < c->cfg->projects[i].naccounts; j++) {
			const char *acct = c->cfg->projects[i].accounts[j];

			for (k = 0; k < c->accts.n; k++)
				if (!strcasecmp(c->accts.a[k].name, acct))
					break;
			if (k == c->accts.n)
				fprintf(stderr, "gpuquota: warning: project %s: account %s does not exist in slurmdbd: Slurm refuses its jobs where AccountingStorageEnforce has associations (`gpuquota sync` creates it)\n",
					c->cfg->projects[i].name, acct);
		}
}

/* Slurm's account tree, with slurmdbd: the same structure the plugin uses */
static void _account_tree(gq_cli_t *c)
{
	int i;

	for (i = 0; c->dbd && i < c->accts.n; i++)
		gq_view_account_parent(c->view, c->accts.a[i].name,
				       c->accts.a[i].parent);
}

/* Run "sacctmgr -i <args>" without a shell. */
static int _sacctmgr(const char *args)
{
	char *copy = strdup(args), *argv[64], *p = copy, *tok;
	int argc = 0, status;
	pid_t pid;

	argv[argc++] = "sacctmgr";
	argv[argc++] = "-i";
	while ((tok = strsep(&p, " ")) && argc < 63)
		if (*tok)
			argv[argc++] = tok;
	argv[argc] = NULL;
	if ((pid = fork()) == 0) {
		execvp("sacctmgr", argv);
		_exit(127);
	}
	free(copy);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/*
 * gpuquota sync: make slurmdbd's accounts match the configuration, with
 * sacctmgr; --dry-run only prints the commands.
 */
static int _cmd_sync(const char *file, int dry_run)
{
	slurm_conf_t *conf = NULL;
	gq_config_t *cfg = NULL;
	gq_accts_t have;
	gq_plan_t plan;
	char err[1024], *path, *cluster;
	int i, rc = 0;

	if (slurm_load_ctl_conf(0, &conf)) {
		slurm_perror("gpuquota: slurm_load_ctl_conf");
		return 1;
	}
	if (!_is_dbd(conf)) {
		fprintf(stderr, "gpuquota: sync needs AccountingStorageType=accounting_storage/slurmdbd (this cluster has %s)\n",
			conf->accounting_storage_type ? conf->accounting_storage_type : "none");
		slurm_free_ctl_conf(conf);
		return 1;
	}
	path = file ? strdup(file) :
		gq_config_path(conf->slurm_conf, conf->priority_params);
	cluster = strdup(conf->cluster_name);
	slurm_free_ctl_conf(conf);
	if (gq_config_load(path, &cfg, err, sizeof(err))) {
		fprintf(stderr, "gpuquota: %s\n", err);
		free(path);
		free(cluster);
		return 2;
	}
	free(path);
	if (_load_accounts(cluster, &have)) {
		fprintf(stderr, "gpuquota: sacctmgr show assoc failed\n");
		rc = 1;
	} else if (gq_sync_plan(cfg, have.a, have.n, cluster, &plan)) {
		fprintf(stderr, "gpuquota: out of memory\n");
		rc = 1;
	} else {
		if (!plan.n)
			printf("gpuquota: slurmdbd accounts of %s already match the configuration\n",
			       cluster);
		for (i = 0; i < plan.n; i++) {
			printf("%ssacctmgr -i %s\n", dry_run ? "would run: " : "", plan.cmds[i]);
			if (!dry_run && _sacctmgr(plan.cmds[i])) {
				fprintf(stderr, "gpuquota: failed: sacctmgr -i %s\n", plan.cmds[i]);
				rc = 1;
				break;
			}
		}
		gq_sync_plan_free(&plan);
	}
	_free_accounts(&have);
	gq_config_free(cfg);
	free(cluster);
	return rc;
}

static int _in_pool(const gq_config_t *cfg, const char *parts)
{
	int i;

	if (!cfg->settings.npartitions)
		return 1;
	for (i = 0; parts && i < cfg->settings.npartitions; i++) {
		const char *p = parts, *name = cfg->settings.partitions[i];
		size_t n = strlen(name);

		while ((p = strstr(p, name))) {
			if ((p == parts || p[-1] == ',') &&
			    (p[n] == '\0' || p[n] == ','))
				return 1;
			p += n;
		}
	}
	return 0;
}

/* C: GPUs of nodes that can take work in the pool's partitions */
static double _capacity(const gq_config_t *cfg)
{
	node_info_msg_t *nodes = NULL;
	partition_info_msg_t *parts = NULL;
	double c = 0;
	uint32_t i;

	if (slurm_load_node(0, &nodes, SHOW_ALL) ||
	    slurm_load_partitions(0, &parts, SHOW_ALL)) {
		slurm_perror("gpuquota: loading nodes and partitions");
		exit(1);
	}
	/* node_info_t.partitions is filled in client side */
	slurm_populate_node_partitions(nodes, parts);
	slurm_free_partition_info_msg(parts);
	for (i = 0; i < nodes->record_count; i++) {
		node_info_t *n = &nodes->node_array[i];
		uint32_t base = n->node_state & NODE_STATE_BASE;

		if (!n->name || base == NODE_STATE_DOWN ||
		    base == NODE_STATE_FUTURE ||
		    (n->node_state & (NODE_STATE_DRAIN | NODE_STATE_NO_RESPOND)))
			continue;
		if (_in_pool(cfg, n->partitions))
			c += gq_gres_text_gpus(n->gres);
	}
	slurm_free_node_info_msg(nodes);
	return c;
}

static uint64_t _requested_gpus(const slurm_job_info_t *j)
{
	uint64_t n = gq_gres_text_gpus(j->tres_per_job);
	uint32_t nodes = j->num_nodes ? j->num_nodes : 1;

	n += gq_gres_text_gpus(j->tres_per_node) * nodes;
	n += gq_gres_text_gpus(j->tres_per_task) *
	     (j->num_tasks && j->num_tasks != NO_VAL ? j->num_tasks : 1);
	return n;
}

static uint64_t _allocated_gpus(const slurm_job_info_t *j)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < j->gres_detail_cnt; i++)
		n += gq_gres_text_gpus(j->gres_detail_str[i]);
	return n ? n : _requested_gpus(j);
}

static int _is_running(const slurm_job_info_t *j)
{
	uint32_t base = j->job_state & JOB_STATE_BASE;

	return base == JOB_RUNNING || base == JOB_SUSPENDED;
}

static int _counts(const slurm_job_info_t *j)
{
	return _is_running(j) || (j->job_state & JOB_STATE_BASE) == JOB_PENDING;
}

/* The same inputs snapshot.c gives the plugin, from the public API. */
static void _job_input(const slurm_job_info_t *j, gq_job_t *in)
{
	memset(in, 0, sizeof(*in));
	in->id = j->job_id;
	in->tasks = 1;
	if (_is_running(j)) {
		in->state = GQ_JOB_RUNNING;
		in->gpus = _allocated_gpus(j);
	} else {
		in->gpus = _requested_gpus(j);
		/* a job gpuquota holds says so in its reason */
		bool ours = j->priority == 0 && j->state_reason == WAIT_HELD &&
			    j->state_desc &&
			    !strncmp(j->state_desc, "gpuquota:", 9);

		if (gq_reason_not_demand(j->state_reason, j->priority, ours,
					 j->state_reason == WAIT_TIME))
			in->state = GQ_JOB_WAITING;
		else
			in->state = GQ_JOB_PENDING;
	}
	in->requeueable = j->batch_flag && j->requeue;
	in->order = -((int64_t)j->nice - (int64_t)NICE_OFFSET);
	in->submit_time = j->submit_time;
	in->start_time = j->start_time;
}

static void _load(gq_cli_t *c, const char *file, int check_only)
{
	slurm_conf_t *conf = NULL;
	char err[1024], *path;
	uint32_t i;

	if (slurm_load_ctl_conf(0, &conf)) {
		slurm_perror("gpuquota: slurm_load_ctl_conf");
		exit(1);
	}
	path = file ? strdup(file) :
		gq_config_path(conf->slurm_conf, conf->priority_params);
	c->dbd = _is_dbd(conf) &&
		 !_load_accounts(conf->cluster_name, &c->accts);
	slurm_free_ctl_conf(conf);
	if (gq_config_load(path, &c->cfg, err, sizeof(err))) {
		fprintf(stderr, "gpuquota: %s\n", err);
		exit(check_only ? 2 : 1);
	}
	free(path);
	c->view = gq_view_create(c->cfg);
	c->capacity = _capacity(c->cfg);
	if (slurm_load_jobs(0, &c->jobs, SHOW_ALL)) {
		slurm_perror("gpuquota: slurm_load_jobs");
		exit(1);
	}
	gq_view_begin(c->view, c->capacity, time(NULL));
	_account_tree(c);
	for (i = 0; i < c->jobs->record_count; i++) {
		slurm_job_info_t *j = &c->jobs->job_array[i];
		gq_job_t in, *job;

		if (!_counts(j) || !_in_pool(c->cfg, j->partition))
			continue;
		_job_input(j, &in);
		if (!(job = gq_view_add_job(c->view, j->job_id, j->account)))
			continue;
		in.project = job->project;
		in.band = GQ_BAND_NONE;
		in.preempt_rank = UINT32_MAX;
		*job = in;
	}
	gq_view_compute(c->view);
}

/*
 * Print {"capacity": C, key1: v1, key2: v2} when json; takes the values
 * either way.
 */
static void _emit(gq_cli_t *c, int json, const char *k1, json_object *v1,
		  const char *k2, json_object *v2)
{
	json_object *top = json_object_new_object();

	json_object_object_add(top, "capacity",
			       json_object_new_int64((int64_t)c->capacity));
	json_object_object_add(top, k1, v1);
	if (k2)
		json_object_object_add(top, k2, v2);
	if (json)
		printf("%s\n", json_object_to_json_string_ext(
			       top, JSON_C_TO_STRING_PRETTY |
			       JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(top);
}

typedef struct {
	const char *name;
	const char *department;	/* projects: their department, or NULL */
	bool configured;
	double quota, limit, weight, share;
	uint32_t alloc, pending;
} gq_row_t;

static const char *_state(const gq_row_t *r)
{
	if (r->alloc > r->quota + 1e-9)
		return "over-quota";
	if (r->alloc + 1e-9 >= r->quota)
		return "at-quota";
	return "under-quota";
}

static void _fmt_num(char *buf, size_t n, double v)
{
	if (isinf(v))
		snprintf(buf, n, "-");
	else if (fabs(v - round(v)) < 1e-9)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.2f", v);
}

static json_object *_row_json(const gq_row_t *r, bool project)
{
	json_object *o = json_object_new_object();
	double over = r->alloc > r->quota ? r->alloc - r->quota : 0;

	json_object_object_add(o, "name", json_object_new_string(r->name));
	if (project) {
		json_object_object_add(o, "department", r->department ?
				       json_object_new_string(r->department) : NULL);
		json_object_object_add(o, "configured", json_object_new_boolean(r->configured));
	}
	json_object_object_add(o, "gpu_quota", json_object_new_int64((int64_t)r->quota));
	json_object_object_add(o, "gpu_limit", isinf(r->limit) ? NULL :
			       json_object_new_int64((int64_t)r->limit));
	json_object_object_add(o, "over_quota_weight", json_object_new_double(r->weight));
	json_object_object_add(o, "allocated", json_object_new_int64(r->alloc));
	json_object_object_add(o, "over_quota", json_object_new_int64((int64_t)over));
	json_object_object_add(o, "fair_share", json_object_new_double(r->share));
	json_object_object_add(o, "pending", json_object_new_int64(r->pending));
	json_object_object_add(o, "state", json_object_new_string(_state(r)));
	return o;
}

static void _row_print(const gq_row_t *r, const char *label)
{
	char lim[32], w[32], fs[32];
	double over = r->alloc > r->quota ? r->alloc - r->quota : 0;

	_fmt_num(lim, sizeof(lim), r->limit);
	_fmt_num(w, sizeof(w), r->weight);
	_fmt_num(fs, sizeof(fs), r->share);
	printf("%-18s %5.0f %5s %6s %9u %10.0f %10s %7u %s\n", label,
	       r->quota, lim, w, r->alloc, over, fs, r->pending, _state(r));
}

static gq_row_t _project_row(const gq_view_t *v, int i)
{
	const gq_project_t *p = gq_view_project(v, i);
	const gq_dept_t *d = gq_view_dept(v, p->department);
	gq_row_t r = { .name = p->name, .department = d ? d->name : NULL,
		       .configured = p->configured, .quota = p->quota,
		       .limit = p->limit, .weight = p->weight,
		       .share = p->share, .alloc = p->alloc,
		       .pending = p->pending };

	return r;
}

static bool _shown(const gq_project_t *p)
{
	/* an account no project lists is shown while it has work */
	return p->configured || p->alloc || p->pending;
}

/*
 * Departments, each followed by its projects, then the projects outside
 * any department.  JSON: {"capacity", "departments": [...],
 * "projects": [...]}.
 */
static int _cmd_projects(gq_cli_t *c, int json)
{
	int i, d, n = gq_view_nprojects(c->view), nd = gq_view_ndepts(c->view);
	json_object *projects = json_object_new_array();
	json_object *depts = json_object_new_array();
	char label[64];

	if (!json)
		printf("%-18s %5s %5s %6s %9s %10s %10s %7s %s\n", "PROJECT",
		       "QUOTA", "LIMIT", "WEIGHT", "ALLOCATED", "OVER_QUOTA",
		       "FAIR_SHARE", "PENDING", "STATE");
	for (d = -1; d < nd; d++) {
		if (d >= 0) {
			const gq_dept_t *dp = gq_view_dept(c->view, d);
			gq_row_t r = { .name = dp->name, .configured = true,
				       .quota = dp->quota, .limit = dp->limit,
				       .weight = dp->weight, .share = dp->share,
				       .alloc = dp->alloc };

			for (i = 0; i < n; i++)
				if (gq_view_project(c->view, i)->department == d)
					r.pending += gq_view_project(c->view, i)->pending;
			if (json) {
				json_object_array_add(depts, _row_json(&r, false));
			} else {
				snprintf(label, sizeof(label), "%s/", dp->name);
				_row_print(&r, label);
			}
		}
		for (i = 0; i < n; i++) {
			const gq_project_t *p = gq_view_project(c->view, i);
			gq_row_t r;

			if (p->department != d || !_shown(p))
				continue;
			r = _project_row(c->view, i);
			if (json) {
				json_object_array_add(projects, _row_json(&r, true));
				continue;
			}
			snprintf(label, sizeof(label), "%s%s", d >= 0 ? "  " : "",
				 p->name);
			_row_print(&r, label);
		}
	}
	_emit(c, json, "departments", depts, "projects", projects);
	return 0;
}

static const char *_job_state(const slurm_job_info_t *j)
{
	/* only active jobs are listed; the public API has no name table */
	switch (j->job_state & JOB_STATE_BASE) {
	case JOB_PENDING:
		return "PENDING";
	case JOB_RUNNING:
		return "RUNNING";
	case JOB_SUSPENDED:
		return "SUSPENDED";
	default:
		return "DONE";
	}
}

/* running: in-quota / over-quota; pending: its band */
static const char *_quota_use(const gq_job_t *job)
{
	if (job->state == GQ_JOB_RUNNING)
		return job->over_quota ? "over-quota" : "in-quota";
	return gq_band_name(job->band);
}

static int _cmd_jobs(gq_cli_t *c, const char *account, int json)
{
	json_object *arr = json_object_new_array();
	uint32_t i;

	if (!json)
		printf("%-14s %8s %-11s %-9s %-16s %-10s %4s %s\n", "NAME",
		       "JOBID", "TYPE", "STATE", "PROJECT", "NODES", "GPUS",
		       "QUOTA");
	for (i = 0; i < c->jobs->record_count; i++) {
		slurm_job_info_t *j = &c->jobs->job_array[i];
		const gq_job_t *job = gq_view_job(c->view, j->job_id);
		const gq_project_t *p;
		const char *type = j->batch_flag ? "batch" : "interactive";

		if (!job || (account && (!j->account ||
					 strcasecmp(account, j->account))))
			continue;
		p = gq_view_project(c->view, job->project);
		if (json) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "name", json_object_new_string(j->name ? j->name : ""));
			json_object_object_add(o, "job_id", json_object_new_int64(j->job_id));
			json_object_object_add(o, "type", json_object_new_string(type));
			json_object_object_add(o, "state", json_object_new_string(_job_state(j)));
			json_object_object_add(o, "project", json_object_new_string(p->name));
			json_object_object_add(o, "account", json_object_new_string(j->account ? j->account : ""));
			json_object_object_add(o, "nodes", json_object_new_string(j->nodes ? j->nodes : ""));
			json_object_object_add(o, "gpus", json_object_new_int64(job->gpus));
			json_object_object_add(o, "quota", json_object_new_string(_quota_use(job)));
			json_object_object_add(o, "preemptible", json_object_new_boolean(job->victim != 0));
			json_object_array_add(arr, o);
			continue;
		}
		printf("%-14.14s %8u %-11s %-9s %-16.16s %-10.10s %4u %s\n",
		       j->name ? j->name : "", j->job_id, type, _job_state(j),
		       p->name, j->nodes && *j->nodes ? j->nodes : "-",
		       job->gpus, _quota_use(job));
	}
	_emit(c, json, "jobs", arr, NULL, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "account", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd, *account = NULL;
	gq_cli_t c = { 0 };
	int json = 0, dry_run = 0, opt, rc;

	while ((opt = getopt_long(argc, argv, "A:hjn", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			dry_run = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'A':
			account = optarg;
			break;
		case 'h':
			_usage(stdout);
			return 0;
		default:
			_usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		_usage(stderr);
		return 2;
	}
	cmd = argv[optind++];
	if (!strcmp(cmd, "sync"))
		return _cmd_sync(optind < argc ? argv[optind] : NULL, dry_run);
	if (!strcmp(cmd, "projects")) {
		_load(&c, NULL, 0);
		rc = _cmd_projects(&c, json);
	} else if (!strcmp(cmd, "jobs")) {
		_load(&c, NULL, 0);
		rc = _cmd_jobs(&c, account, json);
	} else if (!strcmp(cmd, "check")) {
		_load(&c, optind < argc ? argv[optind] : NULL, 1);
		if (!json)
			printf("gpuquota: configuration OK: %d projects, %.0f GPUs in the pool\n",
			       c.cfg->nprojects, c.capacity);
		_check_accounts(&c);
		rc = _cmd_projects(&c, json);
	} else {
		_usage(stderr);
		return 2;
	}
	gq_view_free(c.view);
	gq_config_free(c.cfg);
	_free_accounts(&c.accts);
	slurm_free_job_info_msg(c.jobs);
	return rc;
}
