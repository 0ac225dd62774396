/*
 * ledger.c - `gpuquota ledger` (see ledger.h): its options, the files
 * found through slurm.conf's StateSaveLocation, the sums of
 * state/ledger.h printed as a table or as JSON (the same rows both ways).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>
#include <slurm/slurm.h>

/* public API only: the command links libslurm */
#define GQ_SLURM_PUBLIC_ONLY
#include "shared/slurm_compat.h"

#include "cli/ledger.h"
#include "state/ledger.h"
#include "state/metrics.h"
#include "tools/cli_text.h"
#include "tools/trusted_file.h"

typedef struct {
	gq_ledger_filter_t f;
	const char *dir;	/* --dir, or NULL */
	bool json;
	bool noheader;		/* --noheader */
	bool parsable;		/* -P, --parsable: '|' between fields */
} gq_ledger_opts_t;

static void _usage(FILE *f)
{
	fprintf(f, "Usage: gpuquota ledger [--since TIME] [--project P] [--by day|week] [--noheader] [-P|--parsable] [--json] [--dir DIR]\n");
}

/* 0, or 2 after the usage on stderr */
static int _options(int argc, char **argv, gq_ledger_opts_t *o)
{
	static const struct option opts[] = {
		{ "since", required_argument, NULL, 's' },
		{ "project", required_argument, NULL, 'p' },
		{ "by", required_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "noheader", no_argument, NULL, 'H' },
		{ "parsable", no_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	static char name[] = "gpuquota ledger";	/* getopt's messages */
	int opt;

	argv[0] = name;
	o->f.by = GQ_LEDGER_DAY;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "hjP", opts, NULL)) != -1) {
		if (opt == 's' && gq_time_arg(optarg, time(NULL), &o->f.since)) {
			fprintf(stderr, "gpuquota ledger: --since '%s': not a time (YYYY-MM-DD[THH:MM[:SS]] UTC, now-2h, -30m, -7d)\n",
				optarg);
			return 2;
		} else if (opt == 'H' || opt == 'P') {
			o->noheader |= opt == 'H';
			o->parsable |= opt == 'P';
		} else if (opt == 'p') {
			o->f.project = optarg;
		} else if (opt == 'b' && !strcmp(optarg, "day")) {
			o->f.by = GQ_LEDGER_DAY;
		} else if (opt == 'b' && !strcmp(optarg, "week")) {
			o->f.by = GQ_LEDGER_WEEK;
		} else if (opt == 'j') {
			o->json = true;
		} else if (opt == 'd') {
			o->dir = optarg;
		} else if (opt == 'h') {
			_usage(stdout);
			exit(0);
		} else if (opt != 's') {
			_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		_usage(stderr);
		return 2;
	}
	return 0;
}

/* <StateSaveLocation>/gpuquota-ledger of slurm.conf (or of --dir),
 * malloc'ed; NULL said on stderr */
static char *_path(const char *dir)
{
	slurm_conf_t *conf = NULL;
	char *path;

	if (dir)
		return gq_ledger_path(dir);
	slurm_init(NULL);
	if (slurm_load_ctl_conf(0, &conf)) {
		slurm_perror("gpuquota ledger: slurm_load_ctl_conf (--dir DIR reads a StateSaveLocation without slurmctld)");
		return NULL;
	}
	if (!conf->state_save_location) {
		fprintf(stderr, "gpuquota ledger: slurm.conf has no StateSaveLocation\n");
		gq_free_ctl_conf(conf);
		return NULL;
	}
	path = gq_ledger_path(conf->state_save_location);
	/* slurmctld writes the ledger as SlurmUser: its files are trusted,
	 * with root's and the caller's own (trusted_file.h).  With --dir
	 * (no slurm.conf read) only root's and the caller's: a copy of a
	 * StateSaveLocation is the caller's own. */
	gq_file_trust_owner((long)conf->slurm_user_id);
	gq_free_ctl_conf(conf);
	if (!path)
		fprintf(stderr, "gpuquota ledger: out of memory\n");
	return path;
}

/* a period's start as its name: its day (a week: its Monday) */
static const char *_period(int64_t at, gq_ledger_by_t by, char *buf,
			   size_t len)
{
	struct tm tm;
	time_t t = (time_t)at;

	if (by == GQ_LEDGER_ALL || !gmtime_r(&t, &tm))
		return "total";
	strftime(buf, len, "%Y-%m-%d", &tm);
	return buf;
}

/* DAY PROJECT LENT GPUS_LENT GPU_H_LOST BORROWED GPUS_BACK GPU_H_COST
 * OBSERVED */
static const gq_col_t _cols[] = {
	{ 11, false, 0 }, { 16, false, 0 }, { 8, true, 0 }, { 9, true, 0 },
	{ 11, true, 0 }, { 9, true, 0 }, { 10, true, 0 }, { 11, true, 0 },
	{ 9, true, 0 },
};
#define GQ_NCOLS ((int)(sizeof(_cols) / sizeof(_cols[0])))

static void _table(const gq_ledger_row_t *rows, int n, gq_ledger_by_t by,
		   bool parsable)
{
	char day[16], v[7][32];
	const char *cells[GQ_NCOLS] = { NULL, NULL, v[0], v[1], v[2], v[3],
					v[4], v[5], v[6] };
	int i;

	for (i = 0; i < n; i++) {
		cells[0] = _period(rows[i].period, by, day, sizeof(day));
		cells[1] = rows[i].project;
		snprintf(v[0], sizeof(v[0]), "%llu", (unsigned long long)rows[i].reclaims_lent);
		snprintf(v[1], sizeof(v[1]), "%llu", (unsigned long long)rows[i].gpus_lent);
		snprintf(v[2], sizeof(v[2]), "%.2f", rows[i].lost / 3600.0);
		snprintf(v[3], sizeof(v[3]), "%llu", (unsigned long long)rows[i].reclaims_borrowed);
		snprintf(v[4], sizeof(v[4]), "%llu", (unsigned long long)rows[i].gpus_borrowed);
		snprintf(v[5], sizeof(v[5]), "%.2f", rows[i].cost / 3600.0);
		snprintf(v[6], sizeof(v[6]), "%llu", (unsigned long long)rows[i].observed);
		gq_table_row(stdout, parsable, _cols, cells, GQ_NCOLS);
	}
}

static void _print_table(const gq_ledger_row_t *rows, int n,
			 const gq_ledger_row_t *tot, int ntot,
			 const gq_ledger_opts_t *o)
{
	const char *head[GQ_NCOLS] = {
		o->f.by == GQ_LEDGER_WEEK ? "WEEK" : "DAY", "PROJECT", "LENT",
		"GPUS_LENT", "GPU_H_LOST", "BORROWED", "GPUS_BACK",
		"GPU_H_COST", "OBSERVED",
	};

	if (!o->noheader)
		gq_table_row(stdout, o->parsable, _cols, head, GQ_NCOLS);
	_table(rows, n, o->f.by, o->parsable);
	_table(tot, ntot, GQ_LEDGER_ALL, o->parsable);
}

/* one row as JSON (NULL: memory) */
static json_object *_row(const gq_ledger_row_t *r, gq_ledger_by_t by)
{
	json_object *o = json_object_new_object();
	char day[16];

	if (!o)
		return NULL;
	if (by != GQ_LEDGER_ALL)
		json_object_object_add(o, by == GQ_LEDGER_WEEK ? "week" : "day",
				       json_object_new_string(_period(
					       r->period, by, day, sizeof(day))));
	json_object_object_add(o, "project", json_object_new_string(r->project));
	json_object_object_add(o, "reclaims_lent", json_object_new_uint64(r->reclaims_lent));
	json_object_object_add(o, "gpus_lent", json_object_new_uint64(r->gpus_lent));
	json_object_object_add(o, "gpu_seconds_lost", json_object_new_uint64(r->lost));
	json_object_object_add(o, "gpu_hours_lost", json_object_new_double(r->lost / 3600.0));
	json_object_object_add(o, "reclaims_borrowed", json_object_new_uint64(r->reclaims_borrowed));
	json_object_object_add(o, "gpus_borrowed", json_object_new_uint64(r->gpus_borrowed));
	json_object_object_add(o, "gpu_seconds_cost", json_object_new_uint64(r->cost));
	json_object_object_add(o, "gpu_hours_cost", json_object_new_double(r->cost / 3600.0));
	json_object_object_add(o, "reclaims_observed", json_object_new_uint64(r->observed));
	return o;
}

static json_object *_record(const gq_ledger_rec_t *r)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "at", json_object_new_int64(r->at));
	json_object_object_add(o, "pool", r->pool[0] ? json_object_new_string(r->pool) : NULL);
	json_object_object_add(o, "preemptor", json_object_new_int64(r->preemptor));
	json_object_object_add(o, "preemptor_project", json_object_new_string(r->preemptor_project));
	json_object_object_add(o, "reason", json_object_new_string(gq_ledger_reason(r->reason)));
	json_object_object_add(o, "victim", json_object_new_int64(r->victim));
	json_object_object_add(o, "victim_project", json_object_new_string(r->victim_project));
	json_object_object_add(o, "gpus", json_object_new_int64(r->gpus));
	json_object_object_add(o, "gpu_seconds_lost", json_object_new_uint64(r->lost));
	json_object_object_add(o, "stage", json_object_new_string(gq_ledger_stage_name(r->stage)));
	json_object_object_add(o, "end", json_object_new_int64(r->end));
	json_object_object_add(o, "observe", json_object_new_boolean(r->stage == GQ_LEDGER_OBSERVED));
	return o;
}

/* rows (or records) as a JSON array added to `root` under `key` */
static void _array(json_object *root, const char *key, const void *v,
		   int n, json_object *(*one)(const void *, gq_ledger_by_t),
		   size_t size, gq_ledger_by_t by)
{
	json_object *a = json_object_new_array();
	int i;

	for (i = 0; a && i < n; i++)
		json_object_array_add(a, one((const char *)v + i * size, by));
	json_object_object_add(root, key, a);
}

static json_object *_row_of(const void *v, gq_ledger_by_t by)
{
	return _row(v, by);
}

static json_object *_record_of(const void *v, gq_ledger_by_t by)
{
	(void)by;
	return _record(v);
}

static int _print_json(const gq_ledger_rec_t *r, int nr,
		       const gq_ledger_row_t *rows, int n,
		       const gq_ledger_row_t *tot, int ntot,
		       const gq_ledger_opts_t *o, int skipped)
{
	json_object *root = json_object_new_object();

	if (!root)
		return -1;
	json_object_object_add(root, "by", json_object_new_string(
		o->f.by == GQ_LEDGER_WEEK ? "week" : "day"));
	_array(root, "records", r, nr, _record_of, sizeof(*r), o->f.by);
	_array(root, "periods", rows, n, _row_of, sizeof(*rows), o->f.by);
	_array(root, "totals", tot, ntot, _row_of, sizeof(*tot),
	       GQ_LEDGER_ALL);
	json_object_object_add(root, "skipped_lines", json_object_new_int(skipped));
	printf("%s\n", json_object_to_json_string_ext(
			       root, JSON_C_TO_STRING_PRETTY |
					     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	return 0;
}

/* the records the filter keeps, in place: how many */
static int _keep(gq_ledger_rec_t *r, int n, const gq_ledger_filter_t *f)
{
	int i, m = 0;

	for (i = 0; i < n; i++)
		if (gq_ledger_keep(&r[i], f))
			r[m++] = r[i];
	return m;
}

static int _show(gq_ledger_rec_t *r, int n, const gq_ledger_opts_t *o,
		 int skipped)
{
	gq_ledger_filter_t all = o->f;
	gq_ledger_row_t *rows = NULL, *tot = NULL;
	int nrows = 0, ntot = 0, rc = -1;

	all.by = GQ_LEDGER_ALL;
	n = _keep(r, n, &o->f);
	if (!gq_ledger_sum(r, n, &o->f, &rows, &nrows) &&
	    !gq_ledger_sum(r, n, &all, &tot, &ntot)) {
		rc = 0;
		if (o->json)
			rc = _print_json(r, n, rows, nrows, tot, ntot, o,
					 skipped);
		else
			_print_table(rows, nrows, tot, ntot, o);
	}
	free(rows);
	free(tot);
	return rc;
}

int gq_ledger_command(int argc, char **argv)
{
	gq_ledger_opts_t o;
	gq_ledger_rec_t *r = NULL;
	char err[256], *path;
	int n = 0, skipped = 0, rc;

	memset(&o, 0, sizeof(o));
	if ((rc = _options(argc, argv, &o)))
		return rc;
	if (!(path = _path(o.dir)))
		return 1;
	rc = gq_ledger_read(path, &r, &n, &skipped, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "gpuquota ledger: %s%s\n", err,
			strstr(err, strerror(EACCES)) ? " (the ledger is slurmctld's: run as root or SlurmUser)" : "");
	} else if (_show(r, n, &o, skipped)) {
		fprintf(stderr, "gpuquota ledger: out of memory\n");
		rc = -1;
	}
	if (!rc && skipped && !o.json)
		fprintf(stderr, "gpuquota ledger: %d line%s of %s not records (torn by a crash, or damaged): skipped\n",
			skipped, skipped == 1 ? "" : "s", path);
	free(r);
	free(path);
	return rc ? 1 : 0;
}
