/*
 * trace_csv.c - a Philly-shaped trace into a history (see trace_csv.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/fields.h"
#include "sim/trace_csv.h"

/* the columns read, in the order of gq_trace_col_t */
static const char *const cols[] = { "u_id", "user", "gpu_num", "node_num",
				    "interval", "run_time" };
enum { C_ID, C_USER, C_GPUS, C_NODES, C_INTERVAL, C_RUN, C_N };

typedef struct {
	const char *path;
	size_t line;
	int col[C_N];
	int64_t t;		/* the last job's submit time */
	uint32_t nodes, gpus_per_node;
	char *err;
	size_t errlen;
	gq_sim_history_t *h;
} gq_trace_t;

static int _header(void *ctx, char *line)
{
	gq_trace_t *r = ctx;
	gq_sim_fields_t f;
	int i;

	if (!gq_sim_split(line, ',', &f))
		return gq_sim_error(r->err, r->errlen, r->path, r->line,
				    "header", "too many columns", NULL);
	for (i = 0; i < C_N; i++)
		if ((r->col[i] = gq_sim_column(&f, cols[i])) < 0)
			return gq_sim_error(r->err, r->errlen, r->path,
					    r->line, cols[i],
					    "no such column in the header", NULL);
	return 0;
}

/* Column c of f as an integer in [min, max] into *v. */
static int _num(gq_trace_t *r, const gq_sim_fields_t *f, int c, int64_t min,
		int64_t max, int64_t *v)
{
	char what[64];

	if (r->col[c] >= f->n)
		return gq_sim_error(r->err, r->errlen, r->path, r->line,
				    cols[c], "missing (too few columns)", NULL);
	if (gq_sim_int(f->f[r->col[c]], min, max, v))
		return 0;
	snprintf(what, sizeof(what), "must be an integer >= %lld",
		 (long long)min);
	return gq_sim_error(r->err, r->errlen, r->path, r->line, cols[c], what,
			    f->f[r->col[c]]);
}

/* One job line into h. */
static int _job(void *ctx, char *line)
{
	gq_trace_t *r = ctx;
	gq_sim_history_t *h = r->h;
	gq_sim_fields_t f;
	int64_t id, gpus, nodes, interval, run;
	gq_sim_job_t *j;
	const char *user;
	char acct[256];

	if (!gq_sim_split(line, ',', &f))
		return gq_sim_error(r->err, r->errlen, r->path, r->line,
				    "line", "too many columns", NULL);
	if (_num(r, &f, C_ID, 0, UINT32_MAX, &id) ||
	    _num(r, &f, C_GPUS, 0, UINT32_MAX, &gpus) ||
	    _num(r, &f, C_NODES, 0, UINT32_MAX, &nodes) ||
	    _num(r, &f, C_INTERVAL, 0, INT32_MAX, &interval) ||
	    _num(r, &f, C_RUN, 0, INT32_MAX, &run))
		return -1;
	if (r->col[C_USER] >= f.n || !*(user = f.f[r->col[C_USER]]))
		return gq_sim_error(r->err, r->errlen, r->path, r->line, "user",
				    "missing", NULL);
	snprintf(acct, sizeof(acct), "u%s", user);
	if (h->n)
		r->t += interval;
	if (!(j = gq_sim_history_add(h)) ||
	    !(j->account = gq_sim_intern(h, acct, strlen(acct))))
		return gq_sim_error(r->err, r->errlen, r->path, r->line, "line",
				    "out of memory", NULL);
	j->src_id = (uint32_t)id;
	j->submit = r->t;
	j->run = run > 0 ? run : 1;
	if (nodes > 1) {
		j->nodes = nodes < r->nodes ? (uint32_t)nodes : r->nodes;
		j->gpus = j->nodes * r->gpus_per_node;
	} else {
		j->nodes = 1;
		j->gpus = gpus < r->gpus_per_node ? (uint32_t)gpus :
						    r->gpus_per_node;
		j->gpus = j->gpus ? j->gpus : 1;
	}
	return 0;
}

int gq_sim_read_trace(const char *path, uint32_t nodes, uint32_t gpus_per_node,
		      gq_sim_history_t *h, char *err, size_t errlen)
{
	gq_trace_t r = { .path = path, .nodes = nodes, .h = h,
			 .t = GQ_SIM_TRACE_EPOCH,
			 .gpus_per_node = gpus_per_node, .err = err,
			 .errlen = errlen };
	int rc = gq_sim_read_file(path, &r.line, _header, _job, &r,
				  err, errlen);

	if (!rc)
		gq_sim_history_sort(h);
	return rc;
}
