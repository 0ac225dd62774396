/*
 * cli_text.c - comma lists, table rows and time arguments of a command
 * line (see cli_text.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "tools/cli_text.h"

bool gq_list_next(const char *list, size_t *pos, char *buf, size_t n)
{
	size_t len;

	while (list && list[*pos] == ',')
		(*pos)++;
	if (!list || !list[*pos] || !n)
		return false;
	len = strcspn(list + *pos, ",");
	snprintf(buf, n, "%.*s", (int)(len < n ? len : n - 1), list + *pos);
	*pos += len;
	return true;
}

bool gq_list_has(const char *list, const char *name, bool nocase)
{
	size_t pos = 0, len, nlen = strlen(name);

	if (!list)
		return true;
	for (;;) {
		while (list[pos] == ',')
			pos++;
		if (!list[pos])
			return false;
		len = strcspn(list + pos, ",");
		if (len == nlen &&
		    !(nocase ? strncasecmp(list + pos, name, len) :
			       strncmp(list + pos, name, len)))
			return true;
		pos += len;
	}
}

void gq_table_row(FILE *f, bool parsable, const gq_col_t *cols,
		  const char *const *cells, int n)
{
	int i, w, max;

	for (i = 0; i < n; i++) {
		const char *s = cells[i] ? cells[i] : "";

		if (parsable) {
			fprintf(f, "%s%s", i ? "|" : "", s);
			continue;
		}
		w = cols[i].width;
		max = cols[i].max ? cols[i].max : (int)strlen(s);
		if (i + 1 == n && !cols[i].right)
			w = 0;	/* the last column: no trailing blanks */
		fprintf(f, "%s%*.*s", i ? " " : "", cols[i].right ? w : -w,
			max, s);
	}
	fputc('\n', f);
}

/* sacct's units: a letter, or its word (singular or plural) */
static int64_t _unit(const char *u)
{
	static const struct { const char *word; int64_t secs; } units[] = {
		{ "seconds", 1 }, { "minutes", 60 }, { "hours", 3600 },
		{ "days", 86400 }, { "weeks", 7 * 86400 },
	};
	size_t i, len = strlen(u);

	if (!len)
		return 1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if ((len == 1 && u[0] == units[i].word[0]) ||
		    (len >= strlen(units[i].word) - 1 &&
		     !strncmp(u, units[i].word, len) &&
		     len <= strlen(units[i].word)))
			return units[i].secs;
	return 0;
}

/* [+-]COUNT[UNIT] after now: sign required */
static int _offset(const char *s, int64_t now, int64_t *out)
{
	char *end;
	long long v;
	int64_t unit;

	if ((*s != '-' && *s != '+') || !isdigit((unsigned char)s[1]))
		return -1;
	v = strtoll(s + 1, &end, 10);
	if (v > 100LL * 366 * 86400 || !(unit = _unit(end)))
		return -1;
	*out = now + (*s == '-' ? -1 : 1) * (int64_t)v * unit;
	return 0;
}

/* YYYY-MM-DD[THH:MM[:SS]], UTC; the date checked by a round trip */
static int _date(const char *s, int64_t *out)
{
	struct tm tm, back;
	int y, mo, d, h = 0, mi = 0, sec = 0, used = 0, n;
	time_t t;

	n = sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &used);
	if (n != 3 || used != 10)
		return -1;
	if (s[used] == 'T') {
		int more = 0;

		if (sscanf(s + used, "T%2d:%2d%n", &h, &mi, &more) != 2 ||
		    more != 6)
			return -1;
		used += more;
		if (s[used] == ':' &&
		    (sscanf(s + used, ":%2d%n", &sec, &more) != 1 || more != 3))
			return -1;
		used += s[used] == ':' ? 3 : 0;
	}
	if (s[used] || h > 23 || mi > 59 || sec > 59)
		return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	t = timegm(&tm);
	if (!gmtime_r(&t, &back) || back.tm_mday != d ||
	    back.tm_mon != mo - 1 || back.tm_year != y - 1900)
		return -1;
	*out = (int64_t)t;
	return 0;
}

int gq_time_arg(const char *s, int64_t now, int64_t *out)
{
	if (!s || !*s)
		return -1;
	if (!strcmp(s, "now")) {
		*out = now;
		return 0;
	}
	if (!strncmp(s, "now", 3))
		return _offset(s + 3, now, out);
	if (*s == '-')
		return _offset(s, now, out);
	return _date(s, out);
}
