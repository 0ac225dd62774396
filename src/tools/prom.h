/*
 * prom.h - Prometheus text exposition (format 0.0.4, what node_exporter's
 * textfile collector and every Prometheus scrape read).
 *
 * Owns the syntax: "# HELP" and "# TYPE" lines, samples with escaped
 * label values, numbers (shortest text that reads back to the same
 * double; +Inf, -Inf, NaN), and a histogram's _bucket/_sum/_count
 * samples.  Text goes into a growing buffer; what the metrics mean is the
 * caller's.  Plain C.
 */
#ifndef GPUQUOTA_PROM_H
#define GPUQUOTA_PROM_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/histogram.h"

typedef struct {
	char *buf;		/* NUL-terminated text so far */
	size_t len, cap;
	bool oom;		/* an append ran out of memory */
} gq_prom_t;

void gq_prom_init(gq_prom_t *p);
void gq_prom_free(gq_prom_t *p);

/* The HELP and TYPE lines of a metric family (type: "gauge", "counter",
 * "histogram"). */
void gq_prom_family(gq_prom_t *p, const char *name, const char *type,
		    const char *help);

/*
 * One sample.  labels: name, value, name, value, ..., NULL (NULL for
 * none); a pair whose value is NULL is left out.
 */
void gq_prom_sample(gq_prom_t *p, const char *name,
		    const char *const *labels, double v);

/* A histogram family: HELP/TYPE, cumulative _bucket{le=...} with +Inf,
 * _sum and _count. */
void gq_prom_histogram(gq_prom_t *p, const char *name, const char *help,
		       const gq_hist_t *h);

/* v as exposition text: integers plainly, others in the fewest digits
 * that read back as v; "+Inf", "-Inf", "NaN". */
void gq_prom_number(char *buf, size_t n, double v);

#endif
