/*
 * gres_text.c - count GPUs in Slurm's gres/tres strings (see gres_text.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "tools/gres_text.h"

/*
 * One entry, e.g. "gres:gpu:a100:2(IDX:0-1)"; returns its GPU count, and
 * its type's span in *type, *tlen (tlen 0: none).
 */
static uint64_t _entry(const char *s, size_t len, const char **type,
		       size_t *tlen)
{
	const char *end = s + len, *p, *last, *t;
	uint64_t n;

	*tlen = 0;
	if (len >= 5 && (!strncmp(s, "gres:", 5) || !strncmp(s, "gres/", 5))) {
		s += 5;
	}
	if (end - s < 3 || strncmp(s, "gpu", 3))
		return 0;
	p = s + 3;
	if (p < end && *p != ':' && *p != '=' && *p != '(')
		return 0;	/* "gpus", "gpu_x": another gres */
	if ((last = memchr(s, '(', end - s)))
		end = last;
	/* a type is a field after "gpu:" that does not start with a digit */
	if (p < end && *p == ':' && p + 1 < end &&
	    !isdigit((unsigned char)p[1])) {
		for (t = p + 1; t < end && *t != ':' && *t != '='; t++)
			;
		*type = p + 1;
		*tlen = t - (p + 1);
	}
	/* the count is the last ':' or '=' field, when it is a number */
	for (last = end; last > p && last[-1] != ':' && last[-1] != '='; last--)
		;
	if (last == p || last == end || !isdigit((unsigned char)*last))
		return 1;	/* "gpu" or "gpu:a100": one */
	n = strtoull(last, NULL, 10);
	return n;
}

/*
 * Walk the entries of a list: the sum of the GPU counts of those of type
 * `type` (NULL: all); the first type named goes to *first (if not NULL).
 */
static uint64_t _walk(const char *text, const char *type, const char **first,
		      size_t *first_len)
{
	uint64_t total = 0;
	const char *s = text;
	int depth = 0;

	if (!text)
		return 0;
	while (*s) {
		const char *t = NULL;
		size_t tlen;
		uint64_t n;

		const char *e = s;

		/* split at ',' or ';' outside parentheses */
		for (depth = 0; *e; e++) {
			if (*e == '(')
				depth++;
			else if (*e == ')' && depth)
				depth--;
			else if (!depth && (*e == ',' || *e == ';'))
				break;
		}
		n = _entry(s, e - s, &t, &tlen);
		if (n && first && !*first_len && tlen) {
			*first = t;
			*first_len = tlen;
		}
		if (!type || (tlen == strlen(type) && !strncmp(t, type, tlen)))
			total += n;
		s = *e ? e + 1 : e;
	}
	return total;
}

uint64_t gq_gres_text_gpus(const char *text)
{
	return _walk(text, NULL, NULL, NULL);
}

uint64_t gq_gres_text_gpus_of_type(const char *text, const char *type)
{
	return _walk(text, type && *type ? type : NULL, NULL, NULL);
}

bool gq_gres_text_type(const char *text, char *buf, size_t len)
{
	const char *t = NULL;
	size_t tlen = 0;

	_walk(text, NULL, &t, &tlen);
	if (!tlen || tlen >= len)
		return false;
	memcpy(buf, t, tlen);
	buf[tlen] = '\0';
	return true;
}
