/*
 * cli_opts.c - a command's options and the JSON answer of a --json
 * command that fails (see cli_opts.h).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli/cli_opts.h"

/* --cache-seconds S: whole seconds from 1 to GQ_CACHE_MAX; -1 if not. */
#define GQ_CACHE_MAX 3600
static int _cache_seconds(const char *cmd, const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (!*arg || *end || v < 1 || v > GQ_CACHE_MAX) {
		fprintf(stderr, "gpuquota %s: --cache-seconds \"%s\": expected whole seconds from 1 to %d\n",
			cmd, arg, GQ_CACHE_MAX);
		return -1;
	}
	return (int)v;
}

/* Which of takes' bits option opt needs. */
static unsigned _needs(int opt)
{
	switch (opt) {
	case 'J': return GQ_O_JSON;
	case 'H': case 'P': return GQ_O_TABLE;
	case 'A': return GQ_O_ACCOUNT;
	case 'p': return GQ_O_POOL;
	case 'j': return GQ_O_JOBS;
	case 'n': return GQ_O_DRYRUN;
	case 'l': case 'c': return GQ_O_LISTEN;
	default: return 0;
	}
}

/* Option opt as a user writes it. */
static const char *_name(int opt)
{
	switch (opt) {
	case 'J': return "--json";
	case 'H': return "--noheader";
	case 'P': return "--parsable";
	case 'A': return "--account";
	case 'p': return "--partition";
	case 'j': return "--jobs";
	case 'n': return "--dry-run";
	case 'l': return "--listen";
	default: return "--cache-seconds";
	}
}

/* One option into o: 0, or -1 when refused (said). */
static int _one(int opt, const char *cmd, unsigned takes, gq_cli_opts_t *o)
{
	if (opt == '?' || !(takes & _needs(opt))) {
		if (opt != '?')
			fprintf(stderr, "gpuquota %s: %s is not an option of this command; see gpuquota %s --help\n",
				cmd, _name(opt), cmd);
		return -1;
	}
	switch (opt) {
	case 'J': o->json = true; break;
	case 'H': o->noheader = true; break;
	case 'P': o->parsable = true; break;
	case 'A': o->accounts = optarg; break;
	case 'p': o->pools = optarg; break;
	case 'j': o->jobs = optarg; break;
	case 'n': o->dry_run = true; break;
	case 'l': o->listen = optarg; break;
	case 'c': return (o->cache = _cache_seconds(cmd, optarg)) < 0 ? -1 : 0;
	}
	return 0;
}

int gq_cli_options(int argc, char **argv, unsigned takes, gq_cli_opts_t *o)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "noheader", no_argument, NULL, 'H' },
		{ "parsable", no_argument, NULL, 'P' },
		{ "account", required_argument, NULL, 'A' },
		{ "partition", required_argument, NULL, 'p' },
		{ "pool", required_argument, NULL, 'p' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "listen", required_argument, NULL, 'l' },
		{ "cache-seconds", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	char name[64];
	const char *cmd = argv[0];
	int opt;

	snprintf(name, sizeof(name), "gpuquota %s", cmd);
	argv[0] = name;		/* getopt's messages */
	optind = 1;
	while ((opt = getopt_long(argc, argv, "A:p:j:nP", opts, NULL)) != -1)
		if (_one(opt, cmd, takes, o))
			break;
	argv[0] = (char *)cmd;
	if (opt != -1)
		return 2;
	if (optind < argc && (takes & GQ_O_ARG))
		o->arg = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "gpuquota %s: unexpected argument '%s'; see gpuquota %s --help\n",
			cmd, argv[optind], cmd);
		return 2;
	}
	if (o->cache && !o->listen) {
		fprintf(stderr, "gpuquota %s: --cache-seconds goes with --listen\n",
			cmd);
		return 2;
	}
	return 0;
}

/* The error of stderr's text: libslurm's fatal line, else its first line
 * from gpuquota that is not a warning or a note, else its last line;
 * "gpuquota: " left out. */
static void _error_line(const char *text, char *out, size_t n)
{
	const char *s = text, *e, *pick = NULL, *last = NULL;
	size_t len = 0, lastlen = 0;

	for (; *s; s = *e ? e + 1 : e) {
		e = s + strcspn(s, "\n");
		if (e == s)
			continue;
		last = s;
		lastlen = (size_t)(e - s);
		if (memmem(s, lastlen, ": fatal: ", 9)) {
			pick = s;
			len = lastlen;
			break;
		}
		if (!pick && !strncmp(s, "gpuquota", 8) &&
		    !memmem(s, (size_t)(e - s), ": warning:", 10) &&
		    !memmem(s, (size_t)(e - s), ": note:", 7)) {
			pick = s;
			len = (size_t)(e - s);
		}
	}
	if (!pick) {
		pick = last;
		len = lastlen;
	}
	if (pick && !strncmp(pick, "gpuquota: ", 10)) {
		pick += 10;
		len -= 10;
	}
	snprintf(out, n, "%.*s", (int)len, pick ? pick : "failed");
}

/* What fd holds from its start, malloc'ed and ended by '\0'. */
static char *_slurp(FILE *f)
{
	char *buf = NULL;
	size_t len = 0, got;
	FILE *m = open_memstream(&buf, &len);
	char chunk[4096];

	if (!m)
		return NULL;
	rewind(f);
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, got, m);
	fclose(m);
	return buf;
}

/* The stderr kept aside while a --json command runs. */
static FILE *_kept;
static int _saved_fd = -1;

/* Stderr back; what was kept copied to it; on failure the JSON error. */
static void _json_end(int rc)
{
	char *text, line[1024];
	json_object *o;

	fflush(stderr);
	dup2(_saved_fd, STDERR_FILENO);
	close(_saved_fd);
	_saved_fd = -1;
	text = _slurp(_kept);
	fclose(_kept);
	_kept = NULL;
	if (text)
		fputs(text, stderr);
	if (rc) {
		_error_line(text ? text : "", line, sizeof(line));
		o = json_object_new_object();
		json_object_object_add(o, "error", json_object_new_string(line));
		fflush(stdout);
		printf("%s\n", json_object_to_json_string_ext(
			       o, JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
		fflush(stdout);
	}
	free(text);
}

/* exit() while kept (libslurm's fatal()): a failure, said both ways. */
static void _json_at_exit(void)
{
	if (_kept)
		_json_end(1);
}

int gq_cli_json_errors(int (*fn)(void *), void *arg)
{
	int rc;

	fflush(stderr);
	if (!(_kept = tmpfile()))
		return fn(arg);
	if ((_saved_fd = dup(STDERR_FILENO)) < 0 ||
	    dup2(fileno(_kept), STDERR_FILENO) < 0) {
		if (_saved_fd >= 0)
			close(_saved_fd);
		fclose(_kept);
		_kept = NULL;
		return fn(arg);
	}
	atexit(_json_at_exit);
	rc = fn(arg);
	_json_end(rc);
	return rc;
}
