/*
 * sim_helpers.h - the simulator's tests' shared setup (test_sim.c,
 * test_sim_report.c): histories from trace text, replays on uniform
 * clusters, README's quick start.  Apart from helpers.c, which the glue
 * tests link without src/sim.
 */
#ifndef GPUQUOTA_TEST_SIM_HELPERS_H
#define GPUQUOTA_TEST_SIM_HELPERS_H

#include "sim/replay.h"

/* A Philly-shaped trace of `body` lines (after the header) into h, on
 * nodes of `gpus` GPUs. */
void read_trace(const char *body, uint32_t nodes, uint32_t gpus,
		gq_sim_history_t *h);

/* Replay h on n nodes of g GPUs under `config` (NULL: stock). */
void replay(const gq_sim_history_t *h, int n, uint32_t g, const char *config,
	    gq_sim_result_t *r);

/* The same with the options' quotas and series points. */
void replay_with(const gq_sim_history_t *h, int n, uint32_t g,
		 const char *config, const gq_config_t *quotas, int points,
		 gq_sim_result_t *r);

/* The same for the first `until` seconds only (0: the whole history). */
void replay_until(const gq_sim_history_t *h, int n, uint32_t g,
		  const char *config, const gq_config_t *quotas, int points,
		  int64_t until, gq_sim_result_t *r);

/* Stock on n nodes of g GPUs, the accounts no project of `quotas` lists
 * folded into "(others)" (gq_sim_opts_t.fold_unlisted). */
void replay_folded(const gq_sim_history_t *h, int n, uint32_t g,
		   const gq_config_t *quotas, gq_sim_result_t *r);

/* README's quick start as a history: 2 nodes x 2 GPUs, team-a (ua) and
 * team-b (ub) 2 GPUs each (quick_config(): free the path); a1 (1 GPU)
 * at 0, a2 (2) at 1, b1 (1) at 2, b2 (1) at 10; each runs an hour. */
extern const char *quick_start;
char *quick_config(void);

#endif
