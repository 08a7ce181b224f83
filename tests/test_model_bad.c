/* Model import tests on models built in the test: every kind of bad input is rejected
 * with CM_EINPUT and a one-line message naming the file (and no crash or leak), and a
 * few small good models load with the shapes, costs, folds and quantisation expected. */
#include "onnx_builder.h"
#include "test_support.h"

#include <cnnmap/model.h>

#include "model/import.h" /* CM_CONST_VALUES_MAX */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define QONNX "qonnx.custom_op.general"

static void assert_contains(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("\"%s\" does not contain \"%s\"", text, part);
}

static void assert_near(double got, double want)
{
    if (!(fabs(got - want) <= 1e-5 * (1.0 + fabs(want))))
        fail_msg("got %.9g, expected %.9g", got, want);
}

static cm_status load_bytes(const void *data, size_t len, const char *origin, cm_graph **g,
                            cm_error *err)
{
    *g = (cm_graph *)1; /* the loader must reset it */
    return cm_model_load_buffer(data, len, origin, "/nonexistent", g, err);
}

/* Packs and loads m, then frees it. */
static cm_status load_model(Onnx__ModelProto *m, const char *origin, cm_graph **g, cm_error *err)
{
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    ob_model_free(m);
    cm_status st = load_bytes(buf, len, origin, g, err);
    free(buf);
    return st;
}

/* A rejection: CM_EINPUT, no graph, one line naming the origin. */
static void check_rejected(cm_status st, const cm_graph *g, const cm_error *err, const char *origin)
{
    if (st != CM_EINPUT)
        fail_msg("%s: expected CM_EINPUT, got %d (%s)", origin, (int)st, err->message);
    assert_null(g);
    assert_int_equal(err->code, CM_EINPUT);
    assert_contains(err->message, origin);
    assert_null(strchr(err->message, '\n'));
}

/* Loads m (and frees it), expecting a rejection whose message holds what and what2. */
static void expect_bad(Onnx__ModelProto *m, const char *origin, const char *what,
                       const char *what2)
{
    cm_graph *g;
    cm_error err = {0};
    cm_status st = load_model(m, origin, &g, &err);
    check_rejected(st, g, &err, origin);
    assert_contains(err.message, what);
    if (what2)
        assert_contains(err.message, what2);
}

static cm_graph *expect_good(Onnx__ModelProto *m, const char *origin)
{
    cm_graph *g;
    cm_error err = {0};
    if (load_model(m, origin, &g, &err) != CM_OK)
        fail_msg("%s: %s", origin, err.message);
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

static void assert_shape(cm_shape s, int64_t c, int64_t h, int64_t w)
{
    if (s.c != c || s.h != h || s.w != w)
        fail_msg("shape %lld x %lld x %lld, expected %lld x %lld x %lld", (long long)s.c,
                 (long long)s.h, (long long)s.w, (long long)c, (long long)h, (long long)w);
}

/* x [1,3,8,8] -> Conv 4x3x3x3 pad 1 -> Relu -> MaxPool 2 -> Flatten -> Gemm 10. */
static Onnx__ModelProto *tiny_cnn(void)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 3, 8, 8});
    ob_init_float(m, "W", 4, (int64_t[]){4, 3, 3, 3}, NULL);
    ob_init_float(m, "B", 1, (int64_t[]){4}, NULL);
    ob_init_float(m, "W2", 2, (int64_t[]){10, 64}, NULL);
    ob_init_float(m, "B2", 1, (int64_t[]){10}, NULL);
    Onnx__NodeProto *n = ob_node(m, "Conv", "conv", "x,W,B", "c");
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){3, 3});
    ob_attr_ints(n, "pads", 4, (int64_t[]){1, 1, 1, 1});
    ob_node(m, "Relu", "relu", "c", "r");
    n = ob_node(m, "MaxPool", "pool", "r", "p");
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){2, 2});
    ob_attr_ints(n, "strides", 2, (int64_t[]){2, 2});
    ob_node(m, "Flatten", "flatten", "p", "f");
    n = ob_node(m, "Gemm", "fc", "f,W2,B2", "y");
    ob_attr_int(n, "transB", 1);
    ob_output(m, "y", 2, NULL);
    return m;
}

/* ---- Bytes that are no model ---- */

static void test_empty_buffer(void **state)
{
    (void)state;
    cm_graph *g;
    cm_error err = {0};
    cm_status st = load_bytes("", 0, "empty.onnx", &g, &err);
    check_rejected(st, g, &err, "empty.onnx");
    assert_contains(err.message, "empty");
}

/* Every prefix of a valid model either loads or is rejected cleanly. */
static void test_truncated(void **state)
{
    (void)state;
    Onnx__ModelProto *m = tiny_cnn();
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    ob_model_free(m);
    int loaded = 0;
    for (size_t cut = 1; cut <= len; cut++) {
        /* An exact-size copy, so that ASan sees any read past the cut. */
        uint8_t *part = malloc(cut);
        assert_non_null(part);
        memcpy(part, buf, cut);
        cm_graph *g;
        cm_error err = {0};
        cm_status st = load_bytes(part, cut, "cut.onnx", &g, &err);
        free(part);
        if (st == CM_OK) {
            assert_non_null(g);
            cm_graph_free(g);
            loaded++;
        } else {
            check_rejected(st, g, &err, "cut.onnx");
        }
        if (cut == len && st != CM_OK)
            fail_msg("the whole model does not load: %s", err.message);
    }
    assert_true(loaded >= 1);
    free(buf);
}

static void test_random_bytes(void **state)
{
    (void)state;
    uint32_t x = 20240611u;
    for (size_t len = 1; len <= 600; len += (len < 64 ? 1 : 7)) {
        for (int trial = 0; trial < 4; trial++) {
            uint8_t *noise = malloc(len);
            assert_non_null(noise);
            for (size_t i = 0; i < len; i++) {
                x = x * 1103515245u + 12345u;
                noise[i] = (uint8_t)(x >> 16);
            }
            cm_graph *g;
            cm_error err = {0};
            cm_status st = load_bytes(noise, len, "noise.onnx", &g, &err);
            free(noise);
            check_rejected(st, g, &err, "noise.onnx");
        }
    }
}

static void test_file_paths(void **state)
{
    (void)state;
    cm_graph *g = (cm_graph *)1;
    cm_error err = {0};
    cm_status st = cm_model_load("/nonexistent/dir/model.onnx", &g, &err);
    check_rejected(st, g, &err, "/nonexistent/dir/model.onnx");
    assert_contains(err.message, "No such file or directory");

    g = (cm_graph *)1;
    st = cm_model_load(CM_SOURCE_DIR "/tests", &g, &err);
    check_rejected(st, g, &err, CM_SOURCE_DIR "/tests");

    /* An empty file, a file of garbage, and a good model, by path. */
    char path[256];
    cm_test_write_temp("", 0, ".onnx", path, sizeof path);
    g = (cm_graph *)1;
    st = cm_model_load(path, &g, &err);
    unlink(path);
    check_rejected(st, g, &err, path);
    assert_contains(err.message, "empty");

    cm_test_write_temp("\x08\x07garbage", 9, ".onnx", path, sizeof path);
    g = (cm_graph *)1;
    st = cm_model_load(path, &g, &err);
    unlink(path);
    check_rejected(st, g, &err, path);

    Onnx__ModelProto *m = tiny_cnn();
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    ob_model_free(m);
    cm_test_write_temp(buf, len, ".onnx", path, sizeof path);
    free(buf);
    st = cm_model_load(path, &g, &err);
    unlink(path);
    if (st != CM_OK)
        fail_msg("%s", err.message);
    /* The graph is named after the file, without directory and extension. */
    assert_int_equal(strncmp(g->name, "cnnmap-test-", 12), 0);
    assert_null(strchr(g->name, '/'));
    assert_null(strstr(g->name, ".onnx"));
    cm_graph_free(g);
}

/* ---- Graph structure ---- */

static void test_cycle(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_node(m, "Add", "first", "x,b", "a");
    ob_node(m, "Relu", "second", "a", "b");
    ob_output(m, "b", 4, NULL);
    expect_bad(m, "cycle.onnx", "cycle", "node '");
}

static void test_unknown_operator(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_node(m, "FooBar", "weird", "x", "y");
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "unknown-op.onnx", "node 'weird'", "FooBar");
}

static void test_unknown_domain(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    Onnx__NodeProto *n = ob_node(m, "Relu", "custom", "x", "y");
    ob_domain(m, n, "com.example.ops");
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "unknown-domain.onnx", "node 'custom'", "com.example.ops");
}

static void test_missing_initializer(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_node(m, "Conv", "conv", "x,W_missing", "y");
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "missing-init.onnx", "'W_missing'", "node 'conv'");
}

static void test_produced_twice(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_node(m, "Relu", "a", "x", "y");
    ob_node(m, "Sigmoid", "b", "x", "y");
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "twice.onnx", "'y'", "produced twice");

    /* A node may not redefine an initializer or a graph input either. */
    m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_init_float(m, "W", 1, (int64_t[]){2}, NULL);
    ob_node(m, "Relu", "a", "x", "W");
    ob_output(m, "W", 4, NULL);
    expect_bad(m, "twice-init.onnx", "'W'", "produced twice");

    m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_node(m, "Relu", "a", "x", "x");
    ob_output(m, "x", 4, NULL);
    expect_bad(m, "twice-input.onnx", "'x'", "produced twice");

    m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_init_float(m, "W", 1, (int64_t[]){2}, NULL);
    ob_init_float(m, "W", 1, (int64_t[]){2}, NULL);
    ob_node(m, "Relu", "a", "x", "y");
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "twice-defined.onnx", "'W'", "defined twice");
}

static void test_outputs_and_inputs(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_node(m, "Relu", "relu", "x", "y");
    ob_output(m, "nope", 4, NULL);
    expect_bad(m, "no-output.onnx", "'nope'", "never produced");

    m = ob_model_new();
    ob_init_float(m, "W", 4, (int64_t[]){1, 2, 4, 4}, NULL);
    ob_node(m, "Relu", "relu", "W", "y");
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "no-input.onnx", "no input", NULL);

    /* A graph that only passes its input through has no layers. */
    m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_output(m, "x", 4, NULL);
    expect_bad(m, "passthrough.onnx", "'x'", "not computed by any layer");

    m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_node(m, "Relu", "relu", "x", "y");
    expect_bad(m, "no-outputs.onnx", "no output", NULL);

    /* No graph at all. */
    m = ob_model_new();
    onnx__graph_proto__free_unpacked(m->graph, NULL);
    m->graph = NULL;
    expect_bad(m, "no-graph.onnx", "no graph", NULL);
}

/* ---- Dimensions ---- */

static void expect_bad_input_dims(const int64_t *dims, const char *what)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, dims);
    ob_node(m, "Relu", "relu", "x", "y");
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "input-dims.onnx", "graph input 'x'", what);
}

static void expect_bad_init_dims(const int64_t *dims, const char *what)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_init_external(m, "W", 4, dims, "weights.bin");
    ob_node(m, "Conv", "conv", "x,W", "y");
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "init-dims.onnx", "initializer 'W'", what);
}

static void test_bad_dims(void **state)
{
    (void)state;
    expect_bad_input_dims((int64_t[]){1, 0, 4, 4}, "zero dimension");
    expect_bad_input_dims((int64_t[]){1, 2, -4, 4}, "negative dimension");
    expect_bad_input_dims((int64_t[]){1, 2, 4, INT64_MAX}, "too large");
    expect_bad_input_dims((int64_t[]){1, (int64_t)1 << 30, 4, 4}, "too large");
    /* Each dimension is fine; their product is not. */
    expect_bad_input_dims((int64_t[]){1, 1 << 20, 1 << 20, 1 << 20}, "too large");
    expect_bad_init_dims((int64_t[]){2, 0, 3, 3}, "zero dimension");
    expect_bad_init_dims((int64_t[]){-2, 2, 3, 3}, "negative dimension");
    expect_bad_init_dims((int64_t[]){2, 2, INT64_MIN, 3}, "negative dimension");
    expect_bad_init_dims((int64_t[]){2, 2, 3, INT64_MAX}, "too large");
    expect_bad_init_dims((int64_t[]){1 << 20, 1 << 20, 1 << 20, 1}, "too large");

    /* A dynamic batch is 1, any other dynamic axis is an error. */
    Onnx__ModelProto *m = ob_model_new();
    Onnx__ValueInfoProto *vi = ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    vi->type->tensor_type->shape->dim[2]->value_case =
        ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE__NOT_SET;
    ob_node(m, "Relu", "relu", "x", "y");
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "dynamic.onnx", "graph input 'x'", "dynamic dimension at axis 2");
}

static void test_raw_data_size(void **state)
{
    (void)state;
    /* A small constant is decoded when it is defined... */
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_init_raw(m, "S", 2, (int64_t[]){2, 2}, 1, "0123456789ab", 12);
    ob_node(m, "Relu", "relu", "x", "y");
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "raw-small.onnx", "'S'", "holds 12 bytes of data where its dims need 16");

    /* ...large weights when a layer reads them. */
    m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 64, 8, 8});
    ob_init_raw(m, "W", 4, (int64_t[]){128, 64, 3, 3}, 1, "0123456789", 10);
    ob_node(m, "Conv", "conv", "x,W", "y");
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "raw-large.onnx", "'W'", "holds 10 bytes of data where its dims need 294912");

    /* Typed data of the wrong length. */
    m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    Onnx__TensorProto *t = ob_init_float(m, "B", 1, (int64_t[]){3}, NULL);
    t->n_float_data = 2;
    ob_node(m, "Relu", "relu", "x", "y");
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "typed.onnx", "'B'", "holds 2 values where its dims need 3");
}

/* A model whose tensors claim far more data than the file holds must be rejected
 * without allocating for the claim. */
static void test_huge_claims(void **state)
{
    (void)state;
    /* 2^40 weights with 10 bytes of data. */
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 1024, 1024, 1024});
    ob_init_raw(m, "W", 4, (int64_t[]){1024, 1024, 1024, 1024}, 1, "0123456789", 10);
    ob_node(m, "Conv", "conv", "x,W", "y");
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "huge-raw.onnx", "'W'", "holds 10 bytes of data");

    /* Constants up to CM_CONST_VALUES_MAX values have them decoded (shapes); one
     * computed from them that is larger keeps only its dims. Gathering n rows of n / 2
     * values from a 2 x n / 2 constant would otherwise hold n^2 / 2 values. */
    enum { n = CM_CONST_VALUES_MAX };
    int8_t *zeros = calloc(n, 1);
    assert_non_null(zeros);
    m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_init_raw(m, "data", 2, (int64_t[]){2, n / 2}, 3, zeros, n);
    ob_init_raw(m, "idx", 1, (int64_t[]){n}, 3, zeros, n);
    Onnx__NodeProto *node = ob_node(m, "Gather", "gather", "data,idx", "big");
    ob_attr_int(node, "axis", 0);
    ob_node(m, "Reshape", "use", "x,big", "y");
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "huge-gather.onnx", "node 'use'", "'big' has no values");

    /* The same for concatenating one n-value constant with itself 1000 times. */
    m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_init_raw(m, "v", 1, (int64_t[]){n}, 3, zeros, n);
    free(zeros);
    char list[2000];
    for (int i = 0; i < 1000; i++)
        memcpy(list + 2 * i, i < 999 ? "v," : "v", 2);
    list[1999] = '\0';
    node = ob_node(m, "Concat", "concat", list, "big");
    ob_attr_int(node, "axis", 0);
    ob_node(m, "Reshape", "use", "x,big", "y");
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "huge-concat.onnx", "node 'use'", "'big' has no values");
}

/* External data is read from beside the model file; a file shorter than the dims
 * claim is rejected before anything is allocated for them. */
static void test_external_data(void **state)
{
    (void)state;
    const float w[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    char data_path[256], model_path[256];
    cm_test_write_temp(w, sizeof w, ".bin", data_path, sizeof data_path);
    const char *location = strrchr(data_path, '/') + 1;
    const int64_t dims[2][4] = {{4, 2, 1, 1}, {1024, 1024, 1024, 1024}};
    const int64_t x_dims[2][4] = {{1, 2, 4, 4}, {1, 1024, 1024, 1024}};
    for (int big = 0; big < 2; big++) {
        Onnx__ModelProto *m = ob_model_new();
        ob_input(m, "x", 4, x_dims[big]);
        ob_init_external(m, "W", 4, dims[big], location);
        ob_node(m, "Conv", "conv", "x,W", "y");
        ob_output(m, "y", 4, NULL);
        size_t len;
        uint8_t *buf = ob_pack(m, &len);
        ob_model_free(m);
        cm_test_write_temp(buf, len, ".onnx", model_path, sizeof model_path);
        free(buf);
        cm_graph *g = (cm_graph *)1;
        cm_error err = {0};
        cm_status st = cm_model_load(model_path, &g, &err);
        unlink(model_path);
        if (big) {
            check_rejected(st, g, &err, model_path);
            assert_contains(err.message, "is shorter than offset 0 + 4398046511104 bytes");
            continue;
        }
        if (st != CM_OK)
            fail_msg("%s", err.message);
        assert_int_equal(g->layers[0].n_weights, 8);
        for (int i = 0; i < 8; i++)
            assert_near(g->layers[0].weights[i], w[i]);
        cm_graph_free(g);
    }
    unlink(data_path);
}

/* A convolution whose multiply-accumulates overflow 64 bits: 2^40 outputs of 2^24. */
static void test_mac_overflow(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 16, 1, 1});
    ob_init_external(m, "W", 4, (int64_t[]){65536, 16, 1024, 1024}, "weights.bin");
    Onnx__NodeProto *n = ob_node(m, "Conv", "conv", "x,W", "y");
    /* 1 + 2 x 2559 - 1024 + 1 = 4096 rows and columns. */
    ob_attr_ints(n, "pads", 4, (int64_t[]){2559, 2559, 2559, 2559});
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "macs.onnx", "'conv'", "overflows");
}

/* Names come from the file and may hold line breaks; the message stays one line. */
static void test_names_with_newlines(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_node(m, "Foo\nBar", "two\nlines\r", "x", "y");
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "newline.onnx", "two?lines?", "Foo?Bar");
}

/* Missing optional strings: an initializer, output or op_type without a name. */
static void test_missing_names(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    Onnx__TensorProto *t = ob_init_float(m, "W", 1, (int64_t[]){2}, NULL);
    free(t->name);
    t->name = NULL;
    ob_node(m, "Relu", "relu", "x", "y");
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "no-init-name.onnx", "initializer has no name", NULL);

    m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_node(m, "Relu", "relu", "x", "y");
    Onnx__ValueInfoProto *vi = ob_output(m, "y", 4, NULL);
    free(vi->name);
    vi->name = NULL;
    expect_bad(m, "no-output-name.onnx", "graph output ''", NULL);

    m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    Onnx__NodeProto *n = ob_node(m, "Relu", "nameless", "x", "y");
    free(n->op_type);
    n->op_type = NULL;
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "no-op-type.onnx", "node 'nameless'", "unknown operator");

    /* A node without outputs. */
    m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_node(m, "Relu", "relu", "x", "y");
    ob_node(m, "Relu", "sink", "y", NULL);
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "no-node-output.onnx", "node 'sink'", "no output");

    /* A Concat without inputs. */
    m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_node(m, "Concat", "concat", NULL, "y");
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "empty-concat.onnx", "node 'concat'", NULL);
}

/* The error record is optional. */
static void test_null_error(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_init_float(m, "W", 4, (int64_t[]){4, 1, 3, 3}, NULL);
    Onnx__NodeProto *n = ob_node(m, "Conv", "conv", "x,W", "y");
    ob_attr_int(n, "group", 3);
    ob_output(m, "y", 4, NULL);
    size_t len;
    uint8_t *buf = ob_pack(m, &len);
    ob_model_free(m);
    cm_graph *g = (cm_graph *)1;
    assert_int_equal(cm_model_load_buffer(buf, len, "null-err.onnx", NULL, &g, NULL), CM_EINPUT);
    assert_null(g);
    free(buf);
}

/* PyTorch writes Slice ends as INT64_MAX ("to the end"). */
static void test_slice_to_end(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 4, 2, 2});
    ob_init_float(m, "W", 2, (int64_t[]){16, 3}, NULL);
    ob_init_int64(m, "starts", 1, (int64_t[]){1}, (int64_t[]){1});
    ob_init_int64(m, "ends", 1, (int64_t[]){1}, (int64_t[]){INT64_MAX});
    ob_init_int64(m, "batch", 1, (int64_t[]){1}, (int64_t[]){1});
    ob_node(m, "Shape", "shape", "x", "s");
    ob_node(m, "Slice", "slice", "s,starts,ends", "chw"); /* [4, 2, 2] */
    ob_node(m, "ReduceProd", "prod", "chw", "n");
    ob_output(m, "n", 1, NULL);
    /* ReduceProd is no supported operator: the slice itself must have worked. */
    expect_bad(m, "slice.onnx", "node 'prod'", "unknown operator 'ReduceProd'");

    m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 4, 2, 2});
    ob_init_float(m, "W", 2, (int64_t[]){16, 3}, NULL);
    ob_init_int64(m, "starts", 1, (int64_t[]){1}, (int64_t[]){0});
    ob_init_int64(m, "ends", 1, (int64_t[]){1}, (int64_t[]){INT64_MAX});
    ob_init_int64(m, "m1", 1, (int64_t[]){1}, (int64_t[]){-1});
    ob_init_int64(m, "zero", 0, NULL, (int64_t[]){0});
    ob_init_int64(m, "axes", 1, (int64_t[]){1}, (int64_t[]){0});
    ob_node(m, "Shape", "shape", "x", "s");
    ob_node(m, "Slice", "slice", "s,starts,ends", "s2");
    ob_node(m, "Gather", "gather", "s2,zero", "b");
    ob_node(m, "Unsqueeze", "unsqueeze", "b,axes", "b1");
    Onnx__NodeProto *n = ob_node(m, "Concat", "concat", "b1,m1", "target");
    ob_attr_int(n, "axis", 0);
    ob_node(m, "Reshape", "reshape", "x,target", "flat");
    ob_node(m, "MatMul", "fc", "flat,W", "y");
    ob_output(m, "y", 2, NULL);
    cm_graph *g = expect_good(m, "slice-ok.onnx");
    assert_shape(layer_named(g, "fc")->in_shape, 4, 2, 2);
    cm_graph_free(g);
}

/* ---- Layer geometry ---- */

static void test_conv_kernel_too_large(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 1, 4, 4});
    ob_init_float(m, "W", 4, (int64_t[]){1, 1, 5, 5}, NULL);
    ob_node(m, "Conv", "conv", "x,W", "y");
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "big-kernel.onnx", "node 'conv' (Conv)", "window of 5 exceeds");
}

static void test_conv_group(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 3, 8, 8});
    ob_init_float(m, "W", 4, (int64_t[]){4, 1, 3, 3}, NULL);
    Onnx__NodeProto *n = ob_node(m, "Conv", "conv", "x,W", "y");
    ob_attr_int(n, "group", 2);
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "group.onnx", "node 'conv'", "group 2 do not fit 3 input channels");

    m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 4, 8, 8});
    ob_init_float(m, "W", 4, (int64_t[]){4, 1, 3, 3}, NULL);
    n = ob_node(m, "Conv", "conv", "x,W", "y");
    ob_attr_int(n, "group", 0);
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "group0.onnx", "node 'conv'", "group 0");
}

static void test_gemm_features(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 2, (int64_t[]){1, 10});
    ob_init_float(m, "W", 2, (int64_t[]){5, 12}, NULL);
    Onnx__NodeProto *n = ob_node(m, "Gemm", "fc", "x,W", "y");
    ob_attr_int(n, "transB", 1);
    ob_output(m, "y", 2, NULL);
    expect_bad(m, "gemm.onnx", "node 'fc'", "take 12 features but the input has 10");
}

static void test_reshape_not_constant(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 4, 2, 2});
    ob_node(m, "Relu", "relu", "x", "r");
    ob_node(m, "Reshape", "reshape", "x,r", "y");
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "reshape.onnx", "node 'reshape'", "constant shape");
}

static void test_resize_not_nearest(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_init_float(m, "scales", 1, (int64_t[]){4}, (float[]){1, 1, 2, 2});
    Onnx__NodeProto *n = ob_node(m, "Resize", "up", "x,,scales", "y");
    ob_attr_string(n, "mode", "cubic");
    ob_output(m, "y", 4, NULL);
    expect_bad(m, "resize.onnx", "node 'up'", "mode 'cubic' is not supported");
}

/* ---- Good models ---- */

static void test_tiny_cnn(void **state)
{
    (void)state;
    cm_graph *g = expect_good(tiny_cnn(), "models/tiny.onnx");
    assert_string_equal(g->name, "tiny");
    assert_int_equal(g->n_inputs, 1);
    assert_shape(g->inputs[0].shape, 3, 8, 8);
    /* The flatten is folded into the fully connected layer. */
    assert_int_equal(g->n_layers, 4);
    const char *names[] = {"conv", "relu", "pool", "fc"};
    const cm_op ops[] = {CM_OP_CONV, CM_OP_RELU, CM_OP_POOL_MAX, CM_OP_FC};
    for (int i = 0; i < 4; i++) {
        assert_string_equal(g->layers[i].name, names[i]);
        assert_int_equal(g->layers[i].op, ops[i]);
        assert_int_equal(g->layers[i].n_inputs, 1);
        assert_int_equal(g->layers[i].inputs[0], i - 1); /* conv: graph input 0 (-1) */
    }
    const cm_layer *conv = &g->layers[0], *relu = &g->layers[1], *pool = &g->layers[2],
                   *fc = &g->layers[3];
    assert_shape(conv->in_shape, 3, 8, 8);
    assert_shape(conv->out_shape, 4, 8, 8); /* (8 + 1 + 1 - 3) / 1 + 1 = 8 */
    /* 4 x 8 x 8 outputs, each 3 x 3 x 3 = 27 MACs: 256 x 27 = 6912. */
    assert_int_equal(conv->macs, 4 * 8 * 8 * (3 * 3 * 3));
    assert_int_equal(conv->macs, 6912);
    /* 4 x 27 weights + 4 biases = 112. */
    assert_int_equal(conv->params, 112);
    assert_true(conv->has_bias);
    assert_int_equal(conv->n_weights, 108);
    assert_int_equal(conv->kernel[0], 3);
    assert_int_equal(conv->pad[0] + conv->pad[1] + conv->pad[2] + conv->pad[3], 4);
    assert_true(relu->fusable);
    assert_shape(pool->out_shape, 4, 4, 4); /* (8 - 2) / 2 + 1 = 4 */
    assert_int_equal(pool->macs, 0);
    /* fc reads the pool's 4 x 4 x 4 = 64 values: 64 x 10 = 640 MACs, 640 + 10 params. */
    assert_shape(fc->in_shape, 4, 4, 4);
    assert_shape(fc->out_shape, 10, 1, 1);
    assert_int_equal(fc->macs, 640);
    assert_int_equal(fc->params, 650);
    assert_int_equal(g->n_outputs, 1);
    assert_int_equal(g->outputs[0], 3);
    cm_graph_totals t = cm_graph_totals_of(g);
    assert_int_equal(t.macs, 6912 + 640);
    assert_int_equal(t.params, 112 + 650);
    cm_graph_free(g);
}

/* What torch.onnx.export writes for x.view(x.size(0), -1) before a Linear layer. */
static void test_pytorch_shape_subgraph(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 3, 8, 8});
    ob_init_float(m, "W", 4, (int64_t[]){8, 3, 3, 3}, NULL);
    ob_init_float(m, "W2", 2, (int64_t[]){10, 128}, NULL);
    ob_init_int64(m, "zero", 0, NULL, (int64_t[]){0});
    ob_init_int64(m, "axes", 1, (int64_t[]){1}, (int64_t[]){0});
    Onnx__NodeProto *n = ob_node(m, "Conv", "conv", "x,W", "c");
    ob_attr_ints(n, "pads", 4, (int64_t[]){1, 1, 1, 1});
    n = ob_node(m, "MaxPool", "pool", "c", "p");
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){2, 2});
    ob_attr_ints(n, "strides", 2, (int64_t[]){2, 2});
    ob_node(m, "Shape", "shape", "p", "s");
    n = ob_node(m, "Gather", "gather", "s,zero", "batch");
    ob_attr_int(n, "axis", 0);
    ob_node(m, "Unsqueeze", "unsqueeze", "batch,axes", "batch1");
    n = ob_node(m, "Constant", "minus_one", NULL, "m1");
    ob_attr_ints(n, "value_ints", 1, (int64_t[]){-1});
    n = ob_node(m, "Concat", "concat", "batch1,m1", "target");
    ob_attr_int(n, "axis", 0);
    ob_node(m, "Reshape", "reshape", "p,target", "flat");
    n = ob_node(m, "Gemm", "fc", "flat,W2", "y");
    ob_attr_int(n, "transB", 1);
    ob_output(m, "y", 2, NULL);
    cm_graph *g = expect_good(m, "pytorch.onnx");
    assert_int_equal(g->n_layers, 3);
    const cm_layer *fc = layer_named(g, "fc");
    assert_int_equal(fc->op, CM_OP_FC);
    /* The reshape to [1, 128] became part of fc, which reads the pool's 8 x 4 x 4. */
    assert_shape(fc->in_shape, 8, 4, 4);
    assert_shape(fc->out_shape, 10, 1, 1);
    assert_int_equal(fc->inputs[0], 1);
    assert_int_equal(fc->macs, 128 * 10);
    assert_false(fc->has_bias);
    assert_int_equal(fc->params, 1280);
    cm_graph_free(g);
}

static Onnx__ModelProto *transpose_model(int64_t hw)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 6, hw, hw});
    Onnx__NodeProto *n = ob_node(m, "Transpose", "nhwc", "x", "t");
    ob_attr_ints(n, "perm", 4, (int64_t[]){0, 2, 3, 1});
    ob_node(m, "Relu", "relu", "t", "y");
    ob_output(m, "y", 4, NULL);
    return m;
}

static void test_transpose(void **state)
{
    (void)state;
    expect_bad(transpose_model(2), "transpose.onnx", "node 'nhwc'", "changes the data layout");
    /* On a 1 x 1 map, NCHW -> NHWC moves no data. */
    cm_graph *g = expect_good(transpose_model(1), "transpose-ok.onnx");
    const cm_layer *relu = layer_named(g, "relu");
    assert_int_equal(relu->in_shape.c * relu->in_shape.h * relu->in_shape.w, 6);
    cm_graph_free(g);

    /* A global pool's [1, C, 1, 1] output transposed with C kept in front, then used
     * by a fully connected layer. */
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 6, 4, 4});
    ob_init_float(m, "W", 2, (int64_t[]){6, 5}, NULL);
    ob_node(m, "GlobalAveragePool", "gap", "x", "p");
    Onnx__NodeProto *n = ob_node(m, "Transpose", "t", "p", "pt");
    ob_attr_ints(n, "perm", 4, (int64_t[]){0, 1, 3, 2});
    n = ob_node(m, "Flatten", "flatten", "pt", "f");
    ob_node(m, "MatMul", "fc", "f,W", "y");
    ob_output(m, "y", 2, NULL);
    g = expect_good(m, "transpose-gap.onnx");
    assert_int_equal(g->n_layers, 2);
    const cm_layer *fc = layer_named(g, "fc");
    assert_shape(fc->in_shape, 6, 1, 1);
    assert_shape(fc->out_shape, 5, 1, 1);
    assert_int_equal(fc->macs, 30);
    cm_graph_free(g);
}

static void test_batchnorm_folded(void **state)
{
    (void)state;
    const float w[3 * 2] = {0.5f, -1.0f, 2.0f, 0.25f, -0.75f, 1.5f};
    const float b[3] = {0.1f, -0.2f, 0.3f};
    const float gamma[3] = {1.5f, 0.5f, -2.0f}, beta[3] = {0.0f, 1.0f, -0.5f};
    const float mean[3] = {0.2f, -0.4f, 1.0f}, var[3] = {0.25f, 4.0f, 1.0f};
    const float eps = 1e-3f;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_init_float(m, "W", 4, (int64_t[]){3, 2, 1, 1}, w);
    ob_init_float(m, "B", 1, (int64_t[]){3}, b);
    ob_init_float(m, "gamma", 1, (int64_t[]){3}, gamma);
    ob_init_float(m, "beta", 1, (int64_t[]){3}, beta);
    ob_init_float(m, "mean", 1, (int64_t[]){3}, mean);
    ob_init_float(m, "var", 1, (int64_t[]){3}, var);
    ob_node(m, "Conv", "conv", "x,W,B", "c");
    Onnx__NodeProto *n = ob_node(m, "BatchNormalization", "bn", "c,gamma,beta,mean,var", "y");
    ob_attr_float(n, "epsilon", eps);
    ob_output(m, "y", 4, NULL);
    cm_graph *g = expect_good(m, "bn.onnx");
    assert_int_equal(g->n_layers, 1);
    const cm_layer *conv = &g->layers[0];
    assert_int_equal(conv->op, CM_OP_CONV);
    assert_true(conv->has_bias);
    assert_non_null(conv->weights);
    assert_non_null(conv->bias);
    assert_int_equal(conv->n_weights, 6);
    assert_int_equal(g->outputs[0], 0);
    for (int o = 0; o < 3; o++) {
        double s = gamma[o] / sqrt((double)var[o] + (double)eps);
        for (int k = 0; k < 2; k++)
            assert_near(conv->weights[o * 2 + k], w[o * 2 + k] * s);
        assert_near(conv->bias[o], (b[o] - mean[o]) * s + beta[o]);
    }
    /* 3 x 2 weights + 3 biases. */
    assert_int_equal(conv->params, 9);
    cm_graph_free(g);
}

static void test_qonnx_quant(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 6, 6});
    ob_init_float(m, "W", 4, (int64_t[]){3, 2, 3, 3}, NULL);
    ob_init_float(m, "act_scale", 0, NULL, (float[]){0.5f});
    ob_init_float(m, "w_scale", 0, NULL, (float[]){0.25f});
    ob_init_float(m, "zero", 0, NULL, (float[]){0.0f});
    ob_init_float(m, "bits4", 0, NULL, (float[]){4.0f});
    ob_init_float(m, "bits3", 0, NULL, (float[]){3.0f});
    ob_init_float(m, "bits8", 0, NULL, (float[]){8.0f});
    Onnx__NodeProto *n = ob_node(m, "Quant", "quant_in", "x,act_scale,zero,bits4", "xq");
    ob_domain(m, n, QONNX);
    ob_attr_int(n, "signed", 0);
    n = ob_node(m, "Quant", "quant_w", "W,w_scale,zero,bits3", "Wq");
    ob_domain(m, n, QONNX);
    ob_attr_int(n, "signed", 1);
    ob_attr_int(n, "narrow", 1);
    n = ob_node(m, "Conv", "conv", "xq,Wq", "c");
    ob_attr_ints(n, "pads", 4, (int64_t[]){1, 1, 1, 1});
    ob_node(m, "Relu", "relu", "c", "r");
    n = ob_node(m, "Quant", "quant_out", "r,act_scale,zero,bits8", "y");
    ob_domain(m, n, QONNX);
    ob_attr_int(n, "signed", 0);
    ob_output(m, "y", 4, NULL);
    cm_graph *g = expect_good(m, "qonnx.onnx");
    assert_int_equal(g->n_layers, 2);
    assert_int_equal(g->inputs[0].q.bits, 4);
    const cm_layer *conv = layer_named(g, "conv"), *relu = layer_named(g, "relu");
    assert_int_equal(conv->weight_q.bits, 3);
    assert_true(conv->weight_q.quantised);
    assert_true(conv->weight_q.is_signed);
    assert_true(conv->weight_q.narrow);
    assert_near(conv->weight_q.scale, 0.25);
    assert_int_equal(conv->in_q.bits, 4);
    assert_true(conv->in_q.quantised);
    assert_false(conv->in_q.is_signed);
    assert_near(conv->in_q.scale, 0.5);
    assert_int_equal(conv->n_weights, 54); /* the quantised weights still carry values */
    assert_int_equal(relu->out_q.bits, 8);
    assert_false(relu->out_q.is_signed);
    assert_true(relu->fusable);
    cm_graph_free(g);
}

static void test_multithreshold(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_init_float(m, "W", 4, (int64_t[]){4, 2, 1, 1}, NULL);
    ob_init_float(m, "thr", 2, (int64_t[]){4, 15}, NULL);
    ob_node(m, "Conv", "conv", "x,W", "c");
    Onnx__NodeProto *n = ob_node(m, "MultiThreshold", "mt", "c,thr", "t");
    ob_domain(m, n, QONNX);
    ob_attr_string(n, "out_dtype", "UINT4");
    n = ob_node(m, "MaxPool", "pool", "t", "y");
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){2, 2});
    ob_attr_ints(n, "strides", 2, (int64_t[]){2, 2});
    ob_output(m, "y", 4, NULL);
    cm_graph *g = expect_good(m, "mt.onnx");
    assert_int_equal(g->n_layers, 2);
    const cm_layer *conv = layer_named(g, "conv"), *pool = layer_named(g, "pool");
    assert_int_equal(conv->out_q.bits, 4);
    assert_true(conv->out_q.quantised);
    assert_false(conv->out_q.is_signed);
    assert_int_equal(pool->in_q.bits, 4);
    assert_false(pool->in_q.is_signed);
    assert_int_equal(pool->out_q.bits, 4); /* max pooling keeps the input's values */
    cm_graph_free(g);

    /* An out_dtype that names no FINN type. */
    m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_init_float(m, "thr", 2, (int64_t[]){2, 15}, NULL);
    n = ob_node(m, "MultiThreshold", "mt", "x,thr", "y");
    ob_domain(m, n, QONNX);
    ob_attr_string(n, "out_dtype", "UINT99X");
    ob_node(m, "Relu", "relu", "y", "z");
    ob_output(m, "z", 4, NULL);
    expect_bad(m, "mt-bad.onnx", "node 'mt'", "UINT99X");
}

static void test_pad_folded(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 1, 6, 6});
    ob_init_float(m, "W", 4, (int64_t[]){2, 1, 3, 3}, NULL);
    /* Begins then ends of N, C, H, W: H by 1 and W by 2 on each side. */
    ob_init_int64(m, "pads", 1, (int64_t[]){8}, (int64_t[]){0, 0, 1, 2, 0, 0, 1, 2});
    ob_node(m, "Pad", "pad", "x,pads", "xp");
    Onnx__NodeProto *n = ob_node(m, "Conv", "conv", "xp,W", "y");
    ob_attr_ints(n, "pads", 4, (int64_t[]){1, 0, 1, 0}); /* H begin, W begin, H end, W end */
    ob_output(m, "y", 4, NULL);
    cm_graph *g = expect_good(m, "pad.onnx");
    assert_int_equal(g->n_layers, 1);
    const cm_layer *conv = &g->layers[0];
    assert_int_equal(conv->op, CM_OP_CONV);
    assert_int_equal(conv->inputs[0], -1);
    /* top 1 + 1, left 2 + 0, bottom 1 + 1, right 2 + 0. */
    assert_int_equal(conv->pad[0], 2);
    assert_int_equal(conv->pad[1], 2);
    assert_int_equal(conv->pad[2], 2);
    assert_int_equal(conv->pad[3], 2);
    assert_shape(conv->in_shape, 1, 6, 6);
    assert_shape(conv->out_shape, 2, 8, 8); /* 6 + 2 + 2 - 3 + 1 = 8 */
    assert_int_equal(conv->macs, 2 * 8 * 8 * 9);
    cm_graph_free(g);
}

static void test_clip_relu6(void **state)
{
    (void)state;
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 2, 4, 4});
    ob_init_float(m, "W", 4, (int64_t[]){4, 2, 3, 3}, NULL);
    ob_init_float(m, "lo", 0, NULL, (float[]){0.0f});
    ob_init_float(m, "hi", 0, NULL, (float[]){6.0f});
    Onnx__NodeProto *n = ob_node(m, "Conv", "conv", "x,W", "c");
    ob_attr_ints(n, "pads", 4, (int64_t[]){1, 1, 1, 1});
    ob_node(m, "Clip", "relu6", "c,lo,hi", "a");
    /* Opset 6 form, bounds as attributes, after a layer it cannot fuse into. */
    n = ob_node(m, "MaxPool", "pool", "a", "p");
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){2, 2});
    n = ob_node(m, "Clip", "clip", "p", "y");
    ob_attr_float(n, "min", -1.0f);
    ob_attr_float(n, "max", 4.0f);
    ob_output(m, "y", 4, NULL);
    cm_graph *g = expect_good(m, "clip.onnx");
    assert_int_equal(g->n_layers, 4);
    const cm_layer *relu6 = layer_named(g, "relu6"), *clip = layer_named(g, "clip");
    assert_int_equal(relu6->op, CM_OP_ACTIVATION);
    assert_int_equal(relu6->activation, CM_ACT_RELU6);
    assert_true(relu6->fusable);
    assert_string_equal(cm_activation_name(relu6->activation), "relu6");
    assert_int_equal(clip->activation, CM_ACT_CLIP);
    assert_near(clip->alpha, -1.0);
    assert_near(clip->beta, 4.0);
    assert_false(clip->fusable);
    cm_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_buffer),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_random_bytes),
        cmocka_unit_test(test_file_paths),
        cmocka_unit_test(test_cycle),
        cmocka_unit_test(test_unknown_operator),
        cmocka_unit_test(test_unknown_domain),
        cmocka_unit_test(test_missing_initializer),
        cmocka_unit_test(test_produced_twice),
        cmocka_unit_test(test_outputs_and_inputs),
        cmocka_unit_test(test_bad_dims),
        cmocka_unit_test(test_raw_data_size),
        cmocka_unit_test(test_huge_claims),
        cmocka_unit_test(test_external_data),
        cmocka_unit_test(test_mac_overflow),
        cmocka_unit_test(test_names_with_newlines),
        cmocka_unit_test(test_missing_names),
        cmocka_unit_test(test_null_error),
        cmocka_unit_test(test_slice_to_end),
        cmocka_unit_test(test_conv_kernel_too_large),
        cmocka_unit_test(test_conv_group),
        cmocka_unit_test(test_gemm_features),
        cmocka_unit_test(test_reshape_not_constant),
        cmocka_unit_test(test_resize_not_nearest),
        cmocka_unit_test(test_tiny_cnn),
        cmocka_unit_test(test_pytorch_shape_subgraph),
        cmocka_unit_test(test_transpose),
        cmocka_unit_test(test_batchnorm_folded),
        cmocka_unit_test(test_qonnx_quant),
        cmocka_unit_test(test_multithreshold),
        cmocka_unit_test(test_pad_folded),
        cmocka_unit_test(test_clip_relu6),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
