/* The API's streaming designs: optimise on every backend (fpgaConvNet, FINN and hls4ml,
 * with the latency-driven flow fpgaConvNet adds on the latency objective, and nn2FPGA),
 * and evaluate's objects for their design files. The request takes the options of
 * `cnnmap optimise --help` with the same defaults and ranges; an option of the other
 * family of backends is refused as the CLI refuses it. */
#include <limits.h>
#include <string.h>

#include <cnnmap/latency.h>
#include <cnnmap/map.h>
#include <cnnmap/nn2fpga.h>

#include "api/api_internal.h"
#include "design/design_json.h"
#include "design/design_outcome.h"
#include "latency/latency_json.h"
#include "nn2fpga/n2_json.h"
#include "nn2fpga/n2_options.h"
#include "optimise/optimise_job.h"

/* What optimise's request names besides the backend's options. */
typedef struct optimise_request {
    const char *model, *board, *output, *optimiser, *objective;
    bool sdf;
} optimise_request;

/* An option the backend does not take: given (neither null nor false, which is what
 * leaving it out says), it is the CLI's usage error for an unknown option. */
static cm_status refuse_foreign(cm_request *req, const char *key, const char *option)
{
    const json_t *v = cm_request_value(req, key);
    if (!v || json_is_false(v))
        return CM_OK;
    return cm_error_set(req->err, CM_EUSAGE, "optimise: unknown option '%s'", option);
}

static cm_status parse_objective(const char *name, cm_objective *out, cm_error *err)
{
    cm_error why = {0};
    if (name && cm_objective_parse(name, out, &why) != CM_OK)
        return cm_error_set(err, CM_EUSAGE, "optimise: %s", why.message);
    return CM_OK;
}

/* The keys every backend reads alike. */
static cm_status read_common(cm_request *req, optimise_request *r)
{
    bool quiet = false; /* accepted: a call never draws a progress bar */
    cm_status st = cm_request_string(req, "model", true, &r->model);
    if (st == CM_OK)
        st = cm_request_string(req, "board", true, &r->board);
    if (st == CM_OK)
        st = cm_request_string(req, "output", false, &r->output);
    if (st == CM_OK)
        st = cm_request_string(req, "optimiser", false, &r->optimiser);
    if (st == CM_OK)
        st = cm_request_string(req, "objective", false, &r->objective);
    if (st == CM_OK)
        st = cm_request_bool(req, "quiet", &quiet);
    return st;
}

/* ---- the streaming backends ---- */

static cm_status read_streaming_numbers(cm_request *req, cm_optimise_job *job)
{
    long seed = (long)job->search.seed;
    int bits = 0;      /* out of range: left alone when not given */
    double util = 0.0;
    cm_status st = cm_request_int(req, "batch", 1, 1 << 20, &job->design.batch);
    if (st == CM_OK)
        st = cm_request_long(req, "seed", 0, LONG_MAX, &seed);
    if (st == CM_OK)
        st = cm_request_double(req, "time_limit", 0.001, 1e7, &job->search.time_limit_s);
    if (st == CM_OK)
        st = cm_request_int(req, "threads", 1, CM_OPTIMISE_MAX_THREADS, &job->search.threads);
    if (st == CM_OK)
        st = cm_request_double(req, "gap", 0.0, 1.0, &job->search.gap);
    if (st == CM_OK)
        st = cm_request_double(req, "clock", 1.0, 2000.0, &job->design.clock_mhz);
    if (st == CM_OK)
        st = cm_request_int(req, "bits", 1, 32, &bits);
    if (st == CM_OK)
        st = cm_request_double(req, "max_util", CM_UTIL_MIN, 1.0, &util);
    if (st == CM_OK)
        st = cm_request_double(req, "target_fps", 1e-6, 1e12, &job->target_fps);
    job->search.seed = (uint64_t)seed;
    if (bits > 0)
        job->design.default_weight_bits = job->design.default_act_bits = bits;
    if (util > 0.0)
        cm_util_caps_set_all(&job->design.max_util, util);
    return st;
}

static cm_status read_streaming_flags(cm_request *req, cm_optimise_job *job, optimise_request *r)
{
    bool no_reconf = false, no_wr = false;
    cm_status st = cm_request_bool(req, "no_reconf", &no_reconf);
    if (st == CM_OK)
        st = cm_request_bool(req, "no_weights_reloading", &no_wr);
    if (st == CM_OK)
        st = cm_request_bool(req, "sdf", &r->sdf);
    if (st == CM_OK)
        st = refuse_foreign(req, "no_temporal_reuse", "--no-temporal-reuse");
    if (st == CM_OK)
        st = refuse_foreign(req, "no_loop_merge", "--no-loop-merge");
    job->design.reconfiguration = !no_reconf;
    job->design.weights_reloading = !no_wr;
    return st;
}

static cm_status read_streaming(cm_request *req, cm_backend backend, optimise_request *r,
                                cm_optimise_job *job, cm_error *err)
{
    cm_optimise_job_init(job); /* the command's clock starts with its request */
    job->design.backend = backend;
    cm_status st = read_common(req, r);
    if (st == CM_OK)
        st = parse_objective(r->objective, &job->design.objective, err);
    cm_error why = {0};
    if (st == CM_OK && r->optimiser &&
        cm_optimiser_parse(r->optimiser, &job->search.optimiser, &why) != CM_OK)
        st = cm_error_set(err, CM_EUSAGE, "optimise: %s", why.message);
    if (st == CM_OK)
        st = read_streaming_numbers(req, job);
    if (st == CM_OK)
        st = read_streaming_flags(req, job, r);
    if (st == CM_OK)
        st = cm_request_finish(req);
    job->model = r->model;
    job->board = r->board;
    return st;
}

/* The object optimise or evaluate gives for a streaming design, the file written where
 * the CLI writes it (output NULL: none), and the command's verdict. */
static cm_status report_streaming(const cm_design *d, const cm_design_run *run, bool sdf,
                                  const char *origin, const char *output, json_t **reply,
                                  cm_error *err)
{
    cm_latency_choice c;
    bool compared = cm_design_compares_latency(d);
    if (compared)
        cm_latency_choose(d, run, &c);
    bool chose = compared && c.chose_latency;
    json_t *obj = compared ? cm_latency_choice_json(d, run, &c, sdf) : cm_design_report_json(d, run);
    cm_status st = cm_api_built(obj, &obj, err);
    if (st == CM_OK && output && cm_design_outcome_writable(d, chose))
        st = compared ? cm_latency_choice_save(d, run, &c, output, err)
                      : cm_design_save(d, run, output, err);
    if (st == CM_OK)
        st = cm_design_outcome_status(d, run, origin, chose, err);
    if (compared)
        cm_latency_choice_free(&c);
    if (st == CM_OK)
        *reply = obj;
    else
        json_decref(obj);
    return st;
}

static cm_status optimise_streaming(cm_request *req, cm_backend backend, json_t **reply,
                                    cm_error *err)
{
    optimise_request r = {0};
    cm_optimise_job job;
    cm_status st = read_streaming(req, backend, &r, &job, err);
    cm_design *d = NULL;
    cm_design_run run;
    /* the reply (a tree), and the design file when asked */
    job.json_trees = 1;
    job.json_streamed = r.output != NULL;
    if (st == CM_OK)
        st = cm_optimise_job_run(&job, &d, &run, err);
    if (st == CM_OK)
        st = report_streaming(d, &run, r.sdf, r.model, r.output, reply, err);
    cm_design_free(d);
    return st;
}

/* ---- nn2FPGA ---- */

static cm_status parse_solver(const char *name, cm_nn2fpga_solver *out, cm_error *err)
{
    cm_error why = {0};
    if (name && cm_nn2fpga_solver_parse(name, out, &why) != CM_OK)
        return cm_error_set(err, CM_EUSAGE, "optimise: %s", why.message);
    return CM_OK;
}

/* The keys the CLI accepts and ignores for nn2FPGA (deterministic, one partition), and
 * the streaming backends' options it refuses. */
static cm_status read_nn2fpga_others(cm_request *req)
{
    long seed = 0;
    bool no_reconf = false;
    cm_status st = cm_request_long(req, "seed", 0, LONG_MAX, &seed);
    if (st == CM_OK)
        st = cm_request_bool(req, "no_reconf", &no_reconf);
    if (st == CM_OK)
        st = refuse_foreign(req, "max_util", "--max-util");
    if (st == CM_OK)
        st = refuse_foreign(req, "target_fps", "--target-fps");
    if (st == CM_OK)
        st = refuse_foreign(req, "no_weights_reloading", "--no-weights-reloading");
    if (st == CM_OK)
        st = refuse_foreign(req, "sdf", "--sdf");
    return st;
}

static cm_status read_nn2fpga_options(cm_request *req, cm_nn2fpga_options *o)
{
    bool no_tr = false, no_lm = false;
    cm_status st = cm_request_int(req, "batch", 1, 1 << 20, &o->batch);
    if (st == CM_OK)
        st = cm_request_double(req, "time_limit", 0.001, 1e7, &o->time_limit_s);
    if (st == CM_OK)
        st = cm_request_double(req, "clock", 1.0, 2000.0, &o->clock_mhz);
    if (st == CM_OK)
        st = cm_request_int(req, "bits", 1, 32, &o->default_bits);
    if (st == CM_OK)
        st = cm_request_bool(req, "no_temporal_reuse", &no_tr);
    if (st == CM_OK)
        st = cm_request_bool(req, "no_loop_merge", &no_lm);
    o->temporal_reuse = !no_tr;
    o->loop_merge = !no_lm;
    return st;
}

static cm_status read_nn2fpga(cm_request *req, optimise_request *r, cm_nn2fpga_options *o,
                              bool *latency, cm_error *err)
{
    cm_nn2fpga_options_init(o);
    o->batch = 0;
    cm_objective objective = CM_OBJECTIVE_THROUGHPUT; /* nn2FPGA's default */
    cm_status st = read_common(req, r);
    if (st == CM_OK)
        st = parse_objective(r->objective, &objective, err);
    *latency = objective == CM_OBJECTIVE_LATENCY;
    if (st == CM_OK)
        st = parse_solver(r->optimiser, &o->solver, err);
    if (st == CM_OK)
        st = read_nn2fpga_options(req, o);
    if (st == CM_OK)
        st = read_nn2fpga_others(req);
    if (st == CM_OK)
        st = cm_request_finish(req);
    if (o->batch == 0)
        o->batch = cm_nn2fpga_default_batch(*latency);
    return st;
}

static cm_status optimise_nn2fpga(cm_request *req, json_t **reply, cm_error *err)
{
    optimise_request r = {0};
    cm_nn2fpga_options o;
    bool latency;
    cm_status st = read_nn2fpga(req, &r, &o, &latency, err);
    cm_nn2fpga_design d;
    if (st == CM_OK)
        st = cm_nn2fpga_design_create(r.model, r.board, &o, latency, &d, err);
    if (st != CM_OK)
        return st;
    /* The file is written first, as the CLI writes it before printing. */
    if (r.output)
        st = cm_nn2fpga_design_save(&d, r.output, err);
    if (st == CM_OK)
        st = cm_api_built(cm_nn2fpga_report_json(&d), reply, err);
    cm_nn2fpga_design_free(&d);
    return st;
}

cm_status cm_api_optimise(cm_request *req, json_t **reply, cm_error *err)
{
    const char *name = NULL;
    cm_status st = cm_request_string(req, "backend", false, &name);
    if (st != CM_OK)
        return st;
    /* nn2FPGA is not a SAMO streaming backend: its own options and integer program */
    if (name && strcmp(name, "nn2fpga") == 0)
        return optimise_nn2fpga(req, reply, err);
    cm_backend backend = CM_BACKEND_FPGACONVNET;
    cm_error why = {0};
    if (name && cm_backend_parse(name, &backend, &why) != CM_OK)
        return cm_error_set(err, CM_EUSAGE, "optimise: %s", why.message);
    return optimise_streaming(req, backend, reply, err);
}

/* ---- evaluate ---- */

/* A latency-driven design file, or a streaming one recording both flows' designs: the
 * choice read back, without searching. */
static cm_status evaluate_choice(const char *path, bool sdf, json_t **reply, cm_error *err)
{
    cm_design *d = NULL;
    cm_design_run run;
    cm_latency_choice c;
    cm_status st = cm_latency_choice_load(path, &d, &run, &c, err);
    if (st != CM_OK)
        return st;
    json_t *obj = cm_latency_choice_json(d, &run, &c, sdf);
    st = cm_api_built(obj, &obj, err);
    if (st == CM_OK)
        st = cm_design_outcome_status(d, &run, path, c.chose_latency, err);
    if (st == CM_OK)
        *reply = obj;
    else
        json_decref(obj);
    cm_latency_choice_free(&c);
    cm_design_free(d);
    return st;
}

cm_status cm_api_evaluate_streaming(const char *path, cm_design_file *f, bool sdf, json_t **reply,
                                    cm_error *err)
{
    if (f->arch == CM_ARCH_LATENCY_DRIVEN)
        return evaluate_choice(path, sdf, reply, err);
    cm_status st = report_streaming(f->design, &f->run, sdf, path, NULL, reply, err);
    cm_design_free(f->design);
    f->design = NULL;
    return st;
}

cm_status cm_api_evaluate_nn2fpga(const char *path, json_t **reply, cm_error *err)
{
    cm_nn2fpga_design d;
    cm_status st = cm_nn2fpga_design_load(path, &d, err);
    if (st != CM_OK)
        return st;
    st = cm_api_built(cm_nn2fpga_report_json(&d), reply, err);
    cm_nn2fpga_design_free(&d);
    return st;
}
