/*
 * log_budget.c - how many lines a batch of like events may write (see
 * log_budget.h).
 */
#include <string.h>

#include "tools/log_budget.h"

void gq_log_budget_begin(gq_log_budget_t *b, int max)
{
	memset(b, 0, sizeof(*b));
	b->on = true;
	b->max = max;
}

bool gq_log_budget_line(gq_log_budget_t *b, int kind)
{
	if (!b->on || b->lines < b->max) {
		b->lines++;
		return true;
	}
	b->over[kind]++;
	return false;
}

int gq_log_budget_over(const gq_log_budget_t *b, int kind)
{
	return b->on ? b->over[kind] : 0;
}

void gq_log_budget_end(gq_log_budget_t *b)
{
	b->on = false;
}
