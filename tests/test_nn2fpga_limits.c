/* nn2FPGA time limits and bounds (issue 20): a program whose deadline has passed is not
 * handed to GLPK and says it stopped early; the bisection stops at its deadline with no
 * design rather than failing; an optimisation cut short by its time limit returns a
 * design that fits, not proven optimal, never faster than the optimum; boards that even
 * the minimal design exceeds are refused by the bounds before any program (with a time
 * limit that would stop every program, the refusal is still the bound's), and the
 * message gives the board's own figure and what the skip buffers take of it. */
#include "test_support.h"

#include <cnnmap/board.h>
#include <cnnmap/model.h>
#include <cnnmap/nn2fpga.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn2fpga/n2_internal.h"


static cm_board board_named(const char *name)
{
    cm_board b;
    cm_error err = {0};
    if (cm_board_builtin(name, &b, &err) != CM_OK)
        fail_msg("%s", err.message);
    return b;
}

/* G of ResNet8 with its space on the KV260, as cm_nn2fpga_optimise builds them. */
typedef struct fixture {
    cm_graph *g;
    cm_board board;
    cm_nn2fpga_result r;
    n2_budget b;
    n2_space sp;
} fixture;

static void fixture_init(fixture *f)
{
    f->g = cm_test_load_shared("resnet8_a8w8b16.onnx");
    f->board = board_named("kv260");
    cm_nn2fpga_options o;
    cm_nn2fpga_options_init(&o);
    cm_error err = {0};
    assert_int_equal(cm_nn2fpga_build(f->g, &o, &f->r, &err), CM_OK);
    f->b = (n2_budget){f->board.resources.dsp, f->board.resources.bram18 - f->r.bram_skip,
                       f->board.resources.uram, f->r.bram_skip};
    assert_int_equal(n2_space_build(&f->r, &f->board, &f->b, false, &f->sp, &err), CM_OK);
}

static void fixture_free(fixture *f)
{
    n2_space_free(&f->sp);
    cm_nn2fpga_result_free(&f->r);
    cm_graph_free(f->g);
}

/* A deadline in the past: the program is built but not solved, and says so. */
static void test_program_past_deadline(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f);
    n2_solve_options so = {.deadline = n2_now() - 1.0};
    int *choice = calloc((size_t)f.sp.n_layers, sizeof *choice);
    bool feasible = true, found = true;
    cm_nn2fpga_phase ph = {0};
    cm_error err = {0};
    /* the largest candidate period admits every configuration: feasible if solved */
    assert_int_equal(n2_phase2(&f.sp, &f.b, &so, INT64_MAX / 2, true, choice, &feasible, &ph, &err),
                     CM_OK);
    assert_false(feasible);
    assert_true(ph.stopped_early);
    assert_false(ph.optimal);
    assert_int_equal(ph.programs, 1);
    /* the bisection stops before its first probe, with no design and no error */
    cm_nn2fpga_phase ph1 = {0};
    assert_int_equal(n2_bisect(&f.sp, &f.b, &so, choice, &found, &ph1, &err), CM_OK);
    assert_false(found);
    assert_true(ph1.stopped_early);
    assert_int_equal(ph1.programs, 0);
    cm_nn2fpga_phase ph1x = {0};
    assert_int_equal(n2_phase1(&f.sp, &f.b, &so, choice, &found, &ph1x, &err), CM_OK);
    assert_false(found);
    assert_true(ph1x.stopped_early);
    /* with time, the same program is solved and proven */
    so.deadline = INFINITY;
    cm_nn2fpga_phase ph2 = {0};
    assert_int_equal(n2_phase2(&f.sp, &f.b, &so, INT64_MAX / 2, true, choice, &feasible, &ph2, &err),
                     CM_OK);
    assert_true(feasible);
    assert_false(ph2.stopped_early);
    assert_true(ph2.optimal);
    free(choice);
    fixture_free(&f);
}

static int64_t max_latency(const cm_nn2fpga_result *r)
{
    int64_t s = 0;
    for (int t = 0; t < r->n_layers; t++) {
        const cm_nn2fpga_layer *l = &r->layers[t];
        int64_t v = l->lc > l->lw ? l->lc : l->lw;
        s = v > s ? v : s;
    }
    return s;
}

/* MobileNetV2 on the ZCU102 takes its bisection half a second (README); a millisecond
 * stops it. The design returned still fits the board, keeps S equal to its slowest
 * layer and is never faster than the proven optimum. */
static void test_time_limited_design(void **state)
{
    (void)state;
    cm_graph *g = cm_test_load_shared("mobilenet_v2_a8w6b32.onnx");
    cm_board board = board_named("zcu102");
    cm_nn2fpga_options o;
    cm_nn2fpga_options_init(&o);
    cm_nn2fpga_result best, cut;
    cm_error err = {0};
    assert_int_equal(cm_nn2fpga_optimise(g, &board, &o, &best, &err), CM_OK);
    assert_true(best.optimal);
    assert_false(best.stopped_early);
    o.time_limit_s = 1e-3;
    assert_int_equal(cm_nn2fpga_optimise(g, &board, &o, &cut, &err), CM_OK);
    assert_true(cut.stopped_early);
    assert_true(cut.phases[0].stopped_early);
    assert_false(cut.optimal);
    assert_false(cut.phases[0].optimal);
    assert_true(cut.dsp <= board.resources.dsp);
    assert_true(cut.bram18 <= board.resources.bram18);
    assert_true(cut.uram <= board.resources.uram);
    assert_int_equal(cut.period, max_latency(&cut));
    assert_true(cut.period >= best.period);
    assert_true(cut.period <= cut.period_phase1);
    cm_nn2fpga_result_free(&best);
    cm_nn2fpga_result_free(&cut);
    cm_graph_free(g);
}

/* Optimises with a limit so short that any program would be stopped: a refusal that
 * still comes with the bound's words came before any program. */
static cm_status refuse(const cm_graph *g, const cm_board *board, cm_nn2fpga_solver solver,
                        cm_error *err)
{
    cm_nn2fpga_options o;
    cm_nn2fpga_options_init(&o);
    o.solver = solver;
    o.time_limit_s = 1e-9;
    cm_nn2fpga_result r;
    cm_status st = cm_nn2fpga_optimise(g, board, &o, &r, err);
    if (st == CM_OK)
        cm_nn2fpga_result_free(&r);
    return st;
}

/* The DSP bound: every layer at unroll factor 1 (as G is built) summed. One DSP short of
 * it is refused by every optimiser; with exactly that many DSPs the bound passes. */
static void test_dsp_bound(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f);
    int64_t need = 0;
    for (int t = 0; t < f.r.n_layers; t++)
        need += f.r.layers[t].dsp;
    cm_board small = f.board;
    small.resources.dsp = need - 1;
    f.b.dsp = need - 1;
    char want[512];
    snprintf(want, sizeof want, "no feasible design: even the minimal design's layers need %lld "
             "DSP; kv260 has %lld DSP", (long long)need, (long long)(need - 1));
    cm_error err = {0};
    assert_int_equal(n2_check_bounds(&f.r, &small, &f.b, &err), CM_EINFEASIBLE);
    assert_string_equal(err.message, want);
    const cm_nn2fpga_solver solvers[] = {CM_NN2FPGA_BIP, CM_NN2FPGA_EXACT, CM_NN2FPGA_NONE};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(refuse(f.g, &small, solvers[i], &err), CM_EINFEASIBLE);
        assert_string_equal(err.message, want);
    }
    f.b.dsp = small.resources.dsp = need;
    assert_int_equal(n2_check_bounds(&f.r, &small, &f.b, &err), CM_OK);
    fixture_free(&f);
}

/* BRAM18: the skip buffers alone, then the layers' least summed, with the board's own
 * figure and what the skip buffers take of it (not the remainder as the board's). */
static void test_bram_bound_message(void **state)
{
    (void)state;
    cm_graph *g = cm_test_load_shared("resnet20_a8w8b16.onnx");
    cm_board board = board_named("zcu102"); /* no URAM: weights stay in BRAM18 */
    cm_nn2fpga_options o;
    cm_nn2fpga_options_init(&o);
    cm_nn2fpga_result r;
    cm_error err = {0};
    assert_int_equal(cm_nn2fpga_build(g, &o, &r, &err), CM_OK);
    int64_t skip = r.bram_skip, widest = 0;
    assert_true(skip > 0);
    for (int t = 0; t < r.n_layers; t++) {
        int64_t v = r.layers[t].bram_weights + r.layers[t].bram_window;
        widest = v > widest ? v : widest;
    }
    char want[512];
    board.resources.bram18 = skip - 1;
    assert_int_equal(refuse(g, &board, CM_NN2FPGA_BIP, &err), CM_EINFEASIBLE);
    snprintf(want, sizeof want, "no feasible design: the skip buffers alone need %lld BRAM18; "
             "zcu102 has %lld BRAM18", (long long)skip, (long long)(skip - 1));
    assert_string_equal(err.message, want);
    /* every layer fits on its own at unroll factor 1, all of them together do not */
    board.resources.bram18 = skip + widest;
    snprintf(want, sizeof want, "; zcu102 has %lld BRAM18, %lld of them taken by the skip "
             "buffers, which leaves %lld for the layers' weights and window buffers",
             (long long)(skip + widest), (long long)skip, (long long)widest);
    const cm_nn2fpga_solver solvers[] = {CM_NN2FPGA_BIP, CM_NN2FPGA_EXACT, CM_NN2FPGA_NONE};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(refuse(g, &board, solvers[i], &err), CM_EINFEASIBLE);
        assert_non_null(strstr(err.message, "no feasible design: even the minimal design's "
                                            "layers need "));
        assert_non_null(strstr(err.message, " BRAM18 for weights and window buffers"));
        assert_non_null(strstr(err.message, want));
    }
    cm_nn2fpga_result_free(&r);
    cm_graph_free(g);
}

/* The bisection's quick verdicts (n2_quick.c) on a space worked by hand. Two layers,
 * budget 5 DSP and 2 BRAM18:
 *   layer 0: A (latency 10, 4 DSP, 0 BRAM), B (20, 1 DSP, 2 BRAM)
 *   layer 1: C (10, 3 DSP, 1 BRAM),         D (30, 1 DSP, 0 BRAM)
 * S = 10: only A and C, 7 DSP > 5: infeasible by the bound.
 * S = 20: the least use (B's 1 DSP + C's 3; A's 0 BRAM + C's 1) passes the bound, but
 *   A+C needs 7 DSP and B+C 3 BRAM: truly infeasible, and no choice fits, so the quick
 *   verdict must stay unknown (the program decides).
 * S = 30: A+D fits (5 DSP, 0 BRAM): feasible, with that choice. */
static void test_quick_verdicts(void **state)
{
    (void)state;
    n2_config cfg[4] = {{.lc = 10, .lw = 0, .dsp = 4, .bram = 0},
                        {.lc = 20, .lw = 0, .dsp = 1, .bram = 2},
                        {.lc = 10, .lw = 0, .dsp = 3, .bram = 1},
                        {.lc = 0, .lw = 30, .dsp = 1, .bram = 0}};
    int first[3] = {0, 2, 4};
    n2_space sp = {.n_layers = 2, .first = first, .cfg = cfg, .n_cfg = 4};
    n2_budget b = {.dsp = 5, .bram = 2, .uram = 0};
    int choice[2] = {-1, -1};
    assert_int_equal(n2_quick_verdict(&sp, &b, 10, choice), N2_INFEASIBLE);
    assert_int_equal(n2_quick_verdict(&sp, &b, 20, choice), N2_UNKNOWN);
    assert_int_equal(n2_quick_verdict(&sp, &b, 30, choice), N2_FEASIBLE);
    assert_int_equal(choice[0], 0);
    assert_int_equal(choice[1], 3);
}

/* On ResNet8's space on the KV260, every verdict the quick check gives agrees with the
 * integer program's at the same period (GLPK, proven), over a spread of candidate
 * periods from the fastest to the slowest configuration. */
static void test_quick_verdicts_agree_with_glpk(void **state)
{
    (void)state;
    fixture f;
    fixture_init(&f);
    int64_t lo = INT64_MAX, hi = 0;
    for (int k = 0; k < f.sp.n_cfg; k++) {
        int64_t v = n2_config_latency(&f.sp.cfg[k]);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    int *choice = calloc((size_t)f.sp.n_layers, sizeof *choice);
    int *quick_choice = calloc((size_t)f.sp.n_layers, sizeof *quick_choice);
    int decided = 0;
    n2_solve_options so = {.deadline = INFINITY};
    for (int step = 0; step <= 24; step++) {
        int64_t period = lo + (int64_t)((double)(hi - lo) * pow((double)step / 24.0, 3.0));
        n2_verdict v = n2_quick_verdict(&f.sp, &f.b, period, quick_choice);
        bool feasible = false;
        cm_nn2fpga_phase ph = {0};
        cm_error err = {0};
        assert_int_equal(n2_phase2(&f.sp, &f.b, &so, period, false, choice, &feasible, &ph, &err),
                         CM_OK);
        assert_false(ph.stopped_early);
        if (v == N2_UNKNOWN)
            continue;
        decided++;
        assert_int_equal(v == N2_FEASIBLE, feasible);
        if (v == N2_FEASIBLE) { /* the choice is within S and fits */
            int64_t dsp = 0, bram = 0, uram = 0;
            for (int t = 0; t < f.sp.n_layers; t++) {
                const n2_config *c = &f.sp.cfg[quick_choice[t]];
                assert_true(quick_choice[t] >= f.sp.first[t] && quick_choice[t] < f.sp.first[t + 1]);
                assert_true(n2_config_latency(c) <= period);
                dsp += c->dsp;
                bram += c->bram;
                uram += c->uram_banks;
            }
            assert_true(dsp <= f.b.dsp && bram <= f.b.bram && uram <= f.b.uram);
        }
    }
    assert_true(decided >= 20); /* most probes need no program */
    free(choice);
    free(quick_choice);
    fixture_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_program_past_deadline),
        cmocka_unit_test(test_time_limited_design),
        cmocka_unit_test(test_dsp_bound),
        cmocka_unit_test(test_bram_bound_message),
        cmocka_unit_test(test_quick_verdicts),
        cmocka_unit_test(test_quick_verdicts_agree_with_glpk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
