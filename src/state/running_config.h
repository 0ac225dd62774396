/*
 * running_config.h - the configuration slurmctld runs, as the priority
 * plugin publishes it for the gpuquota command:
 * <StateSaveLocation>/gpuquota-running.json.
 *
 * Owns its format (version 1, docs/MODEL.md "The running
 * configuration"): a JSON object with "version", "path" (the file
 * loaded), "text" (its exact text; absent when larger than
 * GQ_RUNNING_TEXT_MAX), "hash" (FNV-1a 64 of the text, 16 hex digits),
 * "loaded_at" (unix seconds), and "failed" ({"at", "path", "error"}:
 * the last load that failed, absent when none has).  Keys may be added,
 * never renamed.  Written whole (atomic_file.h); read trusted, at most
 * GQ_RUNNING_FILE_BOUND bytes.
 */
#ifndef GPUQUOTA_RUNNING_CONFIG_H
#define GPUQUOTA_RUNNING_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

#define GQ_RUNNING_FILE "gpuquota-running.json"
#define GQ_RUNNING_VERSION 1
/* The text copied: a configuration of 10,000 projects is below 2 MiB. */
#define GQ_RUNNING_TEXT_MAX (4UL << 20)
/* The file: the text JSON-escaped (at most 6 bytes a byte: \u00XX), the
 * path, the error line and the numbers. */
#define GQ_RUNNING_FILE_BOUND (6 * GQ_RUNNING_TEXT_MAX + (64UL << 10))
#define GQ_HASH_HEX 17	/* 16 hex digits and the NUL */

typedef struct {
	char *path;		/* the file loaded; NULL: none yet */
	char *text;		/* its exact text; NULL: none or too large */
	size_t len;
	uint64_t hash;		/* FNV-1a 64 of text (gq_running_hash) */
	int64_t loaded_at;	/* unix seconds; 0: nothing loaded */
	int64_t failed_at;	/* the last failed load; 0: none */
	char *failed_path;
	char failed_err[GQ_ERR_MAX];	/* its one-line error */
} gq_running_t;

/* FNV-1a, 64 bits, over len bytes of text.  O(len). */
uint64_t gq_running_hash(const char *text, size_t len);

/* h as 16 lower-case hex digits into buf. */
void gq_running_hash_hex(uint64_t h, char buf[GQ_HASH_HEX]);

/* <dir>/gpuquota-running.json, malloc'ed (NULL: memory). */
char *gq_running_file_path(const char *dir);

/*
 * A load of `path` succeeded with `text` (len bytes, taken: r frees it)
 * at `now`: r runs it.  The last failure is kept.  0, or -1 out of
 * memory (r unchanged, text freed).
 */
int gq_running_loaded(gq_running_t *r, const char *path, char *text,
		      size_t len, int64_t now);

/* A load of `path` failed with `err` at `now`: r keeps what it runs. */
void gq_running_failed(gq_running_t *r, const char *path, const char *err,
		       int64_t now);

/* Write r to path whole (atomic).  0, or -1 with the reason, naming the
 * file, in err.  Holds no lock: does its own I/O. */
int gq_running_file_write(const gq_running_t *r, const char *path,
			  char *err, size_t errlen);

/*
 * Read path into *r (empty first; gq_running_free it either way): 0;
 * -2 when it does not exist; -1 when it is refused (trusted_file.h),
 * not JSON, or a key is wrong (the file and the key named in err).  A
 * "text" whose hash is not "hash" is refused.  O(file).
 */
int gq_running_file_read(const char *path, gq_running_t *r, char *err,
			 size_t errlen);

/* A deep copy of from into *to: 0, or -1 out of memory (*to empty). */
int gq_running_copy(const gq_running_t *from, gq_running_t *to);

void gq_running_free(gq_running_t *r);

#endif
