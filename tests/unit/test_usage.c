/*
 * test_usage.c - fair share that remembers: usage decayed with its
 * half-life (numbers worked by hand), the weight it tilts, and its file.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/pools.h"
#include "state/usage.h"
#include "helpers.h"

static gq_pools_t *pools_ab(void)
{
	char err[GQ_ERR_MAX];
	gq_config_t *cfg = NULL;
	gq_pools_t *p;

	ck_assert_msg(!gq_config_parse(
			      "{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 1},"
			      " {\"name\": \"team-b\", \"gpu_quota\": 2}]}",
			      "u.json", &cfg, err, sizeof(err)), "%s", err);
	ck_assert_ptr_nonnull(p = gq_pools_new(cfg));
	gq_config_free(cfg);
	return p;
}

/* team-a runs `a` GPUs (quota 1), team-b 1 (quota 2) */
static void pass_with(gq_pools_t *p, uint32_t a, int64_t now)
{
	gq_view_t *v = p->view[0];
	uint32_t id;

	gq_view_begin(v, 8, now);
	for (id = 1; id <= a; id++)
		run(v, id, "team-a", 1, id);
	run(v, 10, "team-b", 1, 10);
	ck_assert_int_eq(gq_view_compute(v), 0);
}

/*
 * H = 100 s.  The first advance (t 1000) only starts the clock.  From
 * 1000 to 1100 team-a holds 3, 2 above its quota: decay e^(-ln2) = 1/2,
 * each GPU above adds (1 - 1/2) x 100 / ln 2 = 72.1348 GPU-s: U_a =
 * 144.2695.  team-b, under its quota, gets no entry.  To 1200 at its
 * quota: U_a halves, 72.1348.  A project gone keeps decaying.
 */
START_TEST(usage_decays_with_its_half_life)
{
	gq_pools_t *p = pools_ab();
	gq_usage_t u = { 0 };

	pass_with(p, 3, 1000);
	ck_assert_int_eq(gq_usage_advance(&u, p, 100, 1000), 0);
	ck_assert_double_eq(gq_usage_of(&u, "", "team-a"), 0);
	ck_assert_int_eq(gq_usage_advance(&u, p, 100, 1100), 0);
	ck_assert_double_eq_tol(gq_usage_of(&u, "", "team-a"), 144.2695, 1e-3);
	ck_assert_double_eq(gq_usage_of(&u, "", "team-b"), 0);
	ck_assert_int_eq(u.n, 1);
	pass_with(p, 1, 1100);
	ck_assert_int_eq(gq_usage_advance(&u, p, 100, 1200), 0);
	ck_assert_double_eq_tol(gq_usage_of(&u, "", "team-a"), 72.1348, 1e-3);
	/* off: nothing moves */
	ck_assert_int_eq(gq_usage_advance(&u, p, 0, 5000), 0);
	ck_assert_double_eq_tol(gq_usage_of(&u, "", "team-a"), 72.1348, 1e-3);
	gq_usage_free(&u);
	gq_pools_free(p);
}
END_TEST

/*
 * The clock steps back.  H = 100 s, team-a 2 GPUs above its quota: U_a
 * = 144.2695 at 1100, as above.  The clock steps back to 500: U stays
 * (no decay, no growth) and 500 is the new reference.  To 600: U_a =
 * 144.2695 / 2 + 2 x 72.1348 = 216.4042, decay and growth resumed (not
 * frozen until the clock is back at 1100).
 */
START_TEST(usage_resumes_when_the_clock_steps_back)
{
	gq_pools_t *p = pools_ab();
	gq_usage_t u = { 0 };

	pass_with(p, 3, 1000);
	ck_assert_int_eq(gq_usage_advance(&u, p, 100, 1000), 0);
	ck_assert_int_eq(gq_usage_advance(&u, p, 100, 1100), 0);
	ck_assert_double_eq_tol(gq_usage_of(&u, "", "team-a"), 144.2695, 1e-3);
	ck_assert_int_eq(gq_usage_advance(&u, p, 100, 500), 0);
	ck_assert_double_eq_tol(gq_usage_of(&u, "", "team-a"), 144.2695, 1e-3);
	ck_assert_double_eq(u.at, 500);
	ck_assert_int_eq(gq_usage_advance(&u, p, 100, 600), 0);
	ck_assert_double_eq_tol(gq_usage_of(&u, "", "team-a"), 216.4042, 1e-3);
	gq_usage_free(&u);
	gq_pools_free(p);
}
END_TEST

/*
 * C 8: team-a and team-b (quota 2 each) run 2 GPUs each (jobs 1, 2) and
 * pend 8 more each: `first` GPUs (jobs 3, 4), then the rest (5, 6);
 * team-a's usage U tilts its weight to w.
 */
static void two_teams_pass(gq_view_t *v, double U, double w, uint32_t first)
{
	gq_view_begin(v, 8, 100);
	run(v, 1, "team-a", 2, 1);
	run(v, 2, "team-b", 2, 2);
	pend(v, 3, "team-a", first, 3);
	pend(v, 4, "team-b", first, 4);
	if (first < 8) {
		pend(v, 5, "team-a", 8 - first, 5);
		pend(v, 6, "team-b", 8 - first, 6);
	}
	gq_view_set_usage(v, gq_view_find_project(v, "team-a"), U, w);
	ck_assert_int_eq(gq_view_compute(v), 0);
}

/*
 * The surplus, never the quota.  C 8, H 3600 s, usage_weight 1: team-a
 * borrowed 4 GPUs for long, U = 4 x 3600 / ln 2 = 20 775 GPU-s: weight
 * 1 / (1 + 20 775 / (8 x 3600)) = 0.581.  Both at quota 2 with 8 pending:
 * the surplus 4 is split 0.581 : 1, f_a = 2 + 4 x 0.581 / 1.581 = 3.470,
 * f_b = 4.530.  Without usage 4 and 4.
 */
START_TEST(usage_tilts_the_surplus)
{
	gq_project_cfg_t p[2] = { proj("team-a", 2, 1, GQ_NO_LIMIT),
				  proj("team-b", 2, 1, GQ_NO_LIMIT) };
	double U = 4 * 3600 / M_LN2, w = gq_usage_weight(1, U, 1, 8, 3600);
	gq_view_t *v = view_of(p, 2, NULL, 0);

	ck_assert_double_eq_tol(w, 0.581, 1e-3);
	ck_assert_double_eq(gq_usage_weight(2, 0, 1, 8, 3600), 2);
	ck_assert_double_eq(gq_usage_weight(2, U, 1, 8, 0), 2);
	ck_assert_double_eq(gq_usage_weight(2, U, 0, 8, 3600), 2);
	for (int tilted = 0; tilted <= 1; tilted++) {
		two_teams_pass(v, tilted ? U : 0, tilted ? w : 1, 8);
		ck_assert_double_eq_tol(project(v, "team-a")->share,
					tilted ? 3.470 : 4, 1e-3);
		ck_assert_double_eq_tol(project(v, "team-b")->share,
					tilted ? 4.530 : 4, 1e-3);
		ck_assert_double_eq(project(v, "team-a")->quota, 2);
	}
	gq_view_free(v);
}
END_TEST

/*
 * The same tilt orders the jobs inside a band: the key above quota is
 * (A_k - q) / w' (docs/MODEL.md "Bands and priority").  As above (f_a =
 * 3.470, f_b = 4.530), each project's next job asks 1 GPU, then 7
 * (demand 10 each, as before): a3 with A = 3 <= 3.470 and b4 with A = 3
 * <= 4.530 are both fair-share; keys (3 - 2) / 0.581 = 1.721 and
 * (3 - 2) / 1 = 1: b4 goes first.  Without usage both keys are 1 and the
 * priorities equal (Slurm then starts the older, a3).
 */
START_TEST(usage_orders_inside_the_band)
{
	gq_project_cfg_t p[2] = { proj("team-a", 2, 1, GQ_NO_LIMIT),
				  proj("team-b", 2, 1, GQ_NO_LIMIT) };
	double U = 4 * 3600 / M_LN2, w = gq_usage_weight(1, U, 1, 8, 3600);
	gq_view_t *v = view_of(p, 2, NULL, 0);

	for (int tilted = 0; tilted <= 1; tilted++) {
		const gq_job_t *a3, *b4;

		two_teams_pass(v, tilted ? U : 0, tilted ? w : 1, 1);
		a3 = gq_view_job(v, 3);
		b4 = gq_view_job(v, 4);
		ck_assert_int_eq(a3->band, GQ_BAND_FAIR_SHARE);
		ck_assert_int_eq(b4->band, GQ_BAND_FAIR_SHARE);
		ck_assert_double_eq_tol(a3->key, tilted ? 1.721 : 1, 1e-3);
		ck_assert_double_eq_tol(b4->key, 1, 1e-9);
		if (tilted)
			ck_assert_uint_gt(b4->priority, a3->priority);
		else
			ck_assert_uint_eq(b4->priority, a3->priority);
	}
	gq_view_free(v);
}
END_TEST

/* Written whole, read back; a bad file is refused (usage starts from
 * zero), a missing one says so; after a read the next advance decays. */
START_TEST(usage_file)
{
	char path[] = "/tmp/gq-usage-XXXXXX";
	char err[GQ_ERR_MAX];
	gq_usage_t u = { 0 }, r = { 0 };
	gq_pools_t *p = pools_ab();
	int fd = mkstemp(path);
	FILE *f;

	ck_assert_int_ge(fd, 0);
	close(fd);
	pass_with(p, 3, 1000);
	gq_usage_advance(&u, p, 100, 1000);
	gq_usage_advance(&u, p, 100, 1100);
	ck_assert_int_eq(gq_usage_file_write(&u, path, err, sizeof(err)), 0);
	ck_assert_int_eq(gq_usage_file_read(path, &r, err, sizeof(err)), 0);
	ck_assert_int_eq(r.n, 1);
	ck_assert_double_eq(r.at, 1100);
	ck_assert_double_eq_tol(gq_usage_of(&r, "", "team-a"), 144.2695, 1e-3);
	/* slurmctld down from 1100 to 1300: nobody knows what ran, so
	 * only the decay: two half-lives */
	ck_assert_int_eq(gq_usage_advance(&r, p, 100, 1300), 0);
	ck_assert_double_eq_tol(gq_usage_of(&r, "", "team-a"), 36.0674, 1e-3);
	ck_assert_int_eq(gq_usage_advance(&r, p, 100, 1400), 0);
	ck_assert_double_eq_tol(gq_usage_of(&r, "", "team-a"),
				36.0674 / 2 + 144.2695, 1e-3);

	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs("{\"version\": 1, \"written_at\": 5, \"usage\": [{\"pool\": \"\", \"project\": \"x\", \"gpu_seconds\": -1}]}", f);
	fclose(f);
	ck_assert_int_eq(gq_usage_file_read(path, &r, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "usage[0]") != NULL, "%s", err);
	ck_assert_int_eq(r.n, 0);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs("\x01\x02 not json", f);
	fclose(f);
	ck_assert_int_eq(gq_usage_file_read(path, &r, err, sizeof(err)), -1);
	unlink(path);
	ck_assert_int_eq(gq_usage_file_read(path, &r, err, sizeof(err)), -2);
	gq_usage_free(&u);
	gq_usage_free(&r);
	gq_pools_free(p);
}
END_TEST

Suite *usage_suite(void)
{
	Suite *s = suite_create("usage");
	TCase *tc = tcase_create("usage");

	tcase_add_test(tc, usage_decays_with_its_half_life);
	tcase_add_test(tc, usage_resumes_when_the_clock_steps_back);
	tcase_add_test(tc, usage_tilts_the_surplus);
	tcase_add_test(tc, usage_orders_inside_the_band);
	tcase_add_test(tc, usage_file);
	suite_add_tcase(s, tc);
	return s;
}
