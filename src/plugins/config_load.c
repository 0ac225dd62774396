/*
 * config_load.c - gpuquota.json loaded into the state, logged and
 * published (its text, hash and last failure: running_config.h), and
 * checked once per load against Slurm's partitions and slurmdbd's
 * accounts (see config_load.h).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shared/slurm_compat.h"

#include "config/advice.h"
#include "state/state.h"
#include "plugins/config_load.h"
#include "plugins/state_files.h"
#include "plugins/xalloc.h"
#include "shared/job_facts.h"

/*
 * The checks made once per load of gpuquota.json.  The state lock guards
 * both fields (level 2 of docs/DEVELOPING.md "Lock order").  A load
 * clears them (init, priority_p_reconfig); the pass thread's first pass
 * after it sets them (gq_load_check).
 */
static struct load_checks {
	bool accounts;		/* its accounts looked up in slurmdbd */
	bool partitions;	/* the pools' partitions looked up */
} checked;

static void _log_advice(const char *line, void *ctx)
{
	info("gpuquota: note: %s", line);
}

/* project i as the load's log line lists it (advice.h), after a blank
 * but for the first, into buf (n: its size, 0 to measure); its length */
static int _project_text(const gq_config_t *cfg, int i, char *buf, size_t n)
{
	int at = i ? snprintf(buf, n, " ") : 0;

	return at + gq_config_project_text(cfg, i, n ? buf + at : NULL,
					   n ? n - at : 0);
}

static void _log_config(const gq_config_t *cfg, const char *path)
{
	size_t len = 1, at = 0;
	char *s;
	int i;

	for (i = 0; i < cfg->nprojects; i++)
		len += _project_text(cfg, i, NULL, 0);
	if ((s = gq_xcalloc(len, 1)))	/* out of memory: no list */
		for (i = 0; i < cfg->nprojects; i++)
			at += _project_text(cfg, i, s + at, len - at);
	info("gpuquota: loaded %s: %d projects: %s", path, cfg->nprojects,
	     s && *s ? s : "(none)");
	xfree(s);
	gq_config_advice(cfg, _log_advice, NULL);
}

int gq_load_config(bool fatal_on_error)
{
	char *path = gq_config_path(slurm_conf.slurm_conf,
				    slurm_conf.priority_params);
	char err[GQ_ERR_MAX], *text = NULL;
	int rc;

	if (!path)
		fatal("gpuquota: out of memory");
	gq_state_lock();
	rc = gq_state_load_text(path, &text, err, sizeof(err));
	if (!rc) {
		_log_config(gq_state_config(), path);
		checked.accounts = checked.partitions = false;
		if (gq_running_loaded(gq_state_running(), path, text,
				      strlen(text), time(NULL)))
			error("gpuquota: out of memory: the running configuration is not published");
	} else {
		gq_metrics_config_failed(gq_state_metrics());
		gq_running_failed(gq_state_running(), path, err, time(NULL));
	}
	gq_state_unlock();
	gq_files_publish_config();
	if (rc && fatal_on_error)
		fatal("gpuquota: %s", err);
	else if (rc)
		error("gpuquota: %s; keeping the last good configuration",
		      err);
	free(path);
	return rc;
}

static bool _assoc_exists(const char *account, void *ctx)
{
	list_itr_t *it = list_iterator_create(assoc_mgr_assoc_list);
	slurmdb_assoc_rec_t *assoc;
	bool found = false;

	while (!found && (assoc = list_next(it)))
		found = !assoc->user && assoc->acct &&
			!xstrcasecmp(assoc->acct, account);
	list_iterator_destroy(it);
	return found;
}

static void _report_missing(const char *line, void *ctx)
{
	error("gpuquota: %s", line);
}

static int _partition_nodes(const char *name, void *ctx)
{
	part_record_t *part_ptr = find_part_record((char *)name);

	return part_ptr ? (int)part_ptr->total_nodes : -1;
}

/*
 * Say which partitions of the pools do not exist in Slurm or have no
 * nodes: once per load, at its first pass (partitions are read by then).
 * Caller holds the partition read lock and the state lock.
 */
static void _check_partitions(const gq_config_t *cfg)
{
	if (checked.partitions)
		return;
	gq_missing_partitions(cfg, _partition_nodes, _report_missing, NULL);
	checked.partitions = true;
}

/*
 * With slurmdbd, say which configured accounts do not exist there: Slurm
 * refuses their jobs (AccountingStorageEnforce=associations) or, without
 * enforcement, they run as the project the config names.  Once per load,
 * as soon as the association manager has its list.  O(accounts x
 * associations), once.  Caller holds the state lock.
 */
static void _check_accounts(const gq_config_t *cfg)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK };

	if (checked.accounts || !slurm_with_slurmdbd())
		return;
	assoc_mgr_lock(&locks);
	if (assoc_mgr_assoc_list) {
		gq_missing_accounts(cfg, _assoc_exists, NULL, _report_missing,
				    NULL);
		checked.accounts = true;
	}
	assoc_mgr_unlock(&locks);
}

void gq_load_check(const gq_config_t *cfg)
{
	_check_accounts(cfg);
	_check_partitions(cfg);
}
