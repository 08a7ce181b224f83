/* Simulation of streaming designs (src/sim/sim_streaming*.c): an fpgaConvNet and a FINN
 * convolution whose tasks and cycles are worked out by hand in the comments, the
 * padded convolution of backend-models.md 2.7 (where the model's rate balancing is 11%
 * slower than its modules), a design cut in two partitions whose runs compose with the
 * reconfiguration between them, a folding with no task model, and the rule optimiser's
 * designs of LeNet, CNV, MPCNN and MobileNetV1 on each backend, where every partition's
 * simulated interval (streams as deep as the model assumes, i.e. unbounded) must be
 * within 2% of the model's slowest node, and its first-frame latency within 5% of the
 * partition model's (src/design/first_frame.c; the backends' own depths, none for FINN
 * and hls4ml and fpgaConvNet's sum of module depths, were 2-5x off). */
#include "test_support.h"
#include "onnx_builder.h"

#include <cnnmap/design.h>
#include <cnnmap/model.h>
#include <cnnmap/optimise.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "design/design_internal.h"
#include "sim/build.h"

/* A chain of 3x3 convolutions without bias, padded by `pad` on every side: x is
 * 1 x c0 x n x n, conv i has filters[i] filters. */
static cm_graph *padded_chain(int c0, int n, const int *filters, int count, int pad)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, c0, n, n});
    char in[16] = "x";
    for (int i = 0; i < count; i++) {
        char w[16], out[16], inputs[40], name[16];
        snprintf(w, sizeof w, "W%d", i);
        snprintf(out, sizeof out, "y%d", i);
        snprintf(name, sizeof name, "conv%d", i);
        ob_init_float(m, w, 4, (int64_t[]){filters[i], i ? filters[i - 1] : c0, 3, 3}, NULL);
        snprintf(inputs, sizeof inputs, "%s,%s", in, w);
        Onnx__NodeProto *node = ob_node(m, "Conv", name, inputs, out);
        ob_attr_ints(node, "kernel_shape", 2, (int64_t[]){3, 3});
        if (pad)
            ob_attr_ints(node, "pads", 4, (int64_t[]){pad, pad, pad, pad});
        snprintf(in, sizeof in, "%s", out);
    }
    ob_output(m, in, 4, NULL);
    return cm_test_load_built(m, "conv_chain.onnx");
}

static cm_graph *conv_chain(int c0, int n, const int *filters, int count)
{
    return padded_chain(c0, n, filters, count, 0);
}

/* A board with room for everything and a reconfiguration of 100 cycles at 100 MHz. */
static cm_board roomy_board(void)
{
    static const char json[] =
        "{\"name\": \"roomy\", \"display_name\": \"Roomy\", \"part\": \"x\", \"memory\": \"m\","
        " \"resources\": {\"LUT\": 1000000, \"FF\": 1000000, \"DSP\": 10000, \"BRAM\": 10000,"
        " \"URAM\": 0}, \"bram_unit\": \"BRAM18\", \"clock_mhz\": 100.0,"
        " \"bandwidth_gbps\": 100.0, \"peak_bandwidth_gbps\": 100.0,"
        " \"reconfiguration_s\": 1e-6, \"reconfiguration_estimated\": true}";
    cm_board b;
    cm_error err = {0};
    if (cm_board_parse(json, strlen(json), "roomy.json", &b, &err) != CM_OK)
        fail_msg("%s", err.message);
    return b;
}

static cm_design *backend_design(cm_graph *g, cm_backend backend, cm_objective objective,
                                 int batch)
{
    cm_board board = roomy_board();
    cm_design_options o;
    cm_design_options_init(&o);
    o.backend = backend;
    o.objective = objective;
    o.batch = batch;
    cm_design *d = NULL;
    cm_error err = {0};
    if (cm_design_create(g, &board, &o, &d, &err) != CM_OK)
        fail_msg("%s", err.message);
    return d;
}

static cm_design *fcn_design(cm_graph *g, cm_objective objective, int batch)
{
    return backend_design(g, CM_BACKEND_FPGACONVNET, objective, batch);
}

static void build(const cm_design *d, sim_build *b)
{
    cm_error err = {0};
    memset(b, 0, sizeof *b);
    if (sim_build_streaming(d, b, &err) != CM_OK)
        fail_msg("%s", err.message);
}

static void run(const sim_part *p, int frames, bool unbounded, sim_run_result *r)
{
    cm_error err = {0};
    sim_run_options o = {.frames = frames, .unbounded = unbounded};
    if (sim_run(p->graph, &o, r, &err) != CM_OK)
        fail_msg("%s", err.message);
    assert_false(r->deadlock);
}

/* Builds d, which must be one partition of `tasks` tasks with the model's figures
 * given, and runs it for 4 frames at the design's depths into r. */
static const sim_part *one_part(const cm_design *d, sim_build *b, int64_t interval,
                                int64_t latency, int tasks, sim_run_result *r)
{
    build(d, b);
    assert_int_equal(b->n_parts, 1);
    const sim_part *p = &b->parts[0];
    assert_int_equal(p->analytic_interval, interval);
    assert_int_equal(p->analytic_latency, latency);
    assert_int_equal(b->analytic_interval, interval);
    assert_int_equal(b->analytic_latency, latency);
    assert_int_equal(sim_graph_tasks(p->graph), tasks);
    run(p, 4, false, r);
    return p;
}

static int task_named(const sim_graph *g, const char *name)
{
    for (int i = 0; i < sim_graph_tasks(g); i++)
        if (strcmp(sim_task_name(g, i), name) == 0)
            return i;
    fail_msg("no task %s", name);
    return -1;
}

/* One 3x3 convolution, 8x8x2 input, 4 filters, no padding or bias, fpgaConvNet at
 * coarse_in = coarse_out = fine = 1: ch = 2 channels per stream, f = 4 filters, 6x6
 * output.
 * Model (2.4a): latency = max(ch*36, ch*64, ch*36*9*f/fine, 36*f) = 2592 cycles (the
 * conv); the reference's pipeline depth would be SlidingWindow 8*2*(3-1) + 2*3*(3-1) =
 * 44, Conv fine = 1, Accum ch*f = 8: 53, a first frame of 2645. The partition model
 * (src/design/first_frame.c): the window holds (2*8 + 3) pixels = 38 words before its
 * first window and walks those 19 positions in 38 cycles (the source brings them in 37);
 * the conv's first pixel takes 72 cycles and the accum passes it on one later, so the
 * first output is at 38 + 73 = 111; from the first window the conv works 36 pixels x 72
 * = 2592 cycles and the accum adds 1: last word at 38 + 2593 = 2631 (the source's last
 * word at 128 plus the one window left, 73, is earlier). First-frame latency 2631.
 * Tasks: the source writes a pixel (2 words, one per cycle) every 2 cycles; no fork
 * (coarse_out 1), no glue (coarse_in 1), no bias. The window reads pixel k at
 * s_k = 2k + 1 (the source writes it at 2k + 1) and emits the first window at pixel
 * 2*8 + 2 = 18: written at s_18 + 1 = 38. The conv takes ch*f*9 = 72 cycles a pixel and
 * writes at its end: pixel j from 38 + 72j (the window keeps ahead of it: 2 cycles a
 * pixel, 4 at a row end) to 110 + 72j; the accum (ch*f = 8 cycles) writes at
 * 111 + 72j, and the sink (4 words at one a cycle) reads it then. Frame 0's last pixel
 * (j = 35) leaves at 111 + 2520 = 2631; its first word entered at 1: latency 2630
 * (the model's 2631 counts from the first word's cycle, 0). The next frame's first window needs 18 window positions (36 cycles) while
 * the conv still has its last pixel to do, so the conv never waits: interval 36*72 =
 * 2592, the model's. */
static void test_hand_conv(void **state)
{
    (void)state;
    cm_design *d = fcn_design(conv_chain(2, 8, (int[]){4}, 1), CM_OBJECTIVE_LATENCY, 1);
    sim_build b;
    sim_run_result r;
    /* source, window, conv, accum, sink */
    const sim_part *p = one_part(d, &b, 2592, 2631, 5, &r);
    int conv = task_named(p->graph, "conv0:conv");
    assert_int_equal(p->analytic_task_cycles[conv], 2592);
    assert_int_equal(p->analytic_task_cycles[task_named(p->graph, "conv0:window")], 0);
    assert_int_equal(r.in_first[0], 1);
    assert_int_equal(r.out_last[0], 2631);
    assert_int_equal(r.latency_cycles, 2630);
    assert_int_equal(r.interval_cycles, 2592);
    assert_int_equal(r.tasks[conv].busy_cycles, 4 * 2592);
    assert_int_equal(r.tasks[task_named(p->graph, "conv0:window")].busy_cycles, 4 * 64 * 2);
    sim_run_result_free(&r);
    sim_build_free(&b);
    cm_design_free(d);
}

/* One 3x3 convolution, 4x4x1 input, 2 filters, on FINN at SIMD = PE = 1: a
 * ConvolutionInputGenerator and an MVAU (MW 9, MH 2, 4 vectors).
 * Model (3.2): SWG 4*3*1 + 2*max(2*9, 1*4) = 48 cycles, MVAU 2*9*4 = 72: interval 72.
 * First frame (src/hw/finn_timing.c, src/design/first_frame.c): the SWG reads 3 rows
 * (12 slots) and then writes the first window's 9 taps in slots that also read the last
 * row: its first window is out after 21 cycles, at 22. The MVAU takes that window and
 * works its 4 vectors, 72 cycles: its last output at 22 + 72 = 94 (the SWG's last tap,
 * 32 slots after the source's last word at 16, is at 48: earlier). Latency 94.
 * Tasks: the source writes a pixel a cycle (pixel k at k + 1). The SWG reads 3 rows (12
 * slots, k at k + 1), then for output row 0 takes max(18, 4) slots reading the last row
 * in the first 4 and writing one tap a slot (tap t at 14 + t), and for row 1 18 slots
 * writing only (taps 18..35 at 32..49). The MVAU reads a vector of 9 taps, works 18
 * cycles and writes its 2 outputs at the end: vector 0 from 22 (tap 8 written) to 40,
 * then back to back (vector 2's last tap at 40, vector 3's at 49): 58, 76, writes at 94.
 * The sink reads them at 40, 58, 76, 94: latency 94 - 1 = 93, the model's 94 counting
 * from cycle 0 (FINN's own model has no pipeline depth: 72, 22% below). The next frame's first window
 * is ready at 70 (SWG fill 49..60, taps 62..70), before the MVAU is free at 94: the
 * interval is the MVAU's 72. */
static void test_hand_finn_conv(void **state)
{
    (void)state;
    cm_design *d = backend_design(conv_chain(1, 4, (int[]){2}, 1), CM_BACKEND_FINN,
                                  CM_OBJECTIVE_LATENCY, 1);
    sim_build b;
    sim_run_result r;
    const sim_part *p = one_part(d, &b, 72, 94, 4, &r); /* source, SWG, MVAU, sink */
    assert_int_equal(r.in_first[0], 1);
    assert_int_equal(r.out_last[0], 94);
    assert_int_equal(r.latency_cycles, 93);
    assert_int_equal(r.interval_cycles, 72);
    const int swg = task_named(p->graph, "ConvolutionInputGenerator_0");
    assert_int_equal(r.tasks[swg].busy_cycles, 4 * 48);
    assert_int_equal(p->analytic_task_cycles[swg], 48);
    sim_run_result_free(&r);
    sim_build_free(&b);
    cm_design_free(d);
}

/* x 1x6x6 -> conv0 (2 filters) -> 2x4x4 -> conv1 (2 filters) -> 2x2x2, one partition
 * each, batch 2, reconfiguration 1 us = 100 cycles.
 * Partition 0 (ch 1, f 2: conv 18 cycles a pixel, no accum): the source writes a
 * pixel a cycle, the window reads pixel k at k + 1 and emits its first window at pixel
 * 14 (written at 16); conv pixel j (over both frames) runs from 16 + 18j and the sink
 * reads it at 34 + 18j. The second frame's last pixel (j = 31) leaves at 592: span
 * 592 - 1 = 591. Model: the window holds 15 words (15 cycles of its own), the conv
 * then works 16 pixels x 18 = 288 cycles: first frame 303, depth 303 - 288 = 15, and
 * 2 x 288 + 15 = 591.
 * Partition 1 (ch 2, f 2: conv 36 cycles a pixel, accum 4): pixels arrive every 2
 * cycles, the window reads pixel k at 2k + 1, first window at pixel 10 (written at 22);
 * conv pixel j from 22 + 36j, accum writes at 59 + 36j: the last (j = 7) at 311, span
 * 310. Model: the window holds 11 pixels (22 words, 22 cycles), the conv works 4
 * pixels x 36 and the accum adds 1: first frame 22 + 145 = 167, depth 23, and
 * 2 x 144 + 23 = 311. Whole run: 0 + 591 + 100 + 310 = 1001 simulated, 591 + 100 + 311
 * = 1002 by the model. (The reference's pipeline depths, 18 + 1 + 2 and 28 + 1 + 4,
 * would give 597 + 100 + 321 = 1018.) */
static void test_two_partitions(void **state)
{
    (void)state;
    cm_design *d = fcn_design(conv_chain(1, 6, (int[]){2, 2}, 2), CM_OBJECTIVE_THROUGHPUT, 2);
    cm_error err = {0};
    assert_int_equal(cm_design_split(d, 0, &err), CM_OK);
    sim_build b;
    build(d, &b);
    assert_int_equal(b.n_parts, 2);
    assert_int_equal(b.batch, 2);
    const int64_t spans[2] = {591, 310}, models[2] = {591, 311};
    int64_t total = 0;
    for (int i = 0; i < 2; i++) {
        const sim_part *p = &b.parts[i];
        assert_int_equal(p->frames, 2);
        assert_int_equal(p->before_cycles, i == 0 ? 0 : 100);
        assert_int_equal(2 * p->analytic_interval + (p->analytic_latency - p->analytic_interval),
                         models[i]);
        sim_run_result r;
        run(p, p->frames, false, &r);
        assert_int_equal(r.out_last[1] - r.in_first[0], spans[i]);
        total += p->before_cycles + spans[i];
        sim_run_result_free(&r);
    }
    assert_int_equal(total, 1001);
    assert_int_equal(b.analytic_latency, 1002);
    assert_int_equal(b.analytic_interval, 501);
    assert_true(fabs((double)(total - b.analytic_latency)) <= 0.05 * (double)b.analytic_latency);
    sim_build_free(&b);
    cm_design_free(d);
}

/* The worked example of backend-models.md 2.7: 32x32x32 input, 64 filters 3x3, pad 1,
 * coarse_in 4, coarse_out 8, fine 3. The model balances the module rates into 221952
 * cycles: the conv's 196608 (1024 pixels x ch 8 x f 8 x 9/3 = 192 cycles) times the
 * padding factor 34*34/(32*32), as if the window's padding positions slowed the conv.
 * They do not: the window spends 8 cycles on each of the 34*34 positions (9248 a
 * frame), far less than the conv, so with streams as deep as the model assumes the
 * conv never waits and the interval is 196608, 11.4% below the model. (The published
 * figure is kept in src/hw.) The design's 2-window streams suffice: the window writes a
 * frame's last window when the conv starts the one two before it, and re-fills the next
 * frame's two padded rows and two columns (2*34*8 + 2*8 = 560 cycles) while the conv
 * works through those three (576 cycles). */
static void test_padding_penalty(void **state)
{
    (void)state;
    cm_design *d = fcn_design(padded_chain(32, 32, (int[]){64}, 1, 1), CM_OBJECTIVE_LATENCY, 1);
    cm_design_set_folding(d, 0, 4, 8, 3);
    sim_build b;
    build(d, &b);
    const sim_part *p = &b.parts[0];
    assert_int_equal(p->analytic_interval, 221952);
    sim_run_result r;
    run(p, 4, true, &r);
    assert_int_equal(r.interval_cycles, 196608);
    sim_run_result_free(&r);
    run(p, 4, false, &r);
    assert_int_equal(r.interval_cycles, 196608);
    sim_run_result_free(&r);
    sim_build_free(&b);
    cm_design_free(d);
}

/* A hand-edited folding that does not divide the channels has no task model: the
 * builder refuses it naming the node, and leaves nothing behind. */
static void test_bad_folding(void **state)
{
    (void)state;
    cm_design *d = fcn_design(conv_chain(2, 8, (int[]){4}, 1), CM_OBJECTIVE_LATENCY, 1);
    cm_design_set_folding(d, 0, 3, 1, 1);
    sim_build b;
    memset(&b, 0, sizeof b);
    cm_error err = {0};
    assert_int_equal(sim_build_streaming(d, &b, &err), CM_EINPUT);
    assert_non_null(strstr(err.message, "conv0"));
    assert_int_equal(b.n_parts, 0);
    sim_build_free(&b);
    cm_design_free(d);
}

/* conv0 (3x3, 4 -> 4 channels, 8x8 -> 6x6) -> Resize to rows x cols (nearest, or
 * linear) -> conv1 (3x3, 4 -> 4). Unpadded: the model's padding penalty
 * (test_padding_penalty) would set the interval. */
static cm_graph *resize_chain(int rows, int cols, bool linear)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 4, 8, 8});
    ob_init_float(m, "W0", 4, (int64_t[]){4, 4, 3, 3}, NULL);
    ob_init_float(m, "W1", 4, (int64_t[]){4, 4, 3, 3}, NULL);
    ob_init_int64(m, "sizes", 1, (int64_t[]){4}, (int64_t[]){1, 4, rows, cols});
    Onnx__NodeProto *n = ob_node(m, "Conv", "conv0", "x,W0", "y0");
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){3, 3});
    n = ob_node(m, "Resize", "up", "y0,,,sizes", "y1");
    ob_attr_string(n, "mode", linear ? "linear" : "nearest");
    n = ob_node(m, "Conv", "conv1", "y1,W1", "y2");
    ob_attr_ints(n, "kernel_shape", 2, (int64_t[]){3, 3});
    ob_output(m, "y2", 4, NULL);
    return cm_test_load_built(m, "resize_chain.onnx");
}

/* The resize between two convolutions, nearest and bilinear, up by 2 and by other
 * factors (6x6 to 5x7 shrinks the rows). fpgaConvNet at coarse 1 and 2 on every layer
 * and with the convolutions fully unrolled so that the resize sets the pace; hls4ml
 * with its resource-minimal reuse factors and with RF 1; FINN (square and nearest only)
 * resource-minimal and with its MVAUs fully parallel. The simulated interval within 2%
 * of the model's and the first frame within 5% of the partition model's (when written:
 * all 29 intervals exact, first frames within 3.0%, within 3 cycles where the resize is
 * the slowest), and the design's own stream depths run it without deadlock. FINN
 * refuses a bilinear or a non-square resize, naming the layer. */
/* d is one partition: simulated with unbounded streams, its interval within 2% of the
 * model's and its first frame within 5%; at the design's own depths it runs, when
 * `chain` (a fork's short branch needs a frame's worth of stream, README). */
static void check_one_part(const cm_design *d, const char *what, bool chain)
{
    sim_build b;
    build(d, &b);
    assert_int_equal(b.n_parts, 1);
    const sim_part *p = &b.parts[0];
    sim_run_result r;
    run(p, 4, true, &r);
    const double iv = (double)p->analytic_interval, lat = (double)p->analytic_latency;
    if (fabs((double)r.interval_cycles - iv) > 0.02 * iv ||
        fabs((double)r.latency_cycles - lat) > 0.05 * lat)
        fail_msg("%s: interval %lld simulated, %.0f analytic; latency %lld simulated, %.0f "
                 "analytic", what, (long long)r.interval_cycles, iv, (long long)r.latency_cycles,
                 lat);
    sim_run_result_free(&r);
    if (chain) {
        run(p, 4, false, &r);
        sim_run_result_free(&r);
    }
    sim_build_free(&b);
}

static void check_resize(cm_backend backend, int rows, int cols, bool linear, int variant)
{
    cm_design *d = backend_design(resize_chain(rows, cols, linear), backend,
                                  CM_OBJECTIVE_LATENCY, 1);
    int resize = -1;
    for (int k = 0; k < d->hd.n_nodes; k++)
        if (d->graph->layers[d->hd.nodes[k].layer].op == CM_OP_UPSAMPLE)
            resize = k;
    assert_true(resize >= 0);
    for (int k = 0; k < d->hd.n_nodes; k++) {
        const cm_hd_node *n = &d->hd.nodes[k];
        if (backend == CM_BACKEND_HLS4ML && variant == 1 && k != resize)
            cm_design_set_folding(d, k, 1, 1, 4 * 9 * 4); /* RF 1 */
        else if (backend == CM_BACKEND_FPGACONVNET && k != resize)
            cm_design_set_folding(d, k, variant < 2 ? variant + 1 : 4, variant < 2 ? variant + 1 : 4,
                                  variant < 2 ? 1 : 9);
        else if (backend == CM_BACKEND_FINN && variant == 1 && n->hw.finn.kind == CM_FINN_MVAU)
            cm_design_set_folding(d, k, n->hw.finn.mw, n->hw.finn.mh, 1);
    }
    if (backend == CM_BACKEND_FPGACONVNET)
        cm_design_set_folding(d, resize, variant == 1 ? 2 : 1, variant == 1 ? 2 : 1, 1);
    char what[96];
    snprintf(what, sizeof what, "%s resize to %dx%d (%s), variant %d", cm_backend_name(backend),
             rows, cols, linear ? "linear" : "nearest", variant);
    check_one_part(d, what, true);
    cm_design_free(d);
}

static void test_resize(void **state)
{
    (void)state;
    static const struct {
        int rows, cols;
        bool linear;
    } shapes[] = {{12, 12, false}, {12, 12, true}, {13, 11, true}, {12, 20, false}, {5, 7, true}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        for (int variant = 0; variant < 3; variant++)
            check_resize(CM_BACKEND_FPGACONVNET, shapes[i].rows, shapes[i].cols,
                         shapes[i].linear, variant);
        for (int variant = 0; variant < 2; variant++)
            check_resize(CM_BACKEND_HLS4ML, shapes[i].rows, shapes[i].cols, shapes[i].linear,
                         variant);
        /* FINN's upsample takes square maps in nearest mode only */
        if (shapes[i].rows == shapes[i].cols && !shapes[i].linear)
            for (int variant = 0; variant < 2; variant++)
                check_resize(CM_BACKEND_FINN, shapes[i].rows, shapes[i].cols, false, variant);
    }
    for (int linear = 0; linear < 2; linear++) {
        cm_graph *g = resize_chain(12, linear ? 12 : 20, linear);
        cm_board board = roomy_board();
        cm_design_options o;
        cm_design_options_init(&o);
        o.backend = CM_BACKEND_FINN;
        cm_design *d = NULL;
        cm_error err = {0};
        assert_int_equal(cm_design_create(g, &board, &o, &d, &err), CM_EINPUT);
        assert_null(d);
        assert_non_null(strstr(err.message, "layer up (upsample): FINN's UpsampleNearestNeighbour"));
        cm_graph_free(g);
    }
}

/* conv0 (3x3, 4 -> 4, 8x8 -> 6x6) -> GroupNorm(2 groups, torch's pattern) -> conv1. */
static cm_graph *group_norm_chain(void)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 4, 8, 8});
    ob_init_float(m, "W0", 4, (int64_t[]){4, 4, 3, 3}, NULL);
    ob_init_float(m, "W1", 4, (int64_t[]){4, 4, 3, 3}, NULL);
    ob_attr_ints(ob_node(m, "Conv", "conv0", "x,W0", "y0"), "kernel_shape", 2, (int64_t[]){3, 3});
    ob_group_norm(m, "y0", "gn", 4, 2, NULL, 1.0f, NULL, NULL);
    ob_attr_ints(ob_node(m, "Conv", "conv1", "gn,W1", "y"), "kernel_shape", 2, (int64_t[]){3, 3});
    ob_output(m, "y", 4, NULL);
    return cm_test_load_built(m, "group_norm.onnx");
}

/* A group norm holds its map: fpgaConvNet at coarse 2 reads the 6x6x4 map in 72 cycles
 * and writes it in 72 (144), one bram_mem(36 x 2, 16) = 1 BRAM18 a stream and the layer
 * norm's two multipliers a stream; hls4ml a pixel a cycle, 72. Simulated between two
 * convolutions (fpgaConvNet at coarse 1 and 2, hls4ml at its minimal reuse factors and
 * RF 1): the interval within 2% of the model's, the first frame within 5% (when written:
 * intervals exact, first frames within 2 cycles). */
static void test_group_norm(void **state)
{
    (void)state;
    for (int v = 0; v < 4; v++) {
        const cm_backend backend = v < 2 ? CM_BACKEND_FPGACONVNET : CM_BACKEND_HLS4ML;
        cm_design *d = backend_design(group_norm_chain(), backend, CM_OBJECTIVE_LATENCY, 1);
        int gn = -1;
        for (int k = 0; k < d->hd.n_nodes; k++)
            if (!strcmp(d->hd.nodes[k].name, "gn"))
                gn = k;
        assert_true(gn >= 0);
        for (int k = 0; k < d->hd.n_nodes; k++)
            if (backend == CM_BACKEND_FPGACONVNET)
                cm_design_set_folding(d, k, v + 1, v + 1, 1);
            else if (v == 3 && k != gn)
                cm_design_set_folding(d, k, 1, 1, 4 * 9 * 4);
        const cm_block_cost *c = &d->state[gn].cost;
        if (v == 1) {
            assert_string_equal(d->hd.nodes[gn].op, "GroupNorm");
            assert_true(c->cycles == 144.0);
            assert_int_equal(c->res.bram18, 2);
            assert_int_equal(c->res.dsp, 4);
        }
        if (v == 2)
            assert_true(c->cycles == 72.0);
        char what[32];
        snprintf(what, sizeof what, "group norm, variant %d", v);
        check_one_part(d, what, true);
        cm_design_free(d);
    }
}

/* Squeeze-excitation as torchvision writes it: conv0 (3x3, 4 -> 4, 8x8 -> 6x6), a global
 * average pool, a 1x1 convolution and a Sigmoid, then Mul(scale, map): the scale, one
 * pixel, is the Mul's first input. */
static cm_graph *se_chain(void)
{
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 4, 8, 8});
    ob_init_float(m, "W0", 4, (int64_t[]){4, 4, 3, 3}, NULL);
    ob_init_float(m, "W1", 4, (int64_t[]){4, 4, 1, 1}, NULL);
    ob_attr_ints(ob_node(m, "Conv", "conv0", "x,W0", "y0"), "kernel_shape", 2, (int64_t[]){3, 3});
    ob_node(m, "GlobalAveragePool", "pool", "y0", "p");
    ob_attr_ints(ob_node(m, "Conv", "fc", "p,W1", "f"), "kernel_shape", 2, (int64_t[]){1, 1});
    ob_node(m, "Sigmoid", "gate", "f", "g");
    ob_node(m, "Mul", "scale", "g,y0", "y");
    ob_output(m, "y", 4, NULL);
    return cm_test_load_built(m, "se.onnx");
}

/* The multiply works over the map, not its first input's one pixel: fpgaConvNet at
 * coarse 1 takes 6 x 6 x 4 = 144 cycles (it took 4), hls4ml a pixel a cycle, 36 (it took
 * 1); in the simulation it reads the scale with the first pixel only (it deadlocked
 * waiting for 35 more scales), within 2% and 5% of the model. */
static void test_squeeze_excitation(void **state)
{
    (void)state;
    for (int v = 0; v < 2; v++) {
        cm_design *d = backend_design(se_chain(), v ? CM_BACKEND_HLS4ML : CM_BACKEND_FPGACONVNET,
                                      CM_OBJECTIVE_LATENCY, 1);
        const int mul = d->hd.n_nodes - 1;
        assert_string_equal(d->hd.nodes[mul].name, "scale");
        assert_true(d->state[mul].cost.cycles == (v ? 36.0 : 144.0));
        assert_int_equal(d->hd.nodes[mul].size_in, 144);
        check_one_part(d, v ? "hls4ml squeeze-excitation" : "fpgaconvnet squeeze-excitation",
                       false);
        cm_design_free(d);
    }
}

/* ---- the models ---- */

typedef struct model_case {
    const char *model, *board;
    cm_backend backend;
    int bits;
} model_case;

static cm_design *rule_design(const model_case *mc)
{
    char path[512];
    cm_test_generated_model(mc->model, path, sizeof path);
    cm_design *d = cm_test_design(path, mc->board, mc->backend, mc->bits, true);
    cm_optimise_options o = {.optimiser = CM_OPTIMISER_RULE, .seed = 1};
    cm_optimise_result res;
    cm_error err = {0};
    if (cm_optimise(d, &o, &res, &err) != CM_OK)
        fail_msg("%s", err.message);
    return d;
}

static void check_model(const model_case *mc)
{
    cm_design *d = rule_design(mc);
    sim_build b;
    build(d, &b);
    assert_int_equal(b.n_parts, cm_design_partition_count(d));
    for (int i = 0; i < b.n_parts; i++) {
        const sim_part *p = &b.parts[i];
        sim_run_result r;
        run(p, 4, true, &r);
        const double iv = (double)p->analytic_interval;
        if (fabs((double)r.interval_cycles - iv) > 0.02 * iv)
            fail_msg("%s %s %s partition %d: interval %lld simulated, %lld analytic", mc->model,
                     cm_backend_name(mc->backend), mc->board, i, (long long)r.interval_cycles,
                     (long long)p->analytic_interval);
        /* the first frame: within 5% of the partition model (src/design/first_frame.c),
         * as the issue asks; all 26 partitions are within 2.3% (README). MobileNetV1's
         * first FINN partition was -7.4% before late rows were modelled (an MVAU three
         * of its fourteen rows behind at its input's end), CNV on hls4ml -5.3% before
         * the strided-window row term covered hls4ml's windows. */
        const double lat = (double)p->analytic_latency;
        if (fabs((double)r.latency_cycles - lat) > 0.05 * lat)
            fail_msg("%s %s %s partition %d: latency %lld simulated, %lld analytic", mc->model,
                     cm_backend_name(mc->backend), mc->board, i, (long long)r.latency_cycles,
                     (long long)p->analytic_latency);
        sim_run_result_free(&r);
        /* at the design's own depths it runs, no faster than the model */
        run(p, 4, false, &r);
        assert_true((double)r.interval_cycles >= 0.98 * iv);
        sim_run_result_free(&r);
    }
    sim_build_free(&b);
    cm_design_free(d);
}

static const model_case cases[] = {
    {"zoo/lenet_zoo.onnx", "u250", CM_BACKEND_FPGACONVNET, 0},
    {"zoo/lenet_zoo.onnx", "zedboard", CM_BACKEND_FINN, 4},
    {"zoo/lenet_zoo.onnx", "u250", CM_BACKEND_HLS4ML, 0},
    {"zoo/cnv.onnx", "u250", CM_BACKEND_FPGACONVNET, 0},
    {"zoo/cnv.onnx", "zedboard", CM_BACKEND_FINN, 1},
    {"zoo/cnv.onnx", "u250", CM_BACKEND_HLS4ML, 0},
    {"zoo/mpcnn.onnx", "zedboard", CM_BACKEND_FPGACONVNET, 0},
    {"zoo/mpcnn.onnx", "zedboard", CM_BACKEND_FINN, 4},
    {"zoo/mpcnn.onnx", "zedboard", CM_BACKEND_HLS4ML, 0},
    {"zoo/mobilenet_v1.onnx", "u250", CM_BACKEND_FPGACONVNET, 0},
    {"zoo/mobilenet_v1.onnx", "zedboard", CM_BACKEND_FINN, 4},
    {"zoo/mobilenet_v1.onnx", "u250", CM_BACKEND_HLS4ML, 0},
};
#define N_CASES (int)(sizeof cases / sizeof cases[0])

static void test_model(void **state)
{
    check_model(*state);
}

/* LeNet on fpgaConvNet: pool2 (2x2, stride 2) writes each of its 4 output rows within
 * one of its 8 input rows, faster than fc1 takes them, so fc1 ends after the last row's
 * 200 words at its own pace, not at pool2's end plus its tail: with that row in the
 * model (cm_design_last_row_taken) the first frame is within 2% of the simulation
 * (-5.3% without it). */
static void test_strided_last_row(void **state)
{
    (void)state;
    cm_design *d = rule_design(&cases[0]);
    sim_build b;
    build(d, &b);
    assert_int_equal(b.n_parts, 1);
    sim_run_result r;
    run(&b.parts[0], 4, true, &r);
    const double lat = (double)b.parts[0].analytic_latency;
    if (fabs((double)r.latency_cycles - lat) > 0.02 * (double)r.latency_cycles)
        fail_msg("LeNet fpgaConvNet: latency %lld simulated, %.0f analytic",
                 (long long)r.latency_cycles, lat);
    sim_run_result_free(&r);
    sim_build_free(&b);
    cm_design_free(d);
}

static int node_named(const cm_design *d, const char *name)
{
    for (int i = 0; i < d->hd.n_nodes; i++)
        if (!strcmp(d->hd.nodes[i].name, name))
            return i;
    fail_msg("no node %s", name);
    return -1;
}

static int stream_named(const sim_graph *g, const char *name)
{
    for (int s = 0; s < sim_graph_streams(g); s++)
        if (!strcmp(sim_stream_name(g, s), name))
            return s;
    fail_msg("no stream %s", name);
    return -1;
}

/* Late rows (first_frame.c) on MobileNetV1's first FINN partition, by hand. MVAU_6 (the
 * slowest, 8,192 cycles a 14x14 pixel) ends at z. FMPadding_7 pads its 14 rows to 16:
 * its last real row streams through until z, its bottom row comes after it. The 3x3
 * generator after it writes output row j (of 14) in the slots that read its input row
 * j + 3, and since one slot in 9 reads, 8 of every 9 taps of a row go out after that
 * row is in: row 11 (which reads row 14, the last real one, ending at z) as well as
 * rows 12 and 13 (which read the bottom row, or nothing) come after z (3/14; the
 * padding's record holds 2/16, its last real row and its bottom one). VVAU_6 passes
 * them on as 42 of its 196 vectors; the 1x1 generator writes row j once it has read
 * row j + 1, so its rows 10 to 13 wait (4/14), and MVAU_7 (4,096 cycles a vector,
 * 802,816 a sample) still has those 56 vectors to do after z: its last output is at
 * least z + 4/14 * 802,816 = z + 229,376, which is where the model puts it. The
 * simulation: 226,051 after MVAU_6's last output word (MVAU_7 takes the first pixels of
 * row 10 before z); the even spreading said 28,801, and records that left out the row
 * ending at z 172,032. */
static void test_late_rows(void **state)
{
    (void)state;
    cm_design *d = rule_design(&cases[10]);
    const int pad = node_named(d, "FMPadding_Batch_7");
    const int mvau6 = node_named(d, "StreamingFCLayer_Batch_6");
    const int mvau7 = node_named(d, "StreamingFCLayer_Batch_7");
    const int part = d->part_of[mvau7];
    assert_int_equal(d->part_of[mvau6], part);
    const int first = d->parts[part].first;
    const double *late = d->scratch_time + 2 * (size_t)d->hd.n_nodes;
    cm_late_rec recs[64];
    assert_true(cm_design_late_cap(d, mvau7) <= 64);
    const int n = cm_design_late_records(d, first, mvau7, late + (size_t)first * CM_LATE_STRIDE,
                                         recs);
    int found = -1;
    for (int k = 0; k < n; k++)
        if (recs[k].source == pad)
            found = k;
    assert_true(found >= 0);
    assert_float_equal(recs[found].share, 4.0 / 14.0, 1e-12);
    assert_float_equal(recs[found].work, 4.0 / 14.0, 1e-12);
    assert_float_equal(d->state[mvau7].cost.cycles, 802816.0, 0.0);
    const double *ft = d->scratch_time;
    const double model = ft[2 * mvau7 + 1] - ft[2 * mvau6 + 1];
    assert_float_equal(model, 229376.0, 1e-6);
    /* node by node against the simulation: the last words of the two MVAUs' outputs */
    sim_build b;
    build(d, &b);
    const sim_part *p = &b.parts[part];
    sim_run_result r;
    run(p, 1, true, &r);
    const sim_stream_stats *out6 = &r.streams[stream_named(p->graph, "StreamingFCLayer_Batch_6->FMPadding_Batch_7")];
    const sim_stream_stats *out7 = &r.streams[stream_named(p->graph, "StreamingFCLayer_Batch_7->FMPadding_Batch_8")];
    const double simulated = (double)(out7->last_write - out6->last_write);
    if (fabs(simulated - model) > 0.02 * simulated)
        fail_msg("MVAU_7 ends %.0f cycles after MVAU_6 simulated, %.0f modelled", simulated, model);
    sim_run_result_free(&r);
    sim_build_free(&b);
    cm_design_free(d);
}

/* A window's last rows, by hand. Blocks that pass rows on (cm_design_row_source): on
 * ResNet-50's fpgaConvNet graph the max pool's split and layer2.0's ReLU after its 3x3
 * stride-2 conv keep the rows of the pool and the conv, and so does the 1x1 conv3
 * after that ReLU; the Add after it (two producers) keeps none, a padded 3x3 conv its
 * own. A producer of 4 rows at stride 2 (7 input rows of spread) writing from cycle 0
 * to 1,000, with a consumer at 2 cycles a word taking a last row of 10 words: the row
 * begins 1,000/7 before the end, so it is taken at 1,000 - 142.857 + 20 = 877.14.
 * A 3x3 window with padding 1 over 7x7: fpgaConvNet walks the bottom padding row
 * after the last input word, so 9 of the 49 outputs come after it (the last row and
 * the last two of the row before); hls4ml completes the windows ending in padding
 * with the last real row and column, so only the 2x2 reaching the last input word in
 * both axes do; either way the last input row completes 2 of the 7 output rows (14
 * outputs), the first of them when input column 1 of that row arrives: 5/49 of the
 * input's span before its end. The shares leave the last output out (8, 3 and 13 of
 * 49): the consumer's tail covers it. */
static void test_window_last_rows(void **state)
{
    (void)state;
    char path[512];
    cm_test_generated_model("torchvision/resnet50_noweights.onnx", path, sizeof path);
    cm_design *d = cm_test_design(path, "u250", CM_BACKEND_FPGACONVNET, 0, true);
    const int pool = node_named(d, "/maxpool/MaxPool");
    const int conv2 = node_named(d, "/layer2/layer2.0/conv2/Conv");
    assert_int_equal(cm_design_row_source(d, pool), pool);
    assert_int_equal(cm_design_row_source(d, node_named(d, "/maxpool/MaxPool_split")), pool);
    assert_int_equal(cm_design_row_source(d, node_named(d, "/layer2/layer2.0/relu_1/Relu")), conv2);
    assert_int_equal(cm_design_row_source(d, node_named(d, "/layer2/layer2.0/conv3/Conv")), conv2);
    assert_int_equal(cm_design_row_source(d, node_named(d, "/layer2/layer2.0/Add")), -1);
    const int conv = node_named(d, "/layer1/layer1.0/conv2/Conv"); /* 3x3, padded */
    assert_int_equal(cm_design_row_source(d, conv), conv);
    cm_design_free(d);
    const cm_block_timing t = {.out_rows = 4, .row_stride = 2};
    assert_float_equal(cm_design_last_row_taken(&t, 0, 1000, 10, 2), 1020 - 1000.0 / 7, 1e-9);
    const cm_block_timing unstrided = {.out_rows = 4, .row_stride = 1};
    assert_float_equal(cm_design_last_row_taken(&unstrided, 0, 1000, 10, 2), 0, 0);
    const cm_window_axis axis = {.n = 7, .before = 1, .after = 1, .extent = 3, .stride = 1,
                                 .out = 7};
    cm_block_timing fcn = {0}, hls = {0};
    cm_block_timing_last_rows(&fcn, &axis, &axis, true);
    cm_block_timing_last_rows(&hls, &axis, &axis, false);
    assert_float_equal(fcn.tail_share, 8.0 / 49, 1e-12);
    assert_float_equal(hls.tail_share, 3.0 / 49, 1e-12);
    assert_float_equal(fcn.last_row_share, 13.0 / 49, 1e-12);
    assert_float_equal(hls.last_row_share, 13.0 / 49, 1e-12);
    assert_float_equal(fcn.last_row_lead, 5.0 / 49, 1e-12);
    assert_float_equal(hls.last_row_lead, 5.0 / 49, 1e-12);
}

/* MobileNetV2 on hls4ml (rule, U250): features.17's 1x1 conv.2 (240 cycles a pixel)
 * after the 3x3 depthwise conv.1.0 (a cycle a pixel, 7x7): the depthwise conv writes
 * output rows 5 and 6, 14 pixels, while its last input row comes in, from the pixel
 * completing column 0 on (5/49 of its input's span, 320 cycles a pixel, before its
 * last word z), and conv.2 needs 14 x 240 cycles for them: it ends about
 * z - 1,600 + 3,360 = z + 1,760 (simulated: z + 1,761). The model had z plus a pixel
 * (its partition 9.5% under the simulation); with the window's last rows its
 * partition is within 1%. */
static void test_last_row_burst(void **state)
{
    (void)state;
    const model_case mc = {"torchvision/mobilenet_v2_noweights.onnx", "u250", CM_BACKEND_HLS4ML, 0};
    cm_design *d = rule_design(&mc);
    const int conv = node_named(d, "/features/features.17/conv/conv.2/Conv");
    const int part = d->part_of[conv];
    sim_build b;
    build(d, &b);
    sim_run_result r;
    run(&b.parts[part], 1, true, &r);
    const double lat = (double)b.parts[part].analytic_latency;
    if (fabs((double)r.latency_cycles - lat) > 0.01 * (double)r.latency_cycles)
        fail_msg("MobileNetV2 hls4ml partition %d: latency %lld simulated, %.0f analytic", part,
                 (long long)r.latency_cycles, lat);
    sim_run_result_free(&r);
    sim_build_free(&b);
    cm_design_free(d);
}

int main(void)
{
    static const struct CMUnitTest hand[] = {
        cmocka_unit_test(test_hand_conv),
        cmocka_unit_test(test_hand_finn_conv),
        cmocka_unit_test(test_two_partitions),
        cmocka_unit_test(test_padding_penalty),
        cmocka_unit_test(test_bad_folding),
        cmocka_unit_test(test_resize),
        cmocka_unit_test(test_group_norm),
        cmocka_unit_test(test_squeeze_excitation),
        cmocka_unit_test(test_strided_last_row),
        cmocka_unit_test(test_late_rows),
        cmocka_unit_test(test_window_last_rows),
        cmocka_unit_test(test_last_row_burst),
    };
    enum { N_HAND = sizeof hand / sizeof hand[0] };
    struct CMUnitTest tests[N_HAND + sizeof cases / sizeof cases[0]];
    char names[N_CASES][96];
    memcpy(tests, hand, sizeof hand);
    for (int i = 0; i < N_CASES; i++) {
        snprintf(names[i], sizeof names[i], "%s %s %s", cases[i].model,
                 cm_backend_name(cases[i].backend), cases[i].board);
        tests[N_HAND + i] = (struct CMUnitTest){names[i], test_model, NULL, NULL,
                                                (void *)&cases[i]};
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
