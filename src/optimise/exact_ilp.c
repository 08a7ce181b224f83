/* The exact optimiser's integer program for one segment (one FPGA configuration):
 * a binary per node and kept configuration, one chosen per node; T at least every
 * chosen cycle count (eq. 2); the five resource sums within the board (eq. 6); some
 * node slower than the bandwidth limit (eq. 7: the interval is the slowest node's
 * cycles, so a partition that runs too fast is infeasible, and this disjunction is
 * exact where a bound on T would not be); the edge rules per folding value (eq. 10,
 * divisibility); on fpgaConvNet the pipeline depth as a longest path; minimise
 * batch * T + D. Solved by GLPK's branch and cut; the answer is re-evaluated by the
 * design, which must agree with the solver's objective. */
#include "optimise/exact.h"

#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/progress.h"

typedef struct ilp {
    ex_problem *p;
    const ex_segment *s;
    glp_prob *lp;
    int n;          /* nodes in the segment */
    int *off;       /* n + 1 offsets into the flattened configurations */
    int *col;       /* column per flattened configuration, 0 when left out */
    int t_col, d_col;
    int *dn_col;    /* per node: depth of the longest path from it (non-chain only) */
    int *ind;       /* one row's coefficients, 1-based as GLPK wants them */
    double *val;
    double t_lb;    /* T's bound in the program: the fastest node, eq. 7's floor */
    double t_floor; /* a stronger bound (ex_time_floor), for cutoffs and timeouts */
} ilp;

typedef struct ilp_watch {
    double deadline, bound;
    bool have_bound;
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
    free(m->dn_col);
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
    m->dn_col = calloc((size_t)m->n, sizeof *m->dn_col);
    m->ind = malloc(total * sizeof *m->ind);
    m->val = malloc(total * sizeof *m->val);
    m->lp = glp_create_prob();
    if (!m->col || !m->dn_col || !m->ind || !m->val || !m->lp)
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

static void add_columns(ilp *m)
{
    bool sum_depth = m->p->has_depth && m->s->chain;
    for (int i = 0; i < m->n; i++)
        for (int k = m->off[i]; k < m->off[i + 1]; k++) {
            if (!m->col[k])
                continue;
            int j = m->col[k] = glp_add_cols(m->lp, 1);
            glp_set_col_kind(m->lp, j, GLP_BV);
            glp_set_obj_coef(m->lp, j, sum_depth ? cfg_of(m, k, i)->depth : 0.0);
        }
    m->t_col = glp_add_cols(m->lp, 1);
    glp_set_col_bnds(m->lp, m->t_col, GLP_LO, m->t_lb, 0.0);
    glp_set_obj_coef(m->lp, m->t_col, m->p->batch);
    if (!m->p->has_depth || m->s->chain)
        return;
    for (int i = 0; i < m->n; i++) {
        m->dn_col[i] = glp_add_cols(m->lp, 1);
        glp_set_col_bnds(m->lp, m->dn_col[i], GLP_LO, 0.0, 0.0);
    }
    m->d_col = glp_add_cols(m->lp, 1);
    glp_set_col_bnds(m->lp, m->d_col, GLP_LO, 0.0, 0.0);
    glp_set_obj_coef(m->lp, m->d_col, 1.0);
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
static double w_depth(const ex_config *c, const void *arg) { (void)arg; return c->depth; }
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
    const cm_resources *board = &m->p->d->board.resources;
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

/* Longest path of pipeline depths: dn(i) >= depth(i) + dn(j) for each successor j in
 * the segment, D >= dn(i). Minimising D makes it the longest path. */
static void add_depth_rows(ilp *m, int i, const cm_hd_node *hn)
{
    int first = m->s->first;
    bool leaf = true;
    for (int k = 0; k < hn->n_succ; k++) {
        int j = hn->succ[k] - first;
        if (j >= m->n)
            continue;
        leaf = false;
        int len = put_node(m, 0, i, w_depth, NULL, -1.0);
        m->ind[++len] = m->dn_col[i];
        m->val[len] = 1.0;
        m->ind[++len] = m->dn_col[j];
        m->val[len] = -1.0;
        add_row(m, len, GLP_LO, 0.0, 0.0);
    }
    if (leaf) {
        int len = put_node(m, 0, i, w_depth, NULL, -1.0);
        m->ind[++len] = m->dn_col[i];
        m->val[len] = 1.0;
        add_row(m, len, GLP_LO, 0.0, 0.0);
    }
    m->ind[1] = m->d_col;
    m->val[1] = 1.0;
    m->ind[2] = m->dn_col[i];
    m->val[2] = -1.0;
    add_row(m, 2, GLP_LO, 0.0, 0.0);
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
        if (m->d_col)
            add_depth_rows(m, i, hn);
    }
}

static double w_depth_if_summed(const ex_config *c, const void *arg)
{
    return *(const bool *)arg ? c->depth : 0.0;
}

/* The objective at most the cutoff: GLPK then prunes every branch that cannot beat
 * it, and reports the program infeasible when none can. */
static void add_cutoff_row(ilp *m, double cutoff_s)
{
    bool sum_depth = m->p->has_depth && m->s->chain;
    int len = 0;
    for (int i = 0; i < m->n; i++)
        len = put_node(m, len, i, w_depth_if_summed, &sum_depth, 1.0);
    m->ind[++len] = m->t_col;
    m->val[len] = m->p->batch;
    if (m->d_col) {
        m->ind[++len] = m->d_col;
        m->val[len] = 1.0;
    }
    add_row(m, len, GLP_UP, 0.0, cutoff_s * m->p->clock_hz);
}

static void watch(glp_tree *t, void *info)
{
    ilp_watch *w = info;
    int best = glp_ios_best_node(t);
    if (best) {
        w->bound = glp_ios_node_bound(t, best);
        w->have_bound = true;
    }
    if (cm_seconds_now() >= w->deadline)
        glp_ios_terminate(t);
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

/* Reads GLPK's answer into sol; the design re-evaluates the chosen foldings. */
static void no_answer(ex_sol *sol, double cutoff_s)
{
    sol->ub = INFINITY;
    sol->lb = cutoff_s;
    sol->cut_off = !isinf(cutoff_s);
}

static cm_status read_answer(ilp *m, int ret, const ilp_watch *w, double cutoff_s, ex_sol *sol,
                             cm_error *err)
{
    int status = glp_mip_status(m->lp);
    double floor_s = m->p->batch * m->t_floor / m->p->clock_hz;
    if (ret != 0 && ret != GLP_ETMLIM && ret != GLP_ESTOP && ret != GLP_ENOPFS)
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
        if (!(fabs(obj_s - sol->ub) <= 1e-9 * fabs(sol->ub)))
            return cm_error_set(err, CM_EINTERNAL,
                                "the integer program for nodes %d to %d predicts %.12g s, the "
                                "design evaluates %.12g s",
                                m->s->first, m->s->end - 1, obj_s, sol->ub);
        sol->lb = sol->ub;
        return CM_OK;
    }
    /* Stopped by the deadline: the best open node bounds what remains unexplored. */
    double bound = w->have_bound ? fmin(w->bound / m->p->clock_hz, obj_s) : floor_s;
    sol->lb = fmin(fmin(fmax(bound, floor_s), sol->ub), cutoff_s);
    return CM_OK;
}

cm_status ex_solve_segment(ex_problem *p, const ex_segment *s, const uint8_t *allowed,
                           double cutoff_s, ex_sol *sol, cm_error *err)
{
    ilp m;
    sol->cut_off = false;
    cm_status st = ilp_alloc(&m, p, s, err);
    if (st == CM_OK && !select_configs(&m, allowed)) {
        sol->lb = sol->ub = INFINITY;
        ilp_free(&m);
        return CM_OK;
    }
    if (st == CM_OK && p->batch * m.t_floor / p->clock_hz >= cutoff_s) {
        no_answer(sol, cutoff_s);
        ilp_free(&m);
        return CM_OK;
    }
    if (st == CM_OK) {
        add_columns(&m);
        add_choice_and_time_rows(&m);
        add_resource_rows(&m);
        add_bandwidth_row(&m);
        add_graph_rows(&m);
        if (!isinf(cutoff_s))
            add_cutoff_row(&m, cutoff_s);
        ilp_watch w = {.deadline = p->deadline};
        glp_iocp parm;
        glp_init_iocp(&parm);
        parm.msg_lev = GLP_MSG_OFF;
        parm.presolve = GLP_ON;
        double left_ms = (p->deadline - cm_seconds_now()) * 1e3;
        parm.tm_lim = left_ms < 1 ? 1 : left_ms > INT_MAX ? INT_MAX : (int)left_ms;
        parm.cb_func = watch;
        parm.cb_info = &w;
        /* Best projection finds good incumbents early on these knapsack-like programs
         * (MobileNetV1 on the U250: 4 s instead of 24 s with the default). */
        parm.bt_tech = GLP_BT_BPH;
        p->ilps++;
        int ret = glp_intopt(m.lp, &parm);
        st = read_answer(&m, ret, &w, cutoff_s, sol, err);
    }
    ilp_free(&m);
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
    cm_partition_info info;
    cm_design_partition_info(d, part, &info);
    return info.time_s;
}
