/*
 * test_constraint.c - plain feature expressions against node features.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/constraint.h"

START_TEST(constraint_forms)
{
	const char *node = "a100,ib,bigmem";

	ck_assert_int_eq(gq_constraint_match("a100", node), 1);
	ck_assert_int_eq(gq_constraint_match("h100", node), 0);
	ck_assert_int_eq(gq_constraint_match("a100&ib", node), 1);
	ck_assert_int_eq(gq_constraint_match("a100,ib", node), 1);
	ck_assert_int_eq(gq_constraint_match("a100&h100", node), 0);
	ck_assert_int_eq(gq_constraint_match("h100|ib", node), 1);
	ck_assert_int_eq(gq_constraint_match("h100|l40", node), 0);
	/* whole names only: "a10" is not "a100", "big" not "bigmem" */
	ck_assert_int_eq(gq_constraint_match("a10", node), 0);
	ck_assert_int_eq(gq_constraint_match("big|a10", node), 0);
	/* a node without features */
	ck_assert_int_eq(gq_constraint_match("a100", NULL), 0);
	ck_assert_int_eq(gq_constraint_match("a100", ""), 0);
	/* forms Slurm evaluates with counts: not here */
	ck_assert_int_eq(gq_constraint_match("[a100|h100]", node), -1);
	ck_assert_int_eq(gq_constraint_match("a100*2", node), -1);
	ck_assert_int_eq(gq_constraint_match("(a100|h100)&ib", node), -1);
	ck_assert_int_eq(gq_constraint_match("a100&ib|h100", node), -1);
	ck_assert_int_eq(gq_constraint_match("!a100", node), -1);
	ck_assert_int_eq(gq_constraint_match("", node), -1);
	ck_assert_int_eq(gq_constraint_match(NULL, node), -1);
	ck_assert(gq_constraint_plain("a|b|c"));
	ck_assert(!gq_constraint_plain("a|b&c"));
}
END_TEST

/* a job's narrowing, and which nodes it allows */
START_TEST(narrowing)
{
	gq_narrow_t w;
	gq_narrows_t *set = calloc(1, sizeof(*set));
	int i;

	/* nothing narrows: no constraint, untyped GPUs */
	ck_assert(!gq_narrow_of(2, NULL, "gres:gpu:1", NULL, &w));
	/* a constraint Slurm evaluates with counts narrows nothing */
	ck_assert(!gq_narrow_of(2, "[a|b]", "gres:gpu:1", NULL, &w));
	/* a typed request, per node or per job */
	ck_assert(gq_narrow_of(0, NULL, "gres:gpu:a100:2", NULL, &w));
	ck_assert_str_eq(w.type, "a100");
	ck_assert(gq_narrow_of(0, NULL, NULL, "gres/gpu:h100=4", &w));
	ck_assert_str_eq(w.type, "h100");
	/* partition 2, feature ib, type a100 */
	ck_assert(gq_narrow_of(2, "ib", "gres:gpu:a100:1", NULL, &w));
	ck_assert(gq_narrow_allows(&w, true, "ib,fast", "gpu:a100:4"));
	ck_assert(!gq_narrow_allows(&w, false, "ib,fast", "gpu:a100:4"));
	ck_assert(!gq_narrow_allows(&w, true, "fast", "gpu:a100:4"));
	ck_assert(!gq_narrow_allows(&w, true, "ib", "gpu:h100:4"));
	ck_assert(gq_narrow_allows(&w, true, "ib", "gpu:h100:4,gpu:a100:1"));
	/* any partition (0): in_part does not matter */
	ck_assert(gq_narrow_of(0, "ib", NULL, NULL, &w));
	ck_assert(gq_narrow_allows(&w, false, "ib", NULL));
	/* the set: the same narrowing once, numbered in order, bounded */
	ck_assert_int_eq(gq_narrows_add(set, &w), 0);
	ck_assert_int_eq(gq_narrows_add(set, &w), 0);
	ck_assert(gq_narrow_of(1, "ib", NULL, NULL, &w));
	ck_assert_int_eq(gq_narrows_find(set, &w), -1);
	ck_assert_int_eq(gq_narrows_add(set, &w), 1);
	ck_assert_int_eq(gq_narrows_find(set, &w), 1);
	for (i = 2; i < GQ_NARROW_MAX; i++) {
		w.part = i + 10;
		ck_assert_int_eq(gq_narrows_add(set, &w), i);
	}
	w.part = 5;
	ck_assert_int_eq(gq_narrows_add(set, &w), -1);
	ck_assert_int_eq(set->n, GQ_NARROW_MAX);
	free(set);
}
END_TEST

/* found by hash: each of a full set by its own number, texts that only
 * split differently are different, one more is not there */
START_TEST(narrowings_by_hash)
{
	gq_narrows_t *set = calloc(1, sizeof(*set));
	gq_narrow_t w;
	int i;

	for (i = 0; i < GQ_NARROW_MAX; i++) {
		memset(&w, 0, sizeof(w));
		w.part = i % 3;
		snprintf(w.features, sizeof(w.features), "f%d", i / 2);
		snprintf(w.type, sizeof(w.type), "%s", i % 2 ? "a100" : "");
		ck_assert_int_eq(gq_narrows_add(set, &w), i);
	}
	for (i = GQ_NARROW_MAX - 1; i >= 0; i--) {
		memset(&w, 0, sizeof(w));
		w.part = i % 3;
		snprintf(w.features, sizeof(w.features), "f%d", i / 2);
		snprintf(w.type, sizeof(w.type), "%s", i % 2 ? "a100" : "");
		ck_assert_int_eq(gq_narrows_find(set, &w), i);
		ck_assert_int_eq(gq_narrows_add(set, &w), i);
	}
	memset(&w, 0, sizeof(w));
	snprintf(w.features, sizeof(w.features), "f1a");	/* "f1" + "a100"? */
	snprintf(w.type, sizeof(w.type), "100");
	ck_assert_int_eq(gq_narrows_find(set, &w), -1);
	ck_assert_int_eq(gq_narrows_add(set, &w), -1);
	ck_assert_int_eq(set->n, GQ_NARROW_MAX);
	free(set);
}
END_TEST

Suite *constraint_suite(void)
{
	Suite *s = suite_create("constraint");
	TCase *tc = tcase_create("constraint");

	tcase_add_test(tc, constraint_forms);
	tcase_add_test(tc, narrowing);
	tcase_add_test(tc, narrowings_by_hash);
	suite_add_tcase(s, tc);
	return s;
}
