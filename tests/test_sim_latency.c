/* Simulation of latency-driven designs (src/sim/sim_latency.c): a two-convolution
 * schedule whose parts, task programs and simulated cycles are worked out by hand in the
 * comments, and the designs the latency flow finds for LeNet, AlexNet and VGG16 on a
 * ZC706, where each subgraph's simulated interval must be within 2% of the model's
 * II_max and the whole schedule's simulated latency within 5% of eq. 7's. */
#include "test_support.h"
#include "onnx_builder.h"

#include <cnnmap/latency.h>
#include <cnnmap/model.h>
#include <cnnmap/simulate.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/build.h"

/* x 1x6x6 -> convA 2x3x3 -> 2x4x4 -> convB 2x3x3 -> 2x2x2 (no padding, no biases). */
static cm_graph *two_convs(void)
{
    static const char *const names[2] = {"convA", "convB"}, *const io[3] = {"x", "a", "y"};
    Onnx__ModelProto *m = ob_model_new();
    ob_input(m, "x", 4, (int64_t[]){1, 1, 6, 6});
    for (int i = 0; i < 2; i++) {
        char w[16], inputs[32];
        snprintf(w, sizeof w, "W%d", i);
        ob_init_float(m, w, 4, (int64_t[]){2, i + 1, 3, 3}, NULL);
        snprintf(inputs, sizeof inputs, "%s,%s", io[i], w);
        ob_attr_ints(ob_node(m, "Conv", names[i], inputs, io[i + 1]), "kernel_shape", 2,
                     (int64_t[]){3, 3});
    }
    ob_output(m, "y", 4, NULL);
    return cm_test_load_built(m, "two_convs.onnx");
}

static void run_part(const sim_part *p, int frames, sim_run_result *r)
{
    sim_run_options o = {.frames = frames};
    cm_error err = {0};
    if (sim_run(p->graph, &o, r, &err) != CM_OK)
        fail_msg("%s: %s", p->label, err.message);
    assert_false(r->deadlock);
}

static int task_index(const sim_graph *g, const char *name)
{
    for (int t = 0; t < sim_graph_tasks(g); t++)
        if (strcmp(sim_task_name(g, t), name) == 0)
            return t;
    fail_msg("no task %s", name);
    return -1;
}

/* The design of two_convs with a cut before convB: one conv block of N = 2 units of
 * m = 3 MACCs (the 3x3 window in 3 chunks), no input folding, on a ZC706 (125 MHz,
 * 3.8 GB/s: 15.2 16-bit words a cycle).
 *
 * The model (evaluate.c):
 *  subgraph 0, convA 1x6x6 -> 2x4x4: memory (36 in + 32 out) / 15.2 = 4.47 cycles;
 *   window: 36 map words at 1 a cycle (II 36), 16 windows out; bank: 16 windows x 1
 *   filter group x 3 chunks x 3 words at 3 a cycle (II 48), 32 words out at 2 (16).
 *   II_max 48; depth: fill 6*1*2 + 1*3*2 = 18, + 3 chunks + 1 channel x 1 group = 22;
 *   one frame 22 + 48 = 70.
 *  subgraph 1, convB 2x4x4 -> 2x2x2: memory (32 + 8) / 15.2 = 2.63; window 32 words
 *   (II 32), 8 windows; bank 4 x 2 x 1 x 3 x 3 = 72 at 3 (II 24), 8 out at 2. II_max 32
 *   (the window); depth 4*2*2 + 2*3*2 = 28, + 3 + 2 = 33; one frame 65.
 *  weights: 18 and 36 words of 2 bytes at 3.8 GB/s, loaded before each: 1.18 and 2.37
 *   cycles; eq. 7: 70 + 65 + 3.55 = 138.55, 139 cycles.
 *
 * The simulation, frame 0 of subgraph 0 (tasks: input -> memory read -> conv0.window ->
 * conv0.bank -> memory write -> output; each node's words and cycles spread evenly
 * over its iterations, words read at the start of their share, written at its end):
 *  input writes the frame's token at 1; memory read (5 iterations of 1 cycle, the 4.47
 *   rounded up) takes it at 1 (the frame is in at 1) and writes 7, 7, 7, 7, 8 words at
 *   2 .. 6;
 *  window: 36 iterations of 1 cycle reading a word each, from 2 to 37; window j comes
 *   from iteration ceil(2.25 (j + 1)) - 1 (16 windows over 36 words), 22 cycles later
 *   (the depth): the first at 2 + 2 + 22 = 26, the last at 37 + 22 = 59;
 *  bank: 48 iterations of 1 cycle, iteration 3j reading window j, which is always there
 *   by then: from 26 to 73, the last output word at 74;
 *  memory write: 5 iterations reading 6, 6, 7, 6, 7 words (the bank's word 5, its
 *   iteration 8, at 35 lets it start), the last at 74, writing the token at 75: the frame is out at 75. Latency 74 = the model's 70 + 1 (memory read)
 *   + 2 (the window's first output needs its third word) + 1 (bank) + 1 (memory write)
 *   - 1 (the bank's 48 cycles end with its last write, not after it).
 *  With 4 frames the bank runs back to back: interval 48, the model's II_max.
 * Subgraph 1: memory read (3 iterations: 10, 11, 11 words at 2, 3, 4), window from 2 to
 *  33, window j from iteration 4j + 3, at 2 + 4j + 3 + 33 = 38 + 4j; the bank waits for
 *  each (its 3 iterations a window are faster than the window's 4 cycles): window 7 at
 *  66, its iterations 21..23 at 66..68, the last word at 69; memory write takes it at 69
 *  and the token is out at 70. Latency 69; interval 32 (the window).
 * Whole schedule: 1 + 74 + 2 + 69 = 146 cycles, 5% above the model's 139: the few
 * cycles of granularity above weigh on a 65-cycle subgraph, not on real layers. */
static void test_two_convs_by_hand(void **state)
{
    (void)state;
    cm_graph *g = two_convs();
    cm_latency_file f = {.graph = g};
    cm_error err = {0};
    assert_int_equal(cm_board_builtin("zc706", &f.board, &err), CM_OK);
    cm_latency_options_init(&f.options);
    f.options.input_folding = false;
    bool cut[2] = {false, true};
    int coarse[1] = {2}, macc[1] = {3};
    cm_latency_point p = {cut, coarse, macc, NULL};
    assert_int_equal(cm_latency_evaluate(g, &f.board, &f.options, &p, &f.design, &err), CM_OK);
    sim_build b = {0};
    assert_int_equal(sim_build_latency(&f, &b, &err), CM_OK);
    assert_int_equal(b.n_parts, 2);
    assert_int_equal(b.batch, 1);
    assert_int_equal(b.analytic_latency, 139);
    assert_int_equal(b.analytic_interval, 139);
    assert_string_equal(b.parts[0].label, "subgraph 0 (convA)");
    assert_string_equal(b.parts[1].label, "subgraph 1 (convB)");
    const int64_t before[2] = {1, 2}, lat[2] = {70, 65}, ii[2] = {48, 32};
    const int64_t sim_lat[2] = {74, 69}, in[2] = {1, 1}, out[2] = {75, 70};
    int64_t total = 0;
    for (int i = 0; i < 2; i++) {
        const sim_part *x = &b.parts[i];
        assert_int_equal(x->frames, 1);
        assert_int_equal(x->before_cycles, before[i]);
        assert_int_equal(x->analytic_latency, lat[i]);
        assert_int_equal(x->analytic_interval, ii[i]);
        assert_int_equal(sim_graph_tasks(x->graph), 6);
        sim_run_result r;
        run_part(x, 1, &r);
        assert_int_equal(r.in_first[0], in[i]);
        assert_int_equal(r.out_last[0], out[i]);
        assert_int_equal(r.latency_cycles, sim_lat[i]);
        total += x->before_cycles + r.latency_cycles;
        sim_run_result_free(&r);
        run_part(x, 4, &r);
        assert_int_equal(r.interval_cycles, ii[i]);
        sim_run_result_free(&r);
    }
    assert_int_equal(total, 146);

    /* subgraph 0's tasks: the model's cycles per frame and the times worked out above */
    const sim_part *x = &b.parts[0];
    const char *names[4] = {"memory read", "conv0.window", "conv0.bank", "memory write"};
    const int64_t cycles[4] = {4, 36, 48, 4}, first[4] = {1, 2, 26, 35}, end[4] = {6, 38, 74, 75};
    sim_run_result r;
    run_part(x, 1, &r);
    for (int k = 0; k < 4; k++) {
        int t = task_index(x->graph, names[k]);
        assert_int_equal(x->analytic_task_cycles[t], cycles[k]);
        assert_int_equal(r.tasks[t].first_start, first[k]);
        assert_int_equal(r.tasks[t].last_end, end[k]);
    }
    sim_run_result_free(&r);
    sim_build_free(&b);
    cm_latency_design_free(&f.design);
    cm_graph_free(g);
}

/* The latency flow's design of a zoo model on a ZC706, written to a file. */
static void optimise_to_file(const char *model, int batch, char *file, size_t size)
{
    char path[1024];
    cm_test_generated_model(model, path, sizeof path);
    cm_graph *g = NULL;
    cm_board b;
    cm_error err = {0};
    assert_int_equal(cm_model_load(path, &g, &err), CM_OK);
    assert_int_equal(cm_board_builtin("zc706", &b, &err), CM_OK);
    cm_latency_options o;
    cm_latency_options_init(&o);
    o.clock_mhz = b.clock_mhz;
    o.bandwidth_gbps = b.bandwidth_gbps;
    o.batch = batch;
    cm_latency_design d;
    if (cm_latency_optimise(g, &b, &o, &d, &err) != CM_OK)
        fail_msg("%s", err.message);
    cm_test_write_temp("", 0, ".json", file, size);
    assert_int_equal(cm_latency_design_save(file, path, "zc706", g, &o, &d, &err), CM_OK);
    cm_latency_design_free(&d);
    cm_graph_free(g);
}

static double rel(int64_t sim, int64_t model)
{
    return model ? fabs((double)(sim - model)) / (double)model : (sim ? INFINITY : 0.0);
}

static void check_model(const char *model, int batch)
{
    char file[1024];
    optimise_to_file(model, batch, file, sizeof file);
    cm_sim_options o;
    cm_sim_options_init(&o);
    cm_sim_result r;
    cm_error err = {0};
    if (cm_simulate(file, &o, &r, &err) != CM_OK)
        fail_msg("%s: %s", model, err.message);
    assert_false(r.deadlock);
    double worst = 0.0;
    for (int i = 0; i < r.n_partitions; i++) {
        const cm_sim_partition *p = &r.partitions[i];
        double d = rel(p->simulated.interval_cycles, p->analytic.interval_cycles);
        double dl = rel(p->simulated.latency_cycles, p->analytic.latency_cycles);
        print_message("  %-40s interval %10lld / %10lld (%.3f%%)  latency %10lld / %10lld (%.3f%%)\n",
                      p->label, (long long)p->simulated.interval_cycles,
                      (long long)p->analytic.interval_cycles, 100 * d,
                      (long long)p->simulated.latency_cycles, (long long)p->analytic.latency_cycles,
                      100 * dl);
        worst = fmax(worst, d);
        char prefix[32];
        snprintf(prefix, sizeof prefix, "subgraph %d (", i);
        assert_memory_equal(p->label, prefix, strlen(prefix));
    }
    double dl = rel(r.simulated.latency_cycles, r.analytic.latency_cycles);
    print_message("%s batch %d: %d subgraphs, latency %lld / %lld (%.3f%%), worst interval %.3f%%, "
                  "%.3f s, %llu iterations\n", model, batch, r.n_partitions,
                  (long long)r.simulated.latency_cycles, (long long)r.analytic.latency_cycles,
                  100 * dl, 100 * worst, r.time_s, (unsigned long long)r.iterations);
    assert_true(worst <= 0.02);
    assert_true(dl <= 0.05);
    /* one subgraph streams frame after frame (II_max apart); a schedule runs the batch
     * through each subgraph in turn (the run's latency over the batch) */
    assert_true(rel(r.simulated.interval_cycles, r.analytic.interval_cycles) <= 0.05);
    if (r.n_partitions == 1)
        assert_int_equal(r.analytic.interval_cycles, r.partitions[0].analytic.interval_cycles);
    else
        assert_int_equal(r.analytic.interval_cycles, r.analytic.latency_cycles / batch);
    cm_sim_result_free(&r);
    unlink(file);
}

static void test_lenet(void **state)
{
    (void)state;
    check_model("zoo/lenet_zoo.onnx", 1);
    check_model("zoo/lenet_zoo.onnx", 4);
}

static void test_alexnet(void **state)
{
    (void)state;
    check_model("zoo/alexnet_fe.onnx", 1);
    check_model("zoo/alexnet_fe.onnx", 4);
}

static void test_vgg16(void **state)
{
    (void)state;
    check_model("zoo/vgg16_fe.onnx", 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_convs_by_hand),
        cmocka_unit_test(test_lenet),
        cmocka_unit_test(test_alexnet),
        cmocka_unit_test(test_vgg16),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
