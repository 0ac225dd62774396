/*
 * test_running_config.c - the configuration slurmctld runs
 * (docs/MODEL.md "The running configuration"): its file
 * (state/running_config.h: the exact text, its hash, the last failed
 * load, written whole, refused when bad) and the command's choice
 * (cli/running_config.h: the running copy over the file on disk, the
 * line when they differ or the disk file is bad, the file on disk when
 * there is no running copy).  Refusal of links, FIFOs, owners and sizes:
 * test_trusted_file.c (state_files_refuse_bad_files).
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli/running_config.h"
#include "state/running_config.h"
#include "tools/trusted_file.h"

static char dir[64];
static char disk[128];	/* <dir>/gpuquota.json */

static void _setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/gq-running-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(disk, sizeof(disk), "%s/gpuquota.json", dir);
	gq_file_trust_owner(-1);
}

static void _teardown(void)
{
	char *file = gq_running_file_path(dir);

	unlink(disk);
	unlink(file);
	rmdir(dir);
	free(file);
}

static void _put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
}

/* slurmctld loaded `text` from disk at `at`: its running file in dir */
static void _publish(const char *text, int64_t at)
{
	gq_running_t r = { 0 };
	char err[GQ_ERR_MAX], *file = gq_running_file_path(dir);

	ck_assert_int_eq(gq_running_loaded(&r, disk, strdup(text),
					   strlen(text), at), 0);
	ck_assert_msg(!gq_running_file_write(&r, file, err, sizeof(err)),
		      "%s", err);
	gq_running_free(&r);
	free(file);
}

static const char quota4[] =
	"{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 4}]}\n";
static const char quota8[] =
	"{\"projects\": [{\"name\": \"a\", \"gpu_quota\": 8}]}\n";

/*
 * FNV-1a 64 (the published hash): "" is the offset basis
 * cbf29ce484222325; "a" is (basis ^ 0x61) * 0x100000001b3 mod 2^64 =
 * af63dc4c8601ec8c (the FNV reference values).  The same text, the same
 * hash; one byte changed, another.
 */
START_TEST(running_hash_stable)
{
	char hex[GQ_HASH_HEX];

	gq_running_hash_hex(gq_running_hash("", 0), hex);
	ck_assert_str_eq(hex, "cbf29ce484222325");
	gq_running_hash_hex(gq_running_hash("a", 1), hex);
	ck_assert_str_eq(hex, "af63dc4c8601ec8c");
	ck_assert_uint_eq(gq_running_hash(quota4, strlen(quota4)),
			  gq_running_hash(quota4, strlen(quota4)));
	ck_assert_uint_ne(gq_running_hash(quota4, strlen(quota4)),
			  gq_running_hash(quota8, strlen(quota8)));
}
END_TEST

/*
 * The exact text (tabs, a control byte, quotes, a backslash, UTF-8, no
 * final newline) and the last failure come back byte for byte; the file
 * is written whole (no <file>.tmp left) and mode 0644 (the command reads
 * it as any user who may enter StateSaveLocation).
 */
START_TEST(running_file_round_trip)
{
	const char text[] = "{\"projects\":\t[]}\x01 \"q\" \\ \xc3\xa9";
	char err[GQ_ERR_MAX], tmp[256], *file = gq_running_file_path(dir);
	gq_running_t r = { 0 }, back;
	struct stat st;

	ck_assert_int_eq(gq_running_loaded(&r, disk, strdup(text),
					   strlen(text), 1000), 0);
	gq_running_failed(&r, disk, "x.json: projects[0].gpu_quota: bad", 2000);
	ck_assert_int_eq(gq_running_file_write(&r, file, err, sizeof(err)), 0);
	ck_assert_int_eq(gq_running_file_read(file, &back, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(back.len, strlen(text));
	ck_assert_int_eq(memcmp(back.text, text, back.len), 0);
	ck_assert_uint_eq(back.hash, gq_running_hash(text, strlen(text)));
	ck_assert_int_eq(back.loaded_at, 1000);
	ck_assert_int_eq(back.failed_at, 2000);
	ck_assert_str_eq(back.failed_path, disk);
	ck_assert_str_eq(back.failed_err, "x.json: projects[0].gpu_quota: bad");
	ck_assert_str_eq(back.path, disk);
	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	ck_assert_int_eq(lstat(tmp, &st), -1);
	ck_assert_int_eq(stat(file, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0644);
	gq_running_free(&r);
	gq_running_free(&back);
	free(file);
}
END_TEST

/* A file that is not what it says: refused, one line naming the file
 * and the key; a missing file is -2. */
START_TEST(running_file_refuses_bad_content)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
		{ "{", "not a JSON file" },
		{ "[]", "not a JSON object" },
		{ "{\"version\": 2, \"hash\": \"cbf29ce484222325\", \"loaded_at\": 1}",
		  "version: 2 not known" },
		{ "{\"version\": 1, \"loaded_at\": 1}", "hash: missing" },
		{ "{\"version\": 1, \"hash\": \"xyz\", \"loaded_at\": 1}",
		  "hash: must be 16 hex digits" },
		/* the hash of "" with the text "x": a text changed by hand */
		{ "{\"version\": 1, \"text\": \"x\", \"hash\": \"cbf29ce484222325\", \"loaded_at\": 1}",
		  "hash: not the hash of text" },
		{ "{\"version\": 1, \"hash\": \"cbf29ce484222325\", \"loaded_at\": -5}",
		  "loaded_at: must be an integer >= 0" },
		{ "{\"version\": 1, \"text\": 7, \"hash\": \"cbf29ce484222325\", \"loaded_at\": 1}",
		  "text: must be a string" },
	};
	char err[GQ_ERR_MAX], *file = gq_running_file_path(dir);
	gq_running_t r;
	size_t i;

	ck_assert_int_eq(gq_running_file_read(file, &r, err, sizeof(err)), -2);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		_put(file, bad[i].text);
		ck_assert_int_eq(gq_running_file_read(file, &r, err,
						      sizeof(err)), -1);
		ck_assert_msg(strstr(err, file) && strstr(err, bad[i].says),
			      "%s: %s", bad[i].text, err);
		gq_running_free(&r);
	}
	free(file);
}
END_TEST

/*
 * A text over GQ_RUNNING_TEXT_MAX (4 MiB + 1 byte) is not copied: its
 * hash alone is kept, and the command then shows the file on disk.
 */
START_TEST(running_text_bounded)
{
	size_t n = GQ_RUNNING_TEXT_MAX + 1;
	char *big = malloc(n + 1);
	gq_running_t r = { 0 };
	uint64_t h;

	ck_assert_ptr_nonnull(big);
	memset(big, ' ', n);
	big[n] = '\0';
	h = gq_running_hash(big, n);
	ck_assert_int_eq(gq_running_loaded(&r, disk, big, n, 1), 0);
	ck_assert_ptr_null(r.text);
	ck_assert_uint_eq(r.len, 0);
	ck_assert_uint_eq(r.hash, h);
	gq_running_free(&r);
}
END_TEST

/*
 * slurmctld runs quota 4; the admin saved quota 8 without reconfigure:
 * the command shows 4, from the running copy, and says the file differs.
 */
START_TEST(cli_shows_running_when_disk_differs)
{
	gq_cli_config_t why;
	gq_config_t *cfg;
	char err[GQ_ERR_MAX];

	_publish(quota4, 1000);
	_put(disk, quota8);
	ck_assert_int_eq(gq_cli_config_choose(dir, disk, &cfg, &why, err,
					      sizeof(err)), 0);
	ck_assert_int_eq(cfg->projects[0].gpu_quota, 4);
	ck_assert(why.running);
	ck_assert(why.disk_differs);
	ck_assert(!why.disk_bad);
	ck_assert_int_eq(why.loaded_at, 1000);
	ck_assert_ptr_nonnull(strstr(why.note, disk));
	ck_assert_ptr_nonnull(strstr(why.note,
		"differs from the configuration slurmctld runs (loaded "));
	ck_assert_ptr_nonnull(strstr(why.note, "run scontrol reconfigure"));
	gq_config_free(cfg);

	/* the same text on disk: nothing to say */
	_put(disk, quota4);
	ck_assert_int_eq(gq_cli_config_choose(dir, disk, &cfg, &why, err,
					      sizeof(err)), 0);
	ck_assert(why.running);
	ck_assert(!why.disk_differs);
	ck_assert_str_eq(why.note, "");
	gq_config_free(cfg);
}
END_TEST

/*
 * A bad file saved (gpu_quota -2): the command keeps working from the
 * running copy (quota 4), and its note carries the file's error.
 */
START_TEST(cli_keeps_running_when_disk_bad)
{
	gq_cli_config_t why;
	gq_config_t *cfg;
	char err[GQ_ERR_MAX];

	_publish(quota4, 1000);
	_put(disk, "{\"projects\": [{\"name\": \"a\", \"gpu_quota\": -2}]}");
	ck_assert_int_eq(gq_cli_config_choose(dir, disk, &cfg, &why, err,
					      sizeof(err)), 0);
	ck_assert_int_eq(cfg->projects[0].gpu_quota, 4);
	ck_assert(why.running);
	ck_assert(why.disk_differs);
	ck_assert(why.disk_bad);
	ck_assert_ptr_nonnull(strstr(why.note, "projects[0].gpu_quota"));
	ck_assert_ptr_nonnull(strstr(why.note,
		"showing the configuration slurmctld runs"));
	gq_config_free(cfg);
}
END_TEST

/*
 * No running copy (the plugin never loaded; no StateSaveLocation): the
 * file on disk, as before, with a note saying so; a bad file on disk
 * then is an error.
 */
START_TEST(cli_falls_back_to_disk)
{
	gq_cli_config_t why;
	gq_config_t *cfg;
	char err[GQ_ERR_MAX];

	_put(disk, quota8);
	ck_assert_int_eq(gq_cli_config_choose(dir, disk, &cfg, &why, err,
					      sizeof(err)), 0);
	ck_assert_int_eq(cfg->projects[0].gpu_quota, 8);
	ck_assert(!why.running);
	ck_assert(!why.disk_differs);
	ck_assert_ptr_nonnull(strstr(why.note, "the file on disk"));
	ck_assert_ptr_nonnull(strstr(why.note, "gpuquota-running.json: none"));
	gq_config_free(cfg);
	ck_assert_int_eq(gq_cli_config_choose(NULL, disk, &cfg, &why, err,
					      sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(why.note, "no StateSaveLocation"));
	gq_config_free(cfg);
	_put(disk, "{");
	ck_assert_int_eq(gq_cli_config_choose(dir, disk, &cfg, &why, err,
					      sizeof(err)), -1);
	ck_assert_ptr_null(cfg);
	ck_assert_ptr_nonnull(strstr(err, disk));
}
END_TEST

/*
 * The exporter's lines: the running copy's hash and load time (1000),
 * and 1 when the file on disk differs; the JSON key says the same.
 */
START_TEST(cli_config_metrics)
{
	gq_cli_config_t why;
	gq_config_t *cfg;
	char err[GQ_ERR_MAX], want[128], hex[GQ_HASH_HEX];
	json_object *o, *v;
	gq_prom_t p;

	_publish(quota4, 1000);
	_put(disk, quota8);
	ck_assert_int_eq(gq_cli_config_choose(dir, disk, &cfg, &why, err,
					      sizeof(err)), 0);
	gq_running_hash_hex(gq_running_hash(quota4, strlen(quota4)), hex);
	snprintf(want, sizeof(want),
		 "gpuquota_config_info{hash=\"%s\",loaded=\"1000\"} 1\n", hex);
	gq_prom_init(&p);
	gq_cli_config_metrics(&why, &p);
	ck_assert_msg(strstr(p.buf, want), "%s", p.buf);
	ck_assert_ptr_nonnull(strstr(p.buf, "\ngpuquota_config_disk_differs 1\n"));
	gq_prom_free(&p);
	o = gq_cli_config_json(&why);
	ck_assert(json_object_object_get_ex(o, "source", &v));
	ck_assert_str_eq(json_object_get_string(v), "running");
	ck_assert(json_object_object_get_ex(o, "disk_differs", &v));
	ck_assert(json_object_get_boolean(v));
	json_object_put(o);
	gq_config_free(cfg);
}
END_TEST

Suite *running_config_suite(void)
{
	Suite *s = suite_create("running_config");
	TCase *tc = tcase_create("the running configuration");

	tcase_add_checked_fixture(tc, _setup, _teardown);
	tcase_add_test(tc, running_hash_stable);
	tcase_add_test(tc, running_file_round_trip);
	tcase_add_test(tc, running_file_refuses_bad_content);
	tcase_add_test(tc, running_text_bounded);
	tcase_add_test(tc, cli_shows_running_when_disk_differs);
	tcase_add_test(tc, cli_keeps_running_when_disk_bad);
	tcase_add_test(tc, cli_falls_back_to_disk);
	tcase_add_test(tc, cli_config_metrics);
	suite_add_tcase(s, tc);
	return s;
}
