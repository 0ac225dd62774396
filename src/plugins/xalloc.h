/*
 * xalloc.h - the glue's allocations that fail instead of aborting
 * slurmctld.  Slurm's xmalloc() aborts the whole controller when memory
 * runs out; every allocation gpuquota makes while slurmctld schedules (a
 * pass, a reclaim, a hold) goes through these instead, and its caller
 * fails that step cleanly: a pass fails and the last good answers stay
 * (docs/RELIABILITY.md).  Memory from them is Slurm's (xfree() frees
 * it), so a text may become a job's state_desc.
 */
#ifndef GPUQUOTA_XALLOC_H
#define GPUQUOTA_XALLOC_H

#include <stddef.h>

/* n x size zeroed bytes, or NULL. */
void *gq_xcalloc(size_t n, size_t size);

/* A formatted text, or NULL. */
char *gq_xprintf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* A copy of s (NULL: NULL), or NULL. */
char *gq_xstrdup(const char *s);

/*
 * Room for one more element in *items (n of them, *cap allocated, each
 * `size` bytes): doubled (from 16) when full.  0, or -1 with *items and
 * *cap unchanged.
 */
int gq_xgrow(void *items, int n, int *cap, size_t size);

/*
 * For the glue tests only: the allocation that fails, counted from 0
 * from the time it is set (-1, the default: none fails).  Only that one
 * fails; the count then goes back to -1.
 */
extern int gq_xalloc_fail_at;

#endif
