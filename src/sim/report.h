/*
 * report.h - replays side by side: per account GPU-hours, wait p50/p95,
 * time below quota, requeues and GPU-hours lost, one column per
 * configuration; the cluster's idle GPU-hours while jobs waited; as text
 * or JSON.  No Slurm header here.
 */
#ifndef GPUQUOTA_SIM_REPORT_H
#define GPUQUOTA_SIM_REPORT_H

#include <stdio.h>

#include "sim/replay.h"

/* Results of n replays of one history (their accounts in the same
 * order), with each one's label ("stock", a file's path). */
void gq_sim_report_text(FILE *f, const gq_sim_result_t *r,
			const char *const *label, int n);
int gq_sim_report_json(FILE *f, const gq_sim_result_t *r,
		       const char *const *label, int n);

#endif
