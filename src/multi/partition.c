/* Rate-partitioned schedules: every engine runs its subgraphs back to back on its own,
 * each with a fixed fraction of B_mem (the hardware scheduler gives it the same run of
 * slots in every round). With the even split this is the contention-unaware baseline
 * of f-CNNx IV-C (every engine on its own asynchronous DMA, the bandwidth shared
 * evenly); with the shares searched for the objective it is one more family of
 * candidate schedules, which is why a scheduled design is never worse than the
 * baseline. A subgraph needing more than its engine's share is slowed down to it
 * (eq. 4). */
#include "multi/multi_internal.h"

#include <math.h>
#include <stdlib.h>

#define SHARE_STEP0 0.125
#define SHARE_STEP_MIN (1.0 / 1024.0)

double cm_mt_partition_time(const cm_multi_engine *e, double share, double bandwidth)
{
    double avail = share * bandwidth, t = 0.0;
    for (int s = 0; s < e->n_subgraphs; s++) {
        const cm_multi_subgraph *g = &e->subgraphs[s];
        t += avail > 0 ? fmax(g->latency_s, g->bytes / avail) : INFINITY;
    }
    return t;
}

static double value(const cm_multi_engine *const *e, int n, const cm_mt_goal *g, double bandwidth,
                    const double *share, double *fps)
{
    for (int i = 0; i < n; i++)
        fps[i] = 1.0 / cm_mt_partition_time(e[i], share[i], bandwidth);
    return cm_mt_objective(g, fps);
}

/* Moves `step` of the bandwidth from engine a to engine b when that is better. */
static bool try_move(const cm_multi_engine *const *e, int n, const cm_mt_goal *g,
                     double bandwidth, double *share, double *fps, double *best, int a, int b,
                     double step)
{
    if (share[a] - step <= 0.0)
        return false;
    share[a] -= step;
    share[b] += step;
    double v = value(e, n, g, bandwidth, share, fps);
    if (v < *best * (1.0 - 1e-12)) {
        *best = v;
        return true;
    }
    share[a] += step;
    share[b] -= step;
    return false;
}

static bool sweep(const cm_multi_engine *const *e, int n, const cm_mt_goal *g, double bandwidth,
                  double *share, double *fps, double *best, double step)
{
    bool improved = false;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            if (a != b)
                improved |= try_move(e, n, g, bandwidth, share, fps, best, a, b, step);
    return improved;
}

double cm_mt_partition_search(const cm_multi_engine *const *e, int n, const cm_mt_goal *g,
                              double bandwidth, double *share, double *fps)
{
    for (int i = 0; i < n; i++)
        share[i] = 1.0 / n;
    double best = value(e, n, g, bandwidth, share, fps);
    for (double step = SHARE_STEP0; step >= SHARE_STEP_MIN;)
        if (!sweep(e, n, g, bandwidth, share, fps, &best, step))
            step /= 2.0;
    return value(e, n, g, bandwidth, share, fps);
}
