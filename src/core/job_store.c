/*
 * job_store.c - the jobs of a pass as records, found by id (see
 * job_store.h): their memory, adding them, and grouping them by project
 * with the copies of records that makes (streaming stores, prefetch).
 */
#define _GNU_SOURCE	/* madvise */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/job_store.h"

#define GQ_JOBS_MIN_CAP 256
#define GQ_HUGE_PAGE (2u << 20)
#define GQ_GROUP_AHEAD 16	/* records the grouping reads ahead (2 KB) */
#define GQ_GROUP(g) ((g) & (GQ_STORE_PLACED - 1))

/*
 * A record written where it will not be read again soon (the other
 * buffer while grouping: far larger than any cache): on x86-64,
 * streaming stores write the record's two whole lines without first
 * reading them (half the memory traffic); _put_done orders them before
 * the pass reads them.  Not for the store itself: a job is read back
 * right after it is added (placement), and reading a streamed line
 * stalls.
 */
static inline void _put_record(gq_job_t *to, const gq_job_t *from)
{
#if defined(__SSE2__)
	const __m128i *s = (const __m128i *)from;
	__m128i *d = (__m128i *)to;
	size_t i;

	if (sizeof(*to) % sizeof(*d) == 0) {	/* to: 16-byte aligned */
		for (i = 0; i < sizeof(*to) / sizeof(*d); i++)
			_mm_stream_si128(d + i, _mm_loadu_si128(s + i));
		return;
	}
#endif
	*to = *from;
}

/*
 * What a pass has decided of a job before it starts: nothing.  Its
 * record's second line, after the input (the first line): see
 * job_store.h.
 */
static const gq_job_t _undecided = {
	.band = GQ_BAND_NONE,
	.preempt_rank = UINT32_MAX,
	.place_first = -1,
};

_Static_assert(offsetof(gq_job_t, project) == sizeof(gq_job_in_t),
	       "a record is its input, then its project");
/* the streaming copies above write whole 16-byte vectors; a record that
 * grows past two cache lines makes them a plain copy and costs a third
 * line per job */
_Static_assert(sizeof(gq_job_t) == 128, "a record is two cache lines");

/* A staged record (its input alone) made whole: nothing decided yet. */
static void _start_record(gq_job_t *job, int project)
{
	memcpy(&job->project, &_undecided.project,
	       sizeof(*job) - offsetof(gq_job_t, project));
	job->project = project;
}

/*
 * _put_record of a staged record `from` made whole (_start_record): its
 * input as added, then _undecided with its project, so that the pass
 * reads one line of each staged record, not two.
 */
static inline void _put_started(gq_job_t *to, const gq_job_t *from,
				int project)
{
#if defined(__SSE2__)
	const __m128i *s = (const __m128i *)from;
	const __m128i *u = (const __m128i *)&_undecided;
	__m128i *d = (__m128i *)to;
	size_t i, nin = sizeof(gq_job_in_t) / sizeof(*d);

	if (sizeof(*to) % sizeof(*d) == 0 &&
	    sizeof(gq_job_in_t) % sizeof(*d) == 0) {
		for (i = 0; i < nin; i++)
			_mm_stream_si128(d + i, _mm_loadu_si128(s + i));
		/* project: the low 4 bytes of the first vector after in */
		_mm_stream_si128(d + nin,
				 _mm_or_si128(_mm_loadu_si128(u + nin),
					      _mm_cvtsi32_si128(project)));
		for (i = nin + 1; i < sizeof(*to) / sizeof(*d); i++)
			_mm_stream_si128(d + i, _mm_loadu_si128(u + i));
		return;
	}
#endif
	to->in = from->in;
	_start_record(to, project);
}

static inline void _put_done(void)
{
#if defined(__SSE2__)
	_mm_sfence();
#endif
}

/*
 * Memory for n records, whose first `keep` are those of *old (freed):
 * aligned on cache lines, so that a 128-byte record is two lines, not
 * three; a large store on 2 MB pages where the kernel offers them
 * (madvise).  NULL when out of memory (*old kept).
 */
static gq_job_t *_records(gq_job_t *old, int keep, int n)
{
	size_t bytes = sizeof(gq_job_t) * (size_t)n;
	size_t align = bytes >= GQ_HUGE_PAGE ? GQ_HUGE_PAGE : 64;
	void *p;

	bytes = (bytes + align - 1) / align * align;
	if (posix_memalign(&p, align, bytes))
		return NULL;
#ifdef MADV_HUGEPAGE
	if (align == GQ_HUGE_PAGE)
		madvise(p, bytes, MADV_HUGEPAGE);
#endif
	if (keep)
		memcpy(p, old, sizeof(gq_job_t) * (size_t)keep);
	free(old);
	return p;
}

void gq_store_init(gq_job_store_t *s)
{
	memset(s, 0, sizeof(*s));
	gq_idmap_init(&s->ids);
}

void gq_store_free(gq_job_store_t *s)
{
	free(s->jobs);
	free(s->group);
	free(s->spare);
	free(s->moved);
	gq_idmap_free(&s->ids);
}

void gq_store_clear(gq_job_store_t *s)
{
	s->njobs = 0;
	s->stale = false;
	gq_idmap_clear(&s->ids);
}

int gq_store_grow(gq_job_store_t *s)
{
	int ncap = s->cap ? s->cap * 2 : GQ_JOBS_MIN_CAP;
	gq_job_t *nj = _records(s->jobs, s->njobs, ncap);
	int *ng;

	if (!nj)
		return -1;
	s->jobs = nj;
	if (!(ng = realloc(s->group, sizeof(*ng) * ncap)))
		return -1;
	s->group = ng;
	s->cap = ncap;
	return 0;
}

gq_job_t *gq_store_add(gq_job_store_t *s, const gq_job_in_t *in,
		       int project)
{
	gq_job_t *job;
	int idx;

	if (s->njobs == s->cap && gq_store_grow(s))
		return NULL;
	idx = gq_idmap_get_or_put(&s->ids, in->id, s->njobs);
	if (idx < 0)
		return NULL;
	if (idx != s->njobs)	/* known: gq_view_add_late's to update */
		return &s->jobs[idx];
	job = &s->jobs[s->njobs++];
	job->in = *in;
	if (!job->in.tasks)
		job->in.tasks = 1;
	_start_record(job, project);
	return job;
}

/* A record as a pass starts it: nothing decided, a running job's GPUs in
 * a_p (the idle GPUs are the caller's to count after all). */
static void _reset_record(gq_registry_t *reg, gq_job_t *job)
{
	job->victim = job->chain = 0;
	job->room = job->patient = job->roomless = job->later = false;
	job->off_saved = false;
	job->preempt_rank = UINT32_MAX;
	job->demand = false;
	if (job->in.state == GQ_JOB_RUNNING)
		gq_registry_alloc(reg, job->project, job->in.gpus,
				  job->in.at_risk);
}

/* The second buffer and the moves, as large as the store; -1: memory. */
static int _alloc_spare(gq_job_store_t *s)
{
	if (s->spare_cap < s->cap) {
		gq_job_t *ns = _records(s->spare, 0, s->cap);

		if (!ns)
			return -1;
		s->spare = ns;
		s->spare_cap = s->cap;
	}
	if (s->moved_cap < s->cap) {
		int *nm = realloc(s->moved, sizeof(*nm) * s->cap);

		if (!nm)
			return -1;
		s->moved = nm;
		s->moved_cap = s->cap;
	}
	return 0;
}

/*
 * Each group's first index in the grouped order: start[g] for the ng
 * groups (start[ng]: the count), from group[] (made again from the
 * records when a pass grouped them before).  O(J + ng).
 */
static void _count_groups(gq_job_store_t *s, int *start, int ng)
{
	int k;

	for (k = 0; s->stale && k < s->njobs; k++)
		s->group[k] = gq_store_group_of(s->jobs[k].project,
						&s->jobs[k].in);
	for (k = 0; k < s->njobs; k++)
		start[GQ_GROUP(s->group[k]) + 1]++;
	for (k = 1; k <= ng; k++)
		start[k] += start[k - 1];
}

/*
 * Staged records into the second buffer at at[their group]++, each made
 * whole as it goes and counted into *sw: the hot loop of a pass's
 * grouping (per job, its input read and its whole record written,
 * _put_started).
 */
static void _move_staged(gq_job_store_t *s, int *at,
			 const gq_store_sweep_t *sw)
{
	const gq_job_t *jobs = s->jobs;
	gq_job_t *spare = s->spare;
	const int *group = s->group;
	int *moved = s->moved;
	gq_registry_t *reg = sw->reg;
	gq_queue_seen_t *seen = sw->seen;
	uint8_t *demand = sw->demand;
	int k, n = s->njobs;

	for (k = 0; k < n; k++) {
		int g = GQ_GROUP(group[k]), to = at[g]++;

		/* the inputs are read one line in two: the hardware's
		 * prefetch does not run far enough ahead of them */
		if (k + GQ_GROUP_AHEAD < n)
			__builtin_prefetch(&jobs[k + GQ_GROUP_AHEAD]);
		moved[k] = to;
		if (g & 1) {	/* running: _reset_record's a_p */
			gq_registry_alloc(reg, g / 2, jobs[k].in.gpus,
					  jobs[k].in.at_risk);
		} else {	/* queued: gq_queue_demand's first look */
			gq_queue_seen(&seen[g / 2], &jobs[k].in);
			demand[to] = jobs[k].in.state == GQ_JOB_PENDING;
		}
		_put_started(&spare[to], &jobs[k], g / 2);
	}
}

/* Records of a pass before into the second buffer, copied whole and
 * reset (_reset_record). */
static void _move_started(gq_job_store_t *s, int *at, gq_registry_t *reg)
{
	int k;

	for (k = 0; k < s->njobs; k++) {
		int to = at[s->group[k]]++;
		gq_job_t job = s->jobs[k];

		s->moved[k] = to;
		_reset_record(reg, &job);
		_put_record(&s->spare[to], &job);
	}
}

/* The second buffer becomes the store, the ids follow their records. */
static void _swap(gq_job_store_t *s)
{
	gq_job_t *t = s->jobs;
	int cap = s->cap;

	_put_done();
	s->jobs = s->spare;
	s->spare = t;
	s->cap = s->spare_cap;
	s->spare_cap = cap;
	gq_idmap_renumber(&s->ids, s->moved);
}

int gq_store_group(gq_job_store_t *s, int nproj, const gq_store_sweep_t *sw,
		   gq_buckets_t *queued, gq_buckets_t *running)
{
	int ng = 2 * nproj, rc;
	int *start, *at;

	if (_alloc_spare(s) || !(start = calloc(2 * (ng + 1), sizeof(*start))))
		return -1;
	at = start + ng + 1;
	_count_groups(s, start, ng);
	memcpy(at, start, sizeof(*at) * ng);
	if (s->stale)
		_move_started(s, at, sw->reg);
	else
		_move_staged(s, at, sw);
	_swap(s);
	/* the groups are those of the records before this pass's grouping,
	 * by their index then: a pass again reads the records */
	s->stale = true;
	rc = gq_buckets_runs(queued, nproj, start, 2) ||
	     gq_buckets_runs(running, nproj, start + 1, 2);
	free(start);
	return rc ? -2 : 0;
}

void gq_store_start_in_place(gq_job_store_t *s, gq_registry_t *reg)
{
	int k;

	for (k = 0; k < s->njobs; k++) {
		if (!s->stale)
			_start_record(&s->jobs[k], GQ_GROUP(s->group[k]) / 2);
		_reset_record(reg, &s->jobs[k]);
	}
	s->stale = true;
}

void gq_store_renumber(const gq_job_store_t *s, int *idx, int n)
{
	int k;

	for (k = 0; k < n; k++)
		idx[k] = s->moved[idx[k]];
}
