/* Copies of a design for searches that run on several threads: each thread changes a
 * design of its own (the memos, partition sums and scratch are written as it
 * evaluates), while the graph, which evaluation only reads, is shared. */
#ifndef CM_DESIGN_COPY_H
#define CM_DESIGN_COPY_H

#include <cnnmap/design.h>

/* A design of src's graph with src's board, options, limits, recorded FIFO depths,
 * foldings and cuts. It shares src's graph (read only), so it must be freed with
 * cm_design_copy_free before src is. Its evaluation counter starts at 0. */
cm_status cm_design_copy_new(const cm_design *src, cm_design **out, cm_error *err);
void cm_design_copy_free(cm_design *copy);

#endif
