// cm_residual.h: residual connections. nn2FPGA thesis section 3.6.4: the skip branch is a
// FIFO (an hls::stream whose depth the design computes) between the task that duplicates the
// block input and the element-wise add; the add aligns the two branches' power-of-two scales
// with left shifts and writes the wide sum, which requantise (cm_quant.h) brings back to the
// next activation type.
#ifndef CM_RESIDUAL_H
#define CM_RESIDUAL_H

#include "cnnmap_hls.h"

namespace cm {

// Duplicates NWORDS words: each word goes to `main` first, then to `skip`.
template <class T, int N, int NWORDS>
void fork2(hls::stream<word<T, N> >& in, hls::stream<word<T, N> >& main, hls::stream<word<T, N> >& skip) {
  for (int i = 0; i < NWORDS; i++) {
    CM_PRAGMA(HLS PIPELINE II=1)
    const word<T, N> w = in.read();
    main.write(w);
    skip.write(w);
  }
}

// out = (main << SHIFT_MAIN) + (skip << SHIFT_SKIP), value by value, in out_t; both branches
// in the same packing. Reads the main word first, then the skip word.
template <class a_t, class b_t, class out_t, int N, int NWORDS, int SHIFT_MAIN, int SHIFT_SKIP>
void add(hls::stream<word<a_t, N> >& main, hls::stream<word<b_t, N> >& skip, hls::stream<word<out_t, N> >& out) {
  for (int i = 0; i < NWORDS; i++) {
    CM_PRAGMA(HLS PIPELINE II=1)
    const word<a_t, N> a = main.read();
    const word<b_t, N> b = skip.read();
    word<out_t, N> o;
    for (int k = 0; k < N; k++) {
      const out_t x = out_t(a.v[k]) << SHIFT_MAIN;
      const out_t y = out_t(b.v[k]) << SHIFT_SKIP;
      o.v[k] = x + y;
    }
    out.write(o);
  }
}

// Skip FIFO depth (words) for fork2 -> window_buffer (stride 1, ow_par 1) -> convolution or
// depthwise convolution (-> requantise) -> add, where both branches carry `g` words per
// pixel: the window buffer writes window group n, channel group c, as it reads channel
// group c of pixel m = n + (fh - 1 - pad) * iw + (fw - 1 - pad) (cm_window.h), so while the
// add waits for output word (n, c) the skip FIFO holds the words of pixels n .. m before
// it (the fork writes the main branch first). A depthwise convolution (per_channel) writes
// (n, c) from window (n, c) alone; a full convolution needs all g windows of pixel n, g - 1
// words more. Other FIFO depths on the main branch do not change this (hls_test_blocks
// checks 1, 2 and 4).
constexpr int skip_depth_words(int iw, int fh, int fw, int pad, int g, bool per_channel = false) {
  return ((fh - 1 - pad) * iw + (fw - 1 - pad)) * g + (per_channel ? 0 : g - 1);
}
constexpr int skip_depth(int iw, int fh, int fw, int pad, int g, bool per_channel = false) {
  return skip_depth_words(iw, fh, fw, pad, g, per_channel) < 1 ? 1 : skip_depth_words(iw, fh, fw, pad, g, per_channel);
}

}  // namespace cm

#endif
