/* The binary integer programs of chapter 4, built for and solved by GLPK.
 *
 * Phase 1 (eqs. 4.28-4.33): one binary x_ik per kept configuration, one per layer
 * chosen (4.29), L^c_i <= S and L^w_i <= S (4.30), the DSP, BRAM18 and URAM budgets
 * (4.31, 4.32, memory split by kind), minimise S; the bip optimiser reaches the same
 * optimum by bisection over S with one program per probe, which GLPK solves much
 * faster. Phase 2 keeps only configurations whose latencies are within the phase-1 S
 * and minimises the resources, each divided by the board's total, so that
 * non-critical layers lose their surplus parallelism (section 4.4.3). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glpk.h>

#include "nn2fpga/n2_internal.h"

double n2_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The coefficient triplets of a program, 1-based as GLPK wants them. */
typedef struct triplets {
    int *row, *col;
    double *val;
    int n, cap;
} triplets;

static bool triplets_init(triplets *t, int cap)
{
    t->n = 0;
    t->cap = cap;
    t->row = malloc(((size_t)cap + 1) * sizeof *t->row);
    t->col = malloc(((size_t)cap + 1) * sizeof *t->col);
    t->val = malloc(((size_t)cap + 1) * sizeof *t->val);
    return t->row && t->col && t->val;
}

static void triplets_free(triplets *t)
{
    free(t->row);
    free(t->col);
    free(t->val);
}

static void put(triplets *t, int row, int col, double val)
{
    if (val == 0.0 || t->n >= t->cap)
        return;
    t->n++;
    t->row[t->n] = row;
    t->col[t->n] = col;
    t->val[t->n] = val;
}

/* A program under construction: cols[j] is the configuration of column j + 1. */
typedef struct program {
    glp_prob *lp;
    int *cols;
    int n_cols;
    triplets m;
} program;

static void program_free(program *p)
{
    if (p->lp)
        glp_delete_prob(p->lp);
    free(p->cols);
    triplets_free(&p->m);
    memset(p, 0, sizeof *p);
}

/* Columns for every configuration within `period` (all when period <= 0). */
static cm_status program_init(program *p, const n2_space *sp, int64_t period, int extra_rows,
                              int extra_nnz, cm_error *err)
{
    memset(p, 0, sizeof *p);
    p->cols = malloc(((size_t)sp->n_cfg + 1) * sizeof *p->cols);
    int nnz = sp->n_cfg * (4 + extra_rows) + 2 * sp->n_layers + 2 * extra_nnz;
    if (!p->cols || !triplets_init(&p->m, nnz) || !(p->lp = glp_create_prob())) {
        program_free(p);
        return cm_error_nomem(err);
    }
    for (int k = 0; k < sp->n_cfg; k++)
        if (period <= 0 || n2_config_latency(&sp->cfg[k]) <= period)
            p->cols[p->n_cols++] = k;
    if (p->n_cols > 0) {
        glp_add_cols(p->lp, p->n_cols);
        for (int j = 1; j <= p->n_cols; j++)
            glp_set_col_kind(p->lp, j, GLP_BV);
    }
    return CM_OK;
}

/* Rows 4.29 (one configuration per layer) and the resource rows; returns the index of
 * the next free row. */
static int add_choice_and_budget(program *p, const n2_space *sp, const n2_budget *b,
                                 int *layer_of_col)
{
    glp_prob *lp = p->lp;
    int first = glp_add_rows(lp, sp->n_layers + 3);
    for (int t = 0; t < sp->n_layers; t++)
        glp_set_row_bnds(lp, first + t, GLP_FX, 1.0, 1.0);
    int r = first + sp->n_layers;
    glp_set_row_bnds(lp, r, GLP_UP, 0.0, (double)b->dsp);
    glp_set_row_bnds(lp, r + 1, GLP_UP, 0.0, (double)b->bram);
    glp_set_row_bnds(lp, r + 2, GLP_UP, 0.0, (double)b->uram);
    for (int j = 1; j <= p->n_cols; j++) {
        const n2_config *c = &sp->cfg[p->cols[j - 1]];
        put(&p->m, first + layer_of_col[j - 1], j, 1.0);
        put(&p->m, r, j, (double)c->dsp);
        put(&p->m, r + 1, j, (double)c->bram);
        put(&p->m, r + 2, j, (double)c->uram_banks);
    }
    return r + 3;
}

static int *layers_of_columns(const program *p, const n2_space *sp)
{
    int *layer = malloc(((size_t)p->n_cols + 1) * sizeof *layer);
    if (!layer)
        return NULL;
    int t = 0;
    for (int j = 0; j < p->n_cols; j++) {
        while (p->cols[j] >= sp->first[t + 1])
            t++;
        layer[j] = t;
    }
    return layer;
}

/* Each program stops after N2_NODE_BUDGET branch-and-bound nodes, and the bisection's
 * probes after N2_BISECT_NODES together, alike on any machine (the thesis' models take
 * at most 145 a program; MobileNetV3-Small makes about 50 a second); the deadline is the
 * user's cap (or a safety cap far above what the budget takes). GLPK gives its root LP
 * and its branch and bound tm_lim each (and its presolver reads no clock), so tm_lim
 * alone lets a program run twice the time left: the callback stops the search at the
 * deadline. Nor does GLPK look at the clock while it initialises pseudo-costs for a
 * branching (a copy of the program and 30 dual simplex iterations per fractional column:
 * 1.5 to 3.6 s for MobileNetV3-Small's exact phase 1), so after half the node budget, in
 * the second half of a program's time, or when its longest such branching would not end
 * by the deadline, the callback branches on the most fractional column instead. */
#define N2_NODE_BUDGET 5000
#define N2_BISECT_NODES 5000

typedef struct n2_watch {
    double deadline, half;
    double branch_started, longest_branch; /* GLPK's own branchings */
    int nodes, budget;                     /* nodes the program made, and may make */
} n2_watch;

static void branch_most_fractional(glp_tree *t)
{
    glp_prob *lp = glp_ios_get_prob(t);
    int best = 0;
    double best_gap = 1.0;
    for (int j = 1; j <= glp_get_num_cols(lp); j++) {
        if (!glp_ios_can_branch(t, j))
            continue;
        double x = glp_get_col_prim(lp, j), gap = fabs(x - floor(x) - 0.5);
        if (gap < best_gap) {
            best_gap = gap;
            best = j;
        }
    }
    if (best > 0)
        glp_ios_branch_upon(t, best, GLP_NO_BRNCH);
}

static void watch(glp_tree *t, void *info)
{
    n2_watch *w = info;
    double now = n2_now();
    if (w->branch_started > 0.0) {
        w->longest_branch = fmax(w->longest_branch, now - w->branch_started);
        w->branch_started = 0.0;
    }
    glp_ios_tree_size(t, NULL, NULL, &w->nodes);
    if (w->nodes >= w->budget || now >= w->deadline) {
        glp_ios_terminate(t);
        return;
    }
    if (glp_ios_reason(t) != GLP_IBRANCH)
        return;
    if (2 * w->nodes >= w->budget || now >= w->half ||
        now + 2.0 * w->longest_branch >= w->deadline)
        branch_most_fractional(t);
    else
        w->branch_started = now;
}

/* Solves within the time left before o->deadline; *optimal says the solver proved it,
 * *feasible that it found a solution, *stopped that the deadline ended it first (with
 * no time left the solver is not called). */
static cm_status solve(program *p, const n2_solve_options *o, bool *feasible, bool *optimal,
                       bool *stopped, cm_error *err)
{
    double left_ms = (o->deadline - n2_now()) * 1e3;
    int budget = N2_NODE_BUDGET;
    if (o->nodes_left && *o->nodes_left < budget)
        budget = *o->nodes_left;
    *feasible = *optimal = false;
    *stopped = !(left_ms >= 1.0) || budget <= 0;
    if (*stopped)
        return CM_OK;
    glp_load_matrix(p->lp, p->m.n, p->m.row, p->m.col, p->m.val);
    glp_iocp parm;
    glp_init_iocp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_ON;
    /* Pseudo-cost branching: with the default rule the single-program phase 1 of
     * ResNet20 on the KV260 runs for minutes, with it a tenth of a second. */
    parm.br_tech = GLP_BR_PCH;
    parm.tm_lim = (int)fmin(left_ms, (double)INT_MAX); /* also the root LP's smcp.tm_lim */
    n2_watch w = {.deadline = o->deadline, .half = n2_now() + left_ms * 0.5e-3,
                  .budget = budget};
    parm.cb_func = watch;
    parm.cb_info = &w;
    /* GLPK's cut generators print even at GLP_MSG_OFF; restore the caller's setting. */
    int term = glp_term_out(GLP_OFF);
    int rc = glp_intopt(p->lp, &parm);
    glp_term_out(term);
    if (o->nodes_left) /* a program the presolver settles counts 1 */
        *o->nodes_left -= w.nodes > 0 ? w.nodes : 1;
    int status = glp_mip_status(p->lp);
    *stopped = rc == GLP_ETMLIM || rc == GLP_ESTOP;
    *feasible = status == GLP_OPT || status == GLP_FEAS;
    *optimal = status == GLP_OPT && !*stopped;
    if (rc == 0 || rc == GLP_ENOPFS || *stopped || rc == GLP_EMIPGAP)
        return CM_OK;
    return cm_error_set(err, CM_EINTERNAL, "GLPK failed on the nn2fpga program (code %d)", rc);
}

static void read_choice(const program *p, const n2_space *sp, const int *layer_of_col, int *choice)
{
    for (int j = 1; j <= p->n_cols; j++)
        if (glp_mip_col_val(p->lp, j) > 0.5)
            choice[layer_of_col[j - 1]] = p->cols[j - 1];
    (void)sp;
}

static void record(cm_nn2fpga_phase *ph, const program *p, double t0, bool optimal, bool stopped)
{
    ph->variables = glp_get_num_cols(p->lp);
    ph->constraints = glp_get_num_rows(p->lp);
    ph->programs++;
    ph->time_s += n2_now() - t0;
    ph->optimal = ph->programs == 1 ? optimal : ph->optimal && optimal;
    ph->stopped_early = ph->stopped_early || stopped;
    ph->objective = glp_mip_obj_val(p->lp);
}

/* Eqs. 4.24-4.25 with the S column last. */
static void add_period_rows(program *p, const n2_space *sp, const int *layer_of_col, int s_col)
{
    int first = glp_add_rows(p->lp, 2 * sp->n_layers);
    for (int i = 0; i < 2 * sp->n_layers; i++)
        glp_set_row_bnds(p->lp, first + i, GLP_UP, 0.0, 0.0);
    for (int j = 1; j <= p->n_cols; j++) {
        const n2_config *c = &sp->cfg[p->cols[j - 1]];
        put(&p->m, first + 2 * layer_of_col[j - 1], j, (double)c->lc);
        put(&p->m, first + 2 * layer_of_col[j - 1] + 1, j, (double)c->lw);
    }
    for (int t = 0; t < sp->n_layers; t++) {
        put(&p->m, first + 2 * t, s_col, -1.0);
        put(&p->m, first + 2 * t + 1, s_col, -1.0);
    }
}

/* S is at least every layer's fastest configuration and the ports' cycles a frame: a
 * free bound for the solver. */
static double period_lower_bound(const n2_space *sp)
{
    int64_t lb = sp->period_floor;
    for (int t = 0; t < sp->n_layers; t++) {
        int64_t best = INT64_MAX;
        for (int k = sp->first[t]; k < sp->first[t + 1]; k++)
            if (n2_config_latency(&sp->cfg[k]) < best)
                best = n2_config_latency(&sp->cfg[k]);
        if (best > lb)
            lb = best;
    }
    return (double)lb;
}

/* Where each candidate period sits: the index of the first candidate >= v. */
static int candidate_index(const int64_t *cand, int n, int64_t v)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (cand[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The period staircase. S = v_0 + sum_j (v_j - v_{j-1}) w_j with w_1 >= w_2 >= ...,
 * and a configuration of latency v_j may only be chosen when w_j = 1. This is valid
 * (S is one of the candidate latencies at the optimum) and makes the linear
 * relaxation far tighter than eqs. 4.24-4.25 alone, which GLPK needs: with only those
 * rows its branch and bound takes minutes where the thesis' CBC took a second. */
static void add_staircase(program *p, const n2_space *sp, const int64_t *cand, int m, int s_col)
{
    if (m < 2)
        return;
    int w0 = glp_add_cols(p->lp, m - 1); /* w_j for j = 1..m-1 at columns w0 + j - 1 */
    for (int j = 1; j < m; j++)
        glp_set_col_kind(p->lp, w0 + j - 1, GLP_BV);
    int def = glp_add_rows(p->lp, 1);
    glp_set_row_bnds(p->lp, def, GLP_FX, (double)cand[0], (double)cand[0]);
    put(&p->m, def, s_col, 1.0);
    for (int j = 1; j < m; j++)
        put(&p->m, def, w0 + j - 1, -(double)(cand[j] - cand[j - 1]));
    if (m > 2) {
        int mono = glp_add_rows(p->lp, m - 2);
        for (int j = 1; j + 1 < m; j++) {
            glp_set_row_bnds(p->lp, mono + j - 1, GLP_LO, 0.0, 0.0);
            put(&p->m, mono + j - 1, w0 + j - 1, 1.0);
            put(&p->m, mono + j - 1, w0 + j, -1.0);
        }
    }
    for (int c = 1; c <= p->n_cols; c++) {
        int j = candidate_index(cand, m, n2_config_latency(&sp->cfg[p->cols[c - 1]]));
        if (j == 0)
            continue;
        int row = glp_add_rows(p->lp, 1);
        glp_set_row_bnds(p->lp, row, GLP_UP, 0.0, 0.0);
        put(&p->m, row, c, 1.0);
        put(&p->m, row, w0 + j - 1, -1.0);
    }
}

static int64_t *candidate_periods(const n2_space *sp, int *n);

cm_status n2_phase1(const n2_space *sp, const n2_budget *b, const n2_solve_options *o,
                    int *choice, bool *found, cm_nn2fpga_phase *ph, cm_error *err)
{
    *found = false;
    double t0 = n2_now();
    int m = 0;
    int64_t *cand = candidate_periods(sp, &m);
    program p;
    cm_status st = cand ? program_init(&p, sp, 0, 4, 2 * m + 2, err) : cm_error_nomem(err);
    if (st != CM_OK) {
        free(cand);
        return st;
    }
    int *layer_of_col = layers_of_columns(&p, sp);
    if (!layer_of_col) {
        free(cand);
        program_free(&p);
        return cm_error_nomem(err);
    }
    glp_set_obj_dir(p.lp, GLP_MIN);
    int s_col = glp_add_cols(p.lp, 1);
    glp_set_col_kind(p.lp, s_col, GLP_IV);
    glp_set_col_bnds(p.lp, s_col, GLP_LO, period_lower_bound(sp), 0.0);
    glp_set_obj_coef(p.lp, s_col, 1.0);
    add_choice_and_budget(&p, sp, b, layer_of_col);
    add_period_rows(&p, sp, layer_of_col, s_col);
    add_staircase(&p, sp, cand, m, s_col);
    bool feasible = false, optimal = false, stopped = false;
    st = solve(&p, o, &feasible, &optimal, &stopped, err);
    if (st == CM_OK && !feasible && !stopped)
        st = cm_error_set(err, CM_EINFEASIBLE,
                          "no feasible design: DSP, BRAM18 and URAM cannot be met together");
    if (st == CM_OK && feasible)
        read_choice(&p, sp, layer_of_col, choice);
    if (st == CM_OK)
        record(ph, &p, t0, optimal, stopped);
    *found = st == CM_OK && feasible;
    free(cand);
    free(layer_of_col);
    program_free(&p);
    return st;
}

/* Phase 2's objective term of a configuration: each resource over the budget's. */
static double resource_cost(const n2_config *c, const n2_budget *b)
{
    return (double)c->dsp / (double)(b->dsp > 0 ? b->dsp : 1) +
           (double)c->bram / (double)(b->bram > 0 ? b->bram : 1) +
           (double)c->uram_banks / (double)(b->uram > 0 ? b->uram : 1);
}

static void set_resource_objective(program *p, const n2_space *sp, const n2_budget *b)
{
    glp_set_obj_dir(p->lp, GLP_MIN);
    for (int j = 1; j <= p->n_cols; j++)
        glp_set_obj_coef(p->lp, j, resource_cost(&sp->cfg[p->cols[j - 1]], b));
}

/* The objective of a known choice as a row: the search skips what costs more (GLPK's
 * presolver renumbers columns, so the choice cannot be handed over as an incumbent). */
static void add_cutoff(program *p, const n2_space *sp, const n2_budget *b, const int *hint,
                       int row)
{
    double bound = 0.0;
    for (int t = 0; t < sp->n_layers; t++)
        bound += resource_cost(&sp->cfg[hint[t]], b);
    glp_add_rows(p->lp, 1);
    glp_set_row_bnds(p->lp, row, GLP_UP, 0.0, bound * (1.0 + 1e-9));
    for (int j = 1; j <= p->n_cols; j++)
        put(&p->m, row, j, resource_cost(&sp->cfg[p->cols[j - 1]], b));
}

/* Every layer must keep a column, else the period is out of reach without a solve. */
static bool every_layer_has_column(const program *p, const int *layer_of_col, int n_layers)
{
    int seen = 0;
    for (int j = 0; j < p->n_cols; j++)
        if (j == 0 || layer_of_col[j] != layer_of_col[j - 1])
            seen++;
    return seen == n_layers;
}

cm_status n2_phase2(const n2_space *sp, const n2_budget *b, const n2_solve_options *o,
                    int64_t period, bool minimise, int *choice, bool *feasible,
                    cm_nn2fpga_phase *ph, cm_error *err)
{
    double t0 = n2_now();
    program p;
    *feasible = false;
    cm_status st = program_init(&p, sp, period, minimise && o->hint ? 1 : 0, 0, err);
    if (st != CM_OK)
        return st;
    int *layer_of_col = layers_of_columns(&p, sp);
    if (!layer_of_col) {
        program_free(&p);
        return cm_error_nomem(err);
    }
    bool optimal = false, stopped = false;
    if (every_layer_has_column(&p, layer_of_col, sp->n_layers)) {
        if (minimise)
            set_resource_objective(&p, sp, b);
        int next_row = add_choice_and_budget(&p, sp, b, layer_of_col);
        if (minimise && o->hint)
            add_cutoff(&p, sp, b, o->hint, next_row);
        st = solve(&p, o, feasible, &optimal, &stopped, err);
    }
    if (st == CM_OK && *feasible)
        read_choice(&p, sp, layer_of_col, choice);
    /* a proven "no design at this period" is an exact answer too */
    if (st == CM_OK)
        record(ph, &p, t0, optimal || (!*feasible && !stopped), stopped);
    free(layer_of_col);
    program_free(&p);
    return st;
}

static int compare_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The distinct latencies of all configurations at or above the lower bound, and the bound
 * itself: the ports' cycles, when they exceed every layer's fastest, are no layer's. */
static int64_t *candidate_periods(const n2_space *sp, int *n)
{
    int64_t *v = malloc(((size_t)sp->n_cfg + 2) * sizeof *v);
    if (!v)
        return NULL;
    int64_t lb = (int64_t)period_lower_bound(sp);
    int k = 0;
    v[k++] = lb;
    for (int i = 0; i < sp->n_cfg; i++)
        if (n2_config_latency(&sp->cfg[i]) >= lb)
            v[k++] = n2_config_latency(&sp->cfg[i]);
    qsort(v, (size_t)k, sizeof *v, compare_i64);
    int m = 0;
    for (int i = 0; i < k; i++)
        if (m == 0 || v[i] != v[m - 1])
            v[m++] = v[i];
    *n = m;
    return v;
}

/* Phase 1 by bisection: each probe is the program of eqs. 4.29-4.33 with S fixed at a
 * candidate (eq. 4.30 then only removes the slower configurations). Feasibility is
 * monotone in S, so the smallest feasible candidate is the optimum, proven by the
 * solver's verdicts on it and on the candidate below. The probes minimise resources
 * as phase 2 does: with no objective GLPK's search is several times slower. */
static cm_status bisect(const n2_space *sp, const n2_budget *b, const n2_solve_options *o,
                        const int64_t *cand, int n, int *choice, cm_nn2fpga_phase *ph1,
                        int *best, cm_error *err)
{
    int *probe = malloc(((size_t)sp->n_layers + 1) * sizeof *probe);
    if (!probe)
        return cm_error_nomem(err);
    cm_status st = CM_OK;
    int lo = 0, hi = n - 1, nodes_left = N2_BISECT_NODES;
    n2_solve_options po = *o;
    po.nodes_left = &nodes_left;
    *best = -1;
    ph1->optimal = true; /* until a probe's program is not proven */
    while (st == CM_OK && lo <= hi && n2_now() < o->deadline && nodes_left > 0) {
        int mid = lo + (hi - lo) / 2;
        bool feasible = false;
        double t0 = n2_now();
        n2_verdict quick = n2_quick_verdict(sp, b, cand[mid], probe);
        if (quick != N2_UNKNOWN) { /* a bound or a fitting choice settles it */
            feasible = quick == N2_FEASIBLE;
            ph1->settled++;
            ph1->time_s += n2_now() - t0;
            /* the size of the program it stood for (the order of the thesis' Table 4.1) */
            int cols = 0;
            for (int k = 0; k < sp->n_cfg; k++)
                cols += n2_config_latency(&sp->cfg[k]) <= cand[mid];
            ph1->variables = cols > ph1->variables ? cols : ph1->variables;
            ph1->constraints = sp->n_layers + 3;
        } else {
            cm_nn2fpga_phase probe_phase = {0};
            st = n2_phase2(sp, b, &po, cand[mid], true, probe, &feasible, &probe_phase, err);
            ph1->programs++;
            ph1->time_s += probe_phase.time_s;
            if (probe_phase.variables > ph1->variables)
                ph1->variables = probe_phase.variables;
            ph1->constraints = probe_phase.constraints;
            ph1->optimal = ph1->optimal && probe_phase.optimal;
            ph1->stopped_early = ph1->stopped_early || probe_phase.stopped_early;
        }
        /* a probe the deadline stopped without a design counts as infeasible: the
         * bisection goes on upwards, and the answer is no longer proven */
        if (st == CM_OK && feasible) {
            *best = mid;
            memcpy(choice, probe, (size_t)sp->n_layers * sizeof *choice);
            hi = mid - 1;
        } else {
            lo = mid + 1;
        }
    }
    if (lo <= hi) { /* the deadline or the node budget ended the bisection */
        ph1->stopped_early = true;
        ph1->optimal = false;
    }
    free(probe);
    return st;
}

cm_status n2_bisect(const n2_space *sp, const n2_budget *b, const n2_solve_options *o,
                    int *choice, bool *found, cm_nn2fpga_phase *ph1, cm_error *err)
{
    int n = 0, best = -1;
    int64_t *cand = candidate_periods(sp, &n);
    cm_status st = cand ? bisect(sp, b, o, cand, n, choice, ph1, &best, err) : cm_error_nomem(err);
    if (st == CM_OK && best < 0 && !ph1->stopped_early)
        st = cm_error_set(err, CM_EINFEASIBLE,
                          "no feasible design: DSP, BRAM18 and URAM cannot be met together");
    *found = st == CM_OK && best >= 0;
    if (*found)
        ph1->objective = (double)cand[best];
    free(cand);
    return st;
}
