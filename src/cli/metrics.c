/*
 * metrics.c - the Prometheus exposition of `gpuquota metrics` (see
 * metrics.h).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/metrics.h"
#include "state/metrics_file.h"

const char *gq_quota_state(double alloc, double quota)
{
	if (alloc > quota + 1e-9)
		return "over-quota";
	if (alloc + 1e-9 >= quota)
		return "at-quota";
	return "under-quota";
}

static const char *const gq_states[] = {
	"under-quota", "at-quota", "over-quota",
};

/* One row of numbers, for a project or a department. */
typedef struct {
	const char *pool, *project, *department;
	double quota, limit, weight, share, alloc, pending, held, usage;
} gq_mrow_t;

/* The per-project and per-department families, in order. */
typedef struct {
	const char *suffix, *help;
} gq_family_t;

static const gq_family_t gq_families[] = {
	{ "quota_gpus", "Configured GPU quota (guaranteed GPUs)." },
	{ "limit_gpus", "Configured gpu_limit: most GPUs it may hold; absent when unlimited." },
	{ "over_quota_weight", "Configured over_quota_weight: its weight in sharing idle GPUs." },
	{ "fair_share_gpus", "Fair share f: quota plus its weighted part of idle GPUs, capped at demand." },
	{ "allocated_gpus", "GPUs its running jobs hold." },
	{ "pending_gpus", "GPUs its eligible pending jobs ask for (array tasks counted)." },
	{ "held_jobs", "Pending jobs (array tasks counted) gpuquota holds (gpu_limit, not requeueable)." },
	{ "usage_gpu_seconds", "GPU-seconds held above quota, decayed with settings.usage_half_life (0 when off); a department: its projects'." },
	{ "state", "1 for its quota state (under-quota, at-quota, over-quota), 0 for the others." },
};
#define GQ_NFAMILIES ((int)(sizeof(gq_families) / sizeof(gq_families[0])))

static double _field(const gq_mrow_t *r, int f)
{
	switch (f) {
	case 0: return r->quota;
	case 1: return r->limit;
	case 2: return r->weight;
	case 3: return r->share;
	case 4: return r->alloc;
	case 5: return r->pending;
	case 6: return r->held;
	default: return r->usage;
	}
}

/* Every row's sample of family f (kind: "project" or "department"). */
static void _family(gq_prom_t *p, const char *kind, int f,
		    const gq_mrow_t *rows, int n)
{
	char name[96];
	int i, s;

	snprintf(name, sizeof(name), "gpuquota_%s_%s", kind,
		 gq_families[f].suffix);
	gq_prom_family(p, name, "gauge", gq_families[f].help);
	for (i = 0; i < n; i++) {
		const gq_mrow_t *r = &rows[i];
		const char *state = gq_quota_state(r->alloc, r->quota);

		if (!strcmp(gq_families[f].suffix, "state")) {
			for (s = 0; s < 3; s++) {
				const char *l[] = { "pool", r->pool,
						    "project", r->project,
						    "department", r->department,
						    "state", gq_states[s], NULL };

				gq_prom_sample(p, name, l,
					       !strcmp(state, gq_states[s]));
			}
			continue;
		}
		if (!strcmp(gq_families[f].suffix, "limit_gpus") && isinf(r->limit))
			continue;	/* unlimited */
		{
			const char *l[] = { "pool", r->pool, "project",
					    r->project, "department",
					    r->department, NULL };

			gq_prom_sample(p, name, l, _field(r, f));
		}
	}
}

static bool _shown(const gq_project_t *p)
{
	/* as `gpuquota projects`: an unlisted account while it has work */
	return p->configured || p->alloc || p->pending;
}

/* Pending jobs (tasks) of `jobs` that v holds, by project of v. */
static double *_held(const gq_view_t *v, const job_info_msg_t *jobs)
{
	double *held = calloc(gq_view_nprojects(v) + 1, sizeof(*held));
	uint32_t k;

	for (k = 0; held && jobs && k < jobs->record_count; k++) {
		const gq_job_t *job = gq_view_job(v, jobs->job_array[k].job_id);

		if (job && job->in.state != GQ_JOB_RUNNING && job->hold &&
		    !job->in.elsewhere)
			held[job->project] += job->in.tasks ? job->in.tasks : 1;
	}
	return held;
}

/* Pool k's projects (dept < 0) or departments into rows; their count. */
static int _rows(const gq_view_t *v, const char *pool, const double *held,
		 bool depts, gq_mrow_t *rows)
{
	int np = gq_view_nprojects(v), nd = gq_view_ndepts(v), i, j, n = 0;

	for (i = 0; !depts && i < np; i++) {
		const gq_project_t *pr = gq_view_project(v, i);
		const gq_dept_t *d = gq_view_dept(v, pr->department);

		if (!_shown(pr))
			continue;
		rows[n++] = (gq_mrow_t){
			.pool = pool, .project = pr->name,
			.department = d ? d->name : NULL,
			.quota = pr->quota, .limit = pr->limit,
			.weight = pr->weight, .share = pr->share,
			.alloc = pr->alloc, .pending = (double)pr->pending,
			.held = held[i], .usage = pr->usage };
	}
	for (i = 0; depts && i < nd; i++) {
		const gq_dept_t *d = gq_view_dept(v, i);
		gq_mrow_t r = { .pool = pool, .department = d->name,
				.quota = d->quota, .limit = d->limit,
				.weight = d->weight, .share = d->share,
				.alloc = d->alloc };

		for (j = 0; j < np; j++) {
			if (gq_view_project(v, j)->department != i)
				continue;
			r.pending += (double)gq_view_project(v, j)->pending;
			r.held += held[j];
			r.usage += gq_view_project(v, j)->usage;
		}
		rows[n++] = r;
	}
	return n;
}

/*
 * The numbers of Slurm's side, pool by pool (label pool where there are
 * pools).  O(pools x (J + projects x departments)).
 */
static int _slurm_side(gq_prom_t *p, gq_view_t *const *views,
		       char *const *names, const double *caps, int npools,
		       const job_info_msg_t *jobs)
{
	double **held = calloc(npools, sizeof(*held));
	gq_mrow_t *rows;
	int k, f, n = 0, max = 1;

	for (k = 0; k < npools; k++)
		max += gq_view_nprojects(views[k]) + gq_view_ndepts(views[k]);
	rows = calloc(max, sizeof(*rows));
	for (k = 0; held && rows && k < npools; k++)
		if (!(held[k] = _held(views[k], jobs)))
			break;
	if (!held || !rows || k < npools) {
		for (k = 0; held && k < npools; k++)
			free(held[k]);
		free(held);
		free(rows);
		return -1;
	}
	gq_prom_family(p, "gpuquota_capacity_gpus", "gauge",
		       "GPUs in gpuquota's pool (the nodes of its partitions).");
	for (k = 0; k < npools; k++) {
		const char *l[] = { "pool", names ? names[k] : NULL, NULL };

		gq_prom_sample(p, "gpuquota_capacity_gpus", l, caps[k]);
	}
	for (k = 0; k < npools; k++)
		n += _rows(views[k], names ? names[k] : NULL, held[k], false,
			   rows + n);
	for (f = 0; f < GQ_NFAMILIES; f++)
		_family(p, "project", f, rows, n);
	for (k = n = 0; k < npools; k++)
		n += _rows(views[k], names ? names[k] : NULL, held[k], true,
			   rows + n);
	/* without departments: the families, with no samples */
	for (f = 0; f < GQ_NFAMILIES; f++)
		_family(p, "department", f, rows, n);
	for (k = 0; k < npools; k++)
		free(held[k]);
	free(held);
	free(rows);
	return 0;
}

/* name{reason=...} for each reason with a name */
static void _by_reason(gq_prom_t *p, const char *name, const char *help,
		       const uint64_t *v, int n, const char *(*reason)(int))
{
	int i;

	gq_prom_family(p, name, "counter", help);
	for (i = 0; i < n; i++) {
		const char *l[] = { "reason", reason(i), NULL };

		if (reason(i))
			gq_prom_sample(p, name, l, (double)v[i]);
	}
}

static void _counter(gq_prom_t *p, const char *name, const char *type,
		     const char *help, double v)
{
	gq_prom_family(p, name, type, help);
	gq_prom_sample(p, name, NULL, v);
}

/* The per-project counters of the ledger's records, in the order they
 * were first counted. */
static const struct {
	const char *name, *help;
	size_t offset;		/* of its array in gq_metrics_project_t */
} gq_project_counters[] = {
	{ "gpuquota_project_reclaim_victims_total",
	  "Jobs of the project taken for a reclaim (requeued, or warned first), by the preemptor's band.",
	  offsetof(gq_metrics_project_t, victims) },
	{ "gpuquota_project_gpus_lent_total",
	  "GPUs of the project's jobs taken for a reclaim: lent back to another project, by reason.",
	  offsetof(gq_metrics_project_t, gpus_lent) },
	{ "gpuquota_project_gpu_seconds_lost_total",
	  "Work the project's jobs lost to requeues for a reclaim: GPUs x the run requeued, start to requeue, counted when the run ended (after a grace time: then), by reason.",
	  offsetof(gq_metrics_project_t, lost) },
	{ "gpuquota_project_gpus_reclaimed_total",
	  "GPUs taken from other projects' jobs for the project's jobs, by reason.",
	  offsetof(gq_metrics_project_t, gpus_reclaimed) },
};

static void _projects(gq_prom_t *p, const gq_metrics_t *m)
{
	size_t f;
	int i, r;

	for (f = 0; f < sizeof(gq_project_counters) / sizeof(gq_project_counters[0]); f++) {
		gq_prom_family(p, gq_project_counters[f].name, "counter",
			       gq_project_counters[f].help);
		for (i = 0; i < m->nprojects; i++) {
			const uint64_t *v = (const uint64_t *)
				((const char *)&m->project[i] +
				 gq_project_counters[f].offset);

			for (r = 0; r < GQ_RECLAIM_NREASONS; r++) {
				const char *l[] = { "project", m->project[i].name,
						    "reason",
						    gq_ledger_reason(r),
						    NULL };

				gq_prom_sample(p, gq_project_counters[f].name,
					       l, (double)v[r]);
			}
		}
	}
	_counter(p, "gpuquota_project_records_uncounted_total", "counter",
		 "Reclaim records left out of the per-project counters (more than 256 projects counted); the totals count them.",
		 (double)m->projects_uncounted_total);
}

/* The passes: how many, failed, the last, their times and lock holds. */
static void _passes(gq_prom_t *p, const gq_metrics_t *m)
{
	_counter(p, "gpuquota_passes_total", "counter",
		 "gpuquota passes run (failed ones too).",
		 (double)m->passes_total);
	_counter(p, "gpuquota_pass_failures_total", "counter",
		 "gpuquota passes that failed (out of memory); the last good pass kept answering.",
		 (double)m->pass_failures_total);
	if (m->recent_n)
		_counter(p, "gpuquota_last_pass_timestamp_seconds", "gauge",
			 "When the last pass ended, unix seconds.",
			 gq_metrics_recent(m, m->recent_n - 1)->at);
	gq_prom_histogram(p, "gpuquota_pass_duration_seconds",
			  "Time of a pass: reading Slurm's jobs, computing, writing priorities and holds back.",
			  &m->pass_seconds);
	gq_prom_histogram(p, "gpuquota_pass_lock_hold_seconds",
			  "Time a pass held slurmctld's job write lock, from granted to released: its second hold, writing the jobs that change (a re-hold's walk counts too).",
			  &m->lock_hold_seconds);
	gq_prom_histogram(p, "gpuquota_pass_read_lock_seconds",
			  "Time a pass held slurmctld's job read lock, from granted to released: its first hold, reading every job and computing (squeue and other readers go on, submits and scheduling wait).",
			  &m->read_hold_seconds);
}

static void _plugin_side(gq_prom_t *p, const gq_metrics_t *m,
			 double written_at)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	_counter(p, "gpuquota_metrics_file_age_seconds", "gauge",
		 "Seconds since the plugin last wrote its metrics file (after each pass).",
		 ts.tv_sec + ts.tv_nsec / 1e9 - written_at);
	_counter(p, "gpuquota_plugin_start_time_seconds", "gauge",
		 "When slurmctld loaded the plugin, unix seconds: the counters count from then.",
		 m->started_at);
	_passes(p, m);
	_by_reason(p, "gpuquota_reclaims_total",
		   "Reclaims: preemptors Slurm requeued running jobs for, by the preemptor's band (quota or fair_share reclaim).",
		   m->reclaims_total, GQ_RECLAIM_NREASONS,
		   gq_ledger_reason);
	_by_reason(p, "gpuquota_reclaim_victims_total",
		   "Running jobs Slurm requeued for a reclaim, by reason.",
		   m->victims_total, GQ_RECLAIM_NREASONS,
		   gq_ledger_reason);
	_by_reason(p, "gpuquota_reclaim_victim_gpus_total",
		   "GPUs of the jobs requeued for a reclaim, by reason.",
		   m->victim_gpus_total, GQ_RECLAIM_NREASONS,
		   gq_ledger_reason);
	_by_reason(p, "gpuquota_reclaim_victim_gpu_seconds_lost_total",
		   "Work the requeues for a reclaim lose: each victim's GPUs x its run requeued, start to requeue (gpuquota ledger), counted when its run ends (after a grace time: then), by reason.",
		   m->lost_gpu_seconds_total, GQ_RECLAIM_NREASONS,
		   gq_ledger_reason);
	_counter(p, "gpuquota_ledger_records_total", "counter",
		 "Reclaim records queued for the ledger file (<StateSaveLocation>/gpuquota-ledger), one per victim.",
		 (double)m->ledger_records_total);
	_counter(p, "gpuquota_ledger_records_dropped_total", "counter",
		 "Reclaim records lost before the ledger file: no memory, a full queue, or a failed write (logged).",
		 (double)m->ledger_dropped_total);
	_counter(p, "gpuquota_state_load_failures_total", "counter",
		 "State files (usage, reclaim ledger, array throttles) not loaded at the plugin's start: refused (a link, not a regular file, owner, mode, size) or unreadable; that state started empty (logged).",
		 (double)m->state_load_failures_total);
	_counter(p, "gpuquota_config_load_failures_total", "counter",
		 "Loads of gpuquota.json that failed (at start or scontrol reconfigure): slurmctld kept the last good configuration (logged; gpuquota-running.json names the error).",
		 (double)m->config_load_failures_total);
	_projects(p, m);
	_by_reason(p, "gpuquota_holds_total",
		   "Pending jobs gpuquota held, by reason (limit, department_limit, not_requeueable, reclaim_in_flight).",
		   m->holds_total, GQ_HOLD_NREASONS, gq_metrics_hold_reason);
	_counter(p, "gpuquota_releases_total", "counter",
		 "Jobs gpuquota held and released.", (double)m->releases_total);
}

void gq_metrics_mode(gq_prom_t *out, bool observe)
{
	static const char *const enforce[] = { "mode", "enforce", NULL };
	static const char *const obs[] = { "mode", "observe", NULL };

	gq_prom_family(out, "gpuquota_mode", "gauge",
		       "settings.mode of gpuquota.json: 1 for the mode in force (enforce: gpuquota acts; observe: it decides, logs and counts, and Slurm schedules as priority/multifactor would).");
	gq_prom_sample(out, "gpuquota_mode", enforce, !observe);
	gq_prom_sample(out, "gpuquota_mode", obs, observe);
}

int gq_metrics_render(gq_view_t *const *views, char *const *names,
		      const double *caps, int npools,
		      const job_info_msg_t *jobs, const char *state_path,
		      gq_prom_t *out, char *err, size_t errlen)
{
	static gq_metrics_t m;	/* 75 kB: not on the stack */
	double written_at = 0;
	int rc = state_path ? gq_metrics_file_read(state_path, &m, &written_at,
						   err, errlen) : -2;

	if (rc == -1)
		return -1;
	if (_slurm_side(out, views, names, caps, npools, jobs)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (rc == -2)
		fprintf(stderr, "gpuquota: warning: %s: the plugin's metrics (passes, reclaims, holds) are left out; is this slurmctld's host, and is PriorityType=priority/gpuquota?\n",
			state_path ? err : "no StateSaveLocation");
	_counter(out, "gpuquota_metrics_file_ok", "gauge",
		 "1 when the plugin's metrics file (<StateSaveLocation>/gpuquota-metrics.json) was read, 0 when it is missing.",
		 rc == 0);
	if (!rc)
		_plugin_side(out, &m, written_at);
	if (out->oom) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}
