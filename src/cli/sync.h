/*
 * sync.h - what `gpuquota sync` changes in slurmdbd so that Slurm's
 * accounts match gpuquota.json: missing accounts (departments as parent
 * accounts, projects' accounts under them) and GPU limits as association
 * GrpTRES=gres/gpu=N.  Pure planning; gq_sync_command (sacctmgr.h) runs
 * the plan with sacctmgr.
 */
#ifndef GPUQUOTA_SYNC_H
#define GPUQUOTA_SYNC_H

#include "config/config.h"

/* An account association as slurmdbd has it. */
typedef struct {
	const char *name;
	const char *parent;	/* "root" at the top */
	long gpu_limit;		/* GrpTRES gres/gpu, -1 when not set */
} gq_acct_t;

/*
 * One sacctmgr command: its arguments after `sacctmgr -i`, each a single
 * argument whatever it holds (an account "team a" gives "name=team a", never
 * two words).  argv[argc] is NULL; every string is malloc'ed.
 */
typedef struct {
	char **argv;
	int argc;
} gq_cmd_t;

typedef struct {
	gq_cmd_t *cmds;
	int n;
} gq_plan_t;

/* GrpTRES "cpu=4,gres/gpu=2" -> 2; -1 when there is no gres/gpu. */
long gq_sync_grptres_gpus(const char *grptres);

/*
 * Plan the commands: departments first, then projects' accounts.  A
 * project with several accounts gets its limit on each (a backstop: the
 * plugin enforces the project-wide limit).  Returns 0, -1 out of memory.
 */
int gq_sync_plan(const gq_config_t *cfg, const gq_acct_t *accts, int nacct,
		 const char *cluster, gq_plan_t *out);
void gq_sync_plan_free(gq_plan_t *plan);

/*
 * Slurm's own limits as a backstop of gpu_limit: for what gpuquota never
 * sees (an operator's `scontrol update job priority=N` takes a job out of
 * gpuquota's hands), only an association's GrpTRES=gres/gpu with
 * AccountingStorageEnforce=limits stops a start.  Calls warn once per
 * account that exists in slurmdbd and lacks the limit `gpuquota sync`
 * would set (none set, or a larger one), and once when `enforce_limits` is
 * false while some limit is configured.  Returns how many warnings.
 */
int gq_sync_backstop(const gq_config_t *cfg, const gq_acct_t *accts,
		     int nacct, bool enforce_limits,
		     void (*warn)(const char *line, void *ctx), void *ctx);

/*
 * A command for display: its arguments joined by spaces, each quoted for a
 * POSIX shell only where it needs it ("add account research Cluster=c1 ..."
 * as is, "modify account where 'name=team a' ...").  Malloc'ed; NULL out of
 * memory.
 */
char *gq_sync_cmd_str(const gq_cmd_t *cmd);

#endif
