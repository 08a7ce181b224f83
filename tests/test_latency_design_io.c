/* Latency-driven design files (src/latency/design_io.c): a searched design written and
 * read back gives the same figures without searching; hand edits are checked (blocks
 * other than the cuts give, values out of range: CM_EINPUT; a point that breaks a
 * constraint: CM_EINFEASIBLE naming the block or resource). */
#include "test_support.h"

#include <cnnmap/latency.h>
#include <cnnmap/model.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct fixture {
    char model[1024];
    char file[1024];
    cm_graph *g;
    cm_board board;
    cm_latency_options o;
} fixture;

static void setup(fixture *f, cm_latency_search search)
{
    cm_error err = {0};
    cm_test_generated_model("zoo/lenet_zoo.onnx", f->model, sizeof f->model);
    assert_int_equal(cm_model_load(f->model, &f->g, &err), CM_OK);
    assert_int_equal(cm_board_builtin("zc706", &f->board, &err), CM_OK);
    cm_latency_options_init(&f->o);
    f->o.clock_mhz = f->board.clock_mhz;
    f->o.bandwidth_gbps = f->board.bandwidth_gbps;
    f->o.search = search;
    cm_test_write_temp("", 0, ".json", f->file, sizeof f->file);
}

static void teardown(fixture *f)
{
    unlink(f->file);
    cm_graph_free(f->g);
}

static void assert_same_figures(const cm_latency_design *a, const cm_latency_design *b)
{
    assert_true(a->latency_s == b->latency_s && a->exec_s == b->exec_s && a->weights_s == b->weights_s);
    assert_true(a->gops == b->gops && a->peak_gops == b->peak_gops);
    assert_memory_equal(&a->resources, &b->resources, sizeof a->resources);
    assert_int_equal(a->n_blocks, b->n_blocks);
    for (int k = 0; k < a->n_blocks; k++) {
        assert_string_equal(a->blocks[k].name, b->blocks[k].name);
        assert_int_equal(a->blocks[k].coarse, b->blocks[k].coarse);
        assert_int_equal(a->blocks[k].macc, b->blocks[k].macc);
        assert_int_equal(a->blocks[k].bank_bram, b->blocks[k].bank_bram);
    }
    assert_int_equal(a->n_subgraphs, b->n_subgraphs);
    for (int s = 0; s < a->n_subgraphs; s++) {
        assert_int_equal(a->subgraphs[s].first_layer, b->subgraphs[s].first_layer);
        assert_int_equal(a->subgraphs[s].folds, b->subgraphs[s].folds);
        assert_true(a->subgraphs[s].exec_s == b->subgraphs[s].exec_s);
    }
    for (int i = 0; i < a->n_layers; i++)
        assert_int_equal(a->fin[i], b->fin[i]);
    /* the run's records are the file's */
    assert_true(a->evaluations == b->evaluations && a->time_s == b->time_s);
    assert_true(a->stopped_early == b->stopped_early);
    assert_true(a->stopped_by_budget == b->stopped_by_budget);
}

/* Both kinds of point: the rule search's (one subgraph, seven blocks) and the minimal
 * one (every weight layer its own subgraph, input folding, an accumulation block). */
static void round_trip(cm_latency_search search, int min_subgraphs)
{
    fixture f;
    setup(&f, search);
    cm_latency_design d;
    cm_latency_file back;
    cm_error err = {0};
    assert_int_equal(cm_latency_optimise(f.g, &f.board, &f.o, &d, &err), CM_OK);
    assert_true(d.n_subgraphs >= min_subgraphs);
    assert_int_equal(cm_latency_design_save(f.file, f.model, "zc706", f.g, &f.o, &d, &err), CM_OK);
    assert_true(cm_latency_is_design_file(f.file));
    assert_int_equal(cm_latency_design_load(f.file, &back, &err), CM_OK);
    assert_same_figures(&d, &back.design);
    assert_int_equal(back.options.search, search);
    assert_string_equal(back.board_ref, "zc706");
    cm_latency_file_free(&back);
    cm_latency_design_free(&d);
    teardown(&f);
}

static void test_round_trip_rule(void **state)
{
    (void)state;
    round_trip(CM_LATENCY_SEARCH_RULE, 1);
}

static void test_round_trip_minimal(void **state)
{
    (void)state;
    round_trip(CM_LATENCY_SEARCH_MINIMAL, 4);
}

/* Writes the rule design, applies `edit` (a block index and a key, a whole entry
 * removed, or block -1: a cut before the graph's second layer), loads it and checks the
 * status and the message. */
typedef struct edit {
    int block;              /* -1: add a cut instead */
    const char *key;
    json_t *value;          /* NULL: remove the block */
    cm_status want;
    const char *message[3]; /* substrings of the message */
} edit;

static void check_edit(const edit *e)
{
    fixture f;
    setup(&f, CM_LATENCY_SEARCH_RULE);
    cm_latency_design d;
    cm_latency_file back;
    cm_error err = {0};
    assert_int_equal(cm_latency_optimise(f.g, &f.board, &f.o, &d, &err), CM_OK);
    assert_int_equal(cm_latency_design_save(f.file, f.model, "zc706", f.g, &f.o, &d, &err), CM_OK);
    json_t *root = json_load_file(f.file, 0, NULL);
    json_t *blocks = json_object_get(json_object_get(root, "point"), "blocks");
    if (e->block < 0)
        json_array_append_new(json_object_get(json_object_get(root, "point"), "cuts"),
                              json_string(f.g->layers[1].name));
    else if (e->value)
        json_object_set_new(json_array_get(blocks, (size_t)e->block), e->key, e->value);
    else
        json_array_remove(blocks, (size_t)e->block);
    assert_int_equal(json_dump_file(root, f.file, 0), 0);
    json_decref(root);
    assert_int_equal(cm_latency_design_load(f.file, &back, &err), e->want);
    for (int i = 0; i < 3 && e->message[i]; i++)
        if (!strstr(err.message, e->message[i]))
            fail_msg("'%s' not in: %s", e->message[i], err.message);
    assert_non_null(strstr(err.message, f.file));
    cm_latency_design_free(&d);
    teardown(&f);
}

/* LeNet's rule design is one subgraph on conv0 pool0 conv1 pool1 conv2 relu0 conv3. */
static void test_unknown_block(void **state)
{
    (void)state;
    edit e = {1, "name", json_string("nosuch"), CM_EINPUT,
              {"block 'nosuch' (Pooling): the cuts give 'pool0' (Pooling) in its place"}};
    check_edit(&e);
}

static void test_mismatched_kind(void **state)
{
    (void)state;
    edit e = {1, "kind", json_string("Convolution"), CM_EINPUT,
              {"block 'pool0' (Convolution): the cuts give 'pool0' (Pooling)"}};
    check_edit(&e);
}

static void test_missing_block(void **state)
{
    (void)state;
    edit e = {6, "name", NULL, CM_EINPUT, {"block 'conv3' (Convolution), which the cuts give, is missing"}};
    check_edit(&e);
}

static void test_out_of_range(void **state)
{
    (void)state;
    edit e = {0, "macc", json_integer(0), CM_EINPUT,
              {"block conv0: \"macc\" must be an integer from 1 to 65536"}};
    check_edit(&e);
}

/* ZC706 has 900 DSPs; 4096 coarse units of 25 MACCs need far more. */
static void test_over_board_coarse(void **state)
{
    (void)state;
    edit e = {0, "coarse", json_integer(4096), CM_EINFEASIBLE,
              {"DSP ", "exceed the board's 900 (zc706; resource constraint)",
               "block conv0 (coarse 4096, macc 25) is the largest user"}};
    check_edit(&e);
}

/* conv2 runs fc1 (800 inputs, 500 outputs, 1x1 window) on 125 coarse units of one MACC:
 * ceil(500 / 125) * 800 * 1 = 3,200 16-bit words a bank, 4 BRAM18 of 1,024 x 18 bits.
 * fc1 shares its subgraph with other weight layers, so it cannot be folded. */
static void test_bank_too_small(void **state)
{
    (void)state;
    edit e = {4, "bank_bram18", json_integer(3), CM_EINFEASIBLE,
              {"block conv2: bank_bram18 3 is too small for layer ",
               "(4 BRAM18 a bank; bank constraint)"}};
    check_edit(&e);
}

/* Cuts come only before weight layers other than the first: LeNet's second layer is
 * its first pooling. */
/* The run's stopped_by_budget: read back as written, false in a file written before
 * the key existed, and a value that is not a boolean is bad input naming the key. */
static void test_run_budget_flag(void **state)
{
    (void)state;
    fixture f;
    setup(&f, CM_LATENCY_SEARCH_RULE);
    cm_latency_design d;
    cm_error err = {0};
    assert_int_equal(cm_latency_optimise(f.g, &f.board, &f.o, &d, &err), CM_OK);
    d.stopped_early = d.stopped_by_budget = true; /* as a search the budget ended */
    json_t *const values[3] = {json_true(), NULL, json_string("yes")};
    const cm_status want[3] = {CM_OK, CM_OK, CM_EINPUT};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(cm_latency_design_save(f.file, f.model, "zc706", f.g, &f.o, &d, &err),
                         CM_OK);
        json_t *root = json_load_file(f.file, 0, NULL);
        json_t *run = json_object_get(root, "run");
        assert_non_null(run);
        assert_true(json_is_true(json_object_get(run, "stopped_by_budget")));
        if (values[i])
            json_object_set_new(run, "stopped_by_budget", values[i]);
        else
            json_object_del(run, "stopped_by_budget");
        assert_int_equal(json_dump_file(root, f.file, 0), 0);
        json_decref(root);
        cm_latency_file back;
        assert_int_equal(cm_latency_design_load(f.file, &back, &err), want[i]);
        if (want[i] != CM_OK) {
            assert_non_null(strstr(err.message, "stopped_by_budget"));
            assert_non_null(strstr(err.message, f.file));
            continue;
        }
        assert_true(back.design.stopped_early);
        assert_true(back.design.stopped_by_budget == (i == 0));
        cm_latency_file_free(&back);
    }
    cm_latency_design_free(&d);
    teardown(&f);
}

static void test_bad_cut(void **state)
{
    (void)state;
    edit e = {-1, NULL, NULL, CM_EINPUT, {"cuts come before convolution or dense layers only"}};
    check_edit(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_rule),    cmocka_unit_test(test_round_trip_minimal),
        cmocka_unit_test(test_unknown_block),      cmocka_unit_test(test_mismatched_kind),
        cmocka_unit_test(test_missing_block),      cmocka_unit_test(test_out_of_range),
        cmocka_unit_test(test_over_board_coarse),  cmocka_unit_test(test_bank_too_small),
        cmocka_unit_test(test_bad_cut),           cmocka_unit_test(test_run_budget_flag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
