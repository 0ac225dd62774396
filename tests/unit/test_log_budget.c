/*
 * test_log_budget.c - a batch writes at most `max` lines and counts the
 * rest by kind; outside a batch every event has its line.
 */
#include <check.h>

#include "core/log_budget.h"

/* max 3: holds h1 h2, release r1 get lines; h3 h4 and r2 are counted
 * (2 holds, 1 release); a new batch starts from zero; outside a batch
 * nothing is counted. */
START_TEST(batch_writes_at_most_max_lines)
{
	gq_log_budget_t b = { 0 };
	int i;

	for (i = 0; i < 10; i++)	/* no batch: every line */
		ck_assert(gq_log_budget_line(&b, 0));
	ck_assert_int_eq(gq_log_budget_over(&b, 0), 0);
	gq_log_budget_begin(&b, 3);
	ck_assert(gq_log_budget_line(&b, 0));
	ck_assert(gq_log_budget_line(&b, 0));
	ck_assert(gq_log_budget_line(&b, 1));
	ck_assert(!gq_log_budget_line(&b, 0));
	ck_assert(!gq_log_budget_line(&b, 1));
	ck_assert(!gq_log_budget_line(&b, 0));
	ck_assert_int_eq(gq_log_budget_over(&b, 0), 2);
	ck_assert_int_eq(gq_log_budget_over(&b, 1), 1);
	gq_log_budget_end(&b);
	ck_assert_int_eq(gq_log_budget_over(&b, 0), 0);
	ck_assert(gq_log_budget_line(&b, 0));
	gq_log_budget_begin(&b, 3);
	ck_assert_int_eq(gq_log_budget_over(&b, 0), 0);
	ck_assert(gq_log_budget_line(&b, 1));
}
END_TEST

Suite *log_budget_suite(void)
{
	Suite *s = suite_create("log_budget");
	TCase *tc = tcase_create("batch");

	tcase_add_test(tc, batch_writes_at_most_max_lines);
	suite_add_tcase(s, tc);
	return s;
}
