/*
 * constraint.c - plain feature expressions, GPU types and the narrowings
 * of a pass (see constraint.h).
 */
#include <string.h>

#include "core/constraint.h"
#include "core/gres_text.h"

bool gq_constraint_plain(const char *expr)
{
	bool and = false, or = false;
	const char *p;

	if (!expr || !*expr)
		return false;
	for (p = expr; *p; p++) {
		if (strchr("[]()*!", *p))
			return false;
		if (*p == '&' || *p == ',')
			and = true;
		else if (*p == '|')
			or = true;
	}
	return !(and && or);
}

/* Is the name s[0..len) one of the comma separated features? */
static bool _has(const char *features, const char *s, size_t len)
{
	const char *f = features;

	while (f && *f) {
		const char *e = strchr(f, ',');
		size_t n = e ? (size_t)(e - f) : strlen(f);

		if (n == len && !strncmp(f, s, len))
			return true;
		f = e ? e + 1 : NULL;
	}
	return false;
}

int gq_constraint_match(const char *expr, const char *features)
{
	bool or;
	const char *s;

	if (!gq_constraint_plain(expr))
		return -1;
	or = strchr(expr, '|') != NULL;
	for (s = expr;;) {
		size_t n = strcspn(s, "&,|");
		bool has = n && _has(features, s, n);

		if (or && has)
			return 1;
		if (!or && !has)
			return 0;
		if (!s[n])
			return !or;
		s += n + 1;
	}
}

bool gq_narrow_of(int part, const char *features, const char *tres_per_node,
		  const char *tres_per_job, gq_narrow_t *w)
{
	memset(w, 0, sizeof(*w));
	w->part = part;
	if (gq_constraint_plain(features) &&
	    strlen(features) < sizeof(w->features))
		strcpy(w->features, features);
	if (!gq_gres_text_type(tres_per_node, w->type, sizeof(w->type)) &&
	    !gq_gres_text_type(tres_per_job, w->type, sizeof(w->type)))
		w->type[0] = '\0';
	return w->features[0] || w->type[0];
}

bool gq_narrow_allows(const gq_narrow_t *w, bool in_part,
		      const char *node_features, const char *node_gres)
{
	if (w->part && !in_part)
		return false;
	if (w->features[0] &&
	    gq_constraint_match(w->features, node_features) == 0)
		return false;
	return !w->type[0] || gq_gres_text_gpus_of_type(node_gres, w->type) > 0;
}

int gq_narrows_find(const gq_narrows_t *s, const gq_narrow_t *w)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->w[i].part == w->part &&
		    !strcmp(s->w[i].features, w->features) &&
		    !strcmp(s->w[i].type, w->type))
			return i;
	return -1;
}

int gq_narrows_add(gq_narrows_t *s, const gq_narrow_t *w)
{
	int i = gq_narrows_find(s, w);

	if (i >= 0 || s->n == GQ_NARROW_MAX)
		return i;
	s->w[s->n] = *w;
	return s->n++;
}
