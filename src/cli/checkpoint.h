/*
 * checkpoint.h - `gpuquota checkpoint [JOBID]`: a job says it has just
 * saved its state, so that a reclaim prefers victims that lose the least
 * work (docs/MODEL.md "Reclaim order").  The note goes into the job's
 * comment (shared/job_facts.h GQ_CHECKPOINT_KEY) through Slurm's own job
 * update, which only the job's owner and operators may make.
 */
#ifndef GPUQUOTA_CLI_CHECKPOINT_H
#define GPUQUOTA_CLI_CHECKPOINT_H

/*
 * Note now as job `arg`'s last checkpoint (NULL: the job this runs in,
 * SLURM_JOB_ID).  Returns the exit status: 0, 1 when Slurm refused or
 * could not be reached (said on stderr), 2 for a bad job id.
 */
int gq_checkpoint_command(const char *arg);

#endif
