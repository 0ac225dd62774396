/*
 * read_slurm.c - read Slurm's jobs, nodes and account tree into a gpuquota
 * view (see read_slurm.h).
 */
#include <ctype.h>
#include <inttypes.h>
#include <pthread.h>
#include <string.h>

#include "shared/slurm_compat.h"

#include "state/state.h"
#include "core/view.h"
#include "plugins/array_throttle.h"
#include "plugins/grace.h"
#include "plugins/hold.h"
#include "plugins/multifactor.h"
#include "plugins/xalloc.h"
#include "plugins/read_slurm.h"
#include "plugins/topology.h"
#include "shared/job_facts.h"
#include "shared/pass_input.h"
#include "tools/hash.h"

/* slurmctld's own data: absent (NULL) when a client command loads us */
#pragma weak job_list
#pragma weak part_list
#pragma weak cg_node_bitmap

/* Slurm's gres ids the reads look for.  No lock: written by init
 * (gq_read_init) alone, read by the pass thread and priority_p_set. */
static struct gres_ids {
	uint32_t gpu;
} gres_ids;

void gq_read_init(void)
{
	gres_ids.gpu = gres_build_id("gpu");
}

/* what _sum_gpus adds up, and how */
typedef struct {
	uint64_t (*get)(void *data);
	uint64_t (*get2)(void *data);	/* a second sum, or NULL */
	uint64_t n, n2;
} gq_gpu_sum_t;

static uint64_t _counted(uint64_t v)
{
	return v < NO_CONSUME_VAL64 ? v : 0;
}

static int _add_gpus(void *x, void *arg)
{
	gres_state_t *gs = x;
	gq_gpu_sum_t *sum = arg;

	if (gs->plugin_id != gres_ids.gpu || !gs->gres_data)
		return 0;
	sum->n += _counted(sum->get(gs->gres_data));
	if (sum->get2)
		sum->n2 += _counted(sum->get2(gs->gres_data));
	return 0;
}

/*
 * Sum a number (or two: get2) over the gpu entries of a gres list (a
 * job's or a node's): `get` reads it from the entry's gres_data.  Slurm's
 * markers (NO_VAL64, NO_CONSUME_VAL64 for a gres that is not consumed,
 * INFINITE64) are not counts and are left out.  O(entries), one walk with
 * no iterator allocated (the pass does this for every job).
 */
static uint64_t _sum_gpus2(list_t *gres_list, uint64_t (*get)(void *data),
			   uint64_t (*get2)(void *data), uint64_t *n2)
{
	gq_gpu_sum_t sum = { .get = get, .get2 = get2 };

	if (gres_list)
		list_for_each(gres_list, _add_gpus, &sum);
	if (n2)
		*n2 = sum.n2;
	return sum.n;
}

static uint64_t _sum_gpus(list_t *gres_list, uint64_t (*get)(void *data))
{
	return _sum_gpus2(gres_list, get, NULL, NULL);
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

static const char *_partitions(job_record_t *job_ptr)
{
	if (!job_ptr->partition && job_ptr->part_ptr)
		return job_ptr->part_ptr->name;
	return job_ptr->partition;
}

int gq_read_pool(const gq_pools_t *p, job_record_t *job_ptr)
{
	return gq_pass_pool(p, _partitions(job_ptr), IS_JOB_PENDING(job_ptr));
}

int gq_read_shadows(gq_pools_t *p, int home, job_record_t *job_ptr,
		    const gq_job_in_t *in)
{
	return gq_pass_shadows(p, home, job_ptr->account, _partitions(job_ptr),
			       in, true);
}

int gq_read_completing(gq_node_idle_t *out, int max)
{
	node_record_t *node_ptr;
	int i, n = 0;

	if (!cg_node_bitmap)
		return 0;
	/* O(nodes / 64) to find none: the usual case */
	for (i = bit_ffs(cg_node_bitmap); i >= 0 && n < max &&
					   i < bit_size(cg_node_bitmap);
	     i++) {
		uint64_t idle;

		if (!bit_test(cg_node_bitmap, i) ||
		    !(node_ptr = node_record_table_ptr[i]) ||
		    !gq_node_takes_work(node_ptr->node_state))
			continue;
		_sum_gpus2(node_ptr->gres_list, _node_avail, _node_idle,
			   &idle);
		if (idle) {
			out[n].node = node_ptr->index;
			out[n++].idle = idle > UINT32_MAX ? UINT32_MAX :
							    (uint32_t)idle;
		}
	}
	return n;
}

/* the GPUs a job holds on its i-th node, over its gpu entries */
typedef struct {
	int i;
	uint64_t gpus;
} gq_node_alloc_t;

static int _add_node_alloc(void *x, void *arg)
{
	gres_state_t *gs = x;
	gres_job_state_t *js = gs->gres_data;
	gq_node_alloc_t *a = arg;

	if (gs->plugin_id == gres_ids.gpu && js && js->gres_cnt_node_alloc &&
	    a->i < (int)js->node_cnt)
		a->gpus += js->gres_cnt_node_alloc[a->i];
	return 0;
}

/*
 * The GPUs a running job holds on each of its nodes, appended to
 * in->place (*cap allocated).  O(its nodes x its gres entries).
 */
static int _read_placement(gq_pass_in_t *in, int *cap, job_record_t *job_ptr,
			   gq_pass_job_t *j)
{
	bitstr_t *bm = job_ptr->job_resrcs && job_ptr->job_resrcs->node_bitmap ?
		       job_ptr->job_resrcs->node_bitmap : job_ptr->node_bitmap;
	int first, last, n, i = 0;

	j->place = in->nplaces;
	if (!bm || !job_ptr->gres_list_alloc || (first = bit_ffs(bm)) < 0)
		return 0;
	last = bit_fls(bm);
	for (n = first; n <= last; n++) {
		gq_node_alloc_t a = { .i = i };

		if (!bit_test(bm, n))
			continue;
		list_for_each(job_ptr->gres_list_alloc, _add_node_alloc, &a);
		i++;
		if (!a.gpus)
			continue;
		if (gq_xgrow(&in->place, in->nplaces, cap, sizeof(*in->place)))
			return -1;
		in->place[in->nplaces].node = n;
		in->place[in->nplaces++].gpus = a.gpus > UINT32_MAX ?
						UINT32_MAX : (uint32_t)a.gpus;
		j->nplaces++;
	}
	return 0;
}

bool gq_read_held(job_record_t *job_ptr)
{
	return gq_facts_held_by_us(job_ptr->state_reason,
				   job_ptr->state_desc) ||
	       gq_hold_lost(job_ptr);
}

bool gq_read_new_array(const job_record_t *job_ptr)
{
	return job_ptr->priority == NO_VAL && !job_ptr->array_recs &&
	       IS_JOB_PENDING(job_ptr) && job_ptr->details &&
	       !job_ptr->details->begin_time &&
	       job_ptr->state_reason == WAIT_NO_REASON;
}

/* Is one of a running job's nodes not responding (not yet DOWN)? */
static bool _on_node_not_responding(job_record_t *job_ptr)
{
	bitstr_t *bm = job_ptr->node_bitmap;
	int n, last;

	if (!bm || (n = bit_ffs(bm)) < 0)
		return false;
	last = bit_fls(bm);
	for (; n <= last; n++)
		if (bit_test(bm, n) && node_record_table_ptr[n] &&
		    gq_node_not_responding(node_record_table_ptr[n]->node_state))
			return true;
	return false;
}

/*
 * A checkpoint note gpuquota ignores (gq_facts_saved_at) is said once per
 * job and note in slurmctld's log, not every pass, however many jobs have
 * one: the jobs said are remembered by id with their note's tag, in two
 * tables.  A job met again moves from the last walk's table into this
 * one's; at the end of a pass's walk of job_list the last walk's table,
 * the jobs not met (ended, or their note fixed), is dropped.  So the
 * memory is that of the jobs with such a note in two walks.  Written by
 * the pass thread's walk of job_list under slurmctld's job lock; `lock`
 * keeps the tables whole should two read-lock holders meet (a leaf of
 * docs/DEVELOPING.md "Lock order").  Freed as the tables empty.
 */
static struct said_notes {
	pthread_mutex_t lock;
	gq_hash_t table[2];	/* [now]: this walk's; the other: the last
				 * walk's */
	int now;
} said = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.table = { { .type = &gq_hash_job_ids }, { .type = &gq_hash_job_ids } },
};

/* The note's tag: a hash of its text up to a blank (>= 0). */
static int _note_tag(const char *comment)
{
	const char *c = strstr(comment, GQ_CHECKPOINT_KEY);
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (; c && *c && !isspace((unsigned char)*c); c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	return (int)(h & INT32_MAX);
}

/* Job `id`'s note `tag` remembered in this walk's table (out of memory:
 * not, and it is said again); returns whether it was said already. */
static bool _remember_said(uint32_t id, int tag)
{
	gq_key_t key = gq_key_int(id);
	bool before;

	pthread_mutex_lock(&said.lock);
	before = gq_hash_get(&said.table[said.now], key) == tag ||
		 gq_hash_get(&said.table[1 - said.now], key) == tag;
	(void)gq_hash_put(&said.table[said.now], key, tag);
	pthread_mutex_unlock(&said.lock);
	return before;
}

/* A whole walk of job_list ended: forget the jobs it did not meet. */
static void _forget_said_unmet(void)
{
	pthread_mutex_lock(&said.lock);
	said.now = 1 - said.now;
	/* its memory too: a burst ends */
	gq_hash_free(&said.table[said.now]);
	pthread_mutex_unlock(&said.lock);
}

int gq_read_ignored_remembered(void)
{
	int n;

	pthread_mutex_lock(&said.lock);
	n = (int)(said.table[0].count + said.table[1].count);
	pthread_mutex_unlock(&said.lock);
	return n;
}

/* A running job's checkpoint note gpuquota ignores: logged once per job
 * and note. */
static void _log_checkpoint_ignored(job_record_t *job_ptr, time_t now)
{
	gq_saved_t s;
	int64_t at;

	if (!job_ptr->comment ||
	    (s = gq_facts_saved_at(job_ptr->comment, job_ptr->job_id, now,
				   &at)) == GQ_SAVED_OK || s == GQ_SAVED_NONE)
		return;
	if (_remember_said(job_ptr->job_id, _note_tag(job_ptr->comment)))
		return;
	info("gpuquota: %pJ: its comment has %s: it is ordered as a job without a checkpoint",
	     job_ptr, gq_saved_text(s));
}

void gq_read_job(job_record_t *job_ptr, time_t now, gq_job_in_t *out)
{
	job_details_t *d = job_ptr->details;
	bool at_risk = false;
	gq_job_facts_t f = {
		.id = job_ptr->job_id,
		.job_state = job_ptr->job_state,
		.batch = job_ptr->batch_flag,
		.requeue = d && d->requeue,
		.qos_priority = job_ptr->qos_ptr ? job_ptr->qos_ptr->priority : 0,
		.nice = d ? d->nice : NICE_OFFSET,
		.priority = job_ptr->priority,
		.reason = job_ptr->state_reason,
		.state_desc = job_ptr->state_desc,
		.depends = d && d->depend_list && list_count(d->depend_list),
		.begin_time = d ? d->begin_time : 0,
		.submit_time = d ? d->submit_time : 0,
		.start_time = job_ptr->start_time,
		.end_time = (job_ptr->time_limit == INFINITE ||
			     job_ptr->time_limit == NO_VAL) ? 0 :
			    job_ptr->end_time,
		.time_limit = gq_facts_limit_secs(job_ptr->time_limit),
		.comment = job_ptr->comment,
	};

	/* gpuquota's hold whose reason Slurm's release cleared (hold.h) */
	if (gq_hold_lost(job_ptr)) {
		f.reason = WAIT_HELD;
		f.state_desc = GQ_HOLD_PREFIX;
	}

	if (gq_facts_running(&f)) {
		f.gpus = _sum_gpus(job_ptr->gres_list_alloc ?
				   job_ptr->gres_list_alloc :
				   job_ptr->gres_list_req, _job_total);
		/* reclaimed, in its grace time: its GPUs are leaving too */
		at_risk = _on_node_not_responding(job_ptr) ||
			  job_ptr->preempt_time;
	} else {
		f.gpus = _sum_gpus2(job_ptr->gres_list_req, _job_total,
				    _job_per_node, &f.gpus_per_node);
		f.nodes = d ? d->min_nodes : 0;
		if (job_ptr->array_recs) {
			f.array_tasks = job_ptr->array_recs->task_cnt;
			/* the user's %N, not the one gpuquota set */
			f.array_throttle = gq_throttle_user(
				job_ptr, job_ptr->array_recs->max_run_tasks);
			f.array_running = job_ptr->array_recs->tot_run_tasks;
		}
	}
	gq_job_input(&f, now, out);
	out->at_risk = at_risk;
	out->site_order = gq_mf_order(job_ptr);
}

void gq_read_set(job_record_t *job_ptr, gq_job_in_t *in)
{
	gq_read_job(job_ptr, time(NULL), in);
	if (in->state == GQ_JOB_WAITING && IS_JOB_PENDING(job_ptr) &&
	    job_ptr->priority == 0)
		in->state = GQ_JOB_PENDING;	/* being given a priority now */
}

const gq_job_t *gq_read_add(gq_pools_t *pools, job_record_t *job_ptr,
			    const gq_job_in_t *in, int *k)
{
	const gq_job_t *job, *answer;

	if ((*k = gq_read_pool(pools, job_ptr)) < 0 ||
	    !(job = gq_view_add_late(pools->view[*k], job_ptr->account, in)))
		return NULL;
	/* held by a limit of another pool it lists: that hold */
	if (!gq_read_shadows(pools, *k, job_ptr, in) &&
	    (answer = gq_pools_answer(pools, in->id, k)))
		job = answer;
	return job;
}

/*
 * Slurm's account tree, when slurmdbd has one: an account under a
 * department's account belongs to that department.  O(associations).
 */
static int _read_account_tree(gq_view_t *view)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK };
	list_itr_t *it;
	slurmdb_assoc_rec_t *assoc;
	int rc = 0;

	if (!slurm_with_slurmdbd())
		return 0;
	assoc_mgr_lock(&locks);
	if (assoc_mgr_assoc_list) {
		it = list_iterator_create(assoc_mgr_assoc_list);
		while (!rc && (assoc = list_next(it)))
			if (!assoc->user && assoc->acct)
				rc = gq_view_account_parent(view, assoc->acct,
							    assoc->parent_acct);
		list_iterator_destroy(it);
	}
	assoc_mgr_unlock(&locks);
	return rc;
}

/*
 * A moved job's landing rebuilt at the first pass since the state was made
 * (gq_pass_landing): on the node its system comment names.  Caller holds
 * the state lock.
 */
static void _rebuild_landing(job_record_t *job_ptr, const gq_job_facts_t *f,
			     time_t now)
{
	char name[GQ_NODE_NAME_MAX];
	node_record_t *node_ptr;

	if (!gq_facts_moved_to(job_ptr->system_comment, name, sizeof(name)) ||
	    !(node_ptr = find_node_record(name)))
		return;
	if (gq_pass_landing(f, job_ptr->system_comment, job_ptr->preempt_time,
			    now, (int)node_ptr->index, slurm_conf.kill_wait,
			    gq_facts_requeue_delay(slurm_conf.sched_params,
						   slurm_conf.authinfo)))
		info("gpuquota: move: %pJ, moved to %s, is restarting: its landing is kept again after a restart",
		     job_ptr, name);
}

/*
 * A victim still warned or leaving: its reclaim rebuilt at the first pass
 * since the state was made (after a slurmctld restart), its GPUs not free
 * yet; an array task running: its array's reclaim over (gq_pass_victim).
 * Caller holds the state lock.
 */
static void _note_victim(job_record_t *job_ptr, time_t now)
{
	gq_job_facts_t f = {
		.id = job_ptr->job_id,
		.job_state = job_ptr->job_state,
		.array_job_id = job_ptr->array_task_id != NO_VAL ?
				job_ptr->array_job_id : 0,
		.submit_time = job_ptr->details ?
			       job_ptr->details->submit_time : 0,
		.start_time = job_ptr->start_time,
		.end_time = job_ptr->end_time,
	};
	uint32_t preemptor = 0;
	int64_t since = 0;
	int grace = 0, rc, nodes[GQ_RECLAIM_NODES], n = -1;
	bool rebuild = !gq_state_inflight_read();

	/* its nodes only where its reclaim may be rebuilt: not every job's
	 * bitmap every pass */
	if (rebuild && job_ptr->system_comment)
		n = gq_hold_job_nodes(job_ptr, nodes);
	rc = gq_pass_victim(&f, job_ptr->system_comment, job_ptr->preempt_time,
			    now, rebuild, nodes, n, &preemptor, &since, &grace);
	if (rc > 0)	/* its ledger record settled when its run ends */
		gq_grace_rebuild_note(job_ptr);
	if (rebuild && job_ptr->system_comment)
		_rebuild_landing(job_ptr, &f, now);
	if (rc < 0)
		error("gpuquota: reclaim for JobId=%u not rebuilt (out of memory)",
		      preemptor);
	else if (rc > 0)
		debug("gpuquota: reclaim for JobId=%u rebuilt from %pJ, warned at %"PRId64" for %d s",
		      preemptor, job_ptr, since, grace);
}

static bool _active(job_record_t *job_ptr)
{
	gq_job_facts_t f = { .job_state = job_ptr->job_state };

	return gq_facts_active(&f);
}

/* The pass input of a read, and the room its arrays have. */
typedef struct {
	gq_pass_in_t in;
	int place_cap, node_part_cap;
	part_record_t **part;	/* part_list in order: in.part's names */
} gq_read_t;

static int _collect_part(void *x, void *arg)
{
	gq_read_t *r = arg;
	part_record_t *part_ptr = x;

	r->part[r->in.nparts] = part_ptr;
	((const char **)r->in.part)[r->in.nparts++] = part_ptr->name;
	return 0;
}

/* Slurm's partitions, in part_list's order.  O(P). */
static int _read_parts(gq_read_t *r)
{
	int n = list_count(part_list) + 1;

	if (!(r->part = gq_xcalloc(n, sizeof(*r->part))) ||
	    !(r->in.part = gq_xcalloc(n, sizeof(*r->in.part))))
		return -1;
	list_for_each(part_list, _collect_part, r);
	return 0;
}

/* A node's partitions as indexes of in.part.  O(its partitions x P). */
static int _read_node_parts(gq_read_t *r, node_record_t *node_ptr,
			    gq_pass_node_t *n)
{
	int k, i;

	n->part = r->in.nnode_parts;
	for (k = 0; k < node_ptr->part_cnt; k++) {
		for (i = 0; i < r->in.nparts; i++)
			if (r->part[i] == node_ptr->part_pptr[k])
				break;
		if (i == r->in.nparts)
			continue;
		if (gq_xgrow(&r->in.node_part, r->in.nnode_parts,
			     &r->node_part_cap, sizeof(*r->in.node_part)))
			return -1;
		r->in.node_part[r->in.nnode_parts++] = i;
		n->nparts++;
	}
	return 0;
}

/*
 * The node table: each node's GPUs (all, allocated), state, partitions,
 * features and gres.  O(N x node partitions x P).
 */
static int _read_nodes(gq_read_t *r)
{
	node_record_t *node_ptr;
	int i;

	if (!(r->in.node = gq_xcalloc(node_record_count + 1,
				      sizeof(*r->in.node))))
		return -1;
	r->in.nnodes = node_record_count;
	for (i = 0; (node_ptr = next_node(&i)); i++) {
		gq_pass_node_t *n = &r->in.node[node_ptr->index];
		uint64_t idle;

		n->present = true;
		n->state = node_ptr->node_state;
		n->gpus = _sum_gpus2(node_ptr->gres_list, _node_avail,
				     _node_idle, &idle);
		n->alloc = n->gpus - idle;
		n->features = node_ptr->features_act ? node_ptr->features_act :
			      node_ptr->features;
		n->gres = node_ptr->gres ? node_ptr->gres :
			  node_ptr->config_ptr ? node_ptr->config_ptr->gres :
			  NULL;
		n->domain = gq_topo_domain(node_ptr) + 1;
		if (_read_node_parts(r, node_ptr, n))
			return -1;
	}
	return 0;
}

/* An active job of a pool into the pass input. */
static int _read_pass_job(gq_read_t *r, job_record_t *job_ptr, int pool,
			  time_t now)
{
	gq_pass_job_t *j = &r->in.job[r->in.njobs++];

	j->pool = pool;
	j->account = job_ptr->account;
	j->partitions = _partitions(job_ptr);
	j->pending = IS_JOB_PENDING(job_ptr);
	j->features = job_ptr->details ? job_ptr->details->features : NULL;
	j->tres_per_node = job_ptr->tres_per_node;
	j->tres_per_job = job_ptr->tres_per_job;
	j->pinned = job_ptr->details && (job_ptr->details->req_nodes ||
					 job_ptr->details->exc_nodes);
	gq_read_job(job_ptr, now, &j->in);
	if (j->in.state != GQ_JOB_RUNNING)
		return 0;
	_log_checkpoint_ignored(job_ptr, now);
	return _read_placement(&r->in, &r->place_cap, job_ptr, j);
	return 0;
}

/*
 * One walk of job_list: the reclaims in flight (rebuilt after a restart,
 * victims leaving) and every active job of the pools.  O(J).
 */
static int _read_jobs(gq_read_t *r, const gq_pools_t *p, time_t now)
{
	list_itr_t *it;
	job_record_t *job_ptr;
	int k, rc = 0;

	if (!(r->in.job = gq_xcalloc(list_count(job_list) + 1,
				     sizeof(*r->in.job))))
		return -1;
	gq_state_leaving_begin();
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it)) && !rc) {
		/* a job that ended and completed is no victim: most of the
		 * list is such jobs (MinJobAge), read no further */
		if (IS_JOB_FINISHED(job_ptr) && !IS_JOB_COMPLETING(job_ptr) &&
		    gq_state_inflight_read())
			continue;
		_note_victim(job_ptr, now);
		if (_active(job_ptr) && (k = gq_read_pool(p, job_ptr)) >= 0)
			rc = _read_pass_job(r, job_ptr, k, now);
	}
	list_iterator_destroy(it);
	if (!rc)	/* every job met: the notes of the others are gone */
		_forget_said_unmet();
	gq_state_leaving_end();
	gq_state_inflight_done();
	return rc;
}

static void _free_read(gq_read_t *r)
{
	xfree(r->in.job);
	xfree(r->in.node);
	xfree(r->in.place);
	xfree(r->in.node_part);
	xfree(r->in.part);
	xfree(r->part);
}

/*
 * Slurm's jobs, nodes and partitions into a pass input, filled into the
 * pools by the one shared step (shared/pass_input.h), then Slurm's account
 * tree into each view.  O(J) job records read once each, plus
 * gq_pass_fill's cost.
 */
int gq_read_pass(gq_pools_t *p, time_t now)
{
	gq_read_t r = { .in.min_runtime = slurm_conf.preempt_exempt_time };
	int k, rc;

	if (!job_list || !part_list)
		return -1;
	rc = (_read_parts(&r) || _read_nodes(&r) || _read_jobs(&r, p, now) ||
	      gq_pass_fill(p, &r.in, now)) ? -1 : 0;
	for (k = 0; k < p->n && !rc; k++)
		rc = _read_account_tree(p->view[k]);
	_free_read(&r);
	return rc;
}
