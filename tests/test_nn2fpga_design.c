/* nn2FPGA design files through the library API (no CLI): a design of ResNet8 on the
 * KV260 written and read back gives every layer's factors and every figure again; hand
 * edits that break a constraint are CM_EINFEASIBLE naming the layer or resource; bad
 * files (truncated, unknown, missing or duplicate layers, wrong types, values out of
 * range) are CM_EINPUT naming the file and the key or layer. */
#include "test_support.h"

#include <cnnmap/nn2fpga.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The design the edits start from, written to a temporary file. */
typedef struct fixture {
    cm_nn2fpga_design d;
    char path[512];
    json_t *root;
} fixture;

static void make_fixture(fixture *f)
{
    char model[1024];
    cm_test_shared_model("resnet8_a8w8b16.onnx", model, sizeof model);
    cm_nn2fpga_options o;
    cm_nn2fpga_options_init(&o);
    o.batch = 4;
    cm_error err = {0};
    if (cm_nn2fpga_design_create(model, "kv260", &o, false, &f->d, &err) != CM_OK)
        fail_msg("%s", err.message);
    cm_test_write_temp("", 0, ".json", f->path, sizeof f->path);
    if (cm_nn2fpga_design_save(&f->d, f->path, &err) != CM_OK)
        fail_msg("%s", err.message);
    f->root = json_load_file(f->path, 0, NULL);
    assert_non_null(f->root);
}

static void free_fixture(fixture *f)
{
    cm_nn2fpga_design_free(&f->d);
    json_decref(f->root);
    remove(f->path);
}

static json_t *layer_entry(json_t *root, const char *name)
{
    json_t *layers = json_object_get(root, "layers"), *e;
    size_t i;
    json_array_foreach(layers, i, e)
        if (strcmp(json_string_value(json_object_get(e, "name")), name) == 0)
            return e;
    fail_msg("no layer %s in the design file", name);
    return NULL;
}

/* Writes the (edited) JSON to the fixture's file and loads it: the status and that the
 * message holds the design file's path and `want`. */
static void expect_load(fixture *f, json_t *root, cm_status status, const char *want)
{
    assert_int_equal(json_dump_file(root, f->path, JSON_INDENT(1)), 0);
    cm_nn2fpga_design d;
    cm_error err = {0};
    cm_status st = cm_nn2fpga_design_load(f->path, &d, &err);
    if (st != status)
        fail_msg("want status %d, got %d: %s", status, st, err.message);
    if (status == CM_OK) {
        cm_nn2fpga_design_free(&d);
        return;
    }
    assert_non_null(strstr(err.message, f->path));
    if (!strstr(err.message, want))
        fail_msg("message '%s' does not say '%s'", err.message, want);
    assert_null(strchr(err.message, '\n'));
    assert_null(d.graph); /* nothing left to free after a failure */
}

static void test_round_trip(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f);
    assert_true(cm_nn2fpga_is_design_file(f.path));
    cm_nn2fpga_design d;
    cm_error err = {0};
    if (cm_nn2fpga_design_load(f.path, &d, &err) != CM_OK)
        fail_msg("%s", err.message);
    const cm_nn2fpga_result *a = &f.d.result, *b = &d.result;
    assert_int_equal(a->n_layers, b->n_layers);
    for (int i = 0; i < a->n_layers; i++) {
        const cm_nn2fpga_layer *x = &a->layers[i], *y = &b->layers[i];
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->ow_par, y->ow_par);
        assert_int_equal(x->och_par, y->och_par);
        assert_int_equal(x->ich_par, y->ich_par);
        assert_int_equal(x->weights_in_uram, y->weights_in_uram);
        assert_int_equal(x->lc, y->lc);
        assert_int_equal(x->lw, y->lw);
        assert_int_equal(x->dsp, y->dsp);
        assert_int_equal(x->configs_kept, y->configs_kept);
    }
    assert_int_equal(a->period, b->period);
    assert_int_equal(a->period_phase1, b->period_phase1);
    assert_int_equal(a->dsp, b->dsp);
    assert_int_equal(a->bram18, b->bram18);
    assert_int_equal(a->uram, b->uram);
    assert_int_equal(a->latency_cycles, b->latency_cycles);
    assert_int_equal(b->batch, 4);
    assert_true(a->fps == b->fps && a->clock_mhz == b->clock_mhz);
    /* The search's records come back bit for bit (17 digits in the file). */
    assert_true(a->time_s == b->time_s && a->optimal == b->optimal);
    for (int p = 0; p < 2; p++) {
        assert_int_equal(a->phases[p].programs, b->phases[p].programs);
        assert_int_equal(a->phases[p].variables, b->phases[p].variables);
        assert_true(a->phases[p].time_s == b->phases[p].time_s);
    }
    assert_string_equal(d.board.name, "kv260");
    assert_int_equal(d.options.solver, CM_NN2FPGA_BIP);
    assert_true(d.options.temporal_reuse && d.options.loop_merge);
    assert_true(f.d.model_path[0] == '/'); /* recorded absolute: the file works anywhere */
    cm_nn2fpga_design_free(&d);
    free_fixture(&f);
}

/* Conv_1's output is 16 x 32 x 32: ow_par 3 does not divide 32. */
static void test_non_divisor(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f);
    json_object_set_new(layer_entry(f.root, "Conv_1"), "ow_par", json_integer(3));
    expect_load(&f, f.root, CM_EINFEASIBLE,
                "layer Conv_1: ow_par 3 does not divide the output width 32");
    json_object_set_new(layer_entry(f.root, "Conv_1"), "ow_par", json_integer(1));
    json_object_set_new(layer_entry(f.root, "MaxPool_0"), "och_par", json_integer(2));
    expect_load(&f, f.root, CM_EINFEASIBLE, "layer MaxPool_0: och_par 2 must be 1");
    free_fixture(&f);
}

/* Every factor at its dimension: far more DSPs than the KV260's 1248. */
static void test_too_many_dsps(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f);
    for (int i = 0; i < f.d.result.n_layers; i++) {
        const cm_nn2fpga_layer *l = &f.d.result.layers[i];
        json_t *e = layer_entry(f.root, l->name);
        json_object_set_new(e, "ow_par", json_integer(l->ow));
        json_object_set_new(e, "och_par", json_integer(l->kind == CM_NN2FPGA_CONV ? l->och : 1));
        json_object_set_new(e, "ich_par", json_integer(l->ich));
    }
    expect_load(&f, f.root, CM_EINFEASIBLE, "exceed the board's 1248 (kv260)");
    char path[600];
    snprintf(path, sizeof path, "%s", f.path);
    cm_nn2fpga_design d;
    cm_error err = {0};
    assert_int_equal(cm_nn2fpga_design_load(path, &d, &err), CM_EINFEASIBLE);
    assert_non_null(strstr(err.message, "DSPs"));
    free_fixture(&f);
}

static void test_layers_bad(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f);
    json_t *layers = json_object_get(f.root, "layers");
    /* unknown */
    json_t *copy = json_deep_copy(f.root);
    json_object_set_new(layer_entry(copy, "Conv_1"), "name", json_string("Conv_99"));
    expect_load(&f, copy, CM_EINPUT, "unknown layer 'Conv_99'");
    json_decref(copy);
    /* missing */
    copy = json_deep_copy(f.root);
    json_array_remove(json_object_get(copy, "layers"), 2);
    expect_load(&f, copy, CM_EINPUT, "is missing from \"layers\"");
    json_decref(copy);
    /* duplicate */
    copy = json_deep_copy(f.root);
    json_array_append(json_object_get(copy, "layers"), json_array_get(layers, 0));
    expect_load(&f, copy, CM_EINPUT, "layer 'Conv_0' is listed twice");
    json_decref(copy);
    /* out of range, wrong type: bad input, not infeasible */
    static const char *const keys[] = {"ow_par", "och_par", "ich_par"};
    for (int k = 0; k < 3; k++) {
        copy = json_deep_copy(f.root);
        json_object_set_new(layer_entry(copy, "Conv_2"), keys[k], json_integer(0));
        expect_load(&f, copy, CM_EINPUT, "layer Conv_2: ");
        json_object_set_new(layer_entry(copy, "Conv_2"), keys[k], json_real(2.5));
        expect_load(&f, copy, CM_EINPUT, keys[k]);
        json_object_set_new(layer_entry(copy, "Conv_2"), keys[k], json_integer(INT64_C(1) << 40));
        expect_load(&f, copy, CM_EINPUT, keys[k]);
        json_object_del(layer_entry(copy, "Conv_2"), keys[k]);
        expect_load(&f, copy, CM_EINPUT, "is missing");
        json_decref(copy);
    }
    copy = json_deep_copy(f.root);
    json_object_set_new(layer_entry(copy, "Conv_2"), "weights_in_uram", json_string("yes"));
    expect_load(&f, copy, CM_EINPUT, "weights_in_uram");
    json_decref(copy);
    copy = json_deep_copy(f.root);
    json_array_set_new(json_object_get(copy, "layers"), 0, json_integer(1));
    expect_load(&f, copy, CM_EINPUT, "must be an object");
    json_decref(copy);
    free_fixture(&f);
}

static void test_options_bad(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f);
    struct { const char *key; json_t *value; const char *want; } cases[] = {
        {"batch", json_integer(0), "\"batch\""},
        {"batch", json_real(2.0), "\"batch\""},
        {"clock_mhz", json_real(5000.0), "\"clock_mhz\""},
        {"clock_mhz", json_string("fast"), "\"clock_mhz\""},
        {"default_bits", json_integer(33), "\"default_bits\""},
        {"solver", json_string("rule"), "\"solver\""},
        {"objective", json_string("speed"), "\"objective\""},
        {"temporal_reuse", json_integer(1), "\"temporal_reuse\""},
        {"time_limit_s", json_real(-1.0), "\"time_limit_s\""},
        {"version", json_integer(2), "\"version\""},
        {"format", json_string("cnnmap-design"), "not an nn2FPGA design file"},
        {"model_path", json_string("no-such-model.onnx"), "no-such-model.onnx"},
        {"board", json_string("no-such-board"), "no-such-board"},
        {"layers", json_object(), "\"layers\" must be an array"},
        {"phases", json_integer(3), "\"phases\""},
        {"optimal", json_null(), "\"optimal\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *copy = json_deep_copy(f.root);
        json_object_set_new(copy, cases[i].key, cases[i].value);
        expect_load(&f, copy, CM_EINPUT, cases[i].want);
        json_object_del(copy, cases[i].key);
        expect_load(&f, copy, CM_EINPUT, "is missing");
        json_decref(copy);
    }
    json_t *arr = json_array();
    expect_load(&f, arr, CM_EINPUT, "one JSON object");
    json_decref(arr);
    free_fixture(&f);
}

/* A truncated file, an empty one and a missing one: bad input naming the file. */
static void test_truncated(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f);
    char *text = json_dumps(f.root, JSON_INDENT(1));
    assert_non_null(text);
    size_t cuts[] = {strlen(text) / 2, strlen(text) - 3, 1, 0};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        FILE *out = fopen(f.path, "w");
        assert_non_null(out);
        fwrite(text, 1, cuts[i], out);
        fclose(out);
        cm_nn2fpga_design d;
        cm_error err = {0};
        assert_int_equal(cm_nn2fpga_design_load(f.path, &d, &err), CM_EINPUT);
        assert_non_null(strstr(err.message, f.path));
        assert_false(cm_nn2fpga_is_design_file(f.path));
    }
    free(text);
    remove(f.path);
    cm_nn2fpga_design d;
    cm_error err = {0};
    assert_int_equal(cm_nn2fpga_design_load(f.path, &d, &err), CM_EINPUT);
    assert_non_null(strstr(err.message, "cannot open"));
    cm_nn2fpga_design_free(&f.d);
    json_decref(f.root);
}

/* A relative model path is taken from the design file's folder, not the working one. */
static void test_relative_model(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f);
    char dir[] = "/tmp/cnnmap-n2-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char model[600], design[600];
    snprintf(model, sizeof model, "%s/m.onnx", dir);
    snprintf(design, sizeof design, "%s/design.json", dir);
    assert_int_equal(symlink(f.d.model_path, model), 0);
    json_object_set_new(f.root, "model_path", json_string("m.onnx"));
    assert_int_equal(json_dump_file(f.root, design, 0), 0);
    cm_nn2fpga_design d;
    cm_error err = {0};
    if (cm_nn2fpga_design_load(design, &d, &err) != CM_OK)
        fail_msg("%s", err.message);
    assert_string_equal(d.model_file, model);
    assert_int_equal(d.result.period, f.d.result.period);
    cm_nn2fpga_design_free(&d);
    remove(design);
    remove(model);
    rmdir(dir);
    free_fixture(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),  cmocka_unit_test(test_non_divisor),
        cmocka_unit_test(test_too_many_dsps), cmocka_unit_test(test_layers_bad),
        cmocka_unit_test(test_options_bad), cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_relative_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
