/*
 * report.c - replays side by side (see report.h).
 */
#include <json-c/json.h>
#include <string.h>

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

void gq_sim_report_text(FILE *f, const gq_sim_result_t *r,
			const char *const *label, int n)
{
	int k, a, c;

	for (c = 0; c < n; c++)
		fprintf(f, "[%d] %s: %llu passes, %llu reclaims, %.1f idle GPU-hours while jobs waited, %.1f days\n",
			c + 1, label[c], (unsigned long long)r[c].passes,
			(unsigned long long)r[c].reclaims,
			r[c].idle_waiting_secs / 3600, r[c].span / 86400.0);
	for (k = 0; k < NFIGS; k++) {
		fprintf(f, "\n%s\n%-16s %6s", figs[k], "ACCOUNT", "QUOTA");
		for (c = 0; c < n; c++) {
			char col[16];

			snprintf(col, sizeof(col), "[%d]", c + 1);
			fprintf(f, " %12s", col);
		}
		fputc('\n', f);
		for (a = 0; n && a < r[0].nacct; a++) {
			fprintf(f, "%-16s %6g", r[0].acct[a].account,
				r[0].acct[a].quota);
			for (c = 0; c < n; c++)
				fprintf(f, " %12.2f", _fig(&r[c].acct[a], k));
			fputc('\n', f);
		}
	}
}

static json_object *_acct(const gq_sim_acct_t *x)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "account", json_object_new_string(x->account));
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

int gq_sim_report_json(FILE *f, const gq_sim_result_t *r,
		       const char *const *label, int n)
{
	json_object *top = json_object_new_array();
	int c, a;

	for (c = 0; c < n; c++) {
		json_object *o = json_object_new_object(),
			    *accts = json_object_new_array();

		json_object_object_add(o, "configuration", json_object_new_string(label[c]));
		json_object_object_add(o, "passes", json_object_new_int64(r[c].passes));
		json_object_object_add(o, "reclaims", json_object_new_int64(r[c].reclaims));
		json_object_object_add(o, "idle_gpu_hours_while_waiting",
				       json_object_new_double(r[c].idle_waiting_secs / 3600));
		json_object_object_add(o, "span_s", json_object_new_int64(r[c].span));
		for (a = 0; a < r[c].nacct; a++)
			json_object_array_add(accts, _acct(&r[c].acct[a]));
		json_object_object_add(o, "accounts", accts);
		json_object_array_add(top, o);
	}
	fprintf(f, "%s\n", json_object_to_json_string_ext(top, JSON_C_TO_STRING_PRETTY));
	json_object_put(top);
	return 0;
}
