/* Regression tests of issue 21's importer findings: hostile models built in memory,
 * each refused with CM_EINPUT and a one-line message naming the file and the node or
 * input at fault (no undefined behaviour on the way, which the sanitizer build
 * checks), and the near misses that must still load. Numbering follows the issue:
 * 1 integer overflow, 2 bit widths, 3 opsets, 4 input types, 5 pads, 6 dead branches. */
#include "onnx_builder.h"
#include "test_support.h"

#include <cnnmap/model.h>
#include <cnnmap/run.h>

#include "hw/finn_blocks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QONNX "qonnx.custom_op.general"
#define ORIGIN "hostile.onnx"

static void assert_contains(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("\"%s\" does not contain \"%s\"", text, part);
}

/* Packs m, frees it and loads the bytes. */
static cm_status load(Onnx__ModelProto *m, cm_graph **g, cm_error *err)
{
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    ob_model_free(m);
    *g = (cm_graph *)1; /* the loader must reset it */
    cm_status st = cm_model_load_buffer(buf, len, ORIGIN, "/nonexistent", g, err);
    free(buf);
    return st;
}

/* A refusal: CM_EINPUT, no graph, one line naming the file and holding each part. */
static void expect_refused(Onnx__ModelProto *m, const char *part1, const char *part2)
{
    cm_graph *g;
    cm_error err = {0};
    cm_status st = load(m, &g, &err);
    if (st != CM_EINPUT)
        fail_msg("expected CM_EINPUT, got %d (%s)", (int)st, err.message);
    assert_null(g);
    assert_contains(err.message, ORIGIN);
    assert_null(strchr(err.message, '\n'));
    assert_contains(err.message, part1);
    if (part2)
        assert_contains(err.message, part2);
}

static cm_graph *expect_loads(Onnx__ModelProto *m)
{
    cm_graph *g;
    cm_error err = {0};
    if (load(m, &g, &err) != CM_OK)
        fail_msg("refused: %s", err.message);
    assert_non_null(g);
    return g;
}

static const cm_layer *layer_named(const cm_graph *g, const char *name)
{
    for (int i = 0; i < g->n_layers; i++)
        if (strcmp(g->layers[i].name, name) == 0)
            return &g->layers[i];
    fail_msg("no layer '%s'", name);
    return NULL;
}

/* x: 1 x 3 x 8 x 8 -> one node of op_type (named "n") -> y. */
static Onnx__NodeProto *one_node(Onnx__ModelProto *m, const char *op_type, const char *inputs)
{
    ob_input(m, "x", 4, (int64_t[]){1, 3, 8, 8});
    Onnx__NodeProto *n = ob_node(m, op_type, "n", inputs, "y");
    ob_output(m, "y", 4, NULL);
    return n;
}

/* ---- 0. One line whatever the file's names hold ---- */

/* A node name with a newline, a tab and DEL, on an operator neither the importer nor the
 * executor takes: both messages quote the name with '?' for each control character. */
static void test_names_with_control_characters(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 3, 8, 8});
    ob_node(m, "Hardmax", "a\nb\tc\x7f", "x", "y");
    ob_output(m, "y", 4, NULL);
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    expect_refused(m, "a?b?c?", "Hardmax");
    cm_runner *r = NULL;
    cm_error err = {0};
    assert_int_equal(cm_runner_load_buffer(buf, len, ORIGIN, NULL, &r, &err), CM_EINPUT);
    assert_null(r);
    assert_null(strchr(err.message, '\n'));
    assert_contains(err.message, "node 'a?b?c?' (Hardmax)");
    free(buf);
}

/* The executor's refusal of m (packed, then freed): CM_EINPUT, no runner, and one line
 * holding `part`. */
static void expect_runner_refused(Onnx__ModelProto *m, const char *part)
{
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    ob_model_free(m);
    cm_runner *r = NULL;
    cm_error err = {0};
    assert_int_equal(cm_runner_load_buffer(buf, len, ORIGIN, NULL, &r, &err), CM_EINPUT);
    assert_null(r);
    assert_null(strchr(err.message, '\n'));
    assert_contains(err.message, part);
    free(buf);
}

/* fuzz_run's finding: an empty initializer (a zero dimension) whose other dimensions
 * multiply past 2^40 passed the TensorProto reader's bound, which stopped at the zero,
 * and cm_array_new refused it without naming the file. Now the reader bounds the
 * non-zero dimensions' product as cm_array_new does, and names the file and tensor
 * (fuzz/corpus/run/regress_empty_tensor_huge_dims.onnx). */
static void test_empty_tensor_huge_dims(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 2, (int64_t[]){1, 2});
    ob_init_float(m, "e", 3, (int64_t[]){0, 8388608, 8388608}, NULL);
    ob_node(m, "Add", "add", "x,x", "y");
    ob_output(m, "y", 2, NULL);
    expect_runner_refused(m, ORIGIN ": tensor 'e' has dimension 8388608 at axis 2");
}

/* fuzz_run's finding: a Reshape folded at load whose target shape holds far more
 * elements than its input allocated the whole target (400 GB) before comparing the
 * counts, and ran the sanitizer out of memory; its message also gave the target as 0
 * elements. Now the counts are compared first, and the message gives both
 * (fuzz/corpus/run/regress_reshape_huge_folded.onnx). */
static void test_reshape_folded_count_mismatch(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 2, (int64_t[]){1, 6});
    ob_init_float(m, "c", 2, (int64_t[]){1, 6}, NULL);
    ob_init_int64(m, "shape", 1, (int64_t[]){3}, (int64_t[]){100000, 100000, 10});
    ob_node(m, "Reshape", "n", "c,shape", "r");
    ob_node(m, "Add", "add", "x,r", "y");
    ob_output(m, "y", 2, NULL);
    expect_runner_refused(
        m, ORIGIN ": node 'n' (Reshape): cannot reshape 6 elements into 100000000000");
}

/* fuzz_run's finding: a Resize of a weight, folded at load, whose scales asked for 1.4e11
 * elements passed the 2^40 per-tensor bound, so the load ended in "out of memory" (an
 * abort under the sanitizer) instead of a reason. Folding now stops at 2^28 elements; and
 * a caller loading untrusted models bounds the folding itself with
 * cm_runner_load_buffer_bounded (fuzz/corpus/run/regress_resize_huge_folded.onnx). */
static Onnx__ModelProto *resize_of_weight(float scale)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 2, (int64_t[]){1, 4096});
    ob_init_float(m, "W", 4, (int64_t[]){4, 4, 1, 1}, NULL);
    ob_init_float(m, "scales", 1, (int64_t[]){4}, (float[]){1, 1, 2, scale});
    ob_node(m, "Resize", "up", "W,,scales", "z");
    ob_node(m, "Mul", "mul", "x,x", "y");
    ob_node(m, "ReduceSum", "sum", "z", "s");
    ob_output(m, "y", 2, NULL);
    ob_output(m, "s", 4, NULL);
    return m;
}

static void test_resize_folded_huge(void **state)
{
    (void)state;
    expect_runner_refused(resize_of_weight(8589934592.0f),
                          ORIGIN ": node 'up' (Resize): an output of 274877906944 elements "
                                 "exceeds the limit of 268435456 per tensor");

    /* 4 x 4 x 2 x 64 = 2048 elements: loads by default, refused under a bound of 1000 */
    size_t len;
    Onnx__ModelProto *m = resize_of_weight(64);
    uint8_t *buf = ob_pack(m, &len);
    ob_model_free(m);
    cm_runner *r = NULL;
    cm_error err = {0};
    assert_int_equal(cm_runner_load_buffer(buf, len, ORIGIN, NULL, &r, &err), CM_OK);
    cm_runner_free(r);
    r = NULL;
    assert_int_equal(cm_runner_load_buffer_bounded(buf, len, ORIGIN, NULL, 1000, &r, &err),
                     CM_EINPUT);
    assert_null(r);
    assert_contains(err.message, "node 'up' (Resize): an output of 2048 elements exceeds the "
                                 "limit of 1000 per tensor");
    /* the bound is the executor's from then on, not only the folding's */
    assert_int_equal(cm_runner_load_buffer_bounded(buf, len, ORIGIN, NULL, 2048, &r, &err),
                     CM_OK);
    cm_array *x = NULL, *y[2] = {0};
    assert_int_equal(cm_array_new(CM_DTYPE_FLOAT32, 2, (int64_t[]){1, 4096}, &x, &err),
                     CM_OK);
    assert_int_equal(cm_runner_execute(r, (const cm_array *const *)&x, 1, NULL, 2, y, &err),
                     CM_EINPUT);
    assert_contains(err.message, "exceeds the limit of 2048 per tensor");
    cm_array_free(x);
    cm_runner_free(r);
    free(buf);
}

/* ---- 1. Integer overflow in window arithmetic and constant folding ---- */

/* The reproducer: MaxPool with strides INT64_MAX and ceil_mode 1 computed
 * room + stride - 1 before checking the stride's range. */
static void test_pool_huge_stride_ceil(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    Onnx__NodeProto *n = one_node(m, "MaxPool", "x");
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){2, 2});
    ob_attr_ints(n, "strides", 2, (int64_t[]){INT64_MAX, INT64_MAX});
    ob_attr_int(n, "ceil_mode", 1);
    expect_refused(m, "node 'n' (MaxPool)", "must be at most 16777216");
}

static void test_window_huge_geometry(void **state)
{
    (void)state;
    /* dilation * (kernel - 1) */
    Onnx__ModelProto *m = ob_model_new();
    ob_init_float(m, "W", 4, (int64_t[]){2, 3, 3, 3}, NULL);
    Onnx__NodeProto *n = one_node(m, "Conv", "x,W");
    ob_attr_ints(n, "dilations", 2, (int64_t[]){INT64_MAX / 2, 1});
    expect_refused(m, "node 'n' (Conv)", "must be at most 16777216");

    /* in + pad_begin + pad_end */
    m = ob_model_new();
    ob_init_float(m, "W", 4, (int64_t[]){2, 3, 3, 3}, NULL);
    n = one_node(m, "Conv", "x,W");
    ob_attr_ints(n, "pads", 4, (int64_t[]){INT64_MAX, 0, INT64_MAX, 0});
    expect_refused(m, "node 'n' (Conv)", "must be at most 16777216");

    /* a kernel whose span overflows */
    m = ob_model_new();
    n = one_node(m, "AveragePool", "x");
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){INT64_MAX, 2});
    ob_attr_ints(n, "dilations", 2, (int64_t[]){4, 1});
    expect_refused(m, "node 'n' (AveragePool)", "must be at most 16777216");

    /* SAME padding: in + stride - 1 */
    m = ob_model_new();
    n = one_node(m, "MaxPool", "x");
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){3, 3});
    ob_attr_ints(n, "strides", 2, (int64_t[]){INT64_MAX, 1});
    ob_attr_string(n, "auto_pad", "SAME_UPPER");
    expect_refused(m, "node 'n' (MaxPool)", "must be at most 16777216");
}

/* The largest geometry still accepted gives exact shapes. */
static void test_window_limit_accepted(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    Onnx__NodeProto *n = one_node(m, "MaxPool", "x");
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){2, 2});
    ob_attr_ints(n, "strides", 2, (int64_t[]){1 << 24, 1 << 24});
    ob_attr_int(n, "ceil_mode", 1);
    cm_graph *g = expect_loads(m);
    assert_int_equal(g->layers[0].out_shape.h, 1);
    assert_int_equal(g->layers[0].stride[0], 1 << 24);
    cm_graph_free(g);
}

/* Reshape's product of known target dims overflowed (and the -1 inference then
 * divided by the wrapped product, 0 here). */
static void test_reshape_known_product_overflow(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 3, 8, 8});
    const int64_t big = (int64_t)1 << 24;
    ob_init_int64(m, "shape", 1, (int64_t[]){5}, (int64_t[]){big, big, big, big, -1});
    ob_node(m, "Reshape", "n", "x,shape", "y");
    ob_output(m, "y", 5, NULL);
    expect_refused(m, "node 'n' (Reshape)", "target shape is too large");
}

/* (end - start + step - 1) / step overflowed for a step near INT64_MAX; the slice is
 * one element. */
static void test_slice_huge_step(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 4, 2, 2});
    ob_init_float(m, "W", 2, (int64_t[]){16, 3}, NULL);
    ob_init_int64(m, "starts", 1, (int64_t[]){1}, (int64_t[]){0});
    ob_init_int64(m, "ends", 1, (int64_t[]){1}, (int64_t[]){INT64_MAX});
    ob_init_int64(m, "axes", 1, (int64_t[]){1}, (int64_t[]){0});
    ob_init_int64(m, "steps", 1, (int64_t[]){1}, (int64_t[]){INT64_MAX});
    ob_init_int64(m, "m1", 1, (int64_t[]){1}, (int64_t[]){-1});
    ob_node(m, "Shape", "shape", "x", "s");
    ob_node(m, "Slice", "slice", "s,starts,ends,axes,steps", "batch"); /* [1] */
    Onnx__NodeProto *n = ob_node(m, "Concat", "concat", "batch,m1", "target");
    ob_attr_int(n, "axis", 0);
    ob_node(m, "Reshape", "flatten", "x,target", "flat");
    ob_node(m, "MatMul", "fc", "flat,W", "y");
    ob_output(m, "y", 2, NULL);
    cm_graph *g = expect_loads(m);
    const cm_layer *fc = layer_named(g, "fc");
    assert_int_equal(fc->macs, 16 * 3);
    cm_graph_free(g);
}

/* Broadcasting two bounded constants multiplied their dims unchecked (2^64 here). */
static void test_broadcast_product_overflow(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 3, 8, 8});
    ob_init_external(m, "a", 3, (int64_t[]){(int64_t)1 << 24, 1, (int64_t)1 << 16}, "a.bin");
    ob_init_external(m, "b", 3, (int64_t[]){1, (int64_t)1 << 24, 1}, "b.bin");
    ob_node(m, "Add", "n", "a,b", "c");
    ob_node(m, "Relu", "relu", "x", "y");
    ob_output(m, "y", 4, NULL);
    expect_refused(m, "broadcast constant", "too large");
}

/* Concat of constants copied every input at the first one's strides: a narrower
 * second input was read past its end. */
static void test_concat_const_mismatched_dims(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 3, 8, 8});
    ob_init_float(m, "a", 2, (int64_t[]){2, 3}, NULL);
    ob_init_float(m, "b", 2, (int64_t[]){2, 1}, NULL);
    Onnx__NodeProto *n = ob_node(m, "Concat", "n", "a,b", "c");
    ob_attr_int(n, "axis", 0);
    ob_node(m, "Relu", "relu", "x", "y");
    ob_output(m, "y", 4, NULL);
    expect_refused(m, "node 'n' (Concat)", "input 'b' differs from the first in dimension 1");
}

/* An axis of 2^32 + 1 was narrowed to int as 1, a valid axis. */
static void test_axis_narrowing(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 3, 8, 8});
    ob_init_int64(m, "data", 2, (int64_t[]){2, 2}, (int64_t[]){1, 2, 3, 4});
    ob_init_int64(m, "idx", 0, NULL, (int64_t[]){0});
    Onnx__NodeProto *n = ob_node(m, "Gather", "n", "data,idx", "g");
    ob_attr_int(n, "axis", ((int64_t)1 << 32) + 1);
    ob_node(m, "Relu", "relu", "x", "y");
    ob_output(m, "y", 4, NULL);
    expect_refused(m, "node 'n' (Gather)", "axis out of range");
}

/* Nine squeeze axes overran the eight-entry axes buffer. */
static void test_squeeze_too_many_axes(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_opset(m, 11);
    Onnx__NodeProto *n = one_node(m, "Squeeze", "x");
    ob_attr_ints(n, "axes", 9, (int64_t[]){0, 0, 0, 0, 0, 0, 0, 0, 0});
    expect_refused(m, "node 'n' (Squeeze)", "axes for rank 4");
}

/* Two convolutions of 2^63 MACs each: the network total does not fit 64 bits. The
 * weights are external and absent, so nothing large is allocated. */
static void test_total_macs_overflow(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    const int64_t side = (int64_t)1 << 20;
    ob_input(m, "x", 4, (int64_t[]){1, 1, side, side});
    ob_init_external(m, "W", 4, (int64_t[]){1, 1, 4096, 2048}, "w.bin");
    const int64_t pads[4] = {2048, 1024, 2047, 1023}; /* output side stays 2^20 */
    Onnx__NodeProto *n = ob_node(m, "Conv", "c1", "x,W", "a");
    ob_attr_ints(n, "pads", 4, pads);
    n = ob_node(m, "Conv", "c2", "a,W", "y");
    ob_attr_ints(n, "pads", 4, pads);
    ob_output(m, "y", 4, NULL);
    expect_refused(m, "total operation or parameter count overflows 64 bits", NULL);
}

/* Graphs built through the API: totals saturate instead of wrapping. */
static void test_totals_saturate(void **state)
{
    (void)state;
    cm_graph *g = cm_graph_new("api");
    assert_non_null(g);
    for (int i = 0; i < 2; i++) {
        cm_layer *l = cm_graph_add_layer(g, i ? "b" : "a", CM_OP_CONV);
        assert_non_null(l);
        l->macs = UINT64_MAX - 1;
        l->params = 7;
    }
    cm_graph_totals t = cm_graph_totals_of(g);
    assert_true(t.macs == UINT64_MAX);
    assert_int_equal(t.params, 14);
    cm_error err = {0};
    assert_int_equal(cm_graph_check_totals(g, &err), CM_EINPUT);
    assert_contains(err.message, "overflows 64 bits");
    g->layers[1].groups = 0; /* divided by before */
    assert_int_equal(cm_layer_compute_cost(&g->layers[1], &err), CM_EINPUT);
    assert_contains(err.message, "group count 0");
    cm_graph_free(g);
}

/* ---- 2. Bit widths: weights and activations 1-32, biases 1-64 ---- */

/* x -> Quant(act_bits) -> Conv(W quantised to w_bits, B quantised to b_bits) -> y */
static Onnx__ModelProto *quant_conv(int act_bits, int w_bits, int b_bits)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 3, 8, 8});
    ob_init_float(m, "W", 4, (int64_t[]){4, 3, 3, 3}, NULL);
    ob_init_float(m, "B", 1, (int64_t[]){4}, NULL);
    ob_init_float(m, "scale", 0, NULL, (float[]){0.125f});
    ob_init_float(m, "zero", 0, NULL, (float[]){0.0f});
    ob_init_float(m, "abits", 0, NULL, (float[]){(float)act_bits});
    ob_init_float(m, "wbits", 0, NULL, (float[]){(float)w_bits});
    ob_init_float(m, "bbits", 0, NULL, (float[]){(float)b_bits});
    ob_domain(m, ob_node(m, "Quant", "qx", "x,scale,zero,abits", "xq"), QONNX);
    ob_domain(m, ob_node(m, "Quant", "qw", "W,scale,zero,wbits", "Wq"), QONNX);
    ob_domain(m, ob_node(m, "Quant", "qb", "B,scale,zero,bbits", "Bq"), QONNX);
    ob_node(m, "Conv", "conv", "xq,Wq,Bq", "y");
    ob_output(m, "y", 4, NULL);
    return m;
}

static void test_bits_wide_activation_refused(void **state)
{
    (void)state;
    expect_refused(quant_conv(56, 8, 32), "node 'qx' (Quant)", "1-32");
    expect_refused(quant_conv(33, 8, 32), "node 'qx' (Quant)", "bit width 33");
}

static void test_bits_wide_weights_refused(void **state)
{
    (void)state;
    expect_refused(quant_conv(8, 56, 32), "node 'conv' (Conv)", "weights 'Wq' are quantised to 56 bits");
    expect_refused(quant_conv(8, 33, 32), "node 'conv' (Conv)", "1-32");
    expect_refused(quant_conv(8, 8, 65), "node 'qb' (Quant)", "1-64");
}

static void test_bits_limits_accepted(void **state)
{
    (void)state;
    cm_graph *g = expect_loads(quant_conv(32, 32, 64));
    const cm_layer *conv = layer_named(g, "conv");
    assert_int_equal(conv->in_q.bits, 32);
    assert_int_equal(conv->weight_q.bits, 32);
    assert_int_equal(conv->bias_q.bits, 64);
    cm_graph_free(g);
}

/* A constant operand of Add/Mul is read as the layer's weight width. */
static void test_bits_wide_const_operand_refused(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 3, 8, 8});
    ob_init_float(m, "k", 4, (int64_t[]){1, 3, 1, 1}, NULL);
    ob_init_float(m, "scale", 0, NULL, (float[]){1.0f});
    ob_init_float(m, "zero", 0, NULL, (float[]){0.0f});
    ob_init_float(m, "bits", 0, NULL, (float[]){48.0f});
    ob_domain(m, ob_node(m, "Quant", "qk", "k,scale,zero,bits", "kq"), QONNX);
    ob_node(m, "Mul", "n", "x,kq", "y");
    ob_output(m, "y", 4, NULL);
    expect_refused(m, "node 'n' (Mul)", "1-32");
}

/* FINN data types: INT64 is too wide; INT4294967304 was read by sscanf("%d"), whose
 * overflow is undefined (glibc wrapped it to INT8). */
static void test_bits_finn_dtype(void **state)
{
    (void)state;
    const char *names[] = {"INT64", "INT4294967304", "UINT0", "INT", "I"};
    const char *want[] = {"1-32", "unknown out_dtype", "bit width 0", "unknown out_dtype",
                          "unknown out_dtype"};
    for (int i = 0; i < 5; i++) {
        Onnx__ModelProto *m = ob_model_new();
        ob_input(m, "x", 4, (int64_t[]){1, 3, 8, 8});
        ob_init_float(m, "T", 2, (int64_t[]){3, 15}, NULL);
        Onnx__NodeProto *n = ob_node(m, "MultiThreshold", "mt", "x,T", "y");
        ob_domain(m, n, QONNX);
        ob_attr_string(n, "out_dtype", names[i]);
        ob_node(m, "Relu", "relu", "y", "z");
        ob_output(m, "z", 4, NULL);
        expect_refused(m, "node 'mt' (MultiThreshold)", want[i]);
    }
}

/* FINN's LUT formula at the widest accepted widths: 2^32 thresholds per PE. A node's
 * count saturates at 2^32 (it was INT64_MAX, and two such nodes summed overflowed
 * into a small, feasible-looking total). */
static void test_finn_lut_saturates(void **state)
{
    (void)state;
    cm_finn_node n;
    cm_finn_node_init(&n, CM_FINN_MVAU);
    n.mw = n.mh = 1 << 20;
    n.weight_bits = n.in_bits = n.out_bits = 32;
    n.pe = n.simd = 1 << 20;
    cm_finn_node_apply_samo_styles(&n);
    cm_block_cost c;
    cm_finn_node_cost(&n, &c);
    assert_true(c.res.lut == (int64_t)1 << 32);
    assert_true(c.res.dsp > 0 && c.res.dsp <= (int64_t)1 << 32);

    cm_finn_node_init(&n, CM_FINN_VVAU);
    n.channels = INT32_MAX;
    n.kernel[0] = n.kernel[1] = INT32_MAX; /* k*k*C passes 2^63 */
    n.weight_bits = n.in_bits = n.out_bits = 32;
    cm_finn_node_cost(&n, &c);
    assert_true(c.res.lut == (int64_t)1 << 32);
    assert_true(c.res.bram18 <= (int64_t)1 << 32);
    assert_true(c.cycles > 1e18);

    /* Ordinary widths keep the exact formula: MVAU 4x4 at 4 bits, as in test_hw_finn. */
    cm_finn_node_init(&n, CM_FINN_MVAU);
    n.mw = n.mh = 4;
    cm_finn_node_cost(&n, &c);
    assert_true(c.res.lut > 300 && c.res.lut < 2000);
}

/* ---- 3. Opsets ---- */

static Onnx__ModelProto *relu_model(void)
{
    Onnx__ModelProto *m = ob_model_new();
    one_node(m, "Relu", "x");
    return m;
}

static void test_opset_out_of_range(void **state)
{
    (void)state;
    const int64_t bad[] = {0, -1, 1000000, 6, 22};
    for (int i = 0; i < 5; i++) {
        Onnx__ModelProto *m = relu_model();
        ob_opset(m, bad[i]);
        char want[64];
        snprintf(want, sizeof want, "opset %lld is outside", (long long)bad[i]);
        expect_refused(m, want, "7-21");
    }
    for (int64_t v = 7; v <= 21; v += 14) {
        Onnx__ModelProto *m = relu_model();
        ob_opset(m, v);
        cm_graph_free(expect_loads(m));
    }
}

static void test_opset_missing(void **state)
{
    (void)state;
    Onnx__ModelProto *m = relu_model();
    for (size_t i = 0; i < m->n_opset_import; i++)
        onnx__operator_set_id_proto__free_unpacked(m->opset_import[i], NULL);
    m->n_opset_import = 0;
    expect_refused(m, "imports no opset of the default ONNX domain", "7-21");

    /* Only a custom domain imported. */
    m = relu_model();
    free(m->opset_import[0]->domain);
    m->opset_import[0]->domain = strdup("com.example");
    expect_refused(m, "imports no opset of the default ONNX domain", NULL);

    /* The default domain twice, disagreeing. */
    m = relu_model();
    ob_domain(m, ob_node(m, "Relu", "r2", "y", "z"), "ai.onnx");
    for (size_t i = 0; i < m->n_opset_import; i++)
        if (m->opset_import[i]->domain && strcmp(m->opset_import[i]->domain, "ai.onnx") == 0)
            m->opset_import[i]->version = 11;
    expect_refused(m, "imported twice", NULL);
}

/* Squeeze: axes attribute before 13, input from 13. */
static void test_opset_squeeze_forms(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new(); /* opset 13 */
    ob_input(m, "x", 4, (int64_t[]){1, 3, 1, 8});
    Onnx__NodeProto *n = ob_node(m, "Squeeze", "sq", "x", "s");
    ob_attr_ints(n, "axes", 1, (int64_t[]){2});
    ob_node(m, "Relu", "relu", "s", "y");
    ob_output(m, "y", 3, NULL);
    expect_refused(m, "node 'sq' (Squeeze)", "axes is an input (input 1) from opset 13");

    m = ob_model_new();
    ob_opset(m, 12);
    ob_input(m, "x", 4, (int64_t[]){1, 3, 1, 8});
    ob_init_int64(m, "axes", 1, (int64_t[]){1}, (int64_t[]){2});
    ob_node(m, "Squeeze", "sq", "x,axes", "s");
    ob_node(m, "Relu", "relu", "s", "y");
    ob_output(m, "y", 3, NULL);
    expect_refused(m, "node 'sq' (Squeeze)", "axes is an attribute before opset 13");

    /* Each in its own opset loads, to the same shape. */
    for (int v = 12; v <= 13; v++) {
        m = ob_model_new();
        ob_opset(m, v);
        ob_input(m, "x", 4, (int64_t[]){1, 3, 1, 8});
        if (v == 12) {
            n = ob_node(m, "Squeeze", "sq", "x", "s");
            ob_attr_ints(n, "axes", 1, (int64_t[]){2});
        } else {
            ob_init_int64(m, "axes", 1, (int64_t[]){1}, (int64_t[]){2});
            ob_node(m, "Squeeze", "sq", "x,axes", "s");
        }
        ob_node(m, "Relu", "relu", "s", "y");
        ob_output(m, "y", 3, NULL);
        cm_graph *g = expect_loads(m);
        assert_int_equal(g->layers[0].out_shape.c, 3);
        assert_int_equal(g->layers[0].out_shape.h, 8);
        cm_graph_free(g);
    }
}

static void test_opset_unsqueeze_forms(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_opset(m, 11);
    ob_input(m, "x", 3, (int64_t[]){1, 3, 8});
    ob_init_int64(m, "axes", 1, (int64_t[]){1}, (int64_t[]){2});
    ob_node(m, "Unsqueeze", "unsq", "x,axes", "u");
    ob_node(m, "Relu", "relu", "u", "y");
    ob_output(m, "y", 4, NULL);
    expect_refused(m, "node 'unsq' (Unsqueeze)", "axes is an attribute before opset 13");

    m = ob_model_new();
    ob_opset(m, 17);
    ob_input(m, "x", 3, (int64_t[]){1, 3, 8});
    Onnx__NodeProto *n = ob_node(m, "Unsqueeze", "unsq", "x", "u");
    ob_attr_ints(n, "axes", 1, (int64_t[]){2});
    ob_node(m, "Relu", "relu", "u", "y");
    ob_output(m, "y", 4, NULL);
    expect_refused(m, "node 'unsq' (Unsqueeze)", "axes is an input (input 1) from opset 13");
}

/* ReduceMean: axes attribute before 18, input from 18. */
static void test_opset_reduce_mean_forms(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_opset(m, 18);
    Onnx__NodeProto *n = one_node(m, "ReduceMean", "x");
    ob_attr_ints(n, "axes", 2, (int64_t[]){2, 3});
    expect_refused(m, "node 'n' (ReduceMean)", "axes is an input (input 1) from opset 18");

    m = ob_model_new(); /* 13 */
    ob_init_int64(m, "axes", 1, (int64_t[]){2}, (int64_t[]){2, 3});
    one_node(m, "ReduceMean", "x,axes");
    expect_refused(m, "node 'n' (ReduceMean)", "axes is an attribute before opset 18");

    m = ob_model_new();
    ob_opset(m, 18);
    ob_init_int64(m, "axes", 1, (int64_t[]){2}, (int64_t[]){2, 3});
    one_node(m, "ReduceMean", "x,axes");
    cm_graph *g = expect_loads(m);
    assert_int_equal(g->layers[0].op, CM_OP_GLOBAL_POOL_AVG);
    cm_graph_free(g);

    m = ob_model_new();
    n = one_node(m, "ReduceMean", "x");
    ob_attr_ints(n, "axes", 2, (int64_t[]){2, 3});
    g = expect_loads(m);
    assert_int_equal(g->layers[0].op, CM_OP_GLOBAL_POOL_AVG);
    cm_graph_free(g);
}

/* ReduceMean over H, W without keepdims (MnasNet's head, issue 16): a global average
 * pool whose output is N x C, and the executor gives the per-channel means. */
static void test_reduce_mean_without_keepdims(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_opset(m, 13);
    ob_input(m, "x", 4, (int64_t[]){1, 3, 2, 2});
    Onnx__NodeProto *n = ob_node(m, "ReduceMean", "n", "x", "y");
    ob_attr_ints(n, "axes", 2, (int64_t[]){2, 3});
    ob_attr_int(n, "keepdims", 0);
    ob_output(m, "y", 2, NULL);
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    cm_graph *g = expect_loads(m);
    assert_int_equal(g->layers[0].op, CM_OP_GLOBAL_POOL_AVG);
    assert_int_equal(g->layers[0].out_shape.c, 3);
    assert_int_equal(g->layers[0].out_shape.h, 1);
    assert_int_equal(g->layers[0].out_shape.w, 1);
    cm_graph_free(g);

    cm_runner *r = NULL;
    cm_error err = {0};
    assert_int_equal(cm_runner_load_buffer(buf, len, ORIGIN, "/nonexistent", &r, &err), CM_OK);
    free(buf);
    cm_array *x = NULL, *y = NULL;
    assert_int_equal(cm_array_new(CM_DTYPE_FLOAT32, 4, (int64_t[]){1, 3, 2, 2}, &x, &err), CM_OK);
    for (int k = 0; k < 12; k++)
        x->f[k] = k; /* channel c holds 4c .. 4c + 3: mean 4c + 1.5 */
    assert_int_equal(cm_runner_execute(r, (const cm_array *const[]){x}, 1, NULL, 1, &y, &err), CM_OK);
    assert_int_equal(y->rank, 2);
    assert_int_equal(y->dims[0], 1);
    assert_int_equal(y->dims[1], 3);
    for (int c = 0; c < 3; c++)
        assert_float_equal(y->f[c], 4.0 * c + 1.5, 1e-6);
    cm_array_free(x);
    cm_array_free(y);
    cm_runner_free(r);

    m = ob_model_new(); /* keepdims must be 0 or 1 */
    ob_opset(m, 13);
    n = one_node(m, "ReduceMean", "x");
    ob_attr_ints(n, "axes", 2, (int64_t[]){2, 3});
    ob_attr_int(n, "keepdims", 2);
    expect_refused(m, "node 'n' (ReduceMean)", "spatial axes");
}

/* Pad: pads (and value) attributes before 11, inputs from 11. */
static void test_opset_pad_forms(void **state)
{
    (void)state;
    const int64_t pads[8] = {0, 0, 1, 1, 0, 0, 1, 1};
    Onnx__ModelProto *m = ob_model_new();
    ob_opset(m, 11);
    Onnx__NodeProto *n = one_node(m, "Pad", "x");
    ob_attr_ints(n, "pads", 8, pads);
    expect_refused(m, "node 'n' (Pad)", "pads is an input (input 1) from opset 11");

    m = ob_model_new();
    ob_opset(m, 10);
    ob_init_int64(m, "pads", 1, (int64_t[]){8}, pads);
    one_node(m, "Pad", "x,pads");
    expect_refused(m, "node 'n' (Pad)", "pads is an attribute before opset 11");

    m = ob_model_new();
    ob_opset(m, 13);
    ob_init_int64(m, "pads", 1, (int64_t[]){8}, pads);
    n = one_node(m, "Pad", "x,pads");
    ob_attr_float(n, "value", 0.0f);
    expect_refused(m, "node 'n' (Pad)", "value is an input (input 2) from opset 11");

    m = ob_model_new();
    ob_opset(m, 10);
    n = one_node(m, "Pad", "x");
    ob_attr_ints(n, "pads", 8, pads);
    cm_graph *g = expect_loads(m);
    assert_int_equal(g->layers[0].out_shape.h, 10);
    cm_graph_free(g);
}

/* Split has no handler, but its form is checked first, so the message says why. */
static void test_opset_split_form(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    Onnx__NodeProto *n = one_node(m, "Split", "x");
    ob_attr_ints(n, "split", 2, (int64_t[]){1, 2});
    expect_refused(m, "node 'n' (Split)", "split is an input (input 1) from opset 13");
}

/* ---- 4. Graph input element types ---- */

static void test_input_non_numeric(void **state)
{
    (void)state;
    const int32_t types[] = {8, 9, 14, 0, 99};
    const char *names[] = {"string", "bool", "complex64", "undefined", "unknown"};
    for (int i = 0; i < 5; i++) {
        Onnx__ModelProto *m = ob_model_new();
        one_node(m, "Relu", "x");
        Onnx__TypeProto__Tensor *t = m->graph->input[0]->type->tensor_type;
        t->elem_type = types[i];
        t->has_elem_type = types[i] != 0;
        expect_refused(m, "graph input 'x'", names[i]);
    }
    const int32_t ok[] = {1, 2, 3, 7, 10, 11, 16};
    for (int i = 0; i < 7; i++) {
        Onnx__ModelProto *m = ob_model_new();
        one_node(m, "Relu", "x");
        m->graph->input[0]->type->tensor_type->elem_type = ok[i];
        cm_graph_free(expect_loads(m));
    }
}

/* ---- 5. Pads, strides and dilations: one value per spatial axis (pads two) ---- */

static void test_conv_two_pads(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_init_float(m, "W", 4, (int64_t[]){2, 3, 3, 3}, NULL);
    Onnx__NodeProto *n = one_node(m, "Conv", "x,W");
    ob_attr_ints(n, "pads", 2, (int64_t[]){1, 1});
    expect_refused(m, "node 'n' (Conv)", "pads must have 4 values");

    m = ob_model_new();
    n = one_node(m, "MaxPool", "x");
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){2, 2});
    ob_attr_ints(n, "pads", 3, (int64_t[]){1, 1, 1});
    expect_refused(m, "node 'n' (MaxPool)", "pads must have 4 values");

    m = ob_model_new();
    ob_init_float(m, "W", 4, (int64_t[]){2, 3, 3, 3}, NULL);
    n = one_node(m, "Conv", "x,W");
    ob_attr_ints(n, "strides", 1, (int64_t[]){2});
    expect_refused(m, "node 'n' (Conv)", "strides and dilations must have 2 values");

    m = ob_model_new();
    ob_init_float(m, "W", 4, (int64_t[]){2, 3, 3, 3}, NULL);
    n = one_node(m, "Conv", "x,W");
    ob_attr_ints(n, "kernel_shape", 1, (int64_t[]){3});
    expect_refused(m, "node 'n' (Conv)", "kernel_shape disagrees");

    /* Four pads on a 2-D conv, two on a 1-D one, load. */
    m = ob_model_new();
    ob_init_float(m, "W", 4, (int64_t[]){2, 3, 3, 3}, NULL);
    n = one_node(m, "Conv", "x,W");
    ob_attr_ints(n, "pads", 4, (int64_t[]){1, 0, 1, 0});
    cm_graph *g = expect_loads(m);
    assert_int_equal(g->layers[0].out_shape.h, 8);
    assert_int_equal(g->layers[0].out_shape.w, 6);
    cm_graph_free(g);

    m = ob_model_new();
    ob_input(m, "x", 3, (int64_t[]){1, 3, 8});
    ob_init_float(m, "W", 3, (int64_t[]){2, 3, 3}, NULL);
    n = ob_node(m, "Conv", "n", "x,W", "y");
    ob_attr_ints(n, "pads", 2, (int64_t[]){1, 1});
    ob_output(m, "y", 3, NULL);
    g = expect_loads(m);
    assert_int_equal(g->layers[0].out_shape.h, 8);
    cm_graph_free(g);
}

/* ---- 6. Dead branches ---- */

static void test_dead_branches_removed(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 3, 8, 8});
    ob_init_float(m, "W", 4, (int64_t[]){4, 3, 3, 3}, NULL);
    ob_init_float(m, "s", 1, (int64_t[]){4}, NULL);
    ob_init_float(m, "b", 1, (int64_t[]){4}, NULL);
    ob_init_float(m, "mean", 1, (int64_t[]){4}, NULL);
    ob_init_float(m, "var", 1, (int64_t[]){4}, (float[]){1, 2, 3, 4});
    ob_node(m, "Conv", "conv", "x,W", "c");
    ob_node(m, "BatchNormalization", "bn", "c,s,b,mean,var", "y");
    /* Two layers whose outputs reach no graph output. */
    ob_node(m, "Relu", "dead_relu", "c", "d1");
    Onnx__NodeProto *n = ob_node(m, "MaxPool", "dead_pool", "d1", "d2");
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){2, 2});
    ob_output(m, "y", 4, NULL);
    cm_graph *g = expect_loads(m);
    assert_int_equal(g->n_removed_unreachable, 2);
    /* With the dead consumer gone the batch norm folds into the conv. */
    assert_int_equal(g->n_layers, 1);
    assert_string_equal(g->layers[0].name, "conv");
    assert_int_equal(g->n_outputs, 1);
    assert_int_equal(g->outputs[0], 0);
    cm_graph_totals t = cm_graph_totals_of(g);
    assert_int_equal(t.macs, 4 * 6 * 6 * 27);
    cm_graph_free(g);

    /* A graph with nothing dead reports 0; a dead layer before a live one (topological
     * order) renumbers the live one's inputs. */
    m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 3, 8, 8});
    ob_node(m, "Sigmoid", "dead", "x", "d");
    ob_node(m, "Relu", "r1", "x", "a");
    ob_node(m, "Tanh", "r2", "a", "y");
    ob_output(m, "y", 4, NULL);
    g = expect_loads(m);
    assert_int_equal(g->n_removed_unreachable, 1);
    assert_int_equal(g->n_layers, 2);
    assert_string_equal(g->layers[1].name, "r2");
    assert_int_equal(g->layers[1].inputs[0], 0);
    assert_int_equal(g->outputs[0], 1);
    cm_graph_free(g);

    g = expect_loads(relu_model());
    assert_int_equal(g->n_removed_unreachable, 0);
    cm_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_with_control_characters),
        cmocka_unit_test(test_empty_tensor_huge_dims),
        cmocka_unit_test(test_reshape_folded_count_mismatch),
        cmocka_unit_test(test_resize_folded_huge),
        cmocka_unit_test(test_pool_huge_stride_ceil),
        cmocka_unit_test(test_window_huge_geometry),
        cmocka_unit_test(test_window_limit_accepted),
        cmocka_unit_test(test_reshape_known_product_overflow),
        cmocka_unit_test(test_slice_huge_step),
        cmocka_unit_test(test_broadcast_product_overflow),
        cmocka_unit_test(test_concat_const_mismatched_dims),
        cmocka_unit_test(test_axis_narrowing),
        cmocka_unit_test(test_squeeze_too_many_axes),
        cmocka_unit_test(test_total_macs_overflow),
        cmocka_unit_test(test_totals_saturate),
        cmocka_unit_test(test_bits_wide_activation_refused),
        cmocka_unit_test(test_bits_wide_weights_refused),
        cmocka_unit_test(test_bits_limits_accepted),
        cmocka_unit_test(test_bits_wide_const_operand_refused),
        cmocka_unit_test(test_bits_finn_dtype),
        cmocka_unit_test(test_finn_lut_saturates),
        cmocka_unit_test(test_opset_out_of_range),
        cmocka_unit_test(test_opset_missing),
        cmocka_unit_test(test_opset_squeeze_forms),
        cmocka_unit_test(test_opset_unsqueeze_forms),
        cmocka_unit_test(test_opset_reduce_mean_forms),
        cmocka_unit_test(test_reduce_mean_without_keepdims),
        cmocka_unit_test(test_opset_pad_forms),
        cmocka_unit_test(test_opset_split_form),
        cmocka_unit_test(test_input_non_numeric),
        cmocka_unit_test(test_conv_two_pads),
        cmocka_unit_test(test_dead_branches_removed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
