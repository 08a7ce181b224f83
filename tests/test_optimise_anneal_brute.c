/* Tests of the brute-force and simulated-annealing optimisers: brute force against an
 * exhaustive search written here from the node costs alone (eqs. 2, 6, 7 by hand,
 * one partition) on the networks small enough to enumerate, annealing never better
 * than that optimum and always feasible there, annealing reproducible from its seed,
 * brute force refusing spaces too large for its time limit, and annealing speeding
 * up CNV and MobileNetV1 far beyond their resource-minimal designs. */
#include "test_support.h"

#include <cnnmap/design.h>
#include <cnnmap/model.h>
#include <cnnmap/optimise.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cm_design *make_design(const char *model, const char *board_name, cm_backend backend,
                              int bits, bool reconfiguration)
{
    char path[1024];
    cm_test_generated_model(model, path, sizeof path);
    return cm_test_design(path, board_name, backend, bits, reconfiguration);
}

static cm_status run(cm_design *d, cm_optimiser which, uint64_t seed, cm_optimise_result *r,
                     cm_error *err)
{
    cm_optimise_options o = {.optimiser = which, .seed = seed, .time_limit_s = 600};
    return cm_optimise(d, &o, r, err);
}

static double optimise_ok(cm_design *d, cm_optimiser which, uint64_t seed)
{
    cm_optimise_result r;
    cm_error err = {0};
    if (run(d, which, seed, &r, &err) != CM_OK)
        fail_msg("%s", err.message);
    assert_true(r.evaluations > 0);
    return cm_design_cost(d);
}

/* ---- the independent exhaustive search: one partition, every folding ---- */

typedef struct search {
    cm_design *d;
    int n;
    int64_t *out_fold; /* channel-out folding chosen for each node so far */
    int64_t (*fold)[3]; /* every folding chosen so far */
    cm_resources board;
    double bw0_times_interval0; /* bandwidth x interval: the partition's fixed traffic */
    double board_bw, clock_hz;
    double best;
} search;

static bool edge_ok(const cm_node_info *from, int64_t out, int64_t in)
{
    if (from->matching_inter && out != in)
        return false;
    if (from->divisible_inter) {
        int64_t hi = out > in ? out : in, lo = out > in ? in : out;
        return hi % lo == 0;
    }
    return true;
}

static bool preds_ok(const search *s, int i, int64_t in)
{
    int np;
    const int *pred = cm_design_node_preds(s->d, i, &np);
    for (int k = 0; k < np; k++) {
        cm_node_info u;
        cm_design_node_info(s->d, pred[k], &u);
        if (!edge_ok(&u, s->out_fold[pred[k]], in))
            return false;
    }
    return true;
}

static bool within(const cm_resources *r, const cm_resources *max)
{
    return r->dsp <= max->dsp && r->bram18 <= max->bram18 && r->uram <= max->uram &&
           r->lut <= max->lut && r->ff <= max->ff;
}

/* A complete point: eq. 6 (resources summed), eq. 7 (the partition's traffic over
 * its interval, strictly below the board's); then its latency, the first frame
 * through the partition (src/design/first_frame.c), which the design evaluates once
 * the foldings are set (the other terms are checked here by hand). */
static void complete(search *s, const cm_resources *res, double interval)
{
    if (!within(res, &s->board) || s->bw0_times_interval0 / interval >= s->board_bw)
        return;
    if (interval / s->clock_hz >= s->best) /* the first frame takes at least the interval */
        return;
    for (int i = 0; i < s->n; i++)
        cm_design_set_folding(s->d, i, s->fold[i][0], s->fold[i][1], s->fold[i][2]);
    cm_partition_info p;
    cm_design_partition_info(s->d, 0, &p);
    assert_float_equal(p.interval_cycles, interval, 1e-9 * interval);
    double t = cm_design_cost(s->d);
    if (t < s->best)
        s->best = t;
}

static void enumerate(search *s, int i, cm_resources res, double interval)
{
    if (i == s->n) {
        complete(s, &res, interval);
        return;
    }
    int ni, no, nk;
    const int64_t *vin = cm_design_fold_values(s->d, i, CM_FOLD_IN, &ni);
    const int64_t *vout = cm_design_fold_values(s->d, i, CM_FOLD_OUT, &no);
    const int64_t *vk = cm_design_fold_values(s->d, i, CM_FOLD_KERNEL, &nk);
    cm_node_info info;
    cm_design_node_info(s->d, i, &info);
    for (int a = 0; a < ni; a++)
        for (int b = 0; b < no; b++)
            for (int k = 0; k < nk; k++) {
                if ((info.matching_intra && vin[a] != vout[b]) || !preds_ok(s, i, vin[a]))
                    continue;
                double cycles;
                cm_resources r;
                cm_design_node_cost_at(s->d, i, vin[a], vout[b], vk[k], &cycles, NULL, &r);
                cm_resources sum = {res.dsp + r.dsp, res.bram18 + r.bram18, res.uram + r.uram,
                                    res.lut + r.lut, res.ff + r.ff};
                if (!within(&sum, &s->board))
                    continue; /* resources only grow as nodes are added */
                s->out_fold[i] = vout[b];
                s->fold[i][0] = vin[a];
                s->fold[i][1] = vout[b];
                s->fold[i][2] = vk[k];
                enumerate(s, i + 1, sum, cycles > interval ? cycles : interval);
            }
}

/* The optimum of a one-partition design (a chain), from the resource-minimal design
 * the caller passes in, which it leaves as it was. */
static double exhaustive_optimum(cm_design *d)
{
    search s = {.d = d, .n = cm_design_node_count(d), .best = INFINITY};
    s.out_fold = calloc((size_t)s.n, sizeof *s.out_fold);
    s.fold = calloc((size_t)s.n, sizeof *s.fold);
    cm_design_point *start = cm_design_point_new(d);
    assert_non_null(s.out_fold);
    assert_non_null(s.fold);
    assert_non_null(start);
    cm_partition_info p;
    cm_design_partition_info(d, 0, &p);
    s.bw0_times_interval0 = p.bandwidth_gbps * p.interval_cycles;
    s.board = cm_design_board(d)->resources;
    s.board_bw = cm_design_board(d)->bandwidth_gbps;
    s.clock_hz = cm_design_options_of(d)->clock_mhz * 1e6;
    enumerate(&s, 0, (cm_resources){0}, 0.0);
    cm_design_point_restore(d, start);
    cm_design_point_free(start);
    free(s.out_fold);
    free(s.fold);
    return s.best;
}

typedef struct small_case {
    const char *model;
    cm_backend backend;
    const char *board; /* NULL: the ZedBoard */
} small_case;

static const char *case_board(const small_case *c)
{
    return c->board ? c->board : "zedboard";
}

static const small_case small_cases[] = {
    {"zoo/jet_tagging.onnx", CM_BACKEND_HLS4ML, NULL},
    {"zoo/jet_tagging.onnx", CM_BACKEND_FINN, NULL},
    {"zoo/tfc.onnx", CM_BACKEND_HLS4ML, NULL},
    {"zoo/tfc.onnx", CM_BACKEND_FINN, NULL},
    /* hls4ml's LeNet keeps fc1's 800 x 500 16-bit weights on chip: 6.4 Mb, more than
     * the ZedBoard's 280 BRAM18 (5.0 Mb) hold at any reuse factor; the ZC706 fits it. */
    {.model = "zoo/lenet_zoo.onnx", .backend = CM_BACKEND_HLS4ML, .board = "zc706"},
    {"zoo/lenet_zoo.onnx", CM_BACKEND_FINN, NULL},
};

/* Brute force finds the optimum of the hand-written search, and says it is proven:
 * the small cases, and jet tagging on fpgaConvNet, whose pipeline depths count. */
static void check_brute_optimal(const small_case *c)
{
    cm_design *d = make_design(c->model, case_board(c), c->backend, 0, false);
    double expect = exhaustive_optimum(d);
    assert_true(isfinite(expect));
    cm_optimise_result r;
    cm_error err = {0};
    assert_int_equal(run(d, CM_OPTIMISER_BRUTE, 1, &r, &err), CM_OK);
    assert_true(cm_design_feasible(d));
    assert_int_equal(cm_design_partition_count(d), 1);
    if (fabs(cm_design_cost(d) - expect) > 1e-12 * expect)
        fail_msg("%s on backend %d: brute %.9g s, exhaustive %.9g s", c->model, (int)c->backend,
                 cm_design_cost(d), expect);
    assert_true(r.has_lower_bound);
    assert_float_equal(r.lower_bound_s, cm_design_cost(d), 1e-15);
    assert_false(r.proven_infeasible);
    cm_design_free(d);
}

static void test_brute_is_optimal(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof small_cases / sizeof *small_cases; c++)
        check_brute_optimal(&small_cases[c]);
    check_brute_optimal(&(small_case){"zoo/jet_tagging.onnx", CM_BACKEND_FPGACONVNET, NULL});
}

/* With reconfiguration the cuts join the search: never worse than one partition, and
 * annealing, searching the same space, never beats it and always finds a feasible
 * design there. */
static void test_anneal_not_better_than_brute(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof small_cases / sizeof *small_cases; c++) {
        double one_partition = INFINITY;
        for (int reconf = 0; reconf < 2; reconf++) {
            cm_design *d = make_design(small_cases[c].model, case_board(&small_cases[c]),
                                       small_cases[c].backend, 0, reconf);
            double brute = optimise_ok(d, CM_OPTIMISER_BRUTE, 1);
            assert_true(cm_design_feasible(d));
            assert_true(brute <= one_partition);
            one_partition = brute;
            double anneal = optimise_ok(d, CM_OPTIMISER_ANNEAL, 1);
            assert_true(cm_design_feasible(d));
            if (anneal < brute * (1 - 1e-12))
                fail_msg("%s on backend %d: anneal %.9g s beats brute %.9g s",
                         small_cases[c].model, (int)small_cases[c].backend, anneal, brute);
            cm_design_free(d);
        }
    }
}

/* The same seed gives the same foldings, cuts and cost. */
static void assert_same_design(const cm_design *a, const cm_design *b)
{
    assert_int_equal(cm_design_partition_count(a), cm_design_partition_count(b));
    for (int p = 0; p < cm_design_partition_count(a); p++)
        assert_int_equal(cm_design_partition_first(a, p), cm_design_partition_first(b, p));
    for (int i = 0; i < cm_design_node_count(a); i++) {
        cm_node_info x, y;
        cm_design_node_info(a, i, &x);
        cm_design_node_info(b, i, &y);
        assert_int_equal(x.fold_in, y.fold_in);
        assert_int_equal(x.fold_out, y.fold_out);
        assert_int_equal(x.fold_kernel, y.fold_kernel);
    }
    assert_memory_equal(&(double){cm_design_cost(a)}, &(double){cm_design_cost(b)}, sizeof(double));
}

static bool same_foldings(const cm_design *a, const cm_design *b)
{
    for (int i = 0; i < cm_design_node_count(a); i++) {
        cm_node_info x, y;
        cm_design_node_info(a, i, &x);
        cm_design_node_info(b, i, &y);
        if (x.fold_in != y.fold_in || x.fold_out != y.fold_out || x.fold_kernel != y.fold_kernel)
            return false;
    }
    return true;
}

static void test_anneal_deterministic(void **state)
{
    (void)state;
    cm_design *a = make_design("zoo/mpcnn.onnx", "zedboard", CM_BACKEND_FINN, 4, true);
    cm_design *b = make_design("zoo/mpcnn.onnx", "zedboard", CM_BACKEND_FINN, 4, true);
    cm_design *c = make_design("zoo/mpcnn.onnx", "zedboard", CM_BACKEND_FINN, 4, true);
    optimise_ok(a, CM_OPTIMISER_ANNEAL, 42);
    optimise_ok(b, CM_OPTIMISER_ANNEAL, 42);
    assert_same_design(a, b);
    /* Running again on a design that has already been optimised starts from the same
     * resource-minimal point (cm_optimise resets it), so it repeats too. */
    optimise_ok(b, CM_OPTIMISER_ANNEAL, 42);
    assert_same_design(a, b);
    /* Another seed walks elsewhere: the foldings differ somewhere (the network has
     * far more equally fast designs than one). */
    optimise_ok(c, CM_OPTIMISER_ANNEAL, 47);
    assert_true(cm_design_feasible(c));
    assert_false(same_foldings(a, c));
    cm_design_free(a);
    cm_design_free(b);
    cm_design_free(c);
}

/* CNV and MobileNetV1 have astronomically many design points: brute force refuses,
 * naming the size, and leaves the design as it was given. */
static void test_brute_refuses_large_spaces(void **state)
{
    (void)state;
    const char *models[] = {"zoo/cnv.onnx", "zoo/mobilenet_v1.onnx"};
    for (size_t m = 0; m < 2; m++) {
        cm_design *d = make_design(models[m], "zedboard", CM_BACKEND_FPGACONVNET, 0, true);
        cm_optimise_result r;
        cm_error err = {0};
        assert_int_equal(run(d, CM_OPTIMISER_BRUTE, 1, &r, &err), CM_EUSAGE);
        assert_non_null(strstr(err.message, "the design space has "));
        assert_non_null(strstr(err.message, "e+"));
        assert_non_null(strstr(err.message, "points"));
        assert_non_null(strstr(err.message, "anneal"));
        cm_design_free(d);
    }
}

static double resource_minimal_cost(cm_design *d)
{
    return optimise_ok(d, CM_OPTIMISER_NONE, 1);
}

/* CNV: on a ZC706 with fpgaConvNet's 16-bit blocks (a ZedBoard's 280 BRAM18 cannot
 * hold conv6's 600, whatever the folding, see below) and on a ZedBoard with FINN's
 * binary blocks, annealing finds a feasible design many times faster than the
 * resource-minimal one. */
static void test_anneal_speeds_up_cnv(void **state)
{
    (void)state;
    cm_design *d = make_design("zoo/cnv.onnx", "zc706", CM_BACKEND_FPGACONVNET, 0, true);
    double init = resource_minimal_cost(d);
    double found = optimise_ok(d, CM_OPTIMISER_ANNEAL, 3);
    assert_true(cm_design_feasible(d));
    assert_true(found < init / 1.3); /* two reconfigurations of 0.6 s bound the gain */
    cm_design_free(d);

    d = make_design("zoo/cnv.onnx", "zedboard", CM_BACKEND_FINN, 1, true);
    init = resource_minimal_cost(d);
    found = optimise_ok(d, CM_OPTIMISER_ANNEAL, 3);
    assert_true(cm_design_feasible(d));
    assert_true(found < init / 100);
    cm_design_free(d);
}

/* Where nothing fits, annealing still returns, with the least violating design it
 * found: CNV's conv6 on fpgaConvNet needs 600 BRAM18 on its own. */
static void test_anneal_infeasible(void **state)
{
    (void)state;
    cm_design *d = make_design("zoo/cnv.onnx", "zedboard", CM_BACKEND_FPGACONVNET, 0, true);
    cm_optimise_result r;
    cm_error err = {0};
    assert_int_equal(run(d, CM_OPTIMISER_ANNEAL, 1, &r, &err), CM_OK);
    assert_false(cm_design_feasible(d));
    assert_non_null(strstr(r.note, "no feasible design"));
    cm_violation v[64];
    int nv = cm_design_check(d, v, 64);
    assert_true(nv >= 1 && nv <= 64);
    bool conv6 = false;
    for (int i = 0; i < nv; i++) {
        assert_int_equal(v[i].constraint, CM_CONSTRAINT_RESOURCE);
        conv6 |= strstr(v[i].message, "conv6") != NULL;
    }
    assert_true(conv6);
    cm_design_free(d);
}

/* MobileNetV1 (FINN, 4 bits, ZedBoard): the resource-minimal design does not fit;
 * annealing finds a partitioned one that does and runs faster. */
static void test_anneal_mobilenet(void **state)
{
    (void)state;
    cm_design *d = make_design("zoo/mobilenet_v1.onnx", "zedboard", CM_BACKEND_FINN, 4, true);
    double init = resource_minimal_cost(d);
    double found = optimise_ok(d, CM_OPTIMISER_ANNEAL, 1);
    assert_true(cm_design_feasible(d));
    assert_true(cm_design_partition_count(d) > 1);
    assert_true(found < init);
    cm_design_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_brute_is_optimal),
        cmocka_unit_test(test_anneal_not_better_than_brute),
        cmocka_unit_test(test_anneal_deterministic),
        cmocka_unit_test(test_brute_refuses_large_spaces),
        cmocka_unit_test(test_anneal_speeds_up_cnv),
        cmocka_unit_test(test_anneal_infeasible),
        cmocka_unit_test(test_anneal_mobilenet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
