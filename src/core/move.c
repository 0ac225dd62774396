/*
 * move.c - moves: another project's in-quota job requeued to empty the
 * node saved for a room waiter (see move.h and docs/MODEL.md "Moves").
 *
 * For waiter W on each of its saved nodes S (one, or a gang's k), g =
 * W's GPUs per node:
 *   idle(S)  = S's idle GPUs and those of victims leaving it;
 *   b        = GPUs of borrowed jobs on S that W may reclaim, chosen;
 *   m        = GPUs of the moved jobs M on S;
 *   a move needs    idle(S) + b + m >= g   (W fits on S)
 *   and is bound by b + m <= g             (nothing requeued W cannot use).
 *   M restarts on n, none of W's saved nodes, where
 *   room(n) + mine(M, n) - kept(n) >= gpus(M),
 *   mine(M, n) = GPUs on n of running jobs M's project may reclaim in
 *   quota; kept(n) = GPUs of n counted for moved jobs before M.
 *   loss(M) = gpus(M) x (now - (start + saved)): the least first.
 */
#include <stdlib.h>
#include <string.h>

#include "core/move.h"
#include "core/reclaim.h"
#include "core/waits.h"

void gq_move_clear(gq_move_t *m)
{
	memset(m, 0, sizeof(*m));
	m->node = -1;
}

int gq_move_to(const gq_move_t *m, uint32_t preemptor, uint32_t victim)
{
	int i;

	if (!m->waiter || m->waiter != preemptor)
		return -1;
	for (i = 0; i < m->n; i++)
		if (m->moved[i] == victim)
			return m->to[i];
	return -1;
}

/* A job on S: its store index, GPUs there, and the work a move loses. */
typedef struct {
	int job;
	uint32_t gpus;
	uint64_t loss;
	uint32_t order;	/* borrowed: its reclaim rank; moved: its id */
} gq_on_node_t;

static int _cmp_on(const void *a, const void *b)
{
	const gq_on_node_t *x = a, *y = b;

	if (x->loss != y->loss)
		return x->loss < y->loss ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Seconds since job's start or checkpoint; -1: a start after now
 * (the clock stepped back), of unknown age. */
static int64_t _age(const gq_job_t *j, int64_t now)
{
	int64_t since = j->in.start_time + j->in.saved_secs;

	return since > now ? -1 : now - since;
}

/* Does j's project (and its department) hold no more than its quota,
 * its landings counted: j restarts in quota, first in its queue
 * (queue.c, _landing_step), whatever its project asks? */
static bool _restarts_in_quota(const gq_registry_t *r, const gq_job_t *j)
{
	const gq_project_t *p = &r->proj[j->project];
	const gq_dept_t *d = p->department < 0 ? NULL : &r->dept[p->department];

	return p->alloc + p->landing <= p->quota &&
	       (!d || d->alloc + d->landing <= d->quota);
}

/* May W's move take job j, not W's victim already (_on_node asks that
 * first): on S alone, its nodes known, another project's, restarting in
 * quota? */
static bool _movable(const gq_pass_t *pass, const gq_job_t *w,
		     const gq_job_t *j, const gq_move_rules_t *rules)
{
	int64_t age = _age(j, pass->now);

	return j->project != w->project && j->place_n == 1 &&
	       j->in.node_group != GQ_NODES_UNKNOWN &&
	       _restarts_in_quota(&pass->reg, j) &&
	       gq_victim_eligible(&j->in, pass->now, rules->min_runtime) &&
	       age >= 0 && age < rules->age &&
	       !(rules->moved_lately &&
		 rules->moved_lately(j->in.id, rules->ctx));
}

/*
 * The jobs on S: borrowed[] (W may reclaim them) by reclaim rank, and
 * movable[] by loss.  O(E log E).
 */
static void _on_node(const gq_pass_t *pass, const gq_job_t *w, int s,
		     const gq_move_rules_t *rules, gq_on_node_t *borrowed,
		     int *nb, gq_on_node_t *movable, int *nm)
{
	const gq_nodes_t *n = &pass->nodes;
	int e;

	*nb = *nm = 0;
	for (e = 0; e < n->npl; e++) {
		const gq_job_t *j = gq_store_at(&pass->store, n->pl_job[e]);
		gq_on_node_t o = { .job = n->pl_job[e], .gpus = n->pl_gpus[e] };

		if (n->pl_node[e] != s || j->in.state != GQ_JOB_RUNNING ||
		    j->in.at_risk)
			continue;
		if (gq_reclaim_allowed(&pass->reg, j, w)) {
			o.order = j->preempt_rank;
			borrowed[(*nb)++] = o;
		} else if (_movable(pass, w, j, rules)) {
			o.loss = (uint64_t)o.gpus * _age(j, pass->now);
			o.order = j->in.id;
			movable[(*nm)++] = o;
		}
	}
	qsort(borrowed, *nb, sizeof(*borrowed), _cmp_on);
	qsort(movable, *nm, sizeof(*movable), _cmp_on);
}

/* W's saved nodes: moved jobs restart on none of them. */
typedef struct {
	const int *node;
	int n;
} gq_saved_set_t;

/*
 * Where moved job `m` restarts: the node, none of W's, it may use with
 * the most room(n) + mine(m, n) - kept(n), at least its GPUs; -1: none.
 * `have` and `kind` are scratch (nodes, projects).  O(N x k + E + P).
 */
static int _landing(const gq_pass_t *pass, const gq_job_t *m,
		    const gq_saved_set_t *s, const uint32_t *kept,
		    uint64_t *have, uint8_t *kind)
{
	const gq_nodes_t *n = &pass->nodes;
	gq_job_t as = *m;	/* m pending again, in quota */
	int e, i, best = -1;

	as.in.state = GQ_JOB_PENDING;
	as.band = GQ_BAND_IN_QUOTA;
	gq_reclaim_kinds(&pass->reg, &as, kind);
	for (i = 0; i < n->nnodes; i++)
		have[i] = n->node_room[i];
	for (e = 0; e < n->npl; e++) {
		const gq_job_t *j = gq_store_at(&pass->store, n->pl_job[e]);

		if (j->in.state == GQ_JOB_RUNNING && !j->in.at_risk &&
		    j->project != m->project && (j->victim & kind[j->project]))
			have[n->pl_node[e]] += n->pl_gpus[e];
	}
	for (i = 0; i < n->nnodes; i++) {
		if (gq_node_in(s->node, s->n, i) || n->node_closed[i] ||
		    !gq_nodes_allowed(n, m->in.node_group, i) ||
		    have[i] < (uint64_t)kept[i] + m->in.gpus)
			continue;
		if (best < 0 || have[i] - kept[i] > have[best] - kept[best])
			best = i;
	}
	return best;
}

/* The GPUs kept on each node for the landings of earlier moves still
 * waited for (gq_waits_still_for): not room for this move's jobs.
 * O(landings). */
static void _kept_for_landings(const gq_pass_t *pass,
			       const gq_move_rules_t *rules, uint32_t *kept)
{
	int i;

	for (i = 0; i < rules->ninflight; i++) {
		const gq_reclaim_at_t *r = &rules->inflight[i];
		const gq_job_t *j = gq_store_find(&pass->store, r->preemptor);

		if (r->landing && r->nnodes == 1 && r->node[0] >= 0 &&
		    r->node[0] < pass->nodes.nnodes && gq_waits_still_for(r, j))
			kept[r->node[0]] += j->in.gpus;
	}
}

/* Scratch of one plan, sized by the pass. */
typedef struct {
	gq_on_node_t *borrowed, *movable, *pick;
	gq_on_node_t *all;	/* the borrowed victims of every node */
	int nall;
	uint8_t *reach;		/* _choose_borrowed's sums */
	uint32_t *kept;
	uint64_t *have;
	uint8_t *kind;
} gq_move_work_t;

static bool _work_new(gq_move_work_t *k, const gq_pass_t *pass, uint32_t g)
{
	int npl = pass->nodes.npl + 1, nn = pass->nodes.nnodes + 1;

	k->reach = malloc((size_t)(npl + 1) * (g + 1));
	k->borrowed = malloc(sizeof(*k->borrowed) * npl);
	k->movable = malloc(sizeof(*k->movable) * npl);
	k->pick = malloc(sizeof(*k->pick) * npl);
	k->all = malloc(sizeof(*k->all) * npl);
	k->nall = 0;
	k->kept = calloc(nn, sizeof(*k->kept));
	k->have = malloc(sizeof(*k->have) * nn);
	k->kind = malloc(pass->reg.nproj + 1);
	return k->borrowed && k->movable && k->pick && k->all && k->reach &&
	       k->kept && k->have && k->kind;
}

static void _work_free(gq_move_work_t *k)
{
	free(k->borrowed);
	free(k->movable);
	free(k->pick);
	free(k->all);
	free(k->reach);
	free(k->kept);
	free(k->have);
	free(k->kind);
}

/* Can the victims from i on (reach: the sums they make, rows of g + 1)
 * add to `have` a sum in [lo, hi]? */
static bool _fits_from(const uint8_t *reach, int i, uint32_t g,
		       uint32_t have, uint32_t lo, uint32_t hi)
{
	uint32_t s;

	for (s = 0; have + s <= hi; s++)
		if (reach[(size_t)i * (g + 1) + s] && have + s >= lo)
			return true;
	return false;
}

/*
 * W's borrowed victims on S, b GPUs with idle + b + m >= g and b + m <=
 * g: in reclaim order, each taken when a fit can still follow, until W
 * fits.  reach: scratch of (nb + 1) x (g + 1) bytes.  Into pick[]: how
 * many; -1: no subset fits.  O(B x g).
 */
static int _choose_borrowed(const gq_on_node_t *b, int nb, gq_on_node_t *pick,
			    uint8_t *reach, uint32_t idle, uint32_t g,
			    gq_move_t *out)
{
	uint32_t hi = g - out->gpus, s, x;
	uint32_t lo = g > idle + out->gpus ? g - idle - out->gpus : 0;
	size_t w = g + 1;
	int i, n = 0;

	memset(reach + (size_t)nb * w, 0, w);
	reach[(size_t)nb * w] = 1;
	for (i = nb - 1; i >= 0; i--)
		for (s = 0; s <= g; s++)
			reach[i * w + s] = reach[(i + 1) * w + s] ||
				(s >= b[i].gpus &&
				 reach[(i + 1) * w + s - b[i].gpus]);
	out->borrowed = 0;
	if (!_fits_from(reach, 0, g, 0, lo, hi))
		return -1;
	for (i = 0; i < nb && out->borrowed < lo; i++) {
		x = out->borrowed + b[i].gpus;
		if (x > hi || !_fits_from(reach, i + 1, g, x, lo, hi))
			continue;
		out->borrowed = x;
		pick[n++] = b[i];
	}
	return n;
}

/*
 * The moved jobs, the least loss first, each with a landing, never m >
 * g - idle; after each, W's borrowed victims (_choose_borrowed): the
 * first plan where W fits is kept.  Returns how many borrowed victims it
 * keeps in k->pick, -1: none fits.  O(M x (N + E + P + B x g)).
 */
static int _choose(const gq_pass_t *pass, gq_move_work_t *k,
		   const gq_saved_set_t *s, int nb, int nm, uint32_t idle,
		   uint32_t g, gq_move_t *out)
{
	int i, to, n;

	for (i = 0; i < nm && out->n < GQ_MOVE_MAX; i++) {
		const gq_job_t *m = gq_store_at(&pass->store, k->movable[i].job);

		if (idle + out->gpus + k->movable[i].gpus > g ||
		    (to = _landing(pass, m, s, k->kept, k->have, k->kind)) < 0)
			continue;
		k->kept[to] += m->in.gpus;
		out->moved[out->n] = m->in.id;
		out->to[out->n++] = to;
		out->gpus += k->movable[i].gpus;
		if ((n = _choose_borrowed(k->borrowed, nb, k->pick, k->reach,
					  idle, g, out)) >= 0)
			return n;
	}
	return -1;
}

/*
 * W's victims on its saved node `node`, appended to k->all and out (the
 * moved jobs, where each restarts, the GPUs summed): none when the node
 * has W's GPUs per node idle; else its borrowed jobs alone when they give
 * W room there, else moved jobs with them (_choose).  Per node b + m <= g,
 * so a gang's sums are at most what it asks.  False: the node cannot be
 * emptied for W now, or the moves would pass GQ_MOVE_MAX in all.
 */
static bool _plan_node(const gq_pass_t *pass, gq_move_work_t *k,
		       const gq_job_t *w, int node, const gq_saved_set_t *s,
		       const gq_move_rules_t *rules, gq_move_t *out)
{
	uint32_t g = w->in.gpus_per_node, idle = pass->nodes.node_room[node];
	gq_move_t one;
	int nb, nm, n, i;

	if (idle >= g)
		return true;
	_on_node(pass, w, node, rules, k->borrowed, &nb, k->movable, &nm);
	gq_move_clear(&one);
	one.node = node;
	if ((n = _choose_borrowed(k->borrowed, nb, k->pick, k->reach, idle, g,
				  &one)) < 0 &&
	    (n = _choose(pass, k, s, nb, nm, idle, g, &one)) < 0)
		return false;
	if (out->n + one.n > GQ_MOVE_MAX)
		return false;
	for (i = 0; i < n; i++)
		k->all[k->nall++] = k->pick[i];
	for (i = 0; i < one.n; i++) {
		out->moved[out->n] = one.moved[i];
		out->to[out->n++] = one.to[i];
	}
	out->borrowed += one.borrowed;
	out->gpus += one.gpus;
	return true;
}

/* W's victims into its room set; W tried with its band's priority. */
static bool _offer(gq_pass_t *pass, gq_room_t *room, gq_job_t *w,
		   const gq_on_node_t *borrowed, int nb, const gq_move_t *m)
{
	int i;

	for (i = 0; i < nb; i++)
		if (gq_room_add_pair(room, w->in.id, gq_store_at(&pass->store,
				     borrowed[i].job)->in.id))
			return false;
	for (i = 0; i < m->n; i++)
		if (gq_room_add_pair(room, w->in.id, m->moved[i]))
			return false;
	w->room = true;
	w->roomless = false;
	w->priority = gq_band_priority(w->band, w->key);
	return true;
}

/* Do the rules allow a move for w on its saved nodes (at: the first)?
 * A gang has all its nodes saved. */
static bool _allowed(const gq_pass_t *pass, const gq_job_t *w,
		     const gq_room_node_t *at, const gq_saved_set_t *s,
		     const gq_move_rules_t *rules)
{
	return rules->age > 0 && w && gq_job_still_room_waiter(w) &&
	       w->in.gpus_per_node &&
	       s->n == (w->in.nodes > 1 ? (int)w->in.nodes : 1) && at &&
	       at->node >= 0 && at->node < pass->nodes.nnodes &&
	       s->node[0] == at->node &&
	       rules->waited > 0 && rules->waited >= rules->grace &&
	       (at->when == INT64_MAX || at->when > pass->now + rules->age);
}

bool gq_move_plan(gq_pass_t *pass, gq_room_t *room, gq_job_t *w,
		  const gq_room_node_t *at, const int *nodes, int nnodes,
		  const gq_move_rules_t *rules, gq_move_t *out)
{
	gq_saved_set_t s = { nodes, nnodes };
	gq_move_work_t k = { 0 };
	bool ok = false;
	int i;

	gq_move_clear(out);
	if (!_allowed(pass, w, at, &s, rules) ||
	    !_work_new(&k, pass, w->in.gpus_per_node))
		goto out;
	_kept_for_landings(pass, rules, k.kept);
	out->waiter = w->in.id;
	out->node = at->node;
	for (i = 0; i < s.n; i++)
		if (s.node[i] < 0 || s.node[i] >= pass->nodes.nnodes ||
		    !_plan_node(pass, &k, w, s.node[i], &s, rules, out))
			goto out;
	/* no job to move: W needs no move (its node is idle, or its usual
	 * victims suffice) */
	ok = out->n > 0 && _offer(pass, room, w, k.all, k.nall, out);
out:
	if (!ok)
		gq_move_clear(out);
	_work_free(&k);
	return ok;
}
