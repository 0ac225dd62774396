/*
 * simulate.c - `gpuquota simulate` (see simulate.h): its options, the
 * history and cluster read, one replay per configuration, the report.
 *
 *   gpuquota simulate (--trace CSV | --sacct FILE)
 *       (--nodes N --gpus-per-node G [--cpus-per-node C] | --nodes-from FILE)
 *       [--pass-interval S] [--requeue-delay S] [--json] [--accounts]
 *       [--all-accounts] [--until S] [--plot FILE.png] CONFIG...
 *
 * CONFIG: a gpuquota.json, or "stock" (Slurm's order without gpuquota).
 * Time below quota is measured against the first gpuquota.json's quotas,
 * and its projects are the report's (src/sim/projects.h); the accounts'
 * tables too with --accounts (JSON has both).  The accounts no project
 * lists are one row, "(others)", unless --all-accounts.  A pool of a
 * configuration no job is in gets a warning line (sim/pool_check.h).
 * --plot draws each project's GPUs over time and its quota
 * (cli/sim_plot.h).  --until S replays the first
 * S seconds after the first submit only (the figures of a window).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sim_plot.h"
#include "cli/simulate.h"
#include "config/config.h"
#include "sim/cluster.h"
#include "sim/history.h"
#include "sim/pool_check.h"
#include "sim/replay.h"
#include "sim/report.h"
#include "sim/sacct.h"
#include "sim/trace_csv.h"

typedef struct {
	const char *trace, *sacct, *nodes_from, *plot;
	long nodes, gpus, cpus;
	int interval, delay;
	long until;
	bool json, accounts, all_accounts;
} gq_sim_args_t;

/* what _args found: the options' use asked for, or bad options */
enum { GQ_SIM_HELP = 1, GQ_SIM_BAD = 2 };

static int _usage(FILE *f, int rc)
{
	fprintf(f, "usage: gpuquota simulate (--trace CSV | --sacct FILE)\n"
		   "         (--nodes N --gpus-per-node G [--cpus-per-node C] | --nodes-from FILE)\n"
		   "         [--pass-interval S] [--requeue-delay S] [--json] [--accounts]\n"
		   "         [--all-accounts] [--until S] [--plot FILE.png] CONFIG...\n"
		   "  CONFIG: a gpuquota.json, or stock; projects are the first file's\n"
		   "  --accounts: the accounts' tables too; --all-accounts: a row for each account\n"
		   "  no project lists (else one, (others)); --plot: each project's GPUs over time (gnuplot)\n"
		   "  --until: only the first S seconds after the first submit\n"
		   "  sacct: sacct -a -P -X -D -S START -E END --format=JobID,Account,Partition,AllocTRES,ReqTRES,NNodes,Submit,Start,End,Elapsed,Timelimit,State\n");
	return rc;
}

static bool _num(const char *s, long min, long *out)
{
	char *e;
	long v = strtol(s, &e, 10);

	if (!*s || *e || v < min)
		return false;
	*out = v;
	return true;
}

static int _args(int argc, char **argv, gq_sim_args_t *a)
{
	static const struct option opts[] = {
		{ "trace", required_argument, NULL, 't' },
		{ "sacct", required_argument, NULL, 's' },
		{ "nodes", required_argument, NULL, 'N' },
		{ "gpus-per-node", required_argument, NULL, 'G' },
		{ "cpus-per-node", required_argument, NULL, 'C' },
		{ "nodes-from", required_argument, NULL, 'F' },
		{ "pass-interval", required_argument, NULL, 'i' },
		{ "requeue-delay", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "accounts", no_argument, NULL, 'a' },
		{ "all-accounts", no_argument, NULL, 'A' },
		{ "plot", required_argument, NULL, 'p' },
		{ "until", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long v;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 't': a->trace = optarg; break;
		case 's': a->sacct = optarg; break;
		case 'F': a->nodes_from = optarg; break;
		case 'j': a->json = true; break;
		case 'a': a->accounts = true; break;
		case 'A': a->all_accounts = true; break;
		case 'p': a->plot = optarg; break;
		case 'N': if (!_num(optarg, 1, &a->nodes)) goto bad; break;
		case 'G': if (!_num(optarg, 1, &a->gpus)) goto bad; break;
		case 'C': if (!_num(optarg, 0, &a->cpus)) goto bad; break;
		case 'u': if (!_num(optarg, 1, &a->until)) goto bad; break;
		case 'i': if (!_num(optarg, 1, &v)) goto bad;
			a->interval = (int)v; break;
		case 'd': if (!_num(optarg, 0, &v)) goto bad;
			a->delay = (int)v; break;
		case 'h': return _usage(stdout, GQ_SIM_HELP);
		default: return _usage(stderr, GQ_SIM_BAD);
		}
	}
	if (!!a->trace == !!a->sacct || optind >= argc ||
	    (!a->nodes_from && (!a->nodes || !a->gpus)))
		return _usage(stderr, GQ_SIM_BAD);
	return 0;
bad:
	fprintf(stderr, "gpuquota simulate: not a number, or too small: '%s'\n",
		optarg);
	return GQ_SIM_BAD;
}

/* The cluster and the history. */
static int _inputs(const gq_sim_args_t *a, gq_sim_cluster_t *c,
		   gq_sim_history_t *h)
{
	char err[GQ_ERR_MAX] = "";
	uint32_t g = 0;
	int i;

	if (a->nodes_from ? gq_sim_cluster_read(c, a->nodes_from, err, sizeof(err)) :
	    gq_sim_cluster_uniform(c, (int)a->nodes, (uint32_t)a->gpus,
				   (uint32_t)a->cpus)) {
		fprintf(stderr, "gpuquota simulate: %s\n", *err ? err : "out of memory");
		return 1;
	}
	for (i = 0; i < c->n; i++)
		g = c->node[i].gpus > g ? c->node[i].gpus : g;
	if (a->trace ? gq_sim_read_trace(a->trace, (uint32_t)c->n, g, h, err, sizeof(err)) :
	    gq_sim_read_sacct(a->sacct, h, err, sizeof(err))) {
		fprintf(stderr, "gpuquota simulate: %s\n", err);
		return 1;
	}
	if (h->skipped)
		fprintf(stderr, "gpuquota simulate: %zu jobs left out (never started, or no GPU)\n",
			h->skipped);
	return 0;
}

/* A warning for each pool of each gpuquota.json no job of h is in (a
 * file that does not load: its replay says why). */
static void _check_pools(int n, char **cfgs, const gq_sim_history_t *h)
{
	char err[GQ_ERR_MAX];
	gq_config_t *cfg;
	int i;

	for (i = 0; i < n; i++) {
		if (!strcmp(cfgs[i], "stock") ||
		    gq_config_load(cfgs[i], &cfg, err, sizeof(err)))
			continue;
		gq_sim_warn_pools(stderr, cfgs[i], cfg, h);
		gq_config_free(cfg);
	}
}

/* The first gpuquota.json's quotas (NULL: stock only, or unreadable:
 * its replay says why). */
static gq_config_t *_quotas(int n, char **cfgs)
{
	char err[GQ_ERR_MAX];
	gq_config_t *q = NULL;
	int i;

	for (i = 0; i < n && !q; i++)
		if (strcmp(cfgs[i], "stock") &&
		    gq_config_load(cfgs[i], &q, err, sizeof(err)))
			return NULL;
	return q;
}

int gq_simulate_command(int argc, char **argv)
{
	gq_sim_args_t a = { .delay = GQ_SIM_REQUEUE_DELAY };
	gq_sim_cluster_t c = { 0 };
	gq_sim_history_t h = { 0 };
	gq_sim_result_t *r = NULL;
	gq_config_t *quotas = NULL;
	char err[GQ_ERR_MAX];
	int rc, i, n;

	if ((rc = _args(argc, argv, &a)))
		return rc == GQ_SIM_BAD ? 2 : 0;
	n = argc - optind;
	if ((rc = _inputs(&a, &c, &h)))
		goto out;
	_check_pools(n, argv + optind, &h);
	quotas = _quotas(n, argv + optind);
	if (!(r = calloc(n, sizeof(*r)))) {
		rc = 1;
		goto out;
	}
	for (i = 0; i < n && !rc; i++) {
		const char *cfg = argv[optind + i];
		gq_sim_opts_t o = {
			.history = &h, .cluster = &c,
			.config = strcmp(cfg, "stock") ? cfg : NULL,
			.quotas = quotas, .pass_interval = a.interval,
			.requeue_delay = a.delay, .idle_pass = GQ_SIM_IDLE_PASS,
			.series_points = a.plot ? GQ_SIM_PLOT_POINTS : 0,
			.until = a.until, .fold_unlisted = !a.all_accounts,
		};

		err[0] = '\0';
		if (gq_sim_replay(&o, &r[i], err, sizeof(err))) {
			fprintf(stderr, "gpuquota simulate: %s\n", err);
			rc = 1;
		}
	}
	if (!rc && a.json)
		gq_sim_report_json(stdout, r, (const char *const *)argv + optind, n);
	else if (!rc)
		gq_sim_report_text(stdout, r, (const char *const *)argv + optind,
				   n, a.accounts);
	if (!rc && a.plot)
		rc = gq_sim_plot(a.plot, r, (const char *const *)argv + optind,
				 n, c.gpus);
out:
	for (i = 0; r && i < n; i++)
		gq_sim_result_free(&r[i]);
	free(r);
	gq_config_free(quotas);
	gq_sim_history_free(&h);
	gq_sim_cluster_free(&c);
	return rc;
}
