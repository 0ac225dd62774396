/*
 * scrape_cache.c - the cached scrape of `gpuquota metrics --listen` (see
 * scrape_cache.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/scrape_cache.h"

double gq_scrape_monotonic(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int gq_scrape_cache_init(gq_scrape_cache_t *c, double interval,
			 gq_render_t load, void *load_ctx)
{
	memset(c, 0, sizeof(*c));
	c->load = load;
	c->load_ctx = load_ctx;
	c->clock = gq_scrape_monotonic;
	c->interval = interval > 0 ? interval : 1;
	if (pthread_mutex_init(&c->mu, NULL))
		return -1;
	if (pthread_cond_init(&c->done, NULL)) {
		pthread_mutex_destroy(&c->mu);
		return -1;
	}
	return 0;
}

void gq_scrape_cache_free(gq_scrape_cache_t *c)
{
	free(c->text);
	c->text = NULL;
	pthread_cond_destroy(&c->done);
	pthread_mutex_destroy(&c->mu);
}

void gq_scrape_answer_free(gq_scrape_answer_t *a)
{
	free(a->body);
	a->body = NULL;
}

/*
 * Run the load begun at `start` with mu dropped; its text (or its reason)
 * kept.  Caller holds mu and has checked that no load runs.
 */
static void _load(gq_scrape_cache_t *c, double start)
{
	char err[sizeof(c->err)] = "";
	gq_prom_t p;
	int rc;

	c->loading = true;
	c->loads++;
	pthread_mutex_unlock(&c->mu);
	gq_prom_init(&p);
	rc = c->load(c->load_ctx, &p, err, sizeof(err));
	if (!rc && !p.buf && !p.oom)
		p.buf = strdup("");	/* an empty exposition */
	if (!rc && (p.oom || !p.buf)) {
		snprintf(err, sizeof(err), "out of memory");
		rc = -1;
	}
	if (rc)
		fprintf(stderr, "gpuquota: %s\n", err);
	pthread_mutex_lock(&c->mu);
	c->loading = false;
	c->tried = true;
	c->last_ok = !rc;
	c->ended_at = c->clock(c->clock_ctx);
	if (!rc) {
		free(c->text);
		c->text = p.buf;
		c->len = p.len;
		c->read_at = start;
	} else {
		c->failures++;
		snprintf(c->err, sizeof(c->err), "%s", err);
		gq_prom_free(&p);
	}
	pthread_cond_broadcast(&c->done);
}

/* The last good text may still be served at `now`. */
static bool _usable(const gq_scrape_cache_t *c, double now)
{
	return c->text && now - c->read_at <= c->interval + GQ_SCRAPE_STALE_MAX;
}

static void _family(gq_prom_t *p, const char *name, const char *type,
		    const char *help, double v)
{
	gq_prom_family(p, name, type, help);
	gq_prom_sample(p, name, NULL, v);
}

/* The cached text and the gpuquota_scrape_* metrics into a (mu held). */
static void _text(const gq_scrape_cache_t *c, double now,
		  gq_scrape_answer_t *a)
{
	gq_prom_t f;

	gq_prom_init(&f);
	_family(&f, "gpuquota_scrape_age_seconds", "gauge",
		"Seconds since the load of Slurm these numbers come from began (a load is served again for --cache-seconds).",
		now - c->read_at);
	_family(&f, "gpuquota_scrape_last_load_ok", "gauge",
		"1 when the exporter's last load of Slurm succeeded, 0 when it failed and an earlier load is served.",
		c->last_ok);
	_family(&f, "gpuquota_scrape_cache_seconds", "gauge",
		"The exporter's --cache-seconds: the most often it loads Slurm.",
		c->interval);
	_family(&f, "gpuquota_scrape_loads_total", "counter",
		"Loads of Slurm (jobs, nodes, partitions, sacctmgr, files) the exporter ran.",
		(double)c->loads);
	_family(&f, "gpuquota_scrape_load_failures_total", "counter",
		"Loads of Slurm that failed (the reason is on the exporter's stderr).",
		(double)c->failures);
	a->status = 200;
	a->body = f.oom ? NULL : malloc(c->len + f.len + 1);
	if (a->body) {
		memcpy(a->body, c->text, c->len);
		memcpy(a->body + c->len, f.buf, f.len + 1);
		a->len = c->len + f.len;
	}
	gq_prom_free(&f);
}

/* What a request gets at `now` (mu held, no load to wait for). */
static void _answer(const gq_scrape_cache_t *c, double now,
		    gq_scrape_answer_t *a)
{
	char line[sizeof(c->err) + 96];
	int n;

	memset(a, 0, sizeof(*a));
	if (_usable(c, now)) {
		_text(c, now, a);
		return;
	}
	if (c->text)
		n = snprintf(line, sizeof(line), "gpuquota: %s (the last good load is %.0f s old)\n",
			     c->err, now - c->read_at);
	else
		n = snprintf(line, sizeof(line), "gpuquota: %s\n", c->err);
	a->status = 503;
	a->len = n < (int)sizeof(line) ? (size_t)n : sizeof(line) - 1;
	a->body = strdup(line);
}

void gq_scrape_get(gq_scrape_cache_t *c, gq_scrape_answer_t *a)
{
	double now;

	pthread_mutex_lock(&c->mu);
	for (;;) {
		now = c->clock(c->clock_ctx);
		if (c->text && now - c->read_at < c->interval)
			break;		/* fresh */
		if (!c->loading &&
		    (!c->tried || now - c->ended_at >= c->interval)) {
			_load(c, now);
			continue;
		}
		if (!c->loading || _usable(c, now))
			break;		/* what there is, at once */
		pthread_cond_wait(&c->done, &c->mu);
	}
	_answer(c, now, a);
	pthread_mutex_unlock(&c->mu);
}
