/* Design-model tests: resource-minimal designs of LeNet and CNV on each backend against
 * hand arithmetic and SAMO Table V's "init." column, partition figures (eqs. 2, 6, 7),
 * incremental evaluation against full re-evaluation, folding propagation, design
 * files (round trip and bad files) and the exporters. */
#include "test_support.h"
#include "onnx_builder.h"
#include "design/design_copy.h"
#include "design/design_internal.h" /* cm_design_edge_bad */

#include <cnnmap/board.h>
#include <cnnmap/design.h>
#include <cnnmap/design_io.h>
#include <cnnmap/export.h>
#include <cnnmap/model.h>
#include <cnnmap/optimise.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static cm_design *make_design(const char *path, const char *board_name, cm_backend backend,
                              int bits)
{
    cm_design *d = cm_test_design(path, board_name, backend, bits, true);
    cm_error err = {0};
    assert_int_equal(cm_design_set_sources(d, path, board_name, &err), CM_OK);
    return d;
}

static cm_design *lenet(cm_backend backend)
{
    char path[1024];
    cm_test_shared_model("lenet.onnx", path, sizeof path);
    return make_design(path, "zedboard", backend, 0);
}

static cm_design *cnv(cm_backend backend, int bits)
{
    char path[1024];
    cm_test_generated_model("zoo/cnv.onnx", path, sizeof path);
    return make_design(path, "zedboard", backend, bits);
}

static int find(const cm_design *d, const char *name)
{
    int i = cm_design_node_find(d, name);
    if (i < 0)
        fail_msg("no node %s", name);
    return i;
}

/* LeNet on fpgaConvNet, every folding 1, one partition. The slowest node is conv2:
 * 20 in, 50 out, 5x5 kernel on 12x12 -> 8x8: (C/ci) R_o C_o k^2 (F/co) / f
 * = 20 * 64 * 25 * 50 = 1,600,000 cycles, SAMO Table V's 16.0 ms at 100 MHz. The first
 * dense layer's 800x500 16-bit weights need bram_mem(400000, 16) = 400000 / 1000 = 400
 * BRAM18, plus bram_mem(500 * 16, 16) = 8 for the bias and bram_mem(500, 30) = 1 for
 * the accumulator: 409 > the ZedBoard's 280, so no partitioning can make it fit. */
static void test_lenet_fpgaconvnet_init(void **state)
{
    (void)state;
    cm_design *d = lenet(CM_BACKEND_FPGACONVNET);
    assert_int_equal(cm_design_node_count(d), 7);
    cm_partition_info p;
    cm_design_partition_info(d, 0, &p);
    assert_float_equal(p.interval_cycles, 1600000.0, 1e-6);
    cm_node_info n;
    cm_design_node_info(d, p.slowest_node, &n);
    assert_string_equal(n.layer, "convolution1");
    cm_design_node_info(d, find(d, "innerProduct"), &n);
    assert_int_equal(n.res.bram18, 409);
    assert_false(cm_design_feasible(d));

    cm_optimise_options o = {.optimiser = CM_OPTIMISER_NONE};
    cm_optimise_result r;
    cm_error err = {0};
    assert_int_equal(cm_optimise(d, &o, &r, &err), CM_OK);
    assert_int_equal(cm_design_partition_count(d), 7); /* split at every layer */
    assert_false(cm_design_feasible(d));
    cm_violation v[8];
    int nv = cm_design_check(d, v, 8);
    assert_int_equal(nv, 1);
    assert_int_equal(v[0].constraint, CM_CONSTRAINT_RESOURCE);
    assert_non_null(strstr(v[0].message, "409 BRAM18"));
    assert_non_null(strstr(v[0].message, "innerProduct"));
    cm_design_free(d);
}

/* The first partition of the split LeNet holds conv1 alone: it reads 1x28x28 = 784
 * words and writes 20x24x24 = 11520 words, 16 bits each, per 288000-cycle interval
 * (1 * 24 * 24 * 25 * 20) at 100 MHz: 12304 * 2 bytes / 2.88 ms = 0.0085444 GB/s. Its
 * time is its first frame (src/design/first_frame.c): the window holds 4 rows and 5
 * pixels, 117 words, which arrive at one a cycle and which it walks in 117 cycles; the
 * conv then works 576 pixels of 500 cycles (20 filters x 25) and the bias passes the
 * last on a cycle later: 117 + 288001 = 288118 cycles, a depth of 118 beyond the
 * interval. (fpgaConvNet's own pipeline depth, the node's, counts the line buffer at a
 * word a cycle and would give more.) */
static void test_lenet_partition_bandwidth(void **state)
{
    (void)state;
    cm_design *d = lenet(CM_BACKEND_FPGACONVNET);
    cm_design_split_all(d);
    cm_partition_info p;
    cm_design_partition_info(d, 0, &p);
    assert_float_equal(p.interval_cycles, 288000.0, 1e-6);
    assert_float_equal(p.bandwidth_gbps, 12304.0 * 2 / 2.88e-3 / 1e9, 1e-12);
    cm_node_info n;
    cm_design_node_info(d, 0, &n);
    assert_float_equal(p.depth_cycles, 118.0, 1e-9);
    assert_true(n.pipeline_depth > p.depth_cycles);
    assert_float_equal(p.time_s, (288000.0 + 118.0) / 100e6, 1e-15);
    /* eq. 3: partitions in sequence plus a reconfiguration between each pair. */
    double sum = 0;
    for (int i = 0; i < cm_design_partition_count(d); i++) {
        cm_design_partition_info(d, i, &p);
        sum += p.time_s;
    }
    assert_float_equal(cm_design_cost(d), sum + 6 * 0.08255, 1e-12);
    cm_design_free(d);
}

/* CNV, every folding 1. Its slowest layer is conv2: 64 -> 64 channels, 3x3, 30x30 ->
 * 28x28: 64 * 784 * 9 * 64 = 28,901,376 cycles, Table V's 289.0 ms for fpgaConvNet
 * and FINN (FINN: MW = 576, MH = 64, 784 vectors). Table V: fpgaConvNet's does not fit
 * a ZedBoard (conv 256x256x3x3 weights alone: 589824 / 1000 -> 590 BRAM18); FINN's
 * binary CNV does. hls4ml: conv2's 30x30 input pixels times RF = 576 * 64 gives
 * 900 * 36864 = 33,177,600 cycles; it does not fit either: hls4ml keeps the weights on
 * chip, and conv6's 2304 x 256 16-bit weights at RF = N are 589824 words deep,
 * ceil(589824 / 1024) = 576 BRAM18 (9.4 Mb, more than 280 BRAM18 hold at any RF). */
static void test_cnv_init(void **state)
{
    (void)state;
    cm_design *d = cnv(CM_BACKEND_FPGACONVNET, 0);
    cm_partition_info p;
    cm_design_partition_info(d, 0, &p);
    assert_float_equal(p.interval_cycles, 28901376.0, 1e-6);
    assert_false(cm_design_feasible(d));
    cm_design_free(d);

    d = cnv(CM_BACKEND_FINN, 4);
    cm_design_partition_info(d, 0, &p);
    assert_float_equal(p.interval_cycles, 28901376.0, 1e-6);
    /* FINN's own model stops at the interval; the first frame also waits for the
     * slowest layer's first window: its sliding window generator reads 3 rows of 30
     * pixels, 90 of the first conv's 900 output vectors at 64 x 27 = 1728 cycles
     * each, 155,520 cycles, before the slowest layer starts */
    assert_true(p.depth_cycles > 155520.0);
    assert_float_equal(cm_design_cost(d), (28901376.0 + p.depth_cycles) / 100e6, 1e-12);
    cm_node_info n;
    cm_design_node_info(d, find(d, "StreamingFCLayer_Batch_1"), &n);
    assert_int_equal(n.channels_in, 576);
    assert_int_equal(n.channels_out, 64);
    cm_design_free(d);

    d = cnv(CM_BACKEND_FINN, 1);
    assert_true(cm_design_feasible(d));
    cm_design_free(d);

    d = cnv(CM_BACKEND_HLS4ML, 0);
    cm_design_partition_info(d, 0, &p);
    assert_float_equal(p.interval_cycles, 33177600.0, 1e-6);
    assert_false(cm_design_feasible(d));
    cm_node_info n6;
    cm_design_node_info(d, find(d, "conv6"), &n6);
    assert_int_equal(n6.res.bram18, 576); /* its 1x1 output FIFO is in SRLs */
    cm_design_free(d);
}

/* Equal to rounding: a folding change moves the first-frame figures of the nodes
 * past the point where it has become one shift (first_frame.c) rather than timing
 * them afresh, takes moves equal to rounding as one, and owes the rest of the
 * partition that shift in sums whose rounding is that of the largest shifts (so a
 * relative 1e-12 of a small partition's time beside large ones); anything more is a
 * wrong figure. */
static void assert_same_time(double fresh, double kept)
{
    if (!(fabs(fresh - kept) <= 1e-9 * fabs(fresh)))
        fail_msg("incremental %.17g, fresh %.17g", kept, fresh);
}

/* Compares every partition aggregate of d with a full recomputation. */
static void assert_aggregates_fresh(cm_design *d)
{
    int np = cm_design_partition_count(d);
    cm_partition_info before[64];
    double cost = cm_design_cost(d);
    bool feasible = cm_design_feasible(d);
    int violations = cm_design_violation_count(d);
    for (int p = 0; p < np; p++)
        cm_design_partition_info(d, p, &before[p]);
    /* re-timed afresh, the figures are exactly those of a new design at the same
     * point: reports never depend on the moves */
    cm_design_retime(d);
    cm_design *fresh = NULL;
    cm_error copy_err = {0};
    assert_int_equal(cm_design_copy_new(d, &fresh, &copy_err), CM_OK);
    cm_design_retime(fresh);
    assert_true(cm_design_cost(fresh) == cm_design_cost(d));
    cm_design_copy_free(fresh);
    int first[64];
    for (int p = 0; p < np; p++)
        first[p] = cm_design_partition_first(d, p);
    cm_error err = {0};
    assert_int_equal(cm_design_set_partitions(d, first, np, &err), CM_OK);
    for (int p = 0; p < np; p++) {
        cm_partition_info after;
        cm_design_partition_info(d, p, &after);
        assert_true(after.interval_cycles == before[p].interval_cycles);
        assert_same_time(after.depth_cycles, before[p].depth_cycles);
        assert_memory_equal(&after.res, &before[p].res, sizeof after.res);
    }
    assert_same_time(cm_design_cost(d), cost);
    assert_int_equal(cm_design_feasible(d), feasible);
    assert_int_equal(cm_design_violation_count(d), violations);
}

/* Gives `node` a folding drawn from its valid values (a linear congruential step per
 * draw). */
static void random_folding(cm_design *d, int node, unsigned *seed)
{
    int64_t f[3];
    for (int k = 0; k < 3; k++) {
        int count;
        const int64_t *v = cm_design_fold_values(d, node, (cm_fold)k, &count);
        *seed = *seed * 1103515245u + 12345u;
        f[k] = v[(*seed >> 8) % (unsigned)count];
    }
    cm_design_set_folding(d, node, f[0], f[1], f[2]);
}

/* Random folding moves, cuts and merges on CNV (a chain; FINN's late rows) and on ResNet-20
 * (merges and forks, where a change reaches the next Add by two paths): after each,
 * the incrementally maintained aggregates equal a full re-evaluation. */
static void test_incremental_matches_full(void **state)
{
    (void)state;
    cm_backend backends[3] = {CM_BACKEND_FPGACONVNET, CM_BACKEND_FINN, CM_BACKEND_HLS4ML};
    char resnet[1024];
    cm_test_shared_model("resnet20_a8w8b16.onnx", resnet, sizeof resnet);
    for (int b = 0; b < 6; b++) {
        cm_design *d = b < 3 ? cnv(backends[b], 4)
                             : make_design(resnet, "zcu102", backends[b - 3], 0);
        unsigned seed = 12345;
        int n = cm_design_node_count(d);
        for (int step = 0; step < 400; step++) {
            seed = seed * 1103515245u + 12345u;
            int node = (int)((seed >> 8) % (unsigned)n);
            random_folding(d, node, &seed);
            if (step % 3 != 0) /* as a search looks after a move, or after a few */
                (void)cm_design_cost(d);
            if (step % 50 == 7 && cm_design_can_cut_after(d, node)) {
                cm_error err = {0};
                cm_design_split(d, node, &err); /* may already be a cut */
            }
            if (step % 50 == 29 && cm_design_partition_count(d) > 1) {
                /* a merge renumbers the partitions after it and brings the edges across
                 * its cut on-chip, where their stream widths must match again */
                cm_error err = {0};
                seed = seed * 1103515245u + 12345u;
                int p = (int)((seed >> 8) % (unsigned)(cm_design_partition_count(d) - 1));
                assert_int_equal(cm_design_merge(d, p, &err), CM_OK);
            }
            if (step % 20 == 0)
                assert_aggregates_fresh(d);
        }
        assert_aggregates_fresh(d);
        cm_design_free(d);
    }
}

/* A cut takes the streams across it off-chip, where the widths on either side need
 * not match; a merge brings them back on-chip. On ResNet-20 at random foldings (many
 * edges break their rules), every place that can be cut is cut and merged again: the
 * violations kept up to date equal a full recount each time, and some edges across
 * the cuts (a block's shortcut, beside its last layer) break a rule on-chip. */
static int partition_holding(const cm_design *d, int node)
{
    int p = 0;
    while (p + 1 < cm_design_partition_count(d) && cm_design_partition_first(d, p + 1) <= node)
        p++;
    return p;
}

/* Edges from nodes at or before `u` to nodes after it that break a rule as the
 * partitions stand. */
static int bad_edges_across(const cm_design *d, int u)
{
    int bad = 0;
    for (int a = 0; a <= u; a++)
        for (int k = 0; k < d->hd.nodes[a].n_succ; k++)
            bad += d->hd.nodes[a].succ[k] > u && cm_design_edge_bad(d, a, d->hd.nodes[a].succ[k]);
    return bad;
}

static void test_cut_and_merge_edges(void **state)
{
    (void)state;
    cm_backend backends[3] = {CM_BACKEND_FPGACONVNET, CM_BACKEND_FINN, CM_BACKEND_HLS4ML};
    char resnet[1024];
    cm_test_shared_model("resnet20_a8w8b16.onnx", resnet, sizeof resnet);
    int across = 0;
    for (int b = 0; b < 3; b++) {
        cm_design *d = make_design(resnet, "zcu102", backends[b], 0);
        const int n = cm_design_node_count(d);
        unsigned seed = 777;
        for (int i = 0; i < n; i++)
            random_folding(d, i, &seed);
        for (int u = 0; u + 1 < n; u++) {
            if (!cm_design_can_cut_after(d, u))
                continue;
            const int whole = cm_design_violation_count(d);
            across += bad_edges_across(d, u);
            cm_error err = {0};
            assert_int_equal(cm_design_split(d, u, &err), CM_OK);
            assert_int_equal(bad_edges_across(d, u), 0);
            assert_aggregates_fresh(d);
            assert_int_equal(cm_design_merge(d, partition_holding(d, u), &err), CM_OK);
            assert_int_equal(cm_design_violation_count(d), whole);
            assert_aggregates_fresh(d);
        }
        cm_design_free(d);
    }
    assert_true(across > 0);
}

/* FINN: SIMD of an MVAU must equal its sliding window's SIMD (inter matching), which
 * must equal the window's own channel folding (intra). Setting the MVAU's SIMD to 8
 * with propagation moves the window and the padding/pool before it. */
static void test_finn_propagation(void **state)
{
    (void)state;
    cm_design *d = cnv(CM_BACKEND_FINN, 4);
    int mvau = find(d, "StreamingFCLayer_Batch_1"), swg = find(d, "ConvolutionInputGenerator_1");
    assert_true(cm_design_set_fold_propagate(d, mvau, CM_FOLD_IN, 8));
    cm_node_info n;
    cm_design_node_info(d, swg, &n);
    assert_int_equal(n.fold_in, 8);
    assert_int_equal(n.fold_out, 8);
    cm_design_node_info(d, mvau, &n);
    assert_int_equal(n.fold_in, 8);
    /* Only resources may be violated (4-bit CNV needs more BRAM than a ZedBoard): no
     * matching constraint is broken after the propagation. */
    cm_violation v[32];
    int nv = cm_design_check(d, v, 32);
    assert_in_range(nv, 1, 32);
    for (int i = 0; i < nv; i++)
        assert_int_equal(v[i].constraint, CM_CONSTRAINT_RESOURCE);
    /* 3 divides MVAU_1's MW of 576 but not the 64 channels of its window: refused, and
     * nothing changes. */
    assert_false(cm_design_set_fold_propagate(d, mvau, CM_FOLD_IN, 3));
    cm_design_node_info(d, mvau, &n);
    assert_int_equal(n.fold_in, 8);
    cm_design_node_info(d, swg, &n);
    assert_int_equal(n.fold_in, 8);
    /* An MVAU's PE (4) and the next window's SIMD (1) only need to divide. */
    assert_true(cm_design_set_fold_propagate(d, mvau, CM_FOLD_OUT, 4));
    cm_design_node_info(d, mvau, &n);
    assert_int_equal(n.fold_out, 4);
    cm_design_free(d);
}

/* Sets side `which` of `node` to `value` with propagation and checks the claim its rigid
 * group makes: refused when the value is new and some side of the group lacks it;
 * otherwise exactly the group's sides move, all to the value. The design is restored. */
static void check_rigid_move(cm_design *d, const cm_fold_groups *g, int p, int node,
                             cm_fold which, int64_t value, cm_design_point *keep)
{
    bool rigid;
    int q = cm_fold_groups_of(g, node, which, &rigid);
    int64_t now[3];
    cm_design_node_folding(d, node, now);
    const int first = cm_design_partition_first(d, p), n = cm_design_node_count(d);
    const int end = p + 1 < cm_design_partition_count(d) ? cm_design_partition_first(d, p + 1) : n;
    int64_t *before = malloc(3 * (size_t)n * sizeof *before);
    assert_non_null(before);
    for (int i = 0; i < n; i++)
        cm_design_node_folding(d, i, &before[3 * i]);
    cm_design_point_capture(d, keep);
    bool expect = value == now[which] || cm_fold_groups_takes(g, q, value);
    assert_true(cm_design_set_fold_propagate(d, node, which, value) == expect);
    for (int i = 0; i < n; i++) {
        int64_t f[3];
        cm_design_node_folding(d, i, f);
        for (int t = 0; t < 3; t++) {
            bool mine = false;
            if (expect && t < 2 && i >= first && i < end)
                mine = cm_fold_groups_of(g, i, (cm_fold)t, &rigid) == q;
            assert_true(f[t] == (mine ? value : before[3 * i + t]));
        }
    }
    cm_design_point_restore(d, keep);
    free(before);
}

/* Two 3x3 convolutions of 12 channels on FINN: the first MVAU's PE (a divisor of 12)
 * need only divide the next window's SIMD, so a PE of 3 against a SIMD of 2 moves the
 * window's whole group, past the MVAU's own. */
static cm_design *twelve_channels(void)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 12, 8, 8});
    ob_init_float(m, "W0", 4, (int64_t[]){12, 12, 3, 3}, NULL);
    ob_init_float(m, "W1", 4, (int64_t[]){12, 12, 3, 3}, NULL);
    ob_attr_ints(ob_node(m, "Conv", "c0", "x,W0", "a"), "kernel_shape", 2, (int64_t[]){3, 3});
    ob_attr_ints(ob_node(m, "Conv", "c1", "a,W1", "y"), "kernel_shape", 2, (int64_t[]){3, 3});
    ob_output(m, "y", 4, NULL);
    cm_graph *g = cm_test_load_built(m, "twelve.onnx");
    cm_error err = {0};
    cm_board board;
    assert_int_equal(cm_board_builtin("zcu102", &board, &err), CM_OK);
    cm_design_options o;
    cm_design_options_init(&o);
    o.backend = CM_BACKEND_FINN;
    cm_design *d = NULL;
    if (cm_design_create(g, &board, &o, &d, &err) != CM_OK)
        fail_msg("%s", err.message);
    return d;
}

/* Matching groups against propagation itself: ResNet-20 on each backend, CNV and two
 * 12-channel convolutions on FINN, at foldings reached by propagated moves and a few
 * that break matching rules, cut into thirds, every side of every node set to each of its values. FINN ties a residual block's Add to both its inputs and its output, so
 * groups span layers there; an MVAU's widths only need to divide its neighbours', so
 * some groups are not rigid. */
static void test_fold_groups(void **state)
{
    (void)state;
    cm_backend backends[3] = {CM_BACKEND_FPGACONVNET, CM_BACKEND_FINN, CM_BACKEND_HLS4ML};
    char resnet[1024];
    cm_test_shared_model("resnet20_a8w8b16.onnx", resnet, sizeof resnet);
    int wide_rigid = 0, loose = 0;
    for (int b = 0; b < 5; b++) {
        cm_design *d = b < 3    ? make_design(resnet, "zcu102", backends[b], 0)
                       : b == 3 ? cnv(CM_BACKEND_FINN, 4)
                                : twelve_channels();
        const int n = cm_design_node_count(d);
        unsigned seed = 99;
        for (int i = 0; i < n; i++) { /* moves that keep every rule, from folding 1 */
            int count;
            seed = seed * 1103515245u + 12345u;
            cm_fold side = (cm_fold)((seed >> 8) % 2);
            const int64_t *v = cm_design_fold_values(d, i, side, &count);
            seed = seed * 1103515245u + 12345u;
            (void)cm_design_set_fold_propagate(d, i, side, v[(seed >> 8) % (unsigned)count]);
        }
        for (int i = 3; i < n; i += 7) /* and a few that break them: groups of two values */
            random_folding(d, i, &seed);
        for (int u = n / 3; n > 8 && u < n - 1; u++) /* the 12-channel pair stays whole */
            if (cm_design_can_cut_after(d, u)) {
                cm_error err = {0};
                assert_int_equal(cm_design_split(d, u, &err), CM_OK);
                u += n / 3;
            }
        cm_design_point *keep = cm_design_point_new(d);
        assert_non_null(keep);
        for (int p = 0; p < cm_design_partition_count(d); p++) {
            cm_fold_groups *g = cm_fold_groups_new(d, p);
            assert_non_null(g);
            const int first = cm_design_partition_first(d, p);
            const int end = p + 1 < cm_design_partition_count(d) ? cm_design_partition_first(d, p + 1) : n;
            for (int i = first; i < end; i++)
                for (int t = 0; t < 2; t++) {
                    bool rigid, other;
                    int q = cm_fold_groups_of(g, i, (cm_fold)t, &rigid);
                    if (!rigid) {
                        loose++;
                        continue;
                    }
                    for (int j = first; j < end; j++) /* a side of another node in q */
                        if (j != i && (cm_fold_groups_of(g, j, CM_FOLD_IN, &other) == q ||
                                       cm_fold_groups_of(g, j, CM_FOLD_OUT, &other) == q)) {
                            wide_rigid++;
                            break;
                        }
                    int count;
                    const int64_t *v = cm_design_fold_values(d, i, (cm_fold)t, &count);
                    for (int k = 0; k < count; k++)
                        check_rigid_move(d, g, p, i, (cm_fold)t, v[k], keep);
                }
            cm_fold_groups_free(g);
        }
        cm_design_point_free(keep);
        cm_design_free(d);
    }
    assert_true(wide_rigid > 0);
    assert_true(loose > 0);
}

/* The folding journal: random propagated moves on ResNet-20 (each backend, two
 * partitions), some timed on the way; undone, every folding is back and the aggregates
 * equal a full recount; a journal that ends keeps its moves, and the next one does not
 * take them back. */
static void test_journal_undo(void **state)
{
    (void)state;
    cm_backend backends[3] = {CM_BACKEND_FPGACONVNET, CM_BACKEND_FINN, CM_BACKEND_HLS4ML};
    char resnet[1024];
    cm_test_shared_model("resnet20_a8w8b16.onnx", resnet, sizeof resnet);
    for (int b = 0; b < 3; b++) {
        cm_design *d = make_design(resnet, "zcu102", backends[b], 0);
        const int n = cm_design_node_count(d);
        for (int u = n / 2; u < n - 1; u++)
            if (cm_design_can_cut_after(d, u)) {
                cm_error err = {0};
                assert_int_equal(cm_design_split(d, u, &err), CM_OK);
                break;
            }
        int64_t *before = malloc(3 * (size_t)n * sizeof *before);
        assert_non_null(before);
        unsigned seed = 4242;
        int kept = 0;
        for (int trial = 0; trial < 300; trial++) {
            for (int i = 0; i < n; i++)
                cm_design_node_folding(d, i, &before[3 * i]);
            const int bad = cm_design_violation_count(d);
            const double cost = cm_design_cost(d);
            assert_true(cm_design_journal_start(d));
            for (int m = 0; m < 1 + trial % 3; m++) {
                int count;
                seed = seed * 1103515245u + 12345u;
                int node = (int)((seed >> 8) % (unsigned)n);
                cm_fold side = (cm_fold)((seed >> 20) % 3);
                const int64_t *v = cm_design_fold_values(d, node, side, &count);
                seed = seed * 1103515245u + 12345u;
                (void)cm_design_set_fold_propagate(d, node, side, v[(seed >> 8) % (unsigned)count]);
                if (m == 1)
                    (void)cm_design_cost(d); /* a partition timed between moves */
            }
            if (trial % 10 == 9) { /* keep these moves */
                cm_design_journal_end(d);
                for (int i = 0; i < n && !kept; i++) {
                    int64_t f[3];
                    cm_design_node_folding(d, i, f);
                    kept = f[0] != before[3 * i] || f[1] != before[3 * i + 1] || f[2] != before[3 * i + 2];
                }
                assert_true(cm_design_journal_start(d));
                cm_design_journal_undo(d); /* nothing since: nothing to take back */
                continue;
            }
            cm_design_journal_undo(d);
            for (int i = 0; i < n; i++) {
                int64_t f[3];
                cm_design_node_folding(d, i, f);
                assert_true(f[0] == before[3 * i] && f[1] == before[3 * i + 1] && f[2] == before[3 * i + 2]);
            }
            assert_int_equal(cm_design_violation_count(d), bad);
            assert_same_time(cost, cm_design_cost(d));
            if (trial % 25 == 0)
                assert_aggregates_fresh(d);
        }
        assert_true(kept > 0);
        assert_aggregates_fresh(d);
        free(before);
        cm_design_free(d);
    }
}

/* fpgaConvNet: a pooling layer's coarse-in and coarse-out are one factor (eq. 9). */
static void test_fpgaconvnet_intra(void **state)
{
    (void)state;
    cm_design *d = lenet(CM_BACKEND_FPGACONVNET);
    int pool = find(d, "pooling");
    assert_true(cm_design_set_fold_propagate(d, pool, CM_FOLD_IN, 4));
    cm_node_info n;
    cm_design_node_info(d, pool, &n);
    assert_int_equal(n.fold_out, 4);
    cm_design_set_folding(d, pool, 4, 2, 1);
    cm_violation v[8];
    int nv = cm_design_check(d, v, 8);
    bool intra = false;
    for (int i = 0; i < nv && i < 8; i++)
        intra |= v[i].constraint == CM_CONSTRAINT_INTRA_MATCHING && v[i].node == pool;
    assert_true(intra);
    cm_design_free(d);
}

static void temp_path(char *buf, size_t size, const char *suffix)
{
    snprintf(buf, size, "%s/cnnmap_design_%d%s", P_tmpdir, (int)getpid(), suffix);
}

/* optimise -o then evaluate: the same figures, foldings and cuts. */
static void test_round_trip(void **state)
{
    (void)state;
    cm_design *d = cnv(CM_BACKEND_FINN, 4);
    assert_true(cm_design_set_fold_propagate(d, find(d, "StreamingFCLayer_Batch_1"), CM_FOLD_IN, 16));
    assert_true(cm_design_set_fold_propagate(d, find(d, "StreamingFCLayer_Batch_2"), CM_FOLD_OUT, 8));
    cm_error err = {0};
    assert_int_equal(cm_design_split(d, find(d, "StreamingFCLayer_Batch_3"), &err), CM_OK);
    char path[512];
    temp_path(path, sizeof path, ".json");
    cm_design_run run = {.optimiser = CM_OPTIMISER_NONE, .seed = 7, .result = {.evaluations = 42, .time_s = 0.25}};
    assert_int_equal(cm_design_save(d, &run, path, &err), CM_OK);
    cm_design *e = NULL;
    cm_design_run run2;
    if (cm_design_load(path, &e, &run2, &err) != CM_OK)
        fail_msg("%s", err.message);
    cm_design_summary a, b;
    cm_design_summarise(d, &a);
    cm_design_summarise(e, &b);
    assert_memory_equal(&a, &b, sizeof a);
    assert_int_equal(cm_design_node_count(d), cm_design_node_count(e));
    for (int i = 0; i < cm_design_node_count(d); i++) {
        cm_node_info x, y;
        cm_design_node_info(d, i, &x);
        cm_design_node_info(e, i, &y);
        assert_string_equal(x.name, y.name);
        assert_true(x.fold_in == y.fold_in && x.fold_out == y.fold_out && x.fold_kernel == y.fold_kernel);
        assert_int_equal(x.partition, y.partition);
    }
    assert_int_equal(run2.result.evaluations, 42);
    assert_int_equal(run2.seed, 7);
    cm_design_free(e);
    cm_design_free(d);
    unlink(path);
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

/* Saves the resource-minimal LeNet design, replaces the first occurrence of `from`
 * with `to`, and loads and checks the edited file: CM_EINFEASIBLE when it loads but
 * breaks a constraint (the first violation in err). */
static cm_status load_edited(const char *from, const char *to, cm_error *err)
{
    cm_design *d = lenet(CM_BACKEND_FPGACONVNET);
    char path[512], edited[512];
    temp_path(path, sizeof path, ".orig.json");
    temp_path(edited, sizeof edited, ".edit.json");
    cm_design_run run = {0};
    assert_int_equal(cm_design_save(d, &run, path, err), CM_OK);
    cm_design_free(d);
    const char *text = read_text(path);
    const char *at = strstr(text, from);
    if (!at)
        fail_msg("'%s' not in the design file", from);
    FILE *f = fopen(edited, "wb");
    fwrite(text, 1, (size_t)(at - text), f);
    fputs(to, f);
    fputs(at + strlen(from), f);
    fclose(f);
    cm_design *e = NULL;
    cm_design_run r;
    cm_status st = cm_design_load(edited, &e, &r, err);
    if (st == CM_OK) {
        cm_violation v[4];
        if (cm_design_check(e, v, 4) > 0) {
            snprintf(err->message, sizeof err->message, "%s", v[0].message);
            st = CM_EINFEASIBLE;
        }
    }
    cm_design_free(e);
    unlink(path);
    unlink(edited);
    return st;
}

static void test_bad_design_files(void **state)
{
    (void)state;
    cm_error err = {0};
    assert_int_equal(load_edited("\"name\": \"pooling\"", "\"name\": \"nosuch\"", &err), CM_EINPUT);
    assert_non_null(strstr(err.message, "unknown node 'nosuch'"));
    assert_int_equal(load_edited("\"board\": \"zedboard\"", "\"board\": \"nosuchboard\"", &err),
                     CM_EINPUT);
    assert_int_equal(load_edited("\"format\"", "\"formot\"", &err), CM_EINPUT);
    assert_int_equal(load_edited("{", "[", &err), CM_EINPUT);
    assert_int_equal(load_edited("\"backend\": \"fpgaconvnet\"", "\"backend\": \"vhdl\"", &err),
                     CM_EINPUT);
    /* conv1 has 1 input channel; 3 is no factor of it: a constraint, exit code 3. */
    assert_int_equal(load_edited("\"channel_in_folding\": 1", "\"channel_in_folding\": 3", &err),
                     CM_EINFEASIBLE);
    assert_non_null(strstr(err.message, "node convolution: channel-in folding 3"));
    /* pooling has 20 channels: 3 is no factor of them. */
    assert_int_equal(load_edited("\"name\": \"pooling\",\n   \"op\": \"Pooling\",\n   \"layer\": \"pooling\",\n   \"partition\": 0,\n   \"channel_in_folding\": 1",
                                 "\"name\": \"pooling\",\n   \"op\": \"Pooling\",\n   \"layer\": \"pooling\",\n   \"partition\": 0,\n   \"channel_in_folding\": 3", &err),
                     CM_EINFEASIBLE);
    assert_non_null(strstr(err.message, "not a factor of its 20 channels"));
    assert_int_equal(load_edited("\"channel_in_folding\": 1", "\"channel_in_folding\": -2", &err),
                     CM_EINPUT);
    /* partition numbers must run 0, 1, ... along the nodes */
    assert_int_equal(load_edited("\"partition\": 0", "\"partition\": 2", &err), CM_EINPUT);
}

/* FINN folding config: PE and SIMD by FINN node name; hls4ml: RF = N / kf. */
static void test_exports(void **state)
{
    (void)state;
    cm_error err = {0};
    char path[512];
    temp_path(path, sizeof path, ".export.json");

    cm_design *d = cnv(CM_BACKEND_FINN, 4);
    assert_true(cm_design_set_fold_propagate(d, find(d, "StreamingFCLayer_Batch_1"), CM_FOLD_IN, 16));
    assert_true(cm_design_set_fold_propagate(d, find(d, "StreamingFCLayer_Batch_1"), CM_FOLD_OUT, 4));
    assert_int_equal(cm_export(d, CM_EXPORT_FINN_V06, path, &err), CM_OK);
    json_error_t jerr;
    json_t *o = json_loads(read_text(path), 0, &jerr);
    assert_non_null(o);
    json_t *m = json_object_get(o, "StreamingFCLayer_Batch_1");
    assert_int_equal(json_integer_value(json_object_get(m, "SIMD")), 16);
    assert_int_equal(json_integer_value(json_object_get(m, "PE")), 4);
    assert_string_equal(json_string_value(json_object_get(m, "ram_style")), "block");
    json_t *w = json_object_get(o, "ConvolutionInputGenerator_1");
    assert_int_equal(json_integer_value(json_object_get(w, "SIMD")), 16);
    json_decref(o);
    assert_int_equal(cm_export(d, CM_EXPORT_HLS4ML, path, &err), CM_EUSAGE);
    cm_design_free(d);

    /* hls4ml, conv2 of CNV: N = 576 * 64 = 36864; kf = 8 -> RF 4608. */
    d = cnv(CM_BACKEND_HLS4ML, 4);
    int conv2 = find(d, "conv2");
    cm_design_set_folding(d, conv2, 1, 1, 8);
    cm_node_info n;
    cm_design_node_info(d, conv2, &n);
    assert_int_equal(n.res.dsp, 8);
    assert_float_equal(n.cycles, 900.0 * 4608, 1e-6);
    assert_int_equal(cm_export(d, CM_EXPORT_HLS4ML, path, &err), CM_OK);
    o = json_loads(read_text(path), 0, &jerr);
    json_t *l = json_object_get(json_object_get(json_object_get(o, "HLSConfig"), "LayerName"), "conv2");
    assert_int_equal(json_integer_value(json_object_get(l, "ReuseFactor")), 4608);
    json_decref(o);
    cm_design_free(d);

    d = lenet(CM_BACKEND_FPGACONVNET);
    cm_design_set_folding(d, find(d, "convolution1"), 4, 10, 5);
    assert_int_equal(cm_export(d, CM_EXPORT_FPGACONVNET, path, &err), CM_OK);
    o = json_loads(read_text(path), 0, &jerr);
    json_t *layers = json_object_get(json_array_get(json_object_get(o, "partition"), 0), "layer");
    bool found = false, squeeze = false;
    for (size_t i = 0; i < json_array_size(layers); i++) {
        json_t *x = json_array_get(layers, i);
        const char *name = json_string_value(json_object_get(x, "name"));
        json_t *p = json_object_get(x, "parameters");
        if (strcmp(name, "convolution1") == 0) {
            found = json_integer_value(json_object_get(p, "coarse_in")) == 4 &&
                    json_integer_value(json_object_get(p, "coarse_out")) == 10 &&
                    json_integer_value(json_object_get(p, "fine")) == 5;
        }
        squeeze |= strcmp(json_string_value(json_object_get(x, "type")), "SQUEEZE") == 0;
    }
    assert_true(found);
    assert_true(squeeze); /* pooling (coarse 1) feeds convolution1 (coarse-in 4) */
    json_decref(o);
    cm_design_free(d);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lenet_fpgaconvnet_init),
        cmocka_unit_test(test_lenet_partition_bandwidth),
        cmocka_unit_test(test_cnv_init),
        cmocka_unit_test(test_incremental_matches_full),
        cmocka_unit_test(test_cut_and_merge_edges),
        cmocka_unit_test(test_finn_propagation),
        cmocka_unit_test(test_fold_groups),
        cmocka_unit_test(test_journal_undo),
        cmocka_unit_test(test_fpgaconvnet_intra),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_bad_design_files),
        cmocka_unit_test(test_exports),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
