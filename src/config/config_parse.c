/*
 * config_parse.c - the parser's messages and typed getters (see
 * config_parse.h): one error line per problem, "<file>: <key path>: <what
 * is wrong>, got <JSON>", and names checked as config.c says.
 */
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

void gq_cfg_set_err(struct parser *p, const char *fmt, ...)
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
const char *gq_cfg_jval(struct json_object *v, char buf[VAL_BUF])
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
const char *gq_cfg_jstr(const char *s, char buf[VAL_BUF])
{
	struct json_object *o = json_object_new_string(s);
	const char *r;

	if (!o)
		return "\"?\"";
	r = gq_cfg_jval(o, buf);
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
const char *gq_cfg_kp_key(char buf[KP_MAX], const char *parent,
			  const char *key)
{
	char tmp[VAL_BUF];

	if (_plain_key(key))
		snprintf(buf, KP_MAX, "%s%s%s", parent, *parent ? "." : "",
			 key);
	else
		snprintf(buf, KP_MAX, "%s[%s]", parent, gq_cfg_jstr(key, tmp));
	return buf;
}

const char *gq_cfg_kp_idx(char buf[KP_MAX], const char *parent, size_t i)
{
	snprintf(buf, KP_MAX, "%s[%zu]", parent, i);
	return buf;
}

/* ----- typed getters ---------------------------------------------------- */

int gq_cfg_oom(struct parser *p)
{
	gq_cfg_set_err(p, "out of memory");
	return -1;
}

int gq_cfg_need_type(struct parser *p, struct json_object *v, const char *kp,
		     enum json_type t, const char *what)
{
	char vb[VAL_BUF];

	if (json_object_is_type(v, t))
		return 0;
	gq_cfg_set_err(p, "%s: must be %s, got %s", kp, what,
		       gq_cfg_jval(v, vb));
	return -1;
}

/* Every key of obj must be one of allowed[] (NULL-terminated). */
int gq_cfg_check_keys(struct parser *p, struct json_object *obj,
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
			gq_cfg_set_err(p, "%s: unknown key",
				       gq_cfg_kp_key(kb, kp, key));
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
unsigned long gq_cfg_hash_nocase(const void *k)
{
	const unsigned char *s = k;
	unsigned long h = 5381;

	while (*s)
		h = h * 33 + (unsigned long)tolower(*s++);
	return h;
}

int gq_cfg_equal_nocase(const void *a, const void *b)
{
	return !strcasecmp(a, b);
}

/* A name (above) without embedded NUL, copied into *out. */
int gq_cfg_get_string(struct parser *p, struct json_object *v, const char *kp,
		      char **out)
{
	char vb[VAL_BUF];
	const char *s;
	size_t i;

	if (!json_object_is_type(v, json_type_string) ||
	    json_object_get_string_len(v) == 0) {
		gq_cfg_set_err(p, "%s: must be a non-empty string, got %s", kp,
			       gq_cfg_jval(v, vb));
		return -1;
	}
	s = json_object_get_string(v);
	if (strlen(s) != (size_t)json_object_get_string_len(v)) {
		gq_cfg_set_err(p, "%s: must not contain a NUL character, got %s",
			       kp, gq_cfg_jval(v, vb));
		return -1;
	}
	for (i = 0; s[i]; i++)
		if (!gq_config_name_char((unsigned char)s[i]))
			break;
	if (s[i] || i > GQ_NAME_MAX) {
		gq_cfg_set_err(p, "%s: must be a name of at most %d letters, digits, '.', '_' or '-', got %s",
			       kp, GQ_NAME_MAX, gq_cfg_jval(v, vb));
		return -1;
	}
	*out = strdup(s);
	return *out ? 0 : gq_cfg_oom(p);
}

/* A JSON integer in [min, INT_MAX]; minstr names the bound in messages. */
int gq_cfg_get_bool(struct parser *p, struct json_object *v, const char *kp,
		    bool *out)
{
	char vb[VAL_BUF];

	if (!json_object_is_type(v, json_type_boolean)) {
		gq_cfg_set_err(p, "%s: must be true or false, got %s", kp,
			       gq_cfg_jval(v, vb));
		return -1;
	}
	*out = json_object_get_boolean(v);
	return 0;
}

int gq_cfg_get_int(struct parser *p, struct json_object *v, const char *kp,
		   int min, const char *minstr, int *out)
{
	char vb[VAL_BUF];
	int64_t i;

	if (!json_object_is_type(v, json_type_int)) {
		gq_cfg_set_err(p, "%s: must be an integer >= %s, got %s", kp,
			       minstr, gq_cfg_jval(v, vb));
		return -1;
	}
	i = json_object_get_int64(v);	/* uint64 beyond it: INT64_MAX */
	/*
	 * json-c saturates integers past 64 bits to INT64_MIN / UINT64_MAX:
	 * the text is lost, so do not show the clamped value as if written.
	 */
	if (i < min) {
		gq_cfg_set_err(p, "%s: must be an integer >= %s, got %s", kp,
			       minstr,
			       i == INT64_MIN ? "a number beyond 64 bits" :
			       gq_cfg_jval(v, vb));
		return -1;
	}
	if (i > INT_MAX) {
		gq_cfg_set_err(p, "%s: must be an integer <= %d, got %s", kp,
			       INT_MAX,
			       json_object_get_uint64(v) == UINT64_MAX ?
			       "a number beyond 64 bits" : gq_cfg_jval(v, vb));
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
int gq_cfg_get_real(struct parser *p, struct json_object *v, const char *kp,
		    double max, double *out)
{
	char vb[VAL_BUF];
	double d;

	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double)) {
		gq_cfg_set_err(p, "%s: must be a number >= 0, got %s", kp,
			       gq_cfg_jval(v, vb));
		return -1;
	}
	d = json_object_get_double(v);
	if (!isfinite(d)) {
		gq_cfg_set_err(p, "%s: must be a finite number >= 0, got %s",
			       kp, gq_cfg_jval(v, vb));
		return -1;
	}
	if (d < 0) {
		gq_cfg_set_err(p, "%s: must be a number >= 0, got %s", kp,
			       gq_cfg_jval(v, vb));
		return -1;
	}
	if (d != 0 && (d < GQ_REAL_MIN || d > max)) {
		gq_cfg_set_err(p, "%s: must be 0 or from %g to %.0f, got %s",
			       kp, GQ_REAL_MIN, max, gq_cfg_jval(v, vb));
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
int gq_cfg_get_str_array(struct parser *p, struct json_object *v,
			 const char *kp, const char *what, bool dups_ok,
			 char ***out, int *nout)
{
	char vb[VAL_BUF], kb[KP_MAX];
	size_t n, i, j;
	char **a;

	if (!json_object_is_type(v, json_type_array) ||
	    json_object_array_length(v) == 0) {
		gq_cfg_set_err(p, "%s: must be a non-empty array of non-empty strings, got %s",
			       kp, gq_cfg_jval(v, vb));
		return -1;
	}
	n = json_object_array_length(v);
	if (n > INT_MAX) {
		gq_cfg_set_err(p, "%s: too many entries", kp);
		return -1;
	}
	a = calloc(n, sizeof(*a));
	if (!a)
		return gq_cfg_oom(p);
	*out = a;
	*nout = (int)n;	/* entries stay NULL until filled: freeable */
	for (i = 0; i < n; i++) {
		gq_cfg_kp_idx(kb, kp, i);
		if (gq_cfg_get_string(p, json_object_array_get_idx(v, i), kb,
				      &a[i]))
			return -1;
		if (dups_ok)
			continue;
		for (j = 0; j < i; j++) {
			if (!strcmp(a[i], a[j])) {
				gq_cfg_set_err(p, "%s: duplicate %s %s", kb,
					       what, gq_cfg_jstr(a[i], vb));
				return -1;
			}
		}
	}
	return 0;
}

/* obj[key], or "missing required key" when required and absent. */
bool gq_cfg_field(struct parser *p, struct json_object *obj, const char *kp,
		  const char *key, bool required, struct json_object **v,
		  int *rc)
{
	char kb[KP_MAX];

	if (json_object_object_get_ex(obj, key, v))
		return true;
	if (required) {
		gq_cfg_set_err(p, "%s: missing required key",
			       gq_cfg_kp_key(kb, kp, key));
		*rc = -1;
	}
	return false;
}
