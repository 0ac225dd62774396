/*
 * array_throttle.c - gpuquota's throttle on pending job arrays (see
 * array_throttle.h).
 *
 * The table: one entry per array record gpuquota throttles, {job id, the
 * user's %N, gpuquota's %N}.  A pass marks the entries it writes; the
 * others (arrays started, ended, no longer throttled) are dropped at its
 * end.  Lookups are linear in the throttled arrays: a handful, since an
 * array is throttled only while its project or department is at a bound.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugins/slurm_compat.h"

#include "plugins/array_throttle.h"

#define GQ_THROTTLE_FILE "gpuquota-array-throttles"

/* slurmctld's own: absent when a client command loads the plugin */
#pragma weak last_job_update

typedef struct {
	uint32_t job_id;
	uint32_t user;		/* the user's %N, 0: none */
	uint32_t ours;		/* the %N gpuquota set */
	bool seen;		/* written by this pass */
} gq_throttle_t;

static pthread_mutex_t throttle_mutex = PTHREAD_MUTEX_INITIALIZER;
static gq_throttle_t *table;
static int nthrottles, cap;
static bool changed;

static gq_throttle_t *_find(uint32_t job_id)
{
	int i;

	for (i = 0; i < nthrottles; i++)
		if (table[i].job_id == job_id)
			return &table[i];
	return NULL;
}

static void _drop(gq_throttle_t *t)
{
	*t = table[--nthrottles];
	changed = true;
}

static gq_throttle_t *_add(uint32_t job_id)
{
	if (nthrottles == cap) {
		cap = cap ? cap * 2 : 16;
		xrecalloc(table, cap, sizeof(*table));
	}
	table[nthrottles].job_id = job_id;
	changed = true;
	return &table[nthrottles++];
}

/* Slurm saves and shows the job again */
static void _touched(void)
{
	if (&last_job_update)
		last_job_update = time(NULL);
}

static char *_path(void)
{
	return xstrdup_printf("%s/%s", slurm_conf.state_save_location,
			      GQ_THROTTLE_FILE);
}

void gq_throttle_load(void)
{
	char *path = _path(), line[128];
	FILE *f = fopen(path, "r");
	int n = 0;

	slurm_mutex_lock(&throttle_mutex);
	nthrottles = 0;
	if (!f) {
		if (errno != ENOENT)
			error("gpuquota: cannot read %s: %m; arrays' own throttles gpuquota lowered are not known",
			      path);
		goto out;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned id, user, ours;
		gq_throttle_t *t;
		char end;

		n++;
		if (line[0] == '#')
			continue;
		if (sscanf(line, "%u %u %u %c", &id, &user, &ours, &end) != 3 ||
		    !id || !ours) {
			error("gpuquota: %s line %d: not \"job_id user_throttle gpuquota_throttle\": skipped",
			      path, n);
			continue;
		}
		t = _add(id);
		t->user = user;
		t->ours = ours;
	}
	fclose(f);
out:
	changed = false;
	slurm_mutex_unlock(&throttle_mutex);
	xfree(path);
}

uint32_t gq_throttle_user(uint32_t job_id, uint32_t max_run_tasks)
{
	gq_throttle_t *t;
	uint32_t user = max_run_tasks;

	slurm_mutex_lock(&throttle_mutex);
	t = _find(job_id);
	/* still ours: the user's is behind it; else the user changed it */
	if (t && t->ours == max_run_tasks)
		user = t->user;
	slurm_mutex_unlock(&throttle_mutex);
	return user;
}

void gq_throttle_apply(job_record_t *job_ptr, const gq_job_t *job)
{
	job_array_struct_t *a = job_ptr->array_recs;
	gq_throttle_t *t;
	uint32_t user, want;
	bool last;

	if (!a)
		return;
	/* the last pending task (Slurm gives it its task id, and its
	 * throttle still binds it): the user's, like a record not bound */
	last = job_ptr->array_task_id != NO_VAL || a->task_cnt <= 1;
	slurm_mutex_lock(&throttle_mutex);
	t = _find(job_ptr->job_id);
	user = (t && t->ours == a->max_run_tasks) ? t->user : a->max_run_tasks;
	/* held (priority 0 keeps it from starting) or not bound: the user's */
	want = job->hold ? user : a->tot_run_tasks + job->tasks_now;
	if (last || job->hold || (user && want >= user) ||
	    job->tasks_now >= a->task_cnt) {
		if (t)
			_drop(t);
		if (a->max_run_tasks != user)
			info("gpuquota: %pJ: array throttle back to the user's (%u)",
			     job_ptr, user);
		if (a->max_run_tasks != user)
			_touched();
		a->max_run_tasks = user;
		slurm_mutex_unlock(&throttle_mutex);
		return;
	}
	if (!t)
		t = _add(job_ptr->job_id);
	if (t->user != user || t->ours != want)
		changed = true;
	t->user = user;
	t->ours = want;
	t->seen = true;
	if (a->max_run_tasks != want)
		info("gpuquota: %pJ: %u more task%s may start before the next pass (array throttle %u, the user's %u)",
		     job_ptr, job->tasks_now, job->tasks_now == 1 ? "" : "s",
		     want, user);
	if (a->max_run_tasks != want)
		_touched();
	a->max_run_tasks = want;
	slurm_mutex_unlock(&throttle_mutex);
}

void gq_throttle_pass_begin(void)
{
	int i;

	slurm_mutex_lock(&throttle_mutex);
	for (i = 0; i < nthrottles; i++)
		table[i].seen = false;
	slurm_mutex_unlock(&throttle_mutex);
}

void gq_throttle_pass_end(void)
{
	int i = 0;

	slurm_mutex_lock(&throttle_mutex);
	while (i < nthrottles)
		if (!table[i].seen)
			_drop(&table[i]);
		else
			i++;
	slurm_mutex_unlock(&throttle_mutex);
}

/* Atomically: a temporary file, then rename.  O(throttled arrays). */
void gq_throttle_save(void)
{
	char *path, *tmp, *text = NULL;
	FILE *f;
	bool ok;
	int i;

	slurm_mutex_lock(&throttle_mutex);
	if (!changed) {
		slurm_mutex_unlock(&throttle_mutex);
		return;
	}
	changed = false;
	xstrcat(text, "# gpuquota: arrays it throttles: job_id user_throttle gpuquota_throttle\n");
	for (i = 0; i < nthrottles; i++)
		xstrfmtcat(text, "%u %u %u\n", table[i].job_id, table[i].user,
			   table[i].ours);
	slurm_mutex_unlock(&throttle_mutex);

	path = _path();
	tmp = xstrdup_printf("%s.new", path);
	f = fopen(tmp, "w");
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
	slurm_mutex_lock(&throttle_mutex);
	xfree(table);
	nthrottles = cap = 0;
	changed = false;
	slurm_mutex_unlock(&throttle_mutex);
}
