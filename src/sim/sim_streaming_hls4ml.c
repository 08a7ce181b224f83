/* hls4ml io_stream layers as tasks, one task per node, with the cycles of SAMO's model
 * (../shared/docs/backend-models.md section 4.3).
 *
 * One iteration per input pixel (the whole vector for a layer with no spatial
 * input), lasting the reuse factor for Dense/Conv (each pixel's multiplications, as
 * SAMO's spatial x RF counts them) and one cycle for the other layers; a convolution or
 * pooling writes the output pixels whose window that input pixel completes (a window
 * ending in padding completes with the last real row or column). A resize walks its
 * output a pixel a cycle as its model does (cm_resize_axis, st_resize_walk). */
#include "sim/sim_streaming.h"

#include <stdlib.h>

/* Outputs completed per input position along one axis of a layer's window. */
static int64_t *hls_ends(const cm_layer *l, int i, bool windowed)
{
    const int64_t n = i == 0 ? l->in_shape.h : l->in_shape.w;
    const int64_t out = i == 0 ? l->out_shape.h : l->out_shape.w;
    if (!windowed)
        return st_window_ends(n, 0, 0, 1, 1, out, false);
    const int64_t d = l->dilation[i] > 0 ? l->dilation[i] : 1;
    const int64_t s = l->stride[i] > 0 ? l->stride[i] : 1;
    return st_window_ends(n, l->pad[i], l->pad[i + 2], d * (l->kernel[i] - 1) + 1, s, out, false);
}

/* A layer over the input map, one iteration of ii cycles per pixel. */
static bool hls_map(st_ops *o, const cm_layer *l, bool windowed, int64_t ii)
{
    const int64_t rows = l->in_shape.h, cols = l->in_shape.w;
    int64_t *er = hls_ends(l, 0, windowed), *ec = hls_ends(l, 1, windowed);
    int64_t *one_r = calloc((size_t)rows, sizeof *one_r), *one_c = calloc((size_t)cols, sizeof *one_c);
    bool ok = er && ec && one_r && one_c;
    if (ok) {
        for (int64_t y = 0; y < rows; y++)
            one_r[y] = 1;
        for (int64_t x = 0; x < cols; x++)
            one_c[x] = 1;
        st_grid g = {rows, cols, ii, ii, one_r, one_c, er, ec};
        st_grid_walk(o, &g);
    }
    free(er);
    free(ec);
    free(one_r);
    free(one_c);
    return ok;
}

cm_status st_chain_hls4ml(const cm_design *d, int node, st_chain *c, cm_error *err)
{
    const cm_hd_node *n = &d->hd.nodes[node];
    const cm_layer *l = &d->graph->layers[n->layer];
    cm_hls4ml_layer h = n->hw.hls;
    h.kernel_fold = d->state[node].fold[CM_FOLD_KERNEL];
    const int64_t rf = h.multiplies ? cm_hls4ml_reuse_factor(&h) : 1;
    st_ops *o = st_task_add(c, "", h.multiplies ? "mac" : "layer");
    if (!o)
        return cm_error_nomem(err);
    c->n_in = n->n_pred > 1 ? n->n_pred : 1;
    if (c->n_in > SIM_MAX_PORTS)
        return cm_error_set(err, CM_EINPUT, "node %s: more than %d inputs", n->name, SIM_MAX_PORTS);
    c->out_words = l->out_shape.c;
    c->fifo_words = h.fifo_depth * l->out_shape.c;
    int64_t rd[SIM_MAX_PORTS] = {0};
    for (int p = 0; p < c->n_in; p++) {
        rd[p] = 1;
        cm_source s = p < l->n_inputs ? l->inputs[p] : l->inputs[0];
        c->in_words[p] = CM_SOURCE_IS_INPUT(s) ? d->graph->inputs[CM_SOURCE_INPUT_INDEX(s)].shape.c
                                               : d->graph->layers[s].out_shape.c;
    }
    if (h.resizes) { /* the model's walk, a pixel a cycle */
        c->beat_in = c->beat_out = c->out_words = c->in_words[0];
        return st_resize_walk(o, &h.resize[0], &h.resize[1], 1) ? CM_OK : cm_error_nomem(err);
    }
    if (h.spatial <= 1) { /* the whole input is one vector */
        c->in_words[0] = n->size_in;
        c->out_words = n->size_out;
    }
    /* io_stream moves one pixel (or vector) per beat */
    c->beat_in = c->in_words[0];
    c->beat_out = c->out_words;
    if (h.spatial <= 1) {
        st_run_ports(o, 1, rf, rf, rd, c->n_in, 1);
        return CM_OK;
    }
    if (h.whole_map) { /* the map read, then written */
        st_run(o, h.spatial, 1, 1, 1, 0);
        st_run(o, h.spatial, 1, 1, 0, 1);
        return CM_OK;
    }
    if (h.kind == CM_HLS4ML_GLOBAL_POOL) {
        st_run(o, h.spatial - 1, 1, 1, 1, 0);
        st_run(o, 1, 1, 1, 1, 1);
        return CM_OK;
    }
    if (h.multiplies || h.kind == CM_HLS4ML_POOL)
        return hls_map(o, l, true, rf) ? CM_OK : cm_error_nomem(err);
    st_run_pixels(o, d, node, c->n_in, h.spatial, 1);
    return CM_OK;
}
