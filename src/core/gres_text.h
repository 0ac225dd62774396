/*
 * gres_text.h - GPU counts in Slurm's text forms, as the public API
 * (squeue, scontrol, libslurm) shows them: "gres:gpu:2", "gres/gpu=2",
 * "gpu:a100:2(IDX:0-1)", lists joined by ',' or ';'.
 */
#ifndef GPUQUOTA_GRES_TEXT_H
#define GPUQUOTA_GRES_TEXT_H

#include <stdint.h>

/* Sum of the gpu entries of a gres/tres list; NULL or none: 0. */
uint64_t gq_gres_text_gpus(const char *text);

#endif
