/* torchvision's networks, exported by torch.onnx at opsets 11 to 17 with and without
 * their weight bytes, load; their conv and fc MACs equal an independent count made by
 * PyTorch forward hooks and torchvision's published figures within 2%. ConvNeXt and a
 * segmentation head (LRASPP) cover channel-wise blocks and bilinear upsampling. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cnnmap/design.h>
#include <cnnmap/model.h>

#include "design/design_internal.h"

typedef struct published {
    const char *name;
    double gmacs; /* torchvision's documented GFLOPS, which count multiply-accumulates */
} published;

static const published models[] = {
    {"resnet18", 1.81},     {"resnet50", 4.09},      {"mobilenet_v2", 0.30},
    {"vgg16", 15.47},       {"alexnet", 0.71},       {"squeezenet1_1", 0.35},
    {"googlenet", 1.50},    {"inception_v3", 5.71},  {"densenet121", 2.83},
    {"efficientnet_b0", 0.39},
    {"convnext_tiny", 4.46},
    {"lraspp_mobilenet_v3_large", 0}, /* published at 520 x 520; exported at 224 */
    {"mobilenet_v3_small", 0}, /* 0.06 published: two decimals, 6% of rounding at 0.057 */
};

/* MACs that PyTorch hooks on nn.Conv2d and nn.Linear counted (macs.txt). */
static uint64_t hook_macs(const char *name)
{
    char path[1024], line[256], model[64];
    cm_test_generated_model("torchvision/macs.txt", path, sizeof path);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    unsigned long long macs = 0, params;
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        found = sscanf(line, "%63s %llu %llu", model, &macs, &params) == 3 && strcmp(model, name) == 0;
    fclose(f);
    if (!found)
        fail_msg("%s is not in macs.txt", name);
    return macs;
}

static cm_graph *load(const char *file)
{
    char path[1024];
    cm_test_generated_model(file, path, sizeof path);
    cm_graph *g = NULL;
    cm_error err = {0};
    if (cm_model_load(path, &g, &err) != CM_OK)
        fail_msg("%s", err.message);
    return g;
}

static uint64_t weighted_macs(const cm_graph *g)
{
    uint64_t macs = 0;
    for (int i = 0; i < g->n_layers; i++)
        if (g->layers[i].op == CM_OP_CONV || g->layers[i].op == CM_OP_FC)
            macs += g->layers[i].macs;
    return macs;
}

static void check_model(const published *m)
{
    char full[128], bare[128];
    snprintf(full, sizeof full, "torchvision/%s.onnx", m->name);
    snprintf(bare, sizeof bare, "torchvision/%s_noweights.onnx", m->name);
    cm_graph *a = load(full), *b = load(bare);
    uint64_t macs = weighted_macs(a);
    assert_int_equal(macs, hook_macs(m->name));
    double gmacs = (double)macs / 1e9;
    if (m->gmacs > 0 && fabs(gmacs - m->gmacs) > 0.02 * m->gmacs)
        fail_msg("%s: %.3f GMACs, torchvision publishes %.2f", m->name, gmacs, m->gmacs);
    /* Without the bytes, the same graph, only without weight values. */
    assert_int_equal(a->n_layers, b->n_layers);
    cm_graph_totals ta = cm_graph_totals_of(a), tb = cm_graph_totals_of(b);
    assert_int_equal(ta.macs, tb.macs);
    assert_int_equal(ta.params, tb.params);
    bool any_values = false;
    for (int i = 0; i < a->n_layers; i++) {
        assert_int_equal(a->layers[i].op, b->layers[i].op);
        assert_memory_equal(&a->layers[i].out_shape, &b->layers[i].out_shape, sizeof(cm_shape));
        any_values = any_values || a->layers[i].weights;
        if (a->layers[i].op == CM_OP_CONV && a->layers[i].n_weights > 256)
            assert_null(b->layers[i].weights);
    }
    assert_true(any_values);
    cm_graph_free(a);
    cm_graph_free(b);
}

#define MODEL_TEST(i, fn)                                                                         \
    static void fn(void **state)                                                                  \
    {                                                                                             \
        (void)state;                                                                              \
        check_model(&models[i]);                                                                  \
    }
MODEL_TEST(0, test_resnet18)
MODEL_TEST(1, test_resnet50)
MODEL_TEST(2, test_mobilenet_v2)
MODEL_TEST(3, test_vgg16)
MODEL_TEST(4, test_alexnet)
MODEL_TEST(5, test_squeezenet1_1)
MODEL_TEST(6, test_googlenet)
MODEL_TEST(7, test_inception_v3)
MODEL_TEST(8, test_densenet121)
MODEL_TEST(9, test_efficientnet_b0)
MODEL_TEST(10, test_convnext_tiny)
MODEL_TEST(11, test_lraspp_mobilenet_v3_large)
MODEL_TEST(12, test_mobilenet_v3_small)

static int count_layers(const cm_graph *g, cm_op op, cm_activation act)
{
    int n = 0;
    for (int i = 0; i < g->n_layers; i++)
        n += g->layers[i].op == op && (op != CM_OP_ACTIVATION || g->layers[i].activation == act);
    return n;
}

/* ConvNeXt's blocks are channel-wise: the transposes around them leave no layer, the
 * Linear layers are 1x1 convolutions, GELU one activation, layer norms one layer each
 * (stem, 18 blocks, 3 downsamplings, head); the segmentation head's two Resizes are
 * bilinear upsamples. */
static void test_channel_wise_blocks(void **state)
{
    (void)state;
    cm_graph *g = load("torchvision/convnext_tiny_noweights.onnx");
    assert_int_equal(count_layers(g, CM_OP_LAYERNORM, CM_ACT_NONE), 23);
    assert_int_equal(count_layers(g, CM_OP_ACTIVATION, CM_ACT_GELU), 18);
    assert_int_equal(count_layers(g, CM_OP_ACTIVATION, CM_ACT_ERF), 0);
    assert_int_equal(count_layers(g, CM_OP_RESHAPE, CM_ACT_NONE), 0);
    assert_int_equal(count_layers(g, CM_OP_MUL, CM_ACT_NONE), 0); /* layer scales folded */
    cm_graph_free(g);
    g = load("torchvision/lraspp_mobilenet_v3_large_noweights.onnx");
    int bilinear = 0;
    for (int i = 0; i < g->n_layers; i++)
        bilinear += g->layers[i].op == CM_OP_UPSAMPLE && g->layers[i].interpolate;
    assert_int_equal(bilinear, 2);
    cm_graph_free(g);
}

static const cm_node_state *node_named(const cm_design *d, const char *name)
{
    for (int i = 0; i < d->hd.n_nodes; i++)
        if (!strcmp(d->hd.nodes[i].name, name))
            return &d->state[i];
    fail_msg("no node %s", name);
    return NULL;
}

/* LRASPP's last Resize, 28x28x21 to 224x224 bilinear, at folding 1. Output row o blends
 * input rows up to min(floor(((2o + 1) 28 - 224) / 448) + 1, 27): 1 for the first rows,
 * so input row 0 is read without writing and rows 1 to 27 are fresh (the columns
 * alike). The walk: (28 - 27) x 28 + 27 x (28 - 27) + 224 x 224 = 50,231 pixels.
 * fpgaConvNet: 21 cycles each, 1,054,851; two row buffers of 28 x 21 = 588 16-bit words,
 * bram_mem(588, 16) = 1 each; four multipliers. hls4ml: a pixel a cycle, 50,231. FINN
 * takes no bilinear resize and says so at the first one. */
static void test_segmentation_maps(void **state)
{
    (void)state;
    char path[1024];
    cm_test_generated_model("torchvision/lraspp_mobilenet_v3_large_noweights.onnx", path,
                            sizeof path);
    cm_design *d = cm_test_design(path, "u250", CM_BACKEND_FPGACONVNET, 0, true);
    const cm_node_state *s = node_named(d, "/net/Resize");
    assert_true(s->cost.cycles == 1054851.0);
    assert_int_equal(s->cost.res.bram18, 2);
    assert_int_equal(s->cost.res.dsp, 4);
    cm_design_free(d);
    d = cm_test_design(path, "u250", CM_BACKEND_HLS4ML, 0, true);
    assert_true(node_named(d, "/net/Resize")->cost.cycles == 50231.0);
    cm_design_free(d);
    cm_graph *g = load("torchvision/lraspp_mobilenet_v3_large_noweights.onnx");
    cm_board board;
    cm_error err = {0};
    assert_int_equal(cm_board_builtin("u250", &board, &err), CM_OK);
    cm_design_options o;
    cm_design_options_init(&o);
    o.backend = CM_BACKEND_FINN;
    assert_int_equal(cm_design_create(g, &board, &o, &d, &err), CM_EINPUT);
    assert_non_null(strstr(err.message, "layer /net/classifier/Resize (upsample): FINN's "
                                        "UpsampleNearestNeighbour enlarges a square map in "
                                        "nearest mode, and this is bilinear from 14x14 to 28x28"));
    cm_graph_free(g);
}

/* ShuffleNetV2, checked like the others (torchvision publishes 0.04 and 0.145 GMACs):
 * its chunks become slices, its channel shuffles shuffle layers. */
static const published shufflenets[] = {
    {"shufflenet_v2_x0_5", 0.04},
    {"shufflenet_v2_x1_0", 0.145},
};

static void test_shufflenet_v2_x0_5(void **state)
{
    (void)state;
    check_model(&shufflenets[0]);
}

static void test_shufflenet_v2_x1_0(void **state)
{
    (void)state;
    check_model(&shufflenets[1]);
}

/* Every unit's channel shuffle is one shuffle layer of two groups, and each of the 13
 * units that halve their input (torch's chunk, exported as two Slices) has two slices
 * of half the channels, the second starting where the first ends. */
static void test_shuffles(void **state)
{
    (void)state;
    cm_graph *g = load("torchvision/shufflenet_v2_x0_5_noweights.onnx");
    int shuffles = 0, slices = 0;
    for (int i = 0; i < g->n_layers; i++) {
        const cm_layer *l = &g->layers[i];
        if (l->op == CM_OP_SHUFFLE) {
            shuffles++;
            assert_int_equal(l->groups, 2);
            assert_memory_equal(&l->in_shape, &l->out_shape, sizeof(cm_shape));
        } else if (l->op == CM_OP_SLICE) {
            assert_int_equal(2 * l->out_shape.c, l->in_shape.c);
            assert_int_equal(l->channel_offset, slices % 2 ? l->out_shape.c : 0);
            slices++;
        }
    }
    assert_int_equal(shuffles, 16); /* 3 stages of 4, 8 and 4 units */
    assert_int_equal(slices, 26);
    cm_graph_free(g);
}

/* Branches and merges survive: Inception's four-way concatenation, DenseNet's
 * batch norms that follow a concatenation (no conv to fold into). */
static void test_branches(void **state)
{
    (void)state;
    cm_graph *g = load("torchvision/googlenet.onnx");
    int concat4 = 0;
    for (int i = 0; i < g->n_layers; i++)
        concat4 += g->layers[i].op == CM_OP_CONCAT && g->layers[i].n_inputs == 4;
    assert_int_equal(concat4, 9); /* 3a, 3b, 4a-4e, 5a, 5b */
    cm_graph_free(g);
    g = load("torchvision/densenet121.onnx");
    int bn = 0;
    for (int i = 0; i < g->n_layers; i++)
        bn += g->layers[i].op == CM_OP_BATCHNORM;
    assert_true(bn > 0);
    cm_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resnet18),     cmocka_unit_test(test_resnet50),
        cmocka_unit_test(test_mobilenet_v2), cmocka_unit_test(test_vgg16),
        cmocka_unit_test(test_alexnet),      cmocka_unit_test(test_squeezenet1_1),
        cmocka_unit_test(test_googlenet),    cmocka_unit_test(test_inception_v3),
        cmocka_unit_test(test_densenet121),  cmocka_unit_test(test_efficientnet_b0),
        cmocka_unit_test(test_convnext_tiny), cmocka_unit_test(test_lraspp_mobilenet_v3_large),
        cmocka_unit_test(test_mobilenet_v3_small),
        cmocka_unit_test(test_channel_wise_blocks),
        cmocka_unit_test(test_segmentation_maps),
        cmocka_unit_test(test_branches),
        cmocka_unit_test(test_shufflenet_v2_x0_5), cmocka_unit_test(test_shufflenet_v2_x1_0),
        cmocka_unit_test(test_shuffles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
