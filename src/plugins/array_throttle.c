/*
 * array_throttle.c - gpuquota's throttle on pending job arrays (see
 * array_throttle.h).
 *
 * The table: one entry per array record gpuquota throttles, {job id,
 * submit time, the user's %N, gpuquota's %N}; which job an entry belongs
 * to and the file's lines are src/state/throttle_file.c's.  A pass marks the entries it writes; the
 * others (arrays started, ended, no longer throttled) are dropped at its
 * end.  Lookups are linear in the throttled arrays: a handful, since an
 * array is throttled only while its project or department is at a bound.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/metrics.h"
#include "state/state.h"
#include "state/throttle_file.h"
#include "tools/trusted_file.h"

#include "shared/slurm_compat.h"

#include "plugins/array_throttle.h"
#include "plugins/xalloc.h"

/* slurmctld's own: absent when a client command loads the plugin */
#pragma weak last_job_update

typedef struct {
	gq_throttle_entry_t e;
	bool seen;		/* written by this pass */
} gq_throttle_t;

/*
 * The throttle table, one per plugin.  `lock` guards every field.  It is
 * a leaf of the lock order (docs/DEVELOPING.md "Lock order"): taken last,
 * and nothing of gpuquota's that locks is called while it is held.
 * Writers: the pass thread (a pass's marks and drops, the file's save),
 * threads under the job write lock (priority_p_set's throttle), init
 * (the load) and fini (the clear).
 */
static struct throttles {
	pthread_mutex_t lock;
	gq_throttle_t *table;
	int n, cap;
	bool changed;		/* not saved since it changed */
	time_t file_time;	/* when the loaded file was written */
} throttles = { .lock = PTHREAD_MUTEX_INITIALIZER };

/*
 * The array's submit time: Slurm saves and restores it with the job and
 * changes it only on a requeue (job_mgr.c, _job_requeue_op), which it
 * refuses for a pending job, so it is stable for as long as the record is
 * a pending array; a job given a lost job's id after a restart has a later
 * one.  (db_index changes on a requeue and is 0 without slurmdbd,
 * begin_time is the user's to change, resize_time is 0 unless resized.)
 */
static int64_t _submit(job_record_t *job_ptr)
{
	return job_ptr->details ? (int64_t)job_ptr->details->submit_time : 0;
}

/* The entry of the job (its id and submit time), or NULL.  Reads only. */
static gq_throttle_t *_find(uint32_t job_id, int64_t submit)
{
	int i;

	for (i = 0; i < throttles.n; i++)
		if (gq_throttle_entry_matches(&throttles.table[i].e, job_id,
					      submit, throttles.file_time))
			return &throttles.table[i];
	return NULL;
}

/* The entry of the job, an old line's (no submit time) made this job's;
 * NULL when it has none. */
static gq_throttle_t *_find_and_claim(uint32_t job_id, int64_t submit)
{
	gq_throttle_t *t = _find(job_id, submit);

	if (t && !t->e.submit) {
		t->e.submit = submit;
		throttles.changed = true;
	}
	return t;
}

static void _drop(gq_throttle_t *t)
{
	*t = throttles.table[--throttles.n];
	throttles.changed = true;
}

/* NULL when out of memory */
static gq_throttle_t *_add(uint32_t job_id, int64_t submit)
{
	gq_throttle_t *t;

	if (gq_xgrow(&throttles.table, throttles.n, &throttles.cap,
		     sizeof(*throttles.table)))
		return NULL;
	t = &throttles.table[throttles.n++];
	memset(t, 0, sizeof(*t));
	t->e.job_id = job_id;
	t->e.submit = submit;
	throttles.changed = true;
	return t;
}

/* Slurm saves and shows the jobs again */
static void _mark_jobs_updated(void)
{
	if (&last_job_update)
		last_job_update = time(NULL);
}

/* NULL when out of memory */
static char *_path(void)
{
	return gq_xprintf("%s/%s", slurm_conf.state_save_location,
			  GQ_THROTTLE_FILE);
}

/* The entries of the file's text into the table. */
static void _load_lines(const char *path, const char *text, size_t len)
{
	char line[128];	/* a line is at most 53 bytes (throttle_file.h) */
	size_t at = 0;
	int n = 0, old = 0, got;
	gq_throttle_entry_t e;
	gq_throttle_t *t;

	while ((got = gq_file_line(text, len, &at, line, sizeof(line)))) {
		n++;
		switch (got < 0 ? GQ_TLINE_BAD :
				  gq_throttle_line_parse(line, &e)) {
		case GQ_TLINE_SKIP:
			continue;
		case GQ_TLINE_BAD:
			error("gpuquota: %s line %d: not \"job_id submit_time user_throttle gpuquota_throttle\": skipped",
			      path, n);
			continue;
		case GQ_TLINE_OLD:
			old++;
			break;
		case GQ_TLINE_ENTRY:
			break;
		}
		if (!(t = _add(e.job_id, e.submit))) {
			error("gpuquota: %s: out of memory at line %d: the arrays' own throttles of the rest are not known",
			      path, n);
			break;
		}
		t->e = e;
	}
	if (old)
		info("gpuquota: %s: %d entr%s without a submit time (an older gpuquota's): each kept for the job of its id submitted before the file was written (%ld)",
		     path, old, old == 1 ? "y" : "ies",
		     (long)throttles.file_time);
}

/*
 * The file trusted first (trusted_file.h: not a link, a regular file of
 * root or SlurmUser writable by its owner alone, at most
 * GQ_THROTTLE_BOUND bytes); a refused or unreadable one is logged and
 * counted (state_load_failures_total), and no throttle is known.
 */
void gq_throttle_load(void)
{
	char *path = _path(), *text = NULL, err[512];
	size_t len = 0;
	time_t mtime = 0;
	int rc = path ? gq_file_read_at(path, GQ_THROTTLE_BOUND, &text, &len,
					&mtime, err, sizeof(err)) : -1;

	slurm_mutex_lock(&throttles.lock);
	throttles.n = 0;
	throttles.file_time = rc ? 0 : mtime;
	if (!path)
		error("gpuquota: out of memory: arrays' own throttles gpuquota lowered are not known");
	else if (rc == -1)
		error("gpuquota: cannot read %s; arrays' own throttles gpuquota lowered are not known",
		      err);
	else if (!rc)
		_load_lines(path, text, len);
	throttles.changed = false;
	slurm_mutex_unlock(&throttles.lock);
	if (rc == -1) {
		gq_state_lock();
		gq_metrics_load_failed(gq_state_metrics());
		gq_state_unlock();
	}
	free(text);
	xfree(path);
}

uint32_t gq_throttle_user(job_record_t *job_ptr, uint32_t max_run_tasks)
{
	gq_throttle_t *t;
	uint32_t user = max_run_tasks;

	slurm_mutex_lock(&throttles.lock);
	t = _find(job_ptr->job_id, _submit(job_ptr));	/* reads only */
	/* still ours: the user's is behind it; else the user changed it */
	if (t && t->e.ours == max_run_tasks)
		user = t->e.user;
	slurm_mutex_unlock(&throttles.lock);
	return user;
}

/*
 * Of the `tasks_now` that might start when `job` was read, those not
 * started since.  A pass in two lock holds reads the record under the read
 * hold and writes it under the write hold; tasks Slurm started between
 * the two were pending when tasks_now was counted, and are in
 * tot_run_tasks now: counted once, as started (the record's pending
 * tasks, task_cnt, went down by as many).  O(1).
 */
static uint32_t _still_to_start(const job_array_struct_t *a,
				const gq_job_t *job, uint32_t tasks_now)
{
	uint32_t started = job->in.tasks > a->task_cnt ?
			   job->in.tasks - a->task_cnt : 0;

	return tasks_now > started ? tasks_now - started : 0;
}

void gq_throttle_apply(job_record_t *job_ptr, const gq_job_t *job,
		       uint32_t tasks_now)
{
	job_array_struct_t *a = job_ptr->array_recs;
	gq_throttle_t *t;
	uint32_t user, want, left;
	int64_t submit;
	bool last;

	/* every pending job, every pass: most are no array (O(1), and its
	 * details are not read) */
	if (!a || !(submit = _submit(job_ptr)))
		return;
	/* the last pending task (Slurm gives it its task id, and its
	 * throttle still binds it): the user's, like a record not bound */
	last = job_ptr->array_task_id != NO_VAL || a->task_cnt <= 1;
	left = _still_to_start(a, job, tasks_now);
	slurm_mutex_lock(&throttles.lock);
	t = _find_and_claim(job_ptr->job_id, submit);
	user = (t && t->e.ours == a->max_run_tasks) ? t->e.user :
						       a->max_run_tasks;
	/* held (priority 0 keeps it from starting) or not bound: the
	 * user's.  %N 0 is no throttle: when all it might start started
	 * and ended since it was read, one (it ran more then) */
	want = job->hold ? user : MAX(a->tot_run_tasks + left, 1);
	if (last || job->hold || (user && want >= user) ||
	    left >= a->task_cnt) {
		if (t)
			_drop(t);
		if (a->max_run_tasks != user)
			info("gpuquota: %pJ: array throttle back to the user's (%u)",
			     job_ptr, user);
		if (a->max_run_tasks != user)
			_mark_jobs_updated();
		a->max_run_tasks = user;
		slurm_mutex_unlock(&throttles.lock);
		return;
	}
	if (!t && !(t = _add(job_ptr->job_id, submit)))
		/* throttled all the same (the limit comes first); the
		 * user's own %N is not remembered */
		error("gpuquota: %pJ: out of memory: its own throttle (%u) is not remembered",
		      job_ptr, user);
	if (t && (t->e.user != user || t->e.ours != want))
		throttles.changed = true;
	if (t) {
		t->e.user = user;
		t->e.ours = want;
		t->seen = true;
	}
	if (a->max_run_tasks != want)
		info("gpuquota: %pJ: %u more task%s may start before the next pass (array throttle %u, the user's %u)",
		     job_ptr, want - a->tot_run_tasks,
		     want - a->tot_run_tasks == 1 ? "" : "s", want, user);
	if (a->max_run_tasks != want)
		_mark_jobs_updated();
	a->max_run_tasks = want;
	slurm_mutex_unlock(&throttles.lock);
}

void gq_throttle_release(job_record_t *job_ptr)
{
	job_array_struct_t *a = job_ptr->array_recs;
	gq_throttle_t *t;
	uint32_t user;
	int64_t submit;

	if (!a || !(submit = _submit(job_ptr)))
		return;
	slurm_mutex_lock(&throttles.lock);
	if (!(t = _find_and_claim(job_ptr->job_id, submit))) {
		slurm_mutex_unlock(&throttles.lock);
		return;
	}
	user = t->e.ours == a->max_run_tasks ? t->e.user : a->max_run_tasks;
	_drop(t);
	if (a->max_run_tasks != user) {
		info("gpuquota: %pJ: array throttle back to the user's (%u)",
		     job_ptr, user);
		a->max_run_tasks = user;
		_mark_jobs_updated();
	}
	slurm_mutex_unlock(&throttles.lock);
}

void gq_throttle_pass_begin(void)
{
	int i;

	slurm_mutex_lock(&throttles.lock);
	for (i = 0; i < throttles.n; i++)
		throttles.table[i].seen = false;
	slurm_mutex_unlock(&throttles.lock);
}

void gq_throttle_pass_end(void)
{
	int i = 0;

	slurm_mutex_lock(&throttles.lock);
	while (i < throttles.n)
		if (!throttles.table[i].seen)
			_drop(&throttles.table[i]);
		else
			i++;
	slurm_mutex_unlock(&throttles.lock);
}

/* Atomically: a temporary file, then rename.  O(throttled arrays). */
void gq_throttle_save(void)
{
	/* a line is at most GQ_THROTTLE_LINE bytes, its NUL included */
	enum { GQ_THROTTLE_LINE = 96 };
	char *path, *tmp, *text;
	size_t len, at;
	FILE *f = NULL;
	bool ok;
	int i, fd;

	slurm_mutex_lock(&throttles.lock);
	if (!throttles.changed) {
		slurm_mutex_unlock(&throttles.lock);
		return;
	}
	len = strlen(gq_throttle_file_header) + 1;
	if ((text = gq_xcalloc(len + (size_t)throttles.n * GQ_THROTTLE_LINE,
			       1))) {
		throttles.changed = false;
		at = len - 1;
		memcpy(text, gq_throttle_file_header, at);
		for (i = 0; i < throttles.n; i++)
			at += gq_throttle_line_format(&throttles.table[i].e,
						      text + at,
						      GQ_THROTTLE_LINE);
	}
	slurm_mutex_unlock(&throttles.lock);

	path = text ? _path() : NULL;
	tmp = path ? gq_xprintf("%s.new", path) : NULL;
	if (!tmp) {	/* out of memory: written by a later pass */
		error("gpuquota: %s not written (out of memory)",
		      GQ_THROTTLE_FILE);
		slurm_mutex_lock(&throttles.lock);
		throttles.changed = true;
		slurm_mutex_unlock(&throttles.lock);
		xfree(text);
		xfree(path);
		return;
	}
	/* made anew: never written through a link put in its place */
	fd = gq_file_create(tmp, 0644);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (fd >= 0 && !f)
		close(fd);
	ok = f && fputs(text, f) != EOF && !fflush(f) && !fsync(fileno(f));
	if (f && fclose(f))
		ok = false;
	if (!ok || rename(tmp, path)) {
		error("gpuquota: cannot write %s: %m", path);
		(void)unlink(tmp);
	}
	xfree(text);
	xfree(tmp);
	xfree(path);
}

void gq_throttle_clear(void)
{
	slurm_mutex_lock(&throttles.lock);
	xfree(throttles.table);
	throttles.n = throttles.cap = 0;
	throttles.changed = false;
	throttles.file_time = 0;
	slurm_mutex_unlock(&throttles.lock);
}
