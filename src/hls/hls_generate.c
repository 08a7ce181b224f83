/* The generator: fills the project templates (hls/project/tasks.in, top.cpp.in, ...) from
 * the integer network and the nn2FPGA design. It decides each stream's packing (the
 * producer's parallelism, thesis section 3.5.1), inserts the width adapters where a
 * consumer reads another packing, forks residual blocks' inputs and sizes each skip
 * FIFO from the lag of its main branch (section 3.6.4), so that the dataflow region
 * cannot deadlock at the exported depths. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cnnmap/nn2fpga.h>

#include "hls/hls_gen.h"
#include "hls/hls_graph.h"
#include "hls/hls_window.h"

/* Streams between tasks: two words, as nn2FPGA's generator gives its plain FIFOs. */
#define HG_DEPTH 2

typedef hg_packing packing;

/* ---- filling templates ---- */

/* The line "kind: text" of tasks.in, without its kind. */
static const char *task_template(const hg_ctx *g, const char *kind, size_t *len)
{
    size_t k = strlen(kind);
    for (const char *s = g->tasks_in; s && *s;) {
        const char *end = strchr(s, '\n');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        if (n > k + 1 && strncmp(s, kind, k) == 0 && s[k] == ':') {
            *len = n - k - 1;
            return s + k + 1;
        }
        s = end ? end + 1 : NULL;
    }
    *len = 0;
    return NULL;
}

void hg_fill(cm_strbuf *out, const char *tpl, size_t len, const char *const *kv)
{
    for (size_t i = 0; i < len;) {
        const char *at = tpl[i] == '@' ? memchr(tpl + i + 1, '@', len - i - 1) : NULL;
        if (!at) { /* the text up to the next '@' in one append */
            const char *next = memchr(tpl + i + 1, '@', len - i - 1);
            size_t run = next ? (size_t)(next - (tpl + i)) : len - i;
            cm_strbuf_append(out, tpl + i, run);
            i += run;
            continue;
        }
        size_t klen = (size_t)(at - (tpl + i + 1));
        const char *val = NULL;
        for (int k = 0; kv[k]; k += 2)
            if (strlen(kv[k]) == klen && strncmp(kv[k], tpl + i + 1, klen) == 0)
                val = kv[k + 1];
        if (!val) { /* not a key: a literal '@' */
            cm_strbuf_append(out, "@", 1);
            i++;
            continue;
        }
        cm_strbuf_append(out, val, strlen(val));
        i += klen + 2;
    }
}

void hg_emit(hg_ctx *g, cm_strbuf *to, const char *kind, const char *const *kv)
{
    size_t len;
    const char *tpl = task_template(g, kind, &len);
    if (!tpl) {
        to->failed = true; /* a missing template line is a broken build */
        return;
    }
    hg_fill(to, tpl, len, kv);
    cm_strbuf_printf(to, "\n");
    if (to == &g->tasks)
        g->n_tasks++;
    if (to == &g->tasks && g->rec)
        hg_graph_add_task(g->rec, kind, g->cur_op >= 0 ? g->net->op[g->cur_op].name : "", kv);
}

/* ---- names and types ---- */

static char *num(hg_ctx *g, long long v)
{
    char *s = g->scratch[g->next_scratch++ % HG_SCRATCH];
    snprintf(s, HG_SCRATCH_LEN, "%lld", v);
    return s;
}

const char *hg_type_name(char *buf, size_t size, int64_t lo, int64_t hi)
{
    bool s;
    int bits = hl_bits_for_range(lo, hi, &s);
    snprintf(buf, size, "%s<%d>", s ? "ap_int" : "ap_uint", bits);
    return buf;
}

static const char *type_of(hg_ctx *g, int64_t lo, int64_t hi)
{
    return hg_type_name(g->scratch[g->next_scratch++ % HG_SCRATCH], HG_SCRATCH_LEN, lo, hi);
}

static const char *tensor_type(hg_ctx *g, int t)
{
    return type_of(g, g->net->t[t].lo, g->net->t[t].hi);
}

void hg_identifier(const char *name, int index, char *out, size_t size)
{
    int n = snprintf(out, size, "l%d_", index);
    for (const char *s = name; *s && (size_t)n + 1 < size && n < 40; s++)
        out[n++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')
                       ? *s : '_';
    out[n] = '\0';
}

int64_t hg_stream_depth(const hg_ctx *g, const char *name, int64_t depth)
{
    for (int k = 0; k < g->n_fifo_depths; k++)
        if (strcmp(g->fifo_depths[k].stream, name) == 0)
            return g->fifo_depths[k].depth;
    return depth;
}

static void new_stream(hg_ctx *g, const char *type, int n, int64_t depth, char *name)
{
    snprintf(name, HG_NAME_LEN, "s%d", g->n_streams++);
    depth = hg_stream_depth(g, name, depth);
    if (g->rec)
        hg_graph_add_stream(g->rec, name, n, depth);
    hg_emit(g, &g->streams, "stream", (const char *const[]){"T", type, "N", num(g, n), "NAME", name, NULL});
    hg_emit(g, &g->streams, "depth",
         (const char *const[]){"NAME", name, "DEPTH", num(g, depth), NULL});
}

/* ---- packings ---- */

static packing produced(const hg_ctx *g, int t)
{
    return g->pack[t];
}

static void plan_packings(hg_ctx *g)
{
    const hl_net *net = g->net;
    for (int i = 0; i < net->n_op; i++) {
        const hl_op *op = &net->op[i];
        packing p = {1, 1};
        switch (op->kind) {
        case HL_CONV: p = (packing){op->ow_par, op->och_par}; break;
        case HL_DWCONV:
        case HL_MAXPOOL: p = (packing){op->ow_par, op->ich_par}; break;
        case HL_GMAXPOOL:
        case HL_GAVGPOOL: p = (packing){1, op->ich_par}; break;
        case HL_FC: p = (packing){1, op->och_par}; break;
        case HL_REQUANT: p = g->pack[op->in[0]]; break;
        case HL_ADD: /* the main branch's packing; the skip side is adapted to it */
            for (int a = 0; a < g->n_adds; a++)
                if (g->adds[a].op == i)
                    p = g->pack[op->in[g->adds[a].main]];
            if (g->n_adds == 0)
                p = g->pack[op->in[0]];
            break;
        case HL_INPUT: /* the top function's port: one pixel, all its channels, a word */
            p = (packing){1, (int)net->t[op->out].c};
            break;
        }
        g->pack[op->out] = p;
    }
}

/* ---- skip FIFO depths ---- */

int hg_design_skip(const cm_nn2fpga_result *design, const char *name)
{
    for (int k = 0; design && k < design->n_skips; k++)
        if (strcmp(design->skips[k].name, name) == 0)
            return k;
    return -1;
}

static bool windowed(hl_kind k)
{
    return k == HL_CONV || k == HL_DWCONV || k == HL_MAXPOOL;
}

/* The last input pixel (row-major index) op must have read before it writes the word
 * holding output pixel n; -1 when it needs none. */
static int64_t need_of_op(const hg_ctx *g, const hl_op *op, int64_t n)
{
    const hl_tensor *in = &g->net->t[op->in[0]], *out = &g->net->t[op->out];
    int64_t pixels_in = in->h * in->w;
    if (op->kind == HL_GMAXPOOL || op->kind == HL_GAVGPOOL || op->kind == HL_FC)
        return pixels_in - 1;
    if (!windowed(op->kind))
        return n;
    /* the window buffer writes n's window group at the step its schedule gives, having
     * read every pixel group up to that step; the adapters before it pass whole groups of
     * lcm(producer's pixels, its own) pixels */
    int64_t pin = hg_window_pin(op->ow_par, in->w);
    hg_window w;
    if (!hg_window_init(&w, in->h, in->w, op->fh, op->fw, op->stride, op->pad, op->ow_par, pin))
        return pixels_in - 1;
    int64_t k = (n / out->w) * w.per_row + (n % out->w) / op->ow_par;
    int64_t step = hg_window_emit(&w, k);
    int64_t last = (step < w.reads ? step : w.reads - 1) * pin + pin - 1;
    int64_t p = g->pack[op->in[0]].p, l = p / hg_gcd(p, pin) * pin, x = last % in->w;
    int64_t end = (x / l) * l + l - 1;
    return last - x + (end < in->w ? end : in->w - 1);
}

/* Rounds output pixel n of tensor t up to the end of its word's pixel group. */
static int64_t group_end(const hg_ctx *g, int t, int64_t n)
{
    int p = g->pack[t].p;
    int64_t w = g->net->t[t].w, x = n % w;
    int64_t end = (x / p) * p + p - 1;
    return n - x + (end < w ? end : w - 1);
}

/* Walks from tensor `from` back along first inputs to `fork`: the pixel of fork that
 * must have been read before pixel n of `from` is written. With a tap (temporal reuse),
 * the skip side's pixels are already on the tapped grid: its downsampling convolution
 * (tap_consumer) maps pixel to pixel. */
static int64_t need_along(const hg_ctx *g, int from, int fork, int64_t n, int tap_consumer)
{
    for (int t = from; t != fork && n >= 0;) {
        int producer = g->net->t[t].producer;
        const hl_op *op = &g->net->op[producer];
        n = producer == tap_consumer ? group_end(g, t, n) : need_of_op(g, op, group_end(g, t, n));
        t = op->in[0];
    }
    return n;
}

static bool on_chain(const hg_ctx *g, int from, int target)
{
    for (int t = from;;) {
        if (t == target)
            return true;
        const hl_op *op = &g->net->op[g->net->t[t].producer];
        if (op->kind == HL_INPUT)
            return false;
        t = op->in[0];
    }
}

static int chain_windows(const hg_ctx *g, int from, int fork)
{
    int n = 0;
    for (int t = from; t != fork;) {
        const hl_op *op = &g->net->op[g->net->t[t].producer];
        n += windowed(op->kind);
        t = op->in[0];
    }
    return n;
}

/* The task of the chain from `from` back to `fork` that reads fork itself. */
static int first_op_after(const hg_ctx *g, int from, int fork)
{
    int first = g->net->t[from].producer;
    for (int t = from; t != fork;) {
        first = g->net->t[t].producer;
        t = g->net->op[first].in[0];
    }
    return first;
}

/* Whether the design optimised this add's skip buffer, and the generated code can follow:
 * the main branch's first task is a windowed layer whose output grid is the skip's (an
 * identity skip: stride 1, centred padding; a downsampling skip: a 1 x 1, stride-S, unpadded
 * convolution beside a centred stride-S window). */
static bool can_reuse(const hg_ctx *g, const hg_add *a, int main_t, int skip_t)
{
    const hl_op *add = &g->net->op[a->op];
    int k = hg_design_skip(g->design, add->name);
    bool optimised = k >= 0 && g->design->skips[k].optimised;
    if (!optimised || main_t == a->fork)
        return false;
    const hl_op *m = &g->net->op[first_op_after(g, main_t, a->fork)];
    bool centred = windowed(m->kind) && m->kind != HL_MAXPOOL && m->fh == m->fw &&
                   m->fh % 2 == 1 && m->pad == (m->fh - 1) / 2;
    if (!centred)
        return false;
    if (skip_t == a->fork)
        return m->stride == 1;
    const hl_op *d = &g->net->op[first_op_after(g, skip_t, a->fork)];
    return d->kind == HL_CONV && d->fh == 1 && d->fw == 1 && d->pad == 0 &&
           d->stride == m->stride;
}

/* The pixels (a multiple of p) the first windowed task on the chain from `from` back to
 * `origin` takes in one read through its adapters: lcm(p, its read width); p when none. */
static int64_t first_read_group(const hg_ctx *g, int from, int origin, int64_t p)
{
    int64_t pin = 1;
    for (int t = from; t != origin;) {
        const hl_op *op = &g->net->op[g->net->t[t].producer];
        if (windowed(op->kind))
            pin = hg_window_pin(op->ow_par, g->net->t[op->in[0]].w);
        t = op->in[0];
    }
    return p / hg_gcd(p, pin) * pin;
}

/* For a residual add: its fork tensor, which operand is the main branch, whether the
 * skip reuses the first window buffer, and the skip FIFO depth in words. */
static cm_status plan_add(hg_ctx *g, int op_index, hg_add *a)
{
    const hl_op *op = &g->net->op[op_index];
    int fork = -1;
    for (int t = op->in[1]; fork < 0;) {
        if (on_chain(g, op->in[0], t))
            fork = t;
        const hl_op *p = &g->net->op[g->net->t[t].producer];
        if (fork < 0 && p->kind == HL_INPUT)
            break;
        t = p->in[0];
    }
    if (fork < 0 || g->net->t[fork].n_consumers != 2)
        return cm_error_set(g->err, CM_EINPUT, "%s: add %s: its operands do not meet at a fork "
                            "of two branches (no building block)", g->origin, op->name);
    a->fork = fork;
    a->main = chain_windows(g, op->in[0], fork) >= chain_windows(g, op->in[1], fork) ? 0 : 1;
    int main_t = op->in[a->main], skip_t = op->in[1 - a->main];
    a->reuse = can_reuse(g, a, main_t, skip_t);
    a->skip_op = skip_t == fork ? op_index : first_op_after(g, skip_t, fork);
    /* Pixel indices on the fork's grid, or with reuse on the tapped grid (the first
     * window's output), where the first task's own lag is no longer buffered. */
    int origin = fork, tap_consumer = -1;
    hg_packing fp = produced(g, fork);
    int64_t channels = g->net->t[fork].c;
    if (a->reuse) {
        a->tap_op = first_op_after(g, main_t, fork);
        const hl_op *m = &g->net->op[a->tap_op];
        origin = m->out;
        tap_consumer = a->skip_op == op_index ? -1 : a->skip_op;
        fp = (hg_packing){m->ow_par, m->ich_par};
    }
    const hl_tensor *out = &g->net->t[op->out];
    int p = g->pack[main_t].p;
    /* Before the add takes the skip's group at `first`, the main branch must have read the
     * origin up to `need`, so the FIFO holds every group from the first one not yet taken
     * to need's: the most of them over the frame is the depth (one word less and the
     * writer of the skip waits on the add, which waits on the main branch, which waits on
     * that writer). Groups are whole words of fp.p pixels, and fp.p divides the width. */
    int64_t pixels = out->h * out->w, worst = 1;
    for (int64_t first = 0; first < pixels; first += p) {
        int64_t end = group_end(g, main_t, first);
        int64_t need = need_along(g, main_t, origin, end, -1);
        int64_t next = need_along(g, skip_t, fork, first - 1, tap_consumer) + 1;
        int64_t groups = need >= next ? need / fp.p - next / fp.p + 1 : 0;
        worst = groups > worst ? groups : worst;
    }
    /* More than the deadlock bound by the pixels the main branch's first window buffer
     * reads at once (its adapters' lcm group): it reads them while it writes the windows
     * of the previous ones, and without that room the writer of the skip waits on the add
     * at every row (a lost interval, not a deadlock). */
    int64_t lead = first_read_group(g, main_t, origin, fp.p);
    a->depth = (worst + lead / fp.p) * (channels / fp.cp);
    /* A design may give the FIFO more room than it needs (its loader refuses less). */
    int k = hg_design_skip(g->design, op->name);
    if (k >= 0 && g->design->skips[k].fifo_words > a->depth)
        a->depth = g->design->skips[k].fifo_words;
    return CM_OK;
}

/* ---- streams of a tensor ---- */

/* Adapts stream `src` (tensor t's values over `pixels` pixels, packing from) to packing
 * `to` through L = lcm(from.p, to.p) pixels (cm_adapt.h: pack P1 -> L, repack C1 -> C2,
 * unpack L -> P2, each only when it changes something); returns the final stream's name in
 * out (dest when given: the last adapter writes there). */
static void adapt(hg_ctx *g, int t, int64_t pixels, const char *src, packing from, packing to,
                  const char *dest, char *out)
{
    const hl_tensor *x = &g->net->t[t];
    const char *T = tensor_type(g, t);
    const char *npix = num(g, pixels), *ch = num(g, x->c);
    char cur[HG_NAME_LEN], next[HG_NAME_LEN], task[HG_NAME_LEN];
    snprintf(cur, sizeof cur, "%s", src);
    int l = (int)(from.p / hg_gcd(from.p, to.p) * to.p);
    static const char *const kinds[] = {"pack", "repack", "unpack"};
    packing stage[3] = {{l, from.cp}, {l, to.cp}, to};
    bool used[3] = {from.p != l, from.cp != to.cp, l != to.p};
    int last = -1;
    for (int k = 0; k < 3; k++)
        last = used[k] ? k : last;
    packing now = from;
    for (int k = 0; k < 3; k++) {
        if (!used[k])
            continue;
        packing after = stage[k];
        /* between two adapters a stream holds a group of L pixels (CH / cp words), so
         * that the first assembles the next group while the second still sends this one */
        int64_t group = x->c / after.cp + 1;
        if (k == last && dest)
            snprintf(next, sizeof next, "%s", dest);
        else
            new_stream(g, T, after.p * after.cp, k == last || group < HG_DEPTH ? HG_DEPTH : group,
                       next);
        snprintf(task, sizeof task, "adapt%d", g->n_tasks);
        /* P the wider pixel packing, PN the narrower; repack's P its only one */
        int wide = now.p > after.p ? now.p : after.p, narrow = now.p < after.p ? now.p : after.p;
        hg_emit(g, &g->tasks, kinds[k],
             (const char *const[]){"TASK", task, "T", T, "NPIX", npix, "CH", ch, "P",
                                   num(g, wide), "PN", num(g, narrow), "CP", num(g, now.cp),
                                   "CIN", num(g, now.cp), "COUT", num(g, after.cp), "IN", cur,
                                   "OUT", next, NULL});
        snprintf(cur, sizeof cur, "%s", next);
        now = after;
    }
    snprintf(out, HG_NAME_LEN, "%s", cur);
}

/* The add whose skip reuses the window buffer of tensor t's consumer, or NULL. */
static hg_add *reuse_of(hg_ctx *g, int t)
{
    for (int a = 0; a < g->n_adds; a++)
        if (g->adds[a].fork == t && g->adds[a].reuse)
            return &g->adds[a];
    return NULL;
}

static hg_add *reuse_tapped_by(hg_ctx *g, int op_index)
{
    for (int a = 0; a < g->n_adds; a++)
        if (g->adds[a].reuse && g->adds[a].tap_op == op_index)
            return &g->adds[a];
    return NULL;
}

/* The tap stream of a reusing add: the skip FIFO, declared on first use. */
static const char *tap_stream(hg_ctx *g, hg_add *a)
{
    if (!a->fifo[0]) {
        const hl_op *m = &g->net->op[a->tap_op];
        new_stream(g, tensor_type(g, a->fork), m->ow_par * m->ich_par, a->depth, a->fifo);
    }
    return a->fifo;
}

/* The stream that consumer `op_index` reads tensor t from, in packing `want`. A tensor
 * with two consumers is forked on its first request; the skip side of a residual add
 * gets the FIFO depth plan_add computed. */
static void stream_for(hg_ctx *g, int t, int op_index, packing want, char *out)
{
    hg_tensor_streams *ts = &g->ts[t];
    char src[HG_NAME_LEN];
    hg_add *reuse = reuse_of(g, t);
    if (reuse && op_index == reuse->skip_op) {
        const hl_op *m = &g->net->op[reuse->tap_op];
        const hl_tensor *grid = &g->net->t[m->out]; /* the taps: one per output pixel */
        adapt(g, t, grid->h * grid->w, tap_stream(g, reuse), (packing){m->ow_par, m->ich_par},
              want, NULL, out);
        return;
    }
    if (reuse) {
        snprintf(src, sizeof src, "%s", ts->name);
    } else if (g->net->t[t].n_consumers == 2) {
        if (!ts->forked) {
            hg_add *add = NULL;
            for (int a = 0; a < g->n_adds; a++)
                if (g->adds[a].fork == t)
                    add = &g->adds[a];
            packing p = produced(g, t);
            const char *T = tensor_type(g, t);
            new_stream(g, T, p.p * p.cp, HG_DEPTH, ts->branch[0]);
            new_stream(g, T, p.p * p.cp, add ? add->depth : HG_DEPTH, ts->branch[1]);
            if (add)
                snprintf(add->fifo, sizeof add->fifo, "%s", ts->branch[1]);
            char task[HG_NAME_LEN];
            snprintf(task, sizeof task, "fork%d", g->n_tasks);
            const hl_tensor *x = &g->net->t[t];
            hg_emit(g, &g->tasks, "fork",
                 (const char *const[]){"TASK", task, "T", T, "N", num(g, p.p * p.cp), "NWORDS",
                                       num(g, x->h * x->w * x->c / (p.p * p.cp)), "IN", ts->name,
                                       "OUT", ts->branch[0], "OUT2", ts->branch[1], NULL});
            ts->forked = true;
        }
        /* the skip side (the add itself on an identity skip, or the first task of the
         * branch with fewer windowed layers) takes branch 1, the deep FIFO */
        bool skip = false;
        for (int a = 0; a < g->n_adds; a++)
            if (g->adds[a].fork == t) {
                const hl_op *add = &g->net->op[g->adds[a].op];
                int skip_t = add->in[1 - g->adds[a].main];
                skip = op_index == g->adds[a].op ? skip_t == t
                                                 : on_chain(g, skip_t, g->net->op[op_index].out);
            }
        snprintf(src, sizeof src, "%s", ts->branch[skip ? 1 : 0]);
    } else {
        snprintf(src, sizeof src, "%s", ts->name);
    }
    adapt(g, t, g->net->t[t].h * g->net->t[t].w, src, produced(g, t), want, NULL, out);
}

/* ---- tasks ---- */

/* A downsampling convolution merged beside the first window of its block (loop merge)
 * reads the tapped grid: a 1 x 1, stride-1 convolution over the output's pixels. */
static bool on_tapped_grid(hg_ctx *g, int op_index)
{
    for (int a = 0; a < g->n_adds; a++)
        if (g->adds[a].reuse && g->adds[a].skip_op == op_index)
            return true;
    return false;
}

/* A convolution or fully connected task writes a pixel group's OCH / OCH_PAR words in one
 * burst, on its last input-channel group (a grouped convolution a group's OCH / GROUPS /
 * OCH_PAR words on the group's last); the next layer reads them across its own pixel
 * group. Its output stream holds a burst, so that it need not wait for the reader. */
static int64_t output_depth(const hl_op *op, const hl_tensor *y)
{
    int64_t groups = op->kind == HL_CONV && op->groups > 1 ? op->groups : 1;
    int64_t burst = (op->kind == HL_CONV || op->kind == HL_FC) && op->och_par > 0
                        ? y->c / groups / op->och_par + 1 : HG_DEPTH;
    return burst > HG_DEPTH ? burst : HG_DEPTH;
}

/* A window buffer whose last windows fall due after its last read spends its frame's last
 * steps writing only (hls_window.h); the stream into it holds what its producer writes
 * meanwhile, in the producer's words, so that the producer need not wait a frame's end. */
static int64_t tail_depth(const hg_ctx *g, int t)
{
    const hl_tensor *x = &g->net->t[t];
    packing p = produced(g, t);
    int64_t most = 0;
    for (int i = 0; i < g->net->n_op; i++) {
        const hl_op *op = &g->net->op[i];
        hg_window w;
        int64_t pin = hg_window_pin(op->ow_par, x->w);
        if (op->in[0] != t || !windowed(op->kind) || on_tapped_grid((hg_ctx *)g, i) ||
            !hg_window_init(&w, x->h, x->w, op->fh, op->fw, op->stride, op->pad, op->ow_par, pin))
            continue;
        int64_t words = (hg_window_steps(&w) - w.reads) * pin * x->c / (p.p * p.cp);
        most = words > most ? words : most;
    }
    return most;
}

static void output_stream(hg_ctx *g, const hl_op *op, char *out)
{
    packing p = produced(g, op->out);
    if (op->out == g->net->output && p.p == 1 && p.cp == 1)
        snprintf(out, HG_NAME_LEN, "out");
    else
        new_stream(g, tensor_type(g, op->out), p.p * p.cp,
                   output_depth(op, &g->net->t[op->out]) + tail_depth(g, op->out), out);
    snprintf(g->ts[op->out].name, HG_NAME_LEN, "%s", out);
}


/* The window stream's depth: the window buffer reads a pixel group only as it writes the
 * windows due M steps before (hls_window.h), so while the computation works through a
 * pixel group, the producer's next burst gets in only if the stream holds the G windows
 * of each of those M + 1 steps. */
static int64_t window_depth(const hl_op *op, int64_t groups, int64_t ih, int64_t iw, int s,
                            int pin)
{
    hg_window w;
    if (!hg_window_init(&w, ih, iw, op->fh, op->fw, s, op->pad, op->ow_par, pin))
        return HG_DEPTH;
    int64_t k = w.groups > w.per_row ? w.per_row : 0, lag = hg_window_emit(&w, k) - k;
    int64_t depth = groups * ((lag > 0 ? lag : 0) + 1);
    return depth > HG_DEPTH ? depth : HG_DEPTH;
}

static void emit_windowed(hg_ctx *g, int i, const char *id)
{
    const hl_op *op = &g->net->op[i];
    const hl_tensor *x = &g->net->t[op->in[0]], *y = &g->net->t[op->out];
    bool tapped = on_tapped_grid(g, i);
    int64_t ih = tapped ? y->h : x->h, iw = tapped ? y->w : x->w;
    int s_in = tapped ? 1 : op->stride;
    hg_add *taps = reuse_tapped_by(g, i);
    int par = op->ich_par, pin = (int)hg_window_pin(op->ow_par, iw);
    char in[HG_NAME_LEN], win[HG_NAME_LEN], out[HG_NAME_LEN], task[HG_NAME_LEN + 8];
    stream_for(g, op->in[0], i, (packing){pin, par}, in);
    const char *T = tensor_type(g, op->in[0]);
    int fwx = op->fw + (op->ow_par - 1) * s_in;
    new_stream(g, T, par * op->fh * fwx, window_depth(op, x->c / par, ih, iw, s_in, pin), win);
    char pad_value[64];
    snprintf(pad_value, sizeof pad_value, "%s(%lld)", T,
             op->kind == HL_MAXPOOL ? (long long)x->lo : 0LL);
    snprintf(task, sizeof task, "%s_wb", id);
    hg_window geo;
    bool shaped = hg_window_init(&geo, ih, iw, op->fh, op->fw, s_in, op->pad, op->ow_par, pin);
    long long buf = shaped ? hg_window_buffer(&geo) : 1, steps = shaped ? hg_window_steps(&geo) : 0;
    const char *kv_wb[] = {"TASK", task, "T", T, "ICH", num(g, x->c), "IH", num(g, ih), "IW",
                           num(g, iw), "FH", num(g, op->fh), "FW", num(g, op->fw), "S",
                           num(g, s_in), "PAD", num(g, op->pad), "ICH_PAR", num(g, par),
                           "OW_PAR", num(g, op->ow_par), "PIN", num(g, pin), "BUF", num(g, buf), "STEPS",
                           num(g, steps), "IN", in, "OUT", win, "TAP",
                           taps ? tap_stream(g, taps) : "", "PAD_VALUE", pad_value, NULL};
    hg_emit(g, &g->tasks, taps ? "window_buffer_tap" : "window_buffer", kv_wb);
    output_stream(g, op, out);
    const char *kind = op->kind == HL_CONV ? "conv" : op->kind == HL_DWCONV ? "dwconv" : "maxpool";
    char w_t[HG_NAME_LEN + 4], b_t[HG_NAME_LEN + 4]; /* the weights header's typedefs */
    snprintf(w_t, sizeof w_t, "%s_w_t", id);
    snprintf(b_t, sizeof b_t, "%s_b_t", id);
    const char *kv[] = {"TASK", id, "ID", id, "T", T, "IN_T", T, "W_T", w_t,
                        "B_T", b_t, "ACC_T", tensor_type(g, op->out),
                        "ICH", num(g, x->c), "OCH", num(g, y->c), "CH", num(g, x->c), "OH",
                        num(g, y->h), "OW", num(g, y->w), "FH", num(g, op->fh), "FW",
                        num(g, op->fw), "S", num(g, s_in), "ICH_PAR", num(g, par),
                        "OCH_PAR", num(g, op->och_par), "CH_PAR", num(g, par), "OW_PAR",
                        num(g, op->ow_par), "GROUPS", num(g, op->groups), "IN", win, "OUT", out,
                        NULL};
    hg_emit(g, &g->tasks, kind, kv);
}

static void emit_vector_op(hg_ctx *g, int i, const char *id)
{
    const hl_op *op = &g->net->op[i];
    const hl_tensor *x = &g->net->t[op->in[0]], *y = &g->net->t[op->out];
    char in[HG_NAME_LEN], out[HG_NAME_LEN];
    stream_for(g, op->in[0], i, (packing){1, op->ich_par}, in);
    output_stream(g, op, out);
    const char *kind = op->kind == HL_FC ? "fc" : op->kind == HL_GMAXPOOL ? "gmaxpool" : "gavgpool";
    char w_t[HG_NAME_LEN + 4], b_t[HG_NAME_LEN + 4];
    snprintf(w_t, sizeof w_t, "%s_w_t", id);
    snprintf(b_t, sizeof b_t, "%s_b_t", id);
    const char *kv[] = {"TASK", id, "ID", id, "T", tensor_type(g, op->in[0]), "IN_T",
                        tensor_type(g, op->in[0]), "W_T", w_t, "B_T", b_t, "ACC_T",
                        tensor_type(g, op->out), "ICH",
                        num(g, x->c), "OCH", num(g, y->c), "CH", num(g, x->c), "H", num(g, x->h),
                        "W", num(g, x->w), "ICH_PAR", num(g, op->ich_par), "OCH_PAR",
                        num(g, op->och_par), "CH_PAR", num(g, op->ich_par), "IN", in, "OUT", out,
                        NULL};
    hg_emit(g, &g->tasks, kind, kv);
}

static void emit_requant(hg_ctx *g, int i, const char *id)
{
    const hl_op *op = &g->net->op[i];
    const hl_tensor *x = &g->net->t[op->in[0]];
    packing p = produced(g, op->in[0]);
    char in[HG_NAME_LEN], out[HG_NAME_LEN];
    stream_for(g, op->in[0], i, p, in);
    output_stream(g, op, out);
    const char *kv[] = {"TASK", id, "IN_T", tensor_type(g, op->in[0]), "OUT_T",
                        tensor_type(g, op->out), "N", num(g, p.p * p.cp), "NWORDS",
                        num(g, x->c * x->h * x->w / (p.p * p.cp)), "OBITS", num(g, op->obits),
                        "OSIGNED", op->osigned ? "true" : "false", "NARROW",
                        op->narrow ? "true" : "false", "RELU", op->relu ? "true" : "false",
                        "SHIFT", num(g, op->shift), "DIV", num(g, x->div), "IN", in, "OUT", out,
                        NULL};
    hg_emit(g, &g->tasks, "requant", kv);
}

static void emit_add(hg_ctx *g, int i, const char *id)
{
    const hl_op *op = &g->net->op[i];
    int a_index = -1;
    for (int a = 0; a < g->n_adds; a++)
        if (g->adds[a].op == i)
            a_index = a;
    int m = g->adds[a_index].main;
    packing p = produced(g, op->in[m]);
    char in[2][HG_NAME_LEN], out[HG_NAME_LEN];
    stream_for(g, op->in[m], i, p, in[0]);
    stream_for(g, op->in[1 - m], i, p, in[1]);
    output_stream(g, op, out);
    const hl_tensor *y = &g->net->t[op->out];
    const char *kv[] = {"TASK", id, "A_T", tensor_type(g, op->in[m]), "B_T",
                        tensor_type(g, op->in[1 - m]), "OUT_T", tensor_type(g, op->out), "N",
                        num(g, p.p * p.cp), "NWORDS", num(g, y->c * y->h * y->w / (p.p * p.cp)),
                        "SHIFT_A", num(g, m == 0 ? op->shift_a : op->shift_b), "SHIFT_B",
                        num(g, m == 0 ? op->shift_b : op->shift_a), "IN", in[0], "IN2", in[1],
                        "OUT", out, NULL};
    hg_emit(g, &g->tasks, "add", kv);
}

cm_status hg_plan(hg_ctx *g)
{
    const hl_net *net = g->net;
    /* An add's packing is its main branch's, which the first pass finds; the depths,
     * which depend on every packing before the add, come from the second. */
    for (int pass = 0; pass < 2; pass++) {
        plan_packings(g);
        int n = 0;
        for (int i = 0; i < net->n_op; i++) {
            if (net->op[i].kind != HL_ADD)
                continue;
            if (n >= HG_MAX_ADDS)
                return cm_error_set(g->err, CM_EINPUT, "%s: more than %d residual adds",
                                    g->origin, HG_MAX_ADDS);
            g->adds[n].op = i;
            cm_status st = plan_add(g, i, &g->adds[n]);
            if (st != CM_OK)
                return st;
            n++;
        }
        g->n_adds = n;
    }
    for (int t = 0; t < net->n_t; t++) {
        bool fork = false;
        for (int a = 0; a < g->n_adds; a++)
            fork |= g->adds[a].fork == t;
        if (net->t[t].n_consumers > 2 || (net->t[t].n_consumers == 2 && !fork))
            return cm_error_set(g->err, CM_EINPUT, "%s: %s feeds %d layers; only the fork of a "
                                "residual block has a building block", g->origin,
                                net->op[net->t[t].producer].name, net->t[t].n_consumers);
    }
    return CM_OK;
}

void hg_emit_tasks(hg_ctx *g)
{
    const hl_net *net = g->net;
    for (int i = 0; i < net->n_op; i++) {
        const hl_op *op = &net->op[i];
        char id[HG_NAME_LEN];
        hg_identifier(op->name, i, id, sizeof id);
        g->cur_op = i;
        switch (op->kind) {
        case HL_INPUT:
            snprintf(g->ts[op->out].name, HG_NAME_LEN, "in");
            break;
        case HL_CONV:
        case HL_DWCONV:
        case HL_MAXPOOL: emit_windowed(g, i, id); break;
        case HL_FC:
        case HL_GMAXPOOL:
        case HL_GAVGPOOL: emit_vector_op(g, i, id); break;
        case HL_REQUANT: emit_requant(g, i, id); break;
        case HL_ADD: emit_add(g, i, id); break;
        }
    }
    g->cur_op = -1;
    packing last = produced(g, net->output);
    if (last.p != 1 || last.cp != 1) {
        char out[HG_NAME_LEN];
        const hl_tensor *y = &net->t[net->output];
        adapt(g, net->output, y->h * y->w, g->ts[net->output].name, last, (packing){1, 1}, "out",
              out);
    }
}
