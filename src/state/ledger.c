/*
 * ledger.c - the reclaim ledger: its records, lines, files, queue and
 * sums (see ledger.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "core/grace.h"
#include "state/ledger.h"
#include "tools/atomic_file.h"
#include "tools/hash.h"
#include "tools/trusted_file.h"

#define GQ_LEDGER_NO_POOL "*"
/* What ends a torn line: a word after its fields, so that neither
 * version reads it as a record (a gq1 line torn in LOST would read with
 * its loss cut short) */
#define GQ_LEDGER_TORN " torn\n"
#define GQ_TORN_LEN ((ssize_t)sizeof(GQ_LEDGER_TORN) - 1)

uint64_t gq_ledger_lost(uint32_t gpus, int64_t now, int64_t start)
{
	if (start <= 0 || now <= start)
		return 0;
	return (uint64_t)gpus * (uint64_t)(now - start);
}

void gq_ledger_after_grace(const gq_ledger_rec_t *warned, int64_t start,
			   int64_t end, gq_ledger_rec_t *out)
{
	*out = *warned;
	out->stage = GQ_LEDGER_AFTER_GRACE;
	out->end = gq_grace_settled_end(warned->at, end);
	out->lost = gq_ledger_lost(warned->gpus, out->end, start);
}

const char *gq_ledger_stage_name(int stage)
{
	static const char *const names[GQ_LEDGER_NSTAGES] = {
		"requeued", "warned", "requeued_after_grace", "observed",
	};

	return stage >= 0 && stage < GQ_LEDGER_NSTAGES ? names[stage] : NULL;
}

int gq_ledger_settle(gq_ledger_rec_t *r, int *n)
{
	gq_hash_t after;	/* (victim, preemptor) of after-grace records
				 * seen walking back: the warned before them go */
	int i, k = *n, rc = 0;

	gq_hash_init(&after, &gq_hash_ints);
	for (i = *n - 1; i >= 0; i--) {
		gq_key_t key = gq_key_pair(r[i].victim, r[i].preemptor);

		if (r[i].stage == GQ_LEDGER_AFTER_GRACE &&
		    gq_hash_get_or_put(&after, key, i) < 0) {
			rc = -1;
			break;
		}
		if (r[i].stage == GQ_LEDGER_WARNED &&
		    gq_hash_get(&after, key) >= 0)
			r[i].stage = -1;	/* superseded */
	}
	for (i = k = 0; !rc && i < *n; i++)
		if (r[i].stage >= 0)
			r[k++] = r[i];
	for (i = 0; rc && i < *n; i++)	/* out of memory: all kept */
		if (r[i].stage < 0)
			r[i].stage = GQ_LEDGER_WARNED;
	if (!rc)
		*n = k;
	gq_hash_free(&after);
	return rc;
}

const char *gq_ledger_reason(int r)
{
	static const char *const names[GQ_RECLAIM_NREASONS] = {
		"quota", "fair_share", "move",
	};

	return r >= 0 && r < GQ_RECLAIM_NREASONS ? names[r] : NULL;
}

void gq_ledger_name(char *dst, const char *src)
{
	snprintf(dst, GQ_LEDGER_NAME, "%s", src ? src : "");
}

int gq_ledger_format(const gq_ledger_rec_t *r, char *buf, size_t len)
{
	const char *band = gq_ledger_reason(r->reason);
	const char *stage = gq_ledger_stage_name(r->stage);
	int n;

	n = snprintf(buf, len, "gq2 %" PRId64 " %s %u %s %s %u %s %u %" PRIu64 " %s %" PRId64 "\n",
		     r->at, r->pool[0] ? r->pool : GQ_LEDGER_NO_POOL,
		     r->preemptor, r->preemptor_project, band ? band : "quota",
		     r->victim, r->victim_project, r->gpus, r->lost,
		     stage ? stage : "requeued", r->end ? r->end : r->at);
	return n < 0 || (size_t)n >= len ? -1 : n;
}

/* a gpuquota.json name (config.h's characters), or "*" where allowed */
static bool _name_ok(const char *s, bool star)
{
	if (star && !strcmp(s, GQ_LEDGER_NO_POOL))
		return true;
	for (; *s; s++)
		if (!gq_config_name_char((unsigned char)*s))
			return false;
	return true;
}

/* gq2's STAGE END after LOST (at `tail`), or nothing for a gq1 line */
static bool _parse_stage(const char *tail, bool v2, gq_ledger_rec_t *r)
{
	char stage[24];
	int end = -1, i;

	r->stage = GQ_LEDGER_REQUEUED;
	r->end = r->at;
	if (!v2)
		return !strcmp(tail, "\n");
	if (sscanf(tail, " %23s %" SCNd64 "%n", stage, &r->end, &end) != 2 ||
	    end < 0 || strcmp(tail + end, "\n") || r->end < r->at)
		return false;
	for (i = 0; i < GQ_LEDGER_NSTAGES; i++)
		if (!strcmp(stage, gq_ledger_stage_name(i)))
			break;
	r->stage = i;
	return i < GQ_LEDGER_NSTAGES;
}

bool gq_ledger_parse(const char *line, gq_ledger_rec_t *r)
{
	char band[16];
	int end = -1, i;
	bool v2 = !strncmp(line, "gq2 ", 4);

	memset(r, 0, sizeof(*r));
	if ((!v2 && strncmp(line, "gq1 ", 4)) ||
	    sscanf(line + 4, "%" SCNd64 " %64s %u %64s %15s %u %64s %u %" SCNu64 "%n",
		   &r->at, r->pool, &r->preemptor, r->preemptor_project, band,
		   &r->victim, r->victim_project, &r->gpus, &r->lost, &end) != 9 ||
	    end < 0 || !_parse_stage(line + 4 + end, v2, r))
		return false;
	for (i = 0; i < GQ_RECLAIM_NREASONS; i++)
		if (!strcmp(band, gq_ledger_reason(i)))
			break;
	if (i == GQ_RECLAIM_NREASONS || !_name_ok(r->pool, true) ||
	    !_name_ok(r->preemptor_project, false) ||
	    !_name_ok(r->victim_project, false) || r->at <= 0)
		return false;
	r->reason = i;
	if (!strcmp(r->pool, GQ_LEDGER_NO_POOL))
		r->pool[0] = '\0';
	return true;
}

char *gq_ledger_path(const char *dir)
{
	return gq_state_file_path(dir, GQ_LEDGER_FILE);
}

char *gq_ledger_old_path(const char *path)
{
	char *p;

	return asprintf(&p, "%s.1", path) < 0 ? NULL : p;
}

/* open for appending (trusted_file.h: never through a link, a regular
 * file of a trusted owner; its size is the rotation's); a torn last line
 * (no newline) is ended first, so that it is never read as a record
 * (GQ_LEDGER_TORN) */
static int _open_append(const char *path, off_t *size, char *err,
			size_t errlen)
{
	struct stat st;
	char last;
	int fd = gq_file_open_as(path, O_RDWR | O_APPEND | O_CREAT, 0600, 0,
				 err, errlen);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	*size = st.st_size;
	if (st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) == 1 &&
	    last != '\n' &&
	    write(fd, GQ_LEDGER_TORN, GQ_TORN_LEN) == GQ_TORN_LEN)
		*size += GQ_TORN_LEN;
	return fd;
}

/* rotate: path to path.1, a new path opened; fd closed either way */
static int _rotate(const char *path, int fd, off_t *size, char *err,
		   size_t errlen)
{
	char *old = gq_ledger_old_path(path);
	int rc = old ? rename(path, old) : -1;

	if (rc)
		snprintf(err, errlen, "%s: rotating: %s", path,
			 old ? strerror(errno) : "out of memory");
	free(old);
	fsync(fd);
	close(fd);
	return rc ? -1 : _open_append(path, size, err, errlen);
}

int gq_ledger_append(const char *path, const gq_ledger_rec_t *r, int n,
		     long bound, char *err, size_t errlen)
{
	char line[GQ_LEDGER_LINE];
	off_t size = 0;
	int fd, i, len;

	if ((fd = _open_append(path, &size, err, errlen)) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if ((len = gq_ledger_format(&r[i], line, sizeof(line))) < 0)
			continue;	/* cannot happen with config names */
		if (size > 0 && size + len > bound &&
		    (fd = _rotate(path, fd, &size, err, errlen)) < 0)
			return -1;
		if (write(fd, line, len) != len) {
			snprintf(err, errlen, "%s: %s", path,
				 errno ? strerror(errno) : "short write");
			close(fd);
			return -1;
		}
		size += len;
	}
	if (fsync(fd) && errno != EINVAL)
		snprintf(err, errlen, "%s: fsync: %s", path, strerror(errno));
	close(fd);
	return n;
}

/* room for one more record in *out; false: out of memory */
static bool _room(gq_ledger_rec_t **out, int n, int *cap)
{
	int c = *cap ? *cap * 2 : 256;
	gq_ledger_rec_t *g;

	if (n < *cap)
		return true;
	if (!(g = realloc(*out, c * sizeof(*g))))
		return false;
	*out = g;
	*cap = c;
	return true;
}

/* one file's records appended to *out; a missing file is none; a file
 * refused (trusted_file.h, GQ_LEDGER_READ_BOUND) is an error */
static int _read_one(const char *path, gq_ledger_rec_t **out, int *n,
		     int *cap, int *skipped, char *err, size_t errlen)
{
	char *text, line[GQ_LEDGER_LINE];
	size_t len, at = 0;
	int rc = gq_file_read(path, GQ_LEDGER_READ_BOUND, &text, &len, err,
			      errlen), got;

	if (rc)
		return rc == GQ_FILE_MISSING ? 0 : -1;
	while ((got = gq_file_line(text, len, &at, line, sizeof(line)))) {
		if (!_room(out, *n, cap)) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
			break;
		}
		if (got > 0 && gq_ledger_parse(line, &(*out)[*n]))
			(*n)++;
		else
			(*skipped)++;
	}
	free(text);
	return rc;
}

int gq_ledger_read(const char *path, gq_ledger_rec_t **out, int *n,
		   int *skipped, char *err, size_t errlen)
{
	char *old = gq_ledger_old_path(path);
	int cap = *n, rc;

	if (!old) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rc = _read_one(old, out, n, &cap, skipped, err, errlen);
	free(old);
	if (!rc)
		rc = _read_one(path, out, n, &cap, skipped, err, errlen);
	if (!rc && gq_ledger_settle(*out, n)) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	}
	return rc;
}

bool gq_ledger_queue_push(gq_ledger_queue_t *q, const gq_ledger_rec_t *r)
{
	if (q->n == q->cap) {
		int c = q->cap ? q->cap * 2 : 16;
		gq_ledger_rec_t *g;

		if (q->n >= GQ_LEDGER_QUEUE_MAX ||
		    !(g = realloc(q->r, c * sizeof(*g))))
			return false;
		q->r = g;
		q->cap = c;
	}
	q->r[q->n++] = *r;
	return true;
}

void gq_ledger_record(gq_ledger_rec_t *r, const char *pool,
		      const gq_view_t *v, const gq_job_t *er,
		      const gq_job_t *ee, int64_t now)
{
	*r = (gq_ledger_rec_t){
		.at = now,
		.end = now,
		.stage = GQ_LEDGER_REQUEUED,
		.preemptor = er->in.id,
		.reason = gq_view_move_to(v, er->in.id, ee->in.id) >= 0 ?
				  GQ_RECLAIM_MOVE :
			  er->band == GQ_BAND_FAIR_SHARE ?
				  GQ_RECLAIM_FAIR_SHARE : GQ_RECLAIM_QUOTA,
		.victim = ee->in.id,
		.gpus = ee->in.gpus,
		.lost = gq_ledger_lost(ee->in.gpus, now, ee->in.start_time),
	};
	gq_ledger_name(r->pool, pool);
	gq_ledger_name(r->preemptor_project,
		       gq_view_project(v, er->project)->name);
	gq_ledger_name(r->victim_project,
		       gq_view_project(v, ee->project)->name);
}
