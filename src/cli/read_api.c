/*
 * read_api.c - the command's reading of slurmctld through libslurm's
 * public API (see read_api.h).
 */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/read_api.h"
#include "core/constraint.h"
#include "core/gres_text.h"
#include "core/hash.h"
#include "shared/job_facts.h"

int gq_api_load(gq_api_t *a, const slurm_conf_t *conf)
{
	memset(a, 0, sizeof(*a));
	a->preempt_exempt_time = conf->preempt_exempt_time;
	a->mf_weights = -1;	/* the caller knows the configuration */
	/* pending arrays' task lists in full, not cut at 64 characters */
	setenv("SLURM_BITSTR_LEN", "0", 1);
	/* SHOW_DETAIL: the GPUs in use on each node (gres_used): without it
	 * Slurm sends none, and a node that does not respond or drains would
	 * count 0 of its jobs' GPUs in C, an idle node's GPUs all free */
	if (slurm_load_node(0, &a->nodes, SHOW_ALL | SHOW_DETAIL) ||
	    slurm_load_partitions(0, &a->parts, SHOW_ALL)) {
		slurm_perror("gpuquota: loading nodes and partitions");
		gq_api_free(a);
		return -1;
	}
	/* node_info_t.partitions is filled in client side */
	slurm_populate_node_partitions(a->nodes, a->parts);
	/* SHOW_DETAIL: each running job's GPUs node by node */
	if (slurm_load_jobs(0, &a->jobs, SHOW_ALL | SHOW_DETAIL)) {
		slurm_perror("gpuquota: slurm_load_jobs");
		gq_api_free(a);
		return -1;
	}
	return 0;
}

void gq_api_free(gq_api_t *a)
{
	slurm_free_job_info_msg(a->jobs);
	slurm_free_node_info_msg(a->nodes);
	slurm_free_partition_info_msg(a->parts);
	memset(a, 0, sizeof(*a));
}

/* GPUs a pending job asks for, all nodes (gres per job, node, task) */
static uint64_t _requested_gpus(const slurm_job_info_t *j)
{
	uint64_t n = gq_gres_text_gpus(j->tres_per_job);
	uint32_t nodes = j->num_nodes ? j->num_nodes : 1;

	n += gq_gres_text_gpus(j->tres_per_node) * nodes;
	n += gq_gres_text_gpus(j->tres_per_task) *
	     (j->num_tasks && j->num_tasks != NO_VAL ? j->num_tasks : 1);
	return n;
}

/* GPUs a running job holds, node by node (SHOW_DETAIL) */
static uint64_t _allocated_gpus(const slurm_job_info_t *j)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < j->gres_detail_cnt; i++)
		n += gq_gres_text_gpus(j->gres_detail_str[i]);
	return n ? n : _requested_gpus(j);
}

static bool _is_array_record(const slurm_job_info_t *j)
{
	return j->array_task_str && j->array_task_id == NO_VAL;
}

void gq_api_job(const slurm_job_info_t *j, time_t now, gq_qos_priority_t qos,
		void *qos_ctx, uint32_t array_running, gq_job_in_t *out)
{
	gq_job_facts_t f = {
		.id = j->job_id,
		.job_state = j->job_state,
		.batch = j->batch_flag,
		.requeue = j->requeue,
		.qos_priority = qos && j->qos ? qos(j->qos, qos_ctx) : 0,
		.nice = j->nice,
		.priority = j->priority,
		.reason = j->state_reason,
		.state_desc = j->state_desc,
		.depends = j->dependency && *j->dependency,
		.begin_time = j->eligible_time,	/* the earliest begin time */
		.submit_time = j->submit_time,
		.start_time = j->start_time,
		.end_time = (j->time_limit == INFINITE ||
			     j->time_limit == NO_VAL) ? 0 : j->end_time,
	};

	if (gq_facts_running(&f)) {
		f.gpus = _allocated_gpus(j);
	} else {
		f.gpus = _requested_gpus(j);
		f.gpus_per_node = gq_gres_text_gpus(j->tres_per_node);
		f.nodes = j->num_nodes;
		if (_is_array_record(j)) {
			f.array_tasks = gq_array_task_count(j->array_task_str);
			f.array_throttle = j->array_max_tasks;
			f.array_running = array_running;
		}
	}
	gq_job_input(&f, now, out);
}

int gq_api_pool(const gq_pools_t *p, const slurm_job_info_t *j)
{
	gq_job_facts_t f = { .job_state = j->job_state };

	return gq_pool_of_job(p->config, p->n, j->partition,
			      gq_facts_running(&f));
}

/* Is the node in the pool's partitions (whatever its state)? */
static bool _node_in_pool(const gq_config_t *cfg, const node_info_t *n)
{
	return n->name && gq_pool_has(cfg, n->partitions);
}

double gq_api_capacity(const gq_api_t *a, const gq_config_t *cfg)
{
	double c = 0;
	uint32_t i;

	for (i = 0; i < a->nodes->record_count; i++) {
		const node_info_t *n = &a->nodes->node_array[i];

		if (_node_in_pool(cfg, n))
			c += gq_node_capacity(n->node_state,
					      gq_gres_text_gpus(n->gres),
					      gq_gres_text_gpus(n->gres_used));
	}
	return c;
}

/* A partition's number from 1 (its node group), by name; 0: none. */
static int _group_of(const gq_api_t *a, const char *name, size_t len)
{
	uint32_t i;

	for (i = 0; name && i < a->parts->record_count; i++) {
		const char *p = a->parts->partition_array[i].name;

		if (p && strlen(p) == len && !strncmp(p, name, len))
			return i + 1;
	}
	return 0;
}

/* Does the comma separated partition list name partition group `group`? */
static bool _lists_group(const gq_api_t *a, const char *parts, int group)
{
	const char *p = parts;

	while (group && p && *p) {
		size_t len = strcspn(p, ",");

		if (_group_of(a, p, len) == group)
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

/* A pending job's partition group (0: it lists several) */
static int _job_part(const gq_api_t *a, const slurm_job_info_t *j)
{
	if (!j->partition || strchr(j->partition, ','))
		return 0;
	return _group_of(a, j->partition, strlen(j->partition));
}

static bool _narrow_of(const gq_api_t *a, const slurm_job_info_t *j,
		       gq_narrow_t *w)
{
	return gq_narrow_of(_job_part(a, j), j->features, j->tres_per_node,
			    j->tres_per_job, w);
}

/*
 * Each node's idle GPUs and node groups, by its index in the node table:
 * its partitions, then the pending jobs' narrowings it allows, as the
 * plugin does (plugins/node_groups.c, core/constraint.h).
 */
static void _collect_narrows(const gq_api_t *a, gq_narrows_t *narrows)
{
	uint32_t i;

	for (i = 0; i < a->jobs->record_count; i++) {
		const slurm_job_info_t *j = &a->jobs->job_array[i];
		gq_narrow_t w;

		if ((j->job_state & JOB_STATE_BASE) == JOB_PENDING &&
		    _narrow_of(a, j, &w))
			gq_narrows_add(narrows, &w);
	}
}

static int _read_nodes(const gq_api_t *a, const gq_config_t *cfg,
		       gq_view_t *view, const gq_narrows_t *narrows)
{
	uint32_t i;
	int k, nparts = a->parts->record_count;

	if (gq_view_set_nodes(view, a->nodes->record_count) ||
	    gq_view_set_groups(view, nparts + narrows->n))
		return -1;
	for (i = 0; i < a->nodes->record_count; i++) {
		const node_info_t *n = &a->nodes->node_array[i];
		uint64_t total = gq_gres_text_gpus(n->gres);
		uint64_t used = gq_gres_text_gpus(n->gres_used);
		const char *p = n->partitions;

		while (p && *p) {
			size_t len = strcspn(p, ",");

			gq_view_node_group(view, i, _group_of(a, p, len));
			p += len + (p[len] == ',');
		}
		for (k = 0; k < narrows->n; k++) {
			const gq_narrow_t *w = &narrows->w[k];

			if (gq_narrow_allows(w, _lists_group(a, n->partitions,
							     w->part),
					     n->features_act ? n->features_act :
					     n->features, n->gres))
				gq_view_node_group(view, i, nparts + 1 + k);
		}

		if (!_node_in_pool(cfg, n))
			continue;
		if (gq_node_takes_work(n->node_state))
			gq_view_node_free(view, i, total > used ?
					  (uint32_t)(total - used) : 0);
		else	/* no room there (read_slurm.c does the same) */
			gq_view_close_node(view, i);
	}
	return 0;
}

/* Is one of a running job's nodes (node_inx) not responding (not DOWN)? */
static bool _on_node_not_responding(const gq_api_t *a,
				    const slurm_job_info_t *j)
{
	int r, n;

	for (r = 0; j->node_inx && j->node_inx[r] >= 0; r += 2)
		for (n = j->node_inx[r]; n <= j->node_inx[r + 1]; n++)
			if (n < (int)a->nodes->record_count &&
			    gq_node_not_responding(
				    a->nodes->node_array[n].node_state))
				return true;
	return false;
}

/*
 * A running job's GPUs per node: node_inx holds ranges of node indexes
 * (first, last, ..., -1), gres_detail_str one entry per node in order.
 */
static int _read_placement(gq_view_t *view, const slurm_job_info_t *j)
{
	uint32_t k = 0;
	int r, n;

	for (r = 0; j->node_inx && j->node_inx[r] >= 0; r += 2)
		for (n = j->node_inx[r]; n <= j->node_inx[r + 1]; n++, k++) {
			uint64_t gpus;

			if (k >= j->gres_detail_cnt)
				return 0;
			gpus = gq_gres_text_gpus(j->gres_detail_str[k]);
			if (gpus && gq_view_place(view, j->job_id, n,
						  (uint32_t)gpus))
				return -1;
		}
	return 0;
}

/*
 * Running tasks per job array (array job id -> count): what slurmctld
 * keeps as the array's tot_run_tasks.  O(jobs).
 */
static int _count_array_tasks(const gq_api_t *a, gq_hash_t *running)
{
	uint32_t i;

	for (i = 0; i < a->jobs->record_count; i++) {
		const slurm_job_info_t *j = &a->jobs->job_array[i];
		gq_job_facts_t f = { .job_state = j->job_state };
		int n;

		if (!j->array_job_id || j->array_task_id == NO_VAL ||
		    !gq_facts_running(&f))
			continue;
		n = gq_hash_get(running, gq_key_int(j->array_job_id));
		if (gq_hash_put(running, gq_key_int(j->array_job_id),
				n < 0 ? 1 : n + 1))
			return -1;
	}
	return 0;
}

/* A pending job into the other pools it lists, as a shadow there. */
static int _add_shadows(gq_pools_t *p, int home, const slurm_job_info_t *j,
			const gq_job_in_t *in)
{
	gq_job_in_t shadow;
	int k;

	if (in->state != GQ_JOB_PENDING && !in->begins_later)
		return 0;
	for (k = 0; k < p->n; k++) {
		if (k == home || !j->partition ||
		    !gq_pool_has(p->config[k], j->partition))
			continue;
		shadow = *in;
		gq_pools_shadow(&shadow);
		if (!gq_view_add_job(p->view[k], j->account, &shadow))
			return -1;
	}
	return 0;
}

int gq_api_read_pass(const gq_api_t *a, gq_pools_t *p, time_t now,
		     gq_qos_priority_t qos, void *qos_ctx)
{
	gq_narrows_t *narrows = calloc(1, sizeof(*narrows));
	gq_hash_t running;
	uint32_t i;
	int k, rc = -1;

	gq_hash_init(&running, &gq_hash_ints);
	if (!narrows || _count_array_tasks(a, &running))
		goto out;
	_collect_narrows(a, narrows);
	for (k = 0; k < p->n; k++) {
		gq_view_begin(p->view[k], gq_api_capacity(a, p->config[k]),
			      now);
		if (_read_nodes(a, p->config[k], p->view[k], narrows))
			goto out;
		gq_view_min_runtime_at_least(p->view[k],
					     a->preempt_exempt_time);
	}
	for (i = 0; i < a->jobs->record_count; i++) {
		const slurm_job_info_t *j = &a->jobs->job_array[i];
		gq_job_facts_t f = { .job_state = j->job_state };
		gq_job_in_t in;
		int n;

		if (!gq_facts_active(&f) || (k = gq_api_pool(p, j)) < 0)
			continue;
		n = gq_hash_get(&running, gq_key_int(j->job_id));
		gq_api_job(j, now, qos, qos_ctx, n < 0 ? 0 : n, &in);
		/* multifactor's part orders a project's queue (read_slurm.c) */
		if (a->mf_weights > 0)
			in.site_order = llround(gq_priority_part(j->priority,
								 j->site_factor));
		/* as the plugin reads it: on a node that does not respond,
		 * or reclaimed and in its grace time (its GPUs leaving) */
		if (in.state == GQ_JOB_RUNNING)
			in.at_risk = _on_node_not_responding(a, j) ||
				     j->preempt_time;
		/* room only where it may run: its partition (several: any),
		 * narrowed by its constraint and GPU type */
		if (in.state != GQ_JOB_RUNNING) {
			gq_narrow_t w;
			int g;

			if (_narrow_of(a, j, &w) &&
			    (g = gq_narrows_find(narrows, &w)) >= 0)
				in.node_group = a->parts->record_count + 1 + g;
			else
				in.node_group = _job_part(a, j);
		}
		if (!gq_view_add_job(p->view[k], j->account, &in) ||
		    (in.state == GQ_JOB_RUNNING &&
		     _read_placement(p->view[k], j)) ||
		    (in.state != GQ_JOB_RUNNING && _add_shadows(p, k, j, &in)))
			goto out;
	}
	rc = 0;
out:
	gq_hash_free(&running);
	free(narrows);
	return rc;
}
