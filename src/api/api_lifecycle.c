/* The API's design life cycle over any architecture: evaluate and export of a design
 * file, and sweep. */
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include <cnnmap/export.h>
#include <cnnmap/hls.h>
#include <cnnmap/map.h>
#include <cnnmap/sweep.h>

#include "api/api_internal.h"
#include "sweep/sweep_internal.h"

#define SWEEP_MAX_LIST 16

cm_status cm_api_evaluate(cm_request *req, json_t **reply, cm_error *err)
{
    const char *path = NULL;
    bool sdf = false;
    cm_status st = cm_request_string(req, "design", true, &path);
    if (st == CM_OK)
        st = cm_request_bool(req, "sdf", &sdf);
    if (st == CM_OK)
        st = cm_request_finish(req);
    if (st != CM_OK)
        return st;
    /* As `cnnmap evaluate`: the file is read once. */
    cm_design_file f;
    st = cm_design_file_open(path, CM_DESIGN_FILE_EVALUATE, &f, err);
    if (st != CM_OK)
        return st;
    switch (f.arch) {
    case CM_ARCH_MULTI: return cm_api_evaluate_multi(path, reply, err);
    case CM_ARCH_NN2FPGA: return cm_api_evaluate_nn2fpga(path, reply, err);
    case CM_ARCH_OVERLAY: return cm_api_evaluate_overlay(path, reply, err);
    default: return cm_api_evaluate_streaming(path, &f, sdf, reply, err);
    }
}

/* What --format hls wrote (the CLI prints it as text). */
static json_t *hls_summary_json(const cm_hls_summary *s)
{
    json_t *skips = json_array();
    for (int i = 0; skips && i < s->n_skips; i++)
        if (json_array_append_new(skips, json_pack("{s:s, s:s, s:b, s:I, s:I, s:I}", "name",
                                                   s->skips[i].name, "stream", s->skips[i].stream,
                                                   "reuse", s->skips[i].reuse, "activations",
                                                   (json_int_t)s->skips[i].activations,
                                                   "depth_words", (json_int_t)s->skips[i].depth_words,
                                                   "design_activations",
                                                   (json_int_t)s->skips[i].design_activations)) != 0) {
            json_decref(skips);
            skips = NULL;
        }
    return json_pack("{s:i, s:i, s:I, s:i, s:o}", "tasks", s->tasks, "streams", s->streams, "lines",
                     (json_int_t)s->lines, "files", s->files, "skips", skips);
}

/* export: {design, format, output, force, test_vectors, seed}; the reply names what
 * was written (and, for hls, the project's summary). */
cm_status cm_api_export(cm_request *req, json_t **reply, cm_error *err)
{
    const char *path = NULL, *format = NULL, *output = NULL;
    cm_hls_options hls;
    cm_hls_options_init(&hls);
    long seed = (long)hls.seed;
    cm_status st = cm_request_string(req, "design", true, &path);
    if (st == CM_OK)
        st = cm_request_string(req, "format", true, &format);
    if (st == CM_OK)
        st = cm_request_string(req, "output", true, &output);
    if (st == CM_OK)
        st = cm_request_bool(req, "force", &hls.force);
    if (st == CM_OK)
        st = cm_request_int(req, "test_vectors", 1, 100000, &hls.test_vectors);
    if (st == CM_OK)
        st = cm_request_long(req, "seed", 0, LONG_MAX, &seed);
    if (st == CM_OK)
        st = cm_request_finish(req);
    if (st != CM_OK)
        return st;
    hls.seed = (uint64_t)seed;
    cm_hls_summary s;
    st = cm_export_design_file(path, format, output, &hls, &s, err);
    if (st != CM_OK)
        return st;
    json_t *o = json_pack("{s:s, s:s, s:s}", "design", path, "format", format, "output", output);
    if (o && strcmp(format, "hls") == 0 && json_object_set_new(o, "hls", hls_summary_json(&s)) != 0) {
        json_decref(o);
        o = NULL;
    }
    return cm_api_built(o, reply, err);
}

/* ---- sweep ---- */

typedef struct sweep_request {
    cm_sweep_options o;
    cm_board boards[SWEEP_MAX_LIST];
    cm_backend backends[SWEEP_MAX_LIST];
    const char *output;
} sweep_request;

static cm_status sweep_lists(cm_request *req, sweep_request *s, cm_error *err)
{
    const char **names = NULL;
    int n = 0;
    cm_status st = cm_request_strings(req, "board", true, &names, &n);
    if (st == CM_OK && n > SWEEP_MAX_LIST)
        st = cm_error_set(err, CM_EUSAGE, "sweep: board takes 1 to %d boards", SWEEP_MAX_LIST);
    for (int i = 0; st == CM_OK && i < n; i++)
        st = cm_board_resolve(names[i], &s->boards[i], err);
    free(names);
    s->o.n_boards = n;
    if (st != CM_OK)
        return st;
    s->backends[0] = CM_BACKEND_FPGACONVNET;
    s->backends[1] = CM_BACKEND_FINN;
    s->backends[2] = CM_BACKEND_HLS4ML;
    s->o.n_backends = 3;
    names = NULL;
    n = 0;
    st = cm_request_strings(req, "backend", false, &names, &n);
    if (st == CM_OK && n > SWEEP_MAX_LIST)
        st = cm_error_set(err, CM_EUSAGE, "sweep: backend takes 1 to %d backends", SWEEP_MAX_LIST);
    cm_error parse = {0};
    for (int i = 0; st == CM_OK && i < n; i++)
        if (cm_backend_parse(names[i], &s->backends[i], &parse) != CM_OK)
            st = cm_error_set(err, CM_EUSAGE, "sweep: %s", parse.message);
    if (names && st == CM_OK)
        s->o.n_backends = n;
    free(names);
    return st;
}

static cm_status sweep_options(cm_request *req, sweep_request *s, cm_error *err)
{
    const char *objective = NULL, *optimiser = NULL;
    int bits = 0;
    cm_status st = cm_request_string(req, "model", true, &s->o.model_path);
    if (st == CM_OK)
        st = sweep_lists(req, s, err);
    if (st == CM_OK)
        st = cm_request_string(req, "objective", false, &objective);
    if (st == CM_OK && objective && strcmp(objective, "latency") != 0 &&
        strcmp(objective, "throughput") != 0)
        st = cm_error_set(err, CM_EUSAGE, "sweep: unknown objective '%.64s' (latency or throughput)",
                          objective);
    if (st == CM_OK && objective)
        s->o.design.objective = objective[0] == 'l' ? CM_OBJECTIVE_LATENCY : CM_OBJECTIVE_THROUGHPUT;
    if (st == CM_OK)
        st = cm_request_int(req, "batch", 1, 1 << 20, &s->o.design.batch);
    if (st == CM_OK)
        st = cm_request_string(req, "optimiser", false, &optimiser);
    cm_error parse = {0};
    if (st == CM_OK && optimiser && cm_optimiser_parse(optimiser, &s->o.optimiser, &parse) != CM_OK)
        st = cm_error_set(err, CM_EUSAGE, "sweep: %s", parse.message);
    if (st == CM_OK)
        st = cm_request_int(req, "steps", 1, CM_SWEEP_MAX_STEPS, &s->o.steps);
    if (st == CM_OK)
        st = cm_request_double(req, "time_limit", 0.001, 1e7, &s->o.time_limit_s);
    if (st == CM_OK)
        st = cm_request_int(req, "threads", 1, CM_SWEEP_MAX_THREADS, &s->o.threads);
    if (st == CM_OK)
        st = cm_request_int(req, "bits", 1, 32, &bits);
    if (st == CM_OK && bits)
        s->o.design.default_weight_bits = s->o.design.default_act_bits = bits;
    if (st == CM_OK)
        st = cm_request_string(req, "output", false, &s->output);
    if (st == CM_OK && s->output && cm_sweep_check_output(s->output, &parse) != CM_OK)
        st = cm_error_set(err, CM_EUSAGE, "sweep: %s", parse.message);
    return st == CM_OK ? cm_request_finish(req) : st;
}

/* sweep: the object its .json output holds; with "output", that file (.json, .csv or
 * .html) is written as well. */
cm_status cm_api_sweep(cm_request *req, json_t **reply, cm_error *err)
{
    sweep_request s;
    memset(&s, 0, sizeof s);
    cm_sweep_options_init(&s.o);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    s.o.threads = cores < 1 ? 1 : cores > CM_SWEEP_MAX_THREADS ? CM_SWEEP_MAX_THREADS : (int)cores;
    cm_status st = sweep_options(req, &s, err);
    if (st != CM_OK)
        return st;
    s.o.boards = s.boards;
    s.o.backends = s.backends;
    cm_sweep_result r = {0};
    st = cm_sweep_run(&s.o, &r, err);
    if (st == CM_OK && s.output)
        st = cm_sweep_write(&s.o, &r, s.output, err);
    if (st == CM_OK)
        st = cm_api_built(cm_sweep_json(&s.o, &r), reply, err);
    cm_sweep_result_free(&r);
    return st;
}
