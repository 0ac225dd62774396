/*
 * log_budget.h - how many lines a batch of like events may write to
 * slurmctld's log.  A batch (a pass writing its holds and releases back,
 * a reclaim holding the work that waits for it) may touch thousands of
 * jobs; each line is written under slurmctld's job write lock.  The first
 * `max` events of a batch get a line each; the rest are counted, by kind,
 * for one line at the end.  Outside a batch every event gets its line.
 */
#ifndef GPUQUOTA_LOG_BUDGET_H
#define GPUQUOTA_LOG_BUDGET_H

#include <stdbool.h>

#define GQ_LOG_KINDS 2

typedef struct {
	bool on;		/* inside a batch */
	int max;		/* lines a batch may write */
	int lines;		/* written in this batch */
	int over[GQ_LOG_KINDS];	/* events past max, by kind */
} gq_log_budget_t;

/* A batch begins: up to max lines. */
void gq_log_budget_begin(gq_log_budget_t *b, int max);

/* An event of `kind` (0 .. GQ_LOG_KINDS - 1): true when it gets its line,
 * false when it is only counted.  O(1). */
bool gq_log_budget_line(gq_log_budget_t *b, int kind);

/* The batch ends: how many of `kind` were only counted (0 outside a
 * batch). */
int gq_log_budget_over(const gq_log_budget_t *b, int kind);
void gq_log_budget_end(gq_log_budget_t *b);

#endif
