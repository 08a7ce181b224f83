// cm_adapt.h: stream width adapters between blocks whose packings differ (the stream
// protocol of cnnmap_hls.h): a producer writes words of P pixels x CP channels as its
// parallelism gives (nn2FPGA thesis section 3.5.1: ow_par, och_par); the consumer may read
// another packing (section 3.6.2: the window buffer reads ow_par pixels x ich_par channels).
// Each adapter is one pipelined loop at II=1 that reads at most one word and writes at most
// one word per iteration, so a frame takes as many cycles as the larger of its input and
// output word counts. The generator converts (P1, C1) to (P2, C2) through L = lcm(P1, P2)
// pixels: pack_pixels P1 -> L, repack_channels C1 -> C2 at L, unpack_pixels L -> P2, so no
// step moves more words than the larger end does.
#ifndef CM_ADAPT_H
#define CM_ADAPT_H

#include "cnnmap_hls.h"

namespace cm {

// NPIX pixels in words of P pixels, CH channels per pixel in words of CIN -> words of COUT.
// Per pixel group, an iteration reads the next input word when the next output word needs
// it, and writes that output word once its channels are all in: max(CH / CIN, CH / COUT)
// iterations.
template <class T, int NPIX, int CH, int CIN, int COUT, int P = 1>
void repack_channels(hls::stream<word<T, P * CIN> >& in, hls::stream<word<T, P * COUT> >& out) {
  static_assert(CH % CIN == 0 && CH % COUT == 0 && NPIX % P == 0, "packings must divide CH and NPIX");
  constexpr int GI = CH / CIN, GO = CH / COUT, STEPS = GI > GO ? GI : GO;
  T buf[P][CH];
  int ni = 0, no = 0, j = 0;  // words read and written in this pixel group, iteration in it
  for (int i = 0; i < NPIX / P * STEPS; i++) {
    CM_PRAGMA(HLS PIPELINE II=1)
    if (ni * CIN < (no + 1) * COUT) {
      const word<T, P * CIN> w = in.read();
      for (int p = 0; p < P; p++)
        for (int c = 0; c < CIN; c++) buf[p][ni * CIN + c] = w.v[p * CIN + c];
      ni++;
    }
    if (ni * CIN >= (no + 1) * COUT) {
      word<T, P * COUT> w;
      for (int p = 0; p < P; p++)
        for (int c = 0; c < COUT; c++) w.v[p * COUT + c] = buf[p][no * COUT + c];
      out.write(w);
      no++;
    }
    if (++j == STEPS) j = ni = no = 0;
  }
}

// Words of P pixels x CP channels -> words of POUT pixels x CP channels (POUT divides P):
// per input pixel group, the first CH / CP iterations read one word each and every
// iteration writes one.
template <class T, int NPIX, int CH, int P, int CP, int POUT = 1>
void unpack_pixels(hls::stream<word<T, P * CP> >& in, hls::stream<word<T, POUT * CP> >& out) {
  static_assert(CH % CP == 0 && NPIX % P == 0 && P % POUT == 0, "bad packing");
  constexpr int G = CH / CP, K = P / POUT;
  T buf[P][CH];
  int sub = 0, g = 0;
  for (int i = 0; i < NPIX / P * K * G; i++) {
    CM_PRAGMA(HLS PIPELINE II=1)
    if (sub == 0) {
      const word<T, P * CP> w = in.read();
      for (int p = 0; p < P; p++)
        for (int c = 0; c < CP; c++) buf[p][g * CP + c] = w.v[p * CP + c];
    }
    word<T, POUT * CP> w;
    for (int q = 0; q < POUT; q++)
      for (int c = 0; c < CP; c++) w.v[q * CP + c] = buf[sub * POUT + q][g * CP + c];
    out.write(w);
    if (++g == G) {
      g = 0;
      sub = sub + 1 == K ? 0 : sub + 1;
    }
  }
}

// Words of PIN pixels x CP channels -> words of P pixels x CP channels (PIN divides P):
// every iteration reads one word; the last CH / CP of each output pixel group write one.
template <class T, int NPIX, int CH, int P, int CP, int PIN = 1>
void pack_pixels(hls::stream<word<T, PIN * CP> >& in, hls::stream<word<T, P * CP> >& out) {
  static_assert(CH % CP == 0 && NPIX % P == 0 && P % PIN == 0, "bad packing");
  constexpr int G = CH / CP, K = P / PIN;
  T buf[P][CH];
  int sub = 0, g = 0;
  for (int i = 0; i < NPIX / P * K * G; i++) {
    CM_PRAGMA(HLS PIPELINE II=1)
    const word<T, PIN * CP> w = in.read();
    for (int q = 0; q < PIN; q++)
      for (int c = 0; c < CP; c++) buf[sub * PIN + q][g * CP + c] = w.v[q * CP + c];
    if (sub == K - 1) {
      word<T, P * CP> o;
      for (int p = 0; p < P; p++)
        for (int c = 0; c < CP; c++) o.v[p * CP + c] = buf[p][g * CP + c];
      out.write(o);
    }
    if (++g == G) {
      g = 0;
      sub = sub + 1 == K ? 0 : sub + 1;
    }
  }
}

}  // namespace cm

#endif
