/*
 * metrics_file.c - the plugin's metrics state file: write and read (see
 * metrics_file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "tools/atomic_file.h"
#include "state/metrics_file.h"
#include "tools/prom.h"

char *gq_metrics_file_path(const char *dir)
{
	return gq_state_file_path(dir, GQ_METRICS_FILE);
}

static void _by_reason(FILE *f, const char *key, const uint64_t *v, int n,
		       const char *(*name)(int))
{
	uint64_t total = 0;
	int i;
	bool first = true;

	for (i = 0; i < n; i++)
		total += v[i];
	fprintf(f, "\"%s_total\": %llu, \"%s_by_reason\": {", key,
		(unsigned long long)total, key);
	for (i = 0; i < n; i++) {
		if (!name(i))
			continue;
		fprintf(f, "%s\"%s\": %llu", first ? "" : ", ", name(i),
			(unsigned long long)v[i]);
		first = false;
	}
	fprintf(f, "},\n");
}

/* "key": {"quota": n, "fair_share": n} */
static void _reason_obj(FILE *f, const char *key, const uint64_t *v,
			bool last)
{
	int i;

	fprintf(f, "\"%s\": {", key);
	for (i = 0; i < GQ_RECLAIM_NREASONS; i++)
		fprintf(f, "%s\"%s\": %llu", i ? ", " : "",
			gq_ledger_reason(i), (unsigned long long)v[i]);
	fprintf(f, "}%s", last ? "" : ", ");
}

/* "projects": [{"project": name, the four by reason}, ...] */
static void _projects(FILE *f, const gq_metrics_t *m)
{
	int i;

	fprintf(f, "\"projects_uncounted_total\": %llu, \"projects\": [",
		(unsigned long long)m->projects_uncounted_total);
	for (i = 0; i < m->nprojects; i++) {
		const gq_metrics_project_t *p = &m->project[i];
		json_object *name = json_object_new_string(p->name);

		fprintf(f, "%s\n{\"project\": %s, ", i ? "," : "",
			name ? json_object_to_json_string(name) : "\"\"");
		json_object_put(name);
		_reason_obj(f, "victims_by_reason", p->victims, false);
		_reason_obj(f, "gpus_lent_by_reason", p->gpus_lent, false);
		_reason_obj(f, "lost_gpu_seconds_by_reason", p->lost, false);
		_reason_obj(f, "gpus_reclaimed_by_reason", p->gpus_reclaimed,
			    true);
		fprintf(f, "}");
	}
	fprintf(f, "],\n");
}

static void _hist(FILE *f, const char *key, const gq_hist_t *h, bool last)
{
	char le[40];
	int i;

	fprintf(f, "\"%s\": {\"buckets\": {", key);
	for (i = 0; i < h->n; i++) {
		gq_prom_number(le, sizeof(le), h->le[i]);
		fprintf(f, "\"%s\": %llu, ", le,
			(unsigned long long)gq_hist_cumulative(h, i));
	}
	fprintf(f, "\"+Inf\": %llu}, \"sum\": %.17g, \"count\": %llu}%s\n",
		(unsigned long long)h->count, h->sum,
		(unsigned long long)h->count, last ? "" : ",");
}

static void _write(FILE *f, const gq_metrics_t *m, double now)
{
	int i;

	fprintf(f, "{\"version\": %d, \"written_at\": %.6f, \"started_at\": %.6f,\n",
		GQ_METRICS_VERSION, now, m->started_at);
	fprintf(f, "\"passes_total\": %llu, \"pass_failures_total\": %llu,\n",
		(unsigned long long)m->passes_total,
		(unsigned long long)m->pass_failures_total);
	_by_reason(f, "reclaims", m->reclaims_total, GQ_RECLAIM_NREASONS,
		   gq_ledger_reason);
	_by_reason(f, "victims", m->victims_total, GQ_RECLAIM_NREASONS,
		   gq_ledger_reason);
	_by_reason(f, "victim_gpus", m->victim_gpus_total,
		   GQ_RECLAIM_NREASONS, gq_ledger_reason);
	_by_reason(f, "lost_gpu_seconds", m->lost_gpu_seconds_total,
		   GQ_RECLAIM_NREASONS, gq_ledger_reason);
	_by_reason(f, "holds", m->holds_total, GQ_HOLD_NREASONS,
		   gq_metrics_hold_reason);
	fprintf(f, "\"releases_total\": %llu,\n",
		(unsigned long long)m->releases_total);
	fprintf(f, "\"ledger_records_total\": %llu, \"ledger_dropped_total\": %llu,\n",
		(unsigned long long)m->ledger_records_total,
		(unsigned long long)m->ledger_dropped_total);
	fprintf(f, "\"state_load_failures_total\": %llu,\n",
		(unsigned long long)m->state_load_failures_total);
	fprintf(f, "\"config_load_failures_total\": %llu,\n",
		(unsigned long long)m->config_load_failures_total);
	_projects(f, m);
	_hist(f, "pass_seconds", &m->pass_seconds, false);
	_hist(f, "lock_hold_seconds", &m->lock_hold_seconds, false);
	_hist(f, "read_hold_seconds", &m->read_hold_seconds, false);
	fprintf(f, "\"recent_passes\": [");
	for (i = 0; i < m->recent_n; i++) {
		const gq_pass_rec_t *r = gq_metrics_recent(m, i);

		fprintf(f, "%s\n{\"at\": %.6f, \"pass_us\": %llu, \"read_hold_us\": %llu, \"read_cpu_us\": %llu, \"lock_hold_us\": %llu, \"lock_cpu_us\": %llu, \"tries\": %d, \"ok\": %s, \"rehold\": %s}",
			i ? "," : "", r->at, (unsigned long long)r->pass_us,
			(unsigned long long)r->read_hold_us,
			(unsigned long long)r->read_cpu_us,
			(unsigned long long)r->lock_hold_us,
			(unsigned long long)r->lock_cpu_us, r->tries,
			r->ok ? "true" : "false", r->rehold ? "true" : "false");
	}
	fprintf(f, "]}\n");
}

typedef struct {
	const gq_metrics_t *m;
	double now;
} gq_snapshot_t;

static void _write_snapshot(FILE *f, const void *ctx)
{
	const gq_snapshot_t *s = ctx;

	_write(f, s->m, s->now);
}

int gq_metrics_file_write(const gq_metrics_t *m, const char *path,
			  double now, char *err, size_t errlen)
{
	gq_snapshot_t s = { .m = m, .now = now };

	return gq_atomic_write(path, _write_snapshot, &s, err, errlen);
}

/* ---- reading --------------------------------------------------------- */

typedef struct {
	const char *path;
	char *err;
	size_t errlen;
} gq_rd_t;

static int _bad(gq_rd_t *rd, const char *key, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(rd->err, rd->errlen, "%s: key \"%s\": %s", rd->path, key,
		 what);
	return -1;
}

static const char *_shown(json_object *v)
{
	return v ? json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN) :
		   "missing";
}

static int _number(gq_rd_t *rd, json_object *o, const char *key,
		   double *out)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !(json_object_is_type(v, json_type_int) ||
	      json_object_is_type(v, json_type_double)))
		return _bad(rd, key, "expected a number, found %.60s",
			    _shown(v));
	*out = json_object_get_double(v);
	return 0;
}

static int _count(gq_rd_t *rd, json_object *o, const char *key,
		  uint64_t *out)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) < 0)
		return _bad(rd, key, "expected a count (integer >= 0), found %.60s",
			    _shown(v));
	*out = json_object_get_uint64(v);
	return 0;
}

static int _reasons(gq_rd_t *rd, json_object *o, const char *key,
		    uint64_t *v, int n, const char *(*name)(int))
{
	json_object *by = NULL;
	int i;

	if (!json_object_object_get_ex(o, key, &by) ||
	    !json_object_is_type(by, json_type_object))
		return _bad(rd, key, "expected an object of counts, found %.60s",
			    _shown(by));
	/* a reason added later is absent from an older plugin's file: 0 */
	for (i = 0; i < n; i++)
		if (name(i) && json_object_object_get_ex(by, name(i), NULL) &&
		    _count(rd, by, name(i), &v[i]))
			return -1;
	return 0;
}

typedef struct {
	double le;
	json_object *count;
	const char *key;
} gq_bucket_t;

static int _cmp_bucket(const void *a, const void *b)
{
	double x = ((const gq_bucket_t *)a)->le, y = ((const gq_bucket_t *)b)->le;

	return x < y ? -1 : x > y;
}

static int _read_hist(gq_rd_t *rd, json_object *o, const char *key,
		      gq_hist_t *h)
{
	json_object *ho = NULL, *b = NULL;
	gq_bucket_t bk[GQ_HIST_MAX];
	double le[GQ_HIST_MAX];
	uint64_t prev = 0;
	int n = 0, i;

	if (!json_object_object_get_ex(o, key, &ho) ||
	    !json_object_is_type(ho, json_type_object) ||
	    !json_object_object_get_ex(ho, "buckets", &b) ||
	    !json_object_is_type(b, json_type_object))
		return _bad(rd, key, "expected {\"buckets\": {...}, \"sum\", \"count\"}, found %.60s",
			    _shown(ho));
	json_object_object_foreach(b, k, v) {
		char *end;
		double x = strtod(k, &end);

		if (*end || end == k || isnan(x))
			return _bad(rd, key, "bucket \"%s\" is not a number", k);
		if (isinf(x))
			continue;	/* +Inf: "count" */
		if (n == GQ_HIST_MAX)
			return _bad(rd, key, "more than %d buckets", GQ_HIST_MAX);
		bk[n++] = (gq_bucket_t){ x, v, k };
	}
	qsort(bk, n, sizeof(bk[0]), _cmp_bucket);
	for (i = 0; i < n; i++)
		le[i] = bk[i].le;
	if (gq_hist_init(h, le, n))
		return _bad(rd, key, "bucket bounds repeat");
	for (i = 0; i < n; i++) {
		json_object *v = bk[i].count;
		uint64_t c;

		if (!json_object_is_type(v, json_type_int) ||
		    json_object_get_int64(v) < 0 ||
		    (c = json_object_get_uint64(v)) < prev)
			return _bad(rd, key, "bucket \"%s\": expected a cumulative count, found %.60s",
				    bk[i].key, _shown(v));
		h->in[i] = c - prev;
		prev = c;
	}
	if (_count(rd, ho, "count", &h->count) ||
	    _number(rd, ho, "sum", &h->sum))
		return -1;
	if (h->count < prev)
		return _bad(rd, key, "count %llu is below its buckets' %llu",
			    (unsigned long long)h->count,
			    (unsigned long long)prev);
	return 0;
}

static int _read_recent(gq_rd_t *rd, json_object *o, gq_metrics_t *m)
{
	json_object *a = NULL;
	size_t n, i, from;

	if (!json_object_object_get_ex(o, "recent_passes", &a) ||
	    !json_object_is_type(a, json_type_array))
		return _bad(rd, "recent_passes", "expected an array, found %.60s",
			    _shown(a));
	n = json_object_array_length(a);
	from = n > GQ_RECENT_PASSES ? n - GQ_RECENT_PASSES : 0;
	for (i = from; i < n; i++) {
		json_object *e = json_object_array_get_idx(a, i), *ok = NULL,
			    *rehold = NULL;
		gq_pass_rec_t r = { .ok = true };

		if (!json_object_is_type(e, json_type_object))
			return _bad(rd, "recent_passes", "entry %zu: expected an object",
				    i);
		if (_number(rd, e, "at", &r.at) ||
		    _count(rd, e, "pass_us", &r.pass_us) ||
		    _count(rd, e, "lock_hold_us", &r.lock_hold_us))
			return -1;
		/* optional: files of older plugins lack it */
		if (json_object_object_get_ex(e, "lock_cpu_us", NULL) &&
		    _count(rd, e, "lock_cpu_us", &r.lock_cpu_us))
			return -1;
		/* optional: files of older plugins lack it */
		if (json_object_object_get_ex(e, "read_hold_us", NULL) &&
		    _count(rd, e, "read_hold_us", &r.read_hold_us))
			return -1;
		if (json_object_object_get_ex(e, "read_cpu_us", NULL) &&
		    _count(rd, e, "read_cpu_us", &r.read_cpu_us))
			return -1;
		if (json_object_object_get_ex(e, "tries", NULL)) {
			uint64_t t;

			if (_count(rd, e, "tries", &t))
				return -1;
			r.tries = t > 100 ? 100 : (int)t;
		}
		if (json_object_object_get_ex(e, "ok", &ok))
			r.ok = json_object_get_boolean(ok);
		/* optional: files of older plugins lack it */
		if (json_object_object_get_ex(e, "rehold", &rehold))
			r.rehold = json_object_get_boolean(rehold);
		m->recent[m->recent_n++] = r;
	}
	return 0;
}

/* "projects" (absent in files of older plugins: none); past
 * GQ_METRICS_PROJECTS, the rest are left out */
static int _read_projects(gq_rd_t *rd, json_object *root, gq_metrics_t *m)
{
	json_object *a = NULL, *name = NULL;
	size_t i, n;

	if (!json_object_object_get_ex(root, "projects", &a))
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return _bad(rd, "projects", "expected an array, found %.60s",
			    _shown(a));
	n = json_object_array_length(a);
	for (i = 0; i < n && m->nprojects < GQ_METRICS_PROJECTS; i++) {
		json_object *e = json_object_array_get_idx(a, i);
		gq_metrics_project_t *p = &m->project[m->nprojects];

		if (!json_object_is_type(e, json_type_object) ||
		    !json_object_object_get_ex(e, "project", &name) ||
		    !json_object_is_type(name, json_type_string))
			return _bad(rd, "projects", "entry %zu: expected an object with \"project\"",
				    i);
		gq_ledger_name(p->name, json_object_get_string(name));
		if (_reasons(rd, e, "victims_by_reason", p->victims,
			     GQ_RECLAIM_NREASONS, gq_ledger_reason) ||
		    _reasons(rd, e, "gpus_lent_by_reason", p->gpus_lent,
			     GQ_RECLAIM_NREASONS, gq_ledger_reason) ||
		    _reasons(rd, e, "lost_gpu_seconds_by_reason", p->lost,
			     GQ_RECLAIM_NREASONS, gq_ledger_reason) ||
		    _reasons(rd, e, "gpus_reclaimed_by_reason",
			     p->gpus_reclaimed, GQ_RECLAIM_NREASONS,
			     gq_ledger_reason))
			return -1;
		m->nprojects++;
	}
	if (json_object_object_get_ex(root, "projects_uncounted_total", NULL) &&
	    _count(rd, root, "projects_uncounted_total",
		   &m->projects_uncounted_total))
		return -1;
	return 0;
}

/* the keys files of older plugins lack (read as 0) */
static int _optional(gq_rd_t *rd, json_object *root, gq_metrics_t *m)
{
	if (_read_projects(rd, root, m))
		return -1;
	if (json_object_object_get_ex(root, "lost_gpu_seconds_by_reason",
				      NULL) &&
	    _reasons(rd, root, "lost_gpu_seconds_by_reason",
		     m->lost_gpu_seconds_total, GQ_RECLAIM_NREASONS,
		     gq_ledger_reason))
		return -1;
	if (json_object_object_get_ex(root, "ledger_records_total", NULL) &&
	    _count(rd, root, "ledger_records_total", &m->ledger_records_total))
		return -1;
	if (json_object_object_get_ex(root, "ledger_dropped_total", NULL) &&
	    _count(rd, root, "ledger_dropped_total", &m->ledger_dropped_total))
		return -1;
	if (json_object_object_get_ex(root, "state_load_failures_total", NULL) &&
	    _count(rd, root, "state_load_failures_total",
		   &m->state_load_failures_total))
		return -1;
	if (json_object_object_get_ex(root, "config_load_failures_total",
				      NULL) &&
	    _count(rd, root, "config_load_failures_total",
		   &m->config_load_failures_total))
		return -1;
	return 0;
}

int gq_metrics_file_read(const char *path, gq_metrics_t *m,
			 double *written_at, char *err, size_t errlen)
{
	gq_rd_t rd = { path, err, errlen };
	json_object *root;
	double version;
	int rc = gq_state_file_json(path, GQ_METRICS_FILE_BOUND, &root, err,
				    errlen);

	if (rc)
		return rc;
	rc = -1;
	gq_metrics_init(m, 0);
	if (!json_object_is_type(root, json_type_object)) {
		snprintf(err, errlen, "%s: expected a JSON object", path);
		goto out;
	}
	if (_number(&rd, root, "version", &version))
		goto out;
	if (version != GQ_METRICS_VERSION) {
		_bad(&rd, "version", "%g, this command reads %d", version,
		     GQ_METRICS_VERSION);
		goto out;
	}
	if (_number(&rd, root, "written_at", written_at) ||
	    _number(&rd, root, "started_at", &m->started_at) ||
	    _count(&rd, root, "passes_total", &m->passes_total) ||
	    _count(&rd, root, "pass_failures_total", &m->pass_failures_total) ||
	    _reasons(&rd, root, "reclaims_by_reason", m->reclaims_total,
		     GQ_RECLAIM_NREASONS, gq_ledger_reason) ||
	    _reasons(&rd, root, "victims_by_reason", m->victims_total,
		     GQ_RECLAIM_NREASONS, gq_ledger_reason) ||
	    _reasons(&rd, root, "victim_gpus_by_reason", m->victim_gpus_total,
		     GQ_RECLAIM_NREASONS, gq_ledger_reason) ||
	    _reasons(&rd, root, "holds_by_reason", m->holds_total,
		     GQ_HOLD_NREASONS, gq_metrics_hold_reason) ||
	    _count(&rd, root, "releases_total", &m->releases_total) ||
	    _optional(&rd, root, m) ||
	    _read_hist(&rd, root, "pass_seconds", &m->pass_seconds) ||
	    _read_hist(&rd, root, "lock_hold_seconds", &m->lock_hold_seconds) ||
	    /* optional: files of older plugins lack it */
	    (json_object_object_get_ex(root, "read_hold_seconds", NULL) &&
	     _read_hist(&rd, root, "read_hold_seconds",
			&m->read_hold_seconds)) ||
	    _read_recent(&rd, root, m))
		goto out;
	rc = 0;
out:
	json_object_put(root);
	return rc;
}
