/* nn2FPGA designs as the HLS export generates them, for the engine: the generator's own
 * plan (hg_task_graph: the same tasks, template parameters and stream depths the export
 * writes) becomes one graph whose tasks run their template's loop nest (hls/templates,
 * every pipelined loop at II=1), one iteration per pipelined loop iteration, reading and
 * writing the ports that iteration reads and writes. Every template is one pipelined
 * loop per frame whose trip count is the cost model's task: the window buffer's steps
 * come from its schedule (hls_window.h), eq. 4.9's ICH * IH * IW / (ICH_PAR * OW_PAR)
 * plus the steps whose windows fall due after the last read; the computation's are eq.
 * 4.8's lc less the DSP chain's depth epsilon (a latency, not iterations); the width
 * adapters' the larger of their word counts.
 *
 * Pipeline latencies (start of an iteration to its write; the interval does not depend
 * on them, only the first frame's latency and the FIFO depths that keep it):
 *   window buffer 2 (line-buffer read, register); conv ceil(log2(FH*FW*ICH_PAR)) + 2 and
 *   fc ceil(log2(ICH_PAR)) + 2 (multiplier, adder tree, accumulator); dwconv
 *   ceil(log2(FH*FW)) + 2; maxpool ceil(log2(FH*FW)) + 1 (comparator tree); global pools
 *   2; requantise 3 (multiply, shift and round, clamp); add 2; fork and width adapters 1.
 * An iteration that reads a word outside its pipelined loop in the template (the conv's
 * and fc's window read before the output-channel loop) is counted in the loop's first
 * iteration, as the HLS tool schedules a loop-invariant read into the pipeline's first
 * stage. */
#include <stdlib.h>
#include <string.h>

#include "hls/hls_graph.h"
#include "hls/hls_window.h"
#include "sim/build.h"
#include "sim/sim_nn2fpga.h"

/* Depth of the top function's ports in the simulation: the AXI stream's register slice. */
#define N2S_PORT_DEPTH 2

static int32_t log2_ceil(int64_t v)
{
    int32_t n = 0;
    while (((int64_t)1 << n) < v)
        n++;
    return n;
}

static sim_seg seg(int64_t count, int32_t latency, int32_t r0, int32_t r1, int32_t w0, int32_t w1)
{
    sim_seg s;
    memset(&s, 0, sizeof s);
    s.count = count;
    s.ii = 1;
    s.latency = latency;
    s.rd[0] = r0;
    s.rd[1] = r1;
    s.wr[0] = w0;
    s.wr[1] = w1;
    return s;
}

/* ---- the window buffer (cm_window.h) as an iterator ---- */

/* Its loop, step by step (hls_window.h: a step is G iterations; it reads while t < reads
 * and writes window group k at step emit(k)), as runs of steps of one shape. */
typedef struct window_prog {
    hg_window geo;
    int64_t g;          /* channel groups: iterations per step */
    bool tap;
    int64_t t, steps;   /* the next step, steps per frame */
    int64_t k, emit_k;  /* the next window group and its step */
} window_prog;

static void window_begin(void *state)
{
    window_prog *w = state;
    w->t = 0;
    w->k = 0;
    w->emit_k = hg_window_due(&w->geo, 0);
}

static sim_seg window_seg(const window_prog *w, int64_t steps, bool read, bool emit)
{
    return seg(steps * w->g, 2, read ? 1 : 0, 0, emit ? 1 : 0, emit && w->tap ? 1 : 0);
}

/* The run from step t: the steps before the next write (up to the end of the reads), or
 * the writing steps that follow each other with one read status. */
static bool window_next(void *state, sim_seg *out)
{
    window_prog *w = state;
    if (w->t >= w->steps)
        return false;
    bool read = w->t < w->geo.reads;
    if (w->k >= w->geo.groups || w->emit_k > w->t) {
        int64_t until = w->k < w->geo.groups ? w->emit_k : w->steps;
        if (read && until > w->geo.reads)
            until = w->geo.reads;
        *out = window_seg(w, until - w->t, read, false);
        w->t = until;
        return true;
    }
    int64_t n = 0;
    while (w->k < w->geo.groups && w->emit_k == w->t && (w->t < w->geo.reads) == read) {
        n++;
        w->t++;
        if (++w->k < w->geo.groups) {
            int64_t due = hg_window_due(&w->geo, w->k);
            w->emit_k = due > w->t ? due : w->t;
        }
    }
    *out = window_seg(w, n, read, true);
    return true;
}

static cm_status window_program(const hg_gtask *t, sim_program *out, cm_error *err)
{
    window_prog *w = calloc(1, sizeof *w);
    if (!w)
        return cm_error_nomem(err);
    int64_t ich_par = hg_task_int(t, "ICH_PAR");
    w->g = ich_par > 0 ? hg_task_int(t, "ICH") / ich_par : 0;
    w->tap = strcmp(t->kind, "window_buffer_tap") == 0;
    if (w->g < 1 || !hg_window_init(&w->geo, hg_task_int(t, "IH"), hg_task_int(t, "IW"),
                                    hg_task_int(t, "FH"), hg_task_int(t, "FW"),
                                    hg_task_int(t, "S"), hg_task_int(t, "PAD"),
                                    hg_task_int(t, "OW_PAR"), hg_task_int(t, "PIN"))) {
        free(w);
        return cm_error_set(err, CM_EINTERNAL, "window buffer %s: bad parameters", t->name);
    }
    w->steps = hg_window_steps(&w->geo);
    *out = (sim_program){w, window_begin, window_next, free};
    return CM_OK;
}

/* ---- the other templates as loop nests ---- */

typedef struct ops_buf {
    sim_op *op;
    int n, cap;
    bool failed;
} ops_buf;

static void add_op(ops_buf *b, sim_op op)
{
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 16;
        sim_op *p = b->failed ? NULL : realloc(b->op, (size_t)cap * sizeof *p);
        if (!p) {
            b->failed = true;
            return;
        }
        b->op = p;
        b->cap = cap;
    }
    b->op[b->n++] = op;
}

static void add_run(ops_buf *b, sim_seg s)
{
    add_op(b, (sim_op){.kind = SIM_RUN, .seg = s});
}

static void add_loop(ops_buf *b, int64_t count, int body)
{
    add_op(b, (sim_op){.kind = SIM_LOOP, .count = count, .body = body});
}

/* cm_conv.h conv and cm_fc.h: per pixel group, per input-channel group one window (or
 * input) word read and OG output-channel iterations, which write on the last group. */
static void accumulate_ops(ops_buf *b, int64_t groups, int64_t ig, int64_t og, int32_t lat)
{
    add_loop(b, groups, ig > 1 ? 5 : 2);
    if (ig > 1) {
        add_loop(b, ig - 1, 2);
        add_run(b, seg(1, lat, 1, 0, 0, 0));
        add_run(b, seg(og - 1, lat, 0, 0, 0, 0));
    }
    add_run(b, seg(1, lat, 1, 0, 1, 0));
    add_run(b, seg(og - 1, lat, 0, 0, 1, 0));
}

/* cm_adapt.h repack_channels: per pixel group, an iteration reads when the next output
 * needs a word and writes once that output's channels are in. */
static void repack_ops(ops_buf *b, int64_t groups, int64_t ch, int64_t cin, int64_t cout)
{
    int at = b->n;
    add_loop(b, groups, 0);
    int64_t gi = ch / cin, go = ch / cout, steps = gi > go ? gi : go, ni = 0, no = 0;
    sim_seg cur = seg(0, 1, 0, 0, 0, 0);
    for (int64_t j = 0; j < steps; j++) {
        bool rd = ni * cin < (no + 1) * cout;
        ni += rd;
        bool wr = ni * cin >= (no + 1) * cout;
        no += wr;
        if (cur.count > 0 && (cur.rd[0] != rd || cur.wr[0] != wr)) {
            add_run(b, cur);
            cur.count = 0;
        }
        cur.rd[0] = rd;
        cur.wr[0] = wr;
        cur.count++;
    }
    add_run(b, cur);
    if (!b->failed)
        b->op[at].body = b->n - at - 1;
}

static int64_t ratio(const hg_gtask *t, const char *num, const char *den)
{
    int64_t d = hg_task_int(t, den);
    return d > 0 ? hg_task_int(t, num) / d : 0;
}

/* cm_adapt.h pack_pixels (PN -> P pixels) and unpack_pixels (P -> PN): per block of P
 * pixels, G = CH / CP words per PN pixels; pack writes on the block's last G reads,
 * unpack reads on its first G writes. */
static void pixel_ops(ops_buf *b, const hg_gtask *t, bool unpack)
{
    int64_t k = ratio(t, "P", "PN"), g = ratio(t, "CH", "CP");
    add_loop(b, ratio(t, "NPIX", "P"), 2);
    add_run(b, unpack ? seg(g, 1, 1, 0, 1, 0) : seg(g * (k - 1), 1, 1, 0, 0, 0));
    add_run(b, unpack ? seg(g * (k - 1), 1, 0, 0, 1, 0) : seg(g, 1, 1, 0, 1, 0));
}


/* The loop nest of task t's template; false for a kind this file does not know. */
static bool template_ops(const hg_gtask *t, ops_buf *b)
{
    const char *k = t->kind;
    int64_t words = hg_task_int(t, "NWORDS");
    if (strcmp(k, "conv") == 0) {
        /* a grouped convolution runs the same nest on each group in turn */
        int64_t taps = hg_task_int(t, "FH") * hg_task_int(t, "FW") * hg_task_int(t, "ICH_PAR");
        int64_t groups = hg_task_int(t, "GROUPS") > 1 ? hg_task_int(t, "GROUPS") : 1;
        accumulate_ops(b, hg_task_int(t, "OH") * ratio(t, "OW", "OW_PAR") * groups,
                       ratio(t, "ICH", "ICH_PAR") / groups, ratio(t, "OCH", "OCH_PAR") / groups,
                       log2_ceil(taps) + 2);
    } else if (strcmp(k, "fc") == 0) {
        accumulate_ops(b, 1, ratio(t, "ICH", "ICH_PAR"), ratio(t, "OCH", "OCH_PAR"),
                       log2_ceil(hg_task_int(t, "ICH_PAR")) + 2);
    } else if (strcmp(k, "dwconv") == 0 || strcmp(k, "maxpool") == 0) {
        int32_t tree = log2_ceil(hg_task_int(t, "FH") * hg_task_int(t, "FW"));
        add_run(b, seg(hg_task_int(t, "OH") * ratio(t, "OW", "OW_PAR") * ratio(t, "CH", "CH_PAR"),
                       tree + (k[0] == 'd' ? 2 : 1), 1, 0, 1, 0));
    } else if (strcmp(k, "gmaxpool") == 0 || strcmp(k, "gavgpool") == 0) {
        int64_t g = ratio(t, "CH", "CH_PAR");
        add_run(b, seg((hg_task_int(t, "H") * hg_task_int(t, "W") - 1) * g, 2, 1, 0, 0, 0));
        add_run(b, seg(g, 2, 1, 0, 1, 0));
    } else if (strcmp(k, "requant") == 0) {
        add_run(b, seg(words, 3, 1, 0, 1, 0));
    } else if (strcmp(k, "fork") == 0) {
        add_run(b, seg(words, 1, 1, 0, 1, 1));
    } else if (strcmp(k, "add") == 0) {
        add_run(b, seg(words, 2, 1, 1, 1, 0));
    } else if (strcmp(k, "repack") == 0) {
        int64_t cin = hg_task_int(t, "CIN"), cout = hg_task_int(t, "COUT");
        if (cin < 1 || cout < 1)
            return false;
        repack_ops(b, ratio(t, "NPIX", "P"), hg_task_int(t, "CH"), cin, cout);
    } else if (strcmp(k, "unpack") == 0 || strcmp(k, "pack") == 0) {
        pixel_ops(b, t, k[0] == 'u');
    } else {
        return false;
    }
    return true;
}

static cm_status task_program(const hg_gtask *t, sim_program *out, cm_error *err)
{
    if (strncmp(t->kind, "window_buffer", 13) == 0)
        return window_program(t, out, err);
    ops_buf b = {.n = 0};
    cm_status st;
    if (!template_ops(t, &b))
        st = cm_error_set(err, CM_EINPUT, "layer %s: the generated task %s (%s) has no "
                          "simulation model", t->layer, t->name, t->kind);
    else
        st = b.failed ? cm_error_nomem(err) : sim_program_loops(b.op, b.n, out, err);
    free(b.op);
    return st;
}

/* ---- the graph ---- */

/* Stream indices of the task's ports: inputs IN, IN2; outputs OUT, OUT2 or TAP. */
static cm_status task_ports(const hg_graph *h, const hg_gtask *t, int in_s, int out_s, int *in,
                            int *n_in, int *out, int *n_out, cm_error *err)
{
    static const char *const in_keys[] = {"IN", "IN2"}, *const out_keys[] = {"OUT", "OUT2", "TAP"};
    *n_in = *n_out = 0;
    for (int k = 0; k < 5; k++) {
        const char *name = hg_task_value(t, k < 2 ? in_keys[k] : out_keys[k - 2]);
        if (!name || !*name)
            continue;
        int s = strcmp(name, "in") == 0 ? in_s : strcmp(name, "out") == 0 ? out_s
                                                                            : hg_graph_stream(h, name);
        if (s < 0)
            return cm_error_set(err, CM_EINTERNAL, "task %s: no stream %s", t->name, name);
        if (k < 2)
            in[(*n_in)++] = s;
        else
            out[(*n_out)++] = s;
    }
    return CM_OK;
}

static const cm_nn2fpga_layer *layer_named(const cm_nn2fpga_design *d, const char *name)
{
    for (int i = 0; i < d->result.n_layers; i++) {
        const cm_nn2fpga_layer *l = &d->result.layers[i];
        if (l->layer >= 0 && l->layer < d->graph->n_layers &&
            strcmp(d->graph->layers[l->layer].name, name) == 0)
            return l;
    }
    return NULL;
}

/* The cost model's cycles for a task: its layer's lc for the computation, lw for the
 * window buffer and a global pool (whose loop reads the frame as a window buffer would); adapters, forks, requantise and add have none (0), and so has a
 * loop-merged downsampling convolution, whose work the fused layer's lc counts. */
static int64_t analytic_cycles(const cm_nn2fpga_design *d, const hg_gtask *t)
{
    const cm_nn2fpga_layer *l = layer_named(d, t->layer);
    if (!l)
        return 0;
    if (strncmp(t->kind, "window_buffer", 13) == 0 || strcmp(t->kind, "gmaxpool") == 0 ||
        strcmp(t->kind, "gavgpool") == 0)
        return l->lw;
    static const char *const compute[] = {"conv", "dwconv", "maxpool", "fc"};
    for (int k = 0; k < 4; k++)
        if (strcmp(t->kind, compute[k]) == 0)
            return l->lc;
    return 0;
}

static cm_status add_tasks(const cm_nn2fpga_design *d, const hg_graph *h, sim_graph *g, int in_s,
                           int out_s, int64_t *cycles, cm_error *err)
{
    for (int i = 0; i < h->n_tasks; i++) {
        const hg_gtask *t = &h->tasks[i];
        int in[SIM_MAX_PORTS], out[SIM_MAX_PORTS], n_in, n_out;
        sim_program prog;
        cm_status st = task_ports(h, t, in_s, out_s, in, &n_in, out, &n_out, err);
        if (st == CM_OK)
            st = task_program(t, &prog, err);
        if (st != CM_OK)
            return st;
        int id = sim_task_add(g, t->name, t->kind, in, n_in, out, n_out, prog);
        if (id < 0)
            return cm_error_set(err, CM_EINTERNAL, "task %s: cannot add it to the simulation "
                                "(out of memory, or a stream with two writers or readers)", t->name);
        cycles[id] = analytic_cycles(d, t);
    }
    return CM_OK;
}

/* Latency of one frame per the design: S plus every layer's window fill, which is the
 * batch's latency_cycles with the other batch - 1 frames' periods taken out. */
static int64_t frame_latency(const cm_nn2fpga_result *r)
{
    int64_t batch = r->batch > 0 ? r->batch : 1;
    if (r->latency_cycles == INT64_MAX || r->period > (INT64_MAX - 1) / batch)
        return 0;
    return r->latency_cycles - (batch - 1) * r->period;
}

static cm_status build_graph(const cm_nn2fpga_design *d, const hg_graph *h, sim_build *out,
                             cm_error *err)
{
    sim_graph *g = sim_graph_new();
    int64_t *cycles = calloc((size_t)h->n_tasks + 2, sizeof *cycles);
    bool ok = g && cycles;
    for (int i = 0; ok && i < h->n_streams; i++)
        ok = sim_stream_add(g, h->streams[i].name, h->streams[i].depth) == i;
    int in_s = ok ? sim_stream_add(g, "in", N2S_PORT_DEPTH) : -1;
    int out_s = ok ? sim_stream_add(g, "out", N2S_PORT_DEPTH) : -1;
    cm_status st = ok && in_s >= 0 && out_s >= 0 ? CM_OK : cm_error_nomem(err);
    if (st == CM_OK)
        st = add_tasks(d, h, g, in_s, out_s, cycles, err);
    if (st == CM_OK && (sim_source_add(g, "input", in_s, h->in_words, 1) < 0 ||
                        sim_sink_add(g, "output", out_s, h->out_words, 1) < 0))
        st = cm_error_set(err, CM_EINTERNAL, "%s: the top function's ports cannot be added to "
                          "the simulation", d->model_path);
    sim_part *part = NULL;
    if (st == CM_OK) {
        part = sim_build_add(out, g, "accelerator");
        g = NULL; /* the build owns it now, or freed it */
        st = part ? CM_OK : cm_error_nomem(err);
    }
    sim_graph_free(g);
    if (st != CM_OK) {
        free(cycles);
        return st;
    }
    part->frames = 0;
    part->analytic_interval = d->result.period;
    part->analytic_latency = frame_latency(&d->result);
    part->analytic_task_cycles = cycles;
    return CM_OK;
}

cm_status sim_build_nn2fpga(const cm_nn2fpga_design *d, sim_build *out, cm_error *err)
{
    hg_graph h;
    cm_status st = hg_task_graph(d, &h, err);
    if (st != CM_OK)
        return st;
    st = build_graph(d, &h, out, err);
    hg_graph_free(&h);
    if (st != CM_OK)
        return st;
    out->clock_mhz = d->result.clock_mhz;
    out->batch = 1;
    out->analytic_interval = d->result.period;
    out->analytic_latency = frame_latency(&d->result);
    return CM_OK;
}

cm_status sim_nn2fpga_set_depths(cm_nn2fpga_design *d, const char *const *names,
                                 const int64_t *depths, int n, cm_error *err)
{
    const char **kept = calloc((size_t)n + 1, sizeof *kept);
    int64_t *kept_depths = calloc((size_t)n + 1, sizeof *kept_depths);
    cm_status st = kept && kept_depths ? CM_OK : cm_error_nomem(err);
    int m = 0;
    for (int k = 0; st == CM_OK && k < n; k++) {
        if (strcmp(names[k], "in") == 0 || strcmp(names[k], "out") == 0)
            continue;
        kept[m] = names[k];
        kept_depths[m++] = depths[k];
    }
    if (st == CM_OK)
        st = hg_set_fifo_depths(d, kept, kept_depths, m, d->model_path, err);
    free(kept);
    free(kept_depths);
    return st;
}
