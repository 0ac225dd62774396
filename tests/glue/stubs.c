/*
 * stubs.c - slurmctld's own symbols that the plugin glue under test
 * (src/plugins/{array_throttle,write_slurm,hold,read_slurm,grace,
 * multifactor}.c) reaches.  In slurmctld they resolve inside
 * the daemon at dlopen(); libslurmfull (linked here) has the rest of
 * Slurm's common code (lists, xmalloc, logging, bitstrings).  Each stub
 * does the least those paths need, and says why it is here.  The jobs the
 * tests make (jobs.c) live in job_list and in a table for find_job_record.
 */
#include <string.h>

#include "shared/slurm_compat.h"

#include "glue.h"

/* write_slurm.c walks it (gq_write_pass, gq_write_plan); array_throttle.c,
 * hold.c and write_slurm.c stamp last_job_update when they change a job */
list_t *job_list;
time_t last_job_update;

/* read_slurm.c reads the partitions (a pass needs them); NULL but in
 * the test of a whole read (test_oom.c) */
list_t *part_list;

/* read_slurm.c (_on_node_not_responding, the node walk)
 * read the node table: the tests have no nodes */
int node_record_count;
node_record_t **node_record_table_ptr;

node_record_t *next_node(int *index)
{
	(void)index;
	return NULL;
}

/* read_slurm.c reads the account tree from slurmdbd's: the tests have
 * none (libslurmfull's own would read slurm.conf) */
bool slurm_with_slurmdbd(void)
{
	return false;
}

/* read_slurm.c reads the account tree under the association lock */
list_t *assoc_mgr_assoc_list;

void assoc_mgr_lock(assoc_mgr_lock_t *locks)
{
	(void)locks;
}

void assoc_mgr_unlock(assoc_mgr_lock_t *locks)
{
	(void)locks;
}

/* read_slurm.c counts GPUs by the gres plugin id of "gpu" (slurmctld's
 * gres plugins are not loaded here; any fixed id will do) */
uint32_t gres_build_id(char *name)
{
	(void)name;
	return 7696487;
}

/* grace.c requeues a victim whose grace ended: nothing to requeue here */
int job_requeue(uid_t uid, uint32_t job_id, slurm_msg_t *msg, bool preempt,
		uint32_t flags)
{
	(void)uid;
	(void)job_id;
	(void)msg;
	(void)preempt;
	(void)flags;
	return SLURM_SUCCESS;
}

/* grace.c takes the job lock from its own thread: the tests are one
 * thread */
void lock_slurmctld(slurmctld_lock_t lock_levels)
{
	(void)lock_levels;
}

void unlock_slurmctld(slurmctld_lock_t lock_levels)
{
	(void)lock_levels;
}

/* pass_thread.c: the pass asks for a scheduling cycle after a
 * release (the tests run no scheduler) */
void queue_job_scheduler(void)
{
}

/* config_load.c: a pool's partitions checked at a pass (none here) */
part_record_t *find_part_record(char *name)
{
	(void)name;
	return NULL;
}

/* priority_gpuquota.c: sprio shows an operator every job */
bool validate_operator(uid_t uid)
{
	(void)uid;
	return false;
}

/* run_secs.c: the TRES arrays' length (no TRES here) */
int slurmctld_tres_cnt;

/* priority_gpuquota.c: sprio's coordinator check passes it to
 * assoc_mgr_is_user_acct_coord (slurm_compat.h); never called here */
void *acct_db_conn;

/* write_slurm.c finds each job a two-hold pass planned by id
 * (gq_write_planned) */
#define GLUE_MAX_JOBS 256
static job_record_t *jobs[GLUE_MAX_JOBS];
static int njobs;

job_record_t *find_job_record(uint32_t job_id)
{
	for (int i = 0; i < njobs; i++)
		if (jobs[i]->job_id == job_id)
			return jobs[i];
	return NULL;
}

void glue_jobs_reset(void)
{
	if (job_list)
		list_destroy(job_list);
	job_list = list_create(NULL);
	njobs = 0;
}

void glue_job_register(job_record_t *job_ptr)
{
	ck_assert_int_lt(njobs, GLUE_MAX_JOBS);
	jobs[njobs++] = job_ptr;
	if (!job_list)
		job_list = list_create(NULL);
	list_append(job_list, job_ptr);
}
