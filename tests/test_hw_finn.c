/* FINN node cost models (src/hw/finn_blocks.c) against the worked examples of
 * ../shared/docs/backend-models.md section 3.6 and hand calculations of section 3.2.
 * Each expected value is derived in a comment next to it. W = A = B = 4 unless stated. */
#include "test_support.h"

#include "hw/finn_blocks.h"

#include <math.h>
#include <string.h>

typedef struct expected_cost {
    double cycles;
    int64_t lut, bram18, uram, dsp;
} expected_cost;

static void check_cost_at(const cm_finn_node *n, expected_cost e, int line)
{
    cm_block_cost c;
    memset(&c, 0x5a, sizeof c); /* every field must be written */
    cm_finn_node_cost(n, &c);
    if (c.cycles != e.cycles || c.res.lut != e.lut || c.res.bram18 != e.bram18 ||
        c.res.uram != e.uram || c.res.dsp != e.dsp || c.res.ff != 0 || c.pipeline_depth != 0.0)
        fail_msg("line %d: got cycles %.17g LUT %lld BRAM18 %lld URAM %lld DSP %lld FF %lld "
                 "depth %g; expected cycles %.17g LUT %lld BRAM18 %lld URAM %lld DSP %lld",
                 line, c.cycles, (long long)c.res.lut, (long long)c.res.bram18,
                 (long long)c.res.uram, (long long)c.res.dsp, (long long)c.res.ff,
                 c.pipeline_depth, e.cycles, (long long)e.lut, (long long)e.bram18,
                 (long long)e.uram, (long long)e.dsp);
}
#define check_cost(n, ...) check_cost_at((n), (expected_cost){__VA_ARGS__}, __LINE__)

static double cycles_of(const cm_finn_node *n)
{
    cm_block_cost c;
    cm_finn_node_cost(n, &c);
    return c.cycles;
}

/* The MVAU of section 3.6: MW = 576 (3x3x64), MH = 64, nv = 1*30*30 = 900. */
static cm_finn_node example_mvau(int simd, int pe)
{
    cm_finn_node n;
    cm_finn_node_init(&n, CM_FINN_MVAU);
    n.mw = 576;
    n.mh = 64;
    n.num_vectors = 900;
    n.simd = simd;
    n.pe = pe;
    return n;
}

/* ---------------------------------------------------------------- configuration */

static void test_init_samo_configuration(void **state)
{
    (void)state;
    cm_finn_node n;
    memset(&n, 0x7f, sizeof n);
    cm_finn_node_init(&n, CM_FINN_MVAU);
    assert_int_equal(n.kind, CM_FINN_MVAU);
    assert_int_equal(n.mem_mode, CM_FINN_MEM_CONST);
    assert_int_equal(n.ram_style, CM_FINN_RAM_BLOCK);
    assert_true(n.res_dsp);
    assert_false(n.no_activation);
    assert_int_equal(n.simd, 1);
    assert_int_equal(n.pe, 1);
    assert_int_equal(n.num_vectors, 1);
    assert_int_equal(n.kernel[0], 1);
    assert_int_equal(n.kernel[1], 1);
    assert_int_equal(n.stride[0], 1);
    assert_int_equal(n.stride[1], 1);
    assert_int_equal(n.dilation[0], 1);
    assert_int_equal(n.dilation[1], 1);
    assert_int_equal(n.weight_bits, 4);
    assert_int_equal(n.in_bits, 4);
    assert_int_equal(n.out_bits, 4);
    assert_int_equal(n.pool_dim, 1);
    assert_int_equal(n.mw, 0);
    assert_int_equal(n.channels, 0);

    cm_finn_node_init(&n, CM_FINN_SWG);
    assert_int_equal(n.kind, CM_FINN_SWG);
    assert_int_equal(n.ram_style, CM_FINN_RAM_BLOCK);

    cm_finn_node_init(&n, CM_FINN_THRESHOLDING);
    assert_int_equal(n.ram_style, CM_FINN_RAM_DISTRIBUTED);

    /* SAMO sets no resType on the VVAU: FINN's "auto" = no DSP. */
    cm_finn_node_init(&n, CM_FINN_VVAU);
    assert_false(n.res_dsp);
}

static void test_samo_styles_follow_widths(void **state)
{
    (void)state;
    cm_finn_node n;
    cm_finn_node_init(&n, CM_FINN_MVAU);
    n.weight_bits = 2; /* weight_width = acc_width = 2 < 4 */
    cm_finn_node_apply_samo_styles(&n);
    assert_int_equal(n.ram_style, CM_FINN_RAM_DISTRIBUTED);
    assert_false(n.res_dsp);
    n.weight_bits = 8;
    cm_finn_node_apply_samo_styles(&n);
    assert_int_equal(n.ram_style, CM_FINN_RAM_BLOCK);
    assert_true(n.res_dsp);

    cm_finn_node_init(&n, CM_FINN_SWG);
    n.weight_bits = 1;
    cm_finn_node_apply_samo_styles(&n);
    assert_int_equal(n.ram_style, CM_FINN_RAM_DISTRIBUTED);
    n.weight_bits = 4;
    cm_finn_node_apply_samo_styles(&n);
    assert_int_equal(n.ram_style, CM_FINN_RAM_BLOCK);

    cm_finn_node_init(&n, CM_FINN_THRESHOLDING);
    n.weight_bits = 8;
    cm_finn_node_apply_samo_styles(&n);
    assert_int_equal(n.ram_style, CM_FINN_RAM_DISTRIBUTED);
}

/* ---------------------------------------------------------------- BRAM18 ladder */

static void test_bram18_ladder(void **state)
{
    (void)state;
    /* w = 1: ceil(ω/16384) */
    assert_int_equal(cm_finn_bram18(16384, 1), 1);
    assert_int_equal(cm_finn_bram18(16385, 1), 2);
    assert_int_equal(cm_finn_bram18(16384.5, 1), 2); /* ω is a float */
    /* w = 2: ceil(ω/8192) */
    assert_int_equal(cm_finn_bram18(8192, 2), 1);
    assert_int_equal(cm_finn_bram18(8193, 2), 2);
    /* w <= 4: ceil(ω/4096)*ceil(w/4) */
    assert_int_equal(cm_finn_bram18(4096, 3), 1);
    assert_int_equal(cm_finn_bram18(4097, 4), 2);
    assert_int_equal(cm_finn_bram18(100, 4), 1);
    /* w <= 9: ceil(ω/2048)*ceil(w/9) */
    assert_int_equal(cm_finn_bram18(2048, 9), 1);
    assert_int_equal(cm_finn_bram18(2049, 5), 2);
    assert_int_equal(cm_finn_bram18(6000, 8), 3); /* ceil(2.93) = 3, ceil(8/9) = 1 */
    /* w <= 18: ceil(ω/1024)*ceil(w/18) */
    assert_int_equal(cm_finn_bram18(1024, 18), 1);
    assert_int_equal(cm_finn_bram18(1025, 10), 2);
    assert_int_equal(cm_finn_bram18(100, 18), 1);
    /* w > 18, ω <= 512: ceil(ω/512)*ceil(w/36) */
    assert_int_equal(cm_finn_bram18(512, 36), 1);
    assert_int_equal(cm_finn_bram18(512, 37), 2);   /* 1 * ceil(37/36) */
    assert_int_equal(cm_finn_bram18(100, 72), 2);   /* 1 * 2 */
    assert_int_equal(cm_finn_bram18(300, 128), 4);  /* 1 * ceil(3.56) */
    /* The quirk: w > 18 but ω > 512 takes the 18-bit rung: ceil(ω/1024)*ceil(w/18). */
    assert_int_equal(cm_finn_bram18(1025, 36), 4);  /* 2 * 2; the 36-bit rung gives 3*1 = 3 */
    assert_int_equal(cm_finn_bram18(1100, 72), 8);  /* 2 * 4; the 36-bit rung gives 3*2 = 6 */
    assert_int_equal(cm_finn_bram18(513, 19), 2);   /* 1 * ceil(19/18) */
    assert_int_equal(cm_finn_bram18(1152, 128), 16);/* 2 * ceil(128/18) = 2 * 8 (section 3.6) */
    /* Nothing to store. */
    assert_int_equal(cm_finn_bram18(0, 36), 0);
    assert_int_equal(cm_finn_bram18(1000, 0), 0);
}

/* ---------------------------------------------------------------- MVAU */

static void test_mvau_example_simd32_pe16(void **state)
{
    (void)state;
    cm_finn_node n = example_mvau(32, 16);
    /* cycles = (64/16)*(576/32)*900 = 4*18*900 = 64800.
     * WMEM = 576*64 // 512 = 72 <= 128 (const): BRAM 0, URAM 0, c2 = 16*32*4*ceil(72/64) = 4096.
     * TMEM = 64//16 = 4. adder = 8*(2*32-1) = 504. acc_bits = 8 + ceil(log2 576 = 9.17) = 18.
     * thr = 15*18*ceil(4/64) = 270, comp = 270. mult = 0 (dsp).
     * LUT = int(300 + 1.1*(16*(504+18+270+270)) + 4096) = int(300 + 18691.2 + 4096) = 23087.
     * DSP = 16*32*ceil(8/48) = 512. */
    check_cost(&n, 64800, 23087, 0, 0, 512);

    /* noActivation: thr = comp = 0: 300 + 1.1*(16*522) + 4096 = 13583.2 -> 13583. */
    n.no_activation = true;
    check_cost(&n, 64800, 13583, 0, 0, 512);
}

static void test_mvau_example_simd8_pe4(void **state)
{
    (void)state;
    cm_finn_node n = example_mvau(8, 4);
    /* cycles = (64/4)*(576/8)*900 = 16*72*900 = 1036800.
     * WMEM = 36864 // 32 = 1152 > 128; ω = 1152; mem_width = 8*4*4 = 128.
     * BRAM = bram18(1152, 128) = ceil(1152/1024)*ceil(128/18) = 2*8 = 16.
     * URAM (const, WMEM > 128, sic) = ceil(128/72)*ceil(1152/4096) = 2*1 = 2.
     * c2 = 0. adder = 8*15 = 120, acc = 18, TMEM = 16: thr = 15*18*1 = 270, comp = 270.
     * LUT = int(300 + 1.1*(4*678)) = int(3283.2) = 3283. DSP = 4*8*1 = 32. */
    check_cost(&n, 1036800, 3283, 16, 2, 32);

    /* resType lut: mult = 8*(2*ceil(8/6) - 1)*8 = 192; LUT = int(300 + 1.1*(4*870)) = 4128
     * (1.1*3480 = 3828.0000000000005); DSP 0. */
    n.res_dsp = false;
    check_cost(&n, 1036800, 4128, 16, 2, 0);
}

static void test_mvau_memory_modes(void **state)
{
    (void)state;
    cm_finn_node n = example_mvau(8, 4); /* WMEM 1152, ω 1152, mem_width 128 */

    /* decoupled + distributed: no BRAM/URAM, LUTRAM c2 = 4*8*4*ceil(1152/64) = 128*18 = 2304.
     * LUT = int(300 + 2983.2 + 2304) = 5587. */
    n.mem_mode = CM_FINN_MEM_DECOUPLED;
    n.ram_style = CM_FINN_RAM_DISTRIBUTED;
    check_cost(&n, 1036800, 5587, 0, 0, 32);
    /* decoupled + ultra: URAM 2, no BRAM, no c2. */
    n.ram_style = CM_FINN_RAM_ULTRA;
    check_cost(&n, 1036800, 3283, 0, 2, 32);
    /* decoupled + block (and auto): BRAM 16, no URAM. */
    n.ram_style = CM_FINN_RAM_BLOCK;
    check_cost(&n, 1036800, 3283, 16, 0, 32);
    n.ram_style = CM_FINN_RAM_AUTO;
    check_cost(&n, 1036800, 3283, 16, 0, 32);
    /* external: weights off-chip, nothing. */
    n.mem_mode = CM_FINN_MEM_EXTERNAL;
    check_cost(&n, 1036800, 3283, 0, 0, 32);
    /* const ignores ram_style: distributed still gets BRAM 16 + URAM 2 and no c2. */
    n.mem_mode = CM_FINN_MEM_CONST;
    n.ram_style = CM_FINN_RAM_DISTRIBUTED;
    check_cost(&n, 1036800, 3283, 16, 2, 32);

    /* The WMEM <= 128 boundary under const: SIMD 8, PE 36 is not a fold of MH 64, so use
     * MW = 576, MH = 72, SIMD = 18, PE = 18: WMEM = 41472 // 324 = 128 -> no BRAM/URAM.
     * cycles = (72/18)*(576/18)*1 = 128. c2 = 18*18*4*ceil(128/64) = 2592.
     * adder = 8*35 = 280, acc = 18, TMEM = 4: thr = comp = 270.
     * LUT = int(300 + 1.1*(18*838) + 2592) = int(300 + 16592.4 + 2592) = 19484.
     * DSP = 18*18 = 324. */
    cm_finn_node m;
    cm_finn_node_init(&m, CM_FINN_MVAU);
    m.mw = 576;
    m.mh = 72;
    m.simd = 18;
    m.pe = 18;
    check_cost(&m, 128, 19484, 0, 0, 324);
    /* MH = 144, PE = 18 -> WMEM = 82944 // 324 = 256 > 128: ω = 256, mem_width = 18*4*18
     * = 1296 -> ceil(256/512)*ceil(1296/36) = 36 BRAM; URAM ceil(1296/72)*1 = 18; c2 = 0.
     * cycles = 8*32 = 256; TMEM = 8; LUT = int(300 + 1.1*(18*838)) = 16892. */
    m.mh = 144;
    check_cost(&m, 256, 16892, 36, 18, 324);
}

/* acc_bits uses ceil(log(MW)/log(2)): for MW = 2^29 that is ceil(29.000000000000004) = 30. */
static void test_mvau_log2_quirk(void **state)
{
    (void)state;
    cm_finn_node n;
    cm_finn_node_init(&n, CM_FINN_MVAU);
    n.mw = 1 << 29;
    n.mh = 1;
    n.no_activation = true;
    /* cycles = 1*2^29. WMEM = 2^29: BRAM = bram18(2^29, 4) = ceil(2^29/4096) = 131072;
     * URAM = ceil(4/72)*ceil(2^29/4096) = 131072. adder = 8*1 = 8, acc = 8 + 30 = 38:
     * LUT = int(300 + 1.1*46) = int(350.6) = 350 (an exact log2 would give 349). DSP 1. */
    check_cost(&n, 536870912.0, 350, 131072, 131072, 1);
    /* MW = 1024: log2 is exactly 10 -> acc = 18, LUT = int(300 + 1.1*26) = 328. */
    n.mw = 1024;
    check_cost(&n, 1024, 328, 1, 1, 1); /* WMEM 1024 > 128: bram18(1024, 4) = 1, URAM 1 */
}

/* ---------------------------------------------------------------- VVAU */

static void test_vvau(void **state)
{
    (void)state;
    cm_finn_node n;
    cm_finn_node_init(&n, CM_FINN_VVAU); /* resType auto: LUT multipliers, no DSP */
    n.channels = 64;
    n.kernel[0] = n.kernel[1] = 3;
    n.num_vectors = 30 * 30; /* Dim h*w */
    n.pe = 4;
    /* cycles = (64*9/4)*900 = 144*900 = 129600.
     * WMEM = 9*64 // 4 = 144 > 128: W = 4 -> ceil(144/4096)*ceil(4/4)*PE = 4 BRAM; c2 = 0.
     * mult = (2*ceil(8/6) - 1)*8 = 24. acc_bits = 8 + ceil(log2 9 = 3.17) = 12.
     * TMEM = 16: thr = 15*12*ceil(16/64) = 180, comp = 180.
     * LUT = int(300 + 1.1*(4*(24+12+180+180))) = int(300 + 1742.4) = 2042. */
    check_cost(&n, 129600, 2042, 4, 0, 0);

    /* resType dsp: mult = 0 -> int(300 + 1.1*(4*372)) = int(1936.8) = 1936; DSP = 4*1. */
    n.res_dsp = true;
    check_cost(&n, 129600, 1936, 4, 0, 4);

    /* PE = 8: WMEM = 72 <= 128 -> BRAM 0, c2 = 8*4*ceil(72/64) = 64. TMEM = 8.
     * cycles = 72*900 = 64800. LUT = int(300 + 1.1*(8*372) + 64) = int(3637.6) = 3637. */
    n.pe = 8;
    check_cost(&n, 64800, 3637, 0, 0, 8);

    /* Non-square kernel 3x1: cycles = (64*3/8)*900 = 21600; WMEM = 24;
     * c2 = 8*4*1 = 32; acc = 8 + ceil(log2 3) = 10; thr = comp = 150;
     * LUT = int(300 + 1.1*(8*310) + 32) = int(3060) = 3060. */
    n.kernel[1] = 1;
    check_cost(&n, 21600, 3060, 0, 0, 8);
}

/* The VVAU's ladder divides by 4, 8, 16, 32 and multiplies by PE. */
static void test_vvau_bram_ladder(void **state)
{
    (void)state;
    cm_finn_node n;
    cm_finn_node_init(&n, CM_FINN_VVAU);
    n.channels = 64;
    n.kernel[0] = n.kernel[1] = 3;
    n.pe = 1; /* WMEM = 576 */
    cm_block_cost c;
    static const struct {
        int w;
        int64_t bram;
    } rungs[] = {
        {1, 1},  /* ceil(576/16384) */
        {2, 1},  /* ceil(576/8192) */
        {3, 1},  /* ceil(576/4096)*ceil(3/4) */
        {8, 1},  /* ceil(576/2048)*ceil(8/8) */
        {9, 2},  /* ceil(576/2048)*ceil(9/8): the MVAU ladder would give 1 */
        {16, 1}, /* ceil(576/1024)*ceil(16/16) */
        {18, 2}, /* ceil(576/1024)*ceil(18/16) */
        {40, 3}, /* ω > 512: ceil(576/1024)*ceil(40/16) */
    };
    for (size_t i = 0; i < sizeof rungs / sizeof rungs[0]; i++) {
        n.weight_bits = rungs[i].w;
        cm_finn_node_cost(&n, &c);
        if (c.res.bram18 != rungs[i].bram)
            fail_msg("W = %d: BRAM %lld, expected %lld", rungs[i].w, (long long)c.res.bram18,
                     (long long)rungs[i].bram);
    }
    /* ω <= 512, W > 18: ceil(ω/512)*ceil(W/32)*PE. Channels 200, k 1, PE 1: WMEM 200. */
    n.channels = 200;
    n.kernel[0] = n.kernel[1] = 1;
    n.weight_bits = 40;
    cm_finn_node_cost(&n, &c);
    assert_int_equal(c.res.bram18, 2); /* 1 * ceil(40/32) */
    n.weight_bits = 33;
    cm_finn_node_cost(&n, &c);
    assert_int_equal(c.res.bram18, 2); /* 1 * ceil(33/32); the MVAU's /36 would give 1 */
    /* ×PE: channels 1024, k 1, PE 2 -> WMEM 512, W 40 -> 1*2*2 = 4. */
    n.channels = 1024;
    n.pe = 2;
    cm_finn_node_cost(&n, &c);
    assert_int_equal(c.res.bram18, 4);
    /* WMEM <= 128: no BRAM at all. */
    n.channels = 128;
    n.pe = 1;
    cm_finn_node_cost(&n, &c);
    assert_int_equal(c.res.bram18, 0);
}

/* ---------------------------------------------------------------- SWG */

static cm_finn_node example_swg(int simd)
{
    cm_finn_node n;
    cm_finn_node_init(&n, CM_FINN_SWG);
    n.ifm_dim[0] = n.ifm_dim[1] = 32;
    n.ofm_dim[0] = n.ofm_dim[1] = 30;
    n.kernel[0] = n.kernel[1] = 3;
    n.channels = 64;
    n.simd = simd;
    return n;
}

static void test_swg_examples(void **state)
{
    (void)state;
    cm_finn_node n = example_swg(8);
    /* cycles = 32*3*1*(64/8) + 30*max(30*3*3*8, 1*32*8) = 768 + 30*2160 = 65568.
     * depth = 32*64/8 = 256 <= 512 -> width 36: BRAM = (3+1)*ceil(32/36)*1 = 4. LUT 300. */
    check_cost(&n, 65568, 300, 4, 0, 0);
    /* distributed: LUT = 300 + (3+1)*8*4*ceil(256/64) = 300 + 512 = 812. */
    n.ram_style = CM_FINN_RAM_DISTRIBUTED;
    check_cost(&n, 65568, 812, 0, 0, 0);
    /* ultra: URAM = 4*ceil(32/64)*ceil(256/4096) = 4. */
    n.ram_style = CM_FINN_RAM_ULTRA;
    check_cost(&n, 65568, 300, 0, 4, 0);
    /* auto behaves as block. */
    n.ram_style = CM_FINN_RAM_AUTO;
    check_cost(&n, 65568, 300, 4, 0, 0);

    n = example_swg(64);
    /* cycles = 32*3*1*1 + 30*max(30*9*1, 32) = 96 + 8100 = 8196.
     * depth = 32: BRAM = 4*ceil(256/36)*1 = 4*8 = 32. */
    check_cost(&n, 8196, 300, 32, 0, 0);
    /* distributed: 300 + 4*64*4*ceil(32/64) = 300 + 1024 = 1324; ultra: 4*ceil(256/64) = 16. */
    n.ram_style = CM_FINN_RAM_DISTRIBUTED;
    check_cost(&n, 8196, 1324, 0, 0, 0);
    n.ram_style = CM_FINN_RAM_ULTRA;
    check_cost(&n, 8196, 300, 0, 16, 0);

    /* URAM width 64: C = 72, SIMD = 18, A = 4 -> SIMD*A = 72: (3+1)*ceil(72/64)*ceil(128/4096)
     * = 8. cycles = 32*3*4 + 30*max(30*9*4, 32*4) = 384 + 32400 = 32784. */
    n = example_swg(18);
    n.channels = 72;
    n.ram_style = CM_FINN_RAM_ULTRA;
    check_cost(&n, 32784, 300, 0, 8, 0);
}

static void test_swg_cycles(void **state)
{
    (void)state;
    /* Stride 2, OFM 15: write = 15*9*8 = 1080 > read = 2*32*8 = 512;
     * cycles = 32*3*1*8 + 15*1080 = 768 + 16200 = 16968. */
    cm_finn_node n = example_swg(8);
    n.stride[0] = n.stride[1] = 2;
    n.ofm_dim[0] = n.ofm_dim[1] = 15;
    assert_true(cycles_of(&n) == 16968);
    /* Read-bound: k = 1, s = 2, OFM 16, SIMD 64: write = 16*1*1*1 = 16 < read = 2*32*1 = 64;
     * cycles = 32*1*1*1 + 16*64 = 1056. */
    n = example_swg(64);
    n.kernel[0] = n.kernel[1] = 1;
    n.stride[0] = n.stride[1] = 2;
    n.ofm_dim[0] = n.ofm_dim[1] = 16;
    assert_true(cycles_of(&n) == 1056);
    /* Dilation 2, OFM 28: cnnmap buffers the window extent 2*(3-1)+1 = 5 rows:
     * 32*5*8 + 28*max(28*9*8, 32*8) = 1280 + 28*2016 = 57728. (FINN v0.6 buffers
     * k*d = 6 rows: 32*3*2*8 + 56448 = 57984.) */
    n = example_swg(8);
    n.dilation[0] = n.dilation[1] = 2;
    n.ofm_dim[0] = n.ofm_dim[1] = 28;
    assert_true(cycles_of(&n) == 57728);
}

/* The BRAM width classes by line-buffer depth d = IFM*C/SIMD, with A = 8, k = 3, s = 1. */
static void test_swg_bram_width_classes(void **state)
{
    (void)state;
    static const struct {
        int c, simd;
        int64_t bram;
    } rows[] = {
        {64, 4, 4},    /* d = 512   -> 36: 4*ceil(32/36) = 4 */
        {64, 2, 4},    /* d = 1024  -> 18: 4*ceil(16/18) = 4 */
        {128, 2, 8},   /* d = 2048  ->  9: 4*ceil(16/9) = 8 */
        {256, 4, 16},  /* d = 2048  ->  9: 4*ceil(32/9) = 16 */
        {256, 2, 16},  /* d = 4096  ->  4: 4*ceil(16/4) = 16 */
        {512, 2, 32},  /* d = 8192  ->  2: 4*ceil(16/2) = 32 */
        {512, 1, 32},  /* d = 16384 ->  1: 4*ceil(8/1) = 32 */
        {96, 2, 8},    /* d = 1536  ->  9: 4*ceil(16/9) = 8 */
        {128, 4, 8},   /* d = 1024  -> 18: 4*ceil(32/18) = 8 */
        {96, 4, 8},    /* d = 768   -> 18: 4*ceil(32/18) = 8 */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        cm_finn_node n = example_swg(rows[i].simd);
        n.channels = rows[i].c;
        n.in_bits = 8;
        cm_block_cost c;
        cm_finn_node_cost(&n, &c);
        if (c.res.bram18 != rows[i].bram)
            fail_msg("C %d SIMD %d: BRAM %lld, expected %lld", rows[i].c, rows[i].simd,
                     (long long)c.res.bram18, (long long)rows[i].bram);
    }
}

/* ---------------------------------------------------------------- other nodes */

static void test_thresholding(void **state)
{
    (void)state;
    cm_finn_node n;
    cm_finn_node_init(&n, CM_FINN_THRESHOLDING);
    n.channels = 64;
    n.pe = 8;
    n.num_vectors = 900;
    n.in_bits = 8;
    /* Section 3.6: cycles = 900*(64//8) = 7200; TMEM = 8; distributed:
     * LUT = 8*8 + 8*8*ceil(8/64) = 128; BRAM 0. */
    check_cost(&n, 7200, 128, 0, 0, 0);
    /* block: BRAM = ceil(8*8/16)*ceil(8/1024) = 4; LUT = A*PE = 64. */
    n.ram_style = CM_FINN_RAM_BLOCK;
    check_cost(&n, 7200, 64, 4, 0, 0);
    /* auto and ultra: neither memory term. */
    n.ram_style = CM_FINN_RAM_AUTO;
    check_cost(&n, 7200, 64, 0, 0, 0);
    n.ram_style = CM_FINN_RAM_ULTRA;
    check_cost(&n, 7200, 64, 0, 0, 0);
    /* TMEM = 1 (PE = C): no memory in either style. cycles = 900*1. */
    n.pe = 64;
    n.ram_style = CM_FINN_RAM_BLOCK;
    check_cost(&n, 900, 512, 0, 0, 0);
    n.ram_style = CM_FINN_RAM_DISTRIBUTED;
    check_cost(&n, 900, 512, 0, 0, 0);
    /* Deep: C = 2048, PE = 1, A = 4, nv 1: TMEM 2048. block: ceil(4/16)*ceil(2048/1024) = 2;
     * distributed: LUT = 4 + 1*4*32 = 132. */
    n.channels = 2048;
    n.pe = 1;
    n.in_bits = 4;
    n.num_vectors = 1;
    check_cost(&n, 2048, 132, 0, 0, 0);
    n.ram_style = CM_FINN_RAM_BLOCK;
    check_cost(&n, 2048, 4, 2, 0, 0);
    /* A*PE = 36: C = 72, PE = 9, A = 4, TMEM 8: block BRAM = ceil(36/16)*1 = 3, LUT 36. */
    n.channels = 72;
    n.pe = 9;
    check_cost(&n, 8, 36, 3, 0, 0);
}

static void test_maxpool(void **state)
{
    (void)state;
    cm_finn_node n;
    cm_finn_node_init(&n, CM_FINN_MAXPOOL);
    n.ifm_dim[0] = n.ifm_dim[1] = 32;
    n.pool_dim = 2;
    n.channels = 64;
    /* 32*(32 + 32/2) = 1536 (section 3.6); no resources. */
    check_cost(&n, 1536, 0, 0, 0, 0);
    /* 7*(7 + 7/2) = 73.5 -> 73 (float division, then trunc). */
    n.ifm_dim[0] = n.ifm_dim[1] = 7;
    check_cost(&n, 73, 0, 0, 0, 0);
}

static void test_pool_batch(void **state)
{
    (void)state;
    cm_finn_node n;
    cm_finn_node_init(&n, CM_FINN_POOL);
    n.channels = 64;
    n.kernel[0] = n.kernel[1] = 3;
    n.pe = 4;
    n.ofm_dim[0] = n.ofm_dim[1] = 16;
    /* (64*3*3/4)*16*16*1 = 144*256 = 36864. */
    check_cost(&n, 36864, 0, 0, 0, 0);
    /* BatchSize 2 (num_vectors): 73728. */
    n.num_vectors = 2;
    check_cost(&n, 73728, 0, 0, 0, 0);
    /* k = 7, PE = 64, OutImgDim 1 (global pool): (64*49/64)*1*1*1 = 49. */
    n.kernel[0] = n.kernel[1] = 7;
    n.pe = 64;
    n.ofm_dim[0] = n.ofm_dim[1] = 1;
    n.num_vectors = 1;
    check_cost(&n, 49, 0, 0, 0, 0);
}

static void test_streams(void **state)
{
    (void)state;
    cm_finn_node n;
    cm_finn_node_init(&n, CM_FINN_DUPLICATE);
    n.channels = 64;
    n.pe = 4;
    n.num_vectors = 16 * 16;
    /* 256*(64//4) = 4096. */
    check_cost(&n, 4096, 0, 0, 0, 0);

    cm_finn_node_init(&n, CM_FINN_ADD);
    n.channels = 64;
    n.pe = 8;
    n.num_vectors = 8 * 8;
    /* 64*(64//8) = 512. */
    check_cost(&n, 512, 0, 0, 0, 0);
    /* Integer division: C = 10, PE = 4 (not a valid fold) -> 64*2 = 128. */
    n.channels = 10;
    n.pe = 4;
    check_cost(&n, 128, 0, 0, 0, 0);
}

static void test_fmpadding(void **state)
{
    (void)state;
    cm_finn_node n;
    cm_finn_node_init(&n, CM_FINN_FMPADDING);
    n.channels = 64;
    n.simd = 8;
    n.ifm_dim[0] = n.ifm_dim[1] = 32;
    n.pad[0] = n.pad[1] = n.pad[2] = n.pad[3] = 1;
    /* (64/8)*1*(32+1+1)*(32+1+1) = 8*34*34 = 9248. */
    check_cost(&n, 9248, 0, 0, 0, 0);
    /* h = 32, w = 16, top 1, left 2, bottom 0, right 3, nv 2: 8*2*33*21 = 11088. */
    n.ifm_dim[1] = 16;
    n.pad[0] = 1;
    n.pad[1] = 2;
    n.pad[2] = 0;
    n.pad[3] = 3;
    n.num_vectors = 2;
    check_cost(&n, 11088, 0, 0, 0, 0);
    /* ifm_dim[1] unset means square: 8*2*33*(32+5) = 19536. */
    n.ifm_dim[1] = 0;
    check_cost(&n, 19536, 0, 0, 0, 0);
}

static void test_labelselect(void **state)
{
    (void)state;
    cm_finn_node n;
    cm_finn_node_init(&n, CM_FINN_LABELSELECT);
    n.channels = 1000;
    n.pe = 8;
    check_cost(&n, 125, 0, 0, 0, 0); /* 1000/8 */
    n.channels = 10;
    n.pe = 4;
    check_cost(&n, 2, 0, 0, 0, 0);   /* trunc(10/4 = 2.5) */
}

static void test_globalaccpool(void **state)
{
    (void)state;
    cm_finn_node n;
    cm_finn_node_init(&n, CM_FINN_GLOBALACCPOOL);
    n.channels = 512;
    n.pe = 16;
    n.num_vectors = 7 * 7;
    /* Folded input shape (1, 7, 7, 512/16, 16); without the last dim: 1*7*7*32 = 1568;
     * plus folds 32 -> 1600. */
    check_cost(&n, 1600, 0, 0, 0, 0);
    n.pe = 1;
    check_cost(&n, 49 * 512 + 512, 0, 0, 0, 0);
}

/* StreamingConcat (current FINN, concat.py): get_exp_cycles is the folded output shape
 * without its SIMD axis, numInputVectors x sum(ChannelsPerStream)/SIMD; FINN estimates
 * no LUT or BRAM for it. GoogLeNet's inception3a: 64 + 128 + 32 + 32 channels at 28x28. */
static void test_concat(void **state)
{
    (void)state;
    cm_finn_node n;
    cm_finn_node_init(&n, CM_FINN_CONCAT);
    n.n_inputs = 4;
    n.in_channels[0] = 64;
    n.in_channels[1] = 128;
    n.in_channels[2] = 32;
    n.in_channels[3] = 32;
    n.num_vectors = 28 * 28;
    n.simd = 32;
    /* 784 * (256 / 32) = 784 * 8 = 6272 */
    check_cost(&n, 6272, 0, 0, 0, 0);
    n.simd = 1;
    check_cost(&n, 784 * 256, 0, 0, 0, 0); /* 200704 */
    /* two inputs of a DenseNet layer, 64 + 32 at 56x56, SIMD 16: 3136 * 6 = 18816 */
    n.n_inputs = 2;
    n.in_channels[0] = 64;
    n.in_channels[1] = 32;
    n.num_vectors = 56 * 56;
    n.simd = 16;
    check_cost(&n, 18816, 0, 0, 0, 0);
}

/* ElementwiseMul (current FINN, elementwise_binary.py): cycles nv * C/PE; multipliers
 * by FINN's MVAU rules (DSP: PE * ceil((A+W)/48); LUT: PE * (2 ceil((A+W)/6) - 1) * (A+W));
 * a broadcast vector in LUTRAM: PE * W * ceil((C/PE)/64). */
static void test_elementwise_mul(void **state)
{
    (void)state;
    cm_finn_node n;
    cm_finn_node_init(&n, CM_FINN_MUL);
    assert_int_equal(n.broadcast_port, -1);
    assert_true(n.res_dsp); /* 4-bit operands: SAMO's resType dsp */
    /* SiLU of EfficientNet's stem: 32 channels at 112x112, PE 4, A = W = 4:
     * cycles 12544 * 8 = 100352; DSP 4 * ceil(8/48) = 4; no LUTs */
    n.channels = 32;
    n.num_vectors = 112 * 112;
    n.pe = 4;
    check_cost(&n, 100352, 0, 0, 0, 4);
    /* resType lut: 4 * (2*ceil(8/6) - 1) * 8 = 4 * 3 * 8 = 96 LUT */
    n.res_dsp = false;
    check_cost(&n, 100352, 96, 0, 0, 0);
    /* squeeze-excitation: 96 channels at 56x56 times one 96-vector, PE 2, lut:
     * 3136 * 48 = 150528 cycles; 2 * 3 * 8 = 48 LUT of multipliers + 2 * 4 * ceil(48/64)
     * = 8 LUT holding the vector: 56 */
    n.channels = 96;
    n.num_vectors = 56 * 56;
    n.pe = 2;
    n.broadcast_port = 1;
    check_cost(&n, 150528, 56, 0, 0, 0);
    /* 8-bit, resType dsp: DSP 2 * ceil(16/48) = 2; LUT 2 * 8 * ceil(48/64) = 16 */
    n.in_bits = n.weight_bits = n.out_bits = 8;
    n.res_dsp = true;
    check_cost(&n, 150528, 16, 0, 0, 2);
    /* 2-bit weights: SAMO's styles give LUT multipliers */
    n.weight_bits = 2;
    cm_finn_node_apply_samo_styles(&n);
    assert_false(n.res_dsp);
}

/* Degenerate input never divides by zero and unknown kinds cost nothing. */
static void test_degenerate(void **state)
{
    (void)state;
    cm_finn_node n = example_mvau(0, 0); /* folding 0 counts as 1 */
    cm_block_cost c;
    cm_finn_node_cost(&n, &c);
    assert_true(c.cycles == 64.0 * 576 * 900);
    cm_finn_node_init(&n, CM_FINN_MAXPOOL);
    n.ifm_dim[0] = 4;
    n.pool_dim = 0;
    cm_finn_node_cost(&n, &c);
    assert_true(c.cycles == 32); /* 4*(4 + 4/1) */
    cm_finn_node_init(&n, CM_FINN_SWG); /* zero-sized map */
    cm_finn_node_cost(&n, &c);
    assert_true(c.cycles == 0);
    assert_int_equal(c.res.bram18, 0);
    n.kind = (cm_finn_kind)99;
    memset(&c, 0x5a, sizeof c);
    cm_finn_node_cost(&n, &c);
    assert_true(c.cycles == 0);
    assert_int_equal(c.res.lut + c.res.bram18 + c.res.uram + c.res.dsp + c.res.ff, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_samo_configuration),
        cmocka_unit_test(test_samo_styles_follow_widths),
        cmocka_unit_test(test_bram18_ladder),
        cmocka_unit_test(test_mvau_example_simd32_pe16),
        cmocka_unit_test(test_mvau_example_simd8_pe4),
        cmocka_unit_test(test_mvau_memory_modes),
        cmocka_unit_test(test_mvau_log2_quirk),
        cmocka_unit_test(test_vvau),
        cmocka_unit_test(test_vvau_bram_ladder),
        cmocka_unit_test(test_swg_examples),
        cmocka_unit_test(test_swg_cycles),
        cmocka_unit_test(test_swg_bram_width_classes),
        cmocka_unit_test(test_thresholding),
        cmocka_unit_test(test_maxpool),
        cmocka_unit_test(test_pool_batch),
        cmocka_unit_test(test_streams),
        cmocka_unit_test(test_fmpadding),
        cmocka_unit_test(test_labelselect),
        cmocka_unit_test(test_globalaccpool),
        cmocka_unit_test(test_concat),
        cmocka_unit_test(test_elementwise_mul),
        cmocka_unit_test(test_degenerate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
