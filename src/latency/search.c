/* The latency optimiser (paper III-D, eq. 7): minimise L(1, Gamma, W) subject to
 * rsc <= rscAvail over the weights-reloading cuts, f_in and the foldings.
 *
 * The paper anneals; cnnmap searches deterministically:
 *  - cut vectors (partition points before weight layers only, the paper's prior): every
 *    one when there are at most 2^exhaustive_cuts, otherwise best-improvement hill
 *    climbing over single cut toggles from the better of "cut everywhere" and "no cut";
 *  - for a cut vector whose reference has one conv block, every (N, m, bank size) at
 *    which some layer's cost changes (the breakpoints ceil(v / q)), so the folding is
 *    optimal for that cut vector within the model;
 *  - with several conv blocks, greedy descent: the single step (next breakpoint of N or
 *    m of one block, or a bank one BRAM larger or smaller) that lowers the latency most
 *    while fitting, until none does.
 * f_in follows from the banks, and the other blocks' streams from the rule in
 * evaluate.c. Ties keep the first point found, so the result is deterministic. An
 * evaluation budget (LAT_SEARCH_LAYER_BUDGET layer costings: evaluations times layers)
 * or the user's time limit ends every loop at its next step with the best point so far
 * (stopped early), or the minimal point below when nothing found so far fits; no
 * default depends on the clock, so the same inputs give the same design on any machine.
 * The cut vectors of an enumeration batch or a hill-climbing round are searched on the
 * options' threads, with the result of one thread to the bit (search_cuts).
 * The minimal search takes every weight layer alone, every folding 1 and the smallest
 * banks that fit. The exact search (exact.c) starts from this one's point. */
#include "latency/latency_internal.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "hw/fpgaconvnet_blocks.h"
#include "util/parallel.h"
#include "util/progress.h"

/* Layer costings (each evaluation costs every layer) the search may spend: over ten
 * times what VGG16 needs; the branching networks of issue 17 spend it all (DenseNet-121:
 * 0.6 s of one core in Release). */
#define LAT_SEARCH_LAYER_BUDGET 30000000ull

typedef struct best_point {
    bool found, feasible;
    double latency;
    bool *cut;
    int n_blocks;
    int *coarse, *macc, *bank;
} best_point;

typedef struct search {
    const cm_lat_net *net;
    const cm_lat_machine *m;
    const cm_latency_options *o;
    uint64_t evaluations;
    uint64_t budget; /* evaluations allowed */
    best_point best;
    double deadline; /* the user's time limit as a cm_seconds_now() value; 0: none */
    bool stopped;    /* the budget or the deadline ended the search */
    struct cut_share *share; /* a search of a batch (search_cuts): what it shares */
    int job;         /* ... and its place in the batch */
    bool exact;      /* ... it knows the budget the batch's searches before it left it */
    int done_before; /* ... the searches before it all done up to here, */
    uint64_t done_used; /* ... with these evaluations between them */
} search;

/* What the searches of a batch share: how far each has got. */
typedef struct cut_share {
    _Atomic uint64_t *used; /* per search: its evaluations so far */
    _Atomic bool *done;     /* ... and whether that is all */
    _Atomic int next;       /* the next search a thread takes */
    uint64_t start;         /* the evaluations before the batch */
} cut_share;

/* For a search of a batch: publishes its evaluations, and sees whether the searches
 * before it leave it nothing (it would be searched again: search_cuts). Once they are
 * all done it takes the budget they left as its own, at a point where it is still
 * within it, and from then on runs exactly as it would after them. */
static bool batch_spent(search *s)
{
    cut_share *sh = s->share;
    const uint64_t own = s->evaluations - sh->start;
    atomic_store_explicit(&sh->used[s->job], own, memory_order_relaxed);
    if (s->exact)
        return false;
    /* a done search's count is final: those are summed once (a round of a 10,000-layer
     * chain has 10,000 searches, and this is asked at every step of each) */
    while (s->done_before < s->job &&
           atomic_load_explicit(&sh->done[s->done_before], memory_order_acquire))
        s->done_used += atomic_load_explicit(&sh->used[s->done_before++], memory_order_relaxed);
    uint64_t before = sh->start + s->done_used;
    bool all_done = s->done_before == s->job;
    for (int j = s->done_before; j < s->job && before < s->budget; j++)
        before += atomic_load_explicit(&sh->used[j], memory_order_relaxed);
    if (before + own >= s->budget)
        return true;
    if (all_done) {
        s->budget -= before - sh->start;
        s->exact = true;
    }
    return false;
}

static bool out_of_budget(search *s)
{
    if (!s->stopped && (s->evaluations >= s->budget ||
                        (s->deadline > 0 && cm_seconds_now() > s->deadline) ||
                        (s->share && batch_spent(s))))
        s->stopped = true;
    return s->stopped;
}

/* One cut vector's architecture with its scratch and folding arrays. */
typedef struct trial {
    cm_lat_arch a;
    cm_lat_eval e;
    cm_lat_fold f;
} trial;

static void trial_free(trial *t)
{
    cm_lat_eval_free(&t->e);
    free(t->f.coarse);
    free(t->f.macc);
    free(t->f.bank);
    cm_lat_arch_free(&t->a);
}

static cm_status trial_init(const search *s, const bool *cut, trial *t, cm_error *err)
{
    memset(t, 0, sizeof *t);
    cm_status st = cm_lat_arch_build(s->net, cut, s->o->input_folding, &t->a, err);
    if (st != CM_OK)
        return st;
    size_t n = (size_t)t->a.n_blocks + 1;
    t->f.coarse = calloc(n, sizeof *t->f.coarse);
    t->f.macc = calloc(n, sizeof *t->f.macc);
    t->f.bank = calloc(n, sizeof *t->f.bank);
    t->f.auto_coarse = true;
    st = t->f.coarse && t->f.macc && t->f.bank ? CM_OK : cm_error_nomem(err);
    if (st == CM_OK)
        st = cm_lat_eval_init(&t->a, &t->e, err);
    if (st != CM_OK)
        trial_free(t);
    return st;
}

/* Better: feasible over infeasible, then lower latency; ties keep the incumbent. */
static bool better(bool feasible, double latency, bool inc_feasible, double inc_latency)
{
    if (feasible != inc_feasible)
        return feasible;
    return latency < inc_latency;
}

static double run(search *s, trial *t)
{
    s->evaluations++;
    cm_lat_evaluate(&t->a, s->m, &t->f, &t->e);
    return t->e.feasible ? t->e.latency_s : INFINITY;
}

/* Keeps point p in *b when it is better (ties keep the incumbent); p's arrays are
 * copied. */
static cm_status keep_point(const search *s, best_point *b, const best_point *p, cm_error *err)
{
    if (!p->found || (b->found && !better(p->feasible, p->latency, b->feasible, b->latency)))
        return CM_OK;
    size_t n = (size_t)p->n_blocks + 1;
    int *c = realloc(b->coarse, n * sizeof *c), *m = c ? realloc(b->macc, n * sizeof *m) : NULL;
    if (c)
        b->coarse = c;
    if (m)
        b->macc = m;
    int *k = m ? realloc(b->bank, n * sizeof *k) : NULL;
    if (!k)
        return cm_error_nomem(err);
    b->bank = k;
    if (b->cut) /* (a batch's private search keeps none: its cut is the job's) */
        memcpy(b->cut, p->cut, (size_t)s->net->n_weight * sizeof *p->cut);
    memcpy(b->coarse, p->coarse, n * sizeof *c);
    memcpy(b->macc, p->macc, n * sizeof *m);
    memcpy(b->bank, p->bank, n * sizeof *k);
    b->n_blocks = p->n_blocks;
    b->found = true;
    b->feasible = p->feasible;
    b->latency = p->latency;
    return CM_OK;
}

static cm_status remember(search *s, const bool *cut, const trial *t, cm_error *err)
{
    const best_point p = {true, t->e.feasible, t->e.latency_s, (bool *)cut, t->a.n_blocks,
                          t->f.coarse, t->f.macc, t->f.bank};
    return keep_point(s, &s->best, &p, err);
}

/* ---- foldings of one cut vector ---- */

/* The breakpoints of the filters (what = 0) or window sizes (what = 1) on block b. */
static cm_status block_breakpoints(const trial *t, int b, int what, int **out, int *count,
                                   cm_error *err)
{
    int n = 0, *v = malloc(((size_t)t->a.net->n + 1) * sizeof *v);
    if (!v)
        return cm_error_nomem(err);
    for (int gi = 0; gi < t->a.n_groups; gi++)
        for (int k = 0; k < t->a.groups[gi].n_steps; k++) {
            const cm_lat_step *x = &t->a.groups[gi].steps[k];
            const cm_lat_layer *l = &t->a.net->l[x->layer];
            if (x->block == b)
                v[n++] = what ? l->kernel[0] * l->kernel[1] : cm_lat_group_filters(l);
        }
    cm_status st = cm_lat_breakpoints(v, n, out, count, err);
    free(v);
    return st;
}

/* Counts n points as costed without costing them, as far as the budget goes: each
 * would have cost what the point before it did (the loop's own check then stops). */
static void pass_over(search *s, uint64_t n)
{
    const uint64_t room = s->evaluations < s->budget ? s->budget - s->evaluations : 0;
    s->evaluations += n < room ? n : room;
}

/* Every bank size from 1 to the unfolded need, for one (N, m) of conv block b. Between
 * two sizes at which the schedule can change (cm_lat_bank_steps) the point is the same
 * but for more BRAM: no better, and a tie keeps the smaller bank. So only those sizes
 * are costed, and the others counted as costed (the budget, and with it the design,
 * stays what costing each size gave). */
static void sweep_banks(search *s, trial *t, int b, cm_lat_bank_steps *w, double *best,
                        int best_f[3])
{
    const cm_resources *avail = &s->m->avail;
    const int64_t units = (int64_t)t->f.coarse[b] * t->f.macc[b];
    const int64_t full = cm_lat_full_bank(&t->a, s->m, &t->f, b);
    const int64_t room = avail->bram18 / units, last = full < room ? full : room;
    cm_lat_bank_steps_at(w, s->m, t->f.coarse[b], t->f.macc[b], last);
    int next = 0;
    for (int64_t bank = 1; bank <= last && !out_of_budget(s);) {
        t->f.bank[b] = (int)bank;
        double lat = run(s, t);
        if (lat < *best) {
            *best = lat;
            best_f[0] = t->f.coarse[b], best_f[1] = t->f.macc[b], best_f[2] = (int)bank;
        }
        while (next < w->n_at && w->at[next] <= bank)
            next++;
        const int64_t change = next < w->n_at ? w->at[next] : last + 1;
        pass_over(s, (uint64_t)(change - bank - 1));
        bank = change;
    }
}

static cm_status exhaustive(search *s, trial *t, int b, cm_error *err)
{
    int *nv = NULL, *mv = NULL, nn = 0, nm = 0;
    cm_lat_bank_steps w;
    cm_status st = cm_lat_bank_steps_init(&t->a, b, &w, err);
    if (st != CM_OK)
        return st;
    st = block_breakpoints(t, b, 0, &nv, &nn, err);
    if (st == CM_OK)
        st = block_breakpoints(t, b, 1, &mv, &nm, err);
    double best = INFINITY;
    int best_f[3] = {1, 1, 1};
    for (int i = 0; st == CM_OK && i < nm && !out_of_budget(s); i++)
        for (int j = 0; j < nn && (int64_t)nv[j] * mv[i] <= s->m->avail.dsp && !out_of_budget(s); j++) {
            t->f.coarse[b] = nv[j];
            t->f.macc[b] = mv[i];
            sweep_banks(s, t, b, &w, &best, best_f);
        }
    t->f.coarse[b] = best_f[0], t->f.macc[b] = best_f[1], t->f.bank[b] = best_f[2];
    free(nv);
    free(mv);
    cm_lat_bank_steps_free(&w);
    return st;
}

/* The next breakpoint above v (v itself when there is none). */
static int next_above(const int *bp, int n, int v)
{
    for (int i = 0; i < n; i++)
        if (bp[i] > v)
            return bp[i];
    return v;
}

typedef struct block_bps {
    int *n_bp, *m_bp;
    int n_count, m_count;
} block_bps;

/* Applies one step to conv block b: which = 0 (N), 1 (m) or 2 (bank size). Other
 * units or MACCs change each bank's share of the weights, so the bank is resized to
 * hold its layers unfolded; the bank steps then trade it for f_in. */
static void apply_step(const search *s, trial *t, int b, int which, int value)
{
    int *var = which == 0 ? &t->f.coarse[b] : which == 1 ? &t->f.macc[b] : &t->f.bank[b];
    *var = value;
    if (which != 2)
        t->f.bank[b] = cm_lat_full_bank(&t->a, s->m, &t->f, b);
}

/* A point's resources as one number, for breaking latency ties: the largest fraction
 * of the board any resource takes. */
static double usage(const search *s, const cm_resources *r)
{
    const cm_resources *h = &s->m->avail;
    double u = 0.0;
    const double parts[4] = {(double)r->dsp / (double)(h->dsp ? h->dsp : 1),
                             (double)r->bram18 / (double)(h->bram18 ? h->bram18 : 1),
                             (double)r->lut / (double)(h->lut ? h->lut : 1),
                             (double)r->ff / (double)(h->ff ? h->ff : 1)};
    for (int i = 0; i < 4; i++)
        u += parts[i];
    return u;
}

typedef struct step_choice {
    double latency, usage, score;
    int block, which, value;
    /* the point's evaluation, for bank steps worked out without costing (bank_step) */
    cm_resources res;
    double any_latency; /* whether it fits or not */
    bool banks_fit;
} step_choice;

static step_choice choice_of(const search *s, const trial *t, int b, int which, int value)
{
    const double lat = t->e.feasible ? t->e.latency_s : INFINITY;
    return (step_choice){lat, usage(s, &t->e.res), 0.0, b, which, value,
                         t->e.res, t->e.latency_s, t->e.banks_fit};
}

/* Conv blocks' bank sizes at which the schedule changes (cm_lat_bank_steps), at the N
 * and m they were listed for. */
typedef struct greedy_banks {
    cm_lat_bank_steps *w; /* per block */
    int *coarse, *macc;   /* what w[b].at was listed for (0: not yet) */
} greedy_banks;

/* Whether block b's bank from `from` to `to` (one apart) keeps the schedule: no size at
 * which it changes lies in (min, max]. */
static bool bank_keeps_schedule(const search *s, trial *t, greedy_banks *gb, int b, int from,
                                int to)
{
    cm_lat_bank_steps *w = &gb->w[b];
    if (gb->coarse[b] != t->f.coarse[b] || gb->macc[b] != t->f.macc[b]) {
        cm_lat_bank_steps_at(w, s->m, t->f.coarse[b], t->f.macc[b], INT64_MAX);
        gb->coarse[b] = t->f.coarse[b], gb->macc[b] = t->f.macc[b];
    }
    const int64_t hi = from > to ? from : to;
    return !cm_lat_bank_steps_has(w, hi);
}

/* How good a step is: latency saved per resource added; a step that saves resources
 * without costing latency beats any other. 0 for a step that does not improve. */
static double step_score(double lat, double use, double cur_lat, double cur_use)
{
    if (lat == INFINITY || lat > cur_lat || (lat == cur_lat && use >= cur_use))
        return 0.0;
    if (use <= cur_use)
        return INFINITY;
    return (cur_lat - lat) / (use - cur_use);
}

/* A bank step that keeps the schedule, without costing it: the current point with the
 * block's BRAM N * m a bank size more or less (counted as costed, as the sweep does). */
static step_choice bank_step(search *s, const trial *t, const step_choice *cur, int b, int value)
{
    s->evaluations++;
    step_choice c = *cur;
    c.res.bram18 += (int64_t)t->f.coarse[b] * t->f.macc[b] * (value - t->f.bank[b]);
    c.latency = c.banks_fit && cm_lat_fits(&c.res, &s->m->avail) ? c.any_latency : INFINITY;
    c.usage = usage(s, &c.res);
    c.block = b, c.which = 2, c.value = value;
    return c;
}

/* Tries one step of one conv block and keeps it in *best when it scores higher (on a
 * tie, when it is faster). */
static void try_step(search *s, trial *t, greedy_banks *gb, int b, int which, int value,
                     const step_choice *cur, step_choice *best)
{
    const int saved[3] = {t->f.coarse[b], t->f.macc[b], t->f.bank[b]};
    if (value == saved[which] || value < 1)
        return;
    step_choice c;
    if (which == 2 && bank_keeps_schedule(s, t, gb, b, saved[2], value)) {
        c = bank_step(s, t, cur, b, value);
    } else {
        apply_step(s, t, b, which, value);
        run(s, t);
        c = choice_of(s, t, b, which, value);
    }
    c.score = step_score(c.latency, c.usage, cur->latency, cur->usage);
    if (c.score > best->score ||
        (c.score > 0 && c.score == best->score && c.latency < best->latency))
        *best = c;
    t->f.coarse[b] = saved[0], t->f.macc[b] = saved[1], t->f.bank[b] = saved[2];
}

/* The breakpoint below v (v itself when there is none). */
static int next_below(const int *bp, int n, int v)
{
    for (int i = n - 1; i >= 0; i--)
        if (bp[i] < v)
            return bp[i];
    return v;
}

static void try_block_steps(search *s, trial *t, greedy_banks *gb, const block_bps *bp, int b,
                            const step_choice *cur, step_choice *best)
{
    try_step(s, t, gb, b, 0, next_above(bp->n_bp, bp->n_count, t->f.coarse[b]), cur, best);
    try_step(s, t, gb, b, 1, next_above(bp->m_bp, bp->m_count, t->f.macc[b]), cur, best);
    try_step(s, t, gb, b, 0, next_below(bp->n_bp, bp->n_count, t->f.coarse[b]), cur, best);
    try_step(s, t, gb, b, 1, next_below(bp->m_bp, bp->m_count, t->f.macc[b]), cur, best);
    try_step(s, t, gb, b, 2, t->f.bank[b] - 1, cur, best);
    try_step(s, t, gb, b, 2, t->f.bank[b] + 1, cur, best);
}

/* Steepest descent by latency saved per resource, so that no block takes resources
 * out of proportion to what it saves; ends when no step lowers the latency. */
static void greedy_steps(search *s, trial *t, const block_bps *bps, greedy_banks *gb)
{
    run(s, t);
    step_choice cur = choice_of(s, t, -1, 0, 0);
    while (!out_of_budget(s)) {
        step_choice best = cur;
        best.block = -1;
        best.score = 0.0;
        for (int b = 0; b < t->a.n_blocks && !out_of_budget(s); b++)
            if (t->a.kind[b] == CM_LATENCY_CONV)
                try_block_steps(s, t, gb, &bps[b], b, &cur, &best);
        if (best.block < 0)
            return;
        apply_step(s, t, best.block, best.which, best.value);
        cur = best;
    }
}

static cm_status greedy(search *s, trial *t, cm_error *err)
{
    const size_t nb = (size_t)t->a.n_blocks + 1;
    block_bps *bps = calloc(nb, sizeof *bps);
    greedy_banks gb = {calloc(nb, sizeof *gb.w), calloc(nb, sizeof(int)), calloc(nb, sizeof(int))};
    cm_status st = bps && gb.w && gb.coarse && gb.macc ? CM_OK : cm_error_nomem(err);
    if (st == CM_OK)
        st = cm_lat_bank_steps_init_all(&t->a, gb.w, err);
    /* the set-up costs a pass over the layers per block: a network of thousands of
     * uncut layers has thousands of blocks */
    for (int b = 0; st == CM_OK && b < t->a.n_blocks; b++) {
        if (t->a.kind[b] != CM_LATENCY_CONV)
            continue;
        if (out_of_budget(s)) {
            t->f.bank[b] = 1;
            continue;
        }
        st = block_breakpoints(t, b, 0, &bps[b].n_bp, &bps[b].n_count, err);
        if (st == CM_OK)
            st = block_breakpoints(t, b, 1, &bps[b].m_bp, &bps[b].m_count, err);
        t->f.bank[b] = cm_lat_full_bank(&t->a, s->m, &t->f, b);
    }
    if (st == CM_OK) {
        /* start from the smallest banks when the unfolded ones do not fit */
        if (run(s, t) == INFINITY)
            for (int b = 0; b < t->a.n_blocks; b++)
                t->f.bank[b] = 1;
        greedy_steps(s, t, bps, &gb);
    }
    for (int b = 0; bps && b < t->a.n_blocks; b++) {
        free(bps[b].n_bp);
        free(bps[b].m_bp);
    }
    for (int b = 0; gb.w && b < t->a.n_blocks; b++)
        cm_lat_bank_steps_free(&gb.w[b]);
    free(gb.w), free(gb.coarse), free(gb.macc);
    free(bps);
    return st;
}

/* One unit of everything and the smallest banks (the same size for every conv block)
 * with which the point fits: a bank must hold a fold of some layer's weights. */
static void smallest_banks(search *s, trial *t)
{
    int most = 1;
    for (int b = 0; b < t->a.n_blocks; b++)
        if (t->a.kind[b] == CM_LATENCY_CONV) {
            int full = cm_lat_full_bank(&t->a, s->m, &t->f, b);
            most = full > most ? full : most;
        }
    for (int bank = 1; bank <= most; bank++) {
        for (int b = 0; b < t->a.n_blocks; b++)
            t->f.bank[b] = bank;
        if (run(s, t) < INFINITY)
            return;
    }
}

/* Searches the foldings of one cut vector (or, minimal, takes every folding 1 and the
 * smallest banks that fit); *latency is its best (INFINITY: none fits). */
static cm_status cost_cut(search *s, const bool *cut, bool minimal, double *latency,
                          cm_error *err)
{
    trial t;
    cm_status st = trial_init(s, cut, &t, err);
    if (st != CM_OK)
        return st;
    for (int b = 0; b < t.a.n_blocks; b++)
        t.f.coarse[b] = t.f.macc[b] = t.f.bank[b] = 1;
    if (minimal) {
        smallest_banks(s, &t);
    } else if (t.a.n_conv == 1) {
        int b = 0;
        while (t.a.kind[b] != CM_LATENCY_CONV)
            b++;
        st = exhaustive(s, &t, b, err);
    } else {
        st = greedy(s, &t, err);
    }
    if (st == CM_OK) {
        *latency = run(s, &t);
        st = remember(s, cut, &t, err);
    }
    trial_free(&t);
    return st;
}

static cm_status search_cut(search *s, const bool *cut, double *latency, cm_error *err)
{
    return cost_cut(s, cut, false, latency, err);
}

/* ---- several cut vectors at once ---- */

/* The cut vectors of a batch, made on demand: a round of 10,000 toggles of a
 * 10,000-layer chain would be 10^8 flags. Writes vector k into cut. */
typedef struct cut_maker {
    void (*make)(const struct cut_maker *mk, int k, bool *cut);
    const bool *base; /* the hill-climbing round's vector: k toggles weight layer k + 1 */
    uint64_t first;   /* the enumeration's first mask: vector k is mask first + k */
    int n_weight;
} cut_maker;

static void make_toggle(const cut_maker *mk, int k, bool *cut)
{
    memcpy(cut, mk->base, (size_t)mk->n_weight * sizeof *cut);
    cut[k + 1] = !cut[k + 1];
}

static void make_mask(const cut_maker *mk, int k, bool *cut)
{
    cut[0] = false;
    for (int w = 1; w < mk->n_weight; w++)
        cut[w] = ((mk->first + (uint64_t)k) >> (w - 1)) & 1;
}

/* One cut vector of a batch, searched on its own: a private search that begins with the
 * batch's evaluations so far and keeps its own best point, whose cut is the job's (not
 * copied: best.cut stays NULL). */
typedef struct cut_job {
    search s;
    double latency;
    bool ran;
    cm_status st;
    cm_error err;
} cut_job;

typedef struct cut_jobs {
    cut_job *job;
    int n;
    const cut_maker *mk;
    cut_share share;
} cut_jobs;

/* A thread's work: the batch's searches in order, each taken by the first free thread. */
static void run_cut_jobs(void *ctx, int task, int lane)
{
    (void)task, (void)lane;
    cut_jobs *b = ctx;
    bool *cut = malloc((size_t)b->mk->n_weight * sizeof *cut);
    for (int k; (k = atomic_fetch_add(&b->share.next, 1)) < b->n;) {
        cut_job *j = &b->job[k];
        /* (the searches before it may have spent the budget already: its set-up is a
         * pass over the network) */
        if (!cut) {
            j->st = cm_error_nomem(&j->err);
            j->ran = true;
        } else if (!out_of_budget(&j->s)) {
            b->mk->make(b->mk, k, cut);
            j->st = search_cut(&j->s, cut, &j->latency, &j->err);
            j->ran = true;
        }
        atomic_store_explicit(&b->share.used[k], j->s.evaluations - b->share.start,
                              memory_order_relaxed);
        atomic_store_explicit(&b->share.done[k], true, memory_order_release);
    }
    free(cut);
}

static void cut_jobs_free(cut_jobs *b)
{
    for (int k = 0; b->job && k < b->n; k++) {
        free(b->job[k].s.best.coarse);
        free(b->job[k].s.best.macc);
        free(b->job[k].s.best.bank);
    }
    free(b->job);
    free((void *)b->share.used);
    free((void *)b->share.done);
}

static cm_status cut_jobs_init(search *s, const cut_maker *mk, int n, cut_jobs *b,
                               cm_error *err)
{
    *b = (cut_jobs){.job = calloc((size_t)n, sizeof *b->job), .n = n, .mk = mk};
    b->share.used = calloc((size_t)n, sizeof *b->share.used);
    b->share.done = calloc((size_t)n, sizeof *b->share.done);
    b->share.start = s->evaluations;
    atomic_init(&b->share.next, 0);
    if (!b->job || !b->share.used || !b->share.done) {
        cut_jobs_free(b);
        return cm_error_nomem(err);
    }
    for (int k = 0; k < n; k++) {
        atomic_init(&b->share.used[k], 0);
        atomic_init(&b->share.done[k], false);
        cut_job *j = &b->job[k];
        *j = (cut_job){.s = *s, .latency = INFINITY};
        j->s.best = (best_point){0};
        j->s.share = &b->share;
        j->s.job = k;
    }
    return CM_OK;
}

/* Searches the batch's n cut vectors as a loop would, one after another while the
 * budget lasts (latency[k] is set for the first *done), on the options' threads with the
 * same result as one thread. The threads take the searches in order, each a private
 * search with the budget the ones before it can have left (batch_spent); then, in order,
 * a search is taken as it ran when it knew its budget exactly or stayed within what the
 * ones before it left, and otherwise (the budget ran out within it) it is searched again
 * with what is left, which ends the batch. cut: room for one vector. */
static cm_status search_cuts(search *s, const cut_maker *mk, int n, bool *cut, double *latency,
                             int *done, cm_error *err)
{
    *done = 0;
    const int threads = s->o->threads;
    if (threads <= 1 || n < 2) {
        cm_status st = CM_OK;
        for (int k = 0; st == CM_OK && k < n && !out_of_budget(s); k++, (*done)++) {
            mk->make(mk, k, cut);
            st = search_cut(s, cut, &latency[k], err);
        }
        return st;
    }
    if (out_of_budget(s))
        return CM_OK;
    cut_jobs b;
    cm_status st = cut_jobs_init(s, mk, n, &b, err);
    if (st != CM_OK)
        return st;
    cm_parallel_run(threads < n ? threads : n, threads, run_cut_jobs, &b, NULL);
    for (int k = 0; st == CM_OK && k < n && !out_of_budget(s); k++, (*done)++) {
        cut_job *j = &b.job[k];
        const uint64_t used = j->s.evaluations - b.share.start;
        mk->make(mk, k, cut);
        if (j->ran && j->st != CM_OK) {
            *err = j->err;
            st = j->st;
        } else if (j->ran && (j->s.exact || (!j->s.stopped && s->evaluations + used < s->budget))) {
            s->evaluations += used;
            s->stopped |= j->s.stopped;
            latency[k] = j->latency;
            j->s.best.cut = cut;
            st = keep_point(s, &s->best, &j->s.best, err);
            j->s.best.cut = NULL;
        } else {
            st = search_cut(s, cut, &latency[k], err);
        }
    }
    cut_jobs_free(&b);
    return st;
}

/* ---- cut vectors ---- */

/* Every cut vector, in batches of this many (the threads' share of the work). */
#define ENUMERATE_BATCH 64

static cm_status enumerate_cuts(search *s, bool *cut, cm_error *err)
{
    const int free_cuts = s->net->n_weight - 1;
    const uint64_t total = 1ull << free_cuts;
    double latency[ENUMERATE_BATCH];
    cut_maker mk = {.make = make_mask, .n_weight = s->net->n_weight};
    cm_status st = CM_OK;
    for (; st == CM_OK && mk.first < total && !out_of_budget(s); mk.first += ENUMERATE_BATCH) {
        const int n = total - mk.first < ENUMERATE_BATCH ? (int)(total - mk.first)
                                                         : ENUMERATE_BATCH;
        int done;
        st = search_cuts(s, &mk, n, cut, latency, &done, err);
    }
    return st;
}

static cm_status hill_climb(search *s, bool *cut, cm_error *err)
{
    const int nw = s->net->n_weight;
    double all = INFINITY, none = INFINITY;
    /* "cut everywhere" first: on a large network the more likely to fit, and with no
     * time left the only start */
    for (int w = 1; w < nw; w++)
        cut[w] = true;
    cm_status st = search_cut(s, cut, &all, err);
    for (int w = 1; w < nw; w++)
        cut[w] = false;
    if (st == CM_OK && !out_of_budget(s))
        st = search_cut(s, cut, &none, err);
    double current = none;
    if (!(none < all))
        for (int w = 1; w < nw; w++)
            cut[w] = true, current = all;
    if (st != CM_OK || nw < 2 || out_of_budget(s))
        return st;
    /* a round: every single toggle of the current vector, weight layer k + 1 in toggle k */
    bool *base = malloc((size_t)nw * sizeof *base);
    double *latency = malloc((size_t)nw * sizeof *latency);
    if (!base || !latency)
        st = cm_error_nomem(err);
    const cut_maker mk = {.make = make_toggle, .base = base, .n_weight = nw};
    while (st == CM_OK && !out_of_budget(s)) {
        memcpy(base, cut, (size_t)nw * sizeof *cut);
        int done, pick = -1;
        st = search_cuts(s, &mk, nw - 1, cut, latency, &done, err);
        double best = current;
        for (int k = 0; st == CM_OK && k < done; k++)
            if (latency[k] < best)
                best = latency[k], pick = k + 1;
        memcpy(cut, base, (size_t)nw * sizeof *cut);
        if (st != CM_OK || pick < 0)
            break;
        cut[pick] = !cut[pick];
        current = best;
    }
    free(base);
    free(latency);
    return st;
}

/* The resource-minimal point: every weight layer its own subgraph (with reloading), so
 * that the reference is sized for one layer at a time, one unit of everything and the
 * smallest banks that fit (f_in folds the rest). */
static cm_status minimal(search *s, bool *cut, cm_error *err)
{
    for (int w = 1; w < s->net->n_weight; w++)
        cut[w] = s->o->weights_reloading;
    double latency;
    return cost_cut(s, cut, true, &latency, err);
}

void cm_lat_search_free(cm_lat_search_result *r)
{
    free(r->cut);
    free(r->coarse);
    free(r->macc);
    free(r->bank);
    memset(r, 0, sizeof *r);
}

cm_status cm_lat_search(const cm_lat_net *net, const cm_lat_machine *m,
                        const cm_latency_options *o, cm_lat_search_result *r, cm_error *err)
{
    if (o->search == CM_LATENCY_SEARCH_EXACT)
        return cm_lat_exact(net, m, o, r, err);
    return cm_lat_search_budget(net, m, o,
                                LAT_SEARCH_LAYER_BUDGET / (uint64_t)(net->n > 0 ? net->n : 1), r,
                                err);
}

cm_status cm_lat_search_budget(const cm_lat_net *net, const cm_lat_machine *m,
                               const cm_latency_options *o, uint64_t budget,
                               cm_lat_search_result *r, cm_error *err)
{
    search s = {.net = net, .m = m, .o = o, .budget = budget};
    memset(r, 0, sizeof *r);
    s.best.cut = calloc((size_t)net->n_weight, sizeof *s.best.cut);
    bool *cut = calloc((size_t)net->n_weight, sizeof *cut);
    cm_status st = s.best.cut && cut ? CM_OK : cm_error_nomem(err);
    if (o->time_limit_s > 0)
        s.deadline = cm_seconds_now() + o->time_limit_s;
    if (st == CM_OK) {
        double lat;
        if (o->search == CM_LATENCY_SEARCH_MINIMAL)
            st = minimal(&s, cut, err);
        else if (!o->weights_reloading || net->n_weight == 1)
            st = search_cut(&s, cut, &lat, err);
        else if (net->n_weight - 1 <= o->exhaustive_cuts)
            st = enumerate_cuts(&s, cut, err);
        else
            st = hill_climb(&s, cut, err);
        /* Cut short before anything fitted: the minimal point is the one most likely to
         * fit, so that a slow machine gets a worse design rather than none. */
        if (st == CM_OK && s.stopped && !s.best.feasible)
            st = minimal(&s, cut, err);
    }
    free(cut);
    r->cut = s.best.cut;
    r->coarse = s.best.coarse;
    r->macc = s.best.macc;
    r->bank = s.best.bank;
    r->n_blocks = s.best.n_blocks;
    r->evaluations = s.evaluations;
    r->stopped_early = s.stopped;
    r->stopped_by_budget = s.stopped && s.evaluations >= s.budget;
    if (st != CM_OK)
        cm_lat_search_free(r);
    return st;
}
