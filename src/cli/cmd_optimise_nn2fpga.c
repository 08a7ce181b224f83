/* `cnnmap optimise MODEL --backend nn2fpga`: sizes an nn2FPGA dataflow accelerator
 * with the two-phase integer program and prints per-layer unroll factors, latencies,
 * DSPs and banks, the skip-connection buffers and the size and time of each phase. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cnnmap/model.h>
#include <cnnmap/nn2fpga.h>

#include "cli/cli.h"
#include "util/atomic_file.h"

static const char usage[] =
    "usage: cnnmap optimise MODEL --board BOARD --backend nn2fpga [--optimiser bip|exact|none]\n"
    "                       [--objective throughput|latency] [--batch N] [--clock MHZ]\n"
    "                       [--bits N] [--no-temporal-reuse] [--no-loop-merge]\n"
    "                       [--time-limit SECONDS] [-o REPORT.json] [--json] [--quiet]\n\n"
    "Maps MODEL onto an nn2FPGA static dataflow accelerator: every convolution and pooling\n"
    "layer gets unroll factors (ow_par, och_par, ich_par) from a two-phase binary integer\n"
    "program (phase 1 minimises the pipeline period S, phase 2 the resources at that S).\n\n"
    "  --optimiser O        bip (default): phase 1 by bisection over the candidate\n"
    "                       periods, then phase 2; exact: phase 1 as one program with S\n"
    "                       a variable (slower, same optimum); none: every factor 1.\n"
    "                       rule, anneal and brute belong to the other backends (exit 1)\n"
    "  --objective O        throughput (default, batch 256) or latency (batch 1); the\n"
    "                       design always minimises S, the batch only sets latency_s\n"
    "  --bits N             bit width of weights and activations that the model does not\n"
    "                       quantise (default 8; a warning says when it is used)\n"
    "  --no-temporal-reuse  buffer identity skip connections in full\n"
    "  --no-loop-merge      keep downsampling convolutions as separate layers\n"
    "  --time-limit S       stop each integer program after S seconds (not proven optimal)\n"
    "  -o REPORT.json       write the JSON report (not a design file: `evaluate` and\n"
    "                       `export` do not read it)\n"
    "  --json               print the summary object of cli.md with the nn2fpga keys\n"
    "  --seed, --no-reconf  accepted; the backend is deterministic and has one partition\n";

typedef struct n2_args {
    const char *model, *board, *output;
    cm_nn2fpga_options o;
    bool json, latency;
} n2_args;

enum { OPT_BOARD = 256, OPT_BACKEND, OPT_OBJECTIVE, OPT_BATCH, OPT_OPTIMISER, OPT_IGNORED,
       OPT_SEED, OPT_TIME, OPT_CLOCK, OPT_BITS, OPT_JSON, OPT_NO_TR, OPT_NO_LM };

static const char cmd[] = "optimise";

static int parse_optimiser(const char *arg, n2_args *a)
{
    static const cm_nn2fpga_solver solvers[] = {CM_NN2FPGA_BIP, CM_NN2FPGA_EXACT, CM_NN2FPGA_NONE};
    for (int i = 0; i < 3; i++)
        if (strcmp(arg, cm_nn2fpga_solver_name(solvers[i])) == 0) {
            a->o.solver = solvers[i];
            return CM_OK;
        }
    return cm_cli_usage_error(cmd, "the nn2fpga backend takes --optimiser bip, exact or none, not '%s'",
                              arg);
}

static int parse_objective(const char *arg, n2_args *a)
{
    if (strcmp(arg, "throughput") != 0 && strcmp(arg, "latency") != 0)
        return cm_cli_usage_error(cmd, "unknown objective '%s' (latency or throughput)", arg);
    a->latency = strcmp(arg, "latency") == 0;
    return CM_OK;
}

static int parse_option(int c, const char *arg, n2_args *a)
{
    long v = 0;
    int rc = CM_OK;
    switch (c) {
    case OPT_BOARD: a->board = arg; break;
    case 'o': a->output = arg; break;
    case OPT_BACKEND:
        if (strcmp(arg, "nn2fpga") != 0)
            return cm_cli_usage_error(cmd, "more than one --backend given");
        break;
    case OPT_OBJECTIVE: return parse_objective(arg, a);
    case OPT_BATCH:
        rc = cm_cli_parse_long(cmd, "--batch", arg, 1, 1L << 20, &v);
        a->o.batch = (int)v;
        break;
    case OPT_OPTIMISER: return parse_optimiser(arg, a);
    case OPT_SEED: return cm_cli_parse_long(cmd, "--seed", arg, 0, LONG_MAX, &v);
    case OPT_TIME: return cm_cli_parse_double(cmd, "--time-limit", arg, 0.001, 1e7, &a->o.time_limit_s);
    case OPT_CLOCK: return cm_cli_parse_double(cmd, "--clock", arg, 1.0, 2000.0, &a->o.clock_mhz);
    case OPT_BITS:
        rc = cm_cli_parse_long(cmd, "--bits", arg, 1, 32, &v);
        a->o.default_bits = (int)v;
        break;
    case OPT_JSON: a->json = true; break;
    case OPT_NO_TR: a->o.temporal_reuse = false; break;
    case OPT_NO_LM: a->o.loop_merge = false; break;
    case OPT_IGNORED: break;
    default: return cm_cli_usage_error(cmd, "unknown option '%s'", arg ? arg : "");
    }
    return rc;
}

static int parse_args(int argc, char **argv, n2_args *a)
{
    static const struct option options[] = {
        {"board", required_argument, NULL, OPT_BOARD},
        {"backend", required_argument, NULL, OPT_BACKEND},
        {"objective", required_argument, NULL, OPT_OBJECTIVE},
        {"batch", required_argument, NULL, OPT_BATCH},
        {"optimiser", required_argument, NULL, OPT_OPTIMISER},
        {"no-reconf", no_argument, NULL, OPT_IGNORED},
        {"quiet", no_argument, NULL, OPT_IGNORED},
        {"seed", required_argument, NULL, OPT_SEED},
        {"time-limit", required_argument, NULL, OPT_TIME},
        {"clock", required_argument, NULL, OPT_CLOCK},
        {"bits", required_argument, NULL, OPT_BITS},
        {"output", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, OPT_JSON},
        {"no-temporal-reuse", no_argument, NULL, OPT_NO_TR},
        {"no-loop-merge", no_argument, NULL, OPT_NO_LM},
        {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    cm_nn2fpga_options_init(&a->o);
    a->o.batch = 0;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":o:", options, NULL)) != -1) {
        if (c == '?' || c == ':')
            return cm_cli_usage_error(cmd, "%s option '%s'",
                                      c == ':' ? "missing value for" : "unknown", argv[optind - 1]);
        int rc = parse_option(c, optarg, a);
        if (rc != CM_OK)
            return rc;
    }
    if (optind != argc - 1)
        return cm_cli_usage_error(cmd, optind >= argc ? "no MODEL given" : "more than one MODEL given");
    if (!a->board)
        return cm_cli_usage_error(cmd, "--board is required");
    a->model = argv[optind];
    if (a->o.batch == 0)
        a->o.batch = a->latency ? 1 : 256;
    return cm_cli_check_output(cmd, "-o", a->output);
}

/* ---- the report ---- */

typedef struct n2_report {
    const n2_args *args;
    const cm_graph *g;
    const cm_board *board;
    const cm_nn2fpga_result *r;
} n2_report;

static double latency_s(const cm_nn2fpga_result *r)
{
    return (double)r->latency_cycles / (r->clock_mhz * 1e6);
}

static json_t *resources_json(int64_t dsp, int64_t bram, int64_t uram, int64_t lut, int64_t ff)
{
    return json_pack("{sI sI sI sI sI}", "DSP", (json_int_t)dsp, "BRAM18", (json_int_t)bram, "URAM",
                     (json_int_t)uram, "LUT", (json_int_t)lut, "FF", (json_int_t)ff);
}

static json_t *layer_json(const cm_nn2fpga_layer *l, int64_t period)
{
    json_t *o = json_pack("{ss ss s[III] s[III] s[II] si si si si si si sb}", "name", l->name, "kind",
                          cm_nn2fpga_kind_name(l->kind), "in_shape", (json_int_t)l->ich,
                          (json_int_t)l->ih, (json_int_t)l->iw, "out_shape", (json_int_t)l->och,
                          (json_int_t)l->oh, (json_int_t)l->ow, "kernel", (json_int_t)l->fh,
                          (json_int_t)l->fw, "weight_bits", l->weight_bits, "act_bits", l->act_bits,
                          "pack", l->pack, "ow_par", l->ow_par, "och_par", l->och_par, "ich_par",
                          l->ich_par, "weights_in_uram", l->weights_in_uram);
    json_t *c = json_pack("{sI sI sI sI sI sI sI sb si si}", "lc", (json_int_t)l->lc, "lw",
                          (json_int_t)l->lw, "dsp", (json_int_t)l->dsp, "bram18_weights",
                          (json_int_t)l->bram_weights, "bram18_window", (json_int_t)l->bram_window,
                          "uram_weights", (json_int_t)l->uram_weights, "window_activations",
                          (json_int_t)l->window_activations, "critical",
                          (l->lc > l->lw ? l->lc : l->lw) == period, "configs_enumerated",
                          l->configs_enumerated, "configs_kept", l->configs_kept);
    if (!o || !c || json_object_update(o, c) != 0) {
        json_decref(o);
        o = NULL;
    }
    json_decref(c);
    return o;
}

static json_t *skip_json(const cm_nn2fpga_skip *s)
{
    return json_pack("{ss sb sb sI si sI sI sI sI}", "name", s->name, "downsample", s->downsample,
                     "optimised", s->optimised, "channels", (json_int_t)s->channels, "bits", s->bits,
                     "activations_before", (json_int_t)s->activations_before, "activations_after",
                     (json_int_t)s->activations_after, "bram18_before", (json_int_t)s->bram_before,
                     "bram18_after", (json_int_t)s->bram_after);
}

static json_t *phase_json(const cm_nn2fpga_result *r, int i)
{
    const cm_nn2fpga_phase *p = &r->phases[i];
    json_t *res = i == 0 ? resources_json(r->dsp_phase1, r->bram_phase1, r->uram_phase1, 0, 0)
                         : resources_json(r->dsp, r->bram18, r->uram, 0, 0);
    return json_pack("{si si si si sf sb sf sI so}", "phase", i + 1, "variables", p->variables,
                     "constraints", p->constraints, "programs", p->programs, "time_s", p->time_s,
                     "optimal", p->optimal, "objective", p->objective, "period",
                     (json_int_t)(i == 0 ? r->period_phase1 : r->period), "resources", res);
}

/* Appends json_pack'd items; a NULL item (out of memory) makes the array NULL. */
static json_t *append(json_t *arr, json_t *item)
{
    if (!arr || !item || json_array_append_new(arr, item) != 0) {
        json_decref(arr);
        json_decref(item);
        return NULL;
    }
    return arr;
}

static json_t *details_json(const n2_report *rep)
{
    const cm_nn2fpga_result *r = rep->r;
    json_t *layers = json_array(), *skips = json_array(), *phases = json_array();
    for (int i = 0; i < r->n_layers; i++)
        layers = append(layers, layer_json(&r->layers[i], r->period));
    int64_t before = 0, after = 0, bram_before = 0;
    for (int i = 0; i < r->n_skips; i++) {
        skips = append(skips, skip_json(&r->skips[i]));
        before += r->skips[i].activations_before * r->skips[i].bits;
        after += r->skips[i].activations_after * r->skips[i].bits;
        bram_before += r->skips[i].bram_before;
    }
    for (int i = 0; i < 2 && r->phases[i].programs > 0; i++)
        phases = append(phases, phase_json(r, i));
    return json_pack("{sI sf sb s{sb sb} s{si si} so so s{sI sI sI sI} so}", "period_cycles",
                     (json_int_t)r->period, "fps_steady", r->fps, "optimal", r->optimal,
                     "transformations", "temporal_reuse", rep->args->o.temporal_reuse,
                     "loop_merge", rep->args->o.loop_merge, "design_space", "enumerated",
                     r->variables_enumerated, "layers_in_g", r->n_layers, "phases", phases,
                     "layers", layers, "skip_storage", "bits_before", (json_int_t)before,
                     "bits_after", (json_int_t)after, "bram18_before", (json_int_t)bram_before,
                     "bram18_after", (json_int_t)r->bram_skip, "skip_connections", skips);
}

static json_t *report_json(const n2_report *rep)
{
    const cm_nn2fpga_result *r = rep->r;
    const cm_resources *h = &rep->board->resources;
    double lat = latency_s(r), fps = (double)r->batch / lat;
    json_t *o = json_pack(
        "{ss ss ss ss si sf sb sf sI sf sf si so so s{ss sI sf si}}", "model", rep->g->name, "board",
        rep->board->name, "backend", "nn2fpga", "objective",
        rep->args->latency ? "latency" : "throughput", "batch", r->batch, "clock_mhz", r->clock_mhz,
        "feasible", true, "latency_s", lat, "latency_cycles", (json_int_t)r->latency_cycles,
        "throughput_fps", fps, "gops", 2.0 * (double)r->macs * fps / 1e9, "partitions", 1,
        "resources", resources_json(r->dsp, r->bram18, r->uram, 0, 0), "board_resources",
        resources_json(h->dsp, h->bram18, h->uram, h->lut, h->ff), "optimiser", "name",
        cm_nn2fpga_solver_name(rep->args->o.solver), "evaluations",
        (json_int_t)(r->phases[0].programs + r->phases[1].programs), "time_s", r->time_s, "seed", 0);
    json_t *d = details_json(rep);
    if (!o || !d || json_object_update(o, d) != 0) {
        json_decref(o);
        o = NULL;
    }
    json_decref(d);
    return o;
}

static void print_layers(const cm_nn2fpga_result *r)
{
    printf("\n%-24s %-6s %5s %5s %5s %4s %9s %9s %5s %6s %6s %5s %5s\n", "layer", "kind", "ow_p",
           "och_p", "ich_p", "pack", "Lc", "Lw", "DSP", "BRAMw", "BRAMwb", "URAM", "cfgs");
    for (int i = 0; i < r->n_layers; i++) {
        const cm_nn2fpga_layer *l = &r->layers[i];
        printf("%-24.24s %-6s %5d %5d %5d %4d %9lld %9lld %5lld %6lld %6lld %5lld %5d%s\n", l->name,
               cm_nn2fpga_kind_name(l->kind), l->ow_par, l->och_par, l->ich_par, l->pack,
               (long long)l->lc, (long long)l->lw, (long long)l->dsp, (long long)l->bram_weights,
               (long long)l->bram_window, (long long)l->uram_weights, l->configs_kept,
               (l->lc > l->lw ? l->lc : l->lw) == r->period ? "  *" : "");
    }
}

static void print_skips(const cm_nn2fpga_result *r)
{
    if (r->n_skips == 0)
        return;
    printf("\n%-24s %-9s %-4s %12s %12s %8s %8s\n", "skip connection", "kind", "opt", "act before",
           "act after", "BRAM bef", "BRAM aft");
    for (int i = 0; i < r->n_skips; i++) {
        const cm_nn2fpga_skip *s = &r->skips[i];
        printf("%-24.24s %-9s %-4s %12lld %12lld %8lld %8lld\n", s->name,
               s->downsample ? "downsamp" : "identity", s->optimised ? "yes" : "no",
               (long long)s->activations_before, (long long)s->activations_after,
               (long long)s->bram_before, (long long)s->bram_after);
    }
}

static void print_human(const n2_report *rep)
{
    const cm_nn2fpga_result *r = rep->r;
    const cm_resources *h = &rep->board->resources;
    printf("model        %s\n", rep->g->name);
    printf("board        %s (%s), %.1f MHz\n", rep->board->display_name, rep->board->name, r->clock_mhz);
    printf("backend      nn2fpga, optimiser %s%s, %.3f s\n", cm_nn2fpga_solver_name(rep->args->o.solver),
           r->optimal ? " (proven optimal)" : "", r->time_s);
    printf("period S     %lld cycles (phase 1: %lld), %.6g FPS at %.1f MHz\n", (long long)r->period,
           (long long)r->period_phase1, r->fps, r->clock_mhz);
    printf("batch        %d: latency %.6g ms\n", r->batch, latency_s(r) * 1e3);
    printf("resources    DSP %lld/%lld, BRAM18 %lld/%lld (skip buffers %lld), URAM %lld/%lld\n",
           (long long)r->dsp, (long long)h->dsp, (long long)r->bram18, (long long)h->bram18,
           (long long)r->bram_skip, (long long)r->uram, (long long)h->uram);
    printf("residual     temporal reuse %s, loop merge %s\n",
           rep->args->o.temporal_reuse ? "on" : "off", rep->args->o.loop_merge ? "on" : "off");
    for (int i = 0; i < 2 && r->phases[i].programs > 0; i++)
        printf("phase %d      %d variables, %d constraints, %d program%s, %.3f s%s\n", i + 1,
               r->phases[i].variables, r->phases[i].constraints, r->phases[i].programs,
               r->phases[i].programs == 1 ? "" : "s", r->phases[i].time_s,
               r->phases[i].optimal ? ", optimal" : ", not proven optimal");
    print_layers(r);
    print_skips(r);
    printf("(* critical layer: its latency is S; BRAMw/BRAMwb: weight and window-buffer BRAM18)\n");
}

static int write_report(const n2_report *rep, const char *path)
{
    json_t *o = report_json(rep);
    if (!o)
        return cm_cli_print_json(NULL); /* its one line says why */
    char *text = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    json_decref(o);
    cm_error err = {0};
    cm_status st = text ? cm_write_file_atomic(path, text, strlen(text), &err) : cm_error_nomem(&err);
    free(text);
    return st == CM_OK ? CM_OK : cm_cli_fail(&err);
}

static cm_status run(const n2_args *a, cm_graph **g, cm_board *board, cm_nn2fpga_result *r,
                     cm_error *err)
{
    cm_status st = cm_board_resolve(a->board, board, err);
    if (st == CM_OK)
        st = cm_model_load(a->model, g, err);
    if (st != CM_OK)
        return st;
    st = cm_nn2fpga_optimise(*g, board, &a->o, r, err);
    if (st != CM_OK)
        cm_error_prefix(err, a->model);
    else if (r->bits_defaulted)
        fprintf(stderr, "cnnmap: warning: %s: some layers have no Quant annotation; using %d bits "
                        "(--bits)\n", a->model, a->o.default_bits);
    return st;
}

int cm_cli_optimise_nn2fpga(int argc, char **argv)
{
    if (cm_cli_wants_help(argc, argv, usage))
        return CM_OK;
    n2_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CM_OK)
        return rc;
    cm_error err = {0};
    cm_graph *g = NULL;
    cm_board board;
    cm_nn2fpga_result r;
    memset(&r, 0, sizeof r);
    cm_status st = run(&a, &g, &board, &r, &err);
    if (st != CM_OK) {
        cm_graph_free(g);
        return cm_cli_fail(&err);
    }
    n2_report rep = {&a, g, &board, &r};
    if (a.output)
        rc = write_report(&rep, a.output);
    if (rc == CM_OK && a.json)
        rc = cm_cli_print_json(report_json(&rep));
    else if (rc == CM_OK)
        print_human(&rep);
    cm_nn2fpga_result_free(&r);
    cm_graph_free(g);
    return rc;
}
