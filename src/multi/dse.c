/* The memory-aware design-space exploration (f-CNNx III-B, Alg. 1): every combination
 * of Pareto-front engines whose summed resources fit the board is a joint design
 * point; each is scheduled (a rate-partitioned schedule with searched shares, and a
 * cyclic schedule per candidate repetition vector by the list scheduler with
 * slow-downs, or by the ILP) and the point with the lowest objective wins. Points are
 * visited in order of their fluid bound, and the visit stops once no remaining bound
 * can beat the best found, so the result is the one the full enumeration gives. */
#include "multi/dse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/progress.h"

bool cm_mt_out_of_time(cm_mt_dse *d)
{
    if (!d->stopped && (d->work >= d->work_budget || cm_seconds_now() >= d->deadline))
        d->stopped = true;
    return d->stopped;
}

/* ---- interchangeable networks ---- */

static bool same_engine(const cm_multi_engine *a, const cm_multi_engine *b)
{
    if (a->latency_s != b->latency_s || a->bytes != b->bytes || a->n_subgraphs != b->n_subgraphs ||
        memcmp(&a->resources, &b->resources, sizeof a->resources) != 0)
        return false;
    for (int s = 0; s < a->n_subgraphs; s++)
        if (a->subgraphs[s].latency_s != b->subgraphs[s].latency_s ||
            a->subgraphs[s].bytes != b->subgraphs[s].bytes)
            return false;
    return true;
}

static bool same_network(const cm_mt_dse *d, int i, int j)
{
    const cm_multi_model *a = &d->r->models[i], *b = &d->r->models[j];
    if (a->n_front != b->n_front || d->norm[i] != d->norm[j] || d->cap[i] != d->cap[j])
        return false;
    for (int k = 0; k < a->n_front; k++)
        if (!same_engine(&a->front[k], &b->front[k]))
            return false;
    return true;
}

/* Copies of one network (f-CNNx's sets repeat CIFAR-10) give joint points that only
 * permute engines among themselves; their schedules are the same problem with the
 * jobs renamed, so one of them stands for all: the one whose engine indices do not
 * decrease along each group of twins. Of the 1,828 points of five LeNets that fit a
 * ZC706, 75 remain. */
void cm_mt_find_twins(cm_mt_dse *d)
{
    for (int i = 0; i < d->n; i++) {
        d->twin[i] = -1;
        for (int j = i - 1; j >= 0 && d->twin[i] < 0; j--)
            if (same_network(d, i, j))
                d->twin[i] = j;
    }
}

static bool canonical(const cm_mt_dse *d, const int *idx)
{
    for (int i = 0; i < d->n; i++)
        if (d->twin[i] >= 0 && idx[d->twin[i]] > idx[i])
            return false;
    return true;
}

/* ---- joint design points ---- */

static const cm_multi_engine *engine(const cm_mt_dse *d, const int *idx, int i)
{
    return &d->r->models[i].front[idx[i]];
}

static bool next_index(const cm_mt_dse *d, int *idx)
{
    for (int i = d->n - 1; i >= 0; i--) {
        if (++idx[i] < d->r->models[i].n_front)
            return true;
        idx[i] = 0;
    }
    return false;
}

static bool fits(const cm_mt_dse *d, const int *idx, cm_resources *sum)
{
    memset(sum, 0, sizeof *sum);
    for (int i = 0; i < d->n; i++)
        cm_resources_add(sum, &engine(d, idx, i)->resources);
    return cm_resources_fit(sum, &d->board->resources);
}

/* The fluid bound of a point, and its objective if each engine had B_mem to itself. */
static void bounds(cm_mt_dse *d, const int *idx, double *bound, double *alone)
{
    for (int i = 0; i < d->n; i++) {
        const cm_multi_engine *e = engine(d, idx, i);
        d->u[i] = 1.0 / e->latency_s;
        d->c[i] = e->bytes;
    }
    *alone = cm_mt_objective(&d->goal, d->u);
    *bound = cm_mt_fluid_bound(&d->goal, d->u, d->c, d->bandwidth, d->f);
}

static cm_status add_candidate(cm_mt_dse *d, const int *idx, cm_error *err)
{
    if (d->n_cands == d->cap_cands) {
        int cap = d->cap_cands * 2 + 64;
        cm_mt_cand *c = realloc(d->cands, (size_t)cap * sizeof *c);
        int *e = realloc(d->cand_idx, (size_t)cap * (size_t)d->n * sizeof *e);
        if (c)
            d->cands = c;
        if (e)
            d->cand_idx = e;
        if (!c || !e)
            return cm_error_nomem(err);
        d->cap_cands = cap;
    }
    cm_mt_cand *c = &d->cands[d->n_cands];
    c->index = d->n_cands;
    bounds(d, idx, &c->bound, &c->alone);
    memcpy(&d->cand_idx[(size_t)d->n_cands * d->n], idx, (size_t)d->n * sizeof *idx);
    d->n_cands++;
    return CM_OK;
}

cm_status cm_mt_enumerate(cm_mt_dse *d, cm_error *err)
{
    int idx[d->n];
    memset(idx, 0, sizeof idx);
    do {
        cm_resources sum;
        /* The count of points grows as the product of the fronts. Without a fitting
         * point there is nothing to return, so the enumeration goes on until one. */
        if ((d->r->joint_points & 4095) == 4095 && d->n_cands > 0 && cm_mt_out_of_time(d))
            break;
        d->r->joint_points++;
        if (!fits(d, idx, &sum))
            continue;
        d->r->joint_feasible++;
        if (!canonical(d, idx))
            continue;
        d->r->joint_distinct++;
        cm_status st = add_candidate(d, idx, err);
        if (st != CM_OK)
            return st;
    } while (next_index(d, idx));
    return CM_OK;
}

static int by_bound(const void *a, const void *b)
{
    const cm_mt_cand *x = a, *y = b;
    if (x->bound != y->bound)
        return x->bound < y->bound ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* The contention-unaware choice: best when every engine owns B_mem (first on ties). */
static int baseline_candidate(const cm_mt_dse *d)
{
    int best = 0;
    for (int k = 1; k < d->n_cands; k++)
        if (d->cands[k].alone < d->cands[best].alone)
            best = k;
    return best;
}

/* ---- scheduling one point ---- */

void cm_mt_keep_best(cm_mt_dse *d, const int *idx, double value, cm_multi_schedule *s)
{
    if (d->best_set && !(value < d->best_value * (1.0 - 1e-12)))
        return;
    cm_multi_schedule_free(&d->best);
    d->best = *s;
    memset(s, 0, sizeof *s);
    d->best_value = value;
    d->best_set = true;
    memcpy(d->best_idx, idx, (size_t)d->n * sizeof *idx);
}

static cm_status partitioned(cm_mt_dse *d, const int *idx, cm_error *err)
{
    const cm_multi_engine *e[d->n];
    double share[d->n], fps[d->n];
    for (int i = 0; i < d->n; i++)
        e[i] = engine(d, idx, i);
    double v = cm_mt_partition_search(e, d->n, &d->goal, d->bandwidth, share, fps);
    if (d->best_set && !(v < d->best_value * (1.0 - 1e-12)))
        return CM_OK;
    cm_multi_schedule s;
    cm_status st = cm_mt_partition_schedule(e, d->n, share, d->bandwidth, &s, err);
    if (st == CM_OK)
        cm_mt_keep_best(d, idx, v, &s);
    cm_multi_schedule_free(&s);
    return st;
}

cm_status cm_mt_schedule_point(cm_mt_dse *d, const int *idx, cm_error *err)
{
    d->r->joint_scheduled++;
    cm_status st = partitioned(d, idx, err);
    if (st == CM_OK)
        st = cm_mt_cyclic(d, idx, err);
    return st;
}

/* ---- the exploration ---- */

static void baseline(cm_mt_dse *d, const int *idx)
{
    for (int i = 0; i < d->n; i++)
        d->r->models[i].baseline_engine = idx[i];
    cm_mt_baseline_figures(d->r, &d->goal);
}

cm_status cm_mt_explore(cm_mt_dse *d, cm_error *err)
{
    int first = baseline_candidate(d);
    const int *base = &d->cand_idx[(size_t)d->cands[first].index * d->n];
    baseline(d, base);
    cm_status st = cm_mt_schedule_point(d, base, err);
    int base_index = d->cands[first].index;
    qsort(d->cands, (size_t)d->n_cands, sizeof *d->cands, by_bound);
    for (int k = 0; st == CM_OK && k < d->n_cands; k++) {
        if (d->cands[k].bound >= d->best_value * (1.0 - 1e-9) - 1e-12)
            break;
        if (cm_mt_out_of_time(d))
            break;
        if (d->cands[k].index != base_index)
            st = cm_mt_schedule_point(d, &d->cand_idx[(size_t)d->cands[k].index * d->n], err);
    }
    return st;
}
