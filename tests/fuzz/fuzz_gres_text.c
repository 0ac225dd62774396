/*
 * fuzz_gres_text.c - libFuzzer target: GPU counts in Slurm's text forms
 * (gq_gres_text_gpus) on any text: no crash, no read past the text, no
 * undefined behaviour.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tools/gres_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	(void)gq_gres_text_gpus(text);
	free(text);
	return 0;
}
