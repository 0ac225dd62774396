/*
 * check_hints.c - the cluster warnings of `gpuquota check` (see
 * check_hints.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <strings.h>

#include "cli/check_hints.h"
#include "config/hints.h"
#include "shared/job_facts.h"

/* slurmdbd's account names, for config/hints.h's rules. */
typedef struct {
	const char **names;
	int n;
} gq_names_t;

static bool _exists(const char *account, void *ctx)
{
	const gq_names_t *a = ctx;
	int k;

	for (k = 0; k < a->n; k++)
		if (!strcasecmp(a->names[k], account))
			return true;
	return false;
}

static const char *_nearest(const char *account, void *ctx)
{
	const gq_names_t *a = ctx;

	return gq_hint_nearest(account, a->names, a->n);
}

void gq_check_hints(const gq_config_t *cfg, const gq_accts_t *accts,
		    const double *caps,
		    void (*warn)(const char *line, void *ctx))
{
	gq_names_t a = { NULL, 0 };
	int k;

	if (caps)
		gq_hint_capacity(cfg, caps, warn, NULL);
	if (!accts)
		return;
	if (accts->n && !(a.names = calloc(accts->n, sizeof(*a.names)))) {
		warn("out of memory: accounts not checked", NULL);
		return;
	}
	for (k = 0; k < accts->n; k++)
		a.names[a.n++] = accts->a[k].name;
	gq_missing_accounts(cfg, _exists, _nearest, warn, &a);
	gq_hint_unlisted(cfg, a.names, a.n, warn, NULL);
	free(a.names);
}
