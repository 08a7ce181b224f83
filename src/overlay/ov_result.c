/* Filling an overlay result from a cost graph and one option per vertex: the latency,
 * each layer's row, each format vertex's layout, the resources and the weights. */
#include "overlay/ov_result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "overlay/ov_memory.h"
#include "overlay/ov_util.h"
#include "overlay/sizing.h"

cm_overlay_result *cm_ov_result_new(const cm_ov_array *arr, const cm_board *b)
{
    cm_overlay_result *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->array[0] = arr->p1;
    r->array[1] = arr->p2;
    r->clock_mhz = b->clock_mhz;
    r->dsp = (int64_t)arr->p1 * arr->p2;
    r->bram18 = cm_ov_buffer_bram18(arr->p1, arr->p2);
    return r;
}

/* Every edge's cost goes to a layer: a load to the layer reading, a store into a
 * format vertex to the layer writing. */
static void attribute_transitions(const cm_ov_costgraph *cg, const int *choice, double *trans)
{
    for (int n = 0; n < cg->n_nodes; n++)
        trans[n] = cg->nodes[n].is_format
                       ? 0.0
                       : cm_ov_node_cost(cg, n, choice[n]) - cm_ov_node_busy_s(cg, n, choice[n]);
    for (int e = 0; e < cg->n_edges; e++) {
        int f = cg->edges[e].from, t = cg->edges[e].to;
        double c = cm_ov_edge_cost(cg, e, choice[f], choice[t]);
        if (!cg->nodes[t].is_format)
            trans[t] += c;
        else if (!cg->nodes[f].is_format)
            trans[f] += c;
    }
}

static cm_status fill_rows(const cm_ov_costgraph *cg, const int *choice, cm_overlay_result *r,
                           cm_error *err)
{
    double *trans = cm_ov_calloc(cg->n_nodes, sizeof *trans);
    r->layers = cm_ov_calloc(cg->n_nodes, sizeof *r->layers);
    if (!trans || !r->layers) {
        free(trans);
        return cm_error_nomem(err);
    }
    attribute_transitions(cg, choice, trans);
    double pes = (double)cg->arr.p1 * cg->arr.p2, macs = 0.0;
    for (int n = 0; n < cg->n_nodes; n++) {
        const cm_ov_node *v = &cg->nodes[n];
        if (v->is_format)
            continue;
        const cm_ov_choice *c = &v->choices[choice[n]];
        const cm_layer *l = &cg->g->layers[v->layer];
        cm_overlay_layer *row = &r->layers[r->n_layers++];
        row->layer = v->layer;
        row->algorithm = c->algorithm;
        row->dataflow = c->dataflow;
        row->cycles = c->cycles;
        row->compute_s = (double)c->cycles / cg->arr.freq_hz;
        row->memory_s = v->weight_s;
        row->transition_s = trans[n];
        bool on_array = c->dataflow != CM_OVERLAY_NO_DATAFLOW && c->cycles > 0;
        row->utilisation = on_array ? (double)l->macs / ((double)c->cycles * pes) : 0.0; /* eq. 14 */
        macs += on_array ? (double)l->macs : 0.0;
    }
    r->gops = r->latency_s > 0 ? 2.0 * macs / r->latency_s / 1e9 : 0.0;
    free(trans);
    return CM_OK;
}

static cm_overlay_algorithm reading_algorithm(cm_overlay_layout kind)
{
    return kind == CM_OVERLAY_TOEPLITZ ? CM_OVERLAY_IM2COL : CM_OVERLAY_WINOGRAD;
}

bool cm_ov_format_layout(const cm_graph *g, const cm_overlay_format *f, cm_ov_layout *out)
{
    memset(out, 0, sizeof *out);
    if (f->layout == CM_OVERLAY_TENSOR)
        return true;
    if (f->reader < 0 || f->reader >= g->n_layers)
        return false;
    *out = cm_ov_input_layout(&g->layers[f->reader], reading_algorithm(f->layout));
    return (int)out->kind == (int)f->layout;
}

/* The first layer downstream of format vertex n (through further format vertices, in
 * edge order) that reads layout `lay`: the layer whose geometry names it in the file. */
static int find_reader(const cm_ov_costgraph *cg, int n, const cm_ov_layout *lay, int *queue,
                       bool *seen)
{
    memset(seen, 0, (size_t)cg->n_nodes * sizeof *seen);
    int head = 0, tail = 0;
    queue[tail++] = n;
    seen[n] = true;
    cm_overlay_algorithm a = reading_algorithm((cm_overlay_layout)lay->kind);
    while (head < tail) {
        int u = queue[head++];
        for (int e = 0; e < cg->n_edges; e++) {
            int t = cg->edges[e].to;
            if (cg->edges[e].from != u || seen[t])
                continue;
            seen[t] = true;
            const cm_ov_node *v = &cg->nodes[t];
            if (!v->is_format) {
                cm_ov_layout in = cm_ov_input_layout(&cg->g->layers[v->layer], a);
                if (cm_ov_layout_equal(&in, lay))
                    return v->layer;
            } else {
                queue[tail++] = t;
            }
        }
    }
    return -1;
}

static void describe_format(const cm_ov_costgraph *cg, int n, const cm_ov_layout *lay, int *queue,
                            bool *seen, cm_overlay_format *f)
{
    const cm_ov_node *v = &cg->nodes[n];
    f->vertex = v->input >= 0                                   ? CM_OVERLAY_INPUT_VERTEX
                : cg->g->layers[v->layer].op == CM_OP_CONCAT ? CM_OVERLAY_CONCAT_VERTEX
                                                                : CM_OVERLAY_STORE_VERTEX;
    f->index = v->input >= 0 ? v->input : v->layer;
    f->layout = (cm_overlay_layout)lay->kind;
    f->reader = lay->kind == CM_OV_TENSOR ? -1 : find_reader(cg, n, lay, queue, seen);
}

static cm_status fill_formats(const cm_ov_costgraph *cg, const int *choice, cm_overlay_result *r,
                              cm_error *err)
{
    int *queue = cm_ov_calloc(cg->n_nodes, sizeof *queue);
    bool *seen = cm_ov_calloc(cg->n_nodes, sizeof *seen);
    r->formats = cm_ov_calloc(cg->n_nodes, sizeof *r->formats);
    cm_status st = queue && seen && r->formats ? CM_OK : cm_error_nomem(err);
    for (int n = 0; st == CM_OK && n < cg->n_nodes; n++) {
        if (!cg->nodes[n].is_format)
            continue;
        cm_overlay_format *f = &r->formats[r->n_formats++];
        describe_format(cg, n, &cg->nodes[n].layouts[choice[n]], queue, seen, f);
        if (f->layout != CM_OVERLAY_TENSOR && f->reader < 0)
            st = cm_error_set(err, CM_EINTERNAL, "cost graph: a layout that no layer reads");
    }
    free(queue);
    free(seen);
    return st;
}

cm_status cm_ov_fill_result(const cm_ov_costgraph *cg, const int *choice, cm_overlay_result *r,
                            cm_error *err)
{
    r->latency_s = cm_ov_costgraph_latency(cg, choice);
    if (!isfinite(r->latency_s))
        return cm_error_set(err, CM_EINTERNAL, "no mapping of finite latency");
    r->weights_resident = cg->weights_resident;
    r->weight_bytes = cm_ov_total_weight_bytes(cg->g);
    r->onchip_bytes = cm_ov_free_onchip_bytes(&cg->arr);
    r->cost_graph_vertices = cg->n_nodes;
    r->cost_graph_edges = cm_ov_costgraph_pairs(cg);
    if (r->cost_graph_edges < 0)
        return cm_error_nomem(err);
    cm_status st = fill_rows(cg, choice, r, err);
    return st == CM_OK ? fill_formats(cg, choice, r, err) : st;
}
