/*
 * test_read.c - what a pass's read of Slurm (src/plugins/read_slurm.c)
 * writes to slurmctld's log: a running job's checkpoint note gpuquota
 * ignores is said once per job and note, however many jobs have one, and
 * the jobs remembered for it are those of the last two walks of job_list
 * (docs/MODEL.md "Reclaim", an ignored note).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/slurm_compat.h"

#include "state/state.h"
#include "plugins/read_slurm.h"
#include "glue.h"
#include "helpers.h"

#define SAID "ordered as a job without a checkpoint"

/* A running job of team-a with `note` in its comment. */
static job_record_t *_running(uint32_t id, const char *note)
{
	job_record_t *j = glue_pending(id, "team-a", "gpu", 1);

	j->job_state = JOB_RUNNING;
	j->start_time = 500;
	j->time_limit = INFINITE;
	j->comment = xstrdup(note);
	return j;
}

/*
 * 200 running jobs, each with another job's note (1@1, ignored), read by
 * 3 passes: 200 lines, one per job (a memory of the last 64 jobs said
 * gave 600: each pass said all 200 again).  Then 100 of them end and two
 * passes forget them: 100 remembered.  Job 1000's note becomes 1@2: one
 * line more, at the next pass only.
 */
START_TEST(ignored_note_said_once_per_job)
{
	char *f = write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 1}]}");
	char err[GQ_ERR_MAX], *log;
	job_record_t *j[200];
	int i, pass;

	glue_jobs_reset();
	for (i = 0; i < 200; i++)
		j[i] = _running(1000 + i, "gpuquota-checkpoint=1@1");
	part_list = list_create(NULL);
	log = glue_log_to_file();
	gq_state_lock();
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	for (pass = 0; pass < 3; pass++)
		ck_assert_int_eq(gq_read_pass(gq_state_next(), 1000), 0);
	ck_assert_int_eq(glue_log_lines(log, SAID), 200);
	for (i = 100; i < 200; i++)
		j[i]->job_state = JOB_COMPLETE;
	for (pass = 0; pass < 2; pass++)
		ck_assert_int_eq(gq_read_pass(gq_state_next(), 1000), 0);
	ck_assert_int_eq(gq_read_ignored_remembered(), 100);
	xfree(j[0]->comment);
	j[0]->comment = xstrdup("gpuquota-checkpoint=1@2");
	for (pass = 0; pass < 2; pass++)
		ck_assert_int_eq(gq_read_pass(gq_state_next(), 1000), 0);
	ck_assert_int_eq(glue_log_lines(log, SAID), 201);
	gq_state_clear();
	gq_state_unlock();
	log_fini();
	FREE_NULL_LIST(part_list);
	unlink(log);
	free(log);
	unlink(f);
	free(f);
}
END_TEST

Suite *glue_read_suite(void)
{
	Suite *s = suite_create("glue_read");
	TCase *tc = tcase_create("an ignored checkpoint note is said once");

	tcase_add_test(tc, ignored_note_said_once_per_job);
	suite_add_tcase(s, tc);
	return s;
}
