/*
 * edit_distance.h - how far apart two short names are (Levenshtein: the
 * fewest single-character insertions, deletions and substitutions), for
 * "did you mean" hints.
 */
#ifndef GPUQUOTA_EDIT_DISTANCE_H
#define GPUQUOTA_EDIT_DISTANCE_H

/* Longest name compared; a longer one is "far" (max + 1). */
#define GQ_EDIT_NAME_MAX 256

/*
 * The edit distance of a and b, compared with case (the caller folds it
 * when it wants to); max + 1 when it is more than max, or either is longer
 * than GQ_EDIT_NAME_MAX.  O(len(a) x len(b)) time, O(len(b)) stack.
 */
int gq_edit_distance(const char *a, const char *b, int max);

#endif
