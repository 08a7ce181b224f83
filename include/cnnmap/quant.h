/* Quantisation of a tensor: the bit width, signedness and scale that QONNX Quant,
 * BipolarQuant, Trunc and MultiThreshold nodes put on weights and activations. */
#ifndef CNNMAP_QUANT_H
#define CNNMAP_QUANT_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cm_quant {
    int bits;          /* bit width; 32 for an unquantised float32 tensor */
    bool quantised;    /* false: bits is the storage width of a float tensor */
    bool is_signed;
    bool narrow;       /* narrow range: [-(2^(b-1)-1), 2^(b-1)-1] */
    double scale;      /* the scale when it is one scalar, 0 when per-channel or unknown */
} cm_quant;

#ifdef __cplusplus
}
#endif
#endif
