/*
 * state.c - the process-wide gpuquota state (see state.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/state.h"

static gq_state_t _state;
static pthread_mutex_t _lock = PTHREAD_MUTEX_INITIALIZER;

gq_state_t *gq_state(void)
{
	return &_state;
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
	gq_config_t *cfg = NULL;
	gq_pools_t *next;
	char *p;

	if (gq_config_load(path, &cfg, err, errlen))
		return -1;
	if (!(next = gq_pools_new(cfg)) || !(p = strdup(path))) {
		gq_pools_free(next);
		gq_config_free(cfg);
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
	if (_state.view_stale) {	/* made for an older config */
		gq_pools_free(_state.next);
		_state.next = NULL;
		_state.view_stale = false;
	}
}

bool gq_state_note_reclaim(uint32_t preemptor, int64_t now, int grace)
{
	int i;

	for (i = 0; i < _state.ninflight; i++)
		if (_state.inflight[i].preemptor == preemptor) {
			if (grace > _state.inflight[i].grace)
				_state.inflight[i].grace = grace;
			return false;
		}
	if (_state.ninflight == _state.inflight_cap) {
		int cap = _state.inflight_cap ? _state.inflight_cap * 2 : 8;
		gq_inflight_t *n = realloc(_state.inflight, sizeof(*n) * cap);

		if (!n)
			return false;	/* no memory: nobody waits for it */
		_state.inflight = n;
		_state.inflight_cap = cap;
	}
	_state.inflight[_state.ninflight].preemptor = preemptor;
	_state.inflight[_state.ninflight].grace = grace > 0 ? grace : 0;
	_state.inflight[_state.ninflight++].since = now;
	return true;
}

bool gq_state_reclaim_settling(uint32_t preemptor, int64_t now, int settle)
{
	int i;

	for (i = 0; i < _state.ninflight; i++)
		if (_state.inflight[i].preemptor == preemptor)
			return _state.inflight[i].grace > 0 &&
			       now - _state.inflight[i].since <
				       _state.inflight[i].grace + settle;
	return false;
}

bool gq_state_reclaim_waiting(const gq_pools_t *p, int k, int64_t now)
{
	int i;

	for (i = 0; i < _state.ninflight; i++)
		if (now - _state.inflight[i].since <
			    GQ_RECLAIM_WAIT + _state.inflight[i].grace &&
		    (!p || k >= p->n ||
		     gq_view_job(p->view[k], _state.inflight[i].preemptor)))
			return true;
	return false;
}

int gq_state_reclaim_wait(uint32_t preemptor)
{
	int i;

	for (i = 0; i < _state.ninflight; i++)
		if (_state.inflight[i].preemptor == preemptor)
			return GQ_RECLAIM_WAIT + _state.inflight[i].grace;
	return GQ_RECLAIM_WAIT;
}

int gq_state_wait_for_reclaims(gq_pools_t *p, int64_t now)
{
	uint32_t *active = NULL;
	int i = 0, k, n, waiting = 0;

	while (i < _state.ninflight) {
		const gq_job_t *er = gq_pools_job(p, _state.inflight[i].preemptor,
						  NULL);

		if (!er || er->in.state != GQ_JOB_PENDING)
			_state.inflight[i] = _state.inflight[--_state.ninflight];
		else
			i++;
	}
	if (_state.ninflight &&
	    !(active = malloc(sizeof(*active) * _state.ninflight)))
		return 0;	/* no memory: nobody waits */
	/* each pool's jobs wait only for its own preemptors */
	for (k = 0; p && k < p->n; k++) {
		for (i = n = 0; i < _state.ninflight; i++)
			if (now - _state.inflight[i].since <
				    GQ_RECLAIM_WAIT + _state.inflight[i].grace &&
			    gq_view_job(p->view[k], _state.inflight[i].preemptor))
				active[n++] = _state.inflight[i].preemptor;
		waiting += gq_view_wait_for_reclaims(p->view[k], active, n);
	}
	free(active);
	return waiting;
}

void gq_state_clear(void)
{
	free(_state.inflight);
	gq_pools_free(_state.view);
	gq_pools_free(_state.next);
	gq_config_free(_state.config);
	free(_state.config_path);
	memset(&_state, 0, sizeof(_state));
}
