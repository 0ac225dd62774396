/*
 * main.c - runs the glue tests (Check): the plugins' own code in
 * src/plugins/, compiled against Slurm's internal headers (build/slurm)
 * and driven with job records as slurmctld holds them; slurmctld's own
 * symbols are stubbed in stubs.c.
 */
#include <check.h>
#include <stdlib.h>

#include "glue.h"

int main(void)
{
	SRunner *sr = srunner_create(glue_throttle_suite());
	int failed;

	srunner_add_suite(sr, glue_write_suite());
	srunner_add_suite(sr, glue_oom_suite());
	srunner_add_suite(sr, glue_ledger_suite());
	srunner_add_suite(sr, glue_grace_ledger_suite());
	srunner_add_suite(sr, glue_read_suite());
	srunner_add_suite(sr, glue_config_load_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
