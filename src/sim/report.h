/*
 * report.h - replays side by side: per project (projects.h), and per
 * account, GPU-hours, wait p50/p95, time below quota, requeues and
 * GPU-hours lost, one column per configuration; the cluster's idle
 * GPU-hours while jobs waited, and of them those fragmented and those
 * held (model.h, gq_sim_idle_kind); as text (the projects' tables, then
 * the accounts' when asked; the accounts folded into "(others)",
 * projects.h, one row of each) or JSON (both; "accounts" every one).
 * No Slurm header here.
 */
#ifndef GPUQUOTA_SIM_REPORT_H
#define GPUQUOTA_SIM_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "sim/replay.h"

/* Results of n replays of one history (their accounts and projects in
 * the same order), with each one's label ("stock", a file's path); the
 * accounts' tables in the text too when `accounts`. */
void gq_sim_report_text(FILE *f, const gq_sim_result_t *r,
			const char *const *label, int n, bool accounts);
int gq_sim_report_json(FILE *f, const gq_sim_result_t *r,
		       const char *const *label, int n);

#endif
