/*
 * events.h - the simulator's future events, earliest first: a binary
 * heap on (time, kind, sequence), so that events of one second come in a
 * fixed order (ends, grace expiries, begin times, submits, wake-ups) and
 * the replay is deterministic.  No Slurm header here.
 */
#ifndef GPUQUOTA_SIM_EVENTS_H
#define GPUQUOTA_SIM_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
	GQ_EV_END,	/* a run reaches its end */
	GQ_EV_GRACE,	/* a victim's grace time is over: requeued */
	GQ_EV_BEGIN,	/* a requeued job's begin time: demand again */
	GQ_EV_SUBMIT,
	GQ_EV_WAKE,	/* a rule's time passes (min runtime, waits) */
} gq_ev_kind_t;

typedef struct {
	int64_t at;
	gq_ev_kind_t kind;
	uint64_t seq;		/* order of pushing, among equals */
	uint32_t job;		/* index into the history; WAKE: unused */
	uint32_t run;		/* the job's run it is for (END, GRACE):
				 * a requeue makes it stale */
} gq_ev_t;

typedef struct {
	gq_ev_t *e;
	size_t n, cap;
	uint64_t seq;
} gq_events_t;

/* Push an event; -1 out of memory.  O(log n). */
int gq_events_push(gq_events_t *q, int64_t at, gq_ev_kind_t kind,
		   uint32_t job, uint32_t run);

/* The earliest event into *out; false when none.  O(log n). */
bool gq_events_pop(gq_events_t *q, gq_ev_t *out);

/* The earliest event's time, or INT64_MAX.  O(1). */
int64_t gq_events_next(const gq_events_t *q);

void gq_events_free(gq_events_t *q);

#endif
