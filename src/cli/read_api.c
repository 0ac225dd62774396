/*
 * read_api.c - the command's reading of slurmctld through libslurm's
 * public API (see read_api.h).
 */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/read_api.h"
#include "tools/gres_text.h"
#include "tools/hash.h"
#include "state/state.h"
#include "shared/job_facts.h"
#include "shared/pass_input.h"

int gq_api_load(gq_api_t *a, const slurm_conf_t *conf)
{
	memset(a, 0, sizeof(*a));
	a->preempt_exempt_time = conf->preempt_exempt_time;
	a->kill_wait = conf->kill_wait;
	a->requeue_delay = gq_facts_requeue_delay(conf->sched_params,
						  conf->authinfo);
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
		.time_limit = gq_facts_limit_secs(j->time_limit),
		.comment = j->comment,
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
	return gq_pass_pool(p, j->partition,
			    (j->job_state & JOB_STATE_BASE) == JOB_PENDING);
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

/* The input's arrays, sized for everything the messages hold. */
static int _alloc_input(const gq_api_t *a, gq_pass_in_t *in)
{
	size_t places = 0, parts = 0;
	uint32_t i;
	int r;

	for (i = 0; i < a->jobs->record_count; i++)
		for (r = 0; a->jobs->job_array[i].node_inx &&
			    a->jobs->job_array[i].node_inx[r] >= 0; r += 2)
			places += a->jobs->job_array[i].node_inx[r + 1] -
				  a->jobs->job_array[i].node_inx[r] + 1;
	for (i = 0; i < a->nodes->record_count; i++) {
		const char *p = a->nodes->node_array[i].partitions;

		for (; p && *p; p++)
			parts += *p == ',';
		parts++;
	}
	in->job = calloc(a->jobs->record_count + 1, sizeof(*in->job));
	in->node = calloc(a->nodes->record_count + 1, sizeof(*in->node));
	in->place = calloc(places + 1, sizeof(*in->place));
	in->node_part = calloc(parts + 1, sizeof(*in->node_part));
	in->part = calloc(a->parts->record_count + 1, sizeof(*in->part));
	return in->job && in->node && in->place && in->node_part && in->part ?
	       0 : -1;
}

static void _free_input(gq_pass_in_t *in)
{
	free(in->job);
	free(in->node);
	free(in->place);
	free(in->node_part);
	free((void *)in->part);
}

/* The partitions, then each node: GPUs (SHOW_DETAIL's gres_used), state,
 * partitions by index, features, gres.  O(N x node partitions x P). */
static void _read_nodes(const gq_api_t *a, gq_pass_in_t *in)
{
	uint32_t i;

	for (i = 0; i < a->parts->record_count; i++)
		((const char **)in->part)[in->nparts++] =
			a->parts->partition_array[i].name;
	in->nnodes = a->nodes->record_count;
	for (i = 0; i < a->nodes->record_count; i++) {
		const node_info_t *n = &a->nodes->node_array[i];
		gq_pass_node_t *pn = &in->node[i];
		const char *p = n->partitions;

		pn->present = n->name != NULL;
		pn->state = n->node_state;
		pn->gpus = gq_gres_text_gpus(n->gres);
		pn->alloc = gq_gres_text_gpus(n->gres_used);
		pn->features = n->features_act ? n->features_act : n->features;
		pn->gres = n->gres;
		pn->part = in->nnode_parts;
		while (p && *p) {
			size_t len = strcspn(p, ",");
			int k = gq_pass_part_index(in, p, len);

			if (k >= 0) {
				in->node_part[in->nnode_parts++] = k;
				pn->nparts++;
			}
			p += len + (p[len] == ',');
		}
	}
}

/*
 * A running job's GPUs per node: node_inx holds ranges of node indexes
 * (first, last, ..., -1), gres_detail_str one entry per node in order.
 */
static void _read_placement(const slurm_job_info_t *j, gq_pass_in_t *in,
			    gq_pass_job_t *pj)
{
	uint32_t k = 0;
	int r, n;

	pj->place = in->nplaces;
	for (r = 0; j->node_inx && j->node_inx[r] >= 0; r += 2)
		for (n = j->node_inx[r]; n <= j->node_inx[r + 1]; n++, k++) {
			uint64_t gpus;

			if (k >= j->gres_detail_cnt)
				return;
			gpus = gq_gres_text_gpus(j->gres_detail_str[k]);
			if (!gpus)
				continue;
			in->place[in->nplaces].node = n;
			in->place[in->nplaces++].gpus = (uint32_t)gpus;
			pj->nplaces++;
		}
}

/* An active job of a pool into the pass input, as the plugin reads it */
static void _read_job(const gq_api_t *a, const slurm_job_info_t *j,
		      int pool, time_t now, gq_qos_priority_t qos,
		      void *qos_ctx, uint32_t array_running, gq_pass_in_t *in)
{
	gq_pass_job_t *pj = &in->job[in->njobs++];

	pj->pool = pool;
	pj->account = j->account;
	pj->partitions = j->partition;
	pj->pending = (j->job_state & JOB_STATE_BASE) == JOB_PENDING;
	pj->features = j->features;
	pj->tres_per_node = j->tres_per_node;
	pj->tres_per_job = j->tres_per_job;
	pj->pinned = (j->req_nodes && *j->req_nodes) ||
		     (j->exc_nodes && *j->exc_nodes);
	gq_api_job(j, now, qos, qos_ctx, array_running, &pj->in);
	/* multifactor's part orders a project's queue (read_slurm.c) */
	if (a->mf_weights > 0)
		pj->in.site_order = llround(gq_priority_part(j->priority,
							     j->site_factor));
	if (pj->in.state != GQ_JOB_RUNNING)
		return;
	/* on a node that does not respond, or reclaimed and in its grace
	 * time (its GPUs leaving) */
	pj->in.at_risk = _on_node_not_responding(a, j) || j->preempt_time;
	_read_placement(j, in, pj);
}

/*
 * A job's nodes (node_inx: pairs of first and last index, -1 ended) into
 * nodes[GQ_RECLAIM_NODES]: how many, or -1 when none or more.
 */
static int _job_nodes(const slurm_job_info_t *j, int *nodes)
{
	int r, k, n = 0;

	for (r = 0; j->node_inx && j->node_inx[r] >= 0; r += 2)
		for (k = j->node_inx[r]; k <= j->node_inx[r + 1]; k++) {
			if (n == GQ_RECLAIM_NODES)
				return -1;
			nodes[n++] = k;
		}
	return n ? n : -1;
}

/* The index of the node a moved job's comment names (gq_facts_moved_to);
 * -1: none.  O(nodes). */
static int _moved_to(const gq_api_t *a, const char *system_comment)
{
	char name[GQ_NODE_NAME_MAX];
	uint32_t i;

	if (!gq_facts_moved_to(system_comment, name, sizeof(name)))
		return -1;
	for (i = 0; i < a->nodes->record_count; i++)
		if (a->nodes->node_array[i].name &&
		    !strcmp(a->nodes->node_array[i].name, name))
			return (int)i;
	return -1;
}

/*
 * The reclaims in flight as slurmctld's first pass after a restart reads
 * them back (gq_pass_victim): from the victims still warned, with the
 * system comment gpuquota wrote on them (Slurm sends it to every client),
 * and the nodes they run on; less the reclaims of arrays whose task has
 * started since.  The moved jobs' landings too (gq_pass_landing).
 */
static void _read_victims(const gq_api_t *a, time_t now)
{
	uint32_t i, preemptor;
	int64_t since;
	int grace, nodes[GQ_RECLAIM_NODES];

	gq_state_leaving_begin();
	for (i = 0; i < a->jobs->record_count; i++) {
		const slurm_job_info_t *j = &a->jobs->job_array[i];
		gq_job_facts_t f = { .id = j->job_id,
				     .job_state = j->job_state,
				     .array_job_id =
					     j->array_task_id != NO_VAL ?
					     j->array_job_id : 0,
				     .submit_time = j->submit_time,
				     .start_time = j->start_time,
				     .end_time = j->end_time };

		gq_pass_victim(&f, j->system_comment, j->preempt_time, now,
			       true, nodes, _job_nodes(j, nodes), &preemptor,
			       &since, &grace);
		gq_pass_landing(&f, j->system_comment, j->preempt_time, now,
				_moved_to(a, j->system_comment), a->kill_wait,
				a->requeue_delay);
	}
	gq_state_leaving_end();
}

int gq_api_read_pass(const gq_api_t *a, gq_pools_t *p, time_t now,
		     gq_qos_priority_t qos, void *qos_ctx, double *caps)
{
	gq_pass_in_t in = { .min_runtime = a->preempt_exempt_time };
	gq_hash_t running;
	uint32_t i;
	int rc = -1;

	gq_hash_init(&running, &gq_hash_ints);
	if (_alloc_input(a, &in) || _count_array_tasks(a, &running))
		goto out;
	_read_nodes(a, &in);
	_read_victims(a, now);
	for (i = 0; i < a->jobs->record_count; i++) {
		const slurm_job_info_t *j = &a->jobs->job_array[i];
		gq_job_facts_t f = { .job_state = j->job_state };
		int n, k;

		if (!gq_facts_active(&f) || (k = gq_api_pool(p, j)) < 0)
			continue;
		n = gq_hash_get(&running, gq_key_int(j->job_id));
		_read_job(a, j, k, now, qos, qos_ctx, n < 0 ? 0 : n, &in);
	}
	rc = gq_pass_fill(p, &in, now);
	if (!rc)
		for (i = 0; i < (uint32_t)p->n; i++)
			caps[i] = gq_pass_capacity(&in, p->config[i]);
out:
	gq_hash_free(&running);
	_free_input(&in);
	return rc;
}
