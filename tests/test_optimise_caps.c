/* Resource caps (--max-util) and --target-fps: the limits worked out by hand; a capped
 * design never uses more than its share and, on a small net where the cap binds, costs
 * more; exact under a cap F equals exact on a board whose resources are F times as
 * many; design files record the cap and read old files as uncapped; --target-fps with
 * exact reaches the rate and nothing exact finds with one DSP (or, at those DSPs, one
 * BRAM18) fewer does; an unreachable rate is CM_EINFEASIBLE naming the best. */
#include "test_support.h"

#include <cnnmap/design.h>
#include <cnnmap/design_io.h>
#include <cnnmap/model.h>
#include <cnnmap/optimise.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static cm_design *make(const char *name, const cm_board *board, cm_backend backend, double util)
{
    char path[1024], file[64];
    snprintf(file, sizeof file, "zoo/%s.onnx", name);
    cm_test_generated_model(file, path, sizeof path);
    cm_error err = {0};
    cm_graph *g = NULL;
    assert_int_equal(cm_model_load(path, &g, &err), CM_OK);
    cm_design_options o;
    cm_design_options_init(&o);
    o.backend = backend;
    cm_util_caps_set_all(&o.max_util, util);
    cm_design *d = NULL;
    if (cm_design_create(g, board, &o, &d, &err) != CM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(cm_design_set_sources(d, path, board->name, &err), CM_OK);
    return d;
}

static cm_board zedboard(void)
{
    cm_board b;
    cm_error err = {0};
    assert_int_equal(cm_board_builtin("zedboard", &b, &err), CM_OK);
    return b;
}

static void run(cm_design *d, cm_optimiser which, cm_optimise_result *r)
{
    cm_optimise_options o = {.optimiser = which, .seed = 1};
    cm_error err = {0};
    if (cm_optimise(d, &o, r, &err) != CM_OK)
        fail_msg("%s", err.message);
}

/* ZedBoard: 220 DSP, 280 BRAM18, 53,200 LUT, 106,400 FF, no URAM. */
static void test_caps_by_hand(void **state)
{
    (void)state;
    cm_board b = zedboard();
    cm_util_caps c;
    cm_resources r;
    cm_util_caps_set_all(&c, 0.5);
    cm_util_caps_apply(&c, &b.resources, &r);
    assert_int_equal(r.dsp, 110);
    assert_int_equal(r.bram18, 140);
    assert_int_equal(r.lut, 26600);
    assert_int_equal(r.ff, 53200);
    cm_util_caps_set_all(&c, 0.333);  /* 73.26, 93.24, 17715.6, 35431.2: rounded down */
    cm_util_caps_apply(&c, &b.resources, &r);
    assert_int_equal(r.dsp, 73);
    assert_int_equal(r.bram18, 93);
    assert_int_equal(r.lut, 17715);
    assert_int_equal(r.ff, 35431);
    assert_int_equal(r.uram, 0);
    cm_util_caps_set_all(&c, 0.0); /* zeroed options cap nothing */
    assert_true(cm_util_caps_whole(&c));
    cm_util_caps_apply(&c, &b.resources, &r);
    assert_memory_equal(&r, &b.resources, sizeof r);
}

static bool within(const cm_resources *r, const cm_resources *max)
{
    return r->dsp <= max->dsp && r->bram18 <= max->bram18 && r->lut <= max->lut &&
           r->ff <= max->ff && r->uram <= max->uram;
}

/* hls4ml's jet tagging on a ZedBoard: the latency-optimal design uses more than 10% of
 * the DSPs, so at --max-util 0.1 the answer changes, stays within 22 DSP, 28 BRAM18,
 * 5,320 LUT and 10,640 FF, and is slower. Exact under the cap equals exact on a board
 * with those resources. */
static void test_cap_binds(void **state)
{
    (void)state;
    cm_board b = zedboard();
    cm_optimise_result r;
    cm_design_summary full, capped, scaled;
    cm_design *d = make("jet_tagging", &b, CM_BACKEND_HLS4ML, 1.0);
    run(d, CM_OPTIMISER_EXACT, &r);
    cm_design_summarise(d, &full);
    assert_true(full.feasible);
    assert_true(full.resources.dsp > 22);
    cm_design_free(d);

    const cm_resources cap = {.dsp = 22, .bram18 = 28, .lut = 5320, .ff = 10640, .uram = 0};
    for (cm_optimiser o = CM_OPTIMISER_RULE; o <= CM_OPTIMISER_EXACT; o += CM_OPTIMISER_EXACT - CM_OPTIMISER_RULE) {
        d = make("jet_tagging", &b, CM_BACKEND_HLS4ML, 0.1);
        assert_memory_equal(cm_design_limits(d), &cap, sizeof cap);
        run(d, o, &r);
        cm_design_summarise(d, &capped);
        assert_true(capped.feasible);
        assert_true(within(&capped.resources, &cap));
        assert_true(capped.latency_s > full.latency_s);
        cm_design_free(d);
    }
    cm_board small = b;
    small.resources = cap;
    d = make("jet_tagging", &small, CM_BACKEND_HLS4ML, 1.0);
    run(d, CM_OPTIMISER_EXACT, &r);
    cm_design_summarise(d, &scaled);
    assert_true(scaled.feasible);
    assert_true(fabs(scaled.latency_s - capped.latency_s) <= 1e-12 * capped.latency_s);
    cm_design_free(d);
}

/* The design file records the cap: evaluate sees the same limits and verdict; a file
 * without "max_util" (an older cnnmap's) reads as the whole board. */
static void test_cap_in_design_file(void **state)
{
    (void)state;
    cm_board b = zedboard();
    cm_design *d = make("jet_tagging", &b, CM_BACKEND_HLS4ML, 0.1);
    cm_design_run run = {.optimiser = CM_OPTIMISER_RULE};
    cm_error err = {0};
    assert_int_equal(cm_optimise(d, &(cm_optimise_options){.optimiser = CM_OPTIMISER_RULE},
                                 &run.result, &err), CM_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/cnnmap_caps_%d.json", P_tmpdir, (int)getpid());
    assert_int_equal(cm_design_save(d, &run, path, &err), CM_OK);
    cm_design *e = NULL;
    cm_design_run run2;
    if (cm_design_load(path, &e, &run2, &err) != CM_OK)
        fail_msg("%s", err.message);
    assert_memory_equal(cm_design_limits(d), cm_design_limits(e), sizeof(cm_resources));
    assert_true(cm_design_options_of(e)->max_util.dsp == 0.1);
    assert_int_equal(cm_design_feasible(d), cm_design_feasible(e));
    cm_design_free(e);

    /* the same file without the key: the whole board */
    json_t *root = NULL;
    json_error_t jerr;
    assert_non_null(root = json_load_file(path, 0, &jerr));
    assert_int_equal(json_object_del(root, "max_util"), 0);
    assert_int_equal(json_dump_file(root, path, 0), 0);
    json_decref(root);
    if (cm_design_load(path, &e, &run2, &err) != CM_OK)
        fail_msg("%s", err.message);
    assert_memory_equal(cm_design_limits(e), &b.resources, sizeof b.resources);
    cm_design_free(e);

    /* out of range: bad input naming the file */
    assert_non_null(root = json_load_file(path, 0, &jerr));
    assert_int_equal(json_object_set_new(root, "max_util", json_real(1.5)), 0);
    assert_int_equal(json_dump_file(root, path, 0), 0);
    json_decref(root);
    assert_int_equal(cm_design_load(path, &e, &run2, &err), CM_EINPUT);
    assert_non_null(strstr(err.message, path));
    assert_non_null(strstr(err.message, "max_util"));
    unlink(path);
    cm_design_free(d);
}

/* The best rate exact reaches under limits (0 when nothing fits). */
static double best_fps_under(cm_design *d, const cm_resources *limits)
{
    cm_design_set_limits(d, limits);
    cm_optimise_result r;
    run(d, CM_OPTIMISER_EXACT, &r);
    assert_false(r.stopped_early);
    cm_design_summary s;
    cm_design_summarise(d, &s);
    return s.feasible ? s.throughput_fps : 0.0;
}

/* Returns the DSPs of the answer (so a caller can see the DSP test was not vacuous). */
static int64_t check_target(const char *model, cm_backend backend, double share)
{
    cm_board b = zedboard();
    cm_design *d = make(model, &b, backend, 1.0);
    double top = best_fps_under(d, &b.resources);
    double target = share * top;
    cm_optimise_options o = {.optimiser = CM_OPTIMISER_EXACT};
    cm_optimise_result r;
    cm_error err = {0};
    if (cm_optimise_target_fps(d, &o, target, &r, &err) != CM_OK)
        fail_msg("%s", err.message);
    cm_design_summary s;
    cm_design_summarise(d, &s);
    assert_true(s.feasible);
    assert_true(s.throughput_fps >= target);
    assert_memory_equal(cm_design_limits(d), &b.resources, sizeof b.resources);
    cm_resources fewer = b.resources;
    if (s.resources.dsp > 0) { /* one DSP fewer: exact cannot reach the rate */
        fewer.dsp = s.resources.dsp - 1;
        assert_true(best_fps_under(d, &fewer) < target);
    }
    fewer.dsp = s.resources.dsp;
    if (s.resources.bram18 > 0) { /* as many DSPs, one BRAM18 fewer: neither */
        fewer.bram18 = s.resources.bram18 - 1;
        assert_true(best_fps_under(d, &fewer) < target);
    }
    /* and at those limits exactly it can */
    fewer.bram18 = s.resources.bram18;
    assert_true(best_fps_under(d, &fewer) >= target);
    cm_design_free(d);
    return s.resources.dsp;
}

static void test_target_fps_least(void **state)
{
    (void)state;
    assert_true(check_target("jet_tagging", CM_BACKEND_HLS4ML, 0.5) > 0);
    assert_true(check_target("jet_tagging", CM_BACKEND_HLS4ML, 0.05) > 0);
    check_target("tfc", CM_BACKEND_HLS4ML, 0.3);
    check_target("tfc", CM_BACKEND_FINN, 0.3);
}

static void test_target_fps_unreachable(void **state)
{
    (void)state;
    cm_board b = zedboard();
    cm_design *d = make("jet_tagging", &b, CM_BACKEND_HLS4ML, 1.0);
    double top = best_fps_under(d, &b.resources);
    cm_optimise_options o = {.optimiser = CM_OPTIMISER_EXACT};
    cm_optimise_result r;
    cm_error err = {0};
    assert_int_equal(cm_optimise_target_fps(d, &o, top * 2, &r, &err), CM_EINFEASIBLE);
    char best[64];
    snprintf(best, sizeof best, "the best reachable is %.6g frames/s", top);
    assert_non_null(strstr(err.message, best));
    assert_int_equal(cm_optimise_target_fps(d, &o, -1, &r, &err), CM_EUSAGE);
    cm_design_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_caps_by_hand),
        cmocka_unit_test(test_cap_binds),
        cmocka_unit_test(test_cap_in_design_file),
        cmocka_unit_test(test_target_fps_least),
        cmocka_unit_test(test_target_fps_unreachable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
