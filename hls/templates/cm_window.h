// cm_window.h: the window (line) buffer task that turns a pixel stream into the stream of
// convolution / pooling windows. nn2FPGA thesis section 3.6 (line buffer design, eq. 3.5;
// stride and ow_par, 3.6.3) at the rate of the cost model's eq. 4.9: one pipelined loop at
// II=1 whose iterations each read one input word of PIN pixels x ICH_PAR channels (PIN =
// OW_PAR when it divides the input width, the generator's choice) and, in the same
// iteration, write one window word when one is due. Padding is produced when a window is
// assembled, never read or stored, so it costs no iteration.
//
// Schedule (window_geometry below; src/hls/hls_window.c computes the same for the
// generator's skip FIFO depths and for the simulator): step t = 0, 1, ... is G = ICH /
// ICH_PAR iterations, one per channel group. Step t reads pixel group t (while t < RP =
// IH * IW / PIN). Window group w (OW_PAR adjacent outputs, windows in raster order) is due
// at the step that reads its last real pixel, due(w); it is written at step
// e(w) = max(due(w), e(w - 1) + 1), one group per step. So a frame takes
// G * max(RP, e(last) + 1) iterations: exactly eq. 4.9's ICH * IH * IW / (ICH_PAR * OW_PAR)
// unless windows fall due after the last read (a stride-1 layer's bottom padding rows:
// (IW / PIN + 1) extra steps for a 3 x 3, pad 1 window).
//
// The buffer keeps the last buffer_pixels() real pixels of all ICH channels, circularly:
// eq. 3.5's (FH - 1) * IW + FW pixels, widened by the columns the OW_PAR windows of one
// group span, by the PIN pixels of a read and by the steps a window waits after it falls due.
#ifndef CM_WINDOW_H
#define CM_WINDOW_H

#include "cnnmap_hls.h"

namespace cm {

// Output size of a convolution or pool along one axis.
constexpr int out_size(int in, int f, int s, int pad) { return (in + 2 * pad - f) / s + 1; }

constexpr int min_int(int a, int b) { return a < b ? a : b; }
constexpr int max_int(int a, int b) { return a > b ? a : b; }

// The window buffer's shape and schedule (see the head of this file).
struct window_geometry {
  int ih, iw, fh, fw, s, pad, ow_par, pin;
  constexpr int oh() const { return out_size(ih, fh, s, pad); }
  constexpr int ow() const { return out_size(iw, fw, s, pad); }
  constexpr int groups_per_row() const { return ow() / ow_par; }
  constexpr int windows() const { return oh() * groups_per_row(); }
  constexpr int reads() const { return ih * iw / pin; }
  // The pixel group (read step) holding window group w's last real pixel.
  constexpr int due(int w) const {
    return (min_int((w / groups_per_row()) * s + fh - 1 - pad, ih - 1) * iw +
            min_int(((w % groups_per_row()) * ow_par + ow_par - 1) * s + fw - 1 - pad, iw - 1)) /
           pin;
  }
  // Window group w's first real pixel (row-major index).
  constexpr int first_pixel(int w) const {
    return max_int((w / groups_per_row()) * s - pad, 0) * iw +
           max_int((w % groups_per_row()) * ow_par * s - pad, 0);
  }
  constexpr int steps() const {
    int e = -1;
    for (int w = 0; w < windows(); w++) e = max_int(due(w), e + 1);
    return max_int(reads(), e + 1);
  }
  // Real pixels held: from a window's first pixel to the last one read when it is written.
  constexpr int buffer_pixels() const {
    int e = -1, most = 1;
    for (int w = 0; w < windows(); w++) {
      e = max_int(due(w), e + 1);
      most = max_int(most, min_int(e, reads() - 1) * pin + pin - first_pixel(w));
    }
    return most;
  }
};

// Values the window buffer stores per channel (eq. 3.5 with ow_par, the read width and the
// schedule's waits).
constexpr int window_buffer_pixels(int ih, int iw, int fh, int fw, int s, int pad, int ow_par, int pin) {
  return window_geometry{ih, iw, fh, fw, s, pad, ow_par, pin}.buffer_pixels();
}

// in:  ICH x IH x IW, words of PIN pixels x ICH_PAR channels.
// out: windows for OH x OW outputs, one word per (OW_PAR outputs, ICH_PAR channels) group.
// tap (when TAP): after each window word, the OW_PAR pixels at offset (PAD, PAD) of the
//   group's windows, in the pixel protocol (P = OW_PAR, CP = ICH_PAR). With PAD = (FH-1)/2
//   and stride 1 these are the block input pixels in order; with stride S they are the
//   input of a 1 x 1, stride-S convolution. This is how a residual block reuses the line
//   buffer for its skip connection (thesis section 3.6.4: temporal reuse, and loop merge of
//   the downsampling convolution), so the skip FIFO holds only the lag of the rest of the
//   main branch.
template <class T, int ICH, int IH, int IW, int FH, int FW, int S, int PAD, int ICH_PAR, int OW_PAR, int PIN, int BUF,
          int STEPS, bool TAP>
void window_buffer_core(hls::stream<word<T, PIN * ICH_PAR> >& in,
                        hls::stream<word<T, ICH_PAR * FH * window_cols(FW, S, OW_PAR)> >& out,
                        hls::stream<word<T, OW_PAR * ICH_PAR> >& tap, const T pad_value) {
  constexpr window_geometry geo{IH, IW, FH, FW, S, PAD, OW_PAR, PIN};
  constexpr int FWX = window_cols(FW, S, OW_PAR);
  constexpr int G = ICH / ICH_PAR, RP = geo.reads(), NWG = geo.windows(), WO = geo.groups_per_row();
  constexpr int ITER = STEPS * G;
  static_assert(ICH % ICH_PAR == 0, "ICH_PAR must divide ICH");
  static_assert(IW % PIN == 0, "PIN must divide the input width");
  static_assert(geo.ow() % OW_PAR == 0, "OW_PAR must divide the output width");
  static_assert(geo.oh() >= 1 && geo.ow() >= 1, "window larger than the padded input");
  static_assert(PAD < FH && PAD < FW, "padding wider than the window");
  static_assert(BUF >= 1 && STEPS >= geo.reads(), "BUF and STEPS come from the window's schedule");

  T line[BUF][ICH];
  CM_PRAGMA(HLS ARRAY_PARTITION variable=line dim=2 type=cyclic factor=ICH_PAR)

  int t = 0, g = 0, w = 0;  // step, channel group, next window group
  bool emit = false;
  for (int i = 0; i < ITER; i++) {
    CM_PRAGMA(HLS PIPELINE II=1)
    if (g == 0) emit = w < NWG && geo.due(w) <= t;
    if (t < RP) {
      const word<T, PIN * ICH_PAR> x = in.read();
      for (int p = 0; p < PIN; p++)
        for (int c = 0; c < ICH_PAR; c++) line[(t * PIN + p) % BUF][g * ICH_PAR + c] = x.v[p * ICH_PAR + c];
    }
    if (emit) {
      const int y0 = (w / WO) * S - PAD, x0 = (w % WO) * OW_PAR * S - PAD;
      word<T, ICH_PAR * FH * FWX> win;
      for (int c = 0; c < ICH_PAR; c++)
        for (int fy = 0; fy < FH; fy++)
          for (int fx = 0; fx < FWX; fx++) {
            const int y = y0 + fy, x = x0 + fx;
            const bool real = y >= 0 && y < IH && x >= 0 && x < IW;
            win.v[(c * FH + fy) * FWX + fx] = real ? line[(y * IW + x) % BUF][g * ICH_PAR + c] : pad_value;
          }
      out.write(win);
      if (TAP) {
        word<T, OW_PAR * ICH_PAR> tw;
        for (int p = 0; p < OW_PAR; p++)
          for (int c = 0; c < ICH_PAR; c++) tw.v[p * ICH_PAR + c] = win.v[(c * FH + PAD) * FWX + p * S + PAD];
        tap.write(tw);
      }
    }
    if (++g == G) {
      g = 0;
      t++;
      w += emit ? 1 : 0;
    }
  }
}

// BUF and STEPS default to the schedule's figures, which the generator also fills in
// (computed by src/hls/hls_window.c, so that a large layer does not ask the compiler for
// millions of constexpr steps); the core checks them for small layers.
template <class T, int ICH, int IH, int IW, int FH, int FW, int S, int PAD, int ICH_PAR, int OW_PAR, int PIN = 1,
          int BUF = window_buffer_pixels(IH, IW, FH, FW, S, PAD, OW_PAR, PIN),
          int STEPS = window_geometry{IH, IW, FH, FW, S, PAD, OW_PAR, PIN}.steps()>
void window_buffer(hls::stream<word<T, PIN * ICH_PAR> >& in,
                   hls::stream<word<T, ICH_PAR * FH * window_cols(FW, S, OW_PAR)> >& out,
                   const T pad_value = T(0)) {
  hls::stream<word<T, OW_PAR * ICH_PAR> > unused_tap;
  window_buffer_core<T, ICH, IH, IW, FH, FW, S, PAD, ICH_PAR, OW_PAR, PIN, BUF, STEPS, false>(in, out, unused_tap,
                                                                                          pad_value);
}

template <class T, int ICH, int IH, int IW, int FH, int FW, int S, int PAD, int ICH_PAR, int OW_PAR, int PIN = 1,
          int BUF = window_buffer_pixels(IH, IW, FH, FW, S, PAD, OW_PAR, PIN),
          int STEPS = window_geometry{IH, IW, FH, FW, S, PAD, OW_PAR, PIN}.steps()>
void window_buffer_tap(hls::stream<word<T, PIN * ICH_PAR> >& in,
                       hls::stream<word<T, ICH_PAR * FH * window_cols(FW, S, OW_PAR)> >& out,
                       hls::stream<word<T, OW_PAR * ICH_PAR> >& tap, const T pad_value = T(0)) {
  window_buffer_core<T, ICH, IH, IW, FH, FW, S, PAD, ICH_PAR, OW_PAR, PIN, BUF, STEPS, true>(in, out, tap, pad_value);
}

}  // namespace cm

#endif
