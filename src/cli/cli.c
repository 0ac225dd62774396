/*
 * cli.c - what the command's table commands share (cli.h): the pool
 * shown, the mode line above a table, and the JSON document around it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <json-c/json.h>

#define GQ_SLURM_PUBLIC_ONLY
#include "shared/slurm_compat.h"
#include "cli/cli.h"

/* The projects the caller's own jobs are in (c->mine). */
static int _mark_mine(gq_cli_t *c)
{
	uid_t uid = getuid();
	uint32_t i;

	if (!(c->mine = calloc((size_t)gq_view_nprojects(c->view) + 1,
			       sizeof(*c->mine))))
		return -1;
	for (i = 0; i < c->api.jobs->record_count; i++) {
		const slurm_job_info_t *j = &c->api.jobs->job_array[i];
		const gq_job_t *job = gq_view_job(c->view, j->job_id);

		if (job && j->user_id == uid)
			c->mine[job->project] = true;
	}
	return 0;
}

int gq_cli_use_pool(gq_cli_t *c, int k)
{
	c->view = c->pools->view[k];
	c->capacity = c->caps[k];
	c->pool = c->pools->name[k];
	free(c->mine);
	c->mine = NULL;
	if (c->private_accounts && _mark_mine(c)) {
		fprintf(stderr, "gpuquota: out of memory\n");
		return 1;
	}
	return 0;
}

/* The mode above a table: said in observe mode only. */
void gq_cli_mode_line(const gq_cli_t *c, const gq_cli_opts_t *o)
{
	if (!o->json && !o->parsable && !o->noheader && gq_cli_observe(c))
		printf("mode: observe (gpuquota acts on no job: holds and reclaims below are what it would do)\n");
}

/*
 * Print {"capacity": C, "mode", key1: v1, key2: v2, "config"} when json;
 * takes the values either way.
 */
void gq_cli_emit(gq_cli_t *c, bool json, const char *k1, json_object *v1,
		 const char *k2, json_object *v2)
{
	json_object *top = json_object_new_object();

	json_object_object_add(top, "capacity",
			       json_object_new_int64((int64_t)c->capacity));
	json_object_object_add(top, "mode", json_object_new_string(
		gq_cli_observe(c) ? "observe" : "enforce"));
	json_object_object_add(top, k1, v1);
	if (k2)
		json_object_object_add(top, k2, v2);
	json_object_object_add(top, "config", gq_cli_config_json(&c->src));
	if (json)
		printf("%s\n", json_object_to_json_string_ext(
			       top, JSON_C_TO_STRING_PRETTY |
			       JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(top);
}
