/*
 * constraint.h - which nodes a pending job may run on beyond its
 * partitions: its --constraint (node features) and the GPU type it asks
 * for.  Room is made for a job only on such nodes (room.h); the view's
 * node groups are built from these rules for the plugin and the command
 * alike (shared/pass_input.c).
 *
 * Owns: evaluating the plain forms of Slurm's feature expressions against
 * a node's features, and the set of distinct narrowings of a pass.  The
 * forms with brackets, parentheses, counts ("a*2"), negation or both '&'
 * and '|' are not evaluated here (Slurm decides them with node counts per
 * feature): such a job keeps its partitions' nodes, as without one.  A
 * typed request ("gpu:a100:1") narrows to nodes that have GPUs of that
 * type; on a node with several types, the node's idle GPUs of every type
 * are counted as room (room.c counts per node, not per type).
 */
#ifndef GPUQUOTA_CONSTRAINT_H
#define GPUQUOTA_CONSTRAINT_H

#include <stdbool.h>
#include <stdint.h>

#define GQ_FEATURES_MAX 256
#define GQ_GPU_TYPE_MAX 64
#define GQ_NARROW_MAX 256

/*
 * Does a node with `features` (comma separated, as Slurm's
 * ActiveFeatures) satisfy `expr` ("a", "a&b", "a|b", "a,b" = "a&b")?
 * Names compare exactly.  Returns 1 or 0, or -1 when expr is a form not
 * evaluated here.  O(|expr| x |features|).
 */
int gq_constraint_match(const char *expr, const char *features);

/* Is expr one of the plain forms gq_constraint_match evaluates? */
bool gq_constraint_plain(const char *expr);

/* What narrows a pending job's nodes. */
typedef struct {
	int part;		/* its partition's node group; 0: any of the
				 * pool's (it lists several) */
	char features[GQ_FEATURES_MAX];	/* plain expression, or "" */
	char type[GQ_GPU_TYPE_MAX];	/* GPU type, or "" */
} gq_narrow_t;

/*
 * A pending job's narrowing from its partition's group, --constraint and
 * GPU request (tres_per_node, else tres_per_job; Slurm's text forms).
 * False when nothing narrows it (then its partition's group is its
 * nodes).
 */
bool gq_narrow_of(int part, const char *features, const char *tres_per_node,
		  const char *tres_per_job, gq_narrow_t *w);

/*
 * May a node run a job narrowed by w?  in_part: the node is in w->part
 * (ignored when w->part is 0); its features and gres as Slurm's text.
 */
bool gq_narrow_allows(const gq_narrow_t *w, bool in_part,
		      const char *node_features, const char *node_gres);

/*
 * The distinct narrowings of a pass, numbered from 0; zeroed is empty.
 * Found by hash: every pending job looks its narrowing up each pass.
 */
typedef struct {
	gq_narrow_t w[GQ_NARROW_MAX];
	int n;
	uint16_t slot[2 * GQ_NARROW_MAX];	/* number + 1; 0: free */
} gq_narrows_t;

/* w's number, or -1: not there.  O(1) expected (O(length of w)). */
int gq_narrows_find(const gq_narrows_t *s, const gq_narrow_t *w);

/* w's number, added when new (-1: GQ_NARROW_MAX already).  O(1)
 * expected. */
int gq_narrows_add(gq_narrows_t *s, const gq_narrow_t *w);

#endif
