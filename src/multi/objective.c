/* The objectives of f-CNNx (eqs. 5 and 6) and a lower bound on them that prunes joint
 * design points before any scheduling: the fluid bound, where every network runs at a
 * constant rate, no faster than its engine alone, and the bytes all networks move per
 * second fit the bandwidth (slow-downs change when bytes move, never how many). */
#include "multi/multi_internal.h"

#include <math.h>

/* One network's term: ((min(fps, cap) - norm) / norm)^2. */
static double term(double fps, double norm, double cap)
{
    double r = fmin(fps, cap) / norm - 1.0;
    return r * r;
}

double cm_mt_objective(const cm_mt_goal *g, const double *fps)
{
    double v = 0.0;
    for (int i = 0; i < g->n; i++)
        v += term(fps[i], g->norm[i], g->cap[i]);
    return v;
}

/* Rates at multiplier lambda: the stationary point of term_i + lambda c_i f_i, clipped. */
static double rates(const cm_mt_goal *g, const double *u, const double *c, double lambda,
                    double *f)
{
    double bytes = 0.0;
    for (int i = 0; i < g->n; i++) {
        double a = g->norm[i], top = fmin(u[i], g->cap[i]);
        double v = a * (1.0 - lambda * c[i] * a / 2.0);
        f[i] = fmax(0.0, fmin(top, v));
        bytes += f[i] * c[i];
    }
    return bytes;
}

double cm_mt_fluid_bound(const cm_mt_goal *g, const double *u, const double *c, double bandwidth,
                         double *f)
{
    if (rates(g, u, c, 0.0, f) > bandwidth) {
        /* The terms are convex and decreasing up to the cap, so the bytes fall with
         * lambda: bisect for the multiplier that spends exactly the bandwidth. */
        double lo = 0.0, hi = 1.0;
        while (rates(g, u, c, hi, f) > bandwidth && hi < 1e300)
            hi *= 2.0;
        for (int it = 0; it < 200; it++) {
            double mid = 0.5 * (lo + hi);
            if (rates(g, u, c, mid, f) > bandwidth)
                lo = mid;
            else
                hi = mid;
        }
        rates(g, u, c, hi, f);
    }
    return cm_mt_objective(g, f);
}
