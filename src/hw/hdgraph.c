/* The HD-graph container and what the three backend parsers share: node and edge
 * storage, divisor lists, bit-width defaults, fork bookkeeping, and the dispatch from
 * a node to its backend's cost model. */
#include "hw/hdgraph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cm_hd_node *cm_hd_add_node(cm_hdgraph *h, const char *name, const char *op, int layer)
{
    if (h->n_nodes == h->cap_nodes) {
        int cap = h->cap_nodes ? 2 * h->cap_nodes : 16;
        cm_hd_node *nodes = realloc(h->nodes, (size_t)cap * sizeof *nodes);
        if (!nodes)
            return NULL;
        h->nodes = nodes;
        h->cap_nodes = cap;
    }
    cm_hd_node *n = &h->nodes[h->n_nodes];
    memset(n, 0, sizeof *n);
    n->name = strdup(name);
    if (!n->name)
        return NULL;
    n->op = op;
    n->backend = h->backend;
    n->layer = layer;
    n->kernel_size = 1;
    n->bits_in = n->bits_out = 16;
    h->n_nodes++;
    return n;
}

static bool append_index(int **list, int *count, int value)
{
    int *grown = realloc(*list, (size_t)(*count + 1) * sizeof *grown);
    if (!grown)
        return false;
    grown[(*count)++] = value;
    *list = grown;
    return true;
}

cm_status cm_hd_connect(cm_hdgraph *h, int from, int to, cm_error *err)
{
    cm_hd_node *a = &h->nodes[from], *b = &h->nodes[to];
    for (int i = 0; i < a->n_succ; i++)
        if (a->succ[i] == to)
            return CM_OK; /* an add of a feature map with itself is one stream pair */
    if (!append_index(&a->succ, &a->n_succ, to) || !append_index(&b->pred, &b->n_pred, from))
        return cm_error_nomem(err);
    return CM_OK;
}

cm_status cm_hd_values_copy(cm_hd_values *vals, const int64_t *v, int count, cm_error *err)
{
    free(vals->v);
    vals->v = malloc((size_t)(count > 0 ? count : 1) * sizeof *vals->v);
    if (!vals->v)
        return cm_error_nomem(err);
    memcpy(vals->v, v, (size_t)count * sizeof *v);
    vals->count = count;
    return CM_OK;
}

cm_status cm_hd_values_divisors(cm_hd_values *vals, int64_t n, cm_error *err)
{
    if (n <= 1) {
        int64_t one = 1;
        return cm_hd_values_copy(vals, &one, 1, err);
    }
    /* Divisors come in pairs (d, n/d): collect the small ones ascending and the large
     * ones descending, then join them. */
    int64_t small[4096], large[4096];
    int ns = 0, nl = 0;
    for (int64_t d = 1; d * d <= n && ns < 4096 && nl < 4096; d++)
        if (n % d == 0) {
            small[ns++] = d;
            if (d != n / d)
                large[nl++] = n / d;
        }
    int64_t all[8192];
    int count = 0;
    for (int i = 0; i < ns; i++)
        all[count++] = small[i];
    for (int i = nl - 1; i >= 0; i--)
        all[count++] = large[i];
    return cm_hd_values_copy(vals, all, count, err);
}

void cm_hdgraph_free(cm_hdgraph *h)
{
    if (!h)
        return;
    for (int i = 0; i < h->n_nodes; i++) {
        cm_hd_node *n = &h->nodes[i];
        free(n->name);
        free(n->pred);
        free(n->succ);
        for (int f = 0; f < 3; f++)
            free(n->fold[f].v);
    }
    free(h->nodes);
    memset(h, 0, sizeof *h);
}

int cm_hd_source_node(const cm_hd_build *b, cm_source s)
{
    if (CM_SOURCE_IS_INPUT(s))
        return -1;
    return b->fork_node[s] >= 0 ? b->fork_node[s] : b->out_node[s];
}

int cm_hd_act_bits(const cm_hd_build *b, const cm_quant *q)
{
    if (q->quantised && q->bits > 0)
        return q->bits;
    return b->opt->default_act_bits;
}

int cm_hd_weight_bits(const cm_hd_build *b, const cm_layer *l)
{
    if (l->weight_q.quantised && l->weight_q.bits > 0)
        return l->weight_q.bits;
    return b->opt->default_weight_bits;
}

static cm_status build_for_backend(cm_hd_build *b, cm_backend backend, cm_error *err)
{
    switch (backend) {
    case CM_BACKEND_FPGACONVNET:
        return cm_hd_build_fpgaconvnet(b, err);
    case CM_BACKEND_FINN:
        return cm_hd_build_finn(b, err);
    case CM_BACKEND_HLS4ML:
        return cm_hd_build_hls4ml(b, err);
    default:
        return cm_error_set(err, CM_EUSAGE, "backend %s has no streaming design model",
                            cm_backend_name(backend));
    }
}

/* cm_graph_consumers for every layer in one pass over the inputs. */
static void count_consumers(cm_hd_build *b)
{
    const cm_graph *g = b->g;
    for (int i = 0; i < g->n_layers; i++) {
        b->consumers[i] = 0;
        b->first_consumer[i] = -1;
    }
    for (int i = 0; i < g->n_layers; i++)
        for (int k = 0; k < g->layers[i].n_inputs; k++) {
            cm_source s = g->layers[i].inputs[k];
            if (CM_SOURCE_IS_INPUT(s) || s >= i)
                continue; /* a graph input, or not a layer before it (as cm_graph_consumers) */
            if (b->consumers[s]++ == 0)
                b->first_consumer[s] = i;
        }
}

cm_status cm_hdgraph_build(const cm_graph *g, cm_backend backend, const cm_hd_options *o,
                           cm_hdgraph *out, cm_error *err)
{
    memset(out, 0, sizeof *out);
    out->backend = backend;
    size_t n = (size_t)(g->n_layers > 0 ? g->n_layers : 1);
    cm_hd_build b = {.g = g, .opt = o, .h = out};
    b.out_node = malloc(n * sizeof *b.out_node);
    b.fork_node = malloc(n * sizeof *b.fork_node);
    b.consumers = malloc(n * sizeof *b.consumers);
    b.first_consumer = malloc(n * sizeof *b.first_consumer);
    b.counter = calloc(64, sizeof *b.counter);
    cm_status st = CM_OK;
    if (!b.out_node || !b.fork_node || !b.consumers || !b.first_consumer || !b.counter) {
        st = cm_error_nomem(err);
    } else {
        for (size_t i = 0; i < n; i++)
            b.out_node[i] = b.fork_node[i] = -1;
        count_consumers(&b);
        st = build_for_backend(&b, backend, err);
    }
    if (st == CM_OK && out->n_nodes == 0)
        st = cm_error_set(err, CM_EINPUT, "the model has no layer that maps onto %s hardware",
                          cm_backend_name(backend));
    free(b.out_node);
    free(b.fork_node);
    free(b.consumers);
    free(b.first_consumer);
    free(b.counter);
    if (st != CM_OK)
        cm_hdgraph_free(out);
    return st;
}

static void finn_cost(const cm_hd_node *n, int64_t in, int64_t out, cm_block_cost *c)
{
    cm_finn_node f = n->hw.finn;
    f.simd = (int)in;
    f.pe = (int)out;
    cm_finn_node_cost(&f, c);
    /* FINN v0.6 counts URAM for const-mode weights whatever the RAM style (sic); a
     * block-RAM design uses none, so only an ultra RAM style keeps it. */
    if (f.ram_style != CM_FINN_RAM_ULTRA)
        c->res.uram = 0;
}

/* A pixel buffer (CM_HD_PIXEL_BUFFER): two pixels of `channels` words in BRAM18 (18 Kib each),
 * in at least one bank per two streams, as each stream writes a word a cycle into a
 * dual-port bank; and the pixel it holds before its first output. With a stream per
 * channel every word of a pixel is there at once and no buffer is needed. */
static void pixel_buffer_cost(int64_t channels, int64_t coarse, int width, cm_block_cost *out)
{
    if (coarse >= channels)
        return;
    int64_t bits = 2 * channels * width, banks = (coarse + 1) / 2;
    int64_t brams = (bits + 18431) / 18432;
    out->res.bram18 += brams > banks ? brams : banks;
    out->pipeline_depth += (double)channels / (double)coarse;
    out->timing.fill_words += (double)channels;
    out->timing.fill_cycles += (double)channels / (double)coarse;
}

/* A map buffer (CM_HD_MAP_BUFFER): each stream holds its channels of the whole map,
 * reading it (summing) and then writing it, W / coarse cycles each. */
static void map_buffer_cost(const cm_fcn_layer *l, cm_block_cost *out)
{
    const int64_t ch = l->channels / l->coarse_in, pixels = (int64_t)l->rows * l->cols;
    const double words = (double)pixels * (double)l->channels, read = words / l->coarse_in;
    out->cycles = 2.0 * read;
    out->res.bram18 += cm_fcn_bram_mem(pixels * ch, l->data_width) * l->coarse_in;
    cm_block_timing_map(&out->timing, read, words, l->channels, l->coarse_in);
}

void cm_hd_node_cost(const cm_hd_node *n, int64_t fold_in, int64_t fold_out, int64_t fold_kernel,
                     cm_block_cost *out)
{
    switch (n->backend) {
    case CM_BACKEND_FPGACONVNET: {
        cm_fcn_layer l = n->hw.fcn;
        l.coarse_in = (int)fold_in;
        l.coarse_out = (int)fold_out;
        l.fine = (int)fold_kernel;
        cm_fcn_layer_cost(&l, out);
        if (n->flags & CM_HD_PIXEL_BUFFER)
            pixel_buffer_cost(l.channels, l.coarse_in, l.data_width, out);
        if (n->flags & CM_HD_MAP_BUFFER)
            map_buffer_cost(&l, out);
        if (n->flags & CM_HD_NORMALISE)
            out->res.dsp += 2.0 * (double)l.coarse_in;
        return;
    }
    case CM_BACKEND_FINN:
        finn_cost(n, fold_in, fold_out, out);
        return;
    case CM_BACKEND_HLS4ML: {
        cm_hls4ml_layer l = n->hw.hls;
        l.kernel_fold = fold_kernel;
        cm_hls4ml_layer_cost(&l, out);
        return;
    }
    default:
        memset(out, 0, sizeof *out);
        return;
    }
}

bool cm_hd_is_broadcast_merge(const cm_layer *l)
{
    return (l->op == CM_OP_ADD || l->op == CM_OP_MUL) && l->n_inputs > 1 &&
           l->in_shape.h * l->in_shape.w < l->out_shape.h * l->out_shape.w;
}

int cm_hd_add_layer_node(cm_hd_build *b, int li, const char *name, const char *op)
{
    const cm_layer *l = &b->g->layers[li];
    cm_hd_node *n = cm_hd_add_node(b->h, name, op, li);
    if (!n)
        return -1;
    n->channels_in = (int)l->in_shape.c;
    n->channels_out = (int)l->out_shape.c;
    n->size_in = l->in_shape.c * l->in_shape.h * l->in_shape.w;
    n->size_out = l->out_shape.c * l->out_shape.h * l->out_shape.w;
    /* an element-wise merge works over its output's map: its first input may be one
     * pixel broadcast over the others (squeeze-excitation's scale * x) */
    if (cm_hd_is_broadcast_merge(l))
        n->size_in = n->size_out;
    return b->h->n_nodes - 1;
}

cm_status cm_hd_connect_inputs(cm_hd_build *b, int li, int to, cm_error *err)
{
    const cm_layer *l = &b->g->layers[li];
    for (int i = 0; i < l->n_inputs; i++) {
        int from = cm_hd_source_node(b, l->inputs[i]);
        if (from < 0)
            continue;
        cm_status st = cm_hd_connect(b->h, from, to, err);
        if (st != CM_OK)
            return st;
    }
    return CM_OK;
}

void cm_hd_pass_through(cm_hd_build *b, int li)
{
    const cm_layer *l = &b->g->layers[li];
    b->out_node[li] = l->n_inputs > 0 ? cm_hd_source_node(b, l->inputs[0]) : -1;
}

cm_status cm_hd_values_intra(cm_hd_node *n, int64_t c, cm_error *err)
{
    cm_status st = cm_hd_values_divisors(&n->fold[0], c, err);
    if (st == CM_OK)
        st = cm_hd_values_divisors(&n->fold[1], c, err);
    if (st == CM_OK)
        st = cm_hd_values_divisors(&n->fold[2], 1, err);
    n->flags |= CM_HD_INTRA;
    return st;
}

int cm_hd_consumers(const cm_hd_build *b, int li)
{
    return b->consumers[li];
}

int cm_hd_first_consumer(const cm_hd_build *b, int li)
{
    return b->first_consumer[li];
}


void cm_hd_numbered_name(cm_hd_build *b, int prefix_id, const char *prefix, char *out,
                         size_t size)
{
    snprintf(out, size, "%s_%d", prefix, b->counter[prefix_id]++);
}

cm_status cm_hd_unsupported(const cm_hd_build *b, int li, cm_error *err)
{
    const cm_layer *l = &b->g->layers[li];
    return cm_error_set(err, CM_EINPUT, "layer %s (%s) has no %s building block", l->name,
                        cm_op_name(l->op), cm_backend_name(b->h->backend));
}

int cm_hd_node_params(const cm_hd_node *n, const int64_t fold[3], cm_hd_param out[3])
{
    switch (n->backend) {
    case CM_BACKEND_FPGACONVNET: return cm_hd_fpgaconvnet_params(n, fold, out);
    case CM_BACKEND_FINN: return cm_hd_finn_params(n, fold, out);
    case CM_BACKEND_HLS4ML: return cm_hd_hls4ml_params(n, fold, out);
    default: return 0;
    }
}
