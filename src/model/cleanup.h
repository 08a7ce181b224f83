/* Graph clean-up after import: folds zero pads into the window that follows, flatten
 * into the fully connected layer that follows, batch normalisation and constant
 * shifts and scales into the convolution or fully connected layer before, and marks
 * activations a hardware layer can absorb. */
#ifndef CM_MODEL_CLEANUP_H
#define CM_MODEL_CLEANUP_H

#include <cnnmap/graph.h>

cm_status cm_graph_cleanup(cm_graph *g, const char *origin, cm_error *err);

#endif
