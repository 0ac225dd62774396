/*
 * reclaim_note.c - a victim's system comment and admin comment note (see
 * reclaim_note.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/band.h"
#include "plugins/reclaim_note.h"
#include "plugins/xalloc.h"
#include "shared/job_facts.h"
#include "state/metrics.h"

/* slurmctld sends its jobs' records to slurmdbd */
static bool _to_slurmdbd(void)
{
	return xstrcasestr(slurm_conf.accounting_storage_type, "slurmdbd");
}

/* the note into the admin comment: the site's text kept */
static void _admin_note(job_record_t *job_ptr, const gq_ledger_rec_t *r,
			int64_t run_start)
{
	char note[GQ_RECLAIM_NOTE_MAX], *text, *x;

	if (gq_facts_reclaim_note(note, sizeof(note), r->preemptor,
				  r->preemptor_project,
				  gq_ledger_reason(r->reason),
				  gq_ledger_stage_name(r->stage),
				  (unsigned long long)r->lost, run_start) < 0)
		return;
	if (!(text = gq_facts_with_note(job_ptr->admin_comment, note,
					GQ_ADMIN_COMMENT_MAX))) {
		info("gpuquota: %pJ: no reclaim note in its admin comment (%zu bytes already, at most %d with the note, or no memory)",
		     job_ptr,
		     job_ptr->admin_comment ? strlen(job_ptr->admin_comment) : 0,
		     GQ_ADMIN_COMMENT_MAX);
		return;
	}
	/* out of memory: the comment as it was */
	if ((x = gq_xstrdup(text))) {
		xfree(job_ptr->admin_comment);
		job_ptr->admin_comment = x;
	}
	free(text);
}

void gq_reclaim_note_write(job_record_t *job_ptr, const gq_ledger_rec_t *r,
			   int64_t run_start, const char *moved_to)
{
	char why[192];

	if (r->reason == GQ_RECLAIM_MOVE)
		snprintf(why, sizeof(why), GQ_MOVED_WHY,
			 moved_to ? moved_to : "another node");
	else
		snprintf(why, sizeof(why), "%s",
			 gq_band_name(r->reason == GQ_RECLAIM_FAIR_SHARE ?
					      GQ_BAND_FAIR_SHARE :
					      GQ_BAND_IN_QUOTA));
	xfree(job_ptr->system_comment);
	/* read back after a restart (read_slurm.c, gq_facts_reclaim_of);
	 * out of memory: none (its GPUs then come free for any preemptor) */
	job_ptr->system_comment =
		r->stage == GQ_LEDGER_WARNED ?
			gq_xprintf(GQ_RECLAIMED_WARNED, r->preemptor,
				   r->preemptor_project, why) :
			gq_xprintf(GQ_RECLAIMED_LOST, r->preemptor,
				   r->preemptor_project, why,
				   (unsigned long long)r->lost);
	if (_to_slurmdbd())
		_admin_note(job_ptr, r, run_start);
}
