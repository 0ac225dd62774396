/*
 * cli_opts.h - a gpuquota command's options, parsed the same way for
 * each command (gq_cli_options), and the JSON answer of a --json command
 * that fails (gq_cli_json_errors).
 */
#ifndef GPUQUOTA_CLI_CLI_OPTS_H
#define GPUQUOTA_CLI_CLI_OPTS_H

#include <stdbool.h>

/* A command line's options (cli_opts.c); each command takes some. */
typedef struct {
	bool json;		/* --json */
	bool noheader;		/* --noheader: no header line */
	bool parsable;		/* -P, --parsable: '|' between fields */
	bool dry_run;		/* -n, --dry-run */
	const char *accounts;	/* -A, --account: a comma list; NULL: all */
	const char *pools;	/* -p, --partition, --pool: a comma list */
	const char *jobs;	/* -j, --jobs: a comma list of job ids */
	const char *listen;	/* --listen ADDR:PORT */
	int cache;		/* --cache-seconds; 0: not given */
	const char *arg;	/* the one operand (FILE, JOBID), or NULL */
} gq_cli_opts_t;

/* The options a command takes (gq_cli_options' takes). */
enum {
	GQ_O_JSON = 1 << 0,	/* --json */
	GQ_O_TABLE = 1 << 1,	/* --noheader, -P/--parsable */
	GQ_O_ACCOUNT = 1 << 2,	/* -A/--account LIST */
	GQ_O_POOL = 1 << 3,	/* -p/--partition/--pool LIST */
	GQ_O_JOBS = 1 << 4,	/* -j/--jobs LIST */
	GQ_O_DRYRUN = 1 << 5,	/* -n/--dry-run */
	GQ_O_LISTEN = 1 << 6,	/* --listen, --cache-seconds */
	GQ_O_ARG = 1 << 7,	/* one operand */
};

/*
 * argv[0] is the command's name.  Fills o with what it takes; 0, or 2
 * after one line on stderr naming the option (or operand) refused.
 */
int gq_cli_options(int argc, char **argv, unsigned takes,
		   gq_cli_opts_t *o);

/*
 * Run fn(arg) with stderr kept aside, then copied to stderr; when fn
 * returns non-zero, or exits (libslurm's fatal()), {"error": the error
 * line} on stdout: a --json caller gets JSON whatever fails.  Returns
 * fn's status.
 */
int gq_cli_json_errors(int (*fn)(void *), void *arg);

#endif
