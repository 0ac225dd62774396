/*
 * test_job_facts.c - the one reading of Slurm's facts that the plugins and
 * the command share: demand, "held by gpuquota", job order, arrays, pool
 * membership, nodes that take work, missing accounts.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/job_facts.h"

/* a pending job with a reason and a priority */
static gq_job_facts_t waiting(uint32_t reason, uint32_t priority)
{
	gq_job_facts_t f = { .id = 1, .job_state = JOB_PENDING, .gpus = 1,
			     .batch = true, .requeue = true,
			     .nice = NICE_OFFSET, .priority = priority,
			     .reason = reason };

	return f;
}

static bool not_demand(uint32_t reason, uint32_t priority)
{
	gq_job_facts_t f = waiting(reason, priority);

	return gq_facts_not_demand(&f, 100);
}

START_TEST(facts_demand)
{
	gq_job_facts_t f;

	/* waiting for GPUs or for its turn: demand */
	ck_assert(!not_demand(WAIT_RESOURCES, 5));
	ck_assert(!not_demand(WAIT_PRIORITY, 5));
	ck_assert(!not_demand(WAIT_NO_REASON, 5));
	/* held by a user or an admin: not demand */
	ck_assert(not_demand(WAIT_HELD, 0));
	ck_assert(not_demand(WAIT_HELD_USER, 0));
	/* held by gpuquota (its text): demand */
	f = waiting(WAIT_HELD, 0);
	f.state_desc = GQ_HOLD_PREFIX " project a would pass its gpu_limit";
	ck_assert(!gq_facts_not_demand(&f, 100));
	f.state_desc = "held by an admin";
	ck_assert(gq_facts_not_demand(&f, 100));
	/* gpuquota's hold whose priority Slurm's main cycle put back (the
	 * hold was written inside the cycle): still gpuquota's, so demand,
	 * and the next pass writes it again; a user's hold never is */
	f = waiting(WAIT_HELD, 4000);
	f.state_desc = GQ_HOLD_PREFIX " GPUs are being reclaimed for job 7 of a";
	ck_assert(gq_facts_held_by_us(f.reason, f.state_desc));
	ck_assert(!gq_facts_not_demand(&f, 100));
	f.reason = WAIT_HELD_USER;
	ck_assert(!gq_facts_held_by_us(f.reason, f.state_desc));
	ck_assert(gq_facts_not_demand(&f, 100));
	ck_assert(!gq_facts_held_by_us(WAIT_HELD, NULL));
	/* a dependency, begin time */
	f = waiting(WAIT_DEPENDENCY, 5);
	f.depends = true;
	ck_assert(gq_facts_not_demand(&f, 100));
	/* Slurm's label for a job whose gpuquota hold its main scheduler
	 * undid (no dependency): demand */
	ck_assert(!not_demand(WAIT_DEPENDENCY, 5));
	f = waiting(WAIT_TIME, 5);
	f.begin_time = 200;
	ck_assert(gq_facts_not_demand(&f, 100));
	ck_assert(!gq_facts_not_demand(&f, 200));
	/* Slurm's association and QOS limits */
	ck_assert(not_demand(WAIT_ASSOC_GRP_GRES, 5));
	ck_assert(not_demand(WAIT_QOS_GRP_GRES, 5));
	ck_assert(not_demand(WAIT_QOS_MAX_GRES_PER_USER, 5));
	ck_assert(not_demand(WAIT_ASSOC_RESOURCE_LIMIT, 5));
	ck_assert(not_demand(WAIT_QOS_MIN_BILLING, 5));
	ck_assert(!gq_reason_slurm_limited(WAIT_RESV_DELETED));
}
END_TEST

/* QOS priority first, nice breaks ties (lower nice first), whatever nice */
START_TEST(facts_order)
{
	ck_assert_int_gt(gq_job_order(1, NICE_OFFSET + 1000000),
			 gq_job_order(0, NICE_OFFSET - 1000000));
	ck_assert_int_gt(gq_job_order(0, NICE_OFFSET - 10),
			 gq_job_order(0, NICE_OFFSET));
	ck_assert_int_gt(gq_job_order(0, NICE_OFFSET),
			 gq_job_order(0, NICE_OFFSET + 10));
	ck_assert_int_eq(gq_job_order(0, NICE_OFFSET), 0);
	ck_assert_int_gt(gq_job_order(UINT32_MAX, NICE_OFFSET + INT32_MAX),
			 gq_job_order(INT32_MAX - 1, 0));
}
END_TEST

/* multifactor's most: the weights' sum, PriorityWeightTRES's included */
START_TEST(facts_priority_weights)
{
	/* Age, Assoc, Fairshare, JobSize, Partition, QOS */
	uint32_t w[GQ_PRIORITY_WEIGHTS] = { 1000, 0, 10000, 0, 0, 2000 };

	/* 1000 + 10000 + 2000 + 500 + 0.25 + 3000 */
	ck_assert_double_eq_tol(gq_priority_weights(w, "CPU=500,Mem=0.25,GRES/gpu=3000"),
				16500.25, 1e-9);
	/* bad or negative TRES weights count 0 */
	ck_assert_double_eq_tol(gq_priority_weights(w, "CPU=x,GRES/gpu=-5"),
				13000, 1e-9);
	ck_assert_double_eq_tol(gq_priority_weights(w, NULL), 13000, 1e-9);
}
END_TEST

/* a client reads multifactor's part back: priority less (site - NICE) */
START_TEST(facts_priority_part)
{
	/* site NICE_OFFSET + 1400016384, priority 1400016885: part 501 */
	ck_assert_double_eq_tol(gq_priority_part(1400016885u,
						 NICE_OFFSET + 1400016384u),
				501, 1e-9);
	/* a neutral site factor: the whole priority is multifactor's */
	ck_assert_double_eq_tol(gq_priority_part(7000, NICE_OFFSET), 7000, 1e-9);
	ck_assert_double_eq_tol(gq_priority_part(0, NICE_OFFSET + 5), 0, 1e-9);
}
END_TEST

/* A pending array of 4 tasks x 2 GPUs: 2 GPUs a task, 4 tasks of demand. */
START_TEST(facts_input)
{
	gq_job_facts_t f = waiting(WAIT_PRIORITY, 7);
	gq_job_in_t in;

	f.gpus = 2;
	f.array_tasks = 4;
	f.gpus_per_node = 2;
	f.submit_time = 50;
	gq_job_input(&f, 100, &in);
	ck_assert_int_eq(in.state, GQ_JOB_PENDING);
	ck_assert_uint_eq(in.gpus, 2);
	ck_assert_uint_eq(in.tasks, 4);
	ck_assert_uint_eq(in.nodes, 1);	/* unknown: one */
	ck_assert_uint_eq(in.gpus_per_node, 2);
	ck_assert(in.requeueable);
	ck_assert_int_eq(in.submit_time, 50);
	/* an array throttled %2 with one task running: one more at once;
	 * with two running, the next when one ends: one */
	f.array_throttle = 2;
	f.array_running = 1;
	gq_job_input(&f, 100, &in);
	ck_assert_uint_eq(in.tasks_at_once, 1);
	f.array_running = 0;
	gq_job_input(&f, 100, &in);
	ck_assert_uint_eq(in.tasks_at_once, 2);
	f.array_running = 2;
	gq_job_input(&f, 100, &in);
	ck_assert_uint_eq(in.tasks_at_once, 1);
	f.array_throttle = 0;
	f.array_running = 0;
	/* waiting on its own throttle: demand, not a policy limit */
	ck_assert(!gq_reason_slurm_limited(WAIT_ARRAY_TASK_LIMIT));
	/* a requeued job waiting for its begin time begins later on its
	 * own, and so does one on a dependency (another job's end clears
	 * it); one held by a person does not */
	f.begin_time = 200;
	f.reason = WAIT_TIME;
	gq_job_input(&f, 100, &in);
	ck_assert_int_eq(in.state, GQ_JOB_WAITING);
	ck_assert(in.begins_later);
	f.begin_time = 0;
	f.reason = WAIT_DEPENDENCY;
	f.depends = true;
	gq_job_input(&f, 100, &in);
	ck_assert_int_eq(in.state, GQ_JOB_WAITING);
	ck_assert(in.begins_later);
	/* Slurm's label on a job whose priority its cycle put back, without
	 * a dependency: demand, not waiting */
	f.depends = false;
	gq_job_input(&f, 100, &in);
	ck_assert_int_eq(in.state, GQ_JOB_PENDING);
	ck_assert(!in.begins_later);
	f.begin_time = 200;
	f.reason = WAIT_HELD;
	f.priority = 0;
	gq_job_input(&f, 100, &in);
	ck_assert(!in.begins_later);
	f.state_desc = GQ_HOLD_PREFIX " project a would pass its gpu_limit";
	gq_job_input(&f, 100, &in);
	ck_assert(in.begins_later);	/* our own hold: still begins later */
	f.state_desc = NULL;
	f.priority = 7;
	f.begin_time = 0;
	/* interactive work is not requeueable; running: tasks 1 */
	f.job_state = JOB_RUNNING;
	f.batch = false;
	f.start_time = 60;
	gq_job_input(&f, 100, &in);
	ck_assert_int_eq(in.state, GQ_JOB_RUNNING);
	ck_assert(!in.requeueable);
	ck_assert_uint_eq(in.tasks, 1);
	ck_assert_int_eq(in.start_time, 60);
	/* revoked siblings do not count, running and suspended jobs do */
	f.job_state = JOB_PENDING | JOB_REVOKED;
	ck_assert(!gq_facts_active(&f));
	f.job_state = JOB_SUSPENDED;
	ck_assert(gq_facts_active(&f) && gq_facts_running(&f));
	f.job_state = JOB_COMPLETE;
	ck_assert(!gq_facts_active(&f));
}
END_TEST

/* pending array task lists as libslurm prints them */
START_TEST(facts_array_tasks)
{
	ck_assert_uint_eq(gq_array_task_count("0-3"), 4);
	ck_assert_uint_eq(gq_array_task_count("0-3%2"), 4);
	ck_assert_uint_eq(gq_array_task_count("1,3,5-7"), 5);
	ck_assert_uint_eq(gq_array_task_count("0-15:4"), 4);
	ck_assert_uint_eq(gq_array_task_count("7"), 1);
	ck_assert_uint_eq(gq_array_task_count(NULL), 0);
	ck_assert_uint_eq(gq_array_task_count(""), 0);
	/* truncated ("...") or foreign text: not a count */
	ck_assert_uint_eq(gq_array_task_count("0-3,5,..."), 0);
	ck_assert_uint_eq(gq_array_task_count("3-1"), 0);
}
END_TEST

START_TEST(facts_pool)
{
	char *parts[] = { "gpu", "a100" };
	gq_config_t cfg = { 0 };

	ck_assert(gq_pool_has(&cfg, "anything"));	/* no pool: all */
	ck_assert(gq_pool_has(&cfg, NULL));
	cfg.settings.partitions = parts;
	cfg.settings.npartitions = 2;
	ck_assert(gq_pool_has(&cfg, "gpu"));
	ck_assert(gq_pool_has(&cfg, "cpu,a100"));	/* any listed */
	ck_assert(!gq_pool_has(&cfg, "gpux"));
	ck_assert(!gq_pool_has(&cfg, "cpu,gp"));
	ck_assert(!gq_pool_has(&cfg, ""));
	ck_assert(!gq_pool_has(&cfg, NULL));
	/* a started job runs in the first of its partitions */
	ck_assert(gq_pool_has_job(&cfg, "cpu,gpu", false));
	ck_assert(!gq_pool_has_job(&cfg, "cpu,gpu", true));
	ck_assert(gq_pool_has_job(&cfg, "gpu,cpu", true));
}
END_TEST

START_TEST(facts_nodes)
{
	ck_assert(gq_node_takes_work(NODE_STATE_IDLE));
	ck_assert(gq_node_takes_work(NODE_STATE_MIXED));
	ck_assert(gq_node_takes_work(NODE_STATE_ALLOCATED | NODE_STATE_COMPLETING));
	ck_assert(!gq_node_takes_work(NODE_STATE_DOWN));
	ck_assert(!gq_node_takes_work(NODE_STATE_FUTURE));
	ck_assert(!gq_node_takes_work(NODE_STATE_IDLE | NODE_STATE_DRAIN));
	ck_assert(!gq_node_takes_work(NODE_STATE_MIXED | NODE_STATE_NO_RESPOND));
	/* 8 GPUs, 3 held: all count while it takes work; a draining node
	 * counts what its jobs still hold; a down node nothing */
	ck_assert_uint_eq(gq_node_capacity(NODE_STATE_MIXED, 8, 3), 8);
	ck_assert_uint_eq(gq_node_capacity(NODE_STATE_MIXED | NODE_STATE_DRAIN, 8, 3), 3);
	ck_assert_uint_eq(gq_node_capacity(NODE_STATE_IDLE | NODE_STATE_DRAIN, 8, 0), 0);
	ck_assert_uint_eq(gq_node_capacity(NODE_STATE_DOWN, 8, 3), 0);
	/* slurmd gone, not yet DOWN (SlurmdTimeout): its jobs still count in
	 * their projects, so their GPUs stay in C until Slurm requeues them
	 * (test_node_failure); was 0, and projects then held more than C */
	ck_assert_uint_eq(gq_node_capacity(NODE_STATE_MIXED | NODE_STATE_NO_RESPOND, 8, 3), 3);
	ck_assert_uint_eq(gq_node_capacity(NODE_STATE_IDLE | NODE_STATE_NO_RESPOND, 8, 0), 0);
	ck_assert_uint_eq(gq_node_capacity(NODE_STATE_DOWN | NODE_STATE_NO_RESPOND, 8, 3), 0);
}
END_TEST

static bool _only_team_a(const char *account, void *ctx)
{
	(void)ctx;
	return !strcmp(account, "team-a");
}

static void _count(const char *line, void *ctx)
{
	ck_assert_ptr_nonnull(strstr(line, "account team-b does not exist in slurmdbd"));
	(*(int *)ctx)++;
}

START_TEST(facts_missing_accounts)
{
	char *accts[] = { "team-a", "team-b" };
	gq_project_cfg_t p = { .name = "team", .accounts = accts,
			       .naccounts = 2, .department = -1 };
	gq_config_t cfg = { .projects = &p, .nprojects = 1 };
	int n = 0;

	gq_missing_accounts(&cfg, _only_team_a, NULL, _count, &n);
	ck_assert_int_eq(n, 1);
}
END_TEST

/*
 * The checkpoint note in a job's comment: "gpuquota-checkpoint=<id>@<t>".
 * At now = 1000: job 7's note at 990 is its checkpoint; at 1030 (the
 * node's clock 30 s ahead, within the 60 s skew) it is now; at 1061 it is
 * in the future, ignored; a note for job 8 (a comment copied from it) and
 * notes that are not "<id>@<time>" are ignored.  A running job's input
 * carries it (saved_secs, from its start); one from before its start
 * (an earlier run's) counts as none.
 */
START_TEST(facts_checkpoint_read)
{
	gq_job_facts_t f = { .id = 7, .job_state = JOB_RUNNING, .gpus = 1,
			     .start_time = 900 };
	gq_job_in_t in;
	int64_t at;

	ck_assert_int_eq(gq_facts_saved_at(NULL, 7, 1000, &at), GQ_SAVED_NONE);
	ck_assert_int_eq(gq_facts_saved_at("run 3", 7, 1000, &at), GQ_SAVED_NONE);
	ck_assert_int_eq(gq_facts_saved_at("run 3 gpuquota-checkpoint=7@990", 7,
					   1000, &at), GQ_SAVED_OK);
	ck_assert_int_eq(at, 990);
	ck_assert_int_eq(gq_facts_saved_at("gpuquota-checkpoint=7@1030 x", 7,
					   1000, &at), GQ_SAVED_OK);
	ck_assert_int_eq(at, 1000);
	ck_assert_int_eq(gq_facts_saved_at("gpuquota-checkpoint=7@1061", 7,
					   1000, &at), GQ_SAVED_FUTURE);
	ck_assert_int_eq(at, 0);
	ck_assert_int_eq(gq_facts_saved_at("gpuquota-checkpoint=8@990", 7,
					   1000, &at), GQ_SAVED_FOREIGN);
	ck_assert_int_eq(gq_facts_saved_at("gpuquota-checkpoint=7@99x", 7,
					   1000, &at), GQ_SAVED_BAD);
	ck_assert_int_eq(gq_facts_saved_at("gpuquota-checkpoint=-7@990", 7,
					   1000, &at), GQ_SAVED_BAD);
	ck_assert_int_eq(gq_facts_saved_at("gpuquota-checkpoint=7@", 7,
					   1000, &at), GQ_SAVED_BAD);
	ck_assert_int_eq(gq_facts_saved_at("gpuquota-checkpoint=7@99999999999999999999999",
					   7, 1000, &at), GQ_SAVED_BAD);

	f.comment = "gpuquota-checkpoint=7@990";
	gq_job_input(&f, 1000, &in);
	ck_assert_int_eq(in.state, GQ_JOB_RUNNING);
	ck_assert_uint_eq(in.saved_secs, 90);	/* 990 - 900 */
	f.comment = "gpuquota-checkpoint=8@990";
	gq_job_input(&f, 1000, &in);
	ck_assert_uint_eq(in.saved_secs, 0);
	f.comment = "gpuquota-checkpoint=7@850";	/* an earlier run's */
	gq_job_input(&f, 1000, &in);
	ck_assert_uint_eq(in.saved_secs, 0);
}
END_TEST

/*
 * The note written: added after the rest of the comment, an earlier note
 * replaced where it was (the text around it kept), nothing past Slurm's
 * length limit.
 */
START_TEST(facts_checkpoint_written)
{
	char *c;

	c = gq_facts_with_checkpoint(NULL, 7, 100, 1024);
	ck_assert_str_eq(c, "gpuquota-checkpoint=7@100");
	free(c);
	c = gq_facts_with_checkpoint("run A", 7, 100, 1024);
	ck_assert_str_eq(c, "run A gpuquota-checkpoint=7@100");
	free(c);
	c = gq_facts_with_checkpoint("run A gpuquota-checkpoint=7@50 tail", 7,
				     100, 1024);
	ck_assert_str_eq(c, "run A tail gpuquota-checkpoint=7@100");
	free(c);
	c = gq_facts_with_checkpoint("gpuquota-checkpoint=7@50", 7, 100, 1024);
	ck_assert_str_eq(c, "gpuquota-checkpoint=7@100");
	free(c);
	/* 5 + 1 + 25 = 31 characters: not into 30 */
	ck_assert_ptr_null(gq_facts_with_checkpoint("run A", 7, 100, 30));
	c = gq_facts_with_checkpoint("run A", 7, 100, 31);
	ck_assert_uint_eq(strlen(c), 31);
	free(c);
}
END_TEST

/*
 * gpuquota's reclaim note in an admin comment (docs/MODEL.md "Ledger"):
 * the site's text kept before it, an earlier reclaim note replaced (a
 * victim warned, then requeued), a checkpoint-like word of another key
 * left alone; nothing past the bound.
 */
START_TEST(facts_reclaim_note_written)
{
	char note[GQ_RECLAIM_NOTE_MAX], *c, *d;

	ck_assert_int_gt(gq_facts_reclaim_note(note, sizeof(note), 12, "team-b",
					       "quota", "warned", 1200, 1000),
			 0);
	ck_assert_str_eq(note, "gpuquota-reclaim=for:12,of:team-b,reason:quota,stage:warned,gpu_seconds_lost:1200,run_start:1000");
	c = gq_facts_with_note("nhc: ok gpuquota-checkpoint=7@50", note, 1024);
	ck_assert_str_eq(c, "nhc: ok gpuquota-checkpoint=7@50 gpuquota-reclaim=for:12,of:team-b,reason:quota,stage:warned,gpu_seconds_lost:1200,run_start:1000");
	gq_facts_reclaim_note(note, sizeof(note), 12, "team-b", "quota",
			      "requeued_after_grace", 2, 1000);
	d = gq_facts_with_note(c, note, 1024);
	ck_assert_str_eq(d, "nhc: ok gpuquota-checkpoint=7@50 gpuquota-reclaim=for:12,of:team-b,reason:quota,stage:requeued_after_grace,gpu_seconds_lost:2,run_start:1000");
	free(c);
	free(d);
	ck_assert_ptr_null(gq_facts_with_note("nhc: ok", note, 50));
	ck_assert_int_eq(gq_facts_reclaim_note(note, 20, 12, "team-b", "quota",
					       "warned", 1, 1000),
			 -1);
}
END_TEST

/* A moved job's system comment as preempt/gpuquota writes it (warned, or
 * its run ended), restarting on `node`, into c (512 bytes). */
static const char *moved_comment(char *c, bool warned, const char *node)
{
	char why[192];

	snprintf(why, sizeof(why), GQ_MOVED_WHY, node);
	if (warned)
		snprintf(c, 512, GQ_RECLAIMED_WARNED, 10u, "team-a", why);
	else
		snprintf(c, 512, GQ_RECLAIMED_LOST, 10u, "team-a", why, 52ULL);
	return c;
}

/*
 * The node a moved job restarts on is read back from its system comment,
 * warned or requeued; not from "another node", another reclaim's comment,
 * a site's text or a name too long for the buffer.  Slurm's requeue
 * delay: cred_expire 10 gives 11 s; requeue_delay 5 gives 6 s from Slurm
 * 25.11 (before it, cred_expire's); neither, 121 s.
 */
START_TEST(facts_moved_to_read_back)
{
	char c[512], name[GQ_NODE_NAME_MAX];

	ck_assert(gq_facts_moved_to(moved_comment(c, true, "gpu-n17"), name,
				    sizeof(name)));
	ck_assert_str_eq(name, "gpu-n17");
	ck_assert(gq_facts_moved_to(moved_comment(c, false, "n1"), name,
				    sizeof(name)));
	ck_assert_str_eq(name, "n1");
	ck_assert(!gq_facts_moved_to(moved_comment(c, false, "another node"),
				     name, sizeof(name)));
	ck_assert(!gq_facts_moved_to(moved_comment(c, false, "gpu-n17"), name,
				     7));
	ck_assert(!gq_facts_moved_to("gpuquota: reclaimed for job 10 of team-a (in quota), 52 GPU-seconds lost",
				     name, sizeof(name)));
	ck_assert(!gq_facts_moved_to("site: this one restarts on n1, where GPUs are idle",
				     name, sizeof(name)));
	ck_assert(!gq_facts_moved_to(NULL, name, sizeof(name)));
	ck_assert_int_eq(gq_facts_requeue_delay("", "socket=/s,cred_expire=10"),
			 11);
	ck_assert_int_eq(gq_facts_requeue_delay("bf_continue,requeue_delay=5",
						"cred_expire=10"),
			 SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0) ?
				 6 : 11);
	ck_assert_int_eq(gq_facts_requeue_delay(NULL, NULL), 121);
}
END_TEST

/*
 * A job on a dependency Slurm has not found met (its list not empty) is
 * read as waiting on it whatever its reason: Dependency (Slurm's test),
 * gpuquota's hold (which replaces that reason; Slurm tests no held job's
 * dependency), and no reason (gpuquota released it, Slurm has not tested
 * it since).  So gpuquota's own hold and release do not change how the
 * next pass reads it.  Without a dependency, gpuquota's hold is demand.
 */
START_TEST(facts_dependency_whatever_reason)
{
	gq_job_facts_t f = waiting(WAIT_DEPENDENCY, 5);
	gq_job_in_t in;
	int i;
	struct {
		uint32_t reason, priority;
		const char *desc;
	} r[] = {
		{ WAIT_DEPENDENCY, 5, NULL },
		{ WAIT_HELD, 0, GQ_HOLD_PREFIX " project a would pass its gpu_limit (2 GPUs)" },
		{ WAIT_NO_REASON, 5, NULL },
	};

	f.depends = true;
	for (i = 0; i < 3; i++) {
		f.reason = r[i].reason;
		f.priority = r[i].priority;
		f.state_desc = r[i].desc;
		gq_job_input(&f, 100, &in);
		ck_assert_msg(in.state == GQ_JOB_WAITING && in.begins_later,
			      "reason %u: state %d, begins_later %d", r[i].reason,
			      in.state, in.begins_later);
		ck_assert(gq_facts_not_demand(&f, 100));
	}
	/* met (Slurm emptied the list): gpuquota's hold is demand */
	f.depends = false;
	f.reason = WAIT_HELD;
	f.priority = 0;
	f.state_desc = r[1].desc;
	gq_job_input(&f, 100, &in);
	ck_assert_int_eq(in.state, GQ_JOB_PENDING);
	ck_assert(!in.begins_later);
}
END_TEST

Suite *job_facts_suite(void)
{
	Suite *s = suite_create("job_facts");
	TCase *tc = tcase_create("job_facts");

	tcase_add_test(tc, facts_demand);
	tcase_add_test(tc, facts_order);
	tcase_add_test(tc, facts_priority_weights);
	tcase_add_test(tc, facts_priority_part);
	tcase_add_test(tc, facts_input);
	tcase_add_test(tc, facts_dependency_whatever_reason);
	tcase_add_test(tc, facts_checkpoint_read);
	tcase_add_test(tc, facts_checkpoint_written);
	tcase_add_test(tc, facts_reclaim_note_written);
	tcase_add_test(tc, facts_moved_to_read_back);
	tcase_add_test(tc, facts_array_tasks);
	tcase_add_test(tc, facts_pool);
	tcase_add_test(tc, facts_nodes);
	tcase_add_test(tc, facts_missing_accounts);
	suite_add_tcase(s, tc);
	return s;
}
