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
#include "multi/multi_flow.h"
#include "multi/multi_json.h"
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

/* A library step's mistake as the usage error, anything else as its one line. */
static int fail(cm_status st, const cm_error *err)
{
    if (st == CM_OK)
        return CM_OK;
    return st == CM_EUSAGE ? cm_cli_usage_error("multi", "%s", err->message) : cm_cli_fail(err);
}

static int parse_option(int c, const char *arg, multi_args *a)
{
    cm_error err = {0};
    switch (c) {
    case 'b':
        return fail(cm_multi_request_set_board(&a->q, arg, &err), &err);
    case 'm':
        return fail(cm_multi_request_add_model(&a->q, arg, &err), &err);
    case 'O':
        return fail(cm_multi_parse_objective(arg, &a->q.options.objective, &err), &err);
    case 'S':
        return fail(cm_multi_parse_scheduler(arg, &a->q.options.scheduler, &err), &err);
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
    cm_error err = {0};
    return fail(cm_multi_request_check(&a->q, &err), &err);
}

/* ---- output ---- */

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

static int report(const multi_args *a, const cm_multi_result *r, double time_s)
{
    cm_error err = {0};
    if (cm_multi_save_outputs(r, &a->q, a->out, a->report, &err) != CM_OK)
        return cm_cli_fail(&err);
    int rc = CM_OK;
    if (a->format != CM_CLI_TEXT)
        rc = cm_cli_print_as(cm_multi_result_json(r, time_s), a->format);
    else
        print_table(r, time_s);
    rc = cm_cli_printed(rc, a->out);
    return cm_cli_printed(rc, a->report);
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
        rc = st != CM_OK ? fail(st, &err) : report(&a, r, cm_seconds_now() - t0);
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
