/*
 * sim_plot.h - `gpuquota simulate --plot FILE.png`: each project's GPUs
 * over time under each configuration, a panel per configuration, drawn
 * by gnuplot from the replays' series (src/sim/series.h).
 *
 * Owns the files beside FILE.png: FILE.dat (a block per configuration:
 * days from the first submit, hours when the first replay spans less
 * than two; all projects' GPUs, then each project's, the mean over each
 * step, projects in the order of their GPU-hours under the first
 * configuration) and FILE.gp (the gnuplot script:
 * stacked steps of the GQ_SIM_PLOT_TOP busiest projects, the rest as
 * "others", the capacity dashed, each of those projects' quota a dotted
 * line in its colour), then runs `gnuplot FILE.gp`.
 */
#ifndef GPUQUOTA_SIM_PLOT_H
#define GPUQUOTA_SIM_PLOT_H

#include <stdint.h>

#include "sim/replay.h"

#define GQ_SIM_PLOT_POINTS 2000	/* steps a replay's series keeps */
#define GQ_SIM_PLOT_TOP 12	/* projects drawn each on its own */

/*
 * Write FILE.dat and FILE.gp for n replays (their projects in the same
 * order, each with a series) labelled label[], on `capacity` GPUs, and
 * run gnuplot on them.  0, or 1 with the reason on stderr (a file not
 * written; gnuplot not found or failed: the data and script are kept
 * and named).  O(n x steps x projects) to write.
 */
int gq_sim_plot(const char *png, const gq_sim_result_t *r,
		const char *const *label, int n, uint64_t capacity);

#endif
