/* Issue 20: the fpgaConvNet and FINN cost models cost dilated, ceil_mode and
 * asymmetrically padded layers with the shapes the importer infers, not with the
 * undilated, floor-rounded shapes of fpgaconvnet-model and FINN v0.6. One-layer ONNX
 * models go through the importer and the backend parser; the figures are worked by
 * hand below (folding 1, 16-bit fpgaConvNet words, 4-bit FINN words), and each case
 * also states, in a comment, the figure the reference tool gives. */
#include "test_support.h"
#include "onnx_builder.h"

#include "hw/hdgraph.h"

#include <cnnmap/model.h>
#include <math.h>
#include <stdlib.h>

/* A window layer's geometry for the model builder. */
typedef struct window_spec {
    const char *op; /* "Conv" or "MaxPool" */
    int64_t c, h, w, filters, k, stride, dilation;
    int64_t pads[4]; /* ONNX order: top, left, bottom, right */
    int ceil_mode;
} window_spec;

/* Loads a one-layer model; NULL when the importer rejects the geometry (the
 * message is then in err). */
static cm_graph *window_graph(const window_spec *s, cm_error *err)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, s->c, s->h, s->w});
    Onnx__NodeProto *n;
    if (s->op[0] == 'C') {
        ob_init_float(m, "W", 4, (int64_t[]){s->filters, s->c, s->k, s->k}, NULL);
        n = ob_node(m, "Conv", "layer", "x,W", "y");
        ob_attr_ints(n, "dilations", 2, (int64_t[]){s->dilation, s->dilation});
    } else {
        n = ob_node(m, s->op, "layer", "x", "y");
        ob_attr_int(n, "ceil_mode", s->ceil_mode);
    }
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){s->k, s->k});
    ob_attr_ints(n, "strides", 2, (int64_t[]){s->stride, s->stride});
    ob_attr_ints(n, "pads", 4, s->pads);
    ob_output(m, "y", 4, NULL);
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    ob_model_free(m);
    cm_graph *g = NULL;
    cm_status st = cm_model_load_buffer(buf, len, "window.onnx", NULL, &g, err);
    free(buf);
    return st == CM_OK ? g : NULL;
}

static void build_hd(const window_spec *s, cm_backend backend, cm_graph **g, cm_hdgraph *h)
{
    cm_error err = {0};
    *g = window_graph(s, &err);
    if (!*g)
        fail_msg("%s", err.message);
    const cm_hd_options o = {.default_weight_bits = 4, .default_act_bits = 4};
    if (cm_hdgraph_build(*g, backend, &o, h, &err) != CM_OK)
        fail_msg("%s", err.message);
}

static void expect_cost(const cm_hd_node *n, double cycles, double depth, int64_t lut, int64_t ff,
                        int64_t dsp, int64_t bram)
{
    cm_block_cost c;
    cm_hd_node_cost(n, 1, 1, 1, &c);
    /* cycles are a float quotient of rates (22680 comes out 1 ulp off) */
    if (fabs(c.cycles - cycles) > 1e-9 * cycles || c.pipeline_depth != depth || c.res.lut != lut || c.res.ff != ff ||
        c.res.dsp != dsp || c.res.bram18 != bram)
        fail_msg("%s: got cycles %.6f depth %.6f LUT %lld FF %lld DSP %lld BRAM %lld; expected "
                 "%.6f %.6f %lld %lld %lld %lld", n->name, c.cycles, c.pipeline_depth,
                 (long long)c.res.lut, (long long)c.res.ff, (long long)c.res.dsp,
                 (long long)c.res.bram18, cycles, depth, (long long)lut, (long long)ff,
                 (long long)dsp, (long long)bram);
}

/* One fpgaConvNet layer: its output rows x cols in the cost model and in the graph,
 * its dilation and ceil_mode as parsed, and its cost at folding 1. */
static void check_fcn(const window_spec *s, int rows, int cols, double cycles, double depth,
                      int64_t lut, int64_t ff, int64_t dsp, int64_t bram)
{
    cm_graph *g;
    cm_hdgraph h;
    build_hd(s, CM_BACKEND_FPGACONVNET, &g, &h);
    assert_int_equal(h.n_nodes, 1);
    const cm_fcn_layer *f = &h.nodes[0].hw.fcn;
    assert_int_equal(f->dilation[0], s->dilation);
    assert_int_equal(f->dilation[1], s->dilation);
    assert_int_equal(f->ceil_mode, s->ceil_mode);
    assert_int_equal(cm_fcn_rows_out(f), rows);
    assert_int_equal(cm_fcn_cols_out(f), cols);
    assert_int_equal(g->layers[0].out_shape.h, rows);
    assert_int_equal(g->layers[0].out_shape.w, cols);
    expect_cost(&h.nodes[0], cycles, depth, lut, ff, dsp, bram);
    cm_hdgraph_free(&h);
    cm_graph_free(g);
}

/* One FINN window layer: FMPadding, SWG and the MVAU or Pool_Batch, at folding 1:
 * each node's cycles, and the SWG's LUT and BRAM18. */
static void check_finn(const window_spec *s, double pad_cycles, double swg_cycles,
                       int64_t swg_bram, double last_cycles)
{
    cm_graph *g;
    cm_hdgraph h;
    build_hd(s, CM_BACKEND_FINN, &g, &h);
    assert_int_equal(h.n_nodes, 3);
    assert_int_equal(h.nodes[0].hw.finn.kind, CM_FINN_FMPADDING);
    cm_block_cost c;
    cm_hd_node_cost(&h.nodes[0], 1, 1, 1, &c);
    assert_true(c.cycles == pad_cycles);
    expect_cost(&h.nodes[1], swg_cycles, 0, 300, 0, 0, swg_bram);
    cm_hd_node_cost(&h.nodes[2], 1, 1, 1, &c);
    assert_true(c.cycles == last_cycles);
    cm_hdgraph_free(&h);
    cm_graph_free(g);
}

static const window_spec dilated_conv = {"Conv", 16, 32, 32, 32, 3, 1, 2, {2, 2, 2, 2}, 0};
static const window_spec ceil_pool = {"MaxPool", 4, 8, 8, 0, 3, 2, 1, {0, 0, 0, 0}, 1};
static const window_spec asym_conv = {"Conv", 4, 8, 8, 8, 3, 1, 1, {0, 1, 1, 1}, 0};

/* ---- fpgaConvNet --------------------------------------------------------------- */

/* 3x3 conv, dilation 2, pad 2, 32x32x16 -> 32 filters, no bias. Extent e = 5, output
 * 32x32 (36 - 5 + 1), padded input 36x36 (fpgaconvnet-model: 34x34 output).
 * SW (ch 16, 16 bits): rate_in 1024/1296, rate_out 1024/1024; depth
 *   36*16*(5-1) + 16*3*(5-1) = 2304 + 192 = 2496; u = [16*9, 3*4*(16+4), 4*(16+9), 12, 4]
 *   = [144, 240, 100, 12, 4]: LUT trunc(144*2.82373 + 4*189.28067) = 1163,
 *   FF trunc(144*2.24128 + 4*268.99123) = 1398; BRAM 4*bram_stream(577, 16) +
 *   12*bram_stream(17, 16) = 4 + 12 = 16.
 * Conv (k*k = 9 taps, F 32, fine 1): rate_in 1/288, out 1/9, depth 1; u = [5, 10, 4]:
 *   LUT trunc(5*463.16376 + 10*142.83476) = 3744, FF trunc(5*658.85058 + 10*164.64080)
 *   = 4940, DSP 1. Fork and Glue are zeroed (co = ci = 1), no Bias.
 * Accum (ch 16, F 32): depth 16*32 = 512, u = [32, 1, 16, 32, 32, 16]: LUT 131, FF 155,
 *   BRAM bram_mem(32, 16) = 1. Weights bram_mem(32*16*9 = 4608, 16) = 5, bias 1.
 * Cycles: the Conv bounds the rate: rate_in = (1/288)/(1296/1024), so
 *   W_in/rate_in = 16384*288*1296/1024 = 36*36*16*288 = 5971968 (out: 32768*144, less).
 * Total: cycles 5971968, depth 2496+1+512 = 3009, LUT 1163+3744+131 = 5038,
 *   FF 1398+4940+155 = 6493, DSP 1, BRAM 16+1+5+1 = 23.
 * fpgaconvnet-model (undilated window: e = k = 3, output 34x34): the SW rate_out is
 *   1156/1024 and the output side bounds: cycles 6741792, depth 1248+1+512 = 1761,
 *   LUT 4685, FF 5984, DSP 1, BRAM 15 (SW 2 + 6, Conv u[1] = log2(1156)). */
static void test_fcn_dilated_conv(void **state)
{
    (void)state;
    check_fcn(&dilated_conv, 32, 32, 5971968, 3009, 5038, 6493, 1, 23);
}

/* 3x3 stride-2 max pool, ceil_mode, on 8x8x4: ceil((8-3)/2)+1 = 4 rows and cols (floor:
 * 3); the last window reads row 8, so the SW pads one row and column at the end: 9x9.
 * SW (ch 4): rate_in 64/81, rate_out 16/64; depth 9*4*2 + 4*3*2 = 96; u = [144,
 *   3*2*(16+2), 2*(16+5), 6, 2]: LUT trunc(406.617 + 378.561) = 785, FF 860;
 *   BRAM 2*bram_stream(37, 16) + 6*bram_stream(5, 16) = 8.
 * Pool: LUT trunc(3*267.44496) = 802, FF trunc(3*447.79832) = 1343.
 * Cycles: rate_in 64/81, W_in/rate_in = 256*81/64 = 324 (9*9*4 padded words); out
 *   64/0.25 = 256. Total: cycles 324, depth 96, LUT 1587, FF 2203, BRAM 8.
 * fpgaconvnet-model (floor, 3x3 output, no end pad): cycles 256 (8*8*4 words),
 *   depth 8*4*2 + 24 = 88, LUT 1587, FF 2203, BRAM 8. */
static void test_fcn_ceil_pool(void **state)
{
    (void)state;
    check_fcn(&ceil_pool, 4, 4, 324, 96, 1587, 2203, 0, 8);
}

/* 3x3 conv on 8x8x4 -> 8 filters, pads top 0, left 1, bottom 1, right 1: 9 x 10 padded,
 * output 7x8. SW: rate_in 64/90, rate_out 56/64, depth 10*4*2 + 4*3*2 = 104, LUT 785,
 *   FF 860, BRAM 2*bram_stream(41, 16) + 6 = 8.
 * Conv (F 8): u = [3, log2(56) = 5.80735, 2]: LUT trunc(1389.491 + 829.492) = 2218,
 *   FF trunc(1976.552 + 956.128) = 2932, DSP 1, depth 1.
 * Accum (ch 4, F 8, 7x8): depth 32, u = [8, 1, 16, 8, 7, 4]: LUT 129, FF 154, BRAM 1.
 *   Weights bram_mem(288, 16) = 1, bias 1.
 * Cycles: rate_in = (1/72)/((56/64)/(64/90)), W_in/rate_in = 256*72*56*90/4096 = 22680.
 * Total: cycles 22680, depth 137, LUT 785+2218+129 = 3132, FF 860+2932+154 = 3946,
 *   DSP 1, BRAM 8+1+1+1 = 11.
 * fpgaconvnet-model gives the same: its parser passes the ONNX pad list per side
 * (backend-models.md 2.4a); only an integer pad is made symmetric there. */
static void test_fcn_asymmetric_pads(void **state)
{
    (void)state;
    check_fcn(&asym_conv, 7, 8, 22680, 137, 3132, 3946, 1, 11);
}

/* Deterministic pseudo-random geometry (a 32-bit LCG), no library state. */
static int64_t next_in(uint32_t *s, int64_t lo, int64_t hi)
{
    *s = *s * 1664525u + 1013904223u;
    return lo + (int64_t)((*s >> 8) % (uint32_t)(hi - lo + 1));
}

/* The cost model's output rows/cols equal the importer's for pseudo-random dilated
 * convs and ceil_mode pools, many of which fpgaconvnet-model's shape gets wrong. */
static void test_fcn_shapes_match_importer(void **state)
{
    (void)state;
    uint32_t seed = 20;
    int checked = 0, differ[2] = {0, 0};
    for (int i = 0; i < 120; i++) {
        bool conv = i < 60;
        int64_t k = next_in(&seed, conv ? 1 : 2, 5);
        window_spec s = {conv ? "Conv" : (i % 2 ? "MaxPool" : "AveragePool"),
                         next_in(&seed, 1, 4), next_in(&seed, 6, 24), next_in(&seed, 6, 24), 3,
                         k, next_in(&seed, 1, 3), conv ? next_in(&seed, 1, 3) : 1,
                         {0, 0, 0, 0}, conv ? 0 : 1};
        for (int p = 0; p < 4; p++)
            s.pads[p] = next_in(&seed, 0, k / 2);
        cm_error err = {0};
        cm_graph *g = window_graph(&s, &err);
        if (!g)
            continue; /* a window larger than the padded input */
        cm_hdgraph h;
        const cm_hd_options o = {.default_weight_bits = 16, .default_act_bits = 16};
        if (cm_hdgraph_build(g, CM_BACKEND_FPGACONVNET, &o, &h, &err) != CM_OK)
            fail_msg("%s", err.message);
        const cm_fcn_layer *f = &h.nodes[0].hw.fcn;
        if (cm_fcn_rows_out(f) != g->layers[0].out_shape.h ||
            cm_fcn_cols_out(f) != g->layers[0].out_shape.w)
            fail_msg("case %d: cost model %dx%d, importer %lldx%lld", i, cm_fcn_rows_out(f),
                     cm_fcn_cols_out(f), (long long)g->layers[0].out_shape.h,
                     (long long)g->layers[0].out_shape.w);
        checked++;
        cm_fcn_layer ref = *f; /* fpgaconvnet-model's shape: undilated, floor */
        ref.dilation[0] = ref.dilation[1] = 1;
        ref.ceil_mode = false;
        if (cm_fcn_rows_out(&ref) != cm_fcn_rows_out(f) || cm_fcn_cols_out(&ref) != cm_fcn_cols_out(f))
            differ[conv ? 0 : 1]++;
        cm_hdgraph_free(&h);
        cm_graph_free(g);
    }
    /* 118 of the 120 geometries load; the undilated, floor-rounded shape differs in
     * 28 of the 58 convs (dilation 1 to 3) and in 24 of the 60 ceil_mode pools. */
    assert_int_equal(checked, 118);
    assert_int_equal(differ[0], 28);
    assert_int_equal(differ[1], 24);
}

/* ---- FINN ---------------------------------------------------------------------- */

/* The dilated conv: FMPadding (36x36), SWG, MVAU; 4-bit words, folding 1.
 * FMPadding: 16*36*36 = 20736 cycles.
 * SWG (IFM 36, OFM 32, k 3, extent 5, C 16): cycles 36*5*16 + 32*max(32*9*16, 36*16)
 *   = 2880 + 147456 = 150336; line buffer 36*16 = 576 words -> width 18: BRAM
 *   (5 + 1)*ceil(4/18) = 6, LUT 300.
 *   FINN v0.6 (k*d = 6 buffered rows, k + s = 4 lines): 3456 + 147456 = 150912, BRAM 4.
 * MVAU: MW = 9*16 = 144 (k*k taps, unchanged by dilation), MH 32, 32*32 vectors:
 *   cycles 32*144*1024 = 4718592 in both. */
static void test_finn_dilated_conv(void **state)
{
    (void)state;
    check_finn(&dilated_conv, 20736, 150336, 6, 4718592);
}

/* The ceil_mode pool: not FINN's streaming max pool (stride != kernel), so FMPadding,
 * SWG and Pool_Batch. The last window reads one row and column past the input, so
 * FMPadding pads [0, 0, 1, 1]: 4*9*9 = 324 cycles.
 * SWG (IFM 9, OFM 4, k 3, s 2, C 4): 9*3*4 + 4*max(4*9*4, 2*9*4) = 108 + 576 = 684;
 *   36 words -> width 36: BRAM (3 + 2)*ceil(16/36) = 5.
 * Pool_Batch: 4*9*(4*4) = 576 cycles.
 * FINN v0.6 with the floor shape (3x3 output, no FMPadding, IFM 8): SWG
 *   8*3*4 + 3*max(3*36, 2*8*4) = 96 + 324 = 420 (BRAM 5), Pool_Batch 4*9*9 = 324. */
static void test_finn_ceil_pool(void **state)
{
    (void)state;
    check_finn(&ceil_pool, 324, 684, 5, 576);
}

/* The asymmetric conv: FMPadding to 9 rows x 10 cols (4*9*10 = 360 cycles), SWG
 * IFM 9x10, OFM 7x8: 10*3*4 + 7*max(8*9*4, 1*10*4) = 120 + 2016 = 2136; 40 words ->
 * width 36: BRAM (3+1)*ceil(16/36) = 4. MVAU: 8*36*56 = 16128.
 * FINN v0.6 reads only IFMDim[0] = 9 and OFMDim[0] = 7 (a square map):
 *   9*3*4 + 7*max(7*36, 36) = 108 + 1764 = 1872, BRAM 4. */
static void test_finn_asymmetric_pads(void **state)
{
    (void)state;
    check_finn(&asym_conv, 360, 2136, 4, 16128);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fcn_dilated_conv),
        cmocka_unit_test(test_fcn_ceil_pool),
        cmocka_unit_test(test_fcn_asymmetric_pads),
        cmocka_unit_test(test_fcn_shapes_match_importer),
        cmocka_unit_test(test_finn_dilated_conv),
        cmocka_unit_test(test_finn_ceil_pool),
        cmocka_unit_test(test_finn_asymmetric_pads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
