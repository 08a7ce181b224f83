/* FINN folding configurations: the JSON that FINN's build (folding_config_file, the
 * ApplyConfig transformation) reads, keyed by FINN node name, with each node's PE,
 * SIMD and memory styles, and the FIFO depths a design records (`cnnmap simulate
 * --fifo-depths auto -o`) as FINN's per-node inFIFODepths / outFIFODepths. One file
 * covers every partition: node names are unique across the network, and each
 * partition's FINN build picks its own nodes.
 *
 * Two versions. FINN v0.6 (SAMO's fork, `finn-v0.6`) names its HLS ops as cnnmap's
 * nodes are named ("StreamingFCLayer_Batch_0"). Current FINN (v0.10 and main, `finn`)
 * converts layers to HW ops (MVAU, VVAU, ...), SpecializeLayers turns each into its
 * HLS or RTL variant (op type + "_hls" / "_rtl",
 * src/finn/transformation/fpgadataflow/specialize_layers.py: RTL wherever an op has
 * one, except an MVAU with embedded thresholds or narrow or wide operands, and a VVAU
 * off Versal), and GiveUniqueNodeNames names every node "<op type>_<n>", n counting
 * that op type from 0 in graph order; ApplyConfig sets each attribute the file gives a
 * node and fails on one the op does not have, so each op gets only its own. */
#include "export/exporters.h"
#include "design/design_internal.h"
#include "design/fifo_cost.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- FINN v0.6 ---- */

cm_status cm_export_finn_v06_check(const cm_design *d, cm_error *err)
{
    for (int i = 0; i < d->hd.n_nodes; i++) {
        const cm_finn_kind k = d->hd.nodes[i].hw.finn.kind;
        if (k == CM_FINN_CONCAT || k == CM_FINN_MUL)
            return cm_error_set(err, CM_EUSAGE, "node %s: FINN v0.6 has no %s (it came in a "
                                "later FINN); export with --format finn", d->hd.nodes[i].name,
                                d->hd.nodes[i].op);
    }
    return CM_OK;
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

/* ---- current FINN (v0.10 / main) ---- */

/* FINN's is_versal: Versal part names start "xcv". */
static bool versal(const cm_design *d)
{
    return strncmp(d->board.part, "xcv", 3) == 0;
}

/* specialize_layers.py's RTL MVU / VVU test as cnnmap can make it: no embedded
 * thresholds, 4- to 8-bit operands (signed narrow-range weights, Brevitas' default, are
 * assumed), the VVU on Versal only. */
static bool rtl_unit(const cm_design *d, const cm_finn_node *f, bool vvau)
{
    const bool widths = f->in_bits >= 4 && f->in_bits <= 8 && f->weight_bits >= 4 &&
                        f->weight_bits <= 8;
    return f->no_activation && widths && (!vvau || versal(d));
}

/* The op type SpecializeLayers gives a node. */
static const char *current_op(const cm_design *d, const cm_finn_node *f)
{
    switch (f->kind) {
    case CM_FINN_MVAU: return rtl_unit(d, f, false) ? "MVAU_rtl" : "MVAU_hls";
    case CM_FINN_VVAU: return rtl_unit(d, f, true) ? "VVAU_rtl" : "VVAU_hls";
    case CM_FINN_SWG: return "ConvolutionInputGenerator_rtl";
    case CM_FINN_THRESHOLDING: return "Thresholding_rtl";
    case CM_FINN_MAXPOOL: return "StreamingMaxPool_hls";
    case CM_FINN_POOL: return "Pool_hls";
    case CM_FINN_DUPLICATE: return "DuplicateStreams_hls";
    case CM_FINN_ADD: return "AddStreams_hls";
    case CM_FINN_FMPADDING: return "FMPadding_rtl";
    case CM_FINN_LABELSELECT: return "LabelSelect_hls";
    case CM_FINN_GLOBALACCPOOL: return "GlobalAccPool_hls";
    case CM_FINN_CONCAT: return "StreamingConcat_hls";
    case CM_FINN_MUL: return "ElementwiseMul_hls";
    case CM_FINN_UPSAMPLE: return "UpsampleNearestNeighbour_hls";
    }
    return "unknown";
}

/* v0.10 renamed the weight memory modes; the RTL MVU streams its weights (no embedded
 * mode), so a const-mode MVAU_rtl gets the decoupled streamer. */
static const char *mem_mode_name(const cm_finn_node *f, bool rtl)
{
    switch (f->mem_mode) {
    case CM_FINN_MEM_DECOUPLED: return "internal_decoupled";
    case CM_FINN_MEM_EXTERNAL: return "external";
    default: return rtl ? "internal_decoupled" : "internal_embedded";
    }
}

static json_t *current_node_json(const cm_design *d, int i, const char *op)
{
    const cm_hd_node *n = &d->hd.nodes[i];
    const cm_finn_node *f = &n->hw.finn;
    json_t *o = json_object();
    cm_hd_param params[3];
    const int np = cm_hd_node_params(n, d->state[i].fold, params);
    for (int k = 0; k < np; k++)
        json_object_set_new(o, params[k].name, json_integer(params[k].value));
    if (f->kind == CM_FINN_MVAU || f->kind == CM_FINN_VVAU) {
        json_object_set_new(o, "ram_style", json_string(ram_style_name(f->ram_style)));
        json_object_set_new(o, "resType", json_string(f->res_dsp ? "dsp" : "lut"));
        const bool rtl = strstr(op, "_rtl") != NULL;
        json_object_set_new(o, "mem_mode", json_string(mem_mode_name(f, rtl)));
    } else if (f->kind == CM_FINN_SWG) {
        json_object_set_new(o, "ram_style", json_string(ram_style_name(f->ram_style)));
        /* one window tap per cycle, as cnnmap costs it (1 would write whole windows) */
        json_object_set_new(o, "parallel_window", json_integer(0));
    }
    fifo_depths_json(d, i, o);
    return o;
}

/* FINN's name of each node ("MVAU_hls_0"), into names[i] (size 96 each). */
static void current_names(const cm_design *d, char (*names)[96])
{
    for (int i = 0; i < d->hd.n_nodes; i++) {
        const char *op = current_op(d, &d->hd.nodes[i].hw.finn);
        int count = 0;
        for (int j = 0; j < i; j++)
            count += strcmp(current_op(d, &d->hd.nodes[j].hw.finn), op) == 0;
        snprintf(names[i], sizeof names[i], "%s_%d", op, count);
    }
}

json_t *cm_export_finn_current_json(const cm_design *d)
{
    json_t *o = json_object();
    char (*names)[96] = malloc((size_t)(d->hd.n_nodes > 0 ? d->hd.n_nodes : 1) * sizeof *names);
    if (!o || !names) {
        json_decref(o);
        free(names);
        return NULL;
    }
    current_names(d, names);
    json_object_set_new(o, "Defaults", json_object());
    for (int i = 0; i < d->hd.n_nodes; i++)
        json_object_set_new(o, names[i], current_node_json(d, i, names[i]));
    free(names);
    return o;
}
