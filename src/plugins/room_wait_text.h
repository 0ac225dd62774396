/*
 * room_wait_text.h - what squeue and slurmctld's log say of a room wait
 * (docs/MODEL.md "Holds", room wait) and of a saved node ("The saved
 * node"): the node saved or GPUs are kept on and why there, and one log
 * line when either begins, moves or ends.  The holds of the work that
 * waits for it are hold.c's.
 */
#ifndef GPUQUOTA_ROOM_WAIT_TEXT_H
#define GPUQUOTA_ROOM_WAIT_TEXT_H

#include <time.h>

#include "core/pools.h"
#include "core/view.h"

/*
 * The name of the node of index `node` in a view (Slurm's node table
 * index: read_slurm.c), or "?" when there is none (a reconfiguration
 * since the pass).  Caller holds the node read lock.
 */
const char *gq_room_node_name(int node);

/* The names of the nodes saved in a view, the first first, ", " between
 * them, into buf (n bytes; cut short when they do not fit).  Returns how
 * many nodes are saved (more than one: a gang's).  Caller holds the node
 * read lock.  O(GQ_RECLAIM_NODES). */
int gq_room_saved_names(const gq_view_t *view, char *buf, size_t n);

/*
 * The squeue reason of a job held for a room wait (GQ_HOLD_ROOM, hold.c):
 * on which node, for whom freed GPUs are kept, and what it needs
 * (xmalloc'd; NULL out of memory).
 */
char *gq_room_hold_text(const gq_view_t *view, uint32_t id);

/* "4 GPUs on one node", "2 GPUs on each of 3 nodes": what `job` needs. */
void gq_room_shape(const gq_job_t *job, char *buf, size_t n);

/*
 * Why the waiter can start soonest on `at` (gq_room_node_t): "0 GPUs
 * idle, 2 it may reclaim, the rest when jobs there reach their time
 * limit, in 170 s".
 */
void gq_room_why(const gq_room_node_t *at, time_t now, char *buf, size_t n);

/*
 * One line in slurmctld's log for each pool whose saved node or room wait
 * began, moved to another job or node, or ended since the last line (a
 * wait lasts many passes: it is written once).  squeue shows the same in the
 * waiter's reason, but Slurm clears that at each scheduling attempt, so
 * the log is where an admin (and a test) reads it for sure.  Pools are
 * matched by index (a reload that changes them may log a wait again).
 * O(pools).  Pass thread only; caller holds the node read lock.
 */
void gq_room_log_changes(const gq_pools_t *pools, time_t now);

/* What gq_room_log_changes noted, freed (the pass thread stopped). */
void gq_room_log_free(void);

#endif
