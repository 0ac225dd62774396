/*
 * running_config.c - the configuration the gpuquota command shows:
 * slurmctld's running copy or the file on disk, and what it says about
 * them (see running_config.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "cli/running_config.h"

/* The last note said on stderr: a server says each once, not per scrape. */
static char said[2 * GQ_ERR_MAX];

static void _say(const gq_cli_config_t *why)
{
	if (!why->note[0] || !strcmp(said, why->note))
		return;
	fprintf(stderr, "%s\n", why->note);
	snprintf(said, sizeof(said), "%s", why->note);
}

/* t as local "YYYY-MM-DD HH:MM:SS" */
static void _when(int64_t t, char *buf, size_t n)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!localtime_r(&tt, &tm) ||
	    !strftime(buf, n, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, n, "%lld", (long long)t);
}

/*
 * The running copy in dir, parsed into *cfg (r: its record): 0; -1 when
 * there is none to use, why in err.
 */
static int _running(const char *dir, gq_config_t **cfg, gq_running_t *r,
		    char *err, size_t errlen)
{
	char *file = dir ? gq_running_file_path(dir) : NULL;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	if (!dir)
		snprintf(err, errlen, "no StateSaveLocation");
	else if (!file)
		snprintf(err, errlen, "out of memory");
	else if ((rc = gq_running_file_read(file, r, err, errlen)) == -2)
		snprintf(err, errlen, "%s: none (slurmctld has not loaded gpuquota)",
			 file);
	else if (!rc && !r->text)
		snprintf(err, errlen, "%s: its text is not published (larger than %lu bytes)",
			 file, (unsigned long)GQ_RUNNING_TEXT_MAX);
	else if (!rc)
		rc = gq_config_parse(r->text, r->path ? r->path : file, cfg,
				     err, errlen);
	free(file);
	return rc || !r->text ? -1 : 0;
}

/* What the file on disk (its text, or its error) is to the running copy. */
static void _compare(const char *path, const char *disk_text,
		     const char *disk_err, const gq_running_t *r,
		     gq_cli_config_t *why)
{
	char when[64];

	_when(r->loaded_at, when, sizeof(when));
	why->running = true;
	why->loaded_at = r->loaded_at;
	gq_running_hash_hex(r->hash, why->hash);
	if (!disk_text) {
		why->disk_differs = why->disk_bad = true;
		snprintf(why->note, sizeof(why->note),
			 "gpuquota: %s; showing the configuration slurmctld runs (loaded %s)",
			 disk_err, when);
	} else if (strlen(disk_text) != r->len ||
		   memcmp(disk_text, r->text, r->len)) {
		why->disk_differs = true;
		snprintf(why->note, sizeof(why->note),
			 "gpuquota: %s differs from the configuration slurmctld runs (loaded %s); run scontrol reconfigure",
			 path, when);
	}
}

int gq_cli_config_choose(const char *dir, const char *path,
			 gq_config_t **cfg, gq_cli_config_t *why, char *err,
			 size_t errlen)
{
	char rerr[GQ_ERR_MAX];
	gq_config_t *disk = NULL;
	char *disk_text = NULL;
	gq_running_t r;

	memset(why, 0, sizeof(*why));
	*cfg = NULL;
	if (gq_config_load_text(path, &disk, &disk_text, err, errlen))
		disk_text = NULL;
	if (!_running(dir, cfg, &r, rerr, sizeof(rerr))) {
		_compare(path, disk_text, err, &r, why);
		gq_config_free(disk);
	} else if (disk) {
		*cfg = disk;
		snprintf(why->note, sizeof(why->note),
			 "gpuquota: note: showing %s, the file on disk: the configuration slurmctld runs is not readable here (%s)",
			 path, rerr);
	}
	free(disk_text);
	gq_running_free(&r);
	_say(why);
	return *cfg ? 0 : -1;
}

struct json_object *gq_cli_config_json(const gq_cli_config_t *why)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "source", json_object_new_string(
				       why->running ? "running" : "disk"));
	json_object_object_add(o, "disk_differs",
			       json_object_new_boolean(why->disk_differs));
	if (why->running) {
		json_object_object_add(o, "hash",
				       json_object_new_string(why->hash));
		json_object_object_add(o, "loaded_at",
				       json_object_new_int64(why->loaded_at));
	}
	if (why->note[0])
		json_object_object_add(o, "note",
				       json_object_new_string(why->note));
	return o;
}

void gq_cli_config_metrics(const gq_cli_config_t *why, gq_prom_t *out)
{
	char loaded[32];
	const char *labels[] = { "hash", why->hash, "loaded", loaded, NULL };

	snprintf(loaded, sizeof(loaded), "%lld", (long long)why->loaded_at);
	if (why->running) {
		gq_prom_family(out, "gpuquota_config_info", "gauge",
			       "The configuration slurmctld runs: its text's FNV-1a 64 hash and when it was loaded (unix seconds); always 1.");
		gq_prom_sample(out, "gpuquota_config_info", labels, 1);
	}
	gq_prom_family(out, "gpuquota_config_disk_differs", "gauge",
		       "1 when gpuquota.json on disk differs from the configuration slurmctld runs or does not load (run scontrol reconfigure, or fix the file), else 0.");
	gq_prom_sample(out, "gpuquota_config_disk_differs", NULL,
		       why->disk_differs);
}
