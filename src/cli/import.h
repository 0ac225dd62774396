/*
 * import.h - `gpuquota import`: a first gpuquota.json drafted from
 * slurmdbd's account tree, for the admin to edit.  The draft (rows in,
 * JSON out) needs no Slurm; the command reads the rows with sacctmgr.
 */
#ifndef GPUQUOTA_IMPORT_H
#define GPUQUOTA_IMPORT_H

#include <stdio.h>

#include "cli/sync.h"

/*
 * Write a gpuquota.json to out from the account rows (name, parent,
 * GrpTRES gpu limit, users), which `gpuquota check` accepts.  Each
 * account under root with users or sub-accounts is a project, with its
 * sub-accounts as its accounts, quota its GrpTRES gres/gpu (0 when not
 * set); one whose sub-accounts have sub-accounts of their own is a
 * department instead, each of its sub-accounts with users or
 * sub-accounts a project in it, its quota its GrpTRES gres/gpu or else
 * its projects' quotas added up.  What is left out, and why, goes to note
 * (one line each; may be NULL).  Returns 0, -1 out of memory or when out
 * fails.
 */
int gq_import_draft(const gq_acct_t *rows, int n, FILE *out,
		    void (*note)(const char *line, void *ctx), void *ctx);

/* `gpuquota import [-o FILE]`: argv[0] is "import".  An exit status. */
int gq_import_main(int argc, char **argv);

#endif
