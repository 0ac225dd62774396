/*
 * config.h - the gpuquota.json contract as plain C structs.
 *
 * Owns: the in-memory form of the configuration (projects, departments,
 * settings) and the loader's API. No json-c type leaks out of this header:
 * the core includes it to build its project table.
 */
#ifndef GPUQUOTA_CONFIG_H
#define GPUQUOTA_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#define GQ_NO_LIMIT (-1)	/* gpu_limit not set: unlimited */
#define GQ_ERR_MAX 1024	/* size of an error buffer for the loader */

/* Defaults of the "settings" object (documented in README.md). */
#define GQ_DEFAULT_MIN_RUNTIME 0	/* seconds before a job may be reclaimed */
#define GQ_DEFAULT_INTERVAL 2		/* seconds between recompute passes */
#define GQ_DEFAULT_GRACE_TIME 0		/* seconds a victim is warned before requeue */
#define GQ_GRACE_TIME_MAX 3600		/* longer keeps a preemptor waiting too long */
#define GQ_UNSET (-1)			/* a per-project setting not given */
#define GQ_DEFAULT_BUDGET_WINDOW 86400	/* requeue budget: a day */
#define GQ_BUDGET_WINDOW_MIN 3600
#define GQ_BUDGET_WINDOW_MAX 2592000	/* 30 days */
#define GQ_PATIENCE_MAX 86400		/* reclaim_patience: at most a day */
#define GQ_HALF_LIFE_MAX (366 * 86400)	/* usage_half_life: at most a year */
#define GQ_DEFAULT_USAGE_WEIGHT 1.0
/*
 * A weight (over_quota_weight, usage_weight) or a requeue budget is 0 or
 * from GQ_REAL_MIN to its max: sums of weights over any number of
 * projects, their ratios and their products with GPU counts stay finite
 * and far from the denormals (docs/MODEL.md "Settings").
 */
#define GQ_REAL_MIN 0.001
#define GQ_WEIGHT_MAX 1e6
#define GQ_BUDGET_MAX 1e9		/* GPU-hours */
#define GQ_DEFAULT_ROOM_WAIT 0		/* seconds freed GPUs are kept for an
					 * in-quota job without room (0: off;
					 * docs/MODEL.md "Holds" says why) */

/* A project's or department's numbers in one pool. */
typedef struct {
	int gpu_quota;		/* >= 0, default 0 */
	double over_quota_weight;	/* 0 or GQ_REAL_MIN..GQ_WEIGHT_MAX,
					 * default 1 */
	int gpu_limit;		/* >= gpu_quota, or GQ_NO_LIMIT (default) */
} gq_pool_numbers_t;

typedef struct {
	char *name;
	int gpu_quota;		/* >= 0 */
	double over_quota_weight;	/* 0 or GQ_REAL_MIN..GQ_WEIGHT_MAX,
					 * default 1 */
	int gpu_limit;		/* >= gpu_quota, or GQ_NO_LIMIT */
	gq_pool_numbers_t *by_pool;	/* with pools: npools of them */
} gq_dept_cfg_t;

typedef struct {
	char *name;
	int gpu_quota;
	double over_quota_weight;
	int gpu_limit;
	gq_pool_numbers_t *by_pool;	/* with pools: npools of them */
	int department;		/* index into gq_config_t.depts, -1 if none */
	char **accounts;	/* Slurm accounts; defaults to { name } */
	int naccounts;
	int grace_time;		/* seconds, or GQ_UNSET: settings.grace_time */
	double requeue_budget;	/* GPU-hours, or GQ_UNSET:
				 * settings.requeue_budget */
} gq_project_cfg_t;

/* A pool of GPUs: a set of Slurm partitions, its own model. */
typedef struct {
	char *name;
	char **partitions;	/* non-empty; a partition is in one pool */
	int npartitions;
} gq_pool_cfg_t;

#define GQ_MOVE_AGE_MAX 86400		/* move_age: at most a day */
#define GQ_DEFAULT_MOVE_WINDOW 3600	/* a job moved is not moved again
					 * within an hour */
#define GQ_MOVE_WINDOW_MAX 2592000	/* 30 days */
/* settings.mode: what a pass's decisions do to Slurm */
typedef enum {
	GQ_MODE_ENFORCE = 0,	/* holds, throttles, priorities, reclaims */
	GQ_MODE_OBSERVE,	/* decided, logged and counted only */
} gq_mode_t;

typedef struct {
	int min_runtime;	/* seconds */
	int grace_time;		/* seconds, 0..GQ_GRACE_TIME_MAX */
	int reclaim_patience;	/* seconds, 0..GQ_PATIENCE_MAX; 0: off */
	int usage_half_life;	/* seconds, 0..GQ_HALF_LIFE_MAX; 0: off */
	double usage_weight;	/* how much usage tilts the surplus: 0 or
				 * GQ_REAL_MIN..GQ_WEIGHT_MAX */
	int recompute_interval;	/* seconds, >= 1 */
	int room_wait;		/* seconds, >= 0 (0: off; docs/MODEL.md
				 * "Holds", room wait) */
	int move_age;		/* seconds, 0..GQ_MOVE_AGE_MAX: a job
				 * started or checkpointed less than this
				 * ago may be moved; 0: no move
				 * (docs/MODEL.md "Moves") */
	int move_window;	/* seconds, 0..GQ_MOVE_WINDOW_MAX: a job
				 * moved is not moved again within it */
	double requeue_budget;	/* GPU-hours of a project's work requeues
				 * may lose in a window (0 or
				 * GQ_REAL_MIN..GQ_BUDGET_MAX); 0: no budget
				 * (docs/MODEL.md "Requeue budget") */
	int requeue_budget_window;	/* seconds, GQ_BUDGET_WINDOW_MIN..MAX */
	bool multifactor;	/* delegate to Slurm's priority/multifactor
				 * (default true; read at slurmctld's start:
				 * docs/MODEL.md "Priority with multifactor") */
	gq_mode_t mode;		/* enforce (default) or observe: decide,
				 * apply nothing (docs/MODEL.md "Observe
				 * mode") */
	char **partitions;	/* NULL/0: every partition forms the pool */
	int npartitions;
} gq_settings_t;

/*
 * Without "pools" (npools 0) the file is one pool (settings.partitions,
 * or every partition) and the numbers are the gpu_quota, ... fields.
 * With pools, each project's and department's numbers in pool k are
 * by_pool[k] (a number in the file: the same in every pool; an object by
 * pool: a pool it leaves out gets quota 0, weight 1, no limit), and the
 * gpu_quota, ... fields are not used: gq_config_pool() gives pool k as a
 * configuration of its own, which is what the core works on.
 */
typedef struct {
	gq_project_cfg_t *projects;
	int nprojects;
	gq_dept_cfg_t *depts;
	int ndepts;
	gq_pool_cfg_t *pools;
	int npools;
	gq_settings_t settings;
} gq_config_t;

/*
 * Parse and validate a configuration.  On success returns 0 and sets *out.
 * On failure returns -1, leaves *out NULL and writes one line into err
 * (cut to errlen bytes; callers use GQ_ERR_MAX), naming the file (path),
 * the key and the offending value, e.g.
 *   "/etc/slurm/gpuquota.json: projects[1].gpu_quota: must be an integer >= 0, got -2"
 */
int gq_config_parse(const char *text, const char *path, gq_config_t **out,
		    char *err, size_t errlen);

/* Read the file at path and parse it (errors as above, plus I/O errors). */
int gq_config_load(const char *path, gq_config_t **out, char *err,
		   size_t errlen);

/* The same, and on success the file's exact text (NUL-terminated,
 * malloc'ed: the caller frees) into *text when text is not NULL. */
int gq_config_load_text(const char *path, gq_config_t **out, char **text,
			char *err, size_t errlen);

/*
 * gpuquota.json decides whose GPUs may be taken: from now on
 * gq_config_load refuses a file owned by anyone but root or `uid`
 * (SlurmUser), or writable by group or others ("cannot trust: ...").
 * A negative uid turns the check off (the default: `gpuquota check` of
 * a file in a user's checkout).  Set once, before loading.
 */
void gq_config_require_owner(long uid);

/* May c stand in a name of the file (letters, digits, '.', '_', '-')? */
bool gq_config_name_char(unsigned char c);

/* May s be a name of the file (1 to 64 such characters)? */
bool gq_config_name_ok(const char *s);

/*
 * The requeue budget of a project, GPU-hours (0: none): its own, else
 * settings.requeue_budget; an account no project lists gets the
 * settings'.  O(projects).
 */
double gq_config_requeue_budget(const gq_config_t *cfg, const char *project);

/* Does any project (or the settings, for accounts no project lists) have
 * a requeue budget?  Without one, losses are neither read nor counted. */
bool gq_config_has_budget(const gq_config_t *cfg);

/* An empty configuration (no projects): every account is a 0-quota project. */
gq_config_t *gq_config_empty(void);

void gq_config_free(gq_config_t *cfg);

/*
 * Pool k of a configuration as a configuration of its own, without
 * pools: every project and department with its numbers in pool k,
 * settings.partitions the pool's partitions.  A configuration without
 * pools is one pool, k 0: a copy of it.  A copy either way (free it with
 * gq_config_free); NULL when out of memory or k is not a pool.
 */
gq_config_t *gq_config_pool(const gq_config_t *cfg, int k);

/*
 * Where the configuration lives: `gpuquota_config=PATH` in Slurm's
 * PriorityParameters (a comma list), else gpuquota.json in the directory of
 * slurm.conf.  Returns a malloc'ed path (NULL when out of memory).
 */
char *gq_config_path(const char *slurm_conf_path, const char *priority_params);

#endif
