/*
 * fuzz_config.c - libFuzzer target: the config reader (gq_config_parse)
 * on any bytes.  Besides the sanitizers' checks: an input is either
 * accepted whole or refused with one line that names the file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[GQ_ERR_MAX];
	gq_config_t *cfg = NULL;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (gq_config_parse(text, "fuzz.json", &cfg, err, sizeof(err))) {
		if (cfg || strncmp(err, "fuzz.json: ", 11) || strchr(err, '\n'))
			abort();
	} else if (!cfg) {
		abort();
	}
	gq_config_free(cfg);
	free(text);
	return 0;
}
