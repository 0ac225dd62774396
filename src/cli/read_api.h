/*
 * read_api.h - slurmctld's state through libslurm's public API into the
 * core's inputs: the command's counterpart of plugins/read_slurm.c.  It
 * only copies fields into a pass input; what they mean is decided in
 * shared/job_facts.h, and the pass is filled by shared/pass_input.h, the
 * same rules and steps the plugins use.
 */
#ifndef GPUQUOTA_READ_API_H
#define GPUQUOTA_READ_API_H

#include <stdint.h>
#include <time.h>

#include <slurm/slurm.h>

#include "config/config.h"
#include "core/pools.h"
#include "core/view.h"

typedef struct {
	job_info_msg_t *jobs;
	node_info_msg_t *nodes;	/* with their partitions filled in */
	partition_info_msg_t *parts;	/* numbered from 1: node groups */
	uint16_t preempt_exempt_time;	/* PreemptExemptTime, seconds */
	uint16_t kill_wait;		/* KillWait, seconds */
	int requeue_delay;	/* gq_facts_requeue_delay, seconds */
	double mf_weights;	/* gq_priority_weights with multifactor inside
				 * gpuquota (settings.multifactor), else -1 */
} gq_api_t;

/* The QOS priority of a job's QOS name (0 when unknown). */
typedef uint32_t (*gq_qos_priority_t)(const char *qos, void *ctx);

/*
 * Load nodes, partitions and jobs (all of them, with pending arrays'
 * task lists in full).  Returns 0, or -1 with Slurm's error printed.
 */
int gq_api_load(gq_api_t *a, const slurm_conf_t *conf);
void gq_api_free(gq_api_t *a);

/*
 * The core's input for one job; qos may be NULL (no QOS priorities);
 * array_running: tasks of j's array running now (for its %N throttle).
 */
void gq_api_job(const slurm_job_info_t *j, time_t now, gq_qos_priority_t qos,
		void *qos_ctx, uint32_t array_running, gq_job_in_t *out);

/* Which pool is this job in (gq_pool_of_job), or -1. */
int gq_api_pool(const gq_pools_t *p, const slurm_job_info_t *j);

/*
 * Fill each pool's view for a pass with the plugin's one step
 * (shared/pass_input.h: nodes, capacity, node groups, jobs, placement,
 * shadows, PreemptExemptTime), from the messages read into the same pass
 * input as the plugin's; caps[k] gets pool k's C.  (Slurm's account tree
 * comes from slurmdbd: the caller adds it.)  Returns 0, or -1 when out of
 * memory.  O(pools x (J + N)).
 */
int gq_api_read_pass(const gq_api_t *a, gq_pools_t *p, time_t now,
		     gq_qos_priority_t qos, void *qos_ctx, double *caps);

#endif
