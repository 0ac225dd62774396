/*
 * requeue_budget.h - the requeue budget's decision (docs/MODEL.md
 * "Requeue budget"): a project whose requeued work lost its budget in the
 * window borrows no more, and fair-share reclaim spares its jobs.  The
 * loss comes from the ledger's records (state/losses.c, into
 * gq_project_t.lost); the budget from the configuration.
 */
#ifndef GPUQUOTA_REQUEUE_BUDGET_H
#define GPUQUOTA_REQUEUE_BUDGET_H

#include <stdbool.h>

#include "core/registry.h"

/* Has the project lost its budget: a budget (> 0) and lost >= it?  O(1). */
bool gq_requeue_budget_reached(const gq_project_t *p);

/*
 * The GPUs the project's pending work may reach: its quota when the
 * budget is reached (its work beyond quota waits, as work that cannot be
 * requeued does), else -1 (no bound of the budget's).  O(1).
 */
double gq_requeue_budget_cap(const gq_project_t *p);

/*
 * A fair-share reclaim floor of the project (f, its floor without the
 * budget): its allocation when the budget is reached, so that fair-share
 * reclaim takes none of its jobs (quota reclaim still may).  O(1).
 */
double gq_requeue_budget_fair_floor(const gq_project_t *p, double f);

#endif
