/* Latency-driven flow tests: small networks whose reference architecture, workload
 * alignment (Alg. 1), II matrix and optimum are worked out by hand in the comments, and
 * the paper's Table I benchmarks on a ZC706 against the throughput-driven design. */
#include "test_support.h"
#include "onnx_builder.h"

#include <cnnmap/design.h>
#include <cnnmap/design_io.h>
#include <cnnmap/latency.h>
#include <cnnmap/model.h>
#include <cnnmap/optimise.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLOCK 125e6
#define BW_WORDS (3.8e9 / (CLOCK * 2.0)) /* 15.2 16-bit words a cycle */

static cm_graph *load_model(Onnx__ModelProto *m)
{
    return cm_test_load_built(m, "test.onnx");
}

static void conv(Onnx__ModelProto *m, const char *name, const char *in, const char *out,
                 int64_t filters, int64_t channels, int64_t pad)
{
    char w[32];
    snprintf(w, sizeof w, "%s_W", name);
    ob_init_float(m, w, 4, (int64_t[]){filters, channels, 3, 3}, NULL);
    char inputs[80];
    snprintf(inputs, sizeof inputs, "%s,%s", in, w);
    Onnx__NodeProto *n = ob_node(m, "Conv", name, inputs, out);
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){3, 3});
    ob_attr_ints(n, "pads", 4, (int64_t[]){pad, pad, pad, pad});
}

/* A 2x2 max pooling of stride 2 named "pool". */
static void max_pool2(Onnx__ModelProto *m, const char *in, const char *out)
{
    Onnx__NodeProto *n = ob_node(m, "MaxPool", "pool", in, out);
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){2, 2});
    ob_attr_ints(n, "strides", 2, (int64_t[]){2, 2});
}

/* x CxHxH -> one 3x3 conv of `filters` filters (no bias). */
static cm_graph *single_conv(int64_t c, int64_t h, int64_t filters, int64_t pad)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, c, h, h});
    conv(m, "c", "x", "y", filters, c, pad);
    ob_output(m, "y", 4, NULL);
    return load_model(m);
}

/* x 1x8x8 -> maxpool 2 s2 -> 1x4x4 -> convA 2x3x3 pad 1 -> 2x4x4 -> relu
 *         -> convB 4x3x3 -> 4x2x2 -> relu (no biases). */
static cm_graph *pool_conv_conv(void)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 1, 8, 8});
    max_pool2(m, "x", "p");
    conv(m, "convA", "p", "a", 2, 1, 1);
    ob_node(m, "Relu", "reluA", "a", "ra");
    conv(m, "convB", "ra", "b", 4, 2, 0);
    ob_node(m, "Relu", "reluB", "b", "y");
    ob_output(m, "y", 4, NULL);
    return load_model(m);
}

static cm_board zc706(void)
{
    cm_board b;
    cm_error err = {0};
    if (cm_board_builtin("zc706", &b, &err) != CM_OK)
        fail_msg("%s", err.message);
    return b;
}

static double at(const cm_latency_design *d, const double *m, int row, int col)
{
    return m[row * d->n_nodes + col];
}

/* Cut before convB: groups [pool, convA, relu] and [convB, relu]. Their patterns
 * (Pool, Conv, ReLU) and (Conv, ReLU) have the shortest common supersequence
 * (Pool, Conv, ReLU): three blocks, SDF nodes memory 0, pool0 1, conv0.window 2,
 * conv0.bank 3, relu0 4, and arc a from node a to a + 1 (arc 4 back to memory).
 *
 * Point: conv0 N = 2 units of m = 3 MACCs (the 3x3 window in 3 chunks).
 * Subgraph 0: memory reads 64 words and writes 32 ((64 + 32) / 15.2 = 6.3 cycles);
 *   pool 8x8 -> 4x4 on one stream (1 channel caps it): II 64;
 *   convA window: the padded 6x6 map, II 36, 16 windows out;
 *   convA bank: 16 windows x 1 filter group x 3 chunks x 3 words = 144 words at 3 a
 *   cycle: II 48; relu 32 words at 1 (48 already bounds it): II 32. II_max = 64.
 *   depth: pool window 8*1*1 + 1*2*1 = 10; conv window 6*1*2 + 1*3*2 = 18, + 3 chunks
 *   + 1 channel x 1 group = 22. t0 = (32 + 64) / 125 MHz.
 * Subgraph 1 (pool bypassed): Alg. 1 shifts its columns (memory, window, bank, relu)
 *   = (0, 1, 2, 3) right by (0, 1, 1, 1) to (0, 2, 3, 4); window reads 4x4x2 = 32 on
 *   arc 1 (II 32) and makes 8 windows on arc 2; bank: 4 pixels x 2 channels x 2 filter
 *   groups x 3 chunks x 3 words = 144 on arc 2 (II 48), 16 output slots at 2 (II 8);
 *   relu 16 words (II 16); memory 32 in on arc 0, 16 out on arc 4. II_max = 48.
 *   depth 4*2*2 + 2*3*2 + 3 + 2*2 = 35. t1 = (35 + 48) / 125 MHz.
 * Weights: 18 + 72 words of 2 bytes at 3.8 GB/s, loaded before each subgraph. */
static void test_alignment_by_hand(void **state)
{
    (void)state;
    cm_graph *g = pool_conv_conv();
    cm_board b = zc706();
    cm_latency_options o;
    cm_latency_options_init(&o);
    o.input_folding = false;
    bool cut[2] = {false, true};
    int coarse[3] = {1, 2, 1}, macc[3] = {1, 3, 1};
    cm_latency_point p = {cut, coarse, macc, NULL};
    cm_latency_design d;
    cm_error err = {0};
    assert_int_equal(cm_latency_evaluate(g, &b, &o, &p, &d, &err), CM_OK);
    assert_int_equal(d.n_blocks, 3);
    assert_int_equal(d.blocks[0].kind, CM_LATENCY_POOL);
    assert_int_equal(d.blocks[1].kind, CM_LATENCY_CONV);
    assert_int_equal(d.blocks[2].kind, CM_LATENCY_RELU);
    assert_int_equal(d.n_nodes, 5);
    assert_int_equal(d.n_subgraphs, 2);

    const cm_latency_subgraph *s0 = &d.subgraphs[0], *s1 = &d.subgraphs[1];
    assert_float_equal(s0->ii_max_cycles, 64, 0);
    assert_float_equal(s0->depth_cycles, 32, 0);
    assert_float_equal(at(&d, s0->ii, 0, 1), 64, 0);   /* pool reads 64 on arc 0 */
    assert_float_equal(at(&d, s0->ii, 2, 3), 48, 0);   /* bank */
    assert_float_equal(at(&d, s0->workload, 2, 3), -144, 0);
    assert_float_equal(at(&d, d.gamma, 2, 3), -3, 0);  /* 1 stream x 3 words x rate 1 */
    assert_float_equal(at(&d, d.gamma, 3, 3), 2, 0);   /* 2 units */

    int want_cols[4] = {0, 2, 3, 4}, want_shift[4] = {0, 1, 1, 1};
    assert_int_equal(s1->n_columns, 4);
    for (int k = 0; k < 4; k++) {
        assert_int_equal(s1->column[k], want_cols[k]);
        assert_int_equal(s1->shift[k], want_shift[k]);
    }
    double want_ii[5][5] = {
        {32 / BW_WORDS, 0, 0, 0, 0},
        {0, 0, 32, 0, 0},
        {0, 0, 8, 48, 0},
        {0, 0, 0, 8, 16},
        {16 / BW_WORDS, 0, 0, 0, 16},
    };
    for (int r = 0; r < 5; r++)
        for (int c = 0; c < 5; c++)
            assert_float_equal(at(&d, s1->ii, r, c), want_ii[r][c], 1e-9);
    for (int r = 0; r < 5; r++)
        assert_float_equal(at(&d, s1->workload, r, 1), 0, 0); /* pool bypassed */
    assert_float_equal(s1->ii_max_cycles, 48, 0);
    assert_float_equal(s1->depth_cycles, 35, 0);
    assert_int_equal(s0->weight_words, 18);
    assert_int_equal(s1->weight_words, 72);
    double want = (96 + 83) / CLOCK + 90 * 2 / 3.8e9;
    assert_float_equal(d.latency_s, want, 1e-15);
    cm_latency_design_free(&d);
    cm_graph_free(g);
}

/* One conv 1x10x10 -> 8x8x8 (3x3, no bias) on a board with 24 DSPs and plenty else.
 * DSPs are N * m; the bank's II is 64 pixels x ceil(8/N) x ceil(9/m). Within 24:
 * (8, 3) gives 64 * 1 * 3 = 192; (4, 5) and (2, 9) 256; (8, 2) 320; (6, 4) 384; the
 * only other way to 3 passes, (3, 9), needs 27. So the optimum is N = 8, m = 3, one
 * subgraph (weights stay on chip), depth 10*1*2 + 1*3*2 + 3 + 1 = 30:
 * latency (30 + 192) / 125 MHz. */
static void test_optimum_by_hand(void **state)
{
    (void)state;
    cm_graph *g = single_conv(1, 10, 8, 0);
    static const char board_json[] =
        "{\"name\": \"dsp24\", \"display_name\": \"DSP24\", \"part\": \"x\", \"memory\": \"m\","
        " \"resources\": {\"LUT\": 10000000, \"FF\": 10000000, \"DSP\": 24, \"BRAM\": 100000,"
        " \"URAM\": 0}, \"bram_unit\": \"BRAM18\", \"clock_mhz\": 125.0, \"bandwidth_gbps\": 3.8,"
        " \"peak_bandwidth_gbps\": 4.2, \"reconfiguration_s\": 0.6,"
        " \"reconfiguration_estimated\": false}";
    cm_board b;
    cm_error err = {0};
    if (cm_board_parse(board_json, strlen(board_json), "dsp24.json", &b, &err) != CM_OK)
        fail_msg("%s", err.message);
    cm_latency_options o;
    cm_latency_options_init(&o);
    cm_latency_design d;
    assert_int_equal(cm_latency_optimise(g, &b, &o, &d, &err), CM_OK);
    assert_int_equal(d.n_blocks, 1);
    assert_int_equal(d.blocks[0].coarse, 8);
    assert_int_equal(d.blocks[0].macc, 3);
    assert_int_equal(d.resources.dsp, 24);
    assert_int_equal(d.n_subgraphs, 1);
    assert_float_equal(d.weights_s, 0, 0);
    assert_float_equal(d.latency_s, (30 + 192) / CLOCK, 1e-15);
    cm_latency_design_free(&d);
    cm_graph_free(g);
}

/* Input feature-map folding: conv 256x4x4 -> 4x4x4 (3x3, pad 1) on one unit of 9 MACCs.
 * Each bank holds ceil(4/1) x 256 x 1 = 1024 words unfolded, two BRAM18 (1000 words of
 * 16 bits each); with one-BRAM banks f_in = 2 (512 words). The reference is
 * (Conv, Accumulate). Passes: the padded 6x6 map of 128 channels, II 4608 in the
 * window, 16 x 128 x 4 groups = 8192 in the bank; depth 6*128*2 + 128*3*2 + 1 + 128*4
 * = 2817. Accumulation: 2 partial maps of 64 words on one stream, II 128, depth 0.
 * Weights 4608 words per pass, none for the sum (no bias). */
static void test_input_folding_by_hand(void **state)
{
    (void)state;
    cm_graph *g = single_conv(256, 4, 4, 1);
    cm_board b = zc706();
    cm_latency_options o;
    cm_latency_options_init(&o);
    int coarse[2] = {1, 1}, macc[2] = {9, 1}, bank[2] = {1, 1};
    bool cut[1] = {false};
    cm_latency_point p = {cut, coarse, macc, bank};
    cm_latency_design d;
    cm_error err = {0};
    assert_int_equal(cm_latency_evaluate(g, &b, &o, &p, &d, &err), CM_OK);
    assert_int_equal(d.n_blocks, 2);
    assert_int_equal(d.blocks[1].kind, CM_LATENCY_ACCUM);
    assert_int_equal(d.fin[0], 2);
    assert_int_equal(d.n_subgraphs, 3);
    for (int s = 0; s < 2; s++) {
        assert_int_equal(d.subgraphs[s].fold, s);
        assert_int_equal(d.subgraphs[s].folds, 2);
        assert_float_equal(d.subgraphs[s].ii_max_cycles, 8192, 0);
        assert_float_equal(d.subgraphs[s].depth_cycles, 2817, 0);
        assert_int_equal(d.subgraphs[s].weight_words, 4608);
    }
    assert_float_equal(d.subgraphs[2].ii_max_cycles, 128, 0);
    double want = (2 * (2817 + 8192) + 128) / CLOCK + 2 * 4608 * 2 / 3.8e9;
    assert_float_equal(d.latency_s, want, 1e-15);
    /* unfolded banks need two BRAM18 each */
    p.bank_bram = NULL;
    cm_latency_design_free(&d);
    assert_int_equal(cm_latency_evaluate(g, &b, &o, &p, &d, &err), CM_OK);
    assert_int_equal(d.fin[0], 1);
    assert_int_equal(d.n_subgraphs, 1);
    cm_latency_design_free(&d);
    cm_graph_free(g);
}

/* x 2x4x4 -> convA 2x3x3 pad 1 -> reluA -> convB 2x3x3 pad 1 -> add(convB, reluA)
 * -> relu -> y (no biases). Net: convA 0, reluA 1, convB 2, add 3, relu 4. The add's
 * main operand is convB's (the layer before); reluA's output is its other one, which
 * reluA writes to memory (it spills) and the add reads back: 32 words each way. */
static cm_graph *residual_block(void)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    conv(m, "convA", "x", "a", 2, 2, 1);
    ob_node(m, "Relu", "reluA", "a", "ra");
    conv(m, "convB", "ra", "b", 2, 2, 1);
    ob_node(m, "Add", "add", "b,ra", "s");
    ob_node(m, "Relu", "relu", "s", "y");
    ob_output(m, "y", 4, NULL);
    return load_model(m);
}

/* The memory node's words of subgraph k: read (arc 0) and written (the last arc). */
static void memory_words(const cm_latency_design *d, int k, double *in, double *out)
{
    const cm_latency_subgraph *s = &d->subgraphs[k];
    *in = at(d, s->ii, 0, 0) * BW_WORDS;
    *out = at(d, s->ii, d->n_nodes - 1, 0) * BW_WORDS;
}

/* One subgraph: the memory reads x (32) and the add's operand (32) and writes y (32)
 * and reluA's output (32). Blocks (Conv, ReLU, Conv, Eltwise, ReLU).
 * Cut before convB: [convA, reluA] reads x and writes reluA's output once (it is the
 * subgraph's output: 32, 32); [convB, add, relu] reads it twice, as its input and as
 * the add's operand (64), and writes y (32). The patterns (Conv, ReLU) and (Conv,
 * Eltwise, ReLU) merge into (Conv, Eltwise, ReLU). */
static void test_residual_by_hand(void **state)
{
    (void)state;
    cm_graph *g = residual_block();
    cm_board b = zc706();
    cm_latency_options o;
    cm_latency_options_init(&o);
    o.input_folding = false;
    bool cut[2] = {false, false};
    int coarse[5] = {1, 1, 1, 1, 1}, macc[5] = {9, 1, 9, 1, 1};
    cm_latency_point p = {cut, coarse, macc, NULL};
    cm_latency_design d;
    cm_error err = {0};
    assert_int_equal(cm_latency_evaluate(g, &b, &o, &p, &d, &err), CM_OK);
    assert_int_equal(d.n_subgraphs, 1);
    assert_int_equal(d.n_blocks, 5);
    assert_int_equal(d.blocks[3].kind, CM_LATENCY_ELTWISE);
    double in, out;
    memory_words(&d, 0, &in, &out);
    assert_float_equal(in, 64, 1e-9);
    assert_float_equal(out, 64, 1e-9);
    cm_latency_design_free(&d);

    cut[1] = true;
    assert_int_equal(cm_latency_evaluate(g, &b, &o, &p, &d, &err), CM_OK);
    assert_int_equal(d.n_subgraphs, 2);
    assert_int_equal(d.n_blocks, 3);
    assert_int_equal(d.blocks[0].kind, CM_LATENCY_CONV);
    assert_int_equal(d.blocks[1].kind, CM_LATENCY_ELTWISE);
    assert_int_equal(d.blocks[2].kind, CM_LATENCY_RELU);
    memory_words(&d, 0, &in, &out);
    assert_float_equal(in, 32, 1e-9);
    assert_float_equal(out, 32, 1e-9);
    memory_words(&d, 1, &in, &out);
    assert_float_equal(in, 64, 1e-9);
    assert_float_equal(out, 32, 1e-9);
    cm_latency_design_free(&d);
    cm_graph_free(g);
}

/* x 2x4x4 -> convA 2x3x3 pad 1 -> Resize (nearest, x2) -> 2x8x8 -> LayerNorm over the
 * channels (ConvNeXt's permute, LayerNormalization, permute back) -> convB 2x3x3 pad 1
 * -> y 2x8x8 (no biases). */
static cm_graph *resize_norm_net(void)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_opset(m, 17);
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_init_float(m, "scales", 1, (int64_t[]){4}, (float[]){1, 1, 2, 2});
    ob_init_float(m, "gamma", 1, (int64_t[]){2}, (float[]){1.0f, 0.5f});
    ob_init_float(m, "beta", 1, (int64_t[]){2}, (float[]){0.0f, 0.1f});
    conv(m, "convA", "x", "a", 2, 2, 1);
    ob_attr_string(ob_node(m, "Resize", "up", "a,,scales", "u"), "mode", "nearest");
    ob_attr_ints(ob_node(m, "Transpose", "to_last", "u", "t"), "perm", 4, (int64_t[]){0, 2, 3, 1});
    Onnx__NodeProto *ln = ob_node(m, "LayerNormalization", "ln", "t,gamma,beta", "n");
    ob_attr_int(ln, "axis", -1);
    ob_attr_ints(ob_node(m, "Transpose", "to_first", "n", "nb"), "perm", 4,
                 (int64_t[]){0, 3, 1, 2});
    conv(m, "convB", "nb", "y", 2, 2, 1);
    ob_output(m, "y", 4, NULL);
    return load_model(m);
}

/* The resize and the normalisation are pointwise steps (blocks Conv, ReLU, ReLU, Conv;
 * SDF nodes memory 0, convA window 1 and bank 2, up 3, ln 4, convB window 5 and bank 6).
 * One stream each, m = 9, N = 1:
 *   up reads convA's 4x4x2 = 32 words (II 32 on arc 2) and writes its 8x8x2 = 128-word
 *   output walk (II 128 on arc 3); its first output row waits for input row 0: depth
 *   4 columns x 2 channels = 8.
 *   ln: 128 in, 128 out; its first output waits for its pixel's 2 channels: depth 2; it
 *   holds two pixels (2 x 2 x 16 bits: one BRAM18, at least one bank per two streams)
 *   and two multipliers a stream (2 DSP).
 *   depth: convA window 6*2*2 + 2*3*2 = 36, + 1 chunk + 2 channels x 2 filter passes =
 *   41; convB 10*2*2 + 2*3*2 = 52 + 1 + 4 = 57; in all 41 + 8 + 2 + 57 = 108.
 * With 2 streams on ln each holds its channel: no buffer, 4 DSPs, depth 1. A GroupNorm
 * (statistics over the whole map) is refused, naming the layer. */
static void test_resize_norm_by_hand(void **state)
{
    (void)state;
    cm_graph *g = resize_norm_net();
    assert_int_equal(g->n_layers, 4);
    cm_board b = zc706();
    cm_latency_options o;
    cm_latency_options_init(&o);
    o.input_folding = false;
    bool cut[2] = {false, false};
    int coarse[4] = {1, 1, 1, 1}, macc[4] = {9, 1, 1, 9};
    cm_latency_point p = {cut, coarse, macc, NULL};
    cm_latency_design d;
    cm_error err = {0};
    if (cm_latency_evaluate(g, &b, &o, &p, &d, &err) != CM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(d.n_subgraphs, 1);
    assert_int_equal(d.n_blocks, 4);
    assert_int_equal(d.blocks[1].kind, CM_LATENCY_RELU);
    assert_int_equal(d.blocks[2].kind, CM_LATENCY_RELU);
    const cm_latency_subgraph *s = &d.subgraphs[0];
    assert_float_equal(at(&d, s->ii, 2, 3), 32, 1e-9);
    assert_float_equal(at(&d, s->ii, 3, 3), 128, 1e-9);
    assert_float_equal(at(&d, s->ii, 3, 4), 128, 1e-9);
    assert_float_equal(at(&d, s->ii, 4, 4), 128, 1e-9);
    assert_float_equal(s->depth_cycles, 108, 1e-9);
    assert_int_equal(d.blocks[1].res.dsp, 0); /* nearest: no multiplier */
    assert_int_equal(d.blocks[2].res.dsp, 2);
    assert_int_equal(d.blocks[2].res.bram18, 1);
    cm_latency_design_free(&d);

    coarse[2] = 2;
    if (cm_latency_evaluate(g, &b, &o, &p, &d, &err) != CM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(d.blocks[2].res.dsp, 4);
    assert_int_equal(d.blocks[2].res.bram18, 0);
    assert_float_equal(d.subgraphs[0].depth_cycles, 107, 1e-9);
    cm_latency_design_free(&d);
    cm_graph_free(g);

    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 4, 4, 4});
    conv(m, "convA", "x", "a", 4, 4, 1);
    ob_group_norm(m, "a", "y", 4, 2, NULL, 1.0f, NULL, NULL);
    ob_output(m, "y", 4, NULL);
    g = load_model(m);
    assert_int_equal(cm_latency_optimise(g, &b, &o, &d, &err), CM_EINPUT);
    assert_non_null(strstr(err.message, "over the whole map"));
    cm_graph_free(g);
}

/* ResNet's downsampling block as torchvision writes it: x 2x4x4 -> convA -> reluA,
 * then the block's first convolution c3 (of reluA), the shortcut c4 (of reluA), r3 =
 * relu(c3), c5 (of r3), add(c5, c4); every conv 2 filters, 3x3, pad 1. In the graph's
 * order c4 and r3 would each begin a subgraph (neither reads the layer before it); the
 * net takes c3, r3, c5 first, then the shortcut c4, which alone begins one, and the add
 * reads c4 as it streams. With no cuts: [convA, reluA, c3, r3, c5] reads x (32) and
 * writes c5 and reluA's output (which c4 reads): 64; [c4, add] reads reluA's output
 * and c5's (64) and writes y (32). */
static void test_shortcut_order(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    conv(m, "convA", "x", "a", 2, 2, 1);
    ob_node(m, "Relu", "reluA", "a", "ra");
    conv(m, "c3", "ra", "b3", 2, 2, 1);
    conv(m, "c4", "ra", "b4", 2, 2, 1);
    ob_node(m, "Relu", "r3", "b3", "rb3");
    conv(m, "c5", "rb3", "b5", 2, 2, 1);
    ob_node(m, "Add", "add", "b5,b4", "y");
    ob_output(m, "y", 4, NULL);
    cm_graph *g = load_model(m);
    cm_board b = zc706();
    cm_latency_options o;
    cm_latency_options_init(&o);
    o.input_folding = false;
    bool cut[4] = {false, false, false, false};
    int coarse[8] = {1, 1, 1, 1, 1, 1, 1, 1}, macc[8] = {9, 1, 9, 1, 9, 1, 1, 1};
    cm_latency_point p = {cut, coarse, macc, NULL};
    cm_latency_design d;
    cm_error err = {0};
    assert_int_equal(cm_latency_evaluate(g, &b, &o, &p, &d, &err), CM_OK);
    assert_int_equal(d.n_subgraphs, 2);
    const int want[2][5] = {{0, 1, 2, 4, 5}, {3, 6}}; /* graph layers, in the net's order */
    assert_int_equal(d.subgraphs[0].n_layers, 5);
    assert_int_equal(d.subgraphs[1].n_layers, 2);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < d.subgraphs[k].n_layers; i++)
            assert_int_equal(d.subgraphs[k].layers[i], want[k][i]);
    double in, out;
    memory_words(&d, 0, &in, &out);
    assert_float_equal(in, 32, 1e-9);
    assert_float_equal(out, 64, 1e-9);
    memory_words(&d, 1, &in, &out);
    assert_float_equal(in, 64, 1e-9);
    assert_float_equal(out, 32, 1e-9);
    cm_latency_design_free(&d);
    cm_graph_free(g);
}

/* An inception-like fork: convA(x) and maxpool(x) concatenated, x 2x4x4, the pool 3x3
 * stride 1 pad 1. The pool's operand is x, not convA's output, so the pool begins a
 * subgraph (no cut vector can join them): [convA] reads x and writes its output (32,
 * 32); [pool, concat] reads x again and convA's output as the concat's operand (64) and
 * writes the 4x4x4 concatenation (64). */
static void test_fork_by_hand(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    conv(m, "convA", "x", "a", 2, 2, 1);
    Onnx__NodeProto *n = ob_node(m, "MaxPool", "pool", "x", "p");
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){3, 3});
    ob_attr_ints(n, "pads", 4, (int64_t[]){1, 1, 1, 1});
    n = ob_node(m, "Concat", "cat", "a,p", "y");
    ob_attr_int(n, "axis", 1);
    ob_output(m, "y", 4, NULL);
    cm_graph *g = load_model(m);
    cm_board b = zc706();
    cm_latency_options o;
    cm_latency_options_init(&o);
    o.input_folding = false; /* else convA's accumulation joins the blocks */
    bool cut[1] = {false};
    int coarse[3] = {1, 1, 1}, macc[3] = {9, 1, 1};
    cm_latency_point p = {cut, coarse, macc, NULL};
    cm_latency_design d;
    cm_error err = {0};
    assert_int_equal(cm_latency_evaluate(g, &b, &o, &p, &d, &err), CM_OK);
    assert_int_equal(d.n_subgraphs, 2);
    assert_int_equal(d.n_blocks, 3);
    assert_int_equal(d.blocks[1].kind, CM_LATENCY_POOL);
    assert_int_equal(d.blocks[2].kind, CM_LATENCY_ELTWISE);
    double in, out;
    memory_words(&d, 0, &in, &out);
    assert_float_equal(in, 32, 1e-9);
    assert_float_equal(out, 32, 1e-9);
    memory_words(&d, 1, &in, &out);
    assert_float_equal(in, 64, 1e-9);
    assert_float_equal(out, 64, 1e-9);
    cm_latency_design_free(&d);
    cm_graph_free(g);
}

/* x 4x4x4 -> a 3x3 convolution of 4 filters in 2 groups (pad 1): each window feeds the
 * 2 filters of its group. At N = 1, m = 3 every window passes the unit twice in 3
 * chunks: the bank reads 16 pixels x 4 maps x 2 passes x 3 chunks x 3 words = 1152 at 3
 * a cycle, II 384 (the window reads the padded 6x6x4 = 144); depth = window 6*4*2 +
 * 4*3*2 = 72, + 3 chunks + 4 maps x 2 passes = 83. Each bank holds 2 filters x 4 maps x
 * 3 chunks = 24 words, 72 over the 3 MACCs: the layer's 4 x 2 x 9 weights. At N = 2
 * each group's two filters go at once: II 192, depth 79. N = 4 is no faster: the
 * group has two filters. */
static void test_grouped_by_hand(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 4, 4, 4});
    ob_init_float(m, "W", 4, (int64_t[]){4, 2, 3, 3}, NULL);
    Onnx__NodeProto *n = ob_node(m, "Conv", "conv", "x,W", "y");
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){3, 3});
    ob_attr_ints(n, "pads", 4, (int64_t[]){1, 1, 1, 1});
    ob_attr_int(n, "group", 2);
    ob_output(m, "y", 4, NULL);
    cm_graph *g = load_model(m);
    cm_board b = zc706();
    cm_latency_options o;
    cm_latency_options_init(&o);
    o.input_folding = false; /* else the accumulation block joins the architecture */
    bool cut[1] = {false};
    const int units[3] = {1, 2, 4};
    const double ii[3] = {384, 192, 192}, depth[3] = {83, 79, 79};
    for (int k = 0; k < 3; k++) {
        int coarse[1] = {units[k]}, macc[1] = {3};
        cm_latency_point p = {cut, coarse, macc, NULL};
        cm_latency_design d;
        cm_error err = {0};
        assert_int_equal(cm_latency_evaluate(g, &b, &o, &p, &d, &err), CM_OK);
        assert_int_equal(d.n_subgraphs, 1);
        assert_float_equal(d.subgraphs[0].ii_max_cycles, ii[k], 0);
        assert_float_equal(d.subgraphs[0].depth_cycles, depth[k], 0);
        assert_int_equal(d.subgraphs[0].weight_words, 72);
        assert_float_equal(d.latency_s, (ii[k] + depth[k]) / CLOCK, 1e-15);
        cm_latency_design_free(&d);
    }
    cm_graph_free(g);
}

/* x 32x2x2 -> a 3x3 convolution (pad 1) of 64 filters in 2 groups, on N = 1 unit of
 * m = 9 MACCs with banks of one BRAM18 (512 16-bit words in fpgaConvNet's memory
 * model). Unfolded the bank needs 32 filters x 32 maps = 1,024 words, so f_in = 2:
 * each pass takes one whole group, 16 maps in (2x2x16 = 64 words) and its 32 filters'
 * outputs out (128 words, a slice of the layer's, not a partial sum); the bank's II is
 * 4 pixels x 16 maps x 32 passes = 2,048. The accumulation gathers the two slices:
 * 256 words in, 256 out. */
static void test_grouped_folding(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 32, 2, 2});
    ob_init_float(m, "W", 4, (int64_t[]){64, 16, 3, 3}, NULL);
    Onnx__NodeProto *n = ob_node(m, "Conv", "conv", "x,W", "y");
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){3, 3});
    ob_attr_ints(n, "pads", 4, (int64_t[]){1, 1, 1, 1});
    ob_attr_int(n, "group", 2);
    ob_output(m, "y", 4, NULL);
    cm_graph *g = load_model(m);
    cm_board b = zc706();
    cm_latency_options o;
    cm_latency_options_init(&o);
    bool cut[1] = {false};
    int coarse[2] = {1, 1}, macc[2] = {9, 1}, bank[2] = {1, 1};
    cm_latency_point p = {cut, coarse, macc, bank};
    cm_latency_design d;
    cm_error err = {0};
    assert_int_equal(cm_latency_evaluate(g, &b, &o, &p, &d, &err), CM_OK);
    assert_true(d.feasible);
    assert_int_equal(d.fin[0], 2);
    assert_int_equal(d.n_subgraphs, 3);
    double in, out;
    for (int k = 0; k < 2; k++) {
        memory_words(&d, k, &in, &out);
        assert_float_equal(in, 64, 1e-9);
        assert_float_equal(out, 128, 1e-9);
        assert_float_equal(d.subgraphs[k].ii_max_cycles, 2048, 0);
        assert_int_equal(d.subgraphs[k].weight_words, 64 * 16 * 9 / 2);
    }
    memory_words(&d, 2, &in, &out);
    assert_float_equal(in, 256, 1e-9);
    assert_float_equal(out, 256, 1e-9);
    cm_latency_design_free(&d);
    cm_graph_free(g);
}

/* x 32x4x4 -> maxpool 2 s2 -> 32x2x2 -> a 3x3 convolution (pad 1) of 64 filters, on
 * N = 1 unit of m = 9 MACCs with banks of one BRAM18 (512 words). Unfolded the bank
 * needs 64 filters x 32 maps = 2,048 words, so f_in = 4 (512): the pooling works
 * channel by channel, so each pass pools and convolves 8 of the maps. A pass reads
 * 4x4x8 = 128 words and writes the 64 filters' partial 2x2 maps (256); its bank's II
 * is 4 pixels x 8 maps x 64 filters = 2,048. The accumulation reads the four partial
 * maps (1,024) and writes 256. */
static void test_folding_after_pool(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 32, 4, 4});
    max_pool2(m, "x", "p");
    conv(m, "conv", "p", "y", 64, 32, 1);
    ob_output(m, "y", 4, NULL);
    cm_graph *g = load_model(m);
    cm_board b = zc706();
    cm_latency_options o;
    cm_latency_options_init(&o);
    bool cut[1] = {false};
    int coarse[3] = {1, 1, 1}, macc[3] = {1, 9, 1}, bank[3] = {1, 1, 1};
    cm_latency_point p = {cut, coarse, macc, bank};
    cm_latency_design d;
    cm_error err = {0};
    assert_int_equal(cm_latency_evaluate(g, &b, &o, &p, &d, &err), CM_OK);
    assert_int_equal(d.n_blocks, 3); /* pool, conv, accumulation */
    assert_true(d.feasible);
    assert_int_equal(d.fin[1], 4);
    assert_int_equal(d.n_subgraphs, 5);
    double in, out;
    for (int k = 0; k < 4; k++) {
        assert_int_equal(d.subgraphs[k].n_layers, 2);
        memory_words(&d, k, &in, &out);
        assert_float_equal(in, 128, 1e-9);
        assert_float_equal(out, 256, 1e-9);
        assert_float_equal(d.subgraphs[k].ii_max_cycles, 2048, 0);
        assert_int_equal(d.subgraphs[k].weight_words, 64 * 8 * 9);
    }
    memory_words(&d, 4, &in, &out);
    assert_float_equal(in, 1024, 1e-9);
    assert_float_equal(out, 256, 1e-9);
    cm_latency_design_free(&d);
    cm_graph_free(g);
}

/* test_folding_after_pool with a LayerNorm over the channels in the pool's place: its
 * statistics span all 32 maps, so no pass can normalise a slice of 8 of them, and the
 * group is not folded (blocks: pointwise and conv, no accumulation): the 2,048-word
 * filters overflow a one-BRAM18 bank (infeasible), and fit four (512 words each). */
static void test_no_folding_after_norm(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_opset(m, 17);
    ob_input(m, "x", 4, (int64_t[]){1, 32, 4, 4});
    ob_init_float(m, "gamma", 1, (int64_t[]){32}, NULL);
    ob_init_float(m, "beta", 1, (int64_t[]){32}, NULL);
    ob_attr_ints(ob_node(m, "Transpose", "to_last", "x", "t"), "perm", 4, (int64_t[]){0, 2, 3, 1});
    ob_attr_int(ob_node(m, "LayerNormalization", "ln", "t,gamma,beta", "n"), "axis", -1);
    ob_attr_ints(ob_node(m, "Transpose", "to_first", "n", "nb"), "perm", 4,
                 (int64_t[]){0, 3, 1, 2});
    conv(m, "conv", "nb", "y", 64, 32, 1);
    ob_output(m, "y", 4, NULL);
    cm_graph *g = load_model(m);
    cm_board b = zc706();
    cm_latency_options o;
    cm_latency_options_init(&o);
    bool cut[1] = {false};
    int coarse[2] = {1, 1}, macc[2] = {1, 9}, bank[2] = {1, 1};
    cm_latency_point p = {cut, coarse, macc, bank};
    cm_latency_design d;
    cm_error err = {0};
    assert_int_equal(cm_latency_evaluate(g, &b, &o, &p, &d, &err), CM_OK);
    assert_int_equal(d.n_blocks, 2);
    assert_int_equal(d.blocks[0].kind, CM_LATENCY_RELU);
    assert_int_equal(d.n_subgraphs, 1);
    assert_false(d.feasible);
    cm_latency_design_free(&d);
    bank[1] = 4;
    assert_int_equal(cm_latency_evaluate(g, &b, &o, &p, &d, &err), CM_OK);
    assert_true(d.feasible);
    assert_int_equal(d.n_subgraphs, 1);
    assert_int_equal(d.subgraphs[0].folds, 1);
    cm_latency_design_free(&d);
    cm_graph_free(g);
}

/* ResNet-8: the flow maps it, with an element-wise block for the skip connections,
 * and within the ZC706. */
static void test_resnet8(void **state)
{
    (void)state;
    char path[1024];
    cm_test_shared_model("resnet8_a8w8b16.onnx", path, sizeof path);
    cm_graph *g = NULL;
    cm_error err = {0};
    assert_int_equal(cm_model_load(path, &g, &err), CM_OK);
    cm_board b = zc706();
    cm_latency_options o;
    cm_latency_options_init(&o);
    cm_latency_design d;
    assert_int_equal(cm_latency_optimise(g, &b, &o, &d, &err), CM_OK);
    assert_true(d.feasible);
    assert_true(d.latency_s > 0);
    bool eltwise = false;
    for (int k = 0; k < d.n_blocks; k++)
        eltwise |= d.blocks[k].kind == CM_LATENCY_ELTWISE;
    assert_true(eltwise);
    assert_true(d.resources.dsp <= b.resources.dsp && d.resources.bram18 <= b.resources.bram18);
    cm_latency_design_free(&d);
    cm_graph_free(g);
}

/* The throughput-driven design of the library at batch 1 (INFINITY when it does not fit),
 * and its number of partitions. */
static double throughput_design(const char *path, int *partitions)
{
    cm_design *d = cm_test_design(path, "zc706", CM_BACKEND_FPGACONVNET, 0, true);
    cm_optimise_options so = {.optimiser = CM_OPTIMISER_RULE, .seed = 1};
    cm_optimise_result r;
    cm_error err = {0};
    assert_int_equal(cm_optimise(d, &so, &r, &err), CM_OK);
    double lat = cm_design_feasible(d) ? cm_design_cost(d) : INFINITY;
    *partitions = cm_design_partition_count(d);
    cm_design_free(d);
    return lat;
}

static void latency_design(const char *path, cm_latency_design *d)
{
    cm_graph *g = NULL;
    cm_error err = {0};
    assert_int_equal(cm_model_load(path, &g, &err), CM_OK);
    cm_board b = zc706();
    cm_latency_options o;
    cm_latency_options_init(&o);
    if (cm_latency_optimise(g, &b, &o, d, &err) != CM_OK)
        fail_msg("%s", err.message);
    cm_graph_free(g);
}

/* Table I on a ZC706 at 125 MHz, 16 bits, 3.8 GB/s, batch 1: never worse than the
 * throughput-driven design, strictly better where that needs reconfiguration (or does
 * not fit at all: VGG16's 512-channel layers exceed the on-chip memory). Same inputs,
 * same design. LeNet is the exception since the streaming designs' first frame is
 * modelled as the simulation measures it (src/design/first_frame.c): its one-partition
 * streaming design, 0.066 ms, is faster than the latency-driven 0.131 ms, and
 * cm_latency_choose picks it. */
static void test_table1_models(void **state)
{
    (void)state;
    static const char *const models[] = {"zoo/lenet_zoo.onnx", "zoo/cifar10_quick.onnx",
                                         "zoo/alexnet_fe.onnx", "zoo/vgg16_fe.onnx"};
    for (int i = 0; i < 4; i++) {
        char path[1024];
        cm_test_generated_model(models[i], path, sizeof path);
        int parts;
        double tp = throughput_design(path, &parts);
        cm_latency_design d, e;
        latency_design(path, &d);
        assert_true(d.feasible);
        if (i == 0)
            assert_true(parts == 1 && tp < d.latency_s);
        else
            assert_true(d.latency_s <= tp);
        if (parts > 1 || !isfinite(tp))
            assert_true(d.latency_s < tp);
        latency_design(path, &e);
        assert_true(e.latency_s == d.latency_s && e.n_subgraphs == d.n_subgraphs &&
                    e.n_blocks == d.n_blocks);
        for (int k = 0; k < d.n_blocks; k++)
            assert_true(e.blocks[k].coarse == d.blocks[k].coarse &&
                        e.blocks[k].macc == d.blocks[k].macc);
        cm_latency_design_free(&e);
        cm_latency_design_free(&d);
    }
}

/* AlexNet: as in the paper's case study, one partition per convolutional layer and a
 * single convolution block for the 11x11, 5x5 and 3x3 kernels. */
static void test_alexnet_case_study(void **state)
{
    (void)state;
    char path[1024];
    cm_test_generated_model("zoo/alexnet_fe.onnx", path, sizeof path);
    cm_latency_design d;
    latency_design(path, &d);
    int conv_blocks = 0, groups = 0;
    for (int b = 0; b < d.n_blocks; b++)
        if (d.blocks[b].kind == CM_LATENCY_CONV) {
            conv_blocks++;
            assert_int_equal(d.blocks[b].kernel[0], 11);
        }
    for (int s = 0; s < d.n_subgraphs; s++)
        groups += d.subgraphs[s].fold == 0;
    assert_int_equal(conv_blocks, 1);
    assert_int_equal(groups, 5);
    assert_true(d.resources.dsp <= 900 && d.peak_gops > d.gops);
    cm_latency_design_free(&d);
}


/* x 8x8x8 -> n 3x3 convs of 8 filters, pad 1 (no biases). */
static cm_graph *conv_chain(int n)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 8, 8, 8});
    char in[16] = "x", out[16], name[16];
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "c%d", i);
        snprintf(out, sizeof out, i == n - 1 ? "y" : "t%d", i);
        conv(m, name, in, out, 8, 8, 1);
        snprintf(in, sizeof in, "%s", out);
    }
    ob_output(m, "y", 4, NULL);
    return load_model(m);
}

/* --optimiser none: every weight layer alone, every folding 1, banks of one BRAM18 (they
 * hold a fold of these small layers, so the first point fits); it is the point
 * cm_latency_evaluate costs from those values by hand. */
static void test_minimal_point(void **state)
{
    (void)state;
    cm_graph *g = pool_conv_conv();
    cm_board b = zc706();
    cm_latency_options o;
    cm_latency_options_init(&o);
    o.search = CM_LATENCY_SEARCH_MINIMAL;
    cm_latency_design min, hand;
    cm_error err = {0};
    assert_int_equal(cm_latency_optimise(g, &b, &o, &min, &err), CM_OK);
    assert_int_equal(min.evaluations, 2); /* the bank of 1 tried, then the point costed */
    assert_int_equal(min.n_subgraphs, 2); /* cut before convB */
    for (int k = 0; k < min.n_blocks; k++) {
        assert_int_equal(min.blocks[k].macc, 1);
        if (min.blocks[k].kind == CM_LATENCY_CONV) {
            assert_int_equal(min.blocks[k].coarse, 1);
            assert_int_equal(min.blocks[k].bank_bram, 1);
        }
    }
    bool cut[2] = {false, true};
    int ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    cm_latency_point p = {cut, ones, ones, ones};
    assert_int_equal(cm_latency_evaluate(g, &b, &o, &p, &hand, &err), CM_OK);
    assert_true(min.latency_s == hand.latency_s);
    assert_true(min.resources.dsp == hand.resources.dsp && min.resources.bram18 == hand.resources.bram18);
    /* the searched design is at least as fast */
    cm_latency_design best;
    o.search = CM_LATENCY_SEARCH_RULE;
    assert_int_equal(cm_latency_optimise(g, &b, &o, &best, &err), CM_OK);
    assert_true(best.latency_s <= min.latency_s);
    assert_false(best.stopped_early);
    cm_latency_design_free(&min);
    cm_latency_design_free(&hand);
    cm_latency_design_free(&best);
    cm_graph_free(g);
}

/* A time limit far below what the hill climb over 300 cut toggles needs: the search
 * returns a feasible point (cutting everywhere fits) and says it stopped early. */
static void test_time_limit(void **state)
{
    (void)state;
    cm_graph *g = conv_chain(300);
    cm_board b = zc706();
    cm_latency_options o;
    cm_latency_options_init(&o);
    o.time_limit_s = 1e-6;
    cm_latency_design d;
    cm_error err = {0};
    assert_int_equal(cm_latency_optimise(g, &b, &o, &d, &err), CM_OK);
    assert_true(d.stopped_early && d.feasible);
    assert_false(d.stopped_by_budget); /* the clock, not the budget */
    assert_int_equal(d.n_subgraphs, 300);
    cm_latency_design_free(&d);
    cm_graph_free(g);
}

/* The library's choice between the flows, without the command line: with optimiser none
 * both sides are their minimal designs, and the lower latency is chosen. */
static void test_choice_in_library(void **state)
{
    (void)state;
    char path[1024];
    cm_test_generated_model("zoo/lenet_zoo.onnx", path, sizeof path);
    cm_design *d = cm_test_design(path, "zc706", CM_BACKEND_FPGACONVNET, 0, true);
    cm_design_run run = {.optimiser = CM_OPTIMISER_NONE};
    cm_optimise_options so = {.optimiser = CM_OPTIMISER_NONE};
    cm_error err = {0};
    assert_int_equal(cm_optimise(d, &so, &run.result, &err), CM_OK);
    cm_latency_choice c;
    cm_latency_choose(d, &run, &c);
    assert_int_equal(c.status, CM_OK);
    /* LeNet's fc1 needs banks of more than one BRAM18 even at its largest f_in: the
     * smallest size that fits is found by trying 1, 2, ... */
    assert_true(c.ld.feasible && c.ld.evaluations > 1);
    for (int k = 0; k < c.ld.n_blocks; k++)
        if (c.ld.blocks[k].kind == CM_LATENCY_CONV) {
            assert_int_equal(c.ld.blocks[k].coarse, 1);
            assert_int_equal(c.ld.blocks[k].macc, 1);
            /* banks 1 .. b tried, then the point costed */
            assert_int_equal((uint64_t)c.ld.blocks[k].bank_bram + 1, c.ld.evaluations);
        }
    assert_true(c.partitioned_s == cm_design_cost(d));
    assert_true(c.chose_latency == (c.ld.latency_s < c.partitioned_s));
    cm_latency_choice_free(&c);
    cm_design_free(d);
}

/* The pass labels of the reports: unfolded, pass k of f_in, the accumulation. */
static void test_pass_name(void **state)
{
    (void)state;
    char buf[32];
    cm_latency_subgraph x = {.fold = 0, .folds = 1};
    cm_latency_pass_name(&x, buf, sizeof buf);
    assert_string_equal(buf, "-");
    x = (cm_latency_subgraph){.fold = 1, .folds = 4};
    cm_latency_pass_name(&x, buf, sizeof buf);
    assert_string_equal(buf, "2/4");
    x = (cm_latency_subgraph){.fold = 4, .folds = 4};
    cm_latency_pass_name(&x, buf, sizeof buf);
    assert_string_equal(buf, "accumulation");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alignment_by_hand),
        cmocka_unit_test(test_optimum_by_hand),
        cmocka_unit_test(test_input_folding_by_hand),
        cmocka_unit_test(test_residual_by_hand),
        cmocka_unit_test(test_fork_by_hand),
        cmocka_unit_test(test_shortcut_order),
        cmocka_unit_test(test_grouped_by_hand),
        cmocka_unit_test(test_grouped_folding),
        cmocka_unit_test(test_folding_after_pool),
        cmocka_unit_test(test_resnet8),
        cmocka_unit_test(test_table1_models),
        cmocka_unit_test(test_alexnet_case_study),
        cmocka_unit_test(test_minimal_point),
        cmocka_unit_test(test_pass_name),
        cmocka_unit_test(test_resize_norm_by_hand),
        cmocka_unit_test(test_no_folding_after_norm),
        cmocka_unit_test(test_time_limit),
        cmocka_unit_test(test_choice_in_library),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
