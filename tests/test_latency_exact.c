/* The exact latency-driven search (CM_LATENCY_SEARCH_EXACT): on a small network every
 * point of the space is costed by brute force (every cut vector, every N, m and bank
 * size of every conv block within the ranges beyond which nothing changes) and the
 * exact search must find that minimum with a bound no higher; on the Table I models and
 * MPCNN it must close the 1% gap, never lose to the rule search and be deterministic. */
#include "test_support.h"
#include "onnx_builder.h"

#include <cnnmap/design.h>
#include <cnnmap/design_io.h>
#include <cnnmap/latency.h>
#include <cnnmap/model.h>
#include <cnnmap/optimise.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latency/latency_internal.h"

static void conv(Onnx__ModelProto *m, const char *name, const char *in, const char *out,
                 int64_t filters, int64_t channels, int64_t pad)
{
    char w[32], b[32], inputs[96];
    snprintf(w, sizeof w, "%s_W", name);
    snprintf(b, sizeof b, "%s_B", name);
    ob_init_float(m, w, 4, (int64_t[]){filters, channels, 3, 3}, NULL);
    ob_init_float(m, b, 1, (int64_t[]){filters}, NULL);
    snprintf(inputs, sizeof inputs, "%s,%s,%s", in, w, b);
    Onnx__NodeProto *n = ob_node(m, "Conv", name, inputs, out);
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){3, 3});
    ob_attr_ints(n, "pads", 4, (int64_t[]){pad, pad, pad, pad});
}

/* x 16x6x6 -> convA 8x3x3 pad 1 (1,152 weights: two BRAM18 banks unfolded, so f_in
 * matters) -> relu -> convB 4x3x3 -> 4x4x4 -> relu -> maxpool 2 -> flatten -> dense 3. */
static cm_graph *small_net(void)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 16, 6, 6});
    conv(m, "convA", "x", "a", 8, 16, 1);
    ob_node(m, "Relu", "reluA", "a", "ra");
    conv(m, "convB", "ra", "b", 4, 8, 0);
    ob_node(m, "Relu", "reluB", "b", "rb");
    Onnx__NodeProto *n = ob_node(m, "MaxPool", "pool", "rb", "p");
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){2, 2});
    ob_attr_ints(n, "strides", 2, (int64_t[]){2, 2});
    ob_node(m, "Flatten", "flatten", "p", "f");
    ob_init_float(m, "fc_W", 2, (int64_t[]){3, 16}, NULL);
    n = ob_node(m, "Gemm", "fc", "f,fc_W", "y");
    ob_attr_int(n, "transB", 1);
    ob_output(m, "y", 2, NULL);
    return cm_test_load_built(m, "small.onnx");
}

/* x 64x8x8 -> maxpool 2 -> relu (-> relu) -> convA 32x3x3 pad 1 -> relu -> convB
 * 16x3x3: convA's group folds over its maps with the pool and the ReLUs in each pass,
 * with two_relus two ReLUs in each pass (each on a block of its own). */
static cm_graph *pooled_net(bool two_relus)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 64, 8, 8});
    Onnx__NodeProto *n = ob_node(m, "MaxPool", "pool", "x", "p");
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){2, 2});
    ob_attr_ints(n, "strides", 2, (int64_t[]){2, 2});
    ob_node(m, "Relu", "relu0", "p", "r0");
    if (two_relus)
        ob_node(m, "Relu", "relu1", "r0", "r1");
    conv(m, "convA", two_relus ? "r1" : "r0", "a", 32, 64, 1);
    ob_node(m, "Relu", "reluA", "a", "ra");
    conv(m, "convB", "ra", "y", 16, 32, 1);
    ob_output(m, "y", 4, NULL);
    return cm_test_load_built(m, two_relus ? "pooled2.onnx" : "pooled.onnx");
}

/* A model of the test generators' zoo (zoo/NAME.onnx), loaded. */
static cm_graph *load_zoo(const char *name)
{
    char path[1024];
    cm_test_generated_model(name, path, sizeof path);
    cm_graph *g = NULL;
    cm_error err = {0};
    assert_int_equal(cm_model_load(path, &g, &err), CM_OK);
    return g;
}

static cm_board zc706(void)
{
    cm_board b;
    cm_error err = {0};
    assert_int_equal(cm_board_builtin("zc706", &b, &err), CM_OK);
    return b;
}

/* ---- brute force ---- */

typedef struct brute {
    const cm_lat_arch *a;
    const cm_lat_machine *m;
    cm_lat_fold *f;
    cm_lat_eval *e;
    int *conv_blocks, n_conv;
    int *max_n, *max_m, *max_bank; /* per arch block */
    double best;
    long points, infeasible;
    cm_lat_eval *cold; /* every point costed afresh too (NULL: not) */
} brute;

/* The eval structure keeps each block's resources from one costing to the next
 * (cm_lat_block_memo), each group's f_in and the blocks' sizes while the schedule
 * stands, and works out each f_in pass as the one before it: a point must cost the
 * same, subgraph by subgraph and block by block, as in a structure costing it first and
 * working everything out afresh. */
static void check_against_cold(const brute *b)
{
    cm_error err = {0};
    cm_lat_eval_free(b->cold);
    assert_int_equal(cm_lat_eval_init(b->a, b->cold, &err), CM_OK);
    b->cold->every_pass = true;
    cm_lat_evaluate(b->a, b->m, b->f, b->cold);
    const cm_lat_eval *w = b->e, *c = b->cold;
    assert_true(w->feasible == c->feasible && w->latency_s == c->latency_s);
    assert_int_equal(w->n_subs, c->n_subs);
    for (int k = 0; k < w->n_subs; k++)
        assert_true(w->sub_ii[k] == c->sub_ii[k] && w->sub_depth[k] == c->sub_depth[k] &&
                    w->sub_exec[k] == c->sub_exec[k] &&
                    w->sub_weight_words[k] == c->sub_weight_words[k]);
    for (int k = 0; k < b->a->n_blocks; k++) {
        assert_int_equal(w->block_layers[k], c->block_layers[k]);
        assert_int_equal(w->block_kernel[2 * k], c->block_kernel[2 * k]);
        assert_int_equal(w->block_kernel[2 * k + 1], c->block_kernel[2 * k + 1]);
    }
    assert_true(w->res.dsp == c->res.dsp && w->res.bram18 == c->res.bram18 &&
                w->res.lut == c->res.lut && w->res.ff == c->res.ff && w->res.uram == c->res.uram);
    for (int k = 0; k < b->a->n_blocks; k++)
        assert_true(w->block_res[k].dsp == c->block_res[k].dsp &&
                    w->block_res[k].bram18 == c->block_res[k].bram18 &&
                    w->block_res[k].lut == c->block_res[k].lut &&
                    w->block_res[k].ff == c->block_res[k].ff);
}

/* Every (N, m, bank) of every conv block: N up to the most filters of its layers, m up
 * to the largest window, the bank up to what its layers need unfolded at N = m = 1
 * (beyond those nothing changes but the cost). */
static void brute_blocks(brute *b, int i)
{
    if (i == b->n_conv) {
        cm_lat_evaluate(b->a, b->m, b->f, b->e);
        if (b->cold)
            check_against_cold(b);
        b->points++;
        if (b->e->feasible)
            b->best = fmin(b->best, b->e->latency_s);
        else
            b->infeasible++;
        return;
    }
    int k = b->conv_blocks[i];
    for (int N = 1; N <= b->max_n[k]; N++)
        for (int m = 1; m <= b->max_m[k]; m++)
            for (int bank = 1; bank <= b->max_bank[k]; bank++) {
                b->f->coarse[k] = N, b->f->macc[k] = m, b->f->bank[k] = bank;
                brute_blocks(b, i + 1);
            }
}

static void block_ranges(brute *b)
{
    const cm_lat_arch *a = b->a;
    for (int k = 0; k < a->n_blocks; k++) {
        b->max_n[k] = b->max_m[k] = 1;
        b->f->coarse[k] = b->f->macc[k] = 1;
    }
    for (int gi = 0; gi < a->n_groups; gi++)
        for (int s = 0; s < a->groups[gi].n_steps; s++) {
            const cm_lat_step *st = &a->groups[gi].steps[s];
            const cm_lat_layer *l = &a->net->l[st->layer];
            if (st->kind != CM_LATENCY_CONV)
                continue;
            if (l->nout > b->max_n[st->block])
                b->max_n[st->block] = l->nout;
            if (l->kernel[0] * l->kernel[1] > b->max_m[st->block])
                b->max_m[st->block] = l->kernel[0] * l->kernel[1];
        }
    b->n_conv = 0;
    for (int k = 0; k < a->n_blocks; k++) {
        b->max_bank[k] = cm_lat_full_bank(a, b->m, b->f, k);
        b->f->bank[k] = 1;
        if (a->kind[k] == CM_LATENCY_CONV)
            b->conv_blocks[b->n_conv++] = k;
    }
}

/* The per-block arrays of b and its ranges, for architecture a's n blocks. */
static void brute_ranges(brute *b, size_t n)
{
    b->conv_blocks = calloc(n, sizeof(int));
    b->max_n = calloc(n, sizeof(int)), b->max_m = calloc(n, sizeof(int));
    b->max_bank = calloc(n, sizeof(int));
    block_ranges(b);
}

static void brute_ranges_free(brute *b)
{
    free(b->conv_blocks), free(b->max_n), free(b->max_m), free(b->max_bank);
}

static void brute_cut(const cm_lat_net *net, const cm_lat_machine *m, const bool *cut, brute *b)
{
    cm_lat_arch a;
    cm_lat_eval e;
    cm_error err = {0};
    assert_int_equal(cm_lat_arch_build(net, cut, true, &a, &err), CM_OK);
    assert_int_equal(cm_lat_eval_init(&a, &e, &err), CM_OK);
    size_t n = (size_t)a.n_blocks + 1;
    cm_lat_fold f = {calloc(n, sizeof(int)), calloc(n, sizeof(int)), calloc(n, sizeof(int)), true};
    b->a = &a, b->e = &e, b->f = &f, b->m = m;
    brute_ranges(b, n);
    brute_blocks(b, 0);
    brute_ranges_free(b);
    free(f.coarse), free(f.macc), free(f.bank);
    cm_lat_eval_free(&e);
    cm_lat_arch_free(&a);
}

/* The machine a board is, at 16 bits and batch 1. */
static cm_lat_machine machine_of(const cm_board *board)
{
    cm_lat_machine m = {.avail = board->resources, .clock_hz = board->clock_mhz * 1e6,
                        .bw_bytes_s = board->bandwidth_gbps * 1e9, .word_bits = 16, .batch = 1};
    m.bw_words = m.bw_bytes_s / (m.clock_hz * 2.0);
    return m;
}

/* The least latency of any point of the space (INFINITY: none fits). */
static double brute_minimum(const cm_graph *g, const cm_board *board, brute *b)
{
    cm_lat_net net;
    cm_error err = {0};
    assert_int_equal(cm_lat_net_build(g, &net, &err), CM_OK);
    cm_lat_machine m = machine_of(board);
    bool *cut = calloc((size_t)net.n_weight, sizeof *cut);
    b->best = INFINITY;
    for (unsigned mask = 0; mask < 1u << (net.n_weight - 1); mask++) {
        for (int w = 1; w < net.n_weight; w++)
            cut[w] = (mask >> (w - 1)) & 1;
        brute_cut(&net, &m, cut, b);
    }
    free(cut);
    cm_lat_net_free(&net);
    return b->best;
}

static void exact_design(const cm_graph *g, const cm_board *board, double gap, double limit,
                         cm_latency_design *d)
{
    cm_latency_options o;
    cm_latency_options_init(&o);
    o.search = CM_LATENCY_SEARCH_EXACT;
    o.exact_gap = gap;
    o.time_limit_s = limit;
    cm_error err = {0};
    if (cm_latency_optimise(g, board, &o, d, &err) != CM_OK)
        fail_msg("%s", err.message);
}

/* Boards small enough that the resources bind (most points do not fit), one with so
 * little BRAM that convA must fold its input maps (14 BRAM18: the only point that fits
 * runs it in two passes), and the ZC706 itself. */
static void test_exact_equals_brute_force(void **state)
{
    (void)state;
    cm_graph *g = small_net();
    const cm_resources boards[4] = {{.dsp = 48, .bram18 = 40, .lut = 14000, .ff = 30000},
                                    {.dsp = 30, .bram18 = 16, .lut = 14000, .ff = 24000},
                                    {.dsp = 30, .bram18 = 14, .lut = 14000, .ff = 24000},
                                    zc706().resources};
    for (int i = 0; i < 4; i++) {
        cm_board board = zc706();
        board.resources = boards[i];
        cm_lat_eval cold = {0};
        brute b = {.cold = &cold};
        double best = brute_minimum(g, &board, &b);
        cm_lat_eval_free(&cold);
        assert_true(isfinite(best));
        if (i < 3)
            assert_true(b.infeasible > 0);
        cm_latency_design d;
        exact_design(g, &board, 0.0, 0.0, &d);
        assert_true(d.feasible && d.has_lower_bound && d.optimal && !d.stopped_early);
        assert_true(fabs(d.latency_s - best) <= 1e-9 * best);
        assert_true(d.lower_bound_s <= best);
        assert_true(d.lower_bound_s <= d.latency_s);
        if (i == 2)
            assert_int_equal(d.fin[0], 2); /* 14 BRAM18: convA runs as two passes */
        cm_latency_design_free(&d);

        /* cut short at once: the rule point, and a bound that still holds */
        exact_design(g, &board, 0.0, 1e-9, &d);
        assert_true(d.stopped_early && d.has_lower_bound);
        assert_true(d.lower_bound_s <= best && d.latency_s >= best * (1 - 1e-9));
        cm_latency_design_free(&d);
    }
    cm_graph_free(g);
}

/* The Table I models and MPCNN on a ZC706, 16 bits, batch 1, weights reloading: the
 * gap closes to 1%, the rule search's latency is never beaten the other way, and a
 * second run gives the same point and bound. */
static void test_exact_models(void **state)
{
    (void)state;
    static const char *const models[] = {"zoo/lenet_zoo.onnx", "zoo/cifar10_quick.onnx",
                                         "zoo/mpcnn.onnx", "zoo/alexnet_fe.onnx",
                                         "zoo/vgg16_fe.onnx"};
    cm_board board = zc706();
    for (int i = 0; i < 5; i++) {
        cm_graph *g = load_zoo(models[i]);
        cm_error err = {0};
        cm_latency_options o;
        cm_latency_options_init(&o);
        cm_latency_design rule, d, e;
        assert_int_equal(cm_latency_optimise(g, &board, &o, &rule, &err), CM_OK);
        assert_false(rule.has_lower_bound);
        exact_design(g, &board, 0.01, 0.0, &d);
        assert_true(d.has_lower_bound && d.optimal && !d.stopped_early);
        assert_true(d.lower_bound_s > 0 && d.lower_bound_s <= d.latency_s);
        assert_true(d.latency_s / d.lower_bound_s - 1.0 <= 0.01);
        assert_true(d.latency_s <= rule.latency_s);
        exact_design(g, &board, 0.01, 0.0, &e);
        assert_true(e.latency_s == d.latency_s && e.lower_bound_s == d.lower_bound_s &&
                    e.evaluations == d.evaluations && e.n_blocks == d.n_blocks);
        for (int k = 0; k < d.n_blocks; k++)
            assert_true(e.blocks[k].coarse == d.blocks[k].coarse &&
                        e.blocks[k].macc == d.blocks[k].macc &&
                        e.blocks[k].bank_bram == d.blocks[k].bank_bram);
        cm_latency_design_free(&e);
        cm_latency_design_free(&d);
        cm_latency_design_free(&rule);
        cm_graph_free(g);
    }
}

/* --optimiser exact on the latency objective: both flows prove a bound, and the choice
 * carries the lower of the two, which no chosen design beats. CIFAR-10 quick takes the
 * latency-driven design, LeNet the partitioned one (exact on both spaces). */
static void test_choice_bound(void **state)
{
    (void)state;
    static const char *const models[] = {"zoo/cifar10_quick.onnx", "zoo/lenet_zoo.onnx"};
    for (int i = 0; i < 2; i++) {
        char path[1024];
        cm_test_generated_model(models[i], path, sizeof path);
        cm_design *d = cm_test_design(path, "zc706", CM_BACKEND_FPGACONVNET, 0, true);
        cm_design_run run = {.optimiser = CM_OPTIMISER_EXACT};
        cm_optimise_options so = {.optimiser = CM_OPTIMISER_EXACT};
        cm_error err = {0};
        assert_int_equal(cm_optimise(d, &so, &run.result, &err), CM_OK);
        assert_true(run.result.has_lower_bound);
        cm_latency_choice c;
        cm_latency_choose(d, &run, &c);
        assert_int_equal(c.status, CM_OK);
        assert_true(c.ld.has_lower_bound && c.has_lower_bound);
        assert_true(c.lower_bound_s == fmin(run.result.lower_bound_s, c.ld.lower_bound_s));
        double chosen = c.chose_latency ? c.ld.latency_s : c.partitioned_s;
        assert_true(c.chose_latency == (i == 0));
        assert_true(c.lower_bound_s <= chosen && chosen <= c.lower_bound_s * 1.01);
        cm_latency_choice_free(&c);
        cm_design_free(d);
    }
}

/* The memos an eval structure keeps between evaluations (each block's resources, each
 * subgraph step's figures and streams) on real networks: a walk of 3,000 random moves
 * of one block's N, m or bank, as the searches make them, costed in one structure and
 * afresh in another, for two cut vectors of each model (every weight layer alone, and
 * none cut), must agree to the bit (the banks' sizes move the schedule's f_in, and
 * with it the subgraphs). */
static void test_eval_memo_walk(void **state)
{
    (void)state;
    static const char *const models[] = {"zoo/cifar10_quick.onnx", "zoo/mpcnn.onnx",
                                         "zoo/alexnet_fe.onnx", NULL, NULL};
    const cm_board board = zc706();
    for (int i = 0; i < 5; i++) {
        cm_graph *g = models[i] ? load_zoo(models[i]) : pooled_net(i == 4);
        cm_error err = {0};
        cm_lat_net net;
        assert_int_equal(cm_lat_net_build(g, &net, &err), CM_OK);
        cm_lat_machine m = machine_of(&board);
        bool *cut = calloc((size_t)net.n_weight, sizeof *cut);
        for (int every = 0; every < 2; every++) {
            for (int w = 1; w < net.n_weight; w++)
                cut[w] = every;
            cm_lat_arch a;
            cm_lat_eval warm, cold = {0};
            assert_int_equal(cm_lat_arch_build(&net, cut, true, &a, &err), CM_OK);
            assert_int_equal(cm_lat_eval_init(&a, &warm, &err), CM_OK);
            size_t n = (size_t)a.n_blocks + 1;
            cm_lat_fold f = {calloc(n, sizeof(int)), calloc(n, sizeof(int)),
                             calloc(n, sizeof(int)), true};
            brute b = {.a = &a, .m = &m, .f = &f, .e = &warm, .cold = &cold};
            brute_ranges(&b, n);
            uint64_t rng = 0x9e3779b97f4a7c15ull + (uint64_t)(2 * i + every);
            long moved = 0;
            double last = -1.0;
            for (int step = 0; step < 3000; step++) {
                rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                const int k = b.conv_blocks[(rng >> 32) % (uint64_t)b.n_conv];
                const int what = (int)((rng >> 8) % 3);
                const uint64_t r = rng >> 40;
                if (what == 0)
                    f.coarse[k] = 1 + (int)(r % (uint64_t)b.max_n[k]);
                else if (what == 1)
                    f.macc[k] = 1 + (int)(r % (uint64_t)b.max_m[k]);
                else
                    f.bank[k] = 1 + (int)(r % (uint64_t)b.max_bank[k]);
                cm_lat_evaluate(&a, &m, &f, &warm);
                check_against_cold(&b);
                moved += warm.latency_s != last;
                last = warm.latency_s;
            }
            assert_true(moved > 1000); /* most moves change the figures the memos keep */
            brute_ranges_free(&b);
            free(f.coarse), free(f.macc), free(f.bank);
            cm_lat_eval_free(&cold);
            cm_lat_eval_free(&warm);
            cm_lat_arch_free(&a);
        }
        free(cut);
        cm_lat_net_free(&net);
        cm_graph_free(g);
    }
}

/* Between two of cm_lat_bank_steps's sizes a point differs only in its block's BRAM,
 * which the latency search's bank sweep relies on to cost those sizes alone, and greedy
 * to work its bank steps out without costing them: at every other bank of every conv
 * block, for a spread of N and m, the latency and whether every layer fits its bank are
 * the bank before's, and only BRAM grew, by N * m. */
static void bank_steps_hold(const cm_lat_net *net, const cm_lat_machine *m, const bool *cut,
                            long *between, long *moved)
{
    cm_error err = {0};
    cm_lat_arch a;
    cm_lat_eval e;
    assert_int_equal(cm_lat_arch_build(net, cut, true, &a, &err), CM_OK);
    assert_int_equal(cm_lat_eval_init(&a, &e, &err), CM_OK);
    size_t n = (size_t)a.n_blocks + 1;
    cm_lat_fold f = {calloc(n, sizeof(int)), calloc(n, sizeof(int)), calloc(n, sizeof(int)), true};
    brute b = {.a = &a, .m = m, .f = &f, .e = &e};
    brute_ranges(&b, n);
    for (int i = 0; i < b.n_conv; i++) {
        const int k = b.conv_blocks[i];
        cm_lat_bank_steps w;
        assert_int_equal(cm_lat_bank_steps_init(&a, k, &w, &err), CM_OK);
        const int ns[] = {1, 2, 3, 5, 8, 16, b.max_n[k]}, ms[] = {1, 2, 5, b.max_m[k]};
        for (int x = 0; x < 7; x++)
            for (int y = 0; y < 4; y++) {
                f.coarse[k] = ns[x] < b.max_n[k] ? ns[x] : b.max_n[k];
                f.macc[k] = ms[y] < b.max_m[k] ? ms[y] : b.max_m[k];
                cm_lat_bank_steps_at(&w, m, f.coarse[k], f.macc[k], b.max_bank[k]);
                int next = 0;
                double latency = 0.0;
                bool banks_fit = false;
                cm_resources res = {0};
                for (int bank = 1; bank <= b.max_bank[k]; bank++) {
                    f.bank[k] = bank;
                    cm_lat_evaluate(&a, m, &f, &e);
                    bool step = bank == 1;
                    while (next < w.n_at && w.at[next] <= bank)
                        step |= w.at[next++] == bank;
                    if (!step) {
                        /* what greedy's bank steps work out without costing (search.c,
                         * bank_step): the point before with N * m BRAM18 more */
                        assert_true(e.latency_s == latency);
                        assert_true(e.banks_fit == banks_fit);
                        assert_true(e.feasible == (banks_fit && cm_lat_fits(&e.res, &m->avail)));
                        assert_true(e.res.bram18 ==
                                        res.bram18 + (int64_t)f.coarse[k] * f.macc[k] &&
                                    e.res.dsp == res.dsp && e.res.lut == res.lut &&
                                    e.res.ff == res.ff && e.res.uram == res.uram);
                        (*between)++;
                    } else if (bank > 1) {
                        *moved += e.latency_s != latency;
                    }
                    latency = e.latency_s, banks_fit = e.banks_fit, res = e.res;
                }
            }
        f.coarse[k] = f.macc[k] = f.bank[k] = 1;
        cm_lat_bank_steps_free(&w);
    }
    brute_ranges_free(&b);
    free(f.coarse), free(f.macc), free(f.bank);
    cm_lat_eval_free(&e);
    cm_lat_arch_free(&a);
}

/* On the small network (every cut vector; its convA folds at 14 BRAM18 a bank) and on
 * CIFAR-10 quick, MPCNN and AlexNet (every weight layer alone, and none cut). */
static void test_bank_steps(void **state)
{
    (void)state;
    static const char *const models[] = {NULL, "zoo/cifar10_quick.onnx", "zoo/mpcnn.onnx",
                                         "zoo/alexnet_fe.onnx"};
    const cm_board board = zc706();
    const cm_lat_machine m = machine_of(&board);
    long between = 0, moved = 0;
    for (int i = 0; i < 4; i++) {
        cm_graph *g = models[i] ? load_zoo(models[i]) : small_net();
        cm_error err = {0};
        cm_lat_net net;
        assert_int_equal(cm_lat_net_build(g, &net, &err), CM_OK);
        bool *cut = calloc((size_t)net.n_weight, sizeof *cut);
        const unsigned vectors = models[i] ? 2u : 1u << (net.n_weight - 1);
        for (unsigned v = 0; v < vectors; v++) {
            for (int w = 1; w < net.n_weight; w++)
                cut[w] = models[i] ? v : (v >> (w - 1)) & 1;
            bank_steps_hold(&net, &m, cut, &between, &moved);
        }
        free(cut);
        cm_lat_net_free(&net);
        cm_graph_free(g);
    }
    assert_true(between > 1000 && moved > 50); /* the sweep skips much; steps matter */
}

/* The rule search's cut vectors run on several threads (search_cuts) and must give what
 * one thread gives, wherever the budget ends: at every one of a spread of budgets, up to
 * past what the search needs, the point, its evaluations and whether it stopped are the
 * same on 1, 2 and 3 threads. MobileNetV1 and VGG11 hill-climb, CNV and AlexNet
 * enumerate their cut vectors; the budget's end falls within a batch of searches. */
static void search_same(const cm_lat_search_result *a, const cm_lat_search_result *b, int n_weight)
{
    assert_int_equal(a->evaluations, b->evaluations);
    assert_int_equal(a->stopped_early, b->stopped_early);
    assert_int_equal(a->stopped_by_budget, b->stopped_by_budget);
    assert_int_equal(a->n_blocks, b->n_blocks);
    assert_memory_equal(a->cut, b->cut, (size_t)n_weight * sizeof *a->cut);
    assert_memory_equal(a->coarse, b->coarse, (size_t)a->n_blocks * sizeof *a->coarse);
    assert_memory_equal(a->macc, b->macc, (size_t)a->n_blocks * sizeof *a->macc);
    assert_memory_equal(a->bank, b->bank, (size_t)a->n_blocks * sizeof *a->bank);
}

static void test_search_threads(void **state)
{
    (void)state;
    static const char *const models[] = {"zoo/mobilenet_v1.onnx", "zoo/vgg11.onnx",
                                         "zoo/cnv.onnx", "zoo/alexnet_fe.onnx"};
    static const uint64_t evaluations[] = {11416, 12149, 41397, 14161};
    const cm_board board = zc706();
    const cm_lat_machine m = machine_of(&board);
    for (int i = 0; i < 4; i++) {
        cm_graph *g = load_zoo(models[i]);
        cm_error err = {0};
        cm_lat_net net;
        assert_int_equal(cm_lat_net_build(g, &net, &err), CM_OK);
        cm_latency_options o;
        cm_latency_options_init(&o);
        cm_lat_search_result whole;
        assert_int_equal(cm_lat_search_budget(&net, &m, &o, UINT64_MAX, &whole, &err), CM_OK);
        assert_false(whole.stopped_early);
        const uint64_t need = whole.evaluations;
        /* the evaluations of the loops over cut vectors that search_cuts replaced
         * (905f026's latency_driven.evaluations for `optimise` on a ZC706): the batches
         * search the same vectors in the same order */
        assert_int_equal(need, evaluations[i]);
        bool stopped_within = false;
        for (int k = 1; k <= 13; k++) {
            /* 1 to past the need, not round numbers: k^2 / 144 of it, plus k */
            const uint64_t budget = need * (uint64_t)(k * k) / 144 + (uint64_t)k;
            cm_lat_search_result one;
            o.threads = 1;
            assert_int_equal(cm_lat_search_budget(&net, &m, &o, budget, &one, &err), CM_OK);
            stopped_within |= one.stopped_by_budget;
            for (int t = 2; t <= 3; t++) {
                cm_lat_search_result many;
                o.threads = t;
                assert_int_equal(cm_lat_search_budget(&net, &m, &o, budget, &many, &err),
                                 CM_OK);
                search_same(&one, &many, net.n_weight);
                cm_lat_search_free(&many);
            }
            cm_lat_search_free(&one);
        }
        assert_true(stopped_within);
        cm_lat_search_free(&whole);
        cm_lat_net_free(&net);
        cm_graph_free(g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_equals_brute_force),
        cmocka_unit_test(test_exact_models),
        cmocka_unit_test(test_choice_bound),
        cmocka_unit_test(test_eval_memo_walk),
        cmocka_unit_test(test_bank_steps),
        cmocka_unit_test(test_search_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
