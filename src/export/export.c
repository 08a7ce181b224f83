/* Export formats by name, and writing an exporter's JSON document to a file. */
#include <cnnmap/export.h>

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cnnmap/report_html.h>

#include "export/exporters.h"
#include "util/atomic_file.h"

static const char *const format_names[CM_EXPORT_COUNT] = {
    [CM_EXPORT_FPGACONVNET] = "fpgaconvnet",
    [CM_EXPORT_FINN] = "finn",
    [CM_EXPORT_FINN_V06] = "finn-v0.6",
    [CM_EXPORT_HLS4ML] = "hls4ml",
    [CM_EXPORT_REPORT_MD] = "report-md",
    [CM_EXPORT_REPORT_HTML] = "report-html",
};

const char *cm_export_format_name(cm_export_format f)
{
    return (unsigned)f < CM_EXPORT_COUNT ? format_names[f] : "unknown";
}

cm_status cm_export_format_parse(const char *name, cm_export_format *out, cm_error *err)
{
    for (int f = 0; f < CM_EXPORT_COUNT; f++)
        if (strcasecmp(name, format_names[f]) == 0) {
            *out = (cm_export_format)f;
            return CM_OK;
        }
    return cm_error_set(err, CM_EUSAGE, "unknown format '%s' (choose fpgaconvnet, finn, finn-v0.6, hls4ml, report-md or report-html)",
                        name);
}

static const cm_backend format_backend[CM_EXPORT_COUNT] = {
    [CM_EXPORT_FPGACONVNET] = CM_BACKEND_FPGACONVNET,
    [CM_EXPORT_FINN] = CM_BACKEND_FINN,
    [CM_EXPORT_FINN_V06] = CM_BACKEND_FINN,
    [CM_EXPORT_HLS4ML] = CM_BACKEND_HLS4ML,
    [CM_EXPORT_REPORT_MD] = CM_BACKEND_COUNT, /* any */
    [CM_EXPORT_REPORT_HTML] = CM_BACKEND_COUNT,
};

cm_status cm_export(const cm_design *d, cm_export_format f, const char *path, cm_error *err)
{
    if ((unsigned)f >= CM_EXPORT_COUNT)
        return cm_error_set(err, CM_EUSAGE, "unknown export format");
    if (f == CM_EXPORT_REPORT_HTML)
        return cm_export_report_html(d, path, err);
    if (f == CM_EXPORT_REPORT_MD) {
        char *md = cm_export_report_md(d);
        if (!md)
            return cm_error_nomem(err);
        cm_status st = cm_write_file_atomic(path, md, strlen(md), err);
        free(md);
        return st;
    }
    cm_backend b = cm_design_options_of(d)->backend;
    if (format_backend[f] != b)
        return cm_error_set(err, CM_EUSAGE, "a %s design cannot be exported as %s (use --format %s)",
                            cm_backend_name(b), format_names[f], cm_backend_name(b));
    json_t *doc = NULL;
    switch (f) {
    case CM_EXPORT_FPGACONVNET: {
        cm_status st = cm_export_fpgaconvnet_check(d, err);
        if (st != CM_OK)
            return st;
        doc = cm_export_fpgaconvnet_json(d);
        break;
    }
    case CM_EXPORT_FINN: doc = cm_export_finn_current_json(d); break;
    case CM_EXPORT_FINN_V06: {
        cm_status st = cm_export_finn_v06_check(d, err);
        if (st != CM_OK)
            return st;
        doc = cm_export_finn_json(d);
        break;
    }
    case CM_EXPORT_HLS4ML: doc = cm_export_hls4ml_json(d); break;
    default: break;
    }
    char *text = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(doc);
    if (!text)
        return cm_error_nomem(err);
    size_t len = strlen(text);
    text[len] = '\n'; /* replaces the terminator: the buffer is written, not read as a string */
    cm_status st = cm_write_file_atomic(path, text, len + 1, err);
    free(text);
    return st;
}
