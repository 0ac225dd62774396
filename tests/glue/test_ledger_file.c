/*
 * test_ledger_file.c - the reclaim ledger's writer in priority/gpuquota
 * (state_files.c, gq_files_write_ledger): the records preempt/gpuquota
 * queued in the state are appended to <StateSaveLocation>/gpuquota-ledger
 * and the queue emptied; a write that fails drops them, counted, and
 * slurmctld goes on (docs/MODEL.md "Ledger").
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "shared/slurm_compat.h"

#include "state/ledger.h"
#include "state/state.h"
#include "plugins/state_files.h"
#include "glue.h"

static gq_ledger_rec_t _rec(uint32_t victim, uint64_t lost)
{
	gq_ledger_rec_t r = { .at = 1796083200, .preemptor = 12,
			      .victim = victim, .gpus = 1, .lost = lost };

	gq_ledger_name(r.preemptor_project, "team-b");
	gq_ledger_name(r.victim_project, "team-a");
	return r;
}

static void _note(uint32_t victim, uint64_t lost)
{
	gq_ledger_rec_t r = _rec(victim, lost);

	gq_state_lock();
	ck_assert(gq_state_ledger_note(&r));
	gq_state_unlock();
}

/* Two reclaims queued, one write after the pass: both in the file, in
 * order; nothing left queued, so the next write adds nothing. */
START_TEST(queued_records_written_after_the_pass)
{
	char tmpl[] = "/tmp/gq-glue-ledger-XXXXXX", err[256];
	char *dir = mkdtemp(tmpl), *path;
	gq_ledger_rec_t *out = NULL, *q;
	int n = 0, skipped = 0;

	ck_assert_ptr_nonnull(dir);
	path = gq_ledger_path(dir);
	gq_files_init(dir);
	_note(7, 35);
	_note(8, 70);
	gq_files_write_ledger();
	gq_files_write_ledger();
	ck_assert_int_eq(gq_ledger_read(path, &out, &n, &skipped, err,
					sizeof(err)), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_uint_eq(out[0].victim, 7);
	ck_assert_uint_eq(out[1].lost, 70);
	gq_state_lock();
	ck_assert_int_eq(gq_state_ledger_take(&q), 0);
	ck_assert_uint_eq(gq_state_metrics()->ledger_records_total, 2);
	ck_assert_uint_eq(gq_state_metrics()->ledger_dropped_total, 0);
	gq_state_unlock();
	gq_files_fini();
	free(out);
	free(path);
}
END_TEST

/* StateSaveLocation gone: the record is dropped, counted, logged. */
START_TEST(failed_write_drops_and_counts)
{
	gq_ledger_rec_t *q;

	gq_files_init("/nonexistent/gpuquota-glue");
	_note(9, 10);
	gq_files_write_ledger();
	gq_state_lock();
	ck_assert_int_eq(gq_state_ledger_take(&q), 0);
	ck_assert_uint_eq(gq_state_metrics()->ledger_records_total, 1);
	ck_assert_uint_eq(gq_state_metrics()->ledger_dropped_total, 1);
	gq_state_unlock();
	gq_files_fini();
}
END_TEST

Suite *glue_ledger_suite(void)
{
	Suite *s = suite_create("glue_ledger");
	TCase *tc = tcase_create("ledger written by the pass thread");

	tcase_add_test(tc, queued_records_written_after_the_pass);
	tcase_add_test(tc, failed_write_drops_and_counts);
	suite_add_tcase(s, tc);
	return s;
}
