/*
 * slurm_compat.h - every difference between the Slurm versions gpuquota
 * builds against, in one place, keyed on SLURM_VERSION_NUMBER from the
 * headers it is built with (scripts/prepare-slurm.sh).  The glue includes
 * Slurm through this file and is written in the newest Slurm's words;
 * older versions get those words here.  The core never sees Slurm.
 *
 * Checked against the real headers of 22.05.8 (Debian 12) and 24.11.5
 * (Debian 13), and SchedMD's 23.11.4, 25.05.8, 25.11.7 and 26.05.3 (built
 * with each, and the plugins' symbols against each release's ops list).
 * Where a change happened between those, it is keyed on the release it
 * is known to have come in, or on the first release checked to have it,
 * not checked against the releases in between.  What a version lacks is
 * said in README.md "Slurm versions".
 */
#ifndef GPUQUOTA_SLURM_COMPAT_H
#define GPUQUOTA_SLURM_COMPAT_H

#include <stdbool.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#define GQ_SLURM_AT_LEAST(a, b) \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(a, b, 0))

#if !GQ_SLURM_AT_LEAST(22, 5)
#error "gpuquota needs Slurm 22.05 or newer"
#endif

/* ---- libslurm's public API (the gpuquota command, src/cli) ---------- */

/* 26.05: slurm_free_ctl_conf() became slurm_free_conf(); keyed on 26.05,
 * the first release checked here to have it (25.11.7 has the old name). */
#if GQ_SLURM_AT_LEAST(26, 5)
#define gq_free_ctl_conf(conf) slurm_free_conf(conf)
#else
#define gq_free_ctl_conf(conf) slurm_free_ctl_conf(conf)
#endif

/* 26.05: one job's information is asked for by a slurm_step_id_t (its
 * job id with the step fields unset), no longer a plain job id (without
 * SLURM_BACKWARD_COMPAT). */
#if GQ_SLURM_AT_LEAST(26, 5)
static inline int gq_load_job(job_info_msg_t **resp, uint32_t job_id,
			      uint16_t show_flags)
{
	slurm_step_id_t step_id = SLURM_STEP_ID_INITIALIZER;

	step_id.job_id = job_id;
	return slurm_load_job(resp, step_id, show_flags);
}
#else
#define gq_load_job(resp, job_id, show_flags) \
	slurm_load_job(resp, job_id, show_flags)
#endif

/* The command includes this file with GQ_SLURM_PUBLIC_ONLY defined: what
 * follows needs Slurm's internal headers (the plugins). */
#ifndef GQ_SLURM_PUBLIC_ONLY

#include "src/common/assoc_mgr.h"
#include "src/common/bitstring.h"
#include "src/common/job_resources.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/run_in_daemon.h"
#include "src/common/slurm_protocol_api.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

/* 23.02: the plugin interfaces moved from src/common and src/slurmctld
 * to src/interfaces. */
#if GQ_SLURM_AT_LEAST(23, 2)
#include "src/interfaces/gres.h"
#include "src/interfaces/preempt.h"
#include "src/interfaces/priority.h"
#else
#include "src/common/gres.h"
#include "src/common/slurm_priority.h"
#include "src/slurmctld/preempt.h"
#endif

/* Topology: src/interfaces from 23.02, as the other plugin interfaces,
 * its calls named topology_g_* there (checked on 23.11.4 on). */
#if GQ_SLURM_AT_LEAST(23, 2)
#include "src/interfaces/topology.h"
#define gq_topo_node_addr(name, addr, pattern) \
	topology_g_get_node_addr(name, addr, pattern)
#else
#include "src/common/slurm_topology.h"
#define gq_topo_node_addr(name, addr, pattern) \
	slurm_topo_get_node_addr(name, addr, pattern)
#endif

/* Is the topology a tree or blocks?  25.05: topology.yaml may name it,
 * whatever slurm.conf's TopologyPlugin says: the loaded plugin's id. */
#if GQ_SLURM_AT_LEAST(25, 5)
static inline bool gq_topo_tree_or_block(void)
{
	int id;

	if (!slurm_conf.topology_plugin)	/* not read yet */
		return false;
	id = topology_get_plugin_id();
	return id == TOPOLOGY_PLUGIN_TREE || id == TOPOLOGY_PLUGIN_BLOCK;
}
#else
static inline bool gq_topo_tree_or_block(void)
{
	const char *p = slurm_conf.topology_plugin;

	return p && (strstr(p, "tree") || strstr(p, "block"));
}
#endif

/* MCS: src/interfaces from 23.02, as the other plugin interfaces. */
#if GQ_SLURM_AT_LEAST(23, 2)
#include "src/interfaces/mcs.h"
#else
#include "src/common/slurm_mcs.h"
#endif

/*
 * 26.05: threads come from a pool (src/common/threadpool.h):
 * slurm_thread_create takes the thread's name first, and a pooled thread
 * never exits, so it is joined with slurm_thread_join (pthread_join would
 * wait forever).  gq_thread_create(name, id, func, arg), gq_thread_join(id).
 */
#if GQ_SLURM_AT_LEAST(26, 5)
#include "src/common/threadpool.h"
#define gq_thread_create(name, id, func, arg) \
	slurm_thread_create(name, id, func, arg)
#define gq_thread_join(id) slurm_thread_join(id)
#else
#define gq_thread_create(name, id, func, arg) slurm_thread_create(id, func, arg)
#define gq_thread_join(id) pthread_join(id, NULL)
#endif

/* assoc_mgr_is_user_acct_coord: a fourth argument (is_locked) in 24.11's
 * headers, not 22.05's; keyed on 24.11, the first release checked here to
 * have it. */
#if GQ_SLURM_AT_LEAST(24, 11)
#define gq_is_user_acct_coord(uid, acct) \
	assoc_mgr_is_user_acct_coord(acct_db_conn, uid, acct, false)
#else
#define gq_is_user_acct_coord(uid, acct) \
	assoc_mgr_is_user_acct_coord(acct_db_conn, uid, acct)
#endif

/* Lists are list_t / list_itr_t in 24.11; 22.05 has only List and
 * ListIterator, pointer typedefs of the same structs.  (C11 allows the
 * same typedef twice: no version needed.) */
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;

/* 26.05: slurmctld_lock_t has a sixth lock, select_node (for the nodes'
 * node_select_stats, which gpuquota does not read): the glue names the
 * locks it takes (.job = READ_LOCK), the others are NO_LOCK. */

/* 26.05: the sprio object's job_id became step_id (job id and sluid). */
#if GQ_SLURM_AT_LEAST(26, 5)
#define gq_factors_set_job(obj, job_ptr) \
	((obj)->step_id = STEP_ID_FROM_JOB_RECORD(job_ptr))
#else
#define gq_factors_set_job(obj, job_ptr) ((obj)->job_id = (job_ptr)->job_id)
#endif

/*
 * A job's per-partition priorities (multifactor fills them for a job
 * listing several partitions): job_ptr->priority_array up to 23.11 (one
 * per partition); 24.11.5: job_ptr->part_prio->priority_array (a
 * priority_mult_t); 25.05.8: job_ptr->prio_mult->priority_array (one per
 * partition and QOS, as a job may ask for several QOS).  Each keyed on the
 * first release checked here to have it.  gq_prio_array(job): the array
 * or NULL; gq_prio_array_cnt(job): its length (from 24.11 its allocation,
 * which a QOS update leaves as it is).
 */
#if GQ_SLURM_AT_LEAST(25, 5)
#define gq_prio_array(job_ptr) \
	((job_ptr)->prio_mult ? (job_ptr)->prio_mult->priority_array : NULL)
#elif GQ_SLURM_AT_LEAST(24, 11)
#define gq_prio_array(job_ptr) \
	((job_ptr)->part_prio ? (job_ptr)->part_prio->priority_array : NULL)
#endif
#if GQ_SLURM_AT_LEAST(24, 11)
#define gq_prio_array_cnt(job_ptr) \
	((int)(xsize(gq_prio_array(job_ptr)) / sizeof(uint32_t)))
#else
#define gq_prio_array(job_ptr) \
	((job_ptr)->part_ptr_list ? (job_ptr)->priority_array : NULL)
#define gq_prio_array_cnt(job_ptr) list_count((job_ptr)->part_ptr_list)
#endif

/* A plugin loader's failure (errno after plugin_load_and_link): 22.05's
 * plugin_err_t with its own text; 23.11.4's ESLURM_PLUGIN_* Slurm errors.
 * Keyed on 23.11, the first release checked here to have them. */
#if GQ_SLURM_AT_LEAST(23, 11)
#define gq_plugin_strerror(e) slurm_strerror(e)
#else
#define gq_plugin_strerror(e) plugin_strerror((plugin_err_t)(e))
#endif

/* 23.02: struct job_details became job_details_t (src/common/job_record.h). */
#if !GQ_SLURM_AT_LEAST(23, 2)
typedef struct job_details job_details_t;
#endif

/* job_reason_string() became job_state_reason_string(): 23.11.4 has the
 * old name; keyed on 24.11, the first release checked here to have it. */
#if !GQ_SLURM_AT_LEAST(24, 11)
#define job_state_reason_string(r) ((const char *)job_reason_string(r))
#endif

/*
 * slurmdbd's copy of a job's text (plugins/reclaim_note.c): every release
 * from 22.05 to 26.05 sends admin_comment with a job's end (a requeue's
 * included) and never system_comment (accounting_storage_slurmdbd.c,
 * jobacct_storage_p_job_complete): no difference to key here.
 */

/* 25.11: job_requeue(uid, job_id, msg, ...) became
 * job_requeue_internal(uid, job_ptr, ...) (and job_requeue_external). */
#if !GQ_SLURM_AT_LEAST(25, 11)
#define job_requeue_internal(uid, job_ptr, preempt, flags) \
	job_requeue(uid, (job_ptr)->job_id, NULL, preempt, flags)
#endif

/*
 * priority_p_get_priority_factors_list: up to 23.11 it gets sprio's
 * request and filters by job, user and partition itself (from 23.02's
 * sprio the request is NULL: sprio filters); from 24.05 it gets only the
 * uid.  22.05's takes the job and partition read locks; 23.11.4's
 * slurmctld holds the job, node and partition read locks.  Its objects:
 * in 22.05 the factors are fields of the object (partition not freed with
 * it); in 23.11.4 they are a priority_factors_t the object points to, and
 * the object's strings are freed with it.  Both keyed on 23.11, the first
 * release checked here to have them.
 * GQ_PRIORITY_FACTORS_ENTRY(fn) defines the entry point over
 *	list_t *fn(const gq_factors_req_t *req, uid_t uid, bool locked)
 * gq_factors_wanted(req, job): does sprio's request name this job?
 * gq_factors_new(job, site, fs): the object for one job, for a list made
 * with slurm_destroy_priority_factors_object.
 */
#if GQ_SLURM_AT_LEAST(23, 11)
static inline priority_factors_object_t *gq_factors_new(job_record_t *job_ptr,
							uint32_t site,
							double fs)
{
	priority_factors_object_t *obj = xmalloc(sizeof(*obj));

	obj->account = xstrdup(job_ptr->account);
	gq_factors_set_job(obj, job_ptr);
	obj->partition = xstrdup(job_ptr->part_ptr->name);
	obj->qos = job_ptr->qos_ptr ? xstrdup(job_ptr->qos_ptr->name) : NULL;
	obj->user_id = job_ptr->user_id;
	if (job_ptr->direct_set_prio) {
		obj->direct_prio = job_ptr->priority;
	} else {
		obj->prio_factors = xmalloc(sizeof(*obj->prio_factors));
		obj->prio_factors->nice = NICE_OFFSET;
		obj->prio_factors->priority_site = site;
		obj->prio_factors->priority_fs = fs;
	}
	return obj;
}
#else
static inline priority_factors_object_t *gq_factors_new(job_record_t *job_ptr,
							uint32_t site,
							double fs)
{
	priority_factors_object_t *obj = xmalloc(sizeof(*obj));

	obj->job_id = job_ptr->job_id;
	obj->user_id = job_ptr->user_id;
	obj->partition = job_ptr->part_ptr->name;
	obj->nice = NICE_OFFSET;
	if (job_ptr->direct_set_prio) {
		obj->direct_prio = job_ptr->priority;
	} else {
		obj->priority_site = site;
		obj->priority_fs = fs;
	}
	return obj;
}
#endif

#if GQ_SLURM_AT_LEAST(24, 5)
typedef struct gq_no_factors_request gq_factors_req_t;

static inline bool gq_factors_wanted(const gq_factors_req_t *req,
				     job_record_t *job_ptr)
{
	return true;
}

#define GQ_PRIORITY_FACTORS_ENTRY(fn)					\
	extern list_t *priority_p_get_priority_factors_list(uid_t uid)	\
	{								\
		return fn(NULL, uid, true);				\
	}
/* another priority plugin's entry point (multifactor.c), and a call */
typedef list_t *(*gq_factors_fn)(uid_t uid);
#define gq_factors_call(fn, req, uid) (fn)(uid)
#else
typedef list_t *(*gq_factors_fn)(priority_factors_request_msg_t *req,
				 uid_t uid);
#define gq_factors_call(fn, req, uid) \
	(fn)((priority_factors_request_msg_t *)(req), uid)
typedef priority_factors_request_msg_t gq_factors_req_t;

static inline bool gq_listed(list_t *l, uint32_t id)
{
	list_itr_t *it;
	uint32_t *p;
	bool found = false;

	if (!l)
		return true;
	it = list_iterator_create(l);
	while (!found && (p = list_next(it)))
		found = (*p == id);
	list_iterator_destroy(it);
	return found;
}

static inline bool gq_factors_wanted(const gq_factors_req_t *req,
				     job_record_t *job_ptr)
{
	return !req ||
	       (gq_listed(req->job_id_list, job_ptr->job_id) &&
		gq_listed(req->uid_list, job_ptr->user_id) &&
		(!req->partitions ||
		 xstrstr(req->partitions, job_ptr->part_ptr->name)));
}

#define GQ_PRIORITY_FACTORS_ENTRY(fn)					\
	extern list_t *priority_p_get_priority_factors_list(		\
		priority_factors_request_msg_t *req_msg, uid_t uid)	\
	{								\
		return fn(req_msg, uid, GQ_SLURM_AT_LEAST(23, 11));	\
	}
#endif

/*
 * 23.02: priority_p_recover (after job state is loaded: returns the boost
 * slurmctld adds to every recovered priority; gpuquota's next pass sets
 * them, so none but multifactor's, which it forwards to).  priority_p_thread_start (after init and the state's
 * load: where a plugin starts its threads): not in 23.11.4's ops; keyed
 * on 24.11, the first release checked here to have it.  Before, init
 * starts them.  GQ_PRIORITY_THREAD_ENTRIES(start) defines the entry points
 * a version has; GQ_PRIORITY_START_IN_INIT says whether init must call
 * `start` itself.
 */
#if GQ_SLURM_AT_LEAST(24, 11)
#define GQ_PRIORITY_START_IN_INIT 0
#define GQ_PRIORITY_THREAD_ENTRIES(start)				\
	extern uint32_t priority_p_recover(uint32_t prio_boost)		\
	{								\
		return gq_mf_recover(prio_boost);			\
	}								\
	extern int priority_p_thread_start(void)			\
	{								\
		start();						\
		return SLURM_SUCCESS;					\
	}
#elif GQ_SLURM_AT_LEAST(23, 2)
#define GQ_PRIORITY_START_IN_INIT 1
#define GQ_PRIORITY_THREAD_ENTRIES(start)				\
	extern uint32_t priority_p_recover(uint32_t prio_boost)		\
	{								\
		return gq_mf_recover(prio_boost);			\
	}
#else
#define GQ_PRIORITY_START_IN_INIT 1
#define GQ_PRIORITY_THREAD_ENTRIES(start)
#endif

/*
 * The preempt plugin's answers about a job: one preempt_p_get_data(job,
 * PREEMPT_DATA_*, data) up to 24.11; from 25.05 one entry point each,
 * preempt_p_get_mode, _get_prio and _get_grace_time (25.05.8's ops), and
 * slurmctld itself says whether preemption is enabled.
 * GQ_PREEMPT_DATA_ENTRIES(enabled, mode, prio, grace) defines them over
 *	bool enabled(void) (asked up to 24.11 only);
 *	uint16_t mode(job_record_t *);  uint32_t prio(job_record_t *);
 *	uint32_t grace(job_record_t *);
 */
#if GQ_SLURM_AT_LEAST(25, 5)
#define GQ_PREEMPT_DATA_ENTRIES(enabled, mode, prio, grace)			\
	extern uint16_t preempt_p_get_mode(job_record_t *job_ptr)	\
	{								\
		return mode(job_ptr);					\
	}								\
	extern uint32_t preempt_p_get_prio(job_record_t *job_ptr)	\
	{								\
		return prio(job_ptr);					\
	}								\
	extern uint32_t preempt_p_get_grace_time(job_record_t *job_ptr) \
	{								\
		return grace(job_ptr);					\
	}
#else
#define GQ_PREEMPT_DATA_ENTRIES(enabled, mode, prio, grace)			\
	extern int preempt_p_get_data(job_record_t *job_ptr,		\
				      slurm_preempt_data_type_t data_type, \
				      void *data)			\
	{								\
		switch (data_type) {					\
		case PREEMPT_DATA_ENABLED:				\
			*(bool *)data = enabled();			\
			break;						\
		case PREEMPT_DATA_MODE:					\
			*(uint16_t *)data = mode(job_ptr);		\
			break;						\
		case PREEMPT_DATA_PRIO:					\
			*(uint32_t *)data = prio(job_ptr);		\
			break;						\
		case PREEMPT_DATA_GRACE_TIME:				\
			*(uint32_t *)data = grace(job_ptr);		\
			break;						\
		default:						\
			error("%s: unknown enum %d", __func__, data_type); \
			return SLURM_ERROR;				\
		}							\
		return SLURM_SUCCESS;					\
	}
#endif

/*
 * priority_p_calc_fs_factor: up to 25.05 every priority plugin has it
 * (multifactor's, forwarded; 0 without it); 25.11 dropped it
 * (25.11.7's ops).
 */
#if GQ_SLURM_AT_LEAST(25, 11)
#define GQ_PRIORITY_FS_FACTOR_ENTRY
#else
#define GQ_PRIORITY_FS_FACTOR_ENTRY					\
	extern double priority_p_calc_fs_factor(long double usage_efctv, \
						long double shares_norm) \
	{								\
		return gq_mf_calc_fs_factor(usage_efctv, shares_norm);	\
	}
#endif

/*
 * job_submit's job_modify: an err_msg for the user from 23.02 (NEWS:
 * "job_submit/lua - add support for log_user() from slurm_job_modify()";
 * 23.11.4's ops).
 */
#if GQ_SLURM_AT_LEAST(23, 2)
#define GQ_JOB_MODIFY_ERR_MSG , char **err_msg
#else
#define GQ_JOB_MODIFY_ERR_MSG
#endif

#endif /* !GQ_SLURM_PUBLIC_ONLY */

#endif
