/*
 * test_job_store.c - the job store (src/core/job_store.{c,h}): a pass's
 * jobs as records found by id, grouped by project (each project's queued
 * jobs before its running ones, each in the order they came) with a_p,
 * a_d and the queue's first look counted as they move, records made whole
 * when grouped or added late, and ids that follow their records through
 * growth and grouping.  No rule of docs/MODEL.md is decided here: the
 * store is how a pass keeps its jobs (docs/DEVELOPING.md, "Layout").
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "core/job_store.h"
#include "helpers.h"

/* Two projects: p0 alone, p1 in department d0.  Only the per-pass numbers
 * the store counts (a_p, a_d) are read. */
typedef struct {
	gq_project_t proj[2];
	gq_dept_t dept[1];
	gq_registry_t reg;
	gq_queue_seen_t seen[2];
	uint8_t demand[1024];	/* by index: as many as the largest test has */
	gq_buckets_t queued, running;
	gq_job_store_t s;
} fixture_t;

static void setup(fixture_t *f)
{
	memset(f, 0, sizeof(*f));
	f->proj[0].department = -1;
	f->proj[1].department = 0;
	f->reg.proj = f->proj;
	f->reg.nproj = 2;
	f->reg.dept = f->dept;
	f->reg.ndept = 1;
	memset(f->demand, 0xaa, sizeof(f->demand));	/* untouched: 0xaa */
	gq_store_init(&f->s);
}

static void teardown(fixture_t *f)
{
	gq_store_free(&f->s);
	gq_buckets_free(&f->queued);
	gq_buckets_free(&f->running);
}

static int group(fixture_t *f)
{
	gq_store_sweep_t sw = { &f->reg, f->seen, f->demand };

	return gq_store_group(&f->s, 2, &sw, &f->queued, &f->running);
}

static void stage(fixture_t *f, gq_job_in_t in, int project)
{
	ck_assert_ptr_nonnull(gq_store_stage(&f->s, &in, project));
}

static uint32_t id_at(const fixture_t *f, int idx)
{
	return gq_store_at(&f->s, idx)->in.id;
}

/*
 * Staged in this order: 11 (p1, pending, 2 GPUs x 3 tasks), 12 (p0,
 * running, 4), 13 (p1, running, 1, at risk), 14 (p0, waiting, 1), 15
 * (p1, pending, 1, tasks 0), 16 (p0, pending, 2).  Groups 2p queued,
 * 2p + 1 running: 11 -> 2, 12 -> 1, 13 -> 3, 14 -> 0, 15 -> 2, 16 -> 0.
 * Grouped: g0 {14, 16}, g1 {12}, g2 {11, 15}, g3 {13}: indexes 0..5 are
 * 14, 16, 12, 11, 15, 13.  Buckets: p0 queued {0, 1}, running {2}; p1
 * queued {3, 4}, running {5}.  a_p: p0 4, p1 1 (at risk 1); a_d of d0 1
 * (at risk 1).  Demand by new index: 0 (14, waiting) no, 1, 3, 4 yes;
 * 2 and 5 (running) untouched.  The queue's first look: p0 pending 2 x 1
 * = 2 (14 waits), p1 2 x 3 + 1 x 1 = 7 (15's tasks 0 taken as 1).
 * Indexes kept outside (12's 1, 15's 4, 11's 0) become 2, 4, 3.
 */
START_TEST(records_grouped_by_project_in_order)
{
	fixture_t f;
	gq_job_in_t r13 = running(13, 1, 5);
	gq_job_in_t w14 = pending(14, 1, 6);
	int ext[3] = { 1, 4, 0 };
	const uint32_t want[6] = { 14, 16, 12, 11, 15, 13 };
	int k;

	setup(&f);
	r13.at_risk = true;
	w14.state = GQ_JOB_WAITING;
	stage(&f, with_tasks(pending(11, 2, 1), 3), 1);
	stage(&f, running(12, 4, 2), 0);
	stage(&f, r13, 1);
	stage(&f, w14, 0);
	stage(&f, with_tasks(pending(15, 1, 7), 0), 1);
	stage(&f, pending(16, 2, 8), 0);
	ck_assert(gq_store_staged(&f.s));
	ck_assert_int_eq(group(&f), 0);
	ck_assert(!gq_store_staged(&f.s));
	ck_assert_int_eq(gq_store_count(&f.s), 6);
	for (k = 0; k < 6; k++) {
		const gq_job_t *j = gq_store_at(&f.s, k);

		ck_assert_uint_eq(j->in.id, want[k]);
		ck_assert_int_eq(gq_store_index(&f.s, want[k]), k);
		ck_assert_int_eq(j->project, k < 3 ? 0 : 1);
		/* made whole: nothing decided */
		ck_assert_int_eq(j->band, GQ_BAND_NONE);
		ck_assert_uint_eq(j->preempt_rank, UINT32_MAX);
		ck_assert_int_eq(j->place_first, -1);
		ck_assert_int_eq(j->place_n, 0);
		ck_assert(!j->victim && !j->demand && !j->room);
	}
	ck_assert_uint_eq(gq_store_at(&f.s, 4)->in.tasks, 1);
	ck_assert_int_eq(gq_bucket_len(&f.queued, 0), 2);
	ck_assert_int_eq(gq_bucket(&f.queued, 0)[0], 0);
	ck_assert_int_eq(gq_bucket(&f.queued, 0)[1], 1);
	ck_assert_int_eq(gq_bucket_len(&f.running, 0), 1);
	ck_assert_int_eq(gq_bucket(&f.running, 0)[0], 2);
	ck_assert_int_eq(gq_bucket_len(&f.queued, 1), 2);
	ck_assert_int_eq(gq_bucket(&f.queued, 1)[0], 3);
	ck_assert_int_eq(gq_bucket(&f.running, 1)[0], 5);
	ck_assert_uint_eq(f.proj[0].alloc, 4);
	ck_assert_uint_eq(f.proj[0].at_risk, 0);
	ck_assert_uint_eq(f.proj[1].alloc, 1);
	ck_assert_uint_eq(f.proj[1].at_risk, 1);
	ck_assert_uint_eq(f.dept[0].alloc, 1);
	ck_assert_uint_eq(f.dept[0].at_risk, 1);
	ck_assert_uint_eq(f.demand[0], 0);
	ck_assert_uint_eq(f.demand[1], 1);
	ck_assert_uint_eq(f.demand[2], 0xaa);
	ck_assert_uint_eq(f.demand[3], 1);
	ck_assert_uint_eq(f.demand[4], 1);
	ck_assert_uint_eq(f.demand[5], 0xaa);
	ck_assert_uint_eq(f.seen[0].pending, 2);
	ck_assert_uint_eq(f.seen[1].pending, 7);
	gq_store_renumber(&f.s, ext, 3);
	ck_assert_int_eq(ext[0], 2);
	ck_assert_int_eq(ext[1], 4);
	ck_assert_int_eq(ext[2], 3);
	teardown(&f);
}
END_TEST

/*
 * 600 pending jobs, ids 1000 + 7k (k = 0..599), of p0 for even k and p1
 * for odd k: the store grows from 256 to 512 to 1024 records and every id
 * is still found at its index k.  Grouped (p0's 300 first): an even k is
 * at k / 2, an odd one at 300 + (k - 1) / 2: id 1000 at 0, 1007 (k 1) at
 * 300, 5186 (k 598) at 299, 5193 (k 599) at 599.  An id never added: -1.
 */
START_TEST(lookup_by_id_after_growth)
{
	fixture_t f;
	int k;

	setup(&f);
	for (k = 0; k < 600; k++)
		stage(&f, pending(1000 + 7 * k, 1, k), k % 2);
	ck_assert_int_eq(gq_store_count(&f.s), 600);
	ck_assert_int_eq(gq_store_capacity(&f.s), 1024);
	for (k = 0; k < 600; k++) {
		ck_assert_int_eq(gq_store_index(&f.s, 1000 + 7 * k), k);
		ck_assert_uint_eq(id_at(&f, k), 1000 + 7 * k);
	}
	ck_assert_int_eq(gq_store_index(&f.s, 1001), -1);
	ck_assert_int_eq(group(&f), 0);
	for (k = 0; k < 600; k++) {
		int at = k % 2 ? 300 + (k - 1) / 2 : k / 2;

		ck_assert_int_eq(gq_store_index(&f.s, 1000 + 7 * k), at);
		ck_assert_uint_eq(id_at(&f, at), 1000 + 7 * k);
	}
	ck_assert_int_eq(gq_store_index(&f.s, 1000), 0);
	ck_assert_int_eq(gq_store_index(&f.s, 1007), 300);
	ck_assert_int_eq(gq_store_index(&f.s, 5186), 299);
	ck_assert_int_eq(gq_store_index(&f.s, 5193), 599);
	teardown(&f);
}
END_TEST

/*
 * Job 7 staged pending (1 GPU) with placement entries, then again running
 * with 3 GPUs: one record, the last input, its entries kept (a second
 * mark is refused: entries must be consecutive).  Grouped: p0's running
 * job, a_p 3.
 */
START_TEST(same_job_twice_keeps_last_input)
{
	fixture_t f;

	setup(&f);
	stage(&f, pending(7, 1, 1), 0);
	ck_assert(gq_store_set_placed(&f.s, 0));
	ck_assert(!gq_store_set_placed(&f.s, 0));
	stage(&f, running(7, 3, 2), 0);
	ck_assert_int_eq(gq_store_count(&f.s), 1);
	ck_assert_int_eq(gq_store_at(&f.s, 0)->in.state, GQ_JOB_RUNNING);
	ck_assert_uint_eq(gq_store_at(&f.s, 0)->in.gpus, 3);
	ck_assert(!gq_store_set_placed(&f.s, 0));
	ck_assert_int_eq(group(&f), 0);
	ck_assert_int_eq(gq_bucket_len(&f.queued, 0), 0);
	ck_assert_int_eq(gq_bucket_len(&f.running, 0), 1);
	ck_assert_uint_eq(f.proj[0].alloc, 3);
	teardown(&f);
}
END_TEST

/*
 * A job gone: pass 1 holds 1, 2, 3; the next pass (cleared) is told of 3
 * and 4 alone.  1 and 2 are found no more; 3 is at 0, 4 at 1.
 */
START_TEST(job_gone_at_the_next_pass)
{
	fixture_t f;

	setup(&f);
	stage(&f, pending(1, 1, 1), 0);
	stage(&f, running(2, 1, 1), 0);
	stage(&f, pending(3, 1, 1), 1);
	ck_assert_int_eq(group(&f), 0);
	gq_store_clear(&f.s);
	ck_assert(gq_store_staged(&f.s));
	stage(&f, pending(3, 1, 1), 1);
	stage(&f, pending(4, 1, 1), 1);
	ck_assert_int_eq(gq_store_count(&f.s), 2);
	ck_assert_int_eq(gq_store_index(&f.s, 1), -1);
	ck_assert_int_eq(gq_store_index(&f.s, 2), -1);
	ck_assert_int_eq(gq_store_index(&f.s, 3), 0);
	ck_assert_int_eq(gq_store_index(&f.s, 4), 1);
	teardown(&f);
}
END_TEST

/*
 * A pass again without clearing (records whole already): 5 (p0 running,
 * 2 GPUs) and 6 (p1 pending) grouped, 5 then marked as the pass would
 * (victim, rank 1); a_p set back to 0.  Grouped again: 6 stays after 5's
 * group (p0's running g1 before p1's queued g2), 5's marks are reset, a_p
 * of p0 counted again (2), and nothing is seen (demand untouched).  A late
 * add (8, p1) is a whole record at the end: index 2, nothing decided.
 */
START_TEST(records_of_a_pass_before_grouped_whole)
{
	fixture_t f;
	gq_job_t *j5, *late;
	gq_job_in_t in8 = pending(8, 1, 3);

	setup(&f);
	stage(&f, pending(6, 1, 1), 1);
	stage(&f, running(5, 2, 1), 0);
	ck_assert_int_eq(group(&f), 0);
	ck_assert_uint_eq(id_at(&f, 0), 5);
	j5 = gq_store_at(&f.s, 0);
	j5->victim = GQ_VICTIM_QUOTA;
	j5->preempt_rank = 1;
	f.proj[0].alloc = 0;
	memset(f.demand, 0xaa, sizeof(f.demand));
	ck_assert_int_eq(group(&f), 0);
	ck_assert_uint_eq(id_at(&f, 0), 5);
	ck_assert_uint_eq(id_at(&f, 1), 6);
	j5 = gq_store_at(&f.s, 0);
	ck_assert_uint_eq(j5->victim, 0);
	ck_assert_uint_eq(j5->preempt_rank, UINT32_MAX);
	ck_assert_uint_eq(f.proj[0].alloc, 2);
	ck_assert_uint_eq(f.demand[1], 0xaa);
	late = gq_store_add(&f.s, &in8, 1);
	ck_assert_ptr_nonnull(late);
	ck_assert_int_eq(gq_store_index(&f.s, 8), 2);
	ck_assert_int_eq(late->project, 1);
	ck_assert_int_eq(late->band, GQ_BAND_NONE);
	ck_assert_uint_eq(late->preempt_rank, UINT32_MAX);
	ck_assert_int_eq(late->place_first, -1);
	teardown(&f);
}
END_TEST

/*
 * Without memory to group, the records start where they are: 21 (p1,
 * pending) stays at 0 and 22 (p0, running, 3 GPUs) at 1, each made whole
 * with its project; a_p of p0 3.
 */
START_TEST(records_started_in_place)
{
	fixture_t f;

	setup(&f);
	stage(&f, pending(21, 1, 1), 1);
	stage(&f, running(22, 3, 1), 0);
	gq_store_start_in_place(&f.s, &f.reg);
	ck_assert(!gq_store_staged(&f.s));
	ck_assert_uint_eq(id_at(&f, 0), 21);
	ck_assert_int_eq(gq_store_at(&f.s, 0)->project, 1);
	ck_assert_int_eq(gq_store_at(&f.s, 1)->project, 0);
	ck_assert_int_eq(gq_store_at(&f.s, 1)->place_first, -1);
	ck_assert_uint_eq(f.proj[0].alloc, 3);
	ck_assert_uint_eq(f.proj[1].alloc, 0);
	teardown(&f);
}
END_TEST

Suite *job_store_suite(void)
{
	Suite *s = suite_create("job_store");
	TCase *tc;

	tc = tcase_create("records grouped by project, counted as they move");
	tcase_add_test(tc, records_grouped_by_project_in_order);
	tcase_add_test(tc, records_of_a_pass_before_grouped_whole);
	tcase_add_test(tc, records_started_in_place);
	suite_add_tcase(s, tc);
	tc = tcase_create("ids follow their records");
	tcase_add_test(tc, lookup_by_id_after_growth);
	tcase_add_test(tc, same_job_twice_keeps_last_input);
	tcase_add_test(tc, job_gone_at_the_next_pass);
	suite_add_tcase(s, tc);
	return s;
}
