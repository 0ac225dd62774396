/*
 * job_store.h - the jobs of a pass as records (gq_job_t, job.h), found
 * by id, and grouped by project for the pass's steps.
 *
 * Owns: the records and where each one is (its index), the id -> index
 * map, each record's group (its project, running or not) and the second
 * buffer the records are grouped into.  Not the records' contents: the
 * pass's steps (queue.c, reclaim.c, room.c, patience.c, placement.c, in
 * the order view.c gives) read and write what the pass decides of a job
 * in its record.  No Slurm header here.
 */
#ifndef GPUQUOTA_JOB_STORE_H
#define GPUQUOTA_JOB_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "tools/bucket.h"
#include "tools/idmap.h"
#include "core/queue.h"
#include "core/registry.h"
#include "core/job.h"

/*
 * A job store: one per view.
 *
 * What it owns: jobs[0 .. njobs), the records (gq_job_t, job.h: its
 * input, then what the pass decides) aligned on cache lines (a large
 * store on 2 MB pages: walking one project's scattered records then does
 * not miss the TLB at every record); ids, job id -> index;
 * group[], 4 bytes a record, its group as it was added (2p for a queued
 * job of project p, 2p + 1 running; plus a bit: it has placement
 * entries), so that grouping counts from 4 bytes a job instead of reading
 * the records once more; spare, the buffer a grouping copies the records
 * into (then the two swap), and moved, old index -> new, of the last
 * grouping.  During a pass a record added holds its input alone (the
 * record's first part): its project is in group[], and the grouping
 * writes the rest (nothing decided) as it copies it, so that adding a job
 * writes its input alone and grouping reads that alone.
 *
 * What each operation costs: gq_store_stage and gq_store_add O(1)
 * amortized (the arrays double); a lookup by id or index O(1), inline;
 * gq_store_group O(J + P) for J records and P projects, one copy of the
 * records, plus O(capacity) to renumber the id map;
 * gq_store_start_in_place O(J); gq_store_renumber O(n); gq_store_clear
 * O(capacity of the id map).
 *
 * Who may call it: the view (view.c) adds, groups and clears; the pass's
 * steps reach the records through gq_store_records, gq_store_at,
 * gq_store_index and gq_store_count (placement.c also through
 * gq_store_set_placed), never through these fields.  The struct is
 * defined here, and those functions and gq_store_stage are inline, for
 * performance alone: a view embeds its store, a pass adds every job, and
 * the steps read records in their hot loops, where a call per record
 * would cost more than the work.  Only job_store.c and the inline
 * functions of this header write the fields.
 *
 * A record's index holds until the next gq_store_group (indexes kept
 * elsewhere follow with gq_store_renumber) or gq_store_clear; its address
 * until the store grows (an add).
 */
typedef struct {
	gq_job_t *jobs;
	int njobs, cap;
	gq_idmap_t ids;
	int *group;		/* cap of them */
	bool stale;		/* a pass grouped the records: group[] is not
				 * by the current index (nor kept for late
				 * adds), and the records are whole */
	gq_job_t *spare;
	int spare_cap;
	int *moved;
	int moved_cap;
} gq_job_store_t;

/*
 * What the pass counts of each record as gq_store_group moves it, in the
 * one sweep that reads them all: a running job's GPUs into a_p and a_d
 * (registry.h); with records staged this pass, a queued job into its
 * project's queue as the grouping sees it (queue.h, gq_queue_seen; seen:
 * per project, zeroed by the caller) and whether it is demand (demand: by
 * its new index, pending or not).
 */
typedef struct {
	gq_registry_t *reg;
	gq_queue_seen_t *seen;
	uint8_t *demand;
} gq_store_sweep_t;

/* An empty store; allocates nothing until the first add. */
void gq_store_init(gq_job_store_t *s);
void gq_store_free(gq_job_store_t *s);

/* Forget every record (a new pass); the memory is kept.  O(capacity of
 * the id map). */
void gq_store_clear(gq_job_store_t *s);

/*
 * Add a job the store does not hold after a pass (a late add): its whole
 * record, nothing decided yet, of `project` (a job it holds: that record,
 * left as it is).  Returns it, or NULL when out of memory.
 */
gq_job_t *gq_store_add(gq_job_store_t *s, const gq_job_in_t *in,
		       int project);

/*
 * Group the records by project, in each its queued (pending and waiting)
 * jobs before its running ones, each in the order they came, so that the
 * steps of the pass, which walk one project's queue or running jobs at a
 * time, read neighbouring memory.  The same sweep starts each record: a
 * staged one is made whole (nothing decided, its project), a record of a
 * pass before (a pass again without gq_store_clear) is copied whole and
 * reset (nothing decided); each is counted into *sw.  `queued` and
 * `running` get each project's runs (bucket p: project p's).  Returns 0;
 * -1 when there is no memory for the second buffer (the records are left
 * as they are, nothing counted: gq_store_start_in_place); -2 when there is
 * none for the buckets (the records moved and were counted).
 */
int gq_store_group(gq_job_store_t *s, int nproj, const gq_store_sweep_t *sw,
		   gq_buckets_t *queued, gq_buckets_t *running);

/*
 * Without memory to group: start each record where it is (as
 * gq_store_group, nothing seen, no demand written).  O(J).
 */
void gq_store_start_in_place(gq_job_store_t *s, gq_registry_t *reg);

/* Indexes kept outside the store (placement entries) moved as the last
 * gq_store_group moved the records.  O(n). */
void gq_store_renumber(const gq_job_store_t *s, int *idx, int n);

/*
 * Twice the room (records and their groups); -1 when out of memory.  For
 * gq_store_stage (below) and gq_store_add.
 */
int gq_store_grow(gq_job_store_t *s);

/* in group[]: the record has placement entries */
#define GQ_STORE_PLACED (1 << 30)

/* A record's group: 2p for a pending or waiting job of project p, 2p + 1
 * running. */
static inline int gq_store_group_of(int project, const gq_job_in_t *in)
{
	return 2 * project + (in->state == GQ_JOB_RUNNING);
}

/*
 * Add a job of `project` during a pass (before it is grouped): its input
 * alone is written (tasks 0 taken as 1), the rest when the pass groups
 * it.  The same id twice in a pass: the last input, in the first one's
 * record, which keeps its placement entries.  Returns the record, or NULL
 * when out of memory.  Inline, as the lookups below: a pass adds every
 * job through it, and a call more per job costs more than the add.
 */
static inline gq_job_t *gq_store_stage(gq_job_store_t *s,
				       const gq_job_in_t *in, int project)
{
	gq_job_t *job;
	int idx, placed = 0;

	if (s->njobs == s->cap && gq_store_grow(s))
		return NULL;
	idx = gq_idmap_get_or_put(&s->ids, in->id, s->njobs);
	if (idx < 0)
		return NULL;
	if (idx == s->njobs)
		s->njobs++;
	else	/* the same job twice in a pass: the last */
		placed = s->group[idx] & GQ_STORE_PLACED;
	job = &s->jobs[idx];
	job->in = *in;
	if (!job->in.tasks)
		job->in.tasks = 1;
	s->group[idx] = gq_store_group_of(project, in) | placed;
	return job;
}

/*
 * Record idx (staged this pass) gets placement entries: false when it had
 * some already (a job's entries must be consecutive).  O(1), inline: once
 * per placement entry.
 */
static inline bool gq_store_set_placed(gq_job_store_t *s, int idx)
{
	if (s->group[idx] & GQ_STORE_PLACED)
		return false;
	s->group[idx] |= GQ_STORE_PLACED;
	return true;
}

/* The records hold their input alone (staged this pass, not grouped
 * yet). */
static inline bool gq_store_staged(const gq_job_store_t *s)
{
	return !s->stale;
}

static inline int gq_store_count(const gq_job_store_t *s)
{
	return s->njobs;
}

/* Records the store has room for without growing. */
static inline int gq_store_capacity(const gq_job_store_t *s)
{
	return s->cap;
}

/* The records, by index (valid until an add). */
static inline gq_job_t *gq_store_records(const gq_job_store_t *s)
{
	return s->jobs;
}

static inline gq_job_t *gq_store_at(const gq_job_store_t *s, int idx)
{
	return &s->jobs[idx];
}

/* The index of job `id`, or -1. */
static inline int gq_store_index(const gq_job_store_t *s, uint32_t id)
{
	return gq_idmap_get(&s->ids, id);
}

/* The record of job `id`, or NULL. */
static inline gq_job_t *gq_store_find(const gq_job_store_t *s, uint32_t id)
{
	int idx = gq_store_index(s, id);

	return idx < 0 ? NULL : gq_store_at(s, idx);
}

#endif
