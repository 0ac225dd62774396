/*
 * patience.c - waiting for loans that end soon (see patience.h).
 */
#include <stdlib.h>
#include <string.h>

#include "tools/sort.h"
#include "core/band.h"
#include "core/job_store.h"
#include "core/patience.h"
#include "core/placement.h"
#include "core/reclaim.h"
#include "core/waits.h"

/* A loan's GPUs on one node. */
typedef struct {
	int node;
	uint32_t gpus;
	int64_t ends;
	int job;		/* index in the view's store */
} gq_loan_t;

static int _cmp_loan(const void *a, const void *b)
{
	const gq_loan_t *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->ends != y->ends)
		return x->ends < y->ends ? -1 : 1;
	return x->job - y->job;
}

/* Higher priority first, then the job id (Slurm's order). */
static int _cmp_waiter(const void *a, const void *b, void *ctx)
{
	const gq_job_t *jobs = ctx;
	const gq_job_t *x = &jobs[*(const int *)a], *y = &jobs[*(const int *)b];

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return x->in.id < y->in.id ? -1 : (x->in.id > y->in.id);
}

static bool _may_wait(const gq_job_t *job)
{
	return job->in.state == GQ_JOB_PENDING && !job->hold &&
	       job->in.gpus && job->in.nodes <= 1 && job->tasks_now <= 1 &&
	       (job->band == GQ_BAND_IN_QUOTA ||
		job->band == GQ_BAND_FAIR_SHARE);
}

/*
 * Is this running job a loan for `job`: another project's job that job's
 * kind of reclaim could take without passing a floor (its project's, and
 * its department's against outsiders), whether or not the candidate walk
 * picked it (it takes the youngest first; a loan that ends soon may be
 * older)?  A job its project needs for its floor, or of job's own
 * project, ends when it ends but is nothing job could have taken.
 */
static bool _loan_for(const gq_pass_t *pass, const gq_job_t *job,
		      const gq_loan_t *loan)
{
	return gq_reclaim_over_floor(&pass->reg, gq_store_at(&pass->store, loan->job),
				     job);
}

/*
 * job waits for loans: it starts on nothing and reclaims nothing now.
 * Like a job with no room (room.c, _no_room), an in-quota one goes below
 * the in-quota jobs that can start or reclaim (gq_band_priority_roomless):
 * Slurm's main cycle stops trying a partition at the first job it cannot
 * start (fail_by_part in job_scheduler.c).  Its band, A and key stay.
 */
static void _wait(gq_job_t *job, uint32_t loan_id)
{
	job->patient = true;
	job->waits_for = loan_id;
	if (job->band == GQ_BAND_IN_QUOTA)
		job->priority = gq_band_priority_roomless();
}

/* GPUs it needs on one node. */
static uint32_t _per_node(const gq_job_t *job)
{
	return job->in.gpus_per_node ? job->in.gpus_per_node : job->in.gpus;
}

/*
 * Can `job` wait on some node: none has room idle, one has with its
 * loans?  Takes what it counts on (idle[], used[]).  true: patient.
 */
static bool _wait_for_loans(gq_pass_t *pass, gq_job_t *job, uint32_t *idle,
			    const gq_loan_t *loans, const int *first,
			    char *used)
{
	uint32_t need = _per_node(job);
	int n, best = -1, best_last = -1;
	int64_t best_ends = 0;

	for (n = 0; n < pass->nodes.nnodes; n++) {
		uint32_t have;
		int i, last = -1;

		if (pass->nodes.node_closed[n] ||
		    !gq_nodes_allowed(&pass->nodes, job->in.node_group, n))
			continue;
		if (idle[n] >= need)
			return false;	/* it starts on idle GPUs */
		have = idle[n];
		for (i = first[n]; i < first[n + 1] && have < need; i++)
			if (!used[i] && _loan_for(pass, job, &loans[i])) {
				have += loans[i].gpus;
				last = i;
			}
		if (have >= need &&
		    (best < 0 || loans[last].ends < best_ends)) {
			best = n;
			best_last = last;
			best_ends = loans[last].ends;
		}
	}
	if (best < 0)
		return false;
	{
		uint32_t have = idle[best];
		int i;

		for (i = first[best]; i <= best_last; i++)
			if (!used[i] && _loan_for(pass, job, &loans[i])) {
				have += loans[i].gpus;
				used[i] = 1;
			}
		idle[best] = have - need;
	}
	_wait(job, gq_store_at(&pass->store, loans[best_last].job)->in.id);
	return true;
}

/* What a preemptor in flight was promised on each of its victims' nodes. */
typedef uint32_t gq_promise_t[GQ_RECLAIM_NODES];

/*
 * The GPUs idle on a pending preemptor's victims' nodes are its own: the
 * reclaim in flight freed them for it, and it starts on them within
 * seconds (Slurm's next attempt).  So are those on a moved job's landing
 * node while it restarts (gq_waits_still_for).  Taken out of idle[] on each of those
 * nodes, up to what it needs per node, into took[] (more than it will use
 * when its victims were on several nodes: another job may then wait for a
 * loan where it need not, never reclaim where it should wait).  Another
 * job that counted them would not wait for a loan, and once the preemptor
 * has them, reclaim one more job than the rule lets it.  O(reclaims in
 * flight x GQ_RECLAIM_NODES).
 */
static void _promise(const gq_pass_t *pass, const gq_inflight_t *inflight,
		     uint32_t *idle, gq_promise_t *took)
{
	int i, k;

	for (i = 0; i < inflight->n; i++) {
		const gq_reclaim_at_t *r = &inflight->at[i];
		int idx = gq_store_index(&pass->store, r->preemptor);
		const gq_job_t *preemptor = idx < 0 ? NULL :
					       gq_store_at(&pass->store, idx);

		memset(took[i], 0, sizeof(took[i]));
		if (!preemptor || (r->landing ?
				   !gq_waits_still_for(r, preemptor) :
				   preemptor->in.state != GQ_JOB_PENDING))
			continue;	/* started: its GPUs are not idle */
		for (k = 0; k < r->nnodes && k < GQ_RECLAIM_NODES; k++) {
			int n = r->node[k];
			uint32_t need = _per_node(preemptor);

			if (n < 0 || n >= pass->nodes.nnodes)
				continue;
			took[i][k] = idle[n] < need ? idle[n] : need;
			idle[n] -= took[i][k];
		}
	}
}

/* Give job back (sign 1), or take again (-1), what was promised to it. */
static void _own(const gq_pass_t *pass, const gq_inflight_t *inflight,
		 const gq_job_t *job, uint32_t *idle, gq_promise_t *took,
		 int sign)
{
	int i, k;

	for (i = 0; i < inflight->n; i++) {
		if (inflight->at[i].preemptor != job->in.id)
			continue;
		for (k = 0; k < inflight->at[i].nnodes &&
			    k < GQ_RECLAIM_NODES; k++) {
			int n = inflight->at[i].node[k];

			if (n < 0 || n >= pass->nodes.nnodes)
				continue;
			if (sign > 0)
				idle[n] += took[i][k];
			else	/* what its wait for a loan did not use */
				idle[n] -= idle[n] < took[i][k] ? idle[n] :
								  took[i][k];
		}
	}
}

/*
 * The loans of this pass: eligible running jobs (requeueable, past
 * min_runtime) on nodes that take work, whose time limit ends them
 * within `patience`; whether for a given waiter: _loan_for.  Into
 * loans[] (room for pass->nodes.npl), sorted by node then end.  Returns how many.
 */
static int _loans(const gq_pass_t *pass, int patience, gq_loan_t *loans)
{
	const gq_job_t *jobs = gq_store_records(&pass->store);
	int e, n = 0;

	for (e = 0; e < pass->nodes.npl; e++) {
		const gq_job_t *j = &jobs[pass->nodes.pl_job[e]];

		if (j->in.state == GQ_JOB_RUNNING &&
		    j->preempt_rank != UINT32_MAX &&
		    j->in.ends_by && j->in.ends_by - pass->now <= patience &&
		    !pass->nodes.node_closed[pass->nodes.pl_node[e]])
			loans[n++] = (gq_loan_t){ pass->nodes.pl_node[e],
						  pass->nodes.pl_gpus[e],
						  j->in.ends_by,
						  pass->nodes.pl_job[e] };
	}
	qsort(loans, n, sizeof(*loans), _cmp_loan);
	return n;
}

/* first[n]: node n's first loan in the sorted loans[] (first[N]: end). */
static void _first_loans(const gq_loan_t *loans, int nloans, int nnodes,
			 int *first)
{
	int e = 0, n;

	for (n = 0; n <= nnodes; n++) {
		while (e < nloans && loans[e].node < n)
			e++;
		first[n] = e;
	}
}

int gq_patience_apply(gq_pass_t *pass, const gq_reclaimers_t *reclaimers,
		      const gq_inflight_t *inflight, int patience)
{
	gq_job_t *jobs = gq_store_records(&pass->store);
	int njobs = gq_store_count(&pass->store);
	gq_loan_t *loans = NULL;
	int *first = NULL, *waiters = NULL;
	uint32_t *free_gpus = NULL;
	gq_promise_t *took = NULL;
	char *used = NULL;
	int nloans, nwait = 0, k, n, rc = -1;

	if (patience <= 0 || !pass->nodes.nnodes || !pass->nodes.npl)
		return 0;
	if (!(loans = malloc(sizeof(*loans) * pass->nodes.npl)))
		return -1;
	if (!(nloans = _loans(pass, patience, loans))) {
		rc = 0;
		goto out;
	}
	if (!(first = calloc(pass->nodes.nnodes + 1, sizeof(*first))) ||
	    !(free_gpus = malloc(sizeof(*free_gpus) * pass->nodes.nnodes)) ||
	    !(used = calloc(nloans, 1)) ||
	    !(took = malloc(sizeof(*took) * (inflight->n ? inflight->n : 1))) ||
	    !(waiters = malloc(sizeof(*waiters) * (njobs ? njobs : 1))))
		goto out;
	_first_loans(loans, nloans, pass->nodes.nnodes, first);
	/* idle GPUs and those leaving in a grace time (room.h) */
	memcpy(free_gpus, pass->nodes.node_room, sizeof(*free_gpus) * pass->nodes.nnodes);
	_promise(pass, inflight, free_gpus, took);
	/* of the jobs that may reclaim (gq_queue_walk), by index */
	for (n = 0; n < reclaimers->n; n++)
		if (_may_wait(&jobs[reclaimers->job[n]]))
			waiters[nwait++] = reclaimers->job[n];
	gq_sort_ints(waiters, nwait, _cmp_waiter, jobs);
	for (k = 0; k < nwait; k++) {
		gq_job_t *job = &jobs[waiters[k]];

		/* a preemptor in flight counts its own promised GPUs */
		_own(pass, inflight, job, free_gpus, took, 1);
		_wait_for_loans(pass, job, free_gpus, loans, first, used);
		_own(pass, inflight, job, free_gpus, took, -1);
	}
	rc = 0;
out:
	free(loans);
	free(first);
	free(free_gpus);
	free(took);
	free(used);
	free(waiters);
	return rc;
}

int gq_inflight_set(gq_inflight_t *inflight, const gq_reclaim_at_t *r, int n)
{
	inflight->n = 0;
	if (n > inflight->cap) {
		gq_reclaim_at_t *p = realloc(inflight->at, sizeof(*p) * n);

		if (!p)
			return -1;
		inflight->at = p;
		inflight->cap = n;
	}
	if (n > 0)
		memcpy(inflight->at, r, sizeof(*r) * n);
	inflight->n = n;
	return 0;
}
