/*
 * metrics.h - `gpuquota metrics`: what gpuquota is doing, as Prometheus
 * text exposition (docs/MODEL.md "Metrics").
 *
 * Owns the metric names and what each means.  Per project and department
 * the numbers come from the command's own pass over Slurm's public API
 * (the same core as `gpuquota projects`); what only the plugin knows
 * (passes, lock hold, reclaims, victims, holds, releases) from the file it
 * writes after each pass (state/metrics_file.h).
 */
#ifndef GPUQUOTA_CLI_METRICS_H
#define GPUQUOTA_CLI_METRICS_H

#include <slurm/slurm.h>

#include "tools/prom.h"
#include "core/view.h"

/* "under-quota", "at-quota" or "over-quota" (as `gpuquota projects`). */
const char *gq_quota_state(double alloc, double quota);

/*
 * The exposition into out: each pool's capacity, every project and
 * department of each pool's view (pending jobs of `jobs` it holds counted
 * as held; label pool=names[k] where there are pools, names NULL or its
 * entries NULL where not), and the plugin's metrics read from state_path
 * (NULL: none).  A missing file is reported in gpuquota_metrics_file_ok 0
 * with a warning on stderr.  Returns 0, or -1 when the file is not the
 * plugin's or memory ran out, with the reason in err.
 */
int gq_metrics_render(gq_view_t *const *views, char *const *names,
		      const double *caps, int npools,
		      const job_info_msg_t *jobs, const char *state_path,
		      gq_prom_t *out, char *err, size_t errlen);

/* gpuquota_mode{mode="enforce"|"observe"}: 1 for `observe`'s mode, 0
 * for the other (settings.mode, docs/MODEL.md "Observe mode"). */
void gq_metrics_mode(gq_prom_t *out, bool observe);

#endif
