/*
 * trusted_file.h - open a file that another process may have put there,
 * and trust it only when it is what it claims to be: not a symbolic link
 * (never followed), a regular file (never a FIFO, a device or a
 * directory), owned by root, this process's user or the one more user
 * gq_file_trust_owner names, writable by its owner alone, and no larger
 * than the bound its caller gives.  And create a new file without
 * following a link.  For the state files: whoever may write a directory
 * may put a link to another file there, a FIFO, or /dev/zero.
 */
#ifndef GPUQUOTA_TRUSTED_FILE_H
#define GPUQUOTA_TRUSTED_FILE_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#define GQ_FILE_MISSING (-2)	/* no such file */

/* One more owner trusted besides root and geteuid() (-1: none). */
void gq_file_trust_owner(long uid);

/*
 * Whether the open file fd (named path) may be trusted: a regular file,
 * its owner trusted, not writable by its group or others, and, when bound
 * > 0, at most bound bytes.  0, or -1 with "path: refused: why" in err.
 * O(1).
 */
int gq_file_check(int fd, const char *path, size_t bound, char *err,
		  size_t errlen);

/*
 * Open path for reading: O_NOFOLLOW, O_NONBLOCK (a FIFO never blocks
 * the open), then gq_file_check.  The descriptor; GQ_FILE_MISSING; or -1
 * with the file and the reason in err.
 */
int gq_file_open(const char *path, size_t bound, char *err, size_t errlen);

/* The same with open(2)'s flags and mode (O_WRONLY, O_APPEND, O_CREAT,
 * ...): for a file appended to in place. */
int gq_file_open_as(const char *path, int flags, mode_t mode, size_t bound,
		    char *err, size_t errlen);

/*
 * The whole of a trusted file (gq_file_open), at most bound bytes (what
 * fstat saw at the open: a file that grows meanwhile is read to there),
 * into *buf (malloc'ed, NUL-terminated; the caller frees), its length in
 * *len.  0, GQ_FILE_MISSING, or -1 with the reason in err.
 */
int gq_file_read(const char *path, size_t bound, char **buf, size_t *len,
		 char *err, size_t errlen);

/* The same, and the file's modification time into *mtime. */
int gq_file_read_at(const char *path, size_t bound, char **buf, size_t *len,
		    time_t *mtime, char *err, size_t errlen);

/*
 * Create path anew for writing (mode `mode`): whatever is there first
 * unlinked (a link itself, never what it points to), then O_CREAT |
 * O_EXCL | O_NOFOLLOW.  The descriptor, or -1 with errno set.
 */
int gq_file_create(const char *path, mode_t mode);

/*
 * The next line of text[*at..len): copied with its newline, if any, into
 * line (NUL-terminated); *at moves past it.  1 a line; 0 none left; -1 a
 * line of cap bytes or more, or with a NUL byte (skipped, line "").
 */
int gq_file_line(const char *text, size_t len, size_t *at, char *line,
		 size_t cap);

#endif
