/* The JSON form of an overlay design's figures (see ov_json.h). */
#include "overlay/ov_json.h"

int64_t cm_overlay_dsp_limit(const cm_overlay_design *d)
{
    return d->options.dsp_limit < 0 ? d->board.resources.dsp : d->options.dsp_limit;
}

const char *cm_overlay_format_subject(const cm_graph *g, const cm_overlay_format *f)
{
    return f->vertex == CM_OVERLAY_INPUT_VERTEX ? g->inputs[f->index].name
                                                : g->layers[f->index].name;
}

/* json_real gives NULL for a number that is not finite, which makes json_pack fail. */
static json_t *real_or_null(bool present, double v)
{
    return present ? json_real(v) : json_null();
}

static json_t *layer_json(const cm_graph *g, const cm_overlay_layer *l)
{
    const char *df = cm_overlay_dataflow_name(l->dataflow);
    const cm_layer *gl = &g->layers[l->layer];
    return json_pack("{s:s, s:s, s:s, s:o, s:f, s:f, s:f, s:o, s:I}", "name", gl->name, "op",
                     cm_op_name(gl->op), "algorithm", cm_overlay_algorithm_name(l->algorithm),
                     "dataflow", df ? json_string(df) : json_null(), "compute_s", l->compute_s,
                     "memory_s", l->memory_s, "transition_s", l->transition_s, "utilisation",
                     real_or_null(df != NULL, l->utilisation), "cycles", (json_int_t)l->cycles);
}

static json_t *format_json(const cm_graph *g, const cm_overlay_format *f)
{
    json_t *o = json_pack("{s:s, s:s, s:s}", "vertex", cm_overlay_vertex_name(f->vertex), "name",
                          cm_overlay_format_subject(g, f), "layout", cm_overlay_layout_name(f->layout));
    if (o && f->layout != CM_OVERLAY_TENSOR &&
        json_object_set_new(o, "reader", json_string(g->layers[f->reader].name)) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* An array of n items built by item(k); NULL as soon as one fails. */
static json_t *rows_json(const cm_overlay_design *d, bool formats)
{
    const cm_overlay_result *r = d->result;
    json_t *a = json_array();
    int n = formats ? r->n_formats : r->n_layers;
    for (int k = 0; a && k < n; k++) {
        json_t *v = formats ? format_json(d->graph, &r->formats[k])
                            : layer_json(d->graph, &r->layers[k]);
        if (json_array_append_new(a, v) != 0) {
            json_decref(a);
            a = NULL;
        }
    }
    return a;
}

static json_t *baselines_json(const cm_overlay_result *r)
{
    const cm_overlay_baseline *b = r->baselines;
    return json_pack("{s:o, s:o, s:o, s:o}", "im2col", real_or_null(b[0].present, b[0].latency_s),
                     "kn2row", real_or_null(b[1].present, b[1].latency_s), "winograd",
                     real_or_null(b[2].present, b[2].latency_s), "greedy",
                     real_or_null(r->greedy.present, r->greedy.latency_s));
}

/* The keys after "time_s": the limits, the search's state, the cost graph, the
 * resources and where the weights are. */
static json_t *tail_json(const cm_overlay_design *d)
{
    const cm_overlay_result *r = d->result;
    json_t *warnings = r->stopped_early ? json_pack("[s]", CM_OVERLAY_STOPPED_TEXT) : json_array();
    json_t *o = json_pack("{s:I, s:f, s:b, s:o, s:{s:i, s:i}, s:{s:I, s:I}, s:{s:I, s:I, s:b}}",
                          "dsp_limit", (json_int_t)cm_overlay_dsp_limit(d), "time_limit_s",
                          r->time_limit_s, "stopped_early", r->stopped_early, "warnings", warnings,
                          "cost_graph", "vertices", r->cost_graph_vertices, "edges",
                          r->cost_graph_edges, "resources", "DSP", (json_int_t)r->dsp, "BRAM18",
                          (json_int_t)r->bram18, "weights", "bytes",
                          (json_int_t)(r->weight_bytes > INT64_MAX ? INT64_MAX : r->weight_bytes),
                          "on_chip_bytes", (json_int_t)r->onchip_bytes, "resident",
                          r->weights_resident);
    if (o && !r->optimal &&
        json_object_set_new(o, "not_optimal_reason", json_string(r->not_optimal_reason)) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *cm_overlay_report_json(const cm_overlay_design *d)
{
    const cm_overlay_result *r = d->result;
    json_t *tail = tail_json(d);
    json_t *o = json_pack("{s:s, s:s, s:f, s:[i, i], s:f, s:f, s:b, s:o, s:o, s:o, s:f}", "model",
                          d->graph->name, "board", d->board.name, "clock_mhz", r->clock_mhz,
                          "array", r->array[0], r->array[1], "latency_s", r->latency_s, "gops",
                          r->gops, "optimal", r->optimal, "layers", rows_json(d, false), "formats",
                          rows_json(d, true), "baselines", baselines_json(r), "time_s", d->time_s);
    if (!o || !tail || json_object_update(o, tail) != 0) {
        json_decref(o);
        o = NULL;
    }
    json_decref(tail);
    return o;
}
