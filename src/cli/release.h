/*
 * release.h - `gpuquota release`: what gpuquota did to Slurm's jobs
 * undone, so that a site can take it out (README "Turning it off").
 */
#ifndef GPUQUOTA_RELEASE_H
#define GPUQUOTA_RELEASE_H

#include <stdbool.h>

/*
 * Through libslurm's public API, for every pending job: gpuquota's hold
 * released, an array throttle it lowered given back to the user's (from
 * StateSaveLocation's throttle file), the site factor it set on a job of
 * its pools reset to 0.  Its system comments stay as history.  dry_run:
 * only say what would change.  Returns the exit status: 0, or 1 when
 * Slurm refused a change or could not be read.  O(jobs + throttle
 * entries x log).
 */
int gq_release_command(bool dry_run);

#endif
