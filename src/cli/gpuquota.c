/*
 * gpuquota.c - the gpuquota command: its table of commands (name, what it
 * runs, its help and usage), and what the plugins decide, seen through
 * libslurm's public API and the same core, config and job-reading rules
 * (shared/job_facts.h) as slurmctld's plugins: one load (_load) for
 * `projects` and `jobs` (cli/cmd_projects.c, cli/cmd_jobs.c), `check`
 * and `metrics`.  Each command's own options follow it (cli/cli_opts.c);
 * `gpuquota CMD --help` prints its usage, `gpuquota --help` the list.
 *
 *   gpuquota projects [-p POOL,...] [--noheader] [-P] [--json]
 *   gpuquota jobs [-A ACCOUNT,...] [-j JOBID,...] [-p POOL,...] [--noheader]
 *                 [-P] [--json]
 *   gpuquota check [FILE] [--json]    validate a config, show its fair shares
 *   gpuquota sync [-n] [-i] [--reparent] [FILE]
 *                                     slurmdbd's accounts to match the config
 *                                     (cli/sacctmgr.h)
 *   gpuquota checkpoint [JOBID]       cli/checkpoint.h
 *   gpuquota metrics [--listen ADDR:PORT [--cache-seconds S]]
 *                                     Prometheus text exposition (cli/metrics.h),
 *                                     or served at /metrics (cli/serve.h), Slurm
 *                                     read at most every S seconds
 *                                     (cli/scrape_cache.h)
 *   gpuquota release [--dry-run]      cli/release.h
 *   gpuquota ledger ...               who took GPUs from whom (cli/ledger.h)
 *   gpuquota simulate ...             cli/simulate.h
 *   gpuquota import [-o FILE]         a draft config from slurmdbd's accounts
 *                                     (cli/import.h)
 *   gpuquota -V|--version             its version, and the Slurm it was built for
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
#include "cli/cli.h"
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
#include "tools/cli_text.h"
#include "tools/edit_distance.h"
#include "tools/trusted_file.h"

/*
 * How long `gpuquota check FILE` waits for a controller before it gives
 * the file's verdict alone: libslurm retries an unreachable controller
 * for MessageTimeout (10 s by default) and more.
 */
#define GQ_CHECK_WAIT_MS 800


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
	free(c->only);
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
	printf("%s, room_wait %d s, move_age %d s, move_window %d s, reclaim_patience %d s, usage_half_life %d s, usage_weight %g, recompute_interval %d s, multifactor %s%s\n",
	       n ? ")" : "", cfg->settings.room_wait, cfg->settings.move_age,
	       cfg->settings.move_window,
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

/* slurmctld's plugin loads multifactor unless told not to: its weights */
static void _multifactor(gq_cli_t *c, const slurm_conf_t *conf)
{
	if (c->cfg->settings.multifactor) {
		uint32_t w[GQ_PRIORITY_WEIGHTS] = GQ_PRIORITY_WEIGHTS_OF(conf);

		c->api.mf_weights = gq_priority_weights(
			w, conf->priority_weight_tres);
	}
}

/* One pass on what _load read, as slurmctld computes it; pool 0 shown. */
static int _compute(gq_cli_t *c)
{
	time_t now = time(NULL);
	int k;

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
	return gq_cli_use_pool(c, 0);
}

/*
 * StateSaveLocation's files: the metrics file's path and the usage as
 * slurmctld last wrote it (at most 30 s old).  0, or -1 out of memory.
 */
static int _read_state(gq_cli_t *c, const char *dir)
{
	char err[GQ_ERR_MAX], *up = gq_usage_file_path(dir);

	c->state_path = gq_metrics_file_path(dir);
	if (up && gq_usage_file_read(up, &c->usage, err, sizeof(err)) == -1)
		fprintf(stderr, "gpuquota: warning: %s: fair shares without usage\n",
			err);
	free(up);
	return c->state_path ? 0 : -1;
}

/* slurmdbd's account tree and QOS, when Slurm accounts through it. */
static void _read_dbd(gq_cli_t *c, const slurm_conf_t *conf)
{
	c->dbd = gq_sacctmgr_is_dbd(conf) &&
		 !gq_sacctmgr_accounts(conf->cluster_name, &c->accts);
	c->enforce_limits = conf->accounting_storage_enforce &
			    GQ_ENFORCE_LIMITS;
	/* slurmdbd or its database down: slurmctld keeps its cached tree */
	if (gq_sacctmgr_is_dbd(conf) && !c->dbd)
		fprintf(stderr, "gpuquota: warning: sacctmgr show assoc failed: Slurm's account tree is not read (departments only as gpuquota.json says; slurmctld keeps deciding with the tree it has)\n");
	if (c->dbd && gq_sacctmgr_qos(&c->qos))
		fprintf(stderr, "gpuquota: warning: sacctmgr show qos failed: jobs are ordered without QOS priorities\n");
}

static int _load(gq_cli_t *c, const char *file, bool check_only)
{
	slurm_conf_t *conf = NULL;
	const char *wiring = NULL;
	char err[GQ_ERR_MAX], *path;

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
	if ((conf->state_save_location &&
	     _read_state(c, conf->state_save_location)) || !path) {
		fprintf(stderr, "gpuquota: out of memory\n");
		free(path);
		gq_free_ctl_conf(conf);
		return 1;
	}
	_read_dbd(c, conf);
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
	_multifactor(c, conf);
	gq_free_ctl_conf(conf);
	/* `check` refuses a pool of partitions Slurm lacks or that are
	 * empty, and a slurm.conf without job_submit/gpuquota */
	if ((_check_partitions(c) || wiring) && check_only)
		return 2;
	return _compute(c);
}

/*
 * --pool NAME,...: show those pools only.  Returns 0, or 2 (a name no
 * pool has), or 1 (memory).
 */
static int _only(gq_cli_t *c, const char *list)
{
	char name[64];
	size_t pos = 0;
	int k;

	if (!list || !list[strspn(list, ",")])
		return 0;	/* no name: every pool */
	if (c->pool && !(c->only = calloc(c->pools->n, sizeof(*c->only))))
		return _oom();
	while (gq_list_next(list, &pos, name, sizeof(name))) {
		for (k = 0; c->pool && k < c->pools->n; k++)
			if (!strcasecmp(c->pools->name[k], name))
				break;
		if (!c->pool || k == c->pools->n) {
			fprintf(stderr, "gpuquota: --pool %s: no pool of that name in %s\n",
				name, c->pool ? "the configuration" :
				"a configuration without pools");
			return 2;
		}
		c->only[k] = true;
	}
	for (k = 0; k < c->pools->n; k++)
		if (c->only[k])
			return gq_cli_use_pool(c, k);
	return 0;
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
		gq_metrics_mode(out, gq_cli_observe(&c));
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

/* `projects` and `jobs`: one load, the pools of --pool, the table. */
static int _run_table(const gq_cli_opts_t *o, bool jobs)
{
	gq_cli_t c = { 0 };
	int rc;

	/* libslurm's plugins (24.11: auth, hash) load here; 22.05 lazily */
	slurm_init(NULL);
	rc = _load(&c, NULL, false);
	if (!rc && !(rc = _only(&c, o->pools)))
		rc = jobs ? gq_cmd_jobs(&c, o) : gq_cmd_projects(&c, o);
	_cli_free(&c);
	return rc;
}

static int _run_projects(const gq_cli_opts_t *o)
{
	return _run_table(o, false);
}

static int _run_jobs(const gq_cli_opts_t *o)
{
	return _run_table(o, true);
}

static int _run_check(const gq_cli_opts_t *o)
{
	gq_cli_t c = { 0 };
	int rc;

	/* a file is judged before libslurm looks, and without waiting on a
	 * controller (GQ_CHECK_WAIT_MS at most) */
	if (o->arg && (rc = _check_offline(o->arg, o->json)) >= 0)
		return rc;
	slurm_init(NULL);
	rc = _load(&c, o->arg, true);
	if (rc) {
		_cli_free(&c);
		return rc;
	}
	if (!o->json) {
		_check_line(&c);
		_settings_line(c.cfg);
	}
	_check_accounts(&c);
	gq_config_advice(c.cfg, _warn, NULL);
	rc = gq_cmd_projects(&c, o);
	_cli_free(&c);
	return rc;
}

/* its job id is judged before libslurm looks for a controller */
static int _run_checkpoint(const gq_cli_opts_t *o)
{
	return gq_checkpoint_command(o->arg);
}

static int _run_metrics(const gq_cli_opts_t *o)
{
	slurm_init(NULL);
	return _cmd_metrics(o->listen, o->cache);
}

static int _run_release(const gq_cli_opts_t *o)
{
	slurm_init(NULL);
	return gq_release_command(o->dry_run);
}

/*
 * The commands: those with `takes` parse gq_cli_options' options and run
 * `run`; the others parse their own (`own`, argv[0] their name).
 */
typedef struct {
	const char *name;
	int (*run)(const gq_cli_opts_t *o);
	int (*own)(int argc, char **argv);
	unsigned takes;
	bool json;		/* it answers --json */
	const char *help;	/* one line */
	const char *usage;	/* its arguments */
} gq_command_t;

static const gq_command_t _commands[] = {
	{ "projects", _run_projects, NULL, GQ_O_JSON | GQ_O_TABLE | GQ_O_POOL,
	  true, "quota, allocation and fair share per department and project",
	  "[-p|--pool POOL,...] [--noheader] [-P|--parsable] [--json]" },
	{ "jobs", _run_jobs, NULL,
	  GQ_O_JSON | GQ_O_TABLE | GQ_O_POOL | GQ_O_ACCOUNT | GQ_O_JOBS, true,
	  "active jobs with project, GPUs, band and quota use",
	  "[-A|--account ACCOUNT,...] [-j|--jobs JOBID,...] [-p|--pool POOL,...]\n"
	  "              [--noheader] [-P|--parsable] [--json]" },
	{ "check", _run_check, NULL, GQ_O_JSON | GQ_O_ARG, true,
	  "validate a gpuquota.json and show its fair shares", "[FILE] [--json]" },
	{ "sync", NULL, gq_sync_main, 0, false,
	  "slurmdbd's accounts made to match the configuration",
	  "[-n|--dry-run] [-i|--immediate] [--reparent] [FILE]" },
	{ "checkpoint", _run_checkpoint, NULL, GQ_O_ARG, false,
	  "note that a job saved its work now", "[JOBID]" },
	{ "metrics", _run_metrics, NULL, GQ_O_LISTEN, false,
	  "Prometheus text exposition, printed or served at /metrics",
	  "[--listen ADDR:PORT [--cache-seconds S]]\n"
	  "  --cache-seconds S: Slurm read at most every S s (1-3600; default\n"
	  "  gpuquota.json's settings.recompute_interval)" },
	{ "release", _run_release, NULL, GQ_O_DRYRUN, false,
	  "undo what gpuquota set on pending jobs", "[-n|--dry-run]" },
	{ "ledger", NULL, gq_ledger_command, 0, true,
	  "who took GPUs from whom, per day or week",
	  "[--since TIME] [--project P] [--by day|week] [--noheader]\n"
	  "              [-P|--parsable] [--json] [--dir DIR]\n"
	  "  TIME: YYYY-MM-DD[THH:MM[:SS]] (UTC), now, now-COUNT[UNIT] or\n"
	  "  -COUNT[UNIT]; UNIT s, m, h, d or w (sacct's --starttime)" },
	{ "simulate", NULL, gq_simulate_command, 0, true,
	  "replay a job history under configurations and stock Slurm",
	  "(--trace CSV | --sacct FILE) (--nodes N --gpus-per-node G |\n"
	  "              --nodes-from FILE) [--json] [--accounts] [--plot FILE.png]\n"
	  "              CONFIG...|stock..." },
	{ "import", NULL, gq_import_main, 0, false,
	  "a draft gpuquota.json from slurmdbd's accounts", "[-o FILE]" },
};
#define GQ_NCOMMANDS ((int)(sizeof(_commands) / sizeof(_commands[0])))

/* `gpuquota CMD --help`: its usage and its line. */
static void _command_help(FILE *f, const gq_command_t *cmd)
{
	fprintf(f, "Usage: gpuquota %s %s\n%s\n", cmd->name, cmd->usage,
		cmd->help);
}

/* `gpuquota --help`: every command. */
static void _usage(FILE *f)
{
	int i;

	fprintf(f, "Usage: gpuquota COMMAND [OPTIONS]   (gpuquota COMMAND --help: its options)\n"
		   "       gpuquota -V|--version\n\nCommands:\n");
	for (i = 0; i < GQ_NCOMMANDS; i++)
		fprintf(f, "  %-11s %s\n", _commands[i].name, _commands[i].help);
}

/* Does argv ask for help (-h, --help before any "--")? */
static bool _asks_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	return false;
}

/* Does argv ask for JSON? */
static bool _asks_json(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json"))
			return true;
	return false;
}

/* A command line: the command and its arguments (argv[0] its name). */
typedef struct {
	const gq_command_t *cmd;
	int argc;
	char **argv;
} gq_call_t;

static int _call(void *arg)
{
	const gq_call_t *call = arg;
	gq_cli_opts_t o = { 0 };
	int rc;

	if (call->cmd->own)
		return call->cmd->own(call->argc, call->argv);
	if ((rc = gq_cli_options(call->argc, call->argv, call->cmd->takes, &o)))
		return rc;
	return call->cmd->run(&o);
}

/* An unknown command: named, and the nearest one when it is close. */
static int _unknown(const char *name)
{
	int i, best = -1, d, bestd = 3;

	fprintf(stderr, "gpuquota: unknown command '%s'; see gpuquota --help\n",
		name);
	for (i = 0; i < GQ_NCOMMANDS; i++)
		if ((d = gq_edit_distance(name, _commands[i].name, 2)) < bestd) {
			bestd = d;
			best = i;
		}
	if (best >= 0)
		fprintf(stderr, "gpuquota: did you mean '%s'?\n",
			_commands[best].name);
	return 1;
}

/* -V: its version, and the Slurm of the headers it was built with. */
static int _version(void)
{
	printf("gpuquota %s (built for Slurm %lu.%02lu.%lu)\n", GQ_VERSION,
	       (unsigned long)SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
	       (unsigned long)SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
	       (unsigned long)SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
	return 0;
}

int main(int argc, char **argv)
{
	gq_call_t call = { .argc = argc - 1, .argv = argv + 1 };
	int i;

	if (argc < 2) {
		_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))
		return _version();
	for (i = 0; i < GQ_NCOMMANDS && !call.cmd; i++)
		if (!strcmp(argv[1], _commands[i].name))
			call.cmd = &_commands[i];
	if (!call.cmd)
		return _unknown(argv[1]);
	if (_asks_help(call.argc, call.argv)) {
		_command_help(stdout, call.cmd);
		return 0;
	}
	if (call.cmd->json && _asks_json(call.argc, call.argv))
		return gq_cli_json_errors(_call, &call);
	return _call(&call);
}
