/* SAMO's hls4ml model (src/hw/hls4ml_blocks.c) against section 4 of
 * ../shared/docs/backend-models.md: the reuse-factor rule (4.1 i-iii), the kernel
 * folding list, RF = trunc(N/kf), latency = spatial*RF and DSP = kf (4.3 examples). */
#include "test_support.h"

#include "hw/hls4ml_blocks.h"

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
        cm_hls4ml_layer l = {true, 1, 27, 16, kf[i]};
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
    cm_hls4ml_layer dense = {true, 1, 1024, 10, 16};
    cm_hls4ml_layer_cost(&dense, &c);
    assert_true(c.cycles == 640.0);
    assert_int_equal(c.res.dsp, 16);
    /* RF truncates: kf = 3 -> trunc(3413.33) = 3413. */
    dense.kernel_fold = 3;
    assert_int_equal(cm_hls4ml_reuse_factor(&dense), 3413);
    /* A layer without multipliers (k = 1 scan, e.g. pooling over 8x8x64): no DSP. */
    cm_hls4ml_layer pool = {false, 64, 64, 64, 4};
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
