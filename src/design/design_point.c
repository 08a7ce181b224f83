/* Design points: a copy of a design's foldings and cuts that a search keeps (its best
 * so far, or the state to revert to) and puts back cheaply, re-costing only what
 * differs. */
#include "design/design_internal.h"

#include <stdlib.h>
#include <string.h>

struct cm_design_point {
    int n_nodes, n_parts;
    int64_t *fold;  /* 3 per node */
    int *first;     /* first node of each partition */
};

cm_design_point *cm_design_point_new(const cm_design *d)
{
    cm_design_point *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->n_nodes = d->hd.n_nodes;
    p->fold = malloc((size_t)p->n_nodes * 3 * sizeof *p->fold);
    p->first = malloc((size_t)p->n_nodes * sizeof *p->first);
    if (!p->fold || !p->first) {
        cm_design_point_free(p);
        return NULL;
    }
    cm_design_point_capture(d, p);
    return p;
}

void cm_design_point_capture(const cm_design *d, cm_design_point *p)
{
    for (int i = 0; i < p->n_nodes; i++)
        memcpy(&p->fold[3 * i], d->state[i].fold, 3 * sizeof *p->fold);
    p->n_parts = d->n_parts;
    for (int q = 0; q < d->n_parts; q++)
        p->first[q] = d->parts[q].first;
}

void cm_design_point_restore(cm_design *d, const cm_design_point *p)
{
    bool same_cuts = p->n_parts == d->n_parts;
    for (int q = 0; same_cuts && q < p->n_parts; q++)
        same_cuts = p->first[q] == d->parts[q].first;
    if (!same_cuts)
        cm_design_set_partitions(d, p->first, p->n_parts, NULL);
    for (int i = 0; i < p->n_nodes; i++) {
        const int64_t *f = &p->fold[3 * i];
        if (memcmp(f, d->state[i].fold, 3 * sizeof *f) != 0)
            cm_design_set_folding(d, i, f[0], f[1], f[2]);
    }
}

int cm_design_point_partitions(const cm_design_point *p, const int **first)
{
    *first = p->first;
    return p->n_parts;
}

void cm_design_point_free(cm_design_point *p)
{
    if (!p)
        return;
    free(p->fold);
    free(p->first);
    free(p);
}
