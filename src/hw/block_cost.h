/* What a backend's cost model says about one hardware building block: its latency per
 * sample in clock cycles, the FPGA resources it occupies, and how it fills and drains a
 * pipeline. Every backend model in src/hw fills this one record, so the design layer
 * never looks inside a backend. */
#ifndef CM_HW_BLOCK_COST_H
#define CM_HW_BLOCK_COST_H

#include <stdbool.h>
#include <stdint.h>
#include <cnnmap/board.h>

/* A block's part in the first frame's latency through a partition
 * (src/design/first_frame.c). The block's input arrives at the rate of the slowest block
 * upstream, so the words it must hold are given apart from the cycles it needs of its
 * own to take them in; "fill" is what precedes its first output word, "start" what
 * precedes the work of its slowest stage. All counts are per sample. */
typedef struct cm_block_timing {
    double fill_words;   /* input words read before its first output can be computed */
    double fill_cycles;  /* its own cycles to read them when they are all waiting */
    double head_cycles;  /* from the fill-th word to its first output word */
    double start_words;  /* input words read before its slowest stage starts */
    double start_cycles; /* its own cycles to read them */
    double rest_cycles;  /* from then to its last output word when never kept waiting;
                          * at least `cycles` less start_cycles, so the frame is never
                          * shorter than the modelled interval */
    double tail_cycles;  /* from its last input word to its last output word when its
                          * input, not its own work, sets the pace */
    double beat_words;   /* input words per cycle it reads from off-chip (a partition's
                          * first block), > 0 */
    double burst_words;  /* output words it writes at once (a pixel, a vector), > 0 */
    double out_rows;     /* a window striding down its input: its output rows a sample,
                          * each written only once the last input row of its window is
                          * in (0: no such rows) */
    double row_stride;   /* input rows a window moves down between output rows */
    double tail_share;   /* a window's share of its outputs written only after its last
                          * input word, less one (cm_block_timing_last_rows) */
    double last_row_share; /* its share of outputs completed by its last input row, less
                            * one */
    double last_row_lead;  /* the share of its input's span before its last word at which
                            * the first of those rows' outputs completes (its input
                            * spread evenly): last_row_share of its output is written
                            * after that time (first_frame.c, node_time) */
    int rows_through;    /* its output rows follow its input's one for one, each written
                          * as its input row streams in (a pointwise block, a 1x1
                          * window): a window's last rows before it stay last rows
                          * through it (cm_design_row_source) */
    double take_cycles;  /* cycles it takes an input word in when all are waiting (0: its
                          * cycles over its words, a block working as it reads) */
    /* Which output rows wait for the end of its input (first_frame.c, "late rows"):
     * output row j of late_out_rows is written only once input row j * late_stride +
     * late_base of late_in_rows is in (a row at or past late_in_rows: once the last
     * input word is). late_in_rows 0: the block passes no such rows on (the backend
     * does not model them). Rows may be any unit the block works in (a vector, a
     * pixel row); producer and consumer meet in fractions of the sample. */
    double late_in_rows, late_out_rows, late_stride, late_base;
    int late_by_output;  /* its work on late rows is its output's (a window generator
                          * writing windows, padding), else its input's */
    int late_edge;       /* it writes most of an output row only once the input row its
                          * slots read is whole (a window generator with more taps a row
                          * than pixels, a pool): an input row partly late makes the
                          * output rows it feeds late too */
} cm_block_timing;

typedef struct cm_block_cost {
    double cycles;          /* latency of one sample (one feature map), clock cycles */
    double pipeline_depth;  /* the backend's own published pipeline depth (fpgaConvNet's
                             * sum of module depths, 2.4); 0 where it has none */
    cm_resources res;       /* DSP, BRAM18, URAM, LUT, FF */
    cm_block_timing timing;
} cm_block_cost;

/* One spatial axis of a sliding window in input positions: n real inputs with `before`
 * padding positions ahead of them and `after` behind (ceil_mode's overrun included),
 * the window's extent (dilation included), its stride and the outputs it makes. */
typedef struct cm_window_axis {
    int64_t n, before, after, extent, stride, out;
} cm_window_axis;

/* Input words (of `channels` per position) read before the first window is complete. */
double cm_window_fill_words(const cm_window_axis *rows, const cm_window_axis *cols,
                            int64_t channels);
/* Outputs completed only by the last real input or by the padding after it. */
double cm_window_tail_outputs(const cm_window_axis *rows, const cm_window_axis *cols);
/* A window's last rows (tail_share, last_row_share, last_row_lead): a block that walks
 * the padding after its input (pads_after_input: fpgaConvNet's sliding window) writes
 * the outputs ending in it after its last input word; one that completes them with
 * the last real row or column (hls4ml) writes after that word only those reaching the
 * last real input in both axes. Shares leave the last output out: a consumer takes
 * it a pixel's work before its own last output, which its tail covers. */
void cm_block_timing_last_rows(cm_block_timing *t, const cm_window_axis *rows,
                               const cm_window_axis *cols, bool pads_after_input);

/* One spatial axis of a resize (an upsample, or any scale): each output position needs
 * the input up to one position, floor(o * n_in / n_out) for the nearest mode (torch's
 * "nearest") and, for a linear mode, the second of the two inputs it blends
 * (half-pixel centres, torch's bilinear). `fresh` counts the input positions that are
 * the need of some output (the needs never decrease), `last_first` is the first output
 * needing the last input (n_out when none does) and `last_outputs` how many do. A
 * streaming resize walks its output rows in order, reading an input row when an output
 * row first needs it and writing as it reads the outputs each input pixel completes; it
 * repeats a buffered row for the rows that need no new one, and reads without writing
 * the rows and columns no output needs. Every backend's model and simulation of a
 * resize share this walk. */
typedef struct cm_resize_axis {
    int64_t n_in, n_out;
    int interpolate;
    int64_t fresh, last_first, last_outputs;
} cm_resize_axis;

void cm_resize_axis_make(int64_t n_in, int64_t n_out, int interpolate, cm_resize_axis *a);
int64_t cm_resize_need(const cm_resize_axis *a, int64_t o);
/* Pixel times of the walk over rows r and columns c: (R - Fr) C + Fr (C - Fc) + Ro Co for
 * R x C in, Ro x Co out and Fr, Fc fresh (Ro Co, the output, for any upsample). */
double cm_resize_walk(const cm_resize_axis *r, const cm_resize_axis *c);
/* A resize taking `pixel` cycles a pixel in or out, pixels of `channels` words, `beat`
 * words a cycle read from off-chip, `cycles` a sample: its first output a cycle after
 * the first word of the input pixel that output needs; after its last input word, that
 * pixel's outputs, then the repeats of the last row. */
void cm_block_timing_resize(cm_block_timing *t, double cycles, const cm_resize_axis *r,
                            const cm_resize_axis *c, double pixel, double channels, double beat);

/* A block that reads its whole input (`read_cycles` at `beat` words a cycle), holding it,
 * and then writes it again at the same pace (a normalisation over the map): its first
 * output a cycle after its last input word, its last `read_cycles` after that. */
void cm_block_timing_map(cm_block_timing *t, double read_cycles, double words, double channels,
                         double beat);

/* A block that turns each input pixel of `channels` words into an output pixel written
 * at once, a word a cycle after it came in; `cycles` per sample, `beat_words` a cycle
 * from off-chip. */
void cm_block_timing_pointwise(cm_block_timing *t, double cycles, double channels,
                               double beat_words);
/* A block that works its whole input (`words`, `cycles` per sample) before it writes
 * its `out_words`, which take `out_cycles` to leave. */
void cm_block_timing_whole(cm_block_timing *t, double cycles, double words, double out_words,
                           double out_cycles, double beat_words);

#endif
