/* HLS generation: an nn2FPGA design becomes a self-contained HLS C++ project (nn2FPGA
 * thesis chapter 3): one dataflow top function whose tasks are cnnmap's building blocks
 * (hls/templates) with the design's unroll factors, integer weight arrays, a testbench,
 * a Makefile whose `make check` runs the C simulation against `cnnmap run`, and a Vitis
 * HLS script. */
#ifndef CNNMAP_HLS_H
#define CNNMAP_HLS_H

#include <stdbool.h>
#include <stdint.h>
#include <cnnmap/error.h>
#include <cnnmap/nn2fpga.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cm_hls_options {
    bool force;        /* replace a DIR that exists and is not empty */
    int test_vectors;  /* random input frames written with the reference outputs (>= 1) */
    uint64_t seed;     /* of those frames */
} cm_hls_options;

/* 10 test vectors, seed 0, no force. */
void cm_hls_options_init(cm_hls_options *o);

typedef struct cm_hls_skip {
    char name[64];              /* the residual add */
    char stream[32];            /* its skip FIFO in the top function */
    bool reuse;                 /* temporal reuse or loop merge: the skip taps the main
                                 * branch's first window buffer */
    int64_t design_activations; /* the design's skip buffer */
    int64_t activations;        /* the FIFO the project gives it (depth x values per word) */
    int64_t depth_words;
} cm_hls_skip;

typedef struct cm_hls_summary {
    int tasks, streams, files;
    int64_t lines;          /* generated C++ lines (src/), weights included */
    int n_skips;
    cm_hls_skip skips[64];
} cm_hls_summary;

/* Sizes every skip FIFO of d as the generated dataflow needs it for d's unroll factors
 * (the smallest depth that cannot deadlock), filling d->result.skips[].fifo_words and
 * fifo_word_activations, and keeps the lowered model in d->lowered for cm_hls_export.
 * CM_EINPUT when the model has no integer form (names the layer). */
cm_status cm_hls_size_skips(cm_nn2fpga_design *d, cm_error *err);
void cm_hls_lowered_free(struct cm_hls_lowered *l);

/* Writes the project into dir (created; see cm_hls_options.force). A model or design
 * the flow cannot take is CM_EINPUT naming the layer and why; nothing is left behind on
 * failure. */
cm_status cm_hls_export(const cm_nn2fpga_design *d, const char *dir, const cm_hls_options *o,
                        cm_hls_summary *summary, cm_error *err);

#ifdef __cplusplus
}
#endif
#endif
