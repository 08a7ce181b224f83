/* `cnnmap multi --board BOARD --model MODEL[:FPS] --model MODEL[:FPS] ...`: several
 * networks on one FPGA (f-CNNx): the engine chosen per network, the bandwidth schedule
 * with its slow-downs and slot table, each network's fps and GOp/s, the objective, and
 * the same figures for the contention-unaware baseline. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cnnmap/multi.h>

#include "cli/cli.h"
#include "design/design_json.h"
#include "util/atomic_file.h"
#include "util/progress.h"

const char cm_cli_multi_usage[] =
    "usage: cnnmap multi --board BOARD --model MODEL[:FPS] --model MODEL[:FPS] ...\n"
    "                    [--objective fps|throughput] [--bandwidth GBPS]\n"
    "                    [--scheduler list|ilp] [--time-limit S] [-o DESIGN.json]\n"
    "                    [--report-md PATH] [--json]\n\n"
    "Maps several networks onto one FPGA, one streaming engine each (f-CNNx, FPL 2018).\n"
    "Each network's latency-resource Pareto front comes from the latency-driven\n"
    "fpgaConvNet flow under scaled-down copies of the board; every combination of engines\n"
    "that fits the board is scheduled on the shared off-chip bandwidth (a cyclic schedule\n"
    "of the subgraphs with slow-downs, or fixed bandwidth shares per engine) and the best\n"
    "for the objective is kept. Prints each network's engine, fps and GOp/s, the schedule\n"
    "with its slow-downs and the hardware scheduler's slots (eq. 7), the objective, and the\n"
    "contention-unaware baseline (the engines that would be best with the whole bandwidth\n"
    "each, every engine on its own DMA with the bandwidth split evenly).\n\n"
    "  --board BOARD        a built-in board name (cnnmap boards) or a board JSON file\n"
    "  --model MODEL[:FPS]  an ONNX or QONNX file and its target frame rate (default: the\n"
    "                       most it can reach); at least two\n"
    "  --objective O        fps (eq. 5, default): reach each target; throughput (eq. 6):\n"
    "                       each network's GOp/s as close to its own maximum\n"
    "  --bandwidth GBPS     off-chip bandwidth shared by the engines (default: the board's)\n"
    "  --scheduler S        list (default): list scheduling with slow-down search; ilp:\n"
    "                       exact, for small problems (refused beyond 48 subgraph runs\n"
    "                       per period)\n"
    "  --time-limit S       seconds the whole command may take; without it every search\n"
    "                       stops by its work budget (the same design on any machine),\n"
    "                       under a safety cap of 600 s; when a limit or a budget runs\n"
    "                       out, the best design found so far is reported and marked as\n"
    "                       stopped early\n"
    "  -o DESIGN.json       write the design: engines, schedule, slot table and inputs\n"
    "  --report-md PATH     write a Markdown report with the slot table\n"
    "  --json               print the object of cli.md instead of the tables\n";

typedef struct multi_args {
    cm_multi_request q;
    const char *out, *report;
    cm_cli_format format;
} multi_args;

static int usage(const char *fmt, const char *arg)
{
    return cm_cli_usage_error("multi", fmt, arg);
}

/* MODEL[:FPS]: the text after the last ':' is a frame rate unless it holds a '/'. */
static int parse_model(const char *text, multi_args *a)
{
    cm_multi_request *q = &a->q;
    if (q->n_models == CM_MULTI_MAX_MODELS)
        return usage("at most 16 models, not more ('%s')", text);
    const char *colon = strrchr(text, ':');
    size_t len = colon && !strchr(colon, '/') ? (size_t)(colon - text) : strlen(text);
    double fps = 0.0;
    if (len < strlen(text)) {
        char *end;
        fps = strtod(colon + 1, &end);
        if (end == colon + 1 || *end || !(fps > 0) || !isfinite(fps))
            return usage("--model expects MODEL[:FPS] with a positive frame rate, not '%s'", text);
    }
    if (len == 0)
        return usage("--model expects MODEL[:FPS], not '%s'", text);
    if (!(q->model[q->n_models] = strndup(text, len)))
        return CM_EINTERNAL;
    q->fps[q->n_models++] = fps;
    return CM_OK;
}

static int parse_choice(int c, const char *arg, multi_args *a)
{
    cm_multi_options *o = &a->q.options;
    if (c == 'O' && (!strcmp(arg, "fps") || !strcmp(arg, "throughput"))) {
        o->objective = arg[0] == 'f' ? CM_MULTI_FPS : CM_MULTI_THROUGHPUT;
        return CM_OK;
    }
    if (c == 'S' && (!strcmp(arg, "list") || !strcmp(arg, "ilp"))) {
        o->scheduler = arg[0] == 'l' ? CM_MULTI_LIST : CM_MULTI_ILP;
        return CM_OK;
    }
    return usage(c == 'O' ? "--objective is fps or throughput, not '%s'"
                          : "--scheduler is list or ilp, not '%s'", arg);
}

static int parse_option(int c, const char *arg, multi_args *a)
{
    switch (c) {
    case 'b':
        free(a->q.board);
        return (a->q.board = strdup(arg)) ? CM_OK : CM_EINTERNAL;
    case 'm':
        return parse_model(arg, a);
    case 'O':
    case 'S':
        return parse_choice(c, arg, a);
    case 'w':
        return cm_cli_parse_double("multi", "--bandwidth", arg, 1e-6, 1e6,
                                   &a->q.options.bandwidth_gbps);
    case 't':
        return cm_cli_parse_double("multi", "--time-limit", arg, 1e-3, 1e6,
                                   &a->q.options.time_limit_s);
    case 'o':
        a->out = arg;
        return CM_OK;
    case 'r':
        a->report = arg;
        return CM_OK;
    default:
        a->format = CM_CLI_JSON;
        return CM_OK;
    }
}

static int parse_args(int argc, char **argv, multi_args *a)
{
    static const struct option options[] = {
        {"board", required_argument, NULL, 'b'},     {"model", required_argument, NULL, 'm'},
        {"objective", required_argument, NULL, 'O'}, {"bandwidth", required_argument, NULL, 'w'},
        {"scheduler", required_argument, NULL, 'S'}, {"report-md", required_argument, NULL, 'r'},
        {"time-limit", required_argument, NULL, 't'}, {"json", no_argument, NULL, 'j'},
        {NULL, 0, NULL, 0}};
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:", options, NULL)) != -1) {
        if (c == '?' || c == ':')
            return cm_cli_usage_error("multi", "%s option '%s'",
                                      c == ':' ? "missing value for" : "unknown", argv[optind - 1]);
        int rc = parse_option(c, optarg, a);
        if (rc != CM_OK)
            return rc;
    }
    if (optind != argc)
        return usage("takes no positional arguments ('%s'); use --model", argv[optind]);
    if (!a->q.board)
        return cm_cli_usage_error("multi", "--board is required");
    if (a->q.n_models < 2)
        return cm_cli_usage_error("multi", "needs at least two --model options, not %d",
                                  a->q.n_models);
    return CM_OK;
}

/* ---- output ---- */

static json_t *models_json(const cm_multi_result *r, bool baseline)
{
    json_t *a = json_array();
    for (int i = 0; i < r->n_models; i++) {
        const cm_multi_model *m = &r->models[i];
        if (baseline) {
            json_array_append_new(a, json_pack("{s:s, s:f, s:f}", "model", m->name, "fps",
                                               m->baseline_fps, "gops", m->baseline_gops));
            continue;
        }
        json_array_append_new(
            a, json_pack("{s:s, s:f, s:f, s:f, s:o}", "model", m->name, "target_fps",
                         m->target_fps, "fps", m->fps, "gops", m->gops, "resources",
                         cm_resources_json(&m->front[m->engine].resources, false)));
    }
    return a;
}

/* The keys of a search the time limit cut short; a finished search prints only the
 * keys of cli.md (scripts compare the key set). */
static void put_stopped(json_t *o, const cm_multi_result *r)
{
    if (!o || !r->stopped_early)
        return;
    char text[160];
    snprintf(text, sizeof text, "the time limit of %g s or a search's work budget stopped the "
             "exploration; this is the best design found by then", r->time_limit_s);
    json_object_set_new(o, "time_limit_s", json_real(r->time_limit_s));
    json_object_set_new(o, "stopped_early", json_true());
    json_object_set_new(o, "warnings", json_pack("[s]", text));
}

static json_t *result_json(const cm_multi_result *r, double time_s)
{
    json_t *sched = json_array();
    for (int k = 0; k < r->schedule.n_tasks; k++) {
        const cm_multi_task *t = &r->schedule.tasks[k];
        json_array_append_new(sched, json_pack("{s:s, s:i, s:f, s:f, s:i}", "model",
                                               r->models[t->model].name, "subgraph", t->subgraph,
                                               "start_s", t->start_s, "slowdown", t->slowdown,
                                               "slots", t->slots));
    }
    json_t *base = json_pack("{s:f, s:o}", "objective_value", r->baseline_objective_value,
                             "models", models_json(r, true));
    json_t *o = json_pack("{s:s, s:s, s:f, s:f, s:o, s:o, s:o, s:f}", "board", r->board,
                          "objective", cm_multi_objective_name(r->objective), "objective_value",
                          r->objective_value, "bandwidth_gbps", r->bandwidth_gbps, "models",
                          models_json(r, false), "baseline", base, "schedule", sched, "time_s",
                          time_s);
    put_stopped(o, r);
    return o;
}

static void print_models(const cm_multi_result *r)
{
    printf("\n%-20s %8s %9s %9s %9s %9s %5s %6s %7s %8s %8s\n", "model", "target", "fps", "GOp/s",
           "base fps", "base GOp", "subs", "DSP", "BRAM18", "LUT", "FF");
    for (int i = 0; i < r->n_models; i++) {
        const cm_multi_model *m = &r->models[i];
        const cm_multi_engine *e = &m->front[m->engine];
        printf("%-20.20s %8.3g %9.3f %9.2f %9.3f %9.2f %5d %6lld %7lld %8lld %8lld\n", m->name,
               m->target_fps, m->fps, m->gops, m->baseline_fps, m->baseline_gops, e->n_subgraphs,
               (long long)e->resources.dsp, (long long)e->resources.bram18,
               (long long)e->resources.lut, (long long)e->resources.ff);
    }
}

static void print_schedule(const cm_multi_result *r)
{
    const cm_multi_schedule *s = &r->schedule;
    if (s->kind == CM_MULTI_CYCLIC)
        printf("\ncyclic schedule: period %.6g ms%s\n", s->period_s * 1e3,
               s->optimal ? " (optimal, ILP)" : "");
    else
        printf("\nrate-partitioned schedule: each engine repeats with a fixed bandwidth share\n");
    printf("%-20s %4s %4s %11s %11s %9s %8s %6s %8s\n", "model", "sub", "rep", "start ms",
           "length ms", "slow-down", "GB/s", "slots", "share");
    for (int k = 0; k < s->n_tasks; k++) {
        const cm_multi_task *t = &s->tasks[k];
        printf("%-20.20s %4d %4d %11.4f %11.4f %9.3f %8.3f %6d %7.2f%%\n",
               r->models[t->model].name, t->subgraph, t->repetition, t->start_s * 1e3,
               t->latency_s * 1e3, t->slowdown, t->bandwidth / 1e9, t->slots, 100.0 * t->share);
    }
}

static void print_table(const cm_multi_result *r, double time_s)
{
    printf("%d networks on %s, %.3g GB/s shared, %.4g MHz; objective %s (eq. %d)\n",
           r->n_models, r->board, r->bandwidth_gbps, r->clock_mhz,
           cm_multi_objective_name(r->objective), r->objective == CM_MULTI_FPS ? 5 : 6);
    printf("objective %.6g (contention-unaware baseline %.6g; lower is better)\n",
           r->objective_value, r->baseline_objective_value);
    printf("resources DSP %lld, BRAM18 %lld, LUT %lld, FF %lld\n", (long long)r->resources.dsp,
           (long long)r->resources.bram18, (long long)r->resources.lut, (long long)r->resources.ff);
    printf("joint design points %llu (%llu fit, %llu distinct, %llu scheduled), %.2f s\n",
           (unsigned long long)r->joint_points, (unsigned long long)r->joint_feasible,
           (unsigned long long)r->joint_distinct, (unsigned long long)r->joint_scheduled, time_s);
    if (r->stopped_early)
        printf("stopped early: the time limit of %g s or a search's work budget ended the "
               "exploration; this is the best design found by then\n", r->time_limit_s);
    print_models(r);
    print_schedule(r);
}

static int write_text(const char *path, char *text)
{
    cm_error err = {0};
    cm_status st = text ? cm_write_file_atomic(path, text, strlen(text), &err) : cm_error_nomem(&err);
    free(text);
    return st == CM_OK ? CM_OK : cm_cli_fail(&err);
}

static int report(const multi_args *a, const cm_multi_result *r, double time_s)
{
    int rc = CM_OK;
    if (a->out)
        rc = write_text(a->out, cm_multi_design_json_inputs(r, &a->q));
    if (rc == CM_OK && a->report)
        rc = write_text(a->report, cm_multi_report_md(r));
    if (rc != CM_OK)
        return rc;
    if (a->format != CM_CLI_TEXT)
        return cm_cli_print_as(result_json(r, time_s), a->format);
    print_table(r, time_s);
    return fflush(stdout) == 0 ? CM_OK : CM_EINTERNAL;
}

int cm_cli_multi(int argc, char **argv)
{
    multi_args a;
    memset(&a, 0, sizeof a);
    cm_multi_request_init(&a.q);
    int rc = parse_args(argc, argv, &a);
    if (rc == CM_OK) {
        cm_error err = {0};
        cm_multi_result *r = NULL;
        double t0 = cm_seconds_now();
        cm_status st = cm_multi_map_request(&a.q, &r, &err);
        if (st == CM_EUSAGE)
            rc = cm_cli_usage_error("multi", "%s", err.message);
        else if (st != CM_OK)
            rc = cm_cli_fail(&err);
        else
            rc = report(&a, r, cm_seconds_now() - t0);
        cm_multi_result_free(r);
    }
    cm_multi_request_free(&a.q);
    return rc;
}

int cm_cli_multi_evaluate(const char *design_path, cm_cli_format format)
{
    cm_error err = {0};
    cm_multi_result *r = NULL;
    double t0 = cm_seconds_now();
    if (cm_multi_design_load(design_path, &r, &err) != CM_OK)
        return cm_cli_fail(&err);
    multi_args a;
    memset(&a, 0, sizeof a);
    a.format = format;
    int rc = report(&a, r, cm_seconds_now() - t0);
    cm_multi_result_free(r);
    return rc;
}

int cm_cli_multi_export_md(const char *design_path, const char *out)
{
    cm_error err = {0};
    return cm_multi_export_report_md(design_path, out, &err) == CM_OK ? CM_OK : cm_cli_fail(&err);
}
