/*
 * test_write.c - a pass's answers written into Slurm's job records
 * (src/plugins/write_slurm.c, hold.c, array_throttle.c): each job's
 * answer decided, then applied, by every batch that writes.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/slurm_compat.h"

#include "core/pools.h"
#include "state/state.h"
#include "plugins/array_throttle.h"
#include "plugins/hold.h"
#include "plugins/read_slurm.h"
#include "plugins/write_slurm.h"
#include "glue.h"
#include "helpers.h"

/*
 * A pass holds a pending job that would pass its project's gpu_limit:
 * priority 0, Slurm's WAIT_HELD and gpuquota's reason, which is how the
 * next pass knows the hold for its own; it releases the job once it fits.
 * team-a (q 1, L 1) runs 1 of 4 GPUs; its job 9 waits.
 */
/* The state locked with configuration `json` (its file into *f), no job
 * record, the next pass's view begun at 100 with `total` GPUs. */
static gq_view_t *_begun(const char *json, char **f, uint32_t total)
{
	char err[GQ_ERR_MAX];
	gq_view_t *v;

	*f = write_temp(json);
	glue_jobs_reset();
	gq_state_lock();
	ck_assert_int_eq(gq_state_load(*f, err, sizeof(err)), 0);
	v = gq_state_next()->view[0];
	gq_view_begin(v, total, 100);
	return v;
}

/* As _begun, on nodes n0 and n1 of 4 GPUs, both idle. */
static gq_view_t *_two_nodes(const char *json, char **f)
{
	gq_view_t *v = _begun(json, f, 8);

	ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
	gq_view_node_free(v, 0, 4);
	gq_view_node_free(v, 1, 4);
	return v;
}

START_TEST(limit_hold_written_and_released)
{
	char *f;
	job_record_t *j;
	gq_view_t *v = _begun("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 1, \"gpu_limit\": 1}]}",
			      &f, 4);

	run(v, 1, "team-a", 1, 1);
	pend(v, 9, "team-a", 1, 9);
	ck_assert_int_eq(gq_view_compute(v), 0);
	gq_state_publish();
	j = glue_pending(9, "team-a", "gpu", 1);
	gq_write_pass(gq_state()->view, NULL, 100);
	ck_assert_uint_eq(j->priority, 0);
	ck_assert_int_eq(j->state_reason, WAIT_HELD);
	ck_assert_str_eq(j->state_desc,
			 "gpuquota: project team-a would pass its gpu_limit (1 GPU)");

	/* job 1 ended: the next pass releases 9 */
	v = gq_state_next()->view[0];
	gq_view_begin(v, 4, 200);
	pend(v, 9, "team-a", 1, 9);
	ck_assert_int_eq(gq_view_compute(v), 0);
	gq_state_publish();
	ck_assert(gq_write_pass(gq_state()->view, NULL, 200));	/* kick */
	ck_assert_uint_gt(j->priority, 0);
	ck_assert_int_ne(j->state_reason, WAIT_HELD);
	gq_state_clear();
	gq_state_unlock();
	unlink(f);
	free(f);
}
END_TEST

/*
 * The two-pool case of the tests below: pools a100 and h100, 8 GPUs each;
 * team-a: quota {a100: 8}, limit {h100: 2}.  team-b fills a100; team-a
 * runs `in_h100` one-GPU jobs (ids 20...) in h100; its job `in` listing
 * both is demand in a100 and a shadow in h100.  Loaded and computed into
 * the state's next pass.  Caller holds the state lock.
 */
static char *_two_pools(gq_job_in_t in, int in_h100)
{
	char *f = write_temp(
		"{\"pools\": [{\"name\": \"a100\", \"partitions\": [\"a100\"]},"
		"            {\"name\": \"h100\", \"partitions\": [\"h100\"]}],"
		" \"projects\": [{\"name\": \"team-a\", \"gpu_quota\": {\"a100\": 8},"
		"                 \"gpu_limit\": {\"h100\": 2}}]}");
	char err[GQ_ERR_MAX];
	gq_view_t *a, *h;

	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	a = gq_state_next()->view[0];
	h = gq_state_next()->view[1];
	gq_view_begin(a, 8, 100);
	gq_view_begin(h, 8, 100);
	for (uint32_t id = 1; id <= 8; id++)
		run(a, id, "team-b", 1, id);
	for (int k = 0; k < in_h100; k++)
		run(h, 20 + k, "team-a", 1, 20 + k);
	add(a, "team-a", in);
	gq_pools_shadow(&in);
	add(h, "team-a", in);
	ck_assert_int_eq(gq_view_compute(a), 0);
	ck_assert_int_eq(gq_view_compute(h), 0);
	return f;
}

/*
 * An array listing two pools is throttled to the fewest tasks any of them
 * lets start (gq_pools_tasks_now), not its home pool's alone: Slurm may
 * start each task in either.  Pools a100 and h100, 8 GPUs each; a100
 * full of team-b.  team-a: quota {a100: 8}, limit {h100: 2}.  Its array
 * of 8 x 1 GPU, -p a100,h100: in quota at home (8 may start there), 2 in
 * h100: %N 2.
 */
START_TEST(array_listing_pools_throttled_to_fewest_tasks)
{
	char *f;
	job_record_t *r;

	glue_jobs_reset();
	gq_throttle_clear();
	gq_state_lock();
	f = _two_pools(with_tasks(pending(30, 1, 30), 8), 0);
	gq_state_publish();
	ck_assert_uint_eq(gq_view_job(gq_state()->view->view[0], 30)->tasks_now, 8);

	r = glue_array(30, 8);
	xfree(r->partition);
	r->partition = xstrdup("a100,h100");
	gq_write_pass(gq_state()->view, NULL, 100);
	ck_assert_uint_eq(r->array_recs->max_run_tasks, 2);
	ck_assert_uint_gt(r->priority, 0);
	gq_state_clear();
	gq_state_unlock();
	gq_throttle_clear();
	unlink(f);
	free(f);
}
END_TEST

/*
 * The records of the one-pool cases below: team-a (q 1, L 1) runs job 1
 * (1 of 4 GPUs); its job 9 would pass the limit; team-b (q 2) pends 10
 * (in quota) and 11, which an earlier pass held (team-b's limit then).
 */
static const char *one_pool =
	"{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 1, \"gpu_limit\": 1},"
	"                {\"name\": \"team-b\", \"gpu_quota\": 2}]}";

static void _one_pool_records(void)
{
	job_record_t *j;

	if (!find_job_record(9)) {
		glue_jobs_reset();
		glue_pending(9, "team-a", "gpu", 1);
		glue_pending(10, "team-b", "gpu", 1);
		glue_pending(11, "team-b", "gpu", 1);
	}
	for (uint32_t id = 9; id <= 11; id++) {	/* as submitted */
		j = find_job_record(id);
		j->priority = 1;
		j->state_reason = WAIT_NO_REASON;
		xfree(j->state_desc);
	}
	glue_held_by_gpuquota(find_job_record(11),
			      "gpuquota: project team-b would pass its gpu_limit (1 GPU)");
}

/* Load `json` and compute the one-pool case into the state's next pass
 * (not published).  Caller holds the state lock. */
static void _one_pool_next(const char *path)
{
	char err[GQ_ERR_MAX];
	gq_view_t *v;

	ck_assert_int_eq(gq_state_load(path, err, sizeof(err)), 0);
	v = gq_state_next()->view[0];
	gq_view_begin(v, 4, 100);
	run(v, 1, "team-a", 1, 1);
	pend(v, 9, "team-a", 1, 9);
	pend(v, 10, "team-b", 1, 10);
	pend(v, 11, "team-b", 1, 11);
	ck_assert_int_eq(gq_view_compute(v), 0);
}

typedef struct {
	uint32_t priority, reason;
	char desc[256];
} rec_t;

static void _snap(rec_t *r)
{
	memset(r, 0, 3 * sizeof(*r));
	for (uint32_t id = 9; id <= 11; id++) {
		job_record_t *j = find_job_record(id);

		r[id - 9].priority = j->priority;
		r[id - 9].reason = j->state_reason;
		snprintf(r[id - 9].desc, sizeof(r->desc), "%s",
			 j->state_desc ? j->state_desc : "");
	}
}

/*
 * A job's answer is decided from its record without writing it: 9 is to
 * be held (team-a would hold 2 > L 1), 10 given its band's priority and
 * text, 11 released (team-b holds 2 <= its quota 2 with it), which asks
 * for a scheduling pass.  The records are as they were.
 */
START_TEST(decide_reads_only)
{
	char *f = write_temp(one_pool);
	gq_write_t w[3] = { { 0 } };
	rec_t before[3], after[3];

	glue_jobs_reset();
	_one_pool_records();
	gq_state_lock();
	_one_pool_next(f);
	_snap(before);
	for (uint32_t id = 9; id <= 11; id++)
		gq_write_decide(find_job_record(id), gq_state_next(), NULL,
				&w[id - 9]);
	_snap(after);
	ck_assert_mem_eq(before, after, sizeof(before));
	ck_assert_uint_eq(w[0].what, GQ_WRITE_HOLD);
	ck_assert_int_eq(w[0].job->hold, GQ_HOLD_LIMIT);
	ck_assert_uint_eq(w[1].what, GQ_WRITE_TEXT | GQ_WRITE_PRIO);
	ck_assert_ptr_nonnull(strstr(w[1].text, "gpuquota: in quota"));
	ck_assert_uint_gt(w[1].prio, 1);
	ck_assert(w[1].kick);	/* from 1 to a band that may reclaim */
	ck_assert_uint_eq(w[2].what, GQ_WRITE_RELEASE);
	ck_assert(w[2].kick);
	for (int i = 0; i < 3; i++)
		gq_write_drop(&w[i]);
	gq_state_clear();
	gq_state_unlock();
	unlink(f);
	free(f);
}
END_TEST

/*
 * A pass in two lock holds writes what a pass in one writes: the plan
 * (under the read lock, on the unpublished pass), then the planned jobs
 * after publishing, give every record the same priority, reason and text
 * as gq_write_pass on the same records.  9 held, 10 in quota, 11
 * released.
 */
START_TEST(planned_writes_what_a_whole_pass_writes)
{
	char *f = write_temp(one_pool);
	gq_write_plan_t plan = { 0 };
	rec_t two[3], one[3];

	glue_jobs_reset();
	_one_pool_records();
	gq_state_lock();
	_one_pool_next(f);
	ck_assert_int_eq(gq_write_plan(&plan, gq_state_next(), NULL, 100), 0);
	ck_assert_int_eq(plan.n, 3);
	ck_assert(plan.kick);
	gq_state_publish();
	ck_assert(gq_write_planned(&plan, gq_state()->view, NULL, 100));
	ck_assert_int_eq(plan.n, 0);
	_snap(two);
	gq_state_clear();

	_one_pool_records();
	_one_pool_next(f);
	gq_state_publish();
	ck_assert(gq_write_pass(gq_state()->view, NULL, 100));
	_snap(one);
	ck_assert_mem_eq(two, one, sizeof(two));
	ck_assert_uint_eq(one[0].priority, 0);
	ck_assert_int_eq(one[0].reason, WAIT_HELD);
	ck_assert_uint_gt(one[1].priority, 1);
	ck_assert_ptr_nonnull(strstr(one[1].desc, "gpuquota: in quota"));
	ck_assert_uint_gt(one[2].priority, 1);
	ck_assert_int_ne(one[2].reason, WAIT_HELD);
	gq_write_plan_free(&plan);
	gq_state_clear();
	gq_state_unlock();
	unlink(f);
	free(f);
}
END_TEST

/*
 * The re-hold writes the hold the pass writes, also when it is another
 * pool's: team-a's job 30 lists a100 and h100; at home (a100, full of
 * team-b) it is in quota, in h100 it would pass team-a's limit there (2,
 * running 2).  Held by the pass; Slurm's cycle put its priority back; the
 * re-hold takes it away again, with h100's reason.
 */
START_TEST(rehold_writes_another_pools_hold)
{
	const char *held = "gpuquota: project team-a would pass its gpu_limit in pool h100 (2 GPUs)";
	char *f;
	job_record_t *r;

	glue_jobs_reset();
	gq_state_lock();
	f = _two_pools(pending(30, 1, 30), 2);
	gq_state_publish();

	r = glue_pending(30, "team-a", "a100,h100", 1);
	gq_write_pass(gq_state()->view, NULL, 100);
	ck_assert_uint_eq(r->priority, 0);
	ck_assert_str_eq(r->state_desc, held);
	r->priority = 77;	/* Slurm's main cycle */
	ck_assert_int_eq(gq_hold_again(gq_state()->view, GQ_HOLD_NONE,
				       "re-hold"), 1);
	ck_assert_uint_eq(r->priority, 0);
	ck_assert_int_eq(r->state_reason, WAIT_HELD);
	ck_assert_str_eq(r->state_desc, held);
	/* a reclaim's re-hold (GQ_HOLD_RECLAIM only) leaves it */
	r->priority = 77;
	ck_assert_int_eq(gq_hold_again(gq_state()->view, GQ_HOLD_RECLAIM,
				       "reclaim"), 0);
	ck_assert_uint_eq(r->priority, 77);
	gq_state_clear();
	gq_state_unlock();
	unlink(f);
	free(f);
}
END_TEST

/*
 * A job gpuquota holds that leaves the pools while slurmctld restarts is
 * released by the first pass, which has no pass before to compare with
 * (docs/MODEL.md "Outside the pool").  Pool: partition gpu; team-a (q 1,
 * L 1) runs 1.  Job 9 was held by the limit, then moved to partition cpu
 * (Slurm does not call the priority plugin for a job at priority 0).
 * Job 10, also in cpu, carries a person's hold (priority 0, WAIT_HELD,
 * no text of ours): it stays held.
 */
START_TEST(held_job_outside_pools_released_after_restart)
{
	char *f = write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 1, \"gpu_limit\": 1}],"
			     " \"settings\": {\"partitions\": [\"gpu\"]}}");
	char err[GQ_ERR_MAX];
	job_record_t *j, *p;
	gq_view_t *v;

	glue_jobs_reset();
	gq_state_lock();
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	v = gq_state_next()->view[0];
	gq_view_begin(v, 4, 100);
	run(v, 1, "team-a", 1, 1);
	ck_assert_int_eq(gq_view_compute(v), 0);	/* 9, 10 not in it */
	gq_state_publish();
	j = glue_pending(9, "team-a", "cpu", 0);
	glue_held_by_gpuquota(j, "gpuquota: project team-a would pass its gpu_limit (1 GPU)");
	p = glue_pending(10, "team-a", "cpu", 0);
	p->state_reason = WAIT_HELD;
	ck_assert(gq_write_pass(gq_state()->view, NULL, 100));	/* kick */
	ck_assert_uint_gt(j->priority, 0);
	ck_assert_int_ne(j->state_reason, WAIT_HELD);
	ck_assert_uint_eq(p->priority, 0);
	ck_assert_int_eq(p->state_reason, WAIT_HELD);
	gq_state_clear();
	gq_state_unlock();
	unlink(f);
	free(f);
}
END_TEST

/*
 * The squeue text of a room waiter (docs/MODEL.md "Holds", room wait, and
 * "The saved node"): nodes n0, n1 of 4 GPUs, now 100.  team-a (q 5) runs
 * a1 (3 GPUs, --time end 400) on n0 and a2 (2, end 300) on n1; team-c
 * (q 0) runs c1 (1, no end) on n1.  team-b (q 3) pends b1 (job 9): 3 GPUs
 * on one node, in quota.  n0: 1 idle, a1's 3 at 400; n1: 1 idle + c1's 1
 * to reclaim, a2's 2 at 300: no room now, soonest on n1, in 200 s.  With
 * room_wait 60 GPUs are kept there; with the default (0) n1 is saved.
 */
static void room_waiter_text(const char *settings, int waiting,
			     uint32_t nodes, const char *want)
{
	char *f = write_temp(settings);
	node_record_t n0 = { .name = "n0" }, n1 = { .name = "n1" };
	node_record_t *table[] = { &n0, &n1 };
	placed_t r[] = { { 1, 3, 0, 400, "team-a" }, { 2, 2, 1, 300, "team-a" },
			{ 3, 1, 1, 0, "team-c" } };
	char err[GQ_ERR_MAX];
	job_record_t *j;
	gq_view_t *v;

	node_record_table_ptr = table;
	node_record_count = 2;
	glue_jobs_reset();
	gq_state_lock();
	ck_assert_int_eq(gq_state_load(f, err, sizeof(err)), 0);
	v = gq_state_next()->view[0];
	gq_view_begin(v, 8, 100);
	ck_assert_int_eq(gq_view_set_nodes(v, 2), 0);
	gq_view_node_free(v, 0, 1);
	gq_view_node_free(v, 1, 1);
	add_placed(v, r, sizeof(r) / sizeof(r[0]));
	add(v, "team-b", shaped(pending(9, 3 * nodes, 50), 3, nodes));
	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 100),
			 waiting);
	gq_state_publish();
	j = glue_pending(9, "team-b", "gpu", 1);
	j->state_reason = WAIT_RESOURCES;
	gq_write_pass(gq_state()->view, NULL, time(NULL));
	/* (written at the clock's now, past a2's end: no "the rest ... in") */
	ck_assert_pstr_eq(j->state_desc, want);
	gq_state_clear();
	gq_state_unlock();
	node_record_table_ptr = NULL;
	node_record_count = 0;
	unlink(f);
	free(f);
}

#define ROOM_PROJECTS " \"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 5}," \
	" {\"name\": \"team-b\", \"gpu_quota\": 3}," \
	" {\"name\": \"team-c\", \"gpu_quota\": 0}]}"

START_TEST(room_waiter_text_names_node_and_why)
{
	room_waiter_text("{\"settings\": {\"room_wait\": 60}," ROOM_PROJECTS, 1, 1,
			 "Resources, gpuquota: in quota (team-b would hold 3 of 3); no node can free 3 GPUs for it within the other projects' floors yet, so GPUs that come free on n1 are kept for it (at most 60 s): it can start there soonest (1 GPU idle, 1 it may reclaim)");
}
END_TEST

START_TEST(saved_node_text_names_node_and_why)
{
	room_waiter_text("{" ROOM_PROJECTS, 0, 1,
			 "Resources, gpuquota: in quota (team-b would hold 3 of 3); no node can free 3 GPUs for it within the other projects' floors yet, so n1 is saved for it (jobs that can start elsewhere take no victim there): it can start there soonest (1 GPU idle, 1 it may reclaim)");
}
END_TEST

/* A gang of 2 nodes x 3 GPUs (team-b's quota 6): both nodes are saved,
 * n1 first (a2 ends at 300, a1 at 400). */
START_TEST(saved_nodes_text_names_a_gangs_nodes)
{
	room_waiter_text("{ \"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 5},"
			 " {\"name\": \"team-b\", \"gpu_quota\": 6},"
			 " {\"name\": \"team-c\", \"gpu_quota\": 0}]}", 0, 2,
			 "Resources, gpuquota: in quota (team-b would hold 6 of 6); not enough nodes can free 3 GPUs for it within the other projects' floors yet, so n1, n0 are saved for it (jobs that can start elsewhere take no victim there): it can start there soonest (n1: 1 GPU idle, 1 it may reclaim)");
}
END_TEST

/*
 * The squeue text of a job held for a moved job's landing (docs/MODEL.md
 * "Moves"): nodes n0, n1 of 4 GPUs, now 100.  team-c's job 7, moved, waits
 * out its requeue delay to restart on n1 (noted at 100, no grace, delay
 * 11: at most 41 s); team-b's job 20 (quota 0) pends.  Once job 7
 * reclaims for itself, the text is its reclaim's.
 */
/*
 * The pass of view v at 100 made, its holds for the reclaims in flight
 * and landings among them, and written to Slurm's records: pending job
 * `id` of `account` (1 GPU, partition gpu) is held, its squeue text
 * `want`.  Returns the job's record.
 */
static job_record_t *_held_text(gq_view_t *v, uint32_t id,
				const char *account, const char *want)
{
	job_record_t *j;

	ck_assert_int_eq(gq_view_compute(v), 0);
	ck_assert_int_eq(gq_state_wait_for_reclaims(gq_state_next(), 100), 1);
	gq_state_publish();
	j = glue_pending(id, account, "gpu", 1);
	gq_write_pass(gq_state()->view, NULL, 100);
	ck_assert_int_eq(j->state_reason, WAIT_HELD);
	ck_assert_str_eq(j->state_desc, want);
	return j;
}

START_TEST(landing_hold_text)
{
	char *f;
	gq_job_in_t m = pending(7, 1, 50);
	job_record_t *j;
	gq_view_t *v = _two_nodes("{\"projects\": [{\"name\": \"team-b\", \"gpu_quota\": 0},"
				  " {\"name\": \"team-c\", \"gpu_quota\": 2}]}",
				  &f);

	m.state = GQ_JOB_WAITING;
	m.begins_later = true;
	add(v, "team-c", m);
	pend(v, 20, "team-b", 1, 60);
	gq_state_note_landing(7, 1, 100, 0, 11);
	j = _held_text(v, 20, "team-b",
		       "gpuquota: GPUs are kept for job 7 of team-c, moved to make room, while it restarts; work outside quotas waits until it starts (at most 41 s)");
	ck_assert(gq_state_note_reclaim(7, 100, 0));
	gq_hold_log_begin();	/* the texts made again */
	j->priority = 77;	/* Slurm's main cycle */
	ck_assert_int_eq(gq_hold_again(gq_state()->view, GQ_HOLD_RECLAIM,
				       "reclaim"), 1);
	ck_assert_str_eq(j->state_desc,
			 "gpuquota: GPUs are being reclaimed for job 7 of team-c; work outside quotas waits until it starts (at most 30 s)");
	gq_state_clear();
	gq_state_unlock();
	unlink(f);
	free(f);
}
END_TEST

/*
 * The squeue text of an in-quota job held for a gang's reclaim
 * (docs/MODEL.md "Holds"): nodes n0, n1 of 4 GPUs, now 100.  team-g's
 * job 1 asks 4 GPUs on each of 2 nodes and reclaims on both; team-a's
 * job 3 (1 GPU, in quota) could start there, so it waits, and its text
 * says why an in-quota job waits.
 */
START_TEST(gang_hold_text)
{
	char *f;
	int nodes[2] = { 0, 1 };
	gq_view_t *v = _two_nodes("{\"projects\": [{\"name\": \"team-g\", \"gpu_quota\": 8},"
				  " {\"name\": \"team-a\", \"gpu_quota\": 2}]}",
				  &f);

	add(v, "team-g", shaped(pending(1, 8, 50), 4, 2));
	pend(v, 3, "team-a", 1, 60);
	ck_assert(gq_state_note_reclaim(1, 100, 0));
	gq_state_reclaim_nodes(1, nodes, 2);
	_held_text(v, 3, "team-a",
		   "gpuquota: GPUs are being reclaimed for job 1 of team-g, which needs every GPU freed on its nodes; jobs that could start there wait until it starts (at most 30 s)");
	ck_assert_int_eq(gq_view_job(v, 3)->band, GQ_BAND_IN_QUOTA);
	gq_state_clear();
	gq_state_unlock();
	unlink(f);
	free(f);
}
END_TEST

/* The one-pool case in observe mode (docs/MODEL.md "Observe mode"). */
static const char *one_pool_observe =
	"{\"settings\": {\"mode\": \"observe\"},"
	" \"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 1, \"gpu_limit\": 1},"
	"                {\"name\": \"team-b\", \"gpu_quota\": 2}]}";

/* Job `id` as submitted under multifactor's absence: priority 1, no
 * reason, no text. */
static void _untouched(uint32_t id)
{
	job_record_t *j = find_job_record(id);

	ck_assert_uint_eq(j->priority, 1);
	ck_assert_int_eq(j->state_reason, WAIT_NO_REASON);
	ck_assert_ptr_null(j->state_desc);
}

/* Computed into the next pass from `path` and published, then written in
 * one hold.  Caller holds the state lock. */
static void _one_pool_pass(const char *path)
{
	_one_pool_next(path);
	gq_state_publish();
	gq_write_pass(gq_state()->view, gq_state_spare(), 100);
}

/* A mode test's end: the state cleared and unlocked, both files gone. */
static void _mode_done(char *fo, char *fe)
{
	gq_state_clear();
	gq_state_unlock();
	unlink(fo);
	unlink(fe);
	free(fo);
	free(fe);
}

/*
 * Observe mode decides as enforce does and writes none of it.  The
 * one-pool case: team-a (q 1, L 1) runs 1 GPU, so its job 9 would hold
 * 1 + 1 = 2 > L 1: the pass decides a limit hold; team-b's 10 would hold
 * 1 <= q 2: in quota.  In observe 9 and 10 keep priority 1, no reason,
 * no text (twice: no pass changes them); 11, which gpuquota held before,
 * is released (its hold undone, at priority 1: no multifactor here).
 * priority_p_set gives 9 multifactor's 1 and holds nothing.  The enforce
 * pass on the same input holds 9 (priority 0, WAIT_HELD) and gives 10
 * its band (priority > 1).  Back in observe, 9's hold is undone and 9
 * and 10 are at 1 again.
 */
START_TEST(observe_writes_nothing_enforce_holds)
{
	char *fo = write_temp(one_pool_observe), *fe = write_temp(one_pool);
	job_record_t *j9;
	int k;

	glue_jobs_reset();
	_one_pool_records();
	j9 = find_job_record(9);
	gq_state_lock();
	_one_pool_pass(fo);
	ck_assert_int_eq(gq_pools_job(gq_state()->view, 9, &k)->hold,
			 GQ_HOLD_LIMIT);
	_untouched(9);
	_untouched(10);
	ck_assert_uint_eq(find_job_record(11)->priority, 1);
	ck_assert(!gq_read_held(find_job_record(11)));
	_one_pool_pass(fo);
	_untouched(9);
	_untouched(10);
	gq_state_unlock();
	ck_assert_uint_eq(priority_p_set(0, j9), 1);
	ck_assert_int_eq(j9->state_reason, WAIT_NO_REASON);

	gq_state_lock();
	_one_pool_pass(fe);
	ck_assert_uint_eq(j9->priority, 0);
	ck_assert_int_eq(j9->state_reason, WAIT_HELD);
	ck_assert_uint_gt(find_job_record(10)->priority, 1);

	_one_pool_pass(fo);
	ck_assert_uint_eq(j9->priority, 1);
	ck_assert(!gq_read_held(j9));
	ck_assert_int_ne(j9->state_reason, WAIT_HELD);
	ck_assert_uint_eq(find_job_record(10)->priority, 1);
	_mode_done(fo, fe);
}
END_TEST

/*
 * The two-hold pass switching from enforce to observe: its plan undoes
 * every job of the pools on the first pass in observe mode (9 held,
 * 10 at its band's priority) and only gpuquota's holds after.  The
 * one-pool case as above: after enforce 9 is at 0, 10 above 1; after the
 * observe plan and its writes both are at 1 and 9 is not held; the next
 * observe plan has nothing to write.
 */
START_TEST(observe_plan_undoes_enforce)
{
	char *fo = write_temp(one_pool_observe), *fe = write_temp(one_pool);
	gq_write_plan_t plan = { 0 };

	glue_jobs_reset();
	_one_pool_records();
	gq_state_lock();
	_one_pool_pass(fe);
	ck_assert_uint_eq(find_job_record(9)->priority, 0);
	ck_assert_uint_gt(find_job_record(10)->priority, 1);

	_one_pool_next(fo);
	ck_assert_int_eq(gq_write_plan(&plan, gq_state_next(),
				       gq_state()->view, 100), 0);
	ck_assert_int_eq(plan.n, 3);	/* 9, 10, 11 undone */
	ck_assert(plan.kick);		/* 9 released */
	gq_state_publish();
	gq_write_planned(&plan, gq_state()->view, gq_state_spare(), 100);
	ck_assert_uint_eq(find_job_record(9)->priority, 1);
	ck_assert(!gq_read_held(find_job_record(9)));
	ck_assert_uint_eq(find_job_record(10)->priority, 1);

	_one_pool_next(fo);
	ck_assert_int_eq(gq_write_plan(&plan, gq_state_next(),
				       gq_state()->view, 100), 0);
	ck_assert_int_eq(plan.n, 0);
	gq_write_plan_free(&plan);
	_mode_done(fo, fe);
}
END_TEST

/* A pass in the mode of `path` on the one-pool case, job 10's priority
 * set to `prio` before it; 10's priority after it.  Caller holds the
 * state lock. */
static uint32_t _pass_from(const char *path, uint32_t prio)
{
	find_job_record(10)->priority = prio;
	_one_pool_pass(path);
	return find_job_record(10)->priority;
}

/*
 * Observe mode gives back what gpuquota wrote on every job of the pools
 * once, on its first pass, and again after each switch from enforce.
 * The one-pool case: team-b's job 10 (1 GPU, quota 2: in quota).  Its
 * priority 5 stands for multifactor's, given by priority_p_set between
 * passes.  1st observe pass: undone, 5 -> 1 (no multifactor here), and
 * the state notes it.  2nd: 5 kept, not undone again.  Enforce: 10 gets
 * its band (> 1), the note cleared.  Observe again: undone, 5 -> 1, 9's
 * enforce hold lifted.  Then 5 kept again.
 */
START_TEST(observe_undoes_once_per_switch)
{
	char *fo = write_temp(one_pool_observe), *fe = write_temp(one_pool);

	glue_jobs_reset();
	_one_pool_records();
	gq_state_lock();
	ck_assert(!gq_state_observe_undone());
	ck_assert_uint_eq(_pass_from(fo, 5), 1);
	ck_assert(gq_state_observe_undone());
	ck_assert_uint_eq(_pass_from(fo, 5), 5);
	ck_assert_uint_gt(_pass_from(fe, 5), 1);
	ck_assert_uint_eq(find_job_record(9)->priority, 0);
	ck_assert(!gq_state_observe_undone());
	ck_assert_uint_eq(_pass_from(fo, 5), 1);
	ck_assert(!gq_read_held(find_job_record(9)));
	ck_assert(gq_state_observe_undone());
	ck_assert_uint_eq(_pass_from(fo, 5), 5);
	_mode_done(fo, fe);
}
END_TEST

/*
 * Observe mode gives an array gpuquota throttles its user's %N back.
 * team-a (q 2, L 2) on 4 GPUs, its array 30 of 8 x 1 GPU, none running:
 * 2 tasks may start (L 2), so enforce writes %N 2; the observe pass
 * after it writes the user's (none: 0) back, and the next leaves it.
 */
START_TEST(observe_gives_array_throttle_back)
{
	char *fe = write_temp("{\"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 2, \"gpu_limit\": 2}]}");
	char *fo = write_temp("{\"settings\": {\"mode\": \"observe\"}, \"projects\": [{\"name\": \"team-a\", \"gpu_quota\": 2, \"gpu_limit\": 2}]}");
	const char *files[3] = { fe, fo, fo };
	uint32_t want[3] = { 2, 0, 0 };
	char err[GQ_ERR_MAX];
	job_record_t *r;
	gq_view_t *v;

	glue_jobs_reset();
	gq_throttle_clear();
	r = glue_array(30, 8);
	gq_state_lock();
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(gq_state_load(files[i], err, sizeof(err)), 0);
		v = gq_state_next()->view[0];
		gq_view_begin(v, 4, 100);
		add(v, "team-a", with_tasks(pending(30, 1, 30), 8));
		ck_assert_int_eq(gq_view_compute(v), 0);
		gq_state_publish();
		gq_write_pass(gq_state()->view, gq_state_spare(), 100);
		ck_assert_uint_eq(r->array_recs->max_run_tasks, want[i]);
	}
	ck_assert_uint_gt(r->priority, 0);
	gq_state_clear();
	gq_state_unlock();
	gq_throttle_clear();
	unlink(fe);
	unlink(fo);
	free(fe);
	free(fo);
}
END_TEST

Suite *glue_write_suite(void)
{
	Suite *s = suite_create("glue_write");
	TCase *tc = tcase_create("write");

	tcase_add_test(tc, limit_hold_written_and_released);
	tcase_add_test(tc, array_listing_pools_throttled_to_fewest_tasks);
	tcase_add_test(tc, decide_reads_only);
	tcase_add_test(tc, planned_writes_what_a_whole_pass_writes);
	tcase_add_test(tc, rehold_writes_another_pools_hold);
	tcase_add_test(tc, held_job_outside_pools_released_after_restart);
	tcase_add_test(tc, room_waiter_text_names_node_and_why);
	tcase_add_test(tc, saved_nodes_text_names_a_gangs_nodes);
	tcase_add_test(tc, saved_node_text_names_node_and_why);
	tcase_add_test(tc, landing_hold_text);
	tcase_add_test(tc, gang_hold_text);
	suite_add_tcase(s, tc);
	tc = tcase_create("mode");
	tcase_add_test(tc, observe_writes_nothing_enforce_holds);
	tcase_add_test(tc, observe_plan_undoes_enforce);
	tcase_add_test(tc, observe_undoes_once_per_switch);
	tcase_add_test(tc, observe_gives_array_throttle_back);
	suite_add_tcase(s, tc);
	return s;
}
