/* libFuzzer target for the ONNX importer: any bytes must give either a graph or a
 * CM_EINPUT message, never a crash, a leak or undefined behaviour. */
#include <cnnmap/model.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cm_graph *g = NULL;
    cm_error err = {0};
    /* External data is looked up in a directory that does not exist, so tensors stored
     * outside the model keep their dims and lose their values. */
    cm_status st = cm_model_load_buffer(data, size, "fuzz", "/nonexistent", &g, &err);
    if (st != CM_OK) {
        if (st != CM_EINPUT || g || err.message[0] == '\0' || strchr(err.message, '\n') ||
            strncmp(err.message, "fuzz", 4) != 0) {
            fprintf(stderr, "status %d, message \"%s\"\n", (int)st, err.message);
            abort();
        }
        return 0;
    }
    if (!g || g->n_inputs < 1 || g->n_layers < 1 || g->n_outputs < 1)
        abort();
    for (int i = 0; i < g->n_layers; i++) {
        const cm_layer *l = &g->layers[i];
        for (int k = 0; k < l->n_inputs; k++)
            if (l->inputs[k] >= i || (CM_SOURCE_IS_INPUT(l->inputs[k]) &&
                                      CM_SOURCE_INPUT_INDEX(l->inputs[k]) >= g->n_inputs))
                abort(); /* not in topological order, or a dangling input */
        if (l->out_shape.c <= 0 || l->out_shape.h <= 0 || l->out_shape.w <= 0)
            abort();
    }
    cm_graph_totals t = cm_graph_totals_of(g);
    (void)t;
    cm_graph_free(g);
    return 0;
}
