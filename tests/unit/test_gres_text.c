/*
 * test_gres_text.c - GPU counts from Slurm's text forms.
 */
#include <check.h>

#include "tools/gres_text.h"

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

START_TEST(gres_text_types)
{
	char t[16];
	const char *node = "gpu:a100:4(S:0),gpu:h100:2(S:1),gpu:1";

	ck_assert_uint_eq(gq_gres_text_gpus_of_type(node, "a100"), 4);
	ck_assert_uint_eq(gq_gres_text_gpus_of_type(node, "h100"), 2);
	ck_assert_uint_eq(gq_gres_text_gpus_of_type(node, "a10"), 0);
	ck_assert_uint_eq(gq_gres_text_gpus_of_type(node, NULL), 7);
	ck_assert_uint_eq(gq_gres_text_gpus_of_type(node, ""), 7);
	ck_assert_uint_eq(gq_gres_text_gpus_of_type("gres/gpu:l40=3", "l40"), 3);
	ck_assert(gq_gres_text_type("gres:gpu:a100:1", t, sizeof(t)));
	ck_assert_str_eq(t, "a100");
	ck_assert(gq_gres_text_type("cpu=2,gres/gpu:h100=2", t, sizeof(t)));
	ck_assert_str_eq(t, "h100");
	ck_assert(gq_gres_text_type("gres:gpu:tesla", t, sizeof(t)));
	ck_assert_str_eq(t, "tesla");
	/* untyped, another gres's type, a type longer than the buffer */
	ck_assert(!gq_gres_text_type("gres:gpu:2", t, sizeof(t)));
	ck_assert(!gq_gres_text_type("gres/gpu=2", t, sizeof(t)));
	ck_assert(!gq_gres_text_type("gres:shard:big:2", t, sizeof(t)));
	ck_assert(!gq_gres_text_type("gres:gpu:a_very_long_type_name:1", t,
				     sizeof(t)));
	ck_assert(!gq_gres_text_type(NULL, t, sizeof(t)));
}
END_TEST

Suite *gres_text_suite(void)
{
	Suite *s = suite_create("gres_text");
	TCase *tc = tcase_create("gres_text");

	tcase_add_test(tc, gres_text_forms);
	tcase_add_test(tc, gres_text_types);
	suite_add_tcase(s, tc);
	return s;
}
