/*
 * snapshot.c - read Slurm's jobs and nodes into a gpuquota view and write
 * the resulting priorities back (see snapshot.h).
 */
#include <string.h>

#include "src/common/assoc_mgr.h"
#include "src/common/bitstring.h"
#include "src/common/gres.h"
#include "src/common/job_resources.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/slurm_protocol_api.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "core/view.h"
#include "plugins/snapshot.h"
#include "shared/job_reasons.h"

/* slurmctld's own data: absent (NULL) when a client command loads us */
#pragma weak job_list
#pragma weak last_job_update

static uint32_t gpu_id;

void gq_snapshot_init(void)
{
	gpu_id = gres_build_id("gpu");
}



/*
 * Sum a number over the gpu entries of a gres list (a job's or a node's):
 * `get` reads it from the entry's gres_data.  O(entries).
 */
static uint32_t _sum_gpus(List gres_list, uint64_t (*get)(void *data))
{
	ListIterator it;
	gres_state_t *gs;
	uint64_t n = 0, v;

	if (!gres_list)
		return 0;
	it = list_iterator_create(gres_list);
	while ((gs = list_next(it)))
		if (gs->plugin_id == gpu_id && gs->gres_data &&
		    (v = get(gs->gres_data)) != NO_VAL64)
			n += v;
	list_iterator_destroy(it);
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* a job's GPUs, all nodes (requested or allocated) */
static uint64_t _job_total(void *data)
{
	return ((gres_job_state_t *)data)->total_gres;
}

/* a pending job's GPUs per node (0: no per-node request) */
static uint64_t _job_per_node(void *data)
{
	return ((gres_job_state_t *)data)->gres_per_node;
}

/* a node's GPUs */
static uint64_t _node_avail(void *data)
{
	return ((gres_node_state_t *)data)->gres_cnt_avail;
}

/* a node's idle GPUs */
static uint64_t _node_idle(void *data)
{
	gres_node_state_t *ns = data;

	return ns->gres_cnt_avail > ns->gres_cnt_alloc ?
	       ns->gres_cnt_avail - ns->gres_cnt_alloc : 0;
}

bool gq_snapshot_in_pool(const gq_config_t *cfg, part_record_t *part_ptr)
{
	int i;

	if (!cfg->settings.npartitions)
		return true;
	if (!part_ptr || !part_ptr->name)
		return false;
	for (i = 0; i < cfg->settings.npartitions; i++)
		if (!xstrcmp(cfg->settings.partitions[i], part_ptr->name))
			return true;
	return false;
}

static bool _node_in_pool(const gq_config_t *cfg, node_record_t *node_ptr)
{
	int i;

	if (IS_NODE_DOWN(node_ptr) || IS_NODE_DRAIN(node_ptr) ||
	    IS_NODE_FUTURE(node_ptr) || IS_NODE_NO_RESPOND(node_ptr))
		return false;
	if (!cfg->settings.npartitions)
		return true;
	for (i = 0; i < node_ptr->part_cnt; i++)
		if (gq_snapshot_in_pool(cfg, (part_record_t *)node_ptr->part_pptr[i]))
			return true;
	return false;
}


/*
 * GPUs of the nodes that can take work, in the pool's partitions: C; and
 * each such node's idle GPUs, for making room.  O(nodes).
 */
static double _nodes(const gq_config_t *cfg, gq_view_t *view)
{
	node_record_t *node_ptr;
	double c = 0;
	int i;

	gq_view_set_nodes(view, node_record_count);
	for (i = 0; (node_ptr = next_node(&i)); i++) {
		if (!_node_in_pool(cfg, node_ptr))
			continue;
		c += _sum_gpus(node_ptr->gres_list, _node_avail);
		gq_view_node_free(view, node_ptr->index,
				  _sum_gpus(node_ptr->gres_list, _node_idle));
	}
	return c;
}

/* The GPUs a running job holds on each of its nodes. */
static void _place(gq_view_t *view, job_record_t *job_ptr)
{
	bitstr_t *bm = job_ptr->job_resrcs && job_ptr->job_resrcs->node_bitmap ?
		       job_ptr->job_resrcs->node_bitmap : job_ptr->node_bitmap;
	int first, last, n, i = 0;

	if (!bm || !job_ptr->gres_list_alloc || (first = bit_ffs(bm)) < 0)
		return;
	last = bit_fls(bm);
	for (n = first; n <= last; n++) {
		ListIterator it;
		gres_state_t *gs;
		uint64_t gpus = 0;

		if (!bit_test(bm, n))
			continue;
		it = list_iterator_create(job_ptr->gres_list_alloc);
		while ((gs = list_next(it))) {
			gres_job_state_t *js = gs->gres_data;

			if (gs->plugin_id == gpu_id && js &&
			    js->gres_cnt_node_alloc && i < (int)js->node_cnt)
				gpus += js->gres_cnt_node_alloc[i];
		}
		list_iterator_destroy(it);
		if (gpus)
			gq_view_place(view, job_ptr->job_id, n, (uint32_t)gpus);
		i++;
	}
}


bool gq_snapshot_held(job_record_t *job_ptr)
{
	return job_ptr->priority == 0 && job_ptr->state_reason == WAIT_HELD &&
	       job_ptr->state_desc &&
	       !strncmp(job_ptr->state_desc, GQ_HOLD_PREFIX,
			strlen(GQ_HOLD_PREFIX));
}

void gq_snapshot_hold(job_record_t *job_ptr, const gq_view_t *view,
		      const gq_job_t *job)
{
	const gq_project_t *p = gq_view_project(view, job->project);
	const gq_dept_t *d = gq_view_dept(view, p->department);
	char *desc = NULL;

	switch (job->hold) {
	case GQ_HOLD_LIMIT:
		desc = xstrdup_printf(GQ_HOLD_PREFIX " project %s would pass its gpu_limit (%.0f GPU%s)",
				      p->name, p->limit, p->limit == 1 ? "" : "s");
		break;
	case GQ_HOLD_DEPT_LIMIT:
		desc = xstrdup_printf(GQ_HOLD_PREFIX " department %s would pass its gpu_limit (%.0f GPU%s)",
				      d ? d->name : "?", d ? d->limit : 0,
				      d && d->limit == 1 ? "" : "s");
		break;
	case GQ_HOLD_NOT_REQUEUEABLE:
		desc = xstrdup_printf(GQ_HOLD_PREFIX " job cannot be requeued, so it waits to fit in the quota of %s (%.0f GPU%s)",
				      p->name, p->quota, p->quota == 1 ? "" : "s");
		break;
	default:
		return;
	}
	if (job_ptr->priority == 0 && !xstrcmp(job_ptr->state_desc, desc)) {
		xfree(desc);
		return;
	}
	info("gpuquota: hold %pJ: %s", job_ptr, desc);
	job_ptr->priority = 0;
	job_ptr->state_reason = WAIT_HELD;
	xfree(job_ptr->state_desc);
	job_ptr->state_desc = desc;
	last_job_update = time(NULL);
}

/*
 * Why a job in gpuquota's order waits, appended to Slurm's own reason
 * (Priority or Resources) in squeue's reason column.  Slurm clears it when
 * a scheduling attempt fails; the next pass writes it again.
 */
static void _explain(job_record_t *job_ptr, const gq_view_t *view,
		     const gq_job_t *job)
{
	const gq_project_t *p = gq_view_project(view, job->project);
	char *desc = NULL;

	if (job_ptr->state_reason != WAIT_NO_REASON &&
	    job_ptr->state_reason != WAIT_PRIORITY &&
	    job_ptr->state_reason != WAIT_RESOURCES)
		return;
	switch (job->band) {
	case GQ_BAND_IN_QUOTA:
		desc = xstrdup_printf("%s, gpuquota: in quota (%s would hold %g of %g)",
				      job_reason_string(job_ptr->state_reason),
				      p->name, job->cum, p->quota);
		break;
	case GQ_BAND_FAIR_SHARE:
		desc = xstrdup_printf("%s, gpuquota: over quota, within fair share (%s would hold %g, quota %g, fair share %.1f)",
				      job_reason_string(job_ptr->state_reason),
				      p->name, job->cum, p->quota, p->share);
		break;
	case GQ_BAND_OVER:
		desc = xstrdup_printf("%s, gpuquota: over fair share, runs on idle GPUs only (%s would hold %g, quota %g, fair share %.1f)",
				      job_reason_string(job_ptr->state_reason),
				      p->name, job->cum, p->quota, p->share);
		break;
	default:
		return;
	}
	if (!xstrcmp(job_ptr->state_desc, desc)) {
		xfree(desc);
		return;
	}
	xfree(job_ptr->state_desc);
	job_ptr->state_desc = desc;
	last_job_update = time(NULL);
}

static void _release(job_record_t *job_ptr, uint32_t prio)
{
	info("gpuquota: release %pJ", job_ptr);
	job_ptr->priority = prio;
	job_ptr->state_reason = WAIT_NO_REASON;
	xfree(job_ptr->state_desc);
}

void gq_snapshot_job(job_record_t *job_ptr, time_t now, gq_job_t *out)
{
	struct job_details *d = job_ptr->details;

	memset(out, 0, sizeof(*out));
	out->id = job_ptr->job_id;
	out->tasks = 1;
	if (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)) {
		out->state = GQ_JOB_RUNNING;
		out->gpus = _sum_gpus(job_ptr->gres_list_alloc ?
				      job_ptr->gres_list_alloc :
				      job_ptr->gres_list_req, _job_total);
	} else {
		out->gpus = _sum_gpus(job_ptr->gres_list_req, _job_total);
		if (gq_reason_not_demand(job_ptr->state_reason,
					 job_ptr->priority,
					 gq_snapshot_held(job_ptr),
					 d && d->begin_time > now))
			out->state = GQ_JOB_WAITING;
		else
			out->state = GQ_JOB_PENDING;
		if (job_ptr->array_recs && job_ptr->array_recs->task_cnt > 1)
			out->tasks = job_ptr->array_recs->task_cnt;
		out->gpus_per_node = _sum_gpus(job_ptr->gres_list_req,
					       _job_per_node);
		out->nodes = d && d->min_nodes ? d->min_nodes : 1;
	}
	/* --no-requeue and interactive (srun/salloc) work is not requeueable */
	out->requeueable = job_ptr->batch_flag && d && d->requeue;
	/* Slurm's own order inside a project: QOS priority, then nice */
	out->order = (job_ptr->qos_ptr ? (int64_t)job_ptr->qos_ptr->priority : 0)
		     * 100000;
	if (d)
		out->order -= (int64_t)d->nice - NICE_OFFSET;
	out->submit_time = d ? d->submit_time : 0;
	out->start_time = job_ptr->start_time;
}

static bool _counts(job_record_t *job_ptr)
{
	if (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr))
		return true;
	return IS_JOB_PENDING(job_ptr) && !IS_JOB_REVOKED(job_ptr);
}

/*
 * Slurm's account tree, when slurmdbd has one: an account under a
 * department's account belongs to that department.  O(associations).
 */
static void _account_tree(gq_view_t *view)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK };
	ListIterator it;
	slurmdb_assoc_rec_t *assoc;

	if (!slurm_with_slurmdbd())
		return;
	assoc_mgr_lock(&locks);
	if (assoc_mgr_assoc_list) {
		it = list_iterator_create(assoc_mgr_assoc_list);
		while ((assoc = list_next(it)))
			if (!assoc->user && assoc->acct)
				gq_view_account_parent(view, assoc->acct,
						       assoc->parent_acct);
		list_iterator_destroy(it);
	}
	assoc_mgr_unlock(&locks);
}

void gq_snapshot_pass(gq_view_t *view, const gq_config_t *cfg, time_t now)
{
	ListIterator it;
	job_record_t *job_ptr;
	bool kick = false;

	if (!job_list)
		return;
	gq_view_begin(view, 0, now);
	gq_view_set_capacity(view, _nodes(cfg, view));
	gq_view_min_runtime_at_least(view, slurm_conf.preempt_exempt_time);
	_account_tree(view);
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it))) {
		gq_job_t in, *job;

		if (!_counts(job_ptr) || !gq_snapshot_in_pool(cfg, job_ptr->part_ptr))
			continue;
		gq_snapshot_job(job_ptr, now, &in);
		if (!(job = gq_view_add_job(view, in.id, job_ptr->account))) {
			error("gpuquota: out of memory adding %pJ", job_ptr);
			continue;
		}
		in.project = job->project;
		in.band = GQ_BAND_NONE;
		in.preempt_rank = UINT32_MAX;
		*job = in;
		if (in.state == GQ_JOB_RUNNING)
			_place(view, job_ptr);
	}
	list_iterator_destroy(it);

	gq_view_compute(view);

	/* priorities back into Slurm: O(J) with O(1) lookups */
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it))) {
		const gq_job_t *job;

		if (!IS_JOB_PENDING(job_ptr) ||
		    !(job = gq_view_job(view, job_ptr->job_id)))
			continue;
		if (job->hold && (job_ptr->priority || gq_snapshot_held(job_ptr))) {
			gq_snapshot_hold(job_ptr, view, job);
			continue;
		}
		if (gq_snapshot_held(job_ptr)) {
			_release(job_ptr, job->priority);
			last_job_update = now;
			kick = true;
			continue;
		}
		if (job->room)
			kick = true;
		if (job_ptr->priority == 0)
			continue;
		if (job->state == GQ_JOB_PENDING)
			_explain(job_ptr, view, job);
		if (job_ptr->direct_set_prio)
			continue;
		if (job_ptr->priority != job->priority) {
			job_ptr->priority = job->priority;
			last_job_update = now;
		}
	}
	list_iterator_destroy(it);
	/*
	 * A released job, or a reclaim that only this pass made possible:
	 * ask for a scheduling pass now rather than at the next
	 * sched_interval (60 s by default).
	 */
	if (kick)
		queue_job_scheduler();
}
