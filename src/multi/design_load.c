/* A multi design file (version 2) loaded without a search: its inputs give the board
 * and models, each network's engine and baseline engine are costed again at their
 * recorded design points (point.c), the recorded schedule (start times and slow-downs of
 * a cyclic one, bandwidth shares of a rate-partitioned one) is costed by the same code
 * as the exploration's choice (figures.c), and every constraint is checked again. Only
 * what a search found and nothing can re-derive is read as recorded: each network's
 * fastest engine (fps_max, so its target), the size of its front, the joint points
 * counted, whether the limit stopped the search and whether the ILP proved the period.
 * Every field is read with its type and range checked (exit 2); a broken constraint is
 * exit 3 naming the network, subgraph or resource. */
#include "multi/multi_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "util/json_fields.h"
#include "util/json_file.h"

#define FIELD_MAX 192
/* Times within this fraction of the period, and bandwidths within this fraction of
 * B_mem, are equal: the ILP's start times carry GLPK's tolerances. */
#define TOLERANCE 1e-6

typedef struct loader {
    const char *path;
    cm_error *err;
    cm_json_fields f; /* fields named by path: "networks[2].fps must be ..." */
    cm_multi_request q;
    cm_board board;
    cm_graph *g[CM_MULTI_MAX_MODELS];
    cm_multi_options o;
    cm_multi_result *r;
    double recorded_fps[CM_MULTI_MAX_MODELS];
} loader;

/* ---- typed fields ---- */

static cm_status bad(const loader *l, const char *field, const char *what)
{
    return cm_error_set(l->err, CM_EINPUT, "%s: %s %s", l->path, field, what);
}

static cm_status broken(const loader *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static cm_status broken(const loader *l, const char *fmt, ...)
{
    char text[sizeof l->err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return cm_error_set(l->err, CM_EINFEASIBLE, "%s: %s", l->path, text);
}

static void field_of(char *field, const char *at, const char *key)
{
    snprintf(field, FIELD_MAX, "%.150s%s%.40s", at, *at ? "." : "", key);
}

/* ---- engines ---- */

static cm_status read_names(const loader *l, const json_t *a, const char *at, char **names,
                            int *n)
{
    for (size_t k = 0; k < json_array_size(a); k++) {
        char field[FIELD_MAX];
        snprintf(field, sizeof field, "%.160s[%zu]", at, k);
        const char *s = json_string_value(json_array_get(a, k));
        if (!s || !*s || strlen(s) != json_string_length(json_array_get(a, k)))
            return bad(l, field, "must be a layer name (a non-empty string)");
        if (!(names[*n] = strdup(s)))
            return cm_error_nomem(l->err);
        (*n)++;
    }
    return CM_OK;
}

static cm_status read_folds(const loader *l, const json_t *a, const char *at, cm_multi_point *p)
{
    cm_status st = CM_OK;
    for (size_t k = 0; st == CM_OK && k < json_array_size(a); k++) {
        char field[FIELD_MAX];
        snprintf(field, sizeof field, "%.160s[%zu]", at, k);
        const json_t *f = json_array_get(a, k);
        const char *name = NULL;
        int fin = 0;
        st = json_is_object(f) ? cm_json_get_string(&l->f, f, field, "layer", 4096, &name)
                               : bad(l, field, "must be an object");
        if (st == CM_OK)
            st = cm_json_get_int32(&l->f, f, field, "f_in", 2, 65536, &fin);
        if (st == CM_OK && !(p->fold_layers[p->n_folds] = strdup(name)))
            st = cm_error_nomem(l->err);
        if (st == CM_OK)
            p->folds[p->n_folds++] = fin;
    }
    return st;
}

static cm_status read_block(const loader *l, const json_t *b, const char *at, cm_multi_block *x)
{
    const char *name = NULL;
    cm_status st = json_is_object(b)
                       ? cm_json_get_string(&l->f, b, at, "name", sizeof x->name, &name)
                       : bad(l, at, "must be an object");
    if (st == CM_OK)
        st = cm_json_get_int32(&l->f, b, at, "coarse", 1, 1 << 20, &x->coarse);
    if (st == CM_OK)
        st = cm_json_get_int32(&l->f, b, at, "macc", 1, 1 << 20, &x->macc);
    if (st == CM_OK)
        st = cm_json_get_int32(&l->f, b, at, "bank_bram", 0, 1 << 30, &x->bank_bram);
    if (st == CM_OK)
        snprintf(x->name, sizeof x->name, "%s", name);
    return st;
}

static cm_status alloc_point(const loader *l, size_t cuts, size_t folds, size_t blocks,
                             cm_multi_point *p)
{
    p->cuts = calloc(cuts + 1, sizeof *p->cuts);
    p->fold_layers = calloc(folds + 1, sizeof *p->fold_layers);
    p->folds = calloc(folds + 1, sizeof *p->folds);
    p->blocks = calloc(blocks + 1, sizeof *p->blocks);
    if (p->cuts && p->fold_layers && p->folds && p->blocks)
        return CM_OK;
    return cm_error_nomem(l->err);
}

static cm_status read_point(const loader *l, const json_t *pt, const char *at, cm_multi_point *p)
{
    json_t *cuts = NULL, *folds = NULL, *blocks = NULL;
    char field[FIELD_MAX];
    cm_status st = cm_json_get_array(&l->f, pt, at, "cuts", 0, 1 << 20, &cuts);
    if (st == CM_OK)
        st = cm_json_get_array(&l->f, pt, at, "folds", 0, 1 << 20, &folds);
    if (st == CM_OK)
        st = cm_json_get_array(&l->f, pt, at, "blocks", 1, 1 << 20, &blocks);
    if (st == CM_OK)
        st = alloc_point(l, json_array_size(cuts), json_array_size(folds),
                         json_array_size(blocks), p);
    field_of(field, at, "cuts");
    if (st == CM_OK)
        st = read_names(l, cuts, field, p->cuts, &p->n_cuts);
    field_of(field, at, "folds");
    if (st == CM_OK)
        st = read_folds(l, folds, field, p);
    for (size_t b = 0; st == CM_OK && b < json_array_size(blocks); b++) {
        snprintf(field, sizeof field, "%.160s.blocks[%zu]", at, b);
        st = read_block(l, json_array_get(blocks, b), field, &p->blocks[b]);
        p->n_blocks += st == CM_OK;
    }
    return st;
}

/* The engine object at `at` costed again: front[slot] of network i. */
static cm_status read_engine(loader *l, const json_t *e, const char *at, int i, int slot)
{
    cm_multi_model *m = &l->r->models[i];
    char field[FIELD_MAX];
    json_t *pt = NULL;
    cm_multi_point p;
    memset(&p, 0, sizeof p);
    double cap = 1.0;
    cm_status st = json_is_object(e)
                       ? cm_json_get_number(&l->f, e, at, "resource_cap", 1e-9, 1.0, &cap)
                       : bad(l, at, "must be an object");
    if (st == CM_OK)
        st = cm_json_get_object(&l->f, e, at, "point", &pt);
    field_of(field, at, "point");
    if (st == CM_OK)
        st = read_point(l, pt, field, &p);
    if (st == CM_OK) {
        cm_latency_options lo;
        cm_mt_latency_options(&l->o, l->r->bandwidth_gbps, l->r->clock_mhz, &lo);
        st = cm_mt_engine_at(l->g[i], &l->board, &lo, &p, cap, l->path, field, &m->front[slot],
                             l->err);
        m->n_front += st == CM_OK;
    }
    cm_mt_point_free(&p);
    return st;
}

/* ---- networks ---- */

static cm_status read_model(loader *l, const json_t *m, int i, bool cyclic)
{
    char at[FIELD_MAX], field[FIELD_MAX];
    snprintf(at, sizeof at, "models[%d]", i);
    if (!json_is_object(m))
        return bad(l, at, "must be an object");
    cm_multi_model *x = &l->r->models[i];
    cm_multi_schedule *s = &l->r->schedule;
    int64_t front = 0;
    json_t *base = NULL;
    cm_status st = cm_json_get_number(&l->f, m, at, "max_fps", 1e-12, 1e12, &x->max_fps);
    if (st == CM_OK)
        st = cm_json_get_number(&l->f, m, at, "fps", 0, 1e12, &l->recorded_fps[i]);
    if (st == CM_OK)
        st = cm_json_get_int(&l->f, m, at, "front_size", 1, 1 << 20, &front);
    if (st == CM_OK && cyclic)
        st = cm_json_get_int32(&l->f, m, at, "repetitions", 1, 1 << 16, &s->repetitions[i]);
    if (st == CM_OK && !cyclic)
        st = cm_json_get_number(&l->f, m, at, "bandwidth_share", 1e-12, 1.0, &s->share[i]);
    x->front_size = (int)front;
    x->target_fps = x->user_fps > 0 ? fmin(x->user_fps, x->max_fps) : x->max_fps;
    x->front = calloc(2, sizeof *x->front);
    if (st == CM_OK && !x->front)
        st = cm_error_nomem(l->err);
    field_of(field, at, "engine");
    if (st == CM_OK)
        st = read_engine(l, json_object_get(m, "engine"), field, i, 0);
    if (st == CM_OK)
        st = cm_json_get_object(&l->f, m, at, "baseline", &base);
    field_of(field, at, "baseline.engine");
    if (st == CM_OK)
        st = read_engine(l, json_object_get(base, "engine"), field, i, 1);
    x->engine = 0;
    x->baseline_engine = 1;
    return st;
}

static cm_status alloc_schedule(loader *l, int n)
{
    cm_multi_schedule *s = &l->r->schedule;
    s->n_engines = n;
    s->repetitions = calloc((size_t)n, sizeof *s->repetitions);
    s->cycle_s = calloc((size_t)n, sizeof *s->cycle_s);
    s->share = calloc((size_t)n, sizeof *s->share);
    return s->repetitions && s->cycle_s && s->share ? CM_OK : cm_error_nomem(l->err);
}

static cm_status check_resources(const loader *l)
{
    const cm_multi_result *r = l->r;
    cm_resources sum = {0};
    for (int i = 0; i < r->n_models; i++)
        cm_resources_add(&sum, &r->models[i].front[0].resources);
    int64_t need, have;
    const char *name = cm_mt_resource_over(&sum, &l->board.resources, &need, &have);
    if (!name)
        return CM_OK;
    return broken(l, "the engines of its %d networks together need %lld %s, more than the %lld "
                  "of %s", r->n_models, (long long)need, name, (long long)have, l->board.name);
}

/* ---- the schedule ---- */

/* The scheduling instance of the engines with the recorded repetitions. */
static cm_status instance(const loader *l, cm_mt_inst *x)
{
    const cm_multi_result *r = l->r;
    cm_multi_job jobs[CM_MULTI_MAX_MODELS];
    double *buf[2 * CM_MULTI_MAX_MODELS] = {0};
    cm_status st = CM_OK;
    for (int i = 0; st == CM_OK && i < r->n_models; i++) {
        const cm_multi_engine *e = &r->models[i].front[0];
        double *lat = buf[2 * i] = malloc(((size_t)e->n_subgraphs + 1) * sizeof *lat);
        double *bytes = buf[2 * i + 1] = malloc(((size_t)e->n_subgraphs + 1) * sizeof *bytes);
        if (!lat || !bytes) {
            st = cm_error_nomem(l->err);
            break;
        }
        for (int s = 0; s < e->n_subgraphs; s++) {
            lat[s] = e->subgraphs[s].latency_s;
            bytes[s] = e->subgraphs[s].bytes;
        }
        jobs[i] = (cm_multi_job){e->n_subgraphs, lat, bytes, r->schedule.repetitions[i]};
    }
    cm_multi_problem p = {r->n_models, jobs, r->bandwidth_gbps * 1e9};
    if (st == CM_OK)
        st = cm_mt_inst_build(&p, x, l->err);
    for (int k = 0; k < 2 * r->n_models; k++)
        free(buf[k]);
    return st;
}

typedef struct slot_ref {
    int engine, subgraph, repetition;
    double start_s, slowdown;
} slot_ref;

static cm_status read_slot(const loader *l, const json_t *t, const char *at, slot_ref *x)
{
    const char *model = NULL;
    cm_status st = json_is_object(t)
                       ? cm_json_get_int32(&l->f, t, at, "engine", 0, 1 << 30, &x->engine)
                       : bad(l, at, "must be an object");
    if (st == CM_OK)
        st = cm_json_get_string(&l->f, t, at, "model", 4096, &model);
    if (st == CM_OK)
        st = cm_json_get_int32(&l->f, t, at, "subgraph", 0, 1 << 30, &x->subgraph);
    if (st == CM_OK)
        st = cm_json_get_int32(&l->f, t, at, "repetition", 0, 1 << 30, &x->repetition);
    if (st == CM_OK)
        st = cm_json_get_number(&l->f, t, at, "start_s", 0.0, 1e9, &x->start_s);
    if (st == CM_OK)
        st = cm_json_get_number(&l->f, t, at, "slowdown", CM_MT_MIN_SLOWDOWN, 1.0, &x->slowdown);
    if (st == CM_OK && x->engine < l->r->n_models &&
        strcmp(model, l->r->models[x->engine].name) != 0) {
        char field[FIELD_MAX];
        field_of(field, at, "model");
        return bad(l, field, "is not the name of the network of its engine");
    }
    return st;
}

/* The execution a slot-table entry names: its index in x, or an infeasible schedule. */
static cm_status place(const loader *l, const cm_mt_inst *x, const slot_ref *t, const char *at,
                       int *k)
{
    const cm_multi_result *r = l->r;
    if (t->engine >= r->n_models)
        return broken(l, "%s: engine %d does not exist (the design has %d networks)", at,
                      t->engine, r->n_models);
    const cm_multi_model *m = &r->models[t->engine];
    int subs = m->front[0].n_subgraphs, reps = r->schedule.repetitions[t->engine];
    if (t->subgraph >= subs)
        return broken(l, "%s: network %s has no subgraph %d (its engine has %d)", at, m->name,
                      t->subgraph, subs);
    if (t->repetition >= reps)
        return broken(l, "%s: network %s has no repetition %d (it runs %d times a period)", at,
                      m->name, t->repetition, reps);
    *k = x->first[t->engine] + t->repetition * subs + t->subgraph;
    return CM_OK;
}

/* Reads the slot table into sl and start (per execution of x); every execution once. */
static cm_status read_slots(const loader *l, const json_t *root, const cm_mt_inst *x,
                            double *sl, double *start)
{
    json_t *table = NULL;
    cm_status st = cm_json_get_array(&l->f, root, "", "slot_table", 1, 1 << 20, &table);
    bool *seen = calloc((size_t)x->n_tasks + 1, sizeof *seen);
    if (st == CM_OK && !seen)
        st = cm_error_nomem(l->err);
    for (size_t q = 0; st == CM_OK && q < json_array_size(table); q++) {
        char at[FIELD_MAX];
        snprintf(at, sizeof at, "slot_table[%zu]", q);
        slot_ref t = {0};
        int k = 0;
        st = read_slot(l, json_array_get(table, q), at, &t);
        if (st == CM_OK)
            st = place(l, x, &t, at, &k);
        if (st == CM_OK && seen[k])
            st = broken(l, "%s: network %s subgraph %d repetition %d is scheduled twice", at,
                        l->r->models[t.engine].name, t.subgraph, t.repetition);
        seen[k] = true;
        sl[k] = t.slowdown;
        start[k] = t.start_s;
    }
    for (int k = 0; st == CM_OK && k < x->n_tasks; k++)
        if (!seen[k])
            st = broken(l, "slot_table: network %s subgraph %d repetition %d is not scheduled",
                        l->r->models[x->t[k].job].name, x->t[k].sub, x->t[k].rep);
    free(seen);
    return st;
}

/* One engine runs one subgraph at a time, in chain order. */
static cm_status check_chains(const loader *l, const cm_mt_inst *x, double tol)
{
    const cm_multi_task *t = l->r->schedule.tasks;
    for (int j = 0; j < x->n_jobs; j++)
        for (int k = x->first[j] + 1; k < x->first[j + 1]; k++)
            if (t[k].start_s < t[k - 1].start_s + t[k - 1].latency_s - tol)
                return broken(l, "network %s: subgraph %d (repetition %d) starts at %.6g ms, "
                              "before subgraph %d before it ends at %.6g ms", l->r->models[j].name,
                              t[k].subgraph, t[k].repetition, t[k].start_s * 1e3,
                              t[k - 1].subgraph, (t[k - 1].start_s + t[k - 1].latency_s) * 1e3);
    return CM_OK;
}

/* At every start the running executions' b'(s) fit B_mem (one alone always may run). */
static cm_status check_bandwidth(const loader *l, double tol)
{
    const cm_multi_schedule *s = &l->r->schedule;
    const double bandwidth = l->r->bandwidth_gbps * 1e9;
    for (int k = 0; k < s->n_tasks; k++) {
        const cm_multi_task *a = &s->tasks[k];
        double load = 0.0;
        int running = 0;
        for (int q = 0; q < s->n_tasks; q++) {
            const cm_multi_task *b = &s->tasks[q];
            if (b->start_s <= a->start_s + tol && b->start_s + b->latency_s > a->start_s + tol) {
                load += b->bandwidth;
                running++;
            }
        }
        if (running > 1 && load > bandwidth * (1.0 + TOLERANCE))
            return broken(l, "at %.6g ms, when network %s subgraph %d (repetition %d) starts, "
                          "the running subgraphs need %.4g GB/s of the %.4g GB/s shared",
                          a->start_s * 1e3, l->r->models[a->model].name, a->subgraph,
                          a->repetition, load / 1e9, bandwidth / 1e9);
    }
    return CM_OK;
}

static cm_status cyclic_schedule(loader *l, const json_t *root)
{
    cm_mt_inst x;
    cm_status st = instance(l, &x);
    if (st != CM_OK)
        return st;
    double *sl = calloc((size_t)x.n_tasks + 1, sizeof *sl);
    double *start = calloc((size_t)x.n_tasks + 1, sizeof *start);
    st = sl && start ? read_slots(l, root, &x, sl, start) : cm_error_nomem(l->err);
    cm_multi_schedule *s = &l->r->schedule;
    cm_multi_schedule recorded = *s; /* the repetitions read; fill allocates afresh */
    if (st == CM_OK) {
        memset(s, 0, sizeof *s);
        st = cm_mt_fill_schedule(&x, sl, start, 0.0, s, l->err);
        if (st != CM_OK)
            *s = recorded;
        else
            cm_multi_schedule_free(&recorded);
    }
    double period = 0.0;
    for (int k = 0; st == CM_OK && k < s->n_tasks; k++)
        period = fmax(period, s->tasks[k].start_s + s->tasks[k].latency_s);
    if (st == CM_OK)
        st = check_chains(l, &x, TOLERANCE * period);
    if (st == CM_OK)
        st = check_bandwidth(l, TOLERANCE * period);
    free(sl);
    free(start);
    cm_mt_inst_free(&x);
    return st;
}

static cm_status partitioned_schedule(loader *l, const json_t *root)
{
    cm_multi_result *r = l->r;
    const cm_multi_engine *e[CM_MULTI_MAX_MODELS];
    double share[CM_MULTI_MAX_MODELS], sum = 0.0;
    for (int i = 0; i < r->n_models; i++) {
        e[i] = &r->models[i].front[0];
        share[i] = r->schedule.share[i];
        sum += share[i];
        r->schedule.repetitions[i] = 1;
    }
    if (sum > 1.0 + TOLERANCE)
        return broken(l, "the engines' bandwidth shares add up to %.6g of B_mem, more than all "
                      "of it", sum);
    /* The slot table follows from the shares; its entries must still name what exists. */
    cm_mt_inst x;
    cm_status st = instance(l, &x);
    double *sl = calloc((size_t)x.n_tasks + 1, sizeof *sl);
    double *start = calloc((size_t)x.n_tasks + 1, sizeof *start);
    if (st == CM_OK)
        st = sl && start ? read_slots(l, root, &x, sl, start) : cm_error_nomem(l->err);
    free(sl);
    free(start);
    cm_mt_inst_free(&x);
    if (st != CM_OK)
        return st;
    cm_multi_schedule_free(&r->schedule);
    return cm_mt_partition_schedule(e, r->n_models, share, r->bandwidth_gbps * 1e9, &r->schedule,
                                    l->err);
}

/* ---- the whole file ---- */

/* Fps objective: each network still reaches the rate the design reached towards its
 * target (its target itself when it reached it). */
static cm_status check_targets(const loader *l)
{
    const cm_multi_result *r = l->r;
    for (int i = 0; r->objective == CM_MULTI_FPS && i < r->n_models; i++) {
        const cm_multi_model *m = &r->models[i];
        double want = fmin(l->recorded_fps[i], m->target_fps);
        if (m->fps < want * (1.0 - TOLERANCE))
            return broken(l, "network %s: %.6g fps, below the %.6g fps the design reached "
                          "towards its target of %.6g fps (objective fps, eq. 5)", m->name,
                          m->fps, want, m->target_fps);
    }
    return CM_OK;
}

static cm_status read_facts(loader *l, const json_t *root)
{
    cm_multi_result *r = l->r;
    json_t *search = NULL;
    int64_t v[4] = {0};
    static const char *const keys[] = {"joint_points", "joint_feasible", "joint_distinct",
                                       "joint_scheduled"};
    cm_status st = cm_json_get_object(&l->f, root, "", "search", &search);
    for (int k = 0; st == CM_OK && k < 4; k++)
        st = cm_json_get_int(&l->f, search, "search", keys[k], 0, INT64_MAX, &v[k]);
    r->joint_points = (uint64_t)v[0];
    r->joint_feasible = (uint64_t)v[1];
    r->joint_distinct = (uint64_t)v[2];
    r->joint_scheduled = (uint64_t)v[3];
    if (st == CM_OK)
        st = cm_json_get_bool(&l->f, root, "", "stopped_early", &r->stopped_early);
    if (st == CM_OK)
        st = cm_json_get_bool(&l->f, root, "", "optimal", &r->schedule.optimal);
    return st;
}

/* The options the figures depend on beyond the inputs. */
static cm_status read_options(loader *l, const json_t *root)
{
    json_t *o = NULL;
    l->o = l->q.options;
    cm_status st = cm_json_get_object(&l->f, root, "", "options", &o);
    if (st == CM_OK)
        st = cm_json_get_number(&l->f, o, "options", "clock_mhz", 1.0, 2000.0, &l->o.clock_mhz);
    if (st == CM_OK)
        st = cm_json_get_int32(&l->f, o, "options", "word_bits", 8, 64, &l->o.word_bits);
    if (st == CM_OK)
        st = cm_json_get_int32(&l->f, o, "options", "burst_length", 1, 1 << 20,
                               &l->o.burst_length);
    if (st == CM_OK)
        st = cm_json_get_int32(&l->f, o, "options", "max_slots", 1, 1 << 16, &l->o.max_slots);
    return st;
}

static cm_status check_version(const loader *l, const json_t *root)
{
    const char *format = json_string_value(json_object_get(root, "format"));
    const json_t *v = json_object_get(root, "version");
    if (!format || strcmp(format, "cnnmap-multi-design") != 0)
        return bad(l, "format", "must be \"cnnmap-multi-design\"");
    if (json_is_integer(v) && json_integer_value(v) == 1)
        return cm_error_set(l->err, CM_EINPUT, "%s: a version 1 multi design file records no "
                            "engine design points; write it again with 'cnnmap multi -o'",
                            l->path);
    if (!json_is_integer(v) || json_integer_value(v) != CM_MT_DESIGN_VERSION)
        return bad(l, "version", "must be 2 (this cnnmap reads versions 1 and 2)");
    return CM_OK;
}

static cm_status read_models(loader *l, const json_t *root, bool cyclic)
{
    json_t *models = NULL;
    cm_status st = cm_json_get_array(&l->f, root, "", "models", (size_t)l->q.n_models,
                             (size_t)l->q.n_models, &models);
    if (st == CM_OK)
        st = alloc_schedule(l, l->r->n_models);
    for (int i = 0; st == CM_OK && i < l->r->n_models; i++)
        st = read_model(l, json_array_get(models, (size_t)i), i, cyclic);
    return st;
}

static cm_status read_design(loader *l, const json_t *root)
{
    cm_multi_input in[CM_MULTI_MAX_MODELS];
    const char *kind = json_string_value(json_object_get(root, "schedule_kind"));
    bool cyclic = kind && strcmp(kind, "cyclic") == 0;
    if (!cyclic && (!kind || strcmp(kind, "partitioned") != 0))
        return bad(l, "schedule_kind", "must be \"cyclic\" or \"partitioned\"");
    cm_status st = read_options(l, root);
    if (st == CM_OK) {
        st = cm_mt_request_load(&l->q, &l->board, l->g, in, l->err);
        if (st != CM_OK)
            return cm_design_source_error(l->err, l->path, st);
    }
    if (st == CM_OK)
        st = cm_mt_new_result(in, l->q.n_models, &l->board, &l->o, &l->r, l->err);
    if (st == CM_OK) {
        l->r->schedule.kind = cyclic ? CM_MULTI_CYCLIC : CM_MULTI_PARTITIONED;
        st = read_models(l, root, cyclic);
    }
    if (st == CM_OK)
        st = check_resources(l);
    if (st == CM_OK)
        st = cyclic ? cyclic_schedule(l, root) : partitioned_schedule(l, root);
    if (st == CM_OK)
        st = read_facts(l, root);
    return st;
}

static void figures(loader *l)
{
    cm_multi_result *r = l->r;
    double norm[CM_MULTI_MAX_MODELS], cap[CM_MULTI_MAX_MODELS];
    cm_mt_goal_terms(r, norm, cap);
    cm_mt_goal g = {r->n_models, norm, cap};
    cm_mt_schedule_figures(r, &g, &l->o);
    cm_mt_baseline_figures(r, &g);
}

cm_status cm_multi_design_load(const char *path, cm_multi_result **out, cm_error *err)
{
    *out = NULL;
    loader l;
    memset(&l, 0, sizeof l);
    l.path = path;
    l.err = err;
    l.f = (cm_json_fields){.path = path, .err = err, .dotted = true};
    json_t *root = NULL;
    cm_status st = cm_json_file_read(path, &root, err);
    if (st == CM_OK)
        st = check_version(&l, root);
    if (st == CM_OK)
        st = cm_multi_request_read(path, &l.q, err);
    else
        cm_multi_request_init(&l.q);
    if (st == CM_OK)
        st = read_design(&l, root);
    if (st == CM_OK) {
        figures(&l);
        st = check_targets(&l);
    }
    json_decref(root);
    cm_mt_graphs_free(l.g, l.q.n_models);
    cm_multi_request_free(&l.q);
    if (st != CM_OK) {
        cm_multi_result_free(l.r);
        return st;
    }
    *out = l.r;
    return CM_OK;
}

bool cm_multi_is_design_file(const char *path)
{
    json_t *root = cm_json_load_path(path, 0, NULL);
    const char *format = json_string_value(json_object_get(root, "format"));
    bool multi = format && strcmp(format, "cnnmap-multi-design") == 0;
    json_decref(root);
    return multi;
}
