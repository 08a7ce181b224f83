/* FIFO depths recorded in a streaming design and their memory, costed as each
 * backend's tools implement a FIFO of that depth. The simulation counts a stream
 * between two nodes in data words (one tensor element, the producer's bits_out bits);
 * the hardware moves `lanes` words per beat, so a FIFO of D words is ceil(D / lanes)
 * beats deep.
 *
 * FINN (finn/custom_op/fpgadataflow/streamingfifo.py; InsertAndSetFIFODepths with its
 * max_qsrl_depth = 256): one StreamingFIFO of width W = lanes x bits. Up to 256 beats
 * it is impl_style "rtl" (Q_srl, shift registers): 2 ceil(log2 depth) address LUTs plus
 * ceil(depth / 32) x ceil(W / 2) LUTs, no BRAM. Deeper it is impl_style "vivado" (the
 * FIFO generator) in block RAM: BRAM18 by streamingfifo.py's bram_estimation table
 * (W = 1: ceil(depth / 16384); W = 2: ceil(depth / 8192); W <= 4: ceil(depth / 4096) x
 * ceil(W / 4); W <= 9: ceil(depth / 2048) x ceil(W / 9); W <= 18 or depth > 512:
 * ceil(depth / 1024) x ceil(W / 18); else ceil(depth / 512) x ceil(W / 36)) plus the
 * address LUTs.
 *
 * fpgaConvNet and hls4ml (HLS streams, Vivado/Vitis HLS's config_storage fifo defaults
 * auto_srl_max_depth = 2 and auto_srl_max_bits = 1024): a FIFO of at most 2 entries or
 * at most 1024 bits is shift registers, ceil(depth / 32) LUTs per bit (SRLC32E); a
 * larger one is block RAM, by the same BRAM18 table. fpgaConvNet streams each of its
 * coarse lanes on its own (lanes FIFOs of one word's width); hls4ml's io_stream packs a
 * whole pixel into one entry (one FIFO of lanes x bits).
 *
 * Only streams between two nodes are costed: streams inside a node (between its
 * modules) are simulated a pixel per token, not at the width and depth of the
 * hardware's module streams, and the streams at a partition's edge are the off-chip
 * interface, which the model assumes keeps pace. */
#include "design/fifo_cost.h"

#include <stdlib.h>
#include <string.h>

static int64_t ceil_div(int64_t a, int64_t b)
{
    return b > 0 ? (a + b - 1) / b : a;
}

static int64_t ceil_log2(int64_t v)
{
    int64_t bits = 0;
    while ((INT64_C(1) << bits) < v && bits < 62)
        bits++;
    return bits;
}

/* BRAM18 for a memory of `depth` entries of `w` bits (streamingfifo.py's table). */
static int64_t bram18_for(int64_t depth, int64_t w)
{
    if (w <= 1)
        return ceil_div(depth, 16384);
    if (w == 2)
        return ceil_div(depth, 8192);
    if (w <= 4)
        return ceil_div(depth, 4096) * ceil_div(w, 4);
    if (w <= 9)
        return ceil_div(depth, 2048) * ceil_div(w, 9);
    if (w <= 18 || depth > 512)
        return ceil_div(depth, 1024) * ceil_div(w, 18);
    return ceil_div(depth, 512) * ceil_div(w, 36);
}

#define FINN_MAX_QSRL_DEPTH 256
#define HLS_AUTO_SRL_MAX_DEPTH 2
#define HLS_AUTO_SRL_MAX_BITS 1024

static void finn_fifo(int64_t depth, int64_t w, cm_resources *out)
{
    out->lut = 2 * ceil_log2(depth);
    if (depth <= FINN_MAX_QSRL_DEPTH)
        out->lut += ceil_div(depth, 32) * ceil_div(w, 2);
    else
        out->bram18 = bram18_for(depth, w);
}

static void hls_fifo(int64_t depth, int64_t w, cm_resources *out)
{
    if (depth <= HLS_AUTO_SRL_MAX_DEPTH || depth * w <= HLS_AUTO_SRL_MAX_BITS)
        out->lut = ceil_div(depth, 32) * w;
    else
        out->bram18 = bram18_for(depth, w);
}

void cm_fifo_cost_one(cm_backend backend, int64_t depth_words, int64_t bits, int64_t lanes,
                      cm_resources *out)
{
    memset(out, 0, sizeof *out);
    if (lanes < 1)
        lanes = 1;
    const int64_t beats = ceil_div(depth_words, lanes);
    switch (backend) {
    case CM_BACKEND_FINN:
        finn_fifo(beats, lanes * bits, out);
        break;
    case CM_BACKEND_FPGACONVNET: {
        cm_resources one = {0};
        hls_fifo(beats, bits, &one);
        out->lut = one.lut * lanes;
        out->bram18 = one.bram18 * lanes;
        break;
    }
    default:
        hls_fifo(beats, lanes * bits, out);
        break;
    }
}

/* hls4ml's io_stream entry: a pixel of the layer's output (input), or the whole vector
 * for a layer without a spatial input. */
static int64_t hls4ml_pixel(const cm_design *d, int i, bool out)
{
    const cm_hd_node *n = &d->hd.nodes[i];
    const cm_layer *l = &d->graph->layers[n->layer];
    if (n->hw.hls.spatial <= 1 && !n->hw.hls.resizes)
        return out ? n->size_out : n->size_in;
    return out ? l->out_shape.c : l->in_shape.c;
}

static int64_t lanes_of(const cm_design *d, int i, bool out)
{
    const cm_hd_node *n = &d->hd.nodes[i];
    int64_t v;
    switch (d->hd.backend) {
    case CM_BACKEND_FINN:
        v = n->hw.finn.kind == CM_FINN_MAXPOOL || n->hw.finn.kind == CM_FINN_UPSAMPLE
                ? n->hw.finn.channels
                : d->state[i].fold[out ? CM_FOLD_OUT : CM_FOLD_IN];
        break;
    case CM_BACKEND_FPGACONVNET:
        v = d->state[i].fold[out ? CM_FOLD_OUT : CM_FOLD_IN];
        break;
    default:
        v = hls4ml_pixel(d, i, out);
        break;
    }
    return v > 0 ? v : 1;
}

int64_t cm_fifo_lanes_out(const cm_design *d, int u) { return lanes_of(d, u, true); }
int64_t cm_fifo_lanes_in(const cm_design *d, int v) { return lanes_of(d, v, false); }

void cm_fifo_cost_add(const cm_design *d, int p, cm_resources *acc)
{
    const cm_fifo_set *f = d->fifo;
    for (int i = 0; f && i < f->n; i++) {
        const int u = f->node[i];
        if (u < 0 || d->part_of[u] != p || d->part_of[f->succ[i]] != p)
            continue;
        cm_resources r;
        cm_fifo_cost_one(d->hd.backend, f->depth[i], d->hd.nodes[u].bits_out,
                         cm_fifo_lanes_out(d, u), &r);
        cm_resources_add(acc, &r);
    }
}

/* The edge u -> v whose stream the simulation names "u->v", or false. */
static bool edge_of(const cm_design *d, const char *name, int *u_out, int *v_out)
{
    const char *arrow = strstr(name, "->");
    while (arrow) {
        size_t len = (size_t)(arrow - name);
        for (int u = 0; u < d->hd.n_nodes; u++) {
            const cm_hd_node *n = &d->hd.nodes[u];
            if (strlen(n->name) != len || strncmp(n->name, name, len) != 0)
                continue;
            for (int k = 0; k < n->n_succ; k++)
                if (strcmp(d->hd.nodes[n->succ[k]].name, arrow + 2) == 0) {
                    *u_out = u;
                    *v_out = n->succ[k];
                    return true;
                }
        }
        arrow = strstr(arrow + 1, "->");
    }
    return false;
}

void cm_fifo_set_free(cm_fifo_set *f)
{
    if (!f)
        return;
    for (int i = 0; f->name && i < f->n; i++)
        free(f->name[i]);
    free(f->name);
    free(f->depth);
    free(f->node);
    free(f->succ);
    free(f);
}

static void refresh_parts(cm_design *d)
{
    for (int p = 0; p < d->n_parts; p++)
        cm_design_part_refresh(d, p);
}

static cm_status fill_set(const cm_design *d, cm_fifo_set *f, const char *const *names,
                          const int64_t *depths, cm_error *err)
{
    for (int i = 0; i < f->n; i++) {
        if (depths[i] < 1 || depths[i] > CM_FIFO_DEPTH_MAX)
            return cm_error_set(err, CM_EINPUT, "stream %s: a FIFO depth must be 1 to %lld words, "
                                "not %lld", names[i], (long long)CM_FIFO_DEPTH_MAX,
                                (long long)depths[i]);
        if (!(f->name[i] = strdup(names[i])))
            return cm_error_nomem(err);
        f->depth[i] = depths[i];
        f->node[i] = f->succ[i] = -1;
        int u, v;
        if (edge_of(d, names[i], &u, &v)) {
            f->node[i] = u;
            f->succ[i] = v;
        }
    }
    return CM_OK;
}

cm_status cm_design_set_fifo_depths(cm_design *d, const char *const *names,
                                    const int64_t *depths, int n, cm_error *err)
{
    cm_fifo_set *f = NULL;
    cm_status st = CM_OK;
    if (n > 0) {
        f = calloc(1, sizeof *f);
        if (f) {
            f->n = n;
            f->name = calloc((size_t)n, sizeof *f->name);
            f->depth = calloc((size_t)n, sizeof *f->depth);
            f->node = calloc((size_t)n, sizeof *f->node);
            f->succ = calloc((size_t)n, sizeof *f->succ);
        }
        st = f && f->name && f->depth && f->node && f->succ ? fill_set(d, f, names, depths, err)
                                                           : cm_error_nomem(err);
    }
    if (st != CM_OK) {
        cm_fifo_set_free(f);
        return st;
    }
    cm_fifo_set_free(d->fifo);
    d->fifo = f;
    refresh_parts(d);
    return CM_OK;
}

const cm_fifo_set *cm_design_fifo_depths(const cm_design *d)
{
    return d->fifo;
}

int64_t cm_design_fifo_depth(const cm_design *d, const char *name)
{
    for (int i = 0; d->fifo && i < d->fifo->n; i++)
        if (strcmp(d->fifo->name[i], name) == 0)
            return d->fifo->depth[i];
    return 0;
}
