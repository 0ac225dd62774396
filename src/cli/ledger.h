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
 *   --since TIME         records from then on: YYYY-MM-DD[THH:MM[:SS]]
 *                        (UTC), now, now-COUNT[UNIT] or -COUNT[UNIT], UNIT
 *                        s, m, h, d or w (sacct's --starttime forms,
 *                        tools/cli_text.h)
 *   --noheader, -P/--parsable  the table without its header, or with
 *                        fields separated by '|' and not padded
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
