/* Building the cost graph of DYNAMAP section 5.1 from a layer graph, and its costs. */
#include "overlay/costgraph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overlay/ov_memory.h"
#include "overlay/ov_util.h"

typedef enum layer_role { ROLE_ARRAY, ROLE_POOL, ROLE_ELTWISE, ROLE_FORMAT, ROLE_FOLD } layer_role;

static layer_role role_of(const cm_layer *l)
{
    switch (l->op) {
    case CM_OP_CONV:
    case CM_OP_FC:
        return ROLE_ARRAY;
    case CM_OP_POOL_MAX:
    case CM_OP_POOL_AVG:
    case CM_OP_GLOBAL_POOL_AVG:
    case CM_OP_GLOBAL_POOL_MAX:
        return ROLE_POOL;
    case CM_OP_CONCAT:
        return ROLE_FORMAT;
    case CM_OP_ADD:
    case CM_OP_MUL: /* with a constant it is a per-channel scale the store side applies */
        return l->has_const_operand || l->n_inputs < 2 ? ROLE_FOLD : ROLE_ELTWISE;
    case CM_OP_UPSAMPLE:
    case CM_OP_SOFTMAX:
        return ROLE_ELTWISE;
    default:
        return ROLE_FOLD;
    }
}

static cm_status add_node(cm_ov_costgraph *cg, bool is_format, int layer, int input, cm_shape data,
                          int *idx, cm_error *err)
{
    cm_ov_node *grown = cm_ov_grow(cg->nodes, &cg->cap_nodes, cg->n_nodes, sizeof *grown, 64);
    if (!grown)
        return cm_error_nomem(err);
    cg->nodes = grown;
    cm_ov_node *n = &cg->nodes[cg->n_nodes];
    memset(n, 0, sizeof *n);
    n->is_format = is_format;
    n->layer = layer;
    n->input = input;
    n->data = data;
    n->store = -1;
    *idx = cg->n_nodes++;
    return CM_OK;
}

static cm_status add_edge(cm_ov_costgraph *cg, int from, int to, cm_error *err)
{
    if (from < 0 || to < 0)
        return cm_error_set(err, CM_EINTERNAL, "cost graph: a layer reads nothing");
    cm_ov_edge *e = cm_ov_grow(cg->edges, &cg->cap_edges, cg->n_edges, sizeof *e, 64);
    if (!e)
        return cm_error_nomem(err);
    cg->edges = e;
    cg->edges[cg->n_edges++] = (cm_ov_edge){from, to};
    return CM_OK;
}

static int source_node(const cm_ov_costgraph *cg, const int *layer_node, cm_source s)
{
    if (CM_SOURCE_IS_INPUT(s))
        return CM_SOURCE_INPUT_INDEX(s) < cg->g->n_inputs ? CM_SOURCE_INPUT_INDEX(s) : -1;
    return s < cg->g->n_layers ? layer_node[s] : -1;
}

/* Vertices for the inputs and for every layer that is not folded; layer_node maps each
 * layer to the vertex that holds its output. */
static cm_status add_layer_nodes(cm_ov_costgraph *cg, int *layer_node, cm_error *err)
{
    const cm_graph *g = cg->g;
    int idx = -1;
    for (int i = 0; i < g->n_inputs; i++) {
        cm_status st = add_node(cg, true, -1, i, g->inputs[i].shape, &idx, err);
        if (st != CM_OK)
            return st;
    }
    for (int i = 0; i < g->n_layers; i++) {
        const cm_layer *l = &g->layers[i];
        layer_role r = role_of(l);
        if (r == ROLE_FOLD) {
            layer_node[i] = l->n_inputs > 0 ? source_node(cg, layer_node, l->inputs[0]) : -1;
            continue;
        }
        cm_status st = add_node(cg, r == ROLE_FORMAT, i, -1, l->out_shape, &idx, err);
        if (st != CM_OK)
            return st;
        cg->nodes[idx].weight_s = cm_ov_weight_s(&cg->arr, l, cg->weights_resident);
        layer_node[i] = idx;
    }
    return CM_OK;
}

static cm_status add_layer_edges(cm_ov_costgraph *cg, const int *layer_node, cm_error *err)
{
    const cm_graph *g = cg->g;
    for (int i = 0; i < g->n_layers; i++) {
        if (role_of(&g->layers[i]) == ROLE_FOLD)
            continue;
        for (int k = 0; k < g->layers[i].n_inputs; k++) {
            cm_status st =
                add_edge(cg, source_node(cg, layer_node, g->layers[i].inputs[k]), layer_node[i], err);
            if (st != CM_OK)
                return st;
        }
    }
    return CM_OK;
}

/* Section 5.1: a layer read by several layers stores its output once, in one format,
 * chosen by a store vertex between it and its readers. */
static cm_status add_store_nodes(cm_ov_costgraph *cg, cm_error *err)
{
    int n_layer_nodes = cg->n_nodes, n_edges = cg->n_edges;
    for (int n = 0; n < n_layer_nodes; n++) {
        if (cg->nodes[n].is_format)
            continue;
        int readers = 0;
        for (int e = 0; e < n_edges; e++)
            readers += cg->edges[e].from == n;
        if (readers < 2)
            continue;
        int s = -1;
        cm_status st = add_node(cg, true, cg->nodes[n].layer, -1, cg->nodes[n].data, &s, err);
        if (st == CM_OK)
            st = add_edge(cg, n, s, err);
        if (st != CM_OK)
            return st;
        cg->nodes[n].store = s;
        for (int e = 0; e < n_edges; e++)
            if (cg->edges[e].from == n)
                cg->edges[e].from = s;
    }
    return CM_OK;
}

static const char *algorithm_list(unsigned mask, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int a = 0; a < CM_OVERLAY_CONV_ALGORITHMS; a++)
        if (mask & (1u << a)) {
            size_t len = strlen(buf);
            snprintf(buf + len, size - len, "%s%s", len ? "," : "", cm_overlay_algorithm_name(a));
        }
    return buf;
}

static cm_status array_choices(const cm_ov_costgraph *cg, cm_ov_node *n, unsigned algorithms,
                               cm_error *err)
{
    const cm_layer *l = &cg->g->layers[n->layer];
    for (int a = 0; a < CM_OVERLAY_CONV_ALGORITHMS; a++) {
        if (!(algorithms & (1u << a)) || !cm_ov_applicable(&cg->arr, l, (cm_overlay_algorithm)a))
            continue;
        cm_ov_choice *c = &n->choices[n->n_options++];
        c->algorithm = (cm_overlay_algorithm)a;
        c->cycles = cm_ov_layer_cycles(&cg->arr, l, c->algorithm, &c->dataflow);
        c->in = cm_ov_input_layout(l, c->algorithm);
    }
    if (n->n_options > 0)
        return CM_OK;
    char list[64], what[64] = "fc";
    if (l->op == CM_OP_CONV)
        snprintf(what, sizeof what, "conv %dx%d, stride %d", l->kernel[0], l->kernel[1], l->stride[0]);
    return cm_error_set(err, CM_EINFEASIBLE, "layer '%s' (%s) can use none of the allowed algorithms (%s)",
                        l->name, what, algorithm_list(algorithms, list, sizeof list));
}

static cm_status add_choices(cm_ov_costgraph *cg, cm_ov_node *n, unsigned algorithms, cm_error *err)
{
    if (!(n->choices = calloc(CM_OVERLAY_CONV_ALGORITHMS, sizeof *n->choices)))
        return cm_error_nomem(err);
    const cm_layer *l = &cg->g->layers[n->layer];
    layer_role r = role_of(l);
    if (r == ROLE_ARRAY)
        return array_choices(cg, n, algorithms, err);
    cm_ov_choice *c = &n->choices[n->n_options++];
    c->algorithm = r == ROLE_POOL ? CM_OVERLAY_POOL : CM_OVERLAY_ELTWISE;
    c->dataflow = CM_OVERLAY_NO_DATAFLOW;
    c->in = cm_ov_input_layout(l, c->algorithm);
    c->cycles = r == ROLE_POOL ? cm_ov_stream_cycles(&cg->arr, l->in_shape)
                               : cm_ov_stream_cycles(&cg->arr, l->out_shape) * (uint64_t)l->n_inputs;
    return CM_OK;
}

static cm_status push_layout(cm_ov_node *n, int *cap, const cm_ov_layout *lay, cm_error *err)
{
    for (int k = 0; k < n->n_options; k++)
        if (cm_ov_layout_equal(&n->layouts[k], lay))
            return CM_OK;
    cm_ov_layout *l = cm_ov_grow(n->layouts, cap, n->n_options, sizeof *l, 4);
    if (!l)
        return cm_error_nomem(err);
    n->layouts = l;
    n->layouts[n->n_options++] = *lay;
    return CM_OK;
}

/* A format vertex may hold the 3-D tensor or any layout one of its readers reads (a
 * reader that is itself a format vertex passes on its own options). Readers come later
 * in the graph, so their options are known when this runs in reverse order. A graph
 * input is a format vertex too: the host writes the image in the layout the first layer
 * reads, as a host-side im2col does. */
static cm_status add_layouts(cm_ov_costgraph *cg, int n, cm_error *err)
{
    cm_ov_node *f = &cg->nodes[n];
    int cap = 0;
    cm_ov_layout tensor;
    memset(&tensor, 0, sizeof tensor);
    cm_status st = push_layout(f, &cap, &tensor, err);
    for (int e = 0; st == CM_OK && e < cg->n_edges; e++) {
        if (cg->edges[e].from != n)
            continue;
        const cm_ov_node *r = &cg->nodes[cg->edges[e].to];
        for (int k = 0; st == CM_OK && k < r->n_options; k++)
            st = push_layout(f, &cap, r->is_format ? &r->layouts[k] : &r->choices[k].in, err);
    }
    return st;
}

static cm_status add_options(cm_ov_costgraph *cg, const int *layer_node, unsigned algorithms,
                             cm_error *err)
{
    const cm_graph *g = cg->g;
    for (int n = 0; n < cg->n_nodes; n++)
        if (!cg->nodes[n].is_format) {
            cm_status st = add_choices(cg, &cg->nodes[n], algorithms, err);
            if (st != CM_OK)
                return st;
        }
    for (int i = g->n_layers - 1; i >= 0; i--) {
        if (role_of(&g->layers[i]) == ROLE_FOLD)
            continue;
        const cm_ov_node *n = &cg->nodes[layer_node[i]];
        cm_status st = n->store >= 0 ? add_layouts(cg, n->store, err) : CM_OK;
        if (st == CM_OK && n->is_format)
            st = add_layouts(cg, layer_node[i], err);
        if (st != CM_OK)
            return st;
    }
    for (int i = 0; i < g->n_inputs; i++) {
        cm_status st = add_layouts(cg, i, err);
        if (st != CM_OK)
            return st;
    }
    return CM_OK;
}

static cm_status build(cm_ov_costgraph *cg, unsigned algorithms, cm_error *err)
{
    const cm_graph *g = cg->g;
    int *layer_node = cm_ov_calloc(g->n_layers, sizeof *layer_node);
    if (!layer_node)
        return cm_error_nomem(err);
    cg->weights_resident = cm_ov_weights_resident(&cg->arr, g);
    cm_status st = add_layer_nodes(cg, layer_node, err);
    if (st == CM_OK)
        st = add_layer_edges(cg, layer_node, err);
    if (st == CM_OK)
        st = add_store_nodes(cg, err);
    for (int k = 0; st == CM_OK && k < g->n_outputs; k++) {
        int n = g->outputs[k] >= 0 && g->outputs[k] < g->n_layers ? layer_node[g->outputs[k]] : -1;
        if (n >= 0)
            cg->nodes[n].graph_output = true;
    }
    if (st == CM_OK)
        st = add_options(cg, layer_node, algorithms, err);
    free(layer_node);
    return st;
}

cm_status cm_ov_costgraph_build(const cm_graph *g, const cm_ov_array *arr, unsigned algorithms,
                                cm_ov_costgraph **out, cm_error *err)
{
    cm_ov_costgraph *cg = calloc(1, sizeof *cg);
    if (!cg)
        return cm_error_nomem(err);
    cg->g = g;
    cg->arr = *arr;
    cm_status st = build(cg, algorithms, err);
    if (st != CM_OK) {
        cm_ov_costgraph_free(cg);
        return st;
    }
    *out = cg;
    return CM_OK;
}

void cm_ov_costgraph_free(cm_ov_costgraph *cg)
{
    if (!cg)
        return;
    for (int n = 0; n < cg->n_nodes; n++) {
        free(cg->nodes[n].choices);
        free(cg->nodes[n].layouts);
    }
    free(cg->nodes);
    free(cg->edges);
    free(cg);
}

double cm_ov_node_busy_s(const cm_ov_costgraph *cg, int n, int x)
{
    const cm_ov_node *v = &cg->nodes[n];
    if (v->is_format)
        return 0.0;
    double compute = (double)v->choices[x].cycles / cg->arr.freq_hz;
    return compute > v->weight_s ? compute : v->weight_s;
}

double cm_ov_node_cost(const cm_ov_costgraph *cg, int n, int x)
{
    const cm_ov_node *v = &cg->nodes[n];
    if (v->is_format) /* the host reads a graph output as a 3-D tensor */
        return v->graph_output && v->layouts[x].kind != CM_OV_TENSOR ? INFINITY : 0.0;
    const cm_ov_choice *c = &v->choices[x];
    double t = cm_ov_node_busy_s(cg, n, x);
    if (v->graph_output) {
        cm_ov_layout tensor;
        memset(&tensor, 0, sizeof tensor);
        t += cm_ov_store_s(&cg->arr, c->algorithm, &tensor, v->data);
    }
    return t;
}

/* Table 2 and section 5.1.2: a layer feeding one reader stores in the reader's layout
 * and the reader loads it; a store into a format vertex converts to that layout; a
 * reader of a format vertex loads (and converts) from it. */
double cm_ov_edge_cost(const cm_ov_costgraph *cg, int e, int x, int y)
{
    const cm_ov_node *f = &cg->nodes[cg->edges[e].from], *t = &cg->nodes[cg->edges[e].to];
    const cm_ov_array *arr = &cg->arr;
    if (!f->is_format && !t->is_format) {
        const cm_ov_layout *in = &t->choices[y].in;
        return cm_ov_store_s(arr, f->choices[x].algorithm, in, f->data) +
               cm_ov_load_s(arr, in, in, f->data);
    }
    if (!f->is_format)
        return cm_ov_store_s(arr, f->choices[x].algorithm, &t->layouts[y], f->data);
    if (!t->is_format)
        return cm_ov_load_s(arr, &f->layouts[x], &t->choices[y].in, f->data);
    return cm_ov_layout_equal(&f->layouts[x], &t->layouts[y]) ? 0.0 : INFINITY;
}

double cm_ov_costgraph_latency(const cm_ov_costgraph *cg, const int *choice)
{
    double t = 0.0;
    for (int n = 0; n < cg->n_nodes; n++)
        t += cm_ov_node_cost(cg, n, choice[n]);
    for (int e = 0; e < cg->n_edges; e++)
        t += cm_ov_edge_cost(cg, e, choice[cg->edges[e].from], choice[cg->edges[e].to]);
    return t;
}

static int compare_edges(const void *a, const void *b)
{
    const cm_ov_edge *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return (x->to > y->to) - (x->to < y->to);
}

int cm_ov_costgraph_pairs(const cm_ov_costgraph *cg)
{
    cm_ov_edge *pairs = cm_ov_calloc(cg->n_edges, sizeof *pairs);
    if (!pairs)
        return -1;
    for (int e = 0; e < cg->n_edges; e++) {
        int u = cg->edges[e].from, v = cg->edges[e].to;
        pairs[e] = (cm_ov_edge){u < v ? u : v, u < v ? v : u};
    }
    qsort(pairs, (size_t)cg->n_edges, sizeof *pairs, compare_edges);
    int n = 0;
    for (int e = 0; e < cg->n_edges; e++)
        n += e == 0 || compare_edges(&pairs[e - 1], &pairs[e]) != 0;
    free(pairs);
    return n;
}

static cm_status fill_pbqp(const cm_ov_costgraph *cg, cm_pbqp *p, cm_error *err)
{
    for (int n = 0; n < cg->n_nodes; n++)
        for (int x = 0; x < cg->nodes[n].n_options; x++)
            cm_pbqp_costs(p, n)[x] = cm_ov_node_cost(cg, n, x);
    double *m = NULL;
    cm_status st = CM_OK;
    for (int e = 0; st == CM_OK && e < cg->n_edges; e++) {
        int dx = cg->nodes[cg->edges[e].from].n_options, dy = cg->nodes[cg->edges[e].to].n_options;
        double *grown = realloc(m, (size_t)dx * (size_t)dy * sizeof *m);
        if (!grown) {
            st = cm_error_nomem(err);
            break;
        }
        m = grown;
        for (int x = 0; x < dx; x++)
            for (int y = 0; y < dy; y++)
                m[x * dy + y] = cm_ov_edge_cost(cg, e, x, y);
        st = cm_pbqp_add_edge(p, cg->edges[e].from, cg->edges[e].to, m, err);
    }
    free(m);
    return st;
}

cm_status cm_ov_costgraph_pbqp(const cm_ov_costgraph *cg, cm_pbqp **out, cm_error *err)
{
    int *domain = cm_ov_calloc(cg->n_nodes, sizeof *domain);
    if (!domain)
        return cm_error_nomem(err);
    for (int n = 0; n < cg->n_nodes; n++)
        domain[n] = cg->nodes[n].n_options;
    cm_status st = cm_pbqp_new(cg->n_nodes, domain, out, err);
    free(domain);
    if (st == CM_OK && (st = fill_pbqp(cg, *out, err)) != CM_OK) {
        cm_pbqp_free(*out);
        *out = NULL;
    }
    return st;
}

void cm_ov_node_name(const cm_ov_costgraph *cg, int n, char *buf, size_t size)
{
    const cm_ov_node *v = &cg->nodes[n];
    if (v->input >= 0)
        snprintf(buf, size, "input '%s'", cg->g->inputs[v->input].name);
    else if (v->is_format && cg->g->layers[v->layer].op != CM_OP_CONCAT)
        snprintf(buf, size, "store after '%s'", cg->g->layers[v->layer].name);
    else
        snprintf(buf, size, "'%s'", cg->g->layers[v->layer].name);
}
