/* The mapping across architectures (cm_map_model), used as a program linked to
 * libcnnmap would: every candidate's figures must be those its architecture's own
 * library call gives for the same model and board, the best must be the one the
 * objective prefers, and refusals must say why. Also which architecture a design file
 * holds. */
#include "test_support.h"

#include <cnnmap/design.h>
#include <cnnmap/design_io.h>
#include <cnnmap/latency.h>
#include <cnnmap/map.h>
#include <cnnmap/model.h>
#include <cnnmap/nn2fpga.h>
#include <cnnmap/optimise.h>
#include <cnnmap/overlay.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LENET CM_TEST_MODELS_DIR "/zoo/lenet_zoo.onnx"
#define RESNET8 CM_SHARED_DIR "/models/resnet8_a8w8b16.onnx"

enum { FPGACONVNET, FINN, HLS4ML, LATENCY_DRIVEN, NN2FPGA, OVERLAY };

static cm_map_result map(const char *model, cm_objective objective, int batch, unsigned spaces)
{
    cm_map_options o;
    cm_map_options_init(&o);
    o.objective = objective;
    o.batch = batch;
    o.spaces = spaces;
    o.time_limit_s = 120.0; /* the small models end by their own criteria long before */
    cm_map_result r;
    cm_error err = {0};
    if (cm_map_model(model, "zc706", &o, &r, &err) != CM_OK)
        fail_msg("%s", err.message);
    return r;
}

static cm_graph *load(const char *path)
{
    cm_graph *g = NULL;
    cm_error err = {0};
    if (cm_model_load(path, &g, &err) != CM_OK)
        fail_msg("%s", err.message);
    return g;
}

static cm_board zc706(void)
{
    cm_board b;
    cm_error err = {0};
    assert_int_equal(cm_board_builtin("zc706", &b, &err), CM_OK);
    return b;
}

/* the partitioned design alone, as `optimise --optimiser exact --no-weights-reloading` */
static double streaming_latency(const char *model, cm_backend backend, cm_objective objective,
                                int batch)
{
    cm_board b = zc706();
    cm_design_options o;
    cm_design_options_init(&o);
    o.backend = backend;
    o.objective = objective;
    o.batch = batch;
    o.weights_reloading = false;
    cm_design *d = NULL;
    cm_error err = {0};
    cm_graph *g = load(model);
    assert_int_equal(cm_design_create(g, &b, &o, &d, &err), CM_OK);
    cm_optimise_options oo = {.optimiser = CM_OPTIMISER_EXACT, .seed = 1, .time_limit_s = 120};
    cm_optimise_result r;
    assert_int_equal(cm_optimise(d, &oo, &r, &err), CM_OK);
    assert_false(r.stopped_early);
    double latency = cm_design_cost(d);
    cm_design_free(d);
    return latency;
}

/* The best is the lowest latency among the feasible candidates. */
static int lowest_latency(const cm_map_result *r)
{
    int best = -1;
    for (int i = 0; i < r->n_candidates; i++)
        if (r->candidates[i].feasible &&
            (best < 0 || r->candidates[i].latency_s < r->candidates[best].latency_s))
            best = i;
    return best;
}

static void test_lenet_every_architecture(void **state)
{
    (void)state;
    cm_map_result r = map(LENET, CM_OBJECTIVE_LATENCY, 1, 0);
    assert_int_equal(r.n_candidates, CM_MAP_CANDIDATES);
    assert_string_equal(r.board, "zc706");
    static const cm_backend streaming[3] = {CM_BACKEND_FPGACONVNET, CM_BACKEND_FINN,
                                            CM_BACKEND_HLS4ML};
    for (int k = 0; k < 3; k++) {
        const cm_map_candidate *c = &r.candidates[k];
        assert_int_equal(c->architecture, CM_ARCH_STREAMING);
        assert_string_equal(c->backend, cm_backend_name(streaming[k]));
        assert_true(c->searched && c->available && c->feasible);
        assert_float_equal(c->latency_s,
                            streaming_latency(LENET, streaming[k], CM_OBJECTIVE_LATENCY, 1), 0.0);
        assert_float_equal(c->throughput_fps, 1.0 / c->latency_s, 1e-9 * c->throughput_fps);
        /* exact proved these optimal: the bound is the latency (within the 1% gap) */
        assert_true(c->has_lower_bound && c->lower_bound_s <= c->latency_s);
        assert_true(c->optimal);
    }

    /* the latency-driven flow's own exact search */
    cm_graph *g = load(LENET);
    cm_board b = zc706();
    cm_error err = {0};
    cm_latency_options lo;
    cm_latency_options_init(&lo);
    lo.search = CM_LATENCY_SEARCH_EXACT;
    cm_latency_design ld;
    assert_int_equal(cm_latency_optimise(g, &b, &lo, &ld, &err), CM_OK);
    const cm_map_candidate *l = &r.candidates[LATENCY_DRIVEN];
    assert_int_equal(l->architecture, CM_ARCH_LATENCY_DRIVEN);
    assert_true(l->feasible);
    assert_float_equal(l->latency_s, ld.latency_s, 0.0);
    assert_int_equal(l->resources.dsp, ld.resources.dsp);
    cm_latency_design_free(&ld);

    /* the overlay */
    cm_overlay_options oo;
    cm_overlay_options_default(&oo);
    cm_overlay_result *ov = NULL;
    assert_int_equal(cm_overlay_map(g, &b, &oo, &ov, &err), CM_OK);
    const cm_map_candidate *o = &r.candidates[OVERLAY];
    assert_true(o->feasible);
    assert_float_equal(o->latency_s, ov->latency_s, 0.0);
    assert_int_equal(o->resources.dsp, (int64_t)ov->array[0] * ov->array[1]);
    assert_false(o->optimal); /* Algorithm 1 sizes the array: no proof over all arrays */
    cm_overlay_result_free(ov);
    cm_graph_free(g);

    /* LeNet is a float model: nn2FPGA says why it does not take it */
    const cm_map_candidate *n = &r.candidates[NN2FPGA];
    assert_true(n->searched);
    assert_false(n->available);
    assert_false(n->feasible);
    assert_non_null(strstr(n->reason, "not quantised"));

    assert_int_equal(r.best, lowest_latency(&r));
    cm_map_result_free(&r);
}

static void test_quantised_resnet8(void **state)
{
    (void)state;
    cm_map_result r = map(RESNET8, CM_OBJECTIVE_LATENCY, 1,
                          CM_MAP_LATENCY_DRIVEN | CM_MAP_NN2FPGA | CM_MAP_HLS4ML);
    for (int k = 0; k < r.n_candidates; k++)
        assert_int_equal(r.candidates[k].searched,
                         k == LATENCY_DRIVEN || k == NN2FPGA || k == HLS4ML);
    assert_string_equal(r.candidates[FINN].reason, "not searched");

    /* nn2FPGA's own design at batch 1 (skip FIFOs sized as built) is the candidate */
    cm_error err = {0};
    cm_nn2fpga_options no;
    cm_nn2fpga_options_init(&no);
    cm_nn2fpga_design nd;
    assert_int_equal(cm_nn2fpga_design_create(RESNET8, "zc706", &no, true, &nd, &err), CM_OK);
    const cm_nn2fpga_result *nr = &nd.result;
    const cm_map_candidate *n = &r.candidates[NN2FPGA];
    assert_true(n->available && n->feasible);
    assert_float_equal(n->latency_s, (double)nr->latency_cycles / (nr->clock_mhz * 1e6), 0.0);
    assert_float_equal(n->throughput_fps, nr->fps, 0.0);
    assert_int_equal(n->resources.dsp, nr->dsp);
    assert_int_equal(n->resources.bram18, nr->bram18);
    assert_true(nr->skips_built); /* so the BRAM above counts the FIFOs as built */
    cm_nn2fpga_design_free(&nd);

    /* the latency-driven flow maps ResNet8's skip connections (through memory): its
     * candidate is the flow's own design */
    const cm_map_candidate *l = &r.candidates[LATENCY_DRIVEN];
    assert_true(l->available && l->feasible);
    cm_latency_options lo;
    cm_latency_options_init(&lo);
    lo.search = CM_LATENCY_SEARCH_EXACT;
    cm_graph *g = NULL;
    assert_int_equal(cm_model_load(RESNET8, &g, &err), CM_OK);
    cm_board b;
    assert_int_equal(cm_board_builtin("zc706", &b, &err), CM_OK);
    cm_latency_design ld;
    assert_int_equal(cm_latency_optimise(g, &b, &lo, &ld, &err), CM_OK);
    assert_float_equal(l->latency_s, ld.latency_s, 1e-12 * ld.latency_s);
    cm_latency_design_free(&ld);
    cm_graph_free(g);
    assert_int_equal(r.best, lowest_latency(&r));
    cm_map_result_free(&r);
}

static void test_throughput_objective(void **state)
{
    (void)state;
    cm_map_result r = map(LENET, CM_OBJECTIVE_THROUGHPUT, 16, CM_MAP_FPGACONVNET | CM_MAP_OVERLAY);
    assert_int_equal(r.batch, 16);
    const cm_map_candidate *s = &r.candidates[FPGACONVNET];
    assert_float_equal(s->latency_s,
                        streaming_latency(LENET, CM_BACKEND_FPGACONVNET, CM_OBJECTIVE_THROUGHPUT, 16),
                        0.0);
    assert_float_equal(s->throughput_fps, 16.0 / s->latency_s, 1e-9 * s->throughput_fps);
    /* the overlay takes one image at a time */
    const cm_map_candidate *o = &r.candidates[OVERLAY];
    cm_map_result one = map(LENET, CM_OBJECTIVE_LATENCY, 1, CM_MAP_OVERLAY);
    assert_float_equal(o->latency_s, 16.0 * one.candidates[OVERLAY].latency_s, 1e-12);
    int best = s->throughput_fps > o->throughput_fps ? FPGACONVNET : OVERLAY;
    assert_int_equal(r.best, best);
    cm_map_result_free(&one);
    cm_map_result_free(&r);
}

/* Every feasible candidate's design is written as its architecture's own file, which
 * that architecture's reader loads back to the same latency; a candidate without a
 * design is refused. */
static void test_save_designs(void **state)
{
    (void)state;
    cm_map_result r = map(RESNET8, CM_OBJECTIVE_LATENCY, 1, CM_MAP_ALL & ~CM_MAP_FINN);
    char path[] = "/tmp/cm_test_map_save_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    cm_error err = {0};
    for (int k = 0; k < r.n_candidates; k++) {
        const cm_map_candidate *c = &r.candidates[k];
        if (!c->feasible) {
            assert_int_equal(cm_map_save(&r, k, path, &err), CM_EUSAGE);
            continue;
        }
        assert_int_equal(cm_map_save(&r, k, path, &err), CM_OK);
        cm_architecture a;
        assert_int_equal(cm_design_file_architecture(path, &a, &err), CM_OK);
        assert_int_equal(a, c->architecture);
        double latency = 0;
        if (a == CM_ARCH_STREAMING) {
            cm_design *d = NULL;
            cm_design_run run;
            assert_int_equal(cm_design_load(path, &d, &run, &err), CM_OK);
            latency = cm_design_cost(d);
            cm_design_free(d);
        } else if (a == CM_ARCH_NN2FPGA) {
            cm_nn2fpga_design d;
            assert_int_equal(cm_nn2fpga_design_load(path, &d, &err), CM_OK);
            latency = (double)d.result.latency_cycles / (d.result.clock_mhz * 1e6);
            cm_nn2fpga_design_free(&d);
        } else if (a == CM_ARCH_OVERLAY) {
            cm_overlay_design d;
            assert_int_equal(cm_overlay_design_load(path, &d, &err), CM_OK);
            latency = d.result->latency_s;
            cm_overlay_design_free(&d);
        } else if (a == CM_ARCH_LATENCY_DRIVEN) {
            cm_latency_file f;
            assert_int_equal(cm_latency_design_load(path, &f, &err), CM_OK);
            latency = f.design.latency_s;
            cm_latency_file_free(&f);
        } else {
            fail_msg("unexpected architecture %d", (int)a);
        }
        assert_float_equal(latency, c->latency_s, 1e-12 * c->latency_s);
    }
    assert_int_equal(cm_map_save(&r, FINN, path, &err), CM_EUSAGE); /* not searched */
    unlink(path);
    cm_map_result_free(&r);

    /* LeNet's latency-driven design, through its own reader */
    r = map(LENET, CM_OBJECTIVE_LATENCY, 1, CM_MAP_LATENCY_DRIVEN);
    fd = mkstemp(strcpy(path, "/tmp/cm_test_map_save_XXXXXX"));
    close(fd);
    assert_int_equal(cm_map_save(&r, LATENCY_DRIVEN, path, &err), CM_OK);
    cm_latency_file f;
    assert_int_equal(cm_latency_design_load(path, &f, &err), CM_OK);
    assert_float_equal(f.design.latency_s, r.candidates[LATENCY_DRIVEN].latency_s, 0.0);
    cm_latency_file_free(&f);
    unlink(path);
    cm_map_result_free(&r);
}

static void test_parse_spaces(void **state)
{
    (void)state;
    unsigned spaces;
    cm_error err = {0};
    assert_int_equal(cm_map_parse_spaces("finn,overlay", &spaces, &err), CM_OK);
    assert_int_equal(spaces, CM_MAP_FINN | CM_MAP_OVERLAY);
    assert_int_equal(cm_map_parse_spaces("latency-driven", &spaces, &err), CM_OK);
    assert_int_equal(spaces, CM_MAP_LATENCY_DRIVEN);
    assert_int_equal(cm_map_parse_spaces("finn,fin", &spaces, &err), CM_EUSAGE);
    assert_non_null(strstr(err.message, "'fin'"));
    assert_int_equal(cm_map_parse_spaces("", &spaces, &err), CM_EUSAGE);
    assert_int_equal(cm_map_parse_spaces(",", &spaces, &err), CM_EUSAGE);
}

static void test_bad_inputs(void **state)
{
    (void)state;
    cm_map_options o;
    cm_map_options_init(&o);
    cm_map_result r;
    cm_error err = {0};
    assert_int_equal(cm_map_model("/nonexistent/model.onnx", "zc706", &o, &r, &err), CM_EINPUT);
    assert_non_null(strstr(err.message, "/nonexistent/model.onnx"));
    assert_int_equal(cm_map_model(LENET, "no-such-board", &o, &r, &err), CM_EINPUT);
    assert_non_null(strstr(err.message, "no-such-board"));
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_design_file_architecture(void **state)
{
    (void)state;
    static const struct {
        const char *format;
        cm_architecture arch;
    } cases[] = {{"cnnmap-design", CM_ARCH_STREAMING},
                 {"cnnmap-latency-design", CM_ARCH_LATENCY_DRIVEN},
                 {"cnnmap-nn2fpga-design", CM_ARCH_NN2FPGA},
                 {"cnnmap-overlay-design", CM_ARCH_OVERLAY},
                 {"cnnmap-multi-design", CM_ARCH_MULTI}};
    char path[] = "/tmp/cm_test_map_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    cm_error err = {0};
    cm_architecture a;
    char text[128];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(text, sizeof text, "{\"format\": \"%s\", \"version\": 1}", cases[i].format);
        write_file(path, text);
        assert_int_equal(cm_design_file_architecture(path, &a, &err), CM_OK);
        assert_int_equal(a, cases[i].arch);
    }
    assert_string_equal(cm_architecture_name(CM_ARCH_LATENCY_DRIVEN), "latency_driven");
    write_file(path, "{\"format\": \"cnnmap-designs\"}");
    assert_int_equal(cm_design_file_architecture(path, &a, &err), CM_EINPUT);
    assert_non_null(strstr(err.message, "not a cnnmap design file"));
    write_file(path, "{\"format\": 3");
    assert_int_equal(cm_design_file_architecture(path, &a, &err), CM_EINPUT);
    assert_non_null(strstr(err.message, "not a JSON design file"));
    unlink(path);
    assert_int_equal(cm_design_file_architecture(path, &a, &err), CM_EINPUT);
    assert_non_null(strstr(err.message, "cannot read"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lenet_every_architecture),
        cmocka_unit_test(test_quantised_resnet8),
        cmocka_unit_test(test_throughput_objective),
        cmocka_unit_test(test_save_designs),
        cmocka_unit_test(test_parse_spaces),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_design_file_architecture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
