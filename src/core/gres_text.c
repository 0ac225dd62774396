/*
 * gres_text.c - count GPUs in Slurm's gres/tres strings (see gres_text.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/gres_text.h"

/* One entry, e.g. "gres:gpu:a100:2(IDX:0-1)"; returns its GPU count. */
static uint64_t _entry(const char *s, size_t len)
{
	const char *end = s + len, *p, *last;
	uint64_t n;

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
	/* the count is the last ':' or '=' field, when it is a number */
	for (last = end; last > p && last[-1] != ':' && last[-1] != '='; last--)
		;
	if (last == p || last == end || !isdigit((unsigned char)*last))
		return 1;	/* "gpu" or "gpu:a100": one */
	n = strtoull(last, NULL, 10);
	return n;
}

uint64_t gq_gres_text_gpus(const char *text)
{
	uint64_t total = 0;
	const char *s = text;
	int depth = 0;

	if (!text)
		return 0;
	while (*s) {
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
		total += _entry(s, e - s);
		s = *e ? e + 1 : e;
	}
	return total;
}
