/*
 * ledger.h - the reclaim ledger (docs/MODEL.md "Ledger"): one record per
 * victim Slurm requeues for a reclaim, kept in
 * <StateSaveLocation>/gpuquota-ledger, and what `gpuquota ledger` sums
 * from it.
 *
 * Owns the record, its line format, the file's append and rotation, the
 * read of both files, the in-memory queue the plugins fill under
 * slurmctld's locks, and the sums per period and project.  Plain C, no
 * Slurm header.
 *
 * The file: one line per record, appended with one write(2) (O_APPEND):
 *
 *   gq2 AT POOL PREEMPTOR PPROJECT BAND VICTIM VPROJECT GPUS LOST STAGE END\n
 *
 * AT unix seconds of the decision, POOL the pool's name or "*" (none),
 * BAND "quota" or "fair_share" (the preemptor's band) or "move", LOST the
 * GPU-seconds of the victim's run from its start to END (unix seconds;
 * gq_ledger_lost), STAGE what the record is (gq_ledger_stage_t: "requeued",
 * "warned", "requeued_after_grace", "observed": not acted on).  A line of the first version, "gq1"
 * without STAGE and END, reads as "requeued" with END = AT.  Names are
 * gpuquota.json names (letters, digits, '.', '_', '-': no blank).  A
 * line without its newline (torn by a crash) and any line that is not
 * such a record are skipped when read; an append after a torn line first
 * ends it with " torn", so it never swallows the next record and is never
 * read as one (in either version).  When the file would
 * pass the bound it is renamed to gpuquota-ledger.1 (the one older file
 * kept, replaced): at most twice the bound on disk.  Reading .1, then the
 * file, gives the history in order.
 */
#ifndef GPUQUOTA_LEDGER_H
#define GPUQUOTA_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/view.h"

#define GQ_LEDGER_FILE "gpuquota-ledger"
#define GQ_LEDGER_BOUND (8L << 20)	/* bytes of one file */
#define GQ_LEDGER_NAME 65		/* a gpuquota.json name and its NUL */
#define GQ_LEDGER_LINE 256		/* longest line written, and more */
/* A file read is at most the bound and one line (a file's first record
 * is written whatever the bound); a larger one is refused. */
#define GQ_LEDGER_READ_BOUND (GQ_LEDGER_BOUND + GQ_LEDGER_LINE)
#define GQ_LEDGER_QUEUE_MAX 4096	/* records waiting for the writer */

/* Why a victim was taken: the preemptor's band (docs/MODEL.md "Reclaim"),
 * or a move (docs/MODEL.md "Moves") */
typedef enum {
	GQ_RECLAIM_QUOTA = 0,	/* quota reclaim: preemptor in quota */
	GQ_RECLAIM_FAIR_SHARE,	/* fair-share reclaim */
	GQ_RECLAIM_MOVE,	/* an in-quota job moved for a room waiter:
				 * no requeue budget counts it */
	GQ_RECLAIM_NREASONS,
} gq_reclaim_reason_t;

/* "quota", "fair_share", "move" (the ledger's and the metrics' label);
 * NULL out of range */
const char *gq_ledger_reason(int r);

/*
 * What a record says (docs/MODEL.md "Ledger").  A victim requeued at once
 * has one record, GQ_LEDGER_REQUEUED.  A victim given a grace time has
 * two: GQ_LEDGER_WARNED at the decision, its loss as if it were requeued
 * then (what counts while it is in its grace time, and for good when its
 * requeue is never seen), then GQ_LEDGER_AFTER_GRACE when its run ends
 * (requeued, or exited in its grace time), with the same AT, preemptor and
 * victim and its loss as it is then: it supersedes the warned record
 * (gq_ledger_settle).  In observe mode (docs/MODEL.md "Observe mode") a
 * reclaim gpuquota would offer is GQ_LEDGER_OBSERVED, its loss as if
 * requeued then: not acted on, so no budget, sum or metric counts it
 * (the sums count it apart, `observed`).
 */
typedef enum {
	GQ_LEDGER_REQUEUED = 0,
	GQ_LEDGER_WARNED,
	GQ_LEDGER_AFTER_GRACE,
	GQ_LEDGER_OBSERVED,
	GQ_LEDGER_NSTAGES,
} gq_ledger_stage_t;

/* "requeued", "warned", "requeued_after_grace", "observed"; NULL out of
 * range */
const char *gq_ledger_stage_name(int stage);

typedef struct {
	int64_t at;		/* the decision, unix seconds */
	int64_t end;		/* the loss is counted to: the requeue, or
				 * the victim's exit in its grace time */
	int stage;		/* gq_ledger_stage_t */
	char pool[GQ_LEDGER_NAME];	/* "": no pools */
	uint32_t preemptor;
	char preemptor_project[GQ_LEDGER_NAME];
	int reason;		/* gq_reclaim_reason_t (metrics.h) */
	uint32_t victim;
	char victim_project[GQ_LEDGER_NAME];
	uint32_t gpus;		/* the victim's */
	uint64_t lost;		/* GPU-seconds of the run requeued */
} gq_ledger_rec_t;

/*
 * The GPU-seconds a requeue counts as lost (docs/MODEL.md "Ledger"): the
 * run's, gpus x (now - start), at least 0; 0 without a start.  Only
 * Slurm's facts: a job's checkpoint note, which its owner writes, orders
 * victims but never lowers it (the requeue budget sums it).
 */
uint64_t gq_ledger_lost(uint32_t gpus, int64_t now, int64_t start);

/*
 * The record of victim `ee` taken for preemptor `er` in view v (of the
 * pool named `pool`, NULL without pools) at `now`: the preemptor's band
 * as the reason, both projects, the victim's GPUs and its run's
 * GPU-seconds to now (gq_ledger_lost): a GQ_LEDGER_REQUEUED record, which
 * preempt/gpuquota makes GQ_LEDGER_WARNED for a victim given a grace
 * time.  preempt/gpuquota's and the simulator's one making of it.  O(1).
 */
void gq_ledger_record(gq_ledger_rec_t *r, const char *pool,
		      const gq_view_t *v, const gq_job_t *er,
		      const gq_job_t *ee, int64_t now);

/*
 * Drop, in place, each GQ_LEDGER_WARNED record that a later
 * GQ_LEDGER_AFTER_GRACE record of the same victim and preemptor
 * supersedes; the others keep their order.  *n is updated; returns 0, or
 * -1 out of memory (nothing dropped).  O(n) expected.
 */
int gq_ledger_settle(gq_ledger_rec_t *r, int *n);

/*
 * The record that settles `warned` (GQ_LEDGER_WARNED) when its victim's
 * run ended at `end` (its requeue, or its exit in its grace time): the
 * same decision, GQ_LEDGER_AFTER_GRACE, its loss gpus x (end - start),
 * at least 0 (an end before the decision counts as the decision).  O(1).
 */
void gq_ledger_after_grace(const gq_ledger_rec_t *warned, int64_t start,
			   int64_t end, gq_ledger_rec_t *out);

/* Copy a name into a record's field (cut at GQ_LEDGER_NAME - 1; NULL:
 * ""). */
void gq_ledger_name(char *dst, const char *src);

/* One record as its line, newline included, into buf: its length, or -1
 * when it does not fit. */
int gq_ledger_format(const gq_ledger_rec_t *r, char *buf, size_t len);

/* A line (its newline included) as a record: true, or false for
 * anything else (a torn line, another version, a bad field). */
bool gq_ledger_parse(const char *line, gq_ledger_rec_t *r);

/* <dir>/gpuquota-ledger and <dir>/gpuquota-ledger.1, malloc'ed (NULL:
 * memory). */
char *gq_ledger_path(const char *dir);
char *gq_ledger_old_path(const char *path);

/*
 * Append n records to `path` (created 0600; never through a link, and
 * only to a trusted regular file: trusted_file.h), each with one write(2), the
 * file rotated to path.1 first when a record would take it past `bound`
 * bytes; fsync'ed once at the end.  Returns how many were written; -1
 * with the reason, naming the file, in err when not all were.  Does its
 * own I/O: call it holding no lock.
 */
int gq_ledger_append(const char *path, const gq_ledger_rec_t *r, int n,
		     long bound, char *err, size_t errlen);

/*
 * Read path.1, then path (either may be missing), appending their
 * records to *out (*n of them, realloc'ed; the caller frees *out), each
 * victim's warned record left out when its after-grace record follows
 * (gq_ledger_settle); *skipped counts the lines that were not records.
 * Each file is trusted first (trusted_file.h: not a link, a regular file
 * of root or SlurmUser writable by its owner alone, at most
 * GQ_LEDGER_READ_BOUND bytes).  Returns 0, or -1 with the reason in err
 * (memory, or a file there but unreadable or refused).
 */
int gq_ledger_read(const char *path, gq_ledger_rec_t **out, int *n,
		   int *skipped, char *err, size_t errlen);

/* The records waiting for the writer (state.h: gq_state_ledger_note). */
typedef struct {
	gq_ledger_rec_t *r;
	int n, cap;
} gq_ledger_queue_t;

/* Add r: false when out of memory or GQ_LEDGER_QUEUE_MAX are waiting
 * (r is then dropped). */
bool gq_ledger_queue_push(gq_ledger_queue_t *q, const gq_ledger_rec_t *r);

/* ---- sums (`gpuquota ledger`) ------------------------------------ */

typedef enum { GQ_LEDGER_ALL, GQ_LEDGER_DAY, GQ_LEDGER_WEEK } gq_ledger_by_t;

/* One project in one period: what was taken from it (lent) and for it
 * (borrowed back), one reclaim per victim. */
typedef struct {
	int64_t period;		/* its start, unix seconds (UTC days; weeks
				 * from Monday); 0 for GQ_LEDGER_ALL */
	char project[GQ_LEDGER_NAME];
	uint64_t reclaims_lent, gpus_lent, lost;	/* as victim */
	uint64_t reclaims_borrowed, gpus_borrowed, cost;	/* as preemptor:
					 * cost = GPU-seconds its victims lost */
	uint64_t observed;	/* observe mode's records naming it, either
				 * side: counted here only */
} gq_ledger_row_t;

typedef struct {
	int64_t since;		/* records at or after; 0: all */
	const char *project;	/* records naming it, its rows; NULL: all */
	gq_ledger_by_t by;
} gq_ledger_filter_t;

/* Does the filter keep r (since, project on either side)? */
bool gq_ledger_keep(const gq_ledger_rec_t *r, const gq_ledger_filter_t *f);

/* The start of the period `at` is in. */
int64_t gq_ledger_period(int64_t at, gq_ledger_by_t by);

/*
 * The rows of the records f keeps, by period then project name
 * (malloc'ed into *rows, *nrows of them; the caller frees).  Returns 0,
 * -1 out of memory.  O(n log n).
 */
int gq_ledger_sum(const gq_ledger_rec_t *r, int n,
		  const gq_ledger_filter_t *f, gq_ledger_row_t **rows,
		  int *nrows);

/* "YYYY-MM-DD" as the unix seconds of that day's start (UTC); -1 when it
 * is not such a date. */
int64_t gq_ledger_date(const char *ymd);

#endif
