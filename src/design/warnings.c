/* The remarks that change what a streaming design's figures mean, for the text output
 * and the JSON's "warnings": layers that the model leaves as float and the backend
 * costs at default bit widths, a search the time limit cut short, and an answer with no
 * proof of how far it is from the optimum. */
#include <stdio.h>

#include <cnnmap/design_io.h>

#include "design/design_internal.h"

/* conv and fc layers whose weights or inputs carry no Quant annotation */
static int unquantised_weight_layers(const cm_graph *g, int *weight_layers)
{
    int n = 0;
    *weight_layers = 0;
    for (int i = 0; i < g->n_layers; i++) {
        const cm_layer *l = &g->layers[i];
        if (l->op != CM_OP_CONV && l->op != CM_OP_FC)
            continue;
        (*weight_layers)++;
        n += !l->weight_q.quantised || !l->in_q.quantised;
    }
    return n;
}

static void add(cm_design_warning *out, int cap, int *n, const char *text)
{
    if (*n < cap)
        snprintf(out[*n].text, sizeof out[*n].text, "%s", text);
    (*n)++;
}

int cm_design_warnings(const cm_design *d, const cm_design_run *run, cm_design_warning *out,
                       int cap)
{
    int n = 0, weight_layers;
    char text[CM_DESIGN_WARNING_MAX];
    int unquantised = unquantised_weight_layers(d->graph, &weight_layers);
    /* FINN's costs depend on the bit widths; the other backends cost their fixed words */
    if (d->opt.backend == CM_BACKEND_FINN && unquantised > 0) {
        snprintf(text, sizeof text,
                 "%d of %d conv and fc layers have no Quant annotation: FINN costs them at "
                 "%d-bit weights and %d-bit activations (--bits)",
                 unquantised, weight_layers,
                 d->opt.default_weight_bits > 0 ? d->opt.default_weight_bits : 4,
                 d->opt.default_act_bits > 0 ? d->opt.default_act_bits : 4);
        add(out, cap, &n, text);
    }
    if (run->result.stopped_early)
        add(out, cap, &n, "the search stopped early (its time limit or work budget): the "
                          "design is the best found by then");
    if (run->optimiser == CM_OPTIMISER_NONE)
        add(out, cap, &n, "optimiser none: the resource-minimal design, not optimised");
    else if (!run->result.has_lower_bound && !run->result.proven_infeasible)
        add(out, cap, &n, "a heuristic answer: no bound on its distance from the optimum "
                          "(--optimiser exact proves one)");
    return n;
}
