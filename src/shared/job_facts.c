/*
 * job_facts.c - Slurm's job, node and account facts as the core's input
 * (see job_facts.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "shared/job_facts.h"
#define GQ_SLURM_PUBLIC_ONLY
#include "shared/slurm_compat.h"
#include "state/state.h"

/* Room for one line about a missing account. */
#define GQ_LINE_MAX 512

bool gq_facts_running(const gq_job_facts_t *f)
{
	uint32_t base = f->job_state & JOB_STATE_BASE;

	return base == JOB_RUNNING || base == JOB_SUSPENDED;
}

bool gq_facts_active(const gq_job_facts_t *f)
{
	if (gq_facts_running(f))
		return true;
	return (f->job_state & JOB_STATE_BASE) == JOB_PENDING &&
	       !(f->job_state & JOB_REVOKED);
}

/*
 * Whatever the priority: a hold written during Slurm's main scheduling
 * cycle (a reclaim's first victim) gets its priority back from that
 * cycle's queue (job_scheduler.c: `job_ptr->priority =
 * job_queue_rec->priority`) while reason and text stay ours, and Slurm
 * still will not start it (job_independent() refuses WAIT_HELD).
 */
bool gq_facts_held_by_us(uint32_t reason, const char *state_desc)
{
	return reason == WAIT_HELD && state_desc &&
	       !strncmp(state_desc, GQ_HOLD_PREFIX, strlen(GQ_HOLD_PREFIX));
}

bool gq_facts_hold_handed_over(uint32_t priority, uint32_t reason,
			       const char *state_desc, uint32_t requested)
{
	return requested == 0 && priority == 0 &&
	       gq_facts_held_by_us(reason, state_desc);
}

uint32_t gq_facts_reclaimed_for(const char *system_comment)
{
	size_t n = strlen(GQ_RECLAIMED_FOR);
	unsigned long id;
	char *end;

	if (!system_comment || strncmp(system_comment, GQ_RECLAIMED_FOR, n) ||
	    !isdigit((unsigned char)system_comment[n]))
		return 0;
	errno = 0;
	id = strtoul(system_comment + n, &end, 10);
	if (errno || id > UINT32_MAX || (*end && *end != ' '))
		return 0;
	return (uint32_t)id;
}

bool gq_facts_reclaim_of(const gq_job_facts_t *f, const char *system_comment,
			 int64_t preempt_time, int64_t end_time,
			 uint32_t *preemptor, int64_t *since, int *grace)
{
	uint32_t id;

	if (!gq_facts_running(f) || preempt_time <= 0 ||
	    !(id = gq_facts_reclaimed_for(system_comment)))
		return false;
	*preemptor = id;
	*since = preempt_time;
	*grace = end_time > preempt_time ?
		 (int)(end_time - preempt_time > INT32_MAX ?
		       INT32_MAX : end_time - preempt_time) : 0;
	return true;
}

gq_grace_state_t gq_facts_grace_state(uint32_t job_state)
{
	uint32_t base = job_state & JOB_STATE_BASE;

	if (base == JOB_RUNNING)
		return GQ_GRACE_RUNNING;
	if (job_state & JOB_COMPLETING)
		return GQ_GRACE_COMPLETING;
	if (base == JOB_PENDING)
		return GQ_GRACE_PENDING;
	if (base == JOB_COMPLETE || base == JOB_FAILED)
		return GQ_GRACE_EXITED;
	return GQ_GRACE_OTHER;
}

bool gq_facts_warned_comment(const char *system_comment)
{
	return system_comment && strstr(system_comment, ", warned:");
}

bool gq_facts_reclaim_comment(const char *system_comment,
			      gq_grace_comment_t *c)
{
	return system_comment &&
	       sscanf(system_comment, GQ_RECLAIMED_FOR "%u of %64s (%15[^)])",
		      &c->preemptor, c->project, c->band) == 3;
}

bool gq_facts_requeued_within(const gq_job_facts_t *f, int64_t now,
			      int window)
{
	return (f->job_state & JOB_STATE_BASE) == JOB_PENDING &&
	       f->submit_time > 0 && f->submit_time <= now &&
	       now - f->submit_time < window;
}

bool gq_facts_requeued_for(const gq_job_facts_t *f, const char *system_comment,
			   int64_t now, uint32_t *preemptor, int64_t *since)
{
	uint32_t id;

	if (!gq_facts_requeued_within(f, now, GQ_RECLAIM_WAIT) ||
	    !(id = gq_facts_reclaimed_for(system_comment)))
		return false;
	*preemptor = id;
	*since = f->submit_time;
	return true;
}

bool gq_facts_moved_to(const char *system_comment, char *name, size_t size)
{
	const char *at, *end;
	size_t n;

	if (!gq_facts_reclaimed_for(system_comment) ||
	    !(at = strstr(system_comment, GQ_MOVED_TO)))
		return false;
	at += strlen(GQ_MOVED_TO);
	if (!(end = strstr(at, ", where GPUs")))
		return false;
	n = (size_t)(end - at);
	if (!n || n >= size || !strncmp(at, "another node", n))
		return false;
	memcpy(name, at, n);
	name[n] = '\0';
	return true;
}

/* The number after `key` in the comma-separated `params`; -1: none. */
static int _param(const char *params, const char *key)
{
	const char *v = params ? strcasestr(params, key) : NULL;

	return v ? atoi(v + strlen(key)) : -1;
}

int gq_facts_requeue_delay(const char *sched_params, const char *authinfo)
{
	int v;

#if GQ_SLURM_AT_LEAST(25, 11)
	if ((v = _param(sched_params, "requeue_delay=")) >= 0)
		return v + 1;
#else
	(void)sched_params;
#endif
	if ((v = _param(authinfo, "cred_expire=")) >= 0)
		return v + 1;
	return 121;
}

/* Slurm keeps most of these reasons in one range of job_state_reason. */
bool gq_reason_slurm_limited(uint32_t reason)
{
	switch (reason) {
	case WAIT_ASSOC_JOB_LIMIT:
	case WAIT_ASSOC_RESOURCE_LIMIT:
	case WAIT_ASSOC_TIME_LIMIT:
	case WAIT_QOS_JOB_LIMIT:
	case WAIT_QOS_RESOURCE_LIMIT:
	case WAIT_QOS_TIME_LIMIT:
	case WAIT_QOS_THRES:
	case WAIT_QOS:
	case WAIT_ACCOUNT:
	case WAIT_DEP_INVALID:
		return true;
	case WAIT_ARRAY_TASK_LIMIT:
		/* the user's own %N throttle, not a policy: the array is
		 * demand, and a task starts on its own when one ends */
		return false;
	default:
		return reason >= WAIT_QOS_GRP_CPU &&
		       reason <= WAIT_QOS_MIN_BILLING;
	}
}

/* Held by a user or an admin (priority 0 or a hold reason, not ours). */
static bool _held_by_person(const gq_job_facts_t *f)
{
	if (gq_facts_held_by_us(f->reason, f->state_desc))
		return false;
	return f->priority == 0 || f->reason == WAIT_HELD ||
	       f->reason == WAIT_HELD_USER;
}

/*
 * Waiting for another job: Slurm has not emptied its dependency list,
 * which it does once the dependency is met.  Not the reason: gpuquota's
 * hold replaces Dependency with its own, and a release clears it until
 * Slurm's next test, so reading the reason would flip the job between
 * waiting and eligible at every hold and release (docs/MODEL.md
 * "Holds").  And Slurm labels Dependency a job without one whose
 * gpuquota hold its main cycle undid (docs/DEVELOPING.md): demand.
 */
static bool _depends(const gq_job_facts_t *f)
{
	return f->depends;
}

bool gq_facts_not_demand(const gq_job_facts_t *f, int64_t now)
{
	if (_held_by_person(f))
		return true;
	return _depends(f) || f->begin_time > now ||
	       gq_reason_slurm_limited(f->reason);
}

/*
 * One QOS priority step outweighs any nice: nice - NICE_OFFSET is an
 * int32, so the order is lexicographic, QOS first.
 */
#define GQ_ORDER_QOS_STEP ((int64_t)1 << 32)

int64_t gq_job_order(uint32_t qos_priority, uint32_t nice)
{
	int64_t qos = qos_priority > INT32_MAX ? INT32_MAX : qos_priority;

	return qos * GQ_ORDER_QOS_STEP - ((int64_t)nice - NICE_OFFSET);
}

/* One entry "a", "a-b" or "a-b:s" of length n; 0 when not one. */
static uint64_t _tasks_in(const char *s, size_t n)
{
	char *end;
	unsigned long a, b, step = 1;

	a = strtoul(s, &end, 10);
	if (end == s)
		return 0;
	if ((size_t)(end - s) == n)
		return 1;
	if (*end != '-')
		return 0;
	b = strtoul(s = end + 1, &end, 10);
	if (end == s || b < a)
		return 0;
	if (*end == ':') {
		step = strtoul(s = end + 1, &end, 10);
		if (end == s || !step)
			return 0;
	}
	return *end && *end != ',' && *end != '%' ? 0 : (b - a) / step + 1;
}

uint32_t gq_array_task_count(const char *tasks)
{
	const char *p = tasks;
	uint64_t n = 0, k;

	if (!p || !*p)
		return 0;
	while (*p && *p != '%') {
		size_t len = strcspn(p, ",%");

		if (!(k = _tasks_in(p, len)))
			return 0;
		n += k;
		p += len;
		if (*p == ',')
			p++;
	}
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* How far into a running job's run its last checkpoint was (0: none, or
 * one from before this run, an earlier start's). */
static uint32_t _saved_secs(const gq_job_facts_t *f, int64_t now)
{
	int64_t at, s;

	if (gq_facts_saved_at(f->comment, f->id, now, &at) != GQ_SAVED_OK ||
	    at <= f->start_time)
		return 0;
	s = at - f->start_time;
	return s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
}

uint32_t gq_facts_limit_secs(uint32_t minutes)
{
	if (minutes >= 0xfffffffeu)	/* INFINITE, NO_VAL */
		return 0;
	return minutes > UINT32_MAX / 60 ? UINT32_MAX : minutes * 60;
}

void gq_job_input(const gq_job_facts_t *f, int64_t now, gq_job_in_t *out)
{
	memset(out, 0, sizeof(*out));
	out->id = f->id;
	out->tasks = 1;
	out->gpus = f->gpus > UINT32_MAX ? UINT32_MAX : (uint32_t)f->gpus;
	if (gq_facts_running(f)) {
		out->state = GQ_JOB_RUNNING;
	} else {
		out->state = gq_facts_not_demand(f, now) ? GQ_JOB_WAITING :
							   GQ_JOB_PENDING;
		/* eligible on its own, without a pass: its begin time
		 * passes (a requeued job) or another job's end clears its
		 * dependency, and Slurm may start it at once */
		out->begins_later = out->state == GQ_JOB_WAITING &&
				    (f->begin_time > now || _depends(f)) &&
				    !_held_by_person(f) &&
				    !gq_reason_slurm_limited(f->reason);
		if (f->array_tasks > 1)
			out->tasks = f->array_tasks;
		/* with a throttle, at most that many run; when all run, the
		 * next starts as soon as one ends: count one */
		if (f->array_throttle)
			out->tasks_at_once = f->array_throttle > f->array_running ?
					     f->array_throttle - f->array_running : 1;
		out->gpus_per_node = f->gpus_per_node > UINT32_MAX ?
				     UINT32_MAX : (uint32_t)f->gpus_per_node;
		out->nodes = f->nodes ? f->nodes : 1;
	}
	/* --no-requeue and interactive (srun/salloc) work is not requeueable */
	out->requeueable = f->batch && f->requeue;
	out->order = gq_job_order(f->qos_priority, f->nice);
	if (out->state == GQ_JOB_RUNNING)
		out->ends_by = f->end_time;
	else
		out->submit_time = f->submit_time;
	out->start_time = f->start_time;
	if (out->state == GQ_JOB_RUNNING)
		out->saved_secs = _saved_secs(f, now);
	else
		out->time_limit = f->time_limit;
}

gq_saved_t gq_facts_saved_at(const char *comment, uint32_t id, int64_t now,
			     int64_t *at)
{
	const char *p = comment ? strstr(comment, GQ_CHECKPOINT_KEY) : NULL;
	unsigned long long job, t;
	char *end;

	*at = 0;
	if (!p)
		return GQ_SAVED_NONE;
	p += sizeof(GQ_CHECKPOINT_KEY) - 1;
	/* digits, '@', digits, then the end or a blank; nothing else */
	if (!isdigit((unsigned char)*p))
		return GQ_SAVED_BAD;
	errno = 0;
	job = strtoull(p, &end, 10);
	if (*end != '@' || !isdigit((unsigned char)end[1]))
		return GQ_SAVED_BAD;
	t = strtoull(end + 1, &end, 10);
	if (errno || (*end && !isspace((unsigned char)*end)))
		return GQ_SAVED_BAD;
	if (job != id)
		return GQ_SAVED_FOREIGN;
	if (t > INT64_MAX || (int64_t)t > now + GQ_CHECKPOINT_SKEW)
		return GQ_SAVED_FUTURE;
	*at = (int64_t)t > now ? now : (int64_t)t;
	return GQ_SAVED_OK;
}

const char *gq_saved_text(gq_saved_t s)
{
	switch (s) {
	case GQ_SAVED_OK:
		return "a checkpoint";
	case GQ_SAVED_FUTURE:
		return "a checkpoint time in the future (ignored)";
	case GQ_SAVED_FOREIGN:
		return "another job's checkpoint (ignored)";
	case GQ_SAVED_BAD:
		return "a checkpoint note that is not <job id>@<unix time> (ignored)";
	default:
		return "no checkpoint";
	}
}

char *gq_facts_with_note(const char *text, const char *note, size_t max)
{
	const char *c = text ? text : "", *eq = strchr(note, '=');
	char key[64];
	const char *old;
	size_t head, n;
	const char *tail;
	char *out;

	snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - note + 1) : 0,
		 note);
	old = *key ? strstr(c, key) : NULL;
	head = old ? (size_t)(old - c) : strlen(c);
	tail = old ? old + strcspn(old, " \t\n") : "";
	/* the rest of the text, without the old note and its blank */
	while (head && isspace((unsigned char)c[head - 1]))
		head--;
	while (isspace((unsigned char)*tail))
		tail++;
	n = head + (head ? 1 : 0) + strlen(tail) + (*tail ? 1 : 0) +
	    strlen(note);
	if (n > max || !(out = malloc(n + 1)))
		return NULL;
	snprintf(out, n + 1, "%.*s%s%s%s%s", (int)head, c, head ? " " : "",
		 tail, *tail ? " " : "", note);
	return out;
}

char *gq_facts_with_checkpoint(const char *comment, uint32_t id, int64_t at,
			       size_t max)
{
	char note[64];

	snprintf(note, sizeof(note), GQ_CHECKPOINT_KEY "%u@%lld", id,
		 (long long)at);
	return gq_facts_with_note(comment, note, max);
}

int gq_facts_reclaim_note(char *buf, size_t len, uint32_t preemptor,
			  const char *project, const char *reason,
			  const char *stage, unsigned long long lost,
			  int64_t run_start)
{
	int n = snprintf(buf, len,
			 GQ_RECLAIM_NOTE_KEY "for:%u,of:%s,reason:%s,stage:%s,gpu_seconds_lost:%llu,run_start:%lld",
			 preemptor, project, reason, stage, lost,
			 (long long)run_start);

	return n < 0 || (size_t)n >= len ? -1 : n;
}

bool gq_pool_has(const gq_config_t *cfg, const char *partitions)
{
	const char *p = partitions;
	int i;

	if (!cfg->settings.npartitions)
		return true;
	while (p && *p) {
		size_t n = strcspn(p, ",");

		for (i = 0; i < cfg->settings.npartitions; i++) {
			const char *name = cfg->settings.partitions[i];

			if (strlen(name) == n && !strncmp(p, name, n))
				return true;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

bool gq_pool_has_job(const gq_config_t *cfg, const char *partitions,
		     bool running)
{
	char first[GQ_LINE_MAX];
	size_t n;

	if (!running || !partitions || !cfg->settings.npartitions)
		return gq_pool_has(cfg, partitions);
	n = strcspn(partitions, ",");
	if (n >= sizeof(first))
		return false;	/* no partition has such a name */
	memcpy(first, partitions, n);
	first[n] = '\0';
	return gq_pool_has(cfg, first);
}

int gq_pool_of_job(gq_config_t *const *pools, int n, const char *partitions,
		   bool running)
{
	const char *p = partitions;
	char one[GQ_LINE_MAX];
	int k;

	if (!p || !*p) {	/* no partition named: only an unbounded pool */
		for (k = 0; k < n; k++)
			if (gq_pool_has(pools[k], NULL))
				return k;
		return -1;
	}
	while (*p) {
		size_t len = strcspn(p, ",");

		if (len < sizeof(one)) {
			memcpy(one, p, len);
			one[len] = '\0';
			for (k = 0; k < n; k++)
				if (gq_pool_has(pools[k], one))
					return k;
		}
		if (running)
			break;	/* it runs in the first */
		p += len;
		if (*p == ',')
			p++;
	}
	return -1;
}

bool gq_node_takes_work(uint32_t node_state)
{
	uint32_t base = node_state & NODE_STATE_BASE;

	return base != NODE_STATE_DOWN && base != NODE_STATE_FUTURE &&
	       !(node_state & (NODE_STATE_DRAIN | NODE_STATE_FAIL |
			       NODE_STATE_NO_RESPOND));
}

bool gq_node_not_responding(uint32_t node_state)
{
	return (node_state & NODE_STATE_NO_RESPOND) &&
	       (node_state & NODE_STATE_BASE) != NODE_STATE_DOWN;
}

uint64_t gq_node_capacity(uint32_t node_state, uint64_t total,
			  uint64_t allocated)
{
	uint32_t base = node_state & NODE_STATE_BASE;

	if (gq_node_takes_work(node_state))
		return total;
	if (base == NODE_STATE_DOWN || base == NODE_STATE_FUTURE)
		return 0;
	return allocated < total ? allocated : total;
}

/* one partition of key `kp`: a line when it is missing or empty */
static void _check_partition(const char *kp, const char *name,
			     int (*nodes)(const char *partition, void *ctx),
			     void (*report)(const char *line, void *ctx),
			     void *ctx)
{
	char line[GQ_LINE_MAX];
	int n = nodes(name, ctx);

	if (n > 0)
		return;
	snprintf(line, sizeof(line), n < 0 ?
		 "%s: no partition named %s in Slurm: no job can run there" :
		 "%s: partition %s has no nodes: it adds no GPUs",
		 kp, name);
	report(line, ctx);
}

void gq_missing_partitions(const gq_config_t *cfg,
			   int (*nodes)(const char *partition, void *ctx),
			   void (*report)(const char *line, void *ctx),
			   void *ctx)
{
	char kp[64];
	int i, k;

	for (i = 0; i < cfg->settings.npartitions; i++) {
		snprintf(kp, sizeof(kp), "settings.partitions[%d]", i);
		_check_partition(kp, cfg->settings.partitions[i], nodes,
				 report, ctx);
	}
	for (k = 0; k < cfg->npools; k++)
		for (i = 0; i < cfg->pools[k].npartitions; i++) {
			snprintf(kp, sizeof(kp), "pools[%d].partitions[%d]", k,
				 i);
			_check_partition(kp, cfg->pools[k].partitions[i],
					 nodes, report, ctx);
		}
}

void gq_missing_accounts(const gq_config_t *cfg,
			 bool (*exists)(const char *account, void *ctx),
			 const char *(*nearest)(const char *account, void *ctx),
			 void (*report)(const char *line, void *ctx),
			 void *ctx)
{
	char line[GQ_LINE_MAX], mean[GQ_LINE_MAX / 2];
	const char *near;
	int i, j;

	for (i = 0; i < cfg->nprojects; i++) {
		const gq_project_cfg_t *pc = &cfg->projects[i];

		for (j = 0; j < pc->naccounts; j++) {
			if (exists(pc->accounts[j], ctx))
				continue;
			near = nearest ? nearest(pc->accounts[j], ctx) : NULL;
			mean[0] = '\0';
			if (near)
				snprintf(mean, sizeof(mean),
					 "; did you mean '%s'?", near);
			snprintf(line, sizeof(line),
				 "project %s: account %s does not exist in slurmdbd: Slurm refuses its jobs where AccountingStorageEnforce has associations (`gpuquota sync` creates it)%s",
				 pc->name, pc->accounts[j], mean);
			report(line, ctx);
		}
	}
}

/* Sum of "NAME=W,..." weights (PriorityWeightTRES); bad numbers count 0. */
static double _tres_weights(const char *s)
{
	double sum = 0;
	const char *eq;

	for (; s && (eq = strchr(s, '=')); s = strchr(eq, ',')) {
		double w = strtod(eq + 1, NULL);

		if (w > 0 && isfinite(w))
			sum += w;
	}
	return sum;
}

double gq_priority_weights(const uint32_t w[GQ_PRIORITY_WEIGHTS],
			   const char *tres)
{
	double sum = _tres_weights(tres);
	int i;

	for (i = 0; i < GQ_PRIORITY_WEIGHTS; i++)
		sum += w[i];
	return sum;
}

double gq_priority_part(uint32_t priority, uint32_t site_factor)
{
	if (priority == 0)
		return 0;
	return (double)priority - ((double)site_factor - NICE_OFFSET);
}

void gq_facts_model_job(gq_job_facts_t *f, bool running, int64_t begin_time,
			int64_t now)
{
	memset(f, 0, sizeof(*f));
	f->job_state = running ? JOB_RUNNING : JOB_PENDING;
	f->batch = true;
	f->requeue = true;
	f->nice = NICE_OFFSET;
	f->priority = 1;
	f->begin_time = begin_time;
	f->reason = running ? WAIT_NO_REASON :
		    begin_time > now ? WAIT_TIME : WAIT_PRIORITY;
}

uint32_t gq_facts_model_node_state(void)
{
	return NODE_STATE_IDLE;
}
