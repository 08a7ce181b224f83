/* The overlay's latency model: eqs. 9-13 and Table 2 of DYNAMAP. */
#include "overlay/ov_model.h"

#include <math.h>
#include <string.h>

static int64_t ceil_div(int64_t x, int64_t y)
{
    return (x + y - 1) / y;
}

uint64_t cm_ov_init_cycles(const cm_ov_array *arr)
{
    return (uint64_t)arr->p1 + (uint64_t)arr->p2;
}

uint64_t cm_ov_gemm_cycles(const cm_ov_array *arr, cm_overlay_dataflow df, int64_t a, int64_t b,
                           int64_t c)
{
    int64_t passes;
    switch (df) {
    case CM_OVERLAY_NS:
        passes = ceil_div(a, arr->p1) * ceil_div(c, arr->p2) * b;
        break;
    case CM_OVERLAY_WS:
        passes = ceil_div(b, arr->p1) * ceil_div(c, arr->p2) * a;
        break;
    default:
        passes = ceil_div(b, arr->p1) * ceil_div(a, arr->p2) * c;
        break;
    }
    return (uint64_t)passes + cm_ov_init_cycles(arr);
}

/* The GEMM under dataflow *df, or when *df is CM_OVERLAY_NO_DATAFLOW the dataflow with
 * the fewest cycles (NS, then WS, then IS on ties), written back to *df. */
static uint64_t gemm(const cm_ov_array *arr, int64_t a, int64_t b, int64_t c,
                     cm_overlay_dataflow *df)
{
    if (*df != CM_OVERLAY_NO_DATAFLOW)
        return cm_ov_gemm_cycles(arr, *df, a, b, c);
    uint64_t min = 0;
    for (int f = CM_OVERLAY_NS; f <= CM_OVERLAY_IS; f++) {
        uint64_t t = cm_ov_gemm_cycles(arr, (cm_overlay_dataflow)f, a, b, c);
        if (f == CM_OVERLAY_NS || t < min) {
            min = t;
            *df = (cm_overlay_dataflow)f;
        }
    }
    return min;
}

/* A fully connected layer is a 1x1 convolution of its flattened input. */
static void gemm_geometry(const cm_layer *l, int64_t *o, int64_t *cin, int64_t *cout, int64_t *kk)
{
    if (l->op == CM_OP_FC) {
        *o = 1;
        *cin = l->in_shape.c * l->in_shape.h * l->in_shape.w;
        *kk = 1;
    } else {
        *o = l->out_shape.h * l->out_shape.w;
        *cin = l->in_shape.c;
        *kk = (int64_t)l->kernel[0] * l->kernel[1];
    }
    *cout = l->out_shape.c * (l->op == CM_OP_FC ? l->out_shape.h * l->out_shape.w : 1);
}

int64_t cm_ov_gemm_extent(const cm_layer *l)
{
    int64_t o, cin, cout, kk;
    gemm_geometry(l, &o, &cin, &cout, &kk);
    /* Winograd's tiles are at most o, its channels at most cin and cout; groups only
     * divide. */
    int64_t m = o > kk * cin ? o : kk * cin;
    return m > cout ? m : cout;
}

bool cm_ov_applicable(const cm_ov_array *arr, const cm_layer *l, cm_overlay_algorithm a)
{
    if (l->op != CM_OP_CONV && l->op != CM_OP_FC)
        return false;
    if (a == CM_OVERLAY_IM2COL || a == CM_OVERLAY_KN2ROW)
        return true;
    if (a != CM_OVERLAY_WINOGRAD || l->op != CM_OP_CONV)
        return false;
    (void)arr;
    return l->kernel[0] == l->kernel[1] && l->kernel[0] >= 2 && l->stride[0] == 1 &&
           l->stride[1] == 1 && l->dilation[0] == 1 && l->dilation[1] == 1 && l->groups == 1;
}

int64_t cm_ov_winograd_tiles(const cm_ov_array *arr, int64_t o1, int64_t o2)
{
    return ceil_div(o1, arr->wino_m) * ceil_div(o2, arr->wino_m);
}

int64_t cm_ov_winograd_rounds(const cm_ov_array *arr, const cm_layer *l)
{
    return ceil_div(l->kernel[0], arr->wino_r) * ceil_div(l->kernel[1], arr->wino_r);
}

/* The transform modules stream with the array, one channel of a tile per bank per
 * cycle, so what shows is the first input block before the GEMM can start (Cin cycles)
 * and the last inverse-transformed block after it ends (Cout cycles). */
uint64_t cm_ov_winograd_lt(const cm_ov_array *arr, int64_t tiles, int64_t cin, int64_t cout)
{
    (void)arr;
    (void)tiles;
    return (uint64_t)(cin + cout);
}

static uint64_t winograd_cycles(const cm_ov_array *arr, const cm_layer *l, cm_overlay_dataflow *df)
{
    int64_t tiles = cm_ov_winograd_tiles(arr, l->out_shape.h, l->out_shape.w);
    int64_t cin = l->in_shape.c, cout = l->out_shape.c;
    int64_t side = arr->wino_m + arr->wino_r - 1;
    uint64_t one = gemm(arr, tiles, cin, cout, df) + cm_ov_winograd_lt(arr, tiles, cin, cout);
    return one * (uint64_t)(side * side * cm_ov_winograd_rounds(arr, l));
}

/* *df as in gemm(): given, or chosen and written back. */
static uint64_t layer_cycles(const cm_ov_array *arr, const cm_layer *l, cm_overlay_algorithm a,
                             cm_overlay_dataflow *df)
{
    if (!cm_ov_applicable(arr, l, a))
        return 0;
    if (a == CM_OVERLAY_WINOGRAD)
        return winograd_cycles(arr, l, df);
    int64_t o, cin, cout, kk;
    gemm_geometry(l, &o, &cin, &cout, &kk);
    int64_t g = l->groups > 0 ? l->groups : 1;
    if (a == CM_OVERLAY_IM2COL) /* eq. 10 */
        return (uint64_t)g * gemm(arr, o, kk * (cin / g), cout / g, df);
    return (uint64_t)(g * kk) * gemm(arr, o, cin / g, cout / g, df); /* eq. 11 */
}

uint64_t cm_ov_layer_cycles(const cm_ov_array *arr, const cm_layer *l, cm_overlay_algorithm a,
                            cm_overlay_dataflow *best)
{
    *best = CM_OVERLAY_NO_DATAFLOW;
    return layer_cycles(arr, l, a, best);
}

uint64_t cm_ov_layer_cycles_as(const cm_ov_array *arr, const cm_layer *l, cm_overlay_algorithm a,
                               cm_overlay_dataflow df)
{
    return df == CM_OVERLAY_NO_DATAFLOW ? 0 : layer_cycles(arr, l, a, &df);
}

uint64_t cm_ov_stream_cycles(const cm_ov_array *arr, cm_shape s)
{
    return (uint64_t)ceil_div(s.c * s.h * s.w, arr->p1);
}

cm_ov_layout cm_ov_input_layout(const cm_layer *l, cm_overlay_algorithm a)
{
    cm_ov_layout lay;
    memset(&lay, 0, sizeof lay);
    lay.kind = CM_OV_TENSOR;
    if (l->op != CM_OP_CONV || (a != CM_OVERLAY_IM2COL && a != CM_OVERLAY_WINOGRAD))
        return lay;
    bool unit = l->kernel[0] == 1 && l->kernel[1] == 1 && l->stride[0] == 1 &&
                l->stride[1] == 1 && !l->pad[0] && !l->pad[1] && !l->pad[2] && !l->pad[3];
    if (a == CM_OVERLAY_IM2COL && unit)
        return lay;
    lay.kind = a == CM_OVERLAY_IM2COL ? CM_OV_TOEPLITZ : CM_OV_WINOGRAD;
    memcpy(lay.kernel, l->kernel, sizeof lay.kernel);
    memcpy(lay.stride, l->stride, sizeof lay.stride);
    memcpy(lay.pad, l->pad, sizeof lay.pad);
    memcpy(lay.dilation, l->dilation, sizeof lay.dilation);
    lay.out_h = l->out_shape.h;
    lay.out_w = l->out_shape.w;
    return lay;
}

bool cm_ov_layout_equal(const cm_ov_layout *x, const cm_ov_layout *y)
{
    if (x->kind != y->kind)
        return false;
    if (x->kind == CM_OV_TENSOR)
        return true;
    return memcmp(x->kernel, y->kernel, sizeof x->kernel) == 0 &&
           memcmp(x->stride, y->stride, sizeof x->stride) == 0 &&
           memcmp(x->pad, y->pad, sizeof x->pad) == 0 &&
           memcmp(x->dilation, y->dilation, sizeof x->dilation) == 0 && x->out_h == y->out_h &&
           x->out_w == y->out_w;
}

double cm_ov_layout_elements(const cm_ov_array *arr, const cm_ov_layout *lay, cm_shape s)
{
    switch (lay->kind) {
    case CM_OV_TOEPLITZ:
        return (double)lay->out_h * (double)lay->out_w * lay->kernel[0] * lay->kernel[1] * (double)s.c;
    case CM_OV_WINOGRAD: {
        double side = arr->wino_m + arr->wino_r - 1;
        return (double)cm_ov_winograd_tiles(arr, lay->out_h, lay->out_w) * side * side * (double)s.c;
    }
    default:
        return (double)s.c * (double)s.h * (double)s.w;
    }
}

double cm_ov_burst_bandwidth(const cm_ov_array *arr, int64_t channels)
{
    if (channels >= arr->burst_bytes)
        return arr->bw_bytes_s;
    return arr->bw_bytes_s * (double)channels / arr->burst_bytes;
}

/* ovhd of Table 2: the two pipelined layout units fill before streaming. */
static double winograd_to_toeplitz_ovhd_s(const cm_ov_array *arr)
{
    return 2.0 * (double)cm_ov_init_cycles(arr) / arr->freq_hz;
}

double cm_ov_store_s(const cm_ov_array *arr, cm_overlay_algorithm a, const cm_ov_layout *to,
                     cm_shape s)
{
    double n = cm_ov_layout_elements(arr, to, s);
    bool from_winograd = a == CM_OVERLAY_WINOGRAD;
    switch (to->kind) {
    case CM_OV_TOEPLITZ:
        return n / arr->bw_bytes_s + (from_winograd ? winograd_to_toeplitz_ovhd_s(arr) : 0.0);
    case CM_OV_WINOGRAD:
        return n / (from_winograd ? arr->bw_bytes_s : cm_ov_burst_bandwidth(arr, s.c));
    default:
        return n / arr->bw_bytes_s;
    }
}

double cm_ov_load_s(const cm_ov_array *arr, const cm_ov_layout *from, const cm_ov_layout *want,
                    cm_shape s)
{
    double n = cm_ov_layout_elements(arr, want, s);
    if (cm_ov_layout_equal(from, want))
        return n / arr->bw_bytes_s;
    if (from->kind == CM_OV_TENSOR)
        return n / cm_ov_burst_bandwidth(arr, s.c);
    return INFINITY;
}
