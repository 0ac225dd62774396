/*
 * ledger.h - `gpuquota ledger`: who took GPUs from whom, read from the
 * reclaim ledger priority/gpuquota keeps in StateSaveLocation
 * (state/ledger.h), summed per day or week and project: the GPUs each
 * project lent (taken from it) and borrowed back (taken for it), the
 * reclaims, and the GPU-hours the requeues lost.
 */
#ifndef GPUQUOTA_CLI_LEDGER_H
#define GPUQUOTA_CLI_LEDGER_H

/*
 * argv[0] is "ledger"; its options:
 *   --since YYYY-MM-DD   records from that day (UTC) on
 *   --project P          records naming P (either side), P's rows
 *   --by day|week        the periods (default day; weeks from Monday, UTC)
 *   --json               the records and the same sums as JSON
 *   --dir DIR            the ledger in DIR, not slurm.conf's
 *                        StateSaveLocation (no controller asked)
 * The files are slurmctld's (mode 0600, SlurmUser's): run as root or
 * SlurmUser.  Returns the exit status: 0; 1 when the files cannot be
 * read (said on stderr); 2 for bad options.
 */
int gq_ledger_command(int argc, char **argv);

#endif
