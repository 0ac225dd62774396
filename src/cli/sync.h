/*
 * sync.h - what `gpuquota sync` changes in slurmdbd so that Slurm's
 * accounts match gpuquota.json: missing accounts (departments as parent
 * accounts, projects' accounts under them) and GPU limits as association
 * GrpTRES=gres/gpu=N.  Pure planning; gq_sync_command (sacctmgr.h) runs
 * the plan with sacctmgr.
 */
#ifndef GPUQUOTA_SYNC_H
#define GPUQUOTA_SYNC_H

#include <stdbool.h>

#include "config/config.h"

/* An account association as slurmdbd has it. */
typedef struct {
	const char *name;
	const char *parent;	/* "root" at the top */
	long gpu_limit;		/* GrpTRES gres/gpu, -1 when not set */
	const char *grptres;	/* its whole GrpTRES, NULL or "" when none */
	int nusers;		/* its users' associations */
} gq_acct_t;

/* A node as the plan sees it: its gres and its partitions (a comma list). */
typedef struct {
	const char *gres;
	const char *partitions;
} gq_sync_node_t;

/*
 * How the plan treats what slurmdbd has.  reparent: move an account whose
 * parent differs from the configuration's (else only say so through
 * note).  pool_type: with pools, the GPU type of each pool that Slurm can
 * limit on its own (gq_sync_pool_types), NULL entries for none; NULL for
 * none at all.  note gets one line per thing the plan leaves to
 * gpuquota; it may be NULL.
 */
typedef struct {
	bool reparent;
	char *const *pool_type;
	void (*note)(const char *line, void *ctx);
	void *ctx;
} gq_sync_opts_t;

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

/* GrpTRES "gres/gpu:a100=4,gres/gpu=6" and type a100 -> 4; -1 when none. */
long gq_sync_grptres_typed(const char *grptres, const char *type);

/*
 * The GPU type of each pool that a typed GrpTRES (gres/gpu:TYPE=N) limits
 * exactly: every GPU on the pool's nodes is of that type, no node outside
 * the pool has GPUs of it, and AccountingStorageTRES (acct_tres) lists
 * gres/gpu:TYPE.  types[k] (npools of them) is malloc'ed, or NULL; for a
 * pool without one where some project or department has a limit, one
 * note says why.  Returns 0, -1 out of memory (types then all NULL).
 */
int gq_sync_pool_types(const gq_config_t *cfg, const gq_sync_node_t *nodes,
		       int nnodes, const char *acct_tres, char **types,
		       void (*note)(const char *line, void *ctx), void *ctx);

/*
 * Plan the commands: departments first, then projects' accounts.  A
 * project with several accounts gets its limit on each (a backstop: the
 * plugin enforces the project-wide limit).  With pools, the limit is
 * their sum (none when a pool has none), and each pool's own limit is a
 * typed GrpTRES where opts->pool_type names the pool's type, else a note.
 * An account under another parent moves only with opts->reparent.
 * Returns 0, -1 out of memory.
 */
int gq_sync_plan(const gq_config_t *cfg, const gq_acct_t *accts, int nacct,
		 const char *cluster, const gq_sync_opts_t *opts,
		 gq_plan_t *out);
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

/* Is line (as read, newline and all) a yes: "y" or "yes", any case? */
bool gq_sync_answer_yes(const char *line);

/*
 * A command for display: its arguments joined by spaces, each quoted for a
 * POSIX shell only where it needs it ("add account research Cluster=c1 ..."
 * as is, "modify account where 'name=team a' ...").  Malloc'ed; NULL out of
 * memory.
 */
char *gq_sync_cmd_str(const gq_cmd_t *cmd);

#endif
