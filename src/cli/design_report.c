/* What `optimise` and `evaluate` print about a design: the summary of cli.md, a
 * per-node table and a per-partition table, or the JSON object; and the one-line
 * error for a design that breaks a constraint. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cnnmap/design_io.h>

#include "cli/cli.h"
#include "cli/latency_report.h"
#include "design/design_file.h"
#include "design/design_json.h"
#include "design/design_outcome.h"
#include "util/parallel.h"
#include "util/json_file.h"
#include "util/strbuf.h"

static void print_resources_row(const cm_resources *r)
{
    printf(" %6" PRId64 " %7" PRId64 " %8" PRId64 " %9" PRId64, r->dsp, r->bram18, r->lut, r->ff);
}

static double percent(int64_t used, int64_t have)
{
    return have > 0 ? 100.0 * (double)used / (double)have : 0.0;
}

static void print_summary(const cm_design *d, const cm_design_run *run)
{
    cm_design_summary s;
    cm_design_summarise(d, &s);
    const cm_board *b = cm_design_board(d);
    const cm_design_options *o = cm_design_options_of(d);
    printf("model        %s\n", cm_design_graph(d)->name);
    printf("board        %s (%s), %.1f MHz\n", b->display_name, b->name, s.clock_mhz);
    printf("backend      %s\n", cm_backend_name(o->backend));
    printf("objective    %s, batch %d\n",
           o->objective == CM_OBJECTIVE_LATENCY ? "latency" : "throughput", s.batch);
    printf("optimiser    %s, %" PRIu64 " evaluations, %.3f s\n", cm_optimiser_name(run->optimiser),
           run->result.evaluations, run->result.time_s);
    printf("feasible     %s\n", s.feasible ? "yes" : "no");
    printf("latency      %.6g ms (%.0f cycles, %d partition%s)\n", s.latency_s * 1e3,
           s.latency_cycles, s.partitions, s.partitions == 1 ? "" : "s");
    printf("throughput   %.6g samples/s, %.4g GOp/s\n", s.throughput_fps, s.gops);
    if (run->result.has_lower_bound)
        printf("lower bound  %.6g ms (gap %.3g%%)\n", run->result.lower_bound_s * 1e3,
               run->result.lower_bound_s > 0
                   ? 100.0 * (s.latency_s / run->result.lower_bound_s - 1.0) : 0.0);
    if (run->result.note[0])
        printf("note         %s\n", run->result.note);
    cm_design_warning w[CM_DESIGN_WARNINGS_CAP];
    int n_warnings = cm_design_warnings(d, run, w, CM_DESIGN_WARNINGS_CAP);
    for (int i = 0; i < n_warnings && i < CM_DESIGN_WARNINGS_CAP; i++)
        printf("warning      %s\n", w[i].text);
    const cm_resources *r = &s.resources, *h = &b->resources;
    printf("resources    DSP %" PRId64 "/%" PRId64 " (%.1f%%), BRAM18 %" PRId64 "/%" PRId64
           " (%.1f%%), URAM %" PRId64 "/%" PRId64 ", LUT %" PRId64 "/%" PRId64 " (%.1f%%), FF %" PRId64
           "/%" PRId64 " (%.1f%%)\n",
           r->dsp, h->dsp, percent(r->dsp, h->dsp), r->bram18, h->bram18,
           percent(r->bram18, h->bram18), r->uram, h->uram, r->lut, h->lut, percent(r->lut, h->lut),
           r->ff, h->ff, percent(r->ff, h->ff));
}

static void print_nodes(const cm_design *d)
{
    printf("\n%-28s %-22s %4s %7s %7s %7s %14s %6s %7s %8s %9s\n", "node", "op", "part", "in",
           "out", "kernel", "cycles", "DSP", "BRAM18", "LUT", "FF");
    for (int i = 0; i < cm_design_node_count(d); i++) {
        cm_node_info n;
        cm_design_node_info(d, i, &n);
        printf("%-28.28s %-22.22s %4d %7" PRId64 " %7" PRId64 " %7" PRId64 " %14.0f", n.name, n.op,
               n.partition, n.fold_in, n.fold_out, n.fold_kernel, n.cycles);
        print_resources_row(&n.res);
        printf("\n");
    }
}

static void print_partitions(const cm_design *d)
{
    printf("\n%4s %-28s %-28s %14s %10s %12s %6s %7s %8s %9s\n", "part", "first", "last",
           "interval", "depth", "time ms", "DSP", "BRAM18", "LUT", "FF");
    for (int p = 0; p < cm_design_partition_count(d); p++) {
        cm_partition_info info;
        cm_node_info first, last;
        cm_design_partition_info(d, p, &info);
        cm_design_node_info(d, info.first, &first);
        cm_design_node_info(d, info.last, &last);
        printf("%4d %-28.28s %-28.28s %14.0f %10.0f %12.6g", p, first.name, last.name,
               info.interval_cycles, info.depth_cycles, info.time_s * 1e3);
        print_resources_row(&info.res);
        printf("\n");
    }
}

int cm_cli_save_design(const cm_design *d, const cm_design_run *run, const char *output)
{
    cm_error err = {0};
    if (output && cm_design_save(d, run, output, &err) != CM_OK)
        return cm_cli_fail(&err);
    return CM_OK;
}

typedef struct texts_run {
    const cm_cli_texts *t;
    cm_strbuf report, file;
    bool report_built, file_built;
    cm_status file_st;
    cm_error err;
} texts_run;

static void texts_task(void *ctx, int task, int lane)
{
    (void)lane;
    texts_run *r = ctx;
    if (task == 0)
        r->report_built = r->t->report(r->t->ctx, &r->report);
    else
        r->file_st = r->t->file(r->t->ctx, &r->file, &r->file_built, &r->err);
}

/* The report written into memory (`built`: its writer's verdict), printed when the
 * design file's step (`saved`, CM_OK when there was none) succeeded too; freed. */
static int print_written_report(cm_strbuf *text, bool built, int saved, const char *output)
{
    size_t len = text->len;
    char *data = cm_strbuf_take(text);
    int rc = !built          ? cm_cli_print_json(NULL)
             : saved != CM_OK ? saved
                              : cm_cli_printed(cm_cli_print_text(data, len), output);
    free(data);
    return rc;
}

int cm_cli_print_with_file(const cm_cli_texts *t, const char *output)
{
    /* The writers only read the design once its partitions' depths (kept up to date
     * lazily, through const) are. */
    (void)cm_design_cost(t->design);
    texts_run r = {.t = t};
    cm_parallel_run(output ? 2 : 1, 2, texts_task, &r, NULL);
    int saved = CM_OK;
    if (output && r.report_built) {
        if (r.file_st != CM_OK)
            saved = cm_cli_fail(&r.err);
        else if (cm_json_text_write(output, &r.file, r.file_built, &r.err) != CM_OK)
            saved = cm_cli_fail(&r.err);
    }
    free(cm_strbuf_take(&r.file)); /* what was not written */
    return print_written_report(&r.report, r.report_built, saved, output);
}

typedef struct design_texts {
    const cm_design *d;
    const cm_design_run *run;
} design_texts;

static bool design_report_text(const void *ctx, cm_strbuf *out)
{
    const design_texts *x = ctx;
    return cm_design_report_write(x->d, x->run, out,
                                  JSON_INDENT(1) | JSON_PRESERVE_ORDER | CM_JSON_PRINT_FLAGS);
}

static cm_status design_file_text(const void *ctx, cm_strbuf *out, bool *built, cm_error *err)
{
    (void)err;
    const design_texts *x = ctx;
    *built = cm_design_file_text(x->d, x->run, out);
    return CM_OK;
}

/* Streamed rather than built as one tree (a 10,000-node design's tree took a third of
 * the command); CSV reads the tree's tables. */
static int print_design_json(const cm_design *d, const cm_design_run *run, const char *output)
{
    design_texts x = {d, run};
    cm_cli_texts t = {d, &x, design_report_text, design_file_text};
    return cm_cli_print_with_file(&t, output);
}

int cm_cli_print_design(const cm_design *d, const cm_design_run *run, cm_cli_format format,
                        const char *output)
{
    if (format == CM_CLI_JSON)
        return print_design_json(d, run, output);
    json_t *obj = NULL;
    bool csv = format == CM_CLI_CSV;
    if (csv && !(obj = cm_design_report_json(d, run)))
        return cm_cli_print_json(NULL);
    int rc = cm_cli_save_design(d, run, output);
    if (rc != CM_OK) {
        json_decref(obj);
        return rc;
    }
    if (csv)
        return cm_cli_printed(cm_cli_print_as(obj, format), output);
    print_summary(d, run);
    print_nodes(d);
    print_partitions(d);
    return cm_cli_printed(CM_OK, output);
}

int cm_cli_report_design(const cm_design *d, const cm_design_run *run, cm_cli_format format, bool sdf,
                         const char *origin, const char *output)
{
    /* At batch 1 on fpgaConvNet the latency-driven flow (weights reloading, one
     * reference architecture) competes with the partitioned design; the chosen design's
     * file records both, so `evaluate` prints the comparison again without searching
     * (cm_cli_latency_evaluate). */
    bool chose_latency = false;
    int rc;
    if (cm_design_compares_latency(d)) {
        cm_cli_latency_args la = {.format = format, .sdf = sdf, .weights_reloading = true,
                                  .output = output};
        rc = cm_cli_latency_report(d, run, &la, &chose_latency);
    } else {
        /* A design that breaks a constraint fails the command, so it is not written. */
        rc = cm_cli_print_design(d, run, format,
                                 cm_design_outcome_writable(d, false) ? output : NULL);
    }
    return rc == CM_OK ? cm_cli_design_outcome(d, run, origin, chose_latency) : rc;
}

int cm_cli_design_outcome(const cm_design *d, const cm_design_run *run, const char *origin,
                          bool chose_latency)
{
    cm_error err = {0};
    if (cm_design_outcome_status(d, run, origin, chose_latency, &err) != CM_OK)
        return cm_cli_fail(&err);
    cm_violation v;
    if (chose_latency && cm_design_check(d, &v, 1) > 0)
        fprintf(stderr, "cnnmap: warning: %s: the partitioned design breaks a constraint (%s); "
                        "the latency-driven design was chosen\n", origin, v.message);
    return CM_OK;
}
