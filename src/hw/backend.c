/* Backend names on the command line and in design files. */
#include <cnnmap/backend.h>

#include <strings.h>

static const char *const backend_names[CM_BACKEND_COUNT] = {
    [CM_BACKEND_FPGACONVNET] = "fpgaconvnet",
    [CM_BACKEND_FINN] = "finn",
    [CM_BACKEND_HLS4ML] = "hls4ml",
    [CM_BACKEND_NN2FPGA] = "nn2fpga",
};

const char *cm_backend_name(cm_backend b)
{
    return (unsigned)b < CM_BACKEND_COUNT ? backend_names[b] : "unknown";
}

cm_status cm_backend_parse(const char *name, cm_backend *out, cm_error *err)
{
    for (int b = 0; b < CM_BACKEND_COUNT; b++)
        if (strcasecmp(name, backend_names[b]) == 0) {
            *out = (cm_backend)b;
            return CM_OK;
        }
    return cm_error_set(err, CM_EUSAGE,
                        "unknown backend '%s' (choose fpgaconvnet, finn, hls4ml or nn2fpga)", name);
}
