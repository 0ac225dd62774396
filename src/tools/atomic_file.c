/*
 * atomic_file.c - replace a small state file whole (see atomic_file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "tools/atomic_file.h"
#include "tools/trusted_file.h"

char *gq_state_file_path(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s/%s", dir, name);
	return p;
}

/* only blanks from s to end */
static bool _blank(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
		s++;
	return s == end;
}

int gq_state_file_json(const char *path, size_t bound,
		       struct json_object **root, char *err, size_t errlen)
{
	json_tokener *tok;
	const char *why = "out of memory";
	char *buf;
	size_t len;
	int rc = gq_file_read(path, bound, &buf, &len, err, errlen);

	*root = NULL;
	if (rc)
		return rc;
	/* bound < 2 GB: json-c takes an int length */
	if ((tok = json_tokener_new())) {
		enum json_tokener_error e;

		*root = json_tokener_parse_ex(tok, buf, (int)len);
		e = json_tokener_get_error(tok);
		why = e != json_tokener_success ? json_tokener_error_desc(e) :
		      !*root ? "no value" : "text after the value";
		if (*root && (e != json_tokener_success ||
			      !_blank(buf + json_tokener_get_parse_end(tok),
				      buf + len))) {
			json_object_put(*root);
			*root = NULL;
		}
		json_tokener_free(tok);
	}
	free(buf);
	if (!*root) {
		snprintf(err, errlen, "%s: not a JSON file: %s", path, why);
		return -1;
	}
	return 0;
}

int gq_atomic_write(const char *path, void (*write)(FILE *f, const void *ctx),
		    const void *ctx, char *err, size_t errlen)
{
	size_t n = strlen(path) + 5;
	char *tmp = malloc(n);
	FILE *f = NULL;
	int fd, rc = -1;

	if (!tmp) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	snprintf(tmp, n, "%s.tmp", path);
	fd = gq_file_create(tmp, 0644);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	write(f, ctx);
	if (ferror(f) | fclose(f)) {	/* both: fclose closes either way */
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path)) {
		snprintf(err, errlen, "%s: rename to %s: %s", tmp, path,
			 strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	free(tmp);
	return rc;
}
