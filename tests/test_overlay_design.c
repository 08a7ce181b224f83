/* Overlay design files and cm_overlay_cost through the library API: a mapping costed
 * again without searching gives the very figures the search gave (GoogLeNet on the
 * U200 with DYNAMAP's 6084-DSP cap, written and read back; AlexNet's costed directly,
 * and written and read back with its weights read from DRAM),
 * a dataflow other than the fastest costs what eq. 9 gives by hand, and hand edits are
 * CM_EINPUT (malformed: unknown or missing layers, unknown algorithms, wrong types,
 * values out of range) or CM_EINFEASIBLE (a broken constraint) naming the file and the
 * layer, field or resource. */
#include "test_support.h"

#include <cnnmap/model.h>
#include <cnnmap/overlay.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct fixture {
    cm_overlay_design d;
    char path[512];
    json_t *root;
} fixture;

static void dynamap_options(cm_overlay_options *o)
{
    cm_overlay_options_default(o);
    o->dsp_limit = 6084;
}

static int setup(void **state)
{
    static fixture f;
    char model[1024];
    cm_test_generated_model("torchvision/googlenet_noweights.onnx", model, sizeof model);
    cm_overlay_options o;
    dynamap_options(&o);
    cm_error err = {0};
    if (cm_overlay_design_create(model, "u200", &o, &f.d, &err) != CM_OK)
        fail_msg("%s", err.message);
    cm_test_write_temp("", 0, ".json", f.path, sizeof f.path);
    if (cm_overlay_design_save(&f.d, f.path, &err) != CM_OK)
        fail_msg("%s", err.message);
    f.root = json_load_file(f.path, 0, NULL);
    assert_non_null(f.root);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    cm_overlay_design_free(&f->d);
    json_decref(f->root);
    remove(f->path);
    return 0;
}

static void same_rows(const cm_overlay_result *a, const cm_overlay_result *b)
{
    assert_int_equal(a->n_layers, b->n_layers);
    for (int i = 0; i < a->n_layers; i++) {
        const cm_overlay_layer *x = &a->layers[i], *y = &b->layers[i];
        assert_int_equal(x->layer, y->layer);
        assert_int_equal(x->algorithm, y->algorithm);
        assert_int_equal(x->dataflow, y->dataflow);
        assert_int_equal(x->cycles, y->cycles);
        assert_true(x->compute_s == y->compute_s && x->transition_s == y->transition_s);
        assert_true(x->memory_s == y->memory_s);
        assert_true(x->utilisation == y->utilisation);
    }
    assert_true(a->weights_resident == b->weights_resident);
    assert_int_equal(a->weight_bytes, b->weight_bytes);
    assert_int_equal(a->onchip_bytes, b->onchip_bytes);
    assert_int_equal(a->n_formats, b->n_formats);
    assert_memory_equal(a->formats, b->formats, (size_t)a->n_formats * sizeof *a->formats);
}

static void test_round_trip(void **state)
{
    fixture *f = *state;
    cm_overlay_design d;
    cm_error err = {0};
    if (cm_overlay_design_load(f->path, &d, &err) != CM_OK)
        fail_msg("%s", err.message);
    const cm_overlay_result *a = f->d.result, *b = d.result;
    assert_true(a->optimal && b->optimal);
    assert_memory_equal(a->array, b->array, sizeof a->array);
    assert_true(a->latency_s == b->latency_s && a->gops == b->gops);
    same_rows(a, b);
    assert_int_equal(a->n_layers, 72); /* 57 conv, the fc, 14 pools */
    assert_true(a->n_formats > 10);    /* the input, 9 concats, the stores before them */
    for (int k = 0; k < CM_OVERLAY_CONV_ALGORITHMS; k++)
        assert_true(a->baselines[k].latency_s == b->baselines[k].latency_s);
    assert_true(a->greedy.latency_s == b->greedy.latency_s);
    assert_int_equal(a->cost_graph_vertices, b->cost_graph_vertices);
    assert_int_equal(a->cost_graph_edges, b->cost_graph_edges);
    /* one DSP per PE; the buffers: P1 + P2 + 2 max(P1, P2) BRAM18 */
    int64_t p1 = a->array[0], p2 = a->array[1];
    assert_int_equal(b->dsp, p1 * p2);
    assert_int_equal(b->bram18, p1 + p2 + 2 * (p1 > p2 ? p1 : p2));
    assert_int_equal(d.options.dsp_limit, 6084);
    assert_int_equal(d.options.algorithms, CM_OVERLAY_ALL_ALGORITHMS);
    assert_string_equal(d.board_ref, "u200");
    assert_true(d.model_path[0] == '/');
    cm_overlay_design_free(&d);
}

/* AlexNet's mapping costed again by cm_overlay_cost, then with conv1 under WS and IS.
 * conv1 is 3x228x228 -> 64x55x55, 11x11 stride 4: im2col is a 3025 x 363 by 363 x 64
 * GEMM. On 95 x 64 (eq. 9, plus I_SA = 95 + 64 = 159 cycles):
 *   NS  ceil(3025/95) ceil(64/64) 363  = 32 x 363   = 11616 + 159 = 11775
 *   WS  ceil(363/95)  ceil(64/64) 3025 = 4 x 3025   = 12100 + 159 = 12259
 *   IS  ceil(363/95)  ceil(3025/64) 64 = 4 x 48 x 64 = 12288 + 159 = 12447 */
static void test_cost_by_hand(void **state)
{
    (void)state;
    char model[1024];
    cm_test_generated_model("zoo/alexnet_fe.onnx", model, sizeof model);
    cm_graph *g = NULL;
    cm_error err = {0};
    cm_board b;
    assert_int_equal(cm_board_builtin("u200", &b, NULL), CM_OK);
    if (cm_model_load(model, &g, &err) != CM_OK)
        fail_msg("%s", err.message);
    cm_overlay_options o;
    dynamap_options(&o);
    cm_overlay_result *r = NULL, *c = NULL;
    assert_int_equal(cm_overlay_map(g, &b, &o, &r, &err), CM_OK);
    assert_int_equal(r->array[0], 95);
    assert_int_equal(r->array[1], 64);
    memcpy(o.array, r->array, sizeof o.array);
    assert_int_equal(cm_overlay_cost(g, &b, &o, r->layers, r->n_layers, r->formats, r->n_formats,
                                     &c, &err), CM_OK);
    assert_true(c->latency_s == r->latency_s);
    same_rows(r, c);
    assert_string_equal(g->layers[r->layers[0].layer].name, "conv1");
    assert_int_equal(r->layers[0].algorithm, CM_OVERLAY_IM2COL);
    assert_int_equal(r->layers[0].dataflow, CM_OVERLAY_NS);
    assert_int_equal(r->layers[0].cycles, 11775);
    const uint64_t want[2] = {12259, 12447};
    for (int k = 0; k < 2; k++) {
        cm_overlay_result *x = NULL;
        r->layers[0].dataflow = k == 0 ? CM_OVERLAY_WS : CM_OVERLAY_IS;
        assert_int_equal(cm_overlay_cost(g, &b, &o, r->layers, r->n_layers, r->formats,
                                         r->n_formats, &x, &err), CM_OK);
        assert_int_equal(x->layers[0].cycles, want[k]);
        /* only conv1's compute changes: its layouts are the same */
        double more = (double)(want[k] - 11775) / 286e6;
        assert_true(fabs(x->latency_s - c->latency_s - more) < 1e-12);
        assert_true(x->layers[0].transition_s == c->layers[0].transition_s);
        cm_overlay_result_free(x);
    }
    cm_overlay_result_free(c);
    cm_overlay_result_free(r);
    cm_graph_free(g);
}

/* AlexNet's 61.1 M weights do not fit the U200's 39.6 MB beside the buffers, so each
 * layer reads its own. A design file written and read back costs them the same: fc6
 * (9216 x 4096 and 4096 biases, 37,752,832 bytes) reads for 37752832 / 77e9 = 490.3 us,
 * far longer than its compute, and its weights set its time in both. */
static void test_weights_round_trip(void **state)
{
    (void)state;
    char model[1024], path[512];
    cm_test_generated_model("torchvision/alexnet_noweights.onnx", model, sizeof model);
    cm_test_write_temp("", 0, ".json", path, sizeof path);
    cm_overlay_options o;
    dynamap_options(&o);
    cm_overlay_design a, b;
    cm_error err = {0};
    if (cm_overlay_design_create(model, "u200", &o, &a, &err) != CM_OK ||
        cm_overlay_design_save(&a, path, &err) != CM_OK ||
        cm_overlay_design_load(path, &b, &err) != CM_OK)
        fail_msg("%s", err.message);
    assert_false(b.result->weights_resident);
    assert_true(a.result->latency_s == b.result->latency_s);
    same_rows(a.result, b.result);
    int fc6 = 0;
    while (fc6 < b.result->n_layers && b.graph->layers[b.result->layers[fc6].layer].op != CM_OP_FC)
        fc6++;
    assert_true(fc6 < b.result->n_layers);
    const cm_overlay_layer *l = &b.result->layers[fc6];
    assert_true(fabs(l->memory_s - 37752832 / 77e9) <= 1e-15);
    assert_true(l->memory_s > 10 * l->compute_s);
    cm_overlay_design_free(&a);
    cm_overlay_design_free(&b);
    remove(path);
}

static json_t *layer_entry(json_t *root, const char *name)
{
    json_t *e;
    size_t i;
    json_array_foreach(json_object_get(root, "layers"), i, e)
        if (strcmp(json_string_value(json_object_get(e, "name")), name) == 0)
            return e;
    fail_msg("no layer %s in the design file", name);
    return NULL;
}

/* The first layer of the design with this algorithm and, when k > 0, a k x k kernel. */
static const char *layer_with(const cm_overlay_design *d, cm_overlay_algorithm a, int k)
{
    for (int i = 0; i < d->result->n_layers; i++) {
        const cm_layer *l = &d->graph->layers[d->result->layers[i].layer];
        if (d->result->layers[i].algorithm == a && (k == 0 || l->kernel[0] == k))
            return l->name;
    }
    fail_msg("no layer with algorithm %d", (int)a);
    return NULL;
}

/* Applies the edit to a copy of the design file, loads it: the status, and that the
 * one-line message names the file and says `want`. */
static void expect_edit(fixture *f, const char *key, json_t *value, const char *layer,
                        cm_status status, const char *want)
{
    json_t *root = json_deep_copy(f->root);
    json_t *obj = layer ? layer_entry(root, layer) : root;
    if (value)
        json_object_set_new(obj, key, value);
    else
        json_object_del(obj, key);
    char path[512];
    cm_test_write_temp("", 0, ".json", path, sizeof path);
    assert_int_equal(json_dump_file(root, path, JSON_INDENT(1)), 0);
    json_decref(root);
    cm_overlay_design d;
    cm_error err = {0};
    cm_status st = cm_overlay_design_load(path, &d, &err);
    if (st != status)
        fail_msg("%s: want status %d, got %d: %s", want, status, st, err.message);
    if (st == CM_OK) {
        cm_overlay_design_free(&d);
    } else {
        assert_non_null(strstr(err.message, path));
        if (!strstr(err.message, want))
            fail_msg("message '%s' does not say '%s'", err.message, want);
        assert_null(strchr(err.message, '\n'));
        assert_null(d.graph);
    }
    remove(path);
}

static void test_bad_input(void **state)
{
    fixture *f = *state;
    const char *conv = layer_with(&f->d, CM_OVERLAY_IM2COL, 1);
    expect_edit(f, "name", json_string("nope"), conv, CM_EINPUT, "unknown layer 'nope'");
    expect_edit(f, "algorithm", json_string("fft"), conv, CM_EINPUT, "unknown algorithm 'fft'");
    expect_edit(f, "algorithm", json_integer(1), conv, CM_EINPUT, "\"algorithm\" must be");
    expect_edit(f, "dataflow", json_string("XS"), conv, CM_EINPUT, "\"dataflow\" must be NS, WS");
    expect_edit(f, "array", json_string("92x66"), NULL, CM_EINPUT, "\"array\" must be an array");
    expect_edit(f, "array", json_pack("[i, i]", 0, 66), NULL, CM_EINPUT,
                "\"array\" must be an integer from 1");
    expect_edit(f, "dsp_limit", json_integer(-3), NULL, CM_EINPUT, "\"dsp_limit\" must be");
    expect_edit(f, "algorithms", json_pack("[s]", "fft"), NULL, CM_EINPUT,
                "\"algorithms\": unknown algorithm 'fft'");
    expect_edit(f, "time_limit_s", json_string("10"), NULL, CM_EINPUT, "\"time_limit_s\" must be");
    expect_edit(f, "layers", NULL, NULL, CM_EINPUT, "\"layers\" (an array) is missing");
    expect_edit(f, "formats", json_array(), NULL, CM_EINPUT, "is missing from the mapping");
    expect_edit(f, "version", json_integer(2), NULL, CM_EINPUT, "\"version\"");
    /* a layer left out of "layers" */
    json_t *layers = json_deep_copy(json_object_get(f->root, "layers"));
    json_array_remove(layers, 2);
    expect_edit(f, "layers", layers, NULL, CM_EINPUT, "is missing from the mapping");
    /* malformed and infeasible at once: bad input wins */
    json_t *both = json_deep_copy(json_object_get(f->root, "layers"));
    json_object_set_new(json_array_get(both, 0), "algorithm", json_string("fft"));
    json_t *saved = json_deep_copy(f->root);
    json_object_set_new(f->root, "array", json_pack("[i, i]", 100, 100));
    expect_edit(f, "layers", both, NULL, CM_EINPUT, "unknown algorithm 'fft'");
    json_decref(f->root);
    f->root = saved;
}

static void test_infeasible(void **state)
{
    fixture *f = *state;
    const char *one = layer_with(&f->d, CM_OVERLAY_IM2COL, 1);
    const char *wino = layer_with(&f->d, CM_OVERLAY_WINOGRAD, 0);
    const char *pool = layer_with(&f->d, CM_OVERLAY_POOL, 0);
    char want[256];
    snprintf(want, sizeof want, "layer '%s' (conv, kernel 1x1, stride 1): winograd does not apply", one);
    expect_edit(f, "algorithm", json_string("winograd"), one, CM_EINFEASIBLE, want);
    expect_edit(f, "array", json_pack("[i, i]", 100, 100), NULL, CM_EINFEASIBLE,
                "DSP: a 100x100 array needs 10000 DSPs, the limit is 6084");
    expect_edit(f, "dsp_limit", json_integer(7000), NULL, CM_EINFEASIBLE,
                "DSP: a limit of 7000 DSPs exceeds the 6840 of u200");
    snprintf(want, sizeof want, "layer '%s': winograd is not among the allowed algorithms (im2col,kn2row)",
             wino);
    expect_edit(f, "algorithms", json_pack("[s, s]", "im2col", "kn2row"), NULL, CM_EINFEASIBLE, want);
    snprintf(want, sizeof want, "layer '%s' (pool_max) runs on the pooling module: algorithm pool, "
             "not im2col", pool);
    expect_edit(f, "algorithm", json_string("im2col"), pool, CM_EINFEASIBLE, want);
    expect_edit(f, "dataflow", json_string("NS"), pool, CM_EINFEASIBLE, "its dataflow must be null");
    snprintf(want, sizeof want, "layer '%s': im2col runs on the array and needs a dataflow", one);
    expect_edit(f, "dataflow", json_null(), one, CM_EINFEASIBLE, want);
    /* the input held as the Toeplitz layout of a layer that does not read the input */
    json_t *formats = json_deep_copy(json_object_get(f->root, "formats"));
    json_t *input = json_array_get(formats, 0);
    assert_string_equal(json_string_value(json_object_get(input, "vertex")), "input");
    const char *conv3 = layer_with(&f->d, CM_OVERLAY_IM2COL, 3);
    json_object_set_new(input, "layout", json_string("toeplitz"));
    json_object_set_new(input, "reader", json_string(conv3));
    snprintf(want, sizeof want, "cannot hold the toeplitz layout of layer '%s'", conv3);
    expect_edit(f, "formats", formats, NULL, CM_EINFEASIBLE, want);
}

/* A feasible edit: costed, no longer called optimal, and no faster than the optimum. */
static void test_feasible_edit(void **state)
{
    fixture *f = *state;
    const char *kn2row = layer_with(&f->d, CM_OVERLAY_KN2ROW, 0);
    json_t *root = json_deep_copy(f->root);
    json_object_set_new(layer_entry(root, kn2row), "algorithm", json_string("im2col"));
    char path[512];
    cm_test_write_temp("", 0, ".json", path, sizeof path);
    assert_int_equal(json_dump_file(root, path, JSON_INDENT(1)), 0);
    json_decref(root);
    cm_overlay_design d;
    cm_error err = {0};
    if (cm_overlay_design_load(path, &d, &err) != CM_OK)
        fail_msg("%s", err.message);
    assert_false(d.result->optimal);
    assert_non_null(strstr(d.result->not_optimal_reason, "not the one the search found"));
    assert_true(d.result->latency_s > f->d.result->latency_s);
    int changed = 0;
    for (int i = 0; i < d.result->n_layers; i++)
        changed += d.result->layers[i].algorithm != f->d.result->layers[i].algorithm;
    assert_int_equal(changed, 1);
    cm_overlay_design_free(&d);
    remove(path);
}

static void test_is_design_file(void **state)
{
    fixture *f = *state;
    assert_true(cm_overlay_is_design_file(f->path));
    char path[512];
    cm_test_write_temp("{\"format\": \"cnnmap-design\"}", 27, ".json", path, sizeof path);
    assert_false(cm_overlay_is_design_file(path));
    cm_overlay_design d;
    cm_error err = {0};
    assert_int_equal(cm_overlay_design_load(path, &d, &err), CM_EINPUT);
    assert_non_null(strstr(err.message, "not an overlay design file"));
    remove(path);
    assert_false(cm_overlay_is_design_file("/nonexistent/design.json"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),    cmocka_unit_test(test_cost_by_hand),
        cmocka_unit_test(test_weights_round_trip),
        cmocka_unit_test(test_bad_input),     cmocka_unit_test(test_infeasible),
        cmocka_unit_test(test_feasible_edit), cmocka_unit_test(test_is_design_file),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
