/*
 * losses.h - each project's work lost to requeues within its requeue
 * budget's window (docs/MODEL.md "Requeue budget"), from the ledger's
 * records (ledger.h): read back from the file when slurmctld starts (and
 * by the command), then one added per reclaim.  Plain C, no Slurm header.
 */
#ifndef GPUQUOTA_LOSSES_H
#define GPUQUOTA_LOSSES_H

#include <stdint.h>

#include "core/pools.h"
#include "state/ledger.h"

/* Kept at most: the oldest go first past it (a project's loss is then
 * counted short, never long). */
#define GQ_LOSSES_MAX 150000
/* The buffer holds up to 1/8 more (16 MB in all): room for the oldest
 * to go with no move, until one compaction moves the kept ones to its
 * front. */
#define GQ_LOSSES_ALLOC (GQ_LOSSES_MAX + GQ_LOSSES_MAX / 8)

typedef struct {
	int64_t at;		/* the reclaim, unix seconds */
	uint64_t lost;		/* GPU-seconds of its victim's run */
	uint32_t victim, preemptor;	/* its record's (a later record of
					 * the victim's requeue replaces it) */
	char project[GQ_LEDGER_NAME];	/* the victim's */
} gq_loss_t;

/* The losses kept, oldest first: e[0] to e[n - 1], inside buf (cap
 * entries).  The oldest goes by moving e on; the kept ones move to buf's
 * front only when its end is reached. */
typedef struct {
	gq_loss_t *e;
	gq_loss_t *buf;
	int n, cap;
	int64_t clock;		/* the latest clock read (gq_losses_clock);
				 * 0: none */
} gq_losses_t;

void gq_losses_free(gq_losses_t *l);

/*
 * Keep the loss of record r when it is at or after `since`.  A
 * GQ_LEDGER_AFTER_GRACE record replaces the loss of its victim's warned
 * record (same victim and preemptor, decided within seconds of it:
 * ledger.h) when it is kept; records are added in the ledger's order.
 * Returns 0, or -1 when out of memory (it is not kept).  O(1) amortized:
 * past the cap, a compaction moves at most GQ_LOSSES_MAX entries once per
 * GQ_LOSSES_MAX / 8 adds, so at most 8 moves an add; plus O(losses kept
 * since r's decision) for an after-grace record (O(kept) when its warned
 * loss is not kept).
 */
int gq_losses_add(gq_losses_t *l, const gq_ledger_rec_t *r, int64_t since);

/*
 * Bring the kept losses to the clock reading `now` (docs/MODEL.md "When
 * the clock steps").  A clock stepped back since the last reading moves
 * every loss back by the step: each keeps its age, and leaves the window
 * when it would have.  A loss still dated after now (a ledger written
 * while the clock was ahead) is dated now: it leaves the window one
 * window after it was read.  O(1); O(kept) at the first reading, after
 * a step back, or when the newest loss is dated after now.
 */
void gq_losses_clock(gq_losses_t *l, int64_t now);

/* Drop the losses before `since`.  O(dropped). */
void gq_losses_prune(gq_losses_t *l, int64_t since);

/*
 * Each project's loss at or after `since`, in GPU-hours, into every view
 * of p (gq_view_set_lost; projects of every pool, by name: a budget is
 * the project's, whichever pool lost).  l NULL: none.  Returns 0, or -1
 * out of memory (the views unchanged then).  O(kept + views x projects),
 * hash lookups.
 */
int gq_losses_apply(const gq_losses_t *l, gq_pools_t *p, int64_t since);

#endif
