/* SAMO's analytic hls4ml model (hls4ml has none of its own; section 4 of
 * ../shared/docs/backend-models.md): latency = spatial size x reuse factor, DSP = the
 * kernel folding, and hls4ml's own rule for which reuse factors are valid. */
#ifndef CM_HW_HLS4ML_BLOCKS_H
#define CM_HW_HLS4ML_BLOCKS_H

#include <stdbool.h>
#include <stdint.h>
#include "hw/block_cost.h"

typedef struct cm_hls4ml_layer {
    bool multiplies;     /* Dense / Conv1D / Conv2D: DSPs are instantiated */
    int64_t spatial;     /* input rows x cols for 3-D inputs, else 1 */
    int64_t n_in;        /* C_in * k * k */
    int64_t n_out;       /* C_out */
    int64_t kernel_fold; /* the HD-graph's kernel folding kf; RF = trunc(n_in*n_out / kf) */
} cm_hls4ml_layer;

/* hls4ml's validity rule for a reuse factor (section 4.1, conditions i-iii). */
bool cm_hls4ml_rf_valid(int64_t n_in, int64_t n_out, int64_t rf);

/* The valid kernel foldings: RF values 1..n_in*n_out that pass the rule, ascending.
 * Writes at most `cap` values to `out` (may be NULL to count); returns the total. */
int64_t cm_hls4ml_kernel_folds(int64_t n_in, int64_t n_out, int64_t *out, int64_t cap);

int64_t cm_hls4ml_reuse_factor(const cm_hls4ml_layer *l);

void cm_hls4ml_layer_cost(const cm_hls4ml_layer *l, cm_block_cost *out);

#endif
