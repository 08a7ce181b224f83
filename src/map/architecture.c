/* The architectures a design can be, and which one a design file holds: every design
 * file names its kind in its "format" key, so `evaluate` and `export` can hand a file to
 * its architecture's reader before reading anything else. */
#include <cnnmap/map.h>

#include <jansson.h>
#include <string.h>

#include "design/design_file.h"
#include "latency/latency_json.h"
#include "map/architecture.h"
#include "util/json_file.h"

static const char *const names[CM_ARCH_COUNT] = {"streaming", "latency_driven", "nn2fpga",
                                                 "overlay", "multi"};

/* the "format" of each architecture's design file */
static const char *const formats[CM_ARCH_COUNT] = {
    "cnnmap-design", "cnnmap-latency-design", "cnnmap-nn2fpga-design", "cnnmap-overlay-design",
    "cnnmap-multi-design"};

const char *cm_architecture_name(cm_architecture a)
{
    return a >= 0 && a < CM_ARCH_COUNT ? names[a] : "unknown";
}

cm_status cm_design_json_architecture(const char *path, const json_t *root, cm_architecture *out,
                                      cm_error *err)
{
    const char *format = json_string_value(json_object_get(root, "format"));
    for (int a = 0; format && a < CM_ARCH_COUNT; a++)
        if (strcmp(format, formats[a]) == 0) {
            *out = (cm_architecture)a;
            return CM_OK;
        }
    return cm_error_set(err, CM_EINPUT, "%s: not a cnnmap design file (no known \"format\")",
                        path);
}

cm_status cm_design_file_architecture(const char *path, cm_architecture *out, cm_error *err)
{
    json_error_t jerr;
    json_t *root = cm_json_load_path(path, 0, &jerr);
    if (!root)
        return cm_error_set(err, CM_EINPUT, "%s: %s", path,
                            jerr.line < 0 ? "cannot read the file" : "not a JSON design file");
    cm_status st = cm_design_json_architecture(path, root, out, err);
    json_decref(root);
    return st;
}

cm_status cm_design_file_open(const char *path, cm_design_file_mode mode, cm_design_file *out,
                              cm_error *err)
{
    memset(out, 0, sizeof *out);
    out->arch = CM_ARCH_STREAMING;
    json_t *root = NULL;
    cm_status st = cm_json_file_read(path, &root, err);
    if (st != CM_OK)
        return st;
    const bool as_written = mode == CM_DESIGN_FILE_AS_WRITTEN;
    cm_error ignored = {0};
    st = cm_design_json_architecture(path, root, &out->arch, as_written ? err : &ignored);
    if (!as_written) {
        st = CM_OK; /* a file that names none goes to the streaming reader */
        if (out->arch == CM_ARCH_STREAMING && cm_latency_is_choice_json(root))
            out->arch = CM_ARCH_LATENCY_DRIVEN;
    }
    if (st == CM_OK && out->arch == CM_ARCH_STREAMING)
        st = cm_design_load_json(path, root, &out->design, &out->run, err);
    json_decref(root);
    return st;
}
