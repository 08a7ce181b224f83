/* --target-fps: the least resources, by DSP then BRAM18, that reach a frame rate,
 * found by bisection on the limits the optimiser runs under. Bisection is exact when
 * the optimiser is: the best design under a limit is at least as good as under any
 * smaller one, so "reaches the rate" is monotone in the limit. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cnnmap/optimise.h>

#include "util/progress.h"

typedef struct target {
    cm_design *d;
    cm_optimise_options o;
    double fps, deadline; /* deadline 0: none */
    double enough_s;      /* the latency of a batch at fps: what a decision asks for */
    cm_optimise_result *r;
    cm_design_point *best; /* the last design that reached fps */
    cm_resources best_use; /* its largest use of each resource over partitions */
    int runs;
} target;

/* Runs the optimiser under `limits`; the design's rate when it fits, else 0. With
 * `decide`, exact only answers whether the rate is reachable (the first run instead
 * optimises, so that an unreachable rate is reported with the best one). */
static cm_status run_under(target *t, const cm_resources *limits, bool decide, double *fps,
                           cm_error *err)
{
    cm_design_set_limits(t->d, limits);
    cm_optimise_options o = t->o;
    /* a decision, not an optimisation: is there a design of the target's latency? */
    o.enough_s = decide ? t->enough_s : 0.0;
    if (t->deadline > 0)
        o.time_limit_s = fmax(t->deadline - cm_seconds_now(), 0.001);
    cm_optimise_result one;
    cm_status st = cm_optimise(t->d, &o, &one, err);
    if (st != CM_OK)
        return st;
    t->runs++;
    t->r->evaluations += one.evaluations;
    t->r->stopped_early |= one.stopped_early;
    cm_design_summary s;
    cm_design_summarise(t->d, &s);
    *fps = s.feasible ? s.throughput_fps : 0.0;
    if (*fps >= t->fps) {
        cm_design_point_capture(t->d, t->best);
        t->best_use = s.resources;
        t->r->has_lower_bound = one.has_lower_bound;
        t->r->lower_bound_s = one.lower_bound_s;
    }
    return CM_OK;
}

/* The least value of one limit (*field, from 0 to what the last design reaching fps
 * uses of it, `used`) under which the optimiser still reaches fps; *field is left at
 * it. A design reaching fps under a limit shows that its own use is enough. */
static cm_status bisect(target *t, cm_resources *limits, int64_t *field, const int64_t *used,
                        cm_error *err)
{
    int64_t lo = -1, hi = *used; /* lo: known (or taken) not to reach; hi: reaches */
    cm_status st = CM_OK;
    while (st == CM_OK && hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        double fps = 0;
        *field = mid;
        st = run_under(t, limits, true, &fps, err);
        if (fps >= t->fps)
            hi = *used < mid ? *used : mid;
        else
            lo = mid;
    }
    *field = hi;
    return st;
}

static cm_status unreachable(const target *t, double best, cm_error *err)
{
    const cm_board *b = cm_design_board(t->d);
    if (best <= 0)
        return cm_error_set(err, CM_EINFEASIBLE,
                            "no design reaches %.6g frames/s on %s: no design fits at all", t->fps,
                            b->display_name);
    return cm_error_set(err, CM_EINFEASIBLE,
                        "no design reaches %.6g frames/s on %s (the best reachable is %.6g "
                        "frames/s)", t->fps, b->display_name, best);
}

static cm_status search(target *t, cm_resources *limits, cm_error *err)
{
    double best = 0;
    cm_status st = run_under(t, limits, false, &best, err);
    if (st != CM_OK)
        return st;
    if (best < t->fps)
        return unreachable(t, best, err);
    st = bisect(t, limits, &limits->dsp, &t->best_use.dsp, err);
    if (st == CM_OK)
        st = bisect(t, limits, &limits->bram18, &t->best_use.bram18, err);
    return st;
}

cm_status cm_optimise_target_fps(cm_design *d, const cm_optimise_options *o, double fps,
                                 cm_optimise_result *r, cm_error *err)
{
    memset(r, 0, sizeof *r);
    if (!(fps > 0) || !isfinite(fps))
        return cm_error_set(err, CM_EUSAGE, "the target rate must be a positive number");
    double start = cm_seconds_now();
    target t = {.d = d, .o = *o, .fps = fps, .r = r, .best = cm_design_point_new(d),
                .deadline = o->time_limit_s > 0 ? start + o->time_limit_s : 0};
    if (!t.best)
        return cm_error_nomem(err);
    t.o.progress = false; /* many short runs: one bar a run would flicker */
    cm_design_summary s; /* the batch, which no run changes */
    cm_design_summarise(d, &s);
    t.enough_s = (double)s.batch / fps;
    const cm_resources base = *cm_design_limits(d);
    cm_resources limits = base;
    cm_status st = search(&t, &limits, err);
    if (st == CM_OK)
        cm_design_point_restore(d, t.best);
    cm_design_set_limits(d, &base);
    cm_design_point_free(t.best);
    r->time_s = cm_seconds_now() - start;
    if (st == CM_OK)
        snprintf(r->note, sizeof r->note,
                 "target %.6g frames/s: %lld DSP and %lld BRAM18 are the least under which "
                 "%s %s it (%d runs)", fps, (long long)limits.dsp, (long long)limits.bram18,
                 cm_optimiser_name(o->optimiser),
                 o->optimiser == CM_OPTIMISER_EXACT && !r->stopped_early ? "proves" : "reaches",
                 t.runs);
    return st;
}
