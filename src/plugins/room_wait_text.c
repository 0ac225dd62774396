/*
 * room_wait_text.c - what squeue and slurmctld's log say of a room wait
 * (see room_wait_text.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/slurm_compat.h"

#include "state/state.h"
#include "shared/job_facts.h"
#include "plugins/xalloc.h"
#include "plugins/room_wait_text.h"

static const char *_s(uint32_t n)
{
	return n == 1 ? "" : "s";
}

void gq_room_shape(const gq_job_t *job, char *buf, size_t n)
{
	uint32_t gpn = job ? job->in.gpus_per_node : 0;
	uint32_t nodes = job ? job->in.nodes : 0;

	if (nodes > 1)
		snprintf(buf, n, "%u GPU%s on each of %u nodes", gpn, _s(gpn),
			 nodes);
	else
		snprintf(buf, n, "%u GPU%s on one node", gpn, _s(gpn));
}

const char *gq_room_node_name(int node)
{
	if (node < 0 || node >= node_record_count || !node_record_table_ptr ||
	    !node_record_table_ptr[node] || !node_record_table_ptr[node]->name)
		return "?";
	return node_record_table_ptr[node]->name;
}

int gq_room_saved_names(const gq_view_t *view, char *buf, size_t n)
{
	const int *nodes;
	int k = gq_view_saved_nodes(view, &nodes), i;
	size_t w = 0;

	buf[0] = '\0';
	for (i = 0; i < k && w < n; i++)
		w += snprintf(buf + w, n - w, "%s%s", i ? ", " : "",
			      gq_room_node_name(nodes[i]));
	return k;
}

char *gq_room_hold_text(const gq_view_t *view, uint32_t id)
{
	const gq_job_t *er = gq_view_job(view, id);
	const gq_project_t *pr = er ? gq_view_project(view, er->project) :
				      NULL;
	char shape[96];

	gq_room_shape(er, shape, sizeof(shape));
	return gq_xprintf(GQ_HOLD_PREFIX " GPUs that come free on %s are kept for job %u of %s, which needs %s; work outside quotas that could start there waits at most %d s",
			  gq_room_node_name(gq_view_kept_node(view)->node), id,
			  pr ? pr->name : "?", shape, gq_state_room_wait());
}

void gq_room_why(const gq_room_node_t *at, time_t now, char *buf, size_t n)
{
	char rest[96] = "";

	if (at->when == INT64_MAX)
		snprintf(rest, sizeof(rest), ", the rest when jobs without a time limit end");
	else if (at->when > (int64_t)now)
		snprintf(rest, sizeof(rest), ", the rest when jobs there reach their time limit, in %ld s",
			 (long)(at->when - now));
	snprintf(buf, n, "%u GPU%s idle, %u it may reclaim%s", at->idle,
		 _s(at->idle), at->reclaim, rest);
}

/*
 * The room wait of each pool as last logged: compared with the pass's,
 * not with the pass before, which a reclaim between passes changes in
 * place (gq_state_wait_for_reclaims).  No lock: the pass thread alone
 * writes it (gq_room_log_changes), and fini frees it once that thread is
 * joined (gq_room_log_free).
 */
static struct room_logged {
	struct {
		uint32_t id;
		int node;
		bool kept;	/* a room wait, not only a saved node */
	} *pool;
	int n;
} logged;

/* the node saved in `v`: for whom (0: none), which, and whether GPUs
 * that come free there are kept (a room wait) */
static uint32_t _kept(const gq_view_t *v, int *node, bool *kept)
{
	uint32_t id = gq_view_saved_for(v);

	*node = id ? gq_view_saved_node(v)->node : -1;
	*kept = id && gq_view_kept_for(v) == id;
	return id;
}

/* `logged` grown to note `n` pools; false when out of memory (nothing
 * logged). */
static bool _grow_logged(int n)
{
	void *p;

	if (n <= logged.n)
		return true;
	if (!(p = realloc(logged.pool, sizeof(*logged.pool) * n)))
		return false;
	logged.pool = p;
	for (; logged.n < n; logged.n++) {
		logged.pool[logged.n].id = 0;
		logged.pool[logged.n].node = -1;
		logged.pool[logged.n].kept = false;
	}
	return true;
}

static void _log_begun(const gq_view_t *v, uint32_t id, bool kept,
		       const char *in, time_t now)
{
	const gq_room_node_t *at = gq_view_saved_node(v);
	const gq_job_t *job = gq_view_job(v, id);
	const gq_project_t *p = job ? gq_view_project(v, job->project) : NULL;
	char shape[96], why[192], names[160];
	bool gang = gq_room_saved_names(v, names, sizeof(names)) > 1;

	gq_room_shape(job, shape, sizeof(shape));
	gq_room_why(at, now, why, sizeof(why));
	if (!kept) {	/* a gang's further nodes: chosen again each pass */
		info("gpuquota: saved node%s: %s %s saved for JobId=%u of %s, which needs %s: jobs that can start elsewhere take no victim there; it can start there soonest (%s%s%s)",
		     in, names, gang ? "are" : "is", id, p ? p->name : "?",
		     shape, gang ? gq_room_node_name(at->node) : "",
		     gang ? ": " : "", why);
		return;
	}
	info("gpuquota: room wait%s: GPUs that come free on %s are kept for JobId=%u of %s, which needs %s, at most %d s: it can start there soonest (%s)",
	     in, gq_room_node_name(at->node), id, p ? p->name : "?", shape,
	     gq_state_room_wait(), why);
}

void gq_room_log_changes(const gq_pools_t *pools, time_t now)
{
	char in[96];	/* " in pool NAME", names of at most 64 */
	uint32_t id;
	int k, node;
	bool kept;

	if (!pools || !_grow_logged(pools->n))
		return;
	for (k = 0; k < pools->n; k++) {
		id = _kept(pools->view[k], &node, &kept);
		if (id == logged.pool[k].id && node == logged.pool[k].node &&
		    kept == logged.pool[k].kept)
			continue;
		in[0] = '\0';
		if (pools->name && pools->name[k])
			snprintf(in, sizeof(in), " in pool %s", pools->name[k]);
		if (logged.pool[k].id && (logged.pool[k].id != id ||
					  logged.pool[k].kept != kept))
			info("gpuquota: %s%s for JobId=%u ended",
			     logged.pool[k].kept ? "room wait" : "saved node",
			     in, logged.pool[k].id);
		if (id)
			_log_begun(pools->view[k], id, kept, in, now);
		logged.pool[k].id = id;
		logged.pool[k].node = node;
		logged.pool[k].kept = kept;
	}
}

void gq_room_log_free(void)
{
	free(logged.pool);
	logged.pool = NULL;
	logged.n = 0;
}
