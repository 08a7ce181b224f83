/* The published models in ../shared/models load with the layer count, shapes, MACs,
 * parameters and bit widths worked out here from their architectures. */
#include "test_support.h"

#include <string.h>

#include <cnnmap/model.h>

static uint64_t conv_macs(uint64_t co, uint64_t ho, uint64_t wo, uint64_t ci_per_group, uint64_t k)
{
    return co * ho * wo * ci_per_group * k * k;
}

static uint64_t conv_params(uint64_t co, uint64_t ci_per_group, uint64_t k)
{
    return co * ci_per_group * k * k + co; /* weights and bias */
}

static cm_graph *load_shared(const char *name)
{
    char path[1024];
    cm_test_shared_model(name, path, sizeof path);
    cm_graph *g = NULL;
    cm_error err = {0};
    cm_status st = cm_model_load(path, &g, &err);
    if (st != CM_OK)
        fail_msg("%s", err.message);
    return g;
}

static void assert_shape(cm_shape s, int64_t c, int64_t h, int64_t w)
{
    assert_int_equal(s.c, c);
    assert_int_equal(s.h, h);
    assert_int_equal(s.w, w);
}

static int count_op(const cm_graph *g, cm_op op)
{
    int n = 0;
    for (int i = 0; i < g->n_layers; i++)
        n += g->layers[i].op == op;
    return n;
}

static void test_lenet(void **state)
{
    (void)state;
    cm_graph *g = load_shared("lenet.onnx");
    /* conv 20 5x5, pool, conv 50 5x5, pool, (pad and flatten folded) fc 500, relu, fc 10 */
    assert_int_equal(g->n_layers, 7);
    static const cm_op ops[] = {CM_OP_CONV, CM_OP_POOL_MAX, CM_OP_CONV, CM_OP_POOL_MAX,
                                CM_OP_FC, CM_OP_RELU, CM_OP_FC};
    for (int i = 0; i < 7; i++)
        assert_int_equal(g->layers[i].op, ops[i]);
    assert_shape(g->inputs[0].shape, 1, 28, 28);
    assert_shape(g->layers[0].out_shape, 20, 24, 24); /* 28 - 5 + 1 */
    assert_shape(g->layers[1].out_shape, 20, 12, 12);
    assert_shape(g->layers[2].out_shape, 50, 8, 8); /* 12 - 5 + 1 */
    assert_shape(g->layers[3].out_shape, 50, 4, 4);
    assert_shape(g->layers[4].in_shape, 50, 4, 4); /* the flatten went into the fc */
    assert_shape(g->layers[4].out_shape, 500, 1, 1);
    assert_shape(g->layers[6].out_shape, 10, 1, 1);
    uint64_t macs = conv_macs(20, 24, 24, 1, 5) + conv_macs(50, 8, 8, 20, 5) + 800 * 500 + 500 * 10;
    uint64_t params = conv_params(20, 1, 5) + conv_params(50, 20, 5) + 800 * 500 + 500 + 500 * 10 + 10;
    cm_graph_totals t = cm_graph_totals_of(g);
    assert_int_equal(t.macs, macs);     /* 2,293,000 */
    assert_int_equal(t.params, params); /* 431,080: the zoo's "430K" */
    assert_true(g->layers[5].fusable);
    assert_int_equal(g->layers[0].weight_q.bits, 32);
    assert_false(g->layers[0].weight_q.quantised);
    assert_non_null(g->layers[0].weights);
    cm_graph_free(g);
}

/* ResNet8 for CIFAR-10 (nn2FPGA): 16, 32, 64 channels; one residual block per stage,
 * 1x1 stride-2 shortcuts, 8x8 max pool, 1x1 conv classifier. */
static void check_resnet8(const char *file, int wbits, int abits)
{
    cm_graph *g = load_shared(file);
    assert_int_equal(g->n_layers, 21);
    assert_int_equal(count_op(g, CM_OP_CONV), 10);
    assert_int_equal(count_op(g, CM_OP_RELU), 7);
    assert_int_equal(count_op(g, CM_OP_ADD), 3);
    assert_int_equal(count_op(g, CM_OP_POOL_MAX), 1);
    uint64_t macs = conv_macs(16, 32, 32, 3, 3) + 2 * conv_macs(16, 32, 32, 16, 3) +
                    conv_macs(32, 16, 16, 16, 3) + conv_macs(32, 16, 16, 16, 1) +
                    conv_macs(32, 16, 16, 32, 3) + conv_macs(64, 8, 8, 32, 3) +
                    conv_macs(64, 8, 8, 32, 1) + conv_macs(64, 8, 8, 64, 3) + conv_macs(10, 1, 1, 64, 1);
    uint64_t params = conv_params(16, 3, 3) + 2 * conv_params(16, 16, 3) + conv_params(32, 16, 3) +
                      conv_params(32, 16, 1) + conv_params(32, 32, 3) + conv_params(64, 32, 3) +
                      conv_params(64, 32, 1) + conv_params(64, 64, 3) + conv_params(10, 64, 1);
    cm_graph_totals t = cm_graph_totals_of(g);
    assert_int_equal(t.macs, macs);
    assert_int_equal(t.params, params);
    /* Residual merges have two producers. */
    for (int i = 0; i < g->n_layers; i++)
        if (g->layers[i].op == CM_OP_ADD)
            assert_int_equal(g->layers[i].n_inputs, 2);
    const cm_layer *pool = &g->layers[19];
    assert_int_equal(pool->op, CM_OP_POOL_MAX);
    assert_shape(pool->out_shape, 64, 1, 1);
    assert_shape(g->layers[20].out_shape, 10, 1, 1);
    int w, a;
    cm_graph_typical_bits(g, &w, &a);
    assert_int_equal(w, wbits);
    assert_int_equal(a, abits);
    /* Weights are signed and narrow-range, ReLU outputs unsigned. */
    assert_true(g->layers[2].weight_q.quantised);
    assert_true(g->layers[2].weight_q.is_signed);
    assert_true(g->layers[2].weight_q.narrow);
    assert_true(g->layers[2].in_q.quantised);
    assert_false(g->layers[2].in_q.is_signed);
    cm_graph_free(g);
}

static void test_resnet8_a8w8(void **state)
{
    (void)state;
    check_resnet8("resnet8_a8w8b16.onnx", 8, 8);
}

static void test_resnet8_a4w4(void **state)
{
    (void)state;
    check_resnet8("resnet8_a4w4b32.onnx", 4, 4);
}

/* ResNet20: three stages of three blocks at 16, 32, 64 channels. */
static void test_resnet20(void **state)
{
    (void)state;
    cm_graph *g = load_shared("resnet20_a8w8b16.onnx");
    assert_int_equal(count_op(g, CM_OP_CONV), 22);
    assert_int_equal(count_op(g, CM_OP_ADD), 9);
    assert_int_equal(count_op(g, CM_OP_RELU), 19);
    assert_int_equal(g->n_layers, 51);
    uint64_t macs = conv_macs(16, 32, 32, 3, 3) + 6 * conv_macs(16, 32, 32, 16, 3) +
                    conv_macs(32, 16, 16, 16, 3) + 5 * conv_macs(32, 16, 16, 32, 3) +
                    conv_macs(32, 16, 16, 16, 1) + conv_macs(64, 8, 8, 32, 3) +
                    5 * conv_macs(64, 8, 8, 64, 3) + conv_macs(64, 8, 8, 32, 1) +
                    conv_macs(10, 1, 1, 64, 1);
    uint64_t params = conv_params(16, 3, 3) + 6 * conv_params(16, 16, 3) + conv_params(32, 16, 3) +
                      5 * conv_params(32, 32, 3) + conv_params(32, 16, 1) + conv_params(64, 32, 3) +
                      5 * conv_params(64, 64, 3) + conv_params(64, 32, 1) + conv_params(10, 64, 1);
    cm_graph_totals t = cm_graph_totals_of(g);
    assert_int_equal(t.macs, macs);
    assert_int_equal(t.params, params);
    int w, a;
    cm_graph_typical_bits(g, &w, &a);
    assert_int_equal(w, 8);
    assert_int_equal(a, 8);
    assert_int_equal(g->inputs[0].q.bits, 8);
    cm_graph_free(g);
}

/* MobileNetV2 (224x224): stem conv, 17 inverted residual blocks from the (t, c, n, s)
 * table, 1x1 conv to 1280, global pool, fc 1000. */
static void test_mobilenet_v2(void **state)
{
    (void)state;
    cm_graph *g = load_shared("mobilenet_v2_a8w6b32.onnx");
    static const int table[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                                    {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
    uint64_t macs = conv_macs(32, 112, 112, 3, 3), params = conv_params(32, 3, 3);
    uint64_t in = 32, size = 112;
    int convs = 1, adds = 0;
    for (int row = 0; row < 7; row++)
        for (int i = 0; i < table[row][2]; i++) {
            uint64_t t = (uint64_t)table[row][0], out = (uint64_t)table[row][1];
            uint64_t stride = i == 0 ? (uint64_t)table[row][3] : 1, hidden = in * t;
            uint64_t out_size = size / stride;
            if (t != 1) {
                macs += conv_macs(hidden, size, size, in, 1);
                params += conv_params(hidden, in, 1);
                convs++;
            }
            macs += conv_macs(hidden, out_size, out_size, 1, 3); /* depthwise */
            params += conv_params(hidden, 1, 3);
            macs += conv_macs(out, out_size, out_size, hidden, 1);
            params += conv_params(out, hidden, 1);
            convs += 2;
            adds += stride == 1 && in == out;
            in = out;
            size = out_size;
        }
    macs += conv_macs(1280, 7, 7, 320, 1) + 1280 * 1000;
    params += conv_params(1280, 320, 1) + 1280 * 1000 + 1000;
    convs++;
    assert_int_equal(count_op(g, CM_OP_CONV), convs); /* 52 */
    assert_int_equal(count_op(g, CM_OP_ADD), adds);   /* 10 */
    assert_int_equal(count_op(g, CM_OP_FC), 1);
    assert_int_equal(count_op(g, CM_OP_GLOBAL_POOL_AVG), 1);
    cm_graph_totals t = cm_graph_totals_of(g);
    assert_int_equal(t.macs, macs);
    assert_int_equal(t.params, params);
    int depthwise = 0;
    for (int i = 0; i < g->n_layers; i++) {
        const cm_layer *l = &g->layers[i];
        if (l->op == CM_OP_CONV && l->groups > 1) {
            assert_int_equal(l->groups, l->in_shape.c);
            assert_int_equal(l->out_shape.c, l->in_shape.c);
            depthwise++;
        }
    }
    assert_int_equal(depthwise, 17);
    int w, a;
    cm_graph_typical_bits(g, &w, &a);
    assert_int_equal(w, 6);
    assert_int_equal(a, 8);
    cm_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lenet),
        cmocka_unit_test(test_resnet8_a8w8),
        cmocka_unit_test(test_resnet8_a4w4),
        cmocka_unit_test(test_resnet20),
        cmocka_unit_test(test_mobilenet_v2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
