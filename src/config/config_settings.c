/*
 * config_settings.c - the "pools" and "settings" sections of gpuquota.json
 * (see config_parse.h).
 */
#include "config/config_parse.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>
#include <json-c/json.h>

static const char *const settings_keys[] = {
	"min_runtime", "recompute_interval", "room_wait", "partitions",
	"grace_time", "reclaim_patience", "usage_half_life", "usage_weight",
	"multifactor", "requeue_budget", "requeue_budget_window", "mode",
	"move_age", "move_window", NULL
};

static const char *const pool_keys[] = {
	"name", "partitions", NULL
};

/* Pool `kb`'s name from v, unique among `names`.  Returns 0 or -1. */
static int _pool_name(struct parser *p, struct json_object *v, const char *kb,
		      struct lh_table *names, char **name)
{
	char nb[KP_MAX], vb[VAL_BUF];

	gq_cfg_kp_key(nb, kb, "name");
	if (gq_cfg_get_string(p, v, nb, name))
		return -1;
	if (lh_table_lookup_ex(names, *name, NULL)) {
		gq_cfg_set_err(p, "%s: duplicate pool %s", nb,
			       gq_cfg_jstr(*name, vb));
		return -1;
	}
	return lh_table_insert(names, *name, NULL) ? gq_cfg_oom(p) : 0;
}

/*
 * "pools": each a name and its partitions; a partition is in one pool.
 * O(partitions^2) over all pools, once per load.
 */
int gq_cfg_parse_pools(struct parser *p, struct json_object *arr)
{
	gq_config_t *cfg = p->cfg;
	struct lh_table *names = NULL;
	char kb[KP_MAX], pk[KP_MAX], vb[VAL_BUF], pb[VAL_BUF];
	int n, i, j, k, m, rc = 0;

	n = gq_cfg_open_array(p, arr, "pools", sizeof(*cfg->pools),
			      (void **)&cfg->pools, &names);
	if (n <= 0) {
		if (!n)
			gq_cfg_set_err(p, "pools: must be a non-empty array of pools (leave the key out for one pool), got []");
		return -1;
	}
	cfg->npools = n;
	for (i = 0; i < n && !rc; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i), *v;
		gq_pool_cfg_t *pc = &cfg->pools[i];

		gq_cfg_kp_idx(kb, "pools", i);
		if (gq_cfg_need_type(p, o, kb, json_type_object, "an object") ||
		    gq_cfg_check_keys(p, o, kb, pool_keys)) {
			rc = -1;
			break;
		}
		if (gq_cfg_field(p, o, kb, "name", true, &v, &rc))
			rc = _pool_name(p, v, kb, names, &pc->name);
		if (rc || !gq_cfg_field(p, o, kb, "partitions", true, &v,
					&rc) ||
		    gq_cfg_get_str_array(p, v,
					 gq_cfg_kp_key(pk, kb, "partitions"),
					 "partition", false, &pc->partitions,
					 &pc->npartitions)) {
			rc = -1;
			break;
		}
		for (j = 0; j < pc->npartitions && !rc; j++)
			for (k = 0; k < i && !rc; k++)
				for (m = 0; m < cfg->pools[k].npartitions; m++)
					if (!strcmp(pc->partitions[j],
						    cfg->pools[k].partitions[m])) {
						gq_cfg_set_err(p, "pools[%d].partitions[%d]: partition %s is already in pool %s",
							       i, j,
							       gq_cfg_jstr(pc->partitions[j], vb),
							       gq_cfg_jstr(cfg->pools[k].name, pb));
						rc = -1;
						break;
					}
	}
	lh_table_free(names);
	return rc;
}

/* settings.usage_half_life (seconds) and usage_weight. */
static int _parse_usage(struct parser *p, struct json_object *obj,
			gq_settings_t *s)
{
	struct json_object *v;
	int rc = 0;

	if (gq_cfg_field(p, obj, "settings", "usage_half_life", false, &v,
			 &rc) &&
	    gq_cfg_get_int(p, v, "settings.usage_half_life", 0, "0",
			   &s->usage_half_life))
		return -1;
	if (s->usage_half_life > GQ_HALF_LIFE_MAX) {
		gq_cfg_set_err(p, "settings.usage_half_life: must be an integer <= %d (seconds, a year), got %d",
			       GQ_HALF_LIFE_MAX, s->usage_half_life);
		return -1;
	}
	if (gq_cfg_field(p, obj, "settings", "usage_weight", false, &v, &rc) &&
	    gq_cfg_get_real(p, v, "settings.usage_weight", GQ_WEIGHT_MAX,
			    &s->usage_weight))
		return -1;
	return rc;
}

/* settings.multifactor and settings.mode ("enforce" or "observe") */
static int _parse_switches(struct parser *p, struct json_object *obj,
			   gq_settings_t *s)
{
	struct json_object *v;
	char vb[VAL_BUF];
	int rc = 0;

	if (gq_cfg_field(p, obj, "settings", "multifactor", false, &v, &rc) &&
	    gq_cfg_get_bool(p, v, "settings.multifactor", &s->multifactor))
		return -1;
	if (!gq_cfg_field(p, obj, "settings", "mode", false, &v, &rc))
		return rc;
	if (json_object_is_type(v, json_type_string) &&
	    !strcmp(json_object_get_string(v), "enforce")) {
		s->mode = GQ_MODE_ENFORCE;
	} else if (json_object_is_type(v, json_type_string) &&
		   !strcmp(json_object_get_string(v), "observe")) {
		s->mode = GQ_MODE_OBSERVE;
	} else {
		gq_cfg_set_err(p, "settings.mode: must be \"enforce\" or \"observe\", got %s",
			       gq_cfg_jval(v, vb));
		return -1;
	}
	return 0;
}

/* An integer setting `key` from 0 to max into *out, if given. */
static int _bounded(struct parser *p, struct json_object *obj,
		    const char *key, int max, const char *unit, int *out)
{
	struct json_object *v;
	char kb[KP_MAX];
	int rc = 0;

	snprintf(kb, sizeof(kb), "settings.%s", key);
	if (!gq_cfg_field(p, obj, "settings", key, false, &v, &rc))
		return rc;
	if (gq_cfg_get_int(p, v, kb, 0, "0", out))
		return -1;
	if (*out > max) {
		gq_cfg_set_err(p, "%s: must be an integer <= %d (seconds, %s), got %d",
			       kb, max, unit, *out);
		return -1;
	}
	return 0;
}

/* settings.move_age and move_window (docs/MODEL.md "Moves"). */
static int _parse_moves(struct parser *p, struct json_object *obj,
			gq_settings_t *s)
{
	if (_bounded(p, obj, "move_age", GQ_MOVE_AGE_MAX, "a day",
		     &s->move_age) ||
	    _bounded(p, obj, "move_window", GQ_MOVE_WINDOW_MAX, "30 days",
		     &s->move_window))
		return -1;
	return 0;
}

int gq_cfg_parse_settings(struct parser *p, struct json_object *obj)
{
	gq_settings_t *s = &p->cfg->settings;
	struct json_object *v;
	char vb[VAL_BUF];
	int rc = 0;

	if (gq_cfg_need_type(p, obj, "settings", json_type_object,
			     "an object") ||
	    gq_cfg_check_keys(p, obj, "settings", settings_keys))
		return -1;
	if (gq_cfg_field(p, obj, "settings", "min_runtime", false, &v, &rc) &&
	    gq_cfg_get_int(p, v, "settings.min_runtime", 0, "0",
			   &s->min_runtime))
		return -1;
	if (gq_cfg_parse_budget(p, obj, s))
		return -1;
	if (gq_cfg_field(p, obj, "settings", "grace_time", false, &v, &rc) &&
	    gq_cfg_get_grace(p, v, "settings.grace_time", &s->grace_time))
		return -1;
	if (gq_cfg_field(p, obj, "settings", "reclaim_patience", false, &v,
			 &rc) &&
	    gq_cfg_get_int(p, v, "settings.reclaim_patience", 0, "0",
			   &s->reclaim_patience))
		return -1;
	if (s->reclaim_patience > GQ_PATIENCE_MAX) {
		gq_cfg_set_err(p, "settings.reclaim_patience: must be an integer <= %d (seconds, a day), got %d",
			       GQ_PATIENCE_MAX, s->reclaim_patience);
		return -1;
	}
	if (_parse_usage(p, obj, s))
		return -1;
	if (gq_cfg_field(p, obj, "settings", "recompute_interval", false, &v,
			 &rc) &&
	    gq_cfg_get_int(p, v, "settings.recompute_interval", 1, "1",
			   &s->recompute_interval))
		return -1;
	if (gq_cfg_field(p, obj, "settings", "room_wait", false, &v, &rc) &&
	    gq_cfg_get_int(p, v, "settings.room_wait", 0, "0", &s->room_wait))
		return -1;
	if (_parse_switches(p, obj, s) || _parse_moves(p, obj, s))
		return -1;
	if (gq_cfg_field(p, obj, "settings", "partitions", false, &v, &rc) &&
	    p->cfg->npools) {
		gq_cfg_set_err(p, "settings.partitions: not with \"pools\" (each pool lists its partitions), got %s",
			       gq_cfg_jval(v, vb));
		return -1;
	}
	if (gq_cfg_field(p, obj, "settings", "partitions", false, &v, &rc) &&
	    gq_cfg_get_str_array(p, v, "settings.partitions", "partition",
				 false, &s->partitions, &s->npartitions))
		return -1;
	return 0;
}
