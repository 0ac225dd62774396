/*
 * room.c - candidates that actually make room (docs/MODEL.md "Making
 * room").
 *
 * The usual victim walk picks GPUs by project and age, not by node: it may
 * free one GPU on each of two nodes when the preemptor needs two on one.
 * For each pending job that may reclaim and needs G GPUs on each of N
 * nodes, when the usual candidates cannot give that, choose per node (of
 * the nodes it may use: its partition's) the victims, in reclaim order,
 * until the node has room; stop at N nodes.  A node's room starts from
 * what it offers now (gq_room_nodes): its idle GPUs and those of victims
 * leaving it in their grace time; a node that takes no new work
 * (draining, failing: gq_view_close_node) offers none and gives no
 * victim, since Slurm would start nothing there.
 * The choice is kept as (preemptor, victim) pairs.  Room sets and the
 * usual sets draw on one allowance per project and department (reclaim.h):
 * room sets first, in the order Slurm tries their preemptors, then the
 * usual sets with what is left, so that their union never takes a
 * project or department below its floor.  Room sets share victims; a
 * node's idle GPUs are counted by the first room set that uses the node
 * (_count_idle), so two do not count on the same idle GPUs.
 *
 * An in-quota job for which no room can be made, but which would fit on
 * its nodes emptied, is listed for the room wait (gq_view_room_waiters):
 * the GPUs that come free on one node may be kept for it (state.c,
 * gq_view_keep_room), the node where it can start soonest
 * (gq_room_wait_node), by holding the jobs outside quotas that could
 * start there (waits.c, gq_waits_could_land, which the reclaim-in-flight hold
 * uses too, for its victims' nodes).
 *
 * Cost: O(E + N log N + E log E) per pass to bucket the eligible victims'
 * placement entries (E) by node and order nodes, and lay them out as the
 * scans read them (gq_ent_t); O(R) to find who needs room among the R
 * jobs that may reclaim (gq_queue_walk lists them: no other record is
 * read), O(R log R) to sort those that need room into the order Slurm
 * tries them (_sort_need); then O(P + N + E) once per shape of
 * preemptor (project, band, GPUs per node, nodes, node group), not per
 * preemptor: preemptors of one shape share what is found for the first;
 * then O(victims chosen + nodes used) per preemptor.  When a room set
 * takes a victim a usual set counted on, room-making is done again with
 * that set's job among those that need room: at most GQ_ROOM_ROUNDS
 * rounds, each again O(N + E + P + R) plus O(P + N + E) per shape (this
 * is where it grows in a busy pass: rounds x shapes).  The room wait
 * adds O(N + E) once, when an in-quota job gets no room (each node's
 * GPUs), and O(N) per shape of such a job; choosing the waiter's node
 * O(P + N + E log E), once per pool and pass (the sort of the running
 * jobs by --time end is where it grows); whether a job could start on a
 * node, O(1).
 */
#define _GNU_SOURCE	/* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "tools/bucket.h"
#include "core/fairshare.h"
#include "core/reclaim.h"
#include "core/job_store.h"
#include "core/placement.h"
#include "core/room.h"

#define GQ_ROOM_AHEAD 8	/* preemptors whose records are read ahead */
/* Rounds of room-making at most: the first, then again with the jobs whose
 * usual sets the room sets took from (_lost_fit). */
#define GQ_ROOM_ROUNDS 3

/*
 * The kind of reclaim by which preemptor would take a job of each project
 * (gq_reclaim_kinds): the scans below look it up instead of asking per
 * victim.  O(P).
 */
static void _kinds(gq_pass_t *pass, const gq_job_t *preemptor, uint8_t *kind)
{
	gq_reclaim_kinds(&pass->reg, preemptor, kind);
}

/*
 * An eligible victim's placement entry as the node scans read it, in the
 * order of the node buckets: the scans, once per shape of preemptor,
 * read one array in order instead of three arrays and a job record at
 * random per entry.
 */
typedef struct {
	int job;		/* index in the view's store */
	int project;
	uint32_t gpus;		/* its GPUs on this node */
	uint8_t victim;		/* its usual sets when the entries were made:
				 * what _usual_fits asks, before any room set
				 * is chosen */
} gq_ent_t;

/* The entries of node n (bucket order). */
static const gq_ent_t *_ents_of(const gq_ent_t *ents,
				const gq_buckets_t *bynode, int n)
{
	return ents + bynode->start[n];
}

/* A gang (a job of more than one node) where the nodes have domains:
 * its room is sought in one domain first (docs/MODEL.md "Gangs"). */
static bool _gang(const gq_pass_t *pass, const gq_job_t *preemptor)
{
	return preemptor->in.nodes > 1 && pass->nodes.ndomains > 0;
}

/* Node n has room for one more of preemptor's nodes: do enough now?  A
 * gang's count is per domain (dom_ok; NULL: over any nodes), a node of
 * none counts for none. */
static bool _enough(const gq_pass_t *pass, const gq_job_t *preemptor,
		    int n, int *ok, int *dom_ok)
{
	int d;

	if (!dom_ok || !_gang(pass, preemptor))
		return ++*ok >= (int)preemptor->in.nodes;
	d = pass->nodes.node_domain[n];
	return d >= 0 && ++dom_ok[d] >= (int)preemptor->in.nodes;
}

/*
 * Would the usual candidates give room on enough nodes (a gang's in one
 * domain; dom_ok NULL: over any nodes)?  `offered`: per
 * project, the usual sets any of its entries is in (offered[nproj]: of
 * any project); when no project offers preemptor's kind, the nodes' idle GPUs
 * alone answer (O(P + N), not O(P + N + E); O(N) when no entry is in any
 * usual set).
 */
static bool _usual_fits(gq_pass_t *pass, const gq_job_t *preemptor,
			const gq_buckets_t *bynode, const int *nodes,
			uint8_t *kind, const gq_ent_t *ents,
			const uint8_t *offered, int *dom_ok)
{
	int ok = 0, k, s, p;
	bool any = false, fits = false;

	if (offered[pass->reg.nproj]) {
		_kinds(pass, preemptor, kind);
		for (p = 0; p < pass->reg.nproj && !any; p++)
			any = offered[p] & kind[p];
	}

	if (dom_ok && _gang(pass, preemptor))
		memset(dom_ok, 0, sizeof(*dom_ok) * pass->nodes.ndomains);
	for (k = 0; k < pass->nodes.nnodes && !fits; k++) {
		int n = nodes[k];
		const gq_ent_t *ent = _ents_of(ents, bynode, n);
		uint64_t room = pass->nodes.node_room[n];

		/* nodes come with the most room first: without victims, no
		 * later node has room */
		if (!any && room < preemptor->in.gpus_per_node)
			break;
		if (pass->nodes.node_closed[n] ||
		    !gq_nodes_allowed(&pass->nodes, preemptor->in.node_group, n))
			continue;
		for (s = 0; any && s < gq_bucket_len(bynode, n) &&
			    room < preemptor->in.gpus_per_node; s++)
			if (ent[s].victim & kind[ent[s].project])
				room += ent[s].gpus;
		if (room >= preemptor->in.gpus_per_node)
			fits = _enough(pass, preemptor, n, &ok, dom_ok);
	}
	return fits;
}

/* placement entries by reclaim rank of their job */
static int _cmp_entry(const void *a, const void *b, void *ctx)
{
	const gq_pass_t *pass = ctx;
	const gq_job_t *jobs = gq_store_records(&pass->store);
	uint32_t x = jobs[pass->nodes.pl_job[*(const int *)a]].preempt_rank;
	uint32_t y = jobs[pass->nodes.pl_job[*(const int *)b]].preempt_rank;

	return x < y ? -1 : x > y;
}

/* Was node n saved for a room waiter in the pass before? */
static bool _saved_before(const gq_pass_t *pass, int n)
{
	return gq_node_in(pass->saved_before, pass->nsaved_before, n);
}

/* nodes by room, most first; the nodes saved for a room waiter last */
static int _cmp_node_room(const void *a, const void *b, void *ctx)
{
	const gq_pass_t *pass = ctx;
	uint32_t x = pass->nodes.node_room[*(const int *)a];
	uint32_t y = pass->nodes.node_room[*(const int *)b];
	bool sa = _saved_before(pass, *(const int *)a);
	bool sb = _saved_before(pass, *(const int *)b);

	if (sa != sb)
		return sa ? 1 : -1;
	if (x != y)
		return x > y ? -1 : 1;
	return *(const int *)a - *(const int *)b;
}

/*
 * Which projects' entries a preemptor may pass over without reading their
 * jobs (room.c's scans touch a record only for a project that may give):
 * per project, the number of its jobs in some set of this room-making
 * (chain not 0), and skip[p], true when preemptor takes nothing from p (kind 0)
 * or p's allowances refuse every job of it in no set yet
 * (gq_allowance_spent) and it has none in a set.  Exact: a skipped entry is
 * one gq_allowance_take would refuse, of a job not marked taken (marks
 * last one preemptor's _choose).
 */
typedef struct {
	int *chained;		/* per project */
	int nchained;		/* of all projects */
	uint8_t *skip;		/* per project, for the preemptor at hand */
	int live;		/* projects not skipped */
	bool spent;		/* no allowance had room when last asked, and
				 * nothing was taken or given back since */
} gq_givers_t;

static void _giver_update(gq_givers_t *g, const gq_allowance_t *b, int p,
			  uint8_t kind)
{
	bool skip = !kind ||
		    (!g->chained[p] && gq_allowance_spent(b, p, kind));

	g->live += (int)g->skip[p] - (int)skip;
	g->skip[p] = skip;
}

static void _givers_for(gq_givers_t *g, const gq_pass_t *pass,
			const gq_allowance_t *b, const uint8_t *kinds)
{
	int p;

	g->live = pass->reg.nproj;
	memset(g->skip, 0, pass->reg.nproj);
	for (p = 0; p < pass->reg.nproj; p++)
		_giver_update(g, b, p, kinds[p]);
}

/* a job's chain became set (+1) or empty (-1) */
static void _giver_chained(gq_givers_t *g, const gq_allowance_t *b,
			   const gq_job_t *e, uint8_t had, const uint8_t *kinds)
{
	if (!had == !e->chain)
		return;
	g->chained[e->project] += e->chain ? 1 : -1;
	g->nchained += e->chain ? 1 : -1;
	_giver_update(g, b, e->project, kinds[e->project]);
}

/* the node of an eligible victim's placement entry on a node that
 * takes work; else -1 */
static int _node_of(int e, const void *ctx)
{
	const gq_pass_t *pass = ctx;
	const gq_job_t *j = gq_store_at(&pass->store, pass->nodes.pl_job[e]);

	if (j->preempt_rank == UINT32_MAX ||
	    pass->nodes.node_closed[pass->nodes.pl_node[e]])
		return -1;
	return pass->nodes.pl_node[e];
}

void gq_room_nodes(gq_pass_t *pass)
{
	int n, e;

	for (n = 0; n < pass->nodes.nnodes; n++)
		pass->nodes.node_room[n] = pass->nodes.node_closed[n] ?
						   0 : pass->nodes.node_free[n];
	/* a warned victim's GPUs: leaving, for the preemptors to come */
	for (e = 0; e < pass->nodes.npl; e++) {
		const gq_job_t *j = gq_store_at(&pass->store, pass->nodes.pl_job[e]);

		n = pass->nodes.pl_node[e];
		if (j->in.at_risk && j->in.state == GQ_JOB_RUNNING &&
		    !pass->nodes.node_closed[n])
			pass->nodes.node_room[n] += pass->nodes.pl_gpus[e];
	}
}

/* A pending job that may reclaim and asks for GPUs on each of its nodes. */
static bool _wants_room(const gq_job_t *preemptor)
{
	return preemptor->in.state == GQ_JOB_PENDING && !preemptor->hold &&
	       !preemptor->patient && preemptor->in.gpus_per_node &&
	       preemptor->in.nodes &&
	       (preemptor->band == GQ_BAND_IN_QUOTA ||
		preemptor->band == GQ_BAND_FAIR_SHARE);
}

/*
 * A preemptor's place in the order Slurm will try them (priority, older,
 * id) as one 128-bit number, smaller first: the priority's complement,
 * the submit time with its sign bit flipped (so that unsigned order is
 * signed order), the id.  Sorting compares two words inline instead of
 * calling a comparator that reads two records.
 */
typedef struct {
	uint64_t hi, lo;
	int job;
} gq_try_t;

static gq_try_t _try_key(const gq_job_t *jobs, int k)
{
	uint64_t t = (uint64_t)jobs[k].in.submit_time ^ (1ULL << 63);

	return (gq_try_t){
		.hi = (uint64_t)(UINT32_MAX - jobs[k].priority) << 32 | t >> 32,
		.lo = t << 32 | jobs[k].in.id,
		.job = k,
	};
}

static inline bool _try_before(const gq_try_t *x, const gq_try_t *y)
{
	return x->hi != y->hi ? x->hi < y->hi : x->lo < y->lo;
}

/*
 * need[0..n) in the order Slurm will try them; -1 when out of memory.  A
 * merge sort, runs of 2^i merged bottom up: O(n log n).  The keys are
 * distinct (the id), so the order is the one any sort gives.
 */
static int _sort_need(const gq_job_t *jobs, int *need, int n)
{
	gq_try_t *a = malloc(sizeof(*a) * (n + 1));
	gq_try_t *b = malloc(sizeof(*b) * (n + 1));
	gq_try_t *t;
	int w, i;

	if (!a || !b) {
		free(a);
		free(b);
		return -1;
	}
	for (i = 0; i < n; i++)
		a[i] = _try_key(jobs, need[i]);
	for (w = 1; w < n; w *= 2, t = a, a = b, b = t)
		for (i = 0; i < n; i += 2 * w) {
			int x = i, xe = i + w < n ? i + w : n, y = xe;
			int ye = i + 2 * w < n ? i + 2 * w : n, o = i;

			while (x < xe && y < ye)
				b[o++] = _try_before(&a[y], &a[x]) ? a[y++] :
								     a[x++];
			while (x < xe)
				b[o++] = a[x++];
			while (y < ye)
				b[o++] = a[y++];
		}
	for (i = 0; i < n; i++)
		need[i] = a[i].job;
	free(a);
	free(b);
	return 0;
}

/*
 * What is known of one shape of preemptor in this pass: its project (it
 * never takes from itself, and whether a victim is an outsider depends on
 * it), its band, its per-node shape and the nodes it may use.  Whether
 * the usual sets fit, and the room set chosen (or that none can be), are
 * the same for every preemptor of a shape: each is worked out once per
 * pass, so room-making costs O(shapes x (N + E)), not
 * O(preemptors x (N + E)).
 */
typedef struct {
	int8_t usual_fits;	/* -1 not known yet */
	bool usual_any;		/* a gang: the usual sets give room over
				 * several domains, not in one */
	int8_t room;		/* -1 not tried, 0 none, 1 chosen, 2 the
				 * usual sets (usual_any, no domain gave) */
	int8_t fits;		/* -1 not known; fits on its nodes emptied */
	int8_t lost;		/* the usual sets no longer give it room
				 * once marked (_lost_fit): 1 it was left to
				 * them (usual_fits), 2 to them after no
				 * domain gave room (room 2); else 0 */
	int rep;		/* its first preemptor (store index) */
	int first, n;		/* chosen victims: victims[first .. first+n) */
} gq_shape_t;

typedef struct {
	gq_hash_t index;	/* shape key -> shapes[] */
	gq_shape_t *shapes;
	int nshapes;
	int *victims;		/* chosen victims of every shape: one victim
				 * may be in several shapes' sets, so their
				 * sum may pass the jobs in reclaim order */
	int nvictims, cap;
	const gq_job_t *base;	/* the store's records: a shape's rep */
} gq_shapes_t;

/* Keep n victims of a shape; -1 when out of memory.  O(n) amortized. */
static int _keep_victims(gq_shapes_t *sh, gq_shape_t *s, const int *chosen,
			 int n)
{
	if (sh->nvictims + n > sh->cap) {
		int cap = sh->cap * 2 > sh->nvictims + n ? sh->cap * 2 :
							   sh->nvictims + n;
		int *nv = realloc(sh->victims, sizeof(int) * cap);

		if (!nv)
			return -1;
		sh->victims = nv;
		sh->cap = cap;
	}
	s->first = sh->nvictims;
	s->n = n;
	memcpy(sh->victims + sh->nvictims, chosen, sizeof(int) * n);
	sh->nvictims += n;
	return 0;
}

static uint64_t _shape_key(const gq_job_t *preemptor)
{
	const gq_job_in_t *in = &preemptor->in;
	uint64_t gpn = in->gpus_per_node < 0xfff ? in->gpus_per_node : 0xfff;
	uint64_t nodes = in->nodes < 0xfff ? in->nodes : 0xfff;
	uint64_t group = in->node_group < 0xffff ? in->node_group : 0xffff;

	return ((uint64_t)preemptor->project << 41) | (group << 25) |
	       ((uint64_t)(preemptor->band == GQ_BAND_FAIR_SHARE) << 24) |
	       (gpn << 12) | nodes;
}

/* The shape of a preemptor, added when new; NULL when out of memory. */
static gq_shape_t *_shape(gq_shapes_t *sh, const gq_job_t *preemptor, int cap)
{
	gq_key_t key = gq_key_int(_shape_key(preemptor));
	int i = gq_hash_get(&sh->index, key);

	if (i >= 0)
		return &sh->shapes[i];
	if (sh->nshapes == cap || gq_hash_put(&sh->index, key, sh->nshapes))
		return NULL;
	sh->shapes[sh->nshapes].usual_fits = -1;
	sh->shapes[sh->nshapes].usual_any = false;
	sh->shapes[sh->nshapes].room = -1;
	sh->shapes[sh->nshapes].fits = -1;
	sh->shapes[sh->nshapes].lost = 0;
	sh->shapes[sh->nshapes].rep = (int)(preemptor - sh->base);
	return &sh->shapes[sh->nshapes++];
}

/* A room set already chosen for preemptor's shape, for preemptor too. */
static int _reuse(gq_pass_t *pass, gq_room_t *room, gq_job_t *preemptor,
		  const gq_shapes_t *sh, const gq_shape_t *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (gq_hash_put(&room->pairs, gq_key_pair(preemptor->in.id,
			gq_store_at(&pass->store, sh->victims[s->first + i])->in.id),
			1))
			return -1;
	preemptor->room = true;
	return 0;
}

/*
 * Each node's GPUs: idle plus every running job's there (victim or not).
 * Nodes that take no work have no idle GPUs counted (read_slurm.c); a
 * DOWN node has no jobs either, so it counts 0.  O(N + E).
 */
static uint64_t *_node_gpus(const gq_pass_t *pass)
{
	uint64_t *g = malloc(sizeof(*g) * (pass->nodes.nnodes + 1));
	int i;

	if (!g)
		return NULL;
	for (i = 0; i < pass->nodes.nnodes; i++)
		g[i] = pass->nodes.node_free[i];
	for (i = 0; i < pass->nodes.npl; i++)
		if (pass->nodes.pl_node[i] >= 0 &&
		    pass->nodes.pl_node[i] < pass->nodes.nnodes)
			g[pass->nodes.pl_node[i]] += pass->nodes.pl_gpus[i];
	return g;
}

/* Would preemptor fit on the nodes it may use, were they empty?  O(N). */
static bool _fits_emptied(const gq_pass_t *pass, const gq_job_t *preemptor,
			  const uint64_t *gpus)
{
	int n, ok = 0;

	for (n = 0; n < pass->nodes.nnodes && ok < (int)preemptor->in.nodes; n++)
		if (gq_nodes_allowed(&pass->nodes, preemptor->in.node_group, n) &&
		    gpus[n] >= preemptor->in.gpus_per_node)
			ok++;
	return ok >= (int)preemptor->in.nodes;
}

/*
 * preemptor, in quota, can get room on no node: list it for the room wait when
 * it needs more than one GPU and would fit on its nodes emptied (a job
 * that can never fit, more GPUs per node than its nodes have or its nodes
 * down, keeps nothing).  A job of one GPU is not listed: any GPU that
 * comes free on its nodes fits it, and Slurm tries it before all work
 * outside quotas, so nothing would be lent before it.  Listed in the
 * order Slurm tries them.  Returns 0 or -1 (memory).
 */
static int _roomless(const gq_pass_t *pass, gq_room_t *room,
		     const gq_job_t *preemptor, gq_shape_t *s, uint64_t **gpus)
{
	if (preemptor->band != GQ_BAND_IN_QUOTA ||
	    (preemptor->in.gpus_per_node < 2 && preemptor->in.nodes < 2))
		return 0;
	if (s->fits < 0) {
		if (!*gpus && !(*gpus = _node_gpus(pass)))
			return -1;
		s->fits = _fits_emptied(pass, preemptor, *gpus);
	}
	if (!s->fits)
		return 0;
	if (room->nroomless == room->roomless_cap) {
		int cap = room->roomless_cap ? room->roomless_cap * 2 : 16;
		uint32_t *n = realloc(room->roomless, sizeof(*n) * cap);

		if (!n)
			return -1;
		room->roomless = n;
		room->roomless_cap = cap;
	}
	room->roomless[room->nroomless++] = preemptor->in.id;
	return 0;
}

/*
 * No room can be made for preemptor.  An in-quota job goes below the in-quota
 * jobs that can start or reclaim (gq_band_priority_roomless): Slurm's
 * main cycle stops trying a partition at the first job it cannot start
 * (fail_by_part in job_scheduler.c), so tried first it would keep them
 * waiting until backfill.  Its band, its A and every decision stay.
 */
static void _no_room(gq_job_t *preemptor)
{
	if (preemptor->band != GQ_BAND_IN_QUOTA)
		return;
	preemptor->roomless = true;
	preemptor->priority = gq_band_priority_roomless();
}

/*
 * One room-making's scratch, owned by gq_room_make and sized by the view
 * (nodes, jobs, projects, placement entries): allocated once per pass.
 */
typedef struct {
	gq_allowance_t *allowance;	/* the pass' (gq_room_make's) */
	gq_room_t *room;		/* what the pass keeps */
	const gq_reclaimers_t *reclaimers;	/* jobs that may reclaim */
	const gq_buckets_t *bynode;	/* eligible victims' entries by node */
	int *nodes;		/* node indices, the most room first */
	int saved_from;		/* nodes[saved_from ..]: the nodes saved in
				 * the pass before (none: nnodes) */
	gq_ent_t *ents;		/* the entries, in bucket order */
	uint8_t *offered;	/* per project: the usual sets of its entries;
				 * [nproj]: of any project */
	uint8_t *kinds;		/* per project: the preemptor's kind */
	int *need, nneed;	/* jobs the usual sets give no room */
	int *chosen;		/* one preemptor's victims (store indices) */
	gq_charge_t *undo;	/* what taking each of them added */
	char *taken;		/* per job: chosen for the preemptor at hand */
	uint64_t *gpus;		/* each node's GPUs, when first needed */
	uint64_t *idle;		/* per node: its room not yet counted by a
				 * room set this round (_count_idle) */
	int *used;		/* one preemptor's nodes with room: as many
				 * as it asks, once _take_nodes succeeds */
	int *doms, ndoms;	/* domains, in the order of nodes[] */
	int *dom_ok;		/* per domain: nodes with room (scratch) */
	gq_givers_t g;
	gq_shapes_t sh;
} gq_room_work_t;

/* Give back the victims chosen[from..n-1], last first. */
static void _give_back(gq_pass_t *pass, gq_room_work_t *w, int from, int n)
{
	gq_job_t *jobs = gq_store_records(&pass->store);
	int i;

	for (i = n - 1; i >= from; i--) {
		gq_job_t *e = &jobs[w->chosen[i]];
		uint8_t had = e->chain;

		gq_allowance_give_back(w->allowance, &pass->reg, e, &w->undo[i]);
		_giver_chained(&w->g, w->allowance, e, had, w->kinds);
		w->taken[w->chosen[i]] = 0;
	}
}

/*
 * Take victims on node n for preemptor, in reclaim order, until the node has
 * room or none is left; appended to chosen[*nchosen..].  Returns the
 * node's room then.  A taken job's project is chained: never skipped.
 */
static uint64_t _take_on_node(gq_pass_t *pass, gq_room_work_t *w,
			      const gq_job_t *preemptor, int n, int *nchosen)
{
	gq_job_t *jobs = gq_store_records(&pass->store);
	const gq_ent_t *ent = _ents_of(w->ents, w->bynode, n);
	uint64_t room = w->idle[n];
	int s;

	for (s = 0; w->g.live && s < gq_bucket_len(w->bynode, n) &&
		    room < preemptor->in.gpus_per_node; s++) {
		int j = ent[s].job;
		uint8_t kind = w->kinds[ent[s].project], had;

		if (w->g.skip[ent[s].project])
			continue;
		if (w->taken[j]) {	/* freed for another node */
			room += ent[s].gpus;
			continue;
		}
		had = jobs[j].chain;
		if (!kind ||
		    !gq_allowance_take(w->allowance, &pass->reg, &jobs[j], kind,
				       &w->undo[*nchosen]))
			continue;
		_giver_chained(&w->g, w->allowance, &jobs[j], had, w->kinds);
		w->taken[j] = 1;
		w->chosen[(*nchosen)++] = j;
		room += ent[s].gpus;
	}
	return room;
}

/* Which projects preemptor may take from: none at all when no project can give
 * and nothing is chained (then O(P), no kinds). */
static void _givers_for_preemptor(gq_pass_t *pass, gq_room_work_t *w,
				  const gq_job_t *preemptor)
{
	if (!w->g.nchained &&
	    (w->g.spent || !gq_allowance_any_left(w->allowance, &pass->reg))) {
		w->g.live = 0;
		w->g.spent = true;	/* and nothing is taken below */
		return;
	}
	w->g.spent = false;
	_kinds(pass, preemptor, w->kinds);
	_givers_for(&w->g, pass, w->allowance, w->kinds);
}

/*
 * Take victims node by node for one preemptor on the nodes of domain d
 * (-1: any node), into chosen[0..*nchosen).  True when enough nodes have
 * room; else everything is given back.  O(N + E), the entries of
 * projects that cannot give passed over (gq_givers_t); O(N) of nodes
 * until the first without room enough idle when no project can give.
 */
static bool _take_nodes(gq_pass_t *pass, gq_room_work_t *w,
			const gq_job_t *preemptor, int d, int *nchosen)
{
	int ok = 0, k;

	*nchosen = 0;
	for (k = 0; k < pass->nodes.nnodes && ok < (int)preemptor->in.nodes; k++) {
		int n = w->nodes[k], mark = *nchosen;

		/* no project can give (nothing taken, so none will): no
		 * later node has room, but for the saved nodes, last */
		if (!w->g.live && pass->nodes.node_room[n] < preemptor->in.gpus_per_node) {
			if (k + 1 < w->saved_from)
				k = w->saved_from - 1;	/* to the saved nodes */
			continue;
		}
		if (pass->nodes.node_closed[n] ||
		    (d >= 0 && pass->nodes.node_domain[n] != d) ||
		    !gq_nodes_allowed(&pass->nodes, preemptor->in.node_group, n))
			continue;
		if (_take_on_node(pass, w, preemptor, n, nchosen) >=
		    preemptor->in.gpus_per_node) {
			w->used[ok++] = n;
			continue;
		}
		/* this node cannot make it: undo its choices */
		_give_back(pass, w, mark, *nchosen);
		*nchosen = mark;
	}
	if (ok >= (int)preemptor->in.nodes)
		return true;
	_give_back(pass, w, 0, *nchosen);
	*nchosen = 0;
	return false;
}

/*
 * A room set counts its nodes' idle GPUs first (those of victims leaving
 * in their grace time too): they are its own, and the room sets made
 * after it this round count only what is left.  Its victims are shared
 * (a victim another set took costs nothing more).  O(nodes it uses).
 */
static void _count_idle(gq_room_work_t *w, const gq_job_t *preemptor)
{
	int i;

	for (i = 0; i < (int)preemptor->in.nodes; i++) {
		uint64_t *idle = &w->idle[w->used[i]];

		*idle -= *idle < preemptor->in.gpus_per_node ?
			 *idle : preemptor->in.gpus_per_node;
	}
}

/*
 * Choose victims for one preemptor, drawing on the pass' allowance (a
 * victim another room set already took costs nothing more); record them
 * if enough nodes have room, else give everything back.  A gang tries
 * each domain, in the order of their nodes' room, then any nodes.
 * Returns how many were chosen, or -1 (memory); preemptor->room says
 * whether room was found (a gang may find it in idle GPUs alone, over
 * several domains, after none could give it).  O(N + E) (_take_nodes);
 * a gang's O((D + 1) x (N + E)) for D domains.  O(N) when the last call
 * found no project could give either (nothing taken since: the
 * allowances are as they were).
 */
static int _choose(gq_pass_t *pass, gq_room_work_t *w, gq_job_t *preemptor,
		   bool domains_only)
{
	gq_job_t *jobs = gq_store_records(&pass->store);
	int nchosen = 0, i, rc = 0;
	bool found = false;

	_givers_for_preemptor(pass, w, preemptor);
	for (i = 0; _gang(pass, preemptor) && i < w->ndoms && !found; i++)
		found = _take_nodes(pass, w, preemptor, w->doms[i], &nchosen);
	if (!found &&
	    (domains_only || !_take_nodes(pass, w, preemptor, -1, &nchosen)))
		return 0;
	for (i = 0; i < nchosen && !rc; i++)
		rc = gq_hash_put(&w->room->pairs, gq_key_pair(preemptor->in.id,
					       jobs[w->chosen[i]].in.id), 1);
	preemptor->room = true;
	_count_idle(w, preemptor);
	for (i = 0; i < nchosen; i++)
		w->taken[w->chosen[i]] = 0;
	return rc ? -1 : nchosen;
}

/* The scratch of one room-making; -1 when out of memory (what was
 * allocated is freed by _work_free). */
static int _work_new(gq_room_work_t *w, gq_pass_t *pass, gq_room_t *room,
		     const gq_reclaimers_t *reclaimers, int norder)
{
	int njobs = gq_store_count(&pass->store), np = pass->reg.nproj + 1;

	memset(w, 0, sizeof(*w));
	w->room = room;
	w->reclaimers = reclaimers;
	w->bynode = &room->bynode;
	w->nodes = malloc(sizeof(int) * (pass->nodes.nnodes + 1));
	w->chosen = malloc(sizeof(int) * (norder + 1));
	w->need = malloc(sizeof(int) * (njobs + 1));
	w->undo = malloc(sizeof(*w->undo) * (norder + 1));
	w->taken = calloc(njobs + 1, 1);
	w->kinds = malloc(np);
	w->ents = malloc(sizeof(*w->ents) * (pass->nodes.npl + 1));
	w->offered = calloc(np, 1);
	w->g.chained = calloc(np, sizeof(int));
	w->g.skip = malloc(np);
	gq_hash_init(&w->sh.index, &gq_hash_ints);
	w->sh.shapes = malloc(sizeof(*w->sh.shapes) * (njobs + 1));
	w->sh.cap = norder + 1;
	w->sh.base = gq_store_records(&pass->store);
	w->sh.victims = malloc(sizeof(int) * w->sh.cap);
	w->doms = malloc(sizeof(int) * (pass->nodes.ndomains + 1));
	w->dom_ok = calloc(pass->nodes.ndomains + 1, sizeof(int));
	w->idle = malloc(sizeof(*w->idle) * (pass->nodes.nnodes + 1));
	w->used = malloc(sizeof(int) * (pass->nodes.nnodes + 1));
	return w->nodes && w->chosen && w->need && w->undo && w->taken &&
	       w->kinds && w->ents && w->offered && w->g.chained &&
	       w->g.skip && w->sh.shapes && w->sh.victims && w->doms &&
	       w->dom_ok && w->idle && w->used ? 0 : -1;
}

static void _work_free(gq_room_work_t *w)
{
	gq_hash_free(&w->sh.index);
	free(w->gpus);
	free(w->sh.shapes);
	free(w->sh.victims);
	free(w->nodes);
	free(w->chosen);
	free(w->need);
	free(w->undo);
	free(w->taken);
	free(w->kinds);
	free(w->ents);
	free(w->offered);
	free(w->g.chained);
	free(w->g.skip);
	free(w->doms);
	free(w->dom_ok);
	free(w->idle);
	free(w->used);
}

/* The domains in the order of their first node in nodes[] (the most
 * room first), dom_ok left zero.  O(N + D). */
static void _domain_order(const gq_pass_t *pass, gq_room_work_t *w)
{
	int k, i;

	w->ndoms = 0;
	for (k = 0; k < pass->nodes.nnodes; k++) {
		int d = pass->nodes.node_domain[w->nodes[k]];

		if (d >= 0 && !w->dom_ok[d]) {
			w->dom_ok[d] = 1;
			w->doms[w->ndoms++] = d;
		}
	}
	for (i = 0; i < w->ndoms; i++)
		w->dom_ok[w->doms[i]] = 0;
}

/*
 * The eligible victims' entries bucketed by node, each node's in reclaim
 * order, the nodes with the most room (fewest victims) first, and the
 * entries laid out as the scans read them.  -1: memory.
 */
static int _lay_out(gq_pass_t *pass, gq_room_work_t *w)
{
	gq_job_t *jobs = gq_store_records(&pass->store);
	gq_buckets_t *bynode = &w->room->bynode;
	int i;

	if (gq_buckets_fill(bynode, pass->nodes.npl, pass->nodes.nnodes,
			    _node_of, pass))
		return -1;
	for (i = 0; i < pass->nodes.nnodes; i++) {
		qsort_r(gq_bucket(bynode, i), gq_bucket_len(bynode, i),
			sizeof(int), _cmp_entry, pass);
		w->nodes[i] = i;
	}
	qsort_r(w->nodes, pass->nodes.nnodes, sizeof(*w->nodes), _cmp_node_room, pass);
	for (w->saved_from = pass->nodes.nnodes; w->saved_from > 0 &&
	     _saved_before(pass, w->nodes[w->saved_from - 1]); w->saved_from--)
		;
	_domain_order(pass, w);
	for (i = 0; i < bynode->start[pass->nodes.nnodes]; i++) {
		int e = bynode->item[i], j = pass->nodes.pl_job[e];
		gq_ent_t *ent = &w->ents[i];

		ent->job = j;
		ent->project = jobs[j].project;
		ent->gpus = pass->nodes.pl_gpus[e];
		ent->victim = jobs[j].victim;
		w->offered[ent->project] |= ent->victim;
		w->offered[pass->reg.nproj] |= ent->victim;
	}
	return 0;
}

/*
 * Who needs room, judged by the usual sets already marked: of the jobs
 * that may reclaim (gq_queue_walk), in the order of the jobs, into
 * need[].  -1: memory.
 */
static int _find_need(gq_pass_t *pass, gq_room_work_t *w)
{
	gq_job_t *jobs = gq_store_records(&pass->store);
	int njobs = gq_store_count(&pass->store), i, k;

	for (i = 0; i < w->reclaimers->n; i++) {
		gq_shape_t *s;

		/* scattered records, both lines read: asked for ahead */
		if (i + GQ_ROOM_AHEAD < w->reclaimers->n) {
			const char *a = (const char *)
				&jobs[w->reclaimers->job[i + GQ_ROOM_AHEAD]];

			__builtin_prefetch(a);
			__builtin_prefetch(a + 64);
		}
		k = w->reclaimers->job[i];
		if (!_wants_room(&jobs[k]))
			continue;
		if (!(s = _shape(&w->sh, &jobs[k], njobs)))
			return -1;
		if (s->usual_fits < 0) {
			s->usual_fits = _usual_fits(pass, &jobs[k], w->bynode,
						    w->nodes, w->kinds,
						    w->ents, w->offered,
						    w->dom_ok);
			s->usual_any = !s->usual_fits &&
				_gang(pass, &jobs[k]) &&
				_usual_fits(pass, &jobs[k], w->bynode, w->nodes,
					    w->kinds, w->ents, w->offered, NULL);
		}
		if (!s->usual_fits)
			w->need[w->nneed++] = k;
	}
	return 0;
}

/* Room for one job that needs it: shared with its shape, chosen, or
 * none (then listed for the room wait when it fits emptied nodes). */
static int _room_for(gq_pass_t *pass, gq_room_work_t *w, gq_job_t *preemptor)
{
	gq_shape_t *s = _shape(&w->sh, preemptor, gq_store_count(&pass->store));
	int n;

	if (s->room == 0) {	/* none can be made: not for this one */
		if (_roomless(pass, w->room, preemptor, s, &w->gpus))
			return -1;
		_no_room(preemptor);
		return 0;
	}
	if (s->room == 1)
		return _reuse(pass, w->room, preemptor, &w->sh, s);
	if (s->room == 2)	/* the usual sets, as without domains */
		return 0;
	/* room, maybe of idle GPUs alone: a gang that no domain takes */
	if ((n = _choose(pass, w, preemptor, s->usual_any)) < 0)
		return -1;
	if (!preemptor->room && s->usual_any) {
		s->room = 2;
		return 0;
	}
	s->room = preemptor->room;
	if (!s->room && _roomless(pass, w->room, preemptor, s, &w->gpus))
		return -1;
	if (!s->room)
		_no_room(preemptor);
	return _keep_victims(&w->sh, s, w->chosen, n);
}

/*
 * One round of room-making: room sets for need[] first, from a fresh
 * allowance shared by all of them, in the order Slurm tries the
 * preemptors; then the usual sets again with what is left.  Every set of
 * the pass draws on the same allowance.  -1: memory.
 */
static int _room_round(gq_pass_t *pass, gq_room_work_t *w,
		       const gq_reclaim_runs_t *runs, gq_allowance_t **allowance)
{
	gq_job_t *jobs = gq_store_records(&pass->store);
	int k;

	for (k = 0; k < runs->norder; k++)
		jobs[runs->order[k]].chain = jobs[runs->order[k]].victim = 0;
	gq_allowance_free(*allowance);
	if (!(*allowance = gq_allowance_new(&pass->reg)) ||
	    _sort_need(jobs, w->need, w->nneed))
		return -1;
	w->allowance = *allowance;
	for (k = 0; k < pass->nodes.nnodes; k++)	/* none counted yet */
		w->idle[k] = pass->nodes.node_room[k];
	for (k = 0; k < w->nneed; k++)
		if (_room_for(pass, w, &jobs[w->need[k]]))
			return -1;
	gq_reclaim_mark(*allowance, &pass->reg, jobs, runs->order,
			runs->norder);
	return 0;
}

/* The entries' usual sets as marked now (after gq_reclaim_mark).  O(E + P). */
static void _marks_again(gq_pass_t *pass, gq_room_work_t *w)
{
	const gq_job_t *jobs = gq_store_records(&pass->store);
	int i;

	memset(w->offered, 0, pass->reg.nproj + 1);
	for (i = 0; i < w->bynode->start[pass->nodes.nnodes]; i++) {
		gq_ent_t *ent = &w->ents[i];

		ent->victim = jobs[ent->job].victim;
		w->offered[ent->project] |= ent->victim;
		w->offered[pass->reg.nproj] |= ent->victim;
	}
}

/*
 * Does a shape left to the usual sets (usual_fits, or room 2) lose their
 * room once they are marked from what the room sets left (a room set took
 * a victim its usual set counted on)?  Then it is told so (lost) and
 * needs a room set.  O(P + N + E).
 */
static bool _shape_lost(gq_pass_t *pass, gq_room_work_t *w, gq_shape_t *s)
{
	gq_job_t *j = gq_store_at(&pass->store, s->rep);
	bool dom, any;

	s->lost = 0;
	if (s->usual_fits != 1 && s->room != 2)
		return false;
	dom = _usual_fits(pass, j, w->bynode, w->nodes, w->kinds, w->ents,
			  w->offered, w->dom_ok);
	any = !_gang(pass, j) ? dom :
	      _usual_fits(pass, j, w->bynode, w->nodes, w->kinds, w->ents,
			  w->offered, NULL);
	if (s->usual_fits == 1 ? dom : any)
		return false;
	s->lost = s->usual_fits == 1 ? 1 : 2;
	s->usual_fits = 0;
	s->usual_any = !dom && any;
	return true;
}

/*
 * After a round: the preemptors whose shape lost its usual sets
 * (_shape_lost).  Those the usual sets fitted join need[] (room-2 jobs
 * are in it already); in the last round (`last`), each such job gets no
 * room instead, so that it is not tried first for room it does not have.
 * Returns how many shapes were lost, -1: memory.  O(E + P), plus O(P + N
 * + E) per shape left to the usual sets, plus O(R) for the R jobs that
 * may reclaim.
 */
static int _lost_fit(gq_pass_t *pass, gq_room_work_t *w, bool last)
{
	gq_job_t *jobs = gq_store_records(&pass->store);
	int i, lost = 0, k;

	_marks_again(pass, w);
	for (i = 0; i < w->sh.nshapes; i++)
		lost += _shape_lost(pass, w, &w->sh.shapes[i]);
	for (i = 0; lost && i < w->reclaimers->n; i++) {
		gq_shape_t *s;

		k = w->reclaimers->job[i];
		if (!_wants_room(&jobs[k]) ||
		    !(s = _shape(&w->sh, &jobs[k], gq_store_count(&pass->store))) ||
		    !s->lost)
			continue;
		if (!last) {
			if (s->lost == 1)
				w->need[w->nneed++] = k;
		} else if (_roomless(pass, w->room, &jobs[k], s, &w->gpus)) {
			return -1;
		} else {
			_no_room(&jobs[k]);
		}
	}
	return lost;
}

/*
 * Forget a round's room sets and waiters before the next: the jobs that
 * needed room get back their band's priority, the shapes what they chose,
 * the givers their chains.  O(need + shapes + P).
 */
static void _undo_round(gq_pass_t *pass, gq_room_work_t *w)
{
	gq_job_t *jobs = gq_store_records(&pass->store);
	int k;

	gq_room_clear(w->room);
	for (k = 0; k < w->nneed; k++) {
		gq_job_t *j = &jobs[w->need[k]];

		j->room = j->roomless = false;
		j->priority = gq_band_priority(j->band, j->key);
	}
	for (k = 0; k < w->sh.nshapes; k++) {
		w->sh.shapes[k].room = -1;
		w->sh.shapes[k].n = 0;
	}
	w->sh.nvictims = 0;
	memset(w->g.chained, 0, sizeof(int) * (pass->reg.nproj + 1));
	w->g.nchained = 0;
	w->g.spent = false;
}

int gq_room_make(gq_pass_t *pass, gq_room_t *room,
		 const gq_reclaimers_t *reclaimers, const gq_reclaim_runs_t *runs,
		 gq_allowance_t **allowance)
{
	gq_room_work_t w;
	int round, lost, rc = -1;

	if (_work_new(&w, pass, room, reclaimers, runs->norder) ||
	    _lay_out(pass, &w) || _find_need(pass, &w))
		goto out;
	for (round = 1; w.nneed; round++) {
		if (_room_round(pass, &w, runs, allowance) ||
		    (lost = _lost_fit(pass, &w, round == GQ_ROOM_ROUNDS)) < 0)
			goto out;
		if (!lost || round == GQ_ROOM_ROUNDS)
			break;
		_undo_round(pass, &w);
	}
	rc = 0;
out:
	_work_free(&w);
	return rc;
}

/* A running job's GPUs on a node, by when its --time ends it. */
typedef struct {
	int64_t ends;		/* INT64_MAX: no time limit */
	int node;
	uint32_t gpus;
} gq_end_t;

static int _cmp_end(const void *a, const void *b)
{
	const gq_end_t *x = a, *y = b;

	if (x->ends != y->ends)
		return x->ends < y->ends ? -1 : 1;
	return x->node - y->node;
}

/* May preemptor wait on node at->node? */
static bool _may_wait_on(const gq_pass_t *pass, const gq_job_t *preemptor,
			 const gq_room_node_t *at)
{
	return !pass->nodes.node_closed[at->node] &&
	       gq_nodes_allowed(&pass->nodes, preemptor->in.node_group, at->node) &&
	       at->gpus >= preemptor->in.gpus_per_node;
}

/* Is x a better node to wait on than y (y->node -1: none yet)? */
static bool _sooner(const gq_room_node_t *x, const gq_room_node_t *y)
{
	if (y->node < 0)
		return true;
	if (x->when != y->when)
		return x->when < y->when;
	if (x->idle != y->idle)
		return x->idle > y->idle;
	if (x->reclaim != y->reclaim)
		return x->reclaim > y->reclaim;
	return x->node < y->node;
}

/*
 * Each node's GPUs, idle GPUs and GPUs preemptor may reclaim (at[]), and the
 * other running jobs' GPUs by node into ends[] (*nends of them).  O(P +
 * N + E).
 */
static void _node_numbers(const gq_pass_t *pass, const gq_job_t *preemptor,
			  gq_room_node_t *at, gq_end_t *ends, int *nends,
			  uint8_t *kind)
{
	const gq_job_t *jobs = gq_store_records(&pass->store);
	int n, e;

	gq_reclaim_kinds(&pass->reg, preemptor, kind);
	for (n = 0; n < pass->nodes.nnodes; n++)
		at[n] = (gq_room_node_t){ .node = n, .gpus = pass->nodes.node_free[n],
					  .idle = pass->nodes.node_room[n],
					  .when = INT64_MAX };
	*nends = 0;
	for (e = 0; e < pass->nodes.npl; e++) {
		const gq_job_t *j = &jobs[pass->nodes.pl_job[e]];

		n = pass->nodes.pl_node[e];
		if (n < 0 || n >= pass->nodes.nnodes || j->in.state != GQ_JOB_RUNNING)
			continue;
		at[n].gpus += pass->nodes.pl_gpus[e];
		if (j->in.at_risk)	/* leaving: in node_room already */
			continue;
		if (j->victim & kind[j->project])
			at[n].reclaim += pass->nodes.pl_gpus[e];
		else
			ends[(*nends)++] = (gq_end_t){
				.ends = j->in.ends_by ? j->in.ends_by :
							INT64_MAX,
				.node = n, .gpus = pass->nodes.pl_gpus[e] };
	}
}

/*
 * When each node has preemptor's GPUs per node free (at[].when): now when
 * its idle GPUs and those preemptor may reclaim cover them, else when the
 * other running jobs there, taken in the order their --time ends them,
 * free enough.  at[] has room for every node.  -1: out of memory.
 * O(P + N + E log E).
 */
static int _node_when(const gq_pass_t *pass, const gq_job_t *preemptor,
		      gq_room_node_t *at)
{
	uint64_t *got = calloc(pass->nodes.nnodes + 1, sizeof(*got));
	gq_end_t *ends = malloc(sizeof(*ends) * (pass->nodes.npl + 1));
	uint8_t *kind = malloc(pass->reg.nproj + 1);
	uint32_t need = preemptor->in.gpus_per_node;
	int n, e, nends, rc = -1;

	if (!got || !ends || !kind)
		goto out;
	_node_numbers(pass, preemptor, at, ends, &nends, kind);
	for (n = 0; n < pass->nodes.nnodes; n++) {
		got[n] = (uint64_t)at[n].idle + at[n].reclaim;
		if (got[n] >= need)
			at[n].when = pass->now;
	}
	/* the jobs that must end, the soonest first */
	qsort(ends, nends, sizeof(*ends), _cmp_end);
	for (e = 0; e < nends; e++) {
		n = ends[e].node;
		if (got[n] >= need)
			continue;
		got[n] += ends[e].gpus;
		if (got[n] >= need)
			at[n].when = ends[e].ends;
	}
	rc = 0;
out:
	free(got);
	free(ends);
	free(kind);
	return rc;
}

/* Is x a better further node for a gang than y (y->node -1: none yet):
 * in domain d first (d < 0: no topology), then sooner. */
static bool _before(const gq_pass_t *pass, const gq_room_node_t *x,
		    const gq_room_node_t *y, int d)
{
	bool xd, yd;

	if (y->node < 0 || d < 0)
		return _sooner(x, y);
	xd = pass->nodes.node_domain[x->node] == d;
	yd = pass->nodes.node_domain[y->node] == d;
	if (xd != yd)
		return xd;
	return _sooner(x, y);
}

/* Is node n among out[0 .. k)?  O(k). */
static bool _chosen(const gq_room_node_t *out, int k, int n)
{
	while (k-- > 0)
		if (out[k].node == n)
			return true;
	return false;
}

/* The preferred node for slot k (prefer[k], while preemptor may wait on
 * it and it is not chosen yet), or node -1. */
static gq_room_node_t _preferred(const gq_pass_t *pass,
				 const gq_job_t *preemptor,
				 const gq_room_node_t *at, const int *prefer,
				 int nprefer, const gq_room_node_t *out, int k)
{
	int p = k < nprefer ? prefer[k] : -1;

	if (p >= 0 && p < pass->nodes.nnodes &&
	    _may_wait_on(pass, preemptor, &at[p]) && !_chosen(out, k, p))
		return at[p];
	return (gq_room_node_t){ .node = -1 };
}

int gq_room_wait_nodes(const gq_pass_t *pass, const gq_job_t *preemptor,
		       const int *prefer, int nprefer, gq_room_node_t *out,
		       int max)
{
	gq_room_node_t *at = malloc(sizeof(*at) * (pass->nodes.nnodes + 1));
	int n, k = 0, want = preemptor->in.nodes > 1 ?
				     (int)preemptor->in.nodes : 1, d = -1;
	bool scan;

	if (want > max)
		want = max;
	if (!at || max < 1 || _node_when(pass, preemptor, at))
		goto out;
	for (k = 0; k < want; k++) {
		out[k] = _preferred(pass, preemptor, at, prefer, nprefer, out,
				    k);
		scan = out[k].node < 0;
		/* the first by _sooner; a gang's further nodes in the
		 * first's domain first */
		for (n = 0; scan && n < pass->nodes.nnodes; n++)
			if (_may_wait_on(pass, preemptor, &at[n]) &&
			    !_chosen(out, k, n) &&
			    _before(pass, &at[n], &out[k], d))
				out[k] = at[n];
		if (out[k].node < 0)
			break;
		if (!k)
			d = pass->nodes.node_domain[out[0].node];
	}
out:
	free(at);
	return k;
}

gq_room_node_t gq_room_wait_node(const gq_pass_t *pass,
				 const gq_job_t *preemptor, int prefer)
{
	gq_room_node_t at = { .node = -1 };

	gq_room_wait_nodes(pass, preemptor, &prefer, prefer >= 0, &at, 1);
	return at;
}

void gq_room_init(gq_room_t *room)
{
	memset(room, 0, sizeof(*room));
	gq_hash_init(&room->pairs, &gq_hash_ints);
}

void gq_room_clear(gq_room_t *room)
{
	gq_hash_clear(&room->pairs);
	room->nroomless = 0;
}

void gq_room_free(gq_room_t *room)
{
	gq_hash_free(&room->pairs);
	free(room->roomless);
	gq_buckets_free(&room->bynode);
}

int gq_room_add_pair(gq_room_t *room, uint32_t preemptor, uint32_t victim)
{
	return gq_hash_put(&room->pairs, gq_key_pair(preemptor, victim), 1);
}

bool gq_room_pair(const gq_room_t *room, uint32_t preemptor, uint32_t victim)
{
	return gq_hash_get(&room->pairs, gq_key_pair(preemptor, victim)) >= 0;
}

int gq_room_waiters(const gq_room_t *room, const uint32_t **ids)
{
	*ids = room->roomless;
	return room->nroomless;
}
