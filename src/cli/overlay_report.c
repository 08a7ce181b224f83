/* The overlay design's tables and JSON on stdout, its design file, and its evaluate
 * and export (see overlay_report.h). */
#include "cli/overlay_report.h"

#include <inttypes.h>
#include <stdio.h>

#include "cli/cli.h"
#include "overlay/ov_flow.h"
#include "overlay/ov_json.h"

static void print_rows(const cm_graph *g, const cm_overlay_result *r)
{
    printf("%-40s %-8s %-9s %-4s %12s %11s %14s %12s\n", "layer", "op", "algorithm", "flow",
           "compute(us)", "memory(us)", "transition(us)", "utilisation");
    for (int i = 0; i < r->n_layers; i++) {
        const cm_overlay_layer *l = &r->layers[i];
        const char *df = cm_overlay_dataflow_name(l->dataflow);
        char util[16] = "-";
        if (df)
            snprintf(util, sizeof util, "%.3f", l->utilisation);
        printf("%-40.40s %-8s %-9s %-4s %12.2f %11.2f %14.2f %12s\n", g->layers[l->layer].name,
               cm_op_name(g->layers[l->layer].op), cm_overlay_algorithm_name(l->algorithm),
               df ? df : "-", l->compute_s * 1e6, l->memory_s * 1e6, l->transition_s * 1e6, util);
    }
}

static void print_baseline(const char *what, const cm_overlay_baseline *b, double latency)
{
    if (!b->present) {
        printf("  %-44s (not allowed)\n", what);
        return;
    }
    printf("  %-44s %9.3f ms   mapping %5.1f%% lower\n", what, b->latency_s * 1e3,
           100.0 * (1.0 - latency / b->latency_s));
}

static void print_table(const cm_overlay_design *d)
{
    const cm_overlay_result *r = d->result;
    printf("model %s on %s at %.0f MHz: systolic array %d x %d (%d of %" PRId64 " DSPs)\n",
           d->graph->name, d->board.name, r->clock_mhz, r->array[0], r->array[1],
           r->array[0] * r->array[1], cm_overlay_dsp_limit(d));
    if (r->optimal)
        printf("mapping: optimal (series-parallel cost graph, %d vertices, %d edges)\n\n",
               r->cost_graph_vertices, r->cost_graph_edges);
    else
        printf("mapping: not proven optimal: %s\n\n", r->not_optimal_reason);
    if (r->stopped_early)
        printf("stopped early: %s (--time-limit %g)\n\n", CM_OVERLAY_STOPPED_TEXT, r->time_limit_s);
    print_rows(d->graph, r);
    printf("\nweights %.2f MB, %s the %.2f MB of BRAM and URAM beside the buffers: %s\n",
           (double)r->weight_bytes / 1e6, r->weights_resident ? "within" : "beyond",
           (double)r->onchip_bytes / 1e6,
           r->weights_resident ? "resident, loaded once before the first image"
                               : "each layer reads its own from DRAM (memory column)");
    printf("end-to-end latency %.3f ms, %.1f GOp/s\n", r->latency_s * 1e3, r->gops);
    printf("baselines on the same array:\n");
    print_baseline("im2col only", &r->baselines[CM_OVERLAY_IM2COL], r->latency_s);
    print_baseline("kn2row only", &r->baselines[CM_OVERLAY_KN2ROW], r->latency_s);
    print_baseline("winograd where it applies, im2col elsewhere", &r->baselines[CM_OVERLAY_WINOGRAD],
                   r->latency_s);
    print_baseline("greedy (fastest compute per layer)", &r->greedy, r->latency_s);
}

int cm_cli_overlay_report(const cm_overlay_design *d, cm_cli_format format, const char *output)
{
    cm_error err = {0};
    json_t *o = NULL;
    if (cm_overlay_design_reply(d, output, format != CM_CLI_TEXT ? &o : NULL, &err) != CM_OK)
        return cm_cli_fail(&err);
    int rc = CM_OK;
    if (o)
        rc = cm_cli_print_as(o, format);
    else
        print_table(d);
    return cm_cli_printed(rc, output);
}

int cm_cli_overlay_evaluate(const char *design_path, cm_cli_format format)
{
    cm_error err = {0};
    cm_overlay_design d;
    if (cm_overlay_design_load(design_path, &d, &err) != CM_OK)
        return cm_cli_fail(&err);
    int rc = cm_cli_overlay_report(&d, format, NULL);
    cm_overlay_design_free(&d);
    return rc;
}
