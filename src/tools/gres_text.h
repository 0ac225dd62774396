/*
 * gres_text.h - GPU counts in Slurm's text forms, as the public API
 * (squeue, scontrol, libslurm) shows them: "gres:gpu:2", "gres/gpu=2",
 * "gpu:a100:2(IDX:0-1)", lists joined by ',' or ';'.
 */
#ifndef GPUQUOTA_GRES_TEXT_H
#define GPUQUOTA_GRES_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sum of the gpu entries of a gres/tres list; NULL or none: 0. */
uint64_t gq_gres_text_gpus(const char *text);

/*
 * The same, of the entries of GPU type `type` only ("gpu:a100:2" is of
 * type a100, "gpu:2" of none); type NULL or "": every entry.
 */
uint64_t gq_gres_text_gpus_of_type(const char *text, const char *type);

/*
 * The GPU type the first typed gpu entry names ("gres:gpu:a100:1",
 * "gres/gpu:a100=1"), copied into buf; false when no entry names one (or
 * it does not fit in len).
 */
bool gq_gres_text_type(const char *text, char *buf, size_t len);

#endif
