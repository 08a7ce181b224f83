/* A board as the JSON object `boards --json` lists and the API gives. */
#include "platform/board_json.h"

json_t *cm_board_json(const cm_board *b)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:{s:I, s:I, s:I, s:I, s:I}, s:s, s:f, s:f, s:f, s:f, s:b}",
                     "name", b->name, "display_name", b->display_name, "part", b->part,
                     "memory", b->memory, "resources", "DSP", (json_int_t)b->resources.dsp,
                     "BRAM18", (json_int_t)b->resources.bram18, "URAM", (json_int_t)b->resources.uram,
                     "LUT", (json_int_t)b->resources.lut, "FF", (json_int_t)b->resources.ff,
                     "bram_unit_in_file", b->bram_unit == CM_BRAM_UNIT_36K ? "BRAM36" : "BRAM18",
                     "clock_mhz", b->clock_mhz, "bandwidth_gbps", b->bandwidth_gbps,
                     "peak_bandwidth_gbps", b->peak_bandwidth_gbps,
                     "reconfiguration_s", b->reconfiguration_s,
                     "reconfiguration_estimated", b->reconfiguration_estimated);
}

cm_status cm_board_list_json(json_t **out, cm_error *err)
{
    *out = NULL;
    json_t *list = json_array();
    for (size_t i = 0; list && i < cm_board_builtin_count(); i++) {
        cm_board b;
        if (cm_board_builtin_at(i, &b, err) != CM_OK) {
            json_decref(list);
            return err ? err->code : CM_EINTERNAL;
        }
        if (json_array_append_new(list, cm_board_json(&b)) != 0) {
            json_decref(list);
            list = NULL;
        }
    }
    *out = list ? json_pack("{s:o}", "boards", list) : NULL;
    return *out ? CM_OK : cm_error_nomem(err);
}
