/*
 * multifactor.c - Slurm's priority/multifactor loaded inside
 * priority/gpuquota, its entry points forwarded, and a pool job's band
 * carried in its site factor (see multifactor.h).
 */
#include <math.h>
#include <stdlib.h>

#include "shared/slurm_compat.h"
#include "src/common/plugin.h"

#include "core/band.h"
#include "plugins/multifactor.h"
#include "shared/job_facts.h"

/* The entry points every release's multifactor has (plugin_load_and_link
 * is fatal when one is missing: the others are looked up one by one). */
static const char *mf_names[] = {
	"priority_p_set",
	"priority_p_reconfig",
	"priority_p_set_assoc_usage",
	"priority_p_get_priority_factors_list",
	"priority_p_job_end",
};

/*
 * Multifactor loaded inside gpuquota: its handle, its entry points and
 * the room its part has inside a band.  No lock: written only by init and
 * fini (gq_mf_load, gq_mf_unload), while no other thread of the plugin
 * runs (the pass thread starts after the load and is joined before the
 * unload); read by every thread.
 */
static struct multifactor {
	plugin_handle_t handle;
	/* mf_names, in its order: plugin_load_and_link fills it */
	struct {
		uint32_t (*set)(uint32_t last_prio, job_record_t *job_ptr);
		void (*reconfig)(bool assoc_clear);
		void (*set_assoc_usage)(slurmdb_assoc_rec_t *assoc);
		gq_factors_fn factors;
		void (*job_end)(job_record_t *job_ptr);
	} fn;
	/* optional: by release (priority.c's syms) */
	double (*calc_fs_factor)(long double usage_efctv,
				 long double shares_norm);
	uint32_t (*recover)(uint32_t prio_boost);
	void (*thread_start)(void);
	double max_part;	/* the most multifactor's part can be */
	uint32_t room;	/* gq_band_room(max_part); 1: not loaded */
} mf = { .handle = PLUGIN_INVALID_HANDLE, .room = 1 };

/* The site's PriorityWeight*, from this release's slurm_conf_t. */
static double _weights(const slurm_conf_t *conf)
{
	uint32_t w[GQ_PRIORITY_WEIGHTS] = GQ_PRIORITY_WEIGHTS_OF(conf);

	return gq_priority_weights(w, conf->priority_weight_tres);
}

bool gq_mf_load(bool quiet)
{
	int n = sizeof(mf_names) / sizeof(mf_names[0]);

	if (mf.handle != PLUGIN_INVALID_HANDLE)
		return true;
	/* loads it from PluginDir and calls its init (which, before 24.11,
	 * starts its decay thread) */
	mf.handle = plugin_load_and_link("priority/multifactor", n, mf_names,
					 (void **)&mf.fn);
	if (mf.handle == PLUGIN_INVALID_HANDLE && quiet)
		return false;
	if (mf.handle == PLUGIN_INVALID_HANDLE) {
		error("gpuquota: priority/multifactor could not be loaded from PluginDir %s (%s): gpuquota orders jobs alone, no usage, GrpTRESMins or fair share of Slurm's (README \"A site already on multifactor\")",
		      slurm_conf.plugindir, gq_plugin_strerror(errno));
		return false;
	}
	mf.calc_fs_factor = plugin_get_sym(mf.handle,
					   "priority_p_calc_fs_factor");
	mf.recover = plugin_get_sym(mf.handle, "priority_p_recover");
	mf.thread_start = plugin_get_sym(mf.handle, "priority_p_thread_start");
	mf.max_part = _weights(&slurm_conf);
	mf.room = gq_band_room(mf.max_part);
	if (!quiet)
		info("gpuquota: priority/multifactor loaded: its priority (at most %.0f) orders jobs inside each band in %u units%s",
		     mf.max_part, mf.room,
		     mf.max_part >= mf.room ? ", scaled to fit" : "");
	return true;
}

void gq_mf_unload(void)
{
	if (mf.handle == PLUGIN_INVALID_HANDLE)
		return;
	plugin_unload(mf.handle);	/* its fini joins its decay thread */
	memset(&mf.fn, 0, sizeof(mf.fn));
	mf.handle = PLUGIN_INVALID_HANDLE;
	mf.calc_fs_factor = NULL;
	mf.recover = NULL;
	mf.thread_start = NULL;
	mf.room = 1;
}

bool gq_mf_on(void)
{
	return mf.handle != PLUGIN_INVALID_HANDLE;
}

uint32_t gq_mf_set(uint32_t last_prio, job_record_t *job_ptr)
{
	return gq_mf_on() ? mf.fn.set(last_prio, job_ptr) : 1;
}

void gq_mf_reconfig(bool assoc_clear)
{
	if (gq_mf_on())
		mf.fn.reconfig(assoc_clear);
}

void gq_mf_set_assoc_usage(slurmdb_assoc_rec_t *assoc)
{
	if (gq_mf_on())
		mf.fn.set_assoc_usage(assoc);
}

double gq_mf_calc_fs_factor(long double usage_efctv, long double shares_norm)
{
	return mf.calc_fs_factor ?
	       mf.calc_fs_factor(usage_efctv, shares_norm) : 0.0;
}

void gq_mf_job_end(job_record_t *job_ptr)
{
	if (gq_mf_on())
		mf.fn.job_end(job_ptr);
}

uint32_t gq_mf_recover(uint32_t prio_boost)
{
	return mf.recover ? mf.recover(prio_boost) : 0;
}

void gq_mf_thread_start(void)
{
	if (mf.thread_start)
		mf.thread_start();
}

list_t *gq_mf_factors(void *req, uid_t uid)
{
	if (!gq_mf_on())
		return NULL;
	return gq_factors_call(mf.fn.factors, req, uid);
}

double gq_mf_part(const job_record_t *job_ptr)
{
	/* priority_factors_object_t up to 23.02, priority_factors_t after:
	 * the same fields */
	const __typeof__(*job_ptr->prio_factors) *f = job_ptr->prio_factors;
	double part;
	uint32_t i;

	if (!f)
		return 0;
	part = f->priority_age + f->priority_assoc + f->priority_fs +
	       f->priority_js + f->priority_part + f->priority_qos -
	       ((double)f->nice - (double)NICE_OFFSET);
	for (i = 0; f->priority_tres && i < f->tres_cnt; i++)
		part += f->priority_tres[i];	/* weighted in place */
	return part;
}

int64_t gq_mf_order(const job_record_t *job_ptr)
{
	if (!gq_mf_on() || mf.max_part <= 0)
		return 0;
	return llround(gq_mf_part(job_ptr));
}

uint32_t gq_mf_priority(const job_record_t *job_ptr, uint32_t band_prio)
{
	if (!gq_mf_on() || band_prio <= 1)
		return band_prio;
	return gq_band_compose(band_prio, gq_mf_part(job_ptr), mf.max_part,
			       mf.room);
}

/* v + d within [1, UINT32_MAX] (a per-partition priority) */
static uint32_t _moved(uint32_t v, int64_t d)
{
	int64_t x = (int64_t)v + d;

	return x < 1 ? 1 : x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
}

/* The site factor, the per-partition priorities moved by as much. */
static void _set_site(job_record_t *job_ptr, uint32_t site)
{
	int64_t d = (int64_t)site - (int64_t)job_ptr->site_factor;
	uint32_t *prio_array = gq_prio_array(job_ptr);
	int i, n;

	if (!d)
		return;
	job_ptr->site_factor = site;
	if (job_ptr->prio_factors)	/* what sprio shows */
		job_ptr->prio_factors->priority_site = site;
	if (!prio_array)
		return;
	n = gq_prio_array_cnt(job_ptr);
	for (i = 0; i < n; i++)
		prio_array[i] = _moved(prio_array[i], d);
}

void gq_mf_write(job_record_t *job_ptr, uint32_t prio)
{
	if (gq_mf_on() && prio > 1)
		_set_site(job_ptr, gq_band_site_factor(prio,
						       gq_mf_part(job_ptr)));
	job_ptr->priority = prio;
}

uint32_t gq_mf_reset_site(job_record_t *job_ptr)
{
	if (!gq_mf_on())
		return 1;
	_set_site(job_ptr, NICE_OFFSET);
	return mf.fn.set(job_ptr->priority, job_ptr);
}
