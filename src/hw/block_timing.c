/* The window geometry and common shapes behind each backend's cm_block_timing: where a
 * sliding window's first output is complete, and how many outputs wait for the last
 * input. The backends (fpgaconvnet_blocks.c, finn_blocks.c, hls4ml_blocks.c) combine
 * these with the cycles of their own modules. */
#include "hw/block_cost.h"

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Floor division for a possibly negative numerator (stride > 0). */
static int64_t floor_div(int64_t a, int64_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* The real input (0..n-1) whose arrival completes the first window. */
static int64_t window_first_end(const cm_window_axis *a)
{
    return clamp64(a->extent - 1 - a->before, 0, a->n > 0 ? a->n - 1 : 0);
}

/* Outputs whose window reaches the last real input or beyond (*reach), and of them those
 * that end in the padding after it (*beyond). */
static void window_last_outputs(const cm_window_axis *a, int64_t *reach, int64_t *beyond)
{
    const int64_t s = a->stride > 0 ? a->stride : 1;
    /* output o's window ends at input o*s - before + extent - 1 */
    const int64_t last = a->n - 1 - (a->extent - 1 - a->before);
    const int64_t first_reach = clamp64(floor_div(last + s - 1, s), 0, a->out);
    const int64_t first_beyond = clamp64(floor_div(last, s) + 1, 0, a->out);
    *reach = a->out - first_reach;
    *beyond = a->out - first_beyond;
}

double cm_window_fill_words(const cm_window_axis *rows, const cm_window_axis *cols,
                            int64_t channels)
{
    const int64_t r = window_first_end(rows), c = window_first_end(cols);
    return ((double)r * (double)cols->n + (double)c + 1.0) * (double)channels;
}

/* Rows ending beyond the last real row finish after it entirely; the row ending on it
 * finishes only its columns that reach the last real column. */
static double tail_outputs(int64_t rr, int64_t rb, int64_t cr, int64_t cols_out)
{
    return (double)rb * (double)cols_out + (double)(rr - rb) * (double)cr;
}

double cm_window_tail_outputs(const cm_window_axis *rows, const cm_window_axis *cols)
{
    int64_t rr, rb, cr, cb;
    window_last_outputs(rows, &rr, &rb);
    window_last_outputs(cols, &cr, &cb);
    return tail_outputs(rr, rb, cr, cols->out);
}

void cm_block_timing_last_rows(cm_block_timing *t, const cm_window_axis *rows,
                               const cm_window_axis *cols, bool pads_after_input)
{
    int64_t rr, rb, cr, cb;
    window_last_outputs(rows, &rr, &rb);
    window_last_outputs(cols, &cr, &cb);
    const double outputs = (double)rows->out * (double)cols->out;
    if (outputs <= 0 || rows->n <= 0 || cols->n <= 0)
        return;
    const double tail =
        pads_after_input ? tail_outputs(rr, rb, cr, cols->out) : (double)rr * (double)cr;
    t->tail_share = tail > 1 ? (tail - 1) / outputs : 0.0;
    t->last_row_share = rr > 0 ? ((double)rr * (double)cols->out - 1) / outputs : 0.0;
    t->last_row_lead = (double)(cols->n - 1 - window_first_end(cols)) /
                       ((double)rows->n * (double)cols->n);
}

void cm_block_timing_pointwise(cm_block_timing *t, double cycles, double channels,
                               double beat_words)
{
    t->beat_words = beat_words > 0 ? beat_words : 1.0;
    t->fill_words = t->start_words = t->beat_words;
    t->fill_cycles = t->start_cycles = 1.0;
    t->head_cycles = 1.0;
    t->rest_cycles = cycles > 1 ? cycles : 1.0;
    t->tail_cycles = 1.0;
    t->burst_words = channels > 0 ? channels : 1.0;
    t->rows_through = 1;
}

void cm_block_timing_map(cm_block_timing *t, double read_cycles, double words, double channels,
                         double beat)
{
    t->beat_words = beat > 0 ? beat : 1.0;
    t->fill_words = words;
    t->fill_cycles = read_cycles;
    t->head_cycles = 1.0;
    t->start_words = t->beat_words;
    t->start_cycles = 1.0;
    t->rest_cycles = 2.0 * read_cycles - 1.0 > 1.0 ? 2.0 * read_cycles - 1.0 : 1.0;
    t->tail_cycles = read_cycles > 1.0 ? read_cycles : 1.0;
    t->burst_words = channels > 0 ? channels : 1.0;
}

void cm_block_timing_whole(cm_block_timing *t, double cycles, double words, double out_words,
                           double out_cycles, double beat_words)
{
    /* the first output needs every word worked, at its own pace, but the work runs as
     * the words arrive */
    t->beat_words = beat_words > 0 ? beat_words : 1.0;
    t->fill_words = words;
    t->fill_cycles = cycles;
    t->head_cycles = out_cycles;
    t->start_words = t->beat_words;
    t->start_cycles = 1.0;
    t->rest_cycles = (cycles > 1 ? cycles - 1 : 0) + out_cycles;
    t->tail_cycles = out_cycles;
    t->burst_words = out_words > 0 ? out_words : 1.0;
}

int64_t cm_resize_need(const cm_resize_axis *a, int64_t o)
{
    if (a->n_in <= 1 || a->n_out <= 0)
        return 0;
    if (!a->interpolate)
        return o * a->n_in / a->n_out;
    /* src = (o + 1/2) n_in / n_out - 1/2, clamped at 0: its floor, in integers, then
     * the next input (the last one at the far edge) */
    const int64_t num = (2 * o + 1) * a->n_in - a->n_out;
    const int64_t low = num < 0 ? 0 : num / (2 * a->n_out);
    return low + 1 < a->n_in ? low + 1 : a->n_in - 1;
}

void cm_resize_axis_make(int64_t n_in, int64_t n_out, int interpolate, cm_resize_axis *a)
{
    *a = (cm_resize_axis){n_in, n_out, interpolate != 0, 0, n_out, 0};
    int64_t prev = -1;
    for (int64_t o = 0; o < n_out; o++) {
        const int64_t need = cm_resize_need(a, o);
        a->fresh += need != prev;
        prev = need;
        if (need == n_in - 1) {
            if (a->last_first == n_out)
                a->last_first = o;
            a->last_outputs++;
        }
    }
}

double cm_resize_walk(const cm_resize_axis *r, const cm_resize_axis *c)
{
    return (double)(r->n_in - r->fresh) * (double)c->n_in +
           (double)r->fresh * (double)(c->n_in - c->fresh) + (double)r->n_out * (double)c->n_out;
}

void cm_block_timing_resize(cm_block_timing *t, double cycles, const cm_resize_axis *r,
                            const cm_resize_axis *c, double pixel, double channels, double beat)
{
    const double ahead =
        (double)cm_resize_need(r, 0) * (double)c->n_in + (double)cm_resize_need(c, 0);
    t->beat_words = beat > 0 ? beat : 1.0;
    t->burst_words = channels > 0 ? channels : 1.0;
    t->fill_words = t->start_words = ahead * channels + t->beat_words;
    t->fill_cycles = t->start_cycles = ahead * pixel + 1.0;
    t->head_cycles = 1.0;
    t->rest_cycles = cycles - ahead * pixel > 1.0 ? cycles - ahead * pixel : 1.0;
    t->tail_cycles = 1.0;
    if (r->last_outputs > 0 && c->last_outputs > 0) {
        const double repeats = (double)(r->last_outputs - 1) * (double)c->n_out;
        t->tail_cycles = ((double)c->last_outputs + repeats - 1.0) * pixel + 1.0;
    }
}
