/* Cuts of the HD-graph into partitions (SAMO eq. 1). Nodes are in topological order,
 * so a cut after position i separates a prefix closed under ancestors from the rest:
 * every partition is a run of consecutive nodes, and data only flows forward. */
#include "design/design_internal.h"

#include <string.h>

int cm_design_partition_count(const cm_design *d) { return d->n_parts; }
int cm_design_partition_first(const cm_design *d, int p) { return d->parts[p].first; }

bool cm_design_can_cut_after(const cm_design *d, int node)
{
    return node >= 0 && node < d->hd.n_nodes - 1 && (d->hd.nodes[node].flags & CM_HD_CUT_AFTER);
}

/* The bad edges from nodes [first, mid) into nodes [mid, end), as the design's
 * partitions stand. */
static int edges_bad_between(const cm_design *d, int first, int mid, int end)
{
    int bad = 0;
    for (int v = mid; v < end; v++) {
        const cm_hd_node *n = &d->hd.nodes[v];
        for (int k = 0; k < n->n_pred; k++)
            if (n->pred[k] >= first && n->pred[k] < mid)
                bad += cm_design_edge_bad(d, n->pred[k], v);
    }
    return bad;
}

/* Moves the nodes of the partitions after p to their partitions' new numbers (by
 * delta): a cut or a merge leaves the other partitions as they are, so only their
 * numbers change, not their aggregates (on 10,000 partitions, refreshing each after
 * every merge made the rule optimiser's cuts quadratic). */
static void renumber_after(cm_design *d, int p, int delta)
{
    for (int i = d->parts[p].end; i < d->hd.n_nodes; i++)
        d->part_of[i] += delta;
}

cm_status cm_design_split(cm_design *d, int node, cm_error *err)
{
    if (!cm_design_can_cut_after(d, node))
        return cm_error_set(err, CM_EUSAGE, "%s cannot end a partition on the %s backend",
                            node >= 0 && node < d->hd.n_nodes ? d->hd.nodes[node].name : "node",
                            cm_backend_name(d->hd.backend));
    int p = d->part_of[node];
    if (d->parts[p].end == node + 1)
        return cm_error_set(err, CM_EUSAGE, "a partition already ends after %s",
                            d->hd.nodes[node].name);
    /* the edges into the second half from the first become off-chip: never bad */
    d->bad_edges -= edges_bad_between(d, d->parts[p].first, node + 1, d->parts[p].end);
    memmove(&d->parts[p + 2], &d->parts[p + 1], (size_t)(d->n_parts - p - 1) * sizeof *d->parts);
    d->n_parts++;
    d->parts[p + 1].first = node + 1;
    d->parts[p + 1].end = d->parts[p].end;
    d->parts[p].end = node + 1;
    renumber_after(d, p + 1, +1);
    /* the second half first: it numbers its nodes, which the first's FIFOs look up */
    cm_design_part_refresh(d, p + 1);
    cm_design_part_refresh(d, p);
    return CM_OK;
}

cm_status cm_design_merge(cm_design *d, int p, cm_error *err)
{
    if (p < 0 || p + 1 >= d->n_parts)
        return cm_error_set(err, CM_EUSAGE, "there is no partition after partition %d", p);
    const int first = d->parts[p].first, mid = d->parts[p + 1].first;
    d->parts[p].end = d->parts[p + 1].end;
    memmove(&d->parts[p + 1], &d->parts[p + 2], (size_t)(d->n_parts - p - 2) * sizeof *d->parts);
    d->n_parts--;
    renumber_after(d, p, -1);
    cm_design_part_refresh(d, p);
    /* the edges that crossed the cut now stream on-chip, where they may break a rule */
    d->bad_edges += edges_bad_between(d, first, mid, d->parts[p].end);
    return CM_OK;
}

void cm_design_split_all(cm_design *d)
{
    int n = 0;
    for (int i = 0; i < d->hd.n_nodes; i++) {
        if (i == 0 || cm_design_can_cut_after(d, i - 1)) {
            d->parts[n].first = i;
            if (n > 0)
                d->parts[n - 1].end = i;
            n++;
        }
    }
    d->parts[n - 1].end = d->hd.n_nodes;
    d->n_parts = n;
    for (int q = 0; q < n; q++)
        cm_design_part_refresh(d, q);
    cm_design_recount_edges(d);
}

cm_status cm_design_set_partitions(cm_design *d, const int *first, int count, cm_error *err)
{
    if (count < 1 || first[0] != 0)
        return cm_error_set(err, CM_EINPUT, "the first partition must start at the first node");
    for (int p = 1; p < count; p++)
        if (first[p] <= first[p - 1] || first[p] >= d->hd.n_nodes)
            return cm_error_set(err, CM_EINPUT,
                                "partitions must be non-empty runs of consecutive nodes");
    for (int p = 0; p < count; p++) {
        d->parts[p].first = first[p];
        d->parts[p].end = p + 1 < count ? first[p + 1] : d->hd.n_nodes;
    }
    d->n_parts = count;
    for (int q = 0; q < count; q++)
        cm_design_part_refresh(d, q);
    cm_design_recount_edges(d);
    return CM_OK;
}
