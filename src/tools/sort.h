/*
 * sort.h - the core's sort of index arrays (jobs, nodes) by a comparator.
 *
 * Slurm lists jobs in the order they were made, so a project's jobs
 * usually reach a sort already in its order (queue: by id) or in exactly
 * the reverse one (reclaim walk: youngest first).  Those two cases cost
 * one scan, O(n); any other input is sorted by qsort_r, O(n log n).
 * The comparator must be a total order (no two items equal), as the
 * core's are (the job id breaks ties), so that reversing a strictly
 * descending run sorts it.
 */
#ifndef GPUQUOTA_SORT_H
#define GPUQUOTA_SORT_H

typedef int (*gq_cmp_t)(const void *a, const void *b, void *ctx);

/* Sort a[0..n) ascending by cmp(&a[i], &a[j], ctx). */
void gq_sort_ints(int *a, int n, gq_cmp_t cmp, void *ctx);

#endif
