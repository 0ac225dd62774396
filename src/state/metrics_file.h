/*
 * metrics_file.h - the state file the priority plugin writes after each
 * pass and `gpuquota metrics` reads: <StateSaveLocation>/gpuquota-metrics.json.
 *
 * Owns its format (version 1, docs/MODEL.md "Metrics"): a JSON object
 * with "version", "written_at" and "started_at" (unix seconds),
 * "passes_total", "pass_failures_total", "recent_passes" (up to 1024,
 * oldest first: "at", "pass_us", "lock_hold_us", "lock_cpu_us" (absent
 * in files of older plugins: read as 0), "ok"), "reclaims_total",
 * "victims_total", "victim_gpus_total", "lost_gpu_seconds_total" and the
 * same "..._by_reason" ({"quota": n, "fair_share": n}),
 * "ledger_records_total", "ledger_dropped_total" (these three absent in
 * files of older plugins: read as 0), "state_load_failures_total"
 * and "config_load_failures_total" (absent in files of older plugins:
 * 0), "projects" (an array of
 * {"project": name, "victims_by_reason", "gpus_lent_by_reason",
 * "lost_gpu_seconds_by_reason", "gpus_reclaimed_by_reason"}) and
 * "projects_uncounted_total" (absent in files of older plugins: none),
 * "holds_total", "holds_by_reason"
 * ({"limit", "department_limit", "not_requeueable"}), "releases_total",
 * and the histograms "pass_seconds" and "lock_hold_seconds" as
 * {"buckets": {"<le>": cumulative count, ..., "+Inf": count}, "sum": s,
 * "count": n}.  Keys may be added, never renamed.
 */
#ifndef GPUQUOTA_METRICS_FILE_H
#define GPUQUOTA_METRICS_FILE_H

#include <stddef.h>

#include "state/metrics.h"

#define GQ_METRICS_FILE "gpuquota-metrics.json"
#define GQ_METRICS_VERSION 1
/* Its size bound: 1024 recent passes of about 150 bytes, 256 projects
 * of about 700, the histograms and counters: below 1 MB; a larger file
 * is refused. */
#define GQ_METRICS_FILE_BOUND (4UL << 20)

/*
 * <dir>/gpuquota-metrics.json, malloc'ed (NULL: memory).
 */
char *gq_metrics_file_path(const char *dir);

/*
 * Write m atomically: a temporary file beside `path`, renamed over it, so
 * a reader sees the previous file or this one, whole.  `now`: written_at.
 * Returns 0, or -1 with the reason (naming the file) in err.  Does its own
 * I/O: call it holding no lock.
 */
int gq_metrics_file_write(const gq_metrics_t *m, const char *path,
			  double now, char *err, size_t errlen);

/*
 * Read a file gq_metrics_file_write wrote into m (recent passes beyond
 * GQ_RECENT_PASSES: the newest kept); *written_at its "written_at".
 * Returns 0; -1 with the file, key and value in err when it is not such
 * a file, or with the reason when it is refused (atomic_file.h:
 * gq_state_file_json, GQ_METRICS_FILE_BOUND); -2 when it does not exist.
 */
int gq_metrics_file_read(const char *path, gq_metrics_t *m,
			 double *written_at, char *err, size_t errlen);

#endif
