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
#include "design/design_json.h"

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
           ld->stopped_early ? ", stopped early by the time limit (the best point found)" : "");
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

static double chosen_latency(const cm_latency_choice *o)
{
    return o->chose_latency ? o->ld.latency_s : o->partitioned_s;
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
    if (o->has_lower_bound && o->lower_bound_s <= chosen_latency(o))
        printf("lower bound  %.6g ms (gap %.3g%%) over both flows\n", o->lower_bound_s * 1e3,
               o->lower_bound_s > 0 ? 100.0 * (chosen_latency(o) / o->lower_bound_s - 1.0) : 0.0);
}

/* ---- JSON ---- */

static json_t *matrix_json(const cm_latency_design *ld, const double *m)
{
    bool ok = true;
    json_t *rows = json_array();
    for (int r = 0; r < ld->n_arcs; r++) {
        json_t *row = json_array();
        for (int c = 0; c < ld->n_nodes; c++)
            cm_cli_json_append(row, json_real(m[r * ld->n_nodes + c]), &ok);
        cm_cli_json_append(rows, row, &ok);
    }
    return cm_cli_json_finish(rows, ok);
}

static json_t *ints_json(const int *v, int n)
{
    bool ok = true;
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        cm_cli_json_append(a, json_integer(v[i]), &ok);
    return cm_cli_json_finish(a, ok);
}

static json_t *sdf_json(const cm_latency_design *ld)
{
    bool ok = true;
    json_t *o = json_object(), *nodes = json_array(), *subs = json_array();
    for (int c = 0; c < ld->n_nodes; c++)
        cm_cli_json_append(nodes, json_string(ld->node_names[c]), &ok);
    cm_cli_json_put(o, "nodes", nodes, &ok);
    cm_cli_json_put(o, "gamma", matrix_json(ld, ld->gamma), &ok);
    for (int s = 0; s < ld->n_subgraphs; s++) {
        const cm_latency_subgraph *x = &ld->subgraphs[s];
        json_t *j = json_object();
        cm_cli_json_put(j, "columns", ints_json(x->column, x->n_columns), &ok);
        cm_cli_json_put(j, "shift", ints_json(x->shift, x->n_columns), &ok);
        cm_cli_json_put(j, "workload", matrix_json(ld, x->workload), &ok);
        cm_cli_json_put(j, "ii", matrix_json(ld, x->ii), &ok);
        cm_cli_json_append(subs, j, &ok);
    }
    cm_cli_json_put(o, "subgraphs", subs, &ok);
    return cm_cli_json_finish(o, ok);
}

static json_t *block_json(const cm_latency_block *x)
{
    bool ok = true;
    json_t *o = json_object();
    cm_cli_json_put(o, "name", json_string(x->name), &ok);
    cm_cli_json_put(o, "kind", json_string(cm_latency_block_kind_name(x->kind)), &ok);
    cm_cli_json_put(o, "coarse", json_integer(x->coarse), &ok);
    cm_cli_json_put(o, "macc", json_integer(x->macc), &ok);
    cm_cli_json_put(o, "kernel", ints_json(x->kernel, 2), &ok);
    cm_cli_json_put(o, "bank_bram18", json_integer(x->bank_bram), &ok);
    cm_cli_json_put(o, "layers", json_integer(x->n_layers), &ok);
    cm_cli_json_put(o, "resources", cm_resources_json(&x->res, false), &ok);
    return cm_cli_json_finish(o, ok);
}

static json_t *subgraph_json(const cm_design *d, const cm_latency_subgraph *x)
{
    bool ok = true;
    json_t *o = json_object();
    cm_cli_json_put(o, "first", json_string(layer_name(d, x->first_layer)), &ok);
    cm_cli_json_put(o, "last", json_string(layer_name(d, x->last_layer)), &ok);
    cm_cli_json_put(o, "fold", json_integer(x->fold), &ok);
    cm_cli_json_put(o, "folds", json_integer(x->folds), &ok);
    cm_cli_json_put(o, "ii_cycles", json_real(x->ii_max_cycles), &ok);
    cm_cli_json_put(o, "depth_cycles", json_real(x->depth_cycles), &ok);
    cm_cli_json_put(o, "exec_s", json_real(x->exec_s), &ok);
    cm_cli_json_put(o, "weights_s", json_real(x->weights_s), &ok);
    cm_cli_json_put(o, "weight_words", json_integer(x->weight_words), &ok);
    return cm_cli_json_finish(o, ok);
}

static json_t *latency_json(const cm_design *d, const cm_latency_choice *o, bool sdf)
{
    bool ok = true;
    json_t *j = json_object();
    if (o->status != CM_OK && o->status != CM_EINFEASIBLE) {
        cm_cli_json_put(j, "available", json_false(), &ok);
        cm_cli_json_put(j, "message", json_string(o->err.message), &ok);
        return cm_cli_json_finish(j, ok);
    }
    const cm_latency_design *ld = &o->ld;
    json_t *blocks = json_array(), *subs = json_array(), *fin = json_object();
    cm_cli_json_put(j, "feasible", json_boolean(ld->feasible), &ok);
    cm_cli_json_put(j, "latency_s", json_real(ld->latency_s), &ok);
    cm_cli_json_put(j, "exec_s", json_real(ld->exec_s), &ok);
    cm_cli_json_put(j, "weights_s", json_real(ld->weights_s), &ok);
    cm_cli_json_put(j, "gops", json_real(ld->gops), &ok);
    cm_cli_json_put(j, "peak_gops", json_real(ld->peak_gops), &ok);
    cm_cli_json_put(j, "dsp_use", json_real(cm_design_board(d)->resources.dsp
        ? (double)ld->resources.dsp / (double)cm_design_board(d)->resources.dsp : 0.0), &ok);
    cm_cli_json_put(j, "resources", cm_resources_json(&ld->resources, false), &ok);
    cm_cli_json_put(j, "bandwidth_gbps", json_real(ld->bandwidth_gbps), &ok);
    for (int b = 0; b < ld->n_blocks; b++)
        cm_cli_json_append(blocks, block_json(&ld->blocks[b]), &ok);
    cm_cli_json_put(j, "blocks", blocks, &ok);
    for (int s = 0; s < ld->n_subgraphs; s++)
        cm_cli_json_append(subs, subgraph_json(d, &ld->subgraphs[s]), &ok);
    cm_cli_json_put(j, "schedule", subs, &ok);
    for (int i = 0; i < ld->n_layers; i++)
        if (ld->fin[i] > 1)
            cm_cli_json_put(fin, layer_name(d, i), json_integer(ld->fin[i]), &ok);
    cm_cli_json_put(j, "fin", fin, &ok);
    cm_cli_json_put(j, "evaluations", json_integer((json_int_t)ld->evaluations), &ok);
    cm_cli_json_put(j, "time_s", json_real(ld->time_s), &ok);
    cm_cli_json_put(j, "stopped_early", json_boolean(ld->stopped_early), &ok);
    if (ld->has_lower_bound) {
        cm_cli_json_put(j, "lower_bound_s", json_real(ld->lower_bound_s), &ok);
        cm_cli_json_put(j, "optimal", json_boolean(ld->optimal), &ok);
    }
    if (sdf)
        cm_cli_json_put(j, "sdf", sdf_json(ld), &ok);
    return cm_cli_json_finish(j, ok);
}

/* The top-level figures become the chosen design's; the throughput-driven ones move.
 * False when a figure could not be put (out of memory, or not finite). */
static bool adopt_latency(json_t *obj, const cm_latency_choice *o)
{
    static const char *const moved[] = {"latency_s", "gops", "partitions", "feasible",
                                        "resources", "lower_bound_s"};
    bool ok = true;
    json_t *t = json_object();
    for (size_t i = 0; i < sizeof moved / sizeof moved[0]; i++) {
        json_t *v = json_object_get(obj, moved[i]);
        if (v && json_object_set(t, moved[i], v) != 0)
            ok = false;
    }
    /* the optimiser's bound covers the partitioned designs only: no bound is known for
     * the latency-driven answer */
    json_object_del(obj, "lower_bound_s");
    cm_cli_json_put(obj, "throughput_driven", t, &ok);
    const cm_latency_design *ld = &o->ld;
    cm_cli_json_put(obj, "feasible", json_true(), &ok);
    cm_cli_json_put(obj, "latency_s", json_real(ld->latency_s), &ok);
    cm_cli_json_put(obj, "latency_cycles", json_real(ld->latency_s * ld->clock_mhz * 1e6), &ok);
    cm_cli_json_put(obj, "throughput_fps", json_real(ld->batch / ld->latency_s), &ok);
    cm_cli_json_put(obj, "gops", json_real(ld->gops), &ok);
    cm_cli_json_put(obj, "partitions", json_integer(1), &ok);
    cm_cli_json_put(obj, "resources", cm_resources_json(&ld->resources, true), &ok);
    return ok;
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

/* A bound over both flows' spaces replaces the partitioned one; it is printed only
 * below the chosen latency (the invariant of cli.md). */
static void put_lower_bound(json_t *obj, const cm_latency_choice *o, bool *ok)
{
    if (o->has_lower_bound && o->lower_bound_s <= chosen_latency(o)) {
        json_t *covers = json_pack("[ss]", "throughput_driven", "latency_driven");
        cm_cli_json_put(obj, "lower_bound_s", json_real(o->lower_bound_s), ok);
        cm_cli_json_put(obj, "lower_bound_covers", covers, ok);
    } else if (json_object_get(obj, "lower_bound_s")) {
        cm_cli_json_put(obj, "lower_bound_covers", json_string("throughput_driven"), ok);
    }
}

static int print_json(const cm_design *d, const cm_design_run *run, const cm_latency_choice *o, bool sdf,
                      const char *output, cm_cli_format format)
{
    json_t *obj = cm_design_report_json(d, run);
    if (!obj)
        return cm_cli_print_json(NULL);
    bool ok = !o->chose_latency || adopt_latency(obj, o);
    put_lower_bound(obj, o, &ok);
    cm_cli_json_put(obj, "chosen",
                    json_string(o->chose_latency ? "latency_driven" : "throughput_driven"), &ok);
    cm_cli_json_put(obj, "latency_driven", latency_json(d, o, sdf), &ok);
    if (!(obj = cm_cli_json_finish(obj, ok)))
        return cm_cli_print_json(NULL);
    int rc = save_choice(d, run, o, output);
    if (rc != CM_OK) {
        json_decref(obj);
        return rc;
    }
    return cm_cli_print_as(obj, format);
}

static int print_report(const cm_design *d, const cm_design_run *run, const cm_latency_choice *o,
                        cm_cli_format format, bool sdf, const char *output)
{
    if (format != CM_CLI_TEXT)
        return print_json(d, run, o, sdf, output, format);
    int rc = save_choice(d, run, o, output);
    if (rc == CM_OK)
        rc = cm_cli_print_design(d, run, CM_CLI_TEXT, NULL);
    if (rc == CM_OK) {
        print_section(d, o, sdf);
        print_choice(o, run);
        rc = fflush(stdout) != 0 ? CM_EINTERNAL : rc;
    }
    return rc;
}

int cm_cli_latency_report(const cm_design *d, const cm_design_run *run,
                          const cm_cli_latency_args *a, bool *chose_latency)
{
    cm_violation v;
    *chose_latency = false;
    bool partitioned_ok = cm_design_check(d, &v, 1) == 0;
    if (!a->weights_reloading)
        return cm_cli_print_design(d, run, a->format, partitioned_ok ? a->output : NULL);
    cm_latency_choice o;
    cm_latency_choose(d, run, &o);
    *chose_latency = o.chose_latency;
    /* Written only when the command succeeds: the chosen design is feasible. */
    const char *output = o.chose_latency || partitioned_ok ? a->output : NULL;
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
