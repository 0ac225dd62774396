/*
 * state.c - the process-wide gpuquota state (see state.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grace.h"
#include "core/pass_soon.h"
#include "core/victim_search.h"
#include "state/state.h"
#include "tools/clock.h"

static gq_state_t _state;
static pthread_mutex_t _lock = PTHREAD_MUTEX_INITIALIZER;

gq_state_t *gq_state(void)
{
	return &_state;
}

gq_pools_t *gq_state_view(void)
{
	return _state.view;
}

const gq_config_t *gq_state_config(void)
{
	return _state.config;
}

gq_metrics_t *gq_state_metrics(void)
{
	return &_state.metrics;
}

gq_running_t *gq_state_running(void)
{
	return &_state.running;
}

uint64_t gq_state_published(void)
{
	return _state.published;
}

bool gq_state_victims_wanted(void)
{
	return __atomic_load_n(&_state.victims_wanted, __ATOMIC_RELAXED);
}

static void _victims_wanted(bool wanted)
{
	__atomic_store_n(&_state.victims_wanted, wanted, __ATOMIC_RELAXED);
}

bool gq_state_pass_soon(void)
{
	return !_state.view || _state.view->soon ||
	       _state.view->wants_victims || _state.late_pass_soon;
}

gq_pools_t *gq_state_spare(void)
{
	return _state.next;
}

gq_usage_t *gq_state_usage(void)
{
	return &_state.usage;
}

void gq_state_set_hooks(void (*pass_now)(void),
			int (*completing_nodes)(gq_node_idle_t *out, int max))
{
	_state.pass_now = pass_now;
	_state.completing_nodes = completing_nodes;
}

int gq_state_completing_nodes(gq_node_idle_t *out, int max)
{
	return _state.completing_nodes ? _state.completing_nodes(out, max) : 0;
}

void gq_state_want_pass_now(void)
{
	if (_state.pass_now)
		_state.pass_now();
}

bool gq_state_inflight_read(void)
{
	return _state.inflight_read;
}

void gq_state_inflight_done(void)
{
	_state.inflight_read = true;
}

void gq_state_lock(void)
{
	pthread_mutex_lock(&_lock);
}

void gq_state_unlock(void)
{
	pthread_mutex_unlock(&_lock);
}

int gq_state_load(const char *path, char *err, size_t errlen)
{
	return gq_state_load_text(path, NULL, err, errlen);
}

int gq_state_load_text(const char *path, char **text, char *err,
		       size_t errlen)
{
	gq_config_t *cfg = NULL;
	gq_pools_t *next;
	char *p;

	if (gq_config_load_text(path, &cfg, text, err, errlen))
		return -1;
	if (!(next = gq_pools_new(cfg)) || !(p = strdup(path))) {
		gq_pools_free(next);
		gq_config_free(cfg);
		if (text) {
			free(*text);
			*text = NULL;
		}
		if (err && errlen)
			snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	gq_pools_free(_state.next);
	gq_config_free(_state.config);
	free(_state.config_path);
	_state.config = cfg;
	_state.config_path = p;
	_state.next = next;
	_state.view_stale = _state.view != NULL;
	_state.epoch++;		/* a pass that read before: made again */
	return 0;
}

gq_pools_t *gq_state_next(void)
{
	if (!_state.next && _state.config)
		_state.next = gq_pools_new(_state.config);
	return _state.next;
}

void gq_state_publish(void)
{
	gq_pools_t *old = _state.view;

	_state.view = _state.next;
	_state.next = old;
	_state.published++;
	_state.view_acts = gq_state_acts();
	_victims_wanted(_state.view && _state.view->wants_victims);
	_state.late_gpus = 0;
	_state.late_waiting_gpus = 0;
	_state.late_pass_soon = false;
	if (_state.view_stale) {	/* made for an older config */
		gq_pools_free(_state.next);
		_state.next = NULL;
		_state.view_stale = false;
	}
}

/* Every wait's start brought to the clock reading `now`: one after now
 * (the clock stepped back) starts again at now (tools/clock.h), all of
 * them at once, so that each wait lasts its length from the step. */
static void _clock(int64_t now)
{
	int i;

	for (i = 0; i < _state.ninflight; i++)
		gq_clock_since(&_state.inflight[i].since, now);
	for (i = 0; i < _state.nroomwait; i++)
		gq_clock_since(&_state.roomwait[i].since, now);
	for (i = 0; i < _state.ncomingwait; i++)
		gq_clock_since(&_state.comingwait[i].since, now);
	for (i = 0; i < _state.nlanding; i++) {
		gq_clock_since(&_state.landing[i].since, now);
		if (_state.landing[i].requeued)
			gq_clock_since(&_state.landing[i].requeued, now);
	}
}

/* Job id's entry of table e (n entries), or NULL.  O(n). */
static gq_inflight_t *_find(gq_inflight_t *e, int n, uint32_t id)
{
	int i;

	for (i = 0; i < n; i++)
		if (e[i].preemptor == id)
			return &e[i];
	return NULL;
}

/* preemptor's reclaim in flight, or NULL */
static gq_inflight_t *_inflight_of(uint32_t preemptor)
{
	return _find(_state.inflight, _state.ninflight, preemptor);
}

/* A new reclaim in flight, or NULL when out of memory */
static gq_inflight_t *_inflight_add(uint32_t preemptor, int64_t since,
				    int grace)
{
	gq_inflight_t *e;

	if (_state.ninflight == _state.inflight_cap) {
		int cap = _state.inflight_cap ? _state.inflight_cap * 2 : 8;
		gq_inflight_t *n = realloc(_state.inflight, sizeof(*n) * cap);

		if (!n)
			return NULL;
		_state.inflight = n;
		_state.inflight_cap = cap;
	}
	e = &_state.inflight[_state.ninflight++];
	e->preemptor = preemptor;
	e->grace = grace > 0 ? grace : 0;
	e->since = since;
	e->seen = e->left = false;
	e->nnodes = -1;		/* any node until its victims' are noted */
	e->nodes_open = true;
	return e;
}

/* Add node n to e's nodes; whether they grew. */
static bool _reclaim_node(gq_inflight_t *e, int n)
{
	int i;

	if (e->nnodes < 0)
		return false;
	for (i = 0; i < e->nnodes; i++)
		if (e->nodes[i] == n)
			return false;
	if (n < 0 || e->nnodes == GQ_RECLAIM_NODES)
		e->nnodes = -1;	/* any node */
	else
		e->nodes[e->nnodes++] = n;
	return true;
}

/* Add a victim's nodes to its reclaim's; whether they grew. */
static bool _reclaim_nodes(uint32_t preemptor, const int *nodes, int n)
{
	gq_inflight_t *e = _inflight_of(preemptor);
	bool grew = false;
	int i;

	if (!e || (!e->nodes_open && e->nnodes < 0))
		return false;	/* none, or any node already */
	if (e->nodes_open) {
		e->nodes_open = false;
		e->nnodes = 0;
	}
	if (n < 0)
		grew = _reclaim_node(e, -1);
	for (i = 0; i < n; i++)
		grew |= _reclaim_node(e, nodes[i]);
	return grew;
}

bool gq_state_reclaim_nodes(uint32_t preemptor, const int *nodes, int n)
{
	if (!_reclaim_nodes(preemptor, nodes, n))
		return false;
	_state.epoch++;	/* a pass that read before held fewer */
	return true;
}

void gq_state_rebuild_nodes(uint32_t preemptor, const int *nodes, int n)
{
	_reclaim_nodes(preemptor, nodes, n);
}

bool gq_state_note_reclaim(uint32_t preemptor, int64_t now, int grace)
{
	gq_inflight_t *e = _inflight_of(preemptor);

	if (e) {
		if (grace > e->grace) {
			e->grace = grace;
			_state.epoch++;
		}
		return false;
	}
	_state.epoch++;	/* a pass that read before did not wait for it */
	/* no memory: nobody waits for it */
	return _inflight_add(preemptor, now, grace) != NULL;
}

bool gq_state_rebuild_reclaim(uint32_t preemptor, int64_t since, int grace)
{
	gq_inflight_t *e = _inflight_of(preemptor);

	if (!e)	/* its victims' nodes: gq_state_rebuild_nodes */
		return _inflight_add(preemptor, since, grace) != NULL;
	if (since < e->since)
		e->since = since;
	if (grace > e->grace)
		e->grace = grace;
	return true;
}

bool gq_state_reclaim_settling(uint32_t preemptor, int64_t now, int settle)
{
	gq_inflight_t *e;

	_clock(now);
	if (!(e = _inflight_of(preemptor)))
		return false;
	return gq_grace_pausing(e->grace, e->left,
				gq_clock_since(&e->since, now), settle);
}

void gq_state_leaving_begin(void)
{
	int i;

	for (i = 0; i < _state.ninflight; i++)
		_state.inflight[i].seen = false;
}

void gq_state_victim_leaving(uint32_t owner)
{
	gq_inflight_t *e = _inflight_of(owner);

	if (e)
		e->seen = true;
}

void gq_state_leaving_end(void)
{
	int i;

	for (i = 0; i < _state.ninflight; i++)
		_state.inflight[i].left = !_state.inflight[i].seen;
}

void gq_state_array_task_running(uint32_t array_id, int64_t start)
{
	gq_inflight_t *e = _inflight_of(array_id);

	if (e && e->since <= start)
		*e = _state.inflight[--_state.ninflight];
}

/* pool k of p kept freed GPUs for a room waiter whose wait is not over */
static bool _room_kept(const gq_pools_t *p, int k, int64_t now)
{
	gq_inflight_t *e;
	uint32_t id;

	if (!p || k < 0 || k >= p->n || !(id = gq_view_kept_for(p->view[k])))
		return false;
	e = _find(_state.roomwait, _state.nroomwait, id);
	return e && gq_clock_since(&e->since, now) < gq_state_room_wait();
}

/* Is landing e's wait not over?  Before its job is seen requeued: its
 * grace, the time to kill it and the requeue delay from the move; then
 * the requeue delay from then. */
static bool _landing_on(gq_inflight_t *e, int64_t now)
{
	if (e->requeued)
		return gq_clock_since(&e->requeued, now) <
		       GQ_RECLAIM_WAIT + e->delay;
	return gq_clock_since(&e->since, now) < GQ_RECLAIM_WAIT + e->grace;
}

/* Is moved job j pending again (not in its grace time, nor taken out of
 * it at its requeue), eligible or waiting out the requeue delay? */
static bool _is_requeued(const gq_job_t *j)
{
	return j && (j->in.state == GQ_JOB_PENDING || j->in.begins_later);
}

/* Is moved job id requeued in the published view?  Its start is looked
 * for. */
static bool _requeued(uint32_t id)
{
	return _is_requeued(gq_pools_job(_state.view, id, NULL));
}

bool gq_state_reclaim_waiting(const gq_pools_t *next, int k, int64_t now)
{
	const gq_pools_t *p = next ? _state.view : NULL;
	int i;

	_clock(now);

	if (p)		/* the same pool in the last pass */
		k = gq_pools_same(p, next, k);
	else		/* none (a restart, the command): the pass's own */
		p = next;
	if (_room_kept(p, k, now))
		return true;
	for (i = 0; i < _state.ninflight; i++)
		if (gq_clock_since(&_state.inflight[i].since, now) <
			    GQ_RECLAIM_WAIT + _state.inflight[i].grace &&
		    (!p || k < 0 ||
		     gq_view_job(p->view[k], _state.inflight[i].preemptor)))
			return true;
	for (i = 0; i < _state.nlanding; i++)
		if (_landing_on(&_state.landing[i], now) &&
		    (!p || k < 0 ||
		     gq_view_job(p->view[k], _state.landing[i].preemptor)))
			return true;
	return false;
}

int gq_state_preemptors(uint32_t *ids, int max, int64_t now)
{
	int i, n = 0;

	_clock(now);
	for (i = 0; i < _state.ninflight && n < max; i++)
		if (gq_clock_since(&_state.inflight[i].since, now) <
		    GQ_RECLAIM_WAIT + _state.inflight[i].grace)
			ids[n++] = _state.inflight[i].preemptor;
	for (i = 0; i < _state.nlanding && n < max; i++)
		if (_landing_on(&_state.landing[i], now) &&
		    _requeued(_state.landing[i].preemptor))
			ids[n++] = _state.landing[i].preemptor;
	return n;
}

int gq_state_reclaim_wait(uint32_t preemptor)
{
	const gq_inflight_t *e = _inflight_of(preemptor);

	return GQ_RECLAIM_WAIT + (e ? e->grace : 0);
}

bool gq_state_reclaiming(uint32_t preemptor)
{
	return _inflight_of(preemptor) != NULL;
}

int gq_state_landing(uint32_t job, int *node)
{
	const gq_inflight_t *e = _find(_state.landing, _state.nlanding, job);

	if (!e)
		return 0;
	if (node)
		*node = e->nodes[0];
	return GQ_RECLAIM_WAIT + (e->requeued ? e->delay : e->grace);
}

int gq_state_room_wait(void)
{
	return _state.config ? _state.config->settings.room_wait :
			       GQ_DEFAULT_ROOM_WAIT;
}

bool gq_state_acts(void)
{
	return !_state.config ||
	       _state.config->settings.mode != GQ_MODE_OBSERVE;
}

bool gq_state_view_acts(void)
{
	return gq_state_acts() && _state.view_acts;
}

bool gq_state_observe_undone(void)
{
	return _state.observe_undone;
}

void gq_state_set_observe_undone(bool undone)
{
	_state.observe_undone = undone;
}

int gq_state_budget_window(void)
{
	return _state.config ? _state.config->settings.requeue_budget_window :
			       GQ_DEFAULT_BUDGET_WINDOW;
}

/* Forget the entries whose job is no longer pending in p. */
static void _forget_gone(gq_pools_t *p, gq_inflight_t *e, int *n)
{
	int i = 0;

	while (i < *n) {
		const gq_job_t *er = gq_pools_job(p, e[i].preemptor, NULL);

		if (!er || er->in.state != GQ_JOB_PENDING)
			e[i] = e[--*n];
		else
			i++;
	}
}

/* Forget the landings whose job started again (a start other than its
 * own before the move: a clock step does not read as one), left the
 * queue, or whose wait is over. */
static void _forget_landed(gq_pools_t *p, int64_t now)
{
	gq_inflight_t *e = _state.landing;
	int i = 0;

	while (i < _state.nlanding) {
		const gq_job_t *j = gq_pools_job(p, e[i].preemptor, NULL);

		if (!e[i].requeued && _is_requeued(j))
			e[i].requeued = now;	/* its requeue delay begins */
		if (!j || !_landing_on(&e[i], now) ||
		    (j->in.state == GQ_JOB_RUNNING &&
		     (e[i].start ? j->in.start_time != e[i].start :
				   j->in.start_time >= e[i].since)))
			e[i] = e[--_state.nlanding];
		else
			i++;
	}
}

/* The entry of job id in table e (n entries, cap slots): found, or made
 * (since now) when new; NULL when out of memory. */
static gq_inflight_t *_entry(gq_inflight_t **e, int *n, int *cap,
			     uint32_t id, int64_t now)
{
	gq_inflight_t *found = _find(*e, *n, id);

	if (found)
		return found;
	if (*n == *cap) {
		int c = *cap ? *cap * 2 : 8;
		gq_inflight_t *m = realloc(*e, sizeof(*m) * c);

		if (!m)
			return NULL;
		*e = m;
		*cap = c;
	}
	(*e)[*n].preemptor = id;
	(*e)[*n].since = now;
	(*e)[*n].grace = 0;
	(*e)[*n].node = -1;
	(*e)[*n].nnodes = -1;
	(*e)[*n].nodes_open = false;
	return &(*e)[(*n)++];
}

/* Landing e kept on `node` for `grace` s, and Slurm's requeue `delay`. */
static void _landing_keep(gq_inflight_t *e, int node, int grace, int delay)
{
	e->delay = delay > 0 ? delay : 0;
	e->grace = (grace > 0 ? grace : 0) + e->delay;
	e->nnodes = 1;
	e->nodes[0] = node;
}

void gq_state_note_landing(uint32_t job, int node, int64_t now, int grace,
			   int delay)
{
	const gq_job_t *j = gq_pools_job(_state.view, job, NULL);
	gq_inflight_t *e;

	_clock(now);
	if (!(e = _entry(&_state.landing, &_state.nlanding,
			 &_state.landing_cap, job, now)))
		return;	/* no memory: not kept */
	e->start = j ? j->in.start_time : 0;
	e->since = now;
	e->requeued = 0;
	_landing_keep(e, node, grace, delay);
	_state.epoch++;	/* a pass that read before kept nothing for it */
}

bool gq_state_rebuild_landing(uint32_t job, int node, int64_t since,
			      int grace, int delay, int64_t requeued)
{
	gq_inflight_t *e = _entry(&_state.landing, &_state.nlanding,
				  &_state.landing_cap, job, since);

	if (!e)
		return false;
	e->start = 0;	/* a start since `since` is its restart */
	e->since = since;
	e->requeued = requeued;
	/* no epoch: the pass that reads it is the one reading now */
	_landing_keep(e, node, grace, delay);
	return true;
}

static gq_inflight_t *_room_wait(uint32_t id, int64_t now)
{
	return _entry(&_state.roomwait, &_state.nroomwait,
		      &_state.roomwait_cap, id, now);
}

bool gq_state_wait_coming_free(uint32_t preemptor, bool fits, int64_t now)
{
	gq_inflight_t *w;
	int i;

	_clock(now);

	if (!fits) {	/* the clock starts again next time */
		for (i = 0; i < _state.ncomingwait; i++)
			if (_state.comingwait[i].preemptor == preemptor)
				_state.comingwait[i] =
					_state.comingwait[--_state.ncomingwait];
		return false;
	}
	if (!(w = _entry(&_state.comingwait, &_state.ncomingwait,
			 &_state.comingwait_cap, preemptor, now)))
		return false;	/* no memory: reclaim at once */
	return gq_clock_since(&w->since, now) < GQ_COMING_FREE_WAIT;
}

/* A room waiter that started or changed since the pass (a call between
 * passes) is none any more. */
static bool _still_waits(const gq_view_t *v, uint32_t id)
{
	return gq_job_still_room_waiter(gq_view_job(v, id));
}

/* Was job id moved (or, `waiter`, were jobs moved for it) within
 * settings.move_window?  A move noted after now (the clock stepped back)
 * is within it.  O(moves kept). */
static bool _moved_within(uint32_t id, bool waiter, int64_t now)
{
	int window = _state.config ? _state.config->settings.move_window :
				     GQ_DEFAULT_MOVE_WINDOW;
	int i;

	for (i = _state.nmoved - 1; i >= 0; i--)
		if ((waiter ? _state.moved[i].waiter : _state.moved[i].job) ==
			    id &&
		    now - _state.moved[i].at < window)
			return true;
	return false;
}

static bool _moved_lately(uint32_t id, void *ctx)
{
	return _moved_within(id, false, *(const int64_t *)ctx);
}

/*
 * A move for the waiter whose node is saved (kept) in view v (move.h),
 * when settings.move_age turns moves on; `w` its entry, since when its
 * node was first saved.
 */
static void _move(gq_view_t *v, gq_inflight_t *w, int64_t now)
{
	const gq_settings_t *s = _state.config ? &_state.config->settings :
						 NULL;
	gq_move_rules_t r = { .moved_lately = _moved_lately, .ctx = &now };

	if (!s || !s->move_age || _moved_within(w->preemptor, true, now))
		return;	/* off, or moved for it lately: one move a waiter */
	r.age = s->move_age;
	r.grace = s->grace_time;
	r.waited = gq_clock_since(&w->since, now);
	gq_view_move(v, &r);
}

/* Room waiter id's entry in the saved table (its node and since when it
 * is saved); `make`: made, since now, when it has none.  NULL: none, or
 * out of memory. */
static gq_inflight_t *_saved_entry(uint32_t id, bool make, int64_t now)
{
	if (make)
		return _entry(&_state.saved, &_state.nsaved, &_state.saved_cap,
			      id, now);
	return _find(_state.saved, _state.nsaved, id);
}

/* Waiter id's node is saved (or kept) in view v in this pass: noted,
 * and a move considered (its clock from the first pass that saved it).
 * The pool's other waiters lose theirs: their count starts again. */
static void _saved_now(gq_view_t *v, uint32_t id, int64_t now)
{
	const int *nodes;
	gq_inflight_t *w;
	int i = 0;

	while (i < _state.nsaved)
		if (_state.saved[i].preemptor != id &&
		    gq_view_job(v, _state.saved[i].preemptor))
			_state.saved[i] = _state.saved[--_state.nsaved];
		else
			i++;
	w = _saved_entry(id, true, now);

	if (!w)
		return;	/* no memory: no move */
	w->node = gq_view_saved_node(v)->node;
	w->nnodes = gq_view_saved_nodes(v, &nodes);	/* kept next pass */
	w->nodes_open = false;
	memcpy(w->nodes, nodes, sizeof(*nodes) * w->nnodes);
	_move(v, w, now);
}

/*
 * Save a node for the pool's first room waiter that a node can take (a
 * gang: its nodes), on the nodes saved for it before while it can
 * (saved_node.h).  The n room
 * waiters in ids (NULL: the view's).
 */
static void _save_node(gq_view_t *v, const uint32_t *ids, int n, int64_t now)
{
	gq_inflight_t *w;
	int i;

	if (!ids)	/* the pool's room waiters */
		n = gq_view_room_waiters(v, &ids);
	for (i = 0; i < n; i++) {
		if (!_still_waits(v, ids[i]))
			continue;
		w = _saved_entry(ids[i], false, now);
		if (w && w->nnodes > 0 ?
			    gq_view_save_nodes(v, ids[i], w->nodes, w->nnodes) :
			    gq_view_save_node(v, ids[i], w ? w->node : -1)) {
			_saved_now(v, ids[i], now);
			return;
		}
		if (w)	/* not saved: its clock starts again when it is */
			*w = _state.saved[--_state.nsaved];
	}
	gq_view_save_node(v, 0, -1);
}

/*
 * Keep the GPUs that come free on one node of a pool for its first room
 * waiter whose wait is not over and that a node can take, on the node it
 * was kept on before while it can.  Returns 1 when GPUs are kept, else 0;
 * then a node is saved for the first waiter a node can take, nothing
 * kept.
 */
static int _keep_room(gq_view_t *v, int64_t now)
{
	const uint32_t *ids;
	int i, n = gq_view_room_waiters(v, &ids), wait = gq_state_room_wait();

	for (i = 0; wait > 0 && i < n; i++) {	/* 0: never kept */
		gq_inflight_t *w;

		if (!_still_waits(v, ids[i]))
			continue;
		if (!(w = _room_wait(ids[i], now)))
			break;	/* no memory: nobody waits */
		if (gq_clock_since(&w->since, now) < wait &&
		    gq_view_keep_room(v, ids[i], w->node)) {
			w->node = gq_view_kept_node(v)->node;
			_saved_now(v, ids[i], now);
			return 1;
		}
	}
	gq_view_keep_room(v, 0, -1);
	_save_node(v, ids, n, now);
	return 0;
}

/* A reclaim in flight (or a landing) as the view waits for it. */
static void _active(gq_reclaim_at_t *a, const gq_inflight_t *e, bool landing)
{
	a->preemptor = e->preemptor;
	a->landing = landing;
	a->nnodes = e->nnodes;
	if (e->nnodes > 0)
		memcpy(a->node, e->nodes, sizeof(int) * e->nnodes);
}

/* The reclaims in flight of pool k's preemptors into active[], then the
 * landings of its moved jobs: how many (each pool's jobs wait only for
 * its own jobs); *reclaims: how many of them are reclaims (NULL: not
 * asked). */
static int _active_in(const gq_pools_t *p, int k, int64_t now,
		      gq_reclaim_at_t *active, int *reclaims)
{
	int i, n = 0;

	for (i = 0; i < _state.ninflight; i++)
		if (gq_clock_since(&_state.inflight[i].since, now) <
			    GQ_RECLAIM_WAIT + _state.inflight[i].grace &&
		    gq_view_job(p->view[k], _state.inflight[i].preemptor))
			_active(&active[n++], &_state.inflight[i], false);
	if (reclaims)
		*reclaims = n;
	for (i = 0; i < _state.nlanding; i++)
		if (_landing_on(&_state.landing[i], now) &&
		    gq_view_job(p->view[k], _state.landing[i].preemptor))
			_active(&active[n++], &_state.landing[i], true);
	return n;
}

/* Room for _active_in's answer; NULL when there is nothing to wait for
 * or no memory. */
static gq_reclaim_at_t *_active_new(void)
{
	int n = _state.ninflight + _state.nlanding;

	return n ? malloc(sizeof(gq_reclaim_at_t) * n) : NULL;
}

void gq_state_saved_before(gq_pools_t *next, int k)
{
	const gq_pools_t *p = _state.view;
	int j = p && p != next ? gq_pools_same(p, next, k) : -1;
	const int *nodes = NULL;
	int n = j >= 0 ? gq_view_saved_nodes(p->view[j], &nodes) : 0;

	gq_view_saved_before(next->view[k], nodes, n);
}

void gq_state_expect_reclaims(gq_pools_t *p, int k, int64_t now)
{
	gq_reclaim_at_t *active;

	_clock(now);

	if (!_state.ninflight && !_state.nlanding) {
		gq_view_expect_reclaims(p->view[k], NULL, 0);
		return;
	}
	/* no memory: none noted (the GPUs count as idle) */
	if (!(active = _active_new()))
		return;
	gq_view_expect_reclaims(p->view[k], active,
				_active_in(p, k, now, active, NULL));
	free(active);
}

int gq_state_wait_for_reclaims(gq_pools_t *p, int64_t now)
{
	gq_reclaim_at_t *active = NULL;
	int k, n, waiting = 0, w, reclaims;

	_clock(now);

	_forget_gone(p, _state.inflight, &_state.ninflight);
	_forget_gone(p, _state.roomwait, &_state.nroomwait);
	_forget_gone(p, _state.comingwait, &_state.ncomingwait);
	_forget_gone(p, _state.saved, &_state.nsaved);
	_forget_landed(p, now);
	if ((_state.ninflight || _state.nlanding) && !(active = _active_new()))
		return 0;	/* no memory: nobody waits */
	for (k = 0; p && k < p->n; k++) {
		n = _active_in(p, k, now, active, &reclaims);
		w = gq_view_wait_for_reclaims(p->view[k], active, n);
		/* no reclaim in flight: freed GPUs may be kept for room; with
		 * landings alone, a node is still saved */
		if (w && !reclaims)
			_save_node(p->view[k], NULL, -1, now);
		waiting += w ? w : _keep_room(p->view[k], now);
	}
	free(active);
	return waiting;
}

uint64_t gq_state_pass_read(void)
{
	_state.between = true;
	_state.nsince_read = 0;
	return _state.epoch;
}

static void _since_read(uint32_t id, bool added)
{
	if (!_state.between)
		return;
	if (_state.nsince_read == _state.since_read_cap) {
		int cap = _state.since_read_cap ? _state.since_read_cap * 2 :
						  64;
		gq_since_read_t *n = realloc(_state.since_read,
					     sizeof(*n) * cap);

		if (!n) {	/* no memory: the pass is made again */
			_state.epoch++;
			return;
		}
		_state.since_read = n;
		_state.since_read_cap = cap;
	}
	_state.since_read[_state.nsince_read].id = id;
	_state.since_read[_state.nsince_read++].added = added;
}

/* Job `id`, added to the view after its pass, may turn the search for
 * victims on (core/victim_search.h) and bring the next pass sooner
 * (core/pass_soon.h); never off.  Once soon, the rest is not asked: the
 * blocked check costs O(nodes). */
static void _late_job(uint32_t id)
{
	const gq_job_t *job = gq_pools_answer(_state.view, id, NULL);
	bool victims = gq_pools_job_wants_victims(_state.view, id,
						  &_state.late_gpus);

	if (victims)
		_victims_wanted(true);
	if (!_state.late_pass_soon)
		_state.late_pass_soon = victims ||
			(job && gq_job_kept_back(job)) ||
			gq_pools_job_blocked(_state.view, id,
					     &_state.late_waiting_gpus);
}

void gq_state_job_added(uint32_t id)
{
	_late_job(id);
	_since_read(id, true);
}

void gq_state_job_gone(uint32_t id)
{
	gq_pools_job_gone(_state.view, id);
	_since_read(id, false);
}

void gq_state_job_started(uint32_t id)
{
	const gq_job_t *job;

	if (!_state.between || !_state.next ||
	    !(job = gq_pools_answer(_state.next, id, NULL)))
		return;
	if (job->hold)
		_state.epoch++;
}

bool gq_state_pass_write(uint64_t epoch,
			 void (*added)(gq_pools_t *view, uint32_t id,
				       void *arg),
			 void *arg)
{
	int i;

	_state.between = false;
	if (epoch != _state.epoch)
		return false;
	gq_state_publish();
	for (i = 0; i < _state.nsince_read; i++)
		if (!_state.since_read[i].added)
			gq_pools_job_gone(_state.view, _state.since_read[i].id);
		else if (added) {
			added(_state.view, _state.since_read[i].id, arg);
			_late_job(_state.since_read[i].id);
		}
	_state.nsince_read = 0;
	return true;
}

void gq_state_pass_abandon(void)
{
	_state.between = false;
	_state.nsince_read = 0;
}

/*
 * Keep a move record's job and time (acted on: not observed), for
 * settings.move_window.  Those past the longest window go first, then the
 * oldest past GQ_MOVED_MAX.  O(moves kept).
 */
static void _note_move(const gq_ledger_rec_t *r)
{
	int i, k = 0;

	/* an after-grace record too: read back, the warned one it settles
	 * is gone (gq_ledger_settle) */
	if (r->reason != GQ_RECLAIM_MOVE || r->stage == GQ_LEDGER_OBSERVED)
		return;
	if (!_state.moved &&
	    !(_state.moved = malloc(sizeof(*_state.moved) * GQ_MOVED_MAX)))
		return;	/* no memory: moved again sooner */
	for (i = 0; i < _state.nmoved; i++)
		if (r->at - _state.moved[i].at < GQ_MOVE_WINDOW_MAX &&
		    (_state.nmoved - i < GQ_MOVED_MAX))
			_state.moved[k++] = _state.moved[i];
	_state.nmoved = k;
	_state.moved[_state.nmoved++] =
		(gq_moved_t){ r->victim, r->preemptor, r->at };
}

bool gq_state_ledger_note(const gq_ledger_rec_t *r)
{
	bool ok = gq_ledger_queue_push(&_state.ledger, r);

	/* a decision's time is a clock reading; an after-grace record's
	 * is its warned record's */
	if (r->stage != GQ_LEDGER_AFTER_GRACE)
		gq_losses_clock(&_state.losses, r->at);
	/* out of memory: the budget counts it short */
	gq_losses_add(&_state.losses, r, 0);
	_note_move(r);
	gq_metrics_ledger(&_state.metrics, r, ok);
	return ok;
}

void gq_state_losses_load(const gq_ledger_rec_t *r, int n, int64_t now)
{
	int i;

	for (i = 0; i < n; i++) {
		gq_losses_add(&_state.losses, &r[i],
			      now - GQ_BUDGET_WINDOW_MAX);
		_note_move(&r[i]);
	}
	gq_losses_clock(&_state.losses, now);
}

const gq_losses_t *gq_state_losses(int64_t now)
{
	gq_losses_clock(&_state.losses, now);
	gq_losses_prune(&_state.losses, now - gq_state_budget_window());
	return &_state.losses;
}

int gq_state_ledger_take(gq_ledger_rec_t **out)
{
	int n = _state.ledger.n;

	*out = _state.ledger.r;
	memset(&_state.ledger, 0, sizeof(_state.ledger));
	return n;
}

bool gq_state_warned_keep(const gq_warned_t *w)
{
	if (_state.nwarned == _state.warned_cap) {
		int cap = _state.warned_cap ? _state.warned_cap * 2 : 8;
		gq_warned_t *n = realloc(_state.warned, sizeof(*n) * cap);

		if (!n)
			return false;
		_state.warned = n;
		_state.warned_cap = cap;
	}
	_state.warned[_state.nwarned++] = *w;
	return true;
}

bool gq_state_warned_note(const gq_warned_t *w)
{
	bool ok = gq_state_ledger_note(&w->rec);

	gq_state_warned_keep(w);
	return ok;
}

int gq_state_nwarned(void)
{
	return _state.nwarned;
}

const gq_warned_t *gq_state_warned(int i)
{
	return i >= 0 && i < _state.nwarned ? &_state.warned[i] : NULL;
}

void gq_state_warned_drop(int i)
{
	if (i < 0 || i >= _state.nwarned)
		return;
	_state.warned[i] = _state.warned[--_state.nwarned];
}

void gq_state_warned_settle(int i, int64_t end, gq_ledger_rec_t *out)
{
	const gq_warned_t *w = gq_state_warned(i);

	if (!w)
		return;
	gq_ledger_after_grace(&w->rec, w->start, end, out);
	gq_state_ledger_note(out);
	gq_state_warned_drop(i);
}

void gq_state_clear(void)
{
	free(_state.warned);
	free(_state.ledger.r);
	gq_losses_free(&_state.losses);
	free(_state.since_read);
	free(_state.inflight);
	free(_state.roomwait);
	free(_state.comingwait);
	free(_state.saved);
	free(_state.landing);
	free(_state.moved);
	gq_pools_free(_state.view);
	gq_pools_free(_state.next);
	gq_config_free(_state.config);
	free(_state.config_path);
	gq_usage_free(&_state.usage);
	memset(&_state, 0, sizeof(_state));
}
