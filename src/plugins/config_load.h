/*
 * config_load.h - priority/gpuquota's gpuquota.json in slurmctld: its
 * load and reload (the last good one kept), logged, and the checks of
 * what it names against Slurm (config_load.c).
 */
#ifndef GPUQUOTA_PLUGIN_CONFIG_LOAD_H
#define GPUQUOTA_PLUGIN_CONFIG_LOAD_H

#include <stdbool.h>

#include "config/config.h"

/*
 * Load (or reload) the configuration PriorityParameters names
 * (gq_config_path) into the state; when it is good, log its projects and
 * advice and check it again at the next pass (gq_load_check).  A bad file
 * keeps the last good one (logged, counted in
 * config_load_failures_total), or is fatal with `fatal_on_error`.  Either
 * way the running configuration's file is written
 * (gq_files_publish_config).
 * Returns 0, or -1 when the file was refused.  Takes the state lock;
 * caller holds none of slurmctld's locks.  O(file + projects).
 */
int gq_load_config(bool fatal_on_error);

/*
 * Once per load, at a pass: say which partitions of the pools do not
 * exist in Slurm or have no nodes, and (with slurmdbd, as soon as the
 * association manager has its list) which configured accounts it does
 * not have (Slurm refuses their jobs with
 * AccountingStorageEnforce=associations; without, they run as the
 * project the config names).  Caller holds the partition read lock and
 * the state lock (the association read lock is taken here).
 * O(accounts x associations + partitions), once.
 */
void gq_load_check(const gq_config_t *cfg);

#endif
