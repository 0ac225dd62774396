/*
 * throttle_file.h - the lines of gpuquota's array throttle file
 * (StateSaveLocation/gpuquota-array-throttles) and which job an entry
 * belongs to.  Plain C: the plugin (src/plugins/array_throttle.c) reads
 * and writes the file, this decides what a line says.
 *
 * A line: "job_id submit_time user_throttle gpuquota_throttle".  The
 * job id alone does not name a job: Slurm gives the id of a job it lost
 * in a crash (acknowledged, not yet saved) to the next submit, so an
 * entry also carries the array's submit time (details->submit_time),
 * which Slurm saves and restores with the job and changes only on a
 * requeue, which a pending array record cannot have (Slurm refuses to
 * requeue a pending job).  A new job with a reused id was submitted after
 * the restart, later than any entry of the lost one.
 *
 * Files written before the submit time was kept have three fields; such
 * an entry has submit time 0 ("unknown") and belongs to a job with its id
 * submitted no later than the file was last written (a reused id's job
 * came after the restart, so after the file).
 */
#ifndef GPUQUOTA_THROTTLE_FILE_H
#define GPUQUOTA_THROTTLE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* The file's name in StateSaveLocation. */
#define GQ_THROTTLE_FILE "gpuquota-array-throttles"
/* The file's size bound: a line is at most 53 bytes, so 64 MB holds over
 * a million arrays, more job records than a slurmctld keeps. */
#define GQ_THROTTLE_BOUND (64UL << 20)

typedef struct {
	uint32_t job_id;
	int64_t submit;		/* the array's submit time, 0: unknown */
	uint32_t user;		/* the user's %N, 0: none */
	uint32_t ours;		/* the %N gpuquota set */
} gq_throttle_entry_t;

typedef enum {
	GQ_TLINE_ENTRY,		/* a current line: job id and submit time */
	GQ_TLINE_OLD,		/* a three-field line: submit time unknown */
	GQ_TLINE_SKIP,		/* a comment or an empty line */
	GQ_TLINE_BAD,		/* anything else */
} gq_tline_t;

/* What one line (with or without its newline) says; *out is set for
 * ENTRY and OLD. */
gq_tline_t gq_throttle_line_parse(const char *line, gq_throttle_entry_t *out);

/* The line of an entry, newline included, into buf (>= 64 bytes: the
 * longest is 4 numbers of at most 20 digits); its length. */
int gq_throttle_line_format(const gq_throttle_entry_t *e, char *buf,
			    size_t size);

/* The file's first line. */
extern const char gq_throttle_file_header[];

/* Whether entry e (read from a file last written at file_time) belongs
 * to the job `job_id` submitted at `submit`. */
bool gq_throttle_entry_matches(const gq_throttle_entry_t *e, uint32_t job_id,
			       int64_t submit, int64_t file_time);

#endif
