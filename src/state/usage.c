/*
 * usage.c - fair share that remembers: usage, its decay and its file (see
 * usage.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "tools/atomic_file.h"
#include "state/usage.h"
#include "core/view.h"

void gq_usage_free(gq_usage_t *u)
{
	int i;

	for (i = 0; i < u->n; i++) {
		free(u->e[i].pool);
		free(u->e[i].project);
	}
	free(u->e);
	memset(u, 0, sizeof(*u));
}

/* An entry's key: pool, then kind (configured projects first), then name */
typedef struct {
	const char *pool, *name;
	bool account;
} gq_usage_key_t;

static int _cmp(const gq_usage_key_t *k, const gq_usage_entry_t *e)
{
	int c = strcmp(k->pool, e->pool);

	if (c)
		return c;
	if (k->account != e->account)
		return k->account ? 1 : -1;
	return strcmp(k->name, e->project);
}

/* A project's key in the pool: its identity (usage.h) */
static gq_usage_key_t _key_of(const char *pool, const gq_project_t *p)
{
	gq_usage_key_t k = { pool, p->account ? p->account : p->name,
			     p->account != NULL };

	return k;
}

/* The entry's index, or -(where it would go) - 1.  O(log entries). */
static int _find(const gq_usage_t *u, const gq_usage_key_t *k)
{
	int lo = 0, hi = u->n;

	while (lo < hi) {
		int mid = (lo + hi) / 2, c = _cmp(k, &u->e[mid]);

		if (!c)
			return mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -lo - 1;
}

static double _usage(const gq_usage_t *u, const gq_usage_key_t *k)
{
	int i = _find(u, k);

	return i >= 0 ? u->e[i].gpu_seconds : 0;
}

double gq_usage_of(const gq_usage_t *u, const char *pool, const char *project)
{
	gq_usage_key_t k = { pool ? pool : "", project, false };

	return _usage(u, &k);
}

double gq_usage_of_account(const gq_usage_t *u, const char *pool,
			   const char *account)
{
	gq_usage_key_t k = { pool ? pool : "", account, true };

	return _usage(u, &k);
}

/* The key's entry, made at 0 when new; NULL: memory.  O(entries). */
static gq_usage_entry_t *_entry(gq_usage_t *u, const gq_usage_key_t *k)
{
	int i = _find(u, k), at;

	if (i >= 0)
		return &u->e[i];
	at = -i - 1;
	if (u->n == u->cap) {
		int cap = u->cap ? u->cap * 2 : 16;
		gq_usage_entry_t *n = realloc(u->e, sizeof(*n) * cap);

		if (!n)
			return NULL;
		u->e = n;
		u->cap = cap;
	}
	memmove(&u->e[at + 1], &u->e[at], sizeof(*u->e) * (u->n - at));
	u->e[at].pool = strdup(k->pool);
	u->e[at].project = strdup(k->name);
	u->e[at].account = k->account;
	u->e[at].gpu_seconds = 0;
	if (!u->e[at].pool || !u->e[at].project) {
		free(u->e[at].pool);
		free(u->e[at].project);
		memmove(&u->e[at], &u->e[at + 1], sizeof(*u->e) * (u->n - at));
		return NULL;
	}
	u->n++;
	return &u->e[at];
}

int gq_usage_advance(gq_usage_t *u, const gq_pools_t *p, double half_life,
		     double now)
{
	double dt = u->at ? now - u->at : 0, decay, gain;
	bool first = !u->at || u->decay_only;
	int i, k;

	if (half_life <= 0)
		return 0;
	if (dt < 0) {	/* the clock stepped back: the new reference */
		u->at = now;
		return 0;
	}
	decay = exp(-M_LN2 * dt / half_life);
	gain = (1 - decay) * half_life / M_LN2;	/* GPU-s per GPU above */
	for (i = 0; i < u->n; i++)
		u->e[i].gpu_seconds *= decay;
	u->at = now;
	u->decay_only = false;
	if (first)
		return 0;
	for (k = 0; p && k < p->n; k++) {
		const gq_view_t *v = p->view[k];
		const char *pool = p->name[k] ? p->name[k] : "";

		for (i = 0; i < gq_view_nprojects(v); i++) {
			const gq_project_t *proj = gq_view_project(v, i);
			double above = (double)proj->alloc - proj->quota;
			gq_usage_key_t key = _key_of(pool, proj);
			gq_usage_entry_t *e;

			if (above <= 0)
				continue;
			if (!(e = _entry(u, &key)))
				return -1;
			e->gpu_seconds += above * gain;
		}
	}
	return 0;
}

double gq_usage_weight(double w, double usage, double usage_weight,
		       double capacity, double half_life)
{
	if (half_life <= 0 || capacity <= 0 || usage <= 0)
		return w;
	return w / (1 + usage_weight * usage / (capacity * half_life));
}

void gq_usage_apply(const gq_usage_t *u, gq_pools_t *p, double usage_weight,
		    double half_life)
{
	int i, k;

	for (k = 0; p && k < p->n; k++) {
		gq_view_t *v = p->view[k];
		const char *pool = p->name[k] ? p->name[k] : "";

		for (i = 0; i < gq_view_nprojects(v); i++) {
			gq_usage_key_t key = _key_of(pool,
						     gq_view_project(v, i));
			double use = half_life > 0 ? _usage(u, &key) : 0;

			gq_view_set_usage(v, i, use,
					  gq_usage_weight(1, use, usage_weight,
							  gq_view_capacity(v),
							  half_life));
		}
	}
}

char *gq_usage_file_path(const char *dir)
{
	return gq_state_file_path(dir, GQ_USAGE_FILE);
}

static void _write(FILE *f, const void *ctx)
{
	const gq_usage_t *u = ctx;
	int i;

	fprintf(f, "{\"version\": %d, \"written_at\": %.6f, \"usage\": [",
		GQ_USAGE_VERSION, u->at);
	for (i = 0; i < u->n; i++) {
		json_object *pool = json_object_new_string(u->e[i].pool);
		json_object *proj = json_object_new_string(u->e[i].project);

		fprintf(f, "%s\n {\"pool\": %s, \"project\": %s,%s \"gpu_seconds\": %.17g}",
			i ? "," : "", json_object_to_json_string(pool),
			json_object_to_json_string(proj),
			u->e[i].account ? " \"kind\": \"account\"," : "",
			u->e[i].gpu_seconds);
		json_object_put(pool);
		json_object_put(proj);
	}
	fprintf(f, "\n]}\n");
}

int gq_usage_file_write(const gq_usage_t *u, const char *path, char *err,
			size_t errlen)
{
	return gq_atomic_write(path, _write, u, err, errlen);
}

/* A string member of o, or NULL */
static const char *_string(json_object *o, const char *key)
{
	json_object *m;

	if (!json_object_object_get_ex(o, key, &m) ||
	    !json_object_is_type(m, json_type_string))
		return NULL;
	return json_object_get_string(m);
}

/*
 * One entry of the file: its key (pointing into e) and U.  Without
 * "kind" (files written before usage was kept by identity) it is a
 * configured project's.  0, or -1 when it is not such an entry.
 */
static int _read_entry(json_object *e, gq_usage_key_t *k, double *v)
{
	json_object *gs, *kind;
	const char *kd;

	if (!json_object_is_type(e, json_type_object) ||
	    !(k->pool = _string(e, "pool")) ||
	    !(k->name = _string(e, "project")) ||
	    !json_object_object_get_ex(e, "gpu_seconds", &gs) ||
	    !(json_object_is_type(gs, json_type_double) ||
	      json_object_is_type(gs, json_type_int)) ||
	    !isfinite(*v = json_object_get_double(gs)) || *v < 0)
		return -1;
	k->account = false;
	if (!json_object_object_get_ex(e, "kind", &kind))
		return 0;
	if (!(kd = _string(e, "kind")) ||
	    (strcmp(kd, "account") && strcmp(kd, "project")))
		return -1;
	k->account = !strcmp(kd, "account");
	return 0;
}

int gq_usage_file_read(const char *path, gq_usage_t *u, char *err,
		       size_t errlen)
{
	json_object *root, *o, *arr;
	size_t i, n;
	int rc;

	gq_usage_free(u);
	if ((rc = gq_state_file_json(path, GQ_USAGE_FILE_BOUND, &root, err,
				     errlen)))
		return rc;
	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "version", &o) ||
	    json_object_get_int(o) != GQ_USAGE_VERSION) {
		snprintf(err, errlen, "%s: version: not %d", path,
			 GQ_USAGE_VERSION);
		goto bad;
	}
	if (!json_object_object_get_ex(root, "written_at", &o) ||
	    !(json_object_is_type(o, json_type_double) ||
	      json_object_is_type(o, json_type_int)) ||
	    !isfinite(u->at = json_object_get_double(o)) || u->at < 0) {
		snprintf(err, errlen, "%s: written_at: not a time", path);
		goto bad;
	}
	if (!json_object_object_get_ex(root, "usage", &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		snprintf(err, errlen, "%s: usage: not an array", path);
		goto bad;
	}
	n = json_object_array_length(arr);
	for (i = 0; i < n; i++) {
		gq_usage_key_t k;
		gq_usage_entry_t *x;
		double v;

		if (_read_entry(json_object_array_get_idx(arr, i), &k, &v)) {
			snprintf(err, errlen, "%s: usage[%zu]: not {\"pool\", \"project\", \"kind\" (\"project\" or \"account\", optional), \"gpu_seconds\" >= 0}",
				 path, i);
			goto bad;
		}
		if (!(x = _entry(u, &k))) {
			snprintf(err, errlen, "%s: out of memory", path);
			goto bad;
		}
		x->gpu_seconds = v;
	}
	u->decay_only = true;
	json_object_put(root);
	return 0;
bad:
	json_object_put(root);
	gq_usage_free(u);
	return -1;
}
