/*
 * test_throttle.c - an array's own throttle (%N) as the plugin writes it
 * (src/plugins/array_throttle.c) on a record as slurmctld holds it.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/slurm_compat.h"

#include "state/state.h"
#include "core/view.h"
#include "plugins/array_throttle.h"
#include "plugins/hold.h"
#include "plugins/read_slurm.h"
#include "plugins/write_slurm.h"
#include "glue.h"
#include "helpers.h"

/*
 * team-a (q 2, L 2), nothing running, 8 idle GPUs, its array `id` of
 * `tasks` x 1 GPU pending: the core's answer (tasks_now 2).
 */
static gq_view_t *pass_of(uint32_t id, uint32_t tasks, const gq_job_t **job)
{
	static gq_project_cfg_t p[1];
	gq_view_t *v;

	p[0] = proj("team-a", 2, 1, 2);
	v = view_of(p, 1, NULL, 0);
	gq_view_begin(v, 8, 2000);
	add(v, "team-a", with_tasks(pending(id, 1, 1000), tasks));
	ck_assert_int_eq(gq_view_compute(v), 0);
	*job = gq_view_job(v, id);
	return v;
}

static void apply(job_record_t *job_ptr, const gq_job_t *job)
{
	gq_throttle_pass_begin();
	gq_throttle_apply(job_ptr, job, job->tasks_now);
	gq_throttle_pass_end();
}

/*
 * An array is throttled to the tasks that fit its project's limit, and
 * gets the user's %N (none) back when all its pending tasks fit.  team-a
 * (q 2, L 2), 8 idle GPUs, array R of 6 x 1 GPU: %N 2.  With 2 pending
 * left and 2 fitting: no throttle.
 */
START_TEST(array_throttled_to_what_fits_its_limit)
{
	job_record_t *r;
	gq_view_t *v;
	const gq_job_t *j;

	glue_jobs_reset();
	gq_throttle_clear();
	r = glue_array(400, 6);
	v = pass_of(400, 6, &j);
	apply(r, j);
	ck_assert_uint_eq(r->array_recs->max_run_tasks, 2);
	gq_view_free(v);

	r->array_recs->task_cnt = 2;
	v = pass_of(400, 2, &j);
	apply(r, j);
	ck_assert_uint_eq(r->array_recs->max_run_tasks, 0);
	gq_view_free(v);
	gq_throttle_clear();
}
END_TEST

/*
 * A pass in two lock holds counts the tasks Slurm starts between its
 * holds once: they were pending when it counted tasks_now (read hold) and
 * run when it writes %N (write hold).  team-a (q 2, L 2), array R of 6 x
 * 1 GPU, 8 idle GPUs: the first pass lets 2 start (%N 2).  The next reads
 * R with 6 pending (tasks_now 2); between its holds Slurm starts the 2.
 * Its write keeps %N at 2, not 2 running + 2: team-a never holds more
 * than its limit.
 */
START_TEST(two_hold_pass_counts_started_tasks_once)
{
	job_record_t *r;
	gq_view_t *v0, *v1;
	const gq_job_t *j0, *j1;

	glue_jobs_reset();
	gq_throttle_clear();
	r = glue_array(500, 6);
	v0 = pass_of(500, 6, &j0);
	ck_assert_uint_eq(j0->tasks_now, 2);
	apply(r, j0);
	ck_assert_uint_eq(r->array_recs->max_run_tasks, 2);

	v1 = pass_of(500, 6, &j1);		/* read hold: 6 pending */
	ck_assert_uint_eq(j1->tasks_now, 2);
	r->array_recs->tot_run_tasks = 2;	/* between the holds */
	r->array_recs->task_cnt = 4;
	apply(r, j1);				/* write hold */
	ck_assert_uint_eq(r->array_recs->max_run_tasks, 2);

	/* one of them ended before the write hold: still none more */
	r->array_recs->tot_run_tasks = 1;
	apply(r, j1);
	ck_assert_uint_eq(r->array_recs->max_run_tasks, 1);
	/* both did: %N 0 would be no throttle; one may start */
	r->array_recs->tot_run_tasks = 0;
	apply(r, j1);
	ck_assert_uint_eq(r->array_recs->max_run_tasks, 1);

	/* read and written at one moment (a pass in one hold) */
	r->array_recs->tot_run_tasks = 2;
	gq_view_free(v1);
	v1 = pass_of(500, 4, &j1);
	ck_assert_uint_eq(j1->tasks_now, 2);
	apply(r, j1);
	ck_assert_uint_eq(r->array_recs->max_run_tasks, 4);
	gq_view_free(v0);
	gq_view_free(v1);
	gq_throttle_clear();
}
END_TEST

/* gpuquota's state with team-a (q 2, L 2) and a published pass over 8
 * idle GPUs with `job_ptr` in it, read as a pass reads it (or none) */
static void state_pass(job_record_t *job_ptr)
{
	gq_view_t *v = gq_state_next()->view[0];
	gq_job_in_t in;

	gq_view_begin(v, 8, 2000);
	if (job_ptr) {
		gq_read_job(job_ptr, 2000, &in);
		add(v, job_ptr->account, in);
	}
	ck_assert_int_eq(gq_view_compute(v), 0);
	gq_state_publish();
}

/*
 * A new array is throttled before Slurm can start a task of it.  Slurm's
 * job_allocate() asks its priority (set_job_prio) before it makes the
 * array's tasks (_create_job_array), and asks the plugin nothing after:
 * priority_p_set cannot lower a %N the record does not have yet.  So it
 * holds the new array; the next pass throttles it (team-a: q 2, L 2, 8
 * idle GPUs, an array of 8 x 1 GPU: %N 2) and releases it.  A job that is
 * no array (job_independent() gave it its begin time) is not held.
 */
START_TEST(new_array_held_until_a_pass_throttles_it)
{
	char *f = write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 2, \"gpu_limit\": 2}]}");
	char err[GQ_ERR_MAX];
	job_record_t *r, *plain;

	glue_jobs_reset();
	gq_read_init();
	gq_state_lock();
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	state_pass(NULL);
	gq_state_unlock();

	/* the array's record as set_job_prio sees it in job_allocate */
	r = glue_pending(600, "team-a", "gpu", NO_VAL);
	glue_gpus(r, 1);
	r->priority = priority_p_set(1000, r);
	ck_assert_uint_eq(r->priority, 0);
	ck_assert_int_eq(r->state_reason, WAIT_HELD);
	ck_assert_str_eq(r->state_desc, GQ_HOLD_NEW_ARRAY);
	ck_assert(gq_read_held(r));

	/* a job that is no array, after job_independent() */
	plain = glue_pending(601, "team-a", "gpu", NO_VAL);
	glue_gpus(plain, 1);
	plain->details->begin_time = 1500;
	plain->priority = priority_p_set(1000, plain);
	ck_assert_uint_gt(plain->priority, 0);
	ck_assert_int_eq(plain->state_reason, WAIT_NO_REASON);
	list_delete_ptr(job_list, plain);

	/* _create_job_array, right after; then the next pass */
	r->array_job_id = 600;
	r->array_recs = xcalloc(1, sizeof(*r->array_recs));
	r->array_recs->task_cnt = 8;
	gq_state_lock();
	state_pass(r);
	ck_assert_uint_eq(gq_view_job(gq_state()->view->view[0], 600)->tasks_now, 2);
	gq_write_pass(gq_state()->view, NULL, 2000);
	ck_assert_uint_eq(r->array_recs->max_run_tasks, 2);
	ck_assert_uint_gt(r->priority, 0);
	ck_assert_int_ne(r->state_reason, WAIT_HELD);
	gq_state_clear();
	gq_state_unlock();
	gq_throttle_clear();
	unlink(f);
	free(f);
}
END_TEST


/*
 * The throttle file at init (gq_throttle_load), in a StateSaveLocation
 * of a good file "700 1700 8 3" (the user's %N 8, gpuquota's 3): array
 * 700 at %N 3 gets the user's 8 back.  The same file behind a link:
 * refused, so the user's %N is not known (3 stays), counted once in
 * state_load_failures_total.  A link to /dev/zero, and a FIFO: refused
 * at once (SIGALRM after 5 s fails a load that spins or blocks), counted:
 * 3 failures in all.
 */
START_TEST(throttle_file_trusted_at_init)
{
	char tmpl[] = "/tmp/gq-glue-throttle-XXXXXX", good[128], path[128];
	char *dir = mkdtemp(tmpl);
	job_record_t *r;
	FILE *f;

	ck_assert_ptr_nonnull(dir);
	glue_jobs_reset();
	r = glue_array(700, 8);
	r->details->submit_time = 1700;
	snprintf(good, sizeof(good), "%s/good", dir);
	snprintf(path, sizeof(path), "%s/gpuquota-array-throttles", dir);
	ck_assert_ptr_nonnull(f = fopen(good, "w"));
	fputs("700 1700 8 3\n", f);
	fclose(f);
	xfree(slurm_conf.state_save_location);
	slurm_conf.state_save_location = xstrdup(dir);
	gq_state_lock();
	gq_metrics_init(gq_state_metrics(), 0);
	gq_state_unlock();
	ck_assert_int_eq(link(good, path), 0);
	gq_throttle_load();
	ck_assert_uint_eq(gq_throttle_user(r, 3), 8);
	unlink(path);
	ck_assert_int_eq(symlink(good, path), 0);
	gq_throttle_load();
	ck_assert_uint_eq(gq_throttle_user(r, 3), 3);
	unlink(path);
	ck_assert_int_eq(symlink("/dev/zero", path), 0);
	alarm(5);
	gq_throttle_load();
	unlink(path);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	gq_throttle_load();
	alarm(0);
	gq_state_lock();
	ck_assert_uint_eq(gq_state_metrics()->state_load_failures_total, 3);
	gq_state_unlock();
	gq_throttle_clear();
	unlink(path);
	unlink(good);
	xfree(slurm_conf.state_save_location);
}
END_TEST

Suite *glue_throttle_suite(void)
{
	Suite *s = suite_create("glue_throttle");
	TCase *tc = tcase_create("throttle");

	tcase_add_test(tc, array_throttled_to_what_fits_its_limit);
	tcase_add_test(tc, two_hold_pass_counts_started_tasks_once);
	tcase_add_test(tc, new_array_held_until_a_pass_throttles_it);
	tcase_add_test(tc, throttle_file_trusted_at_init);
	suite_add_tcase(s, tc);
	return s;
}
