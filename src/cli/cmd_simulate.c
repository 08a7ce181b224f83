/* `cnnmap simulate DESIGN.json`: the design's hardware stepped cycle by cycle
 * (cm_simulate), its measured latency and interval beside the cost model's, per
 * partition, task and stream; FIFO depths sized with --fifo-depths auto and written
 * with -o; a deadlock named on stderr with exit code 3; --time-limit bounding the work. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cnnmap/simulate.h>

#include "cli/cli.h"
#include "sim/sim_json.h"

const char cm_cli_simulate_usage[] =
    "usage: cnnmap simulate DESIGN.json [--frames N] [--fifo-depths design|auto]\n"
    "                       [--time-limit S] [-o DESIGN_OUT.json] [--json] [--quiet]\n\n"
    "Builds the design's task graph (nn2FPGA: the HLS export's tasks and streams;\n"
    "fpgaConvNet, FINN, hls4ml: each partition's building blocks; latency-driven: the\n"
    "subgraph schedule with its weight loads) and steps it cycle by cycle with bounded\n"
    "FIFOs. Prints the simulated first-frame latency and steady-state interval beside the\n"
    "cost model's, each task's busy fraction and what stalled it, each stream's most\n"
    "occupied moment.\n\n"
    "  --frames N          frames to stream through (1 to 1000000, default 4)\n"
    "  --fifo-depths M     design: the depths the design gives its streams (default);\n"
    "                      auto: the smallest depths that keep the unbounded interval\n"
    "  --time-limit S      seconds the command may take, loading included (default 60);\n"
    "                      a simulation still running then stops and is reported as\n"
    "                      partial (exit 3); FIFO sizing stopped then keeps the depths\n"
    "                      proven so far (exit 0); either way the output says so\n"
    "  -o DESIGN_OUT.json  write the design again with the simulated stream depths\n"
    "                      (nn2FPGA: the HLS export reads them; streaming designs:\n"
    "                      \"fifo_depths\", which simulate, evaluate's resources and the\n"
    "                      FINN export then use)\n"
    "  --json              print the figures and tables as one JSON object\n"
    "  --quiet             no progress bar\n"
    "Exit code 3 when the design deadlocks: the cycle of tasks and streams that block each\n"
    "other is the error line, the figures of what ran are still printed; the same when the\n"
    "time limit cuts a simulation short, and when -o's FIFOs push the design over the\n"
    "board (the resource is named, nothing is written).\n";

typedef struct simulate_args {
    const char *design, *output;
    cm_sim_options o;
    bool json, quiet;
} simulate_args;

static int parse_option(int c, const char *arg, simulate_args *a)
{
    static const char cmd[] = "simulate";
    long v;
    switch (c) {
    case 'f': {
        int rc = cm_cli_parse_long(cmd, "--frames", arg, 1, 1000000, &v);
        a->o.frames = (int)v;
        return rc;
    }
    case 'd':
        if (strcmp(arg, "design") == 0)
            a->o.fifo = CM_SIM_FIFO_DESIGN;
        else if (strcmp(arg, "auto") == 0)
            a->o.fifo = CM_SIM_FIFO_AUTO;
        else
            return cm_cli_usage_error(cmd, "unknown --fifo-depths '%s' (design or auto)", arg);
        return CM_OK;
    case 't':
        return cm_cli_parse_double(cmd, "--time-limit", arg, 0.001, 1e7, &a->o.time_limit_s);
    case 'j': a->json = true; return CM_OK;
    case 'q': a->quiet = true; return CM_OK;
    case 'o': a->output = arg; return CM_OK;
    default: return CM_EUSAGE;
    }
}

static int parse_args(int argc, char **argv, simulate_args *a)
{
    static const struct option options[] = {
        {"frames", required_argument, NULL, 'f'}, {"fifo-depths", required_argument, NULL, 'd'},
        {"json", no_argument, NULL, 'j'},         {"quiet", no_argument, NULL, 'q'},
        {"output", required_argument, NULL, 'o'}, {"time-limit", required_argument, NULL, 't'},
        {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    cm_sim_options_init(&a->o);
    a->o.time_limit_s = CM_SIM_DEFAULT_TIME_LIMIT_S;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":o:", options, NULL)) != -1) {
        if (c == '?' || c == ':')
            return cm_cli_usage_error("simulate", "%s option '%s'",
                                      c == ':' ? "missing value for" : "unknown", argv[optind - 1]);
        int rc = parse_option(c, optarg, a);
        if (rc != CM_OK)
            return rc;
    }
    if (optind != argc - 1)
        return cm_cli_usage_error("simulate", optind >= argc ? "no DESIGN.json given"
                                                             : "more than one DESIGN.json given");
    a->design = argv[optind];
    return cm_cli_check_output("simulate", "-o", a->output);
}

/* ---- text ---- */

/* "+1.23%", or "-" without an analytic figure */
static const char *diff_text(char *buf, size_t n, int64_t simulated, int64_t analytic)
{
    double d;
    if (!cm_sim_relative(simulated, analytic, &d))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%+.2f%%", d * 100.0);
    return buf;
}

/* cycles as time at the design's clock: ms from 1 ms up, else us */
static const char *time_text(char *buf, size_t n, int64_t cycles, double clock_mhz)
{
    double us = clock_mhz > 0 ? (double)cycles / clock_mhz : 0;
    if (clock_mhz <= 0)
        snprintf(buf, n, "-");
    else if (us >= 1000.0)
        snprintf(buf, n, "%.6g ms", us / 1000.0);
    else
        snprintf(buf, n, "%.6g us", us);
    return buf;
}

static void print_figure(const char *what, int64_t simulated, int64_t analytic, double clock_mhz)
{
    char t1[32], t2[32], d[32];
    printf("%-13s simulated %" PRId64 " cycles (%s), analytic %" PRId64 " cycles (%s), %s\n",
           what, simulated, time_text(t1, sizeof t1, simulated, clock_mhz), analytic,
           time_text(t2, sizeof t2, analytic, clock_mhz),
           diff_text(d, sizeof d, simulated, analytic));
}

static void print_summary(const char *design, const cm_sim_result *r)
{
    printf("design        %s\n", design);
    printf("architecture  %s, clock %.1f MHz\n", cm_architecture_name(r->architecture),
           r->clock_mhz);
    printf("frames        %d, FIFO depths: %s\n", r->frames, cm_sim_fifo_name(r->fifo));
    print_figure("latency", r->simulated.latency_cycles, r->analytic.latency_cycles, r->clock_mhz);
    print_figure("interval", r->simulated.interval_cycles, r->analytic.interval_cycles,
                 r->clock_mhz);
    printf("deadlock      %s\n", r->deadlock ? r->deadlock_cycle : "no");
    printf("work          %" PRIu64 " task iterations, %" PRId64 " cycles, %d run%s, %.3f s\n",
           r->iterations, r->cycles, r->runs, r->runs == 1 ? "" : "s", r->time_s);
    if (r->stopped_early)
        printf("stopped early %s%s\n", r->partial ? "(PARTIAL figures) " : "", r->warning);
}

static void print_partitions(const cm_sim_result *r)
{
    printf("\n%-32s %6s %10s %12s %12s %9s %12s %12s %9s\n", "partition", "frames", "before",
           "latency", "analytic", "diff", "interval", "analytic", "diff");
    for (int i = 0; i < r->n_partitions; i++) {
        const cm_sim_partition *p = &r->partitions[i];
        char d1[32], d2[32];
        printf("%-32.32s %6d %10" PRId64 " %12" PRId64 " %12" PRId64 " %9s %12" PRId64
               " %12" PRId64 " %9s\n",
               p->label, p->frames, p->before_cycles, p->simulated.latency_cycles,
               p->analytic.latency_cycles,
               diff_text(d1, sizeof d1, p->simulated.latency_cycles, p->analytic.latency_cycles),
               p->simulated.interval_cycles, p->analytic.interval_cycles,
               diff_text(d2, sizeof d2, p->simulated.interval_cycles,
                         p->analytic.interval_cycles));
    }
}

static void print_tasks(const cm_sim_result *r)
{
    printf("\n%-28s %-10s %4s %6s %-40s %12s %12s %9s\n", "task", "kind", "part", "busy%",
           "stalled by", "cycles/frame", "analytic", "diff");
    for (int i = 0; i < r->n_tasks; i++) {
        const cm_sim_task *t = &r->tasks[i];
        char d[32];
        printf("%-28.28s %-10.10s %4d %6.1f %-40.40s %12" PRId64 " %12" PRId64 " %9s\n", t->name,
               t->kind, t->partition, t->busy * 100.0, t->stalled_by ? t->stalled_by : "-",
               t->simulated_cycles, t->analytic_cycles,
               diff_text(d, sizeof d, t->simulated_cycles, t->analytic_cycles));
    }
}

static void print_streams(const cm_sim_result *r)
{
    printf("\n%-36s %4s %12s %12s %13s %12s %12s\n", "stream", "part", "depth", "design depth",
           "max occupancy", "first word", "last word");
    for (int i = 0; i < r->n_streams; i++) {
        const cm_sim_stream *s = &r->streams[i];
        printf("%-36.36s %4d %12" PRId64 " %12" PRId64 " %13" PRId64 " %12" PRId64 " %12" PRId64 "\n",
               s->name, s->partition, s->depth, s->design_depth, s->max_occupancy,
               s->first_word_cycle, s->last_word_cycle);
    }
    printf("(depth 0: unbounded; first and last word: cycles from the partition's first input word)\n");
}

static void print_text(const char *design, const cm_sim_result *r)
{
    print_summary(design, r);
    print_partitions(r);
    print_tasks(r);
    print_streams(r);
}

int cm_cli_simulate(int argc, char **argv)
{
    simulate_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CM_OK)
        return rc;
    a.o.progress = !a.quiet && isatty(STDERR_FILENO);
    cm_error err = {0};
    cm_sim_result r;
    /* the file first: a failed write leaves stdout empty */
    if (cm_sim_design_file(a.design, &a.o, a.output, &r, &err) != CM_OK)
        return cm_cli_fail(&err);
    if (a.json)
        rc = cm_cli_print_json(cm_sim_result_json(&r));
    else
        print_text(a.design, &r);
    rc = cm_cli_printed(rc, a.output);
    /* printed here rather than through cm_sim_verdict: a deadlock cycle may be longer
     * than an error record holds */
    if (rc == CM_OK && r.deadlock) {
        fprintf(stderr, "cnnmap: %s: deadlock: %s%s\n", a.design, r.deadlock_cycle,
                a.output ? " (no design written)" : "");
        rc = CM_EINFEASIBLE;
    } else if (rc == CM_OK && r.partial) {
        fprintf(stderr, "cnnmap: %s: %s%s\n", a.design, r.warning,
                a.output ? " (no design written)" : "");
        rc = CM_EINFEASIBLE;
    } else if (r.stopped_early) {
        fprintf(stderr, "cnnmap: %s: warning: %s\n", a.design, r.warning);
    }
    cm_sim_result_free(&r);
    return rc;
}
