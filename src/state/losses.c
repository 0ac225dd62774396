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
	free(l->e);
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

int gq_losses_add(gq_losses_t *l, const gq_ledger_rec_t *r, int64_t since)
{
	gq_loss_t *e;

	if (r->at < since)
		return 0;
	if (r->stage == GQ_LEDGER_AFTER_GRACE && (e = _warned(l, r))) {
		e->lost = r->lost;
		return 0;
	}
	/* a warned loss of 0 is kept: its after-grace record finds it */
	if (!r->lost && r->stage != GQ_LEDGER_WARNED)
		return 0;
	if (l->n == GQ_LOSSES_MAX) {	/* the oldest goes */
		memmove(l->e, l->e + 1, sizeof(*l->e) * (l->n - 1));
		l->n--;
	}
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 64;

		if (cap > GQ_LOSSES_MAX)
			cap = GQ_LOSSES_MAX;
		if (!(e = realloc(l->e, sizeof(*e) * cap)))
			return -1;
		l->e = e;
		l->cap = cap;
	}
	e = &l->e[l->n++];
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
	if (!i)
		return;
	memmove(l->e, l->e + i, sizeof(*l->e) * (l->n - i));
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
