/* hls4ml configuration: the dictionary hls4ml's converters take (Backend, Part,
 * ClockPeriod, IOType and HLSConfig with a per-layer ReuseFactor and the Resource
 * strategy), one per partition as SAMO's exporter writes them; with several
 * partitions the file holds {"Partitions": [...]}. */
#include "export/exporters.h"
#include "design/design_internal.h"

static json_t *partition_config(const cm_design *d, int p)
{
    json_t *layers = json_object();
    for (int i = d->parts[p].first; i < d->parts[p].end; i++) {
        cm_hd_param params[3];
        int np = cm_hd_node_params(&d->hd.nodes[i], d->state[i].fold, params);
        json_t *l = json_object();
        json_object_set_new(l, "Strategy", json_string("Resource"));
        json_object_set_new(l, "ReuseFactor", json_integer(np ? params[0].value : 1));
        json_object_set_new(layers, d->graph->layers[d->hd.nodes[i].layer].name, l);
    }
    json_t *model = json_object();
    json_object_set_new(model, "Precision", json_string("ap_fixed<16,6>"));
    json_object_set_new(model, "ReuseFactor", json_integer(1));
    json_object_set_new(model, "Strategy", json_string("Resource"));
    json_t *hls = json_object();
    json_object_set_new(hls, "Model", model);
    json_object_set_new(hls, "LayerName", layers);
    json_t *o = json_object();
    json_object_set_new(o, "Backend", json_string("Vivado"));
    json_object_set_new(o, "Part", json_string(d->board.part));
    json_object_set_new(o, "ClockPeriod", json_real(1000.0 / d->opt.clock_mhz));
    json_object_set_new(o, "IOType", json_string("io_stream"));
    json_object_set_new(o, "HLSConfig", hls);
    return o;
}

json_t *cm_export_hls4ml_json(const cm_design *d)
{
    if (d->n_parts == 1)
        return partition_config(d, 0);
    json_t *parts = json_array();
    for (int p = 0; p < d->n_parts; p++)
        json_array_append_new(parts, partition_config(d, p));
    json_t *o = json_object();
    json_object_set_new(o, "Partitions", parts);
    return o;
}
