/* Pareto fronts of a sweep: per board and backend, the feasible points that no other
 * point beats on both the share of the board used and the latency. */
#include <cnnmap/sweep.h>

#include <stdio.h>

#include "sweep/sweep_internal.h"

/* Whether q is at least as good as p on both axes (q dominates p, or equals it). */
static bool covers(const cm_sweep_point *q, const cm_sweep_point *p)
{
    return q->util <= p->util && q->latency_s <= p->latency_s;
}

static bool same_group(const cm_sweep_point *a, const cm_sweep_point *b)
{
    return a->board == b->board && a->backend == b->backend;
}

static bool usable(const cm_sweep_point *p) { return p->done && p->built && p->feasible; }

/* p is on the front unless another point covers it and is strictly better on an axis,
 * or an earlier point equals it (so that equal points appear once). */
static bool on_front(const cm_sweep_result *r, int i)
{
    const cm_sweep_point *p = &r->points[i];
    for (int j = 0; j < r->n_points; j++) {
        const cm_sweep_point *q = &r->points[j];
        if (j == i || !usable(q) || !same_group(p, q) || !covers(q, p))
            continue;
        bool equal = q->util == p->util && q->latency_s == p->latency_s;
        if (!equal || j < i)
            return false;
    }
    return true;
}

void cm_sweep_mark_fronts(cm_sweep_result *r)
{
    for (int i = 0; i < r->n_points; i++)
        r->points[i].on_front = usable(&r->points[i]) && on_front(r, i);
}

int cm_sweep_front_order(const cm_sweep_options *o, const cm_sweep_result *r, int b, int k,
                         int *out)
{
    int n = 0;
    for (int i = 0; i < r->n_points && n < o->steps; i++) {
        const cm_sweep_point *p = &r->points[i];
        if (p->board != b || p->backend != k || !p->on_front)
            continue;
        int at = n++; /* insertion by utilisation: a front has at most `steps` points */
        while (at > 0 && r->points[out[at - 1]].util > p->util) {
            out[at] = out[at - 1];
            at--;
        }
        out[at] = i;
    }
    return n;
}

/* The first point of each board and backend that could not be built, in order. */
static int refusal(const cm_sweep_options *o, const cm_sweep_result *r, int nth)
{
    for (int i = 0; i < r->n_points; i += o->steps)
        for (int j = i; j < i + o->steps; j++)
            if (r->points[j].error[0]) {
                if (nth-- == 0)
                    return j;
                break;
            }
    return -1;
}

bool cm_sweep_warning(const cm_sweep_options *o, const cm_sweep_result *r, int i, char *text,
                      size_t size)
{
    if (r->stopped_early && i-- == 0) {
        snprintf(text, size, "the time limit of %g s stopped the sweep after %d of %d points",
                 o->time_limit_s, r->points_done, r->n_points);
        return true;
    }
    int stopped = 0;
    for (int j = 0; j < r->n_points; j++)
        stopped += r->points[j].done && r->points[j].stopped_early;
    if (stopped > 0 && i-- == 0) {
        snprintf(text, size, "%d point%s' optimiser stopped at its budget or the time limit: "
                 "the best design found, not proven best", stopped, stopped == 1 ? "" : "s");
        return true;
    }
    int j = refusal(o, r, i);
    if (j < 0)
        return false;
    const cm_sweep_point *p = &r->points[j];
    snprintf(text, size, "%s on %s: %s", cm_backend_name(o->backends[p->backend]),
             o->boards[p->board].name, p->error);
    return true;
}
