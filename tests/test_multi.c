/* Multi-CNN flow tests (f-CNNx): the slot arithmetic of eq. 7 on the paper's example,
 * the slow-down scaling of eq. 4, the list scheduler against the exact ILP on small
 * problems worked out by hand and on generated ones, and the whole flow on the paper's
 * small cases (LeNet and CIFAR-10, Table II) and its Table III set (ZFNet,
 * SceneLabelCNN, VGG16): never worse than the contention-unaware baseline, better when
 * bandwidth binds, the same output for the same input, and clear refusals. */
#include "test_support.h"

#include <cnnmap/model.h>
#include <cnnmap/multi.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GB 1e9

/* ---- eq. 7 ---- */

/* f-CNNx III-D: three CNNs with one subgraph each get 1, 2 and 4 consecutive slots of a
 * 7-slot round, i.e. 1/7 = 14.28%, 2/7 = 28.57% and 4/7 = 57.14% of the bandwidth. */
static void test_slot_shares_paper_example(void **state)
{
    (void)state;
    const int slots[3] = {1, 2, 4};
    double share[3];
    cm_multi_slot_shares(slots, 3, share);
    assert_true(fabs(share[0] - 0.142857) < 1e-5);
    assert_true(fabs(share[1] - 0.285714) < 1e-5);
    assert_true(fabs(share[2] - 0.571429) < 1e-5);
    /* The printed percentages, truncated as the paper does. */
    assert_int_equal((int)(share[0] * 10000), 1428);
    assert_int_equal((int)(share[1] * 10000), 2857);
    assert_int_equal((int)(share[2] * 10000), 5714);
}

/* Solving eq. 7 for slots: demands of 1/7, 2/7 and 4/7 of B_mem need the 7-slot round. */
static void test_slots_from_demand(void **state)
{
    (void)state;
    const double b = 3.8 * GB, need[3] = {b / 7, 2 * b / 7, 4 * b / 7};
    int slots[3];
    cm_multi_slots(need, 3, b, 64, slots);
    assert_int_equal(slots[0], 1);
    assert_int_equal(slots[1], 2);
    assert_int_equal(slots[2], 4);
    /* Half and a quarter each: a 4-slot round, 2 + 1 + 1. */
    const double halves[3] = {b / 2, b / 4, b / 4};
    cm_multi_slots(halves, 3, b, 64, slots);
    assert_int_equal(slots[0], 2);
    assert_int_equal(slots[1], 1);
    assert_int_equal(slots[2], 1);
}

/* The paper's example: 16384, 16384 and 32768 16-bit elements over a 64-bit port (4
 * elements a cycle), bursts of 1024: 1, 2 and 4 slots move 4096, 8192 and 16384
 * elements a round, so the rounds needed are 4, 2 and 2. */
static void test_slot_rounds_paper_example(void **state)
{
    (void)state;
    assert_int_equal(cm_multi_slot_rounds(16384, 1, 1024, 4.0), 4);
    assert_int_equal(cm_multi_slot_rounds(16384, 2, 1024, 4.0), 2);
    assert_int_equal(cm_multi_slot_rounds(32768, 4, 1024, 4.0), 2);
    assert_int_equal(cm_multi_slot_rounds(16385, 1, 1024, 4.0), 5);
    assert_int_equal(cm_multi_slot_rounds(0, 1, 1024, 4.0), 0);
}

/* ---- eq. 4 ---- */

static void test_slowdown_scaling(void **state)
{
    (void)state;
    double l, b;
    cm_multi_slow_down(0.8, 10e-3, 1.0 * GB, &l, &b);
    assert_true(fabs(l - 12.5e-3) < 1e-15);
    assert_true(fabs(b - 0.8 * GB) < 1e-3);
    /* The bytes moved, L' b', are what they were. */
    assert_true(fabs(l * b - 10e-3 * GB) < 1e-3);
    cm_multi_slow_down(1.0, 10e-3, 1.0 * GB, &l, &b);
    assert_true(l == 10e-3 && b == 1.0 * GB);
    cm_multi_slow_down(0.25, 2e-3, 2.0 * GB, &l, &b);
    assert_true(fabs(l - 8e-3) < 1e-15 && fabs(b - 0.5 * GB) < 1e-3);
}

/* ---- schedulers on hand-made problems ---- */

typedef struct hand {
    cm_multi_job jobs[3];
    double lat[3][4], bytes[3][4];
    cm_multi_problem p;
} hand;

/* n jobs of one subgraph each: latency l, demand b[j] bytes/s. */
static void one_subgraph_jobs(hand *h, int n, double l, const double *b, double bandwidth)
{
    for (int j = 0; j < n; j++) {
        h->lat[j][0] = l;
        h->bytes[j][0] = b[j] * l;
        h->jobs[j] = (cm_multi_job){1, h->lat[j], h->bytes[j], 1};
    }
    h->p = (cm_multi_problem){n, h->jobs, bandwidth};
}

/* Fig. 3's situation: three subgraphs whose demands add up to 1.25 B_mem. Without
 * slow-downs at most two run together, so one waits: 20 ms. Slowed down (0.8, 0.8,
 * 0.75 in the paper) all three run at once within the bandwidth: 13.33 ms with the
 * paper's factors, 12.5 ms at best (0.8 each: the bytes over B_mem). The ILP with the
 * levels 1, 3/4, 1/2, 1/4 can reach 13.33 ms (all at 3/4: 1.8375 <= 1.96 GB/s). */
static void test_fig3_slowdowns(void **state)
{
    (void)state;
    hand h;
    const double b[3] = {0.8 * GB, 0.8 * GB, 0.85 * GB};
    one_subgraph_jobs(&h, 3, 10e-3, b, 1.96 * GB);
    cm_multi_schedule list, ilp;
    cm_error err = {0};
    assert_int_equal(cm_multi_schedule_list(&h.p, 0, &list, &err), CM_OK);
    assert_int_equal(cm_multi_schedule_ilp(&h.p, 4, 40, &ilp, &err), CM_OK);
    assert_true(ilp.optimal);
    assert_true(fabs(ilp.period_s - 10e-3 / 0.75) < 1e-9);
    assert_true(list.period_s <= ilp.period_s * (1 + 1e-9));
    assert_true(list.period_s >= 12.5e-3 * (1 - 1e-9));
    /* The schedule honours eq. 4 and the bandwidth at every start. */
    double sum = 0.0;
    for (int k = 0; k < list.n_tasks; k++) {
        const cm_multi_task *t = &list.tasks[k];
        assert_true(fabs(t->latency_s - 10e-3 / t->slowdown) < 1e-12);
        assert_true(fabs(t->bandwidth - b[t->model] * t->slowdown) < 1e-3);
        sum += t->bandwidth;
    }
    if (list.period_s < 20e-3 * (1 - 1e-9))  /* all three overlap */
        assert_true(sum <= 1.96 * GB * (1 + 1e-9));
    cm_multi_schedule_free(&list);
    cm_multi_schedule_free(&ilp);
}

/* Two chains that fit side by side need no slow-down: the period is the longer one. */
static void test_no_contention(void **state)
{
    (void)state;
    hand h;
    const double b[2] = {0.5 * GB, 0.5 * GB};
    one_subgraph_jobs(&h, 2, 4e-3, b, 1.0 * GB);
    h.jobs[1].repetitions = 3;
    cm_multi_schedule list;
    cm_error err = {0};
    assert_int_equal(cm_multi_schedule_list(&h.p, 0, &list, &err), CM_OK);
    assert_true(fabs(list.period_s - 12e-3) < 1e-12);
    assert_int_equal(list.n_tasks, 4);
    assert_int_equal(list.repetitions[1], 3);
    for (int k = 0; k < list.n_tasks; k++)
        assert_true(list.tasks[k].slowdown == 1.0);
    cm_multi_schedule_free(&list);
}

/* A small xorshift so the generated problems are the same on every machine. */
static double draw(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* Checks that no set of overlapping executions needs more than the bandwidth: at
 * each start, the demands of the executions running then (an overlap below a
 * millionth of the period is the solver's tolerance, not an overlap). */
static void assert_fits(const cm_multi_schedule *s, double bandwidth)
{
    const double tol = 1e-6 * s->period_s;
    for (int k = 0; k < s->n_tasks; k++) {
        double t = s->tasks[k].start_s, load = 0.0;
        for (int i = 0; i < s->n_tasks; i++) {
            const cm_multi_task *o = &s->tasks[i];
            if (o->start_s <= t + tol && t < o->start_s + o->latency_s - tol)
                load += o->bandwidth;
        }
        assert_true(load <= bandwidth * (1 + 1e-6));
    }
}

/* Generated small problems (two networks of 1-3 subgraphs and 1-2 repetitions, or
 * three of 1-2 subgraphs; demands 10-90% of the bandwidth). Both schedules respect
 * the bandwidth and the ILP is never beaten by more than rounding (it is exact over
 * its four levels, the list scheduler's finer slow-downs may beat it). The list
 * scheduler never leaves a fitting task waiting, so where the optimum delays one it
 * is behind: the test bounds that gap (18% at worst on these, 2% on average). */
static void test_list_against_ilp(void **state)
{
    (void)state;
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    double sum = 0.0, worst = 0.0;
    for (int trial = 0; trial < 40; trial++) {
        hand h;
        int n = 2 + trial % 2;
        for (int j = 0; j < n; j++) {
            int subs = 1 + (int)(draw(&seed) * (n == 2 ? 3 : 2));
            for (int s = 0; s < subs; s++) {
                h.lat[j][s] = (0.5 + draw(&seed)) * 1e-3;
                h.bytes[j][s] = (0.1 + 0.8 * draw(&seed)) * GB * h.lat[j][s];
            }
            int reps = n == 2 ? 1 + (int)(draw(&seed) * 2) : 1;
            h.jobs[j] = (cm_multi_job){subs, h.lat[j], h.bytes[j], reps};
        }
        h.p = (cm_multi_problem){n, h.jobs, 1.0 * GB};
        cm_multi_schedule list, ilp;
        cm_error err = {0};
        assert_int_equal(cm_multi_schedule_list(&h.p, 0, &list, &err), CM_OK);
        assert_int_equal(cm_multi_schedule_ilp(&h.p, 4, 24, &ilp, &err), CM_OK);
        assert_true(ilp.optimal);
        assert_fits(&list, 1.0 * GB);
        assert_fits(&ilp, 1.0 * GB);
        double ratio = list.period_s / ilp.period_s;
        sum += ratio;
        worst = fmax(worst, ratio);
        cm_multi_schedule_free(&list);
        cm_multi_schedule_free(&ilp);
    }
    assert_true(worst <= 1.20);
    assert_true(sum / 40 <= 1.03);
}

static void test_ilp_refuses_large(void **state)
{
    (void)state;
    hand h;
    const double b[2] = {0.5 * GB, 0.7 * GB};
    one_subgraph_jobs(&h, 2, 1e-3, b, 1.0 * GB);
    h.jobs[0].repetitions = 30;
    h.jobs[1].repetitions = 20;
    cm_multi_schedule s;
    cm_error err = {0};
    assert_int_equal(cm_multi_schedule_ilp(&h.p, 4, 40, &s, &err), CM_EINFEASIBLE);
    assert_non_null(strstr(err.message, "50"));
    assert_non_null(strstr(err.message, "40"));
}

/* ---- the whole flow on zoo models ---- */

typedef struct zoo_set {
    cm_graph *g[4];
    cm_multi_input in[4];
    int n;
} zoo_set;

static void load_set(zoo_set *z, const char *const *names, const double *fps, int n)
{
    z->n = n;
    for (int i = 0; i < n; i++) {
        char path[1024];
        cm_test_generated_model(names[i], path, sizeof path);
        cm_error err = {0};
        if (cm_model_load(path, &z->g[i], &err) != CM_OK)
            fail_msg("%s", err.message);
        z->in[i] = (cm_multi_input){z->g[i], names[i], fps ? fps[i] : 0.0};
    }
}

static void free_set(zoo_set *z)
{
    for (int i = 0; i < z->n; i++)
        cm_graph_free(z->g[i]);
}

static cm_multi_result *map(const zoo_set *z, const cm_board *b, cm_multi_objective obj,
                            cm_multi_scheduler sched, double gbps)
{
    cm_multi_options o;
    cm_multi_options_init(&o);
    o.objective = obj;
    o.scheduler = sched;
    o.bandwidth_gbps = gbps;
    cm_multi_result *r = NULL;
    cm_error err = {0};
    if (cm_multi_map(z->in, z->n, b, &o, &r, &err) != CM_OK)
        fail_msg("%s", err.message);
    return r;
}

static void zc706(cm_board *b)
{
    cm_error err = {0};
    assert_int_equal(cm_board_builtin("zc706", b, &err), CM_OK);
}

/* Eq. 5 or 6 recomputed from the reported rates. */
static double objective_of(const cm_multi_result *r)
{
    double v = 0.0;
    for (int i = 0; i < r->n_models; i++) {
        const cm_multi_model *m = &r->models[i];
        double norm = r->objective == CM_MULTI_FPS ? m->target_fps : m->max_fps;
        v += (m->fps / norm - 1.0) * (m->fps / norm - 1.0);
    }
    return v;
}

/* f-CNNx Table II: LeNet and CIFAR-10 (two CNNs at 0.5 and 3.8 GB/s; LeNet and two
 * CIFAR-10 at 1.5 and 3.8 GB/s), MaxThrpt. The list scheduler reaches the ILP's
 * objective and neither is worse than the contention-unaware baseline. */
static void test_table2_list_reaches_ilp(void **state)
{
    (void)state;
    static const char *const names[] = {"zoo/lenet_zoo.onnx", "zoo/cifar10_quick.onnx",
                                        "zoo/cifar10_quick.onnx"};
    static const struct { int n; double gbps; } cases[] = {{2, 0.5}, {2, 3.8}, {3, 1.5}, {3, 3.8}};
    cm_board b;
    zc706(&b);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        zoo_set z;
        load_set(&z, names, NULL, cases[c].n);
        cm_multi_result *list = map(&z, &b, CM_MULTI_THROUGHPUT, CM_MULTI_LIST, cases[c].gbps);
        cm_multi_result *ilp = map(&z, &b, CM_MULTI_THROUGHPUT, CM_MULTI_ILP, cases[c].gbps);
        printf("%d CNNs at %.1f GB/s: list %.6f, ilp %.6f, baseline %.6f\n", cases[c].n,
               cases[c].gbps, list->objective_value, ilp->objective_value,
               list->baseline_objective_value);
        assert_true(list->objective_value <= ilp->objective_value * (1 + 1e-9) + 1e-12);
        assert_true(list->objective_value <= list->baseline_objective_value + 1e-12);
        assert_true(ilp->objective_value <= ilp->baseline_objective_value + 1e-12);
        assert_true(fabs(objective_of(list) - list->objective_value) < 1e-9);
        cm_multi_result_free(list);
        cm_multi_result_free(ilp);
        free_set(&z);
    }
}

/* Where bandwidth binds (0.5 GB/s for LeNet and CIFAR-10) the scheduled design beats
 * the baseline; the engines fit the board together; the same input gives the same
 * design file. */
static void test_bandwidth_bound_beats_baseline(void **state)
{
    (void)state;
    static const char *const names[] = {"zoo/lenet_zoo.onnx", "zoo/cifar10_quick.onnx"};
    cm_board b;
    zc706(&b);
    zoo_set z;
    load_set(&z, names, NULL, 2);
    cm_multi_result *r = map(&z, &b, CM_MULTI_THROUGHPUT, CM_MULTI_LIST, 0.5);
    cm_multi_result *again = map(&z, &b, CM_MULTI_THROUGHPUT, CM_MULTI_LIST, 0.5);
    assert_true(r->objective_value < r->baseline_objective_value * 0.99);
    assert_true(cm_resources_fit(&r->resources, &b.resources));
    char *j1 = cm_multi_design_json(r), *j2 = cm_multi_design_json(again);
    assert_non_null(j1);
    assert_string_equal(j1, j2);
    assert_non_null(strstr(j1, "slot_table"));
    char *md = cm_multi_report_md(r);
    assert_non_null(strstr(md, "slot table"));
    free(md);
    free(j1);
    free(j2);
    cm_multi_result_free(r);
    cm_multi_result_free(again);
    free_set(&z);
}

/* Table III's set (ZFNet 25 fps, SceneLabelCNN 25 fps, VGG16 4 fps, FPSobj) at 1.0 GB/s:
 * better than the baseline; every target capped by the attainable maximum. */
static void test_table3_low_bandwidth(void **state)
{
    (void)state;
    static const char *const names[] = {"zoo/zfnet.onnx", "zoo/scenelabel.onnx",
                                        "zoo/vgg16_fe.onnx"};
    static const double fps[] = {25, 25, 4};
    cm_board b;
    zc706(&b);
    zoo_set z;
    load_set(&z, names, fps, 3);
    cm_multi_result *r = map(&z, &b, CM_MULTI_FPS, CM_MULTI_LIST, 1.0);
    assert_true(r->objective_value < r->baseline_objective_value);
    for (int i = 0; i < 3; i++) {
        const cm_multi_model *m = &r->models[i];
        assert_true(m->target_fps == fmin(fps[i], m->max_fps));
        assert_true(m->fps <= m->target_fps * (1 + 1e-12));
        assert_true(fabs(m->gops - m->fps * m->gop) < 1e-9);
    }
    assert_true(fabs(objective_of(r) - r->objective_value) < 1e-9);
    cm_multi_result_free(r);
    free_set(&z);
}

/* A board too small for the networks together: refused, naming the resource. */
static void test_too_many_networks(void **state)
{
    (void)state;
    static const char *const names[] = {"zoo/cifar10_quick.onnx", "zoo/cifar10_quick.onnx",
                                        "zoo/cifar10_quick.onnx", "zoo/cifar10_quick.onnx"};
    cm_board b;
    zc706(&b);
    b.resources.dsp /= 12;
    b.resources.bram18 /= 12;
    b.resources.lut /= 12;
    b.resources.ff /= 12;
    zoo_set z;
    load_set(&z, names, NULL, 4);
    cm_multi_options o;
    cm_multi_options_init(&o);
    cm_multi_result *r = NULL;
    cm_error err = {0};
    assert_int_equal(cm_multi_map(z.in, 4, &b, &o, &r, &err), CM_EINFEASIBLE);
    assert_null(r);
    printf("%s\n", err.message);
    assert_true(strstr(err.message, "DSP") || strstr(err.message, "BRAM18") ||
                strstr(err.message, "LUT") || strstr(err.message, "FF"));
    o.bandwidth_gbps = -1;
    assert_int_equal(cm_multi_map(z.in, 4, &b, &o, &r, &err), CM_EUSAGE);
    cm_multi_options_init(&o);
    assert_int_equal(cm_multi_map(z.in, 1, &b, &o, &r, &err), CM_EUSAGE);
    free_set(&z);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slot_shares_paper_example),
        cmocka_unit_test(test_slots_from_demand),
        cmocka_unit_test(test_slot_rounds_paper_example),
        cmocka_unit_test(test_slowdown_scaling),
        cmocka_unit_test(test_fig3_slowdowns),
        cmocka_unit_test(test_no_contention),
        cmocka_unit_test(test_list_against_ilp),
        cmocka_unit_test(test_ilp_refuses_large),
        cmocka_unit_test(test_table2_list_reaches_ilp),
        cmocka_unit_test(test_bandwidth_bound_beats_baseline),
        cmocka_unit_test(test_table3_low_bandwidth),
        cmocka_unit_test(test_too_many_networks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
