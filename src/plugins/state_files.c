/*
 * state_files.c - the usage file, the metrics file, the ledger and the
 * running configuration's file of priority/gpuquota: their paths, when each is read and written, the log
 * of a write that fails and the count of a load that fails (see
 * state_files.h).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shared/slurm_compat.h"

#include "tools/clock.h"
#include "state/ledger.h"
#include "state/metrics_file.h"
#include "state/state.h"
#include "state/usage.h"
#include "plugins/state_files.h"

#define GQ_USAGE_SAVE_EVERY 30	/* seconds: what a crash may lose */
#define GQ_METRICS_WRITE_EVERY 2	/* seconds: how stale the file may be */

/*
 * The files' paths and their writers' memory.  No lock: the paths are
 * written by init and fini alone (gq_files_init, gq_files_fini) and read
 * by the pass thread and a reload (gq_files_publish_config); the rest
 * is the pass thread's, and fini's once that thread is joined.  The
 * state lock guards only what these copy out of the state.
 */
static struct state_files {
	/* in <StateSaveLocation>: */
	char *metrics_path;	/* gpuquota-metrics.json */
	char *usage_path;	/* gpuquota-usage.json */
	char *ledger_path;	/* gpuquota-ledger */
	char *running_path;	/* gpuquota-running.json */
	bool metrics_failing;	/* the last write failed (logged once) */
	double metrics_written;	/* when it was last written */
	int64_t usage_saved;	/* when it was last written */
	gq_metrics_t metrics_snap;	/* the metrics being written */
} files;

/*
 * Usage survives restarts: read at init (a missing file starts from zero;
 * a bad or refused one too (atomic_file.h), said in the log and counted
 * (state_load_failures_total), never fatal), written every
 * GQ_USAGE_SAVE_EVERY seconds and at fini, from a copy taken under the
 * state lock (the file is written with no lock held).
 */
static void _usage_load(void)
{
	char err[GQ_ERR_MAX];
	gq_usage_t u = { 0 };
	int rc;

	if (!files.usage_path)
		return;
	rc = gq_usage_file_read(files.usage_path, &u, err, sizeof(err));
	if (rc == -1)
		error("gpuquota: usage file: %s; usage starts from zero", err);
	gq_state_lock();
	if (rc == -1)
		gq_metrics_load_failed(gq_state_metrics());
	if (!rc) {
		gq_usage_free(gq_state_usage());
		*gq_state_usage() = u;
		info("gpuquota: usage of %d projects read from %s", u.n,
		     files.usage_path);
	}
	gq_state_unlock();
}

/*
 * The ledger's records of the longest budget window into the state's
 * losses (the requeue budgets count them from the first pass).  A
 * missing file: none; an unreadable or refused one (ledger.h): logged,
 * counted (state_load_failures_total), none.  O(records).
 */
static void _losses_load(void)
{
	char err[GQ_ERR_MAX];
	gq_ledger_rec_t *r = NULL;
	int n = 0, skipped = 0;
	bool failed;

	if (!files.ledger_path)
		return;
	if ((failed = gq_ledger_read(files.ledger_path, &r, &n, &skipped, err,
				     sizeof(err)))) {
		error("gpuquota: ledger: %s; requeue budgets count from now",
		      err);
		n = 0;	/* nothing of a file refused half-way */
	}
	gq_state_lock();
	if (failed)
		gq_metrics_load_failed(gq_state_metrics());
	gq_state_losses_load(r, n, time(NULL));
	gq_state_unlock();
	free(r);
}

void gq_files_init(const char *dir)
{
	/* a plugin loaded again (fini, then init) starts afresh */
	files.metrics_failing = false;
	files.usage_saved = 0;
	if (dir && (!(files.metrics_path = gq_metrics_file_path(dir)) ||
		    !(files.usage_path = gq_usage_file_path(dir)) ||
		    !(files.ledger_path = gq_ledger_path(dir)) ||
		    !(files.running_path = gq_running_file_path(dir))))
		fatal("gpuquota: out of memory");
	_usage_load();
	_losses_load();
}

void gq_files_save_usage(bool now)
{
	char err[GQ_ERR_MAX];
	gq_usage_t copy = { 0 };
	const gq_usage_t *u;
	int i, rc = 0;

	if (!files.usage_path ||
	    (!now && gq_clock_since(&files.usage_saved, time(NULL)) <
			     GQ_USAGE_SAVE_EVERY))
		return;
	files.usage_saved = time(NULL);
	gq_state_lock();
	u = gq_state_usage();
	if (!u->n || !gq_state_config() ||
	    !gq_state_config()->settings.usage_half_life) {
		gq_state_unlock();
		return;
	}
	copy.at = u->at;
	if (!(copy.e = calloc(u->n, sizeof(*copy.e))))
		rc = -1;
	for (i = 0; !rc && i < u->n; i++, copy.n++) {
		copy.e[i].gpu_seconds = u->e[i].gpu_seconds;
		if (!(copy.e[i].pool = strdup(u->e[i].pool)) ||
		    !(copy.e[i].project = strdup(u->e[i].project)))
			rc = -1;
	}
	gq_state_unlock();
	if (rc || gq_usage_file_write(&copy, files.usage_path, err,
				      sizeof(err)))
		error("gpuquota: usage file: %s", rc ? "out of memory" : err);
	gq_usage_free(&copy);
}

/*
 * Count a pass in the metrics, then write them to the metrics file: the
 * snapshot is taken under the state lock, the file written after it, with
 * no lock held.
 */
void gq_files_record_pass(gq_pass_rec_t *r)
{
	char err[GQ_ERR_MAX];
	struct timespec ts;
	double now;

	clock_gettime(CLOCK_REALTIME, &ts);
	now = ts.tv_sec + ts.tv_nsec / 1e9;
	r->at = now;
	gq_state_lock();
	gq_metrics_pass(gq_state_metrics(), r);
	gq_state_unlock();
	/* a clock stepped back writes at once */
	if (!files.metrics_path ||
	    (now >= files.metrics_written &&
	     now - files.metrics_written < GQ_METRICS_WRITE_EVERY))
		return;
	files.metrics_written = now;
	gq_state_lock();
	files.metrics_snap = *gq_state_metrics();
	gq_state_unlock();
	if (gq_metrics_file_write(&files.metrics_snap, files.metrics_path, now,
				  err, sizeof(err))) {
		if (!files.metrics_failing)
			error("gpuquota: metrics file: %s; `gpuquota metrics` shows only what it reads from Slurm until a write succeeds",
			      err);
		files.metrics_failing = true;
	} else if (files.metrics_failing) {
		info("gpuquota: metrics file %s written again",
		     files.metrics_path);
		files.metrics_failing = false;
	}
}

/*
 * The reclaims preempt/gpuquota queued (gq_state_ledger_note) appended to
 * the ledger file: the queue taken whole under the state lock, the file
 * written after it with no lock held.  A failed write drops them, logged
 * and counted.
 */
void gq_files_write_ledger(void)
{
	char err[GQ_ERR_MAX] = "";
	gq_ledger_rec_t *r;
	int n;

	gq_state_lock();
	n = gq_state_ledger_take(&r);
	gq_state_unlock();
	if (!n || !files.ledger_path) {
		free(r);
		return;
	}
	if (gq_ledger_append(files.ledger_path, r, n, GQ_LEDGER_BOUND, err,
			     sizeof(err)) < 0) {
		error("gpuquota: ledger: %s; %d reclaim record%s lost", err, n,
		      n == 1 ? "" : "s");
		gq_state_lock();
		gq_metrics_ledger_dropped(gq_state_metrics(), n);
		gq_state_unlock();
	} else if (err[0]) {
		error("gpuquota: ledger: %s", err);
	}
	free(r);
}

/*
 * The running configuration's record (gq_state_running) written to its
 * file: a copy taken under the state lock, written with no lock held.
 * Nothing before a configuration is loaded: a new slurmctld that refuses
 * its file leaves the record of the one still running.
 */
void gq_files_publish_config(void)
{
	char err[GQ_ERR_MAX] = "out of memory";
	gq_running_t copy = { 0 };
	int rc;

	if (!files.running_path)
		return;
	gq_state_lock();
	rc = gq_state_running()->loaded_at ?
	     gq_running_copy(gq_state_running(), &copy) : 1;
	gq_state_unlock();
	if (rc < 0 || (!rc && gq_running_file_write(&copy, files.running_path,
						     err, sizeof(err))))
		error("gpuquota: running configuration file: %s; `gpuquota projects` may show the file on disk",
		      err);
	gq_running_free(&copy);
}

void gq_files_fini(void)
{
	gq_files_write_ledger();
	gq_files_save_usage(true);
	free(files.ledger_path);
	files.ledger_path = NULL;
	free(files.metrics_path);
	files.metrics_path = NULL;
	free(files.usage_path);
	files.usage_path = NULL;
	free(files.running_path);
	files.running_path = NULL;
}
