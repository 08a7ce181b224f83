/* FINN v0.6 HLS custom ops, and current FINN's StreamingConcat and ElementwiseMul, as
 * tasks, one task per node, with the cycles of ../shared/docs/backend-models.md section
 * 3.2 (finn_blocks.h for the two new ones).
 *
 * An iteration is one pixel (FMPadding, Thresholding, Duplicate, Add, GlobalAcc-
 * Pool: C/PE or C/SIMD cycles), one window tap slot of the sliding window generator
 * (C/SIMD cycles: it first reads the window's extent of rows, then per output row both
 * writes the row's windows, kh*kw taps per output pixel, and reads the stride's rows for
 * the next, taking the longer of the two, as FINN's cycle estimate counts them), one
 * input vector of an MVAU ((MH/PE) x (MW/SIMD) cycles, its outputs written when they
 * are all computed) or VVAU (kh*kw*C/PE), one output pixel of Pool_Batch (C*k*k/PE, written at its end), and
 * one input pixel per cycle of StreamingMaxPool (plus ImgDim/PoolDim output cycles per
 * row, writing after each PoolDim-th row); one pixel of StreamingConcat ((sum of its
 * inputs' channels)/SIMD cycles, a token from every input) and of ElementwiseMul (C/PE,
 * a token from both inputs, or from the map only once a broadcast vector has come with
 * the first pixel). */
#include "sim/sim_streaming.h"

#include <stdlib.h>

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* [rows, cols] of a FINN dimension pair whose cols <= 0 means square. */
static int64_t col_of(const int v[2])
{
    return v[1] > 0 ? v[1] : v[0];
}

/* FMPadding: one padded pixel per iteration, reading the real ones. */
static bool finn_padding(st_ops *o, const cm_finn_node *f, int64_t simd)
{
    const int64_t h = f->ifm_dim[0], w = col_of(f->ifm_dim);
    const int64_t rows = h + f->pad[0] + f->pad[2], cols = w + f->pad[1] + f->pad[3];
    int64_t *rr = calloc((size_t)rows, sizeof *rr), *rc = calloc((size_t)cols, sizeof *rc);
    int64_t *one_r = calloc((size_t)rows, sizeof *one_r), *one_c = calloc((size_t)cols, sizeof *one_c);
    bool ok = rr && rc && one_r && one_c;
    if (ok) {
        for (int64_t y = 0; y < rows; y++) {
            rr[y] = y >= f->pad[0] && y < f->pad[0] + h;
            one_r[y] = 1;
        }
        for (int64_t x = 0; x < cols; x++) {
            rc[x] = x >= f->pad[1] && x < f->pad[1] + w;
            one_c[x] = 1;
        }
        st_grid g = {rows, cols, f->channels / simd, 1, rr, rc, one_r, one_c};
        st_grid_walk(o, &g);
    }
    free(rr);
    free(rc);
    free(one_r);
    free(one_c);
    return ok;
}

/* ConvolutionInputGenerator: reads a pixel per slot, writes a window tap per slot. */
static void finn_swg(st_ops *o, const cm_finn_node *f, int64_t simd)
{
    const int64_t cf = f->channels / simd;
    const int64_t ifm_h = f->ifm_dim[0], ifm_w = col_of(f->ifm_dim);
    const int64_t ofm_h = f->ofm_dim[0], ofm_w = col_of(f->ofm_dim);
    const int64_t kh = f->kernel[0], kw = col_of(f->kernel);
    const int64_t s_h = f->stride[0], s_w = col_of(f->stride);
    const int64_t ext = (int64_t)(f->dilation[0] > 0 ? f->dilation[0] : 1) * (kh - 1) + 1;
    const int64_t writes = ofm_w * kh * kw, slots = max64(writes, s_w * ifm_w);
    int64_t left = ifm_h * ifm_w - ifm_w * ext; /* pixels still to read after the fill */
    st_run(o, ifm_w * ext, cf, 1, 1, 0);
    int64_t row = 0;
    while (row < ofm_h) {
        const int64_t reads = left < s_h * ifm_w ? (left > 0 ? left : 0) : s_h * ifm_w;
        int64_t same = 1; /* rows that read as much as this one */
        if (reads == 0)
            same = ofm_h - row;
        else if (reads == s_h * ifm_w)
            same = left / reads;
        if (same > ofm_h - row)
            same = ofm_h - row;
        if (same < 1)
            same = 1;
        const int64_t both = reads < writes ? reads : writes;
        int at = st_loop(o, same);
        st_run(o, both, cf, 1, 1, 1);
        st_run(o, reads - both, cf, 1, 1, 0);
        st_run(o, writes - both, cf, 1, 0, 1);
        st_run(o, slots - max64(reads, writes), cf, 1, 0, 0);
        st_end(o, at);
        left -= reads * same;
        row += same;
    }
    st_run(o, left, cf, 1, 1, 0); /* rows below the last window, read and dropped */
}

/* StreamingMaxPool: ImgDim pixel reads per row, then ImgDim/PoolDim output slots that
 * write after each PoolDim-th row. */
static void finn_maxpool(st_ops *o, const cm_finn_node *f)
{
    const int64_t img = f->ifm_dim[0], k = f->pool_dim > 0 ? f->pool_dim : 1;
    int at = st_loop(o, img / k);
    for (int64_t r = 0; r < k; r++) {
        st_run(o, img, 1, 1, 1, 0);
        st_run(o, img / k, 1, 1, 0, r == k - 1);
    }
    st_end(o, at);
}

static cm_status finn_program(const cm_design *d, int node, st_chain *c, cm_error *err)
{
    const cm_hd_node *n = &d->hd.nodes[node];
    cm_finn_node f = n->hw.finn;
    const int64_t simd = d->state[node].fold[CM_FOLD_IN], pe = d->state[node].fold[CM_FOLD_OUT];
    const int64_t C = f.channels, nv = f.num_vectors;
    const int64_t kk = (int64_t)f.kernel[0] * col_of(f.kernel);
    st_ops *o = st_task_add(c, "", "node");
    if (!o)
        return cm_error_nomem(err);
    c->in_words[0] = c->out_words = C;
    c->beat_in = simd;
    c->beat_out = pe;
    int64_t both[2] = {1, 1};
    switch (f.kind) {
    case CM_FINN_MVAU:
        st_run(o, nv, f.mh / pe * (f.mw / simd), f.mh / pe * (f.mw / simd), 1, 1);
        c->in_words[0] = f.mw;
        c->out_words = f.mh;
        break;
    case CM_FINN_VVAU:
        st_run(o, nv, kk * C / pe, kk * C / pe, 1, 1);
        c->in_words[0] = kk * C;
        break;
    case CM_FINN_SWG:
        finn_swg(o, &f, simd);
        break;
    case CM_FINN_FMPADDING:
        if (!finn_padding(o, &f, simd))
            return cm_error_nomem(err);
        break;
    case CM_FINN_THRESHOLDING:
    case CM_FINN_DUPLICATE:
        st_run(o, nv, C / pe, 1, 1, 1);
        break;
    case CM_FINN_ADD:
        c->n_in = 2;
        c->in_words[1] = C;
        st_run_ports(o, nv, C / pe, 1, both, 2, 1);
        break;
    case CM_FINN_CONCAT: {
        int64_t ones[SIM_MAX_PORTS] = {1, 1, 1, 1};
        c->n_in = f.n_inputs < SIM_MAX_PORTS ? f.n_inputs : SIM_MAX_PORTS;
        for (int p = 0; p < c->n_in; p++)
            c->in_words[p] = f.in_channels[p];
        st_run_ports(o, nv, C / simd, 1, ones, c->n_in, 1);
        c->beat_out = simd;
        break;
    }
    case CM_FINN_MUL: {
        int64_t map_only[2] = {1, 1};
        c->n_in = 2;
        c->in_words[1] = C;
        if (f.broadcast_port >= 0) {
            st_run_ports(o, 1, C / pe, 1, both, 2, 1);
            map_only[f.broadcast_port] = 0;
            st_run_ports(o, nv - 1, C / pe, 1, map_only, 2, 1);
        } else {
            st_run_ports(o, nv, C / pe, 1, both, 2, 1);
        }
        break;
    }
    case CM_FINN_MAXPOOL:
        finn_maxpool(o, &f);
        c->beat_in = c->beat_out = C; /* a pixel per cycle */
        break;
    case CM_FINN_UPSAMPLE: /* the model's walk, a pixel a cycle */
        if (!st_resize_walk(o, &f.resize[0], &f.resize[1], 1))
            return cm_error_nomem(err);
        c->beat_in = c->beat_out = C;
        break;
    case CM_FINN_POOL:
        /* a pixel's pooled values are complete when its whole window has been read */
        st_run(o, (int64_t)f.ofm_dim[0] * col_of(f.ofm_dim) * nv, C * kk / pe, C * kk / pe, 1, 1);
        c->in_words[0] = kk * C;
        break;
    case CM_FINN_GLOBALACCPOOL:
        st_run(o, nv, C / pe, 1, 1, 0);
        st_run(o, 1, C / pe, 1, 0, 1);
        break;
    default:
        return cm_error_set(err, CM_EINPUT, "node %s: no task model for FINN's %s", n->name,
                            n->op);
    }
    return CM_OK;
}

cm_status st_chain_finn(const cm_design *d, int node, st_chain *c, cm_error *err)
{
    const int64_t *fold = d->state[node].fold;
    const cm_finn_node *f = &d->hd.nodes[node].hw.finn;
    const int64_t C = f->kind == CM_FINN_MVAU ? f->mw : f->channels;
    if (fold[CM_FOLD_IN] < 1 || fold[CM_FOLD_OUT] < 1 ||
        (f->kind == CM_FINN_MVAU ? f->mh % fold[CM_FOLD_OUT] != 0 : C % fold[CM_FOLD_OUT] != 0) ||
        C % fold[CM_FOLD_IN] != 0)
        return cm_error_set(err, CM_EINPUT, "node %s: its folding (SIMD %lld, PE %lld) does not "
                            "divide its channels, which the simulation needs",
                            d->hd.nodes[node].name, (long long)fold[CM_FOLD_IN],
                            (long long)fold[CM_FOLD_OUT]);
    c->n_in = 1;
    return finn_program(d, node, c, err);
}
