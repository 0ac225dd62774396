/*
 * constraint.c - plain feature expressions, GPU types and the narrowings
 * of a pass (see constraint.h).
 */
#include <string.h>

#include "core/constraint.h"
#include "tools/gres_text.h"

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

static bool _narrow_same(const gq_narrow_t *a, const gq_narrow_t *b)
{
	return a->part == b->part && !strcmp(a->features, b->features) &&
	       !strcmp(a->type, b->type);
}

/* FNV-1a over the part and the two texts (up to their NULs) */
static uint32_t _narrow_hash(const gq_narrow_t *w)
{
	uint32_t h = 2166136261u ^ (uint32_t)w->part;
	const char *p;

	h *= 16777619u;
	for (p = w->features; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	h = (h ^ 0xff) * 16777619u;	/* "ab"+"c" is not "a"+"bc" */
	for (p = w->type; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return h;
}

#define GQ_NARROW_SLOTS (2 * GQ_NARROW_MAX)
_Static_assert(!(GQ_NARROW_SLOTS & (GQ_NARROW_SLOTS - 1)),
	       "GQ_NARROW_MAX is a power of two");

/* w's slot: the one with its number, or the free one where it goes
 * (the table is at most half full, so there is always one) */
static uint16_t *_narrow_slot(const gq_narrows_t *s, const gq_narrow_t *w)
{
	uint32_t i = _narrow_hash(w) & (GQ_NARROW_SLOTS - 1);

	while (s->slot[i] && !_narrow_same(&s->w[s->slot[i] - 1], w))
		i = (i + 1) & (GQ_NARROW_SLOTS - 1);
	return (uint16_t *)&s->slot[i];
}

int gq_narrows_find(const gq_narrows_t *s, const gq_narrow_t *w)
{
	return *_narrow_slot(s, w) - 1;
}

int gq_narrows_add(gq_narrows_t *s, const gq_narrow_t *w)
{
	uint16_t *slot = _narrow_slot(s, w);

	if (*slot || s->n == GQ_NARROW_MAX)
		return *slot - 1;
	s->w[s->n] = *w;
	*slot = (uint16_t)++s->n;
	return s->n - 1;
}
