/* FINN merges and forks wider than one node takes: a StreamingConcat of more than
 * CM_FINN_CONCAT_MAX inputs becomes a cascade of concats, a DuplicateStreams of more
 * than CM_FINN_CONCAT_MAX outputs a chain of duplicates (DenseNet's concats take up to
 * 32 maps, and each map feeds every later concat of its block). */
#ifndef CM_HW_HD_FINN_WIDE_H
#define CM_HW_HD_FINN_WIDE_H

#include <cnnmap/error.h>

struct cm_hdgraph;

/* Splits every wide concat and duplicate of h (a FINN HD-graph in topological order,
 * which it keeps), and fills every concat's ChannelsPerStream and foldings. */
cm_status cm_hd_finn_split_wide(struct cm_hdgraph *h, cm_error *err);

#endif
