/* The exact scheduler for small problems (f-CNNx III-C: "for small-sized problems, we
 * model the problem as an ILP"), solved by GLPK. For one period with given repetitions:
 *
 *   minimise K
 *   sum_m z[k][m] = 1                          one slow-down level per execution
 *   st[k+1] >= st[k] + d[k]                    precedence along each network's chain
 *   K >= st[k] + d[k]                          for each chain's last execution
 *   st[b] >= st[a] + d[a] - M (1 - y[a][b])    y[a][b] = 1: a ends before b starts
 *   sum_{a,b in S} y[a][b] >= 1 - sum_{s in S} (1 - z[s][m_s])
 *
 * with d[k] = sum_m z[k][m] L(k) / sl_m (eq. 4). The last row is written for every
 * minimal set S of executions of different networks and levels m_S whose demands
 * sum_S sl_m b(s) exceed B_mem: when those levels are chosen, some pair of S must be
 * sequenced, so the set never runs all at once (intervals that meet pairwise share a
 * point, so this is exactly the bandwidth constraint in continuous time). Times are
 * scaled by a feasible makespan H (the list schedule without slow-downs), which also
 * bounds K and serves as M. */
#include "multi/multi_internal.h"

#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/progress.h"

#define EPS 1e-9
#define MAX_ROWS 40000
/* A guard, not a budget: a program past the size limit can still take hours (f-CNNx
 * Table II); the schedule found by then is returned as not proven optimal. */
#define TIME_LIMIT_MS 120000

static const double level[] = {1.0, 0.75, 0.5, 0.25};

typedef struct ilp {
    const cm_mt_inst *x;
    int modes;
    double horizon;
    glp_prob *lp;
    int col_k;     /* K */
    int *pair;     /* n x n: column of y[a][b], 0 when a and b never conflict */
    int *row;      /* triplets for glp_load_matrix (1-based) */
    int *col;
    double *val;
    int nnz, cap;
    int rows;
    bool too_big;
} ilp;

static int st_col(int k)
{
    return 1 + k;
}

static int z_col(const ilp *p, int k, int m)
{
    return 1 + p->x->n_tasks + k * p->modes + m;
}

static bool put(ilp *p, int r, int c, double v)
{
    if (p->nnz + 1 >= p->cap) {
        int cap = p->cap * 2 + 64;
        int *row = realloc(p->row, (size_t)cap * sizeof *row);
        if (row)
            p->row = row;
        int *col = realloc(p->col, (size_t)cap * sizeof *col);
        if (col)
            p->col = col;
        double *val = realloc(p->val, (size_t)cap * sizeof *val);
        if (val)
            p->val = val;
        if (!row || !col || !val)
            return false;
        p->cap = cap;
    }
    p->nnz++;
    p->row[p->nnz] = r;
    p->col[p->nnz] = c;
    p->val[p->nnz] = v;
    return true;
}

static int new_row(ilp *p, int type, double lo, double hi)
{
    int r = glp_add_rows(p->lp, 1);
    glp_set_row_bnds(p->lp, r, type, lo, hi);
    p->rows++;
    return r;
}

static double duration(const ilp *p, int k, int m)
{
    return p->x->t[k].latency / level[m] / p->horizon;
}

/* Adds -d[k] (the duration of k at its chosen level) to row r, plus st[k] with sign. */
static bool put_end(ilp *p, int r, int k, double st_sign)
{
    bool ok = put(p, r, st_col(k), st_sign);
    for (int m = 0; m < p->modes; m++)
        ok = ok && put(p, r, z_col(p, k, m), -duration(p, k, m));
    return ok;
}

static void add_columns(ilp *p)
{
    const int n = p->x->n_tasks;
    glp_add_cols(p->lp, n + n * p->modes + 1);
    for (int k = 0; k < n; k++) {
        glp_set_col_bnds(p->lp, st_col(k), GLP_DB, 0.0, 1.0);
        for (int m = 0; m < p->modes; m++)
            glp_set_col_kind(p->lp, z_col(p, k, m), GLP_BV);
    }
    p->col_k = n + n * p->modes + 1;
    glp_set_col_bnds(p->lp, p->col_k, GLP_DB, 0.0, 1.0 + EPS);
    glp_set_obj_coef(p->lp, p->col_k, 1.0);
    glp_set_obj_dir(p->lp, GLP_MIN);
}

static bool add_chains(ilp *p)
{
    const cm_mt_inst *x = p->x;
    bool ok = true;
    for (int k = 0; k < x->n_tasks && ok; k++) {
        int r = new_row(p, GLP_FX, 1.0, 1.0);
        for (int m = 0; m < p->modes; m++)
            ok = ok && put(p, r, z_col(p, k, m), 1.0);
        bool last = k + 1 == x->n_tasks || x->t[k + 1].job != x->t[k].job;
        r = new_row(p, GLP_LO, 0.0, 0.0);
        ok = ok && put_end(p, r, k, -1.0) && put(p, r, last ? p->col_k : st_col(k + 1), 1.0);
    }
    return ok;
}

/* Whether a and b can be in one violating set: their demands at full speed plus the
 * largest of every other network's exceed the bandwidth. */
static bool may_conflict(const cm_mt_inst *x, int a, int b)
{
    double sum = x->t[a].bw + x->t[b].bw;
    for (int j = 0; j < x->n_jobs; j++) {
        if (j == x->t[a].job || j == x->t[b].job)
            continue;
        double top = 0.0;
        for (int k = x->first[j]; k < x->first[j + 1]; k++)
            top = fmax(top, x->t[k].bw);
        sum += top;
    }
    return sum > x->bandwidth * (1.0 + EPS);
}

/* y[a][b] for a and b of different networks that may conflict. */
static bool add_pairs(ilp *p)
{
    const cm_mt_inst *x = p->x;
    const int n = x->n_tasks;
    bool ok = true;
    for (int a = 0; a < n && ok; a++)
        for (int b = 0; b < n && ok; b++) {
            if (x->t[a].job == x->t[b].job || !may_conflict(x, a, b))
                continue;
            int c = p->pair[a * n + b] = glp_add_cols(p->lp, 1);
            glp_set_col_kind(p->lp, c, GLP_BV);
            int r = new_row(p, GLP_LO, -1.0 - EPS, 0.0);  /* st_b - st_a - d_a - y >= -1 */
            ok = put_end(p, r, a, -1.0) && put(p, r, st_col(b), 1.0) && put(p, r, c, -1.0);
        }
    return ok;
}

/* K is at least every byte of the period through B_mem (slow-downs move the same
 * bytes): a valid row the relaxation would not find by itself. */
static bool add_bytes_bound(ilp *p)
{
    double bytes = 0.0;
    for (int k = 0; k < p->x->n_tasks; k++)
        bytes += p->x->t[k].bytes;
    int r = new_row(p, GLP_LO, bytes / p->x->bandwidth / p->horizon, 0.0);
    return put(p, r, p->col_k, 1.0);
}

/* Valid rows that cut the relaxation: a pair is sequenced one way at most, and along
 * the chains the order is monotone (if a ends before b starts, so does a's
 * predecessor, and a ends before b's successor starts). */
static bool add_order_cuts(ilp *p)
{
    const cm_mt_inst *x = p->x;
    const int n = x->n_tasks;
    bool ok = true;
    for (int a = 0; a < n && ok; a++)
        for (int b = 0; b < n && ok; b++) {
            int ab = p->pair[a * n + b];
            if (!ab)
                continue;
            if (a < b && p->pair[b * n + a]) {
                int r = new_row(p, GLP_UP, 0.0, 1.0);
                ok = put(p, r, ab, 1.0) && put(p, r, p->pair[b * n + a], 1.0);
            }
            int prev = a - 1, next = b + 1;
            if (ok && prev >= 0 && x->t[prev].job == x->t[a].job && p->pair[prev * n + b]) {
                int r = new_row(p, GLP_LO, 0.0, 0.0);
                ok = put(p, r, p->pair[prev * n + b], 1.0) && put(p, r, ab, -1.0);
            }
            if (ok && next < n && x->t[next].job == x->t[b].job && p->pair[a * n + next]) {
                int r = new_row(p, GLP_LO, 0.0, 0.0);
                ok = put(p, r, p->pair[a * n + next], 1.0) && put(p, r, ab, -1.0);
            }
        }
    return ok;
}

/* ---- minimal violating sets ---- */

typedef struct set {
    int task[16], mode[16];
    int size;
    double sum;
} set;

static bool minimal(const ilp *p, const set *s)
{
    for (int i = 0; i < s->size; i++) {
        double rest = s->sum - p->x->t[s->task[i]].bw * level[s->mode[i]];
        if (rest > p->x->bandwidth * (1.0 + EPS))
            return false;
    }
    return true;
}

static bool add_set_row(ilp *p, const set *s)
{
    const int n = p->x->n_tasks;
    if (p->rows >= MAX_ROWS) {
        p->too_big = true;
        return true;
    }
    int r = new_row(p, GLP_LO, 1.0 - s->size, 0.0);
    bool ok = true;
    for (int i = 0; i < s->size && ok; i++) {
        ok = put(p, r, z_col(p, s->task[i], s->mode[i]), -1.0);
        for (int j = 0; j < s->size && ok; j++)
            if (i != j && p->pair[s->task[i] * n + s->task[j]])
                ok = put(p, r, p->pair[s->task[i] * n + s->task[j]], 1.0);
    }
    return ok;
}

/* Chooses, network by network from `job`, no execution or one at some level. */
static bool enumerate(ilp *p, set *s, int job)
{
    const cm_mt_inst *x = p->x;
    if (s->sum > x->bandwidth * (1.0 + EPS))
        return s->size < 2 || !minimal(p, s) || add_set_row(p, s);
    if (job == x->n_jobs || p->too_big)
        return true;
    if (!enumerate(p, s, job + 1))
        return false;
    for (int k = x->first[job]; k < x->first[job + 1]; k++)
        for (int m = 0; m < p->modes; m++) {
            s->task[s->size] = k;
            s->mode[s->size] = m;
            s->size++;
            s->sum += x->t[k].bw * level[m];
            bool ok = enumerate(p, s, job + 1);
            s->size--;
            s->sum -= x->t[k].bw * level[m];
            if (!ok)
                return false;
        }
    return true;
}

/* ---- solve ---- */

static void read_solution(const ilp *p, double *sl, double *start, double *period)
{
    for (int k = 0; k < p->x->n_tasks; k++) {
        start[k] = glp_mip_col_val(p->lp, st_col(k)) * p->horizon;
        sl[k] = 1.0;
        for (int m = 0; m < p->modes; m++)
            if (glp_mip_col_val(p->lp, z_col(p, k, m)) > 0.5)
                sl[k] = level[m];
    }
    *period = glp_mip_obj_val(p->lp) * p->horizon;
}

/* Without an incumbent when time runs out: the list schedule without slow-downs, which
 * the bandwidth limit allows, so the caller still has a schedule. */
static cm_status plain_schedule(const cm_mt_inst *x, double *sl, double *start, double *period,
                                cm_error *err)
{
    cm_mt_ws w = {0};
    cm_status st = cm_mt_ws_init(x, &w, err);
    if (st == CM_OK) {
        for (int k = 0; k < x->n_tasks; k++)
            sl[k] = 1.0;
        *period = cm_mt_rcls(x, sl, true, &w, start, NULL);
    }
    cm_mt_ws_free(&w);
    return st;
}

/* GLPK gives its root LP and its branch and bound tm_lim each: the search is stopped
 * at the end of the program's time here, so that the whole program keeps to it, and
 * after CM_MULTI_ILP_NODES nodes, which ends it alike on any machine. */
typedef struct ilp_watch {
    double stop;
} ilp_watch;

static void watch(glp_tree *t, void *info)
{
    int total = 0;
    glp_ios_tree_size(t, NULL, NULL, &total);
    if (total >= CM_MULTI_ILP_NODES || cm_seconds_now() >= ((const ilp_watch *)info)->stop)
        glp_ios_terminate(t);
}

static cm_status solve(ilp *p, double deadline, double *sl, double *start, double *period,
                       bool *optimal, cm_error *err)
{
    double left_ms = (deadline - cm_seconds_now()) * 1e3;
    *optimal = false;
    if (!(left_ms >= 1.0))
        return plain_schedule(p->x, sl, start, period, err);
    glp_load_matrix(p->lp, p->nnz, p->row, p->col, p->val);
    glp_iocp parm;
    glp_init_iocp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.tm_lim = left_ms < TIME_LIMIT_MS ? (int)left_ms : TIME_LIMIT_MS;
    ilp_watch w = {cm_seconds_now() + parm.tm_lim * 1e-3};
    parm.cb_func = watch;
    parm.cb_info = &w;
    parm.presolve = GLP_ON;
    int rc = glp_intopt(p->lp, &parm);
    int status = glp_mip_status(p->lp);
    if (rc == GLP_ESTOP)
        rc = GLP_ETMLIM;
    if (rc == GLP_ETMLIM && status != GLP_OPT && status != GLP_FEAS)
        return plain_schedule(p->x, sl, start, period, err);
    if ((rc != 0 && rc != GLP_ETMLIM) || (status != GLP_OPT && status != GLP_FEAS))
        return cm_error_set(err, CM_EINTERNAL, "GLPK failed on the schedule program (code %d, "
                            "status %d)", rc, status);
    *optimal = status == GLP_OPT;
    read_solution(p, sl, start, period);
    return CM_OK;
}

static void ilp_free(ilp *p)
{
    if (p->lp)
        glp_delete_prob(p->lp);
    free(p->pair);
    free(p->row);
    free(p->col);
    free(p->val);
}

/* A feasible makespan to scale by: the list schedule without slow-downs. */
static cm_status horizon(const cm_mt_inst *x, double *h, cm_error *err)
{
    cm_mt_ws w = {0};
    double *sl = malloc((size_t)x->n_tasks * sizeof *sl);
    double *start = malloc((size_t)x->n_tasks * sizeof *start);
    cm_status st = sl && start ? cm_mt_ws_init(x, &w, err) : cm_error_nomem(err);
    if (st == CM_OK) {
        for (int k = 0; k < x->n_tasks; k++)
            sl[k] = 1.0;
        *h = cm_mt_rcls(x, sl, true, &w, start, NULL);
    }
    cm_mt_ws_free(&w);
    free(sl);
    free(start);
    return st;
}

cm_status cm_mt_ilp(const cm_mt_inst *x, int modes, double deadline, double *sl, double *start,
                    double *period, bool *optimal, cm_error *err)
{
    ilp p = {.x = x, .modes = modes < 1 ? 1 : modes > 4 ? 4 : modes};
    cm_status st = horizon(x, &p.horizon, err);
    if (st != CM_OK)
        return st;
    p.lp = glp_create_prob();
    p.pair = calloc((size_t)x->n_tasks * (size_t)x->n_tasks, sizeof *p.pair);
    if (!p.lp || !p.pair || x->n_jobs > 16) {
        ilp_free(&p);
        return x->n_jobs > 16 ? cm_error_set(err, CM_EINFEASIBLE, "the ILP scheduler takes at "
                                             "most 16 networks, not %d", x->n_jobs)
                              : cm_error_nomem(err);
    }
    add_columns(&p);
    set s = {.size = 0};
    bool ok = add_chains(&p) && add_pairs(&p) && add_order_cuts(&p) && add_bytes_bound(&p) &&
              enumerate(&p, &s, 0);
    if (!ok)
        st = cm_error_nomem(err);
    else if (p.too_big)
        st = cm_error_set(err, CM_EINFEASIBLE, "the ILP scheduler's program for %d subgraph "
                          "executions exceeds %d rows; use --scheduler list", x->n_tasks, MAX_ROWS);
    else
        st = solve(&p, deadline, sl, start, period, optimal, err);
    ilp_free(&p);
    return st;
}

typedef struct ilp_ctx {
    int modes, max_tasks;
} ilp_ctx;

/* The ILP as a solver, refusing instances beyond its size limit. */
static cm_status ilp_run(const cm_mt_inst *x, const void *ctx, double *sl, double *start,
                         double *period, bool *optimal, uint64_t *evals, cm_error *err)
{
    const ilp_ctx *c = ctx;
    (void)evals;
    if (x->n_tasks > c->max_tasks)
        return cm_error_set(err, CM_EINFEASIBLE, "the ILP scheduler takes at most %d subgraph "
                            "executions per period; this problem has %d", c->max_tasks,
                            x->n_tasks);
    return cm_mt_ilp(x, c->modes, INFINITY, sl, start, period, optimal, err);
}

cm_status cm_multi_schedule_ilp(const cm_multi_problem *pr, int modes, int max_tasks,
                                cm_multi_schedule *out, cm_error *err)
{
    ilp_ctx c = {modes, max_tasks};
    cm_mt_solver s = {ilp_run, &c};
    return cm_mt_solve(pr, &s, out, err);
}
