/*
 * test_prom.c - Prometheus text exposition: numbers, escaping, families,
 * histograms, compared with text written out by hand.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/prom.h"

static const char *_num(double v)
{
	static char buf[40];

	gq_prom_number(buf, sizeof(buf), v);
	return buf;
}

START_TEST(numbers)
{
	ck_assert_str_eq(_num(3), "3");
	ck_assert_str_eq(_num(0), "0");
	ck_assert_str_eq(_num(-2), "-2");
	ck_assert_str_eq(_num(0.1), "0.1");
	ck_assert_str_eq(_num(0.0001), "0.0001");
	ck_assert_str_eq(_num(0.00025), "0.00025");
	ck_assert_str_eq(_num(2.5), "2.5");
	ck_assert_str_eq(_num(1.0 / 3), "0.3333333333333333");
	ck_assert_str_eq(_num(1e20), "1e+20");	/* past 2^53 */
	ck_assert_str_eq(_num(INFINITY), "+Inf");
	ck_assert_str_eq(_num(-INFINITY), "-Inf");
	ck_assert_str_eq(_num(NAN), "NaN");
}
END_TEST

/* HELP escapes \ and newline; label values also ". */
START_TEST(family_and_escaping)
{
	gq_prom_t p;
	const char *labels[] = { "project", "a\"b\\c\nd", "department", NULL,
				 "state", "over", NULL };

	gq_prom_init(&p);
	gq_prom_family(&p, "gpuquota_x_gpus", "gauge", "GPUs\\ of\na project");
	gq_prom_sample(&p, "gpuquota_x_gpus", labels, 2);
	gq_prom_sample(&p, "gpuquota_x_gpus", NULL, 0.5);
	ck_assert(!p.oom);
	ck_assert_str_eq(p.buf,
		"# HELP gpuquota_x_gpus GPUs\\\\ of\\na project\n"
		"# TYPE gpuquota_x_gpus gauge\n"
		"gpuquota_x_gpus{project=\"a\\\"b\\\\c\\nd\",state=\"over\"} 2\n"
		"gpuquota_x_gpus 0.5\n");
	gq_prom_free(&p);
}
END_TEST

/*
 * Bounds 0.25 s, 1 s; observations 0.25 s (on the bound), 0.5 s, 2 s:
 * cumulative 1, 2, 3; sum 2.75 (binary fractions: exact).
 */
START_TEST(histogram_text)
{
	const double le[] = { 0.25, 1 };
	gq_hist_t h;
	gq_prom_t p;

	gq_hist_init(&h, le, 2);
	gq_hist_observe(&h, 0.25);
	gq_hist_observe(&h, 0.5);
	gq_hist_observe(&h, 2);
	gq_prom_init(&p);
	gq_prom_histogram(&p, "gpuquota_pass_duration_seconds", "Pass time.", &h);
	ck_assert_str_eq(p.buf,
		"# HELP gpuquota_pass_duration_seconds Pass time.\n"
		"# TYPE gpuquota_pass_duration_seconds histogram\n"
		"gpuquota_pass_duration_seconds_bucket{le=\"0.25\"} 1\n"
		"gpuquota_pass_duration_seconds_bucket{le=\"1\"} 2\n"
		"gpuquota_pass_duration_seconds_bucket{le=\"+Inf\"} 3\n"
		"gpuquota_pass_duration_seconds_sum 2.75\n"
		"gpuquota_pass_duration_seconds_count 3\n");
	gq_prom_free(&p);
}
END_TEST

/* The buffer grows past its first 4096 bytes without losing text. */
START_TEST(grows)
{
	gq_prom_t p;
	int i;

	gq_prom_init(&p);
	for (i = 0; i < 1000; i++)
		gq_prom_sample(&p, "gpuquota_n", NULL, i);
	ck_assert(!p.oom);
	ck_assert_uint_eq(strlen(p.buf), p.len);
	ck_assert_ptr_nonnull(strstr(p.buf, "\ngpuquota_n 999\n"));
	ck_assert(!strncmp(p.buf, "gpuquota_n 0\ngpuquota_n 1\n", 26));
	gq_prom_free(&p);
}
END_TEST

Suite *prom_suite(void)
{
	Suite *s = suite_create("prom");
	TCase *tc = tcase_create("prom");

	tcase_add_test(tc, numbers);
	tcase_add_test(tc, family_and_escaping);
	tcase_add_test(tc, histogram_text);
	tcase_add_test(tc, grows);
	suite_add_tcase(s, tc);
	return s;
}
