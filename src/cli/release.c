/*
 * release.c - `gpuquota release` (see release.h): each pending job read
 * with slurm_load_jobs, what gpuquota set on it written back as Slurm's
 * own with gq_job_update, as scontrol would: `release`,
 * `ArrayTaskThrottle=<the user's>`, `SiteFactor=0`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GQ_SLURM_PUBLIC_ONLY
#include "shared/slurm_compat.h"

#include "cli/release.h"
#include "cli/update_job.h"
#include "config/config.h"
#include "core/pools.h"
#include "shared/job_facts.h"
#include "shared/pass_input.h"
#include "state/throttle_file.h"
#include "tools/trusted_file.h"

/* What a run knows: the throttle file's entries, the pools, the counts. */
typedef struct {
	gq_throttle_entry_t *e;
	size_t n;
	int64_t file_time;
	gq_pools_t *pools;	/* NULL: site factors left alone */
	bool dry_run;
	int released, throttles, sites, failed;
} gq_release_t;

/*
 * The entries of StateSaveLocation's throttle file (trusted as the
 * plugin trusts it: tools/trusted_file.h), when it is there; a refused
 * file is said, and no throttle is given back.  O(file) with the entries
 * grown by doubling.
 */
static void _read_throttles(gq_release_t *r, const char *dir)
{
	char path[4096], line[256], err[512], *text = NULL;
	size_t len = 0, at = 0, cap = 0;
	time_t mtime = 0;
	gq_throttle_entry_t e, *grown;
	int rc;

	if (!dir || snprintf(path, sizeof(path), "%s/%s", dir,
			     GQ_THROTTLE_FILE) >= (int)sizeof(path))
		return;
	rc = gq_file_read_at(path, GQ_THROTTLE_BOUND, &text, &len, &mtime,
			     err, sizeof(err));
	if (rc == -1)
		fprintf(stderr, "gpuquota: warning: %s: arrays' throttles left as they are\n",
			err);
	r->file_time = (int64_t)mtime;
	while (!rc && gq_file_line(text, len, &at, line, sizeof(line)) != 0) {
		gq_tline_t t = gq_throttle_line_parse(line, &e);

		if (t != GQ_TLINE_ENTRY && t != GQ_TLINE_OLD)
			continue;
		if (r->n == cap) {
			cap = cap ? 2 * cap : 64;
			if (!(grown = realloc(r->e, cap * sizeof(*grown))))
				break;
			r->e = grown;
		}
		r->e[r->n++] = e;
	}
	free(text);
}

/* The pools of the file slurmctld reads; NULL (and a warning) without. */
static gq_pools_t *_pools(const slurm_conf_t *conf)
{
	char err[GQ_ERR_MAX], *path;
	gq_config_t *cfg = NULL;
	gq_pools_t *p = NULL;

	path = gq_config_path(conf->slurm_conf, conf->priority_params);
	if (path && gq_config_load(path, &cfg, err, sizeof(err)))
		fprintf(stderr, "gpuquota: warning: %s: site factors left as they are\n",
			err);
	else if (cfg && cfg->settings.multifactor)
		p = gq_pools_new(cfg);
	gq_config_free(cfg);
	free(path);
	return p;
}

/* Write desc for job j (or say it, dry); counts a refusal. */
static bool _update(gq_release_t *r, const slurm_job_info_t *j,
		    job_desc_msg_t *desc, const char *what)
{
	char id[64];
	int rc;

	gq_job_update_name(j, id, sizeof(id));
	printf("job %s%s: %s\n", id, r->dry_run ? " (dry run)" : "", what);
	if (r->dry_run || !(rc = gq_job_update(j, desc)))
		return true;
	fprintf(stderr, "gpuquota: job %s: %s: %s\n", id, what,
		slurm_strerror(rc));
	r->failed++;
	return false;
}

/* The user's throttle of an array gpuquota lowered; 0 when it did not. */
static bool _throttle_of(const gq_release_t *r, const slurm_job_info_t *j,
			 uint32_t *user)
{
	size_t i;

	if (!j->array_task_str || j->array_task_id != NO_VAL)
		return false;
	for (i = 0; i < r->n; i++)
		if (gq_throttle_entry_matches(&r->e[i], j->job_id,
					      (int64_t)j->submit_time,
					      r->file_time) &&
		    r->e[i].ours == j->array_max_tasks &&
		    r->e[i].user != r->e[i].ours) {
			*user = r->e[i].user;
			return true;
		}
	return false;
}

/* One pending job: each of gpuquota's marks on it undone. */
static void _release_job(gq_release_t *r, const slurm_job_info_t *j)
{
	job_desc_msg_t desc;
	uint32_t user;
	char n[16];

	if (gq_facts_held_by_us(j->state_reason, j->state_desc)) {
		slurm_init_job_desc_msg(&desc);
		desc.priority = INFINITE;
		r->released += _update(r, j, &desc, "gpuquota's hold released");
	}
	if (_throttle_of(r, j, &user)) {
		slurm_init_job_desc_msg(&desc);
		snprintf(n, sizeof(n), "%u", user);
		desc.array_inx = n;
		r->throttles += _update(r, j, &desc,
					"array throttle given back to the user's");
	}
	if (r->pools && j->site_factor != NICE_OFFSET &&
	    gq_pass_pool(r->pools, j->partition, true) >= 0) {
		slurm_init_job_desc_msg(&desc);
		desc.site_factor = NICE_OFFSET;
		r->sites += _update(r, j, &desc, "site factor reset to 0");
	}
}

int gq_release_command(bool dry_run)
{
	gq_release_t r = { .dry_run = dry_run };
	slurm_conf_t *conf = NULL;
	job_info_msg_t *jobs = NULL;
	uint32_t i;

	if (slurm_load_ctl_conf(0, &conf) ||
	    slurm_load_jobs(0, &jobs, SHOW_ALL | SHOW_DETAIL)) {
		slurm_perror("gpuquota: release");
		if (conf)
			gq_free_ctl_conf(conf);
		return 1;
	}
	gq_file_trust_owner((long)conf->slurm_user_id);
	_read_throttles(&r, conf->state_save_location);
	r.pools = _pools(conf);
	for (i = 0; i < jobs->record_count; i++)
		if ((jobs->job_array[i].job_state & JOB_STATE_BASE) == JOB_PENDING)
			_release_job(&r, &jobs->job_array[i]);
	printf("%s%d holds released, %d array throttles given back, %d site factors reset%s\n",
	       dry_run ? "dry run: " : "", r.released, r.throttles, r.sites,
	       r.failed ? " (some refused: see above)" : "");
	slurm_free_job_info_msg(jobs);
	gq_free_ctl_conf(conf);
	gq_pools_free(r.pools);
	free(r.e);
	return r.failed ? 1 : 0;
}
