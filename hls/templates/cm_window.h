// cm_window.h: the window (line) buffer task that turns a pixel stream into the stream of
// convolution / pooling windows. nn2FPGA thesis section 3.6 (line buffer design, eq. 3.5;
// stride and ow_par, 3.6.3).
//
// The buffer keeps the most recent (FH - 1) * IWP + FWX padded pixels of all ICH channels,
// IWP = IW + 2 * PAD and FWX = FW + (OW_PAR - 1) * S: eq. 3.5's [(fh - 1) * iw + fw - 1] * ich
// values plus the pixel being written, widened by the extra columns the OW_PAR windows of
// one output group span. Pixels enter in stream order; padding positions are filled with
// pad_value without reading. Whenever the pixel just stored completes the bottom-right
// corner of a group of OW_PAR output windows (rows and columns aligned to the stride), the
// group's windows are emitted, one word per group of ICH_PAR channels. Positions that belong
// to no window (stride > 1, the right and bottom remainder) are read and only stored.
#ifndef CM_WINDOW_H
#define CM_WINDOW_H

#include "cnnmap_hls.h"

namespace cm {

// Output size of a convolution or pool along one axis.
constexpr int out_size(int in, int f, int s, int pad) { return (in + 2 * pad - f) / s + 1; }

// Values the window buffer stores (eq. 3.5 with padding and ow_par).
constexpr int window_buffer_pixels(int iw, int fh, int fw, int s, int pad, int ow_par) {
  return (fh - 1) * (iw + 2 * pad) + window_cols(fw, s, ow_par);
}

// in:  ICH x IH x IW, words of 1 pixel x ICH_PAR channels.
// out: windows for OH x OW outputs, one word per (OW_PAR outputs, ICH_PAR channels) group.
// tap (when TAP): after each window word, the OW_PAR pixels at offset (PAD, PAD) of the
//   group's windows, in the pixel protocol (P = OW_PAR, CP = ICH_PAR). With PAD = (FH-1)/2
//   and stride 1 these are the block input pixels in order; with stride S they are the
//   input of a 1 x 1, stride-S convolution. This is how a residual block reuses the line
//   buffer for its skip connection (thesis section 3.6.4: temporal reuse, and loop merge of
//   the downsampling convolution), so the skip FIFO holds only the lag of the rest of the
//   main branch.
template <class T, int ICH, int IH, int IW, int FH, int FW, int S, int PAD, int ICH_PAR, int OW_PAR, bool TAP>
void window_buffer_core(hls::stream<word<T, ICH_PAR> >& in,
                        hls::stream<word<T, ICH_PAR * FH * window_cols(FW, S, OW_PAR)> >& out,
                        hls::stream<word<T, OW_PAR * ICH_PAR> >& tap, const T pad_value) {
  constexpr int FWX = window_cols(FW, S, OW_PAR);
  constexpr int IHP = IH + 2 * PAD, IWP = IW + 2 * PAD;
  constexpr int OH = out_size(IH, FH, S, PAD), OW = out_size(IW, FW, S, PAD);
  constexpr int BUF = window_buffer_pixels(IW, FH, FW, S, PAD, OW_PAR);
  constexpr int G = ICH / ICH_PAR;
  static_assert(ICH % ICH_PAR == 0, "ICH_PAR must divide ICH");
  static_assert(OW % OW_PAR == 0, "OW_PAR must divide the output width");
  static_assert(OH >= 1 && OW >= 1, "window larger than the padded input");

  T line[BUF][ICH];
  CM_PRAGMA(HLS ARRAY_PARTITION variable=line dim=2 type=cyclic factor=ICH_PAR)

  for (int y = 0; y < IHP; y++) {
    for (int x = 0; x < IWP; x++) {
      const int pos = y * IWP + x;
      const int slot = pos % BUF;
      const bool real = y >= PAD && y < PAD + IH && x >= PAD && x < PAD + IW;
      for (int g = 0; g < G; g++) {
        CM_PRAGMA(HLS PIPELINE II=1)
        if (real) {
          const word<T, ICH_PAR> w = in.read();
          for (int c = 0; c < ICH_PAR; c++) line[slot][g * ICH_PAR + c] = w.v[c];
        } else {
          for (int c = 0; c < ICH_PAR; c++) line[slot][g * ICH_PAR + c] = pad_value;
        }
      }
      // (y, x) is the bottom-right corner of the window group starting at (y0, x0)
      const int y0 = y - (FH - 1), x0 = x - (FWX - 1);
      if (y0 < 0 || x0 < 0 || y0 % S != 0 || x0 % (S * OW_PAR) != 0) continue;
      if (y0 / S >= OH || x0 / S >= OW) continue;
      for (int g = 0; g < G; g++) {
        CM_PRAGMA(HLS PIPELINE II=1)
        word<T, ICH_PAR * FH * FWX> w;
        for (int c = 0; c < ICH_PAR; c++)
          for (int fy = 0; fy < FH; fy++)
            for (int fx = 0; fx < FWX; fx++) {
              const int p = pos - (FH - 1 - fy) * IWP - (FWX - 1 - fx);
              w.v[(c * FH + fy) * FWX + fx] = line[p % BUF][g * ICH_PAR + c];
            }
        out.write(w);
        if (TAP) {
          word<T, OW_PAR * ICH_PAR> t;
          for (int p = 0; p < OW_PAR; p++)
            for (int c = 0; c < ICH_PAR; c++) t.v[p * ICH_PAR + c] = w.v[(c * FH + PAD) * FWX + p * S + PAD];
          tap.write(t);
        }
      }
    }
  }
}

template <class T, int ICH, int IH, int IW, int FH, int FW, int S, int PAD, int ICH_PAR, int OW_PAR>
void window_buffer(hls::stream<word<T, ICH_PAR> >& in,
                   hls::stream<word<T, ICH_PAR * FH * window_cols(FW, S, OW_PAR)> >& out,
                   const T pad_value = T(0)) {
  hls::stream<word<T, OW_PAR * ICH_PAR> > unused_tap;
  window_buffer_core<T, ICH, IH, IW, FH, FW, S, PAD, ICH_PAR, OW_PAR, false>(in, out, unused_tap, pad_value);
}

template <class T, int ICH, int IH, int IW, int FH, int FW, int S, int PAD, int ICH_PAR, int OW_PAR>
void window_buffer_tap(hls::stream<word<T, ICH_PAR> >& in,
                       hls::stream<word<T, ICH_PAR * FH * window_cols(FW, S, OW_PAR)> >& out,
                       hls::stream<word<T, OW_PAR * ICH_PAR> >& tap, const T pad_value = T(0)) {
  static_assert(PAD < FH && PAD < FW, "the tap must lie inside the window");
  window_buffer_core<T, ICH, IH, IW, FH, FW, S, PAD, ICH_PAR, OW_PAR, true>(in, out, tap, pad_value);
}

}  // namespace cm

#endif
