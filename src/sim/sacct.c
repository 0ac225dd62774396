/*
 * sacct.c - sacct's parsable output into a history (see sacct.h): each
 * line one run of a job, a job's runs (sacct -D) merged into one job.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/fields.h"
#include "sim/sacct.h"
#include "tools/hash.h"

static const char *const cols[] = { "JobID", "Account", "Partition",
				    "AllocTRES", "ReqTRES", "NNodes",
				    "Submit", "Start", "Elapsed",
				    "Timelimit", "State" };
enum { C_ID, C_ACCT, C_PART, C_ALLOC, C_REQ, C_NODES, C_SUBMIT, C_START,
       C_ELAPSED, C_LIMIT, C_STATE, C_N };

/* A job of the file, its runs merged: the submit of its first, the shape
 * of its last that started. */
typedef struct {
	gq_sim_job_t j;
	int64_t start;		/* that run's start; -1: none started */
} gq_sacct_job_t;

typedef struct {
	const char *path;
	size_t line;
	int col[C_N];
	char *err;
	size_t errlen;
	gq_sim_history_t *h;
	gq_hash_t ids;		/* JobID's text -> index in job */
	gq_sacct_job_t *job;
	size_t n, cap;
} gq_sacct_t;

/* The value of `key` in a TRES list ("cpu=8,gres/gpu=2,node=1"), or of
 * its typed entries key:T summed when `typed`; -1: none, or not a
 * number.  O(text). */
static int64_t _tres(const char *s, const char *key, bool typed)
{
	size_t n = strlen(key);
	int64_t sum = -1, v;

	while (s && *s) {
		size_t len = strcspn(s, ",");
		const char *eq = memchr(s, '=', len);
		char num[32];

		if (eq && (size_t)(eq - s) >= n && !strncmp(s, key, n) &&
		    (typed ? s[n] == ':' : eq == s + n) &&
		    (size_t)(s + len - eq - 1) < sizeof(num)) {
			memcpy(num, eq + 1, s + len - eq - 1);
			num[s + len - eq - 1] = '\0';
			if (gq_sim_int(num, 0, UINT32_MAX, &v))
				sum = (sum < 0 ? 0 : sum) + v;
		}
		s += len + (s[len] == ',');
	}
	return sum;
}

static int64_t _gpus(const char *tres)
{
	int64_t g = _tres(tres, "gres/gpu", false);

	return g >= 0 ? g : _tres(tres, "gres/gpu", true);
}

/* [D-]HH:MM:SS, MM:SS or MM (sacct's time formats), seconds; -1: not. */
static int64_t _duration(const char *s)
{
	long d = 0, a = 0, b = 0, c = 0;
	int n, used = 0;

	if (strchr(s, '-')) {
		if (sscanf(s, "%ld-%n", &d, &used) != 1 || d < 0)
			return -1;
		s += used;
		if (sscanf(s, "%ld:%ld:%ld%n", &a, &b, &c, &n) != 3 || s[n])
			return -1;
	} else if (sscanf(s, "%ld:%ld:%ld%n", &a, &b, &c, &n) == 3 && !s[n]) {
		;
	} else if (sscanf(s, "%ld:%ld%n", &b, &c, &n) == 2 && !s[n]) {
		a = 0;
	} else if (sscanf(s, "%ld%n", &b, &n) == 1 && !s[n]) {
		c = 0;
	} else {
		return -1;
	}
	if (a < 0 || b < 0 || b > 59 || c < 0 || c > 59)
		return -1;
	return ((int64_t)d * 24 + a) * 3600 + b * 60 + c;
}

/* YYYY-MM-DDTHH:MM:SS as UTC; -1: not one. */
static int64_t _time(const char *s)
{
	struct tm tm = { 0 };
	const char *e = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);

	return e && !*e ? (int64_t)timegm(&tm) : -1;
}

static int _bad(gq_sacct_t *r, int c, const char *what, const char *value)
{
	return gq_sim_error(r->err, r->errlen, r->path, r->line, cols[c], what,
			    value);
}

static int _header(void *ctx, char *line)
{
	gq_sacct_t *r = ctx;
	gq_sim_fields_t f;
	int i;

	if (!gq_sim_split(line, '|', &f))
		return gq_sim_error(r->err, r->errlen, r->path, r->line,
				    "header", "too many columns", NULL);
	for (i = 0; i < C_N; i++)
		if ((r->col[i] = gq_sim_column(&f, cols[i])) < 0)
			return gq_sim_error(r->err, r->errlen, r->path, r->line,
					    cols[i],
					    "no such column in the header (sacct -P --format=..., sacct.h)",
					    NULL);
	return 0;
}

/* The shape of a run that started; 1: left out (never ran, no GPU). */
static int _shape(gq_sacct_t *r, char **v, gq_sim_job_t *j)
{
	int64_t nodes, t, gpus = _gpus(v[C_ALLOC]);

	if (!strcmp(v[C_START], "Unknown") || !strcmp(v[C_START], "None"))
		return 1;
	if (gpus <= 0 && (gpus = _gpus(v[C_REQ])) <= 0)
		return 1;
	if ((t = _duration(v[C_ELAPSED])) < 0)
		return _bad(r, C_ELAPSED, "not [D-]HH:MM:SS", v[C_ELAPSED]);
	j->run = t > 0 ? t : 1;
	if (!strcmp(v[C_LIMIT], "UNLIMITED") ||
	    !strcmp(v[C_LIMIT], "Partition_Limit"))
		j->limit = 0;
	else if ((j->limit = _duration(v[C_LIMIT])) < 0)
		return _bad(r, C_LIMIT, "not [D-]HH:MM:SS, UNLIMITED or Partition_Limit",
			    v[C_LIMIT]);
	if (!gq_sim_int(v[C_NODES], 1, UINT32_MAX, &nodes))
		return _bad(r, C_NODES, "must be an integer >= 1", v[C_NODES]);
	j->nodes = (uint32_t)nodes;
	j->gpus = gpus > UINT32_MAX ? UINT32_MAX : (uint32_t)gpus;
	t = _tres(v[C_ALLOC], "cpu", false);
	j->cpus = t > 0 ? (uint32_t)t : 0;
	return 0;
}

static int _oom(gq_sacct_t *r)
{
	return gq_sim_error(r->err, r->errlen, r->path, r->line, "line",
			    "out of memory", NULL);
}

/* The job of JobID `id` (its first line makes it, submitted at `submit`),
 * or NULL out of memory.  O(1) expected. */
static gq_sacct_job_t *_job_of(gq_sacct_t *r, const char *id, int64_t submit)
{
	gq_sacct_job_t *j;
	int i;

	if (r->n == r->cap) {	/* room first: a failure changes nothing */
		size_t cap = r->cap ? r->cap * 2 : 1024;

		if (cap > INT32_MAX || !(j = realloc(r->job, cap * sizeof(*j))))
			return NULL;
		r->job = j;
		r->cap = cap;
	}
	if ((i = gq_hash_get_or_put(&r->ids, gq_key_str(id), (int)r->n)) < 0)
		return NULL;
	j = &r->job[i];
	if ((size_t)i < r->n) {
		j->j.submit = submit < j->j.submit ? submit : j->j.submit;
		return j;
	}
	r->n++;
	memset(j, 0, sizeof(*j));
	j->j.submit = submit;
	j->start = -1;
	return j;
}

/*
 * One line, a run of job JobID.  A job requeued (sacct -D) has a line
 * per run: the first run's Submit is when it was submitted (each later
 * run's is its requeue), the last run that started did its whole work
 * (the earlier ones' was lost), so the job is that run's shape and
 * Elapsed, submitted at its earliest Submit; the replay decides its
 * requeues itself.
 */
static int _run(void *ctx, char *line)
{
	gq_sacct_t *r = ctx;
	gq_sim_fields_t f;
	gq_sim_job_t run = { 0 };
	gq_sacct_job_t *j;
	char *v[C_N];
	int64_t submit, start = -1;
	int i, rc;

	if (!gq_sim_split(line, '|', &f))
		return gq_sim_error(r->err, r->errlen, r->path, r->line, "line",
				    "too many fields", NULL);
	for (i = 0; i < C_N; i++) {
		if (r->col[i] >= f.n)
			return _bad(r, i, "missing (too few fields: sacct -P separates them with '|')",
				    NULL);
		v[i] = f.f[r->col[i]];
	}
	if (!*v[C_ACCT])
		return _bad(r, C_ACCT, "empty", NULL);
	if ((submit = _time(v[C_SUBMIT])) < 0)
		return _bad(r, C_SUBMIT, "not YYYY-MM-DDTHH:MM:SS", v[C_SUBMIT]);
	if ((rc = _shape(r, v, &run)) < 0)
		return rc;
	if (!rc && (start = _time(v[C_START])) < 0)
		return _bad(r, C_START, "not YYYY-MM-DDTHH:MM:SS", v[C_START]);
	if (!(j = _job_of(r, v[C_ID], submit)))
		return _oom(r);
	if (rc || start < j->start)
		return 0;
	run.submit = j->j.submit;
	run.src_id = (uint32_t)strtoul(v[C_ID], NULL, 10);
	/* a pending job's list: the first is where it ran */
	run.account = gq_sim_intern(r->h, v[C_ACCT], strlen(v[C_ACCT]));
	run.partition = *v[C_PART] ?
		gq_sim_intern(r->h, v[C_PART], strcspn(v[C_PART], ",")) : NULL;
	if (!run.account || (*v[C_PART] && !run.partition))
		return _oom(r);
	j->j = run;
	j->start = start;
	return 0;
}

/* The merged jobs into the history, in the file's order of their first
 * lines; those without a run that started are counted left out. */
static int _emit(gq_sacct_t *r)
{
	gq_sim_job_t *out;
	size_t i;

	for (i = 0; i < r->n; i++) {
		if (r->job[i].start < 0) {
			r->h->skipped++;
			continue;
		}
		if (!(out = gq_sim_history_add(r->h)))
			return gq_sim_error(r->err, r->errlen, r->path, 0,
					    "file", "out of memory", NULL);
		*out = r->job[i].j;
	}
	return 0;
}

int gq_sim_read_sacct(const char *path, gq_sim_history_t *h, char *err,
		      size_t errlen)
{
	gq_sacct_t r = { .path = path, .err = err, .errlen = errlen, .h = h };
	int rc;

	gq_hash_init(&r.ids, &gq_hash_names);
	rc = gq_sim_read_file(path, &r.line, _header, _run, &r, err, errlen);
	if (!rc)
		rc = _emit(&r);
	if (!rc)
		gq_sim_history_sort(h);
	gq_hash_free(&r.ids);
	free(r.job);
	return rc;
}
