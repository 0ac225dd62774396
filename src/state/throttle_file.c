/*
 * throttle_file.c - the lines of gpuquota's array throttle file and
 * which job an entry belongs to (see throttle_file.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "state/throttle_file.h"

const char gq_throttle_file_header[] =
	"# gpuquota: arrays it throttles: job_id submit_time user_throttle gpuquota_throttle\n";

/* A decimal number of at most max, then a blank or the end; *p moves past
 * it.  No sign, no leading blanks beyond those skipped here. */
static bool _number(const char **p, uint64_t max, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (max - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (*s && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
		return false;
	*p = s;
	*out = v;
	return true;
}

static bool _blank_rest(const char *s)
{
	for (; *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			return false;
	return true;
}

gq_tline_t gq_throttle_line_parse(const char *line, gq_throttle_entry_t *out)
{
	const char *p = line;
	uint64_t v[4];
	int n = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '#' || _blank_rest(p))
		return GQ_TLINE_SKIP;
	while (n < 4 && !_blank_rest(p)) {
		/* the submit time (second of four) is a time_t, the rest
		 * 32-bit counts */
		if (!_number(&p, UINT64_MAX, &v[n]))
			return GQ_TLINE_BAD;
		n++;
	}
	if (!_blank_rest(p) || (n != 3 && n != 4))
		return GQ_TLINE_BAD;
	memset(out, 0, sizeof(*out));
	if (n == 3) {
		if (v[0] > UINT32_MAX || v[1] > UINT32_MAX ||
		    v[2] > UINT32_MAX || !v[0] || !v[2])
			return GQ_TLINE_BAD;
		out->job_id = (uint32_t)v[0];
		out->user = (uint32_t)v[1];
		out->ours = (uint32_t)v[2];
		return GQ_TLINE_OLD;
	}
	if (v[0] > UINT32_MAX || v[1] > INT64_MAX || v[2] > UINT32_MAX ||
	    v[3] > UINT32_MAX || !v[0] || !v[1] || !v[3])
		return GQ_TLINE_BAD;
	out->job_id = (uint32_t)v[0];
	out->submit = (int64_t)v[1];
	out->user = (uint32_t)v[2];
	out->ours = (uint32_t)v[3];
	return GQ_TLINE_ENTRY;
}

int gq_throttle_line_format(const gq_throttle_entry_t *e, char *buf,
			    size_t size)
{
	return snprintf(buf, size, "%" PRIu32 " %" PRId64 " %" PRIu32 " %" PRIu32 "\n",
			e->job_id, e->submit, e->user, e->ours);
}

bool gq_throttle_entry_matches(const gq_throttle_entry_t *e, uint32_t job_id,
			       int64_t submit, int64_t file_time)
{
	if (e->job_id != job_id)
		return false;
	if (e->submit)
		return e->submit == submit;
	/* an old line: the job must be older than the file */
	return submit > 0 && submit <= file_time;
}
