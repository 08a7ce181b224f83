/* fpgaConvNet layers as chains of tasks, one per module of
 * ../shared/docs/backend-models.md 2.2-2.4 (SlidingWindow, Fork, Conv, Accum, Glue,
 * Bias; SlidingWindow and Pool; one task for the pointwise and merging layers).
 *
 * The coarse_in x coarse_out parallel instances of a module run in lockstep (the same
 * program on each stream), so each module is one task whose iterations move the words of
 * all its streams at once, and one token per output pixel (per padded input pixel for
 * the sliding window) passes between the modules of a layer. An iteration lasts what
 * the module's rate gives that pixel on one stream: ch = C/coarse_in cycles for the
 * sliding window and the fork, ch*f*(k*k/fine)/groups for the conv (f = F/coarse_out),
 * ch*f/groups for the accumulator, f for glue and bias; where that is not a whole number
 * (grouped convolutions) the cycles of an output row are spread over its pixels. The
 * inner product streams its input one beat (coarse_in words) per iteration, each beat
 * taking f cycles in the conv and the accumulator. Modules the model zeroes (fork with
 * coarse_out 1, accum with one channel per stream, glue with coarse_in 1, bias without a
 * bias) are left out; the sliding window is left out for a 1x1, stride-1, unpadded
 * window, where it passes words through.
 *
 * The sliding window walks the padded map, one pixel of ch cycles per position, reading
 * the real positions and emitting a window where one ends; its line-buffer fill is the
 * (extent-1) rows and columns it reads before the first window. The conv writes a
 * pixel's partial sums when its work on the pixel ends (latency = its cycles); the other
 * modules write one cycle after they start.
 *
 * A resize walks its output as its model does (cm_resize_axis, st_resize_walk), ch
 * cycles a pixel. */
#include "sim/sim_streaming.h"

#include <stdlib.h>

/* One axis of a sliding window: positions walked (padded), which are real, and how many
 * windows end at each. */
typedef struct fcn_axis {
    int64_t len;
    int64_t *real, *ends;
} fcn_axis;

static void axis_free(fcn_axis *a)
{
    free(a->real);
    free(a->ends);
}

/* The importer's geometry (as cm_fcn_layer_cost reads it): window extent d*(k-1)+1 and
 * an end pad raised to what the last window reads (ceil_mode). */
static bool axis_make(const cm_fcn_layer *l, int i, fcn_axis *a)
{
    const int64_t n = i == 0 ? l->rows : l->cols, s = l->stride[i];
    const int64_t d = l->dilation[i] > 0 ? l->dilation[i] : 1;
    const int64_t extent = d * (l->kernel[i] - 1) + 1;
    const int64_t out = i == 0 ? cm_fcn_rows_out(l) : cm_fcn_cols_out(l);
    const int64_t before = l->pad[i];
    int64_t after = l->pad[i + 2];
    if ((out - 1) * s + extent - n - before > after)
        after = (out - 1) * s + extent - n - before;
    a->len = n + before + after;
    a->ends = st_window_ends(n, before, after, extent, s, out, true);
    a->real = calloc((size_t)(a->len > 0 ? a->len : 1), sizeof *a->real);
    if (!a->ends || !a->real)
        return false;
    for (int64_t p = before; p < before + n && p < a->len; p++)
        a->real[p] = 1;
    return true;
}

/* SlidingWindow over ch channels per stream: one iteration of ch cycles per padded
 * position. */
static bool fcn_window(st_chain *c, const cm_fcn_layer *l, int64_t ch)
{
    st_ops *o = st_task_add(c, "window", "window");
    fcn_axis r = {0}, k = {0};
    bool ok = o && axis_make(l, 0, &r) && axis_make(l, 1, &k);
    if (ok) {
        st_grid g = {r.len, k.len, ch, 1, r.real, k.real, r.ends, k.ends};
        st_grid_walk(o, &g);
    }
    axis_free(&r);
    axis_free(&k);
    return ok;
}

static bool needs_window(const cm_fcn_layer *l)
{
    return l->kernel[0] > 1 || l->kernel[1] > 1 || l->stride[0] > 1 || l->stride[1] > 1 ||
           l->pad[0] || l->pad[1] || l->pad[2] || l->pad[3];
}

/* One task per output row loop of `rows` rows of `cols` pixels, `num / den` cycles per
 * pixel (rounded up per row). */
static bool per_pixel(st_chain *c, const char *name, int64_t rows, int64_t cols, int64_t num,
                      int64_t den, bool at_end)
{
    st_ops *o = st_task_add(c, name, name);
    if (!o)
        return false;
    int at = st_loop(o, rows);
    st_run_spread(o, cols, (cols * num + den - 1) / den, at_end, 1, 1);
    st_end(o, at);
    return true;
}

/* (2.4a) SlidingWindow -> Fork -> Conv -> Accum -> Glue -> Bias. */
static bool fcn_conv(st_chain *c, const cm_fcn_layer *l)
{
    const int64_t ci = l->coarse_in, co = l->coarse_out, g = l->groups;
    const int64_t ch = l->channels / ci, f = l->filters / co;
    const int64_t kk = (int64_t)l->kernel[0] * l->kernel[1];
    const int64_t ro = cm_fcn_rows_out(l), cols = cm_fcn_cols_out(l);
    bool ok = true;
    if (needs_window(l))
        ok = fcn_window(c, l, ch);
    if (ok && co > 1)
        ok = per_pixel(c, "fork", ro, cols, ch, 1, false);
    c->main_task = c->n;
    ok = ok && per_pixel(c, "conv", ro, cols, ch * f * kk, g * l->fine, true);
    if (ok && ch > 1)
        ok = per_pixel(c, "accum", ro, cols, ch * f, g, false);
    if (ok && ci > 1)
        ok = per_pixel(c, "glue", ro, cols, f, 1, false);
    if (ok && l->has_bias)
        ok = per_pixel(c, "bias", ro, cols, f, 1, false);
    c->in_words[0] = l->channels;
    c->out_words = l->filters;
    return ok;
}

/* (2.4c) Fork -> Conv -> Accum -> Glue -> Bias over the flattened input, one beat of
 * coarse_in words per iteration; the accumulator's sums leave after the last beat. */
static bool fcn_inner_product(st_chain *c, const cm_fcn_layer *l)
{
    const int64_t ci = l->coarse_in, co = l->coarse_out, f = l->filters / co;
    const int64_t beats = (int64_t)l->rows * l->cols * l->channels / ci;
    st_ops *o;
    if (!(o = st_task_add(c, "fork", "fork")))
        return false;
    st_run(o, beats, 1, 1, 1, 1);
    c->main_task = c->n;
    if (!(o = st_task_add(c, "conv", "conv")))
        return false;
    st_run(o, beats, f, f, 1, 1);
    if (beats > 1) {
        if (!(o = st_task_add(c, "accum", "accum")))
            return false;
        st_run(o, beats - 1, f, 1, 1, 0);
        st_run(o, 1, f, 1, 1, 1);
    }
    if (ci > 1) {
        if (!(o = st_task_add(c, "glue", "glue")))
            return false;
        st_run(o, 1, f, 1, 1, 1);
    }
    if (l->has_bias) {
        if (!(o = st_task_add(c, "bias", "bias")))
            return false;
        st_run(o, 1, f, 1, 1, 1);
    }
    c->in_words[0] = ci;
    c->out_words = l->filters;
    return true;
}

/* (2.4d) SlidingWindow -> Pool. */
static bool fcn_pool(st_chain *c, const cm_fcn_layer *l)
{
    const int64_t ch = l->channels / l->coarse_in;
    bool ok = fcn_window(c, l, ch);
    c->main_task = c->n;
    ok = ok && per_pixel(c, "pool", cm_fcn_rows_out(l), cm_fcn_cols_out(l), ch, 1, false);
    c->in_words[0] = c->out_words = l->channels;
    return ok;
}

/* The whole map accumulated per channel; the sums leave with the last pixel. */
static bool fcn_global_pool(st_chain *c, const cm_fcn_layer *l)
{
    const int64_t ch = l->channels / l->coarse_in, pixels = (int64_t)l->rows * l->cols;
    st_ops *o = st_task_add(c, "", "pool");
    if (!o)
        return false;
    st_run(o, pixels - 1, ch, 1, 1, 0);
    st_run(o, 1, ch, 1, 1, 1);
    c->in_words[0] = c->out_words = l->channels;
    return true;
}

static bool fcn_resize(st_chain *c, const cm_fcn_layer *l)
{
    st_ops *o = st_task_add(c, "", "resize");
    if (!o || !st_resize_walk(o, &l->resize[0], &l->resize[1], l->channels / l->coarse_in))
        return false;
    c->in_words[0] = c->out_words = l->channels;
    return true;
}

/* Pointwise, element-wise, split and concat layers: one pixel (channels/coarse cycles)
 * per iteration; a concat reads its inputs' channels in turn, an element-wise layer an
 * input of one pixel (a broadcast) once. */
static bool fcn_pointwise(st_chain *c, const cm_design *d, int node, const cm_fcn_layer *l)
{
    const cm_hd_node *n = &d->hd.nodes[node];
    const int64_t coarse = l->coarse_in, pixels = (int64_t)l->rows * l->cols;
    static const char *const kinds[] = {
        [CM_FCN_RELU] = "relu", [CM_FCN_SQUEEZE] = "squeeze", [CM_FCN_SPLIT] = "fork",
        [CM_FCN_ELTWISE] = "eltwise", [CM_FCN_CONCAT] = "concat", [CM_FCN_RESIZE] = "resize",
    };
    st_ops *o = st_task_add(c, "", kinds[l->kind]);
    if (!o)
        return false;
    c->n_in = n->n_pred > 0 ? n->n_pred : 1;
    if (n->flags & CM_HD_MAP_BUFFER) { /* the map read (summed), then written */
        c->in_words[0] = l->channels;
        st_run(o, pixels, l->channels / coarse, 1, 1, 0);
        st_run(o, pixels, l->channels / coarse, 1, 0, 1);
    } else if (l->kind != CM_FCN_CONCAT) {
        for (int p = 0; p < c->n_in; p++)
            c->in_words[p] = l->channels;
        st_run_pixels(o, d, node, c->n_in, pixels, l->channels / coarse);
    } else {
        const cm_layer *gl = &d->graph->layers[n->layer];
        int at = st_loop(o, pixels);
        for (int p = 0; p < c->n_in; p++) {
            cm_source s = p < gl->n_inputs ? gl->inputs[p] : gl->inputs[0];
            int64_t cp = CM_SOURCE_IS_INPUT(s) ? d->graph->inputs[CM_SOURCE_INPUT_INDEX(s)].shape.c
                                               : d->graph->layers[s].out_shape.c;
            c->in_words[p] = cp;
            int64_t one[SIM_MAX_PORTS] = {0};
            one[p] = 1;
            st_run_ports(o, 1, cp / coarse, 1, one, c->n_in, p == c->n_in - 1);
        }
        st_end(o, at);
    }
    c->out_words = l->channels;
    /* A slice (a pointwise node) reads every channel and writes its range. */
    if (l->kind == CM_FCN_RELU && d->graph->layers[n->layer].op == CM_OP_SLICE)
        c->out_words = d->graph->layers[n->layer].out_shape.c;
    return true;
}

cm_status st_chain_fpgaconvnet(const cm_design *d, int node, st_chain *c, cm_error *err)
{
    const cm_hd_node *n = &d->hd.nodes[node];
    const cm_node_state *s = &d->state[node];
    cm_fcn_layer l = n->hw.fcn;
    l.coarse_in = (int)s->fold[CM_FOLD_IN];
    l.coarse_out = (int)s->fold[CM_FOLD_OUT];
    l.fine = (int)s->fold[CM_FOLD_KERNEL];
    if (l.coarse_in < 1 || l.coarse_out < 1 || l.fine < 1 || l.channels % l.coarse_in ||
        (l.kind == CM_FCN_CONV || l.kind == CM_FCN_INNER_PRODUCT ? l.filters % l.coarse_out
                                                                 : l.coarse_out != l.coarse_in))
        return cm_error_set(err, CM_EINPUT, "node %s: its folding (%d, %d, %d) cannot be laid "
                            "out as tasks (coarse factors must divide the channels, and be equal "
                            "where the layer passes channels through)", n->name, l.coarse_in,
                            l.coarse_out, l.fine);
    if (n->n_pred > SIM_MAX_PORTS)
        return cm_error_set(err, CM_EINPUT, "node %s: %d inputs, more than the simulation's "
                            "tasks can read (%d)", n->name, n->n_pred, SIM_MAX_PORTS);
    c->n_in = 1;
    c->beat_in = l.coarse_in;
    c->beat_out = l.coarse_out;
    bool ok;
    switch (l.kind) {
    case CM_FCN_CONV: ok = fcn_conv(c, &l); break;
    case CM_FCN_INNER_PRODUCT: ok = fcn_inner_product(c, &l); break;
    case CM_FCN_POOL: ok = fcn_pool(c, &l); break;
    case CM_FCN_GLOBAL_POOL: ok = fcn_global_pool(c, &l); break;
    case CM_FCN_RESIZE: ok = fcn_resize(c, &l); break;
    default: ok = fcn_pointwise(c, d, node, &l); break;
    }
    return ok ? CM_OK : cm_error_nomem(err);
}
