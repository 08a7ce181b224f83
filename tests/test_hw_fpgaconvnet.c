/* fpgaConvNet layer models (src/hw/fpgaconvnet_blocks.c) against the worked examples of
 * ../shared/docs/backend-models.md section 2.7 and hand-computed values of the 2.1
 * helpers and of the kinds the reference commit lacks.
 *
 * The reference counts the Bias module only when a layer has NO bias (sic); cnnmap counts
 * it when the layer HAS one. So a reference figure computed with has_bias = b is checked
 * here with has_bias = !b. */
#include "test_support.h"

#include "hw/fpgaconvnet_blocks.h"

#include <math.h>

static void assert_rel(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("got %.12g, expected %.12g", got, want);
}

typedef struct expected_cost {
    double cycles, depth;
    int64_t lut, ff, bram, dsp;
} expected_cost;

static void check_cost(const cm_fcn_layer *l, expected_cost e)
{
    cm_block_cost c;
    cm_fcn_layer_cost(l, &c);
    assert_rel(c.cycles, e.cycles, 1e-6);
    assert_rel(c.pipeline_depth, e.depth, 1e-12);
    assert_int_equal(c.res.lut, e.lut);
    assert_int_equal(c.res.ff, e.ff);
    assert_int_equal(c.res.bram18, e.bram);
    assert_int_equal(c.res.dsp, e.dsp);
    assert_int_equal(c.res.uram, 0);
}

/* ---- 2.1 helpers ----------------------------------------------------------------- */

static void test_bram_stream(void **state)
{
    (void)state;
    /* depth in the class set: D* = depth. 512 -> width 36 per BRAM. */
    assert_int_equal(cm_fcn_bram_stream(512, 36), 1);
    assert_int_equal(cm_fcn_bram_stream(512, 16), 1);
    /* 513 -> class 1000 -> 18 bits: ceil(16/18) = 1, ceil(36/18) = 2 (2.7 max-pool SW) */
    assert_int_equal(cm_fcn_bram_stream(513, 16), 1);
    assert_int_equal(cm_fcn_bram_stream(513, 36), 2);
    assert_int_equal(cm_fcn_bram_stream(1000, 18), 1);
    /* 1001 -> class 2000 -> 9 bits: ceil(16/9) = 2 */
    assert_int_equal(cm_fcn_bram_stream(1001, 16), 2);
    /* 5000 -> class 8000 -> 2 bits: ceil(16/2) = 8 */
    assert_int_equal(cm_fcn_bram_stream(5000, 16), 8);
    /* 16000 -> 1 bit: 16; above 16000 the class stays 16000 (sic): still 16, and
     * ceil(3/1) = 3 */
    assert_int_equal(cm_fcn_bram_stream(16000, 16), 16);
    assert_int_equal(cm_fcn_bram_stream(20000, 16), 16);
    assert_int_equal(cm_fcn_bram_stream(1000000, 3), 3);
    /* the SW buffers of 2.7 (first example): 34*8+1 = 273 and 8+1 = 9 -> class 512 -> 1 */
    assert_int_equal(cm_fcn_bram_stream(273, 16), 1);
    assert_int_equal(cm_fcn_bram_stream(9, 16), 1);
    /* depth 0 (and no width) -> 0 */
    assert_int_equal(cm_fcn_bram_stream(0, 16), 0);
    assert_int_equal(cm_fcn_bram_stream(100, 0), 0);
    /* wider than 36: one 36-bit word plus the rest. 1000 x 40 -> class 1000 (18 bits):
     * ceil(36/18) + ceil(4/18) = 2 + 1 = 3; 512 x 72 -> 2 x ceil(36/36) = 2;
     * 20000 x 37 -> 1-bit class: 36 + 1 = 37 */
    assert_int_equal(cm_fcn_bram_stream(1000, 40), 3);
    assert_int_equal(cm_fcn_bram_stream(512, 72), 2);
    assert_int_equal(cm_fcn_bram_stream(20000, 37), 37);
}

static void test_bram_mem(void **state)
{
    (void)state;
    /* 16 -> class 18 -> 1000 words per BRAM18 (not 1024) */
    assert_int_equal(cm_fcn_bram_mem(1000, 16), 1);
    assert_int_equal(cm_fcn_bram_mem(1001, 16), 2);
    assert_int_equal(cm_fcn_bram_mem(1024, 16), 2);
    /* 1x1 conv weights of 2.7: 2048 words -> ceil(2048/1000) = 3 */
    assert_int_equal(cm_fcn_bram_mem(2048, 16), 3);
    /* 3 -> class 4 -> 4000 words; 8 -> class 9 -> 2000; 1 -> 16000; 36 -> 512 */
    assert_int_equal(cm_fcn_bram_mem(4000, 3), 1);
    assert_int_equal(cm_fcn_bram_mem(4001, 3), 2);
    assert_int_equal(cm_fcn_bram_mem(2001, 8), 2);
    assert_int_equal(cm_fcn_bram_mem(32000, 1), 2);
    assert_int_equal(cm_fcn_bram_mem(512, 36), 1);
    assert_int_equal(cm_fcn_bram_mem(513, 36), 2);
    assert_int_equal(cm_fcn_bram_mem(0, 16), 0);
    assert_int_equal(cm_fcn_bram_mem(1, 16), 1);
    /* wider than 36: 1000 x 40 -> ceil(1000/512) + ceil(1000/4000) = 2 + 1 = 3;
     * 512 x 72 -> 2 x 1 = 2; 600 x 54 -> ceil(600/512) + ceil(600/1000) (18 bits) = 3 */
    assert_int_equal(cm_fcn_bram_mem(1000, 40), 3);
    assert_int_equal(cm_fcn_bram_mem(512, 72), 2);
    assert_int_equal(cm_fcn_bram_mem(600, 54), 3);
}

static void test_dsp_mult(void **state)
{
    (void)state;
    /* ceil((a + b)/48) */
    assert_int_equal(cm_fcn_dsp_mult(16, 16), 1);
    assert_int_equal(cm_fcn_dsp_mult(24, 24), 1);
    assert_int_equal(cm_fcn_dsp_mult(24, 25), 2);
    assert_int_equal(cm_fcn_dsp_mult(32, 32), 2);
    assert_int_equal(cm_fcn_dsp_mult(48, 48), 2);
    assert_int_equal(cm_fcn_dsp_mult(48, 49), 3);
}

/* ---- 2.7 worked examples ------------------------------------------------------------ */

/* The HLS conv of 2.7: F = 64, r = c = 32, C = 32, k = 3, s = 1, pad 1, ci = 4, co = 8,
 * fine = 3. */
static cm_fcn_layer conv_example(void)
{
    cm_fcn_layer l;
    cm_fcn_layer_init(&l, CM_FCN_CONV);
    l.rows = l.cols = 32;
    l.channels = 32;
    l.filters = 64;
    l.kernel[0] = l.kernel[1] = 3;
    l.pad[0] = l.pad[1] = l.pad[2] = l.pad[3] = 1;
    l.coarse_in = 4;
    l.coarse_out = 8;
    l.fine = 3;
    return l;
}

static void test_conv_example(void **state)
{
    (void)state;
    cm_fcn_layer l = conv_example();
    assert_int_equal(cm_fcn_rows_out(&l), 32);
    assert_int_equal(cm_fcn_cols_out(&l), 32);
    assert_int_equal(cm_fcn_channels_out(&l), 64);
    /* Rates: SW (1024/1156, 1), Conv (1/24, 1/3), Accum (1, 1/8): layer rate_in =
     * (1/24)*1024/1156, latency 32768/(rate_in*4) = 221952 (output side 196608).
     * Depth: SW 34*8*2 + 8*3*2 = 592, Conv 3, Accum 8*8 = 64 -> 659.
     * Per instance: SW LUT 785, FF 860, BRAM 8 (x4); Fork 10/17 (x4); Conv 2817/3622,
     * DSP 3 (x32); Accum 130/154 (x32), BRAM 1 (x8); Glue 2935/2595 (x1);
     * Bias 131/155, DSP 1 (x8). Weights 192 words -> 1 BRAM x 96; bias 8 words -> 1 x 8.
     * No bias, so no Bias module (the doc's corrected figures):
     * LUT 3140 + 40 + 90144 + 4160 + 2935 = 100419; FF 3440 + 68 + 115904 + 4928 + 2595 =
     * 126935; BRAM 32 + 8 + 96 + 8 = 144; DSP 96. */
    l.has_bias = false;
    check_cost(&l, (expected_cost){221952, 659, 100419, 126935, 144, 96});
    /* With a bias, the Bias module is counted: the reference's (sic) figures for its
     * has_bias = 0, i.e. + 131*8, + 155*8, + 1*8 DSP. */
    l.has_bias = true;
    check_cost(&l, (expected_cost){221952, 659, 101467, 128175, 144, 104});
}

static void test_conv_stride2_fine9(void **state)
{
    (void)state;
    /* The same layer with stride 2 and fine 9; the integer pad 1 becomes [0, 1, 1, 0]. */
    cm_fcn_layer l = conv_example();
    l.stride[0] = l.stride[1] = 2;
    l.fine = 9;
    l.pad[0] = 0;
    l.pad[1] = 1;
    l.pad[2] = 1;
    l.pad[3] = 0;
    /* R_o = trunc((32 - 3 + 0 + 1)/2 + 1) = 16 */
    assert_int_equal(cm_fcn_rows_out(&l), 16);
    assert_int_equal(cm_fcn_cols_out(&l), 16);
    /* The doc's figures LUT 91291, FF 116395, BRAM 336, DSP 288 have NO Bias module:
     * SW 785*4 + Fork 8*4 + Conv 2532*32 + Accum 130*32 + Glue 2935 = 91291, and
     * 860*4 + 14*4 + 3293*32 + 154*32 + 2595 = 116395, DSP 9*32 = 288. Under the
     * reference's inverted rule that is has_bias = 1 (despite "the same layer"), so it
     * is cnnmap's has_bias = 0. BRAM: SW 8*4 + Accum 1*8 + weights (64*32*9/(9*32) = 64
     * words -> 1) * 4*8*9 = 288 + bias 8 = 336.
     * Latency: Conv in-rate 1/8 limits, rate_in = (1/8)*(1024/1089)/(256/1024) and
     * 32768/(4*rate_in) = 17424. Depth: SW 33*8*2 + 8*3*2 = 576, Conv 9, Accum 64. */
    l.has_bias = false;
    check_cost(&l, (expected_cost){17424, 649, 91291, 116395, 336, 288});
    /* With a bias: Bias u = [64, 1, 16, 16, 16, 1] -> LUT trunc(131.013) = 131,
     * FF trunc(155.461) = 155, DSP 1, x8: 92339, 117635, 336, 296. */
    l.has_bias = true;
    check_cost(&l, (expected_cost){17424, 649, 92339, 117635, 336, 296});
}

static void test_conv_1x1(void **state)
{
    (void)state;
    /* 1x1 conv F = 64, r = c = 32, C = 32, ci = co = 1 (reference has_bias = 1).
     * Latency: Conv in-rate 1/64 -> 32768*64 = 2097152. Depth: SW 0 + Conv 1 + Accum
     * 32*64 = 2049. SW (k = 1), Fork (co = 1) and Glue (ci = 1) are zeroed;
     * Conv LUT trunc(463.16*6 + 142.83*10) = 4207, FF 5599, DSP 1;
     * Accum u = [64, 1, 16, 32, 32, 32]: LUT 132, FF 157, BRAM 1.
     * LUT 4339, FF 5756; BRAM 1 + weights 2048 words -> 3 + bias 64 words -> 1 = 5. */
    cm_fcn_layer l;
    cm_fcn_layer_init(&l, CM_FCN_CONV);
    l.rows = l.cols = 32;
    l.channels = 32;
    l.filters = 64;
    /* The reference's figures (no Bias module) are cnnmap's has_bias = 0. */
    l.has_bias = false;
    check_cost(&l, (expected_cost){2097152, 2049, 4339, 5756, 5, 1});
    /* + Bias u = [64, 1, 16, 32, 32, 1]: LUT 131, FF 155, DSP 1 (x co = 1) */
    l.has_bias = true;
    check_cost(&l, (expected_cost){2097152, 2049, 4470, 5911, 5, 2});
}

static void test_conv_depthwise(void **state)
{
    (void)state;
    /* No doc example: depthwise F = C = g = 32, r = c = 16, k = 3, pad 1, fine 9,
     * ci = co = 1. 2.4a's closed form: max(1, 324/256) * max(32*256, 32*256,
     * 32*256*9*32/(9*32), 256*32) = 1.265625 * 8192 = 10368.
     * Depth: SW 18*32*2 + 32*3*2 = 1344, Conv 9, Accum 32*32/32^2 = 1 -> 1354.
     * LUT: SW 785 + Conv trunc(463.16*5 + 142.83*8 = 3458.50) = 3458 + Accum
     * u = [32, 32, 16, 16, 16, 32] trunc(131.84) = 131 -> 4374 (Fork, Glue zeroed).
     * FF: 860 + trunc(4611.38) + trunc(156.85) = 5627. DSP: Conv 9.
     * BRAM: SW 2*bram_stream(577) + 6*bram_stream(33) = 8, Accum bram_mem(32/32) = 1,
     * weights (32/32)*32*9/9 = 32 words -> 1 x 9, bias 32 words -> 1: 19. */
    cm_fcn_layer l;
    cm_fcn_layer_init(&l, CM_FCN_CONV);
    l.rows = l.cols = 16;
    l.channels = l.filters = l.groups = 32;
    l.kernel[0] = l.kernel[1] = 3;
    l.pad[0] = l.pad[1] = l.pad[2] = l.pad[3] = 1;
    l.fine = 9;
    check_cost(&l, (expected_cost){10368, 1354, 4374, 5627, 19, 9});
}

static void test_inner_product(void **state)
{
    (void)state;
    /* F = 10, r = c = 4, C = 64, ci = 8, co = 2 (reference has_bias = 1: no Bias).
     * Latency 4*4*64*10/(8*2) = 640; depth Conv 1 + Accum 128*5 = 641.
     * Fork (4, 4, 8): ceil(log2 128) = 7 -> 5/9 (x8); Conv F = 5, 1x1 map:
     * 463.16*log2 5 -> 1075, FF 1529, DSP 1 (x16); Accum u = [5, 1, 16, 1, 1, 128]
     * -> 135/162 (x16), BRAM 1 (x2); Glue 733.75*8 -> 5870, FF 5191.
     * LUT 40 + 17200 + 2160 + 5870 = 25270; FF 72 + 24464 + 2592 + 5191 = 32319;
     * BRAM 2 + weights 640 words -> 1 x 16 + bias 80 words -> 1 x 2 = 20; DSP 16. */
    cm_fcn_layer l;
    cm_fcn_layer_init(&l, CM_FCN_INNER_PRODUCT);
    l.rows = l.cols = 4;
    l.channels = 64;
    l.filters = 10;
    l.coarse_in = 8;
    l.coarse_out = 2;
    assert_int_equal(cm_fcn_rows_out(&l), 1);
    assert_int_equal(cm_fcn_cols_out(&l), 1);
    assert_int_equal(cm_fcn_channels_out(&l), 10);
    l.has_bias = false;
    check_cost(&l, (expected_cost){640, 641, 25270, 32319, 20, 16});
    /* + Bias u = [10, 1, 16, 1, 1, 1]: LUT trunc(129.53) = 129, FF trunc(154.51) = 154,
     * DSP 1, x2 */
    l.has_bias = true;
    check_cost(&l, (expected_cost){640, 641, 25528, 32627, 20, 18});
}

static void test_zeroing_rules(void **state)
{
    (void)state;
    cm_fcn_layer l;
    /* InnerProduct with ci = co = 1 (Glue zeroed): F = 10 on a flattened 1x1x64 input.
     * Latency 64*10 = 640, depth 1 + 64*10 = 641. Fork (1, 1, 64): ceil(log2 64) = 6 ->
     * 4/8; Conv F = 10, ch 64: 463.16*log2 10 = 1538.6 -> 1538, FF 2188, DSP 1; Accum
     * u = [10, 1, 16, 1, 1, 64] -> 132/158, BRAM 1. LUT 1674, FF 2354; BRAM 1 + weights
     * 640 words -> 1 + bias 10 words -> 1 = 3. */
    cm_fcn_layer_init(&l, CM_FCN_INNER_PRODUCT);
    l.rows = l.cols = 1;
    l.channels = 64;
    l.filters = 10;
    check_cost(&l, (expected_cost){640, 641, 1674, 2354, 3, 1});

    /* InnerProduct with r*c*C/ci = 1 (Accum zeroed): 1x1x4, F = 8, ci = 4, co = 2.
     * Latency 4*8/(4*2) = 4, depth Conv 1 + Accum 1*4 = 5. Fork (1, 1, 1): log2 1 = 0
     * -> 0; Conv F = 4 on a 1x1x1 map: 463.16*2 -> 926, FF 658.85*2 -> 1317 (x8);
     * Glue ci = 4: 2935/2595. LUT 7408 + 2935 = 10343, FF 10536 + 2595 = 13131, DSP 8;
     * BRAM weights 8*4/8 = 4 words -> 1 x 8 + bias 4 words -> 1 x 2 = 10. */
    cm_fcn_layer_init(&l, CM_FCN_INNER_PRODUCT);
    l.rows = l.cols = 1;
    l.channels = 4;
    l.filters = 8;
    l.coarse_in = 4;
    l.coarse_out = 2;
    check_cost(&l, (expected_cost){4, 5, 10343, 13131, 10, 8});

    /* Conv 1x1 with C/ci = 1 (SW and Accum zeroed, Fork and Glue counted): 4x4x4,
     * F = 8, ci = 4, co = 8. Rates all 1: latency max(64/4, 128/8) = 16, depth Conv 1 +
     * Accum 1*1 = 2. Fork (4, 4, 1): log2 16 = 4 -> 3/5 (x4); Conv F = 1, 4x4 map:
     * 142.83*4 -> 571, 164.64*4 -> 658, DSP 1 (x32); Glue 2935/2595.
     * LUT 12 + 18272 + 2935 = 21219, FF 20 + 21056 + 2595 = 23671, DSP 32;
     * BRAM weights 8*4/32 = 1 word -> 1 x 32 + bias 1 word -> 1 x 8 = 40. */
    cm_fcn_layer_init(&l, CM_FCN_CONV);
    l.rows = l.cols = 4;
    l.channels = 4;
    l.filters = 8;
    l.coarse_in = 4;
    l.coarse_out = 8;
    check_cost(&l, (expected_cost){16, 2, 21219, 23671, 40, 32});
}

static void test_max_pool(void **state)
{
    (void)state;
    /* r = c = 32, C = 64, k = 2, s = 2, coarse 4: latency 32*32*64/4 = 16384,
     * depth 32*16*1 + 16*2*1 = 544. SW LUT trunc(2.8237*64 + 189.28) = trunc(369.9992)
     * = 369, FF 412, BRAM 1 (513 -> class 1000) + 2 = 3; Pool 267.44*2 -> 534,
     * 447.80*2 -> 895. x4: LUT 3612, FF 5228, BRAM 12. */
    cm_fcn_layer l;
    cm_fcn_layer_init(&l, CM_FCN_POOL);
    l.rows = l.cols = 32;
    l.channels = 64;
    l.kernel[0] = l.kernel[1] = 2;
    l.stride[0] = l.stride[1] = 2;
    l.coarse_in = l.coarse_out = 4;
    assert_int_equal(cm_fcn_rows_out(&l), 16);
    assert_int_equal(cm_fcn_cols_out(&l), 16);
    assert_int_equal(cm_fcn_channels_out(&l), 64);
    check_cost(&l, (expected_cost){16384, 544, 3612, 5228, 12, 0});
}

static void test_relu(void **state)
{
    (void)state;
    /* r = c = 32, C = 64, coarse 4: 16384 cycles, nothing used */
    cm_fcn_layer l;
    cm_fcn_layer_init(&l, CM_FCN_RELU);
    l.rows = l.cols = 32;
    l.channels = 64;
    l.coarse_in = l.coarse_out = 4;
    assert_int_equal(cm_fcn_rows_out(&l), 32);
    check_cost(&l, (expected_cost){16384, 0, 0, 0, 0, 0});
}

/* ---- kinds beyond the reference commit -------------------------------------------- */

static void test_squeeze(void **state)
{
    (void)state;
    /* 8x8x32, ci = 4, co = 8: max(2048/4, 2048/8) = 512; resources 0 */
    cm_fcn_layer l;
    cm_fcn_layer_init(&l, CM_FCN_SQUEEZE);
    l.rows = l.cols = 8;
    l.channels = 32;
    l.coarse_in = 4;
    l.coarse_out = 8;
    check_cost(&l, (expected_cost){512, 0, 0, 0, 0, 0});
    l.coarse_in = 16;
    /* max(128, 256) = 256 */
    check_cost(&l, (expected_cost){256, 0, 0, 0, 0, 0});
}

static void test_global_pool(void **state)
{
    (void)state;
    /* 7x7x512, coarse 4: ch = 128 per stream. Latency 7*7*512/4 = 6272; depth
     * 7*7*128 = 6272. Accum-like u = [128, 1, 16, 7, 7, 128]: LUT 0.0201*128 + 8.0781*16
     * + 0.0230*7 + 0.00384*7 + 0.0474*128 = 138.08 -> 138, FF 0.0168*128 + 9.6426*16
     * + 0.00256*7 + 0.0623*128 = 164.43 -> 164, DSP trunc(0.00046) = 0,
     * BRAM bram_mem(128, 16) = 1; x4. */
    cm_fcn_layer l;
    cm_fcn_layer_init(&l, CM_FCN_GLOBAL_POOL);
    l.rows = l.cols = 7;
    l.channels = 512;
    l.coarse_in = l.coarse_out = 4;
    assert_int_equal(cm_fcn_rows_out(&l), 1);
    assert_int_equal(cm_fcn_cols_out(&l), 1);
    assert_int_equal(cm_fcn_channels_out(&l), 512);
    check_cost(&l, (expected_cost){6272, 6272, 552, 656, 4, 0});
}

static void test_split(void **state)
{
    (void)state;
    /* 16x16x64 to 3 consumers, coarse 2: latency 16*16*64/2 = 8192. Fork (16, 16, 32):
     * ceil(log2 8192) = 13 -> LUT trunc(10.54) = 10, FF trunc(17.43) = 17, x2. */
    cm_fcn_layer l;
    cm_fcn_layer_init(&l, CM_FCN_SPLIT);
    l.rows = l.cols = 16;
    l.channels = 64;
    l.n_inputs = 3;
    l.coarse_in = l.coarse_out = 2;
    assert_int_equal(cm_fcn_channels_out(&l), 64);
    check_cost(&l, (expected_cost){8192, 0, 20, 34, 0, 0});
}

static void test_log2_convention(void **state)
{
    (void)state;
    /* Section 0: log(2^29)/log(2) = 29.000000000000004, so the Fork's
     * ceil(log2(ch*r*c)) is 30 for 8192 x 8192 x 8: LUT trunc(30*0.811) = 24 and
     * FF trunc(30*1.3412) = 40 (an exact log2 would give 23 and 38). Latency 2^29. */
    cm_fcn_layer l;
    cm_fcn_layer_init(&l, CM_FCN_SPLIT);
    l.rows = l.cols = 8192;
    l.channels = 8;
    l.n_inputs = 2;
    check_cost(&l, (expected_cost){536870912.0, 0, 24, 40, 0, 0});
}

static void test_eltwise_concat(void **state)
{
    (void)state;
    cm_fcn_layer l;
    /* 8x8x32 add of 2 inputs, coarse 4: 8*8*32/4 = 512, resources 0 */
    cm_fcn_layer_init(&l, CM_FCN_ELTWISE);
    l.rows = l.cols = 8;
    l.channels = 32;
    l.n_inputs = 2;
    l.coarse_in = l.coarse_out = 4;
    assert_int_equal(cm_fcn_channels_out(&l), 32);
    check_cost(&l, (expected_cost){512, 0, 0, 0, 0, 0});
    /* concat of 32 + 64 channels: channels = 96 (the total), coarse 4:
     * 8*8*96/4 = 1536 */
    cm_fcn_layer_init(&l, CM_FCN_CONCAT);
    l.rows = l.cols = 8;
    l.channels = 96;
    l.n_inputs = 2;
    l.coarse_in = l.coarse_out = 4;
    assert_int_equal(cm_fcn_rows_out(&l), 8);
    assert_int_equal(cm_fcn_channels_out(&l), 96);
    check_cost(&l, (expected_cost){1536, 0, 0, 0, 0, 0});
}

/* Resize (no layer at the reference commit): the walk, row buffers, multipliers and
 * timing of fpgaconvnet_blocks.c and fpgaconvnet_timing.c, by hand. */
static void test_resize(void **state)
{
    (void)state;
    cm_fcn_layer l;
    cm_block_cost c;
    /* nearest 2x: 4x4x8 -> 8x8x8, coarse 2 (ch = 4). Output row o needs input row
     * floor(o/2): every input row and column is fresh, so the walk is the 64 output
     * pixels, 256 cycles. Rows are repeated: one row buffer of 4 pixels x 4 words a
     * stream, bram_mem(16, 16) = 1, times 2 streams; no multipliers. */
    cm_fcn_layer_init(&l, CM_FCN_RELU);
    l.rows = l.cols = 4;
    l.channels = 8;
    l.coarse_in = l.coarse_out = 2;
    cm_fcn_resize_init(&l, 8, 8, false);
    assert_int_equal(l.kind, CM_FCN_RESIZE);
    assert_int_equal(cm_fcn_rows_out(&l), 8);
    assert_int_equal(cm_fcn_cols_out(&l), 8);
    assert_int_equal(cm_fcn_channels_out(&l), 8);
    check_cost(&l, (expected_cost){256, 0, 0, 0, 2, 0});
    /* first output with the first input word; the last input pixel (row 3, column 3)
     * completes output columns 6 and 7 of row 6, then row 7 repeats row 3: (2 + 8 - 1)
     * output pixels of 4 cycles after the one written a cycle after that word */
    cm_fcn_layer_cost(&l, &c);
    assert_rel(c.timing.fill_words, 2, 0);
    assert_rel(c.timing.fill_cycles, 1, 0);
    assert_rel(c.timing.rest_cycles, 256, 0);
    assert_rel(c.timing.tail_cycles, 37, 0);
    assert_rel(c.timing.burst_words, 8, 0);
    /* bilinear 4x3x6 -> 6x2x6, coarse 3 (ch = 2). Rows: output o needs input
     * min(floor(((2o + 1) 4 - 6) / 12) + 1, 3) = 1, 1, 2, 2, 3, 3: 3 fresh rows (row 0 is
     * read with row 1 but no output waits for it), row 3 first needed by output 4.
     * Columns: min(floor(((2o + 1) 3 - 2) / 4) + 1, 2) = 1, 2: 2 fresh, column 0 read
     * without writing. Walk: (4 - 3) rows x 3 + 3 fresh rows x (3 - 2) + 6 x 2 = 18
     * pixels, 36 cycles. Repeats and the row above: 2 row buffers of bram_mem(3 x 2, 16)
     * = 1 a stream, 6; 4 multipliers a stream, 12. */
    cm_fcn_layer_init(&l, CM_FCN_RELU);
    l.rows = 4;
    l.cols = 3;
    l.channels = 6;
    l.coarse_in = l.coarse_out = 3;
    cm_fcn_resize_init(&l, 6, 2, true);
    assert_int_equal(l.resize[0].fresh, 3);
    assert_int_equal(l.resize[0].last_first, 4);
    assert_int_equal(l.resize[1].fresh, 2);
    check_cost(&l, (expected_cost){36, 0, 0, 0, 6, 12});
    /* the first output needs input (1, 1): 4 pixels ahead, 8 cycles, then its first
     * word; the last input pixel completes output (4, 1), then row 5 repeats: (1 + 2 -
     * 1) x 2 + 1 */
    cm_fcn_layer_cost(&l, &c);
    assert_rel(c.timing.fill_words, 4 * 6 + 3, 0);
    assert_rel(c.timing.fill_cycles, 9, 0);
    assert_rel(c.timing.rest_cycles, 28, 0);
    assert_rel(c.timing.tail_cycles, 5, 0);
}

/* ---- layer set-up and folding values ----------------------------------------------- */

static void test_layer_init(void **state)
{
    (void)state;
    cm_fcn_layer l;
    cm_fcn_layer_init(&l, CM_FCN_POOL);
    assert_int_equal(l.kind, CM_FCN_POOL);
    assert_int_equal(l.groups, 1);
    assert_int_equal(l.stride[0], 1);
    assert_int_equal(l.stride[1], 1);
    assert_int_equal(l.kernel[0], 1);
    assert_int_equal(l.kernel[1], 1);
    for (int i = 0; i < 4; i++)
        assert_int_equal(l.pad[i], 0);
    assert_int_equal(l.coarse_in, 1);
    assert_int_equal(l.coarse_out, 1);
    assert_int_equal(l.fine, 1);
    assert_int_equal(l.n_inputs, 1);
    assert_int_equal(l.data_width, 16);
    assert_int_equal(l.weight_width, 16);
    assert_int_equal(l.acc_width, 16);
    assert_int_equal(l.bias_width, 16);
    assert_false(l.has_bias);
}

static void test_rows_out(void **state)
{
    (void)state;
    cm_fcn_layer l;
    cm_fcn_layer_init(&l, CM_FCN_CONV);
    /* 224, k 7, s 2, pad [3, 3, 2, 2] -> trunc((224 - 7 + 5)/2 + 1) = trunc(112) = 112;
     * cols with pad 3 + 2: the same */
    l.rows = l.cols = 224;
    l.kernel[0] = l.kernel[1] = 7;
    l.stride[0] = l.stride[1] = 2;
    l.pad[0] = l.pad[1] = 3;
    l.pad[2] = l.pad[3] = 2;
    assert_int_equal(cm_fcn_rows_out(&l), 112);
    assert_int_equal(cm_fcn_cols_out(&l), 112);
    /* non-square: rows 10, k 3, s 1, pad 0 -> 8; cols 9, k 1, s 2, pad [_, 1, _, 0] ->
     * trunc((9 - 1 + 1)/2 + 1) = trunc(5.5) = 5 */
    l.rows = 10;
    l.cols = 9;
    l.kernel[0] = 3;
    l.kernel[1] = 1;
    l.stride[0] = 1;
    l.stride[1] = 2;
    l.pad[0] = l.pad[2] = l.pad[3] = 0;
    l.pad[1] = 1;
    assert_int_equal(cm_fcn_rows_out(&l), 8);
    assert_int_equal(cm_fcn_cols_out(&l), 5);
}

static void test_fine_values(void **state)
{
    (void)state;
    int v[3] = {0, 0, 0};
    /* 3x3 -> {1, 3, 9} */
    assert_int_equal(cm_fcn_fine_values((const int[]){3, 3}, v), 3);
    assert_int_equal(v[0], 1);
    assert_int_equal(v[1], 3);
    assert_int_equal(v[2], 9);
    /* 1x1 -> {1} */
    assert_int_equal(cm_fcn_fine_values((const int[]){1, 1}, v), 1);
    assert_int_equal(v[0], 1);
    /* 1x7 and 5x1 -> {1, max} */
    assert_int_equal(cm_fcn_fine_values((const int[]){1, 7}, v), 2);
    assert_int_equal(v[0], 1);
    assert_int_equal(v[1], 7);
    assert_int_equal(cm_fcn_fine_values((const int[]){5, 1}, v), 2);
    assert_int_equal(v[0], 1);
    assert_int_equal(v[1], 5);
    /* 3x5 -> {1, 5, 15} */
    assert_int_equal(cm_fcn_fine_values((const int[]){3, 5}, v), 3);
    assert_int_equal(v[0], 1);
    assert_int_equal(v[1], 5);
    assert_int_equal(v[2], 15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bram_stream),
        cmocka_unit_test(test_bram_mem),
        cmocka_unit_test(test_dsp_mult),
        cmocka_unit_test(test_conv_example),
        cmocka_unit_test(test_conv_stride2_fine9),
        cmocka_unit_test(test_conv_1x1),
        cmocka_unit_test(test_conv_depthwise),
        cmocka_unit_test(test_inner_product),
        cmocka_unit_test(test_zeroing_rules),
        cmocka_unit_test(test_max_pool),
        cmocka_unit_test(test_relu),
        cmocka_unit_test(test_squeeze),
        cmocka_unit_test(test_global_pool),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_log2_convention),
        cmocka_unit_test(test_eltwise_concat),
        cmocka_unit_test(test_resize),
        cmocka_unit_test(test_layer_init),
        cmocka_unit_test(test_rows_out),
        cmocka_unit_test(test_fine_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
