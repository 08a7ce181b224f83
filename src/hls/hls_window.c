/* The window buffer's schedule (hls_window.h), as cm_window.h's loop runs it. */
#include "hls/hls_window.h"

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

int64_t hg_gcd(int64_t a, int64_t b)
{
    while (b > 0) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

int64_t hg_window_pin(int64_t ow_par, int64_t iw)
{
    return ow_par > 0 && iw > 0 ? hg_gcd(ow_par, iw) : 1;
}

bool hg_window_init(hg_window *w, int64_t ih, int64_t iw, int64_t fh, int64_t fw, int64_t s,
                    int64_t pad, int64_t ow_par, int64_t pin)
{
    *w = (hg_window){.ih = ih, .iw = iw, .fh = fh, .fw = fw, .s = s, .pad = pad,
                     .ow_par = ow_par, .pin = pin};
    if (ih < 1 || iw < 1 || fh < 1 || fw < 1 || s < 1 || pad < 0 || pad >= fh || pad >= fw ||
        ow_par < 1 || pin < 1 || iw % pin != 0 || ih + 2 * pad < fh || iw + 2 * pad < fw)
        return false;
    w->oh = (ih + 2 * pad - fh) / s + 1;
    w->ow = (iw + 2 * pad - fw) / s + 1;
    if (w->ow % ow_par != 0)
        return false;
    w->per_row = w->ow / ow_par;
    w->groups = w->oh * w->per_row;
    w->reads = ih * iw / pin;
    return true;
}

/* due(k) - k = row_term(oy) + col_term(kx): the two parts of the window group's lag. */
static int64_t row_term(const hg_window *w, int64_t oy)
{
    return min64(oy * w->s + w->fh - 1 - w->pad, w->ih - 1) * (w->iw / w->pin) - oy * w->per_row;
}

static int64_t col_term(const hg_window *w, int64_t kx)
{
    int64_t rx = min64((kx * w->ow_par + w->ow_par - 1) * w->s + w->fw - 1 - w->pad, w->iw - 1);
    return rx / w->pin - kx;
}

int64_t hg_window_due(const hg_window *w, int64_t k)
{
    int64_t oy = k / w->per_row, kx = k % w->per_row;
    return k + row_term(w, oy) + col_term(w, kx);
}

/* emit(k) = k + max over k' <= k of (due(k') - k'): each group is written at its due step
 * or one step after the previous one, whichever is later. */
int64_t hg_window_emit(const hg_window *w, int64_t k)
{
    int64_t oy = k / w->per_row, kx = k % w->per_row;
    int64_t col_all = INT64_MIN, col_upto = INT64_MIN;
    for (int64_t x = 0; x < w->per_row; x++) {
        col_all = max64(col_all, col_term(w, x));
        if (x == kx)
            col_upto = col_all;
    }
    int64_t lag = row_term(w, oy) + col_upto;
    for (int64_t y = 0; y < oy; y++)
        lag = max64(lag, row_term(w, y) + col_all);
    return k + lag;
}

int64_t hg_window_steps(const hg_window *w)
{
    return max64(w->reads, hg_window_emit(w, w->groups - 1) + 1);
}

int64_t hg_window_buffer(const hg_window *w)
{
    int64_t e = -1, most = 1;
    for (int64_t k = 0; k < w->groups; k++) {
        int64_t oy = k / w->per_row, kx = k % w->per_row;
        int64_t first = max64(oy * w->s - w->pad, 0) * w->iw + max64(kx * w->ow_par * w->s - w->pad, 0);
        e = max64(hg_window_due(w, k), e + 1);
        most = max64(most, min64(e, w->reads - 1) * w->pin + w->pin - first);
    }
    return most;
}
