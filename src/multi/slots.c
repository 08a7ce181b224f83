/* Slow-downs (eq. 4) and the multi-CNN hardware scheduler's rate control (f-CNNx
 * III-D, eq. 7): time is cut into slots of one burst (burst_length cycles); in each
 * round every active engine owns a run of consecutive slots, in round-robin order, so a
 * subgraph with slots(s) of a round's total receives that fraction of B_mem. The slot
 * counts solve eq. 7 with the supplied bandwidth set to the slowed-down demand b'(s).
 * Also the public schedule record filled from the schedulers' arrays. */
#include "multi/multi_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cm_multi_slow_down(double sl, double latency, double bandwidth, double *latency_out,
                        double *bandwidth_out)
{
    *latency_out = latency / sl;
    *bandwidth_out = sl * bandwidth;
}

static int rounded_slots(double fraction, int q)
{
    long v = lround(fraction * q);
    return v < 1 ? 1 : (int)v;
}

/* The largest gap between a count's fraction of q and the wanted fraction. */
static double slot_error(const double *need, int n, double available, int q)
{
    double worst = 0.0;
    for (int k = 0; k < n; k++) {
        double f = need[k] / available;
        worst = fmax(worst, fabs((double)rounded_slots(f, q) / q - f));
    }
    return worst;
}

void cm_multi_slots(const double *need, int n, double available, int max_slots, int *slots)
{
    if (max_slots < 1)
        max_slots = 1;
    int q = max_slots;
    for (int t = 1; t < max_slots; t++)
        if (slot_error(need, n, available, t) <= 0.5 / max_slots) {
            q = t;
            break;
        }
    for (int k = 0; k < n; k++)
        slots[k] = rounded_slots(need[k] / available, q);
}

void cm_multi_slot_shares(const int *slots, int n, double *share)
{
    long total = 0;
    for (int k = 0; k < n; k++)
        total += slots[k];
    for (int k = 0; k < n; k++)
        share[k] = total > 0 ? (double)slots[k] / (double)total : 0.0;
}

int64_t cm_multi_slot_rounds(int64_t words, int slots, int burst_length, double words_per_cycle)
{
    double per_round = (double)slots * burst_length * words_per_cycle;
    if (words <= 0 || !(per_round > 0))
        return 0;
    return (int64_t)ceil((double)words / per_round - 1e-9);
}

/* Slots of the round task k starts in: its own and those of the other engines' tasks
 * running then (cyclic), or every engine's fixed count (partitioned). */
static long round_slots(const cm_multi_schedule *s, int k)
{
    const cm_multi_task *a = &s->tasks[k];
    long total = a->slots;
    for (int i = 0; i < s->n_tasks; i++) {
        const cm_multi_task *b = &s->tasks[i];
        if (b->model == a->model)
            continue;
        if (s->kind == CM_MULTI_PARTITIONED ? b->subgraph == 0
                                            : b->start_s <= a->start_s &&
                                                  a->start_s < b->start_s + b->latency_s)
            total += b->slots;
    }
    return total;
}

/* Each task's demand b'(s); partitioned engines get their whole share every round. */
static void demands(const cm_multi_schedule *s, double bandwidth, double *need)
{
    for (int k = 0; k < s->n_tasks; k++)
        need[k] = s->kind == CM_MULTI_PARTITIONED ? s->share[s->tasks[k].model] * bandwidth
                                                  : s->tasks[k].bandwidth;
}

void cm_mt_slot_table(cm_multi_schedule *s, const cm_multi_options *o, double bandwidth,
                      double words_per_cycle, int word_bits)
{
    double *need = calloc((size_t)s->n_tasks + 1, sizeof *need);
    int *slots = malloc(((size_t)s->n_tasks + 1) * sizeof *slots);
    if (need && slots) {
        demands(s, bandwidth, need);
        cm_multi_slots(need, s->n_tasks, bandwidth, o->max_slots, slots);
        for (int k = 0; k < s->n_tasks; k++)
            s->tasks[k].slots = slots[k];
        for (int k = 0; k < s->n_tasks; k++) {
            cm_multi_task *t = &s->tasks[k];
            long total = round_slots(s, k);
            t->share = total > 0 ? (double)t->slots / (double)total : 0.0;
            t->words = llround(t->bandwidth * t->latency_s / (word_bits / 8.0));
            t->rounds = cm_multi_slot_rounds(t->words, t->slots, o->burst_length, words_per_cycle);
        }
    }
    free(need);
    free(slots);
}

/* ---- the public schedule record ---- */

void cm_multi_schedule_free(cm_multi_schedule *s)
{
    free(s->repetitions);
    free(s->cycle_s);
    free(s->share);
    free(s->tasks);
    memset(s, 0, sizeof *s);
}

static cm_status alloc_schedule(int n_engines, int n_tasks, cm_multi_schedule *out, cm_error *err)
{
    memset(out, 0, sizeof *out);
    out->repetitions = calloc((size_t)n_engines, sizeof *out->repetitions);
    out->cycle_s = calloc((size_t)n_engines, sizeof *out->cycle_s);
    out->share = calloc((size_t)n_engines, sizeof *out->share);
    out->tasks = calloc((size_t)n_tasks + 1, sizeof *out->tasks);
    if (!out->repetitions || !out->cycle_s || !out->share || !out->tasks) {
        cm_multi_schedule_free(out);
        return cm_error_nomem(err);
    }
    out->n_engines = n_engines;
    out->n_tasks = n_tasks;
    return CM_OK;
}

cm_status cm_mt_fill_schedule(const cm_mt_inst *x, const double *sl, const double *start,
                              double period, cm_multi_schedule *out, cm_error *err)
{
    cm_status st = alloc_schedule(x->n_jobs, x->n_tasks, out, err);
    if (st != CM_OK)
        return st;
    out->kind = CM_MULTI_CYCLIC;
    out->period_s = period;
    for (int j = 0; j < x->n_jobs; j++) {
        out->cycle_s[j] = period;
        out->repetitions[j] = x->t[x->first[j + 1] - 1].rep + 1;
    }
    for (int k = 0; k < x->n_tasks; k++) {
        const cm_mt_task *t = &x->t[k];
        cm_multi_task *o = &out->tasks[k];
        o->model = t->job;
        o->subgraph = t->sub;
        o->repetition = t->rep;
        o->start_s = start[k];
        o->slowdown = sl[k];
        cm_multi_slow_down(sl[k], t->latency, t->bw, &o->latency_s, &o->bandwidth);
    }
    return CM_OK;
}

cm_status cm_mt_partition_schedule(const cm_multi_engine *const *e, int n, const double *share,
                                   double bandwidth, cm_multi_schedule *out, cm_error *err)
{
    int total = 0;
    for (int i = 0; i < n; i++)
        total += e[i]->n_subgraphs;
    cm_status st = alloc_schedule(n, total, out, err);
    if (st != CM_OK)
        return st;
    out->kind = CM_MULTI_PARTITIONED;
    int k = 0;
    for (int i = 0; i < n; i++) {
        double t = 0.0, avail = share[i] * bandwidth;
        out->repetitions[i] = 1;
        out->share[i] = share[i];
        for (int s = 0; s < e[i]->n_subgraphs; s++, k++) {
            const cm_multi_subgraph *g = &e[i]->subgraphs[s];
            double sl = g->bandwidth > avail ? avail / g->bandwidth : 1.0;
            cm_multi_task *o = &out->tasks[k];
            *o = (cm_multi_task){.model = i, .subgraph = s, .start_s = t, .slowdown = sl};
            cm_multi_slow_down(sl, g->latency_s, g->bandwidth, &o->latency_s, &o->bandwidth);
            t += o->latency_s;
        }
        out->cycle_s[i] = t;
    }
    return CM_OK;
}

cm_status cm_mt_solve(const cm_multi_problem *p, const cm_mt_solver *solver,
                      cm_multi_schedule *out, cm_error *err)
{
    memset(out, 0, sizeof *out);
    cm_mt_inst x;
    cm_status st = cm_mt_inst_build(p, &x, err);
    if (st != CM_OK)
        return st;
    double *sl = malloc((size_t)x.n_tasks * sizeof *sl);
    double *start = malloc((size_t)x.n_tasks * sizeof *start);
    double period = 0.0;
    bool optimal = false;
    uint64_t evals = 0;
    st = sl && start ? solver->run(&x, solver->ctx, sl, start, &period, &optimal, &evals, err)
                     : cm_error_nomem(err);
    if (st == CM_OK)
        st = cm_mt_fill_schedule(&x, sl, start, period, out, err);
    out->optimal = optimal;
    out->evaluations = evals;
    free(sl);
    free(start);
    cm_mt_inst_free(&x);
    return st;
}
