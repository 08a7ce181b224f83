/* nn2FPGA backend tests: latency, DSP and bank figures of ResNet8 layers worked out by
 * hand from the thesis' equations, the skip-connection buffers with and without the
 * residual rewrites, the invariants of the two-phase program on the shared models
 * (optimal, S kept by phase 2, factors divide, bip and exact agree, deterministic),
 * and the bad-input cases: float models and boards with too few DSPs. */
#include "test_support.h"

#include <cnnmap/board.h>
#include <cnnmap/model.h>
#include <cnnmap/nn2fpga.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void build(const cm_graph *g, bool reuse, bool merge, cm_nn2fpga_result *r)
{
    cm_nn2fpga_options o;
    cm_nn2fpga_options_init(&o);
    o.temporal_reuse = reuse;
    o.loop_merge = merge;
    cm_error err = {0};
    if (cm_nn2fpga_build(g, &o, r, &err) != CM_OK)
        fail_msg("%s", err.message);
}

static cm_nn2fpga_layer *find_layer(cm_nn2fpga_result *r, const char *name)
{
    for (int i = 0; i < r->n_layers; i++)
        if (strcmp(r->layers[i].name, name) == 0)
            return &r->layers[i];
    fail_msg("no layer %s", name);
    return NULL;
}

static void configure(cm_nn2fpga_layer *l, int owp, int ochp, int ichp)
{
    cm_error err = {0};
    if (cm_nn2fpga_configure(l, owp, ochp, ichp, false, &err) != CM_OK)
        fail_msg("%s", err.message);
}

/* Conv_1: 16x32x32 -> 16x32x32, 3x3, 8-bit (pack 2), at ow_par 2, och_par 4, ich_par 2.
 * Lc = 32*32*16*16 / (2*4*2) + epsilon (chain of ich_par*9 = 18) = 16384 + 18.
 * Lw = 16*32*32 / (2*2) = 4096. DSP = ich_par*9 taps * ceil(och_par*ow_par / 2) = 72.
 * Weights: words of 4*2*9*8 = 576 bits, 16/4 * 16/2 = 32 deep: 16 BRAM18 at 512x36.
 * Window: 2 long segments x 2 lanes, each ceil(30/2) = 15 pixels x 16/2 = 8 words of
 * 16 bits = 1920 bits, one BRAM18 each; the six 8-word segments stay in LUTs. */
static void test_hand_conv1(void **state)
{
    (void)state;
    cm_graph *g = cm_test_load_shared("resnet8_a8w8b16.onnx");
    cm_nn2fpga_result r;
    build(g, true, true, &r);
    cm_nn2fpga_layer *l = find_layer(&r, "Conv_1");
    assert_int_equal(l->pack, 2);
    assert_int_equal(l->window_activations, (2 * 32 + 2) * 16); /* eq. 3.5 */
    configure(l, 2, 4, 2);
    assert_int_equal(l->lc, 16384 + 18);
    assert_int_equal(l->lw, 4096);
    assert_int_equal(l->dsp, 72);
    assert_int_equal(l->bram_weights, 16);
    assert_int_equal(l->bram_window, 4);
    assert_int_equal(l->uram_weights, 0);
    /* The thesis' example shape (4 x 8 x 2 x 9 MACs) gives its 288 DSPs at pack 2. */
    configure(l, 2, 8, 4);
    assert_int_equal(l->dsp, 288);
    cm_nn2fpga_result_free(&r);
    cm_graph_free(g);
}

/* Conv_0: 3 -> 16 channels at ow_par 4, och_par 16, ich_par 3: Lc = 32*32*16*3 / 192
 * + 27 = 283, Lw = 3*1024 / 12 = 256, DSP = 27 * 64/2 = 864; the 3456-bit weight word
 * is one deep: 96 BRAM18 at 36 bits wide. In URAM: 3456/72 = 48 banks. */
static void test_hand_conv0(void **state)
{
    (void)state;
    cm_graph *g = cm_test_load_shared("resnet8_a8w8b16.onnx");
    cm_nn2fpga_result r;
    build(g, true, true, &r);
    cm_nn2fpga_layer *l = find_layer(&r, "Conv_0");
    configure(l, 4, 16, 3);
    assert_int_equal(l->lc, 283);
    assert_int_equal(l->lw, 256);
    assert_int_equal(l->dsp, 864);
    assert_int_equal(l->bram_weights, 96);
    cm_error err = {0};
    assert_int_equal(cm_nn2fpga_configure(l, 4, 16, 3, true, &err), CM_OK);
    assert_int_equal(l->uram_weights, 48);
    assert_int_equal(l->bram_weights, 0);
    /* 3 does not divide ow = 32: refused. */
    assert_int_equal(cm_nn2fpga_configure(l, 3, 1, 1, false, &err), CM_EUSAGE);
    assert_non_null(strstr(err.message, "divide"));
    cm_nn2fpga_result_free(&r);
    cm_graph_free(g);
}

/* Loop merge fuses the 1x1 downsampling Conv_4 into Conv_3 (3x3, stride 2,
 * 16x32x32 -> 32x16x16). At factors 1: Lc = 16*16*32*16 + 9, Lw = 16*32*32, DSP = 9 +
 * 1 taps at pack 2 = 10; weights 72 bits x 512 (2 BRAM18) plus 8 bits x 512 (1). */
static void test_hand_merged(void **state)
{
    (void)state;
    cm_graph *g = cm_test_load_shared("resnet8_a8w8b16.onnx");
    cm_nn2fpga_result r;
    build(g, true, true, &r);
    assert_int_equal(r.n_layers, 9); /* 10 convolutions + pool, two merged */
    cm_nn2fpga_layer *l = find_layer(&r, "Conv_3+Conv_4");
    assert_int_equal(l->lc, 131072 + 9);
    assert_int_equal(l->lw, 16384);
    assert_int_equal(l->dsp, 10);
    assert_int_equal(l->bram_weights, 3);
    cm_nn2fpga_result_free(&r);
    build(g, true, false, &r);
    assert_int_equal(r.n_layers, 11);
    cm_nn2fpga_result_free(&r);
    cm_graph_free(g);
}

/* Conv_1 made grouped, as ResNeXt has it: 4 groups of 4 input channels and 4 filters
 * (16x32x32 -> 16x32x32, 3x3). Each filter reads its group's 4 channels: MACs =
 * 32*32*16*4*9 = 589,824. At ow_par 2, och_par 4, ich_par 2 (factors of a group's 4
 * channels): Lc = 32*32*16*4 / (2*4*2) + epsilon 18 = 4096 + 18, a quarter of the
 * ungrouped layer's; Lw = 16*32*32 / 4 = 4096 as before; DSP = 18 taps x ceil(8/2) = 72;
 * the weight word is 4*2*9*8 = 576 bits, 16/4 * 4/2 = 8 deep: 16 BRAM18 at 512x36.
 * och_par 8 does not divide a group's 4 filters, nor ich_par 8 its 4 channels. Loop
 * merge keeps to ungrouped convolutions. */
static void test_hand_grouped(void **state)
{
    (void)state;
    cm_graph *g = cm_test_load_shared("resnet8_a8w8b16.onnx");
    for (int i = 0; i < g->n_layers; i++)
        if (strcmp(g->layers[i].name, "Conv_1") == 0 || strcmp(g->layers[i].name, "Conv_3") == 0)
            g->layers[i].groups = 4;
    cm_nn2fpga_result r;
    build(g, true, true, &r);
    cm_nn2fpga_layer *l = find_layer(&r, "Conv_1");
    assert_int_equal(l->kind, CM_NN2FPGA_CONV);
    assert_int_equal(l->groups, 4);
    assert_int_equal(l->macs, 589824);
    configure(l, 2, 4, 2);
    assert_int_equal(l->lc, 4096 + 18);
    assert_int_equal(l->lw, 4096);
    assert_int_equal(l->dsp, 72);
    assert_int_equal(l->bram_weights, 16);
    cm_error err = {0};
    assert_int_equal(cm_nn2fpga_configure(l, 2, 8, 1, false, &err), CM_EUSAGE);
    assert_non_null(strstr(err.message, "a group's channels"));
    assert_int_equal(cm_nn2fpga_configure(l, 2, 1, 8, false, &err), CM_EUSAGE);
    configure(l, 1, 4, 4); /* a whole group a cycle: the 4 groups of a pixel in 4 */
    assert_int_equal(l->lc, 4 * 32 * 32 + 36);
    /* Conv_3 grouped: no loop merge, so Conv_4 is a task of its own */
    assert_int_equal(r.n_layers, 10);
    assert_int_equal(find_layer(&r, "Conv_3")->groups, 4);
    assert_int_equal(find_layer(&r, "Conv_4")->groups, 1);
    cm_nn2fpga_result_free(&r);
    cm_graph_free(g);
}

/* 4-bit layers pack four products: och_par 2 x ow_par 1 still takes one DSP per tap. */
static void test_hand_pack4(void **state)
{
    (void)state;
    cm_graph *g = cm_test_load_shared("resnet8_a4w4b32.onnx");
    cm_nn2fpga_result r;
    build(g, true, true, &r);
    cm_nn2fpga_layer *l = find_layer(&r, "Conv_1");
    assert_int_equal(l->weight_bits, 4);
    assert_int_equal(l->pack, 4);
    configure(l, 2, 4, 1);
    assert_int_equal(l->dsp, 9 * 2); /* ceil(8 / 4) per tap */
    assert_int_equal(find_layer(&r, "Conv_0")->pack, 2); /* the 8-bit first layer */
    cm_nn2fpga_result_free(&r);
    cm_graph_free(g);
}

/* Add_0 (identity, 16x32x32): the main branch's two 3x3 windows lag 66 pixels each, so
 * (66 + 66 + 1) x 16 before and (66 + 1) x 16 with temporal reuse, the thesis'
 * [(fh1 - 1) iw0 + fw1] ich0. Add_1 (downsampling, 32x16x16): Conv_3's lag is 66 of
 * 32x32's pixels = 17 of 16x16's, Conv_5's 34: (17 + 34 + 1) x 32 before, (34 + 1) x
 * 32 with loop merge. */
static void test_skip_buffers(void **state)
{
    (void)state;
    cm_graph *g = cm_test_load_shared("resnet8_a8w8b16.onnx");
    cm_nn2fpga_result r;
    build(g, true, true, &r);
    assert_int_equal(r.n_skips, 3);
    assert_string_equal(r.skips[0].name, "Add_0");
    assert_false(r.skips[0].downsample);
    assert_int_equal(r.skips[0].activations_before, 133 * 16);
    assert_int_equal(r.skips[0].activations_after, 67 * 16);
    assert_true(r.skips[1].downsample);
    assert_int_equal(r.skips[1].activations_before, 52 * 32);
    assert_int_equal(r.skips[1].activations_after, 35 * 32);
    assert_int_equal(r.skips[0].bram_before, 2); /* 2128 x 8 bits: 2 x (2K x 9) */
    cm_nn2fpga_result_free(&r);
    build(g, false, false, &r);
    for (int i = 0; i < r.n_skips; i++) {
        assert_false(r.skips[i].optimised);
        assert_int_equal(r.skips[i].activations_after, r.skips[i].activations_before);
    }
    cm_nn2fpga_result_free(&r);
    cm_graph_free(g);
}

static cm_status optimise(const cm_graph *g, const char *board, cm_nn2fpga_solver solver,
                          cm_nn2fpga_result *r, cm_error *err)
{
    cm_board b;
    assert_int_equal(cm_board_builtin(board, &b, err), CM_OK);
    cm_nn2fpga_options o;
    cm_nn2fpga_options_init(&o);
    o.solver = solver;
    return cm_nn2fpga_optimise(g, &b, &o, r, err);
}

static void check_invariants(const cm_nn2fpga_result *r, const char *board)
{
    cm_board b;
    assert_int_equal(cm_board_builtin(board, &b, NULL), CM_OK);
    assert_true(r->optimal);
    assert_true(r->period <= r->period_phase1);
    assert_true(r->dsp <= r->dsp_phase1 || r->bram18 <= r->bram_phase1);
    assert_true(r->dsp <= b.resources.dsp);
    assert_true(r->bram18 <= b.resources.bram18);
    assert_true(r->uram <= b.resources.uram);
    for (int i = 0; i < r->n_layers; i++) {
        const cm_nn2fpga_layer *l = &r->layers[i];
        assert_int_equal(l->ow % l->ow_par, 0);
        assert_int_equal(l->och % l->och_par, 0);
        assert_int_equal(l->ich % l->ich_par, 0);
        assert_true(l->lc <= r->period && l->lw <= r->period);
    }
}

/* bip and exact solve different programs over different spaces (full, and with the
 * dominated configurations removed): the same S and the same resources. */
static void check_model(const char *model, const char *board)
{
    cm_graph *g = cm_test_load_shared(model);
    cm_nn2fpga_result bip, exact, again;
    cm_error err = {0};
    if (optimise(g, board, CM_NN2FPGA_BIP, &bip, &err) != CM_OK ||
        optimise(g, board, CM_NN2FPGA_EXACT, &exact, &err) != CM_OK ||
        optimise(g, board, CM_NN2FPGA_BIP, &again, &err) != CM_OK)
        fail_msg("%s on %s: %s", model, board, err.message);
    check_invariants(&bip, board);
    check_invariants(&exact, board);
    assert_true(bip.phases[0].variables >= 100); /* the order of Table 4.1 */
    assert_int_equal(bip.period, exact.period);
    assert_int_equal(bip.dsp, exact.dsp);
    assert_int_equal(bip.bram18, exact.bram18);
    assert_int_equal(bip.uram, exact.uram);
    for (int i = 0; i < bip.n_layers; i++) {
        assert_int_equal(bip.layers[i].ow_par, again.layers[i].ow_par);
        assert_int_equal(bip.layers[i].och_par, again.layers[i].och_par);
        assert_int_equal(bip.layers[i].ich_par, again.layers[i].ich_par);
    }
    cm_nn2fpga_result_free(&bip);
    cm_nn2fpga_result_free(&exact);
    cm_nn2fpga_result_free(&again);
    cm_graph_free(g);
}

static void test_resnet8(void **state)
{
    (void)state;
    check_model("resnet8_a8w8b16.onnx", "kv260");
    check_model("resnet8_a8w8b16.onnx", "ultra96-v2");
    check_model("resnet8_a4w4b32.onnx", "kv260");
    check_model("resnet8_a4w4b32.onnx", "ultra96-v2");
}

/* The ports bound S: the input port takes a 32x32 pixel a cycle, so ResNet-8 on a U250,
 * whose DSPs would run every layer in about 540 cycles, gets S = 1,024 (bip and exact
 * alike), with every layer within it and phase 1's S at the floor too. */
static void test_port_floor(void **state)
{
    (void)state;
    check_model("resnet8_a8w8b16.onnx", "u250");
    cm_graph *g = cm_test_load_shared("resnet8_a8w8b16.onnx");
    cm_nn2fpga_result r;
    cm_error err = {0};
    if (optimise(g, "u250", CM_NN2FPGA_BIP, &r, &err) != CM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(r.port_cycles, 32 * 32);
    assert_int_equal(r.period, 1024);
    assert_int_equal(r.period_phase1, 1024);
    cm_nn2fpga_result_free(&r);
    /* on the KV260 the layers are the bottleneck: the floor changes nothing */
    if (optimise(g, "kv260", CM_NN2FPGA_BIP, &r, &err) != CM_OK)
        fail_msg("%s", err.message);
    assert_true(r.period > r.port_cycles);
    cm_nn2fpga_result_free(&r);
    cm_graph_free(g);
}

static void test_resnet20(void **state)
{
    (void)state;
    check_model("resnet20_a8w8b16.onnx", "kv260");
    check_model("resnet20_a8w8b16.onnx", "ultra96-v2");
}

/* MobileNetV2's single-program phase 1 takes seconds in GLPK, so only bip runs here. */
static void test_mobilenet(void **state)
{
    (void)state;
    cm_graph *g = cm_test_load_shared("mobilenet_v2_a8w6b32.onnx");
    cm_nn2fpga_result r;
    cm_error err = {0};
    if (optimise(g, "zcu102", CM_NN2FPGA_BIP, &r, &err) != CM_OK)
        fail_msg("%s", err.message);
    check_invariants(&r, "zcu102");
    assert_true(r.phases[0].variables >= 1000);
    for (int i = 0; i < r.n_layers; i++)
        if (r.layers[i].kind == CM_NN2FPGA_DWCONV)
            assert_int_equal(r.layers[i].och_par, 1);
    /* Temporal reuse saves nothing: each inverted residual starts with a 1x1. */
    for (int i = 0; i < r.n_skips; i++)
        assert_int_equal(r.skips[i].activations_after, r.skips[i].activations_before);
    cm_nn2fpga_result_free(&r);
    cm_graph_free(g);
}

/* LeNet has no Quant nodes: the default width is used, and said so. */
static void test_float_model(void **state)
{
    (void)state;
    cm_graph *g = cm_test_load_shared("lenet.onnx");
    cm_nn2fpga_result r;
    cm_error err = {0};
    assert_int_equal(optimise(g, "zedboard", CM_NN2FPGA_BIP, &r, &err), CM_OK);
    assert_true(r.bits_defaulted);
    assert_int_equal(r.layers[0].weight_bits, 8);
    assert_int_equal(r.layers[0].pack, 2);
    cm_nn2fpga_result_free(&r);
    cm_graph_free(g);
}

static const char tiny_board[] =
    "{\"name\": \"tiny\", \"display_name\": \"Tiny\", \"part\": \"x\", \"memory\": \"none\",\n"
    " \"resources\": {\"LUT\": 1000, \"FF\": 2000, \"DSP\": 20, \"BRAM\": 500, \"URAM\": 0},\n"
    " \"bram_unit\": \"BRAM18\", \"clock_mhz\": 100.0, \"bandwidth_gbps\": 1.0,\n"
    " \"peak_bandwidth_gbps\": 1.0, \"reconfiguration_s\": 0.1,\n"
    " \"reconfiguration_estimated\": true}\n";

/* Eight 3x3 layers need 9 DSPs each even at factors 1: 20 DSPs cannot hold them. */
static void test_too_few_dsps(void **state)
{
    (void)state;
    char path[1024];
    cm_test_write_temp(tiny_board, sizeof tiny_board - 1, ".json", path, sizeof path);
    cm_board b;
    cm_error err = {0};
    assert_int_equal(cm_board_load_file(path, &b, &err), CM_OK);
    remove(path);
    cm_graph *g = cm_test_load_shared("resnet8_a8w8b16.onnx");
    cm_nn2fpga_options o;
    cm_nn2fpga_options_init(&o);
    cm_nn2fpga_result r;
    assert_int_equal(cm_nn2fpga_optimise(g, &b, &o, &r, &err), CM_EINFEASIBLE);
    assert_non_null(strstr(err.message, "DSP"));
    o.solver = CM_NN2FPGA_NONE;
    assert_int_equal(cm_nn2fpga_optimise(g, &b, &o, &r, &err), CM_EINFEASIBLE);
    assert_non_null(strstr(err.message, "DSP"));
    cm_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_conv1),   cmocka_unit_test(test_hand_conv0),
        cmocka_unit_test(test_hand_merged),  cmocka_unit_test(test_hand_pack4),
        cmocka_unit_test(test_hand_grouped), cmocka_unit_test(test_port_floor),
        cmocka_unit_test(test_skip_buffers), cmocka_unit_test(test_resnet8),
        cmocka_unit_test(test_resnet20),     cmocka_unit_test(test_mobilenet),
        cmocka_unit_test(test_float_model),  cmocka_unit_test(test_too_few_dsps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
