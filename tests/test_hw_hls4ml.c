/* SAMO's hls4ml model (src/hw/hls4ml_blocks.c) against section 4 of
 * ../shared/docs/backend-models.md: the reuse-factor rule (4.1 i-iii), the kernel
 * folding list, RF = trunc(N/kf), latency = spatial*RF and DSP = kf (4.3 examples);
 * and cnnmap's resource model (weights, FIFOs, line buffers, logic), each figure
 * worked out by hand, up to a small network that only fits a board when cut. */
#include "test_support.h"
#include "onnx_builder.h"

#include "hw/hls4ml_blocks.h"

#include <cnnmap/design.h>
#include <cnnmap/model.h>
#include <cnnmap/optimise.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void expect_folds(int64_t n_in, int64_t n_out, const int64_t *want, int64_t n_want)
{
    int64_t got[64];
    int64_t n = cm_hls4ml_kernel_folds(n_in, n_out, got, 64);
    if (n != n_want)
        fail_msg("n_in %lld n_out %lld: %lld folds, expected %lld", (long long)n_in,
                 (long long)n_out, (long long)n, (long long)n_want);
    for (int64_t i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("n_in %lld n_out %lld: fold %lld is %lld, expected %lld", (long long)n_in,
                     (long long)n_out, (long long)i, (long long)got[i], (long long)want[i]);
}

/* Section 4.3: C_in = 3, C_out = 16, k = 3 -> n_in = 27, n_out = 16, N = 432. */
static void test_folds_example(void **state)
{
    (void)state;
    static const int64_t want[] = {1, 3, 9, 27, 54, 108, 216, 432};
    expect_folds(27, 16, want, 8);
    /* Counting only. */
    assert_int_equal(cm_hls4ml_kernel_folds(27, 16, NULL, 0), 8);
    /* cap limits what is written, not the count. */
    int64_t buf[5] = {-1, -1, -1, -1, -1};
    assert_int_equal(cm_hls4ml_kernel_folds(27, 16, buf, 3), 8);
    assert_int_equal(buf[0], 1);
    assert_int_equal(buf[1], 3);
    assert_int_equal(buf[2], 9);
    assert_int_equal(buf[3], -1);
    assert_int_equal(buf[4], -1);
}

/* Individual conditions on the 27 x 16 layer, each decided by hand. */
static void test_rf_rule(void **state)
{
    (void)state;
    /* RF = 1: M = 432, 432 % 16 = 0; 1 < 27; 432 % 1 = 0. Kept (SAMO keeps RF = 1). */
    assert_true(cm_hls4ml_rf_valid(27, 16, 1));
    /* RF = 2 fails (i): M = ceil(432/2) = 216, 216 % 16 = 8, and 2 < 27. */
    assert_false(cm_hls4ml_rf_valid(27, 16, 2));
    /* RF = 3: M = 144 = 9*16. */
    assert_true(cm_hls4ml_rf_valid(27, 16, 3));
    /* RF = 4: M = 108, 108 % 16 = 12. */
    assert_false(cm_hls4ml_rf_valid(27, 16, 4));
    /* RF = 36 fails only (ii): 432 % 36 = 0 and 36 >= 27, but 36 % 27 = 9. */
    assert_false(cm_hls4ml_rf_valid(27, 16, 36));
    /* RF = 54: >= n_in so (i) holds, 54 % 27 = 0, 432 % 54 = 0. */
    assert_true(cm_hls4ml_rf_valid(27, 16, 54));
    /* RF = 81 = 3*27: (i), (ii) hold; 432 % 81 = 27 fails (iii). */
    assert_false(cm_hls4ml_rf_valid(27, 16, 81));
    /* Out of range. */
    assert_false(cm_hls4ml_rf_valid(27, 16, 0));
    assert_false(cm_hls4ml_rf_valid(27, 16, -3));
    assert_false(cm_hls4ml_rf_valid(27, 16, 864));
    assert_false(cm_hls4ml_rf_valid(0, 16, 1));
    assert_false(cm_hls4ml_rf_valid(27, 0, 1));
    assert_false(cm_hls4ml_rf_valid(INT64_MAX, 4, 1));
    /* n_in = 5, n_out = 2: RF = 2 < n_in has M = ceil(10/2) = 5, 5 % 2 = 1 -> invalid by
     * (i) alone; RF = 5 >= n_in, 5 % 5 = 0, 10 % 5 = 0 -> valid. */
    assert_false(cm_hls4ml_rf_valid(5, 2, 2));
    assert_true(cm_hls4ml_rf_valid(5, 2, 5));
}

/* The 4.3 example: RF = N/kf for kf in the list is mostly not a valid hls4ml RF. */
static void test_rf_from_folds_example(void **state)
{
    (void)state;
    static const int64_t kf[] = {1, 3, 9, 27, 54, 108, 216, 432};
    static const int64_t rf[] = {432, 144, 48, 16, 8, 4, 2, 1};
    static const bool valid[] = {true, false, false, false, false, false, false, true};
    for (int i = 0; i < 8; i++) {
        cm_hls4ml_layer l = {.multiplies = true, .spatial = 1, .n_in = 27, .n_out = 16,
                             .kernel_fold = kf[i]};
        assert_int_equal(cm_hls4ml_reuse_factor(&l), rf[i]);
        assert_int_equal(cm_hls4ml_rf_valid(27, 16, rf[i]), valid[i]);
    }
}

/* Shapes where the divisor walk could go wrong: a perfect square, a prime, N = 1 and
 * n_in = 1 (every divisor valid). Each list was worked out from (i)-(iii) by hand. */
static void test_folds_small_shapes(void **state)
{
    (void)state;
    /* 7 x 7 = 49: divisors 1, 7, 49; RF 7: M = 7 (ok), 7 % 7 = 0; RF 49: 49 % 7 = 0. */
    static const int64_t sq[] = {1, 7, 49};
    expect_folds(7, 7, sq, 3);
    /* 1 x 10: RF >= n_in = 1 always, RF % 1 = 0: divisors of 10. */
    static const int64_t one_in[] = {1, 2, 5, 10};
    expect_folds(1, 10, one_in, 4);
    /* 13 x 1: RF < 13 needs M = ceil(13/RF) % 1 = 0 (always) and 13 % RF = 0 -> 1; and 13. */
    static const int64_t prime[] = {1, 13};
    expect_folds(13, 1, prime, 2);
    static const int64_t single[] = {1};
    expect_folds(1, 1, single, 1);
    /* 4 x 4 = 16: RF 2: M = 8, 8 % 4 = 0 -> valid; RF 4: M = 4 -> valid; RF 8: 8 % 4 = 0,
     * valid; RF 16 valid. */
    static const int64_t four[] = {1, 2, 4, 8, 16};
    expect_folds(4, 4, four, 5);
    assert_int_equal(cm_hls4ml_kernel_folds(0, 4, NULL, 0), 0);
}

/* The divisor walk agrees with a plain scan of RF = 1..N through the rule, for a range
 * of shapes including a ResNet-50 layer (512*9 x 512, N = 2359296). */
static void test_folds_match_full_scan(void **state)
{
    (void)state;
    static const int64_t shapes[][2] = {
        {27, 16}, {144, 32}, {4608, 512}, {1152, 256}, {2048, 1000}, {75, 6}, {360, 24},
    };
    static int64_t fast[4096];
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int64_t n_in = shapes[s][0], n_out = shapes[s][1];
        int64_t n = cm_hls4ml_kernel_folds(n_in, n_out, fast, 4096);
        assert_true(n > 0 && n <= 4096);
        int64_t k = 0;
        for (int64_t rf = 1; rf <= n_in * n_out; rf++) {
            if (!cm_hls4ml_rf_valid(n_in, n_out, rf))
                continue;
            if (k >= n || fast[k] != rf)
                fail_msg("%lld x %lld: scan finds RF %lld at position %lld", (long long)n_in,
                         (long long)n_out, (long long)rf, (long long)k);
            k++;
        }
        assert_int_equal(k, n);
    }
}

/* A 2048*9 x 512 layer (N = 9437184): divisor enumeration only, checked for order and by
 * the rule. The first entries are the divisors d of N below n_in with N/d % 512 = 0. */
static void test_folds_large_layer(void **state)
{
    (void)state;
    int64_t n_in = 2048 * 9, n_out = 512;
    static int64_t out[4096];
    int64_t n = cm_hls4ml_kernel_folds(n_in, n_out, out, 4096);
    assert_true(n > 2 && n <= 4096);
    assert_int_equal(out[0], 1);
    assert_int_equal(out[n - 1], n_in * n_out);
    for (int64_t i = 0; i < n; i++) {
        assert_true(cm_hls4ml_rf_valid(n_in, n_out, out[i]));
        if (i > 0)
            assert_true(out[i] > out[i - 1]);
    }
    /* RF = 2: M = N/2 = 4718592 = 9216*512 -> valid; RF = n_in -> valid. */
    assert_int_equal(out[1], 2);
    bool has_n_in = false;
    for (int64_t i = 0; i < n; i++)
        has_n_in |= out[i] == n_in;
    assert_true(has_n_in);
}

/* Section 4.3: Conv2D 32x32x16 -> 32, k = 3: n_in = 144, n_out = 32, N = 4608. */
static void test_conv_example(void **state)
{
    (void)state;
    cm_hls4ml_layer l = {.multiplies = true, .spatial = 32 * 32, .n_in = 144, .n_out = 32,
                         .kernel_fold = 8};
    /* RF = 4608/8 = 576: >= 144, 576 % 144 = 0, 4608 % 576 = 0 -> valid. */
    assert_int_equal(cm_hls4ml_reuse_factor(&l), 576);
    assert_true(cm_hls4ml_rf_valid(144, 32, 576));
    cm_block_cost c;
    memset(&c, 0x5a, sizeof c);
    /* bits = 0 is SAMO's model: DSPs only (the resource model is tested below). */
    cm_hls4ml_layer_cost(&l, &c);
    assert_true(c.cycles == 589824.0); /* 1024 * 576 */
    assert_int_equal(c.res.dsp, 8);
    assert_int_equal(c.res.lut, 0);
    assert_int_equal(c.res.ff, 0);
    assert_int_equal(c.res.bram18, 0);
    assert_int_equal(c.res.uram, 0);
    assert_true(c.pipeline_depth == 0.0);

    /* kf = 3 -> RF = 1536: 1536 % 144 = 96 with RF >= n_in -> invalid in hls4ml. */
    l.kernel_fold = 3;
    assert_int_equal(cm_hls4ml_reuse_factor(&l), 1536);
    assert_false(cm_hls4ml_rf_valid(144, 32, 1536));
    cm_hls4ml_layer_cost(&l, &c);
    assert_true(c.cycles == 1024.0 * 1536);
    assert_int_equal(c.res.dsp, 3);

    /* Initial kf = 1: RF = N, the most serial design: 1024*4608 cycles, 1 DSP. */
    l.kernel_fold = 1;
    cm_hls4ml_layer_cost(&l, &c);
    assert_true(c.cycles == 1024.0 * 4608);
    assert_int_equal(c.res.dsp, 1);
}

static void test_layer_cost_other(void **state)
{
    (void)state;
    cm_block_cost c;
    /* Dense 1024 -> 10 (spatial 1), kf = 16: RF = trunc(10240/16) = 640, DSP 16. */
    cm_hls4ml_layer dense = {.multiplies = true, .spatial = 1, .n_in = 1024, .n_out = 10,
                             .kernel_fold = 16};
    cm_hls4ml_layer_cost(&dense, &c);
    assert_true(c.cycles == 640.0);
    assert_int_equal(c.res.dsp, 16);
    /* RF truncates: kf = 3 -> trunc(3413.33) = 3413. */
    dense.kernel_fold = 3;
    assert_int_equal(cm_hls4ml_reuse_factor(&dense), 3413);
    /* A layer without multipliers (k = 1 scan, e.g. pooling over 8x8x64): no DSP. */
    cm_hls4ml_layer pool = {.multiplies = false, .spatial = 64, .n_in = 64, .n_out = 64,
                            .kernel_fold = 4};
    cm_hls4ml_layer_cost(&pool, &c);
    assert_true(c.cycles == 64.0 * 1024); /* RF = 4096/4 */
    assert_int_equal(c.res.dsp, 0);
    /* Degenerate kf: no division by zero, nothing counted. */
    pool.kernel_fold = 0;
    pool.multiplies = true;
    assert_int_equal(cm_hls4ml_reuse_factor(&pool), 0);
    cm_hls4ml_layer_cost(&pool, &c);
    assert_true(c.cycles == 0.0);
    assert_int_equal(c.res.dsp, 0);
    /* kf > N: trunc(N/kf) = 0. */
    pool.kernel_fold = 5000;
    assert_int_equal(cm_hls4ml_reuse_factor(&pool), 0);
}

/* A resize writes a pixel a cycle: its cycles are its walk (cm_resize_axis), not its
 * input pixels. DeepLabV3's pooled branch, 1x1 -> 28x28 bilinear: 784 cycles (the
 * whole-vector rule for a 1x1 input would say 1); its first output needs the only
 * pixel, and all 784 outputs follow it. A nearest 2x upsample of 4x4: 64 output
 * pixels; after its last input pixel it writes output columns 6 and 7 of row 6 and then
 * repeats row 3 as row 7: 10 pixels a cycle each, the first a cycle after that pixel
 * came in, so the last 10 cycles after it. */
static void test_resize_cost(void **state)
{
    (void)state;
    cm_block_cost c;
    cm_hls4ml_layer up = {.spatial = 1, .n_in = 1, .n_out = 1, .kernel_fold = 1,
                          .resizes = true, .channels_in = 256, .channels_out = 256};
    cm_resize_axis_make(1, 28, 1, &up.resize[0]);
    cm_resize_axis_make(1, 28, 1, &up.resize[1]);
    cm_hls4ml_layer_cost(&up, &c);
    assert_true(c.cycles == 784.0);
    assert_true(c.timing.fill_words == 256.0);
    assert_true(c.timing.tail_cycles == 28.0 * 28.0);
    cm_resize_axis_make(4, 8, 0, &up.resize[0]);
    cm_resize_axis_make(4, 8, 0, &up.resize[1]);
    up.spatial = 16;
    cm_hls4ml_layer_cost(&up, &c);
    assert_true(c.cycles == 64.0);
    assert_true(c.timing.tail_cycles == 10.0);
    assert_true(c.timing.rest_cycles == 64.0);
}

static void expect_res(cm_resources r, int64_t dsp, int64_t bram18, int64_t lut, int64_t ff)
{
    if (r.dsp != dsp || r.bram18 != bram18 || r.uram != 0 || r.lut != lut || r.ff != ff)
        fail_msg("got DSP %lld BRAM18 %lld URAM %lld LUT %lld FF %lld, expected %lld %lld 0 %lld %lld",
                 (long long)r.dsp, (long long)r.bram18, (long long)r.uram, (long long)r.lut,
                 (long long)r.ff, (long long)dsp, (long long)bram18, (long long)lut,
                 (long long)ff);
}

static cm_resources weights_res(int64_t n, int64_t rf)
{
    cm_resources r = {0, 0, 0, 0, 0};
    cm_hls4ml_weights_cost(n, rf, 16, &r);
    return r;
}

static cm_resources fifo_res(int64_t depth, int64_t width)
{
    cm_resources r = {0, 0, 0, 0, 0};
    cm_hls4ml_fifo_cost(depth, width, &r);
    return r;
}

static cm_resources line_buffer_res(int64_t rows, int64_t channels, int64_t width, int bits)
{
    cm_resources r = {0, 0, 0, 0, 0};
    cm_hls4ml_line_buffer_cost(rows, channels, width, bits, &r);
    return r;
}

/* Weights: a memory RF words deep, ceil(N / RF) * 16 bits wide, in 1024 x 18 BRAM18s. */
static void test_weights(void **state)
{
    (void)state;
    /* Conv2D 3x3, 16 -> 32 (N = 144 * 32 = 4608) at RF 576: block factor 8, 128 bits
     * wide, 576 deep: ceil(576/1024) * ceil(128/18) = 1 * 8 = 8 BRAM18. hls4ml's
     * estimator: ceil(4608*16 / (576*36)) = ceil(3.56) = 4 BRAM36 = 8 BRAM18. */
    expect_res(weights_res(4608, 576), 0, 8, 0, 0);
    /* RF = N = 4608: one weight per word, 16 bits, 4608 deep: ceil(4608/1024) = 5
     * BRAM18. hls4ml's estimator says ceil(16/36) = 1 BRAM36, which cannot hold
     * 4608 x 16 = 73728 bits (36864 per BRAM36): the depth factor is cnnmap's. */
    expect_res(weights_res(4608, 4608), 0, 5, 0, 0);
    /* RF = 144: block factor 32, 512 bits: ceil(512/18) = 29 BRAM18 (the estimator's
     * ceil(4608*16/(144*36)) = 15 BRAM36 = 30 BRAM18, whole BRAM36s). */
    expect_res(weights_res(4608, 144), 0, 29, 0, 0);
    /* Dense 64 -> 10 at RF 1: one 640 * 16-bit word, in registers: 10240 FF, no BRAM. */
    expect_res(weights_res(640, 1), 0, 0, 0, 10240);
}

/* Output FIFOs: hls4ml's depth is the output pixels, the width channels x 16 bits. */
static void test_fifos_and_line_buffers(void **state)
{
    (void)state;
    /* 8x8x50 (LeNet's conv2): 64 deep, 800 bits: ceil(64/1024) * ceil(800/18) = 45. */
    expect_res(fifo_res(64, 50 * 16), 0, 45, 0, 0);
    /* A Dense output: depth 1, 160 bits: one SRL per bit, 160 LUTs. */
    expect_res(fifo_res(1, 10 * 16), 0, 0, 160, 0);
    /* 32 deep still fits one SRLC32E per bit; 33 goes to BRAM: ceil(160/18) = 9. */
    expect_res(fifo_res(32, 10 * 16), 0, 0, 160, 0);
    expect_res(fifo_res(33, 10 * 16), 0, 9, 0, 0);
    /* VGG16's first feature map, 224x224x64: 50176 deep, 1024 bits:
     * ceil(50176/1024) * ceil(1024/18) = 49 * 57 = 2793 BRAM18. */
    expect_res(fifo_res(224 * 224, 64 * 16), 0, 2793, 0, 0);
    /* Line buffer of a 3x3 conv over 34-wide rows of 16 channels: 2 rows x 16 channels
     * of 34 x 16 bits, ceil(34/32) = 2 SRLs per bit: 2 * 16 * 16 * 2 = 1024 LUTs. */
    expect_res(line_buffer_res(2, 16, 34, 16), 0, 0, 1024, 0);
}

/* A whole Conv2D node: 32x32x16 -> 32x32x32, 3x3, pad 1, kf = 8 (RF 576). */
static void test_conv_node(void **state)
{
    (void)state;
    cm_hls4ml_layer l = {.multiplies = true, .spatial = 32 * 32, .n_in = 144, .n_out = 32,
                         .kernel_fold = 8, .kind = CM_HLS4ML_MAC, .bits = 16,
                         .channels_in = 16, .channels_out = 32, .line_width = 34,
                         .kernel_h = 3, .kernel_w = 3, .fifo_depth = 32 * 32};
    cm_block_cost c;
    cm_hls4ml_layer_cost(&l, &c);
    assert_true(c.cycles == 589824.0);
    /* BRAM18: weights 8 + FIFO 1024 deep x 512 bits: 1 * ceil(512/18) = 29 -> 37.
     * LUT: 8 adders x 16 bits = 128 + line buffer 2 * 16 * 16 * ceil(34/32) = 1024.
     * FF: window 144 + accumulators 32 + product registers 8, x 16 bits = 2944. */
    expect_res(c.res, 8, 37, 128 + 1024, 2944);
    /* Fully parallel, kf = 4608 (RF 1): weights in registers, 4608 * 16 = 73728 FF;
     * 4608 adders: 73728 LUT + the same line buffer; FF (144 + 32 + 4608) * 16 more. */
    l.kernel_fold = 4608;
    cm_hls4ml_layer_cost(&l, &c);
    assert_true(c.cycles == 1024.0);
    expect_res(c.res, 4608, 29, 73728 + 1024, 73728 + (144 + 32 + 4608) * 16);
}

/* Nodes without weights, each over 16x16 output pixels unless said otherwise. */
static void test_other_nodes(void **state)
{
    (void)state;
    cm_block_cost c;
    /* Max pool 2x2, 32x32x32 in, 16x16x32 out: 3 comparators per channel, 3 * 32 * 16
     * = 1536 LUT, plus a 1-row line buffer 32 * 16 * ceil(32/32) = 512; the 2x2 window
     * in registers 4 * 32 * 16 = 2048 FF; FIFO 256 deep x 512 bits: 29 BRAM18. */
    cm_hls4ml_layer pool = {.spatial = 1024, .n_in = 1, .n_out = 1, .kernel_fold = 1,
                            .kind = CM_HLS4ML_POOL, .bits = 16, .channels_in = 32,
                            .channels_out = 32, .line_width = 32, .kernel_h = 2,
                            .kernel_w = 2, .fifo_depth = 256};
    cm_hls4ml_layer_cost(&pool, &c);
    expect_res(c.res, 0, 29, 1536 + 512, 2048);
    /* ReLU over 8x8x64: a select per bit 64 * 16 = 1024 LUT, output register 1024 FF,
     * FIFO 64 deep x 1024 bits: ceil(1024/18) = 57 BRAM18. */
    cm_hls4ml_layer relu = {.spatial = 64, .n_in = 1, .n_out = 1, .kernel_fold = 1,
                            .kind = CM_HLS4ML_ACT, .bits = 16, .channels_in = 64,
                            .channels_out = 64, .kernel_h = 1, .kernel_w = 1,
                            .fifo_depth = 64};
    cm_hls4ml_layer_cost(&relu, &c);
    expect_res(c.res, 0, 57, 1024, 1024);
    /* Sigmoid on a 5-vector: ceil(5/2) = 3 table BRAM18, 80 FF, depth-1 FIFO 80 LUT. */
    cm_hls4ml_layer sig = relu;
    sig.kind = CM_HLS4ML_ACT_TABLE;
    sig.channels_in = sig.channels_out = 5;
    sig.fifo_depth = 1;
    cm_hls4ml_layer_cost(&sig, &c);
    expect_res(c.res, 0, 3, 80, 80);
    /* Element-wise multiply of 8 channels: 8 DSPs, 128 FF, depth-1 FIFO 128 LUT. */
    cm_hls4ml_layer mul = sig;
    mul.kind = CM_HLS4ML_MUL;
    mul.channels_in = mul.channels_out = 8;
    cm_hls4ml_layer_cost(&mul, &c);
    expect_res(c.res, 8, 0, 128, 128);
    /* Add of 8 channels: 128 LUT adders + 128 LUT FIFO, 128 FF. */
    mul.kind = CM_HLS4ML_ADD;
    cm_hls4ml_layer_cost(&mul, &c);
    expect_res(c.res, 0, 0, 256, 128);
}

static cm_graph *conv_relu_graph(void)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 4, 8, 8});
    ob_init_float(m, "W", 4, (int64_t[]){8, 4, 3, 3}, NULL);
    Onnx__NodeProto *n = ob_node(m, "Conv", "conv", "x,W", "c");
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){3, 3});
    ob_attr_ints(n, "pads", 4, (int64_t[]){1, 1, 1, 1});
    ob_node(m, "Relu", "relu", "c", "y");
    ob_output(m, "y", 4, NULL);
    size_t len;
    uint8_t *bytes = ob_pack(m, &len);
    ob_model_free(m);
    char path[256];
    cm_test_write_temp(bytes, len, ".onnx", path, sizeof path);
    free(bytes);
    cm_graph *g = NULL;
    cm_error err = {0};
    cm_status st = cm_model_load(path, &g, &err);
    remove(path);
    if (st != CM_OK)
        fail_msg("%s", err.message);
    return g;
}

/* The conv/ReLU network on a ZC706 cut down to `bram` BRAM18, with its peak bandwidth
 * so that no partition is memory-bound (the design owns the graph); optimised by the
 * rule optimiser into *r unless r is NULL. */
static cm_design *tiny_design(int64_t bram, cm_optimise_result *r)
{
    cm_error err = {0};
    cm_board board;
    assert_int_equal(cm_board_builtin("zc706", &board, &err), CM_OK);
    board.resources.bram18 = bram;
    board.bandwidth_gbps = board.peak_bandwidth_gbps;
    cm_design_options o;
    cm_design_options_init(&o);
    o.backend = CM_BACKEND_HLS4ML;
    cm_design *d = NULL;
    if (cm_design_create(conv_relu_graph(), &board, &o, &d, &err) != CM_OK)
        fail_msg("%s", err.message);
    cm_optimise_options rule = {.optimiser = CM_OPTIMISER_RULE, .seed = 1};
    if (r)
        assert_int_equal(cm_optimise(d, &rule, r, &err), CM_OK);
    return d;
}

/* Conv 3x3 4 -> 8 over 8x8 (pad 1), then ReLU. At kf = 1 (RF 288):
 *   conv: weights 288 deep x 16 bits = 1 BRAM18; FIFO 64 deep x 128 bits =
 *         ceil(128/18) = 8; LUT 16 + line buffer 2 * 4 * 16 * ceil(10/32) = 128 -> 144;
 *         FF (36 + 8 + 1) * 16 = 720.
 *   relu: FIFO 8 BRAM18; LUT 8 * 16 = 128; FF 128.
 * Together 17 BRAM18; every folding keeps both FIFOs (16). On 12 BRAM18 the network
 * fits only cut in two (9 and 8); on 7 nothing fits: each node's FIFO alone needs 8
 * (the conv's weights leave BRAM only at RF = 1), so the rule optimiser proves it. */
static void test_network_on_tiny_boards(void **state)
{
    (void)state;
    cm_design *d = tiny_design(1000, NULL);
    assert_int_equal(cm_design_node_count(d), 2);
    cm_node_info info;
    cm_design_node_info(d, 0, &info);
    expect_res(info.res, 1, 9, 144, 720);
    cm_design_node_info(d, 1, &info);
    expect_res(info.res, 0, 8, 128, 128);
    assert_true(cm_design_feasible(d));
    cm_design_free(d);

    cm_optimise_result r;
    d = tiny_design(12, &r);
    assert_true(cm_design_feasible(d));
    assert_int_equal(cm_design_partition_count(d), 2);
    cm_design_free(d);

    d = tiny_design(7, &r);
    assert_false(cm_design_feasible(d));
    assert_true(r.proven_infeasible);
    assert_non_null(strstr(r.note, "node conv"));
    cm_violation v;
    assert_true(cm_design_check(d, &v, 1) >= 1);
    assert_int_equal(v.constraint, CM_CONSTRAINT_RESOURCE);
    assert_non_null(strstr(v.message, "BRAM18"));
    assert_non_null(strstr(v.message, "node conv"));
    cm_design_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_folds_example),
        cmocka_unit_test(test_rf_rule),
        cmocka_unit_test(test_rf_from_folds_example),
        cmocka_unit_test(test_folds_small_shapes),
        cmocka_unit_test(test_folds_match_full_scan),
        cmocka_unit_test(test_folds_large_layer),
        cmocka_unit_test(test_conv_example),
        cmocka_unit_test(test_layer_cost_other),
        cmocka_unit_test(test_resize_cost),
        cmocka_unit_test(test_weights),
        cmocka_unit_test(test_fifos_and_line_buffers),
        cmocka_unit_test(test_conv_node),
        cmocka_unit_test(test_other_nodes),
        cmocka_unit_test(test_network_on_tiny_boards),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
