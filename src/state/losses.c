/*
 * losses.c - work lost to requeues in the budget's window (see losses.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tools/hash.h"
#include "state/losses.h"

void gq_losses_free(gq_losses_t *l)
{
	free(l->buf);
	memset(l, 0, sizeof(*l));
}

/* the warned loss an after-grace record replaces: the victim's for the
 * same preemptor, newest first (found among those since its decision,
 * unless a clock step moved it: gq_losses_clock; a victim kept again
 * after a restart dates it by Slurm's preempt_time, set right after) */
static gq_loss_t *_warned(gq_losses_t *l, const gq_ledger_rec_t *r)
{
	int i;

	for (i = l->n - 1; i >= 0; i--)
		if (l->e[i].victim == r->victim &&
		    l->e[i].preemptor == r->preemptor)
			return &l->e[i];
	return NULL;
}

/*
 * Room for one more at e[n]: the oldest dropped at the cap (e moves on),
 * the kept ones moved to buf's front when its end is reached and the
 * front holds room (always at GQ_LOSSES_ALLOC: 1/8 of it at least), else
 * buf grown.  NULL when out of memory.
 */
static gq_loss_t *_slot(gq_losses_t *l)
{
	int off = l->buf ? (int)(l->e - l->buf) : 0, cap;
	gq_loss_t *g;

	if (l->n == GQ_LOSSES_MAX) {	/* the oldest goes */
		l->e++;
		l->n--;
		off++;
	}
	if (off + l->n < l->cap)
		return &l->e[l->n];
	if (off && (l->cap == GQ_LOSSES_ALLOC || off >= l->n)) {
		memmove(l->buf, l->e, sizeof(*l->e) * l->n);
		l->e = l->buf;
		return &l->e[l->n];
	}
	cap = l->cap ? l->cap * 2 : 64;
	if (cap > GQ_LOSSES_ALLOC)
		cap = GQ_LOSSES_ALLOC;
	if (!(g = realloc(l->buf, sizeof(*g) * cap)))
		return NULL;
	l->buf = g;
	l->e = g + off;
	l->cap = cap;
	return &l->e[l->n];
}

int gq_losses_add(gq_losses_t *l, const gq_ledger_rec_t *r, int64_t since)
{
	gq_loss_t *e;

	/* a move's project was not borrowing: no budget counts it */
	if (r->at < since || r->stage == GQ_LEDGER_OBSERVED ||
	    r->reason == GQ_RECLAIM_MOVE)
		return 0;
	if (r->stage == GQ_LEDGER_AFTER_GRACE && (e = _warned(l, r))) {
		e->lost = r->lost;
		return 0;
	}
	/* a warned loss of 0 is kept: its after-grace record finds it */
	if (!r->lost && r->stage != GQ_LEDGER_WARNED)
		return 0;
	if (!(e = _slot(l)))
		return -1;
	l->n++;
	e->at = r->at;
	e->lost = r->lost;
	e->victim = r->victim;
	e->preemptor = r->preemptor;
	memcpy(e->project, r->victim_project, sizeof(e->project));
	return 0;
}

void gq_losses_clock(gq_losses_t *l, int64_t now)
{
	int64_t step = l->clock && now < l->clock ? l->clock - now : 0;
	bool first = !l->clock;
	int i;

	l->clock = now;
	/* no step since a reading, and none after now (the newest) */
	if (!l->n || (!first && !step && l->e[l->n - 1].at <= now))
		return;
	for (i = 0; i < l->n; i++) {
		l->e[i].at -= step;
		if (l->e[i].at > now)
			l->e[i].at = now;
	}
}

void gq_losses_prune(gq_losses_t *l, int64_t since)
{
	int i = 0;

	while (i < l->n && l->e[i].at < since)	/* oldest first */
		i++;
	l->e += i;
	l->n -= i;
}

int gq_losses_apply(const gq_losses_t *l, gq_pools_t *p, int64_t since)
{
	gq_hash_t names;	/* project name -> its sum's index */
	double *sum = NULL;
	int i, j, k, at, nsum = 0, rc = 0;

	gq_hash_init(&names, &gq_hash_names);
	if (l && l->n && !(sum = calloc(l->n, sizeof(*sum))))
		return -1;
	for (i = 0; l && i < l->n && !rc; i++) {
		if (l->e[i].at < since)
			continue;
		at = gq_hash_get_or_put(&names, gq_key_str(l->e[i].project),
					nsum);
		if (at < 0) {
			rc = -1;
			break;
		}
		nsum += at == nsum;
		sum[at] += l->e[i].lost / 3600.0;
	}
	for (k = 0; !rc && p && k < p->n; k++) {
		gq_view_t *v = p->view[k];

		for (j = 0; j < gq_view_nprojects(v); j++) {
			at = gq_hash_get(&names,
					 gq_key_str(gq_view_project(v, j)->name));
			gq_view_set_lost(v, j, at >= 0 ? sum[at] : 0);
		}
	}
	gq_hash_free(&names);
	free(sum);
	return rc;
}
