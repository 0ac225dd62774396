/*
 * atomic_file.h - replace a small state file whole: written to a temporary
 * file beside it, then renamed over it, so a reader (or slurmctld after a
 * crash) sees the previous file or the new one, never a part; and read
 * one back as JSON, trusted first (trusted_file.h).  The temporary file
 * is made anew, never through a link (gq_file_create).
 */
#ifndef GPUQUOTA_ATOMIC_FILE_H
#define GPUQUOTA_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

/* <dir>/<name>, malloc'ed (NULL: memory). */
char *gq_state_file_path(const char *dir, const char *name);

/*
 * Read a state file as JSON into *root: 0; -2 when it does not exist; -1
 * when it is refused (trusted_file.h: a link, not a regular file, its
 * owner or mode, more than `bound` bytes, below 2 GB) or not JSON; err
 * says which, naming the file.  The caller json_object_put()s *root.
 */
struct json_object;
int gq_state_file_json(const char *path, size_t bound,
		       struct json_object **root, char *err, size_t errlen);

/*
 * Write `path` with write(f, ctx) (which reports a failure through
 * ferror).  Returns 0, or -1 with the reason, naming the file, in err.
 * Does its own I/O: call it holding no lock.
 */
int gq_atomic_write(const char *path, void (*write)(FILE *f, const void *ctx),
		    const void *ctx, char *err, size_t errlen);

#endif
