/* cm_multi_map, the public entry point of the multi-CNN flow: checks the request,
 * builds each network's Pareto front, runs the exploration of dse.c and fills the
 * result (the chosen engines, their schedule and slot table, the baseline). */
#include "multi/dse.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/progress.h"

/* The share of a user's --time-limit the Pareto fronts may take before the joint
 * search. */
#define FRONT_SHARE 0.5

void cm_multi_options_init(cm_multi_options *o)
{
    *o = (cm_multi_options){
        .objective = CM_MULTI_FPS,
        .scheduler = CM_MULTI_LIST,
        .word_bits = 16,
        .front_caps = 16,
        .max_repetitions = 8,
        .max_tasks = 2000,
        .ilp_max_tasks = 48,
        .ilp_modes = 4,
        .burst_length = 1024,
        .max_slots = 64,
        .time_limit_s = 0.0, /* no cap: the budgets end the search */
    };
}

const char *cm_multi_objective_name(cm_multi_objective o)
{
    return o == CM_MULTI_THROUGHPUT ? "throughput" : "fps";
}

void cm_multi_result_free(cm_multi_result *r)
{
    if (!r)
        return;
    for (int i = 0; r->models && i < r->n_models; i++) {
        free(r->models[i].name);
        for (int k = 0; k < r->models[i].n_front; k++)
            cm_mt_engine_free(&r->models[i].front[k]);
        free(r->models[i].front);
    }
    free(r->models);
    cm_multi_schedule_free(&r->schedule);
    free(r);
}

static cm_status check(const cm_multi_input *models, int n, const cm_multi_options *o,
                       cm_error *err)
{
    if (n < 2)
        return cm_error_set(err, CM_EUSAGE, "multi needs at least two networks, not %d", n);
    if (o->bandwidth_gbps < 0 || !isfinite(o->bandwidth_gbps))
        return cm_error_set(err, CM_EUSAGE, "bandwidth must be positive");
    if (!(o->time_limit_s >= 0) || !isfinite(o->time_limit_s))
        return cm_error_set(err, CM_EUSAGE, "the time limit must be a positive number of seconds");
    if (o->clock_mhz < 0 || o->word_bits < 1 || o->burst_length < 1 || o->max_slots < 1)
        return cm_error_set(err, CM_EUSAGE, "clock, word bits, burst length and slots must be "
                            "positive");
    for (int i = 0; i < n; i++)
        if (!models[i].graph || !(models[i].fps >= 0) || !isfinite(models[i].fps))
            return cm_error_set(err, CM_EUSAGE, "network %d: a graph and a target fps >= 0 "
                                "are needed", i);
    return CM_OK;
}

cm_status cm_mt_new_result(const cm_multi_input *models, int n, const cm_board *b,
                           const cm_multi_options *o, cm_multi_result **out, cm_error *err)
{
    cm_multi_result *r = calloc(1, sizeof *r);
    if (!r || !(r->models = calloc((size_t)n, sizeof *r->models))) {
        free(r);
        return cm_error_nomem(err);
    }
    *out = r;
    r->n_models = n;
    r->objective = o->objective;
    r->scheduler = o->scheduler;
    snprintf(r->board, sizeof r->board, "%s", b->name);
    r->bandwidth_gbps = o->bandwidth_gbps > 0 ? o->bandwidth_gbps : b->bandwidth_gbps;
    r->clock_mhz = o->clock_mhz > 0 ? o->clock_mhz : b->clock_mhz;
    r->word_bits = o->word_bits;
    r->time_limit_s = o->time_limit_s > 0 ? o->time_limit_s : CM_MULTI_DEFAULT_TIME_LIMIT_S;
    r->burst_length = o->burst_length;
    r->max_slots = o->max_slots;
    r->words_per_cycle = r->bandwidth_gbps * 1e9 / (r->clock_mhz * 1e6) / (o->word_bits / 8.0);
    for (int i = 0; i < n; i++) {
        cm_multi_model *m = &r->models[i];
        const char *name = models[i].name ? models[i].name : models[i].graph->name;
        if (!(m->name = strdup(name ? name : "model")))
            return cm_error_nomem(err);
        m->user_fps = models[i].fps;
        m->gop = 2.0 * (double)cm_graph_totals_of(models[i].graph).macs / 1e9;
    }
    return CM_OK;
}

/* Under a user's time limit the fronts end by `deadline` (FRONT_SHARE of it), each
 * point with an equal share of what is left; without one (deadline INFINITY) each point
 * runs to its own budget. The joint search has the rest. */
static cm_status fronts(const cm_multi_input *models, const cm_board *b, const cm_multi_options *o,
                        double deadline, cm_multi_result *r, cm_error *err)
{
    double t0 = cm_seconds_now();
    int caps = o->front_caps < 1 ? 1 : o->front_caps;
    for (int i = 0; i < r->n_models; i++) {
        cm_multi_model *m = &r->models[i];
        cm_mt_front_limits lim = {deadline, (r->n_models - 1 - i) * caps, false};
        cm_status st = cm_mt_front(models[i].graph, b, o, r->bandwidth_gbps, r->clock_mhz, m,
                                   &lim, err);
        r->stopped_early |= lim.stopped;
        if (st != CM_OK) {
            cm_error_prefix(err, m->name);
            return st;
        }
        m->front_size = m->n_front;
        m->max_fps = 1.0 / m->front[0].latency_s;
        m->target_fps = m->user_fps > 0 ? fmin(m->user_fps, m->max_fps) : m->max_fps;
    }
    r->front_time_s = cm_seconds_now() - t0;
    return CM_OK;
}

/* With no joint point fitting: the resource the smallest engines already overflow. */
static int64_t least(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static cm_status no_joint_point(const cm_multi_result *r, const cm_board *b, cm_error *err)
{
    cm_resources need = {0};
    for (int i = 0; i < r->n_models; i++) {
        const cm_multi_model *m = &r->models[i];
        cm_resources low = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
        for (int k = 0; k < m->n_front; k++) {
            const cm_resources *x = &m->front[k].resources;
            low = (cm_resources){least(low.dsp, x->dsp), least(low.bram18, x->bram18),
                                 least(low.uram, x->uram), least(low.lut, x->lut),
                                 least(low.ff, x->ff)};
        }
        cm_resources_add(&need, &low);
    }
    int64_t needed, have;
    const char *name = cm_mt_resource_over(&need, &b->resources, &needed, &have);
    if (name)
        return cm_error_set(err, CM_EINFEASIBLE, "%d networks do not fit %s: their smallest "
                            "engines need %" PRId64 " %s of %" PRId64, r->n_models, b->name,
                            needed, name, have);
    return cm_error_set(err, CM_EINFEASIBLE, "%d networks do not fit %s: no combination of "
                        "their engines fits DSP, BRAM18, LUT and FF at once", r->n_models,
                        b->name);
}

static cm_status dse_init(cm_mt_dse *d, const cm_board *b, const cm_multi_options *o,
                          double deadline, cm_multi_result *r, cm_error *err)
{
    const size_t n = (size_t)r->n_models;
    *d = (cm_mt_dse){.o = o, .board = b, .r = r, .n = r->n_models,
                     .bandwidth = r->bandwidth_gbps * 1e9, .deadline = deadline,
                     .work_budget = o->work > 0 ? o->work : CM_MULTI_WORK};
    d->norm = malloc(n * sizeof *d->norm);
    d->cap = malloc(n * sizeof *d->cap);
    d->u = malloc(n * sizeof *d->u);
    d->c = malloc(n * sizeof *d->c);
    d->f = malloc(n * sizeof *d->f);
    d->best_idx = malloc(n * sizeof *d->best_idx);
    d->twin = malloc(n * sizeof *d->twin);
    if (!d->norm || !d->cap || !d->u || !d->c || !d->f || !d->best_idx ||
        !d->twin)
        return cm_error_nomem(err);
    cm_mt_goal_terms(r, d->norm, d->cap);
    d->goal = (cm_mt_goal){d->n, d->norm, d->cap};
    cm_mt_find_twins(d);
    return CM_OK;
}

static void dse_free(cm_mt_dse *d)
{
    free(d->norm);
    free(d->cap);
    free(d->u);
    free(d->c);
    free(d->f);
    free(d->best_idx);
    free(d->twin);
    free(d->cands);
    free(d->cand_idx);
    cm_multi_schedule_free(&d->best);
}

/* The figures come from the chosen schedule itself (figures.c), as a loaded design's
 * do: the search's own value differs from them only for the ILP, whose period is its
 * optimum rather than the end of the last execution (within GLPK's tolerance). */
static void adopt(cm_mt_dse *d, cm_multi_result *r)
{
    r->schedule = d->best;
    memset(&d->best, 0, sizeof d->best);
    for (int i = 0; i < r->n_models; i++)
        r->models[i].engine = d->best_idx[i];
    cm_mt_schedule_figures(r, &d->goal, d->o);
}

static cm_status explore(const cm_board *b, const cm_multi_options *o, double deadline,
                         cm_multi_result *r, cm_error *err)
{
    cm_mt_dse d;
    double t0 = cm_seconds_now();
    cm_status st = dse_init(&d, b, o, deadline, r, err);
    if (st == CM_OK)
        st = cm_mt_enumerate(&d, err);
    if (st == CM_OK && d.n_cands == 0)
        st = no_joint_point(r, b, err);
    if (st == CM_OK)
        st = cm_mt_explore(&d, err);
    if (st == CM_OK && o->scheduler == CM_MULTI_ILP && !d.ilp_fits)
        st = cm_error_set(err, CM_EINFEASIBLE, "the ILP scheduler takes at most %d subgraph "
                          "executions per period; the smallest problem here has %d (%d "
                          "networks); use --scheduler list", o->ilp_max_tasks, d.ilp_smallest,
                          r->n_models);
    if (st == CM_OK)
        adopt(&d, r);
    r->stopped_early |= d.stopped;
    dse_free(&d);
    r->schedule_time_s = cm_seconds_now() - t0;
    return st;
}

cm_status cm_multi_map(const cm_multi_input *models, int n, const cm_board *board,
                       const cm_multi_options *o, cm_multi_result **out, cm_error *err)
{
    return cm_mt_map_since(models, n, board, o, cm_seconds_now(), out, err);
}

cm_status cm_mt_map_since(const cm_multi_input *models, int n, const cm_board *board,
                          const cm_multi_options *o, double t0, cm_multi_result **out,
                          cm_error *err)
{
    *out = NULL;
    /* A user's limit is on the whole mapping, as the user's clock sees it (from t0); the
     * fronts take their share of it first. Without one the budgets end every search and
     * only the safety cap is on the clock. */
    cm_status st = check(models, n, o, err);
    if (st != CM_OK)
        return st;
    cm_multi_result *r = NULL;
    st = cm_mt_new_result(models, n, board, o, &r, err);
    if (st == CM_OK)
        st = fronts(models, board, o,
                    o->time_limit_s > 0 ? t0 + FRONT_SHARE * o->time_limit_s : INFINITY, r, err);
    if (st == CM_OK)
        st = explore(board, o, t0 + r->time_limit_s, r, err);
    if (st != CM_OK) {
        cm_multi_result_free(r);
        return st;
    }
    *out = r;
    return CM_OK;
}
