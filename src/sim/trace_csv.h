/*
 * trace_csv.h - a GPU cluster trace in the shape of Microsoft's Philly
 * trace as its philly_15k.csv has it (columns u_id, user,
 * gpu_num, cpu_num, node_num, interval, run_time, wall_time, new_status;
 * a header line names them, in any order) into a history.
 *
 * Mapped as tests/bench/cluster/trace_workload.py maps it, without its
 * scaling: the first job is submitted at GQ_SIM_TRACE_EPOCH, each next one `interval`
 * seconds after the one before; it runs run_time seconds (at least 1)
 * whatever its status (a failed or killed job held its GPUs that long);
 * user U is account "uU" (the project names of trace_workload.py); a
 * job of node_num k > 1 asks min(k, nodes) whole nodes of gpus_per_node
 * GPUs, a one-node job min(gpu_num, gpus_per_node) GPUs (at least 1);
 * no time limit, no partition.  No Slurm header here.
 */
#ifndef GPUQUOTA_SIM_TRACE_CSV_H
#define GPUQUOTA_SIM_TRACE_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "sim/history.h"

/* The trace's first submit, as a Unix time (only differences count; a
 * time of 0 means "none" to Slurm's fields). */
#define GQ_SIM_TRACE_EPOCH 1700000000

/*
 * Read the trace at path into h.  Returns 0, or -1 with err naming the
 * file, line and field ("t.csv:12: gpu_num: must be an integer >= 0,
 * got 'x'").  O(lines x accounts).
 */
int gq_sim_read_trace(const char *path, uint32_t nodes, uint32_t gpus_per_node,
		      gq_sim_history_t *h, char *err, size_t errlen);

#endif
