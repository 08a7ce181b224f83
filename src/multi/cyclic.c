/* Cyclic schedules of one joint design point (f-CNNx III-C): the period K holds rep(i)
 * inferences of network i, so network i runs at rep(i) / K fps. The repetition vectors
 * tried follow the point's fluid rates (rep(i) proportional to them, rounded, for
 * growing periods); each is scheduled by the list scheduler with slow-downs (Alg. 1) or
 * by the ILP, and skipped when a simple bound on its period (each chain alone, and all
 * bytes through B_mem) cannot beat the best schedule found. */
#include "multi/dse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Repetition vectors, max_repetitions x n, distinct; returns how many. */
static int rep_vectors(const cm_mt_dse *d, const double *f, int *reps)
{
    const int n = d->n, max = d->o->max_repetitions < 1 ? 1 : d->o->max_repetitions;
    double top = 0.0;
    for (int i = 0; i < n; i++)
        top = fmax(top, f[i]);
    int count = 0;
    for (int m = 1; m <= max; m++) {
        int *r = &reps[count * n];
        for (int i = 0; i < n; i++) {
            long v = top > 0 ? lround(m * f[i] / top) : 1;
            r[i] = v < 1 ? 1 : (int)v;
        }
        if (count == 0 || memcmp(r, &reps[(count - 1) * n], (size_t)n * sizeof *r) != 0)
            count++;
    }
    return count;
}

/* The objective if the period were its lower bound. */
static double quick_bound(const cm_mt_dse *d, const cm_multi_engine *const *e, const int *r)
{
    double k = 0.0, bytes = 0.0, fps[d->n];
    for (int i = 0; i < d->n; i++) {
        k = fmax(k, r[i] * e[i]->latency_s);
        bytes += r[i] * e[i]->bytes;
    }
    k = fmax(k, bytes / d->bandwidth);
    for (int i = 0; i < d->n; i++)
        fps[i] = r[i] / k;
    return cm_mt_objective(&d->goal, fps);
}

static int executions(const cm_mt_dse *d, const cm_multi_engine *const *e, const int *r)
{
    int t = 0;
    for (int i = 0; i < d->n; i++)
        t += r[i] * e[i]->n_subgraphs;
    return t;
}

/* The slow-down search's budget inside the exploration, smaller than the scheduler's
 * own: it runs for many joint points, and the best one is what matters. */
static uint64_t dse_budget(int n_tasks)
{
    uint64_t b = 500 + 10 * (uint64_t)n_tasks;
    return b > 6000 ? 6000 : b;
}

/* The chosen scheduler as a solver; a screening run stops after the proposals. */
typedef struct run_ctx {
    const cm_multi_options *o;
    bool screen;
    double deadline;
} run_ctx;

static cm_status run(const cm_mt_inst *x, const void *ctx, double *sl, double *start,
                     double *period, bool *optimal, uint64_t *evals, cm_error *err)
{
    const run_ctx *c = ctx;
    if (c->o->scheduler == CM_MULTI_ILP && !c->screen)
        return cm_mt_ilp(x, c->o->ilp_modes, c->deadline, sl, start, period, optimal, err);
    cm_mt_list_limits lim = {c->screen ? 1 : dse_budget(x->n_tasks), c->deadline};
    return cm_mt_list_run(x, &lim, sl, start, period, optimal, evals, err);
}

/* Schedules one repetition vector; *value gets its objective. A screening run keeps
 * nothing. */
static cm_status schedule_reps(cm_mt_dse *d, const int *idx, const cm_multi_engine *const *e,
                               const int *r, bool screen, double *value, cm_error *err)
{
    cm_multi_job jobs[d->n];
    double buf[2 * (executions(d, e, r) + 1)];
    int used = 0;
    for (int i = 0; i < d->n; i++) {
        double *l = &buf[used], *b = &buf[used + e[i]->n_subgraphs];
        for (int s = 0; s < e[i]->n_subgraphs; s++) {
            l[s] = e[i]->subgraphs[s].latency_s;
            b[s] = e[i]->subgraphs[s].bytes;
        }
        used += 2 * e[i]->n_subgraphs;
        jobs[i] = (cm_multi_job){e[i]->n_subgraphs, l, b, r[i]};
    }
    cm_multi_problem p = {d->n, jobs, d->bandwidth};
    run_ctx c = {d->o, screen, d->deadline};
    cm_mt_solver solver = {run, &c};
    cm_multi_schedule s;
    cm_status st = cm_mt_solve(&p, &solver, &s, err);
    /* The work budget counts what the schedules cost: each evaluation lays out every
     * execution of the period. The solvers stop at the deadline with the best schedule
     * they have. */
    if (st == CM_OK)
        d->work += (s.evaluations + 1) * (uint64_t)executions(d, e, r);
    cm_mt_out_of_time(d);
    if (st == CM_OK) {
        double fps[d->n];
        for (int i = 0; i < d->n; i++)
            fps[i] = r[i] / s.period_s;
        *value = cm_mt_objective(&d->goal, fps);
        if (!screen)
            cm_mt_keep_best(d, idx, *value, &s);
    }
    cm_multi_schedule_free(&s);
    return st;
}

/* Whether the chosen scheduler takes this many executions; records ILP refusals. */
static bool within_limit(cm_mt_dse *d, int tasks)
{
    if (d->o->scheduler != CM_MULTI_ILP)
        return tasks <= d->o->max_tasks;
    if (d->ilp_smallest == 0 || tasks < d->ilp_smallest)
        d->ilp_smallest = tasks;
    bool fits = tasks <= d->o->ilp_max_tasks;
    d->ilp_fits |= fits;
    return fits;
}

/* The list scheduler searches slow-downs only for the SEARCHED repetition vectors
 * whose proposals alone schedule best; the ILP solves every vector it takes. */
#define SEARCHED 2

/* Screens every vector (value INFINITY when skipped); returns the indices of the best
 * SEARCHED ones in pick (-1 when fewer). */
static cm_status screen(cm_mt_dse *d, const int *idx, const cm_multi_engine *const *e,
                        const int *reps, int count, int *pick, cm_error *err)
{
    double best[SEARCHED];
    for (int q = 0; q < SEARCHED; q++) {
        pick[q] = -1;
        best[q] = INFINITY;
    }
    cm_status st = CM_OK;
    for (int v = 0; st == CM_OK && v < count; v++) {
        const int *r = &reps[v * d->n];
        double value = INFINITY;
        if (cm_mt_out_of_time(d))
            break;
        if (!within_limit(d, executions(d, e, r)))
            continue;
        if (d->best_set && quick_bound(d, e, r) >= d->best_value * (1.0 - 1e-9) - 1e-12)
            continue;
        st = schedule_reps(d, idx, e, r, true, &value, err);
        for (int q = 0; st == CM_OK && q < SEARCHED; q++)
            if (value < best[q]) {
                for (int z = SEARCHED - 1; z > q; z--) {
                    best[z] = best[z - 1];
                    pick[z] = pick[z - 1];
                }
                best[q] = value;
                pick[q] = v;
                break;
            }
    }
    return st;
}

cm_status cm_mt_cyclic(cm_mt_dse *d, const int *idx, cm_error *err)
{
    const int n = d->n, max = d->o->max_repetitions < 1 ? 1 : d->o->max_repetitions;
    const cm_multi_engine *e[n];
    double u[n], c[n], f[n];
    for (int i = 0; i < n; i++) {
        e[i] = &d->r->models[i].front[idx[i]];
        u[i] = 1.0 / e[i]->latency_s;
        c[i] = e[i]->bytes;
    }
    cm_mt_fluid_bound(&d->goal, u, c, d->bandwidth, f);
    int *reps = malloc((size_t)max * (size_t)n * sizeof *reps);
    if (!reps)
        return cm_error_nomem(err);
    int count = rep_vectors(d, f, reps), pick[SEARCHED];
    cm_status st = CM_OK;
    double value;
    if (d->o->scheduler == CM_MULTI_ILP) {
        for (int v = 0; st == CM_OK && v < count && !cm_mt_out_of_time(d); v++)
            if (within_limit(d, executions(d, e, &reps[v * n])) &&
                (!d->best_set ||
                 quick_bound(d, e, &reps[v * n]) < d->best_value * (1.0 - 1e-9) - 1e-12))
                st = schedule_reps(d, idx, e, &reps[v * n], false, &value, err);
    } else {
        st = screen(d, idx, e, reps, count, pick, err);
        for (int q = 0; st == CM_OK && q < SEARCHED && pick[q] >= 0 && !cm_mt_out_of_time(d); q++)
            st = schedule_reps(d, idx, e, &reps[pick[q] * n], false, &value, err);
    }
    free(reps);
    return st;
}
