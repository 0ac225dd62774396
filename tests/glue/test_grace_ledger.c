/*
 * test_grace_ledger.c - a warned victim's ledger record settled when its
 * run ends (plugins/grace.c, gq_grace_requeue; docs/MODEL.md "Ledger"):
 * with the end of its run as it is then, whoever requeued it (a
 * checkpoint note lowers nothing); a victim that ended otherwise keeps
 * its warned record.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shared/slurm_compat.h"

#include "shared/job_facts.h"
#include "state/ledger.h"
#include "state/state.h"
#include "plugins/grace.h"
#include "plugins/reclaim_note.h"
#include "plugins/xalloc.h"
#include "glue.h"
#include "helpers.h"

/* team-a's job `id`, started at `start`, running, warned at `at` for
 * team-b's job 12 as Slurm's record holds it (60 s of grace) */
static job_record_t *_warned_record(uint32_t id, int64_t start, int64_t at)
{
	job_record_t *j = glue_pending(id, "team-a", "gpu", 1);

	j->job_state = JOB_RUNNING;
	j->start_time = start;
	j->preempt_time = at;
	j->end_time = at + 60;
	j->system_comment = xstrdup_printf(GQ_RECLAIMED_WARNED, 12, "team-b",
					   "in-quota");
	return j;
}

/* ... with `gpus` GPUs, kept in the state as preempt/gpuquota keeps it */
static job_record_t *_warned(uint32_t id, uint32_t gpus, int64_t start,
			     int64_t at)
{
	job_record_t *j = _warned_record(id, start, at);
	gq_warned_t w = { .rec = { .at = at, .end = at,
				   .stage = GQ_LEDGER_WARNED, .preemptor = 12,
				   .victim = id, .gpus = gpus,
				   .lost = gq_ledger_lost(gpus, at, start) },
			  .start = start };

	gq_ledger_name(w.rec.preemptor_project, "team-b");
	gq_ledger_name(w.rec.victim_project, "team-a");
	gq_state_lock();
	ck_assert(gq_state_warned_note(&w));
	gq_state_unlock();
	return j;
}

/* a record of _warned's, freed */
static void _free_job(job_record_t *j)
{
	xfree(j->account);
	xfree(j->partition);
	xfree(j->details);
	xfree(j->comment);
	xfree(j->admin_comment);
	xfree(j->system_comment);
	xfree(j);
}

static const gq_ledger_rec_t *_after(const gq_ledger_rec_t *r, int n,
				     uint32_t victim)
{
	for (int i = 0; i < n; i++)
		if (r[i].victim == victim && r[i].stage == GQ_LEDGER_AFTER_GRACE)
			return &r[i];
	return NULL;
}

/*
 * Decision 30 s ago; each victim started 600 s before it.  7 (2 GPUs)
 * noted a checkpoint 15 s ago on SIGTERM and exited 14 s ago: gpuquota
 * requeues it, its run of 616 s lost, 2 x 616 = 1232 GPU-seconds (the
 * note, its owner's, lowers nothing).  8 (1 GPU) was requeued by Slurm,
 * completed 5 s ago (its new submit time): 1 x 625.  9 was
 * cancelled: forgotten, its warned record (1 x 600) stands.  10 still
 * runs in its grace time: kept.  Six records: four warned, two settled.
 */
START_TEST(warned_victims_settled_when_their_runs_end)
{
	int64_t now = time(NULL), at = now - 30, start = at - 600;
	job_record_t *j7, *j8, *j9;
	gq_ledger_rec_t *r;
	const gq_ledger_rec_t *a;
	char note[256];
	int n;

	glue_jobs_reset();
	gq_state_lock();
	gq_state_clear();
	gq_state_unlock();
	j7 = _warned(7, 2, start, at);
	j8 = _warned(8, 1, start, at);
	j9 = _warned(9, 1, start, at);
	_warned(10, 1, start, at);
	snprintf(note, sizeof(note), "gpuquota-checkpoint=7@%lld",
		 (long long)(now - 15));
	j7->comment = xstrdup(note);
	j7->job_state = JOB_COMPLETE;
	j7->end_time = now - 14;
	j8->job_state = JOB_PENDING;
	j8->restart_cnt = 1;
	j8->end_time = 0;
	j8->details->submit_time = now - 5;
	j9->job_state = JOB_CANCELLED;
	/* with slurmdbd: a note in the admin comment, the site's text kept */
	j7->admin_comment = xstrdup("site: keep");
	xfree(slurm_conf.accounting_storage_type);
	slurm_conf.accounting_storage_type =
		xstrdup("accounting_storage/slurmdbd");
	gq_grace_note(j7, now);
	gq_grace_requeue();
	xfree(slurm_conf.accounting_storage_type);
	snprintf(note, sizeof(note),
		 "site: keep gpuquota-reclaim=for:12,of:team-b,reason:quota,stage:requeued_after_grace,gpu_seconds_lost:1232,run_start:%lld",
		 (long long)start);
	ck_assert_str_eq(j7->admin_comment, note);

	gq_state_lock();
	n = gq_state_ledger_take(&r);
	ck_assert_int_eq(n, 6);
	ck_assert_ptr_nonnull(a = _after(r, n, 7));
	ck_assert_uint_eq(a->lost, 1232);
	ck_assert_int_eq(a->end, now - 14);
	ck_assert_int_eq(a->at, at);
	ck_assert_ptr_nonnull(a = _after(r, n, 8));
	ck_assert_uint_eq(a->lost, 625);
	ck_assert_int_eq(a->end, now - 5);
	ck_assert_ptr_null(_after(r, n, 9));
	ck_assert_ptr_null(_after(r, n, 10));
	ck_assert_int_eq(gq_state_nwarned(), 1);
	ck_assert_uint_eq(gq_state_warned(0)->rec.victim, 10);
	ck_assert_uint_eq(gq_state_metrics()->lost_gpu_seconds_total[0], 1857);
	gq_state_clear();
	gq_state_unlock();
	free(r);
	ck_assert_str_eq(j7->system_comment,
			 "gpuquota: reclaimed for job 12 of team-b (in-quota), 1232 GPU-seconds lost");
	ck_assert_str_eq(j8->system_comment,
			 "gpuquota: reclaimed for job 12 of team-b (in-quota), 625 GPU-seconds lost");
}
END_TEST

/*
 * A moved job's comment (docs/MODEL.md "Moves"): for whom, that it was
 * moved, where it restarts and why; warned first, the same with the
 * warning.  Read back after a restart as a reclaim for job 12.
 */
START_TEST(moved_job_comment_says_where)
{
	job_record_t *j = glue_pending(7, "team-c", "gpu", 1);
	gq_ledger_rec_t r = { .stage = GQ_LEDGER_REQUEUED, .preemptor = 12,
			      .reason = GQ_RECLAIM_MOVE, .victim = 7,
			      .gpus = 1, .lost = 35 };

	gq_ledger_name(r.preemptor_project, "team-a");
	gq_reclaim_note_write(j, &r, 100, "n2");
	ck_assert_str_eq(j->system_comment,
			 "gpuquota: reclaimed for job 12 of team-a (moved: that job needs this node whole; this one restarts on n2, where GPUs are idle or borrowed), 35 GPU-seconds lost");
	ck_assert_uint_eq(gq_facts_reclaimed_for(j->system_comment), 12);
	r.stage = GQ_LEDGER_WARNED;
	gq_reclaim_note_write(j, &r, 100, NULL);
	ck_assert_str_eq(j->system_comment,
			 "gpuquota: reclaimed for job 12 of team-a (moved: that job needs this node whole; this one restarts on another node, where GPUs are idle or borrowed), warned: requeued when it exits or its grace time ends");
	r.reason = GQ_RECLAIM_QUOTA;
	r.stage = GQ_LEDGER_REQUEUED;
	gq_reclaim_note_write(j, &r, 100, NULL);
	ck_assert_str_eq(j->system_comment,
			 "gpuquota: reclaimed for job 12 of team-a (in-quota), 35 GPU-seconds lost");
	glue_jobs_reset();
}
END_TEST

/*
 * A moved job warned first (60 s of grace, decided 30 s ago, started 600
 * s before) exits in its grace time 14 s ago: its comment, written again
 * when its run ends, still says where it restarts (its landing, n1).
 * 1 x 616 GPU-seconds lost.
 */
START_TEST(moved_job_settled_says_where)
{
	int64_t now = time(NULL), at = now - 30, start = at - 600;
	node_record_t n0 = { .name = "n0" }, n1 = { .name = "n1" };
	node_record_t *table[] = { &n0, &n1 };
	job_record_t *j;
	gq_warned_t w = { .rec = { .at = at, .end = at,
				   .stage = GQ_LEDGER_WARNED, .preemptor = 12,
				   .reason = GQ_RECLAIM_MOVE, .victim = 7,
				   .gpus = 1,
				   .lost = gq_ledger_lost(1, at, start) },
			  .start = start };

	node_record_table_ptr = table;
	node_record_count = 2;
	glue_jobs_reset();
	gq_ledger_name(w.rec.preemptor_project, "team-b");
	gq_ledger_name(w.rec.victim_project, "team-a");
	gq_state_lock();
	gq_state_clear();
	ck_assert(gq_state_warned_note(&w));
	gq_state_note_landing(7, 1, at, 60, 11);
	gq_state_unlock();
	j = _warned_record(7, start, at);
	j->job_state = JOB_COMPLETE;
	j->end_time = now - 14;
	gq_grace_note(j, now);
	gq_grace_requeue();
	ck_assert_str_eq(j->system_comment,
			 "gpuquota: reclaimed for job 12 of team-b (moved: that job needs this node whole; this one restarts on n1, where GPUs are idle or borrowed), 616 GPU-seconds lost");
	gq_state_lock();
	gq_state_clear();
	gq_state_unlock();
	node_record_table_ptr = NULL;
	node_record_count = 0;
	glue_jobs_reset();
}
END_TEST

/*
 * Each allocation of a settle fails in turn (the due list when it grows,
 * then the system comment and the admin note before the requeue and after
 * it: four or five), until none is left to fail: slurmctld goes on.
 * Without the due list the victim is not requeued and stays kept (the
 * next pass notes it again); otherwise its after-grace record is noted
 * (2 x 616 = 1232 GPU-seconds), a comment short at most.
 */
START_TEST(failed_allocation_in_a_settle)
{
	int64_t now = time(NULL), at = now - 30, start = at - 600;
	char note[64];
	int fail, n;

	xfree(slurm_conf.accounting_storage_type);
	slurm_conf.accounting_storage_type =
		xstrdup("accounting_storage/slurmdbd");
	for (fail = 0;; fail++) {
		job_record_t *j;
		gq_ledger_rec_t *r;

		glue_jobs_reset();
		gq_state_lock();
		gq_state_clear();
		gq_state_unlock();
		j = _warned(7, 2, start, at);
		snprintf(note, sizeof(note), "gpuquota-checkpoint=7@%lld",
			 (long long)(now - 15));
		j->comment = xstrdup(note);
		j->job_state = JOB_COMPLETE;
		j->end_time = now - 14;
		gq_xalloc_fail_at = fail;
		gq_grace_note(j, now);
		gq_grace_requeue();
		gq_state_lock();
		n = gq_state_ledger_take(&r);
		if (n == 1) {	/* the due list did not grow */
			ck_assert_int_eq(fail, 0);
			ck_assert_int_eq(gq_state_nwarned(), 1);
		} else {
			ck_assert_int_eq(n, 2);
			ck_assert_int_eq(gq_state_nwarned(), 0);
			ck_assert_uint_eq(r[1].lost, 1232);
		}
		gq_state_clear();
		gq_state_unlock();
		free(r);
		glue_jobs_reset();
		_free_job(j);
		if (gq_xalloc_fail_at != -1)	/* none was left to fail */
			break;
	}
	gq_xalloc_fail_at = -1;
	ck_assert_int_ge(fail, 4);
	xfree(slurm_conf.accounting_storage_type);
}
END_TEST

/*
 * slurmctld restarted while team-a's job 7 (2 GPUs, started 630 s ago) was
 * warned for team-b's 12 (Slurm saved its preempt_time, 30 s ago, and
 * gpuquota's system comment): the first pass notes it, the requeue after
 * the pass keeps it again from the view (nothing noted: its warned record
 * is in the ledger).  It noted a checkpoint 15 s ago and exited 14 s ago:
 * its after-grace record dates the decision by preempt_time, its run of
 * 616 s lost, 2 x 616 = 1232 GPU-seconds.
 */
START_TEST(warned_before_a_restart_settled_after_it)
{
	char *f = write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 0},"
			     " {\"name\": \"team-b\", \"gpu_quota\": 4}]}");
	int64_t now = time(NULL), at = now - 30, start = at - 600;
	char err[GQ_ERR_MAX], note[64];
	gq_ledger_rec_t *r;
	job_record_t *j;
	gq_view_t *v;
	int n;

	glue_jobs_reset();
	gq_state_lock();
	gq_state_clear();
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	v = gq_state_next()->view[0];
	gq_view_begin(v, 4, now);
	run(v, 7, "team-a", 2, start);
	ck_assert_int_eq(gq_view_compute(v), 0);
	gq_state_publish();
	gq_state_unlock();
	j = _warned_record(7, start, at);
	gq_grace_rebuild_note(j);
	gq_grace_requeue();	/* kept again, still running */
	gq_state_lock();
	ck_assert_int_eq(gq_state_nwarned(), 1);
	ck_assert_int_eq(gq_state_warned(0)->rec.at, at);
	ck_assert_str_eq(gq_state_warned(0)->rec.victim_project, "team-a");
	ck_assert_str_eq(gq_state_warned(0)->rec.preemptor_project, "team-b");
	ck_assert_int_eq(gq_state_ledger_take(&r), 0);
	gq_state_unlock();
	snprintf(note, sizeof(note), "gpuquota-checkpoint=7@%lld",
		 (long long)(now - 15));
	j->comment = xstrdup(note);
	j->job_state = JOB_COMPLETE;
	j->end_time = now - 14;
	gq_grace_note(j, now);
	gq_grace_requeue();
	gq_state_lock();
	n = gq_state_ledger_take(&r);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(r[0].stage, GQ_LEDGER_AFTER_GRACE);
	ck_assert_int_eq(r[0].at, at);
	ck_assert_uint_eq(r[0].lost, 1232);
	ck_assert_uint_eq(r[0].gpus, 2);
	ck_assert_int_eq(gq_state_nwarned(), 0);
	gq_state_clear();
	gq_state_unlock();
	free(r);
	unlink(f);
	free(f);
}
END_TEST

Suite *glue_grace_ledger_suite(void)
{
	Suite *s = suite_create("glue_grace_ledger");
	TCase *tc = tcase_create("warned victims settled at the end of their runs");

	tcase_add_test(tc, warned_victims_settled_when_their_runs_end);
	tcase_add_test(tc, failed_allocation_in_a_settle);
	tcase_add_test(tc, moved_job_comment_says_where);
	tcase_add_test(tc, moved_job_settled_says_where);
	tcase_add_test(tc, warned_before_a_restart_settled_after_it);
	suite_add_tcase(s, tc);
	return s;
}
