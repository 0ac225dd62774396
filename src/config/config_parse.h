/*
 * config_parse.h - the parser's shared pieces, for src/config/config*.c
 * alone: the parser state, its limits, its messages and typed getters
 * (config_parse.c), and each section's reader (config_projects.c,
 * config_settings.c).  The rest of the tree uses config.h.
 *
 * Every getter checks one value, writes one error line on failure (see
 * config.c) and returns 0 or -1.
 */
#ifndef GPUQUOTA_CONFIG_PARSE_H
#define GPUQUOTA_CONFIG_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>
#include <json-c/linkhash.h>

#include "config/config.h"

#define KP_MAX 256	/* longest key path shown in a message */
#define VAL_MAX 80	/* longest offending value shown in a message */
#define VAL_BUF (VAL_MAX + sizeof("..."))	/* a value cut short, "...", NUL */
#define KEY_PLAIN_MAX 64	/* longer keys are quoted in key paths */
#define MINSTR_MAX 32	/* "gpu_quota (N)", gpu_limit's bound in messages */
#define TABLE_MIN 16	/* smallest size of a name table */
#define READ_FIRST 8192	/* first buffer size of gq_config_load */
#define UTF8_BOM "\xEF\xBB\xBF"
#define CONFIG_NAME "gpuquota.json"	/* beside slurm.conf by default */
#define GQ_ROOT_ACCOUNT "root"	/* the root of Slurm's account tree */

struct parser {
	const char *path;
	char *err;
	size_t errlen;
	gq_config_t *cfg;
};

/* messages and typed getters (config_parse.c) */
int gq_cfg_check_keys(struct parser *p, struct json_object *obj,
		      const char *kp, const char *const *allowed);
int gq_cfg_equal_nocase(const void *a, const void *b);
bool gq_cfg_field(struct parser *p, struct json_object *obj, const char *kp,
		  const char *key, bool required, struct json_object **v,
		  int *rc);
int gq_cfg_get_bool(struct parser *p, struct json_object *v, const char *kp,
		    bool *out);
int gq_cfg_get_int(struct parser *p, struct json_object *v, const char *kp,
		   int min, const char *minstr, int *out);
int gq_cfg_get_real(struct parser *p, struct json_object *v, const char *kp,
		    double max, double *out);
int gq_cfg_get_str_array(struct parser *p, struct json_object *v,
			 const char *kp, const char *what, bool dups_ok,
			 char ***out, int *nout);
int gq_cfg_get_string(struct parser *p, struct json_object *v, const char *kp,
		      char **out);
unsigned long gq_cfg_hash_nocase(const void *k);
const char *gq_cfg_jstr(const char *s, char buf[VAL_BUF]);
const char *gq_cfg_jval(struct json_object *v, char buf[VAL_BUF]);
const char *gq_cfg_kp_idx(char buf[KP_MAX], const char *parent, size_t i);
const char *gq_cfg_kp_key(char buf[KP_MAX], const char *parent,
			  const char *key);
int gq_cfg_need_type(struct parser *p, struct json_object *v, const char *kp,
		     enum json_type t, const char *what);
int gq_cfg_oom(struct parser *p);
void gq_cfg_set_err(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* departments and projects (config_projects.c) */
int gq_cfg_get_grace(struct parser *p, struct json_object *v,
		     const char *kp, int *out);
int gq_cfg_open_array(struct parser *p, struct json_object *arr,
		      const char *key, size_t size, void **out,
		      struct lh_table **names);
int gq_cfg_parse_budget(struct parser *p, struct json_object *obj,
			gq_settings_t *s);
int gq_cfg_parse_depts(struct parser *p, struct json_object *arr);
int gq_cfg_parse_projects(struct parser *p, struct json_object *arr);

/* pools and settings (config_settings.c) */
int gq_cfg_parse_pools(struct parser *p, struct json_object *arr);
int gq_cfg_parse_settings(struct parser *p, struct json_object *obj);

#endif
