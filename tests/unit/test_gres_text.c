/*
 * test_gres_text.c - GPU counts from Slurm's text forms.
 */
#include <check.h>

#include "core/gres_text.h"

START_TEST(gres_text_forms)
{
	ck_assert_uint_eq(gq_gres_text_gpus(NULL), 0);
	ck_assert_uint_eq(gq_gres_text_gpus(""), 0);
	ck_assert_uint_eq(gq_gres_text_gpus("gres:gpu:2"), 2);
	ck_assert_uint_eq(gq_gres_text_gpus("gres/gpu:3"), 3);
	ck_assert_uint_eq(gq_gres_text_gpus("gres/gpu=4"), 4);
	ck_assert_uint_eq(gq_gres_text_gpus("gres:gpu:a100:2"), 2);
	ck_assert_uint_eq(gq_gres_text_gpus("gres:gpu"), 1);
	ck_assert_uint_eq(gq_gres_text_gpus("gpu:2(IDX:0-1)"), 2);
	ck_assert_uint_eq(gq_gres_text_gpus("gpu:a100:1(IDX:0),mps:100"), 1);
	ck_assert_uint_eq(gq_gres_text_gpus("gpu:2(S:0-1),gpu:tesla:1(S:0)"), 3);
	ck_assert_uint_eq(gq_gres_text_gpus("cpu=2,mem=100M,gres/gpu=2,node=1"), 2);
	ck_assert_uint_eq(gq_gres_text_gpus("gres:shard:4;gres:gpu:1"), 1);
	ck_assert_uint_eq(gq_gres_text_gpus("gres:gpumem:8"), 0);
	ck_assert_uint_eq(gq_gres_text_gpus("(null)"), 0);
}
END_TEST

Suite *gres_text_suite(void)
{
	Suite *s = suite_create("gres_text");
	TCase *tc = tcase_create("gres_text");

	tcase_add_test(tc, gres_text_forms);
	suite_add_tcase(s, tc);
	return s;
}
