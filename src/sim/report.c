/*
 * report.c - replays side by side (see report.h).
 */
#include <json-c/json.h>
#include <stdbool.h>
#include <string.h>

#include "sim/projects.h"
#include "sim/report.h"

/* One figure of an account, by index into gq_sim_figs. */
static double _fig(const gq_sim_acct_t *x, int k)
{
	switch (k) {
	case 0: return x->gpu_secs / 3600;
	case 1: return x->wait_p50 / 60;
	case 2: return x->wait_p95 / 60;
	case 3: return x->below_secs / 3600.0;
	case 4: return x->requeues;
	default: return x->lost_secs / 3600;
	}
}

static const char *const figs[] = {
	"GPU-hours", "wait p50 (minutes)", "wait p95 (minutes)",
	"hours below quota (with demand)", "requeues", "GPU-hours lost",
};
static const char *const keys[] = {
	"gpu_hours", "wait_p50_s", "wait_p95_s", "below_quota_s", "requeues",
	"gpu_hours_lost",
};
#define NFIGS 6

/* One row of table k: entry x of every configuration's `projects` or
 * `accounts` (their orders are the same). */
static void _row(FILE *f, const gq_sim_result_t *r, int n, bool projects,
		 int x, int k)
{
	const gq_sim_acct_t *e = projects ? &r[0].proj[x] : &r[0].acct[x];
	int c;

	fprintf(f, "%-16s %6g", e->account, e->quota);
	for (c = 0; c < n; c++)
		fprintf(f, " %12.2f", _fig(projects ? &r[c].proj[x] :
					   &r[c].acct[x], k));
	fputc('\n', f);
}

/* One table per figure: a row per entry of x (r[c].acct, or r[c].proj
 * when `projects`), a column per configuration; the accounts folded into
 * "(others)" (r->others) its one row in the accounts' tables too. */
static void _tables(FILE *f, const gq_sim_result_t *r, int n, bool projects)
{
	int k, a, c, others = n ? r[0].others : -1;

	for (k = 0; k < NFIGS; k++) {
		fprintf(f, "\n%s\n%-16s %6s", figs[k],
			projects ? "PROJECT" : "ACCOUNT", "QUOTA");
		for (c = 0; c < n; c++) {
			char col[16];

			snprintf(col, sizeof(col), "[%d]", c + 1);
			fprintf(f, " %12s", col);
		}
		fputc('\n', f);
		for (a = 0; n && a < (projects ? r[0].nproj : r[0].nacct); a++)
			if (projects || others < 0 ||
			    r[0].acct[a].project != others)
				_row(f, r, n, projects, a, k);
		if (!projects && others >= 0)
			_row(f, r, n, true, others, k);
	}
}

/* How many accounts "(others)" holds, in a line; none when no fold. */
static void _folded(FILE *f, const gq_sim_result_t *r)
{
	int a, n = 0;

	for (a = 0; r->others >= 0 && a < r->nacct; a++)
		n += r->acct[a].project == r->others;
	if (n)
		fprintf(f, "%s: %d accounts no project lists, one row (--all-accounts: a row each)\n",
			GQ_SIM_OTHERS, n);
}

void gq_sim_report_text(FILE *f, const gq_sim_result_t *r,
			const char *const *label, int n, bool accounts)
{
	char moves[48];
	int c;

	for (c = 0; c < n; c++) {
		moves[0] = 0;
		if (r[c].moves)	/* docs/MODEL.md "Moves" */
			snprintf(moves, sizeof(moves), " (%llu jobs moved)",
				 (unsigned long long)r[c].moves);
		fprintf(f, "[%d] %s: %llu passes, %llu reclaims%s, %.1f idle GPU-hours while jobs waited (%.1f fragmented, %.1f held, %.1f reserved), %.1f days\n",
			c + 1, label[c], (unsigned long long)r[c].passes,
			(unsigned long long)r[c].reclaims, moves,
			r[c].idle_waiting_secs / 3600,
			r[c].idle_fragmented_secs / 3600,
			r[c].idle_held_secs / 3600,
			r[c].idle_reserved_secs / 3600, r[c].span / 86400.0);
	}
	if (n)
		_folded(f, &r[0]);
	_tables(f, r, n, true);
	if (accounts)
		_tables(f, r, n, false);
}

/* An account's figures, or a project's (`what` "project"). */
static json_object *_acct(const gq_sim_acct_t *x, const char *what)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, what, json_object_new_string(x->account));
	json_object_object_add(o, "quota", json_object_new_double(x->quota));
	json_object_object_add(o, "jobs", json_object_new_int64(x->jobs));
	json_object_object_add(o, keys[0], json_object_new_double(x->gpu_secs / 3600));
	json_object_object_add(o, keys[1], json_object_new_double(x->wait_p50));
	json_object_object_add(o, keys[2], json_object_new_double(x->wait_p95));
	json_object_object_add(o, keys[3], json_object_new_int64(x->below_secs));
	json_object_object_add(o, keys[4], json_object_new_int64(x->requeues));
	json_object_object_add(o, keys[5], json_object_new_double(x->lost_secs / 3600));
	json_object_object_add(o, "never_started", json_object_new_int64(x->never_started));
	return o;
}

/* Project p of r: its figures and the accounts of the history in it. */
static json_object *_proj(const gq_sim_result_t *r, int p)
{
	json_object *o = _acct(&r->proj[p], "project"),
		    *accts = json_object_new_array();
	int a;

	for (a = 0; a < r->nacct; a++)
		if (r->acct[a].project == p)
			json_object_array_add(accts,
				json_object_new_string(r->acct[a].account));
	json_object_object_add(o, "accounts", accts);
	return o;
}

/* One configuration's replay, as JSON. */
static json_object *_config(const gq_sim_result_t *r, const char *label)
{
	json_object *o = json_object_new_object(),
		    *accts = json_object_new_array(),
		    *projs = json_object_new_array();
	int a;

	json_object_object_add(o, "configuration", json_object_new_string(label));
	json_object_object_add(o, "passes", json_object_new_int64(r->passes));
	json_object_object_add(o, "reclaims", json_object_new_int64(r->reclaims));
	json_object_object_add(o, "moves", json_object_new_int64(r->moves));
	json_object_object_add(o, "idle_gpu_hours_while_waiting",
			       json_object_new_double(r->idle_waiting_secs / 3600));
	json_object_object_add(o, "idle_gpu_hours_fragmented",
			       json_object_new_double(r->idle_fragmented_secs / 3600));
	json_object_object_add(o, "idle_gpu_hours_held",
			       json_object_new_double(r->idle_held_secs / 3600));
	json_object_object_add(o, "idle_gpu_hours_reserved",
			       json_object_new_double(r->idle_reserved_secs / 3600));
	json_object_object_add(o, "span_s", json_object_new_int64(r->span));
	for (a = 0; a < r->nacct; a++)
		json_object_array_add(accts, _acct(&r->acct[a], "account"));
	json_object_object_add(o, "accounts", accts);
	for (a = 0; a < r->nproj; a++)
		json_object_array_add(projs, _proj(r, a));
	json_object_object_add(o, "projects", projs);
	return o;
}

int gq_sim_report_json(FILE *f, const gq_sim_result_t *r,
		       const char *const *label, int n)
{
	json_object *top = json_object_new_array();
	int c;

	for (c = 0; c < n; c++)
		json_object_array_add(top, _config(&r[c], label[c]));
	fprintf(f, "%s\n", json_object_to_json_string_ext(top, JSON_C_TO_STRING_PRETTY));
	json_object_put(top);
	return 0;
}
