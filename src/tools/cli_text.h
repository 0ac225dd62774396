/*
 * cli_text.h - a command line's text, as Slurm's own tools read and
 * write it: comma lists (squeue -A a,b), table rows padded or parsable
 * (sacctmgr/sshare -P) and a time as sacct's --starttime takes it.
 */
#ifndef GPUQUOTA_TOOLS_CLI_TEXT_H
#define GPUQUOTA_TOOLS_CLI_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Is `name` one of the comma-separated items of `list` (empty items
 * skipped)?  A NULL list holds everything.  Compared without case when
 * nocase.
 */
bool gq_list_has(const char *list, const char *name, bool nocase);

/*
 * The items of `list` one by one: *pos starts at 0; copies the next
 * non-empty item into buf (truncated to n - 1) and returns true, or
 * false at the end.
 */
bool gq_list_next(const char *list, size_t *pos, char *buf, size_t n);

/* A table's column: its width (0: not padded) and its alignment. */
typedef struct {
	int width;
	bool right;
	int max;	/* text cut to max characters when padded; 0: not cut */
} gq_col_t;

/*
 * One row of n cells to f: padded to the columns and separated by a
 * space; parsable: separated by '|', not padded nor cut, nothing after
 * the last (sacctmgr -P).  A NULL cell is empty.
 */
void gq_table_row(FILE *f, bool parsable, const gq_col_t *cols,
		  const char *const *cells, int n);

/*
 * A time as sacct's -S takes it, in seconds since the epoch (UTC):
 *   YYYY-MM-DD[THH:MM[:SS]]    a date, and a time of that day
 *   now[{+|-}COUNT[UNIT]]      now, or that long before or after
 *   -COUNT[UNIT]               that long before now
 * UNIT: s (default), m, h, d, w, or sacct's words (seconds, minutes,
 * hours, days, weeks, singular too).  Returns 0, or -1 when s is none
 * of these.
 */
int gq_time_arg(const char *s, int64_t now, int64_t *out);

#endif
