/* Channel routing on models built in the test: Split on channels (sizes as attribute,
 * as input, equal parts, num_outputs) and Slice of a feature map's channels become
 * slice layers with the channel ranges and MACs worked out by hand; ShuffleNet's
 * Reshape-Transpose-Reshape becomes one shuffle layer; a split or slice on a spatial
 * axis and other 5-axis reshapes are refused naming the node; and the reference
 * executor's Split, and its run of the shuffle pattern, give the values expected. */
#include "onnx_builder.h"
#include "test_support.h"

#include <cnnmap/model.h>
#include <cnnmap/run.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void assert_contains(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("\"%s\" does not contain \"%s\"", text, part);
}

static cm_status load(Onnx__ModelProto *m, cm_graph **g, cm_error *err)
{
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    cm_status st = cm_model_load_buffer(buf, len, "split.onnx", NULL, g, err);
    free(buf);
    return st;
}

static cm_graph *load_ok(Onnx__ModelProto *m)
{
    cm_graph *g = NULL;
    cm_error err = {0};
    if (load(m, &g, &err) != CM_OK)
        fail_msg("%s", err.message);
    return g;
}

/* x: 1 x c x 4 x 4 split into n parts, each through a 1x1 convolution to 2 channels,
 * concatenated. Split outputs are s0, s1, ...; the caller sets the split's form. */
static Onnx__ModelProto *split_model(int64_t opset, int64_t c, int n, Onnx__NodeProto **split,
                                     const char *split_inputs)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_opset(m, opset);
    const int64_t xd[4] = {1, c, 4, 4};
    ob_input(m, "x", 4, xd);
    char outs[128] = "";
    for (int k = 0; k < n; k++)
        snprintf(outs + strlen(outs), sizeof outs - strlen(outs), "%ss%d", k ? "," : "", k);
    *split = ob_node(m, "Split", "split", split_inputs, outs);
    ob_attr_int(*split, "axis", 1);
    return m;
}

/* The convolutions after the split, once its sizes are known. */
static void finish_split_model(Onnx__ModelProto *m, const int64_t *sizes, int n)
{
    char cat[128] = "";
    for (int k = 0; k < n; k++) {
        char s[16], w[16], y[16], ins[64];
        snprintf(s, sizeof s, "s%d", k);
        snprintf(w, sizeof w, "w%d", k);
        snprintf(y, sizeof y, "y%d", k);
        const int64_t wd[4] = {2, sizes[k], 1, 1};
        ob_init_float(m, w, 4, wd, NULL);
        snprintf(ins, sizeof ins, "%s,%s", s, w);
        ob_node(m, "Conv", y, ins, y);
        snprintf(cat + strlen(cat), sizeof cat - strlen(cat), "%s%s", k ? "," : "", y);
    }
    Onnx__NodeProto *c = ob_node(m, "Concat", "cat", cat, "out");
    ob_attr_int(c, "axis", 1);
    ob_output(m, "out", 4, NULL);
}

/* Slices s0.. carry the channel ranges of `sizes`; each convolution's MACs are
 * 2 outputs x 16 pixels x its slice's channels. */
static void check_split(cm_graph *g, int64_t c, const int64_t *sizes, int n)
{
    int64_t offset = 0;
    int seen = 0;
    uint64_t macs = 0;
    for (int i = 0; i < g->n_layers; i++) {
        const cm_layer *l = &g->layers[i];
        if (l->op == CM_OP_CONV)
            macs += l->macs;
        if (l->op != CM_OP_SLICE)
            continue;
        assert_int_equal(l->in_shape.c, c);
        assert_int_equal(l->out_shape.c, sizes[seen]);
        assert_int_equal(l->out_shape.h, 4);
        assert_int_equal(l->channel_offset, offset);
        assert_int_equal(l->macs, 0);
        char name[32];
        snprintf(name, sizeof name, "split_%d", seen);
        assert_string_equal(l->name, name);
        offset += sizes[seen++];
    }
    assert_int_equal(seen, n);
    assert_int_equal(macs, 2 * 16 * (uint64_t)c);
    cm_graph_free(g);
}

static void test_split_attribute(void **state)
{
    (void)state;
    Onnx__NodeProto *s;
    const int64_t sizes[2] = {2, 4};
    Onnx__ModelProto *m = split_model(11, 6, 2, &s, "x");
    ob_attr_ints(s, "split", 2, sizes);
    finish_split_model(m, sizes, 2);
    cm_graph *g = load_ok(m);
    ob_model_free(m);
    check_split(g, 6, sizes, 2);
}

static void test_split_input(void **state)
{
    (void)state;
    Onnx__NodeProto *s;
    const int64_t sizes[3] = {4, 1, 1}, n = 3;
    Onnx__ModelProto *m = split_model(13, 6, 3, &s, "x,sizes");
    ob_init_int64(m, "sizes", 1, &n, sizes);
    finish_split_model(m, sizes, 3);
    cm_graph *g = load_ok(m);
    ob_model_free(m);
    check_split(g, 6, sizes, 3);
}

static void test_split_equal(void **state)
{
    (void)state;
    Onnx__NodeProto *s;
    const int64_t sizes[3] = {2, 2, 2};
    Onnx__ModelProto *m = split_model(13, 6, 3, &s, "x");
    finish_split_model(m, sizes, 3);
    cm_graph *g = load_ok(m);
    ob_model_free(m);
    check_split(g, 6, sizes, 3);
}

/* Opset 18: num_outputs parts of ceil(C / n), the last one smaller. */
static void test_split_num_outputs(void **state)
{
    (void)state;
    Onnx__NodeProto *s;
    const int64_t sizes[2] = {3, 2};
    Onnx__ModelProto *m = split_model(18, 5, 2, &s, "x");
    ob_attr_int(s, "num_outputs", 2);
    finish_split_model(m, sizes, 2);
    cm_graph *g = load_ok(m);
    ob_model_free(m);
    check_split(g, 5, sizes, 2);
}

static void expect_refusal(Onnx__ModelProto *m, const char *node, const char *part)
{
    cm_graph *g = NULL;
    cm_error err = {0};
    assert_int_equal(load(m, &g, &err), CM_EINPUT);
    ob_model_free(m);
    assert_null(g);
    assert_contains(err.message, node);
    assert_contains(err.message, part);
}

static void test_split_refusals(void **state)
{
    (void)state;
    Onnx__NodeProto *s;
    const int64_t sizes[2] = {2, 2};
    Onnx__ModelProto *m = split_model(11, 6, 2, &s, "x");
    s->attribute[0]->i = 2; /* axis: a spatial axis */
    finish_split_model(m, sizes, 2);
    expect_refusal(m, "node 'split' (Split)", "only a split along channels");

    const int64_t bad[2] = {2, 3}; /* adds up to 5 of 6 */
    m = split_model(11, 6, 2, &s, "x");
    ob_attr_ints(s, "split", 2, bad);
    finish_split_model(m, bad, 2);
    expect_refusal(m, "node 'split' (Split)", "add up to 5");

    m = split_model(13, 5, 2, &s, "x"); /* 5 channels, 2 equal parts before opset 18 */
    finish_split_model(m, sizes, 2);
    expect_refusal(m, "node 'split' (Split)", "equal parts");
}

/* Slice of a feature map: a range of channels; of a spatial axis, refused. */
static Onnx__ModelProto *slice_model(int64_t axis, int64_t start, int64_t end)
{
    Onnx__ModelProto *m = ob_model_new();
    const int64_t xd[4] = {1, 8, 4, 4}, one = 1;
    ob_input(m, "x", 4, xd);
    ob_init_int64(m, "starts", 1, &one, &start);
    ob_init_int64(m, "ends", 1, &one, &end);
    ob_init_int64(m, "axes", 1, &one, &axis);
    ob_node(m, "Slice", "slice", "x,starts,ends,axes", "s");
    ob_node(m, "Relu", "relu", "s", "y");
    ob_output(m, "y", 4, NULL);
    return m;
}

static void test_slice(void **state)
{
    (void)state;
    Onnx__ModelProto *m = slice_model(1, 2, -2);
    cm_graph *g = load_ok(m);
    ob_model_free(m);
    assert_int_equal(g->n_layers, 2);
    assert_int_equal(g->layers[0].op, CM_OP_SLICE);
    assert_string_equal(g->layers[0].name, "slice");
    assert_int_equal(g->layers[0].channel_offset, 2);
    assert_int_equal(g->layers[0].out_shape.c, 4);
    assert_int_equal(g->layers[1].in_shape.c, 4);
    cm_graph_free(g);
    expect_refusal(slice_model(2, 0, 2), "node 'slice' (Slice)", "only a range of channels");
}

/* x: 1 x 6 x 2 x 2, shuffled in g groups: Reshape (1, g, 6/g, 2, 2), Transpose
 * (0, 2, 1, 3, 4), Reshape (1, 6, 2, 2). */
static Onnx__ModelProto *shuffle_model(int64_t g, const int64_t *perm)
{
    Onnx__ModelProto *m = ob_model_new();
    const int64_t xd[4] = {1, 6, 2, 2}, five = 5, four = 4;
    const int64_t grouped[5] = {1, g, 6 / g, 2, 2}, back[4] = {1, -1, 2, 2};
    ob_input(m, "x", 4, xd);
    ob_init_int64(m, "grouped", 1, &five, grouped);
    ob_init_int64(m, "back", 1, &four, back);
    ob_node(m, "Relu", "relu", "x", "r");
    ob_node(m, "Reshape", "view", "r,grouped", "v");
    Onnx__NodeProto *t = ob_node(m, "Transpose", "swap", "v", "t");
    ob_attr_ints(t, "perm", 5, perm);
    ob_node(m, "Reshape", "shuffle", "t,back", "y");
    ob_output(m, "y", 4, NULL);
    return m;
}

static const int64_t shuffle_perm[5] = {0, 2, 1, 3, 4};

static void test_shuffle(void **state)
{
    (void)state;
    Onnx__ModelProto *m = shuffle_model(2, shuffle_perm);
    cm_graph *g = load_ok(m);
    ob_model_free(m);
    assert_int_equal(g->n_layers, 2);
    const cm_layer *l = &g->layers[1];
    assert_int_equal(l->op, CM_OP_SHUFFLE);
    assert_string_equal(l->name, "shuffle");
    assert_int_equal(l->groups, 2);
    assert_int_equal(l->in_shape.c, 6);
    assert_int_equal(l->out_shape.c, 6);
    assert_int_equal(l->out_shape.w, 2);
    assert_int_equal(l->macs, 0);
    assert_string_equal(cm_op_name(l->op), "shuffle");
    cm_graph_free(g);

    const int64_t other[5] = {0, 1, 2, 4, 3};
    expect_refusal(shuffle_model(2, other), "node 'swap' (Transpose)", "(0, 2, 1, 3, 4)");
    /* A 5-axis reshape that does not split the channels into groups. */
    m = ob_model_new();
    const int64_t xd[4] = {1, 6, 2, 2}, five = 5, bad[5] = {1, 6, 2, 2, 1};
    ob_input(m, "x", 4, xd);
    ob_init_int64(m, "shape", 1, &five, bad);
    ob_node(m, "Reshape", "odd", "x,shape", "y");
    ob_output(m, "y", 5, NULL);
    expect_refusal(m, "node 'odd' (Reshape)", "channel shuffle");
}

/* Runs m on x (1 x c x 2 x 2, or 4 x 4 for the split model, values 0, 1, ...) and
 * returns the tensors named. */
static void run(Onnx__ModelProto *m, int64_t c, int64_t hw, const char *const *names, int n,
                cm_array **out)
{
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    ob_model_free(m);
    cm_runner *r = NULL;
    cm_error err = {0};
    if (cm_runner_load_buffer(buf, len, "split.onnx", NULL, &r, &err) != CM_OK)
        fail_msg("%s", err.message);
    free(buf);
    const int64_t xd[4] = {1, c, hw, hw};
    cm_array *x = NULL;
    assert_int_equal(cm_array_new(CM_DTYPE_FLOAT32, 4, xd, &x, &err), CM_OK);
    for (int64_t i = 0; i < x->count; i++)
        x->f[i] = (double)i;
    const cm_array *ins[1] = {x};
    if (cm_runner_execute(r, ins, 1, names, n, out, &err) != CM_OK)
        fail_msg("%s", err.message);
    cm_array_free(x);
    cm_runner_free(r);
}

/* Split at opsets 11 (attribute), 13 (input) and 18 (num_outputs): output k holds
 * channels [offset_k, offset_k + size_k) of x, whose element (c, p) is 16 c + p. */
static void check_run_split(Onnx__ModelProto *m, int64_t c, const int64_t *sizes, int n)
{
    const char *names[3] = {"s0", "s1", "s2"};
    cm_array *out[3] = {NULL, NULL, NULL};
    run(m, c, 4, names, n, out);
    int64_t offset = 0;
    for (int k = 0; k < n; k++) {
        assert_int_equal(out[k]->rank, 4);
        assert_int_equal(out[k]->dims[1], sizes[k]);
        for (int64_t i = 0; i < out[k]->count; i++)
            assert_true(out[k]->f[i] == (double)(offset * 16 + i));
        offset += sizes[k];
        cm_array_free(out[k]);
    }
}

static void test_run_split(void **state)
{
    (void)state;
    Onnx__NodeProto *s;
    const int64_t a[2] = {2, 4}, b[3] = {4, 1, 1}, e[2] = {3, 2}, three = 3;
    Onnx__ModelProto *m = split_model(11, 6, 2, &s, "x");
    ob_attr_ints(s, "split", 2, a);
    finish_split_model(m, a, 2);
    check_run_split(m, 6, a, 2);
    m = split_model(13, 6, 3, &s, "x,sizes");
    ob_init_int64(m, "sizes", 1, &three, b);
    finish_split_model(m, b, 3);
    check_run_split(m, 6, b, 3);
    m = split_model(18, 5, 2, &s, "x");
    ob_attr_int(s, "num_outputs", 2);
    finish_split_model(m, e, 2);
    check_run_split(m, 5, e, 2);
}

/* The shuffle of 6 channels in 2 groups of 3: output channel 2 b + a is input channel
 * 3 a + b, i.e. channels 0 3 1 4 2 5. */
static void test_run_shuffle(void **state)
{
    (void)state;
    const char *names[1] = {"y"};
    cm_array *y = NULL;
    run(shuffle_model(2, shuffle_perm), 6, 2, names, 1, &y);
    const int from[6] = {0, 3, 1, 4, 2, 5};
    assert_int_equal(y->count, 24);
    for (int ch = 0; ch < 6; ch++)
        for (int p = 0; p < 4; p++)
            assert_true(y->f[ch * 4 + p] == (double)(from[ch] * 4 + p));
    cm_array_free(y);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_attribute), cmocka_unit_test(test_split_input),
        cmocka_unit_test(test_split_equal),     cmocka_unit_test(test_split_num_outputs),
        cmocka_unit_test(test_split_refusals),  cmocka_unit_test(test_slice),
        cmocka_unit_test(test_shuffle),         cmocka_unit_test(test_run_split),
        cmocka_unit_test(test_run_shuffle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
