/* overlay's design file and reply, and evaluate and export of overlay design files
 * (see ov_flow.h). */
#include "overlay/ov_flow.h"

#include <stdio.h>
#include <strings.h>

#include <cnnmap/report_html.h>

#include "overlay/ov_json.h"

cm_status cm_overlay_parse_array(const char *text, int array[2], cm_error *err)
{
    char tail;
    if (sscanf(text, "%dx%d%c", &array[0], &array[1], &tail) != 2 || array[0] < 1 || array[1] < 1)
        return cm_error_set(err, CM_EUSAGE, "--array expects P1xP2, e.g. 92x66, not '%s'", text);
    return CM_OK;
}

cm_status cm_overlay_design_reply(const cm_overlay_design *d, const char *output, json_t **reply,
                                  cm_error *err)
{
    json_t *o = NULL;
    if (reply) {
        *reply = NULL;
        /* NULL: a figure jansson cannot hold, or memory */
        if (!(o = cm_overlay_report_json(d)))
            return cm_error_set(err, CM_EINTERNAL,
                                "internal error: cannot build the JSON output (out of memory, "
                                "or a figure that is not a finite number)");
    }
    if (output) {
        cm_status st = cm_overlay_design_save(d, output, err);
        if (st != CM_OK) {
            json_decref(o);
            return st;
        }
    }
    if (reply)
        *reply = o;
    return CM_OK;
}

cm_status cm_overlay_evaluate_json(const char *design_path, json_t **reply, cm_error *err)
{
    cm_overlay_design d;
    *reply = NULL;
    cm_status st = cm_overlay_design_load(design_path, &d, err);
    if (st != CM_OK)
        return st;
    st = cm_overlay_design_reply(&d, NULL, reply, err);
    cm_overlay_design_free(&d);
    return st;
}

cm_status cm_overlay_export_file(const char *design_path, const char *format, const char *output,
                                 cm_error *err)
{
    bool html = strcasecmp(format, "report-html") == 0;
    if (strcasecmp(format, "report-md") != 0 && !html)
        return cm_error_set(err, CM_EINPUT,
                            "%s: an overlay design exports as report-md or report-html, not %s",
                            design_path, format);
    if (!output || !*output)
        return cm_error_set(err, CM_EUSAGE, "export: -o needs a file name, not an empty string "
                                             "(see 'cnnmap export --help')");
    cm_overlay_design d;
    cm_status st = cm_overlay_design_load(design_path, &d, err);
    if (st != CM_OK)
        return st;
    st = html ? cm_overlay_export_report_html(&d, output, err) : cm_overlay_export_md(&d, output, err);
    cm_overlay_design_free(&d);
    return st;
}
