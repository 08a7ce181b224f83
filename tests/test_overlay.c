/* The overlay mapping on small hand-built CNNs: the series-parallel solution of the cost
 * graph equals exhaustive search over every algorithm and store-format assignment and
 * is never worse than greedy or a single algorithm; a DenseNet-like block, which is not
 * series-parallel, is mapped and labelled not optimal; bad options fail with the code
 * and resource cli.md asks for; the same inputs give the same mapping; a layer takes
 * the longer of its compute and its weights over the bandwidth, unless the weights fit
 * on chip beside the array's buffers (worked by hand). */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cnnmap/board.h>
#include <cnnmap/overlay.h>

#include "overlay/costgraph.h"
#include "overlay/pbqp.h"

/* ---- building graphs by hand ---- */

static cm_graph *new_graph(cm_shape in)
{
    cm_graph *g = cm_graph_new("hand");
    assert_non_null(g);
    g->inputs = calloc(1, sizeof *g->inputs);
    assert_non_null(g->inputs);
    g->n_inputs = 1;
    g->inputs[0].name = strdup("x");
    g->inputs[0].shape = in;
    return g;
}

static cm_shape shape_of(const cm_graph *g, cm_source s)
{
    return CM_SOURCE_IS_INPUT(s) ? g->inputs[0].shape : g->layers[s].out_shape;
}

/* A layer reading `ins`; k x k window, stride s, "same" padding; out channels c (for
 * a concat the sum of its inputs'). Returns its index. */
static int add(cm_graph *g, cm_op op, const cm_source *ins, int n, int c, int k, int s)
{
    char name[32];
    snprintf(name, sizeof name, "l%d", g->n_layers);
    cm_shape in = shape_of(g, ins[0]);
    cm_layer *l = cm_graph_add_layer(g, name, op);
    assert_non_null(l);
    assert_int_equal(cm_layer_set_inputs(l, ins, n, NULL), CM_OK);
    l->in_shape = in;
    l->kernel[0] = l->kernel[1] = k;
    l->stride[0] = l->stride[1] = s;
    l->pad[0] = l->pad[1] = l->pad[2] = l->pad[3] = k / 2;
    l->out_shape = (cm_shape){c, (in.h + s - 1) / s, (in.w + s - 1) / s};
    if (op == CM_OP_CONCAT) {
        l->out_shape.c = 0;
        for (int i = 0; i < n; i++)
            l->out_shape.c += shape_of(g, ins[i]).c;
    } else if (op == CM_OP_FC) {
        l->out_shape = (cm_shape){c, 1, 1};
        l->kernel[0] = l->kernel[1] = 0;
    } else if (op != CM_OP_CONV) {
        l->out_shape.c = in.c;
    }
    assert_int_equal(cm_layer_compute_cost(l, NULL), CM_OK);
    return g->n_layers - 1;
}

static int add1(cm_graph *g, cm_op op, cm_source in, int c, int k, int s)
{
    return add(g, op, &in, 1, c, k, s);
}

static void finish(cm_graph *g)
{
    g->outputs = malloc(sizeof *g->outputs);
    g->outputs[0] = g->n_layers - 1;
    g->n_outputs = 1;
}

/* conv 3x3 - relu - conv 1x1 - maxpool - conv 5x5 - fc */
static cm_graph *chain_cnn(void)
{
    cm_graph *g = new_graph((cm_shape){3, 16, 16});
    int a = add1(g, CM_OP_CONV, -1, 8, 3, 1);
    int r = add1(g, CM_OP_RELU, a, 0, 0, 1);
    int b = add1(g, CM_OP_CONV, r, 16, 1, 1);
    int p = add1(g, CM_OP_POOL_MAX, b, 0, 2, 2);
    int c = add1(g, CM_OP_CONV, p, 24, 5, 1);
    add1(g, CM_OP_FC, c, 10, 0, 1);
    finish(g);
    return g;
}

/* An Inception module: 1x1; 1x1 then 3x3; 1x1 then 5x5; 3x3 max pool then 1x1;
 * concatenated, then a 3x3 conv. */
static cm_graph *inception_cnn(void)
{
    cm_graph *g = new_graph((cm_shape){16, 12, 12});
    int stem = add1(g, CM_OP_CONV, -1, 32, 3, 1);
    int b1 = add1(g, CM_OP_CONV, stem, 16, 1, 1);
    int b2 = add1(g, CM_OP_CONV, add1(g, CM_OP_CONV, stem, 24, 1, 1), 32, 3, 1);
    int b3 = add1(g, CM_OP_CONV, add1(g, CM_OP_CONV, stem, 8, 1, 1), 16, 5, 1);
    int b4 = add1(g, CM_OP_CONV, add1(g, CM_OP_POOL_MAX, stem, 0, 3, 1), 16, 1, 1);
    cm_source cat[4] = {b1, b2, b3, b4};
    int c = add(g, CM_OP_CONCAT, cat, 4, 0, 0, 1);
    add1(g, CM_OP_CONV, c, 32, 3, 1);
    finish(g);
    return g;
}

/* A residual pair: conv - conv - add(first, second) - 3x3 conv. */
static cm_graph *residual_cnn(void)
{
    cm_graph *g = new_graph((cm_shape){8, 10, 10});
    int a = add1(g, CM_OP_CONV, -1, 16, 3, 1);
    int b = add1(g, CM_OP_CONV, a, 16, 3, 1);
    cm_source sum[2] = {a, b};
    int s = add(g, CM_OP_ADD, sum, 2, 16, 0, 1);
    add1(g, CM_OP_CONV, s, 8, 3, 1);
    finish(g);
    return g;
}

/* A dense block: every layer reads the concatenation of all before it. Its cost graph
 * holds a K4 (two store vertices and two concatenations), so it is not series-parallel. */
static cm_graph *dense_cnn(void)
{
    cm_graph *g = new_graph((cm_shape){8, 8, 8});
    int a = add1(g, CM_OP_CONV, -1, 8, 3, 1);
    int b = add1(g, CM_OP_CONV, a, 8, 3, 1);
    cm_source ab[2] = {a, b};
    int c = add1(g, CM_OP_CONV, add(g, CM_OP_CONCAT, ab, 2, 0, 0, 1), 8, 3, 1);
    cm_source abc[3] = {a, b, c};
    add1(g, CM_OP_CONV, add(g, CM_OP_CONCAT, abc, 3, 0, 0, 1), 8, 3, 1);
    finish(g);
    return g;
}

/* ---- checks ---- */

static cm_board u200(void)
{
    cm_board b;
    assert_int_equal(cm_board_builtin("u200", &b, NULL), CM_OK);
    return b;
}

static cm_ov_array array8(void)
{
    cm_board b = u200();
    cm_ov_array a;
    memset(&a, 0, sizeof a);
    a.p1 = a.p2 = 8;
    a.freq_hz = b.clock_mhz * 1e6;
    a.bw_bytes_s = b.bandwidth_gbps * 1e9;
    a.burst_bytes = CM_OV_BURST_BYTES;
    a.wino_m = 2;
    a.wino_r = 3;
    a.bram18 = b.resources.bram18;
    a.uram = b.resources.uram;
    return a;
}

static double exhaustive(const cm_pbqp *p)
{
    int n = cm_pbqp_vertices(p);
    int *choice = calloc((size_t)n, sizeof *choice);
    double space = 1, best = INFINITY;
    for (int i = 0; i < n; i++)
        space *= cm_pbqp_domain(p, i);
    assert_true(space < 3e6);
    for (;;) {
        double c = cm_pbqp_evaluate(p, choice);
        best = c < best ? c : best;
        int i = 0;
        while (i < n && ++choice[i] == cm_pbqp_domain(p, i))
            choice[i++] = 0;
        if (i == n)
            break;
    }
    free(choice);
    return best;
}

static cm_overlay_result *map8(const cm_graph *g)
{
    cm_board b = u200();
    cm_overlay_options opt;
    cm_overlay_options_default(&opt);
    opt.array[0] = opt.array[1] = 8;
    cm_overlay_result *r = NULL;
    cm_error err = {0};
    if (cm_overlay_map(g, &b, &opt, &r, &err) != CM_OK)
        fail_msg("%s", err.message);
    return r;
}

static void assert_not_worse_than_baselines(const cm_overlay_result *r)
{
    for (int k = 0; k < CM_OVERLAY_CONV_ALGORITHMS; k++)
        if (r->baselines[k].present)
            assert_true(r->latency_s <= r->baselines[k].latency_s * (1 + 1e-12));
    assert_true(r->greedy.present);
    assert_true(r->latency_s <= r->greedy.latency_s * (1 + 1e-12));
    double sum = 0;
    for (int i = 0; i < r->n_layers; i++)
        sum += fmax(r->layers[i].compute_s, r->layers[i].memory_s) + r->layers[i].transition_s;
    assert_true(fabs(sum - r->latency_s) <= 1e-9 * r->latency_s);
}

/* Exhaustive search over the cost graph's PBQP (every algorithm of every layer, every
 * format of every store vertex) against the reductions, and through cm_overlay_map. */
static void check_against_exhaustive(cm_graph *g, bool series_parallel)
{
    cm_ov_array arr = array8();
    cm_ov_costgraph *cg = NULL;
    cm_pbqp *p = NULL;
    assert_int_equal(cm_ov_costgraph_build(g, &arr, CM_OVERLAY_ALL_ALGORITHMS, &cg, NULL), CM_OK);
    assert_int_equal(cm_ov_costgraph_pbqp(cg, &p, NULL), CM_OK);
    int *choice = calloc((size_t)cg->n_nodes, sizeof *choice);
    cm_pbqp_solution sol;
    assert_int_equal(cm_pbqp_solve(p, NULL, choice, &sol, NULL), CM_OK);
    double best = exhaustive(p);
    assert_true(isfinite(best));
    assert_int_equal(sol.optimal, series_parallel);
    if (series_parallel)
        assert_true(fabs(sol.cost - best) <= 1e-12 * best);
    else
        assert_true(sol.cost >= best * (1 - 1e-12));
    cm_overlay_result *r = map8(g);
    assert_int_equal(r->optimal, series_parallel);
    if (series_parallel)
        assert_true(fabs(r->latency_s - best) <= 1e-12 * best);
    else
        assert_non_null(strstr(r->not_optimal_reason, "not series-parallel"));
    assert_true(r->latency_s >= best * (1 - 1e-12));
    assert_not_worse_than_baselines(r);
    cm_overlay_result_free(r);
    free(choice);
    cm_pbqp_free(p);
    cm_ov_costgraph_free(cg);
    cm_graph_free(g);
}

#define EXHAUSTIVE_TEST(fn, make, series_parallel)                                            \
    static void fn(void **state)                                                              \
    {                                                                                         \
        (void)state;                                                                          \
        check_against_exhaustive(make(), series_parallel);                                    \
    }
EXHAUSTIVE_TEST(test_chain, chain_cnn, true)
EXHAUSTIVE_TEST(test_inception_module, inception_cnn, true)
EXHAUSTIVE_TEST(test_residual, residual_cnn, true)
EXHAUSTIVE_TEST(test_dense_block_is_heuristic, dense_cnn, false)

/* The cost graph of the Inception module: the stem's output is read four times, so it
 * gets a store vertex; the concatenation is a format vertex; relu makes no vertex. */
static void test_cost_graph_shape(void **state)
{
    (void)state;
    cm_graph *g = inception_cnn();
    cm_ov_array arr = array8();
    cm_ov_costgraph *cg = NULL;
    assert_int_equal(cm_ov_costgraph_build(g, &arr, CM_OVERLAY_ALL_ALGORITHMS, &cg, NULL), CM_OK);
    int formats = 0;
    for (int n = 0; n < cg->n_nodes; n++)
        formats += cg->nodes[n].is_format;
    /* input, store after the stem, concat */
    assert_int_equal(formats, 3);
    assert_int_equal(cg->n_nodes, g->n_layers - 1 + 3);
    const cm_ov_node *stem = &cg->nodes[1];
    assert_true(stem->store >= 0);
    /* The store vertex may hold the tensor or the 3x3 pool's, 1x1 convs' layouts (all the
     * tensor): only the tensor. */
    assert_int_equal(cg->nodes[stem->store].n_options, 1);
    cm_ov_costgraph_free(cg);
    cm_graph_free(g);
}

static void test_deterministic(void **state)
{
    (void)state;
    cm_graph *g = inception_cnn();
    cm_board b = u200();
    cm_overlay_result *r1 = NULL, *r2 = NULL;
    assert_int_equal(cm_overlay_map(g, &b, NULL, &r1, NULL), CM_OK);
    assert_int_equal(cm_overlay_map(g, &b, NULL, &r2, NULL), CM_OK);
    assert_int_equal(r1->n_layers, r2->n_layers);
    assert_memory_equal(r1->array, r2->array, sizeof r1->array);
    assert_true(r1->latency_s == r2->latency_s);
    assert_memory_equal(r1->layers, r2->layers, (size_t)r1->n_layers * sizeof *r1->layers);
    assert_true((int64_t)r1->array[0] * r1->array[1] <= b.resources.dsp);
    cm_overlay_result_free(r1);
    cm_overlay_result_free(r2);
    cm_graph_free(g);
}

static void expect_failure(const cm_graph *g, const cm_board *b, const cm_overlay_options *opt,
                           cm_status code, const char *text)
{
    cm_overlay_result *r = NULL;
    cm_error err = {0};
    assert_int_equal(cm_overlay_map(g, b, opt, &r, &err), code);
    assert_null(r);
    if (!strstr(err.message, text))
        fail_msg("'%s' does not say '%s'", err.message, text);
}

static void test_bad_options(void **state)
{
    (void)state;
    cm_graph *g = chain_cnn();
    cm_board b = u200();
    cm_overlay_options opt;
    cm_overlay_options_default(&opt);
    opt.dsp_limit = 0;
    expect_failure(g, &b, &opt, CM_EINFEASIBLE, "DSP");
    opt.dsp_limit = 3;
    expect_failure(g, &b, &opt, CM_EINFEASIBLE, "DSP");
    opt.dsp_limit = 7000;
    expect_failure(g, &b, &opt, CM_EINFEASIBLE, "DSP");
    cm_overlay_options_default(&opt);
    opt.array[0] = 100;
    opt.array[1] = 100;
    expect_failure(g, &b, &opt, CM_EINFEASIBLE, "DSP");
    cm_overlay_options_default(&opt);
    opt.algorithms = 1u << CM_OVERLAY_WINOGRAD; /* the 1x1 conv cannot */
    expect_failure(g, &b, &opt, CM_EINFEASIBLE, "l2");
    cm_overlay_options_default(&opt);
    cm_board tiny = b;
    tiny.resources.bram18 = 4;
    expect_failure(g, &tiny, &opt, CM_EINFEASIBLE, "BRAM");
    /* A small limit is still honoured. */
    opt.dsp_limit = 10;
    cm_overlay_result *r = NULL;
    assert_int_equal(cm_overlay_map(g, &b, &opt, &r, NULL), CM_OK);
    assert_true(r->array[0] * r->array[1] <= 10 && r->array[0] >= 2 && r->array[1] >= 2);
    cm_overlay_result_free(r);
    cm_graph_free(g);
}

static void test_parse_algorithms(void **state)
{
    (void)state;
    unsigned mask = 0;
    cm_error err = {0};
    assert_int_equal(cm_overlay_parse_algorithms("im2col,winograd", &mask, &err), CM_OK);
    assert_int_equal(mask, (1u << CM_OVERLAY_IM2COL) | (1u << CM_OVERLAY_WINOGRAD));
    assert_int_equal(cm_overlay_parse_algorithms("im2col,fft", &mask, &err), CM_EUSAGE);
    assert_non_null(strstr(err.message, "'fft'"));
    assert_int_equal(cm_overlay_parse_algorithms("", &mask, &err), CM_EUSAGE);
    assert_int_equal(cm_overlay_parse_algorithms("kn2row,", &mask, &err), CM_EUSAGE);
}

/* Without an algorithm the baselines that need it are absent, and the mapping uses
 * only what is allowed. */
static void test_restricted_algorithms(void **state)
{
    (void)state;
    cm_graph *g = inception_cnn();
    cm_board b = u200();
    cm_overlay_options opt;
    cm_overlay_options_default(&opt);
    opt.algorithms = 1u << CM_OVERLAY_KN2ROW;
    cm_overlay_result *r = NULL;
    assert_int_equal(cm_overlay_map(g, &b, &opt, &r, NULL), CM_OK);
    assert_false(r->baselines[CM_OVERLAY_IM2COL].present);
    assert_false(r->baselines[CM_OVERLAY_WINOGRAD].present);
    assert_true(r->baselines[CM_OVERLAY_KN2ROW].present);
    assert_true(fabs(r->baselines[CM_OVERLAY_KN2ROW].latency_s - r->latency_s) <= 1e-15);
    for (int i = 0; i < r->n_layers; i++)
        assert_true(r->layers[i].algorithm == CM_OVERLAY_KN2ROW ||
                    r->layers[i].algorithm == CM_OVERLAY_POOL);
    cm_overlay_result_free(r);
    cm_graph_free(g);
}

/* ---- weights over the bandwidth ---- */

#define U200_BW 77e9
#define U200_HZ 286e6

/* Maps g on the fixed array side x side of board b. */
static cm_overlay_result *map_on(const cm_graph *g, const cm_board *b, int side)
{
    cm_overlay_options opt;
    cm_overlay_options_default(&opt);
    opt.array[0] = opt.array[1] = side;
    cm_overlay_result *r = NULL;
    cm_error err = {0};
    if (cm_overlay_map(g, b, &opt, &r, &err) != CM_OK)
        fail_msg("%s", err.message);
    assert_not_worse_than_baselines(r);
    return r;
}

/* One fc layer, n_in -> n_out, without bias, reading the graph input. */
static cm_graph *fc_only(int n_in, int n_out)
{
    cm_graph *g = new_graph((cm_shape){n_in, 1, 1});
    add1(g, CM_OP_FC, -1, n_out, 0, 1);
    finish(g);
    return g;
}

static bool near(double x, double want)
{
    return fabs(x - want) <= 1e-12 * want;
}

/* fc 8192 -> 8192 on a 64 x 64 array of the U200: 8192^2 = 67,108,864 bytes of weights,
 * more than the (4320 - 64 - 64 - 2 x 64) x 2048 + 960 x 32768 = 39,780,352 bytes left
 * on chip, so they are read from DRAM: 67108864 / 77e9 = 871.5 us. The array computes
 * the 1 x 8192 by 8192 x 8192 GEMM under WS in ceil(8192/64)^2 x 1 + 128 = 16512
 * cycles, 57.7 us: the weights set the layer's time. Loading the 8192-byte input and
 * storing the 8192-byte output are the transitions. */
static void test_fc_weights_dominate(void **state)
{
    (void)state;
    cm_graph *g = fc_only(8192, 8192);
    cm_board b = u200();
    cm_overlay_result *r = map_on(g, &b, 64);
    assert_false(r->weights_resident);
    assert_int_equal(r->weight_bytes, 67108864);
    assert_int_equal(r->onchip_bytes, 39780352);
    assert_int_equal(r->n_layers, 1);
    const cm_overlay_layer *l = &r->layers[0];
    assert_int_equal(l->dataflow, CM_OVERLAY_WS);
    assert_int_equal(l->cycles, 16512);
    assert_true(near(l->compute_s, 16512 / U200_HZ));
    assert_true(near(l->memory_s, 67108864 / U200_BW));
    assert_true(near(l->transition_s, (8192 + 8192) / U200_BW));
    assert_true(near(r->latency_s, (67108864.0 + 8192 + 8192) / U200_BW));
    cm_overlay_result_free(r);
    cm_graph_free(g);
}

/* fc 1024 -> 1024: 1,048,576 bytes of weights, 512 BRAM18. A 32 x 32 array's buffers
 * take 32 + 32 + 2 x 32 = 128 BRAM18; on a board without URAM the weights stay on chip
 * with 640 BRAM18 and not with 639. The GEMM takes 32 x 32 x 1 + 64 = 1088 cycles
 * (3.8 us) under WS; reading the weights takes 1048576 / 77e9 = 13.6 us. */
static void test_weights_resident_when_they_fit(void **state)
{
    (void)state;
    cm_graph *g = fc_only(1024, 1024);
    cm_board b = u200();
    b.resources.uram = 0;
    const double io = (1024 + 1024) / U200_BW;
    for (int bram = 639; bram <= 640; bram++) {
        b.resources.bram18 = bram;
        cm_overlay_result *r = map_on(g, &b, 32);
        bool resident = bram == 640;
        assert_int_equal(r->weights_resident, resident);
        assert_int_equal(r->onchip_bytes, (bram - 128) * 2048);
        assert_int_equal(r->layers[0].cycles, 1088);
        assert_true(near(r->layers[0].memory_s, resident ? 0.0 : 1048576 / U200_BW));
        double busy = resident ? 1088 / U200_HZ : 1048576 / U200_BW;
        assert_true(near(r->latency_s, busy + io));
        cm_overlay_result_free(r);
    }
    cm_graph_free(g);
}

/* conv 3x3, 64 -> 64 on 56 x 56: 36,864 bytes of weights take 0.48 us, while im2col's
 * 3136 x 576 by 576 x 64 GEMM alone takes 49 x 576 = 28,224 cycles (98.7 us) on 64 x 64
 * under NS. Whether its weights are read from DRAM (a board with no memory beside the
 * buffers) or stay on chip (the U200), every option's compute hides them, so the
 * mapping and its latency are the same, and the latency is compute and transitions. */
static void test_conv_compute_dominates(void **state)
{
    (void)state;
    cm_graph *g = new_graph((cm_shape){64, 56, 56});
    add1(g, CM_OP_CONV, -1, 64, 3, 1);
    finish(g);
    cm_board b = u200();
    cm_overlay_result *on_chip = map_on(g, &b, 64);
    b.resources.uram = 0;
    b.resources.bram18 = 64 + 64 + 2 * 64;
    cm_overlay_result *streamed = map_on(g, &b, 64);
    assert_true(on_chip->weights_resident);
    assert_false(streamed->weights_resident);
    assert_int_equal(streamed->onchip_bytes, 0);
    assert_true(on_chip->layers[0].memory_s == 0.0);
    assert_true(near(streamed->layers[0].memory_s, 36864 / U200_BW));
    assert_true(streamed->layers[0].compute_s > 100 * streamed->layers[0].memory_s);
    assert_true(streamed->latency_s == on_chip->latency_s);
    assert_int_equal(streamed->layers[0].algorithm, on_chip->layers[0].algorithm);
    const cm_overlay_layer *l = &streamed->layers[0];
    assert_true(near(streamed->latency_s, l->compute_s + l->transition_s));
    cm_overlay_result_free(on_chip);
    cm_overlay_result_free(streamed);
    cm_graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain),
        cmocka_unit_test(test_inception_module),
        cmocka_unit_test(test_residual),
        cmocka_unit_test(test_dense_block_is_heuristic),
        cmocka_unit_test(test_cost_graph_shape),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_parse_algorithms),
        cmocka_unit_test(test_restricted_algorithms),
        cmocka_unit_test(test_fc_weights_dominate),
        cmocka_unit_test(test_weights_resident_when_they_fit),
        cmocka_unit_test(test_conv_compute_dominates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
