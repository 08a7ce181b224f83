// cm_fc.h: the fully connected (Gemm / MatMul) task: the convolution engine of nn2FPGA
// thesis section 3.5 on a 1 x 1 input, parallel over ICH_PAR inputs and OCH_PAR outputs.
#ifndef CM_FC_H
#define CM_FC_H

#include "cnnmap_hls.h"

namespace cm {

// in: ICH values (ICH x 1 x 1), words of ICH_PAR; out: OCH accumulators (plus bias), words of
// OCH_PAR. weights[o][i] multiplies input i into output o.
template <class in_t, class w_t, class b_t, class acc_t, int ICH, int OCH, int ICH_PAR, int OCH_PAR>
void fully_connected(hls::stream<word<in_t, ICH_PAR> >& in, hls::stream<word<acc_t, OCH_PAR> >& out,
                     const w_t weights[OCH][ICH], const b_t bias[OCH]) {
  static_assert(ICH % ICH_PAR == 0, "ICH_PAR must divide ICH");
  static_assert(OCH % OCH_PAR == 0, "OCH_PAR must divide OCH");
  acc_t acc[OCH / OCH_PAR][OCH_PAR];
  CM_PRAGMA(HLS ARRAY_PARTITION variable=acc dim=2 type=complete)
  for (int ig = 0; ig < ICH / ICH_PAR; ig++) {
    const word<in_t, ICH_PAR> x = in.read();
    for (int og = 0; og < OCH / OCH_PAR; og++) {
      CM_PRAGMA(HLS PIPELINE II=1)
      for (int so = 0; so < OCH_PAR; so++) {
        const int o = og * OCH_PAR + so;
        acc_t a = ig == 0 ? acc_t(bias[o]) : acc[og][so];
        for (int si = 0; si < ICH_PAR; si++) a += x.v[si] * weights[o][ig * ICH_PAR + si];
        acc[og][so] = a;
      }
      if (ig == ICH / ICH_PAR - 1) {
        word<acc_t, OCH_PAR> w;
        for (int so = 0; so < OCH_PAR; so++) w.v[so] = acc[og][so];
        out.write(w);
      }
    }
  }
}

}  // namespace cm

#endif
