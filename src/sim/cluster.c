/*
 * cluster.c - nodes and first-fit placement (see cluster.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cluster.h"
#include "sim/fields.h"
#include "tools/gres_text.h"

/* The glance's figures again.  O(N). */
static void _recount(gq_sim_cluster_t *c)
{
	int i;

	c->max_free = 0;
	c->idle_nodes = 0;
	c->idle_gpus = 0;
	for (i = 0; i < c->n; i++) {
		const gq_sim_node_t *n = &c->node[i];

		if (c->free_gpus[i] > c->max_free)
			c->max_free = c->free_gpus[i];
		c->idle_gpus += c->free_gpus[i];
		if (n->gpus && c->free_gpus[i] == n->gpus &&
		    c->free_cpus[i] == n->cpus)
			c->idle_nodes++;
	}
}

/* Room for n nodes; their idle GPUs and CPUs set from the nodes later. */
static int _alloc(gq_sim_cluster_t *c, int n)
{
	c->node = calloc(n + 1, sizeof(*c->node));
	c->free_gpus = calloc(n + 1, sizeof(*c->free_gpus));
	c->free_cpus = calloc(n + 1, sizeof(*c->free_cpus));
	return c->node && c->free_gpus && c->free_cpus ? 0 : -1;
}

static void _ready(gq_sim_cluster_t *c)
{
	int i;

	c->gpus = 0;
	for (i = 0; i < c->n; i++) {
		c->free_gpus[i] = c->node[i].gpus;
		c->free_cpus[i] = c->node[i].cpus;
		c->gpus += c->node[i].gpus;
	}
	_recount(c);
}

int gq_sim_cluster_uniform(gq_sim_cluster_t *c, int n, uint32_t gpus,
			   uint32_t cpus)
{
	int i;

	memset(c, 0, sizeof(*c));
	if (n < 1 || _alloc(c, n))
		return -1;
	for (i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "n%d", i + 1);
		if (!(c->node[i].name = strdup(name)))
			return -1;
		c->node[i].gpus = gpus;
		c->node[i].cpus = cpus;
		c->n++;
	}
	_ready(c);
	return 0;
}

/* The bit of partition name (len bytes), added when new; 0: too many. */
static uint64_t _part_bit(gq_sim_cluster_t *c, const char *name, size_t len)
{
	int i;

	for (i = 0; i < c->nparts; i++)
		if (strlen(c->part[i]) == len && !strncmp(c->part[i], name, len))
			return 1ULL << i;
	if (c->nparts == GQ_SIM_PARTS_MAX ||
	    !(c->part[c->nparts] = strndup(name, len)))
		return 0;
	return 1ULL << c->nparts++;
}

uint64_t gq_sim_part_mask(const gq_sim_cluster_t *c, const char *partition)
{
	int i;

	if (!partition || !c->nparts)
		return 0;
	for (i = 0; i < c->nparts; i++)
		if (!strcmp(c->part[i], partition))
			return 1ULL << i;
	return GQ_SIM_NO_PART;
}

/* One key=value token of a node record into node n. */
static int _node_token(gq_sim_cluster_t *c, gq_sim_node_t *n, const char *k,
		       const char *v, const char *path, size_t line,
		       char *err, size_t errlen)
{
	int64_t x;

	if (!strcmp(k, "CPUTot")) {
		if (!gq_sim_int(v, 0, UINT32_MAX, &x))
			return gq_sim_error(err, errlen, path, line, k,
					    "must be an integer >= 0", v);
		n->cpus = (uint32_t)x;
	} else if (!strcmp(k, "Gres")) {
		n->gpus = (uint32_t)gq_gres_text_gpus(
			strcmp(v, "(null)") ? v : NULL);
	} else if (!strcmp(k, "Partitions")) {
		while (*v) {
			size_t len = strcspn(v, ",");
			uint64_t b = _part_bit(c, v, len);

			if (!b)
				return gq_sim_error(err, errlen, path, line, k,
						    "more partitions than the model tells apart (63)",
						    NULL);
			n->parts |= b;
			v += len + (v[len] == ',');
		}
	}
	return 0;
}

/* Each token of a line; NodeName= begins a node.  *cap: nodes' room. */
static int _node_line(gq_sim_cluster_t *c, char *line, int *cap,
		      const char *path, size_t ln, char *err, size_t errlen)
{
	char *save = NULL, *t;

	for (t = strtok_r(line, " \t\r\n", &save); t;
	     t = strtok_r(NULL, " \t\r\n", &save)) {
		char *eq = strchr(t, '=');

		if (!eq)
			continue;
		*eq = '\0';
		if (!strcmp(t, "NodeName")) {
			if (c->n == *cap) {
				gq_sim_node_t *nn = realloc(c->node,
					(*cap * 2) * sizeof(*nn));

				if (!nn)
					return -1;
				c->node = nn;
				*cap *= 2;
			}
			memset(&c->node[c->n], 0, sizeof(c->node[0]));
			if (!(c->node[c->n++].name = strdup(eq + 1)))
				return -1;
		} else if (c->n && _node_token(c, &c->node[c->n - 1], t, eq + 1,
					       path, ln, err, errlen)) {
			return -1;
		}
	}
	return 0;
}

int gq_sim_cluster_read(gq_sim_cluster_t *c, const char *path, char *err,
			size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, ln = 0;
	int ncap = 64, rc = 0;

	memset(c, 0, sizeof(*c));
	if (!f)
		return gq_sim_error(err, errlen, path, 0, "file", "cannot open",
				    NULL);
	if (!(c->node = calloc(ncap, sizeof(*c->node))))
		rc = -1;
	while (!rc && getline(&line, &cap, f) > 0) {
		ln++;
		rc = _node_line(c, line, &ncap, path, ln, err, errlen);
	}
	free(line);
	fclose(f);
	if (!rc && !c->n)
		rc = gq_sim_error(err, errlen, path, ln, "NodeName",
				  "no node in the file (scontrol show node)",
				  NULL);
	if (!rc) {
		c->free_gpus = calloc(c->n + 1, sizeof(*c->free_gpus));
		c->free_cpus = calloc(c->n + 1, sizeof(*c->free_cpus));
		if (!c->free_gpus || !c->free_cpus)
			rc = -1;
	}
	if (rc && !*err)
		snprintf(err, errlen, "%s: out of memory", path);
	if (!rc)
		_ready(c);
	return rc;
}

bool gq_sim_may_fit(const gq_sim_cluster_t *c, const gq_sim_shape_t *s)
{
	return s->nodes > 1 ? (int)s->nodes <= c->idle_nodes :
			      s->gpus <= c->max_free;
}

/* May the job use node i (its partitions)? */
static bool _allowed(const gq_sim_node_t *n, const gq_sim_shape_t *s)
{
	return !s->parts || (n->parts & s->parts);
}

bool gq_sim_node_fits(const gq_sim_cluster_t *c, const uint32_t *free_gpus,
		      const uint32_t *free_cpus, const gq_sim_shape_t *s,
		      int i)
{
	const gq_sim_node_t *n = &c->node[i];

	if (!_allowed(n, s))
		return false;
	if (s->nodes > 1)
		return n->gpus && free_gpus[i] == n->gpus &&
		       free_cpus[i] == n->cpus;
	return free_gpus[i] >= s->gpus && (!n->cpus || free_cpus[i] >= s->cpus);
}

bool gq_sim_fit_avoid(const gq_sim_cluster_t *c, const uint32_t *free_gpus,
		      const uint32_t *free_cpus, const gq_sim_shape_t *s,
		      const uint8_t *avoid, int *out)
{
	uint32_t found = 0;
	int i;

	for (i = 0; i < c->n && found < s->nodes; i++)
		if ((!avoid || !avoid[i]) &&
		    gq_sim_node_fits(c, free_gpus, free_cpus, s, i))
			out[found++] = i;
	return found == s->nodes;
}

bool gq_sim_fit(const gq_sim_cluster_t *c, const uint32_t *free_gpus,
		const uint32_t *free_cpus, const gq_sim_shape_t *s, int *out)
{
	return gq_sim_fit_avoid(c, free_gpus, free_cpus, s, NULL, out);
}

void gq_sim_held(const gq_sim_cluster_t *c, const gq_sim_shape_t *s, int i,
		 uint32_t *gpus, uint32_t *cpus)
{
	const gq_sim_node_t *n = &c->node[i];

	if (s->nodes > 1) {
		*gpus = n->gpus;
		*cpus = n->cpus;
	} else {
		*gpus = s->gpus;
		*cpus = n->cpus ? (s->cpus < n->cpus ? s->cpus : n->cpus) : 0;
	}
}

void gq_sim_take(gq_sim_cluster_t *c, const gq_sim_shape_t *s,
		 const int *nodes)
{
	uint32_t k, g, p;

	for (k = 0; k < s->nodes; k++) {
		gq_sim_held(c, s, nodes[k], &g, &p);
		c->free_gpus[nodes[k]] -= g;
		c->free_cpus[nodes[k]] -= p;
	}
	_recount(c);
}

void gq_sim_give(gq_sim_cluster_t *c, const gq_sim_shape_t *s,
		 const int *nodes)
{
	uint32_t k, g, p;

	for (k = 0; k < s->nodes; k++) {
		gq_sim_held(c, s, nodes[k], &g, &p);
		c->free_gpus[nodes[k]] += g;
		c->free_cpus[nodes[k]] += p;
	}
	c->gives++;
	_recount(c);
}

void gq_sim_cluster_free(gq_sim_cluster_t *c)
{
	int i;

	for (i = 0; c->node && i < c->n; i++)
		free(c->node[i].name);
	for (i = 0; i < c->nparts; i++)
		free(c->part[i]);
	free(c->node);
	free(c->free_gpus);
	free(c->free_cpus);
	memset(c, 0, sizeof(*c));
}
