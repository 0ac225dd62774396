/*
 * config.c - load and validate gpuquota.json (see config.h; the keys are in
 * man/gpuquota.json.5, the settings' meaning in docs/MODEL.md "Settings").
 *
 * Owns: reading the file, JSON parsing, validation and its one-line error
 * messages, building the gq_config_t of config.h and freeing it, and where
 * the file lives (gq_config_path).
 *
 * Every error is one line: "<file>: <key path>: <what is wrong>, got <JSON>".
 * The first problem found is reported; nothing is half-loaded.
 *
 * Choices beyond the contract:
 *  - json-c's STRICT mode plus UTF-8 validation; a leading UTF-8 BOM is
 *    skipped, a second one refused.  Trailing text after the top-level value is an error.
 *  - json null is never "use the default": an optional key is either absent
 *    or valid.
 *  - settings.partitions, when present, must be non-empty and free of
 *    duplicates (omit the key to mean "all partitions").
 *  - A key written twice in one JSON object is refused (json-c would keep
 *    the last silently): _dup_key scans the text json-c accepted.
 *  - Every string is a name of at most 64 letters, digits, '.', '_' or '-'
 *    (_get_string); accounts compare without case.
 *  - A weight or a requeue budget is 0 or within GQ_REAL_MIN..its max
 *    (_get_real, config.h): no sum or product of them in a pass
 *    overflows or rounds away.
 */
#include "config/config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

#include <json-c/json.h>
#include <json-c/linkhash.h>

#define KP_MAX 256	/* longest key path shown in a message */
#define VAL_MAX 80	/* longest offending value shown in a message */
#define VAL_BUF (VAL_MAX + sizeof("..."))	/* a value cut short, "...", NUL */
#define KEY_PLAIN_MAX 64	/* longer keys are quoted in key paths */
#define MINSTR_MAX 32	/* "gpu_quota (N)", gpu_limit's bound in messages */
#define TABLE_MIN 16	/* smallest size of a name table */
#define READ_FIRST 8192	/* first buffer size of gq_config_load */
#define UTF8_BOM "\xEF\xBB\xBF"
#define CONFIG_NAME "gpuquota.json"	/* beside slurm.conf by default */
#define GQ_ROOT_ACCOUNT "root"	/* the root of Slurm's account tree */

struct parser {
	const char *path;
	char *err;
	size_t errlen;
	gq_config_t *cfg;
};

/* ----- messages -------------------------------------------------------- */

/* Cut s (NUL-terminated, within a buffer) so it does not end mid UTF-8. */
static void _utf8_trim(char *s)
{
	size_t n = strlen(s), i = n;

	/* back over continuation bytes, then check the lead byte fits */
	while (i > 0 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
		i--;
	if (i == 0)
		return;
	{
		unsigned char lead = (unsigned char)s[i - 1];
		size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 :
			      lead >= 0xC0 ? 2 : 1;

		if (need > 1 && n - (i - 1) < need)
			s[i - 1] = '\0';
	}
}

static void _set_err(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void _set_err(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	size_t n;
	int len;

	if (!p->err || p->errlen == 0)
		return;
	len = snprintf(p->err, p->errlen, "%s: ",
		       p->path ? p->path : "<config>");
	if (len < 0) {
		p->err[0] = '\0';
		return;
	}
	n = (size_t)len;
	if (n < p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err + n, p->errlen - n, fmt, ap);
		va_end(ap);
	}
	p->err[p->errlen - 1] = '\0';
	_utf8_trim(p->err);
	/* exactly one line, whatever the file name holds */
	for (char *c = p->err; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
}

/*
 * The value as (plain, one-line) JSON; past VAL_MAX bytes it is cut at a
 * character boundary and ends in "...".
 */
static const char *_jval(struct json_object *v, char buf[VAL_BUF])
{
	const char *s = json_object_to_json_string_ext(v,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);

	if (!s)
		s = "?";
	if (strlen(s) <= VAL_MAX)
		return s;
	memcpy(buf, s, VAL_MAX);
	buf[VAL_MAX] = '\0';
	_utf8_trim(buf);
	strcat(buf, "...");
	return buf;
}

/* A string as a JSON string literal, for messages. */
static const char *_jstr(const char *s, char buf[VAL_BUF])
{
	struct json_object *o = json_object_new_string(s);
	const char *r;

	if (!o)
		return "\"?\"";
	r = _jval(o, buf);
	if (r != buf) {
		snprintf(buf, VAL_BUF, "%s", r);
		r = buf;
	}
	json_object_put(o);
	return r;
}

static bool _plain_key(const char *k)
{
	if (!*k || strlen(k) > KEY_PLAIN_MAX)
		return false;
	for (; *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') ||
		      (*k >= '0' && *k <= '9') || *k == '_' || *k == '-'))
			return false;
	return true;
}

/* parent + key: "a.b", "b" at the top, a["odd key"] for anything unusual. */
static const char *_kp_key(char buf[KP_MAX], const char *parent,
			   const char *key)
{
	char tmp[VAL_BUF];

	if (_plain_key(key))
		snprintf(buf, KP_MAX, "%s%s%s", parent, *parent ? "." : "",
			 key);
	else
		snprintf(buf, KP_MAX, "%s[%s]", parent, _jstr(key, tmp));
	return buf;
}

static const char *_kp_idx(char buf[KP_MAX], const char *parent, size_t i)
{
	snprintf(buf, KP_MAX, "%s[%zu]", parent, i);
	return buf;
}

/* ----- typed getters ---------------------------------------------------- */

static int _oom(struct parser *p)
{
	_set_err(p, "out of memory");
	return -1;
}

static int _need_type(struct parser *p, struct json_object *v, const char *kp,
		      enum json_type t, const char *what)
{
	char vb[VAL_BUF];

	if (json_object_is_type(v, t))
		return 0;
	_set_err(p, "%s: must be %s, got %s", kp, what, _jval(v, vb));
	return -1;
}

/* Every key of obj must be one of allowed[] (NULL-terminated). */
static int _check_keys(struct parser *p, struct json_object *obj,
		       const char *kp, const char *const *allowed)
{
	char kb[KP_MAX];

	json_object_object_foreach(obj, key, val) {
		const char *const *a;

		(void)val;
		for (a = allowed; *a; a++)
			if (!strcmp(*a, key))
				break;
		if (!*a) {
			_set_err(p, "%s: unknown key", _kp_key(kb, kp, key));
			return -1;
		}
	}
	return 0;
}

/*
 * Every string of the file is a name (projects, departments, accounts,
 * partitions): letters, digits, '.', '_' and '-', as Slurm's own account
 * and partition names.  Nothing else, so that no name can break a log
 * line, squeue's reason, JSON output or a sacctmgr argument (sacctmgr
 * splits on commas, a shell on spaces and quotes), and every name is
 * plain ASCII.
 */
#define GQ_NAME_MAX 64

bool gq_config_name_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

bool gq_config_name_ok(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!gq_config_name_char((unsigned char)s[i]))
			return false;
	return i > 0 && i <= GQ_NAME_MAX;
}

/* Names compare without case: Slurm keeps accounts in lower case. */
static unsigned long _hash_nocase(const void *k)
{
	const unsigned char *s = k;
	unsigned long h = 5381;

	while (*s)
		h = h * 33 + (unsigned long)tolower(*s++);
	return h;
}

static int _equal_nocase(const void *a, const void *b)
{
	return !strcasecmp(a, b);
}

/* A name (above) without embedded NUL, copied into *out. */
static int _get_string(struct parser *p, struct json_object *v, const char *kp,
		       char **out)
{
	char vb[VAL_BUF];
	const char *s;
	size_t i;

	if (!json_object_is_type(v, json_type_string) ||
	    json_object_get_string_len(v) == 0) {
		_set_err(p, "%s: must be a non-empty string, got %s", kp,
			 _jval(v, vb));
		return -1;
	}
	s = json_object_get_string(v);
	if (strlen(s) != (size_t)json_object_get_string_len(v)) {
		_set_err(p, "%s: must not contain a NUL character, got %s", kp,
			 _jval(v, vb));
		return -1;
	}
	for (i = 0; s[i]; i++)
		if (!gq_config_name_char((unsigned char)s[i]))
			break;
	if (s[i] || i > GQ_NAME_MAX) {
		_set_err(p, "%s: must be a name of at most %d letters, digits, '.', '_' or '-', got %s",
			 kp, GQ_NAME_MAX, _jval(v, vb));
		return -1;
	}
	*out = strdup(s);
	return *out ? 0 : _oom(p);
}

/* A JSON integer in [min, INT_MAX]; minstr names the bound in messages. */
static int _get_bool(struct parser *p, struct json_object *v, const char *kp,
		     bool *out)
{
	char vb[VAL_BUF];

	if (!json_object_is_type(v, json_type_boolean)) {
		_set_err(p, "%s: must be true or false, got %s", kp,
			 _jval(v, vb));
		return -1;
	}
	*out = json_object_get_boolean(v);
	return 0;
}

static int _get_int(struct parser *p, struct json_object *v, const char *kp,
		    int min, const char *minstr, int *out)
{
	char vb[VAL_BUF];
	int64_t i;

	if (!json_object_is_type(v, json_type_int)) {
		_set_err(p, "%s: must be an integer >= %s, got %s", kp, minstr,
			 _jval(v, vb));
		return -1;
	}
	i = json_object_get_int64(v);	/* uint64 beyond it: INT64_MAX */
	/*
	 * json-c saturates integers past 64 bits to INT64_MIN / UINT64_MAX:
	 * the text is lost, so do not show the clamped value as if written.
	 */
	if (i < min) {
		_set_err(p, "%s: must be an integer >= %s, got %s", kp, minstr,
			 i == INT64_MIN ? "a number beyond 64 bits" :
			 _jval(v, vb));
		return -1;
	}
	if (i > INT_MAX) {
		_set_err(p, "%s: must be an integer <= %d, got %s", kp, INT_MAX,
			 json_object_get_uint64(v) == UINT64_MAX ?
			 "a number beyond 64 bits" : _jval(v, vb));
		return -1;
	}
	*out = (int)i;
	return 0;
}

/*
 * A weight or a budget: 0, or from GQ_REAL_MIN to max.  The bounds keep
 * every sum and product of them in the fair share and the requeue budget
 * finite and meaningful (config.h).
 */
static int _get_real(struct parser *p, struct json_object *v, const char *kp,
		     double max, double *out)
{
	char vb[VAL_BUF];
	double d;

	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double)) {
		_set_err(p, "%s: must be a number >= 0, got %s", kp,
			 _jval(v, vb));
		return -1;
	}
	d = json_object_get_double(v);
	if (!isfinite(d)) {
		_set_err(p, "%s: must be a finite number >= 0, got %s", kp,
			 _jval(v, vb));
		return -1;
	}
	if (d < 0) {
		_set_err(p, "%s: must be a number >= 0, got %s", kp,
			 _jval(v, vb));
		return -1;
	}
	if (d != 0 && (d < GQ_REAL_MIN || d > max)) {
		_set_err(p, "%s: must be 0 or from %g to %.0f, got %s", kp,
			 GQ_REAL_MIN, max, _jval(v, vb));
		return -1;
	}
	*out = d + 0.0;	/* -0 becomes 0 */
	return 0;
}

/*
 * A non-empty array of non-empty strings.  what names the item ("account",
 * "partition") in duplicate messages; dups_ok skips that check (accounts are
 * checked across projects later).
 */
static int _get_str_array(struct parser *p, struct json_object *v,
			  const char *kp, const char *what, bool dups_ok,
			  char ***out, int *nout)
{
	char vb[VAL_BUF], kb[KP_MAX];
	size_t n, i, j;
	char **a;

	if (!json_object_is_type(v, json_type_array) ||
	    json_object_array_length(v) == 0) {
		_set_err(p, "%s: must be a non-empty array of non-empty strings, got %s",
			 kp, _jval(v, vb));
		return -1;
	}
	n = json_object_array_length(v);
	if (n > INT_MAX) {
		_set_err(p, "%s: too many entries", kp);
		return -1;
	}
	a = calloc(n, sizeof(*a));
	if (!a)
		return _oom(p);
	*out = a;
	*nout = (int)n;	/* entries stay NULL until filled: freeable */
	for (i = 0; i < n; i++) {
		_kp_idx(kb, kp, i);
		if (_get_string(p, json_object_array_get_idx(v, i), kb, &a[i]))
			return -1;
		if (dups_ok)
			continue;
		for (j = 0; j < i; j++) {
			if (!strcmp(a[i], a[j])) {
				_set_err(p, "%s: duplicate %s %s", kb, what,
					 _jstr(a[i], vb));
				return -1;
			}
		}
	}
	return 0;
}

/* ----- sections ---------------------------------------------------------- */

static const char *const dept_keys[] = {
	"name", "gpu_quota", "over_quota_weight", "gpu_limit", NULL
};

static const char *const project_keys[] = {
	"name", "gpu_quota", "over_quota_weight", "gpu_limit", "accounts",
	"department", "grace_time", "requeue_budget", NULL
};

static const char *const settings_keys[] = {
	"min_runtime", "recompute_interval", "room_wait", "partitions",
	"grace_time", "reclaim_patience", "usage_half_life", "usage_weight",
	"multifactor", "requeue_budget", "requeue_budget_window", "mode", NULL
};

static const char *const top_keys[] = {
	"projects", "departments", "pools", "settings", NULL
};

static const char *const pool_keys[] = {
	"name", "partitions", NULL
};

/* obj[key], or "missing required key" when required and absent. */
static bool _field(struct parser *p, struct json_object *obj, const char *kp,
		   const char *key, bool required, struct json_object **v,
		   int *rc)
{
	char kb[KP_MAX];

	if (json_object_object_get_ex(obj, key, v))
		return true;
	if (required) {
		_set_err(p, "%s: missing required key", _kp_key(kb, kp, key));
		*rc = -1;
	}
	return false;
}

/* ----- numbers by pool ---------------------------------------------------- */

enum number_kind { QUOTA, WEIGHT, LIMIT };

static const char *const number_keys[] = {
	[QUOTA] = "gpu_quota", [WEIGHT] = "over_quota_weight",
	[LIMIT] = "gpu_limit",
};

/* One number of a kind; a limit's lower bound is checked later. */
static int _get_number(struct parser *p, struct json_object *v,
		       const char *kp, enum number_kind kind,
		       gq_pool_numbers_t *n)
{
	if (kind == WEIGHT)
		return _get_real(p, v, kp, GQ_WEIGHT_MAX,
				 &n->over_quota_weight);
	return _get_int(p, v, kp, 0, "0",
			kind == QUOTA ? &n->gpu_quota : &n->gpu_limit);
}

static int _pool_index(const gq_config_t *cfg, const char *name)
{
	int k;

	for (k = 0; k < cfg->npools; k++)
		if (!strcasecmp(cfg->pools[k].name, name))
			return k;
	return -1;
}

/*
 * A number by pool (with pools): a plain number is the same in every
 * pool; an object maps pool names to numbers, and the pools it leaves
 * out keep their default.
 */
static int _get_by_pool(struct parser *p, struct json_object *v,
			const char *kp, enum number_kind kind,
			gq_pool_numbers_t *by_pool)
{
	char kb[KP_MAX], vb[VAL_BUF];
	int k;

	if (!json_object_is_type(v, json_type_object)) {
		for (k = 0; k < p->cfg->npools; k++)
			if (_get_number(p, v, kp, kind, &by_pool[k]))
				return -1;
		return 0;
	}
	json_object_object_foreach(v, pool, n) {
		_kp_key(kb, kp, pool);
		if ((k = _pool_index(p->cfg, pool)) < 0) {
			_set_err(p, "%s: no pool named %s", kb,
				 _jstr(pool, vb));
			return -1;
		}
		if (_get_number(p, n, kb, kind, &by_pool[k]))
			return -1;
	}
	return 0;
}

/* Each pool's limit at least its quota (key path of the limit's entry). */
static int _limits_over_quotas(struct parser *p, struct json_object *limit,
			       const char *kp, const gq_pool_numbers_t *by_pool)
{
	char kb[KP_MAX], vb[VAL_BUF], qb[KP_MAX + MINSTR_MAX];
	struct json_object *v = limit;
	int k;

	for (k = 0; k < p->cfg->npools; k++) {
		const gq_pool_numbers_t *n = &by_pool[k];
		const char *name = p->cfg->pools[k].name;

		if (n->gpu_limit == GQ_NO_LIMIT ||
		    n->gpu_limit >= n->gpu_quota)
			continue;
		snprintf(kb, sizeof(kb), "%s", kp);
		if (json_object_is_type(limit, json_type_object)) {
			_kp_key(kb, kp, name);
			json_object_object_get_ex(limit, name, &v);
		}
		snprintf(qb, sizeof(qb), "gpu_quota in pool %s (%d)",
			 _jstr(name, vb), n->gpu_quota);
		_set_err(p, "%s: must be an integer >= %s, got %s", kb, qb,
			 _jval(v, vb));
		return -1;
	}
	return 0;
}

/* gpu_quota, over_quota_weight and gpu_limit by pool (with pools). */
static int _parse_by_pool(struct parser *p, struct json_object *obj,
			  const char *kp, gq_pool_numbers_t **out)
{
	gq_pool_numbers_t *by_pool;
	struct json_object *v, *limit = NULL;
	char kb[KP_MAX];
	int k, rc = 0;

	if (!(by_pool = calloc(p->cfg->npools, sizeof(*by_pool))))
		return _oom(p);
	*out = by_pool;
	for (k = 0; k < p->cfg->npools; k++) {
		by_pool[k].over_quota_weight = 1.0;
		by_pool[k].gpu_limit = GQ_NO_LIMIT;
	}
	for (k = QUOTA; k <= LIMIT; k++) {
		if (!_field(p, obj, kp, number_keys[k], k == QUOTA, &v, &rc)) {
			if (rc)
				return rc;
			continue;
		}
		if (k == LIMIT)
			limit = v;
		if (_get_by_pool(p, v, _kp_key(kb, kp, number_keys[k]), k,
				 by_pool))
			return -1;
	}
	return limit ? _limits_over_quotas(p, limit,
					   _kp_key(kb, kp, "gpu_limit"),
					   by_pool) : 0;
}

/*
 * The fields projects and departments share.  names holds the names seen so
 * far (for the duplicate check) and what is "project" or "department".
 */
static int _parse_common(struct parser *p, struct json_object *obj,
			 const char *kp, const char *what,
			 struct lh_table *names, char **name, int *quota,
			 double *weight, int *limit,
			 gq_pool_numbers_t **by_pool)
{
	char kb[KP_MAX], vb[VAL_BUF], qb[MINSTR_MAX];
	struct json_object *v;
	int rc = 0;

	if (_field(p, obj, kp, "name", true, &v, &rc)) {
		_kp_key(kb, kp, "name");
		if (_get_string(p, v, kb, name))
			return -1;
		if (lh_table_lookup_ex(names, *name, NULL)) {
			_set_err(p, "%s: duplicate %s %s", kb, what,
				 _jstr(*name, vb));
			return -1;
		}
		if (lh_table_insert(names, *name, NULL))
			return _oom(p);
	}
	if (rc)
		return rc;

	*weight = 1.0;
	*limit = GQ_NO_LIMIT;
	if (p->cfg->npools)
		return _parse_by_pool(p, obj, kp, by_pool);
	for (int k = QUOTA; k <= LIMIT; k++)
		if (json_object_object_get_ex(obj, number_keys[k], &v) &&
		    json_object_is_type(v, json_type_object)) {
			_set_err(p, "%s: a number by pool needs top-level \"pools\", got %s",
				 _kp_key(kb, kp, number_keys[k]),
				 _jval(v, vb));
			return -1;
		}

	if (_field(p, obj, kp, "gpu_quota", true, &v, &rc) &&
	    _get_int(p, v, _kp_key(kb, kp, "gpu_quota"), 0, "0", quota))
		return -1;
	if (rc)
		return rc;

	if (_field(p, obj, kp, "over_quota_weight", false, &v, &rc) &&
	    _get_real(p, v, _kp_key(kb, kp, "over_quota_weight"),
		      GQ_WEIGHT_MAX, weight))
		return -1;

	snprintf(qb, sizeof(qb), "gpu_quota (%d)", *quota);
	if (_field(p, obj, kp, "gpu_limit", false, &v, &rc) &&
	    _get_int(p, v, _kp_key(kb, kp, "gpu_limit"), *quota, qb, limit))
		return -1;
	return 0;
}

/*
 * The top-level array `key` of n entries of `size` bytes: *out gets a
 * zeroed table of them and *names an empty table for their names.
 * Returns n (0: nothing to parse, nothing allocated), or -1 with the
 * error set.
 */
static int _open_array(struct parser *p, struct json_object *arr,
		       const char *key, size_t size, void **out,
		       struct lh_table **names)
{
	size_t n;

	if (_need_type(p, arr, key, json_type_array, "an array"))
		return -1;
	n = json_object_array_length(arr);
	if (n == 0)
		return 0;
	if (n > INT_MAX) {
		_set_err(p, "%s: too many entries", key);
		return -1;
	}
	if (!(*out = calloc(n, size)))
		return _oom(p);
	*names = lh_table_new((int)(n < TABLE_MIN ? TABLE_MIN : n), NULL,
			      _hash_nocase, _equal_nocase);
	if (!*names)
		return _oom(p);
	return (int)n;
}

static int _parse_depts(struct parser *p, struct json_object *arr)
{
	gq_config_t *cfg = p->cfg;
	struct lh_table *names = NULL;
	char kb[KP_MAX];
	int n, i, rc = 0;

	n = _open_array(p, arr, "departments", sizeof(*cfg->depts),
			(void **)&cfg->depts, &names);
	if (n <= 0)
		return n;
	cfg->ndepts = n;
	for (i = 0; i < n && !rc; i++) {
		struct json_object *d = json_object_array_get_idx(arr, i);
		gq_dept_cfg_t *dc = &cfg->depts[i];

		_kp_idx(kb, "departments", i);
		rc = _need_type(p, d, kb, json_type_object, "an object");
		if (!rc)
			rc = _check_keys(p, d, kb, dept_keys);
		if (!rc)
			rc = _parse_common(p, d, kb, "department", names,
					   &dc->name, &dc->gpu_quota,
					   &dc->over_quota_weight,
					   &dc->gpu_limit, &dc->by_pool);
	}
	lh_table_free(names);
	return rc;
}

/* settings.requeue_budget (GPU-hours) and its window (seconds). */
static int _parse_budget(struct parser *p, struct json_object *obj,
			 gq_settings_t *s)
{
	struct json_object *v;
	int rc = 0;

	if (_field(p, obj, "settings", "requeue_budget", false, &v, &rc) &&
	    _get_real(p, v, "settings.requeue_budget", GQ_BUDGET_MAX,
		      &s->requeue_budget))
		return -1;
	if (_field(p, obj, "settings", "requeue_budget_window", false, &v,
		   &rc) &&
	    _get_int(p, v, "settings.requeue_budget_window",
		     GQ_BUDGET_WINDOW_MIN, "3600",
		     &s->requeue_budget_window))
		return -1;
	if (s->requeue_budget_window > GQ_BUDGET_WINDOW_MAX) {
		_set_err(p, "settings.requeue_budget_window: must be an integer <= %d (seconds, 30 days), got %d",
			 GQ_BUDGET_WINDOW_MAX, s->requeue_budget_window);
		return -1;
	}
	return rc;
}

/* A grace time: an integer of seconds, 0..GQ_GRACE_TIME_MAX. */
static int _get_grace(struct parser *p, struct json_object *v,
		      const char *kp, int *out)
{
	char vb[VAL_BUF];

	if (_get_int(p, v, kp, 0, "0", out))
		return -1;
	if (*out > GQ_GRACE_TIME_MAX) {
		_set_err(p, "%s: must be an integer <= %d (seconds a preemptor waits), got %s",
			 kp, GQ_GRACE_TIME_MAX, _jval(v, vb));
		return -1;
	}
	return 0;
}

/* A project's "department": the index of the department of that name. */
static int _project_dept(struct parser *p, struct json_object *v,
			 const char *kp, int *dept)
{
	gq_config_t *cfg = p->cfg;
	char *dname = NULL, vb[VAL_BUF];
	int d;

	if (_get_string(p, v, kp, &dname))
		return -1;
	for (d = 0; d < cfg->ndepts; d++)
		if (!strcmp(cfg->depts[d].name, dname))
			break;
	if (d == cfg->ndepts)
		_set_err(p, "%s: no department named %s", kp, _jstr(dname, vb));
	free(dname);
	if (d == cfg->ndepts)
		return -1;
	*dept = d;
	return 0;
}

static int _parse_project(struct parser *p, struct json_object *obj,
			  const char *kp, struct lh_table *names,
			  gq_project_cfg_t *pc)
{
	char kb[KP_MAX];
	struct json_object *v;
	int rc = 0;

	pc->department = -1;
	pc->grace_time = GQ_UNSET;
	pc->requeue_budget = GQ_UNSET;
	if (_need_type(p, obj, kp, json_type_object, "an object") ||
	    _check_keys(p, obj, kp, project_keys) ||
	    _parse_common(p, obj, kp, "project", names, &pc->name,
			  &pc->gpu_quota, &pc->over_quota_weight,
			  &pc->gpu_limit, &pc->by_pool))
		return -1;

	if (_field(p, obj, kp, "accounts", false, &v, &rc)) {
		if (_get_str_array(p, v, _kp_key(kb, kp, "accounts"), "account",
				   true, &pc->accounts, &pc->naccounts))
			return -1;
	} else {
		pc->accounts = calloc(1, sizeof(*pc->accounts));
		if (!pc->accounts)
			return _oom(p);
		pc->naccounts = 1;
		pc->accounts[0] = strdup(pc->name);
		if (!pc->accounts[0])
			return _oom(p);
	}

	if (_field(p, obj, kp, "department", false, &v, &rc) &&
	    _project_dept(p, v, _kp_key(kb, kp, "department"),
			  &pc->department))
		return -1;
	if (_field(p, obj, kp, "grace_time", false, &v, &rc) &&
	    _get_grace(p, v, _kp_key(kb, kp, "grace_time"), &pc->grace_time))
		return -1;
	if (_field(p, obj, kp, "requeue_budget", false, &v, &rc) &&
	    _get_real(p, v, _kp_key(kb, kp, "requeue_budget"), GQ_BUDGET_MAX,
		      &pc->requeue_budget))
		return -1;
	return 0;
}

/*
 * Every account belongs to one project.  A project without "accounts" owns
 * its name; those are registered first so that a clash is always reported
 * at the explicit "accounts" entry, whatever the order of the projects.
 */
/* Projects without "accounts": their name is their account, in owner. */
static int _own_names(struct parser *p, struct json_object *arr,
		      struct lh_table *owner)
{
	gq_config_t *cfg = p->cfg;
	char kb[KP_MAX], ab[VAL_BUF], pb[VAL_BUF];
	int i;

	for (i = 0; i < cfg->nprojects; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		void *prev;

		if (json_object_object_get_ex(o, "accounts", NULL))
			continue;
		if (lh_table_lookup_ex(owner, cfg->projects[i].accounts[0],
				       &prev)) {
			snprintf(kb, sizeof(kb), "projects[%d].name", i);
			_set_err(p, "%s: account %s already belongs to project %s",
				 kb, _jstr(cfg->projects[i].accounts[0], ab),
				 _jstr(cfg->projects[(intptr_t)prev].name, pb));
			return -1;
		}
		if (lh_table_insert(owner, cfg->projects[i].accounts[0],
				    (void *)(intptr_t)i))
			return _oom(p);
	}
	return 0;
}

/* Project i's "accounts" list, each into owner once. */
static int _own_list(struct parser *p, int i, struct lh_table *owner)
{
	gq_config_t *cfg = p->cfg;
	gq_project_cfg_t *pc = &cfg->projects[i];
	char kb[KP_MAX], ab[VAL_BUF], pb[VAL_BUF];
	int j;

	for (j = 0; j < pc->naccounts; j++) {
		void *prev;
		int q;

		snprintf(kb, sizeof(kb), "projects[%d].accounts[%d]", i, j);
		if (!lh_table_lookup_ex(owner, pc->accounts[j], &prev)) {
			if (lh_table_insert(owner, pc->accounts[j],
					    (void *)(intptr_t)i))
				return _oom(p);
			continue;
		}
		q = (int)(intptr_t)prev;
		if (q == i)
			_set_err(p, "%s: account %s is listed twice", kb,
				 _jstr(pc->accounts[j], ab));
		else
			_set_err(p, "%s: account %s already belongs to project %s",
				 kb, _jstr(pc->accounts[j], ab),
				 _jstr(cfg->projects[q].name, pb));
		return -1;
	}
	return 0;
}

/* Each account belongs to one project: names first, then the lists. */
static int _check_accounts(struct parser *p, struct json_object *arr)
{
	gq_config_t *cfg = p->cfg;
	struct lh_table *owner;
	int i, rc;

	owner = lh_table_new(cfg->nprojects < TABLE_MIN ? TABLE_MIN :
			     cfg->nprojects, NULL, _hash_nocase, _equal_nocase);
	if (!owner)
		return _oom(p);
	rc = _own_names(p, arr, owner);
	for (i = 0; i < cfg->nprojects && !rc; i++)
		if (json_object_object_get_ex(json_object_array_get_idx(arr, i),
					      "accounts", NULL))
			rc = _own_list(p, i, owner);
	lh_table_free(owner);
	return rc;
}

/*
 * No project or department may be Slurm's root account: every account is
 * under it, so a department "root" would take in every top-level account,
 * and `gpuquota sync` would set a project's gpu_limit on the whole
 * cluster.  Its jobs (root's own) are an unlisted account's.  O(accounts).
 */
static int _no_root(struct parser *p, struct json_object *arr)
{
	const gq_config_t *cfg = p->cfg;
	const char *name;
	char kb[KP_MAX], vb[VAL_BUF];
	int i, j;

	for (i = 0; i < cfg->ndepts; i++)
		if (!strcasecmp(name = cfg->depts[i].name, GQ_ROOT_ACCOUNT)) {
			snprintf(kb, sizeof(kb), "departments[%d].name", i);
			goto root;
		}
	for (i = 0; i < cfg->nprojects; i++)
		for (j = 0; j < cfg->projects[i].naccounts; j++) {
			if (strcasecmp(name = cfg->projects[i].accounts[j],
				       GQ_ROOT_ACCOUNT))
				continue;
			if (json_object_object_get_ex(
				    json_object_array_get_idx(arr, i),
				    "accounts", NULL))
				snprintf(kb, sizeof(kb),
					 "projects[%d].accounts[%d]", i, j);
			else
				snprintf(kb, sizeof(kb), "projects[%d].name",
					 i);
			goto root;
		}
	return 0;
root:
	_set_err(p, "%s: must not be Slurm's root account (every account is under it), got %s",
		 kb, _jstr(name, vb));
	return -1;
}

static int _parse_projects(struct parser *p, struct json_object *arr)
{
	gq_config_t *cfg = p->cfg;
	struct lh_table *names = NULL;
	char kb[KP_MAX];
	int n, i, rc = 0;

	n = _open_array(p, arr, "projects", sizeof(*cfg->projects),
			(void **)&cfg->projects, &names);
	if (n <= 0)
		return n;
	cfg->nprojects = n;
	for (i = 0; i < n && !rc; i++)
		rc = _parse_project(p, json_object_array_get_idx(arr, i),
				    _kp_idx(kb, "projects", i), names,
				    &cfg->projects[i]);
	lh_table_free(names);
	if (!rc)
		rc = _check_accounts(p, arr);
	if (!rc)
		rc = _no_root(p, arr);
	return rc;
}

/*
 * "pools": each a name and its partitions; a partition is in one pool.
 * O(partitions^2) over all pools, once per load.
 */
static int _parse_pools(struct parser *p, struct json_object *arr)
{
	gq_config_t *cfg = p->cfg;
	struct lh_table *names = NULL;
	char kb[KP_MAX], pk[KP_MAX], vb[VAL_BUF], pb[VAL_BUF];
	int n, i, j, k, m, rc = 0;

	n = _open_array(p, arr, "pools", sizeof(*cfg->pools),
			(void **)&cfg->pools, &names);
	if (n <= 0) {
		if (!n)
			_set_err(p, "pools: must be a non-empty array of pools (leave the key out for one pool), got []");
		return -1;
	}
	cfg->npools = n;
	for (i = 0; i < n && !rc; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i), *v;
		gq_pool_cfg_t *pc = &cfg->pools[i];

		_kp_idx(kb, "pools", i);
		if (_need_type(p, o, kb, json_type_object, "an object") ||
		    _check_keys(p, o, kb, pool_keys)) {
			rc = -1;
			break;
		}
		if (_field(p, o, kb, "name", true, &v, &rc)) {
			char nb[KP_MAX];

			_kp_key(nb, kb, "name");
			if (_get_string(p, v, nb, &pc->name))
				rc = -1;
			else if (lh_table_lookup_ex(names, pc->name, NULL))
				_set_err(p, "%s: duplicate pool %s", nb,
					 _jstr(pc->name, vb)), rc = -1;
			else if (lh_table_insert(names, pc->name, NULL))
				rc = _oom(p);
		}
		if (rc || !_field(p, o, kb, "partitions", true, &v, &rc) ||
		    _get_str_array(p, v, _kp_key(pk, kb, "partitions"),
				   "partition", false, &pc->partitions,
				   &pc->npartitions)) {
			rc = -1;
			break;
		}
		for (j = 0; j < pc->npartitions && !rc; j++)
			for (k = 0; k < i && !rc; k++)
				for (m = 0; m < cfg->pools[k].npartitions; m++)
					if (!strcmp(pc->partitions[j],
						    cfg->pools[k].partitions[m])) {
						_set_err(p, "pools[%d].partitions[%d]: partition %s is already in pool %s",
							 i, j,
							 _jstr(pc->partitions[j], vb),
							 _jstr(cfg->pools[k].name, pb));
						rc = -1;
						break;
					}
	}
	lh_table_free(names);
	return rc;
}

/* settings.usage_half_life (seconds) and usage_weight. */
static int _parse_usage(struct parser *p, struct json_object *obj,
			gq_settings_t *s)
{
	struct json_object *v;
	int rc = 0;

	if (_field(p, obj, "settings", "usage_half_life", false, &v, &rc) &&
	    _get_int(p, v, "settings.usage_half_life", 0, "0",
		     &s->usage_half_life))
		return -1;
	if (s->usage_half_life > GQ_HALF_LIFE_MAX) {
		_set_err(p, "settings.usage_half_life: must be an integer <= %d (seconds, a year), got %d",
			 GQ_HALF_LIFE_MAX, s->usage_half_life);
		return -1;
	}
	if (_field(p, obj, "settings", "usage_weight", false, &v, &rc) &&
	    _get_real(p, v, "settings.usage_weight", GQ_WEIGHT_MAX,
		      &s->usage_weight))
		return -1;
	return rc;
}

/* settings.multifactor and settings.mode ("enforce" or "observe") */
static int _parse_switches(struct parser *p, struct json_object *obj,
			   gq_settings_t *s)
{
	struct json_object *v;
	char vb[VAL_BUF];
	int rc = 0;

	if (_field(p, obj, "settings", "multifactor", false, &v, &rc) &&
	    _get_bool(p, v, "settings.multifactor", &s->multifactor))
		return -1;
	if (!_field(p, obj, "settings", "mode", false, &v, &rc))
		return rc;
	if (json_object_is_type(v, json_type_string) &&
	    !strcmp(json_object_get_string(v), "enforce")) {
		s->mode = GQ_MODE_ENFORCE;
	} else if (json_object_is_type(v, json_type_string) &&
		   !strcmp(json_object_get_string(v), "observe")) {
		s->mode = GQ_MODE_OBSERVE;
	} else {
		_set_err(p, "settings.mode: must be \"enforce\" or \"observe\", got %s",
			 _jval(v, vb));
		return -1;
	}
	return 0;
}

static int _parse_settings(struct parser *p, struct json_object *obj)
{
	gq_settings_t *s = &p->cfg->settings;
	struct json_object *v;
	char vb[VAL_BUF];
	int rc = 0;

	if (_need_type(p, obj, "settings", json_type_object, "an object") ||
	    _check_keys(p, obj, "settings", settings_keys))
		return -1;
	if (_field(p, obj, "settings", "min_runtime", false, &v, &rc) &&
	    _get_int(p, v, "settings.min_runtime", 0, "0", &s->min_runtime))
		return -1;
	if (_parse_budget(p, obj, s))
		return -1;
	if (_field(p, obj, "settings", "grace_time", false, &v, &rc) &&
	    _get_grace(p, v, "settings.grace_time", &s->grace_time))
		return -1;
	if (_field(p, obj, "settings", "reclaim_patience", false, &v, &rc) &&
	    _get_int(p, v, "settings.reclaim_patience", 0, "0",
		     &s->reclaim_patience))
		return -1;
	if (s->reclaim_patience > GQ_PATIENCE_MAX) {
		_set_err(p, "settings.reclaim_patience: must be an integer <= %d (seconds, a day), got %d",
			 GQ_PATIENCE_MAX, s->reclaim_patience);
		return -1;
	}
	if (_parse_usage(p, obj, s))
		return -1;
	if (_field(p, obj, "settings", "recompute_interval", false, &v, &rc) &&
	    _get_int(p, v, "settings.recompute_interval", 1, "1",
		     &s->recompute_interval))
		return -1;
	if (_field(p, obj, "settings", "room_wait", false, &v, &rc) &&
	    _get_int(p, v, "settings.room_wait", 0, "0", &s->room_wait))
		return -1;
	if (_parse_switches(p, obj, s))
		return -1;
	if (_field(p, obj, "settings", "partitions", false, &v, &rc) &&
	    p->cfg->npools) {
		_set_err(p, "settings.partitions: not with \"pools\" (each pool lists its partitions), got %s",
			 _jval(v, vb));
		return -1;
	}
	if (_field(p, obj, "settings", "partitions", false, &v, &rc) &&
	    _get_str_array(p, v, "settings.partitions", "partition", false,
			   &s->partitions, &s->npartitions))
		return -1;
	return 0;
}

/* ----- entry points ------------------------------------------------------ */

/* 1-based line and column (in characters) of byte offset off of text. */
static void _line_col(const char *text, size_t off, size_t *line, size_t *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off && text[i]; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)text[i] & 0xC0) != 0x80) {
			(*col)++;
		}
	}
}

static const char *_tok_error(enum json_tokener_error e)
{
	switch (e) {
	case json_tokener_error_depth:
		return "nesting too deep";
	case json_tokener_error_parse_eof:
	case json_tokener_continue:
		return "unexpected end of input";
	case json_tokener_error_parse_utf8_string:
		return "invalid UTF-8";
	default:
		return json_tokener_error_desc(e);
	}
}

gq_config_t *gq_config_empty(void)
{
	gq_config_t *cfg = calloc(1, sizeof(*cfg));

	if (!cfg)
		return NULL;
	cfg->settings.min_runtime = GQ_DEFAULT_MIN_RUNTIME;
	cfg->settings.recompute_interval = GQ_DEFAULT_INTERVAL;
	cfg->settings.grace_time = GQ_DEFAULT_GRACE_TIME;
	cfg->settings.room_wait = GQ_DEFAULT_ROOM_WAIT;
	cfg->settings.usage_weight = GQ_DEFAULT_USAGE_WEIGHT;
	cfg->settings.multifactor = true;
	cfg->settings.requeue_budget_window = GQ_DEFAULT_BUDGET_WINDOW;
	return cfg;
}

bool gq_config_has_budget(const gq_config_t *cfg)
{
	int i;

	if (!cfg)
		return false;
	for (i = 0; i < cfg->nprojects; i++)
		if (gq_config_requeue_budget(cfg, cfg->projects[i].name) > 0)
			return true;
	return cfg->settings.requeue_budget > 0;
}

double gq_config_requeue_budget(const gq_config_t *cfg, const char *project)
{
	int i;

	if (!cfg)
		return 0;
	for (i = 0; project && i < cfg->nprojects; i++)
		if (!strcmp(cfg->projects[i].name, project))
			return cfg->projects[i].requeue_budget != GQ_UNSET ?
				       cfg->projects[i].requeue_budget :
				       cfg->settings.requeue_budget;
	return cfg->settings.requeue_budget;
}

/*
 * Where a single quote stands outside a string, or -1: json-c takes
 * 'text' as a string even in strict mode; JSON does not.  O(length).
 */
static size_t _single_quote(const char *text)
{
	bool in_string = false;
	size_t i;

	for (i = 0; text[i]; i++) {
		if (in_string && text[i] == '\\' && text[i + 1])
			i++;
		else if (text[i] == '"')
			in_string = !in_string;
		else if (!in_string && text[i] == '\'')
			return i;
	}
	return (size_t)-1;
}

/* A key of an object being scanned: its bytes between the quotes. */
typedef struct {
	const char *s;
	size_t n;
} key_span_t;

static int _cmp_span(const void *a, const void *b)
{
	const key_span_t *x = a, *y = b;
	int c;

	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	if ((c = memcmp(x->s, y->s, x->n)))
		return c;
	return x->s < y->s ? -1 : x->s > y->s;
}

/* The later of two equal keys among k[0..n), or NULL.  O(n log n). */
static const char *_twice(key_span_t *k, size_t n)
{
	size_t i;

	if (n < 2)
		return NULL;	/* k may be NULL */
	qsort(k, n, sizeof(*k), _cmp_span);
	for (i = 1; i < n; i++)
		if (k[i].n == k[i - 1].n && !memcmp(k[i].s, k[i - 1].s, k[i].n))
			return k[i].s;
	return NULL;
}

/* Append a key to *keys (n of cap); 0, or -1 out of memory. */
static int _push_key(key_span_t **keys, size_t *n, size_t *cap,
		     const char *s, size_t len)
{
	if (*n == *cap) {
		key_span_t *k = realloc(*keys, (*cap * 2 + 16) * sizeof(**keys));

		if (!k)
			return -1;
		*keys = k;
		*cap = *cap * 2 + 16;
	}
	(*keys)[*n].s = s;
	(*keys)[(*n)++].n = len;
	return 0;
}

#define SCAN_DEPTH 64	/* json-c refuses text nested deeper than 32 */

/*
 * A key written twice in one object of text json-c accepted (json-c keeps
 * the last one silently, and the first one's value is lost): where the
 * later one starts, else NULL.  Keys compare as written.  *oom on out of
 * memory.  O(length + keys x log keys).
 */
static const char *_dup_key(const char *text, bool *oom)
{
	key_span_t *keys = NULL;
	size_t nkeys = 0, cap = 0, first[SCAN_DEPTH];
	bool object[SCAN_DEPTH], want_key = false;
	const char *t, *dup = NULL;
	int depth = 0;

	for (t = text, *oom = false; *t && !dup && !*oom; t++) {
		const char *s = t + 1;

		if (*t == '"') {	/* valid JSON: an escape has its char */
			for (t = s; *t != '"'; t++)
				t += *t == '\\';
			if (want_key && _push_key(&keys, &nkeys, &cap, s,
						  (size_t)(t - s)))
				*oom = true;
			want_key = false;
		} else if ((*t == '{' || *t == '[') && depth < SCAN_DEPTH) {
			object[depth] = want_key = *t == '{';
			first[depth++] = nkeys;
		} else if ((*t == '}' || *t == ']') && depth > 0) {
			depth--;
			if (*t == '}' && nkeys > first[depth])
				dup = _twice(keys + first[depth],
					     nkeys - first[depth]);
			nkeys = first[depth];
		} else if (*t == ',') {
			want_key = depth > 0 && object[depth - 1];
		}
	}
	free(keys);
	return dup;
}

/* A key written twice in one object: refused, where it is named. */
static int _no_dup_key(struct parser *p, const char *text)
{
	char kb[KP_MAX], vb[VAL_BUF];
	size_t n, line, col;
	bool oom;
	const char *dup = _dup_key(text, &oom);

	if (oom)
		return _oom(p);
	if (!dup)
		return 0;
	for (n = 0; dup[n] != '"' && n < KP_MAX - 1; n++)
		n += dup[n] == '\\' && n < KP_MAX - 2;
	snprintf(kb, sizeof(kb), "%.*s", (int)n, dup);
	_line_col(text, (size_t)(dup - 1 - text), &line, &col);
	_set_err(p, "malformed JSON at line %zu, column %zu: key %s written twice in one object (the first would be lost)",
		 line, col, _jstr(kb, vb));
	return -1;
}

/*
 * The text as JSON: a leading byte order mark skipped, a second refused,
 * single quotes named, json-c strict.  NULL with the error set.
 */
static struct json_object *_tokenize(struct parser *p, const char *text)
{
	struct json_tokener *tok;
	struct json_object *root;
	enum json_tokener_error e;
	size_t len, quote, line, col;

	if (!strncmp(text, UTF8_BOM, strlen(UTF8_BOM)))	/* byte order mark */
		text += strlen(UTF8_BOM);
	if (!strncmp(text, UTF8_BOM, strlen(UTF8_BOM))) {
		_set_err(p, "malformed JSON at line 1, column 1: a second byte order mark (at most one, at the start)");
		return NULL;
	}
	len = strlen(text);
	if (len >= INT_MAX) {
		_set_err(p, "file too large");
		return NULL;
	}
	if ((quote = _single_quote(text)) != (size_t)-1) {
		_line_col(text, quote, &line, &col);
		_set_err(p, "malformed JSON at line %zu, column %zu: single quote (JSON strings take double quotes)",
			 line, col);
		return NULL;
	}
	tok = json_tokener_new();
	if (!tok) {
		_oom(p);
		return NULL;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
			       JSON_TOKENER_VALIDATE_UTF8);
	/* length + 1 takes in the NUL: the input ends there */
	root = json_tokener_parse_ex(tok, text, (int)len + 1);
	e = json_tokener_get_error(tok);
	if (!root && e == json_tokener_success)
		e = json_tokener_error_parse_unexpected;	/* not reached */
	if (e != json_tokener_success) {
		_line_col(text, json_tokener_get_parse_end(tok), &line, &col);
		_set_err(p, "malformed JSON at line %zu, column %zu: %s",
			 line, col, _tok_error(e));
		json_object_put(root);
		root = NULL;
	}
	json_tokener_free(tok);
	if (root && _no_dup_key(p, text)) {
		json_object_put(root);
		root = NULL;
	}
	return root;
}

int gq_config_parse(const char *text, const char *path, gq_config_t **out,
		    char *err, size_t errlen)
{
	struct parser p = { .path = path, .err = err, .errlen = errlen };
	struct json_object *root, *v;
	char vb[VAL_BUF];
	int rc = 0;

	if (err && errlen)
		err[0] = '\0';
	if (!out) {
		_set_err(&p, "no place to store the configuration");
		return -1;
	}
	*out = NULL;
	if (!(root = _tokenize(&p, text ? text : "")))
		return -1;
	if (!json_object_is_type(root, json_type_object)) {
		_set_err(&p, "top level: must be an object, got %s",
			 _jval(root, vb));
		json_object_put(root);
		return -1;
	}

	p.cfg = gq_config_empty();
	if (!p.cfg) {
		json_object_put(root);
		return _oom(&p);
	}
	if (_check_keys(&p, root, "", top_keys))
		goto fail;
	/* pools first: numbers refer to them; then departments: projects
	 * refer to them */
	if (_field(&p, root, "", "pools", false, &v, &rc) &&
	    _parse_pools(&p, v))
		goto fail;
	if (_field(&p, root, "", "departments", false, &v, &rc) &&
	    _parse_depts(&p, v))
		goto fail;
	if (!_field(&p, root, "", "projects", true, &v, &rc) ||
	    _parse_projects(&p, v))
		goto fail;
	if (_field(&p, root, "", "settings", false, &v, &rc) &&
	    _parse_settings(&p, v))
		goto fail;

	json_object_put(root);
	*out = p.cfg;
	return 0;
fail:
	json_object_put(root);
	gq_config_free(p.cfg);
	return -1;
}

static long required_owner = -1;

void gq_config_require_owner(long uid)
{
	required_owner = uid;
}

/* The owner and mode of the open file, when a trusted owner is required. */
static int _trusted(struct parser *p, int fd)
{
	struct stat st;

	if (required_owner < 0)
		return 0;
	if (fstat(fd, &st)) {
		_set_err(p, "cannot read: %s", strerror(errno));
		return -1;
	}
	if (st.st_uid != 0 && (long)st.st_uid != required_owner) {
		_set_err(p, "cannot trust: owned by uid %ld, not root or SlurmUser (uid %ld); this file decides whose GPUs may be taken",
			 (long)st.st_uid, required_owner);
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		_set_err(p, "cannot trust: writable by %s (mode %04o); this file decides whose GPUs may be taken",
			 st.st_mode & S_IWOTH ? "anyone" : "its group",
			 (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

int gq_config_load(const char *path, gq_config_t **out, char *err,
		   size_t errlen)
{
	return gq_config_load_text(path, out, NULL, err, errlen);
}

/*
 * The whole of fd into *buf (NUL-terminated, *len bytes before it),
 * growing it by doubling up to json-c's int length.  -1 with p's error
 * (and *buf the caller's to free).
 */
static int _read_all(struct parser *p, int fd, char **buf, size_t *len)
{
	size_t cap = 0;

	for (*len = 0;;) {
		ssize_t r;

		if (cap - *len < 2) {
			size_t ncap = cap ? cap * 2 : READ_FIRST;
			char *nb;

			if (ncap > (size_t)INT_MAX + 1) {
				/* json-c takes an int length */
				if (cap >= (size_t)INT_MAX + 1) {
					_set_err(p, "cannot read: file too large");
					return -1;
				}
				ncap = (size_t)INT_MAX + 1;
			}
			if (!(nb = realloc(*buf, ncap)))
				return _oom(p);
			*buf = nb;
			cap = ncap;
		}
		r = read(fd, *buf + *len, cap - *len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			_set_err(p, "cannot read: %s", strerror(errno));
			return -1;
		}
		if (r == 0)
			break;
		*len += (size_t)r;
	}
	(*buf)[*len] = '\0';
	return 0;
}

/* A NUL byte inside the text: an error naming its line and column. */
static int _no_nul(struct parser *p, const char *buf, size_t len)
{
	const char *nul = memchr(buf, '\0', len);
	size_t line, col;

	if (!nul)
		return 0;
	_line_col(buf, (size_t)(nul - buf), &line, &col);
	_set_err(p, "malformed JSON at line %zu, column %zu: NUL byte", line,
		 col);
	return -1;
}

int gq_config_load_text(const char *path, gq_config_t **out, char **text,
			char *err, size_t errlen)
{
	struct parser p = { .path = path, .err = err, .errlen = errlen };
	size_t len = 0;
	char *buf = NULL;
	int fd, rc = -1;

	if (err && errlen)
		err[0] = '\0';
	if (out)
		*out = NULL;
	if (!path) {
		_set_err(&p, "cannot read: no file name");
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		_set_err(&p, "cannot read: %s", strerror(errno));
		return -1;
	}
	if (!_trusted(&p, fd) && !_read_all(&p, fd, &buf, &len) &&
	    !_no_nul(&p, buf, len))
		rc = gq_config_parse(buf, path, out, err, errlen);
	close(fd);
	if (!rc && text)
		*text = buf;	/* the caller's */
	else
		free(buf);
	return rc;
}

static void _free_strv(char **v, int n)
{
	int i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void gq_config_free(gq_config_t *cfg)
{
	int i;

	if (!cfg)
		return;
	for (i = 0; i < cfg->nprojects; i++) {
		free(cfg->projects[i].name);
		free(cfg->projects[i].by_pool);
		_free_strv(cfg->projects[i].accounts,
			   cfg->projects[i].naccounts);
	}
	free(cfg->projects);
	for (i = 0; i < cfg->ndepts; i++) {
		free(cfg->depts[i].name);
		free(cfg->depts[i].by_pool);
	}
	free(cfg->depts);
	for (i = 0; i < cfg->npools; i++) {
		free(cfg->pools[i].name);
		_free_strv(cfg->pools[i].partitions,
			   cfg->pools[i].npartitions);
	}
	free(cfg->pools);
	_free_strv(cfg->settings.partitions, cfg->settings.npartitions);
	free(cfg);
}

/* A copy of n strings (n 0: NULL); false when out of memory. */
static bool _copy_strv(char **from, int n, char ***to)
{
	int i;

	*to = NULL;
	if (!n)
		return true;
	if (!(*to = calloc(n, sizeof(**to))))
		return false;
	for (i = 0; i < n; i++)
		if (!((*to)[i] = strdup(from[i])))
			return false;
	return true;
}

/* pool k's numbers, or the only ones (by_pool NULL: no pools) */
static void _set_numbers(const gq_pool_numbers_t *by_pool, int k, int *quota,
			 double *weight, int *limit)
{
	if (!by_pool)
		return;
	*quota = by_pool[k].gpu_quota;
	*weight = by_pool[k].over_quota_weight;
	*limit = by_pool[k].gpu_limit;
}

/* O(projects + accounts + departments), once per pool and load. */
gq_config_t *gq_config_pool(const gq_config_t *cfg, int k)
{
	const gq_settings_t *from = cfg ? &cfg->settings : NULL;
	char **parts;
	gq_config_t *c;
	int i, nparts;

	if (!cfg || k < 0 || k >= (cfg->npools ? cfg->npools : 1) ||
	    !(c = gq_config_empty()))
		return NULL;
	parts = cfg->npools ? cfg->pools[k].partitions : from->partitions;
	nparts = cfg->npools ? cfg->pools[k].npartitions : from->npartitions;
	c->settings = *from;
	c->settings.npartitions = nparts;
	if (!_copy_strv(parts, nparts, &c->settings.partitions))
		goto fail;
	if (cfg->nprojects &&
	    !(c->projects = calloc(cfg->nprojects, sizeof(*c->projects))))
		goto fail;
	for (i = 0; i < cfg->nprojects; i++, c->nprojects++) {
		const gq_project_cfg_t *f = &cfg->projects[i];
		gq_project_cfg_t *t = &c->projects[i];

		t->department = f->department;
		t->grace_time = f->grace_time;
		t->requeue_budget = f->requeue_budget;
		t->gpu_quota = f->gpu_quota;
		t->over_quota_weight = f->over_quota_weight;
		t->gpu_limit = f->gpu_limit;
		_set_numbers(f->by_pool, k, &t->gpu_quota,
			     &t->over_quota_weight, &t->gpu_limit);
		t->naccounts = f->naccounts;
		if (!(t->name = strdup(f->name)) ||
		    !_copy_strv(f->accounts, f->naccounts, &t->accounts))
			goto fail;
	}
	if (cfg->ndepts &&
	    !(c->depts = calloc(cfg->ndepts, sizeof(*c->depts))))
		goto fail;
	for (i = 0; i < cfg->ndepts; i++, c->ndepts++) {
		const gq_dept_cfg_t *f = &cfg->depts[i];
		gq_dept_cfg_t *t = &c->depts[i];

		t->gpu_quota = f->gpu_quota;
		t->over_quota_weight = f->over_quota_weight;
		t->gpu_limit = f->gpu_limit;
		_set_numbers(f->by_pool, k, &t->gpu_quota,
			     &t->over_quota_weight, &t->gpu_limit);
		if (!(t->name = strdup(f->name)))
			goto fail;
	}
	return c;
fail:
	gq_config_free(c);
	return NULL;
}

char *gq_config_path(const char *slurm_conf_path, const char *priority_params)
{
	const char *key = "gpuquota_config=", *p = priority_params;
	const char *slash;
	char *path;
	size_t n;

	/* a whole item of the comma list, not a suffix of another key */
	while (p && (p = strstr(p, key))) {
		if (p == priority_params || p[-1] == ',') {
			p += strlen(key);
			return strndup(p, strcspn(p, ","));
		}
		p++;
	}
	if (!slurm_conf_path || !*slurm_conf_path)
		slurm_conf_path = "/etc/slurm/slurm.conf";
	slash = strrchr(slurm_conf_path, '/');
	n = slash ? (size_t)(slash - slurm_conf_path + 1) : 0;
	if (!(path = malloc(n + sizeof(CONFIG_NAME))))
		return NULL;
	memcpy(path, slurm_conf_path, n);
	strcpy(path + n, CONFIG_NAME);
	return path;
}
