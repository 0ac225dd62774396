/*
 * checkpoint.c - `gpuquota checkpoint` (see checkpoint.h): the job's
 * comment read, the checkpoint note in it set to now, the comment written
 * back (gq_job_update).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define GQ_SLURM_PUBLIC_ONLY
#include "shared/slurm_compat.h"

#include "cli/checkpoint.h"
#include "cli/update_job.h"
#include "shared/job_facts.h"

/* The longest comment Slurm takes in a job update (job_mgr.c's check). */
#define GQ_COMMENT_MAX 1024

/* A job id: digits only; 0 when not one. */
static uint32_t _job_id(const char *s)
{
	char *end;
	unsigned long v;

	if (!s || !*s || strspn(s, "0123456789") != strlen(s))
		return 0;
	errno = 0;
	v = strtoul(s, &end, 10);
	return errno || v > UINT32_MAX ? 0 : (uint32_t)v;
}

/* Write `comment` as job j's comment; 0 or Slurm's error number. */
static int _write_comment(const slurm_job_info_t *j, char *comment)
{
	job_desc_msg_t desc;

	slurm_init_job_desc_msg(&desc);
	desc.comment = comment;
	return gq_job_update(j, &desc);
}

/*
 * Job id's record into *msg: 0, or the error as one line into why.
 * libslurm's own lines on stderr (its log) are set aside: the caller
 * says one line of its own, "no such job" for an id Slurm does not know.
 */
static int _load(job_info_msg_t **msg, uint32_t id, char *why, size_t n)
{
	int saved = -1, null = open("/dev/null", O_WRONLY), rc, err;

	fflush(stderr);
	if (null >= 0 && (saved = dup(STDERR_FILENO)) >= 0)
		dup2(null, STDERR_FILENO);
	errno = 0;
	rc = gq_load_job(msg, id, SHOW_ALL);
	err = errno;
	if (saved >= 0) {
		dup2(saved, STDERR_FILENO);
		close(saved);
	}
	if (null >= 0)
		close(null);
	if (!rc && *msg && (*msg)->record_count)
		return 0;
	if (!rc || err == ESLURM_INVALID_JOB_ID)
		snprintf(why, n, "no such job");
	else
		snprintf(why, n, "%s", err ? slurm_strerror(err) :
			 "Slurm did not answer");
	return -1;
}

int gq_checkpoint_command(const char *arg)
{
	const char *s = arg ? arg : getenv("SLURM_JOB_ID");
	uint32_t id = _job_id(s);
	job_info_msg_t *msg = NULL;
	char *comment, why[256];
	int err;

	if (!id) {
		fprintf(stderr, "gpuquota checkpoint: %s%s%s\n",
			s ? "not a job id: '" : "no job: give a job id, or run it inside a job (SLURM_JOB_ID)",
			s ? s : "", s ? "'" : "");
		return 2;
	}
	slurm_init(NULL);
	if (_load(&msg, id, why, sizeof(why))) {
		fprintf(stderr, "gpuquota checkpoint: job %u: %s\n", id, why);
		slurm_free_job_info_msg(msg);
		return 1;
	}
	comment = gq_facts_with_checkpoint(msg->job_array[0].comment, id,
					   time(NULL), GQ_COMMENT_MAX);
	err = comment ? _write_comment(&msg->job_array[0], comment) : 0;
	slurm_free_job_info_msg(msg);
	if (!comment) {
		fprintf(stderr, "gpuquota checkpoint: job %u: its comment is too long to add the note (at most %d characters)\n",
			id, GQ_COMMENT_MAX);
		return 1;
	}
	free(comment);
	if (err) {
		fprintf(stderr, "gpuquota checkpoint: job %u: %s\n", id,
			slurm_strerror(err));
		return 1;
	}
	return 0;
}
