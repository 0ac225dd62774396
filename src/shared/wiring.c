/*
 * wiring.c - what gpuquota needs in slurm.conf besides its own two
 * plugins (see wiring.h).
 */
#include <string.h>

#include "shared/wiring.h"

/* One entry of a plugin list, "gpuquota" or "job_submit/gpuquota", with
 * Slurm's spaces around it. */
static bool _entry_is(const char *s, size_t len, const char *name)
{
	const char *slash;

	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	slash = memchr(s, '/', len);
	if (slash) {
		len -= (size_t)(slash + 1 - s);
		s = slash + 1;
	}
	return len == strlen(name) && !strncmp(s, name, len);
}

bool gq_wiring_lists(const char *list, const char *name)
{
	const char *comma;

	if (!list)
		return false;
	for (;;) {
		comma = strchr(list, ',');
		if (_entry_is(list, comma ? (size_t)(comma - list) :
					   strlen(list), name))
			return true;
		if (!comma)
			return false;
		list = comma + 1;
	}
}

const char *gq_wiring_job_submit(const char *job_submit_plugins)
{
	if (gq_wiring_lists(job_submit_plugins, "gpuquota"))
		return NULL;
	return "slurm.conf: JobSubmitPlugins does not list gpuquota: without it a person's scontrol hold on a job gpuquota holds would be released by gpuquota, so priority/gpuquota does not start (add gpuquota to JobSubmitPlugins, e.g. JobSubmitPlugins=lua,gpuquota)";
}
