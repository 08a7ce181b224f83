/* Reading a multi request from option values, and the files multi writes (see
 * multi_flow.h). */
#include "multi/multi_flow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomic_file.h"

cm_status cm_multi_request_add_model(cm_multi_request *q, const char *text, cm_error *err)
{
    if (q->n_models == CM_MULTI_MAX_MODELS)
        return cm_error_set(err, CM_EUSAGE, "at most 16 models, not more ('%s')", text);
    const char *colon = strrchr(text, ':');
    size_t len = colon && !strchr(colon, '/') ? (size_t)(colon - text) : strlen(text);
    double fps = 0.0;
    if (len < strlen(text)) {
        char *end;
        fps = strtod(colon + 1, &end);
        if (end == colon + 1 || *end || !(fps > 0) || !isfinite(fps))
            return cm_error_set(err, CM_EUSAGE,
                                "--model expects MODEL[:FPS] with a positive frame rate, not '%s'",
                                text);
    }
    if (len == 0)
        return cm_error_set(err, CM_EUSAGE, "--model expects MODEL[:FPS], not '%s'", text);
    if (!(q->model[q->n_models] = strndup(text, len)))
        return cm_error_nomem(err);
    q->fps[q->n_models++] = fps;
    return CM_OK;
}

cm_status cm_multi_request_set_board(cm_multi_request *q, const char *ref, cm_error *err)
{
    free(q->board);
    q->board = strdup(ref);
    return q->board ? CM_OK : cm_error_nomem(err);
}

cm_status cm_multi_parse_objective(const char *text, cm_multi_objective *out, cm_error *err)
{
    if (strcmp(text, "fps") != 0 && strcmp(text, "throughput") != 0)
        return cm_error_set(err, CM_EUSAGE, "--objective is fps or throughput, not '%s'", text);
    *out = text[0] == 'f' ? CM_MULTI_FPS : CM_MULTI_THROUGHPUT;
    return CM_OK;
}

cm_status cm_multi_parse_scheduler(const char *text, cm_multi_scheduler *out, cm_error *err)
{
    if (strcmp(text, "list") != 0 && strcmp(text, "ilp") != 0)
        return cm_error_set(err, CM_EUSAGE, "--scheduler is list or ilp, not '%s'", text);
    *out = text[0] == 'l' ? CM_MULTI_LIST : CM_MULTI_ILP;
    return CM_OK;
}

cm_status cm_multi_request_check(const cm_multi_request *q, cm_error *err)
{
    if (!q->board)
        return cm_error_set(err, CM_EUSAGE, "--board is required");
    if (q->n_models < 2)
        return cm_error_set(err, CM_EUSAGE, "needs at least two --model options, not %d",
                            q->n_models);
    return CM_OK;
}

/* text is taken (freed here); NULL is out of memory. */
static cm_status write_text(const char *path, char *text, cm_error *err)
{
    cm_status st = text ? cm_write_file_atomic(path, text, strlen(text), err) : cm_error_nomem(err);
    free(text);
    return st;
}

cm_status cm_multi_save_outputs(const cm_multi_result *r, const cm_multi_request *q,
                                const char *design_out, const char *report_md, cm_error *err)
{
    cm_status st = CM_OK;
    if (design_out)
        st = write_text(design_out, cm_multi_design_json_inputs(r, q), err);
    if (st == CM_OK && report_md) {
        st = write_text(report_md, cm_multi_report_md(r), err);
        /* the command failed: neither of its files stays */
        if (st != CM_OK && design_out)
            cm_remove_written_file(design_out);
    }
    return st;
}

cm_status cm_multi_export_report_md_file(const char *design_path, const char *output,
                                         cm_error *err)
{
    return cm_multi_export_report_md(design_path, output, err);
}
