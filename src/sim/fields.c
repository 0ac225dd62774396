/*
 * fields.c - separated fields of a history file (see fields.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/fields.h"

bool gq_sim_split(char *line, char sep, gq_sim_fields_t *out)
{
	char *p = line;

	line[strcspn(line, "\r\n")] = '\0';
	out->n = 0;
	while (true) {
		char *e = strchr(p, sep);

		if (out->n == GQ_SIM_FIELDS_MAX)
			return false;
		out->f[out->n++] = p;
		if (!e)
			return true;
		*e = '\0';
		p = e + 1;
	}
}

int gq_sim_column(const gq_sim_fields_t *header, const char *name)
{
	int i;

	for (i = 0; i < header->n; i++)
		if (!strcmp(header->f[i], name))
			return i;
	return -1;
}

int gq_sim_error(char *err, size_t errlen, const char *path, size_t line,
		 const char *field, const char *what, const char *value)
{
	if (value)
		snprintf(err, errlen, "%s:%zu: %s: %s, got '%s'", path, line,
			 field, what, value);
	else
		snprintf(err, errlen, "%s:%zu: %s: %s", path, line, field,
			 what);
	return -1;
}

bool gq_sim_int(const char *s, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long v;

	if (!*s || (*s != '-' && (*s < '0' || *s > '9')))
		return false;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

int gq_sim_read_file(const char *path, size_t *ln,
		     int (*header)(void *ctx, char *line),
		     int (*row)(void *ctx, char *line), void *ctx, char *err,
		     size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;

	*ln = 0;
	if (!f)
		return gq_sim_error(err, errlen, path, 0, "file", "cannot open",
				    NULL);
	while (!rc && getline(&line, &cap, f) > 0) {
		++*ln;
		if (*ln == 1)
			rc = header(ctx, line);
		else if (line[strspn(line, " \t\r\n")])
			rc = row(ctx, line);
	}
	if (!rc && *ln == 0)
		rc = gq_sim_error(err, errlen, path, 0, "header", "empty file",
				  NULL);
	free(line);
	fclose(f);
	return rc;
}
