/*
 * replay.h - a job history replayed on a model of the cluster, under one
 * configuration of gpuquota or under stock Slurm (the simulator's event
 * loop).
 *
 * Owns: the model's clock and events (events.h: submits, ends, grace
 * expiries, begin times, wake-ups), its jobs' states, Slurm's scheduling
 * as modelled (cluster.h's placement; jobs tried in Slurm's order, the
 * priority the core gave, then submit time, then id; every job that fits
 * now without delaying a backfill reservation (reservation.h) started,
 * held jobs never), and gpuquota's part as slurmctld runs
 * it: a pass (shared/pass_input.h's gq_pass_fill and gq_pass_compute on
 * the state's next view, published, usage advanced) at each tick of the
 * pass interval after something changed; a job submitted between passes
 * added late to the published view (priority/gpuquota's priority_p_set);
 * each job's hold and priority from gq_pools_answer (write_slurm.c's
 * decision); a reclaim as preempt/gpuquota answers Slurm (the same state
 * and view calls) with cons_tres's choice of victims modelled; a job's
 * end and a victim taken told to the state (gq_state_job_gone).
 * "Stock" is Slurm's order without gpuquota: submit time, then id; no
 * hold, no reclaim.
 *
 * Uses the process' one gpuquota state (state.h): one replay at a time,
 * the state cleared before and after.  Deterministic: the same input
 * gives the same result.  No Slurm header here.
 */
#ifndef GPUQUOTA_SIM_REPLAY_H
#define GPUQUOTA_SIM_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "sim/cluster.h"
#include "sim/history.h"
#include "sim/series.h"

#define GQ_SIM_REQUEUE_DELAY 121	/* Slurm's cred_expire (120 s) + 1 */
#define GQ_SIM_IDLE_PASS 60

typedef struct {
	const gq_sim_history_t *history;
	gq_sim_cluster_t *cluster;	/* its idle GPUs are the replay's */
	const char *config;	/* gpuquota.json; NULL: stock Slurm */
	const gq_config_t *quotas;	/* the quotas "time below quota" is
					 * measured against (NULL: none) */
	int pass_interval;	/* seconds; 0: the configuration's
				 * recompute_interval */
	int requeue_delay;	/* a requeued job's begin time, seconds
				 * after its requeue */
	int idle_pass;		/* with usage_half_life, a pass at least
				 * this often while jobs wait (seconds) */
	int series_points;	/* the projects' GPUs over time in at most
				 * this many steps (series.h); 0: none */
	int64_t until;		/* seconds after the first submit the
				 * replay stops: jobs submitted later are
				 * left out, the figures cut there (the
				 * GPU-seconds of jobs still running
				 * counted to it); 0: until the last job
				 * ends */
	bool fold_unlisted;	/* the accounts no project of `quotas`
				 * lists: one project, "(others)"
				 * (projects.h); false: each its own */
	bool no_reservation;	/* backfill without reservations
				 * (reservation.h): every job that fits
				 * now starts */
} gq_sim_opts_t;

/* One account's figures; a project's too (projects.h), `account` then
 * naming the project. */
typedef struct {
	const char *account;
	int project;		/* an account's: its index in proj */
	double quota;		/* from opts.quotas; 0: none */
	double gpu_secs;	/* GPU-seconds its jobs held */
	double lost_secs;	/* of them, lost to requeues */
	int64_t below_secs;	/* seconds below min(quota, its demand) with
				 * demand pending */
	uint32_t jobs, requeues, never_started;
	double wait_p50, wait_p95;	/* seconds pending, per job */
	/* while replaying */
	uint32_t alloc;		/* GPUs its jobs hold now */
	uint64_t pending;	/* GPUs its eligible pending jobs ask */
} gq_sim_acct_t;

/* One job's outcome. */
typedef struct {
	int64_t first_start;	/* -1: never started */
	int64_t last_start;
	int64_t wait;		/* seconds pending, over its runs */
	uint32_t requeues;
	int acct;		/* its account's index in acct */
} gq_sim_outcome_t;

typedef struct {
	gq_sim_acct_t *acct;
	int nacct;
	gq_sim_outcome_t *job;	/* by history index */
	gq_sim_acct_t *proj;	/* by project of opts.quotas (projects.h) */
	int nproj;
	int others;		/* the index in proj of "(others)", the
				 * unlisted accounts folded; -1: none */
	double idle_waiting_secs;	/* GPU-seconds idle while an eligible
					 * job waited; of them: */
	double idle_fragmented_secs;	/* a job waited for room on one node
					 * (idle_kind.h) */
	double idle_held_secs;	/* a job that fit was held by gpuquota */
	double idle_reserved_secs;	/* else, a job that fit waited behind
					 * a backfill reservation */
	gq_sim_series_t series;	/* the projects' GPUs over time */
	uint64_t passes, reclaims;
	uint64_t moves;		/* of the reclaims' victims, jobs moved
				 * (docs/MODEL.md "Moves") */
	int64_t span;		/* first submit to last event, seconds */
} gq_sim_result_t;

/*
 * Replay o->history.  Returns 0, or -1 with err (the configuration's
 * error as the plugin says it, or out of memory).  O(events x (A +
 * eligible pending) + passes x (J + N) + reclaim attempts x running
 * jobs x N): see replay.c.
 */
int gq_sim_replay(const gq_sim_opts_t *o, gq_sim_result_t *r, char *err,
		  size_t errlen);

void gq_sim_result_free(gq_sim_result_t *r);

/* The quota of `account` in cfg (its project's, summed over pools),
 * 0 when no project lists it.  O(projects x accounts). */
double gq_sim_quota_of(const gq_config_t *cfg, const char *account);

#endif
