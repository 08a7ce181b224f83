/* Array sizing: DYNAMAP Algorithm 1 over the widest arrays within the DSP limit. */
#include "overlay/sizing.h"

#include "overlay/ov_util.h"

#include <stdlib.h>
#include <string.h>

#include "util/progress.h"

int64_t cm_ov_buffer_bram18(int p1, int p2)
{
    return (int64_t)p1 + p2 + 2 * (int64_t)(p1 > p2 ? p1 : p2);
}

static uint64_t layer_node_cycles(const cm_ov_array *arr, const cm_layer *l, unsigned algorithms)
{
    uint64_t sum = 0;
    for (int a = 0; a < CM_OVERLAY_CONV_ALGORITHMS; a++) {
        cm_overlay_dataflow df;
        if (algorithms & (1u << a))
            sum += cm_ov_layer_cycles(arr, l, (cm_overlay_algorithm)a, &df);
    }
    return sum;
}

uint64_t cm_ov_total_node_cycles(const cm_graph *g, const cm_ov_array *arr, unsigned algorithms)
{
    uint64_t sum = 0;
    for (int i = 0; i < g->n_layers; i++)
        sum += layer_node_cycles(arr, &g->layers[i], algorithms);
    return sum;
}

/* Layers with the same shapes cost the same on every array (Inception repeats its
 * blocks), so each distinct one is costed once and weighted by its count. */
typedef struct distinct_layer {
    const cm_layer *l;
    uint64_t count;
} distinct_layer;

static bool same_cost(const cm_layer *a, const cm_layer *b)
{
    return a->op == b->op && memcmp(&a->in_shape, &b->in_shape, sizeof a->in_shape) == 0 &&
           memcmp(&a->out_shape, &b->out_shape, sizeof a->out_shape) == 0 &&
           memcmp(a->kernel, b->kernel, sizeof a->kernel) == 0 &&
           memcmp(a->stride, b->stride, sizeof a->stride) == 0 &&
           memcmp(a->dilation, b->dilation, sizeof a->dilation) == 0 && a->groups == b->groups;
}

static int distinct_layers(const cm_graph *g, distinct_layer *d)
{
    int n = 0;
    for (int i = 0; i < g->n_layers; i++) {
        const cm_layer *l = &g->layers[i];
        if (l->op != CM_OP_CONV && l->op != CM_OP_FC)
            continue;
        int k = 0;
        while (k < n && !same_cost(d[k].l, l))
            k++;
        if (k == n)
            d[n++] = (distinct_layer){l, 0};
        d[k].count++;
    }
    return n;
}

static uint64_t weighted_cycles(const cm_ov_array *arr, const distinct_layer *d, int n,
                                unsigned algorithms)
{
    uint64_t sum = 0;
    for (int k = 0; k < n; k++)
        sum += d[k].count * layer_node_cycles(arr, d[k].l, algorithms);
    return sum;
}

/* The widest P_SA2 for this P_SA1 within the DSP limit and the board's BRAM. */
static int64_t widest_p2(int64_t p1, int64_t dsp_limit, int64_t bram18)
{
    int64_t p2 = dsp_limit / p1;
    if (cm_ov_buffer_bram18((int)p1, (int)p2) <= bram18)
        return p2;
    int64_t square_or_wider = (bram18 - p1) / 3; /* p1 + 3 p2 <= bram18 when p2 >= p1 */
    if (square_or_wider >= p1)
        return square_or_wider < p2 ? square_or_wider : p2;
    int64_t narrower = bram18 - 3 * p1; /* 3 p1 + p2 <= bram18 when p2 < p1 */
    if (narrower > p1 - 1)
        narrower = p1 - 1;
    return narrower < p2 ? narrower : p2;
}

/* Beyond the largest GEMM dimension of every layer a wider side divides nothing
 * further and only adds I_SA's fill cycles, so both sides stop there: without this a
 * board with 10^12 DSPs would try a billion shapes. */
static int64_t side_cap(const distinct_layer *d, int n)
{
    int64_t cap = CM_OV_MIN_SIDE;
    for (int k = 0; k < n; k++) {
        int64_t e = cm_ov_gemm_extent(d[k].l);
        cap = e > cap ? e : cap;
    }
    return cap > INT32_MAX ? INT32_MAX : cap;
}

/* Every term of eqs. 9-12 shrinks or stays as P_SA2 grows, but for I_SA's one cycle a
 * column, so for each P_SA1 only the widest P_SA2 (up to the cap) is tried. */
static bool search(const distinct_layer *d, int n, cm_ov_array *arr, unsigned algorithms,
                   int64_t dsp_limit, int64_t bram18, double deadline, uint64_t work,
                   bool *stopped)
{
    uint64_t best = UINT64_MAX;
    int best_p1 = 0, best_p2 = 0;
    const int64_t cap = side_cap(d, n);
    /* the budget in shapes: each costs every distinct layer (n >= 1 here) */
    uint64_t shapes = 0;
    uint64_t max_shapes = (work ? work : CM_OVERLAY_SIZING_WORK) / (uint64_t)(n > 0 ? n : 1);
    for (int64_t p1 = CM_OV_MIN_SIDE; p1 <= cap && p1 * CM_OV_MIN_SIDE <= dsp_limit; p1++) {
        int64_t p2 = widest_p2(p1, dsp_limit, bram18);
        if (p2 > cap)
            p2 = cap;
        if (p2 < CM_OV_MIN_SIDE)
            continue;
        /* The budget ends the search on any machine alike; the user's limit (deadline
         * > 0) is read every 16 shapes. Both keep a shape once one was costed. */
        if (best_p1 > 0 && (shapes >= max_shapes ||
                            (deadline > 0 && (p1 & 15) == 0 && cm_seconds_now() >= deadline))) {
            *stopped = true;
            break;
        }
        arr->p1 = (int)p1;
        arr->p2 = (int)p2;
        shapes++;
        uint64_t t = weighted_cycles(arr, d, n, algorithms);
        if (t < best) {
            best = t;
            best_p1 = arr->p1;
            best_p2 = arr->p2;
        }
    }
    arr->p1 = best_p1;
    arr->p2 = best_p2;
    return best_p1 > 0;
}

cm_status cm_ov_size_array(const cm_graph *g, cm_ov_array *arr, unsigned algorithms,
                           int64_t dsp_limit, int64_t bram18, double deadline, uint64_t work,
                           bool *stopped, cm_error *err)
{
    if (dsp_limit < CM_OV_MIN_SIDE * CM_OV_MIN_SIDE)
        return cm_error_set(err, CM_EINFEASIBLE,
                            "DSP: a limit of %lld DSPs is below the %d of the smallest (%dx%d) "
                            "systolic array",
                            (long long)dsp_limit, CM_OV_MIN_SIDE * CM_OV_MIN_SIDE, CM_OV_MIN_SIDE,
                            CM_OV_MIN_SIDE);
    if (dsp_limit > INT32_MAX)
        dsp_limit = INT32_MAX;
    distinct_layer *d = cm_ov_calloc(g->n_layers, sizeof *d);
    if (!d)
        return cm_error_nomem(err);
    int n = distinct_layers(g, d);
    bool found = search(d, n, arr, algorithms, dsp_limit, bram18, deadline, work, stopped);
    free(d);
    if (!found)
        return cm_error_set(err, CM_EINFEASIBLE,
                            "BRAM: the buffers of even a %dx%d systolic array need %lld BRAM18, "
                            "the board has %lld",
                            CM_OV_MIN_SIDE, CM_OV_MIN_SIDE,
                            (long long)cm_ov_buffer_bram18(CM_OV_MIN_SIDE, CM_OV_MIN_SIDE),
                            (long long)bram18);
    return CM_OK;
}
