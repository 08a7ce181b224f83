/* The cycle-level dataflow engine (src/sim/engine.h) on small graphs whose schedules are
 * worked out by hand in the comments from the timing semantics at the top of engine.h:
 * an iteration started at t reads at t and writes at t + latency; the next starts no
 * earlier than t + ii; a word written at w is readable from w; in a stream of depth D,
 * word n may be written at w only when word n - D was read before w, so a start t needs
 * t >= read(n - D) + 1 - latency for the last word n it writes. Sources (ii 1) start
 * iteration k at k and write word k at k + 1. Latency is out[0] - in[0], interval is
 * out[N-1] - out[N-2]. Occupancy is counted just after a write: words written up to w
 * less words read before w (the count the depth rule bounds). Random graphs are then
 * checked against an independent reference: the least solution of the same inequalities
 * by fixpoint iteration. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine.h"

/* ---- building graphs ---- */

static sim_seg seg(int64_t count, int32_t ii, int32_t latency, const int32_t rd[SIM_MAX_PORTS],
                   const int32_t wr[SIM_MAX_PORTS])
{
    sim_seg s = sim_seg_make(count, 0, 0);
    s.ii = ii;
    s.latency = latency;
    memcpy(s.rd, rd, sizeof s.rd);
    memcpy(s.wr, wr, sizeof s.wr);
    return s;
}

static sim_op run_op(sim_seg s)
{
    sim_op op = {.kind = SIM_RUN, .seg = s};
    return op;
}

static sim_op loop_op(int64_t count, int body)
{
    sim_op op = {.kind = SIM_LOOP, .count = count, .body = body};
    return op;
}

static int add_loops(sim_graph *g, const char *name, const char *kind, const int *in, int n_in,
                     const int *out, int n_out, const sim_op *ops, int n_ops)
{
    sim_program p;
    cm_error err = {0};
    assert_int_equal(sim_program_loops(ops, n_ops, &p, &err), CM_OK);
    int t = sim_task_add(g, name, kind, in, n_in, out, n_out, p);
    assert_true(t >= 0);
    return t;
}

/* A task of one port in, one port out: `count` iterations per frame of 1 word in, 1 out. */
static int add_simple(sim_graph *g, const char *name, int in, int out, int64_t count, int32_t ii,
                      int32_t latency)
{
    const int32_t one[SIM_MAX_PORTS] = {1};
    sim_op op = run_op(seg(count, ii, latency, one, one));
    return add_loops(g, name, "task", &in, 1, &out, 1, &op, 1);
}

static sim_graph *new_graph(void)
{
    sim_graph *g = sim_graph_new();
    assert_non_null(g);
    return g;
}

static int stream(sim_graph *g, const char *name, int64_t depth)
{
    int s = sim_stream_add(g, name, depth);
    assert_true(s >= 0);
    return s;
}

static void run(const sim_graph *g, int frames, bool unbounded, sim_run_result *r)
{
    sim_run_options o = {.frames = frames, .unbounded = unbounded};
    cm_error err = {0};
    memset(r, 0, sizeof *r);
    assert_int_equal(sim_run(g, &o, r, &err), CM_OK);
    assert_int_equal(r->frames, frames);
}

/* ---- (a) two tasks of known interval and latency ----
 * source -> s0 -> A (ii 1, latency 3) -> s1 -> B (ii 2, latency 1) -> s2 -> sink (ii 1),
 * N = 4 words per frame, every stream unbounded. With g the word's index over all frames:
 *   source writes s0[g] at g + 1;
 *   A starts a_g = max(a_{g-1} + 1, g + 1) = g + 1 (reads s0[g] then), writes s1[g] at g + 4;
 *   B starts b_g = max(b_{g-1} + 2, g + 4): b_0 = 4 and 4 + 2g >= g + 4, so b_g = 4 + 2g;
 *     writes s2[g] at 5 + 2g;
 *   the sink starts c_g = max(c_{g-1} + 1, 5 + 2g) = 5 + 2g: out[f] = 5 + 2(4f + 3).
 * in[f] = a_{4f} = 4f + 1. Frame 0: in 1, out 11, latency 10 (= 2N + 2).
 * Three frames: out = 11, 19, 27; interval 8 (= N * B's ii), latency still 10.
 * A runs 12 iterations busy 12 cycles, B 12 busy 24; the last iteration to end is B's
 * (b_11 = 26, + ii 2 = 28) or the sink's (c_11 = 27, + 1 = 28): end_cycle 28. */
typedef struct chain {
    sim_graph *g;
    int s0, s1, s2, src, a, b, sink;
} chain;

static void chain_build(chain *c, int64_t depth_ab, int32_t ii_b)
{
    c->g = new_graph();
    c->s0 = stream(c->g, "s0", SIM_UNBOUNDED);
    c->s1 = stream(c->g, "s1", depth_ab);
    c->s2 = stream(c->g, "s2", SIM_UNBOUNDED);
    c->src = sim_source_add(c->g, "src", c->s0, 4, 1);
    c->a = add_simple(c->g, "A", c->s0, c->s1, 4, 1, 3);
    c->b = add_simple(c->g, "B", c->s1, c->s2, 4, ii_b, 1);
    c->sink = sim_sink_add(c->g, "sink", c->s2, 4, 1);
    assert_true(c->src >= 0 && c->sink >= 0);
}

static void test_chain_one_frame(void **state)
{
    (void)state;
    chain c;
    chain_build(&c, SIM_UNBOUNDED, 2);
    sim_run_result r;
    run(c.g, 1, false, &r);
    assert_false(r.deadlock);
    assert_int_equal(r.in_first[0], 1);
    assert_int_equal(r.out_last[0], 11);
    assert_int_equal(r.latency_cycles, 10);
    assert_int_equal(r.interval_cycles, 0); /* one frame: no interval */
    assert_int_equal(r.n_tasks, 4);
    assert_int_equal(r.n_streams, 3);
    assert_int_equal(r.tasks[c.a].iterations, 4);
    assert_int_equal(r.tasks[c.b].iterations, 4);
    assert_int_equal(r.tasks[c.b].busy_cycles, 8);
    /* b_3 = 10, + ii 2; the sink: c_3 = 11, + 1 */
    assert_int_equal(r.end_cycle, 12);
    assert_int_equal(r.streams[c.s1].words, 4);
    /* s1[g] at g + 4, s2[g] at 5 + 2g */
    assert_int_equal(r.streams[c.s1].first_write, 4);
    assert_int_equal(r.streams[c.s1].last_write, 7);
    assert_int_equal(r.streams[c.s2].first_write, 5);
    assert_int_equal(r.streams[c.s2].last_write, 11);
    sim_run_result_free(&r);
    sim_graph_free(c.g);
}

static void test_chain_three_frames(void **state)
{
    (void)state;
    chain c;
    chain_build(&c, SIM_UNBOUNDED, 2);
    sim_run_result r;
    run(c.g, 3, false, &r);
    assert_false(r.deadlock);
    const int64_t in[3] = {1, 5, 9}, out[3] = {11, 19, 27};
    for (int f = 0; f < 3; f++) {
        assert_int_equal(r.in_first[f], in[f]);
        assert_int_equal(r.out_last[f], out[f]);
    }
    assert_int_equal(r.latency_cycles, 10);
    assert_int_equal(r.interval_cycles, 8);
    assert_int_equal(r.tasks[c.a].iterations, 12);
    assert_int_equal(r.tasks[c.a].busy_cycles, 12);
    assert_int_equal(r.tasks[c.b].iterations, 12);
    assert_int_equal(r.tasks[c.b].busy_cycles, 24);
    assert_int_equal(r.tasks[c.a].blocked_cycles, 0); /* nothing bounds its output */
    assert_int_equal(r.end_cycle, 28);
    assert_int_equal(r.iterations, 4 * 12); /* source, A, B and sink: 12 each */
    sim_run_result_free(&r);
    sim_graph_free(c.g);
}

/* ---- (b) a FIFO of depth 1 between a fast A and a slow B (ii 3) ----
 * Unbounded: a_k = k + 1, s1[k] written at k + 4, b_k = max(b_{k-1} + 3, k + 4) = 4 + 3k,
 * s2[k] at 5 + 3k, read by the sink then. N = 4: out[0] = 14, latency 13. s1's occupancy
 * after the write at k + 4 is k + 1 less the reads before k + 4 (at 4, 7, 10, 13): after
 * word 3 (at 7) only word 0 was read, so the most is 3.
 * Depth 1: A's write of s1[k] at a_k + 3 needs s1[k-1] read before it, a_k >= b_{k-1} - 2.
 *   a_0 = 1 (write 4), b_0 = 4;  a_1 = max(2, 2, 2) = 2 (write 5), b_1 = max(7, 5) = 7;
 *   a_2 = max(3, 3, 5) = 5 (write 8), b_2 = 10;  a_3 = max(6, 4, 8) = 8 (write 11), b_3 = 13.
 *   B's starts are those of the unbounded run (it is the bottleneck), so latency 13 again;
 *   A waits 2 cycles for room at k = 2 and k = 3 (inputs were there at a_{k-1} + 1): 4
 *   blocked cycles, on s1; s1 never holds more than 1 word.
 * Three frames (g = 0..11): b_g = 4 + 3g in both runs, out = 14, 26, 38, interval 12; at
 * depth 1, a_g = b_{g-1} - 2 = 3g - 1 for g >= 2, 2 cycles over a_{g-1} + 1 each time:
 * 2 * 10 = 20 blocked cycles. */
static void test_depth_one_fifo(void **state)
{
    (void)state;
    chain c;
    chain_build(&c, 1, 3);
    sim_run_result r;

    run(c.g, 1, true, &r);
    assert_int_equal(r.latency_cycles, 13);
    assert_int_equal(r.streams[c.s1].max_occupancy, 3);
    assert_int_equal(r.tasks[c.a].blocked_cycles, 0);
    sim_run_result_free(&r);

    run(c.g, 1, false, &r);
    assert_false(r.deadlock);
    assert_int_equal(r.out_last[0], 14);
    assert_int_equal(r.latency_cycles, 13);
    assert_int_equal(r.streams[c.s1].max_occupancy, 1);
    assert_int_equal(r.tasks[c.a].blocked_cycles, 4);
    assert_int_equal(r.tasks[c.a].blocked_on, c.s1);
    assert_int_equal(r.tasks[c.b].blocked_cycles, 0);
    sim_run_result_free(&r);

    run(c.g, 3, false, &r);
    assert_int_equal(r.out_last[1], 26);
    assert_int_equal(r.out_last[2], 38);
    assert_int_equal(r.latency_cycles, 13);
    assert_int_equal(r.interval_cycles, 12);
    assert_int_equal(r.tasks[c.a].blocked_cycles, 20);
    assert_int_equal(r.streams[c.s1].max_occupancy, 1);
    sim_run_result_free(&r);
    sim_graph_free(c.g);
}

/* ---- (c) a fork and a join with unequal branch latencies ----
 * source -> s0 -> F (ii 1, latency 1, 1 word in, 1 word out on each of s1 and s2);
 * short branch: s1 straight to J; long branch: s2 -> L (ii 1, latency 10) -> s3 -> J;
 * J (ii 1, latency 1) reads one word of s1 and one of s3 -> s4 -> sink. N = 8.
 * Unbounded: f_g = g + 1, writes s1[g] and s2[g] at g + 2; l_g = g + 2, s3[g] at g + 12;
 *   j_g = max(j_{g-1} + 1, g + 2, g + 12) = g + 12, s4[g] at g + 13 = the sink's read.
 *   in[0] = 1, out[f] = 13 + 8f + 7: latency 19, interval 8 (= N).
 *   s1 is read 10 cycles after it is written: after the write of s1[g] at g + 2, words
 *   h <= g - 11 have been read (at h + 12 < g + 2), so it holds min(g + 1, 11): 11 once
 *   g >= 10 (three frames: 24 words), 8 in one frame. s0, s2, s3 and s4 are read in the
 *   cycle they are written: 1 each.
 * s1 of depth D: F's write at f_g + 1 needs s1[g-D] read before it, f_g >= j_{g-D}.
 *   D >= 11 keeps the unbounded schedule (j_{g-11} = g + 1 = f_g), e.g. D = 16.
 *   D = 1: f_g = j_{g-1}, l_g = f_g + 1, j_g = max(f_g + 1, f_g + 11) = f_g + 11, so
 *   j_g = 12 + 11g: every word costs the whole loop F -> L -> J -> F. Sink at 13 + 11g:
 *   one frame out[0] = 90, latency 89 (= 11N + 1); three frames out = 90, 178, 266,
 *   interval 88 (= 11N). F waits j_{g-1} - (f_{g-1} + 1) = 10 cycles for room for each
 *   g >= 1: 70 blocked cycles in one frame, on s1; J waits for s3 (10 cycles past s1 each
 *   time).
 *   D = 10 is just short: f_g = max(f_{g-1} + 1, f_{g-10} + 11) = g + 1 + floor(g / 10),
 *   frame 1 ends at g = 15 (f 17), frame 2 at g = 23 (f 26): interval 9, latency 19. */
typedef struct forkjoin {
    sim_graph *g;
    int s[5], src, f, l, j, sink;
} forkjoin;

static void forkjoin_build(forkjoin *c, int64_t depth_short)
{
    c->g = new_graph();
    c->s[0] = stream(c->g, "s0", SIM_UNBOUNDED);
    c->s[1] = stream(c->g, "short", depth_short);
    c->s[2] = stream(c->g, "long_in", SIM_UNBOUNDED);
    c->s[3] = stream(c->g, "long_out", SIM_UNBOUNDED);
    c->s[4] = stream(c->g, "s4", SIM_UNBOUNDED);
    c->src = sim_source_add(c->g, "src", c->s[0], 8, 1);
    const int32_t one[SIM_MAX_PORTS] = {1}, two[SIM_MAX_PORTS] = {1, 1};
    sim_op fork = run_op(seg(8, 1, 1, one, two));
    int fork_out[2] = {c->s[1], c->s[2]};
    c->f = add_loops(c->g, "F", "fork", &c->s[0], 1, fork_out, 2, &fork, 1);
    c->l = add_simple(c->g, "L", c->s[2], c->s[3], 8, 1, 10);
    sim_op join = run_op(seg(8, 1, 1, two, one));
    int join_in[2] = {c->s[1], c->s[3]};
    c->j = add_loops(c->g, "J", "join", join_in, 2, &c->s[4], 1, &join, 1);
    c->sink = sim_sink_add(c->g, "sink", c->s[4], 8, 1);
    assert_true(c->src >= 0 && c->sink >= 0);
}

static void test_fork_join_unbounded(void **state)
{
    (void)state;
    forkjoin c;
    forkjoin_build(&c, 16); /* deep enough: the unbounded schedule */
    sim_run_result r;
    const bool unbounded[2] = {true, false};
    for (int u = 0; u < 2; u++) {
        run(c.g, 1, unbounded[u], &r);
        assert_int_equal(r.latency_cycles, 19);
        assert_int_equal(r.streams[c.s[1]].max_occupancy, 8);
        sim_run_result_free(&r);
        run(c.g, 3, unbounded[u], &r);
        assert_false(r.deadlock);
        assert_int_equal(r.out_last[0], 20);
        assert_int_equal(r.out_last[1], 28);
        assert_int_equal(r.out_last[2], 36);
        assert_int_equal(r.latency_cycles, 19);
        assert_int_equal(r.interval_cycles, 8);
        assert_int_equal(r.streams[c.s[1]].max_occupancy, 11);
        for (int s = 0; s < 5; s++)
            if (s != 1)
                assert_int_equal(r.streams[c.s[s]].max_occupancy, 1);
        assert_int_equal(r.tasks[c.f].blocked_cycles, 0);
        sim_run_result_free(&r);
    }
    sim_graph_free(c.g);
}

static void test_fork_join_shallow(void **state)
{
    (void)state;
    forkjoin c;
    forkjoin_build(&c, 1);
    sim_run_result r;
    run(c.g, 1, false, &r);
    assert_false(r.deadlock);
    assert_int_equal(r.out_last[0], 90);
    assert_int_equal(r.latency_cycles, 89);
    assert_int_equal(r.tasks[c.f].blocked_cycles, 70);
    assert_int_equal(r.tasks[c.f].blocked_on, c.s[1]);
    assert_int_equal(r.tasks[c.j].starved_on, c.s[3]);
    assert_int_equal(r.streams[c.s[1]].max_occupancy, 1);
    sim_run_result_free(&r);

    run(c.g, 3, false, &r);
    assert_int_equal(r.out_last[1], 178);
    assert_int_equal(r.out_last[2], 266);
    assert_int_equal(r.latency_cycles, 89);
    assert_int_equal(r.interval_cycles, 88);
    sim_run_result_free(&r);

    sim_stream_set_depth(c.g, c.s[1], 10);
    assert_int_equal(sim_stream_depth(c.g, c.s[1]), 10);
    run(c.g, 3, false, &r);
    assert_int_equal(r.out_last[1], 17 + 12);
    assert_int_equal(r.out_last[2], 26 + 12);
    assert_int_equal(r.latency_cycles, 19);
    assert_int_equal(r.interval_cycles, 9);
    sim_run_result_free(&r);
    sim_graph_free(c.g);
}

/* ---- (c') a cyclo-static join that deadlocks ----
 * source (8 words per frame) -> s0 -> F, which alternates: 4 times { 1 word to "even",
 * 1 word to "odd" }; J reads all 4 words of "even" first (writing nothing), then the 4
 * of "odd", writing one word each -> out -> sink (4 words). F has written 3 words to
 * "odd" before its 4th to "even", and J reads none of "odd" before that 4th word:
 * - "odd" of depth 2: F's 6th iteration (the 3rd "odd" word) needs odd[0] read, which
 *   needs even[3], which F writes only after it: F waits for room in "odd" (read by J),
 *   J waits for words in "even" (written by F). The source and the sink are not in it.
 * - depth 3: f_i = i + 1 for i = 0..6 (writes at i + 2: even[m] at 2m + 2 = 2, 4, 6, 8,
 *   odd[m] at 2m + 3); J reads even at 2, 4, 6, 8, then odd[0] at 9; F's last iteration
 *   (odd[3]) needs odd[0] read before its write: f_7 = max(8, 8, 9 + 1 - 1) = 9, 1 cycle
 *   blocked; odd[3] at 10. J: odd at 9, 10, 11, 12 (odd[3] ready at 10), writes out at
 *   10..13, the sink reads them then: out[0] = 13, in[0] = 1, latency 12. */
static sim_graph *cyclo_build(int64_t odd_depth, int *f, int *j, int *even, int *odd)
{
    sim_graph *g = new_graph();
    int s0 = stream(g, "s0", SIM_UNBOUNDED);
    *even = stream(g, "even", SIM_UNBOUNDED);
    *odd = stream(g, "odd", odd_depth);
    int out = stream(g, "out", SIM_UNBOUNDED);
    assert_true(sim_source_add(g, "src", s0, 8, 1) >= 0);
    const int32_t none[SIM_MAX_PORTS] = {0}, one[SIM_MAX_PORTS] = {1},
                  second[SIM_MAX_PORTS] = {0, 1};
    sim_op fork[3] = {loop_op(4, 2), run_op(seg(1, 1, 1, one, one)),
                      run_op(seg(1, 1, 1, one, second))};
    int fork_out[2] = {*even, *odd};
    *f = add_loops(g, "fork", "fork", &s0, 1, fork_out, 2, fork, 3);
    sim_op join[2] = {run_op(seg(4, 1, 1, one, none)), run_op(seg(4, 1, 1, second, one))};
    int join_in[2] = {*even, *odd};
    *j = add_loops(g, "join", "join", join_in, 2, &out, 1, join, 2);
    assert_true(sim_sink_add(g, "sink", out, 4, 1) >= 0);
    return g;
}

static void test_cyclo_static_deadlock(void **state)
{
    (void)state;
    int f, j, even, odd;
    sim_graph *g = cyclo_build(2, &f, &j, &even, &odd);
    sim_run_result r;
    run(g, 1, false, &r);
    assert_true(r.deadlock);
    assert_non_null(strstr(r.deadlock_cycle, "fork"));
    assert_non_null(strstr(r.deadlock_cycle, "join"));
    assert_non_null(strstr(r.deadlock_cycle, "even"));
    assert_non_null(strstr(r.deadlock_cycle, "odd"));
    assert_null(strstr(r.deadlock_cycle, "sink"));
    assert_null(strstr(r.deadlock_cycle, "src"));
    sim_run_result_free(&r);

    /* unbounded, the same graph runs */
    run(g, 1, true, &r);
    assert_false(r.deadlock);
    sim_run_result_free(&r);
    sim_graph_free(g);

    g = cyclo_build(3, &f, &j, &even, &odd);
    run(g, 1, false, &r);
    assert_false(r.deadlock);
    assert_int_equal(r.in_first[0], 1);
    assert_int_equal(r.out_last[0], 13);
    assert_int_equal(r.latency_cycles, 12);
    assert_int_equal(r.tasks[f].iterations, 8);
    assert_int_equal(r.tasks[j].iterations, 8);
    assert_int_equal(r.tasks[f].blocked_cycles, 1);
    assert_int_equal(r.tasks[f].blocked_on, odd);
    assert_int_equal(r.streams[odd].max_occupancy, 3);
    sim_run_result_free(&r);
    sim_graph_free(g);
}

/* ---- (d) a two-level loop program ----
 * T: 2 times { 3 times { 2 iterations reading 1 word (ii 1, latency 1) }, 1 iteration
 * writing 1 word (ii 5, latency 2) }, then a run of 0 iterations (skipped): 14
 * iterations, 12 words in and 2 out per frame. source (12 words) -> s0 -> T -> s1 ->
 * sink (2 words). Source words are ready at k + 1.
 *   reads of words 0..5 start at 1..6; the write iteration at 7 (writes at 9);
 *   reads of 6..11 start at 7 + 5 = 12..17; the write iteration at 18 (writes at 20).
 *   The sink reads at 9 and 20: out[0] = 20, in[0] = 1, latency 19.
 * Frame 1 starts after the last iteration of frame 0: 18 + 5 = 23 (words 12.. are
 * ready long before): reads at 23..28, write at 29 (out 31), reads at 34..39, write at
 * 40 (out 42). out[1] = 42: interval 22 = 12 * 1 + 2 * 5, T's busy cycles per frame. */
static void test_nested_loops(void **state)
{
    (void)state;
    sim_graph *g = new_graph();
    int s0 = stream(g, "s0", SIM_UNBOUNDED), s1 = stream(g, "s1", SIM_UNBOUNDED);
    assert_true(sim_source_add(g, "src", s0, 12, 1) >= 0);
    const int32_t none[SIM_MAX_PORTS] = {0}, one[SIM_MAX_PORTS] = {1},
                  seven[SIM_MAX_PORTS] = {7};
    sim_op ops[5] = {loop_op(2, 3), loop_op(3, 1), run_op(seg(2, 1, 1, one, none)),
                     run_op(seg(1, 5, 2, none, one)), run_op(seg(0, 1, 1, seven, seven))};
    int t = add_loops(g, "T", "loops", &s0, 1, &s1, 1, ops, 5);
    assert_true(sim_sink_add(g, "sink", s1, 2, 1) >= 0);
    sim_run_result r;
    run(g, 2, false, &r);
    assert_false(r.deadlock);
    assert_int_equal(r.tasks[t].iterations, 28);
    assert_int_equal(r.tasks[t].busy_cycles, 44);
    assert_int_equal(r.streams[s0].words, 24);
    assert_int_equal(r.streams[s1].words, 4);
    assert_int_equal(r.in_first[0], 1);
    assert_int_equal(r.in_first[1], 23);
    assert_int_equal(r.out_last[0], 20);
    assert_int_equal(r.out_last[1], 42);
    assert_int_equal(r.latency_cycles, 19);
    assert_int_equal(r.interval_cycles, 22);
    sim_run_result_free(&r);
    sim_graph_free(g);
}

/* ---- several words per iteration ----
 * source (6 words) -> s0 -> P (3 iterations: 2 words in, 3 out, ii 1, latency 2) -> s1
 * -> Q (9 iterations of 1 word, ii 2, latency 1) -> s2 -> sink (9 words).
 * P's iteration i reads s0[2i] and s0[2i+1] (ready at 2i + 2): p_i = 2i + 2 = 2, 4, 6,
 * writes s1[3i..3i+2] at 2i + 4 = 4, 6, 8. Q: q_j = max(q_{j-1} + 2, 2 floor(j/3) + 4)
 * = 4 + 2j, the sink reads s2[j] at 5 + 2j: out[0] = 21, in[0] = 2, latency 19.
 * Unbounded, s1 holds 9 - 2 = 7 words after the write at 8 (read before 8: j = 0, 1).
 * s1 of depth 3: P's iteration i writes s1[3i+2], which needs s1[3i-1] read before
 * p_i + 2: p_1 >= q_2 - 1 = 7, writes at 9; q_3..q_5 = 10, 12, 14 (unchanged);
 * p_2 >= q_5 - 1 = 13, writes at 15, q_6 = 16: Q's schedule is the unbounded one, latency
 * 19, s1 at most 3. P's stalls past the previous start + ii: 7 - 3 = 4 and 13 - 8 = 5,
 * both bound last by room in s1 (p_1 also waited for s0[3] until 4, but the engine
 * counts a stall's whole gap against the constraint that bound it, so starved and
 * blocked add up to the stall): 9 blocked cycles; starved only before p_0 = 2 (from 0).
 * Depth 2: P's first iteration writes s1[2] with s1[0], so s1[0] would have to be read
 * before it is written: P waits for room in s1, Q for words in s1 - a deadlock. */
static void test_words_per_iteration(void **state)
{
    (void)state;
    sim_graph *g = new_graph();
    int s0 = stream(g, "s0", SIM_UNBOUNDED), s1 = stream(g, "mid", 3),
        s2 = stream(g, "s2", SIM_UNBOUNDED);
    assert_true(sim_source_add(g, "src", s0, 6, 1) >= 0);
    const int32_t two[SIM_MAX_PORTS] = {2}, three[SIM_MAX_PORTS] = {3};
    sim_op p_op = run_op(seg(3, 1, 2, two, three));
    int p = add_loops(g, "P", "widen", &s0, 1, &s1, 1, &p_op, 1);
    int q = add_simple(g, "Q", s1, s2, 9, 2, 1);
    assert_true(sim_sink_add(g, "sink", s2, 9, 1) >= 0);
    sim_run_result r;

    run(g, 1, true, &r);
    assert_int_equal(r.in_first[0], 2);
    assert_int_equal(r.out_last[0], 21);
    assert_int_equal(r.latency_cycles, 19);
    assert_int_equal(r.streams[s1].max_occupancy, 7);
    sim_run_result_free(&r);

    run(g, 1, false, &r);
    assert_false(r.deadlock);
    assert_int_equal(r.latency_cycles, 19);
    assert_int_equal(r.tasks[p].blocked_cycles, 9);
    assert_int_equal(r.tasks[p].starved_cycles, 2); /* p_0 = 2: its words came at 2 */
    assert_int_equal(r.tasks[p].blocked_on, s1);
    assert_int_equal(r.tasks[q].blocked_cycles, 0);
    assert_int_equal(r.streams[s1].max_occupancy, 3);
    assert_int_equal(r.streams[s1].words, 9);
    sim_run_result_free(&r);

    sim_stream_set_depth(g, s1, 2);
    run(g, 1, false, &r);
    assert_true(r.deadlock);
    assert_non_null(strstr(r.deadlock_cycle, "P"));
    assert_non_null(strstr(r.deadlock_cycle, "Q"));
    assert_non_null(strstr(r.deadlock_cycle, "mid"));
    sim_run_result_free(&r);
    sim_graph_free(g);
}

/* ---- (e) errors ---- */

/* F writes two streams; only one has a reader. */
static void test_stream_without_reader(void **state)
{
    (void)state;
    sim_graph *g = new_graph();
    int s0 = stream(g, "s0", SIM_UNBOUNDED), s1 = stream(g, "s1", SIM_UNBOUNDED),
        dangling = stream(g, "dangling", SIM_UNBOUNDED);
    assert_true(sim_source_add(g, "src", s0, 4, 1) >= 0);
    const int32_t one[SIM_MAX_PORTS] = {1}, two[SIM_MAX_PORTS] = {1, 1};
    sim_op op = run_op(seg(4, 1, 1, one, two));
    int outs[2] = {s1, dangling};
    add_loops(g, "F", "fork", &s0, 1, outs, 2, &op, 1);
    assert_true(sim_sink_add(g, "sink", s1, 4, 1) >= 0);
    /* a stream already written cannot get a second writer */
    assert_int_equal(sim_source_add(g, "src2", s1, 4, 1), -1);
    sim_run_options o = {.frames = 1};
    sim_run_result r;
    memset(&r, 0, sizeof r);
    cm_error err = {0};
    assert_int_equal(sim_run(g, &o, &r, &err), CM_EINPUT);
    assert_non_null(strstr(err.message, "dangling"));
    sim_run_result_free(&r);
    sim_graph_free(g);
}

/* The chain of (a) runs 16 iterations a frame: a limit of 10 stops it, 17 does not. The
 * engine runs a task's iterations in batches (here each task's 4 in one, nothing holding
 * them back); the limit still stops the run at exactly 10, within a batch. */
static void test_iteration_limit(void **state)
{
    (void)state;
    chain c;
    chain_build(&c, SIM_UNBOUNDED, 2);
    sim_run_options o = {.frames = 1, .max_iterations = 10};
    sim_run_result r;
    memset(&r, 0, sizeof r);
    cm_error err = {0};
    assert_int_equal(sim_run(c.g, &o, &r, &err), CM_EINFEASIBLE);
    assert_int_equal(r.iterations, 10);
    int64_t sum = 0;
    for (int i = 0; i < r.n_tasks; i++)
        sum += r.tasks[i].iterations;
    assert_int_equal(sum, 10);
    sim_run_result_free(&r);
    o.max_iterations = 17;
    memset(&r, 0, sizeof r);
    assert_int_equal(sim_run(c.g, &o, &r, &err), CM_OK);
    assert_int_equal(r.iterations, 16);
    sim_run_result_free(&r);
    sim_graph_free(c.g);
}

static void test_malformed_loops(void **state)
{
    (void)state;
    const int32_t one[SIM_MAX_PORTS] = {1};
    sim_program p;
    cm_error err = {0};
    /* a body of 3 ops with 2 after the loop */
    sim_op short_body[3] = {loop_op(2, 3), run_op(seg(1, 1, 1, one, one)),
                            run_op(seg(1, 1, 1, one, one))};
    assert_int_equal(sim_program_loops(short_body, 3, &p, &err), CM_EINPUT);
    assert_int_equal(err.code, CM_EINPUT);
    /* an inner body running past its outer loop's */
    sim_op crossing[5] = {loop_op(2, 2), run_op(seg(1, 1, 1, one, one)), loop_op(2, 2),
                          run_op(seg(1, 1, 1, one, one)), run_op(seg(1, 1, 1, one, one))};
    cm_error_clear(&err);
    assert_int_equal(sim_program_loops(crossing, 5, &p, &err), CM_EINPUT);
    /* 9 nested loops; 8 are allowed */
    sim_op deep[10];
    for (int i = 0; i < 9; i++)
        deep[i] = loop_op(2, 9 - i);
    deep[9] = run_op(seg(1, 1, 1, one, one));
    cm_error_clear(&err);
    assert_int_equal(sim_program_loops(deep, 10, &p, &err), CM_EINPUT);
    cm_error_clear(&err);
    assert_int_equal(sim_program_loops(deep + 1, 9, &p, &err), CM_OK);
    if (p.free)
        p.free(p.state);
}

/* ---- (f) FIFO sizing on the fork and join of (c) ----
 * The unbounded run (3 frames) holds at most 11 words in "short" and 1 in every other
 * stream; depth 11 keeps the unbounded schedule and 10 loses interval (9 > 8), so the
 * sized depths are 1, 11, 1, 1, 1 and the final run has latency 19, interval 8. */
static void test_size_fifos(void **state)
{
    (void)state;
    forkjoin c;
    forkjoin_build(&c, 1);
    sim_run_result unbounded;
    run(c.g, 3, true, &unbounded);
    int64_t depths[5];
    sim_run_result r;
    memset(&r, 0, sizeof r);
    cm_error err = {0};
    assert_int_equal(sim_size_fifos(c.g, 3, 64, depths, &r, &err), CM_OK);
    for (int s = 0; s < 5; s++) {
        assert_true(depths[s] >= 1);
        assert_true(depths[s] <= unbounded.streams[s].max_occupancy);
        assert_int_equal(sim_stream_depth(c.g, s), depths[s]);
    }
    const int64_t want[5] = {1, 11, 1, 1, 1};
    for (int s = 0; s < 5; s++)
        assert_int_equal(depths[c.s[s]], want[s]);
    assert_false(r.deadlock);
    assert_int_equal(r.interval_cycles, unbounded.interval_cycles);
    assert_int_equal(r.interval_cycles, 8);
    assert_int_equal(r.latency_cycles, 19);
    sim_run_result_free(&r);
    sim_run_result_free(&unbounded);
    sim_graph_free(c.g);
}

/* ---- (g) idle stretches cost nothing ----
 * source (3 words) -> T (ii 1,000,000, latency 1) -> sink. T starts at 1, 1,000,001 and
 * 2,000,001 (its words are ready at 1, 2, 3), writes 1 cycle later; its last iteration
 * ends at 2,000,001 + 1,000,000 = 3,000,001, after every other task's: end_cycle
 * 3,000,001 from 9 iterations in all (3 per task), latency 2,000,002 - 1. */
static void test_idle_stretches(void **state)
{
    (void)state;
    sim_graph *g = new_graph();
    int s0 = stream(g, "s0", SIM_UNBOUNDED), s1 = stream(g, "s1", SIM_UNBOUNDED);
    assert_true(sim_source_add(g, "src", s0, 3, 1) >= 0);
    int t = add_simple(g, "T", s0, s1, 3, 1000000, 1);
    assert_true(sim_sink_add(g, "sink", s1, 3, 1) >= 0);
    sim_run_result r;
    run(g, 1, false, &r);
    assert_int_equal(r.end_cycle, 3000001);
    assert_int_equal(r.latency_cycles, 2000001);
    assert_int_equal(r.iterations, 9);
    assert_int_equal(r.tasks[t].busy_cycles, 3000000);
    assert_int_equal(r.tasks[t].first_start, 1);
    assert_int_equal(r.tasks[t].last_end, 3000001);
    sim_run_result_free(&r);
    sim_graph_free(g);
}

/* ---- random graphs against a reference ----
 * Random chains and fork-joins of cyclo-static tasks (a loop of runs with several words
 * per iteration, rate changes, ii 1-3, one latency per task) with random depths, checked
 * against the least solution of engine.h's start-time inequalities found by plain
 * fixpoint iteration over every iteration of every task: no event order, no work list,
 * nothing shared with the engine. A deadlock is a solution that grows without bound (a
 * cycle of constraints of positive weight); a schedule without one starts every
 * iteration before the sum of all ii and latencies. */

#define RT_TASKS 8
#define RT_STREAMS 8
#define RT_RUNS 6

typedef struct rt_rng {
    uint64_t s;
} rt_rng;

static int rt_below(rt_rng *r, int n)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (int)((r->s >> 11) % (uint64_t)n);
}

typedef struct rt_task {
    int n_in, n_out, in[2], out[2];
    int reps, n_runs;
    sim_seg runs[RT_RUNS]; /* one repetition of the frame's program */
    int engine_index;
} rt_task;

typedef struct rt_graph {
    int n_tasks, n_streams, frames;
    int64_t words[RT_STREAMS]; /* per frame */
    int64_t depth[RT_STREAMS];
    int writer[RT_STREAMS], reader[RT_STREAMS]; /* task, and port in its list */
    int wport[RT_STREAMS], rport[RT_STREAMS];
    rt_task t[RT_TASKS];
} rt_graph;

/* iterations of every task over every frame, expanded */
typedef struct rt_iters {
    int n;
    int32_t *ii, *lat;
    int64_t *start;
    int32_t (*rd)[2], (*wr)[2];
    int64_t (*ra)[2], (*wa)[2]; /* words read / written on each port before it */
} rt_iters;

static int rt_stream(rt_graph *g, int64_t words, rt_rng *r)
{
    int s = g->n_streams++;
    g->words[s] = words;
    int d = rt_below(r, 8);
    g->depth[s] = d == 0 ? SIM_UNBOUNDED : d;
    return s;
}

static int rt_gcd(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return (int)a;
}

/* a run covering what is left on one port, `per` words an iteration when it divides */
static void rt_cover(rt_task *t, int64_t left, bool in, int port, rt_rng *r)
{
    if (left == 0)
        return;
    int per = 1 + rt_below(r, 3);
    if (left % per)
        per = 1;
    const int32_t none[SIM_MAX_PORTS] = {0};
    sim_seg s = seg(left / per, 1 + rt_below(r, 3), 1, none, none);
    (in ? s.rd : s.wr)[port] = per;
    t->runs[t->n_runs++] = s;
}

/* A program reading g->words of its inputs and writing those of its outputs per frame:
 * reps times { a run doing some of both, then runs covering the rest per port }, the
 * runs shuffled, one latency for all (so that words leave in the order they are made). */
static void rt_program(rt_graph *g, rt_task *t, rt_rng *r)
{
    int64_t gcd = 0;
    for (int p = 0; p < t->n_in; p++)
        gcd = rt_gcd(g->words[t->in[p]], gcd);
    for (int q = 0; q < t->n_out; q++)
        gcd = rt_gcd(g->words[t->out[q]], gcd);
    do
        t->reps = 1 + rt_below(r, 4);
    while (gcd % t->reps);
    int64_t left_in[2], left_out[2];
    const int32_t none[SIM_MAX_PORTS] = {0};
    sim_seg both = seg(1 + rt_below(r, 3), 1 + rt_below(r, 3), 1, none, none);
    bool any = false;
    for (int p = 0; p < t->n_in; p++) {
        left_in[p] = g->words[t->in[p]] / t->reps;
        both.rd[p] = rt_below(r, 3);
        if (both.count * both.rd[p] > left_in[p])
            both.rd[p] = 0;
        left_in[p] -= both.count * both.rd[p];
        any |= both.rd[p] > 0;
    }
    for (int q = 0; q < t->n_out; q++) {
        left_out[q] = g->words[t->out[q]] / t->reps;
        both.wr[q] = rt_below(r, 3);
        if (both.count * both.wr[q] > left_out[q])
            both.wr[q] = 0;
        left_out[q] -= both.count * both.wr[q];
        any |= both.wr[q] > 0;
    }
    t->n_runs = 0;
    if (any)
        t->runs[t->n_runs++] = both;
    for (int p = 0; p < t->n_in; p++)
        rt_cover(t, left_in[p], true, p, r);
    for (int q = 0; q < t->n_out; q++)
        rt_cover(t, left_out[q], false, q, r);
    int32_t lat = 1 + rt_below(r, 5);
    for (int i = t->n_runs - 1; i >= 0; i--) {
        int j = rt_below(r, i + 1);
        sim_seg tmp = t->runs[i];
        t->runs[i] = t->runs[j];
        t->runs[j] = tmp;
        t->runs[i].latency = lat;
    }
}

/* A source (one run of 1 word out) or a sink (1 word in). */
static void rt_end(rt_graph *g, rt_task *t, int stream, bool source, rt_rng *r)
{
    const int32_t none[SIM_MAX_PORTS] = {0}, one[SIM_MAX_PORTS] = {1};
    t->reps = 1;
    t->n_runs = 1;
    t->runs[0] = seg(g->words[stream], 1 + rt_below(r, 2), 1, source ? none : one,
                     source ? one : none);
}

static rt_task *rt_add_task(rt_graph *g, const int *in, int n_in, const int *out, int n_out)
{
    rt_task *t = &g->t[g->n_tasks];
    memset(t, 0, sizeof *t);
    t->n_in = n_in;
    t->n_out = n_out;
    for (int p = 0; p < n_in; p++) {
        t->in[p] = in[p];
        g->reader[in[p]] = g->n_tasks;
        g->rport[in[p]] = p;
    }
    for (int q = 0; q < n_out; q++) {
        t->out[q] = out[q];
        g->writer[out[q]] = g->n_tasks;
        g->wport[out[q]] = q;
    }
    g->n_tasks++;
    return t;
}

static const int64_t rt_words[4] = {4, 6, 12, 24};

/* src -> chain of 1-3 tasks -> sink; or src -> F -> (a branch of 0-1 tasks each) -> J ->
 * sink. Task 0 is the source, the last the sink. */
static void rt_generate(rt_graph *g, rt_rng *r)
{
    memset(g, 0, sizeof *g);
    g->frames = 1 + rt_below(r, 3);
    int s = rt_stream(g, rt_words[rt_below(r, 4)], r);
    rt_end(g, rt_add_task(g, NULL, 0, &s, 1), s, true, r);
    if (rt_below(r, 2) == 0) {
        int n = 1 + rt_below(r, 3);
        for (int i = 0; i < n; i++) {
            int next = rt_stream(g, rt_words[rt_below(r, 4)], r);
            rt_program(g, rt_add_task(g, &s, 1, &next, 1), r);
            s = next;
        }
    } else {
        int br[2] = {rt_stream(g, rt_words[rt_below(r, 4)], r),
                     rt_stream(g, rt_words[rt_below(r, 4)], r)};
        rt_program(g, rt_add_task(g, &s, 1, br, 2), r);
        for (int b = 0; b < 2; b++)
            if (rt_below(r, 2)) {
                int next = rt_stream(g, rt_words[rt_below(r, 4)], r);
                rt_program(g, rt_add_task(g, &br[b], 1, &next, 1), r);
                br[b] = next;
            }
        s = rt_stream(g, rt_words[rt_below(r, 4)], r);
        rt_program(g, rt_add_task(g, br, 2, &s, 1), r);
    }
    rt_end(g, rt_add_task(g, &s, 1, NULL, 0), s, false, r);
}

static sim_graph *rt_engine_graph(rt_graph *g)
{
    sim_graph *e = new_graph();
    char name[16];
    for (int s = 0; s < g->n_streams; s++) {
        snprintf(name, sizeof name, "s%d", s);
        assert_int_equal(stream(e, name, g->depth[s]), s);
    }
    rt_task *src = &g->t[0], *sink = &g->t[g->n_tasks - 1];
    src->engine_index = sim_source_add(e, "src", src->out[0], g->words[src->out[0]],
                                       src->runs[0].ii);
    for (int i = 1; i < g->n_tasks - 1; i++) {
        rt_task *t = &g->t[i];
        sim_op ops[RT_RUNS + 1] = {loop_op(t->reps, t->n_runs)};
        for (int k = 0; k < t->n_runs; k++)
            ops[k + 1] = run_op(t->runs[k]);
        snprintf(name, sizeof name, "t%d", i);
        t->engine_index = add_loops(e, name, "task", t->in, t->n_in, t->out, t->n_out, ops,
                                    t->n_runs + 1);
    }
    sink->engine_index = sim_sink_add(e, "sink", sink->in[0], g->words[sink->in[0]],
                                      sink->runs[0].ii);
    assert_true(src->engine_index >= 0 && sink->engine_index >= 0);
    return e;
}

static void rt_expand(const rt_graph *g, const rt_task *t, rt_iters *it)
{
    int n = 0;
    for (int k = 0; k < t->n_runs; k++)
        n += (int)t->runs[k].count;
    n *= t->reps * g->frames;
    it->n = n;
    it->ii = calloc((size_t)n, sizeof *it->ii);
    it->lat = calloc((size_t)n, sizeof *it->lat);
    it->start = calloc((size_t)n, sizeof *it->start);
    it->rd = calloc((size_t)n, sizeof *it->rd);
    it->wr = calloc((size_t)n, sizeof *it->wr);
    it->ra = calloc((size_t)n, sizeof *it->ra);
    it->wa = calloc((size_t)n, sizeof *it->wa);
    assert_true(it->ii && it->lat && it->start && it->rd && it->wr && it->ra && it->wa);
    int64_t ra[2] = {0, 0}, wa[2] = {0, 0};
    int i = 0;
    for (int f = 0; f < g->frames * t->reps; f++)
        for (int k = 0; k < t->n_runs; k++)
            for (int64_t c = 0; c < t->runs[k].count; c++, i++) {
                it->ii[i] = t->runs[k].ii;
                it->lat[i] = t->runs[k].latency;
                for (int p = 0; p < 2; p++) {
                    it->rd[i][p] = t->runs[k].rd[p];
                    it->wr[i][p] = t->runs[k].wr[p];
                    it->ra[i][p] = ra[p];
                    it->wa[i][p] = wa[p];
                    ra[p] += it->rd[i][p];
                    wa[p] += it->wr[i][p];
                }
            }
}

static void rt_iters_free(rt_iters *it)
{
    free(it->ii);
    free(it->lat);
    free(it->start);
    free(it->rd);
    free(it->wr);
    free(it->ra);
    free(it->wa);
}

/* the iteration of task (it) that reads (or writes) word n on port p */
static int rt_owner(const rt_iters *it, int p, int64_t n, bool reads)
{
    int lo = 0, hi = it->n - 1; /* the last iteration whose first word is <= n */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        int64_t first = reads ? it->ra[mid][p] : it->wa[mid][p];
        if (first <= n)
            lo = mid;
        else
            hi = mid - 1;
    }
    while (lo > 0 && (reads ? it->rd[lo][p] : it->wr[lo][p]) == 0)
        lo--;
    return lo;
}

/* the least start time iteration k of task i may have given the others' current ones */
static int64_t rt_bound(const rt_graph *g, rt_iters *its, int i, int k)
{
    const rt_task *t = &g->t[i];
    rt_iters *it = &its[i];
    int64_t v = k ? it->start[k - 1] + it->ii[k - 1] : 0;
    for (int p = 0; p < t->n_in; p++) {
        if (it->rd[k][p] == 0)
            continue;
        int s = t->in[p], w = g->writer[s];
        int j = rt_owner(&its[w], g->wport[s], it->ra[k][p] + it->rd[k][p] - 1, false);
        int64_t at = its[w].start[j] + its[w].lat[j];
        v = at > v ? at : v;
    }
    for (int q = 0; q < t->n_out; q++) {
        int s = t->out[q];
        int64_t m = it->wa[k][q] + it->wr[k][q] - 1 - g->depth[s];
        if (it->wr[k][q] == 0 || g->depth[s] == 0 || m < 0)
            continue;
        int rdr = g->reader[s];
        int j = rt_owner(&its[rdr], g->rport[s], m, true);
        int64_t at = its[rdr].start[j] + 1 - it->lat[k];
        v = at > v ? at : v;
    }
    return v;
}

/* Fixpoint from all zeros, sweeping in order (each sweep at least extends every longest
 * path by one constraint): without a cycle of positive weight it settles within as many
 * sweeps as there are iterations; still moving after that, it never would (deadlock). */
static bool rt_solve(const rt_graph *g, rt_iters *its)
{
    int total = 0;
    for (int i = 0; i < g->n_tasks; i++)
        total += its[i].n;
    for (int sweep = 0; sweep <= total + 1; sweep++) {
        bool changed = false;
        for (int i = 0; i < g->n_tasks; i++)
            for (int k = 0; k < its[i].n; k++) {
                int64_t v = rt_bound(g, its, i, k);
                if (v > its[i].start[k]) {
                    its[i].start[k] = v;
                    changed = true;
                }
            }
        if (!changed)
            return true;
    }
    return false;
}

/* the most words stream s holds just after a write: n + 1 less the reads before it */
static int64_t rt_max_occupancy(const rt_graph *g, const rt_iters *its, int s)
{
    const rt_iters *w = &its[g->writer[s]], *r = &its[g->reader[s]];
    int wp = g->wport[s], rp = g->rport[s];
    int64_t best = 0, read = 0, total = g->words[s] * g->frames;
    for (int64_t n = 0; n < total; n++) {
        int j = rt_owner(w, wp, n, false);
        int64_t at = w->start[j] + w->lat[j];
        while (read < n && r->start[rt_owner(r, rp, read, true)] < at)
            read++;
        best = n + 1 - read > best ? n + 1 - read : best;
    }
    return best;
}

static void rt_compare(const rt_graph *g, rt_iters *its, const sim_run_result *r)
{
    /* stream 0 is the source's, its reader the first task */
    const rt_iters *sink = &its[g->n_tasks - 1], *rd = &its[g->reader[0]];
    int64_t sw = g->words[0], kw = g->words[g->t[g->n_tasks - 1].in[0]];
    for (int f = 0; f < g->frames; f++) {
        int64_t in = rd->start[rt_owner(rd, g->rport[0], f * sw, true)];
        assert_int_equal(r->in_first[f], in);
        assert_int_equal(r->out_last[f], sink->start[(f + 1) * kw - 1]);
    }
    int64_t end = 0;
    for (int i = 0; i < g->n_tasks; i++) {
        const rt_iters *it = &its[i];
        int64_t busy = 0;
        for (int k = 0; k < it->n; k++)
            busy += it->ii[k];
        const sim_task_stats *st = &r->tasks[g->t[i].engine_index];
        assert_int_equal(st->iterations, it->n);
        assert_int_equal(st->busy_cycles, busy);
        assert_int_equal(st->first_start, it->start[0]);
        assert_int_equal(st->last_end, it->start[it->n - 1] + it->ii[it->n - 1]);
        end = st->last_end > end ? st->last_end : end;
    }
    assert_int_equal(r->end_cycle, end);
    for (int s = 0; s < g->n_streams; s++) {
        assert_int_equal(r->streams[s].max_occupancy, rt_max_occupancy(g, its, s));
        const rt_iters *w = &its[g->writer[s]];
        const int64_t total = g->words[s] * g->frames;
        const int first = rt_owner(w, g->wport[s], 0, false);
        const int last = rt_owner(w, g->wport[s], total - 1, false);
        assert_int_equal(r->streams[s].first_write, w->start[first] + w->lat[first]);
        assert_int_equal(r->streams[s].last_write, w->start[last] + w->lat[last]);
    }
}

/* Solves g by reference and runs e (unbounded: every depth ignored); compares both.
 * Returns whether it deadlocked. */
static bool rt_check(const rt_graph *g, const sim_graph *e, bool unbounded, int c)
{
    rt_graph copy = *g;
    if (unbounded)
        memset(copy.depth, 0, sizeof copy.depth);
    rt_iters its[RT_TASKS];
    for (int i = 0; i < copy.n_tasks; i++)
        rt_expand(&copy, &copy.t[i], &its[i]);
    bool ok = rt_solve(&copy, its);
    sim_run_result r;
    run(e, copy.frames, unbounded, &r);
    if (r.deadlock != !ok)
        fail_msg("case %d: engine deadlock %d, reference %d", c, r.deadlock, !ok);
    if (ok)
        rt_compare(&copy, its, &r);
    sim_run_result_free(&r);
    for (int i = 0; i < copy.n_tasks; i++)
        rt_iters_free(&its[i]);
    return !ok;
}

/* sim_size_fifos keeps the unbounded run's interval and latency with no stream deeper
 * than it ever held there */
static void rt_check_sizing(const rt_graph *g, sim_graph *e)
{
    sim_run_result u, r;
    run(e, g->frames, true, &u);
    int64_t depths[RT_STREAMS];
    cm_error err = {0};
    memset(&r, 0, sizeof r);
    assert_int_equal(sim_size_fifos(e, g->frames, 64, depths, &r, &err), CM_OK);
    assert_false(r.deadlock);
    assert_int_equal(r.latency_cycles, u.latency_cycles);
    assert_int_equal(r.interval_cycles, u.interval_cycles);
    for (int s = 0; s < g->n_streams; s++) {
        assert_true(depths[s] >= 1 && depths[s] <= u.streams[s].max_occupancy);
        assert_int_equal(sim_stream_depth(e, s), depths[s]);
    }
    sim_run_result_free(&u);
    sim_run_result_free(&r);
}

static void test_random_against_reference(void **state)
{
    (void)state;
    rt_rng rng = {0x9e3779b97f4a7c15ull};
    int deadlocks = 0, runs = 300;
    for (int c = 0; c < runs; c++) {
        rt_graph g;
        rt_generate(&g, &rng);
        sim_graph *e = rt_engine_graph(&g);
        deadlocks += rt_check(&g, e, false, c);
        assert_false(rt_check(&g, e, true, c));
        rt_check_sizing(&g, e);
        sim_graph_free(e);
    }
    /* both outcomes were exercised */
    assert_true(deadlocks > runs / 20 && deadlocks < runs - runs / 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_one_frame),     cmocka_unit_test(test_chain_three_frames),
        cmocka_unit_test(test_depth_one_fifo),      cmocka_unit_test(test_fork_join_unbounded),
        cmocka_unit_test(test_fork_join_shallow),   cmocka_unit_test(test_cyclo_static_deadlock),
        cmocka_unit_test(test_nested_loops),        cmocka_unit_test(test_words_per_iteration),
        cmocka_unit_test(test_stream_without_reader), cmocka_unit_test(test_iteration_limit),
        cmocka_unit_test(test_malformed_loops),     cmocka_unit_test(test_size_fifos),
        cmocka_unit_test(test_idle_stretches),      cmocka_unit_test(test_random_against_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
