/* The nn2FPGA options read by name (n2_options.h). */
#include <string.h>

#include "nn2fpga/n2_options.h"

cm_status cm_nn2fpga_solver_parse(const char *name, cm_nn2fpga_solver *out, cm_error *err)
{
    static const cm_nn2fpga_solver solvers[] = {CM_NN2FPGA_BIP, CM_NN2FPGA_EXACT, CM_NN2FPGA_NONE};
    for (size_t i = 0; i < sizeof solvers / sizeof *solvers; i++)
        if (strcmp(name, cm_nn2fpga_solver_name(solvers[i])) == 0) {
            *out = solvers[i];
            return CM_OK;
        }
    return cm_error_set(err, CM_EUSAGE,
                        "the nn2fpga backend takes --optimiser bip, exact or none, not '%s'", name);
}

int cm_nn2fpga_default_batch(bool latency_objective)
{
    return latency_objective ? 1 : 256;
}
