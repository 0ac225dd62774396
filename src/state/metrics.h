/*
 * metrics.h - what only the plugins know about their own work, counted
 * for admins (docs/MODEL.md "Metrics"): passes and how long each held
 * slurmctld's job write lock, reclaims and victims by reason, holds by
 * reason and releases.
 *
 * Owns the counters, the two pass histograms and the ring of recent
 * passes.  Counters start at 0 when slurmctld loads the plugin (a restart
 * resets them, as Prometheus counters may).  The plugins update them under
 * gq_state_lock(); the file they reach the gpuquota command through is
 * metrics_file.h.  Plain C, no allocation: a snapshot is a struct copy.
 */
#ifndef GPUQUOTA_METRICS_H
#define GPUQUOTA_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/band.h"
#include "state/ledger.h"
#include "tools/histogram.h"
#include "core/view.h"

#define GQ_RECENT_PASSES 1024	/* passes kept for percentiles */

/* Hold reasons counted: the gq_hold_t values but GQ_HOLD_NONE */
#define GQ_HOLD_NREASONS 7

typedef struct {
	double at;		/* end of the pass, unix seconds */
	uint64_t pass_us;	/* read + compute + write: both holds */
	uint64_t read_hold_us;	/* job read lock granted to released (the
				 * pass's first hold: readers go on, writers
				 * wait; 0 for a whole pass) */
	uint64_t read_cpu_us;	/* CPU time the pass' thread used meanwhile */
	uint64_t lock_hold_us;	/* job write lock granted to released */
	uint64_t lock_cpu_us;	/* CPU time the pass' thread used meanwhile:
				 * the hold less the time it waited for a
				 * core (a busy controller host) */
	bool ok;		/* false: the pass failed, nothing changed */
	bool rehold;		/* not a pass: a walk that writes gpuquota's
				 * holds again after Slurm's main cycle
				 * (pass_thread.c); pass_us is the walk */
	int tries;		/* first holds made (a reclaim or reload
				 * between the holds makes the pass again;
				 * GQ_PASS_TRIES + 1: made whole at last) */
} gq_pass_rec_t;

/* Projects counted one by one (by name, whatever the pool); past them a
 * record counts in the totals only (projects_uncounted_total). */
#define GQ_METRICS_PROJECTS 256

/* One project's share of the reclaims, from the ledger's records. */
typedef struct {
	char name[GQ_LEDGER_NAME];
	uint64_t victims[GQ_RECLAIM_NREASONS];	/* its jobs taken */
	uint64_t gpus_lent[GQ_RECLAIM_NREASONS];	/* their GPUs */
	uint64_t lost[GQ_RECLAIM_NREASONS];	/* GPU-seconds they lost */
	uint64_t gpus_reclaimed[GQ_RECLAIM_NREASONS];	/* GPUs taken for its
						 * jobs (borrowed back) */
} gq_metrics_project_t;

typedef struct {
	double started_at;	/* unix seconds the counters started at */
	uint64_t passes_total, pass_failures_total;
	gq_hist_t pass_seconds, lock_hold_seconds;
	gq_hist_t read_hold_seconds;	/* passes' first holds (read lock) */
	gq_pass_rec_t recent[GQ_RECENT_PASSES];	/* ring */
	int recent_first, recent_n;
	uint64_t reclaims_total[GQ_RECLAIM_NREASONS];	/* preemptors */
	uint64_t victims_total[GQ_RECLAIM_NREASONS];	/* jobs requeued */
	uint64_t victim_gpus_total[GQ_RECLAIM_NREASONS];	/* their GPUs */
	uint64_t lost_gpu_seconds_total[GQ_RECLAIM_NREASONS];	/* the work
					 * their requeues lose (ledger.h) */
	uint64_t ledger_records_total;	/* reclaim records queued */
	uint64_t ledger_dropped_total;	/* ... lost before the file: no
					 * memory, a full queue, a write */
	gq_metrics_project_t project[GQ_METRICS_PROJECTS];	/* in the
					 * order first counted */
	int nprojects;
	uint64_t projects_uncounted_total;	/* records past the table */
	uint64_t state_load_failures_total;	/* state files (usage, ledger,
					 * array throttles) not loaded at
					 * init: refused or unreadable; that
					 * state started empty */
	uint64_t config_load_failures_total;	/* gpuquota.json loads that
					 * failed (slurmctld kept the last
					 * good configuration) */
	uint64_t holds_total[GQ_HOLD_NREASONS];	/* index: gq_hold_t */
	uint64_t releases_total;
	uint32_t last_preemptor;	/* of the last victim counted */
} gq_metrics_t;

/* All counters at 0, started at `now` (unix seconds). */
void gq_metrics_init(gq_metrics_t *m, double now);

/* A pass ended at `at` (unix seconds); failed passes count too.
 * r->lock_cpu_us is kept in the recent passes only.  A re-hold (r->rehold)
 * counts in the lock hold histogram and the recent passes only. */
void gq_metrics_pass(gq_metrics_t *m, const gq_pass_rec_t *r);

/* The i-th most recent pass kept, oldest first (0 <= i < recent_n). */
const gq_pass_rec_t *gq_metrics_recent(const gq_metrics_t *m, int i);

/*
 * Slurm takes a victim holding `gpus` GPUs for pending `preemptor` in
 * band `band`; `moved`: the victim is moved (docs/MODEL.md "Moves").  A
 * reclaim is counted once per run of victims taken for the same
 * preemptor (Slurm takes a preemptor's victims together), by its band;
 * the victim and its GPUs by its reason (move, or the band's).
 */
void gq_metrics_victim(gq_metrics_t *m, uint32_t preemptor, gq_band_t band,
		       bool moved, uint32_t gpus);

/*
 * A reclaim record for the ledger (ledger.h): queued for the file, or
 * dropped (!queued).  Its work lost is counted when the victim's run
 * ended (a GQ_LEDGER_REQUEUED or GQ_LEDGER_AFTER_GRACE record, never a
 * warned one: a counter does not go back), by reason and for the victim's
 * project; the victim and its GPUs, for its project and the preemptor's,
 * at the decision (requeued or warned).  Records written: none lost; a
 * failed write drops `n`.  O(projects counted).
 */
void gq_metrics_ledger(gq_metrics_t *m, const gq_ledger_rec_t *r,
		       bool queued);
void gq_metrics_ledger_dropped(gq_metrics_t *m, int n);

/* A state file was not loaded (refused, unreadable, not such a file). */
void gq_metrics_load_failed(gq_metrics_t *m);

/* A load of gpuquota.json failed. */
void gq_metrics_config_failed(gq_metrics_t *m);

/* A pending job was held (newly) for `why`; a held job released. */
void gq_metrics_hold(gq_metrics_t *m, gq_hold_t why);
void gq_metrics_release(gq_metrics_t *m);

/* Label values: "limit", "department_limit", "not_requeueable",
 * "reclaim_in_flight", "room_wait", "requeue_budget" (NULL for
 * GQ_HOLD_NONE or out of range); a reclaim's: gq_ledger_reason. */
const char *gq_metrics_hold_reason(int h);

#endif
