/* Current FINN (v0.10 / main) on the FINN backend: the folding configuration that
 * `export --format finn` writes (node names and attributes as today's FINN takes them,
 * checked against FINN's own list of op types below), the v0.6 export refusing the ops
 * v0.6 lacked, the cascade of a concat and the chain of a fork wider than four ports,
 * and GoogLeNet, DenseNet-121 and EfficientNet-B0 (StreamingConcat, ElementwiseMul)
 * mapped by the rule optimiser and simulated cycle by cycle at the model's interval. */
#include "test_support.h"
#include "onnx_builder.h"

#include <cnnmap/design.h>
#include <cnnmap/export.h>
#include <cnnmap/optimise.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "design/design_internal.h"
#include "export/exporters.h"
#include "sim/build.h"

/* The op types a specialised FINN graph holds, from Xilinx/finn's registries of HLS and
 * RTL variants: src/finn/custom_op/fpgadataflow/hls/__init__.py and
 * src/finn/custom_op/fpgadataflow/rtl/__init__.py (v0.10; ElementwiseMul_hls from main's
 * hls/elementwise_binary_hls.py), "<op>_hls" / "<op>_rtl" as SpecializeLayers
 * (transformation/fpgadataflow/specialize_layers.py) names them. */
static const char *const finn_op_types[] = {
    "AddStreams_hls", "ChannelwiseOp_hls", "CheckSum_hls", "ConvolutionInputGenerator_hls",
    "DownSampler_hls", "DuplicateStreams_hls", "FMPadding_hls", "FMPadding_Pixel_hls",
    "GlobalAccPool_hls", "IODMA_hls", "LabelSelect_hls", "Lookup_hls", "Pool_hls",
    "StreamingConcat_hls", "StreamingEltwise_hls", "StreamingDataWidthConverter_hls",
    "StreamingMaxPool_hls", "Thresholding_hls", "TLastMarker_hls",
    "UpsampleNearestNeighbour_hls", "MVAU_hls", "VVAU_hls", "ElementwiseMul_hls",
    "ConvolutionInputGenerator_rtl", "FMPadding_rtl", "StreamingDataWidthConverter_rtl",
    "StreamingFIFO_rtl", "MVAU_rtl", "VVAU_rtl", "Thresholding_rtl",
};

/* The attributes each op takes that a folding configuration sets (get_nodeattr_types of
 * the op and its HWCustomOp base: inFIFODepths / outFIFODepths everywhere). */
static bool attribute_allowed(const char *op, const char *attr)
{
    if (!strcmp(attr, "inFIFODepths") || !strcmp(attr, "outFIFODepths"))
        return true;
    if (!strncmp(op, "MVAU_", 5) || !strncmp(op, "VVAU_", 5))
        return !strcmp(attr, "PE") || !strcmp(attr, "SIMD") || !strcmp(attr, "ram_style") ||
               !strcmp(attr, "resType") || !strcmp(attr, "mem_mode");
    if (!strncmp(op, "ConvolutionInputGenerator_", 26))
        return !strcmp(attr, "SIMD") || !strcmp(attr, "ram_style") ||
               !strcmp(attr, "parallel_window");
    if (!strcmp(op, "FMPadding_rtl") || !strcmp(op, "StreamingConcat_hls"))
        return !strcmp(attr, "SIMD");
    if (!strcmp(op, "StreamingMaxPool_hls") || !strcmp(op, "UpsampleNearestNeighbour_hls"))
        return false; /* no folding of their own */
    return !strcmp(attr, "PE");
}

static bool value_in(const char *v, const char *const *set, int n)
{
    for (int i = 0; i < n; i++)
        if (v && !strcmp(v, set[i]))
            return true;
    return false;
}

/* A node's attribute values are ones FINN accepts. */
static void check_values(const char *name, json_t *node)
{
    static const char *const ram[] = {"auto", "block", "distributed", "ultra"};
    static const char *const res[] = {"auto", "lut", "dsp"};
    static const char *const mem[] = {"internal_embedded", "internal_decoupled", "external"};
    json_t *v;
    if ((v = json_object_get(node, "ram_style")) && !value_in(json_string_value(v), ram, 4))
        fail_msg("%s: ram_style %s", name, json_string_value(v));
    if ((v = json_object_get(node, "resType")) && !value_in(json_string_value(v), res, 3))
        fail_msg("%s: resType %s", name, json_string_value(v));
    if ((v = json_object_get(node, "mem_mode")) && !value_in(json_string_value(v), mem, 3))
        fail_msg("%s: mem_mode %s", name, json_string_value(v));
    if ((v = json_object_get(node, "parallel_window")) && json_integer_value(v) != 0)
        fail_msg("%s: parallel_window", name);
}

/* Every key but "Defaults" is "<FINN op type>_<n>", n counting each op type from 0 with
 * no gap, and carries only that op's attributes; returns how many names op has. */
static int check_config(json_t *cfg, const char *count_op)
{
    enum { N_OPS = sizeof finn_op_types / sizeof finn_op_types[0] };
    int count[N_OPS] = {0}, max[N_OPS], seen = 0;
    for (int i = 0; i < N_OPS; i++)
        max[i] = -1;
    json_t *defaults = json_object_get(cfg, "Defaults");
    assert_true(json_is_object(defaults) && json_object_size(defaults) == 0);
    const char *key;
    json_t *node;
    json_object_foreach(cfg, key, node) {
        if (!strcmp(key, "Defaults"))
            continue;
        const char *us = strrchr(key, '_');
        assert_non_null(us);
        int op = -1;
        for (int i = 0; i < N_OPS; i++)
            if (strlen(finn_op_types[i]) == (size_t)(us - key) &&
                !strncmp(key, finn_op_types[i], (size_t)(us - key)))
                op = i;
        if (op < 0)
            fail_msg("%s is not a FINN op type's name", key);
        const int n = atoi(us + 1);
        count[op]++;
        max[op] = n > max[op] ? n : max[op];
        const char *attr;
        json_t *value;
        json_object_foreach(node, attr, value) {
            if (!attribute_allowed(finn_op_types[op], attr))
                fail_msg("%s: FINN's %s has no attribute %s", key, finn_op_types[op], attr);
        }
        check_values(key, node);
        if (!strcmp(finn_op_types[op], count_op))
            seen++;
    }
    for (int i = 0; i < N_OPS; i++)
        if (count[i] != max[i] + 1)
            fail_msg("%s: %d names, numbered up to %d", finn_op_types[i], count[i], max[i]);
    return seen;
}

static json_t *node_of(json_t *cfg, const char *name)
{
    json_t *n = json_object_get(cfg, name);
    if (!n)
        fail_msg("no node %s in the export", name);
    return n;
}

static cm_design *zoo_design(const char *model, const char *board)
{
    char path[1024];
    cm_test_generated_model(model, path, sizeof path);
    return cm_test_design(path, board, CM_BACKEND_FINN, 4, true);
}

/* CNV: unpadded 3x3 convolutions, each an SWG and an MVAU that absorbs its activation
 * as thresholds (so MVAU_hls: the RTL MVU takes no thresholds), max pools, dense
 * layers; the classifier has no activation and 4-bit operands: MVAU_rtl. */
static void test_cnv_names(void **state)
{
    (void)state;
    cm_design *d = zoo_design("zoo/cnv.onnx", "zedboard");
    json_t *cfg = cm_export_finn_current_json(d);
    assert_non_null(cfg);
    assert_int_equal(check_config(cfg, "MVAU_hls"), 8); /* 6 conv + 2 dense */
    assert_string_equal(json_string_value(json_object_get(node_of(cfg, "MVAU_rtl_0"), "mem_mode")),
                        "internal_decoupled");
    json_t *m = node_of(cfg, "MVAU_hls_0");
    assert_string_equal(json_string_value(json_object_get(m, "mem_mode")), "internal_embedded");
    assert_int_equal(json_integer_value(json_object_get(m, "PE")), 1);
    assert_int_equal(json_integer_value(json_object_get(m, "SIMD")), 1);
    node_of(cfg, "ConvolutionInputGenerator_rtl_5");
    node_of(cfg, "StreamingMaxPool_hls_1");
    assert_null(json_object_get(cfg, "StreamingFCLayer_Batch_0"));
    json_decref(cfg);
    cm_design_free(d);
}

/* MobileNetV1: padded convolutions (FMPadding_rtl), depthwise ones (VVAU_hls off
 * Versal), a global pool and the classifier. */
static void test_mobilenet_names(void **state)
{
    (void)state;
    cm_design *d = zoo_design("zoo/mobilenet_v1.onnx", "zedboard");
    json_t *cfg = cm_export_finn_current_json(d);
    assert_non_null(cfg);
    assert_int_equal(check_config(cfg, "VVAU_hls"), 13);
    node_of(cfg, "FMPadding_rtl_0");
    node_of(cfg, "VVAU_hls_12");
    assert_string_equal(json_string_value(json_object_get(node_of(cfg, "VVAU_hls_0"), "mem_mode")),
                        "internal_embedded");
    json_decref(cfg);
    cm_design_free(d);
}

/* An MVAU without thresholds and 4-8 bit operands is the RTL MVU, whose weights stream. */
static void test_rtl_mvau(void **state)
{
    (void)state;
    cm_design *d = zoo_design("zoo/lfc.onnx", "zedboard");
    int last = -1;
    for (int i = 0; i < d->hd.n_nodes; i++)
        if (d->hd.nodes[i].hw.finn.kind == CM_FINN_MVAU)
            last = i;
    assert_true(last >= 0);
    cm_finn_node *f = &d->hd.nodes[last].hw.finn;
    f->no_activation = true;
    f->in_bits = f->weight_bits = 8;
    json_t *cfg = cm_export_finn_current_json(d);
    assert_int_equal(check_config(cfg, "MVAU_rtl"), 1);
    assert_string_equal(json_string_value(json_object_get(node_of(cfg, "MVAU_rtl_0"), "mem_mode")),
                        "internal_decoupled");
    json_decref(cfg);
    cm_design_free(d);
}

/* x -> conv0 (1x1, 8 ch) -> six 1x1 convs of 2..12 channels -> one concat of all six. */
static cm_graph *wide_net(void)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 4, 6, 6});
    ob_init_float(m, "W0", 4, (int64_t[]){8, 4, 1, 1}, NULL);
    Onnx__NodeProto *c0 = ob_node(m, "Conv", "conv0", "x,W0", "y0");
    ob_attr_ints(c0, "kernel_shape", 2, (int64_t[]){1, 1});
    char inputs[128] = "";
    for (int i = 1; i <= 6; i++) {
        char w[8], out[8], name[8], in[32];
        snprintf(w, sizeof w, "W%d", i);
        snprintf(out, sizeof out, "y%d", i);
        snprintf(name, sizeof name, "conv%d", i);
        ob_init_float(m, w, 4, (int64_t[]){2 * i, 8, 1, 1}, NULL);
        snprintf(in, sizeof in, "y0,%s", w);
        Onnx__NodeProto *c = ob_node(m, "Conv", name, in, out);
        ob_attr_ints(c, "kernel_shape", 2, (int64_t[]){1, 1});
        strcat(inputs, i > 1 ? "," : "");
        strcat(inputs, out);
    }
    Onnx__NodeProto *cat = ob_node(m, "Concat", "cat", inputs, "z");
    ob_attr_int(cat, "axis", 1);
    ob_output(m, "z", 4, NULL);
    return cm_test_load_built(m, "wide.onnx");
}

static cm_design *graph_design(cm_graph *g, const char *board)
{
    cm_board b;
    cm_error err = {0};
    if (cm_board_builtin(board, &b, &err) != CM_OK)
        fail_msg("%s", err.message);
    cm_design_options o;
    cm_design_options_init(&o);
    o.backend = CM_BACKEND_FINN;
    cm_design *d = NULL;
    if (cm_design_create(g, &b, &o, &d, &err) != CM_OK)
        fail_msg("%s", err.message);
    return d;
}

/* Simulates partition `part` of d (every partition when part < 0) with unbounded
 * streams for 2 frames: the interval within 2% of the model's slowest node. */
static void check_simulation(const cm_design *d, int part, const char *what)
{
    sim_build b;
    cm_error err = {0};
    memset(&b, 0, sizeof b);
    if (sim_build_streaming(d, &b, &err) != CM_OK)
        fail_msg("%s: %s", what, err.message);
    assert_int_equal(b.n_parts, d->n_parts);
    for (int i = part < 0 ? 0 : part; i < (part < 0 ? b.n_parts : part + 1); i++) {
        sim_run_result r;
        sim_run_options o = {.frames = 2, .unbounded = true};
        if (sim_run(b.parts[i].graph, &o, &r, &err) != CM_OK)
            fail_msg("%s: %s", what, err.message);
        assert_false(r.deadlock);
        const double iv = (double)b.parts[i].analytic_interval;
        if (fabs((double)r.interval_cycles - iv) > 0.02 * iv)
            fail_msg("%s partition %d: interval %lld simulated, %lld analytic", what, i,
                     (long long)r.interval_cycles, (long long)b.parts[i].analytic_interval);
        sim_run_result_free(&r);
    }
    sim_build_free(&b);
}

static int count_kind(const cm_design *d, cm_finn_kind k)
{
    int n = 0;
    for (int i = 0; i < d->hd.n_nodes; i++)
        n += d->hd.nodes[i].hw.finn.kind == k;
    return n;
}

/* The six-way concat is a cascade: StreamingConcat_0_1 takes 2+4+6+8 = 20 channels,
 * StreamingConcat_0 that and 10 + 12 = 42, SIMD dividing gcd(20, 10, 12) = 2; conv0's
 * six consumers hang off DuplicateStreams_Batch_0 (three and the chain) and _0_1. */
static void test_wide_concat_and_fork(void **state)
{
    (void)state;
    cm_design *d = graph_design(wide_net(), "zedboard");
    assert_int_equal(count_kind(d, CM_FINN_CONCAT), 2);
    assert_int_equal(count_kind(d, CM_FINN_DUPLICATE), 2);
    const cm_hd_node *h = &d->hd.nodes[cm_design_node_find(d, "StreamingConcat_0_1")];
    const cm_hd_node *c = &d->hd.nodes[cm_design_node_find(d, "StreamingConcat_0")];
    assert_int_equal(h->hw.finn.n_inputs, 4);
    assert_int_equal(h->hw.finn.channels, 20);
    assert_int_equal(c->hw.finn.n_inputs, 3);
    assert_int_equal(c->hw.finn.in_channels[0], 20);
    assert_int_equal(c->hw.finn.in_channels[1], 10);
    assert_int_equal(c->hw.finn.in_channels[2], 12);
    assert_int_equal(c->fold[0].count, 2); /* SIMD 1 or 2 */
    assert_int_equal(c->fold[0].v[1], 2);
    const cm_hd_node *dup = &d->hd.nodes[cm_design_node_find(d, "DuplicateStreams_Batch_0")];
    assert_int_equal(dup->n_succ, 4);
    assert_string_equal(d->hd.nodes[dup->succ[3]].name, "DuplicateStreams_Batch_0_1");
    assert_int_equal(d->hd.nodes[dup->succ[3]].n_succ, 3);
    for (int i = 0; i < d->hd.n_nodes; i++)
        for (int k = 0; k < d->hd.nodes[i].n_pred; k++)
            assert_true(d->hd.nodes[i].pred[k] < i); /* still in topological order */
    /* SIMD 1: the last concat takes 36 pixels x 42 channels = 1512 cycles */
    assert_true(d->state[cm_design_node_find(d, "StreamingConcat_0")].cost.cycles == 1512.0);
    check_simulation(d, -1, "wide concat");
    /* v0.6 had no StreamingConcat */
    char path[512];
    cm_test_write_temp("", 0, ".json", path, sizeof path);
    cm_error err = {0};
    assert_int_equal(cm_export(d, CM_EXPORT_FINN_V06, path, &err), CM_EUSAGE);
    assert_non_null(strstr(err.message, "StreamingConcat_0"));
    assert_int_equal(cm_export(d, CM_EXPORT_FINN, path, &err), CM_OK);
    remove(path);
    json_t *cfg = cm_export_finn_current_json(d);
    assert_int_equal(check_config(cfg, "StreamingConcat_hls"), 2);
    json_decref(cfg);
    cm_design_free(d);
}

/* An FPN's top-down step: a 1x1 convolution of 8x8x8, its map upsampled 2x (nearest)
 * and added to a lateral 1x1 convolution of a 16x16 map. The upsample is
 * UpsampleNearestNeighbour_Batch_0 with IFMDim 8 and OFMDim 16, FINN's cycles OFMDim^2 =
 * 256 (a pixel a cycle) and one row of 8 pixels of 8 x 4 bits held: FINN's BRAM18 table
 * for 32-bit words, ceil(32/36) = 1. Its export is UpsampleNearestNeighbour_hls_0 with
 * no folding attribute; it simulates. */
static void test_upsample(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "top", 4, (int64_t[]){1, 8, 8, 8});
    ob_input(m, "lat", 4, (int64_t[]){1, 8, 16, 16});
    ob_init_float(m, "W0", 4, (int64_t[]){8, 8, 1, 1}, NULL);
    ob_init_float(m, "W1", 4, (int64_t[]){8, 8, 1, 1}, NULL);
    ob_init_float(m, "scales", 1, (int64_t[]){4}, (float[]){1, 1, 2, 2});
    Onnx__NodeProto *c = ob_node(m, "Conv", "inner", "top,W0", "t");
    ob_attr_ints(c, "kernel_shape", 2, (int64_t[]){1, 1});
    c = ob_node(m, "Conv", "lateral", "lat,W1", "l");
    ob_attr_ints(c, "kernel_shape", 2, (int64_t[]){1, 1});
    ob_attr_string(ob_node(m, "Resize", "up", "t,,scales", "u"), "mode", "nearest");
    ob_node(m, "Add", "sum", "u,l", "y");
    ob_output(m, "y", 4, NULL);
    cm_design *d = graph_design(cm_test_load_built(m, "fpn.onnx"), "zedboard");
    assert_int_equal(count_kind(d, CM_FINN_UPSAMPLE), 1);
    const int up = cm_design_node_find(d, "UpsampleNearestNeighbour_Batch_0");
    assert_true(up >= 0);
    assert_int_equal(d->hd.nodes[up].hw.finn.ifm_dim[0], 8);
    assert_int_equal(d->hd.nodes[up].hw.finn.ofm_dim[0], 16);
    assert_true(d->state[up].cost.cycles == 256.0);
    assert_int_equal(d->state[up].cost.res.bram18, 1);
    check_simulation(d, -1, "upsample");
    json_t *cfg = cm_export_finn_current_json(d);
    assert_int_equal(check_config(cfg, "UpsampleNearestNeighbour_hls"), 1);
    json_decref(cfg);
    cm_design_free(d);
}

/* Whether node i is what a test looks for: a concat of a cascade ("StreamingConcat_3_1"),
 * a multiply whose input is broadcast (or not), a fork of a chain. */
typedef enum wanted { CASCADE, CHAINED_FORK, MUL_BROADCAST, MUL_MAPS, ANY_CONCAT } wanted;

static bool is_wanted(const cm_hd_node *n, wanted w)
{
    int a, b;
    switch (w) {
    case CASCADE: return sscanf(n->name, "StreamingConcat_%d_%d", &a, &b) == 2;
    case CHAINED_FORK: return sscanf(n->name, "DuplicateStreams_Batch_%d_%d", &a, &b) == 2;
    case MUL_BROADCAST: return n->hw.finn.kind == CM_FINN_MUL && n->hw.finn.broadcast_port >= 0;
    case MUL_MAPS: return n->hw.finn.kind == CM_FINN_MUL && n->hw.finn.broadcast_port < 0;
    case ANY_CONCAT: return n->hw.finn.kind == CM_FINN_CONCAT;
    }
    return false;
}

/* Whether node i and every node next to it are in partition p (so that its streams are
 * the design's, not the partition's off-chip ends). */
static bool inside(const cm_design *d, int p, int i)
{
    const cm_hd_node *n = &d->hd.nodes[i];
    bool in = d->part_of[i] == p;
    for (int k = 0; k < n->n_pred; k++)
        in = in && d->part_of[n->pred[k]] == p;
    for (int k = 0; k < n->n_succ; k++)
        in = in && d->part_of[n->succ[k]] == p;
    return in;
}

/* The last partition holding a wanted node with its neighbours, else the last holding
 * one at all (DenseNet's cascades on a small board take their maps from partitions cut
 * after each MVAU, so off-chip; test_wide_concat_and_fork simulates one inside). The
 * deepest layers have the smallest maps, so they are the cheapest to simulate. */
static int last_partition_with(const cm_design *d, wanted w)
{
    int any = -1;
    for (int p = d->n_parts - 1; p >= 0; p--)
        for (int i = d->parts[p].first; i < d->parts[p].end; i++)
            if (is_wanted(&d->hd.nodes[i], w)) {
                if (inside(d, p, i))
                    return p;
                any = any < 0 ? p : any;
            }
    if (any >= 0)
        return any;
    fail_msg("no partition holds the block looked for");
    return -1;
}

/* A torchvision network on the rule optimiser (a budget of design points keeps it
 * quick) on a board that cuts it into partitions; the last partitions holding each
 * wanted block simulated at 2 frames. Simulating every partition of these 224x224
 * networks takes 20 s and 1 GB per network (an unbounded run keeps every word of a
 * frame's maps), which the suite cannot afford. */
static void check_network(const char *model, cm_finn_kind needs, int at_least, const wanted *w,
                          int n_wanted)
{
    char path[1024];
    cm_test_generated_model(model, path, sizeof path);
    cm_design *d = cm_test_design(path, "zedboard", CM_BACKEND_FINN, 4, true);
    assert_true(count_kind(d, needs) >= at_least);
    cm_optimise_options o = {.optimiser = CM_OPTIMISER_RULE, .seed = 1, .max_points = 200000};
    cm_optimise_result res;
    cm_error err = {0};
    if (cm_optimise(d, &o, &res, &err) != CM_OK)
        fail_msg("%s: %s", model, err.message);
    assert_true(cm_design_feasible(d));
    assert_true(d->n_parts > 1);
    for (int k = 0; k < n_wanted; k++)
        check_simulation(d, last_partition_with(d, w[k]), model);
    json_t *cfg = cm_export_finn_current_json(d);
    check_config(cfg, "");
    json_decref(cfg);
    cm_design_free(d);
}

static void test_googlenet(void **state)
{
    (void)state;
    const wanted w[] = {ANY_CONCAT};
    check_network("torchvision/googlenet_noweights.onnx", CM_FINN_CONCAT, 9, w, 1);
}

static void test_densenet121(void **state)
{
    (void)state;
    const wanted w[] = {CASCADE, CHAINED_FORK};
    check_network("torchvision/densenet121_noweights.onnx", CM_FINN_CONCAT, 58, w, 2);
}

static void test_efficientnet_b0(void **state)
{
    (void)state;
    const wanted w[] = {MUL_BROADCAST, MUL_MAPS};
    check_network("torchvision/efficientnet_b0_noweights.onnx", CM_FINN_MUL, 65, w, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cnv_names),
        cmocka_unit_test(test_mobilenet_names),
        cmocka_unit_test(test_rtl_mvau),
        cmocka_unit_test(test_wide_concat_and_fork),
        cmocka_unit_test(test_upsample),
        cmocka_unit_test(test_googlenet),
        cmocka_unit_test(test_densenet121),
        cmocka_unit_test(test_efficientnet_b0),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
