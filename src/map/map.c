/* cm_map_model: one model onto one board in every architecture asked for, each with its
 * best optimiser, and the choice of the best. The time limit is shared out as the
 * candidates run: each gets an equal part of what is left, so time a fast candidate
 * does not use goes to the ones after it. */
#include <cnnmap/map.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cnnmap/design_io.h>
#include <cnnmap/latency.h>
#include <cnnmap/model.h>
#include <cnnmap/nn2fpga.h>
#include <cnnmap/optimise.h>
#include <cnnmap/overlay.h>

#include "util/path.h"
#include "util/progress.h"

/* A candidate's design, kept so that the caller can write it (cm_map_save). */
struct cm_map_design {
    cm_architecture architecture;
    cm_design *streaming;
    cm_design_run run;              /* streaming: how it was found */
    cm_latency_options latency_options;
    cm_latency_design latency;
    bool has_latency;
    cm_nn2fpga_design nn2fpga;
    bool has_nn2fpga;
    cm_overlay_design overlay;
    bool has_overlay;
};

/* What a result owns besides its figures. */
struct cm_map_state {
    cm_graph *graph;    /* the model, shared by the latency-driven, nn2FPGA and overlay runs */
    char *model_abs;    /* the model's absolute path, as design files record it */
    char *board_ref;    /* a built-in board's name or a board file's absolute path */
    struct cm_map_design designs[CM_MAP_CANDIDATES];
};

/* a candidate's share never drops below this, so that a late one still gets its first
 * points (an exact search then returns its incumbent with stopped_early) */
#define MAP_MIN_SHARE_S 0.05
#define MAP_LIMIT_USE 0.95

typedef struct mapping {
    const char *model_path;
    const char *model_abs;  /* what design files record */
    const char *board_ref;  /* a built-in name, or a board file's absolute path */
    const cm_board *board;
    const cm_graph *graph; /* shared, read-only; streaming designs load their own */
    const cm_map_options *o;
    double deadline;
    int left;              /* candidates still to run */
} mapping;

/* The time a candidate gets: its part of a user's limit, or 0 (its own budget, no
 * clock) without one. */
static double share(mapping *m)
{
    if (isinf(m->deadline)) {
        m->left--;
        return 0.0;
    }
    double rest = m->deadline - cm_seconds_now();
    double s = rest / (m->left > 0 ? m->left : 1);
    m->left--;
    return fmax(s, MAP_MIN_SHARE_S);
}

static void set_reason(cm_map_candidate *c, const char *text)
{
    snprintf(c->reason, sizeof c->reason, "%.500s", text);
}

static void finish_figures(cm_map_candidate *c, int batch)
{
    c->throughput_fps = c->feasible && c->latency_s > 0 ? batch / c->latency_s : 0.0;
}

/* ---- streaming partitions (SAMO's backends), exact optimiser ---- */

static void run_streaming(mapping *m, cm_backend backend, cm_map_candidate *c,
                          struct cm_map_design *keep)
{
    cm_error err = {0};
    cm_graph *g = NULL;
    cm_design *d = NULL;
    cm_design_options dopt;
    cm_design_options_init(&dopt);
    dopt.backend = backend;
    dopt.objective = m->o->objective;
    dopt.batch = m->o->objective == CM_OBJECTIVE_LATENCY ? 1 : m->o->batch;
    dopt.weights_reloading = false; /* the latency-driven flow is a candidate of its own */
    c->optimiser = cm_optimiser_name(CM_OPTIMISER_EXACT);
    double limit = share(m);
    if (cm_model_load(m->model_path, &g, &err) != CM_OK ||
        cm_design_create(g, m->board, &dopt, &d, &err) != CM_OK) {
        cm_graph_free(g);
        set_reason(c, err.message);
        return;
    }
    c->available = true;
    cm_optimise_options oo = {.optimiser = CM_OPTIMISER_EXACT, .seed = 1, .time_limit_s = limit};
    cm_optimise_result r;
    if (cm_design_set_sources(d, m->model_abs, m->board_ref, &err) != CM_OK ||
        cm_optimise(d, &oo, &r, &err) != CM_OK) {
        set_reason(c, err.message);
        cm_design_free(d);
        return;
    }
    cm_design_summary s;
    cm_design_summarise(d, &s);
    c->feasible = s.feasible;
    c->latency_s = s.latency_s;
    c->throughput_fps = s.feasible ? s.throughput_fps : 0.0;
    c->resources = s.resources;
    c->has_memory = c->has_logic = true;
    c->has_lower_bound = r.has_lower_bound && s.feasible;
    c->lower_bound_s = r.lower_bound_s;
    c->optimal = c->has_lower_bound && !r.stopped_early &&
                 s.latency_s <= r.lower_bound_s * (1.0 + 1e-2);
    c->stopped_early = r.stopped_early;
    if (!s.feasible) {
        cm_violation v;
        if (cm_design_check(d, &v, 1) > 0)
            snprintf(c->reason, sizeof c->reason, "%s%.480s",
                     r.proven_infeasible ? "proven: " : "", v.message);
        cm_design_free(d);
        return;
    }
    if (!c->optimal && r.note[0])
        set_reason(c, r.note);
    keep->streaming = d;
    keep->run = (cm_design_run){.optimiser = CM_OPTIMISER_EXACT, .seed = 1,
                                .time_limit_s = limit, .result = r};
}

/* ---- fpgaConvNet's latency-driven reference architecture ---- */

static void run_latency_driven(mapping *m, cm_map_candidate *c, struct cm_map_design *keep)
{
    cm_error err = {0};
    cm_latency_options *lo = &keep->latency_options;
    cm_latency_options_init(lo);
    lo->batch = m->o->objective == CM_OBJECTIVE_LATENCY ? 1 : m->o->batch;
    lo->search = CM_LATENCY_SEARCH_EXACT;
    lo->time_limit_s = share(m);
    c->optimiser = cm_optimiser_name(CM_OPTIMISER_EXACT);
    cm_latency_design *ld = &keep->latency;
    cm_status st = cm_latency_optimise(m->graph, m->board, lo, ld, &err);
    keep->has_latency = true; /* filled even when it fails: freed with the result */
    c->available = st == CM_OK || st == CM_EINFEASIBLE;
    c->feasible = st == CM_OK && ld->feasible;
    if (st != CM_OK)
        set_reason(c, err.message);
    if (!c->available)
        return;
    c->latency_s = ld->latency_s;
    c->resources = ld->resources;
    c->has_memory = c->has_logic = true;
    c->has_lower_bound = ld->has_lower_bound;
    c->lower_bound_s = ld->lower_bound_s;
    c->optimal = ld->optimal;
    c->stopped_early = ld->stopped_early;
}

/* ---- nn2FPGA, for quantised models ---- */

static bool quantised(const cm_graph *g)
{
    for (int i = 0; i < g->n_layers; i++)
        if (g->layers[i].weight_q.quantised || g->layers[i].out_q.quantised)
            return true;
    return false;
}

static void run_nn2fpga(mapping *m, cm_map_candidate *c, struct cm_map_design *keep)
{
    cm_error err = {0};
    cm_nn2fpga_options no;
    cm_nn2fpga_options_init(&no);
    bool latency = m->o->objective == CM_OBJECTIVE_LATENCY;
    no.batch = latency ? 1 : m->o->batch;
    c->optimiser = cm_nn2fpga_solver_name(no.solver);
    double limit = share(m);
    if (!quantised(m->graph)) {
        set_reason(c, "the model is not quantised: nn2FPGA maps QONNX integer models");
        return;
    }
    no.time_limit_s = limit; /* the whole optimisation, both phases */
    /* the design, not the bare optimiser: it sizes the skip FIFOs as the generated
     * dataflow builds them, and their BRAM counts */
    cm_nn2fpga_design *d = &keep->nn2fpga;
    cm_status st = cm_nn2fpga_design_create(m->model_path, m->board_ref, &no, latency, d, &err);
    c->available = st == CM_OK || st == CM_EINFEASIBLE;
    c->feasible = st == CM_OK;
    if (st != CM_OK) {
        set_reason(c, err.message);
        return;
    }
    keep->has_nn2fpga = true;
    const cm_nn2fpga_result *r = &d->result;
    c->latency_s = (double)r->latency_cycles / (r->clock_mhz * 1e6);
    c->throughput_fps = r->fps; /* a dataflow pipeline: one frame every S cycles */
    c->resources = (cm_resources){.dsp = r->dsp, .bram18 = r->bram18, .uram = r->uram};
    c->has_memory = true;
    /* the programs minimise the period S: optimal for throughput, not for latency */
    c->optimal = r->optimal && !latency;
    if (r->optimal && !c->optimal)
        set_reason(c, "the period S is proven minimal; the latency is not minimised");
}

/* ---- DYNAMAP's overlay ---- */

static void run_overlay(mapping *m, cm_map_candidate *c, struct cm_map_design *keep)
{
    cm_error err = {0};
    cm_overlay_options oo;
    cm_overlay_options_default(&oo);
    oo.time_limit_s = share(m);
    c->optimiser = "pbqp";
    cm_overlay_design *d = &keep->overlay;
    cm_status st = cm_overlay_design_create(m->model_path, m->board_ref, &oo, d, &err);
    c->available = st == CM_OK || st == CM_EINFEASIBLE;
    c->feasible = st == CM_OK;
    if (st != CM_OK) {
        set_reason(c, err.message);
        return;
    }
    keep->has_overlay = true;
    const cm_overlay_result *r = d->result;
    /* one image at a time: a batch takes batch times as long */
    int batch = m->o->objective == CM_OBJECTIVE_LATENCY ? 1 : m->o->batch;
    c->latency_s = r->latency_s * batch;
    c->resources = (cm_resources){.dsp = r->dsp, .bram18 = r->bram18};
    c->has_memory = true;
    /* PBQP proves the per-layer algorithms optimal for the array, but the array's shape
     * comes from DYNAMAP's Algorithm 1, which is no proof over all arrays */
    c->optimal = false;
    c->stopped_early = r->stopped_early;
    set_reason(c, r->optimal ? "algorithms proven optimal for the chosen array (PBQP); the "
                               "array shape is Algorithm 1's"
                             : r->not_optimal_reason);
}

/* ---- the whole ---- */

void cm_map_options_init(cm_map_options *o)
{
    memset(o, 0, sizeof *o);
    o->spaces = CM_MAP_ALL;
    o->objective = CM_OBJECTIVE_LATENCY;
    o->batch = 256;
    o->time_limit_s = 0.0; /* no cap: each search stops by its budget */
}

typedef struct candidate_kind {
    unsigned space;
    const char *space_name; /* in cm_map_parse_spaces's lists */
    cm_architecture architecture;
    const char *backend;
} candidate_kind;

static const candidate_kind kinds[CM_MAP_CANDIDATES] = {
    {CM_MAP_FPGACONVNET, "fpgaconvnet", CM_ARCH_STREAMING, "fpgaconvnet"},
    {CM_MAP_FINN, "finn", CM_ARCH_STREAMING, "finn"},
    {CM_MAP_HLS4ML, "hls4ml", CM_ARCH_STREAMING, "hls4ml"},
    {CM_MAP_LATENCY_DRIVEN, "latency-driven", CM_ARCH_LATENCY_DRIVEN, "fpgaconvnet"},
    {CM_MAP_NN2FPGA, "nn2fpga", CM_ARCH_NN2FPGA, "nn2fpga"},
    {CM_MAP_OVERLAY, "overlay", CM_ARCH_OVERLAY, "dynamap"},
};

cm_status cm_map_parse_spaces(const char *list, unsigned *spaces, cm_error *err)
{
    *spaces = 0;
    const char *p = list;
    while (*p) {
        size_t len = strcspn(p, ",");
        unsigned bit = 0;
        for (int k = 0; k < CM_MAP_CANDIDATES; k++)
            if (strlen(kinds[k].space_name) == len && strncmp(p, kinds[k].space_name, len) == 0)
                bit = kinds[k].space;
        if (!bit)
            return cm_error_set(err, CM_EUSAGE,
                                "unknown architecture '%.*s' (fpgaconvnet, finn, hls4ml, "
                                "latency-driven, nn2fpga, overlay)", (int)len, p);
        *spaces |= bit;
        p += len + (p[len] == ',');
    }
    if (!*spaces)
        return cm_error_set(err, CM_EUSAGE, "an empty list of architectures");
    return CM_OK;
}

/* The searches that end by their own criterion in well under a second run first, so
 * that the time they leave goes to the exact streaming searches, which can use it. */
static const int run_order[CM_MAP_CANDIDATES] = {5, 3, 4, 2, 1, 0};

static void run_candidate(mapping *m, int k, cm_map_candidate *c, struct cm_map_design *keep)
{
    double start = cm_seconds_now();
    keep->architecture = kinds[k].architecture;
    switch (k) {
    case 0: run_streaming(m, CM_BACKEND_FPGACONVNET, c, keep); break;
    case 1: run_streaming(m, CM_BACKEND_FINN, c, keep); break;
    case 2: run_streaming(m, CM_BACKEND_HLS4ML, c, keep); break;
    case 3: run_latency_driven(m, c, keep); break;
    case 4: run_nn2fpga(m, c, keep); break;
    default: run_overlay(m, c, keep); break;
    }
    c->time_s = cm_seconds_now() - start;
    if (c->throughput_fps == 0.0)
        finish_figures(c, m->o->objective == CM_OBJECTIVE_LATENCY ? 1 : m->o->batch);
}

/* Lower latency on the latency objective, higher throughput on the throughput one;
 * ties keep the earlier candidate. */
static int best_of(const cm_map_result *r)
{
    int best = -1;
    for (int i = 0; i < r->n_candidates; i++) {
        const cm_map_candidate *c = &r->candidates[i];
        if (!c->feasible)
            continue;
        if (best < 0)
            best = i;
        else if (r->objective == CM_OBJECTIVE_LATENCY
                     ? c->latency_s < r->candidates[best].latency_s
                     : c->throughput_fps > r->candidates[best].throughput_fps)
            best = i;
    }
    return best;
}

static void design_free(struct cm_map_design *d)
{
    cm_design_free(d->streaming);
    if (d->has_latency)
        cm_latency_design_free(&d->latency);
    if (d->has_nn2fpga)
        cm_nn2fpga_design_free(&d->nn2fpga);
    if (d->has_overlay)
        cm_overlay_design_free(&d->overlay);
}

void cm_map_result_free(cm_map_result *r)
{
    struct cm_map_state *st = r->state;
    if (!st)
        return;
    for (int k = 0; k < CM_MAP_CANDIDATES; k++)
        design_free(&st->designs[k]);
    cm_graph_free(st->graph);
    free(st->model_abs);
    free(st->board_ref);
    free(st);
    r->state = NULL;
}

/* The model, the board and what design files will record of them. */
static cm_status load_sources(const char *model_path, const char *board_ref, cm_board *board,
                              struct cm_map_state *st, cm_error *err)
{
    cm_status s = cm_board_resolve(board_ref, board, err);
    if (s == CM_OK)
        s = cm_model_load(model_path, &st->graph, err);
    if (s != CM_OK)
        return s;
    bool builtin = cm_board_builtin(board_ref, board, NULL) == CM_OK;
    st->model_abs = cm_path_absolute(model_path);
    st->board_ref = builtin ? strdup(board->name) : cm_path_absolute(board_ref);
    return st->model_abs && st->board_ref ? CM_OK : cm_error_nomem(err);
}

cm_status cm_map_model(const char *model_path, const char *board_ref, const cm_map_options *o,
                       cm_map_result *out, cm_error *err)
{
    double start = cm_seconds_now();
    memset(out, 0, sizeof *out);
    unsigned spaces = o->spaces ? o->spaces : CM_MAP_ALL;
    struct cm_map_state *state = calloc(1, sizeof *state);
    if (!state)
        return cm_error_nomem(err);
    out->state = state;
    cm_board board;
    cm_status st = load_sources(model_path, board_ref, &board, state, err);
    if (st != CM_OK) {
        cm_map_result_free(out);
        return st;
    }
    /* the searches overrun their shares by a little (a step in flight, freeing): keep
     * a margin so that the whole returns within a user's limit */
    mapping m = {.model_path = model_path, .model_abs = state->model_abs,
                 .board_ref = state->board_ref, .board = &board, .graph = state->graph,
                 .o = o, .deadline = o->time_limit_s > 0 ? start + MAP_LIMIT_USE * o->time_limit_s
                                                         : INFINITY};
    for (int k = 0; k < CM_MAP_CANDIDATES; k++)
        m.left += (spaces & kinds[k].space) != 0;
    snprintf(out->model, sizeof out->model, "%.250s", state->graph->name);
    snprintf(out->board, sizeof out->board, "%.90s", board.name);
    out->objective = o->objective;
    out->batch = o->objective == CM_OBJECTIVE_LATENCY ? 1 : o->batch;
    cm_progress bar;
    cm_progress_init(&bar, o->progress, "compare");
    int total = m.left;
    out->n_candidates = CM_MAP_CANDIDATES;
    for (int k = 0; k < CM_MAP_CANDIDATES; k++) {
        cm_map_candidate *c = &out->candidates[k];
        c->architecture = kinds[k].architecture;
        c->backend = kinds[k].backend;
        c->searched = (spaces & kinds[k].space) != 0;
        if (!c->searched)
            set_reason(c, "not searched");
    }
    for (int i = 0; i < CM_MAP_CANDIDATES; i++) {
        int k = run_order[i];
        if (!out->candidates[k].searched)
            continue;
        cm_progress_update(&bar, (double)(total - m.left) / total, kinds[k].space_name);
        run_candidate(&m, k, &out->candidates[k], &state->designs[k]);
    }
    cm_progress_done(&bar);
    out->best = best_of(out);
    out->time_s = cm_seconds_now() - start;
    return CM_OK;
}

cm_status cm_map_save(const cm_map_result *r, int candidate, const char *path, cm_error *err)
{
    if (!r->state || candidate < 0 || candidate >= r->n_candidates ||
        !r->candidates[candidate].feasible)
        return cm_error_set(err, CM_EUSAGE, "candidate %d has no design to write", candidate);
    const struct cm_map_state *st = r->state;
    const struct cm_map_design *d = &st->designs[candidate];
    switch (d->architecture) {
    case CM_ARCH_STREAMING: return cm_design_save(d->streaming, &d->run, path, err);
    case CM_ARCH_LATENCY_DRIVEN:
        return cm_latency_design_save(path, st->model_abs, st->board_ref, st->graph,
                                      &d->latency_options, &d->latency, err);
    case CM_ARCH_NN2FPGA: return cm_nn2fpga_design_save(&d->nn2fpga, path, err);
    case CM_ARCH_OVERLAY: return cm_overlay_design_save(&d->overlay, path, err);
    default: return cm_error_set(err, CM_EINTERNAL, "no writer for this architecture");
    }
}
