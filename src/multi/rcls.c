/* Resource-constrained list scheduling of the subgraph executions of one period
 * (f-CNNx III-C, with De Micheli's RCLS): the networks' subgraphs form one chain per
 * engine (an engine runs one subgraph at a time, in order, repetition after
 * repetition) and the only shared resource is the off-chip bandwidth. Also the
 * slow-down proposals of Alg. 1 (lines 3-5) from an unconstrained schedule. */
#include "multi/multi_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Relative tolerance on times and bandwidths: sums of doubles must not turn a schedule
 * that fits exactly into a violation. */
#define EPS 1e-9

static cm_status add_job(const cm_multi_job *j, int job, cm_mt_inst *x, int *k, cm_error *err)
{
    for (int r = 0; r < j->repetitions; r++)
        for (int s = 0; s < j->n_subgraphs; s++) {
            double l = j->latency_s[s], b = j->bytes[s];
            if (!(l > 0) || !(b >= 0) || !isfinite(l) || !isfinite(b))
                return cm_error_set(err, CM_EUSAGE, "job %d subgraph %d: latency must be positive "
                                    "and bytes non-negative", job, s);
            x->t[*k] = (cm_mt_task){job, s, r, l, b, b / l};
            (*k)++;
        }
    return CM_OK;
}

cm_status cm_mt_inst_build(const cm_multi_problem *p, cm_mt_inst *x, cm_error *err)
{
    memset(x, 0, sizeof *x);
    if (p->n_jobs < 1 || !(p->bandwidth > 0))
        return cm_error_set(err, CM_EUSAGE, "a schedule needs jobs and a positive bandwidth");
    long total = 0;
    for (int j = 0; j < p->n_jobs; j++) {
        if (p->jobs[j].n_subgraphs < 1 || p->jobs[j].repetitions < 1)
            return cm_error_set(err, CM_EUSAGE, "job %d: no subgraphs or repetitions", j);
        total += (long)p->jobs[j].n_subgraphs * p->jobs[j].repetitions;
    }
    x->first = malloc(((size_t)p->n_jobs + 1) * sizeof *x->first);
    x->t = malloc((size_t)total * sizeof *x->t);
    if (!x->first || !x->t) {
        cm_mt_inst_free(x);
        return cm_error_nomem(err);
    }
    x->n_jobs = p->n_jobs;
    x->bandwidth = p->bandwidth;
    int k = 0;
    for (int j = 0; j < p->n_jobs; j++) {
        x->first[j] = k;
        cm_status st = add_job(&p->jobs[j], j, x, &k, err);
        if (st != CM_OK) {
            cm_mt_inst_free(x);
            return st;
        }
    }
    x->first[p->n_jobs] = x->n_tasks = k;
    return CM_OK;
}

void cm_mt_inst_free(cm_mt_inst *x)
{
    free(x->first);
    free(x->t);
    memset(x, 0, sizeof *x);
}

cm_status cm_mt_ws_init(const cm_mt_inst *x, cm_mt_ws *w, cm_error *err)
{
    size_t j = (size_t)x->n_jobs, n = (size_t)x->n_tasks;
    w->deadline = INFINITY;
    w->next = malloc(j * sizeof *w->next);
    w->busy = malloc(j * sizeof *w->busy);
    w->order = malloc(j * sizeof *w->order);
    w->rank = calloc(j, sizeof *w->rank);
    w->ready = malloc(j * sizeof *w->ready);
    w->remaining = malloc(j * sizeof *w->remaining);
    w->load = malloc(n * sizeof *w->load);
    w->end = malloc(n * sizeof *w->end);
    w->by_start = malloc(n * sizeof *w->by_start);
    if (w->next && w->busy && w->order && w->rank && w->ready && w->remaining && w->load && w->end &&
        w->by_start)
        return CM_OK;
    cm_mt_ws_free(w);
    return cm_error_nomem(err);
}

void cm_mt_ws_free(cm_mt_ws *w)
{
    free(w->next);
    free(w->busy);
    free(w->order);
    free(w->rank);
    free(w->ready);
    free(w->remaining);
    free(w->load);
    free(w->end);
    free(w->by_start);
    memset(w, 0, sizeof *w);
}

static void reset(const cm_mt_inst *x, const double *sl, cm_mt_ws *w)
{
    for (int j = 0; j < x->n_jobs; j++) {
        w->next[j] = x->first[j];
        w->busy[j] = -1;
        w->ready[j] = 0.0;
        w->remaining[j] = 0.0;
        for (int k = x->first[j]; k < x->first[j + 1]; k++)
            w->remaining[j] += x->t[k].latency / sl[k];
    }
}

/* Whether ready job a goes before job b. */
static bool first(const cm_mt_ws *w, int a, int b)
{
    if (w->rank[a] != w->rank[b])
        return w->rank[a] < w->rank[b];
    return w->remaining[a] > w->remaining[b];
}

/* Idle jobs with a ready task at time t, by rank, then most remaining work first
 * (index on ties). */
static int candidates(const cm_mt_inst *x, const cm_mt_ws *w, double t)
{
    int n = 0;
    for (int j = 0; j < x->n_jobs; j++) {
        if (w->busy[j] >= 0 || w->next[j] >= x->first[j + 1] || w->ready[j] > t)
            continue;
        int i = n++;
        while (i > 0 && first(w, j, w->order[i - 1])) {
            w->order[i] = w->order[i - 1];
            i--;
        }
        w->order[i] = j;
    }
    return n;
}

/* Starts what fits at time t; returns the bandwidth in use afterwards. */
static double start_ready(const cm_mt_inst *x, const double *sl, bool limit, cm_mt_ws *w,
                          double t, double used, double *start)
{
    int n = candidates(x, w, t);
    for (int i = 0; i < n; i++) {
        int j = w->order[i], k = w->next[j];
        double b = x->t[k].bw * sl[k];
        bool idle = used <= 0.0;
        if (limit && !idle && used + b > x->bandwidth * (1.0 + EPS))
            continue;
        start[k] = t;
        w->end[k] = t + x->t[k].latency / sl[k];
        w->busy[j] = k;
        used += b;
    }
    return used;
}

double cm_mt_rcls(const cm_mt_inst *x, const double *sl, bool limit, cm_mt_ws *w, double *start,
                  double *flow)
{
    reset(x, sl, w);
    double t = 0.0, used = 0.0, makespan = 0.0, sum = 0.0;
    for (int done = 0; done < x->n_tasks;) {
        used = start_ready(x, sl, limit, w, t, used, start);
        double next = INFINITY;
        for (int j = 0; j < x->n_jobs; j++)
            if (w->busy[j] >= 0)
                next = fmin(next, w->end[w->busy[j]]);
        t = next;
        for (int j = 0; j < x->n_jobs; j++) {
            int k = w->busy[j];
            if (k < 0 || w->end[k] > t * (1.0 + EPS))
                continue;
            used = fmax(0.0, used - x->t[k].bw * sl[k]);
            w->ready[j] = w->end[k];
            w->remaining[j] -= x->t[k].latency / sl[k];
            w->busy[j] = -1;
            w->next[j]++;
            makespan = fmax(makespan, w->end[k]);
            sum += w->end[k];
            done++;
        }
        if (used < x->bandwidth * EPS)
            used = 0.0;
    }
    if (flow)
        *flow = sum;
    return makespan;
}

/* ---- proposals ---- */

/* Start-time order, index order on ties. */
static bool before(const double *start, int i, int j)
{
    return start[i] < start[j] || (start[i] == start[j] && i < j);
}

/* Task indices by start time: a merge of the chains, each already in start order. */
static void sort_by_start(const cm_mt_inst *x, const double *start, cm_mt_ws *w)
{
    for (int j = 0; j < x->n_jobs; j++)
        w->next[j] = x->first[j];
    for (int i = 0; i < x->n_tasks; i++) {
        int pick = -1;
        for (int j = 0; j < x->n_jobs; j++)
            if (w->next[j] < x->first[j + 1] &&
                (pick < 0 || before(start, w->next[j], w->next[pick])))
                pick = j;
        w->by_start[i] = w->next[pick]++;
    }
}

/* load[i]: the bandwidth demand at the i-th start (in start order). At most one task of
 * each chain runs at a time, so a pointer per chain finds the ones running. */
static void loads_at_starts(const cm_mt_inst *x, const double *sl, const double *start,
                            cm_mt_ws *w)
{
    for (int j = 0; j < x->n_jobs; j++)
        w->next[j] = x->first[j];
    for (int i = 0; i < x->n_tasks; i++) {
        double tau = start[w->by_start[i]], load = 0.0;
        for (int j = 0; j < x->n_jobs; j++) {
            int *k = &w->next[j];
            while (*k < x->first[j + 1] && start[*k] + x->t[*k].latency / sl[*k] <= tau)
                (*k)++;
            if (*k < x->first[j + 1] && start[*k] <= tau)
                load += x->t[*k].bw * sl[*k];
        }
        w->load[i] = load;
    }
}

void cm_mt_proposals(const cm_mt_inst *x, const double *sl, const double *start, cm_mt_ws *w,
                     double *sl0)
{
    sort_by_start(x, start, w);
    loads_at_starts(x, sl, start, w);
    for (int i = 0; i < x->n_tasks; i++) {
        int k = w->by_start[i];
        double end = start[k] + x->t[k].latency / sl[k], peak = 0.0;
        for (int q = i; q < x->n_tasks && start[w->by_start[q]] < end; q++)
            peak = fmax(peak, w->load[q]);
        /* Tasks that started before k and still run are in load[i] already. */
        double s = peak > x->bandwidth ? sl[k] * x->bandwidth / peak : sl[k];
        sl0[k] = fmax(CM_MT_MIN_SLOWDOWN, fmin(1.0, s));
    }
}
