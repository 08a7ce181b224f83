/* The exact optimiser's integer program for one segment (one FPGA configuration):
 * a binary per node and kept configuration, one chosen per node; T at least every
 * chosen cycle count (eq. 2); the five resource sums within the board (eq. 6); some
 * node slower than the bandwidth limit (eq. 7: the interval is the slowest node's
 * cycles, so a partition that runs too fast is infeasible, and this disjunction is
 * exact where a bound on T would not be); the edge rules per folding value (eq. 10,
 * divisibility); the first frame (src/design/first_frame.c) as continuous first-output,
 * start and last-output times per node, each at least what its configuration's timing
 * adds to its producers' (a node with several producers, or one beside off-chip input,
 * gets its input's first and last word as two more times, at least each producer's),
 * and D at least each leaving node's last output less T; minimise batch * T + D. Every
 * time is nondecreasing in the times it depends on, so the least solution is the
 * recurrence's maxima and the program's optimum is the design's cost.
 * Solved by GLPK's branch and cut; the answer is re-evaluated by the design, which must
 * agree with the solver's objective.
 * The interval alone (the bound without the first frame, and the start of every program
 * with it) is not minimised by GLPK but found by levels (solve_by_levels): the least
 * candidate cycle count at which some choice fits, each candidate a program without an
 * objective. With the first frame, that interval bounds T and its choice is the design
 * to beat; without it, the bound is raised by the linear relaxation of the program with
 * it (frame_relaxation). --gap is GLPK's relative gap on each program, since the search
 * adds the segments' bounds. */
#include "optimise/exact.h"

#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/progress.h"

enum { FRAME_COLS = 5 }; /* F, S, L, A, Z a node: see ilp.frame_col */

typedef struct ilp {
    ex_problem *p;
    const ex_segment *s;
    glp_prob *lp;
    int n;          /* nodes in the segment */
    int *off;       /* n + 1 offsets into the flattened configurations */
    int *col;       /* column per flattened configuration, 0 when left out */
    int t_col, d_col;
    bool frame;     /* the first frame is modelled (else D is left out: a bound) */
    bool feasible_only; /* any choice will do: no objective (solve_by_levels) */
    int *frame_col; /* per node: first output, start, last output; input's first and
                     * last word (0 where a producer's own times serve) */
    int *input_last; /* per node: the column of its input's last word (0: memory) */
    int *input_first; /* and of its input's first word (0: memory) */
    double *late;    /* per node: its late records (first_frame.c), CM_LATE_STRIDE each */
    cm_late_rec *recs; /* one node's records while its rows are made */
    int *ind;       /* one row's coefficients, 1-based as GLPK wants them */
    double *val;
    double t_lb;    /* T's bound in the program: the fastest node, eq. 7's floor */
    double t_floor; /* a stronger bound (ex_time_floor), for cutoffs and timeouts */
} ilp;

typedef struct ilp_watch {
    double deadline, bound;
    bool have_bound;
    ex_problem *p;
    int nodes; /* GLPK's count of the nodes this program made */
    double enough; /* > 0: a bound (cycles) at which a design known outside the program
                    * is within the gap asked for, so that it may stop there */
    const ex_goal *goal; /* what the search needs of the program (NULL: nothing) */
    bool at_goal;  /* it stopped there */
    glp_iocp *parm; /* the program's parameters, which GLPK reads as it goes */
    double start;  /* when glp_intopt began */
    enum { PUMP_UNDECIDED, PUMP_RUNNING, PUMP_SETTLED } pump; /* decide_pump */
    int tm_lim;    /* the program's tm_lim while the pump runs on its own */
} ilp_watch;

static const ex_config *cfg_of(const ilp *m, int k, int node_in_seg)
{
    return &m->p->nodes[m->s->first + node_in_seg].cfg[k - m->off[node_in_seg]];
}

static void ilp_free(ilp *m)
{
    if (m->lp)
        glp_delete_prob(m->lp);
    free(m->off);
    free(m->col);
    free(m->frame_col);
    free(m->input_last);
    free(m->input_first);
    free(m->late);
    free(m->recs);
    free(m->ind);
    free(m->val);
}

static cm_status ilp_alloc(ilp *m, ex_problem *p, const ex_segment *s, cm_error *err)
{
    memset(m, 0, sizeof *m);
    m->p = p;
    m->s = s;
    m->n = s->end - s->first;
    m->off = malloc((size_t)(m->n + 1) * sizeof *m->off);
    if (!m->off)
        return cm_error_nomem(err);
    m->off[0] = 0;
    for (int i = 0; i < m->n; i++)
        m->off[i + 1] = m->off[i] + p->nodes[s->first + i].n_cfg;
    size_t total = (size_t)m->off[m->n] + (size_t)m->n + 4;
    m->col = calloc(total, sizeof *m->col);
    m->frame_col = calloc(FRAME_COLS * (size_t)m->n, sizeof *m->frame_col);
    int cap = 1;
    for (int i = 0; i < m->n; i++) {
        const int c = cm_design_late_cap(p->d, s->first + i);
        cap = c > cap ? c : cap;
    }
    m->input_last = calloc((size_t)m->n + 1, sizeof *m->input_last);
    m->input_first = calloc((size_t)m->n + 1, sizeof *m->input_first);
    m->late = calloc((size_t)m->n * CM_LATE_STRIDE + 1, sizeof *m->late);
    m->recs = malloc((size_t)cap * sizeof *m->recs);
    m->ind = malloc(total * sizeof *m->ind);
    m->val = malloc(total * sizeof *m->val);
    m->lp = glp_create_prob();
    if (!m->col || !m->frame_col || !m->input_last || !m->input_first || !m->late ||
        !m->recs || !m->ind || !m->val || !m->lp)
        return cm_error_nomem(err);
    return CM_OK;
}

/* Marks the configurations the program keeps (col = -1 for now) and finds the
 * smallest interval any choice can have. False when the segment is infeasible. */
static bool select_configs(ilp *m, const uint8_t *allowed)
{
    double witness = INFINITY;
    m->t_lb = 0.0;
    for (int i = 0; i < m->n; i++) {
        double fastest = INFINITY;
        for (int k = m->off[i]; k < m->off[i + 1]; k++) {
            if ((allowed && !allowed[k]) ||
                !ex_config_kept(m->p, m->s, m->s->first + i, k - m->off[i]))
                continue;
            m->col[k] = -1;
            double cyc = cfg_of(m, k, i)->cycles;
            fastest = fmin(fastest, cyc);
            if (ex_bandwidth_ok(m->p, m->s, cyc))
                witness = fmin(witness, cyc);
        }
        if (isinf(fastest))
            return false;
        m->t_lb = fmax(m->t_lb, fastest);
    }
    if (isinf(witness))
        return false;
    m->t_lb = fmax(m->t_lb, witness);
    /* The resource floor is not put on T's column: a bound that tight leaves GLPK
     * many equal relaxations to branch through (measured 20-30x slower on hls4ml). */
    m->t_floor = m->t_lb;
    uint8_t *keep = malloc((size_t)m->off[m->n] + 1);
    if (keep) {
        for (int k = 0; k < m->off[m->n]; k++)
            keep[k] = m->col[k] != 0;
        m->t_floor = fmax(m->t_lb, ex_time_floor(m->p, m->s, keep));
        free(keep);
    }
    return !isinf(m->t_floor);
}

/* Whether the program models the first frame: when the objective has a depth and the
 * caller asked for it. */
static bool models_frame(const ilp *m)
{
    return m->p->has_depth && m->frame;
}

static int add_free_col(ilp *m, double obj)
{
    int j = glp_add_cols(m->lp, 1);
    glp_set_col_bnds(m->lp, j, GLP_LO, 0.0, 0.0);
    glp_set_obj_coef(m->lp, j, obj);
    return j;
}

static void add_columns(ilp *m)
{
    for (int i = 0; i < m->n; i++)
        for (int k = m->off[i]; k < m->off[i + 1]; k++) {
            if (!m->col[k])
                continue;
            int j = m->col[k] = glp_add_cols(m->lp, 1);
            glp_set_col_kind(m->lp, j, GLP_BV);
        }
    m->t_col = glp_add_cols(m->lp, 1);
    glp_set_col_bnds(m->lp, m->t_col, GLP_LO, m->t_lb, 0.0);
    glp_set_obj_coef(m->lp, m->t_col, m->feasible_only ? 0.0 : m->p->batch);
    if (!models_frame(m))
        return;
    for (int i = 0; i < m->n; i++)
        for (int c = 0; c < 3; c++)
            m->frame_col[FRAME_COLS * i + c] = add_free_col(m, 0.0);
    m->d_col = add_free_col(m, 1.0);
}

static void add_row(ilp *m, int len, int type, double lb, double ub)
{
    int r = glp_add_rows(m->lp, 1);
    glp_set_row_bnds(m->lp, r, type, lb, ub);
    glp_set_mat_row(m->lp, r, len, m->ind, m->val);
}

/* Appends node i's kept configurations to the row buffer, weighted by f(config). */
static int put_node(ilp *m, int len, int i, double (*f)(const ex_config *, const void *),
                    const void *arg, double sign)
{
    for (int k = m->off[i]; k < m->off[i + 1]; k++) {
        if (!m->col[k])
            continue;
        double w = f(cfg_of(m, k, i), arg);
        if (w == 0.0)
            continue;
        len++;
        m->ind[len] = m->col[k];
        m->val[len] = sign * w;
    }
    return len;
}

static double w_one(const ex_config *c, const void *arg) { (void)c; (void)arg; return 1.0; }
static double w_cycles(const ex_config *c, const void *arg) { (void)arg; return c->cycles; }
static double w_res(const ex_config *c, const void *arg)
{
    return (double)ex_res_kind(&c->res, *(const int *)arg);
}

/* One configuration per node, and T at least each node's cycles (nodes that can never
 * be slower than the least possible interval need no row). */
static void add_choice_and_time_rows(ilp *m)
{
    for (int i = 0; i < m->n; i++) {
        add_row(m, put_node(m, 0, i, w_one, NULL, 1.0), GLP_FX, 1.0, 1.0);
        double slowest = 0.0;
        for (int k = m->off[i]; k < m->off[i + 1]; k++)
            if (m->col[k])
                slowest = fmax(slowest, cfg_of(m, k, i)->cycles);
        if (slowest <= m->t_lb)
            continue;
        int len = put_node(m, 0, i, w_cycles, NULL, -1.0);
        m->ind[++len] = m->t_col;
        m->val[len] = 1.0;
        add_row(m, len, GLP_LO, 0.0, 0.0);
    }
}

/* eq. 6, for each resource the kept configurations could exceed. */
static void add_resource_rows(ilp *m)
{
    const cm_resources *board = &m->p->d->limits;
    for (int kind = 0; kind < EX_RESOURCES; kind++) {
        double worst = 0.0;
        for (int i = 0; i < m->n; i++) {
            double most = 0.0;
            for (int k = m->off[i]; k < m->off[i + 1]; k++)
                if (m->col[k])
                    most = fmax(most, (double)ex_res_kind(&cfg_of(m, k, i)->res, kind));
            worst += most;
        }
        if (worst <= (double)ex_res_kind(board, kind))
            continue;
        int len = 0;
        for (int i = 0; i < m->n; i++)
            len = put_node(m, len, i, w_res, &kind, 1.0);
        add_row(m, len, GLP_UP, 0.0, (double)ex_res_kind(board, kind));
    }
}

static double w_bw_witness(const ex_config *c, const void *arg)
{
    const ilp *m = arg;
    return ex_bandwidth_ok(m->p, m->s, c->cycles) ? 1.0 : 0.0;
}

/* eq. 7: at least one node at a configuration slow enough, unless one node always is. */
static void add_bandwidth_row(ilp *m)
{
    for (int i = 0; i < m->n; i++) {
        bool always = true;
        for (int k = m->off[i]; k < m->off[i + 1]; k++)
            if (m->col[k] && !ex_bandwidth_ok(m->p, m->s, cfg_of(m, k, i)->cycles))
                always = false;
        if (always)
            return;
    }
    int len = 0;
    for (int i = 0; i < m->n; i++)
        len = put_node(m, len, i, w_bw_witness, m, 1.0);
    add_row(m, len, GLP_LO, 1.0, 0.0);
}

typedef struct edge_arg {
    unsigned flags;
    int64_t value;
} edge_arg;

static double w_out_is(const ex_config *c, const void *arg)
{
    return c->out == ((const edge_arg *)arg)->value ? 1.0 : 0.0;
}

static double w_in_fits(const ex_config *c, const void *arg)
{
    const edge_arg *e = arg;
    return ex_compatible(e->flags, e->value, c->in) ? 1.0 : 0.0;
}

/* Edge u -> v inside the segment: if u takes out-folding a, v must take an in-folding
 * that a may feed (one row per value of a). */
static void add_edge_rows(ilp *m, int u, int v)
{
    const ex_node *en = &m->p->nodes[m->s->first + u];
    for (int a = 0; a < en->n_out_vals; a++) {
        edge_arg e = {en->flags, en->out_vals[a]};
        int len = put_node(m, 0, u, w_out_is, &e, 1.0);
        if (len == 0)
            continue;
        len = put_node(m, len, v, w_in_fits, &e, -1.0);
        add_row(m, len, GLP_UP, 0.0, 0.0);
    }
}

/* ---- the first frame (src/design/first_frame.c) ---- */

typedef struct frame_arg {
    double words;     /* the node's input words a sample */
    double burst;     /* words its producer writes at once */
} frame_arg;

/* Node i of the segment's input: its words, and the largest burst of its producers in
 * the segment (the same for all of a producer's configurations on every backend). */
static frame_arg frame_arg_of(const ilp *m, int i)
{
    const cm_hd_node *hn = &m->p->d->hd.nodes[m->s->first + i];
    const double words = (double)hn->size_in;
    frame_arg fa = {words > 0 ? words : 1.0, 1.0};
    for (int k = 0; k < hn->n_pred; k++) {
        const ex_node *pn = &m->p->nodes[hn->pred[k]];
        if (hn->pred[k] >= m->s->first && pn->n_cfg > 0)
            fa.burst = fmax(fa.burst, pn->cfg[0].timing.burst_words);
    }
    return fa;
}

/* The share of the producer's output span after which the k-th input word is in. */
static double span_share(const frame_arg *a, double k)
{
    return ex_span_share(k, a->words, a->burst);
}

static double source_cycles(const ex_config *c, const frame_arg *a)
{
    return a->words / (c->timing.beat_words > 0 ? c->timing.beat_words : 1.0);
}

static double w_fill_own(const ex_config *c, const void *arg)
{
    (void)arg;
    return c->timing.fill_cycles + c->timing.head_cycles;
}
static double w_start_own(const ex_config *c, const void *arg)
{
    (void)arg;
    return c->timing.start_cycles;
}
static double w_rest(const ex_config *c, const void *arg) { (void)arg; return c->timing.rest_cycles; }
static double w_tail(const ex_config *c, const void *arg) { (void)arg; return c->timing.tail_cycles; }
/* From off-chip memory: the first output after the fill share of the input's stream. */
static double w_fill_source(const ex_config *c, const void *arg)
{
    const frame_arg *a = arg;
    return span_share(a, c->timing.fill_words) * source_cycles(c, a) + c->timing.head_cycles;
}
static double w_start_source(const ex_config *c, const void *arg)
{
    const frame_arg *a = arg;
    return span_share(a, c->timing.start_words) * source_cycles(c, a);
}
static double w_tail_source(const ex_config *c, const void *arg)
{
    const frame_arg *a = arg;
    return source_cycles(c, a) + c->timing.tail_cycles;
}
static double w_source(const ex_config *c, const void *arg)
{
    return source_cycles(c, arg);
}

/* Appends coefficient v on column col. */
static int put_col(ilp *m, int len, int col, double v)
{
    m->ind[++len] = col;
    m->val[len] = v;
    return len;
}

/* x >= y + sum_k w(k) x_k, as x - y - sum >= 0 (y = 0: from memory). */
static void add_after(ilp *m, int i, int x, int y, double (*w)(const ex_config *, const void *),
                      const void *arg)
{
    int len = put_col(m, 0, x, 1.0);
    if (y)
        len = put_col(m, len, y, -1.0);
    len = put_node(m, len, i, w, arg, -1.0);
    add_row(m, len, GLP_LO, 0.0, 0.0);
}

static double w_head(const ex_config *c, const void *arg) { (void)arg; return c->timing.head_cycles; }

/* x >= a + (z - a) * share_k + add_k when configuration k is chosen. One row when every
 * configuration has the same share; else a row per configuration, relaxed by big_m when
 * it is not chosen (kept rare: GLPK's integrality tolerance times big_m is slack). */
static void add_share_rows(ilp *m, int i, int x, int a, int z, bool fill, const frame_arg *fa,
                           double big_m)
{
    double common = -1.0;
    bool same = true;
    for (int k = m->off[i]; k < m->off[i + 1]; k++) {
        if (!m->col[k])
            continue;
        const ex_config *c = cfg_of(m, k, i);
        const double v = span_share(fa, fill ? c->timing.fill_words : c->timing.start_words);
        same &= common < 0 || v == common;
        common = v;
    }
    if (same && common >= 0) {
        int len = put_col(m, 0, x, 1.0);
        if (common < 1.0)
            len = put_col(m, len, a, -(1.0 - common));
        if (common > 0.0)
            len = put_col(m, len, z, -common);
        if (fill)
            len = put_node(m, len, i, w_head, NULL, -1.0);
        add_row(m, len, GLP_LO, 0.0, 0.0);
        return;
    }
    for (int k = m->off[i]; k < m->off[i + 1]; k++) {
        if (!m->col[k])
            continue;
        const ex_config *c = cfg_of(m, k, i);
        const double share = span_share(fa, fill ? c->timing.fill_words : c->timing.start_words);
        const double add = fill ? c->timing.head_cycles : 0.0;
        int len = put_col(m, 0, x, 1.0);
        if (share < 1.0)
            len = put_col(m, len, a, -(1.0 - share));
        if (share > 0.0)
            len = put_col(m, len, z, -share);
        len = put_col(m, len, m->col[k], -(add + big_m));
        add_row(m, len, GLP_LO, -big_m, 0.0);
    }
}

/* The longest any node's last output can come, over every choice: a big-M that
 * relaxes the rows of configurations not chosen. */
static double frame_bound(const ilp *m)
{
    double total = 0.0;
    for (int i = 0; i < m->n; i++) {
        const frame_arg fa = frame_arg_of(m, i);
        double most = 0.0;
        for (int k = m->off[i]; k < m->off[i + 1]; k++) {
            if (!m->col[k])
                continue;
            const ex_config *c = cfg_of(m, k, i);
            const cm_block_timing *t = &c->timing;
            double v = t->fill_cycles + t->head_cycles + t->start_cycles + t->rest_cycles +
                       t->tail_cycles;
            if (i == 0)
                v += source_cycles(c, &fa);
            most = fmax(most, v);
        }
        total += most;
    }
    return 2.0 * total + 1.0;
}

/* When node i has taken a window's last rows (first_frame.c, node_time's `taken`):
 * from a start, a weighted sum of two times, it takes row_words at its pace. */
typedef struct row_arg {
    double row_words, words;
    bool head; /* the first output's row: head_cycles, else tail_cycles */
} row_arg;

static double w_last_row(const ex_config *c, const void *arg)
{
    const row_arg *r = arg;
    const cm_block_cost cost = {.cycles = c->cycles, .timing = c->timing};
    return r->row_words * cm_design_take_pace(&cost, r->words) +
           (r->head ? c->timing.head_cycles : c->timing.tail_cycles);
}

typedef struct row_start {
    int z, a;     /* columns (a 0: none) */
    double z_coef, a_coef;
} row_start;

static int put_start(ilp *m, int x, const row_start *st)
{
    int len = put_col(m, 0, x, 1.0);
    len = put_col(m, len, st->z, -st->z_coef);
    return st->a && st->a_coef != 0 ? put_col(m, len, st->a, -st->a_coef) : len;
}

/* L >= start + row_words * pace_k + tail_k, and where node i needs its whole input
 * before its first output, F >= the same with head_k (a row per configuration,
 * relaxed by big_m, if only some do). */
static void add_taken_rows(ilp *m, int i, const row_start *st, row_arg ra, double big_m)
{
    const int F = m->frame_col[FRAME_COLS * i], L = m->frame_col[FRAME_COLS * i + 2];
    ra.head = false;
    add_row(m, put_node(m, put_start(m, L, st), i, w_last_row, &ra, -1.0), GLP_LO, 0.0, 0.0);
    int whole = 0, any = 0;
    for (int k = m->off[i]; k < m->off[i + 1]; k++)
        if (m->col[k]) {
            any++;
            whole += cfg_of(m, k, i)->timing.fill_words >= ra.words;
        }
    ra.head = true;
    if (whole > 0 && whole == any) {
        add_row(m, put_node(m, put_start(m, F, st), i, w_last_row, &ra, -1.0), GLP_LO, 0.0,
                0.0);
        return;
    }
    for (int k = m->off[i]; whole > 0 && k < m->off[i + 1]; k++) {
        const ex_config *c = m->col[k] ? cfg_of(m, k, i) : NULL;
        if (!c || c->timing.fill_words < ra.words)
            continue;
        int len = put_start(m, F, st);
        len = put_col(m, len, m->col[k], -(w_last_row(c, &ra) + big_m));
        add_row(m, len, GLP_LO, -big_m, 0.0);
    }
}

/* Node i taking producer p's window rows (first_frame.c, node_time): a strided window
 * writes its last output row within one input row, L >= z - (z - a) / q + row_words
 * * pace_k + tail_k; and the window p's rows come from (p, or one before blocks
 * passing rows on) writes its tail after its last input word z_w and the outputs its
 * last input row completes from z_w - lead (z_w - a_w) on. */
static void add_last_row_rows(ilp *m, int i, int p, const frame_arg *fa, double big_m)
{
    const int first = m->s->first, src = m->p->d->row_source[first + p];
    const ex_node *sn = src >= first ? &m->p->nodes[src] : NULL;
    const cm_block_timing *pt = sn && sn->n_cfg > 0 ? &sn->cfg[0].timing : NULL;
    if (!pt)
        return;
    const double out_words = (double)m->p->d->hd.nodes[first + p].size_out;
    if (src == first + p && pt->row_stride >= 2.0) {
        const double q = cm_design_row_spread(pt);
        const row_start st = {m->frame_col[FRAME_COLS * p + 2], m->frame_col[FRAME_COLS * p],
                              1.0 - 1.0 / q, 1.0 / q};
        add_taken_rows(m, i, &st, (row_arg){out_words / pt->out_rows, fa->words, false}, big_m);
    }
    const int win_a = m->input_first[src - first], win_z = m->input_last[src - first];
    if (!win_z)
        return; /* a window reading off-chip memory only: its input's times are no column */
    const row_start tail = {win_z, 0, 1.0, 0.0};
    if (pt->tail_share > 0) /* else L >= z_w + tail_k holds already */
        add_taken_rows(m, i, &tail, (row_arg){pt->tail_share * out_words, fa->words, false},
                       big_m);
    const row_start last = {win_z, win_a, 1.0 - pt->last_row_lead, pt->last_row_lead};
    if (pt->last_row_share > 0)
        add_taken_rows(m, i, &last, (row_arg){pt->last_row_share * out_words, fa->words, false},
                       big_m);
}

/* x >= y, as x - y >= 0. */
static void add_at_least(ilp *m, int x, int y)
{
    add_row(m, put_col(m, put_col(m, 0, x, 1.0), y, -1.0), GLP_LO, 0.0, 0.0);
}

/* Node i's input's first and last word (*a, *z): its one producer's first and last
 * output, or two times at least every producer's (and the last at least off-chip
 * input's stream, when some of its input comes from memory). Returns the number of
 * producers in the segment; with none, the node reads memory only (*a = *z = 0). */
static int add_input_times(ilp *m, int i, const frame_arg *fa, int *a, int *z)
{
    const cm_hd_node *hn = &m->p->d->hd.nodes[m->s->first + i];
    int inside = 0, last = -1;
    bool memory = hn->n_pred == 0;
    for (int k = 0; k < hn->n_pred; k++) {
        if (hn->pred[k] < m->s->first) {
            memory = true;
        } else {
            inside++;
            last = hn->pred[k] - m->s->first;
        }
    }
    *a = *z = 0;
    if (inside == 0)
        return 0;
    if (inside == 1 && !memory) {
        *a = m->frame_col[FRAME_COLS * last];
        *z = m->frame_col[FRAME_COLS * last + 2];
        return 1;
    }
    *a = m->frame_col[FRAME_COLS * i + 3] = add_free_col(m, 0.0);
    *z = m->frame_col[FRAME_COLS * i + 4] = add_free_col(m, 0.0);
    for (int k = 0; k < hn->n_pred; k++) {
        const int p = hn->pred[k] - m->s->first;
        if (p < 0)
            continue;
        add_at_least(m, *a, m->frame_col[FRAME_COLS * p]);
        add_at_least(m, *z, m->frame_col[FRAME_COLS * p + 2]);
    }
    if (memory)
        add_after(m, i, *z, 0, w_source, fa);
    return inside;
}

/* L >= z + work * cycles_k for each of node i's late records (first_frame.c), z the
 * last input word of the record's source; its records kept for its consumers. */
static double w_late(const ex_config *c, const void *arg)
{
    return *(const double *)arg * c->cycles;
}

static void add_late_rows(ilp *m, int i, int L)
{
    const int count =
        cm_design_late_records(m->p->d, m->s->first, m->s->first + i, m->late, m->recs);
    for (int k = 0; k < count; k++) {
        const int src = m->recs[k].source - m->s->first;
        if (m->recs[k].work > 0 && m->input_last[src])
            add_after(m, i, L, m->input_last[src], w_late, &m->recs[k].work);
    }
    cm_design_late_keep(m->late + (size_t)i * CM_LATE_STRIDE, m->recs, count);
}

/* Whether node i's output leaves the segment (or the network). */
static bool leaves_segment(const ilp *m, int i)
{
    const cm_hd_node *hn = &m->p->d->hd.nodes[m->s->first + i];
    bool leaves = hn->n_succ == 0;
    for (int k = 0; k < hn->n_succ; k++)
        leaves |= hn->succ[k] >= m->s->end;
    return leaves;
}

/* Node i's first output F, start S and last output L from its input's first and last
 * word (off-chip memory alone for a node without producers in the segment), and
 * D >= L - T for every node whose output leaves the segment. */
static void add_frame_rows(ilp *m)
{
    const double big_m = frame_bound(m);
    for (int i = 0; i < m->n; i++) {
        const int F = m->frame_col[FRAME_COLS * i], S = m->frame_col[FRAME_COLS * i + 1],
                  L = m->frame_col[FRAME_COLS * i + 2];
        const frame_arg fa = frame_arg_of(m, i);
        int a, z;
        if (add_input_times(m, i, &fa, &a, &z) == 0) {
            add_after(m, i, F, 0, w_fill_own, NULL);
            add_after(m, i, F, 0, w_fill_source, &fa);
            add_after(m, i, S, 0, w_start_own, NULL);
            add_after(m, i, S, 0, w_start_source, &fa);
            add_after(m, i, L, 0, w_tail_source, &fa);
        } else {
            add_after(m, i, F, a, w_fill_own, NULL);
            add_share_rows(m, i, F, a, z, true, &fa, big_m);
            add_after(m, i, S, a, w_start_own, NULL);
            add_share_rows(m, i, S, a, z, false, &fa, big_m);
            add_after(m, i, L, z, w_tail, NULL);
            const cm_hd_node *hn = &m->p->d->hd.nodes[m->s->first + i];
            for (int k = 0; k < hn->n_pred; k++)
                if (hn->pred[k] >= m->s->first)
                    add_last_row_rows(m, i, hn->pred[k] - m->s->first, &fa, big_m);
        }
        m->input_first[i] = a;
        m->input_last[i] = z;
        add_late_rows(m, i, L);
        add_after(m, i, L, S, w_rest, NULL);
        add_at_least(m, L, F);
        if (leaves_segment(m, i)) {
            int len = put_col(m, 0, m->d_col, 1.0);
            len = put_col(m, len, L, -1.0);
            len = put_col(m, len, m->t_col, 1.0);
            add_row(m, len, GLP_LO, 0.0, 0.0);
        }
    }
}

static void add_graph_rows(ilp *m)
{
    const cm_hdgraph *hd = &m->p->d->hd;
    for (int i = 0; i < m->n; i++) {
        const cm_hd_node *hn = &hd->nodes[m->s->first + i];
        if (m->p->nodes[m->s->first + i].flags)
            for (int k = 0; k < hn->n_succ; k++)
                if (hn->succ[k] < m->s->end)
                    add_edge_rows(m, i, hn->succ[k] - m->s->first);
    }
    if (models_frame(m))
        add_frame_rows(m);
}

/* The objective at most the cutoff: GLPK then prunes every branch that cannot beat
 * it, and reports the program infeasible when none can. */
static void add_cutoff_row(ilp *m, double cutoff_s)
{
    int len = 0;
    m->ind[++len] = m->t_col;
    m->val[len] = m->p->batch;
    if (m->d_col) {
        m->ind[++len] = m->d_col;
        m->val[len] = 1.0;
    }
    add_row(m, len, GLP_UP, 0.0, cutoff_s * m->p->clock_hz);
}

/* Whether the program's bound has reached what the search needs of it (ex_goal): its
 * incumbent, the program's objective, is its design's cost (with the first frame the
 * program models it exactly). */
static bool reached_goal(const ilp_watch *w, glp_tree *t)
{
    glp_prob *lp = glp_ios_get_prob(t);
    const double own = glp_mip_status(lp) == GLP_FEAS
                           ? glp_mip_obj_val(lp) / w->p->clock_hz
                           : INFINITY;
    const double goal = ex_goal_bound(w->goal, own);
    return goal > 0 && w->bound >= goal * w->p->clock_hz;
}

/* Milliseconds GLPK may run until `deadline` (at least 1). */
static int ms_until(double deadline)
{
    const double left_ms = (deadline - cm_seconds_now()) * 1e3;
    return left_ms < 1 ? 1 : left_ms > INT_MAX ? INT_MAX : (int)left_ms;
}

double ex_pump_seconds(double took_s, double left_s)
{
    const double pump_s = left_s - took_s;
    return pump_s >= took_s * EX_PUMP_ROOTS ? pump_s : 0.0;
}

/* Whether GLPK's feasibility pump runs, decided once the root's linear program is
 * solved: the pump is GLPK's next step after this callback, and it reads fp_heur and
 * tm_lim from the parameters glp_intopt was given (the next callback restores tm_lim).
 * GLPK counts tm_lim from when it made its tree, after its presolver and first
 * relaxation, so with the program's own tm_lim the pump ran past the deadline. */
static void decide_pump(ilp_watch *w)
{
    const double now = cm_seconds_now();
    const double pump_s = ex_pump_seconds(now - w->start, w->deadline - now);
    w->pump = pump_s > 0 ? PUMP_RUNNING : PUMP_SETTLED;
    if (w->pump == PUMP_RUNNING) {
        w->tm_lim = w->parm->tm_lim;
        w->parm->tm_lim = ms_until(now + pump_s);
    }
    w->parm->fp_heur = w->pump == PUMP_RUNNING ? GLP_ON : GLP_OFF;
}

/* Stops the program at the deadline, when the nodes it has made (every node GLPK
 * created, pruned ones included) would spend the search's node budget, when its bound
 * has reached what the search needs of it (its goal), or when its bound has reached
 * `enough` while it has no design of its own: GLPK stops at its gap only once it has
 * one, and otherwise went on through every node below its cutoff (MobileNetV3-Small's
 * throughput, fpgaConvNet, U250: 30 s to end at 0.39%, where the interval's choice was
 * within 1% at 2.5 s). A cutoff at that bound instead left the
 * program no designs within the gap to start from, and it found worse ones
 * (MobileNetV2's latency, FINN, ZCU102: 4.99 ms at 30 s instead of 3.92). */
static void watch(glp_tree *t, void *info)
{
    ilp_watch *w = info;
    if (w->pump == PUMP_UNDECIDED && glp_ios_reason(t) == GLP_IHEUR) {
        decide_pump(w);
        return;
    }
    if (w->pump == PUMP_RUNNING) {
        w->parm->tm_lim = w->tm_lim;
        w->pump = PUMP_SETTLED;
    }
    int best = glp_ios_best_node(t);
    if (best) {
        w->bound = glp_ios_node_bound(t, best);
        w->have_bound = true;
    }
    glp_ios_tree_size(t, NULL, NULL, &w->nodes);
    if (w->goal && w->have_bound && reached_goal(w, t)) {
        w->at_goal = true;
        glp_ios_terminate(t);
    } else if (w->enough > 0 && w->have_bound && w->bound >= w->enough &&
               glp_mip_status(glp_ios_get_prob(t)) != GLP_FEAS) {
        glp_ios_terminate(t);
    } else if (w->p->bb_nodes + w->nodes >= w->p->bb_budget) {
        w->p->budget_hit = true;
        glp_ios_terminate(t);
    } else if (cm_seconds_now() >= w->deadline) {
        glp_ios_terminate(t);
    }
}

double ex_goal_bound(const ex_goal *g, double own)
{
    if (!(g->gap > 0))
        return 0.0;
    const double total = fmin(g->total_ub, own + g->rest_ub);
    if (isinf(total))
        return 0.0;
    const double goal = total / (1 + g->gap) * (1 + 1e-9) - g->rest_lb;
    return goal > 0 ? goal : 0.0;
}

bool ex_out_of_work(const ex_problem *p)
{
    return p->bb_nodes >= p->bb_budget || cm_seconds_now() >= p->deadline;
}

static void read_choice(const ilp *m, int *choice)
{
    for (int i = 0; i < m->n; i++) {
        double best = -1.0;
        for (int k = m->off[i]; k < m->off[i + 1]; k++)
            if (m->col[k] && glp_mip_col_val(m->lp, m->col[k]) > best) {
                best = glp_mip_col_val(m->lp, m->col[k]);
                choice[i] = k - m->off[i];
            }
    }
}

/* The relative gap at which a program may stop: GLPK stops when its bound is within
 * that share of its incumbent, so the segment's bound is at least (1 - g) times its
 * cost, and a path of such segments within the gap the user asked for, g/(1 + g)
 * (the search adds the segments' bounds; the margin is for rounding). */
static double program_gap(const ex_problem *p)
{
    return 0.999 * p->gap / (1.0 + p->gap);
}

/* Reads GLPK's answer into sol; the design re-evaluates the chosen foldings. */
static void no_answer(ex_sol *sol, double cutoff_s)
{
    sol->ub = INFINITY;
    sol->lb = cutoff_s;
    sol->cut_off = !isinf(cutoff_s);
}

/* How far a program's optimum may stray from its design's evaluation, relatively:
 * GLPK accepts a binary within 1e-5 of its integer (tol_int), which moves a term of
 * cycles by as much. GoogLeNet's optimum for fpgaConvNet on a U250 (throughput, gap 0)
 * came out 9e-9 below its design's evaluation, which a bound of 1e-9 took for a fault
 * of the model (exit 4). */
#define EX_AGREE 1e-5

static cm_status read_answer(ilp *m, int ret, const ilp_watch *w, double cutoff_s, ex_sol *sol,
                             cm_error *err)
{
    int status = glp_mip_status(m->lp);
    double floor_s = ex_cost_floor(m->p, m->s, m->t_floor) / m->p->clock_hz;
    if (ret != 0 && ret != GLP_ETMLIM && ret != GLP_ESTOP && ret != GLP_ENOPFS &&
        ret != GLP_EMIPGAP)
        return cm_error_set(err, CM_EINTERNAL, "GLPK failed on nodes %d to %d (code %d)",
                            m->s->first, m->s->end - 1, ret);
    if (ret == GLP_ENOPFS || status == GLP_NOFEAS ||
        (ret == 0 && status != GLP_OPT && status != GLP_FEAS)) {
        no_answer(sol, cutoff_s);
        return CM_OK;
    }
    sol->ub = INFINITY;
    if (status == GLP_OPT || status == GLP_FEAS) {
        read_choice(m, sol->choice);
        sol->ub = ex_evaluate_choice(m->p, m->s, sol->choice);
    }
    double obj_s = status == GLP_OPT || status == GLP_FEAS ? glp_mip_obj_val(m->lp) / m->p->clock_hz
                                                           : INFINITY;
    if (status == GLP_OPT && ret == 0) {
        /* With the first frame the program's optimum is the design's cost; without it,
         * a bound from below. */
        const bool exact = !sol->loose;
        if (!(obj_s <= sol->ub * (1 + EX_AGREE)) || (exact && !(obj_s >= sol->ub * (1 - EX_AGREE))))
            return cm_error_set(err, CM_EINTERNAL,
                                "the integer program for nodes %d to %d predicts %.12g s, the "
                                "design evaluates %.12g s",
                                m->s->first, m->s->end - 1, obj_s, sol->ub);
        sol->lb = exact ? sol->ub : fmin(obj_s, sol->ub);
        return CM_OK;
    }
    /* Stopped by the deadline: the best open node bounds what remains unexplored (its
     * last value the callback saw); stopped by the gap, GLPK's own bound is within it. */
    double bound = w->have_bound ? fmin(w->bound / m->p->clock_hz, obj_s) : floor_s;
    if (ret == GLP_EMIPGAP)
        bound = fmax(bound, obj_s * (1.0 - program_gap(m->p)));
    sol->lb = fmin(fmin(fmax(bound, floor_s), sol->ub), cutoff_s);
    return CM_OK;
}

/* Every column and row of the program but the cutoff. */
static void make_program(ilp *m)
{
    add_columns(m);
    add_choice_and_time_rows(m);
    add_resource_rows(m);
    add_bandwidth_row(m);
    add_graph_rows(m);
}

/* The time by which GLPK must stop working on the program made in m: the search's
 * deadline less EX_SETUP_S_PER_ROW a row, since GLPK's set-up of a program and its
 * wind-down after its time limit do not look at the clock (DenseNet-121's one partition
 * for FINN on a U250, 23,719 rows: 1.7 s past its limit). */
static double program_deadline(const ilp *m)
{
    return m->p->deadline - EX_SETUP_S_PER_ROW * glp_get_num_rows(m->lp);
}

/* Makes the program's rows and runs GLPK on it, stopping at `enough` (cycles; 0: never)
 * and at `goal` (NULL: never), ilp_watch, and by program_deadline; *ret is glp_intopt's
 * answer, GLP_ETMLIM without an answer when that has passed before it begins. */
static void run_program(ilp *m, double cutoff_s, double enough, const ex_goal *goal,
                        ilp_watch *w, int *ret)
{
    ex_problem *p = m->p;
    make_program(m);
    if (!isinf(cutoff_s))
        add_cutoff_row(m, cutoff_s);
    glp_iocp parm;
    *w = (ilp_watch){.deadline = program_deadline(m), .p = p, .enough = enough, .goal = goal,
                     .parm = &parm};
    if (cm_seconds_now() >= w->deadline) {
        *ret = GLP_ETMLIM;
        return;
    }
    glp_init_iocp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_ON;
    parm.tm_lim = ms_until(w->deadline);
    parm.cb_func = watch;
    parm.cb_info = w;
    /* Best projection finds good incumbents early on these knapsack-like programs
     * (MobileNetV1 on the U250: 4 s instead of 24 s with the default). */
    parm.bt_tech = GLP_BT_BPH;
    /* With the first frame, branching on the most fractional choice: with GLPK's
     * default (Driebeck and Tomlin's) good designs came late (MobileNetV2's latency,
     * FINN, U250: 11.5% at 30 s, 1.95% with it). On issue 17's matrix, fpgaConvNet and
     * FINN: latency's geometric mean gap 20.1% -> 14.5% (18 cells better, 5 worse, 10
     * alike), throughput within 1% on 28 of 33 cells instead of 26, none lost.
     * And the open node of best bound next: under best projection the bound stayed at
     * the root's while the search dived (SqueezeNet, FINN, U250: 147,276 cycles after
     * 18,000 nodes, 1.05%); GLPK dives from each node it picks, and finds designs as
     * good or better on all but one of issue 17's latency cells (EfficientNet-B0, FINN,
     * U250, whose nodes are slow: none within 30 s). */
    if (models_frame(m)) {
        parm.br_tech = GLP_BR_MFV;
        parm.bt_tech = GLP_BT_BLB;
    }
    parm.mip_gap = program_gap(p);
    /* GLPK's feasibility pump, where the time allows it (decide_pump). A level's program
     * only asks whether some choice fits, and the pump finds one where branching took
     * seconds to (EfficientNet-B0's 394 nodes for FINN on a ZCU102: 1.2 to 1.5 s a level
     * that fits instead of 3.4 to 5.7 s; the search then reached its program with the
     * first frame, 534% -> 23% at 30 s). With the first frame it finds designs the
     * branching does not reach in time: GoogLeNet's latency for FINN on a U250, 12.3% ->
     * 5.3% at 30 s. */
    w->start = cm_seconds_now();
    p->ilps++;
    /* GLPK prints its advanced basis's progress even at GLP_MSG_OFF (onto the JSON on
     * stdout); the caller's setting is restored. */
    const int term = glp_term_out(GLP_OFF);
    *ret = glp_intopt(m->lp, &parm);
    glp_term_out(term);
    w->parm = NULL; /* the parameters end with this function; the watch goes back */
    p->bb_nodes += w->nodes > 0 ? w->nodes : 1; /* a program the presolver settles: 1 */
}

/* ---- the interval alone, by levels ---- */

typedef enum { LEVEL_NONE, LEVEL_FITS, LEVEL_UNKNOWN } level_answer;

/* Whether some choice of the configurations in `sub` satisfies every row but the
 * first frame's: a program without an objective, so GLPK stops at its first integer
 * solution (written to choice). */
static cm_status level_fits(ex_problem *p, const ex_segment *s, const uint8_t *sub, int *choice,
                            level_answer *answer, cm_error *err)
{
    ilp m;
    cm_status st = ilp_alloc(&m, p, s, err);
    *answer = LEVEL_NONE;
    m.feasible_only = true;
    if (st == CM_OK && select_configs(&m, sub)) {
        ilp_watch w;
        int ret;
        run_program(&m, INFINITY, 0.0, NULL, &w, &ret);
        const int status = glp_mip_status(m.lp);
        if (ret != 0 && ret != GLP_ETMLIM && ret != GLP_ESTOP && ret != GLP_ENOPFS &&
            ret != GLP_EMIPGAP)
            st = cm_error_set(err, CM_EINTERNAL, "GLPK failed on nodes %d to %d (code %d)",
                              s->first, s->end - 1, ret);
        else if (ret != GLP_ENOPFS && (status == GLP_OPT || status == GLP_FEAS)) {
            read_choice(&m, choice);
            *answer = LEVEL_FITS;
        } else if (ret != GLP_ENOPFS && status != GLP_NOFEAS && ret != 0) {
            *answer = LEVEL_UNKNOWN;
        }
    }
    ilp_free(&m);
    return st;
}

/* The index in lev of the choice's interval (its slowest node's cycles), -1 when that
 * is not among the levels (above the cutoff). */
static int level_of_choice(const ilp *m, const int *choice, const double *lev, int n_lev)
{
    double t = 0.0;
    for (int i = 0; i < m->n; i++)
        t = fmax(t, m->p->nodes[m->s->first + i].cfg[choice[i]].cycles);
    const double *at = bsearch(&t, lev, (size_t)n_lev, sizeof *lev, ex_cmp_double);
    return at ? (int)(at - lev) : -1;
}

/* Takes up an earlier search of the same program set's levels (`hint`): the levels
 * below its bound are known not to fit, and its choice fits at its own interval, so the
 * search goes on between them. A branching segment is searched once without its first
 * frame and again with it: the second search used to begin from the bottom, and on
 * EfficientNet-B0's one partition for FINN on a ZCU102 (394 nodes, 1.5 to 6 s a level)
 * spent the time left before its program with the first frame could begin. */
static void resume_levels(const ilp *m, const ex_sol *hint, const double *lev, int n_lev,
                          int *choice, int *lo, int *hi)
{
    while (*lo < n_lev && lev[*lo] < hint->t_lb)
        (*lo)++;
    const int at = level_of_choice(m, hint->choice, lev, n_lev);
    if (at < 0)
        return; /* above the cutoff: no use to the caller */
    *hi = at;
    *lo = *lo < *hi ? *lo : *hi;
    memcpy(choice, hint->choice, (size_t)m->n * sizeof *choice);
}

/* The interval of the segment's best choice, without its first frame (the bound a
 * branching segment is first solved for, sol->loose): the least cycle count v among
 * the kept configurations for which some choice no slower than v fits. Fitting only
 * grows with v, so it is found by galloping up from the resource floor (ex_time_floor)
 * and bisecting, each step a program that only asks whether a choice fits: these end
 * at the first choice found or prove at the root that none exists, where minimising T
 * directly left GLPK to close a gap between T and its relaxation node by node (ResNet-18's
 * second stage on a U250: 15,700 nodes). */
static cm_status solve_by_levels(ex_problem *p, const ex_segment *s, const uint8_t *allowed,
                                 const ex_sol *hint, double cutoff_s, ex_sol *sol,
                                 double *t_least, cm_error *err)
{
    ilp m;
    cm_status st = ilp_alloc(&m, p, s, err);
    if (st != CM_OK || !select_configs(&m, allowed)) {
        sol->lb = sol->ub = INFINITY;
        ilp_free(&m);
        return st;
    }
    const int total = m.off[m.n], n = m.n;
    double *lev = malloc(((size_t)total + 1) * sizeof *lev);
    uint8_t *sub = malloc((size_t)total + 1);
    int *choice = malloc(((size_t)n + 1) * sizeof *choice);
    int n_lev = 0;
    for (int i = 0; lev && i < n; i++)
        for (int k = m.off[i]; k < m.off[i + 1]; k++)
            if (m.col[k] && cfg_of(&m, k, i)->cycles >= m.t_floor &&
                p->batch * cfg_of(&m, k, i)->cycles / p->clock_hz < cutoff_s)
                lev[n_lev++] = cfg_of(&m, k, i)->cycles;
    if (!lev || !sub || !choice) {
        st = cm_error_nomem(err);
        n_lev = 0;
    }
    n_lev = ex_sort_distinct(lev, n_lev);
    /* levels below lo do not fit; hi is the level of the best choice found (n_lev: none) */
    int lo = 0, hi = n_lev, step = 1;
    if (hint && st == CM_OK)
        resume_levels(&m, hint, lev, n_lev, sol->choice, &lo, &hi);
    bool stopped = false;
    while (st == CM_OK && lo < hi && !ex_out_of_work(p)) {
        const int probe = hi == n_lev ? (lo + step - 1 < n_lev ? lo + step - 1 : n_lev - 1)
                                      : lo + (hi - lo) / 2;
        for (int i = 0; i < n; i++)
            for (int k = m.off[i]; k < m.off[i + 1]; k++)
                sub[k] = m.col[k] && cfg_of(&m, k, i)->cycles <= lev[probe];
        level_answer answer;
        st = level_fits(p, s, sub, choice, &answer, err);
        if (st != CM_OK || answer == LEVEL_UNKNOWN) {
            stopped = answer == LEVEL_UNKNOWN;
            break;
        }
        if (answer == LEVEL_NONE) {
            lo = probe + 1;
            step *= 2;
            continue;
        }
        const int at = level_of_choice(&m, choice, lev, n_lev);
        hi = at >= 0 ? at : probe;
        memcpy(sol->choice, choice, (size_t)n * sizeof *choice);
    }
    stopped |= st == CM_OK && lo < hi;
    *t_least = lo < n_lev ? lev[lo] : m.t_floor;
    if (st == CM_OK) {
        sol->ub = hi < n_lev ? ex_evaluate_choice(p, s, sol->choice) : INFINITY;
        if (!stopped && hi == n_lev) {
            if (isinf(cutoff_s))
                sol->lb = INFINITY;
            else
                no_answer(sol, cutoff_s);
        } else {
            const double floor_s = ex_cost_floor(p, s, *t_least) / p->clock_hz;
            sol->lb = fmin(fmin(floor_s, sol->ub), cutoff_s);
            if (!stopped && !(floor_s <= sol->ub * (1 + 1e-9)))
                st = cm_error_set(err, CM_EINTERNAL,
                                  "the interval of nodes %d to %d is at least %.12g s, the "
                                  "design evaluates %.12g s",
                                  s->first, s->end - 1, sol->lb, sol->ub);
        }
    }
    free(lev);
    free(sub);
    free(choice);
    ilp_free(&m);
    return st;
}

/* The segment with its first frame. The interval alone is solved first
 * (solve_by_levels): its least value is a bound on T, and its choice a design whose
 * cost the program must beat, so when it cannot that choice is the optimum. */
static cm_status solve_with_frame(ex_problem *p, const ex_segment *s, const uint8_t *allowed,
                                  bool again, double cutoff_s, ex_sol *sol, cm_error *err)
{
    const int n = s->end - s->first;
    ex_sol first = {.choice = malloc(((size_t)n + 1) * sizeof *first.choice)};
    if (!first.choice)
        return cm_error_nomem(err);
    double t_least = 0.0;
    cm_status st =
        solve_by_levels(p, s, allowed, again ? sol : NULL, cutoff_s, &first, &t_least, err);
    sol->t_lb = t_least;
    if (st != CM_OK || isinf(first.lb) || first.cut_off) {
        sol->lb = first.lb;
        sol->ub = first.ub;
        sol->cut_off = first.cut_off;
        free(first.choice);
        return st;
    }
    if (first.ub * (1.0 - program_gap(p)) <= first.lb) {
        /* the interval's choice is within the gap asked for of the bound on T alone */
        memcpy(sol->choice, first.choice, (size_t)n * sizeof *first.choice);
        sol->lb = first.lb;
        sol->ub = first.ub;
        free(first.choice);
        return CM_OK;
    }
    const double beat = isinf(first.ub) ? cutoff_s : fmin(cutoff_s, first.ub * (1 - 1e-9));
    ilp m;
    st = ilp_alloc(&m, p, s, err);
    m.frame = true;
    if (st == CM_OK && !select_configs(&m, allowed))
        st = cm_error_set(err, CM_EINTERNAL, "nodes %d to %d lost their choices", s->first,
                          s->end - 1);
    if (st == CM_OK) {
        m.t_lb = fmax(m.t_lb, t_least);
        m.t_floor = fmax(m.t_floor, t_least);
        /* (at a gap of 0 the cutoff row already ends the program at that bound, and
         * proves the choice optimal) */
        const double enough = !isinf(first.ub) && program_gap(p) > 0
                                  ? first.ub * (1 - program_gap(p)) * p->clock_hz
                                  : 0.0;
        ilp_watch w;
        int ret;
        run_program(&m, beat, enough, p->goal.gap > 0 ? &p->goal : NULL, &w, &ret);
        st = read_answer(&m, ret, &w, beat, sol, err);
        sol->at_goal = w.at_goal && ret != 0;
    }
    if (st == CM_OK && !(sol->ub < first.ub)) {
        /* nothing better than the interval's choice: it stands, and when the program
         * showed that nothing beats it, it is the optimum */
        const bool proven = sol->cut_off && beat < cutoff_s;
        memcpy(sol->choice, first.choice, (size_t)n * sizeof *first.choice);
        sol->ub = first.ub;
        sol->lb = proven ? first.ub : fmin(fmax(sol->lb, first.lb), first.ub);
        sol->cut_off = false;
    }
    free(first.choice);
    ilp_free(&m);
    return st;
}

/* The segment's cost in the linear relaxation of its program with the first frame, T at
 * least t_least (seconds; 0 when the relaxation was not solved by the deadline). */
static cm_status frame_relaxation(ex_problem *p, const ex_segment *s, const uint8_t *allowed,
                                  double t_least, double *lb_s, cm_error *err)
{
    ilp m;
    cm_status st = ilp_alloc(&m, p, s, err);
    *lb_s = 0.0;
    m.frame = true;
    if (st == CM_OK && select_configs(&m, allowed)) {
        m.t_lb = fmax(m.t_lb, t_least);
        make_program(&m);
    }
    const double deadline = st == CM_OK ? program_deadline(&m) : 0.0;
    if (st == CM_OK && glp_get_num_rows(m.lp) > 0 && cm_seconds_now() < deadline) {
        glp_smcp parm;
        glp_init_smcp(&parm);
        parm.msg_lev = GLP_MSG_OFF;
        parm.presolve = GLP_ON;
        parm.tm_lim = (int)fmax(1.0, EX_RELAX_TIME_SHARE * ms_until(deadline));
        const int term = glp_term_out(GLP_OFF);
        const int ret = glp_simplex(m.lp, &parm);
        glp_term_out(term);
        if (ret == 0 && glp_get_status(m.lp) == GLP_OPT) /* GLPK's tolerance, relative */
            *lb_s = glp_get_obj_val(m.lp) * (1 - 1e-7) / p->clock_hz;
    }
    ilp_free(&m);
    return st;
}

cm_status ex_solve_segment(ex_problem *p, const ex_segment *s, const uint8_t *allowed,
                           bool frame, bool again, double cutoff_s, ex_sol *sol,
                           cm_error *err)
{
    sol->cut_off = false;
    sol->at_goal = false;
    sol->loose = p->has_depth && !frame;
    if (frame)
        return solve_with_frame(p, s, allowed, again, cutoff_s, sol, err);
    double t_least = 0.0;
    cm_status st = solve_by_levels(p, s, allowed, NULL, cutoff_s, sol, &t_least, err);
    sol->t_lb = t_least;
    /* The interval alone leaves out the first frame, most of a FINN partition's latency;
     * the relaxation of the program with it is one linear program (ResNet-50's latency,
     * FINN, ZCU102: 19.6% at 30 s without it, 5.5% with it). It is solved where the
     * first frame is a large share of the interval's choice (most of a batch of one),
     * not where the batch's intervals dwarf it: there its time was lost (Inception-v3's
     * throughput, fpgaConvNet, U250: 0.895% in 27.7 s, 1.76% at 30 s with it). */
    if (st == CM_OK && sol->loose && !sol->cut_off && !isinf(sol->lb) &&
        sol->ub - sol->lb >= EX_RELAX_SHARE * sol->ub) {
        double lb;
        st = frame_relaxation(p, s, allowed, t_least, &lb, err);
        sol->lb = fmin(fmax(sol->lb, lb), sol->ub);
    }
    return st;
}

double ex_evaluate_choice(ex_problem *p, const ex_segment *s, const int *choice)
{
    cm_design *d = p->d;
    ex_segment again;
    ex_segment_init(p, s->first, s->end, &again);
    for (int i = s->first; i < s->end; i++) {
        const ex_config *c = &p->nodes[i].cfg[choice[i - s->first]];
        cm_design_set_folding(d, i, c->in, c->out, c->kernel);
    }
    int part = s->first > 0 ? 1 : 0;
    if (!cm_design_part_fits(d, part))
        return INFINITY;
    for (int i = s->first; i < s->end; i++) {
        const cm_hd_node *hn = &d->hd.nodes[i];
        if (cm_design_node_bad(d, i))
            return INFINITY;
        for (int k = 0; k < hn->n_succ; k++)
            if (hn->succ[k] < s->end && cm_design_edge_bad(d, i, hn->succ[k]))
                return INFINITY;
    }
    /* timed afresh: which program a design copy evaluated before this one depends on
     * the thread that ran it, and the figures must not (to the last bit) */
    cm_design_part_retime(d, part);
    cm_partition_info info;
    cm_design_partition_info(d, part, &info);
    return info.time_s;
}
