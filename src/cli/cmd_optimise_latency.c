/* The latency-driven part of `cnnmap optimise ... --objective latency` on fpgaConvNet:
 * prints the library's choice (cm_latency_choose) between the throughput-driven design
 * the command optimised and the latency-driven one, and the reference architecture, the
 * schedule of subgraphs and, with --sdf, the SDF matrices (text or JSON); writes the
 * chosen design's file. `evaluate` of that file prints the same from the choice read
 * back (cm_latency_choice_load), without searching. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cnnmap/design.h>
#include <cnnmap/design_io.h>
#include <cnnmap/latency.h>

#include "cli/cli.h"
#include "cli/latency_report.h"
#include "design/design_outcome.h"
#include "latency/latency_json.h"
#include "util/json_file.h"

static const char *layer_name(const cm_design *d, int i)
{
    return cm_design_graph(d)->layers[i].name;
}

/* ---- text ---- */

static void print_blocks(const cm_latency_design *ld)
{
    printf("\n%-8s %-12s %6s %5s %7s %5s %6s %6s %7s %8s %9s\n", "block", "kind", "coarse", "macc",
           "window", "bank", "layers", "DSP", "BRAM18", "LUT", "FF");
    for (int b = 0; b < ld->n_blocks; b++) {
        const cm_latency_block *x = &ld->blocks[b];
        char window[32] = "-";
        if (x->kind == CM_LATENCY_CONV || x->kind == CM_LATENCY_POOL)
            snprintf(window, sizeof window, "%dx%d", x->kernel[0], x->kernel[1]);
        printf("%-8s %-12s %6d %5d %7s %5d %6d %6" PRId64 " %7" PRId64 " %8" PRId64 " %9" PRId64 "\n",
               x->name, cm_latency_block_kind_name(x->kind), x->coarse, x->macc, window,
               x->bank_bram, x->n_layers, x->res.dsp, x->res.bram18, x->res.lut, x->res.ff);
    }
}

static void print_schedule(const cm_design *d, const cm_latency_design *ld)
{
    printf("\n%4s %-14s %-14s %12s %12s %10s %10s %11s %10s\n", "sub", "first", "last", "fold",
           "II cycles", "depth", "exec ms", "weights ms", "weights");
    for (int s = 0; s < ld->n_subgraphs; s++) {
        const cm_latency_subgraph *x = &ld->subgraphs[s];
        char fold[32];
        cm_latency_pass_name(x, fold, sizeof fold);
        printf("%4d %-14.14s %-14.14s %12s %12.0f %10.0f %10.6g %11.6g %10" PRId64 "\n", s,
               layer_name(d, x->first_layer), layer_name(d, x->last_layer), fold, x->ii_max_cycles,
               x->depth_cycles, x->exec_s * 1e3, x->weights_s * 1e3, x->weight_words);
    }
}

static void print_matrix(const cm_latency_design *ld, const char *title, const double *m)
{
    printf("%s\n%6s", title, "arc");
    for (int c = 0; c < ld->n_nodes; c++)
        printf(" %13.13s", ld->node_names[c]);
    printf("\n");
    for (int r = 0; r < ld->n_arcs; r++) {
        printf("%6d", r);
        for (int c = 0; c < ld->n_nodes; c++)
            printf(" %13.6g", m[r * ld->n_nodes + c]);
        printf("\n");
    }
}

static void print_sdf(const cm_latency_design *ld)
{
    printf("\nSDF: arc a runs from node a to node a+1 (the last back to memory); "
           "Gamma = S (.) C (.) R in words/cycle\n");
    print_matrix(ld, "Gamma (reference architecture)", ld->gamma);
    for (int s = 0; s < ld->n_subgraphs; s++) {
        const cm_latency_subgraph *x = &ld->subgraphs[s];
        printf("\nsubgraph %d: columns", s);
        for (int k = 0; k < x->n_columns; k++)
            printf(" %d(+%d)", x->column[k], x->shift[k]);
        printf(" (reference column and Alg. 1 shift)\n");
        print_matrix(ld, "W (aligned)", x->workload);
        print_matrix(ld, "II = W / Gamma (cycles)", x->ii);
    }
}

static void print_fin(const cm_design *d, const cm_latency_design *ld)
{
    bool any = false;
    for (int i = 0; i < ld->n_layers; i++)
        if (ld->fin[i] > 1) {
            printf("%s %s %d", any ? "," : "f_in        ", layer_name(d, i), ld->fin[i]);
            any = true;
        }
    if (any)
        printf("\n");
}

static void print_section(const cm_design *d, const cm_latency_choice *o, bool sdf)
{
    printf("\nlatency-driven design (weights reloading, one reference architecture)\n");
    if (o->status != CM_OK && o->status != CM_EINFEASIBLE) {
        printf("not available: %s\n", o->err.message);
        return;
    }
    const cm_latency_design *ld = &o->ld;
    const cm_resources *r = &ld->resources, *h = &cm_design_board(d)->resources;
    printf("feasible     %s\n", ld->feasible ? "yes" : o->err.message);
    printf("latency      %.6g ms (execution %.6g ms, weight loading %.6g ms, %d subgraph%s)\n",
           ld->latency_s * 1e3, ld->exec_s * 1e3, ld->weights_s * 1e3, ld->n_subgraphs,
           ld->n_subgraphs == 1 ? "" : "s");
    printf("performance  %.4g GOp/s of %.4g GOp/s peak (%.1f%%)\n", ld->gops, ld->peak_gops,
           ld->peak_gops > 0 ? 100.0 * ld->gops / ld->peak_gops : 0.0);
    printf("resources    DSP %" PRId64 "/%" PRId64 " (%.1f%%), BRAM18 %" PRId64 "/%" PRId64
           ", LUT %" PRId64 "/%" PRId64 ", FF %" PRId64 "/%" PRId64 "\n",
           r->dsp, h->dsp, h->dsp ? 100.0 * (double)r->dsp / (double)h->dsp : 0.0, r->bram18,
           h->bram18, r->lut, h->lut, r->ff, h->ff);
    printf("search       %" PRIu64 " design points, %.3f s%s\n", ld->evaluations, ld->time_s,
           !ld->stopped_early       ? ""
           : ld->stopped_by_budget ? ", stopped by its work budget (the best point found)"
                                   : ", stopped early by the time limit (the best point found)");
    if (ld->has_lower_bound)
        printf("lower bound  %.6g ms (gap %.3g%%, latency-driven designs%s)\n",
               ld->lower_bound_s * 1e3,
               ld->lower_bound_s > 0 ? 100.0 * (ld->latency_s / ld->lower_bound_s - 1.0) : 0.0,
               ld->optimal ? "; optimal within the search's gap" : "");
    print_fin(d, ld);
    print_blocks(ld);
    print_schedule(d, ld);
    if (sdf)
        print_sdf(ld);
}

static void print_choice(const cm_latency_choice *o, const cm_design_run *run)
{
    if (o->chose_latency && !isfinite(o->partitioned_s))
        printf("\nchosen       latency-driven: %.6g ms; the throughput-driven design does not "
               "fit\n", o->ld.latency_s * 1e3);
    else if (o->chose_latency)
        printf("\nchosen       latency-driven: %.6g ms against %.6g ms throughput-driven "
               "(%.3gx lower)\n", o->ld.latency_s * 1e3, o->partitioned_s * 1e3,
               o->partitioned_s / o->ld.latency_s);
    else
        printf("\nchosen       throughput-driven: %.6g ms (latency-driven %.6g ms)\n",
               o->partitioned_s * 1e3, o->status == CM_OK ? o->ld.latency_s * 1e3 : INFINITY);
    if (run->result.has_lower_bound)
        printf("(the lower bound above covers the throughput-driven designs only)\n");
    if (o->has_lower_bound && o->lower_bound_s <= cm_latency_chosen_s(o))
        printf("lower bound  %.6g ms (gap %.3g%%) over both flows\n", o->lower_bound_s * 1e3,
               o->lower_bound_s > 0 ? 100.0 * (cm_latency_chosen_s(o) / o->lower_bound_s - 1.0) : 0.0);
}

/* The chosen design's file: a latency-driven design file, or the streaming design file
 * with the latency-driven alternative recorded. */
static int save_choice(const cm_design *d, const cm_design_run *run, const cm_latency_choice *o,
                       const char *output)
{
    cm_error err = {0};
    if (output && cm_latency_choice_save(d, run, o, output, &err) != CM_OK)
        return cm_cli_fail(&err);
    return CM_OK;
}

typedef struct choice_texts {
    const cm_design *d;
    const cm_design_run *run;
    const cm_latency_choice *c;
    bool sdf;
} choice_texts;

static bool choice_report_text(const void *ctx, cm_strbuf *out)
{
    const choice_texts *x = ctx;
    return cm_latency_choice_write(x->d, x->run, x->c, x->sdf, out,
                                   JSON_INDENT(1) | JSON_PRESERVE_ORDER | CM_JSON_PRINT_FLAGS);
}

static cm_status choice_file_text(const void *ctx, cm_strbuf *out, bool *built, cm_error *err)
{
    const choice_texts *x = ctx;
    return cm_latency_choice_text(x->d, x->run, x->c, out, built, err);
}

static int print_json(const cm_design *d, const cm_design_run *run, const cm_latency_choice *o, bool sdf,
                      const char *output, cm_cli_format format)
{
    if (format == CM_CLI_JSON) {
        choice_texts x = {d, run, o, sdf};
        cm_cli_texts t = {d, &x, choice_report_text, choice_file_text};
        return cm_cli_print_with_file(&t, output);
    }
    json_t *obj = cm_latency_choice_json(d, run, o, sdf); /* CSV reads the tree's table */
    if (!obj)
        return cm_cli_print_json(NULL);
    int rc = save_choice(d, run, o, output);
    if (rc != CM_OK) {
        json_decref(obj);
        return rc;
    }
    return cm_cli_printed(cm_cli_print_as(obj, format), output);
}

static int print_report(const cm_design *d, const cm_design_run *run, const cm_latency_choice *o,
                        cm_cli_format format, bool sdf, const char *output)
{
    if (format != CM_CLI_TEXT)
        return print_json(d, run, o, sdf, output, format);
    int rc = save_choice(d, run, o, output);
    if (rc != CM_OK)
        return rc;
    rc = cm_cli_print_design(d, run, CM_CLI_TEXT, NULL);
    if (rc == CM_OK) {
        print_section(d, o, sdf);
        print_choice(o, run);
    }
    return cm_cli_printed(rc, output);
}

int cm_cli_latency_report(const cm_design *d, const cm_design_run *run,
                          const cm_cli_latency_args *a, bool *chose_latency)
{
    *chose_latency = false;
    if (!a->weights_reloading)
        return cm_cli_print_design(d, run, a->format,
                                   cm_design_outcome_writable(d, false) ? a->output : NULL);
    cm_latency_choice o;
    cm_latency_choose(d, run, &o);
    *chose_latency = o.chose_latency;
    /* Written only when the command succeeds: the chosen design is feasible. */
    const char *output = cm_design_outcome_writable(d, o.chose_latency) ? a->output : NULL;
    int rc = print_report(d, run, &o, a->format, a->sdf, output);
    cm_latency_choice_free(&o);
    return rc;
}

int cm_cli_latency_evaluate(const char *path, cm_cli_format format, bool sdf)
{
    cm_design *d = NULL;
    cm_design_run run;
    cm_latency_choice o;
    cm_error err = {0};
    if (cm_latency_choice_load(path, &d, &run, &o, &err) != CM_OK)
        return cm_cli_fail(&err);
    int rc = print_report(d, &run, &o, format, sdf, NULL);
    if (rc == CM_OK)
        rc = cm_cli_design_outcome(d, &run, path, o.chose_latency);
    cm_latency_choice_free(&o);
    cm_design_free(d);
    return rc;
}
