/*
 * state_files.h - the files priority/gpuquota writes in StateSaveLocation
 * (state_files.c): the usage file, read back at init so that usage
 * survives restarts, the metrics file `gpuquota metrics` reads, and the
 * reclaim ledger `gpuquota ledger` reads (state/ledger.h), and the
 * configuration slurmctld runs (state/running_config.h).  Each
 * is written from a copy taken under the state lock, with no lock held
 * (file I/O under the job write lock would stall submits and squeue).
 */
#ifndef GPUQUOTA_PLUGIN_STATE_FILES_H
#define GPUQUOTA_PLUGIN_STATE_FILES_H

#include <stdbool.h>

#include "state/metrics.h"

/*
 * From init, in slurmctld: the files' paths in `dir` (StateSaveLocation,
 * read once: NULL, no files; out of memory is fatal), then the usage file
 * read into the state (a missing file starts from zero; a bad one too,
 * logged, never fatal).  Takes the state lock; caller holds none.
 * O(projects in the file).
 */
void gq_files_init(const char *dir);

/*
 * Write the usage file when GQ_USAGE_SAVE_EVERY (30) seconds have passed
 * since the last write (what a crash may lose), or at once with `now`;
 * nothing without a file, without usage or with usage_half_life 0.  Takes
 * the state lock for the copy; caller holds no lock.  O(projects).
 */
void gq_files_save_usage(bool now);

/*
 * Count a pass (or a re-hold) in the state's metrics (r->at is set to
 * now), then write the metrics file when GQ_METRICS_WRITE_EVERY seconds
 * passed since the last write (passes come as often as every half
 * second; the file keeps the last 1 024 passes, so none is lost to a
 * reader); a failed write is logged once, until one succeeds.  Pass
 * thread only.  Takes the state lock; caller holds no lock.  O(metrics)
 * per write.
 */
void gq_files_record_pass(gq_pass_rec_t *r);

/*
 * Append the reclaim records queued since the last call to the ledger
 * file (a failed write drops them: logged, counted).  Pass thread (and
 * fini) only.  Takes the state lock; caller holds no lock.  O(records).
 */
void gq_files_write_ledger(void);

/*
 * Write the running configuration's file from gq_state_running() (once
 * a configuration is loaded; a failed write logged).  Takes the state
 * lock for the copy; caller holds no lock.  O(configuration's text).
 */
void gq_files_publish_config(void);

/* From fini: the ledger and the usage file written at once, the paths
 * forgotten.  Caller holds no lock. */
void gq_files_fini(void);

#endif
