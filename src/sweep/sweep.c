/* Running a sweep: the points (board x backend x cap) are shared out to worker threads
 * one at a time in index order; each worker keeps one design per board and backend and
 * moves its limits between points (cm_optimise starts every run from the
 * resource-minimal design, so a point's answer does not depend on which worker ran it
 * or what it ran before). */
#include <cnnmap/sweep.h>
#include <cnnmap/model.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/progress.h"

void cm_sweep_options_init(cm_sweep_options *o)
{
    memset(o, 0, sizeof *o);
    cm_design_options_init(&o->design);
    o->optimiser = CM_OPTIMISER_RULE;
    o->seed = 1;
    o->steps = 10;
    o->threads = 1;
}

double cm_sweep_cap(int step, int steps)
{
    return steps <= 1 ? 1.0 : 0.1 + 0.9 * (double)step / (double)(steps - 1);
}

typedef struct sweep_run {
    const cm_sweep_options *o;
    cm_sweep_result *r;
    pthread_mutex_t lock;
    int next;           /* the next point to start */
    int finished;
    double deadline;    /* 0: none */
    cm_progress bar;
    cm_status status;   /* the first failure other than a backend refusing the model */
    cm_error err;
} sweep_run;

typedef struct worker {
    sweep_run *s;
    int combo;          /* board * n_backends + backend of d, or -1 */
    cm_design *d;       /* NULL when the backend could not build the model: */
    char refusal[160];  /* why */
} worker;

static cm_status build(worker *w, int combo, cm_error *err)
{
    const cm_sweep_options *o = w->s->o;
    cm_design_free(w->d);
    w->d = NULL;
    w->combo = combo;
    cm_graph *g = NULL;
    cm_status st = cm_model_load(o->model_path, &g, err);
    if (st != CM_OK)
        return st;
    cm_design_options dopt = o->design;
    dopt.backend = o->backends[combo % o->n_backends];
    st = cm_design_create(g, &o->boards[combo / o->n_backends], &dopt, &w->d, err);
    if (st != CM_OK)
        cm_graph_free(g);
    return st;
}

static void record(cm_design *d, cm_sweep_point *p, const cm_optimise_result *res)
{
    cm_design_summary s;
    cm_design_summarise(d, &s);
    const cm_resources *b = &cm_design_board(d)->resources;
    p->feasible = s.feasible;
    p->stopped_early = res->stopped_early;
    p->latency_s = s.latency_s;
    p->throughput_fps = s.throughput_fps;
    p->used = s.resources;
    double dsp = b->dsp > 0 ? (double)s.resources.dsp / (double)b->dsp : 0.0;
    double bram = b->bram18 > 0 ? (double)s.resources.bram18 / (double)b->bram18 : 0.0;
    p->util = dsp > bram ? dsp : bram;
    p->partitions = s.partitions;
}

/* Runs point i; a backend refusing the model is the point's error, not the sweep's.
 * *done is false when the time limit came first. */
static cm_status run_point(worker *w, int i, bool *done, cm_error *err)
{
    const cm_sweep_options *o = w->s->o;
    cm_sweep_point *p = &w->s->r->points[i];
    int combo = i / o->steps;
    *done = true;
    if (combo != w->combo) {
        cm_status st = build(w, combo, err);
        if (st == CM_EINPUT || st == CM_EUSAGE)
            snprintf(w->refusal, sizeof w->refusal, "%.159s", err->message);
        else if (st != CM_OK)
            return st;
    }
    if (!w->d) {
        memcpy(p->error, w->refusal, sizeof p->error);
        return CM_OK;
    }
    cm_util_caps caps;
    cm_util_caps_set_all(&caps, 1.0);
    caps.dsp = caps.bram18 = p->cap;
    cm_resources limits;
    cm_util_caps_apply(&caps, &cm_design_board(w->d)->resources, &limits);
    cm_design_set_limits(w->d, &limits);
    cm_optimise_options oo = {.optimiser = o->optimiser, .seed = o->seed,
                              .max_points = CM_SWEEP_POINTS};
    if (w->s->deadline > 0 && (oo.time_limit_s = w->s->deadline - cm_seconds_now()) <= 0) {
        *done = false;
        return CM_OK;
    }
    cm_optimise_result res;
    cm_status st = cm_optimise(w->d, &oo, &res, err);
    if (st == CM_OK) {
        p->built = true;
        record(w->d, p, &res);
        p->time_s = res.time_s;
    }
    return st;
}

/* The next point to start, or -1 when none is left, the time is up or a point failed. */
static int take(sweep_run *s)
{
    pthread_mutex_lock(&s->lock);
    int i = -1;
    if (s->status == CM_OK && s->next < s->r->n_points &&
        !(s->deadline > 0 && cm_seconds_now() >= s->deadline))
        i = s->next++;
    pthread_mutex_unlock(&s->lock);
    return i;
}

static void finish(sweep_run *s, int i, bool done, cm_status st, const cm_error *err)
{
    pthread_mutex_lock(&s->lock);
    s->r->points[i].done = done && st == CM_OK;
    s->finished++;
    if (st != CM_OK && s->status == CM_OK) {
        s->status = st;
        s->err = *err;
    }
    char detail[64];
    snprintf(detail, sizeof detail, "%d/%d points", s->finished, s->r->n_points);
    cm_progress_update(&s->bar, (double)s->finished / s->r->n_points, detail);
    pthread_mutex_unlock(&s->lock);
}

static void *work(void *arg)
{
    worker *w = arg;
    for (int i; (i = take(w->s)) >= 0;) {
        cm_error err = {0};
        bool done = false;
        cm_status st = run_point(w, i, &done, &err);
        finish(w->s, i, done, st, &err);
    }
    cm_design_free(w->d);
    w->d = NULL;
    return NULL;
}

static cm_status check_options(const cm_sweep_options *o, cm_error *err)
{
    if (o->n_boards < 1 || o->n_backends < 1)
        return cm_error_set(err, CM_EUSAGE, "a sweep needs at least one board and one backend");
    if (o->steps < 1 || o->steps > CM_SWEEP_MAX_STEPS)
        return cm_error_set(err, CM_EUSAGE, "the number of steps must be 1 to %d",
                            CM_SWEEP_MAX_STEPS);
    for (int k = 0; k < o->n_backends; k++)
        if (o->backends[k] == CM_BACKEND_NN2FPGA || (unsigned)o->backends[k] >= CM_BACKEND_COUNT)
            return cm_error_set(err, CM_EUSAGE, "a sweep takes the streaming backends "
                                "(fpgaconvnet, finn, hls4ml), not %s", cm_backend_name(o->backends[k]));
    /* the model must load before any thread starts: a bad file is the sweep's error */
    cm_graph *g = NULL;
    cm_status st = cm_model_load(o->model_path, &g, err);
    cm_graph_free(g);
    return st;
}

static cm_status alloc_points(const cm_sweep_options *o, cm_sweep_result *r, cm_error *err)
{
    r->n_points = o->n_boards * o->n_backends * o->steps;
    r->points = calloc((size_t)r->n_points, sizeof *r->points);
    if (!r->points)
        return cm_error_nomem(err);
    for (int i = 0; i < r->n_points; i++) {
        int combo = i / o->steps;
        r->points[i].board = combo / o->n_backends;
        r->points[i].backend = combo % o->n_backends;
        r->points[i].cap = cm_sweep_cap(i % o->steps, o->steps);
    }
    return CM_OK;
}

static cm_status run_threads(sweep_run *s, int threads, cm_error *err)
{
    pthread_t tid[CM_SWEEP_MAX_THREADS];
    worker w[CM_SWEEP_MAX_THREADS];
    int started = 0;
    for (int t = 0; t < threads; t++) {
        w[t] = (worker){.s = s, .combo = -1};
        if (pthread_create(&tid[t], NULL, work, &w[t]) != 0)
            break;
        started++;
    }
    if (started == 0) /* no thread to be had: the caller's does the work */
        work(&w[0]);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    if (s->status != CM_OK)
        *err = s->err;
    return s->status;
}

cm_status cm_sweep_run(const cm_sweep_options *o, cm_sweep_result *r, cm_error *err)
{
    memset(r, 0, sizeof *r);
    double start = cm_seconds_now();
    cm_status st = check_options(o, err);
    if (st == CM_OK)
        st = alloc_points(o, r, err);
    if (st != CM_OK) {
        cm_sweep_result_free(r);
        return st;
    }
    sweep_run s = {.o = o, .r = r, .deadline = o->time_limit_s > 0 ? start + o->time_limit_s : 0};
    pthread_mutex_init(&s.lock, NULL);
    cm_progress_init(&s.bar, o->progress, "sweep");
    int threads = o->threads < 1 ? 1 : o->threads > CM_SWEEP_MAX_THREADS ? CM_SWEEP_MAX_THREADS : o->threads;
    st = run_threads(&s, threads > r->n_points ? r->n_points : threads, err);
    cm_progress_done(&s.bar);
    pthread_mutex_destroy(&s.lock);
    if (st != CM_OK) {
        cm_sweep_result_free(r);
        return st;
    }
    for (int i = 0; i < r->n_points; i++)
        r->points_done += r->points[i].done;
    r->stopped_early = r->points_done < r->n_points;
    cm_sweep_mark_fronts(r);
    r->time_s = cm_seconds_now() - start;
    return CM_OK;
}

void cm_sweep_result_free(cm_sweep_result *r)
{
    free(r->points);
    memset(r, 0, sizeof *r);
}
