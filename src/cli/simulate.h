/*
 * simulate.h - `gpuquota simulate`: a site's history replayed under
 * proposed configurations and stock Slurm (src/sim/), side by side.
 * Reads files only: no controller is asked.
 */
#ifndef GPUQUOTA_SIMULATE_H
#define GPUQUOTA_SIMULATE_H

/* argv[0] is "simulate".  Returns the exit status. */
int gq_simulate_command(int argc, char **argv);

#endif
