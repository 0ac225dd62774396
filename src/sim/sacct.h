/*
 * sacct.h - a site's accounting history, as sacct writes it, into a
 * history.  The command an admin runs (slurmdbd's records of every
 * user's jobs, one line per run of a job allocation, '|' between fields,
 * a header line):
 *
 *   sacct -a -P -X -D -S 2026-01-01 -E 2026-02-01 \
 *     --format=JobID,Account,Partition,AllocTRES,ReqTRES,NNodes,Submit,Start,End,Elapsed,Timelimit,State
 *
 * Columns are found by the header's names (any order, others ignored;
 * End is not needed).  A job that never started (Start "Unknown" or
 * "None") and a job without a GPU in AllocTRES nor ReqTRES are left out
 * (counted in history.skipped).  GPUs: AllocTRES's gres/gpu (the sum of
 * its typed gres/gpu:T entries when the untyped one is missing), else
 * ReqTRES's; CPUs: its cpu=.  The run is Elapsed ([D-]HH:MM:SS, MM:SS),
 * whatever the State (a cancelled or failed job held its GPUs that
 * long); Timelimit UNLIMITED or Partition_Limit is no limit.  Times
 * (YYYY-MM-DDTHH:MM:SS) are read as UTC: only their differences count.
 * A requeued job has a line per run with -D (JobID the same, the earlier
 * runs' State PREEMPTED, REQUEUED, NODE_FAIL...; each later run's Submit
 * its requeue): its lines are one job, submitted at their earliest
 * Submit, the shape and Elapsed of its last run that started (the work
 * the earlier runs lost is the replay's to redo); without -D sacct
 * prints the last run alone, so a requeued job looks submitted at its
 * requeue.  JobID is compared whole: array tasks (12_3) and het job
 * components (12+1) are jobs of their own.  No Slurm header here.
 */
#ifndef GPUQUOTA_SIM_SACCT_H
#define GPUQUOTA_SIM_SACCT_H

#include <stddef.h>

#include "sim/history.h"

/*
 * Read the file at path into h.  Returns 0, or -1 with err naming the
 * file, line and field ("s.txt:3: Elapsed: not [D-]HH:MM:SS, got
 * '1:x'").  O(lines x accounts): a line's JobID is found in O(1).
 */
int gq_sim_read_sacct(const char *path, gq_sim_history_t *h, char *err,
		      size_t errlen);

#endif
