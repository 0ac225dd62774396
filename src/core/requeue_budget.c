/*
 * requeue_budget.c - the requeue budget's decision (requeue_budget.h).
 */
#include <math.h>

#include "core/requeue_budget.h"

bool gq_requeue_budget_reached(const gq_project_t *p)
{
	return p->budget > 0 && p->lost >= p->budget;
}

double gq_requeue_budget_cap(const gq_project_t *p)
{
	return gq_requeue_budget_reached(p) ? p->quota : -1;
}

double gq_requeue_budget_fair_floor(const gq_project_t *p, double f)
{
	return gq_requeue_budget_reached(p) ? fmax(f, (double)p->alloc) : f;
}
