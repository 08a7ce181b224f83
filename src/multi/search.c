/* The slow-down search of Alg. 1 (lines 7-10): a derivative-free pattern search
 * (Audet and Dennis's generalised pattern search, as f-CNNx cites) over each subgraph
 * execution's slow-down, every trial point costed by the list scheduler. Each
 * iteration explores the coordinate directions at the current step and, when none
 * improves, polls farther away (twice the step, and whole chains at once) before the
 * step is halved. Also the public list scheduler built on it. */
#include "multi/multi_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/progress.h"

#define STEP0 0.25
#define STEP_MIN (1.0 / 64.0)

typedef struct point {
    double makespan, flow;  /* flow (sum of end times) breaks ties on plateaus */
} point;

typedef struct searcher {
    const cm_mt_inst *x;
    cm_mt_ws *w;
    double *sl, *start;
    point best;
    uint64_t evals, budget;
} searcher;

static bool better(point a, point b)
{
    const double tol = 1e-12;
    if (a.makespan < b.makespan * (1.0 - tol))
        return true;
    return a.makespan <= b.makespan * (1.0 + tol) && a.flow < b.flow * (1.0 - tol);
}

static point evaluate(searcher *s)
{
    point p;
    /* A schedule takes microseconds: the clock is read every 32 of them, and at the
     * deadline the budget ends, so every loop below winds down with the best so far. */
    if ((s->evals & 31) == 31 && cm_seconds_now() >= s->w->deadline)
        s->budget = s->evals;
    s->evals++;
    p.makespan = cm_mt_rcls(s->x, s->sl, true, s->w, s->start, &p.flow);
    return p;
}

static double clamp(double v)
{
    return fmax(CM_MT_MIN_SLOWDOWN, fmin(1.0, v));
}

/* Tries sl[k] = v; keeps it when better. */
static bool try_value(searcher *s, int k, double v)
{
    double old = s->sl[k];
    v = clamp(v);
    if (v == old || s->evals >= s->budget)
        return false;
    s->sl[k] = v;
    point p = evaluate(s);
    if (better(p, s->best)) {
        s->best = p;
        return true;
    }
    s->sl[k] = old;
    return false;
}

static bool explore(searcher *s, double step)
{
    bool improved = false;
    for (int k = 0; k < s->x->n_tasks; k++)
        if (try_value(s, k, s->sl[k] - step) || try_value(s, k, s->sl[k] + step))
            improved = true;
    return improved;
}

/* Scales a whole chain's slow-downs by f; keeps it when better. */
static bool try_chain(searcher *s, int j, double f, double *saved)
{
    if (s->evals >= s->budget)
        return false;
    const cm_mt_inst *x = s->x;
    bool changed = false;
    for (int k = x->first[j]; k < x->first[j + 1]; k++) {
        saved[k] = s->sl[k];
        s->sl[k] = clamp(s->sl[k] * f);
        changed |= s->sl[k] != saved[k];
    }
    if (changed) {
        point p = evaluate(s);
        if (better(p, s->best)) {
            s->best = p;
            return true;
        }
    }
    for (int k = x->first[j]; k < x->first[j + 1]; k++)
        s->sl[k] = saved[k];
    return false;
}

static bool poll(searcher *s, double step, double *saved)
{
    for (int j = 0; j < s->x->n_jobs; j++)
        if (try_chain(s, j, 1.0 - step, saved) || try_chain(s, j, 1.0 / (1.0 - step), saved))
            return true;
    for (int k = 0; k < s->x->n_tasks; k++)
        if (try_value(s, k, s->sl[k] - 2.0 * step) || try_value(s, k, s->sl[k] + 2.0 * step))
            return true;
    return false;
}

double cm_mt_search(const cm_mt_inst *x, uint64_t budget, cm_mt_ws *w, double *sl, double *start,
                    uint64_t *evals)
{
    double *saved = malloc((size_t)x->n_tasks * sizeof *saved);
    searcher s = {x, w, sl, start, {0, 0}, 0, budget};
    s.best = evaluate(&s);
    for (double step = STEP0; saved && step >= STEP_MIN && s.evals < budget;)
        if (!explore(&s, step) && !poll(&s, step, saved))
            step /= 2.0;
    free(saved);
    /* Leave start as the schedule of the final slow-downs. */
    double makespan = cm_mt_rcls(x, sl, true, w, start, NULL);
    *evals += s.evals + 1;
    return makespan;
}

/* ---- the public list scheduler ---- */

static uint64_t default_budget(int n_tasks)
{
    uint64_t b = 500 + 40 * (uint64_t)n_tasks;
    return b > 20000 ? 20000 : b;
}

/* Instances this small also try every priority order of the networks: a list
 * scheduler never leaves a fitting task waiting, so which chain goes first matters. */
#define PERMUTE_TASKS 24
#define PERMUTE_JOBS 4

/* Alg. 1 lines 3-5 and 7-10 for the current ranks: the unconstrained schedule's
 * violations give sl0, the search starts from whichever of sl0 and no slow-down is
 * better. */
static double one_order(const cm_mt_inst *x, uint64_t budget, cm_mt_ws *w, double *sl,
                        double *start, uint64_t *evals)
{
    double *sl0 = malloc((size_t)x->n_tasks * sizeof *sl0);
    for (int k = 0; k < x->n_tasks; k++)
        sl[k] = 1.0;
    if (sl0) {
        cm_mt_rcls(x, sl, false, w, start, NULL);
        cm_mt_proposals(x, sl, start, w, sl0);
        double plain = cm_mt_rcls(x, sl, true, w, start, NULL);
        double proposed = cm_mt_rcls(x, sl0, true, w, start, NULL);
        *evals += 3;
        if (proposed < plain)
            memcpy(sl, sl0, (size_t)x->n_tasks * sizeof *sl);
        free(sl0);
    }
    return cm_mt_search(x, budget ? budget : default_budget(x->n_tasks), w, sl, start, evals);
}

/* The next permutation in lexicographic order; false after the last. */
static bool next_permutation(int *a, int n)
{
    int i = n - 2;
    while (i >= 0 && a[i] >= a[i + 1])
        i--;
    if (i < 0)
        return false;
    int j = n - 1;
    while (a[j] <= a[i])
        j--;
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
    for (int l = i + 1, r = n - 1; l < r; l++, r--) {
        t = a[l];
        a[l] = a[r];
        a[r] = t;
    }
    return true;
}

/* Every rank order after the default one; keeps the best slow-downs and ranks. */
static void try_orders(const cm_mt_inst *x, uint64_t budget, cm_mt_ws *w, double *sl,
                       double *best, int *best_rank, uint64_t *evals)
{
    const size_t n = (size_t)x->n_tasks;
    double *try_sl = malloc(n * sizeof *try_sl), *start = malloc(n * sizeof *start);
    for (int j = 0; j < x->n_jobs; j++)
        w->rank[j] = j;
    do {
        if (!try_sl || !start || cm_seconds_now() >= w->deadline)
            break;
        double m = one_order(x, budget, w, try_sl, start, evals);
        if (m < *best * (1.0 - 1e-12)) {
            *best = m;
            memcpy(sl, try_sl, n * sizeof *sl);
            memcpy(best_rank, w->rank, (size_t)x->n_jobs * sizeof *best_rank);
        }
    } while (next_permutation(w->rank, x->n_jobs));
    free(try_sl);
    free(start);
}

double cm_mt_schedule_instance(const cm_mt_inst *x, uint64_t budget, cm_mt_ws *w, double *sl,
                               double *start, uint64_t *evals)
{
    for (int j = 0; j < x->n_jobs; j++)
        w->rank[j] = 0;
    double best = one_order(x, budget, w, sl, start, evals);
    if (x->n_tasks > PERMUTE_TASKS || x->n_jobs > PERMUTE_JOBS)
        return best;
    int rank[PERMUTE_JOBS] = {0};
    try_orders(x, budget, w, sl, &best, rank, evals);
    memcpy(w->rank, rank, (size_t)x->n_jobs * sizeof *rank);
    return cm_mt_rcls(x, sl, true, w, start, NULL);
}

cm_status cm_mt_list_run(const cm_mt_inst *x, const void *ctx, double *sl, double *start,
                         double *period, bool *optimal, uint64_t *evals, cm_error *err)
{
    const cm_mt_list_limits *lim = ctx;
    cm_mt_ws w = {0};
    cm_status st = cm_mt_ws_init(x, &w, err);
    if (st == CM_OK) {
        w.deadline = lim->deadline;
        *period = cm_mt_schedule_instance(x, lim->budget, &w, sl, start, evals);
    }
    *optimal = false;
    cm_mt_ws_free(&w);
    return st;
}

cm_status cm_multi_schedule_list(const cm_multi_problem *p, uint64_t max_evaluations,
                                 cm_multi_schedule *out, cm_error *err)
{
    cm_mt_list_limits lim = {max_evaluations, INFINITY};
    cm_mt_solver s = {cm_mt_list_run, &lim};
    return cm_mt_solve(p, &s, out, err);
}
