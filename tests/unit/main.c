/*
 * main.c - runs every unit test suite (Check).
 */
#include <check.h>
#include <stdlib.h>

Suite *config_suite(void);
Suite *running_config_suite(void);
Suite *fairshare_suite(void);
Suite *band_suite(void);
Suite *hash_suite(void);
Suite *idmap_suite(void);
Suite *queue_suite(void);
Suite *array_suite(void);
Suite *reclaim_suite(void);
Suite *department_suite(void);
Suite *registry_suite(void);
Suite *room_suite(void);
Suite *room_wait_suite(void);
Suite *saved_node_suite(void);
Suite *move_suite(void);
Suite *placement_suite(void);
Suite *job_store_suite(void);
Suite *patience_suite(void);
Suite *gres_text_suite(void);
Suite *constraint_suite(void);
Suite *sort_suite(void);
Suite *job_facts_suite(void);
Suite *sync_suite(void);
Suite *import_suite(void);
Suite *hints_suite(void);
Suite *state_suite(void);
Suite *usage_suite(void);
Suite *property_suite(void);
Suite *metrics_suite(void);
Suite *prom_suite(void);
Suite *cli_text_suite(void);
Suite *cli_metrics_suite(void);
Suite *pools_suite(void);
Suite *throttle_file_suite(void);
Suite *unresponsive_suite(void);
Suite *coming_free_suite(void);
Suite *victim_search_suite(void);
Suite *pass_soon_suite(void);
Suite *run_secs_suite(void);
Suite *between_passes_suite(void);
Suite *usage_memory_suite(void);
Suite *pass_input_suite(void);
Suite *view_suite(void);
Suite *ledger_suite(void);
Suite *trusted_file_suite(void);
Suite *budget_suite(void);
Suite *grace_suite(void);
Suite *sim_suite(void);
Suite *sim_report_suite(void);

int main(void)
{
	SRunner *sr = srunner_create(fairshare_suite());
	int failed;

	srunner_add_suite(sr, band_suite());
	srunner_add_suite(sr, usage_suite());
	srunner_add_suite(sr, hash_suite());
	srunner_add_suite(sr, idmap_suite());
	srunner_add_suite(sr, queue_suite());
	srunner_add_suite(sr, array_suite());
	srunner_add_suite(sr, reclaim_suite());
	srunner_add_suite(sr, department_suite());
	srunner_add_suite(sr, registry_suite());
	srunner_add_suite(sr, room_suite());
	srunner_add_suite(sr, room_wait_suite());
	srunner_add_suite(sr, saved_node_suite());
	srunner_add_suite(sr, move_suite());
	srunner_add_suite(sr, placement_suite());
	srunner_add_suite(sr, job_store_suite());
	srunner_add_suite(sr, patience_suite());
	srunner_add_suite(sr, config_suite());
	srunner_add_suite(sr, running_config_suite());
	srunner_add_suite(sr, gres_text_suite());
	srunner_add_suite(sr, constraint_suite());
	srunner_add_suite(sr, sort_suite());
	srunner_add_suite(sr, job_facts_suite());
	srunner_add_suite(sr, sync_suite());
	srunner_add_suite(sr, import_suite());
	srunner_add_suite(sr, hints_suite());
	srunner_add_suite(sr, state_suite());
	srunner_add_suite(sr, property_suite());
	srunner_add_suite(sr, metrics_suite());
	srunner_add_suite(sr, prom_suite());
	srunner_add_suite(sr, cli_text_suite());
	srunner_add_suite(sr, cli_metrics_suite());
	srunner_add_suite(sr, pools_suite());
	srunner_add_suite(sr, coming_free_suite());
	srunner_add_suite(sr, victim_search_suite());
	srunner_add_suite(sr, pass_soon_suite());
	srunner_add_suite(sr, run_secs_suite());
	srunner_add_suite(sr, between_passes_suite());
	srunner_add_suite(sr, throttle_file_suite());
	srunner_add_suite(sr, unresponsive_suite());
	srunner_add_suite(sr, usage_memory_suite());
	srunner_add_suite(sr, pass_input_suite());
	srunner_add_suite(sr, view_suite());
	srunner_add_suite(sr, ledger_suite());
	srunner_add_suite(sr, trusted_file_suite());
	srunner_add_suite(sr, budget_suite());
	srunner_add_suite(sr, grace_suite());
	srunner_add_suite(sr, sim_suite());
	srunner_add_suite(sr, sim_report_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
