/*
 * prom.c - Prometheus text exposition (see prom.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/prom.h"

void gq_prom_init(gq_prom_t *p)
{
	*p = (gq_prom_t){ 0 };
}

void gq_prom_free(gq_prom_t *p)
{
	free(p->buf);
	*p = (gq_prom_t){ 0 };
}

static void _put(gq_prom_t *p, const char *s, size_t n)
{
	if (p->oom)
		return;
	if (p->len + n + 1 > p->cap) {
		size_t cap = p->cap ? p->cap : 4096;
		char *b;

		while (p->len + n + 1 > cap)
			cap *= 2;
		if (!(b = realloc(p->buf, cap))) {
			p->oom = true;
			return;
		}
		p->buf = b;
		p->cap = cap;
	}
	memcpy(p->buf + p->len, s, n);
	p->len += n;
	p->buf[p->len] = '\0';
}

static void _puts(gq_prom_t *p, const char *s)
{
	_put(p, s, strlen(s));
}

/* s with \ and newline (and " in label values) escaped */
static void _escaped(gq_prom_t *p, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			_puts(p, "\\\\");
		else if (*s == '\n')
			_puts(p, "\\n");
		else if (quote && *s == '"')
			_puts(p, "\\\"");
		else
			_put(p, s, 1);
	}
}

void gq_prom_number(char *buf, size_t n, double v)
{
	int prec;

	if (isnan(v)) {
		snprintf(buf, n, "NaN");
	} else if (isinf(v)) {
		snprintf(buf, n, v > 0 ? "+Inf" : "-Inf");
	} else if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		snprintf(buf, n, "%.0f", v);	/* exact up to 2^53 */
	} else {
		for (prec = 1; prec < 17; prec++) {
			snprintf(buf, n, "%.*g", prec, v);
			if (strtod(buf, NULL) == v)
				return;
		}
		snprintf(buf, n, "%.17g", v);
	}
}

void gq_prom_family(gq_prom_t *p, const char *name, const char *type,
		    const char *help)
{
	_puts(p, "# HELP ");
	_puts(p, name);
	_puts(p, " ");
	_escaped(p, help, false);
	_puts(p, "\n# TYPE ");
	_puts(p, name);
	_puts(p, " ");
	_puts(p, type);
	_puts(p, "\n");
}

void gq_prom_sample(gq_prom_t *p, const char *name,
		    const char *const *labels, double v)
{
	char num[40];
	bool first = true;

	_puts(p, name);
	for (; labels && labels[0]; labels += 2) {
		if (!labels[1])
			continue;
		_puts(p, first ? "{" : ",");
		_puts(p, labels[0]);
		_puts(p, "=\"");
		_escaped(p, labels[1], true);
		_puts(p, "\"");
		first = false;
	}
	if (!first)
		_puts(p, "}");
	gq_prom_number(num, sizeof(num), v);
	_puts(p, " ");
	_puts(p, num);
	_puts(p, "\n");
}

void gq_prom_histogram(gq_prom_t *p, const char *name, const char *help,
		       const gq_hist_t *h)
{
	size_t n = strlen(name) + sizeof("_bucket");
	char *sample = malloc(n), le[40];
	int i;

	if (!sample) {
		p->oom = true;
		return;
	}
	gq_prom_family(p, name, "histogram", help);
	snprintf(sample, n, "%s_bucket", name);
	for (i = 0; i <= h->n; i++) {
		const char *labels[] = { "le", le, NULL };

		gq_prom_number(le, sizeof(le), i < h->n ? h->le[i] : INFINITY);
		gq_prom_sample(p, sample, labels,
			       (double)gq_hist_cumulative(h, i));
	}
	snprintf(sample, n, "%s_sum", name);
	gq_prom_sample(p, sample, NULL, h->sum);
	snprintf(sample, n, "%s_count", name);
	gq_prom_sample(p, sample, NULL, (double)h->count);
	free(sample);
}
