// cm_pool.h: pooling tasks. Max pooling reads the window stream of a window buffer
// (cm_window.h, nn2FPGA thesis section 3.6) like the depthwise convolution of section 3.5
// does, taking the maximum instead of the weighted sum; global average pooling sums each
// channel over the whole frame and leaves the division to the requantisation that follows
// (a shift when H * W is a power of two, thesis section 3.2.1).
#ifndef CM_POOL_H
#define CM_POOL_H

#include "cnnmap_hls.h"

namespace cm {

// in: windows (CH_PAR channels, OW_PAR outputs per word); out: CH x OH x OW, words of
// OW_PAR pixels x CH_PAR channels. Padding comes from the window buffer's pad_value, which
// the generator sets to the type's minimum unless the input is known non-negative.
template <class T, int CH, int OH, int OW, int FH, int FW, int S, int CH_PAR, int OW_PAR>
void max_pool(hls::stream<word<T, CH_PAR * FH * window_cols(FW, S, OW_PAR)> >& in,
              hls::stream<word<T, OW_PAR * CH_PAR> >& out) {
  constexpr int FWX = window_cols(FW, S, OW_PAR);
  static_assert(CH % CH_PAR == 0, "CH_PAR must divide CH");
  static_assert(OW % OW_PAR == 0, "OW_PAR must divide OW");
  for (int pg = 0; pg < OH * OW / OW_PAR; pg++) {
    for (int g = 0; g < CH / CH_PAR; g++) {
      CM_PRAGMA(HLS PIPELINE II=1)
      const word<T, CH_PAR * FH * FWX> win = in.read();
      word<T, OW_PAR * CH_PAR> w;
      for (int sc = 0; sc < CH_PAR; sc++)
        for (int sp = 0; sp < OW_PAR; sp++) {
          T m = win.v[(sc * FH) * FWX + sp * S];
          for (int fy = 0; fy < FH; fy++)
            for (int fx = 0; fx < FW; fx++) {
              const T v = win.v[(sc * FH + fy) * FWX + sp * S + fx];
              if (v > m) m = v;
            }
          w.v[sp * CH_PAR + sc] = m;
        }
      out.write(w);
    }
  }
}

// Global pooling needs no window buffer: one running value per channel over the frame.
// in: CH x H x W, words of 1 pixel x CH_PAR channels; out: CH x 1 x 1, words of CH_PAR channels:
// the maxima (MAX) or the sums (acc_t must hold H * W times the largest input). One
// pipelined loop: the last pixel's iterations write the results, so a frame takes
// H * W * CH / CH_PAR cycles (eq. 4.9's window-buffer term for a global pool).
template <class T, class acc_t, int CH, int H, int W, int CH_PAR, bool MAX>
void global_pool(hls::stream<word<T, CH_PAR> >& in, hls::stream<word<acc_t, CH_PAR> >& out) {
  static_assert(CH % CH_PAR == 0, "CH_PAR must divide CH");
  constexpr int G = CH / CH_PAR;
  acc_t acc[G][CH_PAR];
  CM_PRAGMA(HLS ARRAY_PARTITION variable=acc dim=2 type=complete)
  int px = 0, g = 0;
  for (int i = 0; i < H * W * G; i++) {
    CM_PRAGMA(HLS PIPELINE II=1)
    const word<T, CH_PAR> w = in.read();
    word<acc_t, CH_PAR> o;
    for (int c = 0; c < CH_PAR; c++) {
      const acc_t v = acc_t(w.v[c]);
      if (px == 0)
        acc[g][c] = v;
      else if (MAX)
        acc[g][c] = v > acc[g][c] ? v : acc[g][c];
      else
        acc[g][c] = acc[g][c] + v;
      o.v[c] = acc[g][c];
    }
    if (px == H * W - 1) out.write(o);
    if (++g == G) {
      g = 0;
      px++;
    }
  }
}

template <class T, class acc_t, int CH, int H, int W, int CH_PAR>
void global_avg_pool(hls::stream<word<T, CH_PAR> >& in, hls::stream<word<acc_t, CH_PAR> >& out) {
  global_pool<T, acc_t, CH, H, W, CH_PAR, false>(in, out);
}

template <class T, int CH, int H, int W, int CH_PAR>
void global_max_pool(hls::stream<word<T, CH_PAR> >& in, hls::stream<word<T, CH_PAR> >& out) {
  global_pool<T, T, CH, H, W, CH_PAR, true>(in, out);
}

}  // namespace cm

#endif
