/*
 * sacctmgr.h - runs sacctmgr without a shell and reads its parsable output:
 * slurmdbd's account associations and QOS priorities for the gpuquota
 * command, and `gpuquota sync`, which runs the plan of sync.h (asking
 * first unless -i).
 *
 * Every command is an argument vector given to execvp: a name with a space
 * or a quote is one argument, and nothing is interpreted by a shell.
 */
#ifndef GPUQUOTA_SACCTMGR_H
#define GPUQUOTA_SACCTMGR_H

#include <stdbool.h>
#include <stdint.h>

#include <slurm/slurm.h>

#include "cli/sync.h"

/* The account associations of a cluster (gq_acct_t: sync.h). */
typedef struct {
	gq_acct_t *a;		/* names and parents are malloc'ed */
	int n;
} gq_accts_t;

/* A QOS and its priority, as slurmctld weighs it. */
typedef struct {
	char *name;
	uint32_t priority;	/* 0 when not set */
} gq_qos_t;

typedef struct {
	gq_qos_t *q;
	int n;
} gq_qos_table_t;

/*
 * Run `sacctmgr -i ARGS...`, cmd holding the arguments after -i; its
 * output goes where ours goes.  Returns 0 when it exits with 0, -1
 * otherwise (cannot start, not found, killed, failed).
 */
int gq_sacctmgr_run(const gq_cmd_t *cmd);

/*
 * The account associations of cluster (rows without a user) from
 * `sacctmgr -n -P show assoc cluster=NAME
 * format=Account,User,ParentName,GrpTRES`.  Returns 0, or -1 when sacctmgr
 * fails or memory runs out; *out is then empty.  Free with
 * gq_sacctmgr_accounts_free.
 */
int gq_sacctmgr_accounts(const char *cluster, gq_accts_t *out);
void gq_sacctmgr_accounts_free(gq_accts_t *a);

/*
 * Every QOS and its priority, from `sacctmgr -n -P show qos
 * format=Name,Priority`.  Returns 0, or -1 when sacctmgr fails, prints a
 * priority that is not a number, or memory runs out; *out is then empty.
 */
int gq_sacctmgr_qos(gq_qos_table_t *out);

/* The QOS called name (compared without case), or NULL. */
const gq_qos_t *gq_sacctmgr_qos_find(const gq_qos_table_t *t,
				     const char *name);

/*
 * The priority of the QOS called name, 0 when t has none (as a QOS without
 * a priority weighs); a callback shape: table is a gq_qos_table_t.
 */
uint32_t gq_sacctmgr_qos_priority(const char *name, void *table);
void gq_sacctmgr_qos_free(gq_qos_table_t *t);

/* Does this cluster account through slurmdbd? */
bool gq_sacctmgr_is_dbd(const slurm_conf_t *conf);

/* How `gpuquota sync` runs its plan. */
typedef struct {
	bool dry_run;	/* only print the commands */
	bool immediate;	/* -i: run them without asking */
	bool reparent;	/* move accounts under the configuration's parent */
} gq_sync_flags_t;

#define GQ_SYNC_USAGE \
	"usage: gpuquota sync [-n|--dry-run] [-i|--immediate] [--reparent] [FILE]\n"

/*
 * gpuquota sync: make slurmdbd's accounts match the configuration (FILE,
 * or the one Slurm's configuration names) by running the plan of
 * gq_sync_plan.  It prints the plan and runs it with -i, or when the
 * admin answers y on a terminal; stdin not a terminal answers no.
 * Returns the command's exit status: 0, 1 (Slurm, sacctmgr or memory
 * failed), 2 (bad configuration).
 */
int gq_sync_command(const char *file, const gq_sync_flags_t *flags);

/* `gpuquota sync ARGS...`: argv[0] is "sync"; its own options. */
int gq_sync_main(int argc, char **argv);

#endif
