/*
 * trusted_file.c - open, read and create files without trusting what is
 * in their place (see trusted_file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/trusted_file.h"

static long trusted_owner = -1;

void gq_file_trust_owner(long uid)
{
	trusted_owner = uid;
}

static const char *_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

int gq_file_check(int fd, const char *path, size_t bound, char *err,
		  size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: refused: %s, not a regular file",
			 path, _kind(st.st_mode));
		return -1;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid() &&
	    (long)st.st_uid != trusted_owner) {
		snprintf(err, errlen, "%s: refused: owned by uid %ld, not root or uid %ld",
			 path, (long)st.st_uid,
			 trusted_owner >= 0 ? trusted_owner : (long)geteuid());
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, errlen, "%s: refused: writable by %s (mode %04o)",
			 path, st.st_mode & S_IWOTH ? "anyone" : "its group",
			 (unsigned)(st.st_mode & 07777));
		return -1;
	}
	if (bound && (unsigned long long)st.st_size > bound) {
		snprintf(err, errlen, "%s: refused: %lld bytes, more than the %zu it may hold",
			 path, (long long)st.st_size, bound);
		return -1;
	}
	return 0;
}

int gq_file_open(const char *path, size_t bound, char *err, size_t errlen)
{
	return gq_file_open_as(path, O_RDONLY, 0, bound, err, errlen);
}

int gq_file_open_as(const char *path, int flags, mode_t mode, size_t bound,
		    char *err, size_t errlen)
{
	int fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);

	if (fd < 0) {
		if (errno == ENOENT) {
			snprintf(err, errlen, "%s: no such file", path);
			return GQ_FILE_MISSING;
		}
		if (errno == ELOOP)
			snprintf(err, errlen, "%s: refused: a symbolic link (not followed)",
				 path);
		else
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (gq_file_check(fd, path, bound, err, errlen)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* up to want bytes of fd into buf; how many, or -1 */
static ssize_t _read_all(int fd, char *buf, size_t want)
{
	size_t got = 0;

	while (got < want) {
		ssize_t r = read(fd, buf + got, want - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (!r)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

int gq_file_read(const char *path, size_t bound, char **buf, size_t *len,
		 char *err, size_t errlen)
{
	time_t mtime;

	return gq_file_read_at(path, bound, buf, len, &mtime, err, errlen);
}

int gq_file_read_at(const char *path, size_t bound, char **buf, size_t *len,
		    time_t *mtime, char *err, size_t errlen)
{
	struct stat st;
	ssize_t got = -1;
	int fd = gq_file_open(path, bound, err, errlen);

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return fd;
	/* the size gq_file_check bounded */
	if (!fstat(fd, &st) && !(*buf = malloc((size_t)st.st_size + 1)))
		errno = ENOMEM;
	if (*buf)
		got = _read_all(fd, *buf, (size_t)st.st_size);
	if (!*buf || got < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(*buf);
		*buf = NULL;
		close(fd);
		return -1;
	}
	close(fd);
	(*buf)[got] = '\0';
	*len = (size_t)got;
	*mtime = st.st_mtime;
	return 0;
}

int gq_file_create(const char *path, mode_t mode)
{
	if (unlink(path) && errno != ENOENT)
		return -1;
	return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    mode);
}

int gq_file_line(const char *text, size_t len, size_t *at, char *line,
		 size_t cap)
{
	const char *s = text + *at, *nl;
	size_t n;

	if (*at >= len)
		return 0;
	nl = memchr(s, '\n', len - *at);
	n = nl ? (size_t)(nl - s) + 1 : len - *at;
	*at += n;
	line[0] = '\0';
	if (n >= cap || memchr(s, '\0', n))
		return -1;
	memcpy(line, s, n);
	line[n] = '\0';
	return 1;
}
