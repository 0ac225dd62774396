/*
 * node_groups.c - Slurm's partitions, nodes and pending jobs' constraints
 * as the view's node groups (see node_groups.h).
 */
#include "plugins/node_groups.h"

#include "core/constraint.h"
#include "plugins/xalloc.h"

#pragma weak part_list

struct gq_groups {
	part_record_t **part;	/* group i + 1 is part[i] */
	int nparts;
	gq_narrows_t narrows;	/* group nparts + 1 + i is narrows.w[i] */
};

static int _collect_part(void *x, void *arg)
{
	gq_groups_t *g = arg;

	g->part[g->nparts++] = x;
	return 0;
}

static int _part_group(const gq_groups_t *g, part_record_t *part_ptr)
{
	int i;

	for (i = 0; part_ptr && i < g->nparts; i++)
		if (g->part[i] == part_ptr)
			return i + 1;
	return 0;
}

/* its partition's group (0: it lists several) */
static int _job_part(const gq_groups_t *g, job_record_t *job_ptr)
{
	return job_ptr->part_ptr_list ? 0 : _part_group(g, job_ptr->part_ptr);
}

static bool _narrow_of(const gq_groups_t *g, job_record_t *job_ptr,
		       gq_narrow_t *w)
{
	return gq_narrow_of(_job_part(g, job_ptr),
			    job_ptr->details ? job_ptr->details->features : NULL,
			    job_ptr->tres_per_node, job_ptr->tres_per_job, w);
}

gq_groups_t *gq_groups_begin(void)
{
	gq_groups_t *g = gq_xcalloc(1, sizeof(*g));

	if (!g || !part_list)
		return g;
	if (!(g->part = gq_xcalloc(list_count(part_list) + 1,
				   sizeof(*g->part)))) {
		xfree(g);
		return NULL;
	}
	list_for_each(part_list, _collect_part, g);
	return g;
}

/* O(1) expected: narrowings are found by hash (gq_narrows_add) */
uint32_t gq_groups_note_pending(gq_groups_t *g, job_record_t *job_ptr)
{
	gq_narrow_t w;
	int k;

	if (_narrow_of(g, job_ptr, &w) &&
	    (k = gq_narrows_add(&g->narrows, &w)) >= 0)
		return g->nparts + 1 + k;
	return _job_part(g, job_ptr);
}

static bool _in_part(node_record_t *node_ptr, int group, const gq_groups_t *g)
{
	int k;

	for (k = 0; group && k < node_ptr->part_cnt; k++)
		if (node_ptr->part_pptr[k] == g->part[group - 1])
			return true;
	return false;
}

int gq_groups_fill(const gq_groups_t *g, gq_view_t *view)
{
	node_record_t *node_ptr;
	int i, k;

	if (gq_view_set_groups(view, g->nparts + g->narrows.n))
		return -1;
	for (i = 0; (node_ptr = next_node(&i)); i++) {
		const char *gres = node_ptr->gres ? node_ptr->gres :
				   node_ptr->config_ptr ?
				   node_ptr->config_ptr->gres : NULL;

		for (k = 0; k < node_ptr->part_cnt; k++)
			gq_view_node_group(view, node_ptr->index,
					   _part_group(g, node_ptr->part_pptr[k]));
		for (k = 0; k < g->narrows.n; k++) {
			const gq_narrow_t *w = &g->narrows.w[k];

			if (gq_narrow_allows(w, _in_part(node_ptr, w->part, g),
					     node_ptr->features_act ?
					     node_ptr->features_act :
					     node_ptr->features, gres))
				gq_view_node_group(view, node_ptr->index,
						   g->nparts + 1 + k);
		}
	}
	return 0;
}

uint32_t gq_groups_of_job(const gq_groups_t *g, job_record_t *job_ptr)
{
	gq_narrow_t w;
	int k;

	if (_narrow_of(g, job_ptr, &w) &&
	    (k = gq_narrows_find(&g->narrows, &w)) >= 0)
		return g->nparts + 1 + k;
	return _job_part(g, job_ptr);
}

void gq_groups_free(gq_groups_t *g)
{
	if (!g)
		return;
	xfree(g->part);
	xfree(g);
}
