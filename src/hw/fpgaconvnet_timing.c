/* How an fpgaConvNet layer fills and drains a pipeline (cm_block_timing), from its
 * modules as ../shared/docs/backend-models.md 2.2-2.4 lays them out: the sliding window
 * walks the padded map one position of ch = C/coarse_in cycles at a time and emits a
 * window where one ends; the conv spends ch*f*k*k/(groups*fine) cycles on an output
 * pixel (f = F/coarse_out) and writes it at the end; accum, glue and bias pass it on a
 * cycle later each (they are as fast or faster: ch*f/groups and f cycles a pixel). The
 * inner product streams its input one beat of coarse_in words at a time (f conv cycles
 * each) and writes its sums after the last beat. This is what src/sim/sim_streaming_fcn.c
 * simulates, in closed form.
 *
 * The reference's own pipeline depth (the sum of module depths, 2.4) stays in
 * cm_block_cost.pipeline_depth as published; it counts the line-buffer fill at one word
 * a cycle and the inner product's whole accumulation, which is why the partition model
 * (src/design/first_frame.c) uses these figures instead. */
#include "hw/fpgaconvnet_blocks.h"

static double maxd(double a, double b)
{
    return a > b ? a : b;
}

/* Cycles per output pixel of the modules after the window, the slowest, and the
 * cycles they add to a pixel's way out after the conv. */
typedef struct fcn_pixel {
    double conv, slowest, after;
} fcn_pixel;

static fcn_pixel conv_pixel(const cm_fcn_layer *l)
{
    const double ch = (double)l->channels / l->coarse_in, f = (double)l->filters / l->coarse_out;
    const double kk = (double)l->kernel[0] * l->kernel[1], g = l->groups;
    fcn_pixel p = {ch * f * kk / (g * l->fine), 0, 0};
    p.slowest = p.conv;
    if (l->coarse_out > 1)
        p.slowest = maxd(p.slowest, ch);
    if (ch > 1) {
        p.slowest = maxd(p.slowest, ch * f / g);
        p.after += 1;
    }
    if (l->coarse_in > 1) {
        p.slowest = maxd(p.slowest, f);
        p.after += 1;
    }
    if (l->has_bias) {
        p.slowest = maxd(p.slowest, f);
        p.after += 1;
    }
    return p;
}

static bool has_window(const cm_fcn_layer *l)
{
    return l->kernel[0] > 1 || l->kernel[1] > 1 || l->stride[0] > 1 || l->stride[1] > 1 ||
           l->pad[0] || l->pad[1] || l->pad[2] || l->pad[3];
}

/* A sliding window followed by modules taking `pixel` cycles an output pixel (the
 * first written `head` cycles after its window). */
static void windowed(const cm_fcn_layer *l, double cycles, double pixel, double head,
                     cm_block_timing *t)
{
    cm_window_axis r, c;
    cm_fcn_window_axis(l, 0, &r);
    cm_fcn_window_axis(l, 1, &c);
    const double ch = (double)l->channels / l->coarse_in;
    const double cols_p = (double)(c.n + c.before + c.after);
    const double walk = (double)(r.n + r.before + r.after) * cols_p * ch;
    /* positions walked from the first real input to the first window's end (the
     * padding ahead of it is walked before any input arrives), and after the last */
    const double to_first =
        ((double)(r.extent - 1 - r.before) * cols_p + (double)(c.extent - c.before)) * ch;
    const double after_last = ((double)r.after * cols_p + (double)c.after) * ch;
    const double outputs = (double)r.out * (double)c.out;
    t->fill_words = t->start_words = cm_window_fill_words(&r, &c, l->channels);
    t->fill_cycles = t->start_cycles = to_first;
    t->head_cycles = head;
    /* the modules' own work: the rate balancing's padding penalty (2.1) slows no
     * module, so `cycles` may exceed it (README, "What the simulation found") */
    (void)cycles;
    t->rest_cycles = maxd(outputs * pixel, walk - to_first) + head - pixel;
    t->tail_cycles = maxd(after_last + pixel, cm_window_tail_outputs(&r, &c) * pixel) + head -
                     pixel;
    t->out_rows = (double)r.out;
    t->row_stride = (double)r.stride;
    cm_block_timing_last_rows(t, &r, &c, true);
}

static void conv_timing(const cm_fcn_layer *l, double cycles, cm_block_timing *t)
{
    const fcn_pixel p = conv_pixel(l);
    const double head = p.conv + p.after;
    if (has_window(l)) {
        windowed(l, cycles, p.slowest, head, t);
        return;
    }
    /* a 1x1 window passes pixels straight to the conv */
    const double ch = (double)l->channels / l->coarse_in;
    const double outputs = (double)cm_fcn_rows_out(l) * cm_fcn_cols_out(l);
    t->fill_words = t->start_words = l->channels;
    t->fill_cycles = t->start_cycles = ch;
    t->head_cycles = head;
    t->rest_cycles = maxd(outputs * p.slowest + p.after, cycles - ch);

    t->tail_cycles = p.slowest + p.after;
    t->rows_through = 1;
}

void cm_fcn_layer_timing(const cm_fcn_layer *l, cm_block_cost *out)
{
    cm_block_timing *t = &out->timing;
    const double words = (double)l->rows * l->cols * l->channels;
    const double ch = (double)l->channels / l->coarse_in;
    const double f = (double)l->filters / l->coarse_out;
    switch (l->kind) {
    case CM_FCN_CONV:
        conv_timing(l, out->cycles, t);
        t->burst_words = l->filters; /* a pixel over the coarse_out streams */
        break;
    case CM_FCN_POOL:
        windowed(l, out->cycles, ch, 1.0, t);
        t->burst_words = l->channels;
        break;
    case CM_FCN_INNER_PRODUCT:
        /* the last beat's conv and accumulation, then glue and bias, then the sums
         * leave at coarse_out words a cycle */
        cm_block_timing_whole(t, out->cycles, words, l->filters, 2.0 * f + 3.0, l->coarse_in);
        return;
    case CM_FCN_GLOBAL_POOL:
        cm_block_timing_whole(t, out->cycles, words, l->channels, ch + 1.0, l->coarse_in);
        return;
    case CM_FCN_RESIZE: /* the walk of fpgaconvnet_blocks.c, ch cycles a pixel */
        cm_block_timing_resize(t, out->cycles, &l->resize[0], &l->resize[1], ch, l->channels,
                               l->coarse_in);
        return;
    default:
        cm_block_timing_pointwise(t, out->cycles, l->channels, l->coarse_in);
        return;
    }
    t->beat_words = l->coarse_in;
}
