/* FINN folding configuration: the JSON that FINN's build (folding_config_file, the
 * ApplyConfig transformation) reads, keyed by FINN node name, with each node's PE,
 * SIMD and memory styles, and the FIFO depths a design records (`cnnmap simulate
 * --fifo-depths auto -o`) as FINN's per-node inFIFODepths / outFIFODepths. One file
 * covers every partition: node names are unique across the network, and each
 * partition's FINN build picks its own nodes. */
#include "export/exporters.h"
#include "design/design_internal.h"
#include "design/fifo_cost.h"

#include <stdio.h>

static const char *ram_style_name(cm_finn_ram_style s)
{
    switch (s) {
    case CM_FINN_RAM_BLOCK: return "block";
    case CM_FINN_RAM_DISTRIBUTED: return "distributed";
    case CM_FINN_RAM_ULTRA: return "ultra";
    default: return "auto";
    }
}

/* A stream's recorded depth in beats of `lanes` words; 0 when none is recorded. */
static int64_t beats(const cm_design *d, const char *from, const char *to, int64_t lanes)
{
    char name[512];
    snprintf(name, sizeof name, "%s->%s", from, to);
    const int64_t words = cm_design_fifo_depth(d, name);
    return words > 0 ? (words + lanes - 1) / lanes : 0;
}

/* One port list: each edge's recorded depth in beats of `lanes` words, FINN's default
 * of 2 where none is recorded (an edge to another partition, a port at the network's
 * edge, whose streams the simulation counts in its own tokens); NULL when no port has
 * one. */
static json_t *port_depths(const cm_design *d, int i, bool out)
{
    const cm_hd_node *n = &d->hd.nodes[i];
    const int count = out ? n->n_succ : n->n_pred;
    const int64_t lanes = out ? cm_fifo_lanes_out(d, i) : cm_fifo_lanes_in(d, i);
    json_t *a = json_array();
    bool any = false;
    for (int k = 0; a && k < count; k++) {
        const cm_hd_node *m = &d->hd.nodes[out ? n->succ[k] : n->pred[k]];
        int64_t b = out ? beats(d, n->name, m->name, lanes) : beats(d, m->name, n->name, lanes);
        any = any || b > 0;
        json_array_append_new(a, json_integer(b > 0 ? b : 2));
    }
    if (!any) {
        json_decref(a);
        return NULL;
    }
    return a;
}

/* FINN's InsertFIFO gives the stream u -> v max(u's outFIFODepths, v's inFIFODepths)
 * beats at the width of the stream into v (u is the width converter where one sits
 * between them, which keeps the default): each side gets the recorded words in its own
 * beats (SIMD on v's input, PE on u's output), equal where no converter sits between. */
static void fifo_depths_json(const cm_design *d, int i, json_t *o)
{
    if (!cm_design_fifo_depths(d))
        return;
    json_t *in = port_depths(d, i, false), *out = port_depths(d, i, true);
    if (in)
        json_object_set_new(o, "inFIFODepths", in);
    if (out)
        json_object_set_new(o, "outFIFODepths", out);
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
    fifo_depths_json(d, i, o);
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
