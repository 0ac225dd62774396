/*
 * atomic_file.c - replace a small state file whole (see atomic_file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "tools/atomic_file.h"

char *gq_state_file_path(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s/%s", dir, name);
	return p;
}

int gq_state_file_json(const char *path, struct json_object **root,
		       char *err, size_t errlen)
{
	if (access(path, F_OK) && errno == ENOENT) {
		snprintf(err, errlen, "%s: no such file", path);
		return -2;
	}
	if (!(*root = json_object_from_file(path))) {
		snprintf(err, errlen, "%s: not a JSON file: %s", path,
			 json_util_get_last_err());
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
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
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
