/* compare's flow around cm_map_model: the best design's file and the failure when no
 * architecture fits (see map_json.h). */
#include "map/map_json.h"

cm_status cm_map_compare(const char *model_path, const char *board_ref, const cm_map_options *o,
                         const char *output, cm_map_result *out, cm_error *err)
{
    cm_status st = cm_map_model(model_path, board_ref, o, out, err);
    if (st != CM_OK)
        return st;
    if (output && out->best >= 0) {
        st = cm_map_save(out, out->best, output, err);
        if (st != CM_OK)
            cm_map_result_free(out);
    }
    return st;
}

cm_status cm_map_no_fit(const cm_map_result *r, const char *model_path, const char *output,
                        cm_error *err)
{
    if (r->best >= 0)
        return CM_OK;
    return cm_error_set(err, CM_EINFEASIBLE, "%s: no architecture fits %s%s", model_path, r->board,
                        output ? " (no design written)" : "");
}
