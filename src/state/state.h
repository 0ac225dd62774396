/*
 * state.h - the one gpuquota state of a process, shared by the plugins.
 *
 * Owns: the current configuration, its source path, the view answers come
 * from (the last good pass), the view the next pass is computed in, and
 * the plugins' counters (metrics.h), the running configuration's record
 * (running_config.h).
 * Slurm dlopen()s each plugin with RTLD_LOCAL, so priority/gpuquota and
 * preempt/gpuquota meet here, in libgpuquota.so, which the dynamic loader
 * loads once for both.  Callers hold gq_state_lock() around any use.
 *
 * Also the reclaims in flight (victims requeued for a preemptor that has
 * not started yet) and the room waits (in-quota jobs freed GPUs are kept
 * for), which outlive passes and reloads (not a restart of slurmctld).
 *
 * Two views, so that nothing is ever answered from a half-made pass: a
 * pass fills `next`; only when it succeeds does it become `view`.  A
 * reload makes a new `next` for the new configuration and keeps answering
 * from the old `view` (limits and candidates included) until a pass on
 * the new configuration succeeds.
 */
#ifndef GPUQUOTA_STATE_H
#define GPUQUOTA_STATE_H

#include <stdbool.h>

#include "config/config.h"
#include "state/ledger.h"
#include "state/losses.h"
#include "state/metrics.h"
#include "state/running_config.h"
#include "core/pools.h"
#include "state/usage.h"
#include "core/view.h"

/*
 * How long, at most, work outside quotas waits for one preemptor to start
 * after Slurm first requeued victims for it (seconds).  Enough for the
 * victims to leave (Slurm's KillWait, 30 s by default, is the worst case)
 * and the scheduler to start it; never renewed for the same preemptor, so
 * a preemptor that cannot start (CPUs, memory) holds nothing back for
 * long.
 */
#define GQ_RECLAIM_WAIT 30

typedef struct {
	uint32_t preemptor;	/* or the job GPUs are kept for */
	int64_t since;		/* its first victims, or first kept for */
	int grace;		/* the longest grace time of its victims */
	bool seen;		/* a victim of it leaving, in this read */
	bool left;		/* the last pass found none of its victims
				 * leaving (gq_state_leaving_end) */
	int node;		/* a room wait: the node GPUs were last kept
				 * on (gq_view_kept_node); -1: none */
	/* a reclaim: its victims' nodes (gq_state_reclaim_nodes); nnodes
	 * -1: any node (none noted yet, rebuilt, or too many) */
	int nnodes;
	int nodes[GQ_RECLAIM_NODES];
	bool nodes_open;	/* no node noted yet, and may be */
	/* a landing (gq_state_note_landing): when its job was first seen
	 * requeued (0: not yet), and Slurm's requeue delay */
	int64_t requeued;
	int delay;
	int64_t start;		/* a landing: its job's start before the move
				 * (0: not known) */
} gq_inflight_t;

/* A change to the published view made between a pass's read and its
 * write (gq_state_pass_read): the pass makes it again on its own view. */
typedef struct {
	uint32_t id;
	bool added;		/* priority_p_set gave it a band; else it
				 * ended or its GPUs left (gq_state_job_gone) */
} gq_since_read_t;

/* A victim warned (given a grace time) whose run has not been seen to end:
 * its decision's ledger record, settled when it ends (ledger.h). */
typedef struct {
	gq_ledger_rec_t rec;	/* GQ_LEDGER_WARNED */
	int64_t start;		/* its run's start */
	uint32_t restarts;	/* Slurm's restart count at the decision */
} gq_warned_t;

/* A job moved (docs/MODEL.md "Moves"), from the ledger's move records:
 * not moved again within settings.move_window. */
typedef struct {
	uint32_t job;
	uint32_t waiter;	/* the job it was moved for: one move per
				 * waiter within the window too */
	int64_t at;		/* the move's decision, unix seconds */
} gq_moved_t;

/* Moved jobs kept at most: the oldest go first past it. */
#define GQ_MOVED_MAX 4096

typedef struct {
	gq_config_t *config;	/* last good configuration */
	char *config_path;
	gq_pools_t *view;	/* the last good pass, a view per pool; NULL
				 * until the first */
	gq_pools_t *next;	/* for the next pass, of `config` */
	bool view_stale;	/* `view` was made for an older config */
	bool view_acts;		/* `view` was published in enforce mode:
				 * its answers' holds were written */
	bool observe_undone;	/* the last pass that wrote ran in observe
				 * mode: gpuquota's writes are undone on
				 * every job of the pools */
	uint64_t published;	/* views published so far: a reader that
				 * keeps something of `view` knows it is new */
	bool victims_wanted;	/* a job of `view` needs victims
				 * (victim_search.h): set under the lock,
				 * read without it (gq_state_victims_wanted) */
	uint64_t late_gpus;	/* GPUs of the jobs that may reclaim added
				 * to `view` since it was published
				 * (gq_view_job_wants_victims) */
	uint64_t late_waiting_gpus; /* GPUs of the pending jobs added to
				 * `view` since it was published
				 * (gq_pools_job_blocked) */
	bool late_pass_soon;	/* a job added to `view` since it was
				 * published is kept back, blocked or needs
				 * victims (pass_soon.h) */
	gq_inflight_t *inflight;	/* reclaims in flight */
	int ninflight, inflight_cap;
	bool inflight_read;	/* rebuilt from Slurm's records (the first
				 * pass read them: gq_state_rebuild_reclaim) */
	gq_inflight_t *roomwait;	/* room waits, begun or over */
	int nroomwait, roomwait_cap;
	gq_inflight_t *saved;	/* nodes saved for room waiters (.node) */
	int nsaved, saved_cap;
	gq_inflight_t *landing;	/* moved jobs' landings (.nodes[0]) */
	int nlanding, landing_cap;
	gq_moved_t *moved;	/* moves within the window, oldest first */
	int nmoved;
	gq_inflight_t *comingwait;	/* waits for GPUs coming free */
	int ncomingwait, comingwait_cap;
	gq_metrics_t metrics;	/* since the plugin was loaded */
	gq_running_t running;	/* the configuration's text, hash and
				 * last failed load, as published
				 * (running_config.h) */
	gq_usage_t usage;	/* fair share that remembers (usage.h) */
	gq_ledger_queue_t ledger;	/* reclaims noted, not yet written */
	gq_losses_t losses;	/* work lost in the budgets' window */
	gq_warned_t *warned;	/* victims in their grace time (ledger) */
	int nwarned, warned_cap;
	/*
	 * A pass reads Slurm under the job read lock and writes under the
	 * write lock (docs/DEVELOPING.md "A pass in two lock holds"); in
	 * between, other threads change the published view.  `epoch` counts
	 * the changes such a pass cannot take in (a reclaim noted, a
	 * configuration loaded): it then publishes nothing.  The others
	 * (jobs added, jobs gone) are noted and made again on its view.
	 */
	uint64_t epoch;
	bool between;		/* a pass has read and not written yet */
	gq_since_read_t *since_read;
	int nsince_read, since_read_cap;
	/*
	 * Ask for a pass at once, without the gap between passes: set by the
	 * plugin that runs passes while it does, else NULL.  Must not block
	 * nor take the state lock; called with it held or not.
	 */
	void (*pass_now)(void);
	/*
	 * The completing nodes (coming_free.h) that take work, with their
	 * idle GPUs, at most `max` into `out`; returns how many.  Set by the
	 * plugin that reads Slurm's nodes while it is loaded, else NULL.
	 * Caller holds slurmctld's node read lock (at least).
	 */
	int (*completing_nodes)(gq_node_idle_t *out, int max);
} gq_state_t;

gq_state_t *gq_state(void);
void gq_state_lock(void);
void gq_state_unlock(void);

/*
 * The state as the plugins read it, field by field (callers hold the
 * lock; O(1) each): the last good pass, one view per pool (NULL until the
 * first); the current configuration (NULL before the first load); the
 * plugins' counters; how many views were published so far (a reader that
 * keeps something of the view knows it is new).
 */
gq_pools_t *gq_state_view(void);
const gq_config_t *gq_state_config(void);
gq_metrics_t *gq_state_metrics(void);
gq_running_t *gq_state_running(void);
uint64_t gq_state_published(void);

/*
 * Does a job of the published view need victims (victim_search.h)?  Set
 * when a view is published and when priority_p_set adds a job that needs
 * them.  Read without the state lock: preempt/gpuquota asks it for every
 * job Slurm walks.  O(1).
 */
bool gq_state_victims_wanted(void);

/*
 * Should a submit, requeue, update or job end bring the next pass sooner
 * (core/pass_soon.h)?  True before the first pass, and while the view,
 * or a job added to it since, keeps a job back or needs victims (what
 * only a pass decides, such as patience, applies before a reclaim).
 * Caller holds the lock.  O(1).
 */
bool gq_state_pass_soon(void);

/*
 * The other views the state holds, as they are (never made here, unlike
 * gq_state_next): the ones the next pass fills; right after
 * gq_state_publish, the pass it replaced (NULL when that was made for an
 * older configuration).  Caller holds the lock.
 */
gq_pools_t *gq_state_spare(void);

/* Decayed usage (usage.h), the plugins' to read and replace. */
gq_usage_t *gq_state_usage(void);

/* The hooks a plugin that runs passes sets while it does, NULL when it
 * stops (gq_state_t.pass_now, .completing_nodes). */
void gq_state_set_hooks(void (*pass_now)(void),
			int (*completing_nodes)(gq_node_idle_t *out, int max));

/* The completing nodes through the reading plugin's hook
 * (gq_state_t.completing_nodes); 0 while none is set. */
int gq_state_completing_nodes(gq_node_idle_t *out, int max);

/* A pass at once, when a plugin runs passes (gq_state_t.pass_now); else
 * nothing.  Does not block. */
void gq_state_want_pass_now(void);

/* Have the reclaims in flight been read back from Slurm's records (the
 * first pass since the state was made does it, then says so)? */
bool gq_state_inflight_read(void);
void gq_state_inflight_done(void);

/*
 * Load the file at path and, when it is good, make it current (a new view
 * for the next pass is made for it; answers still come from the last good
 * pass).  A bad file leaves everything in place.  Returns 0 or -1 with the
 * reason in err.  Caller holds the lock.
 */
int gq_state_load(const char *path, char *err, size_t errlen);
/* The same, and when it is made current the file's exact text into
 * *text (malloc'ed: the caller frees; config.h gq_config_load_text). */
int gq_state_load_text(const char *path, char **text, char *err,
		       size_t errlen);

/*
 * The views the next pass fills (one per pool), made for the current
 * configuration when needed.  NULL when there is no configuration or no
 * memory.  Caller holds the lock.
 */
gq_pools_t *gq_state_next(void);

/*
 * The pass in gq_state_next() succeeded: answer from it from now on.
 * Caller holds the lock.
 */
void gq_state_publish(void);

/*
 * Slurm requeues victims for `preemptor` now, each after its grace time
 * (seconds: warned first, settings.grace_time).  The first time counts: a
 * later reclaim for the same job does not renew its wait, which lasts
 * GQ_RECLAIM_WAIT plus the longest grace time of its victims.  Returns
 * true the first time.  Caller holds the lock.  O(reclaims in flight).
 */
bool gq_state_note_reclaim(uint32_t preemptor, int64_t now, int grace);

/*
 * Moved job `job` restarts on node `node` of its pool's view (move.h).
 * Its landing is kept as a reclaim in flight is: work outside quotas
 * that could start on that node waits, and the node's idle GPUs are
 * promised to it (gq_waits_still_for).  Until a pass sees the job
 * requeued, for at most GQ_RECLAIM_WAIT + `grace` (its grace time and
 * the time to kill it) + `delay` (Slurm's requeue delay) seconds from
 * `now`; from then, for GQ_RECLAIM_WAIT + `delay`.  It ends sooner when
 * the job starts again or leaves the queue.  A slurmctld restart
 * rebuilds it (gq_state_rebuild_landing).  Caller holds the lock.
 * O(landings).
 */
void gq_state_note_landing(uint32_t job, int node, int64_t now, int grace,
			   int delay);

/*
 * Moved job `job`'s landing on `node`, rebuilt from Slurm's records after
 * a restart (gq_pass_landing): warned at `since` for `grace` seconds (its
 * grace time and KillWait), `requeued` 0; or seen requeued at `requeued`
 * (== since).  Kept from then as gq_state_note_landing keeps it; a start
 * of the job after `since` is its restart.  Returns false when out of
 * memory.  Caller holds the lock.  O(landings).
 */
bool gq_state_rebuild_landing(uint32_t job, int node, int64_t since,
			      int grace, int delay, int64_t requeued);

/*
 * The nodes a victim of the reclaim for `preemptor` (noted by
 * gq_state_note_reclaim) frees: work outside quotas waits for it only
 * where it could start on one of them (gq_view_wait_for_reclaims).
 * n < 0: not known, any node.  Until a first call, any node; past
 * GQ_RECLAIM_NODES nodes, any node.  Returns whether the
 * nodes waited for grew (the holds are to be written again; a pass that
 * read before is made again).  Caller holds the lock.  O(reclaims in
 * flight + GQ_RECLAIM_NODES x n).
 */
bool gq_state_reclaim_nodes(uint32_t preemptor, const int *nodes, int n);

/*
 * The nodes a victim of a rebuilt reclaim (gq_state_rebuild_reclaim)
 * frees, read back with it: n < 0 when not known (a victim requeued
 * already): any node from then on.  As gq_state_reclaim_nodes, without
 * making a pass again (the pass reading them waits for it itself).
 * Caller holds the lock.
 */
void gq_state_rebuild_nodes(uint32_t preemptor, const int *nodes, int n);

/*
 * A reclaim in flight read back from Slurm's records at the first pass
 * after slurmctld (or the plugin) started, when the in-memory reclaims
 * are gone: a victim still warned since `since` (its preempt_time, which
 * Slurm saves) for `grace` seconds, for `preemptor` (named by the system
 * comment gpuquota wrote on it; gq_facts_reclaim_of).  Noted as
 * gq_state_note_reclaim would have, with its earliest victim's time (so
 * the waits it starts end when they would have, never renewed) and its
 * longest grace time.  The pass reading it waits for it itself: no
 * epoch change.  Returns false when out of memory (nobody waits for it).
 * Caller holds the lock.  O(reclaims in flight).
 */
bool gq_state_rebuild_reclaim(uint32_t preemptor, int64_t since, int grace);

/*
 * Will work outside quotas in pool k of the next pass (`next`, being
 * filled) wait for a reclaim in flight noted less than its wait before
 * `now` (its preemptor in that pool's view of the last pass, the pool
 * found by name: a reload may have changed the pools; without a last
 * pass, next's own view of pool k; any pool when next is NULL or the pool
 * is new), or for GPUs that
 * pool's last pass kept for a room waiter whose wait is not over?  Read
 * before a pass (gq_view_expect_reclaim_wait: arrays are then split at
 * their band, so an array's in-quota tasks are not held with the rest).
 * Caller holds the lock.  O(pools + reclaims in flight + room waits).
 */
bool gq_state_reclaim_waiting(const gq_pools_t *next, int k, int64_t now);

/*
 * The preemptors of the reclaims in flight whose wait is not over, and
 * the moved jobs requeued whose landing is kept, at most `max` of them,
 * into ids: how many.  The pass thread looks them up
 * between passes, so that a preemptor's start ends the holds for it at
 * once (docs/MODEL.md "Holds", freed GPUs kept).  Caller holds the lock.
 * O(reclaims in flight).
 */
int gq_state_preemptors(uint32_t *ids, int max, int64_t now);

/* How long work outside quotas waits for `preemptor` (seconds). */
int gq_state_reclaim_wait(uint32_t preemptor);

/* How long work outside quotas waits for moved job `job` to restart on
 * its landing (seconds, gq_state_note_landing), its node into *node
 * (NULL: not asked); 0: not a landing.  Caller holds the lock. */
int gq_state_landing(uint32_t job, int *node);

/* Is `preemptor` a reclaim in flight's (gq_state_note_reclaim)?  Caller
 * holds the lock.  O(reclaims in flight). */
bool gq_state_reclaiming(uint32_t preemptor);

/*
 * Does `preemptor` wait for GPUs coming free (coming_free.h) instead of
 * taking victims?  When it fits on them (`fits`, gq_pools_fits_idle) and
 * less than GQ_COMING_FREE_WAIT seconds have passed since it began to
 * fit on them without a break (a call where it does not fit, or its end
 * of pending, starts the clock again).  Caller holds the
 * lock.  O(preemptors waiting).
 */
bool gq_state_wait_coming_free(uint32_t preemptor, bool fits, int64_t now);

/*
 * Are `preemptor`'s victims still on their way out: warned (a grace time),
 * less than grace + `settle` seconds since its first reclaim, and not
 * found gone by the last pass (gq_state_leaving_end)?  Slurm
 * itself takes no more victims for a preemptor for `settle` seconds after
 * it took some (its KillWait + MessageTimeout); a grace time lengthens
 * that, so gpuquota offers it nothing new meanwhile (it would take a
 * second victim for GPUs already on their way).  Caller holds the lock.
 * O(reclaims in flight).
 */
bool gq_state_reclaim_settling(uint32_t preemptor, int64_t now, int settle);

/*
 * A pass reads which victims are still leaving (running in their grace
 * time): gq_state_leaving_begin, then gq_state_victim_leaving(owner) for
 * each, with the job it was reclaimed for, then gq_state_leaving_end.  A
 * reclaim in flight none of whose victims is leaving any more settles no
 * longer (gq_state_reclaim_settling): their GPUs are free, or coming free
 * (coming_free.h, which has its own wait), so its preemptor may take new
 * victims, as an array's next task needs (Slurm preempts for one task at
 * a time).  Caller holds the lock.  O(reclaims in flight) each.
 */
void gq_state_leaving_begin(void);
void gq_state_victim_leaving(uint32_t owner);
void gq_state_leaving_end(void);

/*
 * A task of job array `array_id` runs, started at `start` (a pass reads
 * every running task).  Slurm preempts for an array's next task under the
 * array's pending record (array_id), then starts the task under a new job
 * id while that record stays pending with the other tasks: a reclaim in
 * flight for array_id noted at or before `start` is over, as a
 * preemptor's is when it is no longer pending.  Without this it would
 * keep outside work off its victims' nodes until GQ_RECLAIM_WAIT + its
 * grace.  The array's next reclaim is noted afresh.  Caller holds the
 * lock.  O(reclaims in flight).
 */
void gq_state_array_task_running(uint32_t array_id, int64_t start);

/*
 * How long, at most, work outside quotas waits while freed GPUs are kept
 * for one in-quota job that can get room on no node (seconds), from when
 * they are first kept for it; never renewed for the same job; 0: never
 * kept.  settings.room_wait of the current configuration (default
 * GQ_DEFAULT_ROOM_WAIT: 0, off).  Caller holds the lock.
 */
int gq_state_room_wait(void);

/*
 * Does gpuquota act on Slurm (docs/MODEL.md "Observe mode")?  False when
 * the current configuration's settings.mode is "observe": every pass is
 * decided, counted and logged, and nothing of it is written into Slurm
 * (no hold, throttle, priority or reclaim).  True without a
 * configuration.  Caller holds the state lock.
 */
bool gq_state_acts(void);

/*
 * May the published view's answers be acted on now: gq_state_acts(), and
 * the view was published by a pass in enforce mode, so that the holds
 * that go with its answers are in Slurm?  After a switch from observe to
 * enforce, false until the first enforce pass: a reclaim from a view
 * whose holds were never written would let a job that must be held take
 * the freed GPUs.  Caller holds the state lock.
 */
bool gq_state_view_acts(void);

/*
 * Observe mode's undo (docs/MODEL.md "Observe mode"): has a pass written
 * in observe mode since the plugin's init or since a pass in enforce
 * mode?  While false, a pass in observe mode gives back what gpuquota
 * wrote on every job of the pools; after it, only on the jobs it holds.
 * The pass thread sets it after each pass that writes
 * (!gq_state_acts()); init clears it.  Caller holds the state lock.
 */
bool gq_state_observe_undone(void);
void gq_state_set_observe_undone(bool undone);

/* settings.requeue_budget_window of the current configuration (seconds;
 * GQ_DEFAULT_BUDGET_WINDOW without one).  Caller holds the lock. */
int gq_state_budget_window(void);

/*
 * Pool k of `p` (jobs added, not computed yet) told its preemptors'
 * reclaims in flight (gq_view_expect_reclaims): the GPUs idle on their
 * victims' nodes are promised to them.  Out of memory: none told.  Caller
 * holds the lock.  O(reclaims in flight).
 */
void gq_state_expect_reclaims(gq_pools_t *p, int k, int64_t now);

/*
 * Pool k of `next` (not computed yet) told the nodes saved in the same
 * pool of the last pass published (gq_view_saved_before): its room sets
 * take those nodes last.  Caller holds the lock.  O(pools).
 */
void gq_state_saved_before(gq_pools_t *next, int k);

/*
 * Forget the reclaims whose preemptor is no longer pending in p (started,
 * gone), and make the jobs of each pool wait for its preemptors noted
 * less than their wait ago (gq_view_wait_for_reclaims).
 * A pool with no reclaim in flight keeps the GPUs that come free on one
 * node for its first room waiter (gq_view_room_waiters, highest priority
 * first) whose room wait began less than gq_state_room_wait() ago or
 * begins now and for which a node can be chosen (gq_view_keep_room: the
 * node it was kept on before while it can still take it); a waiter whose
 * wait is over is passed over while it pends (never renewed), and
 * forgotten when it is no longer pending.  One waiter per pool at a
 * time.
 * Returns how many preemptors and room waiters the pools' jobs wait for.
 * Caller holds the lock.  O(J + pools x (reclaims in flight + room
 * waiters of the pass x room waits)).
 */
int gq_state_wait_for_reclaims(gq_pools_t *p, int64_t now);

/*
 * A pass is about to read Slurm's jobs into gq_state_next() (the job read
 * lock held): from now until gq_state_pass_write, jobs added and gone are
 * noted.  Returns the epoch to give gq_state_pass_write.  Caller holds the
 * lock.
 */
uint64_t gq_state_pass_read(void);

/*
 * priority_p_set added job `id` to the published view (its band from the
 * last pass).  Noted when a pass is between its read and its write.
 * Caller holds the lock.  O(1) amortized.
 */
void gq_state_job_added(uint32_t id);

/*
 * Job `id` ended, or was taken as a victim: its GPUs leave its project in
 * the published view now (gq_pools_job_gone), and in the view of a pass
 * between its read and its write when that pass publishes.  Caller holds
 * the lock.  O(1) amortized, plus gq_view_job_gone.
 */
void gq_state_job_gone(uint32_t id);

/*
 * A job the pass in progress read as waiting has started since its read
 * (Slurm's scheduler took the job lock between the pass's two holds;
 * Slurm has no hook for a start, the glue sees it in the record).  When
 * the pass's view holds it, every release it planned counted on that job
 * waiting: the pass publishes nothing (gq_state_pass_write) and is made
 * again.  Caller holds the lock.
 */
void gq_state_job_started(uint32_t id);

/*
 * The pass that read at `epoch` writes: when nothing it cannot take in
 * happened since (same epoch), its view is published (gq_state_publish)
 * and the jobs gone since its read leave it; `added` is called, in order,
 * for each job added since, to add it to the new view as priority_p_set
 * does.  Returns true when published, false when the pass must be made
 * again (nothing changed).  Either way, nothing more is noted.  Caller
 * holds the lock.  O(changes since the read).
 */
bool gq_state_pass_write(uint64_t epoch,
			 void (*added)(gq_pools_t *view, uint32_t id,
				       void *arg),
			 void *arg);

/* The pass that read ends without writing (it failed).  Caller holds the
 * lock. */
void gq_state_pass_abandon(void);

/*
 * The reclaim ledger (ledger.h): a record noted where the reclaim is
 * decided (preempt/gpuquota, under slurmctld's job write lock: no file
 * I/O there), queued in memory; false when it was dropped (out of memory,
 * or GQ_LEDGER_QUEUE_MAX waiting), counted in the metrics either way.
 * The writer (priority/gpuquota's pass thread) takes the queue whole:
 * *out gets the records (the caller frees it), the return is how many.
 * Caller holds the lock.  O(1) each (amortized).
 */
bool gq_state_ledger_note(const gq_ledger_rec_t *r);

/*
 * The losses the requeue budgets count (losses.h): the ledger's records
 * of the last GQ_BUDGET_WINDOW_MAX seconds read back at init
 * (gq_state_losses_load, before the first pass), then each noted reclaim
 * (gq_state_ledger_note); gq_state_losses prunes what is older than the
 * current window.  Each brings the losses to its clock reading
 * (gq_losses_clock: `now`, a decision's time).  Caller holds the lock.
 */
void gq_state_losses_load(const gq_ledger_rec_t *r, int n, int64_t now);
const gq_losses_t *gq_state_losses(int64_t now);
int gq_state_ledger_take(gq_ledger_rec_t **out);

/*
 * A victim given a grace time (docs/MODEL.md "Ledger"): its warned record
 * `w->rec` noted (gq_state_ledger_note) and `w` kept until its run ends.
 * Out of memory, it is not kept: the warned record then stands for its
 * loss.  Returns gq_state_ledger_note's answer (false: the record was
 * dropped).  Caller holds the lock.  O(1) amortized.
 */
bool gq_state_warned_note(const gq_warned_t *w);

/* Keep `w` without noting its record: a victim warned before slurmctld
 * restarted, whose warned record is in the ledger already.  False when
 * out of memory.  Caller holds the lock.  O(1) amortized. */
bool gq_state_warned_keep(const gq_warned_t *w);

/* The victims kept (gq_state_warned_note), and the i-th; NULL past them.
 * Caller holds the lock. */
int gq_state_nwarned(void);
const gq_warned_t *gq_state_warned(int i);

/*
 * The i-th victim's run ended at `end`: its after-grace record
 * (gq_ledger_after_grace) noted (gq_state_ledger_note) and copied into
 * *out, the victim forgotten (the last one takes its place).  Caller holds the lock.  O(1).
 */
void gq_state_warned_settle(int i, int64_t end, gq_ledger_rec_t *out);

/* Forget the i-th victim unsettled (its run ended without a requeue):
 * its warned record stands.  Caller holds the lock.  O(1). */
void gq_state_warned_drop(int i);

/* Drop everything (plugin unload).  Caller holds the lock. */
void gq_state_clear(void);

#endif
