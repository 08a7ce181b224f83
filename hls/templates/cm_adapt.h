// cm_adapt.h: stream width adapters between blocks whose packings differ (the stream
// protocol of cnnmap_hls.h): a producer writes words of P pixels x CP channels as its
// parallelism gives (nn2FPGA thesis section 3.5.1: ow_par, och_par); the consumer may read
// another packing (section 3.6.2: the window buffer reads one pixel x ich_par channels).
// Any packing converts to any other through unpack_pixels, repack_channels and pack_pixels.
#ifndef CM_ADAPT_H
#define CM_ADAPT_H

#include "cnnmap_hls.h"

namespace cm {

// Per pixel, CH channels in words of CIN -> words of COUT.
template <class T, int NPIX, int CH, int CIN, int COUT>
void repack_channels(hls::stream<word<T, CIN> >& in, hls::stream<word<T, COUT> >& out) {
  static_assert(CH % CIN == 0 && CH % COUT == 0, "channel packings must divide CH");
  T buf[CH];
  for (int px = 0; px < NPIX; px++) {
    for (int g = 0; g < CH / CIN; g++) {
      CM_PRAGMA(HLS PIPELINE II=1)
      const word<T, CIN> w = in.read();
      for (int c = 0; c < CIN; c++) buf[g * CIN + c] = w.v[c];
    }
    for (int g = 0; g < CH / COUT; g++) {
      CM_PRAGMA(HLS PIPELINE II=1)
      word<T, COUT> w;
      for (int c = 0; c < COUT; c++) w.v[c] = buf[g * COUT + c];
      out.write(w);
    }
  }
}

// Words of P pixels x CP channels -> words of 1 pixel x CP channels (NPIX pixels, NPIX % P == 0).
template <class T, int NPIX, int CH, int P, int CP>
void unpack_pixels(hls::stream<word<T, P * CP> >& in, hls::stream<word<T, CP> >& out) {
  static_assert(CH % CP == 0 && NPIX % P == 0, "bad packing");
  T buf[P][CH];
  for (int pg = 0; pg < NPIX / P; pg++) {
    for (int g = 0; g < CH / CP; g++) {
      CM_PRAGMA(HLS PIPELINE II=1)
      const word<T, P * CP> w = in.read();
      for (int p = 0; p < P; p++)
        for (int c = 0; c < CP; c++) buf[p][g * CP + c] = w.v[p * CP + c];
    }
    for (int p = 0; p < P; p++)
      for (int g = 0; g < CH / CP; g++) {
        CM_PRAGMA(HLS PIPELINE II=1)
        word<T, CP> w;
        for (int c = 0; c < CP; c++) w.v[c] = buf[p][g * CP + c];
        out.write(w);
      }
  }
}

// Words of 1 pixel x CP channels -> words of P pixels x CP channels.
template <class T, int NPIX, int CH, int P, int CP>
void pack_pixels(hls::stream<word<T, CP> >& in, hls::stream<word<T, P * CP> >& out) {
  static_assert(CH % CP == 0 && NPIX % P == 0, "bad packing");
  T buf[P][CH];
  for (int pg = 0; pg < NPIX / P; pg++) {
    for (int p = 0; p < P; p++)
      for (int g = 0; g < CH / CP; g++) {
        CM_PRAGMA(HLS PIPELINE II=1)
        const word<T, CP> w = in.read();
        for (int c = 0; c < CP; c++) buf[p][g * CP + c] = w.v[c];
      }
    for (int g = 0; g < CH / CP; g++) {
      CM_PRAGMA(HLS PIPELINE II=1)
      word<T, P * CP> w;
      for (int p = 0; p < P; p++)
        for (int c = 0; c < CP; c++) w.v[p * CP + c] = buf[p][g * CP + c];
      out.write(w);
    }
  }
}

}  // namespace cm

#endif
