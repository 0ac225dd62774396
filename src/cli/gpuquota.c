/*
 * gpuquota.c - the gpuquota command: what the plugins decide, seen through
 * libslurm's public API and the same core, config and job-reading rules
 * (shared/job_facts.h) as slurmctld's plugins.
 *
 *   gpuquota projects [--json]        quota, allocation, fair share per project
 *   gpuquota jobs [-A account] [--json]
 *                                     workloads with project, GPUs, band,
 *                                     priority, quota use
 *   gpuquota check [FILE] [--json]    validate a config, show its fair shares
 *   gpuquota sync [-n] [-i] [--reparent] [FILE]
 *                                     slurmdbd's accounts to match the config
 *                                     (cli/sacctmgr.h)
 *   gpuquota import [-o FILE]         a draft config from slurmdbd's accounts
 *                                     (cli/import.h)
 *   gpuquota --version                its version, and the Slurm it was built for
 *   gpuquota metrics [--listen ADDR:PORT [--cache-seconds S]]
 *                                     Prometheus text exposition (cli/metrics.h),
 *                                     or served at /metrics (cli/serve.h), Slurm
 *                                     read at most every S seconds
 *                                     (cli/scrape_cache.h)
 *   gpuquota ledger [--since D] [--project P] [--by day|week] [--json]
 *                                     who took GPUs from whom (cli/ledger.h)
 */
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>
#include <slurm/slurm.h>

/* public API only: the command links libslurm */
#define GQ_SLURM_PUBLIC_ONLY
#include "shared/slurm_compat.h"
#include "cli/check_hints.h"
#include "cli/checkpoint.h"
#include "cli/import.h"
#include "cli/ledger.h"
#include "cli/metrics.h"
#include "cli/read_api.h"
#include "cli/sacctmgr.h"
#include "cli/simulate.h"
#include "cli/serve.h"

/* where libslurm reads slurm.conf when SLURM_CONF is not set (Debian) */
#define GQ_DEFAULT_SLURM_CONF "/etc/slurm/slurm.conf"

#ifndef GQ_VERSION
#define GQ_VERSION "unknown"
#endif
#include "state/metrics_file.h"
#include "config/advice.h"
#include "config/config.h"
#include "core/pools.h"
#include "state/ledger.h"
#include "state/losses.h"
#include "state/usage.h"
#include "core/view.h"
#include "shared/job_facts.h"
#include "shared/pass_input.h"
#include "shared/wiring.h"
#include "cli/release.h"
#include "cli/running_config.h"
#include "tools/trusted_file.h"

/*
 * How long `gpuquota check FILE` waits for a controller before it gives
 * the file's verdict alone: libslurm retries an unreachable controller
 * for MessageTimeout (10 s by default) and more.
 */
#define GQ_CHECK_WAIT_MS 800

/* Room for one number of the projects table, and for one row's label. */
#define GQ_NUM_MAX 32
#define GQ_LABEL_MAX 64

typedef struct {
	gq_config_t *cfg;
	gq_pools_t *pools;	/* a view per pool */
	double *caps;		/* each pool's capacity */
	int only;		/* --pool: its index; -1: every pool */
	/* the pool being shown (_use_pool) */
	gq_view_t *view;
	double capacity;
	const char *pool;	/* its name; NULL without pools */
	gq_api_t api;		/* nodes and jobs, from slurmctld */
	bool dbd;		/* accounting through slurmdbd */
	bool enforce_limits;	/* AccountingStorageEnforce has limits */
	gq_accts_t accts;	/* its account associations, when dbd */
	gq_qos_table_t qos;	/* QOS priorities, when dbd */
	char *state_path;	/* the plugin's metrics file */
	gq_cli_config_t src;	/* running copy or file on disk, and why */
	gq_usage_t usage;	/* the plugin's usage file, when readable */
	gq_losses_t losses;	/* the ledger's losses, when readable */
	/* Slurm's PrivateData hides other users' jobs (accounts) from the
	 * caller: see _privacy */
	bool private_jobs, private_accounts;
	bool *mine;		/* private_accounts: projects of the caller's jobs */
} gq_cli_t;

static void _usage(FILE *f)
{
	fprintf(f,
		"usage: gpuquota projects [--pool NAME] [--json]\n"
		"       gpuquota jobs [-A account] [--pool NAME] [--json]\n"
		"       gpuquota check [FILE] [--json]\n"
		"       gpuquota sync [-n|--dry-run] [-i|--immediate] [--reparent] [FILE]\n"
		"       gpuquota import [-o FILE]\n"
		"       gpuquota metrics [--listen ADDR:PORT [--cache-seconds S]]\n"
		"                        (--listen: Slurm read at most every S s, 1-3600;\n"
		"                         default gpuquota.json's settings.recompute_interval)\n"
		"       gpuquota checkpoint [JOBID]\n"
		"       gpuquota release [--dry-run]\n"
		"       gpuquota ledger [--since YYYY-MM-DD] [--project P] [--by day|week] [--json] [--dir DIR]\n"
		"       gpuquota simulate (--trace CSV | --sacct FILE) (--nodes N --gpus-per-node G | --nodes-from FILE) [--json] [--accounts] [--plot FILE.png] CONFIG...|stock...\n"
		"       gpuquota --version\n");
}

/* slurm.conf's AccountingStorageEnforce=limits: read_config.h's
 * ACCOUNTING_ENFORCE_LIMITS (SLURM_BIT(1) in 22.05 to 26.05), not in the
 * public API */
#define GQ_ENFORCE_LIMITS 0x0002

static void _warn(const char *line, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "gpuquota: warning: %s\n", line);
}

/* What _check_partitions' callbacks share. */
typedef struct {
	const partition_info_msg_t *parts;
	int bad;
} gq_part_check_t;

static int _partition_nodes(const char *name, void *ctx)
{
	const partition_info_msg_t *parts = ((gq_part_check_t *)ctx)->parts;
	uint32_t i;

	for (i = 0; parts && i < parts->record_count; i++)
		if (parts->partition_array[i].name &&
		    !strcmp(parts->partition_array[i].name, name))
			return (int)parts->partition_array[i].total_nodes;
	return -1;
}

static void _bad_partition(const char *line, void *ctx)
{
	fprintf(stderr, "gpuquota: %s\n", line);
	((gq_part_check_t *)ctx)->bad++;
}

/*
 * The partitions of the pools (or settings.partitions) that Slurm lacks
 * or that have no nodes: said; how many.
 */
static int _check_partitions(gq_cli_t *c)
{
	gq_part_check_t pc = { .parts = c->api.parts };

	gq_missing_partitions(c->cfg, _partition_nodes, _bad_partition, &pc);
	return pc.bad;
}

/*
 * Warn (stderr) about quotas beyond a pool's GPUs and, with slurmdbd,
 * about configured accounts it does not have, in the words of
 * slurmctld's log, accounts no project lists (cli/check_hints.h), and
 * gpu_limits without Slurm's own limit behind them (gq_sync_backstop).
 */
static void _check_accounts(gq_cli_t *c)
{
	gq_check_hints(c->cfg, c->dbd ? &c->accts : NULL, c->caps, _warn);
	if (!c->dbd)
		return;
	gq_sync_backstop(c->cfg, c->accts.a, c->accts.n, c->enforce_limits,
			 _warn, NULL);
}

/* Slurm's account tree, with slurmdbd: the same structure the plugin uses */
static int _account_tree(gq_cli_t *c, gq_view_t *view)
{
	int i;

	for (i = 0; c->dbd && i < c->accts.n; i++)
		if (gq_view_account_parent(view, c->accts.a[i].name,
					   c->accts.a[i].parent))
			return -1;
	return 0;
}

static void _cli_free(gq_cli_t *c)
{
	gq_pools_free(c->pools);
	free(c->caps);
	gq_config_free(c->cfg);
	gq_sacctmgr_accounts_free(&c->accts);
	gq_api_free(&c->api);
	gq_sacctmgr_qos_free(&c->qos);
	free(c->state_path);
	gq_usage_free(&c->usage);
	gq_losses_free(&c->losses);
	free(c->mine);
	memset(c, 0, sizeof(*c));
}

/* Is there a Slurm here to ask: a slurm.conf libslurm would read? */
static bool _slurm_here(void)
{
	const char *conf = getenv("SLURM_CONF");

	return !access(conf && *conf ? conf : GQ_DEFAULT_SLURM_CONF, R_OK);
}

/*
 * Does a controller answer Slurm's configuration request within
 * GQ_CHECK_WAIT_MS?  Asked in a child (killed when late, its output
 * dropped): libslurm's own wait cannot be bounded from outside.  Its
 * answer is not kept: a controller that answered once answers again.
 */
static bool _controller_answers(void)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	int status, waited, fd;
	pid_t pid, r;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return true;	/* cannot tell: ask as before */
	if (!pid) {
		slurm_conf_t *conf = NULL;

		if ((fd = open("/dev/null", O_WRONLY)) >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		slurm_init(NULL);
		_exit(slurm_load_ctl_conf(0, &conf) ? 1 : 0);
	}
	for (waited = 0; waited < GQ_CHECK_WAIT_MS; waited += 20) {
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			return WIFEXITED(status) && !WEXITSTATUS(status);
		if (r < 0)
			return false;
		nanosleep(&tick, NULL);
	}
	kill(pid, SIGKILL);
	(void)waitpid(pid, &status, 0);
	return false;
}

/*
 * `check`: the settings as they take effect (defaults included), and each
 * project's own grace time where it has one.
 */
static void _settings_line(const gq_config_t *cfg)
{
	int i, n = 0;

	printf("gpuquota: settings: min_runtime %d s, grace_time %d s",
	       cfg->settings.min_runtime, cfg->settings.grace_time);
	for (i = 0; i < cfg->nprojects; i++)
		if (cfg->projects[i].grace_time != GQ_UNSET)
			printf("%s%s %d s", n++ ? ", " : " (",
			       cfg->projects[i].name,
			       cfg->projects[i].grace_time);
	printf("%s, room_wait %d s, reclaim_patience %d s, usage_half_life %d s, usage_weight %g, recompute_interval %d s, multifactor %s%s\n",
	       n ? ")" : "", cfg->settings.room_wait,
	       cfg->settings.reclaim_patience, cfg->settings.usage_half_life,
	       cfg->settings.usage_weight, cfg->settings.recompute_interval,
	       cfg->settings.multifactor ? "true" : "false",
	       cfg->settings.mode == GQ_MODE_OBSERVE ? ", mode observe" : "");
}

/*
 * `gpuquota check FILE` judges the file alone, never waiting on Slurm (a
 * config repository's CI, an admin's laptop, a controller that is down):
 * the same verdict and messages as slurmctld's.  Returns the exit status
 * (2: a bad file), or -1 when a controller answers to add the fair shares
 * on this cluster.
 */
static int _check_offline(const char *file, bool json)
{
	char err[GQ_ERR_MAX];
	gq_config_t *cfg = NULL;
	const char *why;

	if (gq_config_load(file, &cfg, err, sizeof(err))) {
		fprintf(stderr, "gpuquota: %s\n", err);
		return 2;
	}
	if (!_slurm_here()) {
		why = "no slurm.conf here";
	} else if (_controller_answers()) {
		gq_config_free(cfg);
		return -1;
	} else {
		why = "no controller answered";
	}
	gq_config_advice(cfg, _warn, NULL);
	if (json) {
		printf("{\"ok\": true, \"projects\": %d, \"departments\": %d}\n",
		       cfg->nprojects, cfg->ndepts);
	} else {
		printf("gpuquota: configuration OK: %d projects, %d departments (%s: fair shares not computed)\n",
		       cfg->nprojects, cfg->ndepts, why);
		_settings_line(cfg);
	}
	gq_config_free(cfg);
	return 0;
}

/*
 * What Slurm's PrivateData hides from the caller, as squeue and sacctmgr
 * see it: root and SlurmUser see everything (so do Slurm's operators and
 * admins, who are not told apart here: they get the restricted view too,
 * never a wrong one).  With jobs hidden, libslurm returns only the
 * caller's own jobs, so a model computed from them would be wrong for
 * everyone: allocations, fair shares and bands are not shown, and the
 * caller's pending jobs show the band slurmctld gave them (their
 * priority).  With accounts hidden, only the projects of the caller's own
 * jobs are listed.
 */
static void _privacy(gq_cli_t *c, const slurm_conf_t *conf)
{
	uid_t uid = getuid();

	if (!uid || uid == conf->slurm_user_id)
		return;
	c->private_jobs = conf->private_data & PRIVATE_DATA_JOBS;
	c->private_accounts = conf->private_data & PRIVATE_DATA_ACCOUNTS;
	if (c->private_jobs)
		fprintf(stderr, "gpuquota: note: PrivateData=jobs: Slurm shows you only your own jobs, so allocations, fair shares and other projects' work are hidden (slurmctld decides with every job); your pending jobs show the band slurmctld gave them\n");
}

/* The projects the caller's own jobs are in (c->mine). */
static int _mark_mine(gq_cli_t *c)
{
	uid_t uid = getuid();
	uint32_t i;

	if (!(c->mine = calloc((size_t)gq_view_nprojects(c->view) + 1,
			       sizeof(*c->mine))))
		return -1;
	for (i = 0; i < c->api.jobs->record_count; i++) {
		const slurm_job_info_t *j = &c->api.jobs->job_array[i];
		const gq_job_t *job = gq_view_job(c->view, j->job_id);

		if (job && j->user_id == uid)
			c->mine[job->project] = true;
	}
	return 0;
}

/* Show pool k: c->view, c->capacity, c->pool and c->mine are its. */
static int _use_pool(gq_cli_t *c, int k)
{
	c->view = c->pools->view[k];
	c->capacity = c->caps[k];
	c->pool = c->pools->name[k];
	free(c->mine);
	c->mine = NULL;
	if (c->private_accounts && _mark_mine(c)) {
		fprintf(stderr, "gpuquota: out of memory\n");
		return 1;
	}
	return 0;
}

/*
 * The ledger's losses (requeue budgets), as slurmctld counts them, when
 * the caller may read the file (root, SlurmUser); else none: a budget is
 * then shown as not reached.
 */
static void _read_losses(gq_cli_t *c, const char *dir)
{
	char err[GQ_ERR_MAX], *path = gq_ledger_path(dir);
	gq_ledger_rec_t *r = NULL;
	int n = 0, skipped = 0, i;

	if (path && !gq_ledger_read(path, &r, &n, &skipped, err, sizeof(err)))
		for (i = 0; i < n; i++)
			gq_losses_add(&c->losses, &r[i],
				      time(NULL) - GQ_BUDGET_WINDOW_MAX);
	gq_losses_clock(&c->losses, time(NULL));
	free(r);
	free(path);
}

/*
 * Read everything and compute one pass, as slurmctld's plugin does.
 * Returns 0, or on failure (said on stderr) the exit status: 2 for a bad
 * configuration under `check`, else 1.  _cli_free frees c either way.
 */
static int _oom(void)
{
	fprintf(stderr, "gpuquota: out of memory\n");
	return 1;
}

static int _load(gq_cli_t *c, const char *file, bool check_only)
{
	slurm_conf_t *conf = NULL;
	const char *wiring = NULL;
	char err[GQ_ERR_MAX], *path;
	time_t now = time(NULL);
	int k;

	if (slurm_load_ctl_conf(0, &conf)) {
		slurm_perror("gpuquota: slurm_load_ctl_conf");
		return 1;
	}
	_privacy(c, conf);
	/* slurmctld would not start with it: `check` fails */
	if (check_only && (wiring = gq_wiring_job_submit(conf->job_submit_plugins)))
		fprintf(stderr, "gpuquota: error: %s\n", wiring);
	path = file ? strdup(file) :
		gq_config_path(conf->slurm_conf, conf->priority_params);
	/* the file slurmctld reads: the same trust as the plugin's */
	if (!file)
		gq_config_require_owner((long)conf->slurm_user_id);
	/* StateSaveLocation's files: written by slurmctld as SlurmUser;
	 * root's and the caller's own are trusted too (trusted_file.h) */
	gq_file_trust_owner((long)conf->slurm_user_id);
	if (conf->state_save_location) {
		char *up = gq_usage_file_path(conf->state_save_location);

		c->state_path = gq_metrics_file_path(conf->state_save_location);
		/* usage as slurmctld last wrote it (at most 30 s old); a
		 * login node without StateSaveLocation: none */
		if (up && gq_usage_file_read(up, &c->usage, err, sizeof(err)) == -1)
			fprintf(stderr, "gpuquota: warning: %s: fair shares without usage\n",
				err);
		free(up);
	}
	if (!path || (conf->state_save_location && !c->state_path)) {
		fprintf(stderr, "gpuquota: out of memory\n");
		free(path);
		gq_free_ctl_conf(conf);
		return 1;
	}
	c->dbd = gq_sacctmgr_is_dbd(conf) &&
		 !gq_sacctmgr_accounts(conf->cluster_name, &c->accts);
	c->enforce_limits = conf->accounting_storage_enforce &
			    GQ_ENFORCE_LIMITS;
	/* slurmdbd or its database down: slurmctld keeps its cached tree */
	if (gq_sacctmgr_is_dbd(conf) && !c->dbd)
		fprintf(stderr, "gpuquota: warning: sacctmgr show assoc failed: Slurm's account tree is not read (departments only as gpuquota.json says; slurmctld keeps deciding with the tree it has)\n");
	if (c->dbd && gq_sacctmgr_qos(&c->qos))
		fprintf(stderr, "gpuquota: warning: sacctmgr show qos failed: jobs are ordered without QOS priorities\n");
	/* slurmctld's running copy, unless `check FILE` */
	if (file ? gq_config_load(path, &c->cfg, err, sizeof(err)) :
	    gq_cli_config_choose(conf->state_save_location, path, &c->cfg,
				 &c->src, err, sizeof(err))) {
		fprintf(stderr, "gpuquota: %s\n", err);
		free(path);
		gq_free_ctl_conf(conf);
		return check_only ? 2 : 1;
	}
	free(path);
	/* `check` judges the file on disk too: its error is said above */
	if (check_only && c->src.disk_bad) {
		gq_free_ctl_conf(conf);
		return 2;
	}
	/* the ledger (up to 16 MiB) only when a budget counts it */
	if (conf->state_save_location && gq_config_has_budget(c->cfg))
		_read_losses(c, conf->state_save_location);
	if (gq_api_load(&c->api, conf)) {
		gq_free_ctl_conf(conf);
		return 1;
	}
	/* slurmctld's plugin loads multifactor unless told not to */
	if (c->cfg->settings.multifactor) {
		uint32_t w[GQ_PRIORITY_WEIGHTS] = GQ_PRIORITY_WEIGHTS_OF(conf);

		c->api.mf_weights = gq_priority_weights(
			w, conf->priority_weight_tres);
	}
	gq_free_ctl_conf(conf);
	/* `check` refuses a pool of partitions Slurm lacks or that are
	 * empty, and a slurm.conf without job_submit/gpuquota */
	if ((_check_partitions(c) || wiring) && check_only)
		return 2;
	if (!(c->pools = gq_pools_new(c->cfg)) ||
	    !(c->caps = calloc(c->pools->n, sizeof(*c->caps))) ||
	    gq_api_read_pass(&c->api, c->pools, now,
			     gq_sacctmgr_qos_priority, &c->qos, c->caps)) {
		fprintf(stderr, "gpuquota: out of memory\n");
		return 1;
	}
	for (k = 0; k < c->pools->n; k++)
		if (_account_tree(c, c->pools->view[k]))
			return _oom();
	/* slurmctld's steps: usage, reclaims in flight, the model */
	if (gq_pass_compute(c->pools, &c->usage, &c->losses,
			    &c->cfg->settings, now))
		return _oom();
	return _use_pool(c, 0);
}

/*
 * Print {"capacity": C, key1: v1, key2: v2} when json; takes the values
 * either way.
 */
/* settings.mode "observe": decisions are shown as what gpuquota would do */
static bool _observe(const gq_cli_t *c)
{
	return c->cfg->settings.mode == GQ_MODE_OBSERVE;
}

/* The mode above a table: said in observe mode only. */
static void _mode_line(const gq_cli_t *c, bool json)
{
	if (!json && _observe(c))
		printf("mode: observe (gpuquota acts on no job: holds and reclaims below are what it would do)\n");
}

static void _emit(gq_cli_t *c, bool json, const char *k1, json_object *v1,
		  const char *k2, json_object *v2)
{
	json_object *top = json_object_new_object();

	json_object_object_add(top, "capacity",
			       json_object_new_int64((int64_t)c->capacity));
	json_object_object_add(top, "mode", json_object_new_string(
		_observe(c) ? "observe" : "enforce"));
	json_object_object_add(top, k1, v1);
	if (k2)
		json_object_object_add(top, k2, v2);
	json_object_object_add(top, "config", gq_cli_config_json(&c->src));
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
	bool hidden;		/* PrivateData=jobs: use not shown */
	double quota, limit, weight, share;
	uint32_t alloc;
	uint64_t pending;
	double usage;		/* projects: GPU-seconds above quota, decayed;
				 * NAN: not shown (no usage_half_life) */
	double budget, lost;	/* projects: requeue budget and loss in
				 * its window, GPU-hours; budget 0: none */
} gq_row_t;

static const char *_state(const gq_row_t *r)
{
	if (r->hidden)
		return "-";
	/* its work beyond quota waits (docs/MODEL.md "Requeue budget") */
	if (r->budget > 0 && r->lost >= r->budget && r->alloc >= r->quota)
		return "at-budget";
	return gq_quota_state(r->alloc, r->quota);
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
	if (r->hidden) {
		/* null: hidden from this user by PrivateData=jobs */
		json_object_object_add(o, "allocated", NULL);
		json_object_object_add(o, "over_quota", NULL);
		json_object_object_add(o, "fair_share", NULL);
		json_object_object_add(o, "pending", NULL);
		json_object_object_add(o, "state", NULL);
		return o;
	}
	json_object_object_add(o, "allocated", json_object_new_int64(r->alloc));
	json_object_object_add(o, "over_quota", json_object_new_int64((int64_t)over));
	json_object_object_add(o, "fair_share", json_object_new_double(r->share));
	json_object_object_add(o, "pending", json_object_new_int64(r->pending));
	json_object_object_add(o, "state", json_object_new_string(_state(r)));
	if (project && !isnan(r->usage))
		json_object_object_add(o, "usage_gpu_seconds",
				       json_object_new_double(r->usage));
	if (project && r->budget > 0) {
		json_object_object_add(o, "requeue_budget_gpu_hours",
				       json_object_new_double(r->budget));
		json_object_object_add(o, "requeue_lost_gpu_hours",
				       json_object_new_double(r->lost));
	}
	return o;
}

static void _row_print(const gq_row_t *r, const char *label)
{
	char lim[GQ_NUM_MAX], w[GQ_NUM_MAX], fs[GQ_NUM_MAX];
	double over = r->alloc > r->quota ? r->alloc - r->quota : 0;

	_fmt_num(lim, sizeof(lim), r->limit);
	_fmt_num(w, sizeof(w), r->weight);
	_fmt_num(fs, sizeof(fs), r->share);
	if (r->hidden) {
		printf("%-18s %5.0f %5s %6s %9s %10s %10s %7s %s\n", label,
		       r->quota, lim, w, "-", "-", "-", "-", "-");
		return;
	}
	printf("%-18s %5.0f %5s %6s %9u %10.0f %10s %7llu", label,
	       r->quota, lim, w, r->alloc, over, fs,
	       (unsigned long long)r->pending);
	if (isnan(r->usage))
		printf(" %s\n", _state(r));
	else	/* GPU-hours: what a reader compares */
		printf(" %-10s %12.2f\n", _state(r), r->usage / 3600);
}

static gq_row_t _project_row(const gq_view_t *v, int i)
{
	const gq_project_t *p = gq_view_project(v, i);
	const gq_dept_t *d = gq_view_dept(v, p->department);
	gq_row_t r = { .name = p->name, .department = d ? d->name : NULL,
		       .configured = p->configured, .quota = p->quota,
		       .limit = p->limit, .weight = p->weight,
		       .share = p->share, .alloc = p->alloc,
		       .pending = p->pending, .usage = p->usage,
		       .budget = p->budget, .lost = p->lost };

	return r;
}

static bool _shown(const gq_cli_t *c, int i)
{
	const gq_project_t *p = gq_view_project(c->view, i);

	/* PrivateData=accounts: the projects of the caller's own jobs (the
	 * only jobs Slurm shows when jobs are private too) */
	if (c->private_accounts)
		return c->mine && c->mine[i];
	/* an account no project lists is shown while it has work */
	return p->configured || p->alloc || p->pending;
}

/* Does department d have a project _shown? */
static bool _dept_shown(const gq_cli_t *c, int d)
{
	int i, n = gq_view_nprojects(c->view);

	for (i = 0; i < n; i++)
		if (gq_view_project(c->view, i)->department == d &&
		    _shown(c, i))
			return true;
	return !c->private_accounts;
}

/*
 * The pool being shown (_use_pool): departments, each followed by its
 * projects, then the projects outside any department; into the JSON
 * arrays depts and projects, or printed.
 */
static void _projects_of_pool(gq_cli_t *c, bool json, json_object *depts,
			      json_object *projects)
{
	int i, d, n = gq_view_nprojects(c->view), nd = gq_view_ndepts(c->view);
	char label[GQ_LABEL_MAX];

	bool usage = c->cfg->settings.usage_half_life > 0;

	if (!json)
		printf("%-18s %5s %5s %6s %9s %10s %10s %7s %s\n", "PROJECT",
		       "QUOTA", "LIMIT", "WEIGHT", "ALLOCATED", "OVER_QUOTA",
		       "FAIR_SHARE", "PENDING",
		       usage ? "STATE      USAGE(GPU-h)" : "STATE");
	for (d = -1; d < nd; d++) {
		if (d >= 0 && _dept_shown(c, d)) {
			const gq_dept_t *dp = gq_view_dept(c->view, d);
			gq_row_t r = { .name = dp->name, .configured = true,
				       .hidden = c->private_jobs,
				       .quota = dp->quota, .limit = dp->limit,
				       .weight = dp->weight, .share = dp->share,
				       .alloc = dp->alloc, .usage = NAN };

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

			if (p->department != d || !_shown(c, i))
				continue;
			r = _project_row(c->view, i);
			r.hidden = c->private_jobs;
			if (!usage)
				r.usage = NAN;
			if (json) {
				json_object_array_add(projects, _row_json(&r, true));
				continue;
			}
			snprintf(label, sizeof(label), "%s%s", d >= 0 ? "  " : "",
				 p->name);
			_row_print(&r, label);
		}
	}
}

/*
 * JSON: {"capacity", "departments": [...], "projects": [...]}; with
 * pools {"capacity" (all pools), "pools": [{"name", "capacity",
 * "departments", "projects"}, ...]}, and a section per pool in text.
 * --pool NAME shows one.
 */
static int _cmd_projects(gq_cli_t *c, bool json)
{
	json_object *projects, *depts, *pools, *o;
	double total = 0;
	int k;

	_mode_line(c, json);
	if (!c->pool) {		/* one pool: as it always was */
		projects = json_object_new_array();
		depts = json_object_new_array();
		_projects_of_pool(c, json, depts, projects);
		_emit(c, json, "departments", depts, "projects", projects);
		return 0;
	}
	pools = json_object_new_array();
	for (k = 0; k < c->pools->n; k++) {
		if ((c->only >= 0 && k != c->only) || _use_pool(c, k))
			continue;
		total += c->capacity;
		if (!json)
			printf("%sPOOL %s (%.0f GPUs)\n", k && c->only < 0 ?
			       "\n" : "", c->pool, c->capacity);
		o = json_object_new_object();
		projects = json_object_new_array();
		depts = json_object_new_array();
		_projects_of_pool(c, json, depts, projects);
		json_object_object_add(o, "name", json_object_new_string(c->pool));
		json_object_object_add(o, "capacity", json_object_new_int64((int64_t)c->capacity));
		json_object_object_add(o, "departments", depts);
		json_object_object_add(o, "projects", projects);
		json_object_array_add(pools, o);
	}
	c->capacity = total;
	_emit(c, json, "pools", pools, NULL, NULL);
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

/* running: in-quota / over-quota; pending: its band, or "would hold"
 * in observe mode where enforce holds it */
static const char *_quota_use(const gq_cli_t *c, const gq_job_t *job)
{
	if (job->in.state == GQ_JOB_RUNNING)
		return job->over_quota ? "over-quota" : "in-quota";
	if (job->hold && _observe(c))
		return "would hold";
	return gq_band_name(job->band);
}

/*
 * The priority slurmctld's plugin gives a pending job: 0 while gpuquota
 * holds it, and a job a user or an admin holds keeps its 0.
 */
static uint32_t _priority(const gq_cli_t *c, const slurm_job_info_t *j,
			  const gq_job_t *job)
{
	double w = c->api.mf_weights;

	if (_observe(c))	/* Slurm's own, untouched */
		return j->priority;
	if (job->hold)
		return 0;
	if (j->priority == 0 &&
	    !gq_facts_held_by_us(j->state_reason, j->state_desc))
		return 0;
	if (w < 0)
		return job->priority;
	/* multifactor's part inside the band's place, as the plugin does */
	return gq_band_compose(job->priority,
			       gq_priority_part(j->priority, j->site_factor),
			       w, gq_band_room(w));
}

/*
 * PrivateData=jobs: a pending job's band as slurmctld gave it (its
 * priority; NULL: held or not classified), not one computed from the
 * caller's own jobs alone.
 */
static const char *_slurm_band(const slurm_job_info_t *j)
{
	if (j->priority <= 1)
		return NULL;
	return gq_band_name(gq_band_from_priority(j->priority));
}

/*
 * A job name as a table cell: users choose it, so control characters
 * (newlines, terminal escapes) become '?' and cannot break the table or
 * the terminal.  JSON output escapes them instead.
 */
static const char *_printable(const char *s, char *buf, size_t n)
{
	size_t i;

	for (i = 0; s && s[i] && i + 1 < n; i++)
		buf[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' :
									s[i];
	buf[i] = '\0';
	return buf;
}

/*
 * One of the caller's jobs when Slurm hides the others (PrivateData=jobs):
 * what Slurm says of it; a running job's quota use and whether it may be
 * reclaimed depend on jobs the caller cannot see, so are not shown ("-",
 * JSON null).
 */
static void _job_private(const slurm_job_info_t *j, const gq_job_t *job,
			 const gq_project_t *p, bool json, json_object *arr)
{
	bool pending = (j->job_state & JOB_STATE_BASE) == JOB_PENDING;
	const char *band = pending ? _slurm_band(j) : NULL;
	const char *type = j->batch_flag ? "batch" : "interactive";
	bool held = gq_facts_held_by_us(j->state_reason, j->state_desc);
	char name[64];
	json_object *o;

	if (!json) {
		printf("%-14.14s %8u %-11s %-9s %-16.16s %-10.10s %4u %s\n",
		       _printable(j->name, name, sizeof(name)), j->job_id,
		       type, _job_state(j), p->name,
		       j->nodes && *j->nodes ? j->nodes : "-", job->in.gpus,
		       band ? band : "-");
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "name", json_object_new_string(j->name ? j->name : ""));
	json_object_object_add(o, "job_id", json_object_new_int64(j->job_id));
	json_object_object_add(o, "type", json_object_new_string(type));
	json_object_object_add(o, "state", json_object_new_string(_job_state(j)));
	json_object_object_add(o, "project", json_object_new_string(p->name));
	json_object_object_add(o, "account", json_object_new_string(j->account ? j->account : ""));
	json_object_object_add(o, "nodes", json_object_new_string(j->nodes ? j->nodes : ""));
	json_object_object_add(o, "gpus", json_object_new_int64(job->in.gpus));
	json_object_object_add(o, "tasks", json_object_new_int64(job->in.tasks));
	json_object_object_add(o, "quota", band ? json_object_new_string(band) : NULL);
	json_object_object_add(o, "band", band ? json_object_new_string(band) : NULL);
	json_object_object_add(o, "priority", pending ?
			       json_object_new_int64(j->priority) : NULL);
	json_object_object_add(o, "held_by_gpuquota", json_object_new_boolean(pending && held));
	json_object_object_add(o, "preemptible", NULL);
	json_object_array_add(arr, o);
}

/* One job of `gpuquota jobs --json` (k: its pool). */
static void _job_json(const gq_cli_t *c, const slurm_job_info_t *j,
		      const gq_job_t *job, int k, json_object *arr)
{
	const gq_project_t *p = gq_view_project(c->pools->view[k], job->project);
	const char *type = j->batch_flag ? "batch" : "interactive";
	bool pending = job->in.state != GQ_JOB_RUNNING;
	bool pools = c->pool != NULL;
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(j->name ? j->name : ""));
	json_object_object_add(o, "job_id", json_object_new_int64(j->job_id));
	json_object_object_add(o, "type", json_object_new_string(type));
	json_object_object_add(o, "state", json_object_new_string(_job_state(j)));
	json_object_object_add(o, "project", json_object_new_string(p->name));
	if (pools)
		json_object_object_add(o, "pool", json_object_new_string(c->pools->name[k]));
	json_object_object_add(o, "account", json_object_new_string(j->account ? j->account : ""));
	json_object_object_add(o, "nodes", json_object_new_string(j->nodes ? j->nodes : ""));
	json_object_object_add(o, "gpus", json_object_new_int64(job->in.gpus));
	json_object_object_add(o, "tasks", json_object_new_int64(job->in.tasks));
	json_object_object_add(o, "quota", json_object_new_string(_quota_use(c, job)));
	json_object_object_add(o, "band", pending ?
			       json_object_new_string(gq_band_name(job->band)) : NULL);
	json_object_object_add(o, "priority", pending ?
			       json_object_new_int64(_priority(c, j, job)) : NULL);
	json_object_object_add(o, "multifactor", pending && c->api.mf_weights > 0 ?
			       json_object_new_int64(job->in.site_order) : NULL);
	json_object_object_add(o, "held_by_gpuquota", json_object_new_boolean(pending && job->hold && !_observe(c)));
	json_object_object_add(o, "would_hold", json_object_new_boolean(pending && job->hold && _observe(c)));
	json_object_object_add(o, "preemptible", json_object_new_boolean(job->victim != 0));
	json_object_array_add(arr, o);
}

static int _cmd_jobs(gq_cli_t *c, const char *account, bool json)
{
	json_object *arr = json_object_new_array();
	char name[64];
	uint32_t i;

	bool pools = c->pool != NULL;

	_mode_line(c, json);
	if (!json)
		printf("%-14s %8s %-11s %-9s %-16s %s%-10s %4s %s\n", "NAME",
		       "JOBID", "TYPE", "STATE", "PROJECT",
		       pools ? "POOL       " : "", "NODES", "GPUS", "QUOTA");
	for (i = 0; i < c->api.jobs->record_count; i++) {
		slurm_job_info_t *j = &c->api.jobs->job_array[i];
		int k = -1;
		const gq_job_t *job = gq_pools_job(c->pools, j->job_id, &k);
		const gq_project_t *p;
		const char *type = j->batch_flag ? "batch" : "interactive";
		bool pending = job && job->in.state != GQ_JOB_RUNNING;

		if (!job || (account && (!j->account ||
					 strcasecmp(account, j->account))) ||
		    (c->only >= 0 && k != c->only))
			continue;
		p = gq_view_project(c->pools->view[k], job->project);
		if (c->private_jobs) {
			_job_private(j, job, p, json, arr);
			continue;
		}
		if (json) {
			_job_json(c, j, job, k, arr);
			continue;
		}
		printf("%-14.14s %8u %-11s %-9s %-16.16s ",
		       _printable(j->name, name, sizeof(name)), j->job_id,
		       type, _job_state(j), p->name);
		if (pools)
			printf("%-10.10s ", c->pools->name[k]);
		printf("%-10.10s %4u %s",
		       j->nodes && *j->nodes ? j->nodes : "-", job->in.gpus,
		       _quota_use(c, job));
		/* the order inside its band: multifactor's part first */
		if (pending && c->api.mf_weights > 0)
			printf(", multifactor %" PRId64, job->in.site_order);
		printf("\n");
	}
	_emit(c, json, "jobs", arr, NULL, NULL);
	return 0;
}

/* --pool NAME: show that pool only.  Returns 0, or 2 (no such pool). */
static int _only(gq_cli_t *c, const char *name)
{
	int k;

	if (!name)
		return 0;
	for (k = 0; c->pool && k < c->pools->n; k++)
		if (!strcasecmp(c->pools->name[k], name)) {
			c->only = k;
			return _use_pool(c, k);
		}
	fprintf(stderr, "gpuquota: --pool %s: no pool of that name in %s\n",
		name, c->pool ? "the configuration" :
		"a configuration without pools");
	return 2;
}

/* `check`: the first line, with each pool's GPUs. */
static void _check_line(const gq_cli_t *c)
{
	int k;

	if (!c->pool) {
		printf("gpuquota: configuration OK: %d projects, %.0f GPUs in the pool\n",
		       c->cfg->nprojects, c->capacity);
		return;
	}
	printf("gpuquota: configuration OK: %d projects, %d pools:",
	       c->cfg->nprojects, c->pools->n);
	for (k = 0; k < c->pools->n; k++)
		printf("%s %s (%.0f GPUs)", k ? "," : "", c->pools->name[k],
		       c->caps[k]);
	printf("\n");
}

/* One load of a scrape: read Slurm and the plugin's file afresh. */
static int _render(void *ctx, gq_prom_t *out, char *err, size_t errlen)
{
	gq_cli_t c = { 0 };
	int rc = _load(&c, NULL, false);

	(void)ctx;
	if (!rc && c.private_jobs) {
		/* its totals would count only this user's jobs */
		snprintf(err, errlen, "PrivateData=jobs hides other users' jobs from this user: run gpuquota metrics as root or SlurmUser");
		rc = 1;
	} else if (rc) {
		snprintf(err, errlen, "reading Slurm failed (the reason is on the stderr of gpuquota metrics)");
	}
	if (!rc)
		rc = gq_metrics_render(c.pools->view, c.pools->name, c.caps,
				       c.pools->n, c.api.jobs, c.state_path,
				       out, err, errlen);
	if (!rc) {
		gq_cli_config_metrics(&c.src, out);
		gq_metrics_mode(out, _observe(&c));
	}
	_cli_free(&c);
	return rc ? -1 : 0;
}

/*
 * The pass interval: gpuquota.json's settings.recompute_interval, the file
 * slurmctld's plugin reads; GQ_DEFAULT_INTERVAL, with a warning, when it
 * cannot be read.
 */
static int _pass_interval(void)
{
	slurm_conf_t *conf = NULL;
	gq_config_t *cfg = NULL;
	char err[GQ_ERR_MAX] = "out of memory", *path;
	int s = GQ_DEFAULT_INTERVAL;

	if (slurm_load_ctl_conf(0, &conf)) {
		slurm_perror("gpuquota: slurm_load_ctl_conf");
		fprintf(stderr, "gpuquota: warning: the pass interval is unknown: --cache-seconds %d\n",
			s);
		return s;
	}
	path = gq_config_path(conf->slurm_conf, conf->priority_params);
	gq_config_require_owner((long)conf->slurm_user_id);
	if (path && !gq_config_load(path, &cfg, err, sizeof(err)))
		s = cfg->settings.recompute_interval;
	else
		fprintf(stderr, "gpuquota: warning: %s: --cache-seconds %d\n",
			err, s);
	gq_config_free(cfg);
	free(path);
	gq_free_ctl_conf(conf);
	return s;
}

/* --cache-seconds S: whole seconds from 1 to GQ_CACHE_MAX; -1 if not. */
#define GQ_CACHE_MAX 3600
static int _cache_seconds(const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (!*arg || *end || v < 1 || v > GQ_CACHE_MAX) {
		fprintf(stderr, "gpuquota: --cache-seconds \"%s\": expected whole seconds from 1 to %d\n",
			arg, GQ_CACHE_MAX);
		return -1;
	}
	return (int)v;
}

/* cache: --cache-seconds' value, 0 when not given (the pass interval). */
static int _cmd_metrics(const char *listen, int cache)
{
	char err[GQ_ERR_MAX];
	gq_scrape_cache_t sc;
	gq_prom_t p;
	int rc;

	if (listen) {
		if (gq_scrape_cache_init(&sc, cache ? cache : _pass_interval(),
					 _render, NULL)) {
			fprintf(stderr, "gpuquota: cannot start: out of resources\n");
			return 1;
		}
		rc = gq_serve(listen, &sc);
		gq_scrape_cache_free(&sc);
		return rc;
	}
	gq_prom_init(&p);
	rc = _render(NULL, &p, err, sizeof(err));
	if (rc)
		fprintf(stderr, "gpuquota: %s\n", err);
	else
		fwrite(p.buf, 1, p.len, stdout);
	gq_prom_free(&p);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "account", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "listen", required_argument, NULL, 'l' },
		{ "pool", required_argument, NULL, 'p' },
		{ "cache-seconds", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd, *account = NULL, *listen = NULL, *pool = NULL;
	gq_cli_t c = { .only = -1 };
	bool json = false, dry_run = false;
	int opt, rc, cache = 0;

	/* their own options (cli/ledger.h, cli/simulate.h, cli/sacctmgr.h,
	 * cli/import.h) */
	if (argc > 1 && !strcmp(argv[1], "ledger"))
		return gq_ledger_command(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "simulate"))
		return gq_simulate_command(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "sync"))
		return gq_sync_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "import"))
		return gq_import_main(argc - 1, argv + 1);
	while ((opt = getopt_long(argc, argv, "A:hjn", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			dry_run = true;
			break;
		case 'j':
			json = true;
			break;
		case 'A':
			account = optarg;
			break;
		case 'l':
			listen = optarg;
			break;
		case 'p':
			pool = optarg;
			break;
		case 'c':
			if ((cache = _cache_seconds(optarg)) < 0)
				return 2;
			break;
		case 'h':
			_usage(stdout);
			return 0;
		case 'V':
			/* the Slurm of the headers it was built with */
			printf("gpuquota %s (built for Slurm %lu.%02lu.%lu)\n",
			       GQ_VERSION,
			       (unsigned long)SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
			       (unsigned long)SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
			       (unsigned long)SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
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
	if (cache && !listen) {
		fprintf(stderr, "gpuquota: --cache-seconds goes with metrics --listen\n");
		return 2;
	}
	if (!strcmp(cmd, "sync"))
		return gq_sync_command(optind < argc ? argv[optind] : NULL,
				       &(gq_sync_flags_t){ .dry_run = dry_run });
	/* a file is judged before libslurm looks, and without waiting on a
	 * controller (GQ_CHECK_WAIT_MS at most) */
	if (!strcmp(cmd, "check") && optind < argc &&
	    (rc = _check_offline(argv[optind], json)) >= 0)
		return rc;
	/* its job id is judged before libslurm looks for a controller */
	if (!strcmp(cmd, "checkpoint"))
		return gq_checkpoint_command(optind < argc ? argv[optind] : NULL);
	/* libslurm's plugins (24.11: auth, hash) load here; 22.05 lazily */
	slurm_init(NULL);
	if (!strcmp(cmd, "metrics"))
		return _cmd_metrics(listen, cache);
	if (!strcmp(cmd, "release"))
		return gq_release_command(dry_run);
	if (listen) {
		_usage(stderr);
		return 2;
	}
	if (!strcmp(cmd, "projects")) {
		rc = _load(&c, NULL, false);
		if (!rc && !(rc = _only(&c, pool)))
			rc = _cmd_projects(&c, json);
	} else if (!strcmp(cmd, "jobs")) {
		rc = _load(&c, NULL, false);
		if (!rc && !(rc = _only(&c, pool)))
			rc = _cmd_jobs(&c, account, json);
	} else if (!strcmp(cmd, "check")) {
		rc = _load(&c, optind < argc ? argv[optind] : NULL, true);
		if (rc) {
			_cli_free(&c);
			return rc;
		}
		if (!json) {
			_check_line(&c);
			_settings_line(c.cfg);
		}
		_check_accounts(&c);
		gq_config_advice(c.cfg, _warn, NULL);
		rc = _cmd_projects(&c, json);
	} else {
		_usage(stderr);
		return 2;
	}
	_cli_free(&c);
	return rc;
}
