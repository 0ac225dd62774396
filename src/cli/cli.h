/*
 * cli.h - what the gpuquota command's files share: one load of Slurm and
 * the model (gq_cli_t, filled by gpuquota.c's _load) and the table
 * commands shown from it and a command line's options (cli/cli_opts.h):
 * cmd_projects.c, cmd_jobs.c; the helpers they share are cli.c's.
 */
#ifndef GPUQUOTA_CLI_CLI_H
#define GPUQUOTA_CLI_CLI_H

#include <stdbool.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "cli/cli_opts.h"
#include "cli/read_api.h"
#include "cli/running_config.h"
#include "cli/sacctmgr.h"
#include "core/pools.h"
#include "core/view.h"
#include "config/config.h"
#include "state/losses.h"
#include "state/usage.h"

typedef struct {
	gq_config_t *cfg;
	gq_pools_t *pools;	/* a view per pool */
	double *caps;		/* each pool's capacity */
	bool *only;		/* --pool: the pools shown; NULL: every pool */
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
/* Show pool k: c->view, c->capacity, c->pool are its.  0, or 1. */
int gq_cli_use_pool(gq_cli_t *c, int k);

/* settings.mode "observe": decisions are shown as what gpuquota would do */
static inline bool gq_cli_observe(const gq_cli_t *c)
{
	return c->cfg->settings.mode == GQ_MODE_OBSERVE;
}

/* The mode above a table (projects, jobs): in observe mode only, and
 * not under --json, --parsable or --noheader. */
void gq_cli_mode_line(const gq_cli_t *c, const gq_cli_opts_t *o);

/* Is pool k shown (--pool)? */
static inline bool gq_cli_pool_shown(const gq_cli_t *c, int k)
{
	return !c->only || c->only[k];
}

/*
 * Print {"capacity": C, "mode", key1: v1, key2: v2, "config"} when json;
 * takes the values either way.
 */
void gq_cli_emit(gq_cli_t *c, bool json, const char *k1, json_object *v1,
		 const char *k2, json_object *v2);

/* `projects` (and `check`'s table): 0, or the exit status. */
int gq_cmd_projects(gq_cli_t *c, const gq_cli_opts_t *o);

/* `jobs`: 0, or the exit status. */
int gq_cmd_jobs(gq_cli_t *c, const gq_cli_opts_t *o);

#endif
