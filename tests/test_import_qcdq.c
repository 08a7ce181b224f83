/* QCDQ models (QuantizeLinear -> [Clip] -> DequantizeLinear, integer weights ->
 * DequantizeLinear, QLinearConv, QLinearMatMul, ConvInteger, MatMulInteger): the importer
 * gives them the annotations QONNX's Quant gives. The shared QONNX models are rewritten
 * into QCDQ at test time by tests/run/make_qcdq.py and must import layer for layer with
 * the same bit widths, signedness, narrow ranges and scales; tests/models/make_qlinear.py
 * writes small integer-layer models, which import with 8-bit annotations and which the
 * executor runs (checked against the integer arithmetic computed here, ONNX Runtime's);
 * and the QCDQ shapes the importer cannot annotate are refused, naming the node and
 * operator. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cnnmap/model.h>
#include <cnnmap/run.h>

#include "onnx_builder.h"

#define PYTHON "/usr/bin/python3"

static void make_dir(char *buf, size_t size)
{
    snprintf(buf, size, "/tmp/cm_qcdq_XXXXXX");
    assert_non_null(mkdtemp(buf));
}

static void remove_dir(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* Runs a Python generator; without Debian's python3 (and onnx) the test is skipped,
 * except under CI, where it fails. */
static void run_python(const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, PYTHON " -c 'import onnx, numpy' 2>/dev/null");
    if (system(cmd) != 0) {
        const char *ci = getenv("CI");
        if (ci && strcmp(ci, "true") == 0)
            fail_msg(PYTHON " with onnx and numpy is required under CI");
        print_message("skipping: " PYTHON " with onnx and numpy is missing\n");
        skip();
    }
    snprintf(cmd, sizeof cmd, PYTHON " %s", args);
    assert_int_equal(system(cmd), 0);
}

static cm_graph *load(const char *path)
{
    cm_graph *g = NULL;
    cm_error err = {0};
    if (cm_model_load(path, &g, &err) != CM_OK)
        fail_msg("%s", err.message);
    return g;
}

static void expect_same_quant(const cm_quant *a, const cm_quant *b, const char *layer,
                              const char *what)
{
    if (a->bits != b->bits || a->quantised != b->quantised || a->is_signed != b->is_signed ||
        a->narrow != b->narrow || a->scale != b->scale)
        fail_msg("layer %s, %s: QONNX %d bits%s%s%s scale %g, QCDQ %d bits%s%s%s scale %g",
                 layer, what, a->bits, a->quantised ? "" : " float", a->is_signed ? " signed" : "",
                 a->narrow ? " narrow" : "", a->scale, b->bits, b->quantised ? "" : " float",
                 b->is_signed ? " signed" : "", b->narrow ? " narrow" : "", b->scale);
}

/* Layer by layer (by order: the rewrite may rename), the same layers and annotations.
 * Biases are left out: the rewrite folds a bias wider than 8 bits into float32 values
 * (QuantizeLinear has no wider type at opset 13), so the QCDQ file no longer says it. */
static void expect_same_graph(const cm_graph *a, const cm_graph *b)
{
    assert_int_equal(a->n_layers, b->n_layers);
    assert_int_equal(a->n_inputs, b->n_inputs);
    for (int i = 0; i < a->n_inputs; i++)
        expect_same_quant(&a->inputs[i].q, &b->inputs[i].q, "(graph input)", "input");
    for (int i = 0; i < a->n_layers; i++) {
        const cm_layer *x = &a->layers[i], *y = &b->layers[i];
        assert_int_equal(x->op, y->op);
        assert_int_equal(x->macs, y->macs);
        assert_int_equal(x->params, y->params);
        assert_int_equal(x->out_shape.c, y->out_shape.c);
        expect_same_quant(&x->in_q, &y->in_q, x->name, "input");
        expect_same_quant(&x->out_q, &y->out_q, x->name, "output");
        expect_same_quant(&x->weight_q, &y->weight_q, x->name, "weights");
    }
}

static void check_twin(const char *name)
{
    char src[1024], dir[64], dst[256], args[2048];
    cm_test_shared_model(name, src, sizeof src);
    make_dir(dir, sizeof dir);
    snprintf(dst, sizeof dst, "%s/%s", dir, name);
    snprintf(args, sizeof args, CM_SOURCE_DIR "/tests/run/make_qcdq.py '%s' '%s'", src, dst);
    run_python(args);
    cm_graph *qonnx = load(src), *qcdq = load(dst);
    expect_same_graph(qonnx, qcdq);
    int quantised = 0;
    for (int i = 0; i < qcdq->n_layers; i++)
        quantised += qcdq->layers[i].weight_q.quantised;
    assert_true(quantised > 0);
    cm_graph_free(qonnx);
    cm_graph_free(qcdq);
    remove_dir(dir);
}

/* The shared QONNX models whose activations have at most 8 bits (all of them): 8-bit
 * and 4-bit ResNets (4-bit: Clips), MobileNetV2 with 6-bit weights (int8 values within
 * [-32, 31]) and depthwise convolutions. */
static void test_resnet8_a8w8(void **state)
{
    (void)state;
    check_twin("resnet8_a8w8b16.onnx");
}

static void test_resnet8_a4w4(void **state)
{
    (void)state;
    check_twin("resnet8_a4w4b32.onnx");
}

static void test_resnet20_a8w8(void **state)
{
    (void)state;
    check_twin("resnet20_a8w8b16.onnx");
}

static void test_mobilenet_v2_a8w6(void **state)
{
    (void)state;
    check_twin("mobilenet_v2_a8w6b32.onnx");
}

/* --- Integer layers (tests/models/make_qlinear.py) --- */

static int8_t ramp8(int64_t i)
{
    if (i < 2)
        return i == 0 ? -128 : 127;
    return (int8_t)((i * 37 + 11) % 256 - 128);
}

/* ONNX Runtime's QuantizeLinear and requantisation: float32, half to even, saturated. */
static int64_t saturate_u8(float v, int64_t zp)
{
    double r = nearbyint((double)v) + (double)zp;
    return r < 0 ? 0 : r > 255 ? 255 : (int64_t)r;
}

/* y of qlinear.onnx for input x (1x3x5x5), in the file's integer arithmetic. */
static void qlinear_reference(const double *x, double *y)
{
    static const float w_scale[4] = {0.01f, 0.02f, 0.015f, 0.005f};
    static const int32_t bias[4] = {100, -50, 0, 25};
    int64_t xq[75], cq[100];
    for (int i = 0; i < 75; i++)
        xq[i] = saturate_u8((float)x[i] / 0.05f, 128);
    for (int o = 0; o < 4; o++)
        for (int p = 0; p < 25; p++) {
            int64_t acc = bias[o];
            for (int c = 0; c < 3; c++)
                for (int k = 0; k < 9; k++) {
                    int r = p / 5 + k / 3 - 1, s = p % 5 + k % 3 - 1;
                    if (r >= 0 && r < 5 && s >= 0 && s < 5)
                        acc += (xq[c * 25 + r * 5 + s] - 128) * ramp8((o * 3 + c) * 9 + k);
                }
            float scale = 0.05f * w_scale[o] / 0.1f;
            cq[o * 25 + p] = saturate_u8((float)acc * scale, 100);
        }
    for (int j = 0; j < 6; j++) {
        int64_t acc = 0;
        for (int i = 0; i < 100; i++)
            acc += (cq[i] - 100) * ramp8(i * 6 + j);
        float scale = 0.1f * 0.004f / 0.2f;
        y[j] = (double)(saturate_u8((float)acc * scale, 125) - 125) * 0.2;
    }
}

static void make_qlinear_models(char *dir, size_t size)
{
    char args[512];
    make_dir(dir, size);
    snprintf(args, sizeof args, CM_SOURCE_DIR "/tests/models/make_qlinear.py '%s'", dir);
    run_python(args);
}

static void expect_quant(const cm_quant *q, int bits, bool is_signed, double scale)
{
    assert_true(q->quantised);
    assert_int_equal(q->bits, bits);
    assert_int_equal(q->is_signed, is_signed);
    assert_true(fabs(q->scale - scale) <= 1e-7 * scale);
}

/* Runs the model at path on x; y from the executor. */
static cm_array *run_model(const char *path, cm_array *x)
{
    cm_runner *r = NULL;
    cm_error err = {0};
    if (cm_runner_load(path, &r, &err) != CM_OK)
        fail_msg("%s", err.message);
    cm_array *y = NULL;
    if (cm_runner_execute(r, (const cm_array *const[]){x}, 1, NULL, 1, &y, &err) != CM_OK)
        fail_msg("%s", err.message);
    cm_runner_free(r);
    return y;
}

static cm_array *ramp_input(int rank, const int64_t *dims)
{
    cm_array *x = NULL;
    cm_error err = {0};
    assert_int_equal(cm_array_new(CM_DTYPE_FLOAT32, rank, dims, &x, &err), CM_OK);
    for (int64_t k = 0; k < x->count; k++)
        x->f[k] = (float)(sin(0.7 * (double)k) * 2.5);
    return x;
}

static void test_qlinear_layers(void **state)
{
    (void)state;
    char dir[64], path[256];
    make_qlinear_models(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/qlinear.onnx", dir);
    cm_graph *g = load(path);
    assert_int_equal(g->n_layers, 2);
    const cm_layer *conv = &g->layers[0], *fc = &g->layers[1];
    assert_int_equal(conv->op, CM_OP_CONV);
    assert_int_equal(conv->macs, 4 * 3 * 9 * 25);
    assert_true(conv->has_bias);
    expect_quant(&g->inputs[0].q, 8, false, 0.05);
    expect_quant(&conv->in_q, 8, false, 0.05);
    expect_quant(&conv->weight_q, 8, true, 0.0); /* per-channel scales */
    expect_quant(&conv->out_q, 8, false, 0.1);
    assert_int_equal(fc->op, CM_OP_FC);
    assert_int_equal(fc->macs, 600);
    expect_quant(&fc->in_q, 8, false, 0.1);
    expect_quant(&fc->weight_q, 8, true, 0.004);
    expect_quant(&fc->out_q, 8, false, 0.2);
    cm_graph_free(g);

    cm_array *x = ramp_input(4, (int64_t[]){1, 3, 5, 5}), *y = run_model(path, x);
    double want[6];
    qlinear_reference(x->f, want);
    assert_int_equal(y->count, 6);
    for (int j = 0; j < 6; j++)
        assert_true(fabs(y->f[j] - want[j]) <= 1e-5);
    cm_array_free(x);
    cm_array_free(y);
    remove_dir(dir);
}

/* ConvInteger and MatMulInteger: a conv and an fc layer with 8-bit annotations and an
 * int32 accumulator out; the executor gives s * sum((xq - 128) * w). */
static void test_integer_layers(void **state)
{
    (void)state;
    char dir[64], path[256];
    make_qlinear_models(dir, sizeof dir);
    static const cm_op ops[2] = {CM_OP_CONV, CM_OP_FC};
    static const char *const files[2] = {"integer.onnx", "matmul_integer.onnx"};
    for (int f = 0; f < 2; f++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[f]);
        cm_graph *g = load(path);
        const cm_layer *l = &g->layers[0];
        assert_int_equal(l->op, ops[f]);
        expect_quant(&l->in_q, 8, false, 0.05);
        expect_quant(&l->weight_q, 8, true, 0.0);
        assert_int_equal(l->out_q.bits, 32);
        assert_true(l->out_q.quantised && l->out_q.is_signed);
        cm_graph_free(g);
        /* conv: 4 x 3 weights over 25 pixels; fc: 6 x 4 weights */
        int pixels = f == 0 ? 25 : 1, ins = f == 0 ? 3 : 6;
        cm_array *x = f == 0 ? ramp_input(4, (int64_t[]){1, 3, 5, 5})
                             : ramp_input(2, (int64_t[]){1, 6});
        cm_array *y = run_model(path, x);
        assert_int_equal(y->count, 4 * pixels);
        for (int o = 0; o < 4; o++)
            for (int p = 0; p < pixels; p++) {
                int64_t acc = 0;
                for (int c = 0; c < ins; c++) {
                    int64_t w = ramp8(f == 0 ? o * 3 + c : c * 4 + o);
                    acc += (saturate_u8((float)x->f[c * pixels + p] / 0.05f, 128) - 128) * w;
                }
                double want = (double)((float)acc * (0.05f * 0.01f));
                assert_true(fabs(y->f[o * pixels + p] - want) <= 1e-6 * (1.0 + fabs(want)));
            }
        cm_array_free(x);
        cm_array_free(y);
    }
    remove_dir(dir);
}

/* --- Narrow ranges and refusals, built with onnx_builder --- */

static void init_int8(Onnx__ModelProto *m, const char *name, int rank, const int64_t *dims,
                      const int8_t *v, int64_t n)
{
    Onnx__TensorProto *t = ob_init_raw(m, name, rank, dims, 3 /* INT8 */, v, (size_t)n);
    assert_non_null(t);
}

/* x -> QuantizeLinear(int8) -> Clip(lo, hi) -> DequantizeLinear -> Conv(w): the Clip's
 * bounds give the feature map's width; the weights' values give theirs. */
static cm_graph *clipped(int8_t lo, int8_t hi, const int8_t *w)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_opset(m, 13);
    ob_input(m, "x", 4, (int64_t[]){1, 2, 3, 3});
    ob_init_float(m, "s", 0, NULL, (float[]){0.5f});
    init_int8(m, "zp", 0, NULL, (int8_t[]){0}, 1);
    init_int8(m, "lo", 0, NULL, &lo, 1);
    init_int8(m, "hi", 0, NULL, &hi, 1);
    init_int8(m, "w", 4, (int64_t[]){2, 2, 1, 1}, w, 4);
    ob_init_float(m, "ws", 0, NULL, (float[]){0.25f});
    ob_node(m, "QuantizeLinear", "q", "x,s,zp", "xq");
    ob_node(m, "Clip", "clip", "xq,lo,hi", "xc");
    ob_node(m, "DequantizeLinear", "dq", "xc,s,zp", "xd");
    ob_node(m, "DequantizeLinear", "wdq", "w,ws,zp", "wd");
    ob_node(m, "Conv", "conv", "xd,wd", "y");
    ob_output(m, "y", 4, NULL);
    return cm_test_load_built(m, "clipped.onnx");
}

static void test_widths_from_ranges(void **state)
{
    (void)state;
    cm_graph *g = clipped(-8, 7, (int8_t[]){-8, 7, 0, 3});
    const cm_layer *l = &g->layers[0];
    expect_quant(&l->in_q, 4, true, 0.5);
    assert_false(l->in_q.narrow);
    expect_quant(&l->weight_q, 4, true, 0.25);
    assert_false(l->weight_q.narrow);
    expect_quant(&g->inputs[0].q, 4, true, 0.5);
    cm_graph_free(g);
    g = clipped(-127, 127, (int8_t[]){-7, 7, 1, 0});
    l = &g->layers[0];
    expect_quant(&l->in_q, 8, true, 0.5);
    assert_true(l->in_q.narrow);
    expect_quant(&l->weight_q, 4, true, 0.25);
    assert_true(l->weight_q.narrow);
    cm_graph_free(g);
    g = clipped(0, 3, (int8_t[]){0, 1, 2, 3}); /* a signed type never negative */
    l = &g->layers[0];
    expect_quant(&l->in_q, 3, true, 0.5);
    expect_quant(&l->weight_q, 2, false, 0.25);
    cm_graph_free(g);
}

static void expect_refused(Onnx__ModelProto *m, const char *node, const char *op)
{
    size_t len;
    uint8_t *bytes = ob_pack(m, &len);
    cm_graph *g = NULL;
    cm_error err = {0};
    assert_int_equal(cm_model_load_buffer(bytes, len, "bad.onnx", ".", &g, &err), CM_EINPUT);
    assert_null(g);
    if (!strstr(err.message, node) || !strstr(err.message, op))
        fail_msg("message does not name %s (%s): %s", node, op, err.message);
    free(bytes);
    ob_model_free(m);
}

static Onnx__ModelProto *one_node(const char *op, const char *inputs, bool const_x)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_opset(m, 13);
    ob_input(m, "x", 4, (int64_t[]){1, 2, 3, 3});
    ob_init_float(m, "s", 0, NULL, (float[]){0.5f});
    init_int8(m, "zp", 0, NULL, (int8_t[]){0}, 1);
    init_int8(m, "lo", 0, NULL, (int8_t[]){-8}, 1);
    if (const_x)
        ob_init_float(m, "c", 4, (int64_t[]){2, 2, 1, 1}, NULL);
    ob_node(m, op, "odd", inputs, "y0");
    ob_node(m, "Relu", "relu", "y0", "y");
    ob_output(m, "y", 4, NULL);
    return m;
}

/* Integers that no QuantizeLinear made have no known width: a DequantizeLinear or an
 * integer Clip of a float feature map, a QuantizeLinear of a constant at run time, a
 * scale that is not a constant. */
static void test_unannotatable_refused(void **state)
{
    (void)state;
    expect_refused(one_node("DequantizeLinear", "x,s,zp", false), "odd", "DequantizeLinear");
    expect_refused(one_node("Clip", "x,lo", false), "odd", "Clip");
    expect_refused(one_node("QuantizeLinear", "c,s,zp", true), "odd", "QuantizeLinear");
    expect_refused(one_node("QuantizeLinear", "x,x,zp", false), "odd", "QuantizeLinear");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resnet8_a8w8),
        cmocka_unit_test(test_resnet8_a4w4),
        cmocka_unit_test(test_resnet20_a8w8),
        cmocka_unit_test(test_mobilenet_v2_a8w6),
        cmocka_unit_test(test_qlinear_layers),
        cmocka_unit_test(test_integer_layers),
        cmocka_unit_test(test_widths_from_ranges),
        cmocka_unit_test(test_unannotatable_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
