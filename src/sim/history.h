/*
 * history.h - a job history to replay (the simulator's input): each job
 * as it was submitted, with its shape and how long it ran.
 *
 * Owns: the job list and its names (accounts, partitions), interned so
 * that a job's account is one pointer the replay compares and hands to
 * the core.  The readers (trace_csv.h, sacct.h) fill it; the replay
 * (replay.h) reads it in submit order.  No Slurm header here.
 */
#ifndef GPUQUOTA_SIM_HISTORY_H
#define GPUQUOTA_SIM_HISTORY_H

#include <stddef.h>
#include <stdint.h>

/* A job of the history. */
typedef struct {
	uint32_t id;		/* the replay's id: 1.. in submit order */
	uint32_t src_id;	/* its id in the input (trace row, sacct's
				 * job id without array or step suffix) */
	const char *account;	/* interned (gq_sim_intern) */
	const char *partition;	/* interned; NULL: no partition named */
	int64_t submit;		/* seconds */
	int64_t run;		/* seconds it runs to its end, uninterrupted */
	int64_t limit;		/* its time limit, seconds; 0: none */
	uint32_t gpus;		/* all nodes, >= 1 */
	uint32_t nodes;		/* >= 1; more than one: whole nodes */
	uint32_t cpus;		/* all nodes; 0: not known */
} gq_sim_job_t;

typedef struct {
	gq_sim_job_t *job;
	size_t n, cap;
	char **name;		/* interned names */
	size_t nnames, names_cap;
	size_t skipped;		/* input jobs left out (never ran, no GPU) */
} gq_sim_history_t;

/* Room for one more job: a zeroed record, or NULL out of memory.
 * O(1) amortized. */
gq_sim_job_t *gq_sim_history_add(gq_sim_history_t *h);

/*
 * The history's one copy of the name of `len` bytes at s (NULL out of
 * memory).  O(names): a history has tens to hundreds of accounts.
 */
const char *gq_sim_intern(gq_sim_history_t *h, const char *s, size_t len);

/*
 * Sort the jobs by submit time (then input order) and number them 1.. in
 * that order.  O(J log J).
 */
void gq_sim_history_sort(gq_sim_history_t *h);

void gq_sim_history_free(gq_sim_history_t *h);

#endif
