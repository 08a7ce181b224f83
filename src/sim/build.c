/* The list of graphs a builder hands to cm_simulate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/build.h"

sim_part *sim_build_add(sim_build *b, sim_graph *graph, const char *label)
{
    if (b->n_parts == b->cap_parts) {
        int cap = b->cap_parts ? b->cap_parts * 2 : 4;
        sim_part *p = realloc(b->parts, (size_t)cap * sizeof *p);
        if (!p) {
            sim_graph_free(graph);
            return NULL;
        }
        b->parts = p;
        b->cap_parts = cap;
    }
    sim_part *part = &b->parts[b->n_parts++];
    memset(part, 0, sizeof *part);
    part->graph = graph;
    snprintf(part->label, sizeof part->label, "%s", label ? label : "");
    return part;
}

void sim_build_free(sim_build *b)
{
    if (!b)
        return;
    for (int i = 0; i < b->n_parts; i++) {
        sim_graph_free(b->parts[i].graph);
        free(b->parts[i].analytic_task_cycles);
    }
    free(b->parts);
    memset(b, 0, sizeof *b);
}
