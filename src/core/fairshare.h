/*
 * fairshare.h - fair share f_p (docs/MODEL.md "Fair share").
 *
 * Owns: dividing a capacity C between claimants (projects, or departments)
 * by quota first (deserved), then the surplus by over-quota weight, each
 * capped by demand and limit, with water-filling; and doing it on two
 * levels, departments (and projects outside any) first, then inside each
 * department with its share as C.  Arithmetic on doubles.
 */
#ifndef GPUQUOTA_FAIRSHARE_H
#define GPUQUOTA_FAIRSHARE_H

#include "core/registry.h"

/* Tolerance for comparing real fair shares with integer GPU counts. */
#define GQ_EPS 1e-9

typedef struct {
	double quota;	/* q >= 0 */
	double weight;	/* w >= 0, finite (else it takes none) */
	double limit;	/* L >= q, or INFINITY */
	double demand;	/* D >= 0 */
	double deserved;	/* out: share from step 1 */
	double share;	/* out: f = deserved + surplus */
} gq_claim_t;

/*
 * Give each claim its fair share of capacity.  Cost O(n^2) in the number of
 * claims (projects or departments, not jobs): each water-filling round caps
 * at least one claim.  Returns 0, or -1 when out of memory (every share 0).
 */
int gq_fair_share(gq_claim_t *claims, int n, double capacity);

/*
 * f_p of every project and department of the registry, from their alloc
 * and pending GPUs: share with usage's tilt of the surplus weights, and
 * share_floor without it (the floors: usage never moves them; the same
 * when nothing is tilted).  Returns 0, or -1 when out of memory.
 * O((P + D)^2), twice when usage tilts a weight.
 */
int gq_fair_share_tree(gq_registry_t *r, double capacity);

/*
 * Water-fill `total` over claims in proportion to weight[i], raising out[i]
 * up to cap[i]; what a capped claim cannot take goes to the rest.  Only
 * the weights' ratios count (any finite scale: no sum overflows); a weight
 * that is 0, negative or not finite takes none.  Returns what is left when
 * every claim is capped (or has weight 0).
 */
double gq_waterfill(double total, int n, const double *weight,
		    const double *cap, double *out);

#endif
