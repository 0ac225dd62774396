/*
 * reclaim_note.h - what a victim's own record says of its reclaim
 * (docs/MODEL.md "What admins see", "Ledger"): its system comment, in
 * slurmctld's record, and with slurmdbd a note in its admin comment, the
 * one text field of a job slurmctld sends slurmdbd (at each end of a run,
 * a requeue's included; the system comment never is).
 */
#ifndef GPUQUOTA_RECLAIM_NOTE_H
#define GPUQUOTA_RECLAIM_NOTE_H

#include "shared/slurm_compat.h"

#include "state/ledger.h"

/*
 * Write victim job_ptr's system comment for its ledger record r (a warned
 * victim: for whom, warned; else for whom and the GPU-seconds lost; a
 * moved job also where it restarts, `moved_to`, when known) and,
 * when slurmctld stores accounting in slurmdbd, gpuquota's note in its
 * admin comment (gq_facts_reclaim_note, for the run that started at
 * run_start): an earlier note of gpuquota replaced, the site's text kept;
 * none written when the comment would pass GQ_ADMIN_COMMENT_MAX (said in
 * the log) or memory runs out.  Caller holds the job write lock.
 * O(comment).
 */
void gq_reclaim_note_write(job_record_t *job_ptr, const gq_ledger_rec_t *r,
			   int64_t run_start, const char *moved_to);

#endif
