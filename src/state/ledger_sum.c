/*
 * ledger_sum.c - the ledger's sums per period and project, what
 * `gpuquota ledger` prints (see ledger.h): each record counts twice, as
 * lent by its victim's project and borrowed by its preemptor's.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "state/ledger.h"

#define GQ_DAY 86400
/* 1970-01-01 was a Thursday: the first Monday is 4 days on */
#define GQ_MONDAY (4 * GQ_DAY)

/* one side of one record */
typedef struct {
	int64_t period;
	const char *project;
	const gq_ledger_rec_t *r;
	bool lent;		/* its project is the victim's */
} gq_side_t;

bool gq_ledger_keep(const gq_ledger_rec_t *r, const gq_ledger_filter_t *f)
{
	if (r->at < f->since)
		return false;
	return !f->project || !strcmp(f->project, r->victim_project) ||
	       !strcmp(f->project, r->preemptor_project);
}

static int64_t _floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b < 0);
}

int64_t gq_ledger_period(int64_t at, gq_ledger_by_t by)
{
	switch (by) {
	case GQ_LEDGER_DAY:
		return _floor_div(at, GQ_DAY) * GQ_DAY;
	case GQ_LEDGER_WEEK:
		return _floor_div(at - GQ_MONDAY, 7 * GQ_DAY) * 7 * GQ_DAY +
		       GQ_MONDAY;
	default:
		return 0;
	}
}

static int _side_cmp(const void *a, const void *b)
{
	const gq_side_t *x = a, *y = b;

	if (x->period != y->period)
		return x->period < y->period ? -1 : 1;
	return strcmp(x->project, y->project);
}

static void _add(gq_ledger_row_t *row, const gq_side_t *s)
{
	if (s->r->stage == GQ_LEDGER_OBSERVED) {
		row->observed++;
		return;
	}
	if (s->lent) {
		row->reclaims_lent++;
		row->gpus_lent += s->r->gpus;
		row->lost += s->r->lost;
	} else {
		row->reclaims_borrowed++;
		row->gpus_borrowed += s->r->gpus;
		row->cost += s->r->lost;
	}
}

/* the sides the filter keeps, into s: how many */
static int _sides(const gq_ledger_rec_t *r, int n,
		  const gq_ledger_filter_t *f, gq_side_t *s)
{
	int i, m = 0;

	for (i = 0; i < n; i++) {
		int64_t p = gq_ledger_period(r[i].at, f->by);

		if (!gq_ledger_keep(&r[i], f))
			continue;
		if (!f->project || !strcmp(f->project, r[i].victim_project))
			s[m++] = (gq_side_t){ p, r[i].victim_project, &r[i],
					      true };
		if (!f->project ||
		    !strcmp(f->project, r[i].preemptor_project))
			s[m++] = (gq_side_t){ p, r[i].preemptor_project,
					      &r[i], false };
	}
	return m;
}

int gq_ledger_sum(const gq_ledger_rec_t *r, int n,
		  const gq_ledger_filter_t *f, gq_ledger_row_t **rows,
		  int *nrows)
{
	gq_side_t *s = calloc(2 * (size_t)n + 1, sizeof(*s));
	gq_ledger_row_t *out = calloc(2 * (size_t)n + 1, sizeof(*out));
	int i, m, k = 0;

	if (!s || !out) {
		free(s);
		free(out);
		return -1;
	}
	m = _sides(r, n, f, s);
	qsort(s, m, sizeof(*s), _side_cmp);
	for (i = 0; i < m; i++) {
		if (!k || _side_cmp(&s[i], &s[i - 1])) {
			out[k].period = s[i].period;
			gq_ledger_name(out[k].project, s[i].project);
			k++;
		}
		_add(&out[k - 1], &s[i]);
	}
	free(s);
	*rows = out;
	*nrows = k;
	return 0;
}

int64_t gq_ledger_date(const char *ymd)
{
	struct tm tm = { 0 }, back;
	int y, mo, d, end = -1;
	time_t t;

	if (sscanf(ymd, "%4d-%2d-%2d%n", &y, &mo, &d, &end) != 3 ||
	    end != 10 || ymd[end])
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	t = timegm(&tm);
	if (t == (time_t)-1 || !gmtime_r(&t, &back) ||
	    back.tm_year != y - 1900 || back.tm_mon != mo - 1 ||
	    back.tm_mday != d)
		return -1;
	return (int64_t)t;
}
