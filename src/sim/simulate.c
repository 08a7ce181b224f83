/* `cnnmap simulate` as a library call: reads a design file of any simulated
 * architecture, has its builder lay it out as engine graphs, runs them in order (sizing
 * FIFOs when asked), and puts each simulated figure beside the cost model's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cnnmap/design.h>
#include <cnnmap/design_io.h>
#include <cnnmap/latency.h>
#include <cnnmap/nn2fpga.h>
#include <cnnmap/simulate.h>

#include "design/fifo_cost.h"
#include "map/architecture.h"
#include "sim/build.h"
#include "sim/sim_nn2fpga.h"
#include "util/progress.h"

#define SIM_MAX_FRAMES 1000000
/* FIFO sizing's bisection runs per part: each is a whole simulation, and the deepest
 * streams (where memory goes) come first. */
#define SIM_SIZING_RUNS 48

void cm_sim_options_init(cm_sim_options *o)
{
    memset(o, 0, sizeof *o);
    o->frames = CM_SIM_DEFAULT_FRAMES;
    o->fifo = CM_SIM_FIFO_DESIGN;
}

/* ---- loading and building ---- */

/* The design file f at path (read once: a streaming design is already in f) laid out. */
static cm_status build_design(const char *path, const cm_design_file *f, sim_build *b,
                              cm_error *err)
{
    cm_status st;
    switch (f->arch) {
    case CM_ARCH_NN2FPGA: {
        cm_nn2fpga_design d;
        if ((st = cm_nn2fpga_design_load(path, &d, err)) != CM_OK)
            return st;
        st = sim_build_nn2fpga(&d, b, err);
        cm_nn2fpga_design_free(&d);
        return st;
    }
    case CM_ARCH_LATENCY_DRIVEN: {
        cm_latency_file lf;
        if ((st = cm_latency_design_load(path, &lf, err)) != CM_OK)
            return st;
        st = sim_build_latency(&lf, b, err);
        cm_latency_file_free(&lf);
        return st;
    }
    case CM_ARCH_STREAMING:
        return sim_build_streaming(f->design, b, err);
    default:
        return cm_error_set(err, CM_EINPUT, "%s: simulate takes streaming, latency-driven and "
                            "nn2FPGA designs; this one is %s (no task graph to simulate)",
                            path, cm_architecture_name(f->arch));
    }
}

/* ---- results ---- */

static cm_status grow_result(cm_sim_result *r, const sim_graph *g)
{
    int nt = r->n_tasks + sim_graph_tasks(g), ns = r->n_streams + sim_graph_streams(g);
    cm_sim_task *t = realloc(r->tasks, (size_t)(nt + 1) * sizeof *t);
    if (t)
        r->tasks = t;
    cm_sim_stream *s = realloc(r->streams, (size_t)(ns + 1) * sizeof *s);
    if (s)
        r->streams = s;
    return t && s ? CM_OK : CM_EINTERNAL;
}

static char *stall_text(const sim_graph *g, const sim_task_stats *st)
{
    bool words = st->starved_cycles >= st->blocked_cycles;
    int s = words ? st->starved_on : st->blocked_on;
    if (s < 0 || (words ? st->starved_cycles : st->blocked_cycles) == 0)
        return NULL;
    const char *name = sim_stream_name(g, s);
    size_t n = strlen(name) + 16;
    char *text = malloc(n);
    if (text)
        snprintf(text, n, "%s in %s", words ? "words" : "room", name);
    return text;
}

/* Appends the part's tasks and streams to r. design_depths: the depths before sizing. */
static cm_status record_part(cm_sim_result *r, int part_index, const sim_part *part,
                             const sim_run_result *rr, const int64_t *design_depths)
{
    const sim_graph *g = part->graph;
    if (grow_result(r, g) != CM_OK)
        return CM_EINTERNAL;
    int64_t span = rr->end_cycle > 0 ? rr->end_cycle : 1;
    for (int i = 0; i < sim_graph_tasks(g); i++) {
        const sim_task_stats *st = &rr->tasks[i];
        cm_sim_task *t = &r->tasks[r->n_tasks];
        memset(t, 0, sizeof *t);
        t->name = strdup(sim_task_name(g, i));
        t->kind = strdup(sim_task_kind(g, i));
        r->n_tasks++;
        if (!t->name || !t->kind)
            return CM_EINTERNAL;
        t->partition = part_index;
        t->iterations = st->iterations;
        t->busy = (double)st->busy_cycles / (double)span;
        t->starved_cycles = st->starved_cycles;
        t->blocked_cycles = st->blocked_cycles;
        t->stalled_by = stall_text(g, st);
        t->analytic_cycles = part->analytic_task_cycles ? part->analytic_task_cycles[i] : 0;
        t->simulated_cycles = st->busy_cycles / rr->frames;
    }
    for (int i = 0; i < sim_graph_streams(g); i++) {
        cm_sim_stream *s = &r->streams[r->n_streams];
        memset(s, 0, sizeof *s);
        s->name = strdup(sim_stream_name(g, i));
        r->n_streams++;
        if (!s->name)
            return CM_EINTERNAL;
        s->partition = part_index;
        s->design_depth = design_depths[i];
        s->depth = sim_stream_depth(g, i);
        s->max_occupancy = rr->streams[i].max_occupancy;
        const int64_t from = rr->in_first[0] >= 0 ? rr->in_first[0] : 0;
        s->first_word_cycle = rr->streams[i].words > 0 ? rr->streams[i].first_write - from : 0;
        s->last_word_cycle = rr->streams[i].words > 0 ? rr->streams[i].last_write - from : -1;
    }
    return CM_OK;
}

/* ---- running ---- */

/* Frames the part runs: the option's, and at least the part's own batch. */
static int part_frames(const sim_part *p, const cm_sim_options *o)
{
    return p->frames > o->frames ? p->frames : o->frames;
}

/* Runs one part (sizing its FIFOs first when asked) into rr; *cut: the deadline
 * stopped the sizing. */
static cm_status run_part(sim_part *p, const cm_sim_options *o, double deadline, int frames,
                          int64_t *design_depths, sim_run_result *rr, int *runs, bool *cut,
                          cm_error *err)
{
    sim_graph *g = p->graph;
    int n = sim_graph_streams(g);
    for (int i = 0; i < n; i++)
        design_depths[i] = sim_stream_depth(g, i);
    if (o->fifo == CM_SIM_FIFO_AUTO) {
        int64_t *depths = malloc((size_t)(n > 0 ? n : 1) * sizeof *depths);
        if (!depths)
            return cm_error_nomem(err);
        cm_status st = sim_size_fifos_until(g, frames, SIM_SIZING_RUNS, deadline, depths, rr,
                                            cut, err);
        free(depths);
        if (st == CM_OK)
            *runs += rr->runs;
        return st;
    }
    sim_run_options ro = {.frames = frames, .max_iterations = o->max_iterations,
                          .deadline_s = deadline};
    (*runs)++;
    return sim_run(g, &ro, rr, err);
}

static void add_figures(cm_sim_result *r, const sim_build *b, const int64_t *span)
{
    if (b->n_parts == 1) {
        r->simulated = r->partitions[0].simulated;
    } else {
        int64_t total = 0;
        int batch = b->batch > 0 ? b->batch : 1;
        for (int i = 0; i < r->n_partitions; i++)
            total += r->partitions[i].before_cycles + span[i];
        r->simulated.latency_cycles = total;
        r->simulated.interval_cycles = total / batch;
    }
    r->analytic.latency_cycles = b->analytic_latency;
    r->analytic.interval_cycles = b->analytic_interval;
}

/* What the time limit stopped, in r's warning. */
static void note_stop(cm_sim_result *r, const char *label, bool partial)
{
    r->stopped_early = true;
    r->partial = r->partial || partial;
    if (partial)
        snprintf(r->warning, sizeof r->warning, "the time limit of %g s stopped the simulation "
                 "in %.63s: its figures cover only what ran by then%s", r->time_limit_s, label,
                 r->fifo == CM_SIM_FIFO_AUTO ? " (no FIFO depths were sized)" : "");
    else if (!r->partial)
        snprintf(r->warning, sizeof r->warning, "the time limit of %g s stopped FIFO sizing in "
                 "%.63s: its depths are those proven by then (they keep the interval but may be "
                 "larger than needed)", r->time_limit_s, label);
}

static cm_status simulate_build(sim_build *b, const cm_sim_options *o, double deadline,
                                cm_sim_result *r, cm_error *err)
{
    r->partitions = calloc((size_t)b->n_parts + 1, sizeof *r->partitions);
    int64_t *span = calloc((size_t)b->n_parts + 1, sizeof *span);
    cm_progress bar;
    cm_progress_init(&bar, o->progress, "simulate");
    cm_status st = r->partitions && span ? CM_OK : cm_error_nomem(err);
    for (int i = 0; i < b->n_parts && st == CM_OK && !r->deadlock && !r->partial; i++) {
        sim_part *p = &b->parts[i];
        int frames = part_frames(p, o);
        int64_t *design_depths = malloc(((size_t)sim_graph_streams(p->graph) + 1) * sizeof *design_depths);
        sim_run_result rr;
        memset(&rr, 0, sizeof rr);
        bool cut = false;
        st = design_depths ? run_part(p, o, deadline, frames, design_depths, &rr, &r->runs, &cut, err)
                           : cm_error_nomem(err);
        if (st == CM_OK && (cut || rr.stopped_early))
            note_stop(r, p->label, rr.stopped_early);
        if (st == CM_OK) {
            cm_sim_partition *cp = &r->partitions[r->n_partitions++];
            snprintf(cp->label, sizeof cp->label, "%s", p->label);
            cp->frames = frames;
            cp->before_cycles = p->before_cycles;
            cp->simulated = (cm_sim_figures){rr.latency_cycles, rr.interval_cycles};
            cp->analytic = (cm_sim_figures){p->analytic_latency, p->analytic_interval};
            int last = (p->frames > 0 ? p->frames : frames) - 1;
            span[i] = rr.out_last[last] >= 0 && rr.in_first[0] >= 0 ? rr.out_last[last] - rr.in_first[0] : 0;
            r->iterations += rr.iterations;
            r->cycles += rr.end_cycle;
            if (rr.deadlock) {
                r->deadlock = true;
                snprintf(r->deadlock_cycle, sizeof r->deadlock_cycle, "%.63s: %s", p->label,
                         rr.deadlock_cycle);
            }
            if (record_part(r, i, p, &rr, design_depths) != CM_OK)
                st = cm_error_nomem(err);
        }
        sim_run_result_free(&rr);
        free(design_depths);
        cm_progress_update(&bar, (double)(i + 1) / b->n_parts, p->label);
    }
    cm_progress_done(&bar);
    if (st == CM_OK)
        add_figures(r, b, span);
    free(span);
    return st;
}

cm_status cm_simulate(const char *design_path, const cm_sim_options *o, cm_sim_result *out,
                      cm_error *err)
{
    memset(out, 0, sizeof *out);
    if (o->frames < 1 || o->frames > SIM_MAX_FRAMES)
        return cm_error_set(err, CM_EUSAGE, "simulate: frames must be 1 to %d", SIM_MAX_FRAMES);
    double t0 = cm_seconds_now();
    cm_design_file f;
    cm_status st = cm_design_file_open(design_path, CM_DESIGN_FILE_AS_WRITTEN, &f, err);
    if (st != CM_OK)
        return st;
    sim_build b;
    memset(&b, 0, sizeof b);
    st = build_design(design_path, &f, &b, err);
    cm_design_free(f.design);
    /* the loaders name the file; a builder names only the node it cannot lay out */
    if (st != CM_OK && err && strncmp(err->message, design_path, strlen(design_path)) != 0)
        cm_error_prefix(err, design_path);
    if (st == CM_OK && b.n_parts == 0)
        st = cm_error_set(err, CM_EINPUT, "%s: the design has nothing to simulate", design_path);
    out->architecture = f.arch;
    out->frames = o->frames;
    out->fifo = o->fifo;
    out->clock_mhz = b.clock_mhz;
    out->time_limit_s = o->time_limit_s;
    if (st == CM_OK) {
        st = simulate_build(&b, o, o->time_limit_s > 0 ? t0 + o->time_limit_s : 0, out, err);
        if (st != CM_OK)
            cm_error_prefix(err, design_path);
    }
    sim_build_free(&b);
    out->time_s = cm_seconds_now() - t0;
    if (st != CM_OK)
        cm_sim_result_free(out);
    return st;
}

/* The result's streams once each (a name the simulation gives two streams, two edges
 * between the same nodes, records the deeper). */
static int unique_streams(const cm_sim_result *r, const char **names, int64_t *depths)
{
    int n = 0;
    for (int i = 0; i < r->n_streams; i++) {
        int k = 0;
        while (k < n && strcmp(names[k], r->streams[i].name) != 0)
            k++;
        if (k == n) {
            names[n] = r->streams[i].name;
            depths[n++] = r->streams[i].depth;
        } else if (r->streams[i].depth > depths[k]) {
            depths[k] = r->streams[i].depth;
        }
    }
    return n;
}

/* A streaming design with its FIFO depths recorded: refused when they alone push it
 * over the board. */
static cm_status save_streaming(const char *design_path, const char **names, const int64_t *depths,
                                int n, const char *out_path, cm_error *err)
{
    cm_design *d = NULL;
    cm_design_run run;
    cm_status st = cm_design_load(design_path, &d, &run, err);
    if (st != CM_OK)
        return st;
    const bool feasible = cm_design_feasible(d);
    st = cm_design_set_fifo_depths(d, names, depths, n, err);
    if (st != CM_OK) {
        cm_error_prefix(err, design_path);
    } else if (feasible && !cm_design_feasible(d)) {
        cm_violation v;
        cm_design_check(d, &v, 1);
        st = cm_error_set(err, CM_EINFEASIBLE, "%s: the sized FIFO depths push the design over "
                          "the board: %s (no design written)", design_path, v.message);
    } else {
        st = cm_design_save(d, &run, out_path, err);
    }
    cm_design_free(d);
    return st;
}

static cm_status save_nn2fpga(const char *design_path, const char **names, const int64_t *depths,
                              int n, const char *out_path, cm_error *err)
{
    cm_nn2fpga_design d;
    cm_status st = cm_nn2fpga_design_load(design_path, &d, err);
    if (st != CM_OK)
        return st;
    st = sim_nn2fpga_set_depths(&d, names, depths, n, err);
    if (st == CM_OK)
        st = cm_nn2fpga_design_save(&d, out_path, err);
    cm_nn2fpga_design_free(&d);
    return st;
}

cm_status cm_simulate_save_depths(const char *design_path, const cm_sim_result *r,
                                  const char *out_path, cm_error *err)
{
    if (r->architecture != CM_ARCH_NN2FPGA && r->architecture != CM_ARCH_STREAMING)
        return cm_error_set(err, CM_EINPUT, "%s: only nn2FPGA and streaming design files hold "
                            "stream depths; this one is %s", design_path,
                            cm_architecture_name(r->architecture));
    if (r->partial)
        return cm_error_set(err, CM_EINFEASIBLE, "%s: the time limit of %g s stopped the "
                            "simulation before its depths were proven (no design written)",
                            design_path, r->time_limit_s);
    const char **names = malloc(((size_t)r->n_streams + 1) * sizeof *names);
    int64_t *depths = malloc(((size_t)r->n_streams + 1) * sizeof *depths);
    cm_status st;
    if (!names || !depths) {
        st = cm_error_nomem(err);
    } else if (r->architecture == CM_ARCH_NN2FPGA) {
        for (int i = 0; i < r->n_streams; i++) {
            names[i] = r->streams[i].name;
            depths[i] = r->streams[i].depth;
        }
        st = save_nn2fpga(design_path, names, depths, r->n_streams, out_path, err);
    } else {
        int n = unique_streams(r, names, depths);
        st = save_streaming(design_path, names, depths, n, out_path, err);
    }
    free(names);
    free(depths);
    return st;
}

void cm_sim_result_free(cm_sim_result *r)
{
    if (!r)
        return;
    for (int i = 0; r->tasks && i < r->n_tasks; i++) {
        free(r->tasks[i].name);
        free(r->tasks[i].kind);
        free(r->tasks[i].stalled_by);
    }
    for (int i = 0; r->streams && i < r->n_streams; i++)
        free(r->streams[i].name);
    free(r->tasks);
    free(r->streams);
    free(r->partitions);
    memset(r, 0, sizeof *r);
}
