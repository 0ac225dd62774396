/*
 * running_config.h - which configuration the gpuquota command shows:
 * the one slurmctld runs (<StateSaveLocation>/gpuquota-running.json,
 * state/running_config.h) when it can read it, else the file on disk;
 * and what it says about the two (docs/MODEL.md "The running
 * configuration"): a file on disk that differs or does not parse, or no
 * running copy to read.
 */
#ifndef GPUQUOTA_CLI_RUNNING_CONFIG_H
#define GPUQUOTA_CLI_RUNNING_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"
#include "state/running_config.h"
#include "tools/prom.h"

struct json_object;

typedef struct {
	bool running;		/* cfg is slurmctld's running copy */
	bool disk_differs;	/* the file on disk differs or is bad */
	bool disk_bad;		/* ... does not load (note: its error) */
	char hash[GQ_HASH_HEX];	/* the running copy's; "" none */
	int64_t loaded_at;	/* when slurmctld loaded it; 0 none */
	char note[2 * GQ_ERR_MAX];	/* the line said on stderr; "" none */
} gq_cli_config_t;

/*
 * The configuration to show, into *cfg: the running copy in `dir`
 * (NULL: no StateSaveLocation) when it is readable and has its text,
 * else the file `path` on disk.  why says which, and its note (also
 * printed on stderr, once per process for the same note).  0; or -1
 * with the disk file's error in err when there is no running copy and
 * the file on disk is bad.  O(file).
 */
int gq_cli_config_choose(const char *dir, const char *path,
			 gq_config_t **cfg, gq_cli_config_t *why, char *err,
			 size_t errlen);

/* why as the "config" object of --json: {"source": "running"|"disk",
 * "disk_differs", "hash", "loaded_at", "note"}.  NULL out of memory. */
struct json_object *gq_cli_config_json(const gq_cli_config_t *why);

/* gpuquota_config_info{hash,loaded} 1 (with a running copy) and
 * gpuquota_config_disk_differs 0/1, appended to out. */
void gq_cli_config_metrics(const gq_cli_config_t *why, gq_prom_t *out);

#endif
