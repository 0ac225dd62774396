/*
 * running_config.c - the running configuration's record and its file
 * (see running_config.h).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "state/running_config.h"
#include "tools/atomic_file.h"

uint64_t gq_running_hash(const char *text, size_t len)
{
	uint64_t h = 14695981039346656037ULL;	/* FNV-1a 64 offset basis */
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)text[i];
		h *= 1099511628211ULL;	/* FNV-1a 64 prime */
	}
	return h;
}

void gq_running_hash_hex(uint64_t h, char buf[GQ_HASH_HEX])
{
	snprintf(buf, GQ_HASH_HEX, "%016" PRIx64, h);
}

char *gq_running_file_path(const char *dir)
{
	return gq_state_file_path(dir, GQ_RUNNING_FILE);
}

int gq_running_loaded(gq_running_t *r, const char *path, char *text,
		      size_t len, int64_t now)
{
	char *p = strdup(path);

	if (!p) {
		free(text);
		return -1;
	}
	free(r->path);
	free(r->text);
	r->path = p;
	r->hash = gq_running_hash(text, len);
	r->loaded_at = now;
	/* too large to publish: the hash alone */
	r->text = len <= GQ_RUNNING_TEXT_MAX ? text : NULL;
	r->len = r->text ? len : 0;
	if (!r->text)
		free(text);
	return 0;
}

void gq_running_failed(gq_running_t *r, const char *path, const char *err,
		       int64_t now)
{
	free(r->failed_path);
	r->failed_path = strdup(path);	/* NULL, out of memory: not named */
	r->failed_at = now;
	snprintf(r->failed_err, sizeof(r->failed_err), "%s", err);
}

static void _add_str(json_object *o, const char *key, const char *s,
		     size_t len)
{
	if (s)
		json_object_object_add(o, key,
				       json_object_new_string_len(s, (int)len));
}

static void _write(FILE *f, const void *ctx)
{
	const gq_running_t *r = ctx;
	json_object *o = json_object_new_object(), *fail;
	char hex[GQ_HASH_HEX];

	if (!o)		/* out of memory: an empty file, refused on read */
		return;
	gq_running_hash_hex(r->hash, hex);
	json_object_object_add(o, "version",
			       json_object_new_int(GQ_RUNNING_VERSION));
	_add_str(o, "path", r->path, r->path ? strlen(r->path) : 0);
	_add_str(o, "text", r->text, r->len);
	json_object_object_add(o, "hash", json_object_new_string(hex));
	json_object_object_add(o, "loaded_at",
			       json_object_new_int64(r->loaded_at));
	if (r->failed_at) {
		fail = json_object_new_object();
		json_object_object_add(fail, "at",
				       json_object_new_int64(r->failed_at));
		_add_str(fail, "path", r->failed_path,
			 r->failed_path ? strlen(r->failed_path) : 0);
		_add_str(fail, "error", r->failed_err, strlen(r->failed_err));
		json_object_object_add(o, "failed", fail);
	}
	fprintf(f, "%s\n", json_object_to_json_string_ext(
			o, JSON_C_TO_STRING_PLAIN |
			JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

int gq_running_file_write(const gq_running_t *r, const char *path,
			  char *err, size_t errlen)
{
	return gq_atomic_write(path, _write, r, err, errlen);
}

/* key of root as a string: 0 (*s NULL when absent and !need), or -1 */
static int _str(json_object *root, const char *key, bool need,
		const char **s, size_t *len, const char *path, char *err,
		size_t errlen)
{
	json_object *v;

	*s = NULL;
	if (!json_object_object_get_ex(root, key, &v))
		v = NULL;
	if (!v && !need)
		return 0;
	if (!v || !json_object_is_type(v, json_type_string)) {
		snprintf(err, errlen, "%s: %s: %s", path, key,
			 v ? "must be a string" : "missing");
		return -1;
	}
	*s = json_object_get_string(v);
	if (len)
		*len = (size_t)json_object_get_string_len(v);
	return 0;
}

/* key of root as an integer >= 0 (absent: 0 unless need), or -1 */
static int _int(json_object *root, const char *key, bool need,
		int64_t *out, const char *path, char *err, size_t errlen)
{
	json_object *v;

	*out = 0;
	if (!json_object_object_get_ex(root, key, &v))
		v = NULL;
	if (!v && !need)
		return 0;
	if (!v || !json_object_is_type(v, json_type_int) ||
	    (*out = json_object_get_int64(v)) < 0) {
		snprintf(err, errlen, "%s: %s: %s", path, key,
			 v ? "must be an integer >= 0" : "missing");
		return -1;
	}
	return 0;
}

static char *_dup(const char *s, size_t len)
{
	char *d = s ? malloc(len + 1) : NULL;

	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

/* "hash": 16 hex digits into *h, and the text's hash when there is one */
static int _hash(json_object *root, gq_running_t *r, const char *path,
		 char *err, size_t errlen)
{
	const char *s;
	char *end;

	if (_str(root, "hash", true, &s, NULL, path, err, errlen))
		return -1;
	r->hash = strtoull(s, &end, 16);
	if (strlen(s) != GQ_HASH_HEX - 1 || *end) {
		snprintf(err, errlen, "%s: hash: must be 16 hex digits", path);
		return -1;
	}
	if (r->text && gq_running_hash(r->text, r->len) != r->hash) {
		snprintf(err, errlen, "%s: hash: not the hash of text", path);
		return -1;
	}
	return 0;
}

/* "failed": the last failed load, when there is one */
static int _failed(json_object *root, gq_running_t *r, const char *path,
		   char *err, size_t errlen)
{
	json_object *f;
	const char *s, *e;

	if (!json_object_object_get_ex(root, "failed", &f))
		return 0;
	if (!json_object_is_type(f, json_type_object)) {
		snprintf(err, errlen, "%s: failed: must be an object", path);
		return -1;
	}
	if (_int(f, "at", true, &r->failed_at, path, err, errlen) ||
	    _str(f, "path", false, &s, NULL, path, err, errlen) ||
	    _str(f, "error", true, &e, NULL, path, err, errlen))
		return -1;
	r->failed_path = s ? strdup(s) : NULL;
	snprintf(r->failed_err, sizeof(r->failed_err), "%s", e);
	return 0;
}

static int _fields(json_object *root, gq_running_t *r, const char *path,
		   char *err, size_t errlen)
{
	int64_t version;
	const char *s, *text;
	size_t len = 0;

	if (!json_object_is_type(root, json_type_object)) {
		snprintf(err, errlen, "%s: not a JSON object", path);
		return -1;
	}
	if (_int(root, "version", true, &version, path, err, errlen))
		return -1;
	if (version != GQ_RUNNING_VERSION) {
		snprintf(err, errlen, "%s: version: %lld not known (%d is)",
			 path, (long long)version, GQ_RUNNING_VERSION);
		return -1;
	}
	if (_str(root, "path", false, &s, NULL, path, err, errlen) ||
	    _str(root, "text", false, &text, &len, path, err, errlen) ||
	    _int(root, "loaded_at", true, &r->loaded_at, path, err, errlen))
		return -1;
	if ((s && !(r->path = strdup(s))) ||
	    (text && !(r->text = _dup(text, len)))) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	r->len = r->text ? len : 0;
	if (r->text && memchr(r->text, '\0', len)) {
		snprintf(err, errlen, "%s: text: has a NUL byte", path);
		return -1;
	}
	return _hash(root, r, path, err, errlen) ||
	       _failed(root, r, path, err, errlen) ? -1 : 0;
}

int gq_running_file_read(const char *path, gq_running_t *r, char *err,
			 size_t errlen)
{
	json_object *root;
	int rc;

	memset(r, 0, sizeof(*r));
	rc = gq_state_file_json(path, GQ_RUNNING_FILE_BOUND, &root, err,
				errlen);
	if (rc)
		return rc;
	rc = _fields(root, r, path, err, errlen);
	json_object_put(root);
	return rc;
}

void gq_running_free(gq_running_t *r)
{
	free(r->path);
	free(r->text);
	free(r->failed_path);
	memset(r, 0, sizeof(*r));
}

int gq_running_copy(const gq_running_t *from, gq_running_t *to)
{
	*to = *from;
	to->path = from->path ? strdup(from->path) : NULL;
	to->text = _dup(from->text, from->len);
	to->failed_path = from->failed_path ? strdup(from->failed_path) :
			  NULL;
	if ((from->path && !to->path) || (from->text && !to->text) ||
	    (from->failed_path && !to->failed_path)) {
		gq_running_free(to);
		return -1;
	}
	return 0;
}
