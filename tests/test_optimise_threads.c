/* Tests of --threads (issues 17 and 19): anneal's restarts run on several threads and
 * exact runs alike whatever the number, so 1, 2 and 3 threads give the same design file
 * byte for byte once the run's time is zeroed, the same evaluations and the same note;
 * and the design copies the threads work on (design/design_copy.h) start as their
 * source and cost the same. */
#include "test_support.h"

#include <cnnmap/design.h>
#include <cnnmap/design_io.h>
#include <cnnmap/optimise.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "design/design_copy.h"

typedef struct setup {
    const char *model, *board;
    cm_backend backend;
    uint64_t max_points; /* 0: the default budget */
    double gap;          /* exact's --gap; 0: proven optimal */
} setup;

static cm_design *make_design(const setup *s)
{
    char path[1024];
    cm_test_generated_model(s->model, path, sizeof path);
    return cm_test_design(path, s->board, s->backend, 0, true);
}

/* The whole file the design saves to, with the run's time zeroed; malloc'd. */
static char *design_text(const cm_design *d, cm_design_run *run)
{
    char path[] = "/tmp/cm_threads_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    run->result.time_s = 0.0;
    cm_error err = {0};
    if (cm_design_save(d, run, path, &err) != CM_OK)
        fail_msg("%s", err.message);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = calloc((size_t)n + 1, 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    unlink(path);
    return text;
}

/* Optimises a fresh design of s on `threads` threads; returns its file's text. */
static char *optimise_text(const setup *s, cm_optimiser which, int threads,
                           cm_optimise_result *out)
{
    cm_design *d = make_design(s);
    assert_non_null(d);
    cm_optimise_options o = {.optimiser = which, .seed = 7, .threads = threads,
                             .max_points = s->max_points, .gap = s->gap};
    cm_design_run run = {.optimiser = which, .seed = 7};
    cm_error err = {0};
    if (cm_optimise(d, &o, &run.result, &err) != CM_OK)
        fail_msg("%s", err.message);
    *out = run.result;
    char *text = design_text(d, &run);
    cm_design_free(d);
    return text;
}

static void assert_same_runs(const setup *s, cm_optimiser which)
{
    cm_optimise_result one;
    char *first = optimise_text(s, which, 1, &one);
    for (int threads = 2; threads <= 3; threads++) {
        cm_optimise_result many;
        char *again = optimise_text(s, which, threads, &many);
        if (strcmp(first, again) != 0)
            fail_msg("%s on %s, %s: %d threads give another design file", cm_optimiser_name(which),
                     s->model, s->board, threads);
        assert_true(one.evaluations == many.evaluations);
        assert_string_equal(one.note, many.note);
        assert_int_equal(one.stopped_early, many.stopped_early);
        assert_int_equal(one.has_lower_bound, many.has_lower_bound);
        assert_memory_equal(&one.lower_bound_s, &many.lower_bound_s, sizeof one.lower_bound_s);
        free(again);
    }
    free(first);
}

static const setup lenet = {"zoo/lenet_zoo.onnx", "zedboard", CM_BACKEND_FPGACONVNET, 0, 0};
static const setup cnv_finn = {"zoo/cnv.onnx", "zedboard", CM_BACKEND_FINN, 0, 0};
static const setup mpcnn_finn = {"zoo/mpcnn.onnx", "zedboard", CM_BACKEND_FINN, 0, 0};
/* the gap its three programs without first frames prove (0.285%): proving it optimal
 * takes half a minute */
static const setup resnet18 = {"torchvision/resnet18_noweights.onnx", "u250",
                               CM_BACKEND_FPGACONVNET, 0, 0.003};
/* a branching segment solved again with its first frame */
static const setup squeezenet = {"torchvision/squeezenet1_1_noweights.onnx", "zcu102",
                                 CM_BACKEND_FPGACONVNET, 0, 0};
/* a budget that ends the search inside a round: every restart's share counts */
static const setup mobilenet_budget = {"zoo/mobilenet_v1.onnx", "u250", CM_BACKEND_FINN,
                                       150000, 0};

/* LeNet does not fit a ZedBoard on fpgaConvNet: the violation is annealed throughout. */
static void test_anneal_lenet_infeasible(void **state)
{
    (void)state;
    assert_same_runs(&lenet, CM_OPTIMISER_ANNEAL);
}

static void test_anneal_cnv(void **state)
{
    (void)state;
    assert_same_runs(&cnv_finn, CM_OPTIMISER_ANNEAL);
}

static void test_anneal_mpcnn(void **state)
{
    (void)state;
    assert_same_runs(&mpcnn_finn, CM_OPTIMISER_ANNEAL);
}

static void test_anneal_budget(void **state)
{
    (void)state;
    cm_optimise_result r;
    free(optimise_text(&mobilenet_budget, CM_OPTIMISER_ANNEAL, 2, &r));
    assert_true(r.stopped_early);
    assert_non_null(strstr(r.note, "budget"));
    assert_same_runs(&mobilenet_budget, CM_OPTIMISER_ANNEAL);
}

static void test_exact(void **state)
{
    (void)state;
    assert_same_runs(&lenet, CM_OPTIMISER_EXACT);
    assert_same_runs(&cnv_finn, CM_OPTIMISER_EXACT);
    /* three partitions: a round refines several segments at once */
    assert_same_runs(&resnet18, CM_OPTIMISER_EXACT);
    assert_same_runs(&squeezenet, CM_OPTIMISER_EXACT);
}

/* A copy costs what its source costs, under the source's limits, and moves on its own. */
static void test_design_copy(void **state)
{
    (void)state;
    cm_design *d = make_design(&cnv_finn);
    cm_optimise_options o = {.optimiser = CM_OPTIMISER_RULE, .seed = 1};
    cm_optimise_result r;
    cm_error err = {0};
    assert_int_equal(cm_optimise(d, &o, &r, &err), CM_OK);
    cm_resources less = *cm_design_limits(d);
    less.lut /= 2;
    cm_design_set_limits(d, &less);
    cm_design *c = NULL;
    assert_int_equal(cm_design_copy_new(d, &c, &err), CM_OK);
    assert_true(cm_design_evaluations(c) == 0);
    assert_int_equal(cm_design_feasible(c), cm_design_feasible(d));
    assert_memory_equal(&(double){cm_design_cost(c)}, &(double){cm_design_cost(d)}, sizeof(double));
    assert_int_equal(cm_design_limits(c)->lut, less.lut);
    assert_int_equal(cm_design_partition_count(c), cm_design_partition_count(d));
    for (int i = 0; i < cm_design_node_count(d); i++) {
        cm_node_info x, y;
        cm_design_node_info(d, i, &x);
        cm_design_node_info(c, i, &y);
        assert_true(x.fold_in == y.fold_in && x.fold_out == y.fold_out &&
                    x.fold_kernel == y.fold_kernel);
        assert_string_equal(x.layer, y.layer); /* the graph is shared */
    }
    double before = cm_design_cost(d);
    cm_design_split_all(c);
    cm_design_set_folding(c, 0, 1, 1, 1);
    assert_memory_equal(&(double){cm_design_cost(d)}, &before, sizeof(double));
    /* the copy took d's node costs and shares its hardware graph: the same moves on
     * both give the same figures, and freeing the copy leaves d whole */
    cm_design_split_all(d);
    cm_design_set_folding(d, 0, 1, 1, 1);
    assert_memory_equal(&(double){cm_design_cost(c)}, &(double){cm_design_cost(d)}, sizeof(double));
    assert_int_equal(cm_design_feasible(c), cm_design_feasible(d));
    cm_design_copy_free(c);
    cm_design_set_folding(d, 1, 1, 1, 1);
    assert_true(cm_design_cost(d) > 0);
    cm_design_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_design_copy),
        cmocka_unit_test(test_anneal_lenet_infeasible),
        cmocka_unit_test(test_anneal_cnv),
        cmocka_unit_test(test_anneal_mpcnn),
        cmocka_unit_test(test_anneal_budget),
        cmocka_unit_test(test_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
