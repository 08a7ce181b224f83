/* Exact optimiser tests: on networks small enough to enumerate, the optimum equals an
 * independent exhaustive search written here (every folding through
 * cm_design_node_cost_at, eqs. 2, 6 and 7 and the edge rules by hand, every cut set,
 * each partition's first frame timed by the cost model's cm_design_first_frame);
 * the lower bound meets the cost on CNV and MPCNN; infeasibility is proven, with the
 * layer and resource named, where nothing fits; the final design is feasible and costs
 * what the optimiser reports. */
#include "test_support.h"

#include <cnnmap/design.h>
#include <cnnmap/model.h>
#include <cnnmap/optimise.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "design/design_internal.h"
#include "optimise/exact.h"
#include "util/progress.h"

static cm_design *make_design(const char *path, const cm_board *board, cm_backend backend,
                              cm_objective objective, bool reconf)
{
    cm_error err = {0};
    cm_graph *g = NULL;
    assert_int_equal(cm_model_load(path, &g, &err), CM_OK);
    cm_design_options o;
    cm_design_options_init(&o);
    o.backend = backend;
    o.objective = objective;
    o.reconfiguration = reconf;
    cm_design *d = NULL;
    if (cm_design_create(g, board, &o, &d, &err) != CM_OK)
        fail_msg("%s", err.message);
    return d;
}

/* A model the test generators wrote (file under their output), on a built-in board. */
static cm_design *generated_design(const char *file, const char *board_name, cm_backend backend,
                                   cm_objective objective, bool reconf)
{
    char path[1024];
    cm_test_generated_model(file, path, sizeof path);
    cm_board board;
    cm_error err = {0};
    assert_int_equal(cm_board_builtin(board_name, &board, &err), CM_OK);
    return make_design(path, &board, backend, objective, reconf);
}

static cm_design *zoo_design(const char *name, const char *board_name, cm_backend backend,
                             cm_objective objective, bool reconf)
{
    char file[64];
    snprintf(file, sizeof file, "zoo/%s.onnx", name);
    return generated_design(file, board_name, backend, objective, reconf);
}

/* One of the torchvision networks (without weight bytes). */
static cm_design *torchvision_design(const char *name, const char *board_name,
                                     cm_backend backend, cm_objective objective)
{
    char file[96];
    snprintf(file, sizeof file, "torchvision/%s_noweights.onnx", name);
    return generated_design(file, board_name, backend, objective, true);
}

/* Runs exact and checks what must hold of any answer: the design is feasible, costs
 * no less than the bound, and (unless the time ran out) the bound meets the cost. */
static double run_exact(cm_design *d, cm_optimise_result *r)
{
    cm_optimise_options o = {.optimiser = CM_OPTIMISER_EXACT, .time_limit_s = 600};
    cm_error err = {0};
    if (cm_optimise(d, &o, r, &err) != CM_OK)
        fail_msg("%s", err.message);
    assert_true(cm_design_feasible(d));
    assert_true(r->has_lower_bound);
    assert_false(r->proven_infeasible);
    double cost = cm_design_cost(d);
    assert_true(r->lower_bound_s <= cost * (1 + 1e-12));
    assert_true(r->lower_bound_s >= cost * (1 - 1e-9));
    return cost;
}

/* ---- the independent enumeration (chains only) ---- */

typedef struct fold {
    int64_t in, out, kernel;
    double cycles, depth;
    cm_resources res;
} fold;

typedef struct search {
    cm_design *d;       /* set to each point to time its partitions' first frames */
    int n;
    int64_t (*chosen)[3]; /* the folding chosen for each node so far */
    fold **folds;
    int *n_folds;
    bool *cut_after;
    double batch, clock_hz, best;
} search;

static void list_folds(search *s, int i)
{
    int a, b, c;
    const int64_t *in = cm_design_fold_values(s->d, i, CM_FOLD_IN, &a);
    const int64_t *out = cm_design_fold_values(s->d, i, CM_FOLD_OUT, &b);
    const int64_t *k = cm_design_fold_values(s->d, i, CM_FOLD_KERNEL, &c);
    s->folds[i] = malloc((size_t)a * b * c * sizeof **s->folds);
    assert_non_null(s->folds[i]);
    for (int x = 0; x < a; x++)
        for (int y = 0; y < b; y++)
            for (int z = 0; z < c; z++) {
                fold *f = &s->folds[i][s->n_folds[i]++];
                *f = (fold){in[x], out[y], k[z], 0, 0, {0}};
                cm_design_node_cost_at(s->d, i, f->in, f->out, f->kernel, &f->cycles, &f->depth,
                                       &f->res);
            }
}

static bool fits(const cm_resources *r, const cm_resources *max)
{
    return r->dsp <= max->dsp && r->bram18 <= max->bram18 && r->uram <= max->uram &&
           r->lut <= max->lut && r->ff <= max->ff;
}

static void add(cm_resources *acc, const cm_resources *r)
{
    acc->dsp += r->dsp;
    acc->bram18 += r->bram18;
    acc->uram += r->uram;
    acc->lut += r->lut;
    acc->ff += r->ff;
}

/* Whether out-folding a of node u may feed in-folding b (eq. 10, divisibility). */
static bool edge_ok(const cm_design *d, int u, int64_t a, int64_t b)
{
    cm_node_info n;
    cm_design_node_info(d, u, &n);
    if (n.matching_inter && a != b)
        return false;
    return !n.divisible_inter || (a > b ? a % b == 0 : b % a == 0);
}

/* eq. 7 for a partition of a chain [first, last]: its input and output streams. */
static bool bandwidth_ok(const search *s, int first, int last, double interval)
{
    const cm_hd_node *f = &s->d->hd.nodes[first], *l = &s->d->hd.nodes[last];
    double bits = first == 0 ? (double)f->size_in * f->bits_in
                             : (double)s->d->hd.nodes[first - 1].size_out * s->d->hd.nodes[first - 1].bits_out;
    bits += (double)l->size_out * l->bits_out;
    const cm_board *b = cm_design_board(s->d);
    return bits * s->clock_hz < b->bandwidth_gbps * 8e9 * interval;
}

typedef struct partial {
    int first;          /* first node of the open partition */
    cm_resources res;   /* its resources so far (eq. 6) */
    double interval;    /* its slowest node so far (eq. 2) */
    double done;        /* seconds of the closed partitions and reconfigurations */
    int64_t prev_out;
} partial;

static void visit(search *s, int i, partial p);

/* Partition [first, last]'s time at the chosen foldings: batch intervals and what the
 * first frame takes beyond one (src/design/first_frame.c, the cost model). */
static double partition_time(search *s, int first, int last, double interval)
{
    for (int j = first; j <= last; j++)
        cm_design_set_folding(s->d, j, s->chosen[j][0], s->chosen[j][1], s->chosen[j][2]);
    double ff = cm_design_first_frame(s->d, first, last + 1, first, -1, true);
    return (s->batch * interval + fmax(ff - interval, 0.0)) / s->clock_hz;
}

static void close_or_go_on(search *s, int i, partial q)
{
    double t = s->batch * q.interval / s->clock_hz; /* the first frame only adds */
    if (q.done + t >= s->best)
        return; /* costs only grow from here */
    if (i < s->n - 1 && !s->cut_after[i]) {
        visit(s, i + 1, q);
        return;
    }
    if (!bandwidth_ok(s, q.first, i, q.interval))
        return;
    t = partition_time(s, q.first, i, q.interval);
    if (q.done + t >= s->best)
        return;
    if (i == s->n - 1) {
        s->best = q.done + t;
        return;
    }
    partial next = {.first = i + 1, .done = q.done + t + cm_design_board(s->d)->reconfiguration_s,
                    .prev_out = q.prev_out};
    visit(s, i + 1, next);
}

static void visit(search *s, int i, partial p)
{
    cm_node_info n;
    cm_design_node_info(s->d, i, &n);
    for (int k = 0; k < s->n_folds[i]; k++) {
        const fold *f = &s->folds[i][k];
        if (n.matching_intra && f->in != f->out)
            continue;
        /* edge rules hold inside a partition only: across a cut the data goes
         * through off-chip memory */
        if (i > p.first && !edge_ok(s->d, i - 1, p.prev_out, f->in))
            continue;
        partial q = p;
        add(&q.res, &f->res);
        if (!fits(&q.res, &cm_design_board(s->d)->resources))
            continue;
        q.interval = fmax(q.interval, f->cycles);
        q.prev_out = f->out;
        s->chosen[i][0] = f->in;
        s->chosen[i][1] = f->out;
        s->chosen[i][2] = f->kernel;
        close_or_go_on(s, i, q);
    }
}

/* The best cost over every folding and every allowed cut set, by enumeration (the
 * design's foldings are left as they were). */
static double enumerate(cm_design *d)
{
    search s = {.d = d, .n = cm_design_node_count(d), .best = INFINITY};
    cm_design_point *start = cm_design_point_new(d);
    s.chosen = calloc((size_t)s.n, sizeof *s.chosen);
    assert_non_null(start);
    assert_non_null(s.chosen);
    s.batch = cm_design_options_of(d)->batch;
    s.clock_hz = cm_design_options_of(d)->clock_mhz * 1e6;
    s.folds = calloc((size_t)s.n, sizeof *s.folds);
    s.n_folds = calloc((size_t)s.n, sizeof *s.n_folds);
    s.cut_after = calloc((size_t)s.n, sizeof *s.cut_after);
    int cuts[64], n_cuts = 0;
    for (int i = 0; i < s.n; i++) {
        int np;
        cm_design_node_preds(d, i, &np);
        assert_true(np <= 1); /* a chain */
        list_folds(&s, i);
        if (cm_design_options_of(d)->reconfiguration && cm_design_can_cut_after(d, i))
            cuts[n_cuts++] = i;
    }
    for (unsigned mask = 0; mask < 1u << n_cuts; mask++) {
        for (int c = 0; c < n_cuts; c++)
            s.cut_after[cuts[c]] = mask & (1u << c);
        visit(&s, 0, (partial){0});
    }
    for (int i = 0; i < s.n; i++)
        free(s.folds[i]);
    free(s.folds);
    free(s.n_folds);
    free(s.cut_after);
    free(s.chosen);
    cm_design_point_restore(d, start);
    cm_design_point_free(start);
    return s.best;
}

typedef struct enum_case {
    const char *model, *board;
    cm_backend backend;
    cm_objective objective;
} enum_case;

/* One partition (--no-reconf): exact against the enumeration, case by case. */
static void check_against_enumeration(const enum_case *cases, size_t n)
{
    for (size_t c = 0; c < n; c++) {
        cm_design *d = zoo_design(cases[c].model, cases[c].board, cases[c].backend,
                                  cases[c].objective, false);
        double best = enumerate(d);
        assert_true(isfinite(best));
        cm_optimise_result r;
        double cost = run_exact(d, &r);
        if (fabs(cost - best) > 1e-9 * best)
            fail_msg("%s on %s: exact %.12g s, enumeration %.12g s", cases[c].model,
                     cases[c].board, cost, best);
        cm_design_free(d);
    }
}

#define CASES(...) (const enum_case[]){__VA_ARGS__}, sizeof((const enum_case[]){__VA_ARGS__}) / sizeof(enum_case)

static void test_jet_tagging(void **state)
{
    (void)state;
    check_against_enumeration(CASES(
        {"jet_tagging", "zedboard", CM_BACKEND_HLS4ML, CM_OBJECTIVE_LATENCY},
        {"jet_tagging", "zedboard", CM_BACKEND_HLS4ML, CM_OBJECTIVE_THROUGHPUT},
        {"jet_tagging", "zedboard", CM_BACKEND_FINN, CM_OBJECTIVE_LATENCY},
        {"jet_tagging", "zedboard", CM_BACKEND_FINN, CM_OBJECTIVE_THROUGHPUT}));
}

static void test_tfc(void **state)
{
    (void)state;
    check_against_enumeration(CASES(
        {"tfc", "zedboard", CM_BACKEND_FINN, CM_OBJECTIVE_LATENCY},
        {"tfc", "zedboard", CM_BACKEND_HLS4ML, CM_OBJECTIVE_THROUGHPUT},
        {"tfc", "zedboard", CM_BACKEND_FPGACONVNET, CM_OBJECTIVE_LATENCY}));
}

/* The two-convolution LeNet: FINN on the ZedBoard; fpgaConvNet and hls4ml on the
 * ZC706, where their first dense layer's 800 x 500 16-bit weights fit. */
static void test_lenet_two_conv(void **state)
{
    (void)state;
    check_against_enumeration(CASES(
        {"lenet_zoo", "zedboard", CM_BACKEND_FINN, CM_OBJECTIVE_LATENCY},
        {"lenet_zoo", "zc706", CM_BACKEND_HLS4ML, CM_OBJECTIVE_LATENCY},
        {"lenet_zoo", "zc706", CM_BACKEND_FPGACONVNET, CM_OBJECTIVE_LATENCY}));
}

/* A ZedBoard that reconfigures in ten nanoseconds and has only `dsp` DSPs (and, when
 * lut > 0, that many LUTs), so that the best design of a small network is cut in
 * several configurations. */
static cm_design *cut_design(const char *name, cm_backend backend, int64_t dsp, int64_t lut)
{
    char path[1024], file[64];
    snprintf(file, sizeof file, "zoo/%s.onnx", name);
    cm_test_generated_model(file, path, sizeof path);
    cm_board board;
    cm_error err = {0};
    assert_int_equal(cm_board_builtin("zedboard", &board, &err), CM_OK);
    board.reconfiguration_s = 1e-8;
    board.resources.dsp = dsp;
    if (lut > 0)
        board.resources.lut = lut;
    return make_design(path, &board, backend, CM_OBJECTIVE_LATENCY, true);
}

/* With cuts: the DP over cut positions, the reconfiguration cost, and on FINN the
 * divisibility rule across the cut (1600 LUTs cannot hold jet tagging's four MVAUs
 * together), against the enumeration of every cut set. */
static void test_cuts(void **state)
{
    (void)state;
    const struct {
        const char *model;
        cm_backend backend;
        int64_t dsp, lut;
    } cases[] = {
        {"jet_tagging", CM_BACKEND_FINN, 22, 1600},
        {"jet_tagging", CM_BACKEND_HLS4ML, 16, 0},
        {"jet_tagging", CM_BACKEND_FPGACONVNET, 22, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        cm_design *d = cut_design(cases[c].model, cases[c].backend, cases[c].dsp, cases[c].lut);
        double best = enumerate(d);
        cm_optimise_result r;
        double cost = run_exact(d, &r);
        if (fabs(cost - best) > 1e-9 * best)
            fail_msg("case %zu: exact %.12g s, enumeration %.12g s", c, cost, best);
        assert_true(cm_design_partition_count(d) > 1);
        cm_design_free(d);
    }
}

/* The bound meets the cost (well within 1%) on CNV and MPCNN. CNV's conv5 needs 305
 * BRAM18 in any fpgaConvNet folding, more than the ZedBoard's 280: proven infeasible. */
static void test_gap_closes(void **state)
{
    (void)state;
    const char *models[] = {"cnv", "mpcnn"}, *boards[] = {"zedboard", "zc706"};
    const cm_backend backends[] = {CM_BACKEND_FPGACONVNET, CM_BACKEND_FINN};
    for (int m = 0; m < 2; m++)
        for (int b = 0; b < 2; b++)
            for (int k = 0; k < 2; k++) {
                cm_design *d = zoo_design(models[m], boards[b], backends[k], CM_OBJECTIVE_LATENCY, true);
                cm_optimise_result r;
                if (m == 0 && b == 0 && k == 0) {
                    cm_optimise_options o = {.optimiser = CM_OPTIMISER_EXACT};
                    cm_error err = {0};
                    assert_int_equal(cm_optimise(d, &o, &r, &err), CM_OK);
                    assert_true(r.proven_infeasible);
                    assert_non_null(strstr(r.note, "conv5"));
                    assert_non_null(strstr(r.note, "305 BRAM18"));
                } else {
                    double cost = run_exact(d, &r);
                    assert_true(r.lower_bound_s >= 0.99 * cost);
                }
                cm_design_free(d);
            }
}

/* LeNet's 800x500 16-bit dense weights need 409 BRAM18 in any fpgaConvNet folding, more
 * than the ZedBoard's 280: no partitioning helps. The design left is the resource-
 * minimal one, split at every layer. */
static void test_lenet_proven_infeasible(void **state)
{
    (void)state;
    char path[1024];
    cm_test_shared_model("lenet.onnx", path, sizeof path);
    cm_board board;
    cm_error err = {0};
    assert_int_equal(cm_board_builtin("zedboard", &board, &err), CM_OK);
    cm_design *d = make_design(path, &board, CM_BACKEND_FPGACONVNET, CM_OBJECTIVE_LATENCY, true);
    cm_optimise_options o = {.optimiser = CM_OPTIMISER_EXACT};
    cm_optimise_result r;
    assert_int_equal(cm_optimise(d, &o, &r, &err), CM_OK);
    assert_true(r.proven_infeasible);
    assert_false(r.has_lower_bound);
    assert_non_null(strstr(r.note, "innerProduct"));
    assert_non_null(strstr(r.note, "409 BRAM18"));
    assert_false(cm_design_feasible(d));
    assert_int_equal(cm_design_partition_count(d), 7);
    cm_design_free(d);
}

/* Throughput with cuts on a network that needs several configurations on the
 * ZedBoard: the bound is proven and the design costs it. */
static void test_throughput_partitioned(void **state)
{
    (void)state;
    cm_design *d = zoo_design("cnv", "zedboard", CM_BACKEND_FINN, CM_OBJECTIVE_THROUGHPUT, true);
    cm_optimise_result r;
    run_exact(d, &r);
    assert_true(cm_design_partition_count(d) > 1);
    cm_design_free(d);
}

/* A time limit far too short for MobileNetV1 on FINN: the search stops, says why, and
 * whatever it leaves obeys its bound. On a loaded machine (or under the sanitizers) the
 * limit may come before the cut graph is set up, and then there is no bound to give. */
static void test_time_limit(void **state)
{
    (void)state;
    cm_design *d = zoo_design("mobilenet_v1", "zedboard", CM_BACKEND_FINN, CM_OBJECTIVE_LATENCY, true);
    cm_optimise_options o = {.optimiser = CM_OPTIMISER_EXACT, .time_limit_s = 0.01};
    cm_optimise_result r;
    cm_error err = {0};
    assert_int_equal(cm_optimise(d, &o, &r, &err), CM_OK);
    assert_true(r.stopped_early);
    assert_non_null(strstr(r.note, "time limit"));
    if (!r.has_lower_bound)
        assert_true(strstr(r.note, "set up its cut graph") ||
                    strstr(r.note, "listed the nodes' configurations"));
    else if (cm_design_feasible(d))
        assert_true(r.lower_bound_s <= cm_design_cost(d));
    cm_design_free(d);
}

/* Listing the nodes' configurations stops once the set-up's grace has passed (a
 * 10,000-layer chain took 0.2 to 0.35 s past a one-second limit there), checked every
 * 256 nodes: DenseNet-121 on FINN has more. With the grace ahead, every node is listed. */
static void test_listing_stops_at_grace(void **state)
{
    (void)state;
    cm_design *d = torchvision_design("densenet121", "u250", CM_BACKEND_FINN, CM_OBJECTIVE_LATENCY);
    assert_true(cm_design_node_count(d) > 256);
    ex_problem p;
    cm_error err = {0};
    const double now = cm_seconds_now();
    assert_int_equal(ex_problem_init(&p, d, now - 2.0, now - 1.0, &err), CM_OK);
    assert_true(p.init_stopped);
    assert_int_equal(p.nodes[p.n - 1].n_cfg, 0);
    ex_problem_free(&p);
    assert_int_equal(ex_problem_init(&p, d, now + 600, now + 600, &err), CM_OK);
    assert_false(p.init_stopped);
    for (int i = 0; i < p.n; i++)
        assert_true(p.nodes[i].n_cfg > 0);
    ex_problem_free(&p);
    cm_design_free(d);
}

/* Branching partitions: SqueezeNet's fire modules on a ZCU102. The first programs leave
 * the first frame out (a bound 50% below the design: it is most of a batch-1 latency);
 * solved again with it, the bound meets the design's cost, which the design re-evaluates
 * (the search checks that the program and the design agree). Before, the search ended
 * there with "the time limit" and the rule optimiser's 24.35 ms; the optimum is lower. */
static void test_branching_optimal(void **state)
{
    (void)state;
    cm_design *d = torchvision_design("squeezenet1_1", "zcu102", CM_BACKEND_FPGACONVNET,
                                      CM_OBJECTIVE_LATENCY);
    cm_optimise_result r;
    double cost = run_exact(d, &r);
    assert_false(r.stopped_early);
    assert_non_null(strstr(r.note, "optimal"));
    assert_true(cost < 24.35e-3);
    cm_design_free(d);
}

/* Runs exact with a gap of 1%: it ends within it, not stopped, and says so. */
static void check_within_gap(cm_design *d, const cm_optimise_options *o)
{
    cm_optimise_result r;
    cm_error err = {0};
    assert_int_equal(cm_optimise(d, o, &r, &err), CM_OK);
    assert_true(cm_design_feasible(d) && r.has_lower_bound);
    const double cost = cm_design_cost(d);
    assert_false(r.stopped_early);
    assert_non_null(strstr(r.note, "within the gap asked for (1%)"));
    assert_true(r.lower_bound_s <= cost && cost <= 1.01 * r.lower_bound_s);
}

/* check_within_gap on a torchvision network's design. */
static void check_network_within_gap(const char *network, const char *board, cm_backend backend,
                                     cm_objective objective, cm_optimise_options o)
{
    cm_design *d = torchvision_design(network, board, backend, objective);
    check_within_gap(d, &o);
    cm_design_free(d);
}

/* --gap: ResNet-18 on a U250 stops as soon as the design is proven within 1% (the rule
 * optimiser's warm start against the first bound), not stopped early, and says so. */
static void test_gap(void **state)
{
    (void)state;
    check_network_within_gap("resnet18", "u250", CM_BACKEND_FPGACONVNET, CM_OBJECTIVE_LATENCY,
                             (cm_optimise_options){.optimiser = CM_OPTIMISER_EXACT,
                                                   .gap = 0.01});
}


/* The interval by levels: ResNet-18's throughput design on a U250 (fpgaConvNet, 256
 * images) is almost all interval, and each stage's least interval is a bottleneck over a
 * five-resource knapsack. Minimised directly, GLPK closed the gap between T and its
 * relaxation node by node (about 40,000 nodes over the search); asked only whether a
 * choice fits at each candidate interval, each question ends at its first choice or at
 * the root. Within a budget of 3,000 nodes the search proves 1%. */
static void test_interval_by_levels(void **state)
{
    (void)state;
    check_network_within_gap("resnet18", "u250", CM_BACKEND_FPGACONVNET, CM_OBJECTIVE_THROUGHPUT,
                             (cm_optimise_options){.optimiser = CM_OPTIMISER_EXACT, .gap = 0.01,
                                                   .max_nodes = 3000});
}

/* ResNet-50's throughput design for FINN on a ZCU102: the program with the first frame
 * for its first 88 nodes found nothing better than the interval's choice in 14,600
 * nodes (its big-M rows leave the relaxation little of the first frame), and the
 * search stopped at 31.9%. That choice is already within the gap of the bound on the
 * interval alone, so the program is not needed: within 1% on the same budget. */
static void test_interval_choice_within_gap(void **state)
{
    (void)state;
    check_network_within_gap("resnet50", "zcu102", CM_BACKEND_FINN, CM_OBJECTIVE_THROUGHPUT,
                             (cm_optimise_options){.optimiser = CM_OPTIMISER_EXACT, .gap = 0.01,
                                                   .max_nodes = 3000});
}

/* A program with the first frame explores the open node of best bound next: ResNet-18's
 * latency for FINN on a U250 is one partition whose program's relaxation is within
 * about 1% of the optimum, and under best projection (diving, then the node whose bound
 * projects best) the bound stayed near the root's while good designs were found: 17 s
 * to prove 1%, and not within this budget. With the best bound next: 300 to 1,000 nodes. */
static void test_frame_best_bound(void **state)
{
    (void)state;
    check_network_within_gap("resnet18", "u250", CM_BACKEND_FINN, CM_OBJECTIVE_LATENCY,
                             (cm_optimise_options){.optimiser = CM_OPTIMISER_EXACT, .gap = 0.01,
                                                   .max_nodes = 2000, .time_limit_s = 600});
}

/* A program stops once its bound is what its path needs (goal_for, exact_dp.c): a
 * partition's program on a multi-partition path need only bound its segment as far as
 * the path's gap asks, not to its own gap. MobileNetV3-Small's latency for fpgaConvNet
 * on a ZCU102 (several partitions and their reconfigurations): with a budget of 300
 * branch-and-bound nodes a program, the search proves 1% (0.98%, 26 programs); without
 * the goals the same budget stops it at 1.18%, and with a budget of 1,000 it takes
 * 2.5 times as long (8.1 s against 3.2 s). (This was ResNet-18's latency for FINN on a
 * ZCU102 until FINN's late rows counted the row that ends with the input,
 * first_frame.c: its first partition's program now ends 1.67% off in 30 s.) */
static void test_program_stops_at_goal(void **state)
{
    (void)state;
    check_network_within_gap("mobilenet_v3_small", "zcu102", CM_BACKEND_FPGACONVNET,
                             CM_OBJECTIVE_LATENCY,
                             (cm_optimise_options){.optimiser = CM_OPTIMISER_EXACT, .gap = 0.01,
                                                   .max_nodes = 300, .time_limit_s = 600});
}

/* A solved segment bounds the segments holding it (exact_dp.c, dominate). GoogLeNet's
 * latency for fpgaConvNet on a U250: without those bounds each round's shortest path
 * went on to segments that had only their cheap bounds, a program each, and a budget of
 * 1,000 branch-and-bound nodes stopped the search after 46 programs, 1.46% off; with
 * them it proves 1% within the budget (about 25 programs). */
static void test_solved_segments_bound_longer(void **state)
{
    (void)state;
    check_network_within_gap("googlenet", "u250", CM_BACKEND_FPGACONVNET, CM_OBJECTIVE_LATENCY,
                             (cm_optimise_options){.optimiser = CM_OPTIMISER_EXACT, .gap = 0.01,
                                                   .max_nodes = 1000, .time_limit_s = 600});
}

/* The next number of the xorshift generator *rng. */
static uint64_t next_random(uint64_t *rng)
{
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    return *rng;
}

/* Cut points of d at about a fifth, two fifths, three fifths and four fifths of its
 * first `span` nodes, in cut[0..3]. */
static void cuts_at_fifths(const cm_design *d, int span, int *cut)
{
    int k = 0;
    for (int i = 0; i < span - 1 && k < 4; i++)
        if (cm_design_can_cut_after(d, i) && i + 1 >= (k + 1) * span / 5)
            cut[k++] = i + 1;
    assert_int_equal(k, 4);
}

/* Every node of d at a random one of its configurations in p (those fitting the board
 * alone), from the xorshift generator *rng. */
static void random_choice(cm_design *d, const ex_problem *p, uint64_t *rng)
{
    for (int i = 0; i < p->n; i++) {
        const ex_config *c = &p->nodes[i].cfg[next_random(rng) % (uint64_t)p->nodes[i].n_cfg];
        cm_design_set_folding(d, i, c->in, c->out, c->kernel);
    }
}

/* SqueezeNet's whole network on a U250 as one segment of exact's model (latency). */
static cm_design *squeezenet_segment(cm_backend backend, ex_problem *p, ex_segment *seg)
{
    cm_design *d = torchvision_design("squeezenet1_1", "u250", backend, CM_OBJECTIVE_LATENCY);
    cm_error err = {0};
    assert_int_equal(ex_problem_init(p, d, cm_seconds_now() + 600, 0.0, &err), CM_OK);
    ex_segment_init(p, 0, p->n, seg);
    return d;
}

/* The cost floor of a segment with its first frame (ex_cost_floor). SqueezeNet's fire
 * modules branch, and the slowest node need not lie on the path that ends last; but
 * every path through it bounds the first frame. So with each node as the slowest, at
 * each of its configurations at least as slow as the interval asked for, the floor
 * adds its cycles and the longest path of least terms through it. It bounds every
 * design whose interval is at least that: here, 300 random choices of each node's
 * configurations (those fitting the board alone, the floor's), timed by the design as
 * one partition. And it is above the interval alone (before, a branching partition's
 * bound left the first frame out). */
static void check_cost_floor(cm_backend backend)
{
    ex_problem p;
    ex_segment seg;
    cm_design *d = squeezenet_segment(backend, &p, &seg);
    int whole[1] = {0};
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    double least_t = INFINITY;
    for (int trial = 0; trial < 300; trial++) {
        random_choice(d, &p, &rng);
        cm_design_set_partitions(d, whole, 1, NULL);
        cm_partition_info info;
        cm_design_partition_info(d, 0, &info);
        const double cycles = p.batch * info.interval_cycles + info.depth_cycles;
        assert_true(ex_cost_floor(&p, &seg, 0.0) <= cycles * (1 + 1e-9));
        assert_true(ex_cost_floor(&p, &seg, info.interval_cycles) <= cycles * (1 + 1e-9));
        least_t = fmin(least_t, info.interval_cycles);
    }
    assert_true(ex_cost_floor(&p, &seg, least_t) > p.batch * least_t);
    ex_problem_free(&p);
    cm_design_free(d);
}

static void test_cost_floor_branching(void **state)
{
    (void)state;
    check_cost_floor(CM_BACKEND_FPGACONVNET);
    check_cost_floor(CM_BACKEND_FINN);
}

/* The time of partition [first, end) of d at its foldings, and its interval (cycles). */
static double part_time(cm_design *d, int first, int end, double *interval)
{
    int cuts[3], n = 0;
    if (first > 0)
        cuts[n++] = 0;
    cuts[n++] = first;
    if (end < cm_design_node_count(d))
        cuts[n++] = end;
    cm_error err = {0};
    assert_int_equal(cm_design_set_partitions(d, cuts, n, &err), CM_OK);
    cm_partition_info info;
    cm_design_partition_info(d, first > 0 ? 1 : 0, &info);
    *interval = info.interval_cycles;
    return info.time_s;
}

/* What exact's search takes from a solved segment for the segments holding it
 * (exact_dp.c, dominate): the same foldings timed as a longer partition never take less.
 * Beginning where it does, the longer one costs at least as much (its nodes are timed
 * alike, and its last output comes no earlier than theirs); beginning before it, its
 * interval is at least as long. ResNet-18 branches (its residual blocks), and FINN's
 * first frame has late rows that reach back to sources upstream: 200 random choices of
 * each node's configurations (those fitting the board alone), each timed as the segment
 * and as the two longer ones. */
static void check_longer_costs_more(cm_backend backend)
{
    cm_design *d = torchvision_design("resnet18", "u250", backend, CM_OBJECTIVE_LATENCY);
    ex_problem p;
    cm_error err = {0};
    assert_int_equal(ex_problem_init(&p, d, cm_seconds_now() + 600, 0.0, &err), CM_OK);
    int cut[4];
    cuts_at_fifths(d, p.n, cut);
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    int longer = 0;
    for (int trial = 0; trial < 200; trial++) {
        random_choice(d, &p, &rng);
        double t, t_after, t_before;
        const double own = part_time(d, cut[1], cut[2], &t);
        const double after = part_time(d, cut[1], cut[3], &t_after);
        const double before = part_time(d, cut[0], cut[2], &t_before);
        assert_true(after >= own * (1 - 1e-12));
        assert_true(t_after >= t && t_before >= t);
        assert_true(before >= p.batch * t / p.clock_hz * (1 - 1e-12));
        longer += after > own * (1 + 1e-9);
    }
    assert_true(longer > 0); /* the comparison is not between equal figures only */
    ex_problem_free(&p);
    cm_design_free(d);
}

static void test_longer_segment_costs_more(void **state)
{
    (void)state;
    check_longer_costs_more(CM_BACKEND_FPGACONVNET);
    check_longer_costs_more(CM_BACKEND_FINN);
    check_longer_costs_more(CM_BACKEND_HLS4ML);
}

/* Every node of d before `end` at a random configuration (or, `fast`, its fastest
 * that fits alone), then nodes in turn moved to their configuration with the least of
 * the resource most over the board until the choice of those nodes fits it: designs at
 * the edge of the board, where its resources bind. */
static void random_fitting_choice(cm_design *d, const ex_problem *p, int end, uint64_t *rng,
                                  bool fast, int *choice)
{
    const cm_resources *board = cm_design_limits(d);
    for (int i = 0; i < end; i++) {
        choice[i] = (int)(next_random(rng) % (uint64_t)p->nodes[i].n_cfg);
        for (int c = 0; fast && c < p->nodes[i].n_cfg; c++)
            if (p->nodes[i].cfg[c].cycles < p->nodes[i].cfg[choice[i]].cycles)
                choice[i] = c;
    }
    const uint64_t start = *rng % (uint64_t)end;
    for (int step = 0;; step++) {
        cm_resources sum = {0};
        for (int i = 0; i < end; i++)
            cm_resources_add(&sum, &p->nodes[i].cfg[choice[i]].res);
        if (cm_resources_fit(&sum, board))
            break;
        assert_true(step < EX_RESOURCES * end); /* the least of each resource fits */
        int over = 0;
        for (int k = 1; k < EX_RESOURCES; k++)
            if ((double)ex_res_kind(&sum, k) * (double)ex_res_kind(board, over) >
                (double)ex_res_kind(&sum, over) * (double)ex_res_kind(board, k))
                over = k;
        const int i = (int)((start + (uint64_t)step * 7919u) % (uint64_t)end);
        for (int c = 0; c < p->nodes[i].n_cfg; c++)
            if (ex_res_kind(&p->nodes[i].cfg[c].res, over) <
                ex_res_kind(&p->nodes[i].cfg[choice[i]].res, over))
                choice[i] = c;
    }
    for (int i = 0; i < end; i++) {
        const ex_config *c = &p->nodes[i].cfg[choice[i]];
        cm_design_set_folding(d, i, c->in, c->out, c->kernel);
    }
}

/* The priced floor (ex_priced_floors): the board's resources priced on the first frame's
 * longest path (a Lagrangian of eq. 6). Over the first `share` of the network, cut in
 * five, it bounds every design of every segment of its rows: 100 designs at the edge
 * of the board (random_fitting_choice), each timed as the segments from the first node
 * and from the first cut to each later cut; and the design of each segment's first
 * program (the interval's choice, near the best: a floor 10% too high fails
 * here). And it is ten times the floor that leaves the resources out (ex_cost_floor) or
 * more: the fast designs that floor times cannot fit the board; and over the whole span
 * at least 1/within of that program's design. */
static void check_priced_floor(const char *network, const char *board, cm_backend backend,
                               double share, double within)
{
    cm_design *d = torchvision_design(network, board, backend, CM_OBJECTIVE_LATENCY);
    ex_problem p;
    cm_error err = {0};
    assert_int_equal(ex_problem_init(&p, d, cm_seconds_now() + 600, 0.0, &err), CM_OK);
    const int span = (int)(share * p.n);
    int cut[5], k = 4; /* a fifth of the span to four fifths, then its end */
    cuts_at_fifths(d, span, cut);
    cut[k] = span;
    while (cut[k] < p.n && !cm_design_can_cut_after(d, cut[k] - 1))
        cut[k]++;
    const int end = cut[k++];
    double *from_first = malloc((size_t)end * sizeof *from_first);
    double *from_cut = malloc((size_t)end * sizeof *from_cut);
    int *choice = malloc((size_t)p.n * sizeof *choice);
    assert_true(from_first && from_cut && choice);
    assert_int_equal(ex_priced_floors(&p, 0, end, from_first, &err), CM_OK);
    assert_int_equal(ex_priced_floors(&p, cut[0], end, from_cut, &err), CM_OK);
    uint64_t rng = 0x2545f4914f6cdd1dull;
    for (int trial = 0; trial < 100; trial++) {
        random_fitting_choice(d, &p, end, &rng, trial % 2 == 1, choice);
        for (int e = 0; e < k; e++) {
            double t;
            assert_true(from_first[cut[e] - 1] / p.clock_hz <=
                        part_time(d, 0, cut[e], &t) * (1 + 1e-9));
            if (e > 0)
                assert_true(from_cut[cut[e] - 1 - cut[0]] / p.clock_hz <=
                            part_time(d, cut[0], cut[e], &t) * (1 + 1e-9));
        }
    }
    p.bb_budget = CM_OPTIMISE_EXACT_NODES;
    ex_sol sol = {.choice = choice};
    for (int e = 0; e < k; e++) {
        ex_segment seg;
        ex_segment_init(&p, 0, cut[e], &seg);
        assert_int_equal(ex_solve_segment(&p, &seg, NULL, false, false, INFINITY, &sol, &err), CM_OK);
        assert_true(from_first[cut[e] - 1] / p.clock_hz <= sol.ub * (1 + 1e-9));
        assert_true(from_first[cut[e] - 1] >= 10.0 * ex_cost_floor(&p, &seg, 0.0));
    }
    assert_true(from_first[end - 1] / p.clock_hz >= sol.ub / within);
    free(from_first);
    free(from_cut);
    free(choice);
    ex_problem_free(&p);
    cm_design_free(d);
}

/* `within` holds only with the rows that follow a share of the input's span (word_at)
 * and FINN's late records (the rows that end with an input) on the path: without them
 * SqueezeNet's design was 4.7 times the floor on FINN and 2.3 times on fpgaConvNet,
 * MobileNetV2's 15.4 times, DenseNet-121's first 30% 2.7 times (now 1.9, 1.85, 3.9,
 * 1.85); EfficientNet-B0's first 30% on fpgaConvNet, 1.48 times, did not move. */
static void test_priced_floor(void **state)
{
    (void)state;
    check_priced_floor("squeezenet1_1", "zcu102", CM_BACKEND_FINN, 1.0, 2.5);
    check_priced_floor("squeezenet1_1", "zcu102", CM_BACKEND_FPGACONVNET, 1.0, 2.0);
    check_priced_floor("mobilenet_v2", "u250", CM_BACKEND_FPGACONVNET, 1.0, 5.0);
    check_priced_floor("efficientnet_b0", "zcu102", CM_BACKEND_FPGACONVNET, 0.3, 1.6);
    check_priced_floor("densenet121", "u250", CM_BACKEND_FINN, 0.3, 2.2);
}

/* A branching segment's first program leaves the first frame out (its bound is the
 * interval's), and on FINN the first frame is much of a batch-1 latency: the search spent
 * its time on such bounds (ResNet-50 on a ZCU102 stopped at 19.6%). The linear
 * relaxation of the program with the first frame raises the bound: SqueezeNet's whole
 * network on a U250, 111,561 cycles for the interval alone, 147,276 with it, where
 * the best design known (exact, 30 s) takes 148,800. */
static void test_loose_bound_has_first_frame(void **state)
{
    (void)state;
    ex_problem p;
    ex_segment seg;
    cm_design *d = squeezenet_segment(CM_BACKEND_FINN, &p, &seg);
    p.bb_budget = CM_OPTIMISE_EXACT_NODES;
    cm_error err = {0};
    ex_sol sol = {.choice = calloc((size_t)p.n, sizeof *sol.choice)};
    assert_non_null(sol.choice);
    assert_int_equal(ex_solve_segment(&p, &seg, NULL, false, false, INFINITY, &sol, &err), CM_OK);
    assert_true(sol.loose && !sol.cut_off);
    double t = 0.0;
    for (int i = 0; i < p.n; i++)
        t = fmax(t, p.nodes[i].cfg[sol.choice[i]].cycles);
    assert_true(sol.lb <= sol.ub);
    assert_true(sol.lb * p.clock_hz >= 1.3 * p.batch * t);
    free(sol.choice);
    ex_problem_free(&p);
    cm_design_free(d);
}

/* A program with the first frame stops, while it has no design of its own, once its
 * bound is within the gap asked for of the interval's choice (GLPK stops at its own gap
 * only once it has a design; MobileNetV3-Small's throughput, fpgaConvNet, U250, went on
 * for 30 s at 0.39%). SqueezeNet's whole network for FINN on a U250 as one segment: the
 * interval's choice takes about 282,000 cycles, and the program's relaxation is 147,276,
 * within a gap of 100% of it (a user's quick answer), so the program ends at its root;
 * it found its first design after about 480 nodes, past this budget. */
static void test_program_stops_within_gap(void **state)
{
    (void)state;
    ex_problem p;
    ex_segment seg;
    cm_design *d = squeezenet_segment(CM_BACKEND_FINN, &p, &seg);
    p.gap = 1.0;
    p.bb_budget = 300;
    cm_error err = {0};
    ex_sol sol = {.choice = calloc((size_t)p.n, sizeof *sol.choice)};
    assert_non_null(sol.choice);
    assert_int_equal(ex_solve_segment(&p, &seg, NULL, true, false, INFINITY, &sol, &err), CM_OK);
    assert_false(p.budget_hit);
    assert_true(p.bb_nodes < 50);
    assert_true(sol.lb <= sol.ub && sol.ub <= 2.0 * sol.lb);
    assert_true(sol.lb * p.clock_hz >= 147000.0 && sol.ub * p.clock_hz >= 280000.0);
    free(sol.choice);
    ex_problem_free(&p);
    cm_design_free(d);
}

/* A branching segment is solved without its first frame, then again with it; the
 * second search of the interval's levels takes up where the first ended (its bound and
 * its choice) instead of beginning at the bottom. SqueezeNet's whole network for FINN
 * on a ZCU102: the answer is the one a search from scratch gives, and the only integer
 * program the second solve runs is the one with the first frame (from scratch it runs
 * the four level programs again). */
static void test_frame_solve_resumes_levels(void **state)
{
    (void)state;
    cm_design *d = torchvision_design("squeezenet1_1", "zcu102", CM_BACKEND_FINN,
                                      CM_OBJECTIVE_LATENCY);
    ex_problem p;
    ex_segment seg;
    cm_error err = {0};
    assert_int_equal(ex_problem_init(&p, d, cm_seconds_now() + 600, 0.0, &err), CM_OK);
    ex_segment_init(&p, 0, p.n, &seg);
    p.gap = 1.0;
    p.bb_budget = 300;
    ex_sol fresh = {.choice = calloc((size_t)p.n, sizeof(int))};
    ex_sol again = {.choice = calloc((size_t)p.n, sizeof(int))};
    assert_true(fresh.choice && again.choice);
    p.ilps = 0;
    assert_int_equal(ex_solve_segment(&p, &seg, NULL, true, false, INFINITY, &fresh, &err), CM_OK);
    const int from_scratch = p.ilps;
    assert_int_equal(ex_solve_segment(&p, &seg, NULL, false, false, INFINITY, &again, &err), CM_OK);
    assert_true(again.loose && !again.cut_off);
    p.ilps = 0;
    assert_int_equal(ex_solve_segment(&p, &seg, NULL, true, true, INFINITY, &again, &err), CM_OK);
    assert_int_equal(p.ilps, 1);
    assert_int_equal(from_scratch, 5);
    assert_true(fresh.lb == again.lb && fresh.ub == again.ub && fresh.t_lb == again.t_lb);
    assert_memory_equal(fresh.choice, again.choice, (size_t)p.n * sizeof(int));
    /* A cutoff at the earlier choice's own interval leaves that choice out (levels must
     * be faster than the cutoff) and, the search having ended, no level below it: the
     * resumed search answers "cut off" without a program, as a search from scratch
     * does after its level programs. */
    double t = 0.0;
    for (int i = 0; i < p.n; i++)
        t = fmax(t, p.nodes[i].cfg[again.choice[i]].cycles);
    const double cutoff = p.batch * t / p.clock_hz;
    assert_int_equal(ex_solve_segment(&p, &seg, NULL, false, false, INFINITY, &again, &err), CM_OK);
    p.ilps = 0;
    assert_int_equal(ex_solve_segment(&p, &seg, NULL, true, true, cutoff, &again, &err), CM_OK);
    assert_int_equal(p.ilps, 0);
    assert_int_equal(ex_solve_segment(&p, &seg, NULL, true, false, cutoff, &fresh, &err), CM_OK);
    assert_true(p.ilps > 0);
    assert_true(again.cut_off && fresh.cut_off);
    assert_true(again.lb == fresh.lb && again.lb == cutoff);
    free(fresh.choice);
    free(again.choice);
    ex_problem_free(&p);
    cm_design_free(d);
}

/* GLPK's presolver and first basis do not look at the clock, so no integer program is
 * begun without EX_SETUP_S_PER_ROW a row of it left before the deadline: SqueezeNet's
 * whole network for FINN on a U250 (about 1,800 rows with its first frame, 0.18 s) with
 * 10 ms left begins none (p.ilps counts them: the interval's level programs and the
 * program with the first frame), and still gives a bound (the cost floor) no higher than
 * its design's cost. The relaxation (frame 0) is guarded alike, but is no integer
 * program and leaves nothing to count: without time it only raises no bound. */
/* The interval floor the cut graph's set-up asks of every segment (ex_time_floor without
 * a mask: a search a node in its staircase of least resources) equals the pass over
 * every configuration that a mask keeping all of them takes, on every segment of
 * ResNet-18 from every fourth cut, for fpgaConvNet and FINN on a ZCU102 (where long
 * segments do not fit: some floors are infinite, and most are not). */
static void check_time_floor_staircase(cm_backend backend)
{
    cm_design *d = torchvision_design("resnet18", "zcu102", backend, CM_OBJECTIVE_LATENCY);
    ex_problem p;
    cm_error err = {0};
    assert_int_equal(ex_problem_init(&p, d, cm_seconds_now() + 600, 0.0, &err), CM_OK);
    size_t total = 0;
    for (int i = 0; i < p.n; i++)
        total += (size_t)p.nodes[i].n_cfg;
    uint8_t *all = malloc(total + 1);
    assert_non_null(all);
    memset(all, 1, total + 1);
    int finite = 0, infinite = 0;
    for (int a = 0; a < p.n; a += 4)
        for (int b = a + 1; b <= p.n; b++) {
            const ex_segment s = {.first = a, .end = b};
            const double fast = ex_time_floor(&p, &s, NULL), pass = ex_time_floor(&p, &s, all);
            assert_true(fast == pass || (isinf(fast) && isinf(pass)));
            finite += !isinf(fast);
            infinite += isinf(fast) != 0;
        }
    assert_true(finite > 100 && infinite > 0);
    free(all);
    ex_problem_free(&p);
    cm_design_free(d);
}

static void test_time_floor_staircase(void **state)
{
    (void)state;
    check_time_floor_staircase(CM_BACKEND_FPGACONVNET);
    check_time_floor_staircase(CM_BACKEND_FINN);
}

/* The pump's time, by hand: what is left less what the program took to its root, when
 * that is at least as much again. EfficientNet-B0's one partition for FINN on a ZCU102,
 * with the first frame: 13.61 s to its root, 5.87 s left: no pump (with the program's own
 * time limit the pump had taken it 6 s past the deadline). GoogLeNet's on a U250: 3.67 s
 * and 22.07 s: 18.40 s of pump. Without a deadline the pump always runs. */
static void test_pump_time(void **state)
{
    (void)state;
    assert_true(ex_pump_seconds(13.61, 5.87) == 0.0);
    assert_true(fabs(ex_pump_seconds(3.67, 22.07) - 18.40) < 1e-9);
    assert_true(ex_pump_seconds(2.0, 4.0) == 2.0);
    assert_true(ex_pump_seconds(2.0, 3.999) == 0.0);
    assert_true(isinf(ex_pump_seconds(1.5, INFINITY)));
}

static void test_no_program_without_time(void **state)
{
    (void)state;
    ex_problem p;
    ex_segment seg;
    cm_design *d = squeezenet_segment(CM_BACKEND_FINN, &p, &seg);
    cm_error err = {0};
    ex_sol sol = {.choice = calloc((size_t)p.n, sizeof *sol.choice)};
    assert_non_null(sol.choice);
    for (int frame = 0; frame < 2; frame++) {
        p.deadline = cm_seconds_now() + 0.01;
        p.ilps = 0;
        assert_int_equal(ex_solve_segment(&p, &seg, NULL, frame, false, INFINITY, &sol, &err), CM_OK);
        assert_int_equal(p.ilps, 0);
        assert_true(sol.lb > 0 && sol.lb <= sol.ub);
    }
    free(sol.choice);
    ex_problem_free(&p);
    cm_design_free(d);
}

/* A program's optimum is checked against its design's evaluation (read_answer), within
 * EX_AGREE: GLPK takes a binary within 1e-5 of its integer, which moves the terms it
 * multiplies. GoogLeNet's first 62 nodes for fpgaConvNet on a U250 (throughput, the
 * first frame modelled, proven optimal) come out about 9e-9 below the design's
 * evaluation: with a tolerance of 1e-9 the whole network's search ended in "internal
 * error" (exit 4). The answer must be the design's cost, and optimal. */
static void test_program_agrees_within_tolerance(void **state)
{
    (void)state;
    cm_design *d = torchvision_design("googlenet", "u250", CM_BACKEND_FPGACONVNET,
                                      CM_OBJECTIVE_THROUGHPUT);
    ex_problem p;
    cm_error err = {0};
    assert_int_equal(ex_problem_init(&p, d, cm_seconds_now() + 600, 0.0, &err), CM_OK);
    p.bb_budget = CM_OPTIMISE_EXACT_NODES;
    ex_segment seg;
    ex_segment_init(&p, 0, 62, &seg);
    ex_sol sol = {.choice = calloc((size_t)p.n, sizeof *sol.choice)};
    assert_non_null(sol.choice);
    if (ex_solve_segment(&p, &seg, NULL, true, false, INFINITY, &sol, &err) != CM_OK)
        fail_msg("%s", err.message);
    assert_false(sol.loose);
    assert_true(sol.lb == sol.ub && isfinite(sol.ub));
    assert_true(sol.ub == ex_evaluate_choice(&p, &seg, sol.choice));
    free(sol.choice);
    ex_problem_free(&p);
    cm_design_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jet_tagging),
        cmocka_unit_test(test_tfc),
        cmocka_unit_test(test_lenet_two_conv),
        cmocka_unit_test(test_cuts),
        cmocka_unit_test(test_gap_closes),
        cmocka_unit_test(test_lenet_proven_infeasible),
        cmocka_unit_test(test_throughput_partitioned),
        cmocka_unit_test(test_time_limit),
        cmocka_unit_test(test_listing_stops_at_grace),
        cmocka_unit_test(test_no_program_without_time),
        cmocka_unit_test(test_frame_solve_resumes_levels),
        cmocka_unit_test(test_pump_time),
        cmocka_unit_test(test_time_floor_staircase),
        cmocka_unit_test(test_branching_optimal),
        cmocka_unit_test(test_gap),
        cmocka_unit_test(test_interval_by_levels),
        cmocka_unit_test(test_interval_choice_within_gap),
        cmocka_unit_test(test_cost_floor_branching),
        cmocka_unit_test(test_longer_segment_costs_more),
        cmocka_unit_test(test_priced_floor),
        cmocka_unit_test(test_solved_segments_bound_longer),
        cmocka_unit_test(test_loose_bound_has_first_frame),
        cmocka_unit_test(test_frame_best_bound),
        cmocka_unit_test(test_program_stops_within_gap),
        cmocka_unit_test(test_program_stops_at_goal),
        cmocka_unit_test(test_program_agrees_within_tolerance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
