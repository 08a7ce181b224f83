/* The window buffer's schedule (hls/templates/cm_window.h), for the generator (how far a
 * layer has read its input when it writes an output pixel, which sizes the skip FIFOs)
 * and for the simulator (which iterations of the task's loop read and which write).
 * Pixel groups of `pin` pixels are read one per step; window group k (ow_par adjacent
 * outputs, raster order) falls due at the step that reads its last real pixel and is
 * written at step emit(k) = max(due(k), emit(k - 1) + 1). A step is ICH / ICH_PAR
 * iterations, one per channel group. */
#ifndef CM_HLS_WINDOW_H
#define CM_HLS_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

typedef struct hg_window {
    int64_t ih, iw, fh, fw, s, pad, ow_par, pin;
    int64_t oh, ow;
    int64_t per_row; /* window groups per output row: ow / ow_par */
    int64_t groups;  /* window groups: oh * per_row */
    int64_t reads;   /* read steps: ih * iw / pin */
} hg_window;

/* False when the shape is not one the template takes (a factor that does not divide, a
 * window larger than the padded input, padding as wide as the window). */
bool hg_window_init(hg_window *w, int64_t ih, int64_t iw, int64_t fh, int64_t fw, int64_t s,
                    int64_t pad, int64_t ow_par, int64_t pin);
/* The read step holding window group k's last real pixel. */
int64_t hg_window_due(const hg_window *w, int64_t k);
/* The step that writes window group k (O(oh + per_row)). */
int64_t hg_window_emit(const hg_window *w, int64_t k);
/* Steps per frame: max(reads, emit(last) + 1). */
int64_t hg_window_steps(const hg_window *w);
/* Real pixels the buffer holds (cm_window.h's BUF): over the window groups, from a
 * group's first real pixel to the last pixel read when it is written. */
int64_t hg_window_buffer(const hg_window *w);

/* Pixels per word the window buffer reads: ow_par when it divides the input width (eq.
 * 4.9's rate), else their greatest common divisor. */
int64_t hg_window_pin(int64_t ow_par, int64_t iw);
int64_t hg_gcd(int64_t a, int64_t b);

#endif
