/*
 * state.h - the one gpuquota state of a process, shared by the plugins.
 *
 * Owns: the current configuration, its source path and the current view.
 * Slurm dlopen()s each plugin with RTLD_LOCAL, so priority/gpuquota and
 * preempt/gpuquota meet here, in libgpuquota.so, which the dynamic loader
 * loads once for both.  Callers hold gq_state_lock() around any use.
 */
#ifndef GPUQUOTA_STATE_H
#define GPUQUOTA_STATE_H

#include "config/config.h"
#include "core/view.h"

typedef struct {
	gq_config_t *config;	/* last good configuration */
	char *config_path;
	gq_view_t *view;	/* NULL until the first pass */
	long passes;		/* completed passes */
} gq_state_t;

gq_state_t *gq_state(void);
void gq_state_lock(void);
void gq_state_unlock(void);

/*
 * Load the file at path and, when it is good, make it current (a new empty
 * view is created for it).  A bad file leaves the current configuration in
 * place.  Returns 0 or -1 with the reason in err.  Caller holds the lock.
 */
int gq_state_load(const char *path, char *err, size_t errlen);

/* Drop everything (plugin unload). Caller holds the lock. */
void gq_state_clear(void);

#endif
