/*
 * job_facts.h - the one reading of a Slurm job, node and partition list
 * into the core's input, for both readers of Slurm: the plugins
 * (plugins/read_slurm.c, from slurmctld's records) and the gpuquota command
 * (cli/gpuquota.c, from libslurm's public API).  Each reader only copies
 * Slurm's fields into gq_job_facts_t; every rule about what they mean is
 * here: which jobs count, which pending jobs are demand, "held by
 * gpuquota", a project's job order (QOS priority, nice), GPUs of a pending
 * array, requeueability, which nodes and partitions form the pool, a
 * victim's state and comment for grace (core/grace.h), and configured
 * accounts missing from slurmdbd.  Public slurm/slurm.h only.
 */
#ifndef GPUQUOTA_JOB_FACTS_H
#define GPUQUOTA_JOB_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <slurm/slurm.h>

#include "config/config.h"
#include "core/grace.h"
#include "core/view.h"

/* state_desc of the jobs gpuquota holds (priority 0, Reason=WAIT_HELD) */
#define GQ_HOLD_PREFIX "gpuquota:"

/* The system comment preempt/gpuquota writes on a victim, followed by
 * "<preemptor's id> of <project> (<band>)" */
#define GQ_RECLAIMED_FOR "gpuquota: reclaimed for job "
/* ... the whole text once its run ended (requeued at once, or after its
 * grace time): preemptor, its project, its band, the GPU-seconds lost */
#define GQ_RECLAIMED_LOST GQ_RECLAIMED_FOR "%u of %s (%s), %llu GPU-seconds lost"
/* ... while it is warned, in its grace time */
#define GQ_RECLAIMED_WARNED GQ_RECLAIMED_FOR "%u of %s (%s), warned: requeued when it exits or its grace time ends"
/* ... whose band, for a moved job, is this: the node it restarts on, or
 * "another node" when not known */
#define GQ_MOVED_TO "this one restarts on "
/* the longest node name gq_facts_moved_to reads back, its NUL included */
#define GQ_NODE_NAME_MAX 128
#define GQ_MOVED_WHY "moved: that job needs this node whole; " GQ_MOVED_TO "%s, where GPUs are idle or borrowed"

/* A job as Slurm describes it, in the public API's terms. */
typedef struct {
	uint32_t id;
	uint32_t job_state;	/* JOB_* base state and flags */
	uint64_t gpus;		/* allocated (running) or requested (pending),
				 * all nodes */
	uint64_t gpus_per_node;	/* pending: the per-node request, 0: none */
	uint32_t nodes;		/* pending: nodes asked for, 0: unknown */
	uint32_t array_tasks;	/* pending: tasks behind an array record */
	uint32_t array_throttle;	/* its %N: tasks it may run at once, 0: none */
	uint32_t array_running;	/* its tasks running now */
	uint32_t array_job_id;	/* a task Slurm split out of an array: the
				 * array's id (its pending record's); 0 or
				 * id itself: not such a task */
	bool batch;		/* sbatch (else srun/salloc) */
	bool requeue;		/* may be requeued (--requeue, the default) */
	uint32_t qos_priority;	/* its QOS' priority, 0 without QOS */
	uint32_t nice;		/* biased by NICE_OFFSET, as Slurm keeps it */
	uint32_t priority;	/* 0: held */
	uint32_t reason;	/* enum job_state_reason */
	const char *state_desc;	/* the reason's text, or NULL */
	bool depends;		/* a dependency Slurm has not found met:
				 * its list not empty (--dependency) */
	int64_t begin_time;	/* 0 or when it may start */
	int64_t submit_time;
	int64_t start_time;
	int64_t end_time;	/* running: when its time limit ends it; 0:
				 * no limit */
	uint32_t time_limit;	/* pending: its --time in seconds; 0: none */
	const char *comment;	/* the job's comment (--comment), where
				 * `gpuquota checkpoint` notes a checkpoint;
				 * NULL: none */
} gq_job_facts_t;

/* A job's time limit as Slurm keeps it (minutes; INFINITE 0xffffffff and
 * NO_VAL 0xfffffffe: none) in seconds, 0 for none.  O(1). */
uint32_t gq_facts_limit_secs(uint32_t minutes);

/* Running or suspended: it holds GPUs. */
bool gq_facts_running(const gq_job_facts_t *f);

/*
 * A victim a reclaim warned, as its record tells after a slurmctld
 * restart: running (f) with Slurm's preempt_time set (saved with the
 * job; its grace time runs) and gpuquota's system comment
 * (GQ_RECLAIMED_FOR) naming the preemptor, in *preemptor; *since is its
 * preempt_time and *grace the grace time it was given: its record's
 * end_time (as Slurm keeps it, whatever its time limit) less
 * preempt_time, since Slurm sets end_time to min(its end, preempt_time +
 * grace); 0 when not after it.  False when the job is no such victim.
 */
/* The job a victim was reclaimed for, as gpuquota's system comment on it
 * names it (GQ_RECLAIMED_FOR), or 0. */
uint32_t gq_facts_reclaimed_for(const char *system_comment);

bool gq_facts_reclaim_of(const gq_job_facts_t *f, const char *system_comment,
			 int64_t preempt_time, int64_t end_time,
			 uint32_t *preemptor, int64_t *since, int *grace);

/* Slurm's job_state as grace's decisions tell it (core/grace.h): running,
 * completing, pending, exited by itself (completed or failed), other. */
gq_grace_state_t gq_facts_grace_state(uint32_t job_state);

/* Does gpuquota's system comment say the victim is warned
 * (GQ_RECLAIMED_WARNED)? */
bool gq_facts_warned_comment(const char *system_comment);

/* The preemptor, its project and band as gpuquota's system comment on a
 * victim names them (GQ_RECLAIMED_FOR), into *c; false: it names none. */
bool gq_facts_reclaim_comment(const char *system_comment,
			      gq_grace_comment_t *c);

/*
 * A victim already requeued for a reclaim that may still be in flight:
 * pending (f), gpuquota's system comment naming the preemptor (in
 * *preemptor), and requeued less than GQ_RECLAIM_WAIT before `now`
 * (Slurm clears a requeued job's preempt_time and, once its node is done
 * with it, gives it that time as submit time: batch_requeue_fini in
 * job_mgr.c); *since is that time.  Whether the preemptor still
 * pends is the pass's to tell (gq_state_wait_for_reclaims forgets it
 * otherwise).  False when the job is no such victim.
 */
bool gq_facts_requeued_for(const gq_job_facts_t *f, const char *system_comment,
			   int64_t now, uint32_t *preemptor, int64_t *since);

/* Was pending job f requeued less than `window` seconds before `now` (its
 * submit time, as gq_facts_requeued_for reads it)? */
bool gq_facts_requeued_within(const gq_job_facts_t *f, int64_t now,
			      int window);

/*
 * The node a moved job restarts on, as gpuquota's system comment on it
 * names it (GQ_MOVED_WHY), into name (size bytes); false: it names none
 * (no move, "another node", or a name of size bytes or more).
 */
bool gq_facts_moved_to(const char *system_comment, char *name, size_t size);

/*
 * Slurm's requeue delay (seconds, its +1 included): how long a requeued
 * job waits before it may start again.  SchedulerParameters'
 * requeue_delay from 25.11, else AuthInfo's cred_expire, else Slurm's
 * default 120.
 */
int gq_facts_requeue_delay(const char *sched_params, const char *authinfo);

/* Running, suspended or pending: the pass counts it (if in the pool). */
bool gq_facts_active(const gq_job_facts_t *f);

/*
 * Held by gpuquota (WAIT_HELD and our text; its priority is 0, or back
 * from Slurm's queue when the hold was written inside a scheduling
 * cycle), not by a person.
 */
bool gq_facts_held_by_us(uint32_t reason, const char *state_desc);

/*
 * An update of a job to `requested` priority (scontrol hold, uhold, or
 * priority=0) while gpuquota holds it (priority 0, its reason): the
 * person's hold takes the place of gpuquota's (job_submit/gpuquota), since
 * Slurm changes nothing in the record of a job already at priority 0.
 */
bool gq_facts_hold_handed_over(uint32_t priority, uint32_t reason,
			       const char *state_desc, uint32_t requested);

/*
 * Held back by Slurm's own association, QOS or other policy limits
 * (AssocGrpGRES, QOSMaxGRESPerUser, ...): not demand while it lasts.
 */
bool gq_reason_slurm_limited(uint32_t reason);

/*
 * A pending job that is not demand at `now`: held by a user or an admin
 * (not by gpuquota), waiting on a dependency or a begin time, or held by
 * Slurm's limits.
 */
bool gq_facts_not_demand(const gq_job_facts_t *f, int64_t now);

/*
 * A job's checkpoint, as `gpuquota checkpoint` notes it in the job's
 * comment (a field Slurm lets only the job's owner and operators change):
 * GQ_CHECKPOINT_KEY "<job id>@<unix time>", the rest of the comment kept.
 */
#define GQ_CHECKPOINT_KEY "gpuquota-checkpoint="
/* How far a checkpoint may be ahead of the controller's clock (the node's
 * clock may run a little ahead): up to this, taken as now. */
#define GQ_CHECKPOINT_SKEW 60

typedef enum {
	GQ_SAVED_NONE,		/* no checkpoint noted */
	GQ_SAVED_OK,		/* *at is the checkpoint */
	GQ_SAVED_FUTURE,	/* ignored: later than now + the skew */
	GQ_SAVED_FOREIGN,	/* ignored: noted for another job (a comment
				 * copied from it) */
	GQ_SAVED_BAD,		/* ignored: not "<id>@<time>" */
} gq_saved_t;

/*
 * The checkpoint of job `id` from its comment into *at (0 unless OK).
 * Never trusted beyond that: an ignored value only orders the job as one
 * without a checkpoint.  O(comment).
 */
gq_saved_t gq_facts_saved_at(const char *comment, uint32_t id, int64_t now,
			     int64_t *at);

/*
 * The note gpuquota adds to a victim's admin comment with slurmdbd
 * (docs/MODEL.md "Ledger"): one word, the reclaim of the run that started
 * at run_start, by its ledger record's fields (stage: as
 * gq_ledger_stage_name), e.g.
 * gpuquota-reclaim=for:12,of:team-b,reason:quota,stage:requeued,gpu_seconds_lost:35,run_start:1796083100
 * Into buf: its length, or -1 when it does not fit.
 */
#define GQ_RECLAIM_NOTE_KEY "gpuquota-reclaim="
#define GQ_RECLAIM_NOTE_MAX 256	/* the note, its NUL */
#define GQ_ADMIN_COMMENT_MAX 1024	/* the admin comment gpuquota writes */
int gq_facts_reclaim_note(char *buf, size_t len, uint32_t preemptor,
			  const char *project, const char *reason,
			  const char *stage, unsigned long long lost,
			  int64_t run_start);

/* What gq_facts_saved_at's answer means, for a log line. */
const char *gq_saved_text(gq_saved_t s);

/*
 * `text` (NULL: none) with `note`, a word "<key>=<value>", in it: an
 * earlier note of the same key replaced, the rest kept, the note last
 * (malloc'd; NULL when out of memory or longer than `max`).  O(text).
 */
char *gq_facts_with_note(const char *text, const char *note, size_t max);

/*
 * `comment` with job `id`'s checkpoint set to `at`: an earlier checkpoint
 * note replaced, the rest kept (malloc'd; NULL when out of memory or
 * longer than `max`).
 */
char *gq_facts_with_checkpoint(const char *comment, uint32_t id, int64_t at,
			       size_t max);

/*
 * A project's job order, higher first: QOS priority, then nice (lower
 * nice first).  QOS priorities above INT32_MAX count as INT32_MAX.
 */
int64_t gq_job_order(uint32_t qos_priority, uint32_t nice);

/*
 * Tasks in a pending array record's task list as libslurm prints it
 * ("0-3", "1,3,5-7", "0-15:4", each maybe followed by "%N", the limit of
 * tasks running at once): 0 for a job that is not an array record, or
 * for text that is not such a list (never a guess).
 */
uint32_t gq_array_task_count(const char *tasks);

/*
 * The most priority/multifactor can give a job: the sum of the site's
 * PriorityWeight* (each factor is at most 1: `w` holds Age, Assoc,
 * Fairshare, JobSize, Partition and QOS's) and PriorityWeightTRES's
 * ("CPU=1000,GRES/gpu=3000"); gq_band_room makes room for it inside a
 * band.  The caller reads them from its own slurm_conf_t (the plugins'
 * is the release's, the command's the public header's).  O(TRES weights).
 */
#define GQ_PRIORITY_WEIGHTS 6
/* the `w` of gq_priority_weights from a slurm_conf_t, in the caller's own
 * headers (a macro: the plugins' slurm_conf_t is the release's) */
#define GQ_PRIORITY_WEIGHTS_OF(conf) {					\
	(conf)->priority_weight_age, (conf)->priority_weight_assoc,	\
	(conf)->priority_weight_fs, (conf)->priority_weight_js,	\
	(conf)->priority_weight_part, (conf)->priority_weight_qos }
double gq_priority_weights(const uint32_t w[GQ_PRIORITY_WEIGHTS],
			   const char *tres);

/*
 * multifactor's part of a pending job's priority as a client reads it:
 * its priority less what the site factor adds (site - NICE_OFFSET, where
 * gpuquota keeps the band); 0 for a held job (priority 0: unknown).
 */
double gq_priority_part(uint32_t priority, uint32_t site_factor);

/*
 * A job of a model of Slurm (the simulator, sim/) in Slurm's terms: a
 * batch job that may be requeued, of nice 0 and no QOS, running or
 * pending with a priority (nobody holds it) and reason Priority, or
 * BeginTime when `begin_time` is after `now` (a requeued job's delay).
 * The caller sets id, GPUs, shape and times.
 */
void gq_facts_model_job(gq_job_facts_t *f, bool running, int64_t begin_time,
			int64_t now);

/* A model's node that takes work (idle or allocated, responding). */
uint32_t gq_facts_model_node_state(void);

/* The core's input for a job, at `now`. */
void gq_job_input(const gq_job_facts_t *f, int64_t now, gq_job_in_t *out);

/*
 * Is any partition of a comma-separated list (a pending job may name
 * several) one of the pool's (settings.partitions; all when none)?
 */
bool gq_pool_has(const gq_config_t *cfg, const char *partitions);

/*
 * Is a job in the pool?  `partitions` is its partition list as Slurm
 * keeps it: a pending job may run in any of them; a started one runs in
 * the first (Slurm moves the partition it started in to the front).
 */
bool gq_pool_has_job(const gq_config_t *cfg, const char *partitions,
		     bool running);

/*
 * Which of n pools (each a configuration of its own, gq_config_pool) a job
 * is in, or -1: a started job the pool of the partition it runs in (the
 * first listed); a pending one the pool of the first partition it lists
 * that is in a pool, so that a job listing partitions of several pools is
 * demand in one of them only.  O(listed partitions x pools x partitions).
 */
int gq_pool_of_job(gq_config_t *const *pools, int n, const char *partitions,
		   bool running);

/* Can a node in this state take work (not down, drained, failing, not
 * responding or future)?  Its GPUs are then part of C. */
bool gq_node_takes_work(uint32_t node_state);

/* Does a node not respond, and is it not yet DOWN?  Its running jobs
 * are lost when Slurm sets it DOWN: reclaim counts them as lost already
 * (gq_job_in_t.at_risk, docs/MODEL.md "Node failures"). */
bool gq_node_not_responding(uint32_t node_state);

/*
 * A node's GPUs in C: all of them when it takes work; on a node that is
 * draining, failing or not responding but not yet down, the ones its jobs
 * still hold (they count in their projects until Slurm requeues them), so
 * that what projects hold never exceeds C; none on a node that is down or
 * future.
 */
uint64_t gq_node_capacity(uint32_t node_state, uint64_t total,
			  uint64_t allocated);

/*
 * Every partition the pools (or settings.partitions) name should exist
 * and have nodes: `nodes` says how many a partition has, -1 when Slurm
 * has no such partition.  One line per partition that does not, with
 * its key.  O(partitions x nodes(...)).
 */
void gq_missing_partitions(const gq_config_t *cfg,
			   int (*nodes)(const char *partition, void *ctx),
			   void (*report)(const char *line, void *ctx),
			   void *ctx);

/*
 * Configured accounts slurmdbd does not have: `exists` says whether an
 * account exists, `report` gets one line per missing account (the same
 * words in slurmctld's log and the command's warning).  `nearest`, when
 * not NULL, names an existing account the missing one may mean (or NULL),
 * said as "did you mean 'NAME'?".
 */
void gq_missing_accounts(const gq_config_t *cfg,
			 bool (*exists)(const char *account, void *ctx),
			 const char *(*nearest)(const char *account, void *ctx),
			 void (*report)(const char *line, void *ctx),
			 void *ctx);

#endif
