/*
 * sacctmgr.c - runs sacctmgr without a shell and reads its parsable output
 * (see sacctmgr.h), and the `gpuquota sync` command.
 *
 * sacctmgr is started with fork and execvp on an argument vector; its
 * stdout, when read, comes through a pipe.  -n -P output is one row a line,
 * fields separated by '|'.
 */
#define _GNU_SOURCE	/* pipe2, asprintf */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/wait.h>

#include <slurm/slurm.h>

/* public API only: the command links libslurm */
#define GQ_SLURM_PUBLIC_ONLY
#include "shared/slurm_compat.h"
#include "cli/sacctmgr.h"

#define SACCTMGR "sacctmgr"
#define EXIT_NOT_RUN 127	/* the child could not run sacctmgr */

/* ---- running sacctmgr ---------------------------------------------------- */

/* Make fd the child's target, open across exec. */
static int _redirect(int fd, int target)
{
	if (fd == target)	/* already there: only drop O_CLOEXEC */
		return fcntl(fd, F_SETFD, 0);
	return dup2(fd, target) < 0 ? -1 : 0;
}

/*
 * Start argv (argv[0] is the program, found in PATH).  With out, its stdout
 * is a pipe opened as *out and its stderr /dev/null; else it shares ours.
 * Returns its pid, -1 when it cannot be started.
 */
static pid_t _spawn(char *const *argv, FILE **out)
{
	int fds[2] = { -1, -1 }, null = -1, e;
	pid_t pid;

	if (out) {
		if (pipe2(fds, O_CLOEXEC))
			return -1;
		if ((null = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
			goto fail;
	}
	/* what we printed comes before what it prints */
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) < 0)
		goto fail;
	if (pid == 0) {
		if (out && (_redirect(fds[1], STDOUT_FILENO) ||
			    _redirect(null, STDERR_FILENO)))
			_exit(EXIT_NOT_RUN);
		execvp(argv[0], argv);
		_exit(EXIT_NOT_RUN);
	}
	if (out) {
		close(fds[1]);
		close(null);
		if (!(*out = fdopen(fds[0], "r"))) {
			close(fds[0]);
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
			return -1;
		}
	}
	return pid;
fail:
	e = errno;
	if (fds[0] >= 0) {
		close(fds[0]);
		close(fds[1]);
	}
	if (null >= 0)
		close(null);
	errno = e;
	return -1;
}

/* Reap pid: 0 when it exited with 0, else -1. */
static int _wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/*
 * Run argv and hand each line of its stdout (without the newline) to row,
 * which returns 0 or -1 to stop.  Returns 0 when every row was taken and
 * the command exited with 0, else -1.
 */
static int _read_rows(char *const *argv, int (*row)(char *line, void *arg),
		      void *arg)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	pid_t pid;
	int rc = 0;

	if ((pid = _spawn(argv, &f)) < 0)
		return -1;
	while (!rc && (len = getline(&line, &cap, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			line[len - 1] = '\0';
		rc = row(line, arg);
	}
	if (!rc && !feof(f))	/* a read error or out of memory */
		rc = -1;
	free(line);
	/* closed before the wait: a sacctmgr still writing gets EPIPE */
	if (fclose(f))
		rc = -1;
	if (_wait(pid))
		rc = -1;
	return rc;
}

/* The first n '|'-separated fields of line; missing ones are "". */
static void _fields(char *line, char **f, int n)
{
	int i;

	for (i = 0; i < n; i++)
		f[i] = line ? strsep(&line, "|") : "";
}

int gq_sacctmgr_run(const gq_cmd_t *cmd)
{
	char **argv;
	pid_t pid;
	int i;

	if (!(argv = calloc(cmd->argc + 3, sizeof(*argv))))
		return -1;
	argv[0] = SACCTMGR;
	argv[1] = "-i";
	for (i = 0; i < cmd->argc; i++)
		argv[i + 2] = cmd->argv[i];
	pid = _spawn(argv, NULL);
	free(argv);
	return pid < 0 ? -1 : _wait(pid);
}

/* ---- account associations ------------------------------------------------ */

void gq_sacctmgr_accounts_free(gq_accts_t *a)
{
	int i;

	for (i = 0; i < a->n; i++) {
		free((char *)a->a[i].name);
		free((char *)a->a[i].parent);
		free((char *)a->a[i].grptres);
	}
	free(a->a);
	memset(a, 0, sizeof(*a));
}

/* A user's association counts on its account: sacctmgr lists an account
 * before its users, so the latest of that name. */
static void _user_row(gq_accts_t *out, const char *account)
{
	int i;

	for (i = out->n - 1; i >= 0; i--)
		if (!strcasecmp(out->a[i].name, account)) {
			out->a[i].nusers++;
			return;
		}
}

/* Account|User|ParentName|GrpTRES */
static int _assoc_row(char *line, void *arg)
{
	gq_accts_t *out = arg;
	char *f[4];
	gq_acct_t *na, *a;

	_fields(line, f, 4);
	if (!*f[0])
		return 0;
	if (*f[1]) {
		_user_row(out, f[0]);
		return 0;
	}
	if (!(na = realloc(out->a, sizeof(*na) * (out->n + 1))))
		return -1;
	out->a = na;
	a = &na[out->n];
	memset(a, 0, sizeof(*a));
	a->name = strdup(f[0]);
	a->parent = strdup(*f[2] ? f[2] : "root");
	a->grptres = strdup(f[3]);
	a->gpu_limit = gq_sync_grptres_gpus(f[3]);
	out->n++;	/* counted now so that the free below frees it */
	return a->name && a->parent && a->grptres ? 0 : -1;
}

int gq_sacctmgr_accounts(const char *cluster, gq_accts_t *out)
{
	char *where = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (asprintf(&where, "cluster=%s", cluster) < 0)
		return -1;
	{
		char *argv[] = { SACCTMGR, "-n", "-P", "show", "assoc", where,
				 "format=Account,User,ParentName,GrpTRES",
				 NULL };

		rc = _read_rows(argv, _assoc_row, out);
	}
	free(where);
	if (rc)
		gq_sacctmgr_accounts_free(out);
	return rc;
}

/* ---- QOS priorities ------------------------------------------------------ */

void gq_sacctmgr_qos_free(gq_qos_table_t *t)
{
	int i;

	for (i = 0; i < t->n; i++)
		free(t->q[i].name);
	free(t->q);
	memset(t, 0, sizeof(*t));
}

/* Name|Priority; sacctmgr leaves Priority empty when it is not set */
static int _qos_row(char *line, void *arg)
{
	gq_qos_table_t *t = arg;
	unsigned long prio = 0;
	char *f[2], *end;
	gq_qos_t *nq;

	_fields(line, f, 2);
	if (!*f[0])
		return 0;
	if (*f[1]) {
		errno = 0;
		prio = strtoul(f[1], &end, 10);
		if (*f[1] < '0' || *f[1] > '9' || *end || errno ||
		    prio > UINT32_MAX)
			return -1;
	}
	if (!(nq = realloc(t->q, sizeof(*nq) * (t->n + 1))))
		return -1;
	t->q = nq;
	if (!(nq[t->n].name = strdup(f[0])))
		return -1;
	nq[t->n++].priority = (uint32_t)prio;
	return 0;
}

int gq_sacctmgr_qos(gq_qos_table_t *out)
{
	char *argv[] = { SACCTMGR, "-n", "-P", "show", "qos",
			 "format=Name,Priority", NULL };
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = _read_rows(argv, _qos_row, out)))
		gq_sacctmgr_qos_free(out);
	return rc;
}

const gq_qos_t *gq_sacctmgr_qos_find(const gq_qos_table_t *t,
				     const char *name)
{
	int i;

	for (i = 0; name && i < t->n; i++)
		if (!strcasecmp(t->q[i].name, name))
			return &t->q[i];
	return NULL;
}

uint32_t gq_sacctmgr_qos_priority(const char *name, void *table)
{
	const gq_qos_t *q = gq_sacctmgr_qos_find(table, name);

	return q ? q->priority : 0;
}

/* ---- gpuquota sync ------------------------------------------------------- */

bool gq_sacctmgr_is_dbd(const slurm_conf_t *conf)
{
	return conf->accounting_storage_type &&
	       strstr(conf->accounting_storage_type, "slurmdbd");
}

static void _note(const char *line, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "gpuquota: note: %s\n", line);
}

/*
 * Walk plan: print each command after prefix and, when run is set, run it
 * and stop at a failure.  0, or 1 (out of memory or a failed command).
 */
static int _walk_plan(const gq_plan_t *plan, const char *prefix, bool run)
{
	int i, rc = 0;

	for (i = 0; i < plan->n && !rc; i++) {
		char *s = gq_sync_cmd_str(&plan->cmds[i]);

		if (!s) {
			fprintf(stderr, "gpuquota: out of memory\n");
			return 1;
		}
		printf("%ssacctmgr -i %s\n", prefix, s);
		if (run && gq_sacctmgr_run(&plan->cmds[i])) {
			fprintf(stderr, "gpuquota: failed: sacctmgr -i %s\n",
				s);
			rc = 1;
		}
		free(s);
	}
	return rc;
}

/* Ask on a terminal; stdin not one answers no. */
static bool _confirmed(int n)
{
	char line[64];

	if (!isatty(STDIN_FILENO))
		return false;
	printf("Apply these %d changes? [y/N] ", n);
	fflush(stdout);
	return fgets(line, sizeof(line), stdin) && gq_sync_answer_yes(line);
}

/* Print the plan, and run it when -i or the admin says yes. */
static int _run_plan(const gq_plan_t *plan, const char *cluster,
		     const gq_sync_flags_t *flags)
{
	if (!plan->n) {
		printf("gpuquota: slurmdbd accounts of %s already match the configuration\n",
		       cluster);
		return 0;
	}
	if (flags->immediate)
		return _walk_plan(plan, "", true);
	if (_walk_plan(plan, "would run: ", false))
		return 1;
	if (flags->dry_run)
		return 0;
	if (!_confirmed(plan->n)) {
		printf("gpuquota: nothing applied; use -i to apply without asking\n");
		return 0;
	}
	return _walk_plan(plan, "", true);
}

/*
 * With pools, each pool's GPU type Slurm can limit alone, from the nodes
 * and AccountingStorageTRES; types all NULL when nodes cannot be read
 * (said).  0, or -1 out of memory.
 */
static int _pool_types(const gq_config_t *cfg, const char *acct_tres,
		       char **types)
{
	node_info_msg_t *nodes = NULL;
	partition_info_msg_t *parts = NULL;
	gq_sync_node_t *sn = NULL;
	int i, rc = 0;

	for (i = 0; i < cfg->npools; i++)
		types[i] = NULL;
	if (!cfg->npools)
		return 0;
	if (slurm_load_node(0, &nodes, SHOW_ALL) ||
	    slurm_load_partitions(0, &parts, SHOW_ALL)) {
		_note("nodes not read: per-pool limits get no GrpTRES=gres/gpu:TYPE", NULL);
		goto out;
	}
	slurm_populate_node_partitions(nodes, parts);
	if (!(sn = calloc(nodes->record_count + 1, sizeof(*sn)))) {
		rc = -1;
		goto out;
	}
	for (i = 0; i < (int)nodes->record_count; i++) {
		sn[i].gres = nodes->node_array[i].gres;
		sn[i].partitions = nodes->node_array[i].partitions;
	}
	rc = gq_sync_pool_types(cfg, sn, (int)nodes->record_count, acct_tres,
				types, _note, NULL);
out:
	free(sn);
	slurm_free_node_info_msg(nodes);
	slurm_free_partition_info_msg(parts);
	return rc;
}

/* Plan against slurmdbd's accounts and run the plan: an exit status. */
static int _sync(const gq_config_t *cfg, const char *cluster,
		 const char *acct_tres, const gq_sync_flags_t *flags)
{
	char *types[cfg->npools + 1];
	gq_sync_opts_t opts = { .reparent = flags->reparent,
				.pool_type = types, .note = _note };
	gq_accts_t have;
	gq_plan_t plan;
	int rc, k;

	if (gq_sacctmgr_accounts(cluster, &have)) {
		fprintf(stderr, "gpuquota: sacctmgr show assoc failed\n");
		return 1;
	}
	if (_pool_types(cfg, acct_tres, types) ||
	    gq_sync_plan(cfg, have.a, have.n, cluster, &opts, &plan)) {
		fprintf(stderr, "gpuquota: out of memory\n");
		rc = 1;
	} else {
		rc = _run_plan(&plan, cluster, flags);
		gq_sync_plan_free(&plan);
	}
	for (k = 0; k < cfg->npools; k++)
		free(types[k]);
	gq_sacctmgr_accounts_free(&have);
	return rc;
}

int gq_sync_command(const char *file, const gq_sync_flags_t *flags)
{
	slurm_conf_t *conf = NULL;
	gq_config_t *cfg = NULL;
	char err[GQ_ERR_MAX], *path, *cluster, *tres;
	int rc;

	if (slurm_load_ctl_conf(0, &conf)) {
		slurm_perror("gpuquota: slurm_load_ctl_conf");
		return 1;
	}
	if (!gq_sacctmgr_is_dbd(conf)) {
		fprintf(stderr, "gpuquota: sync needs AccountingStorageType=accounting_storage/slurmdbd (this cluster has %s)\n",
			conf->accounting_storage_type ?
			conf->accounting_storage_type : "none");
		gq_free_ctl_conf(conf);
		return 1;
	}
	path = file ? strdup(file) :
		gq_config_path(conf->slurm_conf, conf->priority_params);
	cluster = strdup(conf->cluster_name ? conf->cluster_name : "");
	tres = strdup(conf->accounting_storage_tres ?
		      conf->accounting_storage_tres : "");
	gq_free_ctl_conf(conf);
	if (!path || !cluster || !tres) {
		fprintf(stderr, "gpuquota: out of memory\n");
		rc = 1;
	} else if (gq_config_load(path, &cfg, err, sizeof(err))) {
		fprintf(stderr, "gpuquota: %s\n", err);
		rc = 2;
	} else {
		rc = _sync(cfg, cluster, tres, flags);
		gq_config_free(cfg);
	}
	free(path);
	free(cluster);
	free(tres);
	return rc;
}

int gq_sync_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "immediate", no_argument, NULL, 'i' },
		{ "reparent", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	gq_sync_flags_t flags = { 0 };
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "nih", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			flags.dry_run = true;
			break;
		case 'i':
			flags.immediate = true;
			break;
		case 'r':
			flags.reparent = true;
			break;
		case 'h':
			printf(GQ_SYNC_USAGE);
			return 0;
		default:
			fprintf(stderr, GQ_SYNC_USAGE);
			return 2;
		}
	}
	if (argc - optind > 1 || (flags.dry_run && flags.immediate)) {
		fprintf(stderr, GQ_SYNC_USAGE);
		return 2;
	}
	return gq_sync_command(optind < argc ? argv[optind] : NULL, &flags);
}
