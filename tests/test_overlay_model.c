/* The overlay's latency model against hand arithmetic: GEMM cycles per dataflow
 * (DYNAMAP eq. 9, and its section 3.2 example of 68% utilisation), a layer's cycles
 * under im2col, kn2row and Winograd (eqs. 10-12, with Winograd's rounds for kernels
 * larger than r), the burst waste of eq. 13 and the load/store costs of Table 2. */
#include "test_support.h"

#include <math.h>
#include <string.h>

#include "overlay/ov_model.h"

static cm_ov_array small_array(void)
{
    cm_ov_array a;
    memset(&a, 0, sizeof a);
    a.p1 = 4;
    a.p2 = 3;
    a.freq_hz = 100e6;
    a.bw_bytes_s = 1e9;
    a.burst_bytes = 64;
    a.wino_m = 2;
    a.wino_r = 3;
    return a;
}

static cm_layer conv(int cin, int cout, int k, int out, int stride)
{
    cm_layer l;
    memset(&l, 0, sizeof l);
    l.op = CM_OP_CONV;
    l.in_shape = (cm_shape){cin, out * stride, out * stride};
    l.out_shape = (cm_shape){cout, out, out};
    l.kernel[0] = l.kernel[1] = k;
    l.stride[0] = l.stride[1] = stride;
    l.pad[0] = l.pad[1] = l.pad[2] = l.pad[3] = k / 2;
    l.dilation[0] = l.dilation[1] = 1;
    l.groups = 1;
    return l;
}

static void test_eq9_gemm(void **state)
{
    (void)state;
    cm_ov_array a = small_array();
    assert_int_equal(cm_ov_init_cycles(&a), 7); /* I_SA = 4 + 3 */
    /* a=10, b=7, c=5 on 4x3: NS ceil(10/4) ceil(5/3) 7 = 42; WS ceil(7/4) ceil(5/3) 10 =
     * 40; IS ceil(7/4) ceil(10/3) 5 = 40; each + 7. */
    assert_int_equal(cm_ov_gemm_cycles(&a, CM_OVERLAY_NS, 10, 7, 5), 49);
    assert_int_equal(cm_ov_gemm_cycles(&a, CM_OVERLAY_WS, 10, 7, 5), 47);
    assert_int_equal(cm_ov_gemm_cycles(&a, CM_OVERLAY_IS, 10, 7, 5), 47);
    /* Section 3.2: (62 x 124) by (124 x 64) on 31 x 31. Parallel over a and c (NS) the
     * last tile of c has 2 columns: 2 x 3 x 124 passes, 68% of the PEs busy; parallel
     * over a and b (IS) nothing is wasted. */
    a.p1 = a.p2 = 31;
    double macs = 62.0 * 124 * 64;
    uint64_t ns = cm_ov_gemm_cycles(&a, CM_OVERLAY_NS, 62, 124, 64) - cm_ov_init_cycles(&a);
    uint64_t is = cm_ov_gemm_cycles(&a, CM_OVERLAY_IS, 62, 124, 64) - cm_ov_init_cycles(&a);
    assert_int_equal(ns, 744);
    assert_int_equal(is, 512);
    assert_int_equal((int)(100 * macs / ((double)ns * 31 * 31)), 68);
    assert_true(fabs(macs / ((double)is * 31 * 31) - 1.0) < 1e-12);
}

static void test_eq10_12_layers(void **state)
{
    (void)state;
    cm_ov_array a = small_array();
    cm_layer l = conv(8, 5, 3, 6, 1);
    cm_overlay_dataflow df;
    /* im2col (eq. 10): GEMM 36 x 72 by 72 x 5: NS 9*2*72 = 1296, WS 18*2*36 = 1296,
     * IS 18*12*5 = 1080: IS, + 7. */
    assert_int_equal(cm_ov_layer_cycles(&a, &l, CM_OVERLAY_IM2COL, &df), 1087);
    assert_int_equal(df, CM_OVERLAY_IS);
    /* kn2row (eq. 11): 9 GEMMs 36 x 8 by 8 x 5: IS 2*12*5 = 120, + 7, times 9. */
    assert_int_equal(cm_ov_layer_cycles(&a, &l, CM_OVERLAY_KN2ROW, &df), 9 * 127);
    assert_int_equal(df, CM_OVERLAY_IS);
    /* Winograd F(2x2, 3x3) (eq. 12): 9 output tiles; each of the 16 GEMMs is 9 x 8 by
     * 8 x 5: IS 2*3*5 = 30, + 7, + LT = 8 + 5; one round. */
    assert_int_equal(cm_ov_winograd_tiles(&a, 6, 6), 9);
    assert_int_equal(cm_ov_winograd_lt(&a, 9, 8, 5), 13);
    assert_int_equal(cm_ov_layer_cycles(&a, &l, CM_OVERLAY_WINOGRAD, &df), 16 * (37 + 13));
    /* A 5x5 kernel takes ceil(5/3)^2 = 4 rounds of F(2, 3), a 7x7 one 9. */
    cm_layer l5 = conv(8, 5, 5, 6, 1), l7 = conv(8, 5, 7, 6, 1);
    assert_int_equal(cm_ov_winograd_rounds(&a, &l5), 4);
    assert_int_equal(cm_ov_layer_cycles(&a, &l5, CM_OVERLAY_WINOGRAD, &df), 4 * 16 * 50);
    assert_int_equal(cm_ov_winograd_rounds(&a, &l7), 9);
    assert_int_equal(cm_ov_layer_cycles(&a, &l7, CM_OVERLAY_WINOGRAD, &df), 9 * 16 * 50);
}

static void test_applicability(void **state)
{
    (void)state;
    cm_ov_array a = small_array();
    cm_layer unit = conv(8, 5, 1, 6, 1), strided = conv(8, 5, 3, 6, 2), wide = conv(8, 5, 3, 6, 1);
    wide.kernel[0] = 1;
    wide.kernel[1] = 7;
    assert_false(cm_ov_applicable(&a, &unit, CM_OVERLAY_WINOGRAD));
    assert_false(cm_ov_applicable(&a, &strided, CM_OVERLAY_WINOGRAD));
    assert_false(cm_ov_applicable(&a, &wide, CM_OVERLAY_WINOGRAD));
    assert_true(cm_ov_applicable(&a, &wide, CM_OVERLAY_KN2ROW));
    cm_overlay_dataflow df;
    assert_int_equal(cm_ov_layer_cycles(&a, &unit, CM_OVERLAY_WINOGRAD, &df), 0);
    assert_int_equal(df, CM_OVERLAY_NO_DATAFLOW);
    /* A 1x1 im2col reads the tensor itself. */
    assert_int_equal(cm_ov_input_layout(&unit, CM_OVERLAY_IM2COL).kind, CM_OV_TENSOR);
    assert_int_equal(cm_ov_input_layout(&wide, CM_OVERLAY_IM2COL).kind, CM_OV_TOEPLITZ);
    /* A fully connected layer is a 1 x (C H W) by (C H W) x out GEMM. */
    cm_layer fc;
    memset(&fc, 0, sizeof fc);
    fc.op = CM_OP_FC;
    fc.in_shape = (cm_shape){2, 2, 2};
    fc.out_shape = (cm_shape){10, 1, 1};
    fc.groups = 1;
    /* NS 1*4*8 = 32, WS 2*4*1 = 8, IS 2*1*10 = 20: WS, + 7. */
    assert_int_equal(cm_ov_layer_cycles(&a, &fc, CM_OVERLAY_IM2COL, &df), 15);
    assert_int_equal(df, CM_OVERLAY_WS);
    /* The pooling module: 16 x 6 x 6 elements on 4 units. */
    assert_int_equal(cm_ov_stream_cycles(&a, (cm_shape){16, 6, 6}), 144);
}

static void assert_close(double got, double want)
{
    if (fabs(got - want) > 1e-12 * fabs(want) + 1e-18)
        fail_msg("got %.12g, want %.12g", got, want);
}

static void test_eq13_table2(void **state)
{
    (void)state;
    cm_ov_array a = small_array();
    /* eq. 13: 64 or more channels per address fill a burst; 16 use a quarter of it. */
    assert_close(cm_ov_burst_bandwidth(&a, 64), 1e9);
    assert_close(cm_ov_burst_bandwidth(&a, 16), 0.25e9);
    cm_layer next = conv(16, 8, 3, 6, 1);
    cm_shape data = {16, 6, 6};
    cm_ov_layout tensor = cm_ov_input_layout(&next, CM_OVERLAY_KN2ROW);
    cm_ov_layout toeplitz = cm_ov_input_layout(&next, CM_OVERLAY_IM2COL);
    cm_ov_layout wino = cm_ov_input_layout(&next, CM_OVERLAY_WINOGRAD);
    /* Elements: the tensor 16*6*6 = 576; Toeplitz O1 O2 K1 K2 C = 36*9*16 = 5184;
     * Winograd tiles (m+r-1)^2 C = 9*16*16 = 2304. */
    assert_close(cm_ov_layout_elements(&a, &tensor, data), 576);
    assert_close(cm_ov_layout_elements(&a, &toeplitz, data), 5184);
    assert_close(cm_ov_layout_elements(&a, &wino, data), 2304);
    /* Table 2 rows 1-2: from im2col or kn2row output, streamed at the full bandwidth. */
    assert_close(cm_ov_store_s(&a, CM_OVERLAY_IM2COL, &toeplitz, data), 5184e-9);
    assert_close(cm_ov_store_s(&a, CM_OVERLAY_KN2ROW, &tensor, data), 576e-9);
    assert_close(cm_ov_store_s(&a, CM_OVERLAY_WINOGRAD, &tensor, data), 576e-9);
    /* Row 3: tensor to Winograd wastes bursts (16 < 64 channels): f = BW / 4. */
    assert_close(cm_ov_store_s(&a, CM_OVERLAY_KN2ROW, &wino, data), 2304 / 0.25e9);
    /* Row 4: Winograd to Winograd streams. */
    assert_close(cm_ov_store_s(&a, CM_OVERLAY_WINOGRAD, &wino, data), 2304e-9);
    /* Row 5: Winograd to Toeplitz, plus the two layout units' fill 2 (P1 + P2) cycles. */
    assert_close(cm_ov_store_s(&a, CM_OVERLAY_WINOGRAD, &toeplitz, data), 5184e-9 + 14 / 100e6);
    /* Loads: the stored layout streams; from the tensor the load side converts with
     * eq. 13's waste; from another reader's layout it cannot. */
    assert_close(cm_ov_load_s(&a, &toeplitz, &toeplitz, data), 5184e-9);
    assert_close(cm_ov_load_s(&a, &tensor, &toeplitz, data), 5184 / 0.25e9);
    assert_true(isinf(cm_ov_load_s(&a, &toeplitz, &wino, data)));
    cm_layer other = conv(16, 8, 5, 6, 1);
    cm_ov_layout toeplitz5 = cm_ov_input_layout(&other, CM_OVERLAY_IM2COL);
    assert_false(cm_ov_layout_equal(&toeplitz, &toeplitz5));
    assert_true(isinf(cm_ov_load_s(&a, &toeplitz5, &toeplitz, data)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eq9_gemm),
        cmocka_unit_test(test_eq10_12_layers),
        cmocka_unit_test(test_applicability),
        cmocka_unit_test(test_eq13_table2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
