/*
 * test_cli_text.c - a command line's text (tools/cli_text.h): comma
 * lists, table rows padded and parsable, sacct's time forms, the edit
 * distance of the command names' "did you mean".
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_opts.h"
#include "tools/cli_text.h"
#include "tools/edit_distance.h"

/* squeue -A a,b: each item, empty ones skipped, case as asked. */
START_TEST(list_items)
{
	char buf[8];
	size_t pos = 0;

	ck_assert(gq_list_has("team-a,team-b", "team-b", false));
	ck_assert(gq_list_has("team-a,team-b", "team-a", false));
	ck_assert(!gq_list_has("team-a,team-b", "team", false));
	ck_assert(!gq_list_has("team-ab", "team-a", false));
	ck_assert(gq_list_has(",,A,", "a", true));
	ck_assert(!gq_list_has(",,A,", "a", false));
	ck_assert(!gq_list_has("", "a", true));
	ck_assert(gq_list_has(NULL, "a", true));
	/* items in order; a long one cut to the buffer (7 + '\0') */
	ck_assert(gq_list_next("h100,,a100-long-name,", &pos, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "h100");
	ck_assert(gq_list_next("h100,,a100-long-name,", &pos, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "a100-lo");
	ck_assert(!gq_list_next("h100,,a100-long-name,", &pos, buf, sizeof(buf)));
}
END_TEST

static char *_row(bool parsable, const gq_col_t *cols,
		  const char *const *cells, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	gq_table_row(f, parsable, cols, cells, n);
	fclose(f);
	return buf;
}

/*
 * Columns 6 left cut to 4, 5 right, 8 left (the last: not padded).
 * Padded: "abcd  " (6) + " " + "   12" + " " + "x" = "abcd      12 x".
 * Parsable (sacctmgr -P): "abcdef|12|x", nothing cut, no '|' at the end.
 */
START_TEST(table_rows)
{
	const gq_col_t cols[] = { { 6, false, 4 }, { 5, true, 0 },
				  { 8, false, 0 } };
	const char *cells[] = { "abcdef", "12", "x" };
	const char *empty[] = { NULL, "", "y" };
	char *s;

	s = _row(false, cols, cells, 3);
	ck_assert_str_eq(s, "abcd      12 x\n");
	free(s);
	s = _row(true, cols, cells, 3);
	ck_assert_str_eq(s, "abcdef|12|x\n");
	free(s);
	s = _row(true, cols, empty, 3);
	ck_assert_str_eq(s, "||y\n");
	free(s);
	/* a right-aligned last column keeps its width */
	s = _row(false, cols + 1, cells + 1, 1);
	ck_assert_str_eq(s, "   12\n");
	free(s);
}
END_TEST

/*
 * now = 1 000 000.  -2h: 1 000 000 - 7 200 = 992 800; now-30m:
 * 1 000 000 - 1 800 = 998 200; -7d: 1 000 000 - 604 800 = 395 200;
 * now+1week: 1 604 800; now-90 (seconds): 999 910.
 * 2026-12-01 is 20 788 days after 1970-01-01: 1 796 083 200;
 * T10:30 adds 37 800, :15 adds 15 more.
 */
START_TEST(time_forms)
{
	int64_t t = 0;

	ck_assert_int_eq(gq_time_arg("-2h", 1000000, &t), 0);
	ck_assert_int_eq(t, 992800);
	ck_assert_int_eq(gq_time_arg("now-30m", 1000000, &t), 0);
	ck_assert_int_eq(t, 998200);
	ck_assert_int_eq(gq_time_arg("-7d", 1000000, &t), 0);
	ck_assert_int_eq(t, 395200);
	ck_assert_int_eq(gq_time_arg("now+1week", 1000000, &t), 0);
	ck_assert_int_eq(t, 1604800);
	ck_assert_int_eq(gq_time_arg("now-90", 1000000, &t), 0);
	ck_assert_int_eq(t, 999910);
	ck_assert_int_eq(gq_time_arg("now-2hours", 1000000, &t), 0);
	ck_assert_int_eq(t, 992800);
	ck_assert_int_eq(gq_time_arg("now", 1000000, &t), 0);
	ck_assert_int_eq(t, 1000000);
	ck_assert_int_eq(gq_time_arg("2026-12-01", 0, &t), 0);
	ck_assert_int_eq(t, 1796083200);
	ck_assert_int_eq(gq_time_arg("2026-12-01T10:30", 0, &t), 0);
	ck_assert_int_eq(t, 1796083200 + 37800);
	ck_assert_int_eq(gq_time_arg("2026-12-01T10:30:15", 0, &t), 0);
	ck_assert_int_eq(t, 1796083200 + 37815);
}
END_TEST

/* What is none of the forms: refused, never guessed. */
START_TEST(time_refused)
{
	const char *bad[] = { "", "yesterday", "2h", "-h", "now-", "now-2x",
			      "now2h", "-2hh", "2026-02-30", "2026-12-1",
			      "2026-12-01x", "2026-12-01T25:00",
			      "2026-12-01T10", "-99999999999999d" };
	int64_t t = 42;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(gq_time_arg(bad[i], 1000000, &t) == -1,
			      "'%s' accepted", bad[i]);
	ck_assert_int_eq(gq_time_arg(NULL, 0, &t), -1);
	ck_assert_int_eq(t, 42);
}
END_TEST

/* The command names' did-you-mean (tools/edit_distance.h): projets ->
 * projects one insertion; jbos -> jobs two substitutions; capped. */
START_TEST(command_name_distance)
{
	ck_assert_int_eq(gq_edit_distance("projets", "projects", 2), 1);
	ck_assert_int_eq(gq_edit_distance("jbos", "jobs", 2), 2);
	ck_assert_int_eq(gq_edit_distance("jobs", "jobs", 2), 0);
	ck_assert_int_eq(gq_edit_distance("xyzzy", "jobs", 2), 3);
	ck_assert_int_eq(gq_edit_distance("", "ab", 2), 2);
}
END_TEST

/* A command line of up to 8 words, argv[0] the command. */
static int _parse(unsigned takes, gq_cli_opts_t *o, const char *const *w)
{
	char *argv[9] = { NULL };
	int argc = 0;

	while (w[argc] && argc < 8) {
		argv[argc] = (char *)w[argc];
		argc++;
	}
	memset(o, 0, sizeof(*o));
	return gq_cli_options(argc, argv, takes, o);
}

/*
 * jobs -A a,b -j 7,9_2 --parsable --noheader: each kept as given (the
 * lists split where they are used); an option jobs does not take
 * (--dry-run), an operand, or --cache-seconds 0 is refused with exit 2.
 */
START_TEST(command_options)
{
	const unsigned jobs = GQ_O_JSON | GQ_O_TABLE | GQ_O_POOL |
			      GQ_O_ACCOUNT | GQ_O_JOBS;
	const char *ok[] = { "jobs", "-A", "a,b", "-j", "7,9_2", "--parsable",
			     "--noheader", NULL };
	const char *dry[] = { "jobs", "--dry-run", NULL };
	const char *extra[] = { "jobs", "FILE", NULL };
	const char *file[] = { "check", "--json", "FILE", NULL };
	const char *cache[] = { "metrics", "--listen", ":0",
				"--cache-seconds", "0", NULL };
	gq_cli_opts_t o;

	ck_assert_int_eq(_parse(jobs, &o, ok), 0);
	ck_assert_str_eq(o.accounts, "a,b");
	ck_assert_str_eq(o.jobs, "7,9_2");
	ck_assert(o.parsable && o.noheader && !o.json);
	ck_assert_ptr_null(o.arg);
	ck_assert_int_eq(_parse(jobs, &o, dry), 2);
	ck_assert_int_eq(_parse(jobs, &o, extra), 2);
	ck_assert_int_eq(_parse(GQ_O_JSON | GQ_O_ARG, &o, file), 0);
	ck_assert(o.json);
	ck_assert_str_eq(o.arg, "FILE");
	ck_assert_int_eq(_parse(GQ_O_LISTEN, &o, cache), 2);
}
END_TEST

Suite *cli_text_suite(void)
{
	Suite *s = suite_create("cli_text");
	TCase *tc = tcase_create("cli_text");

	tcase_add_test(tc, list_items);
	tcase_add_test(tc, table_rows);
	tcase_add_test(tc, time_forms);
	tcase_add_test(tc, time_refused);
	tcase_add_test(tc, command_name_distance);
	tcase_add_test(tc, command_options);
	suite_add_tcase(s, tc);
	return s;
}
