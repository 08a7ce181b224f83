/* nn2FPGA designs in the cycle-level simulator (issue 15): the HLS export's task graph
 * (sim_build_nn2fpga over hg_task_graph) stepped by the engine.
 * - The optimiser's designs of the four QONNX models (the README's boards): at the
 *   generated depths no deadlock and an interval within 1 % of the analytic period S;
 *   with unbounded streams the interval is the slowest generated task's cycles per frame,
 *   worked out here from the templates' loop trip counts (every template one pipelined
 *   loop whose trip count is its cost-model task's); sim_size_fifos's depths (--fifo-depths
 *   auto) keep it. The first-frame latency is within 10 % of the analytic one (nn2fpga.c:
 *   fills at the rate data arrive, the slowest stage's frame time), which treats each
 *   layer's input as arriving evenly where the hardware delivers it in pixel groups.
 * - The residual buffers of thesis section 3.6: each skip FIFO at the depth the design
 *   computes runs without deadlock; one word below, a FIFO the add reads itself
 *   deadlocks or loses interval (the depth holds the deadlock bound plus the group the
 *   main branch's first window buffer reads at once); with temporal reuse and loop merge
 *   off the thesis's sizes are larger, and an identity skip at the optimised design's size
 *   deadlocks or loses interval.
 * - 20 random valid factor sets per model (seeded): no deadlock and an interval within
 *   1 % of S at the generated depths, the unbounded interval the slowest task's, the
 *   latency within 25 % of the analytic one.
 * - On all of these every generated task runs its template's trip count a frame.
 * - fifo_depths in the design file: set by name, saved, loaded, refused when bad, used
 *   by the builder and by the generator. */
#include "test_support.h"

#include <cnnmap/hls.h>
#include <cnnmap/nn2fpga.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hls/hls_gen.h"
#include "hls/hls_graph.h"
#include "nn2fpga/n2_internal.h"
#include "sim/build.h"
#include "sim/sim_nn2fpga.h"
#include "util/rng.h"

#define FRAMES 4

/* Under the sanitizers the engine runs some 30 times slower: the repetitions shrink and
 * MobileNetV2 (20 M task iterations a frame) runs two frames once; every code path of the
 * builder still runs. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifdef SANITIZED
#define RANDOM_DESIGNS 3
static const bool sanitized = true;
#else
#define RANDOM_DESIGNS 20
static const bool sanitized = false;
#endif

typedef struct model_case {
    const char *file, *board;
    int exact_every; /* random designs: every how many get the four-frame unbounded run */
    bool heavy;      /* millions of task iterations a frame */
} model_case;

/* The README's boards. */
static const model_case models[] = {
    {"resnet8_a8w8b16.onnx", "kv260", 1, false},
    {"resnet8_a4w4b32.onnx", "kv260", 1, false},
    {"resnet20_a8w8b16.onnx", "kv260", 1, false},
    {"mobilenet_v2_a8w6b32.onnx", "zcu102", 5, true},
    {"resnet8_a8w8b16.onnx", "u250", 1, false}, /* S is the input port's 1,024 cycles */
};

/* Simulated latency against the analytic one (nn2fpga.c): the model has each layer's
 * input arrive evenly over its producer's frame, where the hardware delivers it in pixel
 * groups and adapter blocks, and in bursts where FIFOs fill behind a slower layer. On the
 * optimiser's designs, whose layers are balanced, that is within 10 % (measured: -8.1 %,
 * -7.1 %, -0.9 %, +8.8 %); on random designs, with single layers up to twice as slow as
 * their neighbours, within 25 % (measured: at most 8.3, 5.6, 16.3 and 22.9 %). */
#define LATENCY_TOLERANCE 0.10
#define RANDOM_LATENCY_TOLERANCE 0.25

static void make_design(const model_case *m, bool residual_opt, cm_nn2fpga_design *d)
{
    char model[1024];
    cm_test_shared_model(m->file, model, sizeof model);
    cm_nn2fpga_options o;
    cm_nn2fpga_options_init(&o);
    o.temporal_reuse = o.loop_merge = residual_opt;
    cm_error err = {0};
    if (cm_nn2fpga_design_create(model, m->board, &o, false, d, &err) != CM_OK)
        fail_msg("%s", err.message);
}

static sim_build build_of(const cm_nn2fpga_design *d)
{
    sim_build b;
    memset(&b, 0, sizeof b);
    cm_error err = {0};
    if (sim_build_nn2fpga(d, &b, &err) != CM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(b.n_parts, 1);
    return b;
}

static sim_run_result run_frames(const sim_graph *g, bool unbounded, int frames)
{
    sim_run_options o = {.frames = frames, .unbounded = unbounded};
    sim_run_result r;
    cm_error err = {0};
    if (sim_run(g, &o, &r, &err) != CM_OK)
        fail_msg("%s", err.message);
    return r;
}

static sim_run_result run_of(const sim_graph *g, bool unbounded)
{
    return run_frames(g, unbounded, FRAMES);
}

static double rel(int64_t a, int64_t b)
{
    return b ? ((double)a - (double)b) / (double)b : 0.0;
}

static int stream_index(const sim_graph *g, const char *name)
{
    for (int s = 0; s < sim_graph_streams(g); s++)
        if (strcmp(sim_stream_name(g, s), name) == 0)
            return s;
    fail_msg("no stream %s in the simulation", name);
    return -1;
}

/* ---- the generated code's own rate, by hand from the templates' loop nests ---- */

static int64_t kv(const hg_gtask *t, const char *key)
{
    return hg_task_int(t, key);
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* cm_window.h's loop: a step per PIN-pixel read (G iterations, one per channel group);
 * window group w (raster order) is due at the step reading its last real pixel and
 * written at max(due, the previous group's step + 1); the frame ends after the last
 * read and the last write. */
static int64_t window_steps(const hg_gtask *t)
{
    int64_t s = kv(t, "S"), pad = kv(t, "PAD"), owp = kv(t, "OW_PAR"), pin = kv(t, "PIN");
    int64_t ih = kv(t, "IH"), iw = kv(t, "IW"), fh = kv(t, "FH"), fw = kv(t, "FW");
    int64_t oh = (ih + 2 * pad - fh) / s + 1, per_row = ((iw + 2 * pad - fw) / s + 1) / owp;
    int64_t step = -1;
    for (int64_t w = 0; w < oh * per_row; w++) {
        int64_t ry = min64((w / per_row) * s + fh - 1 - pad, ih - 1);
        int64_t rx = min64(((w % per_row) * owp + owp - 1) * s + fw - 1 - pad, iw - 1);
        int64_t due = (ry * iw + rx) / pin;
        step = due > step + 1 ? due : step + 1;
    }
    return step + 1 > ih * iw / pin ? step + 1 : ih * iw / pin;
}

/* Cycles per frame of one generated task at II=1 (hls/templates, hls/project/tasks.in):
 * the trip count of its pipelined loop. */
static int64_t template_cycles(const hg_gtask *t)
{
    const char *k = t->kind;
    if (strncmp(k, "window_buffer", 13) == 0)
        return kv(t, "ICH") / kv(t, "ICH_PAR") * window_steps(t);
    if (strcmp(k, "conv") == 0)
        return kv(t, "OH") * kv(t, "OW") / kv(t, "OW_PAR") * (kv(t, "ICH") / kv(t, "ICH_PAR")) *
               (kv(t, "OCH") / kv(t, "OCH_PAR"));
    if (strcmp(k, "fc") == 0)
        return kv(t, "ICH") / kv(t, "ICH_PAR") * (kv(t, "OCH") / kv(t, "OCH_PAR"));
    if (strcmp(k, "dwconv") == 0 || strcmp(k, "maxpool") == 0)
        return kv(t, "OH") * kv(t, "OW") / kv(t, "OW_PAR") * (kv(t, "CH") / kv(t, "CH_PAR"));
    if (strcmp(k, "gmaxpool") == 0 || strcmp(k, "gavgpool") == 0)
        return kv(t, "H") * kv(t, "W") * (kv(t, "CH") / kv(t, "CH_PAR"));
    if (strcmp(k, "repack") == 0) /* per pixel group, the larger word count */
        return kv(t, "NPIX") / kv(t, "P") * (kv(t, "CH") / min64(kv(t, "CIN"), kv(t, "COUT")));
    if (strcmp(k, "pack") == 0 || strcmp(k, "unpack") == 0) /* the narrow side's words */
        return kv(t, "NPIX") / kv(t, "PN") * (kv(t, "CH") / kv(t, "CP"));
    return kv(t, "NWORDS"); /* requant, fork, add */
}

/* The slowest generated task (or port) and its cycles per frame. */
static int64_t bottleneck(const cm_nn2fpga_design *d, char *name, size_t size)
{
    hg_graph h;
    cm_error err = {0};
    if (hg_task_graph(d, &h, &err) != CM_OK)
        fail_msg("%s", err.message);
    int64_t worst = h.in_words > h.out_words ? h.in_words : h.out_words;
    snprintf(name, size, "%s", h.in_words > h.out_words ? "in" : "out");
    for (int i = 0; i < h.n_tasks; i++)
        if (template_cycles(&h.tasks[i]) > worst) {
            worst = template_cycles(&h.tasks[i]);
            snprintf(name, size, "%s (%s)", h.tasks[i].name, h.tasks[i].kind);
        }
    hg_graph_free(&h);
    return worst;
}

/* Every generated task ran its template's trip count, worked out by hand, each frame. */
static void check_iterations(const cm_nn2fpga_design *d, const sim_graph *g,
                             const sim_run_result *r)
{
    hg_graph h;
    cm_error err = {0};
    if (hg_task_graph(d, &h, &err) != CM_OK)
        fail_msg("%s", err.message);
    for (int i = 0; i < h.n_tasks; i++) {
        assert_string_equal(sim_task_name(g, i), h.tasks[i].name);
        if (r->tasks[i].iterations != r->frames * template_cycles(&h.tasks[i]))
            fail_msg("%s (%s): %lld iterations in %d frames, the template %lld a frame",
                     h.tasks[i].name, h.tasks[i].kind, (long long)r->tasks[i].iterations,
                     r->frames, (long long)template_cycles(&h.tasks[i]));
    }
    hg_graph_free(&h);
}

/* ---- the optimiser's designs ---- */

/* The first frame's latency of the design's figures: the batch's less the other
 * frames' periods. */
static int64_t frame_latency(const cm_nn2fpga_result *r)
{
    return r->latency_cycles - (r->batch - 1) * r->period;
}

static bool within(int64_t sim, int64_t analytic, double tolerance)
{
    return sim >= analytic * (1 - tolerance) && sim <= analytic * (1 + tolerance);
}

/* The first layer's window buffer and computation task carry its lw and lc. */
static void check_task_cycles(const cm_nn2fpga_design *d, const sim_part *p)
{
    const cm_nn2fpga_layer *l = &d->result.layers[0];
    char id[128], wb[140];
    hg_identifier(d->graph->layers[l->layer].name, 0, id, sizeof id);
    const char *suffix = strchr(id, '_') + 1; /* task names are "l<op index>_" + this */
    snprintf(wb, sizeof wb, "%s_wb", suffix);
    int seen = 0;
    for (int t = 0; t < sim_graph_tasks(p->graph); t++) {
        const char *under = strchr(sim_task_name(p->graph, t), '_');
        if (under && strcmp(under + 1, suffix) == 0)
            assert_int_equal(p->analytic_task_cycles[t], l->lc), seen++;
        if (under && strcmp(under + 1, wb) == 0)
            assert_int_equal(p->analytic_task_cycles[t], l->lw), seen++;
    }
    assert_int_equal(seen, 2);
}

static void check_optimised(const model_case *m)
{
    cm_nn2fpga_design d;
    make_design(m, true, &d);
    sim_build b = build_of(&d);
    sim_part *p = &b.parts[0];
    assert_int_equal(p->analytic_interval, d.result.period);
    assert_int_equal(p->analytic_latency, frame_latency(&d.result));
    assert_int_equal(b.analytic_interval, d.result.period);
    check_task_cycles(&d, p);
    if (sanitized && m->heavy) {
        sim_run_result r = run_frames(p->graph, false, 2);
        assert_false(r.deadlock);
        assert_true(within(r.latency_cycles, p->analytic_latency, LATENCY_TOLERANCE));
        sim_run_result_free(&r);
        sim_build_free(&b);
        cm_nn2fpga_design_free(&d);
        return;
    }
    clock_t t0 = clock();
    sim_run_result r = run_of(p->graph, false);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    /* MobileNetV2's unbounded run settles in six frames: its faster tasks first have to
     * run far enough ahead of the slowest */
    int settle = m->heavy ? 6 : FRAMES;
    sim_run_result u = run_frames(p->graph, true, settle);
    char slowest[160];
    int64_t rate = bottleneck(&d, slowest, sizeof slowest);
    printf("%s on %s: S %lld, latency %lld; simulated at the generated depths: interval %lld, "
           "latency %lld (%.3f s for %d frames, %llu iterations); unbounded: interval %lld "
           "(%+.3f %% of S), latency %lld; slowest generated task %s, %lld cycles\n",
           m->file, m->board, (long long)d.result.period, (long long)p->analytic_latency,
           (long long)r.interval_cycles, (long long)r.latency_cycles, secs, FRAMES,
           (unsigned long long)r.iterations, (long long)u.interval_cycles,
           100 * rel(u.interval_cycles, d.result.period), (long long)u.latency_cycles, slowest,
           (long long)rate);
    if (r.deadlock)
        fail_msg("%s: deadlock at the generated depths: %s", m->file, r.deadlock_cycle);
    check_iterations(&d, p->graph, &r);
    /* unbounded, the pipeline runs at its slowest task's rate, worked out by hand from
     * the templates, which is S's; the generated depths keep it within 1 % */
    assert_false(u.deadlock);
    assert_int_equal(u.interval_cycles, rate);
    assert_true(within(u.interval_cycles, d.result.period, 0.01));
    assert_true(r.interval_cycles >= u.interval_cycles);
    assert_true(within(r.interval_cycles, d.result.period, 0.01));
    assert_true(within(r.latency_cycles, p->analytic_latency, LATENCY_TOLERANCE));

    /* sized FIFOs keep the unbounded interval (few bisection runs on MobileNetV2 and
     * under the sanitizers: the occupancy bound, which keeps it too) */
    int64_t *depths = calloc((size_t)sim_graph_streams(p->graph), sizeof *depths);
    sim_run_result sized;
    cm_error err = {0};
    int runs = sanitized ? 4 : m->heavy ? 2 : 40;
    if (sim_size_fifos(p->graph, settle, runs, depths, &sized, &err) != CM_OK)
        fail_msg("%s", err.message);
    assert_false(sized.deadlock);
    assert_int_equal(sized.interval_cycles, u.interval_cycles);
    assert_true(within(sized.interval_cycles, r.interval_cycles, 0.01));
    sim_run_result_free(&sized);
    sim_run_result_free(&r);
    sim_run_result_free(&u);
    free(depths);
    sim_build_free(&b);
    cm_nn2fpga_design_free(&d);
}

/* ---- residual buffers (thesis section 3.6) ---- */

typedef struct skip_run {
    bool deadlock;
    int64_t interval;
} skip_run;

/* Runs g (the generated depths) with `stream` at `depth` words. */
static skip_run with_depth(sim_graph *g, int stream, int64_t depth)
{
    int64_t keep = sim_stream_depth(g, stream);
    sim_stream_set_depth(g, stream, depth);
    sim_run_result r = run_of(g, false);
    skip_run out = {r.deadlock, r.interval_cycles};
    sim_run_result_free(&r);
    sim_stream_set_depth(g, stream, keep);
    return out;
}

/* Whether the residual add reads `stream` itself (no adapter or convolution between). */
static bool read_by_add(const hg_graph *h, const char *stream)
{
    for (int i = 0; i < h->n_tasks; i++) {
        const char *in2 = hg_task_value(&h->tasks[i], "IN2");
        if (in2 && strcmp(in2, stream) == 0)
            return strcmp(h->tasks[i].kind, "add") == 0;
    }
    return false;
}

static hg_graph graph_of(const cm_nn2fpga_design *d)
{
    hg_graph h;
    cm_error err = {0};
    if (hg_task_graph(d, &h, &err) != CM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(h.n_skips, d->result.n_skips);
    return h;
}

/* Whether `stream` is a window buffer's tap (temporal reuse: the skip FIFO is written as
 * the main branch's first windows are). */
static bool tapped(const hg_graph *h, const char *stream)
{
    for (int i = 0; i < h->n_tasks; i++) {
        const char *tap = hg_task_value(&h->tasks[i], "TAP");
        if (tap && strcmp(tap, stream) == 0)
            return true;
    }
    return false;
}

/* The smallest depth of `stream` in [1, depth] at which the run keeps `interval` (keep) or
 * does not deadlock, by bisection: runs at depth are assumed to do both. */
static int64_t smallest_depth(sim_graph *g, int stream, int64_t depth, bool keep, int64_t interval)
{
    int64_t lo = 0, hi = depth; /* lo fails (or is 0), hi holds */
    while (hi - lo > 1) {
        int64_t mid = (lo + hi) / 2;
        skip_run x = with_depth(g, stream, mid);
        if (x.deadlock || (keep && x.interval > interval))
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

/* Each skip FIFO at the design's depth: no deadlock and the design's interval. The depth
 * is the generator's deadlock bound (plan_add) plus the pixels the main branch's first
 * window buffer takes in one read. Where the add reads the FIFO itself, the bound is
 * exact (one word below it deadlocks), and on a tap (temporal reuse) so is the whole
 * depth: one word less loses interval. A FIFO the fork feeds keeps the interval down to
 * within that read group of the bound; one with width adapters or a downsampling
 * convolution between it and the add, which hold part of the lag, runs at smaller depths
 * still: the design's figure is an upper bound there. */
static void check_skips(const model_case *m)
{
    cm_nn2fpga_design d;
    make_design(m, true, &d);
    sim_build b = build_of(&d);
    sim_graph *g = b.parts[0].graph;
    hg_graph h = graph_of(&d);
    for (int k = 0; k < h.n_skips; k++) {
        int s = stream_index(g, h.skip_stream[k]);
        int64_t depth = sim_stream_depth(g, s);
        skip_run at = with_depth(g, s, depth), below = with_depth(g, s, depth - 1);
        assert_false(at.deadlock);
        assert_true(within(at.interval, d.result.period, 0.01));
        bool direct = read_by_add(&h, h.skip_stream[k]), tap = tapped(&h, h.skip_stream[k]);
        int64_t bound = sanitized ? depth : smallest_depth(g, s, depth, false, 0);
        int64_t keep = sanitized ? depth : smallest_depth(g, s, depth, true, at.interval);
        printf("%s %s (%s%s): skip FIFO %s, %lld words: interval %lld; %lld words: %s %lld; "
               "smallest depth without deadlock %lld, keeping the interval %lld\n", m->file,
               h.skip_add[k], direct ? "read by the add" : "adapted", tap ? ", a tap" : "",
               h.skip_stream[k], (long long)depth, (long long)at.interval, (long long)depth - 1,
               below.deadlock ? "deadlock" : "interval", (long long)below.interval,
               (long long)bound, (long long)keep);
        if (direct && !sanitized)
            assert_true(with_depth(g, s, bound - 1).deadlock);
        if (direct && tap)
            assert_true(below.deadlock || below.interval > at.interval);
        assert_true(bound <= keep && keep <= depth);
    }
    hg_graph_free(&h);
    sim_build_free(&b);
    cm_nn2fpga_design_free(&d);
}

static int skip_of(const hg_graph *h, const char *add)
{
    for (int k = 0; k < h->n_skips; k++)
        if (strcmp(h->skip_add[k], add) == 0)
            return k;
    fail_msg("no skip FIFO for %s", add);
    return -1;
}

/* Temporal reuse and loop merge off: every skip the optimised design rewrote needs more
 * activations by the thesis's model, and at least as many as built; where the built FIFO
 * of an identity skip grew, the optimised design's activations (in the unoptimised
 * design's words) deadlock it or cost interval. (A downsampling skip's own convolution
 * and adapters hold part of the lag: there the built figure is an upper bound.) */
static void check_unoptimised(const model_case *m)
{
    cm_nn2fpga_design opt, plain;
    make_design(m, true, &opt);
    make_design(m, false, &plain);
    sim_build b = build_of(&plain);
    sim_graph *g = b.parts[0].graph;
    hg_graph h = graph_of(&plain);
    sim_run_result r = run_of(g, false);
    assert_false(r.deadlock);
    int rewritten = 0, simulated = 0;
    for (int k = 0; k < opt.result.n_skips; k++) {
        const cm_nn2fpga_skip *so = &opt.result.skips[k];
        int j = hg_design_skip(&plain.result, so->name);
        assert_true(j >= 0);
        const cm_nn2fpga_skip *sp = &plain.result.skips[j];
        assert_false(sp->optimised);
        int64_t act_opt = so->fifo_words * so->fifo_word_activations;
        int64_t act_plain = sp->fifo_words * sp->fifo_word_activations;
        const char *stream = h.skip_stream[skip_of(&h, so->name)];
        int s = stream_index(g, stream);
        int64_t small = act_opt / sp->fifo_word_activations;
        skip_run x = with_depth(g, s, small);
        printf("%s %s: thesis model %lld -> %lld activations; built %lld -> %lld; the "
               "unoptimised design with %lld words: %s %lld (at its own depth: %lld)\n", m->file,
               so->name, (long long)sp->activations_after, (long long)so->activations_after,
               (long long)act_plain, (long long)act_opt, (long long)small,
               x.deadlock ? "deadlock" : "interval", (long long)x.interval,
               (long long)r.interval_cycles);
        if (!so->optimised)
            continue;
        rewritten++;
        assert_true(sp->activations_after > so->activations_after);
        assert_true(act_plain >= act_opt);
        if (act_plain > act_opt && !so->downsample) {
            simulated++;
            assert_true(x.deadlock || x.interval > r.interval_cycles);
        }
    }
    assert_true(rewritten > 0);
    if (m == &models[0])
        assert_true(simulated > 0); /* ResNet8's identity skip Add_0 */
    sim_run_result_free(&r);
    hg_graph_free(&h);
    sim_build_free(&b);
    cm_nn2fpga_design_free(&opt);
    cm_nn2fpga_design_free(&plain);
}

/* ---- random valid designs ---- */

/* A divisor of n in [lo, hi], uniformly among them (1 when there is none). */
static int random_divisor(cm_rng *rng, int64_t n, int64_t lo, int64_t hi)
{
    int64_t found[64];
    int k = 0;
    for (int64_t v = lo < 1 ? 1 : lo; v <= hi && v <= n && k < 64; v++)
        if (n % v == 0)
            found[k++] = v;
    return k ? (int)found[cm_rng_below(rng, (uint64_t)k)] : 1;
}

/* Every layer gets factors drawn from the divisors of its dimensions between a quarter of
 * the optimiser's and the optimiser's (so the board holds the design and the frame stays
 * short enough to simulate in CI); the skip FIFOs are sized again for them. */
static void draw_design(cm_nn2fpga_design *d, const int *base, cm_rng *rng)
{
    cm_error err = {0};
    for (int t = 0; t < d->result.n_layers; t++) {
        cm_nn2fpga_layer *l = &d->result.layers[t];
        const int *b = &base[3 * t];
        for (int attempt = 0; attempt < 20; attempt++) {
            int ow = random_divisor(rng, l->ow, b[0] / 2, b[0]);
            int och = random_divisor(rng, l->och, b[1] / 2, b[1]);
            int ich = random_divisor(rng, l->ich, b[2] / 2, b[2]);
            if (cm_nn2fpga_configure(l, ow, och, ich, l->weights_in_uram, &err) == CM_OK)
                break;
            if (cm_nn2fpga_configure(l, b[0], b[1], b[2], l->weights_in_uram, &err) != CM_OK)
                fail_msg("%s", err.message);
        }
    }
    if (cm_hls_size_skips(d, &err) != CM_OK)
        fail_msg("%s", err.message);
    n2_totals(&d->result, d->result.batch);
    assert_true(d->result.dsp <= d->board.resources.dsp);
}

static void check_random(const model_case *m)
{
    if (sanitized && m->heavy)
        skip();
    cm_nn2fpga_design d;
    make_design(m, true, &d);
    int *base = malloc((size_t)d.result.n_layers * 3 * sizeof *base);
    for (int t = 0; t < d.result.n_layers; t++) {
        const cm_nn2fpga_layer *l = &d.result.layers[t];
        base[3 * t] = l->ow_par, base[3 * t + 1] = l->och_par, base[3 * t + 2] = l->ich_par;
    }
    cm_rng rng;
    cm_rng_seed(&rng, (uint64_t)(m - models) + 15);
    int at_period = 0;
    double worst_latency = 0;
    clock_t t0 = clock();
    for (int i = 0; i < RANDOM_DESIGNS; i++) {
        draw_design(&d, base, &rng);
        sim_build b = build_of(&d);
        sim_graph *g = b.parts[0].graph;
        /* four frames: with two, a task just faster than the slowest may not yet have run
         * far enough ahead to keep it busy */
        sim_run_result r = run_frames(g, false, FRAMES);
        char slowest[160];
        int64_t rate = bottleneck(&d, slowest, sizeof slowest);
        if (r.deadlock)
            fail_msg("%s random design %d: deadlock at the generated depths: %s", m->file, i,
                     r.deadlock_cycle);
        assert_true(r.interval_cycles >= rate);
        check_iterations(&d, g, &r);
        double dl = fabs(rel(r.latency_cycles, b.parts[0].analytic_latency));
        worst_latency = dl > worst_latency ? dl : worst_latency;
        if (!within(r.interval_cycles, d.result.period, 0.01) ||
            !within(r.latency_cycles, b.parts[0].analytic_latency, RANDOM_LATENCY_TOLERANCE))
            fail_msg("%s random design %d: S %lld, simulated interval %lld (slowest task %s, "
                     "%lld); analytic latency %lld, simulated %lld", m->file, i,
                     (long long)d.result.period, (long long)r.interval_cycles, slowest,
                     (long long)rate, (long long)b.parts[0].analytic_latency,
                     (long long)r.latency_cycles);
        sim_run_result u = {0};
        if (i % m->exact_every == 0) {
            u = run_frames(g, true, FRAMES);
            assert_false(u.deadlock);
            assert_int_equal(u.interval_cycles, rate);
        }
        at_period += within(r.interval_cycles, d.result.period, 0.01);
        sim_run_result_free(&u);
        sim_run_result_free(&r);
        sim_build_free(&b);
    }
    printf("%s: %d random designs, no deadlock at the generated depths, the unbounded "
           "interval the slowest generated task's, %d within 1 %% of S at the generated depths "
           "(%.1f s)\n", m->file,
           RANDOM_DESIGNS, at_period, (double)(clock() - t0) / CLOCKS_PER_SEC);
    printf("%s: latency at most %.1f %% from the analytic one\n", m->file, 100 * worst_latency);
    assert_int_equal(at_period, RANDOM_DESIGNS);
    free(base);
    cm_nn2fpga_design_free(&d);
}

/* ---- stream depths in the design file ---- */

static void expect_depth(const cm_nn2fpga_design *d, int k, const char *stream, int64_t depth)
{
    assert_true(k < d->n_fifo_depths);
    assert_string_equal(d->fifo_depths[k].stream, stream);
    assert_int_equal(d->fifo_depths[k].depth, depth);
}

static void expect_refused(cm_nn2fpga_design *d, const char *name, int64_t depth, const char *want)
{
    const char *names[1] = {name};
    cm_error err = {0};
    assert_int_equal(sim_nn2fpga_set_depths(d, names, &depth, 1, &err), CM_EINPUT);
    if (!strstr(err.message, want) || !strstr(err.message, "fifo_depths"))
        fail_msg("unexpected message: %s", err.message);
    assert_int_equal(d->n_fifo_depths, 2); /* unchanged */
}

static void load_edited(const char *path, const char *depths_json, cm_status want, const char *what)
{
    json_t *root = json_load_file(path, 0, NULL);
    json_object_set_new(root, "fifo_depths", json_loads(depths_json, 0, NULL));
    char edited[512];
    cm_test_write_temp("", 0, ".json", edited, sizeof edited);
    json_dump_file(root, edited, 0);
    json_decref(root);
    cm_nn2fpga_design d;
    cm_error err = {0};
    cm_status st = cm_nn2fpga_design_load(edited, &d, &err);
    assert_int_equal(st, want);
    if (st == CM_OK)
        cm_nn2fpga_design_free(&d);
    else if (!strstr(err.message, edited) || !strstr(err.message, what))
        fail_msg("unexpected message: %s", err.message);
    remove(edited);
}

/* Depths set by name (the ports skipped), kept in the export's stream order, used by the
 * builder and the generator, written and read back; bad names and values refused. */
static void fifo_depths_file(void **state)
{
    (void)state;
    cm_nn2fpga_design d;
    make_design(&models[0], true, &d);
    const char *names[] = {"in", "s5", "s1", "out"};
    const int64_t depths[] = {9, 31, 7, 9};
    cm_error err = {0};
    assert_int_equal(sim_nn2fpga_set_depths(&d, names, depths, 4, &err), CM_OK);
    assert_int_equal(d.n_fifo_depths, 2);
    expect_depth(&d, 0, "s1", 7);
    expect_depth(&d, 1, "s5", 31);

    sim_build b = build_of(&d);
    const sim_graph *g = b.parts[0].graph;
    assert_int_equal(sim_stream_depth(g, stream_index(g, "s5")), 31);
    assert_int_equal(sim_stream_depth(g, stream_index(g, "s1")), 7);
    /* generated: Conv_0's window stream, its 3 / 1 channel groups times the 4 + 1 steps
     * (32 / 8 reads a row and one) its 3 x 3, pad 1 window buffer writes behind its reads,
     * and one step more; the adapter stream s0 the plain 2 */
    assert_int_equal(sim_stream_depth(g, stream_index(g, "s2")), 3 * (4 + 1 + 1));
    assert_int_equal(sim_stream_depth(g, stream_index(g, "s0")), 2);
    sim_build_free(&b);
    hg_graph h = graph_of(&d);
    assert_int_equal(h.streams[hg_graph_stream(&h, "s5")].depth, 31);
    hg_graph_free(&h);

    char path[512];
    cm_test_write_temp("", 0, ".json", path, sizeof path);
    if (cm_nn2fpga_design_save(&d, path, &err) != CM_OK)
        fail_msg("%s", err.message);
    json_t *root = json_load_file(path, 0, NULL);
    json_t *saved = json_object_get(root, "fifo_depths");
    assert_int_equal(json_object_size(saved), 2);
    assert_int_equal(json_integer_value(json_object_get(saved, "s5")), 31);
    json_decref(root);
    cm_nn2fpga_design back;
    if (cm_nn2fpga_design_load(path, &back, &err) != CM_OK)
        fail_msg("%s", err.message);
    assert_int_equal(back.n_fifo_depths, 2);
    expect_depth(&back, 0, "s1", 7);
    expect_depth(&back, 1, "s5", 31);
    cm_nn2fpga_design_free(&back);

    expect_refused(&d, "s9999", 4, "no stream \"s9999\"");
    expect_refused(&d, "s3", 0, "\"s3\" must be an integer from 1 to 2147483648");
    expect_refused(&d, "s3", (INT64_C(1) << 31) + 1, "\"s3\"");
    load_edited(path, "{\"s9999\": 4}", CM_EINPUT, "fifo_depths: no stream \"s9999\"");
    load_edited(path, "{\"s1\": 0}", CM_EINPUT, "fifo_depths: \"s1\"");
    load_edited(path, "{\"s1\": \"deep\"}", CM_EINPUT, "fifo_depths: \"s1\"");
    load_edited(path, "[4]", CM_EINPUT, "\"fifo_depths\" must be an object");
    load_edited(path, "{\"s1\": 2147483648}", CM_OK, "");
    remove(path);
    cm_nn2fpga_design_free(&d);
}

/* cmocka hands each test its model case as the initial state. */
static void optimised(void **state) { check_optimised(*state); }
static void skips(void **state) { check_skips(*state); }
static void unoptimised(void **state) { check_unoptimised(*state); }
static void random_designs(void **state) { check_random(*state); }

#define MODEL_TEST(name, f, i) {name, f, NULL, NULL, (void *)&models[i]}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fifo_depths_file),
        MODEL_TEST("optimised_resnet8_a8w8", optimised, 0),
        MODEL_TEST("optimised_resnet8_a4w4", optimised, 1),
        MODEL_TEST("optimised_resnet20", optimised, 2),
        MODEL_TEST("optimised_mobilenet_v2", optimised, 3),
        MODEL_TEST("optimised_resnet8_u250", optimised, 4),
        MODEL_TEST("skips_resnet8", skips, 0),
        MODEL_TEST("skips_resnet20", skips, 2),
        MODEL_TEST("unoptimised_resnet8", unoptimised, 0),
        MODEL_TEST("unoptimised_resnet20", unoptimised, 2),
        MODEL_TEST("random_resnet8_a8w8", random_designs, 0),
        MODEL_TEST("random_resnet8_a4w4", random_designs, 1),
        MODEL_TEST("random_resnet20", random_designs, 2),
        MODEL_TEST("random_mobilenet_v2", random_designs, 3),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
