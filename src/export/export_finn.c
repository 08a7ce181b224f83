/* FINN folding configuration: the JSON that FINN's build (folding_config_file, the
 * ApplyConfig transformation) reads, keyed by FINN node name, with each node's PE,
 * SIMD and memory styles. One file covers every partition: node names are unique
 * across the network, and each partition's FINN build picks its own nodes. */
#include "export/exporters.h"
#include "design/design_internal.h"

static const char *ram_style_name(cm_finn_ram_style s)
{
    switch (s) {
    case CM_FINN_RAM_BLOCK: return "block";
    case CM_FINN_RAM_DISTRIBUTED: return "distributed";
    case CM_FINN_RAM_ULTRA: return "ultra";
    default: return "auto";
    }
}

static json_t *finn_node_json(const cm_design *d, int i)
{
    const cm_hd_node *n = &d->hd.nodes[i];
    const cm_finn_node *f = &n->hw.finn;
    json_t *o = json_object();
    cm_hd_param params[3];
    int np = cm_hd_node_params(n, d->state[i].fold, params);
    for (int k = 0; k < np; k++)
        json_object_set_new(o, params[k].name, json_integer(params[k].value));
    if (f->kind == CM_FINN_MVAU || f->kind == CM_FINN_SWG || f->kind == CM_FINN_VVAU)
        json_object_set_new(o, "ram_style", json_string(ram_style_name(f->ram_style)));
    if (f->kind == CM_FINN_MVAU) {
        json_object_set_new(o, "mem_mode", json_string(f->mem_mode == CM_FINN_MEM_DECOUPLED ? "decoupled"
                                                       : f->mem_mode == CM_FINN_MEM_EXTERNAL ? "external"
                                                                                              : "const"));
        json_object_set_new(o, "resType", json_string(f->res_dsp ? "dsp" : "lut"));
    }
    return o;
}

json_t *cm_export_finn_json(const cm_design *d)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "Defaults", json_object());
    for (int i = 0; i < d->hd.n_nodes; i++)
        json_object_set_new(o, d->hd.nodes[i].name, finn_node_json(d, i));
    return o;
}
