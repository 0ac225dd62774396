/*
 * config.c - load and validate gpuquota.json (see config.h; the keys are in
 * man/gpuquota.json.5, the settings' meaning in docs/MODEL.md "Settings").
 *
 * Owns: reading the file, JSON parsing, the top level, building the
 * gq_config_t of config.h and freeing it, a pool's own configuration, and
 * where the file lives (gq_config_path).  The sections are read in
 * config_projects.c and config_settings.c, with the messages and typed
 * getters of config_parse.c (config_parse.h).
 *
 * Every error is one line: "<file>: <key path>: <what is wrong>, got <JSON>".
 * The first problem found is reported; nothing is half-loaded.
 *
 * Choices beyond the contract:
 *  - json-c's STRICT mode plus UTF-8 validation; a leading UTF-8 BOM is
 *    skipped, a second one refused.  Text after the top-level value is an
 *    error.
 *  - json null is never "use the default": an optional key is either absent
 *    or valid.
 *  - settings.partitions, when present, must be non-empty and free of
 *    duplicates (omit the key to mean "all partitions").
 *  - A key written twice in one JSON object is refused (json-c would keep
 *    the last silently): _dup_key scans the text json-c accepted.
 *  - Every string is a name of at most 64 letters, digits, '.', '_' or '-'
 *    (gq_cfg_get_string); accounts compare without case.
 *  - A weight or a requeue budget is 0 or within GQ_REAL_MIN..its max
 *    (gq_cfg_get_real, config.h): no sum or product of them in a pass
 *    overflows or rounds away.
 */
#include "config/config.h"
#include "config/config_parse.h"

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

static const char *const top_keys[] = {
	"projects", "departments", "pools", "settings", NULL
};

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
	cfg->settings.move_window = GQ_DEFAULT_MOVE_WINDOW;
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
		return gq_cfg_oom(p);
	if (!dup)
		return 0;
	for (n = 0; dup[n] != '"' && n < KP_MAX - 1; n++)
		n += dup[n] == '\\' && n < KP_MAX - 2;
	snprintf(kb, sizeof(kb), "%.*s", (int)n, dup);
	_line_col(text, (size_t)(dup - 1 - text), &line, &col);
	gq_cfg_set_err(p, "malformed JSON at line %zu, column %zu: key %s written twice in one object (the first would be lost)",
		       line, col, gq_cfg_jstr(kb, vb));
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
		gq_cfg_set_err(p, "malformed JSON at line 1, column 1: a second byte order mark (at most one, at the start)");
		return NULL;
	}
	len = strlen(text);
	if (len >= INT_MAX) {
		gq_cfg_set_err(p, "file too large");
		return NULL;
	}
	if ((quote = _single_quote(text)) != (size_t)-1) {
		_line_col(text, quote, &line, &col);
		gq_cfg_set_err(p, "malformed JSON at line %zu, column %zu: single quote (JSON strings take double quotes)",
			       line, col);
		return NULL;
	}
	tok = json_tokener_new();
	if (!tok) {
		gq_cfg_oom(p);
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
		gq_cfg_set_err(p, "malformed JSON at line %zu, column %zu: %s",
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
		gq_cfg_set_err(&p, "no place to store the configuration");
		return -1;
	}
	*out = NULL;
	if (!(root = _tokenize(&p, text ? text : "")))
		return -1;
	if (!json_object_is_type(root, json_type_object)) {
		gq_cfg_set_err(&p, "top level: must be an object, got %s",
			       gq_cfg_jval(root, vb));
		json_object_put(root);
		return -1;
	}

	p.cfg = gq_config_empty();
	if (!p.cfg) {
		json_object_put(root);
		return gq_cfg_oom(&p);
	}
	if (gq_cfg_check_keys(&p, root, "", top_keys))
		goto fail;
	/* pools first: numbers refer to them; then departments: projects
	 * refer to them */
	if (gq_cfg_field(&p, root, "", "pools", false, &v, &rc) &&
	    gq_cfg_parse_pools(&p, v))
		goto fail;
	if (gq_cfg_field(&p, root, "", "departments", false, &v, &rc) &&
	    gq_cfg_parse_depts(&p, v))
		goto fail;
	if (!gq_cfg_field(&p, root, "", "projects", true, &v, &rc) ||
	    gq_cfg_parse_projects(&p, v))
		goto fail;
	if (gq_cfg_field(&p, root, "", "settings", false, &v, &rc) &&
	    gq_cfg_parse_settings(&p, v))
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
		gq_cfg_set_err(p, "cannot read: %s", strerror(errno));
		return -1;
	}
	if (st.st_uid != 0 && (long)st.st_uid != required_owner) {
		gq_cfg_set_err(p, "cannot trust: owned by uid %ld, not root or SlurmUser (uid %ld); this file decides whose GPUs may be taken",
			       (long)st.st_uid, required_owner);
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		gq_cfg_set_err(p, "cannot trust: writable by %s (mode %04o); this file decides whose GPUs may be taken",
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
					gq_cfg_set_err(p, "cannot read: file too large");
					return -1;
				}
				ncap = (size_t)INT_MAX + 1;
			}
			if (!(nb = realloc(*buf, ncap)))
				return gq_cfg_oom(p);
			*buf = nb;
			cap = ncap;
		}
		r = read(fd, *buf + *len, cap - *len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			gq_cfg_set_err(p, "cannot read: %s", strerror(errno));
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
	gq_cfg_set_err(p, "malformed JSON at line %zu, column %zu: NUL byte",
		       line, col);
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
		gq_cfg_set_err(&p, "cannot read: no file name");
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		gq_cfg_set_err(&p, "cannot read: %s", strerror(errno));
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
