/* How a FINN node fills and drains a pipeline (cm_block_timing), from the loops its
 * HLS custom op runs (../shared/docs/backend-models.md 3.2), as
 * src/sim/sim_streaming_finn.c simulates them: the MVAU and VVAU take a whole input
 * vector before computing its outputs; the sliding window generator reads the window's
 * extent of rows before its first tap, then per output row writes the row's taps while
 * reading the stride's rows for the next; FMPadding walks the padded map; the
 * StreamingMaxPool writes an output row after each pool's worth of rows; StreamingConcat
 * passes each input's channels of a pixel through in turn, and ElementwiseMul each
 * pixel's products as it reads them. */
#include "hw/finn_blocks.h"

#include <math.h>

static double maxd(double a, double b)
{
    return a > b ? a : b;
}

static double pos(int v)
{
    return v > 0 ? v : 1;
}

static double col_of(const int v[2])
{
    return v[1] > 0 ? v[1] : v[0];
}

/* A node taking one vector of `vec` words per iteration of `per` cycles and writing
 * its `out_words` outputs `head` cycles after the iteration starts; `beat` words a
 * cycle from off-chip. */
static void per_vector(cm_block_timing *t, double cycles, double vec, double per, double head,
                       double beat, double out_words)
{
    t->burst_words = out_words;
    /* it reads the vector as it works on it: the reading is inside `per` */
    t->fill_words = t->start_words = vec;
    t->fill_cycles = t->start_cycles = 0.0;
    t->head_cycles = head;
    t->rest_cycles = maxd(cycles, per);
    t->tail_cycles = per;
    t->beat_words = beat;
}

static void swg_timing(const cm_finn_node *n, double cycles, cm_block_timing *t)
{
    const double cf = n->channels / pos(n->simd);
    const double ifm_h = n->ifm_dim[0], ifm_w = col_of(n->ifm_dim);
    const double ofm_h = n->ofm_dim[0], ofm_w = col_of(n->ofm_dim);
    const double kk = n->kernel[0] * col_of(n->kernel), s_h = pos(n->stride[0]);
    const double ext = pos(n->dilation[0]) * (n->kernel[0] - 1.0) + 1.0;
    const double writes = ofm_w * kk, reads = s_h * ifm_w, slots = maxd(writes, reads);
    const double left = ifm_h - ext; /* rows still to read after the fill */
    /* A slot that reads stalls its write too: the first window's taps go out in slots
     * that read the next row's first pixels, so those are part of the fill. */
    const double row0_reads = left > 0 ? (left < s_h ? left : s_h) * ifm_w : 0;
    const double window_reads = kk < row0_reads ? kk : row0_reads;
    t->fill_words = t->start_words = (ifm_w * ext + window_reads) * n->channels;
    t->fill_cycles = t->start_cycles = (ifm_w * ext + kk) * cf;
    t->head_cycles = 1.0;
    t->rest_cycles = maxd(cycles - t->start_cycles, 1.0) + 1.0;
    /* Rows go s_h to an output row, read in that row's first slots. The tail runs
     * from the last real pixel (the padding after it comes at once from the FMPadding
     * before): the rest of the slots of the row that reads it and the rows after. */
    const double pad_b = n->in_pad[2], pad_r = n->in_pad[3];
    const double last_row = ifm_h - 1.0 - pad_b, last_col = ifm_w - 1.0 - pad_r;
    double slots_left;
    if (last_row < ext) { /* read in the fill */
        slots_left = ofm_h * slots + (ext - 1.0 - last_row) * ifm_w;
    } else {
        const double j = floor((last_row - ext) / s_h);
        const double at = fmod(last_row - ext, s_h) * ifm_w + last_col;
        slots_left = j > ofm_h - 1.0 ? 1.0 : (slots - at - 1.0) + (ofm_h - 1.0 - j) * slots;
    }
    /* measured from the producer's last word, which its trailing padding delays */
    const double trailing = pad_r + pad_b * ifm_w;
    t->tail_cycles = maxd((slots_left - trailing) * cf, cf);
    t->beat_words = pos(n->simd);
    /* the fill above ends with the first whole window, which is what a consumer takes */
    t->burst_words = kk * n->channels;
}

static void padding_timing(const cm_finn_node *n, double cycles, cm_block_timing *t)
{
    const double cf = n->channels / pos(n->simd);
    const double w = col_of(n->ifm_dim), cols = w + n->pad[1] + n->pad[3];
    /* padding ahead of the first real pixel leaves without waiting for it */
    const bool leads = n->pad[0] > 0 || n->pad[1] > 0;
    t->fill_words = leads ? 0.0 : n->channels;
    t->fill_cycles = t->start_cycles = cf;
    t->start_words = t->fill_words;
    t->head_cycles = 1.0;
    t->rest_cycles = maxd(cycles - cf, 1.0) + 1.0;
    t->tail_cycles = ((double)n->pad[3] + (double)n->pad[2] * cols) * cf + 1.0;
    t->beat_words = pos(n->simd);
    t->burst_words = n->channels;
}

static void maxpool_timing(const cm_finn_node *n, double cycles, cm_block_timing *t)
{
    const double img = n->ifm_dim[0], k = pos(n->pool_dim);
    t->fill_words = t->start_words = k * img * n->channels;
    t->fill_cycles = t->start_cycles = k * img + (k - 1.0) * img / k;
    t->head_cycles = 1.0;
    t->rest_cycles = maxd(cycles - t->fill_cycles, 1.0);
    t->tail_cycles = img / k + 1.0;
    t->beat_words = n->channels; /* a pixel a cycle */
    t->burst_words = n->channels; /* a tap or pixel per slot */
}

/* Which output rows wait for the end of the input (cm_block_timing's late rows). */
static void set_late_rows(cm_block_timing *t, double in_rows, double out_rows, double stride,
                          double base, int by_output)
{
    t->late_in_rows = in_rows > 0 ? in_rows : 0.0;
    t->late_out_rows = out_rows > 0 ? out_rows : 1.0;
    t->late_stride = stride;
    t->late_base = base;
    t->late_by_output = by_output;
    t->late_edge = 0;
}

/* The generator writes output row j's windows in the slots that read the rows after
 * its window, the first of them row j * s + extent (padded rows: FMPadding adds them
 * before), so a window waits for that row's word in its slot; a pointwise node's
 * vectors are its rows; a pool's output row waits for its last input row; a whole-map
 * node's one output waits for everything. */
static void finn_late_rows(const cm_finn_node *n, cm_block_timing *t)
{
    const double nv = (double)n->num_vectors;
    switch (n->kind) {
    case CM_FINN_SWG: {
        const double ext = pos(n->dilation[0]) * (n->kernel[0] - 1.0) + 1.0;
        set_late_rows(t, n->ifm_dim[0], n->ofm_dim[0], pos(n->stride[0]), ext, 1);
        /* a row's slots read s_h input rows and write its windows' taps: the taps
         * beyond the reads go out after the row is in (sim_streaming_finn.c) */
        const double taps = col_of(n->ofm_dim) * n->kernel[0] * col_of(n->kernel);
        t->late_edge = taps > pos(n->stride[0]) * col_of(n->ifm_dim);
        break;
    }
    case CM_FINN_FMPADDING:
        set_late_rows(t, n->ifm_dim[0], n->ifm_dim[0] + n->pad[0] + n->pad[2], 1.0, -n->pad[0], 1);
        break;
    case CM_FINN_MAXPOOL: {
        const double k = pos(n->pool_dim);
        set_late_rows(t, n->ifm_dim[0], floor(n->ifm_dim[0] / k), k, k - 1.0, 1);
        t->late_edge = 1; /* a row's outputs after its last input row */
        break;
    }
    case CM_FINN_POOL:
        set_late_rows(t, n->ofm_dim[0], n->ofm_dim[0], 1.0, 0.0, 0);
        break;
    case CM_FINN_UPSAMPLE: /* output row j repeats input row floor(j IFMDim / OFMDim) */
        set_late_rows(t, (double)n->resize[0].n_in, (double)n->resize[0].n_out,
                      (double)n->resize[0].n_in / (double)n->resize[0].n_out, 0.0, 1);
        break;
    case CM_FINN_GLOBALACCPOOL:
    case CM_FINN_LABELSELECT:
        set_late_rows(t, nv > 0 ? nv : 1.0, 1.0, 1.0, nv > 0 ? nv : 1.0, 0);
        break;
    default: /* vector at a time */
        set_late_rows(t, nv, nv, 1.0, 0.0, 0);
        break;
    }
}

void cm_finn_node_timing(const cm_finn_node *n, cm_block_cost *out)
{
    cm_block_timing *t = &out->timing;
    const double cycles = out->cycles, pe = pos(n->pe), simd = pos(n->simd);
    const double kk = n->kernel[0] * col_of(n->kernel), nv = n->num_vectors > 0 ? n->num_vectors : 1;
    switch (n->kind) {
    case CM_FINN_MVAU: {
        const double per = (n->mh / pe) * (n->mw / simd);
        per_vector(t, cycles, n->mw, per, per, simd, n->mh);
        break;
    }
    case CM_FINN_VVAU: {
        const double per = kk * n->channels / pe;
        per_vector(t, cycles, kk * n->channels, per, per, pe, n->channels);
        break;
    }
    case CM_FINN_POOL:
        per_vector(t, cycles, kk * n->channels, n->channels * kk / pe, 1.0, pe, n->channels);
        break;
    case CM_FINN_SWG:
        swg_timing(n, cycles, t);
        break;
    case CM_FINN_FMPADDING:
        padding_timing(n, cycles, t);
        break;
    case CM_FINN_MAXPOOL:
        maxpool_timing(n, cycles, t);
        break;
    case CM_FINN_GLOBALACCPOOL:
        cm_block_timing_whole(t, cycles, nv * n->channels, n->channels, n->channels / pe + 1.0,
                              pe);
        break;
    case CM_FINN_LABELSELECT:
        cm_block_timing_whole(t, cycles, n->channels, 1.0, 1.0, pe);
        break;
    case CM_FINN_UPSAMPLE:
        cm_block_timing_resize(t, cycles, &n->resize[0], &n->resize[1], 1.0, n->channels,
                               n->channels);
        break;
    case CM_FINN_CONCAT: {
        double total = 0.0;
        for (int i = 0; i < n->n_inputs && i < CM_FINN_CONCAT_MAX; i++)
            total += n->in_channels[i];
        cm_block_timing_pointwise(t, cycles, total, simd);
        break;
    }
    default: /* thresholding, duplicate, add, multiply: a pixel at a time */
        cm_block_timing_pointwise(t, cycles, n->channels, pe);
        break;
    }
    finn_late_rows(n, t);
}
