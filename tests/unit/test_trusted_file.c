/*
 * test_trusted_file.c - the files in StateSaveLocation are trusted only
 * when they are what they claim (tools/trusted_file.h): each reader (the
 * helper, the ledger, the usage file, the metrics file, the running
 * configuration's file) refuses a link,
 * a FIFO (without blocking), a directory, /dev/zero, a file larger than
 * its bound, one writable by others and one of another owner; the
 * writers never write through a link.
 */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/ledger.h"
#include "state/metrics_file.h"
#include "state/running_config.h"
#include "state/usage.h"
#include "tools/atomic_file.h"
#include "tools/trusted_file.h"

/* a reader that blocks fails the test (SIGALRM) rather than hangs it */
#define NO_HANG 5

static char dir[64];

static void _setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/gq-trust-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	gq_file_trust_owner(-1);
}

static char *_at(const char *name)
{
	return gq_state_file_path(dir, name);
}

static void _write(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
}

/* a regular file of `size` bytes, all holes (no disk, no memory) */
static void _sparse(const char *path, off_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, size), 0);
	close(fd);
}

/* A bad file in `path`'s place: what each reader must refuse. */
typedef enum {
	BAD_LINK, BAD_DEV_ZERO, BAD_FIFO, BAD_DIR, BAD_GROUP_WRITABLE,
	BAD_OTHER_OWNER, BAD_TOO_LARGE, NBAD,
} bad_t;

static const char *const bad_name[NBAD] = {
	"link to a good file", "link to /dev/zero", "FIFO", "directory",
	"group-writable", "another owner", "too large",
};

/* Put bad kind k at path (good: a good file of the same reader's);
 * false when this user cannot make it (another owner needs root). */
static bool _make_bad(bad_t k, const char *path, const char *good,
		      size_t bound)
{
	unlink(path);
	switch (k) {
	case BAD_LINK:
		ck_assert_int_eq(symlink(good, path), 0);
		break;
	case BAD_DEV_ZERO:
		ck_assert_int_eq(symlink("/dev/zero", path), 0);
		break;
	case BAD_FIFO:
		ck_assert_int_eq(mkfifo(path, 0600), 0);
		break;
	case BAD_DIR:
		ck_assert_int_eq(mkdir(path, 0700), 0);
		break;
	case BAD_GROUP_WRITABLE:
		ck_assert_int_eq(link(good, path), 0);
		ck_assert_int_eq(chmod(path, 0660), 0);
		break;
	case BAD_OTHER_OWNER:
		ck_assert_int_eq(link(good, path), 0);
		if (geteuid() != 0)
			return false;
		ck_assert_int_eq(chown(path, 12345, 12345), 0);
		break;
	case BAD_TOO_LARGE:
		_sparse(path, (off_t)bound + 1);
		break;
	case NBAD:
		break;
	}
	return true;
}

static void _unmake(bad_t k, const char *path, const char *good)
{
	if (k == BAD_DIR)
		rmdir(path);
	else
		unlink(path);
	/* a hard link shares the mode and owner: the good file's back */
	chmod(good, 0600);
	if (!geteuid())
		ck_assert_int_eq(chown(good, 0, 0), 0);
}

/* Each bad kind refused by read(path): -1, with the file named. */
static void _each_bad_refused(const char *path, const char *good,
			      size_t bound,
			      int (*read)(const char *, char *, size_t))
{
	char err[1024];
	bad_t k;

	ck_assert_msg(!read(good, err, sizeof(err)), "good file: %s", err);
	for (k = 0; k < NBAD; k++) {
		if (!_make_bad(k, path, good, bound)) {
			_unmake(k, path, good);
			continue;
		}
		err[0] = '\0';
		alarm(NO_HANG);
		ck_assert_msg(read(path, err, sizeof(err)) == -1,
			      "%s accepted", bad_name[k]);
		alarm(0);
		ck_assert_msg(strstr(err, path), "%s: %s", bad_name[k], err);
		_unmake(k, path, good);
	}
}

/* ---- the helper ---------------------------------------------------- */

static int _helper_read(const char *path, char *err, size_t errlen)
{
	char *buf;
	size_t len;
	int rc = gq_file_read(path, 100, &buf, &len, err, errlen);

	free(buf);
	return rc;
}

/*
 * The helper with a bound of 100 bytes: a 100-byte file is read whole
 * (100 bytes, NUL-terminated), a 101-byte one is refused; a missing one
 * is GQ_FILE_MISSING; every bad kind is refused, each with its reason.
 */
START_TEST(helper_refuses_what_is_not_trusted)
{
	char *good = _at("good"), *path = _at("file"), *buf, err[1024];
	char text[101];
	size_t len;

	memset(text, 'a', 100);
	text[100] = '\0';
	_write(good, text, 0600);
	ck_assert_int_eq(gq_file_read(good, 100, &buf, &len, err,
				      sizeof(err)), 0);
	ck_assert_uint_eq(len, 100);
	ck_assert_int_eq(buf[100], '\0');
	free(buf);
	ck_assert_int_eq(gq_file_read(path, 100, &buf, &len, err,
				      sizeof(err)), GQ_FILE_MISSING);
	_each_bad_refused(path, good, 100, _helper_read);
	/* the reasons */
	ck_assert_int_eq(symlink(good, path), 0);
	ck_assert_int_eq(_helper_read(path, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "symbolic link"));
	unlink(path);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	alarm(NO_HANG);
	ck_assert_int_eq(_helper_read(path, err, sizeof(err)), -1);
	alarm(0);
	ck_assert_ptr_nonnull(strstr(err, "a FIFO, not a regular file"));
	unlink(path);
	_write(path, "x", 0602);
	ck_assert_int_eq(_helper_read(path, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "writable by anyone (mode 0602)"));
	unlink(path);
	_sparse(path, 101);
	ck_assert_int_eq(_helper_read(path, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "101 bytes, more than the 100"));
	free(good);
	free(path);
}
END_TEST

/* The owner: root's and this user's files, and the one more owner
 * named; uid 12345's only once named (needs root to chown). */
START_TEST(helper_trusts_named_owner)
{
	char *path = _at("file"), err[1024];

	if (geteuid() != 0)
		return;
	_write(path, "x", 0600);
	ck_assert_int_eq(chown(path, 12345, 12345), 0);
	ck_assert_int_eq(_helper_read(path, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "owned by uid 12345"));
	gq_file_trust_owner(12345);
	ck_assert_int_eq(_helper_read(path, err, sizeof(err)), 0);
	gq_file_trust_owner(-1);
	free(path);
}
END_TEST

/* Lines of "ab\n\nc": "ab\n", "\n", "c", then none; a line of 4 bytes
 * or more with a cap of 4 is skipped (-1), the next one read. */
START_TEST(helper_lines)
{
	const char *t = "ab\n\nc", *u = "abcd\nx\n";
	char line[4];
	size_t at = 0;

	ck_assert_int_eq(gq_file_line(t, 5, &at, line, 4), 1);
	ck_assert_str_eq(line, "ab\n");
	ck_assert_int_eq(gq_file_line(t, 5, &at, line, 4), 1);
	ck_assert_str_eq(line, "\n");
	ck_assert_int_eq(gq_file_line(t, 5, &at, line, 4), 1);
	ck_assert_str_eq(line, "c");
	ck_assert_int_eq(gq_file_line(t, 5, &at, line, 4), 0);
	at = 0;
	ck_assert_int_eq(gq_file_line(u, 7, &at, line, 4), -1);
	ck_assert_int_eq(gq_file_line(u, 7, &at, line, 4), 1);
	ck_assert_str_eq(line, "x\n");
	/* a NUL byte in a line: skipped */
	at = 0;
	ck_assert_int_eq(gq_file_line("a\0\n", 3, &at, line, 4), -1);
}
END_TEST

/* ---- the readers --------------------------------------------------- */

static int _ledger_read(const char *path, char *err, size_t errlen)
{
	gq_ledger_rec_t *r = NULL;
	int n = 0, skipped = 0, rc;

	rc = gq_ledger_read(path, &r, &n, &skipped, err, errlen);
	free(r);
	return rc;
}

static gq_ledger_rec_t _rec(void)
{
	gq_ledger_rec_t r = { .at = 1796083200, .end = 1796083200,
			      .preemptor = 12, .victim = 7, .gpus = 1,
			      .lost = 35 };

	gq_ledger_name(r.preemptor_project, "team-b");
	gq_ledger_name(r.victim_project, "team-a");
	return r;
}

/* The ledger (and its .1): each bad kind refused, -1 (slurmctld then
 * counts from none); too large: GQ_LEDGER_READ_BOUND + 1 bytes. */
START_TEST(ledger_refuses_bad_files)
{
	char *good = _at("good"), *path = gq_ledger_path(dir), err[256];
	char *old = gq_ledger_old_path(path);
	gq_ledger_rec_t r = _rec();

	ck_assert_int_eq(gq_ledger_append(good, &r, 1, GQ_LEDGER_BOUND, err,
					  sizeof(err)), 1);
	_each_bad_refused(path, good, GQ_LEDGER_READ_BOUND, _ledger_read);
	/* the older file too */
	ck_assert_int_eq(symlink(good, old), 0);
	ck_assert_int_eq(_ledger_read(path, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, old));
	free(good);
	free(old);
	free(path);
}
END_TEST

/*
 * The ledger's writer: a link in the ledger's place (to a victim file
 * "precious\n") is refused, -1, and the victim keeps its 9 bytes; a FIFO
 * there does not block the append.
 */
START_TEST(ledger_append_never_through_a_link)
{
	char *victim = _at("victim"), *path = gq_ledger_path(dir), err[256];
	gq_ledger_rec_t r = _rec();
	struct stat st;

	_write(victim, "precious\n", 0600);
	ck_assert_int_eq(symlink(victim, path), 0);
	ck_assert_int_eq(gq_ledger_append(path, &r, 1, GQ_LEDGER_BOUND, err,
					  sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "symbolic link"));
	ck_assert_int_eq(stat(victim, &st), 0);
	ck_assert_int_eq(st.st_size, 9);
	unlink(path);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	alarm(NO_HANG);
	ck_assert_int_eq(gq_ledger_append(path, &r, 1, GQ_LEDGER_BOUND, err,
					  sizeof(err)), -1);
	alarm(0);
	ck_assert_ptr_nonnull(strstr(err, "FIFO"));
	free(victim);
	free(path);
}
END_TEST

static int _usage_read(const char *path, char *err, size_t errlen)
{
	gq_usage_t u = { 0 };
	int rc = gq_usage_file_read(path, &u, err, errlen);

	gq_usage_free(&u);
	return rc;
}

static gq_metrics_t metrics;	/* 75 kB: not on the stack */

static int _metrics_read(const char *path, char *err, size_t errlen)
{
	double at;

	return gq_metrics_file_read(path, &metrics, &at, err, errlen);
}

static void _metrics_good(const char *path)
{
	char err[256];

	gq_metrics_init(&metrics, 1000);
	ck_assert_int_eq(gq_metrics_file_write(&metrics, path, 1000, err,
					       sizeof(err)), 0);
}

static int _running_read(const char *path, char *err, size_t errlen)
{
	gq_running_t r;
	int rc = gq_running_file_read(path, &r, err, errlen);

	gq_running_free(&r);
	return rc;
}

/* A reader of one state file: its place, a good file, its bound. */
static const struct {
	char *(*path)(const char *dir);
	const char *good;		/* the good file's text, or NULL */
	void (*write_good)(const char *path);	/* when good is NULL */
	size_t bound;
	int (*read)(const char *path, char *err, size_t errlen);
} readers[] = {
	{ gq_usage_file_path,
	  "{\"version\": 1, \"written_at\": 1000, \"usage\": []}\n", NULL,
	  GQ_USAGE_FILE_BOUND, _usage_read },
	{ gq_metrics_file_path, NULL, _metrics_good, GQ_METRICS_FILE_BOUND,
	  _metrics_read },
	/* the running configuration's file (bound 24 MiB + 64 KiB) */
	{ gq_running_file_path,
	  "{\"version\": 1, \"text\": \"{}\", \"hash\": \"08f44b07b5901a25\", \"loaded_at\": 1000}\n",
	  NULL, GQ_RUNNING_FILE_BOUND, _running_read },
};

/*
 * The usage file, the metrics file and the running configuration's file
 * (one loop iteration each, in the order of readers): each bad kind
 * refused, -1, with the file named.
 */
START_TEST(state_files_refuse_bad_files)
{
	char *good = _at("good"), *path = readers[_i].path(dir);

	if (readers[_i].good)
		_write(good, readers[_i].good, 0600);
	else
		readers[_i].write_good(good);
	_each_bad_refused(path, good, readers[_i].bound, readers[_i].read);
	free(good);
	free(path);
}
END_TEST

/*
 * The atomic writer: <file>.tmp a link to a victim file ("precious\n",
 * 9 bytes): the file is written, the victim untouched, the link gone.
 */
START_TEST(atomic_write_never_through_a_link)
{
	char *victim = _at("victim"), *path = gq_usage_file_path(dir);
	char tmp[256], err[256];
	gq_usage_t u = { 0 }, back = { 0 };
	struct stat st;

	u.at = 1000;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	_write(victim, "precious\n", 0600);
	ck_assert_int_eq(symlink(victim, tmp), 0);
	ck_assert_int_eq(gq_usage_file_write(&u, path, err, sizeof(err)), 0);
	ck_assert_int_eq(stat(victim, &st), 0);
	ck_assert_int_eq(st.st_size, 9);
	ck_assert_int_eq(lstat(tmp, &st), -1);
	ck_assert_int_eq(gq_usage_file_read(path, &back, err, sizeof(err)), 0);
	ck_assert_double_eq(back.at, 1000);
	gq_usage_free(&back);
	free(victim);
	free(path);
}
END_TEST

Suite *trusted_file_suite(void)
{
	Suite *s = suite_create("trusted_file");
	TCase *tc = tcase_create("state files trusted");

	tcase_add_checked_fixture(tc, _setup, NULL);
	tcase_add_test(tc, helper_refuses_what_is_not_trusted);
	tcase_add_test(tc, helper_trusts_named_owner);
	tcase_add_test(tc, helper_lines);
	tcase_add_test(tc, ledger_refuses_bad_files);
	tcase_add_test(tc, ledger_append_never_through_a_link);
	tcase_add_loop_test(tc, state_files_refuse_bad_files, 0,
			    sizeof(readers) / sizeof(readers[0]));
	tcase_add_test(tc, atomic_write_never_through_a_link);
	suite_add_tcase(s, tc);
	return s;
}
