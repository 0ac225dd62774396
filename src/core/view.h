/*
 * view.h - one scheduling pass of gpuquota, and the answers it gives until
 * the next pass.
 *
 * Owns: the jobs of a pass as Slurm describes them (gq_job_in_t, job.h,
 * added by gq_view_add_job; their records are kept in the view's job
 * store, job_store.h), their placement on nodes (placement.c), the order
 * of the pass' steps (gq_view_compute) and the O(1) lookups the plugins
 * and the command ask.
 * The rules themselves live in one file each (docs/MODEL.md, "Where each
 * rule is decided"): registry.c (projects, accounts), fairshare.c (f_p),
 * queue.c (A_k, bands, holds), reclaim.c (floors, candidates, reclaim
 * order), room.c (making room on nodes).  No Slurm header here.
 *
 * Costs: a pass is O(J) in jobs when Slurm lists each project's jobs in
 * its order (O(J log J) for a project whose jobs come out of order), plus
 * O(P^2) in projects for water-filling, plus departments and room-making
 * (gq_view_compute in view.c says each step's); adding a job and every
 * lookup is O(1) (hash on job id; an account by its exact spelling).
 */
#ifndef GPUQUOTA_VIEW_H
#define GPUQUOTA_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"
#include "core/band.h"
#include "core/job.h"
#include "core/move.h"
#include "core/pass.h"
#include "core/registry.h"
#include "core/room.h"

typedef struct gq_view gq_view_t;

/* A view for a configuration (copied; cfg may be freed afterwards), or
 * NULL when out of memory. */
gq_view_t *gq_view_create(const gq_config_t *cfg);
void gq_view_free(gq_view_t *v);

/*
 * Start a pass: forget the previous jobs.  `capacity` is C, the GPUs of
 * the pool; `now` the time jobs' ages are measured at.
 */
void gq_view_begin(gq_view_t *v, double capacity, int64_t now);

/* C, when it is known only after the nodes were read (placement). */
void gq_view_set_capacity(gq_view_t *v, double capacity);
double gq_view_capacity(const gq_view_t *v);

/*
 * Add a job, belonging to `account` (NULL or "": the empty account,
 * itself a 0-quota project).  The one way to add a job:
 *  - during a pass (after gq_view_begin, before gq_view_compute): stored
 *    for the pass;
 *  - after gq_view_compute (a job submitted, requeued or released between
 *    passes): placed at the tail of its project's queue and given its
 *    band, priority and hold at once with the same rules (queue.h); a job
 *    already pending in the same project and state keeps its place.
 * Returns the job as the view now has it, or NULL when out of memory (the
 * pass is then incomplete: gq_view_compute fails).  During a pass that is
 * its input alone (`in`): its project and the rest of its record are
 * written by gq_view_compute (so adding a job writes half a record:
 * job_store.h); a job added after the pass is whole at once.  O(1)
 * amortized.
 */
const gq_job_t *gq_view_add_job(gq_view_t *v, const char *account,
				const gq_job_in_t *in);

/*
 * The late add by its own name: a job submitted, requeued or released
 * between passes, into a computed view (gq_view_add_job's second case).
 * NULL before gq_view_compute (a pass stores with gq_view_add_job) or out
 * of memory.  O(1) amortized, plus its project's queue walk from the job
 * on (queue.h, gq_queue_late).
 */
const gq_job_t *gq_view_add_late(gq_view_t *v, const char *account,
				 const gq_job_in_t *in);

/*
 * Placement, optional, after gq_view_begin: the pool's nodes, their idle
 * GPUs, and the GPUs each running job holds on each node (all of a job's
 * entries right after adding it).  With it, a pass also makes room
 * (room.h).  Return 0, or -1 (out of memory, unknown job, entries of a
 * job not consecutive).
 */
int gq_view_set_nodes(gq_view_t *v, int nnodes);
void gq_view_node_free(gq_view_t *v, int node, uint32_t free_gpus);
int gq_view_place(gq_view_t *v, uint32_t job_id, int node, uint32_t gpus);

/*
 * `node` takes no new work (draining, drained, failing, not responding,
 * down: Slurm places no job there), after gq_view_set_nodes.  Its GPUs,
 * idle or freed by a reclaim, are room for nobody (room.c, patience.c);
 * its running jobs still hold their GPUs and count as any job's.  O(1).
 */
void gq_view_close_node(gq_view_t *v, int node);

/*
 * Node groups (a partition's nodes), optional, after gq_view_set_nodes:
 * `node` is in group `group` (1-based, at most ngroups of
 * gq_view_set_groups).  Room is made for a pending job only on the nodes
 * of its node_group.  Return 0, or -1 (memory, out of range).
 */
int gq_view_set_groups(gq_view_t *v, int ngroups);
int gq_view_node_group(gq_view_t *v, int node, int group);

/* May a pending job with this node_group run on `node`? */
bool gq_view_node_allowed(const gq_view_t *v, uint32_t node_group, int node);

/*
 * Domains, optional, after gq_view_set_nodes: `node` sits in domain
 * `domain` (its leaf switch with topology/tree, its block with
 * topology/block; numbered densely from 0, at most 65 536).  A job of
 * more than one node gets room on the nodes of one domain when one can
 * give it (docs/MODEL.md "Gangs").  0, or -1 (out of range).
 */
int gq_view_node_domain(gq_view_t *v, int node, int domain);

/*
 * Slurm's account tree (slurmdbd): `account` has parent account `parent`
 * (registry.h).  Call for every account association, before
 * gq_view_compute.  Returns 0 or -1 (memory).  O(1).
 */
int gq_view_account_parent(gq_view_t *v, const char *account,
			   const char *parent);

/*
 * This pass, work outside quotas will wait for a reclaim in flight
 * (gq_view_wait_for_reclaims): the idle GPUs are not open to it, so an
 * array is split at its band even where the idle GPUs would cover it (its
 * in-quota tasks start; held whole, they would wait too).  Set before
 * gq_view_compute; gq_view_begin clears it.
 */
void gq_view_expect_reclaim_wait(gq_view_t *v, bool waiting);

/*
 * Project `project`'s usage (GPU-seconds above its quota, decayed) and
 * the factor it puts on its weight for the surplus (usage.h): kept from
 * pass to pass until set again.  O(1).
 */
void gq_view_set_usage(gq_view_t *v, int project, double usage, double tilt);

/*
 * A project's work lost to requeues in its requeue budget's window,
 * GPU-hours (the ledger's sum: gq_ledger_lost), before gq_view_compute.
 * Kept until set again.  O(1).
 */
void gq_view_set_lost(gq_view_t *v, int project, double gpu_hours);

/* Minimum runtime of this pass, if Slurm's own (PreemptExemptTime) is
 * longer than the configured one. */
void gq_view_min_runtime_at_least(gq_view_t *v, int seconds);

/*
 * Derive shares, bands, priorities, holds and victim sets for the jobs
 * added.  Returns 0, or -1 when memory ran out now or while jobs were
 * added: the view's answers are then incomplete and must not be used
 * (the plugin keeps its last good view).
 */
int gq_view_compute(gq_view_t *v);

/* What every step of the pass reads (pass.h), read-only: for a step that
 * reads a computed view (victim_search.h) and the core's unit tests of a
 * step (room.h, waits.h).  O(1). */
const gq_pass_t *gq_view_pass(const gq_view_t *v);

/* O(1) lookups (a job's record before gq_view_compute: its input alone,
 * see gq_view_add_job) */
const gq_job_t *gq_view_job(const gq_view_t *v, uint32_t id);
/*
 * How many jobs the view holds, and the i-th (0 <= i < gq_view_njobs),
 * in no particular order, shadows (in.elsewhere) included: for walks that
 * need no order, such as the glue writing holds again by id.  O(1).
 */
int gq_view_njobs(const gq_view_t *v);
const gq_job_t *gq_view_job_at(const gq_view_t *v, int i);
const gq_project_t *gq_view_project(const gq_view_t *v, int idx);
int gq_view_nprojects(const gq_view_t *v);
int gq_view_find_project(const gq_view_t *v, const char *account);
const gq_dept_t *gq_view_dept(const gq_view_t *v, int idx);
int gq_view_ndepts(const gq_view_t *v);
int gq_view_min_runtime(const gq_view_t *v);

/*
 * Reclaims in flight (gq_reclaim_at_t, pass.h): Slurm has requeued victims for these preemptors,
 * which have not started yet.  While one of them is still pending and
 * eligible, every pending job with GPUs outside the in-quota band that
 * could start on one of its victims' nodes (gq_waits_could_land; any
 * node when they are not known, or without placement) waits (hold
 * GQ_HOLD_RECLAIM, waits_for: the first such preemptor), so that the
 * GPUs freed for it are not lent to other work for the seconds until it
 * starts, and that work then requeued again; the rest may start on
 * every other node.  In-quota jobs of other projects may still start:
 * the GPUs are theirs too.  After gq_view_compute; jobs added later get
 * the same hold.  Returns how many of the preemptors still wait.  O(N +
 * E) once, when nodes are noted, then O(J x K) for K nodes noted in all.
 * The rule is waits.c's.
 */
int gq_view_wait_for_reclaims(gq_view_t *v, const gq_reclaim_at_t *r,
			      int n);

/*
 * The reclaims in flight whose preemptors are this pass's (the same as
 * gq_view_wait_for_reclaims gets), before gq_view_compute: the GPUs idle
 * on a pending preemptor's victims' nodes (none when they are not known)
 * are promised to it, so the
 * patience rule (patience.h) does not count them as room for another job.
 * gq_view_begin forgets them.  Returns 0, or -1 when out of memory (none
 * noted: the pass counts those GPUs as idle, as without the call).  O(n).
 */
int gq_view_expect_reclaims(gq_view_t *v, const gq_reclaim_at_t *r, int n);

/*
 * Room wait (docs/MODEL.md "Holds"): the in-quota jobs of the pass that
 * ask GPUs per node and can get room on no node they may use (no node
 * has idle GPUs plus candidates within the floors enough), but would fit
 * on those nodes emptied; highest priority first (the order Slurm tries
 * them).  Set by the pass (room.c), placement only.  O(1).
 */
int gq_view_room_waiters(const gq_view_t *v, const uint32_t **ids);

/*
 * Keep the GPUs that come free on one node for `id` (one of
 * gq_view_room_waiters): the node where it can start soonest
 * (gq_room_node_t, room.h; gq_room_wait_node; `prefer`, the node it was kept on before, while
 * that node can still take it, so that the node does not change from
 * pass to pass; -1: none).  Every pending job with GPUs outside the
 * in-quota band that could start on that node waits (hold GQ_HOLD_ROOM,
 * waits_for: id; gq_waits_could_land); the others may use every other
 * node.  For a view where no reclaim is in flight
 * (gq_view_wait_for_reclaims found none).  0: nobody.  Jobs added later
 * get the same hold when they could start there.  Returns whether GPUs
 * are kept for id: false when it is no longer one to keep GPUs for, or no
 * node it may use can take it.  O(J + P + N + E log E).
 */
bool gq_view_keep_room(gq_view_t *v, uint32_t id, int prefer);

/*
 * Save the node where room waiter `id` can start soonest, and a gang's
 * next soonest (saved_node.h): the jobs that may reclaim and can start
 * elsewhere take no victim there.
 * Nothing is held.  `prefer` as for gq_view_keep_room.  id 0, or a job no
 * longer to save a node for: none saved.  True when a node is saved.
 * gq_view_keep_room saves its node too.  O(J + (N + E) per shape).
 */
bool gq_view_save_node(gq_view_t *v, uint32_t id, int prefer);
/* The same, with the nodes saved before (prefer[0 .. nprefer)): each
 * kept while the waiter may use it (gq_room_wait_nodes). */
bool gq_view_save_nodes(gq_view_t *v, uint32_t id, const int *prefer,
			int nprefer);

/* The n nodes saved in the pass before (n 0: none; at most
 * GQ_RECLAIM_NODES kept): room sets of this pass take them last
 * (docs/MODEL.md "The saved node").  Before gq_view_compute.  O(n). */
void gq_view_saved_before(gq_view_t *v, const int *nodes, int n);

/* The job a node is saved for, or 0; its first node (node -1: none);
 * all its nodes (*nodes, the count returned; the first is the first). */
uint32_t gq_view_saved_for(const gq_view_t *v);
const gq_room_node_t *gq_view_saved_node(const gq_view_t *v);
int gq_view_saved_nodes(const gq_view_t *v, const int **nodes);

/*
 * A move for the job the node is saved for (move.h, docs/MODEL.md
 * "Moves"): after gq_view_save_node, offer it another project's in-quota
 * jobs on its node that can restart at once elsewhere, with the borrowed
 * work there, as its room set.  rules->min_runtime is the pass'.
 * Planned once a pass: a later call (a reclaim between passes) keeps
 * that plan.  True when a move is offered.  O(N + E + P) per job tried.
 */
bool gq_view_move(gq_view_t *v, const gq_move_rules_t *rules);

/* The pass' move (waiter 0: none).  O(1). */
const gq_move_t *gq_view_move_of(const gq_view_t *v);

/* The node a job moved for preemptor restarts on; -1: the pair is no
 * move.  O(GQ_MOVE_MAX). */
int gq_view_move_to(const gq_view_t *v, uint32_t preemptor, uint32_t victim);

/* The job freed GPUs are kept for (gq_view_keep_room), or 0. */
uint32_t gq_view_kept_for(const gq_view_t *v);

/* The node they are kept on, with its numbers (node -1: none). */
const gq_room_node_t *gq_view_kept_node(const gq_view_t *v);

/*
 * A job is gone between passes: a victim Slurm is about to requeue, a job
 * that ended.  Its GPUs leave its project, and the candidates of its
 * project (and department) shrink to fit what they hold now, so that the
 * next preemption decision cannot take them below their floors.  O(jobs
 * of those projects).
 */
void gq_view_job_gone(gq_view_t *v, uint32_t id);

/*
 * May `preemptor` (pending) take the GPUs of `preemptee` (running)?
 * Quota reclaim for an in-quota preemptor, fair-share reclaim for a
 * fair-share one; never within a project (reclaim.h).  O(1).
 */
bool gq_view_preemptable(const gq_view_t *v, uint32_t preemptee,
			 uint32_t preemptor);

/* May `preemptor` reclaim at all (pending, not held, in-quota or
 * fair-share band)?  O(1). */
bool gq_view_may_reclaim(const gq_view_t *v, uint32_t preemptor);

/* Order of reclaim among candidates: lower first; UINT32_MAX otherwise. */
uint32_t gq_view_preempt_rank(const gq_view_t *v, uint32_t id);

#endif
