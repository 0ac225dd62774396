/*
 * pass_thread.h - priority/gpuquota's pass thread in slurmctld
 * (pass_thread.c): a pass every recompute_interval seconds and soon after
 * each submit, reload and job end, paced; each pass in two holds of
 * slurmctld's locks, timed into the metrics (docs/DEVELOPING.md "A pass
 * in two lock holds"); and the re-hold after a reclaim inside Slurm's
 * main cycle.
 */
#ifndef GPUQUOTA_PLUGIN_PASS_THREAD_H
#define GPUQUOTA_PLUGIN_PASS_THREAD_H

#include <stdbool.h>

/*
 * Start the pass thread, and let the state ask it for a re-hold
 * (gq_state_t.pass_now) and read the completing nodes
 * (gq_state_t.completing_nodes).  In slurmctld only, from init or, where
 * Slurm has it, thread_start; once: the caller asks gq_passes_running
 * first.  Takes the state lock; caller holds none.
 */
void gq_passes_start(void);

/* Is the pass thread running (started, not stopped)?  O(1). */
bool gq_passes_running(void);

/*
 * From fini: the state's hooks unset, the pass thread stopped and joined
 * (a pass in progress ends first); nothing when it is not running.
 * Takes the state lock; caller holds none of slurmctld's locks.
 */
void gq_passes_stop(void);

/*
 * Ask for a pass soon (a reload; a submit or job end while a job is held,
 * blocked or needs victims, core/pass_soon.h): it runs at least
 * 0.5 s after the last one ended, and every ask until then is served.
 * Does not block; any locks may be held.  O(1).
 */
void gq_passes_want(void);

#endif
