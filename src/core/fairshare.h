/*
 * fairshare.h - fair share f_p (SEMANTICS.md "Fair share").
 *
 * Owns: dividing a capacity C between claimants (projects, or departments)
 * by quota first (deserved), then the surplus by over-quota weight, each
 * capped by demand and limit, with water-filling. Pure arithmetic on doubles.
 */
#ifndef GPUQUOTA_FAIRSHARE_H
#define GPUQUOTA_FAIRSHARE_H

/* Tolerance for comparing real fair shares with integer GPU counts. */
#define GQ_EPS 1e-9

typedef struct {
	double quota;	/* q >= 0 */
	double weight;	/* w >= 0 */
	double limit;	/* L >= q, or INFINITY */
	double demand;	/* D >= 0 */
	double deserved;	/* out: share from step 1 */
	double share;	/* out: f = deserved + surplus */
} gq_claim_t;

/*
 * Give each claim its fair share of capacity.  Cost O(n^2) in the number of
 * claims (projects or departments, not jobs): each water-filling round caps
 * at least one claim.
 */
void gq_fair_share(gq_claim_t *claims, int n, double capacity);

/*
 * Water-fill `total` over claims in proportion to weight[i], raising out[i]
 * up to cap[i]; what a capped claim cannot take goes to the rest.  Returns
 * what is left when every claim is capped (or has weight 0).
 */
double gq_waterfill(double total, int n, const double *weight,
		    const double *cap, double *out);

#endif
