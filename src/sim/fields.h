/*
 * fields.h - a line of separated fields, as the history readers
 * (trace_csv.c, sacct.c) read their files: split in place, columns found
 * by their header's names, and the one form of a reader's error,
 * "FILE:LINE: FIELD: what, got 'VALUE'".  No Slurm header here.
 */
#ifndef GPUQUOTA_SIM_FIELDS_H
#define GPUQUOTA_SIM_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GQ_SIM_FIELDS_MAX 64

typedef struct {
	char *f[GQ_SIM_FIELDS_MAX];
	int n;
} gq_sim_fields_t;

/*
 * Split `line` (its newline, and a CR before it, cut) at each `sep` into
 * out; false when it has more than GQ_SIM_FIELDS_MAX fields.  O(line).
 */
bool gq_sim_split(char *line, char sep, gq_sim_fields_t *out);

/* The column named `name` in a header, or -1.  O(columns). */
int gq_sim_column(const gq_sim_fields_t *header, const char *name);

/*
 * A reader's error into err: "<path>:<line>: <field>: <what>[, got
 * '<value>']" (value NULL: none).  Returns -1.
 */
int gq_sim_error(char *err, size_t errlen, const char *path, size_t line,
		 const char *field, const char *what, const char *value);

/*
 * The file at path line by line: its first line to header(), each other
 * line that is not blank to row(), until one fails (-1, err set by it);
 * *ln is the line's number meanwhile.  Returns 0 or -1 (also for a file
 * that cannot be opened or is empty, err naming it).  O(file).
 */
int gq_sim_read_file(const char *path, size_t *ln,
		     int (*header)(void *ctx, char *line),
		     int (*row)(void *ctx, char *line), void *ctx, char *err,
		     size_t errlen);

/* A decimal integer in [min, max], the whole text.  O(text). */
bool gq_sim_int(const char *s, int64_t min, int64_t max, int64_t *out);

#endif
