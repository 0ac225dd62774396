/*
 * log.c - slurmctld's log in the glue tests: into a file of its own, and
 * the lines of it that say something.
 */
#include <stdio.h>
#include <string.h>

#include "shared/slurm_compat.h"

#include "glue.h"
#include "helpers.h"

char *glue_log_to_file(void)
{
	log_options_t o = LOG_OPTS_INITIALIZER;
	char *path = write_temp("");

	o.stderr_level = LOG_LEVEL_QUIET;
	o.syslog_level = LOG_LEVEL_QUIET;
	o.logfile_level = LOG_LEVEL_INFO;
	ck_assert_int_eq(log_init("glue", o, LOG_DAEMON, path), 0);
	return path;
}

int glue_log_lines(const char *path, const char *s)
{
	FILE *f = fopen(path, "r");
	char line[2048];
	int n = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, s) != NULL;
	fclose(f);
	return n;
}
