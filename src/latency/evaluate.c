/* The cost of one latency-driven design point (paper III-B): input feature-map folding
 * chosen from the weight banks, the schedule of subgraphs, each block's resources from
 * fpgaConvNet's building-block models (backend-models.md 2.4) sized for the largest
 * layer scheduled on it, and each subgraph's time from its SDF entries, II = W / Gamma.
 *
 * Readings of the paper, all in one place:
 *  - A conv block has N coarse units of m MACC units each. A K x K window is fed to the
 *    units in ceil(K^2 / m) chunks of m words (zero-padded to a multiple of m: the DSP
 *    under-use of heterogeneous kernels); each window goes to every unit once per group
 *    of N filters, ceil(N_out / N) times. Its sliding window takes one map word a cycle.
 *  - Every subgraph reads its input from off-chip memory and writes its output there;
 *    the memory node streams at the board's bandwidth, shared by its two arcs.
 *  - Weights are loaded before each subgraph (t_weights = bytes / bandwidth) when there
 *    are several; a single subgraph keeps its weights on chip between inputs.
 *  - eq. 4: t = (D + II_max * (B - 1)) / clock with D = II_max + the pipeline depth,
 *    i.e. the first input's own interval plus the fill (backend-models.md 2.5). */
#include "latency/latency_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hw/fpgaconvnet_blocks.h"

int cm_lat_block_nodes(cm_latency_block_kind k)
{
    return k == CM_LATENCY_CONV ? 2 : 1;
}

static double ceil_div(double a, double b)
{
    return ceil(a / b);
}

static double padded_words(const cm_lat_layer *l, double channels)
{
    return (double)(l->rows + l->pad[0] + l->pad[2]) * (l->cols + l->pad[1] + l->pad[3]) * channels;
}

/* Sliding-window fill (backend-models.md 2.2) for ch channels per stream. */
static double window_depth(const cm_lat_layer *l, double ch)
{
    return (l->cols + l->pad[1] + l->pad[3]) * ch * (l->kernel[0] - 1) +
           ch * l->kernel[0] * (l->kernel[1] - 1);
}

static int conv_entries(const cm_lat_layer *l, int folds, int coarse, int macc,
                        cm_lat_entry e[2], double *depth)
{
    const double nin = (double)(l->nin / folds), outs = (double)l->rows_out * l->cols_out;
    /* passes of each window through the units: one per N of its group's filters */
    const double passes = ceil_div(cm_lat_group_filters(l), coarse);
    const double chunks = ceil_div((double)l->kernel[0] * l->kernel[1], macc);
    /* sliding window: map words in, windows out, one of each a cycle */
    e[0] = (cm_lat_entry){-padded_words(l, nin), -1.0, outs * nin, 1.0};
    /* bank: m-word window chunks in (broadcast to the N units), output slots out */
    const double groups = l->groups > 1 ? l->groups / folds : 1; /* a pass's whole groups */
    e[1] = (cm_lat_entry){-outs * nin * passes * chunks * macc, -(double)macc,
                          outs * coarse * passes * groups, (double)coarse};
    *depth = window_depth(l, nin) + chunks + nin * passes;
    return 2;
}

int cm_lat_step_entries(const cm_lat_layer *l, cm_latency_block_kind kind, int folds, int coarse,
                        int macc, cm_lat_entry e[2], double *depth)
{
    const double c = coarse, out = (double)l->rows_out * l->cols_out * l->nout;
    *depth = 0.0;
    switch (kind) {
    case CM_LATENCY_CONV:
        return conv_entries(l, folds, coarse, macc, e, depth);
    case CM_LATENCY_POOL: {
        const double ch = (double)(l->nin / folds);
        e[0] = (cm_lat_entry){-padded_words(l, ch), -c, out / folds, c};
        /* a global pooling's first output waits for the whole map */
        *depth = l->global ? (double)l->rows * l->cols * ceil_div(ch, c) : window_depth(l, ceil_div(ch, c));
        return 1;
    }
    case CM_LATENCY_RELU:
    case CM_LATENCY_ELTWISE:
        /* a word in and out a cycle per stream; a slice reads more than it writes, a
         * broadcast product's one-pixel operand less, a resize writes its output walk */
        e[0] = (cm_lat_entry){-(double)l->rows * l->cols * (l->nin / folds), -c, out / folds, c};
        /* the first output waits for the rows it blends (a resize) or its pixel's
         * channels (a normalisation) */
        if (l->resize)
            *depth = (l->interpolate && l->rows > 1 ? 2.0 : 1.0) * l->cols *
                     ceil_div((double)(l->nin / folds), c);
        else if (l->normalise)
            *depth = ceil_div((double)(l->nin / folds), c);
        return 1;
    case CM_LATENCY_ACCUM:
        /* the f_in partial maps of the folded layer, summed into its output (a grouped
         * layer's passes give slices of it: gathered, not summed) */
        e[0] = (cm_lat_entry){-out * (l->groups > 1 ? 1 : folds), -c, out, c};
        return 1;
    }
    return 0;
}

void cm_lat_sub_io(const cm_lat_net *net, const cm_lat_sub *s, double *in_words,
                   double *out_words)
{
    const cm_lat_step *first = &s->steps[0], *last = &s->steps[s->n_steps - 1];
    const cm_lat_layer *f = &net->l[first->layer], *l = &net->l[last->layer];
    const double f_out = (double)f->nout * f->rows_out * f->cols_out;
    const bool pass = s->folds > 1 && s->fold < s->folds;
    if (first->kind == CM_LATENCY_ACCUM)
        *in_words = f_out * (f->groups > 1 ? 1 : s->folds);
    else
        *in_words = (double)f->rows * f->cols * (f->nin / (pass ? s->folds : 1));
    *out_words = (double)l->nout * l->rows_out * l->cols_out / (pass && l->groups > 1 ? s->folds : 1);
    /* merges' operands from memory, and outputs that skip connections read later */
    for (int k = 0; k < s->n_steps; k++) {
        const cm_lat_layer *x = &net->l[s->steps[k].layer];
        if (s->steps[k].kind == CM_LATENCY_CONV && s->folds > 1)
            continue; /* a pass's partial map: the accumulation writes the output */
        *in_words += (double)x->side_words;
        if (x->spills && k + 1 < s->n_steps)
            *out_words += (double)x->nout * x->rows_out * x->cols_out;
    }
}

/* ---- input feature-map folding and the schedule ---- */

/* Each unit holds, per filter it takes (one of every N of each group's), the window
 * chunks of the filter's input maps: of the G groups' nin / G maps, nin in all. */
int64_t cm_lat_bank_words(const cm_lat_layer *l, int folds, int coarse, int macc)
{
    return cm_lat_bank_words_of(cm_lat_group_filters(l), l->nin / folds,
                                (int64_t)l->kernel[0] * l->kernel[1], coarse, macc);
}

int64_t cm_lat_bank_words_of(int64_t filters, int64_t maps, int64_t window, int coarse, int macc)
{
    return (int64_t)ceil_div((double)filters, coarse) * maps *
           (int64_t)ceil_div((double)window, macc);
}

static bool bank_fits(const cm_lat_machine *m, const cm_lat_fold *f, const cm_lat_step *s,
                      const cm_lat_layer *l, int folds)
{
    int64_t words = cm_lat_bank_words(l, folds, f->coarse[s->block], f->macc[s->block]);
    return cm_fcn_bram_mem(words, m->word_bits) <= f->bank[s->block];
}

int cm_lat_full_bank(const cm_lat_arch *a, const cm_lat_machine *m, const cm_lat_fold *f, int b)
{
    int64_t need = 1;
    for (int gi = 0; gi < a->n_groups; gi++)
        for (int k = 0; k < a->groups[gi].n_steps; k++) {
            const cm_lat_step *s = &a->groups[gi].steps[k];
            if (s->block != b)
                continue;
            int64_t bram = cm_fcn_bram_mem(cm_lat_bank_words(&a->net->l[s->layer], 1, f->coarse[b], f->macc[b]),
                                           m->word_bits);
            if (bram > need)
                need = bram;
        }
    return need > INT32_MAX ? INT32_MAX : (int)need;
}

/* The smallest divisor of N_in (up to CM_LAT_MAX_FIN) whose weights fit the bank. */
static int choose_fin(const cm_lat_arch *a, const cm_lat_machine *m, const cm_lat_fold *f,
                      const cm_lat_group *g, bool *ok)
{
    const cm_lat_step *w = &g->steps[g->lead];
    const cm_lat_layer *l = &a->net->l[w->layer];
    int last = 1;
    for (int d = 1; d <= l->nin && d <= CM_LAT_MAX_FIN; d++) {
        if (!cm_lat_fin_ok(l, d))
            continue;
        last = d;
        if (bank_fits(m, f, w, l, d))
            return d;
    }
    *ok = false;
    return last;
}

static bool group_banks_fit(const cm_lat_arch *a, const cm_lat_machine *m, const cm_lat_fold *f,
                            const cm_lat_group *g)
{
    for (int s = 0; s < g->n_steps; s++)
        if (g->steps[s].kind == CM_LATENCY_CONV &&
            !bank_fits(m, f, &g->steps[s], &a->net->l[g->steps[s].layer], 1))
            return false;
    return true;
}

static void add_sub(cm_lat_eval *e, int group, int fold, int folds, const cm_lat_step *steps, int n)
{
    e->subs[e->n_subs++] = (cm_lat_sub){group, fold, folds, n, steps};
}

/* choose_fin, from the group's memo when its weight layer's block has the N, m and
 * bank it had when last asked. */
static int memo_fin(const cm_lat_arch *a, const cm_lat_machine *m, const cm_lat_fold *f,
                    cm_lat_eval *e, int gi, bool *ok)
{
    const cm_lat_group *g = &a->groups[gi];
    const int b = g->steps[g->lead].block;
    cm_lat_fin_memo *x = &e->fin_memo[gi];
    if (!(x->fin > 0 && x->coarse == f->coarse[b] && x->macc == f->macc[b] &&
          x->bank == f->bank[b] && x->word_bits == m->word_bits)) {
        bool fits = true;
        const int fin = choose_fin(a, m, f, g, &fits);
        *x = (cm_lat_fin_memo){f->coarse[b], f->macc[b], f->bank[b], m->word_bits, fin, fits};
    }
    *ok &= x->fits;
    return x->fin;
}

/* Expands the groups into subgraphs; false when some weights fit no bank. */
static bool schedule(const cm_lat_arch *a, const cm_lat_machine *m, const cm_lat_fold *f,
                     cm_lat_eval *e)
{
    bool ok = true;
    e->n_subs = 0;
    e->schedule_moved = false;
    for (int gi = 0; gi < a->n_groups; gi++) {
        const cm_lat_group *g = &a->groups[gi];
        int fin = 1;
        if (g->foldable) {
            fin = memo_fin(a, m, f, e, gi, &ok);
            e->fin[g->weight] = fin;
        } else {
            ok &= group_banks_fit(a, m, f, g);
        }
        if (e->group_fin[gi] != fin) {
            e->group_fin[gi] = fin;
            e->schedule_moved = true;
        }
        if (fin == 1) {
            add_sub(e, gi, 0, 1, g->steps, g->n_steps);
            continue;
        }
        for (int k = 0; k < fin; k++)
            add_sub(e, gi, k, fin, g->steps, g->lead + 1);
        add_sub(e, gi, fin, fin, g->acc_steps, g->n_acc_steps);
    }
    return ok;
}

/* ---- the bank sizes at which a schedule changes ---- */

typedef struct cm_lat_bank_question {
    int64_t filters, maps, window; /* cm_lat_bank_words_of's: group filters, maps a pass, k x k */
} cm_lat_bank_question;

static bool ask(cm_lat_bank_steps *w, const cm_lat_layer *l, int folds)
{
    if (w->n_q == w->cap) {
        const int cap = w->cap ? 2 * w->cap : 64;
        cm_lat_bank_question *q = realloc(w->q, (size_t)cap * sizeof *q);
        if (!q)
            return false;
        w->q = q;
        w->cap = cap;
    }
    w->q[w->n_q++] = (cm_lat_bank_question){cm_lat_group_filters(l), l->nin / folds,
                                            (int64_t)l->kernel[0] * l->kernel[1]};
    return true;
}

static int cmp_question(const void *a, const void *b)
{
    const cm_lat_bank_question *x = a, *y = b;
    if (x->filters != y->filters)
        return (x->filters > y->filters) - (x->filters < y->filters);
    if (x->maps != y->maps)
        return (x->maps > y->maps) - (x->maps < y->maps);
    return (x->window > y->window) - (x->window < y->window);
}

/* The questions schedule() asks of step k of group g's block's bank: choose_fin's of a
 * foldable group's weight layer at every f_in it may take, group_banks_fit's of the
 * other groups' conv steps. */
static bool ask_step(cm_lat_bank_steps *w, const cm_lat_arch *a, const cm_lat_group *g, int k)
{
    const cm_lat_step *st = &g->steps[k];
    const cm_lat_layer *l = &a->net->l[st->layer];
    bool ok = true;
    if (g->foldable && k == g->lead) {
        for (int d = 1; d <= l->nin && d <= CM_LAT_MAX_FIN && ok; d++)
            if (cm_lat_fin_ok(l, d))
                ok = ask(w, l, d);
    } else if (!g->foldable && st->kind == CM_LATENCY_CONV) {
        ok = ask(w, l, 1);
    }
    return ok;
}

/* Each question once (a residual network's blocks ask alike), and room for the sizes. */
static bool finish_steps(cm_lat_bank_steps *w)
{
    w->at = malloc(((size_t)w->n_q + 1) * sizeof *w->at);
    if (!w->at)
        return false;
    if (w->n_q > 0) {
        qsort(w->q, (size_t)w->n_q, sizeof *w->q, cmp_question);
        int n = 1;
        for (int i = 1; i < w->n_q; i++)
            if (cmp_question(&w->q[i], &w->q[n - 1]) != 0)
                w->q[n++] = w->q[i];
        w->n_q = n;
    }
    return true;
}

cm_status cm_lat_bank_steps_init(const cm_lat_arch *a, int b, cm_lat_bank_steps *w, cm_error *err)
{
    memset(w, 0, sizeof *w);
    bool ok = true;
    for (int gi = 0; gi < a->n_groups && ok; gi++)
        for (int k = 0; k < a->groups[gi].n_steps && ok; k++)
            if (a->groups[gi].steps[k].block == b)
                ok = ask_step(w, a, &a->groups[gi], k);
    if (ok && finish_steps(w))
        return CM_OK;
    cm_lat_bank_steps_free(w);
    return cm_error_nomem(err);
}

cm_status cm_lat_bank_steps_init_all(const cm_lat_arch *a, cm_lat_bank_steps *w, cm_error *err)
{
    memset(w, 0, (size_t)a->n_blocks * sizeof *w);
    bool ok = true;
    for (int gi = 0; gi < a->n_groups && ok; gi++)
        for (int k = 0; k < a->groups[gi].n_steps && ok; k++)
            ok = ask_step(&w[a->groups[gi].steps[k].block], a, &a->groups[gi], k);
    for (int b = 0; b < a->n_blocks && ok; b++)
        ok = finish_steps(&w[b]);
    if (ok)
        return CM_OK;
    for (int b = 0; b < a->n_blocks; b++)
        cm_lat_bank_steps_free(&w[b]);
    return cm_error_nomem(err);
}

static int cmp_int64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

void cm_lat_bank_steps_at(cm_lat_bank_steps *w, const cm_lat_machine *m, int coarse, int macc,
                          int64_t last)
{
    w->n_at = 0;
    for (int i = 0; i < w->n_q; i++) {
        const int64_t at = cm_fcn_bram_mem(cm_lat_bank_words_of(w->q[i].filters, w->q[i].maps,
                                                                w->q[i].window, coarse, macc),
                                           m->word_bits);
        if (at > 1 && at <= last) /* the sweep begins at 1 and ends at last */
            w->at[w->n_at++] = at;
    }
    qsort(w->at, (size_t)w->n_at, sizeof *w->at, cmp_int64);
}

bool cm_lat_bank_steps_has(const cm_lat_bank_steps *w, int64_t size)
{
    return bsearch(&size, w->at, (size_t)w->n_at, sizeof *w->at, cmp_int64) != NULL;
}

void cm_lat_bank_steps_free(cm_lat_bank_steps *w)
{
    free(w->q);
    free(w->at);
    memset(w, 0, sizeof *w);
}

/* ---- block resources ---- */

void cm_lat_size_add(cm_lat_size *z, const cm_lat_layer *l, int channels)
{
    z->used = true;
    if (l->rows > z->rows) z->rows = l->rows;
    if (l->cols > z->cols) z->cols = l->cols;
    if (channels > z->channels) z->channels = channels;
    for (int i = 0; i < 2; i++)
        if (l->kernel[i] > z->kernel[i]) z->kernel[i] = l->kernel[i];
    for (int i = 0; i < 4; i++)
        if (l->pad[i] > z->pad[i]) z->pad[i] = l->pad[i];
    z->has_bias |= l->has_bias;
}

static void fcn_sized(cm_fcn_layer *x, cm_fcn_kind kind, const cm_lat_size *z, int word_bits)
{
    cm_fcn_layer_init(x, kind);
    x->rows = z->rows;
    x->cols = z->cols;
    x->channels = z->channels;
    x->kernel[0] = z->kernel[0];
    x->kernel[1] = z->kernel[1];
    memcpy(x->pad, z->pad, sizeof x->pad);
    x->has_bias = z->has_bias;
    x->data_width = x->weight_width = x->acc_width = x->bias_width = word_bits;
}

/* A conv block is fpgaConvNet's HLS convolution with one filter per coarse unit (so
 * coarse_out = N, fine = m); its weight memory is then replaced by the block's banks:
 * N * m banks of `bank` BRAM18 each, one per MACC unit. */
cm_resources cm_lat_conv_res(const cm_lat_size *z, int coarse, int macc, int bank, int wb)
{
    cm_fcn_layer x;
    fcn_sized(&x, CM_FCN_CONV, z, wb);
    x.filters = x.coarse_out = coarse;
    x.fine = macc;
    cm_block_cost c;
    cm_fcn_layer_cost(&x, &c);
    const int64_t units = (int64_t)coarse * macc;
    const int64_t own = (int64_t)((double)x.channels * x.kernel[0] * x.kernel[1] / macc);
    c.res.bram18 += units * bank - cm_fcn_bram_mem(own, wb) * units;
    return c.res;
}

static cm_resources block_resources(cm_latency_block_kind k, const cm_lat_size *z,
                                    const cm_lat_fold *f, int b, int wb)
{
    cm_resources none = {0};
    if (!z->used)
        return none;
    if (k == CM_LATENCY_CONV)
        return cm_lat_conv_res(z, f->coarse[b], f->macc[b], f->bank[b], wb);
    if (k != CM_LATENCY_POOL)
        return none; /* pointwise and accumulation layers cost nothing in the model (2.4e) */
    cm_fcn_layer x;
    fcn_sized(&x, CM_FCN_POOL, z, wb);
    /* more streams than channels would leave a stream without a channel */
    x.coarse_in = x.coarse_out = f->coarse[b] < z->channels ? f->coarse[b] : z->channels;
    cm_block_cost c;
    cm_fcn_layer_cost(&x, &c);
    return c.res;
}

/* What a pointwise block needs beside its streams to run layer l on `channels` of its
 * maps with `coarse` streams, as the throughput-driven fpgaConvNet model costs the same
 * layer: a resize's row buffers (and bilinear's four multipliers a stream), a
 * normalisation's two-pixel buffer and two multipliers a stream. */
static cm_resources buffered_pointwise(const cm_lat_layer *l, int channels, int coarse, int wb)
{
    cm_resources r = {0};
    const int c = coarse < channels ? coarse : channels;
    if (l->resize) {
        cm_fcn_layer x;
        cm_fcn_layer_init(&x, CM_FCN_RESIZE);
        x.rows = l->rows;
        x.cols = l->cols;
        x.channels = channels;
        x.coarse_in = x.coarse_out = c;
        x.data_width = wb;
        cm_fcn_resize_init(&x, l->rows_out, l->cols_out, l->interpolate);
        cm_block_cost cost;
        cm_fcn_layer_cost(&x, &cost);
        r = cost.res;
    } else if (l->normalise) {
        r.dsp = 2 * (int64_t)c;
        if (c < channels) { /* with a stream a channel every word of a pixel is there */
            const int64_t bits = 2 * (int64_t)channels * wb, banks = (c + 1) / 2;
            const int64_t brams = (bits + 18431) / 18432;
            r.bram18 = brams > banks ? brams : banks;
        }
    }
    return r;
}

static void max_into(cm_resources *into, const cm_resources *r)
{
    into->dsp = into->dsp > r->dsp ? into->dsp : r->dsp;
    into->bram18 = into->bram18 > r->bram18 ? into->bram18 : r->bram18;
    into->lut = into->lut > r->lut ? into->lut : r->lut;
    into->ff = into->ff > r->ff ? into->ff : r->ff;
    into->uram = into->uram > r->uram ? into->uram : r->uram;
}

/* A pointwise block that also resizes or normalises is sized for the most any layer
 * scheduled on it needs (the block is shared, the buffers too). */
static void buffered_blocks(const cm_lat_arch *a, const cm_lat_machine *m, const cm_lat_fold *f,
                            cm_lat_eval *e)
{
    for (int si = 0; si < e->n_subs; si++)
        for (int k = 0; k < e->subs[si].n_steps; k++) {
            const cm_lat_step *s = &e->subs[si].steps[k];
            const cm_lat_layer *l = &a->net->l[s->layer];
            if (s->kind != CM_LATENCY_RELU || (!l->resize && !l->normalise))
                continue;
            int folds = cm_lat_step_slices(e->subs[si].fold, e->subs[si].folds, s->kind);
            cm_resources r = buffered_pointwise(l, l->nin / folds, f->coarse[s->block], m->word_bits);
            max_into(&e->block_res[s->block], &r);
        }
}

/* Whether sub si is a pass of a folded group like the sub before it: the f_in passes
 * see the same slice of the maps (cm_lat_step_slices), so they read and write the same
 * words, size the blocks alike and take the same time. An evaluation works out the
 * first pass and counts the rest (a layer folded hundreds of ways made every point of
 * a bank sweep cost hundreds of subgraphs). */
static bool repeats_pass(const cm_lat_eval *e, int si)
{
    if (si == 0 || e->every_pass)
        return false;
    const cm_lat_sub *s = &e->subs[si], *p = &e->subs[si - 1];
    /* a group is one subgraph, or its passes one after another and its accumulation */
    return s->group == p->group && s->fold < s->folds;
}

static bool same_size(const cm_lat_size *a, const cm_lat_size *b)
{
    return a->rows == b->rows && a->cols == b->cols && a->channels == b->channels &&
           a->kernel[0] == b->kernel[0] && a->kernel[1] == b->kernel[1] &&
           a->pad[0] == b->pad[0] && a->pad[1] == b->pad[1] && a->pad[2] == b->pad[2] &&
           a->pad[3] == b->pad[3] && a->has_bias == b->has_bias && a->used == b->used;
}

/* block_resources, from the memo when block b's size and folding are those it was last
 * costed for (the kind of a block never changes within an architecture). */
static cm_resources memo_resources(cm_latency_block_kind k, const cm_lat_size *z,
                                   const cm_lat_fold *f, int b, int wb, cm_lat_block_memo *memo)
{
    if (memo->valid && same_size(&memo->size, z) && memo->coarse == f->coarse[b] &&
        memo->macc == f->macc[b] && memo->bank == f->bank[b] && memo->word_bits == wb)
        return memo->res;
    *memo = (cm_lat_block_memo){*z, true, f->coarse[b], f->macc[b], f->bank[b], wb,
                                block_resources(k, z, f, b, wb)};
    return memo->res;
}

/* What the schedule sizes each block for, and how many steps it has (block_layers). */
static void size_blocks(const cm_lat_arch *a, cm_lat_eval *e)
{
    cm_lat_size *sizes = e->block_size;
    memset(sizes, 0, (size_t)a->n_blocks * sizeof *sizes);
    memset(e->block_layers, 0, (size_t)a->n_blocks * sizeof *e->block_layers);
    for (int si = 0; si < e->n_subs; si++) {
        const bool again = repeats_pass(e, si); /* sizes as the pass before: counted only */
        for (int k = 0; k < e->subs[si].n_steps; k++) {
            const cm_lat_step *s = &e->subs[si].steps[k];
            const cm_lat_layer *l = &a->net->l[s->layer];
            int folds = s->kind == CM_LATENCY_ACCUM
                            ? 1 : cm_lat_step_slices(e->subs[si].fold, e->subs[si].folds, s->kind);
            if (!again)
                cm_lat_size_add(&sizes[s->block], l, l->nin / folds);
            e->block_layers[s->block]++;
        }
    }
}

static void resources(const cm_lat_arch *a, const cm_lat_machine *m, const cm_lat_fold *f,
                      cm_lat_eval *e)
{
    if (e->schedule_moved || e->every_pass)
        size_blocks(a, e);
    const cm_lat_size *sizes = e->block_size;
    memset(&e->res, 0, sizeof e->res);
    for (int b = 0; b < a->n_blocks; b++) {
        e->block_res[b] =
            memo_resources(a->kind[b], &sizes[b], f, b, m->word_bits, &e->block_memo[b]);
        e->block_kernel[2 * b] = sizes[b].kernel[0];
        e->block_kernel[2 * b + 1] = sizes[b].kernel[1];
    }
    if (a->net->buffers)
        buffered_blocks(a, m, f, e);
    for (int b = 0; b < a->n_blocks; b++)
        cm_resources_add(&e->res, &e->block_res[b]);
}

/* ---- timing ---- */

double cm_lat_entry_ii(const cm_lat_entry *x)
{
    double a = x->w_in / x->g_in, b = x->w_out / x->g_out;
    return a > b ? a : b;
}

/* Sub si's memo (its group's whole, pass or accumulation), emptied when the group's f_in
 * is not the one it was last; NULL when the room for its steps cannot be had (their
 * figures are then worked out afresh). */
static cm_lat_sub_memo *sub_memo(const cm_lat_net *net, cm_lat_eval *e, int si)
{
    const cm_lat_sub *s = &e->subs[si];
    const int kind = s->folds == 1 ? 0 : s->fold < s->folds ? 1 : 2;
    cm_lat_sub_memo *m = &e->sub_memo[3 * s->group + kind];
    if (m->valid && m->folds == s->folds)
        return m;
    m->valid = false;
    if (m->room < s->n_steps) {
        cm_lat_step_memo *steps = realloc(m->steps, (size_t)s->n_steps * sizeof *steps);
        if (!steps)
            return NULL;
        m->steps = steps;
        m->room = s->n_steps;
    }
    memset(m->steps, 0, (size_t)s->n_steps * sizeof *m->steps);
    m->folds = s->folds;
    cm_lat_sub_io(net, s, &m->in_words, &m->out_words);
    m->valid = true;
    return m;
}

/* Step k of sub s, seeing `slices` of its maps with `coarse` streams of `macc` MACCs: its
 * entries' largest interval and its depth, kept in memo (NULL: none, in scratch) for the
 * next evaluation. */
static const cm_lat_step_memo *step_figures(const cm_lat_net *net, const cm_lat_sub *s,
                                            cm_lat_sub_memo *memo, int k, int slices,
                                            int coarse, int macc, cm_lat_step_memo *scratch)
{
    cm_lat_step_memo *x = memo ? &memo->steps[k] : scratch;
    if (memo && x->coarse == coarse && x->macc == macc && x->slices == slices)
        return x;
    const cm_lat_step *st = &s->steps[k];
    cm_lat_entry e[2] = {{0.0, 1.0, 0.0, 1.0}, {0.0, 1.0, 0.0, 1.0}};
    double depth;
    int n = cm_lat_step_entries(&net->l[st->layer], st->kind, slices, coarse, macc, e, &depth);
    x->coarse = coarse, x->macc = macc, x->slices = slices;
    x->ii = 0.0;
    for (int i = 0; i < n; i++)
        x->ii = fmax(x->ii, cm_lat_entry_ii(&e[i]));
    x->depth = depth;
    return x;
}

static void sub_words(const cm_lat_net *net, const cm_lat_sub *s, const cm_lat_sub_memo *memo,
                      double *in, double *out)
{
    if (memo) {
        *in = memo->in_words, *out = memo->out_words;
        return;
    }
    cm_lat_sub_io(net, s, in, out);
}

/* Interval of the memory node and of the conv nodes (whose rates the rule for the
 * other blocks' streams must not undercut), and the depth of the subgraph. */
static double sub_base_ii(const cm_lat_arch *a, const cm_lat_machine *m, const cm_lat_fold *f,
                          const cm_lat_sub *s, cm_lat_sub_memo *memo)
{
    double in, out;
    sub_words(a->net, s, memo, &in, &out);
    double ii = (in + out) / m->bw_words;
    for (int k = 0; k < s->n_steps; k++) {
        const cm_lat_step *st = &s->steps[k];
        if (st->kind != CM_LATENCY_CONV)
            continue;
        cm_lat_step_memo scratch;
        ii = fmax(ii, step_figures(a->net, s, memo, k, s->folds, f->coarse[st->block],
                                   f->macc[st->block], &scratch)->ii);
    }
    return ii;
}

/* The streams a pooling, pointwise or accumulation step takes from `c`: doubled while
 * its interval is above the subgraph's base and they stay at most `cap`. */
static int step_streams(const cm_lat_layer *l, const cm_lat_sub *s, const cm_lat_step *st,
                        int c, int cap, double base)
{
    cm_lat_entry x[2] = {{0.0, 1.0, 0.0, 1.0}, {0.0, 1.0, 0.0, 1.0}};
    double depth;
    while (c * 2 <= cap) {
        cm_lat_step_entries(l, st->kind, cm_lat_step_slices(s->fold, s->folds, st->kind), c, 1, x,
                            &depth);
        if (cm_lat_entry_ii(&x[0]) <= base)
            break;
        c *= 2;
    }
    return c;
}

/* The fewest streams (a power of two, at most the channels and 64) that keep each
 * pooling, pointwise or accumulation block off its subgraphs' critical paths. */
static void auto_coarse(const cm_lat_arch *a, const cm_lat_machine *m, cm_lat_fold *f,
                        cm_lat_eval *e)
{
    for (int b = 0; b < a->n_blocks; b++)
        if (a->kind[b] != CM_LATENCY_CONV)
            f->coarse[b] = 1;
    for (int si = 0; si < e->n_subs; si++) {
        const cm_lat_sub *s = &e->subs[si];
        /* A pass after its like leaves the streams as they are: each of its steps has
         * a block of its own (arch.c embeds a group's steps in ascending blocks), and
         * step_streams from where it stopped stops again at once, at the same base. */
        if (repeats_pass(e, si))
            continue;
        cm_lat_sub_memo *memo = sub_memo(a->net, e, si);
        double base = sub_base_ii(a, m, f, s, memo);
        for (int k = 0; k < s->n_steps; k++) {
            const cm_lat_step *st = &s->steps[k];
            const cm_lat_layer *l = &a->net->l[st->layer];
            if (st->kind == CM_LATENCY_CONV)
                continue;
            int cap = l->nout < 64 ? l->nout : 64, c = f->coarse[st->block];
            cm_lat_step_memo *x = memo ? &memo->steps[k] : NULL;
            if (x && x->streams > 0 && x->streams_from == c && x->streams_base == base) {
                f->coarse[st->block] = x->streams;
                continue;
            }
            f->coarse[st->block] = step_streams(l, s, st, c, cap, base);
            if (x)
                x->streams_from = c, x->streams_base = base, x->streams = f->coarse[st->block];
        }
    }
}

static int64_t step_weight_words(const cm_lat_layer *l, cm_latency_block_kind kind, int folds)
{
    if (kind == CM_LATENCY_ACCUM)
        return l->biases;
    if (kind != CM_LATENCY_CONV)
        return 0;
    return folds > 1 ? l->weights / folds : l->weights + l->biases;
}

static void time_sub(const cm_lat_arch *a, const cm_lat_machine *m, const cm_lat_fold *f,
                     cm_lat_eval *e, int si)
{
    const cm_lat_sub *s = &e->subs[si];
    cm_lat_sub_memo *memo = sub_memo(a->net, e, si);
    double in, out, depth_sum = 0.0;
    sub_words(a->net, s, memo, &in, &out);
    double ii = (in + out) / m->bw_words;
    int64_t words = 0;
    for (int k = 0; k < s->n_steps; k++) {
        const cm_lat_step *st = &s->steps[k];
        const cm_lat_layer *l = &a->net->l[st->layer];
        cm_lat_step_memo scratch;
        const cm_lat_step_memo *x =
            step_figures(a->net, s, memo, k, cm_lat_step_slices(s->fold, s->folds, st->kind),
                         f->coarse[st->block], f->macc[st->block], &scratch);
        ii = fmax(ii, x->ii);
        depth_sum += x->depth;
        words += step_weight_words(l, st->kind, s->folds);
    }
    e->sub_ii[si] = ii;
    e->sub_depth[si] = depth_sum;
    e->sub_exec[si] = (depth_sum + ii * m->batch) / m->clock_hz;
    e->sub_weight_words[si] = words;
}

bool cm_lat_fits(const cm_resources *r, const cm_resources *max)
{
    return r->dsp <= max->dsp && r->bram18 <= max->bram18 && r->lut <= max->lut &&
           r->ff <= max->ff && r->uram <= max->uram;
}

void cm_lat_evaluate(const cm_lat_arch *a, const cm_lat_machine *m, cm_lat_fold *f,
                     cm_lat_eval *e)
{
    for (int w = 0; w < a->net->n_weight; w++)
        e->fin[w] = 1;
    bool banks = schedule(a, m, f, e);
    if (f->auto_coarse)
        auto_coarse(a, m, f, e);
    resources(a, m, f, e);
    /* summed in locals: the stores into e's arrays could otherwise alias them, and the
     * sums waited on memory a subgraph */
    double exec_s = 0.0, weights_s = 0.0;
    const double bytes = m->word_bits / 8.0;
    for (int si = 0; si < e->n_subs; si++) {
        if (repeats_pass(e, si)) {
            e->sub_ii[si] = e->sub_ii[si - 1];
            e->sub_depth[si] = e->sub_depth[si - 1];
            e->sub_exec[si] = e->sub_exec[si - 1];
            e->sub_weight_words[si] = e->sub_weight_words[si - 1];
        } else {
            time_sub(a, m, f, e, si);
        }
        e->sub_weights_s[si] =
            e->n_subs > 1 ? (double)e->sub_weight_words[si] * bytes / m->bw_bytes_s : 0.0;
        exec_s += e->sub_exec[si];
        weights_s += e->sub_weights_s[si];
    }
    e->exec_s = exec_s, e->weights_s = weights_s;
    e->latency_s = exec_s + weights_s;
    e->banks_fit = banks;
    e->feasible = banks && cm_lat_fits(&e->res, &m->avail);
}

/* ---- scratch ---- */

/* The most subgraphs a schedule can have: a foldable group runs as f_in passes and an
 * accumulation, f_in at most its weight layer's input maps (choose_fin). Sized for
 * CM_LAT_MAX_FIN a group, every search's trial (a cut vector) allocated and cleared
 * megabytes: a quarter of a 100-layer chain's CPU time. */
static int max_subs(const cm_lat_arch *a)
{
    int n = 0;
    for (int gi = 0; gi < a->n_groups; gi++) {
        const cm_lat_group *g = &a->groups[gi];
        if (!g->foldable) {
            n++;
            continue;
        }
        const int nin = a->net->l[g->steps[g->lead].layer].nin;
        n += (nin < CM_LAT_MAX_FIN ? (nin > 1 ? nin : 1) : CM_LAT_MAX_FIN) + 1;
    }
    return n;
}

cm_status cm_lat_eval_init(const cm_lat_arch *a, cm_lat_eval *e, cm_error *err)
{
    memset(e, 0, sizeof *e);
    size_t ns = (size_t)max_subs(a), nb = (size_t)a->n_blocks + 1;
    e->fin = calloc((size_t)a->net->n_weight, sizeof *e->fin);
    /* written before read, to n_subs: left uncleared, so that only the room a schedule
     * uses is touched (a DenseNet trial has room for 10^5 subgraphs and uses hundreds;
     * clearing it all was an eighth of the search) */
    e->subs = malloc(ns * sizeof *e->subs);
    e->sub_ii = malloc(ns * sizeof *e->sub_ii);
    e->sub_depth = malloc(ns * sizeof *e->sub_depth);
    e->sub_exec = malloc(ns * sizeof *e->sub_exec);
    e->sub_weights_s = malloc(ns * sizeof *e->sub_weights_s);
    e->sub_weight_words = malloc(ns * sizeof *e->sub_weight_words);
    e->block_res = calloc(nb, sizeof *e->block_res);
    e->block_memo = calloc(nb, sizeof *e->block_memo);
    e->block_layers = calloc(nb, sizeof *e->block_layers);
    e->block_kernel = calloc(2 * nb, sizeof *e->block_kernel);
    e->block_size = calloc(nb, sizeof *e->block_size);
    e->fin_memo = calloc((size_t)a->n_groups + 1, sizeof *e->fin_memo);
    e->group_fin = calloc((size_t)a->n_groups + 1, sizeof *e->group_fin);
    e->n_sub_memo = 3 * a->n_groups;
    e->sub_memo = calloc((size_t)e->n_sub_memo + 1, sizeof *e->sub_memo);
    if (!e->sub_memo || !e->block_size || !e->fin_memo || !e->group_fin || !e->block_kernel ||
        !e->fin || !e->subs || !e->sub_ii || !e->sub_depth || !e->sub_exec ||
        !e->sub_weights_s || !e->sub_weight_words || !e->block_res || !e->block_memo ||
        !e->block_layers) {
        cm_lat_eval_free(e);
        return cm_error_nomem(err);
    }
    return CM_OK;
}

void cm_lat_eval_free(cm_lat_eval *e)
{
    free(e->fin);
    free(e->subs);
    free(e->sub_ii);
    free(e->sub_depth);
    free(e->sub_exec);
    free(e->sub_weights_s);
    free(e->sub_weight_words);
    free(e->block_res);
    free(e->block_memo);
    for (int si = 0; si < e->n_sub_memo; si++)
        free(e->sub_memo[si].steps);
    free(e->sub_memo);
    free(e->block_layers);
    free(e->block_kernel);
    free(e->block_size);
    free(e->fin_memo);
    free(e->group_fin);
    memset(e, 0, sizeof *e);
}
