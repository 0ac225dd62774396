/*
 * usage.h - fair share that remembers (settings.usage_half_life): each
 * project's GPU-seconds above its quota, decayed with a half-life, per
 * pool; and its file, <StateSaveLocation>/gpuquota-usage.json, so that it
 * survives slurmctld restarts (docs/MODEL.md "Fair share that remembers").
 *
 * The formula: over dt seconds in which project p holds b = max(0, a_p -
 * q_p) GPUs above its quota, with lambda = ln 2 / H,
 *     U' = U e^(-lambda dt) + b (1 - e^(-lambda dt)) / lambda,
 * so borrowing b GPUs for ever tends to U = b H / ln 2.  The surplus of
 * fair share (never the quota) is split by the weights
 *     w'_p = w_p / (1 + usage_weight U_p / (C H))
 * (gq_usage_weight; C the pool's GPUs).
 */
#ifndef GPUQUOTA_USAGE_H
#define GPUQUOTA_USAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/pools.h"

#define GQ_USAGE_FILE "gpuquota-usage.json"
#define GQ_USAGE_VERSION 1
/* Its size bound: an entry is at most about 220 bytes (two names of 64,
 * the keys, a number); 64 MB holds 300 000 (pool, project or account)
 * entries, more than a cluster's accounts times its pools.  A larger
 * file is refused. */
#define GQ_USAGE_FILE_BOUND (64UL << 20)

/*
 * Usage is kept by the project's identity, never by the name it is shown
 * by: a configured project by its configured name; an account no project
 * lists (account set) by the account's name in lower case, so that it
 * never shares a configured project's usage, nor another account's whose
 * name is shown alike.  The file writes an account's entry with "kind":
 * "account" (and its name as "project", so that an older reader still
 * reads the file); an entry without "kind" is a configured project's.
 */
typedef struct {
	char *pool;		/* "" without pools */
	char *project;		/* configured name, or the account's */
	bool account;		/* an account no project lists */
	double gpu_seconds;	/* U */
} gq_usage_entry_t;

typedef struct {
	gq_usage_entry_t *e;
	int n, cap;
	double at;		/* when U was last brought up to date; 0: never */
	bool decay_only;	/* loaded from a file: the next advance only
				 * decays (nobody knows what ran meanwhile) */
} gq_usage_t;

void gq_usage_free(gq_usage_t *u);

/* U of (pool, configured project), 0 when unknown.  O(log entries). */
double gq_usage_of(const gq_usage_t *u, const char *pool, const char *project);

/* U of (pool, an account no project lists, in lower case), 0 when
 * unknown.  O(log entries). */
double gq_usage_of_account(const gq_usage_t *u, const char *pool,
			   const char *account);

/*
 * Bring U up to `now` from what pools' last pass (p) shows each project
 * holds above its quota: decay, then add, per the formula above.  The
 * first call, or one after a file was loaded, only decays.  Projects gone
 * from the config keep decaying.  A `now` before the last (the clock
 * stepped back, or a file written with it ahead) changes no U and becomes
 * the reference: the next call decays and adds from it.  Returns 0 or -1
 * (memory).  O(entries x projects).
 */
int gq_usage_advance(gq_usage_t *u, const gq_pools_t *p, double half_life,
		     double now);

/* w' for a project of weight w and usage U in a pool of C GPUs. */
double gq_usage_weight(double w, double usage, double usage_weight,
		       double capacity, double half_life);

/* Give each view of p its projects' usage (gq_view_set_usage). */
void gq_usage_apply(const gq_usage_t *u, gq_pools_t *p, double usage_weight,
		    double half_life);

/* <dir>/gpuquota-usage.json, malloc'ed (NULL: memory). */
char *gq_usage_file_path(const char *dir);

/* Write u atomically (atomic_file.h).  0, or -1 with the reason in err. */
int gq_usage_file_write(const gq_usage_t *u, const char *path, char *err,
			size_t errlen);

/*
 * Read a file gq_usage_file_write wrote into *u (replacing it).  0; -1
 * with the file, key and value in err when it is not such a file, or the
 * reason it is refused (atomic_file.h: gq_state_file_json,
 * GQ_USAGE_FILE_BOUND) (*u is then empty); -2 when it does not exist.
 */
int gq_usage_file_read(const char *path, gq_usage_t *u, char *err,
		       size_t errlen);

#endif
