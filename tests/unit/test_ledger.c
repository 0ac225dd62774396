/*
 * test_ledger.c - the reclaim ledger (docs/MODEL.md "Ledger"): the work a
 * requeue loses (the run's, from Slurm's facts), the record's line, the
 * file appended, rotated and read back (a torn line skipped, also once
 * ended, bad lines ignored), the queue's bound, and the sums `gpuquota
 * ledger` prints per period and project.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "state/ledger.h"
#include "state/losses.h"
#include "state/metrics.h"
#include "state/state.h"

/* 2026-12-01 00:00:00 UTC, a Tuesday; its week began 2026-11-30 */
#define TUE 1796083200
#define MON 1795996800

static gq_ledger_rec_t _rec(int64_t at, uint32_t er, const char *pr,
			    uint32_t ee, const char *pe, uint32_t gpus,
			    uint64_t lost)
{
	gq_ledger_rec_t r = { .at = at, .end = at, .preemptor = er,
			      .victim = ee, .gpus = gpus, .lost = lost };

	gq_ledger_name(r.preemptor_project, pr);
	gq_ledger_name(r.victim_project, pe);
	return r;
}

/* a fresh directory's ledger path */
static char *_tmp_ledger(void)
{
	char tmpl[] = "/tmp/gq-ledger-XXXXXX";
	char *dir = mkdtemp(tmpl);

	ck_assert_ptr_nonnull(dir);
	return gq_ledger_path(dir);
}

static void _write_raw(const char *path, const char *text, int flags)
{
	int fd = open(path, O_WRONLY | O_CREAT | flags, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
}

/*
 * The run's GPU-seconds: 2 GPUs started at 1000, now 1600: 2 x 600 =
 * 1200.  A start after now, or no start: 0.  8 GPUs for a day: 691 200.
 */
START_TEST(lost_work)
{
	ck_assert_uint_eq(gq_ledger_lost(2, 1600, 1000), 1200);
	ck_assert_uint_eq(gq_ledger_lost(2, 1600, 1700), 0);
	ck_assert_uint_eq(gq_ledger_lost(2, 1600, 0), 0);
	ck_assert_uint_eq(gq_ledger_lost(8, 1000 + 86400, 1000), 691200);
}
END_TEST

/*
 * A reclaim's record: team-b (quota 2) in quota takes team-a's job 1
 * (2 GPUs from 1000, beyond team-a's quota of 0) at 1600: reason quota,
 * both projects named, 2 GPUs, 2 x 600 = 1200 GPU-seconds lost.
 */
START_TEST(record_of_reclaim)
{
	gq_view_t *v = view2("team-a", 0, "team-b", 2, 0);
	const gq_job_t *ee, *er;
	gq_ledger_rec_t r;

	gq_view_begin(v, 2, 1600);
	run(v, 1, "team-a", 2, 1000);
	pend(v, 2, "team-b", 2, 1500);
	ck_assert_int_eq(gq_view_compute(v), 0);
	ee = gq_view_job(v, 1);
	er = gq_view_job(v, 2);
	ck_assert_int_eq(er->band, GQ_BAND_IN_QUOTA);
	gq_ledger_record(&r, "p1", v, er, ee, 1600);
	ck_assert_int_eq(r.at, 1600);
	ck_assert_int_eq(r.reason, GQ_RECLAIM_QUOTA);
	ck_assert_uint_eq(r.preemptor, 2);
	ck_assert_uint_eq(r.victim, 1);
	ck_assert_uint_eq(r.gpus, 2);
	ck_assert_uint_eq(r.lost, 1200);
	ck_assert_str_eq(r.pool, "p1");
	ck_assert_str_eq(r.preemptor_project, "team-b");
	ck_assert_str_eq(r.victim_project, "team-a");
	gq_ledger_record(&r, NULL, v, er, ee, 1600);
	ck_assert_str_eq(r.pool, "");
	gq_view_free(v);
}
END_TEST

START_TEST(line_round_trip)
{
	gq_ledger_rec_t r = _rec(TUE + 60, 12, "team-b", 7, "team-a", 1, 35),
			back;
	char buf[GQ_LEDGER_LINE];

	r.reason = GQ_RECLAIM_FAIR_SHARE;
	ck_assert_int_gt(gq_ledger_format(&r, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "gq2 1796083260 * 12 team-b fair_share 7 team-a 1 35 requeued 1796083260\n");
	ck_assert(gq_ledger_parse(buf, &back));
	ck_assert(!memcmp(&r, &back, sizeof(r)));
	/* a warned victim's record, then its requeue's 40 s later */
	r.stage = GQ_LEDGER_WARNED;
	ck_assert_int_gt(gq_ledger_format(&r, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "gq2 1796083260 * 12 team-b fair_share 7 team-a 1 35 warned 1796083260\n");
	r.stage = GQ_LEDGER_AFTER_GRACE;
	r.end = TUE + 100;
	ck_assert_int_gt(gq_ledger_format(&r, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "gq2 1796083260 * 12 team-b fair_share 7 team-a 1 35 requeued_after_grace 1796083300\n");
	ck_assert(gq_ledger_parse(buf, &back));
	ck_assert(!memcmp(&r, &back, sizeof(r)));
	/* the first version's line: requeued, counted to its decision */
	ck_assert(gq_ledger_parse("gq1 1796083260 * 12 team-b quota 7 team-a 1 35\n",
				  &back));
	ck_assert_int_eq(back.stage, GQ_LEDGER_REQUEUED);
	ck_assert_int_eq(back.end, TUE + 60);
	ck_assert_uint_eq(back.lost, 35);
	r.stage = GQ_LEDGER_REQUEUED;
	r.end = r.at;
	gq_ledger_name(r.pool, "a100");
	r.reason = GQ_RECLAIM_QUOTA;
	ck_assert_int_gt(gq_ledger_format(&r, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "gq2 1796083260 a100 12 team-b quota 7 team-a 1 35 requeued 1796083260\n");
	ck_assert(gq_ledger_parse(buf, &back));
	ck_assert_str_eq(back.pool, "a100");
	ck_assert_int_eq(gq_ledger_format(&r, buf, 20), -1);
}
END_TEST

START_TEST(line_bad)
{
	static const char *const bad[] = {
		"gq1 1796083260 * 12 team-b quota 7 team-a 1 35",	/* torn */
		"gq1 1796083260 * 12 team-b quota 7 team-a 1\n",
		"gq2 1796083260 * 12 team-b quota 7 team-a 1 35\n",
		"gq1 1796083260 * 12 team-b greed 7 team-a 1 35\n",
		"gq1 1796083260 * 12 team-b quota 7 team-a 1 35 9\n",
		"gq1 1796083260 * 12 team/b quota 7 team-a 1 35\n",
		"gq1 0 * 12 team-b quota 7 team-a 1 35\n",
		"gq1 x * 12 team-b quota 7 team-a 1 35\n", "\n", "",
		"gq2 1796083260 * 12 team-b quota 7 team-a 1 35 paused 1796083260\n",
		/* the end before the decision */
		"gq2 1796083260 * 12 team-b quota 7 team-a 1 35 warned 1796083259\n",
		"gq2 1796083260 * 12 team-b quota 7 team-a 1 35 warned\n",
	};
	gq_ledger_rec_t r;
	unsigned i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!gq_ledger_parse(bad[i], &r), "accepted: \"%s\"",
			      bad[i]);
}
END_TEST

START_TEST(append_read_back)
{
	char *path = _tmp_ledger(), err[256];
	gq_ledger_rec_t in[3] = {
		_rec(TUE, 12, "team-b", 7, "team-a", 1, 35),
		_rec(TUE + 1, 12, "team-b", 8, "team-a", 2, 70),
		_rec(TUE + 9, 13, "team-c", 9, "team-b", 1, 0),
	}, *out = NULL;
	int n = 0, skipped = 0;
	struct stat st;

	/* nothing there yet: no records, no error */
	ck_assert_int_eq(gq_ledger_read(path, &out, &n, &skipped, err,
					sizeof(err)), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(gq_ledger_append(path, in, 2, GQ_LEDGER_BOUND, err,
					  sizeof(err)), 2);
	ck_assert_int_eq(gq_ledger_append(path, in + 2, 1, GQ_LEDGER_BOUND,
					  err, sizeof(err)), 1);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(gq_ledger_read(path, &out, &n, &skipped, err,
					sizeof(err)), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(skipped, 0);
	ck_assert(!memcmp(in, out, sizeof(in)));
	free(out);
	free(path);
}
END_TEST

/*
 * A crash tore the second line; the next append ends it first, so the
 * third record is whole: records 1 and 3 read back, one line skipped.
 * Bad lines in between are skipped too.
 */
START_TEST(torn_line_skipped)
{
	char *path = _tmp_ledger(), err[256];
	gq_ledger_rec_t r = _rec(TUE + 9, 13, "team-c", 9, "team-b", 1, 10),
			*out = NULL;
	int n = 0, skipped = 0;

	_write_raw(path,
		   "gq1 1796083200 * 12 team-b quota 7 team-a 1 35\n"
		   "garbage\n"
		   "gq1 1796083201 * 12 team-b quota 8 tea", O_TRUNC);
	ck_assert_int_eq(gq_ledger_read(path, &out, &n, &skipped, err,
					sizeof(err)), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(skipped, 2);
	ck_assert_int_eq(gq_ledger_append(path, &r, 1, GQ_LEDGER_BOUND, err,
					  sizeof(err)), 1);
	n = skipped = 0;
	ck_assert_int_eq(gq_ledger_read(path, &out, &n, &skipped, err,
					sizeof(err)), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(skipped, 2);
	ck_assert_uint_eq(out[0].victim, 7);
	ck_assert_uint_eq(out[1].victim, 9);
	ck_assert_uint_eq(out[1].lost, 10);
	free(out);
	free(path);
}
END_TEST

/*
 * A crash tore a gq1 line (of the first version, no END to check) in its
 * LOST, 3600 cut to 36.  The next append ends it, and it is still
 * skipped: victims 7 and 9 read back, no record of 8 (not 8 with 36
 * GPU-seconds).  The same for a gq2 line torn just before its newline.
 */
START_TEST(torn_gq1_line_skipped)
{
	char *path = _tmp_ledger(), err[256];
	gq_ledger_rec_t r = _rec(TUE + 9, 13, "team-c", 9, "team-b", 1, 10),
			*out = NULL;
	int n = 0, skipped = 0;

	_write_raw(path,
		   "gq1 1796083200 * 12 team-b quota 7 team-a 1 3600\n"
		   "gq1 1796083201 * 12 team-b quota 8 team-a 1 36", O_TRUNC);
	ck_assert_int_eq(gq_ledger_append(path, &r, 1, GQ_LEDGER_BOUND, err,
					  sizeof(err)), 1);
	ck_assert_int_eq(gq_ledger_read(path, &out, &n, &skipped, err,
					sizeof(err)), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(skipped, 1);
	ck_assert_uint_eq(out[0].victim, 7);
	ck_assert_uint_eq(out[0].lost, 3600);
	ck_assert_uint_eq(out[1].victim, 9);
	_write_raw(path,
		   "gq2 1796083201 * 12 team-b quota 8 team-a 1 36 requeued 1796083201",
		   O_TRUNC);
	ck_assert_int_eq(gq_ledger_append(path, &r, 1, GQ_LEDGER_BOUND, err,
					  sizeof(err)), 1);
	n = skipped = 0;
	ck_assert_int_eq(gq_ledger_read(path, &out, &n, &skipped, err,
					sizeof(err)), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(skipped, 1);
	ck_assert_uint_eq(out[0].victim, 9);
	free(out);
	free(path);
}
END_TEST

/*
 * Each line below is 67 bytes ("gq2 17960832NN * 12 team-b quota NN team-a
 * 1 0 requeued 17960832NN\n", two-digit victims); a bound of 140 holds
 * two.  Five records:
 * the file takes 1-2, rotates (.1 = 1-2) and takes 3-4, rotates (.1 =
 * 3-4) and takes 5.  Reading gives 3, 4, 5: the newest, in order, the
 * oldest two gone.  Never more than twice the bound on disk.
 */
START_TEST(rotation_keeps_newest)
{
	char *path = _tmp_ledger(), *old, err[256], line[GQ_LEDGER_LINE];
	gq_ledger_rec_t in[5], *out = NULL;
	int i, n = 0, skipped = 0;
	struct stat a, b;

	for (i = 0; i < 5; i++)
		in[i] = _rec(TUE + 10 + i, 12, "team-b", 10 + i, "team-a", 1,
			     0);
	ck_assert_int_eq(gq_ledger_format(&in[0], line, sizeof(line)), 67);
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(gq_ledger_append(path, &in[i], 1, 140, err,
						  sizeof(err)), 1);
	ck_assert_int_eq(gq_ledger_read(path, &out, &n, &skipped, err,
					sizeof(err)), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_uint_eq(out[0].victim, 12);
	ck_assert_uint_eq(out[1].victim, 13);
	ck_assert_uint_eq(out[2].victim, 14);
	old = gq_ledger_old_path(path);
	ck_assert_int_eq(stat(path, &a), 0);
	ck_assert_int_eq(stat(old, &b), 0);
	ck_assert_int_eq(a.st_size, 67);
	ck_assert_int_eq(b.st_size, 134);
	/* one append of all five: the same bound holds */
	unlink(path);
	unlink(old);
	ck_assert_int_eq(gq_ledger_append(path, in, 5, 140, err, sizeof(err)),
			 5);
	n = 0;
	ck_assert_int_eq(gq_ledger_read(path, &out, &n, &skipped, err,
					sizeof(err)), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_uint_eq(out[0].victim, 12);
	free(out);
	free(old);
	free(path);
}
END_TEST

START_TEST(queue_bounded)
{
	gq_ledger_queue_t q = { 0 };
	gq_ledger_rec_t r = _rec(TUE, 12, "team-b", 7, "team-a", 1, 35);
	int i;

	for (i = 0; i < GQ_LEDGER_QUEUE_MAX; i++)
		ck_assert(gq_ledger_queue_push(&q, &r));
	ck_assert(!gq_ledger_queue_push(&q, &r));
	ck_assert_int_eq(q.n, GQ_LEDGER_QUEUE_MAX);
	ck_assert_uint_eq(q.r[GQ_LEDGER_QUEUE_MAX - 1].lost, 35);
	free(q.r);
}
END_TEST

/*
 * The state's queue, between the plugins: two records noted (1200 and 35
 * GPU-seconds lost), taken whole in order; the queue is then empty; the
 * metrics count 2 records and 1235 GPU-seconds.
 */
START_TEST(state_queue_note_take)
{
	gq_ledger_rec_t a = _rec(TUE, 12, "team-b", 7, "team-a", 2, 1200),
			b = _rec(TUE, 12, "team-b", 8, "team-a", 1, 35), *out;

	gq_state_clear();
	gq_metrics_init(gq_state_metrics(), 0);
	gq_state_lock();
	ck_assert(gq_state_ledger_note(&a));
	ck_assert(gq_state_ledger_note(&b));
	ck_assert_int_eq(gq_state_ledger_take(&out), 2);
	ck_assert_uint_eq(out[0].victim, 7);
	ck_assert_uint_eq(out[1].victim, 8);
	free(out);
	ck_assert_int_eq(gq_state_ledger_take(&out), 0);
	ck_assert_ptr_null(out);
	gq_state_unlock();
	ck_assert_uint_eq(gq_state_metrics()->ledger_records_total, 2);
	ck_assert_uint_eq(
		gq_state_metrics()->lost_gpu_seconds_total[GQ_RECLAIM_QUOTA],
		1235);
	gq_state_clear();
}
END_TEST

/*
 * A victim warned at 1600 (2 GPUs, started at 1000): its warned record
 * says 2 x 600 = 1200 GPU-seconds, as if requeued then.  It traps SIGTERM
 * and exits at 1616: its run to that end counts, 2 x (1616 - 1000) =
 * 1232 (a checkpoint it notes changes nothing: its owner writes it).
 * Requeued when its grace time of 60 s is up: 2 x 660 = 1320.  An end
 * before the decision (a clock step) counts as the decision.
 */
START_TEST(after_grace_counts_the_end_of_the_run)
{
	gq_ledger_rec_t w = _rec(1600, 12, "team-b", 7, "team-a", 2,
				 gq_ledger_lost(2, 1600, 1000)),
			r;

	w.stage = GQ_LEDGER_WARNED;
	ck_assert_uint_eq(w.lost, 1200);
	gq_ledger_after_grace(&w, 1000, 1616, &r);
	ck_assert_int_eq(r.stage, GQ_LEDGER_AFTER_GRACE);
	ck_assert_int_eq(r.at, 1600);
	ck_assert_int_eq(r.end, 1616);
	ck_assert_uint_eq(r.lost, 1232);
	ck_assert_uint_eq(r.victim, 7);
	ck_assert_uint_eq(r.preemptor, 12);
	ck_assert_str_eq(r.victim_project, "team-a");
	gq_ledger_after_grace(&w, 1000, 1660, &r);
	ck_assert_uint_eq(r.lost, 1320);
	gq_ledger_after_grace(&w, 1000, 1500, &r);
	ck_assert_int_eq(r.end, 1600);
	ck_assert_uint_eq(r.lost, 1200);
}
END_TEST

/*
 * The file holds, in order: 7 warned for 12 (1200), 8 requeued at once
 * for 12 (35), 9 warned for 13 (600, its requeue not seen: it stands),
 * 7's after-grace record for 12 (2).  Settled: 8, 9, 7 (2): one record
 * per victim, 637 GPU-seconds in all.  A warned record followed by an
 * after-grace record of another preemptor stays.
 */
START_TEST(settle_keeps_one_record_per_victim)
{
	gq_ledger_rec_t r[5] = {
		_rec(1600, 12, "team-b", 7, "team-a", 2, 1200),
		_rec(1601, 12, "team-b", 8, "team-a", 1, 35),
		_rec(1602, 13, "team-c", 9, "team-a", 1, 600),
		_rec(1600, 12, "team-b", 7, "team-a", 2, 2),
		_rec(1700, 14, "team-c", 10, "team-a", 1, 50),
	};
	int n = 4;

	r[0].stage = r[2].stage = r[4].stage = GQ_LEDGER_WARNED;
	r[3].stage = GQ_LEDGER_AFTER_GRACE;
	r[3].end = 1616;
	ck_assert_int_eq(gq_ledger_settle(r, &n), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_uint_eq(r[0].victim, 8);
	ck_assert_uint_eq(r[1].victim, 9);
	ck_assert_int_eq(r[1].stage, GQ_LEDGER_WARNED);
	ck_assert_uint_eq(r[2].victim, 7);
	ck_assert_uint_eq(r[2].lost, 2);
	ck_assert_uint_eq(r[0].lost + r[1].lost + r[2].lost, 637);
	/* 10 warned for 14; an after-grace record of 10 for 15 settles
	 * nothing of it */
	r[0] = r[4];
	r[1] = r[4];
	r[1].preemptor = 15;
	r[1].stage = GQ_LEDGER_AFTER_GRACE;
	n = 2;
	ck_assert_int_eq(gq_ledger_settle(r, &n), 0);
	ck_assert_int_eq(n, 2);
}
END_TEST

/*
 * In slurmctld: team-a's job 7 (2 GPUs, started at 1000) warned at 1600
 * for team-b's 12; the budget's loss is the warned 1200 meanwhile, the
 * metrics count the victim and its GPUs (lent by team-a, reclaimed by
 * team-b) but no work lost yet.  Its run ends at 1616: the after-grace
 * record replaces the loss (2 x 616 = 1232), the metrics count 1232
 * GPU-seconds lost for team-a, the victim once.  The queue holds both
 * records, in order; nothing is kept warned.
 */
START_TEST(state_settles_a_warned_victim)
{
	gq_warned_t w = {
		.rec = _rec(1600, 12, "team-b", 7, "team-a", 2, 1200),
		.start = 1000,
		.restarts = 0,
	};
	const gq_metrics_project_t *a, *b;
	gq_ledger_rec_t r, *out;
	const gq_losses_t *l;

	w.rec.stage = GQ_LEDGER_WARNED;
	gq_state_clear();
	gq_metrics_init(gq_state_metrics(), 0);
	gq_state_lock();
	ck_assert(gq_state_warned_note(&w));
	ck_assert_int_eq(gq_state_nwarned(), 1);
	l = gq_state_losses(1601);
	ck_assert_int_eq(l->n, 1);
	ck_assert_uint_eq(l->e[0].lost, 1200);
	ck_assert_uint_eq(gq_state_metrics()->lost_gpu_seconds_total[0], 0);
	gq_state_warned_settle(0, 1616, &r);
	ck_assert_uint_eq(r.lost, 1232);
	ck_assert_int_eq(gq_state_nwarned(), 0);
	l = gq_state_losses(1617);
	ck_assert_int_eq(l->n, 1);
	ck_assert_uint_eq(l->e[0].lost, 1232);
	ck_assert_int_eq(gq_state_ledger_take(&out), 2);
	ck_assert_int_eq(out[0].stage, GQ_LEDGER_WARNED);
	ck_assert_int_eq(out[1].stage, GQ_LEDGER_AFTER_GRACE);
	ck_assert_int_eq(out[1].end, 1616);
	free(out);
	gq_state_unlock();
	ck_assert_uint_eq(gq_state_metrics()->lost_gpu_seconds_total[0], 1232);
	ck_assert_int_eq(gq_state_metrics()->nprojects, 2);
	a = &gq_state_metrics()->project[0];
	b = &gq_state_metrics()->project[1];
	ck_assert_str_eq(a->name, "team-a");
	ck_assert_uint_eq(a->victims[0], 1);
	ck_assert_uint_eq(a->gpus_lent[0], 2);
	ck_assert_uint_eq(a->lost[0], 1232);
	ck_assert_uint_eq(a->gpus_reclaimed[0], 0);
	ck_assert_str_eq(b->name, "team-b");
	ck_assert_uint_eq(b->gpus_reclaimed[0], 2);
	ck_assert_uint_eq(b->lost[0], 0);
	gq_state_clear();
}
END_TEST

START_TEST(periods_and_dates)
{
	ck_assert_int_eq(gq_ledger_date("2026-12-01"), TUE);
	ck_assert_int_eq(gq_ledger_date("2026-02-30"), -1);
	ck_assert_int_eq(gq_ledger_date("2026-12-1"), -1);
	ck_assert_int_eq(gq_ledger_date("2026-12-01x"), -1);
	ck_assert_int_eq(gq_ledger_period(TUE + 5000, GQ_LEDGER_DAY), TUE);
	ck_assert_int_eq(gq_ledger_period(TUE + 5000, GQ_LEDGER_WEEK), MON);
	ck_assert_int_eq(gq_ledger_period(MON, GQ_LEDGER_WEEK), MON);
	ck_assert_int_eq(gq_ledger_period(MON - 1, GQ_LEDGER_WEEK),
			 MON - 7 * 86400);
	ck_assert_int_eq(gq_ledger_period(TUE, GQ_LEDGER_ALL), 0);
}
END_TEST

/*
 * Monday: b's job 12 takes a's 7 (1 GPU, 3600 lost) and 8 (2 GPUs, 0
 * lost).  Tuesday: c's 13 takes b's 9 (1 GPU, 1800 lost).
 * By day: Monday a lent 2 reclaims, 3 GPUs, 3600; b borrowed 2, 3 GPUs,
 * cost 3600.  Tuesday b lent 1, 1 GPU, 1800; c borrowed 1, 1, 1800.
 * By week (one week): b lent 1 and borrowed 2.  --project b --since
 * Tuesday: b's Tuesday row alone.
 */
START_TEST(sums_by_period_and_project)
{
	gq_ledger_rec_t r[3] = {
		_rec(MON + 10, 12, "b", 7, "a", 1, 3600),
		_rec(MON + 10, 12, "b", 8, "a", 2, 0),
		_rec(TUE + 10, 13, "c", 9, "b", 1, 1800),
	};
	gq_ledger_filter_t f = { .by = GQ_LEDGER_DAY };
	gq_ledger_row_t *rows;
	int n;

	ck_assert_int_eq(gq_ledger_sum(r, 3, &f, &rows, &n), 0);
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(rows[0].period, MON);
	ck_assert_str_eq(rows[0].project, "a");
	ck_assert_uint_eq(rows[0].reclaims_lent, 2);
	ck_assert_uint_eq(rows[0].gpus_lent, 3);
	ck_assert_uint_eq(rows[0].lost, 3600);
	ck_assert_uint_eq(rows[0].gpus_borrowed, 0);
	ck_assert_str_eq(rows[1].project, "b");
	ck_assert_uint_eq(rows[1].reclaims_borrowed, 2);
	ck_assert_uint_eq(rows[1].gpus_borrowed, 3);
	ck_assert_uint_eq(rows[1].cost, 3600);
	ck_assert_int_eq(rows[2].period, TUE);
	ck_assert_str_eq(rows[2].project, "b");
	ck_assert_uint_eq(rows[2].gpus_lent, 1);
	ck_assert_uint_eq(rows[2].lost, 1800);
	ck_assert_str_eq(rows[3].project, "c");
	ck_assert_uint_eq(rows[3].cost, 1800);
	free(rows);
	f.by = GQ_LEDGER_WEEK;
	ck_assert_int_eq(gq_ledger_sum(r, 3, &f, &rows, &n), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(rows[1].period, MON);
	ck_assert_uint_eq(rows[1].reclaims_lent, 1);
	ck_assert_uint_eq(rows[1].reclaims_borrowed, 2);
	free(rows);
	f = (gq_ledger_filter_t){ .since = TUE, .project = "b",
				  .by = GQ_LEDGER_ALL };
	ck_assert_int_eq(gq_ledger_sum(r, 3, &f, &rows, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(rows[0].project, "b");
	ck_assert_uint_eq(rows[0].gpus_lent, 1);
	ck_assert_uint_eq(rows[0].gpus_borrowed, 0);
	free(rows);
	/* no records: no rows */
	ck_assert_int_eq(gq_ledger_sum(r, 0, &f, &rows, &n), 0);
	ck_assert_int_eq(n, 0);
	free(rows);
}
END_TEST

/*
 * Observe mode's record (docs/MODEL.md "Observe mode"): stage "observed"
 * in the line and back; not acted on, so the sums count it apart.  Monday
 * b's 12 takes a's 7 (1 GPU, 3600 lost): a lent 1, 1 GPU, 3600; b
 * borrowed 1, cost 3600.  b's 14 would take a's 8 (2 GPUs, 7200): a and b
 * each count 1 observed, and the lent and borrowed numbers stay those of
 * 7 alone.  The requeue budget's losses skip it: one loss, 3600.
 */
START_TEST(observed_counted_apart)
{
	gq_ledger_rec_t r[2] = {
		_rec(MON + 10, 12, "b", 7, "a", 1, 3600),
		_rec(MON + 20, 14, "b", 8, "a", 2, 7200),
	}, back;
	gq_ledger_filter_t f = { .by = GQ_LEDGER_ALL };
	gq_losses_t l = { 0 };
	gq_ledger_row_t *rows;
	char buf[GQ_LEDGER_LINE];
	int n;

	r[1].stage = GQ_LEDGER_OBSERVED;
	ck_assert_int_gt(gq_ledger_format(&r[1], buf, sizeof(buf)), 0);
	ck_assert_ptr_nonnull(strstr(buf, " 7200 observed "));
	ck_assert(gq_ledger_parse(buf, &back));
	ck_assert_int_eq(back.stage, GQ_LEDGER_OBSERVED);
	ck_assert_int_eq(gq_ledger_sum(r, 2, &f, &rows, &n), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(rows[0].project, "a");
	ck_assert_uint_eq(rows[0].reclaims_lent, 1);
	ck_assert_uint_eq(rows[0].gpus_lent, 1);
	ck_assert_uint_eq(rows[0].lost, 3600);
	ck_assert_uint_eq(rows[0].observed, 1);
	ck_assert_str_eq(rows[1].project, "b");
	ck_assert_uint_eq(rows[1].reclaims_borrowed, 1);
	ck_assert_uint_eq(rows[1].cost, 3600);
	ck_assert_uint_eq(rows[1].observed, 1);
	free(rows);
	ck_assert_int_eq(gq_losses_add(&l, &r[0], 0), 0);
	ck_assert_int_eq(gq_losses_add(&l, &r[1], 0), 0);
	ck_assert_int_eq(l.n, 1);
	ck_assert_uint_eq(l.e[0].lost, 3600);
	gq_losses_free(&l);
}
END_TEST

Suite *ledger_suite(void)
{
	Suite *s = suite_create("ledger");
	TCase *rec = tcase_create("record and lost work");
	TCase *file = tcase_create("file appended, torn, rotated");
	TCase *sum = tcase_create("sums per period and project");
	TCase *grace = tcase_create("a warned victim's loss at the end of its run");

	tcase_add_test(rec, lost_work);
	tcase_add_test(rec, record_of_reclaim);
	tcase_add_test(rec, line_round_trip);
	tcase_add_test(rec, line_bad);
	tcase_add_test(file, append_read_back);
	tcase_add_test(file, torn_line_skipped);
	tcase_add_test(file, torn_gq1_line_skipped);
	tcase_add_test(file, rotation_keeps_newest);
	tcase_add_test(file, queue_bounded);
	tcase_add_test(file, state_queue_note_take);
	tcase_add_test(grace, after_grace_counts_the_end_of_the_run);
	tcase_add_test(grace, settle_keeps_one_record_per_victim);
	tcase_add_test(grace, state_settles_a_warned_victim);
	tcase_add_test(sum, periods_and_dates);
	tcase_add_test(sum, sums_by_period_and_project);
	tcase_add_test(sum, observed_counted_apart);
	suite_add_tcase(s, rec);
	suite_add_tcase(s, file);
	suite_add_tcase(s, sum);
	suite_add_tcase(s, grace);
	return s;
}
