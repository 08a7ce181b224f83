/* Design files: writing a design with its figures, and reading one back by
 * rebuilding the design from the model and board it names and applying the recorded
 * foldings and partitions. */
#include <cnnmap/design_io.h>
#include <cnnmap/model.h>

#include "design/design_file.h"
#include "design/fifo_cost.h"
#include "design/design_internal.h"
#include "design/design_json.h"
#include "util/json_build.h"
#include "util/json_fields.h"
#include "util/json_file.h"
#include "util/path.h"
#include "sim/sim_streaming.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CM_DESIGN_FORMAT "cnnmap-design"
#define CM_DESIGN_VERSION 1

/* The recorded FIFO depths, stream name -> words; NULL when out of memory (which
 * json_object_set_new then refuses). */
static json_t *fifo_depths_json(const cm_fifo_set *f)
{
    json_t *o = json_object();
    for (int i = 0; o && i < f->n; i++)
        if (json_object_set_new(o, f->name[i], json_integer(f->depth[i])) != 0) {
            json_decref(o);
            o = NULL;
        }
    return o;
}

/* "max_util": one fraction when every resource has the same, else one per resource. */
static json_t *max_util_json(const cm_util_caps *c)
{
    cm_util_caps w = *c;
    double *f[] = {&w.dsp, &w.bram18, &w.uram, &w.lut, &w.ff};
    for (size_t k = 0; k < sizeof f / sizeof *f; k++)
        if (*f[k] <= 0.0 || *f[k] > 1.0)
            *f[k] = 1.0;
    if (w.dsp == w.bram18 && w.dsp == w.uram && w.dsp == w.lut && w.dsp == w.ff)
        return json_real(w.dsp);
    return json_pack("{s:f, s:f, s:f, s:f, s:f}", "dsp", w.dsp, "bram18", w.bram18, "uram",
                     w.uram, "lut", w.lut, "ff", w.ff);
}

/* The keys a design file records before its tables: the decisions, with the report's
 * "optimiser" object (taken from head). json_pack fails as a whole when any value is
 * missing (out of memory) or is a real jansson refuses (not finite), so no key can
 * silently go missing from the file. */
static json_t *file_header_json(const cm_design *d, const cm_design_run *run, json_t *head)
{
    json_t *o = json_pack(
        "{s:s, s:i, s:s, s:s, s:s, s:s, s:i, s:f, s:b, s:b, s:i, s:i, s:O}", "format",
        CM_DESIGN_FORMAT, "version", CM_DESIGN_VERSION, "model_path", cm_design_model_path(d),
        "board", cm_design_board_ref(d), "backend", cm_backend_name(d->opt.backend), "objective",
        d->opt.objective == CM_OBJECTIVE_LATENCY ? "latency" : "throughput", "batch",
        d->opt.batch, "clock_mhz", d->opt.clock_mhz, "reconfiguration", d->opt.reconfiguration,
        "weights_reloading", d->opt.weights_reloading, "default_weight_bits",
        d->opt.default_weight_bits, "default_act_bits", d->opt.default_act_bits, "optimiser",
        json_object_get(head, "optimiser"));
    bool ok = o != NULL;
    cm_json_put(o, "max_util", max_util_json(&d->opt.max_util), &ok);
    if (run->result.has_lower_bound)
        cm_json_put(o, "lower_bound_s", json_real(run->result.lower_bound_s), &ok);
    return cm_json_finish(o, ok);
}

/* A design file: the header, "nodes", "fifo_depths" when recorded, then "summary" (the
 * report without its nodes, its partition table last). */
void cm_design_stream_file(cm_json_stream *s, const cm_design *d, const cm_design_run *run)
{
    json_t *head = cm_design_report_head_json(d, run);
    cm_json_stream_members(s, head ? file_header_json(d, run, head) : NULL);
    cm_design_stream_nodes(s, d);
    if (d->fifo)
        cm_json_stream_put(s, "fifo_depths", fifo_depths_json(d->fifo));
    cm_json_stream_open(s, "summary", '{');
    cm_json_stream_members(s, head);
    cm_design_stream_partitions(s, d);
    cm_json_stream_close(s);
}

/* cm_design_file_json's object, streamed: a 10,000-node file's tree took most of
 * writing it. */
bool cm_design_file_text(const cm_design *d, const cm_design_run *run, cm_strbuf *out)
{
    cm_json_stream s;
    cm_json_stream_begin(&s, out, CM_DESIGN_FILE_FLAGS);
    cm_design_stream_file(&s, d, run);
    return cm_json_stream_end(&s);
}

cm_status cm_design_save(const cm_design *d, const cm_design_run *run, const char *path,
                         cm_error *err)
{
    cm_strbuf text = {0};
    return cm_json_text_write(path, &text, cm_design_file_text(d, run, &text), err);
}

/* ---- reading ---- */

typedef struct reader {
    const char *path;
    json_t *root;
    cm_error *err;
    cm_json_fields f;
} reader;

static cm_status bad(reader *r, const char *what, const char *detail)
{
    return cm_error_set(r->err, CM_EINPUT, "%s: %s%s", r->path, what, detail ? detail : "");
}

/* "max_util" (absent in files of earlier versions: the whole board) is a fraction in
 * (0, 1] or an object of them by resource. */
static cm_status read_max_util(reader *r, cm_util_caps *c)
{
    cm_util_caps_set_all(c, 1.0);
    json_t *m = json_object_get(r->root, "max_util");
    if (!m)
        return CM_OK;
    static const char *const keys[] = {"dsp", "bram18", "uram", "lut", "ff"};
    double *f[] = {&c->dsp, &c->bram18, &c->uram, &c->lut, &c->ff};
    if (json_is_number(m)) {
        double v = 0;
        cm_status st = cm_json_get_number(&r->f, r->root, "", "max_util", CM_UTIL_MIN, 1.0, &v);
        cm_util_caps_set_all(c, v);
        return st;
    }
    if (!json_is_object(m))
        return bad(r, "\"max_util\" must be a fraction in (0, 1] or an object of them", NULL);
    cm_status st = CM_OK;
    for (size_t k = 0; k < sizeof keys / sizeof *keys && st == CM_OK; k++)
        if (json_object_get(m, keys[k]))
            st = cm_json_get_number(&r->f, m, "max_util: ", keys[k], CM_UTIL_MIN, 1.0, f[k]);
    return st;
}

static cm_status read_options(reader *r, cm_design_options *o)
{
    const char *backend = NULL, *objective = NULL;
    int64_t batch = 1, wbits = 0, abits = 0;
    double clock = 0;
    cm_design_options_init(o);
    cm_status st = cm_json_get_string(&r->f, r->root, "", "backend", 0, &backend);
    if (st == CM_OK && cm_backend_parse(backend, &o->backend, NULL) != CM_OK)
        st = bad(r, "unknown backend ", backend);
    if (st == CM_OK)
        st = cm_json_get_string(&r->f, r->root, "", "objective", 0, &objective);
    if (st == CM_OK) {
        if (strcmp(objective, "latency") == 0)
            o->objective = CM_OBJECTIVE_LATENCY;
        else if (strcmp(objective, "throughput") == 0)
            o->objective = CM_OBJECTIVE_THROUGHPUT;
        else
            st = bad(r, "unknown objective ", objective);
    }
    if (st == CM_OK)
        st = cm_json_get_int(&r->f, r->root, "", "batch", 1, 1 << 30, &batch);
    if (st == CM_OK)
        st = cm_json_get_number(&r->f, r->root, "", "clock_mhz", CM_BOARD_CLOCK_MHZ_MIN,
                                CM_BOARD_CLOCK_MHZ_MAX, &clock);
    if (st == CM_OK && json_object_get(r->root, "default_weight_bits"))
        st = cm_json_get_int(&r->f, r->root, "", "default_weight_bits", 0, 64, &wbits);
    if (st == CM_OK && json_object_get(r->root, "default_act_bits"))
        st = cm_json_get_int(&r->f, r->root, "", "default_act_bits", 0, 64, &abits);
    json_t *reconf = json_object_get(r->root, "reconfiguration");
    if (st == CM_OK && reconf && !json_is_boolean(reconf))
        st = bad(r, "\"reconfiguration\" must be true or false", NULL);
    json_t *reload = json_object_get(r->root, "weights_reloading");
    if (st == CM_OK && reload && !json_is_boolean(reload))
        st = bad(r, "\"weights_reloading\" must be true or false", NULL);
    if (st == CM_OK)
        st = read_max_util(r, &o->max_util);
    if (st != CM_OK)
        return st;
    o->batch = (int)batch;
    o->clock_mhz = clock;
    o->reconfiguration = !reconf || json_is_true(reconf);
    o->weights_reloading = !reload || json_is_true(reload);
    o->default_weight_bits = (int)wbits;
    o->default_act_bits = (int)abits;
    return CM_OK;
}

static cm_status read_run(reader *r, cm_design_run *run)
{
    memset(run, 0, sizeof *run);
    json_t *o = json_object_get(r->root, "optimiser");
    if (!o)
        return CM_OK;
    const char *name = NULL;
    int64_t evals = 0, seed = 0;
    double time_s = 0;
    cm_status st = cm_json_get_string(&r->f, o, "", "name", 0, &name);
    if (st == CM_OK && cm_optimiser_parse(name, &run->optimiser, NULL) != CM_OK)
        st = bad(r, "unknown optimiser ", name);
    if (st == CM_OK)
        st = cm_json_get_int(&r->f, o, "", "evaluations", 0, INT64_MAX, &evals);
    if (st == CM_OK)
        st = cm_json_get_number(&r->f, o, "", "time_s", 0, HUGE_VAL, &time_s);
    if (st == CM_OK)
        st = cm_json_get_int(&r->f, o, "", "seed", 0, INT64_MAX, &seed);
    if (st == CM_OK && json_object_get(r->root, "lower_bound_s")) {
        st = cm_json_get_number(&r->f, r->root, "", "lower_bound_s", 0, HUGE_VAL,
                                &run->result.lower_bound_s);
        run->result.has_lower_bound = true;
    }
    json_t *note = json_object_get(o, "note");
    if (st == CM_OK && note && !json_is_string(note))
        st = bad(r, "\"note\" must be a string", NULL);
    if (st == CM_OK && note)
        snprintf(run->result.note, sizeof run->result.note, "%s", json_string_value(note));
    run->result.proven_infeasible = json_is_true(json_object_get(o, "proven_infeasible"));
    run->result.stopped_early = json_is_true(json_object_get(o, "stopped_early"));
    run->result.evaluations = (uint64_t)evals;
    run->result.time_s = time_s;
    run->seed = (uint64_t)seed;
    return st;
}

/* The node named `name`: files list the nodes in the design's order, so the k-th entry
 * is tried first (a search for each of 10,000 names took seconds). */
static int find_node(const cm_design *d, const char *name, size_t k)
{
    if (k < (size_t)d->hd.n_nodes && strcmp(d->hd.nodes[k].name, name) == 0)
        return (int)k;
    return cm_design_node_find(d, name);
}

static cm_status read_node(reader *r, cm_design *d, json_t *jn, size_t entry, int *seen,
                           int *part_of, int64_t *fold)
{
    const char *name = NULL;
    int64_t f[3] = {1, 1, 1}, part = 0;
    static const char *const keys[3] = {"channel_in_folding", "channel_out_folding",
                                        "kernel_folding"};
    cm_status st = cm_json_get_string(&r->f, jn, "", "name", 0, &name);
    for (int k = 0; k < 3 && st == CM_OK; k++)
        st = cm_json_get_int(&r->f, jn, "", keys[k], 1, INT64_C(1) << 40, &f[k]);
    if (st == CM_OK)
        st = cm_json_get_int(&r->f, jn, "", "partition", 0, d->hd.n_nodes - 1, &part);
    if (st != CM_OK)
        return st;
    int i = find_node(d, name, entry);
    if (i < 0)
        return cm_error_set(r->err, CM_EINPUT, "%s: unknown node '%s' (the model has no such %s node)",
                            r->path, name, cm_backend_name(d->hd.backend));
    if (seen[i]++)
        return cm_error_set(r->err, CM_EINPUT, "%s: node '%s' is listed twice", r->path, name);
    part_of[i] = (int)part;
    memcpy(&fold[3 * i], f, sizeof f);
    return CM_OK;
}

/* Partitions are numbered 0, 1, ... along the node order, each a consecutive run. */
static cm_status read_partitions(reader *r, cm_design *d, const int *part_of)
{
    int n = d->hd.n_nodes, count = 0;
    int *first = malloc((size_t)n * sizeof *first);
    if (!first)
        return cm_error_nomem(r->err);
    cm_status st = CM_OK;
    for (int i = 0; i < n && st == CM_OK; i++) {
        if (part_of[i] == count)
            first[count++] = i;
        else if (part_of[i] != count - 1)
            st = cm_error_set(r->err, CM_EINPUT,
                              "%s: node '%s' is in partition %d, but partitions must be numbered "
                              "0, 1, ... along the node order", r->path, d->hd.nodes[i].name, part_of[i]);
    }
    if (st == CM_OK)
        st = cm_design_set_partitions(d, first, count, r->err);
    free(first);
    return st;
}

static cm_status read_nodes(reader *r, cm_design *d)
{
    json_t *nodes = json_object_get(r->root, "nodes");
    if (!json_is_array(nodes))
        return bad(r, "\"nodes\" must be an array", NULL);
    int n = d->hd.n_nodes;
    int *seen = calloc((size_t)n, sizeof *seen), *part_of = calloc((size_t)n, sizeof *part_of);
    int64_t *fold = malloc(3 * (size_t)n * sizeof *fold);
    cm_status st = seen && part_of && fold ? CM_OK : cm_error_nomem(r->err);
    for (size_t k = 0; st == CM_OK && k < json_array_size(nodes); k++) {
        json_t *jn = json_array_get(nodes, k);
        st = json_is_object(jn) ? read_node(r, d, jn, k, seen, part_of, fold)
                                : bad(r, "every entry of \"nodes\" must be an object", NULL);
    }
    for (int i = 0; st == CM_OK && i < n; i++)
        if (!seen[i])
            st = cm_error_set(r->err, CM_EINPUT, "%s: node '%s' is missing", r->path,
                              d->hd.nodes[i].name);
    /* Cuts before foldings: a folding that makes a partition's slowest node faster
     * rescans the partition for the next slowest, which in the one partition of a new
     * design made loading 30,000 nodes quadratic. */
    if (st == CM_OK)
        st = read_partitions(r, d, part_of);
    for (int i = 0; st == CM_OK && i < n; i++)
        cm_design_set_folding(d, i, fold[3 * i], fold[3 * i + 1], fold[3 * i + 2]);
    free(seen);
    free(part_of);
    free(fold);
    return st;
}

/* "fifo_depths": {stream: words}, each stream one the simulation of this design has
 * (sim_streaming.c names them), each depth 1 to CM_FIFO_DEPTH_MAX. */
static cm_status fifo_names(reader *r, json_t *f, const char **names, int64_t *depths)
{
    const char *key;
    json_t *v;
    int i = 0;
    json_object_foreach(f, key, v) {
        if (!json_is_integer(v) || json_integer_value(v) < 1 ||
            json_integer_value(v) > CM_FIFO_DEPTH_MAX)
            return cm_error_set(r->err, CM_EINPUT, "%s: \"fifo_depths\": stream '%.128s' must "
                                "have a whole number of words from 1 to %lld", r->path, key,
                                (long long)CM_FIFO_DEPTH_MAX);
        names[i] = key;
        depths[i++] = json_integer_value(v);
    }
    return CM_OK;
}

static cm_status read_fifo_depths(reader *r, cm_design *d)
{
    json_t *f = json_object_get(r->root, "fifo_depths");
    if (!f)
        return CM_OK;
    if (!json_is_object(f))
        return bad(r, "\"fifo_depths\" must be an object of stream names and depths", NULL);
    int n = (int)json_object_size(f);
    const char **names = malloc(((size_t)n + 1) * sizeof *names);
    int64_t *depths = malloc(((size_t)n + 1) * sizeof *depths);
    cm_status st = names && depths ? fifo_names(r, f, names, depths) : cm_error_nomem(r->err);
    int unknown = -1;
    if (st == CM_OK && n > 0) {
        st = sim_streaming_unknown_stream(d, names, n, &unknown, r->err);
        if (st != CM_OK)
            cm_error_prefix(r->err, r->path);
    }
    if (st == CM_OK && unknown >= 0)
        st = cm_error_set(r->err, CM_EINPUT, "%s: \"fifo_depths\": the design has no stream "
                          "'%.128s' (streams are named as 'cnnmap simulate' lists them)", r->path,
                          names[unknown]);
    if (st == CM_OK && n > 0) {
        st = cm_design_set_fifo_depths(d, names, depths, n, r->err);
        if (st != CM_OK)
            cm_error_prefix(r->err, r->path);
    }
    free(names);
    free(depths);
    return st;
}

static cm_status build_design(reader *r, cm_design **out)
{
    const char *model_path = NULL, *board_ref = NULL;
    int64_t version = 0;
    cm_status st = cm_json_get_int(&r->f, r->root, "", "version", CM_DESIGN_VERSION,
                                   CM_DESIGN_VERSION, &version);
    if (st == CM_OK)
        st = cm_json_get_string(&r->f, r->root, "", "model_path", 0, &model_path);
    if (st == CM_OK)
        st = cm_json_get_string(&r->f, r->root, "", "board", 0, &board_ref);
    cm_design_options opt;
    if (st == CM_OK)
        st = read_options(r, &opt);
    if (st != CM_OK)
        return st;
    cm_board board;
    st = cm_board_resolve(board_ref, &board, r->err);
    if (st != CM_OK)
        return cm_design_source_error(r->err, r->path, st);
    char *resolved = cm_path_beside(r->path, model_path);
    if (!resolved)
        return cm_error_nomem(r->err);
    cm_graph *g = NULL;
    st = cm_model_load(resolved, &g, r->err);
    if (st == CM_OK) {
        st = cm_design_create(g, &board, &opt, out, r->err);
        if (st != CM_OK)
            cm_graph_free(g);
    }
    if (st == CM_OK)
        st = cm_design_set_sources(*out, model_path, board_ref, r->err);
    free(resolved);
    return st == CM_OK ? CM_OK : cm_design_source_error(r->err, r->path, st);
}

static cm_status load_json(reader *r)
{
    return cm_json_file_read(r->path, &r->root, r->err);
}

/* Other JSON files that cnnmap writes are named for what they are, so that the user
 * is not told about the first key that happens to differ. */
static cm_status check_format(reader *r)
{
    json_t *format = json_object_get(r->root, "format");
    const char *backend = json_string_value(json_object_get(r->root, "backend"));
    if (!format && backend && strcmp(backend, "nn2fpga") == 0)
        return bad(r, "not a design file (an nn2FPGA report of an earlier cnnmap; 'optimise "
                      "--backend nn2fpga -o' now writes a design file)", NULL);
    if (!format)
        return bad(r, "not a cnnmap design file (it has no \"format\")", NULL);
    if (!json_is_string(format))
        return bad(r, "\"format\" must be a string", NULL);
    if (strcmp(json_string_value(format), "cnnmap-multi-design") == 0)
        return bad(r, "not a design file of one network (a design of 'cnnmap multi'; export "
                      "--format report-md reads it)", NULL);
    if (strcmp(json_string_value(format), "cnnmap-nn2fpga-design") == 0)
        return bad(r, "an nn2FPGA design, not a streaming design (cm_nn2fpga_design_load reads it)",
                   NULL);
    if (strcmp(json_string_value(format), "cnnmap-latency-design") == 0)
        return bad(r, "a latency-driven fpgaConvNet design, not a streaming design "
                      "(cm_latency_design_load reads it)", NULL);
    if (strcmp(json_string_value(format), CM_DESIGN_FORMAT) != 0)
        return cm_error_set(r->err, CM_EINPUT, "%s: not a cnnmap design file (format '%.64s')",
                            r->path, json_string_value(format));
    return CM_OK;
}

cm_status cm_design_load_json(const char *path, json_t *root, cm_design **out, cm_design_run *run,
                             cm_error *err)
{
    *out = NULL;
    reader r = {.path = path, .root = root, .err = err, .f = {.path = path, .err = err}};
    cm_status st = json_is_object(r.root) ? CM_OK : bad(&r, "a design file holds one JSON object", NULL);
    if (st == CM_OK)
        st = check_format(&r);
    cm_design *d = NULL;
    if (st == CM_OK)
        st = read_run(&r, run);
    if (st == CM_OK)
        st = build_design(&r, &d);
    if (st == CM_OK)
        st = read_nodes(&r, d);
    if (st == CM_OK)
        st = read_fifo_depths(&r, d);
    if (st != CM_OK) {
        cm_design_free(d);
        return st;
    }
    *out = d;
    return CM_OK;
}

cm_status cm_design_load(const char *path, cm_design **out, cm_design_run *run, cm_error *err)
{
    *out = NULL;
    reader r = {.path = path, .err = err, .f = {.path = path, .err = err}};
    cm_status st = load_json(&r);
    if (st == CM_OK)
        st = cm_design_load_json(path, r.root, out, run, err);
    json_decref(r.root);
    return st;
}
