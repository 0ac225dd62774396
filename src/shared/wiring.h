/*
 * wiring.h - what gpuquota needs in slurm.conf besides its own two
 * plugins, judged from slurm.conf's values: said by priority/gpuquota at
 * slurmctld's start and by `gpuquota check`.
 */
#ifndef GPUQUOTA_WIRING_H
#define GPUQUOTA_WIRING_H

#include <stdbool.h>

/* Does the comma-separated plugin list (slurm.conf's JobSubmitPlugins,
 * NULL when unset) name `name` ("gpuquota" or "job_submit/gpuquota")? */
bool gq_wiring_lists(const char *list, const char *name);

/*
 * The error for slurm.conf's JobSubmitPlugins, or NULL when it lists
 * gpuquota: without job_submit/gpuquota a person's `scontrol hold` on a
 * job gpuquota holds would be undone by gpuquota's next release, so
 * priority/gpuquota refuses to start and `gpuquota check` fails.
 */
const char *gq_wiring_job_submit(const char *job_submit_plugins);

#endif
