/*
 * xalloc.c - the glue's allocations that fail instead of aborting
 * slurmctld (see xalloc.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "shared/slurm_compat.h"
#include "plugins/xalloc.h"

/* The tests' failure hook (xalloc.h), their one global: -1 in
 * slurmctld, where nothing writes it; no lock (tests are one thread). */
int gq_xalloc_fail_at = -1;

/* Slurm's try_xmalloc with the tests' failure on the Nth call. */
static void *_try(size_t n, size_t size)
{
	size_t bytes;

	if (gq_xalloc_fail_at == 0) {
		gq_xalloc_fail_at = -1;
		return NULL;
	}
	if (gq_xalloc_fail_at > 0)
		gq_xalloc_fail_at--;
	if (size && n > (size_t)-1 / size)
		return NULL;
	bytes = n * size;
	return try_xmalloc(bytes > 0 ? bytes : 1);
}

void *gq_xcalloc(size_t n, size_t size)
{
	return _try(n, size);
}

char *gq_xprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (len < 0 || !(s = _try(1, (size_t)len + 1)))
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, (size_t)len + 1, fmt, ap);
	va_end(ap);
	return s;
}

int gq_xgrow(void *items, int n, int *cap, size_t size)
{
	void **p = items;
	int want = *cap ? *cap * 2 : 16;
	void *grown;

	if (n < *cap)
		return 0;
	if (!(grown = _try((size_t)want, size)))
		return -1;
	if (*p && n)
		memcpy(grown, *p, (size_t)n * size);
	xfree(*p);
	*p = grown;
	*cap = want;
	return 0;
}

char *gq_xstrdup(const char *s)
{
	size_t len = s ? strlen(s) : 0;
	char *d;

	if (!s || !(d = _try(1, len + 1)))
		return NULL;
	memcpy(d, s, len + 1);
	return d;
}
