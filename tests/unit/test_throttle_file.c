/*
 * test_throttle_file.c - the lines of the array throttle file and which
 * job an entry belongs to: a new array given a lost array's id never gets
 * the lost one's %N; files of an older gpuquota still load.
 */
#include <check.h>
#include <string.h>

#include "state/throttle_file.h"

START_TEST(line_round_trip)
{
	gq_throttle_entry_t e = { 4294967295u, 1795000000, 8, 2 }, back;
	char buf[96];
	int n = gq_throttle_line_format(&e, buf, sizeof(buf));

	ck_assert_str_eq(buf, "4294967295 1795000000 8 2\n");
	ck_assert_int_eq(n, (int)strlen(buf));
	ck_assert_int_eq(gq_throttle_line_parse(buf, &back), GQ_TLINE_ENTRY);
	ck_assert_uint_eq(back.job_id, 4294967295u);
	ck_assert_int_eq(back.submit, 1795000000);
	ck_assert_uint_eq(back.user, 8);
	ck_assert_uint_eq(back.ours, 2);
	/* the user's %N may be 0 (none) */
	ck_assert_int_eq(gq_throttle_line_parse("7 1795000000 0 1", &back),
			 GQ_TLINE_ENTRY);
	ck_assert_uint_eq(back.user, 0);
	/* the header is a comment */
	ck_assert_int_eq(gq_throttle_line_parse(gq_throttle_file_header, &back),
			 GQ_TLINE_SKIP);
	ck_assert_int_eq(gq_throttle_line_parse("\n", &back), GQ_TLINE_SKIP);
}
END_TEST

/* An older gpuquota's line (job_id user ours) loads, submit time unknown */
START_TEST(line_old_format)
{
	gq_throttle_entry_t e;

	ck_assert_int_eq(gq_throttle_line_parse("12 4 1\n", &e), GQ_TLINE_OLD);
	ck_assert_uint_eq(e.job_id, 12);
	ck_assert_int_eq(e.submit, 0);
	ck_assert_uint_eq(e.user, 4);
	ck_assert_uint_eq(e.ours, 1);
}
END_TEST

START_TEST(line_bad)
{
	static const char *const bad[] = {
		"12", "12 4", "1 2 3 4 5", "12 x 1", "-12 1795000000 4 1",
		"12 1795000000 4 1x", "0 1795000000 4 1", "12 0 4 1",
		"12 1795000000 4 0", "0 4 1", "12 4 0",
		"4294967296 1795000000 4 1", "12 1795000000 4294967296 1",
		"12 99999999999999999999 4 1", "12 9223372036854775808 4 1",
		"12 1795000000 +4 1", "12,1795000000,4,1", "x",
	};
	gq_throttle_entry_t e;
	unsigned i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(gq_throttle_line_parse(bad[i], &e) == GQ_TLINE_BAD,
			      "accepted: \"%s\"", bad[i]);
}
END_TEST

/*
 * Array 100 throttled (submitted at 1000, file written at 1050), lost by
 * Slurm in a crash; after the restart a new array gets id 100 at 1080.
 */
START_TEST(reused_id_is_another_job)
{
	gq_throttle_entry_t lost = { 100, 1000, 8, 2 };
	gq_throttle_entry_t old = { 100, 0, 8, 2 };

	ck_assert(gq_throttle_entry_matches(&lost, 100, 1000, 1050));
	ck_assert(!gq_throttle_entry_matches(&lost, 100, 1080, 1050));
	ck_assert(!gq_throttle_entry_matches(&lost, 101, 1000, 1050));
	/* an old line: the array submitted before the file was written is
	 * its job, the one after is not */
	ck_assert(gq_throttle_entry_matches(&old, 100, 1000, 1050));
	ck_assert(gq_throttle_entry_matches(&old, 100, 1050, 1050));
	ck_assert(!gq_throttle_entry_matches(&old, 100, 1080, 1050));
	ck_assert(!gq_throttle_entry_matches(&old, 101, 1000, 1050));
	/* no submit time known for the job: no old line is its */
	ck_assert(!gq_throttle_entry_matches(&old, 100, 0, 1050));
	/* no file time (unreadable): no old line matches */
	ck_assert(!gq_throttle_entry_matches(&old, 100, 1000, 0));
}
END_TEST

Suite *throttle_file_suite(void)
{
	Suite *s = suite_create("throttle_file");
	TCase *tc = tcase_create("lines");

	tcase_add_test(tc, line_round_trip);
	tcase_add_test(tc, line_old_format);
	tcase_add_test(tc, line_bad);
	tcase_add_test(tc, reused_id_is_another_job);
	suite_add_tcase(s, tc);
	return s;
}
