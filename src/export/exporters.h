/* The three exporters, each building its backend's JSON document from a design. */
#ifndef CM_EXPORT_EXPORTERS_H
#define CM_EXPORT_EXPORTERS_H

#include <jansson.h>
#include <cnnmap/design.h>

json_t *cm_export_fpgaconvnet_json(const cm_design *d);
/* CM_EINPUT naming the first layer fpgaConvNet has no layer type for. */
cm_status cm_export_fpgaconvnet_check(const cm_design *d, cm_error *err);
/* FINN v0.6 (SAMO's fork): its node names, const/decoupled mem_mode. */
json_t *cm_export_finn_json(const cm_design *d);
/* CM_EUSAGE naming the first node FINN v0.6 has no op for (StreamingConcat, ElementwiseMul). */
cm_status cm_export_finn_v06_check(const cm_design *d, cm_error *err);
/* Current FINN (v0.10 / main): node names after SpecializeLayers, its attribute values. */
json_t *cm_export_finn_current_json(const cm_design *d);
json_t *cm_export_hls4ml_json(const cm_design *d);
/* Markdown text (the caller frees it); NULL on out-of-memory. */
char *cm_export_report_md(const cm_design *d);

#endif
