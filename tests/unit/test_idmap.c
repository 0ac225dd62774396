/*
 * test_idmap.c - the view's job id -> index table against a plain
 * reference (a list searched one by one), on seeded random ids: dense
 * runs, a federation's cluster ids, any 32-bit id (0 and UINT32_MAX
 * included), across growth, renumbering and clearing.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tools/idmap.h"

/* the reference: ids[k] has index idx[k] */
typedef struct {
	uint32_t *ids;
	int *idx;
	int n;
} ref_t;

static int _ref_get(const ref_t *r, uint32_t id)
{
	for (int k = 0; k < r->n; k++)
		if (r->ids[k] == id)
			return r->idx[k];
	return -1;
}

static uint32_t _draw_id(unsigned *seed, uint32_t *next)
{
	switch (rand_r(seed) % 4) {
	case 0:		/* in sequence, as Slurm gives them */
		return (*next)++;
	case 1:		/* another cluster of a federation */
		return ((uint32_t)(1 + rand_r(seed) % 3) << 26) |
		       (uint32_t)(rand_r(seed) % 2000);
	case 2:		/* the ends of the range */
		return rand_r(seed) % 2 ? 0 : UINT32_MAX - rand_r(seed) % 3;
	default:	/* anything */
		return ((uint32_t)rand_r(seed) << 16) ^ (uint32_t)rand_r(seed);
	}
}

START_TEST(idmap_random)
{
	for (int c = 0; c < 40; c++) {
		unsigned seed = 20261201u + c;
		int n = 1 + rand_r(&seed) % 800, rounds = 3;
		ref_t r = { malloc(sizeof(uint32_t) * n), malloc(sizeof(int) * n), 0 };
		int *to = malloc(sizeof(int) * n);
		gq_idmap_t m;

		gq_idmap_init(&m);
		ck_assert_int_eq(gq_idmap_get(&m, 7), -1);
		while (rounds--) {
			uint32_t next = 1 + rand_r(&seed) % 100;

			r.n = 0;
			gq_idmap_clear(&m);
			for (int k = 0; k < n; k++) {
				uint32_t id = _draw_id(&seed, &next);
				int want = _ref_get(&r, id);
				int got = gq_idmap_get_or_put(&m, id, r.n);

				if (want < 0) {
					want = r.n;
					r.ids[r.n] = id;
					r.idx[r.n] = r.n;
					r.n++;
				}
				ck_assert_msg(got == want,
					      "seed %u: id %u put: %d, want %d",
					      20261201u + c, id, got, want);
			}
			ck_assert_msg((int)m.count == r.n, "seed %u: count %u, want %d",
				      20261201u + c, m.count, r.n);
			/* indices moved: a random permutation */
			for (int k = 0; k < r.n; k++)
				to[k] = k;
			for (int k = r.n - 1; k > 0; k--) {
				int j = rand_r(&seed) % (k + 1), t = to[k];

				to[k] = to[j];
				to[j] = t;
			}
			gq_idmap_renumber(&m, to);
			for (int k = 0; k < r.n; k++)
				r.idx[k] = to[r.idx[k]];
			for (int k = 0; k < r.n; k++)
				ck_assert_msg(gq_idmap_get(&m, r.ids[k]) == r.idx[k],
					      "seed %u: id %u: %d, want %d",
					      20261201u + c, r.ids[k],
					      gq_idmap_get(&m, r.ids[k]), r.idx[k]);
			/* ids never put are absent */
			for (int k = 0; k < 200; k++) {
				uint32_t id = _draw_id(&seed, &next);

				ck_assert_msg(gq_idmap_get(&m, id) == _ref_get(&r, id),
					      "seed %u: absent id %u found",
					      20261201u + c, id);
			}
		}
		gq_idmap_clear(&m);
		ck_assert_int_eq(gq_idmap_get(&m, r.ids[0]), -1);
		ck_assert_uint_eq(m.count, 0);
		gq_idmap_free(&m);
		free(r.ids);
		free(r.idx);
		free(to);
	}
}
END_TEST

Suite *idmap_suite(void)
{
	Suite *s = suite_create("idmap");
	TCase *tc = tcase_create("idmap");

	tcase_add_test(tc, idmap_random);
	suite_add_tcase(s, tc);
	return s;
}
