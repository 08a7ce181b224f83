/* cm_overlay_cost: a given mapping (an array, each layer's algorithm and dataflow, each
 * format vertex's layout) costed on the cost graph of section 5.1 without searching,
 * every constraint the search respects checked and named when broken. */
#include <cnnmap/overlay.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overlay/costgraph.h"
#include "overlay/ov_result.h"
#include "overlay/ov_util.h"

typedef struct recost {
    const cm_graph *g;
    const cm_overlay_layer *rows;
    const cm_overlay_format *formats;
    cm_ov_costgraph *cg;
    int *row_of;    /* graph layer -> its row, or -1 */
    int *format_of; /* cost-graph vertex -> its format, or -1 */
    int *choice;    /* cost-graph vertex -> option */
    cm_error *err;
} recost;

static const char *layer_name(const recost *c, int layer)
{
    return c->g->layers[layer].name;
}

static cm_status index_rows(recost *c, int n_rows)
{
    for (int k = 0; k < n_rows; k++) {
        int l = c->rows[k].layer;
        if (l < 0 || l >= c->g->n_layers)
            return cm_error_set(c->err, CM_EINPUT, "mapping row %d names no layer of the model", k);
        if (c->row_of[l] >= 0)
            return cm_error_set(c->err, CM_EINPUT, "layer '%s' is mapped twice", layer_name(c, l));
        c->row_of[l] = k;
    }
    bool *vertex = cm_ov_calloc(c->g->n_layers, sizeof *vertex);
    if (!vertex)
        return cm_error_nomem(c->err);
    cm_status st = CM_OK;
    for (int n = 0; n < c->cg->n_nodes; n++)
        if (!c->cg->nodes[n].is_format)
            vertex[c->cg->nodes[n].layer] = true;
    for (int n = 0; st == CM_OK && n < c->cg->n_nodes; n++)
        if (!c->cg->nodes[n].is_format && c->row_of[c->cg->nodes[n].layer] < 0)
            st = cm_error_set(c->err, CM_EINPUT, "layer '%s' is missing from the mapping",
                              layer_name(c, c->cg->nodes[n].layer));
    for (int k = 0; st == CM_OK && k < n_rows; k++)
        if (!vertex[c->rows[k].layer])
            st = cm_error_set(c->err, CM_EINPUT, "layer '%s' takes no time on the overlay (it folds "
                              "into the layer before it or is a concatenation): it has no algorithm",
                              layer_name(c, c->rows[k].layer));
    free(vertex);
    return st;
}

/* The format vertex a format describes, or -1. */
static int format_vertex(const recost *c, const cm_overlay_format *f)
{
    for (int n = 0; n < c->cg->n_nodes; n++) {
        const cm_ov_node *v = &c->cg->nodes[n];
        if (!v->is_format)
            continue;
        bool input = v->input >= 0;
        bool concat = !input && c->g->layers[v->layer].op == CM_OP_CONCAT;
        if (f->vertex == CM_OVERLAY_INPUT_VERTEX ? input && v->input == f->index
            : f->vertex == CM_OVERLAY_CONCAT_VERTEX ? concat && v->layer == f->index
                                                    : !input && !concat && v->layer == f->index)
            return n;
    }
    return -1;
}

static void format_text(const recost *c, const cm_overlay_format *f, char *buf, size_t size)
{
    bool input = f->vertex == CM_OVERLAY_INPUT_VERTEX;
    int limit = input ? c->g->n_inputs : c->g->n_layers;
    const char *name = f->index < 0 || f->index >= limit ? "?"
                       : input                            ? c->g->inputs[f->index].name
                                                          : c->g->layers[f->index].name;
    snprintf(buf, size, "%s%s '%.128s'", cm_overlay_vertex_name(f->vertex),
             f->vertex == CM_OVERLAY_STORE_VERTEX ? " after" : "", name);
}

static cm_status index_formats(recost *c, int n_formats)
{
    char what[200];
    for (int k = 0; k < n_formats; k++) {
        int n = format_vertex(c, &c->formats[k]);
        format_text(c, &c->formats[k], what, sizeof what);
        if (n < 0)
            return cm_error_set(c->err, CM_EINPUT, "the cost graph has no %s (a store follows only "
                                "a layer that several layers read)", what);
        if (c->format_of[n] >= 0)
            return cm_error_set(c->err, CM_EINPUT, "%s is given twice", what);
        c->format_of[n] = k;
    }
    for (int n = 0; n < c->cg->n_nodes; n++)
        if (c->cg->nodes[n].is_format && c->format_of[n] < 0) {
            cm_ov_node_name(c->cg, n, what, sizeof what);
            return cm_error_set(c->err, CM_EINPUT, "the layout of %s is missing from the mapping",
                                what);
        }
    return CM_OK;
}

static void algorithm_list(unsigned mask, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int a = 0; a < CM_OVERLAY_CONV_ALGORITHMS; a++)
        if (mask & (1u << a)) {
            size_t len = strlen(buf);
            snprintf(buf + len, size - len, "%s%s", len ? "," : "", cm_overlay_algorithm_name(a));
        }
}

/* A conv or fc layer on the array: an allowed algorithm that applies, and a dataflow. */
static cm_status array_choice(recost *c, int n, const cm_overlay_layer *row, unsigned allowed)
{
    cm_ov_node *v = &c->cg->nodes[n];
    const cm_layer *l = &c->g->layers[v->layer];
    char list[64];
    algorithm_list(allowed, list, sizeof list);
    if (row->algorithm >= CM_OVERLAY_CONV_ALGORITHMS)
        return cm_error_set(c->err, CM_EINFEASIBLE, "layer '%s' (%s) runs on the array: im2col, "
                            "kn2row or winograd, not %s", l->name, cm_op_name(l->op),
                            cm_overlay_algorithm_name(row->algorithm));
    if (!(allowed & (1u << row->algorithm)))
        return cm_error_set(c->err, CM_EINFEASIBLE, "layer '%s': %s is not among the allowed "
                            "algorithms (%s)", l->name, cm_overlay_algorithm_name(row->algorithm), list);
    int x = 0;
    while (x < v->n_options && v->choices[x].algorithm != row->algorithm)
        x++;
    if (x == v->n_options)
        return cm_error_set(c->err, CM_EINFEASIBLE, "layer '%s' (%s, kernel %dx%d, stride %d): "
                            "winograd does not apply (it needs a square kernel of at least 2x2, "
                            "stride 1, no dilation and no groups)", l->name, cm_op_name(l->op),
                            l->kernel[0], l->kernel[1], l->stride[0]);
    if (row->dataflow == CM_OVERLAY_NO_DATAFLOW)
        return cm_error_set(c->err, CM_EINFEASIBLE, "layer '%s': %s runs on the array and needs a "
                            "dataflow (NS, WS or IS)", l->name, cm_overlay_algorithm_name(row->algorithm));
    cm_ov_choice *ch = &v->choices[x];
    if (ch->dataflow != row->dataflow) { /* a slower dataflow than the fastest: the user's */
        ch->dataflow = row->dataflow;
        ch->cycles = cm_ov_layer_cycles_as(&c->cg->arr, l, row->algorithm, row->dataflow);
    }
    c->choice[n] = x;
    return CM_OK;
}

static cm_status layer_choice(recost *c, int n, unsigned allowed)
{
    const cm_ov_node *v = &c->cg->nodes[n];
    const cm_overlay_layer *row = &c->rows[c->row_of[v->layer]];
    cm_overlay_algorithm own = v->choices[0].algorithm;
    if (own < CM_OVERLAY_CONV_ALGORITHMS)
        return array_choice(c, n, row, allowed);
    const char *where = own == CM_OVERLAY_POOL ? "the pooling module" : "the accumulation buffer";
    if (row->algorithm != own)
        return cm_error_set(c->err, CM_EINFEASIBLE, "layer '%s' (%s) runs on %s: algorithm %s, "
                            "not %s", layer_name(c, v->layer), cm_op_name(c->g->layers[v->layer].op),
                            where, cm_overlay_algorithm_name(own),
                            cm_overlay_algorithm_name(row->algorithm));
    if (row->dataflow != CM_OVERLAY_NO_DATAFLOW)
        return cm_error_set(c->err, CM_EINFEASIBLE, "layer '%s' runs on %s, off the array: its "
                            "dataflow must be null, not %s", layer_name(c, v->layer), where,
                            cm_overlay_dataflow_name(row->dataflow));
    c->choice[n] = 0;
    return CM_OK;
}

static cm_status format_choice(recost *c, int n)
{
    const cm_ov_node *v = &c->cg->nodes[n];
    const cm_overlay_format *f = &c->formats[c->format_of[n]];
    char what[200];
    cm_ov_node_name(c->cg, n, what, sizeof what);
    cm_ov_layout lay;
    if (!cm_ov_format_layout(c->g, f, &lay))
        return cm_error_set(c->err, CM_EINFEASIBLE, "%s: layer '%s' reads no %s layout", what,
                            f->reader >= 0 && f->reader < c->g->n_layers ? layer_name(c, f->reader) : "?",
                            cm_overlay_layout_name(f->layout));
    for (int x = 0; x < v->n_options; x++)
        if (cm_ov_layout_equal(&v->layouts[x], &lay)) {
            c->choice[n] = x;
            return CM_OK;
        }
    return cm_error_set(c->err, CM_EINFEASIBLE, "%s cannot hold the %s layout of layer '%s': "
                        "none of the layers reading it can read that layout", what,
                        cm_overlay_layout_name(f->layout), layer_name(c, f->reader));
}

/* Names the first vertex or edge of infinite cost: what cannot go together. */
static cm_status explain_infinite(const recost *c)
{
    const cm_ov_costgraph *cg = c->cg;
    char a[200], b[200];
    for (int n = 0; n < cg->n_nodes; n++)
        if (!isfinite(cm_ov_node_cost(cg, n, c->choice[n]))) {
            cm_ov_node_name(cg, n, a, sizeof a);
            return cm_error_set(c->err, CM_EINFEASIBLE, "%s is a graph output, which the host "
                                "reads as the 3-D tensor: its layout must be tensor", a);
        }
    for (int e = 0; e < cg->n_edges; e++) {
        int f = cg->edges[e].from, t = cg->edges[e].to;
        if (isfinite(cm_ov_edge_cost(cg, e, c->choice[f], c->choice[t])))
            continue;
        cm_ov_node_name(cg, f, a, sizeof a);
        cm_ov_node_name(cg, t, b, sizeof b);
        const char *held = cm_overlay_layout_name((cm_overlay_layout)cg->nodes[f].layouts[c->choice[f]].kind);
        if (cg->nodes[t].is_format)
            return cm_error_set(c->err, CM_EINFEASIBLE, "%s holds a %s layout that %s does not: "
                                "a concatenation and what it is written from share one layout", a,
                                held, b);
        return cm_error_set(c->err, CM_EINFEASIBLE, "layer %s (%s) cannot load %s, held in another "
                            "layer's %s layout: only the 3-D tensor converts on load", b,
                            cm_overlay_algorithm_name(cg->nodes[t].choices[c->choice[t]].algorithm),
                            a, held);
    }
    return cm_error_set(c->err, CM_EINTERNAL, "no mapping of finite latency");
}

static cm_status choose(recost *c, unsigned allowed)
{
    cm_status st = CM_OK;
    for (int n = 0; st == CM_OK && n < c->cg->n_nodes; n++)
        st = c->cg->nodes[n].is_format ? format_choice(c, n) : layer_choice(c, n, allowed);
    if (st == CM_OK && !isfinite(cm_ov_costgraph_latency(c->cg, c->choice)))
        st = explain_infinite(c);
    return st;
}

/* Every row and format is matched before any constraint is checked: a mapping that
 * does not fit the model is bad input even when it also breaks a constraint. */
static cm_status recost_on(recost *c, const cm_board *board, const cm_overlay_options *opt,
                           int64_t limit, int n_rows, int n_formats, cm_overlay_result **out)
{
    c->row_of = cm_ov_calloc(c->g->n_layers, sizeof *c->row_of);
    c->format_of = cm_ov_calloc(c->cg->n_nodes, sizeof *c->format_of);
    c->choice = cm_ov_calloc(c->cg->n_nodes, sizeof *c->choice);
    if (!c->row_of || !c->format_of || !c->choice)
        return cm_error_nomem(c->err);
    memset(c->row_of, 0xff, (size_t)c->g->n_layers * sizeof *c->row_of);
    memset(c->format_of, 0xff, (size_t)c->cg->n_nodes * sizeof *c->format_of);
    cm_ov_array arr = c->cg->arr;
    cm_status st = index_rows(c, n_rows);
    if (st == CM_OK)
        st = index_formats(c, n_formats);
    if (st == CM_OK)
        st = cm_ov_fixed_array(opt, board, limit, &arr, c->err);
    if (st == CM_OK)
        st = choose(c, opt->algorithms);
    cm_overlay_result *r = NULL;
    if (st == CM_OK && !(r = cm_ov_result_new(&arr, board)))
        st = cm_error_nomem(c->err);
    if (st == CM_OK)
        st = cm_ov_fill_result(c->cg, c->choice, r, c->err);
    if (st != CM_OK) {
        cm_overlay_result_free(r);
        return st;
    }
    *out = r;
    return CM_OK;
}

cm_status cm_overlay_cost(const cm_graph *g, const cm_board *board, const cm_overlay_options *opt,
                          const cm_overlay_layer *rows, int n_rows, const cm_overlay_format *formats,
                          int n_formats, cm_overlay_result **out, cm_error *err)
{
    int64_t limit = 0;
    cm_ov_array arr;
    cm_status st = cm_ov_array_setup(opt, board, &limit, &arr, err);
    if (st != CM_OK)
        return st;
    if (opt->array[0] < 1 || n_rows < 0 || n_formats < 0)
        return cm_error_set(err, CM_EUSAGE, "a mapping is costed on a given array");
    arr.p1 = opt->array[0];
    arr.p2 = opt->array[1];
    recost c = {.g = g, .rows = rows, .formats = formats, .err = err};
    /* Every algorithm's options, so that one outside the allowed set is named as such
     * rather than as one that does not apply. */
    st = cm_ov_costgraph_build(g, &arr, CM_OVERLAY_ALL_ALGORITHMS, &c.cg, err);
    if (st == CM_OK)
        st = recost_on(&c, board, opt, limit, n_rows, n_formats, out);
    free(c.row_of);
    free(c.format_of);
    free(c.choice);
    cm_ov_costgraph_free(c.cg);
    return st;
}
