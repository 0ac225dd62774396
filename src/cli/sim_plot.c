/*
 * sim_plot.c - the projects' GPUs over time, drawn by gnuplot (see
 * sim_plot.h).
 */
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "cli/sim_plot.h"

#define GNUPLOT "gnuplot"

/* The time axis: hours for a replay under two days, else days. */
static const char *_unit(const gq_sim_result_t *r, double *secs)
{
	bool hours = r->span < 2 * 86400;

	*secs = hours ? 3600 : 86400;
	return hours ? "hours" : "days";
}

/* Projects by their GPU-hours under r (most first), then their index. */
static int _busier(const void *a, const void *b, void *arg)
{
	const gq_sim_result_t *r = arg;
	int x = *(const int *)a, y = *(const int *)b;
	double gx = r->proj[x].gpu_secs, gy = r->proj[y].gpu_secs;

	if (gx != gy)
		return gx > gy ? -1 : 1;
	return x - y;
}

/* One configuration's block: a row per step, and a last row at the
 * series' end so that the last step is drawn whole. */
static void _block(FILE *f, const gq_sim_result_t *r,
		   const gq_sim_result_t *r0, const char *label,
		   const int *order)
{
	const gq_sim_series_t *s = &r->series;
	int i, p, len = gq_sim_series_len(s);
	double unit;
	const char *name = _unit(r0, &unit);

	fprintf(f, "# %s: GPUs held, mean over steps of %lld s\n# %s total",
		label, (long long)s->step, name);
	for (p = 0; p < r->nproj; p++)
		fprintf(f, " %s", r->proj[order[p]].account);
	fputc('\n', f);
	for (i = 0; i <= len; i++) {
		int at = i < len ? i : len - 1;
		double total = 0;

		for (p = 0; p < r->nproj; p++)
			total += gq_sim_series_mean(s, at, p);
		fprintf(f, "%.6f %.3f", (double)((i < len ?
			gq_sim_series_at(s, i) : s->end) - s->t0) / unit, total);
		for (p = 0; p < r->nproj; p++)
			fprintf(f, " %.3f", gq_sim_series_mean(s, at, order[p]));
		fputc('\n', f);
	}
	fputs("\n\n", f);
}

/* s as a gnuplot single-quoted string ('' for a quote). */
static void _quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		fputs(*s == '\'' ? "''" : (char[]){ *s, 0 }, f);
	fputc('\'', f);
}

/* The colour of the k-th project (1: the busiest), in gnuplot. */
#define GQ_PLOT_COLOUR "hsv2rgb(%d * 0.618 - floor(%d * 0.618), 0.75, 0.55 + 0.4 * (%d %% 2))"

/* Each top project's quota (not stacked: a level of its own), a dashed
 * line in its colour; a project of quota 0 none.  Ends the plot line. */
static void _quotas(FILE *f, const gq_sim_result_t *r, const int *order,
		    int top)
{
	char t[160];
	int k;

	for (k = 1; k <= top; k++) {
		const gq_sim_acct_t *p = &r->proj[order[k - 1]];

		if (p->quota <= 0)
			continue;
		fprintf(f, ", \\\n\t%g with lines lc rgb " GQ_PLOT_COLOUR
			" dt 3 lw 2 title ", p->quota, k, k, k);
		snprintf(t, sizeof(t), "%s quota", p->account);
		_quoted(f, t);
		fprintf(f, " noenhanced");
	}
	fputc('\n', f);
}

/* Panel c: the top projects stacked (the k-th curve the sum of the first
 * k columns, drawn from the largest down), the rest as others; then the
 * capacity and the top projects' quotas. */
static void _panel(FILE *f, const gq_sim_result_t *r, const char *dat,
		   const char *label, const int *order, int c, uint64_t cap)
{
	int top = r->nproj < GQ_SIM_PLOT_TOP ? r->nproj : GQ_SIM_PLOT_TOP;
	int k, m;

	fprintf(f, "set title ");
	_quoted(f, label);
	fprintf(f, " noenhanced\nplot ");
	_quoted(f, dat);
	if (r->nproj > top)
		fprintf(f, " index %d using 1:2 with fillsteps lc rgb '#b0b0b0' title 'others', \\\n\t''", c);
	for (k = top; k >= 1; k--) {
		fprintf(f, " index %d using 1:(", c);
		for (m = 1; m <= k; m++)
			fprintf(f, "%s$%d", m > 1 ? "+" : "", m + 2);
		fprintf(f, ") with fillsteps lc rgb " GQ_PLOT_COLOUR " title ",
			k, k, k);
		_quoted(f, r->proj[order[k - 1]].account);
		fprintf(f, " noenhanced, \\\n\t%s", k > 1 ? "''" : "");
	}
	fprintf(f, "%llu with lines lc rgb 'black' dt 2 title 'capacity'",
		(unsigned long long)cap);
	_quotas(f, r, order, top);
}

static void _script(FILE *f, const char *png, const char *dat,
		    const gq_sim_result_t *r, const char *const *label, int n,
		    const int *order, uint64_t cap)
{
	double unit;
	const char *name = _unit(&r[0], &unit);
	int c;

	fprintf(f, "# gpuquota simulate --plot: GPUs held per project, stacked\n"
		   "set terminal pngcairo size 1400,%d font ',10'\nset output ",
		250 + 350 * n);
	_quoted(f, png);
	fprintf(f, "\nset multiplot layout %d,1\n"
		   "set xlabel '%s from the first submit'\nset ylabel 'GPUs held'\n"
		   "set yrange [0:%g]\nset xrange [0:*]\n"
		   "set key outside right top vertical maxrows 30 font ',8'\n"
		   "set style fill solid 0.9 noborder\nset grid ytics\n",
		n, name, cap * 1.05);
	for (c = 0; c < n; c++)
		_panel(f, &r[c], dat, label[c], order, c, cap);
	fprintf(f, "unset multiplot\n");
}

/* Run gnuplot on the script: 0, 127 when it could not be started, or
 * its failure. */
static int _gnuplot(const char *gp)
{
	char *argv[] = { GNUPLOT, (char *)gp, NULL };
	int status;
	pid_t pid;

	fflush(NULL);
	if ((pid = fork()) < 0)
		return -1;
	if (!pid) {
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* path's name with .png (when it ends so) replaced by ext. */
static char *_beside(const char *png, const char *ext)
{
	size_t n = strlen(png);
	char *p;

	if (n > 4 && !strcmp(png + n - 4, ".png"))
		n -= 4;
	if ((p = malloc(n + strlen(ext) + 1)))
		sprintf(p, "%.*s%s", (int)n, png, ext);
	return p;
}

/* Open `path` to write (the data or the script): 0, or 1 with why. */
static int _write(const char *path, FILE **f)
{
	if (!(*f = fopen(path, "w"))) {
		fprintf(stderr, "gpuquota simulate: %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

/* Close what _write opened: 0, or 1 when it was not all written. */
static int _close(const char *path, FILE *f)
{
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "gpuquota simulate: %s: cannot write\n", path);
		return 1;
	}
	return 0;
}

int gq_sim_plot(const char *png, const gq_sim_result_t *r,
		const char *const *label, int n, uint64_t capacity)
{
	char *dat = _beside(png, ".dat"), *gp = _beside(png, ".gp");
	int *order = calloc(n ? r[0].nproj + 1 : 1, sizeof(*order));
	int rc = 1, c, p;
	FILE *f;

	if (!dat || !gp || !order || !n) {
		fprintf(stderr, "gpuquota simulate: out of memory\n");
		goto out;
	}
	for (p = 0; p < r[0].nproj; p++)
		order[p] = p;
	qsort_r(order, r[0].nproj, sizeof(*order), _busier, (void *)&r[0]);
	if (_write(dat, &f))
		goto out;
	for (c = 0; c < n; c++)
		_block(f, &r[c], &r[0], label[c], order);
	if (_close(dat, f) || _write(gp, &f))
		goto out;
	_script(f, png, dat, r, label, n, order, capacity);
	if (_close(gp, f))
		goto out;
	rc = _gnuplot(gp);
	if (rc == 127)
		fprintf(stderr, "gpuquota simulate: --plot: " GNUPLOT " not found (install it to draw %s); the data is in %s, the script in %s: " GNUPLOT " %s\n",
			png, dat, gp, gp);
	else if (rc)
		fprintf(stderr, "gpuquota simulate: --plot: " GNUPLOT " %s failed (the data is in %s)\n",
			gp, dat);
	rc = rc ? 1 : 0;
out:
	free(dat);
	free(gp);
	free(order);
	return rc;
}
